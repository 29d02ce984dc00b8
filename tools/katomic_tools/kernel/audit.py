"""Code audit of two kernels, stock vs C11, built by one compiler.

 - bloat-o-meter (the kernel's scripts/bloat-o-meter, run from the tree,
   -t: text symbols): total text delta, functions grown/shrunk, top 20 each way;
 - locked instructions in `objdump -d vmlinux`, and .smp_locks entries (the
   lock prefixes the kernel can patch out when it boots on one CPU);
 - for the functions whose locked instructions changed most, the normalised
   instruction diff and a reason group, in the words of the user-space
   codegen audit (tools/katomic_tools/codegen/verdict.py, docs/codegen.md).
"""
import collections
import difflib
import os
import re
import subprocess

from . import KernelError
from .tree import need_tool

TOP = 20
DIFFS = 12          # functions with an instruction diff
DIFF_LINES = 80     # lines of diff kept per function

_ADDR = re.compile(r"\b[0-9a-f]{16}\b|\b0x[0-9a-f]+\b")
_RELOC = re.compile(r"^\s+[0-9a-f]+: (R_X86_64_\w+)\s+(\S+)")
_BRANCH = re.compile(r"^((?:j\w+|call\w*)) [0-9a-f]+ ")
_SYMOFF = re.compile(r"<([^>+]+)(\+0x[0-9a-f]+)?>")


def bloat(tree, old, new, prefix=""):
    """scripts/bloat-o-meter -t OLD NEW, parsed (prefix: the cross tools' nm, `--arch`)."""
    need_tool("python3", "python3")
    script = os.path.join(tree, "scripts", "bloat-o-meter")
    if not os.path.isfile(script):
        raise KernelError("%s: missing" % script)
    r = subprocess.run(["python3", script, "-t"] + (["-p", prefix] if prefix else []) + [old, new],
                       stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise KernelError("bloat-o-meter %s %s failed: %s" % (old, new, r.stderr.strip()[-200:]))
    rows, before, after = [], None, None
    for line in r.stdout.splitlines():
        m = re.match(r"Total: Before=(\d+), After=(\d+)", line)
        if m:
            before, after = int(m.group(1)), int(m.group(2))
            continue
        f = line.split()
        if len(f) == 4 and re.match(r"[-+]?\d+$", f[3]) and f[0] != "Function":
            rows.append({"fn": f[0], "old": int(f[1]) if f[1] != "-" else 0,
                         "new": int(f[2]) if f[2] != "-" else 0, "delta": int(f[3])})
    if before is None:
        raise KernelError("bloat-o-meter printed no Total line")
    grown = sorted((x for x in rows if x["delta"] > 0), key=lambda x: -x["delta"])
    shrunk = sorted((x for x in rows if x["delta"] < 0), key=lambda x: x["delta"])
    return {"total_before": before, "total_after": after, "total_delta": after - before,
            "grown": len(grown), "shrunk": len(shrunk), "grown_rows": grown, "shrunk_rows": shrunk}


def disassemble(vmlinux):
    """{function: [normalised instruction]} of every executable section
    (of a vmlinux, or of one object file)."""
    need_tool("objdump", "binutils")
    # -r: in an object file (not linked) a call's target is its relocation;
    # one to a static function names its section (.text+0x62c): resolved
    # from the function addresses of the first pass.
    r = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", vmlinux], stdout=subprocess.PIPE,
                       universal_newlines=True, errors="replace")
    if r.returncode != 0:
        raise KernelError("objdump -d %s failed" % vmlinux)
    lines = r.stdout.splitlines()
    starts, sec = {}, ""
    for line in lines:
        if line.startswith("Disassembly of section "):
            sec = line[len("Disassembly of section "):].rstrip(":")
        elif line.endswith(">:") and "<" in line:
            starts[(sec, int(line.split(" ", 1)[0], 16))] = line[line.index("<") + 1:-2]
    funcs = collections.OrderedDict()
    cur = None
    for line in lines:
        m = _RELOC.match(line)
        if m:
            if cur and cur[-1].split(" ", 1)[0] in ("call", "jmp"):
                target = m.group(2)
                sm = re.match(r"(\.[\w.]+)([-+]0x[0-9a-f]+)$", target)
                if sm:      # section + addend; the addend counts from the next instruction (-4)
                    target = starts.get((sm.group(1), int(sm.group(2), 16) + 4), sm.group(1))
                else:
                    target = re.split(r"[-+]0x", target)[0]
                cur[-1] = "%s ADDR <%s>" % (cur[-1].split(" ", 1)[0], target)
            continue
        if line.endswith(">:") and "<" in line:
            name = line[line.index("<") + 1:-2]
            key, n = name, 1
            while key in funcs:
                n += 1
                key = "%s#%d" % (name, n)
            cur = funcs[key] = []
            continue
        if cur is None or ":\t" not in line:
            continue
        ins = line.split(":\t", 1)[1].strip()
        if not ins or ins.startswith("(bad)"):
            continue
        ins = _SYMOFF.sub(lambda m: "<%s>" % m.group(1), ins)
        ins = _ADDR.sub("ADDR", re.sub(r"\s+", " ", ins))
        ins = _BRANCH.sub(r"\1 ADDR ", ins)      # an object file's short branch targets
        cur.append(ins)
    return funcs


def is_lock(ins):
    return ins.startswith("lock ")


def lock_count(funcs):
    return sum(1 for body in funcs.values() for i in body if is_lock(i))


def smp_locks(vmlinux):
    """Entries of .smp_locks (4 bytes each) that name a site: a zero entry (the
    C11 kernel's reserved room, docs/kernel.md) names none and is not counted.
    In an object file the entries are relocations, their bytes zero: every
    4 bytes of the section count."""
    import tempfile
    with open(vmlinux, "rb") as f:
        head = f.read(18)
    if head[:4] == b"\x7fELF" and int.from_bytes(head[16:18], "little" if head[5] == 1 else "big") == 1:
        r = subprocess.run(["size", "-A", vmlinux], stdout=subprocess.PIPE, universal_newlines=True)
        return next((int(f[1]) // 4 for f in (l.split() for l in r.stdout.splitlines())
                     if f and f[0] == ".smp_locks"), 0)
    with tempfile.TemporaryDirectory(prefix="katomic-smplocks-") as tmp:
        raw = os.path.join(tmp, "smp_locks.bin")
        r = subprocess.run(["objcopy", "-O", "binary", "--only-section=.smp_locks", vmlinux, raw],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0 or not os.path.isfile(raw):
            return 0
        with open(raw, "rb") as f:
            data = f.read()
    return sum(1 for i in range(0, len(data) - 3, 4) if data[i:i + 4] != b"\0\0\0\0")


_CALLEE = re.compile(r"<([^>+]+)")


def _callees(body, self_name):
    """Functions called (or tail-called) by `body`."""
    out = collections.Counter()
    for i in body:
        op = i.split(" ", 1)[0]
        if op.startswith("call") or op == "jmp":
            m = _CALLEE.search(i)
            if m and m.group(1) != self_name.split("#")[0]:
                out[m.group(1)] += 1
    return out


def _feat(body):
    return {"n": len(body), "lock": sum(1 for i in body if is_lock(i)),
            "cmpxchg": sum(1 for i in body if is_lock(i) and "cmpxchg" in i),
            "fence": sum(1 for i in body if i.split(" ")[0] in ("mfence", "lfence", "sfence"))}


def call_changes(ca, cb, fa, fb):
    """(inlined, outlined, dropped, added) of one function's callees, stock
    `ca` vs C11 `cb`: a callee of the stock kernel no longer called here was
    inlined here (its atomics came with it); one of the C11 kernel newly
    called is a helper now out of line; a callee outside the kernel (an
    object file's external) is simply not called any more, or newly."""
    gone = sorted(set(ca) - set(cb))
    added = sorted(set(cb) - set(ca))
    inlined = [f for f in gone if f in fa]
    outlined = [f for f in added if f in fb]
    return (inlined, outlined, [f for f in gone if f not in inlined], [f for f in added if f not in outlined])


def nested(inlined, ca, cb, callees_of, depth=3):
    """A callee inlined brings its own callees: ({function: call sites} of
    every function whose body is now here -- the inlined ones and, when the
    new body does not call them either, their callees, to `depth` levels --,
    {functions the new body calls because an inlined body did})."""
    sites = {f: ca[f] for f in inlined}
    came, todo = set(), [(f, 1) for f in inlined]
    while todo:
        f, level = todo.pop()
        for g, n in callees_of(f).items():
            if g in cb:
                came.add(g)
            elif g not in sites and g not in ca and level < depth and callees_of(g) is not None:
                sites[g] = sites[f] * n
                todo.append((g, level + 1))
    return sites, came


_COPIES = {}


def copies(funcs, name):
    """How many functions of `funcs` are named `name` (a static function
    emitted in several objects: name, name#2, ...; bloat-o-meter sums them)."""
    key = id(funcs)
    if key not in _COPIES or _COPIES[key][0] is not funcs:
        _COPIES[key] = (funcs, collections.Counter(k.split("#")[0] for k in funcs))
    return _COPIES[key][1][name.split("#")[0]]


def copy_words(name, fa, fb):
    """The reason of a size change that is more (or fewer) copies, or []."""
    if not fa or not fb:
        return []
    na, nb = copies(fa, name), copies(fb, name)
    if nb > na:
        return ["more copies of this static function (%d, stock %d): emitted out of line in more objects" % (nb, na)]
    return []


def call_words(inlined, outlined, dropped, more):
    """The reason words of a change of calls (both audits use them)."""
    why = []
    if inlined or outlined:
        why.append("inlining changed (%s)" % ", ".join(
            ["%s inlined" % f for f in inlined[:3]] + ["calls %s out of line" % f for f in outlined[:3]]))
    if dropped or more:
        why.append("other calls (%s)" % ", ".join(
            ["no %s" % f for f in dropped[:3]] + ["+%s" % f for f in more[:3]]))
    return why


def _lock_kinds(body):
    """{mnemonic without size suffix: count} of the locked instructions
    (lock btsq -> bts, lock orb -> or)."""
    out = collections.Counter()
    for i in body:
        if is_lock(i):
            mn = i.split()[1]
            out[re.sub(r"(?<=[a-z]{2})[bwlq]$", "", mn) if mn not in ("cmpxchg8b", "cmpxchg16b") else mn] += 1
    return out


def reason(old, new, name="", fa=None, fb=None):
    """The reason group of one function's change (the user-space audit's words).
    fa/fb (all functions of each kernel) let a change of inlining carry the
    locked instructions of the callee it inlined or stopped inlining."""
    if old is None:
        return "new out-of-line function (inlining changed)"
    if new is None:
        return "gone: inlined into its callers"
    fa, fb = fa or {}, fb or {}
    a, b = _feat(old), _feat(new)
    ca, cb = _callees(old, name), _callees(new, name)
    inlined, outlined, dropped, more = call_changes(ca, cb, fa, fb)
    sites, came = nested(inlined, ca, cb, lambda f: _callees(fa[f], f) if f in fa else None)
    outlined, more = [f for f in outlined if f not in came], [f for f in more if f not in came]
    dlock, dcas, dfence = b["lock"] - a["lock"], b["cmpxchg"] - a["cmpxchg"], b["fence"] - a["fence"]
    for fn, n in sites.items():     # its body now in this one, once per call site: so are its locks
        f = _feat(fa.get(fn, []))
        dlock, dcas, dfence = dlock - f["lock"] * n, dcas - f["cmpxchg"] * n, dfence - f["fence"] * n
    for fn in outlined:
        f = _feat(fb.get(fn, []))
        dlock, dcas, dfence = dlock + f["lock"] * cb[fn], dcas + f["cmpxchg"] * cb[fn], dfence + f["fence"] * cb[fn]
    why = copy_words(name, fa, fb) + call_words(inlined, outlined, dropped, more)
    if any(f.startswith("__atomic") or f.startswith("__sync") for f in more + outlined):
        why.append("out-of-line call")
    if dcas > 0 and a["cmpxchg"] > 0:
        why.append("more lock cmpxchg sites of the same kind (a path copied)")
    elif dcas > 0:
        why.append("cmpxchg loop where the reference has one locked instruction")
    elif dcas < 0:
        why.append("one locked instruction where the reference loops")
    if dfence > 0:
        why.append("extra fence")
    elif dfence < 0:
        why.append("fewer fences")
    if dlock > 0 and dcas <= 0:
        why.append("extra locked instruction")
    elif dlock < 0 and dcas >= 0:
        why.append("fewer locked instructions")
    ka, kb = _lock_kinds(old), _lock_kinds(new)
    bitstr = sum(ka[k] - kb[k] for k in ("bts", "btr", "btc") if ka[k] > kb[k])
    masked = sum(kb[k] - ka[k] for k in ("or", "and", "xor") if kb[k] > ka[k])
    if bitstr and masked:
        why.append("%d set/clear/change_bit on a variable bit: lock or/and/xor of a computed mask (shift, index) "
                   "where the kernel has lock bts/btr/btc on the bit string (C11 has no bit-string RMW)"
                   % min(bitstr, masked))
    elif not why and ka != kb:
        why.append("other locked instructions (%s)" % ", ".join(
            "lock %s %+d" % (k, kb[k] - ka[k]) for k in sorted(set(ka) | set(kb)) if kb[k] != ka[k]))
    d = b["n"] - a["n"]
    spills = _stack_slots(new) - _stack_slots(old)
    if not why and spills >= 2:
        # __atomic_compare_exchange takes the expected value by address; the
        # kernel's try_cmpxchg asm takes it in a register ("+a"): gcc then
        # keeps it, or the struct/union it is part of (lockref), in memory.
        why.append("%d more stack accesses (same locked instructions): the value C11 takes by address (the "
                   "compare_exchange expected value, a struct or union around it) kept in a stack slot" % spills)
    if not why:
        if d > 0:
            why.append("%d more instructions: register allocation and flags (same locked instructions)" % d)
        elif d < 0:
            why.append("%d fewer instructions (same locked instructions)" % -d)
        elif old == new:
            why.append("the same instructions, longer encodings (a REX prefix, a wider offset) or alignment")
        else:
            why.append("same instructions, other registers or order")
    return "; ".join(why)


def _stack_slots(body):
    """Instructions that read or write a stack slot ((%rsp)), locked ones aside."""
    return sum(1 for i in body if "(%rsp)" in i and not is_lock(i))


def reason_groups(rows):
    """[(count, group)] of rows' reasons, most first: a reason's first clause
    with its numbers as N (a leading count left out) and its parenthesis left
    out ("more stack accesses", "inlining changed")."""
    groups = collections.Counter(re.sub(r"^N ", "", re.sub(r"\b\d+\b", "N", r["reason"].split("; ")[0]
                                                           .split(" (")[0].split(": ")[0])) for r in rows)
    return sorted(((n, g) for g, n in groups.items()), key=lambda x: (-x[0], x[1]))


def compare(tree, stock_vmlinux, c11_vmlinux):
    """The audit of one compiler: the kernel.json `audit` item (less config/cc)."""
    for p in (stock_vmlinux, c11_vmlinux):
        if not os.path.isfile(p):
            raise KernelError("%s: missing (build it first)" % p)
    b = bloat(tree, stock_vmlinux, c11_vmlinux)
    fa, fb = disassemble(stock_vmlinux), disassemble(c11_vmlinux)

    def row(x):
        return {"fn": x["fn"], "old": x["old"], "new": x["new"], "delta": x["delta"],
                "reason": reason(fa.get(x["fn"]), fb.get(x["fn"]), x["fn"], fa, fb)}
    out = {"bloat": {"total_before": b["total_before"], "total_after": b["total_after"],
                     "total_delta": b["total_delta"], "grown": b["grown"], "shrunk": b["shrunk"],
                     "top_grown": [row(x) for x in b["grown_rows"][:TOP]],
                     "top_shrunk": [row(x) for x in b["shrunk_rows"][:TOP]],
                     "grown_over_16": [row(x) for x in b["grown_rows"] if x["delta"] > 16]},
           "lock_prefixes": {"stock": lock_count(fa), "c11": lock_count(fb)},
           "smp_locks": {"stock": smp_locks(stock_vmlinux), "c11": smp_locks(c11_vmlinux)}}
    changed = []
    for fn in set(fa) | set(fb):
        la = sorted(i for i in fa.get(fn, []) if is_lock(i))
        lb = sorted(i for i in fb.get(fn, []) if is_lock(i))
        if la != lb:
            changed.append((abs(len(lb) - len(la)), abs(len(fb.get(fn, [])) - len(fa.get(fn, []))), fn))
    changed.sort(key=lambda t: (-t[0], -t[1], t[2]))
    out["atomics_changed"] = len(changed)
    fns = []
    for _, _, fn in changed[:DIFFS]:
        old, new = fa.get(fn), fb.get(fn)
        diff = list(difflib.unified_diff(old or [], new or [], "stock/" + fn, "c11/" + fn, n=2, lineterm=""))
        fns.append({"fn": fn, "delta": 0 if not (old and new) else None,
                    "insns_stock": len(old or []), "insns_c11": len(new or []),
                    "locks_stock": sum(1 for i in old or [] if is_lock(i)),
                    "locks_c11": sum(1 for i in new or [] if is_lock(i)),
                    "reason": reason(old, new, fn, fa, fb), "diff": "\n".join(diff[:DIFF_LINES])})
    sizes = {x["fn"]: x["delta"] for x in b["grown_rows"] + b["shrunk_rows"]}
    for f in fns:
        f["delta"] = sizes.get(f["fn"], 0)
    out["functions"] = fns
    return out


def compare_objects(tree, stock_dir, c11_dir, objects):
    """The audit over some object files of two build dirs (a partial audit,
    for when a whole stock vmlinux is not built): rows and counts summed."""
    acc = None
    for rel in objects:
        x = compare(tree, os.path.join(stock_dir, rel), os.path.join(c11_dir, rel))
        if acc is None:
            acc = x
            acc["objects"] = [rel]
            continue
        acc["objects"].append(rel)
        b, xb = acc["bloat"], x["bloat"]
        for k in ("total_before", "total_after", "total_delta", "grown", "shrunk"):
            b[k] += xb[k]
        b["top_grown"] = sorted(b["top_grown"] + xb["top_grown"], key=lambda r: -r["delta"])[:TOP]
        b["top_shrunk"] = sorted(b["top_shrunk"] + xb["top_shrunk"], key=lambda r: r["delta"])[:TOP]
        b["grown_over_16"] = sorted(b["grown_over_16"] + xb["grown_over_16"], key=lambda r: -r["delta"])
        for k in ("lock_prefixes", "smp_locks"):
            for v in ("stock", "c11"):
                acc[k][v] += x[k][v]
        acc["atomics_changed"] += x["atomics_changed"]
        acc["functions"] = sorted(acc["functions"] + x["functions"],
                                  key=lambda f: (-abs(f["locks_c11"] - f["locks_stock"]),
                                                 -abs(f["insns_c11"] - f["insns_stock"])))[:DIFFS]
    return acc
