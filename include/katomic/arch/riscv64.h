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
#else
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

#endif
