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
 * RCU read-side critical sections: compiler barriers (no test here waits
 * for a grace period; tests calling synchronize_rcu() are skipped).
 */
#ifndef rcu_read_lock
#define rcu_read_lock() barrier()
#define rcu_read_unlock() barrier()
#endif

/* Cells of one iteration per 64-byte line; KL_BMAX iterations per batch at most. */
#ifndef KL_BMAX
#define KL_BMAX 16384
#endif
