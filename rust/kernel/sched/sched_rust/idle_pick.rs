// SPDX-License-Identifier: GPL-2.0

//! Idle CPU picking of sched_ext's built-in idle policy, per NUMA node.
//!
//! C header: [`kernel/sched/ext/idle_pick.h`](srctree/kernel/sched/ext/idle_pick.h) (idle.c's
//! own functions, the baseline).
//!
//! The view: [`kernel/sched/sched_rust.h`](srctree/kernel/sched/sched_rust.h).
//!
//! sched_ext tracks idle CPUs in two bitmaps per NUMA node (or in one global
//! pair when the BPF scheduler did not ask for per-node tracking): `cpu`, one
//! bit per idle CPU, and `smt`, one bit per CPU whose whole SMT core is idle.
//! The series "sched_ext: split global idle cpumask into per-NUMA cpumasks"
//! (Andrea Righi, merged for 6.15) introduced the per-node pairs; this module
//! is the picking half of `kernel/sched/ext/idle.c`:
//!
//! - [`test_and_clear_cpu`] claims one CPU. With SMT active it first removes
//!   the CPU's core from `smt` (the core is no longer wholly idle, whether
//!   or not the claim succeeds). An offline CPU is not its own sibling: if
//!   none of its siblings is in `smt`, its own bit is cleared instead, or a
//!   picker that found it there would find it again forever. The claim is
//!   upstream's `test_and_clear_bit()` of the `cpu` bit, atomic and fully
//!   ordered, so exactly one of several racing pickers wins a CPU.
//! - [`pick_in_node`] picks in one node: a CPU of a wholly idle core first
//!   when SMT is active (giving up with `-EBUSY` under
//!   [`PICK_IDLE_CORE`]), then any idle CPU; it retries when another picker
//!   won the claim, as long as idle.c's loop does. Each failed claim
//!   removes the candidate (or its core) from the mask it came from, so the
//!   retries end whenever the claim works on the masks searched, which is
//!   idle.c's contract.
//! - [`pick`] searches the start node first, stops there for the global
//!   masks or under [`PICK_IDLE_IN_NODE`], and otherwise goes on through
//!   the other online nodes in increasing distance: idle.c's walk over its
//!   order of nodes (`scx_idle_node_order`: by distance, ties by node id,
//!   the order of `for_each_node_numadist()`), O(N) in the number of
//!   nodes, as in C. idle.c rebuilds that order when the scheduler rebuilds
//!   its NUMA topology and publishes it with RCU; while it has none (no
//!   memory for it), both walk the nodes by distance at each step, O(N²),
//!   over the online nodes copied when the walk starts, as upstream's.
//!
//! The picker is a drop-in for idle.c's: for the same state it gives the
//! same answer and leaves the same masks. Everything it reads of the system
//! comes from its [`Topology`], which the kernel implements on the live
//! system (`cpu_smt_mask()`, `cpu_to_node()`, `node_distance()`, the online
//! nodes, idle.c's node order) and whose rotation is `cpumask_any_and_distribute()` itself, with
//! lib/cpumask.c's per-CPU cursor; tests implement it on described machines,
//! with [`distribute`], a transcription of that function over a cursor of
//! their own.
//!
//! This file uses only `core`: it is compiled into vmlinux through
//! `kernel/sched/sched_rust.rs`, and into a userspace crate for property
//! tests. It never panics: no indexing, no unchecked arithmetic, no
//! `unwrap()`.

use super::sync::{
    Atomic,
    Relaxed, //
};

/// `-EBUSY`: no idle CPU could be claimed.
pub const EBUSY: i32 = 16;

/// `NUMA_NO_NODE`: a CPU of no node, whose idle bits are in the global
/// masks.
pub const NUMA_NO_NODE: i32 = -1;

/// Pick flag: only CPUs of wholly idle cores (`SCX_PICK_IDLE_CORE`).
pub const PICK_IDLE_CORE: u64 = 1 << 0;
/// Pick flag: only the start node (`SCX_PICK_IDLE_IN_NODE`).
pub const PICK_IDLE_IN_NODE: u64 = 1 << 1;

/// Whether `sched_smt_active()`: the `smt` masks are maintained and used.
pub const STATE_SMT_ACTIVE: u32 = 1 << 0;
/// Whether per-node idle tracking is on (`SCX_OPS_BUILTIN_IDLE_PER_NODE`):
/// a CPU's bits then live in the masks of its node, else in the global ones.
pub const STATE_PER_NODE: u32 = 1 << 1;

/// The reads the picker makes of a mask of CPUs: idle.c's cpumask
/// operations, one method each.
///
/// The picker never reads or writes a mask's memory itself: C updates the
/// idle masks with plain stores (`update_builtin_idle()`'s
/// `cpumask_or()`/`cpumask_andnot()`, `reset_idle_masks()` and hotplug's
/// `cpumask_clear()`), so in the kernel each method is the kernel's own C
/// operation on the mask (`kernel::cpumask::Cpumask`), the very code
/// idle.c runs. The userspace crate implements them on a model.
///
/// `nbits` is the number of CPUs of the topology: bits at and above it are
/// not part of the mask.
pub trait CpuMask {
    /// Whether `cpu` is in the mask: `cpumask_test_cpu()`.
    fn test_cpu(&self, cpu: u32) -> bool;
    /// Whether `self & other` has a CPU: `cpumask_intersects()`.
    fn intersects(&self, other: &Self, nbits: u32) -> bool;
    /// The first CPU of `self & other` in `[from, nbits)`:
    /// `find_next_and_bit()`.
    fn find_next_and(&self, other: &Self, nbits: u32, from: u32) -> Option<u32>;
}

/// An idle mask, which the picker also writes: reading a mask and writing
/// it are different capabilities, and only the idle masks have the second
/// (the SMT sibling masks and a pick's allowed mask are [`CpuMask`]s only).
///
/// Every write is atomic: the kernel's is `kernel::cpumask::AtomicCpumask`,
/// whose methods are the atomic cpumask operations.
pub trait IdleMask {
    /// The mask type of the reads, and of the masks the writes take.
    type Mask: CpuMask + ?Sized;
    /// The mask, for the reads.
    fn as_mask(&self) -> &Self::Mask;
    /// Removes `cpu`: idle.c's `__cpumask_clear_cpu()`. The kernel's is the
    /// atomic `cpumask_clear_cpu()`, which leaves the same bits and loses no
    /// concurrent update of the word.
    fn clear_cpu(&self, cpu: u32);
    /// Removes `cpu` and returns whether it was there:
    /// `cpumask_test_and_clear_cpu()`, atomic and fully ordered, so that
    /// exactly one of several racing callers sees it.
    fn test_and_clear_cpu(&self, cpu: u32) -> bool;
    /// `self &= !other`: idle.c's `cpumask_andnot(self, self, other)`. The
    /// kernel's removes each CPU of `other` with the atomic
    /// `cpumask_clear_cpu()`, which leaves the same bits and loses no
    /// concurrent update of the word.
    fn andnot(&self, other: &Self::Mask, nbits: u32);
}

/// The idle masks of one node, or the global ones.
pub struct IdleMasks<'a, M: ?Sized> {
    /// One bit per idle CPU.
    pub cpu: &'a M,
    /// One bit per CPU whose SMT core is wholly idle.
    pub smt: &'a M,
}

impl<M: ?Sized> Clone for IdleMasks<'_, M> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<M: ?Sized> Copy for IdleMasks<'_, M> {}

/// What the picker reads of the machine: the kernel implements it on the
/// running system, the tests on described machines.
///
/// A node is `None` for the global masks (`NUMA_NO_NODE`), `Some(n)` for the
/// masks of node `n`.
pub trait Topology {
    /// The type of the masks the picker reads: the kernel's `Cpumask` on
    /// the running system.
    type Mask: CpuMask + ?Sized;
    /// The type of the idle masks, which the picker also writes: the
    /// kernel's `AtomicCpumask` on the running system.
    type IdleMask: IdleMask<Mask = Self::Mask> + ?Sized;
    /// The number of possible CPU ids (`nr_cpu_ids`); every mask has at least
    /// this many bits.
    fn nr_cpus(&self) -> u32;
    /// The SMT siblings of `cpu` (`cpu_smt_mask()`); `None` for a CPU out of
    /// range.
    fn smt_siblings(&self, cpu: u32) -> Option<&Self::Mask>;
    /// The node of `cpu` as `cpu_to_node()` gives it ([`NUMA_NO_NODE`] for
    /// none); `None` for a CPU out of range.
    fn cpu_node(&self, cpu: u32) -> Option<i32>;
    /// The idle masks of `node`; `None` for a node out of range.
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, Self::IdleMask>>;
    /// `cpumask_any_and_distribute(a, b)`: the first CPU of `a & b` after
    /// the rotation's cursor, wrapping around; the cursor moves to the CPU
    /// found. `None` if `a & b` has no CPU below [`Topology::nr_cpus`]; a
    /// CPU returned is always below it (the claim relies on that).
    fn any_and_distribute(&self, a: &Self::Mask, b: &Self::Mask) -> Option<u32>;
    /// Whether `node` is online (`node_online()`); false for a node out of
    /// range.
    fn node_online(&self, node: u32) -> bool;
    /// The number of node ids (`nr_node_ids`).
    fn nr_nodes(&self) -> u32;
    /// `node_distance(from, to)`, which only the walk without a node order
    /// reads (a distance above `u32::MAX` cannot be; a negative one reads as
    /// `u32::MAX`).
    fn node_distance(&self, from: u32, to: u32) -> u32;
    /// Calls `walk` with `node`'s row of the node order: every node of the
    /// machine by increasing distance from `node`, ties by node id (idle.c's
    /// `scx_idle_node_order`, as [`build_node_order`] fills it), valid for
    /// the call (the running system holds the RCU read lock meanwhile); an
    /// empty row for a node out of range or a machine that does not walk
    /// across nodes (`!CONFIG_NUMA`). With `None` when the machine has no
    /// order now: the walk then goes by [`Topology::node_distance`].
    fn with_node_order<R>(&self, node: u32, walk: impl FnOnce(Option<&[u16]>) -> R) -> R;
}

/// The rotating start of the candidate search of [`distribute`], as the
/// per-CPU `distribute_cpu_mask_prev` of `cpumask_any_and_distribute()`: the
/// last CPU chosen. The kernel's picker uses lib/cpumask.c's own cursor (it
/// calls `cpumask_any_and_distribute()`); this one is for described machines,
/// which must not move the running CPU's. An interrupt on the CPU may pick
/// in between, hence `READ_ONCE()`/`WRITE_ONCE()`.
pub type Cursor = Atomic<u32>;

/// The largest node count the walk across nodes handles: `MAX_NUMNODES` at
/// the largest `NODES_SHIFT` (10) any architecture allows; a node id fits a
/// `u16`. The kernel's boundary checks `MAX_NUMNODES` against it when it is
/// built.
pub const MAX_NODES: usize = 1 << 10;

/// A set of node ids below [`MAX_NODES`]: the copy of the online nodes
/// that the walk without a node order takes when it starts, as C's
/// `nodemask_t` (128 bytes at the largest `NODES_SHIFT`).
pub struct NodeSet {
    words: [usize; MAX_NODES / usize::BITS as usize],
}

impl NodeSet {
    /// The nodes of `topo` online now, each read once
    /// ([`Topology::node_online`]); nodes at or above [`MAX_NODES`] are left
    /// out (no machine has them: the kernel checks `MAX_NUMNODES` at build
    /// time).
    #[inline]
    pub fn online<T: Topology + ?Sized>(topo: &T) -> Self {
        let mut set = Self {
            words: [0; MAX_NODES / usize::BITS as usize],
        };
        for node in 0..topo.nr_nodes() {
            if topo.node_online(node) {
                set.insert(node);
            }
        }
        set
    }

    /// Adds `node`; does nothing for a node at or above [`MAX_NODES`].
    #[inline]
    fn insert(&mut self, node: u32) {
        let bit = 1usize.wrapping_shl(node % usize::BITS);
        if let Some(word) = self.words.get_mut((node / usize::BITS) as usize) {
            *word |= bit;
        }
    }

    /// Whether `node` is in the set; false at or above [`MAX_NODES`].
    #[inline]
    pub fn contains(&self, node: u32) -> bool {
        let bit = 1usize.wrapping_shl(node % usize::BITS);
        self.words
            .get((node / usize::BITS) as usize)
            .is_some_and(|word| word & bit != 0)
    }
}

/// `cpumask_any_and_distribute()` over `nbits` CPUs with `cursor` for
/// lib/cpumask.c's per-CPU one: the first CPU of `a & b` after `*cursor`,
/// wrapping around to the lowest one (which may be the cursor itself). The
/// cursor moves to the CPU found, and stays where it was if there is none.
/// For the [`Topology`] of a described machine.
// Always inlined: LLVM's threshold left it a call, which with return
// thunks costs more than its loop on a small machine.
#[inline(always)]
pub fn distribute<M: CpuMask + ?Sized>(a: &M, b: &M, nbits: u32, cursor: &Cursor) -> Option<u32> {
    let prev = cursor.load(Relaxed);
    // Searching from `nbits` or beyond is searching from 0, as in C.
    let start = prev.checked_add(1).filter(|&s| s < nbits).unwrap_or(0);
    // `find_next_and_bit_wrap()`: from `start` to the end, then from 0 to
    // `start` (`find_first_and_bit()` below `start`).
    let found = match a.find_next_and(b, nbits, start) {
        Some(cpu) => cpu,
        None => a.find_next_and(b, start, 0)?,
    };
    cursor.store(found, Relaxed);
    Some(found)
}

/// The node whose masks a claim of `cpu` works on, as
/// `scx_cpu_node_if_enabled()`: with per-node tracking the CPU's node
/// (`None`, the global masks, for `NUMA_NO_NODE`, as `idle_cpumask()`
/// maps it), else `None`. `Err` for a CPU out of range or a node no CPU can
/// have: no masks.
#[inline]
fn claim_node<T: Topology>(topo: &T, cpu: u32, state: u32) -> Result<Option<u32>, ()> {
    if state & STATE_PER_NODE == 0 {
        return Ok(None);
    }
    match topo.cpu_node(cpu).ok_or(())? {
        NUMA_NO_NODE => Ok(None),
        node => u32::try_from(node).map(Some).map_err(|_| ()),
    }
}

/// The claim of `cpu` on the masks of `node`, the node its claim works on
/// (see [`claim_node`]); false, writing nothing, for a node without masks.
#[inline(always)]
fn claim_on_node<T: Topology>(topo: &T, cpu: u32, node: Option<u32>, state: u32) -> bool {
    match topo.masks(node) {
        Some(masks) => claim_in(topo, masks, cpu, state),
        None => false,
    }
}

/// Claims `cpu`: `scx_idle_test_and_clear_cpu()`.
///
/// With SMT active, removes the CPU's core from the `smt` mask first (or,
/// if no sibling of the CPU is there, the CPU's own bit: an offline CPU is
/// not its own sibling), whether or not the claim succeeds. Then clears the
/// CPU's `cpu` bit atomically and returns whether it was set. Reads come
/// before writes, to spare cache lines.
///
/// Returns false, writing nothing, for a CPU out of range.
// Always inlined, as C's __scx_idle_test_and_clear_cpu() is: it is the
// whole of its export, and LLVM's threshold left it a call. (The picks
// claim through `claim_found()`.)
#[inline(always)]
pub fn test_and_clear_cpu<T: Topology>(topo: &T, cpu: u32, state: u32) -> bool {
    if cpu >= topo.nr_cpus() {
        return false;
    }
    match claim_node(topo, cpu, state) {
        Ok(node) => claim_on_node(topo, cpu, node, state),
        Err(()) => false,
    }
}

/// [`test_and_clear_cpu`] of `cpu`, which a search of `masks`, the masks of
/// `node`, found: `cpu` is below the topology's CPU count.
///
/// The claim works on the masks of the CPU's own node, as C's does. In
/// idle.c's contract those are the masks searched, which are at hand. Out
/// of it (a CPU whose node changed, a node's pick without per-node
/// tracking) they are looked up, out of line.
#[inline(always)]
fn claim_found<T: Topology>(
    topo: &T,
    cpu: u32,
    node: Option<u32>,
    masks: IdleMasks<'_, T::IdleMask>,
    state: u32,
) -> bool {
    match claim_node(topo, cpu, state) {
        Ok(own) if own == node => claim_in(topo, masks, cpu, state),
        Ok(own) => claim_elsewhere(topo, cpu, own, state),
        Err(()) => false,
    }
}

/// [`claim_on_node`] out of line, for [`claim_found`] of a CPU whose node
/// is not the one searched.
#[cold]
#[inline(never)]
fn claim_elsewhere<T: Topology>(topo: &T, cpu: u32, node: Option<u32>, state: u32) -> bool {
    claim_on_node(topo, cpu, node, state)
}

/// The claim of `cpu` on `masks`, the masks of its node (see
/// [`test_and_clear_cpu`]); `cpu` is below the topology's CPU count.
#[inline(always)]
fn claim_in<T: Topology>(
    topo: &T,
    masks: IdleMasks<'_, T::IdleMask>,
    cpu: u32,
    state: u32,
) -> bool {
    if state & STATE_SMT_ACTIVE != 0 {
        let nbits = topo.nr_cpus();
        match topo.smt_siblings(cpu) {
            Some(siblings) if siblings.intersects(masks.smt.as_mask(), nbits) => {
                masks.smt.andnot(siblings, nbits);
            }
            _ => {
                if masks.smt.as_mask().test_cpu(cpu) {
                    masks.smt.clear_cpu(cpu);
                }
            }
        }
    }
    masks.cpu.test_and_clear_cpu(cpu)
}

/// Picks and claims an idle CPU of `allowed` in the masks of `node`:
/// `pick_idle_cpu_in_node()`.
///
/// With SMT active, a CPU of a wholly idle core comes first; with
/// [`PICK_IDLE_CORE`] there is no other choice. Returns the CPU, or
/// `-EBUSY` if none could be claimed (or `node` is out of range).
///
/// As idle.c's, the loop ends when the claims work on the masks of `node`
/// (idle.c's contract: a CPU is in the masks of its own node, or in the
/// global ones without per-node tracking): each failed claim removes the
/// candidate, or its core, from the mask it was found in.
#[inline]
pub fn pick_in_node<T: Topology>(
    topo: &T,
    allowed: &T::Mask,
    node: Option<u32>,
    flags: u64,
    state: u32,
) -> i32 {
    match topo.masks(node) {
        Some(masks) => pick_in_masks(topo, node, masks, allowed, flags, state),
        None => -EBUSY,
    }
}

/// [`pick_in_node`] on `masks`, the masks of `node`.
// Always inlined: LLVM's threshold left it a call from `pick()`, which
// then passed the topology and the masks through the stack (callgrind, the
// userspace replica, 224 CPUs: 6-7% of the instructions of a pick).
#[inline(always)]
fn pick_in_masks<T: Topology>(
    topo: &T,
    node: Option<u32>,
    masks: IdleMasks<'_, T::IdleMask>,
    allowed: &T::Mask,
    flags: u64,
    state: u32,
) -> i32 {
    loop {
        let mut cpu = None;
        if state & STATE_SMT_ACTIVE != 0 {
            cpu = topo.any_and_distribute(masks.smt.as_mask(), allowed);
            if cpu.is_none() && flags & PICK_IDLE_CORE != 0 {
                return -EBUSY;
            }
        }
        // An `if`, not `Option::or_else()`: LLVM left the closure a call.
        if cpu.is_none() {
            cpu = topo.any_and_distribute(masks.cpu.as_mask(), allowed);
        }
        let Some(cpu) = cpu else {
            return -EBUSY;
        };
        if claim_found(topo, cpu, node, masks, state) {
            // `cpu < nr_cpus <= i32::MAX` for any real topology.
            return i32::try_from(cpu).unwrap_or(-EBUSY);
        }
    }
}

/// Searches every online node but `start`, nearest first:
/// `pick_idle_cpu_from_online_nodes()`, over `start`'s row of the node
/// order, or by distance while there is none.
#[inline]
fn pick_from_online_nodes<T: Topology>(
    topo: &T,
    allowed: &T::Mask,
    start: u32,
    flags: u64,
    state: u32,
) -> i32 {
    topo.with_node_order(start, |order| match order {
        Some(order) => pick_in_node_order(topo, order, allowed, start, flags, state),
        None => pick_by_distance(topo, allowed, start, flags, state),
    })
}

/// Searches every online node of `order` but `start`:
/// `__pick_idle_cpu_in_node_order()`. A node is searched if it is online
/// when the walk reaches it, as in C.
#[inline]
fn pick_in_node_order<T: Topology>(
    topo: &T,
    order: &[u16],
    allowed: &T::Mask,
    start: u32,
    flags: u64,
    state: u32,
) -> i32 {
    for &node in order {
        let node = u32::from(node);
        if node == start || !topo.node_online(node) {
            continue;
        }
        let cpu = pick_in_node(topo, allowed, Some(node), flags, state);
        if cpu >= 0 {
            return cpu;
        }
    }
    -EBUSY
}

/// Searches every online node but `start` without a node order:
/// `pick_idle_cpu_from_online_nodes_numadist()`, in the order of
/// `for_each_node_numadist()`. That walk copies the online nodes when it
/// starts (`nodes_copy()` of `node_states[N_ONLINE]`), then takes the
/// nearest unvisited node of the copy at each step
/// (`nearest_node_nodemask()`: ties by node id), which is the next node by
/// (distance from `start`, node id). This one copies the online nodes
/// once too ([`NodeSet::online`]), so a node that goes online or offline
/// during the walk is seen as C sees it, and finds the next node by
/// scanning every node for the smallest key above the last one: O(N²) per
/// pick, as C's.
fn pick_by_distance<T: Topology>(
    topo: &T,
    allowed: &T::Mask,
    start: u32,
    flags: u64,
    state: u32,
) -> i32 {
    let online = NodeSet::online(topo);
    let mut last: Option<(u32, u32)> = None;
    loop {
        let mut next: Option<(u32, u32)> = None;
        for node in 0..topo.nr_nodes() {
            if node == start {
                continue;
            }
            let key = (topo.node_distance(start, node), node);
            if last.is_some_and(|last| key <= last) {
                continue;
            }
            if next.is_none_or(|next| key < next) {
                next = Some(key);
            }
        }
        // Each step's key is above the last one's: the walk ends.
        let Some((_, node)) = next else {
            return -EBUSY;
        };
        last = next;
        if !online.contains(node) {
            continue;
        }
        let cpu = pick_in_node(topo, allowed, Some(node), flags, state);
        if cpu >= 0 {
            return cpu;
        }
    }
}

/// Picks and claims an idle CPU of `allowed`, starting at `node`:
/// `scx_pick_idle_cpu()`.
///
/// Searches `node` first. Stops there for the global masks (`node` is
/// `None`) or under [`PICK_IDLE_IN_NODE`]; otherwise goes on through the
/// other online nodes, nearest first. Returns the CPU or `-EBUSY`, at once
/// for a start node without masks (out of range, or not possible: out of
/// idle.c's contract, where C would read out of bounds).
#[inline]
pub fn pick<T: Topology>(
    topo: &T,
    allowed: &T::Mask,
    node: Option<u32>,
    flags: u64,
    state: u32,
) -> i32 {
    let Some(masks) = topo.masks(node) else {
        return -EBUSY;
    };
    let cpu = pick_in_masks(topo, node, masks, allowed, flags, state);
    if cpu >= 0 {
        return cpu;
    }
    match node {
        Some(start) if flags & PICK_IDLE_IN_NODE == 0 => {
            pick_from_online_nodes(topo, allowed, start, flags, state)
        }
        _ => -EBUSY,
    }
}

/// The node at `row[i]`, or 0 past the end (never reached: callers stay
/// below `row.len()`).
#[inline]
fn node_at(row: &[u16], i: usize) -> u16 {
    row.get(i).copied().unwrap_or(0)
}

/// Swaps `row[a]` and `row[b]`; nothing if either is past the end.
#[inline]
fn swap_nodes(row: &mut [u16], a: usize, b: usize) {
    let (Some(&x), Some(&y)) = (row.get(a), row.get(b)) else {
        return;
    };
    if let Some(slot) = row.get_mut(a) {
        *slot = y;
    }
    if let Some(slot) = row.get_mut(b) {
        *slot = x;
    }
}

/// Moves `row[root]` down the max-heap `row[..end]` to its place.
fn sift_down<K: Ord>(row: &mut [u16], mut root: usize, end: usize, key: &mut impl FnMut(u16) -> K) {
    loop {
        let Some(child) = root.checked_mul(2).and_then(|c| c.checked_add(1)) else {
            return;
        };
        if child >= end {
            return;
        }
        let mut larger = child;
        let right = child.wrapping_add(1);
        if right < end && key(node_at(row, child)) < key(node_at(row, right)) {
            larger = right;
        }
        if key(node_at(row, root)) >= key(node_at(row, larger)) {
            return;
        }
        swap_nodes(row, root, larger);
        root = larger;
    }
}

/// Sorts `row` by increasing `key(node)`: a heapsort, in place, with no
/// allocation, at most about `2 n log2(n)` comparisons (two `key` calls
/// each) for `n` entries whatever the order of the keys. It is not stable;
/// callers give every node a distinct key.
pub fn sort_nodes_by_key<K: Ord>(row: &mut [u16], mut key: impl FnMut(u16) -> K) {
    let len = row.len();
    let mut start = len / 2;
    while start > 0 {
        start = start.wrapping_sub(1);
        sift_down(row, start, len, &mut key);
    }
    let mut end = len;
    while end > 1 {
        end = end.wrapping_sub(1);
        swap_nodes(row, 0, end);
        sift_down(row, 0, end, &mut key);
    }
}

/// Fills `row` with the nodes `0..nodes` sorted by `(dist[node], node)`:
/// by distance, ties by id. O(n log n) (it was an insertion sort, O(n^2) a
/// row and O(n^3) for the whole order: about 5 * 10^8 comparisons at 1024
/// nodes on a table whose rows are in descending order).
fn sort_row(row: &mut [u16], dist: &[u32], nodes: u16) {
    for (slot, id) in row.iter_mut().zip(0..nodes) {
        *slot = id;
    }
    sort_nodes_by_key(row, |node| {
        (
            dist.get(usize::from(node)).copied().unwrap_or(u32::MAX),
            node,
        )
    });
}

/// Fills `order` with, for each node `n` of `nr_nodes`, every node sorted by
/// `distance[n * nr_nodes + m]` and then by `m`: row `n` is the order in
/// which `for_each_node_numadist()` visits nodes from `n` (after `n`
/// itself, whose distance is the smallest on any sane table; it is skipped
/// by the walk wherever it sorts).
///
/// Returns false, leaving `order` unspecified, if `distance` or `order` has
/// fewer than `nr_nodes²` entries or a node id does not fit `u16`.
pub fn build_node_order(distance: &[u32], nr_nodes: u32, order: &mut [u16]) -> bool {
    let Ok(nodes) = u16::try_from(nr_nodes) else {
        return false;
    };
    let n = usize::from(nodes);
    let Some(cells) = n.checked_mul(n) else {
        return false;
    };
    let (Some(distance), Some(order)) = (distance.get(..cells), order.get_mut(..cells)) else {
        return false;
    };
    if n == 0 {
        return true;
    }
    // Row by row; `split_at` rather than `chunks_exact()` and `zip()`,
    // whose length arithmetic keeps panic paths in the object.
    let (mut order, mut distance) = (order, distance);
    while let (Some((row, order_rest)), Some((dist, distance_rest))) =
        (order.split_at_mut_checked(n), distance.split_at_checked(n))
    {
        (order, distance) = (order_rest, distance_rest);
        sort_row(row, dist, nodes);
    }
    true
}
