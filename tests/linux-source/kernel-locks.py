#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel's own lock code (qspinlock, MCS, osq) on katomic, oversubscribed.

Usage: kernel-locks.py --src LINUX --work DIR [--ccs "gcc clang"] [--backends "c11 asm"]
                       [--locks "qspinlock mcs osq"] [--threads "1 2 3 4 8"] [--acq N] [--timeout S]
                       [--bench RUNS [--bench-threads "3 4 8"] [--pins "2 0,0,1 -"]]
  LINUX  an extracted linux-source tree holding kernel/locking/{qspinlock.c,
         mcs_spinlock.h, osq_lock.c, qspinlock_stat.h, lock_events.h,
         lock_events_list.h}, include/asm-generic/qspinlock{,_types}.h and
         include/linux/osq_lock.h (extracted at test time: no kernel code is
         part of katomic); a whole tree will do: only those files are copied
         into DIR/linux and compiled from there

Builds kernel-locks-main.c, which includes qspinlock.c and osq_lock.c, with
kernel-locks-shim.h in place of every kernel header they include that is
not extracted (DIR/stubs/: one line each; an include that is neither is an
error naming the file and line).  Their waiting is katomic's
smp_cond_load_*/atomic_cond_read_*; with each compiler and backend.  A
diagnostic inside katomic's headers fails the build.  Then runs each lock
with each thread count on 2 CPUs (thread i pinned to CPU i mod 2: 3 threads
put two on one CPU), every thread taking the lock --acq times; passes when
the count of plain increments is exact and nobody saw another owner.
--timeout only guards against a hang: with threads outnumbering CPUs on a
machine that is busy with other work, a FIFO lock is slow (every hand-off
waits until the scheduler runs the next waiter), so it is generous.
Prints TAP; exits 1 on a failure, 2 on bad input.

--bench RUNS is the side-by-side figure, not a test: the same programs built
with plain load + pause waiting loops that never yield (-DKL_PLAIN_SPIN, as
user-space ports of these locks usually wait) and with katomic's, run
alternately RUNS times each at --bench-threads; prints per lock, threads and
build the median (min-max) seconds of each; in how many runs katomic took
more than 1.5x the plain build's time (and more than 10 ms), run against run
(paired) and sorted run against sorted run (ranked: the two distributions);
and the stalls of each build, runs over 20x its fastest.  --pins: the thread
placements, each a PIN argument of kernel-locks-main.c (0,0,1: thread i on
CPU 0,0,1[i mod 3], i.e. two on CPU 0 and one on CPU 1; -: unpinned; 2 (the
default): thread i on CPU i mod 2); with --runs-out FILE every run's time
and event counts (hand-offs that waited over 1 ms, yields, yields that
switched, naps) are written there, one line per run.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LOCKS = ["qspinlock", "mcs", "osq"]
# The kernel files compiled, and the kernel headers used as they are.
SOURCES = ["kernel/locking/qspinlock.c", "kernel/locking/osq_lock.c", "kernel/locking/mcs_spinlock.h",
           "kernel/locking/qspinlock_stat.h", "kernel/locking/lock_events.h",
           "kernel/locking/lock_events_list.h", "include/asm-generic/qspinlock.h",
           "include/asm-generic/qspinlock_types.h", "include/linux/osq_lock.h"]
# Kernel headers replaced by the shim (only what the sources above include).
STUBBED = {"linux/smp.h", "linux/bug.h", "linux/cpumask.h", "linux/percpu.h", "linux/hardirq.h",
           "linux/mutex.h", "linux/prefetch.h", "asm/byteorder.h", "trace/events/lock.h",
           "asm/mcs_spinlock.h", "linux/atomic.h", "linux/types.h", "linux/sched.h",
           "asm/qspinlock.h"}  # x86's: asm-generic/qspinlock.h, which kernel-locks-main.c includes
# Included only on paths this build does not take (CONFIG_PARAVIRT_SPINLOCKS, CONFIG_LOCK_EVENT_COUNTS).
UNUSED = {"qspinlock_paravirt.h", "qspinlock.c", "linux/sched/clock.h", "linux/fs.h"}
# The kernel's own warning choices (its Makefile): not katomic's business.
FLOOR_S = 0.01  # --bench: runs shorter than this are not judged slower
STALL = 20     # --bench: a run this many times the build's fastest stalled
KERNEL_FLAGS = ["-Wno-unused-parameter", "-Wno-pointer-sign", "-fno-strict-aliasing"]


class BadInput(Exception):
    pass


def mirror(src, work):
    """Copy SOURCES from src into work/linux and return that: src may be a whole
    kernel tree, whose include/ must not be on the include path (its
    linux/limits.h would stand in for the C library's)."""
    dst = os.path.join(work, "linux")
    for rel in SOURCES:
        path = os.path.join(src, rel)
        if not os.path.isfile(path):
            raise BadInput("%s: not found (extract it from linux-source-6.12)" % path)
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copyfile(path, os.path.join(dst, rel))
    return dst


def write_stubs(src, work):
    """One-line headers for STUBBED; refuse an include that is neither extracted nor known."""
    for rel in SOURCES:
        path = os.path.join(src, rel)
        for no, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
            if not m:
                continue
            inc = m.group(1)
            known = inc in STUBBED or inc in UNUSED or os.path.isfile(os.path.join(src, "include", inc)) \
                or os.path.isfile(os.path.join(os.path.dirname(path), inc))
            if not known:
                raise BadInput("%s:%d: includes %s, which neither the shim nor the extraction provides"
                               % (path, no, inc))
    stubs = os.path.join(work, "stubs")
    for inc in STUBBED:
        p = os.path.join(stubs, inc)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write('#include "kernel-locks-shim.h"\n')
    return stubs


def build(cc, backend, plain, src, stubs, work):
    name = "kernel-locks-%s-%s%s" % (os.path.basename(cc), backend, "-plain" if plain else "")
    exe = os.path.join(work, name)
    cmd = [cc, "-std=gnu11", "-O2", "-g", "-Wall", "-Wextra"] + KERNEL_FLAGS + \
        (["-DKATOMIC_BACKEND_ASM"] if backend == "asm" else []) + (["-DKL_PLAIN_SPIN"] if plain else []) + \
        ["-I", stubs, "-I", HERE, "-I", os.path.join(src, "include"), "-I", src,
         "-I", os.path.join(ROOT, "include"), "-o", exe, os.path.join(HERE, "kernel-locks-main.c"), "-pthread"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    ours = [l for l in p.stdout.splitlines() if "include/katomic/" in l or "tests/linux-source/" in l]
    return exe, name, p.returncode, p.stdout, ours


def stalls(v):
    """'n, max' of the runs over STALL x the fastest (and FLOOR_S): a FIFO lock
    whose queue holds a preempted waiter waits for the scheduler at every
    hand-off (a time slice when the waiters only spin, a context switch when
    they yield)."""
    long = [x for x in v if x > STALL * min(v) and x > FLOOR_S]
    if not long:
        return "0, max -"
    top = max(long)
    return "%d, max %s" % (len(long), "timeout" if top == float("inf") else "%.3f" % top)


def run(exe, lock, threads, acq, timeout, pin=None):
    """(ok, seconds or None, output line)."""
    try:
        p = subprocess.run([exe, lock, str(threads), str(acq), "2"] + ([pin] if pin else []), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, None, "did not finish within %d s" % timeout
    out = p.stdout.strip()
    m = re.search(r"seconds=([0-9.]+)", out)
    return p.returncode == 0, float(m.group(1)) if m else None, out


def words(text):
    """A list option's items, space- or comma-separated (--pins, whose items hold commas, splits
    on spaces only)."""
    return [w for w in re.split(r"[,\s]+", text) if w]


def known(option, items, choices):
    """items, each one of choices, or BadInput naming the first that is not (a typo must not
    quietly build the default)."""
    for w in items:
        if w not in choices:
            raise BadInput("%s: unknown %r (one of: %s)" % (option, w, ", ".join(choices)))
    if not items:
        raise BadInput("%s: empty" % option)
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ccs", default="gcc clang")
    ap.add_argument("--backends", default="c11 asm")
    ap.add_argument("--threads", default="1 2 3 4 8")
    ap.add_argument("--acq", type=int, default=2000)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--bench", type=int, default=0)
    ap.add_argument("--bench-threads", default="3 4 8")
    ap.add_argument("--pins", default="2")
    ap.add_argument("--runs-out")
    ap.add_argument("--locks", default=" ".join(LOCKS))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    try:
        threads = [int(t) for t in words(a.threads)]
        bthreads = [int(t) for t in words(a.bench_threads)]
        backends = known("--backends", words(a.backends), ("c11", "asm"))
        locks = known("--locks", words(a.locks), LOCKS)
        ccs, pins = words(a.ccs), a.pins.split()
        a.src = mirror(a.src, a.work)
        stubs = write_stubs(a.src, a.work)
    except (BadInput, ValueError) as e:
        print("kernel-locks: %s" % e, file=sys.stderr)
        return 2
    if os.uname().machine != "x86_64":
        backends = [b for b in backends if b != "asm"]
    n = fails = 0

    def tap(ok, what):
        nonlocal n, fails
        n += 1
        fails += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what), flush=True)

    exes = []
    for cc in ccs:
        for b in backends:
            for plain in ([False, True] if a.bench else [False]):
                exe, name, rc, out, ours = build(cc, b, plain, a.src, stubs, a.work)
                tap(rc == 0 and not ours, "build %s%s" % (name, "" if rc == 0 and not ours else ":\n" + out))
                if rc == 0:
                    exes.append((cc, b, plain, exe, name))
    if not a.bench:
        for cc, b, plain, exe, name in exes:
            for lock in locks:
                for t in threads:
                    ok, secs, out = run(exe, lock, t, a.acq, a.timeout)
                    tap(ok, "%s %s, %d threads on 2 CPUs: %s" % (name, lock, t, out))
    else:
        by = {}
        for cc, b, plain, exe, name in exes:
            by[(cc, b, plain)] = exe
        print("# side by side: %d runs each, %d acquisitions per thread, load %s" %
              (a.bench, a.acq, open("/proc/loadavg").read().split()[0]))
        print("# slower: runs where katomic took over 1.5x plain's time and over %g s, run i against\n"
              "#   run i (paired) and k-th fastest against k-th fastest (ranked);\n"
              "# stalls: runs over %dx the build's fastest (a queue of preempted waiters), and the longest"
              % (FLOOR_S, STALL))
        print("# %-10s %-3s %-10s %-26s %-26s %-8s %-8s %-16s %s" % (
            "lock", "thr", "build", "plain s med (min-max)", "katomic s med (min-max)", "paired", "ranked",
            "plain stalls", "katomic stalls"))
        runs_out = open(a.runs_out, "a", encoding="utf-8") if a.runs_out else None
        for lock, t, pin in [(l, t, p) for l in locks for p in pins for t in bthreads]:
                print("# pin %s" % pin, flush=True)
                for cc in ccs:
                    for b in backends:
                        if (cc, b, True) not in by or (cc, b, False) not in by:
                            continue
                        ps, ks = [], []
                        for i in range(a.bench):
                            for plain, acc in ((True, ps), (False, ks)):
                                ok, secs, out = run(by[(cc, b, plain)], lock, t, a.acq, a.timeout,
                                                    None if pin == "2" else pin)
                                acc.append(secs if ok and secs is not None else float("inf"))
                                if runs_out:
                                    runs_out.write("%s %d pin=%s %s-%s%s run %d: %s\n" % (
                                        lock, t, pin, b, os.path.basename(cc), " plain" if plain else "",
                                        i, out if ok else "FAILED " + out))
                                    runs_out.flush()
                        # A run is slower when katomic took over 1.5x plain's time and over
                        # FLOOR_S (the clock and thread start-up make shorter runs noise).
                        slow = lambda pairs: sum(1 for p, k in pairs if k > 1.5 * p and k > FLOOR_S)
                        f = lambda v: "%.3f (%.3f-%.3f)" % (statistics.median(v), min(v), max(v))
                        print("  %-10s %-3d %-10s %-26s %-26s %-8s %-8s %-16s %s" % (
                            lock, t, "%s-%s" % (b, os.path.basename(cc)), f(ps), f(ks),
                            "%d/%d" % (slow(zip(ps, ks)), a.bench),
                            "%d/%d" % (slow(zip(sorted(ps), sorted(ks))), a.bench),
                            stalls(ps), stalls(ks)), flush=True)
                print("# load %s" % open("/proc/loadavg").read().split()[0], flush=True)
    print("1..%d" % n)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
