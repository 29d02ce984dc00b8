/*
 * A program that keeps a kernel-style and a C11 version of the same data
 * structure side by side (issue 22): a bounded counter with a high-water
 * mark and a flag word, updated by several threads, once with atomic_t and
 * the kernel's API, once with _Atomic objects and <stdatomic.h>'s, using the
 * same names where both have them (atomic_fetch_add, atomic_fetch_or, ...).
 * -DSTD_FIRST: <stdatomic.h> before katomic (default: after).
 */
#ifdef STD_FIRST
#include <stdatomic.h>
#endif
#include <katomic/katomic.h>
#ifndef STD_FIRST
#include <stdatomic.h>
#endif
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS 20000

struct k_stats { atomic_t count; atomic_t high; atomic_t flags; atomic_t sub; };
struct c_stats { atomic_int count; atomic_int high; atomic_int flags; atomic_int sub; };

static struct k_stats ks;
static struct c_stats cs;

static void k_update(int id)
{
	int now = atomic_fetch_add(1, &ks.count) + 1;	/* the kernel's order */
	int high = atomic_read(&ks.high);

	while (now > high && !atomic_try_cmpxchg(&ks.high, &high, now))
		;
	atomic_fetch_or(1 << id, &ks.flags);
	atomic_fetch_sub(1, &ks.sub);
	atomic_fetch_xor(0, &ks.flags);
	atomic_fetch_and(~0, &ks.flags);
}

static void c_update(int id)
{
	int now = atomic_fetch_add(&cs.count, 1) + 1;	/* C11's order */
	int high = atomic_load_explicit(&cs.high, memory_order_relaxed);

	while (now > high && !atomic_compare_exchange_weak_explicit(&cs.high, &high, now,
								      memory_order_relaxed, memory_order_relaxed))
		;
	atomic_fetch_or(&cs.flags, 1 << id);
	atomic_fetch_sub(&cs.sub, 1);
	atomic_fetch_xor(&cs.flags, 0);
	atomic_fetch_and(&cs.flags, ~0);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		k_update(id);
		c_update(id);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	int pass, failed;

	atomic_set(&ks.sub, 0);
	atomic_store_explicit(&cs.sub, 0, memory_order_relaxed);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pass = atomic_read(&ks.count) == THREADS * ROUNDS && atomic_read(&ks.high) == THREADS * ROUNDS &&
	       atomic_read(&ks.flags) == (1 << THREADS) - 1 && atomic_read(&ks.sub) == -THREADS * ROUNDS;
	printf("%sok 1 - kernel-style: count %d, high %d, flags %#x, sub %d\n", pass ? "" : "not ",
	       atomic_read(&ks.count), atomic_read(&ks.high), atomic_read(&ks.flags), atomic_read(&ks.sub));
	failed = !pass;
	pass = atomic_load(&cs.count) == THREADS * ROUNDS && atomic_load(&cs.high) == THREADS * ROUNDS &&
	       atomic_load(&cs.flags) == (1 << THREADS) - 1 && atomic_load(&cs.sub) == -THREADS * ROUNDS;
	printf("%sok 2 - C11: count %d, high %d, flags %#x, sub %d\n1..2\n", pass ? "" : "not ",
	       atomic_load(&cs.count), atomic_load(&cs.high), atomic_load(&cs.flags), atomic_load(&cs.sub));
	return failed || !pass;
}
