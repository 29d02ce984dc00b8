/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the concurrency tests (tests/test-stress-*.c): run N threads
 * that start together, a reusable barrier for round-based tests, iteration
 * counts that shrink under ThreadSanitizer, and a watchdog so that a hang
 * becomes a TAP "Bail out!" instead of a stuck CI job.
 *
 * Independent of katomic: only pthreads and the C library.
 */
#ifndef KATOMIC_TESTS_STRESS_H
#define KATOMIC_TESTS_STRESS_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* STRESS_TSAN: 1 when built with -fsanitize=thread (gcc or clang). */
#if defined(__SANITIZE_THREAD__)
#define STRESS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRESS_TSAN 1
#endif
#endif
#ifndef STRESS_TSAN
#define STRESS_TSAN 0
#endif

#define STRESS_MAX_THREADS 16

/*
 * An iteration count: `normal` natively, `tsan` under ThreadSanitizer (it
 * makes every atomic access some 50x slower).  KATOMIC_STRESS_SCALE=k in
 * the environment multiplies both, for longer soak runs.
 */
__attribute__((unused))
static long stress_iters(long normal, long tsan)
{
	const char *s = getenv("KATOMIC_STRESS_SCALE");
	long n = STRESS_TSAN ? tsan : normal;
	long k = s ? strtol(s, NULL, 10) : 1;

	return n * (k > 0 ? k : 1);
}

/* Seconds on the monotonic clock. */
__attribute__((unused))
static double stress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Time-bounded loops, so that a test runs long enough for the threads to
 * overlap on a busy machine yet never for long when contention makes every
 * iteration slow (a FIFO lock with more threads than CPUs):
 *	struct stress_clock clk;
 *	stress_clock_start(&clk, 0.1);
 *	for (i = 0; i < max && !stress_clock_expired(&clk); i++) ...
 * Each thread counts its own iterations; the expected result is their sum.
 */
struct stress_clock {
	double end;
	unsigned int calls;
};

__attribute__((unused))
static void stress_clock_start(struct stress_clock *c, double secs)
{
	c->end = stress_now() + secs;
	c->calls = 0;
}

/* True once the time is up; reads the clock every 64 calls only. */
__attribute__((unused))
static int stress_clock_expired(struct stress_clock *c)
{
	return ++c->calls % 64 == 0 && stress_now() >= c->end;
}

/* A small deterministic PRNG (xorshift32) for per-thread jitter. */
__attribute__((unused))
static unsigned int stress_rand(unsigned int *state)
{
	unsigned int x = *state ? *state : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/*
 * For a test's own wait loops: spin a little, then give the CPU away, since
 * threads may outnumber CPUs (the thread we wait for may be descheduled).
 */
__attribute__((unused))
static void stress_relax(unsigned int *spins)
{
	if (++*spins % 64 == 0)
		sched_yield();
#if defined(__x86_64__) || defined(__i386__)
	else
		__builtin_ia32_pause();
#endif
}

/* ---------------------------------------------------------------- watchdog */

static char stress_watchdog_msg[80];
static int stress_watchdog_len;

static void stress_watchdog_fire(int sig)
{
	(void)sig;
	/* only async-signal-safe calls here */
	if (write(STDOUT_FILENO, stress_watchdog_msg, (size_t)stress_watchdog_len) < 0)
		_exit(3);
	_exit(2);
}

/* Abort the whole program (TAP Bail out!) if it runs longer than secs. */
__attribute__((unused))
static void stress_watchdog(unsigned int secs)
{
	stress_watchdog_len = snprintf(stress_watchdog_msg, sizeof(stress_watchdog_msg),
				       "Bail out! stress test timed out after %u s\n", secs);
	fflush(stdout);
	signal(SIGALRM, stress_watchdog_fire);
	alarm(secs);
}

/* ---------------------------------------------------------------- barrier */

/*
 * A reusable spinning barrier for n threads (sense-reversing, on the
 * compiler's __atomic builtins, so independent of the code under test).
 * Spinning rather than sleeping in the kernel lets the threads leave it
 * together: a futex wake-up takes long enough for the first thread to do
 * thousands of operations alone.  Waiters yield now and then, since
 * threads may outnumber CPUs.  The acq_rel arrival and the release/acquire
 * of the generation give happens-before from everything before the
 * barrier in any thread to everything after it in all of them.
 */
struct stress_barrier {
	int n;
	int count;
	int gen;
};

__attribute__((unused))
static void stress_barrier_init(struct stress_barrier *b, int n)
{
	b->n = n;
	b->count = 0;
	b->gen = 0;
}

/* Wait for all n; returns nonzero in exactly one of them (the last to arrive). */
__attribute__((unused))
static int stress_barrier_wait(struct stress_barrier *b)
{
	int gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
	unsigned int spins = 0;

	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
		__atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
		return 1;
	}
	while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
		stress_relax(&spins);
	return 0;
}

/* ---------------------------------------------------------------- threads */

typedef void stress_fn(int idx, void *arg);

struct stress_thread {
	stress_fn *fn;
	void *arg;
	int idx;
	struct stress_barrier *start;
	double *t0;
};

static void *stress_thread_main(void *p)
{
	struct stress_thread *t = (struct stress_thread *)p;

	/* everyone starts together; the last to arrive notes the time */
	if (stress_barrier_wait(t->start))
		*t->t0 = stress_now();
	t->fn(t->idx, t->arg);
	return NULL;
}

/*
 * Run fn(0..n-1, arg) in n threads that are released together, wait for all
 * of them, and return the wall time between the release and the last join
 * (the joins give the caller happens-before on everything the threads did).
 * The calling thread does not take part in the start barrier: with threads
 * outnumbering CPUs it would only be one more to schedule before the start.
 */
__attribute__((unused))
static double stress_run(int n, stress_fn *fn, void *arg)
{
	pthread_t tid[STRESS_MAX_THREADS];
	struct stress_thread th[STRESS_MAX_THREADS];
	struct stress_barrier start;
	double t0 = 0;
	int i;

	if (n < 1 || n > STRESS_MAX_THREADS) {
		printf("Bail out! stress_run: %d threads (1..%d)\n", n, STRESS_MAX_THREADS);
		exit(2);
	}
	stress_barrier_init(&start, n);
	for (i = 0; i < n; i++) {
		th[i] = (struct stress_thread){ fn, arg, i, &start, &t0 };
		if (pthread_create(&tid[i], NULL, stress_thread_main, &th[i])) {
			printf("Bail out! pthread_create failed\n");
			exit(2);
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	return stress_now() - t0;
}

#endif /* KATOMIC_TESTS_STRESS_H */
