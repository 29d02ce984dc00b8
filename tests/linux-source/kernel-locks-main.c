/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own lock code on katomic, oversubscribed: qspinlock
 * (kernel/locking/qspinlock.c), the MCS lock (mcs_spinlock.h) and the
 * optimistic spin queue (osq_lock.c) of linux-source-6.12, extracted and
 * built at test time by tests/linux-source/kernel-locks.py with
 * kernel-locks-shim.h around them.  Their waiting is smp_cond_load_*() and
 * atomic_cond_read_*(), katomic's (or, built with -DKL_PLAIN_SPIN, plain
 * pause loops that never yield: the reference).
 *
 * Usage: kernel-locks LOCK THREADS [ACQUISITIONS [CPUS [PIN]]]
 *   LOCK  qspinlock | mcs | osq
 * THREADS threads ("CPUs" to the lock code) each take the lock ACQUISITIONS
 * times (default 2000): a critical section of ~20 dependent instructions on
 * plain shared data, then ~20 of private work (KL_WORK=N in the environment:
 * 2N each).  Thread i is pinned to the (i mod CPUS)-th CPU this process may
 * use (CPUS default 2), so 3 threads on 2 CPUs put two on one CPU; PIN
 * instead gives each thread's CPU index, cycled (0,0,1: two on the first
 * CPU, one on the second; 0,0,0,1; 0: all on one), or "-": unpinned.
 * KL_HOG=i adds a thread that only computes, pinned to the i-th CPU (another
 * process sharing that CPU).  Checks mutual exclusion (the count of the
 * plain increments and the owner seen inside) and prints one line:
 *   kernel-locks: LOCK threads=T cpus=C acquisitions=N count=N bad=0 seconds=S
 *     slow_handoffs=H slow_handoff_s=S max_handoff_ms=M yields=Y yields_switched=W naps=P
 * (hand-offs where the lock sat free over 1 ms: the next owner was not
 * running; katomic's yields, those that ran another thread, and naps);
 * exit 0 when exact, 1 when not, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Event counts of katomic's waiting (barrier.h's __KA_WAIT_STAT hook). */
static long kl_ev_yield, kl_ev_yield_switched, kl_ev_nap;
#define __KA_WAIT_STAT(what) ((void)__atomic_fetch_add(&kl_ev_##what, 1, __ATOMIC_RELAXED))

#include "kernel-locks-shim.h"
#include <asm-generic/qspinlock.h>
#include "kernel/locking/qspinlock.c"
#include "kernel/locking/osq_lock.c"

__thread int kl_cpu;
unsigned long kl_percpu_offset[NR_CPUS];
static long warnings;

int kl_warn_on(int cond, const char *file, int line, const char *what)
{
	if (cond) {
		fprintf(stderr, "kernel-locks: %s:%d: WARN_ON(%s)\n", file, line, what);
		__atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);
	}
	return cond;
}

/* The per-CPU areas: one copy of the kl_percpu section per thread ("CPU"). */
extern char __start_kl_percpu[], __stop_kl_percpu[];

static void percpu_setup(int ncpus)
{
	size_t size = (size_t)(__stop_kl_percpu - __start_kl_percpu);
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		char *area = aligned_alloc(4096, (size + 4095) / 4096 * 4096);

		if (!area) {
			fprintf(stderr, "kernel-locks: out of memory\n");
			exit(2);
		}
		memset(area, 0, size);
		kl_percpu_offset[cpu] = (unsigned long)(area - __start_kl_percpu);
	}
}

enum { QSPINLOCK, MCS, OSQ };
static int which;
static long acquisitions;
static int nthreads, ncpus_used, cpu_list[CPU_SETSIZE];

static struct qspinlock qlock = { .val = ATOMIC_INIT(0) };
static struct mcs_spinlock *mcs_lock;
static struct optimistic_spin_queue osq = OSQ_LOCK_UNLOCKED;

/* What the lock protects: plain data. */
static struct {
	long count;
	int owner;
	unsigned long work;
} __attribute__((__aligned__(64))) prot;
static long bad;
static pthread_barrier_t start;
/*
 * Hand-offs that waited for the scheduler: the lock sat free (released, not
 * yet taken) over 1 ms, i.e. the next owner was not running.
 */
static unsigned long long released_ns;
static long slow_handoffs;
static unsigned long long slow_handoff_ns, max_handoff_ns;
static int pin_spec[NR_CPUS], pin_n = -1;	/* -1: thread i on CPU i mod CPUS; 0: unpinned */

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

/*
 * ~20 dependent instructions the compiler cannot fold (KL_WORK=N in the
 * environment: 2N, for longer critical and parallel sections).
 */
static int work_iters = 10;

static inline unsigned long work20(unsigned long x)
{
	int i;

	for (i = 0; i < work_iters; i++) {
		x = x * 3 + 1;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	struct mcs_spinlock node;
	unsigned long priv = (unsigned long)me;
	cpu_set_t set;
	long i;

	kl_cpu = me;
	if (pin_n) {
		CPU_ZERO(&set);
		CPU_SET(cpu_list[pin_n < 0 ? me % ncpus_used : pin_spec[me % pin_n] % ncpus_used], &set);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(&start);	/* all pinned: they contend from the first lock */
	for (i = 0; i < acquisitions; i++) {
		switch (which) {
		case QSPINLOCK: queued_spin_lock(&qlock); break;
		case MCS: mcs_spin_lock(&mcs_lock, &node); break;
		default: while (!osq_lock(&osq)) ; break;
		}
		if (prot.count) {
			unsigned long long gap = now_ns() - released_ns;

			if (gap > 1000000) {
				slow_handoffs++;
				slow_handoff_ns += gap;
			}
			if (gap > max_handoff_ns)
				max_handoff_ns = gap;
		}
		prot.owner = me;
		prot.work = work20(prot.work);
		prot.count++;
		if (prot.owner != me)
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
		released_ns = now_ns();
		switch (which) {
		case QSPINLOCK: queued_spin_unlock(&qlock); break;
		case MCS: mcs_spin_unlock(&mcs_lock, &node); break;
		default: osq_unlock(&osq); break;
		}
		priv = work20(priv);
	}
	return (void *)priv;
}

/* KL_HOG=i: a thread that only computes, pinned to the i-th CPU, until the workers are done. */
static volatile int hog_stop;

static void *hog(void *arg)
{
	cpu_set_t set;
	unsigned long x = 1;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!hog_stop)
		x = work20(x);
	return (void *)x;
}

int main(int argc, char **argv)
{
	pthread_t hog_thread;
	int hogging = 0;

	pthread_t t[NR_CPUS];
	cpu_set_t allowed;
	struct timespec t0, t1;
	int i, c, want_cpus;
	double secs;

	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: kernel-locks qspinlock|mcs|osq THREADS [ACQUISITIONS [CPUS [PIN]]]\n"
			"  PIN: each thread's CPU, cycled (0,0,1: two on the first, one on the second), or - (unpinned)\n");
		return 2;
	}
	if (!strcmp(argv[1], "qspinlock"))
		which = QSPINLOCK;
	else if (!strcmp(argv[1], "mcs"))
		which = MCS;
	else if (!strcmp(argv[1], "osq"))
		which = OSQ;
	else {
		fprintf(stderr, "kernel-locks: unknown lock '%s' (qspinlock, mcs or osq)\n", argv[1]);
		return 2;
	}
	if (getenv("KL_WORK"))
		work_iters = atoi(getenv("KL_WORK"));
	nthreads = atoi(argv[2]);
	acquisitions = argc > 3 ? atol(argv[3]) : 2000;
	want_cpus = argc > 4 ? atoi(argv[4]) : 2;
	if (argc > 5) {
		char *p = argv[5];

		pin_n = 0;
		while (strcmp(argv[5], "-") && *p && pin_n < NR_CPUS) {
			pin_spec[pin_n++] = (int)strtol(p, &p, 10);
			if (*p == ',')
				p++;
			else if (*p) {
				fprintf(stderr, "kernel-locks: bad PIN '%s'\n", argv[5]);
				return 2;
			}
		}
	}
	if (nthreads < 1 || nthreads > NR_CPUS || acquisitions < 1 || want_cpus < 1) {
		fprintf(stderr, "kernel-locks: THREADS must be 1-%d, ACQUISITIONS and CPUS at least 1\n", NR_CPUS);
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("kernel-locks: sched_getaffinity");
		return 2;
	}
	for (c = 0; c < CPU_SETSIZE && ncpus_used < want_cpus; c++)
		if (CPU_ISSET(c, &allowed))
			cpu_list[ncpus_used++] = c;
	percpu_setup(nthreads);
	if (getenv("KL_HOG") && !pthread_create(&hog_thread, NULL, hog,
						(void *)(long)cpu_list[atoi(getenv("KL_HOG")) % ncpus_used]))
		hogging = 1;
	pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i)) {
			perror("kernel-locks: pthread_create");
			return 2;
		}
	clock_gettime(CLOCK_MONOTONIC, &t0);	/* before: main may not run again until they are done */
	pthread_barrier_wait(&start);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (hogging) {
		hog_stop = 1;
		pthread_join(hog_thread, NULL);
	}
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

	printf("kernel-locks: %s threads=%d cpus=%d acquisitions=%ld count=%ld bad=%ld warnings=%ld seconds=%.3f "
	       "slow_handoffs=%ld slow_handoff_s=%.3f max_handoff_ms=%.1f yields=%ld yields_switched=%ld naps=%ld\n",
	       argv[1], nthreads, ncpus_used, acquisitions * nthreads, prot.count, bad, warnings, secs,
	       slow_handoffs, (double)slow_handoff_ns * 1e-9, (double)max_handoff_ns * 1e-6,
	       kl_ev_yield, kl_ev_yield_switched, kl_ev_nap);
	return prot.count == acquisitions * nthreads && !bad && !warnings && !atomic_read(&qlock.val) ? 0 : 1;
}
