// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: sparsemask operations and walks against the steal series'
//! C sparsemask and a `Vec<bool>`.
//!
//! The input picks a density, a size, optional junk in the bits that are no
//! element (above `2^density` in a chunk, or past `nelems`), then a sequence
//! of set/clear/test (in and out of range), single `next()` steps from any
//! `prev` and whole walks from any origin; each result is compared with the
//! C sparsemask (`kernel/sched/sparsemask.h`, compiled from `c/upstream.c`,
//! on a mask of its own with the same elements) and with the model in
//! `tests/models/sparsemask.rs`.

#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sched_rust_core::sparsemask::{chunks_for, Chunk, SparseMask, DENSITY_MAX};

#[path = "../../tests/models/mod.rs"]
mod models;

use models::sparsemask::{model_next, model_walk, next_walk};

#[path = "../c/upstream.rs"]
mod upstream;

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

/// An element: mostly in range, sometimes just past it, rarely anything.
fn elem(u: &mut Unstructured<'_>, nelems: u32) -> Result<u32> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 => u.arbitrary()?,
        1 => nelems.saturating_add(u.int_in_range(0..=70)?),
        _ => u.int_in_range(0..=nelems.saturating_sub(1))?,
    })
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let density = u.int_in_range(0..=DENSITY_MAX)?;
    let nelems: u32 = u.int_in_range(0..=700)?;
    let needed = chunks_for(nelems, density).unwrap();
    let storage: Vec<Chunk> = (0..needed + u.int_in_range(0..=2)?)
        .map(|_| Chunk::default())
        .collect();

    // Too little storage or too large a density is refused.
    assert!(SparseMask::new(nelems, density, &storage[..needed - 1]).is_none());
    assert!(SparseMask::new(nelems, DENSITY_MAX + 1 + density, &storage).is_none());

    // Junk where no element lives: the mask must never see it.
    if u.arbitrary()? {
        let per_chunk = 1u64 << density;
        for (i, chunk) in storage.iter().enumerate() {
            let mut junk: usize = u.arbitrary()?;
            for b in 0..per_chunk.min(64) {
                if i as u64 * per_chunk + b < u64::from(nelems) {
                    junk &= !(1usize << b);
                }
            }
            chunk.store(junk);
        }
    }

    let mask = SparseMask::new(nelems, density, &storage).unwrap();
    assert_eq!(mask.nelems(), nelems);
    let mut model = vec![false; nelems as usize];
    let mut c = upstream::SparseMask::new(nelems, density);
    let c_walk = |c: &upstream::SparseMask, origin: u32| {
        let mut walk = Vec::new();
        let mut prev = None;
        while let Some(e) = c.next(origin, prev, nelems) {
            assert!(
                walk.len() <= nelems as usize,
                "C walk from {origin} does not end"
            );
            walk.push(e);
            prev = Some(e);
        }
        walk
    };

    while !u.is_empty() {
        match u.int_in_range(0u8..=4)? {
            0 => {
                let e = elem(u, nelems)?;
                mask.set(e);
                c.set(e);
                if let Some(m) = model.get_mut(e as usize) {
                    *m = true;
                }
            }
            1 => {
                let e = elem(u, nelems)?;
                mask.clear(e);
                c.clear(e);
                if let Some(m) = model.get_mut(e as usize) {
                    *m = false;
                }
            }
            2 => {
                let e = elem(u, nelems)?;
                assert_eq!(
                    mask.test(e),
                    model.get(e as usize) == Some(&true),
                    "test({e})"
                );
                assert_eq!(c.test(e), mask.test(e), "C test({e})");
            }
            3 => {
                let origin = elem(u, nelems)?;
                let prev = if u.arbitrary()? {
                    Some(elem(u, nelems)?)
                } else {
                    None
                };
                assert_eq!(
                    mask.next(origin, prev),
                    model_next(&model, origin, prev),
                    "next({origin}, {prev:?})"
                );
                assert_eq!(
                    c.next(origin, prev, nelems),
                    mask.next(origin, prev),
                    "C next({origin}, {prev:?})"
                );
            }
            _ => {
                let origin = elem(u, nelems)?;
                let want = model_walk(&model, origin);
                assert_eq!(next_walk(&mask, origin), want, "walk from {origin}");
                assert_eq!(
                    mask.iter_from(origin).collect::<Vec<_>>(),
                    want,
                    "iter_from({origin})"
                );
                assert_eq!(c_walk(&c, origin), want, "C walk from {origin}");
            }
        }
    }
    assert_eq!(mask.iter_from(0).collect::<Vec<_>>(), model_walk(&model, 0));
    Ok(())
}
