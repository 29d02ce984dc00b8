"""Litmus on this CPU: per run, tests passed and forbidden outcomes seen."""
from ...common.tables import Table, h, md_escape
from .. import rules

LEGEND_MD = ("*judged by herd7 / by comment*: tests whose every observed state was checked against the states herd7 "
             "says the LKMM allows, and tests judged only by their Result: comment (herd7 not found, or it could not "
             "run the test). "
             "*forbidden seen* counts runs that ended in a state the test forbids (must be 0); *weak seen*: tests "
             "whose allowed weak outcome was witnessed (x86-64 is TSO: only store buffering and store forwarding can "
             "show); *not seen*: allowed but not observed (reported, not a failure); *not judged*: run and reported, "
             "but the test asks for no verdict (Result Maybe or none) or races (DATARACE).")
LEGEND_HTML = ("<i>judged by herd7 / by comment</i>: tests whose every observed state was checked against the "
               "states herd7 says the LKMM allows, and tests judged only by their Result: comment (herd7 not found, "
               "or it could not run the test). <i>forbidden seen</i>: runs that ended in a state the test forbids (must be 0). <i>weak seen</i>: "
               "tests whose allowed weak outcome was witnessed (x86-64 is TSO: only store buffering and store "
               "forwarding can show). <i>not seen</i>: allowed but not observed &mdash; reported, not a failure. "
               "<i>not judged</i>: run and reported, but the test asks for no verdict (Result Maybe or none) "
               "or races (DATARACE).")


def table(m):
    t = Table(["backend", "harness", "tests", "passed", "failed", "judged by herd7 / by comment", "forbidden seen",
               "weak seen", "not seen", "not judged", "skipped/errors"])
    for r in m.litmus.runs:
        if not r.ok:
            t.add(r.backend, r.cc, "~did not run: " + r.note)
        else:
            t.add(r.backend, r.cc, r.tests, r.passed, r.failed,
                  "%d / %d" % (r.by_herd7, r.by_comment) if r.oracle else "- / %d (no herd7)" % r.by_comment,
                  r.forbidden, "%d of %d" % (r.weak_seen, r.weak_tests),
                  r.not_seen, r.not_judged, r.skipped + r.errors)
    if not m.litmus.runs:
        t.add("-", "~not run")
    return t


def disagreements(m):
    """A fact about the tests' comments, not a failure: said once, under the table."""
    n = max([r.disagreements for r in m.litmus.ok_runs()] or [0])
    return ("%d test(s) carry a Result: comment that herd7's LKMM contradicts (the runner's text output names them, "
            "\"Disagreement\")" % n) if n else ""


def text(m):
    d = disagreements(m)
    return "%s\n%s\n%s" % (m.litmus_caption(), table(m).text(), d + "\n" if d else "")


def markdown(m):
    out = "## Litmus on this CPU\n\n%s\n\n%s\n%s\n\n" % (m.litmus_caption(), table(m).markdown(), LEGEND_MD)
    if disagreements(m):
        out += disagreements(m) + ".\n\n"
    return out + "".join("- %s\n" % md_escape(p) for p in m.litmus.problems())


def html(m):
    lv = m.litmus
    out = '<h2>Litmus on this CPU</h2>\n<p class="cap">%s</p>\n%s' % (
        h(m.litmus_caption()), table(m).html(m.html_id("litmus-table"), rules.cell_colour))
    out += '<p class="cap">%s</p>\n' % LEGEND_HTML
    if disagreements(m):
        out += '<p class="cap">%s.</p>\n' % h(disagreements(m))
    if lv.problems():
        out += "<ul>\n" + "".join('<li class="bad">%s</li>\n' % h(p) for p in lv.problems()) + "</ul>\n"
    if lv.tests:
        out += ("<details><summary>every test (%d) &times; run: observation, positive/negative</summary>\n"
                "<table><thead><tr><th>test</th><th>expected</th>" % len(lv.tests))
        out += "".join("<th>%s</th>" % h(r) for r in lv.run_names) + "</tr></thead><tbody>\n"
        for name in lv.tests:
            out += "<tr><td>%s</td><td>%s</td>" % (h(name), h(lv.expected[name]))
            for run in lv.run_names:
                t = lv.cell.get((name, run))
                if t is None:
                    out += "<td>-</td>"
                    continue
                v = t["verdict"]
                cls = "bad" if v == "FAIL" else "good" if v == "PASS" else ""
                out += '<td class="%s">%s %d/%d</td>' % (cls, h(t["observation"]), t["positive"], t["negative"])
            out += "</tr>\n"
        out += "</tbody></table></details>\n"
    return out
