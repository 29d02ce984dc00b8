#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Side by side runs of kernel-locks builds (a benchmark, not a test; issue 34).

Usage: kernel-locks-ab.py RUNS LOCK THREADS PIN ACQ TIMEOUT EXE...
  EXE  kernel-locks binaries built by kernel-locks.py (or by hand: plain,
       katomic C11/asm, other katomic versions), run in turn, RUNS rounds
       (A B C A B C ...), each `nice -n 10 EXE LOCK THREADS ACQ 2 PIN`
       (kernel-locks-main.c: PIN 0,0,1 = two threads on one CPU, one on the
       other; - = unpinned); KL_WORK and KL_HOG pass through the environment.
Prints per build the median, min, max and every run's seconds; the event
counts of each run over 0.05 s (hand-offs that waited over 1 ms, katomic's
yields, yields that switched, naps) and their mean over the faster runs.
A run that does not finish within TIMEOUT s counts as inf.
"""
import re
import statistics
import subprocess
import sys

runs, lock, thr, pin, acq, to = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6])
builds = sys.argv[7:]
res = {b: [] for b in builds}
for r in range(runs):
    for b in builds:
        try:
            p = subprocess.run(["nice", "-n", "10", b, lock, thr, acq, "2", pin], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=to)
            out = p.stdout
            m = dict(re.findall(r"(\w+)=([0-9.]+)", out))
            res[b].append((float(m.get("seconds", "inf")), m))
        except subprocess.TimeoutExpired:
            res[b].append((float("inf"), {}))
print("# %s threads=%s pin=%s acq=%s runs=%d load %s" % (lock, thr, pin, acq, runs, open("/proc/loadavg").read().split()[0]))
for b in builds:
    v = [x[0] for x in res[b]]
    ev = lambda k: sum(float(x[1].get(k, 0)) for x in res[b])
    print("%-28s med %.3f min %.3f max %.3f | runs: %s" % (b.split("/")[-1], statistics.median(v), min(v), max(v), " ".join("%.2f" % x for x in v)))
    slow = [x for x in res[b] if x[0] > 0.05]
    for s, m in slow:
        print("    slow run %.2fs: slow_handoffs=%s (%.2fs) max_handoff_ms=%s yields=%s switched=%s naps=%s" % (s, m.get("slow_handoffs"), float(m.get("slow_handoff_s", 0)), m.get("max_handoff_ms"), m.get("yields"), m.get("yields_switched"), m.get("naps")))
    fast = [x for x in res[b] if x[0] <= 0.05]
    if fast:
        n = len(fast)
        print("    fast runs (%d) mean: slow_handoffs=%.1f yields=%.0f switched=%.0f naps=%.0f" % (n, sum(float(x[1].get("slow_handoffs",0)) for x in fast)/n, sum(float(x[1].get("yields",0)) for x in fast)/n, sum(float(x[1].get("yields_switched",0)) for x in fast)/n, sum(float(x[1].get("naps",0)) for x in fast)/n))
sys.stdout.flush()
