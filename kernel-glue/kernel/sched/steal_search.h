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
 * The destination itself is never tried, and each sibling is tried once:
 * step 2 skips the siblings, which step 1 tried if they were overloaded
 * (the posted series tried a refusing sibling twice, with two more rq lock
 * round trips). The walk stops at the first candidate that @steal_from
 * takes a task from, and as soon as @steal_from says to stop: when the
 * destination got work meanwhile, or its budget of attempts is spent.
 *
 * The attempt itself, steal_from(), takes and drops run-queue locks, so it
 * stays in C; the walk calls it through @steal_from, which the compiler
 * inlines into try_steal() since it is a constant there.
 */
#ifndef _KERNEL_SCHED_STEAL_SEARCH_H
#define _KERNEL_SCHED_STEAL_SEARCH_H

#include <linux/find.h>

#include "sparsemask.h"

/* What a steal_from_fn did with a candidate. */
#define STEAL_REFUSED	0	/* no task taken: try the next candidate */
#define STEAL_TAKEN	1	/* a task was taken: the walk ends */
#define STEAL_STOP	(-1)	/* no task taken, and the walk must end */

/*
 * Try to steal a task from @src_cpu for the caller's CPU. Returns
 * STEAL_TAKEN, STEAL_REFUSED or STEAL_STOP; the walk treats any positive
 * value as STEAL_TAKEN and any negative one as STEAL_STOP.
 */
typedef int (*steal_from_fn)(void *arg, int src_cpu);

/*
 * steal_search - try the steal candidates of @dst_cpu in order.
 * @overload:     the LLC's overloaded CPUs, indexed by CPU id
 * @smt_siblings: bitmap of @dst_cpu's SMT siblings (@dst_cpu included),
 *                overload->nelems bits, or NULL when SMT is off
 * @dst_cpu:      the CPU going idle
 * @steal_from:   the attempt; called with @arg and each candidate
 * @arg:          passed to @steal_from
 *
 * Returns the CPU a task was stolen from, or -1 (nothing taken, or
 * @steal_from said STEAL_STOP). An empty @overload tries nothing. A
 * @dst_cpu outside [0, overload->nelems) is no CPU of the mask: after the
 * siblings, every other overloaded CPU is tried from 0 up (the walk's
 * origin counts as 0). @overload and @steal_from must not be NULL.
 */
static __always_inline int steal_search(const struct sparsemask *overload,
					const unsigned long *smt_siblings,
					int dst_cpu, steal_from_fn steal_from,
					void *arg)
{
	int src_cpu, ret;

	if (smt_siblings) {
		for_each_set_bit(src_cpu, smt_siblings, overload->nelems) {
			if (src_cpu == dst_cpu ||
			    !sparsemask_test_elem(overload, src_cpu))
				continue;
			ret = steal_from(arg, src_cpu);
			if (ret)
				return ret > 0 ? src_cpu : -1;
		}
	}

	sparsemask_for_each(overload, dst_cpu, src_cpu) {
		if (src_cpu == dst_cpu ||
		    (smt_siblings && test_bit(src_cpu, smt_siblings)))
			continue;
		ret = steal_from(arg, src_cpu);
		if (ret)
			return ret > 0 ? src_cpu : -1;
	}
	return -1;
}

#endif /* _KERNEL_SCHED_STEAL_SEARCH_H */
