"""katomic bench [options]: per-op and workload benchmarks, katomic's backends
vs liburcu, ck, libatomic_ops, <stdatomic.h>, glibc and the raw instruction,
all in one run (build/katomic-bench; method in bench/driver.c).

  --quick          a subset of ops and modes, 5 rounds, short samples (< 1 minute)
  --out DIR        where the results go (default $KATOMIC_BUILD/bench)
  --filter PATS    ops/workloads: comma-separated names, globs or substrings
  --json           print DIR/bench.json on stdout instead of the table
  --no-plots       skip gnuplot
  --aa             A/A control: the c11-* contenders built from the asm backend
                   too (identical code at other addresses): the noise floor
  --confirm        then re-measure each candidate loss alone, interleaved with
                   the A/A control, and judge it (bench/confirm.py; the rule is
                   report/rules.py's): the "confirmation" object of bench.json
                   and the end of table.txt (katomic report runs it)
  --no-up          skip the uniprocessor lock elision benchmark (build/up-patch:
                   locked vs patched, asm and C11 after katomic uplocks, one
                   pinned CPU; also skipped when --filter does not name "up")
  anything else is passed to katomic-bench (--rounds N, --modes LIST,
  --contenders PATS, --threads N, --ms MS, --wl-ms MS, --list, --check; --help)

Writes DIR/bench.json (the document: tools/schema/bench.schema.json),
DIR/table.txt (also on stdout; the "== up:" table last), DIR/up.json (the
"up" object of bench.json), DIR/bench.csv (one line per op x mode x
contender), DIR/samples.csv (every round), and with gnuplot
DIR/ratio-MODE.{png,svg} (per-op ratio bars) and DIR/wl-NAME.{png,svg}
(throughput vs threads)."""
import os
import shutil
import subprocess
import sys

from ..common import documents, paths
from . import confirm, plots


def die(msg):
    print("katomic bench: " + msg, file=sys.stderr)
    sys.exit(2)


def run_up(build, out, quick):
    """Uniprocessor lock elision, first (pinned to one CPU, about 20 s; --quick 3 s):
    DIR/up.json for the driver to embed, and its table (None: not on this machine)."""
    exe, js = os.path.join(build, "up-patch"), os.path.join(out, "up.json")
    if os.path.exists(js):
        os.remove(js)
    if not os.access(exe, os.X_OK):
        print("katomic bench: no uniprocessor lock elision benchmark here (x86-64 and python3 only)", file=sys.stderr)
        return None
    r = subprocess.run([exe] + quick + ["--json", js], stdout=subprocess.PIPE, universal_newlines=True)
    with open(os.path.join(out, "up.txt"), "w") as f:
        f.write(r.stdout)
    if r.returncode:
        die("up-patch failed (see %s)" % os.path.join(out, "up.txt"))
    return r.stdout


def main(argv):
    root, build = paths.root(), paths.build()
    out, json_out, draw, aa, passthru, rest = os.path.join(build, "bench"), False, True, False, False, []
    up, quick, confirming = True, [], False
    it = iter(argv)
    for a in it:
        if a in ("--out", "--filter"):
            v = next(it, None)
            if v is None:
                die(a + " needs a value")
            if a == "--out":
                out = v
            else:
                rest += ["--filter", v]
                up = up and "up" in v
        elif a.startswith("--out="):
            out = a[len("--out="):]
        elif a == "--json":
            json_out = True
        elif a == "--no-plots":
            draw = False
        elif a == "--aa":
            aa = True
        elif a == "--confirm":
            confirming = True
        elif a == "--no-up":
            up = False
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            passthru = passthru or a in ("--list", "--check")
            quick = quick or (["--quick"] if a == "--quick" else [])
            rest.append(a)
    target, binary = ("bench-aa", "katomic-bench-aa") if aa else ("bench", "katomic-bench")
    make = ["make", "-s", "-C", root, "-f", "bench/bench.mk", "BUILD=" + build, target]
    if confirming and not aa:
        make.append("bench-aa")     # the A/A control the confirmation interleaves
    if subprocess.run(make, stdout=sys.stderr).returncode:
        die("build failed")
    exe = os.path.join(build, binary)
    if not os.access(exe, os.X_OK):
        die("no A/A control on this machine (x86-64 only)" if aa else "%s was not built" % exe)
    if passthru:
        os.execv(exe, [exe] + rest)
    try:
        os.makedirs(out, exist_ok=True)
        if os.path.exists(os.path.join(out, "gnuplot.log")):
            os.remove(os.path.join(out, "gnuplot.log"))
    except OSError:
        die("cannot create " + out)
    up_txt = run_up(build, out, quick) if up else None
    if up_txt is not None:
        rest += ["--up-json", os.path.join(out, "up.json")]
    js = os.path.join(out, "bench.json")
    with open(os.path.join(out, "table.txt"), "w") as table:
        rc = subprocess.run([exe] + rest + ["--json", js, "--csv", os.path.join(out, "bench.csv"),
                                            "--samples", os.path.join(out, "samples.csv")], stdout=table).returncode
    if up_txt:
        with open(os.path.join(out, "table.txt"), "a") as table:
            table.write(up_txt)
    if rc:
        sys.stdout.write(open(os.path.join(out, "table.txt")).read())
        return rc
    try:
        doc = documents.read(js, "bench")
    except ValueError as e:
        print("katomic bench: the driver wrote an invalid document: %s" % e, file=sys.stderr)
        return 1
    if confirming and not aa:
        try:
            conf = confirm.run(doc, build, lambda m: print("katomic bench: " + m, file=sys.stderr))
        except (OSError, RuntimeError, ValueError) as e:
            print("note: the confirmation failed (%s): the candidate losses are not confirmed" % e, file=sys.stderr)
            conf = False
        if conf is None:
            print("note: no A/A control on this machine (x86-64 only): the candidate losses are not confirmed",
                  file=sys.stderr)
        elif conf:
            doc["confirmation"] = conf
            documents.write(js, doc)
            with open(os.path.join(out, "table.txt"), "a") as table:
                table.write(confirm.table(conf))
    sys.stdout.write(documents.dumps(doc) if json_out else open(os.path.join(out, "table.txt")).read())
    if draw:
        if shutil.which("gnuplot"):
            plots.draw(doc, out, lambda m: print("katomic bench: " + m, file=sys.stderr))
        else:
            print("katomic bench: gnuplot not installed: no plots (apt-get install gnuplot-nox)", file=sys.stderr)
    print("katomic bench: results in %s (bench.json, table.txt, bench.csv, samples.csv%s)"
          % (out, ", plots" if draw and shutil.which("gnuplot") else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
