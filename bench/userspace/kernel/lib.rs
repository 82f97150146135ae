// SPDX-License-Identifier: GPL-2.0

//! Stand-in for the kernel crate in the userspace replica
//! (`bench/userspace/`): just what `kernel/sched/sched_rust.rs` and its
//! `*_export.rs` files use, so that they compile unmodified.
//!
//! - `bindings`: bindgen's output for `kernel/sched/sched_rust.h`, made with
//!   the kernel's bindgen options (`--use-core --ctypes-prefix ffi ...`);
//! - `ffi`: the C types (`c_int` and co.);
//! - `prelude`: the `#[export]` attribute (the `macros` stand-in).
//!
//! It also holds the panic handler of the `no_std` build. Nothing in the
//! helpers may panic (`scripts/check-panics.sh` checks the kernel object);
//! here a panic would abort the benchmark.

#![no_std]

/// The C types, as the kernel's `ffi` crate (`rust/ffi.rs`) names them:
/// `long` is `isize`, `unsigned long` is `usize`.
#[allow(non_camel_case_types, missing_docs)]
pub mod ffi {
    pub type c_char = u8;
    pub type c_schar = i8;
    pub type c_uchar = u8;
    pub type c_short = i16;
    pub type c_ushort = u16;
    pub type c_int = i32;
    pub type c_uint = u32;
    pub type c_long = isize;
    pub type c_ulong = usize;
    pub type c_longlong = i64;
    pub type c_ulonglong = u64;
    pub use core::ffi::c_void;
}

/// The C declarations of `kernel/sched/sched_rust.h`, from bindgen.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    missing_docs,
    clippy::all
)]
pub mod bindings {
    use super::ffi;
    include!(env!("SCHED_RUST_BINDINGS"));
}

/// What the helpers take from the kernel's prelude.
pub mod prelude {
    pub use macros::{export, kunit_tests};
}

#[cfg(not(sched_rust_test))]
extern "C" {
    fn abort() -> !;
}

// The test build (`--cfg sched_rust_test`) links the standard library,
// which has its own.
#[cfg(not(sched_rust_test))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: the C library's abort() takes no argument and never returns.
    unsafe { abort() }
}
