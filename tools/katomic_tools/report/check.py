"""make check-report: use `katomic report` as a user would and check what it gives.

  1. katomic report --quick --out SCRATCH: exit status 0 (or 1 = a correctness
     finding, reported), the verdict table and the answer on stdout, a progress
     line per stage on stderr, every file written, every JSON document valid
     against its schema (tools/schema/), report.json with every section
     (machine, codegen, litmus, bench, verdict), each plot a PNG;
  2. index.html in headless Chromium (package chromium): the summary table is
     in the DOM, every <img> loaded (naturalWidth > 0, marked by the page's own
     script), and a screenshot ($KATOMIC_BUILD/report-check/screenshot.png);
     skipped with a note when chromium is not installed;
  3. bad environments: an unwritable --out gives one line naming it and exit
     status 2; with clang and the cross tools hidden from PATH the clang row
     says "not installed" and the cross targets are listed as skipped with the
     Debian package to install;
  4. --from: the saved run rendered again (the same files and verdict), into
     another directory, two machines merged, and saved documents with an empty
     value or a missing field (refused, one line naming the file and field);
  5. kernel results (tests/json/kernel.json, docs/kernel-boot.md) added to the
     saved run, as DIR/kernel/kernel.json and as a second --from directory:
     the section "The Linux kernel on C11" and the answer saying what the
     kernel showed.
Prints TAP-like lines and "N passed, M failed"; exit status 1 if a check
failed.  Outputs kept in $KATOMIC_BUILD/report-check (stdout.txt, stderr.txt,
dom.html, screenshot.png, noclang.out, ...).

    PYTHONPATH=tools python3 -m katomic_tools.report.check
"""
import filecmp
import fnmatch
import glob
import json
import os
import platform
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

from ..common import paths, schema
from ..common.tap import Tap

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"     # the IEND chunk: a file not cut short
ANSWER = r"(YES|NO|NOT YET|INCOMPLETE)"
STAGES = ("codegen", "litmus", "bench")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def has_line(pattern, path):
    """A line of the file matches `pattern` (a regular expression, anchored with ^)."""
    return re.search(pattern, read(path), re.M) is not None


def one_line(text):
    return len(text.splitlines()) == 1


def none_of(found):
    """True if `found` is empty; else fail the check, naming what was found."""
    if found:
        raise ValueError("found " + ", ".join(found))
    return True


def is_png(path):
    """A whole PNG: its signature, an IHDR chunk with a width and a height > 0,
    and at the end an IEND chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
        f.seek(max(0, os.path.getsize(path) - len(PNG_END)))
        tail = f.read()
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR" or tail != PNG_END:
        return False
    width, height = struct.unpack(">II", head[16:24])
    return width > 0 and height > 0


def inside(d, rel):
    """The file `rel` names relative to `d`, or None if it points outside `d`."""
    p = os.path.normpath(os.path.join(d, rel))
    return p if p.startswith(os.path.normpath(d) + os.sep) else None


class Page(HTMLParser):
    """What the checks read from an HTML page: each element with an id (its
    tag and attributes), the plot images, every src and href, and per table
    (by id) whether it has a <tbody> and how many of its body rows have cells."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.ids, self.plots, self.links = {}, [], []
        self.tbody, self.rows = set(), {}
        self._tables, self._in_body, self._row_counted = [], False, False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids[a["id"]] = (tag, a)
        self.links += [v for k, v in attrs if k in ("src", "href") and v is not None]
        if tag == "img" and "plot" in (a.get("class") or "").split():
            self.plots.append(a.get("src") or "")
        elif tag == "table":
            self._tables.append(a.get("id"))
            self.rows.setdefault(a.get("id"), 0)
            self._in_body = False
        elif tag == "tbody" and self._tables:
            self.tbody.add(self._tables[-1])
            self._in_body = True
        elif tag == "tr":
            self._row_counted = False
        elif tag == "td" and self._tables and self._in_body and not self._row_counted:
            self.rows[self._tables[-1]] += 1
            self._row_counted = True

    def handle_endtag(self, tag):
        if tag == "table" and self._tables:
            self._tables.pop()
        elif tag == "tbody":
            self._in_body = False


def page(path):
    """The page in `path`; an empty one if it is not there (the checks on it fail)."""
    return Page(read(path) if os.path.isfile(path) else "")


def remote_refs(path):
    """src/href values that are absolute paths or URLs of another scheme than data:."""
    text = read(path)
    bad = [r for r in Page(text).links
           if r.startswith("/") or (re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", r) and not r.startswith("data:"))]
    return list(dict.fromkeys(bad + re.findall(r'(?:src|href)="((?:/|https?:)[^"]*)"', text)))


class Check:
    """One run of the checks: where things are, the tally, running the CLI."""

    def __init__(self, root, build, scratch):
        self.root, self.scratch = root, scratch
        self.keep = os.path.join(build, "report-check")
        self.out = os.path.join(scratch, "report")
        self.tap = Tap()
        self.check = self.tap.check

    def kept(self, name):
        return os.path.join(self.keep, name)

    def sink(self, name):
        """The kept file `name`, open for writing; /dev/null for None."""
        return open(self.kept(name) if name else os.devnull, "w")

    def katomic(self, args, stdout=None, stderr=None, path=None):
        """Run `katomic ARGS` (tools/katomic.sh) as a user would, with PATH
        `path` if given; stdout and stderr go to the named kept files.
        Returns the exit status."""
        env = dict(os.environ, PATH=path) if path is not None else None
        with self.sink(stdout) as out, self.sink(stderr) as err:
            return subprocess.run(["sh", os.path.join(self.root, "tools", "katomic.sh")] + args,
                                  stdout=out, stderr=err, env=env).returncode

    def plots_are_png(self, d, label):
        """Every plot index.html in `d` shows is a PNG in `d`."""
        for src in page(os.path.join(d, "index.html")).plots:
            self.check(lambda: is_png(inside(d, src)), "%splot %s is a PNG next to index.html" % (label, src))

    def run(self):
        """Every group of checks in turn; one that cannot go on is a failed check."""
        for group in (self.report, self.chromium, self.bad_environments, self.from_saved, self.from_merged,
                      self.from_kernel):
            try:
                group()
            except (OSError, ValueError, LookupError) as e:    # e.g. a file the run did not write
                self.check(False, "%s: stopped early: %s" % (group.__name__, e))

    # ------------------------------------------------------------ 1. the report
    def report(self):
        out = self.out
        print("# katomic report --quick --out %s (about three minutes)" % out, flush=True)
        rc = self.katomic(["report", "--quick", "--out", out], "stdout.txt", "stderr.txt")
        self.check(rc in (0, 1), "katomic report exits 0 or 1 (got %d)" % rc)
        if rc == 1:
            print("# note: the report found a correctness problem (exit 1): see its answer")
        stdout, stderr = self.kept("stdout.txt"), self.kept("stderr.txt")
        self.check(lambda: has_line(r"^compiler +identical +same cost +better +worse +WEAKER +C11/asm", stdout),
                   "stdout: the per-compiler verdict table")
        self.check(lambda: has_line(r"^backend +harness +tests +passed +failed +judged by herd7 / by comment +forbidden seen",
                                    stdout),
                   "stdout: the litmus table")
        self.check(lambda: has_line(r"^Answer: " + ANSWER, stdout), "stdout: a one-line answer")
        self.check(lambda: re.search(r"noise floor measured: (ops|workloads) \+-[0-9.]+",
                                     read(stdout).replace("\n    ", " ")),
                   "stdout: the noise floor the bench's confirmation measured")
        for s in STAGES:
            self.check(lambda: has_line(r"^katomic report: \[[123]/3\] %s: done" % s, stderr),
                       "stderr: progress lines for %s" % s)
        for f in ("REPORT.md", "index.html", "report.json", "run.json", "codegen/codegen.html",
                  "codegen/codegen.json", "litmus/c11-gcc.json", "bench/bench.json", "bench/bench.csv",
                  "bench/table.txt"):
            p = os.path.join(out, f)
            self.check(lambda: os.path.isfile(p) and os.path.getsize(p) > 0, "file %s" % f)
        # every document the run produced fits its schema (no empty value, no missing field)
        litmus = sorted(glob.glob(os.path.join(out, "litmus", "*.json")))
        self.check(bool(litmus), "litmus/*.json: %d document(s)" % len(litmus))
        for p in [os.path.join(out, "run.json"), os.path.join(out, "report.json"),
                  os.path.join(out, "codegen", "codegen.json")] + litmus + [os.path.join(out, "bench", "bench.json")]:
            self.check(lambda: schema.validate_file(p), "schema: %s" % os.path.relpath(p, out))
        self.report_json(os.path.join(out, "report.json"))
        # every plot the page shows is a PNG in DIR
        index = os.path.join(out, "index.html")
        nimg = len(page(index).plots)
        if shutil.which("gnuplot"):
            self.check(nimg >= 3, "index.html shows plots (%d)" % nimg)
        else:
            print("# note: gnuplot not installed: no plots expected (apt-get install gnuplot-nox)")
        self.plots_are_png(out, "")
        self.check(lambda: none_of(remote_refs(index)), "index.html: no absolute or remote references")

    def report_json(self, path):
        try:
            doc = schema.read_json(path)
        except ValueError as e:
            print("# %s" % e)
            doc = None
        self.check(doc is not None, "report.json is valid JSON")
        for s in ("machine",) + STAGES + ("verdict",):
            self.check(lambda: isinstance(doc[s], dict), "report.json: section %s" % s)
        for s in STAGES:
            self.check(lambda: doc[s]["status"] == "ok", "report.json: %s status ok" % s)
        self.check(lambda: len(doc["verdict"]["per_compiler"]) > 0, "report.json: per-compiler verdict rows")
        self.check(lambda: len(doc["litmus"]["runs"]) > 0 and doc["litmus"]["totals"]["forbidden_observed"] == 0,
                   "report.json: litmus runs, 0 forbidden outcomes")

        def geomeans():
            cs = doc["bench"]["compilers"]
            g = [c["geomean"] for c in (cs.values() if isinstance(cs, dict) else cs)]
            return g and all(x > 0 for x in g)
        self.check(geomeans, "report.json: C11/asm geometric means")
        self.check(lambda: re.fullmatch(ANSWER, doc["verdict"]["answer"]), "report.json: a verdict")

        def confirmed():
            conf = doc["bench"]["confirmation"]
            claimed = [c for c in conf["cells"] if c["claimed"]]
            speed = [l for l in doc["verdict"]["losses"] if l["kind"] == "speed"]
            return (conf["noise_floor"] is not None and len(claimed) == len(speed) and
                    all(c["margin"] > 0 and c["c11_asm_low"] > c["aa_high"] for c in claimed) and
                    all(l["why"].startswith("confirmed: ") for l in speed))
        self.check(confirmed, "report.json: a confirmation with its noise floor; each speed loss claimed, with its "
                   "C11/asm interval above the A/A one")

    # ------------------------------------------------------------ 2. headless Chromium
    def chromium(self):
        chrome = next((c for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)
        if not chrome:
            print("# skip: headless rendering: chromium not installed (apt-get install chromium)")
            return
        url = "file://" + os.path.join(self.out, "index.html")
        dom, shot = self.kept("dom.html"), self.kept("screenshot.png")
        self.run_chrome(chrome, ["--virtual-time-budget=10000", "--dump-dom", url], "dom.html")
        self.check(lambda: os.path.getsize(dom) > 0, "chromium: DOM dumped")
        p = page(dom)
        self.check("verdict-table" in p.tbody, "chromium: the summary table is rendered")
        rows = p.rows.get("verdict-table", 0)
        self.check(rows >= 1, "chromium: the summary table has a row per compiler (%d)" % rows)
        self.check("answer" in p.ids, "chromium: the answer is shown")
        pc = p.ids.get("plot-check", ("", {}))[1]
        total, loaded, broken = (pc.get("data-" + k) for k in ("total", "loaded", "broken"))
        self.check(loaded is not None and loaded == total == str(len(p.plots)) and broken == "0",
                   "chromium: every plot image loaded (naturalWidth > 0: %s of %s, %s broken)"
                   % (loaded or "?", total or "?", broken or "?"))
        self.run_chrome(chrome, ["--screenshot=" + shot, "--window-size=1280,2400", url], None)
        self.check(lambda: is_png(shot), "chromium: screenshot %s" % shot)

    def run_chrome(self, chrome, args, stdout):
        """Chromium headless, its stdout kept in the file `stdout` (if given),
        its stderr in chromium.log; killed (its process group) after two minutes."""
        prof = os.path.join(self.scratch, "chrome-profile")
        os.makedirs(prof, exist_ok=True)
        cmd = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--user-data-dir=" + prof, "--allow-file-access-from-files"] + args
        with open(self.kept("chromium.log"), "a") as log, self.sink(stdout) as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=log, start_new_session=True)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                print("# chromium: killed after 120 s: %s" % " ".join(args))

    # ------------------------------------------------------------ 3. bad environments
    def bad_environments(self):
        bad = "/proc/katomic-report-unwritable"
        rc = self.katomic(["report", "--out", bad, "--skip", "codegen,litmus,bench"], "unwritable.out", "unwritable.err")
        self.check(rc == 2, "unwritable --out: exit status 2 (got %d)" % rc)
        err = read(self.kept("unwritable.err"))
        self.check(one_line(err) and bad in err, "unwritable --out: one line naming the path")

        # PATH without clang and without the cross tools: codegen only (gcc on x86-64)
        fake = os.path.join(self.scratch, "path")
        hide_clang_and_cross_tools(os.environ.get("PATH", ""), fake)
        noclang = os.path.join(self.scratch, "noclang")
        rc = self.katomic(["report", "--quick", "--skip", "litmus,bench", "--out", noclang],
                          "noclang.out", "noclang.err", path=fake)
        report_json = os.path.join(noclang, "report.json")
        self.check(rc in (0, 1) and os.path.isfile(report_json) and os.path.getsize(report_json) > 0,
                   "no clang, no cross tools: report written (exit %d)" % rc)
        nout, nmd = self.kept("noclang.out"), os.path.join(noclang, "REPORT.md")
        self.check(lambda: has_line(r"^clang +not installed \(apt-get install clang\)", nout),
                   "no clang: its row says not installed")
        if platform.machine() == "x86_64":
            self.check(lambda: has_line(r"^- codegen: aarch64 skipped: .*\(apt-get install [a-z0-9.-]+\)", nmd),
                       "no cross tools: aarch64 listed as skipped with its package")
            self.check(lambda: not has_line(r"^Other targets", nout), "no cross tools: no other-targets table")
        self.check(lambda: "litmus: skipped -- left out with --skip litmus" in read(nmd),
                   "skipped stages are named, not failed")
        if os.path.isfile(nmd):
            shutil.copy(nmd, self.kept("noclang.md"))

    # ------------------------------------------------------------ 4. --from: saved and merged JSON
    def from_saved(self):
        out = self.out
        first_md, first_json = self.kept("REPORT.first.md"), self.kept("report.first.json")
        for src, dst in (("REPORT.md", first_md), ("report.json", first_json)):
            if os.path.isfile(os.path.join(out, src)):
                shutil.copy(os.path.join(out, src), dst)
        rc = self.katomic(["report", "--from", out], "from.out", "from.err")
        self.check(rc in (0, 1), "--from the saved run: exit status 0 or 1 (got %d)" % rc)
        self.check(lambda: filecmp.cmp(first_md, os.path.join(out, "REPORT.md"), shallow=False),
                   "--from the saved run: the same REPORT.md")
        self.check(lambda: filecmp.cmp(first_json, os.path.join(out, "report.json"), shallow=False),
                   "--from the saved run: the same report.json")
        again = os.path.join(self.scratch, "again")
        self.katomic(["report", "--from", out, "--out", again])
        self.check(lambda: has_line(r"^- `\.\./report/codegen/codegen\.html`", os.path.join(again, "REPORT.md")),
                   "--from into another directory: REPORT.md links back to the run")
        self.check(lambda: filecmp.cmp(self.kept("stdout.txt"), self.kept("from.out"), shallow=False),
                   "--from the saved run: the same verdict on stdout")

    def from_merged(self):
        """Two machines: the same run copied twice, the second renamed (as if run elsewhere)."""
        merged = os.path.join(self.scratch, "merged")
        for m in ("alpha", "beta"):
            copy_documents(self.out, os.path.join(merged, m))
        edit_json(os.path.join(merged, "beta", "run.json"),
                  lambda d: d["machine"].update(name="beta-host", arch="x86_64"))
        rc = self.katomic(["report", "--from", merged], "merged.out", "merged.err")
        self.check(rc in (0, 1), "--from two machines: exit status 0 or 1 (got %d)" % rc)
        self.check(lambda: schema.validate_file(os.path.join(merged, "report.json"), "report-merged"),
                   "--from two machines: report.json is a merged report of 2")
        md = os.path.join(merged, "REPORT.md")
        self.check(lambda: len(re.findall(r"^## Machine: ", read(md), re.M)) == 2
                   and has_line(r"^## Machine: beta-host", md),
                   "--from two machines: REPORT.md has a section per machine")
        ids = page(os.path.join(merged, "index.html")).ids
        self.check(all(ids.get(t, ("",))[0] == "table" for t in ("verdict-table", "verdict-table-2")),
                   "--from two machines: index.html has each machine's verdict table")
        self.check(lambda: has_line(r"^Answer, all machines: ", self.kept("merged.out")),
                   "--from two machines: stdout summarises both")
        self.plots_are_png(merged, "--from two machines: ")
        self.from_refused(os.path.join(merged, "alpha"))

    def from_kernel(self):
        """The saved run with kernel results: in DIR/kernel/, then as a kernel-only --from directory."""
        fixture = os.path.join(self.root, "tests", "json", "kernel.json")
        with_k = os.path.join(self.scratch, "with-kernel")
        copy_documents(self.out, with_k)
        os.makedirs(os.path.join(with_k, "kernel"), exist_ok=True)
        shutil.copy(fixture, os.path.join(with_k, "kernel", "kernel.json"))
        rc = self.katomic(["report", "--from", with_k], "kernel.out", "kernel.err")
        self.check(rc in (0, 1), "--from with kernel results: exit status 0 or 1 (got %d)" % rc)
        self.check(lambda: has_line(r"^## The Linux kernel on C11$", os.path.join(with_k, "REPORT.md")),
                   "--from with kernel results: REPORT.md has the kernel section")
        self.check(lambda: "the Linux kernel on C11" in read(self.kept("kernel.out")).split("Answer: ")[-1],
                   "--from with kernel results: the answer says what the kernel showed")
        self.check(lambda: page(os.path.join(with_k, "index.html")).ids["kernel-boots"][0] == "table",
                   "--from with kernel results: index.html has the kernel boots table")
        self.check(lambda: schema.validate_file(os.path.join(with_k, "report.json"), "report")
                   and "kernel" in json.load(open(os.path.join(with_k, "report.json"))),
                   "--from with kernel results: report.json has the kernel object")
        kdir = os.path.join(self.scratch, "kernel-only")
        os.makedirs(kdir, exist_ok=True)
        shutil.copy(fixture, kdir)
        plain = os.path.join(self.scratch, "kernel-merge")
        copy_documents(self.out, plain)
        self.katomic(["report", "--from", plain, "--from", kdir], "kernel-merge.out", "kernel-merge.err")
        self.check(lambda: has_line(r"^## The Linux kernel on C11$", os.path.join(plain, "REPORT.md")),
                   "--from RUN --from KERNEL-DIR: the kernel results merged into the run")

    def from_refused(self, machine):
        """A saved document that does not fit its schema is refused, naming the file and the field."""
        bad, bad_out = os.path.join(self.scratch, "bad"), os.path.join(self.scratch, "bad-out")
        shutil.copytree(machine, bad)
        codegen = os.path.join(bad, "codegen", "codegen.json")
        with open(codegen, "w") as f:
            f.write(re.sub(r'"c11_insns": [0-9]*', '"c11_insns": ""',
                           read(os.path.join(self.out, "codegen", "codegen.json"))))
        rc = self.katomic(["report", "--from", bad, "--out", bad_out], None, "bad.err")
        self.check(rc == 2, "--from an empty value: exit status 2 (got %d)" % rc)
        err = read(self.kept("bad.err"))
        self.check(one_line(err) and "codegen/codegen.json: results[0].c11_insns" in err,
                   "--from an empty value: one line naming the file and the field")
        edit_json(os.path.join(bad, "bench", "bench.json"), lambda d: d["results"][0].pop("contender"))
        shutil.copy(os.path.join(self.out, "codegen", "codegen.json"), codegen)
        rc = self.katomic(["report", "--from", bad, "--out", bad_out], None, "bad2.err")
        err = read(self.kept("bad2.err"))
        self.check(rc == 2 and one_line(err) and "bench/bench.json: results[0]: missing field 'contender'" in err,
                   "--from a missing field: exit status 2, one line naming it (got %d)" % rc)


def hide_clang_and_cross_tools(path, fake):
    """Fill `fake` with a link to every program on `path` but clang and the
    cross tools (x86_64-linux-gnu-* stay, but for a clang named so)."""
    os.makedirs(fake, exist_ok=True)
    for d in filter(None, path.split(":")):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for b in names:
            f = os.path.join(d, b)
            if b.startswith(".") or not os.access(f, os.X_OK):
                continue
            hidden = any(fnmatch.fnmatchcase(b, p) for p in ("clang", "clang-[0-9]*", "clang++*",
                                                             "*-linux-gnu-*", "*-linux-gnueabihf-*"))
            if (hidden and not b.startswith("x86_64-linux-gnu-")) or b.startswith("x86_64-linux-gnu-clang"):
                continue
            if not os.path.lexists(os.path.join(fake, b)):
                os.symlink(f, os.path.join(fake, b))


def copy_documents(run, dest):
    """A report directory holding only `run`'s saved JSON documents."""
    for d in STAGES:
        os.makedirs(os.path.join(dest, d), exist_ok=True)
    for f in ["run.json", "codegen/codegen.json", "bench/bench.json"] + \
            [os.path.relpath(p, run) for p in glob.glob(os.path.join(run, "litmus", "*.json"))]:
        if os.path.isfile(os.path.join(run, f)):
            shutil.copy(os.path.join(run, f), os.path.join(dest, f))


def edit_json(path, change):
    """Apply `change` to the document in `path` (plain json: a test may break it on purpose)."""
    try:
        with open(path) as f:
            doc = json.load(f)
        change(doc)
    except (OSError, ValueError, LookupError, TypeError, AttributeError) as e:
        print("# cannot edit %s: %s" % (path, e))
        return
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def main():
    sys.stdout.reconfigure(line_buffering=True)
    root = paths.root()
    build = paths.build()
    os.environ.update(KATOMIC_ROOT=root, KATOMIC_BUILD=build)
    try:
        shutil.rmtree(os.path.join(build, "report-check"), ignore_errors=True)
        os.makedirs(os.path.join(build, "report-check"))
        scratch = tempfile.mkdtemp(prefix="katomic-check-report.")
    except OSError as e:
        print("check-report: %s" % e, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    c = Check(root, build, scratch)
    try:
        c.run()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("# outputs kept in %s (stdout.txt, stderr.txt, dom.html, screenshot.png, noclang.out)" % c.keep)
    return c.tap.summary()


if __name__ == "__main__":
    sys.exit(main())
