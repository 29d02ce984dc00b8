"""The report's plots, drawn by gnuplot from the documents:

  plot-c11-vs-asm.png   C11/asm per op (and workload, threads <= CPUs) and
                        compiler: median bar, min..max error bar, log scale
  plot-codegen.png      codegen verdicts per compiler x target, as shares
  plot-bench-*.png      the bench's own charts (bench/plots.py)
"""
import os
import shutil
import subprocess
from dataclasses import dataclass

from ..bench import plots as bench_plots


@dataclass
class Plot:
    name: str   # c11-vs-asm, codegen, ratio-MODE, wl-NAME
    src: str    # the PNG, relative to the page


def _c11_vs_asm(m, out, prefix, term):
    cells, labels, value = [], [], {}
    lo, hi = 1.0, 1.0
    for c in m.bench.plot_cells():
        cell = "%s/%s" % (c.name, c.mode) if c.kind == "op" else "%s/%dt" % (c.name, c.threads)
        if c.label not in labels:
            labels.append(c.label)
        if cell not in cells:
            cells.append(cell)
        value[cell, c.label] = (c.ratio, c.lowest, c.highest)
        if 0 < c.lowest < lo:
            lo = c.lowest
        hi = max(hi, c.highest)
    if not cells:
        return None
    dat = os.path.join(out, prefix + "plot-c11-vs-asm.dat")
    with open(dat, "w") as f:
        f.write("# cell" + "".join("\t%s\tmin\tmax" % l for l in labels) + "\n")
        for cell in cells:
            f.write(cell + "".join("\t%s\t%s\t%s" % tuple(_fmt(x) for x in value[cell, l]) if (cell, l) in value
                                   else "\t-\t-\t-" for l in labels) + "\n")
    # 0.5..2, widened to 0.25..4 when a median or a min/max needs it (longer bars are clipped)
    y0, y1 = (0.25 if lo < 0.5 else 0.5), (4 if hi > 2 else 2)
    width = min(2000, max(800, 300 + len(cells) * (22 + 12 * len(labels))))
    png = os.path.join(out, prefix + "plot-c11-vs-asm.png")
    s = ["set terminal %s noenhanced size %d,480 font ',11'" % (term, width), "set output '%s'" % png,
         'set title "C11 / asm per op (mode) and workload (threads <= CPUs): median of per-round ratios, bar = '
         'min..max; < 1 = C11 faster"',
         "set datafile separator '\\t'", "set datafile missing '-'", "set style data histograms",
         "set style histogram errorbars gap 1 lw 1", "set style fill solid 0.7 border -1", "set boxwidth 0.9",
         "set bars front", "set logscale y 2", "set yrange [%g:%g]" % (y0, y1),
         "set ytics (0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4)", "set grid ytics", "set xtics rotate by -40 scale 0",
         "set key outside right top", "set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 front",
         "plot " + ", ".join("'%s' using %d:%d:%d%s title '%s'" % (dat, 3 * k - 1, 3 * k, 3 * k + 1,
                                                                  ":xtic(1)" if k == 1 else "", l)
                             for k, l in enumerate(labels, 1)),
         "unset arrow", "unset logscale y", "unset yrange"]
    return "\n".join(s) + "\n", png


def _fmt(x):
    return "%.4f" % x      # as the bench wrote it


def _codegen(m, out, prefix, term):
    configs = m.codegen.configs
    if not configs:
        return None
    dat = os.path.join(out, prefix + "plot-codegen.dat")
    with open(dat, "w") as f:
        f.write("# config\tidentical\tsame cost\tbetter\tworse\tWEAKER\tn/a\tprobes\n")
        for c in configs:
            f.write("%s %s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n" % (c["target"], c["compiler"], c["identical"], c["same"],
                                                             c["better"], c["worse"], c["weaker"], c["na"], c["probes"]))
    png = os.path.join(out, prefix + "plot-codegen.png")
    colours = (("identical", "#2e8b57"), ("same cost", "#9acd32"), ("better", "#4682b4"), ("worse", "#f0a030"),
               ("WEAKER", "#d62728"), ("n/a", "#c8c8c8"))
    s = ["set terminal %s noenhanced size %d,560 font ',11'" % (term, max(800, 300 + len(configs) * 42)),
         "set output '%s'" % png,
         "set title 'codegen: C11 verdict per probe, per target and compiler (x86_64: vs the asm backend; "
         "others: vs the kernel sequence)'",
         "set datafile separator '\\t'", "set style data histograms", "set style histogram rowstacked",
         "set style fill solid 0.85 border -1", "set boxwidth 0.75", "set yrange [0:100]", "set ytics 0,20,100",
         "set ylabel '% of probes'", "set grid ytics", "set xtics rotate by -40 scale 0", "set key outside right top",
         "plot " + ", ".join("%s using (100*$%d/$8)%s title '%s' lc rgb '%s'" % (
             "'%s'" % dat if k == 2 else "''", k, ":xtic(1)" if k == 2 else "", t, rgb)
             for k, (t, rgb) in enumerate(colours, 2))]
    return "\n".join(s) + "\n", png


def draw(m, out, prefix, log):
    """Draw every plot of one machine into out/prefix*; return [Plot] in page order."""
    if not shutil.which("gnuplot"):
        return []
    term = bench_plots.png_terminal()
    made = []
    for name, make in (("c11-vs-asm", _c11_vs_asm), ("codegen", _codegen)):
        job = make(m, out, prefix, term)
        if job is None:
            continue
        script, png = job
        with open(log, "a") as f:
            f.write(script)
            ok = subprocess.run(["gnuplot"], input=script, text=True, stdout=f, stderr=f).returncode == 0
        if ok and os.path.getsize(png) > 0:
            made.append(Plot(name, prefix + os.path.basename(png)))
    if m.inputs.bench:
        pngs = bench_plots.draw(m.inputs.bench, out, lambda msg: None, prefix=prefix + "plot-bench-",
                                formats=("png",), log=log)
        for png in sorted(pngs):
            name = os.path.basename(png)[len("plot-bench-"):-len(".png")]
            made.append(Plot(name, prefix + os.path.basename(png)))
    return made
