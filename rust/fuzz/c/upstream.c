// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of the fuzz targets: the scheduler's own C code, compiled in
 * userspace over the shims of the userspace benchmark (bench/userspace/
 * include, 7.2's x86-64 bitops and find_bit), behind plain functions the
 * Rust fuzz targets call (c/upstream.rs):
 *
 *  - the idle picker: idle.c's scx_idle_test_and_clear_cpu(),
 *    pick_idle_cpu_in_node() and scx_pick_idle_cpu(), the bodies of
 *    kernel/sched/ext/idle_pick.h, with a table of accessors over a
 *    described machine, as the KUnit suite runs them;
 *  - the capacity fit: fair.c's util_fits_cpu(), asym_fits_cpu() and
 *    select_idle_capacity(), the bodies of kernel/sched/asym_fit.h, with
 *    select_idle_capacity()'s SIS_UTIL budget as fair.c computes it;
 *  - the sparsemask and the steal walk of the steal series
 *    (kernel/sched/sparsemask.h, steal_search.h).
 *
 * Only input within the C functions' contracts comes here; the fuzz
 * targets check the rest against their models alone.
 */
#include <stdlib.h>
#include <string.h>

#include "asym_fit.h"
#include "ext/idle_pick.h"
#include "sparsemask.h"
#include "steal_search.h"

#define ORACLE_WORDS	BITS_TO_LONGS(NR_CPUS)

/* ---- sched_ext idle pick ---- */

/* A machine: its topology, its idle masks, and the state of the system. */
struct c_idle {
	unsigned int nr_cpus, nr_nodes, state, cursor;
	int cpu_node[NR_CPUS];
	unsigned long siblings[NR_CPUS][ORACLE_WORDS];
	unsigned int *distance;
	nodemask_t online, unvisited;
	/* [nr_nodes + 1]: the last set is the global one (NUMA_NO_NODE) */
	unsigned long (*cpu)[ORACLE_WORDS];
	unsigned long (*smt)[ORACLE_WORDS];
};

#define C_IDLE_SMT_ACTIVE	(1U << 0)	/* STATE_SMT_ACTIVE of the Rust core */
#define C_IDLE_PER_NODE		(1U << 1)	/* STATE_PER_NODE */

static struct c_idle *c_idle(void *ctx)
{
	return ctx;
}

static unsigned int c_idle_set(const struct c_idle *m, int node)
{
	return node == NUMA_NO_NODE ? m->nr_nodes : (unsigned int)node;
}

static bool c_idle_smt_active(void *ctx)
{
	return c_idle(ctx)->state & C_IDLE_SMT_ACTIVE;
}

static unsigned int c_idle_nr_cpu_ids(void *ctx)
{
	return c_idle(ctx)->nr_cpus;
}

static int c_idle_cpu_node(void *ctx, int cpu)
{
	if (!(c_idle(ctx)->state & C_IDLE_PER_NODE))
		return NUMA_NO_NODE;
	return c_idle(ctx)->cpu_node[cpu];
}

static struct cpumask *c_idle_cpus(void *ctx, int node)
{
	return to_cpumask(c_idle(ctx)->cpu[c_idle_set(ctx, node)]);
}

static struct cpumask *c_idle_smts(void *ctx, int node)
{
	return to_cpumask(c_idle(ctx)->smt[c_idle_set(ctx, node)]);
}

static const struct cpumask *c_idle_smt_mask(void *ctx, int cpu)
{
	return to_cpumask(c_idle(ctx)->siblings[cpu]);
}

/* cpumask_any_and_distribute() from the machine's cursor, as Rust's. */
static unsigned int c_idle_any_and_distribute(void *ctx, const struct cpumask *src1p,
					      const struct cpumask *src2p)
{
	struct c_idle *m = ctx;
	unsigned int nr = m->nr_cpus, prev = m->cursor, next;

	next = find_next_and_bit_wrap(cpumask_bits(src1p), cpumask_bits(src2p), nr,
				      prev + 1 < nr ? prev + 1 : 0);
	if (next < nr)
		m->cursor = next;
	return next;
}

static const nodemask_t *c_idle_online_nodes(void *ctx)
{
	return &c_idle(ctx)->online;
}

/* nearest_node_nodemask() over the machine's distances. */
static int c_idle_nearest_node(void *ctx, int node, nodemask_t *mask)
{
	struct c_idle *m = ctx;
	unsigned int dist, min_dist = UINT_MAX;
	unsigned long n;
	int closest = MAX_NUMNODES;

	for_each_node_mask(n, *mask) {
		dist = m->distance[node * m->nr_nodes + n];
		if (dist < min_dist) {
			min_dist = dist;
			closest = n;
		}
	}
	return closest;
}

static nodemask_t *c_idle_unvisited(void *ctx)
{
	return &c_idle(ctx)->unvisited;
}

static bool c_idle_test_and_clear_cpu(void *ctx, int cpu);
static s32 c_idle_pick_in_node(void *ctx, const struct cpumask *cpus_allowed, int node,
			       u64 flags);

static const struct scx_idle_pick_ops c_idle_ops = {
	.smt_active		= c_idle_smt_active,
	.nr_cpu_ids		= c_idle_nr_cpu_ids,
	.cpu_node		= c_idle_cpu_node,
	.idle_cpus		= c_idle_cpus,
	.idle_smts		= c_idle_smts,
	.smt_mask		= c_idle_smt_mask,
	.any_and_distribute	= c_idle_any_and_distribute,
	.online_nodes		= c_idle_online_nodes,
	.nearest_node		= c_idle_nearest_node,
	.unvisited		= c_idle_unvisited,
	.test_and_clear_cpu	= c_idle_test_and_clear_cpu,
	.pick_in_node		= c_idle_pick_in_node,
};

static bool c_idle_test_and_clear_cpu(void *ctx, int cpu)
{
	return __scx_idle_test_and_clear_cpu(&c_idle_ops, ctx, cpu);
}

static s32 c_idle_pick_in_node(void *ctx, const struct cpumask *cpus_allowed, int node,
			       u64 flags)
{
	return __pick_idle_cpu_in_node(&c_idle_ops, ctx, cpus_allowed, node, flags);
}

static void bools_to_bits(unsigned long *bits, const bool *b, unsigned int n)
{
	unsigned int i;

	memset(bits, 0, ORACLE_WORDS * sizeof(long));
	for (i = 0; i < n; i++)
		if (b[i])
			__set_bit(i, bits);
}

/*
 * A machine of @nr_cpus CPUs (at most NR_CPUS) in @nr_nodes nodes (at most
 * MAX_NUMNODES): @cpu_node[cpu], @siblings[cpu * nr_cpus + other],
 * @distance[from * nr_nodes + to], @online[node], and the idle masks
 * @cpu and @smt, [(nr_nodes + 1) * nr_cpus], the global set last. NULL if
 * it does not fit.
 */
struct c_idle *c_idle_new(unsigned int nr_cpus, unsigned int nr_nodes,
			  const unsigned int *cpu_node, const bool *siblings,
			  const unsigned int *distance, const bool *online,
			  const bool *cpu, const bool *smt)
{
	struct c_idle *m;
	unsigned int i;

	if (!nr_cpus || nr_cpus > NR_CPUS || !nr_nodes || nr_nodes > MAX_NUMNODES)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cpu = calloc(nr_nodes + 1, sizeof(*m->cpu));
	m->smt = calloc(nr_nodes + 1, sizeof(*m->smt));
	m->distance = calloc(nr_nodes * nr_nodes, sizeof(*m->distance));
	if (!m->cpu || !m->smt || !m->distance) {
		free(m->cpu);
		free(m->smt);
		free(m->distance);
		free(m);
		return NULL;
	}
	m->nr_cpus = nr_cpus;
	m->nr_nodes = nr_nodes;
	for (i = 0; i < nr_cpus; i++) {
		m->cpu_node[i] = cpu_node[i];
		bools_to_bits(m->siblings[i], &siblings[i * nr_cpus], nr_cpus);
	}
	memcpy(m->distance, distance, nr_nodes * nr_nodes * sizeof(*distance));
	for (i = 0; i < nr_nodes; i++)
		if (online[i])
			node_set(i, m->online);
	for (i = 0; i <= nr_nodes; i++) {
		bools_to_bits(m->cpu[i], &cpu[i * nr_cpus], nr_cpus);
		bools_to_bits(m->smt[i], &smt[i * nr_cpus], nr_cpus);
	}
	return m;
}

void c_idle_free(struct c_idle *m)
{
	if (m) {
		free(m->cpu);
		free(m->smt);
		free(m->distance);
		free(m);
	}
}

/* scx_idle_test_and_clear_cpu(); @cpu below nr_cpus. */
bool c_idle_claim(struct c_idle *m, int cpu, unsigned int state)
{
	m->state = state;
	return __scx_idle_test_and_clear_cpu(&c_idle_ops, m, cpu);
}

/*
 * scx_pick_idle_cpu(), or pick_idle_cpu_in_node() with @in_node, from
 * @node (NUMA_NO_NODE with the global masks) with @allowed[nr_cpus].
 */
int c_idle_pick(struct c_idle *m, const bool *allowed, int node, u64 flags,
		unsigned int state, bool in_node)
{
	unsigned long bits[ORACLE_WORDS];

	bools_to_bits(bits, allowed, m->nr_cpus);
	m->state = state;
	if (in_node)
		return __pick_idle_cpu_in_node(&c_idle_ops, m, to_cpumask(bits), node, flags);
	return __scx_pick_idle_cpu(&c_idle_ops, m, to_cpumask(bits), node, flags);
}

unsigned int c_idle_cursor(const struct c_idle *m)
{
	return m->cursor;
}

/* Bit @cpu of the cpu (or, with @smt, the smt) mask of set @set. */
bool c_idle_bit(const struct c_idle *m, unsigned int set, bool smt, unsigned int cpu)
{
	return test_bit(cpu, smt ? m->smt[set] : m->cpu[set]);
}

/* ---- SMT-aware asymmetric capacity fit ---- */

/* What the fit reads of one CPU; the layout of the Rust side's AsymCpu. */
struct c_asym_cpu {
	unsigned long capacity;		/* capacity_of() */
	unsigned long capacity_orig;	/* arch_scale_cpu_capacity() */
	unsigned long actual_capacity;	/* get_actual_cpu_capacity() */
	bool core_idle;			/* is_core_idle() */
	bool idle;			/* choose_idle_cpu() */
};

struct c_asym {
	const struct c_asym_cpu *cpus;
	bool uclamp_used, smt;
	/* the CPUs the scan asked about, in order */
	int *seen;
	unsigned int nr_seen, max_seen;
	bool cleared;
};

static const struct c_asym_cpu *c_asym_cpu(void *ctx, int cpu)
{
	return &((struct c_asym *)ctx)->cpus[cpu];
}

static unsigned long c_asym_capacity(void *ctx, int cpu)
{
	return c_asym_cpu(ctx, cpu)->capacity;
}

static unsigned long c_asym_capacity_orig(void *ctx, int cpu)
{
	return c_asym_cpu(ctx, cpu)->capacity_orig;
}

static unsigned long c_asym_actual_capacity(void *ctx, int cpu)
{
	return c_asym_cpu(ctx, cpu)->actual_capacity;
}

static bool c_asym_core_idle(void *ctx, int cpu)
{
	return c_asym_cpu(ctx, cpu)->core_idle;
}

static bool c_asym_idle(void *ctx, int cpu)
{
	struct c_asym *a = ctx;

	if (a->nr_seen < a->max_seen)
		a->seen[a->nr_seen] = cpu;
	a->nr_seen++;
	return c_asym_cpu(ctx, cpu)->idle;
}

static bool c_asym_uclamp_used(void *ctx)
{
	return ((struct c_asym *)ctx)->uclamp_used;
}

static bool c_asym_smt_active(void *ctx)
{
	return ((struct c_asym *)ctx)->smt;
}

static void c_asym_clear_idle_cores(void *ctx, int target)
{
	((struct c_asym *)ctx)->cleared = true;
}

static const struct asym_cpu_ops c_asym_ops = {
	.capacity		= c_asym_capacity,
	.capacity_orig		= c_asym_capacity_orig,
	.actual_capacity	= c_asym_actual_capacity,
	.core_idle		= c_asym_core_idle,
	.idle			= c_asym_idle,
	.uclamp_used		= c_asym_uclamp_used,
	.smt_active		= c_asym_smt_active,
	.clear_idle_cores	= c_asym_clear_idle_cores,
};

/*
 * select_idle_capacity() on @cpus[] with the allowed @mask of @nbits bits:
 * the CPU it picks (-1 for none), the CPUs it asked about in @seen (at
 * most @max_seen; *@nr_seen counts them all) and whether it cleared the
 * idle-cores hint.
 */
int c_asym_scan(const struct c_asym_cpu *cpus, const unsigned long *mask,
		unsigned int nbits, int target, unsigned long util,
		unsigned long uclamp_min, unsigned long uclamp_max, bool uclamp_used,
		bool sis_util, int nr_idle_scan, bool has_idle_core, int *seen,
		unsigned int max_seen, unsigned int *nr_seen, bool *cleared)
{
	struct c_asym a = {
		.cpus = cpus, .uclamp_used = uclamp_used, .seen = seen,
		.max_seen = max_seen,
	};
	int nr = INT_MAX, cpu = -1;

	/* select_idle_capacity()'s budget, as fair.c computes it. */
	if (sis_util)
		nr = wrapping_add(int, nr_idle_scan, 1);
	if (nr != 1)
		cpu = __select_idle_capacity(&c_asym_ops, &a, mask, nbits, target, util,
					     uclamp_min, uclamp_max, nr, has_idle_core);
	*nr_seen = a.nr_seen;
	*cleared = a.cleared;
	return cpu;
}

/* util_fits_cpu() of @cpu. */
int c_asym_util_fits_cpu(const struct c_asym_cpu *cpus, int cpu, unsigned long util,
			 unsigned long uclamp_min, unsigned long uclamp_max,
			 bool uclamp_used)
{
	struct c_asym a = { .cpus = cpus, .uclamp_used = uclamp_used };

	return __util_fits_cpu(&c_asym_ops, &a, util, uclamp_min, uclamp_max, cpu);
}

/* asym_fits_cpu() of @cpu, with SMT active if @smt. */
bool c_asym_fits_cpu(const struct c_asym_cpu *cpus, int cpu, unsigned long util,
		     unsigned long uclamp_min, unsigned long uclamp_max, bool uclamp_used,
		     bool smt)
{
	struct c_asym a = { .cpus = cpus, .uclamp_used = uclamp_used, .smt = smt };

	return __asym_fits_cpu(&c_asym_ops, &a, util, uclamp_min, uclamp_max, cpu);
}

/* ---- the steal series' sparsemask and steal walk ---- */

struct sparsemask *c_smask_new(int nelems, int density)
{
	return sparsemask_alloc_node(nelems, density, GFP_KERNEL, NUMA_NO_NODE);
}

void c_smask_free(struct sparsemask *mask)
{
	sparsemask_free(mask);
}

void c_smask_set(struct sparsemask *mask, int elem)
{
	sparsemask_set_elem(mask, elem);
}

void c_smask_clear(struct sparsemask *mask, int elem)
{
	sparsemask_clear_elem(mask, elem);
}

bool c_smask_test(const struct sparsemask *mask, int elem)
{
	return sparsemask_test_elem(mask, elem);
}

int c_smask_next(const struct sparsemask *mask, int origin, int prev)
{
	return sparsemask_next(mask, origin, prev);
}

/* The attempts of one walk: each candidate's answer, and the order tried. */
struct c_steal {
	const u8 *answer;	/* per CPU: 0 taken, 1 refused, 2 stop */
	int *tried;
	unsigned int nr_tried, max_tried;
};

static int c_steal_from(void *arg, int src_cpu)
{
	static const int answers[] = { STEAL_TAKEN, STEAL_REFUSED, STEAL_STOP };
	struct c_steal *s = arg;

	if (s->nr_tried < s->max_tried)
		s->tried[s->nr_tried] = src_cpu;
	s->nr_tried++;
	return answers[s->answer[src_cpu] % 3];
}

/*
 * steal_search() on @overload with @smt_siblings (NULL: SMT off) from
 * @dst: the CPU it took from or -1, and the candidates in @tried.
 */
int c_steal_search(const struct sparsemask *overload, const unsigned long *smt_siblings,
		   int dst, const u8 *answer, int *tried, unsigned int max_tried,
		   unsigned int *nr_tried)
{
	struct c_steal s = { .answer = answer, .tried = tried, .max_tried = max_tried };
	int cpu = steal_search(overload, smt_siblings, dst, c_steal_from, &s);

	*nr_tried = s.nr_tried;
	return cpu;
}
