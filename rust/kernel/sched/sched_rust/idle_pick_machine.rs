// SPDX-License-Identifier: GPL-2.0

//! Described machines for the idle picker: `struct scx_idle_machine` of
//! `kernel/sched/sched_rust.h`, which the KUnit suites and the benchmark
//! describe (sibling masks, nodes, a node order and a cursor of their own),
//! and the exports that run the picker on one. A module of
//! `idle_pick_export.rs` (`machine`), built only with the KUnit suites or
//! the benchmark.

use super::super::idle_pick::{
    build_node_order,
    distribute,
    Cursor, //
};
use super::super::sync::{
    bits_in,
    bits_ptr,
    find_next_bit,
    test_bit,
    OpaqueBits, //
};
use super::*;
use kernel::types::Opaque;

/// A bitmap of a described machine: its words are opaque to Rust, and
/// every operation on them is a C function of lib/find_bit.c,
/// lib/bitmap.c or the bitops, as for the running system's masks, with
/// the machine's width (`nbits`) instead of `nr_cpu_ids`.
type MachineBits = OpaqueBits;

/// `bits` as a cpumask, for a `cpu` the kernel's cpumask operations can
/// address: below `nr_cpu_ids`, in a bitmap of at least `nr_cpu_ids` bits,
/// which is all a `struct cpumask` holds. Those operations then test, clear
/// and claim the CPU as on the running system's masks (inline where the
/// kernel performs them inline); beyond them, the bitops are called.
#[inline]
fn cpumask_of(bits: &MachineBits, cpu: u32) -> Option<(&AtomicCpumask, CpuId)> {
    let cpu = CpuId::from_u32(cpu)?;
    if bits_in(bits) < kernel::cpu::nr_cpu_ids() {
        return None;
    }
    // SAFETY: at least `nr_cpu_ids` bits, live as long as `bits`, whose
    // every writer is an atomic bitop (or the set-up before the machine is
    // shared): `IdleMask for MachineBits` below, and the C machine's
    // operations on the same words.
    let mask = unsafe { AtomicCpumask::from_raw(bits_ptr(bits).cast()) };
    Some((mask, cpu))
}

impl CpuMask for MachineBits {
    #[inline]
    fn test_cpu(&self, cpu: u32) -> bool {
        match cpumask_of(self, cpu) {
            Some((mask, cpu)) => mask.test(cpu),
            None => test_bit(self, cpu),
        }
    }

    #[inline]
    fn intersects(&self, other: &Self, nbits: u32) -> bool {
        let nbits = nbits.min(bits_in(self).min(bits_in(other)));
        // SAFETY: both have at least `nbits` bits, which
        // `__bitmap_intersects()` reads.
        unsafe { bindings::__bitmap_intersects(bits_ptr(self), bits_ptr(other), nbits) }
    }

    #[inline]
    fn find_next_and(&self, other: &Self, nbits: u32, from: u32) -> Option<u32> {
        let nbits = nbits.min(bits_in(self).min(bits_in(other)));
        if from >= nbits {
            return None;
        }
        // SAFETY: both have at least `nbits` bits, which
        // `_find_next_and_bit()` reads.
        let found = unsafe {
            bindings::_find_next_and_bit(
                bits_ptr(self),
                bits_ptr(other),
                nbits as usize,
                from as usize,
            )
        };
        u32::try_from(found).ok().filter(|&cpu| cpu < nbits)
    }
}

/// A described machine's idle masks: the writes are C's atomic bitops,
/// as for the running system's. (Its masks may be wider than
/// `nr_cpu_ids`, so `AtomicCpumask`, whose CPUs are `CpuId`s, cannot
/// address them.)
impl IdleMask for MachineBits {
    type Mask = MachineBits;

    #[inline(always)]
    fn as_mask(&self) -> &MachineBits {
        self
    }

    #[inline]
    fn clear_cpu(&self, cpu: u32) {
        if cpu >= bits_in(self) {
            return;
        }
        if let Some((mask, cpu)) = cpumask_of(self, cpu) {
            mask.clear(cpu);
            return;
        }
        // SAFETY: bit `cpu` is within `self`'s words; `clear_bit()`
        // updates its word atomically.
        unsafe { bindings::clear_bit(cpu as usize, bits_ptr(self)) };
    }

    #[inline]
    fn test_and_clear_cpu(&self, cpu: u32) -> bool {
        let Ok(c) = c_int::try_from(cpu) else {
            return false;
        };
        if cpu >= bits_in(self) {
            return false;
        }
        if let Some((mask, cpu)) = cpumask_of(self, cpu) {
            return mask.test_and_clear(cpu);
        }
        // SAFETY: bit `cpu` is within `self`'s words;
        // `cpumask_test_and_clear_cpu()` is `test_and_clear_bit()` of it
        // (the C machine's claim calls the same function on the same
        // words).
        unsafe { bindings::cpumask_test_and_clear_cpu(c, bits_ptr(self).cast()) }
    }

    #[inline]
    fn andnot(&self, other: &MachineBits, nbits: u32) {
        // The atomic removal of each CPU of `other`, as for the running
        // system's masks.
        let mut from = 0;
        while let Some(cpu) = find_next_bit(other, nbits, from) {
            self.clear_cpu(cpu);
            from = cpu.wrapping_add(1);
        }
    }
}

/// A `struct scx_idle_machine` seen as a [`Topology`].
///
/// # Invariants
///
/// `m` satisfies the contract of [`Machine::new`] for `'a`.
struct Machine<'a> {
    m: &'a bindings::scx_idle_machine,
    masks: Masks<'a>,
    cursor: &'a Cursor,
}

impl<'a> Machine<'a> {
    /// Views `m`; `None` if it or its cursor is NULL.
    ///
    /// # Safety
    ///
    /// If not NULL, `m` points to a `struct scx_idle_machine` live for
    /// `'a` whose `topo` satisfies [`Masks::new`]'s contract,
    /// `smt_siblings` and `cpu_node` have `nr_cpus` entries (each
    /// sibling mask `nr_cpus` bits), and `cursor` is an `unsigned int`
    /// that only pickers on this CPU use meanwhile; `distance` is NULL
    /// or has `nr_nodes²` entries. Only the entries of `smt_siblings`
    /// and `cpu_node` may be rewritten meanwhile, with `WRITE_ONCE()`,
    /// and the online nodes with atomic bitops; the node order and its
    /// pointer only between picks. `on_masks` is NULL or may be called
    /// with `m` and any node id or `NUMA_NO_NODE` while a pick runs.
    #[inline]
    unsafe fn new(m: *const bindings::scx_idle_machine) -> Option<Self> {
        // SAFETY: the caller's contract: NULL or a live machine.
        let m = unsafe { m.as_ref() }?;
        // SAFETY: `m.topo` satisfies `Masks::new()` (the caller's
        // contract).
        let masks = unsafe { Masks::new(&m.topo) }?;
        if m.cursor.is_null() {
            return None;
        }
        // SAFETY: `cursor` is a valid, aligned `unsigned int` used only
        // by pickers on this CPU, all through `Cursor`, an `Atomic<u32>`.
        let cursor = unsafe { Cursor::from_ptr(m.cursor) };
        Some(Self { m, masks, cursor })
    }

    /// The machine's bitmap at `bits`: `nr_cpus` bits; empty for NULL.
    ///
    /// # Safety
    ///
    /// `bits` is NULL or points to at least `nr_cpus` bits, aligned as
    /// `unsigned long`, that live for `'a`.
    #[inline]
    unsafe fn bits(&self, bits: *const c_ulong) -> &'a MachineBits {
        if bits.is_null() {
            return &[];
        }
        let words = self.m.topo.nr_cpus.div_ceil(usize::BITS) as usize;
        // SAFETY: `bits` points to `words` words that live for `'a` (the
        // caller's contract). They are `Opaque`: Rust forms no access to
        // them, which C may read and write meanwhile.
        unsafe { core::slice::from_raw_parts(bits.cast::<Opaque<c_ulong>>(), words) }
    }
}

impl<'a> Topology for Machine<'a> {
    type Mask = MachineBits;
    type IdleMask = MachineBits;

    #[inline]
    fn nr_cpus(&self) -> u32 {
        self.m.topo.nr_cpus
    }

    #[inline]
    fn smt_siblings(&self, cpu: u32) -> Option<&MachineBits> {
        let array = self.m.smt_siblings;
        if array.is_null() || cpu >= self.m.topo.nr_cpus {
            return None;
        }
        // SAFETY: `smt_siblings` has `nr_cpus` entries (type
        // invariant) and `cpu < nr_cpus`; an entry may be rewritten
        // with `WRITE_ONCE()` only, so `load(Relaxed)`, `READ_ONCE()`,
        // races with nothing. The mask it points to has `nr_cpus` bits
        // and lives for `'a`: a rewritten entry's old mask is not freed.
        unsafe {
            let entry = array.add(cpu as usize).cast_mut();
            let siblings = Atomic::from_ptr(entry).load(Relaxed);
            Some(self.bits(siblings))
        }
    }

    #[inline]
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        let cpu_node = self.m.cpu_node;
        if cpu_node.is_null() || cpu >= self.m.topo.nr_cpus {
            return None;
        }
        // SAFETY: `cpu_node` has `nr_cpus` entries (type invariant) and
        // `cpu < nr_cpus`; an entry may be rewritten with
        // `WRITE_ONCE()` only, so `load(Relaxed)`, `READ_ONCE()`, races
        // with nothing.
        Some(unsafe { Atomic::from_ptr(cpu_node.add(cpu as usize).cast_mut()) }.load(Relaxed))
    }

    #[inline]
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, MachineBits>> {
        let id = node.map_or(Some(NUMA_NO_NODE), |n| c_int::try_from(n).ok());
        if let (Some(on_masks), Some(id)) = (self.m.on_masks, id) {
            // SAFETY: `on_masks` may be called with the machine and a
            // node id or `NUMA_NO_NODE` (type invariant).
            unsafe { on_masks(self.m, id) };
        }
        let masks = self.masks.mask_ptrs(node)?;
        // SAFETY: a node's masks, both not NULL, have `nr_cpus` bits and
        // live for `'a` (type invariant).
        unsafe {
            Some(IdleMasks {
                cpu: self.bits(masks.cpu),
                smt: self.bits(masks.smt),
            })
        }
    }

    #[inline(always)]
    fn any_and_distribute(&self, a: &MachineBits, b: &MachineBits) -> Option<u32> {
        distribute(a, b, self.m.topo.nr_cpus, self.cursor)
    }

    #[inline]
    fn node_online(&self, node: u32) -> bool {
        self.masks.node_online(node)
    }

    #[inline]
    fn nr_nodes(&self) -> u32 {
        self.m.topo.nr_nodes
    }

    fn node_distance(&self, from: u32, to: u32) -> u32 {
        let (distance, n) = (self.m.distance, self.m.topo.nr_nodes);
        if distance.is_null() || from >= n || to >= n {
            return u32::MAX;
        }
        // `from, to < n`: the index is below `n²`, which fits a `usize`
        // for the table to exist.
        let at = (from as usize)
            .wrapping_mul(n as usize)
            .wrapping_add(to as usize);
        // SAFETY: `distance` has `nr_nodes²` entries that are not
        // written while pickers run (`Machine::new()`).
        unsafe { *distance.add(at) }
    }

    #[inline]
    fn with_node_order<R>(&self, node: u32, walk: impl FnOnce(Option<&[u16]>) -> R) -> R {
        // `node_order` is NULL or points to the machine's pointer to its
        // table, which its owner replaces only between picks
        // (`Machine::new()`), so no RCU is needed.
        let published = self.m.topo.node_order;
        let table = if published.is_null() {
            Some(core::ptr::null())
        } else {
            // SAFETY: an aligned pointer that lives for `'a`; its owner
            // replaces it only between picks (`Machine::new()`), so the
            // table it points to was written before the pick started and
            // no ordering is needed.
            let t = unsafe { Atomic::from_ptr(published.cast_mut()) }.load(Relaxed);
            (!t.is_null()).then_some(t.cast_const())
        };
        // SAFETY: the machine's table has `nr_nodes²` entries, not
        // written while pickers run (`Machine::new()`), for as long as
        // the machine is borrowed.
        walk(table.map(|table| unsafe { self.masks.node_order_row(table, node, self) }))
    }
}

/// The machine and the allowed mask of a pick.
///
/// # Safety
///
/// As for [`sched_rust_idle_machine_pick`].
#[inline]
unsafe fn machine_args<'a>(
    m: *const bindings::scx_idle_machine,
    cpus_allowed: *const c_ulong,
    node: c_int,
) -> Option<(Machine<'a>, &'a MachineBits, Option<u32>)> {
    // SAFETY: the caller's contract is `Machine::new()`'s.
    let machine = unsafe { Machine::new(m) }?;
    if cpus_allowed.is_null() {
        return None;
    }
    // SAFETY: `cpus_allowed` is a bitmap of the machine's `nr_cpus`
    // bits, live for `'a` (the caller's contract).
    let allowed = unsafe { machine.bits(cpus_allowed) };
    Some((machine, allowed, to_node(node)?))
}

/// [`sched_rust_idle_test_and_clear_cpu`] on a described machine.
///
/// # Safety
///
/// `m` is NULL or a machine valid as `sched_rust.h` documents.
#[export]
pub unsafe extern "C" fn sched_rust_idle_machine_test_and_clear_cpu(
    m: *const bindings::scx_idle_machine,
    cpu: c_int,
    state: c_uint,
) -> bool {
    // SAFETY: the caller's contract is `Machine::new()`'s.
    let (Some(machine), Ok(cpu)) = (unsafe { Machine::new(m) }, u32::try_from(cpu)) else {
        return false;
    };
    test_and_clear_cpu(&machine, cpu, state)
}

/// [`sched_rust_idle_pick_in_node`] on a described machine, rotating
/// with its cursor.
///
/// # Safety
///
/// As for [`sched_rust_idle_machine_test_and_clear_cpu`]; `cpus_allowed`
/// is NULL or has `nr_cpus` bits, live for the call.
#[export]
pub unsafe extern "C" fn sched_rust_idle_machine_pick_in_node(
    m: *const bindings::scx_idle_machine,
    cpus_allowed: *const c_ulong,
    node: c_int,
    flags: u64,
    state: c_uint,
) -> i32 {
    // SAFETY: the caller's contract is `machine_args()`'s.
    match unsafe { machine_args(m, cpus_allowed, node) } {
        Some((machine, allowed, node)) => pick_in_node(&machine, allowed, node, flags, state),
        None => -EBUSY,
    }
}

/// [`sched_rust_idle_pick`] on a described machine, rotating with its
/// cursor and walking the nodes in its order.
///
/// # Safety
///
/// As for [`sched_rust_idle_machine_pick_in_node`].
#[export]
pub unsafe extern "C" fn sched_rust_idle_machine_pick(
    m: *const bindings::scx_idle_machine,
    cpus_allowed: *const c_ulong,
    node: c_int,
    flags: u64,
    state: c_uint,
) -> i32 {
    // SAFETY: the caller's contract is `machine_args()`'s.
    match unsafe { machine_args(m, cpus_allowed, node) } {
        Some((machine, allowed, node)) => pick(&machine, allowed, node, flags, state),
        None => -EBUSY,
    }
}

/// Fills `order` (`nr_nodes²` entries) from `distance` (`nr_nodes²`
/// entries, `[from * nr_nodes + to]`): row `n` lists every node by
/// increasing distance from `n`, ties by node id, as idle.c sorts its
/// own: the node order of a described machine.
///
/// Returns false, writing nothing, for a NULL pointer or more nodes
/// than a `u16` can name.
///
/// # Safety
///
/// If not NULL, `distance` and `order` point to `nr_nodes²` entries
/// each, live for the call; nobody writes `distance` meanwhile, and
/// `order` is not accessed by anyone else meanwhile.
#[export]
pub unsafe extern "C" fn sched_rust_idle_build_node_order(
    distance: *const c_uint,
    nr_nodes: c_uint,
    order: *mut u16,
) -> bool {
    let Some(cells) = (nr_nodes <= u32::from(u16::MAX))
        .then(|| (nr_nodes as usize).checked_mul(nr_nodes as usize))
        .flatten()
    else {
        return false;
    };
    if distance.is_null() || order.is_null() {
        return false;
    }
    // SAFETY: both arrays have `nr_nodes²` entries (the caller's
    // contract) and `order` is ours alone for the call.
    let (distance, order) = unsafe {
        (
            core::slice::from_raw_parts(distance, cells),
            core::slice::from_raw_parts_mut(order, cells),
        )
    };
    build_node_order(distance, nr_nodes, order)
}
