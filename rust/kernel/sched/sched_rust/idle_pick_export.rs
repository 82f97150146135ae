// SPDX-License-Identifier: GPL-2.0

//! Boundary of the sched_ext idle picker: `struct scx_idle_topo` of
//! `kernel/sched/sched_rust.h`.
//!
//! The C view holds raw pointers to the idle masks, the SMT sibling masks
//! and the node tables; [`View`] reads them for the core in
//! [`super::idle_pick`]. One call from C runs a whole pick.

use super::idle_pick::{
    build_node_order,
    pick,
    pick_in_node,
    test_and_clear_cpu,
    Bits,
    Cursor,
    IdleMasks,
    Topology,
    EBUSY,
    NUMA_NO_NODE,
    PICK_IDLE_CORE,
    PICK_IDLE_IN_NODE,
    STATE_PER_NODE,
    STATE_SMT_ACTIVE, //
};
use super::sync::{
    read_once_i32,
    read_once_ptr,
    Word, //
};
use kernel::{
    bindings,
    ffi::{
        c_int,
        c_uint,
        c_ulong, //
    },
    prelude::*,
};

// The C flags and the core's are the same bits, and its errno and node
// constants are C's.
const _: () = assert!(bindings::EBUSY as i32 == EBUSY);
const _: () = assert!(bindings::NUMA_NO_NODE == NUMA_NO_NODE);
const _: () = assert!(bindings::SCX_IDLE_PICK_CORE as u64 == PICK_IDLE_CORE);
const _: () = assert!(bindings::SCX_IDLE_PICK_IN_NODE as u64 == PICK_IDLE_IN_NODE);
const _: () = assert!(bindings::SCX_IDLE_STATE_SMT_ACTIVE == STATE_SMT_ACTIVE);
const _: () = assert!(bindings::SCX_IDLE_STATE_PER_NODE == STATE_PER_NODE);

/// A `struct scx_idle_topo` seen as a [`Topology`].
///
/// # Invariants
///
/// `topo` satisfies the contract of [`View::new`] for `'a`.
struct View<'a> {
    topo: &'a bindings::scx_idle_topo,
    /// `unsigned long` words in a bitmap of `nr_cpus` bits.
    words: usize,
}

impl<'a> View<'a> {
    /// Views `topo`; `None` if it is NULL.
    ///
    /// # Safety
    ///
    /// If not NULL, `topo` points to a `struct scx_idle_topo` that is live
    /// for `'a` and whose pointers are valid as `sched_rust.h` documents:
    /// every bitmap has at least `nr_cpus` bits (`online_nodes`: `nr_nodes`
    /// bits), `smt_siblings` and `cpu_node` have `nr_cpus` entries, `nodes`
    /// has `nr_nodes` (a node's masks are both NULL or both valid),
    /// `node_order` is NULL or has `nr_nodes²` entries. Meanwhile, the view's
    /// arrays are not rewritten except the entries of `cpu_node` and
    /// `smt_siblings` (with `WRITE_ONCE()`), and the words of its bitmaps
    /// are written by C in whole words (see [`View::bits`]).
    #[inline]
    unsafe fn new(topo: *const bindings::scx_idle_topo) -> Option<Self> {
        // SAFETY: the caller's contract: NULL or a live view.
        let topo = unsafe { topo.as_ref() }?;
        Some(Self {
            topo,
            words: topo.nr_cpus.div_ceil(usize::BITS) as usize,
        })
    }

    /// The bitmap at `bits`, as wide as a CPU mask; empty for NULL.
    #[inline]
    fn bits(&self, bits: *const c_ulong) -> &'a Bits {
        if bits.is_null() {
            return &[];
        }
        // SAFETY: by the type invariant every CPU bitmap of the view has
        // `nr_cpus` bits, i.e. `words` whole `unsigned long`s, which have
        // the layout of `Word`. The core accesses them only through `Word`:
        // `READ_ONCE()` and the C bitops. The C writers meanwhile:
        // - the idle masks: `update_builtin_idle()` (`assign_cpu()`, and
        //   `cpumask_or()`/`cpumask_andnot()` of a core on `smt`), the C
        //   picker's claims (`cpumask_test_and_clear_cpu()`,
        //   `cpumask_andnot()`, `__cpumask_clear_cpu()`) and
        //   `reset_idle_masks()` (`cpumask_copy()`) when a scheduler is
        //   enabled;
        // - the sibling masks: the topology code under CPU hotplug;
        // - `cpus_allowed`: nothing while the pick runs (the task's mask is
        //   stable under its `pi_lock`/rq lock, a BPF mask is the caller's).
        // On a `cpu` mask every C writer but `reset_idle_masks()` is an
        // atomic bitop, so a claim races only with atomics; it is the fully
        // ordered `test_and_clear_bit()`, one winner per CPU, as upstream.
        // The `smt` masks are rewritten with plain read-modify-writes of
        // whole words, racing with the pickers (and with each other) by
        // design, as upstream's do: a word is stored whole, never torn, so
        // a `READ_ONCE()` sees an old or a new word; a racing plain update
        // may undo a core's removal from `smt`, which upstream accepts (the
        // mask is a hint, the claim on `cpu` decides).
        unsafe { core::slice::from_raw_parts(bits.cast::<Word>(), self.words) }
    }

    /// Entry `i` of the view's array `array` of `len` entries.
    #[inline]
    fn entry<T: Copy>(array: *const T, len: c_uint, i: u32) -> Option<T> {
        if array.is_null() || i >= len {
            return None;
        }
        // SAFETY: `array` has `len` entries (type invariant) and `i < len`;
        // the arrays read this way are written only when the view is built,
        // before any pick.
        Some(unsafe { *array.add(i as usize) })
    }
}

impl Topology for View<'_> {
    #[inline]
    fn nr_cpus(&self) -> u32 {
        self.topo.nr_cpus
    }

    #[inline]
    fn smt_siblings(&self, cpu: u32) -> Option<&Bits> {
        let array = self.topo.smt_siblings;
        if array.is_null() || cpu >= self.topo.nr_cpus {
            return None;
        }
        // SAFETY: `smt_siblings` has `nr_cpus` entries (type invariant) and
        // `cpu < nr_cpus`; its only writer, the glue, rewrites an entry with
        // `WRITE_ONCE()` when it refreshes the view (enable, CPU hotplug:
        // with `CPUMASK_OFFSTACK` the masks exist only after boot), and this
        // is the matching `READ_ONCE()`.
        let siblings = unsafe { read_once_ptr(array.add(cpu as usize)) };
        Some(self.bits(siblings))
    }

    #[inline]
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        let cpu_node = self.topo.cpu_node;
        if cpu_node.is_null() || cpu >= self.topo.nr_cpus {
            return None;
        }
        // SAFETY: `cpu_node` has `nr_cpus` entries (type invariant) and
        // `cpu < nr_cpus`; its only writer, the glue, updates an entry with
        // `WRITE_ONCE()` when a CPU's node changes, and this is the
        // matching `READ_ONCE()`.
        Some(unsafe { read_once_i32(cpu_node.add(cpu as usize)) })
    }

    #[inline]
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_>> {
        let masks = match node {
            None => self.topo.global,
            Some(n) => Self::entry(self.topo.nodes, self.topo.nr_nodes, n)?,
        };
        if masks.cpu.is_null() || masks.smt.is_null() {
            return None;
        }
        Some(IdleMasks {
            cpu: self.bits(masks.cpu),
            smt: self.bits(masks.smt),
        })
    }

    #[inline]
    fn node_online(&self, node: u32) -> bool {
        let online = self.topo.online_nodes;
        if online.is_null() || node >= self.topo.nr_nodes {
            return false;
        }
        // SAFETY: `online_nodes` has `nr_nodes` bits (type invariant) and
        // `node < nr_nodes`, so the word is inside it and has the layout
        // of `Word`; node hotplug sets and clears its bits with the atomic
        // `node_set_state()`/`node_clear_state()`, and this reads it with
        // `READ_ONCE()`, as `node_online()` does.
        let word = unsafe { &*online.add((node / usize::BITS) as usize).cast::<Word>() };
        word.read() & 1usize.wrapping_shl(node % usize::BITS) != 0
    }

    #[inline]
    fn node_order(&self, node: u32) -> &[u16] {
        let (order, n) = (self.topo.node_order, self.topo.nr_nodes);
        if order.is_null() || node >= n {
            return &[];
        }
        // `node < n`, so `node * n + n <= n²`, which the table holds.
        let start = (node as usize).wrapping_mul(n as usize);
        // SAFETY: `node_order` has `n²` entries (type invariant); the row
        // `[node * n, node * n + n)` lies within them, and it is written
        // only when the view is built.
        unsafe { core::slice::from_raw_parts(order.add(start), n as usize) }
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

/// The picker's arguments from C, or `None` for a NULL pointer or a node
/// that is not one.
///
/// # Safety
///
/// As for [`sched_rust_idle_pick`].
#[inline]
unsafe fn pick_args<'a>(
    topo: *const bindings::scx_idle_topo,
    cpus_allowed: *const c_ulong,
    node: c_int,
    cursor: *mut c_uint,
) -> Option<(View<'a>, &'a Bits, Option<u32>, &'a Cursor)> {
    // SAFETY: the caller's contract is `View::new()`'s.
    let view = unsafe { View::new(topo) }?;
    if cpus_allowed.is_null() || cursor.is_null() {
        return None;
    }
    let allowed = view.bits(cpus_allowed);
    // SAFETY: `cursor` is a valid, aligned `unsigned int` (the caller's
    // contract), the current CPU's; only pickers on that CPU (a pick and
    // an interrupt's) access it, all with `READ_ONCE()`/`WRITE_ONCE()`.
    let cursor = unsafe { Cursor::from_ptr(cursor) };
    Some((view, allowed, to_node(node)?, cursor))
}

/// Claims `cpu`: `scx_idle_test_and_clear_cpu()` on the view. With
/// `SCX_IDLE_STATE_SMT_ACTIVE` in `state`, the CPU's core leaves the `smt`
/// mask first (or the CPU itself, if none of its siblings is there); then
/// the CPU's `cpu` bit is atomically cleared. The masks are those of
/// `cpu_node[cpu]` with `SCX_IDLE_STATE_PER_NODE`, else the global ones.
///
/// Returns whether the CPU was idle and is now claimed by the caller; false,
/// writing nothing, for a CPU outside `[0, nr_cpus)` (negative ones too) or
/// a node without masks, as in C.
///
/// `topo` must not be NULL: the C function dereferences it. This one
/// returns false for a NULL `topo`, which is not part of the contract.
///
/// # Safety
///
/// `topo` is NULL or points to a valid, live `struct scx_idle_topo` (see
/// `kernel/sched/sched_rust.h`).
#[export]
pub unsafe extern "C" fn sched_rust_idle_test_and_clear_cpu(
    topo: *const bindings::scx_idle_topo,
    cpu: c_int,
    state: c_uint,
) -> bool {
    // SAFETY: the caller's contract is `View::new()`'s.
    let (Some(view), Ok(cpu)) = (unsafe { View::new(topo) }, u32::try_from(cpu)) else {
        return false;
    };
    test_and_clear_cpu(&view, cpu, state)
}

/// Picks and claims an idle CPU of `cpus_allowed` in the masks of `node`
/// (`NUMA_NO_NODE`: the global ones): `pick_idle_cpu_in_node()` on the view.
/// With SMT active, a CPU of a wholly idle core first, and only such a CPU
/// under `SCX_IDLE_PICK_CORE`. Candidates rotate from `*cursor`, which is
/// moved to each CPU chosen.
///
/// Returns the CPU, or -EBUSY if none could be claimed: for an empty
/// `cpus_allowed`, and for a `node` that is neither `NUMA_NO_NODE` nor a
/// node with masks, as in C.
///
/// No pointer may be NULL: the C function dereferences them. This one
/// returns -EBUSY for a NULL pointer, which is not part of the contract.
///
/// # Safety
///
/// As for [`sched_rust_idle_test_and_clear_cpu`]; in addition, if not NULL,
/// `cpus_allowed` has `nr_cpus` bits and `cursor` is an `unsigned int`, both
/// live for the call; the cursor is accessed atomically (relaxed).
#[export]
pub unsafe extern "C" fn sched_rust_idle_pick_in_node(
    topo: *const bindings::scx_idle_topo,
    cpus_allowed: *const c_ulong,
    node: c_int,
    flags: u64,
    state: c_uint,
    cursor: *mut c_uint,
) -> i32 {
    // SAFETY: the caller's contract is `pick_args()`'s.
    match unsafe { pick_args(topo, cpus_allowed, node, cursor) } {
        Some((view, allowed, node, cursor)) => {
            pick_in_node(&view, allowed, node, flags, state, cursor)
        }
        None => -EBUSY,
    }
}

/// Picks and claims an idle CPU of `cpus_allowed`, starting in `node`:
/// `scx_pick_idle_cpu()` on the view. Searches `node` first; stops there for
/// `NUMA_NO_NODE` or under `SCX_IDLE_PICK_IN_NODE`, else goes on through
/// the other online nodes nearest first, in the order of `node_order` (ties
/// by node id, as `for_each_node_numadist()`). A NULL `node_order` limits
/// the search to `node`.
///
/// Returns the CPU or -EBUSY, as [`sched_rust_idle_pick_in_node`].
///
/// # Safety
///
/// As for [`sched_rust_idle_pick_in_node`].
#[export]
pub unsafe extern "C" fn sched_rust_idle_pick(
    topo: *const bindings::scx_idle_topo,
    cpus_allowed: *const c_ulong,
    node: c_int,
    flags: u64,
    state: c_uint,
    cursor: *mut c_uint,
) -> i32 {
    // SAFETY: the caller's contract is `pick_args()`'s.
    match unsafe { pick_args(topo, cpus_allowed, node, cursor) } {
        Some((view, allowed, node, cursor)) => pick(&view, allowed, node, flags, state, cursor),
        None => -EBUSY,
    }
}

/// Fills `order` (`nr_nodes²` entries) from `distance` (`nr_nodes²`
/// entries, `[from * nr_nodes + to]`): row `n` lists every node by
/// increasing distance from `n`, ties by node id.
///
/// Returns false, writing nothing, for a NULL pointer or more nodes than a
/// `u16` can name.
///
/// # Safety
///
/// If not NULL, `distance` and `order` point to `nr_nodes²` entries each,
/// live for the call, and `order` is not accessed by anyone else meanwhile.
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
    // SAFETY: both arrays have `nr_nodes²` entries (the caller's contract)
    // and `order` is ours alone for the call.
    let (distance, order) = unsafe {
        (
            core::slice::from_raw_parts(distance, cells),
            core::slice::from_raw_parts_mut(order, cells),
        )
    };
    build_node_order(distance, nr_nodes, order)
}

/// The exports on bad input. (`idle_pick_kunit.c` compares the C and Rust
/// pickers at length.)
#[cfg(CONFIG_SCHED_RUST_KUNIT_TEST)]
#[kunit_tests(sched_rust_idle_pick_rust)]
mod tests {
    use super::*;

    /// Two nodes of two 2-thread cores each: CPUs 0-3 on node 0, 4-7 on 1.
    struct Machine {
        cpu: [[c_ulong; 1]; 3],
        smt: [[c_ulong; 1]; 3],
        siblings: [[c_ulong; 1]; 4],
        cpu_node: [c_int; 8],
        online: [c_ulong; 1],
        order: [u16; 4],
    }

    fn machine() -> Machine {
        Machine {
            // Node 0: every CPU idle; node 1: CPU 5 only; global: both.
            cpu: [[0x0f], [0x20], [0x2f]],
            smt: [[0x0f], [0], [0x0f]],
            siblings: [[0x03], [0x0c], [0x30], [0xc0]],
            cpu_node: [0, 0, 0, 0, 1, 1, 1, 1],
            online: [0x3],
            order: [0, 1, 1, 0],
        }
    }

    fn with_view<R>(m: &mut Machine, f: impl FnOnce(*const bindings::scx_idle_topo) -> R) -> R {
        let siblings: [*const c_ulong; 8] = core::array::from_fn(|cpu| {
            m.siblings
                .get(cpu / 2)
                .map_or(core::ptr::null(), |s| s.as_ptr())
        });
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
        let topo = bindings::scx_idle_topo {
            nr_cpus: 8,
            nr_nodes: 2,
            smt_siblings: siblings.as_ptr(),
            cpu_node: m.cpu_node.as_ptr(),
            global: bindings::scx_idle_masks {
                cpu: cpug.as_mut_ptr(),
                smt: smtg.as_mut_ptr(),
            },
            nodes: nodes.as_ptr(),
            online_nodes: m.online.as_ptr(),
            distance: core::ptr::null(),
            node_order: m.order.as_ptr(),
        };
        f(&topo)
    }

    const SMT_NODE: c_uint = STATE_SMT_ACTIVE | STATE_PER_NODE;

    #[test]
    fn bad_input_claims_nothing() {
        let mut m = machine();
        let all: [c_ulong; 1] = [!0];
        let mut cursor: c_uint = 0;
        with_view(&mut m, |topo| {
            // SAFETY: `topo` is a valid view of 8 CPUs, `all` has 64 bits
            // and `cursor` is ours; NULL is allowed for each pointer.
            unsafe {
                assert!(!sched_rust_idle_test_and_clear_cpu(core::ptr::null(), 0, 0));
                assert!(!sched_rust_idle_test_and_clear_cpu(topo, -1, SMT_NODE));
                assert!(!sched_rust_idle_test_and_clear_cpu(topo, 8, SMT_NODE));
                let p = all.as_ptr();
                let c = &raw mut cursor;
                assert_eq!(
                    sched_rust_idle_pick(core::ptr::null(), p, 0, 0, 0, c),
                    -EBUSY
                );
                assert_eq!(
                    sched_rust_idle_pick(topo, core::ptr::null(), 0, 0, 0, c),
                    -EBUSY
                );
                assert_eq!(
                    sched_rust_idle_pick(topo, p, 0, 0, 0, core::ptr::null_mut()),
                    -EBUSY
                );
                // Nodes that are not nodes: -2, and 2 of a 2-node view.
                assert_eq!(sched_rust_idle_pick(topo, p, -2, 0, SMT_NODE, c), -EBUSY);
                assert_eq!(
                    sched_rust_idle_pick_in_node(topo, p, 2, 0, SMT_NODE, c),
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
        with_view(&mut m, |topo| {
            let c = &raw mut cursor;
            // SAFETY: as in `bad_input_claims_nothing`.
            unsafe {
                // Empty allowed mask: nothing.
                assert_eq!(
                    sched_rust_idle_pick(topo, none.as_ptr(), 0, 0, SMT_NODE, c),
                    -EBUSY
                );
                // Core-only from node 0 over node 1's CPUs: no idle core.
                let p = only_node1.as_ptr();
                let core = u64::from(bindings::SCX_IDLE_PICK_CORE);
                assert_eq!(sched_rust_idle_pick(topo, p, 0, core, SMT_NODE, c), -EBUSY);
                // In node 0 only: nothing; across nodes: CPU 5.
                let in_node = u64::from(bindings::SCX_IDLE_PICK_IN_NODE);
                assert_eq!(
                    sched_rust_idle_pick(topo, p, 0, in_node, SMT_NODE, c),
                    -EBUSY
                );
                assert_eq!(sched_rust_idle_pick(topo, p, 0, 0, SMT_NODE, c), 5);
                assert_eq!(sched_rust_idle_pick(topo, p, 0, 0, SMT_NODE, c), -EBUSY);
            }
        });
        assert_eq!(cursor, 5);
        assert_eq!(m.cpu[1], [0]);
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
