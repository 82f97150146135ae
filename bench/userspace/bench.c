// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace replica of the in-kernel C-vs-Rust benchmark
 * (bench/kernel/sched/sched_rust_bench.c): the same operations, on the
 * topologies of the seed series' test machines, timed in one process with
 * C and Rust interleaved, and counted in instructions under callgrind.
 *
 * The C side is the project's headers, static inline as in the kernel
 * (kernel/sched/sparsemask.h, steal_search.h, and the bodies of fair.c's
 * and idle.c's own functions in asym_fit.h and ext/idle_pick.h, the latter
 * with the described machine of idle_pick_machine.h as the KUnit suite
 * runs them, compiled unmodified over the shims in include/); the Rust side is
 * kernel/sched/sched_rust.rs and its *_export.rs files, compiled unmodified
 * against a stand-in kernel crate, called through their #[export] symbols.
 * bench/userspace/Makefile builds one binary per variant (no LTO,
 * cross-language ThinLTO, ...).
 *
 *   bench time ROUNDS      one JSON line per (topology, operation)
 *   bench callgrind TOPO   each batch function CG_CALLS times, for
 *                          callgrind; prints the operations per batch
 *
 * Each batch function is noinline and named c_<op> or rust_<op>, so that
 * callgrind's inclusive count of it is the cost of its batch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "asym_fit_machine.h"
#include "idle_pick_machine.h"
#include "sched_rust.h"
#include "sparsemask.h"
#include "steal_search.h"

#define MAX_CPUS	8192	/* NR_CPUS of the shims: MAXSMP */
#define MAX_NODES	64
#define WORDS		BITS_TO_LONGS(MAX_CPUS)
#define REPEAT		16	/* BENCH_REPEAT of the kernel benchmark */
#define CG_CALLS	3

#define __noinline	__attribute__((__noinline__))

/*
 * The seeds' machines. @stride: the SMT sibling of CPU c is c + stride or
 * c - stride (Linux's numbering on these x86 servers and desktops: the
 * second threads come after all the first ones), or c ^ 1 for stride 1 (a
 * QEMU guest). Nodes: the first threads and the second threads of a socket
 * are on its node.
 */
struct topology {
	const char *name;
	int cpus, nodes, stride;
	int overload_per256;	/* overloaded CPUs per 256 (0: 12, the kernel benchmark's) */
};

static const struct topology topologies[] = {
	{ "224cpu-2node-smt2", 224, 2, 112 },	/* DGX B200 */
	{ "160cpu-2socket-smt2", 160, 2, 80 },	/* Oracle X6-2 */
	{ "24cpu-smt2", 24, 1, 12 },		/* Ryzen 9 3900X */
	{ "8cpu-2node-smt2", 8, 2, 1 },		/* the project's VM */
	/* Many nodes: idle.c's walk across nodes is O(N^2) in them. */
	{ "256cpu-32node-smt2", 256, 32, 1 },
};

static int sibling_of(const struct topology *t, int cpu)
{
	if (t->stride == 1)
		return cpu ^ 1;
	return cpu < t->stride ? cpu + t->stride : cpu - t->stride;
}

static int node_of(const struct topology *t, int cpu)
{
	if (t->stride == 1)
		return cpu / (t->cpus / t->nodes);
	/* The first thread of its core, then its socket. */
	return (cpu % t->stride) / (t->stride / t->nodes);
}

/* Everything one topology's operations read and write. */
struct bench {
	const struct topology *t;
	int cpus, overloaded;
	struct sparsemask *mask, *scratch;
	unsigned long smt[MAX_CPUS][WORDS];	/* siblings of each CPU */

	/* idle pick: the described machine both pickers run on */
	struct scx_idle_machine mach;
	unsigned long cpu[MAX_NODES + 1][WORDS], smtm[MAX_NODES + 1][WORDS];
	struct scx_idle_masks nodes[MAX_NODES];
	const unsigned long *sibling_ptrs[MAX_CPUS];
	int cpu_node[MAX_CPUS];
	int hit_cpu[MAX_NODES];			/* the CPU left idle on a node */
	nodemask_t online;
	unsigned long allowed[WORDS];
	unsigned int cursor;			/* the machine's rotation cursor */
	struct idle_machine machine;		/* idle.c's code on the machine */
	unsigned int distance[MAX_NODES * MAX_NODES];
	/* the node order, published at @order as idle.c publishes its own */
	struct scx_idle_node_order *order;

	/*
	 * asym fit: a synthetic asym domain of all the CPUs, as in the
	 * kernel's, as described CPUs (asym_fit_machine.h): one busy thread
	 * per core ("scan full"), all idle ("scan first"), every fourth core
	 * busy ("fits cpu")
	 */
	struct asym_bench_machine {
		struct asym_machine m;
		struct asym_machine_cpu cpus[MAX_CPUS];
		struct asym_machine_cpu *chunks[DIV_ROUND_UP(MAX_CPUS, ASYM_MACHINE_CHUNK)];
	} asym_busy, asym_all, asym_fits;
	unsigned long asym_cpus[WORDS];
};

/* ---- sparsemask ---- */

static __noinline unsigned long c_smask_setclear(struct bench *b)
{
	int r, e;

	for (r = 0; r < REPEAT; r++) {
		for (e = 0; e < b->cpus; e++) {
			sparsemask_set_elem(b->scratch, e);
			sparsemask_clear_elem(b->scratch, e);
		}
	}
	return 0;
}

static __noinline unsigned long rust_smask_setclear(struct bench *b)
{
	int r, e;

	for (r = 0; r < REPEAT; r++) {
		for (e = 0; e < b->cpus; e++) {
			sched_rust_sparsemask_set_elem(b->scratch, e);
			sched_rust_sparsemask_clear_elem(b->scratch, e);
		}
	}
	return 0;
}

static __noinline unsigned long c_smask_test(struct bench *b)
{
	unsigned long hits = 0;
	int r, e;

	for (r = 0; r < REPEAT; r++)
		for (e = 0; e < b->cpus; e++)
			hits += sparsemask_test_elem(b->mask, e);
	return hits;
}

static __noinline unsigned long rust_smask_test(struct bench *b)
{
	unsigned long hits = 0;
	int r, e;

	for (r = 0; r < REPEAT; r++)
		for (e = 0; e < b->cpus; e++)
			hits += sched_rust_sparsemask_test_elem(b->mask, e);
	return hits;
}

static __noinline unsigned long c_smask_walk(struct bench *b)
{
	unsigned long sum = 0;
	int origin, e;

	for (origin = 0; origin < b->cpus; origin++)
		sparsemask_for_each(b->mask, origin, e)
			sum += e;
	return sum;
}

static __noinline unsigned long rust_smask_walk(struct bench *b)
{
	unsigned long sum = 0;
	int origin, e, n = b->cpus;

	for (origin = 0; origin < n; origin++)
		for (e = -1; (e = sched_rust_sparsemask_next(b->mask, origin, e)) < n;)
			sum += e;
	return sum;
}

/* ---- steal walk: every candidate refuses, from every CPU ---- */

/*
 * Every candidate refuses. Under fair.c's name: the Rust search calls it
 * directly, as it calls fair.c's in the kernel.
 */
int sched_steal_from(void *arg, int src_cpu)
{
	*(unsigned long *)arg += src_cpu;
	return STEAL_REFUSED;
}

static __noinline unsigned long c_steal_walk(struct bench *b)
{
	unsigned long sum = 0;
	int dst, found = 0;

	for (dst = 0; dst < b->cpus; dst++)
		found += steal_search(b->mask, b->smt[dst], dst, sched_steal_from, &sum);
	return sum + found;
}

static __noinline unsigned long rust_steal_walk(struct bench *b)
{
	unsigned long sum = 0;
	int dst, found = 0;

	for (dst = 0; dst < b->cpus; dst++)
		found += sched_rust_steal_search(b->mask, b->smt[dst], dst, sched_steal_from, &sum);
	return sum + found;
}

/* ---- sched_ext idle pick: every start node, nothing idle / one idle far ---- */

#define IDLE_STATE	(SCX_IDLE_STATE_SMT_ACTIVE | SCX_IDLE_STATE_PER_NODE)

/*
 * The C pick is idle.c's own code on the machine, as the kernel benchmark's
 * (IDLE_C: the walk across nodes in the cached node order), or upstream's,
 * which finds the nearest unvisited node at each step (IDLE_NUMADIST,
 * idle_machine_pick_numadist()): the rows of the latter measure what the
 * cache saves. The Rust pick is the picker's export for a described
 * machine (sched_rust_idle_machine_pick()), on the same machine, whose
 * walk is idle.c's. Each batch starts from the same cursor, 0, which both
 * rotations read through the machine's cursor pointer (b->mach.cursor,
 * &b->cursor).
 */
enum idle_walk { IDLE_C, IDLE_NUMADIST, IDLE_RUST };

static __always_inline unsigned long idle_batch(struct bench *b, bool hit, enum idle_walk walk)
{
	unsigned int nodes = b->mach.topo.nr_nodes, r, start;
	unsigned long sum = 0;

	b->cursor = 0;
	for (r = 0; r < REPEAT; r++) {
		for (start = 0; start < nodes; start++) {
			unsigned int far = start < nodes / 2 ? nodes - 1 : 0;
			u64 flags = 0;
			s32 got;

			/* idle.c's callers pass their own flags: not a constant */
			OPTIMIZER_HIDE_VAR(flags);
			if (hit)
				__set_bit(b->hit_cpu[far], b->cpu[far]);
			if (walk == IDLE_RUST)
				got = sched_rust_idle_machine_pick(&b->mach, b->allowed, start,
								   flags, IDLE_STATE);
			else if (walk == IDLE_NUMADIST)
				got = idle_machine_pick_numadist(&b->machine, b->allowed,
								 start, flags);
			else
				got = idle_machine_pick(&b->machine, b->allowed, start, flags);
			sum += got;
		}
	}
	return sum;
}

/*
 * One batch function per walk, which every case of that walk calls: with
 * the Rust code inlined into C (distro-inline), LLVM inlines a function this
 * large only at a single call site, as scx_pick_idle_cpu()'s in idle.c is.
 */
static __noinline unsigned long idle_c(struct bench *b, bool hit) { return idle_batch(b, hit, IDLE_C); }
static __noinline unsigned long idle_numadist(struct bench *b, bool hit) { return idle_batch(b, hit, IDLE_NUMADIST); }
static __noinline unsigned long idle_rust(struct bench *b, bool hit) { return idle_batch(b, hit, IDLE_RUST); }

static __noinline unsigned long c_idle_miss(struct bench *b) { return idle_c(b, false); }
static __noinline unsigned long rust_idle_miss(struct bench *b) { return idle_rust(b, false); }
static __noinline unsigned long c_idle_hit(struct bench *b) { return idle_c(b, true); }
static __noinline unsigned long rust_idle_hit(struct bench *b) { return idle_rust(b, true); }
/* The same Rust functions as above, against upstream's walk. */
static __noinline unsigned long c_idle_miss_numadist(struct bench *b) { return idle_numadist(b, false); }
static __noinline unsigned long rust_idle_miss_numadist(struct bench *b) { return idle_rust(b, false); }
static __noinline unsigned long c_idle_hit_numadist(struct bench *b) { return idle_numadist(b, true); }
static __noinline unsigned long rust_idle_hit_numadist(struct bench *b) { return idle_rust(b, true); }

/* ---- asym capacity fit ---- */

static const struct asym_fit_task asym_small_task = {
	.util = 300, .uclamp_min = 0, .uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true,
};

static const struct asym_fit_task asym_fits_tasks[4] = {
	{ .util = 300, .uclamp_max = SCHED_CAPACITY_SCALE },
	{ .util = 600, .uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true },
	{ .util = 100, .uclamp_min = 900, .uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true },
	{ .util = 900, .uclamp_max = SCHED_CAPACITY_SCALE, .uclamp_used = true },
};

/*
 * The machine's view callback under fair.c's name, asym_idle_cpu_view():
 * the Rust scan calls it directly, as it calls fair.c's in the kernel.
 */
bool asym_idle_cpu_view(void *arg, int cpu, unsigned int want, struct asym_cpu_view *view)
{
	return asym_machine_view(arg, cpu, want, view);
}

static __always_inline unsigned long asym_scan_batch(struct bench *b, struct asym_machine *m,
						     int repeat, bool rust)
{
	struct asym_scan scan = {
		.cpus = b->asym_cpus, .nbits = b->cpus, .has_idle_core = true,
	};
	unsigned long sum = 0;
	bool clear;
	int r, cpu;

	for (r = 0; r < repeat; r++) {
		for (scan.target = 0; scan.target < b->cpus; scan.target++) {
			const struct asym_fit_task *task = &asym_small_task;
			const struct asym_scan *s = &scan;

			/*
			 * fair.c reads the task's utilisation and clamps and
			 * the LLC's has_idle_cores at run time: hidden here,
			 * so that no inlined scan, C's or (in distro-inline)
			 * Rust's, is specialised for this batch's constants,
			 * as fair.c's never is.
			 */
			OPTIMIZER_HIDE_VAR(task);
			OPTIMIZER_HIDE_VAR(s);
			asym_machine_reset(m);
			if (rust) {
				cpu = sched_rust_select_idle_capacity(task, s, asym_idle_cpu_view,
								      m, &clear);
			} else {
				cpu = asym_machine_select_idle_capacity(m, task, s);
				clear = m->cleared;
			}
			sum += 2 * (cpu + 1) + clear;
		}
	}
	return sum;
}

/* One scan function per language, as for the idle pick above. */
static __noinline unsigned long asym_scan_c(struct bench *b, struct asym_machine *m, int repeat)
{
	return asym_scan_batch(b, m, repeat, false);
}

static __noinline unsigned long asym_scan_rust(struct bench *b, struct asym_machine *m,
					       int repeat)
{
	return asym_scan_batch(b, m, repeat, true);
}

static __noinline unsigned long c_asym_full(struct bench *b)
{
	return asym_scan_c(b, &b->asym_busy.m, 1);
}

static __noinline unsigned long rust_asym_full(struct bench *b)
{
	return asym_scan_rust(b, &b->asym_busy.m, 1);
}

static __noinline unsigned long c_asym_first(struct bench *b)
{
	return asym_scan_c(b, &b->asym_all.m, REPEAT);
}

static __noinline unsigned long rust_asym_first(struct bench *b)
{
	return asym_scan_rust(b, &b->asym_all.m, REPEAT);
}

static __always_inline unsigned long asym_fits_batch(struct bench *b, bool rust)
{
	struct asym_machine *m = &b->asym_fits.m;
	const struct asym_fit_task *task;
	unsigned long sum = 0;
	int r, cpu;
	bool fits;

	for (r = 0; r < REPEAT; r++) {
		for (cpu = 0; cpu < b->cpus; cpu++) {
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

static __noinline unsigned long c_asym_fits(struct bench *b) { return asym_fits_batch(b, false); }
static __noinline unsigned long rust_asym_fits(struct bench *b) { return asym_fits_batch(b, true); }

/*
 * ---- the per-call floor: empty functions called as the single-word
 * exports are (floor.rs, floor.c), C's against Rust's ----
 */

void bench_c_empty_set(void *mask, int elem);
bool bench_c_empty_test(const void *mask, int elem);
bool bench_c_empty_fits(const void *task, bool smt_active, const void *cpu);
void bench_rust_empty_set(void *mask, int elem);
bool bench_rust_empty_test(const void *mask, int elem);
bool bench_rust_empty_fits(const void *task, bool smt_active, const void *cpu);

static __always_inline unsigned long empty_setclear_batch(struct bench *b, bool rust)
{
	int r, e;

	for (r = 0; r < REPEAT; r++) {
		for (e = 0; e < b->cpus; e++) {
			if (rust) {
				bench_rust_empty_set(b->scratch, e);
				bench_rust_empty_set(b->scratch, e);
			} else {
				bench_c_empty_set(b->scratch, e);
				bench_c_empty_set(b->scratch, e);
			}
		}
	}
	return 0;
}

static __always_inline unsigned long empty_test_batch(struct bench *b, bool rust)
{
	unsigned long hits = 0;
	int r, e;

	for (r = 0; r < REPEAT; r++)
		for (e = 0; e < b->cpus; e++)
			hits += rust ? bench_rust_empty_test(b->mask, e) :
				       bench_c_empty_test(b->mask, e);
	return hits;
}

static __always_inline unsigned long empty_fits_batch(struct bench *b, bool rust)
{
	struct asym_machine *m = &b->asym_fits.m;
	const struct asym_fit_task *task;
	unsigned long sum = 0;
	int r, cpu;
	bool fits;

	for (r = 0; r < REPEAT; r++) {
		task = &asym_fits_tasks[r % ARRAY_SIZE(asym_fits_tasks)];
		for (cpu = 0; cpu < b->cpus; cpu++) {
			if (rust)
				fits = bench_rust_empty_fits(task, true,
							     &asym_machine_cpu(m, cpu)->view);
			else
				fits = bench_c_empty_fits(task, true,
							  &asym_machine_cpu(m, cpu)->view);
			sum += fits * (cpu + 1);
		}
	}
	return sum;
}

static __noinline unsigned long c_empty_setclear(struct bench *b) { return empty_setclear_batch(b, false); }
static __noinline unsigned long rust_empty_setclear(struct bench *b) { return empty_setclear_batch(b, true); }
static __noinline unsigned long c_empty_test(struct bench *b) { return empty_test_batch(b, false); }
static __noinline unsigned long rust_empty_test(struct bench *b) { return empty_test_batch(b, true); }
static __noinline unsigned long c_empty_fits(struct bench *b) { return empty_fits_batch(b, false); }
static __noinline unsigned long rust_empty_fits(struct bench *b) { return empty_fits_batch(b, true); }

/* ---- the operations ---- */

struct op {
	const char *helper, *name, *unit;
	unsigned long (*c)(struct bench *b);
	unsigned long (*rust)(struct bench *b);
	const char *c_fn, *rust_fn;		/* their names, for callgrind */
	long (*ops)(const struct bench *b);	/* operations per batch */
};

#define OP(helper, name, unit, fn, count) \
	{ helper, name, unit, c_##fn, rust_##fn, "c_" #fn, "rust_" #fn, count }

static long ops_cpus_x_repeat(const struct bench *b) { return (long)REPEAT * b->cpus; }
static long ops_cpus(const struct bench *b) { return b->cpus; }
static long ops_picks(const struct bench *b) { return (long)REPEAT * b->mach.topo.nr_nodes; }

static const struct op ops[] = {
	OP("sparsemask", "set+clear", "one set_elem and one clear_elem",
	   smask_setclear, ops_cpus_x_repeat),
	OP("sparsemask", "test", "one test_elem", smask_test, ops_cpus_x_repeat),
	OP("sparsemask", "walk", "a full wrap-around walk (overloaded + 1 next calls)",
	   smask_walk, ops_cpus),
	OP("steal", "steal walk", "one steal_search, every candidate refusing",
	   steal_walk, ops_cpus),
	OP("idle_pick", "idle pick miss", "one scx_pick_idle_cpu, nothing idle",
	   idle_miss, ops_picks),
	OP("idle_pick", "idle pick hit", "one scx_pick_idle_cpu, one idle CPU on the far node",
	   idle_hit, ops_picks),
	OP("idle_pick", "idle pick miss, C upstream walk",
	   "one scx_pick_idle_cpu, nothing idle; C walks the nodes as Linux 7.3 (nearest unvisited)",
	   idle_miss_numadist, ops_picks),
	OP("idle_pick", "idle pick hit, C upstream walk",
	   "one scx_pick_idle_cpu, one idle CPU on the far node; C walks as Linux 7.3",
	   idle_hit_numadist, ops_picks),
	OP("asym_fit", "asym scan full", "one select_idle_capacity reaching every CPU",
	   asym_full, ops_cpus),
	OP("asym_fit", "asym scan first", "one select_idle_capacity returning at the target",
	   asym_first, ops_cpus_x_repeat),
	OP("asym_fit", "asym fits cpu", "one asym_fits_cpu test", asym_fits, ops_cpus_x_repeat),
	OP("floor", "empty call x2", "two calls of an empty function as set+clear calls its two",
	   empty_setclear, ops_cpus_x_repeat),
	OP("floor", "empty call", "one call of an empty function as test calls test_elem",
	   empty_test, ops_cpus_x_repeat),
	OP("floor", "empty call, fits", "one call of an empty function as fits cpu calls its export",
	   empty_fits, ops_cpus_x_repeat),
};

/*
 * The callgrind runs call the batch functions directly, not through the
 * table: in the distro variants an indirect call goes through a retpoline,
 * which enters its target by a ret, and callgrind would charge the whole
 * batch to the thunk.
 */
#define BATCHES(X) X(smask_setclear) X(smask_test) X(smask_walk) X(steal_walk) \
	X(idle_miss) X(idle_hit) X(idle_miss_numadist) X(idle_hit_numadist) \
	X(asym_full) X(asym_first) X(asym_fits) X(empty_setclear) X(empty_test) X(empty_fits)

static unsigned long call_direct(const struct op *op, bool rust, struct bench *b)
{
#define DIRECT(fn) if (op->c == c_##fn) return rust ? rust_##fn(b) : c_##fn(b);
	BATCHES(DIRECT)
#undef DIRECT
	fprintf(stderr, "bench: %s is missing from BATCHES\n", op->name);
	exit(2);
}

/* ---- set-up ---- */

static unsigned int rnd_state = 42;

static unsigned int rnd(void)
{
	/* xorshift32: a fixed sequence, the same on every run */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* The asym fit's machines: which CPUs are idle, and which cores. */
enum asym_bench_layout {
	ASYM_BUSY_SIBLING,	/* one busy thread per core, alternating */
	ASYM_ALL_IDLE,
	ASYM_FOURTH_CORE_BUSY,	/* idle CPUs, every fourth core not idle */
};

static void asym_bench_machine(struct asym_bench_machine *am, int nr_cpus,
			       enum asym_bench_layout layout)
{
	struct asym_machine_cpu *c;
	int cpu, i;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		c = &am->cpus[cpu];
		c->view.capacity_orig = cpu < nr_cpus / 2 ? 512 : SCHED_CAPACITY_SCALE;
		c->view.capacity = c->view.capacity_orig - 8 * (cpu % 7);
		c->view.actual_capacity = c->view.capacity_orig - 16 * (cpu % 3);
		c->idle = layout != ASYM_BUSY_SIBLING || cpu % 2 != (cpu / 2) % 2;
	}
	/* is_core_idle() of SMT2 cores: the sibling of CPU n is n ^ 1 */
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		int sibling = cpu ^ 1;

		am->cpus[cpu].view.core_idle = layout == ASYM_FOURTH_CORE_BUSY ?
					       (cpu / 2) % 4 != 3 :
					       sibling >= nr_cpus || am->cpus[sibling].idle;
	}
	for (i = 0; i < ARRAY_SIZE(am->chunks); i++)
		am->chunks[i] = asym_machine_chunk(am->cpus, i);
	am->m = (struct asym_machine) {
		.chunks = am->chunks, .nr_cpus = nr_cpus, .smt_active = true,
	};
}

static void bench_init(struct bench *b, const struct topology *t)
{
	int cpu, n, to, set = 0;

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->cpus = t->cpus;
	/* The cpumask operations' width, as in a kernel of this many CPUs. */
	nr_cpu_ids = t->cpus;
	/* As many overloaded CPUs as the kernel benchmark's 12 of 256, at least 2. */
	b->overloaded = max(2, t->cpus * (t->overload_per256 ?: 12) / 256);
	b->mask = sparsemask_alloc_node(t->cpus, SMASK_DENSITY_DEFAULT, GFP_KERNEL, NUMA_NO_NODE);
	b->scratch = sparsemask_alloc_node(t->cpus, SMASK_DENSITY_DEFAULT, GFP_KERNEL,
					   NUMA_NO_NODE);
	if (!b->mask || !b->scratch)
		exit(1);
	rnd_state = 42;
	while (set < b->overloaded) {
		int e = rnd() % t->cpus;

		if (!sparsemask_test_elem(b->mask, e)) {
			sparsemask_set_elem(b->mask, e);
			set++;
		}
	}

	for (cpu = 0; cpu < t->cpus; cpu++) {
		__set_bit(cpu, b->smt[cpu]);
		__set_bit(sibling_of(t, cpu), b->smt[cpu]);
		b->sibling_ptrs[cpu] = b->smt[cpu];
		b->cpu_node[cpu] = node_of(t, cpu);
	}
	for (n = 0; n < t->nodes; n++) {
		int seen = 0;

		/* The fourth CPU of the node, as the kernel's far + 3. */
		for (cpu = 0; cpu < t->cpus && seen < 4; cpu++)
			if (b->cpu_node[cpu] == n && ++seen)
				b->hit_cpu[n] = cpu;
		b->nodes[n].cpu = b->cpu[n];
		b->nodes[n].smt = b->smtm[n];
		for (to = 0; to < t->nodes; to++)
			b->distance[n * t->nodes + to] = 10 + 10 * abs(n - to);
	}
	for (n = 0; n < t->nodes; n++)
		node_set(n, b->online);
	bitmap_fill(b->allowed, t->cpus);
	b->order = calloc(1, sizeof(*b->order) + t->nodes * t->nodes * sizeof(b->order->order[0]));
	if (!b->order || !sched_rust_idle_build_node_order(b->distance, t->nodes, b->order->order))
		exit(1);
	b->mach = (struct scx_idle_machine) {
		.topo = {
			.nr_cpus = t->cpus, .nr_nodes = t->nodes,
			.global = { b->cpu[MAX_NODES], b->smtm[MAX_NODES] },
			.nodes = b->nodes, .online_nodes = nodes_addr(b->online),
			.node_order = &b->order,
		},
		.smt_siblings = b->sibling_ptrs, .cpu_node = b->cpu_node,
		.distance = b->distance,
		/* < nr_cpus always: the rotation passes prev + 1 unclamped */
		.cursor = &b->cursor,
	};
	b->machine = (struct idle_machine) { .mach = &b->mach, .state = IDLE_STATE };

	asym_bench_machine(&b->asym_busy, t->cpus, ASYM_BUSY_SIBLING);
	asym_bench_machine(&b->asym_all, t->cpus, ASYM_ALL_IDLE);
	asym_bench_machine(&b->asym_fits, t->cpus, ASYM_FOURTH_CORE_BUSY);
	bitmap_fill(b->asym_cpus, t->cpus);
}

/* ---- timing ---- */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double time_batches(unsigned long (*fn)(struct bench *), struct bench *b, long reps,
			   unsigned long *sink)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < reps; i++)
		*sink += fn(b);
	return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void json_str(const char *key, const char *val)
{
	printf("\"%s\":\"", key);
	for (; *val; val++)
		printf(*val == '"' || *val == '\\' ? "\\%c" : "%c", *val);
	printf("\",");
}

#define MIN_BATCH_NS	200000.0	/* 200 us: clock resolution is ~20-50 ns */

static void time_op(struct bench *b, const struct op *op, int rounds)
{
	double *ratio = calloc(rounds, sizeof(double));
	double *c_ns = calloc(rounds, sizeof(double));
	double *r_ns = calloc(rounds, sizeof(double));
	unsigned long c_sink = 0, r_sink = 0, c_check = 0, r_check = 0;
	long reps = 1, nops;
	double z = 1.959964, lo_rank, hi_rank;
	int r, lo, hi;

	/* Same answers on both sides, or the comparison is void. */
	c_check = op->c(b);
	r_check = op->rust(b);

	/* Warm up, and size the batch so that each timing is >= MIN_BATCH_NS. */
	while (time_batches(op->c, b, reps, &c_sink) < MIN_BATCH_NS)
		reps *= 2;
	time_batches(op->rust, b, reps, &r_sink);
	nops = reps * op->ops(b);

	for (r = 0; r < rounds; r++) {
		double tc, tr;

		if (r & 1) {
			tr = time_batches(op->rust, b, reps, &r_sink);
			tc = time_batches(op->c, b, reps, &c_sink);
		} else {
			tc = time_batches(op->c, b, reps, &c_sink);
			tr = time_batches(op->rust, b, reps, &r_sink);
		}
		ratio[r] = tr / tc;
		c_ns[r] = tc / nops;
		r_ns[r] = tr / nops;
	}
	qsort(ratio, rounds, sizeof(double), cmp_double);
	qsort(c_ns, rounds, sizeof(double), cmp_double);
	qsort(r_ns, rounds, sizeof(double), cmp_double);

	/*
	 * Distribution-free 95% interval of the median: the order statistics
	 * of ranks n/2 -+ 1.96 sqrt(n)/2 (normal approximation of the
	 * binomial), 1-based, rounded outwards.
	 */
	lo_rank = floor(rounds / 2.0 - z * sqrt(rounds) / 2.0);
	hi_rank = ceil(rounds / 2.0 + 1 + z * sqrt(rounds) / 2.0);
	lo = (int)max(lo_rank, 1.0) - 1;
	hi = (int)min(hi_rank, (double)rounds) - 1;

	printf("{");
	json_str("topology", b->t->name);
	json_str("helper", op->helper);
	json_str("op", op->name);
	json_str("unit", op->unit);
	printf("\"cpus\":%d,\"nodes\":%d,\"overloaded\":%d,", b->cpus, b->t->nodes, b->overloaded);
	printf("\"c_ns\":%.4f,\"rust_ns\":%.4f,\"ratio\":%.4f,\"ci_lo\":%.4f,\"ci_hi\":%.4f,",
	       c_ns[rounds / 2], r_ns[rounds / 2], ratio[rounds / 2], ratio[lo], ratio[hi]);
	printf("\"ratio_min\":%.4f,\"ratio_max\":%.4f,\"rounds\":%d,\"ops_per_round\":%ld,",
	       ratio[0], ratio[rounds - 1], rounds, nops);
	printf("\"same_results\":%s}\n", c_check == r_check ? "true" : "false");
	fflush(stdout);
	free(ratio);
	free(c_ns);
	free(r_ns);
}

/*
 * Scaling (bench scale ROUNDS): machines of 8 to 8192 CPUs in one LLC, in
 * QEMU's numbering, with 128 CPUs per node from 256 CPUs on (1 to 64
 * nodes); the walks also at 3 and 64 overloaded CPUs per 256 besides 12.
 * Only the operations whose cost grows with the machine run: the walks,
 * the idle pick with nothing idle (every node searched), and the capacity
 * scan reaching every CPU, the last up to 512 CPUs (its batch is a scan
 * from every CPU, quadratic in them).
 */
static const int scale_cpus[] = { 8, 32, 128, 256, 512, 1024, 2048, 4096, 8192 };
static const int scale_density[] = { 12, 3, 64 };

static bool scaled(const struct op *op, const struct topology *t)
{
	bool walk = op->c == c_smask_walk || op->c == c_steal_walk;

	if (t->overload_per256 != 12)
		return walk;
	if (op->c == c_asym_full)
		return t->cpus <= 512;
	return walk || op->c == c_idle_miss || op->c == c_idle_miss_numadist;
}

static void scale(struct bench *b, int rounds)
{
	static char names[ARRAY_SIZE(scale_cpus)][ARRAY_SIZE(scale_density)][48];
	struct topology t;
	size_t c, d, i;

	for (c = 0; c < ARRAY_SIZE(scale_cpus); c++) {
		for (d = 0; d < ARRAY_SIZE(scale_density); d++) {
			t.cpus = scale_cpus[c];
			t.nodes = max(1, t.cpus / 128);
			t.stride = 1;
			t.overload_per256 = scale_density[d];
			snprintf(names[c][d], sizeof(names[c][d]), "scale-%dcpu-%dnode-o%d",
				 t.cpus, t.nodes, t.overload_per256);
			t.name = names[c][d];
			bench_init(b, &t);
			for (i = 0; i < ARRAY_SIZE(ops); i++)
				if (scaled(&ops[i], &t))
					time_op(b, &ops[i], rounds);
		}
	}
}

/* The rounds of "time" and "scale": 5 or more, for the spread; else 0. */
static int rounds_arg(char **argv)
{
	int rounds = atoi(argv[2]);

	if (rounds >= 5)
		return rounds;
	fprintf(stderr, "%s: %s needs 5 rounds or more (for the spread), not %s\n",
		argv[0], argv[1], argv[2]);
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench bench;
	size_t t, i;
	int rounds;

	if (argc == 3 && !strcmp(argv[1], "time")) {
		rounds = rounds_arg(argv);
		if (!rounds)
			return 2;
		for (t = 0; t < ARRAY_SIZE(topologies); t++) {
			bench_init(&bench, &topologies[t]);
			for (i = 0; i < ARRAY_SIZE(ops); i++)
				time_op(&bench, &ops[i], rounds);
		}
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "scale")) {
		rounds = rounds_arg(argv);
		if (!rounds)
			return 2;
		scale(&bench, rounds);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "callgrind")) {
		unsigned long sink = 0;
		int k;

		t = atoi(argv[2]);
		if (t >= ARRAY_SIZE(topologies))
			return 2;
		bench_init(&bench, &topologies[t]);
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			for (k = 0; k < CG_CALLS; k++) {
				sink += call_direct(&ops[i], false, &bench);
				sink += call_direct(&ops[i], true, &bench);
			}
			printf("{\"topology\":\"%s\",\"op\":\"%s\",\"c_fn\":\"%s\",\"rust_fn\":\"%s\",\"calls\":%d,\"ops_per_call\":%ld}\n",
			       topologies[t].name, ops[i].name, ops[i].c_fn, ops[i].rust_fn,
			       CG_CALLS, ops[i].ops(&bench));
		}
		return sink == 42;	/* keep the results alive */
	}
	fprintf(stderr, "usage: %s time ROUNDS | scale ROUNDS | callgrind TOPOLOGY(0-%zu)\n", argv[0],
		ARRAY_SIZE(topologies) - 1);
	return 2;
}
