/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own test of atomics, lib/atomic64_test.c, as a user-space
 * program on katomic: tests/linux-source/kernel-tests.py extracts it at test
 * time (nothing of it is kept in the project) and points the five headers it
 * includes (<linux/init.h>, bug.h, kernel.h, atomic.h, module.h) at this
 * file.  Every atomic_* and atomic64_* it calls is katomic's; what is not
 * atomics becomes its user-space meaning:
 *   WARN(cond, fmt...)   prints and counts; main() fails if any fired
 *   BUG_ON(cond)         prints and aborts
 *   module_init(fn)      main(), which runs fn and checks the count
 *   pr_info()            printf with the test's pr_fmt prefix
 */
#ifndef KATOMIC_KERNEL_TEST_SHIM_H
#define KATOMIC_KERNEL_TEST_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <katomic/kernel.h>

#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "katomic-kernel-test"
#endif
#define __init
#define __exit

static int kshim_warnings;

#define WARN(cond, ...) __extension__({						\
	int __kshim_w = !!(cond);						\
	if (__kshim_w) {							\
		kshim_warnings++;						\
		fprintf(stderr, "WARNING: %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);					\
	}									\
	__kshim_w;								\
})
#define BUG_ON(cond) do {							\
	if (cond) {								\
		fprintf(stderr, "BUG: %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
		abort();							\
	}									\
} while (0)
#define pr_info(fmt, ...) printf(pr_fmt(fmt), ##__VA_ARGS__)

#define module_init(fn)								\
int main(void)									\
{										\
	int __kshim_r = fn();							\
	printf("%s: init returned %d, %d WARN(s)\n", KBUILD_MODNAME, __kshim_r, kshim_warnings); \
	return __kshim_r != 0 || kshim_warnings != 0;				\
}
#define module_exit(fn) static void (*kshim_exit)(void) __attribute__((__unused__)) = fn
#define MODULE_DESCRIPTION(s)
#define MODULE_LICENSE(s)

/*
 * The harness's mutation runs (it must see them fail): one op that returns
 * a wrong value (a BUG_ON must abort) and one void op that does the wrong
 * thing (a WARN must fire).
 */
#if defined(KSHIM_MUTATE_BUG)
#undef atomic64_add_return_acquire
#define atomic64_add_return_acquire(i, v) (ka_atomic64_add_return_acquire(i, v) + 1)
#elif defined(KSHIM_MUTATE_WARN)
#undef atomic_andnot
#define atomic_andnot(i, v) ka_atomic_and(i, v)
#endif

#endif
