"""katomic verify: prove with herd7 that the compiled atomics keep the kernel's
memory model (LKMM) on each architecture.

For every C litmus test: herd7 with the LKMM gives the final states the
source allows; each thread, compiled with katomic for a target, is read
back from its disassembly into that architecture's litmus test, and herd7
with the architecture's model gives the states the compiled code allows.
A compiled state the LKMM forbids is WEAKER (a defect); LKMM states the
code never reaches are "stronger" (a cost).  docs/verify.md has the method.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

from ..common import documents, paths
from ..common import herd as herdmod, herdbatch
from . import isa as isas
from . import known as knownmod
from . import kernel_layer, listing, locksplit, normal, slowpath, translate, units

# A test that calls these is not judged: the LKMM's RCU is more than the compiled code's barriers.
RCU_CALLS = re.compile(r"\b(synchronize_rcu|synchronize_rcu_expedited|synchronize_srcu|synchronize_srcu_expedited|"
                       r"srcu_read_lock|srcu_read_unlock|srcu_down_read|srcu_up_read|call_rcu)\b")
DEP_HINT = re.compile(r"(addr|data|ctrl|deref|dep)", re.I)
# A dependency through arithmetic that cancels (r0 - r0, r0 ^ r0, r0 & 0): C lets a compiler fold
# it to a constant, so no C implementation keeps it (the kernel's rcu_dereference.rst forbids it).
CANCELS = re.compile(r"\b([A-Za-z_]\w*)\s*(?:-|\^)\s*\1\b|&\s*0\b|\*\s*0\b")
# an if/else (no nested braces) and the stores of each branch
IF_ELSE = re.compile(r"\bif\s*\((?:[^()]|\([^()]*\))*\)\s*\{([^{}]*)\}\s*else\s*\{([^{}]*)\}")
STORE = re.compile(r"^(WRITE_ONCE|smp_store_release|atomic_set)\s*\(")


def _same_store_both_ways(bodies):
    """A store that both branches of an if/else make: the compiler may merge the two and hoist it
    out of the if, and with it goes the control dependency (memory-barriers.txt, CONTROL
    DEPENDENCIES); the LKMM keeps it (the corpus's LB-ctls-bothvals-a says so)."""
    for m in IF_ELSE.finditer(bodies):
        a, b = ({"".join(x.split()) for x in br.split(";") if STORE.match(x.strip())} for br in m.groups())
        if a & b:
            return True
    return False


def main(argv=None):
    ap = argparse.ArgumentParser(prog="katomic verify", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="litmus files or folders (default: the kernel's "
                    "tools/memory-model/litmus-tests from linux-source-6.12, and tests/litmus)")
    ap.add_argument("--target", default=",".join(units.DEFAULT_TARGETS),
                    help="targets, comma-separated: %s" % ", ".join(t.name for t in units.TARGETS))
    ap.add_argument("--cc", default="gcc,clang", help="compilers: gcc and/or clang[-N] (default gcc,clang)")
    ap.add_argument("--layer", default="lib", help="lib (include/katomic), kernel (the C11 kernel layer), or both")
    ap.add_argument("--backend", default="both", help="c11, asm (the x86-64 reference, library layer only), both (default), or c11,asm")
    ap.add_argument("--mutate", default=None, help="build with a weakened mapping: %s" % ", ".join(units.MUTATIONS))
    ap.add_argument("--herd7", default=None, help="the herd7 binary (default: $HERD7, PATH, ../shared/tools/herdtools7)")
    ap.add_argument("--lkmm", default=None, help="a kernel's tools/memory-model (default: from linux-source-6.12)")
    ap.add_argument("--out", default=None, help="write verify.json (and the herd tests of every WEAKER) here")
    ap.add_argument("--json", action="store_true", help="verify.json on stdout")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--unroll", type=int, default=2, help="herd7 -unroll for loops that store (default 2)")
    ap.add_argument("--herd-timeout", type=int, default=300, help="seconds one herd7 run may take (default 300; "
                    "a test over it is not judged)")
    ap.add_argument("--give-up-after", type=int, default=2, metavar="N",
                    help="a test herd7 ran over its limit on N configurations is not run on the others (default 2; "
                    "0: run every one)")
    ap.add_argument("--lock-split", default="auto", choices=("auto", "always", "never"),
                    help="auto: a lock test herd7 cannot finish whole, or of 5 or more critical sections, is judged by "
                    "the lock-order split; always: "
                    "every test the split takes is judged by it (to compare the two: docs/verify.md); never: whole "
                    "tests only")
    ap.add_argument("--no-lean", action="store_true",
                    help="translate without the rewrites that only make herd7 faster (lean.py: dead register "
                    "moves, aarch64's cmp/b.ne as cbnz), to compare the two (make check-verify does)")
    ap.add_argument("--no-normal", action="store_true",
                    help="run herd7 on each compiled test as translated, not on its normal form (normal.py: one "
                    "run for tests that differ only in register and label names), to compare the two")
    ap.add_argument("--expect-weaker", default=None, metavar="TESTS",
                    help="exit 0 only if each named test (comma-separated) is WEAKER somewhere (mutation checks)")
    ap.add_argument("--slowpath", action="store_true",
                    help="prove the lock's slow path an acquire and its unlock a release (slowpath.py); --mutate "
                    "takes %s there" % ", ".join(slowpath.MUTATIONS))
    ap.add_argument("-v", "--verbose", action="store_true", help="print every test's judgement")
    a = ap.parse_args(argv)
    translate.LEAN = not a.no_lean
    normal.NORMAL = not a.no_normal

    out = sys.stderr if a.json else sys.stdout
    # options first: a wrong one is an error with or without herd7
    if a.mutate and not a.slowpath and a.mutate not in units.MUTATIONS:
        print("katomic verify: unknown mutation '%s' (%s)" % (a.mutate, ", ".join(units.MUTATIONS)), file=sys.stderr)
        return 2
    targets = []
    for name in [t for t in a.target.split(",") if t]:
        if name not in units.BY_NAME:
            print("katomic verify: unknown target '%s' (%s)" % (name, ", ".join(units.BY_NAME)), file=sys.stderr)
            return 2
        targets.append(units.BY_NAME[name])
    layers = ["lib", "kernel"] if a.layer == "both" else [a.layer]
    for layer in layers:
        if layer not in ("lib", "kernel"):
            print("katomic verify: unknown layer '%s' (lib, kernel, both)" % layer, file=sys.stderr)
            return 2
    backends = ["c11", "asm"] if a.backend == "both" else [b for b in a.backend.split(",") if b]
    for be in backends or [""]:
        if be not in ("c11", "asm"):
            print("katomic verify: unknown backend '%s' (c11, asm, both)" % be, file=sys.stderr)
            return 2
    for s in a.paths:
        if not os.path.exists(s):
            print("katomic verify: %s: no such file or folder" % s, file=sys.stderr)
            return 2
    try:
        herd7, libdir = herdmod.find_herd(a.herd7)
    except herdmod.HerdMissing as e:
        print("katomic verify: SKIP: %s" % e, file=out)
        return 3
    cache = os.path.join(paths.build(), "verify-cache")
    try:
        lkmm = herdmod.find_lkmm(a.lkmm)
    except herdmod.HerdMissing as e:
        print("katomic verify: SKIP: %s" % e, file=out)
        return 3
    if a.slowpath:
        return _slowpath(a, herd7, libdir, lkmm, out)
    ours = os.path.join(paths.root(), "tests", "litmus")
    sources = a.paths or ([os.path.join(lkmm, "litmus-tests")] +
                          sorted(os.path.join(ours, f) for f in os.listdir(ours) if f.endswith(".litmus")))

    t0 = time.time()
    _remove_stale_units(cache)
    work = os.path.join(cache, "units-%d" % os.getpid())
    litmus_bin = _litmus_binary()
    tests_json, emit_err = units.emit(sources, work, litmus_bin)
    for line in emit_err.splitlines():
        print("katomic verify: %s" % line, file=sys.stderr)     # a malformed file: its one-line error
    with open(tests_json) as f:
        tests = json.load(f)
    for t in tests:
        t["_dir"] = work
    H = herdmod.Herd(herd7, libdir, lkmm, herdmod.cache_dir(), unroll=a.unroll, timeout=a.herd_timeout,
                     slots=max(1, a.jobs))
    K = knownmod.Known(H)
    print("katomic verify: %d tests; herd7 %s (%s); LKMM %s; %s" % (
        len(tests), herdmod.version(herd7), herd7, lkmm, "mutation " + a.mutate if a.mutate else "no mutation"),
        file=out)

    # 1. the source verdicts
    # more threads than herd7 processes: while they wait for herd7, others translate and queue the
    # next tests, so each herd7 process gets a batch (herdbatch.py)
    pool = concurrent.futures.ThreadPoolExecutor(8 * max(1, a.jobs))
    src = {}
    futs = {}
    for k, t in enumerate(tests):
        if "error" in t:
            src[k] = {"not_judged": "malformed: %s" % t["error"]}
            continue
        futs[pool.submit(_source_verdict, H, t)] = k
    for fu in concurrent.futures.as_completed(futs):
        src[futs[fu]] = fu.result()
    print("katomic verify: LKMM states of %d tests in %.0f s (%d not judged at the source)" % (
        len(tests), time.time() - t0, sum(1 for v in src.values() if v.get("not_judged"))), file=out, flush=True)

    # 2. the compiled verdicts, per target x compiler x layer x backend
    comp = Compiler(cache, work)
    configs, notes = [], []
    for tg in targets:
        if not tg.isa:
            notes.append("%s: not judged: %s" % (tg.name, tg.why_not))
            continue
        objdump = units.objdump_for(tg)
        if not objdump:
            notes.append("%s: skipped: no objdump for %s (apt-get install binutils-%s)" % (tg.name, tg.triple, tg.triple))
            continue
        for cc in [c for c in a.cc.split(",") if c]:
            argv, label = units.compiler(tg, cc)
            if argv is None:
                notes.append("%s/%s: skipped: %s" % (tg.name, cc, label))
                continue
            for layer in layers:
                if layer == "kernel" and not _kernel_layer_ready(tg):
                    notes.append("%s/%s/kernel: skipped: the kernel layer has no C11 form for %s" % (tg.name, cc, tg.name))
                    continue
                for be in backends:
                    if be == "asm" and (tg.name != "x86_64" or layer != "lib"):
                        continue
                    configs.append((tg, cc, argv, objdump, layer, be))
    for n in notes:
        print("note: " + n, file=out)

    # compile each configuration's units in batches first (one header parse per batch), a compiler
    # per CPU
    cpool, pre, heads = concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)), [], {}
    for ci, (tg, cc, argv, objdump, layer, be) in enumerate(configs):
        head = heads[ci] = units.head_text(tg, layer, a.mutate)
        texts = []
        for k, t in enumerate(tests):
            if src[k].get("not_judged"):
                continue
            with open(os.path.join(t["_dir"], t["unit"])) as f:
                texts.append(f.read())
        flags = ["-DKATOMIC_BACKEND_ASM"] if be == "asm" else []
        extra = kernel_layer.include_dirs(tg.isa) if layer == "kernel" else ()
        for b in range(0, len(texts), 48):
            pre.append(cpool.submit(comp.prefetch, argv + flags, objdump, texts[b:b + 48], head,
                                   os.path.join(work, "batch-%d-%d" % (ci, b)), extra))
    for fu in concurrent.futures.as_completed(pre):
        fu.result()
    cpool.shutdown()
    print("katomic verify: compiled for %d configurations in %.0f s" % (len(configs), time.time() - t0), file=out,
          flush=True)

    jobs, gave_up = {}, GiveUp(a.give_up_after)
    for ci, (tg, cc, argv, objdump, layer, be) in enumerate(configs):
        for k, t in enumerate(tests):
            if src[k].get("not_judged"):
                continue
            jobs[pool.submit(gave_up.run, k, t, a.lock_split, _compiled_verdict, H, K, comp, tg, argv, objdump, layer, be, heads[ci],
                             t, src[k], os.path.join(work, "c%d-%d" % (ci, k)))] = (ci, k)
    per = {}
    for fu in concurrent.futures.as_completed(jobs):
        ci, k = jobs[fu]
        try:
            per[(ci, k)] = fu.result()
        except Exception as e:     # the verifier's own fault: counted as an error, never a pass
            per[(ci, k)] = {"name": tests[k]["name"], "path": tests[k]["path"], "verdict": "not judged",
                            "reason": "verifier error: %s: %s" % (type(e).__name__, e), "error": True}
    pool.shutdown()

    shutil.rmtree(work, ignore_errors=True)
    doc = _document(a, tests, src, configs, per, notes, herd7, lkmm, time.time() - t0, H, comp)
    _print(doc, out, a.verbose)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        documents.write(os.path.join(a.out, "verify.json"), doc)
        for c in doc["configs"]:
            for r in c["tests"]:
                if r["verdict"] == "WEAKER":
                    name = "%s-%s-%s-%s-%s.litmus" % (c["target"], c["cc"], c["layer"], c["backend"], r["name"])
                    with open(os.path.join(a.out, re.sub(r"[^A-Za-z0-9+_.-]", "_", name)), "w") as f:
                        f.write(r.get("herd_test", ""))
    if a.json:
        print(documents.dumps(doc))
    if a.expect_weaker:
        want = [w for w in a.expect_weaker.split(",") if w]
        seen = {r["name"] for c in doc["configs"] for r in c["tests"] if r["verdict"] == "WEAKER"}
        missing = [w for w in want if w not in seen]
        if missing:
            print("katomic verify: mutation %s went unseen on: %s" % (a.mutate, ", ".join(missing)), file=out)
            return 1
        print("katomic verify: mutation %s seen (WEAKER) on every named test: %s" % (a.mutate, ", ".join(want)), file=out)
        return 0
    total = doc["totals"]
    if total["error"]:
        return 2
    return 1 if total["weaker"] and not a.mutate else 0


def _slowpath(a, herd7, libdir, lkmm, out):
    """katomic verify --slowpath: slowpath.py's proofs, per target x compiler."""
    if a.mutate and a.mutate not in slowpath.MUTATIONS:
        print("katomic verify --slowpath: unknown mutation '%s' (%s)" % (a.mutate, ", ".join(slowpath.MUTATIONS)),
              file=sys.stderr)
        return 2
    t0 = time.time()
    cache = os.path.join(paths.build(), "verify-cache")
    inc = slowpath.patched_include(paths.root(), cache, a.mutate) if a.mutate else os.path.join(paths.root(), "include")
    comp = units.Compiler(cache, inc)
    H = herdmod.Herd(herd7, libdir, lkmm, herdmod.cache_dir(), unroll=a.unroll, timeout=a.herd_timeout)
    configs, notes = [], []
    for name in [t for t in a.target.split(",") if t]:
        tg = units.BY_NAME.get(name)
        if tg is None or not tg.isa or not units.objdump_for(tg):
            notes.append("%s: not judged (%s)" % (name, tg.why_not if tg else "unknown target"))
            continue
        for cc in [c for c in a.cc.split(",") if c]:
            argv, label = units.compiler(tg, cc)
            if argv is None:
                notes.append("%s/%s: skipped: %s" % (name, cc, label))
                continue
            configs.append((tg, cc, argv, units.objdump_for(tg), units.head_text(tg, "lib", None), comp))
    for n in notes:
        print("note: " + n, file=out)
    recs = slowpath.run(H, None, configs, cache)
    slowpath.show(recs, out)
    doc = {"schema": "katomic-verify", "version": 1, "tool": "katomic verify", "herd7": herdmod.version(herd7),
           "lkmm": lkmm, "mutation": a.mutate, "tests": 0, "configs": [], "notes": notes,
           "totals": {"judged": 0, "weaker": 0, "stronger": 0, "not_judged": 0, "error": 0, "dependency_folded": 0},
           "seconds": round(time.time() - t0, 1), "herd_runs": H.runs, "herd_cached": H.hits,
           "compiles": comp.runs, "compiles_cached": comp.hits, "slowpath": recs}
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        documents.write(os.path.join(a.out, "verify-slowpath.json"), doc)
    if a.json:
        print(documents.dumps(doc))
    weaker = {"slowpath": any(r["verdict"] == "WEAKER" for r in recs),
              "unlock": any(r["unlock"]["verdict"] == "WEAKER" for r in recs)}
    if a.expect_weaker:
        missing = [w for w in a.expect_weaker.split(",") if w and not weaker.get(w)]
        print("katomic verify --slowpath: mutation %s %s" % (a.mutate, "went unseen on: " + ", ".join(missing)
                                                              if missing else "seen (WEAKER)"), file=out)
        return 1 if missing else 0
    return 1 if any(weaker.values()) else 0


class Compiler(units.Compiler):
    def __init__(self, cache, work):
        root = paths.root()
        super().__init__(cache, os.path.join(root, "include"),
                         [os.path.join(root, "tools", "kernel", "generated"), os.path.join(root, "tests", "kernel")])


def _remove_stale_units(cache):
    """The work folders of runs that were killed (their process is gone): they are never reused."""
    try:
        names = os.listdir(cache)
    except OSError:
        return
    for n in names:
        if n.startswith("units-") and paths.gone(n[6:]):
            shutil.rmtree(os.path.join(cache, n), ignore_errors=True)


def _kernel_layer_ready(tg):
    return kernel_layer.header(tg.isa) is not None


def _litmus_binary():
    b = os.path.join(paths.build(), "katomic-litmus")
    if not os.path.isfile(b):
        subprocess.run(["make", "-s", "-C", paths.root(), "BUILD=" + paths.build(), "litmus"], check=True,
                       stdout=subprocess.DEVNULL)
    return b


def _source_verdict(H, t):
    with open(t["path"]) as f:
        text = f.read()
    bodies = " ".join(th["body"] for th in t["threads"])
    m = RCU_CALLS.search(bodies)
    if m:
        return {"not_judged": "RCU/SRCU: %s" % m.group(1)}
    if t.get("not_taken"):
        return {"not_judged": t["not_taken"]}
    res = H.run(herdmod.lkmm_text(text, locks=False)[0], source=True)
    if "error" in res:
        return {"not_judged": "herd7 (LKMM): %s" % res["error"]}
    if "DATARACE" in [f.upper() for f in res.get("flags", [])] or any("data-race" in f.lower() for f in res.get("flags", [])):
        return {"not_judged": "LKMM flags a data race: the compiled code's behaviour is undefined", "flags": res["flags"]}
    if not res["states"]:
        return {"not_judged": "LKMM allows no execution (herd7 found no state)"}
    return {"states": res["states"], "flags": res.get("flags", [])}


class GiveUp:
    """A test herd7 ran over its time limit (or out of memory) on `after` configurations is not run
    whole on the rest: the corpus's four-thread lock tests take herd7 more than 15 minutes and 11 GB
    each on every target (docs/verify.md), so their every configuration would cost the whole limit.
    A test the lock-order split takes (locksplit.py) goes to it directly; any other is not run.  The
    jobs are queued configuration by configuration, so a test's first configurations are the ones run."""

    TOO_BIG = ("herd7 time limit", "herd7 gave up (memory or stack)")
    # --lock-split auto sends a test of this many critical sections to the split without a whole run:
    # none of the corpus's lock tests with 5 or more (81 of its 90 the split takes: three threads with
    # 5 or 6 sections, four with 6 to 8) finished whole within 10 s on any configuration measured, and
    # the kernel's and tests/litmus's have at most 3 (docs/verify.md)
    SPLIT_AT_ONCE = 5

    def __init__(self, after):
        self.after, self.timeouts, self.lock = after, collections.Counter(), threading.Lock()
        self.splits = {}

    def _splits(self, t):
        """The test's critical sections when the split takes it, else 0."""
        if t["path"] not in self.splits:
            try:
                with open(t["path"]) as f:
                    text = f.read()
                locksplit.split(text)
                self.splits[t["path"]] = locksplit.sections(text)
            except (locksplit.NotSplit, OSError):
                self.splits[t["path"]] = 0
        return self.splits[t["path"]]

    def run(self, k, t, split, fn, *args):
        """split: --lock-split (auto, always, never)."""
        whole = not (split == "always" and self._splits(t)
                     or split == "auto" and self._splits(t) >= self.SPLIT_AT_ONCE)
        with self.lock:
            if whole and self.after and self.timeouts[k] >= self.after:
                if split == "never" or not self._splits(t):
                    return {"name": t["name"], "path": t["path"], "verdict": "not judged",
                            "reason": "herd7 ran over its limit on %d other configurations of this test: not run"
                            % self.after}
                whole = False
        rec = fn(*args, whole=whole, split=split != "never")
        if _reason_class(rec.get("reason", "")) in self.TOO_BIG or rec.get("lock_orders"):
            with self.lock:
                self.timeouts[k] += 1
        return rec


def _compiled_verdict(H, K, comp, tg, argv, objdump, layer, be, head, t, s, workdir, whole=True, split=True):
    isa = isas.ISAS[tg.isa]
    rec = {"name": t["name"], "path": t["path"]}
    why = kernel_layer.outside(t) if layer == "kernel" else None
    if why:
        rec.update(verdict="not judged", reason=why)
        return rec
    for th in t["threads"]:
        # each observed register leaves in a caller-saved register no argument arrives in
        free = units.out_regs(isa, len(th["args"]), len(th["observed"]))
        if len(free) < len(th["observed"]):
            rec.update(verdict="not judged", reason="more observed registers than free caller-saved registers: "
                       "P%d has %d, %s has %d beside %d arguments" % (th["id"], len(th["observed"]), tg.isa,
                                                                      len(free), len(th["args"])))
            return rec
    if whole:
        runs = _herd_one(H, comp, isa, argv, objdump, layer, be, head, t, os.path.join(t["_dir"], t["unit"]), workdir)
    else:
        runs = {"reason": "herd7 ran over its limit on other configurations of this test: not run whole"}
    if "reason" in runs and split and (not whole or _reason_class(runs["reason"]) in GiveUp.TOO_BIG):
        runs = _herd_split(H, comp, isa, argv, objdump, layer, be, head, t, workdir, runs)
    rec["notes"] = runs.get("notes", [])
    if "reason" in runs:
        rec.update(verdict="not judged", reason=runs["reason"])
        rec.update({k: runs[k] for k in ("listing", "herd_test") if k in runs})
        return rec
    srcstates = s["states"]
    keys = set(k for st in srcstates for k, _ in st)
    per = [(r, _project(r["states"], r["keymap"], keys)) for r in runs["runs"]]
    cstates = set().union(*(c for _, c in per))
    if not cstates:
        rec.update(verdict="not judged", reason="no execution of the compiled code is left (all filtered)",
                   herd_test=runs["runs"][0]["text"])
        return rec
    weaker = sorted(_fmt(st) for st in cstates - set(srcstates))
    stronger = sorted(_fmt(st) for st in set(srcstates) - cstates)
    rec.update(verdict="WEAKER" if weaker else "ok", weaker=weaker, stronger=stronger,
               states=len(cstates), lkmm_states=len(srcstates))
    if runs.get("orders"):
        rec["lock_orders"] = runs["orders"]
    bodies = " ".join(th["body"] for th in t["threads"])
    if DEP_HINT.search(t["name"]) or CANCELS.search(bodies):
        rec["dependency"] = "kept" if not weaker else "lost"
    if weaker:
        models = set()
        for r, c in per:
            if not c - set(srcstates):
                continue
            rec.setdefault("herd_test", r["text"])
            rec.setdefault("listing", _listing(r["funcs"]))
            def still_weaker(patched, model=None, keymap=r["keymap"]):
                r2 = H.run(patched, source=False, model=model)
                return "states" not in r2 or bool(_project(r2["states"], keymap, keys) - set(srcstates))
            models.add(K.explains(isa.name, "\n".join(i.text for insns in r["funcs"].values() for i in insns),
                                  r["text"], still_weaker))
        model = models.pop() if len(models) == 1 else None
        if model:
            rec.update(verdict="not judged", reason=model)
        elif CANCELS.search(bodies):
            rec["cause"] = "a dependency through arithmetic that cancels: the compiler folds it (C keeps no such dependency)"
        elif _same_store_both_ways(bodies):
            rec["cause"] = ("a control dependency to a store both branches make: the compiler hoists it out of the "
                            "if (memory-barriers.txt; C keeps no such dependency, the LKMM does)")
    return rec


def _herd_one(H, comp, isa, argv, objdump, layer, be, head, t, unit_path, workdir, orders=None, swap="swap"):
    """herd7 on one compiled test: {"runs": [{states, text, keymap, funcs}], "notes"}, or {"reason", ...}.
    orders: the lock-order split's (locksplit.split), one herd7 test each from the one compiled unit."""
    try:
        with open(unit_path) as f:
            unit = f.read()
        flags = ["-DKATOMIC_BACKEND_ASM"] if be == "asm" else []
        dis = comp.disassemble(argv + flags, objdump, unit, head, workdir,
                               kernel_layer.include_dirs(isa.name) if layer == "kernel" else ())
    except (RuntimeError, OSError) as e:
        return {"reason": str(e)}
    funcs = listing.parse(dis)
    out_regs = {th["id"]: units.out_regs(isa, len(th["args"]), len(th["observed"])) for th in t["threads"]}
    todo = [locksplit.order_test(t, where, init) for where, init in orders] if orders else [t]
    memo = {}

    def attempt(tests, widen):
        """Each test translated and run (herd7 on them at once), up to the first the translator does
        not take: [(text, notes, keymap, result)], that one's NotTaken last."""
        got = []
        for tn in tests:
            try:
                got.append(translate.litmus(isa, tn, funcs, out_regs, widen=widen, lock_swap=orders and swap, memo=memo))
            except isas.NotTaken as e:
                got.append(e)
                break
        # all or none: the orders' first failure is the test's, the rest need not run
        res = normal.run_many(H, isa, [g[0] for g in got if not isinstance(g, isas.NotTaken)], all_or_none=True) + [None]
        return [g if isinstance(g, isas.NotTaken) else g + (r,) for g, r in zip(got, res)]

    # herd7's mixed-size mode is minutes per test: where it refuses the test, sub-word accesses at
    # their 32-bit width instead, exact while no store puts a non-zero byte above the sub-word
    # (docs/verify.md); from that order on for the split's next orders too (the same code).  The
    # first order runs alone: it tells whether the rest need the widening, and an order herd7 cannot
    # take usually shows there already, before the others are run.
    can_widen = any(isa.widen(i.mnem) for insns in funcs.values() for i in insns)
    got, widen, runs, notes, n = attempt(todo[:1], False), False, [], set(), 0
    while n < len(got):
        if isinstance(got[n], isas.NotTaken):
            return {"reason": str(got[n]), "listing": _listing(funcs)}
        text, tnotes, keymap, res = got[n]
        if herdbatch.skipped(res):
            # not run because a later order failed: that one is the test's reason, unless it only
            # asks for the widening, whose rule needs every order before it run as it is (or none
            # did: the text was another test's too, skipped for that one's failure): run them again
            def stops(g):
                return isinstance(g, isas.NotTaken) or herdbatch.failed(g[3]) and not herdbatch.skipped(g[3])
            k = next((k for k in range(n + 1, len(got)) if stops(got[k])), None)
            if k is not None and (isinstance(got[k], isas.NotTaken) or
                                  not ("error" in got[k][3] and can_widen and not widen)):
                n = k
            else:
                got[n:] = attempt(todo[n:], widen)
            continue
        if "error" in res and can_widen and not widen:
            widen = True
            got[n:] = attempt(todo[n:], True)
            continue
        notes.update(tnotes)
        at = " (the lock-order split, order %d of %d)" % (n + 1, len(orders)) if orders else ""
        if "error" in res:
            return {"reason": "herd7 (%s)%s: %s" % (isa.herd_arch, at, res["error"]), "herd_test": text,
                    "notes": sorted(notes)}
        if res.get("unrolled"):
            return {"reason": "herd7%s: %s" % (at, res["unrolled"]), "herd_test": text, "notes": sorted(notes)}
        runs.append({"states": res["states"], "text": text, "keymap": keymap, "funcs": funcs})
        n += 1
        if n == len(got) < len(todo):
            got += attempt(todo[n:], widen)
    return {"runs": runs, "notes": sorted(notes)}


def _herd_split(H, comp, isa, argv, objdump, layer, be, head, t, workdir, whole):
    """The lock-order split (locksplit.py) of a test herd7 could not finish whole: every order's
    runs, or the whole test's reason when the split does not take it."""
    try:
        with open(t["path"]) as f:
            text = f.read()
        generic, orders = locksplit.split(text)
    except (locksplit.NotSplit, OSError):
        return whole
    vdir = os.path.join(workdir, "split")
    os.makedirs(vdir, exist_ok=True)
    path = os.path.join(vdir, "generic.litmus")
    with open(path, "w") as f:
        f.write(generic)
    try:
        tests_json, err = units.emit([path], vdir, _litmus_binary())
        with open(tests_json) as f:
            vtests = json.load(f)
    except (RuntimeError, OSError, ValueError) as e:
        return dict(whole, reason="%s; the lock-order split: %s" % (whole["reason"], e))
    if len(vtests) != 1 or "error" in vtests[0]:
        why = vtests[0]["error"] if vtests else (err.strip() or "not emitted")
        return dict(whole, reason="%s; the lock-order split: %s" % (whole["reason"], why))
    one = _herd_one(H, comp, isa, argv, objdump, layer, be, head, vtests[0], os.path.join(vdir, vtests[0]["unit"]),
                    os.path.join(workdir, "generic"), orders, "plain" if locksplit.plain_rmw(text) else "swap")
    if "runs" in one:
        one["notes"] = sorted(set(one["notes"]) | {
            "lock-order split: one herd7 test per order of the critical sections, the union of their states "
            "(an over-approximation: docs/verify.md)"})
        one["orders"] = len(orders)
    return one


def _project(states, keymap, keys):
    """Compiled states in the source's names, on the source's observed locations."""
    out = set()
    for st in states:
        d = {}
        for k, v in st:
            if k in keymap:
                d[keymap[k]] = v
            elif k in keys:
                d[k] = v
        out.add(frozenset((k, v) for k, v in d.items() if k in keys))
    return out


def _listing(funcs):
    return {name: [i.text for i in insns] for name, insns in sorted(funcs.items())}


def _fmt(st):
    return " ".join("%s=%s;" % kv for kv in sorted(st))


def _document(a, tests, src, configs, per, notes, herd7, lkmm, secs, H, comp):
    cfgs = []
    tot = {"weaker": 0, "dependency_folded": 0, "stronger": 0, "judged": 0, "not_judged": 0, "error": 0}
    for ci, (tg, cc, argv, objdump, layer, be) in enumerate(configs):
        rows = []
        for k, t in enumerate(tests):
            if src[k].get("not_judged"):
                rows.append({"name": t.get("name", os.path.basename(t["path"])), "path": t["path"],
                             "verdict": "not judged", "reason": src[k]["not_judged"], "source": True})
                continue
            rows.append(per[(ci, k)])
        judged = [r for r in rows if r["verdict"] in ("ok", "WEAKER")]
        reasons = {}
        for r in rows:
            if r["verdict"] == "not judged":
                key = _reason_class(r["reason"])
                reasons[key] = reasons.get(key, 0) + 1
        c = {"target": tg.name, "cc": cc, "compiler": comp.version(argv[0]), "layer": layer, "backend": be,
             "tests": rows, "judged": len(judged),
             "weaker": sum(r["verdict"] == "WEAKER" and not r.get("cause") for r in rows),
             "dependency_folded": sum(r["verdict"] == "WEAKER" and bool(r.get("cause")) for r in rows),
             "stronger": sum(1 for r in judged if r.get("stronger")),
             "lock_split": sum(1 for r in judged if r.get("lock_orders")),
             "not_judged": len(rows) - len(judged), "reasons": reasons,
             "dependencies": {"kept": sum(r.get("dependency") == "kept" for r in rows),
                              "lost": sum(r.get("dependency") == "lost" for r in rows)}}
        cfgs.append(c)
        tot["weaker"] += c["weaker"]
        tot["dependency_folded"] += c["dependency_folded"]
        tot["judged"] += c["judged"]
        tot["not_judged"] += c["not_judged"]
        tot["error"] += sum(1 for r in rows if r.pop("error", False))
        tot["stronger"] += c["stronger"]
    return {"schema": "katomic-verify", "version": 1, "tool": "katomic verify", "herd7": herdmod.version(herd7), "lkmm": lkmm,
            "mutation": a.mutate, "tests": len(tests), "configs": cfgs, "notes": notes, "totals": tot,
            "seconds": round(secs, 1), "herd_runs": H.runs, "herd_processes": H.processes, "herd_cached": H.hits,
            "compiles": comp.runs, "compiles_cached": comp.hits}


def _reason_class(reason):
    for pat, name in ((r"RCU/SRCU", "RCU/SRCU"), (r"data race", "data race (LKMM)"), (r"out-of-line call", "call"),
                      (r"unroll", "unrolling limit"), (r"herd7 ran over", "herd7 time limit"),
                      (r"Fatal:.*Adios|Stack.overflow|[Oo]ut.of.memory", "herd7 gave up (memory or stack)"),
                      (r"herd7 \(LKMM\)", "herd7 LKMM error"),
                      (r"herd7 \(", "instruction herd7 does not take"), (r"stack access", "stack"),
                      (r"does not compile", "does not compile"), (r"malformed", "malformed"),
                      (r"more observed registers", "more observed registers than free registers"),
                      (r"not part of the kernel C11 layer", "the architecture's own (not the C11 layer's)")):
        if re.search(pat, reason):
            return name
    return reason[:60]


def _print(doc, out, verbose):
    for c in doc["configs"]:
        label = "%s/%s/%s%s" % (c["target"], c["cc"], c["layer"], "/asm" if c["backend"] == "asm" else "")
        reasons = ", ".join("%s %d" % kv for kv in sorted(c["reasons"].items()))
        print("%-30s judged %3d%s  WEAKER %d  dep-folded %d  stronger %3d  deps kept %d/%d  not judged %3d%s" % (
            label, c["judged"], " (%d split)" % c["lock_split"] if c.get("lock_split") else "", c["weaker"], c["dependency_folded"], c["stronger"], c["dependencies"]["kept"],
            c["dependencies"]["kept"] + c["dependencies"]["lost"], c["not_judged"],
            " (%s)" % reasons if reasons else ""), file=out)
        for r in c["tests"]:
            if r["verdict"] == "WEAKER" and r.get("cause"):
                print("  WEAKER (dependency folded by the compiler) %s: compiled code allows %s" % (
                    r["name"], "; ".join(r["weaker"])), file=out)
            elif r["verdict"] == "WEAKER":
                print("  WEAKER %s (%s): compiled code allows %s" % (r["name"], label, "; ".join(r["weaker"])), file=out)
                for fn, lines in r.get("listing", {}).items():
                    print("    %s: %s" % (fn, " | ".join(lines)), file=out)
            elif verbose:
                print("  %-10s %s%s" % (r["verdict"], r["name"], " -- " + r["reason"] if r.get("reason") else ""),
                      file=out)
    t = doc["totals"]
    print("katomic verify: %d judged, %d WEAKER, %d dependency folded, %d stronger, %d not judged (%.0f s; herd7 runs %d "
          "in %d processes, cached %d; compiles %d, cached %d)" % (
              t["judged"], t["weaker"], t["dependency_folded"], t["stronger"], t["not_judged"], doc["seconds"],
              doc["herd_runs"], doc.get("herd_processes", doc["herd_runs"]), doc["herd_cached"], doc["compiles"],
              doc["compiles_cached"]), file=out)


if __name__ == "__main__":
    sys.exit(main())
