/* SPDX-License-Identifier: MIT */
/*
 * cmpxchg128 on x86-64, for both backends: inline lock cmpxchg16b.  The C11
 * builtin is no use here: gcc-12 calls libatomic for a 16-byte CAS even with
 * -mcx16, and without -mcx16 clang does too.  Users need no flag.
 *
 * The lock is __KA_LOCK_PREFIX, recorded and dropped on one CPU like every
 * other RMW's: the kernel's arch_cmpxchg128 uses LOCK_PREFIX too (only the
 * sync_ forms, for memory shared with another agent, keep a literal lock),
 * and without the prefix cmpxchg16b is still one instruction, which nothing
 * on the same CPU can split.
 */
#ifndef KATOMIC_ARCH_X86_64_CMPXCHG128_H
#define KATOMIC_ARCH_X86_64_CMPXCHG128_H

#include <cpuid.h>
#include "x86_64-lock.h"

#define KATOMIC_HAVE_CMPXCHG128 1

__extension__ typedef unsigned __int128 ka_u128;

#define __KA_X86_TRY_CMPXCHG16B(name, lock)					\
static __ka_always_inline bool name(ka_u128 *p, ka_u128 *old, ka_u128 newv)	\
{										\
	bool ok;								\
	unsigned long long lo = (unsigned long long)*old;			\
	unsigned long long hi = (unsigned long long)(*old >> 64);		\
										\
	__asm__ __volatile__(lock "cmpxchg16b %[mem]"				\
		: "=@ccz"(ok), [mem] "+m"(*p), "+a"(lo), "+d"(hi)		\
		: "b"((unsigned long long)newv),				\
		  "c"((unsigned long long)(newv >> 64))				\
		: "memory");							\
	if (!ok)								\
		*old = ((ka_u128)hi << 64) | lo;				\
	return ok;								\
}
__KA_X86_TRY_CMPXCHG16B(__ka_x86_try_cmpxchg16b, __KA_LOCK_PREFIX)
__KA_X86_TRY_CMPXCHG16B(__ka_x86_try_cmpxchg16b_local, "")	/* this CPU only: no lock */

/* The locked instruction is a full barrier: every order is the same code. */
#define ka_arch_try_cmpxchg128(p, o, n)		__ka_x86_try_cmpxchg16b(p, o, n)
#define ka_arch_try_cmpxchg128_local(p, o, n)	__ka_x86_try_cmpxchg16b_local(p, o, n)

/* CMPXCHG16B is missing only on the first 64-bit CPUs (before 2006). */
static inline bool ka_system_has_cmpxchg128(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_CMPXCHG16B);
}

#endif
