// SPDX-License-Identifier: GPL-2.0
/*
 * The shadow check of the Rust scheduler helpers (CONFIG_SCHED_RUST_SHADOW_CHECK):
 * every real call of a helper without side effects is run again with both
 * implementations on the same inputs, and any difference is reported. See
 * sched_rust_shadow.h for what is checked and why copies are compared.
 *
 * This turns every workload into a differential test, on the topology and
 * with the task mix of the machine it runs on: asymmetric capacities with
 * SMT for the capacity fit, whatever the KUnit suites' described machines
 * did not think of. It costs a copy of the inputs and a second run of each
 * helper per call: a debug option, off by default.
 */
#include <linux/bitmap.h>
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timex.h>
#include <linux/topology.h>

#include "sched_rust.h"
#include "sched_rust_shadow.h"
#include "sparsemask.h"
#include "steal_search.h"
#include "asym_fit_machine.h"	/* also sizes the copy without the fit */
#ifdef CONFIG_SCHED_RUST_IDLE_PICK
#include "ext/idle_pick.h"
#endif

enum shadow_helper {
	SHADOW_SELECT_IDLE_CAPACITY,
	SHADOW_SELECT_IDLE_CAPACITY_CALL,
	SHADOW_ASYM_FITS_CPU,
	SHADOW_UTIL_FITS_CPU,
	SHADOW_STEAL_SEARCH,
	SHADOW_IDLE_CLAIM,
	SHADOW_IDLE_PICK_IN_NODE,
	SHADOW_IDLE_PICK,
	SHADOW_NR_HELPERS,
};

static const char * const shadow_helper_names[SHADOW_NR_HELPERS] = {
	[SHADOW_SELECT_IDLE_CAPACITY]	= "select_idle_capacity",
	[SHADOW_SELECT_IDLE_CAPACITY_CALL] = "select_idle_capacity_call",
	[SHADOW_ASYM_FITS_CPU]		= "asym_fits_cpu",
	[SHADOW_UTIL_FITS_CPU]		= "util_fits_cpu",
	[SHADOW_STEAL_SEARCH]		= "steal_search",
	[SHADOW_IDLE_CLAIM]		= "idle_claim",
	[SHADOW_IDLE_PICK_IN_NODE]	= "idle_pick_in_node",
	[SHADOW_IDLE_PICK]		= "idle_pick",
};

/* Per helper, per implementation the call site used (C, Rust). */
struct shadow_count {
	unsigned long calls;
	unsigned long differences;
};

/* Why a call could not be checked. */
enum shadow_skip {
	SHADOW_SKIP_NO_COPY,	/* no copies: not allocated yet, or no memory */
	SHADOW_SKIP_BUSY,	/* the copies are in use by another CPU's check */
	SHADOW_SKIP_INPUT,	/* the input is outside what the copies hold */
	SHADOW_NR_SKIPS,
};

static const char * const shadow_skip_names[SHADOW_NR_SKIPS] = {
	[SHADOW_SKIP_NO_COPY]	= "no copies",
	[SHADOW_SKIP_BUSY]	= "copies busy",
	[SHADOW_SKIP_INPUT]	= "outside the contract",
};

struct shadow_stats {
	struct shadow_count count[SHADOW_NR_HELPERS][2];
	unsigned long skipped[SHADOW_NR_SKIPS];
};

static DEFINE_PER_CPU(struct shadow_stats, shadow_stats);

static void shadow_count(enum shadow_helper helper, bool rust, bool differs)
{
	this_cpu_inc(shadow_stats.count[helper][rust].calls);
	if (differs)
		this_cpu_inc(shadow_stats.count[helper][rust].differences);
}

/*
 * Count a call that could not be checked, and say so in the kernel log the
 * first time each reason comes up; the debugfs file counts them all.
 * Callers may hold a run-queue lock, hence printk_deferred().
 */
static void shadow_skip(enum shadow_helper helper, enum shadow_skip why)
{
	static unsigned long logged;

	this_cpu_inc(shadow_stats.skipped[why]);
	if (!test_and_set_bit(why, &logged))
		printk_deferred(KERN_INFO "sched_rust shadow: a call of %s not checked: %s (logged once per reason, counted in debugfs)\n",
				shadow_helper_names[helper], shadow_skip_names[why]);
}

/*
 * The copies of the live inputs of the capacity scan and of the steal
 * walk: one set for the whole system, each taken with a trylock (a call
 * that finds it taken is skipped), so that memory grows with nr_cpu_ids
 * and not with its square, in allocations that stay small at 8192 CPUs
 * (sched_rust_shadow_alloc_sizes()).
 */
struct asym_shadow_copy {
	raw_spinlock_t lock;
	/* described CPUs (asym_fit_machine.h), nr_cpu_ids of them */
	struct asym_machine_cpu **chunks;
	/*
	 * The real scan being recorded (sched_rust_shadow_scan_begin()): the
	 * CPU it runs on (-1: none), its interrupt state before the lock was
	 * taken, the CPUs it reached (nr_cpu_ids bits), how many questions it
	 * asked, and whether one was about a CPU beyond nr_cpu_ids.
	 */
	int recorder;
	unsigned long irq_flags;
	unsigned long *seen;
	unsigned int nr_seen;
	bool outside;
};

struct steal_shadow_copy {
	raw_spinlock_t lock;
	struct sparsemask *overload;	/* as large as an LLC's mask */
	size_t overload_bytes;		/* its size */
	unsigned long *siblings;	/* nr_cpu_ids bits */
};

static struct asym_shadow_copy *asym_shadow;
static struct steal_shadow_copy *steal_shadow;

void sched_rust_shadow_alloc_sizes(unsigned int nr_cpus, unsigned int nr_nodes,
				   size_t sizes[SHADOW_NR_ALLOCS])
{
	/*
	 * A cpumask as this kernel sizes it, which may be larger than
	 * nr_cpus bits (cpumask_copy() and friends write up to NR_CPUS
	 * without CPUMASK_OFFSTACK), or of @nr_cpus bits if larger.
	 */
	size_t mask = max_t(size_t, BITS_TO_LONGS(nr_cpus) * sizeof(long), cpumask_size());

	sizes[SHADOW_ALLOC_ASYM_TABLE] = DIV_ROUND_UP(nr_cpus, ASYM_MACHINE_CHUNK) *
					 sizeof(struct asym_machine_cpu *);
	sizes[SHADOW_ALLOC_ASYM_CHUNK] = ASYM_MACHINE_CHUNK * sizeof(struct asym_machine_cpu);
	sizes[SHADOW_ALLOC_ASYM_SEEN] = mask;
	/* The steal series' cfs_overload_cpus, one per LLC, is this size. */
	sizes[SHADOW_ALLOC_OVERLOAD] = sparsemask_size(nr_cpus, SMASK_DENSITY_DEFAULT);
	sizes[SHADOW_ALLOC_SIBLINGS] = mask;
	/* The idle picks': per node and global, cpu and smt, C's and Rust's. */
	sizes[SHADOW_ALLOC_IDLE_TABLE] = (nr_nodes + 1) * sizeof(unsigned long *);
	sizes[SHADOW_ALLOC_IDLE_SET] = 4 * mask;
	sizes[SHADOW_ALLOC_IDLE_NODES] = nr_nodes * sizeof(struct scx_idle_masks);
	sizes[SHADOW_ALLOC_IDLE_ALLOWED] = mask;
}

#ifdef CONFIG_SCHED_RUST_ASYM_FIT
/* The copy holds nr_cpu_ids CPUs; a span has no other. */
static bool asym_scan_fits_copy(const struct asym_scan *scan)
{
	return find_next_bit(scan->cpus, scan->nbits, nr_cpu_ids) >= scan->nbits;
}

void sched_rust_shadow_select_idle_capacity(const struct asym_fit_task *task,
					    const struct asym_scan *scan,
					    bool smt_active,
					    void (*fill)(void *arg, int cpu,
							 struct asym_cpu_view *view,
							 bool *idle),
					    void *arg, bool rust)
{
	struct asym_shadow_copy *copy = READ_ONCE(asym_shadow);
	struct asym_machine m = { .nr_cpus = nr_cpu_ids, .smt_active = smt_active };
	struct asym_machine_cpu *c;
	bool c_cleared, rust_cleared = false;
	unsigned long irq_flags;
	int c_cpu, rust_cpu, cpu;
	bool differs;

	if (!copy) {
		shadow_skip(SHADOW_SELECT_IDLE_CAPACITY, SHADOW_SKIP_NO_COPY);
		return;
	}
	if (!asym_scan_fits_copy(scan)) {
		shadow_skip(SHADOW_SELECT_IDLE_CAPACITY, SHADOW_SKIP_INPUT);
		return;
	}
	if (!raw_spin_trylock_irqsave(&copy->lock, irq_flags)) {
		shadow_skip(SHADOW_SELECT_IDLE_CAPACITY, SHADOW_SKIP_BUSY);
		return;
	}
	/* The CPUs the scan may read, each read once for both scans. */
	m.chunks = copy->chunks;
	for_each_set_bit(cpu, scan->cpus, scan->nbits) {
		c = asym_machine_chunks_cpu(copy->chunks, cpu);
		fill(arg, cpu, &c->view, &c->idle);
	}

	asym_machine_reset(&m);
	c_cpu = asym_machine_select_idle_capacity(&m, task, scan);
	c_cleared = m.cleared;
	rust_cpu = sched_rust_select_idle_capacity(task, scan, asym_machine_view,
						   &m, &rust_cleared);
	raw_spin_unlock_irqrestore(&copy->lock, irq_flags);

	differs = c_cpu != rust_cpu || c_cleared != rust_cleared;
	shadow_count(SHADOW_SELECT_IDLE_CAPACITY, rust, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: select_idle_capacity(target=%d util=%lu uclamp=%lu..%lu/%d nr_idle_scan=%d/%d idle_core=%d cpus=%*pbl): C %d/%d, Rust %d/%d\n",
		  scan->target, task->util, task->uclamp_min, task->uclamp_max,
		  task->uclamp_used, scan->nr_idle_scan, scan->sis_util,
		  scan->has_idle_core, scan->nbits, scan->cpus, c_cpu,
		  c_cleared, rust_cpu, rust_cleared);
}

bool sched_rust_shadow_scan_begin(void)
{
	struct asym_shadow_copy *copy = READ_ONCE(asym_shadow);
	unsigned long irq_flags;

	if (!copy) {
		shadow_skip(SHADOW_SELECT_IDLE_CAPACITY_CALL, SHADOW_SKIP_NO_COPY);
		return false;
	}
	if (!raw_spin_trylock_irqsave(&copy->lock, irq_flags)) {
		shadow_skip(SHADOW_SELECT_IDLE_CAPACITY_CALL, SHADOW_SKIP_BUSY);
		return false;
	}
	copy->irq_flags = irq_flags;
	bitmap_zero(copy->seen, nr_cpu_ids);
	copy->nr_seen = 0;
	copy->outside = false;
	/* Interrupts are off: the scan runs on this CPU until the end. */
	WRITE_ONCE(copy->recorder, smp_processor_id());
	return true;
}

/* The copy, if it records the scan running on this CPU; else NULL. */
static struct asym_shadow_copy *asym_shadow_recording(void)
{
	struct asym_shadow_copy *copy = READ_ONCE(asym_shadow);

	if (!copy || READ_ONCE(copy->recorder) != raw_smp_processor_id())
		return NULL;
	return copy;
}

void sched_rust_shadow_scan_seen(int cpu, bool idle, unsigned int want,
				 const struct asym_cpu_view *view)
{
	struct asym_shadow_copy *copy = asym_shadow_recording();
	struct asym_machine_cpu *c;

	/* Only the scan that holds the copy, on this CPU, is recorded. */
	if (!copy)
		return;
	copy->nr_seen++;
	if (cpu < 0 || cpu >= nr_cpu_ids) {
		copy->outside = true;
		return;
	}
	__set_bit(cpu, copy->seen);
	c = asym_machine_chunks_cpu(copy->chunks, cpu);
	c->idle = idle;
	c->fields = 0;
	if (!idle)
		return;
	/* What the scan read, and no more: C's replay may read no other. */
	c->view = (struct asym_cpu_view) { .capacity = view->capacity };
	if (want & ASYM_VIEW_UCLAMP) {
		c->view.capacity_orig = view->capacity_orig;
		c->view.actual_capacity = view->actual_capacity;
	}
	if (want & ASYM_VIEW_CORE)
		c->view.core_idle = view->core_idle;
	c->fields = want & (ASYM_VIEW_UCLAMP | ASYM_VIEW_CORE);
}

void sched_rust_shadow_scan_end(const struct asym_fit_task *task,
				const struct asym_scan *scan, bool smt_active,
				int rust_cpu, bool rust_cleared)
{
	/* Only after a begin that returned true: the copy is there, and ours. */
	struct asym_shadow_copy *copy = READ_ONCE(asym_shadow);
	struct asym_machine m = {
		.chunks = copy->chunks, .nr_cpus = nr_cpu_ids,
		.smt_active = smt_active, .known = copy->seen,
	};
	unsigned int rust_seen = copy->nr_seen;
	bool checked, differs = false;
	int c_cpu = -1;

	checked = !copy->outside && asym_scan_fits_copy(scan);
	if (checked) {
		asym_machine_reset(&m);
		c_cpu = asym_machine_replay_select_idle_capacity(&m, task, scan);
		differs = c_cpu != rust_cpu || m.cleared != rust_cleared ||
			  m.unknown || m.nr_seen != rust_seen;
	}
	WRITE_ONCE(copy->recorder, -1);
	raw_spin_unlock_irqrestore(&copy->lock, copy->irq_flags);

	if (!checked) {
		shadow_skip(SHADOW_SELECT_IDLE_CAPACITY_CALL, SHADOW_SKIP_INPUT);
		return;
	}
	shadow_count(SHADOW_SELECT_IDLE_CAPACITY_CALL, true, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: the real select_idle_capacity(target=%d util=%lu uclamp=%lu..%lu/%d nr_idle_scan=%d/%d idle_core=%d cpus=%*pbl) replayed: C %d/%d after %u CPUs%s, Rust %d/%d after %u\n",
		  scan->target, task->util, task->uclamp_min, task->uclamp_max,
		  task->uclamp_used, scan->nr_idle_scan, scan->sis_util,
		  scan->has_idle_core, scan->nbits, scan->cpus, c_cpu, m.cleared,
		  m.nr_seen, m.unknown ? " (reading a CPU or field the Rust scan did not)" : "",
		  rust_cpu, rust_cleared, rust_seen);
}

void sched_rust_shadow_asym_fits_cpu(const struct asym_fit_task *task,
				     bool smt_active,
				     const struct asym_cpu_view *view, int cpu,
				     bool rust)
{
	struct asym_machine_one one;
	bool c_fits, rust_fits;

	/* CPU 0 of a machine of one CPU, @cpu's view */
	c_fits = asym_machine_asym_fits_cpu(asym_machine_one(&one, view, smt_active),
					    task, 0);
	rust_fits = sched_rust_asym_fits_cpu(task, smt_active, view);

	shadow_count(SHADOW_ASYM_FITS_CPU, rust, c_fits != rust_fits);
	WARN_ONCE(c_fits != rust_fits,
		  "sched_rust shadow: asym_fits_cpu(cpu=%d util=%lu uclamp=%lu..%lu/%d smt=%d capacity=%lu/%lu/%lu core_idle=%d): C %d, Rust %d\n",
		  cpu, task->util, task->uclamp_min, task->uclamp_max,
		  task->uclamp_used, smt_active, view->capacity,
		  view->capacity_orig, view->actual_capacity, view->core_idle,
		  c_fits, rust_fits);
}

void sched_rust_shadow_util_fits_cpu(const struct asym_fit_task *task,
				     const struct asym_cpu_view *view, int cpu,
				     bool rust)
{
	struct asym_machine_one one;
	int c_fits, rust_fits;

	c_fits = asym_machine_util_fits_cpu(asym_machine_one(&one, view, false), task, 0);
	rust_fits = sched_rust_util_fits_cpu(task, view);

	shadow_count(SHADOW_UTIL_FITS_CPU, rust, c_fits != rust_fits);
	WARN_ONCE(c_fits != rust_fits,
		  "sched_rust shadow: util_fits_cpu(cpu=%d util=%lu uclamp=%lu..%lu/%d capacity=%lu/%lu/%lu): C %d, Rust %d\n",
		  cpu, task->util, task->uclamp_min, task->uclamp_max,
		  task->uclamp_used, view->capacity, view->capacity_orig,
		  view->actual_capacity, c_fits, rust_fits);
}
#endif /* CONFIG_SCHED_RUST_ASYM_FIT */

#ifdef CONFIG_SCHED_RUST_STEAL
/* The candidates a walk tried: how many, a hash of the sequence, the first. */
struct steal_trace {
	unsigned int n;
	u32 hash;
	int first[4];
};

/* An attempt that takes nothing: the walk goes through every candidate. */
static int steal_shadow_record(void *arg, int src_cpu)
{
	struct steal_trace *t = arg;

	if (t->n < ARRAY_SIZE(t->first))
		t->first[t->n] = src_cpu;
	t->n++;
	t->hash = (t->hash ^ (u32)src_cpu) * 16777619;	/* FNV-1a */
	return STEAL_REFUSED;
}

void sched_rust_shadow_steal_search(const struct sparsemask *overload,
				    const unsigned long *smt_siblings,
				    int dst_cpu, bool rust)
{
	struct steal_trace c = { .hash = 2166136261 }, r = { .hash = 2166136261 };
	struct steal_shadow_copy *copy = READ_ONCE(steal_shadow);
	const unsigned long *siblings = NULL;
	int nelems = overload->nelems, density = overload->density;
	unsigned long irq_flags;
	int c_cpu, rust_cpu, i;
	bool differs;

	if (!copy) {
		shadow_skip(SHADOW_STEAL_SEARCH, SHADOW_SKIP_NO_COPY);
		return;
	}
	/* The copy holds any mask that is no larger than an LLC's. */
	if (nelems < 0 || nelems > nr_cpu_ids || density < 0 ||
	    density > SMASK_DENSITY_MAX ||
	    sparsemask_size(nelems, density) > copy->overload_bytes) {
		shadow_skip(SHADOW_STEAL_SEARCH, SHADOW_SKIP_INPUT);
		return;
	}
	if (!raw_spin_trylock_irqsave(&copy->lock, irq_flags)) {
		shadow_skip(SHADOW_STEAL_SEARCH, SHADOW_SKIP_BUSY);
		return;
	}
	/* The header, then every chunk word: other CPUs set and clear bits. */
	copy->overload->nelems = nelems;
	copy->overload->density = density;
	for (i = 0; i <= nelems >> density; i++)
		copy->overload->chunks[i].word = READ_ONCE(overload->chunks[i].word);
	if (smt_siblings) {
		bitmap_copy(copy->siblings, smt_siblings, nelems);
		siblings = copy->siblings;
	}

	c_cpu = steal_search(copy->overload, siblings, dst_cpu,
			     steal_shadow_record, &c);
	rust_cpu = sched_rust_steal_search(copy->overload, siblings, dst_cpu,
					   steal_shadow_record, &r);

	differs = c_cpu != rust_cpu || c.n != r.n || c.hash != r.hash;
	raw_spin_unlock_irqrestore(&copy->lock, irq_flags);

	/*
	 * After the unlock (the caller still holds its rq lock, which a
	 * WARN's console output would be taken under otherwise with ours
	 * too): the report shows the caller's live sibling mask.
	 */
	shadow_count(SHADOW_STEAL_SEARCH, rust, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: steal_search(dst_cpu=%d nelems=%d density=%d siblings=%*pbl): C tried %u (%d %d %d %d ...) -> %d, Rust tried %u (%d %d %d %d ...) -> %d\n",
		  dst_cpu, nelems, density, smt_siblings ? nelems : 0,
		  smt_siblings, c.n, c.first[0], c.first[1], c.first[2], c.first[3],
		  c_cpu, r.n, r.first[0], r.first[1], r.first[2], r.first[3],
		  rust_cpu);
}
#endif /* CONFIG_SCHED_RUST_STEAL */

#ifdef CONFIG_SCHED_RUST_IDLE_PICK
/*
 * The idle picks of sched_ext. A pick reads the idle masks of every node,
 * which at 8192 CPUs and 64 nodes are 130 KB, so there is one set of copies
 * for the whole system rather than one per CPU (one allocation per node),
 * taken with a trylock: a pick that finds it taken (another CPU's check
 * runs) is counted as skipped. Each implementation works on a copy of its
 * own; everything else is the running system's, read as the real pick
 * reads it: C is idle.c's code (ext/idle_pick.h) with idle.c's accessors
 * but for the masks, and Rust is the very export idle.c calls
 * (sched_rust_idle_pick() and friends), on a struct scx_idle_topo of the
 * copies. Both rotate with
 * cpumask_any_and_distribute() from this CPU's cursor, the one the real
 * pick starts from: lib/cpumask.c lets the shadow check read it and put it
 * back (cpumask_distribute_prev()), so the real pick finds it as it was.
 */
struct idle_shadow {
	raw_spinlock_t lock;
	/* [0]: C's copy, [1]: Rust's */
	struct scx_idle_topo topo[2];
	struct scx_idle_masks *nodes[2];	/* [nr_node_ids] */
	/* [nr_node_ids + 1]: per node, then global: [C, Rust][cpu, smt] */
	unsigned long **sets;
	unsigned int stride;
	struct cpumask *allowed;
	unsigned int state;			/* SCX_IDLE_STATE_* of the call */
	/*
	 * The node order both copies walk: idle.c's, read once per check
	 * under the lock (an RCU read-side section, interrupts being off),
	 * so a rebuild meanwhile gives both the same table; NULL for none.
	 */
	struct scx_idle_node_order *order;
	nodemask_t unvisited;			/* the walk without an order */
};

static struct idle_shadow *idle_shadow;

static unsigned long *idle_shadow_mask(struct idle_shadow *s, int copy, int set, bool smt)
{
	return s->sets[set] + (copy * 2 + smt) * s->stride;
}

/* Rust's copy of every mask from C's. */
static void idle_shadow_dup(struct idle_shadow *s)
{
	int set;

	for (set = 0; set <= nr_node_ids; set++)
		memcpy(idle_shadow_mask(s, 1, set, false), idle_shadow_mask(s, 0, set, false),
		       2 * s->stride * sizeof(long));
}

static bool idle_shadow_copies_differ(struct idle_shadow *s)
{
	int set;

	for (set = 0; set <= nr_node_ids; set++)
		if (memcmp(idle_shadow_mask(s, 1, set, false), idle_shadow_mask(s, 0, set, false),
			   2 * s->stride * sizeof(long)))
			return true;
	return false;
}

static struct idle_shadow *idle_shadow_of(void *ctx)
{
	return ctx;
}

static const struct scx_idle_masks *idle_shadow_c_masks(void *ctx, int node)
{
	const struct scx_idle_topo *topo = &idle_shadow_of(ctx)->topo[0];

	return node == NUMA_NO_NODE ? &topo->global : &topo->nodes[node];
}

/* idle.c's accessors (ext/idle.c), but for the masks: C's copies. */
static bool idle_shadow_smt_active(void *ctx)
{
	return idle_shadow_of(ctx)->state & SCX_IDLE_STATE_SMT_ACTIVE;
}

static unsigned int idle_shadow_nr_cpu_ids(void *ctx)
{
	return nr_cpu_ids;
}

static int idle_shadow_cpu_node(void *ctx, int cpu)
{
	if (!(idle_shadow_of(ctx)->state & SCX_IDLE_STATE_PER_NODE))
		return NUMA_NO_NODE;
	return cpu_to_node(cpu);
}

static struct cpumask *idle_shadow_cpus(void *ctx, int node)
{
	return to_cpumask(idle_shadow_c_masks(ctx, node)->cpu);
}

static struct cpumask *idle_shadow_smts(void *ctx, int node)
{
	return to_cpumask(idle_shadow_c_masks(ctx, node)->smt);
}

static const struct cpumask *idle_shadow_smt_mask(void *ctx, int cpu)
{
	return cpu_smt_mask(cpu);
}

static unsigned int idle_shadow_any_and_distribute(void *ctx, const struct cpumask *src1p,
						   const struct cpumask *src2p)
{
	return cpumask_any_and_distribute(src1p, src2p);
}

static unsigned int idle_shadow_nr_node_ids(void *ctx)
{
	return nr_node_ids;
}

static const nodemask_t *idle_shadow_online_nodes(void *ctx)
{
	return &node_states[N_ONLINE];
}

static bool idle_shadow_test_and_clear_cpu(void *ctx, int cpu);
static s32 idle_shadow_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
				    int node, u64 flags);
static s32 idle_shadow_pick_from_online_nodes(void *ctx, const struct cpumask *cpus_allowed,
					      int node, u64 flags);

/* What the copies' pickers read: idle.c's accessors, but for the masks. */
#define IDLE_SHADOW_READS						\
	.smt_active		= idle_shadow_smt_active,		\
	.nr_cpus		= idle_shadow_nr_cpu_ids,		\
	.cpu_node		= idle_shadow_cpu_node,			\
	.idle_cpus		= idle_shadow_cpus,			\
	.idle_smts		= idle_shadow_smts,			\
	.smt_mask		= idle_shadow_smt_mask,			\
	.any_and_distribute	= idle_shadow_any_and_distribute,	\
	.nr_nodes		= idle_shadow_nr_node_ids,		\
	.online_nodes		= idle_shadow_online_nodes

static const struct scx_idle_pick_ops idle_shadow_ops = {
	IDLE_SHADOW_READS,
	.test_and_clear_cpu	= idle_shadow_test_and_clear_cpu,
	.pick_in_node		= idle_shadow_pick_in_node,
	.pick_from_online_nodes	= idle_shadow_pick_from_online_nodes,
};

static bool idle_shadow_test_and_clear_cpu(void *ctx, int cpu)
{
	return __scx_idle_test_and_clear_cpu(&idle_shadow_ops, ctx, cpu);
}

static s32 idle_shadow_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
				    int node, u64 flags)
{
	return __pick_idle_cpu_in_node(&idle_shadow_ops, ctx, cpus_allowed, node, flags);
}

/*
 * idle.c's pick_idle_cpu_from_online_nodes(), on C's copy: the order read
 * for this check, or for_each_node_numadist() without one.
 */
static s32 idle_shadow_pick_from_online_nodes(void *ctx, const struct cpumask *cpus_allowed,
					      int node, u64 flags)
{
	struct idle_shadow *s = idle_shadow_of(ctx);
	s32 cpu = -EBUSY;

	if (!s->topo[0].node_order)		/* !CONFIG_NUMA */
		return -EBUSY;
	if (s->order)
		return __pick_idle_cpu_in_node_order(&idle_shadow_ops, ctx,
						     &s->order->order[node * nr_node_ids],
						     cpus_allowed, node, flags);

	nodes_copy(s->unvisited, node_states[N_ONLINE]);
	node_clear(node, s->unvisited);
	for_each_node_numadist(node, s->unvisited) {
		cpu = idle_shadow_pick_in_node(ctx, cpus_allowed, node, flags);
		if (cpu >= 0)
			break;
	}
	return cpu;
}

#ifdef CONFIG_NUMA
/*
 * The walk across nodes three ways (sched/rust/node_walk; make node-walk):
 * patch 0008's node order, Linux 7.3's for_each_node_numadist() walk, and
 * a walk by the scheduler's NUMA hop masks (for_each_numa_hop_mask(), the
 * nodes new in each hop in id order, as bench/userspace's "hop-mask walk"
 * does). While sched/rust/node_walk_on is set, each shadowed pick that
 * leaves its node (per-node masks, its own node without a candidate) runs
 * the three on C's copy before C's own pick, each from this CPU's
 * distribute cursor and without claiming (idle_walk_ops below: the claim
 * only tests), and times each with get_cycles(). Under QEMU with
 * -icount shift=0 the TSC advances one tick per guest instruction, so the
 * ticks are instruction counts; elsewhere they are cycles. The first
 * NODE_WALK_SAMPLES walks are kept for the debugfs file.
 */
enum node_walk_kind { NODE_WALK_ORDER, NODE_WALK_NUMADIST, NODE_WALK_HOPS, NODE_WALK_NR };

struct node_walk_sample {
	u32 ticks[NODE_WALK_NR];
	s32 cpu[NODE_WALK_NR];
	u16 searches[NODE_WALK_NR];	/* nodes searched (pick_in_node calls) */
	u16 start;
};

#define NODE_WALK_SAMPLES	4096

static bool node_walk_on;
static struct node_walk_sample *node_walk_samples;
static unsigned long node_walk_taken, node_walk_not_reached;
static unsigned int node_walk_searches;
static DEFINE_PER_CPU(nodemask_t, node_walk_unvisited);
static DEFINE_PER_CPU(nodemask_t, node_walk_hop_nodes);
static DEFINE_PER_CPU(cpumask_var_t, node_walk_hop_new);

/* The claim of idle_shadow_test_and_clear_cpu(), but only its test. */
static bool idle_walk_test_cpu(void *ctx, int cpu)
{
	return cpumask_test_cpu(cpu, idle_shadow_cpus(ctx, idle_shadow_cpu_node(ctx, cpu)));
}

static s32 idle_walk_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
				  int node, u64 flags);

static const struct scx_idle_pick_ops idle_walk_ops = {
	IDLE_SHADOW_READS,
	.test_and_clear_cpu	= idle_walk_test_cpu,
	.pick_in_node		= idle_walk_pick_in_node,
	.pick_from_online_nodes	= idle_shadow_pick_from_online_nodes,	/* not called */
};

static s32 idle_walk_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
				  int node, u64 flags)
{
	node_walk_searches++;
	return __pick_idle_cpu_in_node(&idle_walk_ops, ctx, cpus_allowed, node, flags);
}

/* idle.c's pick_idle_cpu_from_online_nodes() with patch 0008's table. */
static noinline s32 node_walk_order(struct idle_shadow *s, const struct scx_idle_topo *topo,
				    const struct cpumask *cpus_allowed, int node, u64 flags)
{
	const struct scx_idle_node_order *table;
	s32 cpu = -EBUSY;

	rcu_read_lock();
	table = rcu_dereference(*topo->node_order);
	if (likely(table))
		cpu = __pick_idle_cpu_in_node_order(&idle_walk_ops, s,
						    &table->order[node * nr_node_ids],
						    cpus_allowed, node, flags);
	rcu_read_unlock();
	return cpu;
}

/* Linux 7.3's pick_idle_cpu_from_online_nodes(). */
static noinline s32 node_walk_numadist(struct idle_shadow *s, const struct cpumask *cpus_allowed,
				       int node, u64 flags)
{
	nodemask_t *unvisited;
	s32 cpu = -EBUSY;

	preempt_disable();
	unvisited = this_cpu_ptr(&node_walk_unvisited);
	nodes_copy(*unvisited, node_states[N_ONLINE]);
	node_clear(node, *unvisited);
	for_each_node_numadist(node, *unvisited) {
		cpu = idle_walk_pick_in_node(s, cpus_allowed, node, flags);
		if (cpu >= 0)
			break;
	}
	preempt_enable();
	return cpu;
}

/*
 * The same walk by the scheduler's hop masks: per hop, the CPUs new in it
 * turned into their nodes (the node of the first, its CPUs taken out, until
 * none is left), then those nodes in id order, nearest_node_nodemask()'s
 * tie-break.
 */
static noinline s32 node_walk_hops(struct idle_shadow *s, const struct cpumask *cpus_allowed,
				   int node, u64 flags)
{
	const struct cpumask *mask, *prev = cpu_none_mask;
	struct cpumask *new;
	nodemask_t *hop_nodes;
	unsigned int c;
	s32 cpu = -EBUSY;
	int n;

	preempt_disable();
	new = *this_cpu_ptr(&node_walk_hop_new);
	hop_nodes = this_cpu_ptr(&node_walk_hop_nodes);
	rcu_read_lock();
	for_each_numa_hop_mask(mask, node) {
		nodes_clear(*hop_nodes);
		cpumask_andnot(new, mask, prev);
		while ((c = cpumask_first(new)) < nr_cpu_ids) {
			n = cpu_to_node(c);
			node_set(n, *hop_nodes);
			cpumask_andnot(new, new, cpumask_of_node(n));
		}
		for_each_node_mask(n, *hop_nodes) {
			if (n == node || !node_online(n))
				continue;
			cpu = idle_walk_pick_in_node(s, cpus_allowed, n, flags);
			if (cpu >= 0)
				goto out;
		}
		prev = mask;
	}
out:
	rcu_read_unlock();
	preempt_enable();
	return cpu;
}

/*
 * From C's copy, before C's pick: whether the pick leaves @node, and if it
 * does, the three walks, each from @cursor, the order of the three turning
 * with each sample. Interrupts are off (the shadow's lock).
 */
static void node_walk_sample(struct idle_shadow *s, const struct scx_idle_topo *topo,
			     int node, u64 flags, unsigned int cursor)
{
	struct node_walk_sample sample = { .start = node };
	unsigned long k;
	int i, w;

	if (!READ_ONCE(node_walk_on) || !node_walk_samples || !topo->node_order ||
	    node == NUMA_NO_NODE || flags & SCX_PICK_IDLE_IN_NODE ||
	    !(s->state & SCX_IDLE_STATE_PER_NODE))
		return;
	cpumask_distribute_set_prev(cursor);
	if (idle_walk_pick_in_node(s, s->allowed, node, flags) >= 0) {
		node_walk_not_reached++;
		cpumask_distribute_set_prev(cursor);
		return;
	}
	k = node_walk_taken++;
	/* Only the kept walks are run: the others would be timed for nothing. */
	if (k >= NODE_WALK_SAMPLES) {
		cpumask_distribute_set_prev(cursor);
		return;
	}
	for (i = 0; i < NODE_WALK_NR; i++) {
		u64 t0, t1;

		w = (k + i) % NODE_WALK_NR;
		cpumask_distribute_set_prev(cursor);
		node_walk_searches = 0;
		t0 = get_cycles();
		if (w == NODE_WALK_ORDER)
			sample.cpu[w] = node_walk_order(s, topo, s->allowed, node, flags);
		else if (w == NODE_WALK_NUMADIST)
			sample.cpu[w] = node_walk_numadist(s, s->allowed, node, flags);
		else
			sample.cpu[w] = node_walk_hops(s, s->allowed, node, flags);
		t1 = get_cycles();
		sample.ticks[w] = min_t(u64, t1 - t0, U32_MAX);
		sample.searches[w] = min_t(unsigned int, node_walk_searches, U16_MAX);
	}
	cpumask_distribute_set_prev(cursor);
	node_walk_samples[k] = sample;
}

/*
 * 10,000 rounds of two instructions, timed as the walks are: under -icount
 * shift=0, 20,000 ticks and a few more (the reads of the TSC), which is
 * what tells that the ticks count instructions.
 */
static noinline u64 node_walk_calibrate(void)
{
	unsigned long n = 10000, flags;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = get_cycles();
#ifdef CONFIG_X86
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n));
#endif
	t1 = get_cycles();
	local_irq_restore(flags);
	return t1 - t0;
}

/*
 * sched/rust/node_walk: "walks <n> kept <k> not-reached <m> nodes <nr_node_ids>
 * hops <node 0's hop masks>", "calibration <ticks of node_walk_calibrate()>",
 * then one line
 * per kept walk: "<start> <ticks> <cpu> <searches>" for the order, the
 * nodemask walk and the hop masks, in that order.
 */
static int node_walk_show(struct seq_file *m, void *v)
{
	struct idle_shadow *s = READ_ONCE(idle_shadow);
	unsigned long flags, taken, kept, not_reached, i;
	struct node_walk_sample *copy;
	unsigned int levels;

	if (!s || !node_walk_samples)
		return -ENOMEM;
	copy = kvmalloc_array(NODE_WALK_SAMPLES, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	raw_spin_lock_irqsave(&s->lock, flags);
	taken = node_walk_taken;
	kept = min_t(unsigned long, taken, NODE_WALK_SAMPLES);
	not_reached = node_walk_not_reached;
	memcpy(copy, node_walk_samples, kept * sizeof(*copy));
	raw_spin_unlock_irqrestore(&s->lock, flags);
	/* The hop masks of node 0 (the start node of most QEMU guests' first CPUs). */
	rcu_read_lock();
	for (levels = 0; !IS_ERR_OR_NULL(sched_numa_hop_mask(0, levels)); levels++)
		;
	rcu_read_unlock();
	seq_printf(m, "walks %lu kept %lu not-reached %lu nodes %u hops %u\n", taken, kept,
		   not_reached, nr_node_ids, levels);
	seq_printf(m, "calibration %llu\n", node_walk_calibrate());
	for (i = 0; i < kept; i++) {
		const struct node_walk_sample *w = &copy[i];

		seq_printf(m, "%u %u %d %u %u %d %u %u %d %u\n", w->start,
			   w->ticks[0], w->cpu[0], w->searches[0],
			   w->ticks[1], w->cpu[1], w->searches[1],
			   w->ticks[2], w->cpu[2], w->searches[2]);
	}
	kvfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(node_walk);

static int __init node_walk_alloc(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (!zalloc_cpumask_var_node(per_cpu_ptr(&node_walk_hop_new, cpu), GFP_KERNEL,
					     cpu_to_node(cpu)))
			return 0;
	node_walk_samples = kvcalloc(NODE_WALK_SAMPLES, sizeof(*node_walk_samples), GFP_KERNEL);
	return 0;
}
early_initcall(node_walk_alloc);
#else
static inline void node_walk_sample(struct idle_shadow *s, const struct scx_idle_topo *topo,
				    int node, u64 flags, unsigned int cursor) {}
#endif /* CONFIG_NUMA */

static void idle_shadow_copy_bits(unsigned long *dst, const unsigned long *src,
				  unsigned int nbits)
{
	unsigned int i;

	/* Other CPUs write the masks meanwhile: each word read once. */
	for (i = 0; i < BITS_TO_LONGS(nbits); i++)
		dst[i] = READ_ONCE(src[i]);
	/*
	 * Only the mask: the bits of its last word past @nbits are not part of
	 * it. They need not be zero: idle.c allocates the masks without
	 * zeroing them, and with CONFIG_SCHED_RUST_IDLE_PICK its own updates
	 * are bit-wise, so nothing clears those bits. C's claim zeroes them
	 * (cpumask_andnot() of a core) where Rust's bit-wise removal leaves
	 * them: the same mask, different words.
	 */
	if (nbits % BITS_PER_LONG)
		dst[nbits / BITS_PER_LONG] &= BITMAP_LAST_WORD_MASK(nbits);
}

/* The masks a pick reads, into C's copy, then Rust's; the allowed mask. */
static void idle_shadow_snapshot(struct idle_shadow *s, const struct scx_idle_topo *topo,
				 const struct cpumask *cpus_allowed)
{
	int node, copy;

	/* Under the lock with interrupts off: an RCU read-side section. */
	s->order = topo->node_order ? rcu_dereference_sched(*topo->node_order) : NULL;
	for (copy = 0; copy < 2; copy++)
		s->topo[copy].node_order = topo->node_order ?
			(struct scx_idle_node_order __rcu *const *)&s->order : NULL;
	for (node = 0; node < nr_node_ids; node++) {
		const struct scx_idle_masks *live = &topo->nodes[node];

		/* A node that is not possible has no masks, in the copies too. */
		for (copy = 0; copy < 2; copy++)
			s->nodes[copy][node] = live->cpu ? (struct scx_idle_masks) {
				idle_shadow_mask(s, copy, node, false),
				idle_shadow_mask(s, copy, node, true),
			} : (struct scx_idle_masks) {};
		if (!live->cpu)
			continue;
		idle_shadow_copy_bits(idle_shadow_mask(s, 0, node, false), live->cpu, nr_cpu_ids);
		idle_shadow_copy_bits(idle_shadow_mask(s, 0, node, true), live->smt, nr_cpu_ids);
	}
	idle_shadow_copy_bits(idle_shadow_mask(s, 0, nr_node_ids, false), topo->global.cpu,
			      nr_cpu_ids);
	idle_shadow_copy_bits(idle_shadow_mask(s, 0, nr_node_ids, true), topo->global.smt,
			      nr_cpu_ids);
	idle_shadow_dup(s);
	if (cpus_allowed)
		idle_shadow_copy_bits(cpumask_bits(s->allowed), cpumask_bits(cpus_allowed),
				      nr_cpu_ids);
}

/*
 * idle.c's contract, on the copy: with per-node masks, a pick in a node
 * (never NUMA_NO_NODE) whose every candidate is in the masks of its own
 * node; without, a pick in the global masks. Out of it, a failed claim
 * cannot remove its candidate and both pickers would retry forever (a race
 * with CPU hotplug moving a CPU's node could make such a copy): skipped.
 */
static bool idle_shadow_in_contract(struct idle_shadow *s, int node)
{
	int n, cpu;

	if (!(s->state & SCX_IDLE_STATE_PER_NODE))
		return node == NUMA_NO_NODE;
	if (node == NUMA_NO_NODE)
		return false;
	for (n = 0; n < nr_node_ids; n++) {
		if (!s->nodes[0][n].cpu)
			continue;
		for_each_cpu(cpu, to_cpumask(s->nodes[0][n].cpu))
			if (cpu_to_node(cpu) != n)
				return false;
		for_each_cpu(cpu, to_cpumask(s->nodes[0][n].smt))
			if (cpu_to_node(cpu) != n)
				return false;
	}
	return true;
}

/*
 * @kind: SHADOW_IDLE_CLAIM (of @arg, a CPU), SHADOW_IDLE_PICK_IN_NODE or
 * SHADOW_IDLE_PICK (from @arg, a node).
 */
static void idle_shadow_run(enum shadow_helper kind, const struct scx_idle_topo *topo,
			    const struct cpumask *cpus_allowed, int arg, u64 flags,
			    unsigned int state, bool rust)
{
	struct idle_shadow *s = READ_ONCE(idle_shadow);
	unsigned int cursor, c_cursor, rust_cursor;
	unsigned long irq_flags;
	s32 c_got, rust_got;
	bool differs;

	if (!s) {
		shadow_skip(kind, SHADOW_SKIP_NO_COPY);
		return;
	}
	if (!topo->nodes) {
		shadow_skip(kind, SHADOW_SKIP_INPUT);
		return;
	}
	if (!raw_spin_trylock_irqsave(&s->lock, irq_flags)) {
		shadow_skip(kind, SHADOW_SKIP_BUSY);
		return;
	}
	s->state = state;
	idle_shadow_snapshot(s, topo, cpus_allowed);
	if (kind != SHADOW_IDLE_CLAIM && !idle_shadow_in_contract(s, arg)) {
		raw_spin_unlock_irqrestore(&s->lock, irq_flags);
		shadow_skip(kind, SHADOW_SKIP_INPUT);
		return;
	}

	/*
	 * This CPU's cursor of cpumask_any_and_distribute(), the last CPU it
	 * chose: read without moving it, and set back to where the real pick
	 * will find it before each run. Interrupts are off, so nothing else on
	 * this CPU moves it meanwhile.
	 */
	cursor = cpumask_distribute_prev();
	if (kind == SHADOW_IDLE_PICK)
		node_walk_sample(s, topo, arg, flags, cursor);
	switch (kind) {
	case SHADOW_IDLE_CLAIM:
		c_got = idle_shadow_test_and_clear_cpu(s, arg);
		break;
	case SHADOW_IDLE_PICK_IN_NODE:
		c_got = idle_shadow_pick_in_node(s, s->allowed, arg, flags);
		break;
	default:
		c_got = __scx_pick_idle_cpu(&idle_shadow_ops, s, s->allowed, arg, flags);
		break;
	}
	c_cursor = cpumask_distribute_prev();

	cpumask_distribute_set_prev(cursor);
	switch (kind) {
	case SHADOW_IDLE_CLAIM:
		rust_got = sched_rust_idle_test_and_clear_cpu(&s->topo[1], arg, state);
		break;
	case SHADOW_IDLE_PICK_IN_NODE:
		rust_got = sched_rust_idle_pick_in_node(&s->topo[1], s->allowed,
							arg, flags, state);
		break;
	default:
		rust_got = sched_rust_idle_pick(&s->topo[1], s->allowed, arg,
						flags, state);
		break;
	}
	rust_cursor = cpumask_distribute_prev();
	/* The real call comes next, from where the cursor was. */
	cpumask_distribute_set_prev(cursor);

	differs = c_got != rust_got || c_cursor != rust_cursor ||
		  idle_shadow_copies_differ(s);
	raw_spin_unlock_irqrestore(&s->lock, irq_flags);

	/* After the unlock: the report shows the caller's live mask. */
	shadow_count(kind, rust, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: %s(%d flags=%llu state=%u cursor=%u allowed=%*pbl): C %d (cursor %u), Rust %d (cursor %u)%s\n",
		  shadow_helper_names[kind], arg, flags, state, cursor,
		  cpumask_pr_args(cpus_allowed ?: cpu_none_mask), c_got, c_cursor,
		  rust_got, rust_cursor,
		  c_got == rust_got && c_cursor == rust_cursor ? ", masks differ" : "");
}

void sched_rust_shadow_idle_claim(const struct scx_idle_topo *topo, int cpu,
				  unsigned int state, bool rust)
{
	if (cpu < 0 || cpu >= nr_cpu_ids) {
		shadow_skip(SHADOW_IDLE_CLAIM, SHADOW_SKIP_INPUT);
		return;
	}
	idle_shadow_run(SHADOW_IDLE_CLAIM, topo, NULL, cpu, 0, state, rust);
}

void sched_rust_shadow_idle_pick(const struct scx_idle_topo *topo,
				 const struct cpumask *cpus_allowed, int node, u64 flags,
				 unsigned int state, bool in_node, bool rust)
{
	if (!topo->nodes || node < NUMA_NO_NODE || node >= (int)nr_node_ids ||
	    (node >= 0 && !topo->nodes[node].cpu)) {
		shadow_skip(in_node ? SHADOW_IDLE_PICK_IN_NODE : SHADOW_IDLE_PICK,
			    SHADOW_SKIP_INPUT);
		return;
	}
	idle_shadow_run(in_node ? SHADOW_IDLE_PICK_IN_NODE : SHADOW_IDLE_PICK, topo,
			cpus_allowed, node, flags, state, rust);
}

static void idle_shadow_free(struct idle_shadow *s)
{
	int set;

	if (!s)
		return;
	for (set = 0; s->sets && set <= nr_node_ids; set++)
		kfree(s->sets[set]);
	kfree(s->sets);
	kfree(s->allowed);
	kfree(s->nodes[0]);
	kfree(s->nodes[1]);
	kfree(s);
}

/*
 * The copies of the idle picks, for nr_cpu_ids CPUs and nr_node_ids nodes,
 * once both are final; picks before this runs are counted as skipped.
 */
static int __init idle_shadow_alloc(void)
{
	struct idle_shadow *s = kzalloc(sizeof(*s), GFP_KERNEL);
	size_t sizes[SHADOW_NR_ALLOCS];
	int copy, set;

	sched_rust_shadow_alloc_sizes(nr_cpu_ids, nr_node_ids, sizes);
	if (!s)
		goto fail;
	raw_spin_lock_init(&s->lock);
	s->stride = sizes[SHADOW_ALLOC_IDLE_ALLOWED] / sizeof(long);
	s->sets = kzalloc(sizes[SHADOW_ALLOC_IDLE_TABLE], GFP_KERNEL);
	s->allowed = kzalloc(sizes[SHADOW_ALLOC_IDLE_ALLOWED], GFP_KERNEL);
	for (copy = 0; copy < 2; copy++)
		s->nodes[copy] = kzalloc(sizes[SHADOW_ALLOC_IDLE_NODES], GFP_KERNEL);
	if (!s->sets || !s->allowed || !s->nodes[0] || !s->nodes[1])
		goto fail;
	for (set = 0; set <= nr_node_ids; set++) {
		int node = set < nr_node_ids ? set : NUMA_NO_NODE;

		s->sets[set] = kzalloc_node(sizes[SHADOW_ALLOC_IDLE_SET], GFP_KERNEL, node);
		if (!s->sets[set])
			goto fail;
	}
	for (copy = 0; copy < 2; copy++) {
		s->topo[copy] = (struct scx_idle_topo) {
			.nr_cpus = nr_cpu_ids,
			.nr_nodes = nr_node_ids,
			.global = {
				idle_shadow_mask(s, copy, nr_node_ids, false),
				idle_shadow_mask(s, copy, nr_node_ids, true),
			},
			.nodes = s->nodes[copy],
			.online_nodes = nodes_addr(node_states[N_ONLINE]),
		};
	}
	WRITE_ONCE(idle_shadow, s);
	return 0;
fail:
	idle_shadow_free(s);
	pr_warn("sched_rust shadow: no memory for the idle pick copies; idle picks are skipped\n");
	return 0;
}
early_initcall(idle_shadow_alloc);
#endif /* CONFIG_SCHED_RUST_IDLE_PICK */

static int shadow_show(struct seq_file *m, void *v)
{
	unsigned long calls = 0, differences = 0, skipped[SHADOW_NR_SKIPS] = {};
	int helper, rust, cpu, why;

	seq_puts(m, "# each real call's inputs run through C and Rust; mode: the call site's implementation\n");
	seq_printf(m, "%-25s %-5s %12s %12s\n", "helper", "mode", "calls", "differences");
	for (helper = 0; helper < SHADOW_NR_HELPERS; helper++) {
		for (rust = 0; rust < 2; rust++) {
			struct shadow_count sum = {};

			for_each_possible_cpu(cpu) {
				struct shadow_stats *s = per_cpu_ptr(&shadow_stats, cpu);

				sum.calls += READ_ONCE(s->count[helper][rust].calls);
				sum.differences += READ_ONCE(s->count[helper][rust].differences);
			}
			seq_printf(m, "%-25s %-5s %12lu %12lu\n",
				   shadow_helper_names[helper], rust ? "rust" : "c",
				   sum.calls, sum.differences);
			calls += sum.calls;
			differences += sum.differences;
		}
	}
	for_each_possible_cpu(cpu)
		for (why = 0; why < SHADOW_NR_SKIPS; why++)
			skipped[why] += READ_ONCE(per_cpu_ptr(&shadow_stats, cpu)->skipped[why]);
	seq_printf(m, "total %lu calls, %lu differences, %lu skipped\n", calls, differences,
		   skipped[SHADOW_SKIP_NO_COPY] + skipped[SHADOW_SKIP_BUSY] +
		   skipped[SHADOW_SKIP_INPUT]);
	for (why = 0; why < SHADOW_NR_SKIPS; why++)
		seq_printf(m, "skipped: %lu %s\n", skipped[why], shadow_skip_names[why]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(shadow);

/*
 * The copies of the scan's and the walk's inputs, sized for nr_cpu_ids,
 * which is final once the possible CPUs are known; allocated before the
 * other CPUs come up. Calls before this runs are counted as skipped.
 */
static int __init sched_rust_shadow_alloc(void)
{
	size_t sizes[SHADOW_NR_ALLOCS];
	unsigned int i, nr_chunks;

	sched_rust_shadow_alloc_sizes(nr_cpu_ids, nr_node_ids, sizes);
	if (IS_ENABLED(CONFIG_SCHED_RUST_ASYM_FIT)) {
		struct asym_shadow_copy *a = kzalloc(sizeof(*a), GFP_KERNEL);

		nr_chunks = sizes[SHADOW_ALLOC_ASYM_TABLE] / sizeof(*a->chunks);
		if (a) {
			raw_spin_lock_init(&a->lock);
			a->recorder = -1;
			a->chunks = kzalloc(sizes[SHADOW_ALLOC_ASYM_TABLE], GFP_KERNEL);
			a->seen = kzalloc(sizes[SHADOW_ALLOC_ASYM_SEEN], GFP_KERNEL);
		}
		for (i = 0; a && a->chunks && i < nr_chunks; i++) {
			a->chunks[i] = kzalloc(sizes[SHADOW_ALLOC_ASYM_CHUNK], GFP_KERNEL);
			if (!a->chunks[i])
				break;
		}
		if (a && a->chunks && i == nr_chunks && a->seen) {
			WRITE_ONCE(asym_shadow, a);
		} else {
			for (i = 0; a && a->chunks && i < nr_chunks; i++)
				kfree(a->chunks[i]);
			if (a) {
				kfree(a->chunks);
				kfree(a->seen);
			}
			kfree(a);
			pr_warn("sched_rust shadow: no memory for the capacity scan's copy; scans are skipped\n");
		}
	}
	if (IS_ENABLED(CONFIG_SCHED_RUST_STEAL)) {
		struct steal_shadow_copy *st = kzalloc(sizeof(*st), GFP_KERNEL);

		if (st) {
			raw_spin_lock_init(&st->lock);
			/* An LLC's own mask is this size: large, but one copy. */
			st->overload_bytes = sizes[SHADOW_ALLOC_OVERLOAD];
			st->overload = kvzalloc(st->overload_bytes, GFP_KERNEL);
			st->siblings = kzalloc(sizes[SHADOW_ALLOC_SIBLINGS], GFP_KERNEL);
		}
		if (st && st->overload && st->siblings) {
			WRITE_ONCE(steal_shadow, st);
		} else {
			if (st) {
				kvfree(st->overload);
				kfree(st->siblings);
			}
			kfree(st);
			pr_warn("sched_rust shadow: no memory for the steal walk's copy; walks are skipped\n");
		}
	}
	return 0;
}
early_initcall(sched_rust_shadow_alloc);

/* After sched_init_debug() (a late_initcall) has made sched/rust. */
static int __init sched_rust_shadow_debugfs_init(void)
{
	debugfs_create_file("shadow", 0400, sched_rust_debugfs, NULL, &shadow_fops);
#if defined(CONFIG_SCHED_RUST_IDLE_PICK) && defined(CONFIG_NUMA)
	debugfs_create_bool("node_walk_on", 0600, sched_rust_debugfs, &node_walk_on);
	debugfs_create_file("node_walk", 0400, sched_rust_debugfs, NULL, &node_walk_fops);
#endif
	return 0;
}
late_initcall_sync(sched_rust_shadow_debugfs_init);
