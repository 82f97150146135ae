// SPDX-License-Identifier: GPL-2.0

//! The sched_ext idle picker: a transcription of idle.c's functions over
//! plain vectors, with lib/cpumask.c's rotation
//! (`cpumask_any_and_distribute()` over `find_next_and_bit_wrap()`) and the
//! C node walk (`for_each_node_numadist()`: the nearest unvisited node each
//! time, `nearest_node_nodemask()`), and a [`Topology`] on those vectors for
//! the Rust picker.
//!
//! idle.c's contract, which every machine and call here must respect (out
//! of it, idle.c's pick and the Rust one retry forever): a failed claim
//! works on the masks searched. [`Machine::new`] puts each CPU in the masks
//! of its own node (and in the global ones), so a pick from a node must run
//! with [`STATE_PER_NODE`] and a pick of the global masks (node `None`)
//! without it.

#![allow(clippy::needless_range_loop)] // the model reads like the C it transcribes

use sched_rust_core::bits::Bits;
use sched_rust_core::idle_pick::{
    build_node_order, distribute, CpuMask, Cursor, IdleMasks, Topology, EBUSY, PICK_IDLE_CORE,
    PICK_IDLE_IN_NODE, STATE_PER_NODE, STATE_SMT_ACTIVE,
};
use sched_rust_core::sync::{bit_mask, Relaxed, Word};

pub const W: usize = usize::BITS as usize;

pub fn words(bits: &[bool]) -> Vec<Word> {
    let w: Vec<Word> = (0..bits.len().div_ceil(W).max(1))
        .map(|_| Word::new(0))
        .collect();
    for (i, &b) in bits.iter().enumerate() {
        if b {
            w[i / W].or(bit_mask((i % W) as u32), Relaxed);
        }
    }
    w
}

/// [`words`] with every bit at and above `bits.len()` set, in the last word
/// and in one word more: the picker must ignore bits beyond `nr_cpus`, as
/// `find_next_and_bit()` does.
pub fn padded_words(bits: &[bool]) -> Vec<Word> {
    let mut w = words(bits);
    if bits.len() % W != 0 {
        if let Some(last) = w.last() {
            last.store(last.load(Relaxed) | usize::MAX << (bits.len() % W), Relaxed);
        }
    }
    w.push(Word::new(usize::MAX));
    w
}

pub fn bools(w: &[Word], n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| w[i / W].load(Relaxed) & (1 << (i % W)) != 0)
        .collect()
}

/// A synthetic machine: `threads` CPUs per core, cores spread over nodes.
#[derive(Clone, Debug)]
pub struct Machine {
    pub nr_cpus: usize,
    pub nr_nodes: usize,
    pub cpu_node: Vec<u32>,
    pub siblings: Vec<Vec<bool>>,
    pub distance: Vec<u32>,
    pub online: Vec<bool>,
    /// Per mask set (index nr_nodes is the global one): cpu and smt bits.
    pub cpu: Vec<Vec<bool>>,
    pub smt: Vec<Vec<bool>>,
}

impl Machine {
    /// `nodes` nodes of cores of `threads` SMT siblings, as many CPUs as
    /// `idle` has bools (a multiple of `nodes * threads`), CPUs spread
    /// evenly over the nodes; `distance` (`nodes²` entries; the diagonal is
    /// forced to 10), `online` (per node; node 0 is forced online), `idle`
    /// and `offline` (per CPU; 0 means offline) as given. A core is in the
    /// `smt` masks when all its CPUs are idle.
    pub fn new(
        nodes: usize,
        threads: usize,
        mut distance: Vec<u32>,
        online: Vec<bool>,
        idle: Vec<bool>,
        offline: Vec<u8>,
    ) -> Machine {
        let nr_cpus = idle.len();
        for n in 0..nodes {
            distance[n * nodes + n] = 10;
        }
        let cpu_node: Vec<u32> = (0..nr_cpus).map(|c| (c * nodes / nr_cpus) as u32).collect();
        // An offline CPU (1 in 4) is not its own sibling.
        let siblings: Vec<Vec<bool>> = (0..nr_cpus)
            .map(|c| {
                let core = c / threads;
                (0..nr_cpus)
                    .map(|o| o / threads == core && (o != c || offline[c] != 0))
                    .collect()
            })
            .collect();
        let mut cpu = vec![vec![false; nr_cpus]; nodes + 1];
        let mut smt = vec![vec![false; nr_cpus]; nodes + 1];
        for c in 0..nr_cpus {
            if idle[c] {
                cpu[cpu_node[c] as usize][c] = true;
                cpu[nodes][c] = true;
            }
        }
        for c in 0..nr_cpus {
            let core = c / threads;
            let whole = (0..nr_cpus)
                .filter(|&o| o / threads == core)
                .all(|o| idle[o]);
            if whole {
                smt[cpu_node[c] as usize][c] = true;
                smt[nodes][c] = true;
            }
        }
        let mut online = online;
        online[0] = true;
        Machine {
            nr_cpus,
            nr_nodes: nodes,
            cpu_node,
            siblings,
            distance,
            online,
            cpu,
            smt,
        }
    }
}

/// `node_distance(from, to)` of a machine's table, as C's `int`;
/// `i32::MAX` (never the nearest: `nearest_node_nodemask()` starts from
/// `INT_MAX` with a strict `<`) for a node out of range.
pub fn node_distance(m: &Machine, from: u32, to: u32) -> i32 {
    let (from, to, n) = (from as usize, to as usize, m.nr_nodes);
    if from >= n || to >= n {
        return i32::MAX;
    }
    i32::try_from(m.distance[from * n + to]).unwrap_or(i32::MAX)
}

/// The Rust picker's [`Topology`] on a [`Machine`]: the masks as words, and
/// the rotation of [`distribute`] over a cursor of its own, which stands
/// for the running CPU's `distribute_cpu_mask_prev`.
pub struct Topo {
    pub m: Machine,
    pub siblings: Vec<Vec<Word>>,
    pub cpu: Vec<Vec<Word>>,
    pub smt: Vec<Vec<Word>>,
    /// `m.online`, padded: bits past the last node are set, and the walk
    /// must never visit them (the node order has no such node).
    pub online: Vec<Word>,
    /// The node order of `m.distance` ([`build_node_order`]), as idle.c
    /// caches it: row `n` at `[n * nr_nodes]`.
    pub order: Vec<u16>,
    /// Whether the order is published: false stands for idle.c without
    /// one (no memory for it), when the walk goes by `m.distance`.
    pub ordered: bool,
    /// The rotation's cursor: 0 at first, as the model's; only ever set
    /// to a CPU below `nr_cpus`.
    pub cursor: Cursor,
}

impl Topo {
    pub fn new(m: &Machine) -> Self {
        Topo {
            siblings: m.siblings.iter().map(|s| padded_words(s)).collect(),
            cpu: m.cpu.iter().map(|s| padded_words(s)).collect(),
            smt: m.smt.iter().map(|s| padded_words(s)).collect(),
            online: padded_words(&m.online),
            order: {
                let n = m.nr_nodes;
                let mut order = vec![0u16; n * n];
                assert!(build_node_order(&m.distance, n as u32, &mut order));
                order
            },
            ordered: true,
            cursor: Cursor::new(0),
            m: m.clone(),
        }
    }
    pub fn snapshot(&self) -> (Vec<Vec<bool>>, Vec<Vec<bool>>) {
        let n = self.m.nr_cpus;
        (
            self.cpu.iter().map(|w| bools(w, n)).collect(),
            self.smt.iter().map(|w| bools(w, n)).collect(),
        )
    }
}

impl Topology for Topo {
    type Mask = Bits;
    type IdleMask = Bits;
    fn nr_cpus(&self) -> u32 {
        self.m.nr_cpus as u32
    }
    fn smt_siblings(&self, cpu: u32) -> Option<&Bits> {
        self.siblings.get(cpu as usize).map(|v| v.as_slice())
    }
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        self.m.cpu_node.get(cpu as usize).map(|&n| n as i32)
    }
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, Bits>> {
        let i = match node {
            None => self.m.nr_nodes,
            Some(n) if (n as usize) < self.m.nr_nodes => n as usize,
            Some(_) => return None,
        };
        Some(IdleMasks {
            cpu: &self.cpu[i],
            smt: &self.smt[i],
        })
    }
    fn any_and_distribute(&self, a: &Bits, b: &Bits) -> Option<u32> {
        distribute(a, b, self.m.nr_cpus as u32, &self.cursor)
    }
    fn node_online(&self, node: u32) -> bool {
        node < self.m.nr_nodes as u32 && self.online.test_cpu(node)
    }
    fn nr_nodes(&self) -> u32 {
        self.m.nr_nodes as u32
    }
    fn node_distance(&self, from: u32, to: u32) -> u32 {
        let n = self.m.nr_nodes;
        self.m.distance[from as usize * n + to as usize]
    }
    fn with_node_order<R>(&self, node: u32, walk: impl FnOnce(Option<&[u16]>) -> R) -> R {
        if !self.ordered {
            return walk(None);
        }
        let n = self.m.nr_nodes;
        let start = node as usize * n;
        walk(Some(self.order.get(start..start + n).unwrap_or(&[])))
    }
}

/// A [`Topology`] shared by several CPUs, seen from one of them: everything
/// is `inner`'s but the rotation, which has this CPU's cursor, as each CPU
/// has its own `distribute_cpu_mask_prev`.
pub struct OnCpu<'a, T> {
    pub inner: &'a T,
    pub cursor: Cursor,
}

impl<'a, T: Topology> OnCpu<'a, T> {
    /// `cursor` must be below `inner.nr_cpus()`, as a real one always is.
    pub fn new(inner: &'a T, cursor: u32) -> Self {
        assert!(cursor < inner.nr_cpus(), "cursor {cursor} out of range");
        OnCpu {
            inner,
            cursor: Cursor::new(cursor),
        }
    }
}

impl<T: Topology> Topology for OnCpu<'_, T> {
    type Mask = T::Mask;
    type IdleMask = T::IdleMask;
    fn nr_cpus(&self) -> u32 {
        self.inner.nr_cpus()
    }
    fn smt_siblings(&self, cpu: u32) -> Option<&T::Mask> {
        self.inner.smt_siblings(cpu)
    }
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        self.inner.cpu_node(cpu)
    }
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, T::IdleMask>> {
        self.inner.masks(node)
    }
    fn any_and_distribute(&self, a: &T::Mask, b: &T::Mask) -> Option<u32> {
        distribute(a, b, self.inner.nr_cpus(), &self.cursor)
    }
    fn node_online(&self, node: u32) -> bool {
        self.inner.node_online(node)
    }
    fn nr_nodes(&self) -> u32 {
        self.inner.nr_nodes()
    }
    fn node_distance(&self, from: u32, to: u32) -> u32 {
        self.inner.node_distance(from, to)
    }
    fn with_node_order<R>(&self, node: u32, walk: impl FnOnce(Option<&[u16]>) -> R) -> R {
        self.inner.with_node_order(node, walk)
    }
}

/// `find_next_and_bit()`: the first bit of `a & b` in `[offset, size)`, or
/// `size`.
fn find_next_and_bit(a: &[bool], b: &[bool], size: usize, offset: usize) -> usize {
    (offset..size).find(|&i| a[i] && b[i]).unwrap_or(size)
}

/// `find_first_and_bit()`: the first bit of `a & b` below `size`, or `size`.
fn find_first_and_bit(a: &[bool], b: &[bool], size: usize) -> usize {
    find_next_and_bit(a, b, size, 0)
}

/// `find_next_and_bit_wrap()` of include/linux/find.h, line for line.
fn find_next_and_bit_wrap(a: &[bool], b: &[bool], size: usize, offset: usize) -> usize {
    let bit = find_next_and_bit(a, b, size, offset);
    if bit < size || offset == 0 {
        return bit;
    }
    let bit = find_first_and_bit(a, b, offset);
    if bit < offset {
        bit
    } else {
        size
    }
}

/// The model: idle.c transcribed over `Machine`'s vectors.
pub struct Model {
    pub m: Machine,
    pub cursor: u32,
}

impl Model {
    pub fn set(&self, node: Option<u32>) -> usize {
        node.map_or(self.m.nr_nodes, |n| n as usize)
    }
    pub fn test_and_clear(&mut self, cpu: usize, state: u32) -> bool {
        let n = self.m.nr_cpus;
        let i = if state & STATE_PER_NODE != 0 {
            self.m.cpu_node[cpu] as usize
        } else {
            self.m.nr_nodes
        };
        if state & STATE_SMT_ACTIVE != 0 {
            let sib = self.m.siblings[cpu].clone();
            if (0..n).any(|c| sib[c] && self.m.smt[i][c]) {
                for c in 0..n {
                    if sib[c] {
                        self.m.smt[i][c] = false;
                    }
                }
            } else if self.m.smt[i][cpu] {
                self.m.smt[i][cpu] = false;
            }
        }
        std::mem::replace(&mut self.m.cpu[i][cpu], false)
    }
    /// `cpumask_any_and_distribute()` of lib/cpumask.c over the machine's
    /// CPUs, line for line, with `self.cursor` for the per-CPU
    /// `distribute_cpu_mask_prev`: `nr_cpus` or more if `a & b` is empty.
    /// The cursor is always below `nr_cpus` (it starts at 0 and is set only
    /// to a CPU found), so `prev + 1` is at most `nr_cpus`.
    pub fn distribute(&mut self, src1: &[bool], src2: &[bool]) -> usize {
        let nr = self.m.nr_cpus;
        let prev = self.cursor as usize;
        assert!(prev < nr, "cursor {prev} out of range");
        let next = find_next_and_bit_wrap(src1, src2, nr, prev + 1);
        if next < nr {
            self.cursor = next as u32;
        }
        next
    }
    /// `pick_idle_cpu_in_node()`.
    pub fn in_node(&mut self, allowed: &[bool], node: Option<u32>, flags: u64, state: u32) -> i32 {
        let i = self.set(node);
        let nr = self.m.nr_cpus;
        loop {
            let cpu = 'found: {
                if state & STATE_SMT_ACTIVE != 0 {
                    let smt = self.m.smt[i].clone();
                    let cpu = self.distribute(&smt, allowed);
                    if cpu < nr {
                        break 'found cpu;
                    }
                    if flags & PICK_IDLE_CORE != 0 {
                        return -EBUSY;
                    }
                }
                let idle = self.m.cpu[i].clone();
                let cpu = self.distribute(&idle, allowed);
                if cpu >= nr {
                    return -EBUSY;
                }
                cpu
            };
            if self.test_and_clear(cpu, state) {
                return cpu as i32;
            }
        }
    }
    /// `nearest_node_nodemask()`: `MAX_NUMNODES` (here `usize::MAX`) if
    /// no node of `mask` is nearer than `INT_MAX`.
    pub fn nearest_node(&self, node: u32, mask: &[bool]) -> usize {
        let (mut min_dist, mut min_node) = (i32::MAX, usize::MAX);
        for n in 0..mask.len() {
            if mask[n] {
                let dist = node_distance(&self.m, node, n as u32);
                if dist < min_dist {
                    min_dist = dist;
                    min_node = n;
                }
            }
        }
        min_node
    }
    /// The nodes that `pick_idle_cpu_from_online_nodes()` visits from
    /// `start`, in order: `for_each_node_numadist()` over the online nodes
    /// but `start`.
    pub fn walk(&self, start: u32) -> Vec<u32> {
        let mut unvisited = self.m.online.clone();
        unvisited[start as usize] = false;
        let mut order = Vec::new();
        loop {
            let n = self.nearest_node(start, &unvisited);
            if n >= unvisited.len() {
                return order;
            }
            order.push(n as u32);
            unvisited[n] = false;
        }
    }
    /// `scx_pick_idle_cpu()`.
    pub fn pick(&mut self, allowed: &[bool], node: Option<u32>, flags: u64, state: u32) -> i32 {
        let cpu = self.in_node(allowed, node, flags, state);
        if cpu >= 0 {
            return cpu;
        }
        let Some(start) = node else { return -EBUSY };
        if flags & PICK_IDLE_IN_NODE != 0 {
            return -EBUSY;
        }
        // pick_idle_cpu_from_online_nodes(): nodes_copy() of the online
        // nodes, node_clear() of the start, then the walk.
        let mut unvisited = self.m.online.clone();
        unvisited[start as usize] = false;
        loop {
            let n = self.nearest_node(start, &unvisited);
            if n >= unvisited.len() {
                return -EBUSY;
            }
            let cpu = self.in_node(allowed, Some(n as u32), flags, state);
            if cpu >= 0 {
                return cpu;
            }
            unvisited[n] = false;
        }
    }
}
