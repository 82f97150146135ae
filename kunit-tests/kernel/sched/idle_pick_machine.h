/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle_pick_machine.h - idle.c's picking code on a described machine.
 *
 * The bodies of sched_ext's idle CPU pickers (ext/idle_pick.h) read the
 * system through a table of accessors. The tests and benchmarks run them on
 * machines that are not the running one, described by the struct
 * scx_idle_machine that the Rust picker's machine exports read
 * (sched_rust.h), with the state of the system (SCX_IDLE_STATE_*). The
 * machine's rotation is cpumask_any_and_distribute()'s, transcribed over
 * the machine's CPUs and its own cursor, which stands for lib/cpumask.c's
 * per-CPU one (the KUnit suite checks the transcription against the real
 * function on the running system).
 *
 * A machine has at most as many CPUs as a struct cpumask of the kernel
 * holds (small_cpumask_bits) and at most MAX_NUMNODES nodes, and its
 * online_nodes points into a nodemask_t. Only input within idle.c's
 * contract may come here: a CPU below nr_cpus and a node of the machine with
 * masks (or NUMA_NO_NODE); a claim that fails must work on the masks
 * searched, or the pick retries forever, as idle.c's. Include it only where
 * the table below is used.
 */
#ifndef _KERNEL_SCHED_IDLE_PICK_MACHINE_H
#define _KERNEL_SCHED_IDLE_PICK_MACHINE_H

#include "ext/idle_pick.h"
#include "sched_rust.h"

struct idle_machine {
	const struct scx_idle_machine *mach;
	unsigned int state;		/* SCX_IDLE_STATE_* */
};

static inline struct idle_machine *idle_machine(void *ctx)
{
	return ctx;
}

static inline const struct scx_idle_masks *idle_machine_masks(void *ctx, int node)
{
	const struct scx_idle_machine *mach = idle_machine(ctx)->mach;

	if (mach->on_masks)
		mach->on_masks(mach, node);
	return node == NUMA_NO_NODE ? &mach->topo.global : &mach->topo.nodes[node];
}

static inline bool idle_machine_smt_active(void *ctx)
{
	return idle_machine(ctx)->state & SCX_IDLE_STATE_SMT_ACTIVE;
}

static inline unsigned int idle_machine_nr_cpu_ids(void *ctx)
{
	return idle_machine(ctx)->mach->topo.nr_cpus;
}

static inline int idle_machine_cpu_node(void *ctx, int cpu)
{
	if (!(idle_machine(ctx)->state & SCX_IDLE_STATE_PER_NODE))
		return NUMA_NO_NODE;
	return READ_ONCE(idle_machine(ctx)->mach->cpu_node[cpu]);
}

static inline struct cpumask *idle_machine_cpus(void *ctx, int node)
{
	return to_cpumask(idle_machine_masks(ctx, node)->cpu);
}

static inline struct cpumask *idle_machine_smts(void *ctx, int node)
{
	return to_cpumask(idle_machine_masks(ctx, node)->smt);
}

static inline const struct cpumask *idle_machine_smt_mask(void *ctx, int cpu)
{
	return to_cpumask(READ_ONCE(idle_machine(ctx)->mach->smt_siblings[cpu]));
}

/*
 * cpumask_any_and_distribute() of lib/cpumask.c over the machine's CPUs,
 * with the machine's cursor for distribute_cpu_mask_prev: the same lines.
 */
static inline unsigned int idle_machine_distribute(unsigned int nr, unsigned int *cursor,
						   const struct cpumask *src1p,
						   const struct cpumask *src2p)
{
	unsigned int next, prev;

	/* NOTE: our first selection will skip 0. */
	prev = READ_ONCE(*cursor);

	next = find_next_and_bit_wrap(cpumask_bits(src1p), cpumask_bits(src2p),
				      nr, prev + 1);
	if (next < nr)
		WRITE_ONCE(*cursor, next);
	return next;
}

static inline unsigned int idle_machine_any_and_distribute(void *ctx,
							   const struct cpumask *src1p,
							   const struct cpumask *src2p)
{
	const struct scx_idle_machine *mach = idle_machine(ctx)->mach;

	return idle_machine_distribute(mach->topo.nr_cpus, mach->cursor, src1p, src2p);
}

static inline const nodemask_t *idle_machine_online_nodes(void *ctx)
{
	/* online_nodes points to the bits of a nodemask_t (see above) */
	return (const nodemask_t *)idle_machine(ctx)->mach->topo.online_nodes;
}

static inline unsigned int idle_machine_nr_node_ids(void *ctx)
{
	return idle_machine(ctx)->mach->topo.nr_nodes;
}

static inline bool idle_machine_test_and_clear_cpu(void *ctx, int cpu);
static inline s32 idle_machine_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
					    int node, u64 flags);
static inline s32 idle_machine_pick_from_online_nodes(void *ctx,
						      const struct cpumask *cpus_allowed,
						      int node, u64 flags);

static const struct scx_idle_pick_ops idle_machine_ops = {
	.smt_active		= idle_machine_smt_active,
	.nr_cpus		= idle_machine_nr_cpu_ids,
	.cpu_node		= idle_machine_cpu_node,
	.idle_cpus		= idle_machine_cpus,
	.idle_smts		= idle_machine_smts,
	.smt_mask		= idle_machine_smt_mask,
	.any_and_distribute	= idle_machine_any_and_distribute,
	.nr_nodes		= idle_machine_nr_node_ids,
	.online_nodes		= idle_machine_online_nodes,
	.test_and_clear_cpu	= idle_machine_test_and_clear_cpu,
	.pick_in_node		= idle_machine_pick_in_node,
	.pick_from_online_nodes	= idle_machine_pick_from_online_nodes,
};

/* scx_idle_test_and_clear_cpu() on the machine. */
static inline bool idle_machine_test_and_clear_cpu(void *ctx, int cpu)
{
	return __scx_idle_test_and_clear_cpu(&idle_machine_ops, ctx, cpu);
}

/* pick_idle_cpu_in_node() on the machine. */
static inline s32 idle_machine_pick_in_node(void *ctx, const struct cpumask *cpus_allowed,
					    int node, u64 flags)
{
	return __pick_idle_cpu_in_node(&idle_machine_ops, ctx, cpus_allowed, node, flags);
}

/*
 * for_each_node_numadist() over a copy of the online nodes, from @node by
 * the machine's distances: the nearest unvisited node each time
 * (nearest_node_nodemask(): ties by node id). It is O(N^2) per pick in the
 * number of nodes, the node order's walk O(N). idle.c walks so while it
 * has no node order (no memory for one), and upstream (7.3) always does.
 */
static inline s32 idle_machine_pick_numadist_from(void *ctx, const struct cpumask *cpus_allowed,
						  int node, u64 flags)
{
	const struct scx_idle_machine *mach = idle_machine(ctx)->mach;
	nodemask_t unvisited;
	s32 cpu = -EBUSY;

	nodes_copy(unvisited, *idle_machine_online_nodes(ctx));
	node_clear(node, unvisited);
	for (;;) {
		int n, near = MAX_NUMNODES, dist, min_dist = INT_MAX;

		for_each_node_mask(n, unvisited) {
			dist = mach->distance[node * mach->topo.nr_nodes + n];
			if (dist < min_dist) {
				min_dist = dist;
				near = n;
			}
		}
		if (near >= MAX_NUMNODES)
			break;
		cpu = idle_machine_pick_in_node(ctx, cpus_allowed, near, flags);
		if (cpu >= 0)
			break;
		node_clear(near, unvisited);
	}
	return cpu;
}

/*
 * pick_idle_cpu_from_online_nodes() on the machine: its node order, which
 * its owner replaces only between picks, or the walk above without one.
 */
static inline s32 idle_machine_pick_from_online_nodes(void *ctx,
						      const struct cpumask *cpus_allowed,
						      int node, u64 flags)
{
	const struct scx_idle_machine *mach = idle_machine(ctx)->mach;
	const struct scx_idle_node_order *table;

	if (!mach->topo.node_order)	/* no walk across nodes, as !CONFIG_NUMA */
		return -EBUSY;
	table = READ_ONCE(*mach->topo.node_order);
	if (!table)
		return idle_machine_pick_numadist_from(ctx, cpus_allowed, node, flags);
	return __pick_idle_cpu_in_node_order(&idle_machine_ops, ctx,
					     &table->order[node * mach->topo.nr_nodes],
					     cpus_allowed, node, flags);
}

/* scx_pick_idle_cpu() on the machine. */
static inline s32 idle_machine_pick(struct idle_machine *m, const unsigned long *allowed,
				    int node, u64 flags)
{
	return __scx_pick_idle_cpu(&idle_machine_ops, m, to_cpumask(allowed), node, flags);
}

/*
 * scx_pick_idle_cpu() on the machine as upstream (7.3) has it, before
 * idle.c kept an order of nodes: the walk above. The KUnit suite checks
 * that both give the same answers; the benchmark's "nodemask walk" rows
 * measure what the order saves.
 */
static inline s32 idle_machine_pick_numadist(struct idle_machine *m,
					     const unsigned long *allowed,
					     int node, u64 flags)
{
	const struct cpumask *cpus_allowed = to_cpumask(allowed);
	s32 cpu;

	cpu = idle_machine_pick_in_node(m, cpus_allowed, node, flags);
	if (cpu >= 0 || node == NUMA_NO_NODE || flags & SCX_PICK_IDLE_IN_NODE)
		return cpu;
	return idle_machine_pick_numadist_from(m, cpus_allowed, node, flags);
}

#endif /* _KERNEL_SCHED_IDLE_PICK_MACHINE_H */
