/* SPDX-License-Identifier: MIT */
/*
 * Contender: glibc's default pthread_mutex_t (lock workloads only): the lock
 * a user moving kernel code to user space would otherwise take.  It sleeps
 * in futex() when contended and lets a running thread barge in.
 */
#include <pthread.h>

#define KB_DESC "glibc pthread_mutex_t (default attributes)"

#define KB_LOCK_T		pthread_mutex_t
#define KB_LOCK_INIT(l)		pthread_mutex_init((l), NULL)
#define KB_LOCK(l)		pthread_mutex_lock(l)
#define KB_UNLOCK(l)		pthread_mutex_unlock(l)
#define KB_WHAT_spinlock	"pthread_mutex_lock (futex: spins not, sleeps when contended, unfair)"

#include "kernels.h"
