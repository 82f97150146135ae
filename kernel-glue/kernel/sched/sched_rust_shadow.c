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
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "sched_rust.h"
#include "sched_rust_shadow.h"
#include "sparsemask.h"
#include "steal_search.h"
#ifdef CONFIG_SCHED_RUST_ASYM_FIT
#include "asym_fit.h"
#endif

enum shadow_helper {
	SHADOW_SELECT_IDLE_CAPACITY,
	SHADOW_ASYM_FITS_CPU,
	SHADOW_UTIL_FITS_CPU,
	SHADOW_STEAL_SEARCH,
	SHADOW_NODE_ORDER,
	SHADOW_NR_HELPERS,
};

static const char * const shadow_helper_names[SHADOW_NR_HELPERS] = {
	[SHADOW_SELECT_IDLE_CAPACITY]	= "select_idle_capacity",
	[SHADOW_ASYM_FITS_CPU]		= "asym_fits_cpu",
	[SHADOW_UTIL_FITS_CPU]		= "util_fits_cpu",
	[SHADOW_STEAL_SEARCH]		= "steal_search",
	[SHADOW_NODE_ORDER]		= "node_order",
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

	/* select_idle_capacity()'s budget, before it calls the scan. */
	if (scan->sis_util)
		nr = scan->nr_idle_scan + 1;
	if (nr == 1)
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
void sched_rust_shadow_node_order(const struct scx_idle_topo *topo, bool rust)
{
	unsigned int nr = topo->nr_nodes, from, i;

	for (from = 0; from < nr; from++) {
		const u16 *row = &topo->node_order[from * nr];
		nodemask_t unvisited = NODE_MASK_NONE;
		bool differs = false;
		int node = 0;

		for (i = 0; i < nr; i++)
			node_set(i, unvisited);
		for (i = 0; i < nr; i++) {
#ifdef CONFIG_NUMA
			/* As for_each_node_numadist() takes the next node. */
			node = nearest_node_nodemask(from, &unvisited);
#else
			node = first_node(unvisited);
#endif
			if (node >= MAX_NUMNODES || node != row[i]) {
				differs = true;
				break;
			}
			node_clear(node, unvisited);
		}
		shadow_count(SHADOW_NODE_ORDER, rust, differs);
		WARN_ONCE(differs,
			  "sched_rust shadow: node order from node %u: C visits node %d at step %u, Rust node %u\n",
			  from, node, i, i < nr ? row[i] : 0);
	}
}
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
