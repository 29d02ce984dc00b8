/* SPDX-License-Identifier: MIT */
/*
 * tests/check-payg.sh: a translation unit that locks, waits and uses a
 * refcount.  Built as several objects (-DNAME=...) linked into one program,
 * whose out-of-line machinery must be there once, not once per object.
 */
#include <katomic/katomic.h>

#ifndef NAME
#define NAME user0
#endif

int NAME(spinlock_t *lock, atomic_t *flag, refcount_t *ref, int *count);
int NAME(spinlock_t *lock, atomic_t *flag, refcount_t *ref, int *count)
{
	int v;

	spin_lock(lock);
	++*count;
	spin_unlock(lock);
	v = atomic_cond_read_acquire(flag, VAL != 0);
	refcount_inc(ref);
	return v + !refcount_dec_and_test(ref);
}
