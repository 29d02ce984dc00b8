// SPDX-License-Identifier: GPL-2.0
/*
 * katomic: the guest reads its own text at the lock sites the host found and
 * says what each byte holds now: 0xf0 (lock) or 0x3e (DS: patched out by
 * alternatives_smp_unlock()).
 *
 * The kernel's: sites.h (written by katomic_tools.kernel.smplocks_boot from
 * vmlinux): recorded[], the sites .smp_locks names in _text.._etext; kept[],
 * the lock sites in _text.._etext it does not name; sync[], those of them
 * annotated ANNOTATE_KEEP_LOCK (sync_*() on memory shared with a hypervisor,
 * from vmlinux.o; none in a kernel without Xen or Hyper-V).
 *
 * The module's own: subject() holds kernel atomics compiled by the tree's
 * (C11) headers; the module step recorded their lock prefixes in this .ko's
 * .smp_locks when it was linked.  The host reads the final .ko and passes the
 * sites as offsets from subject(): mod_recorded (in .smp_locks: smp_mb()'s
 * fence too, by LOCK_PREFIX) and mod_kept (not: virt_mb()'s fence).  On load, alternatives_smp_module_add()
 * patches them out when the kernel runs UP code; alternatives_enable_smp()
 * puts them back.  sync_subject() holds sync_*() operations, on memory shared
 * with a hypervisor: their locks must stay on one CPU (ANNOTATE_KEEP_LOCK keeps
 * objtool from recording them); the host passes them as mod_sync.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/cpumask.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/refcount.h>
#include <asm/sync_bitops.h>
#include "sites.h"

static unsigned long mod_recorded[64], mod_kept[64], mod_sync[64];
static unsigned int n_mod_recorded, n_mod_kept, n_mod_sync;
module_param_array(mod_recorded, ulong, &n_mod_recorded, 0444);
module_param_array(mod_kept, ulong, &n_mod_kept, 0444);
module_param_array(mod_sync, ulong, &n_mod_sync, 0444);

static noinline __used int subject(atomic_t *a, atomic64_t *b, unsigned long *bits, refcount_t *r)
{
	int ret;

	atomic_inc(a);
	ret = atomic_add_return(2, a);
	ret += atomic_cmpxchg(a, 3, 4);
	ret += (int)atomic64_fetch_or(4, b);
	set_bit(3, bits);
	ret += test_and_clear_bit(5, bits);
	smp_mb();
	virt_mb();
	refcount_inc(r);
	return ret;
}

static noinline __used int sync_subject(unsigned long *bits, u32 *word)
{
	sync_set_bit(1, bits);
	return sync_test_and_clear_bit(2, bits) + sync_cmpxchg(word, 1, 2);
}

static void count(const char *what, const u8 *base, const unsigned long *site, unsigned long n)
{
	unsigned long i, f0 = 0, ds = 0, other = 0;

	for (i = 0; i < n; i++) {
		u8 b = *(const volatile u8 *)(base ? base + site[i] : (const u8 *)site[i]);

		if (b == 0xf0)
			f0++;
		else if (b == 0x3e)
			ds++;
		else
			other++;
	}
	pr_info("katomic-smplocks: %s: %lu sites: %lu hold 0xf0, %lu hold 0x3e, %lu other (online %u, possible %u)\n",
		what, n, f0, ds, other, num_online_cpus(), num_possible_cpus());
}

static int __init probe_init(void)
{
	atomic_t a = ATOMIC_INIT(0);
	atomic64_t b = ATOMIC64_INIT(0);
	unsigned long bits = 0x20;
	refcount_t r = REFCOUNT_INIT(1);
	int ret = subject(&a, &b, &bits, &r);
	unsigned long shared = 0x4;
	u32 word = 1;
	int sret = sync_subject(&shared, &word);

	/* 0+1, +2 = 3 (ret 3), cmpxchg 3->4 (ret 3+3), fetch_or 0 (6), bit 5 was set (7). */
	if (ret != 7 || atomic_read(&a) != 4 || atomic64_read(&b) != 4 || bits != 0x8 ||
	    refcount_read(&r) != 2)
		pr_err("katomic-smplocks: subject() computed %d, a %d, b %lld, bits 0x%lx, r %u: wrong\n",
		       ret, atomic_read(&a), atomic64_read(&b), bits, refcount_read(&r));
	/* bit 2 was set (1), cmpxchg 1->2 returns 1: 2; bit 1 set, bit 2 clear. */
	if (sret != 2 || shared != 0x2 || word != 2)
		pr_err("katomic-smplocks: sync_subject() computed %d, shared 0x%lx, word %u: wrong\n",
		       sret, shared, word);
	count("recorded", NULL, katomic_recorded, katomic_nr_recorded);
	count("unrecorded", NULL, katomic_kept, katomic_nr_kept);
	count("kernel-sync", NULL, katomic_sync, katomic_nr_sync);
	count("module-recorded", (const u8 *)subject, mod_recorded, n_mod_recorded);
	count("module-unrecorded", (const u8 *)subject, mod_kept, n_mod_kept);
	count("module-sync", (const u8 *)sync_subject, mod_sync, n_mod_sync);
	return 0;
}

static void __exit probe_exit(void)
{
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("katomic: read the lock prefixes .smp_locks names, the kernel's and its own");
