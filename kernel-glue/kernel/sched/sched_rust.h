/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_rust.h - the Rust implementations of scheduler helpers, seen from C.
 *
 * kernel/sched/sched_rust.rs exports these functions. Each has a C
 * counterpart with the same contract, kept as the baseline; the call sites
 * pick one by Kconfig (and, where both are built, by a sched feature), and
 * the KUnit suites check that both give the same answers.
 *
 * This header is also read by bindgen (rust/bindings/bindings_helper.h), so
 * that #[export] can check each Rust signature against its prototype. Keep
 * it to prototypes and forward declarations: no scheduler internals.
 */
#ifndef _KERNEL_SCHED_SCHED_RUST_H
#define _KERNEL_SCHED_SCHED_RUST_H

#include <linux/types.h>

#include "ext/idle_pick.h"	/* struct scx_idle_topo, a plain view */
#include "sparsemask.h"		/* struct sparsemask, SPARSEMASK_CHUNK_BYTES */
#include "steal_search.h"	/* steal_from_fn, STEAL_* */

/*
 * The asymmetric capacity fit's views are only declared here: fair.c holds
 * upstream's copy of asym_fit.h's enum until the patch that moves it there,
 * so fair.c includes asym_fit.h itself, and bindgen reads it through
 * rust/bindings/bindings_helper.h.
 */
struct asym_cpu_view;
struct asym_fit_task;
struct asym_scan;

/*
 * The prototypes are declared whatever the configuration; a function
 * exists only with its option (CONFIG_SCHED_RUST_SPARSEMASK, ...), and its
 * callers test that option with IS_ENABLED() or #ifdef, so the compiler
 * drops calls to functions that were not built.
 */

/*
 * The contracts are those of the C functions in kernel/sched/sparsemask.h;
 * @mask must not be NULL.
 */
void sched_rust_sparsemask_set_elem(struct sparsemask *mask, int elem);
void sched_rust_sparsemask_clear_elem(struct sparsemask *mask, int elem);
bool sched_rust_sparsemask_test_elem(const struct sparsemask *mask, int elem);
int sched_rust_sparsemask_next(const struct sparsemask *mask, int origin, int prev);

/*
 * The contract is that of steal_search() in kernel/sched/steal_search.h:
 * @overload and @steal_from must not be NULL, @smt_siblings may be.
 */
int sched_rust_steal_search(const struct sparsemask *overload,
			    const unsigned long *smt_siblings, int dst_cpu,
			    steal_from_fn steal_from, void *arg);

/*
 * The contracts are those of the C functions in kernel/sched/ext/idle_pick.h
 * (scx_idle_topo_test_and_clear_cpu(), scx_idle_topo_pick_in_node(),
 * scx_idle_topo_pick()). sched_rust_idle_pick() walks the other nodes in the
 * order of @topo->node_order, which sched_rust_idle_build_node_order() fills
 * from @topo->distance, rather than searching for the nearest one each time.
 * Out-of-range CPUs and nodes claim nothing (false, -EBUSY), in C and Rust.
 * Where the C functions would retry forever (a failed claim works on other
 * masks than those searched: a node's pick without SCX_IDLE_STATE_PER_NODE,
 * or a @topo->cpu_node entry that lags the masks), the Rust ones return
 * -EBUSY after as many such failures as there are CPUs.
 * @topo, @cpus_allowed and @cursor must not be NULL: the C functions
 * dereference them. The Rust functions, which must check a pointer before
 * they borrow it, claim nothing for a NULL one; that is not part of the
 * contract. sched_rust_idle_build_node_order(), Rust only, returns false
 * for a NULL pointer.
 */
bool sched_rust_idle_test_and_clear_cpu(const struct scx_idle_topo *topo,
					int cpu, unsigned int state);
s32 sched_rust_idle_pick_in_node(const struct scx_idle_topo *topo,
				 const unsigned long *cpus_allowed, int node,
				 u64 flags, unsigned int state,
				 unsigned int *cursor);
s32 sched_rust_idle_pick(const struct scx_idle_topo *topo,
			 const unsigned long *cpus_allowed, int node, u64 flags,
			 unsigned int state, unsigned int *cursor);
bool sched_rust_idle_build_node_order(const unsigned int *distance,
				      unsigned int nr_nodes, u16 *order);

/*
 * The contracts are those of the C functions in kernel/sched/asym_fit.h
 * (asym_select_idle_capacity(), asym_util_fits_cpu(), asym_fits_cpu_view()).
 * A NULL @clear_idle_cores is not written; no other pointer (@task, @scan,
 * @scan->cpus, @view, @cpu) may be NULL: the C functions dereference them.
 * The Rust scan, which must check a pointer before it borrows it, picks
 * nothing for a NULL one (-1); the Rust fit tests, called per CPU, check
 * only with CONFIG_RUST_DEBUG_ASSERTIONS (0, false). Neither is part of the
 * contract.
 */
int sched_rust_select_idle_capacity(const struct asym_fit_task *task,
				    const struct asym_scan *scan,
				    bool (*view)(void *arg, int cpu, unsigned int want,
						 struct asym_cpu_view *view),
				    void *arg, bool *clear_idle_cores);
int sched_rust_util_fits_cpu(const struct asym_fit_task *task,
			     const struct asym_cpu_view *cpu);
bool sched_rust_asym_fits_cpu(const struct asym_fit_task *task, bool smt_active,
			      const struct asym_cpu_view *cpu);

#endif /* _KERNEL_SCHED_SCHED_RUST_H */
