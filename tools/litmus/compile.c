/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus compilation: where the katomic headers are, the compiler's
 * command line, the liburcu probe, and the job pool that compiles every
 * harness not already in the cache (named by a hash of its content).
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

char include_dir[PATH_MAX];
static uint64_t headers_hash;

void find_include(void)
{
	char exe[PATH_MAX - 64], cand[PATH_MAX + 32];
	const char *env = getenv("KATOMIC_INCLUDE");
	ssize_t n;
	struct stat st;

	if (opt.include) {
		snprintf(include_dir, sizeof(include_dir), "%s", opt.include);
	} else if (env && *env) {
		snprintf(include_dir, sizeof(include_dir), "%s", env);
	} else {
		include_dir[0] = 0;
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0) {
			char *slash;

			exe[n] = 0;
			slash = strrchr(exe, '/');
			if (slash) {
				*slash = 0;
				/* build/katomic-litmus -> ../include */
				snprintf(cand, sizeof(cand), "%s/../include/katomic/katomic.h", exe);
				if (!stat(cand, &st))
					snprintf(include_dir, sizeof(include_dir), "%s/../include", exe);
			}
		}
		if (!include_dir[0])
			snprintf(include_dir, sizeof(include_dir), "include");
	}
	snprintf(cand, sizeof(cand), "%s/katomic/katomic.h", include_dir);
	if (stat(cand, &st))
		die("cannot find the katomic headers (%s): use --include DIR or KATOMIC_INCLUDE", cand);
	snprintf(cand, sizeof(cand), "%s/katomic", include_dir);
	headers_hash = hash_tree(cand);
	if (!opt.cache) {
		/* Next to the binary: build/litmus-cache */
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0 && strrchr(exe, '/')) {
			exe[n] = 0;
			*strrchr(exe, '/') = 0;
			snprintf(cand, sizeof(cand), "%s/litmus-cache", exe);
			opt.cache = xstrdup(cand);
		} else {
			opt.cache = "build/litmus-cache";
		}
	}
}

/* Flags every harness is compiled with (part of the cache key). */
static const char *const fixed_flags[] = {
	/* herd's values are untyped: pointer/integer conversions are the tests' business */
	"-std=gnu11", "-O2", "-pthread", "-w", "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
	NULL,
};

/* The program's source and its binary in the cache, named by a hash of everything that goes into it. */
void program_prepare(struct program *P)
{
	uint64_t h;
	int i;

	P->src = generate_program(P->tests, P->ntests, P->urcu);
	h = fnv(FNV0, P->src, strlen(P->src));
	h = fnv(h, opt.cc, strlen(opt.cc) + 1);
	h = fnv(h, opt.backend, strlen(opt.backend) + 1);
	for (i = 0; fixed_flags[i]; i++)
		h = fnv(h, fixed_flags[i], strlen(fixed_flags[i]) + 1);
	if (opt.cflags)
		h = fnv(h, opt.cflags, strlen(opt.cflags) + 1);
	h = fnv(h, &headers_hash, sizeof(headers_hash));
	snprintf(P->binpath, sizeof(P->binpath), "%s/%016llx", opt.cache, (unsigned long long)h);
}

/* The liburcu flavour's library: -lurcu-memb or -lurcu-mb. */
static const char *urcu_lib(void)
{
	static char lib[32];

	snprintf(lib, sizeof(lib), "-lurcu-%s", opt.rcu);
	return lib;
}

/* The compiler command line (after the cc itself), NULL-terminated. */
static int compile_args(const char **argv, int max, const char *out, const char *src, char *incflag,
			int urcu)
{
	static char buf[4096];
	int n = 0, i;

	argv[n++] = opt.cc;
	for (i = 0; fixed_flags[i]; i++)
		argv[n++] = fixed_flags[i];
	argv[n++] = incflag;
	if (!strcmp(opt.backend, "asm"))
		argv[n++] = "-DKATOMIC_BACKEND_ASM";
	if (opt.cflags) {
		/* Extra flags, split on blanks. */
		char *s;

		snprintf(buf, sizeof(buf), "%s", opt.cflags);
		for (s = strtok(buf, " \t"); s && n < max - 5; s = strtok(NULL, " \t"))
			argv[n++] = s;
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = src;
	if (urcu)
		argv[n++] = urcu_lib();
	argv[n] = NULL;
	return n;
}

/*
 * Is liburcu (Debian: liburcu-dev) usable with the harness compiler?  Link a
 * probe calling the memb flavour once per run (the answer is not cached on
 * disk: installing the package takes effect at once).
 */
int urcu_available(void)
{
	static int avail = -1;
	char src[PATH_MAX + 32], bin[PATH_MAX + 32];
	const char *argv[16];
	FILE *f;
	pid_t pid;
	int status, n = 0;

	if (avail >= 0)
		return avail;
	avail = 0;
	if (opt.no_urcu)
		return avail;
	snprintf(src, sizeof(src), "%s/urcu-probe-%ld.c", opt.cache, (long)getpid());
	snprintf(bin, sizeof(bin), "%s/urcu-probe-%ld", opt.cache, (long)getpid());
	f = fopen(src, "w");
	if (!f)
		return avail;
	fprintf(f, "extern void urcu_%s_register_thread(void);\n"
		"extern void urcu_%s_unregister_thread(void);\n"
		"extern void urcu_%s_read_lock(void);\n"
		"extern void urcu_%s_read_unlock(void);\n"
		"extern void urcu_%s_synchronize_rcu(void);\n"
		"int main(void)\n{\n\turcu_%s_register_thread();\n\turcu_%s_read_lock();\n"
		"\turcu_%s_read_unlock();\n\turcu_%s_synchronize_rcu();\n"
		"\turcu_%s_unregister_thread();\n\treturn 0;\n}\n",
		opt.rcu, opt.rcu, opt.rcu, opt.rcu, opt.rcu, opt.rcu, opt.rcu, opt.rcu, opt.rcu, opt.rcu);
	if (fclose(f))
		return avail;
	argv[n++] = opt.cc;
	argv[n++] = "-pthread";
	argv[n++] = "-o";
	argv[n++] = bin;
	argv[n++] = src;
	argv[n++] = urcu_lib();
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status)) {
		/* Run it too: the library must load and a grace period complete. */
		pid = fork();
		if (pid == 0) {
			alarm(10);
			execl(bin, bin, (char *)NULL);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status))
			avail = 1;
	}
	unlink(src);
	unlink(bin);
	return avail;
}

/*
 * Start compiling program P unless its binary is in the cache: returns 1 when
 * a compiler runs (P->pid), 0 when there is nothing to wait for (P->state is
 * PROG_COMPILED or PROG_FAILED).
 */
int program_start_compile(struct program *P)
{
	char src[PATH_MAX + 16], tmp[PATH_MAX + 16], log[PATH_MAX + 16];
	char incflag[PATH_MAX + 4];
	const char *argv[64];
	struct stat st;
	FILE *f;

	if (!stat(P->binpath, &st)) {
		P->state = PROG_COMPILED;
		return 0;
	}
	snprintf(src, sizeof(src), "%s.c", P->binpath);
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", P->binpath, (long)getpid());
	snprintf(log, sizeof(log), "%s.log", P->binpath);
	f = fopen(src, "w");
	if (!f || fputs(P->src, f) == EOF || fclose(f)) {
		P->log = xstrdup("cannot write the harness source in the cache directory");
		P->state = PROG_FAILED;
		return 0;
	}
	snprintf(incflag, sizeof(incflag), "-I%s", include_dir);
	compile_args(argv, 64, tmp, src, incflag, P->urcu);
	fflush(NULL);
	P->pid = fork();
	if (P->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (P->pid < 0) {
		P->pid = 0;
		P->log = xstrdup("fork failed");
		P->state = PROG_FAILED;
		return 0;
	}
	P->state = PROG_COMPILING;
	P->started = now_seconds();
	return 1;
}

/* The compiler of P exited with status. */
void program_compile_done(struct program *P, int status)
{
	char tmp[PATH_MAX + 16], log[PATH_MAX + 16];

	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", P->binpath, (long)getpid());
	snprintf(log, sizeof(log), "%s.log", P->binpath);
	P->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !rename(tmp, P->binpath)) {
		P->state = PROG_COMPILED;
		unlink(log);
	} else {
		char *buf;
		size_t len;

		P->state = PROG_FAILED;
		P->log = read_file(log, &buf, &len) ? xstrdup("compiler failed") : buf;
		unlink(tmp);
	}
}
