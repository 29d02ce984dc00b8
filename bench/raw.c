/* SPDX-License-Identifier: MIT */
/*
 * Contender: the hardware limit.  Each op is the single x86-64 instruction
 * (or the minimal sequence that produces the op's result) in inline asm,
 * in the same C loop as everyone else.  fetch_or has no single instruction:
 * it is the lock cmpxchg loop.  Workloads other than refcount are n/a.
 */
#include <stdbool.h>

#define KB_DESC "raw x86-64 instruction (inline asm)"

#if defined(__x86_64__)
#define KB_INC(p)	__asm__ __volatile__("lock incl %0" : "+m"(*(p)) :: "memory")
#define KB_FETCH_ADD(p, i) __extension__({ int __v = (i);			\
	__asm__ __volatile__("lock xaddl %0, %1" : "+r"(__v), "+m"(*(p)) :: "memory"); __v; })
#define KB_ADD_RETURN(p, i) (KB_FETCH_ADD((p), (i)) + (i))
#define KB_XCHG(p, v) __extension__({ int __v = (v);				\
	__asm__ __volatile__("xchgl %0, %1" : "+r"(__v), "+m"(*(p)) :: "memory"); __v; })
#define KB_TRY_CMPXCHG(p, op, n) __extension__({ bool __ok; int __o = *(op);	\
	__asm__ __volatile__("lock cmpxchgl %3, %1" : "=@ccz"(__ok), "+m"(*(p)), "+a"(__o) \
			     : "r"((int)(n)) : "memory");				\
	*(op) = __o; __ok; })
#define KB_CMPXCHG(p, o, n) __extension__({ int __o = (o);			\
	__asm__ __volatile__("lock cmpxchgl %2, %0" : "+m"(*(p)), "+a"(__o)	\
			     : "r"((int)(n)) : "memory"); __o; })
/* Own names: KB_TRY_CMPXCHG's __o would shadow ours (and read itself). */
#define KB_FETCH_OR(p, i) __extension__({ int __fo = *(volatile int *)(p);	\
	do { } while (!KB_TRY_CMPXCHG((p), &__fo, __fo | (i))); __fo; })
#define KB_DEC_AND_TEST(p) __extension__({ bool __z;				\
	__asm__ __volatile__("lock decl %0" : "+m"(*(p)), "=@ccz"(__z) :: "memory"); __z; })
#define KB_ADD_NEGATIVE(p, i) __extension__({ bool __s;				\
	__asm__ __volatile__("lock addl %2, %0" : "+m"(*(p)), "=@ccs"(__s) : "ir"(i) : "memory"); __s; })
#define KB_SET_BIT(nr, a)						\
	__asm__ __volatile__("lock btsq %1, %0" : "+m"(*(volatile long *)(a))	\
			     : "Jr"((long)(nr)) : "memory")
#define KB_TEST_AND_SET_BIT(nr, a) __extension__({ bool __c;			\
	__asm__ __volatile__("lock btsq %2, %0" : "+m"(*(volatile long *)(a)), "=@ccc"(__c) \
			     : "Jr"((long)(nr)) : "memory"); __c; })
#define KB_SMP_MB()	__asm__ __volatile__("lock addl $0, -4(%%rsp)" ::: "memory", "cc")
#define KB_SMP_RMB()	__asm__ __volatile__("" ::: "memory")
#define KB_SMP_WMB()	__asm__ __volatile__("" ::: "memory")
#define KB_MB_AFTER_ATOMIC() __asm__ __volatile__("" ::: "memory")
#define KB_READ_ONCE(p) __extension__({ int __v;				\
	__asm__ __volatile__("movl %1, %0" : "=r"(__v) : "m"(*(p)) : "memory"); __v; })
#define KB_WRITE_ONCE(p, v)						\
	__asm__ __volatile__("movl %1, %0" : "=m"(*(p)) : "ir"((int)(v)) : "memory")
#define KB_LOAD_ACQUIRE(p)	KB_READ_ONCE(p)
#define KB_STORE_RELEASE(p, v)	KB_WRITE_ONCE(p, v)
#define KB_TRY_CMPXCHG128(p, op, n) __extension__({ bool __ok;			\
	unsigned long __lo = (unsigned long)*(op), __hi = (unsigned long)(*(op) >> 64); \
	__asm__ __volatile__("lock cmpxchg16b %1" : "=@ccz"(__ok), "+m"(*(p)),	\
			     "+a"(__lo), "+d"(__hi)				\
			     : "b"((unsigned long)(n)), "c"((unsigned long)((n) >> 64)) \
			     : "memory");						\
	if (!__ok)								\
		*(op) = ((unsigned __int128)__hi << 64) | __lo;			\
	__ok; })
#define KB_NO_SEQLOCK
#define KB_NO_SPSC
#define KB_NO_MPMC
#endif

#include "kernels.h"
