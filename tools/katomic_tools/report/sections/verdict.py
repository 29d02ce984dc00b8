"""C11 vs the asm reference, per compiler: the codegen counts and the C11/asm speed."""
from ...common.tables import Table, h
from .. import rules


def table(m):
    t = Table(["compiler", "identical", "same cost", "better", "worse", "WEAKER", "C11/asm", "worst op", "workloads"])
    for r in m.rows:
        c = r.codegen
        cells = [r.name] + ([c["identical"], c["same"], c["better"], c["worse"], c["weaker"]] if c else ["-"] * 5)
        b = r.bench
        if b:
            wg = b.workloads_geomean()
            cells += ["%.2f" % b.geomean(), "%s %.2f" % (b.worst.title, b.worst.ratio), "-" if wg is None else "%.2f" % wg]
        else:
            cells += ["-", "not benchmarked" if m.ok("bench") else "not measured", "-"]
        t.add(*cells)
    for family, note in m.missing_compiler_rows():
        t.add(family, "~" + note)
    if not m.rows and not m.missing_compiler_rows():
        t.add("-", "~no results: %s; %s" % (m.stage_problem("codegen"), m.stage_problem("bench")))
    return t


def text(m):
    return "C11 vs the asm reference on this machine, per compiler\n  %s\n  %s\n%s\n" % (
        m.code_caption(), m.speed_caption(), table(m).text())


def markdown(m):
    return "## C11 vs the asm reference, per compiler\n\n- %s\n- %s\n\n%s\n" % (
        m.code_caption(), m.speed_caption(), table(m).markdown())


def html(m):
    return '<h2>C11 vs the asm reference, per compiler</h2>\n<p class="cap">%s<br>%s</p>\n%s' % (
        h(m.code_caption()), h(m.speed_caption()), table(m).html(m.html_id("verdict-table"), rules.cell_colour))
