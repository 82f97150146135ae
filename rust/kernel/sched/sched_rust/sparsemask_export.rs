// SPDX-License-Identifier: GPL-2.0

//! Boundary of the sparsemask: `struct sparsemask` of
//! `kernel/sched/sparsemask.h`.

use super::sparsemask::{
    chunks_for,
    Chunk,
    SparseMask,
    CHUNK_BYTES,
    DENSITY_DEFAULT,
    DENSITY_MAX, //
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

/// The size and density in a header, or `None` if no valid mask has them
/// (a negative size, a density out of `0..=DENSITY_MAX`).
#[inline]
fn header_values(nelems: i16, density: i16) -> Option<(u32, u32)> {
    let nelems = u32::try_from(nelems).ok()?;
    let density = u32::try_from(density).ok().filter(|&d| d <= DENSITY_MAX)?;
    Some((nelems, density))
}

/// Borrows the mask at `mask`.
///
/// The header is checked on each call: a header that no valid mask has
/// (`sparsemask_init()`, its only writer, refuses a negative size or a
/// density out of range) gives `None`, and the callers treat the mask as
/// empty. The check is two compares and a branch; it is not traded for
/// undefined behaviour on a value C supplies.
///
/// # Safety
///
/// `mask` points to a `struct sparsemask` whose header `sparsemask_init()`
/// wrote (or a copy of such a header: the shadow check rewrites the
/// header of its own copy before each use, never while it is borrowed),
/// in an allocation of `sparsemask_size(nelems, density)` bytes, which
/// stays allocated for `'a`. While borrowed, the header is not written and
/// its words are written only atomically: by the
/// `set_bit()`/`clear_bit()` of the C sparsemask (`sparsemask.h`) and by
/// the core's `Atomic::or()`/`andnot()`, the operations those bitops are
/// made of; the core reads them with `load(Relaxed)`, `READ_ONCE()`, as
/// the C walk does.
#[inline]
pub(crate) unsafe fn borrow<'a>(mask: *const bindings::sparsemask) -> Option<SparseMask<'a>> {
    let header = mask.cast::<Header>();
    // SAFETY: `mask` points to an initialised header (the caller's
    // contract); `nelems` and `density` are not written while borrowed.
    let (nelems, density) = unsafe { ((*header).nelems, (*header).density) };
    let (nelems, density) = header_values(nelems, density)?;
    let len = chunks_for(nelems, density)?;
    // SAFETY: `sparsemask_size()` made room for `len` chunks after the
    // header, and `Chunk` has the layout of `struct sparsemask_chunk`
    // (one `unsigned long`, cache-line aligned). `addr_of!` avoids
    // creating a reference to the header's zero-length array.
    let chunks = unsafe {
        core::slice::from_raw_parts(core::ptr::addr_of!((*header).chunks).cast::<Chunk>(), len)
    };
    SparseMask::new(nelems, density, chunks)
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
/// `mask` points to a live `struct sparsemask` set up by
/// `sparsemask_init()` (see `kernel/sched/sparsemask.h`).
#[export]
pub unsafe extern "C" fn sched_rust_sparsemask_set_elem(
    mask: *mut bindings::sparsemask,
    elem: c_int,
) {
    // SAFETY: the caller's contract is `borrow()`'s.
    if let Some(mask) = unsafe { borrow(mask) } {
        mask.set(to_elem(elem));
    }
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
    if let Some(mask) = unsafe { borrow(mask) } {
        mask.clear(to_elem(elem));
    }
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
    match unsafe { borrow(mask) } {
        Some(mask) => mask.test(to_elem(elem)),
        None => false,
    }
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
    let Some(mask) = (unsafe { borrow(mask) }) else {
        // An invalid header: an empty walk, ending at the recorded size.
        // SAFETY: as above, `mask` points to a readable header.
        return c_int::from(unsafe { (*mask.cast::<Header>()).nelems }).max(0);
    };
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

/// The boundary on headers that no valid mask has. `sparsemask_init()`
/// refuses to make such masks, and C does not check a header again; Rust
/// does (see [`borrow`]): every operation must treat such a mask as empty
/// and write nothing.
#[cfg(CONFIG_SCHED_RUST_KUNIT_TEST)]
#[kunit_tests(sched_rust_sparsemask_rust)]
mod tests {
    use super::*;

    /// A header followed by the chunks a 100-element density-3 mask
    /// would have, so a bad header cannot send a valid walk out of bounds.
    #[repr(C)]
    struct Storage {
        header: Header,
        chunks: [Chunk; 13],
    }

    fn storage(nelems: i16, density: i16) -> Storage {
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
    fn header_values_refuse_bad_headers() {
        for (nelems, density) in [(100, 7), (100, -1), (-5, 3), (100, i16::MAX), (-1, -1)] {
            assert_eq!(header_values(nelems, density), None);
        }
        assert_eq!(header_values(0, 0), Some((0, 0)));
        assert_eq!(header_values(100, 3), Some((100, 3)));
        assert_eq!(
            header_values(i16::MAX, DENSITY_MAX as i16),
            Some((32767, DENSITY_MAX))
        );
    }

    #[test]
    fn bad_header_is_an_empty_mask() {
        // `borrow()` checks the header on every call.
        for (nelems, density) in [(100, 7), (100, -1), (-5, 3), (100, i16::MAX)] {
            let mut s = storage(nelems, density);
            let mask = raw(&mut s);
            // SAFETY: `mask` points to a header followed by 13 chunks,
            // which is all a 100-element mask at density 3 needs.
            unsafe {
                sched_rust_sparsemask_set_elem(mask, 1);
                assert!(!sched_rust_sparsemask_test_elem(mask, 1));
                assert_eq!(
                    sched_rust_sparsemask_next(mask, 0, -1),
                    c_int::from(nelems).max(0)
                );
            }
            assert!(s.chunks.iter().all(|c| c.load() == 0));
        }
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
