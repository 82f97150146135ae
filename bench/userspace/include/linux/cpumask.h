/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/cpumask.h>: see ../sched_rust_shim.h. A cpumask of
 * NR_CPUS bits, and the operations ext/idle_pick.h uses, over all of them
 * (small_cpumask_bits is NR_CPUS, as in a kernel of NR_CPUS <= 64).
 */
#ifndef _SHIM_LINUX_CPUMASK_H
#define _SHIM_LINUX_CPUMASK_H

#include "../sched_rust_shim.h"

#define NR_CPUS			256
#define small_cpumask_bits	NR_CPUS

struct cpumask {
	DECLARE_BITMAP(bits, NR_CPUS);
};

#define cpumask_bits(maskp)	((maskp)->bits)
#define to_cpumask(bitmap)	((struct cpumask *)(bitmap))

static __always_inline bool cpumask_intersects(const struct cpumask *src1p,
					       const struct cpumask *src2p)
{
	return bitmap_intersects(cpumask_bits(src1p), cpumask_bits(src2p), small_cpumask_bits);
}

static __always_inline void cpumask_andnot(struct cpumask *dstp, const struct cpumask *src1p,
					   const struct cpumask *src2p)
{
	bitmap_andnot(cpumask_bits(dstp), cpumask_bits(src1p), cpumask_bits(src2p),
		      small_cpumask_bits);
}

static __always_inline bool cpumask_test_cpu(int cpu, const struct cpumask *cpumask)
{
	return test_bit(cpu, cpumask_bits(cpumask));
}

static __always_inline void __cpumask_clear_cpu(int cpu, struct cpumask *dstp)
{
	__clear_bit(cpu, cpumask_bits(dstp));
}

static __always_inline bool cpumask_test_and_clear_cpu(int cpu, struct cpumask *cpumask)
{
	return test_and_clear_bit(cpu, cpumask_bits(cpumask));
}

#endif
