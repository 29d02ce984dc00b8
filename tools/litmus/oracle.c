/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus oracle: the final states herd7 says LKMM allows, per test,
 * read from the file `katomic litmus` writes before it runs the tests
 * (tools/katomic_tools/litmus/oracle.py; --oracle FILE).  A test is found by
 * the FNV-1a hash of its text, so any spelling of its path finds it.
 *
 *   katomic-litmus-oracle 1
 *   test HASH OBSERVATION FLAGS NSTATES     then NSTATES lines:
 *   state LOC=VAL LOC=VAL ...
 *   error HASH MESSAGE                      herd7 could not run the test
 *
 * OBSERVATION is herd7's (Never, Sometimes, Always), FLAGS a comma list of
 * herd7's flags or "-".  Every line is checked: a malformed oracle is a
 * usage error naming its line, never a silent pass.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct oracle_state {
	int n;
	char **locs, **vals;
};

struct oracle_entry {
	uint64_t key;
	char *obs;		/* herd7's observation of the condition */
	int datarace;		/* herd7 flags a data race */
	char *error;		/* herd7 could not run the test: its message */
	int nstates;
	struct oracle_state *states;
};

static struct oracle_entry *entries;
static int nentries;

static int cmp_key(const void *a, const void *b)
{
	const struct oracle_entry *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static uint64_t parse_key(const char *path, int line, const char *s)
{
	char *e;
	uint64_t k;

	errno = 0;
	k = strtoull(s, &e, 16);
	if (errno || e == s || *e)
		die("%s:%d: '%s' is not a test hash", path, line, s);
	return k;
}

void oracle_load(const char *path)
{
	char *text, *save = NULL, *ln;
	size_t len;
	int line = 0, want = 0;
	struct oracle_entry *cur = NULL;

	if (read_file(path, &text, &len))
		die("--oracle %s: %s", path, strerror(errno));
	for (ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		char *w, *ws = NULL;

		line++;
		if (line == 1) {
			if (strcmp(ln, "katomic-litmus-oracle 1"))
				die("%s:1: not a katomic-litmus oracle (version 1)", path);
			continue;
		}
		w = strtok_r(ln, " ", &ws);
		if (!w)
			die("%s:%d: empty line", path, line);
		if (!strcmp(w, "state")) {
			struct oracle_state *s;

			if (!cur || want == 0)
				die("%s:%d: a state outside a test's count", path, line);
			s = &cur->states[cur->nstates++];
			want--;
			while ((w = strtok_r(NULL, " ", &ws))) {
				char *eq = strchr(w, '=');

				if (!eq || eq == w || !eq[1])
					die("%s:%d: '%s' is not LOCATION=VALUE", path, line, w);
				*eq = 0;
				s->locs = xrealloc(s->locs, sizeof(*s->locs) * (size_t)(s->n + 1));
				s->vals = xrealloc(s->vals, sizeof(*s->vals) * (size_t)(s->n + 1));
				s->locs[s->n] = xstrdup(w);
				s->vals[s->n++] = xstrdup(eq + 1);
			}
			continue;
		}
		if (want)
			die("%s:%d: %d state line(s) missing before it", path, line, want);
		entries = xrealloc(entries, sizeof(*entries) * (size_t)(nentries + 1));
		cur = &entries[nentries++];
		memset(cur, 0, sizeof(*cur));
		if (!strcmp(w, "error")) {
			char *k = strtok_r(NULL, " ", &ws);

			if (!k || !ws || !*ws)
				die("%s:%d: error HASH MESSAGE", path, line);
			cur->key = parse_key(path, line, k);
			cur->error = xstrdup(ws);
		} else if (!strcmp(w, "test")) {
			char *k = strtok_r(NULL, " ", &ws), *obs = strtok_r(NULL, " ", &ws);
			char *flags = strtok_r(NULL, " ", &ws), *n = strtok_r(NULL, " ", &ws), *e;
			long c;

			if (!k || !obs || !flags || !n || strtok_r(NULL, " ", &ws))
				die("%s:%d: test HASH OBSERVATION FLAGS NSTATES", path, line);
			cur->key = parse_key(path, line, k);
			if (strcmp(obs, "Never") && strcmp(obs, "Sometimes") && strcmp(obs, "Always"))
				die("%s:%d: '%s' is not an observation (Never, Sometimes, Always)", path, line, obs);
			cur->obs = xstrdup(obs);
			cur->datarace = strstr(flags, "data-race") != NULL;
			c = strtol(n, &e, 10);
			if (*e || c < 0 || c > 1000000)
				die("%s:%d: '%s' is not a number of states", path, line, n);
			want = (int)c;
			cur->states = xmalloc(sizeof(*cur->states) * (size_t)(c ? c : 1));
			memset(cur->states, 0, sizeof(*cur->states) * (size_t)(c ? c : 1));
		} else {
			die("%s:%d: unknown line '%s' (test, state, error)", path, line, w);
		}
	}
	if (line == 0)
		die("%s: empty: not a katomic-litmus oracle", path);
	if (want)
		die("%s:%d: %d state line(s) missing at the end", path, line, want);
	free(text);
	qsort(entries, (size_t)nentries, sizeof(*entries), cmp_key);
}

const struct oracle_entry *oracle_find(const char *src, size_t len)
{
	struct oracle_entry k = { .key = fnv(FNV0, src, len) };

	if (!nentries)
		return NULL;
	return bsearch(&k, entries, (size_t)nentries, sizeof(*entries), cmp_key);
}

/* A value herd printed, as the harness records it: a variable's address or a number. */
static int parse_val(const struct test *T, const char *s, long long *v)
{
	char *e;
	int k;

	for (k = 0; k < T->lt->nvars; k++)
		if (!strcmp(T->lt->vars[k].name, s)) {
			*v = LT_ADDR(k);
			return 0;
		}
	if (!strcmp(s, "NULL")) {
		*v = 0;
		return 0;
	}
	errno = 0;
	*v = strtoll(s, &e, 0);
	return errno || e == s || *e ? -1 : 0;
}

/*
 * herd7's states as rows over the test's columns: vals[c], and known[c] = 0
 * where herd7 printed no value for column c or it holds an SRCU index (such a
 * column is not compared).
 * Returns NULL, with *why set, when a value cannot be read.
 */
struct oracle_rows {
	int n;
	long long *vals;
	unsigned char *known;
};

static struct oracle_rows *rows_of(struct test *T, const struct oracle_entry *o, char **why)
{
	struct oracle_rows *r = xmalloc(sizeof(*r));
	unsigned char *skip = xmalloc((size_t)T->ncols + 1);
	struct sbuf skipped = { 0 };
	int s, c, i;

	for (c = 0; c < T->ncols; c++) {
		/* the index srcu_read_lock() returned: the implementation's value (LKMM's SRCU returns 0) */
		skip[c] = T->cols[c].thread >= 0 &&
			  reg_is_srcu_index(&T->lt->threads[T->cols[c].thread],
					    T->lt->threads[T->cols[c].thread].regs[T->cols[c].index].name);
		if (skip[c]) {
			char loc[128];

			lt_loc_format(T->lt, &T->cols[c], loc, sizeof(loc));
			sb_printf(&skipped, "%s%s", skipped.s ? ", " : "", loc);
		}
	}
	T->oracle_skipped = skipped.s;
	r->n = o->nstates;
	r->vals = xmalloc(sizeof(*r->vals) * (size_t)(o->nstates * T->ncols + 1));
	r->known = xmalloc((size_t)(o->nstates * T->ncols + 1));
	memset(r->known, 0, (size_t)(o->nstates * T->ncols + 1));
	for (c = 0; c < T->ncols; c++) {
		char loc[128];

		if (skip[c])
			continue;
		lt_loc_format(T->lt, &T->cols[c], loc, sizeof(loc));
		for (s = 0; s < o->nstates; s++) {
			for (i = 0; i < o->states[s].n; i++)
				if (!strcmp(o->states[s].locs[i], loc))
					break;
			if (i == o->states[s].n)
				continue;
			if (parse_val(T, o->states[s].vals[i], &r->vals[s * T->ncols + c])) {
				struct sbuf b = { 0 };

				sb_printf(&b, "herd7 printed %s=%s, which names no variable of the test", loc,
					  o->states[s].vals[i]);
				*why = b.s;
				free(r->vals);
				free(r->known);
				free(r);
				free(skip);
				return NULL;
			}
			r->known[s * T->ncols + c] = 1;
		}
	}
	free(skip);
	return r;
}

static int allowed(const struct test *T, const struct oracle_rows *r, const long long *v)
{
	int s, c;

	for (s = 0; s < r->n; s++) {
		for (c = 0; c < T->ncols; c++)
			if (r->known[s * T->ncols + c] && r->vals[s * T->ncols + c] != v[c])
				break;
		if (c == T->ncols)
			return 1;
	}
	return 0;
}

/* Does the file's Result: comment say something else than herd7? */
static void compare_comment(struct test *T, const char *herd_expected)
{
	const struct lt_test *t = T->lt;

	switch (t->result) {
	case LT_RES_NEVER:
	case LT_RES_SOMETIMES:
	case LT_RES_ALWAYS:
	case LT_RES_DEADLOCK:
		T->disagrees = strcmp(lt_result_name(t->result), herd_expected) != 0;
		break;
	default:
		break;
	}
	if (t->datarace != T->oracle->datarace)
		T->disagrees = 1;
}

/*
 * Judge by herd7: every observed state (that passes the filter) must be one
 * LKMM allows; a test LKMM lets finish must finish.  Returns 0 if it judged,
 * -1 if the test is left to its Result: comment (herd7 did not run it, or its
 * states cannot be read: T->oracle_note says why).
 */
int oracle_judge(struct test *T)
{
	const struct oracle_entry *o = T->oracle;
	struct oracle_rows *r;
	char *why = NULL;
	int k;

	if (o->error) {
		T->oracle_note = xstrdup(o->error);
		return -1;
	}
	T->herd_expected = o->nstates ? o->obs : "DEADLOCK";
	compare_comment(T, T->herd_expected);
	r = rows_of(T, o, &why);
	if (!r) {
		T->oracle_note = why;
		return -1;
	}
	T->judged_by = "herd7";
	T->expected = T->herd_expected;
	T->forbidden = 0;
	for (k = 0; k < T->nstates; k++) {
		const long long *v = T->states[k].vals;

		if (!in_filter(T, v) || allowed(T, r, v))
			continue;
		T->states[k].forbidden = 1;
		T->forbidden += T->states[k].count;
	}
	free(r->vals);
	free(r->known);
	free(r);
	if (o->datarace)
		T->verdict = V_DATARACE;
	else if (!o->nstates)	/* LKMM allows no execution: the run deadlocks, or no state passes the filter */
		T->verdict = T->deadlock || (!T->pos && !T->neg) ? V_PASS : V_FAIL;
	else if (T->deadlock || T->forbidden)
		T->verdict = V_FAIL;
	else
		T->verdict = !strcmp(o->obs, "Sometimes") && !T->pos ? V_NOTSEEN : V_PASS;
	return 0;
}
