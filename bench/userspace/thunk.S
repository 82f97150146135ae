/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The return thunk of the "distro" variant: with -mfunction-return=
 * thunk-extern (C) and -Zfunction-return=thunk-extern (Rust) every return
 * is a jump here. This is the safe-RET thunk of arch/x86/lib/retpoline.S,
 * srso_alias_return_thunk: a call to a ret that drops its own return
 * address, so that the ret returns to the function's caller. It is the
 * Speculative Return Stack Overflow mitigation that the kernel of this
 * project's machines reports (AMD EPYC: "spec_rstack_overflow: Vulnerable:
 * Safe RET, no microcode"), and the default of distribution kernels on the
 * AMD CPUs that need one.
 */
	.text
	.globl	__x86_return_thunk
	.type	__x86_return_thunk, @function
	.p2align 6
__x86_return_thunk:
	call	srso_alias_safe_ret
	ud2
	.size	__x86_return_thunk, . - __x86_return_thunk

	.type	srso_alias_safe_ret, @function
srso_alias_safe_ret:
	lea	8(%rsp), %rsp
	ret
	int3
	.size	srso_alias_safe_ret, . - srso_alias_safe_ret

	.section .note.GNU-stack, "", @progbits
