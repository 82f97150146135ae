/* SPDX-License-Identifier: GPL-2.0 */
/*
 * asym_fit.h - the SMT-aware asymmetric CPU capacity fit, in C.
 *
 * On a system whose CPUs differ in capacity, select_idle_sibling()
 * (kernel/sched/fair.c) places a waking task on an idle CPU big enough for
 * it: util_fits_cpu() says whether the task fits a CPU, asym_fits_cpu()
 * checks the early candidates (target, prev, recent_used_cpu) and
 * select_idle_capacity() scans the asym_capacity domain. With SMT, they
 * prefer CPUs on fully idle cores (the series "sched/fair: SMT-aware
 * asymmetric CPU capacity" by Andrea Righi).
 *
 * This header holds the logic of the three, as upstream's 7.2 has it, over
 * a narrow view of each CPU (struct asym_cpu_view) instead of the run
 * queues: fair.c fills the views from the real scheduler state, the KUnit
 * suite from synthetic inputs. Rust implements the same functions
 * (kernel/sched/sched_rust/asym_fit.rs) over the same structures; the
 * suite runs both on identical inputs. rust/bindings/bindings_helper.h
 * includes this header, so that bindgen sees the structures: keep it free
 * of scheduler internals.
 *
 * The scan asks for the view of each CPU it reaches through a callback,
 * once per CPU and only for the CPUs it reaches, so that it stays as lazy
 * as upstream's loop: it stops at the first CPU that fits, and at the
 * SIS_UTIL budget. In fair.c the callback is a constant, inlined into the
 * C scan; the Rust scan calls it indirectly (one C->Rust call per pick).
 */
#ifndef _KERNEL_SCHED_ASYM_FIT_H
#define _KERNEL_SCHED_ASYM_FIT_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/find.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>	/* SCHED_CAPACITY_SCALE */
#include <linux/types.h>

/*
 * struct asym_cpu_view - what the fit needs to know of one CPU.
 * @capacity:        capacity_of(): the capacity left to CFS
 * @capacity_orig:   arch_scale_cpu_capacity(), with ASYM_VIEW_UCLAMP
 * @actual_capacity: get_actual_cpu_capacity(): the original capacity
 *                   minus HW and cpufreq pressure, with ASYM_VIEW_UCLAMP
 * @core_idle:       is_core_idle(): every SMT sibling is idle, with
 *                   ASYM_VIEW_CORE
 *
 * The fields a reader did not ask for are not read. The layout is shared
 * with Rust's CpuView (#[repr(C)]); both sides check its size.
 */
struct asym_cpu_view {
	unsigned long capacity;
	unsigned long capacity_orig;
	unsigned long actual_capacity;
	bool core_idle;
};

static_assert(sizeof(struct asym_cpu_view) == 4 * sizeof(unsigned long));

/* The fields of struct asym_cpu_view a reader asks for, besides @capacity. */
#define ASYM_VIEW_CORE		BIT(0)	/* @core_idle */
#define ASYM_VIEW_UCLAMP	BIT(1)	/* @capacity_orig, @actual_capacity */

/*
 * The scan's view of @cpu: returns whether @cpu is idle for the task
 * (choose_idle_cpu()) and, if so, fills @view->capacity and the fields that
 * @want (ASYM_VIEW_*) asks for.
 */
typedef bool (*asym_cpu_view_fn)(void *arg, int cpu, unsigned int want,
				 struct asym_cpu_view *view);

/*
 * struct asym_fit_task - the task's side of the fit.
 * @util:        task_util_est()
 * @uclamp_min:  uclamp_eff_value(p, UCLAMP_MIN)
 * @uclamp_max:  uclamp_eff_value(p, UCLAMP_MAX)
 * @uclamp_used: uclamp_is_used()
 */
struct asym_fit_task {
	unsigned long util;
	unsigned long uclamp_min;
	unsigned long uclamp_max;
	bool uclamp_used;
};

static_assert(sizeof(struct asym_fit_task) == 4 * sizeof(unsigned long));

/*
 * struct asym_scan - the scan's inputs other than the task.
 * @cpus:          sched_domain_span(sd) & p->cpus_ptr, @nbits bits
 * @nbits:         the bits of @cpus to walk (small_cpumask_bits)
 * @target:        where the walk starts
 * @nr_idle_scan:  sd->shared->nr_idle_scan; read only with @sis_util
 * @sis_util:      sched_feat(SIS_UTIL) && sd->shared: limit the walk
 * @has_idle_core: sched_smt_active() && test_idle_cores(target)
 */
struct asym_scan {
	const unsigned long *cpus;
	unsigned int nbits;
	int target;
	int nr_idle_scan;
	bool sis_util;
	bool has_idle_core;
};

static_assert(sizeof(struct asym_scan) == sizeof(void *) + 4 * sizeof(int));

/* fits_capacity() of fair.c: @cap fits in @max with a 20% margin. */
static __always_inline bool asym_fits_capacity(unsigned long cap, unsigned long max)
{
	return cap * 1280 < max * 1024;
}

/*
 * asym_util_fits_cpu - util_fits_cpu() on the view @cpu.
 *
 * Returns 1 if @task fits, -1 if it fits but its uclamp_min boost exceeds
 * the actual capacity, 0 if it does not fit. Reads @cpu->capacity_orig and
 * @cpu->actual_capacity only if @task->uclamp_used. Neither pointer may be
 * NULL (nor in asym_fits_cpu_view()).
 */
static __always_inline int asym_util_fits_cpu(const struct asym_fit_task *task,
					      const struct asym_cpu_view *cpu)
{
	unsigned long util = task->util;
	unsigned long uclamp_min = task->uclamp_min;
	unsigned long uclamp_max = task->uclamp_max;
	unsigned long capacity = cpu->capacity;
	unsigned long capacity_orig;
	bool fits, uclamp_max_fits;

	/*
	 * Check if the real util fits without any uclamp boost/cap applied.
	 */
	fits = asym_fits_capacity(util, capacity);

	if (!task->uclamp_used)
		return fits;

	/*
	 * We must use arch_scale_cpu_capacity() for comparing against uclamp_min and
	 * uclamp_max. We only care about capacity pressure (by using
	 * capacity_of()) for comparing against the real util.
	 *
	 * If a task is boosted to 1024 for example, we don't want a tiny
	 * pressure to skew the check whether it fits a CPU or not.
	 *
	 * Similarly if a task is capped to arch_scale_cpu_capacity(little_cpu), it
	 * should fit a little cpu even if there's some pressure.
	 *
	 * Only exception is for HW or cpufreq pressure since it has a direct impact
	 * on available OPP of the system.
	 *
	 * We honour it for uclamp_min only as a drop in performance level
	 * could result in not getting the requested minimum performance level.
	 *
	 * For uclamp_max, we can tolerate a drop in performance level as the
	 * goal is to cap the task. So it's okay if it's getting less.
	 */
	capacity_orig = cpu->capacity_orig;

	/*
	 * We want to force a task to fit a cpu as implied by uclamp_max.
	 * But we do have some corner cases to cater for..
	 *
	 *
	 *                                 C=z
	 *   |                             ___
	 *   |                  C=y       |   |
	 *   |_ _ _ _ _ _ _ _ _ ___ _ _ _ | _ | _ _ _ _ _  uclamp_max
	 *   |      C=x        |   |      |   |
	 *   |      ___        |   |      |   |
	 *   |     |   |       |   |      |   |    (util somewhere in this region)
	 *   |     |   |       |   |      |   |
	 *   |     |   |       |   |      |   |
	 *   +----------------------------------------
	 *         CPU0        CPU1       CPU2
	 *
	 *   In the above example if a task is capped to a specific performance
	 *   point, y, then when:
	 *
	 *   * util = 80% of x then it does not fit on CPU0 and should migrate
	 *     to CPU1
	 *   * util = 80% of y then it is forced to fit on CPU1 to honour
	 *     uclamp_max request.
	 *
	 *   which is what we're enforcing here. A task always fits if
	 *   uclamp_max <= capacity_orig. But when uclamp_max > capacity_orig,
	 *   the normal upmigration rules should withhold still.
	 *
	 *   Only exception is when we are on max capacity, then we need to be
	 *   careful not to block overutilized state. This is so because:
	 *
	 *     1. There's no concept of capping at max_capacity! We can't go
	 *        beyond this performance level anyway.
	 *     2. The system is being saturated when we're operating near
	 *        max capacity, it doesn't make sense to block overutilized.
	 */
	uclamp_max_fits = (capacity_orig == SCHED_CAPACITY_SCALE) && (uclamp_max == SCHED_CAPACITY_SCALE);
	uclamp_max_fits = !uclamp_max_fits && (uclamp_max <= capacity_orig);
	fits = fits || uclamp_max_fits;

	/*
	 *
	 *                                 C=z
	 *   |                             ___       (region a, capped, util >= uclamp_max)
	 *   |                  C=y       |   |
	 *   |_ _ _ _ _ _ _ _ _ ___ _ _ _ | _ | _ _ _ _ _ uclamp_max
	 *   |      C=x        |   |      |   |
	 *   |      ___        |   |      |   |      (region b, uclamp_min <= util <= uclamp_max)
	 *   |_ _ _|_ _|_ _ _ _| _ | _ _ _| _ | _ _ _ _ _ uclamp_min
	 *   |     |   |       |   |      |   |
	 *   |     |   |       |   |      |   |      (region c, boosted, util < uclamp_min)
	 *   +----------------------------------------
	 *         CPU0        CPU1       CPU2
	 *
	 * a) If util > uclamp_max, then we're capped, we don't care about
	 *    actual fitness value here. We only care if uclamp_max fits
	 *    capacity without taking margin/pressure into account.
	 *    See comment above.
	 *
	 * b) If uclamp_min <= util <= uclamp_max, then the normal
	 *    fits_capacity() rules apply. Except we need to ensure that we
	 *    enforce we remain within uclamp_max, see comment above.
	 *
	 * c) If util < uclamp_min, then we are boosted. Same as (b) but we
	 *    need to take into account the boosted value fits the CPU without
	 *    taking margin/pressure into account.
	 *
	 * Cases (a) and (b) are handled in the 'fits' variable already. We
	 * just need to consider an extra check for case (c) after ensuring we
	 * handle the case uclamp_min > uclamp_max.
	 */
	uclamp_min = min(uclamp_min, uclamp_max);
	if (fits && (util < uclamp_min) &&
	    (uclamp_min > cpu->actual_capacity))
		return -1;

	return fits;
}

/*
 * asym_fits_cpu_view - the test of asym_fits_cpu() on an asymmetric
 * system, on the view @cpu.
 *
 * Return true only if the cpu fully fits the task requirements which
 * include the utilization and the performance hints.
 *
 * When SMT is active, also require that the core has no busy siblings.
 *
 * Note: gating on is_core_idle() also makes the early-bailout candidates
 * in select_idle_sibling() (target, prev, recent_used_cpu)
 * idle-core-aware on ASYM+SMT, which the NO_ASYM path does not do.
 *
 * Reads @cpu->core_idle only if @smt_active.
 */
static __always_inline bool asym_fits_cpu_view(const struct asym_fit_task *task,
					       bool smt_active,
					       const struct asym_cpu_view *cpu)
{
	return (!smt_active || cpu->core_idle) &&
	       (asym_util_fits_cpu(task, cpu) > 0);
}

/*
 * Idle-capacity scan converts util_fits_cpu() outcomes into preference ranks,
 * where lower values indicate a better fit - see select_idle_capacity().
 *
 * A CPU that both fits the task and sits on a fully-idle SMT core is returned
 * immediately and is never assigned one of these ranks. On !SMT every CPU is
 * its own "core", so the early return covers all fits-and-idle cases and the
 * core-tier ranks below become unreachable.
 *
 *   Rank                            Val  Tier    Meaning
 *   ------------------------------  ---  ------  ---------------------------
 *   ASYM_IDLE_UCLAMP_MISFIT         -4   core    Idle core; capacity fits
 *                                                util but uclamp_min misses.
 *   ASYM_IDLE_COMPLETE_MISFIT       -3   core    Idle core; capacity does
 *                                                not fit. Still beats every
 *                                                thread-tier rank: a busy
 *                                                sibling cuts effective
 *                                                capacity more than a
 *                                                misfit hurts a quiet core.
 *   ASYM_IDLE_THREAD_FITS           -2   thread  Busy SMT sibling; capacity
 *                                                fits util + uclamp.
 *   ASYM_IDLE_THREAD_UCLAMP_MISFIT  -1   thread  Busy SMT sibling; capacity
 *                                                fits but uclamp_min misses
 *                                                (native util_fits_cpu()
 *                                                return value).
 *   ASYM_IDLE_THREAD_MISFIT          0   thread  Busy SMT sibling; capacity
 *                                                does not fit.
 *
 * ASYM_IDLE_CORE_BIAS (-3) is an offset, not a state. On an idle core,
 * fits += ASYM_IDLE_CORE_BIAS rebases thread-tier ranks into the core tier:
 *
 *   ASYM_IDLE_THREAD_UCLAMP_MISFIT (-1) + BIAS -> ASYM_IDLE_UCLAMP_MISFIT   (-4)
 *   ASYM_IDLE_THREAD_MISFIT         (0) + BIAS -> ASYM_IDLE_COMPLETE_MISFIT (-3)
 *
 * ASYM_IDLE_THREAD_FITS (-2) is never rebased because a fully-fitting idle-core
 * candidate early-returns from select_idle_capacity().
 *
 * Note (sched-rust): on !SMT it is the thread tier that is unreachable:
 * every CPU is preferred, so a CPU that does not fully fit is ranked in the
 * core tier (-4 or -3). The KUnit suite checks this.
 */
enum asym_fits_state {
	ASYM_IDLE_UCLAMP_MISFIT = -4,
	ASYM_IDLE_COMPLETE_MISFIT,
	ASYM_IDLE_THREAD_FITS,
	ASYM_IDLE_THREAD_UCLAMP_MISFIT,
	ASYM_IDLE_THREAD_MISFIT,

	/* util_fits_cpu() bias for idle core */
	ASYM_IDLE_CORE_BIAS = -3,
};

/*
 * asym_select_idle_capacity - the scan of select_idle_capacity().
 * @task:             the waking task
 * @scan:             the candidate CPUs and the scan's parameters
 * @view:             called as view(@arg, cpu, want, &v) for each CPU the
 *                    walk reaches: returns choose_idle_cpu() and, if true,
 *                    fills v.capacity and the fields @want asks for
 * @arg:              passed to @view
 * @clear_idle_cores: if not NULL, set to whether the caller must clear the
 *                    LLC's idle-cores hint (set_idle_cores(target, false))
 *
 * Scan the asym_capacity domain for idle CPUs; pick the first idle one on which
 * the task fits. If no CPU is big enough, but there are idle ones, try to
 * maximize capacity.
 *
 * Returns the CPU, or -1 (also for a @scan->target outside [0, @scan->nbits)
 * and for an empty @scan->cpus). @task, @scan, @scan->cpus and @view must
 * not be NULL; @clear_idle_cores may be.
 */
static __always_inline int
asym_select_idle_capacity(const struct asym_fit_task *task,
			  const struct asym_scan *scan,
			  asym_cpu_view_fn view, void *arg,
			  bool *clear_idle_cores)
{
	/*
	 * On !SMT systems, has_idle_core is always false and preferred_core
	 * is always true (CPU == core), so the SMT preference logic below
	 * collapses to the plain capacity scan.
	 */
	bool has_idle_core = scan->has_idle_core;
	unsigned long best_cap = 0;
	int fits, best_fits = ASYM_IDLE_THREAD_MISFIT;
	int cpu, best_cpu = -1;
	unsigned int want = 0;
	int nr = INT_MAX;

	if (clear_idle_cores)
		*clear_idle_cores = false;

	if ((unsigned int)scan->target >= scan->nbits)
		return -1;

	if (scan->sis_util) {
		/*
		 * Same nr_idle_scan hint as select_idle_cpu(), nr only limits
		 * the scan when not preferring an idle core.
		 */
		nr = wrapping_add(int, scan->nr_idle_scan, 1);
		/* overloaded domain is unlikely to have idle cpu/core */
		if (nr == 1)
			return -1;
	}

	if (has_idle_core)
		want |= ASYM_VIEW_CORE;
	if (task->uclamp_used)
		want |= ASYM_VIEW_UCLAMP;

	for_each_set_bit_wrap(cpu, scan->cpus, scan->nbits, scan->target) {
		struct asym_cpu_view v = {};
		bool preferred_core;
		unsigned long cpu_cap;

		/*
		 * Stop when the nr_idle_scan is exhausted (mirrors
		 * select_idle_cpu() logic).
		 */
		if (!has_idle_core) {
			nr = wrapping_sub(int, nr, 1);
			if (nr <= 0)
				return best_cpu;
		}

		if (!view(arg, cpu, want, &v))
			continue;

		preferred_core = !has_idle_core || v.core_idle;
		cpu_cap = v.capacity;

		fits = asym_util_fits_cpu(task, &v);

		/*
		 * Perfect fit: capacity satisfies util + uclamp and the CPU
		 * sits on a fully-idle SMT core, this is a !SMT system, or
		 * there is no idle core to find.
		 * Short-circuit the rank-based selection and return
		 * immediately.
		 */
		if (fits > 0 && preferred_core)
			return cpu;
		/*
		 * Only the min performance hint (i.e. uclamp_min) doesn't fit.
		 * Look for the CPU with best capacity.
		 */
		else if (fits < 0)
			cpu_cap = v.actual_capacity;
		/*
		 * fits > 0 implies we are not on a preferred core, but the util
		 * fits CPU capacity. Set fits to ASYM_IDLE_THREAD_FITS
		 * so the effective range becomes
		 * [ASYM_IDLE_THREAD_FITS, ASYM_IDLE_THREAD_MISFIT], where:
		 *    ASYM_IDLE_THREAD_MISFIT - does not fit
		 *    ASYM_IDLE_THREAD_UCLAMP_MISFIT - fits with the exception of UCLAMP_MIN
		 *    ASYM_IDLE_THREAD_FITS - fits with the exception of preferred_core
		 */
		else if (fits > 0)
			fits = ASYM_IDLE_THREAD_FITS;

		/*
		 * If we are on a preferred core, translate the range of fits
		 * of [ASYM_IDLE_THREAD_UCLAMP_MISFIT, ASYM_IDLE_THREAD_MISFIT] to
		 * [ASYM_IDLE_UCLAMP_MISFIT, ASYM_IDLE_COMPLETE_MISFIT].
		 * This ensures that an idle core is always given priority over
		 * (partially) busy core.
		 *
		 * A fully fitting idle core would have returned early and hence
		 * fits > 0 for preferred_core need not be dealt with.
		 */
		if (preferred_core)
			fits += ASYM_IDLE_CORE_BIAS;

		/*
		 * First, select CPU which fits better (lower is more preferred).
		 * Then, select the one with best capacity at same level.
		 */
		if ((fits < best_fits) ||
		    ((fits == best_fits) && (cpu_cap > best_cap))) {
			best_cap = cpu_cap;
			best_cpu = cpu;
			best_fits = fits;
		}
	}

	/*
	 * A value in the [ASYM_IDLE_UCLAMP_MISFIT, ASYM_IDLE_COMPLETE_MISFIT]
	 * range means the chosen CPU is in a fully idle SMT core. Values above
	 * ASYM_IDLE_COMPLETE_MISFIT mean we never ranked such a CPU best.
	 *
	 * The asym-capacity wakeup path returns from select_idle_sibling()
	 * after this function and never runs select_idle_cpu(), so the usual
	 * select_idle_cpu() tail that clears idle cores must live here when the
	 * idle-core preference did not win (the caller does it).
	 */
	if (clear_idle_cores)
		*clear_idle_cores = has_idle_core &&
				    best_fits > ASYM_IDLE_COMPLETE_MISFIT;

	return best_cpu;
}

#endif /* _KERNEL_SCHED_ASYM_FIT_H */
