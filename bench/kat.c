/* SPDX-License-Identifier: MIT */
/*
 * Contender: katomic itself.  Built once per compiler and backend
 * (-DKATOMIC_BACKEND_ASM for the inline-asm reference), each time with its
 * own KB_SYM/KB_NAME, so one driver links them all side by side.
 */
#define _GNU_SOURCE
#include <katomic/katomic.h>

#define KB_DESC "katomic " KATOMIC_BACKEND_NAME " backend"

#define KB_A(p) ((atomic_t *)(p))
#define KB_INC(p)			atomic_inc(KB_A(p))
#define KB_ADD_RETURN(p, i)		atomic_add_return((i), KB_A(p))
#define KB_FETCH_ADD(p, i)		atomic_fetch_add((i), KB_A(p))
#define KB_FETCH_OR(p, i)		atomic_fetch_or((i), KB_A(p))
#define KB_XCHG(p, v)			atomic_xchg(KB_A(p), (v))
#define KB_CMPXCHG(p, o, n)		atomic_cmpxchg(KB_A(p), (o), (n))
#define KB_TRY_CMPXCHG(p, op, n)	atomic_try_cmpxchg(KB_A(p), (op), (n))
#define KB_DEC_AND_TEST(p)		atomic_dec_and_test(KB_A(p))
#define KB_ADD_NEGATIVE(p, i)		atomic_add_negative((i), KB_A(p))
#define KB_SET_BIT(nr, a)		set_bit((nr), (a))
#define KB_TEST_AND_SET_BIT(nr, a)	test_and_set_bit((nr), (a))
#define KB_SMP_MB()			smp_mb()
#define KB_SMP_RMB()			smp_rmb()
#define KB_SMP_WMB()			smp_wmb()
#define KB_MB_AFTER_ATOMIC()		smp_mb__after_atomic()
#define KB_LOAD_ACQUIRE(p)		smp_load_acquire(p)
#define KB_STORE_RELEASE(p, v)		smp_store_release((p), (v))
#define KB_READ_ONCE(p)			READ_ONCE(*(p))
#define KB_WRITE_ONCE(p, v)		WRITE_ONCE(*(p), (v))
#ifdef KATOMIC_HAVE_CMPXCHG128
#define KB_TRY_CMPXCHG128(p, op, n)	try_cmpxchg128((p), (op), (n))
#endif
#define KB_REF_GET(p)			refcount_inc((refcount_t *)(p))
#define KB_REF_PUT(p)			refcount_dec_and_test((refcount_t *)(p))
#define KB_WHAT_refcount		"refcount_inc / refcount_dec_and_test (saturating)"
#define KB_LOCK_T			spinlock_t
#define KB_LOCK_INIT(l)			spin_lock_init(l)
#define KB_LOCK(l)			spin_lock(l)
#define KB_UNLOCK(l)			spin_unlock(l)
#define KB_WHAT_spinlock		"katomic spinlock_t (queued: spins, then sleeps in futex; running threads may take a free lock)"
#define KB_WHAT_seqlock			"READ_ONCE/WRITE_ONCE + smp_rmb/smp_wmb"

#include "kernels.h"
