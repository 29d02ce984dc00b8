/* SPDX-License-Identifier: MIT */
/*
 * Contender: libatomic_ops (atomic_ops.h), as an AO user would write each
 * op: AO_int_* for the 32-bit counter, AO_t ops for bitmaps.  No suffix is
 * unordered, _full is fully ordered.  AO has no xchg, fetch_or,
 * test_and_set_bit or spinlock of this kind: n/a.
 */
#include <atomic_ops.h>

#define KB_DESC "libatomic_ops AO_*"

#define KB_U(p) ((unsigned *)(p))
#define KB_INC(p)			((void)AO_int_fetch_and_add1(KB_U(p)))
#define KB_ADD_RETURN(p, i)		((int)AO_int_fetch_and_add_full(KB_U(p), (unsigned)(i)) + (i))
#define KB_FETCH_ADD(p, i)		((int)AO_int_fetch_and_add_full(KB_U(p), (unsigned)(i)))
#define KB_CMPXCHG(p, o, n)		((int)AO_int_fetch_compare_and_swap_full(KB_U(p), (unsigned)(o), (unsigned)(n)))
#define KB_DEC_AND_TEST(p)		(AO_int_fetch_and_sub1_full(KB_U(p)) == 1)
#define KB_ADD_NEGATIVE(p, i)		((int)(AO_int_fetch_and_add_full(KB_U(p), (unsigned)(i)) + (unsigned)(i)) < 0)
#define KB_SET_BIT(nr, a)		AO_or((AO_t *)&(a)[(nr) / 64], (AO_t)1 << ((nr) % 64))
#define KB_SMP_MB()			AO_nop_full()
#define KB_SMP_RMB()			AO_nop_read()
#define KB_SMP_WMB()			AO_nop_write()
#define KB_INC_MB(p)			((void)AO_int_fetch_and_add1_full(KB_U(p)))
#define KB_LOAD_ACQUIRE(p)		((int)AO_int_load_acquire(KB_U(p)))
#define KB_STORE_RELEASE(p, v)		AO_int_store_release(KB_U(p), (unsigned)(v))
#define KB_READ_ONCE(p)			((int)AO_int_load(KB_U(p)))
#define KB_WRITE_ONCE(p, v)		AO_int_store(KB_U(p), (unsigned)(v))
#ifdef AO_HAVE_compare_double_and_swap_double_full
/* No "value" form: on failure re-read the two halves (untorn enough to retry). */
#define KB_TRY_CMPXCHG128(p, op, n) __extension__({				\
	bool __ok = AO_compare_double_and_swap_double_full((AO_double_t *)(p),	\
		(AO_t)*(op), (AO_t)(*(op) >> 64), (AO_t)(n), (AO_t)((n) >> 64));	\
	if (!__ok)								\
		*(op) = ((unsigned __int128)kb_peek(&((AO_t *)(p))[1]) << 64) |	\
			kb_peek(&((AO_t *)(p))[0]);				\
	__ok;									\
})
#endif
#define KB_REF_GET(p)			KB_INC(p)
#define KB_REF_PUT(p)			KB_DEC_AND_TEST(p)
#define KB_WHAT_seqlock			"AO_int_load/store + AO_nop_read/AO_nop_write"

#include "kernels.h"
