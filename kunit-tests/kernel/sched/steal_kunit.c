// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the C and the Rust steal candidate walk on identical inputs.
 *
 * Both walks run on the same overload mask and SMT sibling bitmap with a
 * steal_from() callback that records each CPU tried and accepts only the
 * CPUs the case says; the sequences of tried CPUs must be identical, and
 * equal to the one computed by a direct transcription of the posted
 * try_steal() loops over a plain bool array.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "sched_rust.h"
#include "sparsemask.h"
#include "steal_search.h"

#define STEAL_TEST_SEED		0x57ea1ULL
#define STEAL_MAX_CPUS		300
#define STEAL_RANDOM_CASES	10000

struct steal_case {
	struct sparsemask *overload;
	unsigned long *siblings;	/* NULL: no SMT */
	bool overloaded[STEAL_MAX_CPUS];
	bool accept[STEAL_MAX_CPUS];	/* steal_from(cpu) succeeds */
	int nr_cpus, dst_cpu, threads;
};

struct steal_record {
	const bool *accept;
	int tried[2 * STEAL_MAX_CPUS];
	int nr_tried;
	bool overflow;
};

static bool record_steal_from(void *arg, int src_cpu)
{
	struct steal_record *rec = arg;

	if (rec->nr_tried >= ARRAY_SIZE(rec->tried) || src_cpu < 0 ||
	    src_cpu >= STEAL_MAX_CPUS) {
		rec->overflow = true;
		return true;	/* stop the walk */
	}
	rec->tried[rec->nr_tried++] = src_cpu;
	return rec->accept[src_cpu];
}

/* The posted try_steal() loops, over plain arrays. */
static int model_steal(const struct steal_case *c, struct steal_record *rec)
{
	int cpu, i;

	if (c->siblings) {
		for (cpu = 0; cpu < c->nr_cpus; cpu++) {
			if (test_bit(cpu, c->siblings) && cpu != c->dst_cpu &&
			    c->overloaded[cpu] && record_steal_from(rec, cpu))
				return cpu;
		}
	}
	for (i = 0; i < c->nr_cpus; i++) {
		cpu = (c->dst_cpu + i) % c->nr_cpus;
		if (c->overloaded[cpu] && cpu != c->dst_cpu &&
		    record_steal_from(rec, cpu))
			return cpu;
	}
	return -1;
}

/* Run the model, C and Rust on @c; compare results and tried sequences. */
static bool check_steal(struct kunit *test, const struct steal_case *c)
{
	static struct steal_record want, got_c, got_rust;	/* large; tests run serially */
	int w, rc, rr;

	memset(&want, 0, sizeof(want));
	memset(&got_c, 0, sizeof(got_c));
	memset(&got_rust, 0, sizeof(got_rust));
	want.accept = c->accept;
	got_c.accept = c->accept;
	got_rust.accept = c->accept;

	w = model_steal(c, &want);
	rc = steal_search(c->overload, c->siblings, c->dst_cpu, record_steal_from, &got_c);
	rr = sched_rust_steal_search(c->overload, c->siblings, c->dst_cpu,
				     record_steal_from, &got_rust);

	if (w != rc || w != rr || want.nr_tried != got_c.nr_tried ||
	    want.nr_tried != got_rust.nr_tried || got_c.overflow || got_rust.overflow ||
	    memcmp(want.tried, got_c.tried, want.nr_tried * sizeof(int)) ||
	    memcmp(want.tried, got_rust.tried, want.nr_tried * sizeof(int))) {
		KUNIT_FAIL(test,
			   "nr_cpus=%d dst=%d threads=%d smt=%d: stolen from want %d C %d Rust %d; tried want %d C %d Rust %d; first tried want %d C %d Rust %d",
			   c->nr_cpus, c->dst_cpu, c->threads, !!c->siblings, w, rc, rr,
			   want.nr_tried, got_c.nr_tried, got_rust.nr_tried,
			   want.nr_tried ? want.tried[0] : -1,
			   got_c.nr_tried ? got_c.tried[0] : -1,
			   got_rust.nr_tried ? got_rust.tried[0] : -1);
		return false;
	}
	return true;
}

static void steal_case_init(struct kunit *test, struct steal_case *c, int nr_cpus,
			    int dst_cpu, int threads, bool smt)
{
	int core = dst_cpu / threads * threads, cpu;

	memset(c->overload, 0, sparsemask_size(STEAL_MAX_CPUS, SMASK_DENSITY_DEFAULT));
	sparsemask_init(c->overload, nr_cpus, SMASK_DENSITY_DEFAULT);
	memset(c->overloaded, 0, sizeof(c->overloaded));
	memset(c->accept, 0, sizeof(c->accept));
	c->nr_cpus = nr_cpus;
	c->dst_cpu = dst_cpu;
	c->threads = threads;

	bitmap_zero(test->priv, STEAL_MAX_CPUS);
	c->siblings = smt ? test->priv : NULL;
	if (smt)
		for (cpu = core; cpu < core + threads && cpu < nr_cpus; cpu++)
			__set_bit(cpu, c->siblings);
}

static void steal_case_overload(struct steal_case *c, int cpu, bool accept)
{
	sparsemask_set_elem(c->overload, cpu);
	c->overloaded[cpu] = true;
	c->accept[cpu] = accept;
}

static int steal_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, BITS_TO_LONGS(STEAL_MAX_CPUS) * sizeof(long),
				   GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static struct steal_case *alloc_case(struct kunit *test)
{
	struct steal_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->overload = kunit_kzalloc(test,
				    sparsemask_size(STEAL_MAX_CPUS, SMASK_DENSITY_DEFAULT),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->overload);
	return c;
}

/* The edge cases the issue names, on 8 and on 13 CPUs (not a multiple of 8). */
static void steal_walk_edge_cases(struct kunit *test)
{
	struct steal_case *c = alloc_case(test);
	static const int sizes[] = { 8, 13 };
	int s, dst;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		int n = sizes[s];

		for (dst = 0; dst < n; dst++) {
			/* Empty mask: nothing tried. */
			steal_case_init(test, c, n, dst, 2, true);
			check_steal(test, c);

			/* The destination is the only overloaded CPU. */
			steal_case_overload(c, dst, true);
			check_steal(test, c);

			/* Its sibling is overloaded but refuses: tried twice. */
			steal_case_init(test, c, n, dst, 2, true);
			steal_case_overload(c, (dst ^ 1) < n ? (dst ^ 1) : 0, false);
			check_steal(test, c);

			/* The first candidate refuses, the next one accepts. */
			steal_case_init(test, c, n, dst, 1, false);
			steal_case_overload(c, (dst + 1) % n, false);
			steal_case_overload(c, (dst + 3) % n, true);
			check_steal(test, c);

			/* Every CPU refuses: the full walk, wrapping around. */
			steal_case_init(test, c, n, dst, 2, true);
			for (int cpu = 0; cpu < n; cpu++)
				steal_case_overload(c, cpu, false);
			check_steal(test, c);
		}
	}
}

/*
 * A destination outside [0, nr_cpus) is no CPU of the LLC: both walks try
 * every overloaded CPU from 0 up (the origin of a sparsemask walk outside
 * the mask counts as 0), siblings first if a bitmap is given. Empty masks
 * try nothing.
 */
static void steal_walk_bad_dst(struct kunit *test)
{
	static const int dsts[] = { -1, -2, INT_MIN, 13, 14, 300, INT_MAX };
	static const int want[] = { 1, 5, 12 };
	struct steal_case *c = alloc_case(test);
	static struct steal_record got_c, got_rust;
	int i, k, rc, rr;

	for (i = 0; i < ARRAY_SIZE(dsts); i++) {
		for (k = 0; k < 3; k++) {
			/* k: 0 empty mask, 1 everything refuses, 2 CPU 12 accepts */
			steal_case_init(test, c, 13, 0, 1, false);
			c->dst_cpu = dsts[i];
			if (k) {
				steal_case_overload(c, 1, false);
				steal_case_overload(c, 5, false);
				steal_case_overload(c, 12, k == 2);
			}
			if (k == 1) {
				/* Siblings 4-5: 5 is tried first, then again. */
				c->siblings = test->priv;
				__set_bit(4, c->siblings);
				__set_bit(5, c->siblings);
			}
			memset(&got_c, 0, sizeof(got_c));
			memset(&got_rust, 0, sizeof(got_rust));
			got_c.accept = c->accept;
			got_rust.accept = c->accept;
			rc = steal_search(c->overload, c->siblings, c->dst_cpu,
					  record_steal_from, &got_c);
			rr = sched_rust_steal_search(c->overload, c->siblings, c->dst_cpu,
						     record_steal_from, &got_rust);
			KUNIT_EXPECT_EQ_MSG(test, rc, k == 2 ? 12 : -1,
					    "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_EQ_MSG(test, rr, rc, "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_EQ_MSG(test, got_c.nr_tried, k ? 3 + (k == 1) : 0,
					    "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_EQ_MSG(test, got_rust.nr_tried, got_c.nr_tried,
					    "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_MEMEQ(test, got_rust.tried, got_c.tried,
					   got_c.nr_tried * sizeof(int));
			/* After the siblings, the walk from 0: 1, 5, 12. */
			if (got_c.nr_tried >= 3)
				KUNIT_EXPECT_MEMEQ(test, want,
						   got_c.tried + got_c.nr_tried - 3, sizeof(want));
		}
	}
}

/* 10^4 random overload masks, acceptances and SMT topologies. */
static void steal_walk_random(struct kunit *test)
{
	struct steal_case *c = alloc_case(test);
	struct rnd_state rnd;
	int i, cpu;

	prandom_seed_state(&rnd, STEAL_TEST_SEED);
	for (i = 0; i < STEAL_RANDOM_CASES; i++) {
		int n = 1 + prandom_u32_state(&rnd) % STEAL_MAX_CPUS;
		int threads = 1 + prandom_u32_state(&rnd) % 4;
		u32 overload_permille = prandom_u32_state(&rnd) % 400;
		u32 accept_permille = prandom_u32_state(&rnd) % 1000;

		steal_case_init(test, c, n, prandom_u32_state(&rnd) % n, threads,
				prandom_u32_state(&rnd) & 1);
		for (cpu = 0; cpu < n; cpu++) {
			bool accept;

			if (prandom_u32_state(&rnd) % 1000 >= overload_permille)
				continue;
			accept = prandom_u32_state(&rnd) % 1000 < accept_permille;
			steal_case_overload(c, cpu, accept);
		}
		if (!check_steal(test, c))
			return;
	}
}

static struct kunit_case steal_cases[] = {
	KUNIT_CASE(steal_walk_edge_cases),
	KUNIT_CASE(steal_walk_bad_dst),
	KUNIT_CASE_SLOW(steal_walk_random),
	{}
};

static struct kunit_suite steal_suite = {
	.name = "sched_rust_steal",
	.init = steal_test_init,
	.test_cases = steal_cases,
};

kunit_test_suite(steal_suite);
