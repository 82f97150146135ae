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
 */
#include <kunit/test.h>
#include <linux/mm.h>

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
	       2 * sizes[SHADOW_ALLOC_IDLE_NODES] + 2 * sizes[SHADOW_ALLOC_IDLE_ALLOWED];
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

static struct kunit_case shadow_cases[] = {
	KUNIT_CASE(shadow_allocations_small),
	KUNIT_CASE(shadow_memory_linear),
	{}
};

static struct kunit_suite shadow_suite = {
	.name = "sched_rust_shadow",
	.test_cases = shadow_cases,
};

kunit_test_suite(shadow_suite);
