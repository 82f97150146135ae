// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the C and the Rust asymmetric capacity fit on identical inputs.
 *
 * QEMU presents no asymmetric capacities, so the inputs are synthetic: per
 * CPU an original capacity (two tiers 1024/512, three tiers 1024/768/160,
 * all equal, or anything up to 1100), the capacity left to CFS, HW and
 * cpufreq pressure, idle_cpu() and a SCHED_IDLE-only idleness, on SMT
 * layouts of 1 to 4 threads per core; per task, utilisation, uclamp min
 * and max; per scan, the span, the target, SIS_UTIL with nr_idle_scan and
 * the idle-cores hint.
 *
 * The C side is the scheduler's own code: the bodies of fair.c's
 * util_fits_cpu(), asym_fits_cpu() and select_idle_capacity()
 * (__util_fits_cpu(), __asym_fits_cpu(), __select_idle_capacity() in
 * asym_fit.h), which read each CPU through a struct asym_cpu_ops; fair.c
 * passes the run queues' accessors, this suite those of the described CPUs
 * of asym_fit_machine.h. The Rust side gets the same CPUs as views, through
 * the machine's view callback.
 *
 * For select_idle_capacity(), C and Rust must pick the same CPU, make the
 * same idle-cores hint update, and ask whether the same CPUs are idle, in
 * the same order; the Rust views must ask for the fields the scan needs.
 * util_fits_cpu() and the test of asym_fits_cpu() are compared directly.
 * Hand-made cases reach each rank of the table, each early return, the
 * SIS_UTIL cut-off and the !SMT collapse, and check the expected pick.
 * Inputs outside the scheduler's contract (a target outside the span's
 * bits, no bits at all) are checked on the Rust side only, which must
 * pick nothing and clear nothing.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "asym_fit_machine.h"

#define ASYM_TEST_SEED		0xa5f17ULL
#define ASYM_MAX_CPUS		128
#define ASYM_RANDOM_SCANS	20000
#define ASYM_RANDOM_FITS	20000

struct asym_case {
	int nr_cpus;
	int threads;			/* per core; cores are aligned groups */
	unsigned long capacity_orig[ASYM_MAX_CPUS];
	unsigned long capacity[ASYM_MAX_CPUS];	/* capacity_of() */
	unsigned long pressure[ASYM_MAX_CPUS];	/* HW/cpufreq pressure */
	bool idle[ASYM_MAX_CPUS];		/* idle_cpu() */
	bool sched_idle[ASYM_MAX_CPUS];		/* choose_idle_cpu() only */
	DECLARE_BITMAP(cpus, ASYM_MAX_CPUS);
	struct asym_fit_task task;
	struct asym_scan scan;
};

/* is_core_idle(): every other CPU of @cpu's core is idle_cpu(). */
static bool case_core_idle(const struct asym_case *c, int cpu)
{
	int core = cpu / c->threads * c->threads, sib;

	for (sib = core; sib < core + c->threads && sib < c->nr_cpus; sib++)
		if (sib != cpu && !c->idle[sib])
			return false;
	return true;
}

/*
 * A case as described CPUs (asym_fit_machine.h), with room to record
 * every CPU a scan asks about. One for the C scan, one for the Rust scan.
 */
struct case_machine {
	struct asym_machine m;
	struct asym_machine_cpu cpus[ASYM_MAX_CPUS];
	struct asym_machine_cpu *chunks[DIV_ROUND_UP(ASYM_MAX_CPUS, ASYM_MACHINE_CHUNK)];
	int seen[ASYM_MAX_CPUS];
	unsigned int want[ASYM_MAX_CPUS];
};

static struct asym_machine *case_machine(struct case_machine *cm,
					 const struct asym_case *c)
{
	int cpu;

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		cm->cpus[cpu] = (struct asym_machine_cpu) {
			.view = {
				.capacity = c->capacity[cpu],
				.capacity_orig = c->capacity_orig[cpu],
				.actual_capacity = c->capacity_orig[cpu] - c->pressure[cpu],
				.core_idle = case_core_idle(c, cpu),
			},
			/* choose_idle_cpu(): idle, or running SCHED_IDLE only */
			.idle = c->idle[cpu] || c->sched_idle[cpu],
		};
	}
	for (cpu = 0; cpu < ARRAY_SIZE(cm->chunks); cpu++)
		cm->chunks[cpu] = asym_machine_chunk(cm->cpus, cpu);
	cm->m = (struct asym_machine) {
		.chunks = cm->chunks, .nr_cpus = c->nr_cpus,
		.smt_active = true,	/* the scan takes has_idle_core instead */
		.seen = cm->seen, .want = cm->want, .max_seen = ASYM_MAX_CPUS,
	};
	asym_machine_reset(&cm->m);
	return &cm->m;
}

/* The machines of check_scan() and case_outcome(): tests run serially. */
static struct case_machine case_c, case_rust;

/* What a scan asked is well formed: no CPU outside, none left unrecorded. */
static bool asked_ok(const struct asym_machine *m)
{
	return !m->outside && m->nr_seen <= m->max_seen;
}

/* The fields the Rust scan must ask for. */
static unsigned int case_want(const struct asym_case *c)
{
	return (c->scan.has_idle_core ? ASYM_VIEW_CORE : 0) |
	       (c->task.uclamp_used ? ASYM_VIEW_UCLAMP : 0);
}

/* The outcome of a C scan, for the coverage counts of the random test. */
enum asym_outcome {
	ASYM_OUT_NONE,		/* -1 */
	ASYM_OUT_FIT,		/* fits on a preferred CPU: early return */
	ASYM_OUT_RANK,		/* + rank - ASYM_IDLE_UCLAMP_MISFIT: 2..6 */
	ASYM_NR_OUTCOMES = ASYM_OUT_RANK + 5,
};

static noinline_for_stack int case_outcome(const struct asym_case *c, int cpu)
{
	bool preferred;
	int fits;

	if (cpu < 0)
		return ASYM_OUT_NONE;
	preferred = !c->scan.has_idle_core || case_core_idle(c, cpu);
	fits = asym_machine_util_fits_cpu(case_machine(&case_c, c), &c->task, cpu);
	if (fits > 0 && preferred)
		return ASYM_OUT_FIT;
	if (fits > 0)
		fits = ASYM_IDLE_THREAD_FITS;
	if (preferred)
		fits += ASYM_IDLE_CORE_BIAS;
	return ASYM_OUT_RANK + fits - ASYM_IDLE_UCLAMP_MISFIT;
}

/*
 * Run the C and the Rust scan on @c; they must agree on everything. With
 * @want_cpu >= -1, both must also pick @want_cpu and clear the hint iff
 * @want_clear. Returns the C pick (or INT_MIN on a mismatch).
 *
 * A target outside [0, nbits) is outside select_idle_capacity()'s contract
 * (the scheduler's target is a CPU of the span); there only the Rust scan
 * runs, and it must pick nothing and clear nothing.
 */
static int check_scan(struct kunit *test, const char *name,
		      const struct asym_case *c, int want_cpu, bool want_clear)
{
	struct asym_machine *mc = case_machine(&case_c, c);
	struct asym_machine *mr = case_machine(&case_rust, c);
	bool in_contract = c->scan.target >= 0 &&
			   (unsigned int)c->scan.target < c->scan.nbits;
	bool clear_c = false, clear_rust = true;
	unsigned int want = case_want(c), i;
	int cpu_c = -1, cpu_rust;
	bool want_ok = true;

	if (in_contract) {
		cpu_c = asym_machine_select_idle_capacity(mc, &c->task, &c->scan);
		clear_c = mc->cleared;
	}
	cpu_rust = sched_rust_select_idle_capacity(&c->task, &c->scan, asym_machine_view,
						   mr, &clear_rust);
	for (i = 0; i < mr->nr_seen && i < mr->max_seen; i++)
		want_ok &= mr->want[i] == want;

	if (cpu_c != cpu_rust || clear_c != clear_rust || !asked_ok(mc) ||
	    !asked_ok(mr) || (clear_c && mc->cleared_target != c->scan.target) ||
	    mc->nr_seen != mr->nr_seen ||
	    memcmp(mc->seen, mr->seen, mc->nr_seen * sizeof(int)) ||
	    !want_ok ||
	    (want_cpu >= -1 && (cpu_c != want_cpu || clear_c != want_clear))) {
		KUNIT_FAIL(test,
			   "%s: nr_cpus=%d threads=%d target=%d hic=%d sis=%d nr_idle_scan=%d util=%lu uclamp=%d/%lu/%lu: cpu want %d C %d Rust %d; clear want %d C %d Rust %d; CPUs asked C %d Rust %d (fields %s)",
			   name, c->nr_cpus, c->threads, c->scan.target,
			   c->scan.has_idle_core, c->scan.sis_util,
			   c->scan.nr_idle_scan, c->task.util, c->task.uclamp_used,
			   c->task.uclamp_min, c->task.uclamp_max, want_cpu, cpu_c,
			   cpu_rust, want_clear, clear_c, clear_rust,
			   mc->nr_seen, mr->nr_seen, want_ok ? "ok" : "wrong");
		return INT_MIN;
	}
	return cpu_c;
}

static void case_reset(struct asym_case *c, int nr_cpus, int threads)
{
	memset(c, 0, sizeof(*c));
	c->nr_cpus = nr_cpus;
	c->threads = threads;
	bitmap_fill(c->cpus, nr_cpus);
	c->scan.cpus = c->cpus;
	c->scan.nbits = nr_cpus;
	c->task.uclamp_max = SCHED_CAPACITY_SCALE;
}

static struct asym_case *alloc_case(struct kunit *test)
{
	struct asym_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	return c;
}

/*
 * A hand-made case on up to 8 CPUs: @idle is one letter per CPU, 'I' idle,
 * 'B' busy, 'S' SCHED_IDLE only (choose_idle_cpu() but not idle_cpu());
 * a @cap of 0 means @orig.
 */
struct asym_hand {
	const char *name;
	int threads, target;
	const char *idle;
	unsigned long orig[8], cap[8], pressure[8];
	unsigned long util, uclamp_min, uclamp_max;
	bool uclamp, has_idle_core, sis_util;
	int nr_idle_scan;
	int want_cpu;
	bool want_clear;
};

#define BIG8	{ 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024 }

static const struct asym_hand hand_cases[] = {
	{ "early return: fits on an idle core", 2, 5, "IIIIIIII", BIG8, {}, {},
	  600, 0, 1024, false, true, false, 0, 5, false },
	{ "early return: fits, no idle core sought (a busy sibling is fine)",
	  2, 4, "BBBBIBBB", BIG8, {}, {}, 600, 0, 1024, false, false, false, 0,
	  4, false },
	{ "rank -4 (idle core, uclamp_min miss) by actual capacity", 2, 0,
	  "IIIIIIII", { 512, 512, 512, 512, 1024, 1024, 1024, 1024 },
	  { 100, 100, 100, 100 }, { 0, 0, 0, 0, 300, 200, 250, 400 },
	  100, 900, 1024, true, true, false, 0, 5, false },
	{ "rank -3 (idle core, misfit) beats rank -2 (busy sibling, fits)", 2, 0,
	  "IBIIBBBB", { 1024, 1024, 512, 512, 1024, 1024, 1024, 1024 }, {}, {},
	  600, 0, 1024, false, true, false, 0, 2, false },
	{ "rank -2 (busy sibling, fits) beats -1 and 0; hint cleared", 2, 4,
	  "IBIBIBBB", { 1024, 1024, 1024, 1024, 100, 100, 1024, 1024 }, {},
	  { 0, 0, 300 }, 100, 900, 1024, true, true, false, 0, 0, true },
	{ "rank -1 (busy sibling, uclamp_min miss) beats 0; hint cleared", 2, 4,
	  "BBIBIBBB", { 1024, 1024, 1024, 1024, 100, 100, 1024, 1024 }, {},
	  { 0, 0, 300 }, 100, 900, 1024, true, true, false, 0, 2, true },
	{ "rank 0 (busy sibling, misfit): the largest capacity; hint cleared",
	  2, 2, "IBIBIBIB", { 512, 512, 300, 300, 512, 512, 160, 160 }, {}, {},
	  600, 0, 1024, false, true, false, 0, 4, true },
	{ "rank 0 with capacity 0 is never chosen; hint cleared", 2, 0,
	  "IBIBIBIB", {}, {}, {}, 600, 0, 1024, false, true, false, 0, -1, true },
	{ "no idle CPU, idle core sought: hint cleared", 2, 3, "BBBBBBBB", BIG8,
	  {}, {}, 600, 0, 1024, false, true, false, 0, -1, true },
	{ "no idle CPU, no idle core sought: hint kept", 2, 3, "BBBBBBBB", BIG8,
	  {}, {}, 600, 0, 1024, false, false, false, 0, -1, false },
	{ "SCHED_IDLE sibling: a thread for its sibling, itself on an idle core",
	  2, 0, "ISIIIIII", BIG8, {}, {}, 600, 0, 1024, false, true, false, 0, 1,
	  false },
	{ "SIS_UTIL cut-off: nr_idle_scan == 0 picks nothing", 2, 1, "IIIIIIII",
	  BIG8, {}, {}, 600, 0, 1024, false, false, true, 0, -1, false },
	{ "SIS_UTIL budget spent: the best of the first two", 1, 0, "IIIIIIII",
	  { 100, 200, 300, 1024, 1024, 1024, 1024, 1024 }, {}, {}, 600, 0, 1024,
	  false, false, true, 2, 1, false },
	{ "SIS_UTIL budget ignored while an idle core is sought", 2, 0,
	  "IIIIIIII", { 100, 100, 200, 200, 300, 300, 1024, 1024 }, {}, {}, 600,
	  0, 1024, false, true, true, 2, 6, false },
	{ "SIS_UTIL nr_idle_scan == INT_MAX wraps like C's int", 2, 3,
	  "IIIIIIII", BIG8, {}, {}, 600, 0, 1024, false, false, true, INT_MAX, 3,
	  false },
	{ "SIS_UTIL negative nr_idle_scan: budget spent at once", 2, 3,
	  "IIIIIIII", BIG8, {}, {}, 600, 0, 1024, false, false, true, -5, -1,
	  false },
	{ "!SMT collapse: the first CPU that fits, whatever its neighbours", 1, 0,
	  "IBIIIIII", { 512, 1024, 512, 1024, 1024, 1024, 1024, 1024 }, {}, {},
	  600, 0, 1024, false, false, false, 0, 3, false },
	{ "!SMT collapse: no fit, largest capacity at rank -3", 1, 1, "IIIBBBBB",
	  { 512, 300, 512, 1024, 1024, 1024, 1024, 1024 }, {}, {}, 600, 0, 1024,
	  false, false, false, 0, 2, false },
	{ "!SMT collapse: rank -4 beats -3", 1, 0, "IIIBBBBB",
	  { 512, 1024, 1024, 1024, 1024, 1024, 1024, 1024 }, { 100 },
	  { 0, 300, 200 }, 100, 900, 1024, true, false, false, 0, 2, false },
	{ "tie at equal rank and capacity: the first in walk order", 1, 5,
	  "IIIIIIII", { 512, 512, 512, 512, 512, 512, 512, 512 }, {}, {}, 600, 0,
	  1024, false, false, false, 0, 5, false },
	{ "uclamp_max caps the task: fits a little CPU", 2, 3, "IIIIIIII",
	  { 512, 512, 512, 512, 512, 512, 512, 512 }, {}, {}, 900, 0, 512, true,
	  true, false, 0, 3, false },
	{ "uclamp_max at full size does not cap on a full-size CPU", 1, 0,
	  "IIIIIIII", { 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024 },
	  { 800, 800, 800, 800, 800, 800, 800, 900 }, {}, 700, 0, 1024, true,
	  false, false, 0, 7, false },
	{ "without uclamp, capacity_of() decides: the largest at rank -3",
	  1, 0, "IIIIIIII", { 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024 },
	  { 500, 500, 500, 500, 500, 500, 500, 600 }, {}, 700, 0, 700, false,
	  false, false, 0, 7, false },
};

static void asym_scan_hand_made(struct kunit *test)
{
	struct asym_case *c = alloc_case(test);
	int i, cpu;

	for (i = 0; i < ARRAY_SIZE(hand_cases); i++) {
		const struct asym_hand *h = &hand_cases[i];

		case_reset(c, 8, h->threads);
		for (cpu = 0; cpu < 8; cpu++) {
			c->capacity_orig[cpu] = h->orig[cpu];
			c->capacity[cpu] = h->cap[cpu] ?: h->orig[cpu];
			c->pressure[cpu] = h->pressure[cpu];
			c->idle[cpu] = h->idle[cpu] == 'I';
			c->sched_idle[cpu] = h->idle[cpu] == 'S';
		}
		c->task.util = h->util;
		c->task.uclamp_min = h->uclamp_min;
		c->task.uclamp_max = h->uclamp_max;
		c->task.uclamp_used = h->uclamp;
		c->scan.target = h->target;
		c->scan.has_idle_core = h->has_idle_core;
		c->scan.sis_util = h->sis_util;
		c->scan.nr_idle_scan = h->nr_idle_scan;
		check_scan(test, h->name, c, h->want_cpu, h->want_clear);
	}
}

/* Bad input and empty spans, identical in C and Rust. */
static void asym_scan_edges(struct kunit *test)
{
	struct asym_case *c = alloc_case(test);

	case_reset(c, 8, 2);
	memset(c->idle, 1, sizeof(c->idle));
	for (int cpu = 0; cpu < 8; cpu++) {
		c->capacity_orig[cpu] = 1024;
		c->capacity[cpu] = 1024;
	}
	c->scan.has_idle_core = true;

	c->scan.target = 8;
	check_scan(test, "target == nbits", c, -1, false);
	c->scan.target = -1;
	check_scan(test, "negative target", c, -1, false);
	c->scan.target = 0;
	c->scan.nbits = 0;
	check_scan(test, "no CPU at all", c, -1, false);

	/* An empty span: nothing ranked, so an idle core sought is cleared. */
	c->scan.nbits = 8;
	bitmap_zero(c->cpus, ASYM_MAX_CPUS);
	check_scan(test, "empty span, idle core sought", c, -1, true);
	c->scan.has_idle_core = false;
	check_scan(test, "empty span", c, -1, false);

	/* Only the target is allowed, and it fits. */
	__set_bit(5, c->cpus);
	c->scan.target = 5;
	c->task.util = 100;
	check_scan(test, "the target alone", c, 5, false);

	/* A span with bits past nbits: ignored. */
	bitmap_fill(c->cpus, ASYM_MAX_CPUS);
	c->scan.nbits = 3;
	c->scan.target = 2;
	check_scan(test, "bits past nbits", c, 2, false);
}

static u32 rnd(struct rnd_state *r, u32 n)
{
	return prandom_u32_state(r) % n;
}

static unsigned long pick_capacity(struct rnd_state *r, int tiers)
{
	static const unsigned long two[] = { 1024, 512 };
	static const unsigned long three[] = { 1024, 768, 160 };

	switch (tiers) {
	case 0:
		return two[rnd(r, 2)];
	case 1:
		return three[rnd(r, 3)];
	case 2:
		return 1024;
	default:
		return rnd(r, 1101);
	}
}

static void random_case(struct rnd_state *r, struct asym_case *c)
{
	static const unsigned long rt[] = { 0, 0, 0, 5, 100, 400 };
	static const unsigned long hw[] = { 0, 0, 0, 20, 300, 2000 };
	static const unsigned long umin[] = { 0, 0, 100, 300, 600, 800, 1024 };
	static const unsigned long umax[] = { 1024, 1024, 160, 512, 700, 1000 };
	static const int nr_scan[] = { 0, 1, 2, 3, 5, 8, 40, -1, INT_MAX };
	int nr_cpus = 1 + rnd(r, ASYM_MAX_CPUS);
	int threads = 1 + rnd(r, 4);
	int tiers = rnd(r, 4);
	u32 idle_pm = rnd(r, 1001), allowed_pm = 500 + rnd(r, 501);
	bool smt_active = threads > 1 || !rnd(r, 8);
	unsigned long orig = 0;
	int cpu;

	case_reset(c, nr_cpus, threads);
	bitmap_zero(c->cpus, ASYM_MAX_CPUS);
	if (tiers == 2 && rnd(r, 2))
		tiers = 4 + rnd(r, 1025);	/* all equal, at any value */
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		/* SMT siblings share their core's original capacity. */
		if (cpu % threads == 0)
			orig = tiers >= 4 ? tiers - 4 : pick_capacity(r, tiers);
		c->capacity_orig[cpu] = orig;
		c->capacity[cpu] = orig - min(orig, rt[rnd(r, ARRAY_SIZE(rt))]);
		c->pressure[cpu] = hw[rnd(r, ARRAY_SIZE(hw))];
		c->idle[cpu] = rnd(r, 1000) < idle_pm;
		c->sched_idle[cpu] = !rnd(r, 10);
		if (rnd(r, 1000) < allowed_pm)
			__set_bit(cpu, c->cpus);
	}
	c->task.util = rnd(r, 1200);
	c->task.uclamp_min = umin[rnd(r, ARRAY_SIZE(umin))];
	c->task.uclamp_max = umax[rnd(r, ARRAY_SIZE(umax))];
	c->task.uclamp_used = rnd(r, 2);
	c->scan.target = rnd(r, 64) ? rnd(r, nr_cpus) : nr_cpus;
	c->scan.has_idle_core = smt_active && rnd(r, 2);
	c->scan.sis_util = rnd(r, 2);
	c->scan.nr_idle_scan = rnd(r, 2) ? nr_scan[rnd(r, ARRAY_SIZE(nr_scan))]
					 : (int)rnd(r, nr_cpus + 1);
}

static void asym_scan_random(struct kunit *test)
{
	struct asym_case *c = alloc_case(test);
	unsigned int outcomes[ASYM_NR_OUTCOMES] = {};
	struct rnd_state r;
	int i, cpu;

	prandom_seed_state(&r, ASYM_TEST_SEED);
	for (i = 0; i < ASYM_RANDOM_SCANS; i++) {
		random_case(&r, c);
		cpu = check_scan(test, "random", c, -2, false);
		if (cpu == INT_MIN)
			return;
		outcomes[case_outcome(c, cpu)]++;
	}
	kunit_info(test,
		   "%d random scans agree; picks: none %u, early fit %u, rank -4 %u, -3 %u, -2 %u, -1 %u, 0 %u",
		   ASYM_RANDOM_SCANS, outcomes[ASYM_OUT_NONE], outcomes[ASYM_OUT_FIT],
		   outcomes[ASYM_OUT_RANK], outcomes[ASYM_OUT_RANK + 1],
		   outcomes[ASYM_OUT_RANK + 2], outcomes[ASYM_OUT_RANK + 3],
		   outcomes[ASYM_OUT_RANK + 4]);
	/* Each outcome must have been reached. */
	for (i = 0; i < ASYM_NR_OUTCOMES; i++)
		KUNIT_EXPECT_GT_MSG(test, outcomes[i], 0U, "outcome %d never reached", i);
}

/*
 * The shadow check's replay of a real scan (sched_rust_shadow_scan_end()):
 * C's scan on a machine that knows only the CPUs the Rust scan reached
 * gives the Rust scan's answer without asking about another CPU; and a
 * machine that misses one of them is caught asking about it.
 */
static void asym_scan_replay(struct kunit *test)
{
	struct asym_case *c = alloc_case(test);
	DECLARE_BITMAP(known, ASYM_MAX_CPUS);
	struct asym_machine *mc, *mr;
	int i, cpu_c, cpu_rust, replays = 0, caught = 0;
	bool clear_rust;
	unsigned int n;
	struct rnd_state r;

	prandom_seed_state(&r, ASYM_TEST_SEED + 1);
	for (i = 0; i < ASYM_RANDOM_SCANS; i++) {
		random_case(&r, c);
		if (c->scan.target >= c->nr_cpus)
			continue;	/* outside the contract: no real call */
		mr = case_machine(&case_rust, c);
		cpu_rust = sched_rust_select_idle_capacity(&c->task, &c->scan,
							   asym_machine_view, mr,
							   &clear_rust);
		if (!asked_ok(mr)) {
			KUNIT_FAIL(test, "replay %d: the Rust scan asked %u CPUs", i, mr->nr_seen);
			return;
		}
		bitmap_zero(known, ASYM_MAX_CPUS);
		for (n = 0; n < mr->nr_seen; n++)
			__set_bit(mr->seen[n], known);

		mc = case_machine(&case_c, c);
		mc->known = known;
		cpu_c = asym_machine_select_idle_capacity(mc, &c->task, &c->scan);
		if (cpu_c != cpu_rust || mc->cleared != clear_rust || mc->unknown ||
		    mc->nr_seen != mr->nr_seen) {
			KUNIT_FAIL(test, "replay %d: C %d/%d after %u CPUs%s, Rust %d/%d after %u",
				   i, cpu_c, mc->cleared, mc->nr_seen,
				   mc->unknown ? " (an unknown one)" : "", cpu_rust,
				   clear_rust, mr->nr_seen);
			return;
		}
		replays++;
		if (!mr->nr_seen)
			continue;
		/* Forget the last CPU the Rust scan reached: C reaches it too. */
		__clear_bit(mr->seen[mr->nr_seen - 1], known);
		mc = case_machine(&case_c, c);
		mc->known = known;
		asym_machine_select_idle_capacity(mc, &c->task, &c->scan);
		KUNIT_EXPECT_TRUE_MSG(test, mc->unknown, "replay %d: a missing CPU went unseen", i);
		caught += mc->unknown;
	}
	kunit_info(test, "%d replays agree, %d missing CPUs caught", replays, caught);
	KUNIT_EXPECT_GT(test, replays, ASYM_RANDOM_SCANS / 2);
}

/*
 * One CPU, CPU 0, described by a view, for fair.c's util_fits_cpu() and
 * asym_fits_cpu() bodies: the C accessors read the same view as Rust.
 * Neither body asks whether a CPU is idle, nor clears the hint.
 */
/* fair.c's util_fits_cpu() body on the view @v; INT_MIN if it misread. */
static int c_util_fits_cpu(const struct asym_fit_task *t,
			   const struct asym_cpu_view *v)
{
	struct asym_machine_one one;
	struct asym_machine *m = asym_machine_one(&one, v, false);
	int fits = asym_machine_util_fits_cpu(m, t, 0);

	return m->nr_seen || m->cleared ? INT_MIN : fits;
}

/* fair.c's asym_fits_cpu() test on the view @v; -1 if it misread. */
static int c_asym_fits_cpu(const struct asym_fit_task *t, bool smt,
			   const struct asym_cpu_view *v)
{
	struct asym_machine_one one;
	struct asym_machine *m = asym_machine_one(&one, v, smt);
	bool fits = asym_machine_asym_fits_cpu(m, t, 0);

	return m->nr_seen || m->cleared ? -1 : fits;
}

/* util_fits_cpu() and asym_fits_cpu()'s test, C against Rust. */
static bool check_fits(struct kunit *test, const struct asym_fit_task *t,
		       const struct asym_cpu_view *v)
{
	int fc = c_util_fits_cpu(t, v), fr = sched_rust_util_fits_cpu(t, v);
	bool smt;

	if (fc != fr) {
		KUNIT_FAIL(test,
			   "util_fits_cpu(util=%lu min=%lu max=%lu used=%d; cap=%lu orig=%lu actual=%lu): C %d Rust %d",
			   t->util, t->uclamp_min, t->uclamp_max, t->uclamp_used,
			   v->capacity, v->capacity_orig, v->actual_capacity, fc, fr);
		return false;
	}
	for (smt = false; ; smt = true) {
		int ac = c_asym_fits_cpu(t, smt, v);
		int ar = sched_rust_asym_fits_cpu(t, smt, v);

		if (ac != ar || ac != ((!smt || v->core_idle) && fc > 0)) {
			KUNIT_FAIL(test,
				   "asym_fits_cpu(util=%lu, smt=%d core_idle=%d): C %d Rust %d fits %d",
				   t->util, smt, v->core_idle, ac, ar, fc);
			return false;
		}
		if (smt)
			break;
	}
	return true;
}

static void asym_fits_edges(struct kunit *test)
{
	static const unsigned long vals[] = {
		0, 1, 160, 409, 410, 512, 768, 819, 820, 1023, 1024, 1025,
		ULONG_MAX / 1280, ULONG_MAX / 1280 + 1, ULONG_MAX / 1024 + 1,
		ULONG_MAX,
	};
	struct asym_fit_task t = {};
	struct asym_cpu_view v = {};
	int a, b, d;

	/* Every util against every capacity, with and without uclamp. */
	for (a = 0; a < ARRAY_SIZE(vals); a++) {
		for (b = 0; b < ARRAY_SIZE(vals); b++) {
			for (d = 0; d < 4; d++) {
				t.util = vals[a];
				t.uclamp_min = d & 1 ? vals[b] : 0;
				t.uclamp_max = SCHED_CAPACITY_SCALE;
				t.uclamp_used = d & 2;
				v.capacity = vals[b];
				v.capacity_orig = vals[(a + b) % ARRAY_SIZE(vals)];
				v.actual_capacity = vals[(a * 7 + b) % ARRAY_SIZE(vals)];
				v.core_idle = (a + b) & 1;
				if (!check_fits(test, &t, &v))
					return;
			}
		}
	}

	/* The hand cases of util_fits_cpu()'s regions. */
	t = (struct asym_fit_task){ .util = 900, .uclamp_min = 0, .uclamp_max = 512,
				    .uclamp_used = true };
	v = (struct asym_cpu_view){ .capacity = 400, .capacity_orig = 512,
				    .actual_capacity = 512 };
	KUNIT_EXPECT_EQ(test, c_util_fits_cpu(&t, &v), 1);	/* a: capped */
	t.uclamp_max = 1024;
	v = (struct asym_cpu_view){ .capacity = 1024, .capacity_orig = 1024,
				    .actual_capacity = 1024 };
	KUNIT_EXPECT_EQ(test, c_util_fits_cpu(&t, &v), 0);	/* full size */
	t = (struct asym_fit_task){ .util = 100, .uclamp_min = 900, .uclamp_max = 1024,
				    .uclamp_used = true };
	v.actual_capacity = 800;
	KUNIT_EXPECT_EQ(test, c_util_fits_cpu(&t, &v), -1);	/* c: boosted */
	t.uclamp_max = 700;	/* uclamp_min is limited to uclamp_max */
	KUNIT_EXPECT_EQ(test, c_util_fits_cpu(&t, &v), 1);
	KUNIT_EXPECT_EQ(test, sched_rust_util_fits_cpu(&t, &v), 1);
}

static void asym_fits_random(struct kunit *test)
{
	static const unsigned long hw[] = { 0, 0, 20, 300, 2000 };
	struct asym_fit_task t;
	struct asym_cpu_view v = {};
	struct rnd_state r;
	int i;

	prandom_seed_state(&r, ASYM_TEST_SEED + 1);
	for (i = 0; i < ASYM_RANDOM_FITS; i++) {
		unsigned long orig = pick_capacity(&r, rnd(&r, 4));

		t.util = rnd(&r, 1200);
		t.uclamp_min = rnd(&r, 1100);
		t.uclamp_max = rnd(&r, 2) ? SCHED_CAPACITY_SCALE : rnd(&r, 1100);
		t.uclamp_used = rnd(&r, 4);
		v.capacity_orig = orig;
		v.capacity = orig - min_t(unsigned long, orig, rnd(&r, 400));
		v.actual_capacity = orig - hw[rnd(&r, ARRAY_SIZE(hw))];
		v.core_idle = rnd(&r, 2);
		if (!check_fits(test, &t, &v))
			return;
	}
}

static struct kunit_case asym_fit_cases[] = {
	KUNIT_CASE(asym_scan_hand_made),
	KUNIT_CASE(asym_scan_edges),
	KUNIT_CASE(asym_fits_edges),
	KUNIT_CASE_SLOW(asym_scan_random),
	KUNIT_CASE_SLOW(asym_scan_replay),
	KUNIT_CASE_SLOW(asym_fits_random),
	{}
};

static struct kunit_suite asym_fit_suite = {
	.name = "sched_rust_asym_fit",
	.test_cases = asym_fit_cases,
};

kunit_test_suite(asym_fit_suite);
