/* A shared object whose last user frees it: the kernel idiom, in user space. */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <katomic/katomic.h>

struct object {
	refcount_t ref;
	atomic_long_t uses;
};

static void put(struct object *obj)
{
	if (refcount_dec_and_test(&obj->ref)) {
		printf("last put: %ld uses, freeing\n", atomic_long_read(&obj->uses));
		free(obj);
	}
}

static void *worker(void *arg)
{
	struct object *obj = arg;

	for (int i = 0; i < 100000; i++)
		atomic_long_inc(&obj->uses);
	put(obj);
	return NULL;
}

int main(void)
{
	struct object *obj = malloc(sizeof(*obj));
	pthread_t t[4];

	if (!obj)
		return 1;
	refcount_set(&obj->ref, 1);
	atomic_long_set(&obj->uses, 0);
	for (int i = 0; i < 4; i++) {
		refcount_inc(&obj->ref);	/* one reference per thread */
		pthread_create(&t[i], NULL, worker, obj);
	}
	put(obj);				/* drop ours */
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
