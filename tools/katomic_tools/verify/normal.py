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
WEBS = True            # one name per web of a register's writes and reads (else one per register)
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

    # per thread: each line's {family: new family}, and the initial state's and the conditions'
    ren, back = [], {}
    for k, col in enumerate(cols):
        head_fams = [isa.family(m.group(2)) for m in COND_KEY.finditer(head) if int(m.group(1)) == k]
        tail_fams = [isa.family(m.group(2)) for m in COND_KEY.finditer(tail) if int(m.group(1)) == k]
        head_fams, tail_fams = ([f[0] for f in fams if f] for fams in (head_fams, tail_fams))
        maps = None
        if all(isa.renames(ln) for ln in col if ln):
            named = _named(isa, col)
            maps = (_webs(isa, col, named, head_fams, tail_fams) if WEBS else None) or \
                _first_seen(isa, named, head_fams, tail_fams)
        if maps is None:
            maps = ([{}] * len(col), {}, {})
        ren.append(maps)
        for old, new in maps[2].items():
            for part in isa.parts(old):
                back["%d:%s" % (k, isa.spell(new, part))] = "%d:%s" % (k, isa.spell(old, part))

    def rename(to, name):
        fam = isa.family(name)
        return isa.spell(to[fam[0]], fam[1]) if fam and fam[0] in to else name

    def code(k, j, ln):
        to = ren[k][0][j]
        ln = isa.HERD_REG.sub(lambda m: m.group(0)[:m.group(0).index(name_of(m))] + rename(to, name_of(m)), ln)
        return re.sub(r"\b\w+\b", lambda m: labels[k].get(m.group(0), m.group(0)), ln)

    labels = []
    for k, col in enumerate(cols):
        defs = [m.group(1) for m in (LABEL_DEF.match(ln) for ln in col) if m]
        labels.append({old: "L%d_%d" % (k, n) for n, old in enumerate(dict.fromkeys(defs))})
    cols = [[code(k, j, ln) for j, ln in enumerate(col)] for k, col in enumerate(cols)]

    def cond(s, which):
        return COND_KEY.sub(lambda m: "%s:%s" % (m.group(1), rename(ren[int(m.group(1))][which], m.group(2)))
                            if int(m.group(1)) < len(ren) else m.group(0), s)

    # the initial values in one order (herd7 reads them as a set)
    head = INIT.sub(lambda m: "{ %s }" % " ".join(sorted(x.strip() + ";" for x in m.group(1).split(";") if x.strip())),
                    cond(head, 1))
    return "\n".join([lines[0].split()[0] + " T", head] + translate.code_table(cols) + [cond(tail, 2)]), back


def _named(isa, col):
    """Each line's renamable register families, in the order it names them."""
    return [list(dict.fromkeys(f[0] for f in (isa.family(m.group(0).lstrip("%")) for m in isa.HERD_REG.finditer(ln))
                               if f)) for ln in col]


def _first_seen(isa, named, head_fams, tail_fams):
    """One name per register for the whole thread, in the order the code (named: _named's), then the
    initial state and the conditions, name them; None when the pool is too small."""
    order = list(dict.fromkeys([fam for fams in named for fam in fams] + head_fams + tail_fams))
    if len(order) > len(isa.RENAME_POOL):
        return None
    to = dict(zip(order, isa.RENAME_POOL))
    return [to] * len(named), to, to


def _webs(isa, col, named, head_fams, tail_fams):
    """A name per web: the writes of a register that reach a common read, with those reads.  Two
    compilations that differ only in which register holds which value (gcc's and clang's, LSE's and
    LL/SC's, whose status register moves the others) then meet in one form.  Over-approximated as
    liveness is (lean.liveness): a line that names a register it does not certainly set reads it,
    so its write joins the web of what reached it; the initial state is a write before the first
    line, the conditions a read at every return.  None where a branch leaves the thread's labels or
    the webs outnumber the pool."""
    n = len(col)
    at = {ln[:-1]: j for j, ln in enumerate(col) if ln.endswith(":")}
    sets, reads = [], []                 # each line's families it certainly sets, and may read, of those it names
    for ln, fams in zip(col, named):
        d, u = ({f[0] for f in map(isa.family, regs) if f} & set(fams) for regs in isa.def_use(ln))
        sets.append(d)
        reads.append(u)

    def succ(j):
        kind, target = isa.flow(col[j])
        if kind == "ret":
            return []
        nxt = [j + 1] if kind != "jump" else []
        if target is not None:
            if target not in at:
                raise KeyError(target)
            nxt.append(at[target])
        return nxt

    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(ids):
        ids = [find(i) for i in ids]
        for i in ids[1:]:
            parent[i] = ids[0]

    def reach(state, fam):
        return state.get(fam, {("entry", fam)})

    def after(j, state):
        return {**state, **{fam: {(j, fam)} for fam in sets[j]}}

    try:
        IN = {0: {}}
        todo = [0]
        while todo:
            j = todo.pop()
            out = after(j, IN[j])
            for s in succ(j):
                if s >= n:
                    continue
                old = IN.get(s)
                new = {f: reach(old, f) | reach(out, f) for f in set(out) | set(old)} if old is not None else out
                if new != old:
                    IN[s] = new
                    todo.append(s)
    except KeyError:
        return None
    which = []                       # each line's {family: the id of its web}
    for j in range(n):
        state = IN.get(j, {})
        here = {}
        for fam in named[j]:
            reached = reach(state, fam)
            if fam in sets[j] and fam not in reads[j]:
                here[fam] = (j, fam)
            else:
                union(list(reached) + ([(j, fam)] if fam in sets[j] else []))
                here[fam] = next(iter(reached))
        which.append(here)
        kind = isa.flow(col[j])[0]
        if kind == "ret" or (j == n - 1 and kind is None):
            end = after(j, state)
            for fam in tail_fams:
                union(list(reach(end, fam)) + [("ret", fam)])
    names = {}
    order = [i for here in which for i in here.values()] + [("entry", f) for f in head_fams] + \
        [("ret", f) for f in tail_fams]
    for i in order:
        r = find(i)
        if r not in names:
            if len(names) == len(isa.RENAME_POOL):
                return None
            names[r] = isa.RENAME_POOL[len(names)]
    maps = [{fam: names[find(i)] for fam, i in here.items()} for here in which]
    return maps, {f: names[find(("entry", f))] for f in head_fams}, {f: names[find(("ret", f))] for f in tail_fams}


def run(H, isa, text, model=None):
    """H.run on the test's normal form, its states under the test's own names (on the test as it
    is with --no-normal)."""
    return run_many(H, isa, [text], model)[0]


def run_many(H, isa, texts, model=None, all_or_none=False):
    """run() on each text, herd7 on them at once (H.run_many)."""
    if not NORMAL:
        return H.run_many(texts, source=False, model=model, all_or_none=all_or_none)
    forms = [normal(isa, text) for text in texts]
    out = []
    for (_, back), res in zip(forms, H.run_many([ntext for ntext, _ in forms], source=False, model=model,
                                                           all_or_none=all_or_none)):
        if "states" in res and back:
            res = dict(res, states=[frozenset((back.get(k, k), v) for k, v in st) for st in res["states"]])
        out.append(res)
    return out
