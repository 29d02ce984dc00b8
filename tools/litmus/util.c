/* SPDX-License-Identifier: MIT */
/* katomic-litmus utilities: errors, memory, growable strings, files, hashes, JSON strings. */
#define _GNU_SOURCE
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("katomic-litmus: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->n + (size_t)n + 1 > b->cap) {
		b->cap = (b->n + (size_t)n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

int read_file(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = { 0 };
	char tmp[65536];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		sb_add(&b, tmp, n);
	if (ferror(f)) {
		fclose(f);
		free(b.s);
		return -1;
	}
	fclose(f);
	if (!b.s)
		sb_add(&b, "", 0);
	*out = b.s;
	*len = b.n;
	return 0;
}

uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Order-independent hash of every file under dir (the headers a harness uses). */
uint64_t hash_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t acc = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			acc += hash_tree(path) * 31 + fnv(FNV0, e->d_name, strlen(e->d_name));
		} else if (S_ISREG(st.st_mode)) {
			char *buf;
			size_t len;

			if (read_file(path, &buf, &len))
				continue;
			acc += fnv(fnv(FNV0, e->d_name, strlen(e->d_name)), buf, len);
			free(buf);
		}
	}
	closedir(d);
	return acc;
}

int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] == '/' || tmp[i] == 0) {
			char c = tmp[i];

			tmp[i] = 0;
			if (mkdir(tmp, 0777) && errno != EEXIST)
				return -1;
			tmp[i] = c;
		}
	}
	return 0;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}


double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
