/* SPDX-License-Identifier: MIT */
/*
 * Uniprocessor lock elision (<katomic/up.h>), either backend.
 *
 *   test-up-patch              the table is reserved, not scanned (make check-unit)
 *   test-up-patch scanned N A  after `katomic uplocks`, which reported N table
 *                              sites and A asm-backend records (make check-up)
 *   test-up-patch stale        scanned, then the code or the table was changed:
 *                              every patch call must refuse and change nothing
 *
 * Checked: the safe rule (katomic_up_patch: one possible CPU; this machine's
 * /sys/devices/system/cpu/possible, then fake files through the test-only
 * KATOMIC_UP_POSSIBLE); the affinity rule (katomic_up_patch_pinned: refused
 * while this or another thread may use two CPUs); that patching changes the
 * module's code exactly at the recorded sites (each 0xF0 -> 0x3E) and
 * unpatching restores every byte; which locks are recorded (atomic_inc, a
 * 16-bit cmpxchg, cmpxchg128, a plain lock in inline asm: yes, where the
 * backend or the scan records them; sync_cmpxchg and __KA_LOCK_KEEP: never);
 * exact results, single-threaded and with two threads sharing the one CPU.
 *
 * The code under test (the "module") is in the first half; make check-up
 * also builds it alone as a shared object (-DUP_MODULE_ONLY) and the second
 * half (-DUP_MAIN_ONLY) as the program that links it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(UP_MAIN_ONLY)
#define KATOMIC_UP_TABLE
#define KATOMIC_UP_TESTING	/* KATOMIC_UP_POSSIBLE: fake possible-CPU files */
#endif
#include <katomic/katomic.h>
#if !defined(UP_MAIN_ONLY)
#include <katomic/up.h>
#endif

/* ------------------------------------------------------------ the module */
#define MOD __attribute__((__visibility__("default"), __noinline__))
enum probe { P_INC, P_CAS16, P_SYNC, P_CAS128, P_ASM_LOCK, P_ASM_KEEP, NPROBES };

MOD int mod_patch(void);
MOD int mod_patch_pinned(void);
MOD int mod_unpatch(void);
MOD int mod_scanned(void);
MOD size_t mod_nsites(void);
MOD size_t mod_asm_sites(void);
MOD const unsigned char *mod_site(size_t i);
MOD const char *mod_strerror(int rc);
MOD const char *mod_backend(void);
MOD const unsigned char *mod_probe(enum probe p);
MOD int mod_exercise(void);
MOD void mod_work(long loops, atomic_t *c, atomic64_t *c64, unsigned long *bitmap, atomic_long_t *bits);
MOD void mod_never_called(void);

#if !defined(UP_MAIN_ONLY)
MOD int mod_patch(void) { return katomic_up_patch(); }
MOD int mod_patch_pinned(void) { return katomic_up_patch_pinned(); }
MOD int mod_unpatch(void) { return katomic_up_unpatch(); }
MOD int mod_scanned(void) { return katomic_up_scanned(); }
MOD size_t mod_nsites(void) { return katomic_up_nsites(); }
MOD size_t mod_asm_sites(void) { return __ka_up_asm_n(); }
MOD const unsigned char *mod_site(size_t i) { return katomic_up_site(i); }
MOD const char *mod_strerror(int rc) { return katomic_up_strerror(rc); }
MOD const char *mod_backend(void) { return KATOMIC_BACKEND_NAME; }

/* One lock each; their first lock byte is looked up by mod_probe(). */
MOD void probe_inc(atomic_t *v) { atomic_inc(v); }
MOD short probe_cas16(short *p, short o, short n) { return cmpxchg(p, o, n); }
MOD long probe_sync(long *p, long o, long n) { return sync_cmpxchg(p, o, n); }
MOD bool probe_cas128(u128 *p, u128 *o, u128 n) { return try_cmpxchg128(p, o, n); }
/* A user's own inline asm: a plain lock (found by the scan), and one that must stay. */
MOD void probe_asm_lock(int *p) { __asm__ __volatile__("lock; addl $1, %0" : "+m"(*p) : : "memory", "cc"); }
MOD void probe_asm_keep(int *p) { __asm__ __volatile__(__KA_LOCK_KEEP "addl $1, %0" : "+m"(*p) : : "memory", "cc"); }

/* The test (`make check-up`) overwrites this code in the file to make the scan stale. */
MOD void mod_never_called(void) { abort(); }

/*
 * The first lock byte in f's code: 0xF0, then maybe 0x66 and a REX prefix,
 * then inc/add (ff, 83 /0), cmpxchg (0f b1) or cmpxchg16b (0f c7 /1) with a
 * memory operand.  Sanitizer builds put it a long way in.
 */
static const unsigned char *first_lock(const unsigned char *f)
{
	for (int i = 0; i < 512; i++) {
		const unsigned char *q = f + i + 1;

		if (f[i] != 0xF0)
			continue;
		if (*q == 0x66)
			q++;
		if ((*q & 0xF0) == 0x40)
			q++;
		if ((q[0] == 0xFF || q[0] == 0x83) && (q[1] >> 6) != 3 && ((q[1] >> 3) & 7) == 0)
			return f + i;
		if (q[0] == 0x0F && (q[1] == 0xB1 || (q[1] == 0xC7 && ((q[2] >> 3) & 7) == 1)) && (q[2] >> 6) != 3)
			return f + i;
	}
	return NULL;
}

MOD const unsigned char *mod_probe(enum probe p)
{
	const void *f[NPROBES] = { (const void *)probe_inc, (const void *)probe_cas16,
				   (const void *)probe_sync, (const void *)probe_cas128,
				   (const void *)probe_asm_lock, (const void *)probe_asm_keep };

	return first_lock((const unsigned char *)f[p]);
}

/* Single-threaded results of ops that go through lock sites (and an xchg). */
MOD int mod_exercise(void)
{
	atomic_t v = ATOMIC_INIT(5);
	atomic64_t w = ATOMIC64_INIT(-3);
	unsigned long bm[2] = { 0, 0 };
	unsigned char c = 7;
	short s = 100, s2 = 40;
	long l = 1;
	int old = 6;
	u128 q = ((u128)1 << 64) | 2, qo = q;
	bool good = true;

	atomic_inc(&v);					/* 6 */
	probe_inc(&v);					/* 7 */
	good &= atomic_read(&v) == 7;
	good &= atomic_add_return(9, &v) == 16;
	good &= atomic_fetch_sub(6, &v) == 16;		/* 10 */
	good &= !atomic_sub_and_test(4, &v);		/* 6 */
	good &= atomic_try_cmpxchg(&v, &old, 1);	/* 1 */
	good &= !atomic_try_cmpxchg(&v, &old, 9) && old == 1;
	good &= atomic_dec_and_test(&v);		/* 0 */
	good &= atomic_fetch_or(0x30, &v) == 0 && atomic_read(&v) == 0x30;
	good &= atomic64_add_negative(2, &w);		/* -1 */
	good &= atomic64_inc_and_test(&w);		/* 0 */
	good &= atomic64_cmpxchg(&w, 0, 1LL << 40) == 0 && atomic64_read(&w) == 1LL << 40;
	good &= atomic64_xchg(&w, 4) == 1LL << 40;
	good &= atomic64_inc_not_zero(&w) && atomic64_read(&w) == 5;
	good &= !test_and_set_bit(70, bm) && test_and_set_bit(70, bm) && bm[1] == 1UL << 6;
	good &= test_and_clear_bit(70, bm) && bm[1] == 0;
	good &= !test_and_change_bit(3, bm) && bm[0] == 8;
	set_bit(64, bm);
	clear_bit(3, bm);
	good &= bm[0] == 0 && bm[1] == 1;
	good &= cmpxchg(&c, 7, 8) == 7 && c == 8;
	good &= probe_cas16(&s2, 40, -2) == 40 && s2 == -2 && probe_cas16(&s2, 40, 1) == -2 && s2 == -2;
	good &= xchg(&s, 5) == 100 && s == 5;
	good &= probe_sync(&l, 1, 2) == 1 && l == 2 && probe_sync(&l, 1, 3) == 2 && l == 2;
	good &= probe_cas128(&q, &qo, 3) && q == 3;
	good &= !probe_cas128(&q, &qo, 4) && qo == 3 && q == 3;
	probe_asm_lock(&old);
	probe_asm_keep(&old);
	good &= old == 3;
	smp_mb();
	return good;
}

MOD void mod_work(long loops, atomic_t *c, atomic64_t *c64, unsigned long *bitmap, atomic_long_t *bits)
{
	for (long i = 0; i < loops; i++) {
		atomic_inc(c);
		atomic64_add(3, c64);
		if (!test_and_set_bit((int)(i & 255), bitmap))
			atomic_long_inc(bits);
		if (test_and_clear_bit((int)(i & 255), bitmap))
			atomic_long_dec(bits);
	}
}
#endif /* the module */

#if !defined(UP_MODULE_ONLY)
/* ------------------------------------------------------------ the test */
#include "tap.h"

#define THREAD_LOOPS 2000000

static atomic_t counter;
static atomic64_t counter64;
static atomic_long_t bits_set;
static unsigned long bitmap[4];
static int pinned_cpu;
static bool scanned_run;
static const char *tmpdir;

/* The module's executable segments, and a copy of them. */
struct text {
	const unsigned char *addr[4];
	size_t len[4];
	unsigned char *copy[4];
	int n;
};
static struct text text;

static int find_text(struct dl_phdr_info *info, size_t size, void *data)
{
	const unsigned char *anchor = data;
	struct text t = { { 0 }, { 0 }, { 0 }, 0 };
	bool mine = false;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum && t.n < 4; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *a = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		mine |= anchor >= a && anchor < a + ph->p_memsz;
		t.addr[t.n] = a;
		t.len[t.n++] = ph->p_filesz;
	}
	if (mine)
		text = t;
	return mine;
}

static void text_save(void)
{
	for (int i = 0; i < text.n; i++) {
		free(text.copy[i]);
		text.copy[i] = malloc(text.len[i]);
		memcpy(text.copy[i], text.addr[i], text.len[i]);
	}
}

static bool is_site(const unsigned char *p)
{
	for (size_t i = 0; i < mod_nsites(); i++)
		if (mod_site(i) == p)
			return true;
	return false;
}

/* Compare the code with the saved copy: the number of bytes that differ (-1 if
 * any differs other than a recorded site going from 0xF0 to `now`). */
static long text_diff(unsigned char now)
{
	long n = 0;

	for (int s = 0; s < text.n; s++)
		for (size_t i = 0; i < text.len[s]; i++) {
			if (text.addr[s][i] == text.copy[s][i])
				continue;
			if (text.copy[s][i] != 0xF0 || text.addr[s][i] != now || !is_site(text.addr[s] + i))
				return -1;
			n++;
		}
	return n;
}

static bool sites_are(unsigned char b)
{
	for (size_t i = 0; i < mod_nsites(); i++)
		if (*mod_site(i) != b)
			return false;
	return true;
}

static void *worker(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(pinned_cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	mod_work(THREAD_LOOPS, &counter, &counter64, bitmap, &bits_set);
	return NULL;
}

/* Two threads on the one CPU: preemption never splits an instruction. */
static void two_threads(const char *when)
{
	pthread_t t[2];

	atomic_set(&counter, 0);
	atomic64_set(&counter64, 0);
	atomic_long_set(&bits_set, 0);
	memset(bitmap, 0, sizeof(bitmap));
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ok(atomic_read(&counter) == 2 * THREAD_LOOPS && atomic64_read(&counter64) == 3LL * 2 * THREAD_LOOPS,
	   "%s: two threads on CPU %d: inc count exact (%d of %d), add count exact",
	   when, pinned_cpu, atomic_read(&counter), 2 * THREAD_LOOPS);
	ok(atomic_long_read(&bits_set) == 0 && !bitmap[0] && !bitmap[1] && !bitmap[2] && !bitmap[3],
	   "%s: two threads on CPU %d: test_and_set/clear_bit balanced", when, pinned_cpu);
}

/* Point KATOMIC_UP_POSSIBLE at a file holding `content` (NULL: a file that does not exist). */
static void fake_possible(const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/possible", tmpdir);
	unlink(path);
	if (content) {
		f = fopen(path, "w");
		if (!f || fputs(content, f) < 0 || fclose(f)) {
			perror(path);
			exit(2);
		}
	}
	setenv("KATOMIC_UP_POSSIBLE", path, 1);
}

/* Which probes' locks are recorded: the asm backend records its own, the scan the compiler's. */
static void check_probes(bool is_asm)
{
	static const char *name[NPROBES] = { "atomic_inc", "16-bit cmpxchg", "sync_cmpxchg", "cmpxchg128",
					     "inline asm \"lock; addl\"", "inline asm __KA_LOCK_KEEP \"addl\"" };
	bool want[NPROBES] = { is_asm || scanned_run, is_asm || scanned_run, false, true, scanned_run, false };

	for (int p = 0; p < NPROBES; p++) {
		const unsigned char *lk = mod_probe((enum probe)p);

		ok(lk && *lk == 0xF0 && is_site(lk) == want[p], "%s's lock byte is %srecorded%s", name[p],
		   want[p] ? "" : "not ", lk ? "" : " (lock byte not found)");
	}
}

/* The code is patched: recorded sites 0x3E, sync_cmpxchg still locked, the rest as before. */
static void check_patched(const char *how, int rc)
{
	long d = text_diff(0x3E);
	const unsigned char *sync = mod_probe(P_SYNC), *keep = mod_probe(P_ASM_KEEP);

	ok(rc > 0 && (size_t)rc == mod_nsites(), "%s: %d of %zu sites changed", how, rc, mod_nsites());
	ok(d == rc && sites_are(0x3E),
	   "%s: the code differs from before exactly at the %ld recorded sites, each 0xF0 -> 0x3E", how, d);
	ok(sync && *sync == 0xF0 && keep && *keep == 0xF0, "%s: sync_cmpxchg and __KA_LOCK_KEEP keep their lock", how);
}

static void check_unpatch(const char *how)
{
	int rc = mod_unpatch();

	ok(rc > 0 && (size_t)rc == mod_nsites() && text_diff(0) == 0,
	   "%s: unpatch restored %d sites; the code is byte for byte as before", how, rc);
}

/* The test-only override of the possible-CPU list. */
static void possible_rule(void)
{
	static const struct { const char *content; bool one; } cases[] = {
		{ "0\n", true }, { "7\n", true }, { "0-0\n", true }, { "3", true },
		{ "0-1\n", false }, { "0,1\n", false }, { "0-3,8-11\n", false }, { "1,1\n", false },
		{ "", false }, { "\n", false }, { "x\n", false }, { "1-0\n", false }, { "0-\n", false },
		{ "0\n0\n", false }, { "-1\n", false }, { "0 \n", false }, { "99999999999\n", false },
	};
	char big[1024];
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_possible(cases[i].content);
		rc = mod_patch();
		if (cases[i].one) {
			ok(rc > 0 && (size_t)rc == mod_nsites() && text_diff(0x3E) == rc,
			   "possible \"%.*s\": one CPU: patched (%d)", (int)strcspn(cases[i].content, "\n"),
			   cases[i].content, rc);
			ok(mod_patch() == 0, "  patch again: nothing to change");
			check_unpatch("  ");
		} else {
			ok(rc == -EBUSY && text_diff(0) == 0, "possible \"%.*s\": refused, -EBUSY (got %d), nothing changed",
			   (int)strcspn(cases[i].content, "\n"), cases[i].content, rc);
		}
	}
	fake_possible(NULL);
	rc = mod_patch();
	ok(rc == -EBUSY && text_diff(0) == 0, "possible file missing: refused, -EBUSY (got %d)", rc);
	memset(big, '0', sizeof(big) - 2);
	for (size_t i = 1; i < sizeof(big) - 2; i += 2)
		big[i] = ',';
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	fake_possible(big);
	rc = mod_patch();
	ok(rc == -EBUSY && text_diff(0) == 0, "possible file longer than the parser reads: refused (got %d)", rc);
	unsetenv("KATOMIC_UP_POSSIBLE");
}

/* This machine's own possible-CPU file decides katomic_up_patch(). */
static void real_possible(void)
{
	char buf[256] = "";
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int rc;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		rc = mod_patch();
		ok(rc == -EBUSY && text_diff(0) == 0, "possible-CPU file unreadable: refused (got %d)", rc);
		return;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (strpbrk(buf, ",-") == NULL) {
		diag("this machine has one possible CPU (%s): the refusal is not tested here", buf);
		return;
	}
	rc = mod_patch();
	ok(rc == -EBUSY && text_diff(0) == 0,
	   "possible CPUs %s: katomic_up_patch() refuses with -EBUSY (got %d), nothing changed", buf, rc);
}

struct hold {
	int fd[2];
};

static void *wide_thread(void *arg)
{
	struct hold *h = arg;
	char c;

	(void)!read(h->fd[0], &c, 1);	/* until told to go */
	return NULL;
}

static void stale_run(void)
{
	int rc;

	rc = mod_patch_pinned();
	ok(rc == -ESTALE && text_diff(0) == 0, "stale: katomic_up_patch_pinned() refuses with -ESTALE (got %d), "
	   "nothing changed", rc);
	ok(strstr(mod_strerror(rc), "katomic uplocks") != NULL, "stale: the message says what to do: %s",
	   mod_strerror(rc));
	fake_possible("0\n");
	rc = mod_patch();
	ok(rc == -ESTALE && text_diff(0) == 0, "stale: katomic_up_patch() (one possible CPU) refuses too (got %d)", rc);
	unsetenv("KATOMIC_UP_POSSIBLE");
	ok(mod_unpatch() == 0 && text_diff(0) == 0, "stale: unpatch has nothing to restore");
	ok(mod_exercise(), "stale: single-threaded results are exact");
}

int main(int argc, char **argv)
{
	bool is_asm = strcmp(mod_backend(), "asm") == 0, stale = argc == 2 && !strcmp(argv[1], "stale");
	char tmpl[] = "/tmp/test-up-patch.XXXXXX";
	struct hold hold;
	pthread_t wide;
	cpu_set_t set;
	int cpus, rc;

	scanned_run = stale || (argc == 4 && !strcmp(argv[1], "scanned"));
	if (argc > 1 && !scanned_run) {
		fprintf(stderr, "usage: test-up-patch [scanned N A | stale]\n");
		return 2;
	}
	tmpdir = mkdtemp(tmpl);
	if (!tmpdir) {
		perror("mkdtemp");
		return 2;
	}
	dl_iterate_phdr(find_text, (void *)(const unsigned char *)mod_probe(P_INC));
	if (!text.n) {
		fprintf(stderr, "test-up-patch: cannot find the module's code\n");
		return 2;
	}
	text_save();
	diag("backend %s; %zu recorded lock sites (%zu by the asm backend); table %s", mod_backend(),
	     mod_nsites(), mod_asm_sites(), mod_scanned() == 1 ? "scanned" : mod_scanned() == 0 ? "reserved" : "absent");
	sched_getaffinity(0, sizeof(set), &set);
	cpus = CPU_COUNT(&set);
	for (pinned_cpu = 0; !CPU_ISSET(pinned_cpu, &set); pinned_cpu++)
		;

	if (stale) {
		CPU_ZERO(&set);
		CPU_SET(pinned_cpu, &set);
		ok(sched_setaffinity(0, sizeof(set), &set) == 0, "pinned to CPU %d", pinned_cpu);
		stale_run();
		rmdir(tmpdir);
		return done_testing();
	}
	if (scanned_run) {
		size_t n = strtoul(argv[2], NULL, 10), a = strtoul(argv[3], NULL, 10);

		ok(mod_scanned() == 1 && mod_asm_sites() == a && mod_nsites() == n + a,
		   "scanned: %zu sites = %zu from katomic uplocks + %zu asm-backend records", mod_nsites(), n, a);
	} else {
		ok(mod_scanned() == 0, "the table is reserved and not scanned");
	}
	ok(mod_nsites() > 0 && sites_are(0xF0), "%zu sites recorded, each a lock prefix (0xF0)", mod_nsites());
	check_probes(is_asm);
	ok(mod_exercise(), "unpatched: single-threaded results are exact");

	/* Refusals first: nothing may change. */
	real_possible();
	if (cpus > 1) {
		rc = mod_patch_pinned();
		ok(rc == -EBUSY && text_diff(0) == 0,
		   "%d CPUs usable: katomic_up_patch_pinned() refuses with -EBUSY (got %d), nothing changed", cpus, rc);
	} else {
		diag("only one CPU usable from the start: the affinity refusals are not tested");
	}

	/* Pin this thread only: another thread that may still use two CPUs blocks patching. */
	CPU_ZERO(&set);
	CPU_SET(pinned_cpu, &set);
	if (cpus > 1 && pipe(hold.fd) == 0 && pthread_create(&wide, NULL, wide_thread, &hold) == 0) {
		ok(sched_setaffinity(0, sizeof(set), &set) == 0, "main thread pinned to CPU %d", pinned_cpu);
		rc = mod_patch_pinned();
		ok(rc == -EBUSY && text_diff(0) == 0,
		   "another thread may still use %d CPUs: katomic_up_patch_pinned() refuses (got %d)", cpus, rc);
		(void)!write(hold.fd[1], "x", 1);
		pthread_join(wide, NULL);
		close(hold.fd[0]);
		close(hold.fd[1]);
	} else {
		ok(sched_setaffinity(0, sizeof(set), &set) == 0, "pinned to CPU %d", pinned_cpu);
	}

	possible_rule();

	rc = mod_patch_pinned();
	check_patched("pinned", rc);
	ok(mod_exercise(), "patched: single-threaded results are exact");
	two_threads("patched");
	rc = mod_patch_pinned();
	ok(rc == 0 && text_diff(0x3E) == (long)mod_nsites(), "patch again: idempotent (%d changed)", rc);
	rc = mod_patch();
	ok(rc == 0, "katomic_up_patch() while patched: nothing to change (%d)", rc);
	check_unpatch("pinned");
	rc = mod_unpatch();
	ok(rc == 0 && text_diff(0) == 0, "unpatch again: idempotent (%d changed)", rc);
	ok(mod_exercise(), "restored: single-threaded results are exact");
	two_threads("restored");
	rmdir(tmpdir);
	return done_testing();
}
#endif /* the test */
