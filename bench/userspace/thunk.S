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


/*
 * The retpolines of the "distro" variants (-mretpoline-external-thunk, and
 * the Rust target's retpoline features): every indirect call or jump is a
 * call or jump to __x86_indirect_thunk_<reg>. arch/x86/lib/retpoline.S's
 * RETPOLINE: the host's kernel reports "spectre_v2: Mitigation: Retpolines"
 * and keeps them. Its RET is the return thunk, as in a kernel with
 * CONFIG_MITIGATION_RETHUNK.
 */
	.macro RETPOLINE reg
	.p2align 5
	.globl	__x86_indirect_thunk_\reg
	.type	__x86_indirect_thunk_\reg, @function
__x86_indirect_thunk_\reg:
	call	.Ldo_rop_\reg
.Lspec_trap_\reg:
	pause
	lfence
	jmp	.Lspec_trap_\reg
.Ldo_rop_\reg:
	mov	%\reg, (%rsp)
	jmp	__x86_return_thunk
	.size	__x86_indirect_thunk_\reg, . - __x86_indirect_thunk_\reg
	.endm

	RETPOLINE rax
	RETPOLINE rcx
	RETPOLINE rdx
	RETPOLINE rbx
	RETPOLINE rbp
	RETPOLINE rsi
	RETPOLINE rdi
	RETPOLINE r8
	RETPOLINE r9
	RETPOLINE r10
	RETPOLINE r11
	RETPOLINE r12
	RETPOLINE r13
	RETPOLINE r14
	RETPOLINE r15

	.section .note.GNU-stack, "", @progbits
