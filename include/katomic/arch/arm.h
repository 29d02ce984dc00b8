/* SPDX-License-Identifier: MIT */
/* C11 backend policy for 32-bit ARMv7-A. */
#ifndef KATOMIC_ARCH_ARM_H
#define KATOMIC_ARCH_ARM_H

/* SEQ_CST RMWs and CAS are "dmb ish; loop; dmb ish", the kernel's own sequence: defaults. */

#define ka_arch_smp_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* dmb ish */
#define ka_arch_smp_rmb() __ka_fence(__ATOMIC_ACQUIRE)	/* dmb ish */
/* C11 has no store-store fence: dmb ish where the kernel uses dmb ishst. */
#define ka_arch_smp_wmb() __ka_fence(__ATOMIC_RELEASE)
#define ka_arch_mb__before_atomic() __ka_fence(__ATOMIC_SEQ_CST)	/* void RMWs are unordered */
#define ka_arch_mb__after_atomic()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_mb__after_spinlock() __ka_fence(__ATOMIC_SEQ_CST)	/* the lock is only acquire */
#define ka_arch_mb__after_unlock_lock() ka_barrier()	/* dmb-based release/acquire are full barriers */
/* I/O ordering needs dsb. */
#define ka_arch_mb()  __asm__ __volatile__("dsb" ::: "memory")
#define ka_arch_rmb() __asm__ __volatile__("dsb" ::: "memory")
#define ka_arch_wmb() __asm__ __volatile__("dsb st" ::: "memory")
/* DMA: the outer-shareable domain, where devices are; dma_mb is mb (dsb), as in the kernel. */
#define ka_arch_dma_rmb() __asm__ __volatile__("dmb osh" ::: "memory")
#define ka_arch_dma_wmb() __asm__ __volatile__("dmb oshst" ::: "memory")
#define ka_arch_dma_mb()  ka_arch_mb()

#endif
