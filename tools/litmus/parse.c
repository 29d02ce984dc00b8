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

struct pending_reg_init {
	int thread;
	const char *reg;
	int line, col;
	long long val;
	const char *sym;	/* pointer value, or NULL */
	int is_sym;
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
		{ "Always", LT_RES_ALWAYS }, { "Maybe", LT_RES_MAYBE },
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
		    (c == '=' && lpeek(l, 0) == '=') || (c == '!' && lpeek(l, 0) == '=')) {
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
	return in_list(scalar_words, s, n) || ends_t(s, n) || (n == 4 && !memcmp(s, "void", 4));
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
	while (*s) {
		size_t n = strcspn(s, " ");

		if (!in_list(scalar_words, s, n) && !(n == 6 && !memcmp(s, "size_t", 6)))
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

/* Parse type words at the current token: returns "unsigned long" etc. */
static char *parse_type_words(struct parser *p)
{
	char buf[256];
	size_t n = 0;

	while (p->tk.kind == T_IDENT && type_word(p->lx.buf + p->tk.start, p->tk.len)) {
		if (n + p->tk.len + 2 >= sizeof(buf))
			fail_tok(p, "type too long");
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, p->lx.buf + p->tk.start, p->tk.len);
		n += p->tk.len;
		next(p);
	}
	if (!n)
		fail_tok(p, "expected a type");
	return arena_strndup(p, buf, n);
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

/* An initial value: [-]NUM, NAME, &NAME.  *sym gets a pointer target name. */
static void parse_init_value(struct parser *p, long long *val, const char **sym)
{
	int neg = 0;

	*sym = NULL;
	*val = 0;
	if (is_punct(p, "&")) {
		next(p);
		*sym = expect_ident(p, "a variable name after '&'");
		return;
	}
	if (p->tk.kind == T_IDENT) {
		*sym = tok_str(p);
		next(p);
		return;
	}
	if (is_punct(p, "-")) {
		neg = 1;
		next(p);
	}
	if (p->tk.kind != T_NUM)
		fail_tok(p, "expected an initial value (number or variable name)");
	*val = neg ? (long long)(0ULL - (unsigned long long)p->tk.num) : p->tk.num;
	next(p);
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

static void parse_init_block(struct parser *p)
{
	expect(p, "{");
	while (!is_punct(p, "}")) {
		int line = p->tk.line, col = p->tk.col;

		if (p->tk.kind == T_EOF)
			fail_tok(p, "unterminated init block");
		if (is_punct(p, ";")) {
			next(p);
			continue;
		}
		if (p->tk.kind == T_NUM) {
			/* 0:r0=1; a register's initial value */
			struct pending_reg_init *pr;
			long long th = p->tk.num;

			next(p);
			expect(p, ":");
			if (th < 0 || th >= LT_MAX_THREADS)
				fail_at(p, line, col, "bad thread number");
			p->pend = grow(p, p->pend, p->npend, &p->cappend, sizeof(*p->pend));
			pr = &p->pend[p->npend++];
			pr->thread = (int)th;
			pr->line = line;
			pr->col = col;
			pr->reg = expect_ident(p, "a register name");
			expect(p, "=");
			parse_init_value(p, &pr->val, &pr->sym);
			expect(p, ";");
			continue;
		}
		if (p->tk.kind != T_IDENT)
			fail_tok(p, "expected a declaration or an assignment");
		if (!type_word(p->lx.buf + p->tk.start, p->tk.len)) {
			/* x = 1; */
			long long val;
			const char *sym;
			int vi = find_var(p->t, p->lx.buf + p->tk.start, p->tk.len);

			if (vi < 0)
				vi = add_var(p, tok_str(p), NULL, line, col);
			next(p);
			expect(p, "=");
			parse_init_value(p, &val, &sym);
			set_var_init(p, vi, val, sym, line, col);
			expect(p, ";");
			continue;
		}
		{
			char *words = parse_type_words(p);

			for (;;) {
				int stars = 0, vi, vl, vc;
				char *type;

				while (is_punct(p, "*")) {
					stars++;
					next(p);
				}
				vl = p->tk.line;
				vc = p->tk.col;
				if (p->tk.kind != T_IDENT)
					fail_tok(p, "expected a variable name");
				vi = find_var(p->t, p->lx.buf + p->tk.start, p->tk.len);
				type = make_type(p, words, stars);
				if (vi >= 0 && p->t->vars[vi].type)
					fail_tok(p, "variable '%s' declared twice", p->t->vars[vi].name);
				if (vi < 0)
					vi = add_var(p, tok_str(p), type, vl, vc);
				p->t->vars[vi].type = type;
				next(p);
				if (is_punct(p, "[") || is_punct(p, "("))
					fail_tok(p, "arrays and functions are not supported in the init block");
				if (is_punct(p, "=")) {
					long long val;
					const char *sym;

					next(p);
					parse_init_value(p, &val, &sym);
					set_var_init(p, vi, val, sym, vl, vc);
				}
				if (is_punct(p, ",")) {
					next(p);
					continue;
				}
				expect(p, ";");
				break;
			}
		}
	}
	next(p);
}

/* ------------------------------------------------------------ threads */
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
		int stars = 0, line, col, i;
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
		while (is_punct(p, "*")) {
			stars++;
			next(p);
		}
		line = p->tk.line;
		col = p->tk.col;
		name = expect_ident(p, "a parameter name");
		if (!stars)
			fail_at(p, line, col, "parameter '%s' must be a pointer to a shared variable", name);
		for (i = 0; i < th->nparams; i++)
			if (!strcmp(th->params[i].name, name))
				fail_at(p, line, col, "duplicate parameter '%s'", name);
		th->params = grow(p, th->params, th->nparams, &cap, sizeof(*th->params));
		pa = &th->params[th->nparams++];
		pa->name = name;
		pa->type = make_type(p, words, stars);
		{
			char *vtype = make_type(p, words, stars - 1);
			int vi = find_var(p->t, name, strlen(name));

			if (vi < 0)
				vi = add_var(p, name, vtype, line, col);
			else if (!p->t->vars[vi].type)
				p->t->vars[vi].type = vtype;
			else if (strcmp(p->t->vars[vi].type, vtype))
				fail_at(p, line, col, "parameter '%s' has type '%s *' but the variable is '%s'",
					name, vtype, p->t->vars[vi].type);
			pa->var = vi;
		}
		if (is_punct(p, ")")) {
			next(p);
			return;
		}
		expect(p, ",");
	}
}

/* Find the registers: declarations at the top level of the body. */
static void scan_body(struct parser *p, struct lt_thread *th, size_t bstart)
{
	int depth = 0, stmt_start = 1, cap = 0;

	for (;;) {
		next(p);
		if (p->tk.kind == T_EOF)
			return;
		if (depth == 0 && stmt_start && p->tk.kind == T_IDENT &&
		    type_word(p->lx.buf + p->tk.start, p->tk.len)) {
			char *words = parse_type_words(p);

			for (;;) {
				int stars = 0, i, line, col;
				struct lt_reg *r;
				char *name;

				while (is_punct(p, "*") || is_ident(p, "const") || is_ident(p, "volatile")) {
					stars += is_punct(p, "*");
					next(p);
				}
				line = p->tk.line;
				col = p->tk.col;
				if (p->tk.kind != T_IDENT)
					fail_tok(p, "cannot parse this declaration");
				name = tok_str(p);
				for (i = 0; i < th->nregs; i++)
					if (!strcmp(th->regs[i].name, name))
						fail_at(p, line, col, "register '%s' declared twice", name);
				for (i = 0; i < th->nparams; i++)
					if (!strcmp(th->params[i].name, name))
						fail_at(p, line, col, "register '%s' shadows a parameter", name);
				if (!strcmp(words, "void") && !stars)
					fail_at(p, line, col, "register '%s' has type void", name);
				th->regs = grow(p, th->regs, th->nregs, &cap, sizeof(*th->regs));
				r = &th->regs[th->nregs++];
				memset(r, 0, sizeof(*r));
				r->name = name;
				r->type = make_type(p, words, stars);
				r->is_ptr = stars > 0;
				r->init_ptr = -1;
				r->zero_at = p->tk.start + p->tk.len - bstart;
				next(p);
				if (is_punct(p, "[") || is_punct(p, "("))
					fail_tok(p, "array or function registers are not supported");
				if (is_punct(p, "=")) {
					int d = 0;

					r->zero_at = (size_t)-1;
					for (;;) {
						next(p);
						if (p->tk.kind == T_EOF)
							fail_at(p, line, col, "unterminated declaration");
						if (is_punct(p, "(") || is_punct(p, "{") || is_punct(p, "["))
							d++;
						else if (is_punct(p, ")") || is_punct(p, "}") || is_punct(p, "]"))
							d--;
						else if (d <= 0 && (is_punct(p, ",") || is_punct(p, ";")))
							break;
						if (d < 0)
							fail_tok(p, "unbalanced initialiser");
					}
				}
				if (is_punct(p, ",")) {
					next(p);
					continue;
				}
				if (!is_punct(p, ";"))
					fail_tok(p, "expected ';' after the declaration of '%s'", name);
				break;
			}
			stmt_start = 1;
			continue;
		}
		if (is_punct(p, "{"))
			depth++;
		else if (is_punct(p, "}"))
			depth--;
		stmt_start = is_punct(p, ";") || is_punct(p, "{") || is_punct(p, "}");
	}
}

static void parse_thread(struct parser *p, int expect_id)
{
	struct lt_thread *th;
	const char *s = p->lx.buf + p->tk.start;
	size_t i;
	long id = 0;
	int line = p->tk.line, col = p->tk.col, depth;
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
static int find_reg(const struct lt_thread *th, const char *s, size_t n)
{
	int i;

	for (i = 0; i < th->nregs; i++)
		if (strlen(th->regs[i].name) == n && !memcmp(th->regs[i].name, s, n))
			return i;
	return -1;
}

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
	if (p->tk.kind != T_IDENT)
		fail_tok(p, "expected a location (N:reg or variable)");
	loc->thread = -1;
	loc->index = find_var(p->t, p->lx.buf + p->tk.start, p->tk.len);
	if (loc->index < 0)
		fail_tok(p, "unknown variable '%.*s'", (int)p->tk.len, p->lx.buf + p->tk.start);
	next(p);
}

static int loc_is_ptr(struct lt_test *t, const struct lt_loc *l)
{
	if (l->thread >= 0)
		return t->threads[l->thread].regs[l->index].is_ptr;
	return t->vars[l->index].kind == LT_PTR;
}

static struct lt_expr *parse_or(struct parser *p);

static struct lt_expr *new_expr(struct parser *p, enum lt_ekind k)
{
	struct lt_expr *e = arena_alloc(p, sizeof(*e));

	e->kind = k;
	return e;
}

static struct lt_expr *parse_unary(struct parser *p)
{
	struct lt_expr *e;

	if (++p->depth > 200)
		fail_tok(p, "condition nested too deeply");
	if (is_punct(p, "~") || is_punct(p, "!")) {
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
		int neg = 0, line, col, isnot;

		e = new_expr(p, LT_E_ATOM);
		parse_loc(p, &e->loc);
		isnot = is_punct(p, "!=");
		if (!isnot && !is_punct(p, "=") && !is_punct(p, "=="))
			fail_tok(p, "expected '=' in the condition");
		next(p);
		line = p->tk.line;
		col = p->tk.col;
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
			if (!loc_is_ptr(p->t, &e->loc))
				fail_at(p, line, col, "an address compared with a non-pointer location");
			next(p);
		} else {
			if (is_punct(p, "-")) {
				neg = 1;
				next(p);
			}
			if (p->tk.kind != T_NUM)
				fail_tok(p, "expected a value");
			e->val.num = neg ? (long long)(0ULL - (unsigned long long)p->tk.num) : p->tk.num;
			next(p);
		}
		if (isnot) {
			struct lt_expr *n = new_expr(p, LT_E_NOT);

			n->a = e;
			e = n;
		}
	}
	p->depth--;
	return e;
}

static struct lt_expr *parse_and(struct parser *p)
{
	struct lt_expr *e = parse_unary(p);

	while (is_punct(p, "/\\") || is_punct(p, "&&")) {
		struct lt_expr *n = new_expr(p, LT_E_AND);

		next(p);
		n->a = e;
		n->b = parse_unary(p);
		e = n;
	}
	return e;
}

static struct lt_expr *parse_or(struct parser *p)
{
	struct lt_expr *e = parse_and(p);

	while (is_punct(p, "\\/") || is_punct(p, "||")) {
		struct lt_expr *n = new_expr(p, LT_E_OR);

		next(p);
		n->a = e;
		n->b = parse_and(p);
		e = n;
	}
	return e;
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
	if (is_punct(p, "~")) {
		next(p);
		if (!is_ident(p, "exists"))
			fail_tok(p, "expected 'exists' after '~'");
		p->t->quant = LT_Q_NOT_EXISTS;
	} else if (is_ident(p, "exists")) {
		p->t->quant = LT_Q_EXISTS;
	} else if (is_ident(p, "forall")) {
		p->t->quant = LT_Q_FORALL;
	} else {
		fail_tok(p, p->tk.kind == T_EOF ? "missing final condition (exists, ~exists or forall)"
			 : "expected a thread, locations, filter, exists, ~exists or forall");
	}
	next(p);
	p->t->cond = parse_or(p);
	{
		/* The clause as written, on one line, without comments. */
		size_t cend = p->tk.kind == T_EOF ? p->lx.pos : p->tk.start, i, n = 0;
		char *s = arena_alloc(p, cend - cstart + 1);
		int sp = 0, incomment = 0;

		for (i = cstart; i < cend; i++) {
			char c = p->lx.buf[i];

			if (!incomment && c == '(' && i + 1 < cend && p->lx.buf[i + 1] == '*') {
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
		s[n] = 0;
		p->t->cond_text = s;
	}
	if (p->tk.kind != T_EOF)
		fail_tok(p, "unexpected text after the final condition");
}

/* ------------------------------------------------------------ resolution */
static void resolve(struct parser *p)
{
	struct lt_test *t = p->t;
	int i;

	for (i = 0; i < t->nvars; i++) {
		struct lt_var *v = &t->vars[i];
		const char *sym = p->var_init_sym[i];

		if (!v->type)
			v->type = sym ? "int *" : "int";
		v->kind = kind_of(p, v->type, v->line, v->col);
		if (sym) {
			if (v->kind != LT_PTR)
				fail_at(p, v->line, v->col, "'%s' is not a pointer but is initialised to '%s'",
					v->name, sym);
			v->init_ptr = strcmp(sym, "NULL") ? find_var(t, sym, strlen(sym)) : -1;
			if (v->init_ptr < 0 && strcmp(sym, "NULL"))
				fail_at(p, v->line, v->col, "unknown variable '%s'", sym);
		} else if (v->has_init && v->kind == LT_LOCK) {
			fail_at(p, v->line, v->col, "a spinlock_t cannot have an initial value");
		} else if (v->has_init && v->kind == LT_PTR && v->init_val) {
			fail_at(p, v->line, v->col, "pointer '%s' initialised to a non-zero number", v->name);
		}
	}
	for (i = 0; i < p->npend; i++) {
		struct pending_reg_init *pr = &p->pend[i];
		struct lt_reg *r;
		int ri;

		if (pr->thread >= t->nthreads)
			fail_at(p, pr->line, pr->col, "no thread P%d", pr->thread);
		ri = find_reg(&t->threads[pr->thread], pr->reg, strlen(pr->reg));
		if (ri < 0)
			fail_at(p, pr->line, pr->col, "P%d has no register '%s'", pr->thread, pr->reg);
		r = &t->threads[pr->thread].regs[ri];
		if (r->zero_at == (size_t)-1)
			fail_at(p, pr->line, pr->col, "register '%s' is already initialised in P%d",
				pr->reg, pr->thread);
		if (r->has_init)
			fail_at(p, pr->line, pr->col, "register initialised twice");
		r->has_init = 1;
		r->init_val = pr->val;
		if (pr->sym) {
			if (!r->is_ptr)
				fail_at(p, pr->line, pr->col, "register '%s' is not a pointer", pr->reg);
			r->init_ptr = strcmp(pr->sym, "NULL") ? find_var(t, pr->sym, strlen(pr->sym)) : -1;
			if (r->init_ptr < 0 && strcmp(pr->sym, "NULL"))
				fail_at(p, pr->line, pr->col, "unknown variable '%s'", pr->sym);
		}
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
	if (p->tk.kind == T_PUNCT && p->tk.punct[0] == '"')
		next(p);	/* an optional doc string */
	parse_init_block(p);
	while (p->tk.kind == T_IDENT && p->tk.len >= 2 && p->lx.buf[p->tk.start] == 'P' &&
	       isdigit((unsigned char)p->lx.buf[p->tk.start + 1]))
		parse_thread(p, t->nthreads);
	if (!t->nthreads)
		fail_tok(p, "expected at least one thread P0(...)");
	resolve(p);	/* types first: the condition checks pointer-ness */
	parse_final(p);
}

const char *lt_result_name(enum lt_result r)
{
	switch (r) {
	case LT_RES_NEVER: return "Never";
	case LT_RES_SOMETIMES: return "Sometimes";
	case LT_RES_ALWAYS: return "Always";
	case LT_RES_MAYBE: return "Maybe";
	default: return "none";
	}
}

int lt_loc_format(const struct lt_test *t, const struct lt_loc *l, char *buf, size_t size)
{
	if (l->thread >= 0)
		return snprintf(buf, size, "%d:%s", l->thread, t->threads[l->thread].regs[l->index].name);
	return snprintf(buf, size, "%s", t->vars[l->index].name);
}
