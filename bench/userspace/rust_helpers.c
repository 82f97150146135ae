// SPDX-License-Identifier: GPL-2.0
/*
 * The rust/helpers functions that the helpers call, as the kernel has them:
 * the atomic_t/atomic64_t operations behind kernel::sync::atomic's Atomic
 * that the crate uses, and those of rust/helpers/topology.c (patch 0018)
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
#ifdef __clang__
#define __rust_helper __attribute__((__always_inline__))
#else
/* GCC (the gcc-distro variant): a GCC-built kernel has no inline helpers. */
#define __rust_helper
#endif

typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;

/*
 * rust/helpers/atomic.c and atomic_ext.c, on x86-64 as the kernel builds
 * them: arch/x86/include/asm/atomic.h, atomic64_64.h and rwonce.h. The
 * fetch_andnot() of x86 is the generic fallback, a try_cmpxchg() loop of
 * fetch_and(~i): __atomic_fetch_and() compiles to the same loop.
 */
__rust_helper int rust_helper_atomic_read(const atomic_t *v)
{
	return *(const volatile int *)&v->counter;
}

__rust_helper void rust_helper_atomic_set(atomic_t *v, int i)
{
	*(volatile int *)&v->counter = i;
}

__rust_helper long long rust_helper_atomic64_read(const atomic64_t *v)
{
	return *(const volatile long long *)&v->counter;
}

__rust_helper void rust_helper_atomic64_set(atomic64_t *v, long long i)
{
	*(volatile long long *)&v->counter = i;
}

__rust_helper void rust_helper_atomic64_or(long long i, atomic64_t *v)
{
	__asm__ __volatile__("lock; orq %1,%0" : "+m" (v->counter) : "er" (i) : "memory");
}

__rust_helper void rust_helper_atomic64_andnot(long long i, atomic64_t *v)
{
	__asm__ __volatile__("lock; andq %1,%0" : "+m" (v->counter) : "er" (~i) : "memory");
}

__rust_helper long long rust_helper_atomic64_fetch_andnot(long long i, atomic64_t *v)
{
	return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST);
}

/* x86 has no relaxed form: the relaxed one is the fully ordered one. */
__rust_helper long long rust_helper_atomic64_fetch_andnot_relaxed(long long i, atomic64_t *v)
{
	return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST);
}

__rust_helper const void *rust_helper_atomic_ptr_read(const void **ptr)
{
	return *(const void *const volatile *)ptr;
}

/* smp_load_acquire(): on x86 a plain load and a compiler barrier. */
__rust_helper const void *rust_helper_atomic_ptr_read_acquire(const void **ptr)
{
	return __atomic_load_n(ptr, __ATOMIC_ACQUIRE);
}

/*
 * rust/helpers/topology.c, for the Rust idle picker's production path
 * (sched_rust_idle_pick() and co., which read the running system), which
 * the replica links but does not benchmark: the idle pick rows run the
 * described-machine exports (sched_rust_idle_machine_*). So the running
 * system here is a minimal one: every CPU on node 0, without SMT siblings
 * (cpu_smt_mask() of !CONFIG_SCHED_SMT: cpumask_of(cpu)).
 */

/* rust/helpers/cpumask.c and bitops.c (patch 0014 adds the first two). */
__rust_helper bool rust_helper_cpumask_test_and_clear_cpu(int cpu, struct cpumask *cpumask)
{
	return cpumask_test_and_clear_cpu(cpu, cpumask);
}

__rust_helper bool rust_helper_cpumask_intersects(const struct cpumask *src1p,
						  const struct cpumask *src2p)
{
	return cpumask_intersects(src1p, src2p);
}

__rust_helper bool rust_helper_cpumask_test_cpu(int cpu, struct cpumask *srcp)
{
	return cpumask_test_cpu(cpu, srcp);
}

__rust_helper void rust_helper_cpumask_clear_cpu(int cpu, struct cpumask *dstp)
{
	cpumask_clear_cpu(cpu, dstp);
}

__rust_helper void rust_helper_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	clear_bit(nr, addr);
}

__rust_helper int rust_helper_cpu_to_node(int cpu)
{
	(void)cpu;
	return 0;
}

__rust_helper const struct cpumask *rust_helper_cpu_smt_mask(int cpu)
{
	return cpumask_of(cpu);
}

/* node_distance() of a kernel without NUMA distances. */
__rust_helper int rust_helper_node_distance(int from, int to)
{
	return from == to ? 10 : 20;
}

/* rcu_read_lock()/rcu_read_unlock() of a kernel without preemption. */
__rust_helper void rust_helper_rcu_read_lock(void)
{
	barrier();
}

__rust_helper void rust_helper_rcu_read_unlock(void)
{
	barrier();
}
