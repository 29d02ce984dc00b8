"""The machine: CPU, kernel, compilers, and how disturbed the bench was."""
from ...common.tables import h


def _compilers(m):
    return ", ".join("%s (%s)" % (c["name"], c["version"]) for c in m.compilers)


def _bench_line(m):
    b = m.inputs.bench
    if not b:
        return None
    return b["resampled"], b["disturbed"], "%.3f" % b["core_ghz_estimate"]


def text(m):
    return ""


def markdown(m):
    out = "\n## Machine\n\n- %s\n- compilers: %s\n" % (m.machine_line(), _compilers(m) or "none")
    b = _bench_line(m)
    if b:
        out += ("- bench: %s samples taken again because a thread was descheduled, %s still disturbed (kept the "
                "least disturbed); core clock estimate %s GHz\n" % b)
    return out


def html(m):
    out = "<h2>Machine</h2>\n<ul><li>%s</li><li>compilers: %s</li>\n" % (h(m.machine_line()), h(_compilers(m)))
    b = _bench_line(m)
    if b:
        out += ("<li>bench: %s samples taken again because a thread was descheduled, %s still disturbed (least "
                "disturbed kept); core clock estimate %s GHz</li>\n" % b)
    return out + "</ul>\n"
