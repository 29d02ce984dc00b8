/* SPDX-License-Identifier: MIT */
/*
 * What uniprocessor lock elision (<katomic/up.h>) buys, for both backends:
 * pinned to one CPU, an atomic_inc loop and a refcount get/put loop
 * (refcount_inc + refcount_dec_and_test), with the lock prefixes in place
 * (A, "locked") and patched to DS prefixes by katomic_up_patch_pinned() (B,
 * "patched"), in alternating rounds A B A B ...  The kernels are built once
 * per backend and compiler (asm-gcc, c11-gcc, asm-clang, c11-clang, as in
 * katomic-bench) and linked into one program, which `katomic uplocks` scans
 * after linking: the asm kernels' locks are patched from the asm backend's
 * own records, the C11 kernels' from the scan.  Prints, per kernel and loop,
 * median/min/max ns per op locked and patched, and the median/min/max of the
 * per-round ratios locked/patched.  A benchmark: no timing is asserted.
 *
 * This file is both: with -DUPB_KERNEL it is one kernel (UPB_NAME, UPB_SYM,
 * UPB_CC), without it the driver (bench/bench.mk builds them).
 *
 *   up-patch [--rounds N] [--iters N] [--quick] [--json FILE] [--check]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

struct upb_kernel {
	const char *name, *backend, *cc;
	double (*loop[2])(long iters);		/* ns per op */
	long (*count)(void);			/* atomic_inc's counter */
	int (*refs)(void);			/* the refcount: 1 between loops */
};
#define UPB_NLOOPS 2

static double upb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#ifdef UPB_KERNEL
/* ------------------------------------------------------------ one kernel */
#include <katomic/katomic.h>

static atomic_t counter;
static refcount_t ref = REFCOUNT_INIT(1);

__attribute__((__noinline__)) static double bench_inc(long iters)
{
	double t = upb_now_ns();

	for (long i = 0; i < iters; i++)
		atomic_inc(&counter);
	return (upb_now_ns() - t) / iters;
}

__attribute__((__noinline__)) static double bench_getput(long iters)
{
	double t = upb_now_ns();

	for (long i = 0; i < iters; i++) {
		refcount_inc(&ref);
		if (refcount_dec_and_test(&ref))
			abort();	/* never: the count stays >= 1 */
	}
	return (upb_now_ns() - t) / iters;
}

static long count(void) { return atomic_read(&counter); }
static int refs(void) { return (int)refcount_read(&ref); }

extern const struct upb_kernel UPB_SYM;
const struct upb_kernel UPB_SYM = { UPB_NAME, KATOMIC_BACKEND_NAME, UPB_CC " " __VERSION__,
				    { bench_inc, bench_getput }, count, refs };

#else
/* ------------------------------------------------------------ the driver */
#define KATOMIC_UP_TABLE	/* `katomic uplocks` fills it after linking */
#include <katomic/katomic.h>
#include <katomic/up.h>
#include "stat3.h"

/* The kernels bench/bench.mk could build (weak: a missing compiler leaves one out). */
extern const struct upb_kernel upb_asm_gcc __attribute__((__weak__));
extern const struct upb_kernel upb_c11_gcc __attribute__((__weak__));
extern const struct upb_kernel upb_asm_clang __attribute__((__weak__));
extern const struct upb_kernel upb_c11_clang __attribute__((__weak__));
static const char *const upb_loop_name[UPB_NLOOPS] = { "atomic_inc", "refcount_get_put" };

/*
 * One sample: iters iterations of loop l, timed in chunks of UPB_CHUNK; a
 * chunk during which this thread was preempted (the machine is shared) is
 * taken again, up to 3 times.  Returns ns/op; counts what it ran.
 */
#define UPB_CHUNK 250000L	/* about 1 ms locked: short enough to run unpreempted on a busy machine */
static long upb_retried, upb_disturbed;

static double sample(const struct upb_kernel *k, int l, long iters, long *ran)
{
	double sum = 0;

	for (long done = 0, n; done < iters; done += n) {
		n = iters - done < UPB_CHUNK ? iters - done : UPB_CHUNK;
		for (int t = 0;; t++) {
			struct rusage a, b;
			double ns;

			getrusage(RUSAGE_THREAD, &a);
			ns = k->loop[l](n);
			getrusage(RUSAGE_THREAD, &b);
			*ran += l == 0 ? n : 0;
			if (b.ru_nivcsw == a.ru_nivcsw || t == 3) {
				upb_disturbed += b.ru_nivcsw != a.ru_nivcsw;
				sum += ns * n;
				break;
			}
			upb_retried++;
		}
	}
	return sum / iters;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: up-patch [--rounds N] [--iters N] [--quick] [--json FILE] [--check]\n"
		"  --rounds N   alternating rounds, locked then patched (default 9; --quick 5)\n"
		"  --iters N    loop iterations per sample (default 20000000; --quick 4000000)\n"
		"  --json FILE  also write the results as one JSON object\n"
		"  --check      one tiny round; check the counts and that patching changed every site\n");
}

int main(int argc, char **argv)
{
	const struct upb_kernel *all[] = { &upb_asm_gcc, &upb_c11_gcc, &upb_asm_clang, &upb_c11_clang }, *k[4];
	int nk = 0, rounds = 0, cpu, rc, bad = 0;
	long iters = 0;
	bool quick = false, check = false;
	const char *json = NULL;
	double *ns[4][UPB_NLOOPS][2];	/* [kernel][loop][0 locked, 1 patched][round] */
	size_t nsites, nasm;
	cpu_set_t set;
	double t0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--check"))
			check = true;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "up-patch: unknown or incomplete option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!rounds)
		rounds = check ? 1 : quick ? 5 : 9;
	if (!iters)
		iters = check ? 10000 : quick ? 4000000 : 20000000;
	if (rounds < 1 || rounds > 1000 || iters < 1) {
		fprintf(stderr, "up-patch: bad --rounds or --iters\n");
		return 2;
	}
	for (int i = 0; i < 4; i++)
		if (all[i])
			k[nk++] = all[i];
	if (katomic_up_scanned() != 1) {
		fprintf(stderr, "up-patch: %s: not scanned: run `katomic uplocks` on it after linking "
			"(bench/bench.mk does)\n", argv[0]);
		return 1;
	}
	sched_getaffinity(0, sizeof(set), &set);
	for (cpu = 0; !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("up-patch: sched_setaffinity");
		return 1;
	}
	nsites = katomic_up_nsites();
	nasm = __ka_up_asm_n();		/* the asm backend's records come first */
	for (int j = 0; j < nk; j++)
		for (int l = 0; l < UPB_NLOOPS; l++)
			for (int p = 0; p < 2; p++)
				ns[j][l][p] = calloc((size_t)rounds, sizeof(double));
	long ran[4] = { 0, 0, 0, 0 };	/* atomic_inc loop iterations, per kernel */

	for (int j = 0; j < nk; j++)	/* warm up */
		for (int l = 0; l < UPB_NLOOPS; l++)
			(void)sample(k[j], l, iters / 10 + 1, &ran[j]);
	t0 = upb_now_ns();
	for (int r = 0; r < rounds; r++) {
		for (int p = 0; p < 2; p++) {
			rc = p ? katomic_up_patch_pinned() : katomic_up_unpatch();
			if (rc < 0 || (check && p && rc != (int)nsites)) {
				fprintf(stderr, "up-patch: katomic_up_%s: %d (%s)\n", p ? "patch_pinned" : "unpatch",
					rc, katomic_up_strerror(rc));
				return 1;
			}
			for (int j = 0; j < nk; j++)
				for (int l = 0; l < UPB_NLOOPS; l++)
					ns[j][l][p][r] = sample(k[j], l, iters, &ran[j]);
		}
	}
	rc = katomic_up_unpatch();
	for (int j = 0; j < nk; j++)
		if (k[j]->count() != ran[j] || k[j]->refs() != 1) {
			fprintf(stderr, "up-patch: %s: atomic_inc counted %ld, refcount %d: wrong\n", k[j]->name,
				k[j]->count(), k[j]->refs());
			bad++;
		}
	if (check) {
		printf("up-patch --check: %d kernels, %zu lock sites patched and restored, counts %s\n",
		       nk, nsites, bad || rc != (int)nsites ? "WRONG" : "exact");
		return bad || rc != (int)nsites;
	}

	printf("\n== up: uniprocessor lock elision (<katomic/up.h>), katomic_up_patch_pinned on CPU %d: "
	       "%zu lock sites (%zu asm-backend records, %zu from katomic uplocks);\n"
	       "%d alternating rounds (locked, patched) of %ld iterations in %.1f s; ns/op median (min-max); "
	       "ratio = median of per-round locked/patched;\n"
	       "chunks of %ld iterations taken again because this thread was preempted: %ld; "
	       "still preempted after 3 tries (kept): %ld\n",
	       cpu, nsites, nasm, nsites - nasm, rounds, iters, (upb_now_ns() - t0) / 1e9,
	       UPB_CHUNK, upb_retried, upb_disturbed);
	printf("%-10s %-17s %-22s %-22s %s\n", "contender", "loop", "locked ns/op", "patched ns/op",
	       "locked/patched");
	FILE *js = json ? fopen(json, "w") : NULL;

	if (json && !js) {
		perror(json);
		return 1;
	}
	if (js)
		fprintf(js, "{\"tool\": \"up-patch\", \"rule\": \"katomic_up_patch_pinned\", \"cpu\": %d, "
			"\"rounds\": %d, \"iters\": %ld, \"chunk\": %ld, \"retried\": %ld, \"disturbed\": %ld, "
			"\"sites\": %zu, \"sites_asm\": %zu, \"sites_scanned\": %zu, \"results\": [",
			cpu, rounds, iters, UPB_CHUNK, upb_retried, upb_disturbed, nsites, nasm, nsites - nasm);
	for (int j = 0; j < nk; j++)
		for (int l = 0; l < UPB_NLOOPS; l++) {
			struct stat3 a = stats(ns[j][l][0], rounds), b = stats(ns[j][l][1], rounds), q;
			double *ratio = malloc((size_t)rounds * sizeof(double));
			char sa[48], sb[48];

			for (int r = 0; r < rounds; r++)
				ratio[r] = ns[j][l][0][r] / ns[j][l][1][r];
			q = stats(ratio, rounds);
			free(ratio);
			snprintf(sa, sizeof(sa), "%.2f (%.2f-%.2f)", a.med, a.min, a.max);
			snprintf(sb, sizeof(sb), "%.2f (%.2f-%.2f)", b.med, b.min, b.max);
			printf("%-10s %-17s %-22s %-22s %.2fx (%.2f-%.2f)\n", k[j]->name, upb_loop_name[l], sa, sb,
			       q.med, q.min, q.max);
			if (js)
				fprintf(js, "%s\n  {\"contender\": \"%s\", \"backend\": \"%s\", \"cc\": \"%s\", "
					"\"loop\": \"%s\", \"locked_ns_med\": %.4f, \"locked_ns_min\": %.4f, "
					"\"locked_ns_max\": %.4f, \"patched_ns_med\": %.4f, \"patched_ns_min\": %.4f, "
					"\"patched_ns_max\": %.4f, \"ratio_med\": %.4f, \"ratio_min\": %.4f, "
					"\"ratio_max\": %.4f}", j || l ? "," : "", k[j]->name, k[j]->backend, k[j]->cc,
					upb_loop_name[l], a.med, a.min, a.max, b.med, b.min, b.max, q.med, q.min, q.max);
		}
	if (js) {
		fprintf(js, "\n], \"errors\": %d}\n", bad);
		fclose(js);
	}
	return bad ? 1 : 0;
}
#endif
