/* SPDX-License-Identifier: GPL-2.0 */
/*
 * asym_fit_machine.h - fair.c's asymmetric capacity fit on described CPUs.
 *
 * The bodies of fair.c's util_fits_cpu(), asym_fits_cpu() and
 * select_idle_capacity() (asym_fit.h) read each CPU through a table of
 * accessors; the Rust scan reads the CPUs it reaches through a view
 * callback (sched_rust.h). The KUnit suite, the benchmark, the fuzz
 * targets' C side and the shadow check run both on CPUs they describe,
 * with the table and the callback below. A described CPU is the struct
 * asym_cpu_view that fair.c would fill with every field, and whether it is
 * idle for the task (choose_idle_cpu()); the machine adds uclamp_is_used()
 * and sched_smt_active(). The callback fills only the fields the scan asks
 * for, as fair.c's asym_idle_cpu_view() does.
 *
 * The machine records what a scan asks: the CPUs whose idleness it asks
 * (C) or whose view it asks for (Rust), in order, with the fields asked,
 * and whether the C scan cleared the idle-cores hint, and for which target.
 * Both ask once per CPU they reach, and only there is the CPU checked: one
 * at or above @nr_cpus is recorded as outside, and reads as busy, and so
 * does one that a machine of known CPUs does not know (the shadow check's
 * replay of a real scan, which knows the CPUs that scan reached). The
 * other accessors read the CPUs the bodies reach, all below @nr_cpus.
 *
 * The CPUs are kept in chunks of ASYM_MACHINE_CHUNK, so that a machine of
 * 8192 CPUs (the shadow check's copy) needs no allocation larger than a
 * chunk; a flat array of CPUs is chunked by pointers into it
 * (asym_machine_chunk()). Include this header only where the table below
 * is used.
 */
#ifndef _KERNEL_SCHED_ASYM_FIT_MACHINE_H
#define _KERNEL_SCHED_ASYM_FIT_MACHINE_H

#include "asym_fit.h"
#include "sched_rust.h"

#define ASYM_MACHINE_CHUNK	256

/* One described CPU. */
struct asym_machine_cpu {
	struct asym_cpu_view view;	/* every field filled, but on a replay */
	bool idle;			/* choose_idle_cpu() */
	/* on a replay: the ASYM_VIEW_* fields known besides @capacity */
	unsigned int fields;
};

/*
 * struct asym_machine - described CPUs, and what the last call asked.
 * @chunks:       [DIV_ROUND_UP(@nr_cpus, ASYM_MACHINE_CHUNK)] chunks of CPUs
 * @nr_cpus:      the CPUs described
 * @uclamp_used:  uclamp_is_used(); the calls below take it from the task
 * @smt_active:   sched_smt_active()
 * @seen, @want:  NULL, or [@max_seen]: the CPUs asked about, in order, and
 *                the fields asked for (0 for C, which asks field by field)
 * @nr_seen:      how many were asked, also beyond @max_seen
 * @cleared:      the C scan cleared the idle-cores hint, of @cleared_target
 * @outside:      a scan asked about a CPU the machine does not have
 * @known:        NULL, or [@nr_cpus bits]: the CPUs whose description is
 *                known; the others read as busy, and asking about one
 *                sets @unknown
 * @unknown:      a scan asked about a CPU that is not known
 */
struct asym_machine {
	struct asym_machine_cpu * const *chunks;
	unsigned int nr_cpus;
	bool uclamp_used;
	bool smt_active;
	int *seen;
	unsigned int *want;
	unsigned int max_seen;
	unsigned int nr_seen;
	bool cleared;
	int cleared_target;
	bool outside;
	const unsigned long *known;
	bool unknown;
};

/* Chunk @i of a flat array of @cpus, for @chunks. */
static inline struct asym_machine_cpu *asym_machine_chunk(struct asym_machine_cpu *cpus,
							  unsigned int i)
{
	return &cpus[i * ASYM_MACHINE_CHUNK];
}

/* Forget what the last call asked. */
static inline void asym_machine_reset(struct asym_machine *m)
{
	m->nr_seen = 0;
	m->cleared = false;
	m->cleared_target = -1;
	m->outside = false;
	m->unknown = false;
}

/* A machine of one CPU, CPU 0, described by a view: asym_machine_one(). */
struct asym_machine_one {
	struct asym_machine m;
	struct asym_machine_cpu cpu;
	struct asym_machine_cpu *chunk;
};

static inline struct asym_machine *asym_machine_one(struct asym_machine_one *one,
						    const struct asym_cpu_view *view,
						    bool smt_active)
{
	one->cpu = (struct asym_machine_cpu) { .view = *view };
	one->chunk = &one->cpu;
	one->m = (struct asym_machine) {
		.chunks = &one->chunk, .nr_cpus = 1, .smt_active = smt_active,
	};
	asym_machine_reset(&one->m);
	return &one->m;
}

static __always_inline struct asym_machine *asym_machine(void *ctx)
{
	return ctx;
}

/* @cpu of @chunks, which must be below the machine's nr_cpus. */
static __always_inline struct asym_machine_cpu *
asym_machine_chunks_cpu(struct asym_machine_cpu * const *chunks, int cpu)
{
	return &chunks[cpu / ASYM_MACHINE_CHUNK][cpu % ASYM_MACHINE_CHUNK];
}

static __always_inline const struct asym_machine_cpu *
asym_machine_cpu(const struct asym_machine *m, int cpu)
{
	return asym_machine_chunks_cpu(m->chunks, cpu);
}

/* Records a question about @cpu; NULL if the machine does not have it. */
static __always_inline const struct asym_machine_cpu *
asym_machine_ask(struct asym_machine *m, int cpu, unsigned int want)
{
	if (m->nr_seen < m->max_seen) {
		if (m->seen)
			m->seen[m->nr_seen] = cpu;
		if (m->want)
			m->want[m->nr_seen] = want;
	}
	m->nr_seen++;
	if (cpu < 0 || (unsigned int)cpu >= m->nr_cpus) {
		m->outside = true;
		return NULL;
	}
	if (m->known && !test_bit(cpu, m->known)) {
		m->unknown = true;
		return NULL;
	}
	return asym_machine_cpu(m, cpu);
}

static __always_inline unsigned long asym_machine_capacity(void *ctx, int cpu)
{
	return asym_machine_cpu(ctx, cpu)->view.capacity;
}

static __always_inline unsigned long asym_machine_capacity_orig(void *ctx, int cpu)
{
	return asym_machine_cpu(ctx, cpu)->view.capacity_orig;
}

static __always_inline unsigned long asym_machine_actual_capacity(void *ctx, int cpu)
{
	return asym_machine_cpu(ctx, cpu)->view.actual_capacity;
}

static __always_inline bool asym_machine_core_idle(void *ctx, int cpu)
{
	return asym_machine_cpu(ctx, cpu)->view.core_idle;
}

static __always_inline bool asym_machine_idle(void *ctx, int cpu)
{
	const struct asym_machine_cpu *c = asym_machine_ask(ctx, cpu, 0);

	return c && c->idle;
}

static __always_inline bool asym_machine_uclamp_used(void *ctx)
{
	return asym_machine(ctx)->uclamp_used;
}

static __always_inline bool asym_machine_smt_active(void *ctx)
{
	return asym_machine(ctx)->smt_active;
}

static __always_inline void asym_machine_clear_idle_cores(void *ctx, int target)
{
	asym_machine(ctx)->cleared = true;
	asym_machine(ctx)->cleared_target = target;
}

static const struct asym_cpu_ops asym_machine_ops = {
	.capacity		= asym_machine_capacity,
	.capacity_orig		= asym_machine_capacity_orig,
	.actual_capacity	= asym_machine_actual_capacity,
	.core_idle		= asym_machine_core_idle,
	.idle			= asym_machine_idle,
	.uclamp_used		= asym_machine_uclamp_used,
	.smt_active		= asym_machine_smt_active,
	.clear_idle_cores	= asym_machine_clear_idle_cores,
};

/*
 * The Rust scan's view callback over the machine @arg, as fair.c's
 * asym_idle_cpu_view(): whether @cpu is idle for the task, and if so the
 * fields of its view that @want asks for.
 */
static inline bool asym_machine_view(void *arg, int cpu, unsigned int want,
				     struct asym_cpu_view *view)
{
	const struct asym_machine_cpu *c = asym_machine_ask(arg, cpu, want);

	if (!c || !c->idle)
		return false;
	view->capacity = c->view.capacity;
	if (want & ASYM_VIEW_UCLAMP) {
		view->capacity_orig = c->view.capacity_orig;
		view->actual_capacity = c->view.actual_capacity;
	}
	if (want & ASYM_VIEW_CORE)
		view->core_idle = c->view.core_idle;
	return true;
}

/*
 * The accessors of a replay of a real scan (the shadow check): a machine
 * of known CPUs (@known) whose known CPUs hold only the fields that scan
 * read (@fields); reading another sets @unknown, as asking about a CPU
 * that is not known does.
 */
static __always_inline const struct asym_cpu_view *
asym_machine_replay_view(void *ctx, int cpu, unsigned int field)
{
	const struct asym_machine_cpu *c = asym_machine_cpu(ctx, cpu);

	if (!(c->fields & field))
		asym_machine(ctx)->unknown = true;
	return &c->view;
}

static __always_inline unsigned long asym_machine_replay_capacity_orig(void *ctx, int cpu)
{
	return asym_machine_replay_view(ctx, cpu, ASYM_VIEW_UCLAMP)->capacity_orig;
}

static __always_inline unsigned long asym_machine_replay_actual_capacity(void *ctx, int cpu)
{
	return asym_machine_replay_view(ctx, cpu, ASYM_VIEW_UCLAMP)->actual_capacity;
}

static __always_inline bool asym_machine_replay_core_idle(void *ctx, int cpu)
{
	/*
	 * fair.c's scan reads is_core_idle() of each CPU it reaches before
	 * it tests whether the CPU is idle, and drops the value of a busy
	 * one; the Rust scan asks only about idle CPUs. A busy CPU's answer
	 * cannot change the result, so it is no field to check.
	 */
	if (!asym_machine_cpu(ctx, cpu)->idle)
		return false;
	return asym_machine_replay_view(ctx, cpu, ASYM_VIEW_CORE)->core_idle;
}

static const struct asym_cpu_ops asym_machine_replay_ops = {
	.capacity		= asym_machine_capacity,
	.capacity_orig		= asym_machine_replay_capacity_orig,
	.actual_capacity	= asym_machine_replay_actual_capacity,
	.core_idle		= asym_machine_replay_core_idle,
	.idle			= asym_machine_idle,
	.uclamp_used		= asym_machine_uclamp_used,
	.smt_active		= asym_machine_smt_active,
	.clear_idle_cores	= asym_machine_clear_idle_cores,
};

/*
 * select_idle_capacity() on the machine through @ops: fair.c's SIS_UTIL
 * budget, then its scan of @scan's CPUs for @task. @scan->target must be
 * below @scan->nbits, which must not exceed @m->nr_cpus.
 */
static __always_inline int __asym_machine_select_idle_capacity(const struct asym_cpu_ops *ops,
							       struct asym_machine *m,
							       const struct asym_fit_task *task,
							       const struct asym_scan *scan)
{
	int nr = INT_MAX;

	m->uclamp_used = task->uclamp_used;
	if (scan->sis_util && !asym_sis_util_budget(&scan->nr_idle_scan, &nr))
		return -1;
	return __select_idle_capacity(ops, m, scan->cpus, scan->nbits, scan->target,
				      task->util, task->uclamp_min, task->uclamp_max, nr,
				      scan->has_idle_core);
}

/* select_idle_capacity() on the machine. */
static __always_inline int asym_machine_select_idle_capacity(struct asym_machine *m,
							     const struct asym_fit_task *task,
							     const struct asym_scan *scan)
{
	return __asym_machine_select_idle_capacity(&asym_machine_ops, m, task, scan);
}

/* The same on a replay (asym_machine_replay_ops). */
static __always_inline int
asym_machine_replay_select_idle_capacity(struct asym_machine *m,
					 const struct asym_fit_task *task,
					 const struct asym_scan *scan)
{
	return __asym_machine_select_idle_capacity(&asym_machine_replay_ops, m, task, scan);
}

/* util_fits_cpu() of @cpu, below @m->nr_cpus, for @task. */
static __always_inline int asym_machine_util_fits_cpu(struct asym_machine *m,
						      const struct asym_fit_task *task,
						      int cpu)
{
	m->uclamp_used = task->uclamp_used;
	return __util_fits_cpu(&asym_machine_ops, m, task->util, task->uclamp_min,
			       task->uclamp_max, cpu);
}

/* asym_fits_cpu()'s test of @cpu, below @m->nr_cpus, for @task. */
static __always_inline bool asym_machine_asym_fits_cpu(struct asym_machine *m,
						       const struct asym_fit_task *task,
						       int cpu)
{
	m->uclamp_used = task->uclamp_used;
	return __asym_fits_cpu(&asym_machine_ops, m, task->util, task->uclamp_min,
			       task->uclamp_max, cpu);
}

#endif /* _KERNEL_SCHED_ASYM_FIT_MACHINE_H */
