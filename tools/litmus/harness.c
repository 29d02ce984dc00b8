/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus harness generator: one C program per test, the test's
 * thread bodies inlined into the runtime of harness-head.h/harness-main.h
 * (docs/litmus.md, "Harness technique").
 */
#define _GNU_SOURCE
#include "runner.h"

#include <stdlib.h>
#include <string.h>

/* The harness runtime (harness-head.h, harness-main.h), embedded by embed.awk. */
extern const char kl_rt_head[], kl_rt_main[];

/* A type without const/volatile, for the register arrays. */
static char *strip_cv(const char *type)
{
	struct sbuf b = { 0 };
	const char *s = type;

	while (*s) {
		size_t n = strcspn(s, " ");

		if (!((n == 5 && !memcmp(s, "const", 5)) || (n == 8 && !memcmp(s, "volatile", 8)))) {
			if (b.n)
				sb_add(&b, " ", 1);
			sb_add(&b, s, n);
		}
		s += n;
		while (*s == ' ')
			s++;
	}
	if (!b.s)
		sb_add(&b, "int", 3);
	return b.s;
}

static void emit_line_directive(struct sbuf *b, int line, const char *path)
{
	sb_printf(b, "#line %d \"", line);
	for (; *path; path++) {
		if (*path == '"' || *path == '\\')
			sb_add(b, "\\", 1);
		if ((unsigned char)*path >= 0x20)
			sb_add(b, path, 1);
	}
	sb_add(b, "\"\n", 2);
}

/*
 * The cell of variable var in iteration idx: iteration i of a batch uses cell
 * i + kl_off[var] (offs "kl_off"); the reset prepares the next batch's cells,
 * at kl_noff (see kl_relayout() in harness-main.h).
 */
static void emit_cell(struct sbuf *b, const struct lt_test *t, int var, const char *idx, const char *offs)
{
	sb_printf(b, "kl_c_%s[%s + %s[%d]]", t->vars[var].name, idx, offs, var);
}

static void emit_ptr_value(struct sbuf *b, const struct lt_test *t, const char *type, int var,
			   const char *idx, const char *offs)
{
	if (var < 0) {
		sb_printf(b, "(%s)0", type);
		return;
	}
	sb_printf(b, "(%s)&", type);
	emit_cell(b, t, var, idx, offs);
	sb_printf(b, ".v");
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

void generate(struct test *T)
{
	const struct lt_test *t = T->lt;
	struct sbuf b = { 0 };
	int i, j, k;

	sb_printf(&b, "/* katomic-litmus harness for %s (generated) */\n", t->name);
	sb_printf(&b, "#define _GNU_SOURCE\n%s#include <katomic/katomic.h>\n%s", T->urcu ? "#define KL_URCU 1\n" : "", kl_rt_head);
	/* Mutations: replace a primitive by another, e.g. smp_mb=barrier. */
	for (i = 0; i < opt.nmutate; i++) {
		const char *eq = strchr(opt.mutate[i], '=');

		sb_printf(&b, "#undef %.*s\n#define %.*s(...) %s(__VA_ARGS__)\n",
			  (int)(eq - opt.mutate[i]), opt.mutate[i], (int)(eq - opt.mutate[i]),
			  opt.mutate[i], eq + 1);
	}
	sb_printf(&b, "#define KL_NT %d\n#define KL_NCOL %d\n", t->nthreads, T->ncols ? T->ncols : 1);
	/* Cells: KL_SPREAD spare ones per variable, so each batch can start each
	 * variable's cells at a different offset (a new relative layout). */
	sb_printf(&b, "#define KL_NVARS %d\nstatic long kl_off[KL_NVARS + 1], kl_noff[KL_NVARS + 1];\n", t->nvars);
	for (i = 0; i < t->nvars; i++)
		sb_printf(&b, "struct kl_cell_%s { %s v; } __attribute__((aligned(64)));\n"
			  "static struct kl_cell_%s kl_c_%s[KL_BMAX + KL_SPREAD];\n",
			  t->vars[i].name, t->vars[i].type, t->vars[i].name, t->vars[i].name);
	for (i = 0; i < t->nthreads; i++)
		for (j = 0; j < t->threads[i].nregs; j++) {
			char *ty = strip_cv(t->threads[i].regs[j].type);

			sb_printf(&b, "static %s kl_r_%d_%s[KL_BMAX] __attribute__((aligned(64)));\n", ty, i, t->threads[i].regs[j].name);
			free(ty);
		}
	/* Reset of a range of iterations: zero, then the init block. */
	sb_add(&b, "static void kl_reset(int t, long lo, long hi)\n{\n\tlong i;\n\n\t(void)i;\n", 59);
	for (i = 0; i < t->nvars; i++)
	{
		sb_printf(&b, "\tif (t < 0 || t == %d)\n\t\tmemset(&", var_home(t, i));
		emit_cell(&b, t, i, "lo", "kl_noff");
		sb_printf(&b, ", 0, (size_t)(hi - lo) * sizeof(*kl_c_%s));\n", t->vars[i].name);
	}
	for (i = 0; i < t->nvars; i++) {
		const struct lt_var *v = &t->vars[i];

		if (!v->has_init || (v->kind != LT_PTR && v->init_val == 0) ||
		    (v->kind == LT_PTR && v->init_ptr < 0))
			continue;
		sb_printf(&b, "\tif (t < 0 || t == %d)\n", var_home(t, i));
		sb_printf(&b, "\tfor (i = lo; i < hi; i++)\n\t\t");
		emit_cell(&b, t, i, "i", "kl_noff");
		sb_printf(&b, ".v%s = ", v->kind == LT_ATOMIC ? ".counter" : "");
		if (v->kind == LT_PTR)
			emit_ptr_value(&b, t, v->type, v->init_ptr, "i", "kl_noff");
		else
			sb_printf(&b, "%lldLL", v->init_val);
		sb_add(&b, ";\n", 2);
	}
	sb_add(&b, "}\n", 2);
	/* Pointer identification: 0 NULL, k+1 variable k, -1 elsewhere. */
	sb_add(&b, "static long long kl_ptr_id(long i, const void *p)\n{\n\tif (!p)\n\t\treturn 0;\n", 73);
	for (i = 0; i < t->nvars; i++) {
		sb_printf(&b, "\tif (p == (const void *)&");
		emit_cell(&b, t, i, "i", "kl_off");
		sb_printf(&b, ".v)\n\t\treturn %d;\n", i + 1);
	}
	sb_add(&b, "\t(void)i;\n\treturn -1;\n}\n", 24);
	/* Threads. */
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];
		size_t off = 0;

		sb_printf(&b, "static inline __attribute__((always_inline)) void kl_P%d(long kl_i", i);
		for (j = 0; j < th->nparams; j++)
			sb_printf(&b, ", %s%s%s", th->params[j].type,
				  th->params[j].type[strlen(th->params[j].type) - 1] == '*' ? "" : " ",
				  th->params[j].name);
		sb_add(&b, ")\n{\n", 4);
		emit_line_directive(&b, th->body_line, T->path);
		for (k = 1; k < th->body_col; k++)
			sb_add(&b, " ", 1);
		for (j = 0; j < th->nregs; j++) {
			const struct lt_reg *r = &th->regs[j];

			if (r->zero_at == (size_t)-1)
				continue;
			sb_add(&b, th->body + off, r->zero_at - off);
			off = r->zero_at;
			sb_add(&b, " = ", 3);
			if (r->has_init && r->is_ptr && r->init_ptr >= 0)
				emit_ptr_value(&b, t, r->type, r->init_ptr, "kl_i", "kl_off");
			else
				sb_printf(&b, "(%s)%lldLL", r->type, r->has_init ? r->init_val : 0);
		}
		sb_add(&b, th->body + off, th->body_len - off);
		sb_add(&b, "\n", 1);
		for (j = 0; j < th->nregs; j++)
			sb_printf(&b, "\tkl_r_%d_%s[kl_i] = %s;\n", i, th->regs[j].name, th->regs[j].name);
		sb_add(&b, "\t(void)kl_i;\n}\n", 15);
		emit_line_directive(&b, 1, "harness.c");
	}
	sb_add(&b, "static void kl_run(int t, long lo, long hi)\n{\n\tlong i;\n\n\tswitch (t) {\n", 70);
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];

		sb_printf(&b, "\tcase %d:\n\t\tfor (i = lo; i < hi; i++)\n\t\t\tkl_P%d(i", i, i);
		for (j = 0; j < th->nparams; j++) {
			sb_printf(&b, ", &");
			emit_cell(&b, t, th->params[j].var, "i", "kl_off");
			sb_printf(&b, ".v");
		}
		sb_add(&b, ");\n\t\tbreak;\n", 12);
	}
	sb_add(&b, "\t}\n}\n", 5);
	/* The final state of iteration i. */
	sb_add(&b, "static void kl_state(long i, long long *s)\n{\n", 45);
	for (i = 0; i < T->ncols; i++) {
		const struct lt_loc *l = &T->cols[i];

		if (l->thread >= 0) {
			const struct lt_reg *r = &t->threads[l->thread].regs[l->index];

			if (r->is_ptr)
				sb_printf(&b, "\ts[%d] = kl_ptr_id(i, (const void *)kl_r_%d_%s[i]);\n", i, l->thread, r->name);
			else
				sb_printf(&b, "\ts[%d] = (long long)kl_r_%d_%s[i];\n", i, l->thread, r->name);
		} else {
			const struct lt_var *v = &t->vars[l->index];

			switch (v->kind) {
			case LT_PTR:
				sb_printf(&b, "\ts[%d] = kl_ptr_id(i, (const void *)", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v);\n");
				break;
			case LT_ATOMIC:
				sb_printf(&b, "\ts[%d] = (long long)", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v.counter;\n");
				break;
			case LT_LOCK:
				sb_printf(&b, "\ts[%d] = spin_is_locked(&", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v);\n");
				break;
			default:
				sb_printf(&b, "\ts[%d] = (long long)", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v;\n");
			}
		}
	}
	if (!T->ncols)
		sb_add(&b, "\ts[0] = 0;\n", 11);
	sb_printf(&b, "\t(void)i;\n}\n%s", kl_rt_main);
	T->harness = b.s;
}

