/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_rust.h - the Rust implementations of scheduler helpers, seen from C.
 *
 * kernel/sched/sched_rust.rs exports these functions. Each has a C
 * counterpart with the same contract, kept as the baseline; the call sites
 * pick one by Kconfig (see sched_rust_use() below), and the KUnit suites
 * check that both give the same answers.
 *
 * This header is also read by bindgen (rust/bindings/bindings_helper.h), so
 * that #[export] can check each Rust signature against its prototype. Keep
 * it to prototypes and the plain structures they take: no scheduler
 * internals.
 */
#ifndef _KERNEL_SCHED_SCHED_RUST_H
#define _KERNEL_SCHED_SCHED_RUST_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/numa.h>
#include <linux/types.h>

#include "ext/idle_pick.h"	/* struct scx_idle_node_order */
#include "sparsemask.h"		/* struct sparsemask, SPARSEMASK_CHUNK_BYTES */
#include "steal_search.h"	/* steal_from_fn, STEAL_* */

/*
 * The idle picker's view of the system: where idle.c keeps its idle masks.
 * The C picker reads them directly (ext/idle_pick.h).
 */

/* The pick flags of idle.c (enum scx_pick_idle_cpu_flags), same values. */
#define SCX_IDLE_PICK_CORE		(1U << 0)	/* SCX_PICK_IDLE_CORE */
#define SCX_IDLE_PICK_IN_NODE		(1U << 1)	/* SCX_PICK_IDLE_IN_NODE */

/* MAX_NUMNODES, which the Rust walk across nodes checks it can hold. */
enum { SCX_IDLE_MAX_NODES = MAX_NUMNODES };

/* The state of the system a pick depends on, read by the caller. */
#define SCX_IDLE_STATE_SMT_ACTIVE	(1U << 0)	/* sched_smt_active() */
#define SCX_IDLE_STATE_PER_NODE		(1U << 1)	/* per-node idle masks */

/* The idle masks of one node, or the global ones: struct scx_idle_cpus. */
struct scx_idle_masks {
	unsigned long *cpu;	/* one bit per idle CPU */
	unsigned long *smt;	/* one bit per CPU of a wholly idle SMT core */
};

/*
 * Where the idle masks and the node order are. idle.c fills it once, when
 * it allocates the masks at boot. Every bitmap has at least nr_cpus bits
 * (nr_nodes for @online_nodes); bits at and above nr_cpus are ignored. The
 * masks are written only with the picks' own rules.
 */
struct scx_idle_topo {
	unsigned int nr_cpus;			/* nr_cpu_ids */
	unsigned int nr_nodes;			/* nr_node_ids */
	struct scx_idle_masks global;		/* NUMA_NO_NODE */
	/* [nr_nodes]: NULL masks for a node that is not possible */
	const struct scx_idle_masks *nodes;
	const unsigned long *online_nodes;	/* node_states[N_ONLINE] */
	/*
	 * The pointer by which idle.c publishes the node order
	 * (&scx_idle_node_order): with RCU, a table of nr_nodes * nr_nodes
	 * entries whose row n lists every node by increasing distance from
	 * n, ties by node id; NULL while there is none, when the walk goes by
	 * node_distance(). @node_order itself is NULL without CONFIG_NUMA,
	 * where the picks do not walk across nodes.
	 */
	struct scx_idle_node_order __rcu *const *node_order;
};

/*
 * A described machine, on which the tests and the benchmark run both
 * pickers: the masks and the node order of @topo, and in place of the
 * running system's cpu_smt_mask(), cpu_to_node(), node_distance() and
 * lib/cpumask.c's rotation cursor, the tables and the cursor below. Its
 * node order (@topo.node_order points to its owner's pointer to it) is
 * replaced only between picks, so the pickers read it without RCU.
 */
struct scx_idle_machine {
	struct scx_idle_topo topo;
	/*
	 * [nr_cpus]: the bits of cpu_smt_mask(cpu); an entry may be rewritten
	 * (WRITE_ONCE()) while pickers run, so it is read with READ_ONCE()
	 */
	const unsigned long *const *smt_siblings;
	const int *cpu_node;			/* [nr_cpus]: cpu_to_node() */
	/*
	 * [nr_nodes * nr_nodes]: node_distance(from, to) at [from * nr + to],
	 * from which sched_rust_idle_build_node_order() fills the node order
	 * of @topo; the pickers read it only when the machine has no order
	 */
	const unsigned int *distance;
	/* cpumask_any_and_distribute()'s cursor: the last CPU it chose */
	unsigned int *cursor;
	/*
	 * NULL, or called each time a picker asks for the masks of @node
	 * (NUMA_NO_NODE: the global ones), in C and in Rust: a test changes
	 * the machine there as another CPU could, e.g. flips an online node
	 * with change_bit()
	 */
	void (*on_masks)(const struct scx_idle_machine *mach, int node);
};

/*
 * The asymmetric capacity fit's views: what the Rust fit reads of a CPU,
 * of the task and of the scan, filled by fair.c from the scheduler's state.
 * The C fit reads the scheduler's state directly (asym_fit.h).
 */
/*
 * struct asym_cpu_view - what the fit needs to know of one CPU.
 * @capacity:        capacity_of(): the capacity left to CFS
 * @capacity_orig:   arch_scale_cpu_capacity(), with ASYM_VIEW_UCLAMP
 * @actual_capacity: get_actual_cpu_capacity(): the original capacity
 *                   minus HW and cpufreq pressure, with ASYM_VIEW_UCLAMP
 * @core_idle:       is_core_idle(): every SMT sibling is idle, with
 *                   ASYM_VIEW_CORE
 *
 * The fields a reader did not ask for are not read. The layout is shared
 * with Rust's CpuView (#[repr(C)]); both sides check its size.
 */
struct asym_cpu_view {
	unsigned long capacity;
	unsigned long capacity_orig;
	unsigned long actual_capacity;
	bool core_idle;
};

static_assert(sizeof(struct asym_cpu_view) == 4 * sizeof(unsigned long));

/* The fields of struct asym_cpu_view a reader asks for, besides @capacity. */
#define ASYM_VIEW_CORE		BIT(0)	/* @core_idle */
#define ASYM_VIEW_UCLAMP	BIT(1)	/* @capacity_orig, @actual_capacity */

/*
 * The scan's view of @cpu: returns whether @cpu is idle for the task
 * (choose_idle_cpu()) and, if so, fills @view->capacity and the fields that
 * @want (ASYM_VIEW_*) asks for.
 */
typedef bool (*asym_cpu_view_fn)(void *arg, int cpu, unsigned int want,
				 struct asym_cpu_view *view);

/*
 * The scheduler's view (fair.c), for the task @arg. The Rust scan calls it
 * directly when it is the view it was given, as INDIRECT_CALL_1() does:
 * with retpolines and kCFI an indirect call per CPU costs more than the
 * scan's own work on that CPU.
 */
bool asym_idle_cpu_view(void *arg, int cpu, unsigned int want,
			struct asym_cpu_view *view);

/*
 * struct asym_fit_task - the task's side of the fit.
 * @util:        task_util_est()
 * @uclamp_min:  uclamp_eff_value(p, UCLAMP_MIN)
 * @uclamp_max:  uclamp_eff_value(p, UCLAMP_MAX)
 * @uclamp_used: uclamp_is_used()
 */
struct asym_fit_task {
	unsigned long util;
	unsigned long uclamp_min;
	unsigned long uclamp_max;
	bool uclamp_used;
};

static_assert(sizeof(struct asym_fit_task) == 4 * sizeof(unsigned long));

/*
 * struct asym_scan - the scan's inputs other than the task.
 * @cpus:          sched_domain_span(sd) & p->cpus_ptr, @nbits bits
 * @nbits:         the bits of @cpus to walk (small_cpumask_bits)
 * @target:        where the walk starts
 * @nr_idle_scan:  sd->shared->nr_idle_scan; read only with @sis_util
 * @sis_util:      sched_feat(SIS_UTIL) && sd->shared: limit the walk
 * @has_idle_core: sched_smt_active() && test_idle_cores(target)
 */
struct asym_scan {
	const unsigned long *cpus;
	unsigned int nbits;
	int target;
	int nr_idle_scan;
	bool sis_util;
	bool has_idle_core;
};

static_assert(sizeof(struct asym_scan) == sizeof(void *) + 4 * sizeof(int));

/*
 * The prototypes are declared whatever the configuration; a function
 * exists only with its option (CONFIG_SCHED_RUST_SPARSEMASK, ...), and its
 * callers test that option with IS_ENABLED() or #ifdef, so the compiler
 * drops calls to functions that were not built.
 */

/*
 * Which implementation the scheduler calls: a helper built in Rust replaces
 * its C version, and its call sites call Rust directly: where the helper is
 * built, sched_rust_use(<helper>) is a constant, and the compiler drops the
 * C branch. A call site tests sched_rust_use(<helper>) only where the
 * helper is built; a misspelt helper does not build.
 */
struct sched_rust_helpers {
	bool sparsemask;
	bool steal;
	bool asym_fit;
	bool idle_pick;
};

#ifdef CONFIG_SCHED_RUST_SWITCH
/*
 * A debug kernel chooses at run time instead: sched/rust/<helper> in
 * debugfs (kernel/sched/debug.c), so that tests and benchmarks can run
 * both in one boot.
 */
extern struct sched_rust_helpers sched_rust_switch;
/* READ_ONCE() is the callers' (<linux/compiler.h>): this header keeps to types. */
#define sched_rust_use(helper)	READ_ONCE(sched_rust_switch.helper)
#else
#define sched_rust_use(helper)	\
	(sizeof(((struct sched_rust_helpers *)NULL)->helper) != 0)
#endif

/* sched/rust in debugfs, for the files of the debug and test options. */
struct dentry;
extern struct dentry *sched_rust_debugfs;

/*
 * The contracts are those of the C functions in kernel/sched/sparsemask.h,
 * on the same memory layout, bad input included (set and clear outside
 * [0, nelems) do nothing, test returns false); sparsemask_kunit.c checks
 * that both agree. @mask must not be NULL. The layout is a contract with
 * sparsemask.h, checked on both sides at build time: there, that a chunk
 * is one cache line and that the chunks start one chunk after the header;
 * in sched_rust/sparsemask_export.rs, that Rust's chunk size, header
 * fields and chunk offset are these, and Rust sizes a mask as
 * sparsemask_size() does (one chunk more than strictly needed). Kconfig
 * offers CONFIG_SCHED_RUST_SPARSEMASK only where cache lines are the 64
 * bytes Rust assumes (not on s390, which has 256); should that test ever
 * be wrong, the build fails rather than having C and Rust disagree on
 * where an element lives.
 */
void sched_rust_sparsemask_set_elem(struct sparsemask *mask, int elem);
void sched_rust_sparsemask_clear_elem(struct sparsemask *mask, int elem);
bool sched_rust_sparsemask_test_elem(const struct sparsemask *mask, int elem);
int sched_rust_sparsemask_next(const struct sparsemask *mask, int origin, int prev);

/*
 * The contract is that of steal_search() in kernel/sched/steal_search.h,
 * with its steal_from_fn and STEAL_* results: @overload and @steal_from
 * must not be NULL, @smt_siblings may be. The KUnit suite (steal_kunit.c)
 * records the candidates each walk tries and requires identical
 * sequences.
 */
int sched_rust_steal_search(const struct sparsemask *overload,
			    const unsigned long *smt_siblings, int dst_cpu,
			    steal_from_fn steal_from, void *arg);

/*
 * The scheduler's steal_from() (fair.c). The Rust steal search calls it
 * directly when it is the @steal_from it was given, as INDIRECT_CALL_1()
 * does: with retpolines and kCFI, an indirect call per candidate costs
 * more than the walk's own work on it.
 */
int sched_steal_from(void *arg, int src_cpu);

/*
 * The contracts are those of idle.c's scx_idle_test_and_clear_cpu(),
 * pick_idle_cpu_in_node() and scx_pick_idle_cpu() (kernel/sched/ext/
 * idle_pick.h), on the idle masks of @topo, with the system's state in
 * @state (SCX_IDLE_STATE_*). As idle.c, they walk the nodes in the order
 * of @topo, read cpu_smt_mask(), cpu_to_node() and the online nodes when
 * they need them, and rotate with cpumask_any_and_distribute(): for the
 * same state, the same answer as idle.c. Out of idle.c's contract, and
 * checked only on the Rust side: out-of-range CPUs and nodes claim nothing
 * (false, -EBUSY), and so does a NULL @topo or @cpus_allowed.
 */
bool sched_rust_idle_test_and_clear_cpu(const struct scx_idle_topo *topo,
					int cpu, unsigned int state);
s32 sched_rust_idle_pick_in_node(const struct scx_idle_topo *topo,
				 const struct cpumask *cpus_allowed, int node,
				 u64 flags, unsigned int state);
s32 sched_rust_idle_pick(const struct scx_idle_topo *topo,
			 const struct cpumask *cpus_allowed, int node, u64 flags,
			 unsigned int state);

/*
 * The same on a described machine @m, rotating with @m->cursor; built only
 * for the KUnit suites and the benchmark (CONFIG_SCHED_RUST_KUNIT_TEST,
 * CONFIG_SCHED_RUST_BENCH). Only input within idle.c's contract may come
 * here: a failed claim must work on the masks searched, or the pick, as
 * idle.c's, retries forever. sched_rust_idle_build_node_order() fills a
 * machine's node order from its @distance, sorting as idle.c does; false
 * for a NULL pointer.
 */
bool sched_rust_idle_machine_test_and_clear_cpu(const struct scx_idle_machine *m,
						int cpu, unsigned int state);
s32 sched_rust_idle_machine_pick_in_node(const struct scx_idle_machine *m,
					 const unsigned long *cpus_allowed,
					 int node, u64 flags, unsigned int state);
s32 sched_rust_idle_machine_pick(const struct scx_idle_machine *m,
				 const unsigned long *cpus_allowed, int node,
				 u64 flags, unsigned int state);
bool sched_rust_idle_build_node_order(const unsigned int *distance,
				      unsigned int nr_nodes, u16 *order);

/*
 * The contracts are those of fair.c's __select_idle_capacity() (the scan;
 * the caller clears the idle-cores hint when told to), __util_fits_cpu()
 * and __asym_fits_cpu(), over the views above instead of the run queues.
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
