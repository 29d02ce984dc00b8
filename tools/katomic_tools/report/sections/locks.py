"""spinlock_t against the locks a user would otherwise take: throughput over
glibc's pthread_mutex_t and fairness, per lock workload and thread count
(the bench's lock workloads; targets in rules.py, design in docs/spinlock.md)."""
from ...common.tables import Table, h, wrap
from .. import rules

MUTEX = "mutex"


def _lock_rows(m):
    """{(workload, threads): {contender: result}} for the lock workloads, in bench order."""
    doc = m.inputs.bench
    rows = {}
    if not doc:
        return rows
    for r in doc["results"]:
        if r["kind"] != "workload" or not r["name"].startswith("spinlock") or r["status"] != "ok":
            continue
        rows.setdefault((r["name"], r["threads"]), {})[r["contender"]] = r
    return rows if any(MUTEX in v for v in rows.values()) else {}


def _contenders(rows):
    seen = []
    for v in rows.values():
        for c in v:
            if c not in seen:
                seen.append(c)
    return seen


def _katomic(c):
    return c.startswith("c11-") or c.startswith("asm-")


def _fmt_ratio(r):
    if r is None or r.get("ratio_mutex_med") is None:
        return "-"
    return "%.2f (%.2f-%.2f)" % (r["ratio_mutex_med"], r["ratio_mutex_min"], r["ratio_mutex_max"])


def _fmt_fair(r):
    if r is None or r.get("fair_med") is None:
        return "-"
    return "%.2f (%.2f)" % (r["fair_med"], r["fair_min"])


def _us(ns):
    us = ns / 1e3
    return "%.2f" % us if us < 1 else "%.1f" % us if us < 100 else "%.0f" % us


def _fmt_wait(r):
    """p50 / p99 / p99.9 / max wait in lock(), us (medians over the rounds)."""
    keys = ("wait_p50_ns", "wait_p99_ns", "wait_p999_ns", "wait_max_ns")
    if r is None or any(r.get(k) is None for k in keys):
        return "-"
    return "/".join(_us(r[k]) for k in keys)


def tables(m):
    speed, fair, misses, _ = tables_wait(m)
    return speed, fair, misses


def tables_wait(m):
    rows = _lock_rows(m)
    if not rows:
        return None, None, [], None
    cpus = m.inputs.bench["cpus"]
    cons = _contenders(rows)
    speed = Table(["workload/threads"] + [c for c in cons if c != MUTEX])
    fair = Table(["workload/threads"] + cons)
    wait = Table(["workload/threads"] + cons)
    misses = []
    for (name, threads), by in rows.items():
        label = "%s/%d%s" % (name, threads, " oversub" if threads > cpus else "")
        speed.add(label, *[_fmt_ratio(by.get(c)) for c in cons if c != MUTEX])
        fair.add(label, *[_fmt_fair(by.get(c)) for c in cons])
        wait.add(label, *[_fmt_wait(by.get(c)) for c in cons])
        for c, r in by.items():
            if not _katomic(c) or not rules.is_judged_lock_point(name, threads, cpus):
                continue
            fair_judged = threads > 1 and rules.judges_fairness(m.inputs.bench["workload_ms"])
            miss = rules.lock_misses(threads, cpus, r.get("ratio_mutex_med"), r.get("ratio_mutex_min"),
                                     r.get("fair_med") if fair_judged else None)
            if miss:
                misses.append("%s %s: %s" % (c, label, "; ".join(miss)))
    return speed, fair, misses, wait


HEAD = ("spinlock_t against glibc's pthread_mutex_t: throughput / mutex, median (min-max) of the per-round "
        "ratios (>1 = faster); fairness: min/max acquisitions per thread, median (least fair round)")


def _targets(m):
    ms = m.inputs.bench["workload_ms"]
    fair = ("fairness >= %.2f" % rules.LOCK_FAIR if rules.judges_fairness(ms) else
            "fairness not judged (%g ms samples; it is over %d ms or more: katomic bench --filter spinlock "
            "--wl-ms %d)" % (ms, rules.LOCK_FAIR_MS, rules.LOCK_FAIR_MS))
    return ("targets (%s, a thread per CPU and twice as many): >= %.2f of the mutex, no round below %.2f with "
            "threads outnumbering CPUs, %s" % (rules.LOCK_WORKLOAD, rules.LOCK_AS_FAST, rules.LOCK_FLOOR, fair))


WAIT = ("wait in lock(), of every 64th acquisition of every thread: p50/p99/p99.9/max in us, median over "
        "the rounds")


def text(m):
    speed, fair, misses, wait = tables_wait(m)
    if speed is None:
        return ""
    out = "\nLocks: " + HEAD + "\n" + speed.text() + fair.text().replace("workload/threads", "fairness        ", 1)
    out += "  " + WAIT + ":\n" + wait.text()
    out += wrap(_targets(m) + ("; missed: " + ", ".join(misses) if misses else "; all met by katomic"), "    ")
    return out


def markdown(m):
    speed, fair, misses, wait = tables_wait(m)
    if speed is None:
        return ""
    out = "\n## Locks\n\n%s.\n\n%s\nFairness:\n\n%s\nThe %s:\n\n%s\n%s.\n" % (
        HEAD, speed.markdown(), fair.markdown(), WAIT, wait.markdown(), _targets(m))
    if misses:
        out += "\nMissed:\n\n" + "".join("- %s\n" % x for x in misses)
    return out


def html(m):
    speed, fair, misses, wait = tables_wait(m)
    if speed is None:
        return ""
    out = "<h2>Locks</h2>\n<p>%s.</p>\n%s<p>Fairness:</p>\n%s<p>The %s:</p>\n%s<p>%s.</p>\n" % (
        h(HEAD), speed.html(m.html_id("lock-table")), fair.html(m.html_id("lock-fair-table")), h(WAIT),
        wait.html(m.html_id("lock-wait-table")), h(_targets(m)))
    if misses:
        out += "<ul>%s</ul>\n" % "".join("<li>%s</li>" % h(x) for x in misses)
    return out
