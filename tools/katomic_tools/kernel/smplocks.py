"""katomic's .smp_locks decoder: the compiler's lock prefixes of a kernel, found and checked.

usage: python3 -m katomic_tools.kernel.smplocks [--list] [--dry-run] VMLINUX|MODULE.ko...

Since issue 37 katomic's patch has objtool record these sites at build time
(objtool --smp-locks, docs/kernel.md); this decoder is the cross-check's
(crosscheck.py) and the probe's (smplocks_boot.py), with --list --dry-run.
Without --dry-run it still writes the table: the retired post-link step,
which needs a vmlinux linked with room after __katomic_smp_locks_reserve
(what katomic's patch reserved in vmlinux.lds.S before issue 37).

A relocatable file (a .ko) gets the module step: smplocks_ko.py.

The kernel drops the lock prefixes of a multiprocessor kernel booted on one
CPU (arch/x86/kernel/alternative.c: alternatives_smp_unlock() rewrites 0xF0
into a DS prefix, 0x3E, at every site .smp_locks names, inside _text.._etext;
alternatives_smp_lock() puts them back before a second CPU comes up).  Only
asm written with LOCK_PREFIX is recorded there, so a kernel on C11 atomics
keeps every lock the compiler emitted.  This step (once run by
link-vmlinux.sh after sorttable) finds them and adds them to the table:

  1. the decoder of `katomic uplocks` (tools/up/uplocks.py, shared) finds
     every lock-prefixed read-modify-write in the executable sections;
  2. the table's entries (s32, each relative to its own address; 0 = unused,
     which the kernel skips) are read; one inside _text.._etext that does not
     name a lock prefix is a stale table: refused;
  3. every lock in _text.._etext the table lacks is a new site, unless it is
     kept locked: a DS prefix before the lock (katomic's __KA_LOCK_KEEP mark)
     or an FS/GS segment prefix (a second segment override would be
     undefined), or a fence: add or or of 0 to the stack (%rsp), the kernel's __smp_mb() (lock addl $0,-4(%rsp), which it never
     records: virt_mb() orders memory shared with a hypervisor that a
     one-CPU guest still needs) or the compiler's seq_cst fence.  Refused, nothing written: a new site inside the original
     bytes of an alternative (.altinstructions; apply_alternatives() may
     replace them), of a jump label (__jump_table) or of an inline static
     call (.static_call_sites); a lock in an alternative's replacement
     (.altinstr_replacement) the table lacks; a kernel with .parainstructions;
     more entries than the table has room for (the message says how many).
     Locks outside _text.._etext (.init.text, freed; .exit.text) are left
     out: the kernel's own range check skips them;
  4. the union of the table's entries and the new sites is written sorted,
     each relative to its new slot; the remaining slots are zeroed.  The
     size of the table (__smp_locks_end) does not change: the linker script
     reserved the room (__katomic_smp_locks_reserve marks where it starts).

Run twice, the second run adds nothing.  Exit 1 with one line naming the
file and the reason when refused or broken; 2 on bad usage.
"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "up"))
import uplocks                       # noqa: E402  (the shared decoder)
from uplocks import Error            # noqa: E402

TABLE = ".smp_locks"
MARK = "__katomic_smp_locks_reserve"
SYMS = ("_text", "_etext", "__smp_locks", "__smp_locks_end", MARK)
SEG_FS_GS = {0x64, 0x65}
# A full fence: add/or of 0 to the stack (the kernel's __smp_mb(), gcc's seq_cst fence); an
# atomic on a stack object (set_bit on a local bitmap) is recorded like any other.
FENCE = re.compile(r"^lock\s+(?:add|or)[bwlq]?\s+\$0x0,(?:-?0x[0-9a-f]+)?\(%rsp\)$")


# The kernel's own fence, __smp_mb()'s form; the patch writes smp_mb() with LOCK_PREFIX, so the
# assembler records some of them (smp_mb()) and not others (virt_mb()); the compilers' seq_cst
# fences are `or` (gcc-12 lock orq $0,(%rsp), clang lock orl $0,(%rsp)) or mfence.
ASM_FENCE = re.compile(r"^lock\s+addl\s+\$0x0,-0x4\(%rsp\)$")


def kept_locked(a, site):
    """A lock that stays locked on one CPU: a DS prefix before it (__KA_LOCK_KEEP), an FS/GS
    segment prefix (a second segment override is undefined), or a fence on the stack."""
    ia, raw, text, marked = site
    return bool(marked or SEG_FS_GS & set(raw[:a - ia]) or FENCE.match(text))


def symbols(elf, names):
    """{name: value} of the named symbols in .symtab (the first of each)."""
    st, sn = elf.section(".symtab"), elf.section(".strtab")
    if not st or not sn:
        raise Error("%s: no symbol table (.symtab/.strtab): a stripped vmlinux cannot be scanned" % elf.path)
    data, out = elf.data, {}
    stroff = sn[4]
    want = {n.encode() for n in names}
    for i in range(st[5] // 24):
        name, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, st[4] + i * 24)
        end = data.index(b"\0", stroff + name)
        nm = data[stroff + name:end]
        if nm in want and nm.decode() not in out:
            out[nm.decode()] = value
    return out


def table_of(elf, name, size, fields):
    """Rows of a kernel table section: each s32 field at `fields` offsets made absolute."""
    s = elf.section(name)
    if not s:
        return []
    _, _, _, addr, off, n = s
    if n % size:
        raise Error("%s: section %s is %d bytes, not a multiple of its %d-byte entries" % (elf.path, name, n, size))
    rows = []
    for i in range(n // size):
        base = addr + i * size
        rows.append([base + f + struct.unpack_from("<i", elf.data, off + i * size + f)[0] for f in fields]
                    + [elf.data[off + i * size:off + (i + 1) * size]])
    return rows


# struct alt_instr ends with the original's and the replacement's lengths (u8
# each): 14 bytes in 6.12 (a u32 ft_flags), 12 in 6.1 (a u16 cpuid).
ALT_ENTRY_DEFAULT = 14


def alt_entry_size(path):
    """The size of a .altinstructions entry of the kernel build `path` (vmlinux,
    or a file in its O= dir) belongs to: ALT_ENTRY_SIZE of objtool's
    arch/special.h in its source tree (the build dir's `source` link, or the
    tree itself), as objtool reads it; 6.12's without a tree above `path`."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        for top in (os.path.join(d, "source"), d):
            h = os.path.join(top, "tools", "objtool", "arch", "x86", "include", "arch", "special.h")
            if os.path.isfile(h):
                with open(h) as f:
                    m = re.search(r"^#define\s+ALT_ENTRY_SIZE\s+(\d+)", f.read(), re.M)
                if m:
                    return int(m.group(1))
        if os.path.dirname(d) == d:
            return ALT_ENTRY_DEFAULT
        d = os.path.dirname(d)


def guarded(elf):
    """[(start, end, what)] byte ranges of text that other patching may rewrite."""
    out = []
    size = alt_entry_size(elf.path)
    for instr, raw in table_of(elf, ".altinstructions", size, (0,)):
        out.append((instr, instr + raw[size - 2], "the original instruction of an alternative (.altinstructions)"))
    for code, raw in table_of(elf, "__jump_table", 16, (0,)):
        out.append((code, code + 5, "a jump label (__jump_table)"))
    for addr, raw in table_of(elf, ".static_call_sites", 8, (0,)):
        out.append((addr, addr + 5, "an inline static call (.static_call_sites)"))
    return sorted(out)


def where(elf, a):
    for nm, _, flags, addr, _, size in elf.sections:
        if flags & uplocks.SHF_ALLOC and addr <= a < addr + size:
            return nm
    return "?"


def elf_offset(elf, a):
    for _, stype, flags, addr, off, size in elf.sections:
        if flags & uplocks.SHF_ALLOC and stype != uplocks.SHT_NOBITS and addr <= a < addr + size:
            return off + a - addr
    return None


def read(path):
    """The file's bytes; Error naming it when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise Error("%s: %s" % (path, e.strerror)) from e


def run(path, list_sites=False, dry_run=False, out=sys.stdout):
    data = read(path)
    elf = uplocks.Elf(path, data)
    sy = symbols(elf, SYMS)
    missing = [n for n in SYMS if n not in sy]
    if MARK in missing and dry_run:
        missing.remove(MARK)            # counting only: a kernel built without the room
    elif MARK in missing:
        raise Error("%s: no %s symbol: no room in .smp_locks to write into (katomic's patch no longer "
                    "reserves it: objtool --smp-locks records the sites; --dry-run checks them)" % (path, MARK))
    if missing:
        raise Error("%s: symbol %s missing: not an x86-64 vmlinux" % (path, missing[0]))
    tab = elf.section(TABLE)
    if not tab or tab[1] == uplocks.SHT_NOBITS:
        raise Error("%s: no %s section with contents" % (path, TABLE))
    _, _, _, taddr, toff, tsize = tab
    if sy["__smp_locks"] != taddr or sy["__smp_locks_end"] != taddr + tsize:
        raise Error("%s: __smp_locks..__smp_locks_end (0x%x..0x%x) is not section %s (0x%x..0x%x)"
                    % (path, sy["__smp_locks"], sy["__smp_locks_end"], TABLE, taddr, taddr + tsize))
    sy.setdefault(MARK, taddr + tsize)
    if not taddr <= sy[MARK] <= taddr + tsize:
        raise Error("%s: %s lies outside %s" % (path, MARK, TABLE))
    if elf.section(".parainstructions"):
        raise Error("%s: a .parainstructions section: paravirt patch sites are not supported "
                    "(linux 6.12 patches paravirt through alternatives)" % path)
    lo, hi = sy["_text"], sy["_etext"]
    capacity = tsize // 4
    slots = struct.unpack_from("<%di" % capacity, data, toff)
    entries = {taddr + 4 * i + v for i, v in enumerate(slots) if v}
    asm_entries = {taddr + 4 * i + v for i, v in enumerate(slots[:(sy[MARK] - taddr) // 4]) if v}

    found = uplocks.lock_sites(path)
    stale = sorted(e for e in entries if lo <= e < hi and e not in found)
    if stale:
        at = elf_offset(elf, stale[0])
        held = "0x%02x" % data[at] if at is not None else "no file byte"
        raise Error("%s: stale %s: an entry names 0x%x in %s, which holds %s, not a lock prefix "
                    "(%d such entries): link vmlinux again" % (path, TABLE, stale[0], where(elf, stale[0]),
                                                                held, len(stale)))
    repl = elf.section(".altinstr_replacement")
    if repl:
        bad = sorted(a for a in found if repl[3] <= a < repl[3] + repl[5] and a not in entries)
        if bad:
            raise Error("%s: a lock at 0x%x lies in an alternative's replacement (.altinstr_replacement), "
                        "which .smp_locks cannot cover (%d such locks)" % (path, bad[0], len(bad)))
    kept, outside, new = [], [], []
    for a in sorted(found):
        if a in entries:
            continue
        if not lo <= a < hi:
            outside.append(a)
            continue
        if kept_locked(a, found[a]):
            kept.append(a)
        else:
            new.append(a)
    g = guarded(elf)
    for a in new:
        for s, e, what in g:
            if s <= a < e:
                raise Error("%s: the lock at 0x%x lies in %s at 0x%x: it cannot be recorded" % (path, a, what, s))
    merged = sorted(entries | set(new))
    if len(merged) > capacity and dry_run:
        print("katomic smplocks: %s: %s has %d slots, %d entries would be needed" % (path, TABLE, capacity, len(merged)),
              file=out)
        merged = merged[:capacity]
    elif len(merged) > capacity:
        need = len(merged) - len(asm_entries)
        raise Error("%s: %s holds %d entries, %d are needed (%d the kernel's asm, %d new): reserve at least "
                    "%d bytes after the kernel's own entries (after __katomic_smp_locks_reserve in "
                    "the linker script)"
                    % (path, TABLE, capacity, len(merged), len(asm_entries), len(new), 4 * need))
    blob = struct.pack("<%di" % len(merged), *[t - (taddr + 4 * i) for i, t in enumerate(merged)])
    blob += b"\0" * (4 * capacity - len(blob))
    if list_sites:
        for a in sorted(found):
            tag = ("table" if a in entries else "new" if a in new else "kept locked" if a in kept
                   else "outside _text.._etext")
            print("0x%x\t%s\t%s\t%s" % (a, where(elf, a), found[a][2], tag), file=out)
    if not dry_run and blob != data[toff:toff + 4 * capacity]:
        try:
            with open(path, "r+b") as f:
                f.seek(toff)
                f.write(blob)
        except OSError as e:
            raise Error("%s: cannot write %s: %s" % (path, TABLE, e.strerror)) from e
    in_text = sum(1 for e in entries if lo <= e < hi)
    stats = {"lock_sites": len(found), "in_text": sum(1 for a in found if lo <= a < hi),
             "table_before": len(entries), "table_before_text": in_text, "asm_entries": len(asm_entries),
             "new": len(new), "kept_locked": len(kept), "outside_text": len(outside),
             "table_after": len(merged), "capacity": capacity,
             "unpatched_on_up": len(kept) + sum(1 for a in found if lo <= a < hi and a not in merged)}
    print("katomic smplocks: %s: %d lock sites in _text.._etext; %s had %d entries (%d in it), %s %d new "
          "(%d kept locked, %d outside it left out), %d of %d slots used"
          % (path, stats["in_text"], TABLE, len(entries), in_text, "found" if dry_run else "added",
             len(new), len(kept), len(outside), len(merged), capacity), file=out)
    return stats


def run_any(path, list_sites=False, dry_run=False):
    """vmlinux (linked) or a module (.ko, relocatable: smplocks_ko)."""
    head = read(path)[:18]
    if len(head) == 18 and head[:4] == b"\x7fELF" and struct.unpack_from("<H", head, 16)[0] == 1:
        from . import smplocks_ko
        return smplocks_ko.run(path, list_sites, dry_run)
    return run(path, list_sites, dry_run)


def main(argv):
    return uplocks.cli(argv, "katomic smplocks",
                       "python3 -m katomic_tools.kernel.smplocks [--list] [--dry-run] VMLINUX|MODULE.ko...",
                       __doc__, run_any)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
