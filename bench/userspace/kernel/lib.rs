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
//! - `sync::atomic`: the part of the kernel's LKMM atomics that the crate
//!   uses (`Atomic<T>` loads, stores and the bitwise operations of patch
//!   0011), each through the kernel's own `ops` module (patch 0029): inline
//!   where it performs the operation inline, its `rust/helpers` function
//!   otherwise, as in the kernel;
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

    /// The kernel's fixed-size integer types, as its bindings have them.
    pub type s8 = i8;
    /// As above.
    pub type s16 = i16;
    /// As above.
    pub type s64 = i64;

    extern "C" {
        #[link_name = "rust_helper_atomic_read"]
        pub fn atomic_read(v: *const atomic_t) -> ffi::c_int;
        #[link_name = "rust_helper_atomic_set"]
        pub fn atomic_set(v: *mut atomic_t, i: ffi::c_int);
        #[link_name = "rust_helper_atomic64_read"]
        pub fn atomic64_read(v: *const atomic64_t) -> i64;
        #[link_name = "rust_helper_atomic64_set"]
        pub fn atomic64_set(v: *mut atomic64_t, i: i64);
        #[link_name = "rust_helper_atomic64_or"]
        pub fn atomic64_or(i: i64, v: *mut atomic64_t);
        #[link_name = "rust_helper_atomic64_andnot"]
        pub fn atomic64_andnot(i: i64, v: *mut atomic64_t);
        #[link_name = "rust_helper_atomic64_fetch_andnot"]
        pub fn atomic64_fetch_andnot(i: i64, v: *mut atomic64_t) -> i64;
        #[link_name = "rust_helper_atomic64_fetch_andnot_relaxed"]
        pub fn atomic64_fetch_andnot_relaxed(i: i64, v: *mut atomic64_t) -> i64;
        #[link_name = "rust_helper_atomic_ptr_read"]
        pub fn atomic_ptr_read(v: *mut *const ffi::c_void) -> *const ffi::c_void;
        #[link_name = "rust_helper_atomic_ptr_read_acquire"]
        pub fn atomic_ptr_read_acquire(v: *mut *const ffi::c_void) -> *const ffi::c_void;
        // rust/helpers/topology.c (patch 0018), for the idle picker's
        // production path, which reads the running system.
        #[link_name = "rust_helper_cpu_smt_mask"]
        pub fn cpu_smt_mask(cpu: ffi::c_int) -> *const cpumask;
        #[link_name = "rust_helper_cpu_to_node"]
        pub fn cpu_to_node(cpu: ffi::c_int) -> ffi::c_int;
        #[link_name = "rust_helper_node_distance"]
        pub fn node_distance(from: ffi::c_int, to: ffi::c_int) -> ffi::c_int;
        #[link_name = "rust_helper_rcu_read_lock"]
        pub fn rcu_read_lock();
        #[link_name = "rust_helper_rcu_read_unlock"]
        pub fn rcu_read_unlock();
        // rust/helpers/cpumask.c (patch 0014 adds the first two) and
        // bitops.c, for the cpumask and bitmap operations the exports call.
        #[link_name = "rust_helper_cpumask_test_and_clear_cpu"]
        pub fn cpumask_test_and_clear_cpu(cpu: ffi::c_int, cpumask: *mut cpumask) -> bool;
        #[link_name = "rust_helper_cpumask_intersects"]
        pub fn cpumask_intersects(src1p: *const cpumask, src2p: *const cpumask) -> bool;
        #[link_name = "rust_helper_cpumask_test_cpu"]
        pub fn cpumask_test_cpu(cpu: ffi::c_int, srcp: *mut cpumask) -> bool;
        #[link_name = "rust_helper_cpumask_clear_cpu"]
        pub fn cpumask_clear_cpu(cpu: ffi::c_int, dstp: *mut cpumask);
        #[link_name = "rust_helper_clear_bit"]
        pub fn clear_bit(nr: ffi::c_ulong, addr: *mut ffi::c_ulong);
        // lib/find_bit.c and lib/bitmap.c (`shim_lib.c`).
        pub fn _find_next_bit(
            addr: *const ffi::c_ulong,
            nbits: ffi::c_ulong,
            start: ffi::c_ulong,
        ) -> ffi::c_ulong;
        pub fn _find_next_and_bit(
            addr1: *const ffi::c_ulong,
            addr2: *const ffi::c_ulong,
            nbits: ffi::c_ulong,
            start: ffi::c_ulong,
        ) -> ffi::c_ulong;
        pub fn __bitmap_intersects(
            bitmap1: *const ffi::c_ulong,
            bitmap2: *const ffi::c_ulong,
            nbits: ffi::c_uint,
        ) -> bool;
    }
}

/// The part of `kernel::sync::atomic` that `sched_rust/sync.rs` uses,
/// implemented as the kernel implements it: each operation is the function
/// of the kernel's `rust/kernel/sync/atomic/ops.rs` (patch 0029, taken from
/// it, not copied): performed inline where that file says so for x86-64
/// (the replica's `--cfg CONFIG_X86_64 --cfg CONFIG_SMP`), the
/// `rust/helpers` function (`rust_helpers.c`) otherwise, which the distro
/// variant calls out of line and distro-inline inlines, as
/// `CONFIG_RUST_INLINE_HELPERS` does.
pub mod sync {
    /// `Atomic<T>` for the types the helpers keep in one.
    pub mod atomic {
        use core::cell::UnsafeCell;

        // `mod ops;` at the kernel's ops.rs (the Makefile's atomic_ops_mod.rs).
        include!(env!("SCHED_RUST_ATOMIC_OPS_MOD"));

        /// The relaxed ordering.
        #[derive(Clone, Copy)]
        pub struct Relaxed;

        /// The full ordering.
        #[derive(Clone, Copy)]
        pub struct Full;

        /// The acquire ordering.
        #[derive(Clone, Copy)]
        pub struct Acquire;

        /// The orderings of a read-modify-write used here.
        pub trait RmwOrdering: Copy {
            /// Whether it is `Full`.
            const FULL: bool;
        }
        impl RmwOrdering for Relaxed {
            const FULL: bool = false;
        }
        impl RmwOrdering for Full {
            const FULL: bool = true;
        }

        /// A value of `T` accessed only atomically.
        #[repr(transparent)]
        pub struct Atomic<T>(UnsafeCell<T>);

        // SAFETY: every access is atomic, as in the kernel.
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
        }

        impl Atomic<usize> {
            fn raw(&self) -> *mut ops::atomic64_t {
                self.0.get().cast()
            }

            /// `atomic64_read()`: `READ_ONCE()`.
            #[inline(always)]
            pub fn load(&self, _: Relaxed) -> usize {
                // SAFETY: a valid, aligned 64-bit word (`&self`).
                unsafe { ops::atomic64_read(self.raw()) as usize }
            }

            /// `atomic64_set()`: `WRITE_ONCE()`.
            #[inline(always)]
            pub fn store(&self, v: usize, _: Relaxed) {
                // SAFETY: as in `load()`.
                unsafe { ops::atomic64_set(self.raw(), v as i64) }
            }

            /// `atomic64_or()`.
            #[inline(always)]
            pub fn or(&self, v: usize, _: Relaxed) {
                // SAFETY: as in `load()`.
                unsafe { ops::atomic64_or(v as i64, self.raw()) }
            }

            /// `atomic64_andnot()`.
            #[inline(always)]
            pub fn andnot(&self, v: usize, _: Relaxed) {
                // SAFETY: as in `load()`.
                unsafe { ops::atomic64_andnot(v as i64, self.raw()) }
            }

            /// `atomic64_fetch_andnot()`, fully ordered with `Full`.
            #[inline(always)]
            pub fn fetch_andnot<O: RmwOrdering>(&self, v: usize, _: O) -> usize {
                // SAFETY: as in `load()`.
                unsafe {
                    if O::FULL {
                        ops::atomic64_fetch_andnot(v as i64, self.raw()) as usize
                    } else {
                        ops::atomic64_fetch_andnot_relaxed(v as i64, self.raw()) as usize
                    }
                }
            }
        }

        impl Atomic<u32> {
            /// `atomic_read()`: `READ_ONCE()`.
            #[inline(always)]
            pub fn load(&self, _: Relaxed) -> u32 {
                // SAFETY: a valid, aligned 32-bit word (`&self`).
                unsafe { ops::atomic_read(self.0.get().cast()) as u32 }
            }

            /// `atomic_set()`: `WRITE_ONCE()`.
            #[inline(always)]
            pub fn store(&self, v: u32, _: Relaxed) {
                // SAFETY: as in `load()`.
                unsafe { ops::atomic_set(self.0.get().cast(), v as i32) }
            }
        }

        impl Atomic<i32> {
            /// `atomic_read()`: `READ_ONCE()`.
            #[inline(always)]
            pub fn load(&self, _: Relaxed) -> i32 {
                // SAFETY: a valid, aligned 32-bit word (`&self`).
                unsafe { ops::atomic_read(self.0.get().cast()) }
            }
        }

        /// The orderings of a load.
        pub trait LoadOrdering: Copy {
            /// Whether it is `Acquire`.
            const ACQUIRE: bool;
        }
        impl LoadOrdering for Relaxed {
            const ACQUIRE: bool = false;
        }
        impl LoadOrdering for Acquire {
            const ACQUIRE: bool = true;
        }

        impl<T> Atomic<*mut T> {
            /// `READ_ONCE()` or `smp_load_acquire()` of a pointer
            /// (`rust/helpers/atomic_ext.c`).
            #[inline(always)]
            pub fn load<O: LoadOrdering>(&self, _: O) -> *mut T {
                let p = self.0.get().cast();
                // SAFETY: a valid, aligned pointer (`&self`).
                let v = unsafe {
                    if O::ACQUIRE {
                        ops::atomic_ptr_read_acquire(p)
                    } else {
                        ops::atomic_ptr_read(p)
                    }
                };
                v.cast_mut().cast()
            }
        }

        impl<T> Atomic<*const T> {
            /// `READ_ONCE()` of a pointer (`rust/helpers/atomic_ext.c`).
            #[inline(always)]
            pub fn load(&self, _: Relaxed) -> *const T {
                // SAFETY: a valid, aligned pointer (`&self`).
                unsafe { ops::atomic_ptr_read(self.0.get().cast()).cast() }
            }
        }
    }

    /// `kernel::sync::rcu`: the read-side guard, as the kernel's.
    pub mod rcu {
        use crate::bindings;

        /// Evidence that the RCU read-side lock is held.
        pub struct Guard(());

        impl Drop for Guard {
            #[inline]
            fn drop(&mut self) {
                // SAFETY: the guard holds the lock (`read_lock()`).
                unsafe { bindings::rcu_read_unlock() };
            }
        }

        /// Acquires the RCU read-side lock.
        #[inline]
        pub fn read_lock() -> Guard {
            // SAFETY: no requirement.
            unsafe { bindings::rcu_read_lock() };
            Guard(())
        }
    }
}

/// `kernel::cpu`: `CpuId`, a CPU id below `nr_cpu_ids`, as the kernel's.
pub mod cpu {
    extern "C" {
        /// `nr_cpu_ids` (`shim_lib.c`).
        #[link_name = "nr_cpu_ids"]
        static NR_CPU_IDS: u32;
    }

    /// The number of possible CPU ids.
    #[inline]
    pub fn nr_cpu_ids() -> u32 {
        // SAFETY: a `u32` global of the shim, written before any call.
        unsafe { NR_CPU_IDS }
    }

    /// A valid CPU id: below [`nr_cpu_ids()`].
    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    pub struct CpuId(u32);

    impl CpuId {
        /// `id` if it is a valid CPU id.
        pub fn from_i32(id: i32) -> Option<Self> {
            u32::try_from(id).ok().and_then(Self::from_u32)
        }

        /// `id` if it is a valid CPU id.
        pub fn from_u32(id: u32) -> Option<Self> {
            (id < nr_cpu_ids()).then_some(Self(id))
        }

        /// The id.
        #[inline]
        pub fn as_u32(&self) -> u32 {
            self.0
        }

        /// `cpu_to_node()` (patch 0025).
        #[inline]
        pub fn node(self) -> crate::alloc::NumaNode {
            // SAFETY: a valid CPU id; the shim's helper reads its map.
            let node = unsafe { crate::bindings::cpu_to_node(self.into()) };
            crate::alloc::NumaNode::new(node).unwrap_or(crate::alloc::NumaNode::NO_NODE)
        }

        /// `cpu_smt_mask()` (patch 0025).
        #[inline]
        pub fn smt_siblings(self) -> Option<&'static crate::cpumask::Cpumask> {
            // SAFETY: any CPU id.
            let mask = unsafe { crate::bindings::cpu_smt_mask(self.into()) };
            if mask.is_null() {
                return None;
            }
            // SAFETY: the shim's sibling masks live as long as the program.
            Some(unsafe { crate::cpumask::Cpumask::from_raw(mask) })
        }
    }

    impl From<CpuId> for u32 {
        fn from(id: CpuId) -> Self {
            id.0
        }
    }

    impl From<CpuId> for i32 {
        fn from(id: CpuId) -> Self {
            id.0 as i32
        }
    }
}

/// `kernel::alloc`: `NumaNode`, as the kernel's, with `distance()` (patch
/// 0025).
pub mod alloc {
    /// A NUMA node id in `0..MAX_NUMNODES` (1024 here), or `NO_NODE`.
    #[derive(Clone, Copy, PartialEq)]
    pub struct NumaNode(i32);

    impl NumaNode {
        /// No node.
        pub const NO_NODE: NumaNode = NumaNode(-1);

        /// `node` if it is a node id.
        pub fn new(node: i32) -> Result<Self, ()> {
            if (0..1024).contains(&node) {
                Ok(Self(node))
            } else {
                Err(())
            }
        }

        /// `node_distance()`; `None` with `NO_NODE`.
        #[inline]
        pub fn distance(self, to: NumaNode) -> Option<u32> {
            if self == Self::NO_NODE || to == Self::NO_NODE {
                return None;
            }
            // SAFETY: two node ids; the shim's helper answers for any.
            let distance = unsafe { crate::bindings::node_distance(self.0, to.0) };
            u32::try_from(distance).ok()
        }
    }

    impl From<NumaNode> for i32 {
        #[inline]
        fn from(node: NumaNode) -> Self {
            node.0
        }
    }
}

/// `kernel::types`: `Opaque`, as the kernel's.
pub mod types {
    use core::cell::UnsafeCell;
    use core::mem::MaybeUninit;

    /// A `T` that Rust does not access: only C does, through its pointer.
    #[repr(transparent)]
    pub struct Opaque<T> {
        value: UnsafeCell<MaybeUninit<T>>,
    }

    impl<T> Opaque<T> {
        /// The pointer to the `T` at `this`.
        #[inline(always)]
        pub const fn cast_into(this: *const Self) -> *mut T {
            UnsafeCell::raw_get(this.cast::<UnsafeCell<MaybeUninit<T>>>()).cast::<T>()
        }
    }
}

/// `kernel::cpumask`: a borrowed `struct cpumask`, as the kernel's
/// `Cpumask`, with the operations on shared cpumasks of patch 0014.
pub mod cpumask {
    use crate::{
        bindings,
        cpu::{nr_cpu_ids, CpuId},
        types::Opaque,
    };

    // `mod ops;` at the kernel's rust/kernel/cpumask/ops.rs (patch 0030; the
    // Makefile's cpumask_ops_mod.rs).
    include!(env!("SCHED_RUST_CPUMASK_OPS_MOD"));

    /// A `struct cpumask`.
    #[repr(transparent)]
    pub struct Cpumask(Opaque<bindings::cpumask>);

    impl Cpumask {
        /// Borrows the cpumask at `ptr`.
        ///
        /// # Safety
        ///
        /// `ptr` is a valid `struct cpumask` for `'a`.
        #[inline]
        pub unsafe fn from_raw<'a>(ptr: *const bindings::cpumask) -> &'a Self {
            // SAFETY: the caller's contract.
            unsafe { &*ptr.cast() }
        }

        /// The raw pointer.
        #[inline]
        pub fn as_raw(&self) -> *mut bindings::cpumask {
            let this: *const Self = self;
            this.cast_mut().cast()
        }

        /// `cpumask_test_cpu()`.
        #[inline]
        pub fn test(&self, cpu: CpuId) -> bool {
            // SAFETY: a valid cpumask.
            unsafe { ops::cpumask_test_cpu(i32::from(cpu), self.as_raw()) }
        }

        /// `cpumask_first()`.
        #[inline]
        pub fn first(&self) -> Option<CpuId> {
            self.find_from(0)
        }

        /// `cpumask_next()`.
        #[inline]
        pub fn next(&self, cpu: CpuId) -> Option<CpuId> {
            self.find_from(cpu.as_u32().saturating_add(1))
        }

        /// The first CPU at or after `start`.
        #[inline]
        fn find_from(&self, start: u32) -> Option<CpuId> {
            let nbits = nr_cpu_ids();
            if start >= nbits {
                return None;
            }
            // SAFETY: a valid cpumask, of at least `nr_cpu_ids` bits.
            let found = unsafe {
                bindings::_find_next_bit(
                    (&raw const (*self.as_raw()).bits).cast(),
                    nbits as usize,
                    start as usize,
                )
            };
            CpuId::from_u32(u32::try_from(found).ok()?)
        }

        /// `cpumask_intersects()`.
        #[inline]
        pub fn intersects(&self, other: &Cpumask) -> bool {
            // SAFETY: valid cpumasks.
            unsafe { ops::cpumask_intersects(self.as_raw(), other.as_raw()) }
        }

        /// `cpumask_any_and_distribute()`.
        ///
        /// # Safety
        ///
        /// The caller does not migrate during the call (patch 0014).
        #[inline]
        pub unsafe fn any_and_distribute(&self, other: &Cpumask) -> Option<CpuId> {
            // SAFETY: valid cpumasks.
            let cpu =
                unsafe { bindings::cpumask_any_and_distribute(self.as_raw(), other.as_raw()) };
            CpuId::from_u32(cpu)
        }
    }

    /// A cpumask the atomic bitops may update through shared references
    /// (patch 0014).
    #[repr(transparent)]
    pub struct AtomicCpumask(Cpumask);

    impl AtomicCpumask {
        /// Borrows the cpumask at `ptr` for atomic writes.
        ///
        /// # Safety
        ///
        /// `ptr` is a valid, writable `struct cpumask` for `'a` whose other
        /// writers are those the kernel's `AtomicCpumask::from_raw()` allows.
        #[inline]
        pub unsafe fn from_raw<'a>(ptr: *mut bindings::cpumask) -> &'a Self {
            // SAFETY: the caller's contract.
            unsafe { &*ptr.cast() }
        }

        /// `cpumask_test_and_clear_cpu()`.
        #[inline]
        pub fn test_and_clear(&self, cpu: CpuId) -> bool {
            // SAFETY: a valid, writable cpumask.
            unsafe { ops::cpumask_test_and_clear_cpu(i32::from(cpu), self.as_raw()) }
        }

        /// `cpumask_clear_cpu()`.
        #[inline]
        pub fn clear(&self, cpu: CpuId) {
            // SAFETY: a valid, writable cpumask.
            unsafe { ops::cpumask_clear_cpu(i32::from(cpu), self.as_raw()) };
        }
    }

    impl core::ops::Deref for AtomicCpumask {
        type Target = Cpumask;

        #[inline]
        fn deref(&self) -> &Cpumask {
            &self.0
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
