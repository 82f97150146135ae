// SPDX-License-Identifier: GPL-2.0

//! The SMT-aware asymmetric CPU capacity fit of the fair class:
//! `util_fits_cpu()`, the scan of `select_idle_capacity()` and the SMT
//! condition of `asym_fits_cpu()`.
//!
//! C header: [`kernel/sched/asym_fit.h`](srctree/kernel/sched/asym_fit.h).
//!
//! On a system whose CPUs differ in capacity (big.LITTLE, hybrid x86), a
//! waking task is placed on an idle CPU that is big enough for it. With SMT
//! as well, an idle *thread* whose sibling is busy shares its core's
//! pipeline, so the scan prefers CPUs on fully idle cores (the series
//! "sched/fair: SMT-aware asymmetric CPU capacity" by Andrea Righi, merged
//! for 7.2).
//!
//! # Does a task fit a CPU?
//!
//! [`util_fits_cpu()`] answers in three values:
//!
//! - `1`: the utilisation fits the capacity left to CFS with the 20% margin
//!   of `fits_capacity()`, or `uclamp_max` caps the task at or below the
//!   CPU's original capacity (except on a full-size CPU capped at full
//!   size), and the `uclamp_min` boost is met;
//! - `-1`: as for `1`, but the task is boosted (`util < uclamp_min`, with
//!   `uclamp_min` first limited to `uclamp_max`) beyond the capacity the
//!   CPU can actually deliver under hardware and cpufreq pressure;
//! - `0`: it does not fit.
//!
//! Without uclamp in use, only the margin test counts.
//!
//! # The scan
//!
//! [`select_idle_capacity()`] walks the allowed CPUs of the domain from the
//! target with wrap-around and returns the first idle CPU that fits and is
//! *preferred*: on a fully idle core when the LLC's idle-cores hint says
//! there is one (`has_idle_core`), any CPU otherwise. Every other idle CPU
//! gets a rank (lower is better):
//!
//! | Rank                           | Value | CPU                                     |
//! |--------------------------------|-------|-----------------------------------------|
//! | `ASYM_IDLE_UCLAMP_MISFIT`      | -4    | preferred; fits but misses `uclamp_min` |
//! | `ASYM_IDLE_COMPLETE_MISFIT`    | -3    | preferred; does not fit                 |
//! | `ASYM_IDLE_THREAD_FITS`        | -2    | busy sibling; fits                      |
//! | `ASYM_IDLE_THREAD_UCLAMP_MISFIT` | -1  | busy sibling; misses `uclamp_min`       |
//! | `ASYM_IDLE_THREAD_MISFIT`      | 0     | busy sibling; does not fit              |
//!
//! A preferred CPU's rank is its thread rank plus `ASYM_IDLE_CORE_BIAS`
//! (-3). The best rank wins; at equal rank the larger capacity (the actual
//! capacity for a `uclamp_min` miss), and at equal capacity the CPU met
//! first. A CPU must beat rank 0 with capacity 0 to be chosen at all.
//!
//! With `SIS_UTIL`, the scan examines at most `nr_idle_scan` CPUs (and none
//! if it is 0) unless it is looking for an idle core. If it was looking for
//! one and the winner is not on an idle core, the caller clears the hint
//! (the tail of `select_idle_cpu()`, which this path never reaches).
//!
//! Without SMT, `has_idle_core` is false and every CPU is preferred: the
//! early return takes every CPU that fits, and only the core ranks -4 and
//! -3 remain.
//!
//! The per-CPU inputs (capacities, idleness) live in the run queues, in C:
//! the scan asks for them one CPU at a time through the `view` closure, a
//! call back into C in the kernel, only for the CPUs it reaches.
//!
//! Unsigned arithmetic wraps as in C: the capacities come from C already
//! computed with C's wrapping, and the margin products wrap the same way.

/// `SCHED_CAPACITY_SCALE`: the capacity of the biggest CPU at its highest
/// frequency.
pub const SCHED_CAPACITY_SCALE: usize = 1 << 10;

/// The ranks of `select_idle_capacity()` (`enum asym_fits_state`).
pub mod rank {
    /// Idle core; the capacity fits the utilisation but misses `uclamp_min`.
    pub const ASYM_IDLE_UCLAMP_MISFIT: i32 = -4;
    /// Idle core; the capacity does not fit. Still beats every thread rank.
    pub const ASYM_IDLE_COMPLETE_MISFIT: i32 = -3;
    /// Busy SMT sibling; the capacity fits utilisation and uclamp.
    pub const ASYM_IDLE_THREAD_FITS: i32 = -2;
    /// Busy SMT sibling; fits but misses `uclamp_min` (`util_fits_cpu()`'s -1).
    pub const ASYM_IDLE_THREAD_UCLAMP_MISFIT: i32 = -1;
    /// Busy SMT sibling; the capacity does not fit.
    pub const ASYM_IDLE_THREAD_MISFIT: i32 = 0;
    /// The offset that rebases a thread rank into the core tier.
    pub const ASYM_IDLE_CORE_BIAS: i32 = -3;
}

use rank::*;

/// Ask the view for `core_idle` (`is_core_idle()`).
pub const VIEW_CORE: u32 = 1 << 0;
/// Ask the view for `capacity_orig` and `actual_capacity` (uclamp in use).
pub const VIEW_UCLAMP: u32 = 1 << 1;

/// What the fit needs to know of one CPU: `struct asym_cpu_view`.
///
/// Fields the scan did not ask for (see [`VIEW_CORE`], [`VIEW_UCLAMP`])
/// are not read.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuView {
    /// `capacity_of()`: the capacity left to CFS.
    pub capacity: usize,
    /// `arch_scale_cpu_capacity()`: the original capacity.
    pub capacity_orig: usize,
    /// `get_actual_cpu_capacity()`: the original capacity minus hardware
    /// and cpufreq pressure (wrapping, as C computes it).
    pub actual_capacity: usize,
    /// `is_core_idle()`: every SMT sibling of the CPU is idle.
    pub core_idle: bool,
}

/// The task's side of the fit: `struct asym_fit_task`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskFit {
    /// `task_util_est()`.
    pub util: usize,
    /// `uclamp_eff_value(p, UCLAMP_MIN)`.
    pub uclamp_min: usize,
    /// `uclamp_eff_value(p, UCLAMP_MAX)`.
    pub uclamp_max: usize,
    /// `uclamp_is_used()`.
    pub uclamp_used: bool,
}

/// `fits_capacity()`: `cap` fits in `max` with a 20% margin, in C's
/// wrapping `unsigned long` arithmetic.
#[inline]
pub fn fits_capacity(cap: usize, max: usize) -> bool {
    cap.wrapping_mul(1280) < max.wrapping_mul(1024)
}

/// `util_fits_cpu()`: 1 if the task fits the CPU, -1 if it fits but its
/// `uclamp_min` boost exceeds the actual capacity, 0 if it does not fit
/// (see the module doc).
///
/// Reads `capacity_orig` and `actual_capacity` of `cpu` only when
/// `task.uclamp_used`.
#[inline]
pub fn util_fits_cpu(task: &TaskFit, cpu: &CpuView) -> i32 {
    // Check if the real util fits without any uclamp boost/cap applied.
    let fits = fits_capacity(task.util, cpu.capacity);

    if !task.uclamp_used {
        return i32::from(fits);
    }

    // A task always fits if uclamp_max <= capacity_orig, except on a
    // full-size CPU capped at full size: there is no capping at max
    // capacity, and it must not block overutilized.
    //
    // `&&` and `||`, as C's: a fit decided by the first test skips the
    // others. With `&` and `|` (no branches) the scan that reaches every
    // CPU ran 5% more instructions (the replica, 24 CPUs: 1,988 against
    // 1,898) and more time than C's in the distro-like build (1.02 to 1.05
    // against 0.92 to 0.97).
    let capacity_orig = cpu.capacity_orig;
    let full = (capacity_orig == SCHED_CAPACITY_SCALE) && (task.uclamp_max == SCHED_CAPACITY_SCALE);
    let uclamp_max_fits = !full && (task.uclamp_max <= capacity_orig);
    let fits = fits || uclamp_max_fits;

    // Boosted (util < uclamp_min): the boost must fit the capacity the CPU
    // actually delivers, pressure included.
    let uclamp_min = core::cmp::min(task.uclamp_min, task.uclamp_max);
    if fits && (task.util < uclamp_min) && (uclamp_min > cpu.actual_capacity) {
        return -1;
    }

    i32::from(fits)
}

/// The SMT condition of `asym_fits_cpu()` on an asymmetric system: the
/// CPU's core has no busy sibling (when `smt_active`) and the task fully
/// fits it.
///
/// Reads `cpu.core_idle` only when `smt_active`.
#[inline]
pub fn asym_fits_cpu(task: &TaskFit, smt_active: bool, cpu: &CpuView) -> bool {
    (!smt_active || cpu.core_idle) && util_fits_cpu(task, cpu) > 0
}

/// The scan's inputs other than the task: `struct asym_scan`.
#[derive(Clone, Copy, Debug)]
pub struct Scan<'a> {
    /// The candidate CPUs, `sched_domain_span(sd) & p->cpus_ptr`, as
    /// `cpumask_bits()`: bit `n` of word `n / usize::BITS`. Words past the
    /// end of the slice read as 0.
    pub cpus: &'a [usize],
    /// The number of bits of `cpus` to walk (`nr_cpumask_bits`).
    pub nbits: u32,
    /// Where the walk starts; a target outside `[0, nbits)` picks nothing.
    pub target: i32,
    /// `sched_feat(SIS_UTIL) && sd->shared`: limit the walk.
    pub sis_util: bool,
    /// `sd->shared->nr_idle_scan`; read only with `sis_util`.
    pub nr_idle_scan: i32,
    /// `sched_smt_active() && test_idle_cores(target)`.
    pub has_idle_core: bool,
}

/// The outcome of a scan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pick {
    /// The chosen CPU, or `None`.
    pub cpu: Option<u32>,
    /// Clear the LLC's idle-cores hint: an idle core was sought and the
    /// winner is not on one.
    pub clear_idle_cores: bool,
}

/// The wrap-around walk of the set bits of a bitmap, as
/// `for_each_cpu_wrap()`: `start..nbits`, then `0..start`.
///
/// It takes one word at a time and hands out its set bits lowest first,
/// clearing each as it goes: a CPU costs a `tzcnt`, an add and a compare,
/// and a word a load, where searching from each CPU anew (as
/// `find_next_bit()` does) would cost a word's worth of setup per CPU.
///
/// # Invariants
///
/// - `start < nbits`;
/// - `base` is a multiple of `usize::BITS` below `nbits`, and `bits` holds
///   set bits of the word at `base` that the walk has not handed out, none
///   below `start` in the first lap;
/// - `limit` is `nbits` in the first lap and `start` in the second.
struct WrapWalk<'a> {
    words: &'a [usize],
    start: u32,
    limit: u32,
    base: u32,
    bits: usize,
    wrapped: bool,
}

impl<'a> WrapWalk<'a> {
    /// Starts at `start`; `None` if `start >= nbits`.
    #[inline]
    fn new(words: &'a [usize], nbits: u32, start: u32) -> Option<Self> {
        if start >= nbits {
            return None;
        }
        let base = start & !(usize::BITS.wrapping_sub(1));
        // INVARIANT: `start < nbits`; `base` is `start` rounded down to a
        // word, whose bits below `start` are dropped (the shift is modulo
        // `usize::BITS`); first lap, `limit == nbits`.
        Some(Self {
            words,
            start,
            limit: nbits,
            base,
            bits: Self::word(words, base) & usize::MAX.wrapping_shl(start),
            wrapped: false,
        })
    }

    /// The word at bit `base`; 0 past the end of `words`.
    #[inline]
    fn word(words: &[usize], base: u32) -> usize {
        words
            .get(base.wrapping_shr(usize::BITS.trailing_zeros()) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The next CPU of the walk.
    #[inline]
    fn next_cpu(&mut self) -> Option<u32> {
        loop {
            if self.bits != 0 {
                // `base` is a multiple of `usize::BITS` below `nbits <=
                // u32::MAX`, so `base + tzcnt < base + usize::BITS` does
                // not wrap.
                let cpu = self.base.wrapping_add(self.bits.trailing_zeros());
                self.bits &= self.bits.wrapping_sub(1);
                if cpu < self.limit {
                    return Some(cpu);
                }
                // Bits come lowest first: the lap is over.
            } else if let Some(base) = self
                .base
                .checked_add(usize::BITS)
                .filter(|&base| base < self.limit)
            {
                // INVARIANT: the next word, whole: `base < limit <= nbits`,
                // and every bit of it is at or above `start` in the first
                // lap.
                self.base = base;
                self.bits = Self::word(self.words, base);
                continue;
            }
            if self.wrapped {
                return None;
            }
            // INVARIANT: second lap, from word 0 (`0 <= start < nbits`)
            // up to `limit == start`.
            self.wrapped = true;
            self.limit = self.start;
            self.base = 0;
            self.bits = Self::word(self.words, 0);
        }
    }
}

/// The scan of `select_idle_capacity()` (see the module doc).
///
/// `view(cpu, want, &mut view)` returns whether `cpu` is idle for the task
/// (`choose_idle_cpu()`) and, if so, fills the fields of `view` that `want`
/// asks for ([`VIEW_CORE`] when an idle core is sought, [`VIEW_UCLAMP`]
/// when uclamp is in use) and `capacity`. It is called once per CPU the
/// walk reaches, in walk order, and not for the CPU at which the
/// `SIS_UTIL` budget runs out. Every call gets the same view: the fields
/// not asked for hold what an earlier call left there, and are not read.
#[inline]
pub fn select_idle_capacity(
    task: &TaskFit,
    scan: &Scan<'_>,
    view: impl FnMut(u32, u32, &mut CpuView) -> bool,
) -> Pick {
    let Some(walk) = u32::try_from(scan.target)
        .ok()
        .and_then(|target| WrapWalk::new(scan.cpus, scan.nbits, target))
    else {
        return Pick::default();
    };

    let mut nr = i32::MAX;
    if scan.sis_util {
        // Same nr_idle_scan hint as select_idle_cpu(); nr only limits the
        // scan when not preferring an idle core. C's int wraps.
        nr = scan.nr_idle_scan.wrapping_add(1);
        // An overloaded domain is unlikely to have an idle CPU/core.
        if nr == 1 {
            return Pick::default();
        }
    }

    // One loop per combination of the two flags that select what the scan
    // reads of a CPU: each then keeps neither flag, nor the budget where it
    // does not count, across its call of `view`.
    match (scan.has_idle_core, task.uclamp_used) {
        (false, false) => scan_cpus(task, walk, nr, false, false, view),
        (false, true) => scan_cpus(task, walk, nr, false, true, view),
        (true, false) => scan_cpus(task, walk, nr, true, false, view),
        (true, true) => scan_cpus(task, walk, nr, true, true, view),
    }
}

/// The walk of [`select_idle_capacity()`] for `has_idle_core == core` and
/// `task.uclamp_used == uclamp`, with the `SIS_UTIL` budget `nr`. Always
/// inlined, so that constant flags make a loop of their own.
#[inline(always)]
fn scan_cpus(
    task: &TaskFit,
    mut walk: WrapWalk<'_>,
    mut nr: i32,
    core: bool,
    uclamp: bool,
    mut view: impl FnMut(u32, u32, &mut CpuView) -> bool,
) -> Pick {
    let task = TaskFit {
        uclamp_used: uclamp,
        ..*task
    };
    let want = (if core { VIEW_CORE } else { 0 }) | (if uclamp { VIEW_UCLAMP } else { 0 });
    let mut best_cap: usize = 0;
    let mut best_fits = ASYM_IDLE_THREAD_MISFIT;
    // `u32::MAX` for none: no CPU of the walk is that high (`nbits` is a
    // `u32`), and a plain integer costs one register where an `Option`
    // costs two.
    let mut best_cpu = u32::MAX;

    // One view for the whole walk: each call fills `capacity` and the
    // fields `want` asks for, and the scan reads no other field, so what a
    // previous CPU left in the others is never read (and zeroing four
    // fields per CPU would cost more than the scan's own test of the CPU).
    let mut v = CpuView::default();
    while let Some(cpu) = walk.next_cpu() {
        // Stop when the nr_idle_scan is exhausted (mirrors
        // select_idle_cpu()).
        if !core {
            nr = nr.wrapping_sub(1);
            if nr <= 0 {
                return Pick {
                    cpu: (best_cpu != u32::MAX).then_some(best_cpu),
                    clear_idle_cores: false,
                };
            }
        }

        if !view(cpu, want, &mut v) {
            continue;
        }
        let preferred_core = !core || v.core_idle;
        let mut cpu_cap = v.capacity;
        let mut fits = util_fits_cpu(&task, &v);

        if fits > 0 && preferred_core {
            // Perfect fit: capacity satisfies util + uclamp and the CPU
            // sits on a fully idle core, or there is no idle core to find.
            return Pick {
                cpu: Some(cpu),
                clear_idle_cores: false,
            };
        } else if fits < 0 {
            // Only uclamp_min misses: rank by the capacity it can deliver.
            cpu_cap = v.actual_capacity;
        } else if fits > 0 {
            // Fits, but on a core with a busy sibling.
            fits = ASYM_IDLE_THREAD_FITS;
        }

        // An idle core always beats a (partially) busy one: rebase the
        // thread ranks -1 and 0 to the core ranks -4 and -3.
        if preferred_core {
            fits = fits.wrapping_add(ASYM_IDLE_CORE_BIAS);
        }

        // The better rank first, then the larger capacity at equal rank.
        if fits < best_fits || (fits == best_fits && cpu_cap > best_cap) {
            best_cap = cpu_cap;
            best_cpu = cpu;
            best_fits = fits;
        }
    }

    // A rank in the core tier means the winner is on a fully idle core;
    // anything above: such a CPU never ranked best.
    Pick {
        cpu: (best_cpu != u32::MAX).then_some(best_cpu),
        clear_idle_cores: core && best_fits > ASYM_IDLE_COMPLETE_MISFIT,
    }
}
