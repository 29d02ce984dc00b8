/* SPDX-License-Identifier: MIT */
/*
 * Uniprocessor lock elision (<katomic/up.h>).  With the asm backend: no
 * patching while more than one CPU is usable; pinned to one CPU, every
 * recorded lock prefix becomes 0x3E and back, idempotently, and the atomics
 * stay exact, also with two threads sharing that CPU; sync_cmpxchg's lock is
 * never recorded.  With the C11 backend there is nothing to patch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <katomic/katomic.h>
#include <katomic/up.h>
#include "tap.h"

#define THREAD_LOOPS 4000000

static atomic_t counter;
static atomic64_t counter64;
static atomic_long_t bits_set;
static unsigned long bitmap[4];
static int pinned_cpu;

static bool asm_backend(void)
{
	return strcmp(KATOMIC_BACKEND_NAME, "asm") == 0;
}

/* Every recorded site holds byte b. */
static bool sites_are(unsigned char b)
{
	for (size_t i = 0; i < katomic_up_nsites(); i++)
		if (*katomic_up_site(i) != b)
			return false;
	return true;
}

static bool site_recorded(const unsigned char *p)
{
	for (size_t i = 0; i < katomic_up_nsites(); i++)
		if (katomic_up_site(i) == p)
			return true;
	return false;
}

/* Single-threaded results of the ops that go through recorded sites. */
static void exercise(const char *when)
{
	atomic_t v = ATOMIC_INIT(5);
	atomic64_t w = ATOMIC64_INIT(-3);
	unsigned long bm[2] = { 0, 0 };
	unsigned char c = 7;
	short s = 100;
	int old = 6;
	bool good = true;

	atomic_inc(&v);					/* 6 */
	good &= atomic_read(&v) == 6;
	good &= atomic_add_return(10, &v) == 16;
	good &= atomic_fetch_sub(6, &v) == 16;		/* 10 */
	good &= !atomic_sub_and_test(4, &v);		/* 6 */
	good &= atomic_try_cmpxchg(&v, &old, 1);		/* 1 */
	good &= !atomic_try_cmpxchg(&v, &old, 9) && old == 1;
	good &= atomic_dec_and_test(&v);		/* 0 */
	good &= atomic_fetch_or(0x30, &v) == 0 && atomic_read(&v) == 0x30;
	good &= atomic64_add_negative(2, &w);		/* -1 */
	good &= atomic64_inc_and_test(&w);		/* 0 */
	good &= atomic64_cmpxchg(&w, 0, 1LL << 40) == 0 && atomic64_read(&w) == 1LL << 40;
	good &= atomic64_xchg(&w, 4) == 1LL << 40;
	good &= atomic64_inc_not_zero(&w) && atomic64_read(&w) == 5;
	good &= !test_and_set_bit(70, bm) && test_and_set_bit(70, bm) && bm[1] == 1UL << 6;
	good &= test_and_clear_bit(70, bm) && bm[1] == 0;
	good &= !test_and_change_bit(3, bm) && bm[0] == 8;
	set_bit(64, bm);
	clear_bit(3, bm);
	good &= bm[0] == 0 && bm[1] == 1;
	good &= cmpxchg(&c, 7, 8) == 7 && c == 8;
	good &= xchg(&s, 5) == 100 && s == 5;
	smp_mb();
	ok(good, "%s: single-threaded results are exact", when);
}

static void *worker(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(pinned_cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (long i = 0; i < THREAD_LOOPS; i++) {
		atomic_inc(&counter);
		atomic64_add(3, &counter64);
		if (!test_and_set_bit((int)(i & 255), bitmap))
			atomic_long_inc(&bits_set);
		if (test_and_clear_bit((int)(i & 255), bitmap))
			atomic_long_dec(&bits_set);
	}
	return NULL;
}

/* Two threads on the one CPU, each inc'ing: preemption never splits an instruction. */
static void two_threads(const char *when)
{
	pthread_t t[2];

	atomic_set(&counter, 0);
	atomic64_set(&counter64, 0);
	atomic_long_set(&bits_set, 0);
	memset(bitmap, 0, sizeof(bitmap));
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ok(atomic_read(&counter) == 2 * THREAD_LOOPS &&
	   atomic64_read(&counter64) == 3LL * 2 * THREAD_LOOPS,
	   "%s: two threads on CPU %d: inc count exact (%d of %d), add count exact",
	   when, pinned_cpu, atomic_read(&counter), 2 * THREAD_LOOPS);
	ok(atomic_long_read(&bits_set) == 0 && !bitmap[0] && !bitmap[1] && !bitmap[2] && !bitmap[3],
	   "%s: two threads on CPU %d: test_and_set/clear_bit balanced", when, pinned_cpu);
}

/* sync_cmpxchg's lock must survive patching: it is emitted but not recorded. */
#ifdef ka_arch_sync_try_cmpxchg
__attribute__((__noinline__)) static bool sync_cas(long *p, long *o, long n)
{
	return ka_arch_sync_try_cmpxchg(p, o, n);
}

/* The public sync_cmpxchg: routed to ka_arch_sync_try_cmpxchg once cmpxchg.h knows the hook. */
__attribute__((__noinline__)) static long public_sync_cmpxchg(long *p, long o, long n)
{
	return sync_cmpxchg(p, o, n);
}

/* The lock byte of the first `lock cmpxchg` (f0 [REX] 0f b1) in f's code;
 * sanitizer builds put it a long way in. */
static const unsigned char *find_lock_cmpxchg(const unsigned char *f)
{
	for (int i = 0; i < 256; i++)
		if (f[i] == 0xF0 && ((f[i + 1] == 0x0F && f[i + 2] == 0xB1) ||
				     ((f[i + 1] & 0xF0) == 0x40 && f[i + 2] == 0x0F && f[i + 3] == 0xB1)))
			return f + i;
	return NULL;
}
#endif

int main(void)
{
	cpu_set_t set;
	int cpus, rc;
	size_t n = katomic_up_nsites();

	diag("backend %s, %zu recorded lock sites", KATOMIC_BACKEND_NAME, n);
	sched_getaffinity(0, sizeof(set), &set);
	cpus = CPU_COUNT(&set);
	for (pinned_cpu = 0; !CPU_ISSET(pinned_cpu, &set); pinned_cpu++)
		;

	if (!asm_backend()) {
		/* The compiler's lock prefixes are recorded nowhere. */
		ok(n == 0, "c11: no lock site is recorded");
		ok(katomic_up_patch() == 0, "c11: katomic_up_patch() finds nothing to patch");
		ok(katomic_up_unpatch() == 0, "c11: katomic_up_unpatch() finds nothing to restore");
		exercise("c11");
		CPU_ZERO(&set);
		CPU_SET(pinned_cpu, &set);
		ok(sched_setaffinity(0, sizeof(set), &set) == 0, "pinned to CPU %d", pinned_cpu);
		ok(katomic_up_patch() == 0, "c11 on one CPU: still nothing to patch");
		two_threads("c11");
		return done_testing();
	}

	ok(n > 0 && sites_are(0xF0), "asm: %zu sites recorded, each a lock prefix (0xF0)", n);
	if (cpus > 1) {
		rc = katomic_up_patch();
		ok(rc == -EBUSY && sites_are(0xF0),
		   "%d CPUs usable: katomic_up_patch() refuses with -EBUSY (got %d), nothing changed",
		   cpus, rc);
	} else {
		diag("only one CPU usable from the start: the refusal is not tested");
	}

	CPU_ZERO(&set);
	CPU_SET(pinned_cpu, &set);
	ok(sched_setaffinity(0, sizeof(set), &set) == 0, "pinned to CPU %d", pinned_cpu);

	rc = katomic_up_patch();
	ok(rc > 0 && (size_t)rc == n, "patch: %d of %zu sites changed", rc, n);
	ok(sites_are(0x3E), "patch: every recorded byte is now 0x3E (DS prefix)");
#ifdef ka_arch_sync_try_cmpxchg
	{
		const unsigned char *lk = find_lock_cmpxchg((const unsigned char *)(unsigned long)&sync_cas);
		long x = 1, o = 1;

		ok(lk && *lk == 0xF0 && !site_recorded(lk),
		   "patch: sync_cmpxchg's lock is not recorded and still 0xF0");
		ok(sync_cas(&x, &o, 2) && x == 2, "patch: ka_arch_sync_try_cmpxchg still works");
		lk = find_lock_cmpxchg((const unsigned char *)(unsigned long)&public_sync_cmpxchg);
		ok(public_sync_cmpxchg(&x, 2, 3) == 2 && x == 3, "patch: sync_cmpxchg() works");
#ifdef __ka_sync_try_cmpxchg	/* cmpxchg.h routes sync_cmpxchg to ka_arch_sync_try_cmpxchg */
		ok(lk && *lk == 0xF0 && !site_recorded(lk), "patch: sync_cmpxchg()'s lock is left alone");
#else
		diag("not tested: cmpxchg.h does not route sync_cmpxchg() to ka_arch_sync_try_cmpxchg, "
		     "so its lock is recorded and patched like any other");
#endif
	}
#endif
	exercise("patched");
	two_threads("patched");

	rc = katomic_up_patch();
	ok(rc == 0 && sites_are(0x3E), "patch again: idempotent (%d changed)", rc);

	rc = katomic_up_unpatch();
	ok(rc > 0 && (size_t)rc == n && sites_are(0xF0), "unpatch: %d sites restored to 0xF0", rc);
	rc = katomic_up_unpatch();
	ok(rc == 0 && sites_are(0xF0), "unpatch again: idempotent (%d changed)", rc);
	exercise("restored");
	two_threads("restored");
	(void)site_recorded;
	return done_testing();
}
