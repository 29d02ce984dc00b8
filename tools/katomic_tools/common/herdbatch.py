"""herd7 runs many tests in one process: the queue the callers' threads fill and the readers that
empty it.  Starting herd7 (and reading its model files) costs about 50 ms; half of the corpus
share's 21,000 runs take less than 0.25 s, so one process per test spent a seventh of the herd7 time
starting (docs/verify.md).  herd7 takes a list of files and answers them in order, each report
flushed when it is done, so a reader sees every test end and can hold each to the time limit.

What a batch cannot tell exactly is run again alone, the way Herd.run_one always ran a test: a test
with no report that herd7 did not refuse in so many words (it died on it, or an earlier test's death
took it), so its error is the one a run of its own gives."""
import collections
import os
import re
import selectors
import subprocess
import threading
import time

from . import paths

FILE = re.compile(r'File "([^"]*)"')


# The result of a test not run because another of its group failed first (never cached)
SKIPPED = "not run: another test of its group failed first"


def failed(res):
    """A result that ends a group (an all-or-none caller's tests): no states to use."""
    return "error" in res or bool(res.get("unrolled"))


def skipped(res):
    """A result that says the test was not run (SKIPPED): it failed nothing itself."""
    return res is not None and res.get("error") == SKIPPED


class _Group:
    """Tests whose caller needs all of them to succeed (the split's orders): once one fails, the
    others not yet started are not run, as when they ran one after another."""
    __slots__ = ("failed",)

    def __init__(self):
        self.failed = False


class _Req:
    __slots__ = ("h", "text", "kind", "res", "done", "groups")

    def __init__(self, h, text, kind):
        self.h, self.text, self.kind, self.res, self.done = h, text, kind, None, threading.Event()
        self.groups = []

    def skip(self):
        """Every group that asked for it has failed already: answered SKIPPED, and True."""
        if self.res is None and self.groups and all(g.failed for g in self.groups):
            self.res = {"error": SKIPPED}
        return skipped(self.res)

    def answer(self, res):
        self.res = res
        if failed(res):
            for g in self.groups:
                g.failed = True


class Batcher:
    # At most this many tests per process: a batch is answered in order, so its last test waits
    # for the ones before it; eight already make the start a few ms per test.
    SIZE = 8

    def __init__(self, herd, slots):
        self.herd, self.slots = herd, max(1, slots)
        self.cv = threading.Condition()
        self.queue, self.pending, self.started, self.folder = [], {}, False, None
        self.processes = 0

    def run(self, items, source, model, all_or_none=False):
        """items: [(cache key, text)], none of them cached; their results in the same order.
        all_or_none: once one of them fails, the ones not started yet are not run (their result
        says so: SKIPPED)."""
        reqs, group = [], _Group() if all_or_none else None
        with self.cv:
            for h, text in items:
                r = self.pending.get(h)         # another thread asked for the same test: one run
                if r is not None and skipped(r.res):
                    r = None                    # skipped for another group: this one asks anew
                if r is None:
                    r = self.pending[h] = _Req(h, text, (source, model))
                    self.queue.append(r)
                    if group:
                        r.groups.append(group)
                elif r.groups and group:
                    r.groups.append(group)
                else:
                    r.groups = []               # someone needs it whatever happens
                reqs.append(r)
            if not self.started:
                for _ in range(self.slots):
                    threading.Thread(target=self._slot, daemon=True).start()
                self.started = True
            self.cv.notify_all()
        for r in reqs:
            r.done.wait()
        return [r.res for r in reqs]

    def _slot(self):
        while True:
            with self.cv:
                while not self.queue:
                    self.cv.wait()
                kind = self.queue[0].kind
                # a fair share of what waits, so the other readers have work too
                n = min(self.SIZE, max(1, -(-len(self.queue) // self.slots)))
                for r in self.queue:
                    if r.skip():                # its waiters are told now
                        self._release(r)
                self.queue = [r for r in self.queue if r.res is None]
                take = [r for r in self.queue if r.kind == kind][:n]
                taken = set(map(id, take))
                self.queue = [r for r in self.queue if id(r) not in taken]
            if not take:
                continue
            try:
                self._batch(take)
            except Exception as e:      # the reader's own fault: every test still open runs alone
                for r in take:
                    if r.res is None:
                        try:
                            r.res = self.herd.run_one(r.h, r.text, *r.kind)
                        except Exception:
                            r.res = {"error": "herd7 batch: %s: %s" % (type(e).__name__, e)}
            finally:
                with self.cv:
                    for r in take:
                        self._release(r)

    def _release(self, r):
        """r answered: its waiters go on, and a later ask for its text reads the cache (under cv)."""
        if self.pending.get(r.h) is r:          # not a newer ask of the same text
            del self.pending[r.h]
        r.done.set()

    def _batch(self, reqs):
        if len(reqs) == 1:
            reqs[0].answer(self.herd.run_one(reqs[0].h, reqs[0].text, *reqs[0].kind))
            return
        source, model = reqs[0].kind
        left, alone = list(reqs), []
        while left:
            done, timed_out, rest = self._process(left, source, model)
            for r, res in done:
                r.answer(self.herd.store(r.h, res))
            if timed_out is None:
                alone += rest
                break
            timed_out.answer(self.herd.store(timed_out.h, dict(self.herd.over_limit(), secs=float(self.herd.timeout))))
            left = [r for r in rest if not r.skip()]
        for r in alone:
            if not r.skip():
                r.answer(self.herd.run_one(r.h, r.text, source, model))

    def _folder(self):
        """Where a batch's files are written: the files of runs that were killed are removed first."""
        folder = os.path.join(self.herd.cache, "batch")
        if not self.folder:
            os.makedirs(folder, exist_ok=True)
            for n in os.listdir(folder):
                if paths.gone(n.split("-")[0]):
                    try:
                        os.unlink(os.path.join(folder, n))
                    except OSError:
                        pass
            self.folder = folder
        return folder

    def _process(self, reqs, source, model):
        """One herd7 over reqs: ([(req, result)] of the tests it reported, the test it ran over the
        time limit on (or None), the tests left: after that one, or with no report)."""
        folder = self._folder()
        stem = "%d-%d" % (os.getpid(), threading.get_ident())
        files, names = [], {}
        for i, r in enumerate(reqs):
            path = os.path.join(folder, "%s-%d.litmus" % (stem, i))
            # herd7 answers a test name once per process (a second is skipped or refused): the
            # orders of a split share theirs, so each file gets its own
            first, _, body = r.text.partition("\n")
            with open(path, "w") as f:
                f.write("%s K%d\n%s" % (first.split(None, 1)[0], i, body))
            files.append(path)
            names["K%d" % i] = i
        where = {p: i for i, p in enumerate(files)}
        chunks, warns, secs = {}, collections.defaultdict(list), {}
        ended = -1                  # the last test herd7 is done with (reported or refused)
        cur, t_last, timed_out = None, time.time(), False
        with self.herd.lock:
            self.processes += 1
        p = subprocess.Popen(self.herd.cmd(files, source, model), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, cwd=self.herd.lkmm if source else None)
        try:
            sel = selectors.DefaultSelector()
            sel.register(p.stdout, selectors.EVENT_READ)
            buf = b""
            while True:
                wait = t_last + self.herd.timeout - time.time()
                if wait <= 0:
                    timed_out = True
                    break
                if not sel.select(wait):
                    continue
                data = os.read(p.stdout.fileno(), 1 << 16)
                if not data:
                    break
                buf += data
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    ln = raw.decode(errors="replace")
                    if cur is not None:
                        chunks[cur].append(ln)
                        if ln == "":            # a report ends with an empty line
                            now = time.time()
                            secs[cur], t_last, ended, cur = round(now - t_last, 2), now, max(ended, cur), None
                    elif ln.startswith("Test ") and ln.split()[1] in names:
                        cur = names[ln.split()[1]]
                        chunks[cur] = [ln]
                    else:
                        # a warning names its file, or it is the running test's
                        m = FILE.search(ln)
                        i = where.get(m.group(1), ended + 1) if m else ended + 1
                        warns[i].append(ln)
                        if ln.startswith("Warning") and "(User error)" in ln and i > ended:
                            ended, t_last = i, time.time()
            sel.close()
        finally:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
            for f in files:
                try:
                    os.unlink(f)
                except OSError:
                    pass
        done, rest, blame = [], [], None
        for i, r in enumerate(reqs):
            lines = chunks.get(i)
            if lines is not None and lines[-1] == "":
                res = self.herd.parse("\n".join(lines), "\n".join(warns.get(i, ())))
                res["secs"] = secs[i]
                done.append((r, res))
            elif timed_out and i == ended + 1:
                blame = r
            elif any("(User error)" in w for w in warns.get(i, ())) and not re.search(r"\bK%d\b" % i, warns[i][0]):
                # refused: the message a run of its own prints (its file's name is not in it)
                done.append((r, dict(self.herd.parse("", "\n".join(warns[i])), secs=0.0)))
            else:
                rest.append(r)
        self.herd.count(len(done) + (blame is not None))
        return done, blame, rest
