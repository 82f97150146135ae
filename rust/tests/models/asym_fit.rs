// SPDX-License-Identifier: GPL-2.0

//! The SMT-aware asymmetric capacity fit of 7.3's `kernel/sched/fair.c`
//! (`util_fits_cpu()`, `select_idle_capacity()`), transcribed over plain
//! vectors of synthetic CPUs.

use sched_rust_core::asym_fit::{CpuView, Scan, TaskFit};

/// One synthetic CPU, as the run queues would show it.
#[derive(Clone, Debug)]
pub struct Cpu {
    pub capacity_orig: usize,
    pub capacity: usize,
    pub pressure: usize,
    /// `idle_cpu()`: what `is_core_idle()` looks at for the siblings.
    pub idle: bool,
    /// `choose_idle_cpu()` also takes a `SCHED_IDLE` run queue.
    pub sched_idle: bool,
}

impl Cpu {
    pub fn actual(&self) -> usize {
        self.capacity_orig.wrapping_sub(self.pressure)
    }
    pub fn choose(&self) -> bool {
        self.idle || self.sched_idle
    }
}

#[derive(Clone, Debug)]
pub struct Sys {
    pub cpus: Vec<Cpu>,
    pub threads: usize,
}

impl Sys {
    /// `is_core_idle()`: every other CPU of the core (aligned groups of
    /// `threads`) is idle.
    pub fn core_idle(&self, cpu: usize) -> bool {
        let core = cpu / self.threads * self.threads;
        (core..core + self.threads)
            .filter(|&s| s != cpu && s < self.cpus.len())
            .all(|s| self.cpus[s].idle)
    }

    pub fn view(&self, cpu: usize) -> CpuView {
        let c = &self.cpus[cpu];
        CpuView {
            capacity: c.capacity,
            capacity_orig: c.capacity_orig,
            actual_capacity: c.actual(),
            core_idle: self.core_idle(cpu),
        }
    }
}

/// 7.3's `util_fits_cpu()`, transcribed.
pub fn model_util_fits(util: u64, umin: u64, umax: u64, used: bool, c: &Cpu) -> i32 {
    let capacity = c.capacity as u64;
    let mut fits = util.wrapping_mul(1280) < capacity.wrapping_mul(1024);
    if !used {
        return fits as i32;
    }
    let orig = c.capacity_orig as u64;
    let mut umax_fits = orig == 1024 && umax == 1024;
    umax_fits = !umax_fits && umax <= orig;
    fits = fits || umax_fits;
    let umin = umin.min(umax);
    if fits && util < umin && umin > c.actual() as u64 {
        return -1;
    }
    fits as i32
}

#[derive(Clone, Debug)]
pub struct Case {
    pub sys: Sys,
    pub allowed: Vec<bool>,
    pub task: TaskFit,
    pub target: usize,
    pub sis_util: bool,
    pub nr_idle_scan: i32,
    pub has_idle_core: bool,
}

impl Case {
    /// The Rust scan's arguments for this case, over `words`, the allowed
    /// mask as bitmap words (with whatever junk the caller put past it).
    pub fn scan<'a>(&self, words: &'a [usize]) -> Scan<'a> {
        Scan {
            cpus: words,
            nbits: self.sys.cpus.len() as u32,
            target: self.target as i32,
            sis_util: self.sis_util,
            nr_idle_scan: self.nr_idle_scan,
            has_idle_core: self.has_idle_core,
        }
    }
}

/// 7.3's `select_idle_capacity()`, transcribed over vectors; also the CPUs
/// it looks at (past the budget check).
pub fn model_scan(c: &Case) -> (Option<u32>, bool, Vec<u32>) {
    let n = c.sys.cpus.len();
    let t = &c.task;
    let mut seen = Vec::new();
    let mut best_cap = 0usize;
    let mut best_fits = 0i32;
    let mut best_cpu = None;
    let mut nr = i32::MAX;
    if c.sis_util {
        nr = c.nr_idle_scan.wrapping_add(1);
        if nr == 1 {
            return (None, false, seen);
        }
    }
    for cpu in (c.target..n).chain(0..c.target) {
        if !c.allowed[cpu] {
            continue;
        }
        let preferred = !c.has_idle_core || c.sys.core_idle(cpu);
        let mut cap = c.sys.cpus[cpu].capacity;
        if !c.has_idle_core {
            nr = nr.wrapping_sub(1);
            if nr <= 0 {
                return (best_cpu, false, seen);
            }
        }
        seen.push(cpu as u32);
        if !c.sys.cpus[cpu].choose() {
            continue;
        }
        let mut fits = model_util_fits(
            t.util as u64,
            t.uclamp_min as u64,
            t.uclamp_max as u64,
            t.uclamp_used,
            &c.sys.cpus[cpu],
        );
        if fits > 0 && preferred {
            return (Some(cpu as u32), false, seen);
        } else if fits < 0 {
            cap = c.sys.cpus[cpu].actual();
        } else if fits > 0 {
            fits = -2;
        }
        if preferred {
            fits += -3;
        }
        if fits < best_fits || (fits == best_fits && cap > best_cap) {
            best_cap = cap;
            best_cpu = Some(cpu as u32);
            best_fits = fits;
        }
    }
    (best_cpu, c.has_idle_core && best_fits > -3, seen)
}
