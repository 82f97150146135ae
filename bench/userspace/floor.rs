// SPDX-License-Identifier: GPL-2.0

//! The per-call floor of the single-word operations: empty Rust functions
//! with the signatures of `sched_rust_sparsemask_set_elem()`,
//! `sched_rust_sparsemask_test_elem()` and `sched_rust_asym_fits_cpu()`,
//! built with the variant's Rust flags and called from C the same way
//! (bench.c's "empty call" rows). `floor.c` has their C twins.
//!
//! Each reads nothing and answers a constant: what is left is the call,
//! the return (a return thunk in the distro variants) and the argument
//! set-up, which every real export pays too.

#![no_std]

use core::ffi::{c_int, c_void};

/// An empty `sched_rust_sparsemask_set_elem()`/`clear_elem()`.
#[no_mangle]
pub extern "C" fn bench_rust_empty_set(_mask: *mut c_void, _elem: c_int) {}

/// An empty `sched_rust_sparsemask_test_elem()`.
#[no_mangle]
pub extern "C" fn bench_rust_empty_test(_mask: *const c_void, _elem: c_int) -> bool {
    false
}

/// An empty `sched_rust_asym_fits_cpu()`.
#[no_mangle]
pub extern "C" fn bench_rust_empty_fits(
    _task: *const c_void,
    _smt_active: bool,
    _cpu: *const c_void,
) -> bool {
    false
}
