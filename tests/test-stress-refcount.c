/* SPDX-License-Identifier: MIT */
/*
 * refcount_t races, in rounds (each round a fresh object, the threads
 * released together):
 *  1. get/put: every thread holds a reference and does refcount_inc /
 *     refcount_dec_and_test pairs while the owner's reference is dropped at
 *     some point; whoever reaches zero "frees".  Exactly one free per round,
 *     after every other thread's last write to the object (checked, and
 *     under TSan the plain accesses prove the release/acquire ordering).
 *  2. lookups by refcount_inc_not_zero racing with the final put: once a
 *     thread knows the count reached zero, inc_not_zero must fail; one free.
 *  3. refcount_dec_and_lock: lookups under a spinlock take references to the
 *     object in a table; the last put removes it with the lock held.
 * No count may saturate: the final counts are exact (0), and natively no
 * refcount warning may reach stderr (captured, then shown to be capturable).
 */
#include <katomic/katomic.h>
#include "tap.h"
#include "stress.h"

struct obj {
	refcount_t ref;
	long data[STRESS_MAX_THREADS];	/* plain; slot i written by thread i */
	long payload;			/* plain; written at setup and by the freer */
	int dead;			/* set (atomic builtins) when freed */
};

static struct obj obj;
static struct stress_barrier bar;
static int nthreads, stop;
static long rounds_max, iters;
static double budget;

/* per round */
static int frees;
static long early;		/* freer saw a slot not final: freed too early */
/* accumulated over the rounds (atomic builtins, or thread 0 only) */
static long rounds_done, bad_rounds, resurrected, lookups_ok, lookups_failed;
static long zero_seen, unlocked_after, wrong_table, racy;

static void count(long *x, long n) { __atomic_fetch_add(x, n, __ATOMIC_RELAXED); }

/* The "free": check the object is no longer used, poison it. */
static void free_obj(struct obj *o, long want_each)
{
	int i;

	__atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nthreads && want_each >= 0; i++)
		if (o->data[i] != want_each)
			early++;
	for (i = 0; i < nthreads; i++)
		o->data[i] = -1;
	o->payload = -1;
	__atomic_store_n(&o->dead, 1, __ATOMIC_RELEASE);
}

static void setup(int refs)
{
	memset(obj.data, 0, sizeof(obj.data));
	obj.payload = 42;
	obj.dead = 0;
	refcount_set(&obj.ref, refs);
	frees = 0;
	early = 0;
}

/* Thread 0, between rounds: judge the round, prepare the next. */
static int round_end(double end, int refs, int extra_ok)
{
	if (rounds_done) {
		if (frees != 1 || early || refcount_read(&obj.ref) != 0 || !extra_ok)
			bad_rounds++;
	}
	stop = rounds_done >= rounds_max || stress_now() > end;
	if (!stop)
		setup(refs);
	rounds_done++;
	return stop;
}

/* -------------------------------------------------------- 1. get/put */

static void getput_worker(int idx, void *arg)
{
	struct stress_clock clk;
	long r, i;

	(void)arg;
	stress_clock_start(&clk, budget);
	for (r = 0;; r++) {
		if (idx == 0)
			round_end(clk.end, nthreads + 1, 1);
		stress_barrier_wait(&bar);	/* round start; sees stop */
		if (stop)
			break;
		for (i = 0; i < iters; i++) {
			refcount_inc(&obj.ref);
			obj.data[idx]++;
			if (refcount_dec_and_test(&obj.ref))
				free_obj(&obj, -1);	/* never: we hold a reference */
			/* the owner's reference goes at a different point each round */
			if (idx == r % nthreads && i == (r * 7) % iters && refcount_dec_and_test(&obj.ref))
				free_obj(&obj, -1);
		}
		if (refcount_dec_and_test(&obj.ref))	/* our own */
			free_obj(&obj, iters);
		stress_barrier_wait(&bar);	/* round end */
	}
}

/* -------------------------------- 2. inc_not_zero vs the final put */

static void lookup_worker(int idx, void *arg)
{
	struct stress_clock clk;
	unsigned int rnd = (unsigned int)idx * 2654435761u + 1;
	long i;

	(void)arg;
	stress_clock_start(&clk, budget);
	for (;;) {
		if (idx == 0)
			round_end(clk.end, 1, 1);
		stress_barrier_wait(&bar);
		if (stop)
			break;
		if (idx == 0) {
			/* the owner: wait a while (about as long as the lookups take), then the final put */
			volatile long delay = 0;
			long spins = stress_rand(&rnd) % (unsigned)(100 * iters);

			for (i = 0; i < spins; i++)
				delay++;
			if (refcount_dec_and_test(&obj.ref))
				free_obj(&obj, -1);
		} else {
			long ok_n = 0, fail_n = 0, after = 0;

			for (i = 0; i < iters && after < 20; i++) {
				int dead = __atomic_load_n(&obj.dead, __ATOMIC_ACQUIRE);

				if (!refcount_inc_not_zero(&obj.ref)) {
					fail_n++;
					after++;	/* a few more tries after the first failure */
					continue;
				}
				ok_n++;
				if (fail_n || dead)	/* zero was reached: it must not succeed */
					count(&resurrected, 1);
				if (obj.payload != 42)	/* plain read of the live object */
					count(&resurrected, 1);
				if (refcount_dec_and_test(&obj.ref))
					free_obj(&obj, -1);
			}
			count(&lookups_ok, ok_n);
			count(&lookups_failed, fail_n);
			if (ok_n && fail_n)
				count(&racy, 1);
		}
		stress_barrier_wait(&bar);
	}
}

/* --------------------------------------------- 3. refcount_dec_and_lock */

static DEFINE_SPINLOCK(table_lock);
static struct obj *table;	/* plain, under table_lock */

static void put_locked(struct obj *o)
{
	if (refcount_dec_and_lock(&o->ref, &table_lock)) {
		if (!spin_is_locked(&table_lock))
			count(&unlocked_after, 1);
		if (table != o)
			count(&wrong_table, 1);
		table = NULL;
		spin_unlock(&table_lock);
		free_obj(o, -1);
	}
}

static void table_worker(int idx, void *arg)
{
	struct stress_clock clk;
	long i;

	(void)arg;
	stress_clock_start(&clk, budget);
	for (;;) {
		if (idx == 0) {
			int was_null = table == NULL;

			if (!round_end(clk.end, nthreads, was_null))
				table = &obj;
		}
		stress_barrier_wait(&bar);
		if (stop)
			break;
		for (i = 0; i < iters; i++) {
			struct obj *p;

			/* our own reference goes at a different point in each thread */
			if (i == iters * idx / nthreads)
				put_locked(&obj);
			spin_lock(&table_lock);
			p = table;
			if (p) {
				if (refcount_read(&p->ref) == 0)
					count(&zero_seen, 1);
				refcount_inc(&p->ref);
			}
			spin_unlock(&table_lock);
			if (p) {
				if (p->payload != 42)
					count(&zero_seen, 1);
				put_locked(p);
			}
		}
		stress_barrier_wait(&bar);
	}
}

/* ------------------------------------------------------------ driver */

static void reset(int nt, long max_rounds, long n)
{
	nthreads = nt;
	rounds_max = max_rounds;
	iters = n;
	stop = 0;
	rounds_done = bad_rounds = resurrected = lookups_ok = lookups_failed = 0;
	zero_seen = unlocked_after = wrong_table = racy = 0;
	stress_barrier_init(&bar, nt);
}

int main(void)
{
	static const int nts[] = { 2, 4, 8 };
	long rounds = stress_iters(2000, 1000);
	double t0 = stress_now(), t;
	FILE *err = NULL;
	int saved = -1;
	unsigned k;

	stress_watchdog(STRESS_TSAN ? 300 : 60);
	budget = STRESS_TSAN ? 0.6 : 0.25;	/* seconds per run, at most */

	/*
	 * Natively, stderr goes to a file while the races run: a saturation
	 * warning there is a failure.  Not under TSan, whose reports must be seen.
	 */
	if (!STRESS_TSAN && (err = tmpfile()) != NULL) {
		fflush(stderr);
		saved = dup(2);
		dup2(fileno(err), 2);
	}

	for (k = 0; k < 2; k++) {
		reset(nts[k], rounds, 64);
		t = stress_run(nts[k], getput_worker, NULL);
		ok(bad_rounds == 0 && rounds_done > 1,
		   "get/put, %d threads, %ld rounds x %ld inc/dec_and_test pairs: one free per round, "
		   "after everyone's last access, count 0 (%ld bad rounds) [%.2f s]",
		   nts[k], rounds_done - 1, iters, bad_rounds, t);
	}

	for (k = 0; k < 2; k++) {
		reset(nts[k], rounds, 64);
		t = stress_run(nts[k], lookup_worker, NULL);
		ok(bad_rounds == 0 && resurrected == 0 && rounds_done > 1,
		   "refcount_inc_not_zero vs final put, %d threads, %ld rounds: one free per round, "
		   "no success after zero (%ld bad rounds, %ld resurrections) [%.2f s]",
		   nts[k], rounds_done - 1, bad_rounds, resurrected, t);
		diag("  lookups: %ld succeeded, %ld failed; %ld lookup threads saw both in one round",
		     lookups_ok, lookups_failed, racy);
	}

	for (k = 0; k < 3; k++) {
		reset(nts[k], rounds, 32);
		t = stress_run(nts[k], table_worker, NULL);
		ok(bad_rounds == 0 && zero_seen == 0 && unlocked_after == 0 && wrong_table == 0 &&
		   rounds_done > 1,
		   "refcount_dec_and_lock, %d threads, %ld rounds: one free per round with the lock held, "
		   "table emptied, never a zero count in the table (%ld bad rounds, %ld zero, %ld unlocked, "
		   "%ld wrong) [%.2f s]", nts[k], rounds_done - 1, bad_rounds, zero_seen,
		   unlocked_after, wrong_table, t);
	}

	if (err) {
		refcount_t r = REFCOUNT_INIT(0);
		long size;

		fflush(stderr);
		size = ftell(err);
		ok(size == 0, "no refcount warning on stderr during the races (%ld bytes)", size);
		/* and a warning would have been seen: increment from zero saturates */
		refcount_inc(&r);
		fflush(stderr);
		ok(ftell(err) > size && refcount_read(&r) == (unsigned int)REFCOUNT_SATURATED,
		   "control: refcount_inc from 0 saturates and its warning is captured");
		if (ftell(err) > 0) {
			char line[256];

			rewind(err);
			while (fgets(line, sizeof(line), err)) {
				line[strcspn(line, "\n")] = 0;
				diag("stderr: %s", line);
			}
		}
		dup2(saved, 2);
		close(saved);
		fclose(err);
	} else {
		diag("stderr not captured%s", STRESS_TSAN ? " under TSan" : "");
	}

	diag("%.2f s in all%s", stress_now() - t0, STRESS_TSAN ? " (TSan)" : "");
	return done_testing();
}
