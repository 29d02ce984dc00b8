"""Is the series bisectable?  The tree is built after every patch, option on and off.

  python3 -m katomic_tools.kernel.bisect SERIES_DIR [--src TREE] [--config small] [--cc gcc]
                                         [--off every|last] [--jobs N] [--out FILE.json]

SERIES_DIR is what `katomic kernel --series` wrote.  One copy of the tree
(KCACHE/trees/bisect-<tree>) is made a git repository (git init; git add -A -f: Debian's linux-source
.gitignore ignores its whole top level; git commit), as a kernel developer would, and takes the patches one by one
with `git am`; after each, make runs in two O= build directories that persist from patch to patch,
so every make after the first is incremental: "on" (CONFIG_X86_ATOMIC_C11=y,
with what the options of the patches so far select) and "off" (the
options' defaults: the kernel's asm).  --off last builds "off" after the
last patch only: each patch puts the kernel's code under the #else of its
own option and no later patch touches that code, so the last tree holds
every earlier tree's "off" code; the edits that apply with the options off
too (ANNOTATE_KEEP_LOCK) are built by every "on" make.  x86-64 builds: the arm64 and riscv
patches add files no x86 build reads, and their own builds are
`katomic kernel --arch arm64|riscv64` of the whole series.  A make that
fails is reported with its patch, and the run exits 1.  Not run in CI (an
hour of builds); docs/kernel.md has the figures.
"""
import json
import os
import re
import shutil
import sys
import time

from . import KernelError, build, patch, series, tree


def patches(series_dir):
    if not os.path.isdir(series_dir):
        raise KernelError("%s: no such directory" % series_dir)
    names = sorted(f for f in os.listdir(series_dir) if re.match(r"^\d{4}-.*\.patch$", f) and not f.startswith("0000-"))
    if not names:
        raise KernelError("%s: no numbered patches (katomic kernel --series writes them)" % series_dir)
    return [os.path.join(series_dir, n) for n in names]


def subject(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r"^Subject: (.*(?:\n .*)*)", text, re.M)
    return re.sub(r"^\[[^]]*\] ", "", m.group(1).replace("\n ", " ")) if m else os.path.basename(path)


def fresh_copy(src):
    dest = os.path.join(tree.kcache(), "trees", "bisect-" + os.path.basename(os.path.abspath(src)))
    shutil.rmtree(dest, ignore_errors=True)
    patch.copy_tree(src, dest)
    repo = series.Repo(dest, "katomic bisect <bisect@localhost>")
    repo.git("add", "-A", "-f")     # -f: Debian's .gitignore ignores the tree's whole top level
    repo.git("commit", "-q", "-m", "Linux %s" % tree.version(src))
    return repo


def main(argv):
    a = {"src": None, "config": "small", "cc": "gcc", "jobs": 2, "out": None, "off": "every"}
    rest = []
    it = iter(argv)
    for opt in it:
        if opt in ("--src", "--config", "--cc", "--jobs", "--out", "--off"):
            v = next(it, None)
            if v is None:
                raise KernelError("%s needs a value" % opt)
            a[opt[2:]] = int(v) if opt == "--jobs" else v
        elif opt in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif opt.startswith("-"):
            raise KernelError("unknown option %s" % opt)
        else:
            rest.append(opt)
    if a["off"] not in ("every", "last"):
        raise KernelError("--off %s: every or last" % a["off"])
    if len(rest) != 1:
        raise KernelError("give one SERIES_DIR (katomic kernel --series writes it)")
    plist = patches(rest[0])
    src = tree.pristine(a["src"])
    repo = fresh_copy(src)
    work = repo.path
    steps, bad = [], 0
    broken = set()
    for i, p in enumerate(plist, 1):
        repo.git("am", "-q", os.path.abspath(p))
        for variant, opt in (("c11", "on"), ("stock", "off")):
            if opt == "off" and a["off"] == "last" and i < len(plist):
                continue
            step = {"patch": i, "subject": subject(p), "option": opt, "ok": False}
            if variant in broken:
                step["skipped"] = "an earlier patch broke this build"
                steps.append(step)
                continue
            t0 = time.time()
            try:
                b = build.build(work, a["config"], a["cc"], variant, a["jobs"], src=work)
                step.update(ok=True, make_s=b["last_make_s"], text_bytes=b["text_bytes"],
                            objtool_warnings=b["objtool_warnings"])
            except KernelError as e:
                step.update(error=str(e)[:300], make_s=round(time.time() - t0, 1))
                broken.add(variant)
                bad += 1
            steps.append(step)
            print("bisect: %02d %-3s %s  %s" % (i, opt, "ok  " if step["ok"] else "FAIL",
                                                "%s bytes, make %.0f s" % (step.get("text_bytes"), step["make_s"])
                                                if step["ok"] else step.get("error", "")), flush=True)
    doc = {"series": os.path.abspath(rest[0]), "tree": src, "version": tree.version(src),
           "config": a["config"], "cc": a["cc"], "off": a["off"], "steps": steps, "passed": bad == 0}
    if a["out"]:
        with open(a["out"], "w") as f:
            json.dump(doc, f, indent=1)
    print("bisect: %d patches, %d builds, %d failed (%s %s, %s)" % (len(plist), len(steps), bad, a["config"],
                                                                    a["cc"], tree.version(src)))
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KernelError as e:
        print("katomic kernel bisect: %s" % e, file=sys.stderr)
        sys.exit(2)
