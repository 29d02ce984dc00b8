/* SPDX-License-Identifier: MIT */
/*
 * C11 backend policy for any other target: build every fully ordered op as
 * fence; relaxed op; fence, the kernel's generic fallback, correct whatever
 * the target's SEQ_CST RMW means.
 */
#ifndef KATOMIC_ARCH_GENERIC_H
#define KATOMIC_ARCH_GENERIC_H

#define __ka_full_pre(size)       __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_full_order(size)     __ATOMIC_RELAXED
#define __ka_full_post(size)      __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_cas_full_pre(size)   __ka_fence(__ATOMIC_SEQ_CST)
#define __ka_cas_full_order(size) __ATOMIC_RELAXED
#define __ka_cas_full_post(size)  __ka_fence(__ATOMIC_SEQ_CST)

#define ka_arch_smp_mb()  __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_smp_rmb() __ka_fence(__ATOMIC_ACQUIRE)	/* stronger than load-load */
#define ka_arch_smp_wmb() __ka_fence(__ATOMIC_RELEASE)	/* stronger than store-store */
#define ka_arch_mb()  __ka_fence(__ATOMIC_SEQ_CST)	/* normal memory only: no device ordering known */
#define ka_arch_rmb() __ka_fence(__ATOMIC_SEQ_CST)
#define ka_arch_wmb() __ka_fence(__ATOMIC_SEQ_CST)
/* dma_*: mb/rmb/wmb (backend.h's defaults, as asm-generic); virt_*: the smp_ barriers. */

#endif
