// SPDX-License-Identifier: GPL-2.0

//! The candidate walk of `try_steal()`.
//!
//! C header: [`kernel/sched/steal_search.h`](srctree/kernel/sched/steal_search.h).
//!
//! When a CPU is about to go idle and the newidle balance found nothing,
//! `try_steal()` looks for a task on an overloaded CPU of the same LLC. It
//! tries the candidates in this order and stops at the first success:
//!
//! 1. the SMT siblings of the destination whose overload bit is set, in
//!    ascending order, to keep the stolen task's cache warm;
//! 2. every CPU of the LLC's overload mask, from the destination up with
//!    wrap-around.
//!
//! The destination itself is never tried, and each sibling is tried once:
//! step 2 skips the siblings, which step 1 tried if they were overloaded.
//! The walk ends at the first candidate that gives up a task, and as soon as
//! the attempt says to stop (the destination got work meanwhile, or the
//! budget of attempts is spent).
//!
//! The attempt takes and drops run-queue locks, so it stays in C: it is the
//! `steal_from` closure here, a call back into C in the kernel. One call from
//! C runs the whole walk.

use super::sync::{
    bit_mask,
    Relaxed,
    Word, //
};

use super::sparsemask::SparseMask;

/// A bitmap of CPU ids, as `cpumask_bits()` of a `struct cpumask`: bit `n`
/// of word `n / usize::BITS`.
///
/// The words are read with `READ_ONCE()` (`load(Relaxed)`): the C side may
/// rewrite a topology mask while it is read (sched domain rebuilds under
/// CPU hotplug), and a stale view of a hint is harmless; a word is never
/// torn.
#[derive(Clone, Copy)]
pub struct CpuBitmap<'a> {
    words: &'a [Word],
}

impl<'a> CpuBitmap<'a> {
    /// Borrows `words` as a bitmap of `words.len() * usize::BITS` CPUs.
    #[inline]
    pub fn new(words: &'a [Word]) -> Self {
        Self { words }
    }

    /// Whether bit `cpu` is set; false beyond the bitmap.
    #[inline]
    pub fn test(&self, cpu: u32) -> bool {
        let word = (cpu / usize::BITS) as usize;
        self.words
            .get(word)
            .is_some_and(|w| w.load(Relaxed) & bit_mask(cpu) != 0)
    }

    /// The first set bit below `nbits`, in ascending order, for which
    /// `pred` returns true; `None` if there is none.
    ///
    /// Plain loops rather than iterator adapters: range counters carry
    /// overflow checks, and nested adapters leave out-of-line functions with
    /// names too long for kallsyms.
    #[inline]
    pub fn find(&self, nbits: u32, mut pred: impl FnMut(u32) -> bool) -> Option<u32> {
        // The number of bit 0 of `word`.
        let mut base = 0u32;

        for word in self.words {
            if base >= nbits {
                break;
            }
            let mut bits = word.load(Relaxed);
            // Drop the bits at and above `nbits` in the last word.
            let room = nbits.wrapping_sub(base);
            if room < usize::BITS {
                bits &= !usize::MAX.wrapping_shl(room);
            }
            while bits != 0 {
                // `base + bit < nbits <= u32::MAX`: no wrap.
                let cpu = base.wrapping_add(bits.trailing_zeros());
                // Clear the lowest set bit.
                bits &= bits.wrapping_sub(1);
                if pred(cpu) {
                    return Some(cpu);
                }
            }
            base = base.checked_add(usize::BITS)?;
        }
        None
    }
}

/// What an attempt to steal from a candidate did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Attempt {
    /// No task taken: try the next candidate.
    Refused,
    /// A task was taken: the walk ends with this candidate.
    Taken,
    /// No task taken, and the walk must end.
    Stop,
}

/// Tries the steal candidates of `dst_cpu` in order (see the module doc).
///
/// `overload` is the LLC's overload mask, indexed by CPU id. `smt_siblings`
/// holds the SMT siblings of `dst_cpu` (itself included), or is `None` when
/// SMT is off; only its first `overload.nelems()` bits are read.
/// `steal_from(cpu)` attempts the steal.
///
/// Returns the CPU a task was stolen from, or `None` (nothing taken, or an
/// attempt said [`Attempt::Stop`]).
#[inline]
pub fn steal_search(
    overload: &SparseMask<'_>,
    smt_siblings: Option<CpuBitmap<'_>>,
    dst_cpu: u32,
    mut steal_from: impl FnMut(u32) -> Attempt,
) -> Option<u32> {
    // The candidate at which the walk ended, and how.
    let mut last = Attempt::Refused;
    let mut attempt = |cpu: u32| {
        last = steal_from(cpu);
        last != Attempt::Refused
    };
    let mut found = None;
    if let Some(siblings) = smt_siblings {
        found = siblings.find(overload.nelems(), |cpu| {
            cpu != dst_cpu && overload.test(cpu) && attempt(cpu)
        });
    }
    if found.is_none() {
        found = overload.iter_from(dst_cpu).find(|&cpu| {
            cpu != dst_cpu && !smt_siblings.is_some_and(|s| s.test(cpu)) && attempt(cpu)
        });
    }
    found.filter(|_| last == Attempt::Taken)
}
