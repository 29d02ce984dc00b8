/* SPDX-License-Identifier: MIT */
/*
 * Contender: Concurrency Kit (ck_pr.h, ck_spinlock.h, ck_sequence.h), as a
 * ck user would write each op.  ck_pr has no fetch_or: n/a.
 */
#include <ck_pr.h>
#include <ck_sequence.h>
#include <ck_spinlock.h>
#include <stdint.h>

#define KB_DESC "Concurrency Kit ck_pr / ck_spinlock_ticket / ck_sequence"

#define KB_INC(p)			ck_pr_inc_int(p)
#define KB_ADD_RETURN(p, i)		(ck_pr_faa_int((p), (i)) + (i))
#define KB_FETCH_ADD(p, i)		ck_pr_faa_int((p), (i))
#define KB_XCHG(p, v)			ck_pr_fas_int((p), (v))
#define KB_CMPXCHG(p, o, n)		__extension__({ int __v; ck_pr_cas_int_value((p), (o), (n), &__v); __v; })
#define KB_TRY_CMPXCHG(p, op, n)	ck_pr_cas_int_value((p), *(op), (n), (op))
#define KB_DEC_AND_TEST(p)		ck_pr_dec_int_is_zero(p)
#define KB_ADD_NEGATIVE(p, i)		(ck_pr_faa_int((p), (i)) + (i) < 0)
#define KB_SET_BIT(nr, a)		ck_pr_or_64((uint64_t *)&(a)[(nr) / 64], 1ULL << ((nr) % 64))
#define KB_TEST_AND_SET_BIT(nr, a)	ck_pr_bts_64((uint64_t *)&(a)[(nr) / 64], (unsigned)((nr) % 64))
#define KB_SMP_MB()			ck_pr_fence_memory()
#define KB_WHAT_smp_mb			"ck_pr_fence_memory (mfence)"
#define KB_SMP_RMB()			ck_pr_fence_load()
#define KB_SMP_WMB()			ck_pr_fence_store()
#define KB_MB_AFTER_ATOMIC()		do { ck_pr_fence_atomic_load(); ck_pr_fence_atomic_store(); } while (0)
#define KB_LOAD_ACQUIRE(p)		__extension__({ int __v = ck_pr_load_int(p); ck_pr_fence_acquire(); __v; })
#define KB_STORE_RELEASE(p, v)		do { ck_pr_fence_release(); ck_pr_store_int((p), (v)); } while (0)
#define KB_READ_ONCE(p)			ck_pr_load_int(p)
#define KB_WRITE_ONCE(p, v)		ck_pr_store_int((p), (v))
#define KB_TRY_CMPXCHG128(p, op, n) __extension__({				\
	uint64_t __c[2] = { (uint64_t)*(op), (uint64_t)(*(op) >> 64) };	\
	uint64_t __s[2] = { (uint64_t)(n), (uint64_t)((n) >> 64) }, __v[2];	\
	bool __ok = ck_pr_cas_64_2_value((uint64_t *)(p), __c, __s, __v);	\
	if (!__ok)								\
		*(op) = ((unsigned __int128)__v[1] << 64) | __v[0];		\
	__ok;									\
})
#define KB_LOCK_T			ck_spinlock_ticket_t
#define KB_LOCK_INIT(l)			ck_spinlock_ticket_init(l)
#define KB_LOCK(l)			ck_spinlock_ticket_lock(l)
#define KB_UNLOCK(l)			ck_spinlock_ticket_unlock(l)
#define KB_WHAT_spinlock		"ck_spinlock_ticket (spins, never yields)"
#define KB_SEQ_READ_BEGIN(s)		ck_sequence_read_begin((struct ck_sequence *)(s))
#define KB_SEQ_READ_RETRY(s, v)		ck_sequence_read_retry((struct ck_sequence *)(s), (v))
#define KB_SEQ_WRITE_BEGIN(s)		ck_sequence_write_begin((struct ck_sequence *)(s))
#define KB_SEQ_WRITE_END(s)		ck_sequence_write_end((struct ck_sequence *)(s))
#define KB_WHAT_seqlock			"ck_sequence"

#include "kernels.h"
