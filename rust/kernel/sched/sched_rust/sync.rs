// SPDX-License-Identifier: GPL-2.0

//! The memory the helpers share with C that Rust accesses itself, on the
//! kernel's own atomics.
//!
//! The rule: Rust forms no access, atomic or not, to memory that any C code
//! writes with plain stores. The CPU masks C maintains (sched_ext's idle
//! masks, the SMT sibling masks, a task's or a BPF scheduler's allowed
//! mask) are such memory; the cores reach them only through the kernel's C
//! operations (`kernel::cpumask::Cpumask`'s methods, lib/find_bit.c, the
//! bitops), in the boundary files. What Rust accesses itself is memory
//! whose every writer is atomic, each location an [`Atomic`] of
//! `kernel::sync::atomic`, each access the LKMM primitive C uses on the
//! same location:
//!
//! - a sparsemask's words: Rust `load(Relaxed)`, `or(bit_mask(b), Relaxed)`,
//!   `andnot(bit_mask(b), Relaxed)`; C `READ_ONCE()` (`test_bit()`, the
//!   walk), `set_bit()`, `clear_bit()`;
//! - a described machine's cursor: Rust `load(Relaxed)`,
//!   `store(v, Relaxed)`; C `READ_ONCE()`, `WRITE_ONCE()`;
//! - idle.c's node-order pointer: Rust `load(Acquire)` under
//!   `rcu::read_lock()`; C `rcu_assign_pointer()`, `rcu_dereference()`.
//!   Acquire, not Relaxed: `rcu_dereference()` orders the reads through the
//!   pointer by their address dependency, which C's compilers are kept from
//!   breaking (`READ_ONCE()`, the kernel's rules for dependencies) and
//!   Rust's memory model does not promise to keep.
//!
//! A sparsemask is memory the series owns: `sparsemask_init()` writes it
//! before it is published, and from then on only the bitops above write its
//! words. `Atomic::or()` and `andnot()` are this series' addition to
//! `kernel::sync::atomic`, the operations `include/asm-generic/bitops/atomic.h`
//! builds `set_bit()` and `clear_bit()` from.
//!
//! The cores use only the atomic types named here: the kernel's build uses
//! upstream's, the userspace crate (property tests, fuzzing, loom) a model of
//! them with the same names and methods (`rust/src/sync.rs` of sched-rust),
//! so that the algorithm files are the same in both. The boundary files also
//! take from here [`OpaqueBits`], a C bitmap Rust does not access, and the
//! two lib/find_bit.c searches they make on one.

pub(crate) use kernel::sync::atomic::{
    Acquire,
    Atomic,
    Relaxed, //
};

/// One `unsigned long` of a bitmap whose every writer is atomic.
///
/// Has the layout of `unsigned long`, so a C bitmap of `n` words is a
/// `[Word]` of `n` entries.
#[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
pub(crate) type Word = Atomic<usize>;

/// The mask of bit `bit % usize::BITS` in its word.
#[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
#[inline(always)]
pub(crate) const fn bit_mask(bit: u32) -> usize {
    1usize.wrapping_shl(bit)
}

/// A C bitmap whose words Rust never accesses, as the exports borrow one
/// that C may write with plain stores (an SMT sibling mask, a described
/// machine's mask): only C's operations read and write it, through
/// [`bits_ptr`].
#[cfg(any(
    CONFIG_SCHED_RUST_STEAL,
    all(
        CONFIG_SCHED_RUST_IDLE_PICK,
        any(CONFIG_SCHED_RUST_KUNIT_TEST, CONFIG_SCHED_RUST_BENCH)
    )
))]
mod opaque_bits {
    use kernel::{
        bindings,
        ffi::c_ulong,
        types::Opaque, //
    };

    /// The words of a C bitmap, opaque to Rust.
    pub(crate) type OpaqueBits = [Opaque<c_ulong>];

    /// The C pointer of `bits`, for C's operations.
    #[inline(always)]
    pub(crate) fn bits_ptr(bits: &OpaqueBits) -> *mut c_ulong {
        Opaque::cast_into(bits.as_ptr())
    }

    /// The number of bits the words of `bits` hold (`u32::MAX` at most).
    #[inline]
    pub(crate) fn bits_in(bits: &OpaqueBits) -> u32 {
        u32::try_from(bits.len().saturating_mul(usize::BITS as usize)).unwrap_or(u32::MAX)
    }

    /// `find_next_bit()`: the first set bit of `bits` in `[from, nbits)`,
    /// with `nbits` cut to the bits the words hold.
    #[inline]
    pub(crate) fn find_next_bit(bits: &OpaqueBits, nbits: u32, from: u32) -> Option<u32> {
        let nbits = nbits.min(bits_in(bits));
        if from >= nbits {
            return None;
        }
        // SAFETY: `bits` has at least `nbits` bits, which `_find_next_bit()`
        // reads; Rust forms no access to them.
        let found =
            unsafe { bindings::_find_next_bit(bits_ptr(bits), nbits as usize, from as usize) };
        u32::try_from(found).ok().filter(|&bit| bit < nbits)
    }

    /// `test_bit()`: whether `bit` is set (the search from `bit` stops
    /// there); false beyond the words.
    #[inline]
    pub(crate) fn test_bit(bits: &OpaqueBits, bit: u32) -> bool {
        bit.checked_add(1)
            .and_then(|end| find_next_bit(bits, end, bit))
            .is_some()
    }
}
#[cfg(any(
    CONFIG_SCHED_RUST_STEAL,
    all(
        CONFIG_SCHED_RUST_IDLE_PICK,
        any(CONFIG_SCHED_RUST_KUNIT_TEST, CONFIG_SCHED_RUST_BENCH)
    )
))]
pub(crate) use opaque_bits::*;
