// SPDX-License-Identifier: GPL-2.0

//! Reference models of the helpers, shared by the property tests
//! (`tests/*_model.rs`, as `mod models;`) and the fuzz targets
//! (`fuzz/fuzz_targets/*.rs`, by `#[path]`): plain vectors and direct
//! transcriptions of the C code, with nothing clever in them.
//!
//! Each user takes only the models it needs.

#![allow(dead_code)]

pub mod asym_fit;
pub mod idle_pick;
pub mod sparsemask;
pub mod steal;
