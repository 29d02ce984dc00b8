/* SPDX-License-Identifier: MIT */
/*
 * spinlock_t: a fair (FIFO) ticket lock built on the atomics.  spin_lock is
 * an ACQUIRE, spin_unlock a RELEASE, as in the kernel.
 *
 * In user space the thread whose turn it is can be descheduled, and a pure
 * ticket lock then stalls every waiter behind it (with 4 threads on 2 CPUs
 * one never finished in 10 minutes): waiters spin briefly, then yield.
 */
#ifndef KATOMIC_SPINLOCK_H
#define KATOMIC_SPINLOCK_H

#include "atomic.h"

/* One 32-bit word: the ticket now served (owner) and the next one to hand out. */
typedef union {
	ka_atomic_t val;
	struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		unsigned short next, owner;
#else
		unsigned short owner, next;
#endif
	} tickets;
} ka_spinlock_t;

#define __KA_TICKET_ONE (1 << 16)	/* one ticket, as added to val */

#define KA___SPIN_LOCK_UNLOCKED(x)	{ KA_ATOMIC_INIT(0) }
#define KA_DEFINE_SPINLOCK(x)		ka_spinlock_t x = KA___SPIN_LOCK_UNLOCKED(x)

static __ka_always_inline void ka_spin_lock_init(ka_spinlock_t *lock)
{
	ka_atomic_set(&lock->val, 0);
}

static __ka_always_inline void ka_spin_lock(ka_spinlock_t *lock)
{
	unsigned int v = (unsigned int)ka_atomic_fetch_add_acquire(__KA_TICKET_ONE, &lock->val);
	unsigned short ticket = (unsigned short)(v >> 16);

	if ((unsigned short)v == ticket)
		return;		/* it was free */
	/*
	 * Wait for our turn; the acquire pairs with the unlock's release.  The
	 * test is a 16-bit one (not VAL == ticket, promoted to int): clang-16
	 * re-extends an atomic 16-bit load before a 32-bit compare.
	 */
	(void)ka_smp_cond_load_acquire(&lock->tickets.owner, (unsigned short)(VAL ^ ticket) == 0);
}

static __ka_always_inline bool ka_spin_trylock(ka_spinlock_t *lock)
{
	int old = ka_atomic_read(&lock->val);

	if ((unsigned short)((unsigned int)old >> 16) != (unsigned short)old)
		return false;
	return ka_atomic_try_cmpxchg_acquire(&lock->val, &old,
					     (int)((unsigned int)old + __KA_TICKET_ONE));
}

static __ka_always_inline void ka_spin_unlock(ka_spinlock_t *lock)
{
	/* Only the owner writes the owner half: a 16-bit release store, no RMW. */
	unsigned short owner = KA_READ_ONCE(lock->tickets.owner);

	ka_smp_store_release(&lock->tickets.owner, (unsigned short)(owner + 1));
}

static __ka_always_inline bool ka_spin_is_locked(ka_spinlock_t *lock)
{
	unsigned int v = (unsigned int)ka_atomic_read(&lock->val);

	return (unsigned short)(v >> 16) != (unsigned short)v;
}

/*
 * Wait until the lock is seen free (the kernel's spin_unlock_wait, removed
 * in 4.13 but used by older code and litmus tests): an ACQUIRE, so whatever
 * the last holder wrote before its unlock is visible afterwards.  It does not
 * take the lock; a new holder may have it again by the time it returns.
 */
static __ka_always_inline void ka_spin_unlock_wait(ka_spinlock_t *lock)
{
	(void)ka_smp_cond_load_acquire(&lock->val.counter,
		(unsigned short)((unsigned int)VAL >> 16) == (unsigned short)VAL);
}

static __ka_always_inline bool ka_spin_is_contended(ka_spinlock_t *lock)
{
	unsigned int v = (unsigned int)ka_atomic_read(&lock->val);

	return (unsigned short)((v >> 16) - v) > 1;
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

#include "generated/names-spinlock.h"

#endif /* KATOMIC_SPINLOCK_H */
