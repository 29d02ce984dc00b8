/* SPDX-License-Identifier: MIT */
/*
 * PLACEHOLDER, owned by branch `up`: its version of this file replaces this
 * one on merge.  __KA_LOCK_KEEP is a lock prefix (as an asm string) that
 * uniprocessor patching (<katomic/up.h>) must never touch, in either
 * backend: branch `up` adds the record that tells its lock scanner to skip
 * the site.  Here it is only the prefix.
 */
#ifndef KATOMIC_ARCH_X86_64_LOCK_H
#define KATOMIC_ARCH_X86_64_LOCK_H

#define __KA_LOCK_KEEP "lock "

#endif
