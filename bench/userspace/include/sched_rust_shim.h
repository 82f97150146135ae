/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_rust_shim.h - the few kernel definitions that the C helpers
 * (kernel/sched/sparsemask.h, steal_search.h, asym_fit.h, ext/idle_pick.h)
 * need, for the userspace replica of the benchmark (bench/userspace/).
 *
 * Every include/linux/<name>.h includes it, so that the helpers' headers
 * compile unmodified with -I bench/userspace/include. Those that include
 * nothing else are generated from the list include/forwarded.
 * The semantics are those of Linux 7.3 on x86-64:
 *  - set_bit()/clear_bit() with a variable bit number are `lock bts/btr`
 *    (arch/x86/include/asm/bitops.h), test_bit() is the volatile `bt` of
 *    variable_test_bit(), test_and_clear_bit() `lock btr`, __ffs() `tzcnt`;
 *  - find_next_bit() and co. and the bitmap operations on a size that is not
 *    a small constant call out-of-line functions (lib/find_bit.c,
 *    lib/bitmap.c): here shim_lib.c, which is never part of an LTO unit, as
 *    lib/ is not in the kernel (no whole-kernel LTO with Rust);
 *  - READ_ONCE()/WRITE_ONCE() are volatile accesses.
 */
#ifndef _SCHED_RUST_SHIM_H
#define _SCHED_RUST_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;

/* include/linux/types.h: the head of an RCU callback */
struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
} __attribute__((aligned(sizeof(void *))));
#define rcu_head callback_head
#define __rcu

#undef __always_inline
#undef __attribute_const__
#define __always_inline		inline __attribute__((__always_inline__))
#define __attribute_const__	__attribute__((__const__))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	do { *(volatile __typeof__(x) *)&(x) = (val); } while (0)
/* include/linux/compiler.h: @var's value becomes unknown to the compiler */
#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))

/* include/linux/build_bug.h */
#define static_assert(expr, ...)	__static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...)	_Static_assert(expr, msg)

#define BITS_PER_LONG		64
#define BITS_PER_BYTE		8
#define BIT(nr)			(1UL << (nr))
#define GENMASK(h, l)		(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define BITS_TO_LONGS(nr)	DIV_ROUND_UP(nr, BITS_PER_BYTE * sizeof(long))
#define BITMAP_FIRST_WORD_MASK(start) (~0UL << ((start) & (BITS_PER_LONG - 1)))
#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
#define ilog2(n)		(63 - __builtin_clzll(n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define SMP_CACHE_BYTES		64
#define ____cacheline_aligned_in_smp __attribute__((__aligned__(SMP_CACHE_BYTES)))

#define NUMA_NO_NODE		(-1)
#define SCHED_CAPACITY_SHIFT	10
#define SCHED_CAPACITY_SCALE	(1L << SCHED_CAPACITY_SHIFT)

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define wrapping_add(type, a, b) \
	({ type __val; __builtin_add_overflow(a, b, &__val); __val; })
#define wrapping_sub(type, a, b) \
	({ type __val; __builtin_sub_overflow(a, b, &__val); __val; })

#define pr_err(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define WARN_ON_ONCE(cond)	({ bool __c = !!(cond);				\
				   if (__c)						\
					fprintf(stderr, "WARN_ON_ONCE: %s\n", #cond);	\
				   __c; })

/* kmalloc_node(): cache-line aligned like the kernel's kmalloc of these sizes. */
#define GFP_KERNEL		0U
#define __GFP_ZERO		1U
static inline void *kmalloc_node(size_t size, gfp_t flags, int node)
{
	void *p = aligned_alloc(SMP_CACHE_BYTES, (size + SMP_CACHE_BYTES - 1) &
				~(size_t)(SMP_CACHE_BYTES - 1));

	(void)node;
	if (p && (flags & __GFP_ZERO))
		memset(p, 0, size);
	return p;
}
static inline void kfree(const void *p) { free((void *)p); }

/* arch/x86/include/asm/bitops.h, variable bit numbers. */
#define RLONG_ADDR(x)		"m" (*(volatile long *)(x))

static __always_inline void set_bit(long nr, volatile unsigned long *addr)
{
	__asm__ __inline __volatile__("lock; btsq %1,%0" : : RLONG_ADDR(addr), "Ir" (nr) : "memory");
}

static __always_inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__asm__ __inline __volatile__("lock; btrq %1,%0" : : RLONG_ADDR(addr), "Ir" (nr) : "memory");
}

static __always_inline void __set_bit(unsigned long nr, volatile unsigned long *addr)
{
	__asm__ __volatile__("btsq %1,%0" : : RLONG_ADDR(addr), "Ir" (nr) : "memory");
}

static __always_inline void __clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	__asm__ __volatile__("btrq %1,%0" : : RLONG_ADDR(addr), "Ir" (nr) : "memory");
}

static __always_inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	bool c;

	__asm__ __volatile__("lock; btrq %2,%1" : "=@ccc" (c), "+m" (*(volatile long *)addr)
			     : "Ir" (nr) : "memory");
	return c;
}

static __always_inline bool test_bit(unsigned long nr, const volatile unsigned long *addr)
{
	bool oldbit;

	__asm__ __volatile__("btq %2,%1" : "=@ccc" (oldbit)
			     : "m" (*(unsigned long *)addr), "Ir" (nr) : "memory");
	return oldbit;
}

static __always_inline __attribute_const__ unsigned long __ffs(unsigned long word)
{
	__asm__("tzcnt %1,%0" : "=r" (word) : "r" (word));
	return word;
}

/* include/linux/find.h and lib/find_bit.c: never small constants here. */
unsigned long _find_next_bit(const unsigned long *addr, unsigned long nbits,
			     unsigned long start);
unsigned long _find_next_and_bit(const unsigned long *addr1, const unsigned long *addr2,
				 unsigned long nbits, unsigned long start);
unsigned long _find_first_bit(const unsigned long *addr, unsigned long size);
unsigned long _find_first_and_bit(const unsigned long *addr1, const unsigned long *addr2,
				  unsigned long size);
bool __bitmap_intersects(const unsigned long *bitmap1, const unsigned long *bitmap2,
			 unsigned int nbits);
bool __bitmap_andnot(unsigned long *dst, const unsigned long *bitmap1,
		     const unsigned long *bitmap2, unsigned int nbits);

#define find_next_bit(addr, size, offset)	_find_next_bit(addr, size, offset)
#define find_next_and_bit(a1, a2, size, off)	_find_next_and_bit(a1, a2, size, off)
#define find_first_bit(addr, size)		_find_first_bit(addr, size)
#define find_first_and_bit(a1, a2, size)	_find_first_and_bit(a1, a2, size)

static __always_inline
unsigned long find_next_and_bit_wrap(const unsigned long *addr1, const unsigned long *addr2,
				     unsigned long size, unsigned long offset)
{
	unsigned long bit = find_next_and_bit(addr1, addr2, size, offset);

	if (bit < size || offset == 0)
		return bit;

	bit = find_first_and_bit(addr1, addr2, offset);
	return bit < offset ? bit : size;
}

static __always_inline
unsigned long find_next_bit_wrap(const unsigned long *addr, unsigned long size,
				 unsigned long offset)
{
	unsigned long bit = find_next_bit(addr, size, offset);

	if (bit < size || offset == 0)
		return bit;

	bit = find_first_bit(addr, offset);
	return bit < offset ? bit : size;
}

static __always_inline
unsigned long __for_each_wrap(const unsigned long *bitmap, unsigned long size,
			      unsigned long start, unsigned long n)
{
	unsigned long bit;

	if (n > start) {
		bit = find_next_bit(bitmap, size, n);
		if (bit < size)
			return bit;
		n = 0;
	}
	bit = find_next_bit(bitmap, start, n);
	return bit < start ? bit : size;
}

#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) = find_next_bit((addr), (size), (bit)), (bit) < (size); (bit)++)

#define for_each_set_bit_wrap(bit, addr, size, start) \
	for ((bit) = find_next_bit_wrap((addr), (size), (start));		\
	     (bit) < (size);							\
	     (bit) = __for_each_wrap((addr), (size), (start), (bit) + 1))

/* include/linux/bitmap.h, sizes that are not small constants. */
static __always_inline unsigned int bitmap_size(unsigned int nbits)
{
	return BITS_TO_LONGS(nbits) * sizeof(unsigned long);
}

static __always_inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0xff, bitmap_size(nbits));
}

static __always_inline void bitmap_copy(unsigned long *dst, const unsigned long *src,
					unsigned int nbits)
{
	memcpy(dst, src, bitmap_size(nbits));
}

static __always_inline bool bitmap_intersects(const unsigned long *src1,
					      const unsigned long *src2, unsigned int nbits)
{
	return __bitmap_intersects(src1, src2, nbits);
}

static __always_inline bool bitmap_andnot(unsigned long *dst, const unsigned long *src1,
					  const unsigned long *src2, unsigned int nbits)
{
	return __bitmap_andnot(dst, src1, src2, nbits);
}

#endif /* _SCHED_RUST_SHIM_H */
