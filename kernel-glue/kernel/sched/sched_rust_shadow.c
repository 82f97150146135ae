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
#include <linux/topology.h>

#include "sched_rust.h"
#include "sched_rust_shadow.h"
#include "sparsemask.h"
#include "steal_search.h"
#ifdef CONFIG_SCHED_RUST_ASYM_FIT
#include "asym_fit.h"
#endif
#ifdef CONFIG_SCHED_RUST_IDLE_PICK
#include "ext/idle_pick.h"
#endif

enum shadow_helper {
	SHADOW_SELECT_IDLE_CAPACITY,
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

struct shadow_stats {
	struct shadow_count count[SHADOW_NR_HELPERS][2];
	unsigned long skipped;
};

static DEFINE_PER_CPU(struct shadow_stats, shadow_stats);

/* The copies of the live inputs, one set per CPU (interrupts disabled). */
struct shadow_buf {
	struct asym_shadow_cpu *cpus;	/* [nr_cpu_ids] */
	struct sparsemask *overload;	/* nr_cpu_ids elements at density 0 */
	unsigned long *siblings;	/* nr_cpu_ids bits */
};

static DEFINE_PER_CPU(struct shadow_buf, shadow_buf);

static void shadow_count(enum shadow_helper helper, bool rust, bool differs)
{
	this_cpu_inc(shadow_stats.count[helper][rust].calls);
	if (differs)
		this_cpu_inc(shadow_stats.count[helper][rust].differences);
}

void sched_rust_shadow_skipped(void)
{
	this_cpu_inc(shadow_stats.skipped);
}

#ifdef CONFIG_SCHED_RUST_ASYM_FIT
/*
 * The described CPUs of asym_fit.h's bodies: the copy of the caller's CPUs,
 * or a single view. The idle-cores hint is recorded, not cleared.
 */
struct asym_shadow_ctx {
	const struct asym_shadow_cpu *cpus;	/* NULL: @one for any CPU */
	const struct asym_cpu_view *one;
	bool uclamp_used;
	bool smt_active;
	bool cleared;
};

static __always_inline const struct asym_cpu_view *
asym_shadow_view(void *ctx, int cpu)
{
	struct asym_shadow_ctx *c = ctx;

	return c->cpus ? &c->cpus[cpu].view : c->one;
}

static unsigned long asym_shadow_capacity(void *ctx, int cpu)
{
	return asym_shadow_view(ctx, cpu)->capacity;
}

static unsigned long asym_shadow_capacity_orig(void *ctx, int cpu)
{
	return asym_shadow_view(ctx, cpu)->capacity_orig;
}

static unsigned long asym_shadow_actual_capacity(void *ctx, int cpu)
{
	return asym_shadow_view(ctx, cpu)->actual_capacity;
}

static bool asym_shadow_core_idle(void *ctx, int cpu)
{
	return asym_shadow_view(ctx, cpu)->core_idle;
}

static bool asym_shadow_idle(void *ctx, int cpu)
{
	struct asym_shadow_ctx *c = ctx;

	return c->cpus && c->cpus[cpu].idle;
}

static bool asym_shadow_uclamp_used(void *ctx)
{
	return ((struct asym_shadow_ctx *)ctx)->uclamp_used;
}

static bool asym_shadow_smt_active(void *ctx)
{
	return ((struct asym_shadow_ctx *)ctx)->smt_active;
}

static void asym_shadow_clear_idle_cores(void *ctx, int target)
{
	((struct asym_shadow_ctx *)ctx)->cleared = true;
}

static const struct asym_cpu_ops asym_shadow_ops = {
	.capacity		= asym_shadow_capacity,
	.capacity_orig		= asym_shadow_capacity_orig,
	.actual_capacity	= asym_shadow_actual_capacity,
	.core_idle		= asym_shadow_core_idle,
	.idle			= asym_shadow_idle,
	.uclamp_used		= asym_shadow_uclamp_used,
	.smt_active		= asym_shadow_smt_active,
	.clear_idle_cores	= asym_shadow_clear_idle_cores,
};

/* The Rust scan's view callback over the same copy. */
static bool asym_shadow_view_fn(void *arg, int cpu, unsigned int want,
				struct asym_cpu_view *view)
{
	const struct asym_shadow_cpu *cpus = arg;

	if (!cpus[cpu].idle)
		return false;
	*view = cpus[cpu].view;
	return true;
}

struct asym_shadow_cpu *sched_rust_shadow_asym_cpus(void)
{
	return this_cpu_read(shadow_buf.cpus);
}

void sched_rust_shadow_select_idle_capacity(const struct asym_fit_task *task,
					    const struct asym_scan *scan,
					    bool smt_active,
					    const struct asym_shadow_cpu *cpus,
					    bool rust)
{
	struct asym_shadow_ctx ctx = {
		.cpus = cpus, .uclamp_used = task->uclamp_used,
		.smt_active = smt_active,
	};
	bool rust_cleared = false;
	int nr = INT_MAX;
	int c_cpu, rust_cpu;
	bool differs;

	/* select_idle_capacity()'s budget (fair.c's), then its scan. */
	if (!asym_sis_util_budget(scan->sis_util, &scan->nr_idle_scan, &nr))
		c_cpu = -1;
	else
		c_cpu = __select_idle_capacity(&asym_shadow_ops, &ctx, scan->cpus,
					       scan->nbits, scan->target,
					       task->util, task->uclamp_min,
					       task->uclamp_max, nr,
					       scan->has_idle_core);
	rust_cpu = sched_rust_select_idle_capacity(task, scan, asym_shadow_view_fn,
						   (void *)cpus, &rust_cleared);

	differs = c_cpu != rust_cpu || ctx.cleared != rust_cleared;
	shadow_count(SHADOW_SELECT_IDLE_CAPACITY, rust, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: select_idle_capacity(target=%d util=%lu uclamp=%lu..%lu/%d nr_idle_scan=%d/%d idle_core=%d cpus=%*pbl): C %d/%d, Rust %d/%d\n",
		  scan->target, task->util, task->uclamp_min, task->uclamp_max,
		  task->uclamp_used, scan->nr_idle_scan, scan->sis_util,
		  scan->has_idle_core, scan->nbits, scan->cpus, c_cpu,
		  ctx.cleared, rust_cpu, rust_cleared);
}

void sched_rust_shadow_asym_fits_cpu(const struct asym_fit_task *task,
				     bool smt_active,
				     const struct asym_cpu_view *view, int cpu,
				     bool rust)
{
	struct asym_shadow_ctx ctx = {
		.one = view, .uclamp_used = task->uclamp_used,
		.smt_active = smt_active,
	};
	bool c_fits, rust_fits;

	c_fits = __asym_fits_cpu(&asym_shadow_ops, &ctx, task->util,
				 task->uclamp_min, task->uclamp_max, cpu);
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
	struct asym_shadow_ctx ctx = {
		.one = view, .uclamp_used = task->uclamp_used,
	};
	int c_fits, rust_fits;

	c_fits = __util_fits_cpu(&asym_shadow_ops, &ctx, task->util,
				 task->uclamp_min, task->uclamp_max, cpu);
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
	struct shadow_buf *buf = this_cpu_ptr(&shadow_buf);
	const unsigned long *siblings = NULL;
	int nelems = overload->nelems;
	int c_cpu, rust_cpu, i;
	bool differs;

	if (!buf->overload || nelems < 0 || nelems > nr_cpu_ids ||
	    overload->density < 0 || overload->density > SMASK_DENSITY_MAX) {
		sched_rust_shadow_skipped();
		return;
	}
	/* The header, then every chunk word: other CPUs set and clear bits. */
	buf->overload->nelems = nelems;
	buf->overload->density = overload->density;
	for (i = 0; i <= nelems >> overload->density; i++)
		buf->overload->chunks[i].word = READ_ONCE(overload->chunks[i].word);
	if (smt_siblings) {
		bitmap_copy(buf->siblings, smt_siblings, nelems);
		siblings = buf->siblings;
	}

	c_cpu = steal_search(buf->overload, siblings, dst_cpu,
			     steal_shadow_record, &c);
	rust_cpu = sched_rust_steal_search(buf->overload, siblings, dst_cpu,
					   steal_shadow_record, &r);

	differs = c_cpu != rust_cpu || c.n != r.n || c.hash != r.hash;
	shadow_count(SHADOW_STEAL_SEARCH, rust, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: steal_search(dst_cpu=%d nelems=%d density=%d siblings=%*pbl): C tried %u (%d %d %d %d ...) -> %d, Rust tried %u (%d %d %d %d ...) -> %d\n",
		  dst_cpu, nelems, overload->density, siblings ? nelems : 0,
		  siblings, c.n, c.first[0], c.first[1], c.first[2], c.first[3],
		  c_cpu, r.n, r.first[0], r.first[1], r.first[2], r.first[3],
		  rust_cpu);
}
#endif /* CONFIG_SCHED_RUST_STEAL */

#ifdef CONFIG_SCHED_RUST_IDLE_PICK
/*
 * The idle picks of sched_ext. A pick reads the idle masks of every node,
 * which at 8192 CPUs and 64 nodes are 130 KB, so there is one set of copies
 * for the whole system rather than one per CPU, taken with a trylock: a
 * pick that finds it taken (another CPU's check runs) is counted as
 * skipped. Each implementation works on a copy of its own; everything else
 * is the running system's, read as the real pick reads it: C is idle.c's
 * code (ext/idle_pick.h) with idle.c's accessors but for the masks, and
 * Rust is the very export idle.c calls (sched_rust_idle_pick() and
 * friends), on a struct scx_idle_topo of the copies. Both rotate with
 * cpumask_any_and_distribute() from this CPU's cursor, which lib/cpumask.c
 * keeps to itself: it is read by moving it, and put back.
 */
struct idle_shadow {
	raw_spinlock_t lock;
	/* [0]: C's copy, [1]: Rust's */
	struct scx_idle_topo topo[2];
	struct scx_idle_masks *nodes[2];	/* [nr_node_ids] */
	/* [2][nr_node_ids + 1][cpu, smt], @stride words each */
	unsigned long *masks;
	unsigned int stride;
	struct cpumask *allowed, *all;
	nodemask_t unvisited;			/* C's walk */
	unsigned int state;			/* SCX_IDLE_STATE_* of the call */
};

static struct idle_shadow *idle_shadow;

static unsigned long *idle_shadow_mask(struct idle_shadow *s, int copy, int set, bool smt)
{
	return s->masks + ((copy * (nr_node_ids + 1) + set) * 2 + smt) * s->stride;
}

/* The bytes of one copy of every mask. */
static size_t idle_shadow_copy_bytes(struct idle_shadow *s)
{
	return (nr_node_ids + 1) * 2 * s->stride * sizeof(long);
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

static const nodemask_t *idle_shadow_online_nodes(void *ctx)
{
	return &node_states[N_ONLINE];
}

static int idle_shadow_nearest_node(void *ctx, int node, nodemask_t *mask)
{
	return nearest_node_nodemask(node, mask);
}

static nodemask_t *idle_shadow_unvisited(void *ctx)
{
	return &idle_shadow_of(ctx)->unvisited;
}

static bool idle_shadow_test_and_clear_cpu(void *ctx, int cpu);
static s32 idle_shadow_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
				    int node, u64 flags);

static const struct scx_idle_pick_ops idle_shadow_ops = {
	.smt_active		= idle_shadow_smt_active,
	.nr_cpu_ids		= idle_shadow_nr_cpu_ids,
	.cpu_node		= idle_shadow_cpu_node,
	.idle_cpus		= idle_shadow_cpus,
	.idle_smts		= idle_shadow_smts,
	.smt_mask		= idle_shadow_smt_mask,
	.any_and_distribute	= idle_shadow_any_and_distribute,
	.online_nodes		= idle_shadow_online_nodes,
	.nearest_node		= idle_shadow_nearest_node,
	.unvisited		= idle_shadow_unvisited,
	.test_and_clear_cpu	= idle_shadow_test_and_clear_cpu,
	.pick_in_node		= idle_shadow_pick_in_node,
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
 * This CPU's cursor of cpumask_any_and_distribute(), the last CPU it chose
 * here: a call on every CPU returns the one after it (or wraps to the
 * first, or, where a struct cpumask has bits above nr_cpu_ids, returns
 * nr_cpu_ids for the last CPU), and a call on that CPU alone puts it back.
 * Interrupts are off, so nothing else on this CPU moves it meanwhile.
 */
static unsigned int idle_shadow_cursor(struct idle_shadow *s)
{
	unsigned int next = cpumask_any_and_distribute(s->all, s->all);
	unsigned int prev = next == 0 || next >= nr_cpu_ids ? nr_cpu_ids - 1 : next - 1;

	cpumask_any_and_distribute(cpumask_of(prev), cpumask_of(prev));
	return prev;
}

static void idle_shadow_set_cursor(unsigned int cpu)
{
	cpumask_any_and_distribute(cpumask_of(cpu), cpumask_of(cpu));
}

static void idle_shadow_copy_bits(unsigned long *dst, const unsigned long *src,
				  unsigned int nbits)
{
	unsigned int i;

	/* Other CPUs write the masks meanwhile: each word read once. */
	for (i = 0; i < BITS_TO_LONGS(nbits); i++)
		dst[i] = READ_ONCE(src[i]);
}

/* The masks a pick reads, into C's copy, then Rust's; the allowed mask. */
static void idle_shadow_snapshot(struct idle_shadow *s, const struct scx_idle_topo *topo,
				 const struct cpumask *cpus_allowed)
{
	int node, copy;

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
	memcpy(idle_shadow_mask(s, 1, 0, false), idle_shadow_mask(s, 0, 0, false),
	       idle_shadow_copy_bytes(s));
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

	if (!s || !topo->nodes) {
		sched_rust_shadow_skipped();
		return;
	}
	if (!raw_spin_trylock_irqsave(&s->lock, irq_flags)) {
		sched_rust_shadow_skipped();
		return;
	}
	s->state = state;
	idle_shadow_snapshot(s, topo, cpus_allowed);
	if (kind != SHADOW_IDLE_CLAIM && !idle_shadow_in_contract(s, arg)) {
		raw_spin_unlock_irqrestore(&s->lock, irq_flags);
		sched_rust_shadow_skipped();
		return;
	}

	cursor = idle_shadow_cursor(s);
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
	c_cursor = idle_shadow_cursor(s);

	idle_shadow_set_cursor(cursor);
	switch (kind) {
	case SHADOW_IDLE_CLAIM:
		rust_got = sched_rust_idle_test_and_clear_cpu(&s->topo[1], arg, state);
		break;
	case SHADOW_IDLE_PICK_IN_NODE:
		rust_got = sched_rust_idle_pick_in_node(&s->topo[1], cpumask_bits(s->allowed),
							arg, flags, state);
		break;
	default:
		rust_got = sched_rust_idle_pick(&s->topo[1], cpumask_bits(s->allowed), arg,
						flags, state);
		break;
	}
	rust_cursor = idle_shadow_cursor(s);
	/* The real call comes next, from where the cursor was. */
	idle_shadow_set_cursor(cursor);

	differs = c_got != rust_got || c_cursor != rust_cursor ||
		  memcmp(idle_shadow_mask(s, 0, 0, false), idle_shadow_mask(s, 1, 0, false),
			 idle_shadow_copy_bytes(s));
	shadow_count(kind, rust, differs);
	WARN_ONCE(differs,
		  "sched_rust shadow: %s(%d flags=%llu state=%u cursor=%u allowed=%*pbl): C %d (cursor %u), Rust %d (cursor %u)%s\n",
		  shadow_helper_names[kind], arg, flags, state, cursor,
		  cpumask_pr_args(s->allowed), c_got, c_cursor, rust_got, rust_cursor,
		  c_got == rust_got && c_cursor == rust_cursor ? ", masks differ" : "");
	raw_spin_unlock_irqrestore(&s->lock, irq_flags);
}

void sched_rust_shadow_idle_claim(const struct scx_idle_topo *topo, int cpu,
				  unsigned int state, bool rust)
{
	if (cpu < 0 || cpu >= nr_cpu_ids) {
		sched_rust_shadow_skipped();
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
		sched_rust_shadow_skipped();
		return;
	}
	idle_shadow_run(in_node ? SHADOW_IDLE_PICK_IN_NODE : SHADOW_IDLE_PICK, topo,
			cpus_allowed, node, flags, state, rust);
}

/*
 * The copies of the idle picks, for nr_cpu_ids CPUs and nr_node_ids nodes,
 * once both are final; picks before this runs are counted as skipped.
 */
static int __init idle_shadow_alloc(void)
{
	struct idle_shadow *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int copy;

	if (!s)
		goto fail;
	raw_spin_lock_init(&s->lock);
	s->stride = cpumask_size() / sizeof(long);
	s->masks = kvcalloc(2 * (nr_node_ids + 1) * 2 * s->stride, sizeof(long), GFP_KERNEL);
	s->allowed = kzalloc(cpumask_size(), GFP_KERNEL);
	s->all = kzalloc(cpumask_size(), GFP_KERNEL);
	for (copy = 0; copy < 2; copy++)
		s->nodes[copy] = kcalloc(nr_node_ids, sizeof(*s->nodes[copy]), GFP_KERNEL);
	if (!s->masks || !s->allowed || !s->all || !s->nodes[0] || !s->nodes[1])
		goto fail;
	bitmap_fill(cpumask_bits(s->all), nr_cpu_ids);
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
	if (s) {
		kvfree(s->masks);
		kfree(s->allowed);
		kfree(s->all);
		kfree(s->nodes[0]);
		kfree(s->nodes[1]);
		kfree(s);
	}
	pr_warn("sched_rust shadow: no memory for the idle pick copies; idle picks are skipped\n");
	return 0;
}
early_initcall(idle_shadow_alloc);
#endif /* CONFIG_SCHED_RUST_IDLE_PICK */

static int shadow_show(struct seq_file *m, void *v)
{
	unsigned long calls = 0, differences = 0, skipped = 0;
	int helper, rust, cpu;

	seq_puts(m, "# each real call's inputs run through C and Rust; mode: the call site's implementation\n");
	seq_printf(m, "%-22s %-5s %12s %12s\n", "helper", "mode", "calls", "differences");
	for (helper = 0; helper < SHADOW_NR_HELPERS; helper++) {
		for (rust = 0; rust < 2; rust++) {
			struct shadow_count sum = {};

			for_each_possible_cpu(cpu) {
				struct shadow_stats *s = per_cpu_ptr(&shadow_stats, cpu);

				sum.calls += READ_ONCE(s->count[helper][rust].calls);
				sum.differences += READ_ONCE(s->count[helper][rust].differences);
			}
			seq_printf(m, "%-22s %-5s %12lu %12lu\n",
				   shadow_helper_names[helper], rust ? "rust" : "c",
				   sum.calls, sum.differences);
			calls += sum.calls;
			differences += sum.differences;
		}
	}
	for_each_possible_cpu(cpu)
		skipped += READ_ONCE(per_cpu_ptr(&shadow_stats, cpu)->skipped);
	seq_printf(m, "total %lu calls, %lu differences, %lu skipped\n",
		   calls, differences, skipped);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(shadow);

/*
 * The copy buffers, sized for nr_cpu_ids, which is final once the possible
 * CPUs are known; allocated before the other CPUs come up. Calls before
 * this runs are counted as skipped.
 */
static int __init sched_rust_shadow_alloc(void)
{
	size_t mask_bytes = sparsemask_size(nr_cpu_ids, 0);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct shadow_buf *buf = per_cpu_ptr(&shadow_buf, cpu);
		int node = cpu_to_node(cpu);

		buf->cpus = kcalloc_node(nr_cpu_ids, sizeof(*buf->cpus),
					 GFP_KERNEL, node);
		buf->overload = kzalloc_node(mask_bytes, GFP_KERNEL, node);
		buf->siblings = bitmap_zalloc_node(nr_cpu_ids, GFP_KERNEL, node);
		if (!buf->cpus || !buf->overload || !buf->siblings) {
			kfree(buf->cpus);
			kfree(buf->overload);
			bitmap_free(buf->siblings);
			*buf = (struct shadow_buf){};
			pr_warn("sched_rust shadow: no copy buffers for CPU %d; its calls are skipped\n",
				cpu);
		}
	}
	return 0;
}
early_initcall(sched_rust_shadow_alloc);

static int __init sched_rust_shadow_debugfs_init(void)
{
	debugfs_create_file("sched_rust_shadow", 0400, NULL, NULL, &shadow_fops);
	return 0;
}
late_initcall(sched_rust_shadow_debugfs_init);
