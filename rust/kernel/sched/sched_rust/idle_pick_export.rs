// SPDX-License-Identifier: GPL-2.0

//! Boundary of the sched_ext idle picker.
//!
//! The kernel's picker reads the running system as idle.c does: the idle
//! masks and its order of nodes through `struct scx_idle_topo` of
//! `kernel/sched/sched_rust.h` (pointers set once at boot; the order is
//! idle.c's RCU-published table, dereferenced at each walk), and everything
//! else live, through the C functions idle.c calls: `cpu_smt_mask()`,
//! `cpu_to_node()`, `node_distance()` and `cpumask_any_and_distribute()`, whose per-CPU
//! cursor it shares with every other caller on the CPU, as idle.c does.
//! So for the same state both give the same answer, rotation included, and
//! no copy of the topology can lag the live one. One call from C runs a
//! whole pick.
//!
//! Rust forms no access to the memory of a mask: C writes the idle masks,
//! the SMT sibling masks and a BPF scheduler's `cpus_allowed` with plain
//! stores. Each mask is a `kernel::cpumask::Cpumask` (an `Opaque`), and
//! every operation on it is the kernel's C operation, through `Cpumask`'s
//! methods ([`CpuMask`] for `Cpumask`, below): searches in lib/find_bit.c
//! and lib/cpumask.c, claims and removals with the atomic bitops. A
//! described machine's masks are opaque words, operated on by the same C
//! functions with the machine's width.
//!
//! The tests and benchmarks also run the same core on described machines,
//! `struct scx_idle_machine` (`Machine`), with a cursor of their own;
//! those exports, in `idle_pick_machine.rs` (module `machine`), are built
//! only with the KUnit suites or the benchmark.

use super::idle_pick::{
    pick,
    pick_in_node,
    test_and_clear_cpu,
    CpuMask,
    IdleMask,
    IdleMasks,
    Topology,
    EBUSY,
    MAX_NODES,
    NUMA_NO_NODE,
    PICK_IDLE_CORE,
    PICK_IDLE_IN_NODE,
    STATE_PER_NODE,
    STATE_SMT_ACTIVE, //
};
use super::sync::{
    Acquire,
    Atomic,
    Relaxed, //
};
use kernel::{
    alloc::NumaNode,
    bindings,
    cpu::CpuId,
    cpumask::{
        AtomicCpumask,
        Cpumask, //
    },
    ffi::{
        c_int,
        c_uint,
        c_ulong, //
    },
    prelude::*,
    sync::rcu,
};

// The C flags and the core's are the same bits, and its errno and node
// constants are C's.
const _: () = assert!(bindings::EBUSY as i32 == EBUSY);
const _: () = assert!(bindings::NUMA_NO_NODE == NUMA_NO_NODE);
const _: () = assert!(bindings::SCX_IDLE_PICK_CORE as u64 == PICK_IDLE_CORE);
const _: () = assert!(bindings::SCX_IDLE_PICK_IN_NODE as u64 == PICK_IDLE_IN_NODE);
const _: () = assert!(bindings::SCX_IDLE_STATE_SMT_ACTIVE == STATE_SMT_ACTIVE);
const _: () = assert!(bindings::SCX_IDLE_STATE_PER_NODE == STATE_PER_NODE);
// The walk without a node order copies the online nodes into MAX_NODES bits.
const _: () = assert!(bindings::SCX_IDLE_MAX_NODES as usize <= MAX_NODES);

/// The idle masks of a `struct scx_idle_topo`.
///
/// # Invariants
///
/// `topo` satisfies the contract of [`Masks::new`] for `'a`, and its
/// `nr_cpus` and `nr_nodes` are at most `i32::MAX`: every CPU and node id is
/// a C `int`.
#[derive(Clone, Copy)]
struct Masks<'a> {
    topo: &'a bindings::scx_idle_topo,
}

impl<'a> Masks<'a> {
    /// Views `topo`; `None` if it is NULL, or if it has more CPUs or nodes
    /// than a C `int` can name (`i32::MAX`; no kernel has them).
    ///
    /// # Safety
    ///
    /// If not NULL, `topo` points to a `struct scx_idle_topo` that is live
    /// for `'a` and not rewritten meanwhile, whose pointers are valid as
    /// `sched_rust.h` documents: every CPU bitmap has at least `nr_cpus`
    /// bits, `online_nodes` at least `nr_nodes`, `nodes` has `nr_nodes`
    /// entries (a node's masks are both NULL or both valid), `node_order`
    /// is NULL or points to the pointer by which the node order is
    /// published (see [`Masks::node_order_row`] for the table), and all of
    /// them live at least as long as `'a`. On the running system the CPU
    /// bitmaps are `struct cpumask`s (`nr_cpus` is `nr_cpu_ids`). C may
    /// write the bitmaps meanwhile, with plain stores too: Rust only passes
    /// them to C's operations.
    #[inline]
    unsafe fn new(topo: *const bindings::scx_idle_topo) -> Option<Self> {
        // SAFETY: the caller's contract: NULL or a live view.
        let topo = unsafe { topo.as_ref() }?;
        let fits = |n: u32| i32::try_from(n).is_ok();
        (fits(topo.nr_cpus) && fits(topo.nr_nodes)).then_some(Self { topo })
    }

    /// The masks of `node`, `None` for the global ones: pointers to two
    /// bitmaps of `nr_cpus` bits, neither NULL; `None` for a node out of
    /// range or without masks.
    #[inline]
    fn mask_ptrs(&self, node: Option<u32>) -> Option<bindings::scx_idle_masks> {
        let masks = match node {
            None => self.topo.global,
            Some(n) if n < self.topo.nr_nodes && !self.topo.nodes.is_null() => {
                // SAFETY: `nodes` has `nr_nodes` entries (type invariant),
                // `n < nr_nodes`, and they are not rewritten meanwhile.
                unsafe { *self.topo.nodes.add(n as usize) }
            }
            Some(_) => return None,
        };
        (!masks.cpu.is_null() && !masks.smt.is_null()).then_some(masks)
    }

    /// Whether node `node` is in `online_nodes` (`node_isset()`); false for
    /// a node out of range or a NULL `online_nodes`.
    #[inline]
    fn node_online(&self, node: u32) -> bool {
        let online = self.topo.online_nodes;
        if online.is_null() || node >= self.topo.nr_nodes {
            return false;
        }
        // `find_next_bit()` of the one bit, `node < nr_nodes <= i32::MAX`:
        // no wrap.
        let end = node.wrapping_add(1) as usize;
        // SAFETY: `online_nodes` has `nr_nodes` bits, live for `'a` (type
        // invariant), of which `_find_next_bit()` reads the word of `node`,
        // as `node_isset()` reads it for idle.c. Rust reads nothing.
        unsafe { bindings::_find_next_bit(online, end, node as usize) == node as usize }
    }

    /// The node order at `published`, loaded as `rcu_dereference()` does,
    /// inside the read-side critical section `_guard` proves: `None` for no
    /// table. `Some` of a NULL pointer: not published at all (no walk across
    /// nodes).
    ///
    /// # Safety
    ///
    /// `published` is NULL or points to an aligned pointer that C writes
    /// only with `rcu_assign_pointer()`/`rcu_replace_pointer()` and that
    /// lives for `'a`.
    #[inline]
    unsafe fn node_order(
        &self,
        published: *const *mut bindings::scx_idle_node_order,
        _guard: &rcu::Guard,
    ) -> Option<*const bindings::scx_idle_node_order> {
        if published.is_null() {
            return Some(core::ptr::null());
        }
        // SAFETY: an aligned pointer that lives for `'a` (the caller's
        // contract), whose every other access is atomic: C stores it with
        // `smp_store_release()` (`rcu_assign_pointer()`) and loads it with
        // `READ_ONCE()` (`rcu_dereference()`).
        //
        // `Acquire` pairs with that release: the table's contents, written
        // before it was published, are visible to the reads through the
        // pointer. (C's `rcu_dereference()` gets that order from the address
        // dependency; Rust's memory model does not promise to keep one.)
        let table = unsafe { Atomic::from_ptr(published.cast_mut()) }.load(Acquire);
        (!table.is_null()).then_some(table.cast_const())
    }

    /// `node`'s row of the node order `table`: `nr_nodes` node ids; empty
    /// for a node out of range or a NULL `table`. The row lives as long as
    /// `_scope`, what keeps the table: the RCU read-side critical section of
    /// the running system, the machine of a described one.
    ///
    /// # Safety
    ///
    /// `table` is NULL or points to a `struct scx_idle_node_order` whose
    /// `order` has `nr_nodes²` entries, which nothing writes while `'b`
    /// lasts (idle.c fills a table before it publishes it, and frees it an
    /// RCU grace period after it replaces it).
    #[inline]
    unsafe fn node_order_row<'b, S: ?Sized>(
        &self,
        table: *const bindings::scx_idle_node_order,
        node: u32,
        _scope: &'b S,
    ) -> &'b [u16] {
        let n = self.topo.nr_nodes;
        if table.is_null() || node >= n {
            return &[];
        }
        // `node < n`: `node * n + n <= n²`, which fits a `usize` for the
        // table to exist.
        let row = (node as usize).wrapping_mul(n as usize);
        // SAFETY: `order` has `nr_nodes²` entries (the caller's contract), of
        // which the row is `[node * n, node * n + n)`, not written while
        // `'b` lasts.
        unsafe {
            let order = (&raw const (*table).order).cast::<u16>();
            core::slice::from_raw_parts(order.add(row), n as usize)
        }
    }
}

/// The running system, as idle.c reads it.
///
/// # Invariants
///
/// The task that holds it does not migrate to another CPU while it lives
/// (preemption, migration or interrupts disabled), as
/// `cpumask_any_and_distribute()` requires.
struct System<'a>(Masks<'a>);

impl<'a> System<'a> {
    /// The running system, with the masks of `masks`.
    ///
    /// # Safety
    ///
    /// The caller does not migrate to another CPU while the result lives.
    #[inline(always)]
    unsafe fn new(masks: Masks<'a>) -> Self {
        // INVARIANT: the caller's contract.
        Self(masks)
    }
}

impl System<'_> {
    /// `cpu` as a CPU of the running system (below `nr_cpu_ids`), if the
    /// view has it.
    #[inline]
    fn cpu(&self, cpu: u32) -> Option<CpuId> {
        if cpu >= self.0.topo.nr_cpus {
            return None;
        }
        CpuId::from_u32(cpu)
    }
}

/// The running system's masks are `struct cpumask`s, searched by the
/// kernel's cpumask operations (`nbits` is `nr_cpu_ids`, their width). No
/// method reads the mask's memory from Rust.
impl CpuMask for Cpumask {
    #[inline]
    fn test_cpu(&self, cpu: u32) -> bool {
        CpuId::from_u32(cpu).is_some_and(|cpu| self.test(cpu))
    }

    #[inline]
    fn intersects(&self, other: &Self, _nbits: u32) -> bool {
        Cpumask::intersects(self, other)
    }

    #[inline]
    fn find_next_and(&self, other: &Self, nbits: u32, from: u32) -> Option<u32> {
        let nbits = nbits.min(kernel::cpu::nr_cpu_ids());
        if from >= nbits {
            return None;
        }
        // SAFETY: both are valid `struct cpumask`s (type invariant), whose
        // bits hold at least `nr_cpu_ids >= nbits` bits; `_find_next_and_bit()`
        // reads them below `nbits`.
        let found = unsafe {
            bindings::_find_next_and_bit(
                (&raw const (*self.as_raw()).bits).cast(),
                (&raw const (*other.as_raw()).bits).cast(),
                nbits as usize,
                from as usize,
            )
        };
        u32::try_from(found).ok().filter(|&cpu| cpu < nbits)
    }
}

/// The running system's idle masks, written by the kernel's atomic cpumask
/// operations only.
impl IdleMask for AtomicCpumask {
    type Mask = Cpumask;

    #[inline(always)]
    fn as_mask(&self) -> &Cpumask {
        self
    }

    #[inline]
    fn clear_cpu(&self, cpu: u32) {
        if let Some(cpu) = CpuId::from_u32(cpu) {
            self.clear(cpu);
        }
    }

    #[inline]
    fn test_and_clear_cpu(&self, cpu: u32) -> bool {
        CpuId::from_u32(cpu).is_some_and(|cpu| self.test_and_clear(cpu))
    }

    #[inline]
    fn andnot(&self, other: &Cpumask, _nbits: u32) {
        // `cpumask_andnot(self, self, other)`, as the atomic removal of
        // each CPU of `other` (an SMT core: one to eight CPUs).
        let mut cpu = other.first();
        while let Some(c) = cpu {
            self.clear(c);
            cpu = other.next(c);
        }
    }
}

impl Topology for System<'_> {
    type Mask = Cpumask;
    type IdleMask = AtomicCpumask;

    #[inline]
    fn nr_cpus(&self) -> u32 {
        self.0.topo.nr_cpus
    }

    #[inline]
    fn smt_siblings(&self, cpu: u32) -> Option<&Cpumask> {
        // `cpu_smt_mask()`, read only.
        self.cpu(cpu)?.smt_siblings()
    }

    #[inline]
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        // `cpu_to_node()`, as idle.c reads it.
        Some(self.cpu(cpu)?.node().into())
    }

    #[inline]
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, AtomicCpumask>> {
        let masks = self.0.mask_ptrs(node)?;
        // SAFETY: on the running system, the idle masks are idle.c's
        // `cpumask_var_t`s, writable `struct cpumask`s that live for `'a`
        // (type invariant). Every other writer of them meanwhile is an
        // atomic bitop: `update_builtin_idle()`'s `assign_cpu()` of a
        // `cpu` mask and, in this build, its `idle_smts_or()`/
        // `idle_smts_andnot()` of an `smt` mask and `reset_idle_masks()`'s
        // `idle_mask_clear()` (`cpumask_set_cpu()`/`cpumask_clear_cpu()` of
        // each CPU). idle.c's own claims are this picker's; in a kernel
        // that can switch pickers (`CONFIG_SCHED_RUST_SWITCH`), C's claim,
        // a plain writer of an `smt` mask, never runs beside this one:
        // `scx_idle_enable()` latches the picker of a scheduler, and grace
        // periods separate the picks of one scheduler from the next's.
        unsafe {
            Some(IdleMasks {
                cpu: AtomicCpumask::from_raw(masks.cpu.cast()),
                smt: AtomicCpumask::from_raw(masks.smt.cast()),
            })
        }
    }

    #[inline(always)]
    fn any_and_distribute(&self, a: &Cpumask, b: &Cpumask) -> Option<u32> {
        // SAFETY: lib/cpumask.c's function, with this CPU's cursor, which
        // idle.c's picks share with every caller on the CPU; the task does
        // not migrate while `self` lives (type invariant).
        let cpu = unsafe { a.any_and_distribute(b) }?.as_u32();
        (cpu < self.0.topo.nr_cpus).then_some(cpu)
    }

    #[inline]
    fn node_online(&self, node: u32) -> bool {
        self.0.node_online(node)
    }

    #[inline]
    fn nr_nodes(&self) -> u32 {
        self.0.topo.nr_nodes
    }

    fn node_distance(&self, from: u32, to: u32) -> u32 {
        let node = |id: u32| {
            (id < self.0.topo.nr_nodes)
                .then(|| NumaNode::new(c_int::try_from(id).ok()?).ok())
                .flatten()
        };
        let (Some(from), Some(to)) = (node(from), node(to)) else {
            return u32::MAX;
        };
        // `node_distance()`.
        from.distance(to).unwrap_or(u32::MAX)
    }

    #[inline]
    fn with_node_order<R>(&self, node: u32, walk: impl FnOnce(Option<&[u16]>) -> R) -> R {
        // As `pick_idle_cpu_from_online_nodes()`: the table is read under
        // the RCU read lock, which the guard holds until `walk` returns.
        let guard = rcu::read_lock();
        // SAFETY: `node_order` is NULL or points to idle.c's
        // `scx_idle_node_order`, which C writes with `rcu_replace_pointer()`
        // and which lives as long as the kernel (type invariant).
        let table = unsafe { self.0.node_order(self.0.topo.node_order, &guard) };
        // SAFETY: a published table has `nr_nodes²` entries, filled before
        // it was published and freed only an RCU grace period after it is
        // replaced, which cannot end while the guard is held.
        walk(table.map(|table| unsafe { self.0.node_order_row(table, node, &guard) }))
    }
}

/// The node argument: `NUMA_NO_NODE` (-1) for the global masks, else a node
/// id; other negative values are not nodes.
#[inline]
fn to_node(node: c_int) -> Option<Option<u32>> {
    match node {
        -1 => Some(None),
        n => u32::try_from(n).ok().map(Some),
    }
}

/// The system and the allowed mask of a pick, or `None` for a NULL pointer
/// or a node that is not one.
///
/// # Safety
///
/// As for [`sched_rust_idle_pick`].
#[inline]
unsafe fn system_args<'a>(
    topo: *const bindings::scx_idle_topo,
    cpus_allowed: *const bindings::cpumask,
    node: c_int,
) -> Option<(System<'a>, &'a Cpumask, Option<u32>)> {
    // SAFETY: the caller's contract is `Masks::new()`'s.
    let masks = unsafe { Masks::new(topo) }?;
    if cpus_allowed.is_null() {
        return None;
    }
    // SAFETY: `cpus_allowed` is a `struct cpumask` live for the call (the
    // caller's contract); C may write it meanwhile (a BPF scheduler may
    // pass a live mask, such as the idle mask of
    // `scx_bpf_get_idle_cpumask()`), and the picker only passes it to
    // `Cpumask`'s C operations.
    let allowed = unsafe { Cpumask::from_raw(cpus_allowed) };
    // SAFETY: the caller does not migrate during the call (its contract).
    let system = unsafe { System::new(masks) };
    Some((system, allowed, to_node(node)?))
}

/// Claims `cpu`: `scx_idle_test_and_clear_cpu()`. With
/// `SCX_IDLE_STATE_SMT_ACTIVE` in `state`, the CPU's core
/// (`cpu_smt_mask()`) leaves the `smt` mask first (or the CPU itself, if
/// none of its siblings is there); then the CPU's `cpu` bit is atomically
/// cleared. The masks are those of `cpu_to_node(cpu)` with
/// `SCX_IDLE_STATE_PER_NODE`, else the global ones.
///
/// Returns whether the CPU was idle and is now claimed by the caller; false,
/// writing nothing, for a CPU that is not one of the running system
/// (`CpuId::from_i32()`: outside `[0, nr_cpu_ids)`, negative ones too) or a
/// node without masks.
///
/// `topo` must not be NULL: the C function dereferences it. This one
/// returns false for a NULL `topo`, which is not part of the contract.
///
/// # Safety
///
/// `topo` is NULL or points to idle.c's `struct scx_idle_topo` (see
/// `kernel/sched/sched_rust.h`), or to one of the same masks' copies that
/// lives for the call; `cpu`, if in `[0, nr_cpus)`, is a possible CPU, as
/// for idle.c's function (its kfunc callers check it); the caller does not
/// migrate to another CPU during the call (preemption, migration or
/// interrupts disabled), as for idle.c's callers: BPF programs run with
/// migration disabled, and the scheduler's own with the runqueue or
/// `pi_lock` held.
#[export]
pub unsafe extern "C" fn sched_rust_idle_test_and_clear_cpu(
    topo: *const bindings::scx_idle_topo,
    cpu: c_int,
    state: c_uint,
) -> bool {
    // SAFETY: the caller's contract is `Masks::new()`'s.
    let (Some(masks), Some(cpu)) = (unsafe { Masks::new(topo) }, CpuId::from_i32(cpu)) else {
        return false;
    };
    // SAFETY: the caller does not migrate during the call (its contract).
    let system = unsafe { System::new(masks) };
    test_and_clear_cpu(&system, cpu.as_u32(), state)
}

/// Picks and claims an idle CPU of `cpus_allowed` in the masks of `node`
/// (`NUMA_NO_NODE`: the global ones): `pick_idle_cpu_in_node()`. With SMT
/// active, a CPU of a wholly idle core first, and only such a CPU under
/// `SCX_IDLE_PICK_CORE`. Candidates come from
/// `cpumask_any_and_distribute()`, as idle.c's.
///
/// Returns the CPU, or -EBUSY if none could be claimed: for an empty
/// `cpus_allowed`, and for a `node` that is neither `NUMA_NO_NODE` nor a
/// node with masks.
///
/// No pointer may be NULL: the C function dereferences them. This one
/// returns -EBUSY for a NULL pointer, which is not part of the contract.
///
/// # Safety
///
/// As for [`sched_rust_idle_test_and_clear_cpu`]; in addition, if not NULL,
/// `cpus_allowed` is a `struct cpumask` live for the call, and the caller
/// does not migrate to another CPU during the call (preemption, migration or
/// interrupts disabled), as idle.c's pickers require of theirs:
/// `cpumask_any_and_distribute()` updates the running CPU's cursor.
#[export]
pub unsafe extern "C" fn sched_rust_idle_pick_in_node(
    topo: *const bindings::scx_idle_topo,
    cpus_allowed: *const bindings::cpumask,
    node: c_int,
    flags: u64,
    state: c_uint,
) -> i32 {
    // SAFETY: the caller's contract is `system_args()`'s.
    match unsafe { system_args(topo, cpus_allowed, node) } {
        Some((system, allowed, node)) => pick_in_node(&system, allowed, node, flags, state),
        None => -EBUSY,
    }
}

/// Picks and claims an idle CPU of `cpus_allowed`, starting in `node`:
/// `scx_pick_idle_cpu()`. Searches `node` first; stops there for
/// `NUMA_NO_NODE` or under `SCX_IDLE_PICK_IN_NODE`, else goes on through
/// the other online nodes in idle.c's cached order (nearest first, ties by
/// node id, as `for_each_node_numadist()`).
///
/// Returns the CPU or -EBUSY, as [`sched_rust_idle_pick_in_node`].
///
/// # Safety
///
/// As for [`sched_rust_idle_pick_in_node`].
#[export]
pub unsafe extern "C" fn sched_rust_idle_pick(
    topo: *const bindings::scx_idle_topo,
    cpus_allowed: *const bindings::cpumask,
    node: c_int,
    flags: u64,
    state: c_uint,
) -> i32 {
    // SAFETY: the caller's contract is `system_args()`'s.
    match unsafe { system_args(topo, cpus_allowed, node) } {
        Some((system, allowed, node)) => pick(&system, allowed, node, flags, state),
        None => -EBUSY,
    }
}

// Described machines, for the tests and the benchmark (documented in
// their file).
#[cfg(any(CONFIG_SCHED_RUST_KUNIT_TEST, CONFIG_SCHED_RUST_BENCH))]
#[path = "idle_pick_machine.rs"]
pub mod machine;

/// The exports on bad input. (`idle_pick_kunit.c` compares the C and Rust
/// pickers at length.)
#[cfg(CONFIG_SCHED_RUST_KUNIT_TEST)]
#[kunit_tests(sched_rust_idle_pick_rust)]
mod tests {
    use super::machine::*;
    use super::*;

    /// A `struct scx_idle_node_order` of two nodes: the same layout.
    #[repr(C)]
    struct Order {
        rcu: bindings::callback_head,
        order: [u16; 4],
    }

    /// Two nodes of two 2-thread cores each: CPUs 0-3 on node 0, 4-7 on 1.
    struct Machine {
        cpu: [[c_ulong; 1]; 3],
        smt: [[c_ulong; 1]; 3],
        siblings: [[c_ulong; 1]; 4],
        cpu_node: [c_int; 8],
        online: [c_ulong; 1],
        distance: [c_uint; 4],
        order: Order,
        /// Whether the machine publishes its order.
        ordered: bool,
    }

    fn machine() -> Machine {
        Machine {
            // Node 0: every CPU idle; node 1: CPU 5 only; global: both.
            cpu: [[0x0f], [0x20], [0x2f]],
            smt: [[0x0f], [0], [0x0f]],
            siblings: [[0x03], [0x0c], [0x30], [0xc0]],
            cpu_node: [0, 0, 0, 0, 1, 1, 1, 1],
            online: [0x3],
            distance: [10, 20, 20, 10],
            order: Order {
                rcu: bindings::callback_head {
                    next: core::ptr::null_mut(),
                    func: None,
                },
                order: [0, 1, 1, 0],
            },
            ordered: true,
        }
    }

    fn with_view<R>(
        m: &mut Machine,
        cursor: &mut c_uint,
        f: impl FnOnce(*const bindings::scx_idle_machine) -> R,
    ) -> R {
        let siblings: [*const c_ulong; 8] = core::array::from_fn(|cpu| {
            m.siblings
                .get(cpu / 2)
                .map_or(core::ptr::null(), |s| s.as_ptr())
        });
        let table: *mut bindings::scx_idle_node_order = if m.ordered {
            (&raw mut m.order).cast()
        } else {
            core::ptr::null_mut()
        };
        let [cpu0, cpu1, cpug] = &mut m.cpu;
        let [smt0, smt1, smtg] = &mut m.smt;
        let nodes = [
            bindings::scx_idle_masks {
                cpu: cpu0.as_mut_ptr(),
                smt: smt0.as_mut_ptr(),
            },
            bindings::scx_idle_masks {
                cpu: cpu1.as_mut_ptr(),
                smt: smt1.as_mut_ptr(),
            },
        ];
        let machine = bindings::scx_idle_machine {
            topo: bindings::scx_idle_topo {
                nr_cpus: 8,
                nr_nodes: 2,
                global: bindings::scx_idle_masks {
                    cpu: cpug.as_mut_ptr(),
                    smt: smtg.as_mut_ptr(),
                },
                nodes: nodes.as_ptr(),
                online_nodes: m.online.as_ptr(),
                node_order: &table,
            },
            smt_siblings: siblings.as_ptr(),
            cpu_node: m.cpu_node.as_ptr(),
            distance: m.distance.as_ptr(),
            cursor,
            on_masks: None,
        };
        f(&machine)
    }

    const SMT_NODE: c_uint = STATE_SMT_ACTIVE | STATE_PER_NODE;

    #[test]
    fn bad_input_claims_nothing() {
        let mut m = machine();
        let all: [c_ulong; 1] = [!0];
        let mut cursor: c_uint = 0;
        with_view(&mut m, &mut cursor, |mach| {
            let p = all.as_ptr();
            // Not a whole `struct cpumask`, but the picks on a NULL `topo`
            // return before they read the allowed mask.
            let possible = p.cast::<bindings::cpumask>();
            // SAFETY: `mach` is a valid machine of 8 CPUs and `all` has 64
            // bits; NULL is allowed for each pointer.
            unsafe {
                assert!(!sched_rust_idle_test_and_clear_cpu(core::ptr::null(), 0, 0));
                assert_eq!(
                    sched_rust_idle_pick(core::ptr::null(), possible, 0, 0, 0),
                    -EBUSY
                );
                assert_eq!(
                    sched_rust_idle_pick_in_node(core::ptr::null(), possible, 0, 0, 0),
                    -EBUSY
                );
                assert!(!sched_rust_idle_machine_test_and_clear_cpu(
                    core::ptr::null(),
                    0,
                    0
                ));
                assert!(!sched_rust_idle_machine_test_and_clear_cpu(
                    mach, -1, SMT_NODE
                ));
                assert!(!sched_rust_idle_machine_test_and_clear_cpu(
                    mach, 8, SMT_NODE
                ));
                assert_eq!(
                    sched_rust_idle_machine_pick(core::ptr::null(), p, 0, 0, 0),
                    -EBUSY
                );
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, core::ptr::null(), 0, 0, 0),
                    -EBUSY
                );
                // Nodes that are not nodes: -2, and 2 of a 2-node machine.
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, p, -2, 0, SMT_NODE),
                    -EBUSY
                );
                assert_eq!(
                    sched_rust_idle_machine_pick_in_node(mach, p, 2, 0, SMT_NODE),
                    -EBUSY
                );
            }
        });
        // Nothing was claimed.
        assert_eq!(m.cpu, machine().cpu);
        assert_eq!(m.smt, machine().smt);
    }

    #[test]
    fn picks_spill_to_the_next_node() {
        let mut m = machine();
        let only_node1: [c_ulong; 1] = [0xf0];
        let none: [c_ulong; 1] = [0];
        let mut cursor: c_uint = 0;
        with_view(&mut m, &mut cursor, |mach| {
            // SAFETY: as in `bad_input_claims_nothing`.
            unsafe {
                // Empty allowed mask: nothing.
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, none.as_ptr(), 0, 0, SMT_NODE),
                    -EBUSY
                );
                // Core-only from node 0 over node 1's CPUs: no idle core.
                let p = only_node1.as_ptr();
                let core = u64::from(bindings::SCX_IDLE_PICK_CORE);
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, p, 0, core, SMT_NODE),
                    -EBUSY
                );
                // In node 0 only: nothing; across nodes: CPU 5.
                let in_node = u64::from(bindings::SCX_IDLE_PICK_IN_NODE);
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, p, 0, in_node, SMT_NODE),
                    -EBUSY
                );
                assert_eq!(sched_rust_idle_machine_pick(mach, p, 0, 0, SMT_NODE), 5);
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, p, 0, 0, SMT_NODE),
                    -EBUSY
                );
            }
        });
        assert_eq!(cursor, 5);
        assert_eq!(m.cpu[1], [0]);
    }

    /// Without a node order (idle.c had no memory for one), the walk goes
    /// by distance, to the same CPU.
    #[test]
    fn picks_spill_by_distance_without_an_order() {
        let mut m = machine();
        m.ordered = false;
        let only_node1: [c_ulong; 1] = [0xf0];
        let mut cursor: c_uint = 0;
        with_view(&mut m, &mut cursor, |mach| {
            let p = only_node1.as_ptr();
            // SAFETY: as in `bad_input_claims_nothing`.
            unsafe {
                assert_eq!(sched_rust_idle_machine_pick(mach, p, 0, 0, SMT_NODE), 5);
                assert_eq!(
                    sched_rust_idle_machine_pick(mach, p, 0, 0, SMT_NODE),
                    -EBUSY
                );
            }
        });
        assert_eq!(m.cpu[1], [0]);
    }

    /// A claim with SMT active removes the CPU's whole core from `smt`, also
    /// where the core sits in the top bits of a word: the clear of a core is
    /// one `atomic_long_andnot()` of the word, which must not lose the upper
    /// half of its mask (as the 32-bit `atomic_andnot()` would on a 64-bit
    /// kernel).
    #[test]
    fn claim_clears_a_core_in_the_top_bits() {
        const BITS: usize = usize::BITS as usize;
        let (cpu, sibling) = (BITS - 2, BITS - 1);
        let core: c_ulong = (1 << cpu) | (1 << sibling);
        let mut cpus: [c_ulong; 1] = [core | 1];
        let mut smt: [c_ulong; 1] = [core | 1];
        let core_mask: [c_ulong; 1] = [core];
        let siblings: [*const c_ulong; BITS] = core::array::from_fn(|c| {
            if c == cpu || c == sibling {
                core_mask.as_ptr()
            } else {
                core::ptr::null()
            }
        });
        let cpu_node = [0 as c_int; BITS];
        let mut cursor: c_uint = 0;
        let machine = bindings::scx_idle_machine {
            topo: bindings::scx_idle_topo {
                nr_cpus: usize::BITS,
                nr_nodes: 1,
                global: bindings::scx_idle_masks {
                    cpu: cpus.as_mut_ptr(),
                    smt: smt.as_mut_ptr(),
                },
                nodes: core::ptr::null(),
                online_nodes: core::ptr::null(),
                node_order: core::ptr::null(),
            },
            smt_siblings: siblings.as_ptr(),
            cpu_node: cpu_node.as_ptr(),
            distance: core::ptr::null(),
            cursor: &mut cursor,
            on_masks: None,
        };
        // SAFETY: a valid machine of `usize::BITS` CPUs, one word per mask;
        // its masks are used only through it during the call.
        let claimed = unsafe {
            sched_rust_idle_machine_test_and_clear_cpu(&machine, cpu as c_int, STATE_SMT_ACTIVE)
        };
        assert!(claimed);
        assert_eq!(cpus, [(1 << sibling) | 1]);
        assert_eq!(smt, [1]);
    }

    #[test]
    fn node_order_bad_input() {
        let distance: [c_uint; 4] = [10, 20, 20, 10];
        let mut order = [7u16; 4];
        // SAFETY: both arrays have 4 = 2² entries; NULL is allowed.
        unsafe {
            assert!(!sched_rust_idle_build_node_order(
                core::ptr::null(),
                2,
                order.as_mut_ptr()
            ));
            assert!(!sched_rust_idle_build_node_order(
                distance.as_ptr(),
                70000,
                order.as_mut_ptr()
            ));
            assert_eq!(order, [7; 4]);
            assert!(sched_rust_idle_build_node_order(
                distance.as_ptr(),
                2,
                order.as_mut_ptr()
            ));
        }
        assert_eq!(order, [0, 1, 1, 0]);
    }
}
