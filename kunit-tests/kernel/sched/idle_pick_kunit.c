// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: sched_ext's idle CPU picking, idle.c's own code (the bodies of
 * ext/idle_pick.h) against Rust (sched_rust/idle_pick.rs), on synthetic
 * machines: 1 to 32 nodes with random distance tables, 1 to 4 threads per
 * core, SMT on and off, per-node and global masks, offline nodes, and
 * offline CPUs that are not their own SMT sibling. Both read the machine
 * through struct scx_idle_machine of sched_rust.h: C with the accessors of
 * idle_pick_machine.h, Rust through its machine exports, which run the
 * same Rust code as the kernel's picker with the machine's tables in place
 * of the running system's.
 *
 * Each case builds two identical copies of the idle masks and runs the same
 * picks on them, one copy with the C functions and one with the Rust ones,
 * from the same cursor: both must return the same CPUs, move the cursor
 * alike and leave identical masks. The machines' rotation is a
 * transcription of lib/cpumask.c's cpumask_any_and_distribute();
 * idle_pick_rotation checks it against the real function, whose per-CPU
 * cursor the kernel's two pickers share. A machine has at most as many CPUs as a
 * struct cpumask of this kernel holds (small_cpumask_bits: 64 in the
 * project's VM, 8 on UML) and at most MAX_NUMNODES nodes (1 without NUMA,
 * where idle.c has no walk across nodes). Input outside idle.c's contract
 * that idle.c would read out of bounds (CPUs and nodes out of range, nodes
 * without masks) is checked on the Rust side only; claims on other masks
 * than those searched are compared where they work, and not made where
 * they would fail, as the Rust picker, like idle.c's, would retry forever.
 *
 * The last cases let kthreads pick from one set of masks at once, C and
 * Rust mixed: each idle CPU must be claimed exactly once. Then the same,
 * while a kthread writes the masks as C's update_builtin_idle() does (an
 * atomic bit on the cpu mask, a plain bitmap_or() of the core into the smt
 * mask) and, in the last case, clears them half-way with plain stores as
 * 7.3's reset_idle_masks() does: a CPU must be claimed once per time it
 * was made idle, less the idle period the clear may have taken away.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "idle_pick_machine.h"
#include "sched_rust.h"

#define MAX_CPUS	256
#define MAX_NODES	32
#define WORDS		BITS_TO_LONGS(MAX_CPUS)
#define RANDOM_CASES	10000

/* A synthetic machine and two copies of its idle masks (C, Rust). */
struct machine {
	unsigned int nr_cpus, nr_nodes, threads;
	unsigned long siblings[MAX_CPUS][WORDS];
	const unsigned long *sibling_ptrs[MAX_CPUS];
	int cpu_node[MAX_CPUS];
	nodemask_t online;
	unsigned int distance[MAX_NODES * MAX_NODES];
	/*
	 * The node order, MAX_NODES^2 entries, which @published points to as
	 * idle.c's scx_idle_node_order does, or NULL for none
	 */
	struct scx_idle_node_order *table;
	struct scx_idle_node_order *published;
	/* [copy][nr_nodes + 1]: index MAX_NODES is the global pair */
	unsigned long cpu[2][MAX_NODES + 1][WORDS];
	unsigned long smt[2][MAX_NODES + 1][WORDS];
	struct scx_idle_masks nodes[2][MAX_NODES];
	struct scx_idle_machine mach[2];
};

/* The largest machine a struct cpumask of this kernel can describe. */
static unsigned int max_cpus(void)
{
	return min_t(unsigned int, MAX_CPUS, small_cpumask_bits);
}

static unsigned int max_nodes(void)
{
	return min_t(unsigned int, MAX_NODES, MAX_NUMNODES);
}

static struct rnd_state rnd;

static u32 rand_below(u32 n)
{
	return n ? prandom_u32_state(&rnd) % n : 0;
}

/* The views of both copies; call after filling the tables. */
static void machine_views(struct machine *m)
{
	int c, n;

	for (c = 0; c < 2; c++) {
		for (n = 0; n < m->nr_nodes; n++) {
			m->nodes[c][n].cpu = m->cpu[c][n];
			m->nodes[c][n].smt = m->smt[c][n];
		}
		m->mach[c] = (struct scx_idle_machine) {
			.topo = {
				.nr_cpus = m->nr_cpus,
				.nr_nodes = m->nr_nodes,
				.global = { m->cpu[c][MAX_NODES], m->smt[c][MAX_NODES] },
				.nodes = m->nodes[c],
				.online_nodes = nodes_addr(m->online),
				.node_order = &m->published,
			},
			.smt_siblings = m->sibling_ptrs,
			.cpu_node = m->cpu_node,
			.distance = m->distance,
		};
	}
}

/*
 * @nodes nodes of @cores cores of @threads threads; CPUs numbered core by
 * core, node by node. @idle_pct of the CPUs idle; 1 in 8 CPUs offline (not
 * its own sibling); each node other than 0 offline with probability 1/4.
 */
static void machine_build(struct kunit *test, struct machine *m,
			  unsigned int nodes, unsigned int cores,
			  unsigned int threads, unsigned int idle_pct)
{
	struct scx_idle_node_order *table = m->table;
	unsigned int cpu, o, n, to;

	memset(m, 0, sizeof(*m));
	/* One table per machine, for every build. */
	m->table = table ?: kunit_kzalloc(test, struct_size(table, order, MAX_NODES * MAX_NODES),
					  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->table);
	m->published = m->table;
	m->nr_nodes = nodes;
	m->threads = threads;
	m->nr_cpus = nodes * cores * threads;
	KUNIT_ASSERT_LE(test, m->nr_cpus, max_cpus());
	KUNIT_ASSERT_LE(test, nodes, max_nodes());

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		bool offline = rand_below(8) == 0;

		m->cpu_node[cpu] = cpu / (cores * threads);
		for (o = cpu - cpu % threads; o < cpu - cpu % threads + threads; o++)
			if (o != cpu || !offline)
				__set_bit(o, m->siblings[cpu]);
		m->sibling_ptrs[cpu] = m->siblings[cpu];
	}
	for (n = 0; n < nodes; n++) {
		if (n == 0 || rand_below(4))
			node_set(n, m->online);
		for (to = 0; to < nodes; to++)
			m->distance[n * nodes + to] = n == to ? 10 : 11 + rand_below(30);
	}
	KUNIT_ASSERT_TRUE(test, sched_rust_idle_build_node_order(m->distance, nodes,
								 m->table->order));

	/* Idle CPUs in their node's masks and in the global ones. */
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (rand_below(100) >= idle_pct)
			continue;
		__set_bit(cpu, m->cpu[0][m->cpu_node[cpu]]);
		__set_bit(cpu, m->cpu[0][MAX_NODES]);
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		unsigned int first = cpu - cpu % threads, whole = 1;

		for (o = first; o < first + threads; o++)
			whole &= test_bit(o, m->cpu[0][MAX_NODES]);
		if (whole) {
			__set_bit(cpu, m->smt[0][m->cpu_node[cpu]]);
			__set_bit(cpu, m->smt[0][MAX_NODES]);
		}
	}
	memcpy(m->cpu[1], m->cpu[0], sizeof(m->cpu[0]));
	memcpy(m->smt[1], m->smt[0], sizeof(m->smt[0]));
	machine_views(m);
}

/* Every CPU its own sibling: no offline CPU. */
static void machine_plain_siblings(struct machine *m)
{
	unsigned int cpu, o;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		bitmap_zero(m->siblings[cpu], MAX_CPUS);
		for (o = cpu - cpu % m->threads; o < cpu - cpu % m->threads + m->threads; o++)
			__set_bit(o, m->siblings[cpu]);
	}
}

static bool masks_equal(const struct machine *m)
{
	return !memcmp(m->cpu[0], m->cpu[1], sizeof(m->cpu[0])) &&
	       !memcmp(m->smt[0], m->smt[1], sizeof(m->smt[0]));
}

enum pick_kind { PICK_ALL_NODES, PICK_IN_NODE, PICK_CLAIM };

/*
 * One operation in C and in Rust; both results must agree. Only input C
 * can take: a CPU below nr_cpus, a node of the machine or NUMA_NO_NODE,
 * and claims that work on the masks searched (per-node masks for a node's
 * pick), or else that cannot fail (idle_pick_odd_input()).
 */
static void pick_both(struct kunit *test, struct machine *m, enum pick_kind kind,
		      const unsigned long *allowed, int node, u64 flags,
		      unsigned int state, unsigned int *cursor, int cpu)
{
	unsigned int c_cursor = *cursor, rust_cursor = *cursor;
	struct idle_machine c = { .mach = &m->mach[0], .state = state };
	s32 c_got, rust_got;

	m->mach[0].cursor = &c_cursor;
	m->mach[1].cursor = &rust_cursor;

	switch (kind) {
	case PICK_ALL_NODES:
		/*
		 * Every other pick, C walks the nodes as upstream does, the
		 * nearest unvisited node each time: the cached order must
		 * visit them in the same order.
		 */
		if (rand_below(2))
			c_got = idle_machine_pick_numadist(&c, allowed, node, flags);
		else
			c_got = idle_machine_pick(&c, allowed, node, flags);
		rust_got = sched_rust_idle_machine_pick(&m->mach[1], allowed, node,
							flags, state);
		break;
	case PICK_IN_NODE:
		c_got = idle_machine_pick_in_node(&c, to_cpumask(allowed), node, flags);
		rust_got = sched_rust_idle_machine_pick_in_node(&m->mach[1], allowed,
								node, flags, state);
		break;
	default:
		c_got = idle_machine_test_and_clear_cpu(&c, cpu);
		rust_got = sched_rust_idle_machine_test_and_clear_cpu(&m->mach[1], cpu,
								      state);
		break;
	}
	KUNIT_ASSERT_EQ_MSG(test, c_got, rust_got,
			    "kind %d node %d flags %llu state %u cursor %u cpu %d, %u CPUs, %u nodes, %u threads",
			    kind, node, flags, state, *cursor, cpu, m->nr_cpus,
			    m->nr_nodes, m->threads);
	KUNIT_ASSERT_EQ(test, c_cursor, rust_cursor);
	KUNIT_ASSERT_TRUE_MSG(test, masks_equal(m), "masks differ after kind %d", kind);
	*cursor = c_cursor;
	m->mach[0].cursor = NULL;
	m->mach[1].cursor = NULL;
}

/* An allowed mask: everything, nothing, random bits, or whole nodes only. */
static void random_allowed(struct machine *m, unsigned long *allowed)
{
	unsigned int cpu, keep;

	bitmap_zero(allowed, MAX_CPUS);
	switch (rand_below(4)) {
	case 0:
		bitmap_fill(allowed, m->nr_cpus);
		break;
	case 1:
		break;
	case 2:
		for (cpu = 0; cpu < m->nr_cpus; cpu++)
			if (rand_below(2))
				__set_bit(cpu, allowed);
		break;
	default:
		keep = prandom_u32_state(&rnd);
		for (cpu = 0; cpu < m->nr_cpus; cpu++)
			if (keep & BIT(m->cpu_node[cpu] % 32))
				__set_bit(cpu, allowed);
		break;
	}
}

static void idle_pick_random(struct kunit *test)
{
	struct machine *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned long *allowed = kunit_kcalloc(test, WORDS, sizeof(long), GFP_KERNEL);
	unsigned int i, op, cases = 0;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, allowed);
	prandom_seed_state(&rnd, 0x5eed1d1e);

	for (i = 0; i < RANDOM_CASES; i++) {
		unsigned int nodes = 1 + rand_below(min(max_nodes(), max_cpus()));
		unsigned int threads = 1 + rand_below(min(4U, max_cpus() / nodes));
		unsigned int max_cores = max_cpus() / (nodes * threads);
		unsigned int cores = 1 + rand_below(min(max_cores, 4U));
		/* As lib/cpumask.c's, the cursor is always a CPU id. */
		unsigned int cursor = rand_below(nodes * cores * threads);

		machine_build(test, m, nodes, cores, threads, rand_below(101));
		/* Several picks on the same masks: claims change them. */
		for (op = 0; op < 4; op++) {
			bool global = rand_below(4) == 0;
			unsigned int state = rand_below(2) ? SCX_IDLE_STATE_SMT_ACTIVE : 0;
			u64 flags = rand_below(4);
			int node = global ? NUMA_NO_NODE : rand_below(nodes);
			enum pick_kind kind = rand_below(3);

			if (!global)
				state |= SCX_IDLE_STATE_PER_NODE;
			random_allowed(m, allowed);
			pick_both(test, m, kind, allowed, node, flags, state, &cursor,
				  rand_below(m->nr_cpus));
			cases++;
		}
	}
	kunit_info(test, "%u random picks on %u machines agree", cases, RANDOM_CASES);
}

/*
 * The node order follows the topology. On random machines of 2 to 32
 * nodes, picks from every node agree (C with the order or as upstream
 * walks, and Rust); then the distances and the online nodes change and the
 * order is built again, as idle.c does when the scheduler rebuilds its NUMA
 * topology, and every pick after that agrees with upstream's walk over the
 * new distances; then the order is withdrawn, as idle.c does when it has
 * no memory for a new one, and both pickers walk by distance, still as
 * upstream does. A stale order fails the second phase.
 */
static void idle_pick_topology_change(struct kunit *test)
{
	struct machine *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned long *allowed = kunit_kcalloc(test, WORDS, sizeof(long), GFP_KERNEL);
	unsigned int i, phase, n, to, picks = 0;
	bool built;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, allowed);
	if (max_nodes() < 2)
		kunit_skip(test, "one node: no walk across nodes");
	prandom_seed_state(&rnd, 0xd157a9ce);

	for (i = 0; i < 300; i++) {
		unsigned int nodes = 2 + rand_below(min(max_nodes(), max_cpus() / 2) - 1);
		unsigned int threads = 1 + rand_below(min(2U, max_cpus() / nodes));
		unsigned int cores = 1 + rand_below(min(max_cpus() / (nodes * threads), 2U));
		unsigned int cursor = rand_below(nodes * cores * threads);

		machine_build(test, m, nodes, cores, threads, 30 + rand_below(71));
		for (phase = 0; phase < 3; phase++) {
			if (phase == 1) {
				for (n = 0; n < nodes; n++) {
					for (to = 0; to < nodes; to++)
						m->distance[n * nodes + to] =
							n == to ? 10 : 11 + rand_below(30);
					if (!n || rand_below(3))
						continue;
					if (node_isset(n, m->online))
						node_clear(n, m->online);
					else
						node_set(n, m->online);
				}
				built = sched_rust_idle_build_node_order(m->distance, nodes,
									 m->table->order);
				KUNIT_ASSERT_TRUE(test, built);
			} else if (phase == 2) {
				m->published = NULL;
			}
			for (n = 0; n < nodes; n++) {
				unsigned int state = SCX_IDLE_STATE_PER_NODE |
					(rand_below(2) ? SCX_IDLE_STATE_SMT_ACTIVE : 0);

				random_allowed(m, allowed);
				/* The start node's CPUs busy: the walk must go on. */
				if (rand_below(2))
					bitmap_clear(allowed, n * cores * threads, cores * threads);
				pick_both(test, m, PICK_ALL_NODES, allowed, n, rand_below(2),
					  state, &cursor, 0);
				picks++;
			}
		}
	}
	kunit_info(test, "%u picks across topology changes agree", picks);
}

/* The node flipped online or offline by flip_on_masks(), and where. */
static struct {
	int at, node;
	bool done;
	nodemask_t *online;
} flip;

/*
 * Flips flip.node in the machine's online nodes the first time a picker
 * asks for the masks of flip.at, as a CPU taking a node offline or online
 * could, with the atomic change_bit().
 */
static void flip_on_masks(const struct scx_idle_machine *mach, int node)
{
	if (node != flip.at || flip.done)
		return;
	flip.done = true;
	change_bit(flip.node, nodes_addr(*flip.online));
}

/*
 * A node goes online or offline while a pick walks across nodes. Without a
 * node order, C walks as upstream (7.3) does, for_each_node_numadist() over
 * the online nodes copied when the walk starts, and Rust must see the same
 * nodes: the same CPU, cursor and masks, on random machines of 3 to 8
 * nodes, the flip at a random node of the walk. With the order, both test
 * each node when the walk reaches it (idle.c's walk over its order) and
 * must agree too.
 */
static void idle_pick_online_flip(struct kunit *test)
{
	struct machine *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned long *allowed = kunit_kcalloc(test, WORDS, sizeof(long), GFP_KERNEL);
	unsigned int i, flips = 0, changed = 0;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, allowed);
	if (max_nodes() < 3 || max_cpus() < 6)
		kunit_skip(test, "fewer than 3 nodes: no node to flip during a walk");
	prandom_seed_state(&rnd, 0xf11b0de5);

	for (i = 0; i < 2000; i++) {
		unsigned int nodes = 3 + rand_below(min(max_nodes(), max_cpus() / 2) - 2);
		unsigned int threads = 1 + rand_below(min(2U, max_cpus() / nodes));
		unsigned int cursor = rand_below(nodes * threads), c_cursor, rust_cursor;
		unsigned int state = SCX_IDLE_STATE_PER_NODE |
			(rand_below(2) ? SCX_IDLE_STATE_SMT_ACTIVE : 0);
		int start = rand_below(nodes), c_got, rust_got, upstream_got;
		bool ordered = rand_below(2), c_done;
		u64 flags = rand_below(2);
		struct idle_machine c = { .mach = &m->mach[0], .state = state };
		nodemask_t online;

		machine_build(test, m, nodes, 1, threads, 30 + rand_below(40));
		if (!ordered)
			m->published = NULL;
		random_allowed(m, allowed);
		/* The start node's CPUs busy: the walk must go on. */
		bitmap_clear(allowed, start * threads, threads);
		online = m->online;
		flip.online = &m->online;
		do {
			flip.at = rand_below(nodes);
		} while (flip.at == start);
		flip.node = rand_below(nodes);
		m->mach[0].on_masks = flip_on_masks;
		m->mach[1].on_masks = flip_on_masks;

		/* Upstream's walk, on a copy of the masks, no flip: a reference. */
		flip.done = true;
		c_cursor = cursor;
		m->mach[0].cursor = &c_cursor;
		upstream_got = idle_machine_pick_numadist(&c, allowed, start, flags);
		memcpy(m->cpu[0], m->cpu[1], sizeof(m->cpu[0]));
		memcpy(m->smt[0], m->smt[1], sizeof(m->smt[0]));

		flip.done = false;
		c_cursor = cursor;
		c_got = idle_machine_pick(&c, allowed, start, flags);
		c_done = flip.done;
		m->online = online;

		flip.done = false;
		rust_cursor = cursor;
		m->mach[1].cursor = &rust_cursor;
		rust_got = sched_rust_idle_machine_pick(&m->mach[1], allowed, start, flags,
							state);
		m->online = online;

		KUNIT_ASSERT_EQ_MSG(test, c_got, rust_got,
				    "%s, %u nodes, start %d, node %d flipped at node %d",
				    ordered ? "order" : "no order", nodes, start, flip.node,
				    flip.at);
		KUNIT_ASSERT_EQ(test, c_done, flip.done);
		KUNIT_ASSERT_EQ(test, c_cursor, rust_cursor);
		KUNIT_ASSERT_TRUE(test, masks_equal(m));
		m->mach[0].cursor = NULL;
		m->mach[1].cursor = NULL;
		if (!flip.done)
			continue;
		flips++;
		/* Without an order, the flip changes nothing, as upstream. */
		if (!ordered)
			KUNIT_ASSERT_EQ(test, c_got, upstream_got);
		else if (c_got != upstream_got)
			changed++;
	}
	m->mach[0].on_masks = NULL;
	m->mach[1].on_masks = NULL;
	kunit_info(test, "%u of 2000 picks flipped a node during the walk, %u with the order saw it",
		   flips, changed);
	KUNIT_EXPECT_GT(test, flips, 200);
}

/*
 * The machines' rotation against lib/cpumask.c's: on random masks of this
 * system's CPUs, from a random cursor, idle_machine_distribute() (which the
 * C picks on machines use, and which the Rust picks match in the cases
 * above) returns what cpumask_any_and_distribute() returns, three times in
 * a row, so it also moves its cursor alike. The real cursor is this CPU's:
 * a call on a mask of one CPU sets it, and interrupts are off meanwhile so
 * that nothing else on this CPU moves it.
 */
static void idle_pick_rotation(struct kunit *test)
{
	cpumask_var_t a, b;
	unsigned int i, k, cpu, checks = 0;
	unsigned long flags;

	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&a, GFP_KERNEL));
	if (!zalloc_cpumask_var(&b, GFP_KERNEL)) {
		free_cpumask_var(a);
		KUNIT_FAIL(test, "no memory");
		return;
	}
	prandom_seed_state(&rnd, 0xc0de);
	for (i = 0; i < 2000; i++) {
		unsigned int cursor = rand_below(nr_cpu_ids), want = 0, got = 0;
		bool same = true;

		cpumask_clear(a);
		cpumask_clear(b);
		for_each_possible_cpu(cpu) {
			if (rand_below(3))
				__cpumask_set_cpu(cpu, a);
			if (rand_below(4))
				__cpumask_set_cpu(cpu, b);
		}
		local_irq_save(flags);
		if (cpumask_any_and_distribute(cpumask_of(cursor), cpumask_of(cursor)) != cursor)
			same = false;
		for (k = 0; k < 3 && same; k++) {
			want = cpumask_any_and_distribute(a, b);
			got = idle_machine_distribute(nr_cpu_ids, &cursor, a, b);
			same = (want >= nr_cpu_ids && got >= nr_cpu_ids) || want == got;
		}
		local_irq_restore(flags);
		KUNIT_ASSERT_TRUE_MSG(test, same,
				      "call %u: cpumask_any_and_distribute() %u, the machines' %u (%*pbl & %*pbl)",
				      k, want, got, cpumask_pr_args(a), cpumask_pr_args(b));
		checks += k;
	}
	free_cpumask_var(a);
	free_cpumask_var(b);
	kunit_info(test, "%u rotations on %u CPUs match lib/cpumask.c's", checks, nr_cpu_ids);
}

#ifdef CONFIG_NUMA
/*
 * The machine of the edge cases, 8 CPUs in 3 nodes, cores of 2 threads:
 * node 0 has CPUs 0-3, node 1 CPUs 4-5, node 2 CPUs 6-7. Every CPU idle
 * and its own sibling, every node online; and an empty allowed mask. The
 * hand-made cases need NUMA: without it, idle.c has no walk across nodes.
 */
static struct machine *edge_machine(struct kunit *test, u32 seed,
				    unsigned long **allowed)
{
	struct machine *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned int cpu, c, n;

	if (max_nodes() < 3 || max_cpus() < 8)
		kunit_skip(test, "needs 3 nodes (MAX_NUMNODES %d) and 8 CPUs in a cpumask (%u)",
			   MAX_NUMNODES, small_cpumask_bits);
	*allowed = kunit_kcalloc(test, WORDS, sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, *allowed);
	prandom_seed_state(&rnd, seed);
	/* One node of 4 cores of 2 threads, every CPU idle; then 3 nodes. */
	machine_build(test, m, 1, 4, 2, 100);
	machine_plain_siblings(m);
	m->nr_nodes = 3;
	for (cpu = 4; cpu < 8; cpu++) {
		n = cpu < 6 ? 1 : 2;
		m->cpu_node[cpu] = n;
		for (c = 0; c < 2; c++) {
			__clear_bit(cpu, m->cpu[c][0]);
			__set_bit(cpu, m->cpu[c][n]);
			__clear_bit(cpu, m->smt[c][0]);
			__set_bit(cpu, m->smt[c][n]);
		}
	}
	for (n = 0; n < 9; n++)
		m->distance[n] = n % 4 ? 20 : 10;
	KUNIT_ASSERT_TRUE(test, sched_rust_idle_build_node_order(m->distance, 3, m->table->order));
	nodes_clear(m->online);
	for (n = 0; n < 3; n++)
		node_set(n, m->online);
	machine_views(m);
	return m;
}

/*
 * Hand-made, on the edge machine: CPU 1 is offline (not its own sibling),
 * node 1 is farther from 0 than node 2, and the walk must cross to node 2
 * first.
 */
static void idle_pick_edges(struct kunit *test)
{
	unsigned long *allowed;
	struct machine *m = edge_machine(test, 1, &allowed);
	const unsigned int smt_node = SCX_IDLE_STATE_SMT_ACTIVE | SCX_IDLE_STATE_PER_NODE;
	unsigned int cursor = 0, cpu;

	/* CPU 1 offline; distances 0->1: 30, 0->2: 20. */
	bitmap_zero(m->siblings[1], MAX_CPUS);
	__set_bit(0, m->siblings[1]);
	m->distance[1] = 30;
	m->distance[2] = 20;
	KUNIT_ASSERT_TRUE(test, sched_rust_idle_build_node_order(m->distance, 3, m->table->order));
	KUNIT_EXPECT_EQ(test, m->table->order[0], 0);
	KUNIT_EXPECT_EQ(test, m->table->order[1], 2);
	KUNIT_EXPECT_EQ(test, m->table->order[2], 1);

	/* Empty allowed mask: -EBUSY everywhere, nothing written. */
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, 0, smt_node, &cursor, 0);
	KUNIT_EXPECT_EQ(test, test_bit(0, m->cpu[1][0]), 1);

	/*
	 * Claiming offline CPU 1 clears its sibling 0 from the SMT mask, but
	 * not 1 itself; claiming it again (it is gone from cpu) must clear it
	 * from smt, or pickers would loop on it.
	 */
	pick_both(test, m, PICK_CLAIM, allowed, 0, 0, smt_node, &cursor, 1);
	KUNIT_EXPECT_FALSE(test, test_bit(0, m->smt[1][0]));
	KUNIT_EXPECT_TRUE(test, test_bit(1, m->smt[1][0]));
	pick_both(test, m, PICK_CLAIM, allowed, 0, 0, smt_node, &cursor, 1);
	KUNIT_EXPECT_FALSE(test, test_bit(1, m->smt[1][0]));

	/* Core-only over node 0: CPUs 2-3 are the idle core left. */
	bitmap_fill(allowed, m->nr_cpus);
	pick_both(test, m, PICK_IN_NODE, allowed, 0, SCX_IDLE_PICK_CORE, smt_node,
		  &cursor, 0);
	KUNIT_EXPECT_EQ(test, cursor, 2);
	/* 3 remains idle but its core is not whole: core-only gives up. */
	pick_both(test, m, PICK_IN_NODE, allowed, 0, SCX_IDLE_PICK_CORE, smt_node,
		  &cursor, 0);
	KUNIT_EXPECT_EQ(test, test_bit(3, m->cpu[1][0]), 1);

	/* Node 0 limited to itself, then the walk to node 2 (nearer than 1). */
	bitmap_zero(allowed, MAX_CPUS);
	for (cpu = 4; cpu < 8; cpu++)
		__set_bit(cpu, allowed);
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, SCX_IDLE_PICK_IN_NODE,
		  smt_node, &cursor, 0);
	KUNIT_EXPECT_EQ(test, test_bit(4, m->cpu[1][1]), 1);
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, 0, smt_node, &cursor, 0);
	KUNIT_EXPECT_GE(test, cursor, 6);
	/* Node 2 offline: the walk goes to node 1. */
	node_clear(2, m->online);
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, 0, smt_node, &cursor, 0);
	KUNIT_EXPECT_LT(test, cursor, 6);

	/* The global masks, SMT off: any CPU, and never another node walk. */
	bitmap_fill(allowed, m->nr_cpus);
	pick_both(test, m, PICK_ALL_NODES, allowed, NUMA_NO_NODE, 0, 0, &cursor, 0);
	cursor = 0;

	/*
	 * Rust alone: input out of idle.c's contract, which idle.c would read
	 * out of bounds. Nodes that are not nodes and CPUs out of range claim
	 * nothing and write nothing.
	 */
	memcpy(m->cpu[0], m->cpu[1], sizeof(m->cpu[0]));
	memcpy(m->smt[0], m->smt[1], sizeof(m->smt[0]));
	m->mach[1].cursor = &cursor;
	KUNIT_EXPECT_EQ(test, sched_rust_idle_machine_pick(&m->mach[1], allowed, -2, 0,
							   smt_node), -EBUSY);
	KUNIT_EXPECT_EQ(test, sched_rust_idle_machine_pick_in_node(&m->mach[1], allowed, 3,
								   0, smt_node), -EBUSY);
	KUNIT_EXPECT_FALSE(test, sched_rust_idle_machine_test_and_clear_cpu(&m->mach[1], -1,
									    smt_node));
	KUNIT_EXPECT_FALSE(test, sched_rust_idle_machine_test_and_clear_cpu(&m->mach[1], 8,
									    smt_node));
	m->mach[1].cursor = NULL;
	KUNIT_EXPECT_EQ(test, cursor, 0);
	KUNIT_EXPECT_TRUE(test, masks_equal(m));
}

/*
 * Right after a scheduler is enabled: 7.3's reset_idle_masks() clears every
 * mask, and CPUs come back as they pass through idle (update_builtin_idle():
 * the CPU's bit, then its core into smt once the core is wholly idle). Until
 * then both pickers find nothing, in every node and in the global masks;
 * afterwards both find exactly the CPUs that came back, the whole core
 * first when asked for one.
 */
static void idle_pick_after_enable(struct kunit *test)
{
	unsigned long *allowed;
	struct machine *m = edge_machine(test, 4, &allowed);
	const unsigned int smt_node = SCX_IDLE_STATE_SMT_ACTIVE | SCX_IDLE_STATE_PER_NODE;
	unsigned int cursor = 0, cpu, c, n;
	int node;

	memset(m->cpu, 0, sizeof(m->cpu));
	memset(m->smt, 0, sizeof(m->smt));
	bitmap_fill(allowed, m->nr_cpus);
	for (node = NUMA_NO_NODE; node < 3; node++) {
		pick_both(test, m, PICK_ALL_NODES, allowed, node, 0, smt_node, &cursor, 0);
		pick_both(test, m, PICK_IN_NODE, allowed, node, 0, smt_node, &cursor, 0);
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		pick_both(test, m, PICK_CLAIM, allowed, 0, 0, smt_node, &cursor, cpu);
	KUNIT_EXPECT_EQ(test, cursor, 0);

	/* CPU 5 (node 1) passes through idle, then its sibling 4. */
	for (c = 0; c < 2; c++)
		__set_bit(5, m->cpu[c][1]);
	pick_both(test, m, PICK_IN_NODE, allowed, 1, SCX_IDLE_PICK_CORE, smt_node,
		  &cursor, 0);
	KUNIT_EXPECT_TRUE(test, test_bit(5, m->cpu[1][1]));
	for (c = 0; c < 2; c++) {
		__set_bit(4, m->cpu[c][1]);
		for (n = 4; n < 6; n++)
			__set_bit(n, m->smt[c][1]);
	}
	/* From node 0, which has nothing: the walk finds node 1's core. */
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, SCX_IDLE_PICK_CORE, smt_node,
		  &cursor, 0);
	KUNIT_EXPECT_TRUE(test, cursor == 4 || cursor == 5);
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, 0, smt_node, &cursor, 0);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(m->cpu[1][1], m->nr_cpus));
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, 0, smt_node, &cursor, 0);
}

/*
 * Input idle.c's callers do not produce, where Rust must still do what the C
 * picker does, or at least nothing unsafe: a start node without masks, and
 * a CPU of no node. Claims that work on other masks than those searched
 * (a node's pick without per-node tracking, a CPU in another node's masks)
 * are out of the contract too (sched_rust.h): when such a claim fails,
 * idle.c's loop retries forever, and so does the Rust picker, a drop-in, so
 * that is not run here; when it works, both claim the CPU in the masks of
 * its own node, which is.
 */
static void idle_pick_odd_input(struct kunit *test)
{
	unsigned long *allowed;
	struct machine *m = edge_machine(test, 3, &allowed);
	const unsigned int smt_node = SCX_IDLE_STATE_SMT_ACTIVE | SCX_IDLE_STATE_PER_NODE;
	unsigned int cursor = 0;

	/*
	 * Rust alone: a start node without masks (not possible), which idle.c
	 * would dereference: -EBUSY at once, no walk to the other nodes, whose
	 * idle CPUs are allowed; nothing written.
	 */
	bitmap_fill(allowed, m->nr_cpus);
	m->nodes[1][1] = (struct scx_idle_masks) {};
	m->mach[1].cursor = &cursor;
	KUNIT_EXPECT_EQ(test, sched_rust_idle_machine_pick(&m->mach[1], allowed, 1, 0,
							   smt_node), -EBUSY);
	m->mach[1].cursor = NULL;
	KUNIT_EXPECT_EQ(test, cursor, 0);
	KUNIT_EXPECT_TRUE(test, masks_equal(m));
	machine_views(m);

	/* A CPU of no node (NUMA_NO_NODE) is claimed in the global masks. */
	bitmap_fill(allowed, m->nr_cpus);
	m->cpu_node[5] = NUMA_NO_NODE;
	pick_both(test, m, PICK_CLAIM, allowed, 0, 0, smt_node, &cursor, 5);
	KUNIT_EXPECT_FALSE(test, test_bit(5, m->cpu[1][MAX_NODES]));
	KUNIT_EXPECT_TRUE(test, test_bit(5, m->cpu[1][1]));
	m->cpu_node[5] = 1;

	/*
	 * A candidate found in node 0's masks whose node is 1 (it changed
	 * since the masks were filled) is claimed in node 1's masks, where it
	 * is idle; without per-node tracking, in the global ones. Node 0's
	 * masks keep it both times.
	 */
	bitmap_zero(allowed, MAX_CPUS);
	__set_bit(5, allowed);
	__set_bit(5, m->cpu[0][0]);
	__set_bit(5, m->cpu[1][0]);
	/* The claim must work, or both pickers retry forever. */
	KUNIT_ASSERT_TRUE(test, test_bit(5, m->cpu[0][1]) && test_bit(5, m->cpu[1][1]));
	pick_both(test, m, PICK_IN_NODE, allowed, 0, 0, smt_node, &cursor, 0);
	KUNIT_EXPECT_EQ(test, cursor, 5);
	KUNIT_EXPECT_FALSE(test, test_bit(5, m->cpu[1][1]));
	KUNIT_EXPECT_TRUE(test, test_bit(5, m->cpu[1][0]));
	__set_bit(5, m->cpu[0][MAX_NODES]);
	__set_bit(5, m->cpu[1][MAX_NODES]);
	pick_both(test, m, PICK_ALL_NODES, allowed, 0, 0, SCX_IDLE_STATE_SMT_ACTIVE,
		  &cursor, 0);
	KUNIT_EXPECT_FALSE(test, test_bit(5, m->cpu[1][MAX_NODES]));
	KUNIT_EXPECT_TRUE(test, test_bit(5, m->cpu[1][0]));

	/*
	 * A pick of the global masks with per-node tracking on (a CPU idle in
	 * both): the claim works on the masks of the CPU's node.
	 */
	__set_bit(5, m->cpu[0][MAX_NODES]);
	__set_bit(5, m->cpu[1][MAX_NODES]);
	__set_bit(5, m->cpu[0][1]);
	__set_bit(5, m->cpu[1][1]);
	pick_both(test, m, PICK_ALL_NODES, allowed, NUMA_NO_NODE, 0, smt_node, &cursor, 0);
	KUNIT_EXPECT_FALSE(test, test_bit(5, m->cpu[1][1]));
	KUNIT_EXPECT_TRUE(test, test_bit(5, m->cpu[1][MAX_NODES]));
}
#endif /* CONFIG_NUMA */

/*
 * The node order at the kernel's MAX_NUMNODES (1024 with MAXSMP's
 * NODES_SHIFT=10): every row is a permutation of the nodes sorted by
 * (distance, id). Row r has distance 20 + MAX_NUMNODES - m to node m,
 * except 10 to itself, and one more for every third node, which then ties
 * with the node before it: a descending row, the worst case of the
 * insertion sort this replaced (O(n^3): about 5 * 10^8 comparisons at 1024
 * nodes), with ties.
 */
static void idle_pick_node_order_max_nodes(struct kunit *test)
{
	const unsigned int n = MAX_NUMNODES;
	unsigned long *seen = kunit_kzalloc(test, BITS_TO_LONGS(n) * sizeof(long), GFP_KERNEL);
	unsigned int *distance = kvcalloc(n * n, sizeof(*distance), GFP_KERNEL);
	u16 *order = kvcalloc(n * n, sizeof(*order), GFP_KERNEL);
	unsigned int row, i, bad = 0;
	u64 start, ns;

	if (!seen || !distance || !order) {
		kvfree(distance);
		kvfree(order);
		KUNIT_FAIL(test, "no memory for %u nodes", n);
		return;
	}
	for (row = 0; row < n; row++)
		for (i = 0; i < n; i++)
			distance[row * n + i] = i == row ? 10 : 20 + n - i + (i % 3 == 1);
	start = ktime_get_ns();
	KUNIT_EXPECT_TRUE(test, sched_rust_idle_build_node_order(distance, n, order));
	ns = ktime_get_ns() - start;
	kunit_info(test, "node order of %u nodes built in %llu us\n", n, div_u64(ns, 1000));

	for (row = 0; row < n && !bad; row++) {
		const unsigned int *d = &distance[row * n];
		const u16 *o = &order[row * n];

		bitmap_zero(seen, n);
		for (i = 0; i < n; i++) {
			if (o[i] >= n || __test_and_set_bit(o[i], seen))
				bad++;
			else if (i && (d[o[i - 1]] > d[o[i]] ||
				       (d[o[i - 1]] == d[o[i]] && o[i - 1] > o[i])))
				bad++;
		}
		KUNIT_EXPECT_EQ_MSG(test, bad, 0, "row %u is not sorted by (distance, id)", row);
	}
	kvfree(distance);
	kvfree(order);
}

/* Concurrent pickers on one set of masks, and a C writer of the masks. */
#define RACE_THREADS	4
#define RACE_UPDATES	4096

struct race {
	struct machine *m;
	unsigned long allowed[WORDS];
	atomic_t claims[MAX_CPUS];
	/* times the updater made a busy CPU idle again */
	atomic_t idles[MAX_CPUS];
	bool reset;
	/* pickers, then the updater */
	struct completion done[RACE_THREADS + 1];
	atomic_t go;
};

struct racer {
	struct race *race;
	int id;
};

static int race_fn(void *arg)
{
	struct racer *r = arg;
	struct race *race = r->race;
	const unsigned int state = SCX_IDLE_STATE_SMT_ACTIVE | SCX_IDLE_STATE_PER_NODE;
	/* Each picker its own cursor, as each CPU has; one set of masks. */
	unsigned int cursor = r->id * 61 % race->m->nr_cpus;
	struct scx_idle_machine mach = race->m->mach[0];
	struct idle_machine c = { .mach = &mach, .state = state };
	int node = (r->id / 2) % race->m->nr_nodes;
	s32 cpu;

	mach.cursor = &cursor;

	/*
	 * Yield while waiting: with fewer CPUs than pickers (UML), spinning
	 * without preemption would starve the thread that says go.
	 */
	while (!atomic_read(&race->go))
		cond_resched();
	for (;;) {
		/* Odd threads pick in Rust, even ones in C; two per node. */
		if (r->id & 1)
			cpu = sched_rust_idle_machine_pick(&mach, race->allowed, node, 0,
							   state);
		else
			cpu = idle_machine_pick(&c, race->allowed, node, 0);
		if (cpu < 0)
			break;
		atomic_inc(&race->claims[cpu]);
		cond_resched();
	}
	complete(&race->done[r->id]);
	return 0;
}

/*
 * The C side's writes while pickers run, as update_builtin_idle() makes
 * CPUs idle: the CPU's bit with an atomic bitop (assign_cpu(); counted
 * here with test_and_set_bit() when it was clear), then, once the whole
 * core is idle, the core into the smt mask with a plain bitmap_or(), which
 * races with the pickers' removals as upstream's does. With race->reset,
 * half-way every mask is cleared with plain stores, as 7.3's
 * reset_idle_masks() does with cpumask_clear() when a scheduler is enabled.
 */
static int update_fn(void *arg)
{
	struct race *race = arg;
	struct machine *m = race->m;
	unsigned int i, cpu, node;

	while (!atomic_read(&race->go))
		cond_resched();
	for (i = 0; i < RACE_UPDATES; i++) {
		/* every CPU alike: nr_cpus is no multiple of 37 (checked) */
		cpu = (i * 37) % m->nr_cpus;
		node = m->cpu_node[cpu];
		if (!test_and_set_bit(cpu, m->cpu[0][node]))
			atomic_inc(&race->idles[cpu]);
		/*
		 * Plain reads and writes of masks that the pickers claim from
		 * with test_and_clear_bit(), as upstream's: "idle_smt handling
		 * is racy but that's fine as it's only for optimization and
		 * self-correcting" (update_builtin_idle()). The race is the
		 * point of the test. KCSAN watches these accesses too: the
		 * reports it makes of them are accepted one access at a time
		 * (scripts/kcsan-accepted.txt), so that any other is not.
		 */
		if (bitmap_subset(m->siblings[cpu], m->cpu[0][node], m->nr_cpus))
			bitmap_or(m->smt[0][node], m->smt[0][node], m->siblings[cpu],
				  m->nr_cpus);
		if (race->reset && i == RACE_UPDATES / 2)
			for (node = 0; node < m->nr_nodes; node++) {
				bitmap_zero(m->cpu[0][node], m->nr_cpus);
				bitmap_zero(m->smt[0][node], m->nr_cpus);
			}
		cond_resched();
	}
	complete(&race->done[RACE_THREADS]);
	return 0;
}

/*
 * Pickers on one set of masks (2 nodes, or 1 without NUMA, of 2-thread
 * cores, as many CPUs as a cpumask holds; every CPU idle at first), alone
 * or with update_fn() (updates), which clears the masks half-way with
 * reset. Each CPU is claimed as many times as it became idle, less once if
 * it is idle at the end: 1 + its idles[], less one if the clear took away
 * an idle period before any picker claimed it.
 */
static void run_race(struct kunit *test, bool updates, bool reset)
{
	struct race *race = kunit_kzalloc(test, sizeof(*race), GFP_KERNEL);
	struct racer racers[RACE_THREADS];
	int threads = RACE_THREADS + updates;
	unsigned int nodes = min(2U, max_nodes());
	int i, cpu, n;

	KUNIT_ASSERT_NOT_NULL(test, race);
	race->m = kunit_kzalloc(test, sizeof(*race->m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, race->m);
	prandom_seed_state(&rnd, 2);
	/* Every CPU idle, none offline. */
	machine_build(test, race->m, nodes, max_cpus() / (2 * nodes), 2, 100);
	machine_plain_siblings(race->m);
	KUNIT_ASSERT_NE(test, race->m->nr_cpus % 37, 0);
	for (n = 0; n < nodes; n++)
		node_set(n, race->m->online);
	bitmap_fill(race->allowed, race->m->nr_cpus);
	race->reset = reset;

	if (updates) {
		struct task_struct *t;

		init_completion(&race->done[RACE_THREADS]);
		t = kthread_run(update_fn, race, "idle_pick_update");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < RACE_THREADS; i++) {
		struct task_struct *t;

		racers[i] = (struct racer) { .race = race, .id = i };
		init_completion(&race->done[i]);
		t = kthread_run(race_fn, &racers[i], "idle_pick_race/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	atomic_set(&race->go, 1);
	/* No thread may spin forever: 60 s is ample even under emulation. */
	for (i = 0; i < threads; i++)
		KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&race->done[i], 60 * HZ),
				    0, "thread %d did not finish", i);
	kunit_info(test, "%u CPUs in %u nodes", race->m->nr_cpus, nodes);
	for (cpu = 0; cpu < race->m->nr_cpus; cpu++) {
		int claims = atomic_read(&race->claims[cpu]);
		int idles = atomic_read(&race->idles[cpu]);
		int idle_now = test_bit(cpu, race->m->cpu[0][race->m->cpu_node[cpu]]);

		KUNIT_EXPECT_GE_MSG(test, claims + idle_now, 1 + idles - reset,
				    "CPU %d: claimed %d times, made idle %d+1 times, idle now %d",
				    cpu, claims, idles, idle_now);
		KUNIT_EXPECT_LE_MSG(test, claims + idle_now, 1 + idles,
				    "CPU %d: claimed %d times, made idle %d+1 times, idle now %d",
				    cpu, claims, idles, idle_now);
	}
}

static void idle_pick_concurrent(struct kunit *test)
{
	run_race(test, false, false);
}

static void idle_pick_concurrent_updates(struct kunit *test)
{
	run_race(test, true, false);
}

static void idle_pick_concurrent_reset(struct kunit *test)
{
	run_race(test, true, true);
}

static struct kunit_case idle_pick_cases[] = {
	KUNIT_CASE(idle_pick_rotation),
#ifdef CONFIG_NUMA
	KUNIT_CASE(idle_pick_edges),
	KUNIT_CASE(idle_pick_topology_change),
	KUNIT_CASE(idle_pick_online_flip),
	KUNIT_CASE(idle_pick_after_enable),
	KUNIT_CASE(idle_pick_odd_input),
#endif
	KUNIT_CASE_SLOW(idle_pick_node_order_max_nodes),
	KUNIT_CASE_SLOW(idle_pick_random),
	KUNIT_CASE_SLOW(idle_pick_concurrent),
	KUNIT_CASE_SLOW(idle_pick_concurrent_updates),
	KUNIT_CASE_SLOW(idle_pick_concurrent_reset),
	{}
};

static struct kunit_suite idle_pick_suite = {
	.name = "sched_rust_idle_pick",
	.test_cases = idle_pick_cases,
};

kunit_test_suite(idle_pick_suite);

MODULE_DESCRIPTION("sched_ext idle CPU picking: C against Rust");
MODULE_LICENSE("GPL");
