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
#undef __smp_mb
#define __smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#undef __smp_rmb
#define __smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#undef __smp_wmb
#define __smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#undef __smp_store_mb
#define __smp_store_mb(var, value) \
	do { (void)__atomic_exchange_n(&(var), (value), __ATOMIC_SEQ_CST); } while (0)
/*
 * p, at its natural alignment.  The kernel orders naturally aligned scalars
 * only, but a member of a __packed struct (objpool_slot's head and tail) has
 * alignment 1 in the type system, and clang then calls libatomic's
 * __atomic_load/__atomic_store (the kernel has none: vmlinux fails to link)
 * where the kernel's asm just loads.  The compilers take the alignment
 * from __builtin_assume_aligned; the cast through unsigned long keeps the
 * volatile pointer from meeting a const void * parameter.
 */
#define __ka_c11_natural(p)							\
	__builtin_assume_aligned((const void *)(unsigned long)(p), sizeof(*(p)))
#undef __smp_store_release
#define __smp_store_release(p, v) do {						\
	compiletime_assert_atomic_type(*p);					\
	__atomic_store_n((volatile __unqual_scalar_typeof(*(p)) *)__ka_c11_natural(p), \
			 (__unqual_scalar_typeof(*(p)))(v), __ATOMIC_RELEASE);	\
} while (0)
#undef __smp_load_acquire
#define __smp_load_acquire(p) ({						\
	compiletime_assert_atomic_type(*p);					\
	(typeof(*p))__atomic_load_n(						\
		(const volatile __unqual_scalar_typeof(*(p)) *)__ka_c11_natural(p), \
		__ATOMIC_ACQUIRE);						\
})

#endif /* _ASM_X86_BARRIER_C11_H */
