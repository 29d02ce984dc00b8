/* SPDX-License-Identifier: MIT */
/*
 * What tools/virtio/ringtest/main.h defines for itself (barrier, cpu_relax,
 * smp_mb, smp_wmb, smp_release, smp_acquire, READ_ONCE, WRITE_ONCE,
 * busy_wait), taken from katomic instead: tests/linux-source/ringtest.py cuts
 * that block out of a copy of main.h (extracted at test time) and includes
 * this file in its place.  ptr_ring.c's pthread spinlock stand-ins are cut
 * too: ptr_ring.h then runs on katomic's spinlock_t and its _irqsave, _irq
 * and _bh forms, and on <katomic/kernel.h>'s likely/unlikely.
 */
#ifndef KATOMIC_RINGTEST_H
#define KATOMIC_RINGTEST_H

#include <stddef.h>
#include <katomic/kernel.h>

/*
 * The ring test's two fences are not kernel API: a release fence (earlier
 * loads and stores before later stores) and an acquire fence.  No kernel
 * barrier lighter than a full one orders earlier loads before later stores,
 * so both are virt_mb(), which also stays a barrier after uniprocessor
 * patching (the test's guest and host stand for two machines).
 */
#define smp_release() virt_mb()
#define smp_acquire() virt_mb()

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

/* Poll politely or not, as the test's --relax option says (main.c defines do_relax). */
extern bool do_relax;
static inline void busy_wait(void)
{
	if (do_relax)
		cpu_relax();
	else
		barrier();
}

/*
 * Linux 6.12's ptr_ring.h allocates through the allocation-profiling names,
 * which the ring test's own ptr_ring.c does not define (its upstream build
 * fails to link): map them to the plain allocators ptr_ring.c has.
 */
#define alloc_hooks(call)		(call)
#define kmalloc_array_noprof		kmalloc_array
#define kvmalloc_array_noprof		kvmalloc_array

#endif
