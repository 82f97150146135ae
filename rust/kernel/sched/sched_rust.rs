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

/// The helpers' files live in `kernel/sched/sched_rust/`: the module of that
/// name, declared inline here, is their parent, so the files form an
/// ordinary module tree. The exports are public, as C calls them by name
/// (and the kernel's `unreachable_pub` lint wants what is `pub` reachable);
/// so are the algorithm files, which are also the userspace crate's API.
/// The shared-memory types of `sync` are the crate's only.
pub mod sched_rust {
    #[cfg(any(
        CONFIG_SCHED_RUST_SPARSEMASK,
        CONFIG_SCHED_RUST_STEAL,
        CONFIG_SCHED_RUST_IDLE_PICK
    ))]
    mod sync;

    #[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
    pub mod sparsemask;
    #[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
    pub mod sparsemask_export;

    #[cfg(CONFIG_SCHED_RUST_STEAL)]
    pub mod steal;
    #[cfg(CONFIG_SCHED_RUST_STEAL)]
    pub mod steal_export;

    #[cfg(CONFIG_SCHED_RUST_IDLE_PICK)]
    pub mod idle_pick;
    #[cfg(CONFIG_SCHED_RUST_IDLE_PICK)]
    pub mod idle_pick_export;

    #[cfg(CONFIG_SCHED_RUST_ASYM_FIT)]
    pub mod asym_fit;
    #[cfg(CONFIG_SCHED_RUST_ASYM_FIT)]
    pub mod asym_fit_export;
}
