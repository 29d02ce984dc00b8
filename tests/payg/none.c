/* SPDX-License-Identifier: MIT */
/*
 * tests/check-payg.sh: a program that uses atomics but never locks, waits
 * or saturates a refcount.  Built with HDR=<katomic/atomic.h> and with
 * HDR=<katomic/katomic.h>: both must be the same size and need the same
 * symbols.
 */
#include HDR

static atomic_t a = ATOMIC_INIT(0);
static atomic64_t b = ATOMIC64_INIT(0);

int main(int argc, char **argv)
{
	(void)argv;
	atomic_inc(&a);
	atomic64_add(argc, &b);
	smp_mb();
	if (atomic_cmpxchg(&a, 1, 2) != 1 || atomic64_read(&b) != argc)
		return 1;
	return atomic_add_return(1, &a) == 3 ? 0 : 1;
}
