// SPDX-License-Identifier: GPL-2.0

//! Fuzz target: the steal candidate walk against the C walk and the
//! `try_steal()` loops.
//!
//! The input picks an overload mask (any density, any size), a destination
//! (in or out of range), an SMT sibling bitmap of any shape (or none, SMT
//! off), with junk past the mask's size, and what each attempt does (take,
//! refuse, stop);
//! `steal_search()` must try exactly the candidates of the C walk
//! (`kernel/sched/steal_search.h`, compiled from `c/upstream.c`, on a C
//! sparsemask with the same elements and the same sibling words) and of the
//! model in `tests/models/steal.rs`, in their order, and return the one that
//! took (none when an attempt said stop).

#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sched_rust_core::bits::CpuBitmap;
use sched_rust_core::sparsemask::{chunks_for, Chunk, SparseMask, DENSITY_MAX};
use sched_rust_core::steal::{steal_search, Attempt};
use sched_rust_core::sync::{Relaxed, Word};

#[path = "../../tests/models/mod.rs"]
mod models;

use models::steal::{answer_of, model};

#[path = "../c/upstream.rs"]
mod upstream;

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

const W: usize = usize::BITS as usize;

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let density = u.int_in_range(0..=DENSITY_MAX)?;
    let n: usize = u.int_in_range(1..=300)?;
    // `n` itself: a destination out of range (the walk starts at 0).
    let dst: usize = u.int_in_range(0..=n)?;
    let smt: bool = u.arbitrary()?;
    let mut overload = vec![false; n];
    let mut sib = vec![false; n];
    let mut answer = vec![Attempt::Refused; n];
    for cpu in 0..n {
        let b: u8 = u.arbitrary()?;
        overload[cpu] = b & 3 == 0;
        sib[cpu] = b & 0x1c == 0;
        answer[cpu] = answer_of(b >> 5);
    }

    let chunks: Vec<Chunk> = (0..chunks_for(n as u32, density).unwrap())
        .map(|_| Chunk::default())
        .collect();
    let mask = SparseMask::new(n as u32, density, &chunks).unwrap();
    for (cpu, &b) in overload.iter().enumerate() {
        if b {
            mask.set(cpu as u32);
        }
    }
    // The sibling bitmap, with junk past `n` (and a word more) to ignore.
    let junk: usize = u.arbitrary()?;
    let words: Vec<Word> = (0..n.div_ceil(W) + 1)
        .map(|w| {
            let mut word = 0usize;
            for b in 0..W {
                match sib.get(w * W + b) {
                    Some(true) => word |= 1 << b,
                    Some(false) => {}
                    None => word |= junk & (1 << b),
                }
            }
            Word::new(word)
        })
        .collect();
    let siblings = smt.then(|| CpuBitmap::new(&words));

    let mut tried = Vec::new();
    let got = steal_search(&mask, siblings.as_ref(), dst as u32, |cpu| {
        tried.push(cpu);
        answer[cpu as usize]
    });
    let (want_tried, want) = model(&overload, smt.then_some(&sib[..]), dst, &answer);
    assert_eq!(tried, want_tried, "candidates");
    assert_eq!(got, want);

    let mut c = upstream::SparseMask::new(n as u32, density);
    for (cpu, &b) in overload.iter().enumerate() {
        if b {
            c.set(cpu as u32);
        }
    }
    let raw: Vec<usize> = words.iter().map(|w| w.load(Relaxed)).collect();
    let code: Vec<u8> = answer
        .iter()
        .map(|a| match a {
            Attempt::Taken => 0,
            Attempt::Refused => 1,
            Attempt::Stop => 2,
        })
        .collect();
    let (c_got, c_tried) = c.steal_search(smt.then_some(&raw[..]), dst as u32, &code);
    assert_eq!(c_tried, tried, "C candidates");
    assert_eq!(c_got, got.map_or(-1, |cpu| cpu as i32), "C result");
    Ok(())
}
