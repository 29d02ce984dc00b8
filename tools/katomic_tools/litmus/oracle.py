"""herd7's verdict on every litmus test, for the runner: the final states the
kernel's memory model (LKMM) allows, written as the oracle file the runner
reads with --oracle (its format: tools/litmus/oracle.c).

A test is named in the file by the FNV-1a hash of its text, as the runner
reads it; herd7's runs are cached by that text and the LKMM's files
(common/herd.py), so a second run over the same tests costs nothing."""
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import time

from ..common import herd as herdmod

FORMAT = "katomic-litmus-oracle 1"
# herd7's time limit per test: 1,703 of 1,755 LKMM runs of the corpus share and the kernel's
# tests take <= 10 s, 51 over 20 s (docs/litmus.md)
TIMEOUT = 10


def fnv64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def _one_line(msg):
    return re.sub(r"\s+", " ", msg).strip() or "herd7 printed nothing"


def entry(key, res):
    """The oracle lines of one test from herd7's result (common/herd.py's run())."""
    if "error" in res:
        return ["error %016x %s" % (key, _one_line(res["error"]))]
    if res.get("unrolled"):
        # a loop cut at herd7's unrolling bound: the states it lists may be too few
        return ["error %016x herd7 unrolled a loop, its states may be incomplete: %s" % (key, _one_line(res["unrolled"]))]
    obs = res.get("observation")
    if obs not in ("Never", "Sometimes", "Always"):
        return ["error %016x herd7 printed no observation" % key]
    lines = ["test %016x %s %s %d" % (key, obs, ",".join(res.get("flags") or []) or "-", len(res["states"]))]
    for s in sorted(sorted(st) for st in res["states"]):
        lines.append("state " + " ".join("%s=%s" % kv for kv in s))
    return lines


class Progress:
    """A line on stderr every few seconds while herd7 runs."""

    def __init__(self, total, what, stream=sys.stderr):
        self.total, self.what, self.stream = total, what, stream
        self.done, self.t0, self.last = 0, time.time(), time.time()

    def step(self, H):
        self.done += 1
        now = time.time()
        if now - self.last >= 10 or self.done == self.total:
            self.last = now
            print("katomic litmus: herd7 %s: %d/%d tests (%d run, %d cached) in %.0f s" % (
                self.what, self.done, self.total, H.runs, H.hits, now - self.t0), file=self.stream, flush=True)


def write(files, herd7, libdir, lkmm, cache, out_dir, timeout=TIMEOUT, jobs=None, stream=sys.stderr):
    """Run herd7 with the LKMM on every file; write the oracle; return its path and the counts."""
    H = herdmod.Herd(herd7, libdir, lkmm, cache, timeout=timeout)
    texts = {}
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        texts.setdefault(fnv64(data), data.decode("utf-8", "replace"))
    prog = Progress(len(texts), "with the LKMM of %s" % lkmm, stream)

    def one(key):
        res = H.run(herdmod.lkmm_text(texts[key])[0], source=True, want_observation=True)
        prog.step(H)
        return key, res

    lines, errors = [FORMAT], 0
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs or os.cpu_count() or 2)) as ex:
        for key, res in sorted(ex.map(one, sorted(texts))):
            e = entry(key, res)
            errors += e[0].startswith("error ")
            lines += e
    body = "\n".join(lines) + "\n"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, hashlib.sha256(body.encode()).hexdigest()[:20] + ".oracle")
    if not os.path.isfile(path):
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w") as f:
            f.write(body)
        os.replace(tmp, path)
    return path, {"tests": len(texts), "herd7_runs": H.runs, "cached": H.hits, "not_judged": errors,
                  "seconds": round(time.time() - prog.t0, 1)}


def files_of(runner, rest):
    """The files the runner will read (its own walk of the arguments), those that parse."""
    p = subprocess.run([runner, "--parse-only", "--json"] + rest, capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return None     # the runner's own run will say what is wrong (usage, a missing file)
    return [t["file"] for t in doc["tests"] if t.get("verdict") == "parsed"]


def prepare(runner, rest, judge="auto", herd7=None, lkmm=None, timeout=TIMEOUT, stream=sys.stderr):
    """The runner's extra arguments (["--oracle", FILE] or []) and a note on who judges."""
    if judge == "comment":
        return [], "judged by the tests' Result: comments (--judge comment)"
    try:
        herd, libdir = herdmod.find_herd(herd7)
        lk = herdmod.find_lkmm(lkmm)
    except herdmod.HerdMissing as e:
        if judge == "herd7":
            raise
        return [], "%s: judged by the tests' Result: comments only" % e
    files = files_of(runner, rest)
    if files is None:
        return [], None         # the runner will say what is wrong with the arguments
    if not files:
        return [], "no test parsed: no herd7 oracle"
    path, n = write(files, herd, libdir, lk, herdmod.cache_dir(), os.path.join(herdmod.cache_dir(), "oracles"),
                    timeout=timeout, stream=stream)
    return ["--oracle", path], ("judged by herd7 %s with the LKMM of %s: %d tests, %d herd7 runs, %d cached, "
                                "%d herd7 could not judge, %.0f s" % (herdmod.version(herd), lk, n["tests"],
                                                                      n["herd7_runs"], n["cached"], n["not_judged"],
                                                                      n["seconds"]))
