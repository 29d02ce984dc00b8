/* SPDX-License-Identifier: MIT */
/* C11 backend policy for x86-64 (TSO; every locked instruction is a full barrier). */
#ifndef KATOMIC_ARCH_X86_64_H
#define KATOMIC_ARCH_X86_64_H

/*
 * Every RMW is asked for as SEQ_CST: the instruction is the same locked one
 * for any order, and SEQ_CST also stops the compiler moving accesses across
 * it, as the kernel's "memory" clobber does.  That is what lets
 * smp_mb__{before,after}_atomic() and smp_mb__after_spinlock() be nothing.
 */
#define __ka_rmw_relaxed __ATOMIC_SEQ_CST
#define __ka_rmw_acquire __ATOMIC_SEQ_CST
#define __ka_rmw_release __ATOMIC_SEQ_CST

/*
 * smp_mb: a locked no-op RMW on the stack (about 20 cycles here) rather than
 * mfence (about 87), which clang emits for a SEQ_CST fence.  The signal
 * fences make it a compiler barrier for every access, not just atomics.
 * The slot is left uninitialised on purpose: its value is irrelevant, and
 * initialising it would cost a store.
 */
#define ka_arch_smp_mb() do {							\
	int __ka_slot;							\
	__atomic_signal_fence(__ATOMIC_SEQ_CST);				\
	(void)__atomic_fetch_or(&__ka_slot, 0, __ATOMIC_SEQ_CST);		\
	__atomic_signal_fence(__ATOMIC_SEQ_CST);				\
} while (0)
/* TSO: no instruction; the C11 fences keep the compiler (and C11 model) in line. */
#define ka_arch_smp_rmb() __ka_fence(__ATOMIC_ACQUIRE)
#define ka_arch_smp_wmb() __ka_fence(__ATOMIC_RELEASE)
#define ka_arch_mb__before_atomic() ka_barrier()	/* the locked RMW is itself a full barrier */
#define ka_arch_mb__after_atomic() ka_barrier()	/* likewise */
#define ka_arch_mb__after_spinlock() ka_barrier()	/* the lock is taken with a locked RMW */
#define ka_arch_mb__after_unlock_lock() ka_barrier()	/* TSO release+acquire is already RCsc */
#define ka_arch_acquire__after_ctrl_dep() __ka_fence(__ATOMIC_ACQUIRE)	/* no instruction on TSO */
/* mb/rmb/wmb also order device and non-temporal accesses: only the fences do. */
#define ka_arch_mb()  __asm__ __volatile__("mfence" ::: "memory")
#define ka_arch_rmb() __asm__ __volatile__("lfence" ::: "memory")
#define ka_arch_wmb() __asm__ __volatile__("sfence" ::: "memory")
#define ka_arch_cpu_relax() __asm__ __volatile__("pause" ::: "memory")
/*
 * test_and_{set,clear,change}_bit: written so that gcc and clang recognise
 * lock bts/btr/btc + setc.  Through the generic fetch_andnot fallback gcc-12
 * turns a variable-bit test_and_clear_bit into a lock cmpxchg loop (the
 * codegen audit, docs/codegen.md).  Every order is SEQ_CST here (see above),
 * so _lock (acquire) is the same code, as in the kernel.  Bit nr is bit
 * nr % W of W-bit word nr / W (little endian, so any W names the same bit).
 */
#if defined(__clang__) && !defined(__KA_TSAN)
/*
 * clang 15/16 fold the bit test into a 64-bit lock bts only for bits 32..63
 * ("xor; lock bts; setb; shl; setne" below that); the 32-bit RMW on the half
 * holding the bit folds for every bit.  A locked RMW on part of the word is
 * as atomic and as fully ordered as one on all of it (the kernel itself uses
 * lock orb for a constant set_bit on the same bitmaps).
 */
typedef unsigned int __attribute__((__may_alias__)) __ka_x86_bitword;
/*
 * clang matches lock bts only while the RMW's one user is "old & mask".  Once
 * the bool is widened (sum += test_and_set_bit(...), int r = ...) InstCombine
 * rewrites that to "(old >> nr) & 1" and the RMW becomes a lock cmpxchg loop
 * (1.85x slower contended).  An empty asm on the bool keeps the "& mask":
 * one register op more where the result is only returned or branched on.
 */
#define __ka_x86_bit_result(r) __asm__("" : "+r"(r))
#else
/*
 * gcc folds every bit and every use.  Under TSan, which pairs acquire and
 * release by address, the whole word too: the 32-bit half at addr + 4 would
 * not synchronise with clear_bit_unlock() on the word.
 */
typedef unsigned long __ka_x86_bitword;
#define __ka_x86_bit_result(r) ((void)0)
#endif
#define __ka_x86_bitword_bits (8 * sizeof(__ka_x86_bitword))
#define __ka_x86_c11_bitop(fetch, nr, addr, arg) __extension__({		\
	unsigned long __ka_n = (unsigned long)(nr);				\
	__ka_x86_bitword __ka_m = (__ka_x86_bitword)1 << (__ka_n % __ka_x86_bitword_bits); \
	bool __ka_r = (fetch((volatile __ka_x86_bitword *)(addr) +		\
			     __ka_n / __ka_x86_bitword_bits, (arg),		\
			     __ATOMIC_SEQ_CST) & __ka_m) != 0;			\
	__ka_x86_bit_result(__ka_r);						\
	__ka_r;									\
})
#define ka_arch_test_and_set_bit(nr, addr)					\
	__ka_x86_c11_bitop(__atomic_fetch_or, nr, addr, __ka_m)
#define ka_arch_test_and_clear_bit(nr, addr)					\
	__ka_x86_c11_bitop(__atomic_fetch_and, nr, addr, ~__ka_m)
#define ka_arch_test_and_change_bit(nr, addr)					\
	__ka_x86_c11_bitop(__atomic_fetch_xor, nr, addr, __ka_m)
#define ka_arch_test_and_set_bit_lock(nr, addr) ka_arch_test_and_set_bit(nr, addr)
/* smp_store_mb: xchg is a store and a full barrier in one instruction. */
#define ka_arch_store_mb(p, v) ((void)__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST))
/*
 * sync_cmpxchg (ka_arch_sync_try_cmpxchg): inline asm with __KA_LOCK_KEEP, so
 * that `katomic uplocks` leaves its lock alone while it records every lock the
 * compiler emitted for the builtins (uniprocessor lock elision, <katomic/up.h>).
 */
#include "x86_64-lock.h"
/* dma_* and virt_mb: the asm backend's, in x86_64-io.h. */
#include "x86_64-io.h"

#endif
