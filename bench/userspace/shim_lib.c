// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line bit search and bitmap functions that the C helpers call
 * (lib/find_bit.c and lib/bitmap.c of Linux 7.2, same algorithms). Built
 * without LTO in every variant: in the kernel they live in lib/, outside
 * any unit that the Rust helpers could be inlined into.
 */
#include "sched_rust_shim.h"
#include "linux/cpumask.h"

/* kernel/cpu.c's: the number of possible CPUs, set by the benchmark. */
unsigned int nr_cpu_ids = NR_CPUS;

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
