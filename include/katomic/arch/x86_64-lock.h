/* SPDX-License-Identifier: MIT */
/*
 * x86-64 lock prefixes for inline asm, in both backends, and the two lists
 * uniprocessor lock elision (<katomic/up.h>) reads:
 *
 *   __KA_LOCK_PREFIX  a lock that may be dropped on one CPU (the kernel's
 *                     LOCK_PREFIX): its address goes into __ka_smp_locks and
 *                     katomic_up_patch*() rewrite it to 0x3E (a DS prefix).
 *   __KA_LOCK_KEEP    a lock that must stay even on one CPU (the memory may be
 *                     shared with a device, a hypervisor or another machine's
 *                     agent, or the instruction must stay a barrier for it):
 *                     `katomic uplocks` skips it when it records the C11
 *                     backend's lock sites.  Marked twice: a DS prefix (0x3E,
 *                     ignored in 64-bit mode) in front of the lock, which no
 *                     linker can drop, and its address in __ka_keep_locks,
 *                     which up.h checks again at run time (a linker with
 *                     --gc-sections may drop that section: lld does unless
 *                     something references it).  Use it in your own inline
 *                     asm for any lock that must survive:
 *                     __KA_LOCK_KEEP "cmpxchgl %1, %0".
 *
 * Each record is a 32-bit offset from the record to the lock byte, so it needs
 * no relocation in PIE executables and shared objects.  The lock is a
 * statement of its own ("lock; "): written "lock addw", gas and clang put the
 * 0x66 operand-size prefix first (66 f0 83 ...) and the label would name the
 * 0x66; written "lock; addw" the 0xF0 comes first (f0 66 83 ...), as in the
 * kernel.  A bare lock with neither record is patched on one CPU only through
 * the C11 scan (`katomic uplocks`), like any compiler-emitted one.
 */
#ifndef KATOMIC_ARCH_X86_64_LOCK_H
#define KATOMIC_ARCH_X86_64_LOCK_H

#define __KA_LOCK_RECORD(section, label)					\
	".pushsection " section ",\"a\"\n\t"					\
	".balign 4\n\t"								\
	".long " label "f - .\n\t"						\
	".popsection\n"								\
	label ":\n\t"
#define __KA_LOCK_PREFIX_HERE	__KA_LOCK_RECORD("__ka_smp_locks", "671")
#define __KA_LOCK_PREFIX	__KA_LOCK_PREFIX_HERE "lock; "
#define __KA_LOCK_KEEP		"ds; " __KA_LOCK_RECORD("__ka_keep_locks", "672") "lock; "

/* The value type of *p, without qualifiers. */
#define __ka_x86_val(p) __typeof__(__atomic_load_n((p), __ATOMIC_RELAXED))

#define __ka_x86_size_check(p)							\
	KA_STATIC_ASSERT(__ka_native_size(*(p)),				\
			 "katomic: atomic op on a scalar that is not 1, 2, 4 or 8 bytes")

/*
 * The kernel's __raw_try_cmpxchg: `lock` (one of the strings above, or "" for
 * _local) cmpxchg, success from ZF; on failure the value read (left in %rax)
 * is written back to *po.
 */
#define __ka_x86_try_cmpxchg(p, po, n, lock) __extension__({			\
	__typeof__(po) __ka_po = (po);						\
	__ka_x86_val(p) __ka_co = *__ka_po;					\
	__ka_x86_val(p) __ka_cn = (n);						\
	bool __ka_ok;								\
	__ka_x86_size_check(p);							\
	switch (sizeof(*(p))) {							\
	case 1:									\
		__asm__ __volatile__(lock "cmpxchgb %b[__new], %[__mem]"		\
			: "=@ccz"(__ka_ok), [__mem] "+m"(*(p)), "+a"(__ka_co)	\
			: [__new] "q"(__ka_cn) : "memory");				\
		break;								\
	case 2:									\
		__asm__ __volatile__(lock "cmpxchgw %w[__new], %[__mem]"		\
			: "=@ccz"(__ka_ok), [__mem] "+m"(*(p)), "+a"(__ka_co)	\
			: [__new] "r"(__ka_cn) : "memory");				\
		break;								\
	case 4:									\
		__asm__ __volatile__(lock "cmpxchgl %k[__new], %[__mem]"		\
			: "=@ccz"(__ka_ok), [__mem] "+m"(*(p)), "+a"(__ka_co)	\
			: [__new] "r"(__ka_cn) : "memory");				\
		break;								\
	default:								\
		__asm__ __volatile__(lock "cmpxchgq %q[__new], %[__mem]"		\
			: "=@ccz"(__ka_ok), [__mem] "+m"(*(p)), "+a"(__ka_co)	\
			: [__new] "r"(__ka_cn) : "memory");				\
		break;								\
	}									\
	if (__builtin_expect(!__ka_ok, 0))					\
		*__ka_po = __ka_co;						\
	__ka_ok;								\
})

/*
 * sync_cmpxchg, both backends: always locked, even in code patched for one
 * CPU, as the kernel's (memory shared with an agent that one-CPU patching
 * knows nothing of, e.g. a hypervisor).  Under ThreadSanitizer, which cannot
 * see inside asm, the C11 backend keeps its builtin (nothing is patched there).
 */
#if defined(KATOMIC_BACKEND_ASM) || !defined(__KA_TSAN)
#define ka_arch_sync_try_cmpxchg(p, po, n) __ka_x86_try_cmpxchg(p, po, n, __KA_LOCK_KEEP)
#endif

#endif /* KATOMIC_ARCH_X86_64_LOCK_H */
