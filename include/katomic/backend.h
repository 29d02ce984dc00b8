/* SPDX-License-Identifier: MIT */
/*
 * Selects the backend: the minimal set of size-generic ka_arch_ primitives
 * that everything else is derived from (see docs/backends.md).
 *   default               C11 __atomic builtins + a per-architecture policy
 *   -DKATOMIC_BACKEND_ASM  kernel-style inline asm (x86-64 only)
 */
#ifndef KATOMIC_BACKEND_H
#define KATOMIC_BACKEND_H

#include "compiler.h"

#if defined(KATOMIC_BACKEND_ASM)
#include "backend/asm.h"
#else
#define KATOMIC_BACKEND_NAME "c11"
#include "backend/c11.h"
#endif

/* Asm is no call: nothing to undo (compiler.h, __ka_hot). */
#ifndef __ka_arch_hot
#define __ka_arch_hot() ((void)0)
#endif

/*
 * Defaults for what a backend leaves out, as in the kernel's asm-generic:
 * barriers a backend does not name are built from stronger ones.
 */
#ifndef ka_arch_smp_rmb
#define ka_arch_smp_rmb() ka_arch_smp_mb()
#endif
#ifndef ka_arch_smp_wmb
#define ka_arch_smp_wmb() ka_arch_smp_mb()
#endif
#ifndef ka_arch_mb__before_atomic
#define ka_arch_mb__before_atomic() ka_arch_smp_mb()
#endif
#ifndef ka_arch_mb__after_atomic
#define ka_arch_mb__after_atomic() ka_arch_smp_mb()
#endif
#ifndef ka_arch_acquire__after_ctrl_dep
#define ka_arch_acquire__after_ctrl_dep() ka_arch_smp_rmb()
#endif
#ifndef ka_arch_mb__after_spinlock
#define ka_arch_mb__after_spinlock() ka_arch_smp_mb()
#endif
#ifndef ka_arch_mb__after_unlock_lock
#define ka_arch_mb__after_unlock_lock() ka_arch_smp_mb()
#endif
#ifndef ka_arch_cpu_relax
#define ka_arch_cpu_relax() ka_barrier()
#endif
/* dma_*: the I/O barriers unless the architecture has lighter ones (asm-generic). */
#ifndef ka_arch_dma_mb
#define ka_arch_dma_mb() ka_arch_mb()
#endif
#ifndef ka_arch_dma_rmb
#define ka_arch_dma_rmb() ka_arch_rmb()
#endif
#ifndef ka_arch_dma_wmb
#define ka_arch_dma_wmb() ka_arch_wmb()
#endif
/* virt_mb: smp_mb, where nothing can weaken smp_mb (x86-64 has its own). */
#ifndef ka_arch_virt_mb
#define ka_arch_virt_mb() ka_arch_smp_mb()
#endif

/* Fences the generated fallbacks put around a backend's _relaxed op. */
#ifndef __ka_acquire_fence
#define __ka_acquire_fence() ka_arch_mb__after_atomic()
#endif
#ifndef __ka_release_fence
#define __ka_release_fence() ka_arch_mb__before_atomic()
#endif
#ifndef __ka_pre_full_fence
#define __ka_pre_full_fence() ka_arch_mb__before_atomic()
#endif
#ifndef __ka_post_full_fence
#define __ka_post_full_fence() ka_arch_mb__after_atomic()
#endif

#endif /* KATOMIC_BACKEND_H */
