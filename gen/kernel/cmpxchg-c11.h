#ifndef _ASM_X86_CMPXCHG_C11_H
#define _ASM_X86_CMPXCHG_C11_H

/*
 * arch_xchg(), arch_cmpxchg(), arch_try_cmpxchg() (and through them the
 * kernel's arch_cmpxchg64/arch_try_cmpxchg64) and xadd on C11
 * builtins, 1/2/4/8 bytes, included at the end of <asm/cmpxchg.h> and
 * replacing its macros.  Every one is SEQ_CST (x86's locked instruction
 * whatever the order; a full compiler barrier like the asm's "memory").
 *
 * Kept as the kernel's asm (what C11 cannot say):
 *  - arch_cmpxchg_local/arch_try_cmpxchg_local (and the 64/128 _local forms):
 *    cmpxchg without the lock prefix, atomic against this CPU only; C11 has
 *    no order or scope for "atomic against interrupts but not other CPUs".
 *  - arch_cmpxchg128/arch_try_cmpxchg128: gcc lowers 16-byte __atomic
 *    builtins to libatomic calls (__atomic_compare_exchange_16), even with
 *    -mcx16, and the kernel has no libatomic; whether cmpxchg16b exists is
 *    known only at run time (system_has_cmpxchg128()).
 *  - arch_sync_cmpxchg/arch_sync_try_cmpxchg: memory shared with a
 *    hypervisor, locked even on one CPU.  The compiler's locks are recorded
 *    in .smp_locks by objtool --smp-locks and dropped on one CPU; the sync
 *    asm's lock is annotated ANNOTATE_KEEP_LOCK, which objtool leaves out.
 */
/* @insert hot-c11.h */

#define __ka_c11_typecheck(ptr) compiletime_assert_atomic_type(*(ptr))

/*
 * The generic (not _n) builtins: the kernel also exchanges 8-byte structs
 * (pmd_t, pud_t), which the _n forms reject.
 */
#undef arch_xchg
#define arch_xchg(ptr, v) ({							\
	__ka_c11_typecheck(ptr);						\
	__ka_c11_hot();								\
	__unqual_scalar_typeof(*(ptr)) __ka_v = (v), __ka_r;			\
	__atomic_exchange((ptr), &__ka_v, &__ka_r, __ATOMIC_SEQ_CST);		\
	__ka_r;									\
})

#undef arch_cmpxchg
#define arch_cmpxchg(ptr, old, new) ({						\
	__ka_c11_typecheck(ptr);						\
	__ka_c11_hot();								\
	__unqual_scalar_typeof(*(ptr)) __ka_o = (old), __ka_n = (new);		\
	(void)__atomic_compare_exchange((ptr), &__ka_o, &__ka_n, false,	\
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	__ka_o;									\
})

/*
 * *pold is written only when it fails, with the value found (the kernel's
 * rule).  The expected value goes through a local of its own, as in the
 * kernel's asm: handed the caller's pointer, gcc keeps an old value that
 * sits in a struct or union (lockref's, a page table entry's) in a stack
 * slot, stored and reloaded around every try.
 */
#undef arch_try_cmpxchg
#define arch_try_cmpxchg(ptr, pold, new) ({					\
	__ka_c11_typecheck(ptr);						\
	__ka_c11_hot();								\
	__auto_type __ka_p = (__unqual_scalar_typeof(*(ptr)) *)(pold);		\
	__unqual_scalar_typeof(*(ptr)) __ka_o = *__ka_p, __ka_n = (new);	\
	bool __ka_r = __atomic_compare_exchange((ptr), &__ka_o, &__ka_n, false,\
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	if (unlikely(!__ka_r))							\
		*__ka_p = __ka_o;						\
	__ka_r;									\
})

#undef xadd
#define xadd(ptr, inc) ({							\
	__ka_c11_typecheck(ptr);						\
	__ka_c11_hot();								\
	__atomic_fetch_add((ptr), (inc), __ATOMIC_SEQ_CST);			\
})

#endif /* _ASM_X86_CMPXCHG_C11_H */
