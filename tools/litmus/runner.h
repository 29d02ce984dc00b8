/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus: what the runner's stages share.  Data flows one way:
 *   main.c     options, files, the flow below
 *   parse.c    text -> struct lt_test
 *   harness.c  lt_test -> C harness source                  (generate)
 *   compile.c  harness source -> binary, cached, in parallel (compile_all)
 *   run.c      binary -> histogram                           (run_harness)
 *   judge.c    histogram -> observation and verdict          (judge)
 *   output.c   verdicts -> text or JSON                      (print_text, print_json)
 */
#ifndef KATOMIC_LITMUS_RUNNER_H
#define KATOMIC_LITMUS_RUNNER_H

#include "parse.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------ utilities (util.c) */
struct sbuf {
	char *s;
	size_t n, cap;
};

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void sb_add(struct sbuf *b, const char *s, size_t n);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int read_file(const char *path, char **out, size_t *len);
uint64_t fnv(uint64_t h, const void *p, size_t n);
#define FNV0 0xcbf29ce484222325ULL
/* Order-independent hash of every file under dir (the headers a harness uses). */
uint64_t hash_tree(const char *dir);
int mkdir_p(const char *path);
void json_str(FILE *f, const char *s);

/* ------------------------------------------------------------ options (main.c) */
struct options {
	const char *backend;
	const char *cc;
	const char *include;
	const char *cache;
	long long iterations;
	double time;
	long batch, sync;
	int json, jobs, verbose, timeout, no_urcu;
	long long rcu_iterations;
	const char **mutate;
	int nmutate;
	const char *cflags;
};
extern struct options opt;

/* ------------------------------------------------------------ tests */
enum verdict { V_PASS, V_NOTSEEN, V_FAIL, V_ERROR, V_SKIP, V_PARSE };

struct state {
	long long count;
	long long *vals;
};

struct test {
	const char *path;
	struct lt_test *lt;
	char *src;		/* the test text (owned) */
	const char *skip;	/* reason, if skipped */
	int urcu;		/* maps RCU to liburcu (-DKL_URCU -lurcu-memb) */
	int grace;		/* calls synchronize_rcu(): iterations capped */
	struct lt_loc *cols;	/* observed locations: the histogram's columns */
	int ncols;
	char *harness;		/* generated C */
	char binpath[PATH_MAX];
	int compiled_ok;
	char *compile_log;
	/* results */
	struct state *states;
	int nstates;
	long long iters, pos, neg;
	double secs, loop_secs;
	enum verdict verdict;
	const char *observation, *expected;
	char *error;
};

/* judge.c */
int col_is_ptr(const struct lt_test *t, const struct lt_loc *l);
void add_col(struct test *T, const struct lt_loc *l);
void expr_cols(struct test *T, const struct lt_expr *e);
int find_col(const struct test *T, const struct lt_loc *l);
int eval(const struct test *T, const struct lt_expr *e, const long long *v);
int in_filter(const struct test *T, const long long *v);
void judge(struct test *T);

/* harness.c */
void generate(struct test *T);

/* compile.c */
extern char include_dir[PATH_MAX + 64];
extern uint64_t headers_hash;
void find_include(const char *argv0);
int urcu_available(void);
void cache_path(struct test *T);
void compile_all(struct test *tests, int ntests);

/* run.c */
int run_harness(struct test *T);

/* output.c */
const char *verdict_name(enum verdict v);
void print_text(struct test *T);
void print_json(struct test *tests, int ntests, int passed, int failed);

#endif
