#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The instructions of the dma_* and virt_* barriers, per architecture.

Compiles one function per barrier for this machine (both backends) and for
each cross target whose gcc and objdump are installed, disassembles, and
checks:
  - dma_mb / dma_rmb / dma_wmb are the kernel's instructions for that
    architecture (arch/*/include/asm/barrier.h of Linux 6.12, and
    asm-generic's fall back to mb/rmb/wmb where an architecture has no
    lighter form);
  - virt_* are exactly katomic's smp_* (the kernel's virt_* are its __smp_*),
    except virt_mb on x86-64, the kernel's lock addl $0,-4(%rsp) in both
    backends, with the DS prefix of a lock that UP patching keeps;
  - kernel.h's __smp_* are exactly the virt_* barriers;
  - the relaxed accesses (READ_ONCE/WRITE_ONCE, atomic*_read/_set) are
    plain loads and stores, as the kernel's: no fence, no atomic RMW (gcc
    before 13 makes a relaxed atomic store on RISC-V an amoswap).
Prints TAP; a missing cross compiler or objdump is a skip with a note.
Usage: tests/check-barrier-insns.py [--cc CC]   (CC: the native compilers, default "gcc clang")
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from katomic_tools.codegen import isa as cg_isa  # noqa: E402

BARRIERS = ["dma_mb", "dma_rmb", "dma_wmb", "virt_mb", "virt_rmb", "virt_wmb",
            "virt_mb__before_atomic", "virt_mb__after_atomic",
            "smp_mb", "smp_rmb", "smp_wmb", "smp_mb__before_atomic", "smp_mb__after_atomic", "mb",
            "__smp_mb", "__smp_rmb", "__smp_wmb", "__smp_mb__before_atomic", "__smp_mb__after_atomic"]

# What the kernel emits for dma_* (regexes over the function's instructions,
# joined by "; ", returns and padding removed).  "" = no instruction.
S390_SERIALIZE = r"bcr 14,%r0|bnor %r0"
KERNEL_DMA = {
    "x86_64":  {"dma_mb": r"mfence", "dma_rmb": r"", "dma_wmb": r""},
    "aarch64": {"dma_mb": r"dmb\s+osh", "dma_rmb": r"dmb\s+oshld", "dma_wmb": r"dmb\s+oshst"},
    "ppc64le": {"dma_mb": r"(hw)?sync", "dma_rmb": r"lwsync", "dma_wmb": r"lwsync"},
    # objdump prints fence iorw,iorw as a bare "fence"
    "riscv64": {"dma_mb": r"fence( iorw,iorw)?", "dma_rmb": r"fence\s+ir,ir", "dma_wmb": r"fence\s+ow,ow"},
    # bcr 14,0 on z196 and later, bcr 15,0 (objdump: bnor %r0) before: the compiler's -march decides,
    # as the kernel's configuration does
    "s390x":   {"dma_mb": S390_SERIALIZE, "dma_rmb": S390_SERIALIZE, "dma_wmb": S390_SERIALIZE},
    "armhf":   {"dma_mb": r"dsb\s+sy", "dma_rmb": r"dmb\s+osh", "dma_wmb": r"dmb\s+oshst"},
}
X86_VIRT_MB = r"ds lock addl \$0x0,-0x4\(%rsp\)"  # the DS prefix marks a lock UP patching keeps (arch/x86_64-lock.h)

# name | compiler | objdump | extra flags (cross targets, as tests/check-cross.sh)
CROSS = [
    ("aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", ""),
    ("aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", "-march=armv8.1-a"),
    ("ppc64le", "powerpc64le-linux-gnu-gcc", "powerpc64le-linux-gnu-objdump", ""),
    ("riscv64", "riscv64-linux-gnu-gcc", "riscv64-linux-gnu-objdump", ""),
    ("s390x", "s390x-linux-gnu-gcc", "s390x-linux-gnu-objdump", ""),
    ("armhf", "arm-linux-gnueabihf-gcc", "arm-linux-gnueabihf-objdump", ""),
]

# A function's code ends at its return (what follows is padding); a CET marker is not the barrier.
RETURN = re.compile(r"^(ret|retq|rep ret|bx lr|blr|br %r14|jr ra)$")
NOISE = re.compile(r"^endbr64$")

n = 0
failed = 0


def tap(good, what):
    global n, failed
    n += 1
    if not good:
        failed += 1
    print(("ok" if good else "not ok") + " %d - %s" % (n, what))


# The relaxed accesses: name -> (parameters, body).  armhf: the kernel's atomic64_set is an
# ldrexd/strexd loop (a strd is not single-copy atomic without LPAE), so it is not among them there.
ACCESSES = {
    "WRITE_ONCE_1": ("unsigned char *p, unsigned char v", "WRITE_ONCE(*p, v);"),
    "WRITE_ONCE_2": ("unsigned short *p, unsigned short v", "WRITE_ONCE(*p, v);"),
    "WRITE_ONCE_4": ("unsigned int *p, unsigned int v", "WRITE_ONCE(*p, v);"),
    "WRITE_ONCE_8": ("unsigned long *p, unsigned long v", "WRITE_ONCE(*p, v);"),
    "READ_ONCE_4": ("unsigned int *p, unsigned int *out", "*out = READ_ONCE(*p);"),
    "READ_ONCE_8": ("unsigned long *p, unsigned long *out", "*out = READ_ONCE(*p);"),
    "atomic_set": ("atomic_t *v, int i", "atomic_set(v, i);"),
    "atomic_long_set": ("atomic_long_t *v, long i", "atomic_long_set(v, i);"),
    "atomic64_set": ("atomic64_t *v, long long i", "atomic64_set(v, i);"),
    "atomic_read": ("atomic_t *v, int *out", "*out = atomic_read(v);"),
}


def not_plain(arch, ins):
    """A fence or an atomic instruction, as the codegen audit classifies them (its isa.py), or an isb."""
    w = ins.split(" ")
    k = 2 if w[0] == "lock" and len(w) > 1 else 1       # x86: the prefix is part of the mnemonic
    m, ops = " ".join(w[:k]), " ".join(w[k:])
    return bool(cg_isa.fence_kind(arch, m, ops) or cg_isa.atomic_flags(arch, m, ops)) or m == "isb"


def source():
    s = "#include <katomic/kernel.h>\n"
    for b in BARRIERS:
        s += "void f_%s(void);\nvoid f_%s(void) { %s(); }\n" % (b, b, b)
    for name, (params, body) in ACCESSES.items():
        s += "void f_%s(%s);\nvoid f_%s(%s) { %s }\n" % (name, params, name, params, body)
    return s


def disassemble(cc, objdump, flags, tmp):
    c = os.path.join(tmp, "b.c")
    o = os.path.join(tmp, "b.o")
    with open(c, "w") as f:
        f.write(source())
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([cc, "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-fno-stack-protector",
                        "-I" + os.path.join(root, "include"), "-c", "-o", o, c] + flags.split(),
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip().splitlines()[:5]
    r = subprocess.run([objdump, "-d", "--no-show-raw-insn", o], capture_output=True, text=True)
    if r.returncode:
        return None, ["%s failed: %s" % (objdump, r.stderr.strip())]
    funcs, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ <f_(\w+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if re.match(r"^[0-9a-f]+ <", line):
            cur = None
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+(.*?)\s*(#.*|<.*>)?$", line)
        if cur is not None and m:
            ins = re.sub(r"\s+", " ", m.group(1).strip())
            if RETURN.match(ins):
                cur = None
            elif ins and not NOISE.match(ins):
                cur.append(ins)
    return {k: "; ".join(v) for k, v in funcs.items()}, None


def check(label, arch, code, x86=False):
    for b, want in KERNEL_DMA[arch].items():
        got = code.get(b, "?")
        tap(re.fullmatch(want, got) is not None,
            "%s: %s is the kernel's %s (got '%s')" % (label, b, want or "compiler barrier", got))
    for v in ["virt_mb", "virt_rmb", "virt_wmb", "virt_mb__before_atomic", "virt_mb__after_atomic"]:
        smp = v.replace("virt_", "smp_")
        if x86 and v == "virt_mb":
            tap(re.fullmatch(X86_VIRT_MB, code.get(v, "?")) is not None,
                "%s: virt_mb is ds lock addl $0,-4(%%rsp), a kept lock (got '%s')" % (label, code.get(v, "?")))
        else:
            tap(code.get(v) == code.get(smp),
                "%s: %s is %s (got '%s' and '%s')" % (label, v, smp, code.get(v, "?"), code.get(smp, "?")))
        k = v.replace("virt_", "__smp_")
        tap(code.get(k) == code.get(v), "%s: %s is %s ('%s')" % (label, k, v, code.get(k, "?")))
    for a in ACCESSES:
        if arch == "armhf" and a in ("atomic64_set", "WRITE_ONCE_8", "READ_ONCE_8"):
            continue
        got = code.get(a, "?")
        bad = [i for i in got.split("; ") if not_plain(arch, i)]
        tap(got != "?" and not bad, "%s: %s is a plain access, no fence or RMW (got '%s')" % (label, a, got))


def main():
    ccs = "gcc clang"
    if len(sys.argv) == 3 and sys.argv[1] == "--cc":
        ccs = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit("usage: check-barrier-insns.py [--cc 'gcc clang']")
    machine = subprocess.run(["cc", "-dumpmachine"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        if machine.startswith("x86_64"):
            objdump = shutil.which("objdump")
            for cc in ccs.split():
                if not shutil.which(cc) or not objdump:
                    print("# %s or objdump not installed: skipped" % cc)
                    continue
                for backend, flags in (("c11", ""), ("asm", "-DKATOMIC_BACKEND_ASM")):
                    code, err = disassemble(cc, objdump, flags, tmp)
                    if code is None:
                        tap(False, "%s %s: does not build: %s" % (cc, backend, " | ".join(err)))
                        continue
                    check("x86_64 %s %s" % (cc, backend), "x86_64", code, x86=True)
        else:
            print("# not x86-64 (%s): native check skipped" % machine)
        for arch, cc, objdump, flags in CROSS:
            label = "%s %s%s" % (arch, cc, " " + flags if flags else "")
            if not shutil.which(cc) or not shutil.which(objdump):
                print("note: %s skipped: needs %s and %s" % (label, cc, objdump))
                continue
            code, err = disassemble(cc, objdump, flags, tmp)
            if code is None:
                tap(False, "%s: does not build: %s" % (label, " | ".join(err)))
                continue
            check(label, arch, code)
    print("1..%d" % n)
    print("check-barrier-insns: %d passed, %d failed" % (n - failed, failed))
    sys.exit(1 if failed or n == 0 else 0)


if __name__ == "__main__":
    main()
