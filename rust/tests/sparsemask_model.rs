// SPDX-License-Identifier: GPL-2.0

//! Property tests of the sparsemask against a plain `Vec<bool>` model
//! (`models/sparsemask.rs`, shared with the fuzz target).

mod models;

use models::sparsemask::{model_walk, next_walk};
use proptest::prelude::*;
use sched_rust_core::sparsemask::{chunks_for, Chunk, SparseMask, DENSITY_MAX};

fn chunks(nelems: u32, density: u32) -> Vec<Chunk> {
    let n = chunks_for(nelems, density).expect("density in range");
    (0..n).map(|_| Chunk::default()).collect()
}

fn mask_strategy(max_nelems: u32) -> impl Strategy<Value = (u32, Vec<bool>)> {
    (0..=DENSITY_MAX, 0..=max_nelems).prop_flat_map(|(density, nelems)| {
        (
            Just(density),
            prop::collection::vec(prop::bool::weighted(0.3), nelems as usize),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn walk_matches_model((density, model) in mask_strategy(700), origin in 0u32..800) {
        let n = model.len() as u32;
        let storage = chunks(n, density);
        let mask = SparseMask::new(n, density, &storage).unwrap();
        for (e, &bit) in model.iter().enumerate() {
            if bit {
                mask.set(e as u32);
            }
        }
        let want = model_walk(&model, origin);
        prop_assert_eq!(&next_walk(&mask, origin), &want);
        prop_assert_eq!(&mask.iter_from(origin).collect::<Vec<_>>(), &want);
        for e in 0..n + 70 {
            prop_assert_eq!(mask.test(e), model.get(e as usize).copied().unwrap_or(false));
        }
    }

    #[test]
    fn set_clear_touch_only_their_bit(density in 0..=DENSITY_MAX, n in 1u32..300, ops in prop::collection::vec((any::<bool>(), 0u32..400), 0..200)) {
        let storage = chunks(n, density);
        let mask = SparseMask::new(n, density, &storage).unwrap();
        let mut model = vec![false; n as usize];
        for (set, e) in ops {
            if set { mask.set(e) } else { mask.clear(e) }
            if let Some(m) = model.get_mut(e as usize) {
                *m = set;
            }
        }
        // The raw layout: element e at bit (e mod 2^d) of chunk (e >> d),
        // nothing anywhere else (in particular not in the spare chunk).
        let per_chunk = 1u32 << density;
        for (c, chunk) in storage.iter().enumerate() {
            let mut want = 0usize;
            for b in 0..per_chunk {
                let e = c as u32 * per_chunk + b;
                if model.get(e as usize).copied().unwrap_or(false) {
                    want |= 1 << b;
                }
            }
            prop_assert_eq!(chunk.load(), want, "chunk {}", c);
        }
    }

    #[test]
    fn stray_bits_above_density_are_ignored(density in 0..DENSITY_MAX, n in 1u32..200, origin in 0u32..200) {
        let storage = chunks(n, density);
        for c in &storage {
            c.store(!0usize << (1u32 << density));
        }
        let mask = SparseMask::new(n, density, &storage).unwrap();
        prop_assert_eq!(mask.iter_from(origin).count(), 0);
    }

    #[test]
    fn prev_out_of_range_ends_walk(n in 1u32..100, prev in 100u32..) {
        let storage = chunks(n, 3);
        let mask = SparseMask::new(n, 3, &storage).unwrap();
        mask.set(0);
        prop_assert_eq!(mask.next(0, Some(prev)), None);
    }
}

/// The cases where the v4/v5 `sparsemask_next()` stopped early or missed
/// the wrapped part (seed-series.md §1.2): the walk must be complete.
#[test]
fn v4_defect_regressions() {
    #[allow(clippy::type_complexity)]
    let cases: &[(u32, u32, u32, &[u32], &[u32])] = &[
        // (nelems, density, origin, set, expected walk)
        (16, 3, 4, &[1, 3, 5, 9, 12], &[5, 9, 12, 1, 3]),
        (160, 3, 100, &[70, 71, 150], &[150, 70, 71]),
        (2, 3, 1, &[0], &[0]),
        (20, 3, 5, &[19, 2], &[19, 2]),
        (20, 3, 19, &[19, 0, 7], &[19, 0, 7]),
    ];
    for &(n, d, origin, set, want) in cases {
        let storage = chunks(n, d);
        let mask = SparseMask::new(n, d, &storage).unwrap();
        set.iter().for_each(|&e| mask.set(e));
        assert_eq!(
            next_walk(&mask, origin),
            want,
            "n={n} d={d} origin={origin}"
        );
    }
}

#[test]
fn bad_construction_is_refused() {
    let storage = chunks(8, 3);
    assert!(SparseMask::new(8, DENSITY_MAX + 1, &storage).is_none());
    assert!(
        SparseMask::new(16, 3, &storage).is_none(),
        "needs 3 chunks, has 2"
    );
    assert!(SparseMask::new(15, 3, &storage).is_some());
    assert_eq!(chunks_for(0, 0), Some(1));
    assert_eq!(chunks_for(8192, 3), Some(1025));
}
