/* SPDX-License-Identifier: MIT */
/*
 * READ_ONCE / WRITE_ONCE: one volatile, untorn, unordered access of a
 * 1, 2, 4 or 8-byte scalar (other sizes do not compile), never merged,
 * refetched or invented.  Written as relaxed atomics on a volatile lvalue,
 * so that race detectors such as TSan see them for what they are.
 */
#ifndef KATOMIC_RWONCE_H
#define KATOMIC_RWONCE_H

#include "compiler.h"

#define __ka_assert_once_size(x) \
	KA_STATIC_ASSERT(__ka_native_size(x), "READ_ONCE/WRITE_ONCE: only 1, 2, 4 or 8-byte scalars")

#define KA_READ_ONCE(x) __extension__({						\
	__ka_assert_once_size(x);						\
	__atomic_load_n((volatile __typeof__(x) *)&(x), __ATOMIC_RELAXED);	\
})

#define KA_WRITE_ONCE(x, val) do {						\
	__ka_assert_once_size(x);						\
	__atomic_store_n((volatile __typeof__(x) *)&(x),			\
			 (__typeof__(x))(val), __ATOMIC_RELAXED);		\
} while (0)

/*
 * data_race(): an access the author knows to race and accepts (statistics,
 * heuristics).  A plain access, as in the kernel; it only documents intent.
 */
#define ka_data_race(expr) (expr)

#include "generated/names-rwonce.h"

#endif /* KATOMIC_RWONCE_H */
