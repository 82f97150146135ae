// SPDX-License-Identifier: GPL-2.0
/*
 * The C twins of floor.rs: empty functions with the signatures of the
 * single-word exports, in their own unit (never LTO) so that the compiler
 * of bench.c cannot see through them. bench.c's "empty call" rows time a
 * call from C to these against the same call to floor.rs's.
 */
#include <stdbool.h>

void bench_c_empty_set(void *mask, int elem);
bool bench_c_empty_test(const void *mask, int elem);
bool bench_c_empty_fits(const void *task, bool smt_active, const void *cpu);

void bench_c_empty_set(void *mask, int elem)
{
}

bool bench_c_empty_test(const void *mask, int elem)
{
	return false;
}

bool bench_c_empty_fits(const void *task, bool smt_active, const void *cpu)
{
	return false;
}
