#ifndef _ASM_GENERIC_ATOMIC_C11_POLICY_H
#define _ASM_GENERIC_ATOMIC_C11_POLICY_H

/*
 * Where C11's orders are weaker than the kernel's, per architecture: katomic's
 * include/katomic/arch/{aarch64,riscv64}.h, in the kernel's terms.  For each
 * order X of the kernel's API (FULL: fully ordered, ACQ, REL, RLX) an RMW is
 *	__ka_c11_pre_X(size); builtin(..., __ka_c11_ord_X(size)); __ka_c11_post_X(size);
 * and a cmpxchg the same with __ka_c11_cas_*_X, its post fence on success only
 * (a failed cmpxchg orders nothing, as in the kernel).
 *
 * The kernel's fully ordered RMW is a full barrier: no access before it may
 * pass any access after it, its own read and write included.  C11's SEQ_CST
 * RMW only promises a single total order of SEQ_CST operations:
 *  - arm64 LSE (-march=armv8.1-a): ldaddal/swpal/casal, the kernel's own
 *    fully ordered instructions: SEQ_CST, no fence;
 *  - arm64 LL/SC (-march=armv8-a -mno-outline-atomics): a SEQ_CST
 *    ldaxr/stlxr loop lets a later access pass the store-exclusive, so do what
 *    the kernel does: ldxr/stlxr (RELEASE) then dmb ish;
 *  - RISC-V, gcc 13+ and clang: word and doubleword AMOs with .aqrl are fully
 *    ordered (the kernel's amo*.aqrl); an LR/SC loop (cmpxchg, sub-word RMWs)
 *    is not: sc.rl then fence rw,rw, as the kernel does;
 *  - RISC-V, gcc before 13: its SEQ_CST mapping predates the ISA manual's
 *    (fence iorw,ow + amo.aq; its SEQ_CST CAS has no trailing fence, GCC PR
 *    114130), so only relaxed RMWs and fences are trusted: acquire, release and
 *    full order are fences around a relaxed RMW.  It also has no inline
 *    sub-word atomics (libatomic calls, which the kernel does not link) and
 *    miscompiles a 4-byte CAS whose expected value is not sign-extended
 *    (lr.w sign-extends): __ka_c11_cas32_relaxed() is the LR/SC loop written out,
 *    and 1- and 2-byte xchg/cmpxchg are built from it on the aligned word.
 *  - RISC-V, gcc 13+ and clang: an acquire RMW is the relaxed RMW then
 *    fence r,rw, as the kernel makes it.  C11's .aq orders only the RMW
 *    itself, so spin_unlock(a); spin_lock(b) would let a read before the
 *    unlock pass a read after the lock, which the LKMM forbids
 *    (po-unlock-lock-po is in its ppo; `katomic verify`,
 *    tests/litmus/MP+unlocklock-two-locks, riscv64 clang-19).
 * Acquire, release and relaxed map to C11's orders everywhere else.
 */
#define __ka_c11_fence(o)	__atomic_thread_fence(o)
#define __ka_c11_none(size)	((void)0)
#define __ka_c11_full_fence(size) __ka_c11_fence(__ATOMIC_SEQ_CST)

#if defined(__aarch64__)
# if defined(__ARM_FEATURE_ATOMICS)
#  define __ka_c11_ord_FULL(size)	__ATOMIC_SEQ_CST
#  define __ka_c11_post_FULL		__ka_c11_none
#  define __ka_c11_cas_ord_FULL(size)	__ATOMIC_SEQ_CST
#  define __ka_c11_cas_post_FULL	__ka_c11_none
# else
#  define __ka_c11_ord_FULL(size)	__ATOMIC_RELEASE
#  define __ka_c11_post_FULL		__ka_c11_full_fence
#  define __ka_c11_cas_ord_FULL(size)	__ATOMIC_RELEASE
#  define __ka_c11_cas_post_FULL	__ka_c11_full_fence
# endif
# define __ka_c11_pre_FULL		__ka_c11_none
# define __ka_c11_cas_pre_FULL		__ka_c11_none
#elif defined(__riscv) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
# define __KA_C11_RELAXED_ONLY 1
# define __KA_C11_NO_SUBWORD 1
# define __KA_C11_SET_PLAIN 1
# define __ka_c11_pre_FULL		__ka_c11_full_fence
# define __ka_c11_ord_FULL(size)	__ATOMIC_RELAXED
# define __ka_c11_post_FULL		__ka_c11_full_fence
# define __ka_c11_cas_pre_FULL		__ka_c11_full_fence
# define __ka_c11_cas_ord_FULL(size)	__ATOMIC_RELAXED
# define __ka_c11_cas_post_FULL		__ka_c11_full_fence
#elif defined(__riscv)
# define __KA_C11_ACQ_BY_FENCE 1
# define __ka_c11_pre_FULL		__ka_c11_none
# define __ka_c11_ord_FULL(size)	((size) >= 4 ? __ATOMIC_SEQ_CST : __ATOMIC_RELEASE)
# define __ka_c11_post_FULL(size)	do { if ((size) < 4) __ka_c11_full_fence(size); } while (0)
# define __ka_c11_cas_pre_FULL		__ka_c11_none
# if defined(__riscv_zacas)
#  define __ka_c11_cas_ord_FULL(size)	((size) >= 4 ? __ATOMIC_SEQ_CST : __ATOMIC_RELEASE)
#  define __ka_c11_cas_post_FULL(size)	do { if ((size) < 4) __ka_c11_full_fence(size); } while (0)
# else
#  define __ka_c11_cas_ord_FULL(size)	__ATOMIC_RELEASE
#  define __ka_c11_cas_post_FULL	__ka_c11_full_fence
# endif
#else
# error "atomic-c11-policy.h: no fully ordered policy for this architecture yet"
#endif

/*
 * atomic_set(): a relaxed store, except where the compiler makes that an RMW
 * (__KA_C11_SET_PLAIN; RISC-V, gcc before 13: amoswap): there a plain store,
 * as the kernel makes it (a naturally aligned sw/sd is single-copy atomic in
 * RVWMO).
 */
#ifdef __KA_C11_SET_PLAIN
# define __ka_c11_set(p, i)	((void)(*(p) = (i)))
#else
# define __ka_c11_set(p, i)	__atomic_store_n((p), (i), __ATOMIC_RELAXED)
#endif

#if defined(__KA_C11_RELAXED_ONLY) || defined(__KA_C11_ACQ_BY_FENCE)
# define __ka_c11_pre_ACQ		__ka_c11_none
# define __ka_c11_ord_ACQ(size)		__ATOMIC_RELAXED
# define __ka_c11_post_ACQ(size)	__ka_c11_fence(__ATOMIC_ACQUIRE)
#else
# define __ka_c11_pre_ACQ		__ka_c11_none
# define __ka_c11_ord_ACQ(size)		__ATOMIC_ACQUIRE
# define __ka_c11_post_ACQ		__ka_c11_none
#endif
#ifdef __KA_C11_RELAXED_ONLY
# define __ka_c11_pre_REL(size)		__ka_c11_fence(__ATOMIC_RELEASE)
# define __ka_c11_ord_REL(size)		__ATOMIC_RELAXED
# define __ka_c11_post_REL		__ka_c11_none
#else
# define __ka_c11_pre_REL		__ka_c11_none
# define __ka_c11_ord_REL(size)		__ATOMIC_RELEASE
# define __ka_c11_post_REL		__ka_c11_none
#endif
#define __ka_c11_pre_RLX		__ka_c11_none
#define __ka_c11_ord_RLX(size)		__ATOMIC_RELAXED
#define __ka_c11_post_RLX		__ka_c11_none
#define __ka_c11_cas_pre_ACQ		__ka_c11_pre_ACQ
#define __ka_c11_cas_ord_ACQ		__ka_c11_ord_ACQ
#define __ka_c11_cas_post_ACQ		__ka_c11_post_ACQ
#define __ka_c11_cas_pre_REL		__ka_c11_pre_REL
#define __ka_c11_cas_ord_REL		__ka_c11_ord_REL
#define __ka_c11_cas_post_REL		__ka_c11_post_REL
#define __ka_c11_cas_pre_RLX		__ka_c11_pre_RLX
#define __ka_c11_cas_ord_RLX		__ka_c11_ord_RLX
#define __ka_c11_cas_post_RLX		__ka_c11_post_RLX

/* A failed CAS only reads: its order may be neither release nor stronger than success's. */
#define __ka_c11_fail(o) ((o) == __ATOMIC_RELEASE ? __ATOMIC_RELAXED :		\
			  (o) == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : (o))

#endif /* _ASM_GENERIC_ATOMIC_C11_POLICY_H */
