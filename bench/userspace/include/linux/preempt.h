/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/preempt.h>: one thread, nothing to disable. */
#ifndef _SHIM_LINUX_PREEMPT_H
#define _SHIM_LINUX_PREEMPT_H

#define preempt_disable()	barrier()
#define preempt_enable()	barrier()

#endif
