#ifndef _ASM_X86_BITOPS_C11_H
#define _ASM_X86_BITOPS_C11_H

/*
 * The atomic bitops on C11 builtins, included by <asm/bitops.h> before the
 * instrumented wrappers (asm-generic/bitops/instrumented-*.h) that call them;
 * each replaces the kernel's function of the same name by a macro.  The
 * non-atomic __set_bit() & co and test_bit() are not atomics and stay.
 *
 * Shapes (katomic's include/katomic/arch/x86_64.h, docs/codegen.md):
 *  - a constant bit: a locked or/and/xor on the byte holding it (lock orb,
 *    as the kernel's CONST_MASK_ADDR asm does);
 *  - test_and_* on a constant bit: `(fetch_OP(word, mask) & mask) != 0`,
 *    folded into lock bts/btr/btc $bit + setc.  clang folds that only for
 *    bits 32..63 of a 64-bit word, and only while the RMW's one user is
 *    "& mask": it gets the 32-bit half holding the bit and an empty asm on
 *    the result;
 *  - a variable bit: the kernel's own asm (arch_set_bit & co. in
 *    <asm/bitops.h>, defined before this header is included: lock bts/btr/btc
 *    on the bit string).  C11 has no bit-string RMW: the word RMW that the
 *    compilers fold into lock bts only while the shape survives inlining was
 *    a lock cmpxchg loop in 13 functions of the defconfig kernel (gcc-12:
 *    release_perfctr_nmi's clear_bit, hub_activate's test_and_set_bit, ...).
 * Every RMW is SEQ_CST: acquire (_lock) and release (_unlock) are the same code.
 */
/* @insert hot-c11.h */

#ifdef __clang__
typedef unsigned int __attribute__((__may_alias__)) __ka_bitword;
#define __ka_bit_result(r) asm("" : "+r"(r))
#else
typedef unsigned long __attribute__((__may_alias__)) __ka_bitword;
#define __ka_bit_result(r) ((void)(r))
#endif
#define __KA_BITWORD_BITS (8 * sizeof(__ka_bitword))

#define __ka_c11_bitop(fetch, nr, addr, mask_arg) ({				\
	__ka_c11_hot();								\
	unsigned long __ka_nr = (nr);						\
	volatile __ka_bitword *__ka_w = (volatile __ka_bitword *)(addr) +	\
					__ka_nr / __KA_BITWORD_BITS;		\
	__ka_bitword __ka_m = (__ka_bitword)1 << (__ka_nr % __KA_BITWORD_BITS); \
	bool __ka_r = (fetch(__ka_w, (mask_arg), __ATOMIC_SEQ_CST) & __ka_m) != 0; \
	__ka_bit_result(__ka_r);						\
	__ka_r;									\
})

/* A void bitop on a constant bit: the byte RMW. */
#define __ka_c11_bitop_byte(fetch, nr, addr, inv) ({			\
	__ka_c11_hot();								\
	(void)fetch((volatile unsigned char *)(addr) + ((nr) >> 3),		\
		     (inv) ? (unsigned char)~(1 << ((nr) & 7)) : (unsigned char)(1 << ((nr) & 7)), \
		     __ATOMIC_SEQ_CST);						\
})

/* A variable bit: the kernel's function of the same name (lock bts & co.). */
static __always_inline void ka_c11_set_bit(long nr, volatile unsigned long *addr)
{
	if (__builtin_constant_p(nr))
		__ka_c11_bitop_byte(__atomic_fetch_or, nr, addr, 0);
	else
		arch_set_bit(nr, addr);
}
static __always_inline void ka_c11_clear_bit(long nr, volatile unsigned long *addr)
{
	if (__builtin_constant_p(nr))
		__ka_c11_bitop_byte(__atomic_fetch_and, nr, addr, 1);
	else
		arch_clear_bit(nr, addr);
}
static __always_inline void ka_c11_change_bit(long nr, volatile unsigned long *addr)
{
	if (__builtin_constant_p(nr))
		__ka_c11_bitop_byte(__atomic_fetch_xor, nr, addr, 0);
	else
		arch_change_bit(nr, addr);
}
/* Release: the SEQ_CST RMW already is one (the kernel: barrier() + clear_bit). */
static __always_inline void ka_c11_clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	ka_c11_clear_bit(nr, addr);
}
static __always_inline bool ka_c11_test_and_set_bit(long nr, volatile unsigned long *addr)
{
	if (__builtin_constant_p(nr))
		return __ka_c11_bitop(__atomic_fetch_or, nr, addr, __ka_m);
	return arch_test_and_set_bit(nr, addr);
}
static __always_inline bool ka_c11_test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{
	return ka_c11_test_and_set_bit(nr, addr);
}
static __always_inline bool ka_c11_test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	if (__builtin_constant_p(nr))
		return __ka_c11_bitop(__atomic_fetch_and, nr, addr, ~__ka_m);
	return arch_test_and_clear_bit(nr, addr);
}
static __always_inline bool ka_c11_test_and_change_bit(long nr, volatile unsigned long *addr)
{
	if (__builtin_constant_p(nr))
		return __ka_c11_bitop(__atomic_fetch_xor, nr, addr, __ka_m);
	return arch_test_and_change_bit(nr, addr);
}
/*
 * folio_end_read(): lock xorb + sets on the low byte.  clang turns a constant
 * mask that leaves bit 7 alone into "is the old byte negative", which its
 * lock xor's flags do not say: a lock cmpxchg loop.  The empty asm hides the
 * constant (one mov more); gcc folds it either way.  clang also makes the
 * loop once the bool is widened (__folio_end_writeback: the sign test becomes
 * a shift of the new value), so the result gets the test_and_ barrier too.
 */
static __always_inline bool ka_c11_xor_unlock_is_negative_byte(unsigned long mask,
		volatile unsigned long *addr)
{
	unsigned char __ka_m = mask;
	bool __ka_r;

	__ka_c11_hot();
#ifdef __clang__
	asm("" : "+r"(__ka_m));
#endif
	__ka_r = __atomic_xor_fetch((volatile signed char *)addr, (signed char)__ka_m,
				    __ATOMIC_SEQ_CST) < 0;
	__ka_bit_result(__ka_r);
	return __ka_r;
}

#define arch_set_bit ka_c11_set_bit
#define arch_clear_bit ka_c11_clear_bit
#define arch_change_bit ka_c11_change_bit
#define arch_clear_bit_unlock ka_c11_clear_bit_unlock
#define arch_test_and_set_bit ka_c11_test_and_set_bit
#define arch_test_and_set_bit_lock ka_c11_test_and_set_bit_lock
#define arch_test_and_clear_bit ka_c11_test_and_clear_bit
#define arch_test_and_change_bit ka_c11_test_and_change_bit
#undef arch_xor_unlock_is_negative_byte
#define arch_xor_unlock_is_negative_byte ka_c11_xor_unlock_is_negative_byte

#endif /* _ASM_X86_BITOPS_C11_H */
