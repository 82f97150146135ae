// SPDX-License-Identifier: GPL-2.0

//! The sparsemask as a `Vec<bool>`.

use sched_rust_core::sparsemask::SparseMask;

/// The reference walk: every set element from `origin` up, then from 0.
pub fn model_walk(model: &[bool], origin: u32) -> Vec<u32> {
    let n = model.len() as u32;
    let origin = if origin < n { origin } else { 0 };
    (origin..n)
        .chain(0..origin)
        .filter(|&e| model[e as usize])
        .collect()
}

/// Walks `mask` through `next()` directly, as the C loop does.
pub fn next_walk(mask: &SparseMask<'_>, origin: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut prev = None;
    while let Some(e) = mask.next(origin, prev) {
        assert!(
            out.len() <= mask.nelems() as usize,
            "walk does not terminate"
        );
        out.push(e);
        prev = Some(e);
    }
    out
}

/// What `next(origin, prev)` returns on the model: the element after
/// `prev` in [`model_walk`], or `None` at its end or for a `prev` that is
/// not an element.
pub fn model_next(model: &[bool], origin: u32, prev: Option<u32>) -> Option<u32> {
    let walk = model_walk(model, origin);
    match prev {
        None => walk.first().copied(),
        Some(p) if p as usize >= model.len() => None,
        Some(p) => {
            // `prev` need not be set: continue from its place in the order.
            let n = model.len() as u32;
            let origin = if origin < n { origin } else { 0 };
            let rank = |e: u32| (e + n - origin) % n;
            walk.into_iter().find(|&e| rank(e) > rank(p))
        }
    }
}
