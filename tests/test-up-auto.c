/* SPDX-License-Identifier: MIT */
/*
 * KATOMIC_UP_AUTO: the start-up constructor of <katomic/up.h> patches when,
 * and only when, one CPU is usable and KATOMIC_UP is not 0.  The test re-runs
 * itself pinned to one CPU, with and without KATOMIC_UP=0.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define KATOMIC_UP_AUTO
#include <katomic/katomic.h>
#include <katomic/up.h>
#include "tap.h"

static atomic_t v;

static bool sites_are(unsigned char b)
{
	for (size_t i = 0; i < katomic_up_nsites(); i++)
		if (*katomic_up_site(i) != b)
			return false;
	return true;
}

/* Run this program again as "child WANT", return its exit status. */
static int rerun(const char *want, const char *env)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (env)
			setenv("KATOMIC_UP", env, 1);
		else
			unsetenv("KATOMIC_UP");
		execl("/proc/self/exe", "test-up-auto", "child", want, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	bool is_asm = strcmp(KATOMIC_BACKEND_NAME, "asm") == 0;
	cpu_set_t set;
	int cpu;

	atomic_inc(&v);		/* at least one recorded site with the asm backend */
	if (argc == 3 && strcmp(argv[1], "child") == 0)	/* patched expected: "1" */
		return sites_are(argv[2][0] == '1' ? 0x3E : 0xF0) && atomic_read(&v) == 1 ? 0 : 1;

	sched_getaffinity(0, sizeof(set), &set);
	if (CPU_COUNT(&set) > 1)
		ok(sites_are(0xF0), "%d CPUs usable: the constructor left every lock in place",
		   CPU_COUNT(&set));
	for (cpu = 0; !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ok(sched_setaffinity(0, sizeof(set), &set) == 0, "pinned to CPU %d", cpu);
	ok(rerun(is_asm ? "1" : "0", NULL) == 0,
	   "one CPU, KATOMIC_UP unset: %s", is_asm ? "patched at start-up" : "c11: nothing to patch");
	ok(rerun(is_asm ? "1" : "0", "1") == 0, "one CPU, KATOMIC_UP=1: same");
	ok(rerun("0", "0") == 0, "one CPU, KATOMIC_UP=0: left alone");
	return done_testing();
}
