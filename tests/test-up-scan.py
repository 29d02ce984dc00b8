#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make check-up: uniprocessor lock elision after `katomic uplocks`, as a user runs it (TAP).

For every compiler and backend: tests/test-up-patch.c built as a PIE, as a
non-PIE executable and as a shared object (+ the program that links it),
each scanned with `katomic uplocks` and then run (test-up-patch scanned N A:
the counts the scan reported); the same programs made stale after the scan
(a code byte changed, a table entry changed) must refuse to patch;
tests/test-up-auto.c scanned, with and without the test-only possible-CPU
override.  Then the scanner's refusals: no table, already scanned, a table
too small, a lock on an instruction that cannot be locked, not an ELF file,
an object file, a missing file, no objdump.

  test-up-scan.py BUILD_DIR CC... -- BACKEND...    (CFLAGS_TEST from the environment)
"""
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "up"))
import uplocks  # noqa: E402  (the scanner's own ELF reader and table layout)

CLI = ["sh", os.path.join(ROOT, "tools", "katomic.sh"), "uplocks"]
n_test = 0
n_fail = 0


def ok(cond, what, detail=""):
    global n_test, n_fail
    n_test += 1
    if not cond:
        n_fail += 1
    print(f"{'' if cond else 'not '}ok {n_test} - {what}")
    if not cond and detail:
        for line in detail.strip().splitlines()[-25:]:
            print(f"#   {line}")
    sys.stdout.flush()
    return cond


def diag(msg):
    print(f"# {msg}")


def sh(cmd, env=None, inp=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, input=inp, check=False)
    return r.returncode, r.stdout + r.stderr


def cc_cmd(cc, backend, *args):
    flags = shlex.split(os.environ.get("CFLAGS_TEST", "-std=gnu11 -O2 -g -Wall -Wextra -pthread"))
    flags += ["-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "tests")]
    if backend == "asm":
        flags.append("-DKATOMIC_BACKEND_ASM")
    return [cc] + flags + list(args)


def build(what, cmd):
    rc, out = sh(cmd)
    return ok(rc == 0, f"build {what}", " ".join(cmd) + "\n" + out)


def scan(path, what):
    """Run katomic uplocks; returns (table sites, asm records) from its report, or None."""
    rc, out = sh(CLI + [path])
    m = re.search(r": (\d+) lock sites recorded \((\d+) kept locked by __KA_LOCK_KEEP, (\d+) recorded by the asm", out)
    if not ok(rc == 0 and m is not None, f"{what}: katomic uplocks: {out.strip().split(': ', 2)[-1]}", out):
        return None
    return int(m.group(1)), int(m.group(3))


def run_tap(what, cmd, env=None):
    rc, out = sh(cmd, env=env)
    lines = out.splitlines()
    plan = [l for l in lines if re.match(r"^1\.\.\d+$", l)]
    bad = [l for l in lines if l.startswith("not ok")]
    good = len([l for l in lines if l.startswith("ok")])
    notes = [l for l in lines if l.startswith("# control")]
    for n in notes:
        print(n)
    return ok(rc == 0 and plan and not bad and good == int(plan[0][3:]),
              f"{what}: {good} checks passed", out)


def elf_type(path):
    with open(path, "rb") as f:
        return struct.unpack_from("<H", f.read(18), 16)[0]


def file_offset(path, addr):
    with open(path, "rb") as f:
        elf = uplocks.Elf(path, f.read())
    for name, stype, _, saddr, off, size in elf.sections:
        if stype != uplocks.SHT_NOBITS and saddr <= addr < saddr + size and saddr:
            return off + addr - saddr
    raise RuntimeError(f"{path}: 0x{addr:x} in no section")


def symbol(path, name):
    rc, out = sh(["nm", path])
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    raise RuntimeError(f"{path}: no symbol {name}")


def table(path):
    with open(path, "rb") as f:
        data = f.read()
    s = uplocks.Elf(path, data).section(uplocks.TABLE)
    return s[4], data


def patch_file(path, off, blob):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(blob)


def stale_copies(path, what, tsites):
    """The scanned program, changed after the scan in three ways: each must refuse (test-up-patch stale)."""
    code = path + "-code"
    shutil.copy(path, code)
    off = file_offset(code, symbol(code, "mod_never_called"))
    with open(code, "rb") as f:
        f.seek(off)
        b = f.read(1)[0]
    patch_file(code, off, bytes([b ^ 0x55]))
    run_tap(f"{what}: one code byte changed after the scan (a function never called)", [code, "stale"])

    tab = path + "-table"
    shutil.copy(path, tab)
    toff, data = table(tab)
    if tsites:
        # Site 0 now names a byte that is not a lock: the first byte of mod_never_called.
        taddr = uplocks.Elf(tab, data).section(uplocks.TABLE)[3]
        patch_file(tab, toff + uplocks.HDR_SIZE, struct.pack("<i", symbol(tab, "mod_never_called") - taddr))
        run_tap(f"{what}: a table entry changed to name a byte that is not a lock", [tab, "stale"])
    # A table claiming more sites than it holds.
    cap = struct.unpack_from("<I", data, toff + 24)[0]
    patch_file(tab, toff + 28, struct.pack("<I", cap + 1))
    run_tap(f"{what}: a table claiming more sites than it holds", [tab, "stale"])


def program(cc, backend, d):
    what = f"{cc} {backend}"
    src = os.path.join(ROOT, "tests", "test-up-patch.c")
    gc = ["-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections"]
    modes = [("pie", ["-fPIE", "-pie"], 3), ("non-PIE", ["-fno-pie", "-no-pie"], 2), ("pie --gc-sections", gc, 3)]
    if shutil.which("ld.lld"):      # lld drops sections only __start_ symbols refer to
        modes.append(("pie --gc-sections lld", gc + ["-fuse-ld=lld"], 3))
    else:
        diag("ld.lld not installed: the lld --gc-sections build is skipped")
    for mode, flags, etype in modes:
        exe = os.path.join(d, "patch-" + mode.replace(" ", "").replace("--", "-"))
        if not build(f"{what} {mode}", cc_cmd(cc, backend, *flags, "-o", exe, src, "-ldl")):
            continue
        ok(elf_type(exe) == etype, f"{what} {mode}: ELF type {elf_type(exe)}")
        counts = scan(exe, f"{what} {mode}")
        if counts is None:
            continue
        if backend == "c11":
            ok(counts[0] > 0, f"{what} {mode}: the scan found the compiler's lock sites ({counts[0]})")
        run_tap(f"{what} {mode}: test-up-patch scanned", [exe, "scanned", str(counts[0]), str(counts[1])])
        if mode == "pie" and shutil.which("taskset"):
            run_tap(f"{what} {mode}: taskset -c 0 test-up-patch scanned",
                    ["taskset", "-c", "0", exe, "scanned", str(counts[0]), str(counts[1])])
        if mode == "pie":
            stale = os.path.join(d, "stale")
            if build(f"{what} pie, to be made stale", cc_cmd(cc, backend, "-o", stale, src, "-ldl")) \
                    and scan(stale, f"{what} pie, to be made stale"):
                stale_copies(stale, f"{what} pie", counts[0])
            rc, out = sh(CLI + [exe])
            ok(rc == 1 and "already scanned" in out and out.count("\n") == 1,
               f"{what}: a second scan is refused: {out.strip()}", out)

    lib = os.path.join(d, "libuptest.so")
    exe = os.path.join(d, "patch-dso")
    if build(f"{what} shared object", cc_cmd(cc, backend, "-fPIC", "-shared", "-DUP_MODULE_ONLY", "-o", lib, src)) \
            and build(f"{what} program linking it", cc_cmd(cc, backend, "-DUP_MAIN_ONLY", "-o", exe, src,
                                                           "-L" + d, "-luptest", "-Wl,-rpath," + d, "-ldl")):
        ok(elf_type(lib) == 3, f"{what} shared object: ELF type 3")
        counts = scan(lib, f"{what} shared object")
        rc, out = sh(CLI + [exe])
        ok(rc == 1 and "no __ka_uplocks section" in out,
           f"{what}: the program linking the shared object has no table of its own: {out.strip()}", out)
        if counts:
            run_tap(f"{what} shared object: test-up-patch scanned", [exe, "scanned", str(counts[0]), str(counts[1])])

    src = os.path.join(ROOT, "tests", "test-up-auto.c")
    for variant, flags in (("", []), (" + test-only override", ["-DKATOMIC_UP_TESTING"])):
        exe = os.path.join(d, "auto" + ("-testing" if flags else ""))
        if build(f"{what} test-up-auto{variant}", cc_cmd(cc, backend, *flags, "-o", exe, src)) \
                and scan(exe, f"{what} test-up-auto{variant}"):
            run_tap(f"{what} test-up-auto{variant}, scanned", [exe])

    if backend == "c11":
        exe = os.path.join(d, "patch-small-table")
        if build(f"{what} with KATOMIC_UP_TABLE_MAX=2",
                 cc_cmd(cc, backend, "-DKATOMIC_UP_TABLE_MAX=2", "-o", exe, os.path.join(ROOT, "tests", "test-up-patch.c"), "-ldl")):
            rc, out = sh(CLI + [exe])
            ok(rc == 1 and "the table holds 2" in out and "-DKATOMIC_UP_TABLE_MAX=" in out,
               f"{what}: too many sites for the table: refused, says how to fix it: {out.strip()}", out)


def refusals(cc, d):
    """The scanner's errors: one line naming the file and what is wrong, exit status 1."""
    def refused(what, args, want, env=None):
        rc, out = sh(CLI + args, env=env)
        ok(rc == 1 and want in out and out.count("\n") == 1 and args[-1] in out,
           f"refused: {what}: {out.strip()}", out)

    exe = os.path.join(d, "no-table")
    if build("a program without the table (examples/refcount-object.c)",
             cc_cmd(cc, "c11", "-o", exe, os.path.join(ROOT, "examples", "refcount-object.c"))):
        refused("no table", [exe], "no __ka_uplocks section: define KATOMIC_UP_TABLE")
    obj = os.path.join(d, "object.o")
    if build("an object file", cc_cmd(cc, "c11", "-c", "-o", obj, os.path.join(ROOT, "tests", "test-up-patch.c"))):
        refused("an object file", [obj], "not a linked executable or shared object")
    for what, body, want in (
            ("lock on a register operand", '.byte 0xf0; addl %%eax, %%ebx', "cannot be locked"),
            ("lock on a nop", '.byte 0xf0; nop', "cannot be locked")):
        src = os.path.join(d, "bad-lock.c")
        with open(src, "w") as f:
            f.write('#define KATOMIC_UP_TABLE\n#include <katomic/up.h>\n'
                    f'int main(void) {{ __asm__ __volatile__("{body}" ::: "eax", "ebx", "cc"); return 0; }}\n')
        exe = os.path.join(d, "bad-lock")
        if build(f"a program with {what}", cc_cmd(cc, "c11", "-o", exe, src)):
            refused(what, [exe], want)
            toff, data = table(exe)
            ok(struct.unpack_from("<I", data, toff + 20)[0] == 0, f"{what}: nothing was written")
    refused("not an ELF file", [os.path.join(ROOT, "README.md")], "not an ELF file")
    refused("a missing file", [os.path.join(d, "no-such-program")], "No such file")
    exe = os.path.join(d, "unscanned")
    if build("a program not scanned yet", cc_cmd(cc, "c11", "-o", exe, os.path.join(ROOT, "tests", "test-up-patch.c"))):
        refused("no objdump", [exe], "not found: install binutils", env=dict(os.environ, OBJDUMP="/nonexistent/objdump"))
    rc, out = sh(CLI)
    ok(rc == 2 and "usage" in out, "no argument: usage, exit status 2")


def main(argv):
    if "--" not in argv or len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    i = argv.index("--")
    build_dir, ccs, backends = argv[0], argv[1:i], argv[i + 1:]
    if not shutil.which("objdump"):
        print("1..0 # SKIP objdump not installed (binutils)")
        return 0
    for cc in ccs:
        for backend in backends:
            d = os.path.join(build_dir, f"{cc}-{backend}")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            diag(f"{cc}, {backend} backend")
            program(cc, backend, d)
        d = os.path.join(build_dir, f"{cc}-refusals")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        refusals(cc, d)
    print(f"1..{n_test}")
    print(f"# check-up: {n_test - n_fail} passed, {n_fail} failed")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
