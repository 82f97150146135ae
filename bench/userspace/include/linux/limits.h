/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/limits.h>: see ../sched_rust_shim.h. The C library
 * includes the UAPI header of this name too, which comes first.
 */
#include_next <linux/limits.h>
#include "../sched_rust_shim.h"
