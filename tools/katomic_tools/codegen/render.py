"""Render the codegen document as codegen.md, codegen.html and the summary table."""
import html

SHORT = {"identical": "=", "same": "~", "better": "+", "worse": "-", "WEAKER": "W", "n/a": "."}


def _bucket(v):
    return "same" if v in ("identical", "same") else "na" if v == "n/a" else v


def _css_class(v):
    return "na" if v == "n/a" else v


def _md(s):
    return str(s).replace("|", "\\|")


def _h(s):
    return html.escape(str(s), quote=False)


def _n(x):
    return "-" if x is None else str(x)


class _View:
    """The results as a configs x probes grid (in order of first appearance)."""

    def __init__(self, doc):
        self.doc = doc
        self.configs = [(c["compiler"], c["target"]) for c in doc["configs"]]
        self.counts = {(c["compiler"], c["target"]): c for c in doc["configs"]}
        self.probes, self.cls, self.cell = [], {}, {}
        for r in doc["results"]:
            if r["probe"] not in self.cls:
                self.probes.append(r["probe"])
                self.cls[r["probe"]] = r["class"]
            self.cell[(r["compiler"], r["target"]), r["probe"]] = r

    def each(self, verdicts):
        """(config, probe, row) for every cell whose verdict is in `verdicts`, configs first."""
        for c in self.configs:
            for p in self.probes:
                r = self.cell.get((c, p))
                if r and r["verdict"] in verdicts:
                    yield c, p, r


def summary_text(doc):
    v = _View(doc)
    out = ["%-10s %-20s %5s %6s %5s %6s %4s" % ("compiler", "target", "same", "better", "worse", "WEAKER", "n/a")]
    for cc, t in v.configs:
        k = v.counts[cc, t]
        out.append("%-10s %-20s %5d %6d %5d %6d %4d" % (
            cc, t + (" (vs asm)" if t == "x86_64" else " (vs kernel)"),
            k["identical"] + k["same"], k["better"], k["worse"], k["weaker"], k["na"]))
    return "\n".join(out) + "\n"


def markdown(doc):
    v = _View(doc)
    o = ["# katomic codegen audit\n",
         "C11 backend vs the reference, per probe (one function per public API name, %s)." % doc["opt"],
         "x86-64: the reference is the asm backend built by the same compiler; other targets: the kernel's",
         "own sequence for the probe's ordering class (tools/codegen/kernel-seq.tbl).  Verdicts: identical",
         "(same instructions), same (same counts), better, worse, WEAKER (the ordering the kernel class",
         "requires is missing: a correctness bug), n/a (no kernel counterpart).\n",
         "## Summary\n",
         "| compiler | target | reference | identical+same | better | worse | WEAKER | n/a |",
         "|---|---|---|---|---|---|---|---|"]
    for cc, t in v.configs:
        k = v.counts[cc, t]
        o.append("| %s | %s | %s | %d | %d | %d | %d | %d |" % (
            cc, t, "asm backend" if t == "x86_64" else "kernel class",
            k["identical"] + k["same"], k["better"], k["worse"], k["weaker"], k["na"]))
    o.append("\n## WEAKER than the kernel (correctness)\n")
    weak = list(v.each({"WEAKER"}))
    for (cc, t), p, r in weak:
        o.append("- **%s** %s/%s (%s): %s — `%s`" % (p, cc, t, v.cls[p], r["reason"], _md(r["c11"])))
    if not weak:
        o.append("None.")
    o += ["\n## Where C11 loses\n", "| probe | compiler/target | C11 insns | ref insns | reason |", "|---|---|---|---|---|"]
    for (cc, t), p, r in v.each({"worse"}):
        o.append("| %s | %s/%s | %s | %s | %s |" % (p, cc, t, r["c11_insns"], _n(r["ref_insns"]), _md(r["reason"])))
    o += ["\n## Matrix\n", "`=` identical, `~` same cost, `+` better, `-` worse, `W` WEAKER, `.` n/a, blank: not built.\n"]
    o.append("Columns: " + ", ".join("%d = %s/%s" % (i + 1, cc, t) for i, (cc, t) in enumerate(v.configs)))
    o.append("\n| probe |" + "".join(" %d |" % (i + 1) for i in range(len(v.configs))))
    o.append("|---|" + "---|" * len(v.configs))
    for p in v.probes:
        cells = (SHORT[v.cell[c, p]["verdict"]] if (c, p) in v.cell else " " for c in v.configs)
        o.append("| " + p + " |" + "".join(" %s |" % s for s in cells))
    o.append("\n## Sequences where C11 is worse or WEAKER\n")
    for p in v.probes:
        bad = [(c, v.cell[c, p]) for c in v.configs if (c, p) in v.cell and v.cell[c, p]["verdict"] in ("worse", "WEAKER")]
        if not bad:
            continue
        o.append("### %s (%s)\n" % (p, v.cls[p]))
        for (cc, t), r in bad:
            o.append("- %s/%s **%s** (%s)\n  - C11: `%s`\n  - ref: `%s`" % (cc, t, r["verdict"], r["reason"], _md(r["c11"]), _md(r["ref"])))
        o.append("")
    return "\n".join(o) + "\n"


def page(doc):
    v = _View(doc)
    opt = doc["opt"]
    o = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>katomic codegen audit</title><style>',
         "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 5px;font-size:12px}",
         ".identical{background:#9e9}.same{background:#cfc}.better{background:#8cf}.worse{background:#f99}.WEAKER{background:#c00;color:#fff}.na{background:#eee}",
         "code{font-size:11px}th.v{writing-mode:vertical-rl}td.s{font-family:monospace;font-size:11px;white-space:pre-wrap}</style></head><body>",
         "<h1>katomic codegen audit</h1><p>C11 backend vs reference (%s): on x86-64 the asm backend built by the same compiler, "
         "elsewhere the kernel's sequence for the ordering class. Colours: <span class=identical>identical</span> "
         "<span class=same>same cost</span> <span class=better>better</span> <span class=worse>worse</span> "
         "<span class=WEAKER>WEAKER</span> <span class=na>n/a</span>.</p>" % _h(opt),
         "<h2>Summary</h2><table><tr><th>compiler</th><th>target</th><th>same</th><th>better</th><th>worse</th><th>WEAKER</th><th>n/a</th></tr>"]
    for cc, t in v.configs:
        k = v.counts[cc, t]
        o.append("<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td class=%s>%d</td><td class=%s>%d</td><td>%d</td></tr>" % (
            cc, t, k["identical"] + k["same"], k["better"], "worse" if k["worse"] else "same", k["worse"],
            "WEAKER" if k["weaker"] else "same", k["weaker"], k["na"]))
    o.append("</table><h2>Where C11 loses</h2><table><tr><th>probe</th><th>compiler/target</th><th>verdict</th>"
             "<th>C11 insns</th><th>ref insns</th><th>reason</th></tr>")
    for (cc, t), p, r in v.each({"worse", "WEAKER"}):
        o.append('<tr><td><a href="#%s">%s</a></td><td>%s/%s</td><td class=%s>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>' % (
            p, p, cc, t, r["verdict"], r["verdict"], r["c11_insns"], _n(r["ref_insns"]), _h(r["reason"])))
    o.append("</table><h2>Matrix: ops &times; compilers</h2><table><tr><th>probe</th>"
             + "".join("<th class=v>%s/%s</th>" % c for c in v.configs) + "</tr>")
    for p in v.probes:
        row = '<tr><td><a href="#%s">%s</a></td>' % (p, p)
        for c in v.configs:
            r = v.cell.get((c, p))
            if r is None:
                row += "<td></td>"
                continue
            title = "%s: %s (%s vs %s)" % (r["verdict"], r["reason"], r["c11_insns"], _n(r["ref_insns"]))
            row += '<td class=%s title="%s">%s</td>' % (_css_class(r["verdict"]), html.escape(title), SHORT[r["verdict"]])
        o.append(row + "</tr>")
    o.append("</table><h2>Per-op sequences</h2>")
    for p in v.probes:
        o.append('<h3 id="%s">%s <small>(%s)</small></h3><table><tr><th>compiler/target</th><th>verdict</th>'
                 "<th>C11</th><th>reference</th></tr>" % (p, p, v.cls[p]))
        for c in v.configs:
            r = v.cell.get((c, p))
            if r is None:
                continue
            o.append("<tr><td>%s/%s</td><td class=%s>%s<br>%s</td><td class=s>%s</td><td class=s>%s</td></tr>" % (
                c[0], c[1], _css_class(r["verdict"]), r["verdict"], _h(r["reason"]),
                _h(r["c11"].replace("; ", "\n")), _h(r["ref"].replace("; ", "\n"))))
        o.append("</table>")
    o.append("</body></html>")
    return "\n".join(o) + "\n"
