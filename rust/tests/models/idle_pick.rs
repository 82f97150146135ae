// SPDX-License-Identifier: GPL-2.0

//! The sched_ext idle picker: a transcription of idle.c's functions over
//! plain vectors, with the C node walk (`for_each_node_numadist()`: the
//! nearest unvisited node each time), and a [`Topology`] on those vectors
//! for the Rust picker.

#![allow(clippy::needless_range_loop)] // the model reads like the C it transcribes

use sched_rust_core::idle_pick::{
    build_node_order, Bits, IdleMasks, Topology, EBUSY, PICK_IDLE_CORE, PICK_IDLE_IN_NODE,
    STATE_PER_NODE, STATE_SMT_ACTIVE,
};
use sched_rust_core::sync::Word;

pub const W: usize = usize::BITS as usize;

pub fn words(bits: &[bool]) -> Vec<Word> {
    let w: Vec<Word> = (0..bits.len().div_ceil(W).max(1))
        .map(|_| Word::new(0))
        .collect();
    for (i, &b) in bits.iter().enumerate() {
        if b {
            w[i / W].set_bit((i % W) as u32);
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
            last.write(last.read() | usize::MAX << (bits.len() % W));
        }
    }
    w.push(Word::new(usize::MAX));
    w
}

pub fn bools(w: &[Word], n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| w[i / W].read() & (1 << (i % W)) != 0)
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

pub struct Topo {
    pub m: Machine,
    pub siblings: Vec<Vec<Word>>,
    pub cpu: Vec<Vec<Word>>,
    pub smt: Vec<Vec<Word>>,
    pub order: Vec<u16>,
}

impl Topo {
    pub fn new(m: &Machine) -> Self {
        let mut order = vec![0u16; m.nr_nodes * m.nr_nodes];
        assert!(build_node_order(&m.distance, m.nr_nodes as u32, &mut order));
        Topo {
            siblings: m.siblings.iter().map(|s| padded_words(s)).collect(),
            cpu: m.cpu.iter().map(|s| padded_words(s)).collect(),
            smt: m.smt.iter().map(|s| padded_words(s)).collect(),
            order,
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
    fn nr_cpus(&self) -> u32 {
        self.m.nr_cpus as u32
    }
    fn smt_siblings(&self, cpu: u32) -> Option<&Bits> {
        self.siblings.get(cpu as usize).map(|v| v.as_slice())
    }
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        self.m.cpu_node.get(cpu as usize).map(|&n| n as i32)
    }
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_>> {
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
    fn node_online(&self, node: u32) -> bool {
        self.m.online.get(node as usize).copied().unwrap_or(false)
    }
    fn node_order(&self, node: u32) -> &[u16] {
        let n = self.m.nr_nodes;
        self.order
            .get(node as usize * n..(node as usize + 1) * n)
            .unwrap_or(&[])
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
    pub fn distribute(&mut self, mask: &[bool], allowed: &[bool]) -> Option<usize> {
        let n = self.m.nr_cpus;
        let start = (self.cursor as usize + 1) % n.max(1);
        let found = (start..n)
            .chain(0..start)
            .find(|&c| mask[c] && allowed[c])?;
        self.cursor = found as u32;
        Some(found)
    }
    pub fn in_node(&mut self, allowed: &[bool], node: Option<u32>, flags: u64, state: u32) -> i32 {
        let i = self.set(node);
        loop {
            let mut cpu = None;
            if state & STATE_SMT_ACTIVE != 0 {
                let smt = self.m.smt[i].clone();
                cpu = self.distribute(&smt, allowed);
                if cpu.is_none() && flags & PICK_IDLE_CORE != 0 {
                    return -EBUSY;
                }
            }
            let cpu = match cpu {
                Some(c) => c,
                None => {
                    let m = self.m.cpu[i].clone();
                    match self.distribute(&m, allowed) {
                        Some(c) => c,
                        None => return -EBUSY,
                    }
                }
            };
            if self.test_and_clear(cpu, state) {
                return cpu as i32;
            }
        }
    }
    pub fn pick(&mut self, allowed: &[bool], node: Option<u32>, flags: u64, state: u32) -> i32 {
        let cpu = self.in_node(allowed, node, flags, state);
        if cpu >= 0 {
            return cpu;
        }
        let Some(start) = node else { return -EBUSY };
        if flags & PICK_IDLE_IN_NODE != 0 {
            return -EBUSY;
        }
        let nn = self.m.nr_nodes;
        let mut unvisited: Vec<bool> = self.m.online.clone();
        unvisited[start as usize] = false;
        // for_each_node_numadist(): the nearest unvisited node, lowest id first.
        loop {
            let mut best: Option<(u32, usize)> = None;
            for n in 0..nn {
                if unvisited[n] {
                    let d = self.m.distance[start as usize * nn + n];
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, n));
                    }
                }
            }
            let Some((_, n)) = best else { return -EBUSY };
            unvisited[n] = false;
            let cpu = self.in_node(allowed, Some(n as u32), flags, state);
            if cpu >= 0 {
                return cpu;
            }
        }
    }
}
