"""make check-kernel: the .smp_locks step on synthetic modules (TAP-like).

Each synthetic "module" is a relocatable object (`cc -c`, then `ld -r` like
scripts/Makefile.modfinal, or without `ld -r`: no section symbols) with lock sites at known labels in two text
sections, one marked to stay locked (DS prefix), a fence on the stack,
.init.text and .exit.text sites, with and without a .smp_locks of its own.
The step's output is read back with binutils, not with our parser:
`readelf -rW` must list exactly the expected sites (section + offset) in
.rela.smp_locks, the old entries first and unchanged; `objdump -d` and
`readelf -a` must still work without a warning; and the patched object,
linked by ld into an executable, must have .smp_locks entries (resolved by
ld from our relocations) naming exactly the lock bytes.  Run twice: the same
bytes.  Refused (exit 1, one line, file unchanged): a lock in an
alternative's replacement the table lacks, a lock in an alternative's
original bytes, at a jump label, at an inline static call; a stale entry.
usage: check-smplocks-ko.py BUILD_DIR CC
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "up"))
import uplocks                                      # noqa: E402

sys.path.insert(0, HERE)
from importlib import import_module                 # noqa: E402
base = import_module("check-smplocks")              # step(), refused()

# A, B, C, S, X: compiler-like sites (X in a second text section, E in .exit.text, which
# stays as module text with CONFIG_MODULE_UNLOAD); R: recorded by the asm (LOCK_PREFIX-like,
# when @LOCKS@ has it); K: DS-marked; F: a fence on the stack; I: .init.text.
ASM = """
  .text
  .globl f
f:
  nop
""" + base.SITES_ASM + """
  .section .text.unlikely, "ax"
  nop
  nop
X: lock andl $5, (%rdi)
  ret
  .section .exit.text, "ax"
E: lock decq (%rdi)
  ret
""" + base.INIT_ASM + """
@LOCKS@
@ALT@
"""
SITES = ("A", "B", "C", "S", "X", "E")
WITH_TABLE = '  .section .smp_locks, "a"\n  .balign 4\n  .long R - .\n  .long I - .'


def build(tmp, cc, name, text="", locks="", alt="", ld_r=True):
    src = os.path.join(tmp, name + ".S")
    with open(src, "w") as f:
        f.write(ASM.replace("@TEXT@", text).replace("@LOCKS@", locks).replace("@ALT@", alt))
    obj, ko = os.path.join(tmp, name + ".o"), os.path.join(tmp, name + ".ko")
    if not ld_r:
        ko = obj
    for cmd in [[cc, "-c", "-o", obj, src]] + ([["ld", "-r", "-o", ko, obj]] if ld_r else []):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode:
            raise RuntimeError("%s: %s failed: %s" % (name, cmd[0], r.stdout.strip()[-300:]))
    return ko


def out(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def readelf_symbols(path):
    """({index: section name}, {symbol: (section name, value)}) by readelf -SW and -sW."""
    _, secs, _ = out(["readelf", "-SW", path])
    names = {int(m.group(1)): m.group(2) for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", secs, re.M)}
    _, syms, _ = out(["readelf", "-sW", path])
    res = {}
    for line in syms.splitlines():
        w = line.split()
        if len(w) == 8 and w[0].endswith(":") and w[6].isdigit():
            res[w[7]] = (names[int(w[6])], int(w[1], 16))
    return names, res


def readelf_table(path):
    """[(section, offset)] of .rela.smp_locks in entry order, read by readelf (binutils)."""
    names, syms = readelf_symbols(path)
    _, rel, _ = out(["readelf", "-rW", path])
    m = re.search(r"Relocation section '\.rela\.smp_locks'.*?\n.*?\n((?:[0-9a-f]+ .*\n?)*)", rel)
    rows = []
    for line in (m.group(1).splitlines() if m else []):
        w = line.split()
        # offset info type symvalue name + addend
        if len(w) != 7 or w[2] != "R_X86_64_PC32" or w[5] not in "+-":
            rows.append(("bad row", line))
            continue
        add = int(w[6], 16) * (1 if w[5] == "+" else -1)
        sec = w[4] if w[4] in names.values() else syms.get(w[4], ("?",))[0]
        rows.append((int(w[0], 16), sec, int(w[3], 16) + add))
    return rows


def labels(path):
    """{label: (section, offset)} by readelf -sW."""
    return {k: v for k, v in readelf_symbols(path)[1].items() if k in SITES + ("R", "I", "K", "F")}


def linked_entries(tmp, cc, ko):
    """Link the patched object into an executable (ld resolves our relocations): the bytes
    each .smp_locks entry names."""
    exe = ko + ".exe"
    r = subprocess.run(["ld", "-static", "-e", "f", "-o", exe, ko], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode:
        return None, r.stdout.strip()[-200:]
    with open(exe, "rb") as f:
        data = f.read()
    elf = uplocks.Elf(exe, data)
    got = []
    for a in elf.records(".smp_locks"):
        for nm, _, _, sa, so, ss in elf.sections:
            if sa <= a < sa + ss and nm:
                got.append((a, data[so + a - sa]))
                break
        else:
            got.append((a, None))
    _, nm_out, _ = out(["nm", exe])
    syms = {w[2]: int(w[0], 16) for w in (l.split() for l in nm_out.splitlines()) if len(w) == 3}
    return got, syms


def main(argv):
    t, tmp, cc = base.start(argv, "check-smplocks-ko.py", ("objdump", "readelf", "ld", "nm"),
                            "the module .smp_locks step's", "smplocks-ko")
    if t is None:
        return tmp

    # plain: R is the compiler's too; table: R and I (.init.text, left there) are the asm's;
    # object: as the assembler left it, without section symbols (gas omits unused ones): each
    # entry relocates against the first label of its section, addend = site - label.
    for name, locks, old, outside, ld_r in (("plain", "", [], 1, True), ("table", WITH_TABLE, ["R", "I"], 0, True),
                                            ("object", "", [], 1, False)):
        ko = build(tmp, cc, name, locks=locks, ld_r=ld_r)
        lab = labels(ko)
        before = readelf_table(ko)
        t.check([(sec, off) for _, sec, off in before] == [lab[n] for n in old],
                "%s: readelf before the step: %s entries %s" % (name, len(old), before))
        r = base.step(ko)
        new = sorted(lab[n] for n in SITES + (() if old else ("R",)))
        t.check(r.returncode == 0 and "added %d new" % len(new) in r.stdout and "2 kept locked" in r.stdout
                and "%d outside module text" % outside in r.stdout,
                "%s: step: %d new, 2 kept locked (K, F), %d in .init.text left out (%s)"
                % (name, len(new), outside, (r.stdout or r.stderr).strip()))
        after = readelf_table(ko)
        t.check(after[:len(before)] == before, "%s: the old entries first, unchanged" % name)
        t.check(sorted(row[1:] for row in after[len(before):]) == new,
                "%s: readelf -r lists exactly A, B, C, S, X (.text.unlikely), E (.exit.text)%s after them: %s"
                % (name, "" if old else ", R", after[len(before):]))
        t.check([row[0] for row in after] == [4 * i for i in range(len(after))],
                "%s: one relocation per s32 slot, in order" % name)
        rc, _, err = out(["objdump", "-d", ko])
        rc2, _, err2 = out(["readelf", "-a", "-W", ko])
        t.check(rc == 0 and rc2 == 0 and not err.strip() and not err2.strip(),
                "%s: objdump -d and readelf -a read it without a warning %s" % (name, (err + err2).strip()[:200]))
        got, syms = linked_entries(tmp, cc, ko)
        if got is None:
            t.check(False, "%s: ld links the patched object: %s" % (name, syms))
        else:
            want = sorted(syms[n] for n in SITES + ("R",) + tuple(x for x in old if x != "R"))
            t.check(sorted(a for a, _ in got) == want and all(b == 0xF0 for a, b in got),
                    "%s: linked by ld, every entry names its lock byte (0xf0): %d entries" % (name, len(got)))
        with open(ko, "rb") as f:
            once = f.read()
        r = base.step(ko)
        with open(ko, "rb") as f:
            t.check(r.returncode == 0 and "added 0 new" in r.stdout and f.read() == once,
                    "%s: run twice: nothing new, same bytes" % name)

    # A lock in an alternative's replacement the table lacks.
    ko = build(tmp, cc, "repl", alt='  .section .altinstr_replacement, "ax"\n  lock incl (%rdi)\n  ret')
    with open(ko, "rb") as f:
        before = f.read()
    base.refused(t, base.step(ko), ko, before, "repl", ".altinstr_replacement")

    # A compiler-like lock inside an alternative's original bytes (struct alt_instr: 14 bytes).
    ko = build(tmp, cc, "alt", text="Z: lock incl 4(%rdi)\n  nop",
               alt='  .section .altinstructions, "a"\n  .long Z - .\n  .long Y - .\n  .long 0\n  .byte 4, 4\n'
                   '  .section .altinstr_replacement, "ax"\nY: nop; nop; nop; nop')
    with open(ko, "rb") as f:
        before = f.read()
    base.refused(t, base.step(ko), ko, before, "alt", "alternative", ".altinstructions")

    # A lock at a jump label's or an inline static call's site (their key: an undefined
    # symbol, as a static key in vmlinux is to a module).
    for name, table, what in (
            ("jump", '  .section __jump_table, "aw"\n  .balign 8\n  .long Z - .\n  .long f - .\n  .quad key - .',
             "__jump_table"),
            ("static-call", '  .section .static_call_sites, "aw"\n  .long Z - .\n  .long key - .',
             ".static_call_sites")):
        ko = build(tmp, cc, name, text="Z: lock incl 4(%rdi)\n  nop", alt=table)
        with open(ko, "rb") as f:
            before = f.read()
        base.refused(t, base.step(ko), ko, before, name, what)

    # A stale table: an entry in module text that names no lock prefix.
    ko = build(tmp, cc, "stale", locks='  .section .smp_locks, "a"\n  .long f - .')
    with open(ko, "rb") as f:
        before = f.read()
    base.refused(t, base.step(ko), ko, before, "stale", "stale", "0x90")

    # Not a module: a vmlinux-like executable without the room goes to the vmlinux step.
    r = base.step(os.path.join(tmp, "no-such.ko"))
    t.check(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "no-such.ko" in r.stderr,
            "a missing file: one line naming it")
    return t.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
