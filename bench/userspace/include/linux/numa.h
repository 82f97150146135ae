/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/numa.h>: see ../sched_rust_shim.h. MAX_NUMNODES is
 * here, as in the kernel (sched_rust.h reads it from this header).
 */
#ifndef _SHIM_LINUX_NUMA_H
#define _SHIM_LINUX_NUMA_H

#include "../sched_rust_shim.h"

#define MAX_NUMNODES		64

#endif
