"""The plots: the report's own (C11/asm, codegen verdicts) and the bench's charts."""
from ...common.tables import h


def caption(p):
    if p.name == "c11-vs-asm":
        return "C11/asm per op and workload, per compiler: median, with the min..max over rounds (log scale; 1 = as fast)"
    if p.name == "codegen":
        return "codegen verdicts per compiler and target (share of probes)"
    if p.name.startswith("ratio-"):
        return ("bench: every contender (katomic, peers, raw instruction) relative to katomic asm, mode "
                + p.name[len("ratio-"):])
    return "bench: throughput against threads, workload %s (all contenders)" % p.name[len("wl-"):]


def text(m):
    return ""


def markdown(m):
    if not m.plots:
        return ""
    return "\n## Plots\n\n" + "".join("![%s](%s)\n\n" % (p.name, p.src) for p in m.plots)


def html(m):
    out = "<h2>Plots</h2>\n"
    if not m.plots:
        note = m.missing_note.get("gnuplot")
        out += "<p>No plots%s.</p>\n" % (": " + h(note) if note else "")
    for p in m.plots:
        out += '<figure><img class="plot" src="%s" alt="%s"><figcaption>%s</figcaption></figure>\n' % (
            h(p.src), h(p.name), h(caption(p)))
    return out
