"""The `katomic kernel` patch: the generated C11 arch layer plus a few edits.

The patch is made at run time from the tree it is for: new files (the
headers gen/gen.sh wrote into tools/kernel/generated/, and
tools/kernel/files/) and small anchored edits that include them under
CONFIG_X86_ATOMIC_C11 / CONFIG_X86_BARRIER_C11; `diff -urN` of the touched
files gives the patch, `patch -p1` applies it to a copy in KCACHE/trees/.
"""
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

from . import KernelError
from .tree import STAMP, kcache, need_tool
from ..common import paths

ASM = "arch/x86/include/asm"


def _ifdef(opt, header):
    return "#ifdef %s\n#include <asm/%s>\n#endif\n" % (opt, header)


# UP lock elision for the compiler's locks (docs/kernel.md): objtool records
# every lock prefix .smp_locks lacks (tools/objtool/arch/x86/smp_locks.c, a
# file of ours), enabled by CONFIG_X86_ATOMIC_C11_SMP_LOCKS like the kernel's
# other objtool actions; sync_*() and edac_atomic_scrub() keep their locks
# (memory shared with a hypervisor or a device) by ANNOTATE_KEEP_LOCK.
OBJTOOL = "tools/objtool"
KEEP_LOCK_SMP = """
/*
 * A lock prefix that stays on one CPU: memory shared with a hypervisor or a
 * device (sync_*()).  objtool --smp-locks, which records the compiler's lock
 * prefixes in .smp_locks, leaves it out.
 */
#define ANNOTATE_KEEP_LOCK					\\
	"672:\\n\\t"						\\
	".pushsection .discard.keep_lock\\n\\t"			\\
	".long 672b\\n\\t"					\\
	".popsection\\n\\t"
"""
# smp_mb() orders CPUs only, so under X86_ATOMIC_C11_SMP_LOCKS its lock is
# recorded like LOCK_PREFIX's and dropped on one CPU (without this, every
# inlined copy of __smp_mb() stays locked: 522 in stock defconfig, more
# where the C11 kernel inlines differently); virt_mb() keeps __smp_mb().
UP_SMP_MB = """
#if defined(CONFIG_X86_ATOMIC_C11_SMP_LOCKS) && !defined(CONFIG_X86_BARRIER_C11)
/*
 * smp_mb() orders this CPU against the others only (a UP kernel makes it
 * barrier()), so its lock is in .smp_locks and an SMP kernel running on
 * one CPU drops it, as it does the atomics' locks.  virt_mb() stays
 * __smp_mb(): a hypervisor is another CPU even then.
 */
#define smp_mb()							\\
do {									\\
	kcsan_mb();							\\
	asm volatile(LOCK_PREFIX "addl $0,-4(%%" _ASM_SP ")"		\\
		     ::: "memory", "cc");				\\
} while (0)
#endif
"""
OBJTOOL_CALL = """	if (opts.smp_locks) {
		ret = create_smp_locks_sections(file);
		if (ret < 0)
			return ret;
		warnings += ret;
	}

"""
OBJTOOL_WEAK = """int __weak create_smp_locks_sections(struct objtool_file *file)
{
	UNSUPPORTED("--smp-locks");
}

"""


# (file, anchor regex, where, text): `where` is "before" or "after" the first
# line matching the anchor; ("wrap", start, end) puts the kernel's lines from
# start up to (not including) end under #ifndef, with our header in #ifdef.
# One anchor fits every tree the patch is made for (linux 6.12 and 6.1: 6.1
# declares the x86 atomics `static inline`, 6.12 `static __always_inline`,
# hence FN); where the trees differ more, a list of anchors is tried in
# order, 6.12's first, so 6.12's patch stays what it was.
FN = r"^static (?:__always_)?inline "
EDITS = [
    ("arch/x86/Kconfig", r'^source "arch/x86/Kconfig.assembler"$', "after",
     '\nsource "arch/x86/Kconfig.katomic"\n'),
    (ASM + "/atomic.h", (FN + r"int arch_atomic_read\(", r"^#ifdef CONFIG_X86_32$"),
     "wrap", "atomic-c11.h"),
    (ASM + "/atomic64_64.h", (FN + r"s64 arch_atomic64_read\(", r"^#endif /\* _ASM_X86_ATOMIC64_64_H \*/"),
     "wrap", "atomic64-c11.h"),
    (ASM + "/cmpxchg.h", r"^#endif\s*/\* ASM_X86_CMPXCHG_H \*/", "before",
     _ifdef("CONFIG_X86_ATOMIC_C11", "cmpxchg-c11.h")),
    (ASM + "/bitops.h", r"^#include <asm-generic/bitops/instrumented-atomic.h>$", "before",
     _ifdef("CONFIG_X86_ATOMIC_C11", "bitops-c11.h")),
    (ASM + "/barrier.h", r"^#include <asm-generic/barrier.h>$", "before",
     _ifdef("CONFIG_X86_BARRIER_C11", "barrier-c11.h")),
    (ASM + "/barrier.h", r'^#define __smp_mb\(\)\s+asm volatile\("lock;? addl', "after", UP_SMP_MB),
    # UP lock elision: objtool --smp-locks, and the annotation of the locks that stay.
    # ("sub": every match of the regex, replaced; \1 names a group.  6.1 writes "lock; ".)
    ("arch/x86/include/asm/alternative.h", r'^#define LOCK_PREFIX LOCK_PREFIX_HERE "\\n\\tlock;? "$', "after",
     KEEP_LOCK_SMP),
    ("arch/x86/include/asm/alternative.h", r'^#define LOCK_PREFIX ""$', "after", '#define ANNOTATE_KEEP_LOCK ""\n'),
    (ASM + "/cmpxchg.h", r'\(size\), ("lock;? ")\)', "sub", r'(size), ANNOTATE_KEEP_LOCK \1)'),
    (ASM + "/sync_bitops.h", r"^#include <asm/rmwcc.h>$", "before", "#include <asm/alternative.h>\n"),
    (ASM + "/sync_bitops.h", r'("lock;? " __ASM_SIZE\()', "sub", r'ANNOTATE_KEEP_LOCK \1'),
    (ASM + "/edac.h", r"^#define _ASM_X86_EDAC_H$", "after", "\n#include <asm/alternative.h>\n"),
    (ASM + "/edac.h", r'asm volatile\(("lock;? addl)', "sub", r'asm volatile(ANNOTATE_KEEP_LOCK \1'),
    ("scripts/Makefile.lib", r"^objtool-args-\$\(CONFIG_HAVE_UACCESS_VALIDATION\)", "after",
     "objtool-args-$(CONFIG_X86_ATOMIC_C11_SMP_LOCKS)\t+= --smp-locks\n"),
    (OBJTOOL + "/include/objtool/builtin.h", r"^\tbool uaccess;$", "after", "\tbool smp_locks;\n"),
    (OBJTOOL + "/builtin-check.c", r"^\tOPT_BOOLEAN\('u', \"uaccess\"", "after",
     '\tOPT_BOOLEAN(0,   "smp-locks", &opts.smp_locks, "annotate lock prefixes for UP patching"),\n'),
    (OBJTOOL + "/builtin-check.c", r"^\s+opts\.uaccess\) \{$", "before", "\t    opts.smp_locks\t\t||\n"),
    (OBJTOOL + "/include/objtool/objtool.h", r"^int orc_create\(struct objtool_file \*file\);$", "after",
     "int create_smp_locks_sections(struct objtool_file *file);\n"),
    (OBJTOOL + "/check.c", r"^\tif \(opts\.mcount\) \{$", "before", OBJTOOL_CALL),
    (OBJTOOL + "/weak.c", r"^int __weak orc_dump\(", "before", OBJTOOL_WEAK),
    (OBJTOOL + "/arch/x86/Build", r"^objtool-y \+= decode\.o$", "after", "objtool-y += smp_locks.o\n"),
]


def _gen_if(header):
    return "#ifdef CONFIG_ARCH_ATOMIC_C11\n#include <asm-generic/%s>\n#endif\n" % header


# The asm-generic C11 layer (`--arch arm64|riscv64`): the same kinds of edits,
# under CONFIG_ARCH_ATOMIC_C11; "wrap" takes (option, [headers]) here.
_A64, _RV = "arch/arm64/include/asm", "arch/riscv/include/asm"
_C11 = ("CONFIG_ARCH_ATOMIC_C11", ["asm-generic/atomic-c11.h", "asm-generic/atomic64-c11.h"])
GENERIC_EDITS = {
    "arm64": [
        ("arch/arm64/Kconfig", r'^source "arch/arm64/Kconfig.platforms"$', "after",
         '\nsource "arch/arm64/Kconfig.katomic"\n'),
        # LSE or not is fixed at compile time: C has no run-time alternatives.
        ("arch/arm64/Makefile", r"^ifeq \(\$\(CONFIG_SHADOW_CALL_STACK\), y\)$", "before",
         "ifeq ($(CONFIG_ARCH_ATOMIC_C11), y)\n"
         "KBUILD_CFLAGS\t+= -march=$(if $(CONFIG_ARM64_LSE_ATOMICS),armv8.1-a,armv8-a) \\\n"
         "\t\t   $(call cc-option,-mno-outline-atomics)\n"
         "endif\n\n"),
        (_A64 + "/atomic.h", (r"^#define ATOMIC_OP\(op\)", r"^#endif /\* __ASM_ATOMIC_H \*/"), "wrap", _C11),
        (_A64 + "/cmpxchg.h", r"^#endif\s*/\* __ASM_CMPXCHG_H \*/", "before", _gen_if("cmpxchg-c11.h")),
        (_A64 + "/barrier.h", r"^#include <asm-generic/barrier.h>$", "before", _gen_if("barrier-c11.h")),
    ],
    "riscv64": [
        # 6.1 has no Kconfig.vendor: after its errata menu (at the top level).
        ("arch/riscv/Kconfig", [r'^source "arch/riscv/Kconfig.vendor"$', r'^source "arch/riscv/Kconfig.erratas?"$'],
         "after",
         '\nsource "arch/riscv/Kconfig.katomic"\n'),
        (_RV + "/atomic.h", (FN + r"int arch_atomic_read\(",
                             r"^#endif /\* _ASM_RISCV_ATOMIC_H \*/"), "wrap", _C11),
        (_RV + "/cmpxchg.h", r"^#endif /\* _ASM_RISCV_CMPXCHG_H \*/", "before", _gen_if("cmpxchg-c11.h")),
        (_RV + "/barrier.h", r"^#include <asm-generic/barrier.h>$", "before", _gen_if("barrier-c11.h")),
        # The atomic bitops: asm-generic's, on the C11 arch_atomic_long_*() (they
        # include the instrumented wrappers; 6.1's riscv defines set_bit() & co.
        # itself, without them, up to non-atomic.h).
        (_RV + "/bitops.h", (r"^#define __test_and_op_bit_ord\(",
                             [r"^#include <asm-generic/bitops/instrumented-atomic.h>$",
                              r"^#include <asm-generic/bitops/non-atomic.h>$"]), "wrap",
         ("CONFIG_ARCH_ATOMIC_C11", ["asm-generic/bitops/atomic.h", "asm-generic/bitops/lock.h"])),
    ],
}
ARCH_DIR = {"x86_64": "x86", "arm64": "arm64", "riscv64": "riscv"}


def edits(arch):
    return EDITS if arch == "x86_64" else GENERIC_EDITS[arch]


def new_files(arch="x86_64"):
    """{path in the kernel tree: path in this repository} of the files we add."""
    root = paths.root()
    out = {}
    for top in ("tools/kernel/generated", "tools/kernel/files", "tools/kernel/files-generic"):
        base = os.path.join(root, top)
        for d, _, files in os.walk(base):
            for f in files:
                p = os.path.join(d, f)
                rel = os.path.relpath(p, base)
                generic = rel.startswith("include/asm-generic/")
                if arch == "x86_64" and (generic or top.endswith("-generic")):
                    continue
                if arch != "x86_64" and not generic and not rel.startswith("arch/%s/" % ARCH_DIR[arch]):
                    continue
                out[rel] = p
    if not any(k.endswith("atomic-c11.h") for k in out):
        raise KernelError("%s/tools/kernel/generated: the generated headers are missing (make gen)" % root)
    return out


FITS = "the patch is made for linux 6.12 and 6.1"


def _find(lines, rx, path, start=0):
    """The first line at or after start matching rx, or the first of a list of
    regexes that matches a line (6.12's spelling first)."""
    for r in (rx if isinstance(rx, list) else [rx]):
        for i in range(start, len(lines)):
            if re.search(r, lines[i]):
                return i
    raise KernelError("%s: no line matches %s (%s)"
                      % (path, " or ".join("/%s/" % r for r in (rx if isinstance(rx, list) else [rx])), FITS))


def _wrap_head(what):
    """A "wrap" edit's option and the lines it puts before the kernel's code
    (the #ifdef and our includes, without the #else)."""
    opt, incs = ("CONFIG_X86_ATOMIC_C11", ["asm/" + what]) if isinstance(what, str) else what
    return opt, ["#ifdef %s\n" % opt] + ["#include <%s>\n" % h for h in incs]


def edit(path, text, anchor, where, what):
    lines = text.splitlines(True)
    if where == "wrap":
        opt, head = _wrap_head(what)
        s = _find(lines, anchor[0], path)
        e = _find(lines, anchor[1], path, s + 1)
        lines[e:e] = ["#endif /* %s */\n" % opt, "\n"]
        lines[s:s] = head + ["#else /* the kernel's asm */\n", "\n"]
    elif where == "sub":
        new, n = re.subn(anchor, lambda m: m.expand(what), text, flags=re.M)
        if not n:
            raise KernelError("%s: nothing matches /%s/ (%s)" % (path, anchor, FITS))
        return new
    else:
        i = _find(lines, anchor, path)
        if where == "after":
            i += 1
        lines[i:i] = [what]
    return "".join(lines)


def make(tree, arch="x86_64"):
    """The patch for `tree` and `arch`, as text."""
    need_tool("diff", "diffutils")
    with tempfile.TemporaryDirectory(prefix="katomic-patch-") as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        for path, anchor, where, what in edits(arch):
            src = os.path.join(tree, path)
            if not os.path.isfile(src):
                raise KernelError("%s: missing in %s" % (path, tree))
            with open(src) as f:
                text = f.read()
            done = os.path.join(b, path)
            if os.path.isfile(done):        # a second edit of the file: on top of the first
                with open(done) as f:
                    edited = f.read()
            else:
                edited = text
            for d, t in ((a, text), (b, edit(path, edited, anchor, where, what))):
                os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
                with open(os.path.join(d, path), "w") as f:
                    f.write(t)
        for rel, src in sorted(new_files(arch).items()):
            if os.path.exists(os.path.join(tree, rel)):
                raise KernelError("%s: already exists in %s (an already patched tree?)" % (rel, tree))
            os.makedirs(os.path.dirname(os.path.join(b, rel)), exist_ok=True)
            shutil.copyfile(src, os.path.join(b, rel))
        os.makedirs(a, exist_ok=True)
        r = subprocess.run(["diff", "-urN", "a", "b"], cwd=tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        if r.returncode not in (0, 1):
            raise KernelError("diff -urN failed: %s" % r.stderr.strip())
    # Timestamps would make the patch differ run to run.
    return re.sub(r"^((?:---|\+\+\+) \S+)\t.*$", r"\1", r.stdout, flags=re.M)


def check_applies(patch_text, tree):
    """Dry run of patch -p1 in `tree`; KernelError naming the first file and hunk that fail."""
    need_tool("patch", "patch")
    r = subprocess.run(["patch", "-p1", "--dry-run", "--batch", "-d", tree], input=patch_text,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode == 0:
        return
    cur = "?"
    for line in r.stdout.splitlines():
        m = re.match(r"(?:checking|patching) file (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"Hunk #(\d+) FAILED at (\d+)", line)
        if m:
            raise KernelError("%s: the patch does not apply: %s hunk #%s failed (at line %s)"
                              % (tree, cur, m.group(1), m.group(2)))
        if "can't find file to patch" in line or "No file to patch" in line:
            raise KernelError("%s: the patch does not apply: no file %s" % (tree, cur))
        if "Reversed (or previously applied) patch" in line:
            raise KernelError("%s: the patch does not apply: %s is already patched" % (tree, cur))
    last = [l for l in r.stdout.splitlines() if l.strip()]
    raise KernelError("%s: the patch does not apply: %s" % (tree, last[-1] if last else "patch failed"))


def _touched(patch_text):
    return re.findall(r"^\+\+\+ b/(\S+)", patch_text, re.M)


def _refresh(src, patch_text, dest, old_touched=()):
    """Bring an existing patched copy up to a new patch: only the files whose
    text changed are rewritten, so an O= build rebuilds only what they touch.
    A file the old patch touched (old_touched, from the stamp) and the new one
    does not goes back to the pristine tree's text (or away, if it added it):
    a hook the new patch lacks must not stay behind."""
    check_applies(patch_text, src)
    for rel in sorted(set(old_touched) - set(_touched(patch_text))):
        pristine, old = os.path.join(src, rel), os.path.join(dest, rel)
        if os.path.isfile(pristine):
            _replace(pristine, old)
        elif os.path.lexists(old):
            os.unlink(old)
    with tempfile.TemporaryDirectory(prefix="katomic-refresh-") as tmp:
        for rel in _touched(patch_text):
            if os.path.isfile(os.path.join(src, rel)):
                os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
                shutil.copy(os.path.join(src, rel), os.path.join(tmp, rel))  # with its mode
        r = subprocess.run(["patch", "-p1", "--batch", "-s", "-d", tmp], input=patch_text,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode != 0:
            raise KernelError("%s: patch -p1 failed: %s" % (tmp, r.stdout.strip()[-200:]))
        for rel in _touched(patch_text):
            new, old = os.path.join(tmp, rel), os.path.join(dest, rel)
            with open(new, "rb") as f:
                text = f.read()
            if os.path.isfile(old):
                with open(old, "rb") as f:
                    same = f.read() == text
                if same:
                    if os.stat(old).st_mode != os.stat(new).st_mode:
                        _replace(new, old)  # a copy an older katomic wrote without its mode
                    continue
            _replace(new, old)


def _replace(new, old):
    """Write `new` (text and mode: scripts/link-vmlinux.sh must stay executable)
    at `old`, never through a hard link to the pristine tree."""
    if os.path.lexists(old):
        os.unlink(old)
    os.makedirs(os.path.dirname(old), exist_ok=True)
    shutil.copy(new, old)


def copy_tree(src, dest):
    """`dest`: a copy of the pristine tree `src`, without its extraction stamp.
    Hard links (cp -al; cp -a where they fail): cheap, and patch(1) and git
    write each file they change anew, so the pristine tree keeps its inodes'
    contents."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    r = subprocess.run(["cp", "-al", src, dest], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        r = subprocess.run(["cp", "-a", src, dest], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode != 0:
            raise KernelError("copying %s to %s failed: %s" % (src, dest, r.stdout.strip()[-200:]))
    stamp = os.path.join(dest, STAMP)
    if os.path.exists(stamp):
        os.unlink(stamp)


def patched_tree(src, patch_text, arch="x86_64"):
    """A copy of `src` with the patch applied, in KCACHE/trees/ (made once per patch)."""
    key = hashlib.sha256((os.path.abspath(src) + "\0" + patch_text).encode()).hexdigest()[:16]
    # One copy per source tree, remade when the patch changes (its O= build
    # dirs then rebuild what the new headers touch).
    dest = os.path.join(kcache(), "trees", ("c11-" if arch == "x86_64" else "c11-%s-" % arch)
                        + os.path.basename(os.path.abspath(src)))
    stamp = os.path.join(dest, ".katomic-patched")
    # The stamp: the patch's key, then the files it touched (for the next refresh).
    stamp_text = key + "\n" + "".join(rel + "\n" for rel in _touched(patch_text))
    if os.path.isfile(stamp):
        with open(stamp) as f:
            lines = f.read().split("\n")
        if lines[0].strip() == key:
            return dest
        _refresh(src, patch_text, dest, [l for l in lines[1:] if l])
        with open(stamp, "w") as f:
            f.write(stamp_text)
        return dest
    check_applies(patch_text, src)
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    copy_tree(src, tmp)
    r = subprocess.run(["patch", "-p1", "--batch", "-s", "-d", tmp], input=patch_text,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode != 0:
        raise KernelError("%s: patch -p1 failed: %s" % (tmp, r.stdout.strip()[-200:]))
    with open(os.path.join(tmp, ".katomic-patched"), "w") as f:
        f.write(stamp_text)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)
    return dest


def _edit_done(text, anchor, where, what):
    """Whether `text` already holds one of our edits (made by `edit`)."""
    if where == "sub":      # each match carries the replacement's text before its first group
        head = re.split(r"\\\d", what)[0].strip()
        n = text.count(head)
        return n > 0 and len(re.findall(anchor, text, re.M)) <= n
    if where == "wrap":
        return "".join(_wrap_head(what)[1]) in text
    return what in text


def applied(tree, arch="x86_64"):
    """True when `tree` already holds this change, as `git am` of the series
    (or patch -p1 of --patch) leaves it: every file we add, with our text,
    and every edit.  False when it holds none of it; a KernelError naming the
    first file when it holds part of it or another katomic's version."""
    files = new_files(arch)
    if not any(os.path.lexists(os.path.join(tree, rel)) for rel in files):
        return False
    for rel, ours in sorted(files.items()):
        p = os.path.join(tree, rel)
        if not os.path.isfile(p):
            raise KernelError("%s: holds part of the change only: %s is missing" % (tree, rel))
        with open(p) as f, open(ours) as g:
            if f.read() != g.read():
                raise KernelError("%s: %s differs from this katomic's (another version's series?)" % (tree, rel))
    for path, anchor, where, what in edits(arch):
        if not os.path.isfile(os.path.join(tree, path)):
            raise KernelError("%s: missing in %s" % (path, tree))
        with open(os.path.join(tree, path)) as f:
            if not _edit_done(f.read(), anchor, where, what):
                raise KernelError("%s: holds part of the change only: %s lacks its edit (%s)" % (tree, path, where))
    return True
