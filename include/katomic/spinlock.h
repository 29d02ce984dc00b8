/* SPDX-License-Identifier: MIT */
/*
 * spinlock_t: a queued spinlock of the kernel's qspinlock class, made for
 * user space, where a lock holder or the next waiter can be preempted and
 * threads routinely outnumber CPUs.  spin_lock is an ACQUIRE, spin_unlock a
 * RELEASE, as in the kernel; 4 bytes, as in the kernel.
 *
 *   uncontended  lock: one locked cmpxchg (0 -> locked); unlock: one release
 *                store of the locked byte.  No system call, ever.
 *   contended    a short spin on the lock word, then a FIFO queue of waiters
 *                (spinlock-queue.h) in which only the head spins on the lock;
 *                the others spin briefly on their own cache line, then sleep
 *                in futex() until the waiter ahead of them takes the lock.
 *
 * A running thread may take a free lock even when others are queued (as
 * pthread_mutex_t lets it): handing a lock to a waiter that is not running
 * would stall everyone.  The queue head stops that once it has waited long
 * enough (the HANDOFF flag), so no waiter starves.  docs/spinlock.md has the
 * design, the reasons and the measurements.
 *
 * Scope: the threads of one process.  The queue's nodes live in a pool in the
 * process (one per process: exported weak symbols), so a spinlock_t in memory
 * shared between processes would be corrupted by contention; use a
 * process-shared pthread_mutex_t there.
 */
#ifndef KATOMIC_SPINLOCK_H
#define KATOMIC_SPINLOCK_H

#include "atomic.h"
#include "cmpxchg.h"

/*
 * The lock word (as the kernel's, with the pending byte used as flags):
 *   bits  0-7   locked: 1 while held; spin_unlock stores 0 into this byte only
 *   bit   8     HANDOFF: the queue head has waited long enough; nobody else
 *               may take the lock when it next comes free
 *   bits 16-31  tail: the last queued waiter's node index + 1 (0 = no queue)
 */
typedef union {
	ka_atomic_t val;
	struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		unsigned short tail;
		unsigned char flags, locked;
#else
		unsigned char locked, flags;
		unsigned short tail;
#endif
	} q;
	struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		unsigned short tail, locked_flags;
#else
		unsigned short locked_flags, tail;
#endif
	} h;	/* locked_flags = flags << 8 | locked, in either byte order */
} ka_spinlock_t;

#define __KA_Q_LOCKED		1
#define __KA_Q_HANDOFF		(1 << 8)
#define __KA_Q_TURN		(1 << 9)	/* the lock is one queued thread's for a turn */
#define __KA_Q_TURN_ID_SHIFT	10		/* bits 10-15: which turn */
#define __KA_Q_TURN_ID		(0x3f << __KA_Q_TURN_ID_SHIFT)
#define __KA_Q_FLAGS		(0xff << 8)	/* HANDOFF, TURN and the turn number */
#define __KA_Q_TAIL_SHIFT	16

#define KA___SPIN_LOCK_UNLOCKED(x)	{ KA_ATOMIC_INIT(0) }
#define KA_DEFINE_SPINLOCK(x)		ka_spinlock_t x = KA___SPIN_LOCK_UNLOCKED(x)

/*
 * The contended path, out of line (spinlock-queue.h): emitted only by a
 * translation unit that locks, once per module (__KA_ONCE_FN).  clang calls
 * it through a preserve_most wrapper, so a function that inlines spin_lock
 * keeps its values in caller-saved registers across the call instead of
 * pushing callee-saved ones on entry.  The wrapper has a name of its own:
 * every caller of one symbol must agree on its calling convention, and gcc
 * has no preserve_most.
 */
#ifdef __cplusplus
extern "C" {
#endif
static inline void __ka_spin_lock_slowpath(ka_spinlock_t *lock) __asm__("__ka_spin_lock_slowpath_v2");
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(__preserve_most__) && (defined(__x86_64__) || defined(__aarch64__))
static inline __attribute__((__preserve_most__))
void __ka_spin_lock_slowpath_pm(ka_spinlock_t *lock) __asm__("__ka_spin_lock_slowpath_pm_v2");
__KA_ONCE_FN("__ka_spin_lock_slowpath_pm_v2") __attribute__((__cold__, __preserve_most__))
void __ka_spin_lock_slowpath_pm(ka_spinlock_t *lock)
{
	__KA_ONCE_EXPORT("__ka_spin_lock_slowpath_pm_v2");
	__ka_spin_lock_slowpath(lock);
}
#define __ka_spin_lock_contended(lock) __ka_spin_lock_slowpath_pm(lock)
#endif
#endif
#ifdef __cplusplus
}
#endif
#ifndef __ka_spin_lock_contended
#define __ka_spin_lock_contended(lock) __ka_spin_lock_slowpath(lock)
#endif

static __ka_always_inline void ka_spin_lock_init(ka_spinlock_t *lock)
{
	ka_atomic_set(&lock->val, 0);
}

/*
 * Free and not claimed by the queue head (locked and flags both 0): take it,
 * whatever the tail says.  One 16-bit cmpxchg, so a thread that is running
 * gets a free lock in one RMW even while others are queued.
 */
static __ka_always_inline bool __ka_spin_take(ka_spinlock_t *lock)
{
	unsigned short lf = 0;

	return ka_try_cmpxchg_acquire(&lock->h.locked_flags, &lf, (unsigned short)__KA_Q_LOCKED);
}

static __ka_always_inline void ka_spin_lock(ka_spinlock_t *lock)
{
	if (__builtin_expect(__ka_spin_take(lock), 1))
		return;
	__ka_spin_lock_contended(lock);
}

/*
 * Succeeds when the lock is free and no queued thread has claimed it (the
 * head's HANDOFF, or a turn), even with waiters queued: a trylock loop is a
 * waiter that is running.  Like the kernel's, it fails while the lock word
 * says the queue has the lock next.
 */
static __ka_always_inline bool ka_spin_trylock(ka_spinlock_t *lock)
{
	/* Read first: a failing trylock loop must not take the line exclusive. */
	if (KA_READ_ONCE(lock->h.locked_flags))
		return false;
	return __ka_spin_take(lock);
}

static __ka_always_inline void ka_spin_unlock(ka_spinlock_t *lock)
{
	/* Only the locked byte: the tail and the flags belong to the waiters. */
	ka_smp_store_release(&lock->q.locked, (unsigned char)0);
}

/* As the kernel's: held, or waiters queued. */
static __ka_always_inline bool ka_spin_is_locked(ka_spinlock_t *lock)
{
	return ka_atomic_read(&lock->val) != 0;
}

static __ka_always_inline bool ka_spin_is_contended(ka_spinlock_t *lock)
{
	return (ka_atomic_read(&lock->val) & ~0xff) != 0;
}

/*
 * Wait until the lock is seen free (the kernel's spin_unlock_wait, removed
 * in 4.13 but used by older code and litmus tests): an ACQUIRE, so whatever
 * the last holder wrote before its unlock is visible afterwards.  It does not
 * take the lock; a new holder may have it again by the time it returns.
 */
static __ka_always_inline void ka_spin_unlock_wait(ka_spinlock_t *lock)
{
	(void)ka_smp_cond_load_acquire(&lock->val.counter, !(VAL & __KA_Q_LOCKED));
}

/* Make the preceding spin_lock() a full barrier. */
#define ka_smp_mb__after_spinlock()	ka_arch_mb__after_spinlock()
/* Make an unlock followed by a lock a full barrier. */
#define ka_smp_mb__after_unlock_lock()	ka_arch_mb__after_unlock_lock()

/*
 * The kernel's interrupt- and bottom-half-disabling lock forms and the
 * raw_spin_* family, for ported code.  User space has no interrupts to
 * disable and no lockdep or PREEMPT_RT split between spinlock_t and
 * raw_spinlock_t, so each is the plain lock, with its ACQUIRE/RELEASE.
 * _irqsave sets flags to 0 (so it is never read uninitialised) and
 * _irqrestore reads it (so -Wall sees no set-but-unused variable); flags
 * must be an unsigned long, as the kernel checks (another type warns in C,
 * and is an error in C++).  The _trylock forms return the lock's result.
 */
static __ka_always_inline void __ka_irqflags_save(unsigned long *flags)
{
	*flags = 0;
}
#define ka_spin_lock_irqsave(lock, flags)	do { __ka_irqflags_save(&(flags)); ka_spin_lock(lock); } while (0)
#define ka_spin_unlock_irqrestore(lock, flags)	do { (void)(flags); ka_spin_unlock(lock); } while (0)
#define ka_spin_trylock_irqsave(lock, flags)	(__ka_irqflags_save(&(flags)), ka_spin_trylock(lock))
#define ka_spin_lock_irq(lock)			ka_spin_lock(lock)
#define ka_spin_unlock_irq(lock)		ka_spin_unlock(lock)
#define ka_spin_trylock_irq(lock)		ka_spin_trylock(lock)
#define ka_spin_lock_bh(lock)			ka_spin_lock(lock)
#define ka_spin_unlock_bh(lock)			ka_spin_unlock(lock)
#define ka_spin_trylock_bh(lock)		ka_spin_trylock(lock)

typedef ka_spinlock_t ka_raw_spinlock_t;
#define KA___RAW_SPIN_LOCK_UNLOCKED(x)		KA___SPIN_LOCK_UNLOCKED(x)
#define KA_DEFINE_RAW_SPINLOCK(x)		ka_raw_spinlock_t x = KA___RAW_SPIN_LOCK_UNLOCKED(x)
#define ka_raw_spin_lock_init(lock)		ka_spin_lock_init(lock)
#define ka_raw_spin_lock(lock)			ka_spin_lock(lock)
#define ka_raw_spin_unlock(lock)		ka_spin_unlock(lock)
#define ka_raw_spin_trylock(lock)		ka_spin_trylock(lock)
#define ka_raw_spin_is_locked(lock)		ka_spin_is_locked(lock)
#define ka_raw_spin_lock_irqsave(lock, flags)	ka_spin_lock_irqsave(lock, flags)
#define ka_raw_spin_unlock_irqrestore(lock, flags) ka_spin_unlock_irqrestore(lock, flags)
#define ka_raw_spin_trylock_irqsave(lock, flags) ka_spin_trylock_irqsave(lock, flags)
#define ka_raw_spin_lock_irq(lock)		ka_spin_lock(lock)
#define ka_raw_spin_unlock_irq(lock)		ka_spin_unlock(lock)
#define ka_raw_spin_trylock_irq(lock)		ka_spin_trylock(lock)
#define ka_raw_spin_lock_bh(lock)		ka_spin_lock(lock)
#define ka_raw_spin_unlock_bh(lock)		ka_spin_unlock(lock)
#define ka_raw_spin_trylock_bh(lock)		ka_spin_trylock(lock)

#include "spinlock-queue.h"
#include "generated/names-spinlock.h"

#endif /* KATOMIC_SPINLOCK_H */
