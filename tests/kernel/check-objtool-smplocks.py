"""make check-kernel: objtool --smp-locks of katomic's patch on synthetic objects (TAP-like).

objtool is built from linux-source-6.12 with the patch applied (the patched
tree in the kernel cache; no linux-source or no libelf-dev: a note, skipped).
One object holds lock sites of every kind the pass tells apart: compiler-like
ones (recorded; a 16-bit one whose lock byte follows a 0x66 prefix; an atomic
on a stack object), one the asm recorded (LOCK_PREFIX-style, not recorded
twice), kept ones (a DS mark, a fence on the stack, a %gs one, one annotated
ANNOTATE_KEEP_LOCK in .discard.keep_lock), and init text (.init.text; .exit.text
is module text).  Checks: the relocations objtool adds name exactly the
expected lock bytes (readelf -r), the asm's entries stay, a second run adds
nothing, --module records .exit.text too; linked like a kernel, objtool's
table and katomic's decoder agree site for site (crosscheck.py), and the
same object linked without the pass differs by the compiler-like sites;
refused with an objtool error, the object unchanged: a lock in an
alternative's original bytes, in its replacement, a stale entry.
usage: check-objtool-smplocks.py BUILD_DIR CC
"""
import os
import re
import shutil
import subprocess
import sys
from importlib import import_module

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap                # noqa: E402
from katomic_tools.kernel import KernelError, crosscheck, patch, tree  # noqa: E402

sys.path.insert(0, HERE)
base = import_module("check-smplocks")              # SITES: A B C R K F S

OBJ = """
  .text
  .globl f
  .type f, @function
f:
""" + base.SITES + """W: lock addw $1, (%rdi)
G: lock addl $1, %gs:(%rdi)
N: lock cmpxchgl %esi, (%rdx)
M: lock addl $0, -4(%rsp)
O: lock orq $0, (%rsp)
  xchgl %eax, (%rdi)
@TEXT@
  ret
  .size f, .-f

  .section .init.text, "ax"
  .globl g
  .type g, @function
g:
I: lock orl $1, (%rdi)
  ret
  .size g, .-g

  .section .exit.text, "ax"
  .globl h
  .type h, @function
h:
E: lock incq (%rdi)
  ret
  .size h, .-h

  .section .smp_locks, "a"
  .balign 4
  .long R - .
  .long I - .
  .long M - .
@LOCKS@
  .section .discard.keep_lock
  .long N
@MORE@
"""
# (label, offset of the lock byte from it)
RECORDED = [("A", 0), ("B", 0), ("C", 0), ("S", 0), ("W", 1)]
LDS = """
SECTIONS {
  . = 0xffffffff81000000;
  .text : { _text = .; *(.text) }
  _etext = .;
  .init.text : { *(.init.text) }
  .exit.text : { *(.exit.text) }
  .altinstructions : { *(.altinstructions) }
  .altinstr_replacement : { *(.altinstr_replacement) }
  . = ALIGN(4096);
  .smp_locks : { __smp_locks = .; *(.smp_locks) . = ALIGN(4096); __smp_locks_end = .; }
  /DISCARD/ : { *(.discard.*) *(.note*) *(.eh_frame*) *(.comment) }
}
"""
ALT = """
  .section .altinstructions, "a"
  .long 661b - .
  .long 6641f - .
  .4byte 1
  .byte 662b - 661b
  .byte 6651f - 6641f
  .section .altinstr_replacement, "ax"
6641: @REPL@
6651:
"""


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def build_objtool(t, out):
    """objtool of the patched tree, or None (a note says why)."""
    if not os.path.isfile("/usr/include/gelf.h"):
        print("# note: /usr/include/gelf.h not found (apt-get install libelf-dev): objtool checks skipped")
        return None
    try:
        src = tree.pristine()
        ptree = patch.patched_tree(src, patch.make(src))
    except KernelError as e:
        print("# note: %s: objtool checks skipped" % e)
        return None
    os.makedirs(out, exist_ok=True)
    r = run(["make", "-s", "-C", os.path.join(ptree, "tools", "objtool"), "O=" + out])
    tool = os.path.join(out, "objtool")
    ok = r.returncode == 0 and os.path.isfile(tool)
    t.check(ok and "--smp-locks" in run([tool, "--help"]).stderr + run([tool, "--help"]).stdout,
            "objtool of the patched tree builds (-Werror) and has --smp-locks%s"
            % ("" if ok else ": " + (r.stdout + r.stderr).strip()[-300:]))
    return tool if ok else None


def assemble(cc, tmp, name, **kw):
    text = OBJ
    for k in ("TEXT", "LOCKS", "MORE"):
        text = text.replace("@%s@" % k, kw.get(k, ""))
    base = os.path.join(tmp, name)
    with open(base + ".S", "w") as f:
        f.write(text)
    r = run([cc, "-c", "-o", base + ".o", base + ".S"])
    if r.returncode:
        raise RuntimeError("%s: %s" % (name, r.stderr.strip()[-300:]))
    return base + ".o"


def labels(obj):
    """{label: (section, value)} from nm (local labels A..W, I, E)."""
    out = {}
    r = run(["readelf", "-sW", obj])
    secs = sections(obj)
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 8 and f[6].isdigit():
            out[f[7]] = (secs.get(int(f[6])), int(f[1], 16))
    return out


def sections(obj):
    r = run(["readelf", "-SW", obj])
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def entries(obj):
    """[[(section, offset)] of each .rela.smp_locks section], in file order."""
    r = run(["readelf", "-rW", obj])
    out, cur = [], None
    for line in r.stdout.splitlines():
        if line.startswith("Relocation section"):
            cur = [] if "'.rela.smp_locks'" in line else None
            if cur is not None:
                out.append(cur)
            continue
        f = line.split()
        if cur is not None and len(f) >= 7 and f[2] == "R_X86_64_PC32":
            cur.append((f[4], int(f[6], 16)))
    return out


def expect(lab, sites):
    return sorted((lab[s][0], lab[s][1] + d) for s, d in sites)


def link(cc, obj, out):
    with open(out + ".lds", "w") as f:
        f.write(LDS)
    r = run(["ld", "-T", out + ".lds", "-o", out, obj])
    if r.returncode:
        raise RuntimeError("ld %s: %s" % (out, r.stderr.strip()[-300:]))
    return out


def refused(t, tool, obj, what, *words):
    with open(obj, "rb") as f:
        before = f.read()
    r = run([tool, "--smp-locks", obj])
    with open(obj, "rb") as f:
        same = f.read() == before
    err = [l for l in r.stderr.splitlines() if "error: objtool:" in l]
    t.check(r.returncode != 0 and len(err) == 1 and all(w in err[0] for w in words) and same,
            "refused (exit %d), one objtool error naming %s, object unchanged: %s"
            % (r.returncode, what, (err or [r.stderr.strip()])[0][:200]))


def main(argv):
    if len(argv) != 2:
        print("usage: check-objtool-smplocks.py BUILD_DIR CC", file=sys.stderr)
        return 2
    out, cc = argv
    t = Tap()
    for tool in ("readelf", "ld", "objdump", "make", cc):
        if not shutil.which(tool):
            print("# note: %s not found: objtool --smp-locks checks skipped" % tool)
            return t.summary()
    tmp = os.path.join(out, "objtool-smplocks")
    shutil.rmtree(os.path.join(tmp, "t"), ignore_errors=True)
    os.makedirs(os.path.join(tmp, "t"))
    tool = build_objtool(t, os.path.join(tmp, "objtool"))
    if not tool:
        return t.summary()
    tmp = os.path.join(tmp, "t")

    obj = assemble(cc, tmp, "sites")
    pristine = os.path.join(tmp, "pristine.o")
    shutil.copy(obj, pristine)
    lab = labels(obj)
    asm_before = entries(obj)
    r = run([tool, "--smp-locks", "--stats", obj])
    tabs = entries(obj)
    got = sorted(tabs[-1]) if len(tabs) == 2 else None
    t.check(r.returncode == 0 and len(tabs) == 2 and tabs[0] == asm_before[0] and got == expect(lab, RECORDED),
            "objtool --smp-locks adds a .smp_locks of its own naming exactly the lock bytes of A B C S W+1 "
            "(not R: the asm's; not K F G N: kept; not I E: init text), the asm's entries unchanged: %s"
            % (got if got is not None else r.stderr.strip()[-200:]))
    stats = dict(re.findall(r"smp_locks: ([a-z ]+?):\s+(\d+)", r.stdout))
    t.check(stats == {"recorded by the asm": "3", "recorded": "5", "kept locked": "5", "in init text": "1"},
            "--stats: 3 recorded by the asm (R, M: smp_mb() by LOCK_PREFIX, and I in .init.text), 5 recorded, "
            "5 kept locked (K F G N O), "
            "1 left out in init text (E: .exit.text lies outside the kernel's _text.._etext): %s" % stats)
    with open(obj, "rb") as f:
        once = f.read()
    r = run([tool, "--smp-locks", obj])
    with open(obj, "rb") as f:
        t.check(r.returncode == 0 and f.read() == once, "run twice: nothing added, the object unchanged")

    mod = os.path.join(tmp, "module.o")
    shutil.copy(pristine, mod)
    r = run([tool, "--smp-locks", "--module", mod])
    tabs = entries(mod)
    t.check(r.returncode == 0 and len(tabs) == 2 and sorted(tabs[-1]) == expect(lab, RECORDED + [("E", 0)]),
            "--module: .exit.text's E is module text (CONFIG_MODULE_UNLOAD) and is recorded too, .init.text's "
            "I is not: %s" % (sorted(tabs[-1]) if len(tabs) == 2 else r.stderr.strip()[-200:]))

    # Linked like a kernel: objtool's table against the decoder (crosscheck.py reads the
    # annotations from vmlinux.o, the relocatable object).
    for name, o, agree in (("objtool", obj, True), ("no-pass", pristine, False)):
        kb = os.path.join(tmp, "kb-" + name)
        os.makedirs(kb)
        shutil.copy(o, os.path.join(kb, "vmlinux.o"))
        link(cc, o, os.path.join(kb, "vmlinux"))
        v = crosscheck.vmlinux(kb)
        if agree:
            t.check(v["n_missing"] == 0 and v["n_extra"] == 0 and v["objtool"] == 7 and v["decoder"] == 7
                    and v["asm_fences"] == 1 and v["kept_rule"] == 4 and v["kept_annotated"] == 1
                    and v["marks_not_locks"] == 0,
                    "linked: objtool's .smp_locks and the decoder's table agree site for site in _text.._etext "
                    "(7 sites: R, the fence M the asm recorded, the 5 recorded; kept: K F G O by the rule, N by "
                    "its annotation): %s"
                    % {k: v[k] for k in ("objtool", "decoder", "asm_fences", "kept_rule", "kept_annotated",
                                         "n_missing", "n_extra", "marks_not_locks")})
        else:
            t.check(v["n_missing"] == 5 and v["n_extra"] == 0,
                    "the same object linked without the pass: the cross-check names the 5 sites missing: %s"
                    % v["missing"])

    # A compiler's fence (O: lock orq $0,(%rsp)) in the table: only the kernel's own form may be
    # there (smp_mb() by LOCK_PREFIX), so the cross-check names it.
    kb = os.path.join(tmp, "kb-fence")
    os.makedirs(kb)
    o = assemble(cc, tmp, "fence", LOCKS="  .long O - .")
    run([tool, "--smp-locks", o])
    shutil.copy(o, os.path.join(kb, "vmlinux.o"))
    link(cc, o, os.path.join(kb, "vmlinux"))
    v = crosscheck.vmlinux(kb)
    t.check(v["n_missing"] == 0 and v["n_extra"] == 1 and v["asm_fences"] == 1,
            "a compiler's fence (lock orq $0,(%%rsp)) in .smp_locks: the cross-check names it extra, the kernel's "
            "own (M) it accepts: extra %s, asm fences %d" % (v["extra"], v["asm_fences"]))

    # With the kernel's other actions: --orc groups the alternatives itself first; a second
    # special_get_alts() read the first one's freed entries and crashed objtool on
    # arch/x86/entry/entry.o.  Two alternatives of one original (ALTERNATIVE_2), freed
    # memory scribbled over (glibc's MALLOC_PERTURB_), made that crash here too.
    second = ALT.split('  .section .altinstr_replacement')[0].replace('  .section .altinstructions, "a"', "")
    both = assemble(cc, tmp, "both", TEXT="661: incl (%rdi); nop\n662:",
                    MORE=ALT.replace("@REPL@", "incl (%rdi); nop").replace(
                        "  .section .altinstr_replacement", second.replace(".4byte 1", ".4byte 2")
                        + "  .section .altinstr_replacement"))
    r = subprocess.run([tool, "--hacks=jump_label", "--orc", "--static-call", "--uaccess", "--smp-locks", both],
                       env=dict(os.environ, MALLOC_PERTURB_="165"), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    tabs = entries(both)
    t.check(r.returncode == 0 and len(tabs) == 2 and sorted(tabs[-1]) == expect(labels(both), RECORDED),
            "with --orc --static-call --uaccess and two alternatives of one original (no lock in them), freed memory "
            "perturbed: exit %d, the same 5 sites "
            "recorded%s" % (r.returncode, "" if r.returncode == 0 else ": " + r.stderr.strip()[-200:]))

    alt = assemble(cc, tmp, "alt", TEXT="661: lock incl (%rdi)\n662:",
                   MORE=ALT.replace("@REPL@", "incl (%rdi); nop"))
    refused(t, tool, alt, "an alternative's original", "alternative's original")
    repl = assemble(cc, tmp, "repl", TEXT="661: incl (%rdi); nop\n662:",
                    MORE=ALT.replace("@REPL@", "lock incl (%rdi)"))
    refused(t, tool, repl, "an alternative's replacement", "alternative's replacement", ".altinstr_replacement")
    stale = assemble(cc, tmp, "stale", LOCKS="  .long f + 1 - .")
    refused(t, tool, stale, "a stale entry", "names no lock prefix", "f+0x1")
    return t.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
