// SPDX-License-Identifier: GPL-2.0

//! Stand-in for the kernel's `macros` crate in the userspace replica
//! (`bench/userspace/`): the `#[export]` attribute, and `#[kunit_tests]`
//! for the userspace run of the helpers' KUnit cases (`make -C
//! bench/userspace test`), where the module's `#[test]` functions become
//! tests of the standard harness.
//!
//! As the kernel's (`rust/macros/export.rs`), it checks at compile time
//! that the function has the type of the prototype that bindgen generated
//! from `kernel/sched/sched_rust.h`, then makes the symbol unmangled. It is
//! written without `syn`/`quote`, which the userspace build does not have.

use proc_macro::{TokenStream, TokenTree};

/// `#[export]`: the function keeps its name, and must match its C prototype.
#[proc_macro_attribute]
pub fn export(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut tokens = item.clone().into_iter();
    let mut name = None;
    while let Some(token) = tokens.next() {
        if let TokenTree::Ident(ident) = &token {
            if ident.to_string() == "fn" {
                if let Some(TokenTree::Ident(n)) = tokens.next() {
                    name = Some(n.to_string());
                }
                break;
            }
        }
    }
    let Some(name) = name else {
        return "compile_error!(\"#[export] applies to functions\");"
            .parse()
            .unwrap_or_default();
    };
    let check = format!(
        "const _: () = {{ if true {{ ::kernel::bindings::{name} }} else {{ {name} }}; }}; #[unsafe(no_mangle)]"
    );
    let mut out: TokenStream = check.parse().unwrap_or_default();
    out.extend(item);
    out
}

/// `#[kunit_tests(suite)]`: the module unchanged; built with `--test`, its
/// `#[test]` functions run under the standard test harness.
#[proc_macro_attribute]
pub fn kunit_tests(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
