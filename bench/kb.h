/* SPDX-License-Identifier: MIT */
/*
 * katomic-bench: the interface between the driver (bench/driver.c) and the
 * contenders.  Each contender is one translation unit, built with its own
 * compiler and headers, that maps the KB_* macros of bench/kernels.h onto
 * its library and so exposes the same table of kernels:
 *
 *     long run(long n, struct kb_env *e);
 *
 * runs n iterations (per-op kernels: exactly n; workloads: at most n, fewer
 * when *e->stop becomes nonzero) on e->cell (per-op) or e->shared
 * (workloads) and returns the number of operations done.  A NULL run is
 * "n/a": that contender has no such operation.
 *
 * This header includes nothing from katomic, liburcu, ck or libatomic_ops,
 * and nothing that would clash with <stdatomic.h>.
 */
#ifndef KB_H
#define KB_H

#include <stddef.h>

#define KB_LINE 128	/* two 64-byte lines: the adjacent-line prefetcher pairs them */
#define KB_SHARED_SIZE (64 * 1024)

/* One benchmark cell: 16 bytes, enough for cmpxchg128. */
union kb_cell {
	int i[4];
	long l[2];
	unsigned long b[2];
	__extension__ unsigned __int128 q;
} __attribute__((__aligned__(16)));

struct kb_env {
	union kb_cell *cell;	/* this thread's cell (per-op kernels) */
	void *shared;		/* workload state, KB_SHARED_SIZE bytes, KB_LINE aligned */
	volatile int *stop;	/* workloads return early once it is nonzero */
	int tid, nthreads;
	unsigned long bitnr;	/* 37, hidden from the compiler: the "variable bit" */
	long aux[4];		/* per-thread outputs: [0] sink, [1] successes, [2] errors, [3] spare */
	/*
	 * Lock workloads: the wait of every KB_WAIT_EVERY-th acquisition, in
	 * kb_ticks() units, into wait[0..wait_cap) (wait_n of them).  Two clock
	 * reads every 64 acquisitions: nothing on the other 63.
	 */
	unsigned *wait;
	long wait_n, wait_cap;
};

#define KB_WAIT_EVERY 64
/* A cheap clock for the sampled waits: the TSC on x86 (the driver converts), ns elsewhere. */
#if defined(__x86_64__) || defined(__i386__)
static inline unsigned long long kb_ticks(void)
{
	return __builtin_ia32_rdtsc();
}
#else
#include <time.h>
static inline unsigned long long kb_ticks(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}
#endif

typedef long kb_run_fn(long n, struct kb_env *e);
typedef void kb_init_fn(void *shared, int nthreads);

struct kb_impl {
	kb_run_fn *run;		/* NULL: n/a */
	kb_init_fn *init;	/* workloads: set up e->shared (zeroed before); may be NULL */
	const char *what;	/* what it is built from, e.g. "uatomic_add_return" */
};

enum {
#define KB_OP(id, check, init, quick) KB_##id,
#define KB_WL(id, threads, quick) KB_##id,
#include "ops.def"
#undef KB_OP
#undef KB_WL
	KB_NOPS
};

struct kb_contender {
	const char *name;	/* short name, e.g. "c11-gcc" */
	const char *desc;	/* library and backend */
	const char *cc;		/* compiler and version that built it */
	struct kb_impl impl[KB_NOPS];
	/* Final-state checks of the workload state (0 = good), for --check. */
	int (*check_refcount)(void *shared, long total);
	int (*check_spinlock)(void *shared, long total);
};

/* Spin a little, then give the CPU away: threads may outnumber CPUs. */
void kb_wait(unsigned *spins);

#endif
