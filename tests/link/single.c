/* SPDX-License-Identifier: MIT */
/*
 * A single-threaded program that includes katomic and uses a few of its
 * operations, the user's own sub-word xchg/cmpxchg among them:
 * tests/check-link.sh links it with pkg-config's flags alone (and without
 * -pthread) on every target, statically and dynamically, and runs it.  It
 * must need nothing but libc.  Exit status 0 and "single: all N checks hold".
 */
#include <stdio.h>
#include <katomic/katomic.h>

static int checks, bad;
#define CHECK(cond) do { checks++; if (!(cond)) { bad++; printf("failed: %s (line %d)\n", #cond, __LINE__); } } while (0)

int main(void)
{
	atomic_t a = ATOMIC_INIT(1);
	atomic64_t b = ATOMIC64_INIT(-1);
	unsigned char c[4] = { 1, 2, 0xff, 4 };
	unsigned short s[2] = { 0x8000, 7 };
	unsigned long bits = 0;
	refcount_t r = REFCOUNT_INIT(1);
	DEFINE_SPINLOCK(lock);

	atomic_inc(&a);
	CHECK(atomic_read(&a) == 2);
	CHECK(atomic64_add_return(2, &b) == 1);
	CHECK(xchg(&c[2], (unsigned char)0x80) == 0xff && c[2] == 0x80 && c[1] == 2 && c[3] == 4);
	CHECK(cmpxchg(&c[1], (unsigned char)2, (unsigned char)0xfe) == 2 && c[1] == 0xfe && c[0] == 1);
	CHECK(cmpxchg(&s[0], (unsigned short)0x8000, (unsigned short)0xffff) == 0x8000 && s[0] == 0xffff);
	CHECK(xchg_relaxed(&s[1], (unsigned short)0x8001) == 7 && s[0] == 0xffff);
	set_bit(3, &bits);
	CHECK(test_and_clear_bit(3, &bits) && bits == 0);
	refcount_inc(&r);
	CHECK(!refcount_dec_and_test(&r) && refcount_dec_and_test(&r));
	spin_lock(&lock);
	CHECK(spin_is_locked(&lock));
	spin_unlock(&lock);
	CHECK(spin_trylock(&lock));
	spin_unlock(&lock);
	smp_mb();
	if (bad)
		return 1;
	printf("single: all %d checks hold\n", checks);
	return 0;
}
