// SPDX-License-Identifier: GPL-2.0
/*
 * Side-by-side benchmark of the C and the Rust scheduler helpers.
 *
 * Reading /sys/kernel/debug/sched/rust/bench runs it and prints one line
 * per operation: the Rust/C time ratio over the rounds, as median,
 * quartiles and extremes, and the median time per operation of each side.
 * Each round times a batch of the C operation and the same batch of the
 * Rust one back to back, on the same data, in an order that alternates
 * from round to round so that drift (frequency, other load) hits both
 * sides alike. Both sides fold every answer into a checksum, which must
 * agree ("same-results"), or the comparison is void ("RESULTS-DIFFER").
 *
 * Parameters (sched_rust_bench.<name>= on the command line, or
 * /sys/module/sched_rust_bench/parameters/<name>):
 *   rounds    rounds per operation (default 31);
 *   batch_us  if not 0, each batch repeats the operation's unit of work
 *             (the xN of its name) as often as the C side needs to run
 *             about that long, so that the clock's resolution and cost
 *             do not weigh (default 0: one unit, a functional check);
 *   raw       also print every round's two times, for statistics
 *             computed on the host.
 * Only the ratios transfer between machines; under QEMU's TCG even they
 * measure the emulator as much as the code.
 */
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "asym_fit.h"
#include "sched_rust.h"
#include "sparsemask.h"
#include "steal_search.h"

#define ROUNDS_MAX	4001
#define REPS_MAX	100000
#define BENCH_NELEMS	256	/* CPU ids covered by an LLC's overload mask */
#define BENCH_OVERLOADED 12	/* overloaded CPUs set in it */
#define BENCH_REPEAT	16

static unsigned int rounds = 31;
module_param(rounds, uint, 0644);
MODULE_PARM_DESC(rounds, "rounds per operation (3 to 4001)");

static unsigned int batch_us;
module_param(batch_us, uint, 0644);
MODULE_PARM_DESC(batch_us, "target time of a C batch in us (0: one unit of work)");

static bool raw;
module_param(raw, bool, 0644);
MODULE_PARM_DESC(raw, "also print the C and Rust time of every round");

struct bench_op {
	const char *name;
	bool writes;	/* runs on a scratch mask, not the shared one */
	unsigned int ops;	/* operations in one unit of work (one call below) */
	/* Run the batch; return a value that depends on every result. */
	unsigned long (*c)(struct sparsemask *mask);
	unsigned long (*rust)(struct sparsemask *mask);
};

static unsigned long smask_setclear_c(struct sparsemask *mask)
{
	int r, e;

	for (r = 0; r < BENCH_REPEAT; r++) {
		for (e = 0; e < BENCH_NELEMS; e++) {
			sparsemask_set_elem(mask, e);
			sparsemask_clear_elem(mask, e);
		}
	}
	return 0;
}

static unsigned long smask_setclear_rust(struct sparsemask *mask)
{
	int r, e;

	for (r = 0; r < BENCH_REPEAT; r++) {
		for (e = 0; e < BENCH_NELEMS; e++) {
			sched_rust_sparsemask_set_elem(mask, e);
			sched_rust_sparsemask_clear_elem(mask, e);
		}
	}
	return 0;
}

static unsigned long smask_test_c(struct sparsemask *mask)
{
	unsigned long hits = 0;
	int r, e;

	for (r = 0; r < BENCH_REPEAT; r++)
		for (e = 0; e < BENCH_NELEMS; e++)
			hits += sparsemask_test_elem(mask, e);
	return hits;
}

static unsigned long smask_test_rust(struct sparsemask *mask)
{
	unsigned long hits = 0;
	int r, e;

	for (r = 0; r < BENCH_REPEAT; r++)
		for (e = 0; e < BENCH_NELEMS; e++)
			hits += sched_rust_sparsemask_test_elem(mask, e);
	return hits;
}

/* A full wrap-around walk from every origin, as try_steal() does. */
static unsigned long smask_walk_c(struct sparsemask *mask)
{
	unsigned long sum = 0;
	int origin, e;

	for (origin = 0; origin < BENCH_NELEMS; origin++)
		sparsemask_for_each(mask, origin, e)
			sum += e;
	return sum;
}

static unsigned long smask_walk_rust(struct sparsemask *mask)
{
	unsigned long sum = 0;
	int origin, e;

	for (origin = 0; origin < BENCH_NELEMS; origin++)
		for (e = -1; (e = sched_rust_sparsemask_next(mask, origin, e)) < BENCH_NELEMS;)
			sum += e;
	return sum;
}

#ifdef CONFIG_SCHED_RUST_STEAL
/* bench_smt[cpu]: the SMT siblings of @cpu, as pairs (2n, 2n + 1). */
static unsigned long bench_smt[BENCH_NELEMS][BITS_TO_LONGS(BENCH_NELEMS)];

static int bench_steal_refuse(void *arg, int src_cpu)
{
	*(unsigned long *)arg += src_cpu;
	return STEAL_REFUSED;
}

/*
 * try_steal()'s walk from every CPU, with every candidate refusing: the
 * longest walk (siblings, then the whole mask). The C walk inlines its
 * constant callback; the Rust one is one call across the boundary and an
 * indirect call per candidate, as in fair.c.
 */
static unsigned long steal_walk_c(struct sparsemask *mask)
{
	unsigned long sum = 0;	/* of the CPUs tried */
	int dst, found = 0;

	for (dst = 0; dst < BENCH_NELEMS; dst++)
		found += steal_search(mask, bench_smt[dst], dst, bench_steal_refuse, &sum);
	return sum + found;
}

static unsigned long steal_walk_rust(struct sparsemask *mask)
{
	unsigned long sum = 0;	/* of the CPUs tried */
	int dst, found = 0;

	for (dst = 0; dst < BENCH_NELEMS; dst++)
		found += sched_rust_steal_search(mask, bench_smt[dst], dst,
						  bench_steal_refuse, &sum);
	return sum + found;
}

static void bench_smt_init(void)
{
	int cpu;

	for (cpu = 0; cpu < BENCH_NELEMS; cpu++) {
		__set_bit(cpu & ~1, bench_smt[cpu]);
		__set_bit(cpu | 1, bench_smt[cpu]);
	}
}
#else
static void bench_smt_init(void) { }
#endif

#if defined(CONFIG_SCHED_RUST_IDLE_PICK) && defined(CONFIG_NUMA)
#include "idle_pick_machine.h"

/*
 * sched_ext's idle pick across nodes on synthetic machines of 8 and 32
 * nodes of one core of 2 threads, nodes in a line (distance 10 per hop).
 * The C pick is idle.c's own code (ext/idle_pick.h) on the machine
 * (idle_pick_machine.h); without NUMA idle.c has no walk across nodes, so
 * neither has this benchmark. A struct cpumask must hold the 64 CPUs of
 * the larger machine (small_cpumask_bits; not with CPUMASK_OFFSTACK on a
 * small guest): else the rows are left out, and the table says so.
 * "miss": no CPU is idle, so each pick searches every node, the case the
 * per-node masks make costlier under load; both pickers walk the nodes in
 * the machine's order (O(N)), as idle.c does.
 * "hit": one CPU of the node farthest from the start is idle; it is
 * claimed, then given back, so every pick walks to it.
 */
#define IDLE_NODES_MAX	32
#define IDLE_NODE_CPUS	2
#define IDLE_CPUS	(IDLE_NODES_MAX * IDLE_NODE_CPUS)
#define IDLE_WORDS	BITS_TO_LONGS(IDLE_CPUS)
#define IDLE_STATE	(SCX_IDLE_STATE_SMT_ACTIVE | SCX_IDLE_STATE_PER_NODE)

struct idle_bench {
	struct scx_idle_machine mach;
	unsigned long cpu[IDLE_NODES_MAX + 1][IDLE_WORDS];
	unsigned long smt[IDLE_NODES_MAX + 1][IDLE_WORDS];
	struct scx_idle_masks nodes[IDLE_NODES_MAX];
	unsigned long siblings[IDLE_CPUS][IDLE_WORDS];
	const unsigned long *sibling_ptrs[IDLE_CPUS];
	int cpu_node[IDLE_CPUS];
	nodemask_t online;
	unsigned long allowed[IDLE_WORDS];
	unsigned int distance[IDLE_NODES_MAX * IDLE_NODES_MAX];
	/* the node order, published at @order as idle.c publishes its own */
	struct scx_idle_node_order *order;
	unsigned int cursor;
	struct idle_machine machine;	/* idle.c's code on it */
};

static struct idle_bench *idle_bench[2];	/* 8 and 32 nodes */

static struct idle_bench *idle_bench_alloc(unsigned int nodes)
{
	struct idle_bench *b = kzalloc(sizeof(*b), GFP_KERNEL);
	unsigned int cpu, n, to, nr_cpus = nodes * IDLE_NODE_CPUS;

	if (!b)
		return NULL;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		__set_bit(cpu & ~1U, b->siblings[cpu]);
		__set_bit(cpu | 1U, b->siblings[cpu]);
		b->sibling_ptrs[cpu] = b->siblings[cpu];
		b->cpu_node[cpu] = cpu / IDLE_NODE_CPUS;
	}
	for (n = 0; n < nodes; n++) {
		b->nodes[n].cpu = b->cpu[n];
		b->nodes[n].smt = b->smt[n];
		node_set(n, b->online);
		for (to = 0; to < nodes; to++)
			b->distance[n * nodes + to] = 10 + 10 * abs((int)n - (int)to);
	}
	bitmap_fill(b->allowed, nr_cpus);
	b->order = kzalloc(struct_size(b->order, order, nodes * nodes), GFP_KERNEL);
	if (!b->order || !sched_rust_idle_build_node_order(b->distance, nodes, b->order->order)) {
		kfree(b->order);
		kfree(b);
		return NULL;
	}
	b->mach = (struct scx_idle_machine) {
		.topo = {
			.nr_cpus = nr_cpus, .nr_nodes = nodes,
			.global = { b->cpu[IDLE_NODES_MAX], b->smt[IDLE_NODES_MAX] },
			.nodes = b->nodes, .online_nodes = nodes_addr(b->online),
			.node_order = &b->order,
		},
		.smt_siblings = b->sibling_ptrs, .cpu_node = b->cpu_node,
		.distance = b->distance, .cursor = &b->cursor,
	};
	b->machine = (struct idle_machine) { .mach = &b->mach, .state = IDLE_STATE };
	return b;
}

/* Every start node in turn; @hit: the farthest node holds one idle CPU. */
static __always_inline unsigned long
idle_pick_batch(struct idle_bench *b, bool hit, bool rust)
{
	unsigned int nodes = b->mach.topo.nr_nodes, r, start;
	unsigned long sum = 0;

	b->cursor = 0;
	for (r = 0; r < BENCH_REPEAT; r++) {
		for (start = 0; start < nodes; start++) {
			unsigned int far = start < nodes / 2 ? nodes - 1 : 0;
			unsigned int idle = far * IDLE_NODE_CPUS + 1;
			u64 flags = 0;
			s32 cpu;

			/* idle.c's callers pass their own flags: not a constant */
			OPTIMIZER_HIDE_VAR(flags);
			if (hit)
				__set_bit(idle, b->cpu[far]);
			if (rust)
				cpu = sched_rust_idle_machine_pick(&b->mach, b->allowed,
								   start, flags, IDLE_STATE);
			else
				cpu = idle_machine_pick(&b->machine, b->allowed, start, flags);
			sum += cpu;
		}
	}
	return sum;
}

/*
 * One batch function per language, which every case of that language
 * calls, as the scan's: a batch shared by both would hold both picks, and
 * a test of the language at each pick.
 */
static noinline unsigned long idle_pick_batch_c(struct idle_bench *b, bool hit)
{
	return idle_pick_batch(b, hit, false);
}

static noinline unsigned long idle_pick_batch_rust(struct idle_bench *b, bool hit)
{
	return idle_pick_batch(b, hit, true);
}

static unsigned long idle_miss8_c(struct sparsemask *unused)
{
	return idle_pick_batch_c(idle_bench[0], false);
}

static unsigned long idle_miss8_rust(struct sparsemask *unused)
{
	return idle_pick_batch_rust(idle_bench[0], false);
}

static unsigned long idle_miss32_c(struct sparsemask *unused)
{
	return idle_pick_batch_c(idle_bench[1], false);
}

static unsigned long idle_miss32_rust(struct sparsemask *unused)
{
	return idle_pick_batch_rust(idle_bench[1], false);
}

static unsigned long idle_hit32_c(struct sparsemask *unused)
{
	return idle_pick_batch_c(idle_bench[1], true);
}

static unsigned long idle_hit32_rust(struct sparsemask *unused)
{
	return idle_pick_batch_rust(idle_bench[1], true);
}

/* The machines fit a struct cpumask and a nodemask_t of this kernel. */
static bool idle_bench_fits(void)
{
	return small_cpumask_bits >= IDLE_CPUS && MAX_NUMNODES >= IDLE_NODES_MAX;
}

static bool idle_bench_init(void)
{
	if (!idle_bench_fits())
		return true;
	idle_bench[0] = idle_bench_alloc(8);
	idle_bench[1] = idle_bench_alloc(32);
	return idle_bench[0] && idle_bench[1];
}

static void idle_bench_header(struct seq_file *m)
{
	if (!idle_bench_fits())
		seq_printf(m, "# idle pick: left out: a cpumask holds %u CPUs, the machines need 64\n",
			   small_cpumask_bits);
}
#else
static bool idle_bench_fits(void) { return false; }
static bool idle_bench_init(void) { return true; }

static void idle_bench_header(struct seq_file *m)
{
	if (IS_ENABLED(CONFIG_SCHED_RUST_IDLE_PICK))
		seq_puts(m, "# idle pick: left out: no NUMA, so idle.c has no walk across nodes\n");
}
#endif

#ifdef CONFIG_SCHED_RUST_ASYM_FIT
#include "asym_fit_machine.h"

/*
 * The asymmetric capacity fit on a synthetic 128-CPU asym domain of 64
 * SMT2 cores, like the KUnit suite's machines: CPUs 0-63 of capacity 512,
 * 64-127 of 1024, less a little RT/IRQ pressure (capacity_of()) and HW
 * pressure (the actual capacity), varying by CPU so that the best-capacity
 * tie-break has work to do. One call per select_idle_capacity(): the C scan
 * is fair.c's own body (asym_fit.h's __select_idle_capacity()), inlined
 * into the loop with the constant table of accessors of the described CPUs
 * (asym_fit_machine.h, as the KUnit suite's), as fair.c inlines it with
 * the run queues' accessors; the Rust scan is one call across the boundary
 * and an indirect call per CPU it reaches, to the machine's view callback,
 * which reads the same CPUs. Both record the CPUs they ask about.
 *
 * "scan full": on every core one sibling is busy, yet the idle-cores hint
 * is set (a stale hint, which the scan clears): no CPU is on a preferred
 * core, so a task that fits everywhere never returns early and the scan
 * reaches all 128 CPUs (64 of them idle and ranked), from every target.
 * "scan first": every CPU is idle; the task fits the target, on an idle
 * core, and the scan returns at the first CPU it reaches.
 * "fits cpu": asym_fits_cpu()'s test with SMT active on views filled in
 * advance (the Rust path fills one per call in fair.c, a cost on the C
 * side of the boundary; the C body reads the same views through the
 * machine's accessors), for four tasks: small, big (fits only 1024),
 * boosted by uclamp_min past the little CPUs, too big for any CPU.
 */
#define ASYM_CPUS		128
#define ASYM_THREADS		2
#define ASYM_FULL_CALLS		ASYM_CPUS
#define ASYM_FIRST_CALLS	(BENCH_REPEAT * ASYM_CPUS)
#define ASYM_FITS_CALLS		(BENCH_REPEAT * ASYM_CPUS)

/* A machine of described CPUs (asym_fit_machine.h) and its span. */
struct asym_bench {
	struct asym_machine m;
	struct asym_machine_cpu cpus[ASYM_CPUS];
	struct asym_machine_cpu *chunks[DIV_ROUND_UP(ASYM_CPUS, ASYM_MACHINE_CHUNK)];
	DECLARE_BITMAP(span, ASYM_CPUS);	/* span & p->cpus_ptr */
};

/* "scan full", "scan first" and "fits cpu" */
static struct asym_bench asym_busy_sibling, asym_all_idle, asym_fits_machine;

/* uclamp in use, no clamp on this task: the scan asks for every field. */
static const struct asym_fit_task asym_small_task = {
	.util = 300, .uclamp_min = 0,
	.uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true,
};

static const struct asym_fit_task asym_fits_tasks[4] = {
	{ .util = 300, .uclamp_max = SCHED_CAPACITY_SCALE },
	{ .util = 600, .uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true },
	{ .util = 100, .uclamp_min = 900, .uclamp_max = SCHED_CAPACITY_SCALE,
	  .uclamp_used = true },
	{ .util = 900, .uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true },
};

/*
 * @repeat scans from every target in turn; C and Rust fold the same way.
 * One function per language (below), so that each scan has one call site,
 * as select_idle_capacity() has in fair.c: with SCHED_RUST_INLINE, LLVM
 * inlines the Rust scan (a large local function) only where it is called
 * once, and the bench must not measure a call that fair.c does not make.
 */
static __always_inline unsigned long
asym_scan_batch(struct asym_bench *b, const struct asym_fit_task *task,
		int repeat, bool rust)
{
	struct asym_scan scan = {
		.cpus = b->span, .nbits = ASYM_CPUS, .has_idle_core = true,
	};
	unsigned long sum = 0;
	bool clear;
	int r, cpu;

	for (r = 0; r < repeat; r++) {
		for (scan.target = 0; scan.target < ASYM_CPUS; scan.target++) {
			const struct asym_scan *s = &scan;

			/*
			 * fair.c reads the task's utilisation and clamps and
			 * the LLC's has_idle_cores at run time: hidden here,
			 * so that no inlined scan, C's or (with
			 * SCHED_RUST_INLINE) Rust's, is specialised for this
			 * batch's constants, as fair.c's never is.
			 */
			OPTIMIZER_HIDE_VAR(task);
			OPTIMIZER_HIDE_VAR(s);
			asym_machine_reset(&b->m);
			if (rust) {
				cpu = sched_rust_select_idle_capacity(task, s,
								      asym_machine_view,
								      &b->m, &clear);
			} else {
				cpu = asym_machine_select_idle_capacity(&b->m, task, s);
				clear = b->m.cleared;
			}
			sum += 2 * (cpu + 1) + clear;
		}
	}
	return sum;
}

static noinline unsigned long
asym_scan_batch_c(struct asym_bench *b, const struct asym_fit_task *task, int repeat)
{
	return asym_scan_batch(b, task, repeat, false);
}

static noinline unsigned long
asym_scan_batch_rust(struct asym_bench *b, const struct asym_fit_task *task, int repeat)
{
	return asym_scan_batch(b, task, repeat, true);
}

static unsigned long asym_full_c(struct sparsemask *unused)
{
	return asym_scan_batch_c(&asym_busy_sibling, &asym_small_task, 1);
}

static unsigned long asym_full_rust(struct sparsemask *unused)
{
	return asym_scan_batch_rust(&asym_busy_sibling, &asym_small_task, 1);
}

static unsigned long asym_first_c(struct sparsemask *unused)
{
	return asym_scan_batch_c(&asym_all_idle, &asym_small_task, BENCH_REPEAT);
}

static unsigned long asym_first_rust(struct sparsemask *unused)
{
	return asym_scan_batch_rust(&asym_all_idle, &asym_small_task, BENCH_REPEAT);
}

static __always_inline unsigned long asym_fits_batch(bool rust)
{
	struct asym_machine *m = &asym_fits_machine.m;
	const struct asym_fit_task *task;
	unsigned long sum = 0;
	int r, cpu;
	bool fits;

	for (r = 0; r < BENCH_REPEAT; r++) {
		for (cpu = 0; cpu < ASYM_CPUS; cpu++) {
			/* as in asym_scan_batch(): the task is not a constant */
			task = &asym_fits_tasks[r % ARRAY_SIZE(asym_fits_tasks)];
			OPTIMIZER_HIDE_VAR(task);
			if (rust)
				fits = sched_rust_asym_fits_cpu(task, true,
								&asym_machine_cpu(m, cpu)->view);
			else
				fits = asym_machine_asym_fits_cpu(m, task, cpu);
			sum += fits * (cpu + 1);
		}
	}
	return sum;
}

static unsigned long asym_fits_c(struct sparsemask *unused)
{
	return asym_fits_batch(false);
}

static unsigned long asym_fits_rust(struct sparsemask *unused)
{
	return asym_fits_batch(true);
}

/* is_core_idle() on the machine being described: every sibling idle. */
static bool asym_bench_core_idle(const struct asym_bench *b, int cpu)
{
	int core = cpu & ~(ASYM_THREADS - 1), sibling;

	for (sibling = core; sibling < core + ASYM_THREADS; sibling++)
		if (sibling != cpu && !b->cpus[sibling].idle)
			return false;
	return true;
}

static void asym_bench_machine(struct asym_bench *b, bool busy_sibling)
{
	struct asym_cpu_view *v;
	int cpu;

	for (cpu = 0; cpu < ASYM_CPUS; cpu++) {
		v = &b->cpus[cpu].view;
		v->capacity_orig = cpu < ASYM_CPUS / 2 ? 512 : SCHED_CAPACITY_SCALE;
		v->capacity = v->capacity_orig - 8 * (cpu % 7);
		v->actual_capacity = v->capacity_orig - 16 * (cpu % 3);
		/* One busy thread per core, alternating between siblings. */
		b->cpus[cpu].idle = !busy_sibling ||
				    cpu % ASYM_THREADS != (cpu / ASYM_THREADS) % ASYM_THREADS;
	}
	for (cpu = 0; cpu < ASYM_CPUS; cpu++)
		b->cpus[cpu].view.core_idle = asym_bench_core_idle(b, cpu);
	for (cpu = 0; cpu < ARRAY_SIZE(b->chunks); cpu++)
		b->chunks[cpu] = asym_machine_chunk(b->cpus, cpu);
	b->m = (struct asym_machine) {
		.chunks = b->chunks, .nr_cpus = ASYM_CPUS, .smt_active = true,
	};
	bitmap_fill(b->span, ASYM_CPUS);
}

static void asym_bench_init(void)
{
	int cpu;

	asym_bench_machine(&asym_busy_sibling, true);
	asym_bench_machine(&asym_all_idle, false);
	/* For "fits cpu": every fourth core has a busy sibling. */
	asym_bench_machine(&asym_fits_machine, false);
	for (cpu = 0; cpu < ASYM_CPUS; cpu++)
		asym_fits_machine.cpus[cpu].view.core_idle = (cpu / ASYM_THREADS) % 4 != 3;
}

static void asym_bench_header(struct seq_file *m)
{
	seq_printf(m, "# asym fit: %d CPUs (%d x 512, %d x 1024), SMT%d; calls per batch (the xN of the name): scan full %d (%d CPUs reached each), scan first %d (1 reached), fits cpu %d\n",
		   ASYM_CPUS, ASYM_CPUS / 2, ASYM_CPUS / 2, ASYM_THREADS,
		   ASYM_FULL_CALLS, ASYM_CPUS, ASYM_FIRST_CALLS, ASYM_FITS_CALLS);
}
#else
static void asym_bench_init(void) { }
static void asym_bench_header(struct seq_file *m) { }
#endif

/*
 * What one unit of work counts as operations, for the time per operation:
 * a set+clear pair, a test, a whole walk (for the sparsemask walk, 13
 * calls of next: 12 CPUs and the end), a pick, a call.
 */
static const struct bench_op bench_ops[] = {
	{ "sparsemask set+clear", true,  BENCH_REPEAT * BENCH_NELEMS,
	  smask_setclear_c, smask_setclear_rust },
	{ "sparsemask test",      false, BENCH_REPEAT * BENCH_NELEMS,
	  smask_test_c, smask_test_rust },
	{ "sparsemask walk",      false, BENCH_NELEMS, smask_walk_c, smask_walk_rust },
#ifdef CONFIG_SCHED_RUST_STEAL
	{ "steal walk",           false, BENCH_NELEMS, steal_walk_c, steal_walk_rust },
#endif
#if defined(CONFIG_SCHED_RUST_IDLE_PICK) && defined(CONFIG_NUMA)
	{ "idle pick miss 8n",    false, BENCH_REPEAT * 8, idle_miss8_c, idle_miss8_rust },
	{ "idle pick miss 32n",   false, BENCH_REPEAT * 32, idle_miss32_c, idle_miss32_rust },
	{ "idle pick hit 32n",    false, BENCH_REPEAT * 32, idle_hit32_c, idle_hit32_rust },
#endif
#ifdef CONFIG_SCHED_RUST_ASYM_FIT
	{ "asym scan full x128",  false, ASYM_FULL_CALLS, asym_full_c, asym_full_rust },
	{ "asym scan first x2048", false, ASYM_FIRST_CALLS, asym_first_c, asym_first_rust },
	{ "asym fits cpu x2048",  false, ASYM_FITS_CALLS, asym_fits_c, asym_fits_rust },
#endif
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* @reps units of work, timed as one batch; their results go into @sink. */
static u64 time_batch(unsigned long (*fn)(struct sparsemask *),
		      struct sparsemask *mask, unsigned int reps, unsigned long *sink)
{
	unsigned long acc = 0;
	unsigned int i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < reps; i++)
		acc += fn(mask);
	t0 = ktime_get_ns() - t0;
	*sink += acc;
	return t0;
}

/* Per-round times and ratios of one operation, and a copy to sort. */
struct bench_rounds {
	u64 *c_ns, *rust_ns, *ratio, *sorted;
};

/* The median of @n values, sorted in @tmp. */
static u64 median_of(const u64 *v, u64 *tmp, unsigned int n)
{
	memcpy(tmp, v, n * sizeof(*v));
	sort(tmp, n, sizeof(*tmp), cmp_u64, NULL);
	return tmp[n / 2];
}

/* Hundredths of a nanosecond per operation, printed as x.yy. */
static u64 ns_per_op_x100(u64 ns, unsigned int reps, unsigned int ops)
{
	return div64_u64(ns * 100, (u64)reps * ops);
}

/*
 * " <x / scale>.<x % scale>", the two parts width and digits wide: a ratio
 * in thousandths as 1.234, a time in hundredths of ns as 12.34. The 64-bit
 * division goes through div_u64_rem(): a plain one does not link on 32-bit
 * kernels (no __aeabi_uldivmod in the kernel).
 */
static void seq_put_fixed(struct seq_file *m, u64 x, u32 scale, int width, int digits)
{
	u32 rem;
	u64 whole = div_u64_rem(x, scale, &rem);

	seq_printf(m, " %*llu.%0*u", width, whole, digits, rem);
}

/* Ratios are kept in thousandths: 1000 means Rust and C took as long. */
static void bench_one(struct seq_file *m, const struct bench_op *op,
		      struct sparsemask *mask, unsigned int n, u64 batch_ns,
		      struct bench_rounds *b)
{
	unsigned long c_sink = 0, rust_sink = 0, unused = 0;
	unsigned int reps = 1, r;
	u64 c_med, rust_med, *q = b->sorted;

	/* Warm caches and branch predictors; not timed. */
	op->c(mask);
	op->rust(mask);

	/* Batch size: the C side's time for one unit, from one timed run. */
	if (batch_ns) {
		u64 unit = max_t(u64, time_batch(op->c, mask, 1, &unused), 1);

		reps = clamp_t(u64, div64_u64(batch_ns, unit), 1, REPS_MAX);
	}

	for (r = 0; r < n; r++) {
		if (r & 1) {
			b->rust_ns[r] = time_batch(op->rust, mask, reps, &rust_sink);
			b->c_ns[r] = time_batch(op->c, mask, reps, &c_sink);
		} else {
			b->c_ns[r] = time_batch(op->c, mask, reps, &c_sink);
			b->rust_ns[r] = time_batch(op->rust, mask, reps, &rust_sink);
		}
		b->ratio[r] = div64_u64(b->rust_ns[r] * 1000, max_t(u64, b->c_ns[r], 1));
		cond_resched();		/* between rounds, never inside a batch */
	}
	c_med = median_of(b->c_ns, q, n);
	rust_med = median_of(b->rust_ns, q, n);
	median_of(b->ratio, q, n);	/* leaves the ratios sorted in q */

	seq_printf(m, "%-22s", op->name);
	seq_put_fixed(m, q[n / 2], 1000, 6, 3);
	seq_put_fixed(m, q[n / 4], 1000, 6, 3);
	seq_put_fixed(m, q[3 * n / 4], 1000, 6, 3);
	seq_put_fixed(m, q[0], 1000, 6, 3);
	seq_put_fixed(m, q[n - 1], 1000, 6, 3);
	seq_put_fixed(m, ns_per_op_x100(c_med, reps, op->ops), 100, 8, 2);
	seq_put_fixed(m, ns_per_op_x100(rust_med, reps, op->ops), 100, 8, 2);
	/* Both sides computed the same things, or the comparison is void. */
	seq_printf(m, " %6u %s\n", reps * op->ops,
		   c_sink == rust_sink ? "same-results" : "RESULTS-DIFFER");
	if (raw)
		for (r = 0; r < n; r++)
			seq_printf(m, "raw %u %llu %llu %u %s\n", r, b->c_ns[r],
				   b->rust_ns[r], reps * op->ops, op->name);
}

static int bench_show(struct seq_file *m, void *v)
{
	unsigned int n = clamp(READ_ONCE(rounds), 3U, ROUNDS_MAX);
	u64 batch_ns = (u64)READ_ONCE(batch_us) * NSEC_PER_USEC;
	struct sparsemask *mask, *scratch;
	struct bench_rounds b = {};
	struct rnd_state rnd;
	int i, set = 0, ret = -ENOMEM;

	mask = sparsemask_alloc_node(BENCH_NELEMS, SMASK_DENSITY_DEFAULT,
				     GFP_KERNEL, NUMA_NO_NODE);
	scratch = sparsemask_alloc_node(BENCH_NELEMS, SMASK_DENSITY_DEFAULT,
					GFP_KERNEL, NUMA_NO_NODE);
	b.c_ns = kcalloc(n, sizeof(u64), GFP_KERNEL);
	b.rust_ns = kcalloc(n, sizeof(u64), GFP_KERNEL);
	b.ratio = kcalloc(n, sizeof(u64), GFP_KERNEL);
	b.sorted = kcalloc(n, sizeof(u64), GFP_KERNEL);
	if (!mask || !scratch || !b.c_ns || !b.rust_ns || !b.ratio || !b.sorted)
		goto out;
	prandom_seed_state(&rnd, 42);
	while (set < BENCH_OVERLOADED) {
		int e = prandom_u32_state(&rnd) % BENCH_NELEMS;

		if (!sparsemask_test_elem(mask, e)) {
			sparsemask_set_elem(mask, e);
			set++;
		}
	}

	seq_printf(m, "# sched-rust C-vs-Rust benchmark: %u rounds, ratio = Rust time / C time\n",
		   n);
	if (batch_ns)
		seq_printf(m, "# batches: the unit of work repeated to about %llu us of C time; ops = operations per batch\n",
			   div64_u64(batch_ns, NSEC_PER_USEC));
	else
		seq_puts(m, "# batches: one unit of work each; ops = operations per batch\n");
	seq_printf(m, "# sparsemask: %d elements, density %d, %d set\n",
		   BENCH_NELEMS, SMASK_DENSITY_DEFAULT, BENCH_OVERLOADED);
	asym_bench_header(m);
	idle_bench_header(m);
	seq_printf(m, "%-22s %10s %10s %10s %10s %10s %11s %11s %6s %s\n", "operation",
		   "median", "p25", "p75", "min", "max", "C-ns/op", "Rust-ns/op", "ops",
		   "check");
	for (i = 0; i < ARRAY_SIZE(bench_ops); i++) {
		/* The idle-pick rows need machines this kernel can describe. */
		if (!strncmp(bench_ops[i].name, "idle pick", 9) && !idle_bench_fits())
			continue;
		bench_one(m, &bench_ops[i], bench_ops[i].writes ? scratch : mask,
			  n, batch_ns, &b);
	}
	ret = 0;
out:
	kfree(b.c_ns);
	kfree(b.rust_ns);
	kfree(b.ratio);
	kfree(b.sorted);
	sparsemask_free(mask);
	sparsemask_free(scratch);
	return ret;
}

/*
 * One buffer large enough for the whole output: seq_file would otherwise
 * run bench_show() again, from the start, each time the buffer overflows.
 */
static int bench_open(struct inode *inode, struct file *file)
{
	size_t lines = ARRAY_SIZE(bench_ops) *
		       (1 + (READ_ONCE(raw) ? clamp(READ_ONCE(rounds), 3U, ROUNDS_MAX) : 0));

	return single_open_size(file, bench_show, inode->i_private, 1024 + lines * 96);
}

static const struct file_operations bench_fops = {
	.owner		= THIS_MODULE,
	.open		= bench_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* After sched_init_debug() (a late_initcall) has made sched/rust. */
static int __init sched_rust_bench_init(void)
{
	bench_smt_init();
	asym_bench_init();
	if (!idle_bench_init())
		return -ENOMEM;
	debugfs_create_file("bench", 0400, sched_rust_debugfs, NULL, &bench_fops);
	return 0;
}
late_initcall_sync(sched_rust_bench_init);
