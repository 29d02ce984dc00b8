/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus judge: the observed locations (the histogram's columns), the
 * evaluation of filter and condition on a final state, and the verdict of a
 * histogram against the test's expected result (the kernel's rules).
 */
#define _GNU_SOURCE
#include "runner.h"

#include <stdlib.h>

int col_is_ptr(const struct lt_test *t, const struct lt_loc *l)
{
	if (l->thread >= 0)
		return t->threads[l->thread].regs[l->index].is_ptr;
	return t->vars[l->index].kind == LT_PTR;
}

void add_col(struct test *T, const struct lt_loc *l)
{
	int i;

	for (i = 0; i < T->ncols; i++)
		if (T->cols[i].thread == l->thread && T->cols[i].index == l->index)
			return;
	T->cols = xrealloc(T->cols, sizeof(*T->cols) * (size_t)(T->ncols + 1));
	T->cols[T->ncols++] = *l;
}

void expr_cols(struct test *T, const struct lt_expr *e)
{
	if (!e)
		return;
	if (e->kind == LT_E_ATOM)
		add_col(T, &e->loc);
	expr_cols(T, e->a);
	expr_cols(T, e->b);
}

int find_col(const struct test *T, const struct lt_loc *l)
{
	int i;

	for (i = 0; i < T->ncols; i++)
		if (T->cols[i].thread == l->thread && T->cols[i].index == l->index)
			return i;
	return -1;
}

int eval(const struct test *T, const struct lt_expr *e, const long long *v)
{
	switch (e->kind) {
	case LT_E_TRUE: return 1;
	case LT_E_FALSE: return 0;
	case LT_E_NOT: return !eval(T, e->a, v);
	case LT_E_AND: return eval(T, e->a, v) && eval(T, e->b, v);
	case LT_E_OR: return eval(T, e->a, v) || eval(T, e->b, v);
	case LT_E_ATOM: {
		int c = find_col(T, &e->loc);
		long long x = v[c];

		if (col_is_ptr(T->lt, &e->loc)) {
			if (e->val.is_sym)
				return x == e->val.var + 1;
			return x == 0 && e->val.num == 0;
		}
		return x == e->val.num;
	}
	}
	return 0;
}


int in_filter(const struct test *T, const long long *v)
{
	return !T->lt->filter || eval(T, T->lt->filter, v);
}

void judge(struct test *T)
{
	const struct lt_test *t = T->lt;
	enum lt_result exp = t->result;
	int k;

	T->pos = T->neg = 0;
	for (k = 0; k < T->nstates; k++) {
		if (!in_filter(T, T->states[k].vals))
			continue;
		if (eval(T, t->cond, T->states[k].vals))
			T->pos += T->states[k].count;
		else
			T->neg += T->states[k].count;
	}
	T->observation = T->pos == 0 ? "Never" : T->neg == 0 ? "Always" : "Sometimes";
	if (exp == LT_RES_NONE)
		exp = t->quant == LT_Q_NOT_EXISTS ? LT_RES_NEVER :
		      t->quant == LT_Q_FORALL ? LT_RES_ALWAYS : LT_RES_NONE;
	T->expected = exp == LT_RES_NONE ? "none" : lt_result_name(exp);
	T->verdict = V_PASS;
	if (exp == LT_RES_NEVER && T->pos)
		T->verdict = V_FAIL;
	else if (exp == LT_RES_ALWAYS && T->neg)
		T->verdict = V_FAIL;
	else if (exp == LT_RES_SOMETIMES && !T->pos)
		T->verdict = V_NOTSEEN;
}

