// SPDX-License-Identifier: GPL-2.0

//! Model checks of the cores' atomics with loom: every interleaving of a few
//! threads running the very code of the kernel (the cores import their
//! atomics from `sync.rs`, which under `--cfg loom` are loom's).
//!
//! Run with `make loom` (`RUSTFLAGS="--cfg loom" cargo test --test loom`,
//! in a target folder of its own). Without `--cfg loom` this file is empty.

#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use sched_rust_core::idle_pick::{
    build_node_order, pick, test_and_clear_cpu, Bits, IdleMasks, Topology, EBUSY, STATE_SMT_ACTIVE,
};
use sched_rust_core::sparsemask::{chunks_for, Chunk, SparseMask};
use sched_rust_core::sync::{AtomicU32, AtomicUsize, Ordering};

/// Runs `f` under loom with every interleaving (or those with at most
/// `LOOM_MAX_PREEMPTIONS` preemptions) and prints how many executions loom
/// explored, or at which one a check failed.
fn explore(name: &str, f: impl Fn() + Send + Sync + 'static) {
    struct Report<'a> {
        name: &'a str,
        runs: std::sync::Arc<std::sync::atomic::AtomicUsize>,
        start: std::time::Instant,
    }
    impl Drop for Report<'_> {
        fn drop(&mut self) {
            let runs = self.runs.load(std::sync::atomic::Ordering::Relaxed);
            let what = if std::thread::panicking() {
                "FAILED at interleaving"
            } else {
                "interleavings explored:"
            };
            println!(
                "loom {}: {what} {runs}, in {:.2?}",
                self.name,
                self.start.elapsed()
            );
        }
    }

    let report = Report {
        name,
        runs: Default::default(),
        start: std::time::Instant::now(),
    };
    let counter = report.runs.clone();
    loom::model(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f();
    });
}

// ---------------------------------------------------------------------------
// (a) sparsemask: set and clear from two threads against a walk.

const NELEMS: u32 = 8;
const DENSITY: u32 = 2; // 4 elements per chunk: 0-3 share one word, 4-7 another.

fn new_mask() -> Arc<Vec<Chunk>> {
    let n = chunks_for(NELEMS, DENSITY).unwrap();
    Arc::new((0..n).map(|_| Chunk::default()).collect())
}

fn mask(chunks: &[Chunk]) -> SparseMask<'_> {
    SparseMask::new(NELEMS, DENSITY, chunks).unwrap()
}

/// Writers set and clear elements while a walk runs from `origin`:
///
/// - no lost update: afterwards the mask holds exactly what the writers
///   left, although two of them update the same word at once;
/// - an element set for the whole walk (and never touched) is reported;
/// - nothing is reported that was never set during the walk;
/// - each element is reported at most once, in the walk's order.
fn walk_against_writers(origin: u32) {
    let chunks = new_mask();
    // Set before the walk: 1 stays, 5 and 6 are cleared by the writers.
    for e in [1, 5, 6] {
        mask(&chunks).set(e);
    }
    let c1 = chunks.clone();
    let t1 = thread::spawn(move || {
        let m = mask(&c1);
        m.set(2);
        m.clear(5);
    });
    let c2 = chunks.clone();
    let t2 = thread::spawn(move || {
        let m = mask(&c2);
        m.set(3); // the same word as 2, at the same time
        m.clear(6);
    });

    let walk: Vec<u32> = mask(&chunks).iter_from(origin).collect();

    t1.join().unwrap();
    t2.join().unwrap();

    assert!(
        walk.contains(&1),
        "element set for the whole walk missed: {walk:?}"
    );
    for e in &walk {
        assert!(
            [1, 2, 3, 5, 6].contains(e),
            "{e} was never set, but walked: {walk:?}"
        );
    }
    // The walk's order: origin..NELEMS, then 0..origin, each at most once.
    let rank = |e: u32| (e + NELEMS - origin) % NELEMS;
    assert!(
        walk.windows(2).all(|w| rank(w[0]) < rank(w[1])),
        "out of order or repeated: {walk:?}"
    );
    let after: Vec<u32> = mask(&chunks).iter_from(0).collect();
    assert_eq!(after, [1, 2, 3], "lost update");
}

#[test]
fn sparsemask_walk_with_concurrent_set_clear() {
    explore("sparsemask walk from 0 vs set/clear", || {
        walk_against_writers(0)
    });
    explore("sparsemask walk from 4 vs set/clear", || {
        walk_against_writers(4)
    });
}

// ---------------------------------------------------------------------------
// (b) idle_pick: concurrent claims of one idle CPU.

/// One node, `NR_CPUS` CPUs in cores of two SMT siblings, the global masks.
const NR_CPUS: u32 = 4;

struct Topo {
    siblings: Vec<Vec<AtomicUsize>>,
    cpu: Vec<AtomicUsize>,
    smt: Vec<AtomicUsize>,
    order: Vec<u16>,
}

impl Topo {
    /// Every CPU idle, every core wholly idle.
    fn all_idle() -> Self {
        let all = (1usize << NR_CPUS) - 1;
        let mut order = vec![0u16; 1];
        assert!(build_node_order(&[10], 1, &mut order));
        Topo {
            siblings: (0..NR_CPUS)
                .map(|c| vec![AtomicUsize::new(0b11 << (c & !1))])
                .collect(),
            cpu: vec![AtomicUsize::new(all)],
            smt: vec![AtomicUsize::new(all)],
            order,
        }
    }
}

impl Topology for Topo {
    fn nr_cpus(&self) -> u32 {
        NR_CPUS
    }
    fn smt_siblings(&self, cpu: u32) -> Option<&Bits> {
        self.siblings.get(cpu as usize).map(|v| v.as_slice())
    }
    fn cpu_node(&self, cpu: u32) -> Option<u32> {
        (cpu < NR_CPUS).then_some(0)
    }
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_>> {
        match node {
            None | Some(0) => Some(IdleMasks {
                cpu: &self.cpu,
                smt: &self.smt,
            }),
            Some(_) => None,
        }
    }
    fn node_online(&self, node: u32) -> bool {
        node == 0
    }
    fn node_order(&self, node: u32) -> &[u16] {
        if node == 0 {
            &self.order
        } else {
            &[]
        }
    }
}

fn word(bits: &[AtomicUsize]) -> usize {
    bits[0].load(Ordering::Relaxed)
}

/// Two claims of CPU 1 with `test_and_clear_cpu()` and a pick whose allowed
/// mask is CPU 1 alone, at once: exactly one of them wins CPU 1, and
/// afterwards CPU 1 is out of the `cpu` mask, its core (CPUs 0 and 1) out of
/// the `smt` mask, and every other bit untouched.
#[test]
fn idle_pick_one_cpu_one_winner() {
    explore("idle_pick 2 claims + 1 pick of one CPU", || {
        let topo = Arc::new(Topo::all_idle());
        let claim = |topo: Arc<Topo>| {
            thread::spawn(move || test_and_clear_cpu(&*topo, 1, STATE_SMT_ACTIVE))
        };
        let a = claim(topo.clone());
        let b = claim(topo.clone());
        let allowed = [AtomicUsize::new(1 << 1)];
        let cursor = AtomicU32::new(0);
        let picked = pick(&*topo, &allowed, None, 0, STATE_SMT_ACTIVE, &cursor);
        let (a, b) = (a.join().unwrap(), b.join().unwrap());

        assert!(picked == 1 || picked == -EBUSY, "picked {picked}");
        let winners = usize::from(a) + usize::from(b) + usize::from(picked == 1);
        assert_eq!(winners, 1, "claims {a} {b}, pick {picked}");
        assert_eq!(word(&topo.cpu), 0b1101, "cpu mask");
        assert_eq!(word(&topo.smt), 0b1100, "smt mask");
    });
}

/// Two pickers with the whole machine allowed and a claim of CPU 2, at once:
/// no CPU is won twice, every pick succeeds (there are more idle CPUs than
/// pickers), and afterwards the `cpu` mask holds exactly the CPUs nobody
/// won, the `smt` mask no CPU of a core that lost a CPU.
#[test]
fn idle_pick_two_pickers_and_a_claim() {
    explore("idle_pick 2 picks + 1 claim", || {
        let topo = Arc::new(Topo::all_idle());
        let t = topo.clone();
        let picker = thread::spawn(move || {
            let allowed = [AtomicUsize::new(0b1111)];
            let cursor = AtomicU32::new(1);
            pick(&*t, &allowed, None, 0, STATE_SMT_ACTIVE, &cursor)
        });
        let t = topo.clone();
        let claimer = thread::spawn(move || test_and_clear_cpu(&*t, 2, STATE_SMT_ACTIVE));
        let allowed = [AtomicUsize::new(0b1111)];
        let cursor = AtomicU32::new(3);
        let mine = pick(&*topo, &allowed, None, 0, STATE_SMT_ACTIVE, &cursor);
        let (theirs, claimed) = (picker.join().unwrap(), claimer.join().unwrap());

        assert!(mine >= 0 && theirs >= 0, "picks {mine} {theirs}");
        let mut won = vec![mine as u32, theirs as u32];
        if claimed {
            won.push(2);
        }
        let mut unique = won.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), won.len(), "a CPU won twice: {won:?}");
        let won_mask = won.iter().fold(0usize, |m, &c| m | 1 << c);
        assert_eq!(word(&topo.cpu), 0b1111 & !won_mask, "cpu mask, won {won:?}");
        // The claim of CPU 2 happened whether or not it won it.
        let touched = won_mask | 1 << 2;
        let cores = (0..NR_CPUS)
            .filter(|c| touched & (1 << c) != 0)
            .fold(0usize, |m, c| m | 0b11 << (c & !1));
        assert_eq!(word(&topo.smt), 0b1111 & !cores, "smt mask, won {won:?}");
    });
}
