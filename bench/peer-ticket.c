/* SPDX-License-Identifier: MIT */
/*
 * Contender: katomic's previous spinlock_t (before issue 11), kept as a
 * comparison point: a fair ticket lock on katomic's C11 atomics whose
 * waiters spin 256 times between sched_yield() calls and never sleep.
 */
#include <katomic/katomic.h>

#define KB_DESC "katomic's previous ticket spinlock_t (c11 backend)"

typedef union {
	atomic_t val;
	struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		unsigned short next, owner;
#else
		unsigned short owner, next;
#endif
	} tickets;
} kb_ticket_t;

static inline void kb_ticket_lock(kb_ticket_t *lock)
{
	unsigned int v = (unsigned int)atomic_fetch_add_acquire(1 << 16, &lock->val);
	unsigned short ticket = (unsigned short)(v >> 16);
	unsigned spins = 0;

	if ((unsigned short)v == ticket)
		return;
	while (smp_load_acquire(&lock->tickets.owner) != ticket) {
		if (++spins < 256) {
			cpu_relax();
		} else {
			spins = 0;
			sched_yield();
		}
	}
}

static inline void kb_ticket_unlock(kb_ticket_t *lock)
{
	smp_store_release(&lock->tickets.owner, (unsigned short)(READ_ONCE(lock->tickets.owner) + 1));
}

#define KB_LOCK_T		kb_ticket_t
#define KB_LOCK_INIT(l)		atomic_set(&(l)->val, 0)
#define KB_LOCK(l)		kb_ticket_lock(l)
#define KB_UNLOCK(l)		kb_ticket_unlock(l)
#define KB_WHAT_spinlock	"ticket lock, spins 256 x pause then sched_yield (katomic before issue 11)"

#include "kernels.h"
