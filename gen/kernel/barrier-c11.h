#ifndef _ASM_X86_BARRIER_C11_H
#define _ASM_X86_BARRIER_C11_H

/*
 * The SMP barriers on C11 fences and accesses (CONFIG_X86_BARRIER_C11),
 * included by <asm/barrier.h> before asm-generic/barrier.h; the option that
 * measures C11's fence against the kernel's `lock addl $0,-4(%rsp)`.
 * smp_rmb/smp_wmb are compiler-only on x86 (TSO) either way; smp_mb is
 * whatever the compiler makes of a SEQ_CST fence (mfence or a locked or on
 * the stack); release/acquire are plain moves the compiler may not reorder.
 * mb()/rmb()/wmb() also order device memory and stay mfence/lfence/sfence.
 */
/* @insert hot-c11.h */

#undef __smp_mb
#define __smp_mb() do { __ka_c11_hot(); __atomic_thread_fence(__ATOMIC_SEQ_CST); } while (0)
#undef __smp_rmb
#define __smp_rmb() do { __ka_c11_hot(); __atomic_thread_fence(__ATOMIC_ACQUIRE); } while (0)
#undef __smp_wmb
#define __smp_wmb() do { __ka_c11_hot(); __atomic_thread_fence(__ATOMIC_RELEASE); } while (0)
#undef __smp_store_mb
#define __smp_store_mb(var, value) \
	do {								\
		__ka_c11_hot();						\
		(void)__atomic_exchange_n(&(var), (value), __ATOMIC_SEQ_CST); \
	} while (0)
/* @insert ordered-access-c11.h */

#endif /* _ASM_X86_BARRIER_C11_H */
