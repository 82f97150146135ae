/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle_pick.h - picking idle CPUs from the built-in idle masks of sched_ext.
 *
 * The built-in idle policy tracks idle CPUs in a pair of cpumasks per NUMA
 * node, or in one global pair (kernel/sched/ext/idle.c). A CPU is claimed by
 * clearing it from its idle mask; a pick finds an idle CPU in one node,
 * preferring wholly idle SMT cores, and may go on to the other nodes by
 * increasing distance, in the order idle.c keeps for each node.
 *
 * The bodies of those functions live here, and read the system through a
 * struct scx_idle_pick_ops. idle.c includes them with a constant table of
 * the running system's accessors and of its own functions, and as the
 * bodies are always inlined, each call through the table compiles to the
 * direct call it stands for: idle.c's object code is what it was with the
 * bodies in idle.c. Tests and benchmarks include the same bodies with a
 * table that describes a machine.
 */
#ifndef _KERNEL_SCHED_EXT_IDLE_PICK_H
#define _KERNEL_SCHED_EXT_IDLE_PICK_H

#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/types.h>

/*
 * The order of the walk across nodes (idle.c's scx_idle_node_order, which
 * publishes it with RCU): for each node n, every node by increasing
 * distance from n, ties by node id, at order[n * nr_node_ids].
 */
struct scx_idle_node_order {
	struct rcu_head	rcu;
	u16		order[];
};

enum scx_pick_idle_cpu_flags {
	SCX_PICK_IDLE_CORE	= 1LLU << 0,	/* pick a CPU whose SMT siblings are also idle */
	SCX_PICK_IDLE_IN_NODE	= 1LLU << 1,	/* pick a CPU in the same target NUMA node */
};

/*
 * struct scx_idle_pick_ops - what the idle CPU pickers read of the system,
 * and how they call each other
 * @smt_active:         sched_smt_active()
 * @nr_cpus:            nr_cpu_ids
 * @cpu_node:           scx_cpu_node_if_enabled(): the node of @cpu, or
 *                      NUMA_NO_NODE without per-node idle masks
 * @idle_cpus:          idle_cpumask(@node)->cpu: the idle CPUs
 * @idle_smts:          idle_cpumask(@node)->smt: the CPUs of wholly idle cores
 * @smt_mask:           cpu_smt_mask()
 * @any_and_distribute: cpumask_any_and_distribute()
 * @nr_nodes:           nr_node_ids
 * @online_nodes:       node_states[N_ONLINE]
 * @test_and_clear_cpu: scx_idle_test_and_clear_cpu()
 * @pick_in_node:       pick_idle_cpu_in_node()
 * @pick_from_online_nodes: pick_idle_cpu_from_online_nodes(), which finds
 *                      the node order (or walks without one) and calls
 *                      __pick_idle_cpu_in_node_order()
 *
 * Each is called with the @ctx its caller was given (NULL for the running
 * system). @nr_cpus and @nr_nodes are not named after nr_cpu_ids and
 * nr_node_ids, which are macros in some configurations
 * (CONFIG_FORCE_NR_CPUS, !CONFIG_NUMA).
 */
struct scx_idle_pick_ops {
	bool (*smt_active)(void *ctx);
	unsigned int (*nr_cpus)(void *ctx);
	int (*cpu_node)(void *ctx, int cpu);
	struct cpumask *(*idle_cpus)(void *ctx, int node);
	struct cpumask *(*idle_smts)(void *ctx, int node);
	const struct cpumask *(*smt_mask)(void *ctx, int cpu);
	unsigned int (*any_and_distribute)(void *ctx, const struct cpumask *src1p,
					   const struct cpumask *src2p);
	unsigned int (*nr_nodes)(void *ctx);
	const nodemask_t *(*online_nodes)(void *ctx);
	bool (*test_and_clear_cpu)(void *ctx, int cpu);
	s32 (*pick_in_node)(void *ctx, const struct cpumask *cpus_allowed,
			    int node, u64 flags);
	s32 (*pick_from_online_nodes)(void *ctx, const struct cpumask *cpus_allowed,
				      int node, u64 flags);
};

static __always_inline bool
__scx_idle_test_and_clear_cpu(const struct scx_idle_pick_ops *ops, void *ctx,
			      int cpu)
{
	int node = ops->cpu_node(ctx, cpu);
	struct cpumask *idle_cpus = ops->idle_cpus(ctx, node);

	/*
	 * SMT mask should be cleared whether we can claim @cpu or not. The SMT
	 * cluster is not wholly idle either way. This also prevents
	 * scx_pick_idle_cpu() from getting caught in an infinite loop.
	 */
	if (ops->smt_active(ctx)) {
		const struct cpumask *smt = ops->smt_mask(ctx, cpu);
		struct cpumask *idle_smts = ops->idle_smts(ctx, node);

		/*
		 * If offline, @cpu is not its own sibling and
		 * scx_pick_idle_cpu() can get caught in an infinite loop as
		 * @cpu is never cleared from the idle SMT mask. Ensure that
		 * @cpu is eventually cleared.
		 *
		 * NOTE: Use cpumask_intersects() and cpumask_test_cpu() to
		 * reduce memory writes, which may help alleviate cache
		 * coherence pressure.
		 */
		if (cpumask_intersects(smt, idle_smts))
			cpumask_andnot(idle_smts, idle_smts, smt);
		else if (cpumask_test_cpu(cpu, idle_smts))
			__cpumask_clear_cpu(cpu, idle_smts);
	}

	return cpumask_test_and_clear_cpu(cpu, idle_cpus);
}

/*
 * Pick an idle CPU in a specific NUMA node.
 */
static __always_inline s32
__pick_idle_cpu_in_node(const struct scx_idle_pick_ops *ops, void *ctx,
			const struct cpumask *cpus_allowed, int node, u64 flags)
{
	int cpu;

retry:
	if (ops->smt_active(ctx)) {
		cpu = ops->any_and_distribute(ctx, ops->idle_smts(ctx, node), cpus_allowed);
		if (cpu < ops->nr_cpus(ctx))
			goto found;

		if (flags & SCX_PICK_IDLE_CORE)
			return -EBUSY;
	}

	cpu = ops->any_and_distribute(ctx, ops->idle_cpus(ctx, node), cpus_allowed);
	if (cpu >= ops->nr_cpus(ctx))
		return -EBUSY;

found:
	if (ops->test_and_clear_cpu(ctx, cpu))
		return cpu;
	else
		goto retry;
}

/*
 * Search for an idle CPU across all nodes, excluding @node, in @order:
 * @node's row of the node order.
 */
static __always_inline s32
__pick_idle_cpu_in_node_order(const struct scx_idle_pick_ops *ops, void *ctx,
			      const u16 *order, const struct cpumask *cpus_allowed,
			      int node, u64 flags)
{
	s32 cpu = -EBUSY;
	int i;

	/*
	 * Traverse the online nodes in order of increasing distance,
	 * starting from @node, which has been visited already.
	 *
	 * The order is cached per node, so the walk is O(N), with N being
	 * the amount of NUMA nodes, instead of searching all unvisited
	 * nodes for the nearest one at each step. A node is visited if it
	 * is online when the walk reaches it.
	 */
	for (i = 0; i < ops->nr_nodes(ctx); i++) {
		int n = order[i];

		if (n == node || !node_isset(n, *ops->online_nodes(ctx)))
			continue;
		cpu = ops->pick_in_node(ctx, cpus_allowed, n, flags);
		if (cpu >= 0)
			break;
	}

	return cpu;
}

/*
 * Find an idle CPU in the system, starting from @node.
 */
static __always_inline s32
__scx_pick_idle_cpu(const struct scx_idle_pick_ops *ops, void *ctx,
		    const struct cpumask *cpus_allowed, int node, u64 flags)
{
	s32 cpu;

	/*
	 * Always search in the starting node first (this is an
	 * optimization that can save some cycles even when the search is
	 * not limited to a single node).
	 */
	cpu = ops->pick_in_node(ctx, cpus_allowed, node, flags);
	if (cpu >= 0)
		return cpu;

	/*
	 * Stop the search if we are using only a single global cpumask
	 * (NUMA_NO_NODE) or if the search is restricted to the first node
	 * only.
	 */
	if (node == NUMA_NO_NODE || flags & SCX_PICK_IDLE_IN_NODE)
		return -EBUSY;

	/*
	 * Extend the search to the other online nodes.
	 */
	return ops->pick_from_online_nodes(ctx, cpus_allowed, node, flags);
}

#endif /* _KERNEL_SCHED_EXT_IDLE_PICK_H */
