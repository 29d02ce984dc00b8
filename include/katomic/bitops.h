/* SPDX-License-Identifier: MIT */
/*
 * Bit operations on bitmaps of unsigned long, of any length: bit nr is bit
 * (nr % BITS_PER_LONG) of word (nr / BITS_PER_LONG).  Orderings as in the
 * kernel: set/clear/change_bit and test_bit are unordered, test_and_* are
 * fully ordered, test_and_set_bit_lock is acquire and clear_bit_unlock
 * release.  The __ forms are not atomic: for bitmaps no other thread writes.
 */
#ifndef KATOMIC_BITOPS_H
#define KATOMIC_BITOPS_H

#include "atomic.h"

#define KA_BITS_PER_LONG	(__SIZEOF_LONG__ * 8)
#define KA_BIT_WORD(nr)		((nr) / KA_BITS_PER_LONG)
#define KA_BIT_MASK(nr)		(1UL << ((nr) % KA_BITS_PER_LONG))
#define KA_BITS_TO_LONGS(nr)	(((nr) + KA_BITS_PER_LONG - 1) / KA_BITS_PER_LONG)
#define KA_DECLARE_BITMAP(name, bits) unsigned long name[KA_BITS_TO_LONGS(bits)]

/*
 * The word holding bit nr, as the atomic_long_t the generic bit ops are
 * built on (long and unsigned long may alias each other).
 */
static __ka_always_inline ka_atomic_long_t *
__ka_bit_word(unsigned long nr, volatile unsigned long *addr)
{
	return (ka_atomic_long_t *)(addr + KA_BIT_WORD(nr));
}

#define __ka_bit_mask(nr) ((long)KA_BIT_MASK((unsigned long)(nr)))
/* Apply an atomic_long fetch_ op to bit nr's word; was the bit set before? */
#define __ka_bit_fetch(fetch, nr, addr) \
	((fetch(__ka_bit_mask(nr), __ka_bit_word(nr, addr)) & __ka_bit_mask(nr)) != 0)

/* Atomic, unordered. */
static __ka_always_inline void ka_set_bit(long nr, volatile unsigned long *addr)
{
	ka_atomic_long_or(__ka_bit_mask(nr), __ka_bit_word(nr, addr));
}

static __ka_always_inline void ka_clear_bit(long nr, volatile unsigned long *addr)
{
	ka_atomic_long_andnot(__ka_bit_mask(nr), __ka_bit_word(nr, addr));
}

static __ka_always_inline void ka_change_bit(long nr, volatile unsigned long *addr)
{
	ka_atomic_long_xor(__ka_bit_mask(nr), __ka_bit_word(nr, addr));
}

/* Atomic, fully ordered; they return the bit's old value. */
static __ka_always_inline bool ka_test_and_set_bit(long nr, volatile unsigned long *addr)
{
#ifdef ka_arch_test_and_set_bit
	return ka_arch_test_and_set_bit(nr, addr);
#else
	return __ka_bit_fetch(ka_atomic_long_fetch_or, nr, addr);
#endif
}

static __ka_always_inline bool ka_test_and_clear_bit(long nr, volatile unsigned long *addr)
{
#ifdef ka_arch_test_and_clear_bit
	return ka_arch_test_and_clear_bit(nr, addr);
#else
	return __ka_bit_fetch(ka_atomic_long_fetch_andnot, nr, addr);
#endif
}

static __ka_always_inline bool ka_test_and_change_bit(long nr, volatile unsigned long *addr)
{
#ifdef ka_arch_test_and_change_bit
	return ka_arch_test_and_change_bit(nr, addr);
#else
	return __ka_bit_fetch(ka_atomic_long_fetch_xor, nr, addr);
#endif
}

/* Bit locks: acquire when it returns false (the bit was clear: lock taken). */
static __ka_always_inline bool ka_test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{
#ifdef ka_arch_test_and_set_bit_lock
	return ka_arch_test_and_set_bit_lock(nr, addr);
#else
	return __ka_bit_fetch(ka_atomic_long_fetch_or_acquire, nr, addr);
#endif
}

static __ka_always_inline void ka_clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	(void)ka_atomic_long_fetch_andnot_release(__ka_bit_mask(nr), __ka_bit_word(nr, addr));
}

/* Release, but not atomic: only when no other thread writes this word meanwhile. */
static __ka_always_inline void ka___clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	ka_atomic_long_t *w = __ka_bit_word(nr, addr);

	ka_atomic_long_set_release(w, ka_atomic_long_read(w) & ~__ka_bit_mask(nr));
}

static __ka_always_inline bool ka_test_bit(long nr, const volatile unsigned long *addr)
{
	return 1UL & (KA_READ_ONCE(addr[KA_BIT_WORD((unsigned long)nr)]) >> ((unsigned long)nr % KA_BITS_PER_LONG));
}

static __ka_always_inline bool ka_test_bit_acquire(long nr, const volatile unsigned long *addr)
{
	return 1UL & (ka_smp_load_acquire(&addr[KA_BIT_WORD((unsigned long)nr)]) >> ((unsigned long)nr % KA_BITS_PER_LONG));
}

/*
 * Not atomic: plain read-modify-write of the word.  C++20 deprecates the
 * compound assignment to a volatile (C++23 takes that back for |= &= ^=);
 * spelt out as *p = *p | m, clang keeps one more register move, so the
 * warning is silenced instead: the same access as in C.
 */
#ifdef __cplusplus
#pragma GCC diagnostic push
#ifdef __clang__
#pragma GCC diagnostic ignored "-Wdeprecated-volatile"
#else
#pragma GCC diagnostic ignored "-Wvolatile"
#endif
#endif
static __ka_always_inline void ka___set_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[KA_BIT_WORD(nr)] |= KA_BIT_MASK(nr);
}

static __ka_always_inline void ka___clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[KA_BIT_WORD(nr)] &= ~KA_BIT_MASK(nr);
}

static __ka_always_inline void ka___change_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[KA_BIT_WORD(nr)] ^= KA_BIT_MASK(nr);
}
#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif

static __ka_always_inline bool ka___test_and_set_bit(unsigned long nr, volatile unsigned long *addr)
{
	unsigned long old = addr[KA_BIT_WORD(nr)];

	addr[KA_BIT_WORD(nr)] = old | KA_BIT_MASK(nr);
	return (old & KA_BIT_MASK(nr)) != 0;
}

static __ka_always_inline bool ka___test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	unsigned long old = addr[KA_BIT_WORD(nr)];

	addr[KA_BIT_WORD(nr)] = old & ~KA_BIT_MASK(nr);
	return (old & KA_BIT_MASK(nr)) != 0;
}

static __ka_always_inline bool ka___test_and_change_bit(unsigned long nr, volatile unsigned long *addr)
{
	unsigned long old = addr[KA_BIT_WORD(nr)];

	addr[KA_BIT_WORD(nr)] = old ^ KA_BIT_MASK(nr);
	return (old & KA_BIT_MASK(nr)) != 0;
}

#include "generated/names-bitops.h"

#endif /* KATOMIC_BITOPS_H */
