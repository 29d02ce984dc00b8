/* katomic's /init for the kernels `katomic kernel` boots (docs/kernel-boot.md).
 *
 * Static, no libc beyond what static glibc gives.  It reports the kernel and
 * the CPUs online, loads a self-test built as a module (test_bitops.ko: linux
 * 6.1 builds it as a module only), runs the torture tests found in the initramfs one after the
 * other -- locktorture once per lock type, then rcutorture -- each for
 * katomic.torture_s seconds, removes each module (its cleanup prints the final
 * "End of test" summary the judge parses), and powers the guest off.
 *
 * Every line it prints starts with "katomic-init: " so that the judge can
 * tell them from the kernel's.  Kernel command line (read from /proc/cmdline;
 * the defaults are in /katomic.conf, written by initramfs.py):
 *   katomic.torture_s=N       seconds per torture test (0: no torture)
 *   katomic.locks=a,b,c       locktorture types, in order ("-": none)
 *   katomic.rcu=0|1           run rcutorture after them
 *   katomic.probe=1           load /lib/katomic/katomic_smplocks_probe.ko (with the
 *                             parameters in /lib/katomic/probe.params) and remove it
 *                             again: at the start, after cpu1 comes online, at the end
 *                             (the .smp_locks evidence: tools/kernel/smplocks/)
 *   katomic.cpu1_s=N          bring cpu1 online N seconds into the first torture run
 *                             (before torture when there is none); -1 (default): never
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define MODDIR "/lib/katomic"

struct plan {
	long torture_s;
	char locks[512];
	int rcu;
	int probe;
	long cpu1_s;
};

static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line: the kernel's printk lines interleave with ours on
	 * the same serial port, and a line split in two would not parse. */
	if (write(1, "katomic-init: ", 14) < 0 || write(1, line, n) < 0)
		return;
}

/* The console, if the kernel could not open /dev/console for us (no such
 * node in the initramfs): mount devtmpfs and open it ourselves. */
static void console(void)
{
	int fd;

	if (fcntl(1, F_GETFD) != -1)
		return;
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void mounts(void)
{
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	if (mount("proc", "/proc", "proc", 0, NULL) != 0)
		say("mount /proc failed: %s", strerror(errno));
	if (mount("sysfs", "/sys", "sysfs", 0, NULL) != 0)
		say("mount /sys failed: %s", strerror(errno));
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* Apply "key=value" words of `text` (whitespace-separated) to the plan;
 * `prefix` is what each key starts with ("katomic." on the command line). */
static void parse(struct plan *p, const char *text, const char *prefix)
{
	char buf[4096], *save = NULL, *w;
	size_t plen = strlen(prefix);

	snprintf(buf, sizeof(buf), "%s", text);
	for (w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (strncmp(w, prefix, plen) != 0)
			continue;
		w += plen;
		if (strncmp(w, "torture_s=", 10) == 0)
			p->torture_s = strtol(w + 10, NULL, 10);
		else if (strncmp(w, "locks=", 6) == 0)
			snprintf(p->locks, sizeof(p->locks), "%s", w + 6);
		else if (strncmp(w, "rcu=", 4) == 0)
			p->rcu = atoi(w + 4);
		else if (strncmp(w, "probe=", 6) == 0)
			p->probe = atoi(w + 6);
		else if (strncmp(w, "cpu1_s=", 7) == 0)
			p->cpu1_s = strtol(w + 7, NULL, 10);
	}
}

static int cpus_online(const char *list)
{
	/* "0-1,3" -> 3 */
	int n = 0;
	const char *s = list;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += (int)(b - a + 1);
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return n;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void sleep_s(long s)
{
	struct timespec t = { s, 0 };

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static int load(const char *file, const char *params)
{
	char path[256];
	int fd, rc;

	snprintf(path, sizeof(path), MODDIR "/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = (int)syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return rc;
}

static int unload(const char *name)
{
	return (int)syscall(SYS_delete_module, name, O_NONBLOCK);
}

/* The .smp_locks probe: its init prints what the text holds at the lock sites. */
static void probe(const struct plan *p, const char *when)
{
	static char params[4096];

	if (!p->probe)
		return;
	if (read_file(MODDIR "/probe.params", params, sizeof(params)) != 0)
		params[0] = 0;
	say("probe %s", when);
	if (load("katomic_smplocks_probe.ko", params) != 0)
		say("probe %s load-failed: %s", when, strerror(errno));
	else if (unload("katomic_smplocks_probe") != 0)
		say("probe %s unload-failed: %s", when, strerror(errno));
}

/* cpu1 online (once), then the probe.  A CPU the host hot-adds (qemu
 * device_add) shows up in sysfs when ACPI reports it: wait up to 60 s. */
static void cpu1_online(struct plan *p)
{
	int fd, waited = 0;

	while ((fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY)) < 0 && errno == ENOENT &&
	       waited < 60) {
		if (!waited)
			say("waiting for cpu1");
		sleep_s(1);
		waited++;
	}
	p->cpu1_s = -1;
	if (fd < 0) {
		say("cpu1 online failed: %s", strerror(errno));
		return;
	}
	if (write(fd, "1", 1) == 1)
		say("cpu1 online");
	else
		say("cpu1 online failed: %s", strerror(errno));
	close(fd);
	probe(p, "cpu1");
}

/* One torture run: load `file` with `params`, let it run (bringing cpu1
 * online on the way if the plan says so), remove it.
 * Returns 0 when it loaded and was removed. */
static int torture(struct plan *p, const char *module, const char *type, const char *params, long seconds)
{
	char file[64];
	double t0, ran;
	long first;

	snprintf(file, sizeof(file), "%s.ko", module);
	say("torture %s %s start %ld s", module, type, seconds);
	t0 = now();
	if (load(file, params) != 0) {
		say("torture %s %s load-failed: %s", module, type, strerror(errno));
		return -1;
	}
	first = p->cpu1_s >= 0 && p->cpu1_s < seconds ? p->cpu1_s : seconds;
	sleep_s(first);
	if (first < seconds) {
		cpu1_online(p);
		sleep_s(seconds - first);
	}
	ran = now() - t0;
	if (unload(module) != 0) {
		say("torture %s %s unload-failed: %s", module, type, strerror(errno));
		return -1;
	}
	say("torture %s %s ran %.1f s", module, type, ran);
	return 0;
}

int main(void)
{
	struct plan p = { 10, "spin_lock,mutex_lock,rwsem_lock", 1, 0, -1 };
	static char text[4096];
	char params[256], *save = NULL, *t;
	struct utsname u;
	int failed = 0, runs = 0;
	long stat_s;

	console();
	mounts();
	say("start");
	if (uname(&u) == 0)
		say("kernel %s %s %s", u.release, u.version, u.machine);
	if (read_file("/sys/devices/system/cpu/online", text, sizeof(text)) == 0)
		say("cpus online %d (%s)", cpus_online(text), text);
	else
		say("cpus online unknown");
	if (read_file("/katomic.conf", text, sizeof(text)) == 0)
		parse(&p, text, "");
	if (read_file("/proc/cmdline", text, sizeof(text)) == 0)
		parse(&p, text, "katomic.");
	say("plan torture_s=%ld locks=%s rcu=%d probe=%d cpu1_s=%ld", p.torture_s, p.locks, p.rcu, p.probe, p.cpu1_s);
	/* A self-test built as a module (linux 6.1's test_bitops): its init runs the test. */
	if (load("test_bitops.ko", "") == 0) {
		say("test_bitops loaded");
		if (unload("test_bitops") != 0)
			say("test_bitops unload-failed: %s", strerror(errno));
	} else if (errno != ENOENT) {
		say("test_bitops.ko load-failed: %s", strerror(errno));
	}
	probe(&p, "start");
	if (p.cpu1_s >= 0 && p.torture_s <= 0)
		cpu1_online(&p);

	if (p.torture_s > 0) {
		/* torture.ko is its own module when the torture tests are modules. */
		if (load("torture.ko", "") != 0 && errno != EEXIST && errno != ENOENT)
			say("torture.ko load-failed: %s", strerror(errno));
		/* Periodic statistics while it runs (a hung test still shows
		 * how far it got); the final ones come at removal. */
		stat_s = p.torture_s > 30 ? 30 : p.torture_s;
		for (t = strtok_r(p.locks, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (strcmp(t, "-") == 0 || !*t)
				continue;
			snprintf(params, sizeof(params), "torture_type=%s stat_interval=%ld", t, stat_s);
			failed += torture(&p, "locktorture", t, params, p.torture_s) != 0;
			runs++;
		}
		if (p.rcu) {
			snprintf(params, sizeof(params), "torture_type=rcu stat_interval=%ld", stat_s);
			failed += torture(&p, "rcutorture", "rcu", params, p.torture_s) != 0;
			runs++;
		}
		unload("torture");
	}
	if (p.cpu1_s >= 0)
		cpu1_online(&p);
	probe(&p, "end");
	say("done torture runs %d failed %d", runs, failed);
	sync();
	reboot(RB_POWER_OFF);
	say("power-off failed: %s", strerror(errno));
	for (;;)
		pause();
}
