"""A lock test as one test per order of its critical sections.

herd7 builds every candidate execution of a test before its model judges
one, and a lock word that several threads take (an RMW each, failing or
not, read from any of the word's writes) multiplies them past any time
limit: the corpus's four-thread tests that take two locks a thread run
for more than 15 minutes on every target (docs/verify.md).

In every execution the compiled test is judged on, each spin_lock() takes
its lock at the first attempt (a failed attempt is the FAIL exit), so each
lock word's coherence order is: the initial 0, then each critical section's
acquiring write and its unlock's 0, section after section.  That order of
the sections (sigma) is one of the interleavings of the threads' own.
For one sigma, lock L's sections c_1..c_m are given locations of their own:
c_j takes L_o<j> and its spin_unlock() frees L_o<j+1>; L_o1 starts free,
the others held (1), so c_j's lock succeeds only by reading c_(j-1)'s
unlock, as in the original.  The compiled code is the same code (only the
lock pointers differ); each lock read now has one write to read, and the
variant's execution of an original one keeps its events, its data
accesses' rf and co, and the lock accesses' rf, while losing the lock
words' coherence between sections' different locations.  Losing relations
only allows more (the architectures' models are monotone in them), so the
union of the variants' states holds every state of the original: a state
the LKMM forbids there is still found.  It may hold more (a "stronger"
count that is too small), never less.

Only tests whose locks are spin_lock()/spin_unlock() pairs in straight-line
code are split: a call under an if or in a loop, a trylock, spin_is_locked,
or a lock named anywhere else keeps the test whole.
"""
import itertools
import re

LOCK_CALL = re.compile(r"\b(spin_lock|spin_unlock)\s*\(\s*(\w+)\s*\)\s*;")
THREAD = re.compile(r"\bP(\d+)\s*\(([^()]*)\)(?:\s|//[^\n]*|/\*.*?\*/)*\{", re.S)    # a comment may come before {
MAX_ORDERS = 64
# What a thread may call for its lock sites to be the only RMWs of its compiled code (plain_rmw).
NO_RMW = frozenset(("spin_lock", "spin_unlock", "READ_ONCE", "WRITE_ONCE", "smp_load_acquire", "smp_store_release",
                    "smp_mb", "smp_rmb", "smp_wmb", "barrier", "atomic_read", "atomic_set", "atomic_read_acquire",
                    "atomic_set_release", "rcu_dereference", "rcu_assign_pointer", "rcu_read_lock", "rcu_read_unlock",
                    "smp_mb__after_spinlock", "smp_mb__after_unlock_lock", "if", "while", "for", "switch", "sizeof",
                    "return"))
HELD = 1        # a held lock word (spinlock.h: the locked byte, 1)


def sections(text):
    """How many critical sections (spin_lock() calls) the test's threads have."""
    return sum(1 for m in LOCK_CALL.finditer(text) if m.group(1) == "spin_lock")


class NotSplit(Exception):
    """Why a test is kept whole."""


def _body_end(text, start):
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    raise NotSplit("a thread's braces do not close")


def _threads(text):
    """[(tid, params span, params text, body span)] of the test's threads."""
    out = []
    for m in THREAD.finditer(text):
        open_at = m.end() - 1
        close = _body_end(text, open_at)
        out.append((int(m.group(1)), m.span(2), m.group(2), (open_at + 1, close)))
    if not out:
        raise NotSplit("no thread found")
    return out


def _param_names(params):
    out = []
    for p in params.split(","):
        p = p.strip()
        if not p:
            continue
        m = re.search(r"(\w+)\s*$", p)
        out.append((m.group(1) if m else "", p))
    return out


def _sections(text):
    """{lock: {tid: number of sections}}, and each thread's calls [(span, call, lock)]."""
    locks = {}
    calls_of = {}
    for tid, _, params, (b0, b1) in _threads(text):
        body = text[b0:b1]
        lock_params = {n for n, p in _param_names(params) if re.match(r"^spinlock_t\b", p)}
        calls = []
        for m in LOCK_CALL.finditer(body):
            name = m.group(2)
            if name not in lock_params:
                raise NotSplit("P%d: %s(%s) of no spinlock_t parameter" % (tid, m.group(1), name))
            before = body[:m.start()]
            if before.count("{") != before.count("}"):
                raise NotSplit("P%d: %s(%s) inside a block" % (tid, m.group(1), name))
            prev = before.rstrip()[-1:] if before.strip() else ";"
            if prev not in (";", "{", "}"):
                raise NotSplit("P%d: %s(%s) is not a statement of its own" % (tid, m.group(1), name))
            calls.append((m.span(), m.group(1), name))
        rest = LOCK_CALL.sub("", body)
        for name in lock_params:
            if re.search(r"\b%s\b" % re.escape(name), rest):
                raise NotSplit("P%d: lock %s used other than by spin_lock/spin_unlock" % (tid, name))
        state = {}
        for _, call, name in calls:
            held = state.get(name, False)
            if (call == "spin_lock") == held:
                raise NotSplit("P%d: %s(%s) %s" % (tid, call, name, "while held" if held else "while not held"))
            state[name] = not held
            if call == "spin_lock":
                locks.setdefault(name, {}).setdefault(tid, 0)
                locks[name][tid] += 1
        if any(state.values()):
            raise NotSplit("P%d: a lock still held at the end" % tid)
        calls_of[tid] = calls
    return locks, calls_of


def _count(per_thread):
    """How many interleavings: the multinomial of the threads' section counts."""
    out, seen = 1, 0
    for n in per_thread.values():
        for k in range(n):
            seen += 1
            out = out * seen // (k + 1)
    return out


def _interleavings(per_thread):
    """Every order of the sections {tid: n} that keeps each thread's own order: [(tid, k)]."""
    left = dict(per_thread)
    done = {t: 0 for t in per_thread}
    order = []

    def walk():
        if not any(left.values()):
            yield list(order)
            return
        for t in sorted(left):
            if left[t]:
                left[t] -= 1
                order.append((t, done[t]))
                done[t] += 1
                yield from walk()
                done[t] -= 1
                order.pop()
                left[t] += 1
    return list(walk())


def plain_rmw(text):
    """Whether the threads call nothing that compiles to an RMW but spin_lock: then every RMW of the
    compiled code is a lock site, and in one order of the split each lock location has one RMW (its
    section's lock), which reads the one write before its own: its atomicity holds in every
    execution, so the site may be taken as a plain load and store (ISAs with no RMW instruction in
    herd7, or a masked sub-word loop).  NO_RMW lists what may be called."""
    threads = _threads(text)
    for _, _, _, (b0, b1) in threads:
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text[b0:b1]):
            if m.group(1) not in NO_RMW:
                return False
    return True


def split(text):
    """The split of a C litmus test: (the test with a lock parameter of its own for each section's
    spin_lock and each spin_unlock, [(that parameter -> location, {location: initial value})] one per
    order).  Every order runs the same compiled code: only where its lock pointers point differs.
    NotSplit when the test is kept whole (no lock, or a use the split does not cover)."""
    threads = _threads(text)
    head = text[:min(t[1][0] for t in threads)]
    init = re.findall(r"\{[^{}]*\}", head)
    outside = (init[-1] if init else "") + re.sub(r"\(\*.*?\*\)", "", text[max(t[3][1] for t in threads):], flags=re.S)
    locks, calls_of = _sections(text)
    if not locks:
        raise NotSplit("no lock")
    for name in locks:
        if re.search(r"\b%s\b" % re.escape(name), outside):
            raise NotSplit("lock %s named outside the threads' spin_lock/spin_unlock" % name)
    names = sorted(locks)
    total = 1
    for n in names:
        total *= _count(locks[n])
    if total > MAX_ORDERS:
        raise NotSplit("%d orders of the critical sections (more than %d)" % (total, MAX_ORDERS))
    per_lock = [_interleavings(locks[n]) for n in names]
    orders = []
    for choice in itertools.product(*per_lock):
        where, init = {}, {}
        for name, order in zip(names, choice):
            for j, (tid, k) in enumerate(order, 1):
                where[_param(name, "a", tid, k)] = _loc(name, j)
                where[_param(name, "r", tid, k)] = _loc(name, j + 1)
                init[_loc(name, j)] = 0 if j == 1 else HELD
                init[_loc(name, j + 1)] = HELD
        orders.append((where, init))
    return _generic(text, names, calls_of), orders


def _loc(lock, j):
    return "%s_o%d" % (lock, j)


def _param(lock, what, tid, k):
    return "%s_%s%d_%d" % (lock, what, tid, k)


def _generic(text, names, calls_of):
    edits = []                                     # (span, new text), applied from the end
    for tid, pspan, params, (b0, _) in _threads(text):
        seen, mine = {}, {}
        for (s, e), call, name in calls_of[tid]:
            if call == "spin_lock":
                seen[name] = seen.get(name, -1) + 1
            new = _param(name, "a" if call == "spin_lock" else "r", tid, seen[name])
            mine.setdefault(name, []).append(new)
            edits.append(((b0 + s, b0 + e), "%s(%s);" % (call, new)))
        plist = []
        for n, p in _param_names(params):
            if n in mine:
                plist += ["spinlock_t *%s" % u for u in mine[n]]
            elif n not in names:
                plist.append(p)
        edits.append((pspan, ", ".join(plist)))
    for (s, e), new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


def order_test(test, where, init):
    """tests.json's record of the generic test as one order: its lock parameters point at the
    order's locations, which are the test's variables with their initial values; "lock_first":
    each lock's first location, which only its first section's spin_lock names (firstlock.py)."""
    t = dict(test)
    t["vars"] = [v for v in test["vars"] if v["name"] not in where]
    lock = next(v for v in test["vars"] if v["name"] in where)
    t["vars"] += [dict(lock, name=loc, init=val) for loc, val in sorted(init.items())]
    t["threads"] = [dict(th, args=[where.get(a, a) for a in th["args"]]) for th in test["threads"]]
    t["lock_first"] = sorted(loc for loc in init if loc.endswith("_o1"))
    return t
