/* SPDX-License-Identifier: MIT */
/*
 * atomic_t, atomic64_t, atomic_long_t and the kernel's 85 operations on each
 * (include/katomic/generated/, from gen/atomics.tbl).  Orderings are the
 * kernel's: value-returning RMWs without a suffix are fully ordered, void
 * RMWs and _relaxed ones are unordered, a conditional op that does not store
 * gives no ordering.  Arithmetic wraps (two's complement), never UB.
 */
#ifndef KATOMIC_ATOMIC_H
#define KATOMIC_ATOMIC_H

#include "compiler.h"
#include "backend.h"
#include "barrier.h"

typedef struct { int counter; } ka_atomic_t;
/* 8-byte aligned on 32-bit targets too, so that it can be accessed in one go. */
typedef struct { long long counter __attribute__((__aligned__(8))); } ka_atomic64_t;
typedef struct { long counter; } ka_atomic_long_t;

#define KA_ATOMIC_INIT(i)	{ (i) }
#define KA_ATOMIC64_INIT(i)	{ (i) }
#define KA_ATOMIC_LONG_INIT(i)	{ (i) }

#include "generated/atomic.h"
#include "generated/atomic64.h"
#include "generated/atomic-long.h"

/* Wait until c (an expression of VAL, the value read) holds; return that value. */
#define ka_atomic_cond_read_relaxed(v, c)	ka_smp_cond_load_relaxed(&(v)->counter, (c))
#define ka_atomic_cond_read_acquire(v, c)	ka_smp_cond_load_acquire(&(v)->counter, (c))
#define ka_atomic64_cond_read_relaxed(v, c)	ka_smp_cond_load_relaxed(&(v)->counter, (c))
#define ka_atomic64_cond_read_acquire(v, c)	ka_smp_cond_load_acquire(&(v)->counter, (c))
#define ka_atomic_long_cond_read_relaxed(v, c)	ka_smp_cond_load_relaxed(&(v)->counter, (c))
#define ka_atomic_long_cond_read_acquire(v, c)	ka_smp_cond_load_acquire(&(v)->counter, (c))

#include "generated/names-atomic.h"
/* atomic_fetch_add & co.: the kernel's and <stdatomic.h>'s at once. */
#include "stdatomic-bridge.h"

#endif /* KATOMIC_ATOMIC_H */
