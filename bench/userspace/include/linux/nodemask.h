/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/nodemask.h>: see ../sched_rust_shim.h. A NUMA kernel
 * (CONFIG_NUMA, for ext/idle_pick.h's walk across nodes) of MAX_NUMNODES
 * nodes, and the nodemask operations that walk uses.
 */
#ifndef _SHIM_LINUX_NODEMASK_H
#define _SHIM_LINUX_NODEMASK_H

#include "../sched_rust_shim.h"
#include "numa.h"		/* MAX_NUMNODES */

#ifndef CONFIG_NUMA
#define CONFIG_NUMA		1
#endif

typedef struct { DECLARE_BITMAP(bits, MAX_NUMNODES); } nodemask_t;

#define nodes_addr(src)		((src).bits)
#define nodes_copy(dst, src)	bitmap_copy((dst).bits, (src).bits, MAX_NUMNODES)
#define node_set(node, dst)	__set_bit((node), (dst).bits)
#define node_clear(node, dst)	__clear_bit((node), (dst).bits)
#define node_isset(node, mask)	test_bit((node), (mask).bits)
#define for_each_node_mask(node, mask) \
	for_each_set_bit(node, (mask).bits, MAX_NUMNODES)

#endif
