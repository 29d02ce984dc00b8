"""make check-kernel: `katomic kernel --series`, no kernel build (TAP-like).

With Debian's linux-source-6.12 and -6.1 (each extracted into the kernel
cache; a missing one is skipped with a note), for each tree:
 - the series for --arch all, x86 and arm64: a cover letter and one patch per
   part, numbered, the author's From: and Signed-off-by:, no figures without
   --from and the kernel.json's own figures with it;
 - `git am` applies it to a git repository of the files it touches, commit by
   commit, and the result is, file for file, what `katomic kernel --patch`
   makes for each architecture;
 - the tree's own scripts/checkpatch.pl: 0 errors on every patch, and every
   kind of warning it reports is explained in that patch's message;
 - bad input (--from a missing or foreign document, --author without an
   address, --arch unknown, a directory of someone else's patches): one line,
   exit 2.
usage: check-series.py BUILD_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap            # noqa: E402
from katomic_tools.kernel import KernelError, patch, series, tree  # noqa: E402
import kcli                                          # noqa: E402
from kcli import one_clear_line                      # noqa: E402

AUTHOR = "Series Test <series-test@example.org>"
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="x", GIT_AUTHOR_EMAIL="x@example.org",
               GIT_COMMITTER_NAME="x", GIT_COMMITTER_EMAIL="x@example.org")


def cli(args):
    """`katomic kernel` with fixed dates (SOURCE_DATE_EPOCH): a reproducible series."""
    return kcli.cli(args, {"SOURCE_DATE_EPOCH": "1700000000"})


def git(repo, *args, stdin=None):
    return subprocess.run(["git", "-C", repo] + list(args), env=GIT_ENV, input=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)


def sparse_copy(src, rels, dest):
    """The pristine text of `rels` (those that exist in src) under dest."""
    for rel in rels:
        p = os.path.join(src, rel)
        if os.path.isfile(p):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copyfile(p, os.path.join(dest, rel))


def touched(text):
    return re.findall(r"^\+\+\+ b/(\S+)", text, re.M)


def message_of(text):
    """The commit message of a format-patch file: after the headers, up to '---'."""
    body = text.split("\n\n", 1)[1]
    return body.split("\n---\n", 1)[0]


def main(argv):
    out_dir = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(ROOT, "build", "check-kernel"))
    t = Tap()
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="series-", dir=out_dir)
    try:
        bad_input(t, work)
        if not shutil.which("git"):
            print("# note: git not found (apt-get install git): the series checks are skipped")
            return t.summary()
        src = None
        for tarball in (tree.TARBALL, "/usr/src/linux-source-6.1.tar.xz"):
            try:
                s = tree.pristine(tarball=tarball)
            except KernelError as e:
                print("# note: %s: the series checks of that tree are skipped" % e)
                continue
            src = src or s
            whole(t, s, os.path.join(work, os.path.basename(s)))
        if not src:
            return t.summary()
        from_figures(t, src, work)
        for arch, n in (("x86", len(series.X86)), ("arm64", 2)):
            d = os.path.join(work, "only-" + arch)
            r = cli(["--series", d, "--arch", arch, "--author", AUTHOR, "--src", src])
            got = sorted(f for f in os.listdir(d) if f.endswith(".patch")) if r.returncode == 0 else []
            t.check(len(got) == n + 1 and got[0].startswith("0000-cover"),
                    "--arch %s: a cover letter and %d patches (%d files; %s)" % (arch, n, len(got),
                                                                                   r.stderr.strip()[:120]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.summary()


def bad_input(t, work):
    r = cli(["--series", os.path.join(work, "s"), "--from", os.path.join(work, "nothing")])
    t.check(one_clear_line(r, "--from", "nothing"), "--from a missing directory: one line, exit 2 (%s)"
            % r.stderr.strip()[:100])
    foreign = os.path.join(work, "foreign.json")
    with open(foreign, "w") as f:
        json.dump({"schema": "katomic-litmus"}, f)
    r = cli(["--series", os.path.join(work, "s"), "--from", foreign])
    t.check(one_clear_line(r, "foreign.json", "not a katomic kernel.json"),
            "--from another kind of document: one line, exit 2")
    r = cli(["--series", os.path.join(work, "s"), "--author", "nobody"])
    t.check(one_clear_line(r, "--author", "Name <email"), "--author without an address: one line, exit 2")
    r = cli(["--series", os.path.join(work, "s"), "--arch", "sparc"])
    t.check(one_clear_line(r, "--arch sparc"), "--arch unknown: one line, exit 2")
    r = cli(["--from", "x"])
    t.check(one_clear_line(r, "--from", "--series"), "--from without --series: one line, exit 2")
    theirs = os.path.join(work, "theirs")
    os.makedirs(theirs)
    open(os.path.join(theirs, "0001-fix.patch"), "w").close()
    r = cli(["--series", theirs, "--author", AUTHOR])
    t.check(one_clear_line(r, "theirs", "did not write") and os.path.isfile(os.path.join(theirs, "0001-fix.patch")),
            "a directory of someone else's patches: refused in one line, left as it was")


def whole(t, src, work):
    ver = tree.version(src)
    out = os.path.join(work, "all")
    r = cli(["--series", out, "--author", AUTHOR, "--src", src])
    names = sorted(f for f in os.listdir(out) if f.endswith(".patch")) if r.returncode == 0 else []
    n = len(series.parts("all"))
    t.check(r.returncode == 0 and len(names) == n + 1,
            "linux " + ver + ": --series (--arch all): a cover letter and %d patches (%d files; %s)" % (n, len(names),
                                                                                     r.stderr.strip()[:160]))
    if len(names) != n + 1:
        return
    texts = [open(os.path.join(out, f)).read() for f in names]
    subj = [re.search(r"^Subject: (.*(?:\n .*)*)", x, re.M).group(1).replace("\n ", " ") for x in texts]
    t.check(all(s.startswith("[RFC PATCH %02d/%02d] " % (i, n)) for i, s in enumerate(subj)),
            "subjects numbered [RFC PATCH k/%d]" % n)
    t.check(all(re.search(r"^[a-z0-9-]+(/[a-z0-9_]+)?: ([a-z0-9]+: )?[A-Z]", s.split("] ", 1)[1]) for s in subj[1:]),
            "subjects in the kernel's form (subsystem: Capitalised summary), e.g. " + subj[1].split("] ", 1)[1])
    t.check("*** SUBJECT HERE ***" not in texts[0] and "*** BLURB HERE ***" not in texts[0],
            "the cover letter's subject and text are filled in")
    sob = "Signed-off-by: " + AUTHOR
    t.check(all(sob in message_of(x) for x in texts[1:]) and
            all(re.search(r"^From: Series Test\s+<series-test@example.org>", x, re.M) for x in texts),
            "every patch is from --author and signed off by it")
    t.check(all("Not measured for this series" in message_of(x) for x in (texts[0], texts[1])),
            "without --from, the messages say the figures were not measured and how to measure")
    long = [(names[i], l) for i, x in enumerate(texts) for l in message_of(x).splitlines() if len(l) > 75]
    t.check(not long, "commit message lines within 75 columns (%s)" % (long[:1] or "none"))

    # git am onto a repository of the touched files: the result is --patch's, per architecture
    repo = os.path.join(work, "repo")
    per_arch = {a: patch.make(src, a) for a in ("x86_64", "arm64", "riscv64")}
    rels = sorted({r for p in per_arch.values() for r in touched(p)})
    sparse_copy(src, rels, repo)
    ok = git(repo, "init", "-q").returncode == 0 and git(repo, "add", "-A").returncode == 0 and \
        git(repo, "commit", "-q", "-m", "base").returncode == 0
    r = git(repo, "am", "-q", *[os.path.join(out, f) for f in names[1:]]) if ok else None
    t.check(r is not None and r.returncode == 0, ver + ": git am applies the %d patches to a git repository of the "
            "tree's files (%s)" % (n, (r.stdout.strip().splitlines() or [""])[-1][:120] if r else "no repo"))
    if r is None or r.returncode != 0:
        return
    # katomic kernel takes the applied tree as it is, and refuses a part of it
    for rel in ("Makefile", "include/linux/atomic/atomic-arch-fallback.h"):
        sparse_copy(src, [rel], repo)
    r = cli(["--patch", "--src", repo])
    t.check(one_clear_line(r, "already holds the change"),
            "--patch of the applied tree: refused in one line, exit 2 (%s)" % r.stderr.strip()[:100])
    gone = os.path.join(repo, "arch/x86/include/asm/bitops-c11.h")
    os.rename(gone, gone + ".away")
    r = cli(["--no-boot", "--cc", "gcc", "--src", repo])
    t.check(one_clear_line(r, "part of the change", "bitops-c11.h"),
            "a tree with part of the change: one line naming the missing file, exit 2 (%s)" % r.stderr.strip()[:100])
    os.rename(gone + ".away", gone)
    log = git(repo, "log", "--format=%s", "-n", str(n)).stdout.split("\n")
    t.check(len([l for l in log if l]) == n, "one commit per patch (%d)" % len([l for l in log if l]))
    for a, text in per_arch.items():
        ref = os.path.join(work, "ref-" + a)
        sparse_copy(src, touched(text), ref)
        p = subprocess.run(["patch", "-p1", "-s", "--batch", "-d", ref], input=text, universal_newlines=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        differ = [rel for rel in touched(text)
                  if open(os.path.join(ref, rel)).read() != open(os.path.join(repo, rel)).read()]
        t.check(p.returncode == 0 and not differ, ver + " %s: the series ends where --patch --arch %s does, file for "
                "file (%d files; differ: %s)" % (a, a, len(touched(text)), ", ".join(differ[:3]) or "none"))

    # checkpatch.pl of the tree itself, run from the tree
    cp = os.path.join(src, "scripts", "checkpatch.pl")
    if not (os.path.isfile(cp) and shutil.which("perl")):
        print("# note: no perl or %s: checkpatch is skipped" % cp)
        return
    errors, unexplained = [], []
    for f, x in zip(names[1:], texts[1:]):
        r = subprocess.run(["perl", cp, "--terse", "--show-types", "--no-summary", os.path.join(out, f)],
                           cwd=src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        kinds = set(re.findall(r": (ERROR|WARNING|CHECK):([A-Z0-9_]+):", r.stdout))
        errors += ["%s %s" % (f[:4], k) for lvl, k in kinds if lvl == "ERROR"]
        msg = message_of(x)
        unexplained += ["%s %s" % (f[:4], k) for lvl, k in kinds
                        if lvl == "WARNING" and not re.search(r"^- %s: " % k, msg, re.M)]
    t.check(not errors, "checkpatch.pl of %s: 0 errors on each of the %d patches (%s)"
            % (tree.version(src), n, ", ".join(errors) or "none"))
    t.check(not unexplained, ver + ": each kind of warning left is explained in that patch's message (%s)"
            % (", ".join(unexplained) or "none unexplained"))



def from_figures(t, src, work):
    """--from: the figures are the document's."""
    doc = os.path.join(ROOT, "tests", "json", "kernel.json")
    with open(doc) as f:
        d = json.load(f)
    st = [b for b in d["builds"] if b["variant"] == "stock" and b.get("ok")]
    c1 = [b for b in d["builds"] if b["variant"] == "c11" and b.get("ok") and b["cc"] == st[0]["cc"]
          and b["config"] == st[0]["config"]] if st else []
    out2 = os.path.join(work, "from")
    r = cli(["--series", out2, "--arch", "x86", "--author", AUTHOR, "--from", doc, "--src", src])
    first = [f for f in sorted(os.listdir(out2)) if f.startswith("0001-")] if r.returncode == 0 else []
    text = open(os.path.join(out2, first[0])).read() if first else ""
    want = "%d -> %d bytes (%+d)" % (st[0]["text_bytes"], c1[0]["text_bytes"],
                                     c1[0]["text_bytes"] - st[0]["text_bytes"]) if c1 else "?"
    t.check(want in message_of(text) and "Not measured" not in message_of(text),
            "--from tests/json/kernel.json: patch 1 carries its text sizes (%s)" % want)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
