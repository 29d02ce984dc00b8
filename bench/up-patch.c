/* SPDX-License-Identifier: MIT */
/*
 * What uniprocessor lock elision (<katomic/up.h>) buys: pinned to one CPU,
 * an atomic_inc loop and a refcount get/put loop (refcount_inc +
 * refcount_dec_and_test), with the lock prefixes in place (A) and patched to
 * DS prefixes (B), in alternating rounds A B A B ...; prints median, min and
 * max ns per op and the ratio of the medians.  A benchmark, not a test: no
 * timing is asserted.
 *
 *   cc -std=gnu11 -O2 -DKATOMIC_BACKEND_ASM -Iinclude -pthread bench/up-patch.c -o up-patch
 *   taskset -c 0 ./up-patch [ROUNDS [ITERS]]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <katomic/katomic.h>
#include <katomic/up.h>

#ifndef KATOMIC_BACKEND_ASM
#error "build with -DKATOMIC_BACKEND_ASM: only the asm backend records its lock prefixes"
#endif

static atomic_t counter;
static refcount_t ref = REFCOUNT_INIT(1);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((__noinline__)) static double bench_inc(long iters)
{
	double t = now_ns();

	for (long i = 0; i < iters; i++)
		atomic_inc(&counter);
	return (now_ns() - t) / iters;
}

__attribute__((__noinline__)) static double bench_getput(long iters)
{
	double t = now_ns();

	for (long i = 0; i < iters; i++) {
		refcount_inc(&ref);
		if (refcount_dec_and_test(&ref))
			abort();	/* never: the count stays >= 1 */
	}
	return (now_ns() - t) / iters;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	long iters = argc > 2 ? atol(argv[2]) : 20000000;
	double *r[2][2];	/* [bench][A unpatched, B patched] */
	const char *bname[2] = { "atomic_inc", "refcount get+put" };
	cpu_set_t set;
	int cpu, rc;

	if (rounds < 1 || iters < 1)
		return 2;
	sched_getaffinity(0, sizeof(set), &set);
	for (cpu = 0; !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	for (int b = 0; b < 2; b++)
		for (int p = 0; p < 2; p++)
			r[b][p] = calloc((size_t)rounds, sizeof(double));
	printf("# pinned to CPU %d; %zu lock sites; %d rounds of %ld iterations, A B A B ...\n",
	       cpu, katomic_up_nsites(), rounds, iters);
	bench_inc(iters / 10);	/* warm up */
	bench_getput(iters / 10);
	for (int i = 0; i < rounds; i++) {
		for (int p = 0; p < 2; p++) {
			rc = p ? katomic_up_patch() : katomic_up_unpatch();
			if (rc < 0) {
				fprintf(stderr, "katomic_up_%spatch: error %d\n", p ? "" : "un", rc);
				return 1;
			}
			r[0][p][i] = bench_inc(iters);
			r[1][p][i] = bench_getput(iters);
		}
	}
	katomic_up_unpatch();
	printf("%-18s %8s %8s %8s   %8s %8s %8s   %s\n", "op (ns/op)", "A med", "A min", "A max",
	       "B med", "B min", "B max", "A/B (locked/patched)");
	for (int b = 0; b < 2; b++) {
		double ma = median(r[b][0], rounds), mb = median(r[b][1], rounds);

		printf("%-18s %8.2f %8.2f %8.2f   %8.2f %8.2f %8.2f   %.2fx\n", bname[b],
		       ma, r[b][0][0], r[b][0][rounds - 1], mb, r[b][1][0], r[b][1][rounds - 1], ma / mb);
	}
	return 0;
}
