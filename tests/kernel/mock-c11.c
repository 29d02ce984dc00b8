/* SPDX-License-Identifier: MIT */
/*
 * The generated kernel arch layer (tools/kernel/generated/arch/x86/include/asm/
 * *-c11.h) compiled in user space against a few lines standing in for the
 * kernel's types and helpers, and run: each operation's value, return and
 * stored result, edge values included (x86-64 only: the headers are x86's).
 */
#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include "../tap.h"

#include "mock-kernel.h"
#define BITS_PER_LONG 64

#include "atomic-c11.h"
#include "atomic64-c11.h"
#include "cmpxchg-c11.h"

/*
 * The kernel's own atomic bitops, which <asm/bitops.h> defines before it
 * includes bitops-c11.h, and which the C11 layer calls for a variable bit:
 * lock bts/btr/btc on the bit string (any nr, one instruction).
 */
#define MOCK_BITOP(name, insn)							\
static __always_inline void arch_##name(long nr, volatile unsigned long *addr)	\
{ asm volatile("lock " insn "q %1,%0" : "+m"(*addr) : "Ir"(nr) : "memory"); }	\
static __always_inline bool arch_test_and_##name(long nr, volatile unsigned long *addr) \
{										\
	bool r;									\
	asm volatile("lock " insn "q %2,%1" : "=@ccc"(r), "+m"(*addr) : "Ir"(nr) : "memory"); \
	return r;								\
}
MOCK_BITOP(set_bit, "bts")
MOCK_BITOP(clear_bit, "btr")
MOCK_BITOP(change_bit, "btc")
#include "bitops-c11.h"
#include "barrier-c11.h"

typedef struct { unsigned long pmd; } pmd_t;	/* the kernel xchg()s 8-byte structs */

static void test_atomic(void)
{
	atomic_t v = { INT_MAX };
	int old;

	arch_atomic_inc(&v);
	ok(arch_atomic_read(&v) == INT_MIN, "atomic_inc wraps INT_MAX to INT_MIN");
	ok(arch_atomic_add_return(-1, &v) == INT_MAX, "atomic_add_return(-1) returns the new value");
	ok(arch_atomic_fetch_sub(INT_MAX, &v) == INT_MAX && v.counter == 0, "atomic_fetch_sub returns the old value");
	ok(arch_atomic_inc_and_test(&v) == false && arch_atomic_dec_and_test(&v) == true, "inc_and_test/dec_and_test");
	ok(arch_atomic_sub_and_test(0, &v) == true, "sub_and_test(0) on 0");
	ok(arch_atomic_add_negative(-1, &v) == true && v.counter == -1, "add_negative(-1) on 0");
	ok(arch_atomic_add_negative(1, &v) == false, "add_negative(1) on -1: zero is not negative");
	arch_atomic_set(&v, 0x0ff0);
	ok(arch_atomic_fetch_and(0x00ff, &v) == 0x0ff0 && v.counter == 0x00f0, "fetch_and");
	ok(arch_atomic_fetch_or(0x0f00, &v) == 0x00f0 && v.counter == 0x0ff0, "fetch_or");
	ok(arch_atomic_fetch_xor(0xffff, &v) == 0x0ff0 && v.counter == 0xf00f, "fetch_xor");
	ok(arch_atomic_fetch_andnot(0xf000, &v) == 0xf00f && v.counter == 0x000f, "fetch_andnot");
	ok(arch_atomic_xchg(&v, -5) == 0x000f && v.counter == -5, "xchg");
	ok(arch_atomic_cmpxchg(&v, 3, 4) == -5 && v.counter == -5, "cmpxchg that fails stores nothing");
	ok(arch_atomic_cmpxchg(&v, -5, 4) == -5 && v.counter == 4, "cmpxchg that succeeds");
	old = 7;
	ok(!arch_atomic_try_cmpxchg(&v, &old, 9) && old == 4 && v.counter == 4, "try_cmpxchg failing writes *old");
	ok(arch_atomic_try_cmpxchg(&v, &old, 9) && old == 4 && v.counter == 9, "try_cmpxchg succeeding");
}

static void test_atomic64(void)
{
	atomic64_t v = { INT64_MAX };
	s64 old = INT64_MAX;

	ok(arch_atomic64_add_return(1, &v) == INT64_MIN, "atomic64_add_return wraps");
	ok(arch_atomic64_fetch_inc(&v) == INT64_MIN && v.counter == INT64_MIN + 1, "atomic64_fetch_inc");
	ok(!arch_atomic64_try_cmpxchg(&v, &old, 0) && old == INT64_MIN + 1, "atomic64_try_cmpxchg failing");
	ok(arch_atomic64_dec_return(&v) == INT64_MIN, "atomic64_dec_return");
	ok(arch_atomic64_sub_return(INT64_MIN, &v) == 0, "atomic64_sub_return to 0");
}

/* The expected value inside a union, as lockref keeps it: the loop's shape. */
static void test_try_cmpxchg_union(void)
{
	union { unsigned long lock_count; struct { int lock, count; }; } old, new, shared = { 0 };
	atomic_t a = { 5 };
	struct { int pad, v; } s = { 0, 1 };
	int tries = 0;

	old.lock_count = 0;
	shared.count = 4;		/* the first try fails, the second sees the count */
	do {
		new = old;
		new.count++;
		tries++;
	} while (!arch_try_cmpxchg(&shared.lock_count, &old.lock_count, new.lock_count));
	ok(tries == 2 && shared.count == 5 && old.count == 4, "try_cmpxchg loop on a union's word: fails once, then counts");
	ok(!arch_atomic_try_cmpxchg(&a, &s.v, 9) && s.v == 5 && s.pad == 0, "atomic_try_cmpxchg failing writes a struct member's old");
	ok(arch_atomic_try_cmpxchg(&a, &s.v, 9) && s.v == 5 && a.counter == 9, "atomic_try_cmpxchg succeeding leaves it");
}

static void test_cmpxchg(void)
{
	unsigned char b = 0xff;
	unsigned short h = 1;
	unsigned long l = ~0UL, lo = 0;
	volatile int vi = 5;
	pmd_t p = { 1 }, q = { 2 }, r;
	void *ptr = &b;

	ok(arch_xchg(&b, 0) == 0xff && b == 0, "xchg 1 byte");
	ok(arch_cmpxchg(&h, 1, 0xffff) == 1 && h == 0xffff, "cmpxchg 2 bytes");
	ok(!arch_try_cmpxchg(&l, &lo, 1UL) && lo == ~0UL, "try_cmpxchg 8 bytes failing writes *pold");
	ok(arch_try_cmpxchg(&l, &lo, 1UL) && l == 1, "try_cmpxchg 8 bytes");
	ok(arch_cmpxchg(&vi, 5, 6) == 5 && vi == 6, "cmpxchg on a volatile int");
	r = arch_xchg(&p, q);
	ok(r.pmd == 1 && p.pmd == 2, "xchg of an 8-byte struct (pmd_t)");
	ok(arch_cmpxchg(&ptr, (void *)&b, NULL) == (void *)&b && ptr == NULL, "cmpxchg of a pointer to NULL");
	ok(xadd(&l, 41UL) == 1 && l == 42, "xadd");
	r.pmd = 7;
	ok(!arch_try_cmpxchg(&p, &r, q) && r.pmd == 2 && p.pmd == 2, "try_cmpxchg of a pmd_t failing writes *pold");
	q.pmd = 3;
	ok(arch_try_cmpxchg(&p, &r, q) && r.pmd == 2 && p.pmd == 3, "try_cmpxchg of a pmd_t succeeding leaves *pold");
	test_try_cmpxchg_union();
}

static void test_bitops(void)
{
	unsigned long w[3] = { 0, 0, 0 };
	long nr;

	arch_set_bit(0, w);
	arch_set_bit(127, w);
	ok(w[0] == 1 && w[1] == 1UL << 63, "set_bit, constant bits 0 and 127");
	for (nr = 0; nr < 192; nr += 31) {
		bool was = (w[nr / 64] >> (nr % 64)) & 1;
		ok(arch_test_and_set_bit(nr, w) == was && ((w[nr / 64] >> (nr % 64)) & 1),
		   "test_and_set_bit(%ld) returns the old bit and sets it", nr);
		ok(arch_test_and_clear_bit(nr, w) == true && !((w[nr / 64] >> (nr % 64)) & 1),
		   "test_and_clear_bit(%ld)", nr);
		ok(arch_test_and_change_bit(nr, w) == false && arch_test_and_change_bit(nr, w) == true,
		   "test_and_change_bit(%ld) twice", nr);
	}
	/* The void ops on a bit the compiler cannot know (the lock bts/btr/btc
	 * shape), every bit of three words, the neighbours left alone. */
	for (nr = 0; nr < 192; nr++) {
		volatile long opaque = nr;
		long b = opaque;
		int i, right = 1;

		w[0] = w[1] = w[2] = 0x5555555555555555UL;
		arch_set_bit(b, w);
		arch_change_bit(b, w);
		arch_change_bit(b, w);
		right &= (w[b / 64] >> (b % 64)) & 1;
		arch_clear_bit(b, w);
		right &= !((w[b / 64] >> (b % 64)) & 1);
		arch_set_bit(b, w);
		arch_clear_bit_unlock(b, w);
		for (i = 0; i < 3; i++)
			right &= (w[i] | (i == b / 64 ? 1UL << (b % 64) : 0)) ==
				 (0x5555555555555555UL | (i == b / 64 ? 1UL << (b % 64) : 0));
		right &= !((w[b / 64] >> (b % 64)) & 1);
		if (!right || nr == 0 || nr == 63 || nr == 64 || nr == 191)
			ok(right, "set/change/clear/clear_unlock_bit(%ld), a variable bit: that bit only", nr);
	}
	w[0] = w[1] = w[2] = 0;
	nr = 190;
	arch_set_bit(nr, w);
	arch_change_bit(nr, w);
	arch_change_bit(nr - 1, w);
	ok(w[2] == 1UL << 61, "set_bit then change_bit(190), change_bit(189), variable bits");
	arch_clear_bit_unlock(nr - 1, w);
	arch_clear_bit(127, w);
	ok(w[2] == 0 && w[1] == 0, "clear_bit_unlock(189), clear_bit(127)");
	ok(arch_test_and_set_bit_lock(64, w) == false && w[1] == 1, "test_and_set_bit_lock(64)");
	w[0] = 0x81;
	ok(arch_xor_unlock_is_negative_byte(1, w) == true && w[0] == 0x80, "xor_unlock_is_negative_byte: bit 7 set");
	ok(arch_xor_unlock_is_negative_byte(0x80, w) == false && w[0] == 0, "xor_unlock_is_negative_byte: bit 7 clear");
}

#include "mock-packed.h"

static void test_barriers(void)
{
	int x = 1, y;
	int *p = &x, *q;

	__smp_mb();
	__smp_rmb();
	__smp_wmb();
	__smp_store_release(&x, 2);
	y = __smp_load_acquire(&x);
	__smp_store_mb(x, 3);
	q = __smp_load_acquire(&p);
	test_packed_members();
	ok(y == 2 && x == 3 && q == &x, "barriers, store_release, load_acquire, store_mb");
}

int main(void)
{
	test_atomic();
	test_atomic64();
	test_cmpxchg();
	test_bitops();
	test_barriers();
	return done_testing();
}
