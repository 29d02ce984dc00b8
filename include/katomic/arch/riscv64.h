/* SPDX-License-Identifier: MIT */
/* C11 backend policy for RV64 (RVWMO). */
#ifndef KATOMIC_ARCH_RISCV64_H
#define KATOMIC_ARCH_RISCV64_H

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
/*
 * GCC before 13 used a mapping older than the ISA manual's (its SEQ_CST CAS
 * has no trailing fence): trust only relaxed RMWs and fences; the generated
 * fallbacks add the fences for acquire, release and full ordering.
 */
#define __KA_C11_RELAXED_ONLY 1
#define __ka_acquire_fence()  __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_release_fence()  __ka_fence(__ATOMIC_SEQ_CST)
/*
 * GCC 12 also miscompiles a 4-byte CAS whose expected value sits in a
 * register without sign extension: lr.w sign-extends, so the compare fails
 * although the values are equal (GCC PR 114130; OpenJDK hit it as JDK-8326936).  Our
 * own LR/SC loop compares against an explicitly sign-extended value.
 */
static __ka_always_inline bool __ka_rv_cas32(void *p, void *old, unsigned int newv)
{
	long expected = *(int *)old;	/* sign-extended, as lr.w loads */
	long prev;
	int fail;

	__asm__ __volatile__(
		"1:	lr.w	%0, (%2)\n"
		"	bne	%0, %3, 2f\n"
		"	sc.w	%1, %4, (%2)\n"
		"	bnez	%1, 1b\n"
		"2:"
		: "=&r"(prev), "=&r"(fail)
		: "r"(p), "r"(expected), "r"(newv)
		: "memory");
	if (prev == expected)
		return true;
	*(int *)old = (int)prev;
	return false;
}
/*
 * GCC before 13 does no 1- or 2-byte RMW inline: it calls libatomic, which a
 * program that includes katomic would then have to link (spinlock_t's own
 * code uses both sizes).  What the kernel does instead: an LR/SC loop on the
 * aligned word that holds them, changing only their bits.  Masks and the
 * expected value are passed sign-extended, as lr.w loads.
 */
static __ka_always_inline unsigned int __ka_rv_small_mask(const volatile void *p, unsigned int size,
							    unsigned int *shift)
{
	*shift = (unsigned int)((unsigned long)p & 3) * 8;	/* little-endian */
	return (size == 1 ? 0xffu : 0xffffu) << *shift;
}
static __ka_always_inline unsigned int __ka_rv_xchg_small(volatile void *p, unsigned int size,
							   unsigned int newv)
{
	unsigned int shift, mask = __ka_rv_small_mask(p, size, &shift);
	unsigned int *w = (unsigned int *)((unsigned long)p & ~3UL);
	long keep = (int)~mask, put = (int)((newv << shift) & mask);
	long prev, tmp;

	__asm__ __volatile__(
		"1:	lr.w	%0, (%2)\n"
		"	and	%1, %0, %3\n"
		"	or	%1, %1, %4\n"
		"	sc.w	%1, %1, (%2)\n"
		"	bnez	%1, 1b\n"
		: "=&r"(prev), "=&r"(tmp)
		: "r"(w), "r"(keep), "r"(put)
		: "memory");
	return ((unsigned int)prev & mask) >> shift;
}
static __ka_always_inline bool __ka_rv_cas_small(volatile void *p, unsigned int size, void *old,
						  unsigned int newv)
{
	unsigned int shift, mask = __ka_rv_small_mask(p, size, &shift);
	unsigned int *w = (unsigned int *)((unsigned long)p & ~3UL);
	unsigned int want = size == 1 ? *(unsigned char *)old : *(unsigned short *)old;
	long m = (int)mask, expected = (int)((want << shift) & mask);
	long keep = (int)~mask, put = (int)((newv << shift) & mask);
	long prev, tmp;

	__asm__ __volatile__(
		"1:	lr.w	%0, (%2)\n"
		"	and	%1, %0, %3\n"
		"	bne	%1, %4, 2f\n"
		"	and	%1, %0, %5\n"
		"	or	%1, %1, %6\n"
		"	sc.w	%1, %1, (%2)\n"
		"	bnez	%1, 1b\n"
		"2:"
		: "=&r"(prev), "=&r"(tmp)
		: "r"(w), "r"(m), "r"(expected), "r"(keep), "r"(put)
		: "memory");
	prev = (long)(((unsigned int)prev & mask) >> shift);
	if ((unsigned int)prev == want)
		return true;
	if (size == 1)
		*(unsigned char *)old = (unsigned char)prev;
	else
		*(unsigned short *)old = (unsigned short)prev;
	return false;
}
#define ka_arch_try_cmpxchg_relaxed(p, o, n) ((bool)(sizeof(*(p)) == 4 ?	\
	__ka_rv_cas32((void *)(p), (void *)(o), (unsigned int)(unsigned long)(n)) :		\
	sizeof(*(p)) < 4 ?								\
	__ka_rv_cas_small((p), sizeof(*(p)), (void *)(o), (unsigned int)(unsigned long)(n)) :	\
	__atomic_compare_exchange_n((p), (o), (n), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)))
#define ka_arch_xchg_relaxed(p, i) __extension__({					\
	__typeof__(*(p)) __ka_x = (i);							\
	if (sizeof(*(p)) < 4)								\
		__ka_x = (__typeof__(*(p)))(unsigned long)__ka_rv_xchg_small((p), sizeof(*(p)),	\
					(unsigned int)(unsigned long)__ka_x);		\
	else										\
		__ka_x = __atomic_exchange_n((p), __ka_x, __ATOMIC_RELAXED);		\
	__ka_x;										\
})
#else
/*
 * Acquire RMWs as the kernel makes them: the relaxed RMW, then fence r,rw.
 * An .aq RMW orders only itself, so after spin_unlock(a) (fence rw,w; sw),
 * a spin_lock(b) by lr.w.aq would let a read before the unlock pass a read
 * after the lock, which the LKMM forbids (po-unlock-lock-po is in its ppo);
 * fence r,rw orders every earlier read (katomic verify found it: the corpus's
 * C-MP+o-mb-o+l-o-ul-l-o-ul, clang-19; tests/litmus/MP+unlocklock-two-locks).
 */
#define __KA_C11_ACQUIRE_BY_FENCE 1
#define __ka_acquire_fence()  __ka_fence(__ATOMIC_ACQUIRE)
/* Word and doubleword AMOs with .aqrl are fully ordered; LR/SC loops are not. */
#define __ka_full_pre(size)       ((void)0)
#define __ka_full_order(size)     ((size) >= 4 ? __ATOMIC_SEQ_CST : __ATOMIC_RELEASE)
#define __ka_full_post(size)      do { if ((size) < 4) __ka_fence(__ATOMIC_SEQ_CST); } while (0)
#if defined(__riscv_zacas)
#define __ka_cas_full_pre(size)   ((void)0)
#define __ka_cas_full_order(size) ((size) >= 4 ? __ATOMIC_SEQ_CST : __ATOMIC_RELEASE)
#define __ka_cas_full_post(size)  do { if ((size) < 4) __ka_fence(__ATOMIC_SEQ_CST); } while (0)
#else
/* LR/SC CAS: the kernel's sc.rl then fence rw,rw on success. */
#define __ka_cas_full_pre(size)   ((void)0)
#define __ka_cas_full_order(size) __ATOMIC_RELEASE
#define __ka_cas_full_post(size)  __ka_fence(__ATOMIC_SEQ_CST)
#endif
#endif

#define ka_arch_smp_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* fence rw,rw */
/* C11 has no load-load or store-store fence: fence r,rw and fence rw,w are a little stronger. */
#define ka_arch_smp_rmb() __ka_fence(__ATOMIC_ACQUIRE)
#define ka_arch_smp_wmb() __ka_fence(__ATOMIC_RELEASE)
#define ka_arch_mb__before_atomic() __ka_fence(__ATOMIC_SEQ_CST)	/* void AMOs are unordered */
#define ka_arch_mb__after_atomic()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_mb__after_spinlock() __ka_fence(__ATOMIC_SEQ_CST)	/* the lock is only acquire */
/* fence-based release/acquire is RCpc: unlock then lock is not a full barrier. */
#define ka_arch_mb__after_unlock_lock() __ka_fence(__ATOMIC_SEQ_CST)
/* I/O ordering needs the device bits of fence; C11 fences only order memory. */
#define ka_arch_mb()  __asm__ __volatile__("fence iorw,iorw" ::: "memory")
#define ka_arch_rmb() __asm__ __volatile__("fence ir,ir" ::: "memory")
#define ka_arch_wmb() __asm__ __volatile__("fence ow,ow" ::: "memory")
/* The kernel has no lighter DMA fence: a device's accesses are in the I/O bits too. */
#define ka_arch_dma_mb()  ka_arch_mb()
#define ka_arch_dma_rmb() ka_arch_rmb()
#define ka_arch_dma_wmb() ka_arch_wmb()

#endif
