"""bench.json as the Markdown tables of bench/README.md's results section.

  python3 -m katomic_tools.bench.results_md [--band LO,HI] build/bench/bench.json

  1. C11/asm per op and mode, one table per compiler (c11-gcc / asm-gcc, ...):
     median (min-max) of the per-round ratios, **bold** outside the band
     (default 0.97-1.03);
  2. the same for the workloads, oversubscribed points marked and not judged;
  3. peers (every contender that is not katomic's nor the raw instruction):
     peer ns/op / katomic C11 ns/op (median), solo / shared;
  4. uncontended (solo): katomic / the raw instruction (median).
"""
import sys

from ..common import documents

MODES = ("solo", "shared", "own", "false")


class Figures:
    def __init__(self, doc):
        self.doc = doc
        self.cpus = doc["cpus"]
        self.ops, self.workloads, self.oversub = [], [], {}
        self.row = {}
        for r in doc["results"]:
            key = (r["name"], r["mode"], r["threads"])
            self.row[r["contender"], key] = r
            if r["kind"] == "op" and r["name"] not in self.ops:
                self.ops.append(r["name"])
            if r["kind"] == "workload":
                wk = (r["name"], r["threads"])
                if wk not in self.workloads:
                    self.workloads.append(wk)
                if "oversubscribed" in r:
                    self.oversub.setdefault(wk, r["oversubscribed"])
        for wk in self.workloads:
            self.oversub.setdefault(wk, wk[1] > self.cpus)
        names = [c["name"] for c in doc["contenders"]]
        self.c11 = [c for c in names if c.startswith("c11-")]
        self.katomic = [c for c in names if c.startswith(("c11-", "asm-"))]
        self.peers = [c for c in names if not c.startswith(("c11-", "asm-")) and c != "raw"]
        shared = [k[2] for (_, k) in self.row if k[1] == "shared"]
        self.threads = shared[0] if shared else None

    def get(self, c, key, field):
        r = self.row.get((c, key))
        return None if r is None else r.get(field)

    def is_na(self, c, key):
        r = self.row.get((c, key))
        return r is not None and r["status"] == "n/a"


def tables(doc, lo=0.97, hi=1.03):
    f = Figures(doc)
    out = []
    outside = {c: 0 for c in f.c11}

    def ratio_cell(c, key, judged):
        med = f.get(c, key, "ratio_asm_med")
        if med is None:
            return "n/a" if f.is_na(c, key) else "-"
        s = "%.2f (%.2f-%.2f)" % (med, f.get(c, key, "ratio_asm_min"), f.get(c, key, "ratio_asm_max"))
        if judged and (med < lo or med > hi):
            outside[c] += 1
            return "**" + s + "**"
        return s

    for c in f.c11:
        ref = "asm-" + c[len("c11-"):]
        out.append("\n%s / %s, per op (median (min-max) of the per-round ratios; **bold** = outside %.2f-%.2f)\n" % (c, ref, lo, hi))
        out.append("| op | solo | shared | own | false |\n|---|---|---|---|---|")
        for op in f.ops:
            cells = [ratio_cell(c, (op, m, 1 if m == "solo" else f.threads), True) for m in MODES]
            out.append("| %s | %s |" % (op, " | ".join(cells)))

    out.append("\nWorkloads, C11/asm (oversub = more threads than CPUs: shown, not judged)\n")
    out.append("| workload/threads | " + " | ".join("%s / asm-%s" % (c, c[4:]) for c in f.c11) + " |")
    out.append("|---|" + "---|" * len(f.c11))
    for name, thr in f.workloads:
        over = f.oversub[name, thr]
        key = (name, "threads", thr)
        out.append("| %s/%d%s | %s |" % (name, thr, " oversub" if over else "",
                                         " | ".join(ratio_cell(c, key, not over) for c in f.c11)))
    out.append("\nOutside the band (judged figures): " + ", ".join("%s %d" % (c[4:], outside[c]) for c in f.c11))

    def c11_ratio(p, key):
        v = f.get(p, key, "ratio_c11_med")
        return "n/a" if v is None else "%.2f" % v

    out.append("\nPeers: peer ns/op / katomic c11 ns/op (std-clang against c11-clang, the others against c11-gcc), "
               "median, solo / shared; >1 = the peer pays more\n")
    out.append("| op |" + "".join(" %s |" % p for p in f.peers))
    out.append("|---|" + "---|" * len(f.peers))
    for op in f.ops:
        cells = []
        for p in f.peers:
            s = "%s / %s" % (c11_ratio(p, (op, "solo", 1)), c11_ratio(p, (op, "shared", f.threads)))
            cells.append("n/a" if s == "n/a / n/a" else s)
        out.append("| %s |%s" % (op, "".join(" %s |" % s for s in cells)))
    for name, thr in f.workloads:
        key = (name, "threads", thr)
        out.append("| %s/%d%s |%s" % (name, thr, " oversub" if f.oversub[name, thr] else "",
                                       "".join(" %s |" % c11_ratio(p, key) for p in f.peers)))

    out.append("\nUncontended (solo): katomic / raw instruction, median\n")
    out.append("| op |" + "".join(" %s |" % c for c in f.katomic))
    out.append("|---|" + "---|" * len(f.katomic))
    for op in f.ops:
        cells = []
        for c in f.katomic:
            v = f.get(c, (op, "solo", 1), "ratio_raw_med")
            cells.append("n/a" if v is None else "%.2f" % v)
        out.append("| %s |%s" % (op, "".join(" %s |" % s for s in cells)))
    return "\n".join(out) + "\n"


def main(argv):
    lo, hi = 0.97, 1.03
    if argv[:1] == ["--band"]:
        lo, hi = (float(x) for x in argv[1].split(","))
        argv = argv[2:]
    if len(argv) != 1:
        print("usage: python3 -m katomic_tools.bench.results_md [--band LO,HI] bench.json", file=sys.stderr)
        return 2
    try:
        doc = documents.read(argv[0], "bench")
    except ValueError as e:
        print("results_md: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.write(tables(doc, lo, hi))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
