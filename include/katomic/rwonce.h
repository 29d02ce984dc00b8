/* SPDX-License-Identifier: MIT */
/*
 * READ_ONCE / WRITE_ONCE: one volatile, untorn, unordered access of a
 * 1, 2, 4 or 8-byte scalar (other sizes do not compile), never merged,
 * refetched or invented.
 *
 * The C11 backend writes them as relaxed atomics on a volatile lvalue, so
 * that race detectors such as TSan see them for what they are.  The asm
 * backend is the kernel's reference and, like the kernel, uses a plain
 * volatile access (except under TSan), as the C11 backend's WRITE_ONCE is
 * where the compiler stores a relaxed atomic with an RMW (compiler.h,
 * __KA_STORE_BY_VOLATILE: RISC-V, GCC before 13).  gcc-12 keeps the address of every
 * __atomic load in a loop in a register of its own instead of folding the
 * offset into the load, and spills (docs/codegen.md, seqlock readers).
 */
#ifndef KATOMIC_RWONCE_H
#define KATOMIC_RWONCE_H

#include "compiler.h"

#define __ka_assert_once_size(x) \
	KA_STATIC_ASSERT(__ka_native_size(x), "READ_ONCE/WRITE_ONCE: only 1, 2, 4 or 8-byte scalars")

#if defined(KATOMIC_BACKEND_ASM) && !defined(__KA_TSAN)
#define __ka_read_once(x) (*(const volatile __typeof__(x) *)&(x))
#else
#define __ka_read_once(x) \
	__atomic_load_n((volatile __typeof__(x) *)&(x), __ATOMIC_RELAXED)
#endif
#if (defined(KATOMIC_BACKEND_ASM) && !defined(__KA_TSAN)) || defined(__KA_STORE_BY_VOLATILE)
#define __ka_write_once(x, val) \
	((void)(*(volatile __typeof__(x) *)&(x) = (__typeof__(x))(val)))
#else
#define __ka_write_once(x, val) \
	__atomic_store_n((volatile __typeof__(x) *)&(x), (__typeof__(x))(val), __ATOMIC_RELAXED)
#endif

#define KA_READ_ONCE(x) __extension__({						\
	__ka_assert_once_size(x);						\
	__ka_read_once(x);							\
})

#define KA_WRITE_ONCE(x, val) do {						\
	__ka_assert_once_size(x);						\
	__ka_write_once(x, val);						\
} while (0)

/*
 * data_race(): an access the author knows to race and accepts (statistics,
 * heuristics).  A plain access, as in the kernel; it only documents intent.
 */
#define ka_data_race(expr) (expr)

/*
 * ACCESS_ONCE(x): the kernel's spelling before READ_ONCE/WRITE_ONCE (gone in
 * 4.15), still common in ported code, also as an lvalue: v = ACCESS_ONCE(x),
 * ACCESS_ONCE(x) = v.  A volatile access, as the kernel's was, of a 1, 2, 4
 * or 8-byte scalar (other sizes do not compile, as for READ_ONCE).  Being a
 * plain volatile access in both backends, it is not an atomic access to
 * ThreadSanitizer: prefer READ_ONCE/WRITE_ONCE where a race detector runs.
 */
#define KA_ACCESS_ONCE(x)							\
	(*(volatile __typeof__(x) *)(__ka_static_assert_expr(__ka_native_size(x),	\
		"ACCESS_ONCE: only 1, 2, 4 or 8-byte scalars"), &(x)))

#include "generated/names-rwonce.h"

#endif /* KATOMIC_RWONCE_H */
