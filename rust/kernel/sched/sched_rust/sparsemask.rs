// SPDX-License-Identifier: GPL-2.0

//! Sparse bitmap of scheduler elements (the overload mask).
//!
//! C header: [`kernel/sched/sparsemask.h`](srctree/kernel/sched/sparsemask.h).
//!
//! A sparsemask spreads its bits over cache lines: each [`Chunk`] is one
//! machine word padded to a 64-byte line, of which only the low `2^density`
//! bits hold elements. Element `e` lives in chunk `e >> density`, at bit
//! `e & (2^density - 1)`. CPUs that set or clear different elements then
//! bounce fewer cache lines than they would on a dense bitmap; the price is
//! memory, and more lines to read when searching.
//!
//! The memory layout is the C one, so that the C and Rust implementations
//! can work on the same mask: the C header (`short nelems; short density;`)
//! padded to one line, followed by `(nelems >> density) + 1` chunks.
//!
//! The walk ([`SparseMask::next`]) visits every set element exactly once,
//! from `origin` up to `nelems - 1`, then from `0` up to `origin - 1`: the
//! order of `for_each_cpu_wrap()`. (The v4/v5 postings stopped early; see
//! the C header.)
//!
//! This file uses only `core`: it is compiled into vmlinux through
//! `kernel/sched/sched_rust.rs`, and into a userspace crate for property
//! tests and benchmarks. It never panics: no indexing, no unchecked
//! arithmetic, no `unwrap()`.

use super::sync::{
    bit_mask,
    Relaxed,
    Word, //
};

/// The largest density: every bit of a chunk's word is an element.
pub const DENSITY_MAX: u32 = usize::BITS.trailing_zeros();

/// The density the scheduler uses: 8 elements (CPUs) per cache line.
pub const DENSITY_DEFAULT: u32 = 3;

/// Bytes per chunk: one cache line on x86-64 and arm64 (`L1_CACHE_BYTES`).
///
/// The kernel build checks it against C's `SPARSEMASK_CHUNK_BYTES`
/// (`sparsemask_export.rs`): with other cache lines it fails to build.
pub const CHUNK_BYTES: usize = 64;

/// One cache line of a sparsemask: a word of which the low `2^density` bits
/// are elements.
///
/// Memory the series owns, so its word is an `Atomic`: `sparsemask_init()`
/// writes it before the mask is published, and from then on every writer
/// is atomic, C's `set_bit()`/`clear_bit()` and the core's `or()`/`andnot()`
/// of the same bit (not ordered); reads are `READ_ONCE()`s, as in the C
/// sparsemask (see `sync.rs`). No code may write it otherwise.
#[repr(C, align(64))]
pub struct Chunk {
    word: Word,
}

impl Default for Chunk {
    #[inline]
    fn default() -> Self {
        Self { word: Word::new(0) }
    }
}

const _: () = assert!(core::mem::size_of::<Chunk>() == CHUNK_BYTES);

impl Chunk {
    /// The raw word, elements and any stray bits above them.
    #[inline]
    pub fn load(&self) -> usize {
        self.word.load(Relaxed)
    }

    /// Overwrites the raw word (for tests that build a mask bit by bit).
    #[inline]
    pub fn store(&self, word: usize) {
        self.word.store(word, Relaxed)
    }
}

/// Number of chunks that back `nelems` elements at `density`: one more than
/// strictly needed, as in the C layout. `None` if `density` is too large.
#[inline]
pub const fn chunks_for(nelems: u32, density: u32) -> Option<usize> {
    if density > DENSITY_MAX {
        return None;
    }
    // `density <= DENSITY_MAX < 32`: the shift does not wrap.
    (nelems.wrapping_shr(density) as usize).checked_add(1)
}

/// A borrowed sparsemask: its size, its density and its chunks.
///
/// # Invariants
///
/// - `density <= DENSITY_MAX`.
/// - `chunks.len() >= (nelems >> density) + 1`, so every element in
///   `0..nelems` has a chunk.
#[derive(Clone, Copy)]
pub struct SparseMask<'a> {
    nelems: u32,
    density: u32,
    chunks: &'a [Chunk],
}

impl<'a> SparseMask<'a> {
    /// Borrows `chunks` as a mask of `nelems` elements at `density`.
    ///
    /// Returns `None` if `density` exceeds [`DENSITY_MAX`] or if `chunks` is
    /// too short for `nelems` elements.
    #[inline]
    pub fn new(nelems: u32, density: u32, chunks: &'a [Chunk]) -> Option<Self> {
        match chunks_for(nelems, density) {
            // INVARIANT: the density is in range and every element has a chunk.
            Some(needed) if chunks.len() >= needed => Some(Self {
                nelems,
                density,
                chunks,
            }),
            _ => None,
        }
    }

    /// Borrows `chunks` as a mask of `nelems` elements at `density` that
    /// were checked once, when the mask was set up: the kernel's boundary
    /// calls it for a mask that `sparsemask_init()` set up, which checked
    /// its header.
    ///
    /// The caller keeps the type invariants: `density <= DENSITY_MAX` and
    /// `chunks.len() >= (nelems >> density) + 1`. Soundness does not rest on
    /// them (this file has no `unsafe`, and every chunk is reached with a
    /// bounds check); a mask that broke them would give wrong answers.
    #[inline]
    pub const fn from_checked(nelems: u32, density: u32, chunks: &'a [Chunk]) -> Self {
        // INVARIANT: the caller's, see above.
        Self {
            nelems,
            density,
            chunks,
        }
    }

    /// Number of elements: the valid elements are `0..nelems()`.
    #[inline]
    pub fn nelems(&self) -> u32 {
        self.nelems
    }

    /// Elements per chunk, `2^density`, as a bit mask of a chunk's low bits.
    #[inline]
    fn chunk_bits(&self) -> usize {
        // `1 <= 2^density <= usize::BITS` by the invariant, so the shift is
        // in `0..usize::BITS`.
        usize::MAX.wrapping_shr(usize::BITS.wrapping_sub(1u32.wrapping_shl(self.density)))
    }

    /// The bit number of `elem` in its chunk: `elem & (2^density - 1)`.
    #[inline]
    fn bit_of(&self, elem: u32) -> u32 {
        // `density < 32` by the invariant: no shift overflow, and `2^density`
        // is at least 1, so the subtraction cannot wrap.
        elem & 1u32.wrapping_shl(self.density).wrapping_sub(1)
    }

    /// The index of the chunk that holds `elem`: `elem >> density`.
    #[inline]
    fn chunk_of(&self, elem: u32) -> usize {
        // `density < 32` by the invariant: the shift does not wrap. (A plain
        // `>>` would keep a shift-overflow panic path: the optimiser cannot
        // see the invariant.)
        elem.wrapping_shr(self.density) as usize
    }

    /// The chunk of `elem` and the bit of `elem` in it, or `None` if `elem`
    /// is not in `0..nelems`.
    #[inline]
    fn locate(&self, elem: u32) -> Option<(&'a Chunk, u32)> {
        if elem >= self.nelems {
            return None;
        }
        let chunk = self.chunks.get(self.chunk_of(elem))?;
        Some((chunk, self.bit_of(elem)))
    }

    /// Atomically adds `elem`. Does nothing if `elem` is not in `0..nelems`.
    #[inline]
    pub fn set(&self, elem: u32) {
        if let Some((chunk, bit)) = self.locate(elem) {
            chunk.word.or(bit_mask(bit), Relaxed);
        }
    }

    /// Atomically removes `elem`. Does nothing if `elem` is not in `0..nelems`.
    #[inline]
    pub fn clear(&self, elem: u32) {
        if let Some((chunk, bit)) = self.locate(elem) {
            chunk.word.andnot(bit_mask(bit), Relaxed);
        }
    }

    /// Whether `elem` is set; `false` if `elem` is not in `0..nelems`.
    ///
    /// A plain read: another CPU may change the answer at once.
    #[inline]
    pub fn test(&self, elem: u32) -> bool {
        match self.locate(elem) {
            Some((chunk, bit)) => chunk.load() & 1usize.wrapping_shl(bit) != 0,
            None => false,
        }
    }

    /// The first set element in `lo..hi`, for `hi <= nelems`.
    #[inline]
    fn find_in(&self, lo: u32, hi: u32) -> Option<u32> {
        if lo >= hi {
            return None;
        }
        let first = self.chunk_of(lo);
        let mut chunks = self.chunks.get(first..)?.iter();
        // The chunk of `lo`, less its elements below `lo`. It is searched
        // before the bound of the others is taken: on a machine of one
        // chunk per LLC, and wherever the next element is near, it is the
        // only chunk read, and the walk's step pays for no more.
        let below_lo = usize::MAX.wrapping_shl(self.bit_of(lo));
        let mut word = chunks.next()?.load() & self.chunk_bits() & below_lo;
        // The index of the chunk `word` came from; counted by hand, as
        // range and `enumerate()` counters carry overflow checks.
        let mut index = first;
        if word == 0 {
            // The chunks after it, up to the chunk of `hi - 1`.
            let last = self.chunk_of(hi.wrapping_sub(1));
            let rest = chunks.as_slice().get(..last.wrapping_sub(first))?;
            for chunk in rest {
                index = index.wrapping_add(1);
                word = chunk.load() & self.chunk_bits();
                if word != 0 {
                    break;
                }
            }
            if word == 0 {
                return None;
            }
        }
        // `first <= index <= last`, so `index << density` is at most
        // `hi - 1 < u32::MAX`; adding a bit number below `2^density` stays
        // within the chunk, hence within `u32`.
        let elem = (index as u32)
            .wrapping_shl(self.density)
            .wrapping_add(word.trailing_zeros());
        if elem < hi {
            Some(elem)
        } else {
            None
        }
    }

    /// The element after `prev` in the walk that starts at `origin`.
    ///
    /// The walk visits every set element once: `origin..nelems`, then
    /// `0..origin`. Pass `prev = None` to start it. `origin` itself need not
    /// be set; an `origin` outside `0..nelems` counts as `0`.
    ///
    /// Returns `None` when the walk is complete, and also when `prev` is not
    /// in `0..nelems`.
    // Always inlined: it is the walk's step, and LLVM's threshold (its
    // cost is about 750) kept it a call, twice per step through the export.
    #[inline(always)]
    pub fn next(&self, origin: u32, prev: Option<u32>) -> Option<u32> {
        let origin = if origin < self.nelems { origin } else { 0 };
        match prev {
            None => self
                .find_in(origin, self.nelems)
                .or_else(|| self.find_in(0, origin)),
            Some(prev) if prev >= self.nelems => None,
            // Before the wrap: the rest of `origin..nelems`, then `0..origin`.
            Some(prev) if prev >= origin => self
                .find_in(prev.wrapping_add(1), self.nelems)
                .or_else(|| self.find_in(0, origin)),
            // After the wrap.
            Some(prev) => self.find_in(prev.wrapping_add(1), origin),
        }
    }

    /// Iterates over the set elements, from `origin` with wrap-around.
    #[inline]
    pub fn iter_from(&self, origin: u32) -> WrapIter<'a> {
        WrapIter {
            mask: *self,
            origin,
            prev: None,
            done: false,
        }
    }
}

/// Iterator returned by [`SparseMask::iter_from`].
pub struct WrapIter<'a> {
    mask: SparseMask<'a>,
    origin: u32,
    prev: Option<u32>,
    done: bool,
}

impl Iterator for WrapIter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.done {
            return None;
        }
        let elem = self.mask.next(self.origin, self.prev);
        self.done = elem.is_none();
        self.prev = elem;
        elem
    }
}
