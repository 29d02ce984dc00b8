/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus --emit-verify DIR: the input of `katomic verify`.  For each
 * test, DIR/tN.c holds its threads as C functions P0, P1, ... (external,
 * never inlined), compiled by the verifier for every target; DIR/tests.json
 * describes the tests: shared variables and their initial values, each
 * thread's parameters (in argument order), the registers it observes (in
 * "slot" order), and the filter, final clause and locations clause with each
 * register written %T:K% (thread T, slot K), which the verifier renames into
 * the target's machine registers.
 *
 * An observed register leaves its function in a machine register of the
 * verifier's choosing: a local register variable named by KV_REG(NP, K)
 * (the verifier's kv-head.h defines KV_REG_<NP>_<K> per target, NP being the
 * number of arguments, so that no argument register is taken) and an empty
 * asm that reads it after the body.  So the final value of r0 is the final
 * value of one machine register, with no store of the harness's in the code.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(enum lt_kind k)
{
	switch (k) {
	case LT_PTR:
		return "pointer";
	case LT_ATOMIC:
		return "atomic";
	case LT_LOCK:
		return "lock";
	case LT_SRCU:
		return "srcu";
	default:
		return "scalar";
	}
}

/* Slot of register index of thread th among its observed registers, or -1. */
static int obs_slot(const struct test *T, int th, int index)
{
	int c, k = 0;

	for (c = 0; c < T->ncols; c++) {
		if (T->cols[c].thread != th)
			continue;
		if (T->cols[c].index == index)
			return k;
		k++;
	}
	return -1;
}

static void loc_text(const struct test *T, const struct lt_loc *l, struct sbuf *b)
{
	if (l->thread >= 0)
		sb_printf(b, "%%%d:%d%%", l->thread, obs_slot(T, l->thread, l->index));
	else
		sb_puts(b, T->lt->vars[l->index].name);
}

/* A condition in herd's syntax, registers as %T:K%. */
static void expr_text(const struct test *T, const struct lt_expr *e, struct sbuf *b)
{
	switch (e->kind) {
	case LT_E_TRUE:
		sb_puts(b, "true");
		break;
	case LT_E_FALSE:
		sb_puts(b, "false");
		break;
	case LT_E_NOT:
		sb_puts(b, "~(");
		expr_text(T, e->a, b);
		sb_puts(b, ")");
		break;
	case LT_E_AND:
	case LT_E_OR:
		sb_puts(b, "(");
		expr_text(T, e->a, b);
		sb_puts(b, e->kind == LT_E_AND ? " /\\ " : " \\/ ");
		expr_text(T, e->b, b);
		sb_puts(b, ")");
		break;
	case LT_E_ATOM:
		loc_text(T, &e->loc, b);
		sb_puts(b, "=");
		if (e->val.is_loc)
			loc_text(T, &e->val.loc, b);
		else if (e->val.is_sym)
			sb_puts(b, e->val.var >= 0 ? T->lt->vars[e->val.var].name : "0");
		else
			sb_printf(b, "%lld", e->val.num);
		break;
	}
}

static void json_expr(FILE *f, const struct test *T, const struct lt_expr *e)
{
	struct sbuf b = { 0 };

	if (!e) {
		fputs("null", f);
		return;
	}
	expr_text(T, e, &b);
	json_str(f, b.s);
	free(b.s);
}

static void write_unit(const struct test *T, const char *path)
{
	const struct lt_test *t = T->lt;
	struct sbuf b = { 0 };
	FILE *f;
	int i, j;

	sb_printf(&b, "/* katomic verify unit (generated from %s): test %s */\n#include \"kv-head.h\"\n", T->path,
		  t->name);
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];
		char **types = reg_types(T, th);
		int np = th->nparams, nobs = 0;

		sb_printf(&b, "\nKV_THREAD void P%d(", i);
		for (j = 0; j < th->nparams; j++) {
			char *pt = widen(T, th->params[j].type);

			sb_printf(&b, "%s%s%s%s", j ? ", " : "", pt, pt[strlen(pt) - 1] == '*' ? "" : " ",
				  th->params[j].name);
			free(pt);
		}
		/* A register the init block points at a variable: one more argument. */
		for (j = 0; j < th->nregs; j++)
			if (th->regs[j].has_init && th->regs[j].init_ptr >= 0)
				sb_printf(&b, "%sintptr_t kv_init_%s", np++ ? ", " : "", th->regs[j].name);
		sb_printf(&b, "%s)\n{\n", np ? "" : "void");
		for (j = 0; j < th->nregs; j++) {
			const struct lt_reg *r = &th->regs[j];

			if (r->has_init && r->init_ptr >= 0)
				sb_printf(&b, "\t%s %s = (%s)kv_init_%s;\n", types[j], r->name, types[j], r->name);
			else
				sb_printf(&b, "\t%s %s = (%s)%lldLL;\n", types[j], r->name, types[j],
					  r->has_init ? r->init_val : 0);
		}
		emit_body(&b, T, th, types);
		sb_puts(&b, "\t{\n");
		for (j = 0; j < th->nregs; j++) {
			int k = obs_slot(T, i, j);

			if (k < 0)
				continue;
			/* The register's own type (an untyped one's is its first value's): a
			 * wider one makes the compiler sign-extend an int (movslq, extsw), which
			 * herd7's X86_64 and PPC do not have. */
			sb_printf(&b, "\t\tregister __typeof__(%s) kv_o%d __asm__(KV_REG(%d, %d)) = %s;\n",
				  th->regs[j].name, k, np, k, th->regs[j].name);
			nobs++;
		}
		sb_puts(&b, "\t\t__asm__ __volatile__(\"\"");
		for (j = 0; j < nobs; j++)
			sb_printf(&b, "%s \"r\"(kv_o%d)", j ? "," : " ::", j);
		sb_puts(&b, ");\n\t}\n");
		for (j = 0; j < th->nregs; j++)
			sb_printf(&b, "\t(void)%s;\n", th->regs[j].name);
		sb_puts(&b, "}\n");
		for (j = 0; j < th->nregs; j++)
			free(types[j]);
		free(types);
	}
	f = fopen(path, "w");
	if (!f || fwrite(b.s, 1, b.n, f) != b.n || fclose(f))
		die("%s: %s", path, strerror(errno));
	free(b.s);
}

static void write_json(FILE *f, const struct test *T, int n)
{
	const struct lt_test *t = T->lt;
	int i, j;

	fprintf(f, "{\"unit\": \"t%d.c\", \"path\": ", n);
	json_str(f, T->path);
	fputs(", \"name\": ", f);
	json_str(f, t->name);
	fprintf(f, ", \"result\": \"%s\", \"datarace\": %s, \"wide\": %s,\n  \"not_taken\": ",
		lt_result_name(t->result), t->datarace ? "true" : "false", T->wide ? "true" : "false");
	if (T->unjudged)
		json_str(f, T->unjudged);
	else
		fputs("null", f);
	fputs(",\n  \"vars\": [", f);
	for (i = 0; i < t->nvars; i++) {
		const struct lt_var *v = &t->vars[i];

		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, v->name);
		fputs(", \"type\": ", f);
		json_str(f, v->type ? v->type : "int");
		fprintf(f, ", \"kind\": \"%s\", \"init\": ", kind_name(v->kind));
		if (v->has_init && v->init_ptr >= 0)
			json_str(f, t->vars[v->init_ptr].name);
		else
			fprintf(f, "%lld", v->has_init ? v->init_val : 0);
		fputs("}", f);
	}
	fputs("],\n  \"threads\": [", f);
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];
		int first = 1;

		fprintf(f, "%s{\"id\": %d, \"args\": [", i ? ",\n    " : "", th->id);
		for (j = 0; j < th->nparams; j++) {
			fprintf(f, "%s", j ? ", " : "");
			json_str(f, t->vars[th->params[j].var].name);
		}
		for (j = 0; j < th->nregs; j++)
			if (th->regs[j].has_init && th->regs[j].init_ptr >= 0) {
				fprintf(f, "%s", th->nparams || !first ? ", " : "");
				json_str(f, t->vars[th->regs[j].init_ptr].name);
				first = 0;
			}
		fputs("], \"observed\": [", f);
		first = 1;
		for (j = 0; j < th->nregs; j++) {
			if (obs_slot(T, i, j) < 0)
				continue;
			fprintf(f, "%s", first ? "" : ", ");
			json_str(f, th->regs[j].name);
			first = 0;
		}
		fputs("], \"body\": ", f);
		{
			char *body = xmalloc(th->body_len + 1);

			memcpy(body, th->body, th->body_len);
			body[th->body_len] = 0;
			json_str(f, body);
			free(body);
		}
		fputs("}", f);
	}
	fputs("],\n  \"observed\": [", f);
	for (i = 0; i < T->ncols; i++) {
		struct sbuf b = { 0 };
		char src[160];

		lt_loc_format(t, &T->cols[i], src, sizeof(src));
		loc_text(T, &T->cols[i], &b);
		fprintf(f, "%s[", i ? ", " : "");
		json_str(f, src);
		fputs(", ", f);
		json_str(f, b.s);
		fputs("]", f);
		free(b.s);
	}
	fputs("],\n  \"locations\": [", f);
	for (i = 0; i < t->nlocs; i++) {
		struct sbuf b = { 0 };

		loc_text(T, &t->locs[i], &b);
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, b.s);
		free(b.s);
	}
	fprintf(f, "],\n  \"quant\": \"%s\", \"cond\": ",
		t->quant == LT_Q_EXISTS ? "exists" : t->quant == LT_Q_NOT_EXISTS ? "~exists" : "forall");
	json_expr(f, T, t->cond);
	fputs(", \"filter\": ", f);
	json_expr(f, T, t->filter);
	fputs("}", f);
}

int emit_verify(struct test *tests, int n, const char *dir)
{
	char path[PATH_MAX];
	FILE *f;
	int i, first = 1, bad = 0;

	if (mkdir_p(dir))
		die("cannot create %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/tests.json", dir);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	fputs("[\n", f);
	for (i = 0; i < n; i++) {
		char unit[PATH_MAX + 16];

		if (!first)
			fputs(",\n", f);
		first = 0;
		if (!tests[i].lt) {
			/* unreadable or malformed: its one-line error, for the verifier's table */
			fputs("{\"path\": ", f);
			json_str(f, tests[i].path);
			fputs(", \"error\": ", f);
			json_str(f, tests[i].error ? tests[i].error : "unreadable");
			fputs("}", f);
			bad++;
			continue;
		}
		snprintf(unit, sizeof(unit), "%s/t%d.c", dir, i);
		write_unit(&tests[i], unit);
		write_json(f, &tests[i], i);
	}
	fputs("\n]\n", f);
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
	return bad;
}
