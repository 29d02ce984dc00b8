/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the litmus parser: any input must parse or fail cleanly. */
#include "parse.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_error err;
	struct lt_test *t = lt_parse((const char *)data, size, &err);

	if (t) {
		char buf[256];
		int i;

		for (i = 0; i < t->nlocs; i++)
			lt_loc_format(t, &t->locs[i], buf, sizeof(buf));
		lt_free(t);
	} else if (err.line < 1 || err.col < 1 || !err.msg[0]) {
		__builtin_trap();	/* every error must have a position and a message */
	}
	return 0;
}
