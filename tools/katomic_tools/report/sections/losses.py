"""Where C11 still loses on this machine's target: slower ops and workloads,
and the codegen loss groups (tools/report/losses.tbl)."""
from ...common.tables import h, md_escape, wrap


def _bracket(l):
    if l.kind == "speed":
        return "speed " + l.cost
    s = "%d probe%s" % (l.probes, "s" if l.probes > 1 else "")
    if l.verdict == "WEAKER":
        s += ", WEAKER"
    return s + (", " + l.cost if l.cost else "")


def text(m):
    out = "Where C11 still loses on %s\n" % m.native
    if not m.losses:
        out += "  nowhere%s\n" % ("" if m.ok("codegen") and m.ok("bench") else " (in what ran)")
    for l in m.losses:
        out += wrap("- %s [%s; %s]: %s" % (l.what, l.compilers, _bracket(l), l.why), "    ")
    return out


def _what_md(l):
    return md_escape(l.what) + (" (%s)" % md_escape(l.examples) if l.examples and l.examples != l.what else "")


def markdown(m):
    out = "## Where C11 still loses on %s\n\n" % m.native
    if not m.losses:
        return out + "Nowhere%s.\n" % ("" if m.ok("codegen") and m.ok("bench") else " (in what ran)")
    out += "| what | compilers | probes | cost | why |\n|---|---|---:|---|---|\n"
    for l in m.losses:
        out += "| %s | %s | %s | %s | %s |\n" % (
            _what_md(l), md_escape(l.compilers), l.probes if l.kind == "code" else "speed",
            md_escape(("WEAKER " if l.verdict == "WEAKER" else "") + l.cost), md_escape(l.why))
    return out


def html(m):
    out = "<h2>Where C11 still loses on %s</h2>\n" % h(m.native)
    if not m.losses:
        return out + "<p>Nowhere%s.</p>\n" % ("" if m.ok("codegen") and m.ok("bench") else " (in what ran)")
    out += ('<table id="%s"><thead><tr><th>what</th><th>compilers</th><th>probes</th><th>cost</th><th>why</th>'
            "</tr></thead><tbody>\n" % m.html_id("loss-table"))
    for l in m.losses:
        ex = "<br><small>%s</small>" % h(l.examples) if l.examples and l.examples != l.what else ""
        out += '<tr><td>%s%s</td><td>%s</td><td class="num">%s</td><td class="%s">%s</td><td>%s</td></tr>\n' % (
            h(l.what), ex, h(l.compilers), l.probes if l.kind == "code" else "speed",
            "bad" if l.verdict == "WEAKER" else "warn", h(("WEAKER " if l.verdict == "WEAKER" else "") + l.cost), h(l.why))
    return out + "</tbody></table>\n"
