/* SPDX-License-Identifier: MIT */
/* Contender: glibc's pthread_spinlock_t (spinlock workload only). */
#include <pthread.h>

#define KB_DESC "glibc pthread_spinlock_t"

#define KB_LOCK_T		pthread_spinlock_t
#define KB_LOCK_INIT(l)		pthread_spin_init((l), PTHREAD_PROCESS_PRIVATE)
#define KB_LOCK(l)		pthread_spin_lock(l)
#define KB_UNLOCK(l)		pthread_spin_unlock(l)
#define KB_WHAT_spinlock	"pthread_spin_lock (test-and-set, spins, never yields)"

#include "kernels.h"
