#!/usr/bin/env python3
"""Two ways of building the compiled herd7 tests must give the same verdicts.

Default: the lock-order split against the whole test.  `katomic verify` runs
the lock tests twice, whole (--lock-split auto: these finish whole) and split
(--lock-split always); every test both judge must have the same compiled
states and the same "stronger" list, and the split must have judged some.
The split is an over-approximation (docs/verify.md); on tests herd7 finishes
whole it must lose nothing and add nothing.

--lean: the translation's lean rewrites (isa.Isa.lean: dead register moves
dropped, aarch64's cmp/b.ne as cbnz) against none (--no-lean): they exist
only to make herd7 faster, so every test both judge must agree exactly.

--normal: herd7 on each test's normal form (normal.py: registers and labels
renamed, states renamed back) against the test as translated (--no-normal):
every test must agree exactly, and one judged only one way is a difference
too (unless the other ran over the time limit).
usage: split-compare.py [--lean | --normal] VERIFY_ARGS... -- FILES..."""
import json
import os
import subprocess
import sys


def run(args, files, extra):
    verify = os.environ.get("VERIFY", "sh tools/verify/verify.sh").split()
    p = subprocess.run(verify + args + extra + ["--json"] + files, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("split-compare: verify %s failed (%d): %s" % (" ".join(extra), p.returncode, p.stderr.strip()[-400:]))
    doc = json.loads(p.stdout)
    print("split-compare: verify %s: %.0f s, herd7 runs %d, cached %d" % (" ".join(extra) or "(default)", doc["seconds"],
                                                                      doc["herd_runs"], doc["herd_cached"]), flush=True)
    return {(c["target"], c["cc"], c["layer"], c["backend"], r["name"]): r for c in doc["configs"] for r in c["tests"]}


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__.strip().splitlines()[-1])
    mode = argv[0] if argv[:1] in (["--lean"], ["--normal"]) else None
    exact = mode is not None         # two ways that must agree exactly (the split over-approximates)
    argv = argv[1:] if mode else argv
    k = argv.index("--")
    args, files = argv[:k], argv[k + 1:]
    if mode == "--normal":
        names, base, other = ("as translated", "normal form"), run(args, files, ["--no-normal"]), run(args, files, [])
    elif mode == "--lean":
        names, base, other = ("without lean", "lean"), run(args, files, ["--no-lean"]), run(args, files, [])
    else:
        names = ("whole", "split")
        base, other = run(args, files, ["--lock-split", "auto"]), run(args, files, ["--lock-split", "always"])
    same, differ, orders = 0, [], 0
    for key, w in sorted(base.items()):
        s = other.get(key)
        if mode == "--normal" and s and (w["verdict"] == "not judged") != (s["verdict"] == "not judged") and \
                not any("ran over" in r.get("reason", "") for r in (w, s)):
            differ.append("%s: %s %s, %s %s" % ("/".join(key), names[0], w.get("reason", w["verdict"]), names[1],
                                                s.get("reason", s["verdict"])))
            continue
        if not s or w["verdict"] == "not judged" or s["verdict"] == "not judged":
            continue
        if s.get("lock_orders"):
            orders += 1
        if (w["verdict"], w.get("states"), w.get("stronger"), w.get("weaker")) == \
                (s["verdict"], s.get("states"), s.get("stronger"), s.get("weaker")):
            same += 1
        else:
            differ.append("%s: %s %s %s states, stronger %s; %s %s %s states, stronger %s" % (
                "/".join(key), names[0], w["verdict"], w.get("states"), w.get("stronger"), names[1], s["verdict"],
                s.get("states"), s.get("stronger")))
    for d in differ:
        print("split-compare: DIFFERS %s" % d)
    if exact:
        print("split-compare: %d judged %s and %s, %d differ" % (same + len(differ), *names, len(differ)))
    else:
        print("split-compare: %d judged both ways, %d of them by the split, %d differ" % (same + len(differ), orders,
                                                                                       len(differ)))
    empty = not same if exact else not orders
    if differ or empty:
        print("split-compare: FAIL (%s)" % ("a difference above" if differ else "nothing judged both ways"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
