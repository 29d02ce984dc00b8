/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the litmus parser and the harness generator: any input
 * must parse or fail cleanly with a position and a message, and what parses
 * must turn into a harness program without a crash.
 */
#include "runner.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options opt = { .backend = "c11", .cc = "cc", .deadline = 5, .group = 32, .rcu = "memb" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_error err;
	struct lt_test *t = lt_parse((const char *)data, size, &err);

	if (t) {
		struct test T, *list = &T;
		char buf[256];
		char *src;
		int i;

		for (i = 0; i < t->nlocs; i++)
			lt_loc_format(t, &t->locs[i], buf, sizeof(buf));
		memset(&T, 0, sizeof(T));
		T.path = "fuzz.litmus";
		T.lt = t;
		plan_test(&T, 1);
		src = generate_program(&list, 1, T.urcu);
		free(src);
		free(T.cols);
		free(T.unjudged);
		lt_free(t);
	} else if (err.line < 1 || err.col < 1 || !err.msg[0]) {
		__builtin_trap();	/* every error must have a position and a message */
	}
	return 0;
}
