/* SPDX-License-Identifier: MIT */
/*
 * KATOMIC_UP_AUTO when the affinity is widened from outside (issue 12): the
 * program is started with `taskset -c 0`, so it can only run on CPU 0 when
 * its start-up constructor runs; then `taskset -p -c 0,1 PID` widens it, and
 * it starts two threads, each doing THREAD_LOOPS atomic_inc.  The safe rule
 * (one *possible* CPU, not one usable CPU) must not have patched on a
 * machine with two CPUs, so the count is exact.
 *
 *   test-up-auto          the harness (TAP): runs itself as the child below
 *   test-up-auto child    report whether the locks are patched, wait for "go",
 *                         then run the two threads and report the count
 *
 * Built with -DKATOMIC_UP_TESTING (make check-up) the harness also runs the
 * control cases through the test-only KATOMIC_UP_POSSIBLE: a fake file saying
 * "0" makes the constructor patch (what the detection of "patched" is checked
 * by; a count after widening is then shown but not judged), with KATOMIC_UP=0
 * it does not, and with nothing recorded but an unscanned table it says so
 * on stderr (-ENOEXEC).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define KATOMIC_UP_AUTO
#include <katomic/katomic.h>
#include <katomic/up.h>
#include "tap.h"

#define THREAD_LOOPS 5000000

extern char **environ;
static atomic_t counter;
static char self[4096];	/* this program (under taskset, /proc/self/exe would be taskset) */

static int sites_state(void)	/* 0: all 0xF0, 1: all 0x3E, -1: mixed */
{
	size_t lk = 0, n = katomic_up_nsites();

	for (size_t i = 0; i < n; i++)
		lk += *katomic_up_site(i) == 0xF0;
	return lk == n ? 0 : lk == 0 ? 1 : -1;
}

static void *inc_loop(void *arg)
{
	static int ready[2];
	int me = (int)(long)arg;

	/* Both threads start together, so that they overlap on the two CPUs (no
	 * RMW here: in the control case every lock prefix is patched). */
	WRITE_ONCE(ready[me], 1);
	while (!READ_ONCE(ready[!me]))
		cpu_relax();
	for (long i = 0; i < THREAD_LOOPS; i++)
		atomic_inc(&counter);
	return NULL;
}

static int child(void)
{
	char go[8];
	pthread_t t[2];
	cpu_set_t set;
	const char *e = getenv("KATOMIC_UP");
	int st = sites_state(), rc = 1;

	if (!e || e[0] != '0')
		rc = katomic_up_patch();	/* the constructor's verdict, again */

	printf("ready patched=%d rc=%d\n", st, rc);
	fflush(stdout);
	if (!fgets(go, sizeof(go), stdin) || strcmp(go, "go\n"))
		return 1;
	sched_getaffinity(0, sizeof(set), &set);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, inc_loop, (void *)(long)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("done cpus=%d count=%d patched=%d\n", CPU_COUNT(&set), atomic_read(&counter), sites_state());
	return 0;
}

/* Run argv (a program on PATH, its stdout to /dev/null) and wait for it; its exit status, or -1. */
static int run(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, err;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

struct result {
	int patched, rc, cpus, count, patched_after;
	char err[512];
};

/*
 * Start `taskset -c CPU0 self child` with KATOMIC_UP / KATOMIC_UP_POSSIBLE as
 * given, widen it to `wide` with `taskset -p -c`, let it run.  Returns false
 * if the protocol broke.
 */
static bool scenario(int cpu0, const char *wide, const char *up_env, const char *possible, struct result *r)
{
	int in[2], out[2], errp[2], status;
	char cpu[16], line[256];
	pid_t pid;
	FILE *from;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	if (pipe(in) || pipe(out) || pipe(errp))
		return false;
	snprintf(cpu, sizeof(cpu), "%d", cpu0);
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		close(in[1]);
		close(out[0]);
		close(errp[0]);
		if (up_env)
			setenv("KATOMIC_UP", up_env, 1);
		else
			unsetenv("KATOMIC_UP");
		if (possible)
			setenv("KATOMIC_UP_POSSIBLE", possible, 1);
		else
			unsetenv("KATOMIC_UP_POSSIBLE");
		execlp("taskset", "taskset", "-c", cpu, self, "child", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(errp[1]);
	from = fdopen(out[0], "r");
	if (pid < 0 || !from || !fgets(line, sizeof(line), from) ||
	    sscanf(line, "ready patched=%d rc=%d", &r->patched, &r->rc) != 2) {
		if (pid > 0)
			kill(pid, SIGKILL);
		return false;
	}
	{
		char spid[16], *widen[] = { "taskset", "-p", "-c", (char *)wide, spid, NULL };

		snprintf(spid, sizeof(spid), "%d", (int)pid);
		if (run(widen) != 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return false;
		}
	}
	if (write(in[1], "go\n", 3) != 3 || !fgets(line, sizeof(line), from) ||
	    sscanf(line, "done cpus=%d count=%d patched=%d", &r->cpus, &r->count, &r->patched_after) != 3) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	n = read(errp[0], r->err, sizeof(r->err) - 1);
	r->err[n > 0 ? n : 0] = '\0';
	fclose(from);
	close(in[1]);
	close(errp[0]);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	char wide[32], *probe[] = { "taskset", "-c", "0", "true", NULL };
	cpu_set_t set;
	struct result r;
	int cpu0, cpu1;
	bool ran;

	if (argc == 2 && !strcmp(argv[1], "child"))
		return child();
	atomic_inc(&counter);	/* at least one lock site */
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0) {
		perror("/proc/self/exe");
		return 2;
	}
	diag("backend %s, %zu recorded lock sites, table %s", KATOMIC_BACKEND_NAME, katomic_up_nsites(),
	     katomic_up_scanned() == 1 ? "scanned" : "not scanned");
	ok(sites_state() == 0, "the harness itself was not patched at start-up");
	sched_getaffinity(0, sizeof(set), &set);
	if (CPU_COUNT(&set) < 2 || run(probe) != 0) {
		diag("skipped: needs two usable CPUs and taskset (util-linux); %d usable", CPU_COUNT(&set));
		return done_testing();
	}
	for (cpu0 = 0; !CPU_ISSET(cpu0, &set); cpu0++)
		;
	for (cpu1 = cpu0 + 1; !CPU_ISSET(cpu1, &set); cpu1++)
		;
	snprintf(wide, sizeof(wide), "%d,%d", cpu0, cpu1);

	/* (each scenario runs before the ok() that judges it: argument order is unspecified) */
	ran = scenario(cpu0, wide, NULL, NULL, &r);
	ok(ran, "taskset -c %d, then taskset -p -c %s from outside: ran", cpu0, wide);
	ok(r.patched == 0 && r.rc == -EBUSY,
	   "started on one CPU of a %d-CPU machine: the constructor did not patch (katomic_up_patch: %d)",
	   CPU_COUNT(&set), r.rc);
	ok(r.cpus == 2 && r.count == 2 * THREAD_LOOPS && r.patched_after == 0,
	   "widened to %d CPUs: two threads x %d atomic_inc = %d (exact), still unpatched",
	   r.cpus, THREAD_LOOPS, r.count);
	ok(ran && r.err[0] == '\0', "nothing on stderr when more than one CPU is possible%s%s",
	   r.err[0] ? ": " : "", r.err);
	ran = scenario(cpu0, wide, "v", NULL, &r);
	ok(ran && r.patched == 0 && strstr(r.err, "more than one CPU"),
	   "KATOMIC_UP=v: not patched, and it says why: %.*s", (int)strcspn(r.err, "\n"), r.err);
#ifdef KATOMIC_UP_TESTING
	{
		char path[] = "/tmp/test-up-auto.XXXXXX";
		int fd = mkstemp(path);

		if (fd < 0 || write(fd, "0\n", 2) != 2) {
			perror(path);
			return 2;
		}
		close(fd);
		ran = scenario(cpu0, wide, NULL, path, &r);
		if (katomic_up_nsites() > 0) {
			ok(ran && r.patched == 1 && r.rc == 0,
			   "control, possible CPUs \"0\" (test-only override): the constructor patched");
			diag("control: patched, then widened to %d CPUs: %d of %d counted (lost updates are what "
			     "the safe rule prevents; not judged)", r.cpus, r.count, 2 * THREAD_LOOPS);
		} else {
			ok(ran && r.patched == 0 && r.rc == -ENOEXEC && strstr(r.err, "katomic uplocks"),
			   "control, possible \"0\", nothing recorded, table not scanned: -ENOEXEC, "
			   "and stderr says what to do: %.*s", (int)strcspn(r.err, "\n"), r.err);
		}
		ran = scenario(cpu0, wide, "0", path, &r);
		ok(ran && r.patched == 0 && r.count == 2 * THREAD_LOOPS,
		   "control, possible \"0\" but KATOMIC_UP=0: not patched, count exact");
		unlink(path);
	}
#endif
	return done_testing();
}
