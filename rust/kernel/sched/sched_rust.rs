// SPDX-License-Identifier: GPL-2.0

//! Rust implementations of scheduler helpers, called from C.
//!
//! C header: [`kernel/sched/sched_rust.h`](srctree/kernel/sched/sched_rust.h).
//!
//! Each helper is two files under `kernel/sched/sched_rust/`:
//!
//! - `<helper>.rs`, the algorithm: `core`-only Rust on slices, atomics and
//!   plain integers, which also builds as a userspace crate for property
//!   tests, fuzzing and benchmarks;
//! - `<helper>_export.rs`, the boundary: the `#[export]` functions that turn
//!   the raw pointers of the C callers into those types, after checking what
//!   they can check. Unsafe code is confined to these files.
//!
//! Nothing reachable from here panics (the scheduler calls it with rq locks
//! held): the lints below forbid indexing, unchecked arithmetic and
//! `unwrap()`, and `scripts/check-panics.sh` checks the object file for
//! references to the panic machinery.

#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

#[path = "sched_rust/sync.rs"]
pub mod sync;

#[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
#[path = "sched_rust/sparsemask.rs"]
pub mod sparsemask;
#[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
#[path = "sched_rust/sparsemask_export.rs"]
pub mod sparsemask_export;

#[cfg(CONFIG_SCHED_RUST_STEAL)]
#[path = "sched_rust/steal.rs"]
pub mod steal;
#[cfg(CONFIG_SCHED_RUST_STEAL)]
#[path = "sched_rust/steal_export.rs"]
pub mod steal_export;

#[cfg(CONFIG_SCHED_RUST_IDLE_PICK)]
#[path = "sched_rust/idle_pick.rs"]
pub mod idle_pick;
#[cfg(CONFIG_SCHED_RUST_IDLE_PICK)]
#[path = "sched_rust/idle_pick_export.rs"]
pub mod idle_pick_export;

#[cfg(CONFIG_SCHED_RUST_ASYM_FIT)]
#[path = "sched_rust/asym_fit.rs"]
pub mod asym_fit;
#[cfg(CONFIG_SCHED_RUST_ASYM_FIT)]
#[path = "sched_rust/asym_fit_export.rs"]
pub mod asym_fit_export;
