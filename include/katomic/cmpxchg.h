/* SPDX-License-Identifier: MIT */
/*
 * Size-generic xchg / cmpxchg / try_cmpxchg on any 1, 2, 4 or 8-byte scalar
 * or pointer lvalue (other sizes do not compile), their _acquire, _release
 * and _relaxed forms, the 64-bit and 128-bit versions and the _local ones.
 * Unsuffixed forms are fully ordered; a failed cmpxchg gives no ordering.
 */
#ifndef KATOMIC_CMPXCHG_H
#define KATOMIC_CMPXCHG_H

#include "compiler.h"
#include "backend.h"

/*
 * The kernel's fallback chain for each order: the backend's own form, else
 * its relaxed form between fences, else its fully ordered form.
 */
#define __ka_fenced_full(expr) __extension__({					\
	__ka_pre_full_fence(); __ka_auto __ka_f = (expr); __ka_post_full_fence(); __ka_f; })
#define __ka_fenced_acquire(expr) __extension__({				\
	__ka_auto __ka_f = (expr); __ka_acquire_fence(); __ka_f; })
#define __ka_fenced_release(expr) __extension__({				\
	__ka_release_fence(); (expr); })

#if defined(ka_arch_xchg)
#define __ka_xchg(p, n)			ka_arch_xchg(p, n)
#else
#define __ka_xchg(p, n)			__ka_fenced_full(ka_arch_xchg_relaxed(p, n))
#endif
#if defined(ka_arch_xchg_acquire)
#define __ka_xchg_acquire(p, n)		ka_arch_xchg_acquire(p, n)
#elif defined(ka_arch_xchg_relaxed)
#define __ka_xchg_acquire(p, n)		__ka_fenced_acquire(ka_arch_xchg_relaxed(p, n))
#else
#define __ka_xchg_acquire(p, n)		ka_arch_xchg(p, n)
#endif
#if defined(ka_arch_xchg_release)
#define __ka_xchg_release(p, n)		ka_arch_xchg_release(p, n)
#elif defined(ka_arch_xchg_relaxed)
#define __ka_xchg_release(p, n)		__ka_fenced_release(ka_arch_xchg_relaxed(p, n))
#else
#define __ka_xchg_release(p, n)		ka_arch_xchg(p, n)
#endif
#if defined(ka_arch_xchg_relaxed)
#define __ka_xchg_relaxed(p, n)		ka_arch_xchg_relaxed(p, n)
#else
#define __ka_xchg_relaxed(p, n)		ka_arch_xchg(p, n)
#endif

#if defined(ka_arch_try_cmpxchg)
#define __ka_try_cmpxchg(p, o, n)	ka_arch_try_cmpxchg(p, o, n)
#else
#define __ka_try_cmpxchg(p, o, n)	__ka_fenced_full(ka_arch_try_cmpxchg_relaxed(p, o, n))
#endif
#if defined(ka_arch_try_cmpxchg_acquire)
#define __ka_try_cmpxchg_acquire(p, o, n) ka_arch_try_cmpxchg_acquire(p, o, n)
#elif defined(ka_arch_try_cmpxchg_relaxed)
#define __ka_try_cmpxchg_acquire(p, o, n) __ka_fenced_acquire(ka_arch_try_cmpxchg_relaxed(p, o, n))
#else
#define __ka_try_cmpxchg_acquire(p, o, n) ka_arch_try_cmpxchg(p, o, n)
#endif
#if defined(ka_arch_try_cmpxchg_release)
#define __ka_try_cmpxchg_release(p, o, n) ka_arch_try_cmpxchg_release(p, o, n)
#elif defined(ka_arch_try_cmpxchg_relaxed)
#define __ka_try_cmpxchg_release(p, o, n) __ka_fenced_release(ka_arch_try_cmpxchg_relaxed(p, o, n))
#else
#define __ka_try_cmpxchg_release(p, o, n) ka_arch_try_cmpxchg(p, o, n)
#endif
#if defined(ka_arch_try_cmpxchg_relaxed)
#define __ka_try_cmpxchg_relaxed(p, o, n) ka_arch_try_cmpxchg_relaxed(p, o, n)
#else
#define __ka_try_cmpxchg_relaxed(p, o, n) ka_arch_try_cmpxchg(p, o, n)
#endif
#if defined(ka_arch_try_cmpxchg_local)
#define __ka_try_cmpxchg_local(p, o, n)	ka_arch_try_cmpxchg_local(p, o, n)
#else
#define __ka_try_cmpxchg_local(p, o, n)	__ka_try_cmpxchg_relaxed(p, o, n)
#endif

/* The value type of *p without qualifiers (volatile pointers are fine). */
#define __ka_unqual(p) __typeof__(__atomic_load_n((p), __ATOMIC_RELAXED))

#define __ka_assert_xchg_size(p, n)						\
	KA_STATIC_ASSERT(sizeof(*(p)) == (n) || ((n) == 0 && __ka_native_size(*(p))), \
			 "katomic: xchg/cmpxchg on a scalar of an unsupported size")

#define __ka_xchg_op(op, p, n, size) __extension__({				\
	__ka_assert_xchg_size(p, size);						\
	__ka_arch_hot();							\
	op((p), (__ka_unqual(p))(n));						\
})
/*
 * gcc: the expected value goes through a local of its own and *o is written
 * only on failure (the kernel's rule, and its asm's shape).  Handed the
 * caller's pointer, gcc keeps an old value inside a struct or union (a
 * lockref-style word) in a stack slot, stored and reloaded around every try
 * (the codegen audit's idiom_try_cmpxchg_union: gcc-12 25 -> 20
 * instructions).  clang does the opposite: the copy costs it 5 instructions
 * there, so it gets the caller's pointer.
 */
#ifdef __clang__
#define __ka_try_cmpxchg_op(op, p, o, n, size) __extension__({		\
	__ka_assert_xchg_size(p, size);						\
	op((p), (o), (__ka_unqual(p))(n));					\
})
#else
#define __ka_try_cmpxchg_op(op, p, o, n, size) __extension__({		\
	__ka_unqual(p) *__ka_op = (o), __ka_ov = *__ka_op;			\
	bool __ka_ok;								\
	__ka_assert_xchg_size(p, size);						\
	__ka_arch_hot();							\
	__ka_ok = op((p), &__ka_ov, (__ka_unqual(p))(n));			\
	if (__builtin_expect(!__ka_ok, 0))					\
		*__ka_op = __ka_ov;						\
	__ka_ok;								\
})
#endif
/*
 * cmpxchg returns the value it read: equal to old exactly when it stored.
 * Its expected value is a local already: op writes it directly.
 */
#define __ka_cmpxchg_op(op, p, o, n, size) __extension__({			\
	__ka_unqual(p) __ka_old = (o);						\
	__ka_assert_xchg_size(p, size);						\
	__ka_arch_hot();							\
	(void)op((p), &__ka_old, (__ka_unqual(p))(n));				\
	__ka_old;								\
})

#define ka_xchg(ptr, new)			__ka_xchg_op(__ka_xchg, ptr, new, 0)
#define ka_xchg_acquire(ptr, new)		__ka_xchg_op(__ka_xchg_acquire, ptr, new, 0)
#define ka_xchg_release(ptr, new)		__ka_xchg_op(__ka_xchg_release, ptr, new, 0)
#define ka_xchg_relaxed(ptr, new)		__ka_xchg_op(__ka_xchg_relaxed, ptr, new, 0)

#define ka_cmpxchg(ptr, old, new)		__ka_cmpxchg_op(__ka_try_cmpxchg, ptr, old, new, 0)
#define ka_cmpxchg_acquire(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_acquire, ptr, old, new, 0)
#define ka_cmpxchg_release(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_release, ptr, old, new, 0)
#define ka_cmpxchg_relaxed(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_relaxed, ptr, old, new, 0)
#define ka_cmpxchg_local(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_local, ptr, old, new, 0)
/*
 * sync_cmpxchg: always SMP-safe, even where _local would not be, and even in
 * code patched for one CPU (<katomic/up.h>): a backend that can drop its lock
 * prefixes supplies an always-locked ka_arch_sync_try_cmpxchg.
 */
#if defined(ka_arch_sync_try_cmpxchg)
#define __ka_sync_try_cmpxchg(p, o, n)	ka_arch_sync_try_cmpxchg(p, o, n)
#else
#define __ka_sync_try_cmpxchg(p, o, n)	__ka_try_cmpxchg(p, o, n)
#endif
#define ka_sync_cmpxchg(ptr, old, new)		__ka_cmpxchg_op(__ka_sync_try_cmpxchg, ptr, old, new, 0)

#define ka_try_cmpxchg(ptr, oldp, new)		__ka_try_cmpxchg_op(__ka_try_cmpxchg, ptr, oldp, new, 0)
#define ka_try_cmpxchg_acquire(ptr, oldp, new)	__ka_try_cmpxchg_op(__ka_try_cmpxchg_acquire, ptr, oldp, new, 0)
#define ka_try_cmpxchg_release(ptr, oldp, new)	__ka_try_cmpxchg_op(__ka_try_cmpxchg_release, ptr, oldp, new, 0)
#define ka_try_cmpxchg_relaxed(ptr, oldp, new)	__ka_try_cmpxchg_op(__ka_try_cmpxchg_relaxed, ptr, oldp, new, 0)
#define ka_try_cmpxchg_local(ptr, oldp, new)	__ka_try_cmpxchg_op(__ka_try_cmpxchg_local, ptr, oldp, new, 0)

/* The 64-bit forms insist on 8 bytes. */
#define ka_cmpxchg64(ptr, old, new)		__ka_cmpxchg_op(__ka_try_cmpxchg, ptr, old, new, 8)
#define ka_cmpxchg64_acquire(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_acquire, ptr, old, new, 8)
#define ka_cmpxchg64_release(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_release, ptr, old, new, 8)
#define ka_cmpxchg64_relaxed(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_relaxed, ptr, old, new, 8)
#define ka_cmpxchg64_local(ptr, old, new)	__ka_cmpxchg_op(__ka_try_cmpxchg_local, ptr, old, new, 8)
#define ka_try_cmpxchg64(ptr, oldp, new)	__ka_try_cmpxchg_op(__ka_try_cmpxchg, ptr, oldp, new, 8)
#define ka_try_cmpxchg64_acquire(ptr, oldp, new) __ka_try_cmpxchg_op(__ka_try_cmpxchg_acquire, ptr, oldp, new, 8)
#define ka_try_cmpxchg64_release(ptr, oldp, new) __ka_try_cmpxchg_op(__ka_try_cmpxchg_release, ptr, oldp, new, 8)
#define ka_try_cmpxchg64_relaxed(ptr, oldp, new) __ka_try_cmpxchg_op(__ka_try_cmpxchg_relaxed, ptr, oldp, new, 8)
#define ka_try_cmpxchg64_local(ptr, oldp, new)	__ka_try_cmpxchg_op(__ka_try_cmpxchg_local, ptr, oldp, new, 8)

/* 128-bit CAS on a 16-byte aligned u128, where the target has one. */
#if defined(__x86_64__)
#include "arch/x86_64-cmpxchg128.h"
#endif
#ifdef KATOMIC_HAVE_CMPXCHG128
#define __ka_cmpxchg128_op(op, p, o, n) __extension__({			\
	ka_u128 __ka_old = (o);							\
	(void)op((p), &__ka_old, (ka_u128)(n));					\
	__ka_old;								\
})
#define ka_try_cmpxchg128(ptr, oldp, new)	ka_arch_try_cmpxchg128(ptr, oldp, new)
#define ka_try_cmpxchg128_acquire(ptr, oldp, new) ka_arch_try_cmpxchg128(ptr, oldp, new)
#define ka_try_cmpxchg128_release(ptr, oldp, new) ka_arch_try_cmpxchg128(ptr, oldp, new)
#define ka_try_cmpxchg128_relaxed(ptr, oldp, new) ka_arch_try_cmpxchg128(ptr, oldp, new)
#define ka_try_cmpxchg128_local(ptr, oldp, new)	ka_arch_try_cmpxchg128_local(ptr, oldp, new)
#define ka_cmpxchg128(ptr, old, new)		__ka_cmpxchg128_op(ka_arch_try_cmpxchg128, ptr, old, new)
#define ka_cmpxchg128_acquire(ptr, old, new)	__ka_cmpxchg128_op(ka_arch_try_cmpxchg128, ptr, old, new)
#define ka_cmpxchg128_release(ptr, old, new)	__ka_cmpxchg128_op(ka_arch_try_cmpxchg128, ptr, old, new)
#define ka_cmpxchg128_relaxed(ptr, old, new)	__ka_cmpxchg128_op(ka_arch_try_cmpxchg128, ptr, old, new)
#define ka_cmpxchg128_local(ptr, old, new)	__ka_cmpxchg128_op(ka_arch_try_cmpxchg128_local, ptr, old, new)
#endif

#include "generated/names-cmpxchg.h"

#endif /* KATOMIC_CMPXCHG_H */
