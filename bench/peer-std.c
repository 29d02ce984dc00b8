/* SPDX-License-Identifier: MIT */
/*
 * Contender: plain C11 <stdatomic.h>, as a C11 programmer would write each
 * kernel op (the kernel's orders mapped to C11's: unordered = relaxed,
 * fully ordered = seq_cst, smp_mb = seq_cst fence, smp_mb__after_atomic =
 * seq_cst fence).  Its own translation unit: katomic refuses to share one
 * with <stdatomic.h>.  Built with -mcx16; gcc may still call libatomic for
 * the 16-byte CAS.
 */
#include <stdatomic.h>
#include <stdbool.h>

#define KB_DESC "C11 <stdatomic.h>"

#define KB_A(p) ((_Atomic int *)(p))
#define KB_AL(p) ((_Atomic unsigned long *)(p))
#define KB_INC(p)		((void)atomic_fetch_add_explicit(KB_A(p), 1, memory_order_relaxed))
#define KB_ADD_RETURN(p, i)	(atomic_fetch_add(KB_A(p), (i)) + (i))
#define KB_FETCH_ADD(p, i)	atomic_fetch_add(KB_A(p), (i))
#define KB_FETCH_OR(p, i)	atomic_fetch_or(KB_A(p), (i))
#define KB_XCHG(p, v)		atomic_exchange(KB_A(p), (v))
#define KB_CMPXCHG(p, o, n)	__extension__({ int __o = (o); atomic_compare_exchange_strong(KB_A(p), &__o, (n)); __o; })
#define KB_TRY_CMPXCHG(p, op, n) atomic_compare_exchange_strong(KB_A(p), (op), (n))
#define KB_DEC_AND_TEST(p)	(atomic_fetch_sub(KB_A(p), 1) == 1)
#define KB_ADD_NEGATIVE(p, i)	(atomic_fetch_add(KB_A(p), (i)) + (i) < 0)
#define KB_SET_BIT(nr, a)	((void)atomic_fetch_or_explicit(KB_AL(&(a)[(nr) / 64]), 1UL << ((nr) % 64), memory_order_relaxed))
#define KB_TEST_AND_SET_BIT(nr, a) ((atomic_fetch_or(KB_AL(&(a)[(nr) / 64]), 1UL << ((nr) % 64)) & (1UL << ((nr) % 64))) != 0)
#define KB_SMP_MB()		atomic_thread_fence(memory_order_seq_cst)
#if defined(__clang__)
#define KB_WHAT_smp_mb		"atomic_thread_fence(seq_cst) (clang: mfence)"
#else
#define KB_WHAT_smp_mb		"atomic_thread_fence(seq_cst) (gcc: lock or (%rsp))"
#endif
#define KB_SMP_RMB()		atomic_thread_fence(memory_order_acquire)
#define KB_SMP_WMB()		atomic_thread_fence(memory_order_release)
#define KB_MB_AFTER_ATOMIC()	atomic_thread_fence(memory_order_seq_cst)
#define KB_LOAD_ACQUIRE(p)	atomic_load_explicit(KB_A(p), memory_order_acquire)
#define KB_STORE_RELEASE(p, v)	atomic_store_explicit(KB_A(p), (v), memory_order_release)
#define KB_READ_ONCE(p)		atomic_load_explicit(KB_A(p), memory_order_relaxed)
#define KB_WRITE_ONCE(p, v)	atomic_store_explicit(KB_A(p), (v), memory_order_relaxed)
#ifndef KB_NO_LIBATOMIC	/* gcc calls __atomic_compare_exchange_16 */
#define KB_TRY_CMPXCHG128(p, op, n) \
	atomic_compare_exchange_strong((_Atomic unsigned __int128 *)(p), (op), (n))
#endif
/* The usual C11 refcount: relaxed get; release put, acquire fence at zero. */
#define KB_REF_GET(p)		KB_INC(p)
#define KB_REF_PUT(p) __extension__({						\
	bool __z = atomic_fetch_sub_explicit(KB_A(p), 1, memory_order_release) == 1; \
	if (__z)								\
		atomic_thread_fence(memory_order_acquire);			\
	__z;									\
})
#define KB_WHAT_refcount	"fetch_add relaxed / fetch_sub release + acquire fence"
#define KB_WHAT_seqlock		"relaxed loads/stores + acquire/release fences"

#include "kernels.h"
