// SPDX-License-Identifier: GPL-2.0
/*
 * katomic: the guest reads its own text at the lock sites the host found in
 * vmlinux (sites.h, written by katomic_tools.kernel.smplocks_boot) and says
 * what each byte holds now: 0xf0 (lock) or 0x3e (DS: patched out by
 * alternatives_smp_unlock()).  recorded[]: the sites .smp_locks names in
 * _text.._etext; kept[]: the lock sites in _text.._etext it does not name.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/cpumask.h>
#include "sites.h"

static void count(const char *what, const unsigned long *site, unsigned long n)
{
	unsigned long i, f0 = 0, ds = 0, other = 0;

	for (i = 0; i < n; i++) {
		u8 b = *(const volatile u8 *)site[i];

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
	count("recorded", katomic_recorded, ARRAY_SIZE(katomic_recorded));
	count("unrecorded", katomic_kept, ARRAY_SIZE(katomic_kept));
	return 0;
}

static void __exit probe_exit(void)
{
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("katomic: read the lock prefixes .smp_locks names");
