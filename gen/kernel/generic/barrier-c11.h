#ifndef _ASM_GENERIC_BARRIER_C11_H
#define _ASM_GENERIC_BARRIER_C11_H

/*
 * The SMP barriers an architecture must provide, on C11 fences and accesses
 * (CONFIG_ARCH_ATOMIC_C11), included by its <asm/barrier.h> before
 * asm-generic/barrier.h and replacing its definitions:
 *  - __smp_mb: a SEQ_CST fence (dmb ish; fence rw,rw);
 *  - __smp_rmb: C11 has no load-load fence: an acquire fence (dmb ishld;
 *    fence r,rw), a little stronger than a load-load barrier;
 *  - __smp_wmb: no store-store fence either: a release fence (dmb ish where
 *    the kernel has dmb ishst; fence rw,w where it has fence w,w): correct,
 *    dearer;
 *  - __smp_store_release / __smp_load_acquire: release store / acquire load
 *    (stlr / ldar, RCsc as the kernel's; RISC-V: the fence plus plain access).
 * gcc before 13 makes every RISC-V fence a fence iorw,iorw (the I/O bits too).
 * Kept as the architecture's: mb/rmb/wmb and the dma_ barriers (they order
 * device memory: dsb, fence io*, which C11 fences do not), smp_cond_load_*()
 * (wfe/wrs wait loops), smp_mb__after_spinlock() where the lock is weaker.
 */
/* @insert hot-c11.h */

#undef __smp_mb
#define __smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#undef __smp_rmb
#define __smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#undef __smp_wmb
#define __smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
/* @insert ordered-access-c11.h */

#endif /* _ASM_GENERIC_BARRIER_C11_H */
