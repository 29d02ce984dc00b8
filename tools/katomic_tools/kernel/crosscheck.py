"""objtool's .smp_locks against katomic's decoder, site for site (docs/kernel.md).

usage: python3 -m katomic_tools.kernel.crosscheck KBUILD [--json]

The patched tree records the compiler's lock prefixes with objtool --smp-locks
at build time; `katomic kernel` then reads the result with its own decoder
(the disassembler-based one of `katomic uplocks` and smplocks.py) and the
kernel's rule, and says where the two tables differ:

  vmlinux: the decoder's table is every lock site in _text.._etext but those
    the rule keeps locked (a fence on the stack, an FS/GS or DS prefix: the
    decoder's kept_locked()) and those annotated ANNOTATE_KEEP_LOCK; objtool's
    is what .smp_locks names in _text.._etext.  The annotations are read from
    vmlinux.o (.discard.keep_lock, which the final link drops) and placed at
    their vmlinux addresses through a global symbol of the same section of
    vmlinux.o (the final link keeps each input section in one piece).
  modules: the same per .ko of modules.order, over module text (every
    executable section but .init* and .altinstr_replacement); the annotations
    come from the module's own .o (scripts/module.lds merges no text, so the
    offsets are the .ko's).

The kernel's own fence, lock addl $0,-4(%rsp), is in the table where the
assembler put it (smp_mb(), which the patch writes with LOCK_PREFIX) and
not where it did not (virt_mb(), __smp_mb()); the decoder cannot tell the
two apart, so it takes the table's word for that form only (asm_fences) and
keeps every other fence, the compilers' lock or $0,(%rsp), to the rule.
objtool's rule for fences is one for both forms, and its own test
(check-objtool-smplocks.py) holds it to that.

missing: a site the decoder records and .smp_locks lacks; extra: an entry in
text that the decoder would not write (a site it keeps locked, or no lock
prefix).  Exit 0 when both are empty everywhere, 1 when not, 2 on bad input.
"""
import json
import os
import struct
import sys

from . import smplocks, smplocks_ko
from .smplocks import Error, uplocks

MARKS = ".discard.keep_lock"
STB_GLOBAL = 1
SHOWN = 20              # sites named per difference in kernel.json


def _names(m):
    """{symbol index: name} reader for a smplocks_ko.Module."""
    strtab = m.elf.headers[m.elf.headers[m.symtab][6]][4]

    def name(st_name):
        end = m.data.index(b"\0", strtab + st_name)
        return m.data[strtab + st_name:end].decode(errors="replace")
    return name


def marks(m):
    """[(section index, offset)] the ANNOTATE_KEEP_LOCK marks of relocatable file m name."""
    out = []
    for i, nm in enumerate(m.names):
        if nm != MARKS:
            continue
        rela = m.rela_for(i)
        for _, info, addend in m.relocs(rela) if rela is not None else ():
            out.append(m.target(info >> 32, addend, MARKS))
    return out


def vmlinux_marks(kb, elf):
    """Addresses in vmlinux of the ANNOTATE_KEEP_LOCK marks of KBUILD/vmlinux.o."""
    vo = os.path.join(kb, "vmlinux.o")
    if not os.path.isfile(vo):
        raise Error("%s: missing (the kernel build keeps it): the annotations cannot be read" % vo)
    m = smplocks_ko.Module(vo)
    found = marks(m)
    if not found:
        return set()
    name = _names(m)
    anchor = {}                         # section index -> (global symbol name, value)
    for st_name, info, _, sh, value, _ in m.syms:
        if info >> 4 == STB_GLOBAL and 0 < sh < smplocks_ko.SHN_LORESERVE and sh not in anchor:
            anchor[sh] = (name(st_name), value)
    need = {s for s, _ in found}
    lost = sorted(m.names[s] for s in need if s not in anchor)
    if lost:
        raise Error("%s: section %s has no global symbol to place its annotations in vmlinux" % (vo, lost[0]))
    where = smplocks.symbols(elf, sorted({anchor[s][0] for s in need}))
    base = {}
    for s in need:
        nm, value = anchor[s]
        if nm not in where:
            raise Error("%s: %s (of %s) is not in vmlinux's symbol table" % (vo, nm, m.names[s]))
        base[s] = where[nm] - value
    return {base[s] + off for s, off in found}


def compare(intext, annotated, table, found, addr=lambda k: k):
    """The decoder's table against `table` (the sites .smp_locks names in text): (counts,
    missing, extra), missing and extra sorted.  intext: the lock sites in text, found[k] their
    decoding, addr(k) a site's address for the rule; the kernel's own fence the table names is
    the assembler's (smp_mb() by LOCK_PREFIX)."""
    rule = {k for k in intext if smplocks.kept_locked(addr(k), found[k])}
    fences = {k for k in (rule - annotated) & table if smplocks.ASM_FENCE.match(found[k][2])}
    recordable = (intext - annotated - rule) | fences
    counts = {"lock_sites": len(intext), "objtool": len(table), "decoder": len(recordable),
              "kept_rule": len(rule - annotated - fences), "kept_annotated": len(annotated),
              "asm_fences": len(fences)}
    return counts, sorted(recordable - table), sorted(table - recordable)


def vmlinux(kb):
    path = os.path.join(kb, "vmlinux")
    data = smplocks.read(path)
    elf = uplocks.Elf(path, data)
    sy = smplocks.symbols(elf, ("_text", "_etext"))
    if "_text" not in sy or "_etext" not in sy:
        raise Error("%s: no _text/_etext: not an x86-64 vmlinux" % path)
    lo, hi = sy["_text"], sy["_etext"]
    tab = elf.section(smplocks.TABLE)
    if not tab:
        raise Error("%s: no %s section" % (path, smplocks.TABLE))
    _, _, _, taddr, toff, tsize = tab
    slots = struct.unpack_from("<%di" % (tsize // 4), data, toff)
    entries = {taddr + 4 * i + v for i, v in enumerate(slots) if v}
    found = uplocks.lock_sites(path)
    keep = vmlinux_marks(kb, elf)
    intext = {a for a in found if lo <= a < hi}
    # A mark names the instruction (its label precedes it), the lock byte after a 0x66 prefix too.
    annotated = {a for a in intext if a in keep or found[a][0] in keep}
    table = {e for e in entries if lo <= e < hi}
    counts, missing, extra = compare(intext, annotated, table, found)
    stray = keep - set(found) - {site[0] for site in found.values()}
    counts.update(marks_not_locks=len(stray), entries_outside_text=len(entries) - len(table),
                  missing=["0x%x %s" % (a, found[a][2]) for a in missing[:SHOWN]], n_missing=len(missing),
                  extra=["0x%x" % a for a in extra[:SHOWN]], n_extra=len(extra))
    return counts


def module(ko):
    """The same comparison for one .ko; the marks from the .o it was linked from."""
    m = smplocks_ko.Module(ko)
    found = {}
    for name, sites in uplocks.lock_sites_by_section(ko).items():
        sec = m.index(name)
        if sec is None:
            raise Error("%s: objdump shows section %s, which the section headers lack" % (ko, name))
        for a, site in sites.items():
            found[(sec, a)] = site
    text = smplocks_ko.text_sections(m)
    rela = m.index(smplocks_ko.RELA)
    entries = set()
    if rela is not None:
        for _, info, addend in m.relocs(rela):
            entries.add(m.target(info >> 32, addend, smplocks_ko.RELA))
    keep = set()
    obj = ko[:-3] + ".o"
    if os.path.isfile(obj):
        o = smplocks_ko.Module(obj)
        for sec, off in marks(o):
            k = m.index(o.names[sec])
            if k is not None:
                keep.add((k, off))
    intext = {k for k in found if k[0] in text}
    annotated = {k for k in intext if k in keep or (k[0], found[k][0]) in keep}
    table = {e for e in entries if e[0] in text}
    counts, missing, extra = compare(intext, annotated, table, found, addr=lambda k: k[1])
    say = lambda k: "%s+0x%x" % (m.names[k[0]], k[1])      # noqa: E731
    counts.update(missing=[say(k) for k in missing], extra=[say(k) for k in extra])
    return counts


def modules(kb):
    kos = smplocks_ko.built_modules(kb)
    out = {"modules": len(kos), "lock_sites": 0, "objtool": 0, "decoder": 0, "kept_rule": 0,
           "kept_annotated": 0, "asm_fences": 0, "missing": [], "extra": []}
    for ko in kos:
        r = module(ko)
        for k in ("lock_sites", "objtool", "decoder", "kept_rule", "kept_annotated", "asm_fences"):
            out[k] += r[k]
        name = os.path.basename(ko)
        out["missing"] += ["%s %s" % (name, s) for s in r["missing"]]
        out["extra"] += ["%s %s" % (name, s) for s in r["extra"]]
    out["n_missing"], out["n_extra"] = len(out["missing"]), len(out["extra"])
    out["missing"], out["extra"] = out["missing"][:SHOWN], out["extra"][:SHOWN]
    return out


def check(kb):
    """The build's cross-check record: vmlinux and modules; agree when neither differs."""
    v, m = vmlinux(kb), modules(kb)
    return {"vmlinux": v, "modules": m,
            "agree": not (v["n_missing"] or v["n_extra"] or v["marks_not_locks"] or m["n_missing"]
                          or m["n_extra"])}


def summary(name, c):
    v, m = c["vmlinux"], c["modules"]
    line = ("%s: .smp_locks cross-check: vmlinux objtool %d / decoder %d sites (%d of them smp_mb() by "
            "LOCK_PREFIX; %d kept by the rule, %d annotated), modules objtool %d / decoder %d (%d modules): %s"
            % (name, v["objtool"], v["decoder"], v.get("asm_fences", 0), v["kept_rule"], v["kept_annotated"],
               m["objtool"], m["decoder"], m["modules"], "agree site for site" if c["agree"] else "DIFFER"))
    if v["marks_not_locks"]:
        line += "\n  vmlinux: %d ANNOTATE_KEEP_LOCK marks name no lock-prefixed instruction" % v["marks_not_locks"]
    for what, d in (("vmlinux", v), ("modules", m)):
        if d["n_missing"]:
            line += "\n  %s: %d sites the decoder records are not in .smp_locks, first: %s" % (
                what, d["n_missing"], "; ".join(d["missing"][:3]))
        if d["n_extra"]:
            line += "\n  %s: %d entries the decoder would not write, first: %s" % (
                what, d["n_extra"], "; ".join(d["extra"][:3]))
    return line


def main(argv):
    args = [a for a in argv if a != "--json"]
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python3 -m katomic_tools.kernel.crosscheck KBUILD [--json]", file=sys.stderr)
        return 2
    kb = args[0]
    if not os.path.isfile(os.path.join(kb, "vmlinux")):
        print("crosscheck: %s: no vmlinux (not a kernel build directory)" % kb, file=sys.stderr)
        return 2
    try:
        c = check(kb)
    except Error as e:
        print("crosscheck: %s" % e, file=sys.stderr)
        return 2
    print(json.dumps(c, indent=1) if "--json" in argv else summary(os.path.basename(os.path.abspath(kb)), c))
    return 0 if c["agree"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
