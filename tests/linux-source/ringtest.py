#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel's virtio ring benchmarks (tools/virtio/ringtest) on katomic.

Usage: ringtest.py --src LINUX --work DIR [--ccs "gcc clang"] [--backends "c11 asm"]
                   [--cycles N] [--timeout S] [--cross]
  LINUX  an extracted linux-source tree holding tools/virtio/ringtest and
         include/linux/ptr_ring.h (extracted at test time: no kernel code is
         part of katomic)

Copies the ring programs into DIR and replaces their own barrier and atomic
definitions by katomic's: the block of main.h that defines barrier,
cpu_relax, smp_mb, smp_wmb, smp_release, smp_acquire, READ_ONCE, WRITE_ONCE
and busy_wait becomes #include "ringtest-katomic.h", and ptr_ring.c's
pthread spinlock stand-ins (spinlock_t, spin_lock*, spin_unlock*, including
the _irqsave, _irq and _bh forms ptr_ring.h calls) and likely/unlikely are
cut, so katomic's are used.  Every cut is checked: a definition the block
holds that katomic does not replace, or a marker not found, is an error
naming the file and line.  Then builds ring, virtio_ring_0_9,
virtio_ring_poll, virtio_ring_inorder, ptr_ring and noring with each
compiler and backend (gcc with the upstream flags, -flto -fwhole-program
included), fails on any diagnostic inside katomic's headers, and runs each
one bounded: polling, polling with --relax and batches, and (where the
program supports it) sleeping on eventfds.  With --cross, also for aarch64,
ppc64le, riscv64, s390x and armhf under qemu-user (upstream, main.h's own
cpu_relax does not even build for most of them).  A program passes when its own
assertions hold and it completes every cycle within the timeout.
Prints TAP; exits 1 on a failure, 2 on bad input.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = ["ring", "virtio_ring_0_9", "virtio_ring_poll", "virtio_ring_inorder", "ptr_ring", "noring"]
SLEEPS = {"ring", "virtio_ring_0_9", "virtio_ring_poll", "virtio_ring_inorder"}  # the others assert(0) in --sleep
# What main.h's cut block may define, and where the replacement comes from.
MAIN_H_NAMES = {
    "barrier": "katomic", "cpu_relax": "katomic", "smp_mb": "katomic", "smp_wmb": "katomic",
    "READ_ONCE": "katomic", "WRITE_ONCE": "katomic",
    "smp_release": "shim", "smp_acquire": "shim", "busy_wait": "shim", "__always_inline": "shim",
    "do_relax": "shim",
    # helpers of the cut READ_ONCE/WRITE_ONCE only (checked unused elsewhere)
    "__read_once_size": None, "__write_once_size": None,
}
# Cross targets for --cross: name, compiler, qemu (as tests/check-cross.sh).
CROSS = [("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64"),
         ("ppc64le", "powerpc64le-linux-gnu-gcc", "qemu-ppc64le"),
         ("riscv64", "riscv64-linux-gnu-gcc", "qemu-riscv64"),
         ("s390x", "s390x-linux-gnu-gcc", "qemu-s390x"),
         ("armhf", "arm-linux-gnueabihf-gcc", "qemu-arm")]
PTR_RING_SPIN = {"spin_lock_init", "spin_lock", "spin_unlock", "spin_lock_bh", "spin_unlock_bh",
                 "spin_lock_irq", "spin_unlock_irq", "spin_lock_irqsave", "spin_unlock_irqrestore"}


class BadInput(Exception):
    pass


def defined_names(lines):
    """Identifiers a block of C defines or declares at file scope."""
    names = set()
    for line in lines:
        m = re.match(r"^\s*#\s*define\s+(\w+)", line)
        if m:
            names.add(m.group(1))
            continue
        m = re.match(r"^(?:static\s+|extern\s+|inline\s+|__always_inline\s+)*[\w\s\*]*?\b(\w+)\s*(\(|;)", line)
        if m and not line.startswith((" ", "\t", "#", "/", "*", "}")):
            names.add(m.group(1))
    return names


def cut_main_h(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("/* Compiler barrier")), None)
    if start is None:
        start = next((i for i, l in enumerate(lines) if re.match(r"#define barrier\(\)", l)), None)
    if start is None:
        raise BadInput("%s: no '/* Compiler barrier' or '#define barrier()' line: the block to replace is not found" % path)
    end = max((i for i, l in enumerate(lines) if l.strip().startswith("#endif")), default=None)
    if end is None or end <= start:
        raise BadInput("%s: no closing #endif after line %d" % (path, start + 1))
    names = defined_names(lines[start:end])
    unknown = sorted(names - set(MAIN_H_NAMES))
    if unknown:
        raise BadInput("%s:%d-%d: the block to replace also defines %s, which katomic does not replace"
                       % (path, start + 1, end, ", ".join(unknown)))
    if not {"smp_mb", "READ_ONCE", "WRITE_ONCE", "barrier"} <= names:
        raise BadInput("%s:%d-%d: the block does not define barrier, smp_mb, READ_ONCE and WRITE_ONCE: not the one expected"
                       % (path, start + 1, end))
    new = lines[:start] + ['#include "ringtest-katomic.h"	/* katomic in place of lines %d-%d */' % (start + 1, end)] + lines[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(new))
    return names, start + 1, end


def cut_ptr_ring_c(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out, removed, typedef, hints, i = [], set(), False, 0, 0
    while i < len(lines):
        l = lines[i]
        if re.match(r"^typedef\s+pthread_spinlock_t\s+spinlock_t;", l):
            typedef = True
            i += 1
            continue
        if re.match(r"^#define\s+(un)?likely\(x\)", l):
            hints += 1
            i += 1
            continue
        m = re.match(r"^static\s+(?:inline\s+)?void\s+(spin_\w+)\s*\(", l)
        if m:
            j = i
            while j < len(lines) and lines[j] != "}":
                j += 1
            if j == len(lines):
                raise BadInput("%s:%d: no closing brace for %s" % (path, i + 1, m.group(1)))
            removed.add(m.group(1))
            i = j + 1
            continue
        out.append(l)
        i += 1
    if not typedef:
        raise BadInput("%s: no 'typedef pthread_spinlock_t spinlock_t;' to replace" % path)
    if removed != PTR_RING_SPIN:
        raise BadInput("%s: the spinlock stand-ins found (%s) are not the expected ones (%s)"
                       % (path, ", ".join(sorted(removed)), ", ".join(sorted(PTR_RING_SPIN))))
    if hints != 2:
        raise BadInput("%s: expected its own likely and unlikely, found %d" % (path, hints))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    return removed


n = 0
failed = 0


def tap(good, what, detail=None):
    global n, failed
    n += 1
    if not good:
        failed += 1
    print(("ok" if good else "not ok") + " %d - %s" % (n, what))
    if detail and not good:
        for line in detail.strip().splitlines()[:30]:
            print("# " + line)
    sys.stdout.flush()


def build_and_run(a, work, config, cc, cflags, runner, machine):
    """Build every ring program with cc (+ cflags) and run it (under runner, e.g. qemu)."""
    # The upstream Makefile's flags; clang has no -fwhole-program (and may lack an LTO linker).
    flags = ["-Wall", "-pthread", "-O2", "-g"] + (["-flto", "-fwhole-program"] if "clang" not in cc else [])
    inc = os.path.join(ROOT, "include")
    for prog in PROGRAMS:
        label = "%s %s" % (prog, config)
        exe = os.path.join(a.work, "bin", "%s-%s" % (prog, re.sub(r"[^\w.-]", "_", config)))
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        r = subprocess.run([cc] + flags + cflags + ["-I" + inc, "-I" + work, "-o", exe,
                            os.path.join(work, "main.c"), os.path.join(work, prog + ".c")],
                           capture_output=True, text=True)
        ours = [l for l in r.stderr.splitlines() if "include/katomic/" in l or "ringtest-katomic.h" in l]
        if r.returncode or ours:
            tap(False, "%s: builds, no diagnostic in katomic's headers" % label, r.stderr)
            continue
        kernel_warnings = len([l for l in r.stderr.splitlines() if "warning:" in l])
        tap(True, "%s: builds, no diagnostic in katomic's headers (%d warnings in the kernel's code)"
            % (label, kernel_warnings))
        runs = [("poll", ["--run-cycles", str(a.cycles)]),
                ("poll --relax --batch 16 --ring-size 64",
                 ["--relax", "--batch", "16", "--ring-size", "64", "--run-cycles", str(a.cycles // 4)])]
        # --sleep waits through vmexit(), which only x86 and s390x implement (the others _Exit)
        if prog in SLEEPS and machine in ("x86_64", "s390x"):
            runs.append(("sleep", ["--sleep", "--run-cycles", str(a.cycles // 20)]))
        for what, args in runs:
            t0 = time.monotonic()
            try:
                r = subprocess.run(runner + [exe] + args, capture_output=True, text=True, timeout=a.timeout)
                good = r.returncode == 0
                detail = "exit status %d\n%s%s" % (r.returncode, r.stdout, r.stderr)
            except subprocess.TimeoutExpired:
                good, detail = False, "did not complete within %d s (load %s)" % (
                    a.timeout, " ".join(open("/proc/loadavg").read().split()[:3]))
            tap(good, "%s %s: %s cycles complete, its assertions hold (%.1f s)"
                % (label, what, args[-1], time.monotonic() - t0), detail)


def main():
    ap = argparse.ArgumentParser(description="tools/virtio/ringtest on katomic")
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ccs", default="gcc clang")
    ap.add_argument("--backends", default="c11 asm" if os.uname().machine == "x86_64" else "c11")
    ap.add_argument("--cycles", type=int, default=1000000)
    # Polling needs both threads on a CPU at once: on a crowded machine it is slow, never wrong.
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--cross", action="store_true",
                    help="also build with Debian's cross gcc (C11 backend) and run under qemu-user")
    a = ap.parse_args()

    src = os.path.join(a.src, "tools", "virtio", "ringtest")
    ptr_ring_h = os.path.join(a.src, "include", "linux", "ptr_ring.h")
    for p in (src, ptr_ring_h):
        if not os.path.exists(p):
            print("ringtest: %s: not found in the extracted source" % p, file=sys.stderr)
            return 2
    # DIR/tools/virtio/ringtest and DIR/include/linux: ptr_ring.c includes ../../../include/linux/ptr_ring.h
    shutil.rmtree(a.work, ignore_errors=True)
    work = os.path.join(a.work, "tools", "virtio", "ringtest")
    shutil.copytree(src, work)
    os.makedirs(os.path.join(a.work, "include", "linux"))
    shutil.copy(ptr_ring_h, os.path.join(a.work, "include", "linux"))
    shutil.copy(os.path.join(HERE, "ringtest-katomic.h"), work)
    try:
        names, first, last = cut_main_h(os.path.join(work, "main.h"))
        spins = cut_ptr_ring_c(os.path.join(work, "ptr_ring.c"))
    except BadInput as e:
        print("ringtest: %s" % e, file=sys.stderr)
        return 2
    print("# main.h lines %d-%d replaced by katomic: %s" % (first, last, " ".join(sorted(names))))
    print("# ptr_ring.c: its spinlock_t, likely/unlikely and %s replaced by katomic's" % " ".join(sorted(spins)))
    left = []
    for f in sorted(os.listdir(work)):
        if f.endswith((".c", ".h")) and f != "ringtest-katomic.h":
            text = open(os.path.join(work, f), encoding="utf-8").read()
            left += ["%s uses %s" % (f, x) for x in ("__read_once_size", "__write_once_size") if x in text]
    tap(not left, "no ring program uses the cut READ_ONCE helpers", "\n".join(left))

    configs = []
    for cc in a.ccs.split():
        if not shutil.which(cc):
            print("# %s not installed: skipped" % cc)
            continue
        for backend in a.backends.split():
            configs.append(("%s %s" % (cc, backend), cc, ["-DKATOMIC_BACKEND_ASM"] if backend == "asm" else [],
                            [], os.uname().machine))
    if a.cross:
        for arch, cc, qemu in CROSS:
            if not shutil.which(cc) or not shutil.which(qemu):
                print("note: ringtest on %s skipped: needs %s and %s" % (arch, cc, qemu))
                continue
            configs.append(("%s c11 (qemu)" % arch, cc, ["-static"], [qemu], arch))
    for label, cc, cflags, runner, machine in configs:
        build_and_run(a, work, label, cc, cflags, runner, machine)
    print("1..%d" % n)
    print("ringtest: %d passed, %d failed" % (n - failed, failed))
    return 1 if failed or n < 2 else 0


if __name__ == "__main__":
    sys.exit(main())
