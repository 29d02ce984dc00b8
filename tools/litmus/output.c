/* SPDX-License-Identifier: MIT */
/* katomic-litmus output: a test's histogram and verdict as text (herd7/litmus7 style) or JSON. */
#define _GNU_SOURCE
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PASS: return "PASS";
	case V_NOTSEEN: return "PASS (not seen)";
	case V_FAIL: return "FAIL";
	case V_ERROR: return "ERROR";
	case V_SKIP: return "SKIP";
	case V_UNJUDGED: return "UNJUDGED";
	case V_DATARACE: return "DATARACE";
	default: return "PARSE ERROR";
	}
}

/* A value as herd prints it: the name of the variable whose address it is, or the number. */
void format_val(const struct test *T, long long v, char *buf, size_t size)
{
	if (v >= LT_ADDR(0) && v < LT_ADDR(T->lt->nvars))
		snprintf(buf, size, "%s", T->lt->vars[v - LT_ADDR(0)].name);
	else
		snprintf(buf, size, "%lld", v);
}

static void format_state(const struct test *T, const long long *v, struct sbuf *b)
{
	int c;

	for (c = 0; c < T->ncols; c++) {
		char loc[128], val[128];

		lt_loc_format(T->lt, &T->cols[c], loc, sizeof(loc));
		format_val(T, v[c], val, sizeof(val));
		sb_printf(b, "%s%s=%s;", c ? " " : "", loc, val);
	}
}

static const struct test *sort_T;
static int cmp_state(const void *a, const void *b)
{
	const struct state *x = a, *y = b;
	int c;

	for (c = 0; c < sort_T->ncols; c++)
		if (x->vals[c] != y->vals[c])
			return x->vals[c] < y->vals[c] ? -1 : 1;
	return 0;
}

static const char *expected_text(const struct test *T)
{
	return T->expected ? T->expected : lt_result_name(T->lt->result);
}

/* Which oracle judged the test, and where herd7 and the file's comment part. */
static void print_oracle(const struct test *T)
{
	const char *comment = lt_result_name(T->lt->result);

	if (T->oracle_note)
		printf("Oracle Result: comment (herd7 did not judge: %s)\n", T->oracle_note);
	else if (T->judged_by && !strcmp(T->judged_by, "herd7"))
		printf("Oracle herd7 with LKMM: %s%s; %lld iterations in states LKMM forbids%s%s%s\n", T->herd_expected,
		       T->verdict == V_DATARACE ? " DATARACE" : "", T->forbidden,
		       T->oracle_skipped ? " (not compared: " : "", T->oracle_skipped ? T->oracle_skipped : "",
		       T->oracle_skipped ? ", SRCU indices: the implementation's values)" : "");
	if (T->disagrees)
		printf("Disagreement %s: the file's Result: comment says %s%s, herd7 says %s%s\n", T->lt->name,
		       comment, T->lt->datarace ? " DATARACE" : "", T->herd_expected,
		       T->verdict == V_DATARACE ? " DATARACE" : "");
}

void print_text(struct test *T)
{
	const struct lt_test *t = T->lt;
	int k;

	printf("Test %s %s%s (%s)\n", t->name, expected_text(T), t->datarace ? " DATARACE" : "", T->path);
	if (T->verdict == V_SKIP) {
		printf("Skipped: %s\n\n", T->skip);
		return;
	}
	if (T->verdict == V_ERROR) {
		printf("Error: %s\n\n", T->error ? T->error : "?");
		return;
	}
	if (T->unjudged) {
		printf("Unjudged: %s\nVerdict %s UNJUDGED (expected %s, not run)\n\n", T->unjudged, t->name,
		       expected_text(T));
		return;
	}
	if (T->deadlock && T->discarded > 0 && T->discarded >= T->iters) {
		printf("Deadlock: no complete iteration: in every one of the %lld, a thread waited for a lock "
		       "whose holder had finished without releasing it\n", T->iters);
	} else if (T->deadlock) {
		printf("Deadlock: no batch of iterations completed in %g s (%lld iterations before)\n", opt.deadline,
		       T->iters);
	} else {
		sort_T = T;
		qsort(T->states, (size_t)T->nstates, sizeof(*T->states), cmp_state);
		printf("Histogram (%d states)\n", T->nstates);
		for (k = 0; k < T->nstates; k++) {
			struct sbuf b = { 0 };
			const long long *v = T->states[k].vals;
			int f = in_filter(T, v), w = f && eval(T, t->cond, v);

			format_state(T, v, &b);
			printf("%-12lld%s>%s%s\n", T->states[k].count, !f ? "#" : w ? "*" : ":", b.s ? b.s : "",
			       !f ? "  (filtered out)" : T->states[k].forbidden ? "  (forbidden by LKMM: herd7)" : "");
			free(b.s);
		}
		printf("Witnesses\nPositive: %lld, Negative: %lld\n", T->pos, T->neg);
		if (t->filter)
			printf("Filter applied\n");
	}
	if (T->discarded > 0 && !T->deadlock)
		printf("Discarded: %lld of %lld iterations (%.4f%%): a thread waited for a lock whose holder had "
		       "finished without releasing it; herd counts complete executions only\n",
		       T->discarded, T->iters, 100.0 * (double)T->discarded / (double)T->iters);
	printf("Condition %s\n", t->cond_text);
	printf("Observation %s %s %lld %lld\n", t->name, T->observation, T->pos, T->neg);
	if (!T->deadlock)
		printf("Rate %s %lld iterations in %.3f s: %.2fM iter/s (loop %.2fM iter/s), witnesses %.4f%% (%s, %s%s)\n",
		       t->name, T->iters, T->secs, T->secs > 0 ? (double)T->iters / T->secs / 1e6 : 0.0,
		       T->loop_secs > 0 ? (double)T->iters / T->loop_secs / 1e6 : 0.0,
		       T->pos + T->neg ? 100.0 * (double)T->pos / (double)(T->pos + T->neg) : 0.0,
		       opt.backend, opt.cc, T->urcu ? ", liburcu" : "");
	print_oracle(T);
	printf("Verdict %s %s (expected %s by %s, observed %s)\n\n", t->name, verdict_name(T->verdict),
	       expected_text(T), T->judged_by ? T->judged_by : "nobody", T->observation);
}

void print_json_head(void)
{
	printf("{\"schema\":\"katomic-litmus\",\"version\":1,\"backend\":");
	json_str(stdout, opt.backend);
	printf(",\"cc\":");
	json_str(stdout, opt.cc);
	if (opt.parse_only)
		printf(",\"parse_only\":true");
	printf(",\"deadline_seconds\":%g,\"tests\":[", opt.deadline);
}

/* One test per line (consumers read it line by line). */
void print_json_test(struct test *T, int first)
{
	int k, c;

	printf("%s\n{\"file\":", first ? "" : ",");
	json_str(stdout, T->path);
	if (T->verdict == V_PARSE) {
		printf(",\"verdict\":\"parse error\",\"error\":");
		json_str(stdout, T->error ? T->error : "");
		printf("}");
		return;
	}
	printf(",\"name\":");
	json_str(stdout, T->lt->name);
	printf(",\"expected\":");
	json_str(stdout, expected_text(T));
	printf(",\"datarace\":%s,\"threads\":%d", T->lt->datarace ? "true" : "false", T->lt->nthreads);
	if (opt.parse_only) {
		printf(",\"verdict\":\"parsed\"}");
		return;
	}
	printf(",\"verdict\":");
	json_str(stdout, T->verdict == V_NOTSEEN ? "not seen" : verdict_name(T->verdict));
	if (T->verdict == V_SKIP || T->verdict == V_ERROR || T->unjudged) {
		printf(",\"reason\":");
		json_str(stdout, T->skip ? T->skip : T->error ? T->error : T->unjudged);
		printf("}");
		return;
	}
	printf(",\"condition\":");
	json_str(stdout, T->lt->cond_text);
	printf(",\"observation\":\"%s\",\"positive\":%lld,\"negative\":%lld", T->observation, T->pos, T->neg);
	printf(",\"iterations\":%lld,\"seconds\":%.6f,\"loop_seconds\":%.6f,\"iterations_per_second\":%.0f,"
	       "\"loop_iterations_per_second\":%.0f,\"rcu\":%s,\"witness_rate\":%.6f",
	       T->iters, T->secs, T->loop_secs, T->secs > 0 ? (double)T->iters / T->secs : 0.0,
	       T->loop_secs > 0 ? (double)T->iters / T->loop_secs : 0.0, T->urcu ? "\"liburcu\"" : "null",
	       T->pos + T->neg ? (double)T->pos / (double)(T->pos + T->neg) : 0.0);
	if (T->orphan)
		printf(",\"discarded\":%lld", T->discarded);
	printf(",\"judged_by\":");
	if (T->judged_by)
		json_str(stdout, T->judged_by);
	else
		printf("null");
	printf(",\"comment\":");
	json_str(stdout, lt_result_name(T->lt->result));
	printf(",\"forbidden\":%lld", T->forbidden);
	if (T->oracle_note) {
		printf(",\"herd7\":{\"error\":");
		json_str(stdout, T->oracle_note);
		printf("}");
	} else if (T->herd_expected) {
		printf(",\"herd7\":{\"expected\":\"%s\",\"datarace\":%s},\"disagrees\":%s", T->herd_expected,
		       T->verdict == V_DATARACE ? "true" : "false", T->disagrees ? "true" : "false");
	}
	printf(",\"states\":[");
	for (k = 0; k < T->nstates; k++) {
		const long long *v = T->states[k].vals;

		printf("%s{\"count\":%lld,\"witness\":%s,%s\"values\":{", k ? "," : "", T->states[k].count,
		       in_filter(T, v) && eval(T, T->lt->cond, v) ? "true" : "false",
		       T->states[k].forbidden ? "\"forbidden\":true," : "");
		for (c = 0; c < T->ncols; c++) {
			char loc[128], val[128];

			lt_loc_format(T->lt, &T->cols[c], loc, sizeof(loc));
			format_val(T, v[c], val, sizeof(val));
			printf("%s", c ? "," : "");
			json_str(stdout, loc);
			putchar(':');
			json_str(stdout, val);
		}
		printf("}}");
	}
	printf("]}");
}

void print_json_tail(const struct tally *n)
{
	printf("\n],\"passed\":%d,\"failed\":%d,\"not_seen\":%d,\"skipped\":%d,\"bad_input\":%d,"
	       "\"unjudged\":%d,\"datarace\":%d,\"deadlock\":%d,\"judged_by_herd7\":%d,\"judged_by_comment\":%d,"
	       "\"oracle\":%s,\"disagreements\":%d,\"herd7_not_judged\":%d",
	       n->passed, n->failed, n->notseen, n->skipped, n->bad, n->unjudged, n->datarace, n->deadlock,
	       n->by_herd, n->by_comment, opt.oracle ? "true" : "false", n->disagree, n->herd_failed);
	if (opt.parse_only)
		printf(",\"parsed\":%d", n->parsed);
	printf("}\n");
}
