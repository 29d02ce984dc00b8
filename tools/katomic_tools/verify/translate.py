"""A compiled litmus test as a herd7 litmus test of its architecture.

Per thread (a function P<n> of the compiled unit):
- its arguments arrive in the ABI's argument registers: the init block sets
  them to the shared variables' addresses;
- its observed registers leave it in machine registers of the verifier's
  choosing (verify.c, KV_REG), which the final condition reads;
- `ret` ends the thread (herd7's -variant telechat);
- the stack is the thread's own: each stack slot becomes a spare register
  and each spill or reload a register move (isa.Isa.stack);
- a loop is assumed to leave after its first pass when no pass writes
  memory but through a failed store-exclusive (a retry loop or a spin): its
  back edge jumps to the thread's FAIL exit, which sets a marker register,
  and a filter drops every execution that took it.  A pass that fails writes
  nothing, so what the other executions reach is all that the loop can reach.
  A loop that writes memory keeps its back edge and herd7 unrolls it; an
  "unrolling limit exceeded" warning then makes the test "not judged";
- a call to a lock's slow path is the fast path failing: it jumps to FAIL
  too ("the fast path retried"); any other call makes the test not judged;
- an instruction herd7's front end lacks may be expanded by its ISA into
  instructions herd7 has (isa.Isa.expand), with spare registers and, for a
  retry that can fail, a jump to the FAIL exit (the same "first pass" rule).
"""
import dataclasses
import re

from . import doomed, firstlock, lean
from .isa import NotTaken
from .listing import Insn

# the thread's lines through lean.py (rewrites that only make herd7 faster); verify --no-lean clears it
LEAN = True

SLOWPATHS = re.compile(r"^(__ka_spin_lock_slowpath|__ka_spin_.*slow.*|queued_spin_lock_slowpath)$")


class OutOfSpares(NotTaken):
    """More stack slots (and the marker) than spare registers."""


class Slots:
    """Stack slots as spare registers, in the order they are first met."""

    def __init__(self, isa, used):
        self.free = [r for r in isa.spare if r not in used]
        self.map = {}

    def take(self):
        if not self.free:
            raise OutOfSpares("more stack slots than spare registers")
        return self.free.pop(0)

    def get(self, key):
        if key not in self.map:
            self.map[key] = self.take()
        return self.map[key]


def _used_regs(insns):
    words = set()
    for i in insns:
        for o in i.ops:
            words.update(re.findall(r"[a-z][a-z0-9]*", o.lower()))
    out = set(words)
    # aarch64: w9 and x9 are one register
    for w in words:
        if re.match(r"^[wx]\d+$", w):
            out.add("x" + w[1:])
    return out


def _succ(isa, insns, kinds, at, k):
    """The indexes control may go to after insns[k]; "FAIL" for the FAIL exit, None for a way out
    (a return, a branch out of the code)."""
    i = insns[k]
    if isa.is_ret(i):
        return [None]
    if kinds.get(i.addr) == "slowpath":
        return ["FAIL"]
    br = isa.branch(i)
    out = []
    if br:
        out.append("FAIL" if kinds.get(i.addr) == "backedge" else at.get(br[0]))
        if not br[1]:
            return out
    return out + [k + 1 if k + 1 < len(insns) else None]


def _pruned(isa, insns, kinds):
    """(the addresses no way from the entry reaches, those from which every way goes to FAIL).
    Every execution that takes FAIL is filtered out, so what such code does is never judged: the
    spills and the register moves before a slow-path call (which goes to FAIL), the reloads after
    it (unreachable).  clang-19 moves the kernel layer's values into every callee-saved register
    there, which left no spare one for the marker."""
    at = {i.addr: k for k, i in enumerate(insns)}
    succ = [_succ(isa, insns, kinds, at, k) for k in range(len(insns))]
    seen, work = set(), [0] if insns else []
    while work:
        k = work.pop()
        if k not in seen:
            seen.add(k)
            work.extend(j for j in succ[k] if isinstance(j, int))
    failing, changed = set(), True
    while changed:                      # the least fixpoint: a loop that never leaves is not failing
        changed = False
        for k in seen - failing:
            if all(j == "FAIL" or j in failing for j in succ[k]):
                failing.add(k)
                changed = True
    return {i.addr for k, i in enumerate(insns) if k not in seen}, {insns[k].addr for k in failing}


def thread(isa, insns, notes, tid=0, reserved=(), widen=False, args=(), outside=None, lock_swap=False, prune=False):
    """herd lines of one thread, and whether it has a FAIL exit (its marker register).
    reserved: registers the spare ones must not be (arguments, observed registers);
    args: the registers its arguments arrive in; outside: None (a branch out of the
    code is refused), or a set that collects such targets, each rendered as a jump to
    the label "Lx<tid>_<addr>" that the caller defines (a slice of a function).
    prune: the code _pruned finds is left out, and the registers only it names are spare
    (tried when the spare registers run out)."""
    try:
        return _thread(isa, insns, notes, tid, reserved, widen, args, outside, lock_swap, prune)
    except OutOfSpares:
        if prune:
            raise
        return _thread(isa, insns, notes, tid, reserved, widen, args, outside, lock_swap, True)


def _thread(isa, insns, notes, tid, reserved, widen, args, outside, lock_swap, prune):
    insns = isa.prepare([dataclasses.replace(i, ops=list(i.ops), notes=list(i.notes)) for i in insns], args,
                        live_out=set(reserved) - set(args))
    for i in insns:
        notes.update(i.notes)
    addrs = {i.addr for i in insns}
    lines_of = []                        # (addr, [herd lines])
    targets = set()
    fail = False
    kinds = {}
    fail_label = fail_label_of(tid)
    for i in insns:
        if isa.is_call(i):
            sym = i.symbol or "?"
            if SLOWPATHS.match(sym):
                kinds[i.addr] = "slowpath"
                notes.add("lock fast path judged: the slow path call is the fast path failing (retried)")
                fail = True
                continue
            raise NotTaken("an out-of-line call: %s" % sym)
        br = isa.branch(i)
        if br:
            target, _ = br
            if target not in addrs:
                if outside is None:
                    raise NotTaken("a branch out of the function: %s" % i.text)
                outside.add(target)
                continue
            if target <= i.addr:
                body = [j for j in insns if target <= j.addr <= i.addr]
                if any(isa.writes(j) == "plain" and isa.stack(j, Slots(isa, set())) is None for j in body
                       if not isa.is_call(j)):
                    notes.add("a loop that stores: unrolled by herd7")
                    targets.add(target)
                else:
                    kinds[i.addr] = "backedge"
                    notes.add("retry loops: the first pass assumed (failed passes write nothing)")
                    fail = True
            else:
                targets.add(target)
    unreached, failing = _pruned(isa, insns, kinds) if prune else (set(), set())
    if failing or unreached:
        notes.add("code that every way through goes to FAIL (before a slow-path call) or that no way reaches "
                  "(after it) left out, its registers spare")
    left_out = unreached | failing
    used = _used_regs([i for i in insns if i.addr not in left_out]) | set(reserved)
    slots = Slots(isa, used)
    marker = slots.take()
    for i in insns:
        kind = kinds.get(i.addr)
        if i.addr in unreached:
            lines_of.append((i.addr, []))
            continue
        if kind == "slowpath" or i.addr in failing:
            jump = Insn(i.addr, isa.jump, ["0x%x" % i.addr], "")     # in place of the call, or of code bound for it
            lines_of.append((i.addr, isa.render(jump, lambda a: fail_label)))
            continue
        if kind == "backedge":
            lines_of.append((i.addr, isa.render(i, lambda a: fail_label)))
            continue
        if isa.is_ret(i):
            lines_of.append((i.addr, [isa.ret_text]))
            continue
        st = isa.stack(i, slots)
        if st is not None:
            lines_of.append((i.addr, st))
            continue
        ex = isa.expand(i, insns, slots.take, fail_label, notes)
        if ex is not None:
            fail = fail or any(fail_label in ln for ln in ex)
            lines_of.append((i.addr, ex))
            continue
        if widen and isa.widen(i.mnem):
            notes.add("sub-word accesses widened to 32 bits (herd7's %s model takes one size per location)"
                      % isa.herd_arch)
        lines_of.append((i.addr, isa.render(i, lambda a: ("L%d_%x" if a in addrs else "Lx%d_%x") % (tid, a), widen)))
    out = []
    for addr, lines in lines_of:
        if addr in targets:
            out.append("L%d_%x:" % (tid, addr))
        out.extend(lines)
    if not insns or not isa.is_ret(insns[-1]):
        out.append(isa.ret_text)
    if lock_swap and fail:
        out = firstlock.folded(isa, out, {fail_label})
        out, swapped = isa.swap_lock_sites(out, fail_label, slots.take, plain=lock_swap == "plain",
                                           live_out=set(reserved) - set(args))
        if isa.name in doomed.MOVES:
            out, sent = doomed.redirect(isa.name, out, fail_label,
                                        lambda label, lines: isa._leads_to(lines, label, fail_label,
                                                                           doomed.MOVES[isa.name]))
            if sent:
                notes.add("a lock site's busy branch sent to FAIL at once (its second test of the value agrees: "
                          "doomed.py)")
        if swapped:
            notes.add("lock sites' acquiring RMW as a %s (the lock-order split: every kept execution read the "
                      "expected 0 there%s)" % (swapped, "" if swapped == "swap" else ", and its atomicity holds"))
    if LEAN:
        out = lean.lean(isa, out, fail_label, set(reserved) - set(args))
    if fail:
        out.append(fail_label + ":")
        out.append(isa.mov_imm(marker, 1))
        out.append(isa.ret_text)
    return out, (marker if fail else None)


def fail_label_of(tid):
    """The label of thread tid's FAIL exit (thread() appends it)."""
    return "Lfail%d" % tid


def _subst_regs(text, regmap):
    return re.sub(r"%(\d+):(\d+)%", lambda m: regmap[(int(m.group(1)), int(m.group(2)))], text)


def litmus(isa, test, funcs, out_regs, widen=False, lock_swap=False, memo=None):
    """The herd7 test text of compiled test `test` (tests.json's record),
    funcs: {"P0": [Insn]}, out_regs: {thread: [machine register per slot]}.
    memo: a dict kept across calls on the same funcs and out_regs (the split's orders, which
    differ only in the locations their arguments point at): each thread is translated once.
    Returns (text, notes, keymap {herd state key: source key})."""
    notes = set()
    columns, markers, thread_init = [], {}, []
    for t in test["threads"]:
        name = "P%d" % t["id"]
        if name not in funcs:
            raise NotTaken("thread %s not found in the object" % name)
        args = isa.arg_regs[:len(t["args"])]
        reserved = set(args) | set(out_regs.get(t["id"], []))
        if len(t["args"]) > len(isa.arg_regs):
            raise NotTaken("more arguments than argument registers")
        key = (name, widen, lock_swap, args, tuple(sorted(reserved)))
        if memo is not None and key in memo:
            lines, marker, own = memo[key]
        else:
            own = set()
            lines, marker = thread(isa, funcs[name], own, t["id"], reserved, widen, args, lock_swap=lock_swap)
            if memo is not None:
                memo[key] = lines, marker, own
        notes |= own
        regs = {isa.reg_key(isa.arg_regs[k]): var for k, var in enumerate(t["args"])}
        if LEAN and isa.HERD_REG is not None:
            lines, regs = lean.entry_values(isa, lines, fail_label_of(t["id"]), regs,
                                            list(out_regs.get(t["id"], [])) + ([marker] if marker else []))
            if test.get("lock_first"):
                kept = firstlock.decided(isa, lines, regs, set(test["lock_first"]))
                if kept != lines:
                    lines = lean.drop_unreachable(isa, kept, None)
                    notes.add("the lock-order split: a first section's lock site cannot fail (its lock starts "
                              "free and no other section names it), its branches on the value read decided "
                              "(firstlock.py)")
        columns.append(lines)
        thread_init.append((t["id"], regs))
        if marker:
            markers[t["id"]] = marker
    init = []
    for v in test["vars"]:
        val = v["init"]
        init.append("%s=%s;" % (v["name"], val))
    for tid, regs in thread_init:
        init += ["%d:%s=%s;" % (tid, reg, val) for reg, val in regs.items()]
    regmap, keymap = {}, {}
    for t in test["threads"]:
        for k, reg in enumerate(out_regs.get(t["id"], [])):
            key = "%d:%s" % (t["id"], isa.reg_key(reg))
            regmap[(t["id"], k)] = key
    for src, tok in test["observed"]:
        keymap[_subst_regs(tok, regmap)] = src
    body = code_table(columns, [t["id"] for t in test["threads"]])
    filt = []
    if test.get("filter"):
        filt.append(_subst_regs(test["filter"], regmap))
    for tid, reg in sorted(markers.items()):
        filt.append("%d:%s=0" % (tid, isa.reg_key(reg)))
    text = ["%s %s" % (isa.herd_arch, _safe_name(test["name"])), "Variant=telechat",
            "{ " + " ".join(init) + " }"]
    text += body
    locs = [_subst_regs(tok, regmap) for _, tok in test["observed"]]
    if locs:
        text.append("locations [%s]" % "; ".join(locs))
    if filt:
        text.append("filter (%s)" % " /\\ ".join(filt))
    cond = _subst_regs(test["cond"], regmap) if test.get("cond") else "true"
    text.append("%s %s" % (test["quant"], _paren(cond)))
    return "\n".join(text) + "\n", sorted(notes), keymap


def code_table(columns, ids=None):
    """A herd test's code: the P0 | P1 ... line, then a row a line, each thread's lines a column."""
    width = max([len(line) for col in columns for line in col] + [8]) + 2
    body = [" | ".join(("P%d" % t).ljust(width) for t in (ids or range(len(columns)))) + " ;"]
    for r in range(max(len(c) for c in columns)):
        body.append(" | ".join((" " + c[r] if r < len(c) else "").ljust(width) for c in columns) + " ;")
    return body


def read_code_table(text):
    """(the test's lines, index of its P0 | P1 ... line, index of the first line after the code,
    each thread's column of cells as written), or None where it has no code table."""
    lines = text.split("\n")
    start = next((k for k, ln in enumerate(lines) if re.match(r"^\s*P0\s*[|;]", ln)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and lines[end].rstrip().endswith(";") \
            and not lines[end].startswith(("locations", "filter", "exists", "forall", "~exists")):
        end += 1
    rows = [ln.rstrip()[:-1].split("|") for ln in lines[start + 1:end]]
    width = len(lines[start].split("|"))
    return lines, start, end, [[r[k] if k < len(r) else "" for r in rows] for k in range(width)]


def _paren(s):
    return s if s.startswith("(") else "(%s)" % s


def _safe_name(name):
    return re.sub(r"[^A-Za-z0-9+_.-]", "_", name) or "T"
