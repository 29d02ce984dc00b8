/* SPDX-License-Identifier: MIT */
/*
 * Every bitops.h operation on a bitmap of several words, for bit numbers at
 * and around the word boundaries and several starting patterns, against a
 * plain reference: the exact words afterwards (guard words around the
 * bitmap included) and the old bit each test_* returns.  Then the helper
 * macros, a bit lock sequence, and atomicity with threads sharing a word.
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <katomic/katomic.h>
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Bits per unsigned long, computed here rather than taken from the header. */
#define BPL ((unsigned long)(CHAR_BIT * sizeof(unsigned long)))
#define NWORDS 4

struct bm {
	unsigned long pre;
	DECLARE_BITMAP(map, NWORDS * BPL);
	unsigned long post;
};

static const unsigned long patterns[] = { 0, ~0UL, ULONG_MAX / 3, ULONG_MAX / 3 * 2 };
static const unsigned long nrs[] = {
	0, 1, 5, 7, 8, 31, 32, 33, BPL - 2, BPL - 1, BPL, BPL + 1,
	2 * BPL - 1, 2 * BPL + 5, 3 * BPL, 4 * BPL - 2, 4 * BPL - 1,
};

/* Neighbouring words get different patterns; the guards another one. */
static void fill(struct bm *b, size_t p)
{
	b->pre = (unsigned long)0x0123456789abcdefULL;
	for (size_t w = 0; w < NWORDS; w++)
		b->map[w] = patterns[(p + w) % ARRAY_SIZE(patterns)];
	b->post = ~b->pre;
}

enum kind { K_SET, K_CLEAR, K_CHANGE, K_TEST };

/* The reference: plain C on word nr / BPL, bit nr % BPL; returns the old bit. */
static bool ref_op(struct bm *b, unsigned long nr, enum kind k)
{
	unsigned long *w = &b->map[nr / BPL], m = 1UL << (nr % BPL);
	bool old = (*w & m) != 0;

	if (k == K_SET)
		*w |= m;
	else if (k == K_CLEAR)
		*w &= ~m;
	else if (k == K_CHANGE)
		*w ^= m;
	return old;
}

#define RET_void(call, ref) ((call), (ref))	/* nothing returned: nothing to compare */
#define RET_bool(call, ref) (call)

/* One op on every pattern and bit number; one TAP line. */
#define BIT_CASE(op, kind, ret) do {						\
	unsigned long bad_ = 0, n_ = 0;						\
	for (size_t p_ = 0; p_ < ARRAY_SIZE(patterns); p_++)			\
		for (size_t i_ = 0; i_ < ARRAY_SIZE(nrs); i_++, n_++) {		\
			struct bm got_, want_;					\
			bool rw_, rg_;						\
			fill(&got_, p_);					\
			fill(&want_, p_);					\
			rw_ = ref_op(&want_, nrs[i_], kind);			\
			rg_ = RET_##ret(op(nrs[i_], got_.map), rw_);		\
			if (rg_ != rw_ || memcmp(&got_, &want_, sizeof(got_))) { \
				if (!bad_++)					\
					diag(#op "(%lu) on pattern %zu: returned %d, expected %d; " \
					     "word %lu is %#lx, expected %#lx", nrs[i_], p_, rg_, rw_, \
					     nrs[i_] / BPL, got_.map[nrs[i_] / BPL], \
					     want_.map[nrs[i_] / BPL]);		\
			}							\
		}							\
	ok(!bad_, #op ": %lu cases (bit number x starting pattern)", n_);	\
} while (0)

static void test_ops(void)
{
	BIT_CASE(set_bit, K_SET, void);
	BIT_CASE(clear_bit, K_CLEAR, void);
	BIT_CASE(change_bit, K_CHANGE, void);
	BIT_CASE(test_and_set_bit, K_SET, bool);
	BIT_CASE(test_and_clear_bit, K_CLEAR, bool);
	BIT_CASE(test_and_change_bit, K_CHANGE, bool);
	BIT_CASE(test_and_set_bit_lock, K_SET, bool);
	BIT_CASE(clear_bit_unlock, K_CLEAR, void);
	BIT_CASE(__clear_bit_unlock, K_CLEAR, void);
	BIT_CASE(test_bit, K_TEST, bool);
	BIT_CASE(test_bit_acquire, K_TEST, bool);
	BIT_CASE(__set_bit, K_SET, void);
	BIT_CASE(__clear_bit, K_CLEAR, void);
	BIT_CASE(__change_bit, K_CHANGE, void);
	BIT_CASE(__test_and_set_bit, K_SET, bool);
	BIT_CASE(__test_and_clear_bit, K_CLEAR, bool);
	BIT_CASE(__test_and_change_bit, K_CHANGE, bool);
}

static void test_macros(void)
{
	DECLARE_BITMAP(one, 1);
	DECLARE_BITMAP(full, 2 * BPL);
	DECLARE_BITMAP(odd, 2 * BPL + 1);

	ok(BITS_PER_LONG == BPL, "BITS_PER_LONG is %lu", (unsigned long)BITS_PER_LONG);
	ok(BIT_WORD(0) == 0 && BIT_WORD(1) == 0 && BIT_WORD(BPL - 1) == 0 && BIT_WORD(BPL) == 1 &&
	   BIT_WORD(2 * BPL + 5) == 2 && BIT_WORD(4 * BPL - 1) == 3, "BIT_WORD");
	ok(BIT_MASK(0) == 1UL && BIT_MASK(5) == 32UL && BIT_MASK(BPL - 1) == 1UL << (BPL - 1) &&
	   BIT_MASK(BPL) == 1UL && BIT_MASK(2 * BPL + 5) == 32UL, "BIT_MASK");
	ok(BITS_TO_LONGS(0) == 0 && BITS_TO_LONGS(1) == 1 && BITS_TO_LONGS(BPL) == 1 &&
	   BITS_TO_LONGS(BPL + 1) == 2 && BITS_TO_LONGS(3 * BPL) == 3, "BITS_TO_LONGS");
	ok(sizeof(one) == sizeof(long) && sizeof(full) == 2 * sizeof(long) &&
	   sizeof(odd) == 3 * sizeof(long), "DECLARE_BITMAP sizes");
}

/* A bit lock, and test_bit on a const bitmap. */
static void test_sequences(void)
{
	DECLARE_BITMAP(lock, 2 * BPL) = { 0, 0 };
	static const unsigned long cmap[2] = { 1UL << 3, 1UL << (BPL - 1) };
	bool good = true;

	good &= !test_and_set_bit_lock(BPL + 3, lock);	/* taken */
	good &= test_and_set_bit_lock(BPL + 3, lock);	/* busy */
	good &= test_bit(BPL + 3, lock) && lock[0] == 0 && lock[1] == 1UL << 3;
	clear_bit_unlock(BPL + 3, lock);
	good &= !test_bit(BPL + 3, lock) && lock[1] == 0;
	good &= !test_and_set_bit_lock(BPL + 3, lock);
	__clear_bit_unlock(BPL + 3, lock);
	good &= lock[0] == 0 && lock[1] == 0;
	ok(good, "bit lock: test_and_set_bit_lock / clear_bit_unlock / __clear_bit_unlock");

	ok(test_bit(3, cmap) && !test_bit(4, cmap) && test_bit(2 * BPL - 1, cmap) &&
	   test_bit_acquire(3, cmap) && !test_bit_acquire(BPL + 3, cmap),
	   "test_bit and test_bit_acquire on a const bitmap");
}

/*
 * Atomicity: threads (more than this machine's 2 CPUs) flip their own bits
 * of one shared word; with a lost update some thread would see its bit other
 * than it left it.
 */
#define THREADS 4
#define ROUNDS 20000
static unsigned long shared_word[1];
static unsigned long lost[THREADS];

static void *flipper(void *arg)
{
	unsigned long t = (unsigned long)arg;
	unsigned long b1 = t, b2 = t + BPL / 2;

	for (unsigned long r = 0; r < ROUNDS; r++) {
		bool phase = r & 1;

		if (test_and_change_bit(b1, shared_word) != phase)
			lost[t]++;
		change_bit(b2, shared_word);
		if (test_bit(b2, shared_word) == phase)
			lost[t]++;
		if (!phase) {		/* both bits are set now */
			clear_bit(b2, shared_word);
			if (test_bit(b2, shared_word))
				lost[t]++;
			set_bit(b2, shared_word);
			if (!test_and_clear_bit(b1, shared_word) || test_and_set_bit(b1, shared_word))
				lost[t]++;
		} else {		/* both bits are clear now */
			set_bit(b2, shared_word);
			if (!test_bit(b2, shared_word))
				lost[t]++;
			clear_bit(b2, shared_word);
			if (test_and_set_bit(b1, shared_word) || !test_and_clear_bit(b1, shared_word))
				lost[t]++;
		}
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[THREADS];
	unsigned long total = 0;

	for (unsigned long t = 0; t < THREADS; t++)
		if (pthread_create(&th[t], NULL, flipper, (void *)t)) {
			ok(0, "pthread_create");
			return;
		}
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		total += lost[t];
	}
	ok(total == 0 && shared_word[0] == 0,
	   "%d threads flipping their own bits of one word: no lost update (%lu seen, word %#lx)",
	   THREADS, total, shared_word[0]);
}

int main(void)
{
	test_ops();
	test_macros();
	test_sequences();
	test_threads();
	return done_testing();
}
