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
	.jobs = 0, .timeout = 600, .rcu_iterations = 50000,
};

/* ------------------------------------------------------------ main */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *path, char ***files, int *nfiles)
{
	struct stat st;

	if (stat(path, &st))
		die("%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char **list = NULL;
		int n = 0, i;

		if (!d)
			die("%s: %s", path, strerror(errno));
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);

			if (l > 7 && !strcmp(e->d_name + l - 7, ".litmus")) {
				char *p = xmalloc(strlen(path) + l + 2);

				sprintf(p, "%s/%s", path, e->d_name);
				list = xrealloc(list, sizeof(*list) * (size_t)(n + 1));
				list[n++] = p;
			}
		}
		closedir(d);
		if (n)
			qsort(list, (size_t)n, sizeof(*list), cmp_str);
		*files = xrealloc(*files, sizeof(**files) * (size_t)(*nfiles + n));
		for (i = 0; i < n; i++)
			(*files)[(*nfiles)++] = list[i];
		free(list);
	} else {
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
		"  --mutate NAME=REPL    #define NAME(...) REPL(__VA_ARGS__) in the harness, e.g. smp_mb=barrier\n"
		"  --cflags 'FLAGS'      extra compiler flags for the harnesses\n"
		"  --batch N, --sync N   iterations per batch (<= 16384) and between resynchronisations\n"
		"  --jobs N              parallel compilations (default: number of CPUs)\n"
		"  --include DIR         katomic headers (default: ../include next to the binary, or ./include)\n"
		"  --cache DIR           harness cache (default: litmus-cache next to the binary)\n"
		"  --timeout S           kill a harness after S seconds (default 600)\n"
		"  --no-urcu             do not map RCU to liburcu (tests calling synchronize_rcu are skipped)\n"
		"  --rcu-iterations N    at most N iterations for tests calling synchronize_rcu (default 50000)\n"
		"Exit status: 0 all passed, 1 a test failed, 2 bad input or usage.\n");
}

int main(int argc, char **argv)
{
	char **files = NULL;
	int nfiles = 0, i, passed = 0, failed = 0, notseen = 0, skipped = 0, bad = 0;
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
			char *e;

			opt.iterations = strtoll(v, &e, 10);
			if (*e || opt.iterations <= 0)
				die("--iterations: a positive number");
		} else if (ARG("--time")) {
			char *e;

			opt.time = strtod(v, &e);
			if (*e || !(opt.time > 0))
				die("--time: a positive number of seconds");
		} else if (ARG("--batch")) {
			opt.batch = atol(v);
		} else if (ARG("--sync")) {
			opt.sync = atol(v);
		} else if (ARG("--jobs")) {
			opt.jobs = atoi(v);
		} else if (ARG("--timeout")) {
			opt.timeout = atoi(v);
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
		} else if (!strcmp(a, "--no-urcu")) {
			opt.no_urcu = 1;
		} else if (ARG("--rcu-iterations")) {
			char *e;

			opt.rcu_iterations = strtoll(v, &e, 10);
			if (*e || opt.rcu_iterations <= 0)
				die("--rcu-iterations: a positive number");
		} else if (a[0] == '-' && a[1]) {
			usage(stderr);
			die("unknown option %s", a);
		} else {
			collect(a, &files, &nfiles);
		}
#undef ARG
	}
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
	find_include(argv[0]);
	snprintf(asmh, sizeof(asmh), "%s/katomic/backend/asm.h", include_dir);
	if (!strcmp(opt.backend, "asm") && stat(asmh, &st))
		die("the asm backend is not available (%s is missing)", asmh);
	if (mkdir_p(opt.cache))
		die("cannot create %s: %s", opt.cache, strerror(errno));

	tests = xmalloc(sizeof(*tests) * (size_t)nfiles);
	memset(tests, 0, sizeof(*tests) * (size_t)nfiles);
	for (i = 0; i < nfiles; i++) {
		struct test *T = &tests[i];
		struct lt_error err;
		size_t len;
		int th;

		T->path = files[i];
		if (read_file(T->path, &T->src, &len)) {
			fprintf(stderr, "%s: %s\n", T->path, strerror(errno));
			T->verdict = V_PARSE;
			T->error = xstrdup(strerror(errno));
			bad = 1;
			continue;
		}
		T->lt = lt_parse(T->src, len, &err);
		if (!T->lt) {
			char msg[512];

			snprintf(msg, sizeof(msg), "%s:%d:%d: %s", T->path, err.line, err.col, err.msg);
			fprintf(stderr, "%s\n", msg);
			T->verdict = V_PARSE;
			T->error = xstrdup(msg);
			bad = 1;
			continue;
		}
		/*
		 * RCU: rcu_read_lock/unlock and synchronize_rcu(_expedited) map to
		 * liburcu when it is installed; call_rcu and SRCU are not mapped.
		 */
		for (th = 0; th < T->lt->nthreads; th++) {
			const struct lt_thread *tt = &T->lt->threads[th];

			if (memmem(tt->body, tt->body_len, "synchronize_rcu", 15))
				T->grace = 1;
			if (memmem(tt->body, tt->body_len, "rcu_read_lock", 13) || T->grace)
				T->urcu = 1;
			if (memmem(tt->body, tt->body_len, "call_rcu", 8) ||
			    memmem(tt->body, tt->body_len, "srcu", 4))
				T->skip = "needs call_rcu or SRCU, not mapped";
		}
		if (T->urcu && !urcu_available()) {
			T->urcu = 0;
			if (T->grace && !T->skip)
				T->skip = opt.no_urcu ?
					"needs RCU grace periods (synchronize_rcu): liburcu disabled by --no-urcu" :
					"needs RCU grace periods (synchronize_rcu): install liburcu-dev (liburcu, -lurcu-memb)";
		}
		{
			int l;

			for (l = 0; l < T->lt->nlocs; l++)
				add_col(T, &T->lt->locs[l]);
			expr_cols(T, T->lt->filter);
			expr_cols(T, T->lt->cond);
		}
		if (T->skip)
			continue;
		generate(T);
		cache_path(T);
	}
	compile_all(tests, nfiles);
	for (i = 0; i < nfiles; i++) {
		struct test *T = &tests[i];

		if (T->verdict == V_PARSE)
			continue;
		if (T->skip) {
			T->verdict = V_SKIP;
			skipped++;
		} else if (!T->compiled_ok) {
			T->verdict = V_ERROR;
			T->error = T->compile_log;
			T->compile_log = NULL;
			if (!T->error)
				T->error = xstrdup("compilation failed");
		} else {
			if (!opt.json)
				fprintf(stderr, "katomic-litmus: [%d/%d] %s (%s, %s) ...", i + 1, nfiles,
					T->lt->name, opt.backend, opt.cc);
			if (run_harness(T))
				T->verdict = V_ERROR;
			else
				judge(T);
			if (!opt.json)
				fprintf(stderr, " %s, %.1fM iter/s\n", verdict_name(T->verdict),
					T->secs > 0 ? (double)T->iters / T->secs / 1e6 : 0.0);
		}
		if (T->verdict == V_PASS || T->verdict == V_NOTSEEN)
			passed++;
		if (T->verdict == V_NOTSEEN)
			notseen++;
		if (T->verdict == V_FAIL || T->verdict == V_ERROR)
			failed++;
		if (!opt.json)
			print_text(T);
		fflush(stdout);
	}
	if (opt.json) {
		print_json(tests, nfiles, passed, failed);
		fprintf(stderr, "%d passed, %d failed\n", passed, failed);
	} else {
		printf("(%d not seen, %d skipped, %d bad input; backend %s, cc %s)\n", notseen, skipped,
		       bad, opt.backend, opt.cc);
		printf("%d passed, %d failed\n", passed, failed);
	}
	for (i = 0; i < nfiles; i++) {
		int k;

		for (k = 0; k < tests[i].nstates; k++)
			free(tests[i].states[k].vals);
		free(tests[i].states);
		free(tests[i].cols);
		free(tests[i].harness);
		free(tests[i].error);
		free(tests[i].compile_log);
		free(tests[i].src);
		lt_free(tests[i].lt);
		free(files[i]);
	}
	free(tests);
	free(files);
	free(opt.mutate);
	return bad ? 2 : failed ? 1 : 0;
}
