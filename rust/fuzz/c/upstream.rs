// SPDX-License-Identifier: GPL-2.0

//! The C side of the fuzz targets (`c/upstream.c`, built by `build.rs`):
//! the scheduler's own C, called on the same inputs as the Rust cores.
//! Each target includes this file with `#[path]`.

#![allow(dead_code)]

use core::ffi::{c_int, c_uint, c_ulong};
use sched_rust_core::asym_fit::TaskFit;

/// What the capacity fit reads of one CPU (`struct c_asym_cpu`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct AsymCpu {
    pub capacity: c_ulong,
    pub capacity_orig: c_ulong,
    pub actual_capacity: c_ulong,
    pub core_idle: bool,
    pub idle: bool,
}

#[repr(C)]
pub struct CIdle {
    _private: [u8; 0],
}

#[repr(C)]
pub struct CSparseMask {
    _private: [u8; 0],
}

extern "C" {
    fn c_idle_new(
        nr_cpus: c_uint,
        nr_nodes: c_uint,
        cpu_node: *const c_uint,
        siblings: *const bool,
        distance: *const c_uint,
        online: *const bool,
        cpu: *const bool,
        smt: *const bool,
    ) -> *mut CIdle;
    fn c_idle_free(m: *mut CIdle);
    fn c_idle_claim(m: *mut CIdle, cpu: c_int, state: c_uint) -> bool;
    fn c_idle_pick(
        m: *mut CIdle,
        allowed: *const bool,
        node: c_int,
        flags: u64,
        state: c_uint,
        in_node: bool,
    ) -> c_int;
    fn c_idle_cursor(m: *const CIdle) -> c_uint;
    fn c_idle_bit(m: *const CIdle, set: c_uint, smt: bool, cpu: c_uint) -> bool;

    fn c_asym_scan(
        cpus: *const AsymCpu,
        mask: *const c_ulong,
        nbits: c_uint,
        target: c_int,
        util: c_ulong,
        uclamp_min: c_ulong,
        uclamp_max: c_ulong,
        uclamp_used: bool,
        sis_util: bool,
        nr_idle_scan: c_int,
        has_idle_core: bool,
        seen: *mut c_int,
        max_seen: c_uint,
        nr_seen: *mut c_uint,
        cleared: *mut bool,
    ) -> c_int;
    fn c_asym_util_fits_cpu(
        cpus: *const AsymCpu,
        cpu: c_int,
        util: c_ulong,
        uclamp_min: c_ulong,
        uclamp_max: c_ulong,
        uclamp_used: bool,
    ) -> c_int;
    fn c_asym_fits_cpu(
        cpus: *const AsymCpu,
        cpu: c_int,
        util: c_ulong,
        uclamp_min: c_ulong,
        uclamp_max: c_ulong,
        uclamp_used: bool,
        smt: bool,
    ) -> bool;

    fn c_smask_new(nelems: c_int, density: c_int) -> *mut CSparseMask;
    fn c_smask_free(m: *mut CSparseMask);
    fn c_smask_set(m: *mut CSparseMask, elem: c_int);
    fn c_smask_clear(m: *mut CSparseMask, elem: c_int);
    fn c_smask_test(m: *const CSparseMask, elem: c_int) -> bool;
    fn c_smask_next(m: *const CSparseMask, origin: c_int, prev: c_int) -> c_int;

    fn c_steal_search(
        m: *const CSparseMask,
        smt_siblings: *const c_ulong,
        dst: c_int,
        answer: *const u8,
        tried: *mut c_int,
        max_tried: c_uint,
        nr_tried: *mut c_uint,
    ) -> c_int;
}

/// An element or CPU as C's `int`: a value past `i32::MAX` is some other
/// out-of-range value there, never -1.
pub fn int(v: u32) -> c_int {
    c_int::try_from(v).unwrap_or(c_int::MAX)
}

/// A described machine for idle.c's picking code.
pub struct Idle {
    m: *mut CIdle,
    nr_cpus: usize,
    nr_nodes: usize,
}

impl Idle {
    /// The machine: `siblings` and the masks row by row (`nr_cpus` bools
    /// each; the masks have `nr_nodes + 1` rows, the global one last).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        nr_cpus: usize,
        nr_nodes: usize,
        cpu_node: &[u32],
        siblings: &[bool],
        distance: &[u32],
        online: &[bool],
        cpu: &[bool],
        smt: &[bool],
    ) -> Idle {
        assert_eq!(cpu_node.len(), nr_cpus);
        assert_eq!(siblings.len(), nr_cpus * nr_cpus);
        assert_eq!(distance.len(), nr_nodes * nr_nodes);
        assert_eq!(online.len(), nr_nodes);
        assert_eq!(cpu.len(), (nr_nodes + 1) * nr_cpus);
        assert_eq!(smt.len(), (nr_nodes + 1) * nr_cpus);
        // SAFETY: every array has the length c_idle_new() reads.
        let m = unsafe {
            c_idle_new(
                nr_cpus as c_uint,
                nr_nodes as c_uint,
                cpu_node.as_ptr(),
                siblings.as_ptr(),
                distance.as_ptr(),
                online.as_ptr(),
                cpu.as_ptr(),
                smt.as_ptr(),
            )
        };
        assert!(
            !m.is_null(),
            "c_idle_new: {nr_cpus} CPUs, {nr_nodes} nodes do not fit"
        );
        Idle {
            m,
            nr_cpus,
            nr_nodes,
        }
    }

    /// `scx_idle_test_and_clear_cpu()`; `cpu` must be a CPU of the machine.
    pub fn claim(&mut self, cpu: u32, state: u32) -> bool {
        assert!(
            (cpu as usize) < self.nr_cpus,
            "C claims CPUs of the machine only"
        );
        // SAFETY: self.m is live and cpu is one of its CPUs.
        unsafe { c_idle_claim(self.m, int(cpu), state) }
    }

    /// `scx_pick_idle_cpu()`, or `pick_idle_cpu_in_node()` with `in_node`.
    pub fn pick(
        &mut self,
        allowed: &[bool],
        node: Option<u32>,
        flags: u64,
        state: u32,
        in_node: bool,
    ) -> i32 {
        let node = node.map_or(-1, int);
        assert_eq!(allowed.len(), self.nr_cpus);
        // SAFETY: self.m is live; allowed has its nr_cpus entries.
        unsafe { c_idle_pick(self.m, allowed.as_ptr(), node, flags, state, in_node) }
    }

    pub fn cursor(&self) -> u32 {
        // SAFETY: self.m is live.
        unsafe { c_idle_cursor(self.m) }
    }

    /// The masks, as the model's `(cpu, smt)` rows: `nr_nodes + 1` sets.
    pub fn masks(&self) -> (Vec<Vec<bool>>, Vec<Vec<bool>>) {
        let (nr_cpus, sets) = (self.nr_cpus, self.nr_nodes + 1);
        let rows = |smt: bool| {
            (0..sets)
                .map(|s| {
                    (0..nr_cpus)
                        // SAFETY: self.m is live; s and c are in range.
                        .map(|c| unsafe { c_idle_bit(self.m, s as c_uint, smt, c as c_uint) })
                        .collect()
                })
                .collect()
        };
        (rows(false), rows(true))
    }
}

impl Drop for Idle {
    fn drop(&mut self) {
        // SAFETY: self.m came from c_idle_new() and is freed once.
        unsafe { c_idle_free(self.m) }
    }
}

/// fair.c's `select_idle_capacity()` (with its SIS_UTIL budget): the CPU,
/// whether it cleared the idle-cores hint, and the CPUs it looked at.
pub fn asym_scan(
    cpus: &[AsymCpu],
    mask: &[usize],
    target: usize,
    task: &TaskFit,
    sis_util: bool,
    nr_idle_scan: i32,
    has_idle_core: bool,
) -> (i32, bool, Vec<u32>) {
    let mut seen = vec![0 as c_int; 4 * cpus.len() + 4];
    let (mut nr, mut cleared) = (0 as c_uint, false);
    assert!(mask.len() * usize::BITS as usize >= cpus.len());
    // SAFETY: cpus and mask cover nbits = cpus.len() CPUs; seen holds
    // max_seen entries.
    let cpu = unsafe {
        c_asym_scan(
            cpus.as_ptr(),
            mask.as_ptr() as *const c_ulong,
            cpus.len() as c_uint,
            target as c_int,
            task.util as c_ulong,
            task.uclamp_min as c_ulong,
            task.uclamp_max as c_ulong,
            task.uclamp_used,
            sis_util,
            nr_idle_scan,
            has_idle_core,
            seen.as_mut_ptr(),
            seen.len() as c_uint,
            &mut nr,
            &mut cleared,
        )
    };
    assert!((nr as usize) <= seen.len(), "C looked at {nr} CPUs");
    seen.truncate(nr as usize);
    (cpu, cleared, seen.into_iter().map(|c| c as u32).collect())
}

/// fair.c's `util_fits_cpu()` of `cpu`.
pub fn util_fits_cpu(cpus: &[AsymCpu], cpu: usize, task: &TaskFit) -> i32 {
    assert!(cpu < cpus.len());
    // SAFETY: cpu indexes cpus.
    unsafe {
        c_asym_util_fits_cpu(
            cpus.as_ptr(),
            cpu as c_int,
            task.util as c_ulong,
            task.uclamp_min as c_ulong,
            task.uclamp_max as c_ulong,
            task.uclamp_used,
        )
    }
}

/// fair.c's `asym_fits_cpu()` of `cpu`, with SMT active if `smt`.
pub fn asym_fits_cpu(cpus: &[AsymCpu], cpu: usize, task: &TaskFit, smt: bool) -> bool {
    assert!(cpu < cpus.len());
    // SAFETY: cpu indexes cpus.
    unsafe {
        c_asym_fits_cpu(
            cpus.as_ptr(),
            cpu as c_int,
            task.util as c_ulong,
            task.uclamp_min as c_ulong,
            task.uclamp_max as c_ulong,
            task.uclamp_used,
            smt,
        )
    }
}

/// The steal series' C sparsemask (`kernel/sched/sparsemask.h`).
pub struct SparseMask {
    m: *mut CSparseMask,
    nelems: usize,
}

impl SparseMask {
    pub fn new(nelems: u32, density: u32) -> SparseMask {
        // SAFETY: plain integers; NULL is checked.
        let m = unsafe { c_smask_new(int(nelems), int(density)) };
        assert!(!m.is_null(), "c_smask_new({nelems}, {density})");
        SparseMask {
            m,
            nelems: nelems as usize,
        }
    }

    pub fn set(&mut self, e: u32) {
        // SAFETY: self.m is live; C checks the element.
        unsafe { c_smask_set(self.m, int(e)) }
    }

    pub fn clear(&mut self, e: u32) {
        // SAFETY: as set().
        unsafe { c_smask_clear(self.m, int(e)) }
    }

    pub fn test(&self, e: u32) -> bool {
        // SAFETY: as set().
        unsafe { c_smask_test(self.m, int(e)) }
    }

    /// `sparsemask_next()`: `None` for the end of the walk (C's `nelems`).
    pub fn next(&self, origin: u32, prev: Option<u32>, nelems: u32) -> Option<u32> {
        let prev = prev.map_or(-1, int);
        // SAFETY: self.m is live; C checks origin and prev.
        let e = unsafe { c_smask_next(self.m, int(origin), prev) };
        (e as u32 != nelems).then_some(e as u32)
    }

    /// `steal_search()` on this mask: the CPU it took from (or -1) and the
    /// candidates it tried. `answer[cpu]`: 0 taken, 1 refused, 2 stop.
    pub fn steal_search(
        &self,
        siblings: Option<&[usize]>,
        dst: u32,
        answer: &[u8],
    ) -> (i32, Vec<u32>) {
        let mut tried = vec![0 as c_int; 2 * answer.len() + 2];
        let mut nr = 0 as c_uint;
        assert_eq!(answer.len(), self.nelems);
        if let Some(s) = siblings {
            assert!(s.len() * usize::BITS as usize >= self.nelems);
        }
        let sib = siblings.map_or(core::ptr::null(), |s| s.as_ptr() as *const c_ulong);
        // SAFETY: self.m is live; siblings (if any) covers the mask's
        // elements, answer one entry per element, tried max_tried entries.
        let got = unsafe {
            c_steal_search(
                self.m,
                sib,
                int(dst),
                answer.as_ptr(),
                tried.as_mut_ptr(),
                tried.len() as c_uint,
                &mut nr,
            )
        };
        assert!((nr as usize) <= tried.len(), "C tried {nr} candidates");
        tried.truncate(nr as usize);
        (got, tried.into_iter().map(|c| c as u32).collect())
    }
}

impl Drop for SparseMask {
    fn drop(&mut self) {
        // SAFETY: self.m came from c_smask_new() and is freed once.
        unsafe { c_smask_free(self.m) }
    }
}
