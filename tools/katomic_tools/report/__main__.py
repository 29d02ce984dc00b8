"""katomic report: is it time to move to C11 atomics, on this machine?
  katomic report [--quick|--full] [--out DIR] [--litmus DIR]... [--skip LIST]
  katomic report --from DIR... [--out DIR]
  katomic report --kernel [--quick|--full] [--out DIR] ...
Runs the three instruments one after the other and keeps their JSON:
  codegen  the per-op code-generation audit, every installed compiler x target
  litmus   tests/litmus (+ each --litmus DIR) on this CPU, c11 and asm backend
  bench    the per-op and workload benchmarks, C11 vs asm side by side
then renders, from those documents only, DIR/REPORT.md, DIR/index.html (+ its
plots, *.png) and DIR/report.json; prints a progress line per stage on stderr
and the verdict on stdout.  DIR also keeps run.json (what ran), each
instrument's output in DIR/codegen, DIR/litmus, DIR/bench, and DIR/logs.
  --quick        default: about a minute idle, three under load, on 2 cores
                 (codegen --quick, 200000 litmus iterations per test, bench
                 --quick --confirm: each candidate loss re-measured against
                 the A/A control before it is claimed; docs/report.md)
  --full         everything: all clangs on the cross targets, 2000000
                 iterations, harnesses by gcc and clang, the kernel's own
                 litmus tests (../shared/litmus/lkmm) when present, full bench
                 and every candidate confirmed with more rounds, and
                 katomic verify (herd7: the compiled code of every target
                 against the LKMM, into OUT/verify; docs/verify.md)
  --out DIR      where the report goes (default $KATOMIC_BUILD/report;
                 with --from: the first --from DIR)
  --litmus DIR   also run the .litmus files in DIR (repeatable)
  --skip LIST    leave out stages: codegen,litmus,bench (their sections say so)
  --from DIR     run nothing: render again from DIR's saved JSON (a report
                 directory), or from each subdirectory of DIR that is one
                 (reports from several machines, shown side by side);
                 repeatable.  A DIR holding only a kernel.json (katomic
                 kernel --out DIR; DIR/ARCH/kernel.json of --arch) adds its
                 kernel results to the report; several such DIRs (gcc,
                 clang, arm64, riscv64 runs) merge into one kernel section
  --kernel       also build the Linux kernel stock and on katomic's C11
                 atomics (small config), boot and torture both under qemu:
                 `katomic kernel --config small --quick` into DIR/kernel
                 (minutes: docs/kernel-boot.md); the report then has a
                 section "The Linux kernel on C11" and its answer says what
                 the kernel showed
Exit status: 0 report written; 1 report written, but a forbidden litmus
outcome was observed or a native probe is WEAKER than the kernel, or the
C11 kernel failed a boot the stock kernel passed or its --arch code audit
found a WEAKER kernel operation;
2 usage error, an unwritable DIR or malformed saved JSON."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ..common import paths
from . import inputs, render
from .run_instruments import Runner

STAGES = ("codegen", "litmus", "bench")


def die(msg):
    print("katomic report: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    a = {"mode": "quick", "out": None, "skip": [], "litmus": [], "from": [], "kernel": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, val = arg.partition("=")
        if name in ("--out", "--litmus", "--skip", "--from"):
            if not eq:
                if i + 1 >= len(argv):
                    die("%s needs a value (see --help)" % arg)
                i += 1
                val = argv[i]
            if name == "--out":
                a["out"] = val
            elif name == "--skip":
                a["skip"] = [s for s in val.split(",") if s]
            elif name == "--litmus":
                if not os.path.exists(val):
                    die("--litmus %s: no such file or directory" % val)
                a["litmus"].append(os.path.abspath(val))
            else:
                if not os.path.isdir(val):
                    die("--from %s: no such directory" % val)
                a["from"].append(val)
        elif arg == "--kernel":
            a["kernel"] = True
        elif arg in ("--quick", "--full"):
            a["mode"] = arg[2:]
        elif arg in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            die("unknown option '%s' (see --help)" % arg)
        i += 1
    if a["kernel"] and a["from"]:
        die("--kernel runs the kernel driver; --from renders saved results: give one of them")
    for s in a["skip"]:
        if s not in STAGES:
            die("--skip: unknown stage '%s' (codegen, litmus, bench)" % s)
    return a


def writable_dir(out):
    """Create `out` if needed and prove it writable, or die with one line naming it."""
    try:
        os.makedirs(out, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".katomic-report.", dir=out)
        os.close(fd)
        os.remove(probe)
    except OSError:
        die("cannot write to output directory '%s'" % out)
    return os.path.abspath(out)


def kernel_verb():
    """The katomic CLI's kernel verb, or None when this version has none."""
    cli = os.path.join(paths.root(), "tools", "katomic.sh")
    try:
        with open(cli, encoding="utf-8") as f:
            # a case label naming it: "kernel)" or "codegen|bench|report|kernel)"
            has = any("kernel" in m.group(1).split("|")
                      for m in (re.match(r"\s*([A-Za-z|-]+)\)", line) for line in f) if m)
    except OSError:
        has = False
    return ["sh", cli, "kernel"] if has else None


def run_kernel(out, mode):
    """katomic kernel into out/kernel (its progress on stderr); dies with one line if it cannot."""
    verb = kernel_verb()
    if verb is None:
        die("--kernel: `katomic kernel` (the kernel build and audit driver, docs/kernel.md) is not in this "
            "version of katomic")
    kdir = os.path.join(out, "kernel")
    shutil.rmtree(kdir, ignore_errors=True)
    cmd = verb + ["--config", "small", "--quick" if mode == "quick" else "--full", "--out", kdir]
    print("katomic report: kernel: %s" % " ".join(cmd[1:]), file=sys.stderr)
    rc = subprocess.call(cmd)
    if not os.path.isfile(os.path.join(kdir, "kernel.json")):
        die("--kernel: katomic kernel exited %d without writing %s/kernel.json (its log: above)" % (rc, kdir))


def run_verify(out):
    """katomic verify into out/verify (--full; docs/verify.md): skipped with a note where herd7 is missing."""
    vdir = os.path.join(out, "verify")
    log = os.path.join(out, "logs", "verify.log")
    print("katomic report: verify: the compiled code of every target judged with herd7 (katomic verify)", file=sys.stderr)
    env = dict(os.environ, PYTHONPATH=os.path.join(paths.root(), "tools"))
    with open(log, "w") as f:
        rc = subprocess.call([sys.executable, "-m", "katomic_tools.verify", "--out", vdir], stdout=f, stderr=f, env=env)
        if rc != 3:         # the lock's slow path and unlock (verify-slowpath.json), into the same log
            subprocess.call([sys.executable, "-m", "katomic_tools.verify", "--slowpath", "--out", vdir],
                            stdout=f, stderr=f, env=env)
    if rc == 3:
        print("katomic report: verify: skipped (herd7 or the LKMM not found: logs/verify.log)", file=sys.stderr)
    elif not os.path.isfile(os.path.join(vdir, "verify.json")):
        print("katomic report: verify: exited %d without verify.json (logs/verify.log)" % rc, file=sys.stderr)


def main(argv):
    a = parse_args(argv)
    kernel_docs = []
    if a["from"]:
        try:
            runs = inputs.find_runs(a["from"])
            kernel_docs = inputs.kernel_docs(a["from"])
        except ValueError as e:
            die(str(e))
        out = writable_dir(a["out"] or a["from"][0])
    else:
        out = writable_dir(a["out"] or os.path.join(paths.build(), "report"))
        for d in ("logs", "litmus"):
            os.makedirs(os.path.join(out, d), exist_ok=True)
        for f in ("REPORT.md", "index.html", "report.json", "run.json"):
            if os.path.exists(os.path.join(out, f)):
                os.remove(os.path.join(out, f))
        for d in ("codegen", "bench", "kernel", "verify"):     # kernel, verify: an earlier run's, now stale
            shutil.rmtree(os.path.join(out, d), ignore_errors=True)
        if a["kernel"] and kernel_verb() is None:
            run_kernel(out, a["mode"])      # fails before the instruments run, not after
        Runner(out, a["mode"], a["skip"], a["litmus"]).run()
        if a["kernel"]:
            run_kernel(out, a["mode"])
        if a["mode"] == "full":
            run_verify(out)
        runs = [out]
    log = os.path.join(out, "logs", "plots.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    try:
        status, text = render.render(runs, out, log, kernel_docs)
    except ValueError as e:
        die("cannot render: %s" % e)
    sys.stdout.write(text)
    print("katomic report: done: %s/REPORT.md, %s/index.html, %s/report.json" % (out, out, out), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
