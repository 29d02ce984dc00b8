/* SPDX-License-Identifier: MIT */
/*
 * Contender: liburcu's uatomic and barriers (urcu/uatomic.h, urcu/arch.h),
 * as a liburcu user would write each op.  liburcu 0.13 has no fetch_or,
 * test_and_set_bit, acquire load, release store, cmpxchg128 or spinlock:
 * those are n/a, except that acquire/release are its publication idiom
 * (load + cmm_smp_rmb, cmm_smp_wmb + store: TSO-only equivalents on x86).
 */
#include <urcu/arch.h>
#include <urcu/uatomic.h>
#include <urcu/system.h>

#define KB_DESC "liburcu uatomic / cmm_*"

#define KB_INC(p)			uatomic_inc(p)
#define KB_ADD_RETURN(p, i)		uatomic_add_return((p), (i))
#define KB_FETCH_ADD(p, i)		(uatomic_add_return((p), (i)) - (i))
#define KB_XCHG(p, v)			uatomic_xchg((p), (v))
#define KB_CMPXCHG(p, o, n)		uatomic_cmpxchg((p), (o), (n))
#define KB_DEC_AND_TEST(p)		(uatomic_add_return((p), -1) == 0)
#define KB_ADD_NEGATIVE(p, i)		(uatomic_add_return((p), (i)) < 0)
#define KB_SET_BIT(nr, a)		uatomic_or(&(a)[(nr) / 64], 1UL << ((nr) % 64))
#define KB_SMP_MB()			cmm_smp_mb()
#define KB_WHAT_smp_mb			"cmm_smp_mb (mfence)"
#define KB_SMP_RMB()			cmm_smp_rmb()
#define KB_SMP_WMB()			cmm_smp_wmb()
#define KB_MB_AFTER_ATOMIC()		cmm_smp_mb__after_uatomic_inc()
#define KB_LOAD_ACQUIRE(p)		__extension__({ __typeof__(*(p)) __v = CMM_LOAD_SHARED(*(p)); cmm_smp_rmb(); __v; })
#define KB_STORE_RELEASE(p, v)		do { cmm_smp_wmb(); CMM_STORE_SHARED(*(p), (v)); } while (0)
#define KB_READ_ONCE(p)			CMM_LOAD_SHARED(*(p))
#define KB_WRITE_ONCE(p, v)		CMM_STORE_SHARED(*(p), (v))
#define KB_WHAT_seqlock			"CMM_LOAD/STORE_SHARED + cmm_smp_rmb/cmm_smp_wmb"

#include "kernels.h"
