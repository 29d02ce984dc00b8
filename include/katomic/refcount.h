/* SPDX-License-Identifier: MIT */
/*
 * refcount_t: a reference count that saturates instead of wrapping.  On
 * overflow, underflow, an increment from zero or a plain decrement to zero it
 * sets the count to REFCOUNT_SATURATED (INT_MIN / 2, far from both 0 and
 * INT_MAX, so racing updates cannot bring it back) and warns once on stderr;
 * the object then leaks rather than being freed while in use.
 *
 * Ordering (the kernel's): increments are unordered; decrements are RELEASE;
 * a decrement that reaches zero is also ACQUIRE; failed operations are
 * unordered.  Define your own ka_refcount_warn_saturate() to change the report.
 */
#ifndef KATOMIC_REFCOUNT_H
#define KATOMIC_REFCOUNT_H

#include <limits.h>
#include <stdio.h>
#include "atomic.h"
#include "spinlock.h"

typedef struct { ka_atomic_t refs; } ka_refcount_t;

#define KA_REFCOUNT_INIT(n)	{ KA_ATOMIC_INIT(n) }
#define KA_REFCOUNT_MAX		INT_MAX
#define KA_REFCOUNT_SATURATED	(INT_MIN / 2)

enum ka_refcount_saturation_type {
	KA_REFCOUNT_ADD_NOT_ZERO_OVF,
	KA_REFCOUNT_ADD_OVF,
	KA_REFCOUNT_ADD_UAF,
	KA_REFCOUNT_SUB_UAF,
	KA_REFCOUNT_DEC_LEAK,
};

/*
 * The report: ka_refcount_warn_saturate() if the program defines one (a weak
 * reference, so that a user's own, in any file of the module, wins), else
 * the default below.  It is out of line and emitted only where a refcount
 * operation that can saturate is used, once per module (__KA_ONCE_FN); a
 * program that never uses one does not link fprintf.  Or define
 * KATOMIC_NO_DEFAULT_REFCOUNT_WARN and supply ka_refcount_warn_saturate().
 */
#ifdef __cplusplus
extern "C" {
#endif
#ifdef KATOMIC_NO_DEFAULT_REFCOUNT_WARN
void ka_refcount_warn_saturate(ka_refcount_t *r, enum ka_refcount_saturation_type t);
#define __ka_refcount_warn(r, t) ka_refcount_warn_saturate(r, t)
#else
__attribute__((__weak__))
void ka_refcount_warn_saturate(ka_refcount_t *r, enum ka_refcount_saturation_type t);

/* Reported once per module. */
#if defined(__ELF__)
extern int __ka_refcount_warned_v2 __attribute__((__visibility__("hidden")));
#else
__attribute__((__weak__, __visibility__("hidden"))) int __ka_refcount_warned_v2;
#endif

__KA_ONCE_BEGIN
static inline void __ka_refcount_warn(ka_refcount_t *r, enum ka_refcount_saturation_type t) __asm__("__ka_refcount_warn_v2");
__KA_ONCE_FN("__ka_refcount_warn_v2") __attribute__((__cold__))
void __ka_refcount_warn(ka_refcount_t *r, enum ka_refcount_saturation_type t)
{
	__KA_ONCE_EXPORT("__ka_refcount_warn_v2");
	__KA_ONCE_BSS("__ka_refcount_warned_v2", sizeof(int), __alignof__(int));
	if (ka_refcount_warn_saturate) {
		ka_refcount_warn_saturate(r, t);
		return;
	}
	ka_atomic_set(&r->refs, KA_REFCOUNT_SATURATED);
	if (!__atomic_exchange_n(&__ka_refcount_warned_v2, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "katomic: refcount_t %p: %s (saturated; reported once)\n", (void *)r,
			t == KA_REFCOUNT_ADD_OVF ? "overflow; the object will leak" :
			t == KA_REFCOUNT_ADD_UAF ? "increment from zero; use after free" :
			t == KA_REFCOUNT_SUB_UAF ? "underflow; use after free" :
			t == KA_REFCOUNT_DEC_LEAK ? "plain decrement reached zero; the object will leak" :
			"overflow in inc_not_zero/add_not_zero; the object will leak");
}
__KA_ONCE_END
#endif
#ifdef __cplusplus
}
#endif

/* Sums computed without signed overflow: the kernel's counters wrap. */
#define __ka_rc_add(a, b) ((int)((unsigned int)(a) + (unsigned int)(b)))
#define __ka_rc_sub(a, b) ((int)((unsigned int)(a) - (unsigned int)(b)))

static __ka_always_inline void ka_refcount_set(ka_refcount_t *r, int n)
{
	ka_atomic_set(&r->refs, n);
}

static __ka_always_inline void ka_refcount_set_release(ka_refcount_t *r, int n)
{
	ka_atomic_set_release(&r->refs, n);
}

static __ka_always_inline unsigned int ka_refcount_read(const ka_refcount_t *r)
{
	return (unsigned int)ka_atomic_read(&r->refs);
}

static __ka_always_inline bool ka___refcount_add_not_zero(int i, ka_refcount_t *r, int *oldp)
{
	int old = ka_atomic_read(&r->refs);

	do {
		if (!old)
			break;
	} while (!ka_atomic_try_cmpxchg_relaxed(&r->refs, &old, __ka_rc_add(old, i)));
	if (oldp)
		*oldp = old;
	if (old < 0 || __ka_rc_add(old, i) < 0)
		__ka_refcount_warn(r, KA_REFCOUNT_ADD_NOT_ZERO_OVF);
	return old != 0;
}

static __ka_always_inline bool ka_refcount_add_not_zero(int i, ka_refcount_t *r)
{
	return ka___refcount_add_not_zero(i, r, (int *)0);
}

static __ka_always_inline bool ka___refcount_inc_not_zero(ka_refcount_t *r, int *oldp)
{
	return ka___refcount_add_not_zero(1, r, oldp);
}

static __ka_always_inline bool ka_refcount_inc_not_zero(ka_refcount_t *r)
{
	return ka___refcount_inc_not_zero(r, (int *)0);
}

static __ka_always_inline void ka___refcount_add(int i, ka_refcount_t *r, int *oldp)
{
	int old = ka_atomic_fetch_add_relaxed(i, &r->refs);

	if (oldp)
		*oldp = old;
	/*
	 * A variable i: one test for both failures, the kind picked on the cold
	 * path (with two tests gcc-12 keeps an extra copy of i in the fast
	 * path).  A constant i: two tests, which gcc folds into one unsigned
	 * compare (refcount_inc: old == 0, then old + 1 <= 0 as old > INT_MAX - 1).
	 */
	if (!__builtin_constant_p(i)) {
		if (__builtin_expect(old <= 0 || __ka_rc_add(old, i) < 0, 0))
			__ka_refcount_warn(r, old ? KA_REFCOUNT_ADD_OVF : KA_REFCOUNT_ADD_UAF);
	} else if (!old)
		__ka_refcount_warn(r, KA_REFCOUNT_ADD_UAF);
	else if (old < 0 || __ka_rc_add(old, i) < 0)
		__ka_refcount_warn(r, KA_REFCOUNT_ADD_OVF);
}

static __ka_always_inline void ka_refcount_add(int i, ka_refcount_t *r)
{
	ka___refcount_add(i, r, (int *)0);
}

static __ka_always_inline void ka___refcount_inc(ka_refcount_t *r, int *oldp)
{
	ka___refcount_add(1, r, oldp);
}

static __ka_always_inline void ka_refcount_inc(ka_refcount_t *r)
{
	ka___refcount_inc(r, (int *)0);
}

static __ka_always_inline bool ka___refcount_sub_and_test(int i, ka_refcount_t *r, int *oldp)
{
	int old = ka_atomic_fetch_sub_release(i, &r->refs);

	if (oldp)
		*oldp = old;
	if (old > 0 && old == i) {
		/* Reached zero: the caller frees, after everyone's last access. */
		ka_smp_acquire__after_ctrl_dep();
#ifdef __KA_TSAN
		(void)ka_atomic_read_acquire(&r->refs);	/* the same acquire, as TSan sees it */
#endif
		return true;
	}
	if (old <= 0 || __ka_rc_sub(old, i) < 0)
		__ka_refcount_warn(r, KA_REFCOUNT_SUB_UAF);
	return false;
}

static __ka_always_inline bool ka_refcount_sub_and_test(int i, ka_refcount_t *r)
{
	return ka___refcount_sub_and_test(i, r, (int *)0);
}

static __ka_always_inline bool ka___refcount_dec_and_test(ka_refcount_t *r, int *oldp)
{
	return ka___refcount_sub_and_test(1, r, oldp);
}

static __ka_always_inline bool ka_refcount_dec_and_test(ka_refcount_t *r)
{
	return ka___refcount_dec_and_test(r, (int *)0);
}

/* A decrement that must not reach zero (that would leak the object). */
static __ka_always_inline void ka___refcount_dec(ka_refcount_t *r, int *oldp)
{
	int old = ka_atomic_fetch_sub_release(1, &r->refs);

	if (oldp)
		*oldp = old;
	if (old <= 1)
		__ka_refcount_warn(r, KA_REFCOUNT_DEC_LEAK);
}

static __ka_always_inline void ka_refcount_dec(ka_refcount_t *r)
{
	ka___refcount_dec(r, (int *)0);
}

/* 1 -> 0 only; true if it did (release). */
static __ka_always_inline bool ka_refcount_dec_if_one(ka_refcount_t *r)
{
	int one = 1;

	return ka_atomic_try_cmpxchg_release(&r->refs, &one, 0);
}

/* Decrement unless the count is 1; true if it decremented (release). */
static __ka_always_inline bool ka_refcount_dec_not_one(ka_refcount_t *r)
{
	int val = ka_atomic_read(&r->refs);

	for (;;) {
		if (val == KA_REFCOUNT_SATURATED)
			return true;
		if (val == 1)
			return false;
		if (val <= 0)	/* 0 - 1 or a corrupted count: never wrap */
			break;
		if (ka_atomic_try_cmpxchg_release(&r->refs, &val, val - 1))
			return true;
	}
	/*
	 * Out of the loop: when the warning shared the loop's "return true",
	 * gcc-12 moved that return to the cold section and set up a stack
	 * frame on the fast path.
	 */
	__ka_refcount_warn(r, KA_REFCOUNT_SUB_UAF);
	return true;
}

/* Decrement; if that reaches zero, return true with lock held. */
static __ka_always_inline bool ka_refcount_dec_and_lock(ka_refcount_t *r, ka_spinlock_t *lock)
{
	if (ka_refcount_dec_not_one(r))
		return false;
	ka_spin_lock(lock);
	if (!ka_refcount_dec_and_test(r)) {
		ka_spin_unlock(lock);
		return false;
	}
	return true;
}

#include "generated/names-refcount.h"

#endif /* KATOMIC_REFCOUNT_H */
