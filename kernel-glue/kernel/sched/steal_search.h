/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steal_search.h - the candidate walk of try_steal(), in C.
 *
 * When a CPU is about to go idle and the newidle balance found nothing,
 * try_steal() (kernel/sched/fair.c) looks for a task on an overloaded CPU
 * of the same LLC. This is the order in which it tries the candidates:
 *
 *  1. the SMT siblings of the destination whose overload bit is set, in
 *     ascending order, to keep the stolen task's cache warm;
 *  2. every CPU of the LLC's overload mask, from the destination up with
 *     wrap-around (the full walk; the v4/v5 iterator stopped early).
 *
 * The destination itself is never tried. A sibling that refused in step 1
 * is tried again in step 2, as in the posted series: its state may have
 * changed while the locks were dropped. The walk stops at the first
 * candidate that @steal_from accepts.
 *
 * The attempt itself, steal_from(), takes and drops run-queue locks, so it
 * stays in C; the walk calls it through @steal_from, which the compiler
 * inlines into try_steal() since it is a constant there. Rust implements
 * the same walk (sched_rust_steal_search()); the KUnit suite records the
 * candidates each one tries and requires identical sequences.
 */
#ifndef _KERNEL_SCHED_STEAL_SEARCH_H
#define _KERNEL_SCHED_STEAL_SEARCH_H

#include <linux/find.h>

#include "sched_rust.h"	/* steal_from_fn, shared with the Rust walk */
#include "sparsemask.h"

/*
 * steal_search - try the steal candidates of @dst_cpu in order.
 * @overload:     the LLC's overloaded CPUs, indexed by CPU id
 * @smt_siblings: bitmap of @dst_cpu's SMT siblings (@dst_cpu included),
 *                overload->nelems bits, or NULL when SMT is off
 * @dst_cpu:      the CPU going idle
 * @steal_from:   the attempt; called with @arg and each candidate
 * @arg:          passed to @steal_from
 *
 * Returns the CPU a task was stolen from, or -1. An empty @overload tries
 * nothing. A @dst_cpu outside [0, overload->nelems) is no CPU of the mask:
 * after the siblings, every overloaded CPU is tried from 0 up (the walk's
 * origin counts as 0). @overload and @steal_from must not be NULL.
 */
static __always_inline int steal_search(const struct sparsemask *overload,
					const unsigned long *smt_siblings,
					int dst_cpu, steal_from_fn steal_from,
					void *arg)
{
	int src_cpu;

	if (smt_siblings) {
		for_each_set_bit(src_cpu, smt_siblings, overload->nelems) {
			if (src_cpu != dst_cpu &&
			    sparsemask_test_elem(overload, src_cpu) &&
			    steal_from(arg, src_cpu))
				return src_cpu;
		}
	}

	sparsemask_for_each(overload, dst_cpu, src_cpu) {
		if (src_cpu != dst_cpu && steal_from(arg, src_cpu))
			return src_cpu;
	}
	return -1;
}

#endif /* _KERNEL_SCHED_STEAL_SEARCH_H */
