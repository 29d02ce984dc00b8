/* SPDX-License-Identifier: MIT */
/* C11 backend policy for arm64 (ARMv8; LSE atomics from ARMv8.1). */
#ifndef KATOMIC_ARCH_AARCH64_H
#define KATOMIC_ARCH_AARCH64_H

#if defined(__ARM_FEATURE_ATOMICS)
/* LSE: ldaddal/swpal/casal order everything around them, their write included. */
#define __ka_full_pre(size)       ((void)0)
#define __ka_full_order(size)     __ATOMIC_SEQ_CST
#define __ka_full_post(size)      ((void)0)
#define __ka_cas_full_pre(size)   ((void)0)
#define __ka_cas_full_order(size) __ATOMIC_SEQ_CST
#define __ka_cas_full_post(size)  ((void)0)
#else
/*
 * LL/SC (or the outline helpers, which may pick LL/SC): a SEQ_CST
 * ldaxr/stlxr pair lets later accesses pass the store, so do what the kernel
 * does: a release store-exclusive, then dmb ish (on success, for cmpxchg).
 */
#define __ka_full_pre(size)       ((void)0)
#define __ka_full_order(size)     __ATOMIC_RELEASE
#define __ka_full_post(size)      __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_cas_full_pre(size)   ((void)0)
#define __ka_cas_full_order(size) __ATOMIC_RELEASE
#define __ka_cas_full_post(size)  __ka_fence(__ATOMIC_SEQ_CST)
#endif

#define ka_arch_smp_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* dmb ish */
#define ka_arch_smp_rmb() __ka_fence(__ATOMIC_ACQUIRE)	/* dmb ishld */
/* C11 has no store-store fence: release (dmb ish) is correct, dmb ishst cheaper. */
#define ka_arch_smp_wmb() __ka_fence(__ATOMIC_RELEASE)
#define ka_arch_mb__before_atomic() __ka_fence(__ATOMIC_SEQ_CST)	/* void RMWs are unordered */
#define ka_arch_mb__after_atomic()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_mb__after_spinlock() __ka_fence(__ATOMIC_SEQ_CST)	/* the lock is only acquire */
#define ka_arch_mb__after_unlock_lock() ka_barrier()	/* stlr/ldar are RCsc */
/* I/O ordering needs dsb; C11 fences only order normal memory. */
#define ka_arch_mb()  __asm__ __volatile__("dsb sy" ::: "memory")
#define ka_arch_rmb() __asm__ __volatile__("dsb ld" ::: "memory")
#define ka_arch_wmb() __asm__ __volatile__("dsb st" ::: "memory")
#define ka_arch_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
/* DMA: the outer-shareable domain, where devices are; no dsb (that is for MMIO). */
#define ka_arch_dma_mb()  __asm__ __volatile__("dmb osh" ::: "memory")
#define ka_arch_dma_rmb() __asm__ __volatile__("dmb oshld" ::: "memory")
#define ka_arch_dma_wmb() __asm__ __volatile__("dmb oshst" ::: "memory")

#endif
