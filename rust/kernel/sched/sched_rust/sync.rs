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
//! | location | Rust | C |
//! |---|---|---|
//! | a sparsemask's words | `load(Relaxed)`, `or(bit_mask(b), Relaxed)`, `andnot(bit_mask(b), Relaxed)` | `READ_ONCE()` (`test_bit()`, the walk), `set_bit()`, `clear_bit()` |
//! | a described machine's cursor | `load(Relaxed)`, `store(v, Relaxed)` | `READ_ONCE()`, `WRITE_ONCE()` |
//! | idle.c's node-order pointer | `load(Relaxed)` | `rcu_assign_pointer()`, `rcu_dereference()` |
//!
//! A sparsemask is memory the series owns: `sparsemask_init()` writes it
//! before it is published, and from then on only the bitops above write its
//! words. `Atomic::or()` and `andnot()` are this series' addition to
//! `kernel::sync::atomic`, the operations `include/asm-generic/bitops/atomic.h`
//! builds `set_bit()` and `clear_bit()` from.
//!
//! This file only names the types: the kernel's build uses upstream's, the
//! userspace crate (property tests, fuzzing, loom) a model of them with the
//! same names and methods (`rust/src/sync.rs` of sched-rust), so that the
//! algorithm files are the same in both.

pub(crate) use kernel::sync::atomic::{
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
