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
use sched_rust_core::bits::Bits;
use sched_rust_core::idle_pick::{
    distribute, pick, test_and_clear_cpu, CpuMask, Cursor, IdleMasks, Topology, EBUSY,
    STATE_SMT_ACTIVE,
};
use sched_rust_core::sparsemask::{chunks_for, Chunk, SparseMask};
use sched_rust_core::sync::{bit_mask, Relaxed, Word};

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

/// The machine, shared by every thread: the masks and what the picker
/// reads of the system. Each thread sees it through an [`OnCpu`].
struct Topo {
    siblings: Vec<Vec<Word>>,
    cpu: Vec<Word>,
    smt: Vec<Word>,
    online: Vec<Word>,
}

impl Topo {
    /// Every CPU idle, every core wholly idle.
    fn all_idle() -> Self {
        let all = (1usize << NR_CPUS) - 1;
        Topo {
            siblings: (0..NR_CPUS)
                .map(|c| vec![Word::new(0b11 << (c & !1))])
                .collect(),
            cpu: vec![Word::new(all)],
            smt: vec![Word::new(all)],
            online: vec![Word::new(1)],
        }
    }
}

/// The machine as one CPU sees it: the shared [`Topo`], and the rotation
/// cursor of this CPU (`distribute_cpu_mask_prev` is per CPU).
struct OnCpu<'a> {
    topo: &'a Topo,
    cursor: Cursor,
}

impl<'a> OnCpu<'a> {
    fn new(topo: &'a Topo, cursor: u32) -> Self {
        assert!(cursor < NR_CPUS);
        OnCpu {
            topo,
            cursor: Cursor::new(cursor),
        }
    }
}

impl Topology for OnCpu<'_> {
    type Mask = Bits;
    type IdleMask = Bits;
    fn nr_cpus(&self) -> u32 {
        NR_CPUS
    }
    fn smt_siblings(&self, cpu: u32) -> Option<&Bits> {
        self.topo.siblings.get(cpu as usize).map(|v| v.as_slice())
    }
    fn cpu_node(&self, cpu: u32) -> Option<i32> {
        (cpu < NR_CPUS).then_some(0)
    }
    fn masks(&self, node: Option<u32>) -> Option<IdleMasks<'_, Bits>> {
        match node {
            None | Some(0) => Some(IdleMasks {
                cpu: &self.topo.cpu,
                smt: &self.topo.smt,
            }),
            Some(_) => None,
        }
    }
    fn any_and_distribute(&self, a: &Bits, b: &Bits) -> Option<u32> {
        distribute(a, b, NR_CPUS, &self.cursor)
    }
    fn node_online(&self, node: u32) -> bool {
        node < 1 && self.topo.online.test_cpu(node)
    }
    fn nr_nodes(&self) -> u32 {
        1
    }
    fn node_distance(&self, _from: u32, _to: u32) -> u32 {
        10
    }
    fn with_node_order<R>(&self, node: u32, walk: impl FnOnce(Option<&[u16]>) -> R) -> R {
        walk(Some(if node == 0 { &[0] } else { &[] }))
    }
}

fn word(bits: &[Word]) -> usize {
    bits[0].load(Relaxed)
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
            thread::spawn(move || test_and_clear_cpu(&OnCpu::new(&topo, 0), 1, STATE_SMT_ACTIVE))
        };
        let a = claim(topo.clone());
        let b = claim(topo.clone());
        let allowed = [Word::new(1 << 1)];
        let cpu = OnCpu::new(&topo, 0);
        let picked = pick(&cpu, &allowed, None, 0, STATE_SMT_ACTIVE);
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
            let allowed = [Word::new(0b1111)];
            let cpu = OnCpu::new(&t, 1);
            pick(&cpu, &allowed, None, 0, STATE_SMT_ACTIVE)
        });
        let t = topo.clone();
        let claimer =
            thread::spawn(move || test_and_clear_cpu(&OnCpu::new(&t, 0), 2, STATE_SMT_ACTIVE));
        let allowed = [Word::new(0b1111)];
        let cpu = OnCpu::new(&topo, 3);
        let mine = pick(&cpu, &allowed, None, 0, STATE_SMT_ACTIVE);
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

// ---------------------------------------------------------------------------
// (c) idle_pick against C's writers of the idle masks.
//
// The C side updates the masks while pickers run: `update_builtin_idle()`
// sets or clears a CPU's `cpu` bit with an atomic bitop and then rewrites
// the core's `smt` bits with a plain read-modify-write of the whole word
// (`cpumask_or()`/`cpumask_andnot()`), and `reset_idle_masks()` clears
// both masks with `cpumask_clear()`. Those writers are modelled as what they
// compile to: whole-word loads and stores, not atomic as a pair. The pickers
// must tolerate them: every pick ends, returns an allowed CPU or -EBUSY, and
// a CPU is never won twice unless it was marked idle again in between.

/// While CPUs 0 and 1 are idle, C marks CPUs 2 and 3 idle (their core
/// wholly idle: a plain `smt |= 0b1100`), a claim of CPU 0 and a pick over
/// every CPU run. No CPU is won twice, the claim wins CPU 0, and the `cpu`
/// mask ends as every CPU but those won: each was idle when won, and none
/// was marked idle twice.
#[test]
fn idle_pick_against_c_idle_update() {
    explore("idle_pick 1 pick + 1 claim + C marking a core idle", || {
        let topo = Arc::new(Topo::all_idle());
        topo.cpu[0].store(0b0011, Relaxed);
        topo.smt[0].store(0b0011, Relaxed);
        let t = topo.clone();
        let c_update = thread::spawn(move || {
            // update_builtin_idle(2, true), update_builtin_idle(3, true):
            // assign_cpu(), then cpumask_or() of the core once it is idle.
            t.cpu[0].or(bit_mask(2), Relaxed);
            t.cpu[0].or(bit_mask(3), Relaxed);
            let smt = t.smt[0].load(Relaxed);
            t.smt[0].store(smt | 0b1100, Relaxed);
        });
        let t = topo.clone();
        let claimer =
            thread::spawn(move || test_and_clear_cpu(&OnCpu::new(&t, 0), 0, STATE_SMT_ACTIVE));
        let allowed = [Word::new(0b1111)];
        let cpu = OnCpu::new(&topo, 0);
        let picked = pick(&cpu, &allowed, None, 0, STATE_SMT_ACTIVE);
        c_update.join().unwrap();
        let claimed = claimer.join().unwrap();

        assert!(claimed, "CPU 0 was idle and claimed once");
        assert!(
            (1..4).contains(&picked),
            "picked {picked}: CPU 1 at least was free"
        );
        assert_eq!(
            word(&topo.cpu),
            0b1111 & !(1 | 1 << picked),
            "cpu mask, picked {picked}"
        );
    });
}

/// C resets the masks (7.3's `reset_idle_masks()`: `cpumask_clear()` of
/// both, as when a scheduler is enabled) while a pick and a claim run on a
/// machine where only CPU 1 was idle. The pick ends with CPU 1 or -EBUSY
/// (the reset makes no CPU idle); CPU 1 is won at most once, and by nobody
/// only if the reset took its idle period away first; the masks end empty.
#[test]
fn idle_pick_against_c_reset() {
    explore("idle_pick 1 pick + 1 claim + C resetting the masks", || {
        let topo = Arc::new(Topo::all_idle());
        topo.cpu[0].store(0b0010, Relaxed);
        topo.smt[0].store(0, Relaxed);
        let t = topo.clone();
        let c_reset = thread::spawn(move || {
            // reset_idle_masks(): cpumask_clear() of both masks.
            t.cpu[0].store(0, Relaxed);
            t.smt[0].store(0, Relaxed);
        });
        let t = topo.clone();
        let claimer =
            thread::spawn(move || test_and_clear_cpu(&OnCpu::new(&t, 0), 1, STATE_SMT_ACTIVE));
        let allowed = [Word::new(0b0111)];
        let cpu = OnCpu::new(&topo, 0);
        let picked = pick(&cpu, &allowed, None, 0, STATE_SMT_ACTIVE);
        c_reset.join().unwrap();
        let claimed = claimer.join().unwrap();

        assert!(picked == -EBUSY || picked == 1, "picked {picked}");
        let winners = usize::from(claimed) + usize::from(picked == 1);
        assert!(winners <= 1, "CPU 1 won twice, made idle once");
        assert_eq!(word(&topo.cpu), 0, "cpu mask not empty after the reset");
        assert_eq!(word(&topo.smt), 0, "smt mask not empty after the reset");
    });
}

/// A claim is fully ordered, as upstream's `test_and_clear_bit()`: the
/// store-buffering pattern of a claimer that then looks for work and a
/// waker that publishes work, then (after a full barrier) looks whether the
/// CPU is still idle to kick it. If the claim succeeded and the claimer
/// missed the work, the waker must have seen the CPU claimed; with a
/// relaxed claim both could miss each other and the work would sit until
/// the next tick.
#[test]
fn idle_pick_claim_is_fully_ordered() {
    explore("idle_pick claim vs waker (store buffering)", || {
        let topo = Arc::new(Topo::all_idle());
        let work = Arc::new(Word::new(0));
        let (t, w) = (topo.clone(), work.clone());
        let waker = thread::spawn(move || {
            w.store(1, Relaxed);
            loom::sync::atomic::fence(loom::sync::atomic::Ordering::SeqCst);
            t.cpu[0].load(Relaxed) & 1 != 0
        });
        let claimed = test_and_clear_cpu(&OnCpu::new(&topo, 0), 0, 0);
        let saw_work = work.load(Relaxed) != 0;
        let saw_idle = waker.join().unwrap();

        assert!(claimed, "CPU 0 was idle");
        assert!(
            saw_work || !saw_idle,
            "claimer missed the work, waker saw CPU 0 idle"
        );
    });
}
