// SPDX-License-Identifier: GPL-2.0
/*
 * katomic's kernel probes: one out-of-line function per atomic operation and
 * order, built as an external module of a stock and of a C11 kernel build
 * (`katomic kernel --arch`), so that the codegen audit's classifier
 * (tools/katomic_tools/codegen: probe_facts, verdict, tools/codegen/kernel-seq.tbl)
 * judges each operation as the kernel's own headers compile it.
 * Names: kp_<class>__<shape>__<what>; class and shape as in kernel-seq.tbl
 * (b_NAME is the barrier b:NAME).  Never loaded: only disassembled.
 */
#include <linux/atomic.h>
#include <linux/module.h>

#define KP(cls, shape, what, T, args, body) \
	noinline T kp_##cls##__##shape##__##what args { body; } \
	EXPORT_SYMBOL_GPL(kp_##cls##__##shape##__##what);

/* The four orders of one value-returning atomic_t / atomic64_t operation. */
#define KP_ORDERS(shape, op, ...)								\
	KP(full, shape, op, int, (atomic_t *v, int i), return raw_atomic_##op(__VA_ARGS__))		\
	KP(acquire, shape, op, int, (atomic_t *v, int i), return raw_atomic_##op##_acquire(__VA_ARGS__)) \
	KP(release, shape, op, int, (atomic_t *v, int i), return raw_atomic_##op##_release(__VA_ARGS__)) \
	KP(relaxed, shape, op, int, (atomic_t *v, int i), return raw_atomic_##op##_relaxed(__VA_ARGS__)) \
	KP(full, shape, op##64, s64, (atomic64_t *v, s64 i), return raw_atomic64_##op(__VA_ARGS__))	\
	KP(acquire, shape, op##64, s64, (atomic64_t *v, s64 i), return raw_atomic64_##op##_acquire(__VA_ARGS__)) \
	KP(release, shape, op##64, s64, (atomic64_t *v, s64 i), return raw_atomic64_##op##_release(__VA_ARGS__)) \
	KP(relaxed, shape, op##64, s64, (atomic64_t *v, s64 i), return raw_atomic64_##op##_relaxed(__VA_ARGS__))

KP_ORDERS(rmw, fetch_add, i, v)
KP_ORDERS(rmw, add_return, i, v)
KP_ORDERS(rmw, fetch_or, i, v)
KP_ORDERS(rmw, fetch_and, i, v)
KP_ORDERS(rmw, fetch_andnot, i, v)
KP_ORDERS(rmw, fetch_xor, i, v)
KP_ORDERS(xchg, xchg, v, i)
KP_ORDERS(cas, cmpxchg, v, i, 0)

KP(void, rmw, add, void, (atomic_t *v, int i), raw_atomic_add(i, v))
KP(void, rmw, or, void, (atomic_t *v, int i), raw_atomic_or(i, v))
KP(void, rmw, andnot64, void, (atomic64_t *v, s64 i), raw_atomic64_andnot(i, v))
KP(full, rmw, dec_and_test, bool, (atomic_t *v), return raw_atomic_dec_and_test(v))
KP(full, rmw, add_negative, bool, (atomic_t *v, int i), return raw_atomic_add_negative(i, v))
KP(full, cas, try_cmpxchg, bool, (atomic_t *v, int *o, int n), return raw_atomic_try_cmpxchg(v, o, n))
KP(acquire, cas, try_cmpxchg, bool, (atomic_t *v, int *o, int n), return raw_atomic_try_cmpxchg_acquire(v, o, n))
KP(release, cas, try_cmpxchg64, bool, (atomic64_t *v, s64 *o, s64 n), return raw_atomic64_try_cmpxchg_release(v, o, n))
KP(full_cond, cond, inc_not_zero, bool, (atomic_t *v), return raw_atomic_inc_not_zero(v))
KP(full_cond, cond, add_unless64, bool, (atomic64_t *v, s64 a, s64 u), return raw_atomic64_add_unless(v, a, u))

/* xchg/cmpxchg on every size (sub-word: built from the word CAS where the arch lacks it). */
#define KP_SIZE(T, n)											\
	KP(full, xchg, xchg##n, T, (T *p, T x), return raw_xchg(p, x))				\
	KP(relaxed, xchg, xchg##n, T, (T *p, T x), return raw_xchg_relaxed(p, x))			\
	KP(full, cas, cmpxchg##n, T, (T *p, T o, T x), return raw_cmpxchg(p, o, x))			\
	KP(acquire, cas, cmpxchg##n, T, (T *p, T o, T x), return raw_cmpxchg_acquire(p, o, x))	\
	KP(release, cas, cmpxchg##n, T, (T *p, T o, T x), return raw_cmpxchg_release(p, o, x))	\
	KP(relaxed, cas, cmpxchg##n, T, (T *p, T o, T x), return raw_cmpxchg_relaxed(p, o, x))
KP_SIZE(u8, _1)
KP_SIZE(u16, _2)
KP_SIZE(u32, _4)
KP_SIZE(u64, _8)

/* The atomic bitops (asm-generic's on arch_atomic_long, or the arch's). */
KP(void, rmw, set_bit, void, (long nr, unsigned long *a), set_bit(nr, a))
KP(full, rmw, test_and_set_bit, bool, (long nr, unsigned long *a), return test_and_set_bit(nr, a))
KP(acquire, rmw, test_and_set_bit_lock, bool, (long nr, unsigned long *a), return test_and_set_bit_lock(nr, a))
KP(release, rmw, clear_bit_unlock, void, (long nr, unsigned long *a), clear_bit_unlock(nr, a))

/* Barriers, acquire loads, release stores. */
KP(b_smp_mb, fence, smp_mb, void, (void), smp_mb())
KP(b_smp_rmb, fence, smp_rmb, void, (void), smp_rmb())
KP(b_smp_wmb, fence, smp_wmb, void, (void), smp_wmb())
KP(b_smp_mb__before_atomic, fence, before_atomic, void, (void), smp_mb__before_atomic())
KP(b_smp_mb__after_atomic, fence, after_atomic, void, (void), smp_mb__after_atomic())
KP(load_acquire, load, load_acquire, int, (int *p), return smp_load_acquire(p))
KP(load_acquire, load, load_acquire64, u64, (u64 *p), return smp_load_acquire(p))
KP(store_release, store, store_release, void, (int *p, int x), smp_store_release(p, x))
KP(store_release, store, store_release64, void, (u64 *p, u64 x), smp_store_release(p, x))

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("katomic code-audit probes (never loaded)");
