/* SPDX-License-Identifier: MIT */
/*
 * x86-64 barriers for memory shared with a device or another machine's CPU,
 * the same in both backends (arch/x86_64.h and backend/asm.h include this).
 */
#ifndef KATOMIC_ARCH_X86_64_IO_H
#define KATOMIC_ARCH_X86_64_IO_H

#include "x86_64-lock.h"

/* TSO covers coherent DMA memory too: loads are not reordered with loads, nor stores with stores. */
#define ka_arch_dma_rmb() ka_barrier()
#define ka_arch_dma_wmb() ka_barrier()
/* The kernel leaves dma_mb to mb(): mfence. */
#define ka_arch_dma_mb() ka_arch_mb()
/*
 * virt_mb: the kernel's smp_mb, lock addl $0,-4(%rsp), with a lock that
 * uniprocessor patching never removes (the hypervisor's CPU is not ours).
 */
#define ka_arch_virt_mb()							\
	__asm__ __volatile__(__KA_LOCK_KEEP "addl $0, -4(%%rsp)" : : : "memory", "cc")

#endif
