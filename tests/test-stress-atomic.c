/* SPDX-License-Identifier: MIT */
/*
 * Lost-update stress for every read-modify-write family of atomic_t,
 * atomic64_t and atomic_long_t, and for the size-generic xchg/cmpxchg on a
 * long, a short and (cmpxchg64) a long long, with 2 and 4 threads released
 * together.  Every check has an exact expected result:
 *
 *  - add/sub/inc/dec in every form: the final value, and for the value
 *    returning forms that the old values seen are exactly start, start+d, ...
 *    each once (a lost update or a wrong return value both show);
 *  - and/or/xor/andnot: each thread flips bits only it owns, checks them in
 *    every returned old value, and the final word is exact;
 *  - xchg: token passing, the tokens at the end are exactly those at the start;
 *  - cmpxchg/try_cmpxchg: increment loops, checked like fetch_inc;
 *  - the conditional ops on bounded counters: exact number of successes;
 *  - *_and_test: exactly one zero crossing; add_negative: exact count.
 *
 * The 64-bit types start where the low 32 bits wrap or are zero, so that an
 * implementation that works on 32 bits only fails.
 */
#include <katomic/katomic.h>
#include "tap.h"
#include "stress.h"

typedef long long (*opfn)(void *v, long long a, long long b);

/* -------------------------------------------------------------- wrappers */

/* How an op is called, with v the atomic, a and b the operands. */
#define CALL_IV(n, T, VT)	n((VT)a, (T *)p)
#define CALL_V(n, T, VT)	n((T *)p)
#define CALL_VA(n, T, VT)	n((T *)p, (VT)a)
#define CALL_VAU(n, T, VT)	n((T *)p, (VT)a, (VT)b)
#define KIND_VOID(e)		e; return 0;
#define KIND_RET(e)		return (long long)(e);
#define KIND_FETCH(e)		return (long long)(e);
#define KIND_VAL(e)		return (long long)(e);

#define WRAP(fn, name, shape, kind, T, VT)					\
	static long long fn(void *p, long long a, long long b)			\
	{ (void)a; (void)b; KIND_##kind(CALL_##shape(name, T, VT)) }

/* The wrapper of op n (n is expanded first: atomic_add -> w_ka_atomic_add). */
#define W(n)			W_(n)
#define W_(n)			w_##n

/* One wrapper per type for a row naming the op on all three types. */
#define GEN3(kind, shape, a32, a64, al)						\
	WRAP(W(a32), a32, shape, kind, atomic_t, int)				\
	WRAP(W(a64), a64, shape, kind, atomic64_t, long long)			\
	WRAP(W(al), al, shape, kind, atomic_long_t, long)

/* ------------------------------------------------------- add/sub/inc/dec */

enum { K_VOID, K_RET, K_FETCH };

/* kind, operand, effect on the value, call shape, the op on the three types */
#define ARITH_OPS(X)										\
	X(VOID,  3,  3, IV, atomic_add,                atomic64_add,                atomic_long_add) \
	X(RET,   3,  3, IV, atomic_add_return,         atomic64_add_return,         atomic_long_add_return) \
	X(RET,   3,  3, IV, atomic_add_return_acquire, atomic64_add_return_acquire, atomic_long_add_return_acquire) \
	X(RET,   3,  3, IV, atomic_add_return_release, atomic64_add_return_release, atomic_long_add_return_release) \
	X(RET,   3,  3, IV, atomic_add_return_relaxed, atomic64_add_return_relaxed, atomic_long_add_return_relaxed) \
	X(FETCH, 3,  3, IV, atomic_fetch_add,          atomic64_fetch_add,          atomic_long_fetch_add) \
	X(FETCH, 3,  3, IV, atomic_fetch_add_acquire,  atomic64_fetch_add_acquire,  atomic_long_fetch_add_acquire) \
	X(FETCH, 3,  3, IV, atomic_fetch_add_release,  atomic64_fetch_add_release,  atomic_long_fetch_add_release) \
	X(FETCH, 3,  3, IV, atomic_fetch_add_relaxed,  atomic64_fetch_add_relaxed,  atomic_long_fetch_add_relaxed) \
	X(VOID,  5, -5, IV, atomic_sub,                atomic64_sub,                atomic_long_sub) \
	X(RET,   5, -5, IV, atomic_sub_return,         atomic64_sub_return,         atomic_long_sub_return) \
	X(RET,   5, -5, IV, atomic_sub_return_acquire, atomic64_sub_return_acquire, atomic_long_sub_return_acquire) \
	X(RET,   5, -5, IV, atomic_sub_return_release, atomic64_sub_return_release, atomic_long_sub_return_release) \
	X(RET,   5, -5, IV, atomic_sub_return_relaxed, atomic64_sub_return_relaxed, atomic_long_sub_return_relaxed) \
	X(FETCH, 5, -5, IV, atomic_fetch_sub,          atomic64_fetch_sub,          atomic_long_fetch_sub) \
	X(FETCH, 5, -5, IV, atomic_fetch_sub_acquire,  atomic64_fetch_sub_acquire,  atomic_long_fetch_sub_acquire) \
	X(FETCH, 5, -5, IV, atomic_fetch_sub_release,  atomic64_fetch_sub_release,  atomic_long_fetch_sub_release) \
	X(FETCH, 5, -5, IV, atomic_fetch_sub_relaxed,  atomic64_fetch_sub_relaxed,  atomic_long_fetch_sub_relaxed) \
	X(VOID,  0,  1, V,  atomic_inc,                atomic64_inc,                atomic_long_inc) \
	X(RET,   0,  1, V,  atomic_inc_return,         atomic64_inc_return,         atomic_long_inc_return) \
	X(RET,   0,  1, V,  atomic_inc_return_acquire, atomic64_inc_return_acquire, atomic_long_inc_return_acquire) \
	X(RET,   0,  1, V,  atomic_inc_return_release, atomic64_inc_return_release, atomic_long_inc_return_release) \
	X(RET,   0,  1, V,  atomic_inc_return_relaxed, atomic64_inc_return_relaxed, atomic_long_inc_return_relaxed) \
	X(FETCH, 0,  1, V,  atomic_fetch_inc,          atomic64_fetch_inc,          atomic_long_fetch_inc) \
	X(FETCH, 0,  1, V,  atomic_fetch_inc_acquire,  atomic64_fetch_inc_acquire,  atomic_long_fetch_inc_acquire) \
	X(FETCH, 0,  1, V,  atomic_fetch_inc_release,  atomic64_fetch_inc_release,  atomic_long_fetch_inc_release) \
	X(FETCH, 0,  1, V,  atomic_fetch_inc_relaxed,  atomic64_fetch_inc_relaxed,  atomic_long_fetch_inc_relaxed) \
	X(VOID,  0, -1, V,  atomic_dec,                atomic64_dec,                atomic_long_dec) \
	X(RET,   0, -1, V,  atomic_dec_return,         atomic64_dec_return,         atomic_long_dec_return) \
	X(RET,   0, -1, V,  atomic_dec_return_acquire, atomic64_dec_return_acquire, atomic_long_dec_return_acquire) \
	X(RET,   0, -1, V,  atomic_dec_return_release, atomic64_dec_return_release, atomic_long_dec_return_release) \
	X(RET,   0, -1, V,  atomic_dec_return_relaxed, atomic64_dec_return_relaxed, atomic_long_dec_return_relaxed) \
	X(FETCH, 0, -1, V,  atomic_fetch_dec,          atomic64_fetch_dec,          atomic_long_fetch_dec) \
	X(FETCH, 0, -1, V,  atomic_fetch_dec_acquire,  atomic64_fetch_dec_acquire,  atomic_long_fetch_dec_acquire) \
	X(FETCH, 0, -1, V,  atomic_fetch_dec_release,  atomic64_fetch_dec_release,  atomic_long_fetch_dec_release) \
	X(FETCH, 0, -1, V,  atomic_fetch_dec_relaxed,  atomic64_fetch_dec_relaxed,  atomic_long_fetch_dec_relaxed)

#define GEN_ARITH(kind, arg, delta, shape, a32, a64, al) GEN3(kind, shape, a32, a64, al)
ARITH_OPS(GEN_ARITH)

/* --------------------------------------------- cmpxchg increment loops */

/* One increment by a compare-and-swap loop; returns the old value. */
#define CAS_CMPXCHG(fn, name, T, VT, READ)					\
	static long long fn(void *p, long long a, long long b)			\
	{									\
		T *v = p;							\
		VT old = READ, prev;						\
		(void)a; (void)b;						\
		while ((prev = name(v, old, (VT)((unsigned long long)old + 1))) != old) \
			old = prev;						\
		return (long long)old;						\
	}
#define CAS_TRY(fn, name, T, VT, READ)						\
	static long long fn(void *p, long long a, long long b)			\
	{									\
		T *v = p;							\
		VT old = READ;							\
		(void)a; (void)b;						\
		while (!name(v, &old, (VT)((unsigned long long)old + 1)))	\
			;							\
		return (long long)old;						\
	}

#define CAS_OPS(X)									\
	X(CMPXCHG, atomic_cmpxchg,             atomic64_cmpxchg,             atomic_long_cmpxchg) \
	X(CMPXCHG, atomic_cmpxchg_acquire,     atomic64_cmpxchg_acquire,     atomic_long_cmpxchg_acquire) \
	X(CMPXCHG, atomic_cmpxchg_release,     atomic64_cmpxchg_release,     atomic_long_cmpxchg_release) \
	X(CMPXCHG, atomic_cmpxchg_relaxed,     atomic64_cmpxchg_relaxed,     atomic_long_cmpxchg_relaxed) \
	X(TRY,     atomic_try_cmpxchg,         atomic64_try_cmpxchg,         atomic_long_try_cmpxchg) \
	X(TRY,     atomic_try_cmpxchg_acquire, atomic64_try_cmpxchg_acquire, atomic_long_try_cmpxchg_acquire) \
	X(TRY,     atomic_try_cmpxchg_release, atomic64_try_cmpxchg_release, atomic_long_try_cmpxchg_release) \
	X(TRY,     atomic_try_cmpxchg_relaxed, atomic64_try_cmpxchg_relaxed, atomic_long_try_cmpxchg_relaxed)

#define GEN_CAS(shape, a32, a64, al)							\
	CAS_##shape(W(a32), a32, atomic_t, int, atomic_read(v))			\
	CAS_##shape(W(a64), a64, atomic64_t, long long, atomic64_read(v))		\
	CAS_##shape(W(al), al, atomic_long_t, long, atomic_long_read(v))
CAS_OPS(GEN_CAS)

/* The size-generic ones, on a long and a short; cmpxchg64 on a long long. */
#define GCAS_OPS(X)				\
	X(CMPXCHG, cmpxchg)			\
	X(CMPXCHG, cmpxchg_acquire)		\
	X(CMPXCHG, cmpxchg_release)		\
	X(CMPXCHG, cmpxchg_relaxed)		\
	X(TRY,     try_cmpxchg)			\
	X(TRY,     try_cmpxchg_acquire)		\
	X(TRY,     try_cmpxchg_release)		\
	X(TRY,     try_cmpxchg_relaxed)
#define CAS64_OPS(X)				\
	X(CMPXCHG, cmpxchg64)			\
	X(CMPXCHG, cmpxchg64_acquire)		\
	X(CMPXCHG, cmpxchg64_release)		\
	X(CMPXCHG, cmpxchg64_relaxed)		\
	X(TRY,     try_cmpxchg64)		\
	X(TRY,     try_cmpxchg64_acquire)	\
	X(TRY,     try_cmpxchg64_release)	\
	X(TRY,     try_cmpxchg64_relaxed)

#define GEN_GCAS(shape, name)							\
	CAS_##shape(wl_##name, name, long, long, READ_ONCE(*v))			\
	CAS_##shape(ws_##name, name, short, short, READ_ONCE(*v))
#define GEN_CAS64(shape, name)							\
	CAS_##shape(wq_##name, name, long long, long long, READ_ONCE(*v))
GCAS_OPS(GEN_GCAS)
CAS64_OPS(GEN_CAS64)

/* ------------------------------------------------------ and/or/xor/andnot */

enum { C_OR, C_AND, C_ANDNOT, C_XOR };

/* Per class, the forms in the same order: void, full, acquire, release, relaxed. */
#define BIT_OPS(X)										\
	X(VOID,  OR,     atomic_or,                    atomic64_or,                    atomic_long_or) \
	X(FETCH, OR,     atomic_fetch_or,              atomic64_fetch_or,              atomic_long_fetch_or) \
	X(FETCH, OR,     atomic_fetch_or_acquire,      atomic64_fetch_or_acquire,      atomic_long_fetch_or_acquire) \
	X(FETCH, OR,     atomic_fetch_or_release,      atomic64_fetch_or_release,      atomic_long_fetch_or_release) \
	X(FETCH, OR,     atomic_fetch_or_relaxed,      atomic64_fetch_or_relaxed,      atomic_long_fetch_or_relaxed) \
	X(VOID,  AND,    atomic_and,                   atomic64_and,                   atomic_long_and) \
	X(FETCH, AND,    atomic_fetch_and,             atomic64_fetch_and,             atomic_long_fetch_and) \
	X(FETCH, AND,    atomic_fetch_and_acquire,     atomic64_fetch_and_acquire,     atomic_long_fetch_and_acquire) \
	X(FETCH, AND,    atomic_fetch_and_release,     atomic64_fetch_and_release,     atomic_long_fetch_and_release) \
	X(FETCH, AND,    atomic_fetch_and_relaxed,     atomic64_fetch_and_relaxed,     atomic_long_fetch_and_relaxed) \
	X(VOID,  ANDNOT, atomic_andnot,                atomic64_andnot,                atomic_long_andnot) \
	X(FETCH, ANDNOT, atomic_fetch_andnot,          atomic64_fetch_andnot,          atomic_long_fetch_andnot) \
	X(FETCH, ANDNOT, atomic_fetch_andnot_acquire,  atomic64_fetch_andnot_acquire,  atomic_long_fetch_andnot_acquire) \
	X(FETCH, ANDNOT, atomic_fetch_andnot_release,  atomic64_fetch_andnot_release,  atomic_long_fetch_andnot_release) \
	X(FETCH, ANDNOT, atomic_fetch_andnot_relaxed,  atomic64_fetch_andnot_relaxed,  atomic_long_fetch_andnot_relaxed) \
	X(VOID,  XOR,    atomic_xor,                   atomic64_xor,                   atomic_long_xor) \
	X(FETCH, XOR,    atomic_fetch_xor,             atomic64_fetch_xor,             atomic_long_fetch_xor) \
	X(FETCH, XOR,    atomic_fetch_xor_acquire,     atomic64_fetch_xor_acquire,     atomic_long_fetch_xor_acquire) \
	X(FETCH, XOR,    atomic_fetch_xor_release,     atomic64_fetch_xor_release,     atomic_long_fetch_xor_release) \
	X(FETCH, XOR,    atomic_fetch_xor_relaxed,     atomic64_fetch_xor_relaxed,     atomic_long_fetch_xor_relaxed)

#define GEN_BITS(kind, cls, a32, a64, al) GEN3(kind, IV, a32, a64, al)
BIT_OPS(GEN_BITS)

/* ---------------------------------------------------------------- xchg */

#define XCHG_OPS(X)								\
	X(atomic_xchg,         atomic64_xchg,         atomic_long_xchg)		\
	X(atomic_xchg_acquire, atomic64_xchg_acquire, atomic_long_xchg_acquire)	\
	X(atomic_xchg_release, atomic64_xchg_release, atomic_long_xchg_release)	\
	X(atomic_xchg_relaxed, atomic64_xchg_relaxed, atomic_long_xchg_relaxed)
#define GEN_XCHG(a32, a64, al) GEN3(VAL, VA, a32, a64, al)
XCHG_OPS(GEN_XCHG)

#define GXCHG_OPS(X) X(xchg) X(xchg_acquire) X(xchg_release) X(xchg_relaxed)
#define GEN_GXCHG(name)								\
	static long long wl_##name(void *p, long long a, long long b)		\
	{ (void)b; return name((long *)p, (long)a); }				\
	static long long ws_##name(void *p, long long a, long long b)		\
	{ (void)b; return name((short *)p, (short)a); }
GXCHG_OPS(GEN_GXCHG)

/* ------------------------------------------------------ conditional ops */

#define COND_OPS(X)											\
	X(VAU, add_unless,           atomic_add_unless,           atomic64_add_unless,           atomic_long_add_unless) \
	X(VAU, fetch_add_unless,     atomic_fetch_add_unless,     atomic64_fetch_add_unless,     atomic_long_fetch_add_unless) \
	X(V,   inc_not_zero,         atomic_inc_not_zero,         atomic64_inc_not_zero,         atomic_long_inc_not_zero) \
	X(V,   inc_unless_negative,  atomic_inc_unless_negative,  atomic64_inc_unless_negative,  atomic_long_inc_unless_negative) \
	X(V,   dec_unless_positive,  atomic_dec_unless_positive,  atomic64_dec_unless_positive,  atomic_long_dec_unless_positive) \
	X(V,   dec_if_positive,      atomic_dec_if_positive,      atomic64_dec_if_positive,      atomic_long_dec_if_positive) \
	X(V,   dec_and_test,         atomic_dec_and_test,         atomic64_dec_and_test,         atomic_long_dec_and_test) \
	X(V,   inc_and_test,         atomic_inc_and_test,         atomic64_inc_and_test,         atomic_long_inc_and_test) \
	X(IV,  sub_and_test,         atomic_sub_and_test,         atomic64_sub_and_test,         atomic_long_sub_and_test) \
	X(IV,  add_negative,         atomic_add_negative,         atomic64_add_negative,         atomic_long_add_negative) \
	X(IV,  add_negative_acquire, atomic_add_negative_acquire, atomic64_add_negative_acquire, atomic_long_add_negative_acquire) \
	X(IV,  add_negative_release, atomic_add_negative_release, atomic64_add_negative_release, atomic_long_add_negative_release) \
	X(IV,  add_negative_relaxed, atomic_add_negative_relaxed, atomic64_add_negative_relaxed, atomic_long_add_negative_relaxed)

#define GEN_COND(shape, field, a32, a64, al) GEN3(VAL, shape, a32, a64, al)
COND_OPS(GEN_COND)

/* ---------------------------------------------------------- the tables */

struct op {
	const char *name;
	int kind;		/* K_VOID, K_RET (returns the new value), K_FETCH (the old) */
	int cls;		/* C_* for the bit ops */
	long long arg;		/* operand */
	long long delta;	/* what one op adds to the value */
	opfn fn;
};

struct named { const char *name; opfn fn; };

struct cond_ops {
#define COND_FIELD(shape, field, a32, a64, al) struct named field;
	COND_OPS(COND_FIELD)
};

/* A value type: an atomic type, or a scalar for the size-generic ops. */
struct vtype {
	const char *name;
	int bits;
	long long (*read)(void *);
	void (*set)(void *, long long);
	const struct op *arith;	size_t narith;	/* also the cmpxchg loops */
	const struct op *bit;	size_t nbit;
	const struct named *xchg; size_t nxchg;
	const struct cond_ops *cond;
};

static long long rd32(void *p) { return atomic_read((atomic_t *)p); }
static long long rd64(void *p) { return atomic64_read((atomic64_t *)p); }
static long long rdl(void *p) { return atomic_long_read((atomic_long_t *)p); }
static void st32(void *p, long long x) { atomic_set((atomic_t *)p, (int)x); }
static void st64(void *p, long long x) { atomic64_set((atomic64_t *)p, x); }
static void stl(void *p, long long x) { atomic_long_set((atomic_long_t *)p, (long)x); }
static long long rdgl(void *p) { return READ_ONCE(*(long *)p); }
static long long rdgs(void *p) { return READ_ONCE(*(short *)p); }
static long long rdgq(void *p) { return READ_ONCE(*(long long *)p); }
static void stgl(void *p, long long x) { WRITE_ONCE(*(long *)p, (long)x); }
static void stgs(void *p, long long x) { WRITE_ONCE(*(short *)p, (short)x); }
static void stgq(void *p, long long x) { WRITE_ONCE(*(long long *)p, x); }

#define E_ARITH_0(kind, arg, delta, shape, a32, a64, al) { #a32, K_##kind, 0, arg, delta, W(a32) },
#define E_ARITH_1(kind, arg, delta, shape, a32, a64, al) { #a64, K_##kind, 0, arg, delta, W(a64) },
#define E_ARITH_2(kind, arg, delta, shape, a32, a64, al) { #al,  K_##kind, 0, arg, delta, W(al) },
#define E_CAS_0(shape, a32, a64, al) { #a32, K_FETCH, 0, 0, 1, W(a32) },
#define E_CAS_1(shape, a32, a64, al) { #a64, K_FETCH, 0, 0, 1, W(a64) },
#define E_CAS_2(shape, a32, a64, al) { #al,  K_FETCH, 0, 0, 1, W(al) },
#define E_BITS_0(kind, cls, a32, a64, al) { #a32, K_##kind, C_##cls, 0, 0, W(a32) },
#define E_BITS_1(kind, cls, a32, a64, al) { #a64, K_##kind, C_##cls, 0, 0, W(a64) },
#define E_BITS_2(kind, cls, a32, a64, al) { #al,  K_##kind, C_##cls, 0, 0, W(al) },
#define E_XCHG_0(a32, a64, al) { #a32, W(a32) },
#define E_XCHG_1(a32, a64, al) { #a64, W(a64) },
#define E_XCHG_2(a32, a64, al) { #al,  W(al) },
#define E_COND_0(shape, field, a32, a64, al) .field = { #a32, W(a32) },
#define E_COND_1(shape, field, a32, a64, al) .field = { #a64, W(a64) },
#define E_COND_2(shape, field, a32, a64, al) .field = { #al,  W(al) },

static const struct op arith_ops[3][36 + 8] = {
	{ ARITH_OPS(E_ARITH_0) CAS_OPS(E_CAS_0) },
	{ ARITH_OPS(E_ARITH_1) CAS_OPS(E_CAS_1) },
	{ ARITH_OPS(E_ARITH_2) CAS_OPS(E_CAS_2) },
};
static const struct op bit_ops[3][20] = {
	{ BIT_OPS(E_BITS_0) }, { BIT_OPS(E_BITS_1) }, { BIT_OPS(E_BITS_2) },
};
static const struct named xchg_ops[3][4] = {
	{ XCHG_OPS(E_XCHG_0) }, { XCHG_OPS(E_XCHG_1) }, { XCHG_OPS(E_XCHG_2) },
};
static const struct cond_ops cond_ops[3] = {
	{ COND_OPS(E_COND_0) }, { COND_OPS(E_COND_1) }, { COND_OPS(E_COND_2) },
};

#define E_GCAS_L(shape, name) { #name " on long", K_FETCH, 0, 0, 1, wl_##name },
#define E_GCAS_S(shape, name) { #name " on short", K_FETCH, 0, 0, 1, ws_##name },
#define E_CAS64(shape, name) { #name " on long long", K_FETCH, 0, 0, 1, wq_##name },
#define E_GXCHG_L(name) { #name " on long", wl_##name },
#define E_GXCHG_S(name) { #name " on short", ws_##name },
static const struct op gcas_long[] = { GCAS_OPS(E_GCAS_L) };
static const struct op gcas_short[] = { GCAS_OPS(E_GCAS_S) };
static const struct op cas64_ll[] = { CAS64_OPS(E_CAS64) };
static const struct named gxchg_long[] = { GXCHG_OPS(E_GXCHG_L) };
static const struct named gxchg_short[] = { GXCHG_OPS(E_GXCHG_S) };

#define N_(a) (sizeof(a) / sizeof((a)[0]))

static const struct vtype types[] = {
	{ "atomic_t", 32, rd32, st32, arith_ops[0], N_(arith_ops[0]), bit_ops[0], 20, xchg_ops[0], 4, &cond_ops[0] },
	{ "atomic64_t", 64, rd64, st64, arith_ops[1], N_(arith_ops[1]), bit_ops[1], 20, xchg_ops[1], 4, &cond_ops[1] },
	{ "atomic_long_t", __SIZEOF_LONG__ * 8, rdl, stl, arith_ops[2], N_(arith_ops[2]), bit_ops[2], 20, xchg_ops[2], 4, &cond_ops[2] },
	{ "long", __SIZEOF_LONG__ * 8, rdgl, stgl, gcas_long, N_(gcas_long), NULL, 0, gxchg_long, N_(gxchg_long), NULL },
	{ "short", 16, rdgs, stgs, gcas_short, N_(gcas_short), NULL, 0, gxchg_short, N_(gxchg_short), NULL },
	{ "long long", 64, rdgq, stgq, cas64_ll, N_(cas64_ll), NULL, 0, NULL, 0, NULL },
};

/* ------------------------------------------------------------- harness */

/* The shared variable, alone on its cache line(s). */
static union {
	atomic_t a; atomic64_t a64; atomic_long_t al; long l; short s; long long ll;
	char pad[128];
} shared __attribute__((aligned(128)));
#define V ((void *)&shared)

static long N;			/* iterations per thread */
static long long *rec[STRESS_MAX_THREADS];	/* per-thread returned values */
static long long res[STRESS_MAX_THREADS][4];	/* per-thread counters */
static double total_time;

static void run(int nthreads, stress_fn *fn, void *arg)
{
	memset(res, 0, sizeof(res));
	total_time += stress_run(nthreads, fn, arg);
}

/* x reduced to the type's width, sign-extended: what read() returns. */
static long long wrap(long long x, int bits)
{
	unsigned long long u = (unsigned long long)x;

	if (bits == 64)
		return x;
	u &= (1ULL << bits) - 1;
	if (u >> (bits - 1))
		u |= ~0ULL << bits;
	return (long long)u;
}

/* -- arithmetic and cmpxchg loops: exact final value and returned values */

struct arith_ctx { const struct op *op; long n; };

static void arith_worker(int idx, void *arg)
{
	const struct arith_ctx *c = arg;
	const struct op *op = c->op;
	long long *r = rec[idx];
	long i;

	for (i = 0; i < c->n; i++) {
		long long x = op->fn(V, op->arg, 0);

		if (op->kind != K_VOID)
			r[i] = x;
	}
}

static void test_arith(const struct vtype *t, const struct op *op, int nthreads)
{
	long n = t->bits == 16 ? (N < 6000 ? N : 6000) : N;
	long long total = (long long)nthreads * n;
	long long span = total * (op->delta < 0 ? -op->delta : op->delta);
	/* 64-bit: cross 2^32, where a 32-bit implementation would wrap. */
	long long start = (t->bits == 64 ? (1LL << 32) : 0) - span / 2;
	struct arith_ctx c = { op, n };
	long long expect = start + total * op->delta, got;
	long bad = 0, i;
	int th;

	t->set(V, start);
	run(nthreads, arith_worker, &c);
	got = t->read(V);
	ok(got == wrap(expect, t->bits), "%s %s, %d threads x %ld: final %lld (expected %lld)",
	   t->name, op->name, nthreads, n, got, wrap(expect, t->bits));
	if (op->kind == K_VOID)
		return;

	/* The old values must be start + k*delta for k = 0 .. total-1, each once. */
	unsigned char *seen = calloc((size_t)total, 1);

	for (th = 0; th < nthreads; th++)
		for (i = 0; i < n; i++) {
			long long old = rec[th][i] - (op->kind == K_RET ? op->delta : 0);
			long long off = old - start, k = off / op->delta;

			if (off % op->delta || k < 0 || k >= total || seen[k]++)
				bad++;
		}
	free(seen);
	ok(bad == 0, "%s %s, %d threads: every old value seen exactly once (%ld bad)",
	   t->name, op->name, nthreads, bad);
}

/* -- and/or/xor/andnot: per-thread bits, checked in every returned value */

static unsigned long long own_bits(int idx, int bits)
{
	return (0x3ULL << (3 * idx)) | (1ULL << ((bits == 64 ? 35 : 16) + 3 * idx));
}

/* Bits no thread touches: the sign bit and one in the middle. */
static unsigned long long canary(int bits)
{
	return (1ULL << (bits - 1)) | (1ULL << 28);
}

static unsigned long long ubits(long long x, int bits)
{
	return bits == 64 ? (unsigned long long)x : (unsigned long long)x & ((1ULL << bits) - 1);
}

struct bits_ctx { const struct vtype *t; const struct op *set, *clear; long n; };

/* set then clear own bits n times (set == clear: xor, toggled n times) */
static void bits_worker(int idx, void *arg)
{
	const struct bits_ctx *c = arg;
	int bits = c->t->bits;
	unsigned long long m = own_bits(idx, bits);
	long long notm = (long long)~m;
	long i, bad = 0;

	for (i = 0; i < c->n; i++) {
		const struct op *op = (c->set == c->clear || !(i & 1)) ? c->set : c->clear;
		long long arg = op->cls == C_AND ? notm : (long long)m;
		/* own bits before this op: set on odd steps */
		unsigned long long before = (i & 1) ? m : 0, after = m ^ before;
		long long r = op->fn(V, arg, 0);

		if (op->kind == K_FETCH) {
			if ((ubits(r, bits) & m) != before)
				bad++;
		} else if ((ubits(c->t->read(V), bits) & m) != after) {
			bad++;
		}
	}
	res[idx][0] = bad;
}

static void test_bits(const struct vtype *t, const struct op *set, const struct op *clear,
		      int nthreads)
{
	/* set/clear pairs end clear; xor toggles an odd number of times, ends set */
	long n = set == clear ? (N | 1) : (N & ~1L);
	struct bits_ctx c = { t, set, clear, n };
	unsigned long long expect = canary(t->bits), got;
	long bad = 0;
	int th;

	for (th = 0; th < nthreads && set == clear; th++)
		expect |= own_bits(th, t->bits);
	t->set(V, (long long)canary(t->bits));
	run(nthreads, bits_worker, &c);
	for (th = 0; th < nthreads; th++)
		bad += res[th][0];
	got = ubits(t->read(V), t->bits);
	if (set == clear)
		ok(got == expect && bad == 0,
		   "%s %s, %d threads x %ld toggles: final %#llx (expected %#llx), %ld bad old values",
		   t->name, set->name, nthreads, n, got, expect, bad);
	else
		ok(got == expect && bad == 0,
		   "%s %s + %s, %d threads x %ld: final %#llx (expected %#llx), %ld bad old values",
		   t->name, set->name, clear->name, nthreads, n / 2, got, expect, bad);
}

/* -- xchg: token passing; at the end the tokens are those of the start */

static long long token(int k, int bits)
{
	unsigned long long x = (unsigned long long)(k + 1);

	return (long long)(bits == 16 ? x | x << 8 : bits == 32 ? x | x << 16 : x | x << 32 | 1ULL << 62);
}

/* The token number of x, or -1 if x is not a token (a torn value). */
static int token_of(long long x, int bits, int ntok)
{
	int k;

	for (k = 0; k < ntok; k++)
		if (wrap(token(k, bits), bits) == x)
			return k;
	return -1;
}

struct xchg_ctx { const struct vtype *t; const struct named *op; long n; int ntok; };

static void xchg_worker(int idx, void *arg)
{
	const struct xchg_ctx *c = arg;
	int bits = c->t->bits;
	long long held = wrap(token(idx + 1, bits), bits);
	long i, bad = 0;

	for (i = 0; i < c->n; i++) {
		held = c->op->fn(V, held, 0);
		if (token_of(held, bits, c->ntok) < 0)
			bad++;
	}
	res[idx][0] = bad;
	res[idx][1] = held;
}

static void test_xchg(const struct vtype *t, const struct named *op, int nthreads)
{
	struct xchg_ctx c = { t, op, N, nthreads + 1 };
	int count[STRESS_MAX_THREADS + 1] = { 0 }, th, k, dup = 0;
	long bad = 0;

	t->set(V, token(0, t->bits));
	run(nthreads, xchg_worker, &c);
	k = token_of(t->read(V), t->bits, c.ntok);
	if (k >= 0)
		count[k]++;
	else
		dup++;
	for (th = 0; th < nthreads; th++) {
		bad += res[th][0];
		k = token_of(res[th][1], t->bits, c.ntok);
		if (k >= 0)
			count[k]++;
		else
			dup++;
	}
	for (k = 0; k < c.ntok; k++)
		if (count[k] != 1)
			dup++;
	ok(bad == 0 && dup == 0,
	   "%s %s, %d threads x %ld: the %d tokens are all there once (%ld torn, %d lost/duplicated)",
	   t->name, op->name, nthreads, N, c.ntok, bad, dup);
}

/* -- conditional ops ---------------------------------------------------- */

struct cond_ctx {
	const struct vtype *t;
	const struct named *op;
	long long a, b;		/* operands */
	long n;
	int mode;
};

enum { M_BOOL, M_VALUE };

/* M_BOOL: count true results; M_VALUE: record the results. */
static void cond_worker(int idx, void *arg)
{
	const struct cond_ctx *c = arg;
	long i, yes = 0;

	for (i = 0; i < c->n; i++) {
		long long r = c->op->fn(V, c->a, c->b);

		if (c->mode == M_VALUE)
			rec[idx][i] = r;
		else if (r)
			yes++;
	}
	res[idx][0] = yes;
}

static long long cond_run(const struct vtype *t, const struct named *op, long long start,
			  long long a, long long b, int mode, int nthreads, long long *trues)
{
	struct cond_ctx c = { t, op, a, b, N, mode };
	int th;

	t->set(V, start);
	run(nthreads, cond_worker, &c);
	*trues = 0;
	for (th = 0; th < nthreads; th++)
		*trues += res[th][0];
	return t->read(V);
}

static void test_cond(const struct vtype *t, int nt)
{
	const struct cond_ops *o = t->cond;
	long long total = (long long)nt * N, hi = t->bits == 64 ? 1LL << 32 : 0;
	long long start, limit, got, yes, bad;
	long i;
	int th;

	/* add_unless(v, 1, limit): exactly limit - start successes. */
	start = hi - total / 4;
	limit = start + total / 2;
	got = cond_run(t, &o->add_unless, start, 1, limit, M_BOOL, nt, &yes);
	ok(got == limit && yes == limit - start,
	   "%s %s(v, 1, %lld) from %lld, %d threads x %ld: final %lld, %lld successes (expected %lld)",
	   t->name, o->add_unless.name, limit, start, nt, N, got, yes, limit - start);

	/* fetch_add_unless: the old values returned are start..limit-1 once, then limit. */
	got = cond_run(t, &o->fetch_add_unless, start, 1, limit, M_VALUE, nt, &yes);
	{
		unsigned char *seen = calloc((size_t)total, 1);

		bad = yes = 0;
		for (th = 0; th < nt; th++)
			for (i = 0; i < N; i++) {
				long long k = rec[th][i] - start;

				if (rec[th][i] == limit)
					continue;
				yes++;
				if (k < 0 || k >= limit - start || seen[k]++)
					bad++;
			}
		free(seen);
	}
	ok(got == limit && yes == limit - start && bad == 0,
	   "%s %s(v, 1, %lld), %d threads: final %lld, %lld successes (expected %lld), %lld bad old values",
	   t->name, o->fetch_add_unless.name, limit, nt, got, yes, limit - start, bad);

	/* inc_not_zero from -total/2: succeeds exactly until the value reaches 0. */
	start = -(total / 2);
	got = cond_run(t, &o->inc_not_zero, start, 0, 0, M_BOOL, nt, &yes);
	ok(got == 0 && yes == -start,
	   "%s %s from %lld, %d threads x %ld: stops at 0 (final %lld), %lld successes (expected %lld)",
	   t->name, o->inc_not_zero.name, start, nt, N, got, yes, -start);
	if (t->bits == 64) {
		/* through -2^32, whose low half is zero: never stops */
		start = -(1LL << 32) - total / 2;
		got = cond_run(t, &o->inc_not_zero, start, 0, 0, M_BOOL, nt, &yes);
		ok(got == start + total && yes == total,
		   "%s %s through -2^32 (low half zero), %d threads: %lld successes (expected %lld)",
		   t->name, o->inc_not_zero.name, nt, yes, total);
	}

	/* inc_unless_negative from 0 / dec_unless_positive from 0: always succeed. */
	got = cond_run(t, &o->inc_unless_negative, 0, 0, 0, M_BOOL, nt, &yes);
	ok(got == total && yes == total, "%s %s from 0, %d threads x %ld: final %lld, %lld successes",
	   t->name, o->inc_unless_negative.name, nt, N, got, yes);
	got = cond_run(t, &o->inc_unless_negative, -1, 0, 0, M_BOOL, nt, &yes);
	ok(got == -1 && yes == 0, "%s %s from -1: never succeeds (final %lld, %lld successes)",
	   t->name, o->inc_unless_negative.name, got, yes);
	got = cond_run(t, &o->dec_unless_positive, 0, 0, 0, M_BOOL, nt, &yes);
	ok(got == -total && yes == total, "%s %s from 0, %d threads x %ld: final %lld, %lld successes",
	   t->name, o->dec_unless_positive.name, nt, N, got, yes);
	got = cond_run(t, &o->dec_unless_positive, 1, 0, 0, M_BOOL, nt, &yes);
	ok(got == 1 && yes == 0, "%s %s from 1: never succeeds (final %lld, %lld successes)",
	   t->name, o->dec_unless_positive.name, got, yes);

	/* dec_if_positive: returns old - 1; exactly start successes, returning start-1..0. */
	start = t->bits == 64 ? (1LL << 32) + total / 4 : total / 2;
	got = cond_run(t, &o->dec_if_positive, start, 0, 0, M_VALUE, nt, &yes);
	{
		long long succ = t->bits == 64 ? total : start, fails = 0;
		unsigned char *seen = calloc((size_t)total, 1);

		bad = yes = 0;
		for (th = 0; th < nt; th++)
			for (i = 0; i < N; i++) {
				long long r = rec[th][i], k = start - 1 - r;

				if (r < 0) {
					fails++;
					if (r != -1)
						bad++;
					continue;
				}
				yes++;
				if (k < 0 || k >= total || seen[k]++)
					bad++;
			}
		free(seen);
		ok(got == start - succ && yes == succ && bad == 0,
		   "%s %s from %lld, %d threads x %ld: final %lld (expected %lld), %lld successes, %lld failures, %lld bad results",
		   t->name, o->dec_if_positive.name, start, nt, N, got, start - succ, yes, fails, bad);
	}
}

/* Exactly one zero crossing; add_negative: the exact number of negative results. */
static void test_and_test(const struct vtype *t, int nt)
{
	const struct cond_ops *o = t->cond;
	long long total = (long long)nt * N, start, got, yes;
	/* on 64 bits, steps of 2^32: the low half is always zero */
	long long step = t->bits == 64 ? 1LL << 32 : 3;
	const struct named *neg[] = { &o->add_negative, &o->add_negative_acquire,
				      &o->add_negative_release, &o->add_negative_relaxed };
	unsigned j;

	start = total / 2;
	got = cond_run(t, &o->dec_and_test, start, 0, 0, M_BOOL, nt, &yes);
	ok(got == start - total && yes == 1, "%s %s from %lld, %d threads x %ld: %lld true (expected 1), final %lld",
	   t->name, o->dec_and_test.name, start, nt, N, yes, got);
	got = cond_run(t, &o->inc_and_test, -start, 0, 0, M_BOOL, nt, &yes);
	ok(got == total - start && yes == 1, "%s %s from %lld, %d threads x %ld: %lld true (expected 1), final %lld",
	   t->name, o->inc_and_test.name, -start, nt, N, yes, got);
	got = cond_run(t, &o->sub_and_test, start * step, step, 0, M_BOOL, nt, &yes);
	ok(got == (start - total) * step && yes == 1,
	   "%s %s(%lld) from %lld, %d threads x %ld: %lld true (expected 1), final %lld",
	   t->name, o->sub_and_test.name, step, start * step, nt, N, yes, got);
	for (j = 0; j < 4; j++) {
		got = cond_run(t, neg[j], start * step, -step, 0, M_BOOL, nt, &yes);
		ok(got == (start - total) * step && yes == total - start,
		   "%s %s(%lld) from %lld, %d threads x %ld: %lld negative results (expected %lld)",
		   t->name, neg[j]->name, -step, start * step, nt, N, yes, total - start);
	}
}

/* -- the mode lock: inc_unless_negative vs dec_unless_positive exclude each other */

static int in_pos, in_neg;

static void mode_worker(int idx, void *arg)
{
	const struct vtype *t = arg;
	const struct cond_ops *o = t->cond;
	const struct named *take = (idx & 1) ? &o->dec_unless_positive : &o->inc_unless_negative;
	int *mine = (idx & 1) ? &in_neg : &in_pos, *other = (idx & 1) ? &in_pos : &in_neg;
	long i, yes = 0, viol = 0;

	for (i = 0; i < N; i++) {
		if (!take->fn(V, 0, 0))
			continue;
		yes++;
		__atomic_fetch_add(mine, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(other, __ATOMIC_SEQ_CST))
			viol++;
		__atomic_fetch_sub(mine, 1, __ATOMIC_SEQ_CST);
		/* give the mode back, a release after the section: fetch_{inc,dec}_release */
		if (idx & 1)
			(void)t->arith[25].fn(V, 0, 0);
		else
			(void)t->arith[34].fn(V, 0, 0);
	}
	res[idx][0] = yes;
	res[idx][1] = viol;
}

static void test_mode(const struct vtype *t, int nt)
{
	long long yes = 0, viol = 0, got;
	int th;

	t->set(V, 0);
	run(nt, mode_worker, (void *)t);
	for (th = 0; th < nt; th++) {
		yes += res[th][0];
		viol += res[th][1];
	}
	got = t->read(V);
	ok(got == 0 && viol == 0 && yes > 0,
	   "%s %s vs %s, %d threads x %ld: never both modes at once (%lld overlaps), final %lld, %lld successes",
	   t->name, t->cond->inc_unless_negative.name, t->cond->dec_unless_positive.name,
	   nt, N, viol, got, yes);
}

/* -- control: a load + store increment does lose updates here (diag only) */

static void racy_worker(int idx, void *arg)
{
	long i;

	(void)idx; (void)arg;
	for (i = 0; i < N; i++)
		__atomic_store_n(&shared.a.counter, __atomic_load_n(&shared.a.counter, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
}

int main(void)
{
	static const int nthreads[] = { 2, 4 };
	double t0 = stress_now();
	unsigned ti, j, k;
	int th;

	stress_watchdog(STRESS_TSAN ? 600 : 120);
	N = stress_iters(40000, 2000);
	for (th = 0; th < STRESS_MAX_THREADS; th++)
		rec[th] = malloc(sizeof(long long) * (size_t)N);

	/* sanity: the tables are what the code indexes */
	ok(!strcmp(arith_ops[0][25].name, "atomic_fetch_inc_release") &&
	   !strcmp(arith_ops[2][34].name, "atomic_long_fetch_dec_release") &&
	   !strcmp(bit_ops[1][19].name, "atomic64_fetch_xor_relaxed"), "op tables in the expected order");

	/*
	 * Control: a relaxed load + store "increment" loses updates when the
	 * threads really run at the same time, which is what lets the tests
	 * below fail.  Reported, not judged: on a loaded machine the threads may
	 * just take turns.
	 */
	{
		long lost = 0, tries;

		for (tries = 1; tries <= 10 && !lost; tries++) {
			shared.a.counter = 0;
			stress_run(2, racy_worker, NULL);
			lost = 2 * N - (long)shared.a.counter;
		}
		diag("control: a load + store increment, 2 threads x %ld, lost %ld updates (try %ld)%s",
		     N, lost, tries - 1, lost ? "" : ": the threads did not overlap, the machine is busy?");
	}

	for (k = 0; k < 2; k++) {
		int nt = nthreads[k];

		for (ti = 0; ti < N_(types); ti++) {
			const struct vtype *t = &types[ti];

			for (j = 0; j < t->narith; j++)
				test_arith(t, &t->arith[j], nt);
			for (j = 0; j < t->nxchg; j++)
				test_xchg(t, &t->xchg[j], nt);
			if (t->bit) {
				/* bit_ops: 5 of each class in the order OR, AND, ANDNOT, XOR */
				for (j = 0; j < 5; j++) {
					test_bits(t, &t->bit[j], &t->bit[5 + j], nt);
					test_bits(t, &t->bit[j], &t->bit[10 + j], nt);
					test_bits(t, &t->bit[15 + j], &t->bit[15 + j], nt);
				}
			}
			if (t->cond) {
				test_cond(t, nt);
				test_and_test(t, nt);
				test_mode(t, nt);
			}
		}
	}
	diag("%ld iterations per thread; %.2f s in the threads, %.2f s in all%s",
	     N, total_time, stress_now() - t0, STRESS_TSAN ? " (TSan)" : "");
	for (th = 0; th < STRESS_MAX_THREADS; th++)
		free(rec[th]);
	return done_testing();
}
