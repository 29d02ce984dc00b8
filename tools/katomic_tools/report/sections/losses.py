"""Where C11 still loses on this machine's target: slower ops and workloads
(claimed by the bench's confirmation), the codegen loss groups
(tools/report/losses.tbl); then the speed candidates the confirmation did
not claim, and the noise floor it measured."""
from ...bench.confirm import noise_floor_text
from ...common.tables import h, md_escape, wrap


def _bracket(l):
    if l.kind == "speed":
        return "speed " + l.cost
    s = "%d probe%s" % (l.probes, "s" if l.probes > 1 else "")
    if l.verdict == "WEAKER":
        s += ", WEAKER"
    return s + (", " + l.cost if l.cost else "")


def _unclaimed(m):
    """(what, compiler, text) per candidate the confirmation did not claim."""
    out, claimed = [], set(m.bench.slower_names())
    for c, e in sorted(m.bench.unclaimed, key=lambda ce: -ce[1]["run_med"]):
        run = "the run %.2f (%.2f-%.2f)" % (c.ratio, c.lowest, c.highest)
        if "aa_med" not in e:
            out.append((c.title, c.label, "%s; not re-measured: %s (--full re-measures every candidate)" % (
                run, "another figure of %s is confirmed above" % c.name if c.name in claimed else
                "--quick re-measures the worst %d candidates" % m.bench.confirmation["max_cells"])))
            continue
        word = {"within noise": "within noise on this run", "small": "slower than the A/A control but under the "
                "threshold", "faster": "faster than the asm, confirmed", "slower": "slower"}[e["verdict"]]
        out.append((c.title, c.label, "%s: %s; alone %.2f (%.2f-%.2f) against the A/A control's %.2f (%.2f-%.2f), "
                    "%s %.2f" % (word, run, e["c11_asm_med"], e["c11_asm_low"], e["c11_asm_high"], e["aa_med"],
                                 e["aa_low"], e["aa_high"], "apart by" if e["margin"] > 0 else "overlapping by",
                                 abs(e["margin"]))))
    return out


def _confirmation_caption(m):
    conf = m.bench.confirmation
    if conf is None:
        return ("speed losses not confirmed: this bench document has no confirmation (no A/A control here, or an "
                "older run): the rule is the run's own, slower in every round" if m.ok("bench") else "")
    return ("speed losses are claimed only when confirmed: each candidate re-measured alone, %d C11/asm processes "
            "interleaved with %d A/A ones (identical code at other addresses), %d rounds each (ops: %d), in %.0f s "
            "(load %s -> %s); noise floor measured: %s" % (conf["processes"], conf["processes"], conf["rounds"],
                                                          conf.get("op_rounds", conf["rounds"]), conf["seconds"],
                                                conf["load_before"], conf["load_after"], noise_floor_text(conf)))


def text(m):
    out = "Where C11 still loses on %s\n" % m.native
    cap = _confirmation_caption(m)
    if cap:
        out += wrap("  " + cap, "    ")
    if not m.losses:
        out += "  nowhere%s\n" % ("" if m.ok("codegen") and m.ok("bench") else " (in what ran)")
    for l in m.losses:
        out += wrap("- %s [%s; %s]: %s" % (l.what, l.compilers, _bracket(l), l.why), "    ")
    un = _unclaimed(m)
    if un:
        out += "Speed candidates not claimed (not in the answer)\n"
        for what, cc, t in un:
            out += wrap("- %s [%s]: %s" % (what, cc, t), "    ")
    return out


def _what_md(l):
    return md_escape(l.what) + (" (%s)" % md_escape(l.examples) if l.examples and l.examples != l.what else "")


def _unclaimed_md(m):
    un = _unclaimed(m)
    if not un:
        return ""
    return "\nSpeed candidates not claimed (not in the answer):\n\n" + "".join(
        "- %s [%s]: %s\n" % (md_escape(w), md_escape(cc), md_escape(t)) for w, cc, t in un)


def markdown(m):
    out = "## Where C11 still loses on %s\n\n" % m.native
    cap = _confirmation_caption(m)
    if cap:
        out += md_escape(cap[0].upper() + cap[1:]) + ".\n\n"
    if not m.losses:
        return out + "Nowhere%s.\n" % ("" if m.ok("codegen") and m.ok("bench") else " (in what ran)") + _unclaimed_md(m)
    out += "| what | compilers | probes | cost | why |\n|---|---|---:|---|---|\n"
    for l in m.losses:
        out += "| %s | %s | %s | %s | %s |\n" % (
            _what_md(l), md_escape(l.compilers), l.probes if l.kind == "code" else "speed",
            md_escape(("WEAKER " if l.verdict == "WEAKER" else "") + l.cost), md_escape(l.why))
    return out + _unclaimed_md(m)


def _unclaimed_html(m):
    un = _unclaimed(m)
    if not un:
        return ""
    return "<p>Speed candidates not claimed (not in the answer):</p>\n<ul>\n%s</ul>\n" % "".join(
        "<li>%s [%s]: %s</li>\n" % (h(w), h(cc), h(t)) for w, cc, t in un)


def html(m):
    out = "<h2>Where C11 still loses on %s</h2>\n" % h(m.native)
    cap = _confirmation_caption(m)
    if cap:
        out += '<p class="cap">%s</p>\n' % h(cap[0].upper() + cap[1:])
    if not m.losses:
        return out + "<p>Nowhere%s.</p>\n" % ("" if m.ok("codegen") and m.ok("bench") else " (in what ran)") + _unclaimed_html(m)
    out += ('<table id="%s"><thead><tr><th>what</th><th>compilers</th><th>probes</th><th>cost</th><th>why</th>'
            "</tr></thead><tbody>\n" % m.html_id("loss-table"))
    for l in m.losses:
        ex = "<br><small>%s</small>" % h(l.examples) if l.examples and l.examples != l.what else ""
        out += '<tr><td>%s%s</td><td>%s</td><td class="num">%s</td><td class="%s">%s</td><td>%s</td></tr>\n' % (
            h(l.what), ex, h(l.compilers), l.probes if l.kind == "code" else "speed",
            "bad" if l.verdict == "WEAKER" else "warn", h(("WEAKER " if l.verdict == "WEAKER" else "") + l.cost), h(l.why))
    return out + "</tbody></table>\n" + _unclaimed_html(m)
