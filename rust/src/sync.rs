// SPDX-License-Identifier: GPL-2.0

//! The userspace build's model of what the kernel's
//! `kernel/sched/sched_rust/sync.rs` names: `kernel::sync::atomic`'s
//! [`Atomic`] (with the `or()`, `andnot()` and `fetch_andnot()` of the
//! series' patch 0011) and its orderings, [`Word`] and [`bit_mask`], with the
//! same names and signatures, on Rust's atomics for the property tests, the
//! fuzz targets and the benchmarks, and on loom's with `--cfg loom`, so
//! that loom explores every interleaving of the very code the kernel runs.
//!
//! Each method is at least as ordered as the LKMM primitive the kernel's
//! maps to: `Relaxed` operations are C11 relaxed ones, and a `Full`
//! read-modify-write is a relaxed one between two `SeqCst` fences, as the
//! LKMM defines a fully ordered operation (`smp_mb()` on each side; a C11
//! `SeqCst` RMW alone does not order the relaxed accesses around it).

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

/// The LKMM's relaxed ordering: `kernel::sync::atomic::Relaxed`.
#[derive(Clone, Copy, Debug)]
pub struct Relaxed;

/// The LKMM's full ordering: `kernel::sync::atomic::Full`.
#[derive(Clone, Copy, Debug)]
pub struct Full;

/// The orderings a read-modify-write takes here (the kernel's take also
/// `Acquire` and `Release`, which the cores do not use).
pub trait RmwOrdering: Copy {
    /// Whether the operation is fully ordered.
    const FULL: bool;
}

impl RmwOrdering for Relaxed {
    const FULL: bool = false;
}

impl RmwOrdering for Full {
    const FULL: bool = true;
}

/// The integer types the cores keep in an [`Atomic`], with their Rust
/// (or loom) atomic.
pub trait AtomicType: Copy {
    /// The atomic that holds a `Self`.
    type Cell;
}

impl AtomicType for usize {
    type Cell = AtomicUsize;
}

impl AtomicType for u32 {
    type Cell = AtomicU32;
}

/// `kernel::sync::atomic::Atomic<T>`: a `T` that is accessed only
/// atomically.
pub struct Atomic<T: AtomicType>(T::Cell);

macro_rules! impl_atomic {
    ($t:ty, $cell:ident) => {
        impl Atomic<$t> {
            /// An atomic holding `v`.
            #[cfg(not(loom))]
            #[inline]
            pub const fn new(v: $t) -> Self {
                Self($cell::new(v))
            }

            /// An atomic holding `v`.
            #[cfg(loom)]
            pub fn new(v: $t) -> Self {
                Self($cell::new(v))
            }

            /// `READ_ONCE()`.
            #[inline]
            pub fn load(&self, _: Relaxed) -> $t {
                self.0.load(Ordering::Relaxed)
            }

            /// `WRITE_ONCE()`.
            #[inline]
            pub fn store(&self, v: $t, _: Relaxed) {
                self.0.store(v, Ordering::Relaxed)
            }

            /// `atomic_or()`: `*self |= v`, not ordered.
            #[inline]
            pub fn or(&self, v: $t, _: Relaxed) {
                self.0.fetch_or(v, Ordering::Relaxed);
            }

            /// `atomic_andnot()`: `*self &= !v`, not ordered.
            #[inline]
            pub fn andnot(&self, v: $t, _: Relaxed) {
                self.0.fetch_and(!v, Ordering::Relaxed);
            }

            /// `atomic_fetch_andnot()`: `*self &= !v`, returning the old
            /// value; fully ordered with [`Full`].
            #[inline]
            pub fn fetch_andnot<O: RmwOrdering>(&self, v: $t, _: O) -> $t {
                if O::FULL {
                    fence(Ordering::SeqCst);
                }
                let old = self.0.fetch_and(!v, Ordering::Relaxed);
                if O::FULL {
                    fence(Ordering::SeqCst);
                }
                old
            }
        }
    };
}

impl_atomic!(usize, AtomicUsize);
impl_atomic!(u32, AtomicU32);

/// One `unsigned long` of a bitmap that C code also reads and writes.
pub type Word = Atomic<usize>;

/// The mask of bit `bit % usize::BITS` in its word.
#[inline(always)]
pub const fn bit_mask(bit: u32) -> usize {
    1usize.wrapping_shl(bit)
}
