// SPDX-License-Identifier: GPL-2.0

//! Property tests of the SMT-aware asymmetric capacity fit against a direct
//! transcription of 7.3's `util_fits_cpu()` and `select_idle_capacity()`
//! over plain vectors (`models/asym_fit.rs`), and of `asym_fits_cpu()`.

mod models;

use models::asym_fit::{model_scan, model_util_fits, Case, Cpu, Sys};
use proptest::prelude::*;
use sched_rust_core::asym_fit::{
    asym_fits_cpu, fits_capacity, rank, select_idle_capacity, util_fits_cpu, CpuView, Pick,
    TaskFit, SCHED_CAPACITY_SCALE, VIEW_CORE, VIEW_UCLAMP,
};

fn words_of(bits: &[bool]) -> Vec<usize> {
    let mut w = vec![0usize; bits.len().div_ceil(64) + 1];
    for (i, &b) in bits.iter().enumerate() {
        if b {
            w[i / 64] |= 1 << (i % 64);
        }
    }
    // Stray bits past nbits must be ignored.
    *w.last_mut().unwrap() |= !0usize << (bits.len() % 64);
    if bits.len() % 64 == 0 {
        *w.last_mut().unwrap() = !0;
    }
    w
}

/// Runs the Rust scan on `c`; also the CPUs it asked a view of. The fields
/// a call was not asked to fill are poisoned, so that a scan reading one
/// would pick differently.
fn rust_scan(c: &Case) -> (Pick, Vec<u32>) {
    let words = words_of(&c.allowed);
    let scan = c.scan(&words);
    let mut seen = Vec::new();
    let pick = select_idle_capacity(&c.task, &scan, |cpu, want, v| {
        seen.push(cpu);
        assert_eq!(want & VIEW_CORE != 0, c.has_idle_core);
        assert_eq!(want & VIEW_UCLAMP != 0, c.task.uclamp_used);
        let cpu = cpu as usize;
        // Poison: what no call asked for.
        v.capacity_orig = usize::MAX;
        v.actual_capacity = 0;
        v.core_idle = cpu % 2 == 0;
        if !c.sys.cpus[cpu].choose() {
            return false;
        }
        let full = c.sys.view(cpu);
        v.capacity = full.capacity;
        if want & VIEW_UCLAMP != 0 {
            v.capacity_orig = full.capacity_orig;
            v.actual_capacity = full.actual_capacity;
        }
        if want & VIEW_CORE != 0 {
            v.core_idle = full.core_idle;
        }
        true
    });
    (pick, seen)
}

/// Capacity tiers: two (1024/512), three (1024/768/160), all equal, any.
fn capacity_orig(tiers: u8, pick: usize, any: usize) -> usize {
    match tiers % 4 {
        0 => [1024, 512][pick % 2],
        1 => [1024, 768, 160][pick % 3],
        2 => 1024,
        _ => any,
    }
}

prop_compose! {
    fn cpu_strategy()(pick in 0usize..3, any in 0usize..=1100,
                               rt in prop::sample::select(vec![0usize, 0, 0, 5, 100, 400]),
                               pressure in prop::sample::select(vec![0usize, 0, 0, 20, 300, 2000]),
                               idle in prop::bool::weighted(0.5), sched_idle in prop::bool::weighted(0.1))
        -> (usize, usize, usize, usize, bool, bool) {
        (pick, any, rt, pressure, idle, sched_idle)
    }
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (1usize..=80, 1usize..=4, any::<u8>()).prop_flat_map(|(n, threads, tiers)| {
        (
            prop::collection::vec(cpu_strategy(), n.div_ceil(threads) * threads),
            prop::collection::vec(prop::bool::weighted(0.8), n),
            (
                0usize..1200,
                prop::sample::select(vec![0usize, 0, 100, 300, 600, 800, 1024]),
                prop::sample::select(vec![1024usize, 1024, 160, 512, 700, 1000]),
                any::<bool>(),
            ),
            0..n,
            any::<bool>(),
            prop::sample::select(vec![0i32, 1, 2, 3, 5, 8, 40, -1, i32::MAX, i32::MIN]),
            any::<bool>(),
        )
            .prop_map(
                move |(raw, allowed, (util, umin, umax, used), target, sis, nr, idle_core)| {
                    let mut cpus: Vec<Cpu> = Vec::new();
                    for (i, &(_, _, rt, pressure, idle, sched_idle)) in raw.iter().enumerate() {
                        // SMT siblings share the core's original capacity.
                        let (core_pick, core_any, ..) = raw[i / threads * threads];
                        let orig = capacity_orig(tiers, core_pick, core_any);
                        cpus.push(Cpu {
                            capacity_orig: orig,
                            capacity: orig.saturating_sub(rt),
                            pressure,
                            idle,
                            sched_idle,
                        });
                    }
                    cpus.truncate(n);
                    Case {
                        sys: Sys { cpus, threads },
                        allowed,
                        task: TaskFit {
                            util,
                            uclamp_min: umin,
                            uclamp_max: umax,
                            uclamp_used: used,
                        },
                        target,
                        sis_util: sis,
                        nr_idle_scan: nr,
                        has_idle_core: idle_core && threads > 1,
                    }
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn scan_matches_model(c in case_strategy()) {
        let (want_cpu, want_clear, want_seen) = model_scan(&c);
        let (pick, seen) = rust_scan(&c);
        prop_assert_eq!(pick.cpu, want_cpu);
        prop_assert_eq!(pick.clear_idle_cores, want_clear);
        prop_assert_eq!(seen, want_seen);
    }

    #[test]
    fn util_fits_matches_model(
        util in prop::sample::select(vec![0usize, 1, 100, 409, 410, 800, 1023, 1024, 1100,
                                          usize::MAX / 1280, usize::MAX / 1280 + 1, usize::MAX]),
        umin in 0usize..=1100, umax in 0usize..=1100, used in any::<bool>(),
        orig in prop::sample::select(vec![0usize, 160, 512, 768, 1000, 1024, 1100]),
        rt in 0usize..600, pressure in prop::sample::select(vec![0usize, 1, 50, 600, 2000]),
        smt in any::<bool>(), core_idle in any::<bool>(),
    ) {
        let c = Cpu { capacity_orig: orig, capacity: orig.wrapping_sub(rt), pressure,
                      idle: true, sched_idle: false };
        let task = TaskFit { util, uclamp_min: umin, uclamp_max: umax, uclamp_used: used };
        let view = CpuView { capacity: c.capacity, capacity_orig: orig,
                             actual_capacity: c.actual(), core_idle };
        let want = model_util_fits(util as u64, umin as u64, umax as u64, used, &c);
        prop_assert_eq!(util_fits_cpu(&task, &view), want);
        prop_assert_eq!(asym_fits_cpu(&task, smt, &view), (!smt || core_idle) && want > 0);
    }
}

fn sys(caps: &[(usize, bool)], threads: usize) -> Sys {
    Sys {
        cpus: caps
            .iter()
            .map(|&(cap, idle)| Cpu {
                capacity_orig: cap,
                capacity: cap,
                pressure: 0,
                idle,
                sched_idle: false,
            })
            .collect(),
        threads,
    }
}

fn case(s: Sys, task: TaskFit, target: usize, has_idle_core: bool) -> Case {
    let n = s.cpus.len();
    Case {
        sys: s,
        allowed: vec![true; n],
        task,
        target,
        sis_util: false,
        nr_idle_scan: 0,
        has_idle_core,
    }
}

fn check(c: &Case, cpu: Option<u32>, clear: bool) {
    let (pick, seen) = rust_scan(c);
    let (mcpu, mclear, mseen) = model_scan(c);
    assert_eq!((pick.cpu, pick.clear_idle_cores), (cpu, clear), "{c:?}");
    assert_eq!((mcpu, mclear, mseen), (cpu, clear, seen));
}

const TASK: TaskFit = TaskFit {
    util: 600,
    uclamp_min: 0,
    uclamp_max: SCHED_CAPACITY_SCALE,
    uclamp_used: false,
};

#[test]
fn every_rank_wins_where_it_should() {
    // SMT2: cores {0,1} {2,3}; CPU 1 busy, so CPU 0 is a thread.
    // Rank -2 (thread fits) beats rank 0 (thread misfit): no idle core
    // remains among the idle CPUs, the hint is cleared.
    let s = sys(
        &[(1024, true), (1024, false), (512, true), (1024, false)],
        2,
    );
    check(&case(s, TASK, 2, true), Some(0), true);

    // Rank -3 (idle core, misfit) beats rank -2 (busy sibling, fits).
    let s = sys(&[(1024, true), (1024, false), (512, true), (512, true)], 2);
    check(&case(s, TASK, 0, true), Some(2), false);

    // Rank -4 (idle core, uclamp_min miss) beats rank -3; capacity
    // ranks -4 by the actual capacity.
    let boosted = TaskFit {
        util: 100,
        uclamp_min: 900,
        uclamp_max: 1024,
        uclamp_used: true,
    };
    let mut s = sys(&[(512, true), (512, true), (1024, true), (1024, true)], 2);
    s.cpus[2].pressure = 200;
    s.cpus[3].pressure = 300;
    s.cpus[0].capacity = 100; // rank -3: util 100 does not fit 100
    s.cpus[1].capacity = 100;
    check(&case(s, boosted, 0, true), Some(2), false);

    // Rank -1 (busy sibling, uclamp miss) beats rank 0, and the hint is
    // cleared.
    let mut s = sys(&[(1024, true), (1024, false), (100, true), (100, false)], 2);
    s.cpus[0].pressure = 200;
    check(&case(s, boosted, 2, true), Some(0), true);

    // Rank 0 with capacity 0 never wins: nothing is chosen.
    let s = sys(&[(0, true), (0, false)], 2);
    check(&case(s, TASK, 0, true), None, true);
}

#[test]
fn early_returns_and_cut_offs() {
    // Perfect fit on an idle core: the first one in walk order.
    let s = sys(&[(1024, true), (1024, true), (1024, true), (1024, true)], 2);
    check(&case(s.clone(), TASK, 3, true), Some(3), false);
    // SIS_UTIL with nr_idle_scan == 0: nothing, even though all fit.
    let mut c = case(s.clone(), TASK, 1, false);
    c.sis_util = true;
    check(&c, None, false);
    // Budget: two CPUs examined, the best so far returned.
    let s = sys(&[(100, true), (200, true), (300, true), (1024, true)], 1);
    let mut c = case(s, TASK, 0, false);
    c.sis_util = true;
    c.nr_idle_scan = 2;
    check(&c, Some(1), false);
    // With an idle core sought, the budget does not apply.
    c.has_idle_core = true;
    check(&c, Some(3), false);
    // A target outside the span picks nothing.
    c.target = 4;
    assert_eq!(rust_scan(&c).0, Pick::default());
}

#[test]
fn no_smt_collapses_to_capacity_scan() {
    // !SMT: every CPU is preferred; the first that fits is taken even
    // though a busy "sibling" would make it a thread on SMT.
    let s = sys(&[(512, true), (1024, true), (1024, false)], 1);
    check(&case(s, TASK, 0, false), Some(1), false);
    // No CPU fits: the largest idle capacity, rank -3.
    let s = sys(&[(512, true), (300, true), (512, true)], 1);
    check(&case(s, TASK, 1, false), Some(2), false);
}

#[test]
fn fits_capacity_wraps_like_c() {
    assert!(fits_capacity(800, 1024));
    assert!(!fits_capacity(820, 1024));
    // usize::MAX * 1280 wraps to a small number in C too.
    assert_eq!(
        fits_capacity(usize::MAX, 1024),
        usize::MAX.wrapping_mul(1280) < 1024 * 1024
    );
    assert_eq!(rank::ASYM_IDLE_CORE_BIAS, -3);
}
