"""One table, three renderings: aligned text (stdout), Markdown, HTML.

A cell that starts with "~" spans the rest of its row (a note such as
"~not installed (apt-get install clang)").  A column is right-aligned in
text when every cell in it reads as a number ("1.02", "-", "3 of 15",
"1.10x"); HTML marks such cells class="num" and colours them by the
column's header (see html_class).
"""
import html as _html
import re

_NUMBER = re.compile(r"^[-+]?[0-9][0-9.]*x?$|^-$|^[0-9]+ of [0-9]+$")


def is_number(cell):
    return _NUMBER.search(cell) is not None


def md_escape(s):
    return str(s).replace("|", "\\|")


def h(s):
    """HTML-escape text for an element or a double-quoted attribute."""
    return _html.escape(str(s), quote=True).replace("&#x27;", "'")


class Table:
    def __init__(self, headers):
        self.headers = list(headers)
        self.rows = []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def text(self):
        n = len(self.headers)
        width = [len(x) for x in self.headers]
        is_text = [i == 0 for i in range(n)]
        for row in self.rows:
            for i, cell in enumerate(row):
                if cell.startswith("~"):
                    break
                width[i] = max(width[i], len(cell))
                if not is_number(cell):
                    is_text[i] = True

        def line(cells):
            parts = []
            for i, cell in enumerate(cells):
                if cell.startswith("~"):
                    return ("  ".join(parts) + "  " + cell[1:]).rstrip()
                parts.append(cell.ljust(width[i]) if is_text[i] else cell.rjust(width[i]))
            return "  ".join(parts).rstrip()
        return "".join(line(r) + "\n" for r in [self.headers] + self.rows)

    def markdown(self):
        out = ["| " + " | ".join(md_escape(x) for x in self.headers) + " |",
               "|" + "".join("---|" if i == 0 else "---:|" for i in range(len(self.headers)))]
        for row in self.rows:
            cells, n = [], len(row)
            for i in range(len(self.headers)):
                if i < n and row[i].startswith("~"):
                    cells.append(md_escape(row[i][1:]))
                    n = i + 1
                    continue
                cells.append(md_escape(row[i]) if i < n else "")
            out.append("|" + "".join(" %s |" % c for c in cells))
        return "\n".join(out) + "\n"

    def html(self, table_id="", html_class=lambda header, cell: ""):
        """html_class(header, cell) -> " bad" / " warn" / " good" / "" colours a cell."""
        s = "<table%s><thead><tr>" % (' id="%s"' % table_id if table_id else "")
        s += "".join("<th>%s</th>" % h(x) for x in self.headers) + "</tr></thead><tbody>\n"
        for row in self.rows:
            s += "<tr>"
            for i, cell in enumerate(row):
                if cell.startswith("~"):
                    s += '<td class="span" colspan="%d">%s</td>' % (len(self.headers) - i, h(cell[1:]))
                    break
                cls = html_class(self.headers[i], cell)
                if i > 0 and is_number(cell):
                    s += '<td class="num%s">%s</td>' % (cls, h(cell))
                elif cls:
                    s += '<td class="%s">%s</td>' % (cls[1:], h(cell))
                else:
                    s += "<td>%s</td>" % h(cell)
            s += "</tr>\n"
        return s + "</tbody></table>\n"


def wrap(s, indent, width=100):
    """Greedy word wrap; continuation lines start with `indent`.  Ends with a newline."""
    out, line = "", ""
    for w in s.split():
        if line and len(line) + 1 + len(w) > width:
            out += line + "\n"
            line = indent + w
        else:
            line += ("" if line in ("", indent) else " ") + w
    return out + line + "\n"
