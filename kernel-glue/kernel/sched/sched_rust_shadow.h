/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_rust_shadow.h - check every real call of a Rust helper against C.
 *
 * With CONFIG_SCHED_RUST_SHADOW_CHECK, the call sites of the helpers that
 * have no side effects hand their inputs to the functions below before they
 * make the call: the capacity scan of select_idle_capacity(), the tests of
 * asym_fits_cpu() and util_fits_cpu() (fair.c), the candidate walk of
 * try_steal() (fair.c) and the idle picks of sched_ext (ext/idle.c). Each
 * function runs the C and the Rust implementation on those inputs, counts
 * the call under the implementation that the call site uses (Rust, unless
 * a debug kernel switched it to C), and counts and reports (WARN_ONCE(),
 * with the inputs) any difference. /sys/kernel/debug/sched/rust/shadow has
 * the counts.
 *
 * The inputs that other CPUs change while the helper runs (which CPUs are
 * idle, which are overloaded) are copied first, and both implementations
 * read the copy: two reads of the live state could differ, and the check
 * would then report races rather than the implementations. So the real
 * call's own answer is not compared; the answers of the two
 * implementations on the state the real call saw, give or take a race, are.
 * The capacity scan's real call is also compared, by replay (below).
 */
#ifndef _KERNEL_SCHED_SCHED_RUST_SHADOW_H
#define _KERNEL_SCHED_SCHED_RUST_SHADOW_H

#include <linux/types.h>

#include "sched_rust.h"

struct cpumask;

/*
 * The scan of select_idle_capacity(): C's __select_idle_capacity() against
 * sched_rust_select_idle_capacity(), the CPU and the idle-cores hint, on
 * one copy of the CPUs the scan may read (@scan->cpus), which @fill writes
 * (with @arg: every field of the view, and choose_idle_cpu()) before either
 * scan runs. The copy is shared by all CPUs:
 * a call that finds it in use is counted as skipped. @rust: the call site
 * uses the Rust scan.
 */
void sched_rust_shadow_select_idle_capacity(const struct asym_fit_task *task,
					    const struct asym_scan *scan,
					    bool smt_active,
					    void (*fill)(void *arg, int cpu,
							 struct asym_cpu_view *view,
							 bool *idle),
					    void *arg, bool rust);

/*
 * The real call of the Rust capacity scan, replayed through C. The call
 * site brackets its call of sched_rust_select_idle_capacity() with
 * sched_rust_shadow_scan_begin() and, if that returned true,
 * sched_rust_shadow_scan_end() with the call's answer; in between, fair.c's
 * view callback, which the scan calls directly, hands each answer it gives
 * to sched_rust_shadow_scan_seen(): whether @cpu is idle for the task and,
 * if so, the fields of its @view that the scan asked for (@want), as the
 * scan got them. The end runs C's __select_idle_capacity() on those
 * answers alone; it must ask about the same number of CPUs, none that the
 * Rust scan did not reach, read no field of a CPU that the Rust scan did
 * not read, and return the same CPU and idle-cores hint. This checks the
 * call the scheduler made, through the view it calls there, against C on
 * exactly what that call read: no copy of the live state, no race, and no
 * read the scan did not make.
 *
 * The begin takes the copy of the check above, with interrupts off until
 * the end, and returns false (the call is counted as skipped) if another
 * CPU holds it. sched_rust_shadow_scan_seen() records only between a
 * begin that returned true and its end, on the CPU that called them.
 */
bool sched_rust_shadow_scan_begin(void);
void sched_rust_shadow_scan_seen(int cpu, bool idle, unsigned int want,
				 const struct asym_cpu_view *view);
void sched_rust_shadow_scan_end(const struct asym_fit_task *task,
				const struct asym_scan *scan, bool smt_active,
				int rust_cpu, bool rust_cleared);

/* __asym_fits_cpu() against sched_rust_asym_fits_cpu() for @view of @cpu. */
void sched_rust_shadow_asym_fits_cpu(const struct asym_fit_task *task,
				     bool smt_active,
				     const struct asym_cpu_view *view, int cpu,
				     bool rust);

/* __util_fits_cpu() against sched_rust_util_fits_cpu() for @view of @cpu. */
void sched_rust_shadow_util_fits_cpu(const struct asym_fit_task *task,
				     const struct asym_cpu_view *view, int cpu,
				     bool rust);

/*
 * The candidate walk of try_steal(): steal_search() against
 * sched_rust_steal_search() on a copy of @overload and @smt_siblings, each
 * with an attempt that takes nothing, so that both walk every candidate;
 * the sequences of candidates must be the same. The copy is shared by all
 * CPUs: a call that finds it in use, or whose mask is larger than an LLC's
 * overload mask (sparsemask_size(nr_cpu_ids, SMASK_DENSITY_DEFAULT)), is
 * counted as skipped.
 */
void sched_rust_shadow_steal_search(const struct sparsemask *overload,
				    const unsigned long *smt_siblings,
				    int dst_cpu, bool rust);

/*
 * sched_ext's idle picks (ext/idle.c): scx_idle_test_and_clear_cpu() of
 * @cpu, pick_idle_cpu_in_node() (@in_node) or scx_pick_idle_cpu() from
 * @node, with the system's state in @state (SCX_IDLE_STATE_*), as the call
 * site is about to make it. idle.c's code (ext/idle_pick.h, with idle.c's
 * accessors) and the Rust export idle.c calls run on one copy each of the
 * idle masks and @cpus_allowed, from this CPU's rotation cursor of
 * cpumask_any_and_distribute(), with the live topology; their answers,
 * cursors and masks after must be the same. A call that finds another
 * CPU's check running, or whose copy breaks idle.c's contract, is counted
 * as skipped.
 */
void sched_rust_shadow_idle_claim(const struct scx_idle_topo *topo, int cpu,
				  unsigned int state, bool rust);
void sched_rust_shadow_idle_pick(const struct scx_idle_topo *topo,
				 const struct cpumask *cpus_allowed, int node, u64 flags,
				 unsigned int state, bool in_node, bool rust);

/* The allocations of the shadow check's copies (sched_rust_shadow_alloc_sizes()). */
enum shadow_alloc {
	SHADOW_ALLOC_ASYM_TABLE,	/* the scan's copy: its chunk table */
	SHADOW_ALLOC_ASYM_CHUNK,	/* one chunk of it, for each 256 CPUs */
	SHADOW_ALLOC_ASYM_SEEN,		/* the CPUs a real scan reached */
	SHADOW_ALLOC_OVERLOAD,		/* the walk's copy of an LLC's overload mask */
	SHADOW_ALLOC_SIBLINGS,		/* the walk's copy of the SMT siblings */
	SHADOW_ALLOC_IDLE_TABLE,	/* the idle picks' table of node sets */
	SHADOW_ALLOC_IDLE_SET,		/* one node's (or the global) masks, twice */
	SHADOW_ALLOC_IDLE_NODES,	/* a struct scx_idle_masks per node, twice */
	SHADOW_ALLOC_IDLE_ALLOWED,	/* the allowed mask */
	SHADOW_NR_ALLOCS,
};

/*
 * The size in bytes of each allocation the shadow check makes, once or
 * once per node, at boot, on a machine of @nr_cpus possible CPUs and
 * @nr_nodes nodes: what the copies need, the largest input a call may
 * read, and no more. Nothing is allocated per CPU.
 */
void sched_rust_shadow_alloc_sizes(unsigned int nr_cpus, unsigned int nr_nodes,
				   size_t sizes[SHADOW_NR_ALLOCS]);

#endif /* _KERNEL_SCHED_SCHED_RUST_SHADOW_H */
