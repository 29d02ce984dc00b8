/* SPDX-License-Identifier: MIT */
/*
 * The differential test's replayer: one translation unit per backend.
 * Compiled with -DDIFF_NAME=<entry point> (and -DKATOMIC_BACKEND_ASM for the
 * asm one), or #included by test-differential.c for a single-backend run.
 *
 *   void DIFF_NAME(int kind, struct diff_state *st, struct diff_rec *rec, size_t n)
 *
 * replays the next n operations of st's sequence on st's memory through the
 * katomic API and writes their trace to rec[0..n-1].
 */
#include "diff.h"

#ifndef DIFF_NAME
#error "define DIFF_NAME, the name of the entry point"
#endif

void DIFF_NAME(int kind, struct diff_state *st, struct diff_rec *rec, size_t n);

/* How each shape of atomic_* op is called (P: ka_atomic, ka_atomic64, ka_atomic_long). */
#define DIFF_CALL_R(P, name)	r = (int64_t)P##_##name(v)
#define DIFF_CALL_S(P, name)	P##_##name(v, a)
#define DIFF_CALL_V(P, name)	P##_##name(a, v)
#define DIFF_CALL_V0(P, name)	P##_##name(v)
#define DIFF_CALL_RA(P, name)	r = (int64_t)P##_##name(a, v)
#define DIFF_CALL_XC(P, name)	r = (int64_t)P##_##name(v, a)
#define DIFF_CALL_C(P, name)	r = (int64_t)P##_##name(v, a, b)
#define DIFF_CALL_T(P, name)	do { o = a; r = (int64_t)P##_##name(v, &o, b); aux = (int64_t)o; } while (0)

#define DIFF_ATOMIC_RUN(fn, P, T, field)					\
static void fn(struct diff_state *st, struct diff_rec *rec, size_t n)		\
{										\
	P##_t *v = &st->field;							\
										\
	for (size_t k = 0; k < n; k++) {					\
		uint32_t op = (uint32_t)(diff_rand(&st->rng) % DIFF_NATOMIC_OPS); \
		int64_t cur = (int64_t)P##_read(v);				\
		T a = (T)diff_arg(&st->rng, cur), b = (T)diff_arg(&st->rng, cur), o = 0; \
		int64_t r = 0, aux = 0;						\
										\
		switch (op) {							\
		DIFF_ATOMIC_OPS(DIFF_CASE_##P)					\
		}								\
		rec[k].op = op;							\
		rec[k].ret = r;							\
		rec[k].mem = (int64_t)P##_read(v);				\
		rec[k].aux = aux;						\
	}									\
}
#define DIFF_CASE_ka_atomic(name, sh, ...)	case DIFF_OP_##name: DIFF_CALL_##sh(ka_atomic, name); break;
#define DIFF_CASE_ka_atomic64(name, sh, ...)	case DIFF_OP_##name: DIFF_CALL_##sh(ka_atomic64, name); break;
#define DIFF_CASE_ka_atomic_long(name, sh, ...)	case DIFF_OP_##name: DIFF_CALL_##sh(ka_atomic_long, name); break;

DIFF_ATOMIC_RUN(diff_run_atomic, ka_atomic, int, a)
DIFF_ATOMIC_RUN(diff_run_atomic64, ka_atomic64, long long, a64)
DIFF_ATOMIC_RUN(diff_run_atomic_long, ka_atomic_long, long, al)

/* Field types and conversions for the sized ops. */
#define DIFF_T_u8	unsigned char
#define DIFF_T_u16	unsigned short
#define DIFF_T_u32	unsigned int
#define DIFF_T_u64	unsigned long long
#define DIFF_T_ptr	void *
#define DIFF_TO_u8(x)	((unsigned char)(x))
#define DIFF_TO_u16(x)	((unsigned short)(x))
#define DIFF_TO_u32(x)	((unsigned int)(x))
#define DIFF_TO_u64(x)	((unsigned long long)(x))
#define DIFF_TO_ptr(x)	((void *)(uintptr_t)(x))
#define DIFF_FROM_u8(x)	((int64_t)(x))
#define DIFF_FROM_u16(x) ((int64_t)(x))
#define DIFF_FROM_u32(x) ((int64_t)(x))
#define DIFF_FROM_u64(x) ((int64_t)(x))
#define DIFF_FROM_ptr(x) ((int64_t)(uintptr_t)(x))

#define DIFF_MCALL_XCHG(fn, f)							\
	r = DIFF_FROM_##f(fn(&st->f, DIFF_TO_##f(a)));				\
	mem = DIFF_FROM_##f(st->f)
#define DIFF_MCALL_CMPX(fn, f)							\
	r = DIFF_FROM_##f(fn(&st->f, DIFF_TO_##f(a), DIFF_TO_##f(b)));		\
	mem = DIFF_FROM_##f(st->f)
#define DIFF_MCALL_TRY(fn, f) do {						\
	DIFF_T_##f o = DIFF_TO_##f(a);						\
	r = fn(&st->f, &o, DIFF_TO_##f(b));					\
	aux = DIFF_FROM_##f(o);							\
	mem = DIFF_FROM_##f(st->f);						\
} while (0)
#define DIFF_MCALL_BIT(fn, nrc)		fn(nr, st->bits); mem = (int64_t)st->bits[nr / KA_BITS_PER_LONG]
#define DIFF_MCALL_BITR(fn, nrc)	r = fn(nr, st->bits); mem = (int64_t)st->bits[nr / KA_BITS_PER_LONG]
#define DIFF_MCALL_BITC(fn, nrc)	fn(nrc, st->bits); mem = (int64_t)st->bits[nrc / KA_BITS_PER_LONG]
#define DIFF_MCALL_BITCR(fn, nrc)	r = fn(nrc, st->bits); mem = (int64_t)st->bits[nrc / KA_BITS_PER_LONG]
#define DIFF_MCASE(id, sh, fn, f, model) case DIFF_MOP_##id: DIFF_MCALL_##sh(fn, f); break;

/* The current value the arguments are drawn around. */
static int64_t diff_misc_cur(const struct diff_state *st, uint32_t op)
{
	static const signed char field[] = {
#define DIFF_FIELD_u8	0
#define DIFF_FIELD_u16	1
#define DIFF_FIELD_u32	2
#define DIFF_FIELD_u64	3
#define DIFF_FIELD_ptr	4
#define DIFF_FIELDOF(id, sh, fn, f, model) DIFF_FIELDOF_##sh(f),
#define DIFF_FIELDOF_XCHG(f)	DIFF_FIELD_##f
#define DIFF_FIELDOF_CMPX(f)	DIFF_FIELD_##f
#define DIFF_FIELDOF_TRY(f)	DIFF_FIELD_##f
#define DIFF_FIELDOF_BIT(f)	-1
#define DIFF_FIELDOF_BITR(f)	-1
#define DIFF_FIELDOF_BITC(f)	-1
#define DIFF_FIELDOF_BITCR(f)	-1
		DIFF_MISC_OPS(DIFF_FIELDOF)
	};

	switch (field[op]) {
	case 0: return st->u8;
	case 1: return st->u16;
	case 2: return st->u32;
	case 3: return (int64_t)st->u64;
	case 4: return (int64_t)(uintptr_t)st->ptr;
	default: return 0;
	}
}

static void diff_run_misc(struct diff_state *st, struct diff_rec *rec, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t op = (uint32_t)(diff_rand(&st->rng) % DIFF_NMISC_OPS);
		int64_t cur = diff_misc_cur(st, op);
		int64_t a = diff_arg(&st->rng, cur), b = diff_arg(&st->rng, cur);
		long nr = (long)(diff_rand(&st->rng) % DIFF_BITS);
		int64_t r = 0, mem = 0, aux = 0;

		switch (op) {
		DIFF_MISC_OPS(DIFF_MCASE)
		}
		rec[k].op = op;
		rec[k].ret = r;
		rec[k].mem = mem;
		rec[k].aux = aux;
	}
}

void DIFF_NAME(int kind, struct diff_state *st, struct diff_rec *rec, size_t n)
{
	switch (kind) {
	case DIFF_ATOMIC:	diff_run_atomic(st, rec, n); break;
	case DIFF_ATOMIC64:	diff_run_atomic64(st, rec, n); break;
	case DIFF_ATOMIC_LONG:	diff_run_atomic_long(st, rec, n); break;
	default:		diff_run_misc(st, rec, n); break;
	}
}
