// SPDX-License-Identifier: GPL-2.0

//! Stand-in for the kernel crate in the userspace replica
//! (`bench/userspace/`): just what `kernel/sched/sched_rust.rs` and its
//! `*_export.rs` files use, so that they compile unmodified.
//!
//! - `bindings`: bindgen's output for `kernel/sched/sched_rust.h`, made with
//!   the kernel's bindgen options (`--use-core --ctypes-prefix ffi ...`);
//! - `ffi`: the C types (`c_int` and co.);
//! - `bindings` also declares the `rust/helpers` functions that the access
//!   layer (`sched_rust/sync.rs`) and the idle picker's production path
//!   (`idle_pick_export.rs`) call, under the names the kernel's bindgen
//!   gives them; `rust_helpers.c` defines them (the atomics and bitops as
//!   the kernel does, the topology ones for a minimal running system);
//! - `sync::atomic`: the part of the kernel's LKMM atomics that `sync.rs`
//!   uses (`Atomic<T>` loads and stores, relaxed: `READ_ONCE()` and
//!   `WRITE_ONCE()`);
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

    /// `atomic_t`, as in the kernel's bindings.
    #[repr(C)]
    pub struct atomic_t {
        pub counter: ffi::c_int,
    }

    /// `atomic64_t`, as in the kernel's bindings.
    #[repr(C)]
    pub struct atomic64_t {
        pub counter: i64,
    }

    extern "C" {
        #[link_name = "rust_helper_atomic_read"]
        pub fn atomic_read(v: *const atomic_t) -> ffi::c_int;
        #[link_name = "rust_helper_atomic_set"]
        pub fn atomic_set(v: *mut atomic_t, i: ffi::c_int);
        #[link_name = "rust_helper_atomic_andnot"]
        pub fn atomic_andnot(i: ffi::c_int, v: *mut atomic_t);
        #[link_name = "rust_helper_atomic64_andnot"]
        pub fn atomic64_andnot(i: i64, v: *mut atomic64_t);
        #[link_name = "rust_helper_set_bit"]
        pub fn set_bit(nr: ffi::c_ulong, addr: *mut ffi::c_ulong);
        #[link_name = "rust_helper_clear_bit"]
        pub fn clear_bit(nr: ffi::c_ulong, addr: *mut ffi::c_ulong);
        #[link_name = "rust_helper_test_and_clear_bit"]
        pub fn test_and_clear_bit(nr: ffi::c_ulong, addr: *mut ffi::c_ulong) -> bool;
        // rust/helpers/topology.c (patch 0014), for the idle picker's
        // production path, which reads the running system.
        #[link_name = "rust_helper_cpu_smt_mask"]
        pub fn cpu_smt_mask(cpu: ffi::c_int) -> *const cpumask;
        #[link_name = "rust_helper_cpu_to_node"]
        pub fn cpu_to_node(cpu: ffi::c_int) -> ffi::c_int;
    }
}

/// The part of `kernel::sync::atomic` that `sched_rust/sync.rs` uses.
pub mod sync {
    /// `Atomic<T>` with relaxed loads and stores, which the kernel's
    /// implementation makes `READ_ONCE()`/`WRITE_ONCE()`: volatile
    /// accesses of a naturally aligned word.
    pub mod atomic {
        use core::cell::UnsafeCell;

        /// The relaxed ordering (a unit struct: the type and its value).
        #[derive(Clone, Copy)]
        pub struct Relaxed;

        /// A value of `T` accessed only with marked accesses.
        #[repr(transparent)]
        pub struct Atomic<T>(UnsafeCell<T>);

        // SAFETY: every access is a volatile access of a naturally aligned
        // word, which does not tear, as in the kernel.
        unsafe impl<T: Send> Sync for Atomic<T> {}

        impl<T: Copy> Atomic<T> {
            /// A new atomic holding `v`.
            pub const fn new(v: T) -> Self {
                Self(UnsafeCell::new(v))
            }

            /// The address of the value.
            pub const fn as_ptr(&self) -> *mut T {
                self.0.get()
            }

            /// Views `ptr` as an `Atomic<T>`.
            ///
            /// # Safety
            ///
            /// `ptr` is valid and aligned for the returned lifetime, and
            /// accessed only atomically meanwhile.
            pub unsafe fn from_ptr<'a>(ptr: *mut T) -> &'a Self {
                // SAFETY: `Atomic<T>` is a transparent `UnsafeCell<T>`; the
                // caller guarantees validity.
                unsafe { &*ptr.cast::<Self>() }
            }

            /// `READ_ONCE()`.
            #[inline(always)]
            pub fn load(&self, _: Relaxed) -> T {
                // SAFETY: the value is valid and aligned (`&self`).
                unsafe { core::ptr::read_volatile(self.0.get()) }
            }

            /// `WRITE_ONCE()`.
            #[inline(always)]
            pub fn store(&self, v: T, _: Relaxed) {
                // SAFETY: the value is valid and aligned (`&self`).
                unsafe { core::ptr::write_volatile(self.0.get(), v) }
            }
        }
    }
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
