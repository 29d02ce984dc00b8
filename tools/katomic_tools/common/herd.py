"""herd7: where it is, where the LKMM is, one run read into a set of final
states (or the reason there is none), cached by the hash of what it read.
Shared by `katomic verify` (compiled code vs LKMM) and `katomic litmus`
(herd7 judges what the CPU showed): one cache, build/herd-cache."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import threading
import time

from ..common import herdbatch, paths

HERD_VERSION_MIN = (7, 56)
# Where the LKMM comes from when --lkmm is not given: the first of these found.
LINUX_TARS = ("/usr/src/linux-source-6.12.tar.xz", "/usr/src/linux-source-6.1.tar.xz")


def cache_dir():
    """herd7's results and the extracted LKMMs (the build directory: an installed katomic's is the user's cache)."""
    return os.path.join(paths.build(), "herd-cache")


TIMED_OUT = re.compile(r"herd7 ran over (\d+) s")


class HerdMissing(Exception):
    pass


def find_herd(option=None):
    """(herd7 path, its libdir or None): --herd7, $HERD7, PATH, ../shared/tools/herdtools7."""
    cands = []
    if option:
        cands.append(("--herd7", option))
    if os.environ.get("HERD7"):
        cands.append(("HERD7", os.environ["HERD7"]))
    on_path = shutil.which("herd7")
    if on_path:
        cands.append(("PATH", on_path))
    shared = os.path.join(paths.root(), "..", "shared", "tools", "herdtools7", "bin", "herd7")
    cands.append(("../shared", shared))
    for where, c in cands:
        if os.path.isdir(c):
            c = os.path.join(c, "herd7")
        if os.path.isfile(c) and os.access(c, os.X_OK):
            lib = os.environ.get("HERDLIB")
            guess = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(c))), "libdir")
            if not lib and os.path.isfile(os.path.join(guess, "aarch64.cat")):
                lib = guess
            return os.path.abspath(c), lib
        if where in ("--herd7", "HERD7"):
            raise HerdMissing("%s names %s, which is not an executable herd7" % (where, c))
    raise HerdMissing("herd7 not found (PATH, HERD7=, --herd7; `opam install herdtools7`, "
                      "or build herdtools7 7.58 from source: docs/verify.md)")


def version(herd):
    try:
        out = subprocess.run([herd, "-version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return None
    m = re.search(r"(\d+)\.(\d+)", out)
    return m.group(0) if m else None


def find_lkmm(option=None, tars=LINUX_TARS, cache=None):
    """A folder with linux-kernel.cfg: --lkmm DIR, or tools/memory-model of the first kernel tarball found."""
    cache = cache or cache_dir()
    if option:
        if not os.path.isfile(os.path.join(option, "linux-kernel.cfg")):
            raise HerdMissing("--lkmm %s: no linux-kernel.cfg there" % option)
        return os.path.abspath(option)
    for tar in tars:
        if not os.path.isfile(tar):
            continue
        base = os.path.basename(tar).split(".tar")[0]
        dest = os.path.join(cache, "lkmm", base)
        if os.path.isfile(os.path.join(dest, "memory-model", "linux-kernel.cfg")):
            return os.path.join(dest, "memory-model")
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(tar) as tf:
            members = [m for m in tf.getmembers() if "/tools/memory-model/" in m.name]
            for m in members:
                rel = m.name.split("/tools/", 1)[1]
                m.name = rel
                tf.extract(m, dest)
        if os.path.isfile(os.path.join(dest, "memory-model", "linux-kernel.cfg")):
            return os.path.join(dest, "memory-model")
    raise HerdMissing("no LKMM: install linux-source-6.12 (Debian) or give --lkmm DIR (a kernel's tools/memory-model)")


def _tree_hash(folder, names=None):
    h = hashlib.sha256()
    for n in sorted(os.listdir(folder)):
        p = os.path.join(folder, n)
        if os.path.isfile(p) and (names is None or n.endswith(names)):
            h.update(n.encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


# The kernel spellings herd7's LKMM does not know, read as the ones it does
# (docs/litmus.md "Judged by herd7"): each is the same ordering or a weaker
# one, so the states herd7 allows are at least those the test allows and a
# state outside them is still one the test forbids.
REWRITES = (
    # virt_*: the kernel defines each as its __smp_* barrier
    (re.compile(r"\bvirt_(mb|rmb|wmb|store_mb|store_release|load_acquire)\b"), r"smp_\1"),
    # dma_*: mb()/rmb()/wmb() or the arch's coherent-domain barriers, never weaker than smp_* between CPUs
    (re.compile(r"\bdma_(mb|rmb|wmb)\b"), r"smp_\1"),
    # interrupts are no part of the LKMM: the irq variants of a lock are the lock
    (re.compile(r"\b(?:raw_)?spin_lock(?:_irqsave|_irq|_bh)?\s*\(\s*([^,()]+?)\s*(?:,\s*\w+\s*)?\)"), r"spin_lock(\1)"),
    (re.compile(r"\b(?:raw_)?spin_unlock(?:_irqrestore|_irq|_bh)?\s*\(\s*([^,()]+?)\s*(?:,\s*\w+\s*)?\)"), r"spin_unlock(\1)"),
    (re.compile(r"\braw_spin_trylock\b"), "spin_trylock"),
    # a lock declared in the init block: herd7 knows no size for spinlock_t; LKMM's lock is a word, 0 unlocked
    (re.compile(r"\bspinlock_t\s+(\w+)\s*;"), r"int \1;"),
)
FLAGS_DECL = re.compile(r"\bunsigned\s+long\s+(\w+)\s*;")


def lkmm_text(text, locks=True):
    """The test as herd7's LKMM reads it (REWRITES), and whether it changed.  locks=False leaves
    the lock spellings as they are (herd7 refuses the test): `katomic verify`, whose compiled
    three-thread lock tests of tests/litmus run over herd7's 300 s on every target."""
    out = text
    for pat, repl in REWRITES:
        if locks or "spin" not in pat.pattern:
            out = pat.sub(repl, out)
    # an irqsave's flags word, now unused (herd7's C has no long)
    out = FLAGS_DECL.sub(lambda m: "" if len(re.findall(r"\b%s\b" % m.group(1), out)) == 1 else m.group(0), out)
    return out, out != text


def clean_message(msg):
    """herd7's message without the name of our temporary copy of the test."""
    return re.sub(r'File "[^"]*"(, )?:?\s*', "", msg)


class Herd:
    def __init__(self, herd, libdir, lkmm, cache, unroll=2, timeout=120, slots=0):
        """slots: that many herd7 processes at once, each taking a batch of the tests the callers'
        threads wait for (herdbatch.py); 0: one process per test, in the caller's thread."""
        self.herd, self.libdir, self.lkmm, self.unroll, self.timeout = herd, libdir, lkmm, unroll, timeout
        self.cache = os.path.join(cache, "herd")
        os.makedirs(self.cache, exist_ok=True)
        self.key = hashlib.sha256(("%s %s %s" % (version(herd), _tree_hash(lkmm, (".cat", ".bell", ".def", ".cfg")),
                                                 _tree_hash(libdir, ".cat") if libdir else "-")).encode()).hexdigest()[:16]
        self.runs = self.hits = self.alone = 0
        self.lock = threading.Lock()
        self.batcher = herdbatch.Batcher(self, slots) if slots else None

    @property
    def processes(self):
        """herd7 processes started: one per test run unless batched."""
        return (self.batcher.processes if self.batcher else 0) + self.alone

    # An architecture's test is run with herd7's early pruning of candidates, which only rejects sooner
    # what the model rejects anyway (a compiled three-thread lock test: 25 s -> 0.6 s): -optace true, a
    # read from a po-later write and a co against po-loc (the coherence axiom of all four models);
    # OptRfRMW, two RMWs reading one write (their atomicity axiom).  On X86_64 the first also closes
    # herd7's gap at a locked RMW's own read and write (known.py's probe finds it closed).
    def _arch_opts(self):
        return ["-variant", "telechat,OptRfRMW", "-optace", "true", "-unroll", str(self.unroll)]

    def cmd(self, paths, source, model=None):
        cmd = [self.herd]
        if self.libdir:
            cmd += ["-set-libdir", self.libdir]
        cmd += ["-conf", "linux-kernel.cfg"] if source else self._arch_opts()
        return cmd + (["-model", model] if model else []) + list(paths)

    def model_file(self, base, extra, title):
        """A .cat of herd7's model file `base` (read from its libdir now) with `extra` axioms added,
        written once into the cache; None without a libdir."""
        if not self.libdir or not os.path.isfile(os.path.join(self.libdir, base)):
            return None
        with open(os.path.join(self.libdir, base)) as f:
            body = f.read().split("\n", 1)[1]
        text = "%s\n%s\n%s\n" % (title, body, extra)
        path = os.path.join(self.cache, "model-%s.cat" % hashlib.sha256(text.encode()).hexdigest()[:16])
        if not os.path.isfile(path):
            with open(path + ".tmp%d" % os.getpid(), "w") as f:
                f.write(text)
            os.replace(path + ".tmp%d" % os.getpid(), path)
        return path

    def run(self, text, source, want_observation=False, model=None):
        """States of a test: {"states": [frozenset of (key, value)], "flags": [...], "observation": ...}
        or {"error": msg}.  want_observation: a cached result from before herd7's Observation line was
        kept is run again.  model: a .cat file (model_file()) in place of the architecture's."""
        return self.run_many([text], source, want_observation, model)[0]

    def run_many(self, texts, source, want_observation=False, model=None, all_or_none=False):
        """run() on each text, their results in order: those not cached in one batch when batched.
        all_or_none: the caller needs every one to succeed, so once one fails (an error, an
        unrolling) the ones not started yet are not run: {"error": herdbatch.SKIPPED}."""
        out, miss = [None] * len(texts), []
        for i, text in enumerate(texts):
            # The time limit is not part of the key (the "/300" is the form keys had when it was, kept so
            # those results stay valid): a result is the same whatever the limit; a time-out is run again
            # only under a longer limit.
            h = hashlib.sha256((self.key + ("S%d/300" % self.unroll if source else " ".join(self._arch_opts()))
                                + ("M" + os.path.basename(model) if model else "") + text).encode()).hexdigest()
            out[i] = self._cached(h, want_observation)
            if out[i] is None:
                miss.append((i, h, text))
        if miss:
            if self.batcher:
                got = self.batcher.run([(h, text) for _, h, text in miss], source, model, all_or_none)
            else:
                got = []
                for _, h, text in miss:
                    stop = all_or_none and got and herdbatch.failed(got[-1])
                    got.append({"error": herdbatch.SKIPPED} if stop else self.run_one(h, text, source, model))
            for (i, _, _), res in zip(miss, got):
                out[i] = res
        return out

    def _path(self, h):
        return os.path.join(self.cache, h[:2], h + ".json")

    def _cached(self, h, want_observation):
        cpath = self._path(h)
        if not os.path.isfile(cpath):
            return None
        with open(cpath) as f:
            res = _thaw(json.load(f))
        m = TIMED_OUT.match(res.get("error", ""))
        limit = int(m.group(1)) if m else 0
        if (want_observation and "states" in res and "observation" not in res) or limit and limit < self.timeout:
            return None
        with self.lock:
            self.hits += 1
        return _cleaned(res)     # cached before messages were cleaned

    def over_limit(self):
        """The result of a run killed at the time limit (TIMED_OUT reads the limit back)."""
        return {"error": "herd7 ran over %d s" % self.timeout}

    def count(self, n):
        with self.lock:
            self.runs += n

    @staticmethod
    def parse(out, err):
        return parse_output(out, err)

    def run_one(self, h, text, source, model=None):
        """herd7 on one test in a process of its own, its result cached under h."""
        os.makedirs(os.path.dirname(self._path(h)), exist_ok=True)
        # its own name: two threads (or two runs sharing the cache) may run one test at once
        tpath = os.path.join(self.cache, h[:2], "%s-%d-%d.litmus" % (h[:16], os.getpid(), threading.get_ident()))
        with open(tpath, "w") as f:
            f.write(text)
        self.count(1)
        with self.lock:
            self.alone += 1
        t0 = time.time()
        try:
            p = subprocess.run(self.cmd([tpath], source, model), capture_output=True, text=True, timeout=self.timeout,
                               cwd=self.lkmm if source else None)
            res = parse_output(p.stdout, p.stderr)
            if res.get("error") == "herd7 printed no states" and p.returncode:
                res["error"] = ("herd7 killed by signal %d" % -p.returncode if p.returncode < 0 else
                                "herd7 exited with status %d" % p.returncode) + ", no states printed"
        except subprocess.TimeoutExpired:
            res = self.over_limit()
        res["secs"] = round(time.time() - t0, 2)
        try:
            os.unlink(tpath)
        except OSError:
            pass
        return self.store(h, res)

    def store(self, h, res):
        """res cached under h (a time-out too: its message holds the limit, free until a longer limit is asked)."""
        cpath = self._path(h)
        os.makedirs(os.path.dirname(cpath), exist_ok=True)
        tmp = "%s.%d.%d.tmp" % (cpath, os.getpid(), threading.get_ident())
        with open(tmp, "w") as f:
            json.dump(_freeze(res), f)
        os.replace(tmp, cpath)
        return res


def _cleaned(res):
    for k in ("error", "unrolled"):
        if k in res:
            res[k] = clean_message(res[k])
    return res


def _freeze(res):
    out = dict(res)
    if "states" in out:
        out["states"] = [sorted(s) for s in out["states"]]
    return out


def _thaw(res):
    if "states" in res:
        res["states"] = [frozenset(tuple(kv) for kv in s) for s in res["states"]]
    return res


def parse_output(out, err):
    """herd7's report: its states, its flags (DATARACE & co), its warnings."""
    warnings = [ln.strip() for ln in (err + "\n" + out).splitlines() if ln.startswith("Warning")]
    lines = out.splitlines()
    try:
        k = next(n for n, ln in enumerate(lines) if ln.startswith("States "))
    except StopIteration:
        msg = (warnings[0] if warnings else (err.strip().splitlines() or ["herd7 printed no states"])[0])
        return _cleaned({"error": msg[:300]})
    count = int(lines[k].split()[1])
    states = []
    for ln in lines[k + 1: k + 1 + count]:
        kv = []
        for part in ln.split(";"):
            part = part.strip()
            if not part or "=" not in part:
                continue
            key, val = part.split("=", 1)
            kv.append((key.strip().strip("[]"), _norm_val(val.strip())))
        states.append(frozenset(kv))
    flags = [ln.split()[1] for ln in lines if ln.startswith("Flag ")]
    res = {"states": states, "flags": flags}
    obs = [ln.split()[2] for ln in lines if ln.startswith("Observation ") and len(ln.split()) > 2]
    if obs:
        res["observation"] = obs[0]
    unroll = [w for w in warnings if "unroll" in w.lower()]
    if unroll:
        res["unrolled"] = unroll[0][:300]
    return _cleaned(res)


def _norm_val(v):
    # herd writes an address as x or &x, a number in decimal (or 0x...)
    v = v.lstrip("&")
    try:
        return str(int(v, 0))
    except ValueError:
        return v
