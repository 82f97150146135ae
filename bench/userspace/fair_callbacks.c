// SPDX-License-Identifier: GPL-2.0
/*
 * fair.c's two callbacks that the Rust exports call directly when they are
 * the ones given (asym_idle_cpu_view(), sched_steal_from(); sched_rust.h),
 * for the boundary tests of make test, which link the exports without
 * fair.c. The tests pass callbacks of their own, so these must never run.
 * (bench.c defines its own, over its described machines.)
 */
#include <stdlib.h>

#include "sched_rust_shim.h"
#include "sched_rust.h"

bool asym_idle_cpu_view(void *arg, int cpu, unsigned int want, struct asym_cpu_view *view)
{
	abort();
}

int sched_steal_from(void *arg, int src_cpu)
{
	abort();
}
