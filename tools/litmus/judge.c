/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus judge: the evaluation of filter and condition on a final
 * state, and the verdict of a histogram (or a deadlock) against the test's
 * expected result (the kernel's rules, docs/litmus.md "Verdicts").
 */
#define _GNU_SOURCE
#include "runner.h"

#include <stdlib.h>

static int find_col(const struct test *T, const struct lt_loc *l)
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
		long long x = v[find_col(T, &e->loc)], y;

		if (e->val.is_loc)
			y = v[find_col(T, &e->val.loc)];
		else if (e->val.is_sym)
			y = e->val.var < 0 ? 0 : LT_ADDR(e->val.var);
		else
			y = e->val.num;
		return x == y;
	}
	}
	return 0;
}

int in_filter(const struct test *T, const long long *v)
{
	return !T->lt->filter || eval(T, T->lt->filter, v);
}

/*
 * With herd7's states (oracle.c) every observed state is judged against
 * them.  Otherwise by the Result: comment: Never/Sometimes/Always and
 * DEADLOCK are judged (a test herd gives executions that does not complete
 * here fails); Maybe, no Result and a test herd flags DATARACE (plain
 * accesses racing: C gives it no meaning) are run and reported only.
 */
void judge(struct test *T)
{
	const struct lt_test *t = T->lt;
	int k;

	T->pos = T->neg = 0;
	T->forbidden = 0;
	/* Every iteration abandoned on a lock never released: no complete execution, as herd's DEADLOCK. */
	if (T->discarded > 0 && T->discarded >= T->iters)
		T->deadlock = 1;
	for (k = 0; k < T->nstates; k++) {
		if (!in_filter(T, T->states[k].vals))
			continue;
		if (eval(T, t->cond, T->states[k].vals))
			T->pos += T->states[k].count;
		else
			T->neg += T->states[k].count;
	}
	T->observation = T->deadlock ? "DEADLOCK" : T->pos == 0 ? "Never" : T->neg == 0 ? "Always" : "Sometimes";
	if (T->oracle && !oracle_judge(T))
		return;
	T->expected = lt_result_name(t->result);
	T->judged_by = "Result:";
	if (t->datarace) {
		T->verdict = V_DATARACE;
		return;
	}
	switch (t->result) {
	case LT_RES_NEVER:
		T->verdict = T->deadlock || T->pos ? V_FAIL : V_PASS;
		break;
	case LT_RES_ALWAYS:
		T->verdict = T->deadlock || T->neg ? V_FAIL : V_PASS;
		break;
	case LT_RES_SOMETIMES:
		T->verdict = T->deadlock ? V_FAIL : T->pos ? V_PASS : V_NOTSEEN;
		break;
	case LT_RES_DEADLOCK:
		/* herd found no allowed execution: the run deadlocks, or no final state passes the filter */
		T->verdict = T->deadlock || (!T->pos && !T->neg) ? V_PASS : V_FAIL;
		break;
	default:
		T->verdict = V_UNJUDGED;
		T->judged_by = NULL;
	}
	/* the comment's forbidden outcome, in iterations */
	if (T->verdict != V_DATARACE && (t->result == LT_RES_NEVER || t->result == LT_RES_ALWAYS))
		T->forbidden = t->result == LT_RES_NEVER ? T->pos : T->neg;
}
