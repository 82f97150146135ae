/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle_pick.h - sched_ext's idle CPU picking over a view of the topology.
 *
 * The built-in idle policy of sched_ext tracks idle CPUs in a pair of
 * cpumasks per NUMA node, or in one global pair (see kernel/sched/ext/idle.c).
 * This header holds the picking functions of idle.c, unchanged in what they
 * do, written over struct scx_idle_topo instead of the globals they read:
 * the masks, cpu_smt_mask(), cpu_to_node(), the online nodes and the node
 * distances. idle.c fills the view from the running system, and the KUnit
 * suite fills it with synthetic machines of up to 32 nodes.
 *
 * kernel/sched/sched_rust/idle_pick.rs implements the same functions in Rust
 * on the same view; idle_pick_kunit.c checks that both pick the same CPUs
 * and leave the same masks. With CONFIG_SCHED_RUST_IDLE_PICK off this header
 * is not used and idle.c is upstream's.
 *
 * Two things differ from idle.c, in both languages alike:
 *  - The candidate rotation of cpumask_any_and_distribute() uses a cursor
 *    passed by the caller (idle.c's glue passes a per-CPU cursor of the
 *    picker) rather than lib/cpumask.c's, which is private to that file and
 *    moved by every other user on the CPU.
 *  - Out-of-range input does nothing: a CPU at or above nr_cpus (or
 *    negative) is never claimed, and a node that is neither NUMA_NO_NODE nor
 *    below nr_nodes has no idle CPU. idle.c's callers never pass either.
 *
 * An empty @cpus_allowed picks nothing (-EBUSY). The view, @cpus_allowed and
 * @cursor must not be NULL (see sched_rust.h for the Rust side).
 */
#ifndef _KERNEL_SCHED_EXT_IDLE_PICK_H
#define _KERNEL_SCHED_EXT_IDLE_PICK_H

#include <linux/types.h>

/* The pick flags of idle.c (enum scx_pick_idle_cpu_flags), same values. */
#define SCX_IDLE_PICK_CORE		(1U << 0)	/* SCX_PICK_IDLE_CORE */
#define SCX_IDLE_PICK_IN_NODE		(1U << 1)	/* SCX_PICK_IDLE_IN_NODE */

/* The state of the system a pick depends on, read by the caller. */
#define SCX_IDLE_STATE_SMT_ACTIVE	(1U << 0)	/* sched_smt_active() */
#define SCX_IDLE_STATE_PER_NODE		(1U << 1)	/* per-node idle masks */

/* The idle masks of one node, or the global ones: struct scx_idle_cpus. */
struct scx_idle_masks {
	unsigned long *cpu;	/* one bit per idle CPU */
	unsigned long *smt;	/* one bit per CPU of a wholly idle SMT core */
};

/*
 * What the pickers read of the system. Every bitmap has at least nr_cpus
 * bits (nr_node_ids for @online_nodes); bits at and above nr_cpus are
 * ignored. Only the masks are written, and only with the picks' own rules.
 */
struct scx_idle_topo {
	unsigned int nr_cpus;			/* nr_cpu_ids */
	unsigned int nr_nodes;			/* nr_node_ids */
	/*
	 * [nr_cpus]: the bits of cpu_smt_mask(cpu); an entry may be rewritten
	 * (WRITE_ONCE()) while pickers run, so it is read with READ_ONCE()
	 */
	const unsigned long *const *smt_siblings;
	const int *cpu_node;			/* [nr_cpus]: cpu_to_node() */
	struct scx_idle_masks global;		/* NUMA_NO_NODE */
	/* [nr_nodes]: NULL masks for a node that is not possible */
	const struct scx_idle_masks *nodes;
	const unsigned long *online_nodes;	/* node_states[N_ONLINE] */
	/* [nr_nodes * nr_nodes]: node_distance(from, to) at [from * nr + to] */
	const unsigned int *distance;
	/*
	 * [nr_nodes * nr_nodes]: row n lists every node nearest to n first,
	 * ties by node id (the Rust walk's cache; see
	 * sched_rust_idle_build_node_order()).
	 */
	const u16 *node_order;
};

#ifdef __KERNEL__
#ifndef __BINDGEN__

#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/find.h>
#include <linux/numa.h>

static inline struct scx_idle_masks *
scx_idle_topo_masks(const struct scx_idle_topo *topo, int node)
{
	if (node == NUMA_NO_NODE)
		return (struct scx_idle_masks *)&topo->global;
	if (node < 0 || node >= topo->nr_nodes || !topo->nodes[node].cpu)
		return NULL;
	return (struct scx_idle_masks *)&topo->nodes[node];
}

/* cpumask_any_and_distribute() with the caller's @cursor. */
static inline unsigned int
scx_idle_any_and_distribute(const struct scx_idle_topo *topo,
			    const unsigned long *src1, const unsigned long *src2,
			    unsigned int *cursor)
{
	unsigned int prev = READ_ONCE(*cursor), next;
	unsigned int start = prev + 1 < topo->nr_cpus ? prev + 1 : 0;

	next = find_next_and_bit_wrap(src1, src2, topo->nr_cpus, start);
	if (next < topo->nr_cpus)
		WRITE_ONCE(*cursor, next);

	return next;
}

/* scx_idle_test_and_clear_cpu() */
static inline bool scx_idle_topo_test_and_clear_cpu(const struct scx_idle_topo *topo,
						    int cpu, unsigned int state)
{
	int node = NUMA_NO_NODE;
	struct scx_idle_masks *masks;

	if (cpu < 0 || cpu >= topo->nr_cpus)
		return false;
	if (state & SCX_IDLE_STATE_PER_NODE)
		node = topo->cpu_node[cpu];
	masks = scx_idle_topo_masks(topo, node);
	if (!masks)
		return false;

	/*
	 * SMT mask should be cleared whether we can claim @cpu or not. The SMT
	 * cluster is not wholly idle either way. This also prevents
	 * scx_pick_idle_cpu() from getting caught in an infinite loop.
	 */
	if (state & SCX_IDLE_STATE_SMT_ACTIVE) {
		/* idle.c refreshes the entry with WRITE_ONCE() */
		const unsigned long *smt = READ_ONCE(topo->smt_siblings[cpu]);

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
		if (bitmap_intersects(smt, masks->smt, topo->nr_cpus))
			bitmap_andnot(masks->smt, masks->smt, smt, topo->nr_cpus);
		else if (test_bit(cpu, masks->smt))
			__clear_bit(cpu, masks->smt);
	}

	return test_and_clear_bit(cpu, masks->cpu);
}

/* pick_idle_cpu_in_node(): pick an idle CPU in a specific NUMA node. */
static inline s32 scx_idle_topo_pick_in_node(const struct scx_idle_topo *topo,
					     const unsigned long *cpus_allowed,
					     int node, u64 flags,
					     unsigned int state,
					     unsigned int *cursor)
{
	struct scx_idle_masks *masks = scx_idle_topo_masks(topo, node);
	unsigned int cpu;

	if (!masks)
		return -EBUSY;
retry:
	if (state & SCX_IDLE_STATE_SMT_ACTIVE) {
		cpu = scx_idle_any_and_distribute(topo, masks->smt, cpus_allowed,
						  cursor);
		if (cpu < topo->nr_cpus)
			goto found;

		if (flags & SCX_IDLE_PICK_CORE)
			return -EBUSY;
	}

	cpu = scx_idle_any_and_distribute(topo, masks->cpu, cpus_allowed, cursor);
	if (cpu >= topo->nr_cpus)
		return -EBUSY;

found:
	if (scx_idle_topo_test_and_clear_cpu(topo, cpu, state))
		return cpu;
	else
		goto retry;
}

/*
 * nearest_node_nodemask() over the view's distances; nr_nodes, not
 * MAX_NUMNODES, when @mask is empty: a synthetic view may have more nodes
 * than the kernel was built for.
 */
static inline int scx_idle_topo_nearest_node(const struct scx_idle_topo *topo,
					     int node, const unsigned long *mask)
{
	unsigned int dist, min_dist = UINT_MAX;
	int n, closest = topo->nr_nodes;

	for_each_set_bit(n, mask, topo->nr_nodes) {
		dist = topo->distance[node * topo->nr_nodes + n];
		if (dist < min_dist) {
			min_dist = dist;
			closest = n;
		}
	}

	return closest;
}

/*
 * pick_idle_cpu_from_online_nodes(): search for an idle CPU across all
 * nodes, excluding @node. @unvisited is scratch of nr_nodes bits.
 *
 * This loop is O(N^2), with N being the amount of NUMA nodes: the Rust
 * version walks the cached order of @topo->node_order instead.
 */
static inline s32
scx_idle_topo_pick_from_online_nodes(const struct scx_idle_topo *topo,
				     const unsigned long *cpus_allowed, int node,
				     u64 flags, unsigned int state,
				     unsigned int *cursor, unsigned long *unvisited)
{
	int start = node;
	s32 cpu = -EBUSY;

	/*
	 * Restrict the search to the online nodes (excluding the current
	 * node that has been visited already).
	 */
	bitmap_copy(unvisited, topo->online_nodes, topo->nr_nodes);
	__clear_bit(start, unvisited);

	/*
	 * Traverse all nodes in order of increasing distance, starting
	 * from @node (for_each_node_numadist()).
	 */
	for (node = scx_idle_topo_nearest_node(topo, start, unvisited);
	     node < topo->nr_nodes;
	     __clear_bit(node, unvisited),
	     node = scx_idle_topo_nearest_node(topo, start, unvisited)) {
		cpu = scx_idle_topo_pick_in_node(topo, cpus_allowed, node, flags,
						 state, cursor);
		if (cpu >= 0)
			break;
	}

	return cpu;
}

/* scx_pick_idle_cpu(): find an idle CPU in the system, starting from @node. */
static inline s32 scx_idle_topo_pick(const struct scx_idle_topo *topo,
				     const unsigned long *cpus_allowed, int node,
				     u64 flags, unsigned int state,
				     unsigned int *cursor, unsigned long *unvisited)
{
	s32 cpu;

	if (!scx_idle_topo_masks(topo, node))
		return -EBUSY;

	/*
	 * Always search in the starting node first (this is an
	 * optimization that can save some cycles even when the search is
	 * not limited to a single node).
	 */
	cpu = scx_idle_topo_pick_in_node(topo, cpus_allowed, node, flags, state,
					 cursor);
	if (cpu >= 0)
		return cpu;

	/*
	 * Stop the search if we are using only a single global cpumask
	 * (NUMA_NO_NODE) or if the search is restricted to the first node
	 * only.
	 */
	if (node == NUMA_NO_NODE || flags & SCX_IDLE_PICK_IN_NODE)
		return -EBUSY;

	/*
	 * Extend the search to the other online nodes.
	 */
	return scx_idle_topo_pick_from_online_nodes(topo, cpus_allowed, node,
						    flags, state, cursor,
						    unvisited);
}

#endif /* !__BINDGEN__ */
#endif /* __KERNEL__ */
#endif /* _KERNEL_SCHED_EXT_IDLE_PICK_H */
