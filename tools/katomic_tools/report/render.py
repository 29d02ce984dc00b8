"""Render a report from saved documents: run directories in, REPORT.md,
index.html, report.json and the plots out.  `katomic report` renders the run
it just made this way; `katomic report --from DIR` renders saved ones."""
import os
import re

from ..common import documents
from . import inputs, page, plots, report_json
from .model import Model


def _slug(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "machine"


def _labels(models, run_dirs):
    """Each machine's name; the run directory's name is added when two share one."""
    names = [m.name for m in models]
    return [n if names.count(n) == 1 else "%s (%s)" % (n, os.path.basename(os.path.normpath(d)))
            for n, d in zip(names, run_dirs)]


def render(run_dirs, out, log, kernel_docs=()):
    """Write the report of `run_dirs` into `out`.  Returns (exit status, stdout text).
    kernel_docs: [(path, katomic-kernel document)] from kernel-only --from
    directories, each added to the run of its machine's name (else the first).

    Raises ValueError (one line: file, where, what) when an input is malformed."""
    loaded = [inputs.load(d) for d in run_dirs]
    extra = {}
    for _, doc in kernel_docs:
        name = doc["machine"]["name"]
        target = next((i for i in loaded if i.run["machine"]["name"] == name), loaded[0])
        extra.setdefault(id(target), [target.kernel]).append(doc)
    for i in loaded:        # several runs of one machine: one kernel section (kernel_merge.py)
        if id(i) in extra:
            i.kernel = inputs.merge_kernel(extra[id(i)])
    models = [Model(i) for i in loaded]
    merged = len(models) > 1
    for i, (m, label, d) in enumerate(zip(models, _labels(models, run_dirs), run_dirs)):
        m.label = label
        m.html_id = (lambda base, i=i: base if i == 0 else "%s-%d" % (base, i + 1))
        # links to the instrument outputs and the plots, relative to `out`
        rel = os.path.relpath(os.path.abspath(d), os.path.abspath(out))
        m.link_prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        prefix = ""
        if merged:
            prefix = "plots-%s/" % _slug(label)
            os.makedirs(os.path.join(out, prefix), exist_ok=True)
        m.plots = []
        m.plots = plots.draw(m, out, prefix, log)
    for f in os.listdir(out):
        if re.match(r"plot-.*\.(png|dat)$", f) and not any(p.src == f or p.src == f[:-4] + ".png"
                                                          for m in models for p in m.plots):
            os.remove(os.path.join(out, f))     # a plot of an earlier run
    if merged:
        ans, line = page.merged_answer(models)
        texts = (page.merged_text(models, ans, line), page.merged_markdown(models, ans, line),
                 page.merged_html(models, ans, line))
        doc = report_json.merged_report(models, ans, line)
        status = max(m.exit for m in models)
    else:
        m = models[0]
        texts = (page.text(m), page.markdown(m), page.html(m))
        doc = report_json.machine_report(m)
        status = m.exit
    documents.write(os.path.join(out, "report.json"), doc)
    for name, body in (("REPORT.md", texts[1]), ("index.html", texts[2])):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(body)
    return status, texts[0]
