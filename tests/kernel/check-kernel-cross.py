"""make check-kernel-cross: the asm-generic C11 kernel layer on weakly ordered
targets, no kernel build (TAP-like).

For each target (aarch64 LSE, aarch64 LL/SC, riscv64) with its Debian cross
compiler: tests/kernel/mock-generic-c11.c is built static against the
generated headers and run under qemu-user (every operation in every order,
sub-word neighbours kept), and the code of its out-of-line probes is read:
the fully ordered fetch_add and cmpxchg carry the kernel's fences (the
per-architecture policy), the relaxed ones none.  A missing cross compiler or
qemu-user is skipped with a note.
usage: check-kernel-cross.py BUILD_DIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap            # noqa: E402

INC = os.path.join(ROOT, "tools", "kernel", "generated", "include")
# name, compiler + flags, qemu-user, objdump, {probe: (regex its code must match, why)}
TARGETS = [
    ("aarch64-lse", ["aarch64-linux-gnu-gcc", "-march=armv8.1-a", "-mno-outline-atomics"],
     "qemu-aarch64", "aarch64-linux-gnu-objdump", {
         "fetch_add": (r"^ldaddal;ret", "one ldaddal, no fence (LSE al is fully ordered)"),
         "fetch_add_relaxed": (r"^ldadd;ret", "ldadd"),
         "cmpxchg": (r"casal;", "casal"),
         "add": (r"^ldadd;", "void add: ldadd (unordered, as the kernel's)")}),
    ("aarch64-llsc", ["aarch64-linux-gnu-gcc", "-march=armv8-a", "-mno-outline-atomics"],
     "qemu-aarch64", "aarch64-linux-gnu-objdump", {
         "fetch_add": (r"ldxr;add;stlxr;cbnz;dmb;ret", "ldxr/stlxr then dmb ish, the kernel's LL/SC sequence"),
         "fetch_add_relaxed": (r"ldxr;add;stxr;cbnz;ret", "ldxr/stxr, no fence"),
         "cmpxchg": (r"ldxr;cmp;b\.ne;stlxr;cbnz;.*dmb;ret", "stlxr then dmb ish on success"),
         "add": (r"^ldxr;add;stxr;cbnz;", "void add: ldxr/stxr")}),
    ("riscv64", ["riscv64-linux-gnu-gcc"], "qemu-riscv64", "riscv64-linux-gnu-objdump", {
         "fetch_add": (r"(^fence;amoadd\.w;fence;|^amoadd\.w\.aqrl;)", "a full fence each side (gcc < 13) or amoadd.w.aqrl"),
         "fetch_add_relaxed": (r"^amoadd\.w;", "amoadd.w, no fence"),
         "cmpxchg": (r"lr\.w.*;sc\.w.*fence", "LR/SC then fence on success"),
         "add": (r"^amoadd\.w;", "void add: amoadd.w")}),
]


def probes(objdump, exe):
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", exe], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    code, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <probe_(\w+)>:", line)
        if m:
            cur = code.setdefault(m.group(1), [])
            continue
        if not line.strip():
            cur = None
        elif cur is not None and "\t" in line:
            cur.append(line.split("\t")[1].split()[0] if len(line.split("\t")) > 1 else "")
    return {k: ";".join(v) for k, v in code.items()}


def main(argv):
    build = argv[0]
    os.makedirs(build, exist_ok=True)
    t = Tap()
    for name, cc, qemu, objdump, want in TARGETS:
        if not shutil.which(cc[0]) or not shutil.which(objdump):
            print("# note: %s not installed: %s skipped" % (cc[0], name))
            continue
        exe = os.path.join(build, "mock-generic-c11-" + name)
        r = subprocess.run(cc + ["-static", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", INC,
                                 "-o", exe, os.path.join(HERE, "mock-generic-c11.c")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if not t.check(r.returncode == 0, "%s: %s compiles the asm-generic C11 layer" % (name, cc[0])):
            print("# " + "\n# ".join(r.stdout.strip().splitlines()[:10]))
            continue
        code = probes(objdump, exe)
        for probe, (rx, why) in sorted(want.items()):
            got = code.get(probe, "")
            if not t.check(re.search(rx, got) is not None, "%s: %s is %s" % (name, probe, why)):
                print("# got: %s" % got)
        bad = [c for c in code.values() if re.search(r"\b(bl|call|jal|tail)\b", c)]
        t.check(not bad, "%s: no probe calls out (no libatomic or outline-atomics helper)" % name)
        if not shutil.which(qemu):
            print("# note: %s not installed: %s not run" % (qemu, name))
            continue
        r = subprocess.run([qemu, exe], stdout=subprocess.PIPE, universal_newlines=True)
        nok = [l for l in r.stdout.splitlines() if l.startswith("not ok")]
        t.check(r.returncode == 0 and not nok and re.search(r"^1\.\.\d+$", r.stdout, re.M),
                "%s: every operation in every order gives the kernel's result under %s (%s)"
                % (name, qemu, (r.stdout.strip().splitlines() or ["no output"])[-1]))
        for l in nok:
            print("# " + l)
    # clang --target: the layer compiles, and nothing in it calls libatomic or
    # the outline-atomics helpers (the kernel has neither: a member of a
    # __packed struct once made clang call __atomic_load from objpool.c).
    clang, nm = shutil.which("clang-19"), shutil.which("llvm-nm-19")
    for name, cc, _, _, _ in TARGETS:
        triple = cc[0][:-len("-gcc")]
        if not clang or not nm:
            print("# note: clang-19 or llvm-nm-19 not installed: %s with clang skipped" % name)
            continue
        obj = os.path.join(build, "mock-generic-c11-clang-%s.o" % name)
        r = subprocess.run([clang, "--target=" + triple] + cc[1:] + ["-std=gnu11", "-O2", "-Wall", "-Wextra",
                            "-Werror", "-I", INC, "-c", "-o", obj, os.path.join(HERE, "mock-generic-c11.c")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if not t.check(r.returncode == 0, "%s: clang-19 --target=%s compiles the asm-generic C11 layer"
                       % (name, triple)):
            print("# " + "\n# ".join(r.stdout.strip().splitlines()[:10]))
            continue
        und = subprocess.run([nm, "-u", obj], stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
        calls = sorted(u for u in und if u.startswith(("__atomic_", "__aarch64_", "__sync_")))
        t.check(not calls, "%s: clang-19 makes no libatomic/outline-atomics call%s"
                % (name, " (calls %s)" % ", ".join(calls) if calls else ""))
    # The vmlinux audit's instruction classes and reasons, on synthetic code.
    from katomic_tools.kernel import xaudit
    cases = [("arm64", "dmb", "ish", "full_fence"), ("arm64", "dmb", "ishst", "light_fence"),
             ("arm64", "ldaddal", "w1, w0, [x0]", "lse_full"), ("arm64", "ldadd", "w1, w0, [x0]", "lse"),
             ("arm64", "casalb", "w0, w2, [x3]", "lse_full"), ("arm64", "stlxr", "w4, w3, [x2]", "llsc_loop"),
             ("arm64", "ldar", "w0, [x0]", "acq_rel"), ("arm64", "ldr", "w0, [x0]", ""),
             ("riscv64", "fence", "rw,rw", "full_fence"), ("riscv64", "fence", "", "full_fence"),
             ("riscv64", "fence", "r,rw", "light_fence"), ("riscv64", "amoadd.w.aqrl", "a5,a1,(a0)", "amo_full"),
             ("riscv64", "amoadd.w", "a5,a1,(a0)", "amo"), ("riscv64", "sc.w.rl", "a3,a2,(a0)", "llsc_loop")]
    bad = [c for c in cases if xaudit.classify(c[0], c[1], c[2]) != c[3]]
    t.check(not bad, "xaudit: %d instructions classified (full/light fence, LSE al, LL/SC, AMO.aqrl)%s"
            % (len(cases), "; wrong: %s" % bad if bad else ""))
    stock = [("ldaddal", "w1, w0, [x0]"), ("ldxr", "w0, [x2]"), ("stlxr", "w4, w3, [x2]"), ("dmb", "ish")]
    t.check("LSE only" in xaudit.reason("arm64", "small", stock, [("ldaddal", "w1, w0, [x0]")]),
            "xaudit: an LSE-only C11 function is named as the LL/SC fallback gone")
    t.check("full-fence policy" in xaudit.reason("arm64", "small-llsc", [("ldxr", ""), ("stlxr", "")],
                                                 [("ldxr", ""), ("stlxr", ""), ("dmb", "ish")]),
            "xaudit: an extra dmb ish on LL/SC is named as the full-fence policy")
    t.check("same atomic" in xaudit.reason("riscv64", "small", [("amoadd.w", "")], [("mv", ""), ("amoadd.w", "")]),
            "xaudit: same atomics, more instructions: inlining/register allocation")

    # The patch per architecture against Debian's linux-source-6.12 (if extracted).
    from katomic_tools.kernel import KernelError, patch, tree
    src = os.path.join(tree.kcache(), "src", "linux-source-6.12")
    if not os.path.isfile(os.path.join(src, tree.STAMP)):
        src = None
    if src is None:
        print("# note: linux-source-6.12 not extracted: the --arch patches not checked")
    else:
        for arch, must in (("arm64", ["arch/arm64/include/asm/atomic.h", "arch/arm64/Makefile"]),
                           ("riscv64", ["arch/riscv/include/asm/bitops.h", "arch/riscv/include/asm/atomic.h"])):
            try:
                text = patch.make(src, arch)
                patch.check_applies(text, src)
                files = re.findall(r"^\+\+\+ b/(\S+)", text, re.M)
                t.check(all(m in files for m in must) and "include/asm-generic/atomic-c11.h" in files
                        and not any(f.startswith("arch/x86/") for f in files),
                        "--arch %s: the patch applies to %s and touches only its arch and asm-generic (%d files)"
                        % (arch, os.path.basename(src), len(files)))
            except KernelError as e:
                t.check(False, "--arch %s: the patch applies (%s)" % (arch, e))
    r = subprocess.run(["sh", os.path.join(ROOT, "tools", "kernel", "kernel.sh"), "--arch", "mips"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    t.check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--arch mips" in r.stderr
            and "Traceback" not in r.stderr, "katomic kernel --arch mips: one clear line, exit 2")
    return t.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
