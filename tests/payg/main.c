/* SPDX-License-Identifier: MIT */
/* tests/check-payg.sh: calls the user0 ... userN-1 of lock.c, built N times. */
#include <katomic/katomic.h>

#ifndef USERS
#define USERS 1
#endif
#define DECL(n) int user##n(spinlock_t *, atomic_t *, refcount_t *, int *);
DECL(0) DECL(1) DECL(2) DECL(3)

int main(void)
{
	static DEFINE_SPINLOCK(lock);
	atomic_t flag = ATOMIC_INIT(1);
	refcount_t ref = REFCOUNT_INIT(1);
	int count = 0, r = 0;

	r += user0(&lock, &flag, &ref, &count);
#if USERS > 1
	r += user1(&lock, &flag, &ref, &count);
#endif
#if USERS > 2
	r += user2(&lock, &flag, &ref, &count);
#endif
#if USERS > 3
	r += user3(&lock, &flag, &ref, &count);
#endif
	return r == 2 * USERS && count == USERS ? 0 : 1;
}
