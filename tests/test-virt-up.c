/* SPDX-License-Identifier: MIT */
/*
 * virt_mb (and __smp_mb, which is virt_mb) stays a locked instruction after
 * uniprocessor patching (<katomic/up.h>): the other side of a virtio ring is
 * not on our CPU.  Pinned to one CPU, katomic_up_patch_pinned() runs; the
 * `lock addl $0,-4(%rsp)` of virt_mb must still start with 0xF0, while
 * smp_mb's recorded lock (asm backend) becomes 0x3E, which shows that the
 * patching did happen.  x86-64 only (the only target with lock prefixes).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <string.h>
#include <katomic/kernel.h>
#include <katomic/up.h>
#include "tap.h"

#if defined(__x86_64__)
__attribute__((__noinline__)) static void do_virt_mb(void) { virt_mb(); }
__attribute__((__noinline__)) static void do___smp_mb(void) { __smp_mb(); }
__attribute__((__noinline__)) static void do_smp_mb(void) { smp_mb(); }

/*
 * The prefix byte of the first "addl $0,-4(%rsp)" (83 44 24 fc 00) in f's
 * code, or NULL (sanitizer builds put it a long way in).
 */
static const unsigned char *find_addl_rsp(void (*f)(void))
{
	const unsigned char *p = (const unsigned char *)(unsigned long)f;

	for (int i = 1; i < 512; i++)
		if (p[i] == 0x83 && p[i + 1] == 0x44 && p[i + 2] == 0x24 && p[i + 3] == 0xfc && p[i + 4] == 0x00)
			return p + i - 1;
	return NULL;
}

int main(void)
{
	const unsigned char *v = find_addl_rsp(do_virt_mb);
	const unsigned char *k = find_addl_rsp(do___smp_mb);
	const unsigned char *s = find_addl_rsp(do_smp_mb);
	bool asm_backend = strcmp(KATOMIC_BACKEND_NAME, "asm") == 0;
	cpu_set_t set, old;
	int cpu, rc;

	diag("backend %s, %zu recorded lock sites", KATOMIC_BACKEND_NAME, katomic_up_nsites());
	ok(v && *v == 0xF0 && k && *k == 0xF0, "virt_mb and __smp_mb are lock addl $0,-4(%%rsp)");
	for (size_t i = 0; i < katomic_up_nsites(); i++)
		if (katomic_up_site(i) == v || katomic_up_site(i) == k)
			v = k = NULL;
	ok(v && k, "their lock prefixes are not recorded for patching");

	sched_getaffinity(0, sizeof(old), &old);
	for (cpu = 0; !CPU_ISSET(cpu, &old); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ok(sched_setaffinity(0, sizeof(set), &set) == 0, "pinned to CPU %d", cpu);
	rc = katomic_up_patch_pinned();	/* the machine has more CPUs: the pinned rule */
	ok(rc >= 0, "katomic_up_patch_pinned() on one CPU: %d sites changed", rc);
	if (asm_backend)
		ok(rc > 0 && s && *s == 0x3E, "control: smp_mb's recorded lock is now 0x3E (the patching happened)");
	else
		diag("c11 backend: %d sites patched (smp_mb %s)", rc, s ? (*s == 0x3E ? "patched" : "kept") : "not found");
	ok(v && *v == 0xF0 && k && *k == 0xF0, "after patching: virt_mb and __smp_mb still start with 0xF0 (lock)");
	do_virt_mb();
	do___smp_mb();
	do_smp_mb();
	rc = katomic_up_unpatch();
	ok(rc >= 0 && (!asm_backend || (s && *s == 0xF0)), "katomic_up_unpatch(): %d sites restored", rc);
	sched_setaffinity(0, sizeof(old), &old);
	return done_testing();
}
#else
int main(void)
{
	printf("1..0 # SKIP lock prefixes exist on x86-64 only\n");
	return 0;
}
#endif
