// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: the SMT-aware asymmetric capacity fit against fair.c's own
//! `util_fits_cpu()`, `asym_fits_cpu()` and `select_idle_capacity()` (the
//! bodies of `asym_fit.h`, compiled from `c/upstream.c`) and against the
//! model in `tests/models/asym_fit.rs`.
//!
//! The input picks a machine (1-160 CPUs, 1-4 threads per core sharing the
//! core's original capacity, any capacity, RT and pressure share, idle or
//! busy), an allowed mask with junk past its size, a task (utilization and
//! uclamp anywhere in their ranges), a target, the SIS_UTIL budget (any
//! `i32`) and the idle-core hint. `select_idle_capacity()` must pick the CPU
//! of C and of the model, clear the hint as they do and ask for the views of
//! the same CPUs in the same order; `util_fits_cpu()` and `asym_fits_cpu()`
//! must agree with C and the model on every CPU.

#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sched_rust_core::asym_fit::{
    asym_fits_cpu, select_idle_capacity, util_fits_cpu, TaskFit, VIEW_CORE, VIEW_UCLAMP,
};

#[path = "../../tests/models/mod.rs"]
mod models;

use models::asym_fit::{model_scan, model_util_fits, Case, Cpu, Sys};

#[path = "../c/upstream.rs"]
mod upstream;

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

const W: usize = usize::BITS as usize;

/// A capacity near the interesting values most of the time, any otherwise.
fn capacity(u: &mut Unstructured<'_>) -> Result<usize> {
    Ok(match u.int_in_range(0u8..=7)? {
        0..=5 => [0, 160, 512, 768, 1024, 1100][u.int_in_range(0usize..=5)?],
        _ => u.arbitrary()?,
    })
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let n: usize = u.int_in_range(1..=160)?;
    let threads: usize = u.int_in_range(1..=4)?;
    let mut cpus = Vec::with_capacity(n);
    let mut orig = 0;
    for cpu in 0..n {
        // SMT siblings share the core's original capacity.
        if cpu % threads == 0 {
            orig = capacity(u)?;
        }
        let rt = capacity(u)? / u.int_in_range(1usize..=8)?;
        let b: u8 = u.arbitrary()?;
        cpus.push(Cpu {
            capacity_orig: orig,
            capacity: orig.saturating_sub(rt),
            pressure: capacity(u)? / u.int_in_range(1usize..=8)?,
            idle: b & 1 != 0,
            sched_idle: b & 0xe == 0,
        });
    }
    let allowed: Vec<bool> = (0..n)
        .map(|_| u.arbitrary::<u8>().map(|b| b & 7 != 0))
        .collect::<Result<_>>()?;
    let task = TaskFit {
        util: capacity(u)?,
        uclamp_min: capacity(u)?,
        uclamp_max: capacity(u)?,
        uclamp_used: u.arbitrary()?,
    };
    let c = Case {
        sys: Sys { cpus, threads },
        allowed,
        task,
        target: u.int_in_range(0..=n - 1)?,
        sis_util: u.arbitrary()?,
        nr_idle_scan: match u.int_in_range(0u8..=3)? {
            0 => u.arbitrary()?,
            _ => u.int_in_range(-1..=16)?,
        },
        has_idle_core: threads > 1 && u.arbitrary()?,
    };

    // The allowed mask, with junk past `n` (and a word more) to ignore.
    let junk: usize = u.arbitrary()?;
    let words: Vec<usize> = (0..n.div_ceil(W) + 1)
        .map(|w| {
            (0..W).fold(0usize, |word, b| match c.allowed.get(w * W + b) {
                Some(true) => word | 1 << b,
                Some(false) => word,
                None => word | (junk & 1 << b),
            })
        })
        .collect();
    let scan = c.scan(&words);
    let mut seen = Vec::new();
    let pick = select_idle_capacity(&c.task, &scan, |cpu, want, v| {
        seen.push(cpu);
        assert_eq!(want & VIEW_CORE != 0, c.has_idle_core, "view fields");
        assert_eq!(want & VIEW_UCLAMP != 0, c.task.uclamp_used, "view fields");
        let cpu = cpu as usize;
        if !c.sys.cpus[cpu].choose() {
            return false;
        }
        *v = c.sys.view(cpu);
        true
    });
    let (want_cpu, want_clear, want_seen) = model_scan(&c);
    assert_eq!(seen, want_seen, "CPUs looked at");
    assert_eq!(pick.cpu, want_cpu, "pick");
    assert_eq!(pick.clear_idle_cores, want_clear, "idle-core hint");

    // fair.c's code on the same CPUs.
    let cpus: Vec<upstream::AsymCpu> = (0..n)
        .map(|cpu| {
            let v = c.sys.view(cpu);
            upstream::AsymCpu {
                capacity: v.capacity as _,
                capacity_orig: v.capacity_orig as _,
                actual_capacity: v.actual_capacity as _,
                core_idle: v.core_idle,
                idle: c.sys.cpus[cpu].choose(),
            }
        })
        .collect();
    let (c_cpu, c_clear, c_seen) = upstream::asym_scan(
        &cpus,
        &words,
        c.target,
        &c.task,
        c.sis_util,
        c.nr_idle_scan,
        c.has_idle_core,
    );
    assert_eq!(c_seen, seen, "C: CPUs looked at");
    assert_eq!(c_cpu, pick.cpu.map_or(-1, |cpu| cpu as i32), "C: pick");
    assert_eq!(c_clear, pick.clear_idle_cores, "C: idle-core hint");

    let smt = threads > 1;
    for (cpu, model) in c.sys.cpus.iter().enumerate() {
        let view = c.sys.view(cpu);
        let t = &c.task;
        let want = model_util_fits(
            t.util as u64,
            t.uclamp_min as u64,
            t.uclamp_max as u64,
            t.uclamp_used,
            model,
        );
        assert_eq!(util_fits_cpu(t, &view), want, "util_fits_cpu({cpu})");
        assert_eq!(
            upstream::util_fits_cpu(&cpus, cpu, t),
            want,
            "C: util_fits_cpu({cpu})"
        );
        let fits = asym_fits_cpu(t, smt, &view);
        assert_eq!(
            fits,
            (!smt || view.core_idle) && want > 0,
            "asym_fits_cpu({cpu})"
        );
        assert_eq!(
            upstream::asym_fits_cpu(&cpus, cpu, t, smt),
            fits,
            "C: asym_fits_cpu({cpu})"
        );
    }
    Ok(())
}
