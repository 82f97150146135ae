// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of the fuzz targets: the scheduler's own C code, compiled in
 * userspace over the shims of the userspace benchmark (bench/userspace/
 * include, 7.3's x86-64 bitops and find_bit), behind plain functions the
 * Rust fuzz targets call (c/upstream.rs):
 *
 *  - the idle picker: idle.c's scx_idle_test_and_clear_cpu(),
 *    pick_idle_cpu_in_node() and scx_pick_idle_cpu(), the bodies of
 *    kernel/sched/ext/idle_pick.h, on a described machine
 *    (idle_pick_machine.h), as the KUnit suite runs them;
 *  - the capacity fit: fair.c's util_fits_cpu(), asym_fits_cpu() and
 *    select_idle_capacity(), the bodies of kernel/sched/asym_fit.h, with
 *    select_idle_capacity()'s SIS_UTIL budget (asym_sis_util_budget(), fair.c's);
 *  - the sparsemask and the steal walk of the steal series
 *    (kernel/sched/sparsemask.h, steal_search.h).
 *
 * Only input within the C functions' contracts comes here; the fuzz
 * targets check the rest against their models alone.
 */
#include <stdlib.h>
#include <string.h>

#include "asym_fit_machine.h"
#include "idle_pick_machine.h"
#include "sparsemask.h"
#include "steal_search.h"

#define ORACLE_WORDS	BITS_TO_LONGS(NR_CPUS)

/* ---- sched_ext idle pick ---- */

/* A machine, described as the KUnit suite describes its machines. */
struct c_idle {
	struct scx_idle_machine mach;
	struct idle_machine machine;
	/* cpumask_any_and_distribute()'s cursor: 0, then only CPUs < nr_cpus */
	unsigned int cursor;
	int cpu_node[NR_CPUS];
	unsigned long siblings[NR_CPUS][ORACLE_WORDS];
	const unsigned long *sibling_ptrs[NR_CPUS];
	unsigned int *distance;
	/* order[nr_nodes * nr_nodes]; topo.node_order points here */
	struct scx_idle_node_order *table;
	nodemask_t online;
	struct scx_idle_masks *nodes;		/* [nr_nodes] */
	/* [nr_nodes + 1]: the last set is the global one (NUMA_NO_NODE) */
	unsigned long (*cpu)[ORACLE_WORDS];
	unsigned long (*smt)[ORACLE_WORDS];
};

static void bools_to_bits(unsigned long *bits, const bool *b, unsigned int n)
{
	unsigned int i;

	memset(bits, 0, ORACLE_WORDS * sizeof(long));
	for (i = 0; i < n; i++)
		if (b[i])
			__set_bit(i, bits);
}

void c_idle_free(struct c_idle *m)
{
	if (m) {
		free(m->cpu);
		free(m->smt);
		free(m->nodes);
		free(m->distance);
		free(m->table);
		free(m);
	}
}

/*
 * Row n of @order: the @nr nodes by (@distance[n * nr + node], node), as
 * idle.c's scx_idle_update_node_order() sorts them, here by insertion (a
 * machine has a few nodes), independently of the Rust build_node_order().
 */
static void c_idle_sort_nodes(u16 *order, const unsigned int *distance, unsigned int nr)
{
	unsigned int from, i, j;

	for (from = 0; from < nr; from++) {
		u16 *row = &order[from * nr];
		const unsigned int *d = &distance[from * nr];

		for (i = 0; i < nr; i++) {
			for (j = i; j > 0 && (d[row[j - 1]] > d[i] ||
					      (d[row[j - 1]] == d[i] && row[j - 1] > i)); j--)
				row[j] = row[j - 1];
			row[j] = i;
		}
	}
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
	m->nodes = calloc(nr_nodes, sizeof(*m->nodes));
	m->distance = calloc(nr_nodes * nr_nodes, sizeof(*m->distance));
	m->table = calloc(1, sizeof(*m->table) +
			  nr_nodes * nr_nodes * sizeof(m->table->order[0]));
	if (!m->cpu || !m->smt || !m->nodes || !m->distance || !m->table) {
		c_idle_free(m);
		return NULL;
	}
	for (i = 0; i < nr_cpus; i++) {
		m->cpu_node[i] = cpu_node[i];
		bools_to_bits(m->siblings[i], &siblings[i * nr_cpus], nr_cpus);
		m->sibling_ptrs[i] = m->siblings[i];
	}
	memcpy(m->distance, distance, nr_nodes * nr_nodes * sizeof(*distance));
	c_idle_sort_nodes(m->table->order, m->distance, nr_nodes);
	for (i = 0; i < nr_nodes; i++)
		if (online[i])
			node_set(i, m->online);
	for (i = 0; i <= nr_nodes; i++) {
		bools_to_bits(m->cpu[i], &cpu[i * nr_cpus], nr_cpus);
		bools_to_bits(m->smt[i], &smt[i * nr_cpus], nr_cpus);
		if (i < nr_nodes)
			m->nodes[i] = (struct scx_idle_masks) { m->cpu[i], m->smt[i] };
	}
	m->mach = (struct scx_idle_machine) {
		.topo = {
			.nr_cpus = nr_cpus, .nr_nodes = nr_nodes,
			.global = { m->cpu[nr_nodes], m->smt[nr_nodes] },
			.nodes = m->nodes, .online_nodes = nodes_addr(m->online),
			.node_order = &m->table,
		},
		.smt_siblings = m->sibling_ptrs, .cpu_node = m->cpu_node,
		.distance = m->distance, .cursor = &m->cursor,
	};
	m->machine = (struct idle_machine) { .mach = &m->mach };
	return m;
}

/* scx_idle_test_and_clear_cpu(); @cpu below nr_cpus. */
bool c_idle_claim(struct c_idle *m, int cpu, unsigned int state)
{
	m->machine.state = state;
	return idle_machine_test_and_clear_cpu(&m->machine, cpu);
}

/*
 * scx_pick_idle_cpu(), or pick_idle_cpu_in_node() with @in_node, from
 * @node (NUMA_NO_NODE with the global masks) with @allowed[nr_cpus].
 */
int c_idle_pick(struct c_idle *m, const bool *allowed, int node, u64 flags,
		unsigned int state, bool in_node)
{
	unsigned long bits[ORACLE_WORDS];

	bools_to_bits(bits, allowed, m->mach.topo.nr_cpus);
	m->machine.state = state;
	if (in_node)
		return idle_machine_pick_in_node(&m->machine, to_cpumask(bits), node, flags);
	return idle_machine_pick(&m->machine, bits, node, flags);
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

/* @cpus[@nr] as described CPUs (asym_fit_machine.h), the KUnit suite's. */
struct c_asym {
	struct asym_machine m;
	struct asym_machine_cpu *chunks[DIV_ROUND_UP(NR_CPUS, ASYM_MACHINE_CHUNK)];
	struct asym_machine_cpu cpus[NR_CPUS];
};

static struct asym_machine *c_asym(struct c_asym *a, const struct c_asym_cpu *cpus,
				   unsigned int nr, bool smt)
{
	unsigned int cpu;

	if (nr > NR_CPUS)
		abort();
	for (cpu = 0; cpu < nr; cpu++)
		a->cpus[cpu] = (struct asym_machine_cpu) {
			.view = {
				.capacity = cpus[cpu].capacity,
				.capacity_orig = cpus[cpu].capacity_orig,
				.actual_capacity = cpus[cpu].actual_capacity,
				.core_idle = cpus[cpu].core_idle,
			},
			.idle = cpus[cpu].idle,
		};
	for (cpu = 0; cpu < ARRAY_SIZE(a->chunks); cpu++)
		a->chunks[cpu] = asym_machine_chunk(a->cpus, cpu);
	a->m = (struct asym_machine) {
		.chunks = a->chunks, .nr_cpus = nr, .smt_active = smt,
	};
	asym_machine_reset(&a->m);
	return &a->m;
}

/* One machine at a time: the fuzz targets run single-threaded. */
static struct c_asym c_asym_machine;

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
	struct asym_machine *m = c_asym(&c_asym_machine, cpus, nbits, false);
	const struct asym_fit_task task = {
		.util = util, .uclamp_min = uclamp_min, .uclamp_max = uclamp_max,
		.uclamp_used = uclamp_used,
	};
	const struct asym_scan scan = {
		.cpus = mask, .nbits = nbits, .target = target,
		.nr_idle_scan = nr_idle_scan, .sis_util = sis_util,
		.has_idle_core = has_idle_core,
	};
	int cpu;

	m->seen = seen;
	m->max_seen = max_seen;
	cpu = asym_machine_select_idle_capacity(m, &task, &scan);
	if (m->outside || (m->cleared && m->cleared_target != target))
		abort();
	*nr_seen = m->nr_seen;
	*cleared = m->cleared;
	return cpu;
}

/* util_fits_cpu() of @cpu. */
int c_asym_util_fits_cpu(const struct c_asym_cpu *cpus, int cpu, unsigned long util,
			 unsigned long uclamp_min, unsigned long uclamp_max,
			 bool uclamp_used)
{
	const struct asym_fit_task task = {
		.util = util, .uclamp_min = uclamp_min, .uclamp_max = uclamp_max,
		.uclamp_used = uclamp_used,
	};

	return asym_machine_util_fits_cpu(c_asym(&c_asym_machine, cpus, cpu + 1, false),
					  &task, cpu);
}

/* asym_fits_cpu() of @cpu, with SMT active if @smt. */
bool c_asym_fits_cpu(const struct c_asym_cpu *cpus, int cpu, unsigned long util,
		     unsigned long uclamp_min, unsigned long uclamp_max, bool uclamp_used,
		     bool smt)
{
	const struct asym_fit_task task = {
		.util = util, .uclamp_min = uclamp_min, .uclamp_max = uclamp_max,
		.uclamp_used = uclamp_used,
	};

	return asym_machine_asym_fits_cpu(c_asym(&c_asym_machine, cpus, cpu + 1, smt),
					  &task, cpu);
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
