/* SPDX-License-Identifier: MIT */
/* The shared-library half of tests/check-spinlock-dso.sh: takes the same lock as the program. */
#include <katomic/katomic.h>

void *dso_pool(void);
void dso_work(spinlock_t *lock, long *count, long n);

/* Where this module's copy of katomic finds the waiter pool. */
void *dso_pool(void)
{
	return __ka_spin_nodes_v1;
}

void dso_work(spinlock_t *lock, long *count, long n)
{
	for (long i = 0; i < n; i++) {
		spin_lock(lock);
		++*count;
		spin_unlock(lock);
	}
}
