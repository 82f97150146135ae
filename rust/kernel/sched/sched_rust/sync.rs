// SPDX-License-Identifier: GPL-2.0

//! The atomic types of the helpers, in one place.
//!
//! In the kernel, and in the userspace crate's tests and fuzz targets,
//! these are `core::sync::atomic`'s. The userspace crate's model checks
//! build it with `--cfg loom`, which swaps in the `loom` crate's atomics so
//! that loom can explore every interleaving of the very same code. The
//! kernel never sets `loom`.

#[cfg(not(loom))]
pub use core::sync::atomic::{
    AtomicU32,
    AtomicUsize,
    Ordering, //
};

#[cfg(loom)]
pub use loom::sync::atomic::{
    AtomicU32,
    AtomicUsize,
    Ordering, //
};
