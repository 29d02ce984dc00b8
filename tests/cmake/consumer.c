/* SPDX-License-Identifier: MIT */
/* Built by tests/cmake/CMakeLists.txt against an installed katomic: threads count with the atomics. */
#include <pthread.h>
#include <stdio.h>
#include <katomic/katomic.h>

static atomic_long_t hits = ATOMIC_LONG_INIT(0);
static refcount_t users = REFCOUNT_INIT(1);

static void *worker(void *arg)
{
	(void)arg;
	refcount_inc(&users);
	for (int i = 0; i < 100000; i++)
		atomic_long_inc(&hits);
	refcount_dec(&users);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("cmake consumer: %ld hits, last put %s\n", atomic_long_read(&hits),
	       refcount_dec_and_test(&users) ? "frees" : "does not free");
	return atomic_long_read(&hits) == 400000 ? 0 : 1;
}
