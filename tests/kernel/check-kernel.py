"""make check-kernel: `katomic kernel`'s fast checks, no kernel build (TAP-like).

 - the generated arch layer compiled in user space against stand-ins for the
   kernel's types (tests/kernel/mock-c11.c) and run, per compiler;
 - with Debian's linux-source-6.12 (else skipped with a note): the patch is
   made and applies (patch -p1 --dry-run), the C11 layer provides every
   arch_atomic op the stock x86 layer does, and each of its ops is one the
   kernel's fallback header knows;
 - bad input: a tree where the patch does not apply, a missing tool, a missing
   --src: one line naming the file (and hunk), exit 2, no traceback;
 - the anchors take both trees' spellings (unit test), and with Debian's
   linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz, else skipped with a
   note): the x86_64, arm64 and riscv64 patches are made for it and apply
   (dry run) to the files they touch, extracted once into BUILD_DIR.
usage: check-kernel.py BUILD_DIR CC...
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap            # noqa: E402
from katomic_tools.kernel import KernelError, build, patch, tree  # noqa: E402
from kcli import cli, one_clear_line                 # noqa: E402

ASM = "arch/x86/include/asm"
GEN = os.path.join(ROOT, "tools", "kernel", "generated", ASM)


def ops(text, pfx):
    return set(re.findall(r"^#define (arch_%s_\w+) " % pfx, text, re.M)) | \
        set(re.findall(r"^static (?:__always_)?inline [\w ]+? \*?(arch_%s_\w+)\(" % pfx, text, re.M))


def main(argv):
    build, ccs = argv[0], argv[1:]
    t = Tap()
    os.makedirs(build, exist_ok=True)
    for cc in ccs:
        exe = os.path.join(build, "mock-c11-" + os.path.basename(cc))
        r = subprocess.run([cc, "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", GEN, "-o", exe,
                            os.path.join(HERE, "mock-c11.c")], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if not t.check(r.returncode == 0, "%s compiles the generated kernel headers against the stand-ins" % cc):
            print("# " + r.stdout.strip().replace("\n", "\n# "))
            continue
        r = subprocess.run([exe], stdout=subprocess.PIPE, universal_newlines=True)
        bad = [l for l in r.stdout.splitlines() if l.startswith("not ok")]
        t.check(r.returncode == 0 and not bad and re.search(r"^1\.\.\d+$", r.stdout, re.M),
                "%s: every operation of the generated layer gives the kernel's result (%s)"
                % (cc, (r.stdout.strip().splitlines() or ["no output"])[-1]))
        for l in bad:
            print("# " + l)

    from katomic_tools.kernel import audit
    from katomic_tools.kernel.__main__ import prune
    bts = ["lock bts %rdi,(%rsi)", "setb %al", "ret"]
    loop = ["mov (%rsi),%rax", "mov %rax,%rdx", "or %rcx,%rdx", "lock cmpxchg %rdx,(%rsi)", "jne ADDR <f>", "ret"]
    t.check("cmpxchg loop" in audit.reason(bts, loop), "audit: a lock cmpxchg loop for one locked instruction is named")
    t.check("reference loops" in audit.reason(loop, bts), "audit: one locked instruction for a loop is named")
    t.check("extra locked instruction" in audit.reason(bts, bts + ["lock incl (%rdi)"]), "audit: an extra lock is named")
    t.check("register allocation" in audit.reason(bts, ["mov %rdi,%rax"] + bts), "audit: same locks, more instructions")
    t.check(audit.reason(None, bts).startswith("new out-of-line") and audit.reason(bts, None).startswith("gone"),
            "audit: functions only in one kernel")
    import tempfile as _t
    from katomic_tools.kernel import build as _build
    blog = _t.mkdtemp(prefix="katomic-runlog-")
    try:
        _build._run(["sh", "-c", "echo '  HOSTCC  scripts/dtc/libfdt/fdt_strerror.o'; "
                     "echo 'ld.lld-19: error: undefined symbol: __atomic_load'; "
                     "echo 'make[3]: *** [Makefile.vmlinux:34: vmlinux] Error 1'; exit 2"],
                    blog, os.path.join(blog, "log"), "building small-arm64-clang-c11")
        msg = ""
    except KernelError as e:
        msg = str(e)
    shutil.rmtree(blog)
    t.check("undefined symbol: __atomic_load" in msg and "strerror" not in msg and "small-arm64-clang-c11" in msg,
            "a failed build names the build and the linker's error line, not a file named *error* (%s)" % msg[-90:])
    fake = _t.mkdtemp(prefix="katomic-bloat-")
    os.makedirs(os.path.join(fake, "scripts"))
    with open(os.path.join(fake, "scripts", "bloat-o-meter"), "w") as f:
        f.write("print('add/remove: 0/0 grow/shrink: 1/1 up/down: 34/-4 (30)')\n"
                "print('Function old new delta')\nprint('grows 301 335 +34')\nprint('shrinks 55 51 -4')\n"
                "print('Total: Before=16906, After=16936, chg +0.18%')\n")
    bl = audit.bloat(fake, "a", "b")
    shutil.rmtree(fake)
    t.check(bl["grown"] == 1 and bl["shrunk"] == 1 and bl["total_delta"] == 30 and bl["grown_rows"][0]["delta"] == 34,
            "audit: bloat-o-meter's +N and -N rows and its total are read")
    sch = {"type": "object", "additionalProperties": False, "properties": {
        "a": {"type": "array", "items": {"$ref": "#/$defs/x"}}}, "$defs": {"x": {
            "type": "object", "additionalProperties": False, "properties": {"k": {}}}}}
    t.check(prune({"a": [{"k": 1, "extra": 2}], "b": 3}, sch) == {"a": [{"k": 1}]},
            "kernel.json: fields the schema does not declare are dropped")

    r = cli(["--src", "/nonexistent/linux"])
    t.check(one_clear_line(r, "/nonexistent/linux"), "--src of a missing directory: one line, exit 2")
    r = cli(["--config", "huge"])
    t.check(one_clear_line(r, "--config huge"), "an unknown --config: one line, exit 2")

    anchors(t)
    try:
        src = tree.pristine()
    except KernelError as e:
        print("# note: %s: the patch checks are skipped" % e)
        second_tree(t, build)
        return t.summary()
    text = patch.make(src)
    t.check(text.count("\ndiff -urN ") + text.startswith("diff -urN ") >= 11,
            "the patch is made from %s (%d lines)" % (src, len(text.splitlines())))
    try:
        patch.check_applies(text, src)
        applies = True
    except KernelError as e:
        print("# " + str(e))
        applies = False
    t.check(applies, "it applies with patch -p1 (dry run) to the pristine tree")
    t.check(patch.make(src) == text, "it is the same patch when made twice")

    fb = open(os.path.join(src, "include/linux/atomic/atomic-arch-fallback.h")).read()
    for name, pfx, stock_files in (("atomic-c11.h", "atomic", ["atomic.h"]),
                                   ("atomic64-c11.h", "atomic64", ["atomic64_64.h"])):
        ours = ops(open(os.path.join(GEN, name)).read(), pfx)
        stock = set()
        for f in stock_files:
            stock |= ops(open(os.path.join(src, ASM, f)).read(), pfx)
        t.check(stock and stock <= ours, "%s provides every arch_%s op of the stock x86 layer (%d of %d; missing: %s)"
                % (name, pfx, len(stock & ours), len(stock), ", ".join(sorted(stock - ours)) or "none"))
        unknown = sorted(o for o in ours if not re.search(r"\b%s\b" % o, fb))
        t.check(not unknown, "each of its %d ops is one atomic-arch-fallback.h uses (unknown: %s)"
                % (len(ours), ", ".join(unknown) or "none"))

    with tempfile.TemporaryDirectory(prefix="katomic-badtree-") as tmp:
        bad = os.path.join(tmp, "linux")
        for rel in [e[0] for e in patch.EDITS] + ["Makefile", "include/linux/atomic/atomic-arch-fallback.h"]:
            os.makedirs(os.path.dirname(os.path.join(bad, rel)), exist_ok=True)
            shutil.copyfile(os.path.join(src, rel), os.path.join(bad, rel))
        pfile = os.path.join(tmp, "katomic.patch")
        with open(pfile, "w") as f:
            f.write(text)
        r = cli(["--apply", pfile, "--src", bad])
        t.check(r.returncode == 0, "the saved patch applies to a copy of the touched files")
        cm = os.path.join(bad, ASM, "cmpxchg.h")
        with open(cm) as f:
            s = f.read()
        with open(cm, "w") as f:
            f.write(s.replace("#endif\t/* ASM_X86_CMPXCHG_H */", "#endif /* changed */"))
        r = cli(["--apply", pfile, "--src", bad])
        # The hunk of cmpxchg.h whose context holds the changed line (the patch has others).
        hunks = text.split("+++ b/%s/cmpxchg.h\n" % ASM, 1)[1].split("\ndiff -urN ", 1)[0].split("\n@@ ")
        which = next(i for i, h in enumerate(hunks) if "#endif\t/* ASM_X86_CMPXCHG_H */" in h)
        t.check(one_clear_line(r, ASM + "/cmpxchg.h", "hunk #%d" % (which + 1)),
                "a tree where it does not apply: one line naming the file and hunk, exit 2 (%s)"
                % r.stderr.strip()[:160])
        r = cli(["--patch", "--src", bad])
        t.check(one_clear_line(r, ASM + "/cmpxchg.h", "no line matches"),
                "making the patch for that tree: one line naming the file, exit 2")
        with open(cm, "w") as f:
            f.write(s)
        os.unlink(os.path.join(bad, ASM, "barrier.h"))
        r = cli(["--patch", "--src", bad])
        t.check(one_clear_line(r, ASM + "/barrier.h", "missing"), "a tree without barrier.h: one line, exit 2")
        bindir = os.path.join(tmp, "bin")     # every tool but the compiler
        os.makedirs(bindir)
        for tool in ("diff", "patch", "make", "flex", "bison", "bc", "perl", "objdump", "cpio", "xz"):
            p = shutil.which(tool)
            if p:
                os.symlink(p, os.path.join(bindir, tool))
        r = cli(["--cc", "gcc", "--no-boot"], env={"PATH": bindir})
        t.check(one_clear_line(r, "gcc-12 not found", "apt-get install gcc-12"),
                "the compiler missing: one line naming the package, exit 2, before any build (%s)"
                % r.stderr.strip()[:100])
        r = cli(["--apply", pfile, "--src", bad], env={"PATH": os.path.join(tmp, "empty")})
        t.check(one_clear_line(r, "patch not found", "apt-get install patch"),
                "patch(1) missing: one line naming the package, exit 2")
    refresh_keeps_mode(t)
    refresh_drops_old_hunks(t)
    build_kind(t)
    second_tree(t, build)
    return t.summary()


def anchors(t):
    """The anchors fit both trees' spellings: 6.12's `static __always_inline`
    and 6.1's `static inline` x86 atomics; riscv's Kconfig with 6.12's
    Kconfig.vendor line or 6.1's errata line (a list: the first that matches);
    none: one line naming the file and every anchor tried."""
    a64 = [e for e in patch.EDITS if e[0].endswith("/atomic64_64.h")][0]
    tail = "}\n\n#endif /* _ASM_X86_ATOMIC64_64_H */\n"
    for spelling in ("static __always_inline", "static inline"):
        text = "/* doc */\n%s s64 arch_atomic64_read(const atomic64_t *v)\n{\n" % spelling + tail
        out = patch.edit(a64[0], text, a64[1], a64[2], a64[3])
        t.check(out.startswith("/* doc */\n#ifdef CONFIG_X86_ATOMIC_C11\n#include <asm/atomic64-c11.h>\n"
                               "#else /* the kernel's asm */\n\n%s s64 arch_atomic64_read(" % spelling)
                and out.endswith("}\n\n#endif /* CONFIG_X86_ATOMIC_C11 */\n\n#endif /* _ASM_X86_ATOMIC64_64_H */\n"),
                "anchor: atomic64_64.h's arch_atomic64_read declared `%s` is wrapped" % spelling)
    kc = [e for e in patch.GENERIC_EDITS["riscv64"] if e[0] == "arch/riscv/Kconfig"][0]
    both = 'source "arch/riscv/Kconfig.errata"\n\nmenu "Platform type"\nsource "arch/riscv/Kconfig.vendor"\n\nendmenu\n'
    old = 'source "arch/riscv/Kconfig.erratas"\n\nmenu "Platform type"\nendmenu\n'
    t.check(patch.edit(kc[0], both, kc[1], kc[2], kc[3]).split("\n")[4:6] == ["", 'source "arch/riscv/Kconfig.katomic"'],
            "anchor list: 6.12's riscv Kconfig takes the option after Kconfig.vendor (its first anchor)")
    t.check(patch.edit(kc[0], old, kc[1], kc[2], kc[3]).split("\n")[1:3] == ["", 'source "arch/riscv/Kconfig.katomic"'],
            "anchor list: 6.1's (no Kconfig.vendor) after its Kconfig.erratas line")
    try:
        patch.edit(kc[0], "menu\nendmenu\n", kc[1], kc[2], kc[3])
        msg = ""
    except KernelError as e:
        msg = str(e)
    t.check(msg.startswith("arch/riscv/Kconfig: no line matches ") and "Kconfig.vendor" in msg
            and "Kconfig.erratas?" in msg and "\n" not in msg,
            "no anchor of the list matches: one line naming the file and the anchors (%s)" % msg[:120])


TREE61 = "/usr/src/linux-source-6.1.tar.xz"


def second_tree(t, build_dir):
    """linux-source-6.1: the patch for each architecture is made from the files
    it touches (extracted once from the tarball into build_dir) and applies to
    them (dry run); the 6.1 x86 layer's ops are all in the C11 one, and the
    kernel's fallback header knows each of ours that the x86 layer lacks."""
    tarball = os.environ.get("KATOMIC_LINUX61_TARBALL", TREE61)
    if not os.path.isfile(tarball):
        print("# note: %s not found (apt-get install linux-source-6.1): the 6.1 patch checks are skipped" % tarball)
        return
    top = os.path.basename(tarball).split(".tar")[0]
    dest = os.path.join(build_dir, top + "-touched")
    stamp = os.path.join(dest, tree.STAMP)
    files = sorted({e[0] for arch in build.ARCHES for e in patch.edits(arch)} |
                   {"Makefile", "include/linux/atomic/atomic-arch-fallback.h"})
    if not os.path.isfile(stamp):
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        t0 = time.time()
        r = subprocess.run(["tar", "-xf", tarball, "-C", dest, "--strip-components=1"] +
                           ["%s/%s" % (top, f) for f in files], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if not t.check(r.returncode == 0, "the %d files the patches touch are extracted from %s (%.0f s)"
                       % (len(files), tarball, time.time() - t0)):
            print("# " + r.stdout.strip()[-300:])
            return
        open(stamp, "w").close()
    version = tree.version(dest)
    for arch in build.ARCHES:
        try:
            text = patch.make(dest, arch)
            patch.check_applies(text, dest)
            msg = "%d lines" % len(text.splitlines())
            ok = True
        except KernelError as e:
            msg, ok = str(e), False
        t.check(ok, "linux %s, %s: the patch is made and applies (dry run): %s" % (version, arch, msg))
    fb = open(os.path.join(dest, "include/linux/atomic/atomic-arch-fallback.h")).read()
    for name, pfx, f in (("atomic-c11.h", "atomic", "atomic.h"), ("atomic64-c11.h", "atomic64", "atomic64_64.h")):
        ours = ops(open(os.path.join(GEN, name)).read(), pfx)
        stock = ops(open(os.path.join(dest, ASM, f)).read(), pfx)
        # 6.1's fallback header leaves or/xor to the architecture (no fallback for them).
        unknown = sorted(o for o in ours - stock if not re.search(r"\b%s\b" % o, fb))
        t.check(stock and stock <= ours and not unknown,
                "linux %s: %s provides every arch_%s op of its x86 layer (%d of %d; missing: %s), each other "
                "one its fallback header uses (unknown: %s)" % (version, name, pfx, len(stock & ours), len(stock),
                                                           ", ".join(sorted(stock - ours)) or "none",
                                                           ", ".join(unknown) or "none"))


def build_kind(t):
    """The build record's time: a make over a build dir that holds only what
    configuring compiled (scripts/) is a full build; one with objects and no
    vmlinux resumed an interrupted build, whose full time is unknown."""
    with tempfile.TemporaryDirectory(prefix="katomic-kind-") as tmp:
        os.makedirs(os.path.join(tmp, "scripts", "kconfig"))
        open(os.path.join(tmp, "scripts", "kconfig", "conf.o"), "w").close()
        t.check(not build._has_objects(tmp), "a configured build dir (scripts/ objects only) counts as unbuilt")
        os.makedirs(os.path.join(tmp, "kernel", "sched"))
        open(os.path.join(tmp, "kernel", "sched", "core.o"), "w").close()
        t.check(build._has_objects(tmp), "an object under kernel/ counts as a started build")
        t0 = time.time()
        os.utime(os.path.join(tmp, "kernel", "sched", "core.o"), (t0 - 600, t0 - 600))
        open(os.path.join(tmp, "kernel", "fork.o"), "w").close()
        t.check(build._objects(tmp) == (2, 0) and build._objects(tmp, since=t0 - 1) == (2, 1),
                "objects written since the make started are told from older ones")
    old = {"build_s": 812.4, "build_cpu_s": 1500.0}
    t.check(build.recorded_time(True, False, 0, 3000, 900.0, 1700.0, old) == (900.0, 1700.0),
            "a build from nothing records its own time")
    t.check(build.recorded_time(False, True, 2850, 3031, 780.0, 1400.0, old) == (780.0, 1400.0),
            "a make that recompiled 94% of a finished build's objects (a header all include) records its own time")
    t.check(build.recorded_time(False, True, 12, 3031, 60.0, 70.0, old) == (812.4, 1500.0),
            "an incremental make keeps the full build's time")
    t.check(build.recorded_time(False, False, 2900, 3031, 700.0, 1300.0, old) == (None, None),
            "a resumed build's full time is unknown, however much it compiled")
    t.check(build.took({"build_s": 812.4, "last_make_s": 3.0}) == "812 s", "a whole build's time is shown")
    said = build.took({"build_s": None, "last_make_s": 61.0})
    t.check("61 s" in said and "resumed" in said, "a resumed build says so with its make's time (%s)" % said)


@contextmanager
def kernel_cache(path):
    """KATOMIC_KERNEL_CACHE set to `path` for the block, restored after."""
    old = os.environ.get("KATOMIC_KERNEL_CACHE")
    os.environ["KATOMIC_KERNEL_CACHE"] = path
    try:
        yield
    finally:
        if old is None:
            del os.environ["KATOMIC_KERNEL_CACHE"]
        else:
            os.environ["KATOMIC_KERNEL_CACHE"] = old


def refresh_keeps_mode(t):
    """A patched copy brought up to a new patch keeps each file's mode: the
    .smp_locks hook edits scripts/link-vmlinux.sh, which make runs directly
    (a copy written without its mode failed the link with 'Permission denied')."""
    with tempfile.TemporaryDirectory(prefix="katomic-mode-") as tmp:
        src = os.path.join(tmp, "linux")
        os.makedirs(os.path.join(src, "scripts"))
        script = os.path.join(src, "scripts", "link.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho one\n")
        os.chmod(script, 0o755)

        def diff(word):
            return ("--- a/scripts/link.sh\n+++ b/scripts/link.sh\n@@ -1,2 +1,3 @@\n"
                    " #!/bin/sh\n echo one\n+echo %s\n" % word)
        with kernel_cache(os.path.join(tmp, "cache")):
            try:
                modes = []
                for word in ("two", "three"):
                    dest = patch.patched_tree(src, diff(word))
                    with open(os.path.join(dest, "scripts", "link.sh")) as f:
                        text = f.read()
                    modes.append((word in text, os.stat(os.path.join(dest, "scripts", "link.sh")).st_mode & 0o777))
            except KernelError as e:
                modes = [str(e)]
        t.check(modes == [(True, 0o755), (True, 0o755)],
                "a patched copy made, then refreshed for a new patch, keeps an executable script executable (%s)"
                % modes)


def refresh_drops_old_hunks(t):
    """A patched copy refreshed for a patch that no longer touches a file (a hook
    dropped, a file no longer added) gets the pristine text back, or loses the file:
    a stale scripts/Makefile.modfinal hook would run a step the tools lack."""
    with tempfile.TemporaryDirectory(prefix="katomic-drop-") as tmp:
        src = os.path.join(tmp, "linux")
        os.makedirs(os.path.join(src, "scripts"))
        for name in ("a", "b"):
            with open(os.path.join(src, "scripts", name), "w") as f:
                f.write("one\n")

        def hunk(name, word):
            return "--- a/scripts/%s\n+++ b/scripts/%s\n@@ -1 +1,2 @@\n one\n+%s\n" % (name, name, word)
        added = "--- a/scripts/new\n+++ b/scripts/new\n@@ -0,0 +1 @@\n+new\n"
        with kernel_cache(os.path.join(tmp, "cache")):
            try:
                patch.patched_tree(src, hunk("a", "two") + hunk("b", "hook") + added)
                dest = patch.patched_tree(src, hunk("a", "three"))
                got = []
                for name in ("a", "b"):
                    with open(os.path.join(dest, "scripts", name)) as f:
                        got.append(f.read())
                got.append(os.path.exists(os.path.join(dest, "scripts", "new")))
                with open(os.path.join(src, "scripts", "b")) as f:
                    got.append(f.read())
            except KernelError as e:
                got = [str(e)]
        t.check(got == ["one\nthree\n", "one\n", False, "one\n"],
                "refreshed for a patch that drops a file's hunk: that file is pristine again, a file only "
                "the old patch added is gone, the pristine tree untouched (%s)" % got)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
