/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 inline-asm backend (-DKATOMIC_BACKEND_ASM): katomic's minimal
 * primitive set written the way arch/x86/include/asm/{atomic,cmpxchg,
 * rmwcc,bitops,barrier}.h write it.  It is the reference the C11 backend is
 * measured against, and the base for uniprocessor lock elision (up.h).
 *
 *  - Every RMW is `asm volatile` with a "memory" clobber, so every one is a
 *    compiler barrier as well as (being locked) a full CPU barrier: the
 *    generated code uses the full op for the _acquire/_release/_relaxed
 *    forms, and smp_mb__{before,after}_atomic() are compiler barriers.
 *  - Operands are "+m" on the object; sources are "ir" (an immediate or a
 *    register; "er" for 8 bytes: a sign-extended 32-bit immediate); the
 *    bool results of the *_and_test, add_negative, try_cmpxchg and
 *    test_and_*_bit ops come straight from the flags ("=@ccz" / "=@ccs" /
 *    "=@ccc"), so the compiler branches on them directly.
 *  - Size-generic: dispatch on sizeof(*(p)) for 1, 2, 4 and 8 bytes; other
 *    sizes fail at compile time.
 *  - fetch_and/or/xor/andnot have no single x86 instruction: they are left
 *    out, so the generated try_cmpxchg loop is used, exactly as the kernel does.
 *  - Every `lock` prefix is emitted through __KA_LOCK_PREFIX, which records
 *    the address of the prefix byte in the __ka_smp_locks section (the
 *    kernel's .smp_locks): katomic_up_patch() in <katomic/up.h> can then turn
 *    them into harmless DS prefixes when the process can only run on one CPU
 *    (cmpxchg128's lock cmpxchg16b too, as in the kernel).  xchg is locked
 *    by the CPU itself (no prefix); ka_arch_sync_try_cmpxchg (sync_cmpxchg:
 *    memory shared with another agent) uses __KA_LOCK_KEEP and is never
 *    patched.
 */
#ifndef KATOMIC_BACKEND_ASM_H
#define KATOMIC_BACKEND_ASM_H

#if !defined(__x86_64__)
#error "katomic: the asm backend (-DKATOMIC_BACKEND_ASM) is x86-64 only; build without it to get the C11 backend"
#endif

#define KATOMIC_BACKEND_NAME "asm"

/*
 * __KA_LOCK_PREFIX (recorded in __ka_smp_locks: patched on one CPU),
 * __KA_LOCK_KEEP (never patched), __ka_x86_val, __ka_x86_size_check and the
 * lock-parameterised __ka_x86_try_cmpxchg, shared with the C11 backend.
 */
#include "../arch/x86_64-lock.h"

/* ------------------------------------------------------------ loads, stores */

/* READ_ONCE / WRITE_ONCE: one volatile mov. */
#define ka_arch_read(p)		(*(const volatile __typeof__(*(p)) *)(p))
#define ka_arch_set(p, i)	((void)(*(volatile __typeof__(*(p)) *)(p) = (i)))

/* TSO: a plain mov is acquire (load) or release (store); only the compiler must be kept out. */
#define ka_arch_load_acquire(p) __extension__({				\
	__ka_x86_val(p) __ka_la = ka_arch_read(p);				\
	ka_barrier();								\
	__ka_la;								\
})
#define ka_arch_store_release(p, v) do {					\
	ka_barrier();								\
	ka_arch_set(p, v);							\
} while (0)
#define ka_arch_read_acquire(p)		ka_arch_load_acquire(p)
#define ka_arch_set_release(p, i)	ka_arch_store_release(p, i)

/* ------------------------------------------------------------ void RMWs */

/* lock OP{b,w,l,q} src, mem: unordered in the kernel's terms, a full barrier in fact. */
#define __ka_x86_binop(op, p, i) do {						\
	__ka_x86_size_check(p);							\
	switch (sizeof(*(p))) {							\
	case 1:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "b %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p))		\
			: [__src] "qi"((unsigned char)(i)) : "memory");		\
		break;								\
	case 2:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "w %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p))		\
			: [__src] "ri"((unsigned short)(i)) : "memory");		\
		break;								\
	case 4:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "l %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p))		\
			: [__src] "ir"((unsigned int)(i)) : "memory");		\
		break;								\
	default:								\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "q %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p))		\
			: [__src] "er"((unsigned long long)(i)) : "memory");	\
		break;								\
	}									\
} while (0)

#define __ka_x86_unop(op, p) do {						\
	__ka_x86_size_check(p);							\
	switch (sizeof(*(p))) {							\
	case 1:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "b %[__mem]"		\
			: [__mem] "+m"(*(p)) : : "memory"); \
		break;								\
	case 2:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "w %[__mem]"		\
			: [__mem] "+m"(*(p)) : : "memory"); \
		break;								\
	case 4:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "l %[__mem]"		\
			: [__mem] "+m"(*(p)) : : "memory"); \
		break;								\
	default:								\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "q %[__mem]"		\
			: [__mem] "+m"(*(p)) : : "memory"); \
		break;								\
	}									\
} while (0)

#define ka_arch_add(p, i)	__ka_x86_binop("add", p, i)
#define ka_arch_sub(p, i)	__ka_x86_binop("sub", p, i)
#define ka_arch_and(p, i)	__ka_x86_binop("and", p, i)
#define ka_arch_or(p, i)	__ka_x86_binop("or", p, i)
#define ka_arch_xor(p, i)	__ka_x86_binop("xor", p, i)
#define ka_arch_inc(p)		__ka_x86_unop("inc", p)
#define ka_arch_dec(p)		__ka_x86_unop("dec", p)

/* ------------------------------------------------------------ RMWs with a flag result */

/* GEN_BINARY_RMWcc: lock OP src, mem; the bool is condition cc of the result. */
#define __ka_x86_binop_cc(op, cc, p, i) __extension__({			\
	bool __ka_cc;								\
	__ka_x86_size_check(p);							\
	switch (sizeof(*(p))) {							\
	case 1:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "b %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: [__src] "qi"((unsigned char)(i)) : "memory");		\
		break;								\
	case 2:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "w %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: [__src] "ri"((unsigned short)(i)) : "memory");		\
		break;								\
	case 4:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "l %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: [__src] "ir"((unsigned int)(i)) : "memory");		\
		break;								\
	default:								\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "q %[__src], %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: [__src] "er"((unsigned long long)(i)) : "memory");	\
		break;								\
	}									\
	__ka_cc;								\
})

/* GEN_UNARY_RMWcc: lock OP mem; the bool is condition cc of the result. */
#define __ka_x86_unop_cc(op, cc, p) __extension__({				\
	bool __ka_cc;								\
	__ka_x86_size_check(p);							\
	switch (sizeof(*(p))) {							\
	case 1:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "b %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: : "memory");						\
		break;								\
	case 2:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "w %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: : "memory");						\
		break;								\
	case 4:									\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "l %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: : "memory");						\
		break;								\
	default:								\
		__asm__ __volatile__(__KA_LOCK_PREFIX op "q %[__mem]"		\
			: [__mem] "+m"(*(p)), "=@cc" cc(__ka_cc) \
			: : "memory");						\
		break;								\
	}									\
	__ka_cc;								\
})

#define ka_arch_sub_and_test(p, i)	__ka_x86_binop_cc("sub", "z", p, i)
#define ka_arch_dec_and_test(p)		__ka_x86_unop_cc("dec", "z", p)
#define ka_arch_inc_and_test(p)		__ka_x86_unop_cc("inc", "z", p)
#define ka_arch_add_negative(p, i)	__ka_x86_binop_cc("add", "s", p, i)

/* ------------------------------------------------------------ xadd, xchg, cmpxchg */

/*
 * The kernel's __xchg_op: the value travels in a register of *p's own type,
 * the %b/%w/%k/%q modifiers name the part of it each size uses.
 */
#define __ka_x86_xchg_op(p, v, op, lock) __extension__({			\
	__ka_x86_val(p) __ka_xr = (v);						\
	__ka_x86_size_check(p);							\
	switch (sizeof(*(p))) {							\
	case 1:									\
		__asm__ __volatile__(lock op "b %b[__reg], %[__mem]"			\
			: [__reg] "+q"(__ka_xr), [__mem] "+m"(*(p)) : : "memory");	\
		break;								\
	case 2:									\
		__asm__ __volatile__(lock op "w %w[__reg], %[__mem]"			\
			: [__reg] "+r"(__ka_xr), [__mem] "+m"(*(p)) : : "memory");	\
		break;								\
	case 4:									\
		__asm__ __volatile__(lock op "l %k[__reg], %[__mem]"			\
			: [__reg] "+r"(__ka_xr), [__mem] "+m"(*(p)) : : "memory");	\
		break;								\
	default:								\
		__asm__ __volatile__(lock op "q %q[__reg], %[__mem]"			\
			: [__reg] "+r"(__ka_xr), [__mem] "+m"(*(p)) : : "memory");	\
		break;								\
	}									\
	__ka_xr;								\
})

/* xadd returns the old value: fetch_add is one instruction, add_return adds once more. */
#define ka_arch_fetch_add(p, i)	__ka_x86_xchg_op(p, i, "xadd", __KA_LOCK_PREFIX)
/* -i computed without overflow (INT_MIN is its own negation, as in the kernel). */
#define ka_arch_fetch_sub(p, i)							\
	__ka_x86_xchg_op(p, (__ka_x86_val(p))(0ULL - (unsigned long long)(i)),	\
			 "xadd", __KA_LOCK_PREFIX)
#define ka_arch_add_return(p, i) __extension__({				\
	__ka_x86_val(p) __ka_ai = (__ka_x86_val(p))(i);				\
	(__ka_x86_val(p))((unsigned long long)ka_arch_fetch_add(p, __ka_ai) +	\
			  (unsigned long long)__ka_ai);				\
})
#define ka_arch_sub_return(p, i) __extension__({				\
	__ka_x86_val(p) __ka_si = (__ka_x86_val(p))(i);				\
	(__ka_x86_val(p))((unsigned long long)ka_arch_fetch_sub(p, __ka_si) -	\
			  (unsigned long long)__ka_si);				\
})

/* xchg with a memory operand is locked without the prefix: nothing to record, nothing to patch. */
#define ka_arch_xchg(p, v)	__ka_x86_xchg_op(p, v, "xchg", "")

/* __raw_try_cmpxchg: __ka_x86_try_cmpxchg in arch/x86_64-lock.h. */
#define ka_arch_try_cmpxchg(p, po, n)	__ka_x86_try_cmpxchg(p, po, n, __KA_LOCK_PREFIX)
/* cmpxchg_local: atomic against this thread only, so no lock at all. */
#define ka_arch_try_cmpxchg_local(p, po, n) __ka_x86_try_cmpxchg(p, po, n, "")
/* sync_cmpxchg (ka_arch_sync_try_cmpxchg): arch/x86_64-lock.h, __KA_LOCK_KEEP. */

/* cmpxchg returns what it read: old exactly when it stored. */
#define ka_arch_cmpxchg(p, o, n) __extension__({				\
	__ka_x86_val(p) __ka_cmp_old = (o);					\
	(void)ka_arch_try_cmpxchg(p, &__ka_cmp_old, n);				\
	__ka_cmp_old;								\
})

/* ------------------------------------------------------------ bitops */

/*
 * lock bts/btr/btc on the long at addr, old bit from CF.  nr is a constant
 * 0..31 (immediate, "I") or any long in a register: with a register offset
 * the bt* instructions address the bitmap beyond the first word, so one
 * instruction serves any bit of any length of bitmap.
 */
#define __KA_X86_TEST_AND_OP_BIT(name, op)					\
static __ka_always_inline bool name(long nr, volatile unsigned long *addr)	\
{										\
	bool __ka_old;								\
										\
	__asm__ __volatile__(__KA_LOCK_PREFIX op "q %[__nr], %[__mem]"		\
		: [__mem] "+m"(*addr), "=@ccc"(__ka_old)				\
		: [__nr] "Ir"(nr) : "memory");					\
	return __ka_old;							\
}
__KA_X86_TEST_AND_OP_BIT(__ka_x86_test_and_set_bit, "bts")
__KA_X86_TEST_AND_OP_BIT(__ka_x86_test_and_clear_bit, "btr")
__KA_X86_TEST_AND_OP_BIT(__ka_x86_test_and_change_bit, "btc")

#define ka_arch_test_and_set_bit(nr, addr)	__ka_x86_test_and_set_bit(nr, addr)
#define ka_arch_test_and_clear_bit(nr, addr)	__ka_x86_test_and_clear_bit(nr, addr)
#define ka_arch_test_and_change_bit(nr, addr)	__ka_x86_test_and_change_bit(nr, addr)
/* lock bts is already a full barrier: acquire for free. */
#define ka_arch_test_and_set_bit_lock(nr, addr)	__ka_x86_test_and_set_bit(nr, addr)

/* ------------------------------------------------------------ barriers */

/*
 * smp_mb: a locked no-op RMW just below the stack pointer (about 20 cycles)
 * instead of mfence (about 87).  The slot may hold red-zone data of the
 * caller, but adding 0 leaves it as it was.  Recorded: on one CPU nothing
 * needs it, as a UP kernel's smp_mb() is barrier().
 */
#define ka_arch_smp_mb()							\
	__asm__ __volatile__(__KA_LOCK_PREFIX "addl $0, -4(%%rsp)" : : : "memory", "cc")
#define ka_arch_smp_rmb()		ka_barrier()	/* TSO: loads are not reordered with loads */
#define ka_arch_smp_wmb()		ka_barrier()	/* TSO: stores are not reordered with stores */
#define ka_arch_mb__before_atomic()	ka_barrier()	/* every locked RMW is a full barrier */
#define ka_arch_mb__after_atomic()	ka_barrier()
#define ka_arch_mb__after_spinlock()	ka_barrier()	/* the lock is taken with a locked RMW */
#define ka_arch_mb__after_unlock_lock()	ka_barrier()	/* TSO release + acquire is already RCsc */
#define ka_arch_acquire__after_ctrl_dep() ka_barrier()	/* TSO: loads are not reordered with later accesses */
/* mb/rmb/wmb also order device and non-temporal accesses: only the fences do, even on one CPU. */
#define ka_arch_mb()	__asm__ __volatile__("mfence" : : : "memory")
#define ka_arch_rmb()	__asm__ __volatile__("lfence" : : : "memory")
#define ka_arch_wmb()	__asm__ __volatile__("sfence" : : : "memory")
#define ka_arch_cpu_relax() __asm__ __volatile__("pause" : : : "memory")
/* smp_store_mb: xchg is a store and a full barrier in one instruction. */
#define ka_arch_store_mb(p, v)	((void)ka_arch_xchg(p, v))
/* dma_* and virt_mb (a lock the UP patching never touches). */
#include "../arch/x86_64-io.h"

#endif /* KATOMIC_BACKEND_ASM_H */
