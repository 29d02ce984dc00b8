/* SPDX-License-Identifier: MIT */
/*
 * Bit locks under contention, with 2, 4 and 8 threads:
 *  - test_and_set_bit_lock / clear_bit_unlock on one bit of a word protect
 *    a plain counter, while every thread also sets, clears and toggles bits
 *    of its own in the SAME word with set_bit/clear_bit/change_bit and
 *    test_and_set_bit/test_and_clear_bit: the unlock must be an atomic RMW
 *    that loses none of them.  Lock bit 0, the top bit of the word, and the
 *    top bit of the second word of a bitmap.
 *  - __clear_bit_unlock (a release store, not an RMW) where the lock bit is
 *    the only bit of its word that anybody changes.
 * Exact results: the counter equals the number of critical sections, the
 * final word is exactly the toggled bits, no own-bit update is ever lost.
 * Under ThreadSanitizer the plain counter also proves acquire/release.
 */
#include <katomic/katomic.h>
#include "tap.h"
#include "stress.h"

static DECLARE_BITMAP(map, 2 * BITS_PER_LONG) __attribute__((aligned(64)));
static unsigned long solo __attribute__((aligned(64)));

/* What the lock protects (plain). */
static struct {
	long count;
	int owner;
} prot;

struct ctx {
	long lockbit;		/* bit number in map */
	long n;			/* at most this many per thread */
	double secs;		/* and at most this long */
	int solo;		/* __clear_bit_unlock on `solo` instead */
};

static long done[STRESS_MAX_THREADS], toggles[STRESS_MAX_THREADS];
static long lost[STRESS_MAX_THREADS], intrusions[STRESS_MAX_THREADS];

/* Thread idx's own bits, in the lock bit's word, never the lock bit itself. */
static long own_bit(long lockbit, int idx, int which)
{
	long base = lockbit - lockbit % BITS_PER_LONG;

	return base + 1 + 3 * idx + which;	/* offsets 1..24: below the top bit */
}

static void lock_bit(long nr, volatile unsigned long *addr)
{
	unsigned int spins = 0;

	while (test_and_set_bit_lock(nr, addr))
		while (test_bit(nr, addr))	/* wait without writing */
			stress_relax(&spins);
}

static void worker(int idx, void *arg)
{
	const struct ctx *c = arg;
	long a = own_bit(c->lockbit, idx, 0), b = own_bit(c->lockbit, idx, 1);
	long t = own_bit(c->lockbit, idx, 2);
	long i, bad = 0, intr = 0, tog = 0;
	struct stress_clock clk;

	stress_clock_start(&clk, c->secs);
	for (i = 0; i < c->n && !stress_clock_expired(&clk); i++) {
		if (c->solo) {
			lock_bit(0, &solo);
		} else {
			lock_bit(c->lockbit, map);
			if (!test_bit(c->lockbit, map))
				intr++;
		}
		/* critical section: plain accesses */
		long v = prot.count;

		prot.owner = idx;
		prot.count = v + 1;
		if (prot.owner != idx)
			intr++;
		if (c->solo) {
			__clear_bit_unlock(0, &solo);
			continue;
		}
		clear_bit_unlock(c->lockbit, map);

		/* our own bits, in the same word as the lock */
		set_bit(a, map);
		if (!test_bit(a, map))
			bad++;
		clear_bit(a, map);
		if (test_bit(a, map))
			bad++;
		if (test_and_set_bit(b, map))	/* was clear: only we touch it */
			bad++;
		if (!test_and_clear_bit(b, map))
			bad++;
		if (i % 3 == 0) {
			change_bit(t, map);
			tog++;
			if (test_bit(t, map) != (tog & 1))
				bad++;
		}
	}
	done[idx] = i;
	toggles[idx] = tog;
	lost[idx] = bad;
	intrusions[idx] = intr;
}

static void test_bitlock(long lockbit, int nthreads, int use_solo)
{
	struct ctx c = { lockbit, stress_iters(2000000, 200000), STRESS_TSAN ? 0.3 : 0.1, use_solo };
	unsigned long expect[2] = { 0, 0 };
	long total = 0, bad = 0, intr = 0;
	double secs;
	int th;

	memset(&prot, 0, sizeof(prot));
	memset(map, 0, sizeof(map));
	solo = 0;
	secs = stress_run(nthreads, worker, &c);
	for (th = 0; th < nthreads; th++) {
		total += done[th];
		bad += lost[th];
		intr += intrusions[th];
		if (toggles[th] & 1)
			expect[BIT_WORD(own_bit(lockbit, th, 2))] |= BIT_MASK(own_bit(lockbit, th, 2));
	}
	if (use_solo) {
		ok(prot.count == total && intr == 0 && solo == 0,
		   "__clear_bit_unlock, %d threads: plain counter %ld (expected %ld), %ld intrusions, "
		   "word %#lx at the end [%.3f s]", nthreads, prot.count, total, intr, solo, secs);
		return;
	}
	ok(prot.count == total && intr == 0,
	   "test_and_set_bit_lock/clear_bit_unlock on bit %ld, %d threads: plain counter %ld "
	   "(expected %ld), %ld intrusions [%.3f s]", lockbit, nthreads, prot.count, total, intr, secs);
	ok(bad == 0 && map[0] == expect[0] && map[1] == expect[1],
	   "bit %ld lock, %d threads: set_bit/clear_bit/change_bit/test_and_* on the same word never "
	   "lost (%ld lost), final words %#lx %#lx (expected %#lx %#lx)",
	   lockbit, nthreads, bad, map[0], map[1], expect[0], expect[1]);
}

int main(void)
{
	static const int nts[] = { 2, 4, 8 };
	const long lockbits[] = { 0, BITS_PER_LONG - 1, 2 * BITS_PER_LONG - 1 };
	double t0 = stress_now();
	unsigned i, k;

	stress_watchdog(STRESS_TSAN ? 300 : 60);

	/* single thread: the lock bit behaves as a lock */
	ok(!test_and_set_bit_lock(5, map) && test_and_set_bit_lock(5, map) && test_bit(5, map),
	   "test_and_set_bit_lock: false (taken) on a clear bit, then true (busy)");
	clear_bit_unlock(5, map);
	ok(!test_bit(5, map) && map[0] == 0, "clear_bit_unlock: clears just that bit");
	map[0] = 0x30;
	ok(!test_and_set_bit_lock(0, map), "test_and_set_bit_lock beside other set bits");
	__clear_bit_unlock(0, map);
	ok(map[0] == 0x30, "__clear_bit_unlock: clears the lock bit, keeps the others (%#lx)", map[0]);

	for (k = 0; k < 3; k++)
		for (i = 0; i < 3; i++)
			test_bitlock(lockbits[i], nts[k], 0);
	for (k = 0; k < 3; k++)
		test_bitlock(0, nts[k], 1);

	diag("%.2f s in all%s", stress_now() - t0, STRESS_TSAN ? " (TSan)" : "");
	return done_testing();
}
