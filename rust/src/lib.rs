// SPDX-License-Identifier: GPL-2.0

//! Userspace build of the sched-rust helpers.
//!
//! Each module is the very file that `kernel/sched/sched_rust.rs` compiles
//! into vmlinux, included by `#[path]`: what is tested and benchmarked here
//! is byte for byte the code the kernel runs. The kernel-only parts (the
//! `#[export]` wrappers that turn C pointers into these types) live in the
//! `*_export.rs` files beside each core and are not built here, and neither
//! is the kernel's `sync.rs`, the cores' access to shared memory on the
//! kernel memory model: [`sync`] stands in for it with the same API.

#![no_std]
// The scheduler must never panic: the same lints as the kernel crate root.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

// The kernel's sync.rs is the LKMM through the kernel crate; this is its
// userspace stand-in, on Rust's atomics or loom's.
pub mod sync;

// The bit operations the kernel leaves to C, modelled on `sync`'s words.
pub mod bits;

#[path = "../kernel/sched/sched_rust/sparsemask.rs"]
pub mod sparsemask;

#[path = "../kernel/sched/sched_rust/steal.rs"]
pub mod steal;

#[path = "../kernel/sched/sched_rust/idle_pick.rs"]
pub mod idle_pick;

#[path = "../kernel/sched/sched_rust/asym_fit.rs"]
pub mod asym_fit;
