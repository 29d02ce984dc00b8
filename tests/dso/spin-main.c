/* SPDX-License-Identifier: MIT */
/*
 * One spinlock_t contended from an executable and from a shared library
 * (tests/check-spinlock-dso.sh), each with its own copy of katomic's
 * contended path: the queue names waiters by their index in the node pool,
 * so both modules must use one pool.  4 threads in each module on 2 CPUs
 * queue behind each other; the plain counter must be exact.
 */
#include <katomic/katomic.h>
#include <pthread.h>
#include <stdio.h>

void *dso_pool(void);
void dso_work(spinlock_t *lock, long *count, long n);

static DEFINE_SPINLOCK(lock);
static long count;
#define N 200000

static void *in_main(void *arg)
{
	(void)arg;
	for (long i = 0; i < N; i++) {
		spin_lock(&lock);
		++count;
		spin_unlock(&lock);
	}
	return NULL;
}

static void *in_dso(void *arg)
{
	(void)arg;
	dso_work(&lock, &count, N);
	return NULL;
}

int main(void)
{
	pthread_t t[8];
	int fails = 0;

	printf("1..2\n");
	if (dso_pool() == (void *)__ka_spin_nodes_v1) {
		printf("ok 1 - the program and the library share one waiter pool\n");
	} else {
		printf("not ok 1 - the library uses its own waiter pool (%p, the program %p)\n",
		       dso_pool(), (void *)__ka_spin_nodes_v1);
		fails++;
	}
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, i % 2 ? in_dso : in_main, NULL);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	if (count == 8L * N) {
		printf("ok 2 - 4 threads in the program and 4 in the library: count exact (%ld)\n", count);
	} else {
		printf("not ok 2 - count %ld, expected %ld\n", count, 8L * N);
		fails++;
	}
	return fails != 0;
}
