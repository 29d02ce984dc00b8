"""Assemble the sections into stdout text, REPORT.md and index.html, for one
machine or, merged, for several (a summary table, then each machine)."""
from ..common.tables import Table, h, md_escape, wrap
from .sections import SECTIONS

TITLE = "katomic report: time to move to C11 atomics?"

CSS = """body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .6em;border:1px solid #ccc;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}td.span{color:#666;font-style:italic}
.bad{background:#f8d0d0}.warn{background:#fbecc4}.good{background:#dcf2dc}
.answer{font-size:1.15em;padding:.7em 1em;border-radius:6px;margin:1em 0}.answer.yes{background:#dcf2dc;border:1px solid #6a6}
.answer.no{background:#f8d0d0;border:1px solid #c66}.answer.maybe{background:#fbecc4;border:1px solid #ca4}
.cap{color:#555;margin:.2em 0}.plot{max-width:100%;border:1px solid #ddd;margin:.4em 0}figure{margin:1em 0}figcaption{color:#555}
code{background:#f4f4f4;padding:0 .2em}ul{padding-left:1.3em}details{margin:.5em 0}#plot-check.bad{padding:.3em}
h2.machine{font-size:1.35em;border-bottom:2px solid #888}
"""

# Marks each plot as loaded or broken (visible; also read by make check-report: report/check.py).
SCRIPT = """<script>
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img.plot'), ok = 0, bad = [];
  for (var i = 0; i < imgs.length; i++) {
    if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; else bad.push(imgs[i].getAttribute('src'));
  }
  var p = document.getElementById('plot-check');
  p.setAttribute('data-loaded', ok); p.setAttribute('data-broken', bad.length);
  if (bad.length) { p.className = 'bad'; p.textContent = 'Plots that did not load: ' + bad.join(', '); }
});
</script>
"""


def _answer_class(ans):
    return "yes" if ans == "YES" else "no" if ans == "NO" else "maybe"


# ---------------------------------------------------------------- one machine
def text(m):
    out = "%s  (%s)\n%s\n" % (TITLE, m.header(), wrap(m.machine_line(), "  "))
    out += "".join(s.text(m) for s in SECTIONS)
    return out + "\n" + wrap("Answer: " + m.line, "  ")


def markdown_body(m):
    return "".join(s.markdown(m) for s in SECTIONS)


def markdown(m):
    return "# %s\n\n**Answer: %s**\n\n%s; %s\n\n%s" % (TITLE, md_escape(m.line), m.header(), m.machine_line(),
                                                      markdown_body(m))


def html_body(m):
    return "".join(s.html(m) for s in SECTIONS)


def _html_page(title, head, body, nplots):
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>%s</title>\n<style>\n%s</style></head>'
            "<body>\n%s%s" % (h(title), CSS, head, body)
            + '<p id="plot-check" data-total="%d"></p>\n' % nplots + SCRIPT + "</body></html>\n")


def html(m):
    head = ('<h1>%s</h1>\n<p class="cap">%s &mdash; %s</p>\n<div class="answer %s" id="answer"><b>%s</b></div>\n'
            % (h(TITLE), h(m.header()), h(m.machine_line()), _answer_class(m.answer), h(m.line)))
    return _html_page("katomic report: " + m.answer, head, html_body(m), len(m.plots))


# ---------------------------------------------------------------- several machines
ORDER = ("NO", "NOT YET", "INCOMPLETE", "YES")


def merged_answer(models):
    """The worst answer over the machines, and a line naming each machine's."""
    worst = min((m.answer for m in models), key=ORDER.index)
    if all(m.answer == worst for m in models):
        return worst, "%s on every machine (%d): %s" % (worst, len(models), ", ".join(m.label for m in models))
    return worst, "%s: %s" % (worst, "; ".join("%s on %s" % (m.answer, m.label) for m in models))


def summary_table(models):
    t = Table(["machine", "arch", "CPUs", "answer", "WEAKER", "forbidden seen", "C11/asm", "date"])
    for m in models:
        t.add(m.label, m.native, m.machine["cpus"], m.answer, m.weaker_native, m.forbidden,
              ", ".join("%.2f %s" % (g, c) for c, g in m.speed) or "-", m.machine["date"])
    return t


def merged_text(models, ans, line):
    out = "%s  (%d machines)\n\n%s" % (TITLE, len(models), summary_table(models).text())
    for m in models:
        out += "\n==== %s\n%s" % (m.label, text(m))
    return out + "\n" + wrap("Answer, all machines: " + line, "  ")


def merged_markdown(models, ans, line):
    out = "# %s\n\n**Answer: %s**\n\n%d machines, each run on its own and rendered together.\n\n%s" % (
        TITLE, md_escape(line), len(models), summary_table(models).markdown())
    for m in models:
        body = markdown_body(m).replace("\n## ", "\n### ")
        body = "#" + body if body.startswith("## ") else body
        out += "\n## Machine: %s\n\n**Answer: %s**\n\n%s; %s\n\n%s" % (
            md_escape(m.label), md_escape(m.line), m.header(), m.machine_line(), body)
    return out


def merged_html(models, ans, line):
    head = ('<h1>%s</h1>\n<p class="cap">%d machines</p>\n<div class="answer %s" id="answer"><b>%s</b></div>\n%s'
            % (h(TITLE), len(models), _answer_class(ans), h(line),
               summary_table(models).html("machines-table")))
    body = ""
    for m in models:
        body += ('<h2 class="machine" id="%s">Machine: %s</h2>\n<p class="cap">%s &mdash; %s</p>\n'
                 '<div class="answer %s"><b>%s</b></div>\n%s' % (
                     h(m.html_id("machine")), h(m.label), h(m.header()), h(m.machine_line()),
                     _answer_class(m.answer), h(m.line), html_body(m)))
    return _html_page("katomic report: " + ans, head, body, sum(len(m.plots) for m in models))
