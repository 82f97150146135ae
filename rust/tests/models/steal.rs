// SPDX-License-Identifier: GPL-2.0

//! The steal candidate walk as two plain loops over vectors.

use sched_rust_core::steal::Attempt;

/// The candidates `try_steal()` tries, and the CPU it stole from: the SMT
/// siblings first, then every other overloaded CPU from `dst` up with
/// wrap-around; `answer[cpu]` is what the attempt on `cpu` does.
pub fn model(
    overload: &[bool],
    siblings: Option<&[bool]>,
    dst: usize,
    answer: &[Attempt],
) -> (Vec<u32>, Option<u32>) {
    let n = overload.len();
    let is_sibling = |cpu: usize| siblings.is_some_and(|sib| sib[cpu]);
    let order = (0..n).filter(|&cpu| is_sibling(cpu)).chain(
        (dst..n)
            .chain(0..dst.min(n))
            .filter(|&cpu| !is_sibling(cpu)),
    );
    let mut tried = Vec::new();
    for cpu in order {
        if cpu == dst || !overload[cpu] {
            continue;
        }
        tried.push(cpu as u32);
        match answer[cpu] {
            Attempt::Refused => {}
            Attempt::Taken => return (tried, Some(cpu as u32)),
            Attempt::Stop => return (tried, None),
        }
    }
    (tried, None)
}

/// The attempt's answer from a random byte: mostly refusals.
pub fn answer_of(b: u8) -> Attempt {
    match b % 8 {
        0 | 1 => Attempt::Taken,
        2 => Attempt::Stop,
        _ => Attempt::Refused,
    }
}
