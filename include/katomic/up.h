/* SPDX-License-Identifier: MIT */
/*
 * Uniprocessor lock elision: the kernel's SMP alternatives trick in user
 * space.  When only one CPU can ever run the code, no other processor can
 * observe a read-modify-write half done, and an interrupt (here: a
 * preemption or a signal) never splits an instruction, so the `lock` prefix
 * of every atomic instruction is pure cost (about 20 cycles each).  Patching
 * turns each lock byte (0xF0) into 0x3E, a DS segment override: a no-op
 * prefix in 64-bit mode, as the kernel uses.  Code pages are writable only
 * while their bytes are rewritten, then put back to read+execute.
 *
 * Where the lock sites come from (each executable or shared object patches
 * its own; these functions are hidden and weak: one copy per module):
 *  - the asm backend (-DKATOMIC_BACKEND_ASM) records every lock prefix it
 *    emits in the __ka_smp_locks section (__KA_LOCK_PREFIX, the kernel's
 *    LOCK_PREFIX; arch/x86_64-lock.h);
 *  - the C11 backend's locks are emitted by the compiler, which records them
 *    nowhere: after linking, `katomic uplocks PROG` finds every lock-prefixed
 *    instruction in PROG's executable sections and writes their addresses
 *    into a table reserved in PROG, with a hash of the code it scanned.  The
 *    table is reserved by defining KATOMIC_UP_TABLE (or KATOMIC_UP_AUTO)
 *    before including this header in exactly one translation unit of the
 *    executable or shared object (a second one is a link error: multiple
 *    definition of __ka_up_table_reserved).  It holds KATOMIC_UP_TABLE_MAX
 *    sites (default 4096, 16 KiB; `katomic uplocks` says when it is too small).
 *    Before patching those sites the code is hashed again and every site must
 *    still hold 0xF0; otherwise nothing is patched (-ESTALE).
 * Never patched: locks written with __KA_LOCK_KEEP (sync_cmpxchg in both
 * backends; your own inline asm may use it), which the scan skips, and xchg
 * (locked by the CPU, no prefix).  mb/rmb/wmb are fences, not prefixes.
 *
 *   int katomic_up_patch(void)
 *	The safe rule: patch only when the machine can never run two CPUs,
 *	i.e. /sys/devices/system/cpu/possible lists exactly one (single-vCPU
 *	VMs, single-core boards).  Returns how many sites this call changed (0
 *	when already patched or nothing is recorded), or: -EBUSY (more than one
 *	CPU possible, or the file cannot be read or parsed: nothing changed),
 *	-ENOEXEC (a table is reserved but `katomic uplocks` has not filled it,
 *	and there is nothing else to patch), -ESTALE (the code changed since the
 *	scan), -EILSEQ (an asm-backend record does not point at a lock), or the
 *	mprotect error (-EACCES under a W^X policy).  On any error nothing is
 *	left patched.
 *   int katomic_up_patch_pinned(void)
 *	The affinity rule, for a caller who GUARANTEES two things: no other
 *	process (or device) shares memory that its atomics touch, and nobody
 *	widens the affinity of any of its threads (taskset -p, cgroup cpuset
 *	changes by container runtimes or systemd AllowedCPUs) while it is
 *	patched.  It patches when every thread's sched_getaffinity mask is the
 *	same single CPU, else -EBUSY; other returns as katomic_up_patch().  If
 *	either guarantee breaks, updates ARE lost: a patched atomic_inc on two
 *	CPUs is a plain read-modify-write.
 *   int katomic_up_unpatch(void)
 *	Restore every lock prefix, whichever call patched them.  Returns how
 *	many sites it changed (0 when not patched).  Call it before any thread
 *	may use a second CPU.
 *   size_t katomic_up_nsites(void), const unsigned char *katomic_up_site(size_t i)
 *	The recorded sites (the address of each lock byte): the asm backend's,
 *	then the scanned table's.  For tests and tools.
 *   int katomic_up_scanned(void)
 *	1 if this module's table was filled by `katomic uplocks`, 0 if it is
 *	reserved but empty, -ENOENT if no table is reserved.
 *   const char *katomic_up_strerror(int rc)
 *	One line saying what a return value means.
 *
 * Automatic mode (opt-in): define KATOMIC_UP_AUTO before including this
 * header in one translation unit (it reserves the table too).  A constructor
 * calls katomic_up_patch() at start-up -- the safe rule only -- unless the
 * environment variable KATOMIC_UP is 0.  It is silent when it patches or
 * when more than one CPU is possible, and writes one line to stderr on any
 * other error (KATOMIC_UP=v: always).
 *
 * Test-only override: in a translation unit that defines KATOMIC_UP_TESTING,
 * the environment variable KATOMIC_UP_POSSIBLE names a file read instead of
 * /sys/devices/system/cpu/possible.  Never define KATOMIC_UP_TESTING in a
 * program that is not a test: a file saying "0" makes katomic_up_patch()
 * patch on any machine.
 */
#ifndef KATOMIC_UP_H
#define KATOMIC_UP_H

#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include "compiler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define __KA_UP_API __attribute__((__weak__, __visibility__("hidden"), __noinline__))
#define __KA_UP_WEAK __attribute__((__weak__, __visibility__("hidden")))

int katomic_up_patch(void);
int katomic_up_patch_pinned(void);
int katomic_up_unpatch(void);
size_t katomic_up_nsites(void);
const unsigned char *katomic_up_site(size_t i);
int katomic_up_scanned(void);
const char *katomic_up_strerror(int rc);

/* The asm backend's records: 32-bit offsets, each from its own entry to a lock byte. */
extern const int __start___ka_smp_locks[] __KA_UP_WEAK;
extern const int __stop___ka_smp_locks[] __KA_UP_WEAK;

/*
 * The table `katomic uplocks` fills (tools/up/uplocks.py writes this layout;
 * little-endian, as x86-64).  Offsets are from the first byte of the table,
 * which moves with the code when a PIE or shared object is loaded.  The hash
 * covers the ranges in order: h = 0xcbf29ce484222325, then for every 8-byte
 * word w (the last one zero-padded) and after each range its length:
 * h = (h ^ w) * 0x100000001b3; h ^= h >> 32 (mod 2^64).  It detects a changed
 * binary; it is not a signature.
 */
#define __KA_UP_MAGIC		"katomic-uplocks"	/* 16 bytes with the NUL */
#define __KA_UP_VERSION		1
#define __KA_UP_NRANGES		16
struct __ka_up_range {
	long long off;			/* start of an executable section */
	unsigned long long len;		/* its size in bytes */
};
struct __ka_up_hdr {
	char magic[16];
	unsigned int version;
	unsigned int scanned;		/* 0: reserved; 1: filled by katomic uplocks */
	unsigned int capacity;		/* entries the site array holds */
	unsigned int nsites;		/* entries used, sorted by address */
	unsigned int nranges;
	unsigned int flags;		/* 0 */
	unsigned long long hash;	/* of the ranges, as scanned */
	struct __ka_up_range range[__KA_UP_NRANGES];
	/* followed by int site[capacity]: offsets of the lock bytes */
};
/* The locks that must stay (__KA_LOCK_KEEP): never in the table.  Referenced
 * here so that the linker keeps the section under --gc-sections. */
extern const int __start___ka_keep_locks[] __KA_UP_WEAK;
extern const int __stop___ka_keep_locks[] __KA_UP_WEAK;
extern const unsigned char __start___ka_uplocks[] __KA_UP_WEAK;
extern const unsigned char __stop___ka_uplocks[] __KA_UP_WEAK;

#if (defined(KATOMIC_UP_TABLE) || defined(KATOMIC_UP_AUTO)) && defined(__x86_64__) && defined(__linux__)
#ifndef KATOMIC_UP_TABLE_MAX
#define KATOMIC_UP_TABLE_MAX 4096
#endif
struct __ka_up_table_def {
	struct __ka_up_hdr hdr;
	int site[KATOMIC_UP_TABLE_MAX];
};
/*
 * Read-only data with file contents (not .bss): `katomic uplocks` fills it in
 * the file.  Retained under --gc-sections (lld does not count the
 * __start___ka_uplocks reference).
 */
#if defined(__has_attribute)
#if __has_attribute(__retain__)
#define __KA_UP_RETAIN __retain__,
#endif
#endif
#ifndef __KA_UP_RETAIN
#define __KA_UP_RETAIN
#endif
extern const struct __ka_up_table_def __ka_up_table_reserved __attribute__((__visibility__("hidden")));
__attribute__((__section__("__ka_uplocks"), __used__, __KA_UP_RETAIN __aligned__(8)))
const struct __ka_up_table_def __ka_up_table_reserved = {
	{ __KA_UP_MAGIC, __KA_UP_VERSION, 0, KATOMIC_UP_TABLE_MAX, 0, 0, 0, 0, { { 0, 0 } } },
	{ 0 }
};
#endif

/* This module's table, if one is reserved and well-formed (read through the
 * linker's bounds, so the compiler cannot fold the reserved zeros). */
static inline const struct __ka_up_hdr *__ka_up_table(void)
{
	const unsigned char *b = __start___ka_uplocks, *e = __stop___ka_uplocks;
	const struct __ka_up_hdr *h = (const struct __ka_up_hdr *)(const void *)b;

	if (!b || !e || e < b || (size_t)(e - b) < sizeof(*h))
		return NULL;
	if (__builtin_memcmp(h->magic, __KA_UP_MAGIC, sizeof(h->magic)) || h->version != __KA_UP_VERSION ||
	    (size_t)(e - b) < sizeof(*h) + (size_t)h->capacity * sizeof(int))
		return NULL;
	return h;
}

static inline const int *__ka_up_table_sites(const struct __ka_up_hdr *h)
{
	return (const int *)(const void *)(h + 1);
}

/* The table's sites, if it was filled. */
static inline size_t __ka_up_table_n(const struct __ka_up_hdr *h)
{
	return h && h->scanned == 1 && h->nsites <= h->capacity && h->nranges <= __KA_UP_NRANGES ?
		h->nsites : 0;
}

static inline size_t __ka_up_asm_n(void)
{
	const int *b = __start___ka_smp_locks, *e = __stop___ka_smp_locks;

	return b && e && e > b ? (size_t)(e - b) : 0;
}

__KA_UP_API size_t katomic_up_nsites(void)
{
	return __ka_up_asm_n() + __ka_up_table_n(__ka_up_table());
}

__KA_UP_API const unsigned char *katomic_up_site(size_t i)
{
	const struct __ka_up_hdr *h = __ka_up_table();
	size_t na = __ka_up_asm_n();

	if (i < na) {
		const int *ent = __start___ka_smp_locks + i;

		return (const unsigned char *)ent + *ent;
	}
	if (i - na < __ka_up_table_n(h))
		return (const unsigned char *)h + __ka_up_table_sites(h)[i - na];
	return NULL;
}

__KA_UP_API int katomic_up_scanned(void)
{
	const struct __ka_up_hdr *h = __ka_up_table();

	return h ? h->scanned == 1 : -ENOENT;
}

__KA_UP_API const char *katomic_up_strerror(int rc)
{
	if (rc >= 0)
		return "patched (or nothing to do)";
	switch (-rc) {
	case EBUSY:
		return "more than one CPU may run this code: nothing patched "
		       "(katomic_up_patch: /sys/devices/system/cpu/possible lists more than one CPU "
		       "or cannot be read; katomic_up_patch_pinned: a thread may run on another CPU)";
	case ESTALE:
		return "the code changed since `katomic uplocks` scanned it (hash or a recorded lock "
		       "site differs): nothing patched; run katomic uplocks on the new binary";
	case ENOEXEC:
		return "the lock-site table is reserved but empty: run `katomic uplocks PROG` after linking";
	case EILSEQ:
		return "an asm-backend lock record does not point at a lock prefix: nothing patched";
	case EACCES:
	case EPERM:
		return "the code pages cannot be made writable (mprotect refused, e.g. a W^X policy): nothing patched";
	default:
		return "error: nothing patched";
	}
}

#if defined(__x86_64__) && defined(__linux__)

/*
 * Raw system calls: sched_getaffinity and cpu_set_t need _GNU_SOURCE before
 * the first system header, which a header cannot promise.
 */
static inline long __ka_up_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ __volatile__("syscall"
		: "=a"(ret)
		: "0"(nr), "D"(a), "S"(b), "d"(c)
		: "rcx", "r11", "memory");
	return ret;
}
#define __KA_UP_SYS_READ		0
#define __KA_UP_SYS_WRITE		1
#define __KA_UP_SYS_OPEN		2
#define __KA_UP_SYS_CLOSE		3
#define __KA_UP_SYS_MPROTECT		10
#define __KA_UP_SYS_SCHED_GETAFFINITY	204
#define __KA_UP_SYS_GETDENTS64		217
#define __KA_UP_O_CLOEXEC		02000000
#define __KA_UP_O_DIRECTORY		0200000
#define __KA_UP_PAGE			4096UL
#define __KA_UP_PROT_RX			(1 | 4)
#define __KA_UP_PROT_RWX		(1 | 2 | 4)

/*
 * How many CPUs the machine may ever run: the cpulist in
 * /sys/devices/system/cpu/possible ("0", "0-3", "0-3,8-11"), which covers
 * every CPU that could be hot-added.  -1 when it cannot be read or parsed.
 */
static inline long __ka_up_possible_cpus(void)
{
	const char *path = "/sys/devices/system/cpu/possible";
	char buf[512];
	const char *p = buf;
	long fd, len, n = 0;

#ifdef KATOMIC_UP_TESTING	/* tests only: see the top of this file */
	if (getenv("KATOMIC_UP_POSSIBLE"))
		path = getenv("KATOMIC_UP_POSSIBLE");
#endif
	fd = __ka_up_syscall3(__KA_UP_SYS_OPEN, (long)path, __KA_UP_O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	len = __ka_up_syscall3(__KA_UP_SYS_READ, fd, (long)buf, (long)sizeof(buf) - 1);
	__ka_up_syscall3(__KA_UP_SYS_CLOSE, fd, 0, 0);
	if (len <= 0 || len >= (long)sizeof(buf) - 1)
		return -1;
	buf[len] = '\0';
	for (;;) {
		long a = 0, b;

		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9' && a < 1000000)
			a = a * 10 + (*p++ - '0');
		b = a;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -1;
			for (b = 0; *p >= '0' && *p <= '9' && b < 1000000; )
				b = b * 10 + (*p++ - '0');
		}
		if (b < a || b >= 1000000)
			return -1;
		n += b - a + 1;
		if (*p != ',')
			break;
		p++;
	}
	if (*p == '\n')
		p++;
	return *p ? -1 : n;
}

/*
 * The union of the CPUs usable by any thread: every thread's mask is read
 * (/proc/self/task); with /proc unavailable only the caller's.  Returns 1
 * when exactly one CPU is usable (and every thread's mask is that CPU), the
 * number of usable CPUs otherwise, or -errno.
 */
static inline long __ka_up_process_cpus(void)
{
	unsigned long first[128], mask[128];
	long n0 = __ka_up_syscall3(__KA_UP_SYS_SCHED_GETAFFINITY, 0, (long)sizeof(first), (long)first);
	long fd, cpus = 0;

	if (n0 < 0)
		return n0;
	for (long i = 0; i < n0 / (long)sizeof(first[0]); i++)
		cpus += __builtin_popcountl(first[i]);
	if (cpus != 1)
		return cpus;
	fd = __ka_up_syscall3(__KA_UP_SYS_OPEN, (long)"/proc/self/task",
			      __KA_UP_O_DIRECTORY | __KA_UP_O_CLOEXEC, 0);
	if (fd < 0)
		return cpus;
	for (;;) {
		char buf[4096];
		long len = __ka_up_syscall3(__KA_UP_SYS_GETDENTS64, fd, (long)buf, (long)sizeof(buf));

		if (len <= 0)
			break;
		for (long off = 0; off < len;) {
			/* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[] */
			unsigned short reclen;
			const char *name = buf + off + 19;
			long tid = 0, n;

			__builtin_memcpy(&reclen, buf + off + 16, sizeof(reclen));
			off += reclen;
			if (*name < '0' || *name > '9')
				continue;
			while (*name >= '0' && *name <= '9')
				tid = tid * 10 + (*name++ - '0');
			n = __ka_up_syscall3(__KA_UP_SYS_SCHED_GETAFFINITY, tid, (long)sizeof(mask), (long)mask);
			if (n < 0)
				continue;	/* the thread has exited meanwhile */
			for (long i = 0; i < n / (long)sizeof(mask[0]); i++)
				if (mask[i] != (i < n0 / (long)sizeof(first[0]) ? first[i] : 0)) {
					cpus = 2;	/* another thread may run elsewhere */
					break;
				}
			if (cpus != 1)
				break;
		}
		if (cpus != 1)
			break;
	}
	__ka_up_syscall3(__KA_UP_SYS_CLOSE, fd, 0, 0);
	return cpus;
}

/* The text hash (see struct __ka_up_hdr); tools/up/uplocks.py computes the same. */
static inline unsigned long long __ka_up_hash_step(unsigned long long h, unsigned long long w)
{
	h = (h ^ w) * 0x100000001b3ULL;
	return h ^ (h >> 32);
}

static inline unsigned long long __ka_up_text_hash(const struct __ka_up_hdr *h)
{
	unsigned long long x = 0xcbf29ce484222325ULL;

	for (unsigned int r = 0; r < h->nranges; r++) {
		const unsigned char *p = (const unsigned char *)h + h->range[r].off;
		unsigned long long len = h->range[r].len, i, w;

		for (i = 0; i + 8 <= len; i += 8) {
			__builtin_memcpy(&w, p + i, 8);
			x = __ka_up_hash_step(x, w);
		}
		if (i < len) {
			w = 0;
			__builtin_memcpy(&w, p + i, (size_t)(len - i));
			x = __ka_up_hash_step(x, w);
		}
		x = __ka_up_hash_step(x, len);
	}
	return x;
}

/* Before the first patch: the scanned table still describes this code. */
static inline int __ka_up_table_check(const struct __ka_up_hdr *h)
{
	const int *site = __ka_up_table_sites(h);
	size_t n = __ka_up_table_n(h);

	if (n != h->nsites || __ka_up_text_hash(h) != h->hash)
		return -ESTALE;
	for (size_t i = 0; i < n; i++) {
		bool inside = false;

		for (unsigned int r = 0; r < h->nranges; r++)
			inside |= site[i] >= h->range[r].off &&
				  (unsigned long long)(site[i] - h->range[r].off) < h->range[r].len;
		if (!inside || *((const unsigned char *)h + site[i]) != 0xF0)
			return -ESTALE;
	}
	/* A lock that must stay locked is never patched, whatever the table says. */
	if (__start___ka_keep_locks && __stop___ka_keep_locks)
		for (const int *k = __start___ka_keep_locks; k < __stop___ka_keep_locks; k++)
			for (size_t i = 0; i < n; i++)
				if ((const unsigned char *)k + *k == (const unsigned char *)h + site[i])
					return -ESTALE;
	return 0;
}

/* One copy per module (weak): patched or not, and a lock around changing it. */
__KA_UP_WEAK int __ka_up_busy;
__KA_UP_WEAK int __ka_up_patched;

/* Rewrite every recorded byte that holds `from` to `to`; returns how many, or -errno. */
static inline int __ka_up_rewrite(unsigned char from, unsigned char to)
{
	size_t n = katomic_up_nsites(), i;
	unsigned long page = 0;
	int changed = 0, err = 0;

	for (i = 0; i < n; i++) {
		unsigned char *site = (unsigned char *)(unsigned long)katomic_up_site(i);
		unsigned long pg = (unsigned long)site & ~(__KA_UP_PAGE - 1);

		if (*site != from)
			continue;
		if (pg != page) {
			if (page)
				__ka_up_syscall3(__KA_UP_SYS_MPROTECT, (long)page, (long)__KA_UP_PAGE, __KA_UP_PROT_RX);
			page = 0;
			err = (int)__ka_up_syscall3(__KA_UP_SYS_MPROTECT, (long)pg, (long)__KA_UP_PAGE, __KA_UP_PROT_RWX);
			if (err)
				break;
			page = pg;
		}
		/* One byte, stored by the only CPU that runs this code (or, unpatching, by any). */
		__atomic_store_n(site, to, __ATOMIC_RELAXED);
		changed++;
	}
	if (page)
		__ka_up_syscall3(__KA_UP_SYS_MPROTECT, (long)page, (long)__KA_UP_PAGE, __KA_UP_PROT_RX);
	return err ? err : changed;
}

/* Patch every site if `cpus` (the rule's count, or -1 for unknown) is 1. */
static inline int __ka_up_apply(long cpus)
{
	const struct __ka_up_hdr *h = __ka_up_table();
	size_t na = __ka_up_asm_n(), i;
	int rc = 0;

	if (!na && !h)
		return 0;			/* nothing is recorded in this module */
	while (__atomic_exchange_n(&__ka_up_busy, 1, __ATOMIC_ACQUIRE))
		__ka_sched_yield();
	if (__ka_up_patched)
		goto out;			/* already: calling twice is harmless */
	if (cpus != 1) {
		rc = -EBUSY;
		goto out;
	}
	if (!na && !__ka_up_table_n(h)) {
		rc = h->scanned ? 0 : -ENOEXEC;	/* C11 code, not scanned: say so */
		goto out;
	}
	if (h && h->scanned && (rc = __ka_up_table_check(h)))
		goto out;			/* even with no site in it: the code changed */
	for (i = 0; i < na; i++)
		if (*katomic_up_site(i) != 0xF0) {
			rc = -EILSEQ;
			goto out;
		}
	rc = __ka_up_rewrite(0xF0, 0x3E);
	if (rc < 0)
		(void)__ka_up_rewrite(0x3E, 0xF0);	/* undo a partial patch */
	else
		__ka_up_patched = 1;
out:
	__atomic_store_n(&__ka_up_busy, 0, __ATOMIC_RELEASE);
	return rc;
}

__KA_UP_API int katomic_up_patch(void)
{
	return __ka_up_apply(__ka_up_possible_cpus());
}

__KA_UP_API int katomic_up_patch_pinned(void)
{
	long cpus = __ka_up_process_cpus();

	return cpus < 0 ? (int)cpus : __ka_up_apply(cpus);
}

__KA_UP_API int katomic_up_unpatch(void)
{
	int rc = 0;

	while (__atomic_exchange_n(&__ka_up_busy, 1, __ATOMIC_ACQUIRE))
		__ka_sched_yield();
	if (__ka_up_patched) {
		rc = __ka_up_rewrite(0x3E, 0xF0);
		if (rc >= 0)
			__ka_up_patched = 0;
	}
	__atomic_store_n(&__ka_up_busy, 0, __ATOMIC_RELEASE);
	return rc;
}

#ifdef KATOMIC_UP_AUTO
/* One line on stderr: "katomic: uniprocessor lock elision: <what rc means>". */
static inline void __ka_up_report(int rc)
{
	const char *pre = "katomic: uniprocessor lock elision: ", *msg = katomic_up_strerror(rc);
	char line[512];
	size_t n = 0;

	for (const char *s = pre; *s && n < sizeof(line) - 1; s++)
		line[n++] = *s;
	for (const char *s = msg; *s && n < sizeof(line) - 1; s++)
		line[n++] = *s;
	line[n++] = '\n';
	(void)__ka_up_syscall3(__KA_UP_SYS_WRITE, 2, (long)line, (long)n);
}

__attribute__((__constructor__, __used__)) static void __ka_up_auto(void)
{
	const char *e = getenv("KATOMIC_UP");
	int rc;

	if (e && e[0] == '0')
		return;
	rc = katomic_up_patch();
	if ((rc < 0 && rc != -EBUSY) || (e && e[0] == 'v'))
		__ka_up_report(rc);
}
#endif

#else /* not x86-64 Linux: nothing is ever recorded */

__KA_UP_API int katomic_up_patch(void)
{
	return 0;
}

__KA_UP_API int katomic_up_patch_pinned(void)
{
	return 0;
}

__KA_UP_API int katomic_up_unpatch(void)
{
	return 0;
}

#endif

#ifdef __cplusplus
}
#endif

#endif /* KATOMIC_UP_H */
