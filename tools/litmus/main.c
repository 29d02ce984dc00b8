/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus: run the kernel's C litmus tests on this machine against the
 * katomic headers.  For each test: parse (parse.c), generate a C harness,
 * compile it (cached by content hash), run it, judge the histogram.
 *
 * Harness technique (docs/litmus.md): every thread walks an array of fresh
 * zeroed cells, each shared variable of each iteration on its own 64-byte
 * line, with no per-iteration handshake; the thread bodies are inlined into
 * the loop and store their registers to per-iteration arrays; threads
 * resynchronise every SYNC iterations with a spinning (then yielding) barrier
 * and a common start time; after a batch each thread folds its share of the
 * iterations into a histogram and zeroes its share of the cells.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct options opt = {
	.backend = "c11", .cc = "gcc", .iterations = -1, .batch = 0, .sync = 0,
	.jobs = 0, .timeout = 600, .rcu_iterations = 50000, .deadline = 5, .group = 32, .rcu = "memb",
};

/* ------------------------------------------------------------ main */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.litmus files of a directory in name order (with --recursive, of its subdirectories too), or a file. */
static void collect(const char *path, char ***files, int *nfiles, int top)
{
	struct stat st;

	if (stat(path, &st))
		die("%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode) && (top || opt.recursive)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char **list = NULL;
		int n = 0, i;

		if (!d)
			die("%s: %s", path, strerror(errno));
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);
			char *p;

			if (e->d_name[0] == '.')
				continue;
			p = xmalloc(strlen(path) + l + 2);
			sprintf(p, "%s/%s", path, e->d_name);
			if ((l > 7 && !strcmp(e->d_name + l - 7, ".litmus")) ||
			    (opt.recursive && !stat(p, &st) && S_ISDIR(st.st_mode))) {
				list = xrealloc(list, sizeof(*list) * (size_t)(n + 1));
				list[n++] = p;
			} else {
				free(p);
			}
		}
		closedir(d);
		if (n)
			qsort(list, (size_t)n, sizeof(*list), cmp_str);
		for (i = 0; i < n; i++) {
			if (!stat(list[i], &st) && S_ISDIR(st.st_mode)) {
				collect(list[i], files, nfiles, 0);
				free(list[i]);
				continue;
			}
			*files = xrealloc(*files, sizeof(**files) * (size_t)(*nfiles + 1));
			(*files)[(*nfiles)++] = list[i];
		}
		free(list);
	} else if (!S_ISDIR(st.st_mode)) {
		*files = xrealloc(*files, sizeof(**files) * (size_t)(*nfiles + 1));
		(*files)[(*nfiles)++] = xstrdup(path);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: katomic-litmus [options] FILE_OR_DIR...\n"
		"  --backend c11|asm     katomic backend (default c11)\n"
		"  --cc gcc|clang|PATH   compiler for the harnesses (default gcc)\n"
		"  --iterations N        iterations per test (default 10000000, or unbounded with --time)\n"
		"  --time S              run each test for S seconds\n"
		"  --json                JSON on stdout\n"
		"  -r, --recursive       directories: also the *.litmus files of their subdirectories\n"
		"  --parse-only          check the files only: no harness is compiled or run\n"
		"  --oracle FILE         judge every observed state by herd7's allowed states (written by\n"
		"                        `katomic litmus`, which runs herd7 with the kernel's LKMM first)\n"
		"  --emit-verify DIR     write each test's threads as C functions for `katomic verify`\n"
		"                        (DIR/tN.c, DIR/tests.json); nothing is compiled or run\n"
		"  --mutate NAME=REPL    #define NAME(...) REPL(__VA_ARGS__) in the harness, e.g. smp_mb=barrier\n"
		"  --cflags 'FLAGS'      extra compiler flags for the harnesses\n"
		"  --batch N, --sync N   iterations per batch (<= 16384) and between resynchronisations\n"
		"  --jobs N              parallel compilations (default: number of CPUs)\n"
		"  --group N             tests per compiled harness program (default 32)\n"
		"  --include DIR         katomic headers (default: ../include next to the binary, or ./include)\n"
		"  --cache DIR           harness cache (default: litmus-cache next to the binary)\n"
		"  --deadline S          a test with no batch of iterations done in S s is a DEADLOCK (default 5)\n"
		"  --timeout S           a test still running after S s is an ERROR (default 600)\n"
		"  --rcu memb|mb         liburcu flavour for RCU (default memb: no read-side barrier; mb: full\n"
		"                        barriers in rcu_read_lock/unlock, grace periods without system calls)\n"
		"  --no-urcu             do not map RCU to liburcu (tests calling synchronize_rcu are skipped)\n"
		"  --rcu-iterations N    at most N iterations for tests calling a grace period, or that may\n"
		"                        leave a lock held (default 50000)\n"
		"Exit status: 0 all passed, 1 a test failed, 2 bad input or usage.\n");
}

/* What the run came to, for the last lines and the JSON. */
static struct tally tally;
static int reported, first_json = 1, nfiles_total;

static void report(struct test *T)
{
	if (T->verdict == V_PARSE) {
		tally.bad++;
	} else if (opt.parse_only) {
		tally.parsed++;
	} else {
		tally.passed += T->verdict == V_PASS || T->verdict == V_NOTSEEN;
		tally.notseen += T->verdict == V_NOTSEEN;
		tally.skipped += T->verdict == V_SKIP;
		tally.failed += T->verdict == V_FAIL || T->verdict == V_ERROR;
		tally.unjudged += T->verdict == V_UNJUDGED;
		tally.datarace += T->verdict == V_DATARACE;
		tally.deadlock += T->deadlock;
		if (T->verdict == V_PASS || T->verdict == V_NOTSEEN || T->verdict == V_FAIL) {
			tally.by_herd += T->judged_by && !strcmp(T->judged_by, "herd7");
			tally.by_comment += T->judged_by && !strcmp(T->judged_by, "Result:");
		}
		tally.disagree += T->disagrees;
		tally.herd_failed += T->oracle && T->oracle_note != NULL;
		if (!opt.json && T->verdict != V_SKIP)
			fprintf(stderr, "katomic-litmus: [%d/%d] %s (%s, %s) ... %s, %.1fM iter/s\n", reported + 1,
				nfiles_total, T->lt->name, opt.backend, opt.cc,
				T->deadlock && T->verdict == V_PASS ? "PASS (DEADLOCK)" : verdict_name(T->verdict),
				T->secs > 0 && !T->deadlock ? (double)T->iters / T->secs / 1e6 : 0.0);
	}
	reported++;
	if (opt.json)
		print_json_test(T, first_json);
	else if (T->verdict != V_PARSE && !opt.parse_only)
		print_text(T);
	first_json = 0;
	fflush(stdout);
}

static double parse_seconds(const char *name, const char *v)
{
	char *e;
	double d = strtod(v, &e);

	if (*e || !(d > 0))
		die("%s: a positive number of seconds", name);
	return d;
}

static long long parse_count(const char *name, const char *v)
{
	char *e;
	long long n = strtoll(v, &e, 10);

	if (*e || n <= 0)
		die("%s: a positive number", name);
	return n;
}

int main(int argc, char **argv)
{
	char **files = NULL;
	int nfiles = 0, i, urcu_ok = 0, nargs = 1;
	struct test *tests;
	char asmh[PATH_MAX + 96];
	struct stat st;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && (v ? 1 : (die("%s needs a value", name), 0)) && ++i)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (ARG("--backend")) {
			opt.backend = v;
			if (strcmp(v, "c11") && strcmp(v, "asm"))
				die("--backend: c11 or asm");
		} else if (ARG("--cc")) {
			opt.cc = v;
		} else if (ARG("--iterations")) {
			opt.iterations = parse_count("--iterations", v);
		} else if (ARG("--time")) {
			opt.time = parse_seconds("--time", v);
		} else if (ARG("--batch")) {
			opt.batch = atol(v);
		} else if (ARG("--sync")) {
			opt.sync = atol(v);
		} else if (ARG("--jobs")) {
			opt.jobs = atoi(v);
		} else if (ARG("--group")) {
			opt.group = (int)parse_count("--group", v);
		} else if (ARG("--timeout")) {
			opt.timeout = atoi(v);
		} else if (ARG("--deadline")) {
			opt.deadline = parse_seconds("--deadline", v);
		} else if (ARG("--include")) {
			opt.include = v;
		} else if (ARG("--cache")) {
			opt.cache = v;
		} else if (ARG("--cflags")) {
			opt.cflags = v;
		} else if (ARG("--mutate")) {
			const char *eq = strchr(v, '=');
			const char *s;

			if (!eq || eq == v || !eq[1])
				die("--mutate: NAME=REPLACEMENT, e.g. smp_mb=barrier");
			for (s = v; *s; s++)
				if (s != eq && !(*s == '_' || (*s >= 'a' && *s <= 'z') ||
						 (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
					die("--mutate: names only, e.g. smp_mb=barrier");
			opt.mutate = xrealloc(opt.mutate, sizeof(*opt.mutate) * (size_t)(opt.nmutate + 1));
			opt.mutate[opt.nmutate++] = v;
		} else if (!strcmp(a, "--json")) {
			opt.json = 1;
		} else if (!strcmp(a, "-r") || !strcmp(a, "--recursive")) {
			opt.recursive = 1;
		} else if (ARG("--oracle")) {
			opt.oracle = v;
		} else if (ARG("--emit-verify")) {
			opt.emit_verify = v;
			opt.parse_only = 1;
		} else if (!strcmp(a, "--parse-only")) {
			opt.parse_only = 1;
		} else if (ARG("--rcu")) {
			opt.rcu = v;
			if (strcmp(v, "memb") && strcmp(v, "mb"))
				die("--rcu: memb or mb");
		} else if (!strcmp(a, "--no-urcu")) {
			opt.no_urcu = 1;
		} else if (ARG("--rcu-iterations")) {
			opt.rcu_iterations = parse_count("--rcu-iterations", v);
		} else if (a[0] == '-' && a[1]) {
			usage(stderr);
			die("unknown option %s", a);
		} else {
			argv[nargs++] = argv[i];	/* collected once every option is known */
		}
#undef ARG
	}
	for (i = 1; i < nargs; i++)
		collect(argv[i], &files, &nfiles, 1);
	if (!nfiles) {
		usage(stderr);
		return 2;
	}
	if (opt.iterations <= 0)
		opt.iterations = opt.time > 0 ? 0 : 10000000;
	if (opt.jobs <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		opt.jobs = n > 0 ? (int)n : 1;
	}
	if (!opt.parse_only) {
		find_include();
		snprintf(asmh, sizeof(asmh), "%s/katomic/backend/asm.h", include_dir);
		if (!strcmp(opt.backend, "asm") && stat(asmh, &st))
			die("the asm backend is not available (%s is missing)", asmh);
		if (mkdir_p(opt.cache))
			die("cannot create %s: %s", opt.cache, strerror(errno));
		urcu_ok = urcu_available();
	}

	if (opt.oracle && !opt.parse_only)
		oracle_load(opt.oracle);
	tests = xmalloc(sizeof(*tests) * (size_t)nfiles);
	memset(tests, 0, sizeof(*tests) * (size_t)nfiles);
	nfiles_total = nfiles;
	for (i = 0; i < nfiles; i++) {
		struct test *T = &tests[i];
		struct lt_error err;
		size_t len;

		T->path = files[i];
		if (read_file(T->path, &T->src, &len)) {
			char msg[PATH_MAX + 64];

			snprintf(msg, sizeof(msg), "%s:1:1: %s", T->path, strerror(errno));
			fprintf(stderr, "%s\n", msg);
			T->verdict = V_PARSE;
			T->error = xstrdup(msg);
			T->done = 1;
			continue;
		}
		T->lt = lt_parse(T->src, len, &err);
		if (!T->lt) {
			char msg[PATH_MAX + 256];

			snprintf(msg, sizeof(msg), "%s:%d:%d: %s", T->path, err.line, err.col, err.msg);
			fprintf(stderr, "%s\n", msg);
			T->verdict = V_PARSE;
			T->error = xstrdup(msg);
			T->done = 1;
			continue;
		}
		plan_test(T, urcu_ok);
		if (opt.oracle && !opt.parse_only) {
			T->oracle = oracle_find(T->src, len);
			if (!T->oracle)
				die("%s: not in the oracle %s (written for other files?)", T->path, opt.oracle);
		}
		if (!opt.parse_only && T->unjudged && !T->skip) {
			T->verdict = V_UNJUDGED;
			T->expected = lt_result_name(T->lt->result);
			T->done = 1;
		} else if (opt.parse_only || T->skip) {
			T->verdict = V_SKIP;
			T->expected = lt_result_name(T->lt->result);
			T->done = 1;
		}
	}
	if (opt.emit_verify) {
		int bad = emit_verify(tests, nfiles, opt.emit_verify);

		printf("%d emitted, %d rejected\n", nfiles - bad, bad);
		return bad ? 2 : 0;
	}
	if (opt.json)
		print_json_head();
	if (opt.parse_only) {
		for (i = 0; i < nfiles; i++)
			report(&tests[i]);
	} else {
		run_all(tests, nfiles, report);
	}
	if (opt.json) {
		print_json_tail(&tally);
		if (opt.parse_only)
			fprintf(stderr, "%d parsed, %d rejected\n", tally.parsed, tally.bad);
		else
			fprintf(stderr, "%d passed, %d failed\n", tally.passed, tally.failed);
	} else if (opt.parse_only) {
		printf("%d parsed, %d rejected\n", tally.parsed, tally.bad);
	} else {
		printf("(%d not seen, %d skipped, %d bad input, %d unjudged, %d datarace, %d deadlock; "
		       "judged by herd7 %d, by Result: %d",
		       tally.notseen, tally.skipped, tally.bad, tally.unjudged, tally.datarace, tally.deadlock,
		       tally.by_herd, tally.by_comment);
		if (opt.oracle)
			printf("; %d Result: comments disagree with herd7, %d tests herd7 could not judge",
			       tally.disagree, tally.herd_failed);
		else
			printf("; no herd7 oracle");
		printf("; backend %s, cc %s)\n", opt.backend, opt.cc);
		printf("%d passed, %d failed\n", tally.passed, tally.failed);
	}
	for (i = 0; i < nfiles; i++) {
		int k;

		for (k = 0; k < tests[i].nstates; k++)
			free(tests[i].states[k].vals);
		free(tests[i].states);
		free(tests[i].cols);
		free(tests[i].unjudged);
		free(tests[i].error);
		free(tests[i].oracle_note);
		free(tests[i].oracle_skipped);
		free(tests[i].src);
		lt_free(tests[i].lt);
		free(files[i]);
	}
	free(tests);
	free(files);
	free(opt.mutate);
	return tally.bad ? 2 : tally.failed ? 1 : 0;
}
