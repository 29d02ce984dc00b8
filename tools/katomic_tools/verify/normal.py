"""herd tests in normal form: one herd7 run for every test that differs only in names.

What herd7 computes from a compiled test does not depend on the test's name,
on the labels objdump's addresses gave, or on which registers the compiler
allocated; gcc and clang, two targets of one ISA, and two C tests that
compile alike differ in exactly these.  The normal form names the test "T",
numbers each thread's labels in the order they appear, and renames each
thread's registers in the order they first appear (its code, then its
initial values, the final condition and filter) onto the ISA's RENAME_POOL
(isa.py), where no instruction uses a register it does not name.  It is a
test herd7 takes like the original, and its cache key; run() renames the
states back.  A thread with a line that may use a register unnamed
(isa.renames) keeps its registers.
"""
import re

from . import translate

NORMAL = True          # verify --no-normal clears it
LABEL_DEF = re.compile(r"^\s*(\w+):\s*$")
INIT = re.compile(r"\{([^{}]*)\}")
COND_KEY = re.compile(r"\b(\d+):([A-Za-z_]\w*)")      # a thread's register in the initial state or a condition


def normal(isa, text):
    """(text in normal form, {a state key of the normal form: the original's}); the text itself
    and {} where there is no code table to read."""
    table = translate.read_code_table(text)
    if table is None:
        return text, {}
    lines, start, end, cols = table
    cols = [[c.strip() for c in col] for col in cols]
    head, tail = "\n".join(lines[1:start]), "\n".join(lines[end:])

    def name_of(m):
        return m.group(0).lstrip("%")

    ren, back = [], {}
    for k, col in enumerate(cols):
        order = []
        if all(isa.renames(ln) for ln in col if ln):
            names = [name_of(m) for ln in col for m in isa.HERD_REG.finditer(ln)]
            names += [m.group(2) for m in COND_KEY.finditer(head + "\n" + tail) if int(m.group(1)) == k]
            for n in names:
                fam = isa.family(n)
                if fam and fam[0] not in order:
                    order.append(fam[0])
        if len(order) > len(isa.RENAME_POOL):
            order = []
        to = dict(zip(order, isa.RENAME_POOL))
        ren.append(to)
        for old, new in to.items():
            for part in isa.parts(old):
                back["%d:%s" % (k, isa.spell(new, part))] = "%d:%s" % (k, isa.spell(old, part))

    def rename(k, name):
        fam = isa.family(name)
        return isa.spell(ren[k][fam[0]], fam[1]) if fam and fam[0] in ren[k] else name

    def code(k, ln):
        ln = isa.HERD_REG.sub(lambda m: m.group(0)[:m.group(0).index(name_of(m))] + rename(k, name_of(m)), ln)
        return re.sub(r"\b\w+\b", lambda m: labels[k].get(m.group(0), m.group(0)), ln)

    labels = []
    for k, col in enumerate(cols):
        defs = [m.group(1) for m in (LABEL_DEF.match(ln) for ln in col) if m]
        labels.append({old: "L%d_%d" % (k, n) for n, old in enumerate(dict.fromkeys(defs))})
    cols = [[code(k, ln) for ln in col] for k, col in enumerate(cols)]

    def cond(s):
        return COND_KEY.sub(lambda m: "%s:%s" % (m.group(1), rename(int(m.group(1)), m.group(2)))
                            if int(m.group(1)) < len(ren) else m.group(0), s)

    # the initial values in one order (herd7 reads them as a set)
    head = INIT.sub(lambda m: "{ %s }" % " ".join(sorted(x.strip() + ";" for x in m.group(1).split(";") if x.strip())),
                    cond(head))
    return "\n".join([lines[0].split()[0] + " T", head] + translate.code_table(cols) + [cond(tail)]), back


def run(H, isa, text, model=None):
    """H.run on the test's normal form, its states under the test's own names (on the test as it
    is with --no-normal)."""
    if not NORMAL:
        return H.run(text, source=False, model=model)
    ntext, back = normal(isa, text)
    res = H.run(ntext, source=False, model=model)
    if "states" in res and back:
        res = dict(res, states=[frozenset((back.get(k, k), v) for k, v in st) for st in res["states"]])
    return res
