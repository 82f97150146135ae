// SPDX-License-Identifier: GPL-2.0

//! Property tests of the sched_ext idle picker against a transcription of
//! idle.c's functions over plain vectors, with the C node walk
//! (`for_each_node_numadist()`: the nearest unvisited node each time): the
//! model is `models/idle_pick.rs`, shared with the fuzz target.
//!
//! Every machine and call stays within idle.c's contract (see the model):
//! a CPU is in the masks of its own node and in the global ones
//! ([`Machine::new`]), a pick from a node runs with per-node tracking and
//! a pick of the global masks without it. Out of it, idle.c's pick and the
//! Rust one retry forever (`within_the_contract_every_pick_ends`).

mod models;

use models::idle_pick::{padded_words, words, Machine, Model, OnCpu, Topo};
use proptest::prelude::*;
use sched_rust_core::bits::Bits;
use sched_rust_core::idle_pick::{
    build_node_order, pick, pick_in_node, sort_nodes_by_key, test_and_clear_cpu, IdleMasks,
    Topology, EBUSY, PICK_IDLE_IN_NODE, STATE_PER_NODE, STATE_SMT_ACTIVE,
};
use sched_rust_core::sync::Relaxed;
use std::cell::{Cell, RefCell};

/// A distance table of `nodes²` entries: from a wide range, or from a
/// narrow one where most distances tie.
fn distances(nodes: usize) -> impl Strategy<Value = Vec<u32>> {
    prop_oneof![
        proptest::collection::vec(10u32..40, nodes * nodes),
        proptest::collection::vec(10u32..12, nodes * nodes),
    ]
}

fn machine() -> impl Strategy<Value = Machine> {
    (1usize..=8, 1usize..=4, 1usize..=6)
        .prop_flat_map(|(nodes, threads, cores_per_node)| {
            let nr_cpus = nodes * threads * cores_per_node;
            (
                Just((nodes, threads)),
                distances(nodes),
                proptest::collection::vec(any::<bool>(), nodes),
                proptest::collection::vec(any::<bool>(), nr_cpus),
                proptest::collection::vec(0u8..4, nr_cpus),
            )
        })
        .prop_map(|((nodes, threads), distance, online, idle, offline)| {
            Machine::new(nodes, threads, distance, online, idle, offline)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A sequence of picks: the same CPUs, the same cursor and the same
    /// masks after each.
    #[test]
    fn picks_match_the_model(
        m in machine(),
        ops in proptest::collection::vec((any::<u64>(), 0u64..4, 0u32..4, any::<u32>(), any::<bool>()), 1..20),
        cursor_seed in any::<u32>(),
        ordered in proptest::bool::weighted(0.8),
    ) {
        // Any cursor a CPU can have: a CPU of the machine (the last one
        // makes the search start again from 0).
        let start = cursor_seed % m.nr_cpus as u32;
        // With idle.c's node order, or without one (walk by distance).
        let topo = Topo { ordered, ..Topo::new(&m) };
        topo.cursor.store(start, Relaxed);
        let mut model = Model { m: m.clone(), cursor: start };
        for (allowed_seed, flags, state, node_seed, global) in ops {
            let allowed: Vec<bool> = (0..m.nr_cpus).map(|c| allowed_seed.rotate_left(c as u32 % 64) & 1 != 0 || allowed_seed % 3 == 0).collect();
            let aw = padded_words(&allowed);
            let node = if global { None } else { Some(node_seed % m.nr_nodes as u32) };
            // idle.c's contract: a node's pick with per-node masks, a pick
            // of the global masks without (claims then work on the masks
            // searched).
            let state = if global { state & !STATE_PER_NODE } else { state | STATE_PER_NODE };
            let got = pick(&topo, &aw, node, flags, state);
            let want = model.pick(&allowed, node, flags, state);
            prop_assert_eq!(got, want);
            prop_assert_eq!(topo.cursor.load(Relaxed), model.cursor);
            prop_assert_eq!(topo.snapshot(), (model.m.cpu.clone(), model.m.smt.clone()));
            // pick_in_node() on its own, too.
            let got = pick_in_node(&topo, &aw, node, flags, state);
            let want = model.in_node(&allowed, node, flags, state);
            prop_assert_eq!(got, want);
            prop_assert_eq!(topo.cursor.load(Relaxed), model.cursor);
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

/// The sort of a row of the node order takes O(n log n) comparisons for
/// any table: at most 2 n log2(n) + 2 n comparisons, 2 key calls each.
/// (The insertion sort it replaced took n (n - 1) / 2 on a descending
/// row: 523,776 at 1024 nodes against this bound's 22,528.)
#[test]
fn node_order_sort_is_n_log_n() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for n in [1usize, 2, 3, 7, 64, 1000, 1024] {
        let log2 = usize::BITS - (n - 1).leading_zeros();
        let bound = 2 * (2 * n * log2 as usize + 2 * n);
        let tables: [Vec<u32>; 4] = [
            (0..n as u32).rev().collect(),
            (0..n as u32).collect(),
            vec![10; n],
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 255) as u32
                })
                .collect(),
        ];
        for dist in &tables {
            let mut row: Vec<u16> = (0..n as u16).collect();
            let mut calls = 0usize;
            sort_nodes_by_key(&mut row, |node| {
                calls += 1;
                (dist[node as usize], node)
            });
            let mut want: Vec<u16> = (0..n as u16).collect();
            want.sort_by_key(|&node| (dist[node as usize], node));
            assert_eq!(row, want, "n = {n}");
            assert!(calls <= bound, "n = {n}: {calls} key calls, bound {bound}");
        }
    }
}

/// The whole order at MAX_NUMNODES of a MAXSMP kernel (NODES_SHIFT=10:
/// 1024 nodes, 2^20 entries), every row against a reference sort.
#[test]
fn node_order_at_max_numnodes() {
    const NODES: usize = 1024;
    let d: Vec<u32> = (0..NODES * NODES)
        .map(|i| 10 + ((i * 7919 + i / NODES * 31) % 245) as u32)
        .collect();
    let mut order = vec![0u16; NODES * NODES];
    assert!(build_node_order(&d, NODES as u32, &mut order));
    for s in (0..NODES).step_by(97).chain([NODES - 1]) {
        let mut want: Vec<u16> = (0..NODES as u16).collect();
        want.sort_by_key(|&n| (d[s * NODES + n as usize], n));
        assert_eq!(&order[s * NODES..(s + 1) * NODES], &want[..], "row {s}");
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

/// Several threads claim from the same masks at once, each with its own
/// rotation cursor as each CPU has: every idle CPU goes to exactly one of
/// them, and all of them finish.
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
                    let cpu = OnCpu::new(topo, t * 37);
                    let mut got = Vec::new();
                    loop {
                        let picked = pick(
                            &cpu,
                            allowed,
                            Some(t % 2),
                            0,
                            STATE_SMT_ACTIVE | STATE_PER_NODE,
                        );
                        if picked < 0 {
                            break got;
                        }
                        got.push(picked);
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

/// A [`Topology`] that records the nodes whose masks a pick searches (the
/// masks its rotation is asked to search), in order, and that gives up the
/// rotation (no candidate) after `budget` calls, counting them: a pick on
/// it always ends.
struct Probe<'a> {
    inner: &'a Topo,
    searched: RefCell<Vec<u32>>,
    rotations: Cell<usize>,
    budget: usize,
    /// A node whose online state flips once the walk across nodes has
    /// searched its first node (the start node's search is before it).
    flip: Option<u32>,
}

impl<'a> Probe<'a> {
    fn new(inner: &'a Topo, budget: usize) -> Self {
        Probe {
            inner,
            searched: RefCell::new(Vec::new()),
            rotations: Cell::new(0),
            budget,
            flip: None,
        }
    }
}

impl Topology for Probe<'_> {
    type Mask = Bits;
    type IdleMask = Bits;
    fn nr_cpus(&self) -> u32 {
        self.inner.nr_cpus()
    }
    fn smt_siblings(&self, cpu: u32) -> Option<&Bits> {
        self.inner.smt_siblings(cpu)
    }
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        self.inner.cpu_node(cpu)
    }
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, Bits>> {
        self.inner.masks(node)
    }
    fn any_and_distribute(&self, a: &Bits, b: &Bits) -> Option<u32> {
        // A node's masks, by address; consecutive searches of one node are
        // one visit.
        let set = (0..self.inner.m.nr_nodes).find(|&i| {
            std::ptr::eq(a, &self.inner.cpu[i][..]) || std::ptr::eq(a, &self.inner.smt[i][..])
        });
        let mut searched = self.searched.borrow_mut();
        if let Some(n) = set.map(|i| i as u32) {
            if searched.last() != Some(&n) {
                searched.push(n);
            }
        }
        self.rotations.set(self.rotations.get() + 1);
        if self.rotations.get() > self.budget {
            return None;
        }
        self.inner.any_and_distribute(a, b)
    }
    fn node_online(&self, node: u32) -> bool {
        let flipped = self.flip == Some(node) && self.searched.borrow().len() >= 2;
        self.inner.node_online(node) != flipped
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

proptest! {
    /// Without a node order, the walk copies the online nodes when it
    /// starts, as upstream's (`nodes_copy()` of `node_states[N_ONLINE]`,
    /// then `for_each_node_numadist()`): a node that goes online or offline
    /// once the walk has searched a node changes nothing. With the order, a
    /// node is searched if it is online when the walk reaches it, as
    /// idle.c's walk over its order tests it then.
    #[test]
    fn walk_without_order_copies_the_online_nodes(
        (nodes, online, start, flip) in (2usize..=70).prop_flat_map(|nodes| (
            Just(nodes),
            proptest::collection::vec(any::<bool>(), nodes),
            0..nodes as u32,
            0..nodes as u32,
        )),
        flags in 0u64..2,
    ) {
        let d: Vec<u32> = (0..nodes * nodes).map(|i| 10 + (i * 7 % 31) as u32).collect();
        let m = Machine::new(nodes, 1, d, online, vec![false; nodes], vec![1; nodes]);
        let mut order = vec![0u16; nodes * nodes];
        prop_assert!(build_node_order(&m.distance, nodes as u32, &mut order));
        let row = &order[start as usize * nodes..(start as usize + 1) * nodes];
        // The nodes searched, the start first, when a node's state is
        // `before` until the walk has searched a node and `after` then.
        let before = |n: u32| m.online[n as usize];
        let after = |n: u32| m.online[n as usize] != (n == flip);
        let visits = |after: &dyn Fn(u32) -> bool| {
            let mut want = vec![start];
            for n in row.iter().map(|&n| u32::from(n)).filter(|&n| n != start) {
                if if want.len() >= 2 { after(n) } else { before(n) } {
                    want.push(n);
                }
            }
            want
        };
        let none = words(&vec![false; nodes]);

        let unordered = Topo { ordered: false, ..Topo::new(&m) };
        let probe = Probe { flip: Some(flip), ..Probe::new(&unordered, usize::MAX) };
        prop_assert_eq!(pick(&probe, &none, Some(start), flags, STATE_PER_NODE), -EBUSY);
        prop_assert_eq!(probe.searched.into_inner(), visits(&before));

        let topo = Topo::new(&m);
        let probe = Probe { flip: Some(flip), ..Probe::new(&topo, usize::MAX) };
        prop_assert_eq!(pick(&probe, &none, Some(start), flags, STATE_PER_NODE), -EBUSY);
        prop_assert_eq!(probe.searched.into_inner(), visits(&after));
    }
}

proptest! {
    // Each case sorts a whole node order (130² entries at most).
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The walk across nodes visits the online nodes but the start in the
    /// order of the start's row of `build_node_order()` (by distance, ties
    /// by id), which is the model's `for_each_node_numadist()`, on up to
    /// 130 nodes (three words of nodes; the Topo's online words have every
    /// bit past the last node set, which the walk must not visit). Then a
    /// pick with every CPU allowed gives the model's CPU, cursor and masks.
    /// The start's row of distances is drawn (wide or tied); the walk reads
    /// no other, and the others are a fixed pattern.
    #[test]
    fn walk_visits_nodes_in_node_order(
        (nodes, start_row, online, idle, start) in (1usize..=130).prop_flat_map(|nodes| (
            Just(nodes),
            prop_oneof![
                proptest::collection::vec(10u32..40, nodes),
                proptest::collection::vec(10u32..12, nodes),
            ],
            proptest::collection::vec(any::<bool>(), nodes),
            proptest::collection::vec(proptest::bool::weighted(0.1), nodes),
            0..nodes as u32,
        )),
        flags in 0u64..2,
        state in 0u32..2,
    ) {
        let mut d: Vec<u32> = (0..nodes * nodes).map(|i| 10 + (i * 7 % 31) as u32).collect();
        let s = start as usize;
        d[s * nodes..(s + 1) * nodes].copy_from_slice(&start_row);
        // One CPU per node: CPU n is node n's.
        let m = Machine::new(nodes, 1, d, online, idle, vec![1; nodes]);
        let mut order = vec![0u16; nodes * nodes];
        prop_assert!(build_node_order(&m.distance, nodes as u32, &mut order));
        let row = &order[start as usize * nodes..(start as usize + 1) * nodes];
        let mut want = vec![start];
        want.extend(
            row.iter()
                .map(|&n| u32::from(n))
                .filter(|&n| n != start && m.online[n as usize]),
        );
        let model = Model { m: m.clone(), cursor: 0 };
        prop_assert_eq!(&want[1..], &model.walk(start)[..]);

        let topo = Topo::new(&m);
        let state = state | STATE_PER_NODE;
        // Nothing allowed: every node is searched, once, nearest first.
        let probe = Probe::new(&topo, usize::MAX);
        let none = words(&vec![false; nodes]);
        prop_assert_eq!(pick(&probe, &none, Some(start), flags, state), -EBUSY);
        prop_assert_eq!(probe.searched.into_inner(), want.clone());
        // Without a node order, by distance: the same nodes, in the same
        // order.
        let unordered = Topo { ordered: false, ..Topo::new(&m) };
        let probe = Probe::new(&unordered, usize::MAX);
        prop_assert_eq!(pick(&probe, &none, Some(start), flags, state), -EBUSY);
        prop_assert_eq!(probe.searched.into_inner(), want.clone());
        // Under PICK_IDLE_IN_NODE, the start alone.
        let probe = Probe::new(&topo, usize::MAX);
        prop_assert_eq!(pick(&probe, &none, Some(start), flags | PICK_IDLE_IN_NODE, state), -EBUSY);
        prop_assert_eq!(probe.searched.into_inner(), vec![start]);

        // Every CPU allowed: the first idle node in that order, as the
        // model picks it.
        let mut model = model;
        let all = padded_words(&vec![true; nodes]);
        let probe = Probe::new(&topo, usize::MAX);
        let got = pick(&probe, &all, Some(start), flags, state);
        prop_assert_eq!(got, model.pick(&vec![true; nodes], Some(start), flags, state));
        let first_idle = want.iter().position(|&n| m.cpu[n as usize][n as usize]);
        prop_assert_eq!(got, first_idle.map_or(-EBUSY, |i| want[i] as i32));
        prop_assert_eq!(
            probe.searched.into_inner(),
            want[..first_idle.map_or(want.len(), |i| i + 1)].to_vec()
        );
        prop_assert_eq!(topo.cursor.load(Relaxed), model.cursor);
        prop_assert_eq!(topo.snapshot(), (model.m.cpu.clone(), model.m.smt.clone()));
    }
}

/// idle.c's contract, which the picker shares: a failed claim works on the
/// masks searched. Within it every pick ends, however stale the masks:
/// each failed claim removes the candidate (or its core) from the mask it
/// was found in. Out of it, the candidate stays and the pick retries
/// forever, as idle.c's (the picker has no exit of its own): shown here
/// with a rotation that gives up after a budget, so that the test ends.
#[test]
fn within_the_contract_every_pick_ends() {
    // 2 nodes of 2 cores of 2 threads; CPU 3 is offline (not its own
    // sibling). Only CPU 6 (node 1) is idle, but node 0's and the global
    // `smt` masks have every core of node 0 wholly idle: stale bits, which
    // only failed claims clear.
    let mut m = Machine::new(
        2,
        2,
        vec![10, 20, 20, 10],
        vec![true; 2],
        (0..8).map(|c| c == 6).collect(),
        (0..8).map(|c| u8::from(c != 3)).collect(),
    );
    for c in 0..4 {
        m.smt[0][c] = true;
        m.smt[2][c] = true;
    }
    let all: Vec<bool> = vec![true; 8];
    let aw = words(&all);
    let smt_on = STATE_SMT_ACTIVE;
    let per_node = STATE_SMT_ACTIVE | STATE_PER_NODE;

    // A node's pick with per-node masks, and a pick of the global masks
    // without per-node tracking, from every cursor: the stale bits fail
    // and are cleared, then CPU 6, as the model.
    for (node, state) in [(Some(0), per_node), (None, smt_on)] {
        for cursor in 0..8 {
            let topo = Topo::new(&m);
            topo.cursor.store(cursor, Relaxed);
            let mut model = Model {
                m: m.clone(),
                cursor,
            };
            let probe = Probe::new(&topo, 1000);
            assert_eq!(pick(&probe, &aw, node, 0, state), 6, "{node:?} {cursor}");
            assert_eq!(model.pick(&all, node, 0, state), 6, "{node:?} {cursor}");
            assert_eq!(topo.cursor.load(Relaxed), model.cursor);
            let (cpu, smt) = topo.snapshot();
            assert_eq!((&cpu, &smt), (&model.m.cpu, &model.m.smt));
            let set = node.map_or(2, |n| n as usize);
            assert_eq!(smt[set], vec![false; 8], "stale smt bits cleared");
            assert!(!cpu[set][6], "CPU 6 claimed");
            if node.is_some() {
                assert_eq!(probe.searched.into_inner(), vec![0, 1]);
            }
            // A handful of failed claims, not the budget.
            assert!(
                probe.rotations.get() < 10,
                "{} rotations",
                probe.rotations.get()
            );
        }
    }

    // Out of the contract: a node's pick without per-node tracking. The
    // claims work on the global masks, where CPUs 0-3 are busy, and node
    // 0's stale smt bits stay: the pick retries until the rotation gives
    // up, and would forever.
    let topo = Topo::new(&m);
    let probe = Probe::new(&topo, 1000);
    let only_node_0 = words(&(0..8).map(|c| c < 4).collect::<Vec<_>>());
    assert_eq!(
        pick_in_node(&probe, &only_node_0, Some(0), 0, smt_on),
        -EBUSY
    );
    assert!(probe.rotations.get() > 1000, "the pick gave up by itself");
}
