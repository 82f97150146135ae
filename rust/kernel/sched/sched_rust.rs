// SPDX-License-Identifier: GPL-2.0

//! Rust implementations of scheduler helpers, called from C.
//!
//! C header: [`kernel/sched/sched_rust.h`](srctree/kernel/sched/sched_rust.h).
//!
//! Each helper's algorithm lives in a `core`-only module under
//! `kernel/sched/sched_rust/`, written on slices and plain integers; the
//! same files build as a userspace crate for property tests and benchmarks.
//! This crate root holds only the boundary: `#[export]` functions that turn
//! the raw pointers of the C callers into those types, after checking what
//! they can check. Unsafe code is confined to these functions.
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

use kernel::{
    bindings,
    ffi::c_int, //
};

#[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
#[path = "sched_rust/sparsemask.rs"]
pub mod sparsemask;

#[cfg(CONFIG_SCHED_RUST_STEAL)]
#[path = "sched_rust/steal.rs"]
pub mod steal;

/// Boundary of the sparsemask: `struct sparsemask` of
/// `kernel/sched/sparsemask.h`.
#[cfg(CONFIG_SCHED_RUST_SPARSEMASK)]
pub mod sparsemask_ffi {
    use super::sparsemask::{
        chunks_for,
        Chunk,
        SparseMask,
        CHUNK_BYTES, //
    };
    use super::{
        bindings,
        c_int, //
    };
    use kernel::prelude::*;

    /// The header of `struct sparsemask`; the chunk array follows it, one
    /// cache line in.
    #[repr(C)]
    pub(crate) struct Header {
        pub(crate) nelems: i16,
        pub(crate) density: i16,
        pub(crate) chunks: [Chunk; 0],
    }

    const _: () = assert!(core::mem::offset_of!(Header, chunks) == CHUNK_BYTES);

    /// Borrows the mask at `mask`.
    ///
    /// Returns `None` for a header that no valid mask has (a negative size,
    /// a density out of range): the callers then treat the mask as empty.
    ///
    /// # Safety
    ///
    /// `mask` points to a `struct sparsemask` initialised by
    /// `sparsemask_init()` in an allocation of
    /// `sparsemask_size(nelems, density)` bytes, which stays allocated for
    /// `'a`. Its words are only modified atomically while borrowed.
    #[inline]
    pub(crate) unsafe fn borrow<'a>(mask: *const bindings::sparsemask) -> Option<SparseMask<'a>> {
        let header = mask.cast::<Header>();
        // SAFETY: `mask` points to an initialised header (the caller's
        // contract); `nelems` and `density` are never written after init.
        let (nelems, density) = unsafe { ((*header).nelems, (*header).density) };
        let nelems = u32::try_from(nelems).ok()?;
        let density = u32::try_from(density).ok()?;
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

    /// Converts an element number from C; negative ones are out of range.
    #[inline]
    fn to_elem(elem: c_int) -> Option<u32> {
        u32::try_from(elem).ok()
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
        if let (Some(mask), Some(elem)) = (unsafe { borrow(mask) }, to_elem(elem)) {
            mask.set(elem);
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
        if let (Some(mask), Some(elem)) = (unsafe { borrow(mask) }, to_elem(elem)) {
            mask.clear(elem);
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
        match (unsafe { borrow(mask) }, to_elem(elem)) {
            (Some(mask), Some(elem)) => mask.test(elem),
            _ => false,
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
        let prev = match prev {
            -1 => None,
            p => match to_elem(p) {
                Some(p) => Some(p),
                None => return end,
            },
        };
        // An origin outside `[0, nelems)` counts as 0, negative ones too.
        let origin = to_elem(origin).unwrap_or(0);
        match mask.next(origin, prev) {
            Some(e) => c_int::try_from(e).unwrap_or(end),
            None => end,
        }
    }

    /// The boundary on headers that no valid mask has: every operation
    /// must treat the mask as empty and write nothing. (The C functions do
    /// not check headers: `sparsemask_init()` refuses to make such masks.)
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
        fn bad_header_is_an_empty_mask() {
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
            let mut s = storage(100, 6);
            let mask = raw(&mut s);
            // SAFETY: 100 elements at density 6 need 2 chunks; 13 are there.
            unsafe {
                sched_rust_sparsemask_set_elem(mask, 63);
                sched_rust_sparsemask_set_elem(mask, 64);
                assert_eq!(sched_rust_sparsemask_next(mask, 64, -1), 64);
                assert_eq!(sched_rust_sparsemask_next(mask, 64, 64), 63);
                assert_eq!(sched_rust_sparsemask_next(mask, 64, 63), 100);
            }
            assert_eq!(s.chunks.first().map(Chunk::load), Some(1 << 63));
            assert_eq!(s.chunks.get(1).map(Chunk::load), Some(1));
        }
    }
}

/// Boundary of the steal search: `steal_search()` of
/// `kernel/sched/steal_search.h`.
#[cfg(CONFIG_SCHED_RUST_STEAL)]
pub mod steal_ffi {
    use super::sparsemask_ffi::borrow;
    use super::steal::{
        steal_search,
        CpuBitmap, //
    };
    use super::{
        bindings,
        c_int, //
    };
    use core::sync::atomic::AtomicUsize;
    use kernel::{
        ffi::{
            c_ulong,
            c_void, //
        },
        prelude::*,
    };

    /// Tries the steal candidates of `dst_cpu` in order, calling
    /// `steal_from(arg, cpu)` on each until one returns true: first the SMT
    /// siblings in `smt_siblings` whose bit is set in `overload`, then every
    /// CPU of `overload` from `dst_cpu` up with wrap-around. `dst_cpu` is
    /// never tried. The contract is that of the C `steal_search()`.
    ///
    /// Returns the CPU a task was stolen from, or -1 (also when `overload`
    /// has an invalid header, `dst_cpu` is negative, or `steal_from` is NULL).
    ///
    /// # Safety
    ///
    /// - `overload` points to a live `struct sparsemask` set up by
    ///   `sparsemask_init()`.
    /// - `smt_siblings` is NULL or points to a bitmap of at least
    ///   `overload->nelems` bits (a `struct cpumask` when `nelems` is
    ///   `nr_cpu_ids`), live for the call.
    /// - `steal_from` may be called with `arg` and any CPU below
    ///   `overload->nelems`.
    #[export]
    pub unsafe extern "C" fn sched_rust_steal_search(
        overload: *const bindings::sparsemask,
        smt_siblings: *const c_ulong,
        dst_cpu: c_int,
        steal_from: bindings::steal_from_fn,
        arg: *mut c_void,
    ) -> c_int {
        // SAFETY: the caller's contract is `borrow()`'s.
        let (Some(overload), Ok(dst), Some(steal_from)) = (
            unsafe { borrow(overload) },
            u32::try_from(dst_cpu),
            steal_from,
        ) else {
            return -1;
        };
        let siblings = (!smt_siblings.is_null()).then(|| {
            let words = overload.nelems().div_ceil(usize::BITS) as usize;
            // SAFETY: the caller provides `nelems` bits, that is `words`
            // whole `unsigned long`s, which have the size and alignment of
            // `AtomicUsize`; concurrent writers use atomic bitops or hold
            // the hotplug lock, and a stale view of a hint is harmless.
            CpuBitmap::new(unsafe {
                core::slice::from_raw_parts(smt_siblings.cast::<AtomicUsize>(), words)
            })
        });
        let found = steal_search(&overload, siblings, dst, |cpu| {
            // `cpu < nelems <= i16::MAX`: it always fits a `c_int`.
            let Ok(cpu) = c_int::try_from(cpu) else {
                return false;
            };
            // SAFETY: the caller allows `steal_from(arg, cpu)` for any CPU
            // below `nelems`.
            unsafe { steal_from(arg, cpu) }
        });
        found
            .and_then(|cpu| c_int::try_from(cpu).ok())
            .unwrap_or(-1)
    }

    /// The boundary on bad arguments, and the walk's order seen through the
    /// export. (`steal_kunit.c` compares the C and Rust walks at length.)
    #[cfg(CONFIG_SCHED_RUST_KUNIT_TEST)]
    #[kunit_tests(sched_rust_steal_rust)]
    mod tests {
        use super::super::sparsemask::Chunk;
        use super::super::sparsemask_ffi::Header;
        use super::*;

        /// A 16-CPU mask at density 3: two chunks of 8 CPUs, and the spare.
        #[repr(C)]
        struct Storage {
            header: Header,
            chunks: [Chunk; 3],
        }

        /// The CPUs a walk tried, and the one CPU that gives up a task.
        struct Record {
            tried: [c_int; 8],
            len: usize,
            accept: c_int,
        }

        unsafe extern "C" fn record(arg: *mut c_void, cpu: c_int) -> bool {
            // SAFETY: every test passes a `Record` it owns as `arg`.
            let rec = unsafe { &mut *arg.cast::<Record>() };
            if let Some(slot) = rec.tried.get_mut(rec.len) {
                *slot = cpu;
            }
            rec.len = rec.len.saturating_add(1);
            cpu == rec.accept
        }

        /// Overloaded CPUs 1, 5 and 9.
        fn storage(nelems: i16) -> Storage {
            let s = Storage {
                header: Header {
                    nelems,
                    density: 3,
                    chunks: [],
                },
                chunks: Default::default(),
            };
            s.chunks
                .iter()
                .zip([(1 << 1) | (1 << 5), 1 << 1])
                .for_each(|(c, w)| c.store(w));
            s
        }

        fn walk(
            s: &mut Storage,
            dst: c_int,
            accept: c_int,
            fun: bindings::steal_from_fn,
        ) -> (c_int, Record) {
            let mut rec = Record {
                tried: [-1; 8],
                len: 0,
                accept,
            };
            let mask = core::ptr::from_mut(s).cast::<bindings::sparsemask>();
            let arg = core::ptr::from_mut(&mut rec).cast::<c_void>();
            // SAFETY: `mask` is a 16-CPU mask with all its chunks, there is
            // no SMT bitmap, and `record` accepts any CPU with `rec`.
            let got = unsafe { sched_rust_steal_search(mask, core::ptr::null(), dst, fun, arg) };
            (got, rec)
        }

        #[test]
        fn walk_order_from_dst() {
            let mut s = storage(16);
            // Everything refuses: 9, then wrap to 1; 5 is the destination.
            let (got, rec) = walk(&mut s, 5, -1, Some(record));
            assert_eq!(got, -1);
            assert_eq!(rec.len, 2);
            assert_eq!(rec.tried.get(..2), Some(&[9, 1][..]));
            // The second candidate accepts: the walk stops there.
            let (got, rec) = walk(&mut s, 5, 1, Some(record));
            assert_eq!(got, 1);
            assert_eq!(rec.len, 2);
        }

        #[test]
        fn bad_arguments_try_nothing() {
            let mut s = storage(16);
            let (got, rec) = walk(&mut s, -1, 1, Some(record));
            assert_eq!((got, rec.len), (-1, 0));
            let (got, rec) = walk(&mut s, 5, 1, None);
            assert_eq!((got, rec.len), (-1, 0));
            // A header no valid mask has is an empty mask.
            let mut s = storage(-16);
            let (got, rec) = walk(&mut s, 5, 1, Some(record));
            assert_eq!((got, rec.len), (-1, 0));
        }
    }
}
