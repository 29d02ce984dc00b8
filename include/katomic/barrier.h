/* SPDX-License-Identifier: MIT */
/*
 * The kernel's barriers and ordered accesses.  What each one costs on this
 * target is the backend's choice (include/katomic/arch/, docs/ordering.md).
 */
#ifndef KATOMIC_BARRIER_H
#define KATOMIC_BARRIER_H

#include "compiler.h"
#include "backend.h"
#include "rwonce.h"

#define ka_cpu_relax()			ka_arch_cpu_relax()
#define ka_mb()				ka_arch_mb()
#define ka_rmb()			ka_arch_rmb()
#define ka_wmb()			ka_arch_wmb()
#define ka_smp_mb()			ka_arch_smp_mb()
#define ka_smp_rmb()			ka_arch_smp_rmb()
#define ka_smp_wmb()			ka_arch_smp_wmb()
#define ka_smp_mb__before_atomic()	ka_arch_mb__before_atomic()
#define ka_smp_mb__after_atomic()	ka_arch_mb__after_atomic()
#define ka_smp_acquire__after_ctrl_dep() ka_arch_acquire__after_ctrl_dep()

#define __ka_assert_native(p) \
	KA_STATIC_ASSERT(__ka_native_size(*(p)), "katomic: needs a 1, 2, 4 or 8-byte scalar")

#define ka_smp_load_acquire(p) __extension__({					\
	__ka_assert_native(p);							\
	ka_arch_load_acquire(p);						\
})

#define ka_smp_store_release(p, v) do {					\
	__ka_assert_native(p);							\
	ka_arch_store_release((p), (__typeof__(*(p)))(v));			\
} while (0)

/* A store, then a full barrier. */
#ifdef ka_arch_store_mb
#define ka_smp_store_mb(var, val) do {						\
	__ka_assert_native(&(var));						\
	ka_arch_store_mb(&(var), (__typeof__(var))(val));			\
} while (0)
#else
#define ka_smp_store_mb(var, val) do { KA_WRITE_ONCE(var, val); ka_smp_mb(); } while (0)
#endif

/*
 * Spin until cond_expr, which reads the loaded value as VAL, holds; return
 * that value.  The loop is the kernel's (a load, a compare, cpu_relax()) plus
 * a down-counter: user-space threads can outnumber CPUs, so every
 * __KA_SPIN_BEFORE_YIELD polls the waiter gives its CPU away (the kernel
 * never needs to: it disables preemption).  The yield is a cold, out-of-line
 * call, so its register saves land on that path, not on the polling loop.
 */
#define __KA_SPIN_BEFORE_YIELD 256
/* clang keeps registers live across a cold call in callee-saved ones (pushes on entry) unless the callee saves them. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(__preserve_most__) && (defined(__x86_64__) || defined(__aarch64__))
#define __KA_COLD_CALL_ABI __attribute__((__preserve_most__))
#endif
#endif
#ifndef __KA_COLD_CALL_ABI
#define __KA_COLD_CALL_ABI
#endif

/* A cheap clock for the waiters' heuristics: only differences are used.
 * Always inlined: an -O0 static copy in every object would break pay-once. */
#if defined(__x86_64__) || defined(__i386__)
static __ka_always_inline unsigned long long __ka_spin_clock(void)
{
	return __builtin_ia32_rdtsc();	/* invariant TSC, 1-5 ticks a nanosecond */
}
#define __KA_CLOCK_US(us)	((unsigned long long)(us) * 2048ULL)	/* 2048 ticks: 0.4-2 us (1-5 GHz) */
#else
#include <time.h>
static __ka_always_inline unsigned long long __ka_spin_clock(void)
{
	struct timespec t;

	timespec_get(&t, TIME_UTC);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}
#define __KA_CLOCK_US(us)	((unsigned long long)(us) * 1000ULL)
#endif

/*
 * The nap of a waiter whose yields do not work: a short timed sleep (the
 * timer slack makes it 50-60 us for a normal thread).  nanosleep() under a
 * name of our own: strict C modes hide it, which a header cannot change.
 */
#if defined(__linux__)
#include <time.h>
#ifdef __cplusplus
extern "C"
#endif
int __ka_nanosleep(const struct timespec *__req, struct timespec *__rem) __asm__("nanosleep");
#define __ka_spin_nap_short() do {						\
	struct timespec __t = { 0, 1000 };					\
	(void)__ka_nanosleep(&__t, (struct timespec *)0);			\
} while (0)
#else
#define __ka_spin_nap_short() __ka_sched_yield()
#endif

/*
 * A yield that came back at once ran nobody else.  Either nobody else wants
 * this CPU (the thread we wait for runs on another one: spinning on is
 * right), or the scheduler would not switch: a yield is a no-op for a
 * thread the scheduler still favours (CFS ignores it while the other
 * thread's vruntime is ahead by more than the wakeup granularity; EEVDF
 * while the yielder is not eligible but still within its protected slice),
 * and a waiter whose lock holder or next in line is runnable on the same
 * CPU then spins until the tick preempts it: a time slice per hand-off
 * (issue 22: the kernel's qspinlock on katomic, 3 threads on 2 CPUs, took
 * 16 s in half the runs where a build spinning without yields took 0.34).  Only a sleep is sure
 * to run the other thread.  So a waiter whose yields have come straight
 * back for __KA_YIELD_NAP_AFTER naps once (a timed sleep, 50-60 us with
 * the default timer slack) and starts counting again, provided one of its
 * yields switched in the last __KA_YIELD_SHARED: a thread alone on its CPU
 * (all its yields come back at once) never naps, its waits stay as short
 * as the hand-off.  A no-op yield thus costs at most that bound and a nap
 * per hand-off, not a time slice.
 */
#ifndef __KA_WAIT_STAT
#define __KA_WAIT_STAT(what) ((void)0)	/* a test's event counter */
#endif
#define __KA_YIELD_SWITCHED	__KA_CLOCK_US(2)	/* a yield this long ran another thread */
#define __KA_YIELD_NEW_WAIT	__KA_CLOCK_US(100)	/* no yield for this long: a new wait */
#define __KA_YIELD_NAP_AFTER	__KA_CLOCK_US(50)	/* yields back at once this long: nap */
#define __KA_YIELD_SHARED	__KA_CLOCK_US(16000)	/* a yield switched this recently: the CPU is shared */
/*
 * The waiters' thread-local state, one per thread and module (__KA_ONCE_TBSS,
 * defined by the functions that use it): __ka_spin_yield's and spinlock_t's.
 */
struct __ka_tls_v2 {
	unsigned long long yield_since;		/* since when the yields came straight back */
	unsigned long long yield_last;		/* the last yield */
	unsigned long long yield_switched;	/* the last one that switched */
	unsigned long long cond_start;		/* smp_cond_load: when this wait started */
	unsigned long long cond_last;		/* its last call of __ka_cond_yield() */
	unsigned long long spin_queued_at, spin_hot_last, spin_turn_start, spin_turn_window;
	void *spin_turn_lock;
	unsigned spin_streak, spin_turn_takes, spin_hint;
	unsigned short spin_turn_id;
	bool spin_turn_slow;
};
#ifdef __cplusplus
extern "C" {
#endif
#if defined(__ELF__)
extern __thread struct __ka_tls_v2 __ka_tls_v2 __attribute__((__visibility__("hidden")));
#define __ka_tls_define() __KA_ONCE_TBSS("__ka_tls_v2", sizeof(struct __ka_tls_v2), __alignof__(struct __ka_tls_v2))
#else
__attribute__((__weak__, __visibility__("hidden"))) __thread struct __ka_tls_v2 __ka_tls_v2;
#define __ka_tls_define() ((void)0)
#endif
#ifdef __cplusplus
}
#endif

__KA_ONCE_BEGIN
static inline __KA_COLD_CALL_ABI unsigned __ka_spin_yield(void) __asm__("__ka_spin_yield_v2");
__KA_ONCE_FN("__ka_spin_yield_v2") __attribute__((__cold__)) __KA_COLD_CALL_ABI unsigned __ka_spin_yield(void)
{
	struct __ka_tls_v2 *tls = &__ka_tls_v2;
	unsigned long long t0, t1;

	__KA_ONCE_EXPORT("__ka_spin_yield_v2");
	__ka_tls_define();
	t0 = __ka_spin_clock();

	__ka_sched_yield();
	t1 = __ka_spin_clock();
	__KA_WAIT_STAT(yield);
	if (t1 - t0 >= __KA_YIELD_SWITCHED) {
		__KA_WAIT_STAT(yield_switched);
		tls->yield_since = tls->yield_switched = t1;
	} else if (t0 - tls->yield_last >= __KA_YIELD_NEW_WAIT) {
		tls->yield_since = t1;
	} else if (t1 - tls->yield_since >= __KA_YIELD_NAP_AFTER && t1 - tls->yield_switched < __KA_YIELD_SHARED) {
		__KA_WAIT_STAT(nap);
		__ka_spin_nap_short();
		tls->yield_since = t1 = __ka_spin_clock();
	}
	tls->yield_last = t1;
	return __KA_SPIN_BEFORE_YIELD;
}
__KA_ONCE_END

/*
 * The wait of smp_cond_load_*()/atomic_cond_read_*() (the kernel's own lock
 * code waits with them): poll, and yield only once the wait has lasted
 * __KA_COND_SPIN; never sleep.  What is awaited is another thread's store.
 * If that thread runs on another CPU, it comes within microseconds (a
 * critical section, a queue ahead of us) and a yield only hands this CPU to
 * someone else: when that someone is not the awaited thread (a peer pinned
 * to this CPU that is not the next owner, another process), this thread
 * gets the CPU back a time slice later, and a hand-off to it waits as long.
 * A nap is worse (issue 34: with threads pinned two to one CPU and one to
 * the other, the kernel's qspinlock on katomic stalled in 7 of 20 runs
 * where plain spinning stalled in 1; the slow runs made thousands of naps
 * and ~10^5 yields that switched).  A wait that lasts __KA_COND_SPIN means
 * the awaited thread is not running; if it waits for this CPU, only a
 * yield lets it run, so from then on the waiter yields every
 * __KA_SPIN_BEFORE_YIELD polls (a thread alone on a CPU then spins on: its
 * yields come straight back).  A poll's call of the cold function below
 * that comes over __KA_YIELD_NEW_WAIT after the last one starts a new wait.
 */
#ifndef __KA_COND_SPIN
#define __KA_COND_SPIN		__KA_CLOCK_US(50)
#endif
__KA_ONCE_BEGIN
static inline __KA_COLD_CALL_ABI unsigned __ka_cond_yield(void) __asm__("__ka_cond_yield_v2");
__KA_ONCE_FN("__ka_cond_yield_v2") __attribute__((__cold__)) __KA_COLD_CALL_ABI unsigned __ka_cond_yield(void)
{
	struct __ka_tls_v2 *tls = &__ka_tls_v2;
	unsigned long long t = __ka_spin_clock();

	__KA_ONCE_EXPORT("__ka_cond_yield_v2");
	__ka_tls_define();
	if (t - tls->cond_last >= __KA_YIELD_NEW_WAIT)
		tls->cond_start = t;
	if (t - tls->cond_start >= __KA_COND_SPIN) {
		unsigned long long t0 = t;

		__KA_WAIT_STAT(yield);
		__ka_sched_yield();
		t = __ka_spin_clock();
		if (t - t0 >= __KA_YIELD_SWITCHED)
			__KA_WAIT_STAT(yield_switched);
	}
	tls->cond_last = t;
	return __KA_SPIN_BEFORE_YIELD;
}
__KA_ONCE_END

/* One poll's wait: count starts at __KA_SPIN_BEFORE_YIELD. */
#define __ka_spin_wait(count) do {						\
	ka_cpu_relax();								\
	if (__builtin_expect(--(count) == 0, 0))				\
		(count) = __ka_spin_yield();					\
} while (0)

#define __ka_smp_cond_load(ptr, cond_expr, load) __extension__({		\
	__typeof__(ptr) __ka_ptr = (ptr);					\
	__typeof__(__atomic_load_n(__ka_ptr, __ATOMIC_RELAXED)) VAL;		\
	unsigned __ka_spins = __KA_SPIN_BEFORE_YIELD;				\
	for (;;) {								\
		VAL = load(__ka_ptr);						\
		if (cond_expr)							\
			break;							\
		ka_cpu_relax();							\
		if (__builtin_expect(--__ka_spins == 0, 0))			\
			__ka_spins = __ka_cond_yield();				\
	}								\
	VAL;								\
})
#define __ka_read_once_ptr(p) KA_READ_ONCE(*(p))
#define ka_smp_cond_load_relaxed(ptr, cond_expr) __ka_smp_cond_load(ptr, cond_expr, __ka_read_once_ptr)
/*
 * The acquire form polls with acquire loads (as arm64 does) rather than
 * relaxed loads and smp_acquire__after_ctrl_dep(): free on x86, and an
 * acquire that race detectors, which do not model fences, can see.
 */
#define ka_smp_cond_load_acquire(ptr, cond_expr) __ka_smp_cond_load(ptr, cond_expr, ka_smp_load_acquire)


/*
 * RCU publication: rcu_assign_pointer is a release store; rcu_dereference a
 * plain load whose address dependency orders what is read through it (C11's
 * consume would be promoted to acquire, a real barrier on arm64 and POWER).
 */
#define ka_rcu_dereference(p)		KA_READ_ONCE(p)
#define ka_rcu_assign_pointer(p, v)	ka_smp_store_release(&(p), (v))

/*
 * Barriers for memory shared with a device (DMA; e.g. a VFIO or vhost-user
 * driver's rings): dma_rmb/dma_wmb order reads/writes of coherent memory the
 * device also accesses, dma_mb both.  What each costs is the architecture's
 * (arch/: often lighter than mb(), which also orders MMIO).
 */
#define ka_dma_mb()			ka_arch_dma_mb()
#define ka_dma_rmb()			ka_arch_dma_rmb()
#define ka_dma_wmb()			ka_arch_dma_wmb()

/*
 * Barriers for memory shared with another machine's CPU (a guest and its
 * hypervisor, virtio rings): the SMP barriers, but never weakened, not even
 * when this process runs on one CPU and <katomic/up.h> has unlocked the
 * recorded lock prefixes (the other side is not on our CPU).  Only x86-64's
 * smp_mb is locked, so only virt_mb needs a form of its own there; the store
 * of virt_store_mb is an xchg, which no patching touches.  virt_mb__before/
 * after_atomic are the kernel's: they rely on the atomic op itself, which an
 * unlocked (patched) op no longer is to another agent; use sync_cmpxchg on
 * shared memory in such a process.
 */
#define ka_virt_mb()			ka_arch_virt_mb()
#define ka_virt_rmb()			ka_smp_rmb()
#define ka_virt_wmb()			ka_smp_wmb()
#ifdef ka_arch_store_mb
#define ka_virt_store_mb(var, value)	ka_smp_store_mb(var, value)
#else
#define ka_virt_store_mb(var, value) do { KA_WRITE_ONCE(var, value); ka_virt_mb(); } while (0)
#endif
#define ka_virt_mb__before_atomic()	ka_smp_mb__before_atomic()
#define ka_virt_mb__after_atomic()	ka_smp_mb__after_atomic()
#define ka_virt_load_acquire(p)		ka_smp_load_acquire(p)
#define ka_virt_store_release(p, v)	ka_smp_store_release(p, v)

#include "generated/names-barrier.h"

#endif /* KATOMIC_BARRIER_H */
