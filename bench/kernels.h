/* SPDX-License-Identifier: MIT */
/*
 * The benchmark kernels, written once against KB_* macros.  A contender's
 * translation unit defines the macros it can map onto its library, then
 * includes this file, which defines one kernel per op and workload and the
 * table `const struct kb_contender KB_SYM`.  An op whose macro is missing is
 * "n/a" (a NULL slot), never an error.
 *
 * Every macro takes int * (a 32-bit counter: the kernel's atomic_t),
 * unsigned long * for bitops and unsigned __int128 * for cmpxchg128:
 *
 *   KB_INC(p)  KB_ADD_RETURN(p, i)  KB_FETCH_ADD(p, i)  KB_FETCH_OR(p, i)
 *   KB_XCHG(p, v)  KB_CMPXCHG(p, old, new) -> old value
 *   KB_TRY_CMPXCHG(p, &old, new) -> bool (default: from KB_CMPXCHG)
 *   KB_DEC_AND_TEST(p)  KB_ADD_NEGATIVE(p, i)
 *   KB_SET_BIT(nr, addr)  KB_TEST_AND_SET_BIT(nr, addr)
 *   KB_SMP_MB()  KB_SMP_RMB()  KB_SMP_WMB()
 *   KB_INC_MB(p)  (default: KB_INC then KB_MB_AFTER_ATOMIC())
 *   KB_LOAD_ACQUIRE(p)  KB_STORE_RELEASE(p, v)  KB_READ_ONCE(p)  KB_WRITE_ONCE(p, v)
 *   KB_TRY_CMPXCHG128(p, &old, new) -> bool
 * Workloads:
 *   KB_REF_GET(p)  KB_REF_PUT(p) -> true when it dropped to zero
 *       (default: KB_INC / KB_DEC_AND_TEST)
 *   KB_LOCK_T  KB_LOCK_INIT(l)  KB_LOCK(l)  KB_UNLOCK(l)
 *   KB_SEQ_READ_BEGIN(seq)  KB_SEQ_READ_RETRY(seq, s)  KB_SEQ_WRITE_BEGIN(seq)
 *   KB_SEQ_WRITE_END(seq)  (default: READ_ONCE/WRITE_ONCE + smp_rmb/smp_wmb)
 *   spsc needs LOAD_ACQUIRE/STORE_RELEASE/READ_ONCE/WRITE_ONCE; mpmc also TRY_CMPXCHG.
 * KB_WHAT_<id> (a string), if defined, says what an entry is built from.
 */
#include <stdbool.h>
#include "kb.h"

#if !defined(KB_SYM) || !defined(KB_NAME) || !defined(KB_DESC)
#error "define KB_SYM, KB_NAME and KB_DESC before including kernels.h"
#endif

#define kb_peek(p) (*(volatile __typeof__(*(p)) *)(p))

#if defined(__x86_64__) || defined(__i386__)
#define kb_relax() __asm__ __volatile__("pause" ::: "memory")
#else
#define kb_relax() __asm__ __volatile__("" ::: "memory")
#endif

/* The "variable" bit number: the compiler must not see 37. */
static inline unsigned long kb_nr(const struct kb_env *e)
{
	unsigned long nr = e->bitnr;

	__asm__("" : "+r"(nr));
	return nr;
}

#if !defined(KB_TRY_CMPXCHG) && defined(KB_CMPXCHG)
#define KB_TRY_CMPXCHG(p, op, n) __extension__({				\
	int __o = *(op), __r = KB_CMPXCHG((p), __o, (n));			\
	*(op) = __r;								\
	__r == __o;								\
})
#endif
#if !defined(KB_INC_MB) && defined(KB_INC) && defined(KB_MB_AFTER_ATOMIC)
#define KB_INC_MB(p) do { KB_INC(p); KB_MB_AFTER_ATOMIC(); } while (0)
#endif
#if !defined(KB_REF_GET) && defined(KB_INC) && defined(KB_DEC_AND_TEST)
#define KB_REF_GET(p) KB_INC(p)
#define KB_REF_PUT(p) KB_DEC_AND_TEST(p)
#endif
#if !defined(KB_SEQ_READ_BEGIN) && defined(KB_READ_ONCE) && defined(KB_SMP_RMB) && \
	defined(KB_WRITE_ONCE) && defined(KB_SMP_WMB)
/* The kernel's seqcount: even = stable, odd = being written. */
#define KB_SEQ_READ_BEGIN(s) __extension__({					\
	unsigned __s; unsigned __n = 0;						\
	while ((__s = (unsigned)KB_READ_ONCE(s)) & 1)				\
		kb_wait(&__n);							\
	KB_SMP_RMB();								\
	__s;									\
})
#define KB_SEQ_READ_RETRY(s, v) __extension__({ KB_SMP_RMB(); (unsigned)KB_READ_ONCE(s) != (v); })
#define KB_SEQ_WRITE_BEGIN(s) do {						\
	KB_WRITE_ONCE((s), kb_peek(s) + 1);					\
	KB_SMP_WMB();								\
} while (0)
#define KB_SEQ_WRITE_END(s) do {						\
	KB_SMP_WMB();								\
	KB_WRITE_ONCE((s), kb_peek(s) + 1);					\
} while (0)
#endif

/* Which workloads this contender can run. */
#if defined(KB_REF_GET)
#define KB_HAVE_refcount 1
#endif
#if defined(KB_LOCK_T)
#define KB_HAVE_spinlock 1
#endif
#if defined(KB_SEQ_READ_BEGIN) && defined(KB_READ_ONCE) && defined(KB_WRITE_ONCE) && !defined(KB_NO_SEQLOCK)
#define KB_HAVE_seqlock 1
#endif
#if defined(KB_LOAD_ACQUIRE) && defined(KB_STORE_RELEASE) && defined(KB_READ_ONCE) && \
	defined(KB_WRITE_ONCE) && !defined(KB_NO_SPSC)
#define KB_HAVE_spsc 1
#endif
#if defined(KB_LOAD_ACQUIRE) && defined(KB_STORE_RELEASE) && defined(KB_READ_ONCE) && \
	defined(KB_TRY_CMPXCHG) && !defined(KB_NO_MPMC)
#define KB_HAVE_mpmc 1
#endif

/*
 * Per-op kernels.  Their loops are never unrolled, in any contender: clang
 * unrolls a loop of __atomic loads or stores (C11 backend, <stdatomic.h>)
 * 4-8 times but not one of inline asm with a "memory" clobber (asm backend),
 * and for a one-cycle op the saved loop overhead, not the op, made C11 look
 * twice as fast (load_acquire, smp_rmb, store_release: 0.50-0.60x).
 */
#define KB_KERNEL(id) static long kb_k_##id(long n, struct kb_env *e)
#define KB_NO_UNROLL _Pragma("GCC unroll 1")
#define KB_RET do { e->aux[0] += sink; return n; } while (0)

#ifdef KB_INC
KB_KERNEL(inc)
{
	int *p = e->cell->i;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		KB_INC(p);
	return n;
}
#endif
#ifdef KB_ADD_RETURN
KB_KERNEL(add_return)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_ADD_RETURN(p, 1);
	KB_RET;
}
#endif
#ifdef KB_FETCH_ADD
KB_KERNEL(fetch_add)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_FETCH_ADD(p, 1);
	KB_RET;
}
#endif
#ifdef KB_FETCH_OR
KB_KERNEL(fetch_or)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_FETCH_OR(p, 0x10);
	KB_RET;
}
#endif
#ifdef KB_XCHG
KB_KERNEL(xchg)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_XCHG(p, (int)i);
	KB_RET;
}
#endif
#ifdef KB_CMPXCHG
KB_KERNEL(cmpxchg_ok)
{
	int *p = e->cell->i;
	int old = kb_peek(p);
	long ok = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++) {
		int r = KB_CMPXCHG(p, old, old + 1);

		if (r == old) {
			old++;
			ok++;
		} else {
			old = r;
		}
	}
	e->aux[1] += ok;
	return n;
}

KB_KERNEL(cmpxchg_fail)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)	/* the cell never holds -1 */
		sink += KB_CMPXCHG(p, -1, 0);
	KB_RET;
}
#endif
#ifdef KB_TRY_CMPXCHG
KB_KERNEL(try_cmpxchg_loop)
{
	int *p = e->cell->i;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++) {
		int old = kb_peek(p);

		while (!KB_TRY_CMPXCHG(p, &old, old + 1))
			;
	}
	return n;
}
#endif
#ifdef KB_DEC_AND_TEST
KB_KERNEL(dec_and_test)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_DEC_AND_TEST(p);
	KB_RET;
}
#endif
#ifdef KB_ADD_NEGATIVE
KB_KERNEL(add_negative)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_ADD_NEGATIVE(p, 1);
	KB_RET;
}
#endif
#ifdef KB_SET_BIT
KB_KERNEL(set_bit_c)
{
	unsigned long *b = e->cell->b;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		KB_SET_BIT(5, b);
	return n;
}

KB_KERNEL(set_bit_v)
{
	unsigned long *b = e->cell->b;
	unsigned long nr = kb_nr(e);

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		KB_SET_BIT(nr, b);
	return n;
}
#endif
#ifdef KB_TEST_AND_SET_BIT
KB_KERNEL(test_and_set_bit_c)
{
	unsigned long *b = e->cell->b;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_TEST_AND_SET_BIT(5, b);
	KB_RET;
}

KB_KERNEL(test_and_set_bit_v)
{
	unsigned long *b = e->cell->b;
	unsigned long nr = kb_nr(e);
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_TEST_AND_SET_BIT(nr, b);
	KB_RET;
}
#endif
/* Fences: a memory access on each side, or the compiler merges adjacent fences. */
#if defined(KB_SMP_MB) && defined(KB_READ_ONCE) && defined(KB_WRITE_ONCE)
KB_KERNEL(smp_mb)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++) {
		KB_WRITE_ONCE(&p[0], (int)i);
		KB_SMP_MB();
		sink += KB_READ_ONCE(&p[1]);
	}
	KB_RET;
}
#endif
#if defined(KB_SMP_RMB) && defined(KB_READ_ONCE)
KB_KERNEL(smp_rmb)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++) {
		sink += KB_READ_ONCE(&p[0]);
		KB_SMP_RMB();
		sink += KB_READ_ONCE(&p[1]);
	}
	KB_RET;
}
#endif
#if defined(KB_SMP_WMB) && defined(KB_WRITE_ONCE)
KB_KERNEL(smp_wmb)
{
	int *p = e->cell->i;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++) {
		KB_WRITE_ONCE(&p[0], (int)i);
		KB_SMP_WMB();
		KB_WRITE_ONCE(&p[1], (int)i);
	}
	return n;
}
#endif
#ifdef KB_INC_MB
KB_KERNEL(inc_mb_after)
{
	int *p = e->cell->i;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		KB_INC_MB(p);
	return n;
}
#endif
#ifdef KB_LOAD_ACQUIRE
KB_KERNEL(load_acquire)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_LOAD_ACQUIRE(p);
	KB_RET;
}
#endif
#ifdef KB_STORE_RELEASE
KB_KERNEL(store_release)
{
	int *p = e->cell->i;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		KB_STORE_RELEASE(p, (int)i);
	return n;
}
#endif
#ifdef KB_READ_ONCE
KB_KERNEL(read_once)
{
	int *p = e->cell->i;
	long sink = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		sink += KB_READ_ONCE(p);
	KB_RET;
}
#endif
#ifdef KB_WRITE_ONCE
KB_KERNEL(write_once)
{
	int *p = e->cell->i;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++)
		KB_WRITE_ONCE(p, (int)i);
	return n;
}
#endif
#ifdef KB_TRY_CMPXCHG128
KB_KERNEL(cmpxchg128)
{
	__extension__ typedef unsigned __int128 u128;
	u128 *p = &e->cell->q;
	u128 old = ((u128)kb_peek(&e->cell->b[1]) << 64) | kb_peek(&e->cell->b[0]);
	long ok = 0;

	KB_NO_UNROLL
	for (long i = 0; i < n; i++) {
		if (KB_TRY_CMPXCHG128(p, &old, old + 1)) {
			old++;
			ok++;
		}
	}
	e->aux[1] += ok;
	return n;
}
#endif

/* Workloads: state in e->shared, zeroed and then set up by the init hook. */
#define KB_ALIGNED __attribute__((__aligned__(KB_LINE)))

#ifdef KB_HAVE_refcount
struct kb_wl_refcount { int ref KB_ALIGNED; };

static void kb_i_refcount(void *shared, int nthreads)
{
	(void)nthreads;
	((struct kb_wl_refcount *)shared)->ref = 1;	/* the owner's reference */
}

KB_KERNEL(refcount)
{
	struct kb_wl_refcount *s = e->shared;
	volatile int *stop = e->stop;
	long i;

	for (i = 0; i < n && !*stop; i++) {
		KB_REF_GET(&s->ref);
		if (KB_REF_PUT(&s->ref))
			e->aux[2]++;	/* never: the owner still holds one */
	}
	return i;
}
#endif

#ifdef KB_HAVE_spinlock
struct kb_wl_spinlock {
	KB_LOCK_T lock KB_ALIGNED;
	long data[2] KB_ALIGNED;	/* protected by lock */
};

static void kb_i_spinlock(void *shared, int nthreads)
{
	struct kb_wl_spinlock *s = shared;

	(void)nthreads;
	KB_LOCK_INIT(&s->lock);
}

/*
 * Private work between critical sections, as real lock users have: a chain
 * of dependent multiply-adds on a register (about 4 cycles each), which no
 * compiler can drop or shorten.
 */
static inline unsigned long kb_private_work(unsigned long x, int iters)
{
	KB_NO_UNROLL
	for (int k = 0; k < iters; k++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__("" : "+r"(x));
	}
	return x;
}

/*
 * lock; two dependent plain updates of the protected line; unlock; then
 * `ncs` iterations of private work (the non-critical section).  Every
 * KB_WAIT_EVERY-th lock() is timed (the wait-time figures).  spinlock is
 * the pure hand-off (no private work), spinlock_short ~20 iterations and
 * spinlock_long ~400.
 */
static inline long kb_lock_loop(long n, struct kb_env *e, int ncs)
{
	struct kb_wl_spinlock *s = e->shared;
	volatile int *stop = e->stop;
	unsigned long x = (unsigned long)e->tid;
	long i;

	for (i = 0; i < n && !*stop; i++) {
		if (__builtin_expect(!(i & (KB_WAIT_EVERY - 1)) && e->wait_n < e->wait_cap, 0)) {
			/* A sampled acquisition: how long this lock() waited. */
			unsigned long long t = kb_ticks();

			KB_LOCK(&s->lock);
			t = kb_ticks() - t;
			e->wait[e->wait_n++] = t > 0xffffffffULL ? 0xffffffffU : (unsigned)t;
		} else {
			KB_LOCK(&s->lock);
		}
		kb_peek(&s->data[0]) = kb_peek(&s->data[0]) + 1;
		kb_peek(&s->data[1]) = kb_peek(&s->data[1]) + kb_peek(&s->data[0]);
		KB_UNLOCK(&s->lock);
		x = kb_private_work(x, ncs);
	}
	e->aux[0] += (long)x;
	return i;
}

KB_KERNEL(spinlock) { return kb_lock_loop(n, e, 0); }
KB_KERNEL(spinlock_short) { return kb_lock_loop(n, e, 20); }
KB_KERNEL(spinlock_long) { return kb_lock_loop(n, e, 400); }
#endif

#ifdef KB_HAVE_seqlock
struct kb_wl_seqlock {
	int seq KB_ALIGNED;
	int data[4] KB_ALIGNED;
};

KB_KERNEL(seqlock)
{
	struct kb_wl_seqlock *s = e->shared;
	volatile int *stop = e->stop;
	long i;

	/*
	 * The four data words are copied one statement each, not in a loop:
	 * gcc-12 unrolls such a loop into registers when the access is inline
	 * asm (ck) but keeps it a loop through a stack array when it is volatile
	 * (katomic, liburcu, libatomic_ops), which made ck's seqlock reader look
	 * twice as fast for reasons of the harness, not of the seqlock.
	 */
	if (e->tid == 0 && e->nthreads > 1) {	/* the writer */
		for (i = 0; i < n && !*stop; i++) {
			KB_SEQ_WRITE_BEGIN(&s->seq);
			KB_WRITE_ONCE(&s->data[0], (int)i);
			KB_WRITE_ONCE(&s->data[1], (int)i);
			KB_WRITE_ONCE(&s->data[2], (int)i);
			KB_WRITE_ONCE(&s->data[3], (int)i);
			KB_SEQ_WRITE_END(&s->seq);
			for (int k = 0; k < 32; k++)	/* let readers in */
				kb_relax();
		}
		return i;
	}
	for (i = 0; i < n && !*stop; i++) {	/* readers: count consistent reads */
		unsigned v;
		int d[4];

		do {
			v = KB_SEQ_READ_BEGIN(&s->seq);
			d[0] = KB_READ_ONCE(&s->data[0]);
			d[1] = KB_READ_ONCE(&s->data[1]);
			d[2] = KB_READ_ONCE(&s->data[2]);
			d[3] = KB_READ_ONCE(&s->data[3]);
		} while (KB_SEQ_READ_RETRY(&s->seq, v) && !*stop);
		if (d[0] != d[1] || d[0] != d[2] || d[0] != d[3])
			e->aux[2] += !*stop;
		e->aux[0] += d[0];
	}
	return i;
}
#endif

#define KB_RING 1024	/* SPSC slots */
#define KB_QCAP 64	/* MPMC cells: >= the most threads we run */

#ifdef KB_HAVE_spsc
struct kb_wl_spsc {
	int head KB_ALIGNED;	/* written by the producer */
	int tail KB_ALIGNED;	/* written by the consumer */
	int slot[KB_RING] KB_ALIGNED;
};

KB_KERNEL(spsc)
{
	struct kb_wl_spsc *s = e->shared;
	volatile int *stop = e->stop;
	unsigned spins = 0;
	long i;

	if (e->tid == 0) {	/* producer */
		unsigned head = (unsigned)kb_peek(&s->head), tail = (unsigned)KB_LOAD_ACQUIRE(&s->tail);

		for (i = 0; i < n && !*stop; i++) {
			while (head - tail >= KB_RING) {
				tail = (unsigned)KB_LOAD_ACQUIRE(&s->tail);
				if (head - tail < KB_RING || *stop)
					break;
				kb_wait(&spins);
			}
			if (head - tail >= KB_RING)
				break;
			KB_WRITE_ONCE(&s->slot[head % KB_RING], (int)i);
			head++;
			KB_STORE_RELEASE(&s->head, (int)head);
		}
		return i;
	}
	if (e->tid == 1) {	/* consumer: the items must arrive in order */
		unsigned tail = (unsigned)kb_peek(&s->tail), head = (unsigned)KB_LOAD_ACQUIRE(&s->head);

		for (i = 0; i < n && !*stop; i++) {
			while (head == tail) {
				head = (unsigned)KB_LOAD_ACQUIRE(&s->head);
				if (head != tail || *stop)
					break;
				kb_wait(&spins);
			}
			if (head == tail)
				break;
			if (KB_READ_ONCE(&s->slot[tail % KB_RING]) != (int)i)
				e->aux[2]++;
			tail++;
			KB_STORE_RELEASE(&s->tail, (int)tail);
		}
		return i;
	}
	return 0;	/* only two threads take part */
}
#endif

#ifdef KB_HAVE_mpmc
struct kb_wl_mpmc {
	int enq KB_ALIGNED;
	int deq KB_ALIGNED;
	struct { int seq, data; } cell[KB_QCAP] KB_ALIGNED;
};

static void kb_i_mpmc(void *shared, int nthreads)
{
	struct kb_wl_mpmc *q = shared;

	(void)nthreads;
	for (int k = 0; k < KB_QCAP; k++)
		q->cell[k].seq = k;
}

static inline bool kb_mpmc_enq(struct kb_wl_mpmc *q, int v)
{
	int pos = KB_READ_ONCE(&q->enq);

	for (;;) {
		int *seqp = &q->cell[(unsigned)pos % KB_QCAP].seq;
		int dif = (int)((unsigned)KB_LOAD_ACQUIRE(seqp) - (unsigned)pos);

		if (dif == 0) {
			if (KB_TRY_CMPXCHG(&q->enq, &pos, (int)((unsigned)pos + 1))) {
				q->cell[(unsigned)pos % KB_QCAP].data = v;
				KB_STORE_RELEASE(seqp, (int)((unsigned)pos + 1));
				return true;
			}
		} else if (dif < 0) {
			return false;	/* full */
		} else {
			pos = KB_READ_ONCE(&q->enq);
		}
	}
}

static inline bool kb_mpmc_deq(struct kb_wl_mpmc *q, int *v)
{
	int pos = KB_READ_ONCE(&q->deq);

	for (;;) {
		int *seqp = &q->cell[(unsigned)pos % KB_QCAP].seq;
		int dif = (int)((unsigned)KB_LOAD_ACQUIRE(seqp) - ((unsigned)pos + 1));

		if (dif == 0) {
			if (KB_TRY_CMPXCHG(&q->deq, &pos, (int)((unsigned)pos + 1))) {
				*v = q->cell[(unsigned)pos % KB_QCAP].data;
				KB_STORE_RELEASE(seqp, (int)((unsigned)pos + KB_QCAP));
				return true;
			}
		} else if (dif < 0) {
			return false;	/* empty */
		} else {
			pos = KB_READ_ONCE(&q->deq);
		}
	}
}

/* Each iteration enqueues one item, then dequeues one: aux[1] and aux[3] sum them. */
KB_KERNEL(mpmc)
{
	struct kb_wl_mpmc *q = e->shared;
	volatile int *stop = e->stop;
	long i;

	for (i = 0; i < n; i++) {
		unsigned spins = 0;
		int v = (int)(i & 0xffff) + e->tid, got;

		while (!kb_mpmc_enq(q, v)) {
			if (*stop)
				return i;
			kb_wait(&spins);
		}
		e->aux[1] += v;
		while (!kb_mpmc_deq(q, &got)) {
			if (*stop) {
				e->aux[2] = -1;	/* stopped between the halves: no sum check */
				return i;
			}
			kb_wait(&spins);
		}
		e->aux[3] += got;
		if (*stop)
			return i + 1;
	}
	return i;
}
#endif

/* Final-state checks for `katomic-bench --check`: 0 = good. */
static int kb_chk_refcount(void *shared, long total)
{
#ifdef KB_HAVE_refcount
	(void)total;
	return kb_peek(&((struct kb_wl_refcount *)shared)->ref) != 1;
#else
	(void)shared, (void)total;
	return 0;
#endif
}

static int kb_chk_spinlock(void *shared, long total)
{
#ifdef KB_HAVE_spinlock
	struct kb_wl_spinlock *s = shared;

	return s->data[0] != total || s->data[1] != total * (total + 1) / 2;
#else
	(void)shared, (void)total;
	return 0;
#endif
}

#ifndef KB_CC
#if defined(__clang__)
#define KB_STR_(x) #x
#define KB_STR(x) KB_STR_(x)
#define KB_CC "clang " KB_STR(__clang_major__) "." KB_STR(__clang_minor__) "." KB_STR(__clang_patchlevel__)
#else
#define KB_CC "gcc " __VERSION__
#endif
#endif
#define KB_SLOT(id, init, what) [KB_##id] = { kb_k_##id, init, what }

/* KB_WHAT_x defaults */
#ifndef KB_WHAT_smp_mb
#define KB_WHAT_smp_mb 0
#endif
#ifndef KB_WHAT_spinlock
#define KB_WHAT_spinlock 0
#endif
#ifndef KB_WHAT_refcount
#define KB_WHAT_refcount 0
#endif
#ifndef KB_WHAT_seqlock
#define KB_WHAT_seqlock 0
#endif

const struct kb_contender KB_SYM = {
	.name = KB_NAME,
	.desc = KB_DESC,
	.cc = KB_CC,
	.impl = {
#ifdef KB_INC
		KB_SLOT(inc, 0, 0),
#endif
#ifdef KB_ADD_RETURN
		KB_SLOT(add_return, 0, 0),
#endif
#ifdef KB_FETCH_ADD
		KB_SLOT(fetch_add, 0, 0),
#endif
#ifdef KB_FETCH_OR
		KB_SLOT(fetch_or, 0, 0),
#endif
#ifdef KB_XCHG
		KB_SLOT(xchg, 0, 0),
#endif
#ifdef KB_CMPXCHG
		KB_SLOT(cmpxchg_ok, 0, 0),
		KB_SLOT(cmpxchg_fail, 0, 0),
#endif
#ifdef KB_TRY_CMPXCHG
		KB_SLOT(try_cmpxchg_loop, 0, 0),
#endif
#ifdef KB_DEC_AND_TEST
		KB_SLOT(dec_and_test, 0, 0),
#endif
#ifdef KB_ADD_NEGATIVE
		KB_SLOT(add_negative, 0, 0),
#endif
#ifdef KB_SET_BIT
		KB_SLOT(set_bit_c, 0, 0),
		KB_SLOT(set_bit_v, 0, 0),
#endif
#ifdef KB_TEST_AND_SET_BIT
		KB_SLOT(test_and_set_bit_c, 0, 0),
		KB_SLOT(test_and_set_bit_v, 0, 0),
#endif
#if defined(KB_SMP_MB) && defined(KB_READ_ONCE) && defined(KB_WRITE_ONCE)
		KB_SLOT(smp_mb, 0, KB_WHAT_smp_mb),
#endif
#if defined(KB_SMP_RMB) && defined(KB_READ_ONCE)
		KB_SLOT(smp_rmb, 0, 0),
#endif
#if defined(KB_SMP_WMB) && defined(KB_WRITE_ONCE)
		KB_SLOT(smp_wmb, 0, 0),
#endif
#ifdef KB_INC_MB
		KB_SLOT(inc_mb_after, 0, 0),
#endif
#ifdef KB_LOAD_ACQUIRE
		KB_SLOT(load_acquire, 0, 0),
#endif
#ifdef KB_STORE_RELEASE
		KB_SLOT(store_release, 0, 0),
#endif
#ifdef KB_READ_ONCE
		KB_SLOT(read_once, 0, 0),
#endif
#ifdef KB_WRITE_ONCE
		KB_SLOT(write_once, 0, 0),
#endif
#ifdef KB_TRY_CMPXCHG128
		KB_SLOT(cmpxchg128, 0, 0),
#endif
#ifdef KB_HAVE_refcount
		KB_SLOT(refcount, kb_i_refcount, KB_WHAT_refcount),
#endif
#ifdef KB_HAVE_spinlock
		KB_SLOT(spinlock, kb_i_spinlock, KB_WHAT_spinlock),
		KB_SLOT(spinlock_short, kb_i_spinlock, KB_WHAT_spinlock),
		KB_SLOT(spinlock_long, kb_i_spinlock, KB_WHAT_spinlock),
#endif
#ifdef KB_HAVE_seqlock
		KB_SLOT(seqlock, 0, KB_WHAT_seqlock),
#endif
#ifdef KB_HAVE_spsc
		KB_SLOT(spsc, 0, 0),
#endif
#ifdef KB_HAVE_mpmc
		KB_SLOT(mpmc, kb_i_mpmc, 0),
#endif
	},
	.check_refcount = kb_chk_refcount,
	.check_spinlock = kb_chk_spinlock,
};
