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
//! Word reads and writes are volatile accesses of the aligned word
//! (`read_volatile()`, `write_volatile()`): what C's `READ_ONCE()` and
//! `WRITE_ONCE()` are for a word (`__READ_ONCE()` is a `volatile` load), and
//! what the kernel's own Rust uses where it means `READ_ONCE()`
//! (`rust/kernel/fs/file.rs`, `rust/kernel/time/hrtimer.rs`,
//! `rust/kernel/dma.rs`). Under the LKMM such an access is a marked one: not
//! torn, not fused with another, not invented or repeated, and ordering
//! nothing, exactly as `READ_ONCE()`. The Rust abstract machine would call
//! it a data race when C writes the word meanwhile; as dma.rs says of the
//! same choice, the kernel relies on the LKMM here, for Rust as for C.
//! `Atomic::load(Relaxed)` of [`kernel::sync::atomic`] has the same
//! semantics, but reaches them through a C helper (`atomic64_read()`),
//! which is a function call per word read unless the kernel has
//! `CONFIG_RUST_INLINE_HELPERS` (EXPERIMENTAL, never on UML): the walks read
//! one word per step. The volatile load is the one `mov` C emits.
//!
//! The bit operations call the C bitops through `rust/helpers` (inlined
//! into the callers with `CONFIG_RUST_INLINE_HELPERS`), so a claim is
//! exactly as ordered as upstream's; never Rust's own atomics, whose model
//! is not the kernel's. KCSAN does not instrument Rust objects: their
//! volatile accesses, as their `Atomic` ones before, are not in its
//! reports; the C bitops they call are.
//!
//! The userspace crate (property tests, fuzzing, loom) builds the cores
//! against a shim with the same names and stronger-or-equal orderings
//! (`rust/src/sync.rs` of sched-rust); this file is the kernel's only.

use core::{
    cell::UnsafeCell,
    ptr, //
};
use kernel::{
    bindings,
    ffi::c_ulong, //
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
pub struct Word(UnsafeCell<usize>);

// SAFETY: every access of the word is one of the LKMM primitives above,
// none of which tears it, so it may be shared and sent between contexts.
unsafe impl Sync for Word {}
// SAFETY: as above.
unsafe impl Send for Word {}

const _: () = assert!(core::mem::size_of::<Word>() == core::mem::size_of::<c_ulong>());
// `Word::clear_bits()` takes `atomic_long_t` as `atomic_t` without
// `CONFIG_64BIT`: a build that lacks the option on a 64-bit target would
// drop the upper half of every mask, so it does not build.
#[cfg(not(CONFIG_64BIT))]
const _: () = assert!(usize::BITS == 32);
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
        Self(UnsafeCell::new(v))
    }

    #[inline]
    fn as_ptr(&self) -> *mut c_ulong {
        self.0.get().cast()
    }

    /// The word's bits: `READ_ONCE()`. Not torn, not ordered.
    #[inline]
    pub fn read(&self) -> usize {
        // SAFETY: the cell is a valid, aligned `unsigned long` for the
        // borrow of `self`; a volatile load of it is `READ_ONCE()` (see the
        // module's documentation), and every other access is marked too.
        unsafe { ptr::read_volatile(self.0.get()) }
    }

    /// Replaces the word's bits: `WRITE_ONCE()`. Not torn, not ordered.
    #[inline]
    pub fn write(&self, v: usize) {
        // SAFETY: as in `read()`; a volatile store is `WRITE_ONCE()`.
        unsafe { ptr::write_volatile(self.0.get(), v) }
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
/// Volatile accesses, as [`Word`]'s: `Atomic<u32>` would call the
/// `atomic_t` helpers, and its `as_ptr()` is instantiated out of line in
/// the kernel crate.
#[repr(transparent)]
pub struct Word32(UnsafeCell<u32>);

// SAFETY: every access of the value is `READ_ONCE()` or `WRITE_ONCE()`,
// neither of which tears it, so it may be shared and sent between contexts.
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
        // SAFETY: the cell is a valid, aligned `unsigned int`; a volatile
        // load of it is `READ_ONCE()` (see the module's documentation).
        unsafe { ptr::read_volatile(self.0.get()) }
    }

    /// `WRITE_ONCE()`.
    #[inline]
    pub fn write(&self, v: u32) {
        // SAFETY: as in `read()`; a volatile store is `WRITE_ONCE()`.
        unsafe { ptr::write_volatile(self.0.get(), v) }
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
    // SAFETY: the caller's contract; a volatile load is `READ_ONCE()`.
    unsafe { ptr.read_volatile() }
}

/// `READ_ONCE()` of the pointer at `ptr`.
///
/// # Safety
///
/// `ptr` is valid and aligned, and written only by `WRITE_ONCE()` (or
/// atomics) meanwhile.
#[inline]
pub unsafe fn read_once_ptr<T>(ptr: *const *const T) -> *const T {
    // SAFETY: the caller's contract; a volatile load is `READ_ONCE()`.
    unsafe { ptr.read_volatile() }
}
