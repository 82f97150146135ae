/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/cache.h>: see ../sched_rust_shim.h. */
#include "../sched_rust_shim.h"
