/* SPDX-License-Identifier: MIT */
/*
 * spinlock_t's contended path: who may take the lock, the queue of waiters,
 * and how a waiter waits.  Included by spinlock.h; out of line (one weak copy
 * per process) so that spin_lock stays a cmpxchg and a call.
 *
 * A contended spin_lock():
 *  1. spins a little on the lock word and takes the lock if it comes free
 *     (the kernel's pending waiter, without the pending bit), queued waiters
 *     or not: a thread that is running takes a free lock; once per turn of
 *     __KA_SPIN_RUN, meeting waiters queued, it yields its CPU first, so
 *     that a woken waiter sharing it runs (fairness);
 *  2. otherwise claims a node from the pool and appends it to the queue (an
 *     xchg of the tail, MCS style).  A waiter that is not the head spins on
 *     its own node's cache line for a while, then sleeps in futex() on it;
 *     once it is next in line (woken early by the head, below) it stays
 *     awake, polling and yielding, so it is running when its turn comes;
 *  3. the head polls the lock word and takes the lock when it is free.  A
 *     running thread may take it first (it never sleeps, so letting it in
 *     keeps the lock busy).  Nobody wakes the head (spin_unlock is a store),
 *     so between polls it naps (a yield, or a short timed sleep); after
 *     __KA_SPIN_NAPS naps, or sooner once it has waited __KA_SPIN_HEAD_WAIT
 *     (a yield to a thread that keeps the lock busy on this CPU can last a
 *     whole time slice), it sets HANDOFF and the lock is its next.  On
 *     becoming the head it wakes its successor, so that the wake-up's
 *     latency overlaps its own wait instead of adding to the queue's;
 *  4. with the lock taken, the head makes its successor the new head (an
 *     xchg of the node's state; FUTEX_WAKE only if the successor sleeps) and
 *     returns its node to the pool.
 * spin_unlock() is a store and never wakes anyone: the head is always
 * awake, and it is the head, not the unlocker, that wakes the next waiter.
 * That is what keeps the uncontended unlock free of an RMW.
 */
#ifndef KATOMIC_SPINLOCK_QUEUE_H
#define KATOMIC_SPINLOCK_QUEUE_H

#include "spinlock.h"
#include "cmpxchg.h"

#if defined(__linux__)
#include <sys/syscall.h>
#include <time.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Polls of the lock word before queueing (step 1). */
#define __KA_SPIN_STEAL		64
/* Polls of its own node before a queued waiter sleeps (step 2). */
#define __KA_SPIN_QUEUED	128
/* The head: polls of the lock word between naps, naps before HANDOFF (step 3). */
#define __KA_SPIN_HEAD		128
#define __KA_SPIN_NAPS		4
#define __KA_SPIN_NAP_NS	20000
/*
 * Fairness: a thread that takes the lock past queued waiters yields its CPU
 * once every __KA_SPIN_RUN (step 1 below).
 */
/* Contention heuristic: this many slow paths, each within the window of the last. */
#define __KA_SPIN_HOT		8
/* A sched_yield() that took longer than this ran another thread. */
#if defined(__x86_64__) || defined(__i386__)
#define __KA_SPIN_WINDOW	(1ULL << 16)	/* TSC ticks: 15-60 us */
#define __KA_SPIN_YIELD_SWITCHED (1ULL << 13)	/* 2-8 us */
#define __KA_SPIN_HEAD_WAIT	(1ULL << 18)	/* 50-250 us */
#define __KA_SPIN_RUN		(1ULL << 19)	/* 100-500 us */
#define __KA_SPIN_TURN_GAP	(1ULL << 9)	/* 100-250 ns */
#else
#define __KA_SPIN_WINDOW	30000ULL	/* ns */
#define __KA_SPIN_YIELD_SWITCHED 4000ULL
#define __KA_SPIN_HEAD_WAIT	150000ULL
#define __KA_SPIN_RUN		300000ULL
#define __KA_SPIN_TURN_GAP	200ULL
#endif

/*
 * The node pool: one node per waiting thread, claimed for the length of one
 * wait, so its size bounds the waiters, not the threads.  A waiter that finds
 * the pool full waits without a node (spins and yields, never sleeps).
 * The symbols are weak and exported, so an executable and its shared
 * libraries share one pool: the tail of a lock names a node by its index.
 * _v1 in the names: a layout change must not meet an old copy.
 */
#define __KA_SPIN_NODES		4096

/* WAIT: polls, may sleep; SLEEP: in futex(); WOKEN: next in line, awake; HEAD */
enum { __KA_QN_WAIT, __KA_QN_SLEEP, __KA_QN_HEAD, __KA_QN_WOKEN };

struct __ka_spin_node {
	int state;		/* __KA_QN_*; the futex word of a sleeping waiter */
	unsigned short next;	/* the successor's index + 1; 0 = none (yet) */
	unsigned char busy;	/* claimed by a waiter */
} __attribute__((__aligned__(128)));	/* own line pair: the adjacent-line prefetcher */

#ifndef __KA_SPIN_STAT
#define __KA_SPIN_STAT(what) ((void)0)	/* a test's event counter */
#endif

/*
 * The pool, defined (asm, a COMDAT group: one per module) by the contended
 * path's body, so that only a program that locks has it.  Default
 * visibility: an executable and its shared libraries share one.
 */
extern struct __ka_spin_node __ka_spin_nodes_v1[__KA_SPIN_NODES] __attribute__((__visibility__("default")));
#if defined(__ELF__)
#define __KA_STR_(x) #x
#define __KA_STR(x) __KA_STR_(x)
#define __ka_spin_pool_define() __asm__(						\
	".ifndef __ka_spin_nodes_v1\n\t"						\
	".pushsection .bss.__ka_spin_nodes_v1,\"awG\",%nobits,__ka_spin_nodes_v1,comdat\n\t" \
	".weak __ka_spin_nodes_v1\n\t"						\
	".type __ka_spin_nodes_v1,%object\n\t"					\
	".size __ka_spin_nodes_v1," __KA_STR(__KA_SPIN_NODES_BYTES) "\n\t"	\
	".balign 128\n"							\
	"__ka_spin_nodes_v1:\n\t"						\
	".zero " __KA_STR(__KA_SPIN_NODES_BYTES) "\n\t"				\
	".popsection\n\t"							\
	".endif")
#define __KA_SPIN_NODES_BYTES 524288	/* __KA_SPIN_NODES * 128, checked below */
KA_STATIC_ASSERT(sizeof(struct __ka_spin_node) * __KA_SPIN_NODES == __KA_SPIN_NODES_BYTES,
		 "katomic: the pool's size in its asm definition");
#else
__attribute__((__weak__, __visibility__("default")))
struct __ka_spin_node __ka_spin_nodes_v1[__KA_SPIN_NODES];
#define __ka_spin_pool_define() ((void)0)
#endif

/* ---------------------------------------------------------------- waiting */
#if defined(__linux__) && defined(SYS_futex)
/*
 * futex() through libc's syscall(), declared under our own name: <unistd.h>
 * hides syscall() in strict C modes, which a header cannot change.
 * Private futexes: the pool is the process's own.
 */
extern long __ka_syscall(long __nr, ...) __asm__("syscall");
#define __KA_FUTEX_WAIT_PRIVATE	(0 | 128)
#define __KA_FUTEX_WAKE_PRIVATE	(1 | 128)

static __ka_always_inline void __ka_spin_sleep(int *word, int val)
{
	(void)__ka_syscall(SYS_futex, word, __KA_FUTEX_WAIT_PRIVATE, val, (void *)0, (void *)0, 0);
}
static __ka_always_inline void __ka_spin_wake(int *word)
{
	(void)__ka_syscall(SYS_futex, word, __KA_FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}
/* A timed sleep on a word nobody changes. */
static __ka_always_inline void __ka_spin_sleep_for(int *word, long ns)
{
	struct timespec t = { 0, ns };

	(void)__ka_syscall(SYS_futex, word, __KA_FUTEX_WAIT_PRIVATE, KA_READ_ONCE(*word), &t, (void *)0, 0);
}
#define __KA_SPIN_CAN_SLEEP 1
#endif

/* This thread's state: the waiters' thread-locals (barrier.h). */
static __ka_always_inline struct __ka_tls_v2 *__ka_spin_tls(void)
{
	return &__ka_tls_v2;
}

/* Claim a free node: start at this thread's last one, so it is usually cached. */
static __ka_always_inline int __ka_spin_node_claim(void)
{
	unsigned *hintp = &__ka_spin_tls()->spin_hint, h = *hintp, i;

	if (!h)		/* first use: spread threads over the pool by their TLS address */
		h = (unsigned)(((unsigned long)hintp >> 6) * 2654435761UL);
	for (i = 0; i < __KA_SPIN_NODES; i++) {
		unsigned idx = (h + i) % __KA_SPIN_NODES;
		struct __ka_spin_node *n = &__ka_spin_nodes_v1[idx];

		if (!KA_READ_ONCE(n->busy) && !ka_xchg_acquire(&n->busy, (unsigned char)1)) {
			*hintp = idx ? idx : __KA_SPIN_NODES;	/* 0 means "not chosen yet" */
			return (int)idx;
		}
	}
	return -1;
}

/*
 * Wait until the waiter ahead makes this node the head: spin, then sleep;
 * once woken early (WOKEN: next in line) poll and yield, never sleep again.
 */
static __ka_always_inline void __ka_spin_wait_head(struct __ka_spin_node *n)
{
	unsigned spins;
	int s;

	for (;;) {
		for (spins = __KA_SPIN_QUEUED; spins; spins--) {
			if (ka_smp_load_acquire(&n->state) == __KA_QN_HEAD)
				return;
			ka_cpu_relax();
		}
#ifdef __KA_SPIN_CAN_SLEEP
		s = ka_smp_load_acquire(&n->state);
		if (s == __KA_QN_WOKEN) {
			/*
			 * Next in line: poll, yielding every 256 polls (the lock's
			 * own policy, __ka_spin_yield; smp_cond_load's first spins
			 * 50 us, which with threads outnumbering CPUs took CPU time
			 * from the running threads: spinlock/8 at 1.4-1.6x the
			 * mutex instead of 1.6-1.8x).
			 */
			spins = __KA_SPIN_BEFORE_YIELD;
			while (ka_smp_load_acquire(&n->state) != __KA_QN_HEAD)
				__ka_spin_wait(spins);
			return;
		}
		/* Announce the sleep with an RMW: the waker's xchg sees it or we see HEAD or WOKEN. */
		if (s == __KA_QN_HEAD || !ka_try_cmpxchg(&n->state, &s, __KA_QN_SLEEP))
			continue;
		__KA_SPIN_STAT(sleep);
		do
			__ka_spin_sleep(&n->state, __KA_QN_SLEEP);
		while (ka_smp_load_acquire(&n->state) == __KA_QN_SLEEP);
#else
		(void)s;
		(void)__ka_spin_yield();
#endif
	}
}

#ifdef __KA_SPIN_CAN_SLEEP
/*
 * Tell n it is next in line (WOKEN: it will not go to sleep), waking it if
 * it sleeps.  Only n moves WAIT -> SLEEP, only its predecessor sets WOKEN.
 */
static __ka_always_inline void __ka_spin_prewake(struct __ka_spin_node *n)
{
	int s = __KA_QN_WAIT;

	__KA_SPIN_STAT(next_in_line);
	if (ka_try_cmpxchg(&n->state, &s, __KA_QN_WOKEN))
		return;
	if (s == __KA_QN_SLEEP && ka_try_cmpxchg(&n->state, &s, __KA_QN_WOKEN)) {
		__KA_SPIN_STAT(prewake);
		__ka_spin_wake(&n->state);
	}
}
#endif

/* Make n the head; wake it only if it sleeps. */
static __ka_always_inline void __ka_spin_make_head(struct __ka_spin_node *n)
{
	int old = ka_xchg(&n->state, __KA_QN_HEAD);

#ifdef __KA_SPIN_CAN_SLEEP
	if (old == __KA_QN_SLEEP)
		__ka_spin_wake(&n->state);
#else
	(void)old;
#endif
}

/* ---------------------------------------------------------------- locking */
/*
 * The head's nap: give the CPU to another thread of this CPU if there is one
 * (threads outnumbering CPUs: it keeps the lock busy); if the yield came
 * straight back, nobody else wanted the CPU, so sleep a little instead, to
 * leave the lock's cache line to the running threads.  During another
 * thread's turn, sleep at once: the owner keeps the lock busy, and a yield
 * would only take its CPU.  Nobody wakes the head early: spin_unlock is a
 * plain store.
 */
static __ka_always_inline void __ka_spin_nap(int *word, bool turn)
{
#ifdef __KA_SPIN_CAN_SLEEP
	if (!turn) {
		unsigned long long t0 = __ka_spin_clock();

		__ka_sched_yield();
		if (__ka_spin_clock() - t0 >= __KA_SPIN_YIELD_SWITCHED) {
			__KA_SPIN_STAT(nap_yield);
			return;
		}
	}
	__KA_SPIN_STAT(nap_sleep);
	__ka_spin_sleep_for(word, __KA_SPIN_NAP_NS);
#else
	(void)word, (void)turn;
	__ka_sched_yield();
#endif
}

/*
 * True when this thread keeps meeting contention: __KA_SPIN_HOT slow paths
 * in a row, each within __KA_SPIN_WINDOW of the last.  Two running threads
 * that take a short critical section in turn each wait only for the other's
 * unlock, so nobody spins long enough to nap, and every acquisition moves
 * the lock's cache line between CPUs (pthread_mutex_t runs such a load at
 * one thread's speed: its loser sleeps).  A hot thread therefore queues and
 * naps at once, and the other runs alone for a while.
 */
#define __ka_spin_streak	(__ka_spin_tls()->spin_streak)
#define __ka_spin_queued_at	(__ka_spin_tls()->spin_queued_at)

static __ka_always_inline bool __ka_spin_hot(unsigned long long now)
{
	unsigned long long *last = &__ka_spin_tls()->spin_hot_last;
	unsigned streak = now - *last < __KA_SPIN_WINDOW ? __ka_spin_streak + 1 : 1;

	*last = now;
	__ka_spin_streak = streak < __KA_SPIN_HOT ? streak : 0;
	return streak >= __KA_SPIN_HOT;
}

/*
 * Turns.  A head that had to wait for the lock (it napped, or claimed it
 * with HANDOFF) while others are queued behind it takes the lock as a
 * *turn* (TURN and a turn number in the flags byte): until its turn ends,
 * nobody else may take the lock, so the fast path of every other thread
 * fails and it queues, and the owner takes the lock again through
 * __ka_spin_turn_take() (its own fast path fails as well).  A turn ends
 * when the next head claims the lock (HANDOFF, after its naps or
 * __KA_SPIN_HEAD_WAIT), when the owner has had it for __KA_SPIN_RUN, or
 * when the owner uses it too seldom to need turns: two windows of 8 takes
 * in a row each longer than 8 __KA_SPIN_TURN_GAP (one slow window may be a
 * preemption; a lock taken between long stretches of other work must not
 * make everyone else queue while its owner works).  The threads of a
 * saturated lock thus run in turns, FIFO, for about the same time each,
 * whichever CPU each shares with whom: without turns the running thread
 * kept a pure hand-off for as long as the scheduler let it, and over a
 * second one thread got a fifth of another's acquisitions (issue 22;
 * docs/spinlock.md).
 */
#define __ka_spin_turn_lock	(__ka_spin_tls()->spin_turn_lock)
#define __ka_spin_turn_id	(__ka_spin_tls()->spin_turn_id)
#define __ka_spin_turn_takes	(__ka_spin_tls()->spin_turn_takes)
#define __ka_spin_turn_slow	(__ka_spin_tls()->spin_turn_slow)
#define __ka_spin_turn_start	(__ka_spin_tls()->spin_turn_start)
#define __ka_spin_turn_window	(__ka_spin_tls()->spin_turn_window)

static __ka_always_inline void __ka_spin_turn_begin(ka_spinlock_t *lock, unsigned short id)
{
	__KA_SPIN_STAT(turn);
	__ka_spin_turn_lock = lock;
	__ka_spin_turn_id = id;
	__ka_spin_turn_takes = 0;
	__ka_spin_turn_slow = false;
	__ka_spin_turn_start = __ka_spin_turn_window = __ka_spin_clock();
}

/* The turn's owner takes the lock again; false: its turn is over. */
static __ka_always_inline bool __ka_spin_turn_take(ka_spinlock_t *lock)
{
	unsigned short mine = (unsigned short)(__KA_Q_TURN | __ka_spin_turn_id), lf, nlf;
	unsigned long long now;
	unsigned spins = __KA_SPIN_BEFORE_YIELD;
	bool slow;

	for (;;) {
		lf = KA_READ_ONCE(lock->h.locked_flags);
		if ((lf & ~__KA_Q_LOCKED) != mine)
			break;		/* claimed by the head (HANDOFF), or not our turn any more */
		if (lf & __KA_Q_LOCKED) {
			__ka_spin_wait(spins);	/* a nodeless waiter (pool exhausted) has it */
			continue;
		}
		nlf = (unsigned short)(mine | __KA_Q_LOCKED);
		if (!(++__ka_spin_turn_takes & 7)) {
			now = __ka_spin_clock();	/* every 8th take: rdtsc is not free */
			slow = now - __ka_spin_turn_window > 8 * __KA_SPIN_TURN_GAP;
			if (now - __ka_spin_turn_start > __KA_SPIN_RUN) {
				ka_atomic_or(__KA_Q_HANDOFF, &lock->val);	/* the head's next */
				break;
			}
			if (slow && __ka_spin_turn_slow)
				nlf = __KA_Q_LOCKED;	/* seldom used: no turns; take it as anyone would */
			__ka_spin_turn_window = now;
			__ka_spin_turn_slow = slow;
		}
		if (ka_try_cmpxchg_acquire(&lock->h.locked_flags, &lf, nlf)) {
			if (nlf == __KA_Q_LOCKED) {
				__KA_SPIN_STAT(turn_idle);
				__ka_spin_turn_lock = (ka_spinlock_t *)0;
			}
			return true;
		}
	}
	__KA_SPIN_STAT(turn_over);
	__ka_spin_turn_lock = (ka_spinlock_t *)0;
	return false;
}

__KA_ONCE_BEGIN
__KA_ONCE_FN("__ka_spin_lock_slowpath_v2") void __ka_spin_lock_slowpath(ka_spinlock_t *lock)
{
	struct __ka_spin_node *node;
	unsigned spins, naps = 0;
	unsigned short me, prev, next;
	int v, idx;
	unsigned long long t_head;
	bool hot, prewoken = false;

	__KA_ONCE_EXPORT("__ka_spin_lock_slowpath_v2");
	__ka_spin_pool_define();
	__ka_tls_define();
	if (__ka_spin_turn_lock == lock && __ka_spin_turn_take(lock))
		return;
	t_head = __ka_spin_clock();
	hot = __ka_spin_hot(t_head);

	/*
	 * Running past others for longer than __KA_SPIN_RUN since this thread
	 * last queued or yielded, and others are queued: give the CPU away
	 * once, so that a queued waiter the scheduler has woken but not run
	 * (its CPU is this thread's) gets it, and start a new turn.  The
	 * waiters a running thread passes over thus get a CPU every turn
	 * (fairness with threads outnumbering CPUs).  Joining the queue
	 * instead, as this rule first did, made the queue a convoy: every
	 * running thread whose turn was over queued behind sleepers, the
	 * CPUs idled through wake-ups (spinlock_long, 8 threads on 2 CPUs:
	 * 1.2-1.7 CPUs busy, 0.7x pthread_mutex_t; with the yield 1.96 and
	 * at par; docs/spinlock.md).
	 */
	if (t_head - __ka_spin_queued_at > __KA_SPIN_RUN && KA_READ_ONCE(lock->h.tail)) {
		__KA_SPIN_STAT(overrun);
		__ka_sched_yield();
		__ka_spin_queued_at = t_head;
	}

	/* 1. A short spin: take the lock if it comes free (queue or not). */
	for (spins = hot ? 0 : __KA_SPIN_STEAL; spins; spins--) {
		unsigned short lf = KA_READ_ONCE(lock->h.locked_flags);

		if (lf & ~__KA_Q_LOCKED)
			break;	/* the queue's next (HANDOFF) or a queued thread's turn: queue now */
		if (!lf && __ka_spin_take(lock)) {
			__KA_SPIN_STAT(steal);
			return;
		}
		ka_cpu_relax();
	}
	__KA_SPIN_STAT(queue);
	if (hot)
		__KA_SPIN_STAT(hot);

	idx = __ka_spin_node_claim();
	if (idx < 0) {
		/*
		 * Pool exhausted: wait without a node, as a running thread does,
		 * and take a free lock even in someone's turn (a turn could
		 * otherwise outlast this wait for as long as others queue).
		 */
		unsigned short lf;

		spins = __KA_SPIN_BEFORE_YIELD;
		for (;;) {
			lf = KA_READ_ONCE(lock->h.locked_flags);
			if (!(lf & (__KA_Q_LOCKED | __KA_Q_HANDOFF)) &&
			    ka_try_cmpxchg_acquire(&lock->h.locked_flags, &lf, (unsigned short)(lf | __KA_Q_LOCKED)))
				return;
			__ka_spin_wait(spins);
		}
	}

	/* 2. Queue up.  The xchg is a full barrier: the node's fields are set before it is found. */
	node = &__ka_spin_nodes_v1[idx];
	me = (unsigned short)(idx + 1);
	KA_WRITE_ONCE(node->next, (unsigned short)0);
	KA_WRITE_ONCE(node->state, (int)__KA_QN_WAIT);
	prev = ka_xchg(&lock->h.tail, me);
	if (prev) {
		/* Release: the waiter ahead reads our initialised node through this link. */
		ka_smp_store_release(&__ka_spin_nodes_v1[prev - 1].next, me);
		__ka_spin_wait_head(node);
	}

	/*
	 * 3. The head: take the lock when it is free.  Spin a little, then nap
	 * (a timed sleep: nobody wakes the head, spin_unlock is a plain store),
	 * leaving the CPU to the threads that keep the lock busy; after
	 * __KA_SPIN_NAPS naps claim the lock (HANDOFF) and wait for it awake.
	 */
	spins = hot ? 1 : __KA_SPIN_HEAD;
	t_head = __ka_spin_clock();	/* the head's wait starts (HANDOFF's bound) */
	for (;;) {
		v = ka_atomic_read(&lock->val);
#ifdef __KA_SPIN_CAN_SLEEP
		/*
		 * Wake the successor as soon as there is one: woken only when
		 * its turn comes, each waiter would add a wake-up's latency (a
		 * time slice when its CPU is busy) while the lock sits free and
		 * the CPUs of the sleeping waiters idle.  Not during a turn:
		 * the successor would only poll on the CPU the owner needs, and
		 * a turn is long; it is woken when it becomes the head.
		 */
		if (!prewoken && !(v & __KA_Q_TURN) && (next = ka_smp_load_acquire(&node->next))) {
			__ka_spin_prewake(&__ka_spin_nodes_v1[next - 1]);
			prewoken = true;
		}
#endif
		if ((v & (__KA_Q_LOCKED | __KA_Q_TURN | __KA_Q_HANDOFF)) == __KA_Q_TURN)
			v |= __KA_Q_LOCKED;	/* free, but in another's turn: as good as held */
		if (!(v & __KA_Q_LOCKED)) {
			int nv = (v & ~__KA_Q_FLAGS) | __KA_Q_LOCKED;
			unsigned short id = 0;

			if ((unsigned short)((unsigned)v >> __KA_Q_TAIL_SHIFT) == me) {
				nv &= 0xffff;	/* the last waiter: empty the queue */
			} else if (naps || (v & __KA_Q_HANDOFF)) {
				/* Won by waiting, others behind: a turn (see __ka_spin_turn_take). */
				id = (unsigned short)((v + (1 << __KA_Q_TURN_ID_SHIFT)) & __KA_Q_TURN_ID);
				nv |= __KA_Q_TURN | id;
			}
			if (ka_atomic_try_cmpxchg_acquire(&lock->val, &v, nv)) {
				if (nv & __KA_Q_TURN)
					__ka_spin_turn_begin(lock, id);
				break;
			}
			continue;
		}
		if (v & __KA_Q_HANDOFF) {
			__ka_spin_wait(spins);	/* ours next: stay awake, yield now and then */
		} else if (--spins) {
			ka_cpu_relax();
		} else if (naps < __KA_SPIN_NAPS && __ka_spin_clock() - t_head < __KA_SPIN_HEAD_WAIT) {
			naps++;
			__ka_spin_nap(&node->state, v & __KA_Q_TURN);
			spins = __KA_SPIN_HEAD;
		} else {
			__KA_SPIN_STAT(handoff);
			ka_atomic_or(__KA_Q_HANDOFF, &lock->val);
			spins = __KA_SPIN_BEFORE_YIELD;
		}
	}

	/* 4. Hand the head's place on, unless the queue ended with us. */
	if ((unsigned short)((unsigned)v >> __KA_Q_TAIL_SHIFT) != me) {
		spins = __KA_SPIN_BEFORE_YIELD;
		/* The successor has swapped the tail but may not have linked yet. */
		while (!(next = ka_smp_load_acquire(&node->next)))
			__ka_spin_wait(spins);
		__ka_spin_make_head(&__ka_spin_nodes_v1[next - 1]);
	}
	ka_smp_store_release(&node->busy, (unsigned char)0);
	/* Through the queue: this thread's turn to run; not hot again at once. */
	__ka_spin_streak = 0;
	__ka_spin_queued_at = __ka_spin_clock();
}
__KA_ONCE_END

#ifdef __cplusplus
}
#endif

#endif /* KATOMIC_SPINLOCK_QUEUE_H */
