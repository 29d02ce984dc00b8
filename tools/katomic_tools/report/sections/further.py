"""Reading further: where every figure behind the page is."""


def text(m):
    return ""


def markdown(m):
    d = m.link_prefix
    return ("\n## Reading further\n\n- `%scodegen/codegen.html`: every probe, side by side (C11 vs reference)\n"
            "- `%slitmus/*.json`: every litmus histogram\n"
            "- `%sbench/table.txt`, `%sbench/bench.csv`: every benchmark figure, with the peers\n"
            "- `report.json`: every figure above; `%srun.json`, `%slogs/`: the run and what each instrument printed\n"
            "- `docs/report.md` in the source tree: how the verdict is reached\n" % ((d,) * 6))


def html(m):
    d = m.link_prefix
    return ('<h2>Reading further</h2>\n<ul><li><a href="{d}codegen/codegen.html">{d}codegen/codegen.html</a>: every probe, '
            'C11 and reference side by side</li>\n<li><a href="{d}litmus/">{d}litmus/*.json</a>: every litmus histogram</li>'
            '<li><a href="{d}bench/table.txt">{d}bench/table.txt</a>, <a href="{d}bench/bench.csv">{d}bench/bench.csv</a>: '
            'every benchmark figure, with the peers</li>\n<li><a href="report.json">report.json</a>: every figure on this '
            'page; <a href="REPORT.md">REPORT.md</a>: this page as Markdown</li></ul>\n').format(d=d)
