// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the C and the Rust steal candidate walk on identical inputs.
 *
 * Both walks run on the same overload mask and SMT sibling bitmap with a
 * steal_from() callback that records each CPU tried and answers what the
 * case says for it (STEAL_TAKEN, STEAL_REFUSED or STEAL_STOP); the
 * sequences of tried CPUs must be identical, and equal to the one computed
 * by a direct transcription of the walk (siblings once, then the other
 * overloaded CPUs with wrap-around) over a plain bool array.
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
	s8 answer[STEAL_MAX_CPUS];	/* what steal_from(cpu) returns */
	int nr_cpus, dst_cpu, threads;
};

struct steal_record {
	const s8 *answer;
	int tried[2 * STEAL_MAX_CPUS];
	int nr_tried;
	bool overflow;
};

static int record_steal_from(void *arg, int src_cpu)
{
	struct steal_record *rec = arg;

	if (rec->nr_tried >= ARRAY_SIZE(rec->tried) || src_cpu < 0 ||
	    src_cpu >= STEAL_MAX_CPUS) {
		rec->overflow = true;
		return STEAL_STOP;
	}
	rec->tried[rec->nr_tried++] = src_cpu;
	return rec->answer[src_cpu];
}

/* The walk as two plain loops over arrays; the destination is in range. */
static int model_steal(const struct steal_case *c, struct steal_record *rec)
{
	int cpu, i, ret;

	if (c->siblings) {
		for (cpu = 0; cpu < c->nr_cpus; cpu++) {
			if (!test_bit(cpu, c->siblings) || cpu == c->dst_cpu ||
			    !c->overloaded[cpu])
				continue;
			ret = record_steal_from(rec, cpu);
			if (ret)
				return ret > 0 ? cpu : -1;
		}
	}
	for (i = 0; i < c->nr_cpus; i++) {
		cpu = (c->dst_cpu + i) % c->nr_cpus;
		if (!c->overloaded[cpu] || cpu == c->dst_cpu ||
		    (c->siblings && test_bit(cpu, c->siblings)))
			continue;
		ret = record_steal_from(rec, cpu);
		if (ret)
			return ret > 0 ? cpu : -1;
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
	want.answer = c->answer;
	got_c.answer = c->answer;
	got_rust.answer = c->answer;

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
	memset(c->answer, STEAL_REFUSED, sizeof(c->answer));
	c->nr_cpus = nr_cpus;
	c->dst_cpu = dst_cpu;
	c->threads = threads;

	bitmap_zero(test->priv, STEAL_MAX_CPUS);
	c->siblings = smt ? test->priv : NULL;
	if (smt)
		for (cpu = core; cpu < core + threads && cpu < nr_cpus; cpu++)
			__set_bit(cpu, c->siblings);
}

static void steal_case_answer(struct steal_case *c, int cpu, int answer)
{
	sparsemask_set_elem(c->overload, cpu);
	c->overloaded[cpu] = true;
	c->answer[cpu] = answer;
}

static void steal_case_overload(struct steal_case *c, int cpu, bool accept)
{
	steal_case_answer(c, cpu, accept ? STEAL_TAKEN : STEAL_REFUSED);
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

			/* Its sibling is overloaded but refuses: tried once. */
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

			/* The second candidate says stop: the walk ends. */
			c->answer[(dst + 3) % n] = STEAL_STOP;
			check_steal(test, c);

			/* A sibling says stop: nothing after it. */
			c->answer[(dst ^ 1) < n ? (dst ^ 1) : 0] = STEAL_STOP;
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
	static const int want_smt[] = { 5, 1, 12 };
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
				/* Siblings 4-5: 5 is tried first, and only then. */
				c->siblings = test->priv;
				__set_bit(4, c->siblings);
				__set_bit(5, c->siblings);
			}
			memset(&got_c, 0, sizeof(got_c));
			memset(&got_rust, 0, sizeof(got_rust));
			got_c.answer = c->answer;
			got_rust.answer = c->answer;
			rc = steal_search(c->overload, c->siblings, c->dst_cpu,
					  record_steal_from, &got_c);
			rr = sched_rust_steal_search(c->overload, c->siblings, c->dst_cpu,
						     record_steal_from, &got_rust);
			KUNIT_EXPECT_EQ_MSG(test, rc, k == 2 ? 12 : -1,
					    "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_EQ_MSG(test, rr, rc, "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_EQ_MSG(test, got_c.nr_tried, k ? 3 : 0,
					    "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_EQ_MSG(test, got_rust.nr_tried, got_c.nr_tried,
					    "dst %d case %d", dsts[i], k);
			KUNIT_EXPECT_MEMEQ(test, got_rust.tried, got_c.tried,
					   got_c.nr_tried * sizeof(int));
			/*
			 * The walk from 0: 1, 5, 12; with siblings 4-5, 5
			 * first: 5, 1, 12.
			 */
			if (got_c.nr_tried == 3 && k != 1)
				KUNIT_EXPECT_MEMEQ(test, want, got_c.tried, sizeof(want));
			if (got_c.nr_tried == 3 && k == 1)
				KUNIT_EXPECT_MEMEQ(test, want_smt, got_c.tried,
						   sizeof(want_smt));
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
		u32 stop_permille = prandom_u32_state(&rnd) % 100;

		steal_case_init(test, c, n, prandom_u32_state(&rnd) % n, threads,
				prandom_u32_state(&rnd) & 1);
		for (cpu = 0; cpu < n; cpu++) {
			bool accept;

			if (prandom_u32_state(&rnd) % 1000 >= overload_permille)
				continue;
			accept = prandom_u32_state(&rnd) % 1000 < accept_permille;
			steal_case_overload(c, cpu, accept);
			if (prandom_u32_state(&rnd) % 1000 < stop_permille)
				c->answer[cpu] = STEAL_STOP;
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
