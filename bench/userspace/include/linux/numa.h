/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/numa.h>: see ../sched_rust_shim.h. */
#include "../sched_rust_shim.h"
