/* SPDX-License-Identifier: MIT */
/* What every katomic header needs from the compiler. */
#ifndef KATOMIC_COMPILER_H
#define KATOMIC_COMPILER_H

#if !defined(__GNUC__)
#error "katomic needs GCC or Clang: __atomic builtins, statement expressions, inline asm"
#endif

#ifndef __cplusplus
#include <stdbool.h>
#define KA_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#else
#define KA_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#endif

/* ThreadSanitizer does not model fences: a few places then use an acquire load. */
#if defined(__SANITIZE_THREAD__)
#define __KA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define __KA_TSAN 1
#endif
#endif

/* Yield the CPU: user-space waiters must, when threads outnumber CPUs. */
#include <sched.h>
#define __ka_sched_yield() ((void)sched_yield())

/* The kernel's __always_inline: atomics must not become calls, even at -O0. */
#define __ka_always_inline inline __attribute__((__always_inline__))

/*
 * __ka_hot(): an atomic is no less likely to run for being a builtin.  gcc guesses
 * that a branch guarding a call is not taken (its "call" heuristic: a guarded
 * call is often an error path), and an __atomic builtin is a call until RTL:
 * `if (flags & X) ka_atomic_dec(&n);` put the locked instruction out of line
 * behind a jump back, where asm stays in line.  A hot label cancels that
 * guess; __builtin_expect (likely/unlikely) still decides where it is written.
 * clang makes no such guess; at -Os gcc keeps the block in line anyway.  The
 * backends say where it applies (__ka_arch_hot).
 */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE_SIZE__)
#define __ka_hot() \
	((void)__extension__({ __label__ __ka_h; __ka_h: __attribute__((__hot__, __unused__)); (void)0; }))
#else
#define __ka_hot() ((void)0)
#endif

/* A local whose type is that of its (unqualified) initialiser. */
#ifdef __cplusplus
#define __ka_auto auto
#else
#define __ka_auto __auto_type
#endif

/* Compiler barrier: no instruction, but no memory access moves across it. */
#define ka_barrier() __asm__ __volatile__("" ::: "memory")

/*
 * A compile-time check usable inside an expression (also one that must stay
 * an lvalue after a comma): with the message in C; in C++, where sizeof
 * cannot define a type, as a negative array size.
 */
#ifndef __cplusplus
#define __ka_static_assert_expr(cond, msg) \
	((void)sizeof(struct { _Static_assert(cond, msg); int __ka_unused; }))
#else
#define __ka_static_assert_expr(cond, msg) ((void)sizeof(char[(cond) ? 1 : -1]))
#endif

/* True for the sizes a single load or store can access without tearing. */
#define __ka_native_size(x) \
	(sizeof(x) == 1 || sizeof(x) == 2 || sizeof(x) == 4 || sizeof(x) == 8)

#endif /* KATOMIC_COMPILER_H */
