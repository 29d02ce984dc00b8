#!/usr/bin/env python3
"""The lock-order split against the whole test: run `katomic verify` on lock
tests twice, whole (--lock-split auto: these finish whole) and split
(--lock-split always), and require every test both judge to have the same
compiled states and the same "stronger" list, and the split to have judged
some.  The split is an over-approximation (docs/verify.md); on tests herd7
finishes whole it must lose nothing and add nothing.
usage: split-compare.py VERIFY_ARGS... -- FILES..."""
import json
import os
import subprocess
import sys


def run(args, files, mode):
    verify = os.environ.get("VERIFY", "sh tools/verify/verify.sh").split()
    p = subprocess.run(verify + args + ["--lock-split", mode, "--json"] + files, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("split-compare: verify --lock-split %s failed (%d): %s" % (mode, p.returncode, p.stderr.strip()[-400:]))
    doc = json.loads(p.stdout)
    return {(c["target"], c["cc"], c["layer"], c["backend"], r["name"]): r for c in doc["configs"] for r in c["tests"]}


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__.strip().splitlines()[-1])
    k = argv.index("--")
    args, files = argv[:k], argv[k + 1:]
    whole, split = run(args, files, "auto"), run(args, files, "always")
    same, differ, orders = 0, [], 0
    for key, w in sorted(whole.items()):
        s = split.get(key)
        if not s or w["verdict"] == "not judged" or s["verdict"] == "not judged":
            continue
        if s.get("lock_orders"):
            orders += 1
        if (w["verdict"], w.get("states"), w.get("stronger"), w.get("weaker")) == \
                (s["verdict"], s.get("states"), s.get("stronger"), s.get("weaker")):
            same += 1
        else:
            differ.append("%s: whole %s %s states, stronger %s; split %s %s states, stronger %s" % (
                "/".join(key), w["verdict"], w.get("states"), w.get("stronger"), s["verdict"], s.get("states"),
                s.get("stronger")))
    for d in differ:
        print("split-compare: DIFFERS %s" % d)
    print("split-compare: %d judged both ways, %d of them by the split, %d differ" % (same + len(differ), orders,
                                                                                   len(differ)))
    if differ or not orders:
        print("split-compare: FAIL (%s)" % ("a difference above" if differ else "the split judged nothing"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
