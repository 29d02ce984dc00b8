#ifndef _ASM_GENERIC_CMPXCHG_C11_H
#define _ASM_GENERIC_CMPXCHG_C11_H

/*
 * arch_xchg(), arch_cmpxchg(), arch_try_cmpxchg() in all four orders (and the
 * 64-bit and _local names, the same on a 64-bit architecture), 1/2/4/8 bytes,
 * on C11 builtins.  Included at the end of the architecture's <asm/cmpxchg.h>
 * when CONFIG_ARCH_ATOMIC_C11=y, replacing its macros; the orders follow
 * asm-generic/atomic-c11-policy.h.
 *
 * Kept as the architecture's code (what the builtins cannot do in a kernel):
 *  - arch_cmpxchg128(): gcc lowers 16-byte __atomic builtins to libatomic
 *    calls (__atomic_compare_exchange_16) on arm64 and RISC-V, and the kernel
 *    has no libatomic;
 *  - __cmpwait_relaxed() (wfe / wrs.nto): waiting for a cache line to change
 *    is no memory order.
 * _local: a relaxed RMW is atomic against interrupts and other CPUs alike;
 * on arm64 and RISC-V the kernel's _local already is its relaxed cmpxchg.
 */
#include <asm-generic/atomic-c11-policy.h>

/* @insert hot-c11.h */

#define __ka_c11_typecheck(ptr) compiletime_assert_atomic_type(*(ptr))

#ifdef __KA_C11_NO_SUBWORD
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
# error "asm-generic/cmpxchg-c11.h: the sub-word cmpxchg assumes little-endian"
#endif
#define __KA_C11_SMALL(ptr) (sizeof(*(ptr)) < 4)
/* The objects are any 1/2/4-byte type: read and written through these. */
typedef int __attribute__((__may_alias__)) __ka_c11_s32a;
typedef unsigned int __attribute__((__may_alias__)) __ka_c11_u32a;
typedef unsigned short __attribute__((__may_alias__)) __ka_c11_u16a;

/* The relaxed 4-byte CAS as an LR/SC loop; the expected value sign-extended as lr.w loads. */
static __always_inline bool __ka_c11_cas32_relaxed(volatile void *p, void *old, unsigned int newv)
{
	long expected = *(__ka_c11_s32a *)old, prev;
	int fail;

	asm volatile("1:	lr.w	%0, (%2)\n"
		     "	bne	%0, %3, 2f\n"
		     "	sc.w	%1, %4, (%2)\n"
		     "	bnez	%1, 1b\n"
		     "2:"
		     : "=&r"(prev), "=&r"(fail)
		     : "r"(p), "r"(expected), "r"(newv)
		     : "memory");
	if (prev == expected)
		return true;
	*(__ka_c11_s32a *)old = (int)prev;
	return false;
}

/* A 1- or 2-byte CAS/exchange on the aligned word holding it, as gcc 13 does inline. */
static __always_inline bool __ka_c11_cas_small(volatile void *p, int size, void *old,
					       const void *newv, bool always)
{
	unsigned long a = (unsigned long)p;
	volatile unsigned int *w = (volatile unsigned int *)(a & ~3UL);
	int shift = (a & 3) * 8;
	unsigned int mask = (size == 1 ? 0xffu : 0xffffu) << shift;
	unsigned int o = (size == 1 ? *(unsigned char *)old : *(__ka_c11_u16a *)old);
	unsigned int n = (size == 1 ? *(const unsigned char *)newv : *(const __ka_c11_u16a *)newv);
	unsigned int cur = __atomic_load_n(w, __ATOMIC_RELAXED);

	o <<= shift;
	n <<= shift;
	for (;;) {
		if (!always && (cur & mask) != o)
			break;
		if (__ka_c11_cas32_relaxed(w, &cur, (cur & ~mask) | n)) {
			if (!always)
				return true;
			break;
		}
	}
	cur = (cur & mask) >> shift;
	if (size == 1)
		*(unsigned char *)old = cur;
	else
		*(__ka_c11_u16a *)old = cur;
	return always;
}

#define __ka_c11_cas_any(ptr, po, pn, o)					\
	(__KA_C11_SMALL(ptr) ?							\
	 __ka_c11_cas_small((ptr), sizeof(*(ptr)), (po), (pn), false) :	\
	 sizeof(*(ptr)) == 4 ?							\
	 __ka_c11_cas32_relaxed((ptr), (po), *(const __ka_c11_u32a *)(pn)) :		\
	 __atomic_compare_exchange((ptr), (po), (pn), false, (o), __ka_c11_fail(o)))
#else
#define __KA_C11_SMALL(ptr) 0
#define __ka_c11_cas_small(p, size, old, newv, always) false
#define __ka_c11_cas_any(ptr, po, pn, o)					\
	__atomic_compare_exchange((ptr), (po), (pn), false, (o), __ka_c11_fail(o))
#endif

/*
 * The generic (not _n) builtins: the kernel also exchanges 8-byte structs
 * (pte_t, pmd_t), which the _n forms reject.
 */
#define __ka_c11_xchg(X, ptr, v) ({						\
	__ka_c11_typecheck(ptr);						\
	__ka_c11_hot();								\
	__unqual_scalar_typeof(*(ptr)) __ka_xv = (v), __ka_xr;			\
	__ka_c11_pre_##X(sizeof(*(ptr)));					\
	if (__KA_C11_SMALL(ptr)) {						\
		__ka_xr = __ka_xv;						\
		(void)__ka_c11_cas_small((ptr), sizeof(*(ptr)), &__ka_xr, &__ka_xv, true); \
	} else {								\
		__atomic_exchange((ptr), &__ka_xv, &__ka_xr,			\
				  __ka_c11_ord_##X(sizeof(*(ptr))));		\
	}									\
	__ka_c11_post_##X(sizeof(*(ptr)));					\
	__ka_xr;								\
})

/* *pold is written only when it fails, with the value found (the kernel's rule). */
#define __ka_c11_try_cmpxchg(X, ptr, pold, new) ({				\
	__ka_c11_typecheck(ptr);						\
	__ka_c11_hot();								\
	__unqual_scalar_typeof(*(ptr)) __ka_tn = (new);				\
	bool __ka_tok;								\
	__ka_c11_cas_pre_##X(sizeof(*(ptr)));					\
	__ka_tok = __ka_c11_cas_any((ptr), (__unqual_scalar_typeof(*(ptr)) *)(pold), \
				    &__ka_tn, __ka_c11_cas_ord_##X(sizeof(*(ptr)))); \
	if (__ka_tok)								\
		__ka_c11_cas_post_##X(sizeof(*(ptr)));				\
	__ka_tok;								\
})

#define __ka_c11_cmpxchg(X, ptr, old, new) ({					\
	__unqual_scalar_typeof(*(ptr)) __ka_co = (old);				\
	(void)__ka_c11_try_cmpxchg(X, ptr, &__ka_co, new);			\
	__ka_co;								\
})

#undef arch_xchg
#undef arch_xchg_acquire
#undef arch_xchg_release
#undef arch_xchg_relaxed
#define arch_xchg(ptr, v)		__ka_c11_xchg(FULL, ptr, v)
#define arch_xchg_acquire(ptr, v)	__ka_c11_xchg(ACQ, ptr, v)
#define arch_xchg_release(ptr, v)	__ka_c11_xchg(REL, ptr, v)
#define arch_xchg_relaxed(ptr, v)	__ka_c11_xchg(RLX, ptr, v)

#undef arch_cmpxchg
#undef arch_cmpxchg_acquire
#undef arch_cmpxchg_release
#undef arch_cmpxchg_relaxed
#undef arch_cmpxchg_local
#define arch_cmpxchg(ptr, o, n)		__ka_c11_cmpxchg(FULL, ptr, o, n)
#define arch_cmpxchg_acquire(ptr, o, n)	__ka_c11_cmpxchg(ACQ, ptr, o, n)
#define arch_cmpxchg_release(ptr, o, n)	__ka_c11_cmpxchg(REL, ptr, o, n)
#define arch_cmpxchg_relaxed(ptr, o, n)	__ka_c11_cmpxchg(RLX, ptr, o, n)
#define arch_cmpxchg_local(ptr, o, n)	__ka_c11_cmpxchg(RLX, ptr, o, n)

#undef arch_try_cmpxchg
#undef arch_try_cmpxchg_acquire
#undef arch_try_cmpxchg_release
#undef arch_try_cmpxchg_relaxed
#undef arch_try_cmpxchg_local
#define arch_try_cmpxchg(ptr, po, n)		__ka_c11_try_cmpxchg(FULL, ptr, po, n)
#define arch_try_cmpxchg_acquire(ptr, po, n)	__ka_c11_try_cmpxchg(ACQ, ptr, po, n)
#define arch_try_cmpxchg_release(ptr, po, n)	__ka_c11_try_cmpxchg(REL, ptr, po, n)
#define arch_try_cmpxchg_relaxed(ptr, po, n)	__ka_c11_try_cmpxchg(RLX, ptr, po, n)
#define arch_try_cmpxchg_local(ptr, po, n)	__ka_c11_try_cmpxchg(RLX, ptr, po, n)

/* 64-bit architectures: cmpxchg64 is cmpxchg on an 8-byte object. */
#define __ka_c11_is64(ptr) BUILD_BUG_ON(sizeof(*(ptr)) != 8)
#undef arch_cmpxchg64
#undef arch_cmpxchg64_acquire
#undef arch_cmpxchg64_release
#undef arch_cmpxchg64_relaxed
#undef arch_cmpxchg64_local
#define arch_cmpxchg64(ptr, o, n)	({ __ka_c11_is64(ptr); arch_cmpxchg(ptr, o, n); })
#define arch_cmpxchg64_acquire(ptr, o, n) ({ __ka_c11_is64(ptr); arch_cmpxchg_acquire(ptr, o, n); })
#define arch_cmpxchg64_release(ptr, o, n) ({ __ka_c11_is64(ptr); arch_cmpxchg_release(ptr, o, n); })
#define arch_cmpxchg64_relaxed(ptr, o, n) ({ __ka_c11_is64(ptr); arch_cmpxchg_relaxed(ptr, o, n); })
#define arch_cmpxchg64_local(ptr, o, n)	({ __ka_c11_is64(ptr); arch_cmpxchg_local(ptr, o, n); })

#endif /* _ASM_GENERIC_CMPXCHG_C11_H */
