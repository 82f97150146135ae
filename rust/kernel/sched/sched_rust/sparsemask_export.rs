// SPDX-License-Identifier: GPL-2.0

//! Boundary of the sparsemask: `struct sparsemask` of
//! `kernel/sched/sparsemask.h`.

use super::sparsemask::{
    Chunk,
    SparseMask,
    CHUNK_BYTES,
    DENSITY_DEFAULT, //
};
use kernel::{
    bindings,
    ffi::c_int,
    prelude::*, //
};

/// The header of `struct sparsemask`; the chunk array follows it, one
/// cache line in.
#[repr(C)]
pub(crate) struct Header {
    pub(crate) nelems: i16,
    pub(crate) density: i16,
    pub(crate) chunks: [Chunk; 0],
}

// The layout contract with `kernel/sched/sparsemask.h`, checked at build
// time: a kernel whose C layout differs (another cache line size) fails to
// build here instead of reading elements where C does not write them.
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(offset_of!(Header, chunks) == CHUNK_BYTES);
    assert!(bindings::SPARSEMASK_CHUNK_BYTES as usize == CHUNK_BYTES);
    // The density the scheduler gives its masks, as the tests use it.
    assert!(bindings::SMASK_DENSITY_DEFAULT == DENSITY_DEFAULT);
    assert!(size_of::<bindings::sparsemask_chunk>() == size_of::<Chunk>());
    assert!(align_of::<bindings::sparsemask_chunk>() == align_of::<Chunk>());
    assert!(offset_of!(bindings::sparsemask, nelems) == offset_of!(Header, nelems));
    assert!(offset_of!(bindings::sparsemask, density) == offset_of!(Header, density));
    assert!(offset_of!(bindings::sparsemask, chunks) == offset_of!(Header, chunks));
};

/// Borrows the mask at `mask`.
///
/// The header is not checked here: `sparsemask_init()`, the only writer of
/// a header, checked it once, when the mask was set up. It refuses a
/// negative size, more than `SHRT_MAX` elements and a density out of
/// `0..=SMASK_DENSITY_MAX` (with a warning, returning `-EINVAL`), so the
/// header of a mask it set up meets [`SparseMask`]'s invariants, and every
/// call after costs no check.
///
/// # Safety
///
/// `mask` points to a `struct sparsemask` whose header `sparsemask_init()`
/// wrote, returning 0 (or a copy of such a header: the shadow check copies
/// the live mask's header into its own before each use, never while it is
/// borrowed), in an allocation of `sparsemask_size(nelems, density)` bytes,
/// which stays allocated for `'a`. That write happens before the call: for
/// a mask published with RCU, the caller loaded its pointer with acquire
/// ordering (`smp_load_acquire()`, as fair.c's `rq_overload_cpus()` does),
/// not only with `rcu_dereference()`, whose address dependency Rust's
/// compiler does not promise to keep. While borrowed, the header is not
/// written and its words are written only atomically: by the
/// `set_bit()`/`clear_bit()` of the C sparsemask (`sparsemask.h`) and by
/// the core's `Atomic::or()`/`andnot()`, the operations those bitops are
/// made of; the core reads them with `load(Relaxed)`, `READ_ONCE()`, as
/// the C walk does.
#[inline]
pub(crate) unsafe fn borrow<'a>(mask: *const bindings::sparsemask) -> SparseMask<'a> {
    let header = mask.cast::<Header>();
    // SAFETY: `mask` points to an initialised header (the caller's
    // contract); `nelems` and `density` are not written while borrowed.
    let (nelems, density) = unsafe { ((*header).nelems, (*header).density) };
    // `sparsemask_init()` wrote both, so both are in `0..=i16::MAX`: the
    // conversions keep their values, and `density <= DENSITY_MAX`.
    let (nelems, density) = (nelems as u32, density as u32);
    // `density < 32`: the shift does not wrap, and the count of chunks is
    // at most `i16::MAX + 1`.
    let len = (nelems.wrapping_shr(density) as usize).wrapping_add(1);
    // SAFETY: `sparsemask_size()` made room for `len` chunks after the
    // header, and `Chunk` has the layout of `struct sparsemask_chunk`
    // (one `unsigned long`, cache-line aligned). `addr_of!` avoids
    // creating a reference to the header's zero-length array.
    let chunks = unsafe {
        core::slice::from_raw_parts(core::ptr::addr_of!((*header).chunks).cast::<Chunk>(), len)
    };
    // `density <= DENSITY_MAX` (`sparsemask_init()` checked it), and there
    // are `(nelems >> density) + 1` chunks: `SparseMask`'s invariants.
    SparseMask::from_checked(nelems, density, chunks)
}

/// Converts an element number from C.
///
/// A negative `elem` becomes a number of at least `2^31`, which no mask
/// has (`nelems` is at most `i16::MAX`): the core's range check against
/// `nelems` refuses it as it refuses any other element out of range, so
/// no separate sign test is needed on each call.
#[inline]
fn to_elem(elem: c_int) -> u32 {
    // The bits of `elem`, reinterpreted (see above).
    elem as u32
}

/// Atomically adds `elem` to `mask`; does nothing for an element outside
/// `[0, nelems)`.
///
/// # Safety
///
/// `mask` points to a live `struct sparsemask` that `sparsemask_init()`
/// set up (see `kernel/sched/sparsemask.h`), as [`borrow`] details.
#[export]
pub unsafe extern "C" fn sched_rust_sparsemask_set_elem(
    mask: *mut bindings::sparsemask,
    elem: c_int,
) {
    // SAFETY: the caller's contract is `borrow()`'s.
    unsafe { borrow(mask) }.set(to_elem(elem));
}

/// Atomically removes `elem` from `mask`; does nothing for an element
/// outside `[0, nelems)`.
///
/// # Safety
///
/// As for [`sched_rust_sparsemask_set_elem`].
#[export]
pub unsafe extern "C" fn sched_rust_sparsemask_clear_elem(
    mask: *mut bindings::sparsemask,
    elem: c_int,
) {
    // SAFETY: the caller's contract is `borrow()`'s.
    unsafe { borrow(mask) }.clear(to_elem(elem));
}

/// Whether `elem` is in `mask`; false for an element outside
/// `[0, nelems)`.
///
/// # Safety
///
/// As for [`sched_rust_sparsemask_set_elem`].
#[export]
pub unsafe extern "C" fn sched_rust_sparsemask_test_elem(
    mask: *const bindings::sparsemask,
    elem: c_int,
) -> bool {
    // SAFETY: the caller's contract is `borrow()`'s.
    unsafe { borrow(mask) }.test(to_elem(elem))
}

/// The element after `prev` in the wrap-around walk of `mask` from
/// `origin`, with the contract of the C `sparsemask_next()`: `prev == -1`
/// starts the walk, and `nelems` is returned when it is complete (or
/// when `prev` is neither -1 nor an element). An `origin` outside
/// `[0, nelems)` counts as 0.
///
/// # Safety
///
/// As for [`sched_rust_sparsemask_set_elem`].
#[export]
pub unsafe extern "C" fn sched_rust_sparsemask_next(
    mask: *const bindings::sparsemask,
    origin: c_int,
    prev: c_int,
) -> c_int {
    // SAFETY: the caller's contract is `borrow()`'s.
    let mask = unsafe { borrow(mask) };
    let end = c_int::try_from(mask.nelems()).unwrap_or(c_int::MAX);
    // A `prev` that is neither -1 nor an element ends the walk, and an
    // origin outside `[0, nelems)` counts as 0: the core does both, for
    // negative ones too (see `to_elem()`).
    let prev = match prev {
        -1 => None,
        p => Some(to_elem(p)),
    };
    match mask.next(to_elem(origin), prev) {
        Some(e) => c_int::try_from(e).unwrap_or(end),
        None => end,
    }
}

/// The boundary on masks at the edges of what `sparsemask_init()` accepts.
#[cfg(CONFIG_SCHED_RUST_KUNIT_TEST)]
#[kunit_tests(sched_rust_sparsemask_rust)]
mod tests {
    use super::super::sparsemask::DENSITY_MAX;
    use super::*;

    /// A header followed by the chunks a 100-element density-3 mask
    /// would have.
    #[repr(C)]
    struct Storage {
        header: Header,
        chunks: [Chunk; 13],
    }

    /// A mask of `nelems` elements at `density`, its header written as
    /// `sparsemask_init()` writes it for values it accepts (the values it
    /// refuses are tested in C, through `sparsemask_alloc_node()`, in
    /// `sparsemask_kunit.c`).
    fn storage(nelems: i16, density: i16) -> Storage {
        assert!(nelems >= 0 && (0..=DENSITY_MAX as i16).contains(&density));
        Storage {
            header: Header {
                nelems,
                density,
                chunks: [],
            },
            chunks: Default::default(),
        }
    }

    fn raw(s: &mut Storage) -> *mut bindings::sparsemask {
        core::ptr::from_mut(s).cast()
    }

    #[test]
    fn empty_mask() {
        // No element: nothing is ever in it, and every walk is empty.
        let mut s = storage(0, 0);
        let mask = raw(&mut s);
        // SAFETY: the header is a valid one, and the mask has its chunk.
        unsafe {
            sched_rust_sparsemask_set_elem(mask, 0);
            assert!(!sched_rust_sparsemask_test_elem(mask, 0));
            assert_eq!(sched_rust_sparsemask_next(mask, 0, -1), 0);
        }
        assert!(s.chunks.iter().all(|c| c.load() == 0));
    }

    #[test]
    fn density_max_uses_whole_words() {
        // At DENSITY_MAX a chunk holds one word of elements: 64, or 32 on
        // 32-bit kernels.
        const WORD: c_int = usize::BITS as c_int;
        let nelems = WORD + 36;
        let mut s = storage(nelems as i16, DENSITY_MAX as i16);
        let mask = raw(&mut s);
        // SAFETY: `nelems` elements at DENSITY_MAX need 2 chunks; 13 are
        // there.
        unsafe {
            sched_rust_sparsemask_set_elem(mask, WORD - 1);
            sched_rust_sparsemask_set_elem(mask, WORD);
            assert_eq!(sched_rust_sparsemask_next(mask, WORD, -1), WORD);
            assert_eq!(sched_rust_sparsemask_next(mask, WORD, WORD), WORD - 1);
            assert_eq!(sched_rust_sparsemask_next(mask, WORD, WORD - 1), nelems);
        }
        assert_eq!(s.chunks.first().map(Chunk::load), Some(1 << (WORD - 1)));
        assert_eq!(s.chunks.get(1).map(Chunk::load), Some(1));
    }
}
