// SPDX-License-Identifier: GPL-2.0
/*
 * The rust/helpers functions that the helpers' access layer
 * (kernel/sched/sched_rust/sync.rs) calls, as the kernel has them: the
 * bitops of x86 (sched_rust_shim.h) and the atomic_t/atomic64_t operations
 * that sync.rs uses, and those of rust/helpers/topology.c (patch 0014)
 * that the idle picker's production path calls. Built with the variant's
 * flags, LTO included, as CONFIG_RUST_INLINE_HELPERS lets the kernel's
 * inline into Rust.
 */
#include "sched_rust_shim.h"
#include "linux/cpumask.h"

/*
 * rust/helpers/helpers.c: "__rust_helper __always_inline", which lets LLVM
 * inline them into Rust code although the C code has
 * -fno-delete-null-pointer-checks (null_pointer_is_valid) and the Rust code
 * has not; without it LLVM refuses ("nullptr definitions incompatible").
 * The definitions stay external, for the variants that call them.
 */
#define __rust_helper __attribute__((__always_inline__))

typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;

__rust_helper void rust_helper_set_bit(unsigned long nr, volatile unsigned long *addr)
{
	set_bit(nr, addr);
}

__rust_helper void rust_helper_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	clear_bit(nr, addr);
}

__rust_helper bool rust_helper_test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	return test_and_clear_bit(nr, addr);
}

/* arch/x86/include/asm/atomic.h and atomic64_64.h: lock; and. */
__rust_helper void rust_helper_atomic_andnot(int i, atomic_t *v)
{
	__asm__ __volatile__("lock; andl %1,%0" : "+m" (v->counter) : "ir" (~i) : "memory");
}

__rust_helper void rust_helper_atomic64_andnot(long long i, atomic64_t *v)
{
	__asm__ __volatile__("lock; andq %1,%0" : "+m" (v->counter) : "er" (~i) : "memory");
}

__rust_helper int rust_helper_atomic_read(const atomic_t *v)
{
	return *(const volatile int *)&v->counter;
}

__rust_helper void rust_helper_atomic_set(atomic_t *v, int i)
{
	*(volatile int *)&v->counter = i;
}

/*
 * rust/helpers/topology.c, for the Rust idle picker's production path
 * (sched_rust_idle_pick() and co., which read the running system), which
 * the replica links but does not benchmark: the idle pick rows run the
 * described-machine exports (sched_rust_idle_machine_*). So the running
 * system here is a minimal one: every CPU on node 0, without SMT siblings
 * (cpu_smt_mask() of !CONFIG_SCHED_SMT: cpumask_of(cpu)).
 */

__rust_helper int rust_helper_cpu_to_node(int cpu)
{
	(void)cpu;
	return 0;
}

__rust_helper const struct cpumask *rust_helper_cpu_smt_mask(int cpu)
{
	return cpumask_of(cpu);
}
