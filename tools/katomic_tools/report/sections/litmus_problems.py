"""stdout only: every litmus test that did not pass (REPORT.md and index.html
list them in the litmus section)."""
from ...common.tables import wrap


def text(m):
    problems = m.litmus.problems()
    return "\nLitmus problems\n" + "".join(wrap("- " + p, "    ") for p in problems) if problems else ""


def markdown(m):
    return ""


def html(m):
    return ""
