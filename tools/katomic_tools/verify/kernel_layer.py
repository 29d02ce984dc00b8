"""katomic verify --layer kernel: the kernel API a litmus test uses, over the C11
layer that `katomic kernel` puts into the kernel (tools/kernel/generated/), put
together the way the kernel's own headers do it: READ_ONCE/WRITE_ONCE are
volatile accesses, smp_*() the layer's __smp_*(), atomic_*() the layer's
arch_atomic_*() and, for an order the layer leaves out, the kernel's fallback
rule (x86 gives only fully ordered RMWs: _acquire/_release/_relaxed are the
fully ordered op).  spin_lock() is the kernel's qspinlock written on this
layer, as include/asm-generic/qspinlock.h shapes its fast paths: an acquire
try_cmpxchg of the lock word from 0 to 1, else the out-of-line
queued_spin_lock_slowpath() (which the verifier reads as the fast path
failing); unlock a release store of 0 to the locked byte.  The stand-in types
are tests/kernel/mock-kernel.h's, as the kernel layer's own tests use."""
import os
import re

from ..common import paths

ORDERED = ("add_return", "sub_return", "inc_return", "dec_return", "fetch_add", "fetch_sub", "fetch_inc",
           "fetch_dec", "fetch_and", "fetch_andnot", "fetch_or", "fetch_xor", "xchg", "cmpxchg", "try_cmpxchg",
           "add_negative")
UNORDERED = ("add", "sub", "inc", "dec", "and", "andnot", "or", "xor", "read", "set", "inc_and_test",
             "dec_and_test", "sub_and_test")


ARCH_ONLY = re.compile(r"\bdma_(r|w)?mb\b")


def outside(test):
    """Why a test is not the layer's to judge, or None: the dma_ barriers stay the architecture's
    own (barrier-c11.h), so the C11 layer has no form of them."""
    m = ARCH_ONLY.search(" ".join(th["body"] for th in test["threads"]))
    if m:
        return "%s() is the architecture's own barrier, not part of the kernel C11 layer" % m.group(0)
    return None


def include_dirs(isa):
    gen = os.path.join(paths.root(), "tools", "kernel", "generated")
    mock = os.path.join(paths.root(), "tests", "kernel")
    if isa == "x86_64":
        return [os.path.join(gen, "arch", "x86", "include", "asm"), mock]
    return [os.path.join(gen, "include"), mock]


def header(isa):
    w = ['#include "mock-kernel.h"', "#include <stdbool.h>", "#define BITS_PER_LONG 64"]
    if isa == "x86_64":
        w += ['#include "atomic-c11.h"', '#include "atomic64-c11.h"', '#include "cmpxchg-c11.h"',
              '#include "barrier-c11.h"',
              "#define __smp_mb__before_atomic() barrier()	/* x86: a locked RMW is a full barrier */",
              "#define __smp_mb__after_atomic() barrier()"]
    elif isa in ("aarch64", "riscv64"):
        w += ["#include <asm-generic/atomic-c11.h>", "#include <asm-generic/atomic64-c11.h>",
              "#include <asm-generic/barrier-c11.h>"]
    else:
        return None
    w += ["#ifndef barrier", '#define barrier() __asm__ __volatile__("" ::: "memory")', "#endif",
          "#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))",
          "#define WRITE_ONCE(x, v) do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)",
          "#define smp_mb() __smp_mb()", "#define smp_rmb() __smp_rmb()", "#define smp_wmb() __smp_wmb()",
          "#ifndef __smp_mb__before_atomic", "#define __smp_mb__before_atomic() __smp_mb()	/* asm-generic */",
          "#define __smp_mb__after_atomic() __smp_mb()", "#endif",
          "#define smp_mb__before_atomic() __smp_mb__before_atomic()",
          "#define smp_mb__after_atomic() __smp_mb__after_atomic()",
          "#ifdef __smp_store_mb", "#define smp_store_mb(x, v) __smp_store_mb(x, v)", "#else",
          "#define smp_store_mb(x, v) do { WRITE_ONCE(x, v); __smp_mb(); } while (0)", "#endif",
          "#define smp_load_acquire(p) __smp_load_acquire(p)",
          "#define smp_store_release(p, v) __smp_store_release(p, v)",
          "#define smp_acquire__after_ctrl_dep() smp_rmb()",
          "#define rcu_dereference(p) READ_ONCE(p)",
          "#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))",
          "#define rcu_read_lock() barrier()", "#define rcu_read_unlock() barrier()",
          # asm-generic/barrier.h: the virt_ barriers are the SMP ones, even on a UP build
          "#define virt_mb() __smp_mb()", "#define virt_rmb() __smp_rmb()", "#define virt_wmb() __smp_wmb()",
          "#define virt_store_mb(x, v) smp_store_mb(x, v)",
          "#define virt_mb__before_atomic() __smp_mb__before_atomic()",
          "#define virt_mb__after_atomic() __smp_mb__after_atomic()",
          "#define virt_store_release(p, v) __smp_store_release(p, v)",
          "#define virt_load_acquire(p) __smp_load_acquire(p)"]
    for t in ("atomic", "atomic64"):
        for op in ORDERED:
            for o in ("_acquire", "_release", "_relaxed"):
                w += ["#ifndef arch_%s_%s%s" % (t, op, o), "#define arch_%s_%s%s arch_%s_%s" % (t, op, o, t, op),
                      "#endif"]
            for o in ("", "_acquire", "_release", "_relaxed"):
                w.append("#define %s_%s%s(...) arch_%s_%s%s(__VA_ARGS__)" % (t, op, o, t, op, o))
        for op in UNORDERED:
            w.append("#define %s_%s(...) arch_%s_%s(__VA_ARGS__)" % (t, op, t, op))
        w.append("#define %s_read_acquire(v) smp_load_acquire(&(v)->counter)" % t)
        w.append("#define %s_set_release(v, i) smp_store_release(&(v)->counter, (i))" % t)
    for op in ("xchg", "cmpxchg", "try_cmpxchg"):
        for o in ("_acquire", "_release", "_relaxed"):
            w += ["#ifndef arch_%s%s" % (op, o), "#define arch_%s%s arch_%s" % (op, o, op), "#endif"]
        for o in ("", "_acquire", "_release", "_relaxed"):
            w.append("#define %s%s(...) arch_%s%s(__VA_ARGS__)" % (op, o, op, o))
    w += ["typedef struct { atomic_t val; } spinlock_t;",
          "extern void queued_spin_lock_slowpath(spinlock_t *lock, int val);",
          "static inline __attribute__((__always_inline__)) void spin_lock(spinlock_t *l)",
          "{ int v = 0; if (__builtin_expect(!atomic_try_cmpxchg_acquire(&l->val, &v, 1), 0)) "
          "queued_spin_lock_slowpath(l, v); }",
          "static inline __attribute__((__always_inline__)) int spin_trylock(spinlock_t *l)",
          "{ int v = atomic_read(&l->val); return !v && atomic_try_cmpxchg_acquire(&l->val, &v, 1); }",
          "static inline __attribute__((__always_inline__)) void spin_unlock(spinlock_t *l)",
          "{ smp_store_release((unsigned char *)&l->val.counter, 0); }	/* little-endian: the locked byte */",
          "#define spin_is_locked(l) (atomic_read(&(l)->val) != 0)",
          # x86: the lock is a locked RMW, a full barrier (the kernel's default, nothing); arm64, riscv: smp_mb()
          "#define smp_mb__after_spinlock() %s" % ("barrier()" if isa == "x86_64" else "smp_mb()")]
    return "\n".join(w)
