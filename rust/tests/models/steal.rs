// SPDX-License-Identifier: GPL-2.0

//! The steal candidate walk as the posted `try_steal()` loops.

/// The candidates `try_steal()` tries, written as the series' two loops
/// over plain vectors; `accept` says which attempts succeed.
pub fn model(
    overload: &[bool],
    siblings: Option<&[bool]>,
    dst: usize,
    accept: &[bool],
) -> Vec<u32> {
    let n = overload.len();
    let mut tried = Vec::new();
    if let Some(sib) = siblings {
        for cpu in 0..n {
            if sib[cpu] && cpu != dst && overload[cpu] {
                tried.push(cpu as u32);
                if accept[cpu] {
                    return tried;
                }
            }
        }
    }
    for cpu in (dst..n).chain(0..dst) {
        if overload[cpu] && cpu != dst {
            tried.push(cpu as u32);
            if accept[cpu] {
                return tried;
            }
        }
    }
    tried
}
