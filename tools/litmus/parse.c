/* SPDX-License-Identifier: MIT */
/* Parser for the kernel's C litmus format: see parse.h. */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ arena */
struct lt_arena {
	struct lt_arena *next;
	max_align_t data[];
};

struct parser;
static void fail_at(struct parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

enum tok_kind { T_EOF, T_IDENT, T_NUM, T_PUNCT };

struct tok {
	enum tok_kind kind;
	size_t start, len;
	int line, col;
	long long num;
	char punct[3];
};

struct lexer {
	const char *buf;
	size_t pos, end;
	int line, col;
	int cmode;		/* inside a thread body: C comments only */
};

/* A register named in the init block (0:r0=1; int *1:r1;), resolved after the threads. */
struct pending_reg_init {
	int thread;
	const char *reg;
	const char *type;	/* NULL: untyped */
	int line, col;
	int has_val;
	long long val;
	const char *sym;	/* an address value (variable name or NULL), or NULL */
};

struct parser {
	struct lt_test *t;
	struct lexer lx;
	struct tok tk;		/* current token */
	struct lt_error *err;
	jmp_buf jb;
	int depth;
	struct pending_reg_init *pend;
	int npend, cappend;
	int capvars;
	/* per-var: pointer initialiser name to resolve after the threads */
	const char **var_init_sym;
};

static void *arena_alloc(struct parser *p, size_t n)
{
	struct lt_arena *a = malloc(sizeof(*a) + n + 1);

	if (!a)
		fail_at(p, p->lx.line, p->lx.col, "out of memory");
	a->next = p->t->arena;
	p->t->arena = a;
	memset(a->data, 0, n + 1);
	return a->data;
}

static char *arena_strndup(struct parser *p, const char *s, size_t n)
{
	char *d = arena_alloc(p, n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* Grow an arena array (amortised doubling; old blocks stay in the arena). */
static void *grow(struct parser *p, void *arr, int n, int *cap, size_t elem)
{
	void *na;

	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	na = arena_alloc(p, (size_t)*cap * elem);
	if (n)
		memcpy(na, arr, (size_t)n * elem);
	return na;
}

void lt_free(struct lt_test *t)
{
	struct lt_arena *a, *n;

	if (!t)
		return;
	for (a = t->arena; a; a = n) {
		n = a->next;
		free(a);
	}
	free(t);
}

static void fail_at(struct parser *p, int line, int col, const char *fmt, ...)
{
	va_list ap;

	p->err->line = line;
	p->err->col = col;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	longjmp(p->jb, 1);
}

#define fail_tok(p, ...) fail_at((p), (p)->tk.line, (p)->tk.col, __VA_ARGS__)

/* ------------------------------------------------------------ lexer */
static int lpeek(struct lexer *l, size_t k)
{
	return l->pos + k < l->end ? (unsigned char)l->buf[l->pos + k] : -1;
}

static void ladv(struct lexer *l)
{
	if (l->pos >= l->end)
		return;
	if (l->buf[l->pos] == '\n') {
		l->line++;
		l->col = 1;
	} else {
		l->col++;
	}
	l->pos++;
}

static void scan_result(struct parser *p, size_t from, size_t to)
{
	static const struct { const char *w; enum lt_result r; } words[] = {
		{ "Never", LT_RES_NEVER }, { "Sometimes", LT_RES_SOMETIMES },
		{ "Always", LT_RES_ALWAYS }, { "Maybe", LT_RES_MAYBE }, { "DEADLOCK", LT_RES_DEADLOCK },
	};
	size_t i, k;

	if (p->t->result != LT_RES_NONE)
		return;
	for (i = from; i + 7 <= to; i++) {
		if (memcmp(p->lx.buf + i, "Result:", 7))
			continue;
		i += 7;
		while (i < to && (p->lx.buf[i] == ' ' || p->lx.buf[i] == '\t'))
			i++;
		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			size_t n = strlen(words[k].w);

			if (i + n <= to && !memcmp(p->lx.buf + i, words[k].w, n)) {
				p->t->result = words[k].r;
				/* herd's flag after the verdict: "Result: Sometimes DATARACE" */
				for (i += n; i < to && (p->lx.buf[i] == ' ' || p->lx.buf[i] == '\t'); i++)
					;
				if (i + 8 <= to && !memcmp(p->lx.buf + i, "DATARACE", 8))
					p->t->datarace = 1;
				return;
			}
		}
		return;
	}
}

static void skip_space(struct parser *p)
{
	struct lexer *l = &p->lx;

	for (;;) {
		int c = lpeek(l, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			ladv(l);
		} else if (c == '/' && lpeek(l, 1) == '/') {
			while (lpeek(l, 0) != -1 && lpeek(l, 0) != '\n')
				ladv(l);
		} else if ((c == '/' && lpeek(l, 1) == '*') ||
			   (!l->cmode && c == '(' && lpeek(l, 1) == '*')) {
			int line = l->line, col = l->col, ml = c == '(';
			int depth = 1;
			size_t from = l->pos + 2;

			ladv(l);
			ladv(l);
			for (;;) {
				if (lpeek(l, 0) == -1)
					fail_at(p, line, col, "unterminated comment");
				if (ml && lpeek(l, 0) == '(' && lpeek(l, 1) == '*') {
					depth++;	/* OCaml comments nest */
					ladv(l);
				} else if (lpeek(l, 0) == '*' && lpeek(l, 1) == (ml ? ')' : '/')) {
					if (!ml || --depth == 0) {
						if (ml)
							scan_result(p, from, l->pos);
						ladv(l);
						ladv(l);
						break;
					}
					ladv(l);
				}
				ladv(l);
			}
		} else {
			return;
		}
	}
}

static void next(struct parser *p)
{
	struct lexer *l = &p->lx;
	struct tok *t = &p->tk;
	int c;

	skip_space(p);
	memset(t, 0, sizeof(*t));
	t->start = l->pos;
	t->line = l->line;
	t->col = l->col;
	c = lpeek(l, 0);
	if (c == -1) {
		t->kind = T_EOF;
		return;
	}
	if (isalpha(c) || c == '_') {
		while ((c = lpeek(l, 0)) != -1 && (isalnum(c) || c == '_'))
			ladv(l);
		t->kind = T_IDENT;
	} else if (isdigit(c)) {
		char tmp[64];
		size_t n;
		char *endp;

		while ((c = lpeek(l, 0)) != -1 && (isalnum(c) || c == '_'))
			ladv(l);
		n = l->pos - t->start;
		t->kind = T_NUM;
		if (n >= sizeof(tmp))
			fail_at(p, t->line, t->col, "number too long");
		memcpy(tmp, l->buf + t->start, n);
		tmp[n] = 0;
		/* C suffixes (1UL) are allowed in bodies; strip them here. */
		while (n > 1 && strchr("uUlL", tmp[n - 1]))
			tmp[--n] = 0;
		errno = 0;
		t->num = strtoll(tmp, &endp, 0);
		if (*endp) {
			if (l->cmode)	/* bodies may hold floats etc.: not our business */
				t->num = 0;
			else
				fail_at(p, t->line, t->col, "malformed number '%s'", tmp);
		} else if (errno == ERANGE) {
			errno = 0;
			t->num = (long long)strtoull(tmp, &endp, 0);
			if (errno == ERANGE && !l->cmode)
				fail_at(p, t->line, t->col, "number out of range '%s'", tmp);
		}
	} else if (c == '"' || c == '\'') {
		int q = c;

		ladv(l);
		for (;;) {
			c = lpeek(l, 0);
			if (c == -1 || c == '\n')
				fail_at(p, t->line, t->col, "unterminated %s literal", q == '"' ? "string" : "character");
			ladv(l);
			if (c == '\\') {
				if (lpeek(l, 0) == -1)
					fail_at(p, t->line, t->col, "unterminated literal");
				ladv(l);
			} else if (c == q) {
				break;
			}
		}
		t->kind = T_PUNCT;
		t->punct[0] = (char)q;
	} else if (c >= 33 && c < 127) {
		t->kind = T_PUNCT;
		t->punct[0] = (char)c;
		ladv(l);
		if ((c == '/' && lpeek(l, 0) == '\\') || (c == '\\' && lpeek(l, 0) == '/') ||
		    (c == '=' && lpeek(l, 0) == '=') || (c == '!' && lpeek(l, 0) == '=') ||
		    (!l->cmode && c == '=' && lpeek(l, 0) == '>')) {
			t->punct[1] = (char)lpeek(l, 0);
			ladv(l);
		}
	} else {
		fail_at(p, t->line, t->col, c == 0 ? "unexpected NUL character"
			: "unexpected character (byte 0x%02x)", c);
	}
	t->len = l->pos - t->start;
}

static int is_punct(struct parser *p, const char *s)
{
	return p->tk.kind == T_PUNCT && !strcmp(p->tk.punct, s);
}

static int is_ident(struct parser *p, const char *s)
{
	return p->tk.kind == T_IDENT && p->tk.len == strlen(s) &&
	       !memcmp(p->lx.buf + p->tk.start, s, p->tk.len);
}

static void expect(struct parser *p, const char *s)
{
	if (!is_punct(p, s))
		fail_tok(p, "expected '%s'", s);
	next(p);
}

static char *tok_str(struct parser *p)
{
	return arena_strndup(p, p->lx.buf + p->tk.start, p->tk.len);
}

static char *expect_ident(struct parser *p, const char *what)
{
	char *s;

	if (p->tk.kind != T_IDENT)
		fail_tok(p, "expected %s", what);
	s = tok_str(p);
	next(p);
	return s;
}

/* ------------------------------------------------------------ types */
static const char *const scalar_words[] = {
	"int", "long", "short", "char", "unsigned", "signed", "bool", "_Bool",
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"size_t", "uintptr_t", "intptr_t", "const", "volatile", NULL,
};

static int in_list(const char *const *list, const char *s, size_t n)
{
	for (; *list; list++)
		if (strlen(*list) == n && !memcmp(*list, s, n))
			return 1;
	return 0;
}

static int ends_t(const char *s, size_t n)
{
	return n > 2 && s[n - 2] == '_' && s[n - 1] == 't';
}

/* A word that can start or continue a declaration's type. */
static int type_word(const char *s, size_t n)
{
	return in_list(scalar_words, s, n) || ends_t(s, n) || (n == 4 && !memcmp(s, "void", 4)) ||
	       (n == 6 && !memcmp(s, "struct", 6));
}

int lt_type_word(const char *s, size_t n)
{
	return type_word(s, n);
}

static int tok_is_type_word(struct parser *p)
{
	return p->tk.kind == T_IDENT && type_word(p->lx.buf + p->tk.start, p->tk.len);
}

static enum lt_kind kind_of(struct parser *p, const char *type, int line, int col)
{
	const char *s = type;

	if (strchr(type, '*'))
		return LT_PTR;
	if (!strcmp(type, "spinlock_t"))
		return LT_LOCK;
	if (!strcmp(type, "atomic_t") || !strcmp(type, "atomic64_t") || !strcmp(type, "atomic_long_t"))
		return LT_ATOMIC;
	if (!strcmp(type, "struct srcu_struct"))
		return LT_SRCU;
	while (*s) {
		size_t n = strcspn(s, " ");

		if (!in_list(scalar_words, s, n))
			fail_at(p, line, col, "unsupported variable type '%s'", type);
		s += n;
		while (*s == ' ')
			s++;
	}
	return LT_SCALAR;
}

/* Join type words "unsigned long" plus stars into "unsigned long *". */
static char *make_type(struct parser *p, const char *words, int stars)
{
	size_t n = strlen(words);
	char *s = arena_alloc(p, n + (size_t)stars + 2);

	memcpy(s, words, n);
	if (stars) {
		s[n++] = ' ';
		while (stars--)
			s[n++] = '*';
	}
	s[n] = 0;
	return s;
}

/*
 * Parse type words at the current token: returns "unsigned long",
 * "struct srcu_struct" etc.; *end (if not NULL) gets the offset just after
 * the last word.
 */
static char *parse_type_words_end(struct parser *p, size_t *end)
{
	char buf[256];
	size_t n = 0;

	while (tok_is_type_word(p)) {
		int is_struct = is_ident(p, "struct");

		for (;;) {
			if (n + p->tk.len + 2 >= sizeof(buf))
				fail_tok(p, "type too long");
			if (n)
				buf[n++] = ' ';
			memcpy(buf + n, p->lx.buf + p->tk.start, p->tk.len);
			n += p->tk.len;
			if (end)
				*end = p->tk.start + p->tk.len;
			next(p);
			if (!is_struct)
				break;
			if (p->tk.kind != T_IDENT)
				fail_tok(p, "expected a struct name");
			is_struct = 0;
		}
	}
	if (!n)
		fail_tok(p, "expected a type");
	return arena_strndup(p, buf, n);
}

static char *parse_type_words(struct parser *p)
{
	return parse_type_words_end(p, NULL);
}

/* ------------------------------------------------------------ variables */
static int find_var(struct lt_test *t, const char *name, size_t n)
{
	int i;

	for (i = 0; i < t->nvars; i++)
		if (strlen(t->vars[i].name) == n && !memcmp(t->vars[i].name, name, n))
			return i;
	return -1;
}

static int add_var(struct parser *p, const char *name, const char *type, int line, int col)
{
	struct lt_test *t = p->t;
	int cap = p->capvars;
	struct lt_var *v;

	if (t->nvars >= 4096)
		fail_at(p, line, col, "too many variables");
	t->vars = grow(p, t->vars, t->nvars, &p->capvars, sizeof(*t->vars));
	p->var_init_sym = grow(p, p->var_init_sym, t->nvars, &cap, sizeof(*p->var_init_sym));
	v = &t->vars[t->nvars];
	memset(v, 0, sizeof(*v));
	p->var_init_sym[t->nvars] = NULL;
	v->name = name;
	v->type = type;
	v->init_ptr = -1;
	v->line = line;
	v->col = col;
	return t->nvars++;
}

/* The variable named name, created (untyped) if nothing declared it: herd's x2=y2 makes y2 a location. */
static int var_named(struct parser *p, const char *name, int line, int col)
{
	int vi = find_var(p->t, name, strlen(name));

	return vi >= 0 ? vi : add_var(p, name, NULL, line, col);
}

static long long parse_number(struct parser *p, const char *what)
{
	int neg = 0;
	long long v;

	if (is_punct(p, "-")) {
		neg = 1;
		next(p);
	}
	if (p->tk.kind != T_NUM)
		fail_tok(p, "expected %s", what);
	v = neg ? (long long)(0ULL - (unsigned long long)p->tk.num) : p->tk.num;
	next(p);
	return v;
}

/* An initial value: [-]NUM, NAME (an address, or NULL), &NAME, ATOMIC_INIT(NUM).  *sym gets a name. */
static void parse_init_value(struct parser *p, long long *val, const char **sym)
{
	*sym = NULL;
	*val = 0;
	if (is_punct(p, "&")) {
		next(p);
		*sym = expect_ident(p, "a variable name after '&'");
		return;
	}
	if (is_ident(p, "ATOMIC_INIT")) {
		next(p);
		expect(p, "(");
		*val = parse_number(p, "a number in ATOMIC_INIT()");
		expect(p, ")");
		return;
	}
	if (p->tk.kind == T_IDENT) {
		*sym = tok_str(p);
		next(p);
		return;
	}
	*val = parse_number(p, "an initial value (number or variable name)");
}

static void set_var_init(struct parser *p, int vi, long long val, const char *sym, int line, int col)
{
	struct lt_var *v = &p->t->vars[vi];

	if (v->has_init)
		fail_at(p, line, col, "variable '%s' initialised twice", v->name);
	v->has_init = 1;
	v->init_val = val;
	p->var_init_sym[vi] = sym;
	v->line = line;
	v->col = col;
}

/*
 * One item of the init block, as herd reads it: [TYPE] [*...] LOC [= VALUE]
 * where LOC is a variable or N:reg (several declarators may share a type).
 */
static void parse_init_item(struct parser *p)
{
	char *words = tok_is_type_word(p) ? parse_type_words(p) : NULL;

	for (;;) {
		int stars = 0, line, col;
		const char *type;

		while (is_punct(p, "*") || is_ident(p, "const") || is_ident(p, "volatile")) {
			stars += is_punct(p, "*");
			next(p);
		}
		type = words ? make_type(p, words, stars) : stars ? make_type(p, "int", stars) : NULL;
		line = p->tk.line;
		col = p->tk.col;
		if (p->tk.kind == T_NUM) {
			/* 0:r0=1; int *1:r1; a register */
			struct pending_reg_init *pr;
			long long th = p->tk.num;

			next(p);
			expect(p, ":");
			if (th < 0 || th >= LT_MAX_THREADS)
				fail_at(p, line, col, "bad thread number");
			p->pend = grow(p, p->pend, p->npend, &p->cappend, sizeof(*p->pend));
			pr = &p->pend[p->npend++];
			memset(pr, 0, sizeof(*pr));
			pr->thread = (int)th;
			pr->line = line;
			pr->col = col;
			pr->type = type;
			pr->reg = expect_ident(p, "a register name");
			if (is_punct(p, "=")) {
				next(p);
				pr->has_val = 1;
				parse_init_value(p, &pr->val, &pr->sym);
			}
		} else if (p->tk.kind == T_IDENT) {
			int vi = find_var(p->t, p->lx.buf + p->tk.start, p->tk.len);

			if (vi >= 0 && type && p->t->vars[vi].type)
				fail_tok(p, "variable '%s' declared twice", p->t->vars[vi].name);
			if (vi < 0)
				vi = add_var(p, tok_str(p), NULL, line, col);
			if (type)
				p->t->vars[vi].type = type;
			next(p);
			if (is_punct(p, "[") || is_punct(p, "("))
				fail_tok(p, "arrays and functions are not supported in the init block");
			if (is_punct(p, "=")) {
				long long val;
				const char *sym;

				next(p);
				parse_init_value(p, &val, &sym);
				set_var_init(p, vi, val, sym, line, col);
			}
		} else {
			fail_tok(p, words || stars ? "expected a variable name" :
				 "expected a declaration or an assignment");
		}
		if (!is_punct(p, ","))
			break;
		next(p);
	}
	/* herd separates items by ';', the last one may go without */
	if (is_punct(p, ";"))
		next(p);
	else if (!is_punct(p, "}"))
		fail_tok(p, "expected ';'");
}

static void parse_init_block(struct parser *p)
{
	expect(p, "{");
	while (!is_punct(p, "}")) {
		if (p->tk.kind == T_EOF)
			fail_tok(p, "unterminated init block");
		if (is_punct(p, ";")) {
			next(p);
			continue;
		}
		parse_init_item(p);
	}
	next(p);
}

/* ------------------------------------------------------------ threads */
static int find_reg(const struct lt_thread *th, const char *s, size_t n)
{
	int i;

	for (i = 0; i < th->nregs; i++)
		if (strlen(th->regs[i].name) == n && !memcmp(th->regs[i].name, s, n))
			return i;
	return -1;
}

static int find_param(const struct lt_thread *th, const char *s, size_t n)
{
	int i;

	for (i = 0; i < th->nparams; i++)
		if (strlen(th->params[i].name) == n && !memcmp(th->params[i].name, s, n))
			return i;
	return -1;
}

static struct lt_reg *add_reg(struct parser *p, struct lt_thread *th, int *cap, const char *name)
{
	struct lt_reg *r;

	if (th->nregs >= 4096)
		fail_tok(p, "too many registers");
	th->regs = grow(p, th->regs, th->nregs, cap, sizeof(*th->regs));
	r = &th->regs[th->nregs++];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->init_ptr = -1;
	return r;
}

static void parse_params(struct parser *p, struct lt_thread *th)
{
	int cap = 0;

	expect(p, "(");
	if (is_punct(p, ")")) {
		next(p);
		return;
	}
	for (;;) {
		char *words, *name;
		int stars = 0, line, col, vi;
		struct lt_param *pa;

		if (is_ident(p, "void") && p->lx.pos < p->lx.end) {
			/* P0(void) */
			size_t save = p->lx.pos;
			int sl = p->lx.line, sc = p->lx.col;
			struct tok st = p->tk;

			next(p);
			if (is_punct(p, ")") && th->nparams == 0) {
				next(p);
				return;
			}
			p->lx.pos = save;
			p->lx.line = sl;
			p->lx.col = sc;
			p->tk = st;
		}
		words = parse_type_words(p);
		while (is_punct(p, "*") || is_ident(p, "const") || is_ident(p, "volatile")) {
			stars += is_punct(p, "*");
			next(p);
		}
		line = p->tk.line;
		col = p->tk.col;
		name = expect_ident(p, "a parameter name");
		if (!stars)
			fail_at(p, line, col, "parameter '%s' must be a pointer to a shared variable", name);
		if (find_param(th, name, strlen(name)) >= 0)
			fail_at(p, line, col, "duplicate parameter '%s'", name);
		th->params = grow(p, th->params, th->nparams, &cap, sizeof(*th->params));
		pa = &th->params[th->nparams++];
		pa->name = name;
		pa->type = make_type(p, words, stars);
		/*
		 * The variable's type: the init block's, else the first parameter's.
		 * Values are untyped in herd, so parameters of other types are
		 * fine: the harness passes the cell's address converted.
		 */
		vi = find_var(p->t, name, strlen(name));
		if (vi < 0)
			vi = add_var(p, name, NULL, line, col);
		if (!p->t->vars[vi].type)
			p->t->vars[vi].type = make_type(p, words, stars - 1);
		pa->var = vi;
		if (is_punct(p, ")")) {
			next(p);
			return;
		}
		expect(p, ",");
	}
}

/* Skip an initialiser up to the ',' or ';' that ends it (not consumed). */
static void skip_initialiser(struct parser *p, int line, int col)
{
	int d = 0;

	for (;;) {
		next(p);
		if (p->tk.kind == T_EOF)
			fail_at(p, line, col, "unterminated declaration");
		if (is_punct(p, "(") || is_punct(p, "{") || is_punct(p, "["))
			d++;
		else if (is_punct(p, ")") || is_punct(p, "}") || is_punct(p, "]"))
			d--;
		else if (d <= 0 && (is_punct(p, ",") || is_punct(p, ";")))
			return;
		if (d < 0)
			fail_tok(p, "unbalanced initialiser");
	}
}

static void add_blank(struct parser *p, struct lt_thread *th, int *cap, size_t from, size_t to)
{
	th->blanks = grow(p, th->blanks, th->nblanks, cap, sizeof(*th->blanks));
	th->blanks[th->nblanks].off = from;
	th->blanks[th->nblanks].len = to - from;
	th->nblanks++;
}

/*
 * A declaration in a thread body (at any depth): its names are registers,
 * and its type words are blanked, so that the harness can declare every
 * register once at the top of the thread (herd's registers are the thread's,
 * whichever block declares them).
 */
static void scan_declaration(struct parser *p, struct lt_thread *th, size_t bstart, int *rcap, int *bcap)
{
	size_t wstart = p->tk.start, wend = wstart;
	char *words = parse_type_words_end(p, &wend);

	add_blank(p, th, bcap, wstart - bstart, wend - bstart);
	for (;;) {
		int stars = 0, ri, line, col;
		struct lt_reg *r;
		char *name;

		while (is_punct(p, "*") || is_ident(p, "const") || is_ident(p, "volatile")) {
			stars += is_punct(p, "*");
			add_blank(p, th, bcap, p->tk.start - bstart, p->tk.start + p->tk.len - bstart);
			next(p);
		}
		line = p->tk.line;
		col = p->tk.col;
		if (p->tk.kind != T_IDENT)
			fail_tok(p, "cannot parse this declaration");
		name = tok_str(p);
		if (find_param(th, name, strlen(name)) >= 0)
			fail_at(p, line, col, "register '%s' shadows a parameter", name);
		if (!strcmp(words, "void") && !stars)
			fail_at(p, line, col, "register '%s' has type void", name);
		ri = find_reg(th, name, strlen(name));
		r = ri >= 0 ? &th->regs[ri] : add_reg(p, th, rcap, name);
		if (!r->declared) {
			r->type = make_type(p, words, stars);
			r->is_ptr = stars > 0;
			r->declared = 1;
		}
		next(p);
		if (is_punct(p, "[") || is_punct(p, "("))
			fail_tok(p, "array or function registers are not supported");
		if (is_punct(p, "=")) {
			size_t from = p->tk.start + 1;

			skip_initialiser(p, line, col);
			if (!r->assign_len) {
				r->assign_at = from - bstart;
				r->assign_len = p->tk.start - from;
			}
		}
		if (is_punct(p, ",")) {
			next(p);
			continue;
		}
		if (!is_punct(p, ";"))
			fail_tok(p, "expected ';' after the declaration of '%s'", name);
		return;
	}
}

/*
 * The registers of a thread: its declarations (any depth) and the plain
 * names it assigns to without declaring them (NAME = ... at the start of a
 * statement), which herd takes as registers too.
 */
static void scan_body(struct parser *p, struct lt_thread *th, size_t bstart)
{
	int stmt_start = 1, parens = 0, rcap = 0, bcap = 0;

	for (;;) {
		next(p);
		if (p->tk.kind == T_EOF)
			return;
		if (stmt_start && tok_is_type_word(p)) {
			scan_declaration(p, th, bstart, &rcap, &bcap);
			continue;
		}
		if (stmt_start && p->tk.kind == T_IDENT) {
			/* NAME = ... (not ==): an undeclared register? */
			struct lexer save = p->lx;
			struct tok st = p->tk;

			next(p);
			if (is_punct(p, "=") && find_reg(th, p->lx.buf + st.start, st.len) < 0 &&
			    find_param(th, p->lx.buf + st.start, st.len) < 0) {
				struct lt_reg *r = add_reg(p, th, &rcap, arena_strndup(p, p->lx.buf + st.start, st.len));
				size_t from = p->tk.start + 1;

				skip_initialiser(p, st.line, st.col);
				r->assign_at = from - bstart;
				r->assign_len = p->tk.start - from;
				stmt_start = is_punct(p, ";");
				continue;
			}
			p->lx = save;
			p->tk = st;
		}
		if (is_punct(p, "("))
			parens++;
		else if (is_punct(p, ")") && parens > 0)
			parens--;
		/* A statement starts after ; { } else, and after the ) of if (...), while (...) */
		stmt_start = parens == 0 && (is_punct(p, ";") || is_punct(p, "{") || is_punct(p, "}") ||
					     is_ident(p, "else") || is_punct(p, ")"));
	}
}

static void parse_thread(struct parser *p, int expect_id)
{
	struct lt_thread *th;
	const char *s = p->lx.buf + p->tk.start;
	size_t i;
	long id = 0;
	int line, col, depth;
	size_t bstart, bend;
	struct lexer save;

	if (p->tk.len < 2 || p->tk.len > 4 || s[0] != 'P')
		fail_tok(p, "expected a thread P%d(...) or the final condition", expect_id);
	for (i = 1; i < p->tk.len; i++) {
		if (!isdigit((unsigned char)s[i]))
			fail_tok(p, "expected a thread P%d(...) or the final condition", expect_id);
		id = id * 10 + (s[i] - '0');
	}
	if (id != expect_id)
		fail_tok(p, "expected thread P%d, found P%ld", expect_id, id);
	if (expect_id >= LT_MAX_THREADS)
		fail_tok(p, "too many threads (at most %d)", LT_MAX_THREADS);
	th = &p->t->threads[p->t->nthreads];
	memset(th, 0, sizeof(*th));
	th->id = expect_id;
	next(p);
	parse_params(p, th);
	if (!is_punct(p, "{"))
		fail_tok(p, "expected '{' to open the body of P%d", expect_id);
	/* Raw scan to the matching brace, C-aware (strings, comments). */
	line = p->tk.line;
	col = p->tk.col;
	bstart = p->lx.pos;
	th->body_line = p->lx.line;
	th->body_col = p->lx.col;
	p->lx.cmode = 1;
	save = p->lx;
	depth = 1;
	for (;;) {
		next(p);
		if (p->tk.kind == T_EOF)
			fail_at(p, line, col, "unterminated body of P%d", expect_id);
		if (is_punct(p, "{"))
			depth++;
		else if (is_punct(p, "}") && --depth == 0)
			break;
	}
	bend = p->tk.start;
	th->body = p->lx.buf + bstart;
	th->body_len = bend - bstart;
	/* Second pass over exactly the body: the registers. */
	{
		struct lexer after = p->lx;

		p->lx = save;
		p->lx.end = bend;
		scan_body(p, th, bstart);
		p->lx = after;
	}
	p->lx.cmode = 0;
	p->t->nthreads++;
	next(p);
}

/* ------------------------------------------------------------ final clause */
/* A location: N:reg, a variable, or [variable]. */
static void parse_loc(struct parser *p, struct lt_loc *loc)
{
	if (p->tk.kind == T_NUM) {
		long long th = p->tk.num;
		int line = p->tk.line, col = p->tk.col;

		next(p);
		expect(p, ":");
		if (th < 0 || th >= p->t->nthreads)
			fail_at(p, line, col, "no thread P%lld", th);
		if (p->tk.kind != T_IDENT)
			fail_tok(p, "expected a register name");
		loc->thread = (int)th;
		loc->index = find_reg(&p->t->threads[th], p->lx.buf + p->tk.start, p->tk.len);
		if (loc->index < 0)
			fail_tok(p, "P%lld has no register '%.*s'", th, (int)p->tk.len, p->lx.buf + p->tk.start);
		next(p);
		return;
	}
	if (is_punct(p, "*"))
		fail_tok(p, "memory locations through pointers (*p) are not supported");
	if (is_punct(p, "[")) {
		next(p);
		parse_loc(p, loc);
		expect(p, "]");
		return;
	}
	if (p->tk.kind != T_IDENT)
		fail_tok(p, "expected a location (N:reg or variable)");
	loc->thread = -1;
	loc->index = find_var(p->t, p->lx.buf + p->tk.start, p->tk.len);
	if (loc->index < 0)
		fail_tok(p, "unknown variable '%.*s'", (int)p->tk.len, p->lx.buf + p->tk.start);
	next(p);
}

static struct lt_expr *parse_or(struct parser *p);

static struct lt_expr *new_expr(struct parser *p, enum lt_ekind k)
{
	struct lt_expr *e = arena_alloc(p, sizeof(*e));

	e->kind = k;
	return e;
}

static struct lt_expr *new_binary(struct parser *p, enum lt_ekind k, struct lt_expr *a, struct lt_expr *b)
{
	struct lt_expr *e = new_expr(p, k);

	e->a = a;
	e->b = b;
	return e;
}

/* LOC =|==|!= VALUE, VALUE: [-]NUM, NAME (its address), &NAME, NULL, or N:reg (its value). */
static struct lt_expr *parse_atom(struct parser *p)
{
	struct lt_expr *e = new_expr(p, LT_E_ATOM);
	int isnot;

	parse_loc(p, &e->loc);
	isnot = is_punct(p, "!=");
	if (!isnot && !is_punct(p, "=") && !is_punct(p, "=="))
		fail_tok(p, "expected '=' in the condition");
	next(p);
	if (p->tk.kind == T_NUM && p->lx.pos < p->lx.end && p->lx.buf[p->lx.pos] == ':') {
		e->val.is_loc = 1;
		parse_loc(p, &e->val.loc);
	} else {
		if (is_punct(p, "&"))
			next(p);
		if (p->tk.kind == T_IDENT) {
			e->val.is_sym = 1;
			if (is_ident(p, "NULL")) {
				e->val.var = -1;
			} else {
				e->val.var = find_var(p->t, p->lx.buf + p->tk.start, p->tk.len);
				if (e->val.var < 0)
					fail_tok(p, "unknown variable '%.*s'", (int)p->tk.len,
						 p->lx.buf + p->tk.start);
			}
			next(p);
		} else {
			e->val.num = parse_number(p, "a value");
		}
	}
	if (isnot) {
		struct lt_expr *n = new_expr(p, LT_E_NOT);

		n->a = e;
		e = n;
	}
	return e;
}

static struct lt_expr *parse_unary(struct parser *p)
{
	struct lt_expr *e;

	if (++p->depth > 200)
		fail_tok(p, "condition nested too deeply");
	if (is_punct(p, "~") || is_punct(p, "!") || is_ident(p, "not")) {
		next(p);
		e = new_expr(p, LT_E_NOT);
		e->a = parse_unary(p);
	} else if (is_punct(p, "(")) {
		next(p);
		e = parse_or(p);
		expect(p, ")");
	} else if (is_ident(p, "true") || is_ident(p, "false")) {
		e = new_expr(p, is_ident(p, "true") ? LT_E_TRUE : LT_E_FALSE);
		next(p);
	} else {
		e = parse_atom(p);
	}
	p->depth--;
	return e;
}

/* herd's precedence, loosest first: \/, /\, => (right-associative), ~. */
static struct lt_expr *parse_implies(struct parser *p)
{
	struct lt_expr *e = parse_unary(p);

	if (is_punct(p, "=>")) {
		struct lt_expr *n = new_expr(p, LT_E_NOT);

		next(p);
		if (++p->depth > 200)
			fail_tok(p, "condition nested too deeply");
		n->a = e;
		e = new_binary(p, LT_E_OR, n, parse_implies(p));
		p->depth--;
	}
	return e;
}

static struct lt_expr *parse_and(struct parser *p)
{
	struct lt_expr *e = parse_implies(p);

	while (is_punct(p, "/\\") || is_punct(p, "&&")) {
		next(p);
		e = new_binary(p, LT_E_AND, e, parse_implies(p));
	}
	return e;
}

static struct lt_expr *parse_or(struct parser *p)
{
	struct lt_expr *e = parse_and(p);

	while (is_punct(p, "\\/") || is_punct(p, "||")) {
		next(p);
		e = new_binary(p, LT_E_OR, e, parse_and(p));
	}
	return e;
}

/* The clause as written, on one line, without comments. */
static const char *clause_text(struct parser *p, size_t from, size_t to)
{
	char *s = arena_alloc(p, to - from + 1);
	size_t i, n = 0;
	int sp = 0, incomment = 0;

	for (i = from; i < to; i++) {
		char c = p->lx.buf[i];

		if (!incomment && c == '(' && i + 1 < to && p->lx.buf[i + 1] == '*') {
			incomment = 1;
			continue;
		}
		if (incomment) {
			if (c == ')' && p->lx.buf[i - 1] == '*')
				incomment = 0;
			continue;
		}
		if (isspace((unsigned char)c)) {
			sp = 1;
			continue;
		}
		if (sp && n)
			s[n++] = ' ';
		sp = 0;
		s[n++] = c;
	}
	while (n && s[n - 1] == ';')	/* the optional ';' after the condition */
		n--;
	s[n] = 0;
	return s;
}

static void parse_final(struct parser *p)
{
	int cap = 0;
	size_t cstart;

	for (;;) {
		if (is_ident(p, "locations")) {
			next(p);
			expect(p, "[");
			while (!is_punct(p, "]")) {
				if (p->tk.kind == T_EOF)
					fail_tok(p, "unterminated locations clause");
				if (is_punct(p, ";")) {
					next(p);
					continue;
				}
				p->t->locs = grow(p, p->t->locs, p->t->nlocs, &cap, sizeof(*p->t->locs));
				parse_loc(p, &p->t->locs[p->t->nlocs++]);
				if (!is_punct(p, ";") && !is_punct(p, "]"))
					fail_tok(p, "expected ';' or ']' in the locations clause");
			}
			next(p);
		} else if (is_ident(p, "filter")) {
			if (p->t->filter)
				fail_tok(p, "second filter clause");
			next(p);
			p->t->filter = parse_or(p);
		} else {
			break;
		}
	}
	cstart = p->tk.start;
	if (p->tk.kind == T_EOF) {
		/* herd: no final condition is "forall true" */
		p->t->quant = LT_Q_FORALL;
		p->t->cond = new_expr(p, LT_E_TRUE);
		p->t->cond_text = "forall (true)";
		return;
	}
	if (is_punct(p, "~")) {
		next(p);
		if (!is_ident(p, "exists"))
			fail_tok(p, "expected 'exists' after '~'");
		p->t->quant = LT_Q_NOT_EXISTS;
		next(p);
	} else if (is_ident(p, "exists") || is_ident(p, "final")) {
		p->t->quant = LT_Q_EXISTS;
		next(p);
	} else if (is_ident(p, "forall")) {
		p->t->quant = LT_Q_FORALL;
		next(p);
	} else if (is_punct(p, "(")) {
		p->t->quant = LT_Q_EXISTS;	/* herd: a bare (...) is exists */
	} else {
		fail_tok(p, "expected a thread, locations, filter, exists, ~exists or forall");
	}
	p->t->cond = parse_or(p);
	if (is_punct(p, ";"))
		next(p);
	p->t->cond_text = clause_text(p, cstart, p->tk.kind == T_EOF ? p->lx.pos : p->tk.start);
	if (p->tk.kind != T_EOF)
		fail_tok(p, "unexpected text after the final condition");
}

/* ------------------------------------------------------------ resolution */
static void resolve(struct parser *p)
{
	struct lt_test *t = p->t;
	int i, nv = t->nvars;

	/* Names the init block gives as values are locations (herd: x2=y2). */
	for (i = 0; i < nv; i++) {
		if (p->var_init_sym[i] && strcmp(p->var_init_sym[i], "NULL")) {
			int target = var_named(p, p->var_init_sym[i], t->vars[i].line, t->vars[i].col);

			t->vars[i].init_ptr = target;	/* after var_named: it may move t->vars */
		}
	}
	for (i = 0; i < p->npend; i++) {
		struct pending_reg_init *pr = &p->pend[i];

		if (pr->thread >= t->nthreads)
			fail_at(p, pr->line, pr->col, "no thread P%d", pr->thread);
		if (pr->sym && strcmp(pr->sym, "NULL"))
			var_named(p, pr->sym, pr->line, pr->col);
	}
	for (i = 0; i < t->nvars; i++) {
		struct lt_var *v = &t->vars[i];

		if (!v->type)	/* only named in the init block: an int, or a pointer-sized one holding an address */
			v->type = v->init_ptr >= 0 ? "intptr_t" : "int";
		v->kind = kind_of(p, v->type, v->line, v->col);
		if (v->has_init && (v->kind == LT_LOCK || v->kind == LT_SRCU))
			fail_at(p, v->line, v->col, "a %s cannot have an initial value", v->type);
	}
	for (i = 0; i < p->npend; i++) {
		struct pending_reg_init *pr = &p->pend[i];
		struct lt_thread *th = &t->threads[pr->thread];
		struct lt_reg *r;
		int ri = find_reg(th, pr->reg, strlen(pr->reg));

		if (ri < 0) {
			/* a register only the init block names: it holds its initial value */
			int cap = th->nregs;

			if (find_param(th, pr->reg, strlen(pr->reg)) >= 0)
				fail_at(p, pr->line, pr->col, "'%s' is a parameter of P%d, not a register", pr->reg,
					pr->thread);
			r = add_reg(p, th, &cap, pr->reg);
		} else {
			r = &th->regs[ri];
		}
		if (pr->type && !r->declared) {
			r->type = pr->type;
			r->is_ptr = strchr(pr->type, '*') != NULL;
			r->declared = 1;
		}
		if (!pr->has_val)
			continue;
		if (r->has_init)
			fail_at(p, pr->line, pr->col, "register initialised twice");
		r->has_init = 1;
		r->init_val = pr->val;
		if (pr->sym && strcmp(pr->sym, "NULL"))
			r->init_ptr = find_var(t, pr->sym, strlen(pr->sym));
	}
}

static void parse_all(struct parser *p);

struct lt_test *lt_parse(const char *buf, size_t len, struct lt_error *err)
{
	struct parser *p;
	struct lt_test *t = calloc(1, sizeof(*t));

	memset(err, 0, sizeof(*err));
	p = calloc(1, sizeof(*p));
	if (!t || !p) {
		free(t);
		free(p);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		err->line = err->col = 1;
		return NULL;
	}
	p->t = t;
	p->err = err;
	p->lx.buf = buf;
	p->lx.end = len;
	p->lx.line = p->lx.col = 1;
	if (setjmp(p->jb)) {
		lt_free(p->t);
		free(p);
		return NULL;
	}
	parse_all(p);
	{
		struct lt_test *res = p->t;

		free(p);
		return res;
	}
}

/* diy7's information lines before the init block: Key=anything, to the end of the line. */
static int skip_info_line(struct parser *p)
{
	struct lexer *l = &p->lx;
	size_t i = l->pos;

	if (p->tk.kind != T_IDENT)
		return 0;
	while (i < l->end && (l->buf[i] == ' ' || l->buf[i] == '\t'))
		i++;
	if (i >= l->end || l->buf[i] != '=')
		return 0;
	while (lpeek(l, 0) != -1 && lpeek(l, 0) != '\n')
		ladv(l);
	next(p);
	return 1;
}

static void parse_all(struct parser *p)
{
	struct lt_test *t = p->t;
	const char *buf = p->lx.buf;

	t->threads = arena_alloc(p, sizeof(*t->threads) * LT_MAX_THREADS);
	next(p);
	if (!is_ident(p, "C"))
		fail_tok(p, "expected 'C' and the test name (only C litmus tests are supported)");
	/* The name: the next non-blank word, any characters. */
	{
		struct lexer *l = &p->lx;
		size_t s;

		while (lpeek(l, 0) == ' ' || lpeek(l, 0) == '\t')
			ladv(l);
		s = l->pos;
		while (lpeek(l, 0) > ' ' && lpeek(l, 0) < 127)
			ladv(l);
		if (s == l->pos)
			fail_at(p, l->line, l->col, "expected the test name after 'C'");
		t->name = arena_strndup(p, buf + s, l->pos - s);
	}
	next(p);
	for (;;) {
		if (p->tk.kind == T_PUNCT && p->tk.punct[0] == '"')
			next(p);	/* a doc string */
		else if (!skip_info_line(p))
			break;
	}
	parse_init_block(p);
	while (p->tk.kind == T_IDENT && p->tk.len >= 2 && p->lx.buf[p->tk.start] == 'P' &&
	       isdigit((unsigned char)p->lx.buf[p->tk.start + 1]))
		parse_thread(p, t->nthreads);
	if (!t->nthreads)
		fail_tok(p, "expected at least one thread P0(...)");
	resolve(p);	/* before the condition: it names the registers and variables */
	parse_final(p);
}

const char *lt_result_name(enum lt_result r)
{
	switch (r) {
	case LT_RES_NEVER: return "Never";
	case LT_RES_SOMETIMES: return "Sometimes";
	case LT_RES_ALWAYS: return "Always";
	case LT_RES_MAYBE: return "Maybe";
	case LT_RES_DEADLOCK: return "DEADLOCK";
	default: return "none";
	}
}

int lt_loc_format(const struct lt_test *t, const struct lt_loc *l, char *buf, size_t size)
{
	if (l->thread >= 0)
		return snprintf(buf, size, "%d:%s", l->thread, t->threads[l->thread].regs[l->index].name);
	return snprintf(buf, size, "%s", t->vars[l->index].name);
}
