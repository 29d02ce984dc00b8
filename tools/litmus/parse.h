/* SPDX-License-Identifier: MIT */
/*
 * Parser for the Linux kernel's C litmus-test format (tools/memory-model):
 *
 *   C name
 *   (* ... Result: Never|Sometimes|Always|Maybe ... *)
 *   { int x; int *p = y; spinlock_t l; atomic_t a; x=1; 0:r0=2; }
 *   P0(int *x, spinlock_t *l) { ...C with kernel primitives... }
 *   ...
 *   locations [0:r1; x]
 *   filter (0:r0=1)
 *   exists|~exists|forall (0:r0=0 /\ (1:r0=0 \/ ~x=1))
 *
 * Everything lives in one arena owned by the test: lt_free() releases it.
 * Errors never abort: lt_parse() returns NULL and fills *err.
 */
#ifndef KATOMIC_LITMUS_PARSE_H
#define KATOMIC_LITMUS_PARSE_H

#include <stddef.h>

#define LT_MAX_THREADS 32

enum lt_result { LT_RES_NONE, LT_RES_NEVER, LT_RES_SOMETIMES, LT_RES_ALWAYS, LT_RES_MAYBE };
enum lt_kind { LT_SCALAR, LT_PTR, LT_ATOMIC, LT_LOCK };
enum lt_quant { LT_Q_EXISTS, LT_Q_NOT_EXISTS, LT_Q_FORALL };
enum lt_ekind { LT_E_TRUE, LT_E_FALSE, LT_E_ATOM, LT_E_NOT, LT_E_AND, LT_E_OR };

struct lt_error {
	int line, col;
	char msg[200];
};

/* A shared variable: one memory cell per iteration in the harness. */
struct lt_var {
	const char *name;
	const char *type;	/* C type of the cell, e.g. "int", "int *", "spinlock_t" */
	enum lt_kind kind;
	int has_init;
	long long init_val;	/* scalar / atomic initial value */
	int init_ptr;		/* LT_PTR: index of the variable pointed to, or -1 (NULL) */
	int line, col;
};

/* A register: a local declared at the top level of a thread body. */
struct lt_reg {
	const char *name;
	const char *type;	/* e.g. "int", "int *" */
	int is_ptr;
	size_t zero_at;		/* body offset just after the name, for " = 0"; (size_t)-1 if initialised */
	int has_init;		/* initial value from the init block (0:r0=1;) */
	long long init_val;
	int init_ptr;
};

struct lt_param {
	const char *name;
	const char *type;	/* full parameter type, e.g. "int *" */
	int var;		/* index into lt_test.vars */
};

struct lt_thread {
	int id;
	struct lt_param *params;
	int nparams;
	struct lt_reg *regs;
	int nregs;
	const char *body;	/* text between the braces, verbatim */
	size_t body_len;
	int body_line, body_col;	/* position of the first body character */
};

/* A location: register (thread >= 0, index into regs) or memory (thread -1, index into vars). */
struct lt_loc {
	int thread;
	int index;
};

struct lt_val {
	int is_sym;		/* 1: the address of variable `var` (or NULL when var == -1) */
	long long num;
	int var;
};

struct lt_expr {
	enum lt_ekind kind;
	struct lt_expr *a, *b;
	struct lt_loc loc;
	struct lt_val val;
};

struct lt_arena;

struct lt_test {
	const char *name;
	enum lt_result result;
	struct lt_var *vars;
	int nvars;
	struct lt_thread *threads;
	int nthreads;
	struct lt_loc *locs;	/* the `locations` clause */
	int nlocs;
	struct lt_expr *filter;	/* NULL if none */
	enum lt_quant quant;
	struct lt_expr *cond;
	const char *cond_text;	/* the final clause as written (one line) */
	struct lt_arena *arena;
};

struct lt_test *lt_parse(const char *buf, size_t len, struct lt_error *err);
void lt_free(struct lt_test *t);

const char *lt_result_name(enum lt_result r);
/* Print a location as herd does: "0:r0" or "x". */
int lt_loc_format(const struct lt_test *t, const struct lt_loc *l, char *buf, size_t size);

#endif
