"""The bench's own charts, from bench.json, drawn by gnuplot:

  ratio-MODE.{png,svg}  per op: every contender's ns/op relative to katomic asm
                        (median of per-round ratios), one chart per mode
  wl-NAME.{png,svg}     per workload: throughput (median Mops/s) against threads,
                        one line per contender

Every contender found in the document gets a column: a new contender needs
no change here.
"""
import os
import subprocess


def pivot(results, select, row_key, value_key, head):
    """A gnuplot matrix: one row per distinct row_key, one column per contender
    (in order of first appearance), "-" where there is no value."""
    rows, cols, cell = [], [], {}
    for r in results:
        if not select(r):
            continue
        rk, c = row_key(r), r["contender"]
        if c not in cols:
            cols.append(c)
        if rk not in rows:
            rows.append(rk)
        v = r.get(value_key)
        cell[rk, c] = "-" if v is None else "%.4f" % v
    lines = [" ".join([head] + cols)]
    for rk in rows:
        lines.append(" ".join([str(rk)] + [cell.get((rk, c), "-") for c in cols]))
    return lines, len(rows), len(cols)


def first_seen(values):
    return list(dict.fromkeys(values))


RATIO_SCRIPT = """set terminal {term}
set output '{out}'
set title "per-op cost relative to katomic asm backend, mode '{mode}' (median of per-round ratios; log scale; n/a = no bar)"
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y 2
set yrange [0.25:32]
set ytics (0.25, 0.5, 1, 2, 4, 8, 16, 32)
set grid ytics
set xtics rotate by -40 scale 0
set key outside right top
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 front
plot for [i=2:{ncol}] '{dat}' using i:xtic(1) title columnheader(i)
"""

WORKLOAD_SCRIPT = """set terminal {term}
set output '{out}'
set title "workload '{wl}': throughput vs threads (median Mops/s; threads > CPUs = oversubscribed)"
set datafile missing '-'
set xlabel 'threads'
set ylabel "Mops/s, all threads (log scale)"
set logscale y 10
set xtics 1
set grid
set key outside right top
plot for [i=2:{ncol}] '{dat}' using 1:i with linespoints lw 2 title columnheader(i)
"""


def png_terminal():
    """pngcairo when gnuplot has it, else png."""
    p = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" if "pngcairo" in p.stdout + p.stderr else "png"


def _gnuplot(script, log):
    with open(log, "a") as f:
        return subprocess.run(["gnuplot"], input=script, text=True, stdout=f, stderr=f).returncode == 0


def draw(doc, out, warn, prefix="", formats=("png", "svg"), log=None):
    """Write the .dat files and the charts into `out` (file names start with
    `prefix`); warn(text) on a gnuplot failure.  Returns the PNGs written."""
    png = png_terminal()
    log = log or os.path.join(out, "gnuplot.log")
    results = doc["results"]
    written = []

    def chart(stem, matrix, script, size, **fields):
        """One chart: STEM.dat from the pivot `matrix`, then STEM.<fmt> for each format."""
        lines, nrows, ncol = matrix
        if nrows == 0 or ncol == 0:
            return
        dat = os.path.join(out, prefix + stem + ".dat")
        with open(dat, "w") as f:
            f.write("\n".join(lines) + "\n")
        for fmt in formats:
            path = os.path.join(out, "%s%s.%s" % (prefix, stem, fmt))
            term = "%s noenhanced size %s" % (png if fmt == "png" else fmt, size)
            if not _gnuplot(script.format(term=term, dat=dat, out=path, ncol=ncol + 1, **fields), log):
                warn("gnuplot failed on %s (see %s)" % (dat, log))
            elif fmt == "png":
                written.append(path)

    for mode in first_seen(r["mode"] for r in results if r["kind"] == "op"):
        m = pivot(results, lambda r: r["kind"] == "op" and r["mode"] == mode and not r["contender"].startswith("asm-"),
                  lambda r: r["name"], "ratio_asm_med", "op")
        chart("ratio-" + mode, m, RATIO_SCRIPT, "%d,520" % (300 + m[1] * 70), mode=mode)
    for wl in first_seen(r["name"] for r in results if r["kind"] == "workload"):
        m = pivot(results, lambda r: r["kind"] == "workload" and r["name"] == wl and r["status"] != "n/a",
                  lambda r: r["threads"], "mops_med", "threads")
        chart("wl-" + wl, m, WORKLOAD_SCRIPT, "800,500", wl=wl)
    return written
