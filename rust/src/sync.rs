// SPDX-License-Identifier: GPL-2.0

//! The userspace build's stand-in for the kernel's
//! `kernel/sched/sched_rust/sync.rs`: the same types and methods, on Rust's
//! atomics, for the property tests, the fuzz targets and the benchmarks,
//! and on loom's with `--cfg loom`, so that loom explores every
//! interleaving of the very code the kernel runs.
//!
//! Each method is at least as ordered as the LKMM primitive the kernel's
//! uses: reads and unordered updates are `Relaxed`, and the fully ordered
//! `test_and_clear_bit()` is a relaxed read-modify-write between two
//! `SeqCst` fences, as the LKMM defines it.

#[cfg(not(loom))]
use core::sync::atomic::{
    fence,
    AtomicU32,
    AtomicUsize,
    Ordering, //
};

#[cfg(loom)]
use loom::sync::atomic::{
    fence,
    AtomicU32,
    AtomicUsize,
    Ordering, //
};

/// One `unsigned long` of a bitmap that C code also reads and writes.
#[derive(Debug, Default)]
pub struct Word(AtomicUsize);

impl Word {
    /// A word with the bits `v`.
    #[cfg(not(loom))]
    #[inline]
    pub const fn new(v: usize) -> Self {
        Self(AtomicUsize::new(v))
    }

    /// A word with the bits `v`.
    #[cfg(loom)]
    pub fn new(v: usize) -> Self {
        Self(AtomicUsize::new(v))
    }

    /// `READ_ONCE()`.
    #[inline]
    pub fn read(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// `WRITE_ONCE()`.
    #[inline]
    pub fn write(&self, v: usize) {
        self.0.store(v, Ordering::Relaxed)
    }

    /// `set_bit()` of bit `bit % usize::BITS`.
    #[inline]
    pub fn set_bit(&self, bit: u32) {
        self.0.fetch_or(1usize.wrapping_shl(bit), Ordering::Relaxed);
    }

    /// `clear_bit()` of bit `bit % usize::BITS`.
    #[inline]
    pub fn clear_bit(&self, bit: u32) {
        self.0
            .fetch_and(!1usize.wrapping_shl(bit), Ordering::Relaxed);
    }

    /// `test_and_clear_bit()` of bit `bit % usize::BITS`: fully ordered.
    ///
    /// The LKMM defines a fully ordered read-modify-write as one with a full
    /// barrier (`smp_mb()`) on each side; a C11 `SeqCst` RMW alone does not
    /// order the relaxed accesses around it, so the fences are explicit.
    #[inline]
    pub fn test_and_clear_bit(&self, bit: u32) -> bool {
        let m = 1usize.wrapping_shl(bit);
        fence(Ordering::SeqCst);
        let old = self.0.fetch_and(!m, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        old & m != 0
    }

    /// `atomic_long_andnot()`.
    #[inline]
    pub fn clear_bits(&self, mask: usize) {
        self.0.fetch_and(!mask, Ordering::Relaxed);
    }
}

/// An `unsigned int` read and written with `READ_ONCE()`/`WRITE_ONCE()`.
#[derive(Debug, Default)]
pub struct Word32(AtomicU32);

impl Word32 {
    /// A word with the value `v`.
    #[cfg(not(loom))]
    #[inline]
    pub const fn new(v: u32) -> Self {
        Self(AtomicU32::new(v))
    }

    /// A word with the value `v`.
    #[cfg(loom)]
    pub fn new(v: u32) -> Self {
        Self(AtomicU32::new(v))
    }

    /// `READ_ONCE()`.
    #[inline]
    pub fn read(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    /// `WRITE_ONCE()`.
    #[inline]
    pub fn write(&self, v: u32) {
        self.0.store(v, Ordering::Relaxed)
    }
}
