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

/*
 * GCC before 13 stores a relaxed atomic word or doubleword on RISC-V with
 * amoswap, an RMW, where a naturally aligned sw/sd is single-copy atomic
 * (RVWMO) and is what the kernel's WRITE_ONCE emits: there WRITE_ONCE and
 * the C11 backend's relaxed stores are volatile stores (GCC 13 took the ISA
 * manual's mapping: sw/sd).  ThreadSanitizer keeps the atomic store.
 */
#if defined(__riscv) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13 && \
	!defined(__KA_TSAN)
#define __KA_STORE_BY_VOLATILE 1
#endif

/* Yield the CPU: user-space waiters must, when threads outnumber CPUs. */
#include <sched.h>
#define __ka_sched_yield() ((void)sched_yield())

/*
 * Out-of-line code in a header (the waiters' cold yield, spinlock_t's
 * contended path, refcount_t's report): a program pays for it only if it
 * calls it, and then once per linked module, not once per object file.
 *
 *   __KA_ONCE_BEGIN
 *   static inline type f(args) __asm__(sym);
 *   __KA_ONCE_FN(sym) type f(args) { __KA_ONCE_EXPORT(sym); ... }
 *   __KA_ONCE_END
 *
 * A static inline function is emitted only by a translation unit that calls
 * it (at -O0 too, by gcc and clang; a weak function is emitted by every one
 * that includes the header, and linked into the program whether called or
 * not).  noinline (gcc: noipa, so that no clone gets another name) keeps it
 * one out-of-line body.  On ELF the body goes into a .gnu.linkonce.t.<sym>
 * section, which the linker keeps once per module (GNU ld, gold; lld keeps
 * them all, the calls still reach one), and the asm in its body makes <sym>
 * a weak hidden symbol, so that every object's calls reach that one copy.
 * Data it needs (the spinlock's node pool) is defined the same way, from its
 * body, in a COMDAT group.  Elsewhere it is a static copy per object that
 * calls it.  gcc warns that an inline function is noinline (-Wattributes): not
 * here; g++ warns without a way to silence it when a declaration without a
 * body says so, hence the attributes on the definition only.
 */
#if defined(__ELF__)
/*
 * Not with the x86-64 asm backend: its lock prefixes are recorded in
 * __ka_smp_locks (<katomic/up.h>), and a record of a discarded copy would
 * point into a discarded section (a link error).  There every object that
 * calls a helper keeps its copy in .text; the calls still reach one.
 */
#if defined(KATOMIC_BACKEND_ASM) && defined(__x86_64__)
#define __KA_ONCE_SECTION(sym)
#else
#define __KA_ONCE_SECTION(sym)	__section__(".gnu.linkonce.t." sym),
#endif
#define __KA_ONCE_EXPORT(sym)	__asm__(".weak " sym "\n\t.hidden " sym)
/*
 * Zeroed data of such functions, size bytes (a constant), once per module:
 * defined by the asm of a function's body (each body that uses it says so;
 * the first one in a file defines it) in a COMDAT group: __KA_ONCE_BSS
 * (process-wide), __KA_ONCE_TBSS (thread-local).  Declare it extern and
 * hidden in C.
 */
#define __KA_ONCE_VAR_(sym, sect, flags, type, size, align) __asm__ __volatile__(	\
	".ifndef " sym "\n\t"							\
	".pushsection " sect "." sym ",\"" flags "G\",%%nobits," sym ",comdat\n\t"	\
	".weak " sym "\n\t"							\
	".hidden " sym "\n\t"							\
	".type " sym ",%%" type "\n\t"						\
	".size " sym ",%c0\n\t"						\
	".balign %c1\n"								\
	sym ":\n\t"								\
	".zero %c0\n\t"								\
	".popsection\n\t"							\
	".endif" :: "i"(size), "i"(align))
#define __KA_ONCE_BSS(sym, size, align)	__KA_ONCE_VAR_(sym, ".bss", "aw", "object", size, align)
#define __KA_ONCE_TBSS(sym, size, align) __KA_ONCE_VAR_(sym, ".tbss", "awT", "tls_object", size, align)
#else
#define __KA_ONCE_SECTION(sym)
#define __KA_ONCE_EXPORT(sym)	((void)0)
#define __KA_ONCE_BSS(sym, size, align)	((void)0)	/* a weak definition in C instead */
#define __KA_ONCE_TBSS(sym, size, align) ((void)0)
#endif
#if defined(__clang__)
#define __KA_ONCE_FN(sym) \
	static inline __attribute__((__KA_ONCE_SECTION(sym) __noinline__, __unused__))
#define __KA_ONCE_BEGIN
#define __KA_ONCE_END
#else
#if defined(__has_attribute) && __has_attribute(__noipa__)
#define __KA_ONCE_FN(sym) \
	static inline __attribute__((__KA_ONCE_SECTION(sym) __noipa__, __unused__))
#else
#define __KA_ONCE_FN(sym) \
	static inline __attribute__((__KA_ONCE_SECTION(sym) __noinline__, __noclone__, __unused__))
#endif
#define __KA_ONCE_BEGIN _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wattributes\"")
#define __KA_ONCE_END _Pragma("GCC diagnostic pop")
#endif

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
