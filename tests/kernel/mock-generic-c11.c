/* SPDX-License-Identifier: MIT */
/*
 * The generated asm-generic C11 layer (tools/kernel/generated/include/
 * asm-generic/ *-c11.h) compiled in user space for a weakly ordered target
 * (aarch64 LSE, aarch64 LL/SC, riscv64) against a few lines standing in for
 * the kernel's types, and run under qemu-user: each operation's value, return
 * and stored result in every order, sub-word xchg/cmpxchg beside live
 * neighbours (riscv64 gcc < 13 builds them from the word CAS), edge values.
 * tests/kernel/check-kernel-cross.py also reads its disassembly.
 */
#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include "../tap.h"

#include "mock-kernel.h"
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))

#include <asm-generic/atomic-c11.h>
#include <asm-generic/atomic64-c11.h>
#include <asm-generic/barrier-c11.h>

typedef struct { unsigned long pte; } pte_t;	/* the kernel xchg()s 8-byte structs */

/* Out of line, so that check-kernel-cross.py finds each one's code by name. */
#define PROBE(name, T, expr) __attribute__((noinline)) T probe_##name(atomic_t *v, int i) { return expr; }
PROBE(fetch_add, int, arch_atomic_fetch_add(i, v))
PROBE(fetch_add_relaxed, int, arch_atomic_fetch_add_relaxed(i, v))
PROBE(cmpxchg, int, arch_atomic_cmpxchg(v, i, 0))
PROBE(add, int, (arch_atomic_add(i, v), 0))

static void test_atomic(void)
{
	atomic_t v = { INT_MAX };
	int old;

	arch_atomic_inc(&v);
	ok(arch_atomic_read(&v) == INT_MIN, "atomic_inc wraps INT_MAX to INT_MIN");
	ok(arch_atomic_add_return(-1, &v) == INT_MAX, "add_return(-1) returns the new value");
	ok(arch_atomic_add_return_acquire(1, &v) == INT_MIN, "add_return_acquire");
	ok(arch_atomic_add_return_release(-1, &v) == INT_MAX, "add_return_release");
	ok(arch_atomic_add_return_relaxed(0, &v) == INT_MAX, "add_return_relaxed");
	ok(arch_atomic_fetch_sub(INT_MAX, &v) == INT_MAX && v.counter == 0, "fetch_sub returns the old value");
	ok(!arch_atomic_inc_and_test(&v) && arch_atomic_dec_and_test(&v), "inc_and_test/dec_and_test");
	ok(arch_atomic_sub_and_test(0, &v), "sub_and_test(0) on 0");
	ok(arch_atomic_add_negative(-1, &v) && v.counter == -1, "add_negative(-1) on 0");
	ok(!arch_atomic_add_negative_relaxed(1, &v), "add_negative_relaxed(1) on -1: zero is not negative");
	arch_atomic_set(&v, 0x0ff0);
	ok(arch_atomic_fetch_and_acquire(0x00ff, &v) == 0x0ff0 && v.counter == 0x00f0, "fetch_and_acquire");
	ok(arch_atomic_fetch_or_release(0x0f00, &v) == 0x00f0 && v.counter == 0x0ff0, "fetch_or_release");
	ok(arch_atomic_fetch_xor(0xffff, &v) == 0x0ff0 && v.counter == 0xf00f, "fetch_xor");
	ok(arch_atomic_fetch_andnot_relaxed(0xf000, &v) == 0xf00f && v.counter == 0x000f, "fetch_andnot_relaxed");
	ok(arch_atomic_xchg_acquire(&v, -5) == 0x000f && v.counter == -5, "xchg_acquire");
	ok(arch_atomic_cmpxchg(&v, 3, 4) == -5 && v.counter == -5, "cmpxchg that fails stores nothing");
	ok(arch_atomic_cmpxchg_release(&v, -5, 4) == -5 && v.counter == 4, "cmpxchg_release that succeeds");
	old = 7;
	ok(!arch_atomic_try_cmpxchg_acquire(&v, &old, 9) && old == 4 && v.counter == 4, "try_cmpxchg failing writes *old");
	ok(arch_atomic_try_cmpxchg(&v, &old, 9) && old == 4 && v.counter == 9, "try_cmpxchg succeeding");
	/* A negative expected value: lr.w sign-extends (GCC PR 114130). */
	arch_atomic_set(&v, -2);
	old = -2;
	ok(arch_atomic_try_cmpxchg_relaxed(&v, &old, INT_MIN) && v.counter == INT_MIN, "try_cmpxchg_relaxed, negative values");
	ok(probe_fetch_add(&v, 1) == INT_MIN && probe_fetch_add_relaxed(&v, 1) == INT_MIN + 1 &&
	   probe_cmpxchg(&v, INT_MIN + 2) == INT_MIN + 2 && v.counter == 0 && probe_add(&v, 3) == 0 && v.counter == 3,
	   "the out-of-line probes");
}

static void test_atomic64(void)
{
	atomic64_t v = { INT64_MAX };
	s64 old = INT64_MAX;

	ok(arch_atomic64_add_return(1, &v) == INT64_MIN, "atomic64_add_return wraps");
	ok(arch_atomic64_fetch_inc_relaxed(&v) == INT64_MIN && v.counter == INT64_MIN + 1, "atomic64_fetch_inc_relaxed");
	ok(!arch_atomic64_try_cmpxchg(&v, &old, 0) && old == INT64_MIN + 1, "atomic64_try_cmpxchg failing");
	ok(arch_atomic64_dec_return_release(&v) == INT64_MIN, "atomic64_dec_return_release");
	ok(arch_atomic64_sub_return(INT64_MIN, &v) == 0, "atomic64_sub_return to 0");
	ok(arch_atomic64_xchg(&v, -1) == 0 && arch_atomic64_cmpxchg(&v, -1, 5) == -1 && v.counter == 5, "atomic64 xchg, cmpxchg");
}

static void test_cmpxchg(void)
{
	/* Sub-word objects with live neighbours in the same word. */
	struct { unsigned char b0, b1; unsigned short h; } w = { 0x11, 0xff, 0x8001 };
	unsigned long l = ~0UL, lo = 0;
	pte_t p = { 1 }, q = { 2 }, r;
	void *ptr = &w;

	ok(arch_xchg(&w.b1, 0) == 0xff && w.b1 == 0 && w.b0 == 0x11 && w.h == 0x8001, "xchg 1 byte, neighbours kept");
	ok(arch_xchg_relaxed(&w.h, 0xfffe) == 0x8001 && w.h == 0xfffe && w.b0 == 0x11, "xchg_relaxed 2 bytes");
	ok(arch_cmpxchg(&w.h, 1, 2) == 0xfffe && w.h == 0xfffe, "cmpxchg 2 bytes failing");
	ok(arch_cmpxchg_acquire(&w.h, 0xfffe, 0x7fff) == 0xfffe && w.h == 0x7fff && w.b1 == 0, "cmpxchg_acquire 2 bytes");
	ok(arch_cmpxchg_local(&w.b0, 0x11, 0x80) == 0x11 && w.b0 == 0x80, "cmpxchg_local 1 byte");
	ok(!arch_try_cmpxchg(&l, &lo, 1UL) && lo == ~0UL, "try_cmpxchg 8 bytes failing writes *pold");
	ok(arch_try_cmpxchg_release(&l, &lo, 1UL) && l == 1, "try_cmpxchg_release 8 bytes");
	ok(arch_cmpxchg64(&l, 1UL, 2UL) == 1 && l == 2, "cmpxchg64");
	r = arch_xchg(&p, q);
	ok(r.pte == 1 && p.pte == 2, "xchg of an 8-byte struct (pte_t)");
	ok(arch_cmpxchg(&ptr, (void *)&w, NULL) == (void *)&w && ptr == NULL, "cmpxchg of a pointer to NULL");
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
	q = __smp_load_acquire(&p);
	test_packed_members();
	ok(y == 2 && q == &x, "barriers, store_release, load_acquire");
}

int main(void)
{
	test_atomic();
	test_atomic64();
	test_cmpxchg();
	test_barriers();
	return done_testing();
}
