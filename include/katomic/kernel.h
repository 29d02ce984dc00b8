/* SPDX-License-Identifier: MIT */
/*
 * <katomic/kernel.h>: the kernel's basic vocabulary that lock-free and lock
 * code uses beside the atomics, for porting it unchanged:
 *   u8 u16 u32 u64 s8 s16 s32 s64, __u8 ... __s64
 *   likely(x), unlikely(x), prefetch(x), prefetchw(x)
 *   __smp_mb(), __smp_rmb(), __smp_wmb(), __smp_store_mb(var, value),
 *   __smp_mb__before_atomic(), __smp_mb__after_atomic(),
 *   __smp_load_acquire(p), __smp_store_release(p, v)   (asm-generic's names)
 *   spin_unlock_wait(lock)   (kernels before 4.13)
 * Opt-in: katomic.h defines none of these, since programs often have their
 * own; this header includes katomic.h.  likely/unlikely/prefetch/prefetchw
 * are the kernel's definitions token for token, so a program's identical
 * copy is no redefinition, and a different one made before this header is
 * kept.
 */
#ifndef KATOMIC_KERNEL_H
#define KATOMIC_KERNEL_H

#include "katomic.h"

/*
 * __u8 ... __s64 are Linux's own where its UAPI headers exist, so that
 * <linux/types.h> (which many libc headers include) before or after this
 * header declares the same types: on 64-bit POWER and MIPS the UAPI's
 * __u64/__s64 are then long, as user space has them there.  u8 ... s64 are
 * the kernel's own types on every target: u64 is unsigned long long, so the
 * kernel's %llu formats stay right.
 */
#if defined(__has_include)
#if __has_include(<asm/types.h>)
#define __KA_HAVE_LINUX_TYPES 1
#endif
#endif
#ifdef __KA_HAVE_LINUX_TYPES
#include <asm/types.h>
typedef __u8  ka___u8;
typedef __u16 ka___u16;
typedef __u32 ka___u32;
typedef __u64 ka___u64;
typedef __s8  ka___s8;
typedef __s16 ka___s16;
typedef __s32 ka___s32;
typedef __s64 ka___s64;
#else
typedef unsigned char      ka___u8;
typedef unsigned short     ka___u16;
typedef unsigned int       ka___u32;
__extension__ typedef unsigned long long ka___u64;
typedef signed char        ka___s8;
typedef short              ka___s16;
typedef int                ka___s32;
__extension__ typedef long long ka___s64;
#endif
typedef unsigned char      ka_u8;
typedef unsigned short     ka_u16;
typedef unsigned int       ka_u32;
__extension__ typedef unsigned long long ka_u64;
typedef signed char        ka_s8;
typedef short              ka_s16;
typedef int                ka_s32;
__extension__ typedef long long ka_s64;

/* Branch hints and prefetches (the kernel's generic forms). */
#define ka_likely(x)		__builtin_expect(!!(x), 1)
#define ka_unlikely(x)		__builtin_expect(!!(x), 0)
#define ka_prefetch(x)		__builtin_prefetch(x)
#define ka_prefetchw(x)		__builtin_prefetch(x, 1)

/*
 * asm-generic's __smp_* are the architecture's SMP barriers whatever the
 * configuration; the kernel builds virt_* on them.  Here too: they are the
 * virt_* barriers, never weakened by uniprocessor patching.
 */
#define ka___smp_mb()			ka_virt_mb()
#define ka___smp_rmb()			ka_virt_rmb()
#define ka___smp_wmb()			ka_virt_wmb()
#define ka___smp_store_mb(var, value)	ka_virt_store_mb(var, value)
#define ka___smp_mb__before_atomic()	ka_virt_mb__before_atomic()
#define ka___smp_mb__after_atomic()	ka_virt_mb__after_atomic()
#define ka___smp_load_acquire(p)	ka_virt_load_acquire(p)
#define ka___smp_store_release(p, v)	ka_virt_store_release(p, v)

/* spin_unlock_wait is ka_spin_unlock_wait (spinlock.h); only its plain name is opt-in. */

#include "generated/names-kernel.h"

#endif /* KATOMIC_KERNEL_H */
