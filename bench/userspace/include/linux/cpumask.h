/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/cpumask.h>: see ../sched_rust_shim.h. A cpumask of
 * NR_CPUS bits (MAXSMP's 8192), and the operations ext/idle_pick.h uses,
 * over the first nr_cpu_ids of them: small_cpumask_bits is nr_cpu_ids, as
 * in a kernel of NR_CPUS > BITS_PER_LONG without CONFIG_FORCE_NR_CPUS,
 * which is how distributions build. The benchmark sets nr_cpu_ids to its
 * machine's CPU count.
 */
#ifndef _SHIM_LINUX_CPUMASK_H
#define _SHIM_LINUX_CPUMASK_H

#include "../sched_rust_shim.h"

#define NR_CPUS			8192
extern unsigned int nr_cpu_ids;
#define small_cpumask_bits	nr_cpu_ids

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

static __always_inline void cpumask_clear_cpu(int cpu, struct cpumask *dstp)
{
	clear_bit(cpu, cpumask_bits(dstp));
}

static __always_inline bool cpumask_test_and_clear_cpu(int cpu, struct cpumask *cpumask)
{
	return test_and_clear_bit(cpu, cpumask_bits(cpumask));
}

/*
 * For the Rust idle picker's production path (see rust_helpers.c), which
 * the replica links but does not benchmark: lib/cpumask.c's
 * cpumask_any_and_distribute() and kernel/cpu.c's cpu_bit_bitmap, in
 * shim_lib.c, and cpumask_of() over the latter.
 */
unsigned int cpumask_any_and_distribute(const struct cpumask *src1p,
					const struct cpumask *src2p);

extern const unsigned long cpu_bit_bitmap[BITS_PER_LONG + 1][BITS_TO_LONGS(NR_CPUS)];

static __always_inline const struct cpumask *get_cpu_mask(unsigned int cpu)
{
	const unsigned long *p = cpu_bit_bitmap[1 + cpu % BITS_PER_LONG];

	p -= cpu / BITS_PER_LONG;
	return to_cpumask(p);
}

#define cpumask_of(cpu)		(get_cpu_mask(cpu))

#endif
