/* SPDX-License-Identifier: MIT */
/* A minimal TAP producer for the tests (run by prove). */
#ifndef KATOMIC_TESTS_TAP_H
#define KATOMIC_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_run, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int ok(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return pass;
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

__attribute__((unused))
static int done_testing(void)
{
	printf("1..%d\n", tap_run);
	return tap_failed ? 1 : 0;
}

#endif
