/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus run: the schedule.  The runnable tests are grouped into
 * programs (opt.group tests each, harness.c); up to opt.jobs compilers run
 * while the compiled programs run one at a time, in file order, so that the
 * results come out in order and no two tests share the CPUs.  A program that
 * does not compile is split in two until the test that breaks it is alone.
 * Each harness program runs its tests one by one, each in a child process it
 * watches (harness-main.h); its output is read here into the tests' histograms.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ reading a harness's output */
/* States of one test, merged (each thread of the harness prints its own histogram). */
struct merge {
	int *slot;		/* open addressing: index into T->states + 1, 0 free */
	unsigned long cap;
};

static unsigned long hash_vals(const long long *v, int n)
{
	uint64_t h = FNV0;
	int i;

	for (i = 0; i < n; i++)
		h = fnv(h, &v[i], sizeof(v[i]));
	return (unsigned long)h;
}

static void merge_grow(struct merge *m, const struct test *T)
{
	unsigned long i;
	int k;

	m->cap = m->cap ? m->cap * 2 : 64;
	free(m->slot);
	m->slot = xmalloc(sizeof(*m->slot) * m->cap);
	for (i = 0; i < m->cap; i++)
		m->slot[i] = 0;
	for (k = 0; k < T->nstates; k++) {
		unsigned long j = hash_vals(T->states[k].vals, T->ncols) & (m->cap - 1);

		while (m->slot[j])
			j = (j + 1) & (m->cap - 1);
		m->slot[j] = k + 1;
	}
}

static void add_state(struct test *T, struct merge *m, long long count, long long *v)
{
	unsigned long j;

	if ((unsigned long)(T->nstates + 1) * 2 > m->cap)
		merge_grow(m, T);
	j = hash_vals(v, T->ncols) & (m->cap - 1);
	for (; m->slot[j]; j = (j + 1) & (m->cap - 1)) {
		struct state *s = &T->states[m->slot[j] - 1];

		if (!memcmp(s->vals, v, sizeof(long long) * (size_t)T->ncols)) {
			s->count += count;
			free(v);
			return;
		}
	}
	T->states = xrealloc(T->states, sizeof(*T->states) * (size_t)(T->nstates + 1));
	T->states[T->nstates] = (struct state){ .count = count, .vals = v };
	m->slot[j] = ++T->nstates;
}

static void set_error(struct test *T, const char *msg)
{
	free(T->error);
	T->error = xstrdup(msg);
	T->verdict = V_ERROR;
}

/* Read the harness output of program P into its tests; a test with no complete result is an ERROR. */
static void read_results(struct program *P, int status)
{
	char *buf, *line, *save = NULL;
	size_t len;
	struct test *cur = NULL;
	struct merge m = { 0 };
	int *complete = xmalloc(sizeof(int) * (size_t)P->ntests), i;

	for (i = 0; i < P->ntests; i++)
		complete[i] = 0;
	if (read_file(P->out, &buf, &len)) {
		buf = xstrdup("");
		len = 0;
	}
	unlink(P->out);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char word[16];
		int k = -1;
		long long a = 0;
		double s = 0;

		if (sscanf(line, "%15s %d", word, &k) == 2 && k >= 0 && k < P->ntests) {
			struct test *T = P->tests[k];

			if (!strcmp(word, "test")) {
				cur = T;
				free(m.slot);
				m.slot = NULL;
				m.cap = 0;
				continue;
			} else if (!strcmp(word, "end")) {
				complete[k] = 1;
				cur = NULL;
				continue;
			} else if (!strcmp(word, "deadlock") &&
				   sscanf(line, "deadlock %*d iterations %lld seconds %lf", &a, &s) == 2) {
				T->deadlock = 1;
				T->iters = a;
				T->secs = s;
				complete[k] = 1;
				continue;
			} else if (!strcmp(word, "timeout") || !strcmp(word, "crash") || !strcmp(word, "error")) {
				char msg[300];

				snprintf(msg, sizeof(msg), "harness: %s", line);
				set_error(T, msg);
				complete[k] = -1;
				continue;
			}
		}
		if (!cur)
			continue;
		if (!strncmp(line, "iterations ", 11)) {
			cur->iters = atoll(line + 11);
		} else if (!strncmp(line, "seconds ", 8)) {
			cur->secs = atof(line + 8);
		} else if (!strncmp(line, "loop_seconds ", 13)) {
			cur->loop_secs = atof(line + 13);
		} else if (!strncmp(line, "discarded ", 10)) {
			cur->discarded = atoll(line + 10);
		} else if (!strncmp(line, "state ", 6)) {
			int n = cur->ncols ? cur->ncols : 1;
			long long cnt, *v = xmalloc(sizeof(long long) * (size_t)n);
			char *p = line + 6, *e;

			cnt = strtoll(p, &e, 10);
			for (i = 0; i < n; i++) {
				p = e;
				v[i] = strtoll(p, &e, 10);
			}
			add_state(cur, &m, cnt, v);
		}
	}
	free(m.slot);
	free(buf);
	for (i = 0; i < P->ntests; i++) {
		struct test *T = P->tests[i];

		if (!complete[i]) {
			char msg[128];

			if (WIFSIGNALED(status))
				snprintf(msg, sizeof(msg), "harness program killed by signal %d", WTERMSIG(status));
			else
				snprintf(msg, sizeof(msg), "harness program gave no result (exit status %d)",
					 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			set_error(T, msg);
		}
		if (T->verdict != V_ERROR)
			judge(T);
		T->done = 1;
	}
	free(complete);
}

/* ------------------------------------------------------------ running a program */
static void start_run(struct program *P)
{
	char a_n[32], a_t[32], a_b[32], a_s[32], a_w[32], a_d[32], a_g[32];
	const char *argv[24];
	int n = 0;

	snprintf(P->out, sizeof(P->out), "%s.out%ld", P->binpath, (long)getpid());
	argv[n++] = P->binpath;
	snprintf(a_n, sizeof(a_n), "%lld", opt.iterations);
	argv[n++] = "-n";
	argv[n++] = a_n;
	if (opt.time > 0) {
		snprintf(a_t, sizeof(a_t), "%g", opt.time);
		argv[n++] = "-t";
		argv[n++] = a_t;
	}
	if (opt.batch > 0) {
		snprintf(a_b, sizeof(a_b), "%ld", opt.batch);
		argv[n++] = "-b";
		argv[n++] = a_b;
	}
	if (opt.sync > 0) {
		snprintf(a_s, sizeof(a_s), "%ld", opt.sync);
		argv[n++] = "-s";
		argv[n++] = a_s;
	}
	snprintf(a_w, sizeof(a_w), "%d", opt.timeout);
	argv[n++] = "-w";
	argv[n++] = a_w;
	snprintf(a_d, sizeof(a_d), "%g", opt.deadline);
	argv[n++] = "-D";
	argv[n++] = a_d;
	/* A grace period per iteration costs microseconds: cap those tests. */
	snprintf(a_g, sizeof(a_g), "%lld", opt.rcu_iterations);
	argv[n++] = "-g";
	argv[n++] = a_g;
	argv[n] = NULL;
	fflush(NULL);
	P->pid = fork();
	if (P->pid == 0) {
		int fd = open(P->out, O_WRONLY | O_CREAT | O_TRUNC, 0666), nul = open("/dev/null", O_RDONLY);

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		if (nul >= 0)
			dup2(nul, 0);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (P->pid < 0) {
		int i;

		P->pid = 0;
		for (i = 0; i < P->ntests; i++) {
			set_error(P->tests[i], "fork failed");
			P->tests[i]->done = 1;
		}
		P->state = PROG_DONE;
		return;
	}
	P->state = PROG_RUNNING;
	P->started = now_seconds();
}

/* ------------------------------------------------------------ a program that does not compile */
/* The function a compiler log says is not declared or defined: not a primitive katomic provides. */
static int missing_function(const char *log, char *name, size_t size)
{
	static const char *const pats[] = { "undeclared function '", "implicit declaration of function '",
					    "implicit declaration of function \xe2\x80\x98", "undefined reference to `",
					    NULL };
	int i;

	for (i = 0; pats[i]; i++) {
		const char *s = strstr(log, pats[i]);
		size_t n = 0;

		if (!s)
			continue;
		s += strlen(pats[i]);
		while (s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		       (s[n] >= '0' && s[n] <= '9'))
			n++;
		if (n && n < size && strncmp(s, "urcu_", 5)) {
			memcpy(name, s, n);
			name[n] = 0;
			return 1;
		}
	}
	return 0;
}

/* The first error lines of a compiler log, on one line. */
static char *first_errors(const char *log)
{
	struct sbuf b = { 0 };
	const char *s = log;
	int lines = 0;

	while (*s && lines < 3) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (memmem(s, n, "error", 5)) {
			if (b.n)
				sb_add(&b, " | ", 3);
			sb_add(&b, s, n);
			lines++;
		}
		s += n + (e != NULL);
	}
	if (!b.s)
		sb_add(&b, log, strlen(log) > 300 ? 300 : strlen(log));
	return b.s;
}

static void single_failed(struct program *P)
{
	struct test *T = P->tests[0];
	char fn[128];

	if (missing_function(P->log, fn, sizeof(fn))) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s() is not in the kernel API katomic provides", fn);
		T->verdict = V_SKIP;
		T->error = xstrdup(msg);	/* the test owns it */
		T->skip = T->error;
	} else {
		T->verdict = V_ERROR;
		T->error = first_errors(P->log);
	}
	T->done = 1;
}

/* ------------------------------------------------------------ the schedule */
struct queue {
	struct program **p;
	int n;
};

static struct program *new_program(struct test **tests, int n, int urcu)
{
	struct program *P = xmalloc(sizeof(*P));

	memset(P, 0, sizeof(*P));
	P->tests = xmalloc(sizeof(*P->tests) * (size_t)n);
	memcpy(P->tests, tests, sizeof(*P->tests) * (size_t)n);
	P->ntests = n;
	P->urcu = urcu;
	return P;
}

static void free_program(struct program *P)
{
	free(P->tests);
	free(P->src);
	free(P->log);
	free(P);
}

/*
 * The tests of P the compiler's log names: a message in a test's body names
 * its file (#line), one in its generated code its kl<k>_ function, a
 * linker's undefined reference the kl<k>_ function that makes it.
 */
static int blame(const struct program *P, int *culprit)
{
	const char *s;
	int k, n = 0;

	for (k = 0; k < P->ntests; k++) {
		char path[PATH_MAX + 4];

		snprintf(path, sizeof(path), "%s:", P->tests[k]->path);
		culprit[k] = strstr(P->log, path) != NULL;
	}
	for (s = P->log; (s = strstr(s, "kl")); s += 2) {
		char *e;
		long k2 = strtol(s + 2, &e, 10);

		if (e > s + 2 && *e == '_' && (s == P->log || s[-1] == '\'' || s[-1] == '`' || s[-1] == ' ' ||
					       (unsigned char)s[-1] >= 0x80) && k2 >= 0 && k2 < P->ntests)
			culprit[k2] = 1;
	}
	for (k = 0; k < P->ntests; k++)
		n += culprit[k];
	return n;
}

static void insert(struct queue *q, int at, struct program *P)
{
	q->p = xrealloc(q->p, sizeof(*q->p) * (size_t)(q->n + 1));
	memmove(&q->p[at + 1], &q->p[at], sizeof(*q->p) * (size_t)(q->n - at));
	q->p[at] = P;
	q->n++;
}

/*
 * Replace program q->p[at], which did not compile, by smaller ones: the
 * tests the log blames alone and the others together, or else its two
 * halves, until the test that breaks it is alone.
 */
static void split(struct queue *q, int at)
{
	struct program *P = q->p[at];
	int *culprit = xmalloc(sizeof(int) * (size_t)P->ntests), n = blame(P, culprit), k, nrest = 0;
	struct test **rest = xmalloc(sizeof(*rest) * (size_t)P->ntests);

	q->p[at] = NULL;
	if (n > 0 && n < P->ntests) {
		for (k = 0; k < P->ntests; k++)
			if (!culprit[k])
				rest[nrest++] = P->tests[k];
		q->p[at] = new_program(rest, nrest, P->urcu);
		for (k = P->ntests - 1; k >= 0; k--)
			if (culprit[k])
				insert(q, at + 1, new_program(&P->tests[k], 1, P->urcu));
	} else {
		int h = P->ntests / 2;

		q->p[at] = new_program(P->tests, h, P->urcu);
		insert(q, at + 1, new_program(P->tests + h, P->ntests - h, P->urcu));
	}
	free(rest);
	free(culprit);
	free_program(P);
}

static void group(struct queue *q, struct test *tests, int ntests)
{
	struct test **g = xmalloc(sizeof(*g) * (size_t)(opt.group + 1));
	int i, n = 0, urcu = 0;

	for (i = 0; i <= ntests; i++) {
		struct test *T = i < ntests ? &tests[i] : NULL;

		if (T && T->done)
			continue;
		if (n && (!T || n == opt.group || T->urcu != urcu)) {
			q->p = xrealloc(q->p, sizeof(*q->p) * (size_t)(q->n + 1));
			q->p[q->n++] = new_program(g, n, urcu);
			n = 0;
		}
		if (T) {
			urcu = T->urcu;
			g[n++] = T;
		}
	}
	free(g);
}

static const char *prog_name(const struct program *P)
{
	return P->tests[0]->lt->name;
}

void run_all(struct test *tests, int ntests, void (*report)(struct test *T))
{
	struct queue q = { 0 };
	int compiling = 0, running = 0, next_report = 0, i;

	group(&q, tests, ntests);
	for (;;) {
		int status;
		pid_t pid;

		/* Compile, in order, as many as opt.jobs at a time. */
		for (i = 0; i < q.n && compiling < opt.jobs; i++) {
			struct program *P = q.p[i];

			if (P->state != PROG_NEW)
				continue;
			program_prepare(P);
			if (program_start_compile(P)) {
				compiling++;
				if (!opt.json)
					fprintf(stderr, "katomic-litmus: compiling %d test%s (%s%s)\n", P->ntests,
						P->ntests == 1 ? "" : "s", prog_name(P), P->ntests > 1 ? ", ..." : "");
			}
		}
		/* Programs that did not compile: halve them, or blame their single test. */
		for (i = 0; i < q.n; i++) {
			struct program *P = q.p[i];

			if (P->state != PROG_FAILED)
				continue;
			if (P->ntests > 1) {
				split(&q, i);
				i = -1;	/* rescan: new programs to compile */
				continue;
			}
			single_failed(P);
			P->state = PROG_DONE;
		}
		/* Run the first compiled program, one at a time. */
		if (!running) {
			for (i = 0; i < q.n; i++) {
				if (q.p[i]->state == PROG_COMPILED) {
					start_run(q.p[i]);
					running = q.p[i]->state == PROG_RUNNING;
					break;
				}
			}
		}
		while (next_report < ntests && tests[next_report].done)
			report(&tests[next_report++]);
		if (!compiling && !running) {
			int more = 0;

			for (i = 0; i < q.n; i++)
				more |= q.p[i]->state == PROG_NEW || q.p[i]->state == PROG_FAILED ||
					q.p[i]->state == PROG_COMPILED;
			if (!more)
				break;
			continue;
		}
		pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			die("wait: %s", strerror(errno));
		}
		for (i = 0; i < q.n; i++) {
			struct program *P = q.p[i];

			if (P->pid != pid)
				continue;
			if (P->state == PROG_COMPILING) {
				program_compile_done(P, status);
				compiling--;
			} else if (P->state == PROG_RUNNING) {
				P->pid = 0;
				read_results(P, status);
				P->state = PROG_DONE;
				running = 0;
			}
			break;
		}
	}
	while (next_report < ntests && tests[next_report].done)
		report(&tests[next_report++]);
	for (i = 0; i < q.n; i++)
		free_program(q.p[i]);
	free(q.p);
}
