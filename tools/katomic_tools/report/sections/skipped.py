"""Skipped and missing: tools not installed (with the package), stages left out or failed."""
from ...common.tables import h, md_escape, wrap
from ..model import STAGES


def _notes(m):
    """(section, note) for each instrument's notes."""
    return [(s, n) for s in STAGES for n in m.stage[s].get("notes", [])]


def text(m):
    items = [wrap("- %s: %s" % (s, n), "    ") for s, n in _notes(m)]
    items += ["- plots: %s\n" % t["note"] for t in m.missing_tools if t["name"] == "gnuplot"]
    items += [wrap("- " + m.stage_problem(s), "    ") for s in STAGES if not m.ok(s)]
    return "\nSkipped or missing\n" + "".join(items) if items else ""


def _any(m):
    return _notes(m) or m.missing_tools or m.missing


def markdown(m):
    if not _any(m):
        return ""
    out = "\n## Skipped and missing\n\n"
    out += "".join("- %s: %s\n" % (s, md_escape(n)) for s, n in _notes(m))
    out += "".join("- %s: %s\n" % (t["name"], md_escape(t["note"])) for t in m.missing_tools)
    return out + "".join("- %s\n" % md_escape(m.stage_problem(s)) for s in STAGES if not m.ok(s))


def html(m):
    if not _any(m):
        return ""
    out = "<h2>Skipped and missing</h2>\n<ul>\n"
    out += "".join("<li>%s: %s</li>\n" % (s, h(n)) for s, n in _notes(m))
    out += "".join("<li>%s: %s</li>\n" % (h(t["name"]), h(t["note"])) for t in m.missing_tools)
    out += "".join('<li class="warn">%s</li>\n' % h(m.stage_problem(s)) for s in STAGES if not m.ok(s))
    return out + "</ul>\n"
