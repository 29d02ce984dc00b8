/* SPDX-License-Identifier: MIT */
/*
 * The differential test's shared vocabulary: the operation lists (X-macros),
 * the state one run works on, the trace record and the pseudo-random
 * generator of operations and arguments.  ops.c replays a sequence through
 * katomic (one backend per translation unit); test-differential.c replays
 * the same sequence through a plain C model and compares the traces.
 */
#ifndef KATOMIC_TESTS_DIFF_H
#define KATOMIC_TESTS_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <katomic/katomic.h>

/* Kinds of run: one per atomic type, and one for xchg/cmpxchg sizes + bitops. */
enum { DIFF_ATOMIC, DIFF_ATOMIC64, DIFF_ATOMIC_LONG, DIFF_MISC, DIFF_KINDS };

/*
 * The 85 atomic_* operations: X(name, shape, semantics, operator).
 * shape: how it is called (see ops.c); semantics + operator: what the model does.
 */
#define DIFF_ORD4(X, name, sh, sem, opr)					\
	X(name, sh, sem, opr) X(name##_acquire, sh, sem, opr)			\
	X(name##_release, sh, sem, opr) X(name##_relaxed, sh, sem, opr)
#define DIFF_ATOMIC_OPS(X)							\
	X(read, R, READ, NONE) X(read_acquire, R, READ, NONE)			\
	X(set, S, SET, NONE) X(set_release, S, SET, NONE)			\
	X(add, V, VOID, ADD) DIFF_ORD4(X, add_return, RA, NEW, ADD) DIFF_ORD4(X, fetch_add, RA, OLD, ADD) \
	X(sub, V, VOID, SUB) DIFF_ORD4(X, sub_return, RA, NEW, SUB) DIFF_ORD4(X, fetch_sub, RA, OLD, SUB) \
	X(inc, V0, VOID, INC) DIFF_ORD4(X, inc_return, R, NEW, INC) DIFF_ORD4(X, fetch_inc, R, OLD, INC) \
	X(dec, V0, VOID, DEC) DIFF_ORD4(X, dec_return, R, NEW, DEC) DIFF_ORD4(X, fetch_dec, R, OLD, DEC) \
	X(and, V, VOID, AND) DIFF_ORD4(X, fetch_and, RA, OLD, AND)		\
	X(andnot, V, VOID, ANDNOT) DIFF_ORD4(X, fetch_andnot, RA, OLD, ANDNOT)	\
	X(or, V, VOID, OR) DIFF_ORD4(X, fetch_or, RA, OLD, OR)			\
	X(xor, V, VOID, XOR) DIFF_ORD4(X, fetch_xor, RA, OLD, XOR)		\
	DIFF_ORD4(X, xchg, XC, XCHG, NONE)					\
	DIFF_ORD4(X, cmpxchg, C, CMPXCHG, NONE)					\
	DIFF_ORD4(X, try_cmpxchg, T, TRY, NONE)					\
	X(sub_and_test, RA, TEST0, SUB) X(dec_and_test, R, TEST0, DEC)		\
	X(inc_and_test, R, TEST0, INC) DIFF_ORD4(X, add_negative, RA, NEG, ADD)	\
	X(fetch_add_unless, C, FAU, NONE) X(add_unless, C, AU, NONE)		\
	X(inc_not_zero, R, INZ, NONE) X(inc_unless_negative, R, IUN, NONE)	\
	X(dec_unless_positive, R, DUP, NONE) X(dec_if_positive, R, DIP, NONE)

#define DIFF_ENUM(name, ...) DIFF_OP_##name,
enum { DIFF_ATOMIC_OPS(DIFF_ENUM) DIFF_NATOMIC_OPS };

/*
 * xchg / cmpxchg / try_cmpxchg on every size and a pointer, and the bitops:
 * X(id, shape, macro, field or constant bit number, model).
 * Fields: u8 u16 u32 u64 ptr; bit shapes take a random nr (BIT, BITR) or a
 * constant one (BITC, BITCR: the immediate / register forms).
 */
#define DIFF_MISC_OPS(X)							\
	X(xchg_u8, XCHG, ka_xchg, u8, SIZED) X(xchg_u16, XCHG, ka_xchg, u16, SIZED) \
	X(xchg_u32, XCHG, ka_xchg, u32, SIZED) X(xchg_u64, XCHG, ka_xchg, u64, SIZED) \
	X(xchg_ptr, XCHG, ka_xchg, ptr, SIZED)					\
	X(xchg_acquire_u8, XCHG, ka_xchg_acquire, u8, SIZED)			\
	X(xchg_release_u32, XCHG, ka_xchg_release, u32, SIZED)			\
	X(xchg_relaxed_u64, XCHG, ka_xchg_relaxed, u64, SIZED)			\
	X(cmpxchg_u8, CMPX, ka_cmpxchg, u8, SIZED) X(cmpxchg_u16, CMPX, ka_cmpxchg, u16, SIZED) \
	X(cmpxchg_u32, CMPX, ka_cmpxchg, u32, SIZED) X(cmpxchg_u64, CMPX, ka_cmpxchg, u64, SIZED) \
	X(cmpxchg_ptr, CMPX, ka_cmpxchg, ptr, SIZED)				\
	X(cmpxchg_acquire_u16, CMPX, ka_cmpxchg_acquire, u16, SIZED)		\
	X(cmpxchg_release_u8, CMPX, ka_cmpxchg_release, u8, SIZED)		\
	X(cmpxchg_relaxed_u32, CMPX, ka_cmpxchg_relaxed, u32, SIZED)		\
	X(cmpxchg_local_u8, CMPX, ka_cmpxchg_local, u8, SIZED)			\
	X(cmpxchg_local_u32, CMPX, ka_cmpxchg_local, u32, SIZED)		\
	X(cmpxchg_local_u64, CMPX, ka_cmpxchg_local, u64, SIZED)		\
	X(sync_cmpxchg_u32, CMPX, ka_sync_cmpxchg, u32, SIZED)			\
	X(sync_cmpxchg_u64, CMPX, ka_sync_cmpxchg, u64, SIZED)			\
	X(cmpxchg64_u64, CMPX, ka_cmpxchg64, u64, SIZED)			\
	X(cmpxchg64_local_u64, CMPX, ka_cmpxchg64_local, u64, SIZED)		\
	X(try_cmpxchg_u8, TRY, ka_try_cmpxchg, u8, SIZED)			\
	X(try_cmpxchg_u16, TRY, ka_try_cmpxchg, u16, SIZED)			\
	X(try_cmpxchg_u32, TRY, ka_try_cmpxchg, u32, SIZED)			\
	X(try_cmpxchg_u64, TRY, ka_try_cmpxchg, u64, SIZED)			\
	X(try_cmpxchg_ptr, TRY, ka_try_cmpxchg, ptr, SIZED)			\
	X(try_cmpxchg_acquire_u32, TRY, ka_try_cmpxchg_acquire, u32, SIZED)	\
	X(try_cmpxchg_release_u16, TRY, ka_try_cmpxchg_release, u16, SIZED)	\
	X(try_cmpxchg_relaxed_u8, TRY, ka_try_cmpxchg_relaxed, u8, SIZED)	\
	X(try_cmpxchg_local_u16, TRY, ka_try_cmpxchg_local, u16, SIZED)		\
	X(try_cmpxchg_local_u64, TRY, ka_try_cmpxchg_local, u64, SIZED)		\
	X(try_cmpxchg64_u64, TRY, ka_try_cmpxchg64, u64, SIZED)			\
	X(try_cmpxchg64_local_u64, TRY, ka_try_cmpxchg64_local, u64, SIZED)	\
	X(set_bit, BIT, ka_set_bit, -1, SETB) X(clear_bit, BIT, ka_clear_bit, -1, CLRB) \
	X(change_bit, BIT, ka_change_bit, -1, CHGB)				\
	X(test_and_set_bit, BITR, ka_test_and_set_bit, -1, TSETB)		\
	X(test_and_clear_bit, BITR, ka_test_and_clear_bit, -1, TCLRB)		\
	X(test_and_change_bit, BITR, ka_test_and_change_bit, -1, TCHGB)		\
	X(test_and_set_bit_lock, BITR, ka_test_and_set_bit_lock, -1, TSETB)	\
	X(clear_bit_unlock, BIT, ka_clear_bit_unlock, -1, CLRB)			\
	X(__clear_bit_unlock, BIT, ka___clear_bit_unlock, -1, CLRB)		\
	X(test_bit, BITR, ka_test_bit, -1, TESTB)				\
	X(test_bit_acquire, BITR, ka_test_bit_acquire, -1, TESTB)		\
	X(__set_bit, BIT, ka___set_bit, -1, SETB) X(__clear_bit, BIT, ka___clear_bit, -1, CLRB) \
	X(__change_bit, BIT, ka___change_bit, -1, CHGB)				\
	X(__test_and_set_bit, BITR, ka___test_and_set_bit, -1, TSETB)		\
	X(__test_and_clear_bit, BITR, ka___test_and_clear_bit, -1, TCLRB)	\
	X(__test_and_change_bit, BITR, ka___test_and_change_bit, -1, TCHGB)	\
	X(test_and_set_bit_c5, BITCR, ka_test_and_set_bit, 5, TSETB)		\
	X(test_and_clear_bit_c5, BITCR, ka_test_and_clear_bit, 5, TCLRB)	\
	X(test_and_change_bit_c31, BITCR, ka_test_and_change_bit, 31, TCHGB)	\
	X(test_and_set_bit_c37, BITCR, ka_test_and_set_bit, 37, TSETB)		\
	X(test_and_clear_bit_c37, BITCR, ka_test_and_clear_bit, 37, TCLRB)	\
	X(test_and_change_bit_c64, BITCR, ka_test_and_change_bit, 64, TCHGB)	\
	X(test_and_set_bit_lock_c200, BITCR, ka_test_and_set_bit_lock, 200, TSETB) \
	X(test_and_clear_bit_c200, BITCR, ka_test_and_clear_bit, 200, TCLRB)	\
	X(set_bit_c3, BITC, ka_set_bit, 3, SETB) X(clear_bit_c3, BITC, ka_clear_bit, 3, CLRB) \
	X(change_bit_c70, BITC, ka_change_bit, 70, CHGB)			\
	X(clear_bit_unlock_c5, BITC, ka_clear_bit_unlock, 5, CLRB)

#define DIFF_MISC_ENUM(id, ...) DIFF_MOP_##id,
enum { DIFF_MISC_OPS(DIFF_MISC_ENUM) DIFF_NMISC_OPS };

#define DIFF_BITS 256	/* bitmap length for the bitops */

/* The memory one run works on (each implementation has its own copy). */
struct diff_state {
	uint64_t rng;
	ka_atomic_t a;
	ka_atomic64_t a64;
	ka_atomic_long_t al;
	unsigned char u8;
	unsigned short u16;
	unsigned int u32;
	unsigned long long u64;
	void *ptr;
	unsigned long bits[DIFF_BITS / (8 * sizeof(long))];
};

/* One operation's trace: which, what it returned, the memory after, and *old for try_cmpxchg. */
struct diff_rec {
	uint32_t op;
	int64_t ret, mem, aux;
};

/* splitmix64: the same sequence everywhere. */
static inline uint64_t diff_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/*
 * An argument: often the current value or next to it (so that cmpxchg
 * succeeds, *_and_test and the _unless ops hit their edges), else small
 * numbers, the extremes of both widths, or anything.
 */
static inline int64_t diff_arg(uint64_t *s, int64_t cur)
{
	uint64_t r = diff_rand(s);

	switch (r % 12) {
	case 0: case 1: case 2: return cur;
	case 3: return (int64_t)((uint64_t)cur + 1);
	case 4: return (int64_t)((uint64_t)cur - 1);
	case 5: case 6: return (int64_t)((r >> 8) % 9) - 4;
	case 7: {
		static const int64_t edge[] = { INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX,
						UINT32_MAX, 0x80, 0xFF, 0x8000, 0xFFFF, -1 };
		return edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))];
	}
	case 8: return (int64_t)(int32_t)(uint32_t)(r >> 16);
	default: return (int64_t)diff_rand(s);
	}
}

#endif
