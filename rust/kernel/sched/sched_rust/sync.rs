// SPDX-License-Identifier: GPL-2.0

//! The memory the helpers share with C, on the kernel's own atomics.
//!
//! The cores read and write memory that C code also reads and writes: the
//! words of CPU masks and sparsemasks, and a cursor. Each such location is
//! an [`Atomic`] of `kernel::sync::atomic`, and each access the LKMM
//! primitive C uses on the same location:
//!
//! | Rust | C | ordering |
//! |---|---|---|
//! | `load(Relaxed)` | `READ_ONCE()` (`test_bit()`, `find_*_bit()`) | none |
//! | `store(v, Relaxed)` | `WRITE_ONCE()` | none |
//! | `or(bit_mask(b), Relaxed)` | `set_bit()` | none |
//! | `andnot(m, Relaxed)` | `clear_bit()`, `atomic_long_andnot()` | none |
//! | `fetch_andnot(m, Full) & m != 0` | `test_and_clear_bit()` | full |
//!
//! The bit operations are the ones `include/asm-generic/bitops/atomic.h`
//! builds the bitops from; `Atomic::or()`, `andnot()` and `fetch_andnot()`
//! are this series' addition to `kernel::sync::atomic`.
//!
//! The exports borrow C's bitmaps as `kernel::bitmap::Bitmap` (a cpumask as
//! `kernel::cpumask::Cpumask`, then `Cpumask::as_bitmap()`) and give the
//! cores their words, `Bitmap::as_atomic_words()`: a `[Word]`.
//!
//! This file only names the types: the kernel's build uses upstream's, the
//! userspace crate (property tests, fuzzing, loom) a model of them with the
//! same names and methods (`rust/src/sync.rs` of sched-rust), so that the
//! algorithm files are the same in both.

pub(crate) use kernel::sync::atomic::{
    Atomic,
    Relaxed, //
};
// The ordering of the idle picker's claim.
#[cfg(CONFIG_SCHED_RUST_IDLE_PICK)]
pub(crate) use kernel::sync::atomic::Full;

/// One `unsigned long` of a bitmap that C also reads and writes.
///
/// Has the layout of `unsigned long`, so a C bitmap of `n` words is a
/// `[Word]` of `n` entries.
pub(crate) type Word = Atomic<usize>;

/// The mask of bit `bit % usize::BITS` in its word.
#[inline(always)]
pub(crate) const fn bit_mask(bit: u32) -> usize {
    1usize.wrapping_shl(bit)
}
