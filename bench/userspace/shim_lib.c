// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line bit search and bitmap functions that the C helpers call
 * (lib/find_bit.c and lib/bitmap.c of Linux 7.3, same algorithms). Built
 * without LTO in every variant: in the kernel they live in lib/, outside
 * any unit that the Rust helpers could be inlined into.
 */
#include "sched_rust_shim.h"
#include "linux/cpumask.h"

/* kernel/cpu.c's: the number of possible CPUs, set by the benchmark. */
unsigned int nr_cpu_ids = NR_CPUS;

/*
 * kernel/cpu.c's cpu_bit_bitmap, behind cpumask_of(): row 1 + n holds bit n
 * in its first word, and the mask of CPU c starts c / BITS_PER_LONG words
 * before row 1 + c % BITS_PER_LONG, in the zeros of the rows above.
 */
#define MASK_DECLARE_1(x)	[x + 1][0] = (1UL << (x))
#define MASK_DECLARE_2(x)	MASK_DECLARE_1(x), MASK_DECLARE_1(x + 1)
#define MASK_DECLARE_4(x)	MASK_DECLARE_2(x), MASK_DECLARE_2(x + 2)
#define MASK_DECLARE_8(x)	MASK_DECLARE_4(x), MASK_DECLARE_4(x + 4)

const unsigned long cpu_bit_bitmap[BITS_PER_LONG + 1][BITS_TO_LONGS(NR_CPUS)] = {
	MASK_DECLARE_8(0),	MASK_DECLARE_8(8),
	MASK_DECLARE_8(16),	MASK_DECLARE_8(24),
	MASK_DECLARE_8(32),	MASK_DECLARE_8(40),
	MASK_DECLARE_8(48),	MASK_DECLARE_8(56),
};

/*
 * lib/cpumask.c's cpumask_any_and_distribute(), the same lines; the
 * process is one CPU, so its per-CPU cursor is one variable. Only the Rust
 * idle picker's production path (sched_rust_idle_pick() and co.) calls
 * it: the replica links that path but does not benchmark it (the idle pick
 * rows run the described-machine exports, with the machine's cursor).
 */
static unsigned int distribute_cpu_mask_prev;

unsigned int cpumask_any_and_distribute(const struct cpumask *src1p,
					const struct cpumask *src2p)
{
	unsigned int next, prev;

	/* NOTE: our first selection will skip 0. */
	prev = READ_ONCE(distribute_cpu_mask_prev);

	/* cpumask_next_and_wrap(prev, src1p, src2p) */
	next = find_next_and_bit_wrap(cpumask_bits(src1p), cpumask_bits(src2p),
				      small_cpumask_bits, prev + 1);
	if (next < nr_cpu_ids)
		WRITE_ONCE(distribute_cpu_mask_prev, next);

	return next;
}

#define FIND_FIRST_BIT(FETCH, size)						\
({										\
	unsigned long idx, val, sz = (size);					\
										\
	for (idx = 0; idx * BITS_PER_LONG < sz; idx++) {			\
		val = (FETCH);							\
		if (val) {							\
			sz = min(idx * BITS_PER_LONG + __ffs(val), sz);		\
			break;							\
		}								\
	}									\
	sz;									\
})

#define FIND_NEXT_BIT(FETCH, size, start)					\
({										\
	unsigned long mask, idx, tmp, sz = (size), __start = (start);		\
										\
	if (unlikely(__start >= sz))						\
		goto out;							\
	mask = BITMAP_FIRST_WORD_MASK(__start);					\
	idx = __start / BITS_PER_LONG;						\
	for (tmp = (FETCH) & mask; !tmp; tmp = (FETCH)) {			\
		if ((idx + 1) * BITS_PER_LONG >= sz)				\
			goto out;						\
		idx++;								\
	}									\
	sz = min(idx * BITS_PER_LONG + __ffs(tmp), sz);				\
out:										\
	sz;									\
})

unsigned long _find_first_bit(const unsigned long *addr, unsigned long size)
{
	return FIND_FIRST_BIT(addr[idx], size);
}

unsigned long _find_first_and_bit(const unsigned long *addr1, const unsigned long *addr2,
				  unsigned long size)
{
	return FIND_FIRST_BIT(addr1[idx] & addr2[idx], size);
}

unsigned long _find_next_bit(const unsigned long *addr, unsigned long nbits,
			     unsigned long start)
{
	return FIND_NEXT_BIT(addr[idx], nbits, start);
}

unsigned long _find_next_and_bit(const unsigned long *addr1, const unsigned long *addr2,
				 unsigned long nbits, unsigned long start)
{
	return FIND_NEXT_BIT(addr1[idx] & addr2[idx], nbits, start);
}

bool __bitmap_intersects(const unsigned long *bitmap1, const unsigned long *bitmap2,
			 unsigned int bits)
{
	unsigned int k, lim = bits / BITS_PER_LONG;

	for (k = 0; k < lim; ++k)
		if (bitmap1[k] & bitmap2[k])
			return true;
	if (bits % BITS_PER_LONG)
		if ((bitmap1[k] & bitmap2[k]) & BITMAP_LAST_WORD_MASK(bits))
			return true;
	return false;
}

bool __bitmap_andnot(unsigned long *dst, const unsigned long *bitmap1,
		     const unsigned long *bitmap2, unsigned int bits)
{
	unsigned int k, lim = bits / BITS_PER_LONG;
	unsigned long result = 0;

	for (k = 0; k < lim; k++)
		result |= (dst[k] = bitmap1[k] & ~bitmap2[k]);
	if (bits % BITS_PER_LONG)
		result |= (dst[k] = bitmap1[k] & ~bitmap2[k] & BITMAP_LAST_WORD_MASK(bits));
	return result != 0;
}

/*
 * kernel/sched/topology.c's sched_numa_hop_mask(), for the hop-mask walk of
 * bench.c (bench hopmask): the same lines over the same globals, which the
 * benchmark builds for its machine as sched_init_numa() does. Out of line
 * here as topology.c's is for idle.c (another unit, exported).
 */
unsigned int nr_node_ids;
int sched_domains_numa_levels;
struct cpumask ***sched_domains_numa_masks;

const struct cpumask *sched_numa_hop_mask(unsigned int node, unsigned int hops)
{
	struct cpumask ***masks;

	if (node >= nr_node_ids || hops >= sched_domains_numa_levels)
		return (const struct cpumask *)(long)-EINVAL;	/* ERR_PTR() */

	masks = READ_ONCE(sched_domains_numa_masks);		/* rcu_dereference() */
	if (!masks)
		return (const struct cpumask *)(long)-EBUSY;

	return masks[hops][node];
}
