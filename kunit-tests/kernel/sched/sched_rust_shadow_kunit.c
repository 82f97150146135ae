// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the shadow check's memory at the sizes distributions build for.
 *
 * Our guests have a few CPUs, so no boot can show what the shadow check
 * allocates where nr_cpu_ids is 8192 (MAXSMP). The sizes come from one
 * function, sched_rust_shadow_alloc_sizes(), which the shadow check's own
 * allocations at boot use too: this suite asks it for the machines a
 * distribution kernel may meet and checks that each allocation is a small
 * one and that nothing grows with the square of the CPU count, as the
 * per-CPU copies of every CPU did before (about 830 KB per CPU at 8192
 * CPUs, in order-7 and order-8 allocations, 6.8 GB in all).
 *
 * And that the check leaves no trace on the system: a sequence of idle
 * picks gives the same CPUs, leaves the same masks and the same rotation
 * cursor with the check run before each pick as without it.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "asym_fit_machine.h"	/* struct asym_machine_cpu */
#include "sched_rust_shadow.h"
#include "sparsemask.h"

/* Order 3 (32 KB with 4 KB pages): what the page allocator still finds. */
#define SHADOW_MAX_ORDER	3

struct shadow_machine {
	unsigned int nr_cpus, nr_nodes;
};

static const struct shadow_machine shadow_machines[] = {
	{ 8192, 1024 },	/* MAXSMP's NR_CPUS and MAX_NUMNODES */
	{ 8192, 64 },
	{ 8192, 1 },
	{ 1024, 8 },
	{ 8, 2 },	/* the test guests */
	{ 1, 1 },
};

/* The bytes of every allocation, each counted as often as it is made. */
static size_t shadow_total(const struct shadow_machine *m, const size_t *sizes)
{
	return sizes[SHADOW_ALLOC_ASYM_TABLE] +
	       DIV_ROUND_UP(m->nr_cpus, sizes[SHADOW_ALLOC_ASYM_CHUNK] /
			    sizeof(struct asym_machine_cpu)) * sizes[SHADOW_ALLOC_ASYM_CHUNK] +
	       sizes[SHADOW_ALLOC_ASYM_SEEN] +
	       sizes[SHADOW_ALLOC_OVERLOAD] + sizes[SHADOW_ALLOC_SIBLINGS] +
	       sizes[SHADOW_ALLOC_IDLE_TABLE] +
	       (m->nr_nodes + 1) * sizes[SHADOW_ALLOC_IDLE_SET] +
	       2 * sizes[SHADOW_ALLOC_IDLE_NODES] + sizes[SHADOW_ALLOC_IDLE_ALLOWED];
}

/*
 * Each allocation is of order SHADOW_MAX_ORDER or less, but one: the copy
 * of an LLC's overload mask is as large as the mask itself, which the
 * steal series allocates for every LLC (order 5 at 8192 CPUs); it is made
 * once, with kvzalloc(), which falls back to order-0 pages.
 */
static void shadow_allocations_small(struct kunit *test)
{
	size_t sizes[SHADOW_NR_ALLOCS];
	unsigned int i, a;

	for (i = 0; i < ARRAY_SIZE(shadow_machines); i++) {
		const struct shadow_machine *m = &shadow_machines[i];

		sched_rust_shadow_alloc_sizes(m->nr_cpus, m->nr_nodes, sizes);
		for (a = 0; a < SHADOW_NR_ALLOCS; a++) {
			if (a == SHADOW_ALLOC_OVERLOAD) {
				KUNIT_EXPECT_EQ_MSG(test, sizes[a],
						    sparsemask_size(m->nr_cpus,
								    SMASK_DENSITY_DEFAULT),
						    "%u CPUs", m->nr_cpus);
				continue;
			}
			KUNIT_EXPECT_GT_MSG(test, sizes[a], 0, "allocation %u", a);
			KUNIT_EXPECT_LE_MSG(test, get_order(sizes[a]), SHADOW_MAX_ORDER,
					    "allocation %u: %zu bytes at %u CPUs, %u nodes",
					    a, sizes[a], m->nr_cpus, m->nr_nodes);
		}
	}
}

/*
 * The whole: below 1 MB at 8192 CPUs and 64 nodes, and linear in the CPU
 * count (8192 CPUs cost at most 8 times what 1024 do, plus a page per
 * allocation rounded up).
 */
static void shadow_memory_linear(struct kunit *test)
{
	const struct shadow_machine big = { 8192, 64 }, small = { 1024, 64 };
	size_t sizes[SHADOW_NR_ALLOCS];
	size_t total_big, total_small;

	sched_rust_shadow_alloc_sizes(big.nr_cpus, big.nr_nodes, sizes);
	total_big = shadow_total(&big, sizes);
	sched_rust_shadow_alloc_sizes(small.nr_cpus, small.nr_nodes, sizes);
	total_small = shadow_total(&small, sizes);

	kunit_info(test, "shadow copies: %zu bytes at 8192 CPUs, %zu at 1024 (64 nodes)\n",
		   total_big, total_small);
	KUNIT_EXPECT_LT(test, total_big, SZ_1M);
	KUNIT_EXPECT_LE(test, total_big, 8 * total_small + SHADOW_NR_ALLOCS * PAGE_SIZE);
}

#ifdef CONFIG_SCHED_RUST_IDLE_PICK
#define SHADOW_PICKS	16

/* Global idle masks over every possible CPU, as idle.c's without per-node masks. */
struct shadow_idle {
	struct scx_idle_topo topo;
	struct scx_idle_masks *nodes;
	unsigned long *cpu, *smt;
};

static int shadow_idle_init(struct kunit *test, struct shadow_idle *t)
{
	t->cpu = kunit_kcalloc(test, BITS_TO_LONGS(nr_cpu_ids), sizeof(long), GFP_KERNEL);
	t->smt = kunit_kcalloc(test, BITS_TO_LONGS(nr_cpu_ids), sizeof(long), GFP_KERNEL);
	t->nodes = kunit_kcalloc(test, nr_node_ids, sizeof(*t->nodes), GFP_KERNEL);
	if (!t->cpu || !t->smt || !t->nodes)
		return -ENOMEM;
	bitmap_copy(t->cpu, cpumask_bits(cpu_possible_mask), nr_cpu_ids);
	t->topo = (struct scx_idle_topo) {
		.nr_cpus = nr_cpu_ids,
		.nr_nodes = nr_node_ids,
		.global = { .cpu = t->cpu, .smt = t->smt },
		.nodes = t->nodes,
		.online_nodes = nodes_addr(node_states[N_ONLINE]),
	};
	return 0;
}

/*
 * SHADOW_PICKS picks with the production Rust picker, from cursor @start,
 * each picked CPU but every fourth made idle again, so that the rotation
 * goes round and the masks change; with @shadow, the shadow check of each
 * pick runs first, as idle.c runs it. Interrupts off: the rotation cursor
 * is this CPU's.
 */
static unsigned int shadow_idle_run(struct shadow_idle *t, unsigned int start,
				    bool shadow, s32 *got)
{
	unsigned long flags;
	unsigned int end;
	int i;

	local_irq_save(flags);
	cpumask_distribute_set_prev(start);
	for (i = 0; i < SHADOW_PICKS; i++) {
		if (shadow)
			sched_rust_shadow_idle_pick(&t->topo, cpu_possible_mask, NUMA_NO_NODE,
						    0, 0, false, true);
		got[i] = sched_rust_idle_pick(&t->topo, cpu_possible_mask, NUMA_NO_NODE,
					      0, 0);
		if (got[i] >= 0 && i % 4)
			set_bit(got[i], t->cpu);
	}
	end = cpumask_distribute_prev();
	local_irq_restore(flags);
	return end;
}

static void shadow_idle_picks_unchanged(struct kunit *test)
{
	struct shadow_idle off, on;
	s32 got_off[SHADOW_PICKS], got_on[SHADOW_PICKS];
	unsigned int start, end_off, end_on;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, shadow_idle_init(test, &off), 0);
	KUNIT_ASSERT_EQ(test, shadow_idle_init(test, &on), 0);
	local_irq_save(flags);
	start = cpumask_distribute_prev();
	local_irq_restore(flags);

	end_off = shadow_idle_run(&off, start, false, got_off);
	end_on = shadow_idle_run(&on, start, true, got_on);

	KUNIT_EXPECT_MEMEQ(test, got_on, got_off, sizeof(got_off));
	KUNIT_EXPECT_EQ(test, end_on, end_off);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(on.cpu, off.cpu, nr_cpu_ids));
	/* The picks went round: two in a row found two CPUs. */
	KUNIT_EXPECT_NE(test, got_off[1], got_off[2]);
}
#endif /* CONFIG_SCHED_RUST_IDLE_PICK */

static struct kunit_case shadow_cases[] = {
	KUNIT_CASE(shadow_allocations_small),
	KUNIT_CASE(shadow_memory_linear),
#ifdef CONFIG_SCHED_RUST_IDLE_PICK
	KUNIT_CASE(shadow_idle_picks_unchanged),
#endif
	{}
};

static struct kunit_suite shadow_suite = {
	.name = "sched_rust_shadow",
	.test_cases = shadow_cases,
};

kunit_test_suite(shadow_suite);
