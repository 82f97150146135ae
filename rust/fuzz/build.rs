// SPDX-License-Identifier: GPL-2.0

//! Builds the C side of the fuzz targets, `c/upstream.c`: the project's C
//! headers (idle.c's and fair.c's own bodies, the steal series' sparsemask
//! and walk) over the userspace benchmark's shims, with clang, instrumented
//! for libFuzzer's coverage like the Rust code. The objects are linked into
//! every fuzz target.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let top = dir.join("../..");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let clang = env::var("SCHED_RUST_FUZZ_CC").unwrap_or_else(|_| "clang-22".into());
    // The kernel headers that need nothing but the shim
    // (bench/userspace/include/forwarded), as the replica's Makefile makes them.
    let shim = top.join("bench/userspace/include");
    let forwarded = out.join("include/linux");
    std::fs::create_dir_all(&forwarded).unwrap();
    let list = std::fs::read_to_string(shim.join("forwarded")).unwrap();
    for name in list.split_whitespace() {
        let text = format!(
            "#include \"{}\"\n",
            shim.join("sched_rust_shim.h").display()
        );
        std::fs::write(forwarded.join(format!("{name}.h")), text).unwrap();
    }
    let sources = [
        dir.join("c/upstream.c"),
        top.join("bench/userspace/shim_lib.c"),
    ];
    for src in &sources {
        let obj = out.join(src.file_name().unwrap()).with_extension("o");
        let status = Command::new(&clang)
            .args(["-c", "-std=gnu11", "-O1", "-g", "-Wall", "-Werror"])
            // The kernel's own overflow semantics (top-level Makefile):
            // signed overflow wraps, as in fair.c's `--nr <= 0` on a budget
            // of INT_MIN.
            .args([
                "-fno-strict-aliasing",
                "-fno-strict-overflow",
                "-D__KERNEL__",
            ])
            .arg("-fsanitize-coverage=inline-8bit-counters,pc-table,trace-cmp")
            .arg("-I")
            .arg(&shim)
            .arg("-I")
            .arg(out.join("include"))
            .arg("-I")
            .arg(top.join("kernel-glue/kernel/sched"))
            .arg("-I")
            .arg(top.join("kunit-tests/kernel/sched"))
            .arg(src)
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap_or_else(|e| panic!("{clang}: {e} (SCHED_RUST_FUZZ_CC names the compiler)"));
        assert!(status.success(), "{clang} failed on {}", src.display());
        println!("cargo:rustc-link-arg-bins={}", obj.display());
    }
    println!("cargo:rerun-if-env-changed=SCHED_RUST_FUZZ_CC");
    println!("cargo:rerun-if-changed=c/upstream.c");
    for d in [
        "bench/userspace",
        "kernel-glue/kernel/sched",
        "kunit-tests/kernel/sched",
    ] {
        println!("cargo:rerun-if-changed={}", top.join(d).display());
    }
}
