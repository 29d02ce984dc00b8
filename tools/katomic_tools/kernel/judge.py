"""Judge a kernel's console log: did it reach /init, pass every self-test, run
its torture tests without an error, and print no splat?  (docs/kernel-boot.md)

The patterns follow the printk formats of linux-source-6.12:
  lib/atomic64_test.c      "atomic64_test: passed[ for ...]" (a failure is a BUG())
  lib/test_bitops.c        "test_bitops: Starting bitops test" ... "Completed bitops test",
                           "ERROR: FOUND SET BIT", "get_count_order... wrong"
  lib/locking-selftest.c   "Good, all N testcases passed! |", "BUG: N unexpected failures"
  kernel/locking/locktorture.c, kernel/rcu/rcutorture.c
                           "<type>-torture:--- Start of test: ...",
                           "Writes:  Total: N  Max/Min: a/b   Fail: 0", "<type>-torture: !!! ...",
                           "<type>-torture:--- End of test: SUCCESS|FAILURE|*_HOTPLUG: ..."
and /init's own "katomic-init: ..." lines (tools/kernel/init/init.c)."""
import re

# "[   12.345678] " printk timestamps, and the serial port's \r.
_STAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")

# rcutorture's torture_type values (the rest are locktorture's).
RCU_TYPES = {"rcu", "rcu_busted", "srcu", "srcud", "busted_srcud", "tasks", "tasks-rude",
             "tasks-tracing", "trivial", "trivial-preempt"}

# Splats: a line matching one of these fails the boot.  Anchored where the
# kernel puts the word at the start of its line, so that e.g.
# "RETBleed: WARNING: ..." (a mitigation note) is not one.
_SPLATS = [re.compile(p) for p in (
    r"^WARNING: ",                           # WARN(), lockdep, suspicious RCU usage
    r"^------------\[ cut here \]------------",
    r"\bBUG: ",                              # BUG:, watchdog: BUG: soft lockup
    r"^kernel BUG at ",
    r"^Oops: ",
    r"^general protection fault",
    r"^Kernel panic - not syncing",
    r"^INFO: ",                              # lockdep (older), hung task
    r"\bdetected stalls? on CPUs",           # RCU CPU stall
    r"\bself-detected stall on CPU",
    r"^UBSAN: ",
    r"^Call Trace:",
    r"^\?\?\? Writer stall state",           # rcutorture
)]

_INIT = "katomic-init: "


def _lines(text):
    for raw in text.splitlines():
        yield _STAMP.sub("", raw.replace("\r", "")).rstrip()


def _torture_name(ttype):
    return "rcutorture" if ttype in RCU_TYPES else "locktorture"


class _Torture:
    def __init__(self, name, ttype):
        self.d = {"name": name, "type": ttype, "seconds": None, "errors": 0,
                  "status": "incomplete"}
        self.started = False        # the kernel's "Start of test" line seen
        self.end = None             # SUCCESS, FAILURE, LOCK_HOTPLUG, ...
        self.init_note = None       # /init's load-failed / unload-failed


def console(text):
    """The verdict on one console log (see the module docstring).
    {"passed", "reached_init", "finished", "kernel", "cpus", "selftests":
    [{"name","status","detail"}], "torture": [{"name","type","seconds",
    "errors","status"}], "splats": [str], "problems": [str]}"""
    reached = finished = False
    kernel = cpus = None
    a64 = {"status": "missing", "detail": "no 'atomic64_test: passed' line"}
    bitops = {"status": "missing", "detail": "no 'test_bitops: Completed bitops test' line"}
    locking = None
    tortures = []
    current = None
    splats = []

    for line in _lines(text):
        if line.startswith(_INIT):
            rest = line[len(_INIT):]
            if rest == "start":
                reached = True
            elif rest.startswith("done"):
                finished = True
            elif rest.startswith("cpus online "):
                m = re.match(r"cpus online (\d+)", rest)
                cpus = int(m.group(1)) if m else None
            m = re.match(r"torture (\S+) (\S+) (start|ran|load-failed|unload-failed)\b:? ?(.*)", rest)
            if m:
                name, ttype, what, more = m.groups()
                if what == "start":
                    current = _Torture(name, ttype)
                    tortures.append(current)
                elif current is not None and current.d["type"] == ttype:
                    if what == "ran":
                        sec = re.match(r"([\d.]+) s", more)
                        current.d["seconds"] = float(sec.group(1)) if sec else None
                    else:
                        current.init_note = "%s (%s)" % (what, more or "?")
            continue

        if kernel is None:
            m = re.match(r"Linux version (\S+)", line)
            if m:
                kernel = m.group(1)

        if line.startswith("atomic64_test: "):
            if line.startswith("atomic64_test: passed"):
                a64 = {"status": "pass", "detail": line}
            else:
                a64 = {"status": "fail", "detail": line}
        elif line.startswith("test_bitops: "):
            msg = line[len("test_bitops: "):]
            if msg.startswith("Completed bitops test"):
                if bitops["status"] != "fail":
                    bitops = {"status": "pass", "detail": line}
            elif "ERROR" in msg or "wrong" in msg:
                bitops = {"status": "fail", "detail": line}
            elif msg.startswith("Starting bitops test") and bitops["status"] == "missing":
                bitops = {"status": "missing", "detail": "started, no 'Completed' line"}
        m = re.search(r"Good, all +(\d+) testcases passed!", line)
        if m:
            locking = {"status": "pass", "detail": "%s testcases passed" % m.group(1)}
        m = re.search(r"BUG: +(\d+) unexpected failures \(out of +(\d+)\)", line)
        if m:
            locking = {"status": "fail", "detail": "%s of %s testcases failed" % m.groups()}

        m = re.match(r"(\S+)-torture:(.*)$", line)
        if m:
            ttype, rest = m.groups()
            if rest.startswith("--- Start of test"):
                # /init announced it (its "start" line), or a built-in one.
                if current is None or current.d["type"] != ttype or current.started \
                        or current.end is not None:
                    current = _Torture(_torture_name(ttype), ttype)
                    tortures.append(current)
                current.started = True
            if current is not None and current.d["type"] == ttype:
                e = re.match(r"--- End of test: (\w+)", rest)
                if e:
                    current.end = e.group(1)
                elif "!!!" in rest:
                    current.d["errors"] += 1
        elif current is not None and re.match(r"(Writes|Reads) *: +Total:", line):
            f = re.search(r"Fail: +(\d+)", line)
            if f is None or int(f.group(1)) != 0:
                current.d["errors"] += 1

        if any(p.search(line) for p in _SPLATS):
            splats.append(line[:200])

    problems = []
    if not reached:
        problems.append("init not reached (no 'katomic-init: start' line)")
    elif not finished:
        problems.append("/init did not finish (no 'katomic-init: done' line): hung or truncated log")
    selftests = [dict(name="atomic64_test", **a64), dict(name="test_bitops", **bitops)]
    if locking:
        selftests.append(dict(name="locking-selftest", **locking))
    for s in selftests:
        if s["status"] != "pass":
            problems.append("%s: %s" % (s["name"], s["detail"] if s["status"] == "fail"
                                        else s["status"] + ": " + s["detail"]))
    for t in tortures:
        d = t.d
        if t.init_note:
            d["status"] = "fail"
            problems.append("%s %s: %s" % (d["name"], d["type"], t.init_note))
        elif t.end == "SUCCESS" and d["errors"] == 0:
            d["status"] = "pass"
        elif t.end is not None:
            d["status"] = "fail"
            problems.append("%s %s: End of test: %s, %d error line(s)" % (
                d["name"], d["type"], t.end, d["errors"]))
        else:
            problems.append("%s %s: no 'End of test' line (still running when the log ends)" % (
                d["name"], d["type"]))
    if splats:
        problems.append("%d splat line(s) on the console, first: %s" % (len(splats), splats[0]))
    return {"passed": not problems, "reached_init": reached, "finished": finished,
            "kernel": kernel, "cpus": cpus, "selftests": selftests,
            "torture": [t.d for t in tortures], "splats": splats[:20], "problems": problems}


def verdict(boot, judged):
    """One boot's record: boot.run()'s result and console()'s verdict merged;
    it passes only if the guest also powered off by itself."""
    rec = dict(boot)
    rec.update(judged)
    problems = list(judged["problems"])
    if boot["outcome"] == "deadline":
        problems.insert(0, "hung: killed at the %s s deadline (console log: %s)" % (
            boot.get("deadline_s", "?"), boot.get("log", "?")))
    elif boot["outcome"] != "poweroff":
        problems.insert(0, "qemu failed: %s" % boot.get("error", "?"))
    rec["problems"] = problems
    rec["passed"] = not problems
    return rec


def summary_line(rec):
    """One line per boot for the terminal."""
    tor = ", ".join("%s/%s %s" % (t["name"], t["type"], t["status"]) for t in rec["torture"])
    head = "PASS" if rec["passed"] else "FAIL"
    tail = "" if rec["passed"] else ": " + rec["problems"][0]
    return "%s smp=%s %s %.0f s, selftests %s, torture [%s]%s" % (
        head, rec.get("smp", "?"), rec.get("accel", "?"), rec.get("seconds", 0),
        "/".join("%s %s" % (s["name"], s["status"]) for s in rec["selftests"]), tor or "none",
        tail)
