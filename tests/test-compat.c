/* SPDX-License-Identifier: MIT */
/*
 * The names ported kernel code needs (issue 14): ACCESS_ONCE (also as an
 * lvalue), the _irqsave/_irq/_bh and raw_spin_* lock forms, dma_* and virt_*
 * barriers, and <katomic/kernel.h>: u8..s64, __u8..__s64, likely/unlikely,
 * prefetch/prefetchw, __smp_*, spin_unlock_wait.  Values, types, and the
 * cases that need other threads (a spinning reader that must see a store,
 * message passing through each barrier pair, mutual exclusion with more
 * threads than CPUs, spin_unlock_wait waiting for the holder).  Builds as C
 * and as C++.  A hang is a failure (the watchdog).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <katomic/kernel.h>
#include <linux/types.h>	/* after kernel.h: the same __u8 ... __s64, no conflict */
#include "tap.h"
#include "stress.h"

#ifdef __cplusplus
#define SAME_TYPE(a, b) __is_same(a, b)	/* g++ >= 10, clang++: no <type_traits> needed */
#else
#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)
#endif

static void sleep_ms(long ms)
{
	usleep((useconds_t)ms * 1000);
}

/* ------------------------------------------------------------ ACCESS_ONCE */

#define ACCESS_CASE(T, a, b) do {						\
	T x_ = (a);								\
	bool g_ = ACCESS_ONCE(x_) == (T)(a);					\
	ACCESS_ONCE(x_) = (b);							\
	g_ = g_ && x_ == (T)(b) && ACCESS_ONCE(x_) == (T)(b);			\
	g_ = g_ && sizeof(ACCESS_ONCE(x_)) == sizeof(T);			\
	ok(g_, "ACCESS_ONCE reads and, as an lvalue, writes " #T);		\
} while (0)

struct rec { char c; long v; int arr[3]; };

static int spin_flag;
static int spin_seen;

/* Without volatile, -O2 hoists the load out of the loop and this never ends. */
static void *access_once_spinner(void *arg)
{
	unsigned spins = 0;

	(void)arg;
	while (!ACCESS_ONCE(spin_flag))
		stress_relax(&spins);
	ACCESS_ONCE(spin_seen) = 1;
	return NULL;
}

static void test_access_once(void)
{
	static int objs[2];
	struct rec r;
	const int c = 42;
	pthread_t t;

	ACCESS_CASE(char, 'a', (char)0x80);
	ACCESS_CASE(unsigned char, 0xff, 0);
	ACCESS_CASE(short, SHRT_MIN, SHRT_MAX);
	ACCESS_CASE(int, INT_MIN, INT_MAX);
	ACCESS_CASE(unsigned int, 0xdeadbeefu, 1u);
	ACCESS_CASE(long, LONG_MIN, LONG_MAX);
	ACCESS_CASE(long long, LLONG_MIN, 0x0123456789abcdefLL);
	ACCESS_CASE(uint64_t, 0xfedcba9876543210ULL, 7);
	ACCESS_CASE(int *, &objs[0], &objs[1]);

	memset(&r, 0, sizeof(r));
	ACCESS_ONCE(r.v) = -5;
	ACCESS_ONCE(r.arr[2]) = 9;
	ACCESS_ONCE(r.c) = 'z';
	ACCESS_ONCE(r.arr[2])++;
	ACCESS_ONCE(r.v) += 10;
	ok(r.v == 5 && r.arr[2] == 10 && r.c == 'z' && r.arr[0] == 0 && r.arr[1] == 0,
	   "ACCESS_ONCE on members and elements, with ++ and += (touches only its object)");
	ok(ACCESS_ONCE(c) == 42, "ACCESS_ONCE reads a const object");

	spin_flag = 0;
	spin_seen = 0;
	pthread_create(&t, NULL, access_once_spinner, NULL);
	sleep_ms(20);
	ok(!ACCESS_ONCE(spin_seen), "ACCESS_ONCE: the spinner waits while the flag is 0");
	ACCESS_ONCE(spin_flag) = 1;
	pthread_join(t, NULL);
	ok(spin_seen == 1, "ACCESS_ONCE: a spinning reader sees a store made later (not hoisted)");
}

/* ------------------------------------------------------------ lock forms */

#define LOCK_THREADS 4		/* more than this 2-CPU CI machine has */
#define LOCK_LOOPS 20000

static DEFINE_SPINLOCK(shared_lock);
static DEFINE_RAW_SPINLOCK(shared_raw);
static long shared_count, shared_raw_count;

/*
 * Every form on one lock, a plain (non-atomic) counter under it.  flags is
 * only ever passed to the macros: -Wall -Wextra -Werror must stay quiet.
 */
static void *lock_worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < LOCK_LOOPS; i++) {
		unsigned long flags;

		switch ((i + id) % 7) {
		case 0:
			spin_lock_irqsave(&shared_lock, flags);
			shared_count++;
			spin_unlock_irqrestore(&shared_lock, flags);
			break;
		case 1:
			spin_lock_irq(&shared_lock);
			shared_count++;
			spin_unlock_irq(&shared_lock);
			break;
		case 2:
			spin_lock_bh(&shared_lock);
			shared_count++;
			spin_unlock_bh(&shared_lock);
			break;
		case 3:
			while (!spin_trylock_irqsave(&shared_lock, flags))
				cpu_relax();
			shared_count++;
			spin_unlock_irqrestore(&shared_lock, flags);
			break;
		case 4:
			while (!spin_trylock_irq(&shared_lock) )
				cpu_relax();
			shared_count++;
			spin_unlock_irq(&shared_lock);
			break;
		case 5:
			while (!spin_trylock_bh(&shared_lock))
				cpu_relax();
			shared_count++;
			spin_unlock_bh(&shared_lock);
			break;
		default:
			spin_lock(&shared_lock);
			shared_count++;
			spin_unlock(&shared_lock);
			break;
		}
		switch ((i + id) % 5) {
		case 0:
			raw_spin_lock_irqsave(&shared_raw, flags);
			shared_raw_count++;
			raw_spin_unlock_irqrestore(&shared_raw, flags);
			break;
		case 1:
			raw_spin_lock_irq(&shared_raw);
			shared_raw_count++;
			raw_spin_unlock_irq(&shared_raw);
			break;
		case 2:
			raw_spin_lock_bh(&shared_raw);
			shared_raw_count++;
			raw_spin_unlock_bh(&shared_raw);
			break;
		case 3:
			while (!raw_spin_trylock_irqsave(&shared_raw, flags))
				cpu_relax();
			shared_raw_count++;
			raw_spin_unlock_irqrestore(&shared_raw, flags);
			break;
		default:
			if ((i & 1) && raw_spin_trylock(&shared_raw)) {
				shared_raw_count++;
				raw_spin_unlock(&shared_raw);
			} else if (i & 1) {
				while (!(i & 2 ? raw_spin_trylock_irq(&shared_raw) : raw_spin_trylock_bh(&shared_raw)))
					cpu_relax();
				shared_raw_count++;
				raw_spin_unlock(&shared_raw);
			} else {
				raw_spin_lock(&shared_raw);
				shared_raw_count++;
				raw_spin_unlock(&shared_raw);
			}
			break;
		}
	}
	return NULL;
}

static void test_lock_forms(void)
{
	spinlock_t l;
	raw_spinlock_t rl = __RAW_SPIN_LOCK_UNLOCKED(rl);
	unsigned long flags = 0xdeadUL;
	pthread_t t[LOCK_THREADS];
	bool g;

	spin_lock_init(&l);
	spin_lock_irqsave(&l, flags);
	ok(flags == 0 && spin_is_locked(&l) && !spin_trylock(&l),
	   "spin_lock_irqsave: takes the lock and sets flags to 0");
	spin_unlock_irqrestore(&l, flags);
	ok(!spin_is_locked(&l), "spin_unlock_irqrestore: releases it");

	flags = 0xbeefUL;
	g = spin_trylock_irqsave(&l, flags);
	ok(g && flags == 0 && spin_is_locked(&l), "spin_trylock_irqsave on a free lock: true, flags 0, held");
	flags = 0xbeefUL;
	g = spin_trylock_irqsave(&l, flags);
	ok(!g && spin_is_locked(&l), "spin_trylock_irqsave on a held lock: false");
	spin_unlock_irqrestore(&l, flags);

	spin_lock_irq(&l);
	g = spin_is_locked(&l) && !spin_trylock_irq(&l) && !spin_trylock_bh(&l);
	spin_unlock_irq(&l);
	ok(g && !spin_is_locked(&l), "spin_lock_irq/spin_unlock_irq; spin_trylock_irq/_bh fail while held");
	spin_lock_bh(&l);
	g = spin_is_locked(&l);
	spin_unlock_bh(&l);
	ok(g && !spin_is_locked(&l), "spin_lock_bh/spin_unlock_bh");
	g = spin_trylock_irq(&l) && spin_is_locked(&l);
	spin_unlock_irq(&l);
	g = g && spin_trylock_bh(&l) && spin_is_locked(&l);
	spin_unlock_bh(&l);
	ok(g && !spin_is_locked(&l), "spin_trylock_irq/_bh take a free lock");

	ok(SAME_TYPE(raw_spinlock_t, spinlock_t) && !raw_spin_is_locked(&rl),
	   "raw_spinlock_t is spinlock_t; __RAW_SPIN_LOCK_UNLOCKED is unlocked");
	raw_spin_lock(&rl);
	g = raw_spin_is_locked(&rl) && !raw_spin_trylock(&rl) && !raw_spin_trylock_irq(&rl) &&
	    !raw_spin_trylock_bh(&rl) && !raw_spin_trylock_irqsave(&rl, flags);
	raw_spin_unlock(&rl);
	ok(g && !raw_spin_is_locked(&rl), "raw_spin_lock/unlock; every raw trylock fails while held");
	flags = 1;
	raw_spin_lock_irqsave(&rl, flags);
	g = flags == 0 && raw_spin_is_locked(&rl);
	raw_spin_unlock_irqrestore(&rl, flags);
	raw_spin_lock_init(&rl);
	ok(g && !raw_spin_is_locked(&rl), "raw_spin_lock_irqsave sets flags to 0; raw_spin_lock_init");
	ok(!raw_spin_is_locked(&shared_raw) && !spin_is_locked(&shared_lock),
	   "DEFINE_RAW_SPINLOCK and DEFINE_SPINLOCK start unlocked");

	for (long i = 0; i < LOCK_THREADS; i++)
		pthread_create(&t[i], NULL, lock_worker, (void *)i);
	for (int i = 0; i < LOCK_THREADS; i++)
		pthread_join(t[i], NULL);
	ok(shared_count == (long)LOCK_THREADS * LOCK_LOOPS && shared_raw_count == (long)LOCK_THREADS * LOCK_LOOPS,
	   "%d threads through every lock form: counts exact (%ld and %ld of %ld)", LOCK_THREADS,
	   shared_count, shared_raw_count, (long)LOCK_THREADS * LOCK_LOOPS);
}

/* ------------------------------------------------------------ spin_unlock_wait */

static spinlock_t wait_lock;
static int wait_done;
static int wait_data;

static void *unlock_waiter(void *arg)
{
	(void)arg;
	spin_unlock_wait(&wait_lock);
	/* ACQUIRE: what the holder wrote before its unlock is visible. */
	ACCESS_ONCE(wait_done) = READ_ONCE(wait_data) == 77 ? 1 : 2;
	return NULL;
}

static void test_unlock_wait(void)
{
	pthread_t t;

	spin_lock_init(&wait_lock);
	spin_unlock_wait(&wait_lock);
	ok(!spin_is_locked(&wait_lock), "spin_unlock_wait on a free lock returns and does not take it");

	spin_lock(&wait_lock);
	pthread_create(&t, NULL, unlock_waiter, NULL);
	sleep_ms(30);
	ok(READ_ONCE(wait_done) == 0, "spin_unlock_wait waits while the lock is held");
	WRITE_ONCE(wait_data, 77);
	spin_unlock(&wait_lock);
	pthread_join(t, NULL);
	ok(wait_done == 1, "spin_unlock_wait returns after the unlock and sees the holder's writes");
}

/* ------------------------------------------------------------ dma_* and virt_* */

#define MP_ROUNDS 20000

/*
 * One message-passing protocol, run once per barrier pair: the producer
 * writes a payload, a barrier, then the sequence number; the consumer waits
 * for the number, a barrier, then checks the payload.  The consumer's ack
 * (a release/acquire pair) makes it a ping-pong, so every round is checked.
 */
struct mp { int data[4]; int seq; int ack; int bad; int kind; };

enum { MP_VIRT, MP_DMA, MP_VIRT_RELACQ, MP_SMP_INTERNAL, MP_VIRT_STORE_MB, MP_KINDS };
static const char *const mp_name[MP_KINDS] = {
	"virt_wmb/virt_rmb", "dma_wmb/dma_rmb", "virt_store_release/virt_load_acquire",
	"__smp_wmb/__smp_rmb (kernel.h)", "virt_store_mb/virt_mb",
};

static void mp_publish(struct mp *m, int i)
{
	for (int k = 0; k < 4; k++)
		m->data[k] = i * 4 + k;
	switch (m->kind) {
	case MP_VIRT:
		virt_wmb();
		WRITE_ONCE(m->seq, i);
		break;
	case MP_DMA:
		dma_wmb();
		WRITE_ONCE(m->seq, i);
		break;
	case MP_VIRT_RELACQ:
		virt_store_release(&m->seq, i);
		break;
	case MP_SMP_INTERNAL:
		__smp_wmb();
		WRITE_ONCE(m->seq, i);
		break;
	default:
		virt_mb();
		virt_store_mb(m->seq, i);
		break;
	}
}

static bool mp_consume(struct mp *m, int i)
{
	int s;

	switch (m->kind) {
	case MP_VIRT_RELACQ:
		s = virt_load_acquire(&m->seq);
		break;
	default:
		s = READ_ONCE(m->seq);
		if (s != i)
			return false;
		if (m->kind == MP_VIRT)
			virt_rmb();
		else if (m->kind == MP_DMA)
			dma_rmb();
		else if (m->kind == MP_SMP_INTERNAL)
			__smp_rmb();
		else
			virt_mb();
		break;
	}
	if (s != i)
		return false;
	for (int k = 0; k < 4; k++)
		if (m->data[k] != i * 4 + k)
			m->bad++;
	return true;
}

static void *mp_consumer(void *arg)
{
	struct mp *m = (struct mp *)arg;
	unsigned spins = 0;

	for (int i = 1; i <= MP_ROUNDS; i++) {
		while (!mp_consume(m, i))
			stress_relax(&spins);
		smp_store_release(&m->ack, i);
	}
	return NULL;
}

static void test_message_passing(void)
{
	for (int kind = 0; kind < MP_KINDS; kind++) {
		static struct mp m;
		pthread_t t;
		unsigned spins = 0;

		memset(&m, 0, sizeof(m));
		m.kind = kind;
		pthread_create(&t, NULL, mp_consumer, &m);
		for (int i = 1; i <= MP_ROUNDS; i++) {
			mp_publish(&m, i);
			while (smp_load_acquire(&m.ack) != i)
				stress_relax(&spins);
		}
		pthread_join(t, NULL);
		ok(m.bad == 0, "message passing through %s: %d rounds, every payload complete (%d bad)",
		   mp_name[kind], MP_ROUNDS, m.bad);
	}
}

#define VIRT_CASE(T, a, b) do {							\
	T x_ = (a);							\
	T y_ = (a);							\
	bool g_ = virt_load_acquire(&x_) == (T)(a);				\
	virt_store_release(&x_, (b));						\
	g_ = g_ && x_ == (T)(b) && virt_load_acquire(&x_) == (T)(b);		\
	virt_store_mb(x_, (a));							\
	g_ = g_ && x_ == (T)(a);						\
	__smp_store_release(&y_, (b));						\
	g_ = g_ && __smp_load_acquire(&y_) == (T)(b);				\
	__smp_store_mb(y_, (a));						\
	g_ = g_ && y_ == (T)(a);						\
	g_ = g_ && sizeof(virt_load_acquire(&x_)) == sizeof(T);			\
	ok(g_, "virt_/__smp_ load_acquire, store_release, store_mb on " #T);	\
} while (0)

static void test_virt_values(void)
{
	static int objs[2];
	atomic_t v = ATOMIC_INIT(1);

	VIRT_CASE(unsigned char, 0xfe, 1);
	VIRT_CASE(short, SHRT_MIN, -1);
	VIRT_CASE(int, INT_MAX, INT_MIN);
	VIRT_CASE(long, LONG_MIN, 3);
	VIRT_CASE(unsigned long long, ~0ULL, 0);
	VIRT_CASE(int *, &objs[0], &objs[1]);

	/* Each barrier is a statement, also as the sole body of an if/else. */
	if (atomic_read(&v))
		dma_mb();
	else
		dma_rmb();
	if (!atomic_read(&v))
		dma_wmb();
	else
		virt_mb();
	virt_rmb();
	virt_wmb();
	virt_mb__before_atomic();
	atomic_inc(&v);
	virt_mb__after_atomic();
	__smp_mb();
	__smp_mb__before_atomic();
	atomic_inc(&v);
	__smp_mb__after_atomic();
	ok(atomic_read(&v) == 3, "dma_*, virt_*, __smp_* barriers and the atomics around them");
}

/* ------------------------------------------------------------ kernel.h types and hints */

static void test_kernel_vocabulary(void)
{
	int arr[8] = { 0 };
	int *volatile parr = arr;
	long n = 0;

	ok(sizeof(u8) == 1 && sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(u64) == 8 &&
	   sizeof(s8) == 1 && sizeof(s16) == 2 && sizeof(s32) == 4 && sizeof(s64) == 8,
	   "u8..u64 and s8..s64 have 1, 2, 4, 8 bytes");
	ok((u8)-1 == 0xff && (u16)-1 == 0xffff && (u32)-1 == 0xffffffffu && (u64)-1 == ~0ULL &&
	   (s8)-1 < 0 && (s16)-1 < 0 && (s32)-1 < 0 && (s64)-1 < 0,
	   "uN are unsigned, sN signed");
	ok(SAME_TYPE(u8, __u8) && SAME_TYPE(u16, __u16) && SAME_TYPE(u32, __u32) &&
	   SAME_TYPE(s8, __s8) && SAME_TYPE(s16, __s16) && SAME_TYPE(s32, __s32),
	   "u8..u32/s8..s32 are __u8..__u32/__s8..__s32 (those of <linux/types.h> too)");
	/* 64-bit POWER and MIPS UAPI: __u64 is unsigned long unless __SANE_USERSPACE_TYPES__. */
	ok(sizeof(__u64) == 8 && sizeof(__s64) == 8 && (__u64)-1 > 0 && (__s64)-1 < 0 &&
	   (SAME_TYPE(__u64, unsigned long long) || SAME_TYPE(__u64, unsigned long)),
	   "__u64/__s64 are the UAPI's 64-bit types (%s)",
	   SAME_TYPE(__u64, unsigned long long) ? "long long" : "long");
	ok(SAME_TYPE(u64, unsigned long long) && SAME_TYPE(s64, long long) &&
	   SAME_TYPE(u32, unsigned int) && SAME_TYPE(u8, unsigned char) && SAME_TYPE(s8, signed char),
	   "u64 is unsigned long long, s64 long long, as in the kernel (%%llu prints a u64)");

	for (int i = 0; i < 100; i++) {
		if (likely(i != 50))
			n++;
		if (unlikely(i % 10 == 0))
			n += 1000;
	}
	ok(n == 99 + 10000, "likely/unlikely keep the truth value (%ld)", n);
	ok(likely(7) == 1 && unlikely(7) == 1 && likely(0) == 0 && unlikely(0) == 0 &&
	   likely(parr) == 1, "likely/unlikely yield 0 or 1 (!!x), pointers too");
	prefetch(&arr[0]);
	prefetchw(&arr[4]);
	prefetch(NULL);		/* a hint: never faults */
	arr[4] = 3;
	ok(arr[4] == 3 && arr[0] == 0, "prefetch/prefetchw are hints with no effect on memory");
}

int main(void)
{
	stress_watchdog(120);
	diag("backend %s", KATOMIC_BACKEND_NAME);
	test_access_once();
	test_lock_forms();
	test_unlock_wait();
	test_message_passing();
	test_virt_values();
	test_kernel_vocabulary();
	return done_testing();
}
