// SPDX-License-Identifier: GPL-2.0

//! Boundary of the asymmetric capacity fit: fair.c's `select_idle_capacity()`,
//! `util_fits_cpu()` and `asym_fits_cpu()` over the views of
//! `kernel/sched/asym_fit.h` (whose bodies, fair.c's own, the KUnit suite
//! also runs over described CPUs).
//!
//! The per-CPU inputs stay in the run queues: the scan calls the C
//! `view` callback once per CPU it reaches, which fills a
//! `struct asym_cpu_view` (the `#[repr(C)]` [`CpuView`]) in place. The
//! scheduler's own view, fair.c's `asym_idle_cpu_view()`, is called
//! directly, not through the pointer.

use super::asym_fit::{
    asym_fits_cpu,
    rank,
    select_idle_capacity,
    util_fits_cpu,
    CpuView,
    Scan,
    TaskFit,
    SCHED_CAPACITY_SCALE,
    VIEW_CORE,
    VIEW_UCLAMP, //
};
use core::mem::{
    offset_of,
    size_of, //
};
use kernel::{
    bindings,
    ffi::{
        c_int,
        c_uint,
        c_void, //
    },
    prelude::*,
};

// The core's constants are C's: the capacity scale, the view flags and the
// ranks of `enum asym_fits_state` (kernel/sched/asym_fit.h).
const _: () = {
    assert!(bindings::SCHED_CAPACITY_SCALE as usize == SCHED_CAPACITY_SCALE);
    assert!(bindings::ASYM_VIEW_CORE == VIEW_CORE);
    assert!(bindings::ASYM_VIEW_UCLAMP == VIEW_UCLAMP);
    assert!(bindings::asym_fits_state_ASYM_IDLE_UCLAMP_MISFIT == rank::ASYM_IDLE_UCLAMP_MISFIT);
    assert!(bindings::asym_fits_state_ASYM_IDLE_COMPLETE_MISFIT == rank::ASYM_IDLE_COMPLETE_MISFIT);
    assert!(bindings::asym_fits_state_ASYM_IDLE_THREAD_FITS == rank::ASYM_IDLE_THREAD_FITS);
    assert!(
        bindings::asym_fits_state_ASYM_IDLE_THREAD_UCLAMP_MISFIT
            == rank::ASYM_IDLE_THREAD_UCLAMP_MISFIT
    );
    assert!(bindings::asym_fits_state_ASYM_IDLE_THREAD_MISFIT == rank::ASYM_IDLE_THREAD_MISFIT);
    assert!(bindings::asym_fits_state_ASYM_IDLE_CORE_BIAS == rank::ASYM_IDLE_CORE_BIAS);
};

// `CpuView` and `TaskFit` have the layout of the C structures, so that C
// reads and writes them in place.
const _: () = {
    assert!(size_of::<CpuView>() == size_of::<bindings::asym_cpu_view>());
    assert!(offset_of!(CpuView, capacity) == offset_of!(bindings::asym_cpu_view, capacity));
    assert!(
        offset_of!(CpuView, capacity_orig) == offset_of!(bindings::asym_cpu_view, capacity_orig)
    );
    assert!(
        offset_of!(CpuView, actual_capacity)
            == offset_of!(bindings::asym_cpu_view, actual_capacity)
    );
    assert!(offset_of!(CpuView, core_idle) == offset_of!(bindings::asym_cpu_view, core_idle));
    assert!(size_of::<TaskFit>() == size_of::<bindings::asym_fit_task>());
    assert!(offset_of!(TaskFit, util) == offset_of!(bindings::asym_fit_task, util));
    assert!(offset_of!(TaskFit, uclamp_min) == offset_of!(bindings::asym_fit_task, uclamp_min));
    assert!(offset_of!(TaskFit, uclamp_max) == offset_of!(bindings::asym_fit_task, uclamp_max));
    assert!(offset_of!(TaskFit, uclamp_used) == offset_of!(bindings::asym_fit_task, uclamp_used));
};

/// Borrows the task at `task`; `None` if it is NULL.
///
/// # Safety
///
/// `task` is NULL or points to an initialised `struct asym_fit_task` that
/// is not written for `'a`.
#[inline]
unsafe fn task_ref<'a>(task: *const bindings::asym_fit_task) -> Option<&'a TaskFit> {
    // SAFETY: `TaskFit` has the layout of `struct asym_fit_task` (checked
    // above), whose `bool` C initialised to 0 or 1; the caller guarantees
    // the rest.
    unsafe { task.cast::<TaskFit>().as_ref() }
}

/// Borrows the view at `cpu`; `None` if it is NULL.
///
/// # Safety
///
/// `cpu` is NULL or points to a `struct asym_cpu_view` whose every field is
/// initialised (`core_idle` to 0 or 1: an uninitialised or other `bool` is
/// undefined behaviour in Rust, whichever fields the reader asks for) and
/// not written for `'a`. The C callers zero the view before they fill it
/// (`= {}`), so a field a path leaves unset is still a valid value.
#[inline]
unsafe fn view_ref<'a>(cpu: *const bindings::asym_cpu_view) -> Option<&'a CpuView> {
    // SAFETY: `CpuView` has the layout of `struct asym_cpu_view` (checked
    // above); the caller guarantees the rest.
    unsafe { cpu.cast::<CpuView>().as_ref() }
}

/// Borrows the two arguments of the fit tests.
///
/// A NULL one gives `None` (the C callers never pass one: they pass the
/// addresses of their own locals); the test is not traded for undefined
/// behaviour on a value C supplies.
///
/// # Safety
///
/// `task` and `cpu` satisfy the contracts of [`task_ref`] and [`view_ref`]
/// for `'a`.
#[inline]
unsafe fn fit_args<'a>(
    task: *const bindings::asym_fit_task,
    cpu: *const bindings::asym_cpu_view,
) -> Option<(&'a TaskFit, &'a CpuView)> {
    // SAFETY: the caller's contract is that of `task_ref()` and
    // `view_ref()`.
    match unsafe { (task_ref(task), view_ref(cpu)) } {
        (Some(task), Some(cpu)) => Some((task, cpu)),
        _ => None,
    }
}

/// The scan of `select_idle_capacity()`, with the contract of the model's
/// `asym_select_idle_capacity()`: walks `scan->cpus` from `scan->target`
/// with wrap-around, calls `view(arg, cpu, want, &v)` for each CPU it
/// reaches and returns the chosen CPU, or -1. Unless it is NULL,
/// `*clear_idle_cores` is set to whether the caller must clear the LLC's
/// idle-cores hint.
///
/// A `scan->target` outside `[0, scan->nbits)` (an empty span too) picks
/// nothing and clears nothing (-1, `false`), and no `view` call is made, as
/// in C. An empty `scan->cpus` picks nothing.
///
/// `task`, `scan`, `scan->cpus` and `view` must not be NULL: the C function
/// dereferences them. This one answers -1, `false` for a NULL one without a
/// `view` call, which is not part of the contract.
///
/// # Safety
///
/// - `task` and `scan` are NULL or point to initialised structures, live
///   and unchanged for the call;
/// - `scan->cpus` is NULL or points to a bitmap of at least `scan->nbits`
///   bits (whole `unsigned long`s) that is not written during the call;
/// - `view` may be called with `arg`, any CPU below `scan->nbits` and a
///   pointer to a `struct asym_cpu_view`, which it may fill;
/// - `clear_idle_cores` is NULL or valid for a write.
#[export]
pub unsafe extern "C" fn sched_rust_select_idle_capacity(
    task: *const bindings::asym_fit_task,
    scan: *const bindings::asym_scan,
    view: bindings::asym_cpu_view_fn,
    arg: *mut c_void,
    clear_idle_cores: *mut bool,
) -> c_int {
    // SAFETY: `clear_idle_cores` is NULL or writable (the caller's
    // contract).
    let clear = unsafe { clear_idle_cores.as_mut() };
    let mut cpu: c_int = -1;
    let mut clear_hint = false;

    // SAFETY: `task` is NULL or initialised and unchanged (the caller's
    // contract is `task_ref()`'s).
    let task = unsafe { task_ref(task) };
    // SAFETY: `scan` is NULL or points to an initialised `struct
    // asym_scan`, unchanged for the call.
    let scan = unsafe { scan.as_ref() };
    if let (Some(task), Some(scan), Some(view)) = (task, scan, view) {
        if !scan.cpus.is_null() {
            let words = scan.nbits.div_ceil(usize::BITS) as usize;
            // SAFETY: `scan->cpus` holds `nbits` bits, that is `words`
            // whole `unsigned long`s (`usize`), not written during the
            // call (the caller's contract): fair.c passes this CPU's
            // `select_rq_mask`, which it filled before the call and which no
            // other CPU writes, so plain reads are race-free.
            let cpus = unsafe { core::slice::from_raw_parts(scan.cpus, words) };
            let core_scan = Scan {
                cpus,
                nbits: scan.nbits,
                target: scan.target,
                sis_util: scan.sis_util,
                nr_idle_scan: scan.nr_idle_scan,
                has_idle_core: scan.has_idle_core,
            };
            // fair.c's own view is called directly, any other through the
            // pointer, as `INDIRECT_CALL_1()` does: with retpolines and
            // kCFI, an indirect call per CPU costs more than the scan's
            // own work on that CPU. Both calls sit in the one scan, so
            // that the scheduler's calls run the very loop that the tests
            // and the shadow check run through the pointer. (The
            // comparison cannot be wrong in a way that matters:
            // `asym_idle_cpu_view` is one C symbol, and a false "no" would
            // only take the pointer.)
            let scheduler_view = core::ptr::fn_addr_eq(
                view,
                bindings::asym_idle_cpu_view as unsafe extern "C" fn(_, _, _, _) -> _,
            );
            let pick = select_idle_capacity(task, &core_scan, |cpu, want: c_uint, v| {
                // `cpu < nbits`; a CPU id beyond `c_int` is not idle.
                let Ok(cpu) = c_int::try_from(cpu) else {
                    return false;
                };
                let v = core::ptr::from_mut(v).cast::<bindings::asym_cpu_view>();
                // SAFETY: the caller allows `view(arg, cpu, want, v)` for
                // any CPU below `nbits`, and `view` is
                // `asym_idle_cpu_view` in the first branch; `v` points to a
                // `CpuView`, which has the layout of `struct asym_cpu_view`.
                unsafe {
                    if scheduler_view {
                        bindings::asym_idle_cpu_view(arg, cpu, want, v)
                    } else {
                        view(arg, cpu, want, v)
                    }
                }
            });
            if let Some(found) = pick.cpu.and_then(|c| c_int::try_from(c).ok()) {
                cpu = found;
            }
            clear_hint = pick.clear_idle_cores;
        }
    }

    if let Some(clear) = clear {
        *clear = clear_hint;
    }
    cpu
}

/// `util_fits_cpu()` on the view `cpu`, with the contract of the model's
/// `asym_util_fits_cpu()`: 1 if `task` fits, -1 if it fits but misses its
/// `uclamp_min` boost, 0 if it does not fit.
///
/// It takes no CPU id and no mask, only the two views. For a NULL one it
/// returns 0 (C's function would dereference it; see [`fit_args`]).
///
/// # Safety
///
/// `task` and `cpu` are NULL or point to initialised structures, live and
/// unchanged for the call.
#[export]
pub unsafe extern "C" fn sched_rust_util_fits_cpu(
    task: *const bindings::asym_fit_task,
    cpu: *const bindings::asym_cpu_view,
) -> c_int {
    // SAFETY: the caller's contract is `fit_args()`'s.
    match unsafe { fit_args(task, cpu) } {
        Some((task, cpu)) => util_fits_cpu(task, cpu),
        None => 0,
    }
}

/// The test of `asym_fits_cpu()` on an asymmetric system, on the view
/// `cpu`, with the contract of the model's `asym_fits_cpu_view()`: the core has
/// no busy sibling (when `smt_active`) and `task` fully fits.
///
/// It takes no CPU id and no mask. For a NULL `task` or `cpu` it returns
/// false (C's function would dereference it; see [`fit_args`]).
///
/// # Safety
///
/// As for [`sched_rust_util_fits_cpu`].
#[export]
pub unsafe extern "C" fn sched_rust_asym_fits_cpu(
    task: *const bindings::asym_fit_task,
    smt_active: bool,
    cpu: *const bindings::asym_cpu_view,
) -> bool {
    // SAFETY: the caller's contract is `fit_args()`'s.
    match unsafe { fit_args(task, cpu) } {
        // The task is read whole on entry, as C's caller reads its fields
        // into the arguments of `__asym_fits_cpu()`: then the reads do not
        // depend on the sibling test, and a caller that tests one task
        // against many CPUs has them hoisted out of its loop once this is
        // inlined into it (`CONFIG_SCHED_RUST_INLINE`).
        Some((task, cpu)) => asym_fits_cpu(&{ *task }, smt_active, cpu),
        None => false,
    }
}

/// The exports on bad input, and a few picks seen through the boundary.
/// (`asym_fit_kunit.c` compares the C and Rust functions at length.)
#[cfg(CONFIG_SCHED_RUST_KUNIT_TEST)]
#[kunit_tests(sched_rust_asym_fit_rust)]
mod tests {
    use super::*;

    /// Eight CPUs: capacities, idleness, and the calls the scan made.
    struct Cpus {
        capacity: [usize; 8],
        idle: [bool; 8],
        calls: usize,
        last_want: c_uint,
    }

    /// The scan's `view` callback: fills `*view` for an idle CPU among the
    /// eight, counts the calls and keeps the last `want`.
    ///
    /// # Safety
    ///
    /// `arg` points to a live `Cpus` that nothing else accesses during the
    /// call; `view` is valid for a write of a `struct asym_cpu_view`.
    unsafe extern "C" fn view_of(
        arg: *mut c_void,
        cpu: c_int,
        want: c_uint,
        view: *mut bindings::asym_cpu_view,
    ) -> bool {
        // SAFETY: every test passes a `Cpus` it owns as `arg`.
        let cpus = unsafe { &mut *arg.cast::<Cpus>() };
        cpus.calls = cpus.calls.saturating_add(1);
        cpus.last_want = want;
        let Some(i) = usize::try_from(cpu).ok().filter(|&i| i < 8) else {
            return false;
        };
        if !cpus.idle.get(i).copied().unwrap_or(false) {
            return false;
        }
        let cap = cpus.capacity.get(i).copied().unwrap_or(0);
        // SAFETY: the scan passes a valid view.
        let view = unsafe { &mut *view.cast::<CpuView>() };
        view.capacity = cap;
        view.capacity_orig = cap;
        view.actual_capacity = cap;
        view.core_idle = true;
        true
    }

    fn cpus() -> Cpus {
        Cpus {
            capacity: [512, 512, 512, 512, 1024, 1024, 1024, 1024],
            idle: [true; 8],
            calls: 0,
            last_want: 0,
        }
    }

    const TASK: TaskFit = TaskFit {
        util: 600,
        uclamp_min: 0,
        uclamp_max: 1024,
        uclamp_used: true,
    };

    /// Runs the export; `clear` starts true so that a write is seen.
    fn run(
        task: Option<&TaskFit>,
        scan: Option<&bindings::asym_scan>,
        view: bindings::asym_cpu_view_fn,
        cpus: &mut Cpus,
    ) -> (c_int, bool) {
        let mut clear = true;
        let task = task.map_or(core::ptr::null(), |t| {
            core::ptr::from_ref(t).cast::<bindings::asym_fit_task>()
        });
        let scan = scan.map_or(core::ptr::null(), core::ptr::from_ref);
        let arg = core::ptr::from_mut(cpus).cast::<c_void>();
        // SAFETY: the pointers are NULL or point to live locals; the
        // bitmap of `scan` has `nbits` bits; `view_of` accepts any CPU
        // with a `Cpus`.
        let cpu = unsafe { sched_rust_select_idle_capacity(task, scan, view, arg, &mut clear) };
        (cpu, clear)
    }

    fn scan(mask: &usize, nbits: c_uint, target: c_int) -> bindings::asym_scan {
        bindings::asym_scan {
            cpus: core::ptr::from_ref(mask),
            nbits,
            target,
            nr_idle_scan: 0,
            sis_util: false,
            has_idle_core: false,
        }
    }

    #[test]
    fn picks_the_first_big_cpu_from_target() {
        let mask: usize = 0xff;
        let mut c = cpus();
        // From CPU 2: 2 and 3 are too small, 4 fits.
        assert_eq!(
            run(Some(&TASK), Some(&scan(&mask, 8, 2)), Some(view_of), &mut c),
            (4, false)
        );
        assert_eq!(c.calls, 3);
        assert_eq!(c.last_want, VIEW_UCLAMP);
        // From CPU 6, with 6 busy: 7.
        if let Some(idle) = c.idle.get_mut(6) {
            *idle = false;
        }
        assert_eq!(
            run(Some(&TASK), Some(&scan(&mask, 8, 6)), Some(view_of), &mut c),
            (7, false)
        );
    }

    #[test]
    fn bad_pointers_pick_nothing() {
        let mask: usize = 0xff;
        let s = scan(&mask, 8, 0);
        let mut c = cpus();
        assert_eq!(run(None, Some(&s), Some(view_of), &mut c), (-1, false));
        assert_eq!(run(Some(&TASK), None, Some(view_of), &mut c), (-1, false));
        assert_eq!(run(Some(&TASK), Some(&s), None, &mut c), (-1, false));
        let mut null_cpus = scan(&mask, 8, 0);
        null_cpus.cpus = core::ptr::null();
        null_cpus.has_idle_core = true;
        assert_eq!(
            run(Some(&TASK), Some(&null_cpus), Some(view_of), &mut c),
            (-1, false)
        );
        assert_eq!(c.calls, 0);

        // A NULL clear_idle_cores is not written, the pick still happens.
        let arg = core::ptr::from_mut(&mut c).cast::<c_void>();
        let task = core::ptr::from_ref(&TASK).cast::<bindings::asym_fit_task>();
        // SAFETY: as in `run()`, with no hint to write.
        let cpu = unsafe {
            sched_rust_select_idle_capacity(task, &s, Some(view_of), arg, core::ptr::null_mut())
        };
        assert_eq!(cpu, 4);

        // The fit tests give "no fit" for a NULL pointer (`fit_args()`).
        let view = CpuView::default();
        let v = core::ptr::from_ref(&view).cast::<bindings::asym_cpu_view>();
        // SAFETY: NULL or live locals.
        unsafe {
            assert_eq!(sched_rust_util_fits_cpu(core::ptr::null(), v), 0);
            assert_eq!(sched_rust_util_fits_cpu(task, core::ptr::null()), 0);
            assert!(!sched_rust_asym_fits_cpu(core::ptr::null(), false, v));
            assert!(!sched_rust_asym_fits_cpu(task, false, core::ptr::null()));
        }
    }

    #[test]
    fn out_of_range_targets_pick_nothing() {
        let mask: usize = 0xff;
        let mut c = cpus();
        for (nbits, target) in [(8, -1), (8, 8), (8, c_int::MAX), (0, 0)] {
            let mut s = scan(&mask, nbits, target);
            s.has_idle_core = true;
            assert_eq!(
                run(Some(&TASK), Some(&s), Some(view_of), &mut c),
                (-1, false)
            );
        }
        assert_eq!(c.calls, 0);
    }

    #[test]
    fn sis_util_budget() {
        let mask: usize = 0xff;
        let mut c = cpus();
        let mut s = scan(&mask, 8, 0);
        s.sis_util = true;
        // nr_idle_scan == 0: nothing is examined.
        assert_eq!(
            run(Some(&TASK), Some(&s), Some(view_of), &mut c),
            (-1, false)
        );
        assert_eq!(c.calls, 0);
        // Two CPUs examined (0 and 1, both too small): the larger capacity
        // of rank -3, the first one.
        s.nr_idle_scan = 2;
        assert_eq!(
            run(Some(&TASK), Some(&s), Some(view_of), &mut c),
            (0, false)
        );
        assert_eq!(c.calls, 2);
    }
}
