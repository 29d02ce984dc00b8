/* SPDX-License-Identifier: MIT */
/* C11 backend policy for s390x (z196+; stores may only pass later loads). */
#ifndef KATOMIC_ARCH_S390X_H
#define KATOMIC_ARCH_S390X_H

/* The kernel follows a value-returning interlocked op with bcr 14,0: do the same. */
#define __ka_full_pre(size)       ((void)0)
#define __ka_full_order(size)     __ATOMIC_SEQ_CST
#define __ka_full_post(size)      __ka_fence(__ATOMIC_SEQ_CST)
/* cs serialises on success and on failure. */
#define __ka_cas_full_pre(size)   ((void)0)
#define __ka_cas_full_order(size) __ATOMIC_SEQ_CST
#define __ka_cas_full_post(size)  ((void)0)

#define ka_arch_smp_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* bcr 14,0 */
#define ka_arch_smp_rmb() ka_barrier()	/* loads are not reordered with loads */
#define ka_arch_smp_wmb() ka_barrier()	/* stores are not reordered with stores */
/* A relaxed C11 RMW may be moved by the compiler: keep a real fence around void RMWs. */
#define ka_arch_mb__before_atomic() __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_mb__after_atomic()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_acquire__after_ctrl_dep() ka_barrier()	/* loads are not reordered with later accesses */
#define ka_arch_mb__after_spinlock() __ka_fence(__ATOMIC_SEQ_CST)	/* the lock is only acquire for the compiler */
#define ka_arch_mb__after_unlock_lock() ka_barrier()	/* release+acquire is RCsc here */
#define ka_arch_mb()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_rmb() ka_barrier()
#define ka_arch_wmb() ka_barrier()
/* The kernel serialises for every DMA barrier (bcr 14,0): a device is outside the CPUs' ordering. */
#define ka_arch_dma_mb()  ka_arch_mb()
#define ka_arch_dma_rmb() ka_arch_mb()
#define ka_arch_dma_wmb() ka_arch_mb()

#endif
