/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus: what the runner's stages share.  Data flows one way:
 *   main.c     options, files, the flow below
 *   parse.c    text -> struct lt_test
 *   harness.c  lt_test -> what it needs (plan_test); a group of tests -> one C program
 *   compile.c  C program -> binary, cached by content hash, several at a time
 *   run.c      the schedule: compile groups, run each binary, read the histograms
 *   oracle.c   herd7's allowed states per test (--oracle, written by `katomic litmus`)
 *   judge.c    histogram -> observation and verdict (by herd7's states, else the Result: comment)
 *   output.c   verdicts -> text or JSON
 */
#ifndef KATOMIC_LITMUS_RUNNER_H
#define KATOMIC_LITMUS_RUNNER_H

#include "parse.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

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
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int read_file(const char *path, char **out, size_t *len);
uint64_t fnv(uint64_t h, const void *p, size_t n);
#define FNV0 0xcbf29ce484222325ULL
/* Order-independent hash of every file under dir (the headers a harness uses). */
uint64_t hash_tree(const char *dir);
int mkdir_p(const char *path);
void json_str(FILE *f, const char *s);
double now_seconds(void);

/* ------------------------------------------------------------ options (main.c) */
struct options {
	const char *backend;
	const char *cc;
	const char *include;
	const char *cache;
	long long iterations;
	double time;
	long batch, sync;
	int json, jobs, verbose, timeout, no_urcu, parse_only, recursive;
	double deadline;	/* no batch completed for this long: DEADLOCK */
	int group;		/* tests per compiled program */
	long long rcu_iterations;
	const char **mutate;
	int nmutate;
	const char *cflags;
	const char *rcu;	/* liburcu flavour: memb (default) or mb */
	const char *emit_verify;	/* --emit-verify DIR: write the verifier's units, run nothing */
	const char *oracle;	/* --oracle FILE: herd7's allowed states (oracle.c) */
};
extern struct options opt;

/* ------------------------------------------------------------ tests */
enum verdict { V_PASS, V_NOTSEEN, V_FAIL, V_ERROR, V_SKIP, V_PARSE, V_UNJUDGED, V_DATARACE };

struct state {
	long long count;
	long long *vals;
	int forbidden;		/* outside the states herd7 says LKMM allows */
};

struct oracle_entry;

struct test {
	const char *path;
	struct lt_test *lt;
	char *src;		/* the test text (owned) */
	const char *skip;	/* reason, if skipped */
	int urcu;		/* maps RCU to liburcu (-DKL_URCU -lurcu-memb) */
	int grace;		/* calls a grace period (synchronize_rcu or _srcu): iterations capped */
	int rcu_grace;		/* calls synchronize_rcu */
	int wide;		/* an int location holds an address: ints are widened to long */
	int orphan;		/* may leave a lock held: an iteration whose thread waits for it forever is discarded */
	char *unjudged;		/* reason the test is not run (a location of two incompatible types; owned) */
	struct lt_loc *cols;	/* observed locations: the histogram's columns */
	int ncols;
	/* results */
	struct state *states;
	int nstates;
	long long iters, pos, neg;
	double secs, loop_secs;
	long long discarded;	/* iterations abandoned: a thread waited for a lock never released */
	int deadlock;		/* no progress within the deadline, or no complete iteration: herd's DEADLOCK */
	int done;		/* the result is known */
	enum verdict verdict;
	const char *observation, *expected;
	char *error;
	/* the oracle (oracle.c): herd7's states for this test, or NULL (judged by its Result: comment) */
	const struct oracle_entry *oracle;
	const char *judged_by;	/* "herd7", "Result:" or NULL (unjudged) */
	const char *herd_expected;	/* herd7's verdict: Never, Sometimes, Always, DEADLOCK */
	char *oracle_note;	/* why herd7 did not judge it (owned) */
	char *oracle_skipped;	/* columns not compared with herd7's: SRCU indices (owned) */
	int disagrees;		/* the Result: comment says otherwise than herd7 */
	long long forbidden;	/* iterations that ended in a state LKMM forbids */
};

/* harness.c */
void plan_test(struct test *T, int urcu_ok);
char *generate_program(struct test *const *tests, int n, int urcu);
/* shared with verify.c: a type as the cells hold it, each register's type, a thread's body */
char *widen(const struct test *T, const char *type);
char **reg_types(const struct test *T, const struct lt_thread *th);
void emit_body(struct sbuf *b, const struct test *T, const struct lt_thread *th, char **types);
/* shared with oracle.c: is the register assigned an SRCU read-side index? */
int reg_is_srcu_index(const struct lt_thread *th, const char *name);

/* verify.c: the threads of each test as C functions, and tests.json (katomic verify) */
int emit_verify(struct test *tests, int n, const char *dir);

/* compile.c: one program (a group of tests), compiled into the cache */
struct program {
	struct test **tests;
	int ntests, urcu;
	char *src;
	char binpath[PATH_MAX];
	char *log;		/* the compiler's messages when it failed */
	pid_t pid;		/* compiler or harness running, or 0 */
	int state;		/* PROG_* */
	char out[PATH_MAX + 32];	/* the harness's output file */
	double started;
};
enum { PROG_NEW, PROG_COMPILING, PROG_COMPILED, PROG_FAILED, PROG_RUNNING, PROG_DONE };

extern char include_dir[PATH_MAX];
void find_include(void);
int urcu_available(void);
void program_prepare(struct program *P);
int program_start_compile(struct program *P);
void program_compile_done(struct program *P, int status);

/* run.c */
void run_all(struct test *tests, int ntests, void (*report)(struct test *T));

/* A final-state value that is the address of variable k's cell (harness-head.h's KL_ADDR). */
#define LT_ADDR(k) (LLONG_MIN + 1 + (long long)(k))

/* judge.c */
int eval(const struct test *T, const struct lt_expr *e, const long long *v);
int in_filter(const struct test *T, const long long *v);
void judge(struct test *T);

/* oracle.c */
void oracle_load(const char *path);
const struct oracle_entry *oracle_find(const char *src, size_t len);
int oracle_judge(struct test *T);

/* output.c */
const char *verdict_name(enum verdict v);
void format_val(const struct test *T, long long v, char *buf, size_t size);
void print_text(struct test *T);
void print_json_head(void);
void print_json_test(struct test *T, int first);
/* What a run came to: the last lines and the end of the JSON. */
struct tally {
	int passed, failed, notseen, skipped, bad, unjudged, datarace, deadlock, parsed;
	int by_herd, by_comment, disagree, herd_failed;	/* judged by herd7 / by Result:; comment vs herd7 */
};
void print_json_tail(const struct tally *n);

#endif
