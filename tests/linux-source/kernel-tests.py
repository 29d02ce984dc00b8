#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel's own test of atomics, lib/atomic64_test.c, run on katomic.

Usage: kernel-tests.py --src LINUX --work DIR [--ccs "gcc clang"] [--backends "c11 asm"]
                       [--san-ccs "gcc clang"] [--cross] [--timeout S]
  LINUX  an extracted linux-source tree holding lib/atomic64_test.c
         (extracted at test time: no kernel code is part of katomic)

The file is compiled unchanged as a user-space program: its five kernel
headers (<linux/init.h>, bug.h, kernel.h, atomic.h, module.h) are written
into DIR/linux/ as one-line includes of kernel-test-shim.h, which gives it
katomic's atomics and makes WARN count, BUG_ON abort and module_init main().
Built and run with every compiler and backend here (-O2 and -O0), under
ASan+UBSan, and (--cross) for every cross target of tests/check-cross.sh
with its gcc and with clang --target, statically and without -pthread
(single-threaded: it must link with libc alone), under qemu-user.  A
configuration passes when it builds without a diagnostic in katomic's
headers or the shim, exits 0 with no WARN and prints the test's "passed".
Two mutation builds (an op returning a wrong value, a void op doing the
wrong thing) must fail, by a BUG_ON and by a WARN: the harness can fail.
Also tried, not included: lib/test_bitops.c (its atomics, set_bit and
clear_bit, are checked only through find_first_bit, get_count_order, fns,
kmalloc_array/__free and ktime: the bitmap library, not atomics); the other
lib/ and kernel/locking/ tests need kernel threads, lockdep or kunit.
Prints TAP; exits 1 on a failure, 2 on bad input.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTS = ["lib/atomic64_test.c"]
KERNEL_HEADERS = ["init", "bug", "kernel", "atomic", "module"]
# name, triple, qemu, flags: tests/check-cross.sh's targets.
CROSS = [("aarch64", "aarch64-linux-gnu", "qemu-aarch64", []),
         ("aarch64-no-outline", "aarch64-linux-gnu", "qemu-aarch64", ["-mno-outline-atomics"]),
         ("aarch64-lse", "aarch64-linux-gnu", "qemu-aarch64", ["-march=armv8.1-a"]),
         ("ppc64le", "powerpc64le-linux-gnu", "qemu-ppc64le", []),
         ("riscv64", "riscv64-linux-gnu", "qemu-riscv64", []),
         ("s390x", "s390x-linux-gnu", "qemu-s390x", []),
         ("armhf", "arm-linux-gnueabihf", "qemu-arm", [])]
SAN = ["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from katomic_tools.common.tap import Tap  # noqa: E402

TAP = Tap()


def tap(good, what, detail=None):
    """One check (the project's Tap), with the first lines of `detail` when it fails."""
    if not TAP.check(good, what) and detail:
        for line in detail.strip().splitlines()[:30]:
            print("# " + line)
    sys.stdout.flush()


def build(cc, flags, src, exe, inc):
    """Compile; return (ok, stderr, kernel-code warnings).  A diagnostic in our headers fails."""
    r = subprocess.run(cc + ["-std=gnu11", "-Wall", "-Wextra"] + flags +
                       ["-I" + os.path.join(ROOT, "include"), "-I" + inc, "-o", exe, src],
                       capture_output=True, text=True)
    ours = [l for l in r.stderr.splitlines() if "include/katomic/" in l or "kernel-test-shim.h" in l]
    return r.returncode == 0 and not ours, r.stderr, len([l for l in r.stderr.splitlines() if "warning:" in l])


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return None, "did not complete within %d s" % timeout


def main():
    ap = argparse.ArgumentParser(description="the kernel's lib/atomic64_test.c on katomic")
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ccs", default="gcc clang")
    ap.add_argument("--san-ccs", default=None, help="compilers for ASan+UBSan (default: --ccs)")
    ap.add_argument("--backends", default="c11 asm" if os.uname().machine == "x86_64" else "c11")
    ap.add_argument("--cross", action="store_true")
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()

    shutil.rmtree(a.work, ignore_errors=True)
    inc = os.path.join(a.work, "include")
    os.makedirs(os.path.join(inc, "linux"))
    shutil.copy(os.path.join(HERE, "kernel-test-shim.h"), inc)
    for h in KERNEL_HEADERS:
        with open(os.path.join(inc, "linux", h + ".h"), "w", encoding="utf-8") as f:
            f.write('#include "../kernel-test-shim.h"\n')
    srcs = []
    for t in TESTS:
        p = os.path.join(a.src, t)
        if not os.path.exists(p):
            print("kernel-tests: %s: not found in the extracted source" % p, file=sys.stderr)
            return 2
        wanted = set(re.findall(r"^#include <linux/(\w+)\.h>", open(p, encoding="utf-8").read(), re.M))
        if not wanted <= set(KERNEL_HEADERS):
            print("kernel-tests: %s: includes <linux/%s.h>, which the shim does not stand in for"
                  % (p, ">, <linux/".join(sorted(wanted - set(KERNEL_HEADERS)))), file=sys.stderr)
            return 2
        srcs.append(p)

    # label, compiler command, flags, runner
    configs = []
    ccs = [c for c in a.ccs.split() if shutil.which(c)]
    for c in a.ccs.split():
        if c not in ccs:
            print("# %s not installed: skipped" % c)
    for cc in ccs:
        for b in a.backends.split():
            bf = ["-DKATOMIC_BACKEND_ASM"] if b == "asm" else []
            for opt in ("-O2", "-O0"):
                configs.append(("%s %s %s" % (cc, b, opt), [cc], [opt, "-g"] + bf, []))
    for cc in [c for c in (a.san_ccs or a.ccs).split() if shutil.which(c)]:
        for b in a.backends.split():
            bf = ["-DKATOMIC_BACKEND_ASM"] if b == "asm" else []
            configs.append(("%s %s ASan+UBSan" % (cc, b), [cc], SAN + bf, []))
    if a.cross:
        for name, triple, qemu, flags in CROSS:
            if not shutil.which(qemu):
                print("note: %s skipped: %s not installed (apt-get install qemu-user)" % (name, qemu))
                continue
            for cc in (["%s-gcc" % triple], ["clang", "--target=" + triple]):
                if not shutil.which(cc[0]):
                    print("note: %s with %s skipped: not installed" % (name, cc[0]))
                    continue
                configs.append(("%s %s static (qemu)" % (name, "clang" if cc[0] == "clang" else "gcc"),
                                cc, ["-O2", "-static"] + flags, [qemu]))

    for src in srcs:
        test = os.path.basename(src)[:-2]
        for label, cc, flags, runner in configs:
            exe = os.path.join(a.work, "bin", "%s-%s" % (test, re.sub(r"[^\w.+-]", "_", label)))
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            ok, err, kwarn = build(cc, flags, src, exe, inc)
            if not ok:
                tap(False, "%s %s: builds, no diagnostic in katomic's headers or the shim" % (test, label), err)
                continue
            rc, out = run(runner + [exe], a.timeout)
            good = rc == 0 and re.search(r": passed", out) and "WARNING:" not in out
            tap(good, "%s %s: passes, no WARN, no BUG_ON%s"
                % (test, label, " (%d warnings in the kernel's code)" % kwarn if kwarn else ""),
                "exit status %s\n%s" % (rc, out))
        # The harness can fail: a wrong value must hit a BUG_ON, a wrong void op a WARN.
        if ccs:
            for what, macro, sign in (("an add_return_acquire off by one", "KSHIM_MUTATE_BUG", "BUG: "),
                                      ("andnot done as and", "KSHIM_MUTATE_WARN", "WARNING: ")):
                exe = os.path.join(a.work, "bin", "%s-%s" % (test, macro))
                ok, err, _ = build([ccs[0]], ["-O2", "-D" + macro], src, exe, inc)
                rc, out = run([exe], a.timeout) if ok else (None, err)
                tap(ok and rc not in (0, None) and sign in out,
                    "%s with %s (%s) fails by a %s" % (test, what, ccs[0], sign.strip(": ")),
                    "exit status %s\n%s" % (rc, out))
    print("1..%d" % TAP.n)
    print("kernel-tests: %d passed, %d failed" % (TAP.n - TAP.failed, TAP.failed))
    return 1 if TAP.failed or TAP.n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
