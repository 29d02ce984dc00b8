/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus harness generator: what a test needs (plan_test), and one C
 * program for a group of tests (generate_program): each test's thread bodies
 * inlined into loops over its own cells, every name of test k prefixed kl<k>_,
 * and the runtime of harness-head.h/harness-main.h, which runs each test in a
 * child process (docs/litmus.md, "Harness technique").
 */
#define _GNU_SOURCE
#include "runner.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The harness runtime (harness-head.h, harness-main.h), embedded by embed.awk. */
extern const char kl_rt_head[], kl_rt_main[];

/* ------------------------------------------------------------ what a test needs */
static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * The first place at or after s where the body names `word` (n bytes) as a
 * whole word (srcu_read_lock is not rcu_read_lock), or NULL.
 */
static const char *next_word(const struct lt_thread *th, const char *s, const char *word, size_t n)
{
	const char *end = th->body + th->body_len;

	while ((s = memmem(s, (size_t)(end - s), word, n))) {
		if ((s == th->body || !ident_char(s[-1])) && (s + n == end || !ident_char(s[n])))
			return s;
		s += n;
	}
	return NULL;
}

/* Does the body name this identifier? */
static int body_has(const struct lt_thread *th, const char *word)
{
	return next_word(th, th->body, word, strlen(word)) != NULL;
}

/*
 * Is register name assigned what srcu_read_lock() or srcu_down_read() returns
 * ("r1 = srcu_read_lock(s)", also as a declaration's initialiser)?  That index
 * is the implementation's (LKMM's SRCU returns 0, the harness's another): a
 * value no memory model fixes, so the herd7 oracle does not compare it.
 */
int reg_is_srcu_index(const struct lt_thread *th, const char *name)
{
	const char *s, *end = th->body + th->body_len;
	size_t n = strlen(name);

	for (s = next_word(th, th->body, name, n); s; s = next_word(th, s + n, name, n)) {
		const char *q = s + n;

		while (q < end && isspace((unsigned char)*q))
			q++;
		if (q == end || *q != '=' || (q + 1 < end && q[1] == '='))
			continue;
		for (q++; q < end && isspace((unsigned char)*q); q++)
			;
		if ((size_t)(end - q) >= 14 && (!strncmp(q, "srcu_read_lock", 14) || !strncmp(q, "srcu_down_read", 14)))
			return 1;
	}
	return 0;
}

/* A type that can hold an address: a pointer or a pointer-sized integer. */
static int holds_address(const char *type)
{
	static const char *const wide[] = { "long", "intptr_t", "uintptr_t", "size_t", "u64", "s64", NULL };
	int i;

	if (strchr(type, '*'))
		return 1;
	for (i = 0; wide[i]; i++) {
		const char *s = strstr(type, wide[i]);
		size_t n = strlen(wide[i]);

		if (s && (s == type || s[-1] == ' ') && (s[n] == 0 || s[n] == ' '))
			return 1;
	}
	return 0;
}

static int scalar_narrow(const char *type)
{
	return type && !holds_address(type) && !strstr(type, "_t") && !strstr(type, "struct");
}

/* Does the condition compare a location that cannot hold an address with one? */
static int expr_narrow_address(const struct lt_test *t, const struct lt_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == LT_E_ATOM && e->val.is_sym && e->val.var >= 0) {
		const char *type = e->loc.thread >= 0 ? t->threads[e->loc.thread].regs[e->loc.index].type
						       : t->vars[e->loc.index].type;

		if (scalar_narrow(type))
			return 1;
	}
	return expr_narrow_address(t, e->a) || expr_narrow_address(t, e->b);
}

/* Primitives whose first argument is an address (not an lvalue such as READ_ONCE's *x). */
static const char *const addr_first[] = {
	"smp_load_acquire", "smp_store_release", "smp_cond_load_relaxed", "smp_cond_load_acquire",
	"virt_load_acquire", "virt_store_release", "xchg", "xchg_acquire", "xchg_release", "xchg_relaxed",
	"cmpxchg", "cmpxchg_acquire", "cmpxchg_release", "cmpxchg_relaxed", "cmpxchg_local", "sync_cmpxchg",
	"try_cmpxchg", "try_cmpxchg_acquire", "try_cmpxchg_release", "try_cmpxchg_relaxed", "try_cmpxchg_local",
	"cmpxchg64", "cmpxchg64_acquire", "cmpxchg64_release", "cmpxchg64_relaxed", "cmpxchg64_local",
	"try_cmpxchg64", "try_cmpxchg64_acquire", "try_cmpxchg64_release", "try_cmpxchg64_relaxed", NULL
};

/* Is the identifier ending at e (the text starting at lo) one of list? */
static int word_before_in(const char *lo, const char *e, const char *const *list)
{
	const char *w = e;
	int i;

	while (w > lo && ident_char(w[-1]))
		w--;
	for (i = 0; list[i]; i++)
		if (strlen(list[i]) == (size_t)(e - w) && !memcmp(list[i], w, (size_t)(e - w)))
			return 1;
	return 0;
}

/*
 * The places where the body uses register name as an address: after a unary
 * '*' ("*r1 = 1", "READ_ONCE(*r2)") or as the first argument of a primitive
 * taking one ("smp_load_acquire(r8)", "xchg(r2, 1)").  herd's registers are
 * untyped: an int register may hold an address and be used so.  Returns how
 * many; their offsets (of the name) into at[] (up to max).
 */
static int reg_addr_uses(const struct lt_thread *th, const char *name, size_t *at, int max)
{
	const char *s, *end = th->body + th->body_len;
	size_t n = strlen(name);
	int count = 0;

	for (s = next_word(th, th->body, name, n); s; s = next_word(th, s + n, name, n)) {
		const char *a = s, *e = s + n, *f;

		while (a > th->body && isspace((unsigned char)a[-1]))
			a--;
		if (a > th->body && a[-1] == '*') {
			for (a--; a > th->body && isspace((unsigned char)a[-1]); a--)
				;
			/* unary: after an operator or an opening, not after an operand (x * r1) */
			if (!(a == th->body || strchr("(,=;{}!&|*+-<>?:[~", a[-1])))
				continue;
		} else if (a > th->body && a[-1] == '(') {
			for (f = e; f < end && isspace((unsigned char)*f); f++)
				;
			for (a--; a > th->body && isspace((unsigned char)a[-1]); a--)
				;
			if (f == end || (*f != ',' && *f != ')') || !word_before_in(th->body, a, addr_first))
				continue;
		} else {
			continue;
		}
		if (count < max)
			at[count] = (size_t)(e - n - th->body);
		count++;
	}
	return count;
}

static int reg_dereferenced(const struct lt_thread *th, const char *name)
{
	return reg_addr_uses(th, name, NULL, 0) > 0;
}

/* Is the ',' at c inside the arguments of an atomic_*() or *_bit() call (which take the object last)? */
static int atomic_arg(const char *lo, const char *c)
{
	const char *e, *w;
	int d = 0;

	for (; c > lo; c--) {
		if (*c == ')')
			d++;
		else if (*c == '(' && d-- == 0)
			break;
	}
	if (c <= lo || *c != '(')
		return 0;
	for (e = c; e > lo && isspace((unsigned char)e[-1]); e--)
		;
	for (w = e; w > lo && ident_char(w[-1]); w--)
		;
	return (e - w >= 6 && !memcmp(w, "atomic", 6)) || (e - w >= 4 && !memcmp(e - 4, "_bit", 4));
}

/*
 * Does the body use a parameter as a value ("WRITE_ONCE(*z, x)",
 * "r1 == y", "x + r8"): an address that may land in an int location or
 * register?  Not a value: after '*' or '&', before "->", '.' or '[', or as
 * the first argument of a call (spin_lock(l), smp_store_release(y, 1)).
 */
static int param_as_value(const struct lt_thread *th)
{
	static const char *const keywords[] = { "if", "while", "for", "switch", "return", NULL };
	int j;

	for (j = 0; j < th->nparams; j++) {
		const char *pn = th->params[j].name, *s, *end = th->body + th->body_len;
		size_t n = strlen(pn);

		for (s = next_word(th, th->body, pn, n); s; s = next_word(th, s + n, pn, n)) {
			const char *a = s, *e = s + n;

			while (a > th->body && isspace((unsigned char)a[-1]))
				a--;
			while (e < end && isspace((unsigned char)*e))
				e++;
			if (a > th->body && (a[-1] == '*' || a[-1] == '&' || a[-1] == '.' || a[-1] == '>'))
				continue;
			if (e < end && (*e == '.' || *e == '[' || (*e == '-' && e + 1 < end && e[1] == '>')))
				continue;
			if (a > th->body && a[-1] == '(') {
				for (a--; a > th->body && isspace((unsigned char)a[-1]); a--)
					;
				if (a > th->body && ident_char(a[-1]) && !word_before_in(th->body, a, keywords))
					continue;	/* a call's first argument */
			}
			if (a > th->body && a[-1] == ',' && atomic_arg(th->body, a - 1))
				continue;	/* atomic_add(1, v), set_bit(0, p): the object operated on */
			return 1;
		}
	}
	return 0;
}

/* Is register r's first value an address: a parameter's name (int r1 = y;) or &variable? */
static int rhs_is_address(const struct lt_thread *th, const struct lt_reg *r)
{
	const char *s = th->body + r->assign_at, *end = s + r->assign_len;
	int j;

	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (s < end && *s == '&')
		return 1;
	for (j = 0; j < th->nparams; j++)
		if (strlen(th->params[j].name) == (size_t)(end - s) && !memcmp(th->params[j].name, s, (size_t)(end - s)))
			return 1;
	return 0;
}

/*
 * herd's values are untyped: an int location may hold an address.  A test
 * that may put one there gets every int widened to long (intptr_t's width),
 * so that the address survives: an address in the init block (C-llist-add-
 * atomic: h=l1 with int *h) or compared in the condition, a parameter used as
 * a value in a body (WRITE_ONCE(*z, x)), a register used as an address.
 */
static int needs_wide(const struct lt_test *t)
{
	int i, j;

	for (i = 0; i < t->nvars; i++)
		if (t->vars[i].init_ptr >= 0 && scalar_narrow(t->vars[i].type))
			return 1;
	for (i = 0; i < t->nthreads; i++)
		for (j = 0; j < t->threads[i].nregs; j++) {
			const struct lt_reg *r = &t->threads[i].regs[j];

			if (scalar_narrow(r->type) && ((r->has_init && r->init_ptr >= 0) || rhs_is_address(&t->threads[i], r)))
				return 1;
			if (!r->is_ptr && reg_dereferenced(&t->threads[i], r->name))
				return 1;
		}
	for (i = 0; i < t->nthreads; i++)
		if (param_as_value(&t->threads[i]))
			return 1;
	return expr_narrow_address(t, t->cond) || expr_narrow_address(t, t->filter);
}

static void add_col(struct test *T, const struct lt_loc *l)
{
	int i;

	for (i = 0; i < T->ncols; i++)
		if (T->cols[i].thread == l->thread && T->cols[i].index == l->index)
			return;
	T->cols = xrealloc(T->cols, sizeof(*T->cols) * (size_t)(T->ncols + 1));
	T->cols[T->ncols++] = *l;
}

static void expr_cols(struct test *T, const struct lt_expr *e)
{
	if (!e)
		return;
	if (e->kind == LT_E_ATOM) {
		add_col(T, &e->loc);
		if (e->val.is_loc)
			add_col(T, &e->val.loc);
	}
	expr_cols(T, e->a);
	expr_cols(T, e->b);
}

/*
 * May a thread end holding a lock?  Per thread: more acquisitions
 * (spin_lock*, raw_spin_lock*, the trylocks) than releases made
 * unconditionally (at the body's top level, as a statement of their own).
 * A lock taken and never released (P0 { spin_lock(s); ... }), or released
 * only under a condition, makes the test an orphan one (KL_ORPHAN).
 */
static int may_leave_locked(const struct lt_thread *th)
{
	const char *s = th->body, *end = th->body + th->body_len;
	int depth = 0, acq = 0, rel = 0;

	while (s < end) {
		const char *w = s, *a;
		size_t n;

		if (*s == '{' || *s == '}') {
			depth += *s == '{' ? 1 : -1;
			s++;
			continue;
		}
		if (!(isalpha((unsigned char)*s) || *s == '_') || (s > th->body && ident_char(s[-1]))) {
			s++;
			continue;
		}
		while (s < end && ident_char(*s))
			s++;
		n = (size_t)(s - w);
		if (n > 4 && !memcmp(w, "raw_", 4)) {
			w += 4;
			n -= 4;
		}
		if ((n >= 9 && !memcmp(w, "spin_lock", 9) && (n == 9 || w[9] == '_') && !(n >= 14 && !memcmp(w, "spin_lock_init", 14))) ||
		    (n >= 12 && !memcmp(w, "spin_trylock", 12))) {
			acq++;
		} else if (n >= 11 && !memcmp(w, "spin_unlock", 11) && !(n >= 16 && !memcmp(w, "spin_unlock_wait", 16))) {
			for (a = s - n - (w > th->body + 4 && !memcmp(w - 4, "raw_", 4) ? 4 : 0);
			     a > th->body && isspace((unsigned char)a[-1]); a--)
				;
			if (depth == 0 && (a == th->body || a[-1] == ';' || a[-1] == '{' || a[-1] == '}'))
				rel++;
		}
	}
	return acq > rel;
}

/* The kind of the variable a parameter of this type points to. */
static enum lt_kind param_kind(const char *type)
{
	size_t n = strlen(type);

	while (n && type[n - 1] == ' ')
		n--;
	if (n && type[n - 1] == '*')	/* the parameter's own star */
		n--;
	while (n && type[n - 1] == ' ')
		n--;
	if (memchr(type, '*', n))
		return LT_PTR;
	if (n == 10 && !memcmp(type, "spinlock_t", 10))
		return LT_LOCK;
	if (n == 18 && !memcmp(type, "struct srcu_struct", 18))
		return LT_SRCU;
	if ((n == 8 && !memcmp(type, "atomic_t", 8)) || (n == 10 && !memcmp(type, "atomic64_t", 10)) ||
	    (n == 13 && !memcmp(type, "atomic_long_t", 13)))
		return LT_ATOMIC;
	return LT_SCALAR;
}

static const char *kind_what(enum lt_kind k)
{
	switch (k) {
	case LT_LOCK: return "spinlock_t (a katomic lock)";
	case LT_SRCU: return "struct srcu_struct (an SRCU domain)";
	case LT_ATOMIC: return "atomic_t";
	default: return "a plain word";
	}
}

/*
 * A location the threads use with incompatible types (P0(int *s) writes it,
 * P1(struct srcu_struct *s) takes an SRCU read lock on it).  herd treats it
 * as one untyped cell whose value srcu_read_lock()/spin_lock() read and
 * write; the harness's lock or SRCU domain is a structure of its own, not a
 * word a plain access can read or write, so such a test is not run and is
 * UNJUDGED with the reason.  int with atomic_t share the cell (atomic_t is
 * an int), unless the test is widened.  Returns the reason or NULL.
 */
static char *mixed_types(const struct test *T)
{
	const struct lt_test *t = T->lt;
	int th, j;

	for (th = 0; th < t->nthreads; th++)
		for (j = 0; j < t->threads[th].nparams; j++) {
			const struct lt_param *pa = &t->threads[th].params[j];
			const struct lt_var *v = &t->vars[pa->var];
			enum lt_kind pk = param_kind(pa->type), vk = v->kind == LT_PTR ? LT_SCALAR : v->kind;
			struct sbuf b = { 0 };

			if (pk == LT_PTR)
				pk = LT_SCALAR;
			if (pk == vk || (!T->wide && ((pk == LT_ATOMIC && vk == LT_SCALAR) || (pk == LT_SCALAR && vk == LT_ATOMIC))))
				continue;
			if (pk + vk == LT_ATOMIC + LT_SCALAR && (pk == LT_ATOMIC || vk == LT_ATOMIC))
				sb_printf(&b, "location %s is an atomic_t and a plain word (P%d's parameter '%s' and the "
					  "type '%s'): herd treats it as one untyped cell, and so does the harness, but not "
					  "in this test, whose plain words are widened to hold addresses",
					  v->name, t->threads[th].id, pa->type, v->type);
			else
				sb_printf(&b, "location %s is %s in P%d's parameters and %s elsewhere (its type '%s'): herd "
					  "treats it as one untyped cell, but the harness's %s is not a plain word",
					  v->name, kind_what(pk), t->threads[th].id, kind_what(vk), v->type,
					  kind_what(pk == LT_SCALAR ? vk : pk));
			return b.s;
		}
	return NULL;
}

void plan_test(struct test *T, int urcu_ok)
{
	const struct lt_test *t = T->lt;
	int th, l;

	/*
	 * RCU: rcu_read_lock/unlock and synchronize_rcu(_expedited) map to
	 * liburcu when it is installed (urcu_ok); SRCU is the harness's own.
	 * call_rcu is not mapped.
	 */
	for (th = 0; th < t->nthreads; th++) {
		const struct lt_thread *tt = &t->threads[th];

		if (body_has(tt, "synchronize_rcu") || body_has(tt, "synchronize_rcu_expedited"))
			T->grace = T->rcu_grace = 1;
		if (body_has(tt, "synchronize_srcu") || body_has(tt, "synchronize_srcu_expedited"))
			T->grace = 1;
		if (body_has(tt, "rcu_read_lock") || T->rcu_grace)
			T->urcu = 1;
		if (body_has(tt, "call_rcu"))
			T->skip = "needs call_rcu, not mapped";
	}
	if (T->urcu && !urcu_ok) {
		T->urcu = 0;
		if (T->rcu_grace && !T->skip)
			T->skip = opt.no_urcu ?
				"needs RCU grace periods (synchronize_rcu): liburcu disabled by --no-urcu" :
				"needs RCU grace periods (synchronize_rcu): install liburcu-dev (liburcu)";
	}
	T->wide = needs_wide(t);
	for (th = 0; th < t->nthreads; th++)
		T->orphan |= may_leave_locked(&t->threads[th]);
	T->unjudged = mixed_types(T);
	for (l = 0; l < t->nlocs; l++)
		add_col(T, &t->locs[l]);
	expr_cols(T, t->filter);
	expr_cols(T, t->cond);
}

/* ------------------------------------------------------------ types */
/* A type without const/volatile, for registers and their arrays. */
static char *strip_cv(const char *type)
{
	struct sbuf b = { 0 };
	const char *s = type;

	while (*s) {
		size_t n = strcspn(s, " ");

		if (!((n == 5 && !memcmp(s, "const", 5)) || (n == 8 && !memcmp(s, "volatile", 8)))) {
			if (b.n)
				sb_puts(&b, " ");
			sb_add(&b, s, n);
		}
		s += n;
		while (*s == ' ')
			s++;
	}
	if (!b.s)
		sb_puts(&b, "int");
	return b.s;
}

/* In a widened test: int -> long, unsigned -> unsigned long (the stars kept). */
char *widen(const struct test *T, const char *type)
{
	struct sbuf b = { 0 };
	const char *s = type;
	int has_int = 0, has_other = 0;

	if (!T->wide)
		return xstrdup(type);
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n == 3 && !memcmp(s, "int", 3))
			has_int = 1;
		else if (!(n == 8 && !memcmp(s, "unsigned", 8)) && !(n == 6 && !memcmp(s, "signed", 6)) &&
			 !(n == 5 && !memcmp(s, "const", 5)) && !(n == 8 && !memcmp(s, "volatile", 8)) && *s != '*')
			has_other = 1;
		s += n;
		while (*s == ' ')
			s++;
	}
	if (has_other)
		return xstrdup(type);
	for (s = type; *s;) {
		size_t n = strcspn(s, " ");

		if (*s == '*' && !has_int) {
			sb_puts(&b, " long");
			has_int = 1;
		}
		if (b.n && b.s[b.n - 1] != ' ')
			sb_puts(&b, " ");
		if (n == 3 && !memcmp(s, "int", 3))
			sb_puts(&b, "long");
		else
			sb_add(&b, s, n);
		s += n;
		while (*s == ' ')
			s++;
	}
	if (!has_int)
		sb_puts(&b, " long");
	return b.s;
}

static int is_type_word(const char *s, size_t n)
{
	return lt_type_word(s, n) || (n == 6 && !memcmp(s, "sizeof", 6)) || (n == 8 && !memcmp(s, "_Alignof", 8)) ||
	       (n == 10 && !memcmp(s, "__typeof__", 10)) || (n == 6 && !memcmp(s, "typeof", 6)) ||
	       (n == 4 && !memcmp(s, "NULL", 4));
}

/*
 * Can an undeclared register take its type from its first assignment's
 * right-hand side at the top of the thread?  Every name there must be a
 * parameter or a register declared before it (declared[] 1; not 2: an
 * integer register used as an address, whose uses get a cast in the body
 * only), a function or macro (followed by '('), a member (after . or ->) or
 * a type word.
 */
static int rhs_typeable(const struct lt_thread *th, const struct lt_reg *r, const int *declared)
{
	const char *s = th->body + r->assign_at, *end = s + r->assign_len;

	while (s < end) {
		if (isalpha((unsigned char)*s) || *s == '_') {
			const char *w = s, *a;
			size_t n;
			int j, ok = 0;

			while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
				s++;
			n = (size_t)(s - w);
			for (a = s; a < end && isspace((unsigned char)*a); a++)
				;
			if ((a < end && *a == '(') || is_type_word(w, n) ||
			    (w > th->body && (w[-1] == '.' || (w[-1] == '>' && w - 1 > th->body && w[-2] == '-'))))
				continue;
			for (j = 0; j < th->nparams && !ok; j++)
				ok = strlen(th->params[j].name) == n && !memcmp(th->params[j].name, w, n);
			for (j = 0; j < th->nregs && !ok; j++)
				ok = declared[j] == 1 && strlen(th->regs[j].name) == n && !memcmp(th->regs[j].name, w, n);
			if (!ok)
				return 0;
		} else if (isdigit((unsigned char)*s)) {
			while (s < end && (isalnum((unsigned char)*s) || *s == '_' || *s == '.'))
				s++;
		} else if (*s == '"' || *s == '\'' || *s == '/') {
			return 0;	/* strings and comments: not worth reading */
		} else {
			s++;
		}
	}
	return 1;
}

/* ------------------------------------------------------------ code */
static int typeof_type(const char *type)
{
	return !strncmp(type, "__typeof__", 10);
}

static void emit_c_string(struct sbuf *b, const char *s)
{
	sb_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_puts(b, "\\");
		if ((unsigned char)*s >= 0x20)
			sb_add(b, s, 1);
	}
	sb_puts(b, "\"");
}

static int sb_lines(const struct sbuf *b)
{
	int n = 1;
	size_t i;

	for (i = 0; i < b->n; i++)
		n += b->s[i] == '\n';
	return n;
}

static void emit_line_directive(struct sbuf *b, int line, const char *path)
{
	sb_printf(b, "#line %d ", line);
	emit_c_string(b, path);
	sb_puts(b, "\n");
}

/*
 * The cell of variable var in iteration idx of test k: iteration i of a batch
 * uses cell i + off[var] (offs "off"); the reset prepares the next batch's
 * cells, at "noff" (see kl_relayout() in harness-main.h).
 */
static void emit_cell(struct sbuf *b, int k, int var, const char *idx, const char *offs)
{
	sb_printf(b, "kl%d_c%d[%s + kl%d_%s[%d]]", k, var, idx, k, offs, var);
}

/* A value converted to type: the address of a variable's cell, or a number. */
static void emit_value(struct sbuf *b, int k, const char *type, int var, long long num, const char *idx,
		       const char *offs)
{
	if (var >= 0) {
		sb_printf(b, "(%s)(uintptr_t)&", type);
		emit_cell(b, k, var, idx, offs);
		sb_puts(b, ".v");
	} else if (strchr(type, '*') || typeof_type(type)) {
		sb_printf(b, "(%s)(intptr_t)%lldLL", type, num);
	} else {
		sb_printf(b, "(%s)%lldLL", type, num);
	}
}

/*
 * The thread that first writes a variable (a guess from the text: the
 * variable passed as the first argument, "f(*x," or "f(x,"); it resets the
 * variable's cells, so that its stores hit its own cache while the other
 * threads' loads miss: the store-buffer window the weak outcomes need.
 */
static int var_home(const struct lt_test *t, int vi)
{
	int th, j, first = -1;

	for (th = 0; th < t->nthreads; th++) {
		const struct lt_thread *tt = &t->threads[th];

		for (j = 0; j < tt->nparams; j++) {
			const char *pn = tt->params[j].name, *s = tt->body, *end = tt->body + tt->body_len;
			size_t n = strlen(pn);

			if (tt->params[j].var != vi)
				continue;
			if (first < 0)
				first = th;
			while ((s = memmem(s, (size_t)(end - s), pn, n))) {
				const char *a = s + n;
				const char *b = s;

				s += n;
				while (a < end && (*a == ' ' || *a == '\t'))
					a++;
				if (a >= end || *a != ',')
					continue;
				while (b > tt->body && (b[-1] == ' ' || b[-1] == '\t'))
					b--;
				if (b > tt->body && b[-1] == '*')
					b--;
				while (b > tt->body && (b[-1] == ' ' || b[-1] == '\t'))
					b--;
				if (b > tt->body && b[-1] == '(')
					return th;
			}
		}
	}
	return first < 0 ? 0 : first;
}

static int col_of(const struct test *T, int thread, int index)
{
	int c;

	for (c = 0; c < T->ncols; c++)
		if (T->cols[c].thread == thread && T->cols[c].index == index)
			return c;
	return -1;
}

/* The type each register of thread th is declared with at the top of the thread. */
char **reg_types(const struct test *T, const struct lt_thread *th)
{
	char **types = xmalloc(sizeof(*types) * (size_t)(th->nregs + 1));
	int *declared = xmalloc(sizeof(*declared) * (size_t)(th->nregs + 1));
	int j, pass;

	for (j = 0; j < th->nregs; j++) {
		const struct lt_reg *r = &th->regs[j];

		types[j] = NULL;
		declared[j] = 0;
		if (r->declared) {
			char *c = strip_cv(r->type);

			types[j] = widen(T, c);
			free(c);
			if (!r->is_ptr && reg_dereferenced(th, r->name) && !holds_address(types[j])) {
				/* herd lets an integer register hold an address and use it (addr_cast()) */
				free(types[j]);
				types[j] = xstrdup("long");
			}
			declared[j] = !r->is_ptr && reg_dereferenced(th, r->name) ? 2 : 1;
		} else if (!r->assign_len) {
			/* only the init block names it */
			types[j] = xstrdup(r->has_init && r->init_ptr >= 0 ? "intptr_t" : T->wide ? "long" : "int");
			declared[j] = !r->is_ptr && reg_dereferenced(th, r->name) ? 2 : 1;
		}
	}
	/* Undeclared, assigned: the type of their first right-hand side, in body order. */
	for (pass = 0; pass < th->nregs; pass++) {
		int best = -1;

		for (j = 0; j < th->nregs; j++)
			if (!types[j] && (best < 0 || th->regs[j].assign_at < th->regs[best].assign_at))
				best = j;
		if (best < 0)
			break;
		if (reg_dereferenced(th, th->regs[best].name)) {
			/* herd's registers are untyped: one the thread uses as an address holds one */
			types[best] = xstrdup("long");
			declared[best] = 2;
			continue;
		}
		if (rhs_typeable(th, &th->regs[best], declared)) {
			struct sbuf b = { 0 };

			sb_printf(&b, "__typeof__((%.*s) + 0)", (int)th->regs[best].assign_len,
				  th->body + th->regs[best].assign_at);
			types[best] = b.s;
		} else {
			types[best] = xstrdup("intptr_t");
		}
		declared[best] = 1;
	}
	free(declared);
	return types;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The body of thread th at its own line and column, the type words of its
 * declarations blanked (the registers are declared above it), and "(long *)"
 * before each use as an address of an integer register (reg_addr_uses():
 * "*r8", "smp_load_acquire(r8)"): herd's registers are untyped, and one
 * declared int may hold an address (in a widened test, every int cell is a
 * long).  The register keeps its integer type, so its arithmetic
 * (r8 = x + (r0 - r0)) stays as written, and the conversion is a no-op: the
 * dependency stays.
 */
void emit_body(struct sbuf *b, const struct test *T, const struct lt_thread *th, char **types)
{
	size_t off = 0, *casts;
	int j, c, ncast;

	emit_line_directive(b, th->body_line, T->path);
	for (j = 1; j < th->body_col; j++)
		sb_puts(b, " ");
	ncast = 0;
	for (j = 0; j < th->nregs; j++)
		if (!th->regs[j].is_ptr && !strchr(types[j], '*'))
			ncast += reg_addr_uses(th, th->regs[j].name, NULL, 0);
	casts = xmalloc(sizeof(*casts) * (size_t)(ncast + 1));
	ncast = 0;
	for (j = 0; j < th->nregs; j++)
		if (!th->regs[j].is_ptr && !strchr(types[j], '*'))
			ncast += reg_addr_uses(th, th->regs[j].name, casts + ncast, INT_MAX);
	qsort(casts, (size_t)ncast, sizeof(*casts), cmp_size);
	for (j = 0, c = 0; j < th->nblanks || c < ncast;) {
		if (j < th->nblanks && (c == ncast || th->blanks[j].off <= casts[c])) {
			size_t s = th->blanks[j].off, n = th->blanks[j].len;

			sb_add(b, th->body + off, s - off);
			for (off = s; off < s + n; off++)
				sb_add(b, th->body[off] == '\n' ? "\n" : " ", 1);
			j++;
		} else {
			sb_add(b, th->body + off, casts[c] - off);
			off = casts[c++];
			sb_puts(b, "(long *)");
		}
	}
	free(casts);
	sb_add(b, th->body + off, th->body_len - off);
	sb_puts(b, "\n");
}

static void generate_thread(struct sbuf *b, const struct test *T, int k, int i)
{
	const struct lt_test *t = T->lt;
	const struct lt_thread *th = &t->threads[i];
	char **types = reg_types(T, th);
	int j, c;

	/* The observed registers' values per iteration (a type of the body's, __typeof__, cannot be named here). */
	for (j = 0; j < th->nregs; j++)
		if ((c = col_of(T, i, j)) >= 0)
			sb_printf(b, "static %s kl%d_r%d_%d[KL_BMAX] __attribute__((aligned(64)));\n",
				  typeof_type(types[j]) ? "intptr_t" : types[j], k, i, j);
	sb_printf(b, "static inline __attribute__((always_inline)) void kl%d_P%d(long kl_i", k, i);
	for (j = 0; j < th->nparams; j++) {
		char *pt = widen(T, th->params[j].type);

		sb_printf(b, ", %s%s%s", pt, pt[strlen(pt) - 1] == '*' ? "" : " ", th->params[j].name);
		free(pt);
	}
	sb_printf(b, ")\n{\n\tconst int kl_tid = %d;\n", i);
	for (j = 0; j < th->nregs; j++) {
		const struct lt_reg *r = &th->regs[j];

		sb_printf(b, "\t%s %s = ", types[j], r->name);
		emit_value(b, k, types[j], r->has_init ? r->init_ptr : -1, r->has_init ? r->init_val : 0, "kl_i", "off");
		sb_puts(b, ";\n");
	}
	emit_body(b, T, th, types);
	for (j = 0; j < th->nregs; j++)
		if (col_of(T, i, j) >= 0)
			sb_printf(b, "\tkl%d_r%d_%d[kl_i] = %s%s;\n", k, i, j, typeof_type(types[j]) ? "(intptr_t)" : "",
				  th->regs[j].name);
	sb_puts(b, "\t(void)kl_i;\n\t(void)kl_tid;\n}\n");
	emit_line_directive(b, sb_lines(b) + 1, "harness.c");
	for (j = 0; j < th->nregs; j++)
		free(types[j]);
	free(types);
}

/* The code of test T as test k of a program. */
static void generate_test(struct sbuf *b, const struct test *T, int k)
{
	const struct lt_test *t = T->lt;
	int i, j, nv = t->nvars;

	sb_printf(b, "\n/* ---- test %d: %s (%s) */\n", k, t->name, T->path);
	sb_printf(b, "static long kl%d_off[%d], kl%d_noff[%d];\n", k, nv + 1, k, nv + 1);
	/* Cells: KL_SPREAD spare ones per variable, so each batch can start each
	 * variable's cells at a different offset (a new relative layout). */
	for (i = 0; i < nv; i++) {
		char *ty = widen(T, t->vars[i].type);

		sb_printf(b, "struct kl%d_cell%d { %s v; } __attribute__((aligned(64)));\n"
			  "static struct kl%d_cell%d kl%d_c%d[KL_BMAX + KL_SPREAD];\n",
			  k, i, ty, k, i, k, i);
		free(ty);
	}
	/* Reset of a range of iterations: zero, then the init block. */
	sb_printf(b, "static void kl%d_reset(int t, long lo, long hi)\n{\n\tlong i;\n\n\t(void)i;\n", k);
	for (i = 0; i < nv; i++) {
		sb_printf(b, "\tif (t < 0 || t == %d)\n\t\tmemset(&", var_home(t, i));
		emit_cell(b, k, i, "lo", "noff");
		sb_printf(b, ", 0, (size_t)(hi - lo) * sizeof(*kl%d_c%d));\n", k, i);
	}
	for (i = 0; i < nv; i++) {
		const struct lt_var *v = &t->vars[i];
		char *ty;

		if (!v->has_init || (v->init_ptr < 0 && v->init_val == 0))
			continue;
		ty = widen(T, v->type);
		sb_printf(b, "\tif (t < 0 || t == %d)\n", var_home(t, i));
		sb_printf(b, "\tfor (i = lo; i < hi; i++)\n\t\t");
		emit_cell(b, k, i, "i", "noff");
		if (v->kind == LT_ATOMIC)
			sb_printf(b, ".v.counter = %lldLL;\n", v->init_val);
		else {
			sb_puts(b, ".v = ");
			emit_value(b, k, ty, v->init_ptr, v->init_val, "i", "noff");
			sb_puts(b, ";\n");
		}
		free(ty);
	}
	sb_puts(b, "}\n");
	/* Which variable's cell of iteration i an address is, or -1. */
	sb_printf(b, "static int kl%d_addr(long i, uintptr_t p)\n{\n", k);
	for (i = 0; i < nv; i++) {
		sb_printf(b, "\tif (p == (uintptr_t)&");
		emit_cell(b, k, i, "i", "off");
		sb_printf(b, ".v)\n\t\treturn %d;\n", i);
	}
	sb_puts(b, "\t(void)i;\n\t(void)p;\n\treturn -1;\n}\n");
	/* A test that may leave a lock held: lock waits can abandon the iteration (harness-head.h). */
	if (T->orphan)
		sb_puts(b, "#define ka_spin_lock(l) KL_ORPHAN_WAIT((l), 0)\n"
			   "#define ka_spin_unlock_wait(l) KL_ORPHAN_WAIT((l), 1)\n");
	for (i = 0; i < t->nthreads; i++)
		generate_thread(b, T, k, i);
	if (T->orphan)
		sb_puts(b, "#undef ka_spin_lock\n#undef ka_spin_unlock_wait\n");
	sb_printf(b, "static void kl%d_run(int t, long lo, long hi)\n{\n\tlong i;\n\n\tswitch (t) {\n", k);
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];

		sb_printf(b, "\tcase %d:\n\t\tfor (i = lo; i < hi; i++) {\n\t\t\tkl%d_P%d(i", i, k, i);
		for (j = 0; j < th->nparams; j++) {
			char *pt = widen(T, th->params[j].type);

			sb_printf(b, ", (%s)&", pt);
			emit_cell(b, k, th->params[j].var, "i", "off");
			sb_puts(b, ".v");
			free(pt);
		}
		sb_puts(b, ");\n");
		if (T->orphan)
			sb_printf(b, "\t\t\tKL_DONE(%d, i);\n", i);
		sb_puts(b, "\t\t}\n\t\tbreak;\n");
	}
	sb_puts(b, "\t}\n}\n");
	/* The final state of iteration i: the values of the observed locations. */
	sb_printf(b, "static void kl%d_state(long i, long long *s)\n{\n", k);
	for (i = 0; i < T->ncols; i++) {
		const struct lt_loc *l = &T->cols[i];

		sb_printf(b, "\ts[%d] = ", i);
		if (l->thread >= 0) {
			sb_printf(b, "KL_VAL(kl%d_addr, i, kl%d_r%d_%d[i]);\n", k, k, l->thread, l->index);
			continue;
		}
		switch (t->vars[l->index].kind) {
		case LT_ATOMIC:
			sb_puts(b, "(long long)");
			emit_cell(b, k, l->index, "i", "off");
			sb_puts(b, ".v.counter;\n");
			break;
		case LT_LOCK:
			sb_puts(b, "spin_is_locked(&");
			emit_cell(b, k, l->index, "i", "off");
			sb_puts(b, ".v);\n");
			break;
		case LT_SRCU:
			sb_puts(b, "0;\n");
			break;
		default:
			sb_printf(b, "KL_VAL(kl%d_addr, i, ", k);
			emit_cell(b, k, l->index, "i", "off");
			sb_puts(b, ".v);\n");
		}
	}
	if (!T->ncols)
		sb_puts(b, "\ts[0] = 0;\n");
	sb_puts(b, "\t(void)i;\n}\n");
	sb_printf(b, "static const struct kl_test kl%d_test = {\n\t", k);
	emit_c_string(b, t->name);
	sb_printf(b, ", %d, %d, %d, %d, %d, %d,\n\tkl%d_off, kl%d_noff, kl%d_reset, kl%d_run, kl%d_state\n};\n",
		  t->nthreads, T->ncols ? T->ncols : 1, nv, T->grace, T->urcu, T->orphan, k, k, k, k, k);
}

char *generate_program(struct test *const *tests, int n, int urcu)
{
	struct sbuf b = { 0 };
	int i;

	sb_printf(&b, "/* katomic-litmus harness program (generated): %d test%s */\n", n, n == 1 ? "" : "s");
	sb_printf(&b, "#define _GNU_SOURCE\n");
	if (urcu)
		sb_printf(&b, "#define KL_URCU %s\n", opt.rcu);
	sb_printf(&b, "#include <katomic/katomic.h>\n%s", kl_rt_head);
	/* Mutations: replace a primitive by another, e.g. smp_mb=barrier. */
	for (i = 0; i < opt.nmutate; i++) {
		const char *eq = strchr(opt.mutate[i], '=');

		sb_printf(&b, "#undef %.*s\n#define %.*s(...) %s(__VA_ARGS__)\n",
			  (int)(eq - opt.mutate[i]), opt.mutate[i], (int)(eq - opt.mutate[i]),
			  opt.mutate[i], eq + 1);
	}
	for (i = 0; i < n; i++)
		generate_test(&b, tests[i], i);
	sb_puts(&b, "\nstatic const struct kl_test *const kl_tests[] = {\n");
	for (i = 0; i < n; i++)
		sb_printf(&b, "\t&kl%d_test,\n", i);
	sb_printf(&b, "};\n#define KL_NTESTS %d\n%s", n, kl_rt_main);
	return b.s;
}
