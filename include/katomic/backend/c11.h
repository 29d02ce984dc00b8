/* SPDX-License-Identifier: MIT */
/*
 * The C11 backend: katomic's minimal primitive set written with the GCC/Clang
 * __atomic builtins.  What each kernel ordering class becomes is not decided
 * here but by the target's policy in arch/ (see docs/ordering.md): C11's
 * SEQ_CST RMW is not the kernel's "fully ordered" on every architecture.
 *
 * Every primitive is size-generic (1, 2, 4, 8 bytes) and takes a pointer to
 * the scalar it works on; the typed atomic_t/atomic64_t/atomic_long_t API
 * and everything else are derived in include/katomic/generated/.
 */
#ifndef KATOMIC_BACKEND_C11_H
#define KATOMIC_BACKEND_C11_H

#if defined(__x86_64__)
#include "../arch/x86_64.h"
#elif defined(__aarch64__)
#include "../arch/aarch64.h"
#elif defined(__powerpc64__)
#include "../arch/powerpc64.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "../arch/riscv64.h"
#elif defined(__s390x__)
#include "../arch/s390x.h"
#elif defined(__arm__)
#include "../arch/arm.h"
#else
#include "../arch/generic.h"
#endif

/* Policy defaults: the C11 order asked for, and no extra fences. */
#ifndef __ka_rmw_relaxed
#define __ka_rmw_relaxed __ATOMIC_RELAXED
#endif
#ifndef __ka_rmw_acquire
#define __ka_rmw_acquire __ATOMIC_ACQUIRE
#endif
#ifndef __ka_rmw_release
#define __ka_rmw_release __ATOMIC_RELEASE
#endif
#ifndef __ka_full_order
#define __ka_full_pre(size)   ((void)0)
#define __ka_full_order(size) __ATOMIC_SEQ_CST
#define __ka_full_post(size)  ((void)0)
#endif
#ifndef __ka_cas_full_order
#define __ka_cas_full_pre(size)   ((void)0)
#define __ka_cas_full_order(size) __ATOMIC_SEQ_CST
#define __ka_cas_full_post(size)  ((void)0)
#endif

#define __ka_fence(order) __atomic_thread_fence(order)

/* Every op is a builtin, which gcc takes for a call (compiler.h, __ka_hot). */
#define __ka_arch_hot() __ka_hot()

/* Loads and stores are volatile, as READ_ONCE/WRITE_ONCE are: never merged. */
#define __ka_vol(p) ((volatile __typeof__(*(p)) *)(p))

#define ka_arch_read(p)              __atomic_load_n(__ka_vol(p), __ATOMIC_RELAXED)
#define ka_arch_read_acquire(p)      __atomic_load_n(__ka_vol(p), __ATOMIC_ACQUIRE)
#ifdef __KA_STORE_BY_VOLATILE		/* compiler.h: its relaxed atomic store is an RMW */
#define ka_arch_set(p, i)            ((void)(*__ka_vol(p) = (i)))
#else
#define ka_arch_set(p, i)            __atomic_store_n(__ka_vol(p), (i), __ATOMIC_RELAXED)
#endif
#define ka_arch_set_release(p, i)    __atomic_store_n(__ka_vol(p), (i), __ATOMIC_RELEASE)
#define ka_arch_load_acquire(p)      __atomic_load_n(__ka_vol(p), __ATOMIC_ACQUIRE)
#define ka_arch_store_release(p, v)  __atomic_store_n(__ka_vol(p), (v), __ATOMIC_RELEASE)

/* Void RMWs are unordered in the kernel. */
#define ka_arch_add(p, i) ((void)__atomic_fetch_add((p), (i), __ka_rmw_relaxed))
#define ka_arch_sub(p, i) ((void)__atomic_fetch_sub((p), (i), __ka_rmw_relaxed))
#define ka_arch_and(p, i) ((void)__atomic_fetch_and((p), (i), __ka_rmw_relaxed))
#define ka_arch_or(p, i)  ((void)__atomic_fetch_or((p), (i), __ka_rmw_relaxed))
#define ka_arch_xor(p, i) ((void)__atomic_fetch_xor((p), (i), __ka_rmw_relaxed))

/* A fully ordered RMW: whatever the policy wraps around the builtin. */
#define __ka_full(p, builtin, i) __extension__({				\
	__ka_full_pre(sizeof(*(p)));						\
	__ka_auto __ka_r = builtin((p), (i), __ka_full_order(sizeof(*(p))));	\
	__ka_full_post(sizeof(*(p)));						\
	__ka_r;									\
})

#ifndef __KA_C11_RELAXED_ONLY	/* the policy may want acquire/release from fences */
#ifndef __KA_C11_ACQUIRE_BY_FENCE	/* the policy may want acquire from a fence only */
#define ka_arch_add_return_acquire(p, i) __atomic_add_fetch((p), (i), __ka_rmw_acquire)
#define ka_arch_sub_return_acquire(p, i) __atomic_sub_fetch((p), (i), __ka_rmw_acquire)
#define ka_arch_fetch_add_acquire(p, i)  __atomic_fetch_add((p), (i), __ka_rmw_acquire)
#define ka_arch_fetch_sub_acquire(p, i)  __atomic_fetch_sub((p), (i), __ka_rmw_acquire)
#define ka_arch_fetch_and_acquire(p, i)  __atomic_fetch_and((p), (i), __ka_rmw_acquire)
#define ka_arch_fetch_or_acquire(p, i)   __atomic_fetch_or((p), (i), __ka_rmw_acquire)
#define ka_arch_fetch_xor_acquire(p, i)  __atomic_fetch_xor((p), (i), __ka_rmw_acquire)
#define ka_arch_xchg_acquire(p, i)       __atomic_exchange_n((p), (i), __ka_rmw_acquire)
#define ka_arch_try_cmpxchg_acquire(p, o, n) \
	__atomic_compare_exchange_n((p), (o), (n), false, __ka_rmw_acquire, __ATOMIC_RELAXED)
#endif
#define ka_arch_add_return_release(p, i) __atomic_add_fetch((p), (i), __ka_rmw_release)
#define ka_arch_sub_return_release(p, i) __atomic_sub_fetch((p), (i), __ka_rmw_release)
#define ka_arch_fetch_add_release(p, i)  __atomic_fetch_add((p), (i), __ka_rmw_release)
#define ka_arch_fetch_sub_release(p, i)  __atomic_fetch_sub((p), (i), __ka_rmw_release)
#define ka_arch_fetch_and_release(p, i)  __atomic_fetch_and((p), (i), __ka_rmw_release)
#define ka_arch_fetch_or_release(p, i)   __atomic_fetch_or((p), (i), __ka_rmw_release)
#define ka_arch_fetch_xor_release(p, i)  __atomic_fetch_xor((p), (i), __ka_rmw_release)
#define ka_arch_xchg_release(p, i)       __atomic_exchange_n((p), (i), __ka_rmw_release)
#define ka_arch_try_cmpxchg_release(p, o, n) \
	__atomic_compare_exchange_n((p), (o), (n), false, __ka_rmw_release, __ATOMIC_RELAXED)
#define ka_arch_add_return(p, i) __ka_full(p, __atomic_add_fetch, i)
#define ka_arch_sub_return(p, i) __ka_full(p, __atomic_sub_fetch, i)
#define ka_arch_fetch_add(p, i)  __ka_full(p, __atomic_fetch_add, i)
#define ka_arch_fetch_sub(p, i)  __ka_full(p, __atomic_fetch_sub, i)
#define ka_arch_fetch_and(p, i)  __ka_full(p, __atomic_fetch_and, i)
#define ka_arch_fetch_or(p, i)   __ka_full(p, __atomic_fetch_or, i)
#define ka_arch_fetch_xor(p, i)  __ka_full(p, __atomic_fetch_xor, i)
#define ka_arch_xchg(p, i)       __ka_full(p, __atomic_exchange_n, i)
/* Strong CAS; the trailing barrier, if any, only on success (the kernel's rule). */
#define ka_arch_try_cmpxchg(p, o, n) __extension__({				\
	bool __ka_ok;								\
	__ka_cas_full_pre(sizeof(*(p)));					\
	__ka_ok = __atomic_compare_exchange_n((p), (o), (n), false,		\
			__ka_cas_full_order(sizeof(*(p))), __ATOMIC_RELAXED);	\
	if (__ka_ok)								\
		__ka_cas_full_post(sizeof(*(p)));				\
	__ka_ok;								\
})
#endif /* !__KA_C11_RELAXED_ONLY */

#define ka_arch_add_return_relaxed(p, i) __atomic_add_fetch((p), (i), __ka_rmw_relaxed)
#define ka_arch_sub_return_relaxed(p, i) __atomic_sub_fetch((p), (i), __ka_rmw_relaxed)
#define ka_arch_fetch_add_relaxed(p, i)  __atomic_fetch_add((p), (i), __ka_rmw_relaxed)
#define ka_arch_fetch_sub_relaxed(p, i)  __atomic_fetch_sub((p), (i), __ka_rmw_relaxed)
#define ka_arch_fetch_and_relaxed(p, i)  __atomic_fetch_and((p), (i), __ka_rmw_relaxed)
#define ka_arch_fetch_or_relaxed(p, i)   __atomic_fetch_or((p), (i), __ka_rmw_relaxed)
#define ka_arch_fetch_xor_relaxed(p, i)  __atomic_fetch_xor((p), (i), __ka_rmw_relaxed)
#ifndef ka_arch_xchg_relaxed		/* a policy may do sub-word ones itself */
#define ka_arch_xchg_relaxed(p, i)       __atomic_exchange_n((p), (i), __ka_rmw_relaxed)
#endif
#ifndef ka_arch_try_cmpxchg_relaxed	/* a policy may have to work around its compiler */
#define ka_arch_try_cmpxchg_relaxed(p, o, n) \
	__atomic_compare_exchange_n((p), (o), (n), false, __ka_rmw_relaxed, __ATOMIC_RELAXED)
#endif

/* cmpxchg_local: atomic against this thread only; the kernel drops the lock prefix. */
#define ka_arch_try_cmpxchg_local(p, o, n) ka_arch_try_cmpxchg_relaxed(p, o, n)

#endif /* KATOMIC_BACKEND_C11_H */
