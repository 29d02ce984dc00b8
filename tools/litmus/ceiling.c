/*
 * litmus-ceiling: what this machine's coherence protocol allows a litmus
 * harness of our design (fresh cells, one 64-byte line per cell, threads in
 * step) to reach, independent of katomic and of any test.
 *
 * Two threads on two CPUs walk arrays of cells in step (a barrier every
 * SYNC iterations) in four patterns:
 *
 *   local   each thread stores to its own cells; nothing shared (the
 *           loop's own cost)
 *   remote  each thread loads the cells the other thread zeroed; no
 *           concurrent stores (loads overlap: memory-level parallelism)
 *   stream  thread 0 stores to cells that thread 1 loads in step (every
 *           store must take the line back from a reader)
 *   sb      the SB litmus shape: store to own cell, load the other's
 *
 * Prints iterations per second (median, min and max over the rounds), the
 * ns per iteration, and for sb the share of iterations where both loads
 * read 0 (the SB witness).  A benchmark, not a test: nothing is asserted.
 *
 *   litmus-ceiling [-r rounds] [-n iterations per round] [-s sync]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CELLS 16384

struct cell {
	int v;
} __attribute__((aligned(64)));

static struct cell cells[2][CELLS];
static int reg[2][CELLS] __attribute__((aligned(64)));

enum pattern { LOCAL, REMOTE, STREAM, SB, NPATTERN };
static const char *const pattern_name[NPATTERN] = { "local", "remote", "stream", "sb" };

static long rounds = 5, iterations = 4000000, sync_every = 128;
static int ncpu, cpus[2];	/* the first two CPUs this process may use */

static struct {
	int count __attribute__((aligned(64)));
	int sense __attribute__((aligned(64)));
} bar;

static void barrier(int *sense)
{
	int s = !*sense;

	*sense = s;
	if (__atomic_add_fetch(&bar.count, 1, __ATOMIC_ACQ_REL) == 2) {
		__atomic_store_n(&bar.count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&bar.sense, s, __ATOMIC_RELEASE);
		return;
	}
	/* Yield now and then: on one CPU the partner must get to run. */
	for (unsigned n = 1; __atomic_load_n(&bar.sense, __ATOMIC_ACQUIRE) != s; n++)
		if (n % 4096 == 0)
			sched_yield();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static enum pattern cur;
static double loop_seconds;
static long long witnesses;

/* One block of iterations [lo, hi) of the current pattern for thread t. */
static void block(int t, long lo, long hi)
{
	struct cell *mine = cells[t], *other = cells[!t];
	int *r = reg[t];
	long i;

	switch (cur) {
	case LOCAL:
		for (i = lo; i < hi; i++)
			__atomic_store_n(&mine[i].v, 1, __ATOMIC_RELAXED);
		break;
	case REMOTE:
		for (i = lo; i < hi; i++)
			r[i] = __atomic_load_n(&other[i].v, __ATOMIC_RELAXED);
		break;
	case STREAM:
		if (t == 0)
			for (i = lo; i < hi; i++)
				__atomic_store_n(&mine[i].v, 1, __ATOMIC_RELAXED);
		else
			for (i = lo; i < hi; i++)
				r[i] = __atomic_load_n(&other[i].v, __ATOMIC_RELAXED);
		break;
	case SB:
		for (i = lo; i < hi; i++) {
			__atomic_store_n(&mine[i].v, 1, __ATOMIC_RELAXED);
			r[i] = __atomic_load_n(&other[i].v, __ATOMIC_RELAXED);
		}
		break;
	default:
		break;
	}
}

static void *thread(void *arg)
{
	int t = (int)(long)arg, sense = 0;
	long done;
	cpu_set_t set;

	if (ncpu >= 2) {
		CPU_ZERO(&set);
		CPU_SET(cpus[t], &set);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (done = 0; done < iterations; done += CELLS) {
		long n = iterations - done < CELLS ? iterations - done : CELLS, b;
		double t0 = 0;

		memset(cells[t], 0, (size_t)n * sizeof(struct cell));	/* each thread owns its cells */
		barrier(&sense);
		if (t == 0)
			t0 = now();
		for (b = 0; b < n; b += sync_every) {
			barrier(&sense);
			block(t, b, b + sync_every < n ? b + sync_every : n);
		}
		barrier(&sense);
		if (t == 0) {
			loop_seconds += now() - t0;
			if (cur == SB)
				for (b = 0; b < n; b++)
					witnesses += !reg[0][b] && !reg[1][b];
		}
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double rate[NPATTERN][64], wit[64];
	cpu_set_t set;
	int c, p;
	long r;

	while ((c = getopt(argc, argv, "r:n:s:")) != -1) {
		switch (c) {
		case 'r': rounds = atol(optarg); break;
		case 'n': iterations = atol(optarg); break;
		case 's': sync_every = atol(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-r rounds (1-64)] [-n iterations per round] [-s sync]\n", argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || rounds > 64 || iterations < 1 || sync_every < 1) {
		fprintf(stderr, "%s: -r must be 1-64, -n and -s positive\n", argv[0]);
		return 2;
	}
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (c = 0; c < CPU_SETSIZE && ncpu < 2; c++)
			if (CPU_ISSET(c, &set))
				cpus[ncpu++] = c;
	if (ncpu < 2)
		printf("note: fewer than 2 CPUs usable; the threads share one and the figures mean little\n");
	alarm(600);	/* a stuck barrier must not hang make check: SIGALRM ends the run */
	/* Rounds alternate the patterns (A B C D A B C D ...) so drift hits all alike. */
	for (r = 0; r < rounds; r++)
		for (p = 0; p < NPATTERN; p++) {
			pthread_t th;

			cur = (enum pattern)p;
			/* New threads start with sense 0: the barrier must too. */
			bar.count = 0;
			bar.sense = 0;
			loop_seconds = 0;
			witnesses = 0;
			if (pthread_create(&th, NULL, thread, (void *)1L)) {
				fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
				return 3;
			}
			thread((void *)0L);
			pthread_join(th, NULL);
			rate[p][r] = (double)iterations / loop_seconds;
			if (p == SB)
				wit[r] = 100.0 * (double)witnesses / (double)iterations;
		}
	printf("%-8s %14s %10s %10s %8s  %s\n", "pattern", "M iter/s", "min", "max", "ns/iter", "SB witnesses");
	for (p = 0; p < NPATTERN; p++) {
		double *v = rate[p], med;

		qsort(v, (size_t)rounds, sizeof(*v), cmp_double);
		med = v[rounds / 2];
		printf("%-8s %14.1f %10.1f %10.1f %8.2f", pattern_name[p], med / 1e6, v[0] / 1e6,
		       v[rounds - 1] / 1e6, 1e9 / med);
		if (p == SB) {
			qsort(wit, (size_t)rounds, sizeof(*wit), cmp_double);
			printf("  %.1f%% (%.1f-%.1f)", wit[rounds / 2], wit[0], wit[rounds - 1]);
		}
		putchar('\n');
	}
	printf("(%ld rounds of %ld iterations, barrier every %ld, CPUs %d,%d)\n", rounds, iterations, sync_every,
	       cpus[0], ncpu > 1 ? cpus[1] : cpus[0]);
	return fflush(stdout) ? 3 : 0;
}
