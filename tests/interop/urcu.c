/* SPDX-License-Identifier: MIT */
/*
 * liburcu and katomic in one program, in either include order (URCU_FIRST
 * or not): rcu_dereference and rcu_assign_pointer are liburcu's (katomic's
 * own are ka_rcu_dereference/ka_rcu_assign_pointer), the rest of the
 * kernel API is katomic's (ka_rcu_dereference stays usable).  Readers walk a published object under
 * rcu_read_lock while an updater replaces it, waits with synchronize_rcu
 * and poisons the old one: a reader that sees a poisoned object means the
 * two RCU halves did not work together.  Built with -Werror by
 * tests/check-interop.sh (link with -lurcu).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef URCU_FIRST
#include <urcu.h>
#include <katomic/katomic.h>
#else
#include <katomic/katomic.h>
#include <urcu.h>
#endif
#include "tap.h"

#define STR(...) #__VA_ARGS__
#define XSTR(...) STR(__VA_ARGS__)

#define READERS 3
#define UPDATES 2000
#define MAGIC 0x5eed5eedu
#define POISON 0xdeadbeefu

struct obj { unsigned magic; long gen; };

static struct obj *current;
static atomic_t readers_done = ATOMIC_INIT(0);
static atomic_long_t reads = ATOMIC_LONG_INIT(0);
static atomic_t bad = ATOMIC_INIT(0);

static void *reader(void *arg)
{
	long last = 0;
	unsigned long i = 0;

	(void)arg;
	rcu_register_thread();
	for (;;) {
		struct obj *o;

		rcu_read_lock();
		/* liburcu's, and katomic's own (also a dependency-ordered load) */
		o = ++i & 1 ? rcu_dereference(current) : ka_rcu_dereference(current);
		if (o->magic != MAGIC || o->gen < last)
			atomic_inc(&bad);
		last = o->gen;
		rcu_read_unlock();
		atomic_long_inc(&reads);
		if (last == UPDATES)
			break;
	}
	rcu_unregister_thread();
	atomic_inc(&readers_done);
	return NULL;
}

int main(void)
{
	pthread_t t[READERS];
	const char *deref = XSTR(rcu_dereference(current));
	const char *assign = XSTR(rcu_assign_pointer(current, NULL));
	struct obj *first = (struct obj *)malloc(sizeof(*first));

	ok(strstr(deref, "ka_") == NULL && strstr(assign, "ka_") == NULL,
	   "rcu_dereference and rcu_assign_pointer are liburcu's (%s order)",
#ifdef URCU_FIRST
	   "urcu first"
#else
	   "katomic first"
#endif
	   );

	first->magic = MAGIC;
	first->gen = 0;
	rcu_assign_pointer(current, first);
	rcu_register_thread();
	for (int i = 0; i < READERS; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (long g = 1; g <= UPDATES; g++) {
		struct obj *n = (struct obj *)malloc(sizeof(*n));
		struct obj *old = current;

		n->magic = MAGIC;
		n->gen = g;
		rcu_assign_pointer(current, n);
		synchronize_rcu();
		old->magic = POISON;	/* no reader can still hold it */
		free(old);
	}
	rcu_unregister_thread();
	for (int i = 0; i < READERS; i++)
		pthread_join(t[i], NULL);
	ok(atomic_read(&bad) == 0 && atomic_read(&readers_done) == READERS,
	   "%d readers, %d updates with synchronize_rcu: no reader saw a reclaimed or older object "
	   "(%ld reads, %d bad)", READERS, UPDATES, atomic_long_read(&reads), atomic_read(&bad));
	free(current);
	return done_testing();
}
