// SPDX-License-Identifier: GPL-2.0

//! Property tests of the sched_ext idle picker against a transcription of
//! idle.c's functions over plain vectors, with the C node walk
//! (`for_each_node_numadist()`: the nearest unvisited node each time).

#![allow(clippy::needless_range_loop)] // the model reads like the C it transcribes

use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use proptest::prelude::*;
use sched_rust_core::idle_pick::{
    build_node_order, pick, pick_in_node, test_and_clear_cpu, Bits, IdleMasks, Topology, EBUSY,
    PICK_IDLE_CORE, PICK_IDLE_IN_NODE, STATE_PER_NODE, STATE_SMT_ACTIVE,
};

const W: usize = usize::BITS as usize;

fn words(bits: &[bool]) -> Vec<AtomicUsize> {
    let mut w: Vec<AtomicUsize> = (0..bits.len().div_ceil(W).max(1))
        .map(|_| AtomicUsize::new(0))
        .collect();
    for (i, &b) in bits.iter().enumerate() {
        if b {
            *w[i / W].get_mut() |= 1 << (i % W);
        }
    }
    w
}

fn bools(w: &[AtomicUsize], n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| w[i / W].load(Ordering::Relaxed) & (1 << (i % W)) != 0)
        .collect()
}

/// A synthetic machine: `threads` CPUs per core, cores spread over nodes.
#[derive(Clone, Debug)]
struct Machine {
    nr_cpus: usize,
    nr_nodes: usize,
    cpu_node: Vec<u32>,
    siblings: Vec<Vec<bool>>,
    distance: Vec<u32>,
    online: Vec<bool>,
    /// Per mask set (index nr_nodes is the global one): cpu and smt bits.
    cpu: Vec<Vec<bool>>,
    smt: Vec<Vec<bool>>,
}

struct Topo {
    m: Machine,
    siblings: Vec<Vec<AtomicUsize>>,
    cpu: Vec<Vec<AtomicUsize>>,
    smt: Vec<Vec<AtomicUsize>>,
    order: Vec<u16>,
}

impl Topo {
    fn new(m: &Machine) -> Self {
        let mut order = vec![0u16; m.nr_nodes * m.nr_nodes];
        assert!(build_node_order(&m.distance, m.nr_nodes as u32, &mut order));
        Topo {
            siblings: m.siblings.iter().map(|s| words(s)).collect(),
            cpu: m.cpu.iter().map(|s| words(s)).collect(),
            smt: m.smt.iter().map(|s| words(s)).collect(),
            order,
            m: m.clone(),
        }
    }
    fn snapshot(&self) -> (Vec<Vec<bool>>, Vec<Vec<bool>>) {
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
    fn cpu_node(&self, cpu: u32) -> Option<u32> {
        self.m.cpu_node.get(cpu as usize).copied()
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
struct Model {
    m: Machine,
    cursor: u32,
}

impl Model {
    fn set(&self, node: Option<u32>) -> usize {
        node.map_or(self.m.nr_nodes, |n| n as usize)
    }
    fn test_and_clear(&mut self, cpu: usize, state: u32) -> bool {
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
    fn distribute(&mut self, mask: &[bool], allowed: &[bool]) -> Option<usize> {
        let n = self.m.nr_cpus;
        let start = (self.cursor as usize + 1) % n.max(1);
        let found = (start..n)
            .chain(0..start)
            .find(|&c| mask[c] && allowed[c])?;
        self.cursor = found as u32;
        Some(found)
    }
    fn in_node(&mut self, allowed: &[bool], node: Option<u32>, flags: u64, state: u32) -> i32 {
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
    fn pick(&mut self, allowed: &[bool], node: Option<u32>, flags: u64, state: u32) -> i32 {
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

fn machine() -> impl Strategy<Value = Machine> {
    (1usize..=8, 1usize..=4, 1usize..=6)
        .prop_flat_map(|(nodes, threads, cores_per_node)| {
            let nr_cpus = nodes * threads * cores_per_node;
            (
                Just((nodes, threads, nr_cpus)),
                proptest::collection::vec(10u32..40, nodes * nodes),
                proptest::collection::vec(any::<bool>(), nodes),
                proptest::collection::vec(any::<bool>(), nr_cpus),
                proptest::collection::vec(0u8..4, nr_cpus),
            )
        })
        .prop_map(
            |((nodes, threads, nr_cpus), mut distance, online, idle, offline)| {
                for n in 0..nodes {
                    distance[n * nodes + n] = 10;
                }
                let cpu_node: Vec<u32> =
                    (0..nr_cpus).map(|c| (c * nodes / nr_cpus) as u32).collect();
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
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A sequence of picks: the same CPUs, the same masks after each.
    #[test]
    fn picks_match_the_model(
        m in machine(),
        ops in proptest::collection::vec((any::<u64>(), 0u64..4, 0u32..4, any::<u32>(), any::<bool>()), 1..20),
    ) {
        let topo = Topo::new(&m);
        let mut model = Model { m: m.clone(), cursor: 0 };
        let cursor = AtomicU32::new(0);
        for (allowed_seed, flags, state, node_seed, global) in ops {
            let allowed: Vec<bool> = (0..m.nr_cpus).map(|c| allowed_seed.rotate_left(c as u32 % 64) & 1 != 0 || allowed_seed % 3 == 0).collect();
            let aw = words(&allowed);
            let node = if global { None } else { Some(node_seed % m.nr_nodes as u32) };
            // Per-node claims only make sense on per-node masks, and the
            // global walk only on the global ones, as in idle.c.
            let state = if global { state & !STATE_PER_NODE } else { state | STATE_PER_NODE };
            let got = pick(&topo, &aw, node, flags, state, &cursor);
            let want = model.pick(&allowed, node, flags, state);
            prop_assert_eq!(got, want);
            prop_assert_eq!(cursor.load(Ordering::Relaxed), model.cursor);
            prop_assert_eq!(topo.snapshot(), (model.m.cpu.clone(), model.m.smt.clone()));
            // pick_in_node() on its own, too.
            let got = pick_in_node(&topo, &aw, node, flags, state, &cursor);
            let want = model.in_node(&allowed, node, flags, state);
            prop_assert_eq!(got, want);
            prop_assert_eq!(topo.snapshot(), (model.m.cpu.clone(), model.m.smt.clone()));
        }
    }

    /// Claims of any CPU, in or out of range.
    #[test]
    fn claims_match_the_model(m in machine(), cpus in proptest::collection::vec(0u32..80, 1..20), state in 0u32..4) {
        let topo = Topo::new(&m);
        let mut model = Model { m: m.clone(), cursor: 0 };
        for cpu in cpus {
            let got = test_and_clear_cpu(&topo, cpu, state);
            let want = (cpu as usize) < m.nr_cpus && model.test_and_clear(cpu as usize, state);
            prop_assert_eq!(got, want);
            prop_assert_eq!(topo.snapshot(), (model.m.cpu.clone(), model.m.smt.clone()));
        }
    }

    /// The cached order is the order of `for_each_node_numadist()`.
    #[test]
    fn node_order_is_nearest_first(nodes in 1usize..=32, d in proptest::collection::vec(10u32..255, 32 * 32)) {
        let mut order = vec![0u16; nodes * nodes];
        prop_assert!(build_node_order(&d, nodes as u32, &mut order));
        for s in 0..nodes {
            let mut want: Vec<u16> = (0..nodes as u16).collect();
            want.sort_by_key(|&n| (d[s * nodes + n as usize], n));
            prop_assert_eq!(&order[s * nodes..(s + 1) * nodes], &want[..]);
        }
    }
}

#[test]
fn bad_input() {
    let mut order = [0u16; 4];
    assert!(!build_node_order(&[10, 20, 20], 2, &mut order));
    assert!(!build_node_order(&[10, 20, 20, 10], 2, &mut order[..3]));
    assert!(!build_node_order(&[], 70000, &mut order));
    assert!(build_node_order(&[], 0, &mut []));
}

/// Several threads claim from the same masks at once: every idle CPU goes to
/// exactly one of them, and all of them finish.
#[test]
fn concurrent_picks_claim_each_cpu_once() {
    let nodes = 2;
    let threads = 2;
    let nr_cpus = 128;
    let m = Machine {
        nr_cpus,
        nr_nodes: nodes,
        cpu_node: (0..nr_cpus).map(|c| (c * nodes / nr_cpus) as u32).collect(),
        siblings: (0..nr_cpus)
            .map(|c| (0..nr_cpus).map(|o| o / threads == c / threads).collect())
            .collect(),
        distance: vec![10, 20, 20, 10],
        online: vec![true; nodes],
        cpu: (0..=nodes)
            .map(|i| {
                (0..nr_cpus)
                    .map(|c| i == nodes || c * nodes / nr_cpus == i)
                    .collect()
            })
            .collect(),
        smt: (0..=nodes)
            .map(|i| {
                (0..nr_cpus)
                    .map(|c| i == nodes || c * nodes / nr_cpus == i)
                    .collect()
            })
            .collect(),
    };
    let topo = Topo::new(&m);
    let allowed = words(&vec![true; nr_cpus]);
    let claimed: Vec<Vec<i32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let (topo, allowed) = (&topo, &allowed);
                s.spawn(move || {
                    let cursor = AtomicU32::new(t * 37);
                    let mut got = Vec::new();
                    loop {
                        let cpu = pick(
                            topo,
                            allowed,
                            Some(t % 2),
                            0,
                            STATE_SMT_ACTIVE | STATE_PER_NODE,
                            &cursor,
                        );
                        if cpu < 0 {
                            break got;
                        }
                        got.push(cpu);
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<i32> = claimed.concat();
    all.sort_unstable();
    assert_eq!(all, (0..nr_cpus as i32).collect::<Vec<_>>());
}
