/* SPDX-License-Identifier: MIT */
/* Median, min and max of a set of samples (negative ones = missing, skipped): the benchmarks' summary. */
#ifndef KB_STAT3_H
#define KB_STAT3_H

#include <stdlib.h>

struct stat3 { double med, min, max; };

static int kb_cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* { -1, -1, -1 } when no sample is there. */
static struct stat3 stats(const double *v, int n)
{
	double *s = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	struct stat3 r = { -1, -1, -1 };
	int k = 0;

	for (int i = 0; i < n; i++)
		if (v[i] >= 0)
			s[k++] = v[i];
	if (k) {
		qsort(s, (size_t)k, sizeof(*s), kb_cmpd);
		r.med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
		r.min = s[0];
		r.max = s[k - 1];
	}
	free(s);
	return r;
}

#endif
