// SPDX-License-Identifier: GPL-2.0

//! The userspace model of the kernel's bit operations on CPU masks, which
//! the cores call through [`CpuMask`] and [`CpuSet`].
//!
//! In the kernel the cores never touch a C mask's memory: each operation
//! is the kernel's own (`kernel::cpumask::Cpumask`'s methods, lib/find_bit.c,
//! the bitops), which run in C exactly as idle.c's and fair.c's. Here the
//! same operations run on [`Bits`], words of this crate's [`Word`] (Rust's
//! atomics, or loom's), with the semantics of the C ones: the single-bit
//! writes are atomic bit operations, `test_and_clear_cpu()` is fully
//! ordered, searches and `andnot()` go word by word, and bits at and above
//! `nbits` are ignored, as `find_next_and_bit()` ignores them.

use crate::idle_pick::{CpuMask, IdleMask};
use crate::steal::CpuSet;
use crate::sync::{bit_mask, Full, Relaxed, Word};

/// A bitmap of CPUs in `unsigned long` words, as `cpumask_bits()`.
pub type Bits = [Word];

/// The word of `bit`.
#[inline]
fn word_of(bits: &Bits, bit: u32) -> Option<&Word> {
    bits.get((bit / usize::BITS) as usize)
}

/// `a` and `b` cut to the words of `nbits` bits that both have.
#[inline(always)]
fn cut<'a>(a: &'a Bits, b: &'a Bits, nbits: u32) -> (&'a Bits, &'a Bits) {
    let words = (nbits.div_ceil(usize::BITS) as usize)
        .min(a.len())
        .min(b.len());
    (a.get(..words).unwrap_or(&[]), b.get(..words).unwrap_or(&[]))
}

/// The first bit of `a & b` in `[from, limit)`, as lib/find_bit.c's
/// `find_next_and_bit()`; `a` and `b` as [`cut`] leaves them.
#[inline(always)]
fn find_and_in(a: &Bits, b: &Bits, from: u32, limit: u32) -> Option<u32> {
    let end = limit.div_ceil(usize::BITS) as usize;
    let mut i = (from / usize::BITS) as usize;
    let mut keep = usize::MAX.wrapping_shl(from % usize::BITS);
    while i < end {
        let (Some(x), Some(y)) = (a.get(i), b.get(i)) else {
            return None;
        };
        let common = x.load(Relaxed) & y.load(Relaxed) & keep;
        if common != 0 {
            return u32::try_from(i)
                .ok()?
                .checked_mul(usize::BITS)?
                .checked_add(common.trailing_zeros())
                .filter(|&cpu| cpu < limit);
        }
        keep = usize::MAX;
        i = i.wrapping_add(1);
    }
    None
}

impl CpuMask for Bits {
    #[inline]
    fn test_cpu(&self, cpu: u32) -> bool {
        word_of(self, cpu).is_some_and(|w| w.load(Relaxed) & bit_mask(cpu) != 0)
    }

    #[inline]
    fn intersects(&self, other: &Self, nbits: u32) -> bool {
        let (a, b) = cut(self, other, nbits);
        find_and_in(a, b, 0, nbits).is_some()
    }

    #[inline]
    fn find_next_and(&self, other: &Self, nbits: u32, from: u32) -> Option<u32> {
        let (a, b) = cut(self, other, nbits);
        find_and_in(a, b, from, nbits)
    }
}

impl IdleMask for Bits {
    type Mask = Bits;

    #[inline]
    fn as_mask(&self) -> &Bits {
        self
    }

    #[inline]
    fn clear_cpu(&self, cpu: u32) {
        if let Some(w) = word_of(self, cpu) {
            w.andnot(bit_mask(cpu), Relaxed);
        }
    }

    #[inline]
    fn test_and_clear_cpu(&self, cpu: u32) -> bool {
        let m = bit_mask(cpu);
        word_of(self, cpu).is_some_and(|w| w.fetch_andnot(m, Full) & m != 0)
    }

    #[inline]
    fn andnot(&self, other: &Bits, _nbits: u32) {
        for (d, s) in self.iter().zip(other) {
            let s = s.load(Relaxed);
            if s != 0 {
                d.andnot(s, Relaxed);
            }
        }
    }
}

/// A bitmap of CPU ids as the steal walk's sibling mask: bit `n` of word
/// `n / usize::BITS`.
#[derive(Clone, Copy)]
pub struct CpuBitmap<'a> {
    words: &'a Bits,
}

impl<'a> CpuBitmap<'a> {
    /// Borrows `words` as a bitmap of `words.len() * usize::BITS` CPUs.
    #[inline]
    pub fn new(words: &'a Bits) -> Self {
        Self { words }
    }
}

impl CpuSet for CpuBitmap<'_> {
    #[inline]
    fn find_next(&self, nbits: u32, from: u32) -> Option<u32> {
        let (a, _) = cut(self.words, self.words, nbits);
        find_and_in(a, a, from, nbits)
    }

    #[inline]
    fn test(&self, cpu: u32) -> bool {
        self.words.test_cpu(cpu)
    }
}
