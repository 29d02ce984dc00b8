"""katomic codegen: the per-op code-generation audit.
  katomic codegen [--quick] [--cc LIST] [--cross-cc LIST] [--target LIST]
                  [--out DIR] [--json] [--canon] [-O LEVEL]
Compiles tools/codegen/generated/probes.c (one function per public API name,
generated from gen/atomics.tbl and gen/api.tbl) with every compiler x target
x backend, disassembles, normalises, and judges each C11 probe against the
asm backend (x86-64, same compiler) or the kernel's own sequence for its
ordering class (tools/codegen/kernel-seq.tbl).  Writes DIR/codegen.json (the
document: tools/schema/codegen.schema.json), DIR/codegen.md and
DIR/codegen.html; prints a summary.
  --cc LIST        native x86-64 compilers (default: every gcc-N/clang-N found)
  --cross-cc LIST  compilers for the other targets: "gcc" = Debian's
                   <triple>-gcc, clang-N = clang --target (needs the sysroot);
                   default: gcc plus the --cc clangs (--quick: the newest clang)
  --target LIST    x86_64 aarch64 aarch64-no-outline aarch64-lse ppc64le
                   riscv64 s390x armhf (default: all)
  --json           print codegen.json on stdout instead of the summary
  --canon          canonicalise register names before comparing sequences"""
import os
import shutil
import sys

from ..common import compilers, documents, paths
from . import audit, render
from .plan import make_plan
from .targets import TARGETS


def usage_error(msg):
    print("katomic codegen: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    a = {"quick": False, "ccs": "", "xccs": "", "targets": "", "out": os.path.join(paths.build(), "codegen"),
         "json": False, "canon": False, "opt": "-O2"}
    it = iter(argv)
    for arg in it:
        if arg in ("--cc", "--cross-cc", "--target", "--out"):
            val = next(it, None)
            if val is None:
                usage_error("%s needs a value (see --help)" % arg)
            a[{"--cc": "ccs", "--cross-cc": "xccs", "--target": "targets", "--out": "out"}[arg]] = val
        elif arg in ("--quick", "--json", "--canon"):
            a[arg[2:]] = True
        elif arg.startswith("-O"):
            a["opt"] = arg
        elif arg in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            usage_error("unknown option '%s' (see --help)" % arg)
    return a


def main(argv):
    a = parse_args(argv)
    names = [t.name for t in TARGETS]
    targets = a["targets"].split() or names
    for t in targets:
        if t not in names:
            usage_error("unknown target '%s'" % t)
    ccs = a["ccs"].split() or compilers.audit_compilers()
    xccs = a["xccs"].split()
    if not xccs:
        clangs = [c for c in ccs if c.startswith("clang") and shutil.which(c)]
        xccs = ["gcc"] + (clangs[-1:] if a["quick"] else clangs)
    plan = make_plan(ccs, xccs, targets, a["opt"])
    for n in plan.notes:
        print("note: " + n, file=sys.stderr)
    if not plan.configs:
        print("katomic codegen: nothing to compile", file=sys.stderr)
        return 1
    out = a["out"]
    work = os.path.join(out, "work")
    shutil.rmtree(work, ignore_errors=True)
    try:
        os.makedirs(work)
    except OSError as e:
        print("katomic codegen: cannot create %s: %s" % (work, e.strerror), file=sys.stderr)
        return 1
    jobs = os.cpu_count() or 2
    print("katomic codegen: %d compiles on %d cores (%s)" % (len(plan.compiles()), jobs, a["opt"]), file=sys.stderr)
    try:
        doc = audit.audit(paths.root(), work, plan, a["opt"], a["canon"], jobs)
    except ValueError as e:         # a malformed table or manifest: FILE: line N: what
        print("katomic codegen: %s" % e, file=sys.stderr)
        return 1
    if doc is None:
        print("katomic codegen: some compiles failed (see above)", file=sys.stderr)
        return 1
    documents.write(os.path.join(out, "codegen.json"), doc)
    with open(os.path.join(out, "codegen.md"), "w", encoding="utf-8") as f:
        f.write(render.markdown(doc))
    with open(os.path.join(out, "codegen.html"), "w", encoding="utf-8") as f:
        f.write(render.page(doc))
    sys.stdout.write(documents.dumps(doc) if a["json"] else render.summary_text(doc))
    print("katomic codegen: wrote %s/codegen.md, %s/codegen.html, %s/codegen.json" % (out, out, out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
