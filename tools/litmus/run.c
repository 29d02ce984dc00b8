/* SPDX-License-Identifier: MIT */
/* katomic-litmus run: execute a compiled harness, read its histogram. */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int run_harness(struct test *T)
{
	int pfd[2], status;
	pid_t pid;
	struct sbuf out = { 0 };
	char buf[65536], a_n[32], a_t[32], a_b[32], a_s[32], a_w[32];
	const char *argv[16];
	int n = 0;
	ssize_t r;
	char *line, *save = NULL;

	argv[n++] = T->binpath;
	/* A grace period per iteration costs microseconds: cap those tests. */
	snprintf(a_n, sizeof(a_n), "%lld", T->grace && (opt.iterations <= 0 || opt.iterations > opt.rcu_iterations) ?
		 opt.rcu_iterations : opt.iterations);
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
	argv[n] = NULL;
	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return -1;
	}
	while ((r = read(pfd[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			sb_add(&out, buf, (size_t)r);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char msg[128];

		if (WIFSIGNALED(status))
			snprintf(msg, sizeof(msg), "harness killed by signal %d%s", WTERMSIG(status),
				 WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		else
			snprintf(msg, sizeof(msg), "harness exited with status %d", WEXITSTATUS(status));
		T->error = xstrdup(msg);
		free(out.s);
		return -1;
	}
	if (!out.s)
		sb_add(&out, "", 0);
	for (line = strtok_r(out.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "iterations ", 11)) {
			T->iters = atoll(line + 11);
		} else if (!strncmp(line, "seconds ", 8)) {
			T->secs = atof(line + 8);
		} else if (!strncmp(line, "loop_seconds ", 13)) {
			T->loop_secs = atof(line + 13);
		} else if (!strncmp(line, "state ", 6)) {
			long long cnt, *v = xmalloc(sizeof(long long) * (size_t)(T->ncols + 1));
			char *p = line + 6, *e;
			int i, k;

			cnt = strtoll(p, &e, 10);
			for (i = 0; i < (T->ncols ? T->ncols : 1); i++) {
				p = e;
				v[i] = strtoll(p, &e, 10);
			}
			for (k = 0; k < T->nstates; k++)
				if (!memcmp(T->states[k].vals, v, sizeof(long long) * (size_t)T->ncols))
					break;
			if (k < T->nstates) {
				T->states[k].count += cnt;
				free(v);
			} else {
				T->states = xrealloc(T->states, sizeof(*T->states) * (size_t)(T->nstates + 1));
				T->states[T->nstates].count = cnt;
				T->states[T->nstates].vals = v;
				T->nstates++;
			}
		}
	}
	free(out.s);
	return 0;
}

