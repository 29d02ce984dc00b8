/* SPDX-License-Identifier: MIT */
/*
 * spinlock_t under contention: mutual exclusion of plain (non-atomic)
 * accesses with 1 to 8 threads on however many CPUs there are (the lock
 * must not burn the CPU a preempted holder needs, or 8 threads on 2 CPUs
 * never finish), with spin_lock, with a spin_trylock loop and with both at
 * once; spin_is_locked while held; DEFINE_SPINLOCK and spin_lock_init; the
 * contended path's events (queueing, sleeping in futex, the head's naps and
 * HANDOFF) each shown to happen, with the count still exact; and
 * spin_unlock_wait.  Under ThreadSanitizer the plain accesses in the
 * critical sections are also checked for races: the lock's acquire and
 * release must order them.
 */

/* Count the slow path's events (spinlock-queue.h's hook for tests). */
#define SPIN_EVENTS(X) X(steal) X(queue) X(hot) X(sleep) X(prewake) X(nap_sleep) X(nap_yield) X(handoff) X(overrun) \
	X(turn) X(turn_over) X(turn_idle) X(next_in_line)
#define SPIN_EVENT_COUNTER(what) static long spin_ev_##what;
SPIN_EVENTS(SPIN_EVENT_COUNTER)
#define __KA_SPIN_STAT(what) ((void)__atomic_fetch_add(&spin_ev_##what, 1, __ATOMIC_RELAXED))

#include <katomic/katomic.h>
#include "tap.h"
#include "stress.h"

static void spin_events(long *ev)
{
	int k = 0;
#define SPIN_EVENT_READ(what) ev[k++] = __atomic_load_n(&spin_ev_##what, __ATOMIC_RELAXED);
	SPIN_EVENTS(SPIN_EVENT_READ)
}
enum { EV_STEAL, EV_QUEUE, EV_HOT, EV_SLEEP, EV_PREWAKE, EV_NAP_SLEEP, EV_NAP_YIELD, EV_HANDOFF, EV_OVERRUN, EV_TURN,
       EV_TURN_OVER, EV_TURN_IDLE, EV_NEXT_IN_LINE, EV_N };

static DEFINE_SPINLOCK(static_lock);

/* What the lock protects: plain data, written in several steps. */
static struct {
	long count;		/* incremented by a read ... write */
	int owner;		/* who is inside */
	long sum;		/* sum of the owners' indices + 1 */
} prot;

struct lock_ctx {
	spinlock_t *lock;
	long n;		/* at most this many per thread */
	double secs;	/* and for at most this long */
	int trylock;	/* 1: every thread a trylock loop; 2: odd threads only */
	long hold_every;	/* if nonzero: every hold_every-th time, hold the lock ... */
	long hold_us;	/* ... this long (the waiters queue and sleep) */
};

static long bad_owner[STRESS_MAX_THREADS], not_locked[STRESS_MAX_THREADS];
static long try_fail[STRESS_MAX_THREADS], done[STRESS_MAX_THREADS];

static void lock_worker(int idx, void *arg)
{
	const struct lock_ctx *c = arg;
	long i, bad = 0, unl = 0, fails = 0;
	struct stress_clock clk;

	stress_clock_start(&clk, c->secs);
	for (i = 0; i < c->n && !stress_clock_expired(&clk); i++) {
		if (c->trylock == 1 || (c->trylock == 2 && idx % 2)) {
			unsigned int spins = 0;

			while (!spin_trylock(c->lock)) {
				fails++;
				stress_relax(&spins);
			}
		} else {
			spin_lock(c->lock);
		}
		/* critical section: plain accesses, a window between read and write */
		long v = prot.count;

		prot.owner = idx;
		if (!spin_is_locked(c->lock))
			unl++;
		prot.sum += idx + 1;
		if (c->hold_every && i % c->hold_every == 0) {
			struct timespec ts = { 0, c->hold_us * 1000 };

			nanosleep(&ts, NULL);	/* preempted while holding it */
		}
		if (prot.owner != idx)
			bad++;
		prot.count = v + 1;
		spin_unlock(c->lock);
	}
	bad_owner[idx] = bad;
	not_locked[idx] = unl;
	try_fail[idx] = fails;
	done[idx] = i;
}

static void run_lock(spinlock_t *lock, const char *what, int nthreads, struct lock_ctx c)
{
	long bad = 0, unl = 0, fails = 0, want_sum = 0, total = 0;
	double t;
	int th;

	memset(&prot, 0, sizeof(prot));
	t = stress_run(nthreads, lock_worker, &c);
	for (th = 0; th < nthreads; th++) {
		bad += bad_owner[th];
		unl += not_locked[th];
		fails += try_fail[th];
		want_sum += (th + 1) * done[th];
		total += done[th];
	}
	ok(prot.count == total && prot.sum == want_sum,
	   "%s %s, %d threads: plain counter %ld (expected %ld), sum %ld (expected %ld) [%.3f s, %.2f us each]",
	   what, c.trylock == 1 ? "spin_trylock loop" : c.trylock ? "spin_lock and spin_trylock loops" :
	   "spin_lock", nthreads, prot.count,
	   total, prot.sum, want_sum, t, t * 1e6 / (double)(total ? total : 1));
	ok(bad == 0, "%s, %d threads: nobody else inside the critical section (%ld intrusions)",
	   what, nthreads, bad);
	ok(unl == 0, "%s, %d threads: spin_is_locked() true while held (%ld times false)",
	   what, nthreads, unl);
	ok(!spin_is_locked(lock), "%s, %d threads: unlocked at the end", what, nthreads);
	if (c.trylock)
		diag("%s, %d threads: %ld failed spin_trylock() calls", what, nthreads, fails);
}

static void test_lock(spinlock_t *lock, const char *what, int nthreads, long n, int trylock)
{
	struct lock_ctx c = { lock, n, stress_iters(1, 3) * 0.1, trylock, 0, 0 };

	run_lock(lock, what, nthreads, c);
}

/*
 * The contended path, event by event: holders that are descheduled while
 * holding the lock (a nanosleep inside the critical section) make the
 * waiters queue, sleep in futex() and be woken in turn, make the queue head
 * nap and then claim the lock (HANDOFF); the count must stay exact.
 */
static void test_sleepers(spinlock_t *lock, int nthreads)
{
	struct lock_ctx c = { lock, stress_iters(4000, 400), 60, 0, 16, 300 };
	long ev0[EV_N], ev1[EV_N];

	spin_events(ev0);
	run_lock(lock, "holder preempted", nthreads, c);
	spin_events(ev1);
	diag("%d threads: %ld queued (%ld hot), %ld slept in futex (%ld woken early), naps %ld asleep "
	     "%ld yielded, %ld HANDOFF, %ld taken by a running thread, %ld queued after running past the queue, "
	     "%ld turns (%ld ended, %ld given up as seldom used)",
	     nthreads, ev1[EV_QUEUE] - ev0[EV_QUEUE],
	     ev1[EV_HOT] - ev0[EV_HOT], ev1[EV_SLEEP] - ev0[EV_SLEEP], ev1[EV_PREWAKE] - ev0[EV_PREWAKE],
	     ev1[EV_NAP_SLEEP] - ev0[EV_NAP_SLEEP], ev1[EV_NAP_YIELD] - ev0[EV_NAP_YIELD],
	     ev1[EV_HANDOFF] - ev0[EV_HANDOFF], ev1[EV_STEAL] - ev0[EV_STEAL], ev1[EV_OVERRUN] - ev0[EV_OVERRUN],
	     ev1[EV_TURN] - ev0[EV_TURN], ev1[EV_TURN_OVER] - ev0[EV_TURN_OVER], ev1[EV_TURN_IDLE] - ev0[EV_TURN_IDLE]);
#ifdef __linux__
	ok(ev1[EV_SLEEP] > ev0[EV_SLEEP], "%d threads: queued waiters slept in futex() and were woken in turn",
	   nthreads);
#endif
	ok(ev1[EV_NAP_SLEEP] + ev1[EV_NAP_YIELD] > ev0[EV_NAP_SLEEP] + ev0[EV_NAP_YIELD],
	   "%d threads: the queue head napped while the holder was off the CPU", nthreads);
	ok(ev1[EV_HANDOFF] > ev0[EV_HANDOFF], "%d threads: the queue head claimed the lock (HANDOFF)", nthreads);
	/*
	 * A head that waited out a sleeping holder, with others queued behind
	 * it, takes the lock as a turn; every turn ends (the next head's
	 * HANDOFF, its length, or the owner using it seldom: threads finish
	 * while they own a turn, and the others must still get the lock).
	 */
	ok(ev1[EV_TURN] > ev0[EV_TURN], "%d threads: a head that had waited took the lock as a turn", nthreads);
	ok(ev1[EV_TURN_OVER] + ev1[EV_TURN_IDLE] > ev0[EV_TURN_OVER] + ev0[EV_TURN_IDLE],
	   "%d threads: turns ended and their owners queued again or gave the turn up", nthreads);
	ok(ev1[EV_OVERRUN] > ev0[EV_OVERRUN],
	   "%d threads: a thread that ran past the queue for its turn's length queued at once", nthreads);
}

/*
 * The head tells its successor early that it is next in line (and wakes
 * it if it sleeps), outside turns: thread 0 takes the lock uncontended (no
 * turn) and holds it 50 ms; thread 1 queues and becomes the head; thread 2
 * queues behind it 10 ms later.  During turns (the test above) the head
 * leaves its successor asleep.
 */
static spinlock_t line_lock;
static int line_state;

static void next_in_line_worker(int idx, void *arg)
{
	unsigned int spins = 0;

	(void)arg;
	if (idx == 0) {
		spin_lock(&line_lock);
		__atomic_store_n(&line_state, 1, __ATOMIC_RELEASE);
		usleep(50000);
		spin_unlock(&line_lock);
		return;
	}
	while (__atomic_load_n(&line_state, __ATOMIC_ACQUIRE) != 1)
		stress_relax(&spins);
	if (idx == 2)
		usleep(10000);
	spin_lock(&line_lock);
	spin_unlock(&line_lock);
}

static void test_next_in_line(void)
{
	long ev0[EV_N], ev1[EV_N];

	spin_lock_init(&line_lock);
	spin_events(ev0);
	stress_run(3, next_in_line_worker, NULL);
	spin_events(ev1);
	diag("next in line: %ld marked early, %ld of them woken from futex()",
	     ev1[EV_NEXT_IN_LINE] - ev0[EV_NEXT_IN_LINE], ev1[EV_PREWAKE] - ev0[EV_PREWAKE]);
#ifdef __linux__
	/* Woken from futex() only if it fell asleep before the head saw it link: a race. */
	ok(ev1[EV_NEXT_IN_LINE] > ev0[EV_NEXT_IN_LINE],
	   "a new head told its successor early that it is next in line (it stays awake)");
#endif
	ok(!spin_is_locked(&line_lock), "next in line: unlocked at the end");
}

/* spin_unlock_wait returns once the lock is free, and sees what the holder wrote. */
static spinlock_t wait_lock;
static int wait_data, wait_state;

static void unlock_wait_worker(int idx, void *arg)
{
	unsigned int spins = 0;
	long *wrong = arg;

	if (idx == 0) {
		spin_lock(&wait_lock);
		__atomic_store_n(&wait_state, 1, __ATOMIC_RELEASE);
		usleep(20000);
		wait_data = 42;		/* plain: ordered by the unlock and spin_unlock_wait's acquire */
		spin_unlock(&wait_lock);
		return;
	}
	while (__atomic_load_n(&wait_state, __ATOMIC_ACQUIRE) != 1)
		stress_relax(&spins);
	ka_spin_unlock_wait(&wait_lock);
	if (wait_data != 42)
		(*wrong)++;
}

/* spin_trylock must fail while another thread holds the lock. */
static spinlock_t held_lock;
static int holder_state;	/* 1: holding, 2: may release (atomic builtins) */

static void holder_worker(int idx, void *arg)
{
	unsigned int spins = 0;
	long *fails = arg;
	int i;

	if (idx == 0) {
		spin_lock(&held_lock);
		__atomic_store_n(&holder_state, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&holder_state, __ATOMIC_ACQUIRE) != 2)
			stress_relax(&spins);
		spin_unlock(&held_lock);
		return;
	}
	while (__atomic_load_n(&holder_state, __ATOMIC_ACQUIRE) != 1)
		stress_relax(&spins);
	for (i = 0; i < 1000; i++)
		if (spin_trylock(&held_lock)) {
			(*fails)++;
			spin_unlock(&held_lock);
		}
	if (!spin_is_locked(&held_lock))
		(*fails)++;
	__atomic_store_n(&holder_state, 2, __ATOMIC_RELEASE);
}

int main(void)
{
	static const int nthreads[] = { 2, 4, 8 };
	int nt;
	/*
	 * Each run lasts 0.1 s (0.3 s under TSan) or n acquisitions per thread.
	 * With more threads than CPUs a FIFO ticket lock hands over to waiters
	 * that are not running, so an acquisition can cost a trip through the
	 * scheduler (some 20 us with 8 threads on 2 CPUs, against 10 ns
	 * uncontended): a fixed count would take minutes.
	 */
	long n = stress_iters(1000000, 100000);
	double t0 = stress_now();
	spinlock_t *heap_lock;
	long wrong = 0;
	unsigned k;

	stress_watchdog(STRESS_TSAN ? 300 : 60);

	/* DEFINE_SPINLOCK: unlocked, usable at once */
	ok(!spin_is_locked(&static_lock), "DEFINE_SPINLOCK: starts unlocked");
	ok(spin_trylock(&static_lock) && spin_is_locked(&static_lock) && !spin_trylock(&static_lock),
	   "spin_trylock: takes a free lock once, then fails");
	spin_unlock(&static_lock);
	ok(!spin_is_locked(&static_lock), "spin_unlock: unlocked again");

	/* spin_lock_init on garbage (and on a lock left locked) */
	heap_lock = malloc(sizeof(*heap_lock));
	memset(heap_lock, 0xa5, sizeof(*heap_lock));
	spin_lock_init(heap_lock);
	ok(!spin_is_locked(heap_lock), "spin_lock_init: initialises memory full of garbage to unlocked");
	spin_lock(heap_lock);
	spin_lock_init(heap_lock);
	ok(!spin_is_locked(heap_lock) && spin_trylock(heap_lock),
	   "spin_lock_init: re-initialises a held lock to unlocked");
	spin_unlock(heap_lock);

	/* 70000 > 65536 lock/unlock pairs, single thread (no counter in the word may wrap) */
	for (k = 0; k < 70000; k++) {
		spin_lock(&static_lock);
		if (!spin_is_locked(&static_lock))
			wrong++;
		spin_unlock(&static_lock);
		if (spin_is_locked(&static_lock))
			wrong++;
	}
	ok(wrong == 0 && spin_trylock(&static_lock),
	   "70000 lock/unlock pairs: spin_is_locked right every time (%ld wrong)", wrong);
	spin_unlock(&static_lock);

	for (nt = 1; nt <= 8; nt++)
		test_lock(&static_lock, "DEFINE_SPINLOCK", nt, n, 0);
	for (k = 0; k < 3; k++) {
		test_lock(heap_lock, "spin_lock_init", nthreads[k], n, 0);
		test_lock(&static_lock, "DEFINE_SPINLOCK", nthreads[k], n, 1);
		test_lock(&static_lock, "DEFINE_SPINLOCK", nthreads[k], n, 2);
	}
	test_sleepers(heap_lock, 4);
	test_sleepers(heap_lock, 8);
	test_next_in_line();

	{
		long wrong = 0;

		stress_run(2, unlock_wait_worker, &wrong);
		ok(wrong == 0 && !spin_is_locked(&wait_lock),
		   "spin_unlock_wait: returns after the unlock and sees the holder's writes");
	}

	{
		long fails = 0;

		spin_lock_init(&held_lock);
		stress_run(2, holder_worker, &fails);
		ok(fails == 0, "spin_trylock fails and spin_is_locked is true while another thread holds the lock (%ld wrong)",
		   fails);
	}

	free(heap_lock);
	diag("%.2f s in all%s", stress_now() - t0,
	     STRESS_TSAN ? " (TSan)" : "");
	return done_testing();
}
