"""katomic litmus [--judge auto|herd7|comment] [--herd7 PATH] [--lkmm DIR] [--herd-timeout S]
[runner options] FILE_OR_DIR...

Runs the C litmus runner (tools/litmus, `katomic-litmus --help` for its
options).  Before it, herd7 with the kernel's memory model (LKMM) gives the
final states each test allows (oracle.py), and the runner judges every
observed state against them.  --judge auto (the default) does so when herd7
and an LKMM are found and says so when they are not; --judge herd7 requires
them; --judge comment judges by the tests' Result: comments only."""
import os
import subprocess
import sys

from ..common import herd as herdmod
from ..common import paths
from . import oracle

OWN = {"--judge": "auto", "--herd7": None, "--lkmm": None, "--herd-timeout": str(oracle.TIMEOUT), "--runner": None}
# options that make the runner run nothing: no oracle is needed
NO_RUN = ("-h", "--help", "--parse-only", "--emit-verify")


def note(msg):
    print("katomic litmus: %s" % msg, file=sys.stderr, flush=True)


def split_args(argv):
    own, rest = dict(OWN), []
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, val = a.partition("=")
        if name in OWN and eq:
            own[name] = val
        elif a in OWN:
            if i + 1 >= len(argv):
                raise ValueError("%s needs a value" % a)
            own[a] = argv[i + 1]
            i += 1
        else:
            rest.append(a)
        i += 1
    if own["--judge"] not in ("auto", "herd7", "comment"):
        raise ValueError("--judge: auto, herd7 or comment (not '%s')" % own["--judge"])
    try:
        if int(own["--herd-timeout"]) <= 0:
            raise ValueError
    except ValueError:
        raise ValueError("--herd-timeout: a positive number of seconds")
    return own, rest


def runner_path(own):
    if own["--runner"]:
        return own["--runner"]
    b = os.path.join(paths.build(), "katomic-litmus")
    if not os.access(b, os.X_OK):
        subprocess.run(["make", "-s", "-C", paths.root(), "BUILD=" + paths.build(), "litmus"], check=True,
                       stdout=sys.stderr)
    return b


def main(argv=None):
    try:
        own, rest = split_args(sys.argv[1:] if argv is None else argv)
    except ValueError as e:
        note(str(e))
        return 2
    runner = runner_path(own)
    extra = []
    if not any(a in NO_RUN or a.startswith("--emit-verify=") for a in rest):
        try:
            extra, what = oracle.prepare(runner, rest, own["--judge"], own["--herd7"], own["--lkmm"],
                                  int(own["--herd-timeout"]))
        except herdmod.HerdMissing as e:
            note("--judge herd7: %s" % e)
            return 2
        if what:
            note(what)
    os.execv(runner, [runner] + extra + rest)


if __name__ == "__main__":
    sys.exit(main())
