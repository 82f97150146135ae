/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rust/bindings/bindings_helper.h gives the helpers' crate in the
 * kernel, for the replica's bindgen: the prototypes and views
 * (sched_rust.h), the capacity fit's rank enum (asym_fit.h), the kernel
 * constants the cores check theirs against, the lib/ function the idle
 * picker calls on the running system (cpumask_any_and_distribute(), with
 * struct cpumask), and the RUST_CONST_HELPER_* values of the flags bindgen
 * cannot evaluate (the Makefile strips the prefix, as rust/Makefile does).
 * The rust/helpers functions are declared in kernel/lib.rs.
 */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/numa.h>
#include <linux/sched.h>

#include "asym_fit.h"
#include "sched_rust.h"

const u32 RUST_CONST_HELPER_ASYM_VIEW_CORE = ASYM_VIEW_CORE;
const u32 RUST_CONST_HELPER_ASYM_VIEW_UCLAMP = ASYM_VIEW_UCLAMP;
