/* SPDX-License-Identifier: MIT */
/* C11 backend policy for 64-bit POWER. */
#ifndef KATOMIC_ARCH_POWERPC64_H
#define KATOMIC_ARCH_POWERPC64_H

/*
 * A SEQ_CST RMW is "sync; loop; isync", and isync does not order the store
 * for other CPUs: build the kernel's "sync; loop; sync" around a relaxed op.
 */
#define __ka_full_pre(size)       __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_full_order(size)     __ATOMIC_RELAXED
#define __ka_full_post(size)      __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_cas_full_pre(size)   __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_cas_full_order(size) __ATOMIC_RELAXED
#define __ka_cas_full_post(size)  __ka_fence(__ATOMIC_SEQ_CST)

#define ka_arch_smp_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* sync */
#define ka_arch_smp_rmb() __ka_fence(__ATOMIC_ACQUIRE)	/* lwsync */
#define ka_arch_smp_wmb() __ka_fence(__ATOMIC_RELEASE)	/* lwsync */
#define ka_arch_mb__before_atomic() __ka_fence(__ATOMIC_SEQ_CST)	/* void RMWs are unordered */
#define ka_arch_mb__after_atomic()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_mb__after_spinlock() __ka_fence(__ATOMIC_SEQ_CST)	/* the lock is only acquire */
/* lwsync release + acquire does not order an unlock's store before a later lock's loads. */
#define ka_arch_mb__after_unlock_lock() __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* sync also orders I/O */
#define ka_arch_rmb() __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_wmb() __ka_fence(__ATOMIC_SEQ_CST)
/* DMA memory is cacheable: lwsync orders it for the device too; dma_mb is mb (sync), as in the kernel. */
#define ka_arch_dma_rmb() __asm__ __volatile__("lwsync" ::: "memory")
#define ka_arch_dma_wmb() __asm__ __volatile__("lwsync" ::: "memory")
#define ka_arch_dma_mb()  ka_arch_mb()

#endif
