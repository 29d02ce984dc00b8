/* katomic-litmus harness runtime, part 1: included after <katomic/katomic.h>. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The kernel's fixed-width types, for registers and variables. */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

/* At most this many threads in a test (parse.h's LT_MAX_THREADS). */
#define KL_MAXT 32

/*
 * RCU.  With -DKL_URCU=memb or mb (the runner defines it, and links
 * -lurcu-memb or -lurcu-mb, when liburcu is installed and a test of the
 * program uses RCU): the read-side primitives and the grace periods of that
 * liburcu flavour; the threads of a test using RCU register.  The functions
 * are declared here rather than by <urcu/urcu-memb.h>, whose
 * barrier()/rcu_dereference() macros would clash with katomic's.  Without
 * it: read-side critical sections are compiler barriers (tests calling
 * synchronize_rcu() are then skipped by the runner).
 */
#ifdef KL_URCU
#define KL_URCU_NAME2(f, x) urcu_##f##_##x
#define KL_URCU_NAME(f, x) KL_URCU_NAME2(f, x)
#define KL_URCU_FN(x) KL_URCU_NAME(KL_URCU, x)
extern void KL_URCU_FN(read_lock)(void);
extern void KL_URCU_FN(read_unlock)(void);
extern void KL_URCU_FN(synchronize_rcu)(void);
extern void KL_URCU_FN(register_thread)(void);
extern void KL_URCU_FN(unregister_thread)(void);
#undef rcu_read_lock
#undef rcu_read_unlock
#define rcu_read_lock() KL_URCU_FN(read_lock)()
#define rcu_read_unlock() KL_URCU_FN(read_unlock)()
#define synchronize_rcu() KL_URCU_FN(synchronize_rcu)()
#define synchronize_rcu_expedited() KL_URCU_FN(synchronize_rcu)()
#define KL_RCU_REGISTER() KL_URCU_FN(register_thread)()
#define KL_RCU_UNREGISTER() KL_URCU_FN(unregister_thread)()
#else
#define KL_RCU_REGISTER() ((void)0)
#define KL_RCU_UNREGISTER() ((void)0)
#endif
#ifndef rcu_read_lock
#define rcu_read_lock() barrier()
#define rcu_read_unlock() barrier()
#endif

/* A primitive replaced by nothing, for mutation checks: --mutate synchronize_srcu=kl_nothing. */
#define kl_nothing(...) ((void)0)

/* The kernel's spin_unlock_wait (removed in 4.13; litmus tests of that era use it). */
#ifndef spin_unlock_wait
#define spin_unlock_wait(lock) ka_spin_unlock_wait(lock)
#endif

/*
 * SRCU, one domain per srcu_struct (so one per srcu_struct per iteration),
 * built on katomic with the kernel's classic counter-flip algorithm: each
 * thread counts its lock and unlock calls per index; a grace period waits
 * until the locks and unlocks of the index readers used before it balance,
 * flips the index new readers use, and waits for the old one to balance too.
 * As in the kernel, srcu_read_lock() ends and srcu_read_unlock() begins with
 * a full barrier (stronger than the LKMM asks of them: never a forbidden
 * outcome, possibly fewer allowed ones).  A grace period inside a read-side
 * critical section of its own srcu_struct waits forever (DEADLOCK), as in
 * the kernel.  kl_tid is the thread number, a constant in each thread body.
 */
struct srcu_struct {
	unsigned int idx;		/* readers use counter set idx & 1 */
	spinlock_t gp;			/* one grace period at a time */
	unsigned int lock[2][KL_MAXT];	/* [index][thread]: written by that thread only */
	unsigned int unlock[2][KL_MAXT];
};

static inline int kl_srcu_read_lock(struct srcu_struct *s, int t)
{
	int i = (int)(READ_ONCE(s->idx) & 1);

	WRITE_ONCE(s->lock[i][t], s->lock[i][t] + 1);
	smp_mb();	/* the count before the critical section */
	return i;
}

static inline void kl_srcu_read_unlock(struct srcu_struct *s, int i, int t)
{
	smp_mb();	/* the critical section before the count */
	WRITE_ONCE(s->unlock[i & 1][t], s->unlock[i & 1][t] + 1);
}

/* Have all readers that counted a lock on index i counted their unlock? */
static int kl_srcu_idle(struct srcu_struct *s, int i)
{
	unsigned int locks = 0, unlocks = 0;
	int t;

	for (t = 0; t < KL_MAXT; t++)
		unlocks += READ_ONCE(s->unlock[i][t]);
	smp_mb();	/* unlocks summed before locks: a reader seen unlocking is seen locking */
	for (t = 0; t < KL_MAXT; t++)
		locks += READ_ONCE(s->lock[i][t]);
	return locks == unlocks;
}

static void kl_srcu_wait(struct srcu_struct *s, int i)
{
	unsigned n = 0;

	while (!kl_srcu_idle(s, i)) {
		if (++n % 64 == 0)
			sched_yield();
		else
			cpu_relax();
	}
}

static void kl_synchronize_srcu(struct srcu_struct *s)
{
	int i;

	spin_lock(&s->gp);
	smp_mb();	/* the updater's accesses before the grace period */
	i = (int)(READ_ONCE(s->idx) & 1);
	kl_srcu_wait(s, i ^ 1);	/* stragglers of the previous flip */
	smp_mb();
	WRITE_ONCE(s->idx, s->idx + 1);	/* new readers use the other index */
	smp_mb();
	kl_srcu_wait(s, i);	/* readers that began before the flip */
	smp_mb();	/* the grace period before the updater's later accesses */
	spin_unlock(&s->gp);
}

#define srcu_read_lock(s) kl_srcu_read_lock((s), kl_tid)
#define srcu_read_unlock(s, i) kl_srcu_read_unlock((s), (i), kl_tid)
#define srcu_down_read(s) kl_srcu_read_lock((s), kl_tid)
#define srcu_up_read(s, i) kl_srcu_read_unlock((s), (i), kl_tid)
#define synchronize_srcu(s) kl_synchronize_srcu(s)
#define synchronize_srcu_expedited(s) kl_synchronize_srcu(s)
/* srcu_read_unlock() begins with a full barrier, which orders what precedes it before what follows. */
#define smp_mb__after_srcu_read_unlock() barrier()

/* Cells of one iteration per 64-byte line; KL_BMAX iterations per batch at most.
 * KL_SPREAD spare cells per variable let each batch move each variable's cells
 * (a different relative layout: page offsets, cache sets, prefetch streams). */
#ifndef KL_BMAX
#define KL_BMAX 16384
#endif
#ifndef KL_SPREAD
#define KL_SPREAD 512
#endif

/*
 * A value in a final state.  The address of variable k's cell of the same
 * iteration is KL_ADDR(k) (herd prints it as the variable's name), any other
 * value is itself: values are untyped, so an integer location may hold an
 * address and a pointer one a number.
 */
#define KL_ADDR(k) (INT64_MIN + 1 + (long long)(k))
#define KL_VAL(addr, i, e)                                                               \
	(sizeof(e) >= sizeof(void *) ? kl_encode(addr((i), (uintptr_t)(e)), (long long)(uintptr_t)(e)) \
				     : (long long)(e))

static inline long long kl_encode(int var, long long raw)
{
	return var >= 0 ? KL_ADDR(var) : raw;
}

/* One test of the program: the generated code describes it. */
struct kl_test {
	const char *name;
	int nt, ncol, nvars;
	int grace;		/* calls a grace period: the -g cap on iterations applies */
	int rcu;		/* its threads register with liburcu */
	int orphan;		/* may leave a lock held: iterations can be abandoned (kl_discard) */
	long *off, *noff;	/* each variable's cell offset in this batch and the next */
	void (*reset)(int t, long lo, long hi);	/* zero and initialise the cells of [lo, hi) */
	void (*run)(int t, long lo, long hi);	/* thread t runs iterations [lo, hi) */
	void (*state)(long i, long long *s);	/* the final state of iteration i */
};

/*
 * Locks never released (docs/litmus.md, "Locks never released").  herd
 * counts complete executions only: where a thread takes a lock and ends
 * without releasing it, a thread that then waits for that lock never
 * finishes, and that execution does not exist.  In a test that may leave a
 * lock held (the runner decides from the text: KL_ORPHAN is 1 around its
 * thread functions), spin_lock() and its variants (they all come to
 * ka_spin_lock()) and spin_unlock_wait() wait by polling; when every other
 * thread has finished this iteration (kl_prog) and the lock is still held,
 * nobody will release it: the waiting thread abandons the iteration (returns
 * from its body), which is then discarded (kl_discard), counted and shown,
 * never judged.  Otherwise (KL_ORPHAN 0) they are katomic's own.
 */
struct kl_progress {
	long long v;	/* kl_base + i + 1: this thread has finished iteration i of the batch */
	unsigned long seq;	/* odd while waiting for a lock (kl_lock_or_orphan), incremented at each start and end */
	long long iter;	/* the iteration it waits in (kl_base + i + 1) */
	spinlock_t *lock;	/* the lock it waits for */
} __attribute__((aligned(64)));
static struct kl_progress kl_prog[KL_MAXT];
static long long kl_base;	/* the batch's first iteration number (thread 0 moves it between batches) */
static int kl_nthreads;		/* of the test running */
static unsigned char kl_discard[KL_BMAX];	/* iteration i abandoned: not a complete execution */
static unsigned kl_lock_spins = 1024;	/* polls before a yield (harness-main.h: as its barriers) */

#define KL_DONE(t, i) __atomic_store_n(&kl_prog[t].v, kl_base + (i) + 1, __ATOMIC_RELEASE)

/*
 * Is iteration i stuck for thread tid waiting for lock l: l held, and every
 * other thread either finished with iteration i or waiting in it for a lock
 * that is held?  Then nobody runs who could release a lock (those waiting
 * will not get theirs), and nothing changes any more.  seq[] gets each
 * other thread's wait count, to compare two such findings: a thread that got
 * its lock meanwhile (and holds it, so it looked held) has moved on.
 */
static int kl_stuck(spinlock_t *l, long i, int tid, unsigned long *seq)
{
	long long me = kl_base + i + 1;
	int u;

	for (u = 0; u < kl_nthreads; u++) {
		if (u == tid)
			continue;
		seq[u] = __atomic_load_n(&kl_prog[u].seq, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&kl_prog[u].v, __ATOMIC_ACQUIRE) >= me)
			continue;	/* finished iteration i */
		if (!(seq[u] & 1) || __atomic_load_n(&kl_prog[u].iter, __ATOMIC_RELAXED) != me ||
		    !spin_is_locked(__atomic_load_n(&kl_prog[u].lock, __ATOMIC_RELAXED)))
			return 0;	/* running, or about to get its lock */
	}
	return spin_is_locked(l);	/* read after their progress: a release before it is seen */
}

/*
 * Twice the same finding, a moment apart: iteration i is stuck (see
 * kl_stuck).  No yield in between: on a loaded machine a yield can cost a
 * time slice, and a test where every iteration is abandoned would crawl.
 */
static int kl_orphaned(spinlock_t *l, long i, int tid)
{
	unsigned long a[KL_MAXT], b[KL_MAXT];
	int u;

	if (!kl_stuck(l, i, tid, a))
		return 0;
	for (u = 0; u < 64; u++)
		cpu_relax();
	if (!kl_stuck(l, i, tid, b))
		return 0;
	for (u = 0; u < kl_nthreads; u++)
		if (u != tid && a[u] != b[u])
			return 0;
	return 1;
}

/* Take l (1), or find it orphaned (0).  unlock_wait: wait until l is free, without taking it. */
static inline int kl_lock_or_orphan(spinlock_t *l, long i, int tid, int unlock_wait)
{
	struct kl_progress *me = &kl_prog[tid];
	unsigned n = 0;
	int got;

	if (unlock_wait ? !spin_is_locked(l) : spin_trylock(l))
		goto done;
	__atomic_store_n(&me->lock, l, __ATOMIC_RELAXED);
	__atomic_store_n(&me->iter, kl_base + i + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&me->seq, me->seq + 1, __ATOMIC_RELEASE);	/* odd: waiting */
	for (;;) {
		if (unlock_wait ? !spin_is_locked(l) : spin_trylock(l)) {
			got = 1;
			break;
		}
		if (++n % 32 == 0 && kl_orphaned(l, i, tid)) {
			got = 0;
			break;
		}
		if (n >= kl_lock_spins) {	/* the holder may need this CPU */
			n = 0;
			sched_yield();
		} else {
			cpu_relax();
		}
	}
	__atomic_store_n(&me->seq, me->seq + 1, __ATOMIC_RELEASE);	/* even: running */
	if (!got)
		return 0;
done:
	if (unlock_wait)
		smp_acquire__after_ctrl_dep();	/* spin_unlock_wait is an acquire */
	return 1;
}

#define KL_ORPHAN_WAIT(l, w)                                   \
	do {                                                   \
		if (!kl_lock_or_orphan((l), kl_i, kl_tid, (w))) { \
			kl_discard[kl_i] = 1;                  \
			return;                                \
		}                                              \
	} while (0)
