// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the C and the Rust sparsemask on identical inputs (C alone
 * without CONFIG_SCHED_RUST_SPARSEMASK).
 *
 * Every case drives both implementations on the same struct sparsemask and
 * requires identical answers, and checks those answers against a plain
 * bool-array model, so that two implementations that are wrong the same way
 * still fail. The walks compared are full wrap-around walks from an origin,
 * including the cases where the v4/v5 iterator stopped early.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "sched_rust.h"
#include "sparsemask.h"

#define SMASK_TEST_SEED		0x5eed2026ULL
#define SMASK_SMALL_MAX		130
#define SMASK_LARGE_MAX		8192
#define SMASK_LARGE_MASKS	10000

/*
 * The Rust implementation; on a kernel without it (a pure C one), the C
 * implementation again, so that the suite still checks C against the model.
 */
#ifdef CONFIG_SCHED_RUST_SPARSEMASK
#define smask_rust_set_elem	sched_rust_sparsemask_set_elem
#define smask_rust_clear_elem	sched_rust_sparsemask_clear_elem
#define smask_rust_test_elem	sched_rust_sparsemask_test_elem
#define smask_rust_next		sched_rust_sparsemask_next
#else
#define smask_rust_set_elem	sparsemask_set_elem
#define smask_rust_clear_elem	sparsemask_clear_elem
#define smask_rust_test_elem	sparsemask_test_elem
#define smask_rust_next		sparsemask_next
#endif

/* The Rust test, under a name that fits the nested loops below. */
static bool rust_test(const struct sparsemask *mask, int elem)
{
	return smask_rust_test_elem(mask, elem);
}

struct smask_case {
	struct sparsemask *mask;
	bool *model;		/* model[e]: is e set */
	int *walk;		/* scratch: the expected walk */
	int nelems;
	int density;
};

static void smask_case_init(struct kunit *test, struct smask_case *c,
			    int max_nelems)
{
	/* Density 0 has the most chunks: room for any layout up to max_nelems. */
	c->mask = sparsemask_alloc_node(max_nelems, 0, GFP_KERNEL, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, c->mask);
	c->model = kunit_kcalloc(test, max_nelems, sizeof(*c->model), GFP_KERNEL);
	c->walk = kunit_kcalloc(test, max_nelems, sizeof(*c->walk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->model);
	KUNIT_ASSERT_NOT_NULL(test, c->walk);
}

static void smask_case_exit(struct smask_case *c)
{
	sparsemask_free(c->mask);
}

/* Re-initialise the case as an empty mask of @nelems at @density. */
static void smask_case_reset(struct smask_case *c, int nelems, int density)
{
	memset(c->mask, 0, sparsemask_size(nelems, density));
	sparsemask_init(c->mask, nelems, density);
	memset(c->model, 0, nelems * sizeof(*c->model));
	c->nelems = nelems;
	c->density = density;
}

/* Add @e through C or Rust, alternately, and to the model. */
static void smask_case_set(struct smask_case *c, int e)
{
	if (e & 1)
		smask_rust_set_elem(c->mask, e);
	else
		sparsemask_set_elem(c->mask, e);
	c->model[e] = true;
}

/*
 * Walk the mask from @origin with C and Rust in lockstep and compare both
 * with the model's walk. Returns false (after one KUNIT_FAIL) on the first
 * difference, so that a broken implementation fails loudly but briefly.
 */
static bool smask_check_walk(struct kunit *test, struct smask_case *c, int origin)
{
	int n = c->nelems, len = 0, i, e, c_prev = -1, r_prev = -1;

	for (e = origin; e < n; e++)
		if (c->model[e])
			c->walk[len++] = e;
	for (e = 0; e < origin; e++)
		if (c->model[e])
			c->walk[len++] = e;

	for (i = 0; i <= len; i++) {
		int want = i < len ? c->walk[i] : n;
		int c_next = sparsemask_next(c->mask, origin, c_prev);
		int r_next = smask_rust_next(c->mask, origin, r_prev);

		if (c_next != want || r_next != want) {
			KUNIT_FAIL(test,
				   "nelems=%d density=%d origin=%d step %d of %d: want %d, C %d, Rust %d",
				   n, c->density, origin, i, len, want, c_next, r_next);
			return false;
		}
		c_prev = c_next;
		r_prev = r_next;
	}
	return true;
}

/* Test every element through both implementations against the model. */
static bool smask_check_test(struct kunit *test, struct smask_case *c)
{
	int e;

	for (e = -2; e < c->nelems + 2; e++) {
		bool want = e >= 0 && e < c->nelems && c->model[e];
		bool c_has = sparsemask_test_elem(c->mask, e);
		bool r_has = smask_rust_test_elem(c->mask, e);

		if (c_has != want || r_has != want) {
			KUNIT_FAIL(test, "nelems=%d density=%d test(%d): want %d, C %d, Rust %d",
				   c->nelems, c->density, e, want, c_has, r_has);
			return false;
		}
	}
	return true;
}

/* The sizes posted with the series (density 3) and the shared layout. */
static void sparsemask_layout(struct kunit *test)
{
	static const struct { int nelems; size_t bytes; } sizes[] = {
		{ 2, 128 }, { 8, 192 }, { 20, 256 }, { 64, 640 },
		{ 256, 2176 }, { 8192, 65664 },
	};
	int i;

	KUNIT_EXPECT_EQ(test, sizeof(struct sparsemask_chunk), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct sparsemask, chunks), 64);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		KUNIT_EXPECT_EQ(test, sparsemask_size(sizes[i].nelems, 3), sizes[i].bytes);

	/* Sizes the header cannot hold are refused, not truncated. */
	KUNIT_EXPECT_NULL(test, sparsemask_alloc_node(SHRT_MAX + 1, 3, GFP_KERNEL, NUMA_NO_NODE));
	KUNIT_EXPECT_NULL(test, sparsemask_alloc_node(8, SMASK_DENSITY_MAX + 1, GFP_KERNEL,
						      NUMA_NO_NODE));
}

/*
 * Set, clear and test through each implementation, read back through the
 * other and through the raw words: the bit positions must be the posted
 * ones, and out-of-range elements must change nothing.
 */
static void sparsemask_set_clear_test(struct kunit *test)
{
	struct smask_case c;
	int n, d, e;

	smask_case_init(test, &c, SMASK_SMALL_MAX);
	for (d = 0; d <= SMASK_DENSITY_MAX; d++) {
		for (n = 1; n <= SMASK_SMALL_MAX; n++) {
			size_t bytes = sparsemask_size(n, d);

			smask_case_reset(&c, n, d);
			for (e = 0; e < n; e++) {
				unsigned long *word = &c.mask->chunks[e >> d].word;

				smask_rust_set_elem(c.mask, e);
				KUNIT_ASSERT_EQ(test, *word, BIT(e & ((1 << d) - 1)));
				KUNIT_ASSERT_TRUE(test, sparsemask_test_elem(c.mask, e));
				smask_rust_clear_elem(c.mask, e);
				KUNIT_ASSERT_EQ(test, *word, 0);

				sparsemask_set_elem(c.mask, e);
				KUNIT_ASSERT_TRUE(test, rust_test(c.mask, e));
				sparsemask_clear_elem(c.mask, e);
				KUNIT_ASSERT_FALSE(test, rust_test(c.mask, e));
			}

			/* Out of range: no write anywhere, the spare chunk included. */
			for (e = -3; e < n + 3 * (1 << d); e++) {
				if (e >= 0 && e < n)
					continue;
				sparsemask_set_elem(c.mask, e);
				smask_rust_set_elem(c.mask, e);
				KUNIT_ASSERT_FALSE(test, sparsemask_test_elem(c.mask, e));
				KUNIT_ASSERT_FALSE(test, rust_test(c.mask, e));
			}
			bytes -= offsetof(struct sparsemask, chunks);
			KUNIT_ASSERT_NULL(test, memchr_inv(c.mask->chunks, 0, bytes));
		}
	}
	smask_case_exit(&c);
}

/* Every size up to 130, every density, every single bit, every origin. */
static void sparsemask_walk_single_bit(struct kunit *test)
{
	struct smask_case c;
	int n, d, b, origin;

	smask_case_init(test, &c, SMASK_SMALL_MAX);
	for (d = 0; d <= SMASK_DENSITY_MAX; d++) {
		for (n = 1; n <= SMASK_SMALL_MAX; n++) {
			smask_case_reset(&c, n, d);
			/* The empty mask first. */
			for (origin = 0; origin < n; origin++)
				if (!smask_check_walk(test, &c, origin))
					goto out;
			for (b = 0; b < n; b++) {
				smask_case_set(&c, b);
				for (origin = 0; origin < n; origin++)
					if (!smask_check_walk(test, &c, origin))
						goto out;
				sparsemask_clear_elem(c.mask, b);
				c.model[b] = false;
			}
		}
	}
out:
	smask_case_exit(&c);
}

/* Fill @c with each element set with probability @permille / 1000. */
static void smask_fill_random(struct smask_case *c, struct rnd_state *rnd, u32 permille)
{
	int e;

	for (e = 0; e < c->nelems; e++)
		if (prandom_u32_state(rnd) % 1000 < permille)
			smask_case_set(c, e);
}

/* Random masks of every size up to 130 and every density, every origin. */
static void sparsemask_walk_random_small(struct kunit *test)
{
	static const u32 fill[] = { 20, 100, 300, 700, 1000 };
	struct rnd_state rnd;
	struct smask_case c;
	int n, d, f, origin;

	prandom_seed_state(&rnd, SMASK_TEST_SEED);
	smask_case_init(test, &c, SMASK_SMALL_MAX);
	for (d = 0; d <= SMASK_DENSITY_MAX; d++) {
		for (n = 1; n <= SMASK_SMALL_MAX; n++) {
			for (f = 0; f < ARRAY_SIZE(fill); f++) {
				smask_case_reset(&c, n, d);
				smask_fill_random(&c, &rnd, fill[f]);
				if (!smask_check_test(test, &c))
					goto out;
				for (origin = 0; origin < n; origin++)
					if (!smask_check_walk(test, &c, origin))
						goto out;
			}
		}
	}
out:
	smask_case_exit(&c);
}

/* 10^4 random masks of up to 8192 elements, random density and origins. */
static void sparsemask_walk_random_large(struct kunit *test)
{
	struct rnd_state rnd;
	struct smask_case c;
	int i, k;

	prandom_seed_state(&rnd, SMASK_TEST_SEED + 1);
	smask_case_init(test, &c, SMASK_LARGE_MAX);
	for (i = 0; i < SMASK_LARGE_MASKS; i++) {
		int n = 1 + prandom_u32_state(&rnd) % SMASK_LARGE_MAX;
		int d = prandom_u32_state(&rnd) % (SMASK_DENSITY_MAX + 1);
		/* Mostly sparse, as overload masks are; sometimes dense. */
		u32 permille = (i % 10 == 0) ? prandom_u32_state(&rnd) % 1001
					     : prandom_u32_state(&rnd) % 20;

		smask_case_reset(&c, n, d);
		smask_fill_random(&c, &rnd, permille);
		for (k = 0; k < 3; k++) {
			int origin = prandom_u32_state(&rnd) % n;

			if (!smask_check_walk(test, &c, origin))
				goto out;
		}
	}
out:
	smask_case_exit(&c);
}

/*
 * Masks on which the v4/v5 sparsemask_next() stopped early or missed the
 * wrapped part (seed-series.md §1.2): both walks must now be complete.
 */
static void sparsemask_walk_v4_regressions(struct kunit *test)
{
	static const struct {
		int nelems, density, origin;
		int set[8], nset;
	} cases[] = {
		/* Stopped after 5: bits above the first hit ended the walk. */
		{ 16, 3, 4, { 1, 3, 5, 9, 12 }, 5 },
		/* Visited 150, 70, 71 only when nothing above 150 was set. */
		{ 160, 3, 100, { 70, 71, 150 }, 3 },
		{ 160, 3, 100, { 70, 71, 150, 155 }, 4 },
		/* 2 CPUs: origin 1 never found bit 0. */
		{ 2, 3, 1, { 0 }, 1 },
		/* nelems not a multiple of 2^density: the wrapped part was cut. */
		{ 20, 3, 5, { 2 }, 1 },
		{ 100, 3, 97, { 0, 1, 96 }, 3 },
		/* First hit at nelems - 1: the walk never wrapped. */
		{ 20, 3, 5, { 19, 2, 4 }, 3 },
	};
	struct smask_case c;
	int i, k, most = 0;

	/* Room for the largest case (160 elements, more than SMASK_SMALL_MAX). */
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		most = max(most, cases[i].nelems);
	smask_case_init(test, &c, most);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		smask_case_reset(&c, cases[i].nelems, cases[i].density);
		for (k = 0; k < cases[i].nset; k++)
			smask_case_set(&c, cases[i].set[k]);
		smask_check_walk(test, &c, cases[i].origin);
	}
	smask_case_exit(&c);
}

/* Arguments outside the documented range, through both implementations. */
static void sparsemask_next_bad_args(struct kunit *test)
{
	struct smask_case c;
	static const int prevs[] = { -2, 20, 21, INT_MAX, INT_MIN };
	static const int origins[] = { -1, 20, 1000, INT_MIN, INT_MAX };
	int i;

	smask_case_init(test, &c, SMASK_SMALL_MAX);
	smask_case_reset(&c, 20, 3);
	smask_case_set(&c, 3);
	smask_case_set(&c, 17);

	/* A prev that is not an element ends the walk. */
	for (i = 0; i < ARRAY_SIZE(prevs); i++) {
		KUNIT_EXPECT_EQ(test, sparsemask_next(c.mask, 0, prevs[i]), 20);
		KUNIT_EXPECT_EQ(test, smask_rust_next(c.mask, 0, prevs[i]), 20);
	}
	/* An origin outside [0, nelems) counts as 0. */
	for (i = 0; i < ARRAY_SIZE(origins); i++) {
		KUNIT_EXPECT_EQ(test, sparsemask_next(c.mask, origins[i], -1), 3);
		KUNIT_EXPECT_EQ(test, smask_rust_next(c.mask, origins[i], -1), 3);
		KUNIT_EXPECT_EQ(test, sparsemask_next(c.mask, origins[i], 3), 17);
		KUNIT_EXPECT_EQ(test, smask_rust_next(c.mask, origins[i], 3), 17);
	}
	/* An empty mask of no elements. */
	smask_case_reset(&c, 0, 3);
	KUNIT_EXPECT_EQ(test, sparsemask_next(c.mask, 0, -1), 0);
	KUNIT_EXPECT_EQ(test, smask_rust_next(c.mask, 0, -1), 0);
	smask_case_exit(&c);
}

/*
 * Elements outside [0, nelems) through both implementations: set writes
 * nothing, clear takes nothing away, test is false; on a full mask of 20
 * elements and on a mask of none.
 */
static void sparsemask_elem_bad_args(struct kunit *test)
{
	static const int sizes[] = { 20, 0 };
	struct smask_case c;
	int i, s, e;

	smask_case_init(test, &c, SMASK_SMALL_MAX);
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		int n = sizes[s];
		const int bad[] = { -1, -2, INT_MIN, n, n + 1, n + 8, SHRT_MAX, INT_MAX };
		size_t bytes = sparsemask_size(n, 3) - offsetof(struct sparsemask, chunks);

		smask_case_reset(&c, n, 3);
		for (e = 0; e < n; e++)
			smask_case_set(&c, e);
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			sparsemask_clear_elem(c.mask, bad[i]);
			smask_rust_clear_elem(c.mask, bad[i]);
			sparsemask_set_elem(c.mask, bad[i]);
			smask_rust_set_elem(c.mask, bad[i]);
			KUNIT_EXPECT_FALSE(test, sparsemask_test_elem(c.mask, bad[i]));
			KUNIT_EXPECT_FALSE(test, rust_test(c.mask, bad[i]));
		}
		/* Every element still set, and nothing else. */
		for (e = 0; e < n; e++) {
			KUNIT_EXPECT_TRUE(test, sparsemask_test_elem(c.mask, e));
			KUNIT_EXPECT_TRUE(test, rust_test(c.mask, e));
		}
		if (!n)
			KUNIT_EXPECT_NULL(test, memchr_inv(c.mask->chunks, 0, bytes));
		else
			KUNIT_EXPECT_EQ(test, c.mask->chunks[n >> 3].word,
					GENMASK((n & 7) - 1, 0));
		smask_check_walk(test, &c, 0);
	}
	smask_case_exit(&c);
}

static struct kunit_case sparsemask_cases[] = {
	KUNIT_CASE(sparsemask_layout),
	KUNIT_CASE(sparsemask_set_clear_test),
	KUNIT_CASE(sparsemask_walk_v4_regressions),
	KUNIT_CASE(sparsemask_next_bad_args),
	KUNIT_CASE(sparsemask_elem_bad_args),
	KUNIT_CASE_SLOW(sparsemask_walk_single_bit),
	KUNIT_CASE_SLOW(sparsemask_walk_random_small),
	KUNIT_CASE_SLOW(sparsemask_walk_random_large),
	{}
};

static struct kunit_suite sparsemask_suite = {
	.name = "sched_rust_sparsemask",
	.test_cases = sparsemask_cases,
};

kunit_test_suite(sparsemask_suite);

MODULE_DESCRIPTION("KUnit: C and Rust sparsemask against each other");
MODULE_LICENSE("GPL");
