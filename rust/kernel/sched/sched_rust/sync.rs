// SPDX-License-Identifier: GPL-2.0

//! The shared memory of the helpers, on the kernel memory model.
//!
//! The cores read and write memory that C code also reads and writes: the
//! words of CPU masks and sparsemasks, a per-CPU cursor, a table of nodes.
//! Every such access goes through the types here, each method the LKMM
//! primitive C would use on the same word:
//!
//! | method | C | ordering |
//! |---|---|---|
//! | [`Word::read`] | `READ_ONCE()` (`test_bit()`, `find_*_bit()`) | none |
//! | [`Word::write`] | `WRITE_ONCE()` | none |
//! | [`Word::set_bit`], [`Word::clear_bit`] | `set_bit()`, `clear_bit()` | none |
//! | [`Word::clear_bits`] | `atomic_long_andnot()` | none |
//! | [`Word::test_and_clear_bit`] | `test_and_clear_bit()` | full |
//!
//! Word reads and writes use [`kernel::sync::atomic`] (the `int`-sized ones
//! the `atomic_t` helpers, see [`Word32`]); the bit operations call the C
//! bitops through `rust/helpers` (inlined into the callers with
//! `CONFIG_RUST_INLINE_HELPERS`), so a claim is exactly as ordered as
//! upstream's; never Rust's own atomics, whose model is not the kernel's.
//!
//! The userspace crate (property tests, fuzzing, loom) builds the cores
//! against a shim with the same names and stronger-or-equal orderings
//! (`rust/src/sync.rs` of sched-rust); this file is the kernel's only.

use core::cell::UnsafeCell;
use kernel::{
    bindings,
    ffi::c_ulong,
    sync::atomic::{
        Atomic,
        Relaxed, //
    },
};

/// One `unsigned long` of a bitmap that C code also reads and writes.
///
/// Has the layout of `unsigned long`, so a C bitmap of `n` words is a
/// `[Word]` of `n` entries.
///
/// # Invariants
///
/// Every access of the word is one of the LKMM primitives above; C may
/// access it concurrently in any way that does not tear a word.
#[repr(transparent)]
pub struct Word(Atomic<usize>);

const _: () = assert!(core::mem::size_of::<Word>() == core::mem::size_of::<c_ulong>());
const _: () = assert!(core::mem::align_of::<Word>() == core::mem::align_of::<c_ulong>());

impl Default for Word {
    #[inline]
    fn default() -> Self {
        Self::new(0)
    }
}

impl Word {
    /// A word with the bits `v`.
    #[inline]
    pub const fn new(v: usize) -> Self {
        Self(Atomic::new(v))
    }

    #[inline]
    fn as_ptr(&self) -> *mut c_ulong {
        self.0.as_ptr().cast()
    }

    /// The word's bits: `READ_ONCE()`. Not torn, not ordered.
    #[inline]
    pub fn read(&self) -> usize {
        self.0.load(Relaxed)
    }

    /// Replaces the word's bits: `WRITE_ONCE()`. Not torn, not ordered.
    #[inline]
    pub fn write(&self, v: usize) {
        self.0.store(v, Relaxed)
    }

    /// Sets bit `bit % usize::BITS`: `set_bit()`, atomic, not ordered.
    #[inline]
    pub fn set_bit(&self, bit: u32) {
        // SAFETY: `as_ptr()` is a valid, aligned `unsigned long` for the
        // borrow of `self`; `set_bit()` touches that word only, since the
        // bit number is below `BITS_PER_LONG`.
        unsafe { bindings::set_bit((bit % usize::BITS) as c_ulong, self.as_ptr()) }
    }

    /// Clears bit `bit % usize::BITS`: `clear_bit()`, atomic, not ordered.
    #[inline]
    pub fn clear_bit(&self, bit: u32) {
        // SAFETY: as in `set_bit()`.
        unsafe { bindings::clear_bit((bit % usize::BITS) as c_ulong, self.as_ptr()) }
    }

    /// Clears bit `bit % usize::BITS` and returns whether it was set:
    /// `test_and_clear_bit()`, atomic and fully ordered (of racing callers,
    /// exactly one sees the bit set).
    #[inline]
    pub fn test_and_clear_bit(&self, bit: u32) -> bool {
        // SAFETY: as in `set_bit()`.
        unsafe { bindings::test_and_clear_bit((bit % usize::BITS) as c_ulong, self.as_ptr()) }
    }

    /// Clears the bits of `mask`: `atomic_long_andnot()`, atomic, not
    /// ordered. Unlike C's `bitmap_andnot()`, which rewrites the word, it
    /// cannot lose a concurrent update of another bit.
    #[inline]
    pub fn clear_bits(&self, mask: usize) {
        let ptr = self.as_ptr();
        // SAFETY: `ptr` is a valid, aligned `unsigned long`, which has the
        // size and alignment of `atomic_long_t` (`atomic64_t` on 64-bit,
        // `atomic_t` on 32-bit kernels); the helpers take it as such, and
        // the cast of `mask` keeps its bits.
        #[cfg(CONFIG_64BIT)]
        unsafe {
            bindings::atomic64_andnot(mask as i64, ptr.cast())
        }
        // SAFETY: as above.
        #[cfg(not(CONFIG_64BIT))]
        unsafe {
            bindings::atomic_andnot(mask as i32, ptr.cast())
        }
    }
}

/// An `unsigned int` that C code may also read and write, with
/// `READ_ONCE()`/`WRITE_ONCE()` semantics (the picker's per-CPU cursor).
///
/// Through the `atomic_t` helpers rather than `Atomic<u32>`: the kernel
/// crate's `AtomicRepr<i32>::as_ptr()` is not inlined into this object (it
/// is instantiated, out of line, in the kernel crate), and every pick and
/// claim would call it.
#[repr(transparent)]
pub struct Word32(UnsafeCell<u32>);

// SAFETY: every access of the value is atomic (`atomic_read()`,
// `atomic_set()`), so it may be shared and sent between contexts.
unsafe impl Sync for Word32 {}
// SAFETY: as above.
unsafe impl Send for Word32 {}

const _: () = assert!(core::mem::size_of::<Word32>() == core::mem::size_of::<bindings::atomic_t>());
const _: () =
    assert!(core::mem::align_of::<Word32>() == core::mem::align_of::<bindings::atomic_t>());

impl Word32 {
    /// A word with the value `v`.
    #[inline]
    pub const fn new(v: u32) -> Self {
        Self(UnsafeCell::new(v))
    }

    /// Borrows the `unsigned int` at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` is valid and aligned for `'a`, and every access of it
    /// meanwhile is atomic (`READ_ONCE()`, `WRITE_ONCE()` or an atomic
    /// operation).
    #[inline]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `Word32` is a transparent `UnsafeCell<u32>`, which has
        // the layout of `u32`; the caller's contract gives the rest.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// `READ_ONCE()`.
    #[inline]
    pub fn read(&self) -> u32 {
        // SAFETY: the cell is a valid, aligned `unsigned int`, which has
        // the layout of `atomic_t`; `atomic_read()` is `READ_ONCE()`.
        let v = unsafe { bindings::atomic_read(self.0.get().cast()) };
        v as u32
    }

    /// `WRITE_ONCE()`.
    #[inline]
    pub fn write(&self, v: u32) {
        // SAFETY: as in `read()`; `atomic_set()` is `WRITE_ONCE()`.
        unsafe { bindings::atomic_set(self.0.get().cast(), v as i32) }
    }
}

/// `READ_ONCE()` of the `int` at `ptr`.
///
/// # Safety
///
/// `ptr` is valid and aligned, and written only by `WRITE_ONCE()` (or
/// atomics) meanwhile.
#[inline]
pub unsafe fn read_once_i32(ptr: *const i32) -> i32 {
    // SAFETY: `int` has the layout of `atomic_t`, and the caller's contract
    // is that of `atomic_read()`, which is `READ_ONCE()`.
    unsafe { bindings::atomic_read(ptr.cast()) }
}

/// `READ_ONCE()` of the pointer at `ptr`.
///
/// # Safety
///
/// `ptr` is valid and aligned, and written only by `WRITE_ONCE()` (or
/// atomics) meanwhile.
#[inline]
pub unsafe fn read_once_ptr<T>(ptr: *const *const T) -> *const T {
    // SAFETY: the caller's contract is `Atomic::from_ptr()`'s, and a
    // relaxed load is `READ_ONCE()`.
    unsafe { Atomic::<*const T>::from_ptr(ptr.cast_mut()) }.load(Relaxed)
}
