"""`katomic kernel --series DIR`: the C11 kernel work as an RFC patch series.

The same edits and files as `katomic kernel --patch` (patch.py), split into
one logical change per patch: each PART names the edits (by file and kind)
and the new files it brings; Kconfig.katomic grows option by option.  The
commits are made in a scratch git repository that holds only the files the
series touches (their pristine text first), and `git format-patch` writes
them, so the blob ids in the patches are those of the tree's own files and
`git am` applies them to a git repository made from the tree.

Figures in the messages come only from kernel.json documents (`--from`);
without them a message says how to measure.  See docs/kernel.md, "The RFC
series".
"""
import os
import re
import shutil
import subprocess
import tempfile

from . import KernelError, patch
from .tree import need_tool, version

# The parts, in order.  "edits": (path regex, kind) pairs picking entries of
# patch.EDITS / GENERIC_EDITS (kind: "wrap", "sub", "before", "after" or None
# for any); "files": regexes of the new files' paths; "kconfig": the options
# of Kconfig.katomic this part adds.
X86 = [
    {"key": "atomic",
     "subject": "x86/atomic: Implement atomic_t and atomic64_t with C11 builtins",
     "edits": [(r"^arch/x86/Kconfig$", None), (r"/asm/atomic(64_64)?\.h$", None)],
     "files": [r"/asm/atomic(64)?-c11\.h$", r"^arch/x86/Kconfig\.katomic$"], "kconfig": ["X86_ATOMIC_C11"]},
    {"key": "cmpxchg",
     "subject": "x86/cmpxchg: Implement xchg, cmpxchg and try_cmpxchg with C11 builtins",
     "edits": [(r"/asm/cmpxchg\.h$", "before")], "files": [r"/asm/cmpxchg-c11\.h$"]},
    {"key": "bitops",
     "subject": "x86/bitops: Implement the atomic bitops with C11 builtins",
     "edits": [(r"/asm/bitops\.h$", None)], "files": [r"/asm/bitops-c11\.h$"]},
    {"key": "barrier",
     "subject": "x86/barrier: Optionally implement the SMP barriers with C11 fences",
     "edits": [(r"/asm/barrier\.h$", "before")], "files": [r"/asm/barrier-c11\.h$"],
     "kconfig": ["X86_BARRIER_C11"]},
    {"key": "objtool",
     "subject": "objtool: Add --smp-locks to record lock prefixes in .smp_locks",
     "edits": [(r"^tools/objtool/", None)], "files": [r"^tools/objtool/"]},
    {"key": "keeplock",
     "subject": "x86/alternative: Add ANNOTATE_KEEP_LOCK for locks that must stay on UP",
     "edits": [(r"/asm/alternative\.h$", None), (r"/asm/cmpxchg\.h$", "sub"),
               (r"/asm/sync_bitops\.h$", None), (r"/asm/edac\.h$", None)], "files": []},
    {"key": "smplocks",
     "subject": "x86/atomic: Record the compiler's lock prefixes in .smp_locks",
     "edits": [(r"^scripts/Makefile\.lib$", None)], "files": [],
     "kconfig": ["X86_ATOMIC_C11_SMP_LOCKS"]},
    {"key": "upmb",
     "subject": "x86/barrier: Let smp_mb() drop its lock prefix on one CPU",
     "edits": [(r"/asm/barrier\.h$", "after")], "files": []},
]
GENERIC = {"key": "generic",
           "subject": "asm-generic: Add atomics, cmpxchg and barriers on C11 builtins",
           "edits": [], "files": [r"^include/asm-generic/"]}
ARM64 = {"key": "arm64",
         "subject": "arm64: atomics: Optionally use the asm-generic C11 atomics",
         "edits": [(r"^arch/arm64/", None)], "files": [r"^arch/arm64/"], "kconfig": ["ARCH_ATOMIC_C11"]}
RISCV = {"key": "riscv64",
         "subject": "riscv: atomics: Optionally use the asm-generic C11 atomics",
         "edits": [(r"^arch/riscv/", None)], "files": [r"^arch/riscv/"], "kconfig": ["ARCH_ATOMIC_C11"]}

ARCHES = ("x86", "arm64", "riscv64", "all")


def parts(arch):
    """[(patch.py arch, part)] of the series for --arch."""
    out = []
    if arch in ("x86", "x86_64", "all"):
        out += [("x86_64", p) for p in X86]
    if arch in ("arm64", "riscv64", "all"):
        out.append(("arm64" if arch != "riscv64" else "riscv64", GENERIC))
    if arch in ("arm64", "all"):
        out.append(("arm64", ARM64))
    if arch in ("riscv64", "all"):
        out.append(("riscv64", RISCV))
    return out


def _picks(part, path, where):
    return any(re.search(rx, path) and (kind is None or kind == where) for rx, kind in part["edits"])


def _kconfig_upto(text, options):
    """Kconfig.katomic with only `options`' stanzas (its leading comment kept)."""
    blocks = re.split(r"(?m)^(?=config )", text)
    keep = [blocks[0]] + [b for b in blocks[1:] if b.split()[1] in options]
    return "".join(keep).rstrip("\n") + "\n"


def _check_assigned(arches):
    """Every edit and new file of the patch belongs to exactly one part."""
    for arch in arches:
        ps = [p for a, p in parts("all") if a == arch or p is GENERIC]
        for path, anchor, where, _ in patch.edits(arch):
            n = sum(_picks(p, path, where) for p in ps)
            if n != 1:
                raise KernelError("series: the edit of %s (%s) is in %d parts, not 1" % (path, where, n))
        for rel in patch.new_files(arch):
            n = sum(any(re.search(rx, rel) for rx in p["files"]) for p in ps)
            if n != 1:
                raise KernelError("series: the new file %s is in %d parts, not 1" % (rel, n))


def author(given=None):
    """'Name <email>' from --author, else git config; never invented."""
    if given:
        if not re.match(r"^[^<>]+ <[^<>@\s]+@[^<>\s]+>$", given):
            raise KernelError("--author %r: give 'Name <email@host>'" % given)
        return given
    vals = []
    for key in ("user.name", "user.email"):
        r = subprocess.run(["git", "config", key], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True)
        vals.append(r.stdout.strip())
    if not all(vals):
        raise KernelError("no author: give --author 'Name <email>' or set git config user.name and user.email")
    return "%s <%s>" % tuple(vals)


class Repo:
    """A git repository made in `path` (a new or an existing directory),
    isolated from the user's git configuration, committing as `who`."""

    def __init__(self, path, who):
        self.path = path
        name, email = re.match(r"^(.*) <(.*)>$", who).groups()
        self.env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
                        GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
                        GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
        if os.environ.get("SOURCE_DATE_EPOCH"):       # a reproducible series
            d = "@%s +0000" % os.environ["SOURCE_DATE_EPOCH"]
            self.env.update(GIT_AUTHOR_DATE=d, GIT_COMMITTER_DATE=d)
        os.makedirs(path, exist_ok=True)
        self.git("init", "-q")

    def git(self, *args, stdin=None):
        r = subprocess.run(["git", "-C", self.path] + list(args), input=stdin, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode != 0:
            last = r.stdout.strip().splitlines()
            raise KernelError("git %s: %s" % (args[0], last[-1] if last else "failed"))
        return r.stdout

    def write(self, rel, text):
        p = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def read(self, rel):
        p = os.path.join(self.path, rel)
        if not os.path.isfile(p):
            return None
        with open(p) as f:
            return f.read()

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-q", "-F", "-", stdin=message)


def build(src, out, arch="all", who=None, facts=None):
    """Write the series for `src` into `out`; returns the list of files written."""
    from . import series_text as T
    need_tool("git", "git")
    if arch not in ARCHES + ("x86_64",):
        raise KernelError("--arch %s: one of %s" % (arch, ", ".join(ARCHES)))
    who = author(who)
    plan = parts(arch)
    arches = sorted({a for a, p in plan})
    _check_assigned(arches)
    ver = version(src)
    with tempfile.TemporaryDirectory(prefix="katomic-series-") as tmp:
        repo = Repo(os.path.join(tmp, "repo"), who)
        # the base: the pristine text of every file the series edits
        for a in arches:
            for path, _, _, _ in patch.edits(a):
                if repo.read(path) is None:
                    p = os.path.join(src, path)
                    if not os.path.isfile(p):
                        raise KernelError("%s: missing in %s" % (path, src))
                    with open(p) as f:
                        repo.write(path, f.read())
        repo.commit("Linux %s (the files the series touches)\n" % ver)
        base = repo.git("rev-parse", "HEAD").strip()
        kconfig = {}            # Kconfig.katomic path -> the options of the parts so far
        for a, part in plan:
            for path, anchor, where, what in patch.edits(a):
                if _picks(part, path, where):
                    repo.write(path, patch.edit(path, repo.read(path), anchor, where, what))
            for rel, srcpath in sorted(patch.new_files(a).items()):
                owned = any(re.search(rx, rel) for rx in part["files"])
                # Kconfig.katomic: the part that adds it, and each later part of the arch, add their options
                grows = rel.endswith("/Kconfig.katomic") and (owned or rel in kconfig)
                if not (owned or grows):
                    continue
                if owned and os.path.lexists(os.path.join(src, rel)):
                    raise KernelError("%s: already exists in %s (an already patched tree?)" % (rel, src))
                with open(srcpath) as f:
                    text = f.read()
                if grows:
                    kconfig[rel] = kconfig.get(rel, []) + part.get("kconfig", [])
                    text = _kconfig_upto(text, kconfig[rel])
                repo.write(rel, text)
            repo.commit(T.message(part, facts, who, ver))
        os.makedirs(out, exist_ok=True)
        old = [f for f in os.listdir(out) if f.endswith(".patch")]
        if old and not _ours(out):
            raise KernelError("%s: holds .patch files katomic did not write; give an empty directory" % out)
        for f in old:           # a series written before: replaced whole
            os.unlink(os.path.join(out, f))
        names = repo.git("format-patch", "--cover-letter", "--subject-prefix=RFC PATCH",
                         "--no-signature", "-o", os.path.abspath(out), base).split()
        cover = [n for n in names if os.path.basename(n).startswith("0000-")]
        if cover:
            T.fill_cover(cover[0], plan, facts, who, ver)
        with open(os.path.join(out, ".katomic-series"), "w") as f:
            f.write("written by katomic kernel --series for linux %s\n" % ver)
        return [os.path.join(out, os.path.basename(n)) for n in names]


def _ours(out):
    return os.path.isfile(os.path.join(out, ".katomic-series"))
