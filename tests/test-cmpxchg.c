/* SPDX-License-Identifier: MIT */
/*
 * Size-generic xchg / cmpxchg / try_cmpxchg and their ordered, _local, 64-bit
 * and 128-bit forms, on every pair (triple) of edge values of each size.
 * try_cmpxchg must leave *old alone when it succeeds: in the success cases
 * *old lives on a read-only page, so a write of any value faults.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <katomic/katomic.h>
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SHOW(x) ((unsigned long long)(uintptr_t)(x))

static const char *volatile current = "?";

static void on_fault(int sig)
{
	static const char pre[] = "Bail out! ";
	static const char post[] = ": wrote through *old although it succeeded (fault on a read-only page)\n";
	ssize_t r;

	(void)sig;
	r = write(1, pre, sizeof(pre) - 1);
	r = write(1, current, strlen(current));
	r = write(1, post, sizeof(post) - 1);
	(void)r;
	_exit(1);
}

#include "ro-page.h"

/* xchg on every pair: returns the old value, stores the new one. */
#define XCHG_CASE(T, E, op) do {						\
	unsigned long bad_ = 0, n_ = 0;						\
	for (size_t i_ = 0; i_ < ARRAY_SIZE(E); i_++)				\
		for (size_t j_ = 0; j_ < ARRAY_SIZE(E); j_++, n_++) {		\
			T x_ = E[i_];						\
			T r_ = op(&x_, E[j_]);					\
			if (r_ != E[i_] || x_ != E[j_]) {			\
				if (!bad_++)					\
					diag(#op "(%#llx, %#llx): returned %#llx, left %#llx", \
					     SHOW(E[i_]), SHOW(E[j_]), SHOW(r_), SHOW(x_)); \
			}							\
		}							\
	ok(!bad_, #op " on " #T ": %lu pairs", n_);				\
} while (0)

/* cmpxchg on every triple: returns the value read, stores only if it was old. */
#define CMPXCHG_CASE(T, E, op) do {						\
	unsigned long bad_ = 0, n_ = 0;						\
	for (size_t i_ = 0; i_ < ARRAY_SIZE(E); i_++)				\
	for (size_t j_ = 0; j_ < ARRAY_SIZE(E); j_++)				\
		for (size_t k_ = 0; k_ < ARRAY_SIZE(E); k_++, n_++) {		\
			T x_ = E[i_];						\
			T r_ = op(&x_, E[j_], E[k_]);				\
			T want_ = E[i_] == E[j_] ? E[k_] : E[i_];		\
			if (r_ != E[i_] || x_ != want_) {			\
				if (!bad_++)					\
					diag(#op "(%#llx, %#llx, %#llx): returned %#llx, left %#llx", \
					     SHOW(E[i_]), SHOW(E[j_]), SHOW(E[k_]), SHOW(r_), SHOW(x_)); \
			}							\
		}							\
	ok(!bad_, #op " on " #T ": %lu triples", n_);				\
} while (0)

/*
 * try_cmpxchg on every triple: true iff it stored; on failure *old becomes
 * the value read; on success *old (read-only: RO[j]) is not written.
 */
#define TRY_CMPXCHG_CASE(T, E, RO, op) do {					\
	unsigned long bad_ = 0, n_ = 0;						\
	current = #op " on " #T;						\
	for (size_t i_ = 0; i_ < ARRAY_SIZE(E); i_++)				\
	for (size_t j_ = 0; j_ < ARRAY_SIZE(E); j_++)				\
		for (size_t k_ = 0; k_ < ARRAY_SIZE(E); k_++, n_++) {		\
			T x_ = E[i_];					\
			T o_ = E[j_];					\
			T *op_ = E[i_] == E[j_] ? (T *)&(RO)[j_] : &o_;		\
			bool s_ = E[i_] == E[j_];				\
			bool r_ = op(&x_, op_, E[k_]);				\
			if (r_ != s_ || x_ != (s_ ? E[k_] : E[i_]) || *op_ != E[i_]) { \
				if (!bad_++)					\
					diag(#op "(%#llx, &%#llx, %#llx): returned %d, left %#llx, *old %#llx", \
					     SHOW(E[i_]), SHOW(E[j_]), SHOW(E[k_]), r_, SHOW(x_), SHOW(*op_)); \
			}							\
		}							\
	ok(!bad_, #op " on " #T ": %lu triples", n_);				\
} while (0)

/* Every size-generic form on one type. */
#define ALL_CASES(T, E) do {							\
	T *ro_ = ro_copy(E, sizeof(E));						\
	XCHG_CASE(T, E, xchg);							\
	XCHG_CASE(T, E, xchg_acquire);						\
	XCHG_CASE(T, E, xchg_release);						\
	XCHG_CASE(T, E, xchg_relaxed);						\
	CMPXCHG_CASE(T, E, cmpxchg);						\
	CMPXCHG_CASE(T, E, cmpxchg_acquire);					\
	CMPXCHG_CASE(T, E, cmpxchg_release);					\
	CMPXCHG_CASE(T, E, cmpxchg_relaxed);					\
	CMPXCHG_CASE(T, E, cmpxchg_local);					\
	CMPXCHG_CASE(T, E, sync_cmpxchg);					\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg);				\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg_acquire);			\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg_release);			\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg_relaxed);			\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg_local);				\
} while (0)

/* The 64-bit forms (8-byte objects only). */
#define ALL_CASES64(T, E) do {							\
	T *ro_ = ro_copy(E, sizeof(E));						\
	CMPXCHG_CASE(T, E, cmpxchg64);						\
	CMPXCHG_CASE(T, E, cmpxchg64_acquire);					\
	CMPXCHG_CASE(T, E, cmpxchg64_release);					\
	CMPXCHG_CASE(T, E, cmpxchg64_relaxed);					\
	CMPXCHG_CASE(T, E, cmpxchg64_local);					\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg64);				\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg64_acquire);			\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg64_release);			\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg64_relaxed);			\
	TRY_CMPXCHG_CASE(T, E, ro_, try_cmpxchg64_local);			\
} while (0)

/* Edge values per size; neighbours differ in the top bit, the low bit or both. */
static const char e_char[] = { 0, 1, -1, 2, 0x55, CHAR_MAX, CHAR_MIN, (char)(CHAR_MIN + 1), (char)0xaa };
static const unsigned char e_uchar[] = { 0, 1, 0x7f, 0x80, 0xaa, 0xfe, 0xff };
static const short e_short[] = { 0, 1, -1, 2, SHRT_MAX, SHRT_MIN, SHRT_MIN + 1, 0x5555, (short)0xaaaa, 0x00ff, (short)0xff00 };
static const unsigned short e_ushort[] = { 0, 1, 0x7fff, 0x8000, 0xffff, 0x00ff, 0xff00 };
static const int e_int[] = { 0, 1, -1, 2, INT_MAX, INT_MIN, INT_MIN + 1, 0x55555555, (int)0xaaaaaaaa, 0x0000ffff, (int)0xffff0000 };
static const unsigned int e_uint[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xffff0000 };
static const long e_long[] = { 0, 1, -1, LONG_MAX, LONG_MIN, LONG_MIN + 1, (long)(ULONG_MAX / 3), (long)(ULONG_MAX / 3 * 2) };
static const long long e_llong[] = { 0, 1, -1, 2, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1,
	0x5555555555555555LL, (long long)0xaaaaaaaaaaaaaaaaULL,
	0x00000000ffffffffLL, (long long)0xffffffff00000000ULL, 0x0000000100000000LL };
static const unsigned long long e_ullong[] = { 0, 1, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	0xffffffffffffffffULL, 0x00000000ffffffffULL, 0xffffffff00000000ULL, 0x0000000100000000ULL };

static int objs[4];
static int *const e_ptr[] = { NULL, &objs[0], &objs[1], &objs[3] };
static const void *const e_vptr[] = { NULL, &objs[0], &objs[2], (const char *)&objs[2] + 1 };

#define SAME_TYPE(expr, T) __builtin_types_compatible_p(__typeof__(expr), T)

/* The result has the unqualified type of *ptr (pointers stay pointers). */
static void test_types(void)
{
	int a = 1, b = 2, *p = &a;
	int *r1 = xchg(&p, &b);
	int *r2 = cmpxchg(&p, &b, &a);
	volatile long vl = 5;
	long r3 = xchg(&vl, 6L);
	long r4 = cmpxchg(&vl, 6L, 7L);
	long expect = 7;
	bool r5 = try_cmpxchg(&vl, &expect, 8L);
	char c = 'a';
	unsigned short s = 3;

	ok(r1 == &a && r2 == &b && p == &a, "xchg/cmpxchg on an int * return int *");
	ok(r3 == 5 && r4 == 6 && r5 && vl == 8 && expect == 7,
	   "xchg/cmpxchg/try_cmpxchg on a volatile long");
	ok(SAME_TYPE(xchg(&c, 'b'), char) && SAME_TYPE(cmpxchg(&s, 3, 4), unsigned short) &&
	   SAME_TYPE(xchg_relaxed(&p, NULL), int *) && SAME_TYPE(cmpxchg_acquire(&vl, 0, 1), long) &&
	   SAME_TYPE(try_cmpxchg(&c, &c, 'c'), bool) && c == 'a' && s == 3,
	   "results have the unqualified type of *ptr; try_cmpxchg returns bool");
}

/*
 * The expected value inside a union or a struct (lockref's word, a member):
 * the loop's shape, what a failure writes back, and nothing written on success.
 */
static void test_old_in_aggregate(void)
{
	union { unsigned long long word; struct { int lock, count; } f; } old, new, shared;
	struct { int pad, v; } s = { 7, 1 };
	atomic_t a = ATOMIC_INIT(5);
	int tries = 0;

	shared.word = 0;
	shared.f.count = 4;	/* the first try fails and reads the count */
	old.word = 0;
	do {
		new = old;
		new.f.count++;
		tries++;
	} while (!try_cmpxchg(&shared.word, &old.word, new.word));
	ok(tries == 2 && shared.f.count == 5 && shared.f.lock == 0 && old.f.count == 4,
	   "try_cmpxchg loop on a union's word: fails once, writes back what it read, then counts");
	ok(!atomic_try_cmpxchg(&a, &s.v, 9) && s.v == 5 && s.pad == 7 && atomic_read(&a) == 5,
	   "atomic_try_cmpxchg failing writes a struct member's old, not its neighbour");
	ok(atomic_try_cmpxchg(&a, &s.v, 9) && s.v == 5 && atomic_read(&a) == 9,
	   "atomic_try_cmpxchg succeeding with a struct member's old");
}

/* A 1- or 2-byte operation leaves the neighbouring bytes of the word alone. */
static void test_neighbours(void)
{
	union { unsigned char b[8]; unsigned short s[4]; unsigned long long all; } u;
	unsigned char want[8];
	bool good = true;

	for (int i = 0; i < 8; i++) {
		unsigned char old, o;

		u.all = 0x0123456789abcdefULL;
		memcpy(want, u.b, 8);
		old = u.b[i];
		good &= xchg(&u.b[i], (unsigned char)~old) == old;
		o = (unsigned char)~old;
		good &= try_cmpxchg(&u.b[i], &o, (unsigned char)(old + 1));
		good &= cmpxchg(&u.b[i], (unsigned char)(old + 1), (unsigned char)0x5a) == (unsigned char)(old + 1);
		want[i] = 0x5a;
		good &= memcmp(u.b, want, 8) == 0;
	}
	ok(good, "1-byte xchg/cmpxchg/try_cmpxchg change their byte and no other");

	good = true;
	for (int i = 0; i < 4; i++) {
		unsigned short old, o, want16 = 0xa55a;

		u.all = 0xfedcba9876543210ULL;
		memcpy(want, u.b, 8);
		old = u.s[i];
		good &= xchg_acquire(&u.s[i], (unsigned short)~old) == old;
		o = (unsigned short)~old;
		good &= try_cmpxchg_release(&u.s[i], &o, (unsigned short)(old + 1));
		good &= cmpxchg_relaxed(&u.s[i], (unsigned short)(old + 1), want16) == (unsigned short)(old + 1);
		memcpy(want + 2 * i, &want16, 2);
		good &= memcmp(u.b, want, 8) == 0;
	}
	ok(good, "2-byte xchg/cmpxchg/try_cmpxchg change their bytes and no other");
}

#ifdef KATOMIC_HAVE_CMPXCHG128
#define U128(hi, lo) (((u128)(hi) << 64) | (u128)(lo))
static const u128 e_u128[] = {
	0,
	1,
	U128(1, 0),					/* only the high half set */
	U128(0x0123456789abcdefULL, 0xfedcba9876543210ULL),
	U128(0x0123456789abcdefULL, 0x0123456789abcdefULL),	/* same low, other high than the next */
	U128(0xfedcba9876543210ULL, 0x0123456789abcdefULL),
	U128(0x8000000000000000ULL, 0),
	U128(0, 0xffffffffffffffffULL),
	U128(0xffffffffffffffffULL, 0),
	~(u128)0,
};

#define SHOW128(x) (unsigned long long)((x) >> 64), (unsigned long long)(x)

#define CMPXCHG128_CASE(op) do {						\
	unsigned long bad_ = 0, n_ = 0;						\
	for (size_t i_ = 0; i_ < ARRAY_SIZE(e_u128); i_++)			\
	for (size_t j_ = 0; j_ < ARRAY_SIZE(e_u128); j_++)			\
		for (size_t k_ = 0; k_ < ARRAY_SIZE(e_u128); k_++, n_++) {	\
			u128 x_ __attribute__((aligned(16))) = e_u128[i_];	\
			u128 r_ = op(&x_, e_u128[j_], e_u128[k_]);		\
			u128 want_ = i_ == j_ ? e_u128[k_] : e_u128[i_];	\
			if (r_ != e_u128[i_] || x_ != want_) {			\
				if (!bad_++)					\
					diag(#op "(%#llx:%#llx, %#llx:%#llx, %#llx:%#llx): returned %#llx:%#llx, left %#llx:%#llx", \
					     SHOW128(e_u128[i_]), SHOW128(e_u128[j_]), SHOW128(e_u128[k_]), \
					     SHOW128(r_), SHOW128(x_));		\
			}							\
		}							\
	ok(!bad_, #op " on u128: %lu triples", n_);				\
} while (0)

#define TRY_CMPXCHG128_CASE(op) do {						\
	unsigned long bad_ = 0, n_ = 0;						\
	current = #op " on u128";						\
	for (size_t i_ = 0; i_ < ARRAY_SIZE(e_u128); i_++)			\
	for (size_t j_ = 0; j_ < ARRAY_SIZE(e_u128); j_++)			\
		for (size_t k_ = 0; k_ < ARRAY_SIZE(e_u128); k_++, n_++) {	\
			u128 x_ __attribute__((aligned(16))) = e_u128[i_];	\
			u128 o_ = e_u128[j_];					\
			bool s_ = i_ == j_;					\
			u128 *op_ = s_ ? &ro128[j_] : &o_;			\
			bool r_ = op(&x_, op_, e_u128[k_]);			\
			if (r_ != s_ || x_ != (s_ ? e_u128[k_] : e_u128[i_]) || *op_ != e_u128[i_]) { \
				if (!bad_++)					\
					diag(#op "(%#llx:%#llx, &%#llx:%#llx, %#llx:%#llx): returned %d, left %#llx:%#llx, *old %#llx:%#llx", \
					     SHOW128(e_u128[i_]), SHOW128(e_u128[j_]), SHOW128(e_u128[k_]), \
					     r_, SHOW128(x_), SHOW128(*op_));	\
			}							\
		}							\
	ok(!bad_, #op " on u128: %lu triples", n_);				\
} while (0)

static void test_cmpxchg128(void)
{
	u128 *ro128 = ro_copy(e_u128, sizeof(e_u128));

	if (!ok(system_has_cmpxchg128(), "system_has_cmpxchg128() on a machine that has it")) {
		diag("skipping the cmpxchg128 tests");
		return;
	}
	CMPXCHG128_CASE(cmpxchg128);
	CMPXCHG128_CASE(cmpxchg128_acquire);
	CMPXCHG128_CASE(cmpxchg128_release);
	CMPXCHG128_CASE(cmpxchg128_relaxed);
	CMPXCHG128_CASE(cmpxchg128_local);
	TRY_CMPXCHG128_CASE(try_cmpxchg128);
	TRY_CMPXCHG128_CASE(try_cmpxchg128_acquire);
	TRY_CMPXCHG128_CASE(try_cmpxchg128_release);
	TRY_CMPXCHG128_CASE(try_cmpxchg128_relaxed);
	TRY_CMPXCHG128_CASE(try_cmpxchg128_local);
}
#endif

int main(void)
{
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);

	ALL_CASES(char, e_char);
	ALL_CASES(unsigned char, e_uchar);
	ALL_CASES(short, e_short);
	ALL_CASES(unsigned short, e_ushort);
	ALL_CASES(int, e_int);
	ALL_CASES(unsigned int, e_uint);
	ALL_CASES(long, e_long);
	ALL_CASES(long long, e_llong);
	ALL_CASES(unsigned long long, e_ullong);
	ALL_CASES(int *, e_ptr);
	ALL_CASES(const void *, e_vptr);

	ALL_CASES64(long long, e_llong);
	ALL_CASES64(unsigned long long, e_ullong);

	test_types();
	test_old_in_aggregate();
	test_neighbours();
#ifdef KATOMIC_HAVE_CMPXCHG128
	test_cmpxchg128();
#else
	diag("no cmpxchg128 on this target");
#endif
	return done_testing();
}
