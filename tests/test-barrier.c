/* SPDX-License-Identifier: MIT */
/*
 * READ_ONCE / WRITE_ONCE, smp_load_acquire / smp_store_release, smp_store_mb,
 * smp_cond_load_{relaxed,acquire}, data_race, rcu_assign_pointer /
 * rcu_dereference, and every barrier macro: values on every size, result
 * types, and the cases that need another thread (a waiter that must see a
 * store made later, message passing).  A hang is a failure: alarm().
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <katomic/katomic.h>
#include "tap.h"

static void on_alarm(int sig)
{
	static const char msg[] = "Bail out! timed out: a wait never saw the store it waits for\n";
	ssize_t r;

	(void)sig;
	r = write(1, msg, sizeof(msg) - 1);
	(void)r;
	_exit(1);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Assignable: the result type is not const (a compile error otherwise). */
#define ASSIGNABLE(expr) __extension__({ __typeof__(expr) t_ = (expr); t_ = (expr); t_; })

/* READ_ONCE / WRITE_ONCE / load_acquire / store_release round trips on one type. */
#define RW_CASE(T, a, b) do {							\
	T x_ = (a);								\
	bool g_ = READ_ONCE(x_) == (T)(a);					\
	WRITE_ONCE(x_, (b));							\
	g_ &= x_ == (T)(b) && READ_ONCE(x_) == (T)(b);				\
	smp_store_release(&x_, (a));						\
	g_ &= x_ == (T)(a) && smp_load_acquire(&x_) == (T)(a);			\
	smp_store_mb(x_, (b));							\
	g_ &= x_ == (T)(b);							\
	g_ &= sizeof(READ_ONCE(x_)) == sizeof(T) && sizeof(smp_load_acquire(&x_)) == sizeof(T); \
	ok(g_, "READ_ONCE/WRITE_ONCE/smp_load_acquire/smp_store_release/smp_store_mb on " #T); \
} while (0)

struct pair { int a; long b; };

static void test_rwonce(void)
{
	static int objs[2];

	RW_CASE(char, 'x', (char)0x80);
	RW_CASE(unsigned char, 0xff, 0x01);
	RW_CASE(short, SHRT_MIN, SHRT_MAX);
	RW_CASE(uint16_t, 0xa55a, 0x5aa5);
	RW_CASE(int, INT_MIN, INT_MAX);
	RW_CASE(unsigned int, 0xdeadbeefu, 0x12345678u);
	RW_CASE(long, LONG_MIN, LONG_MAX);
	RW_CASE(long long, LLONG_MIN, 0x0123456789abcdefLL);
	RW_CASE(uint64_t, 0xfedcba9876543210ULL, 1);
	RW_CASE(int *, &objs[0], &objs[1]);
	RW_CASE(const void *, (const void *)&objs[1], NULL);

	{
		const int c = 7;
		const long long cl = LLONG_MIN;
		const char cc = 'q';
		int *const cp = &objs[1];
		volatile short vs = -3;
		struct pair p = { 1, 2 };
		int arr[3] = { 4, 5, 6 };

		ok(ASSIGNABLE(READ_ONCE(c)) == 7 && ASSIGNABLE(READ_ONCE(cl)) == LLONG_MIN &&
		   ASSIGNABLE(READ_ONCE(cc)) == 'q' && ASSIGNABLE(READ_ONCE(cp)) == &objs[1] &&
		   ASSIGNABLE(READ_ONCE(vs)) == -3,
		   "READ_ONCE of const and volatile objects gives an unqualified, assignable value");
		ok(ASSIGNABLE(smp_load_acquire(&c)) == 7 && ASSIGNABLE(smp_load_acquire(&cp)) == &objs[1],
		   "smp_load_acquire through a pointer to const gives an assignable value");
		WRITE_ONCE(p.b, -9L);
		WRITE_ONCE(arr[1], READ_ONCE(arr[2]) + 1);
		ok(READ_ONCE(p.a) == 1 && READ_ONCE(p.b) == -9 && arr[0] == 4 && arr[1] == 7 && arr[2] == 6,
		   "READ_ONCE/WRITE_ONCE on struct members and array elements touch only them");
	}
	{
		int counter = 41;
		long stat = 5;

		stat = data_race(stat + counter);
		ok(data_race(counter + 1) == 42 && stat == 46 && sizeof(data_race((char)1)) == 1,
		   "data_race(expr) is the value of expr");
	}
}

/* rcu_assign_pointer publishes, rcu_dereference reads the pointer. */
struct obj { int a, b; struct obj *next; };
static struct obj *gp;

static void test_rcu_single(void)
{
	static struct obj o1 = { 1, 2, NULL }, o2 = { 3, 4, &o1 };
	struct obj *p;
	bool good;

	rcu_assign_pointer(gp, &o1);
	p = rcu_dereference(gp);
	good = p == &o1 && p->a == 1;
	rcu_assign_pointer(gp, &o2);
	p = rcu_dereference(gp);
	good &= p == &o2 && rcu_dereference(p->next) == &o1;
	rcu_assign_pointer(gp, NULL);
	good &= rcu_dereference(gp) == NULL && gp == NULL;
	ok(good, "rcu_assign_pointer / rcu_dereference, NULL included");
}

/* Single thread: the condition already holds, so it returns at once. */
static void test_cond_load_single(void)
{
	int i = 5;
	unsigned char c = 200;
	long long ll = LLONG_MIN;
	void *p = &i;
	bool good;

	good = smp_cond_load_relaxed(&i, VAL == 5) == 5;
	good &= smp_cond_load_relaxed(&c, VAL > 100) == 200;
	good &= smp_cond_load_relaxed(&ll, VAL < 0) == LLONG_MIN;
	good &= smp_cond_load_relaxed(&p, VAL != NULL) == &i;
	ok(good && i == 5 && c == 200, "smp_cond_load_relaxed returns the value that satisfies the condition");
	good = smp_cond_load_acquire(&i, VAL) == 5;
	good &= smp_cond_load_acquire(&c, VAL == 200) == 200;
	good &= smp_cond_load_acquire(&ll, VAL != 0) == LLONG_MIN;
	good &= smp_cond_load_acquire(&p, VAL == &i) == &i;
	ok(good, "smp_cond_load_acquire returns the value that satisfies the condition");
}

/* Two threads: the waiter must see values stored later, and the data before them. */
static int flag, data[4];
static long seq;
static struct obj published;

static void *writer(void *arg)
{
	(void)arg;
	sleep_ms(20);
	WRITE_ONCE(flag, 1);		/* not yet what the waiter wants */
	sleep_ms(20);
	data[0] = 10;
	data[1] = 11;
	smp_store_release(&flag, 2);
	sleep_ms(20);
	data[2] = 12;
	smp_wmb();
	WRITE_ONCE(seq, 3L);
	sleep_ms(20);
	published.a = 100;
	published.b = 200;
	rcu_assign_pointer(gp, &published);
	sleep_ms(20);
	data[3] = 13;
	smp_store_mb(flag, 4);
	return NULL;
}

static void test_two_threads(void)
{
	pthread_t th;
	int v;
	long s;
	struct obj *p;
	bool good;

	gp = NULL;
	if (pthread_create(&th, NULL, writer, NULL)) {
		ok(0, "pthread_create");
		return;
	}
	v = smp_cond_load_relaxed(&flag, VAL != 0);
	ok(v == 1 || v == 2 || v == 4, "smp_cond_load_relaxed waits for a later store (saw %d)", v);

	v = smp_cond_load_acquire(&flag, VAL >= 2);
	ok(v >= 2 && data[0] == 10 && data[1] == 11,
	   "smp_cond_load_acquire waits, and sees the data stored before the release (saw %d)", v);

	while ((s = READ_ONCE(seq)) != 3)
		cpu_relax();
	smp_rmb();
	ok(data[2] == 12, "READ_ONCE spin sees a later WRITE_ONCE; smp_wmb/smp_rmb message passing");

	while (!(p = rcu_dereference(gp)))
		cpu_relax();
	ok(p == &published && p->a == 100 && p->b == 200,
	   "rcu_dereference of a pointer published by rcu_assign_pointer sees the initialised object");

	while (smp_load_acquire(&flag) != 4)
		cpu_relax();
	good = data[3] == 13;
	pthread_join(th, NULL);
	ok(good, "smp_store_mb value seen through smp_load_acquire, with the data stored before it");
}

/*
 * Every barrier macro, as a statement anywhere a statement goes (unbraced
 * if/else arms): it must compile, run, and leave the values around it alone.
 */
static void test_barriers(void)
{
	volatile int a = 1;
	int b = 2, n = 0;
	long c = -3;
	DEFINE_SPINLOCK(lock);

#define STEP(stmt) do { b++; c--; if (a) stmt; else a = 0; n++; } while (0)
	STEP(barrier());
	STEP(mb());
	STEP(rmb());
	STEP(wmb());
	STEP(smp_mb());
	STEP(smp_rmb());
	STEP(smp_wmb());
	STEP(smp_mb__before_atomic());
	STEP(smp_mb__after_atomic());
	STEP(smp_acquire__after_ctrl_dep());
	STEP(cpu_relax());
	spin_lock(&lock);
	STEP(smp_mb__after_spinlock());
	spin_unlock(&lock);
	spin_lock(&lock);
	STEP(smp_mb__after_unlock_lock());
	spin_unlock(&lock);
#undef STEP
	ok(n == 13 && a == 1 && b == 15 && c == -16 && !spin_is_locked(&lock),
	   "barrier, mb, rmb, wmb, smp_mb, smp_rmb, smp_wmb, smp_mb__before/after_atomic, "
	   "smp_acquire__after_ctrl_dep, cpu_relax, smp_mb__after_spinlock, smp_mb__after_unlock_lock");

	{
		atomic_t v = ATOMIC_INIT(0);

		smp_mb__before_atomic();
		atomic_inc(&v);
		smp_mb__after_atomic();
		ok(atomic_read(&v) == 1, "smp_mb__before_atomic(); atomic_inc(); smp_mb__after_atomic()");
	}
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	alarm(20);
	test_rwonce();
	test_rcu_single();
	test_cond_load_single();
	test_two_threads();
	test_barriers();
	return done_testing();
}
