// SPDX-License-Identifier: GPL-2.0
/*
 * The rust/helpers functions that the helpers' access layer
 * (kernel/sched/sched_rust/sync.rs) calls, as the kernel has them: the
 * bitops of x86 (sched_rust_shim.h) and the atomic_t/atomic64_t operations
 * that sync.rs uses. Built with the variant's flags, LTO included, as
 * CONFIG_RUST_INLINE_HELPERS lets the kernel's inline into Rust.
 */
#include "sched_rust_shim.h"

typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;

void rust_helper_set_bit(unsigned long nr, volatile unsigned long *addr)
{
	set_bit(nr, addr);
}

void rust_helper_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	clear_bit(nr, addr);
}

bool rust_helper_test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	return test_and_clear_bit(nr, addr);
}

/* arch/x86/include/asm/atomic.h and atomic64_64.h: lock; and. */
void rust_helper_atomic_andnot(int i, atomic_t *v)
{
	__asm__ __volatile__("lock; andl %1,%0" : "+m" (v->counter) : "ir" (~i) : "memory");
}

void rust_helper_atomic64_andnot(long long i, atomic64_t *v)
{
	__asm__ __volatile__("lock; andq %1,%0" : "+m" (v->counter) : "er" (~i) : "memory");
}

int rust_helper_atomic_read(const atomic_t *v)
{
	return *(const volatile int *)&v->counter;
}

void rust_helper_atomic_set(atomic_t *v, int i)
{
	*(volatile int *)&v->counter = i;
}
