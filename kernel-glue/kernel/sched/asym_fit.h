/* SPDX-License-Identifier: GPL-2.0 */
/*
 * asym_fit.h - the asymmetric CPU capacity fit of kernel/sched/fair.c.
 *
 * On a system whose CPUs differ in capacity, select_idle_sibling() places a
 * waking task on an idle CPU big enough for it: util_fits_cpu() says
 * whether the task fits a CPU, asym_fits_cpu() checks the early candidates
 * (target, prev, recent_used_cpu) and select_idle_capacity() scans the
 * asym_capacity domain. With SMT, they prefer CPUs on fully idle cores (the
 * series "sched/fair: SMT-aware asymmetric CPU capacity" by Andrea Righi).
 *
 * Their bodies live here, and read each CPU through a struct asym_cpu_ops.
 * fair.c includes them with a constant table of the run-queue accessors
 * (capacity_of(), is_core_idle(), ...); as the bodies are always inlined,
 * each read compiles to the direct call it stands for: every instruction
 * is what it was with the bodies in fair.c, but for where one stack slot of
 * the scan is zeroed. Tests and benchmarks include the same bodies with a
 * table of described CPUs.
 */
#ifndef _KERNEL_SCHED_ASYM_FIT_H
#define _KERNEL_SCHED_ASYM_FIT_H

#include <linux/find.h>
#include <linux/minmax.h>
#include <linux/sched.h>	/* SCHED_CAPACITY_SCALE */
#include <linux/types.h>

/*
 * The margin used when comparing utilization with CPU capacity.
 *
 * (default: ~20%)
 */
#define fits_capacity(cap, max)	((cap) * 1280 < (max) * 1024)

/*
 * struct asym_cpu_ops - the per-CPU reads of the asymmetric capacity fit.
 * Each is called with the @ctx its caller was given (for the scheduler,
 * the waking task, or NULL where none is needed).
 * @capacity:         capacity_of(): the capacity left to CFS
 * @capacity_orig:    arch_scale_cpu_capacity()
 * @actual_capacity:  get_actual_cpu_capacity(): the original capacity minus
 *                    HW and cpufreq pressure
 * @core_idle:        is_core_idle(): every SMT sibling of @cpu is idle
 * @idle:             choose_idle_cpu(): @cpu is idle for the task
 * @uclamp_used:      uclamp_is_used()
 * @smt_active:       sched_smt_active()
 * @clear_idle_cores: set_idle_cores(@target, false)
 */
struct asym_cpu_ops {
	unsigned long (*capacity)(void *ctx, int cpu);
	unsigned long (*capacity_orig)(void *ctx, int cpu);
	unsigned long (*actual_capacity)(void *ctx, int cpu);
	bool (*core_idle)(void *ctx, int cpu);
	bool (*idle)(void *ctx, int cpu);
	bool (*uclamp_used)(void *ctx);
	bool (*smt_active)(void *ctx);
	void (*clear_idle_cores)(void *ctx, int target);
};

/*
 * util_fits_cpu(): does a task of @util, clamped to [@uclamp_min,
 * @uclamp_max], fit @cpu? 1 if it does, -1 if it does but its uclamp_min
 * boost exceeds the actual capacity, 0 if it does not.
 */
static __always_inline int
__util_fits_cpu(const struct asym_cpu_ops *ops, void *ctx,
		unsigned long util, unsigned long uclamp_min,
		unsigned long uclamp_max, int cpu)
{
	unsigned long capacity = ops->capacity(ctx, cpu);
	unsigned long capacity_orig;
	bool fits, uclamp_max_fits;

	/*
	 * Check if the real util fits without any uclamp boost/cap applied.
	 */
	fits = fits_capacity(util, capacity);

	if (!ops->uclamp_used(ctx))
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
	capacity_orig = ops->capacity_orig(ctx, cpu);

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
	    (uclamp_min > ops->actual_capacity(ctx, cpu)))
		return -1;

	return fits;
}

/* The test of asym_fits_cpu() on an asymmetric system. */
static __always_inline bool
__asym_fits_cpu(const struct asym_cpu_ops *ops, void *ctx, unsigned long util,
		unsigned long util_min, unsigned long util_max, int cpu)
{
	/*
	 * Return true only if the cpu fully fits the task requirements
	 * which include the utilization and the performance hints.
	 *
	 * When SMT is active, also require that the core has no busy
	 * siblings.
	 *
	 * Note: gating on is_core_idle() also makes the early-bailout
	 * candidates in select_idle_sibling() (target, prev,
	 * recent_used_cpu) idle-core-aware on ASYM+SMT, which the
	 * NO_ASYM path does not do.
	 */
	return (!ops->smt_active(ctx) || ops->core_idle(ctx, cpu)) &&
	       (__util_fits_cpu(ops, ctx, util, util_min, util_max, cpu) > 0);
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
 * The SIS_UTIL budget of select_idle_capacity(), for callers that checked
 * SIS_UTIL and the domain's shared state: the number of CPUs the scan may
 * examine, from @nr_idle_scan (the domain's sd->shared->nr_idle_scan), in
 * @nr. Returns false if the domain is overloaded: then
 * select_idle_capacity() picks nothing (-1) and does not scan.
 */
static __always_inline bool asym_sis_util_budget(const int *nr_idle_scan, int *nr)
{
	/*
	 * Same nr_idle_scan hint as select_idle_cpu(), nr only limits
	 * the scan when not preferring an idle core.
	 */
	*nr = READ_ONCE(*nr_idle_scan) + 1;
	/* overloaded domain is unlikely to have idle cpu/core */
	return *nr != 1;
}

/*
 * The scan of select_idle_capacity() over @cpus (@nbits bits), from
 * @target, with the task's utilisation and clamps, the SIS_UTIL budget
 * @nr and whether an idle core is sought.
 */
static __always_inline int
__select_idle_capacity(const struct asym_cpu_ops *ops, void *ctx,
		       const unsigned long *cpus, unsigned int nbits, int target,
		       unsigned long task_util, unsigned long util_min,
		       unsigned long util_max, int nr, bool has_idle_core)
{
	unsigned long best_cap = 0;
	int fits, best_fits = ASYM_IDLE_THREAD_MISFIT;
	int cpu, best_cpu = -1;

	for_each_set_bit_wrap(cpu, cpus, nbits, target) {
		bool preferred_core = !has_idle_core || ops->core_idle(ctx, cpu);
		unsigned long cpu_cap = ops->capacity(ctx, cpu);

		/*
		 * Stop when the nr_idle_scan is exhausted (mirrors
		 * select_idle_cpu() logic).
		 */
		if (!has_idle_core && --nr <= 0)
			return best_cpu;

		if (!ops->idle(ctx, cpu))
			continue;

		fits = __util_fits_cpu(ops, ctx, task_util, util_min, util_max, cpu);

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
			cpu_cap = ops->actual_capacity(ctx, cpu);
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
	 * idle-core preference did not win.
	 */
	if (has_idle_core && best_fits > ASYM_IDLE_COMPLETE_MISFIT)
		ops->clear_idle_cores(ctx, target);

	return best_cpu;
}

#endif /* _KERNEL_SCHED_ASYM_FIT_H */
