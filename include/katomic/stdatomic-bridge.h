/* SPDX-License-Identifier: MIT */
/*
 * katomic beside C11's <stdatomic.h> and C++'s <atomic>, in either include
 * order.  Of all the names those define (gen/stdnames.tbl lists every one),
 * katomic defines none but five: atomic_fetch_add, _sub, _and, _or and _xor,
 * which the kernel also has with the operands the other way round (the
 * kernel's atomic_fetch_add(int i, atomic_t *v), C11's
 * atomic_fetch_add(volatile A *object, M operand)).  Those five keep both
 * meanings, chosen by the argument types:
 *
 * C    a macro.  An atomic_t * second argument is the kernel's call; a
 *      pointer to an _Atomic object first is C11's, which compiles to the
 *      builtin the compiler's own <stdatomic.h> uses (gcc's __atomic_fetch_OP,
 *      clang's __c11_atomic_fetch_OP, both seq_cst); anything else is one
 *      compile error naming KATOMIC_PREFIX.  <stdatomic.h> is included here,
 *      first, so that a program's own #include of it, before or after
 *      katomic, finds it already done and cannot redefine the five.
 * C++  the names are std::'s function templates, and C++23's <stdatomic.h>
 *      declares them in the global namespace as well: a macro would break
 *      the library's declarations and every std::atomic_fetch_add(...).  So
 *      katomic declares global overloads instead: int atomic_fetch_add(int,
 *      atomic_t *), and a catch-all that loses to every other candidate and
 *      fails at compile time, naming KATOMIC_PREFIX, when it is chosen.
 *      A call on a std::atomic finds std::'s by argument-dependent lookup.
 *
 * Under -DKATOMIC_PREFIX none of this exists: the five are the standard's,
 * the kernel's are ka_atomic_fetch_add & co.
 */
#ifndef KATOMIC_STDATOMIC_BRIDGE_H
#define KATOMIC_STDATOMIC_BRIDGE_H

#include "atomic.h"

#ifndef KATOMIC_PREFIX
#ifndef __cplusplus
#include <stdatomic.h>

/* An expression that is a pointer, whatever P is (then never evaluated). */
#define __ka_is_pointer(p)	(__builtin_classify_type(p) == 5)
#define __ka_as_pointer(p)	__builtin_choose_expr(__ka_is_pointer(p), (p), (int *)0)
/*
 * 1 if P points to an _Atomic object that C11's read-modify-write functions
 * accept (also volatile; not const), else 0; an integer constant expression.
 * A comma expression's type is that of its right operand after lvalue
 * conversion, which drops every qualifier, _Atomic included.
 */
#define __ka_c11_object(p) __builtin_choose_expr(__ka_is_pointer(p), \
	_Generic(__ka_as_pointer(p), \
		__typeof__((void)0, *__ka_as_pointer(p)) _Atomic *: 1, \
		__typeof__((void)0, *__ka_as_pointer(p)) volatile _Atomic *: 1, \
		default: 0), 0)

/* C11's atomic_OP(object, operand), as the compiler's <stdatomic.h> spells it. */
#ifdef __clang__
#define __ka_c11_rmw(op, p, v)	__c11_atomic_##op(p, v, __ATOMIC_SEQ_CST)
#else
#define __ka_c11_rmw(op, p, v)	__atomic_##op(p, v, __ATOMIC_SEQ_CST)
#endif

/*
 * OP's kernel call KFN(a, b) when b is a T *, else C11's on the object a.
 * Every argument is evaluated once; the branch not taken is never
 * evaluated but must still compile, so it gets stand-ins of the right types
 * (and the static assertion is true there).  The stand-in object of a
 * refused call is never accessed: the static assertion stops the build.
 */
#define __ka_c11_or_kernel(op, kfn, T, a, b) _Generic((b), \
	T *: kfn(_Generic((b), T *: (a), default: 0), _Generic((b), T *: (b), default: (T *)0)), \
	default: (__ka_static_assert_expr(_Generic((b), T *: 1, default: __ka_c11_object(a)), \
		"katomic: atomic_" #op "(): neither the kernel's (int i, atomic_t *v) nor C11's " \
		"(pointer to an _Atomic object, operand); build with -DKATOMIC_PREFIX to keep " \
		"only C11's and spell the kernel's ka_atomic_" #op), \
		__ka_c11_rmw(op, __builtin_choose_expr(__ka_c11_object(a), (a), (_Atomic int *)sizeof(int)), \
			__builtin_choose_expr(__ka_c11_object(a), (b), 0))))

#else /* __cplusplus */

template <class __KaT> struct __ka_fits_neither { static const bool value = false; };

/*
 * The kernel's NAME(V i, T *v) as a global overload, and a catch-all: a
 * template whose parameter is "...", the worst match there is, so that any
 * call std::'s or the kernel's overload accepts goes to them; instantiated
 * only when nothing else fits, and then a compile error.
 */
#define __KA_KERNEL_OVERLOAD(name, V, T) \
	static __ka_always_inline V name(V i, T *v) { return ka_##name(i, v); } \
	template <class __KaT = void> static inline V name(...) \
	{ \
		static_assert(__ka_fits_neither<__KaT>::value, "katomic: " #name "(): neither the kernel's (" \
			#V " i, atomic_t *v) nor std::" #name "(std::atomic<T> *, operand); build with " \
			"-DKATOMIC_PREFIX to keep only the standard's and spell the kernel's ka_" #name); \
		return 0; \
	}

#endif /* __cplusplus */

#include "generated/names-stdatomic.h"

#endif /* !KATOMIC_PREFIX */

#endif /* KATOMIC_STDATOMIC_BRIDGE_H */
