"""The memory model, proven on the compiled code: katomic verify's document
(verify/verify.json; docs/verify.md), per target x compiler x layer."""
from ...common.tables import Table, h

HEAD = "The memory model, proven on the compiled code"


def _caption(v):
    return ("herd7 %s: the states each compiled litmus test allows under its architecture's model, against the "
            "states the LKMM allows (%s); %d tests%s" % (
                v["herd7"] or "?", v["lkmm"], v["tests"], ", mutation " + v["mutation"] if v.get("mutation") else ""))


def table(m):
    v = m.verify
    if not v:
        return None
    t = Table(["target", "compiler", "layer", "judged", "WEAKER", "dep. folded", "stronger", "not judged", "why not"])
    for c in v["configs"]:
        why = ", ".join("%s %d" % kv for kv in sorted(c["reasons"].items(), key=lambda kv: -kv[1]))
        judged = "%d (%d split)" % (c["judged"], c["lock_split"]) if c.get("lock_split") else c["judged"]
        t.add(c["target"], c["cc"] + ("/asm" if c["backend"] == "asm" else ""), c["layer"], judged, c["weaker"],
              c.get("dependency_folded", 0), c["stronger"], c["not_judged"], why or "-")
    return t


SLOW_HEAD = "The lock's slow path (every way out an acquire) and unlock (a release)"


def slow_table(m):
    """katomic verify --slowpath's verdicts, per target x compiler (None without them)."""
    recs = (m.verify or {}).get("slowpath")
    if not recs:
        return None
    t = Table(["target", "compiler", "slow path", "ways out covered", "unlock", "why not"])
    for r in recs:
        ways = r.get("ways_out") or []
        t.add(r["target"], r["cc"], r["verdict"], "%d of %d" % (sum(1 for w in ways if w.get("covered")), len(ways)),
              r["unlock"].get("verdict", "?"), r.get("reason") if r["verdict"] != "acquire" else "-")
    return t


def _weaker_lines(v):
    out = []
    for c in v["configs"]:
        for r in c["tests"]:
            if r["verdict"] == "WEAKER":
                out.append("%s %s/%s/%s: %s allows %s%s" % (
                    "dependency folded:" if r.get("cause") else "WEAKER:", c["target"], c["cc"], c["layer"], r["name"],
                    "; ".join(r.get("weaker", [])), " (%s)" % r["cause"] if r.get("cause") else ""))
    return out


def text(m):
    t = table(m)
    if t is None:
        return ""
    lines = _weaker_lines(m.verify)
    st = slow_table(m)
    slow = "\n%s\n%s" % (SLOW_HEAD, st.text()) if st else ""
    return "\n%s\n  %s\n%s%s%s" % (HEAD, _caption(m.verify), t.text(), "".join("  %s\n" % x for x in lines), slow)


def markdown(m):
    t = table(m)
    if t is None:
        return ""
    lines = _weaker_lines(m.verify)
    st = slow_table(m)
    slow = "\n%s (docs/verify.md, \"The slow path and the unlock\"):\n\n%s\n" % (SLOW_HEAD, st.markdown()) if st else ""
    return "\n## %s\n\n%s (docs/verify.md).\n\n%s\n%s%s" % (HEAD, _caption(m.verify), t.markdown(),
                                                          "".join("- %s\n" % x for x in lines), slow)


def html(m):
    t = table(m)
    if t is None:
        return ""
    lines = _weaker_lines(m.verify)
    st = slow_table(m)
    slow = "<p>%s:</p>\n%s" % (h(SLOW_HEAD), st.html(m.html_id("verify-slowpath-table"))) if st else ""
    return "<h2>%s</h2>\n<p>%s (docs/verify.md).</p>\n%s%s%s" % (
        h(HEAD), h(_caption(m.verify)), t.html(m.html_id("verify-table")),
        "<ul>%s</ul>\n" % "".join("<li>%s</li>" % h(x) for x in lines) if lines else "", slow)
