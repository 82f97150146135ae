// SPDX-License-Identifier: GPL-2.0

//! The candidate walk of `try_steal()`.
//!
//! C header: [`kernel/sched/steal_search.h`](srctree/kernel/sched/steal_search.h).
//!
//! When a CPU is about to go idle and the newidle balance found nothing,
//! `try_steal()` looks for a task on an overloaded CPU of the same LLC. It
//! tries the candidates in this order and stops at the first success:
//!
//! 1. the SMT siblings of the destination whose overload bit is set, in
//!    ascending order, to keep the stolen task's cache warm;
//! 2. every CPU of the LLC's overload mask, from the destination up with
//!    wrap-around.
//!
//! The destination itself is never tried, and each sibling is tried once:
//! step 2 skips the siblings, which step 1 tried if they were overloaded.
//! The walk ends at the first candidate that gives up a task, and as soon as
//! the attempt says to stop (the destination got work meanwhile, or the
//! budget of attempts is spent).
//!
//! The attempt takes and drops run-queue locks, so it stays in C: it is the
//! `steal_from` closure here, a call back into C in the kernel. One call from
//! C runs the whole walk.

use super::sparsemask::SparseMask;

/// The SMT siblings of the destination, as the walk searches them.
///
/// The topology code rewrites a sibling mask with plain stores under CPU
/// hotplug, so the walk never reads its memory: in the kernel each method is
/// a C operation of lib/find_bit.c on it, as in the C walk. The userspace
/// crate implements them on a model.
pub trait CpuSet {
    /// The first CPU of the set in `[from, nbits)`: `find_next_bit()`.
    fn find_next(&self, nbits: u32, from: u32) -> Option<u32>;
    /// Whether `cpu` is in the set: `test_bit()`.
    fn test(&self, cpu: u32) -> bool;
}

/// The first CPU of `set` below `nbits`, in ascending order, for which
/// `pred` returns true: `for_each_set_bit()` with a test.
#[inline]
fn find_in<S: CpuSet + ?Sized>(
    set: &S,
    nbits: u32,
    mut pred: impl FnMut(u32) -> bool,
) -> Option<u32> {
    let mut from = 0;
    while let Some(cpu) = set.find_next(nbits, from) {
        if pred(cpu) {
            return Some(cpu);
        }
        // `cpu < nbits <= u32::MAX`: no wrap.
        from = cpu.checked_add(1)?;
    }
    None
}

/// What an attempt to steal from a candidate did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Attempt {
    /// No task taken: try the next candidate.
    Refused,
    /// A task was taken: the walk ends with this candidate.
    Taken,
    /// No task taken, and the walk must end.
    Stop,
}

/// Tries the steal candidates of `dst_cpu` in order (see the module doc).
///
/// `overload` is the LLC's overload mask, indexed by CPU id. `smt_siblings`
/// holds the SMT siblings of `dst_cpu` (itself included), or is `None` when
/// SMT is off; only its first `overload.nelems()` bits are read.
/// `steal_from(cpu)` attempts the steal.
///
/// Returns the CPU a task was stolen from, or `None` (nothing taken, or an
/// attempt said [`Attempt::Stop`]).
#[inline]
pub fn steal_search<S: CpuSet + ?Sized>(
    overload: &SparseMask<'_>,
    smt_siblings: Option<&S>,
    dst_cpu: u32,
    mut steal_from: impl FnMut(u32) -> Attempt,
) -> Option<u32> {
    // The candidate at which the walk ended, and how.
    let mut last = Attempt::Refused;
    let mut attempt = |cpu: u32| {
        last = steal_from(cpu);
        last != Attempt::Refused
    };
    let mut found = None;
    if let Some(siblings) = smt_siblings {
        found = find_in(siblings, overload.nelems(), |cpu| {
            cpu != dst_cpu && overload.test(cpu) && attempt(cpu)
        });
    }
    if found.is_none() {
        found = overload.iter_from(dst_cpu).find(|&cpu| {
            cpu != dst_cpu && !smt_siblings.is_some_and(|s| s.test(cpu)) && attempt(cpu)
        });
    }
    found.filter(|_| last == Attempt::Taken)
}
