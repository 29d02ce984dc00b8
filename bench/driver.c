/* SPDX-License-Identifier: MIT */
/*
 * katomic-bench: per-op and workload benchmarks of katomic's backends
 * against liburcu, Concurrency Kit, libatomic_ops, <stdatomic.h>, glibc and
 * the raw instruction, all linked into this one program (each contender is
 * its own translation unit built with its own compiler: see bench/kb.h).
 *
 * Method (see --help): threads pinned round-robin to the usable CPUs; every
 * (op, mode) or (workload, threads) is measured in rounds, and inside a
 * round the contenders run one after another, A B C A B C ...; reported are
 * the median with min and max over the rounds, and ratios as the median of
 * the per-round ratios.  Time is CLOCK_MONOTONIC; cycles are an estimate
 * from a dependent-add chain (the TSC is not the core clock here).  No
 * timing is ever asserted: --check only proves each kernel works.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kb.h"
#include "stat3.h"

/* ------------------------------------------------------------ contenders */
/* Weak: a contender whose compiler or headers were missing is not linked. */
#define KB_CONTENDERS(X)						\
	X(raw)								\
	X(asm_gcc) X(c11_gcc) X(asm_clang) X(c11_clang)			\
	X(urcu) X(ck) X(ao) X(std_gcc) X(std_clang) X(libc)		\
	X(mutex) X(ticket)
#define X(s) extern const struct kb_contender kb_##s __attribute__((__weak__));
KB_CONTENDERS(X)
#undef X
static const struct kb_contender *const all_contenders[] = {
#define X(s) &kb_##s,
	KB_CONTENDERS(X)
#undef X
};
static const char *const all_names[] = {
#define X(s) #s,
	KB_CONTENDERS(X)
#undef X
};
#define NALL (int)(sizeof(all_contenders) / sizeof(all_contenders[0]))

static const struct kb_contender *con[NALL];
static int ncon;

/* ------------------------------------------------------------ the op list */
enum chk { ADD, SUB, SUCC, SAME, OR16, LAST, BIT5, BIT37, ANY };
enum wlt { SWEEP, PAIR, LOCKS };
struct opinfo {
	const char *name;
	bool workload;
	enum chk check;
	int init;
	bool quick;
	enum wlt threads;
};
static const struct opinfo ops[KB_NOPS] = {
#define KB_OP(id, chk, ini, q) [KB_##id] = { #id, false, chk, ini, q, SWEEP },
#define KB_WL(id, thr, q) [KB_##id] = { #id, true, ANY, 0, q, thr },
#include "ops.def"
#undef KB_OP
#undef KB_WL
};

enum mode { SOLO, SHARED, OWN, FALSE_SHARING, NMODES };
#define NWAIT 4	/* wait-time figures: p50, p99, p99.9, max */
static const char *const mode_name[NMODES] = { "solo", "shared", "own", "false" };
static const char *const mode_desc[NMODES] = {
	"uncontended (1 thread)",
	"all threads on one word",
	"each thread on its own cache line",
	"false sharing (different words, same line)",
};

/* ------------------------------------------------------------ options */
static struct {
	bool quick, check, progress, list;
	int rounds, threads, maxthreads, wl_threads;
	double op_ms, wl_ms;
	const char *filter, *contenders, *modes;
	const char *csv, *json, *samples;
	const char *up_json;	/* bench/up-patch.c's results, copied into the JSON as "up" */
} opt = { .progress = true };

static int ncpu;
static int cpus[1024];

/* The lock workloads: the same loop with more or less private work. */
static bool is_lock(int op)
{
	return ops[op].threads == LOCKS;
}

/* ------------------------------------------------------------ helpers */
void kb_wait(unsigned *spins)
{
	if (++*spins < 128) {
#if defined(__x86_64__) || defined(__i386__)
		__asm__ __volatile__("pause" ::: "memory");
#endif
	} else {
		*spins = 0;
		sched_yield();
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* This thread's CPU time: only to notice that it was descheduled (see run_sample). */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *xmalloc_aligned(size_t size)
{
	void *p = aligned_alloc(KB_LINE, (size + KB_LINE - 1) / KB_LINE * KB_LINE);

	if (!p) {
		perror("katomic-bench: aligned_alloc");
		exit(1);
	}
	memset(p, 0, size);
	return p;
}

/* "a,b*,c": fnmatch, or a substring when a pattern has no wildcard. */
static bool match_list(const char *list, const char *name)
{
	char buf[256];
	const char *p = list;

	if (!list || !*list)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n && n < sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = 0;
			if (strpbrk(buf, "*?[") ? !fnmatch(buf, name, 0) : !!strstr(name, buf))
				return true;
		}
		p += n;
		if (*p)
			p++;
	}
	return false;
}

static const char *cname(const struct kb_contender *c)
{
	return c->name;
}

/* The asm reference a contender is compared with: same compiler for katomic and std. */
static int ref_of(int c)
{
	const char *want = strstr(con[c]->name, "-clang") ? "asm-clang" : "asm-gcc";

	for (int i = 0; i < ncon; i++)
		if (!strcmp(con[i]->name, want))
			return i;
	for (int i = 0; i < ncon; i++)
		if (!strncmp(con[i]->name, "asm-", 4))
			return i;
	return -1;
}

/* katomic's C11 backend a peer is compared with: c11-clang for std-clang, else c11-gcc. */
static int c11_of(int c)
{
	const char *want = strstr(con[c]->name, "-clang") ? "c11-clang" : "c11-gcc";

	if (!strncmp(con[c]->name, "c11-", 4) || !strncmp(con[c]->name, "asm-", 4) ||
	    !strcmp(con[c]->name, "raw"))
		return -1;	/* katomic itself and the hardware limit are not peers */
	for (int i = 0; i < ncon; i++)
		if (!strcmp(con[i]->name, want))
			return i;
	return -1;
}

static int find_con(const char *name)
{
	for (int i = 0; i < ncon; i++)
		if (!strcmp(con[i]->name, name))
			return i;
	return -1;
}

/* ------------------------------------------------------------ running */
struct thr {
	pthread_t th;
	int cpu;
	struct kb_env env;
	kb_run_fn *run;
	long n, done;
	double t0, t1, c0, c1;
	struct sample_ctl *ctl;
};

struct sample_ctl {
	volatile int ready, go, stop;
	int nthreads;
	bool oversub;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	struct sample_ctl *ctl = t->ctl;
	unsigned spins = 0;

	__atomic_fetch_add(&ctl->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&ctl->go, __ATOMIC_ACQUIRE)) {
		if (ctl->oversub)
			sched_yield();
		else
			kb_wait(&spins);
	}
	t->c0 = cpu_ns();
	t->t0 = now_ns();
	t->done = t->run(t->n, &t->env);
	t->t1 = now_ns();
	t->c1 = cpu_ns();
	return NULL;
}

struct result {
	double wall_ns;		/* first start to last finish */
	long total, min_ops, max_ops;
	long aux[4];		/* summed over threads */
	bool bad_aux3;		/* an mpmc thread stopped half-way */
	double off_cpu;		/* disturbance: largest share of a thread's time spent
				 * descheduled, or of the sample before the last thread started */
	double wait_ns[NWAIT];	/* lock workloads: sampled acquisitions' waits (-1: none) */
};

static union kb_cell *cells;	/* (maxthreads + 2) lines */

/*
 * The lock workloads' wait-time figures: each thread times every
 * KB_WAIT_EVERY-th lock() (kernels.h) into its own WAIT_CAP slots of
 * wait_buf, in kb_ticks() units; a sample's figures are the percentiles of
 * all its threads' waits together.
 */
#define WAIT_CAP (1L << 16)
#define WAIT_THREADS 64	/* as many as struct thr th[] holds */
static unsigned *wait_buf;	/* WAIT_THREADS * WAIT_CAP */
static double ns_per_tick = 1;	/* kb_ticks() to ns (wait_calibrate) */
static const double wait_pct[NWAIT] = { 50, 99, 99.9, 100 };

static void wait_calibrate(void)
{
	struct timespec ts = { 0, 20000000 };
	double t0 = now_ns();
	unsigned long long k0 = kb_ticks();

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	double dt = now_ns() - t0;
	unsigned long long dk = kb_ticks() - k0;

	ns_per_tick = dk ? dt / (double)dk : 1;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The threads' sampled waits, pooled and sorted: p50, p99, p99.9, max in ns. */
static void wait_figures(struct thr *th, int nthreads, double *out)
{
	long n = 0;

	for (int t = 0; t < nthreads; t++) {
		memmove(wait_buf + n, th[t].env.wait, sizeof(unsigned) * (size_t)th[t].env.wait_n);
		n += th[t].env.wait_n;
	}
	for (int k = 0; k < NWAIT; k++)
		out[k] = -1;
	if (!n)
		return;
	qsort(wait_buf, (size_t)n, sizeof(unsigned), cmp_unsigned);
	for (int k = 0; k < NWAIT; k++) {
		long i = (long)((double)(n - 1) * wait_pct[k] / 100 + 0.5);

		out[k] = (double)wait_buf[i] * ns_per_tick;
	}
}
static void *shared_mem;

static union kb_cell *cell_for(enum mode m, int t)
{
	char *base = (char *)cells;

	switch (m) {
	case SOLO:
	case SHARED:
		return (union kb_cell *)base;
	case OWN:
		return (union kb_cell *)(base + (size_t)t * KB_LINE);
	case FALSE_SHARING:
	default:
		return (union kb_cell *)(base + (size_t)(t / 4) * KB_LINE + (size_t)(t % 4) * 16);
	}
}

/*
 * One sample: nthreads pinned threads run impl->run(n) after a common start;
 * if dur_ns > 0 the main thread sets stop after dur_ns (workloads).
 */
static struct result run_sample(const struct kb_contender *c, int op, enum mode m, int nthreads,
				long n, double dur_ns, struct thr *th)
{
	struct sample_ctl ctl = { .nthreads = nthreads, .oversub = nthreads > ncpu };
	const struct kb_impl *im = &c->impl[op];
	struct result r = { 0 };
	pthread_attr_t attr;

	memset(cells, 0, (size_t)(opt.maxthreads + 2) * KB_LINE);
	if (ops[op].workload) {
		memset(shared_mem, 0, KB_SHARED_SIZE);
		if (im->init)
			im->init(shared_mem, nthreads);
	} else {
		for (int t = 0; t < nthreads; t++)
			cell_for(m, t)->i[0] = ops[op].init;
	}
	for (int t = 0; t < nthreads; t++) {
		cpu_set_t set;

		memset(&th[t], 0, sizeof(th[t]));
		th[t].cpu = cpus[t % ncpu];
		th[t].ctl = &ctl;
		th[t].run = im->run;
		th[t].n = n;
		th[t].env.cell = cell_for(m, t);
		th[t].env.shared = shared_mem;
		th[t].env.stop = &ctl.stop;
		th[t].env.tid = t;
		th[t].env.nthreads = nthreads;
		th[t].env.bitnr = 37;
		if (is_lock(op) && t < WAIT_THREADS) {
			th[t].env.wait = wait_buf + (size_t)t * WAIT_CAP;
			th[t].env.wait_cap = WAIT_CAP;
		}
		pthread_attr_init(&attr);
		CPU_ZERO(&set);
		CPU_SET(th[t].cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (pthread_create(&th[t].th, &attr, thr_main, &th[t])) {
			perror("katomic-bench: pthread_create");
			exit(1);
		}
		pthread_attr_destroy(&attr);
	}
	while (__atomic_load_n(&ctl.ready, __ATOMIC_ACQUIRE) < nthreads)
		sched_yield();
	__atomic_store_n(&ctl.go, 1, __ATOMIC_RELEASE);
	if (dur_ns > 0) {
		struct timespec ts = { (time_t)(dur_ns / 1e9), (long)((long long)dur_ns % 1000000000LL) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		__atomic_store_n(&ctl.stop, 1, __ATOMIC_RELEASE);
	}
	double t0 = 0, t1 = 0, last0 = 0;

	r.min_ops = -1;
	for (int t = 0; t < nthreads; t++) {
		pthread_join(th[t].th, NULL);
		if (!t || th[t].t0 < t0)
			t0 = th[t].t0;
		if (!t || th[t].t1 > t1)
			t1 = th[t].t1;
		if (!t || th[t].t0 > last0)
			last0 = th[t].t0;
		r.total += th[t].done;
		for (int k = 0; k < 4; k++)
			r.aux[k] += th[t].env.aux[k];
		if (th[t].env.aux[2] < 0)
			r.bad_aux3 = true;
		double w = th[t].t1 - th[t].t0, off = w > 0 ? 1 - (th[t].c1 - th[t].c0) / w : 0;

		if (off > r.off_cpu)
			r.off_cpu = off;
	}
	/* Fairness group: seqlock's readers; spsc has none; otherwise everyone. */
	int from = op == KB_seqlock && nthreads > 1 ? 1 : 0;

	for (int t = from; t < nthreads && op != KB_spsc; t++) {
		if (r.min_ops < 0 || th[t].done < r.min_ops)
			r.min_ops = th[t].done;
		if (th[t].done > r.max_ops)
			r.max_ops = th[t].done;
	}
	if (op == KB_spsc)
		r.total = th[1].done;	/* items delivered */
	else if (op == KB_seqlock && nthreads > 1)
		r.total -= th[0].done;	/* consistent reads only */
	r.wall_ns = t1 - t0;
	for (int k = 0; k < NWAIT; k++)
		r.wait_ns[k] = -1;
	if (is_lock(op))
		wait_figures(th, nthreads, r.wait_ns);
	/* A thread that started late (not scheduled at "go") left the others alone. */
	if (r.wall_ns > 0 && (last0 - t0) / r.wall_ns > r.off_cpu)
		r.off_cpu = (last0 - t0) / r.wall_ns;
	return r;
}

/*
 * The machine is shared: a sample during which one of our threads was
 * descheduled for more than 5% of its run, or started more than 5% of the
 * sample after the first one, measures the neighbours, not us.
 * Such a sample is taken again (up to 4 tries; the least disturbed one is
 * kept).  Not when threads outnumber CPUs: then being descheduled is the
 * point.  Timing is still CLOCK_MONOTONIC; CPU time only judges the sample.
 */
static long n_retried, n_disturbed;

static struct result measure(const struct kb_contender *c, int op, enum mode m, int nthreads, long n,
			     double dur_ns, struct thr *th)
{
	struct result best = { 0 };

	for (int k = 0; k < 4; k++) {
		struct result r = run_sample(c, op, m, nthreads, n, dur_ns, th);

		if (!k || r.off_cpu < best.off_cpu)
			best = r;
		if (nthreads > ncpu || r.off_cpu <= 0.05)
			break;
		n_retried++;
	}
	if (nthreads <= ncpu && best.off_cpu > 0.05)
		n_disturbed++;
	return best;
}

/* ------------------------------------------------------------ --check */
static int npass, nfail, ntest;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		npass++;
	else
		nfail++;
}

static bool check_op(int op, enum mode m, int nthreads, long n, struct thr *th, char *why, size_t wl)
{
	/* Every distinct cell used, with the threads on it. */
	for (int t = 0; t < nthreads; t++) {
		union kb_cell *c = cell_for(m, t);
		long k = 0, succ = 0;
		int first = -1;

		for (int u = 0; u < nthreads; u++)
			if (cell_for(m, u) == c) {
				if (first < 0)
					first = u;
				k++;
				succ += th[u].env.aux[1];
			}
		if (first != t)
			continue;	/* each cell once */
		long init = ops[op].init, v = c->i[0];
		bool ok = true;

		switch (ops[op].check) {
		case ADD:  ok = v == (int)(init + n * k); break;
		case SUB:  ok = v == (int)(init - n * k); break;
		case SAME: ok = v == init; break;
		case OR16: ok = v == (init | 0x10); break;
		case LAST:
			ok = v == n - 1 && (op != KB_smp_wmb || c->i[1] == n - 1);
			break;
		case BIT5:  ok = c->b[0] == 1UL << 5 && c->b[1] == 0; break;
		case BIT37: ok = c->b[0] == 1UL << 37 && c->b[1] == 0; break;
		case SUCC:
			if (op == KB_cmpxchg128)
				ok = c->q == (unsigned __int128)(init + succ);
			else
				ok = v == (int)(init + succ);
			ok = ok && (m == SHARED || succ == n * k);
			break;
		case ANY:
			break;
		}
		if (!ok) {
			snprintf(why, wl, "cell of thread %d: got %ld (b %#lx %#lx), %ld threads x %ld, successes %ld",
				 t, v, c->b[0], c->b[1], k, n, succ);
			return false;
		}
	}
	return true;
}

static bool check_wl(const struct kb_contender *c, int op, int nthreads, long n, const struct result *r,
		     char *why, size_t wl)
{
	long expect = op == KB_spsc || op == KB_seqlock ? n * (op == KB_spsc ? 1 : nthreads - (nthreads > 1)) :
		n * nthreads;

	if (r->total != expect) {
		snprintf(why, wl, "%ld ops done, %ld expected", r->total, expect);
		return false;
	}
	switch (op) {
	case KB_refcount:
		if (r->aux[2] || c->check_refcount(shared_mem, r->total)) {
			snprintf(why, wl, "count dropped to zero or did not return to 1");
			return false;
		}
		break;
	case KB_spinlock:
	case KB_spinlock_short:
	case KB_spinlock_long:
		if (c->check_spinlock(shared_mem, r->total)) {
			snprintf(why, wl, "critical sections overlapped (lost updates)");
			return false;
		}
		break;
	case KB_seqlock:
		if (r->aux[2]) {
			snprintf(why, wl, "%ld torn reads accepted", r->aux[2]);
			return false;
		}
		break;
	case KB_spsc:
		if (r->aux[2]) {
			snprintf(why, wl, "%ld items out of order or corrupted", r->aux[2]);
			return false;
		}
		break;
	case KB_mpmc:
		if (r->bad_aux3 || r->aux[1] != r->aux[3]) {
			snprintf(why, wl, "enqueued sum %ld != dequeued sum %ld", r->aux[1], r->aux[3]);
			return false;
		}
		break;
	}
	return true;
}

static int run_check(void)
{
	struct thr th[64];
	int T = ncpu < 2 ? 2 : ncpu;
	char why[256];

	printf("# katomic-bench --check: every kernel of every contender at a tiny size; no timing\n");
	for (int ci = 0; ci < ncon; ci++) {
		const struct kb_contender *c = con[ci];

		for (int op = 0; op < KB_NOPS; op++) {
			if (!match_list(opt.filter, ops[op].name))
				continue;
			if (!c->impl[op].run) {
				printf("# %s %s: n/a\n", c->name, ops[op].name);
				continue;
			}
			if (!ops[op].workload) {
				for (int m = 0; m < NMODES; m++) {
					int nt = m == SOLO ? 1 : T;
					long n = 2000;
					struct result r = run_sample(c, op, (enum mode)m, nt, n, 0, th);
					bool ok = r.total == n * nt && check_op(op, (enum mode)m, nt, n, th, why, sizeof(why));

					tap(ok, "%s %s %s x%d%s%s", c->name, ops[op].name, mode_name[m], nt,
					    ok ? "" : ": ", ok ? "" : why);
				}
				continue;
			}
			/* Workloads: 1 thread, every CPU, and one more thread than CPUs. */
			int tl[4] = { 1, T, T + 1 }, ntl = 3;

			if (op == KB_spsc) {
				tl[0] = 2;
				ntl = 1;
			} else if (is_lock(op) && (!strcmp(c->name, "ck") || !strcmp(c->name, "libc"))) {
				ntl = 2;	/* pure spinners: oversubscription only slows them down */
			} else if (is_lock(op)) {
				tl[ntl++] = 4 * T;	/* threads outnumbering CPUs 4 to 1 */
			}
			for (int k = 0; k < ntl; k++) {
				long n = is_lock(op) ? 500 : 2000;
				struct result r = run_sample(c, op, SOLO, tl[k], n, 0, th);
				bool ok = check_wl(c, op, tl[k], n, &r, why, sizeof(why));

				tap(ok, "%s %s x%d%s%s", c->name, ops[op].name, tl[k], ok ? "" : ": ", ok ? "" : why);
			}
		}
	}
	printf("1..%d\n", ntest);
	printf("# %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}

/* ------------------------------------------------------------ benchmark */
struct row {
	int op, mode, nthreads, con;
	long iters;		/* per thread (per-op); 0 for workloads */
	double *ns;		/* per round: ns/op; -1 = missing */
	double *mops;		/* per round: total Mops/s */
	double *fair;		/* per round: min/max per-thread ops; -1 = n/a */
	double *wait[NWAIT];	/* lock workloads, per round: p50, p99, p99.9, max wait (ns); -1 = n/a */
	long errors;
	bool na;
};
static struct row *rows;
static int nrows, rowcap;
static double *ghz;		/* calibration samples */
static int nghz, ghzcap;

static struct row *add_row(int op, int mode, int nthreads, int c)
{
	if (nrows == rowcap) {
		rowcap = rowcap ? rowcap * 2 : 256;
		rows = realloc(rows, sizeof(*rows) * (size_t)rowcap);
	}
	struct row *r = &rows[nrows++];

	memset(r, 0, sizeof(*r));
	r->op = op;
	r->mode = mode;
	r->nthreads = nthreads;
	r->con = c;
	r->na = !con[c]->impl[op].run;
	r->ns = malloc(sizeof(double) * (size_t)opt.rounds);
	r->mops = malloc(sizeof(double) * (size_t)opt.rounds);
	r->fair = malloc(sizeof(double) * (size_t)opt.rounds);
	for (int k = 0; k < NWAIT; k++)
		r->wait[k] = malloc(sizeof(double) * (size_t)opt.rounds);
	for (int i = 0; i < opt.rounds; i++) {
		r->ns[i] = r->mops[i] = r->fair[i] = -1;
		for (int k = 0; k < NWAIT; k++)
			r->wait[k][i] = -1;
	}
	return r;
}

/* Core clock estimate: 200 dependent adds per loop trip, 1 cycle each. */
__attribute__((__noinline__)) static double calib_once(long trips)
{
	double t = now_ns();
	long x = 0;

	for (long i = 0; i < trips; i++) {
#if defined(__x86_64__)
		__asm__ __volatile__(
			".rept 200\n\t" "addq $1, %0\n\t" ".endr" : "+r"(x));
#else
		for (int k = 0; k < 200; k++)
			__asm__ __volatile__("" : "+r"(x));
#endif
	}
	t = now_ns() - t;
	return (double)trips * 200 / t;	/* adds per ns = GHz */
}

static void calibrate(void)
{
	if (nghz == ghzcap) {
		ghzcap = ghzcap ? ghzcap * 2 : 64;
		ghz = realloc(ghz, sizeof(double) * (size_t)ghzcap);
	}
	ghz[nghz++] = calib_once(opt.quick ? 2000 : 5000);
}

static long total_samples, done_samples;
static double t_start;

static void progress(const char *what, int round)
{
	if (!opt.progress)
		return;
	double el = (now_ns() - t_start) / 1e9;
	double eta = done_samples ? el * (double)(total_samples - done_samples) / (double)done_samples : 0;

	if (isatty(2))
		fprintf(stderr, "\rkatomic-bench: %3ld%% %-34s round %d/%d  %4.0fs elapsed, ~%.0fs left   ",
			total_samples ? done_samples * 100 / total_samples : 0, what, round + 1, opt.rounds, el, eta);
	else if (round == 0)
		fprintf(stderr, "katomic-bench: %3ld%% %s (%.0fs)\n",
			total_samples ? done_samples * 100 / total_samples : 0, what, el);
}

static bool op_selected(int op)
{
	if (!match_list(opt.filter, ops[op].name))
		return false;
	return !opt.quick || ops[op].quick || (opt.filter && *opt.filter);
}

static bool mode_selected(int m)
{
	if (opt.modes)
		return match_list(opt.modes, mode_name[m]);
	return !opt.quick || m == SOLO || m == SHARED;
}

static int thread_list(int op, int *tl)
{
	int n = 0;

	if (ops[op].threads == PAIR) {
		tl[n++] = 2;
		return n;
	}
	if (opt.wl_threads) {	/* one point, re-measured alone (the report's confirmation) */
		tl[n++] = opt.wl_threads;
		return n;
	}
	if (ops[op].threads == LOCKS) {
		/* 1, every CPU, and threads outnumbering CPUs 2 and 4 to 1 */
		int want[] = { 1, ncpu, 2 * ncpu, 4 * ncpu };

		for (int k = 0; k < 4; k++)
			if (want[k] <= 32 && (!n || want[k] > tl[n - 1]))
				tl[n++] = want[k];
		return n;
	}
	if (opt.quick) {
		tl[n++] = 1;
		if (ncpu > 1)
			tl[n++] = ncpu;
		tl[n++] = 2 * ncpu;
		return n;
	}
	for (int t = 1; t <= opt.maxthreads; t++)
		tl[n++] = t;
	return n;
}

static int cur_threads(void)
{
	return opt.threads ? opt.threads : (ncpu < 2 ? 2 : ncpu);
}

static void bench_op(int op, enum mode m, struct thr *th)
{
	int nt = m == SOLO ? 1 : cur_threads();
	int ref = -1;
	char what[64];
	long n = 1000;

	/* The reference: the first contender that has the op (asm-gcc if present). */
	for (int c = 0; c < ncon && ref < 0; c++)
		if (!strcmp(con[c]->name, "asm-gcc") && con[c]->impl[op].run)
			ref = c;
	for (int c = 0; c < ncon && ref < 0; c++)
		if (con[c]->impl[op].run)
			ref = c;
	struct row *rr = &rows[nrows];	/* this group's rows start here */
	int first = nrows;

	for (int c = 0; c < ncon; c++)
		add_row(op, m, nt, c);
	rr = &rows[first];
	if (ref < 0)
		return;
	snprintf(what, sizeof(what), "%s/%s", ops[op].name, mode_name[m]);
	/* Iterations: about op_ms per sample for the reference. */
	for (;;) {
		struct result r = run_sample(con[ref], op, m, nt, n, 0, th);

		if (r.wall_ns >= opt.op_ms * 1e6 / 4 || n > (1L << 40)) {
			n = (long)((double)n * opt.op_ms * 1e6 / (r.wall_ns > 1 ? r.wall_ns : 1));
			break;
		}
		n *= 4;
	}
	if (n < 100)
		n = 100;
	for (int c = 0; c < ncon; c++)
		rr[c].iters = n;
	for (int round = 0; round < opt.rounds; round++) {
		progress(what, round);
		for (int c = 0; c < ncon; c++) {
			if (rr[c].na)
				continue;
			struct result r = measure(con[c], op, m, nt, n, 0, th);

			rr[c].ns[round] = r.wall_ns / (double)n;
			rr[c].mops[round] = (double)r.total / r.wall_ns * 1e3;
			done_samples++;
		}
		if (m == SOLO)
			calibrate();
	}
}

static void bench_wl(int op, int nt, struct thr *th)
{
	char what[64];
	int first = nrows;

	for (int c = 0; c < ncon; c++)
		add_row(op, -1, nt, c);
	struct row *rr = &rows[first];

	snprintf(what, sizeof(what), "%s/%d threads", ops[op].name, nt);
	for (int round = 0; round < opt.rounds; round++) {
		progress(what, round);
		for (int c = 0; c < ncon; c++) {
			if (rr[c].na)
				continue;
			struct result r = measure(con[c], op, SOLO, nt, 1L << 60, opt.wl_ms * 1e6, th);

			if (r.total > 0) {
				rr[c].ns[round] = r.wall_ns / (double)r.total;
				rr[c].mops[round] = (double)r.total / r.wall_ns * 1e3;
			}
			if (r.min_ops >= 0 && r.max_ops > 0 && nt > 1)
				rr[c].fair[round] = (double)r.min_ops / (double)r.max_ops;
			for (int k = 0; k < NWAIT; k++)
				rr[c].wait[k][round] = r.wait_ns[k];
			if (r.aux[2] > 0)
				rr[c].errors += r.aux[2];
			done_samples++;
		}
	}
}

/* Ratio of row a to row b: the median (min, max) of the per-round ratios. */
static struct stat3 ratio(const struct row *a, const struct row *b)
{
	double v[256];
	int n = 0;

	for (int i = 0; i < opt.rounds && i < 256; i++)
		v[n++] = a->ns[i] > 0 && b->ns[i] > 0 ? a->ns[i] / b->ns[i] : -1;
	return stats(v, n);
}

static const struct row *peer_row(const struct row *r, int c)
{
	/* rows of one group are consecutive, one per contender, in contender order */
	const struct row *g = r - r->con;

	return c < 0 || g[c].na ? NULL : &g[c];
}

/* More threads than CPUs: the scheduler decides, the code under test hardly does. */
static bool oversub(const struct row *r)
{
	return ops[r->op].workload && r->nthreads > ncpu;
}

static void fmt_num(char *buf, size_t n, double v, int prec)
{
	if (v < 0)
		snprintf(buf, n, "-");
	else if (v >= 1000)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.*f", prec, v);
}

/* A matrix: one line per group (op/mode or workload/threads), one column per contender. */
enum what { NS, RATIO_ASM, RATIO_RAW, MOPS, FAIR };

static bool con_in_group(int c, int wl)
{
	/* libc only has the spinlock: keep per-op tables narrow */
	for (int op = 0; op < KB_NOPS; op++)
		if (ops[op].workload == wl && con[c]->impl[op].run)
			return true;
	return false;
}

static void print_matrix(const char *title, bool wl, int mode, enum what w)
{
	int raw = find_con("raw");
	bool any = false;

	for (int i = 0; i < nrows && !any; i++)
		any = ops[rows[i].op].workload == wl && (wl || rows[i].mode == mode);
	if (!any)
		return;
	printf("\n%s\n%-22s", title, wl ? "workload/threads" : "op");
	for (int c = 0; c < ncon; c++)
		if (con_in_group(c, wl))
			printf(" %9s", con[c]->name);
	putchar('\n');
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		char lab[64], buf[32];

		if (r->con != 0 || ops[r->op].workload != wl || (!wl && r->mode != mode))
			continue;
		if (wl)
			snprintf(lab, sizeof(lab), "%s/%d%s", ops[r->op].name, r->nthreads,
				 oversub(r) ? " oversub" : "");
		else
			snprintf(lab, sizeof(lab), "%s", ops[r->op].name);
		printf("%-22s", lab);
		for (int c = 0; c < ncon; c++) {
			const struct row *x = &rows[i + c];

			if (!con_in_group(c, wl))
				continue;
			if (x->na) {
				printf(" %9s", "n/a");
				continue;
			}
			double v = -1;
			int prec = 2;

			switch (w) {
			case NS: v = stats(x->ns, opt.rounds).med; break;
			case MOPS: v = stats(x->mops, opt.rounds).med; prec = 1; break;
			case FAIR: v = stats(x->fair, opt.rounds).med; break;
			case RATIO_ASM: {
				const struct row *ref = peer_row(x, ref_of(c));

				v = ref ? ratio(x, ref).med : -1;
				break;
			}
			case RATIO_RAW: {
				const struct row *ref = peer_row(x, raw);

				v = ref ? ratio(x, ref).med : -1;
				break;
			}
			}
			fmt_num(buf, sizeof(buf), v, prec);
			printf(" %9s%s", buf, x->errors ? "!" : "");
		}
		putchar('\n');
	}
}

/* ------------------------------------------------------------ verdict */
/* The targets, from the rows of this run: C11/asm within BAND_LO..BAND_HI
 * per op and workload (oversubscribed workload points shown, not judged),
 * katomic vs each peer, and every uncontended op within RAW_LIMIT of raw. */
#define BAND_LO 0.97
#define BAND_HI 1.03
#define RAW_LIMIT 1.10

static void group_label(const struct row *r, char *buf, size_t n)
{
	if (ops[r->op].workload)
		snprintf(buf, n, "%s/%d%s", ops[r->op].name, r->nthreads, oversub(r) ? " oversub" : "");
	else
		snprintf(buf, n, "%s/%s", ops[r->op].name, mode_name[r->mode]);
}

static void fmt_range(char *buf, size_t n, struct stat3 s)
{
	if (s.med < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f (%.2f-%.2f)", s.med, s.min, s.max);
}

/*
 * Lock workloads: throughput against glibc's default pthread_mutex_t, the
 * lock a user would otherwise take, per round (same round, side by side),
 * and fairness.  Thread counts above the CPUs are judged here: for a lock,
 * surviving oversubscription is the point.
 */
/* Throughput of a over the mutex's, per round: the mutex's ns/op over a's (a workload's ns/op is wall / total). */
static struct stat3 mutex_ratio(const struct row *a, const struct row *m)
{
	return ratio(m, a);
}

/* A time in ns as us, with as many digits as mean something. */
static const char *fmt_us(double ns, char *buf)
{
	double us = ns / 1e3;

	snprintf(buf, 16, us < 1 ? "%.2f" : us < 100 ? "%.1f" : "%.0f", us);
	return buf;
}

static void print_locks(void)
{
	int mx = find_con("mutex");
	char lab[64], buf[64], b1[16], b2[16];

	if (mx < 0)
		return;
	printf("\n== locks: throughput / pthread_mutex_t (glibc default), median (min-max) of per-round"
	       "\n   ratios, >1 = faster than the mutex; then fairness: min/max acquisitions per thread,"
	       "\n   median (min) over the rounds, 1 = equal shares\n");
	for (int pass = 0; pass < 4; pass++) {
		static const char *const head[] = { "throughput / mutex", "fairness", "wait p50/p99 us",
						    "wait p99.9/max us" };

		if (pass == 2)
			printf("\n   then the wait in lock() of every %dth acquisition: p50/p99 and p99.9/max in us,"
			       "\n   median over the rounds\n", KB_WAIT_EVERY);
		printf("%-26s", head[pass]);
		for (int c = 0; c < ncon; c++)
			if (con[c]->impl[KB_spinlock].run && (pass || c != mx))
				printf(" %-18s", con[c]->name);
		putchar('\n');
		for (int i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];

			if (r->con != 0 || !is_lock(r->op))
				continue;
			group_label(r, lab, sizeof(lab));
			printf("%-26s", lab);
			for (int c = 0; c < ncon; c++) {
				const struct row *a = peer_row(r, c), *m = peer_row(r, mx);

				if (!con[c]->impl[KB_spinlock].run || (!pass && c == mx))
					continue;
				if (!a) {
					printf(" %-18s", "n/a");
					continue;
				}
				if (pass >= 2) {
					struct stat3 p = stats(a->wait[pass == 2 ? 0 : 2], opt.rounds),
						q = stats(a->wait[pass == 2 ? 1 : 3], opt.rounds);

					if (p.med < 0 || q.med < 0)
						snprintf(buf, sizeof(buf), "-");
					else
						snprintf(buf, sizeof(buf), "%s/%s", fmt_us(p.med, b1), fmt_us(q.med, b2));
				} else if (pass) {
					struct stat3 f = stats(a->fair, opt.rounds);

					if (f.med < 0)
						snprintf(buf, sizeof(buf), "-");
					else
						snprintf(buf, sizeof(buf), "%.2f (%.2f)", f.med, f.min);
				} else {
					fmt_range(buf, sizeof(buf), m ? mutex_ratio(a, m) : (struct stat3){ -1, -1, -1 });
				}
				printf(" %-18s", buf);
			}
			putchar('\n');
		}
	}
}

static void print_verdict(void)
{
	static const char *const pairs[][2] = { { "c11-gcc", "asm-gcc" }, { "c11-clang", "asm-clang" } };
	int pc[2][2], np = 0, raw = find_con("raw");
	long judged = 0, out = 0;
	char lab[64], buf[64];

	for (int k = 0; k < 2; k++) {
		pc[np][0] = find_con(pairs[k][0]);
		pc[np][1] = find_con(pairs[k][1]);
		if (pc[np][0] >= 0 && pc[np][1] >= 0)
			np++;
	}
	if (np) {
		printf("\n== verdict: katomic C11 / asm backend, same compiler, same rounds: median (min-max)"
		       "\n   of the per-round ratios; band %.2f-%.2f; '!' = median outside; oversub = more threads"
		       "\n   than CPUs (scheduler-bound: shown, not judged)\n%-26s",
		       BAND_LO, BAND_HI, "op/mode, workload/threads");
		for (int k = 0; k < np; k++)
			printf(" %-22s", con[pc[k][0]]->cc);
		putchar('\n');
		for (int i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];

			if (r->con != 0)
				continue;
			group_label(r, lab, sizeof(lab));
			printf("%-26s", lab);
			for (int k = 0; k < np; k++) {
				const struct row *a = peer_row(r, pc[k][0]), *b = peer_row(r, pc[k][1]);
				struct stat3 q = a && b ? ratio(a, b) : (struct stat3){ -1, -1, -1 };
				bool bad = q.med >= 0 && (q.med < BAND_LO || q.med > BAND_HI);

				fmt_range(buf, sizeof(buf), q);
				if (q.med >= 0 && !oversub(r)) {
					judged++;
					out += bad;
				}
				printf(" %-20s%-2s", buf, bad && !oversub(r) ? "!" : "");
			}
			putchar('\n');
		}
		printf("C11/asm: %ld of %ld judged figures outside %.2f-%.2f\n", out, judged, BAND_LO, BAND_HI);
	}

	/* Peers against katomic's C11 backend of the same compiler. */
	bool anyp = false;

	for (int c = 0; c < ncon; c++)
		anyp |= c11_of(c) >= 0;
	if (anyp) {
		long faster = 0;

		printf("\n== peers: peer ns/op / katomic c11 ns/op (std-clang: c11-clang; others: c11-gcc),"
		       "\n   median of per-round ratios; >1 = the peer pays more; '<' = peer faster than katomic"
		       " (median < %.2f)\n%-26s", BAND_LO, "op/mode, workload/threads");
		for (int c = 0; c < ncon; c++)
			if (c11_of(c) >= 0)
				printf(" %10s", con[c]->name);
		putchar('\n');
		for (int i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];

			if (r->con != 0)
				continue;
			group_label(r, lab, sizeof(lab));
			printf("%-26s", lab);
			for (int c = 0; c < ncon; c++) {
				if (c11_of(c) < 0)
					continue;
				const struct row *a = peer_row(r, c), *b = peer_row(r, c11_of(c));
				struct stat3 q = a && b ? ratio(a, b) : (struct stat3){ -1, -1, -1 };
				bool f = q.med >= 0 && q.med < BAND_LO;

				if (q.med < 0)
					snprintf(buf, sizeof(buf), "%s", a ? "-" : "n/a");
				else
					snprintf(buf, sizeof(buf), "%.2f%s", q.med, f ? "<" : " ");
				printf(" %10s", buf);
				faster += f && !oversub(r);
			}
			putchar('\n');
		}
		printf("peer faster than katomic (median < %.2f, oversubscribed points not counted): %ld\n",
		       BAND_LO, faster);
	}

	/* Uncontended katomic ops against the raw instruction. */
	if (raw >= 0) {
		long over = 0, n = 0;
		double worst = 0;
		char wl[64] = "";

		for (int i = 0; i < nrows; i++) {
			const struct row *r = &rows[i], *rw = peer_row(r, raw);

			if (r->mode != SOLO || ops[r->op].workload || r->na || !rw ||
			    (strncmp(con[r->con]->name, "c11-", 4) && strncmp(con[r->con]->name, "asm-", 4)))
				continue;
			struct stat3 q = ratio(r, rw);

			if (q.med < 0)
				continue;
			n++;
			if (q.med > worst) {
				worst = q.med;
				snprintf(wl, sizeof(wl), "%s %s", con[r->con]->name, ops[r->op].name);
			}
			if (q.med > RAW_LIMIT) {
				over++;
				fmt_range(buf, sizeof(buf), q);
				printf("uncontended over %.2fx raw: %s %s %s\n", RAW_LIMIT, con[r->con]->name,
				       ops[r->op].name, buf);
			}
		}
		if (n)
			printf("\nuncontended katomic (c11 and asm) / raw instruction: %ld of %ld over %.2fx; "
			       "highest median %.2f (%s)\n", over, n, RAW_LIMIT, worst, wl);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The uniprocessor lock elision results (one JSON object from up-patch --json), as "up". */
static void embed_up(FILE *js)
{
	FILE *f;
	char buf[4096];
	size_t n, total = 0;

	if (!opt.up_json)
		return;
	f = fopen(opt.up_json, "r");
	if (!f) {
		fprintf(stderr, "katomic-bench: --up-json %s: %s\n", opt.up_json, strerror(errno));
		return;
	}
	fprintf(js, ",\n  \"up\": ");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (!total && buf[0] != '{') {
			fprintf(stderr, "katomic-bench: --up-json %s: not a JSON object\n", opt.up_json);
			fprintf(js, "null");
			break;
		}
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
			n--;
		fwrite(buf, 1, n, js);
		total += n;
	}
	if (!total)
		fprintf(js, "null");
	fclose(f);
}

static void write_outputs(double ghz_med)
{
	FILE *csv = opt.csv ? fopen(opt.csv, "w") : NULL;
	FILE *js = opt.json ? fopen(opt.json, "w") : NULL;
	FILE *sm = opt.samples ? fopen(opt.samples, "w") : NULL;
	int raw = find_con("raw");
	bool firstj = true;

	if ((opt.csv && !csv) || (opt.json && !js) || (opt.samples && !sm)) {
		perror("katomic-bench: output file");
		exit(1);
	}
	if (csv)
		fprintf(csv, "kind,name,mode,threads,contender,ref,rounds,iters,ns_med,ns_min,ns_max,"
			"mops_med,mops_min,mops_max,cycles_med,ratio_asm_med,ratio_asm_min,ratio_asm_max,"
			"ratio_raw_med,ratio_raw_min,ratio_raw_max,fair_med,fair_min,fair_max,errors,status,"
			"oversub,ratio_c11_med,ratio_c11_min,ratio_c11_max,ratio_mutex_med,ratio_mutex_min,"
			"ratio_mutex_max,what\n");
	if (sm)
		fprintf(sm, "kind,name,mode,threads,contender,round,ns_per_op,mops,fair\n");
	if (js) {
		/* tools/schema/bench.schema.json describes every field (docs/json.md). */
		fprintf(js, "{\n  \"schema\": \"katomic-bench\",\n  \"version\": 1,\n  \"tool\": \"katomic-bench\",\n"
			"  \"cpus\": %d,\n  \"rounds\": %d,\n  \"core_ghz_estimate\": %.3f,\n  \"quick\": %s,\n"
			"  \"workload_ms\": %.1f,\n  \"resampled\": %ld,\n  \"disturbed\": %ld,\n  \"contenders\": [",
			ncpu, opt.rounds, isfinite(ghz_med) ? ghz_med : 0.0, opt.quick ? "true" : "false",
			opt.wl_ms, n_retried, n_disturbed);
		for (int c = 0; c < ncon; c++) {
			fprintf(js, "%s\n    {\"name\": ", c ? "," : "");
			json_str(js, con[c]->name);
			fprintf(js, ", \"desc\": ");
			json_str(js, con[c]->desc);
			fprintf(js, ", \"cc\": ");
			json_str(js, con[c]->cc);
			fprintf(js, "}");
		}
		fprintf(js, "\n  ],\n  \"results\": [");
	}
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const struct kb_contender *c = con[r->con];
		bool wl = ops[r->op].workload;
		const char *mode = wl ? "threads" : mode_name[r->mode];
		int refc = ref_of(r->con);
		const struct row *ref = peer_row(r, refc), *rw = peer_row(r, raw);
		struct stat3 ns = stats(r->ns, opt.rounds), mo = stats(r->mops, opt.rounds),
			fa = stats(r->fair, opt.rounds), ra = { -1, -1, -1 }, rr = { -1, -1, -1 };

		if (!r->na && ref)
			ra = ratio(r, ref);
		if (!r->na && rw)
			rr = ratio(r, rw);
		const struct row *rc = peer_row(r, c11_of(r->con));
		struct stat3 rk = { -1, -1, -1 };

		if (!r->na && rc)
			rk = ratio(r, rc);
		const struct row *rm = is_lock(r->op) ? peer_row(r, find_con("mutex")) : NULL;
		struct stat3 tm = { -1, -1, -1 };

		if (!r->na && rm)
			tm = mutex_ratio(r, rm);
		double cyc = ns.med > 0 && ghz_med > 0 ? ns.med * ghz_med : -1;
		const char *status = r->na ? "n/a" : r->errors ? "errors" : "ok";
		const char *what = c->impl[r->op].what ? c->impl[r->op].what : "";

#define F(v) ((v) < 0 ? 0.0 : (v))
#define E(v) ((v) < 0 ? "" : buf_##v)
		if (csv) {
			fprintf(csv, "%s,%s,%s,%d,%s,%s,%d,%ld", wl ? "workload" : "op", ops[r->op].name, mode,
				r->nthreads, c->name, refc >= 0 ? con[refc]->name : "", opt.rounds, r->iters);
			double vals[] = { ns.med, ns.min, ns.max, mo.med, mo.min, mo.max, cyc, ra.med, ra.min,
					  ra.max, rr.med, rr.min, rr.max, fa.med, fa.min, fa.max };
			for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
				if (vals[k] < 0 || r->na)
					fprintf(csv, ",");
				else
					fprintf(csv, ",%.4f", vals[k]);
			}
			fprintf(csv, ",%ld,%s,%d", r->errors, status, oversub(r));
			double kv[] = { rk.med, rk.min, rk.max, tm.med, tm.min, tm.max };
			for (size_t k = 0; k < sizeof(kv) / sizeof(kv[0]); k++) {
				if (kv[k] < 0)
					fprintf(csv, ",");
				else
					fprintf(csv, ",%.4f", kv[k]);
			}
			/* Free text last: it may hold commas. */
			fprintf(csv, ",\"%s\"\n", what);
		}
		if (js) {
			fprintf(js, "%s\n    {\"kind\": \"%s\", \"name\": \"%s\", \"mode\": \"%s\", \"threads\": %d, "
				"\"contender\": \"%s\", \"status\": \"%s\"", firstj ? "" : ",", wl ? "workload" : "op",
				ops[r->op].name, mode, r->nthreads, c->name, status);
			firstj = false;
			if (!r->na) {
				const char *nm[] = { "ns_med", "ns_min", "ns_max", "mops_med", "cycles_med",
						     "ratio_asm_med", "ratio_asm_min", "ratio_asm_max", "ratio_raw_med",
						     "fair_med", "fair_min", "fair_max", "ratio_c11_med", "ratio_c11_min",
						     "ratio_c11_max", "ratio_mutex_med", "ratio_mutex_min", "ratio_mutex_max" };
				double v[] = { ns.med, ns.min, ns.max, mo.med, cyc, ra.med, ra.min, ra.max, rr.med,
					       fa.med, fa.min, fa.max, rk.med, rk.min, rk.max, tm.med, tm.min, tm.max };

				for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
					if (v[k] >= 0 && isfinite(v[k]))
						fprintf(js, ", \"%s\": %.4f", nm[k], v[k]);
				if (is_lock(r->op)) {
					struct stat3 w50 = stats(r->wait[0], opt.rounds), w99 = stats(r->wait[1], opt.rounds),
						w999 = stats(r->wait[2], opt.rounds), wmax = stats(r->wait[3], opt.rounds);
					const char *wn[] = { "wait_p50_ns", "wait_p99_ns", "wait_p999_ns", "wait_p999_ns_max",
							     "wait_max_ns", "wait_max_ns_max" };
					double wv[] = { w50.med, w99.med, w999.med, w999.max, wmax.med, wmax.max };

					for (size_t k = 0; k < sizeof(wv) / sizeof(wv[0]); k++)
						if (wv[k] >= 0 && isfinite(wv[k]))
							fprintf(js, ", \"%s\": %.1f", wn[k], wv[k]);
				}
				fprintf(js, ", \"iters\": %ld, \"errors\": %ld, \"oversubscribed\": %s, \"ref\": ",
					r->iters, r->errors, oversub(r) ? "true" : "false");
				if (refc >= 0)
					json_str(js, con[refc]->name);
				else
					fprintf(js, "null");
				fprintf(js, ", \"what\": ");
				json_str(js, what);
			}
			fprintf(js, "}");
		}
		if (sm && !r->na)
			for (int k = 0; k < opt.rounds; k++)
				fprintf(sm, "%s,%s,%s,%d,%s,%d,%.4f,%.4f,%.4f\n", wl ? "workload" : "op",
					ops[r->op].name, mode, r->nthreads, c->name, k + 1, r->ns[k], r->mops[k],
					r->fair[k]);
#undef F
#undef E
	}
	if (js) {
		fprintf(js, "\n  ]");
		embed_up(js);
		fprintf(js, "\n}\n");
	}
	if (csv)
		fclose(csv);
	if (js)
		fclose(js);
	if (sm)
		fclose(sm);
}

static int run_bench(void)
{
	struct thr th[64];
	int tl[64];

	/* Count the samples, for the progress line. */
	for (int op = 0; op < KB_NOPS; op++) {
		if (!op_selected(op))
			continue;
		int have = 0;

		for (int c = 0; c < ncon; c++)
			have += !!con[c]->impl[op].run;
		if (ops[op].workload)
			total_samples += (long)have * thread_list(op, tl) * opt.rounds;
		else
			for (int m = 0; m < NMODES; m++)
				total_samples += mode_selected(m) ? (long)have * opt.rounds : 0;
	}
	t_start = now_ns();
	calibrate();
	for (int op = 0; op < KB_NOPS; op++) {
		if (!op_selected(op) || ops[op].workload)
			continue;
		for (int m = 0; m < NMODES; m++)
			if (mode_selected(m))
				bench_op(op, (enum mode)m, th);
	}
	for (int op = 0; op < KB_NOPS; op++) {
		if (!op_selected(op) || !ops[op].workload)
			continue;
		int n = thread_list(op, tl);

		for (int k = 0; k < n; k++)
			bench_wl(op, tl[k], th);
	}
	calibrate();
	if (opt.progress)
		fprintf(stderr, "%skatomic-bench: done in %.0fs\n", isatty(2) ? "\n" : "",
			(now_ns() - t_start) / 1e9);

	struct stat3 g = stats(ghz, nghz);

	printf("katomic-bench: %d CPU%s usable, %d rounds per cell (contenders alternate A B C ... in each round),\n"
	       "median of the rounds; ratios are medians of per-round ratios.  Core clock estimate %.2f GHz\n"
	       "(dependent-add chain, %d samples, %.2f..%.2f): cycles = ns x GHz.\n",
	       ncpu, ncpu > 1 ? "s" : "", opt.rounds, g.med, nghz, g.min, g.max);
	printf("Samples taken again because a thread was descheduled > 5%% of the time (shared machine): %ld;\n"
	       "still disturbed after 4 tries (least disturbed kept): %ld.\n", n_retried, n_disturbed);
	printf("contenders:\n");
	for (int c = 0; c < ncon; c++)
		printf("  %-10s %s (%s)\n", con[c]->name, con[c]->desc, con[c]->cc);
	for (int i = 0; i < NALL; i++)
		if (!all_contenders[i])
			printf("  %-10s not built (compiler or headers missing at build time)\n", all_names[i]);
	for (int m = 0; m < NMODES; m++) {
		char t[160];

		if (!mode_selected(m))
			continue;
		snprintf(t, sizeof(t), "== %s: %s, %d thread%s: ns/op per thread, median", mode_name[m],
			 mode_desc[m], m == SOLO ? 1 : cur_threads(), m == SOLO ? "" : "s");
		print_matrix(t, false, m, NS);
		snprintf(t, sizeof(t), "-- %s: ratio to katomic asm (c11-clang, std-clang: asm-clang; others: asm-gcc)",
			 mode_name[m]);
		print_matrix(t, false, m, RATIO_ASM);
		if (m == SOLO)
			print_matrix("-- solo: ratio to the raw instruction", false, m, RATIO_RAW);
	}
	print_matrix("== workloads: Mops/s (total over threads), median", true, 0, MOPS);
	print_matrix("-- workloads: ratio of ns/op to katomic asm (>1 = slower)", true, 0, RATIO_ASM);
	print_matrix("-- workloads: fairness, min/max per-thread ops (1 = fair; seqlock: readers)", true, 0, FAIR);
	print_locks();
	print_verdict();
	for (int i = 0; i < nrows; i++)
		if (rows[i].errors)
			printf("\n!: %s %s/%d reported %ld errors (torn seqlock reads or misordered items)\n",
			       con[rows[i].con]->name, ops[rows[i].op].name, rows[i].nthreads, rows[i].errors);
	for (int c = 0; c < ncon; c++)
		for (int op = 0; op < KB_NOPS; op++)
			if (op_selected(op) && con[c]->impl[op].what && (op == KB_smp_mb || ops[op].workload))
				printf("%s%s %s = %s\n", op == 0 && c == 0 ? "\n" : "", con[c]->name, ops[op].name,
				       con[c]->impl[op].what);
	write_outputs(g.med);
	return 0;
}

/* ------------------------------------------------------------ main */
static void usage(FILE *f)
{
	fprintf(f,
"usage: katomic-bench [options]\n"
"  --quick            a subset of ops and modes, fewer rounds, shorter samples\n"
"  --rounds N         rounds per measurement (default 9; --quick 5; at least 5 advised)\n"
"  --ms MS            per-op sample length target in ms (default 6; --quick 2)\n"
"  --wl-ms MS         workload sample length in ms (default 40; --quick 12)\n"
"  --threads N        threads for the contended per-op modes (default: usable CPUs)\n"
"  --max-threads N    workload sweep 1..N (default: 2 x usable CPUs)\n"
"  --wl-threads N     workloads at N threads only (not the 2-thread spsc)\n"
"  --filter PATS      ops/workloads to run: comma-separated names, globs or substrings\n"
"  --contenders PATS  contenders to run (default: all built; raw and asm are always kept)\n"
"  --modes LIST       solo,shared,own,false (default: all; --quick: solo,shared)\n"
"  --csv FILE  --json FILE  --samples FILE   write the summary, JSON, every sample\n"
"  --up-json FILE     copy up-patch --json's object into the JSON as \"up\"\n"
"  --no-progress      no progress line on stderr\n"
"  --list             list contenders and ops (n/a marked) and exit\n"
"  --check            run every kernel at a tiny size and check final values (TAP)\n");
}

static void need(int i, int argc, char **argv)
{
	if (i + 1 >= argc) {
		fprintf(stderr, "katomic-bench: %s needs a value\n", argv[i]);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	cpu_set_t set;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--quick")) opt.quick = true;
		else if (!strcmp(a, "--check")) opt.check = true;
		else if (!strcmp(a, "--list")) opt.list = true;
		else if (!strcmp(a, "--no-progress")) opt.progress = false;
		else if (!strcmp(a, "--rounds")) { need(i, argc, argv); opt.rounds = atoi(argv[++i]); }
		else if (!strcmp(a, "--ms")) { need(i, argc, argv); opt.op_ms = atof(argv[++i]); }
		else if (!strcmp(a, "--wl-ms")) { need(i, argc, argv); opt.wl_ms = atof(argv[++i]); }
		else if (!strcmp(a, "--threads")) { need(i, argc, argv); opt.threads = atoi(argv[++i]); }
		else if (!strcmp(a, "--max-threads")) { need(i, argc, argv); opt.maxthreads = atoi(argv[++i]); }
		else if (!strcmp(a, "--wl-threads")) { need(i, argc, argv); opt.wl_threads = atoi(argv[++i]); }
		else if (!strcmp(a, "--filter")) { need(i, argc, argv); opt.filter = argv[++i]; }
		else if (!strcmp(a, "--contenders")) { need(i, argc, argv); opt.contenders = argv[++i]; }
		else if (!strcmp(a, "--modes")) { need(i, argc, argv); opt.modes = argv[++i]; }
		else if (!strcmp(a, "--csv")) { need(i, argc, argv); opt.csv = argv[++i]; }
		else if (!strcmp(a, "--json")) { need(i, argc, argv); opt.json = argv[++i]; }
		else if (!strcmp(a, "--samples")) { need(i, argc, argv); opt.samples = argv[++i]; }
		else if (!strcmp(a, "--up-json")) { need(i, argc, argv); opt.up_json = argv[++i]; }
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
		else {
			fprintf(stderr, "katomic-bench: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!opt.rounds)
		opt.rounds = opt.quick ? 5 : 9;
	if (!opt.op_ms)
		opt.op_ms = opt.quick ? 2 : 6;
	if (!opt.wl_ms)
		opt.wl_ms = opt.quick ? 12 : 40;
	if (opt.rounds < 1 || opt.rounds > 256 || opt.op_ms <= 0 || opt.wl_ms <= 0 || opt.threads < 0 ||
	    opt.threads > 32 || opt.maxthreads < 0 || opt.maxthreads > 32 || opt.wl_threads < 0 || opt.wl_threads > 32) {
		fprintf(stderr, "katomic-bench: bad --rounds/--ms/--wl-ms/--threads/--max-threads/--wl-threads\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("katomic-bench: sched_getaffinity");
		return 1;
	}
	for (int c = 0; c < CPU_SETSIZE && ncpu < (int)(sizeof(cpus) / sizeof(cpus[0])); c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpu++] = c;
	if (!opt.maxthreads)
		opt.maxthreads = 2 * ncpu > 32 ? 32 : 2 * ncpu;
	if (opt.wl_threads > opt.maxthreads)
		opt.maxthreads = opt.wl_threads;	/* the cells are sized by it */
	if (opt.threads > opt.maxthreads)
		opt.maxthreads = opt.threads;
	if (opt.maxthreads < 3)
		opt.maxthreads = 3;	/* --check runs CPUs + 1 threads */
	for (int i = 0; i < NALL; i++) {
		const struct kb_contender *c = all_contenders[i];

		if (!c)
			continue;
		if (opt.contenders && !match_list(opt.contenders, cname(c)) && strcmp(c->name, "raw") &&
		    strncmp(c->name, "asm-", 4))
			continue;
		con[ncon++] = c;
	}
	cells = xmalloc_aligned((size_t)(opt.maxthreads + 2) * KB_LINE);
	wait_buf = xmalloc_aligned((size_t)WAIT_THREADS * WAIT_CAP * sizeof(unsigned));
	wait_calibrate();
	shared_mem = xmalloc_aligned(KB_SHARED_SIZE);
	if (opt.list) {
		for (int c = 0; c < ncon; c++)
			printf("%-10s %s (%s)\n", con[c]->name, con[c]->desc, con[c]->cc);
		for (int i = 0; i < NALL; i++)
			if (!all_contenders[i])
				printf("%-10s not built\n", all_names[i]);
		printf("\n%-20s", "op");
		for (int c = 0; c < ncon; c++)
			printf(" %9s", con[c]->name);
		putchar('\n');
		for (int op = 0; op < KB_NOPS; op++) {
			printf("%-20s", ops[op].name);
			for (int c = 0; c < ncon; c++)
				printf(" %9s", con[c]->impl[op].run ? "yes" : "n/a");
			putchar('\n');
		}
		return 0;
	}
	if (opt.check)
		return run_check();
	return run_bench();
}
