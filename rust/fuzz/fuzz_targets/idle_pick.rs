// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: the sched_ext idle picker against idle.c's own code and a
//! model.
//!
//! The input builds a machine as the property test does (nodes, SMT width,
//! distances, online nodes, idle and offline CPUs), then runs a sequence of
//! `pick()`, `pick_in_node()` and `test_and_clear_cpu()` calls (any allowed
//! mask, flags, SMT and per-node state, node, CPU in or out of range) on the
//! Rust picker, on idle.c's code (the bodies of `ext/idle_pick.h`, compiled
//! from `c/upstream.c` over a described machine) and on the model in
//! `tests/models/idle_pick.rs`: the same results, cursor and masks after
//! each. The rotation's cursor of each side is its own, 0 at first. Picks
//! stay within idle.c's contract (a failed claim works on the masks
//! searched; out of it every side would retry forever): a node's pick runs
//! with per-node masks, a pick of the global masks without them, and each
//! CPU is in its own node's masks. A claim of a CPU out of range, which
//! idle.c's callers never make, is checked against the model alone. It
//! also checks `build_node_order()` against a sort of a distance table of
//! its own.

#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sched_rust_core::idle_pick::{
    build_node_order, pick, pick_in_node, test_and_clear_cpu, STATE_PER_NODE,
};

#[path = "../../tests/models/mod.rs"]
mod models;

use models::idle_pick::{words, Machine, Model, Topo};
use sched_rust_core::sync::Relaxed;

#[path = "../c/upstream.rs"]
mod upstream;

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn machine(u: &mut Unstructured<'_>) -> Result<Machine> {
    let nodes: usize = u.int_in_range(1..=8)?;
    let threads: usize = u.int_in_range(1..=4)?;
    let cores_per_node: usize = u.int_in_range(1..=6)?;
    let nr_cpus = nodes * threads * cores_per_node;
    // Distances from a wide range, or from a narrow one where most tie.
    let max: u32 = if u.arbitrary()? { 11 } else { 40 };
    let mut distance = Vec::with_capacity(nodes * nodes);
    for _ in 0..nodes * nodes {
        distance.push(u.int_in_range(10..=max)?);
    }
    let mut online = Vec::with_capacity(nodes);
    for _ in 0..nodes {
        online.push(u.arbitrary()?);
    }
    let (mut idle, mut offline) = (Vec::new(), Vec::new());
    for _ in 0..nr_cpus {
        let b: u8 = u.arbitrary()?;
        idle.push(b & 1 != 0);
        offline.push((b >> 1) & 3);
    }
    Ok(Machine::new(
        nodes, threads, distance, online, idle, offline,
    ))
}

fn node_order(u: &mut Unstructured<'_>) -> Result<()> {
    let nodes: usize = u.int_in_range(0..=32)?;
    let mut d = Vec::with_capacity(nodes * nodes);
    for _ in 0..nodes * nodes {
        d.push(u32::from(u.arbitrary::<u8>()?).max(10));
    }
    let mut order = vec![0u16; nodes * nodes];
    assert!(!build_node_order(&d, nodes as u32 + 1, &mut order));
    assert!(build_node_order(&d, nodes as u32, &mut order));
    for s in 0..nodes {
        let mut want: Vec<u16> = (0..nodes as u16).collect();
        want.sort_by_key(|&n| (d[s * nodes + n as usize], n));
        assert_eq!(&order[s * nodes..(s + 1) * nodes], &want[..], "row {s}");
    }
    Ok(())
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    if u.ratio(1, 8)? {
        return node_order(u);
    }
    let m = machine(u)?;
    let topo = Topo::new(&m);
    let mut model = Model {
        m: m.clone(),
        cursor: 0,
    };
    let flat = |rows: &[Vec<bool>]| rows.concat();
    let mut c = upstream::Idle::new(
        m.nr_cpus,
        m.nr_nodes,
        &m.cpu_node,
        &flat(&m.siblings),
        &m.distance,
        &m.online,
        &flat(&m.cpu),
        &flat(&m.smt),
    );
    while !u.is_empty() {
        let state: u32 = u.int_in_range(0..=3)?;
        if u.ratio(1, 3)? {
            // A claim of any CPU, in or out of range.
            let cpu: u32 = u.int_in_range(0..=m.nr_cpus as u32 + 8)?;
            let got = test_and_clear_cpu(&topo, cpu, state);
            let want = (cpu as usize) < m.nr_cpus && model.test_and_clear(cpu as usize, state);
            assert_eq!(got, want, "claim of {cpu}, state {state}");
            if (cpu as usize) < m.nr_cpus {
                assert_eq!(c.claim(cpu, state), got, "C claim of {cpu}, state {state}");
            }
        } else {
            let mut allowed = Vec::with_capacity(m.nr_cpus);
            let dense: bool = u.arbitrary()?;
            for _ in 0..m.nr_cpus {
                allowed.push(dense || u.arbitrary()?);
            }
            let aw = words(&allowed);
            let flags: u64 = u.int_in_range(0..=3)?;
            let global: bool = u.ratio(1, 4)?;
            let node = if global {
                None
            } else {
                Some(u.int_in_range(0..=m.nr_nodes as u32 - 1)?)
            };
            // idle.c's contract: per-node claims go with per-node masks,
            // the global pick with the global ones.
            let state = if global {
                state & !STATE_PER_NODE
            } else {
                state | STATE_PER_NODE
            };
            let in_node: bool = u.arbitrary()?;
            let (got, want) = if !in_node {
                (
                    pick(&topo, &aw, node, flags, state),
                    model.pick(&allowed, node, flags, state),
                )
            } else {
                (
                    pick_in_node(&topo, &aw, node, flags, state),
                    model.in_node(&allowed, node, flags, state),
                )
            };
            assert_eq!(got, want, "pick, node {node:?} flags {flags} state {state}");
            assert_eq!(topo.cursor.load(Relaxed), model.cursor, "cursor");
            let c_got = c.pick(&allowed, node, flags, state, in_node);
            assert_eq!(
                c_got, got,
                "C pick, node {node:?} flags {flags} state {state}"
            );
            assert_eq!(c.cursor(), model.cursor, "C cursor");
        }
        assert_eq!(
            topo.snapshot(),
            (model.m.cpu.clone(), model.m.smt.clone()),
            "masks"
        );
        assert_eq!(
            c.masks(),
            (model.m.cpu.clone(), model.m.smt.clone()),
            "C masks"
        );
    }
    Ok(())
}
