"""Other targets (codegen only): C11 against the kernel's own sequence per ordering class."""
from ...common.tables import Table, h, md_escape, wrap
from .. import rules

BIG_GROUP = 10      # stdout lists the groups with a WEAKER probe or at least this many probes


def table(m):
    t = Table(["target", "compiler", "same", "better", "worse", "WEAKER", "n/a"])
    for c in m.codegen.other_configs():
        t.add(c["target"], c["compiler"], c["identical"] + c["same"], c["better"], c["worse"], c["weaker"], c["na"])
    return t


def _plural(n):
    return "%d probe%s" % (n, "s" if n > 1 else "")


def text(m):
    if not m.codegen.other_configs():
        return ""
    out = "\nOther targets (codegen only: C11 vs the kernel's own sequence for each op)\n" + table(m).text()
    small = 0
    for g in m.codegen.other_groups():
        if g.verdict != "WEAKER" and len(g.probes) < BIG_GROUP:
            small += 1
            continue
        out += wrap("- %s [%s; %s, %s]: %s%s (e.g. %s)" % (
            g.target, ", ".join(g.compilers), _plural(len(g.probes)), g.verdict, g.label,
            ": " + g.why if g.why else "", g.examples(3)), "    ")
    if small:
        out += "- and %d smaller group%s (< %d probes each): see REPORT.md\n" % (small, "s" if small > 1 else "", BIG_GROUP)
    return out


def markdown(m):
    if not m.codegen.other_configs():
        return ""
    out = ("\n## Other targets (codegen only)\n\nC11 against the kernel's own sequence for each op's ordering class "
           "(`tools/codegen/kernel-seq.tbl`).\n\n%s\n" % table(m).markdown())
    for g in m.codegen.other_groups():
        out += "- **%s** [%s; %d probe(s), %s]: %s%s (e.g. %s)\n" % (
            g.target, md_escape(", ".join(g.compilers)), len(g.probes), g.verdict, md_escape(g.label),
            ": " + md_escape(g.why) if g.why else "", md_escape(g.examples()))
    return out


def html(m):
    if not m.codegen.other_configs():
        return ""
    out = ('<h2>Other targets (codegen only)</h2>\n<p class="cap">C11 against the kernel\'s own sequence for each '
           "op's ordering class.</p>\n%s<ul>\n" % table(m).html(m.html_id("target-table"), rules.cell_colour))
    for g in m.codegen.other_groups():
        out += "<li%s><b>%s</b> [%s; %d probe(s), %s]: %s%s <small>(e.g. %s)</small></li>\n" % (
            ' class="bad"' if g.verdict == "WEAKER" else "", h(g.target), h(", ".join(g.compilers)), len(g.probes),
            g.verdict, h(g.label), ": " + h(g.why) if g.why else "", h(g.examples()))
    return out + "</ul>\n"
