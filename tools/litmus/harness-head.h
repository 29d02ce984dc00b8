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

/*
 * RCU.  With -DKL_URCU (the runner adds it, and -lurcu-memb, when liburcu is
 * installed and the test uses RCU): the read-side primitives and the grace
 * periods of liburcu's "memb" flavour; every harness thread registers.  The
 * functions are declared here rather than by <urcu/urcu-memb.h>, whose
 * barrier()/rcu_dereference() macros would clash with katomic's.
 * Without it: read-side critical sections are compiler barriers (tests
 * calling synchronize_rcu() are then skipped by the runner).
 */
#ifdef KL_URCU
extern void urcu_memb_read_lock(void);
extern void urcu_memb_read_unlock(void);
extern void urcu_memb_synchronize_rcu(void);
extern void urcu_memb_register_thread(void);
extern void urcu_memb_unregister_thread(void);
#undef rcu_read_lock
#undef rcu_read_unlock
#define rcu_read_lock() urcu_memb_read_lock()
#define rcu_read_unlock() urcu_memb_read_unlock()
#define synchronize_rcu() urcu_memb_synchronize_rcu()
#define synchronize_rcu_expedited() urcu_memb_synchronize_rcu()
#define KL_RCU_REGISTER() urcu_memb_register_thread()
#define KL_RCU_UNREGISTER() urcu_memb_unregister_thread()
#else
#define KL_RCU_REGISTER() ((void)0)
#define KL_RCU_UNREGISTER() ((void)0)
#endif
#ifndef rcu_read_lock
#define rcu_read_lock() barrier()
#define rcu_read_unlock() barrier()
#endif

/* Cells of one iteration per 64-byte line; KL_BMAX iterations per batch at most.
 * KL_SPREAD spare cells per variable let each batch move each variable's cells
 * (a different relative layout: page offsets, cache sets, prefetch streams). */
#ifndef KL_BMAX
#define KL_BMAX 16384
#endif
#ifndef KL_SPREAD
#define KL_SPREAD 512
#endif
