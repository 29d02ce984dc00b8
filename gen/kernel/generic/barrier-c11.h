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
#undef __smp_mb
#define __smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#undef __smp_rmb
#define __smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#undef __smp_wmb
#define __smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
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

#endif /* _ASM_GENERIC_BARRIER_C11_H */
