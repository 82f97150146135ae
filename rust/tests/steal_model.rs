// SPDX-License-Identifier: GPL-2.0

//! Property tests of the steal candidate walk against a direct transcription
//! of the posted `try_steal()` loops (`models/steal.rs`, shared with the
//! fuzz target).

mod models;

use models::steal::{answer_of, model};
use proptest::prelude::*;
use sched_rust_core::bits::CpuBitmap;
use sched_rust_core::sparsemask::{chunks_for, Chunk, SparseMask, DENSITY_DEFAULT};
use sched_rust_core::steal::{steal_search, Attempt};
use sched_rust_core::sync::{Relaxed, Word};

fn topology() -> impl Strategy<Value = (Vec<bool>, usize, usize, Vec<u8>)> {
    // (overload bits, dst, threads per core, each attempt's answer)
    (1usize..300, 1usize..=4).prop_flat_map(|(n, threads)| {
        (
            prop::collection::vec(prop::bool::weighted(0.2), n),
            0..n,
            Just(threads),
            prop::collection::vec(any::<u8>(), n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn walk_matches_model((overload_bits, dst, threads, answers) in topology(), smt in any::<bool>()) {
        let n = overload_bits.len();
        let chunks: Vec<Chunk> = (0..chunks_for(n as u32, DENSITY_DEFAULT).unwrap())
            .map(|_| Chunk::default()).collect();
        let overload = SparseMask::new(n as u32, DENSITY_DEFAULT, &chunks).unwrap();
        for (cpu, &b) in overload_bits.iter().enumerate() {
            if b { overload.set(cpu as u32) }
        }
        // dst's core: the aligned group of `threads` CPUs around it.
        let core = dst / threads * threads;
        let sib: Vec<bool> = (0..n).map(|c| c >= core && c < core + threads).collect();
        let words: Vec<Word> = (0..n.div_ceil(64) + 1)
            .map(|w| Word::new((0..64).filter(|b| sib.get(w * 64 + b) == Some(&true)).fold(0, |a, b| a | 1 << b)))
            .collect();
        // Stray bits past nelems in the bitmap must be ignored.
        if let Some(last) = words.last() { last.store(usize::MAX, Relaxed) }
        let siblings = smt.then(|| CpuBitmap::new(&words));

        let answer: Vec<Attempt> = answers.iter().map(|&b| answer_of(b)).collect();
        let mut tried = Vec::new();
        let got = steal_search(&overload, siblings.as_ref(), dst as u32, |cpu| { tried.push(cpu); answer[cpu as usize] });
        let (want_tried, want) = model(&overload_bits, smt.then_some(&sib[..]), dst, &answer);
        prop_assert_eq!(&tried, &want_tried);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn empty_mask_and_lone_destination_try_nothing() {
    let chunks: Vec<Chunk> = (0..3).map(|_| Chunk::default()).collect();
    let overload = SparseMask::new(13, DENSITY_DEFAULT, &chunks).unwrap();
    let words = [Word::new(0b11 << 4)];
    let mut tried = 0;
    assert_eq!(
        steal_search(&overload, Some(&CpuBitmap::new(&words)), 5, |_| {
            tried += 1;
            Attempt::Taken
        }),
        None
    );
    overload.set(5);
    assert_eq!(
        steal_search(&overload, Some(&CpuBitmap::new(&words)), 5, |_| {
            tried += 1;
            Attempt::Taken
        }),
        None
    );
    assert_eq!(tried, 0);
}
