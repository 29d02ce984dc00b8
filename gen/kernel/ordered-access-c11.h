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
	__ka_c11_hot();								\
	__atomic_store_n((volatile __unqual_scalar_typeof(*(p)) *)__ka_c11_natural(p), \
			 (__unqual_scalar_typeof(*(p)))(v), __ATOMIC_RELEASE);	\
} while (0)
#undef __smp_load_acquire
#define __smp_load_acquire(p) ({						\
	compiletime_assert_atomic_type(*p);					\
	__ka_c11_hot();								\
	(typeof(*p))__atomic_load_n(						\
		(const volatile __unqual_scalar_typeof(*(p)) *)__ka_c11_natural(p), \
		__ATOMIC_ACQUIRE);						\
})
