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
 *   bench hopmask ROUNDS   the idle pick's walk across nodes three ways
 *                          (cached node order, Linux 7.3's nodemask walk,
 *                          the scheduler's hop masks), one JSON line per
 *                          (topology, pick); checks first that the three
 *                          pick the same CPUs (see "the hop-mask walk")
 *   bench hopcheck         that check alone, and the two machines on which
 *                          the hop-mask walk picks differently
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
	 * the hop-mask walk (bench hopmask, hop_init()): cpumask_of_node()
	 * of each node; the scratch cpumask and nodemask the walk needs (the
	 * kernel's would be per-CPU, as idle.c's per_cpu_unvisited); an empty
	 * cpumask (cpu_none_mask)
	 */
	struct cpumask node_cpus[MAX_NODES];
	struct cpumask hop_new, no_cpus;
	nodemask_t hop_nodes;

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
 * Every candidate refuses. fair.c's steal_from() locks the candidate's run
 * queue and looks for a task: the kernel's C walk (try_steal(), inlined
 * into pick_task_fair()) calls it out of line at each candidate, and so
 * does the Rust walk, through sched_steal_from(), a jump to it. The same
 * here: a call per candidate from either walk, to a function that only
 * refuses, so that what is measured is the walk and its calls, not a
 * callback that only this benchmark could inline.
 */
static __noinline int steal_from(unsigned long *sum, int src_cpu)
{
	*sum += src_cpu;
	return STEAL_REFUSED;
}

/* Under fair.c's name: the Rust search calls it, as in the kernel. */
int sched_steal_from(void *arg, int src_cpu)
{
	return steal_from(arg, src_cpu);
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
 * ---- the hop-mask walk: the scheduler's NUMA hop masks instead of a node order ----
 *
 * What a reviewer of patch 0008 asked for instead of its table: walk the
 * cumulative hop cpumasks that the scheduler already builds and publishes
 * under RCU (sched_domains_numa_masks, kernel/sched/topology.c), with
 * for_each_numa_hop_mask() (include/linux/topology.h), and search in each
 * hop the nodes that are new in it, in node id order, each node's idle
 * masks as the other walks do. The nodes of a hop come from its CPUs: the
 * CPUs new in the hop (its mask minus the previous hop's) into a scratch
 * cpumask, then the node of the first of them, that node's CPUs
 * (cpumask_of_node()) taken out, until none is left, each node set in a
 * scratch nodemask, which the walk then visits in id order: the tie-break
 * of for_each_node_numadist() (nearest_node_nodemask()'s strict "<" in id
 * order) between nodes at one distance. The cost is O(levels x
 * nr_cpu_ids/64 + N x nr_cpu_ids/64) per pick, with one out-of-line
 * sched_numa_hop_mask() call per hop.
 *
 * hop_init() builds the masks as sched_init_numa() does: the levels are
 * the distinct distances between the nodes that have CPUs, by
 * arch_sched_node_distance() (@hop_distance; the machine's node_distance()
 * unless an architecture modifies it, as x86 does on Granite Rapids in
 * SNC-3), masks[level][node] the CPUs of the nodes at most that far, and
 * only nodes with CPUs have masks (NULL otherwise).
 */
extern unsigned int nr_node_ids;
extern int sched_domains_numa_levels;
extern struct cpumask ***sched_domains_numa_masks;
const struct cpumask *sched_numa_hop_mask(unsigned int node, unsigned int hops);

#define MAX_ERRNO		4095
#define IS_ERR_OR_NULL(ptr)	(!(ptr) || (unsigned long)(ptr) >= (unsigned long)-MAX_ERRNO)

/* include/linux/topology.h, the same lines. */
#define for_each_numa_hop_mask(mask, node)				       \
	for (unsigned int __hops = 0;					       \
	     mask = (node != NUMA_NO_NODE || __hops) ?			       \
		     sched_numa_hop_mask(node, __hops) :		       \
		     cpu_online_mask,					       \
	     !IS_ERR_OR_NULL(mask);					       \
	     __hops++)
/* never taken: the walk starts at a node, not at NUMA_NO_NODE */
#define cpu_online_mask		((const struct cpumask *)NULL)

#define nodes_clear(dst)	memset((dst).bits, 0, sizeof((dst).bits))

static __always_inline unsigned int hop_cpumask_first(const struct cpumask *srcp)
{
	return find_first_bit(cpumask_bits(srcp), small_cpumask_bits);
}

/*
 * pick_idle_cpu_from_online_nodes() by hops: every online node but @node,
 * by increasing hop, the nodes of one hop in id order.
 */
static __always_inline s32 hopmask_pick_from(struct bench *b, const struct cpumask *cpus_allowed,
					     int node, u64 flags)
{
	const nodemask_t *online = idle_machine_online_nodes(&b->machine);
	const struct cpumask *mask, *prev = &b->no_cpus;
	struct cpumask *new = &b->hop_new;
	nodemask_t *hop_nodes = &b->hop_nodes;
	s32 cpu = -EBUSY;
	unsigned int c;
	int n;

	for_each_numa_hop_mask(mask, node) {
		/* the nodes whose CPUs are new in this hop */
		nodes_clear(*hop_nodes);
		cpumask_andnot(new, mask, prev);
		while ((c = hop_cpumask_first(new)) < nr_cpu_ids) {
			n = READ_ONCE(b->mach.cpu_node[c]);	/* cpu_to_node() */
			node_set(n, *hop_nodes);
			cpumask_andnot(new, new, &b->node_cpus[n]);
		}
		for_each_node_mask(n, *hop_nodes) {
			if (n == node || !node_isset(n, *online))
				continue;
			cpu = idle_machine_pick_in_node(&b->machine, cpus_allowed, n, flags);
			if (cpu >= 0)
				return cpu;
		}
		prev = mask;
	}
	return cpu;
}

/* scx_pick_idle_cpu() with the walk above. */
static __always_inline s32 hopmask_pick(struct bench *b, const unsigned long *allowed, int node,
					u64 flags)
{
	const struct cpumask *cpus_allowed = to_cpumask(allowed);
	s32 cpu;

	cpu = idle_machine_pick_in_node(&b->machine, cpus_allowed, node, flags);
	if (cpu >= 0 || node == NUMA_NO_NODE || flags & SCX_PICK_IDLE_IN_NODE)
		return cpu;
	return hopmask_pick_from(b, cpus_allowed, node, flags);
}

#undef cpu_online_mask

/*
 * The C pick is idle.c's own code on the machine, as the kernel benchmark's
 * (IDLE_C: the walk across nodes in the cached node order), or upstream's,
 * which finds the nearest unvisited node at each step (IDLE_NUMADIST,
 * idle_machine_pick_numadist()): the rows of the latter measure what the
 * cache saves. The Rust pick is the picker's export for a described
 * machine (sched_rust_idle_machine_pick()), on the same machine, whose
 * walk is idle.c's. Each batch starts from the same cursor, 0, which both
 * rotations read through the machine's cursor pointer (b->mach.cursor,
 * &b->cursor). IDLE_HOPMASK: the walk by the scheduler's hop masks above
 * (bench hopmask only).
 */
enum idle_walk { IDLE_C, IDLE_NUMADIST, IDLE_RUST, IDLE_HOPMASK };

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
			else if (walk == IDLE_HOPMASK)
				got = hopmask_pick(b, b->allowed, start, flags);
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
static __noinline unsigned long idle_hopmask(struct bench *b, bool hit) { return idle_batch(b, hit, IDLE_HOPMASK); }

static __noinline unsigned long c_idle_miss(struct bench *b) { return idle_c(b, false); }
static __noinline unsigned long rust_idle_miss(struct bench *b) { return idle_rust(b, false); }
static __noinline unsigned long c_idle_hit(struct bench *b) { return idle_c(b, true); }
static __noinline unsigned long rust_idle_hit(struct bench *b) { return idle_rust(b, true); }
/* The same Rust functions as above, against upstream's walk. */
static __noinline unsigned long c_idle_miss_numadist(struct bench *b) { return idle_numadist(b, false); }
static __noinline unsigned long rust_idle_miss_numadist(struct bench *b) { return idle_rust(b, false); }
static __noinline unsigned long c_idle_hit_numadist(struct bench *b) { return idle_numadist(b, true); }
static __noinline unsigned long rust_idle_hit_numadist(struct bench *b) { return idle_rust(b, true); }
/* The hop-mask walk (bench hopmask). */
static __noinline unsigned long hop_idle_miss(struct bench *b) { return idle_hopmask(b, false); }
static __noinline unsigned long hop_idle_hit(struct bench *b) { return idle_hopmask(b, true); }

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

/*
 * Distribution-free 95% interval of the median of @rounds sorted values:
 * the order statistics of ranks n/2 -+ 1.96 sqrt(n)/2 (normal approximation
 * of the binomial), 1-based, rounded outwards; 0-based in @lo and @hi.
 */
static void ci_ranks(int rounds, int *lo, int *hi)
{
	double z = 1.959964, lo_rank, hi_rank;

	lo_rank = floor(rounds / 2.0 - z * sqrt(rounds) / 2.0);
	hi_rank = ceil(rounds / 2.0 + 1 + z * sqrt(rounds) / 2.0);
	*lo = (int)max(lo_rank, 1.0) - 1;
	*hi = (int)min(hi_rank, (double)rounds) - 1;
}

static void time_op(struct bench *b, const struct op *op, int rounds)
{
	double *ratio = calloc(rounds, sizeof(double));
	double *c_ns = calloc(rounds, sizeof(double));
	double *r_ns = calloc(rounds, sizeof(double));
	unsigned long c_sink = 0, r_sink = 0, c_check = 0, r_check = 0;
	long reps = 1, nops;
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

	ci_ranks(rounds, &lo, &hi);

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

/*
 * ---- the hop-mask walk (bench hopmask, bench hopcheck): set-up, check, timing ----
 */

static void hop_free(void)
{
	struct cpumask ***masks = sched_domains_numa_masks;
	int i;
	unsigned int j;

	for (i = 0; masks && i < sched_domains_numa_levels; i++) {
		for (j = 0; j < nr_node_ids; j++)
			free(masks[i][j]);
		free(masks[i]);
	}
	free(masks);
	sched_domains_numa_masks = NULL;
	sched_domains_numa_levels = 0;
}

/*
 * sched_init_numa()'s hop masks for the machine of @b, by @hop_distance
 * (arch_sched_node_distance()), and cpumask_of_node() of its nodes.
 */
static void hop_init(struct bench *b, const unsigned int *hop_distance)
{
	unsigned int nodes = b->mach.topo.nr_nodes, i, j, k, w;
	bool has_cpus[MAX_NODES] = { false };
	DECLARE_BITMAP(seen, 256) = { 0 };	/* NR_DISTANCE_VALUES */
	int levels[256], nr_levels = 0, cpu;
	struct cpumask ***masks;
	unsigned long d;

	hop_free();
	memset(b->node_cpus, 0, sizeof(b->node_cpus));
	memset(&b->hop_new, 0, sizeof(b->hop_new));
	memset(&b->no_cpus, 0, sizeof(b->no_cpus));
	nodes_clear(b->hop_nodes);
	for (cpu = 0; cpu < b->cpus; cpu++) {
		__set_bit(cpu, cpumask_bits(&b->node_cpus[b->cpu_node[cpu]]));
		has_cpus[b->cpu_node[cpu]] = true;
	}
	/*
	 * sched_record_numa_dist(): the distinct distances, ascending; none
	 * (no hop masks, sched_numa_hop_mask() -EINVAL) if one is out of
	 * [LOCAL_DISTANCE, NR_DISTANCE_VALUES).
	 */
	for (i = 0; i < nodes; i++) {
		for (j = 0; j < nodes; j++) {
			if (!has_cpus[i] || !has_cpus[j])
				continue;
			if (hop_distance[i * nodes + j] < 10 || hop_distance[i * nodes + j] >= 256)
				return;
			__set_bit(hop_distance[i * nodes + j], seen);
		}
	}
	for_each_set_bit(d, seen, 256)
		levels[nr_levels++] = d;

	masks = calloc(nr_levels, sizeof(*masks));
	for (i = 0; masks && i < nr_levels; i++) {
		masks[i] = calloc(nodes, sizeof(*masks[i]));
		for (j = 0; masks[i] && j < nodes; j++) {
			if (!has_cpus[j])	/* for_each_cpu_node_but() */
				continue;
			masks[i][j] = calloc(1, sizeof(struct cpumask));
			if (!masks[i][j])
				exit(1);
			for (k = 0; k < nodes; k++) {
				if (!has_cpus[k] || hop_distance[j * nodes + k] > levels[i])
					continue;
				for (w = 0; w < BITS_TO_LONGS(b->cpus); w++)
					cpumask_bits(masks[i][j])[w] |= cpumask_bits(&b->node_cpus[k])[w];
			}
		}
		if (!masks[i])
			exit(1);
	}
	if (!masks)
		exit(1);
	nr_node_ids = nodes;
	sched_domains_numa_masks = masks;
	sched_domains_numa_levels = nr_levels;
}

/* New distances for the machine of @b: its node order again. */
static void bench_set_distances(struct bench *b, const unsigned int *distance)
{
	unsigned int nodes = b->mach.topo.nr_nodes;

	memcpy(b->distance, distance, nodes * nodes * sizeof(*distance));
	if (!sched_rust_idle_build_node_order(b->distance, nodes, b->order->order))
		exit(1);
}

/*
 * The machines of bench hopmask: the replica's at 2 and 32 nodes, and 4
 * and 8 nodes numbered as the 2-node one is (x86: the second threads after
 * all the first ones, so that no node's CPUs are contiguous), all with the
 * replica's distances, 10 + 10 x |i - j| (as many levels as nodes: the
 * most hops); and the 32 nodes with three levels (@group: 10 local, 20
 * within groups of that many nodes, 30 across).
 *
 * At 32 nodes the replica's distances reach 320, which no kernel takes:
 * ACPI's SLIT has a byte per distance, and sched_record_numa_dist() refuses
 * 256 or more (NR_DISTANCE_VALUES), leaving no hop masks at all (nor NUMA
 * sched domains). The 32-node machine here has 10 + 7 x |i - j| (up to
 * 227): the same order of nodes from each node, ties included, so the same
 * walks for the cached order and the nodemask walk.
 */
struct hop_topology {
	struct topology t;
	int group;
};

static const struct hop_topology hop_topologies[] = {
	{ { "224cpu-2node-smt2", 224, 2, 112 } },
	{ { "256cpu-4node-smt2", 256, 4, 128 } },
	{ { "256cpu-8node-smt2", 256, 8, 128 } },
	{ { "256cpu-32node-smt2", 256, 32, 1 } },
	{ { "256cpu-32node-3level", 256, 32, 1 }, 4 },
};

static void hop_bench_init(struct bench *b, const struct hop_topology *ht)
{
	static unsigned int distance[MAX_NODES * MAX_NODES];
	int n, to, nodes = ht->t.nodes;

	bench_init(b, &ht->t);
	for (n = 0; n < nodes; n++) {
		for (to = 0; to < nodes; to++) {
			if (ht->group)
				distance[n * nodes + to] = n == to ? 10 :
					n / ht->group == to / ht->group ? 20 : 30;
			else	/* the replica's, in steps that stay below 256 */
				distance[n * nodes + to] = 10 + min(10, 245 / max(nodes - 1, 1)) *
							       abs(n - to);
		}
	}
	bench_set_distances(b, distance);
	hop_init(b, b->distance);
}

/* The state the picks change: the idle masks and the rotation cursor. */
struct hop_state {
	unsigned long cpu[MAX_NODES + 1][WORDS], smt[MAX_NODES + 1][WORDS];
	unsigned int cursor;
};

static void hop_save(const struct bench *b, struct hop_state *s)
{
	memcpy(s->cpu, b->cpu, sizeof(s->cpu));
	memcpy(s->smt, b->smtm, sizeof(s->smt));
	s->cursor = b->cursor;
}

static void hop_restore(struct bench *b, const struct hop_state *s)
{
	memcpy(b->cpu, s->cpu, sizeof(s->cpu));
	memcpy(b->smtm, s->smt, sizeof(s->smt));
	b->cursor = s->cursor;
}

static bool hop_same(const struct hop_state *x, const struct hop_state *y)
{
	return x->cursor == y->cursor && !memcmp(x->cpu, y->cpu, sizeof(x->cpu)) &&
	       !memcmp(x->smt, y->smt, sizeof(x->smt));
}

enum { HOP_CACHED, HOP_NUMADIST, HOP_HOPMASK, HOP_WALKS };
static const char *const hop_walk_names[HOP_WALKS] = { "cached order", "numadist", "hop masks" };

/* One pick from @node, each walk on the same state; false if they differ. */
static bool hop_compare(struct bench *b, int node, u64 flags, s32 got[HOP_WALKS])
{
	static struct hop_state before, after[HOP_WALKS];
	int w;

	hop_save(b, &before);
	for (w = 0; w < HOP_WALKS; w++) {
		hop_restore(b, &before);
		if (w == HOP_CACHED)
			got[w] = idle_machine_pick(&b->machine, b->allowed, node, flags);
		else if (w == HOP_NUMADIST)
			got[w] = idle_machine_pick_numadist(&b->machine, b->allowed, node, flags);
		else
			got[w] = hopmask_pick(b, b->allowed, node, flags);
		hop_save(b, &after[w]);
	}
	hop_restore(b, &before);
	for (w = 1; w < HOP_WALKS; w++)
		if (got[w] != got[0] || !hop_same(&after[w], &after[0]))
			return false;
	return true;
}

/*
 * Random states of the machine of @b: half the nodes wholly busy, one CPU
 * in 8 idle on the others (the idle SMT masks: the CPUs of wholly idle
 * cores), one node in 8 offline, the allowed CPUs all or a random half, a
 * random cursor, start node and SCX_PICK_IDLE_CORE or not. Returns the
 * picks where the three walks differ (the first few printed on stderr); the
 * other counts in @far (picks on another node) and @none (-EBUSY).
 */
static long hop_check_random(struct bench *b, int trials, long *far, long *none)
{
	unsigned int nodes = b->mach.topo.nr_nodes;
	bool busy[MAX_NODES];
	long differ = 0;
	int t, cpu, n, w;

	rnd_state = 4242;
	*far = *none = 0;
	for (t = 0; t < trials; t++) {
		s32 got[HOP_WALKS];
		u64 flags;
		int start;

		memset(b->cpu, 0, sizeof(b->cpu));
		memset(b->smtm, 0, sizeof(b->smtm));
		for (n = 0; n < nodes; n++)
			busy[n] = rnd() % 2;
		for (cpu = 0; cpu < b->cpus; cpu++)
			if (!busy[b->cpu_node[cpu]] && rnd() % 8 == 0)
				__set_bit(cpu, b->cpu[b->cpu_node[cpu]]);
		for (cpu = 0; cpu < b->cpus; cpu++) {
			const unsigned long *idle = b->cpu[b->cpu_node[cpu]];
			int sib = sibling_of(b->t, cpu);

			if (test_bit(cpu, idle) && test_bit(sib, b->cpu[b->cpu_node[sib]]))
				__set_bit(cpu, b->smtm[b->cpu_node[cpu]]);
		}
		for (n = 0; n < nodes; n++) {
			if (rnd() % 8)
				node_set(n, b->online);
			else
				node_clear(n, b->online);
		}
		if (rnd() % 4) {
			bitmap_fill(b->allowed, b->cpus);
		} else {
			memset(b->allowed, 0, sizeof(b->allowed));
			for (cpu = 0; cpu < b->cpus; cpu++)
				if (rnd() % 2)
					__set_bit(cpu, b->allowed);
		}
		b->cursor = rnd() % b->cpus;
		start = rnd() % nodes;
		flags = rnd() % 4 ? 0 : SCX_PICK_IDLE_CORE;

		if (!hop_compare(b, start, flags, got)) {
			if (differ++ < 5) {
				fprintf(stderr, "%s: start node %d, flags %llu:", b->t->name, start,
					(unsigned long long)flags);
				for (w = 0; w < HOP_WALKS; w++)
					fprintf(stderr, " %s %d", hop_walk_names[w], got[w]);
				fputc('\n', stderr);
			}
		} else if (got[0] < 0) {
			(*none)++;
		} else if (b->cpu_node[got[0]] != start) {
			(*far)++;
		}
	}
	return differ;
}

/*
 * Where the hop-mask walk picks another CPU than Linux 7.3's walk (and the
 * cached order, which is 7.3's order), on the same state; true if it does,
 * as the sched_ext and topology code of 7.3 say it would.
 *
 * 1. Dual-socket Granite Rapids in SNC-3, the SLIT of the comment above
 *    slit_cluster_distance() (arch/x86/kernel/smpboot.c): the scheduler's
 *    hop masks follow arch_sched_node_distance(), which averages the
 *    off-socket distances to 24, node_distance() does not. From node 0,
 *    7.3 walks 1 (15), 2 (17), 3 (21), 5 (26), 4 (28); the hop masks give
 *    1, 2, then 3, 4, 5 together (24). Nodes 1-3 busy, one idle CPU on
 *    node 4 and one on node 5: 7.3 picks node 5's, the hop walk node 4's.
 *    Two CPUs (one SMT core) per node.
 * 2. A node without CPUs (memory only, as a CXL memory expander's):
 *    sched_init_numa() gives it no hop masks (masks[i][node] NULL), so
 *    sched_numa_hop_mask() returns NULL at hop 0 and the walk ends at once;
 *    scx_bpf_pick_idle_cpu_node() accepts any possible node
 *    (validate_node()), and 7.3 walks every online node from it by
 *    distance. One idle CPU on node 0: 7.3 picks it, the hop walk -EBUSY.
 */
static bool hop_counterexamples(struct bench *b)
{
	static const unsigned int gnr_slit[36] = {
		10, 15, 17, 21, 28, 26,
		15, 10, 15, 23, 26, 23,
		17, 15, 10, 26, 23, 21,
		21, 28, 26, 10, 15, 17,
		23, 26, 23, 15, 10, 15,
		26, 23, 21, 17, 15, 10,
	};
	static const unsigned int cxl_slit[9] = {
		10, 21, 14,
		21, 10, 24,
		14, 24, 10,
	};
	static const struct topology gnr = { "12cpu-6node-gnr-snc3", 12, 6, 1 };
	static const struct topology cxl = { "6cpu-3node-cpuless", 6, 3, 1 };
	unsigned int arch[36];
	int i, j, x, y, u = 3, w;
	bool all = true, differs;
	s32 got[HOP_WALKS];

	/* slit_cluster_distance(): off-package clusters averaged, both ways */
	for (i = 0; i < 6; i++) {
		for (j = 0; j < 6; j++) {
			long d = 0;

			if (i / u == j / u) {
				arch[i * 6 + j] = gnr_slit[i * 6 + j];
				continue;
			}
			for (x = i - i % u; x < i - i % u + u; x++)
				for (y = j - j % u; y < j - j % u + u; y++)
					d += gnr_slit[x * 6 + y] + gnr_slit[y * 6 + x];
			arch[i * 6 + j] = d / (2 * u * u);
		}
	}
	bench_init(b, &gnr);
	bench_set_distances(b, gnr_slit);
	hop_init(b, arch);
	__set_bit(8, b->cpu[4]);	/* node 4: CPUs 8-9 */
	__set_bit(10, b->cpu[5]);	/* node 5: CPUs 10-11 */
	differs = !hop_compare(b, 0, 0, got);
	printf("%s, from node 0, idle CPUs 8 (node 4, distance 28) and 10 (node 5, distance 26), %d hop levels:",
	       gnr.name, sched_domains_numa_levels);
	for (w = 0; w < HOP_WALKS; w++)
		printf(" %s %d", hop_walk_names[w], got[w]);
	printf("%s\n", differs ? "" : " (expected to differ)");
	all &= differs && got[HOP_CACHED] == 10 && got[HOP_NUMADIST] == 10 && got[HOP_HOPMASK] == 8;

	bench_init(b, &cxl);
	b->cpu_node[4] = b->cpu_node[5] = 1;	/* node 2: no CPUs */
	bench_set_distances(b, cxl_slit);
	hop_init(b, b->distance);
	__set_bit(1, b->cpu[0]);
	differs = !hop_compare(b, 2, 0, got);
	printf("%s, from node 2 (no CPUs), idle CPU 1 (node 0):", cxl.name);
	for (w = 0; w < HOP_WALKS; w++)
		printf(" %s %d", hop_walk_names[w], got[w]);
	printf("%s\n", differs ? "" : " (expected to differ)");
	all &= differs && got[HOP_CACHED] == 1 && got[HOP_NUMADIST] == 1 && got[HOP_HOPMASK] == -EBUSY;
	return all;
}

#define HOP_CHECK_TRIALS	2000

/*
 * The three walks on one machine, a batch of each per round in rotating
 * order: the median ns per pick of each, and the per-round ratios of the
 * nodemask walk and of the hop-mask walk to the cached order, with their
 * 95% intervals. The three batches must give the same picks (their sums),
 * or the run stops.
 */
static void hop_time(struct bench *b, const char *pick,
		     unsigned long (*const fn[HOP_WALKS])(struct bench *b), int rounds)
{
	double *ns[HOP_WALKS], *ratio[HOP_WALKS];
	unsigned long sink = 0, check[HOP_WALKS];
	long reps = 1, nops;
	int r, w, k, lo, hi;

	for (w = 0; w < HOP_WALKS; w++) {
		ns[w] = calloc(rounds, sizeof(double));
		ratio[w] = calloc(rounds, sizeof(double));
		check[w] = fn[w](b);
	}
	if (check[HOP_NUMADIST] != check[HOP_CACHED] || check[HOP_HOPMASK] != check[HOP_CACHED]) {
		fprintf(stderr, "%s pick %s: the walks' picks differ (sums %lu %lu %lu)\n",
			b->t->name, pick, check[0], check[1], check[2]);
		exit(1);
	}

	while (time_batches(fn[HOP_CACHED], b, reps, &sink) < MIN_BATCH_NS)
		reps *= 2;
	for (w = 1; w < HOP_WALKS; w++)
		time_batches(fn[w], b, reps, &sink);
	nops = reps * ops_picks(b);

	for (r = 0; r < rounds; r++) {
		double t[HOP_WALKS];

		for (k = 0; k < HOP_WALKS; k++) {
			w = (r + k) % HOP_WALKS;
			t[w] = time_batches(fn[w], b, reps, &sink);
		}
		for (w = 0; w < HOP_WALKS; w++) {
			ns[w][r] = t[w] / nops;
			ratio[w][r] = t[w] / t[HOP_CACHED];
		}
	}
	for (w = 0; w < HOP_WALKS; w++) {
		qsort(ns[w], rounds, sizeof(double), cmp_double);
		qsort(ratio[w], rounds, sizeof(double), cmp_double);
	}
	ci_ranks(rounds, &lo, &hi);

	printf("{");
	json_str("topology", b->t->name);
	json_str("pick", pick);
	printf("\"cpus\":%d,\"nodes\":%d,\"hop_levels\":%d,", b->cpus, b->t->nodes,
	       sched_domains_numa_levels);
	printf("\"cached_ns\":%.4f,\"numadist_ns\":%.4f,\"hopmask_ns\":%.4f,",
	       ns[HOP_CACHED][rounds / 2], ns[HOP_NUMADIST][rounds / 2],
	       ns[HOP_HOPMASK][rounds / 2]);
	printf("\"numadist_ratio\":%.4f,\"numadist_ci_lo\":%.4f,\"numadist_ci_hi\":%.4f,",
	       ratio[HOP_NUMADIST][rounds / 2], ratio[HOP_NUMADIST][lo], ratio[HOP_NUMADIST][hi]);
	printf("\"hopmask_ratio\":%.4f,\"hopmask_ci_lo\":%.4f,\"hopmask_ci_hi\":%.4f,",
	       ratio[HOP_HOPMASK][rounds / 2], ratio[HOP_HOPMASK][lo], ratio[HOP_HOPMASK][hi]);
	printf("\"rounds\":%d,\"ops_per_round\":%ld,\"same_results\":true}\n", rounds, nops);
	fflush(stdout);
	for (w = 0; w < HOP_WALKS; w++) {
		free(ns[w]);
		free(ratio[w]);
	}
}

static unsigned long (*const hop_miss[HOP_WALKS])(struct bench *b) = {
	c_idle_miss, c_idle_miss_numadist, hop_idle_miss,
};
static unsigned long (*const hop_hit[HOP_WALKS])(struct bench *b) = {
	c_idle_hit, c_idle_hit_numadist, hop_idle_hit,
};

/* The random check on every machine of hop_topologies[]: false if any differs. */
static bool hop_check_all(struct bench *b, int trials, bool verbose)
{
	long differ, far, none;
	bool ok = true;
	size_t t;

	for (t = 0; t < ARRAY_SIZE(hop_topologies); t++) {
		hop_bench_init(b, &hop_topologies[t]);
		differ = hop_check_random(b, trials, &far, &none);
		if (verbose || differ)
			printf("%s: %d random picks, %ld on another node, %ld none, %ld differ\n",
			       hop_topologies[t].t.name, trials, far, none, differ);
		ok &= !differ;
	}
	return ok;
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
	if (argc == 3 && !strcmp(argv[1], "hopmask")) {
		rounds = rounds_arg(argv);
		if (!rounds)
			return 2;
		/* Same picks first, on random states, or no timing. */
		if (!hop_check_all(&bench, HOP_CHECK_TRIALS, false))
			return 1;
		for (t = 0; t < ARRAY_SIZE(hop_topologies); t++) {
			hop_bench_init(&bench, &hop_topologies[t]);
			hop_time(&bench, "miss", hop_miss, rounds);
			hop_time(&bench, "hit", hop_hit, rounds);
		}
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "hopcheck")) {
		bool same = hop_check_all(&bench, 10 * HOP_CHECK_TRIALS, true);
		bool differ = hop_counterexamples(&bench);

		return same && differ ? 0 : 1;
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
	fprintf(stderr, "usage: %s time ROUNDS | scale ROUNDS | callgrind TOPOLOGY(0-%zu) | hopmask ROUNDS | hopcheck\n",
		argv[0], ARRAY_SIZE(topologies) - 1);
	return 2;
}
