// SPDX-License-Identifier: GPL-2.0

//! Boundary of the steal search: `steal_search()` of
//! `kernel/sched/steal_search.h`.

use super::sparsemask_export::borrow;
use super::steal::{
    steal_search,
    Attempt,
    CpuSet, //
};
use super::sync::{
    find_next_bit,
    test_bit,
    OpaqueBits, //
};
use kernel::{
    bindings,
    cpu::CpuId,
    cpumask::Cpumask,
    ffi::{
        c_int,
        c_ulong,
        c_void, //
    },
    prelude::*,
    types::Opaque,
};

/// The destination's SMT siblings, as the walk gets them from C: words
/// opaque to Rust, which the topology code rewrites under CPU hotplug.
/// The walk searches them with lib/find_bit.c, as the C walk does, and
/// tests a candidate with the kernel's `cpumask_test_cpu()` where they are
/// `cpu_smt_mask()`, a `struct cpumask` (`kernel::cpumask::Cpumask::test()`:
/// the `bt` C's `test_bit()` is, inline, where the kernel performs it so),
/// and with a search otherwise (a described LLC of the KUnit suites).
///
/// # Invariants
///
/// `mask`, when there is one, is `bits` as a `struct cpumask` of
/// `nr_cpu_ids` bits.
struct Siblings<'a> {
    bits: &'a OpaqueBits,
    mask: Option<&'a Cpumask>,
}

impl CpuSet for Siblings<'_> {
    #[inline]
    fn find_next(&self, nbits: u32, from: u32) -> Option<u32> {
        find_next_bit(self.bits, nbits, from)
    }

    #[inline]
    fn test(&self, cpu: u32) -> bool {
        match self.mask {
            Some(mask) => CpuId::from_u32(cpu).is_some_and(|cpu| mask.test(cpu)),
            None => test_bit(self.bits, cpu),
        }
    }
}

/// Tries the steal candidates of `dst_cpu` in order, calling
/// `steal_from(arg, cpu)` on each until one returns non-zero: first the SMT
/// siblings in `smt_siblings` whose bit is set in `overload`, then every
/// other CPU of `overload` from `dst_cpu` up with wrap-around (siblings
/// are not tried twice). `dst_cpu` is never tried. A positive return
/// (`STEAL_TAKEN`) ends the walk with that CPU, a negative one
/// (`STEAL_STOP`) ends it with -1. The contract is that of the C
/// `steal_search()`.
///
/// Returns the CPU a task was stolen from, or -1: nothing is tried when
/// `overload` is empty. A `dst_cpu` outside `[0, overload->nelems)`
/// (negative ones too) is no CPU of the mask: every overloaded CPU is tried,
/// from 0 up, after the siblings, as in C. An `overload` with a header no
/// valid mask has is an empty mask.
///
/// `overload` and `steal_from` must not be NULL: the C `steal_search()`
/// dereferences and calls them. (A NULL `steal_from` comes as `None` here,
/// which must be answered somehow: -1, trying nothing; callers cannot
/// rely on it.) `smt_siblings` may be NULL: no SMT.
///
/// # Safety
///
/// - `overload` points to a live `struct sparsemask` set up by
///   `sparsemask_init()` (not NULL), with the ordering that
///   `sparsemask_export::borrow()` requires (for a pointer published with
///   RCU, loaded with acquire ordering).
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
    let Some(steal_from) = steal_from else {
        return -1;
    };
    // SAFETY: the caller's contract is `borrow()`'s.
    let overload = unsafe { borrow(overload) };
    // A negative `dst_cpu` is out of range like one at or above `nelems`:
    // the walk then starts at 0 and tries every CPU, as the C walk does.
    let dst = u32::try_from(dst_cpu).unwrap_or(u32::MAX);
    let siblings = (!smt_siblings.is_null()).then(|| {
        let words = overload.nelems().div_ceil(usize::BITS) as usize;
        // SAFETY: the caller provides an array of `unsigned long` of
        // `nelems` bits, that is `words` words, live for the call. They are
        // `Opaque`: Rust forms no access to them, and the walk passes them
        // only to C's operations (`CpuSet for Siblings`).
        let bits: &OpaqueBits =
            unsafe { core::slice::from_raw_parts(smt_siblings.cast::<Opaque<c_ulong>>(), words) };
        // INVARIANT: with `nelems == nr_cpu_ids` the bitmap is a `struct
        // cpumask` (the caller's contract).
        let mask = (overload.nelems() == kernel::cpu::nr_cpu_ids()).then(|| {
            // SAFETY: a `struct cpumask` of `nr_cpu_ids` bits, live for the
            // call; `Cpumask` reads it only with C's cpumask operations.
            unsafe { Cpumask::from_raw(smt_siblings.cast::<bindings::cpumask>()) }
        });
        Siblings { bits, mask }
    });
    // fair.c's own `steal_from()` is called directly, any other through
    // the pointer, as `INDIRECT_CALL_1()` does: with retpolines and kCFI,
    // an indirect call per candidate costs more than the walk's own work.
    // (`sched_steal_from` is one C symbol; a false "no" would only take
    // the pointer.)
    let scheduler_steal = core::ptr::fn_addr_eq(
        steal_from,
        bindings::sched_steal_from as unsafe extern "C" fn(_, _) -> _,
    );
    let found = steal_search(&overload, siblings.as_ref(), dst, |cpu| {
        // `cpu < nelems <= i16::MAX`: it always fits a `c_int`.
        let Ok(cpu) = c_int::try_from(cpu) else {
            return Attempt::Refused;
        };
        // SAFETY: the caller allows `steal_from(arg, cpu)` for any CPU
        // below `nelems`, and `steal_from` is `sched_steal_from` in the
        // first branch.
        let attempt = unsafe {
            if scheduler_steal {
                bindings::sched_steal_from(arg, cpu)
            } else {
                steal_from(arg, cpu)
            }
        };
        match attempt {
            0 => Attempt::Refused,
            1.. => Attempt::Taken,
            _ => Attempt::Stop,
        }
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
    use super::super::sparsemask_export::Header;
    use super::*;

    /// A 16-CPU mask at density 3: two chunks of 8 CPUs, and the spare.
    #[repr(C)]
    struct Storage {
        header: Header,
        chunks: [Chunk; 3],
    }

    /// The CPUs a walk tried, the one CPU that gives up a task, and the
    /// one at which the walk must stop.
    struct Record {
        tried: [c_int; 8],
        len: usize,
        accept: c_int,
        stop: c_int,
    }

    /// The walk's `steal_from` callback: notes `cpu` and accepts it if it is
    /// the one CPU that gives up a task.
    ///
    /// # Safety
    ///
    /// `arg` points to a live `Record` that nothing else accesses during the
    /// call.
    unsafe extern "C" fn record(arg: *mut c_void, cpu: c_int) -> c_int {
        // SAFETY: every test passes a `Record` it owns as `arg`.
        let rec = unsafe { &mut *arg.cast::<Record>() };
        if let Some(slot) = rec.tried.get_mut(rec.len) {
            *slot = cpu;
        }
        rec.len = rec.len.saturating_add(1);
        if cpu == rec.accept {
            bindings::STEAL_TAKEN as c_int
        } else if cpu == rec.stop {
            bindings::STEAL_STOP as c_int
        } else {
            bindings::STEAL_REFUSED as c_int
        }
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
        stop: c_int,
        fun: bindings::steal_from_fn,
    ) -> (c_int, Record) {
        let mut rec = Record {
            tried: [-1; 8],
            len: 0,
            accept,
            stop,
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
        let (got, rec) = walk(&mut s, 5, -1, -1, Some(record));
        assert_eq!(got, -1);
        assert_eq!(rec.len, 2);
        assert_eq!(rec.tried.get(..2), Some(&[9, 1][..]));
        // The second candidate accepts: the walk stops there.
        let (got, rec) = walk(&mut s, 5, 1, -1, Some(record));
        assert_eq!(got, 1);
        assert_eq!(rec.len, 2);
        // The first candidate says stop: nothing more is tried.
        let (got, rec) = walk(&mut s, 5, 1, 9, Some(record));
        assert_eq!((got, rec.len), (-1, 1));
    }

    #[test]
    fn bad_arguments() {
        // A destination out of range: every CPU from 0, as in C.
        for dst in [-1, c_int::MIN, 16, 17, c_int::MAX] {
            let mut s = storage(16);
            let (got, rec) = walk(&mut s, dst, -1, -1, Some(record));
            assert_eq!((got, rec.len), (-1, 3));
            assert_eq!(rec.tried.get(..3), Some(&[1, 5, 9][..]));
            let (got, rec) = walk(&mut s, dst, 5, -1, Some(record));
            assert_eq!((got, rec.len), (5, 2));
        }
        // An empty mask: nothing tried.
        let mut s = storage(16);
        s.chunks.iter().for_each(|c| c.store(0));
        let (got, rec) = walk(&mut s, 5, 1, -1, Some(record));
        assert_eq!((got, rec.len), (-1, 0));
        // No callback (outside the contract): nothing tried.
        let mut s = storage(16);
        let (got, rec) = walk(&mut s, 5, 1, -1, None);
        assert_eq!((got, rec.len), (-1, 0));
    }
}
