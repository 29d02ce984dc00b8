/* SPDX-License-Identifier: MIT */
/*
 * The reference model the generated atomic tests (tests/generated/atomic-ops.c)
 * compare every atomic*_ function against: each operation of gen/atomics.tbl
 * written once, by hand, as plain non-atomic C on an ordinary integer.  It
 * shares nothing with the library (no katomic header is included) and
 * computes in the unsigned twin type, so that results wrap as the kernel's do
 * (it builds with -fno-strict-overflow) without signed-overflow UB.
 *
 * For each atomic type prefix PFX (atomic, atomic64, atomic_long), base type T:
 *   model_PFX_OP(...)   one per table operation OP.  Its parameters are the
 *                       kernel's, in the kernel's order, with the atomic
 *                       variable replaced by a plain T * (so a wrong argument
 *                       order in the table does not compile or does not pass).
 *                       It updates *v (and *old for try_cmpxchg) and returns
 *                       the operation's own result: the value read (read,
 *                       xchg, cmpxchg), a truth value (the _and_test ops,
 *                       add_negative, try_cmpxchg, the conditional ops:
 *                       "did it store"), old - 1 (dec_if_positive), or the
 *                       new value for the plain arithmetic/bitwise ops.
 *                       The generator derives what each family returns:
 *                       _return = new *v, fetch_ = old *v, others = result.
 *   model_PFX_edges[]   the edge values every argument and @v run through.
 *   MODEL_EDGES_PFX(X)  the same values as an X-macro list of constants.
 */
#ifndef KATOMIC_TESTS_MODEL_H
#define KATOMIC_TESTS_MODEL_H

#include <limits.h>

/* 0, +-1, 2, -2, the extremes and their neighbours, and mixed bit patterns. */
#define MODEL_EDGES(X, T, MIN, MAX, UMAX)					\
	X((T)0) X((T)1) X((T)-1) X((T)2) X((T)-2)				\
	X((T)(MIN)) X((T)((MIN) + 1)) X((T)(MAX)) X((T)((MAX) - 1))		\
	X((T)((UMAX) / 3))			/* 0x5555...   */			\
	X((T)((UMAX) / 3 * 2))			/* 0xaaaa...   */			\
	X((T)((UMAX) / 0xffff * 0x8001))	/* 0x80018001... */

#define MODEL_EDGES_atomic(X)	   MODEL_EDGES(X, int, INT_MIN, INT_MAX, UINT_MAX)
#define MODEL_EDGES_atomic64(X)	   MODEL_EDGES(X, long long, LLONG_MIN, LLONG_MAX, ULLONG_MAX)
#define MODEL_EDGES_atomic_long(X) MODEL_EDGES(X, long, LONG_MIN, LONG_MAX, ULONG_MAX)

#define MODEL_EDGE_ENTRY(e) e,

/* Wrapping arithmetic: in U, converted back to T (modulo 2^N with GCC and Clang). */
#define MODEL_ADD(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define MODEL_SUB(T, U, a, b) ((T)((U)(a) - (U)(b)))

#define MODEL_DEFINE(PFX, T, U)							\
static const T model_##PFX##_edges[] = { MODEL_EDGES_##PFX(MODEL_EDGE_ENTRY) }; \
									\
static inline T model_##PFX##_read(const T *v) { return *v; }		\
static inline T model_##PFX##_set(T *v, T i) { *v = i; return i; }	\
									\
static inline T model_##PFX##_add(T i, T *v)				\
{ return *v = MODEL_ADD(T, U, *v, i); }					\
static inline T model_##PFX##_sub(T i, T *v)				\
{ return *v = MODEL_SUB(T, U, *v, i); }					\
static inline T model_##PFX##_inc(T *v)					\
{ return *v = MODEL_ADD(T, U, *v, 1); }					\
static inline T model_##PFX##_dec(T *v)					\
{ return *v = MODEL_SUB(T, U, *v, 1); }					\
static inline T model_##PFX##_and(T i, T *v)				\
{ return *v = (T)((U)*v & (U)i); }					\
static inline T model_##PFX##_andnot(T i, T *v)				\
{ return *v = (T)((U)*v & ~(U)i); }					\
static inline T model_##PFX##_or(T i, T *v)				\
{ return *v = (T)((U)*v | (U)i); }					\
static inline T model_##PFX##_xor(T i, T *v)				\
{ return *v = (T)((U)*v ^ (U)i); }					\
									\
/* xchg returns what it replaced; cmpxchg what it read (== old iff stored). */ \
static inline T model_##PFX##_xchg(T *v, T newv)			\
{ T old = *v; *v = newv; return old; }					\
static inline T model_##PFX##_cmpxchg(T *v, T old, T newv)		\
{ T cur = *v; if (cur == old) *v = newv; return cur; }			\
/* try_cmpxchg writes *old only when it fails, with the value it read. */ \
static inline T model_##PFX##_try_cmpxchg(T *v, T *old, T newv)	\
{									\
	if (*v == *old) { *v = newv; return 1; }			\
	*old = *v;							\
	return 0;							\
}									\
									\
static inline T model_##PFX##_sub_and_test(T i, T *v)			\
{ return (*v = MODEL_SUB(T, U, *v, i)) == 0; }				\
static inline T model_##PFX##_dec_and_test(T *v)			\
{ return (*v = MODEL_SUB(T, U, *v, 1)) == 0; }				\
static inline T model_##PFX##_inc_and_test(T *v)			\
{ return (*v = MODEL_ADD(T, U, *v, 1)) == 0; }				\
static inline T model_##PFX##_add_negative(T i, T *v)			\
{ return (*v = MODEL_ADD(T, U, *v, i)) < 0; }				\
									\
/* The conditional ops return "did it store". */			\
static inline T model_##PFX##_add_unless(T *v, T a, T u)		\
{									\
	if (*v == u)							\
		return 0;						\
	*v = MODEL_ADD(T, U, *v, a);					\
	return 1;							\
}									\
static inline T model_##PFX##_inc_not_zero(T *v)			\
{									\
	if (*v == 0)							\
		return 0;						\
	*v = MODEL_ADD(T, U, *v, 1);					\
	return 1;							\
}									\
static inline T model_##PFX##_inc_unless_negative(T *v)		\
{									\
	if (*v < 0)							\
		return 0;						\
	*v = MODEL_ADD(T, U, *v, 1);					\
	return 1;							\
}									\
static inline T model_##PFX##_dec_unless_positive(T *v)		\
{									\
	if (*v > 0)							\
		return 0;						\
	*v = MODEL_SUB(T, U, *v, 1);					\
	return 1;							\
}									\
/* old - 1 (wrapped) whether or not it stored; stores it only if >= 0. */ \
static inline T model_##PFX##_dec_if_positive(T *v)			\
{									\
	T dec = MODEL_SUB(T, U, *v, 1);					\
	if (dec >= 0)							\
		*v = dec;						\
	return dec;							\
}

MODEL_DEFINE(atomic, int, unsigned int)
MODEL_DEFINE(atomic64, long long, unsigned long long)
MODEL_DEFINE(atomic_long, long, unsigned long)

#endif /* KATOMIC_TESTS_MODEL_H */
