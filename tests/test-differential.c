/* SPDX-License-Identifier: MIT */
/*
 * Differential test: the same pseudo-random sequence of operations (every
 * atomic_t, atomic64_t and atomic_long_t operation, xchg/cmpxchg/try_cmpxchg
 * on 1, 2, 4, 8-byte scalars and pointers with their order and _local/sync
 * forms, and the bitops) replayed through katomic and through a plain C
 * model; return values, memory and try_cmpxchg's *old must agree exactly.
 *
 * Built as one file (the Makefile's per-backend tests): the backend of this
 * build against the model.  Built with -DDIFF_BOTH and linked with
 * tests/differential/ops.c compiled once per backend (tests/differential.mk,
 * `make check-differential`): the C11 backend, the asm backend and the model,
 * all three against each other, in one program.
 *
 * Usage: test-differential [SEED [OPS_PER_KIND]]; also KATOMIC_SEED and
 * KATOMIC_DIFF_OPS in the environment.  The seed is printed; default OPS 10^6.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "differential/diff.h"
#include "tap.h"

#ifdef DIFF_BOTH
void diff_run_c11(int kind, struct diff_state *st, struct diff_rec *rec, size_t n);
void diff_run_asm(int kind, struct diff_state *st, struct diff_rec *rec, size_t n);
#else
#define DIFF_NAME diff_run_backend
#include "differential/ops.c"
#endif

/* ---------------------------------------------------------------- model */

#define DIFF_SEM_ENUM(name, sh, sem, opr) SEM_##sem,
#define DIFF_OPR_ENUM(name, sh, sem, opr) OPR_##opr,
#define DIFF_NAME_STR(name, ...) #name,
enum { SEM_READ, SEM_SET, SEM_VOID, SEM_NEW, SEM_OLD, SEM_XCHG, SEM_CMPXCHG, SEM_TRY,
       SEM_TEST0, SEM_NEG, SEM_FAU, SEM_AU, SEM_INZ, SEM_IUN, SEM_DUP, SEM_DIP };
enum { OPR_NONE, OPR_ADD, OPR_SUB, OPR_INC, OPR_DEC, OPR_AND, OPR_ANDNOT, OPR_OR, OPR_XOR };
static const unsigned char atomic_sem[] = { DIFF_ATOMIC_OPS(DIFF_SEM_ENUM) };
static const unsigned char atomic_opr[] = { DIFF_ATOMIC_OPS(DIFF_OPR_ENUM) };
static const char *const atomic_name[] = { DIFF_ATOMIC_OPS(DIFF_NAME_STR) };

enum { M_SIZED, M_SETB, M_CLRB, M_CHGB, M_TSETB, M_TCLRB, M_TCHGB, M_TESTB };
enum { SH_XCHG, SH_CMPX, SH_TRY, SH_BIT, SH_BITR, SH_BITC, SH_BITCR };
#define DIFF_MSH(id, sh, fn, f, model) SH_##sh,
#define DIFF_MMODEL(id, sh, fn, f, model) M_##model,
#define DIFF_MFIELD(id, sh, fn, f, model) MF_##sh(f),
#define MF_XCHG(f) F_##f
#define MF_CMPX(f) F_##f
#define MF_TRY(f) F_##f
#define MF_BIT(f) (f)
#define MF_BITR(f) (f)
#define MF_BITC(f) (f)
#define MF_BITCR(f) (f)
enum { F_u8 = 1000, F_u16, F_u32, F_u64, F_ptr };
static const unsigned char misc_shape[] = { DIFF_MISC_OPS(DIFF_MSH) };
static const unsigned char misc_model[] = { DIFF_MISC_OPS(DIFF_MMODEL) };
static const int misc_field[] = { DIFF_MISC_OPS(DIFF_MFIELD) };
static const char *const misc_name[] = { DIFF_MISC_OPS(DIFF_NAME_STR) };

#define LONG_BITS ((int)(8 * sizeof(long)))

struct model {
	uint64_t rng;
	int64_t v[3];		/* atomic_t, atomic64_t, atomic_long_t */
	uint64_t f[5];		/* u8 u16 u32 u64 ptr */
	uint64_t bits[DIFF_BITS / 32];	/* one per unsigned long word, 32 or 64 bits used */
};

/* Wrap to the type's width and sign-extend, as a store to it and a load back would. */
static int64_t wrap(uint64_t x, int bits)
{
	return bits == 32 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
}

static void model_atomic(struct model *m, int kind, struct diff_rec *rec, size_t n)
{
	int bits = kind == DIFF_ATOMIC ? 32 : kind == DIFF_ATOMIC_LONG ? LONG_BITS : 64;
	int64_t *v = &m->v[kind];

	for (size_t k = 0; k < n; k++) {
		uint32_t op = (uint32_t)(diff_rand(&m->rng) % DIFF_NATOMIC_OPS);
		int64_t cur = *v;
		int64_t a = wrap((uint64_t)diff_arg(&m->rng, cur), bits);
		int64_t b = wrap((uint64_t)diff_arg(&m->rng, cur), bits);
		uint64_t old = (uint64_t)cur, arg = (uint64_t)a, nv = old;
		int64_t r = 0, aux = 0;

		switch (atomic_opr[op]) {
		case OPR_ADD: nv = old + arg; break;
		case OPR_SUB: nv = old - arg; break;
		case OPR_INC: nv = old + 1; break;
		case OPR_DEC: nv = old - 1; break;
		case OPR_AND: nv = old & arg; break;
		case OPR_ANDNOT: nv = old & ~arg; break;
		case OPR_OR: nv = old | arg; break;
		case OPR_XOR: nv = old ^ arg; break;
		}
		nv = (uint64_t)wrap(nv, bits);
		switch (atomic_sem[op]) {
		case SEM_READ: r = cur; break;
		case SEM_SET: *v = a; break;
		case SEM_VOID: *v = (int64_t)nv; break;
		case SEM_NEW: *v = (int64_t)nv; r = *v; break;
		case SEM_OLD: r = cur; *v = (int64_t)nv; break;
		case SEM_XCHG: r = cur; *v = a; break;
		case SEM_CMPXCHG: r = cur; if (cur == a) *v = b; break;
		case SEM_TRY: r = cur == a; aux = cur; if (cur == a) *v = b; break;
		case SEM_TEST0: *v = (int64_t)nv; r = *v == 0; break;
		case SEM_NEG: *v = (int64_t)nv; r = *v < 0; break;
		case SEM_FAU: r = cur; if (cur != b) *v = wrap(old + arg, bits); break;
		case SEM_AU: r = cur != b; if (cur != b) *v = wrap(old + arg, bits); break;
		case SEM_INZ: r = cur != 0; if (r) *v = wrap(old + 1, bits); break;
		case SEM_IUN: r = cur >= 0; if (r) *v = wrap(old + 1, bits); break;
		case SEM_DUP: r = cur <= 0; if (r) *v = wrap(old - 1, bits); break;
		case SEM_DIP: r = wrap(old - 1, bits); if (r >= 0) *v = r; break;
		}
		rec[k].op = op;
		rec[k].ret = r;
		rec[k].mem = *v;
		rec[k].aux = aux;
	}
}

static void model_misc(struct model *m, struct diff_rec *rec, size_t n)
{
	static const uint64_t fmask[5] = { 0xFF, 0xFFFF, 0xFFFFFFFF, ~0ULL, UINTPTR_MAX };

	for (size_t k = 0; k < n; k++) {
		uint32_t op = (uint32_t)(diff_rand(&m->rng) % DIFF_NMISC_OPS);
		int sized = misc_model[op] == M_SIZED;
		int fi = sized ? misc_field[op] - F_u8 : 0;
		int64_t cur = sized ? (int64_t)m->f[fi] : 0;
		uint64_t a = (uint64_t)diff_arg(&m->rng, cur), b = (uint64_t)diff_arg(&m->rng, cur);
		long nr = (long)(diff_rand(&m->rng) % DIFF_BITS);
		int64_t r = 0, aux = 0, mem;

		if (sized) {
			uint64_t *f = &m->f[fi], old = *f;

			a &= fmask[fi];
			b &= fmask[fi];
			switch (misc_shape[op]) {
			case SH_XCHG: r = (int64_t)old; *f = a; break;
			case SH_CMPX: r = (int64_t)old; if (old == a) *f = b; break;
			case SH_TRY: r = old == a; aux = (int64_t)old; if (old == a) *f = b; break;
			}
			mem = (int64_t)*f;
		} else {
			uint64_t *w, mask, old;

			if (misc_shape[op] == SH_BITC || misc_shape[op] == SH_BITCR)
				nr = misc_field[op];
			w = &m->bits[nr / LONG_BITS];
			mask = 1ULL << (nr % LONG_BITS);
			old = *w;
			switch (misc_model[op]) {
			case M_SETB: *w |= mask; break;
			case M_CLRB: *w &= ~mask; break;
			case M_CHGB: *w ^= mask; break;
			case M_TSETB: r = (old & mask) != 0; *w |= mask; break;
			case M_TCLRB: r = (old & mask) != 0; *w &= ~mask; break;
			case M_TCHGB: r = (old & mask) != 0; *w ^= mask; break;
			case M_TESTB: r = (old & mask) != 0; break;
			}
			mem = (int64_t)*w;
		}
		rec[k].op = op;
		rec[k].ret = r;
		rec[k].mem = mem;
		rec[k].aux = aux;
	}
}

static void model_run(int kind, struct model *m, struct diff_rec *rec, size_t n)
{
	if (kind == DIFF_MISC)
		model_misc(m, rec, n);
	else
		model_atomic(m, kind, rec, n);
}

/* ---------------------------------------------------------------- driver */

typedef void run_fn(int kind, struct diff_state *st, struct diff_rec *rec, size_t n);

static const char *const kind_name[] = { "atomic_t", "atomic64_t", "atomic_long_t", "xchg/cmpxchg/bitops" };

static const char *op_name(int kind, uint32_t op)
{
	if (kind == DIFF_MISC)
		return op < DIFF_NMISC_OPS ? misc_name[op] : "?";
	return op < DIFF_NATOMIC_OPS ? atomic_name[op] : "?";
}

/* First difference between two traces, reported; true if none. */
static bool same(int kind, const char *an, const struct diff_rec *x, const char *bn,
		 const struct diff_rec *y, size_t n, uint64_t base, uint64_t seed)
{
	for (size_t k = 0; k < n; k++) {
		if (x[k].op == y[k].op && x[k].ret == y[k].ret && x[k].mem == y[k].mem && x[k].aux == y[k].aux)
			continue;
		diag("%s: op #%" PRIu64 " (seed %" PRIu64 ") %s vs %s: %s/%s: ret %" PRId64 "/%" PRId64
		     ", memory %" PRId64 "/%" PRId64 ", old %" PRId64 "/%" PRId64,
		     kind_name[kind], base + k, seed, an, bn, op_name(kind, x[k].op), op_name(kind, y[k].op),
		     x[k].ret, y[k].ret, x[k].mem, y[k].mem, x[k].aux, y[k].aux);
		return false;
	}
	return true;
}

#define CHUNK 4096

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : getenv("KATOMIC_SEED");
	const char *o = argc > 2 ? argv[2] : getenv("KATOMIC_DIFF_OPS");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
	uint64_t ops = o ? strtoull(o, NULL, 0) : 1000000;
#ifdef DIFF_BOTH
	static const char *const names[] = { "c11", "asm" };
	run_fn *const impl[] = { diff_run_c11, diff_run_asm };
#else
	static const char *const names[] = { KATOMIC_BACKEND_NAME };
	run_fn *const impl[] = { diff_run_backend };
#endif
	enum { NIMPL = sizeof(impl) / sizeof(impl[0]) };
	static struct diff_rec want[CHUNK], got[NIMPL][CHUNK];

	diag("seed %" PRIu64 " (rerun: %s %" PRIu64 " %" PRIu64 "), %" PRIu64 " ops per kind",
	     seed, argv[0], seed, ops, ops);
	for (int kind = 0; kind < DIFF_KINDS; kind++) {
		struct model m;
		struct diff_state st[NIMPL];
		bool good = true;

		memset(&m, 0, sizeof(m));
		m.rng = seed ^ (0x1000193ULL * (uint64_t)(kind + 1));
		for (int i = 0; i < NIMPL; i++) {
			memset(&st[i], 0, sizeof(st[i]));
			st[i].rng = m.rng;
		}
		for (uint64_t done = 0; good && done < ops; done += CHUNK) {
			size_t n = ops - done < CHUNK ? (size_t)(ops - done) : CHUNK;

			model_run(kind, &m, want, n);
			for (int i = 0; i < NIMPL; i++) {
				impl[i](kind, &st[i], got[i], n);
				good &= same(kind, "model", want, names[i], got[i], n, done, seed);
			}
			for (int i = 1; good && i < NIMPL; i++)
				good &= same(kind, names[0], got[0], names[i], got[i], n, done, seed);
		}
		ok(good, "%s: %" PRIu64 " random ops, %s%s agree%s", kind_name[kind], ops,
		   NIMPL > 1 ? "c11, asm and " : "", NIMPL > 1 ? "the model" : names[0],
		   NIMPL > 1 ? "" : " with the model");
	}
	return done_testing();
}
