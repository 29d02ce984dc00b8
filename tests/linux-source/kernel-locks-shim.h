/* SPDX-License-Identifier: MIT */
/*
 * What the kernel's lock code (kernel/locking/qspinlock.c, mcs_spinlock.h,
 * osq_lock.c of linux-source-6.12, extracted at test time by
 * tests/linux-source/kernel-locks.py) needs around it, in user space, with
 * katomic as its atomics and barriers.  Every kernel header those files
 * include is replaced by a one-line file that includes this one.
 *
 * A thread is a CPU: smp_processor_id() is the thread's index, set by the
 * driver before its first lock, and per-CPU variables are the kernel's own
 * scheme: the variables are defined in a section of their own (the CPU 0
 * copy is never used), and each CPU's copy is at a fixed offset from it in
 * an area the driver allocates, so per_cpu_ptr(&x, cpu) reaches another
 * thread's copy (decode_tail() does).
 *
 * -DKL_PLAIN_SPIN replaces katomic's waiting loops (smp_cond_load_*,
 * atomic_cond_read_*, which yield every 256 polls) by plain load + pause
 * loops that never yield, as user-space ports of these locks usually do:
 * the reference the katomic build is measured against.
 */
#ifndef KL_SHIM_H
#define KL_SHIM_H

#include <stddef.h>
#include <stdbool.h>
#include <katomic/kernel.h>

/* -------------------------------------------------------------- waiting */
#ifdef KL_PLAIN_SPIN
#undef smp_cond_load_relaxed
#undef smp_cond_load_acquire
#undef atomic_cond_read_relaxed
#undef atomic_cond_read_acquire
#define smp_cond_load_relaxed(ptr, cond_expr) __extension__({		\
	__typeof__(ptr) __p = (ptr);					\
	__typeof__(*__p + 0) VAL;					\
	for (;;) {							\
		VAL = READ_ONCE(*__p);					\
		if (cond_expr)						\
			break;						\
		cpu_relax();						\
	}								\
	VAL;								\
})
#define smp_cond_load_acquire(ptr, cond_expr) __extension__({		\
	__typeof__(*(ptr) + 0) __v = smp_cond_load_relaxed(ptr, cond_expr); \
	smp_acquire__after_ctrl_dep();					\
	__v;								\
})
#define atomic_cond_read_relaxed(v, c)	smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_cond_read_acquire(v, c)	smp_cond_load_acquire(&(v)->counter, (c))
#endif

/* ---------------------------------------------------------- compiler, bugs */
#define __pure			__attribute__((__pure__))
#define __lockfunc
#define __init
#define __user
struct file;
#define __aligned(x)		__attribute__((__aligned__(x)))
#define ____cacheline_aligned	__aligned(64)
#define SMP_CACHE_BYTES		64
#define EXPORT_SYMBOL(x)	extern int kl_export_##x
#define EXPORT_SYMBOL_GPL(x)	extern int kl_export_##x
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)
#define WARN_ON_ONCE(c)		kl_warn_on(!!(c), __FILE__, __LINE__, #c)
#define WARN_ON(c)		WARN_ON_ONCE(c)
#define BUG_ON(c)		((void)WARN_ON_ONCE(c))
int kl_warn_on(int cond, const char *file, int line, const char *what);

/* -------------------------------------------------------------- CPUs */
#define CONFIG_NR_CPUS		64
#define NR_CPUS			CONFIG_NR_CPUS
extern __thread int kl_cpu;		/* this thread's "CPU" */
#define smp_processor_id()	kl_cpu
#define raw_smp_processor_id()	kl_cpu
/* The lock code runs in task context, never preempted in the kernel's sense. */
#define in_task()		1
#define in_nmi()		0
#define need_resched()		false
#define vcpu_is_preempted(cpu)	((void)(cpu), false)
#define preempt_disable()	barrier()
#define preempt_enable()	barrier()

/* ---------------------------------------------------------- per-CPU data */
#define KL_PERCPU __attribute__((__section__("kl_percpu"), __used__))
#define DEFINE_PER_CPU(type, name)			KL_PERCPU type name
#define DEFINE_PER_CPU_ALIGNED(type, name)		KL_PERCPU __aligned(64) type name
#define DEFINE_PER_CPU_SHARED_ALIGNED(type, name)	KL_PERCPU __aligned(64) type name
extern unsigned long kl_percpu_offset[NR_CPUS];
#define per_cpu_ptr(ptr, cpu)	((__typeof__(ptr))((char *)(ptr) + kl_percpu_offset[(cpu)]))
#define this_cpu_ptr(ptr)	per_cpu_ptr(ptr, kl_cpu)
#define __this_cpu_dec(x)	((*this_cpu_ptr(&(x)))--)
#define __this_cpu_inc(x)	((*this_cpu_ptr(&(x)))++)
#define this_cpu_dec(x)		__this_cpu_dec(x)
#define this_cpu_inc(x)		__this_cpu_inc(x)

/* ------------------------------------------------------------- tracing */
#define LCB_F_SPIN		(1U << 0)
#define trace_contention_begin(lock, flags)	do { (void)(lock); } while (0)
#define trace_contention_end(lock, ret)		do { (void)(lock); } while (0)

#endif /* KL_SHIM_H */
