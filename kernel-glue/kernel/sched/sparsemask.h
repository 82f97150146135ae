/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sparsemask.h - sparse bitmap operations.
 *
 * Copyright (c) 2018 Oracle Corporation (original series by Steve Sistare)
 *
 * A sparsemask is a bitmap that spreads its bits over cache lines: each
 * chunk is one unsigned long padded to a cache line, of which only the low
 * 2^density bits are used. Element @e lives in chunk (e >> density), at bit
 * (e & (2^density - 1)). Writers that update different elements therefore
 * bounce fewer cache lines than they would on a dense bitmap, at the price
 * of more memory and of more lines to read when searching.
 *
 * The scheduler uses it for the per-LLC set of overloaded CPUs, which every
 * CPU of the LLC updates on its own runnable transitions and which idle CPUs
 * search for a task to steal.
 *
 * Behaviour on bad input: set and clear of an element outside [0, nelems)
 * do nothing, test of one returns false. The iterator treats an origin
 * outside [0, nelems) as 0, and ends the walk (returns nelems) for a prev
 * that is neither -1 nor an element. A mask of no elements is valid:
 * nothing is ever in it. The mask pointer must not be NULL.
 *
 * Unlike the v4/v5 postings of this header, sparsemask_next() visits every
 * set element exactly once, in the order origin .. nelems-1, 0 .. origin-1.
 * The posted version stopped after the first hit when another element was
 * set above it, and could miss the wrapped part when nelems was not a
 * multiple of 2^density.
 */
#ifndef _KERNEL_SCHED_SPARSEMASK_H
#define _KERNEL_SCHED_SPARSEMASK_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/limits.h>
#include <linux/printk.h>
#include <linux/slab.h>

/*
 * The largest density: a whole unsigned long per chunk. Density 3 (8
 * elements per cache line) is what the scheduler uses.
 */
#define SMASK_DENSITY_MAX	ilog2(BITS_PER_LONG)
#define SMASK_DENSITY_DEFAULT	3

struct sparsemask_chunk {
	unsigned long word;	/* the low 2^density bits are elements */
} ____cacheline_aligned_in_smp;

struct sparsemask {
	short nelems;		/* current number of elements */
	short density;		/* store 2^density elements per chunk */
	struct sparsemask_chunk chunks[];	/* embedded array of chunks */
};

/*
 * The layout, checked at build time: a chunk is one cache line, and the
 * chunks start one chunk after the header, so that the header shares no
 * line with a chunk and element @e's word is at a fixed offset from the
 * mask. sparsemask_size() and the element-to-chunk mapping rely on both.
 */
enum { SPARSEMASK_CHUNK_BYTES = sizeof(struct sparsemask_chunk) };
#ifdef CONFIG_SMP
static_assert(SPARSEMASK_CHUNK_BYTES == SMP_CACHE_BYTES);
#endif
static_assert(offsetof(struct sparsemask, chunks) == SPARSEMASK_CHUNK_BYTES);

#define SMASK_ELEMS_PER_CHUNK(density)	(1U << (density))

/* The bits of a chunk's word that hold elements. */
static inline unsigned long sparsemask_chunk_bits(const struct sparsemask *mask)
{
	return ~0UL >> (BITS_PER_LONG - SMASK_ELEMS_PER_CHUNK(mask->density));
}

static inline bool sparsemask_valid_elem(const struct sparsemask *mask, int elem)
{
	return elem >= 0 && elem < mask->nelems;
}

/*
 * Bytes needed for @nelems elements at @density. One chunk more than
 * strictly needed is always allocated, as the v4/v5 postings did.
 */
static inline size_t sparsemask_size(int nelems, int density)
{
	return offsetof(struct sparsemask, chunks) +
	       ((size_t)(nelems >> density) + 1) * sizeof(struct sparsemask_chunk);
}

/* Initialise @mask, which must hold sparsemask_size(@nelems, @density) zeroed bytes. */
static inline int sparsemask_init(struct sparsemask *mask, int nelems, int density)
{
	if (WARN_ON_ONCE(density < 0 || density > SMASK_DENSITY_MAX ||
			 nelems < 0 || nelems > SHRT_MAX))
		return -EINVAL;
	mask->nelems = nelems;
	mask->density = density;
	return 0;
}

/*
 * Allocate an empty sparsemask on @node. Returns NULL on failure, and for
 * a density outside 0..SMASK_DENSITY_MAX or more elements than the header
 * can count (SHRT_MAX), rather than silently truncating.
 */
static inline struct sparsemask *
sparsemask_alloc_node(int nelems, int density, gfp_t flags, int node)
{
	struct sparsemask *mask;

	if (density < 0 || density > SMASK_DENSITY_MAX ||
	    nelems < 0 || nelems > SHRT_MAX) {
		pr_err("sparsemask: cannot hold %d elements at density %d\n",
		       nelems, density);
		return NULL;
	}
	mask = kmalloc_node(sparsemask_size(nelems, density), flags | __GFP_ZERO, node);
	if (mask)
		sparsemask_init(mask, nelems, density);
	return mask;
}

static inline void sparsemask_free(struct sparsemask *mask)
{
	kfree(mask);
}

static inline unsigned long *
sparsemask_word(struct sparsemask *mask, int elem)
{
	return &mask->chunks[elem >> mask->density].word;
}

static inline unsigned int sparsemask_bit(const struct sparsemask *mask, int elem)
{
	return elem & (SMASK_ELEMS_PER_CHUNK(mask->density) - 1);
}

/* Atomically add @elem to @mask. */
static inline void sparsemask_set_elem(struct sparsemask *mask, int elem)
{
	if (sparsemask_valid_elem(mask, elem))
		set_bit(sparsemask_bit(mask, elem), sparsemask_word(mask, elem));
}

/* Atomically remove @elem from @mask. */
static inline void sparsemask_clear_elem(struct sparsemask *mask, int elem)
{
	if (sparsemask_valid_elem(mask, elem))
		clear_bit(sparsemask_bit(mask, elem), sparsemask_word(mask, elem));
}

/* Is @elem in @mask? A plain read: the answer may be stale at once. */
static inline bool sparsemask_test_elem(const struct sparsemask *mask, int elem)
{
	if (!sparsemask_valid_elem(mask, elem))
		return false;
	return test_bit(sparsemask_bit(mask, elem),
			&mask->chunks[elem >> mask->density].word);
}

/*
 * The first element of @mask in [@lo, @hi), or -1. Requires
 * 0 <= @lo and @hi <= nelems.
 */
static inline int sparsemask_find_in(const struct sparsemask *mask, int lo, int hi)
{
	int shift = mask->density;
	unsigned long valid = sparsemask_chunk_bits(mask);

	while (lo < hi) {
		int chunk = lo >> shift;
		unsigned long word = READ_ONCE(mask->chunks[chunk].word) & valid;

		/* Drop the elements of this chunk below @lo. */
		word &= ~0UL << sparsemask_bit(mask, lo);
		if (word) {
			int elem = (chunk << shift) + __ffs(word);

			return elem < hi ? elem : -1;
		}
		lo = (chunk + 1) << shift;
	}
	return -1;
}

/*
 * sparsemask_next - the element after @prev in a wrap-around walk of @mask.
 * @mask:   the mask to walk
 * @origin: where the walk starts; the walk visits origin .. nelems-1, then
 *          0 .. origin-1. @origin itself need not be set.
 * @prev:   the element returned by the previous call, or -1 to start.
 *
 * Returns the next set element, or nelems when the walk is complete (also
 * when @prev is neither -1 nor in [0, nelems)).
 */
static inline int sparsemask_next(const struct sparsemask *mask, int origin, int prev)
{
	int nelems = mask->nelems;
	int elem;

	if (origin < 0 || origin >= nelems)
		origin = 0;

	if (prev == -1) {
		elem = sparsemask_find_in(mask, origin, nelems);
		if (elem < 0)
			elem = sparsemask_find_in(mask, 0, origin);
	} else if (prev < 0 || prev >= nelems) {
		elem = -1;
	} else if (prev >= origin) {
		/* Still before the wrap. */
		elem = sparsemask_find_in(mask, prev + 1, nelems);
		if (elem < 0)
			elem = sparsemask_find_in(mask, 0, origin);
	} else {
		elem = sparsemask_find_in(mask, prev + 1, origin);
	}
	return elem < 0 ? nelems : elem;
}

/*
 * sparsemask_for_each - visit every element of @mask once, starting at
 * @origin and wrapping around. @elem equals nelems when the loop ends.
 */
#define sparsemask_for_each(mask, origin, elem)				\
	for ((elem) = -1;						\
	     ((elem) = sparsemask_next((mask), (origin), (elem))) <	\
		(mask)->nelems;)

#endif /* _KERNEL_SCHED_SPARSEMASK_H */
