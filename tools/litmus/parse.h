/* SPDX-License-Identifier: MIT */
/*
 * Parser for the Linux kernel's C litmus-test format (tools/memory-model),
 * as herd7 reads it:
 *
 *   C name
 *   "an optional doc string"
 *   Key=value lines (diy7's Cycle=, Relax=, Safe=, Prefetch=, Com=, Orig=)
 *   (* ... Result: Never|Sometimes|Always|Maybe|DEADLOCK [DATARACE] ... *)
 *   { int x; int *p = y; x2=y2; spinlock_t l; atomic_t a = ATOMIC_INIT(1);
 *     x=1; 0:r0=2; int *1:r1; int 0:r2 = z; }
 *   P0(int *x, spinlock_t *l, struct srcu_struct *s) { ...C with kernel primitives... }
 *   ...
 *   locations [0:r1; x]
 *   filter (0:r0=1)
 *   exists|~exists|forall (0:r0=0 /\ (1:r0=0 \/ ~x=1) /\ 0:r1=1:r1 /\ 0:r2=x);
 *
 * Values are untyped, as in herd: any location may hold a number or the
 * address of another; a location named only as a value in the init block
 * (x2=y2) exists.  Registers are the thread's locals wherever they are
 * declared (nested blocks too), or plain identifiers it assigns to, or
 * registers the init block gives a value.
 *
 * Everything lives in one arena owned by the test: lt_free() releases it.
 * Errors never abort: lt_parse() returns NULL and fills *err.
 */
#ifndef KATOMIC_LITMUS_PARSE_H
#define KATOMIC_LITMUS_PARSE_H

#include <stddef.h>

#define LT_MAX_THREADS 32

enum lt_result { LT_RES_NONE, LT_RES_NEVER, LT_RES_SOMETIMES, LT_RES_ALWAYS, LT_RES_MAYBE, LT_RES_DEADLOCK };
enum lt_kind { LT_SCALAR, LT_PTR, LT_ATOMIC, LT_LOCK, LT_SRCU };
enum lt_quant { LT_Q_EXISTS, LT_Q_NOT_EXISTS, LT_Q_FORALL };
enum lt_ekind { LT_E_TRUE, LT_E_FALSE, LT_E_ATOM, LT_E_NOT, LT_E_AND, LT_E_OR };

struct lt_error {
	int line, col;
	char msg[200];
};

/* A shared variable: one memory cell per iteration in the harness. */
struct lt_var {
	const char *name;
	const char *type;	/* C type of the cell, e.g. "int", "int *", "spinlock_t", "struct srcu_struct" */
	enum lt_kind kind;
	int has_init;
	long long init_val;	/* number (also ATOMIC_INIT(n)) */
	int init_ptr;		/* the address of variable init_ptr, or -1 (a number) */
	int line, col;
};

/* A register: a local of a thread; the harness declares it at the top of the thread. */
struct lt_reg {
	const char *name;
	const char *type;	/* declared type, e.g. "int", "int *"; NULL: undeclared */
	int declared;		/* by the body or the init block (int *1:r1) */
	int is_ptr;
	int has_init;		/* initial value from the init block (0:r0=1;) */
	long long init_val;
	int init_ptr;		/* the address of variable init_ptr, or -1 */
	size_t assign_at, assign_len;	/* its first initialiser or assignment's right-hand side (body offsets) */
};

/* A stretch of a thread body the harness blanks: the type words of a register declaration. */
struct lt_blank {
	size_t off, len;
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
	struct lt_blank *blanks;	/* in body order */
	int nblanks;
	const char *body;	/* text between the braces, verbatim */
	size_t body_len;
	int body_line, body_col;	/* position of the first body character */
};

/* A location: register (thread >= 0, index into regs) or memory (thread -1, index into vars). */
struct lt_loc {
	int thread;
	int index;
};

/* A value in a condition: a number, the address of a variable (NULL: var -1), or another location. */
struct lt_val {
	int is_sym;		/* 1: the address of variable `var` (or NULL when var == -1) */
	int is_loc;		/* 1: the value of location `loc` */
	long long num;
	int var;
	struct lt_loc loc;
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
	int datarace;		/* Result: ... DATARACE (herd flags a race between plain accesses) */
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
/* Is this word (n bytes) a C type word the parser knows ("int", "u32", "spinlock_t", "struct")? */
int lt_type_word(const char *s, size_t n);
/* Print a location as herd does: "0:r0" or "x". */
int lt_loc_format(const struct lt_test *t, const struct lt_loc *l, char *buf, size_t size);

#endif
