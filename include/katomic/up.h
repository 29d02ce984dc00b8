/* SPDX-License-Identifier: MIT */
/*
 * Uniprocessor lock elision: the kernel's SMP alternatives trick in user
 * space.  When a process can only ever run on one CPU, no other processor
 * can observe a read-modify-write half done, and an interrupt (here: a
 * preemption or a signal) never splits an instruction, so the `lock` prefix
 * of every atomic instruction is pure cost (about 20 cycles each).
 *
 * The asm backend (-DKATOMIC_BACKEND_ASM) records the address of each lock
 * prefix it emits in the __ka_smp_locks section.  katomic_up_patch() turns
 * each recorded 0xF0 (lock) byte into 0x3E (a DS segment override: a no-op
 * prefix in 64-bit mode, as the kernel uses), making the code pages writable
 * only while it writes them; katomic_up_unpatch() puts the 0xF0 bytes back.
 *
 *   int katomic_up_patch(void)
 *	If exactly one CPU is usable by every thread of the process (the
 *	sched_getaffinity masks, not the number of CPUs of the machine),
 *	unlock every recorded site.  Returns how many sites this call changed
 *	(0 if there is nothing to patch or all are patched already: calling it
 *	twice is harmless), -EBUSY if more than one CPU is usable, or another
 *	negative errno (mprotect refused, e.g. under a W^X policy: -EACCES).
 *   int katomic_up_unpatch(void)
 *	Restore every lock prefix.  Returns how many sites it changed.  Call it
 *	BEFORE letting any thread of the process use a second CPU (widening the
 *	affinity mask): patched code is not SMP-safe.
 *   size_t katomic_up_nsites(void)
 *   const unsigned char *katomic_up_site(size_t i)
 *	The recorded sites (the address of the prefix byte), for tests and tools.
 *
 * Automatic mode (opt-in): define KATOMIC_UP_AUTO before including this
 * header in one translation unit.  A constructor then calls
 * katomic_up_patch() at start-up, unless the environment variable KATOMIC_UP
 * is set to 0; it does nothing when more than one CPU is usable.  Typical use:
 * `taskset -c 0 ./prog`.
 *
 * Scope.  Each executable or shared object has its own table, bounded by the
 * linker-made __start___ka_smp_locks / __stop___ka_smp_locks symbols (hidden),
 * and these functions (hidden, weak: one copy per module) patch the module
 * that calls them.  Never patched: xchg (locked by the CPU itself, no prefix),
 * cmpxchg128's lock cmpxchg16b and sync_cmpxchg (a literal lock: memory may be
 * shared with another agent), the C11 backend's code, and asm written by hand.
 * Code pages are put back to read+execute after patching.
 *
 * Why the C11 backend cannot do this: the compiler emits the lock prefixes of
 * __atomic builtins itself, inline, and records them nowhere; a program cannot
 * find them again (short of disassembling itself), so katomic_up_patch()
 * finds nothing to patch there and returns 0.  This is one of the seed
 * article's objections to C11 atomics in the kernel: the SMP alternatives
 * machinery needs every lock prefix to go through LOCK_PREFIX.
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

int katomic_up_patch(void);
int katomic_up_unpatch(void);
size_t katomic_up_nsites(void);
const unsigned char *katomic_up_site(size_t i);

/* The table: 32-bit offsets, each from its own entry to a lock byte. */
extern const int __start___ka_smp_locks[] __attribute__((__weak__, __visibility__("hidden")));
extern const int __stop___ka_smp_locks[] __attribute__((__weak__, __visibility__("hidden")));

__KA_UP_API size_t katomic_up_nsites(void)
{
	const int *b = __start___ka_smp_locks, *e = __stop___ka_smp_locks;

	return b && e && e > b ? (size_t)(e - b) : 0;
}

__KA_UP_API const unsigned char *katomic_up_site(size_t i)
{
	const int *ent = __start___ka_smp_locks + i;

	if (i >= katomic_up_nsites())
		return NULL;
	return (const unsigned char *)ent + *ent;
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
#define __KA_UP_SYS_MPROTECT		10
#define __KA_UP_SYS_GETDENTS64		217
#define __KA_UP_SYS_OPEN		2
#define __KA_UP_SYS_CLOSE		3
#define __KA_UP_SYS_GETTID		186
#define __KA_UP_SYS_SCHED_GETAFFINITY	204
#define __KA_UP_PAGE			4096UL
#define __KA_UP_PROT_RX			(1 | 4)
#define __KA_UP_PROT_RWX		(1 | 2 | 4)

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
	fd = __ka_up_syscall3(__KA_UP_SYS_OPEN, (long)"/proc/self/task", 0200000 /* O_DIRECTORY */, 0);
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

/* Patching and unpatching exclude each other (one copy per module: weak). */
__attribute__((__weak__, __visibility__("hidden"))) int __ka_up_busy;

/* Rewrite every recorded prefix byte from `from` to `to`. */
static inline int __ka_up_rewrite(unsigned char from, unsigned char to)
{
	size_t n = katomic_up_nsites(), i;
	unsigned long page = 0;
	int changed = 0, err = 0;

	/* Every entry must point at a lock or at its patched form. */
	for (i = 0; i < n; i++) {
		unsigned char b = *katomic_up_site(i);

		if (b != 0xF0 && b != 0x3E)
			return -EILSEQ;
	}
	while (__atomic_exchange_n(&__ka_up_busy, 1, __ATOMIC_ACQUIRE))
		__ka_sched_yield();
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
		/* One byte, stored by this CPU: the only CPU that runs this code (or, unpatching, any). */
		__atomic_store_n(site, to, __ATOMIC_RELAXED);
		changed++;
	}
	if (page)
		__ka_up_syscall3(__KA_UP_SYS_MPROTECT, (long)page, (long)__KA_UP_PAGE, __KA_UP_PROT_RX);
	__atomic_store_n(&__ka_up_busy, 0, __ATOMIC_RELEASE);
	return err ? err : changed;
}

__KA_UP_API int katomic_up_patch(void)
{
	long cpus;

	if (katomic_up_nsites() == 0)
		return 0;
	cpus = __ka_up_process_cpus();
	if (cpus < 0)
		return (int)cpus;
	if (cpus != 1)
		return -EBUSY;
	return __ka_up_rewrite(0xF0, 0x3E);
}

__KA_UP_API int katomic_up_unpatch(void)
{
	if (katomic_up_nsites() == 0)
		return 0;
	return __ka_up_rewrite(0x3E, 0xF0);
}

#else /* not x86-64 Linux: nothing is ever recorded */

__KA_UP_API int katomic_up_patch(void)
{
	return 0;
}

__KA_UP_API int katomic_up_unpatch(void)
{
	return 0;
}

#endif

#ifdef KATOMIC_UP_AUTO
__attribute__((__constructor__, __used__)) static void __ka_up_auto(void)
{
	const char *e = getenv("KATOMIC_UP");

	if (!e || e[0] != '0')
		(void)katomic_up_patch();
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* KATOMIC_UP_H */
