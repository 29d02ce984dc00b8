"""Uniprocessor lock elision: what patching the lock prefixes gains, for the asm
backend (its own records) and the C11 backend (after `katomic uplocks`), from
the bench document's optional "up" object (bench/up-patch.c; docs/backends.md)."""
from ...common.tables import Table, h

HEAD = ("Uniprocessor lock elision (one pinned CPU, katomic_up_patch_pinned): ns per iteration with the lock "
        "prefixes and patched, median (min-max) of the per-round locked/patched ratios")


def table(m):
    doc = m.inputs.bench
    up = doc.get("up") if doc else None
    if not up:
        return None, None
    t = Table(["contender", "loop", "locked ns", "patched ns", "gain"])
    for r in up["results"]:
        t.add(r["contender"], r["loop"], "%.2f" % r["locked_ns_med"], "%.2f" % r["patched_ns_med"],
              "%.2fx (%.2f-%.2f)" % (r["ratio_med"], r["ratio_min"], r["ratio_max"]))
    note = ("%d sites patched (%d recorded by the asm backend, %d found by katomic uplocks), %d rounds, "
            "%d wrong counts" % (up["sites"], up["sites_asm"], up["sites_scanned"], up["rounds"], up["errors"]))
    return t, note


def text(m):
    t, note = table(m)
    return "" if t is None else "\n%s\n%s%s\n" % (HEAD, t.text(), note)


def markdown(m):
    t, note = table(m)
    return "" if t is None else "\n## Uniprocessor lock elision\n\n%s.\n\n%s\n%s.\n" % (HEAD, t.markdown(), note)


def html(m):
    t, note = table(m)
    if t is None:
        return ""
    return "<h2>Uniprocessor lock elision</h2>\n<p>%s.</p>\n%s<p>%s.</p>\n" % (h(HEAD), t.html(m.html_id("up-table")), h(note))
