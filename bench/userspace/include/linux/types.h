/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/types.h>: see ../sched_rust_shim.h. The C library
 * includes the UAPI header of this name too, which comes first.
 */
#include_next <linux/types.h>
#include "../sched_rust_shim.h"
