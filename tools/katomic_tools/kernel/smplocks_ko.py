"""The .smp_locks decoder for a module: the compiler's lock prefixes of a .ko, found and checked.

usage: python3 -m katomic_tools.kernel.smplocks [--list] [--dry-run] MODULE.ko...
(smplocks.py hands every relocatable ELF file here.  objtool --smp-locks of
katomic's patch records these sites at build time; with --list --dry-run this
is the cross-check's and the probe's reader.  Without --dry-run it still
appends them to the .ko, as the retired step in scripts/Makefile.modfinal did.)

A module's lock sites reach the kernel through its .smp_locks too: module
load calls alternatives_smp_module_add() with that table and the module's
core text (mem[MOD_TEXT]: every SHF_ALLOC|SHF_EXECINSTR section whose name
does not start with ".init", .exit.text included under CONFIG_MODULE_UNLOAD,
and .altinstr_replacement, which is "ax" too).  A .ko is relocatable, so an
entry is not a number but a relocation: R_X86_64_PC32 at the entry's offset
against a symbol of the text section, addend = site - symbol value (the form
the assembler gives LOCK_PREFIX's `.long 671f - .`: `.text + 219`).  The
table's own bytes stay zero (the x86 module loader refuses a non-zero
relocation target).

  1. the shared decoder (uplocks.lock_sites_by_section) finds every lock
     site, per section (each starts at 0 in a relocatable file);
  2. the table's entries are read from .rela.smp_locks; one naming a byte of
     module text that is not a lock prefix is a stale table: refused;
  3. a lock in text (sections as above, .altinstr_replacement not counted)
     the table lacks is new, unless kept locked (smplocks.kept_locked: DS
     mark, FS/GS prefix, a fence on the stack).  Refused, nothing written: a
     lock in .altinstr_replacement the table lacks; a new site in the
     original bytes of an alternative (.rela.altinstructions), a jump label
     (.rela__jump_table) or an inline static call (.rela.static_call_sites);
     a table entry that is not R_X86_64_PC32 against a defined symbol; a
     text section with no symbol to relocate against.  .init.text sites are
     left out (freed after init; the kernel's range check skips them);
  4. the old table and its relocations stay as they are (so old offsets stay
     valid); the new entries are appended: the grown .smp_locks (zeros) and
     .rela.smp_locks are written at the end of the file and their section
     headers repointed.  A module without the sections gets both (.smp_locks:
     SHF_ALLOC, align 4; .rela.smp_locks: sh_link .symtab, sh_info the new
     section), their names in a new .shstrtab, and a new section header
     table at the end of the file.  Sections and symbols are never renumbered.

Run twice, the second run adds nothing and writes nothing.
"""
import os
import re
import struct
import sys

from .smplocks import kept_locked, read, uplocks, Error

TABLE, RELA = ".smp_locks", ".rela.smp_locks"
SHT_PROGBITS, SHT_SYMTAB, SHT_RELA = 1, 2, 4
SHF_INFO_LINK = 0x40
STT_SECTION, STT_FILE = 3, 4
R_X86_64_PC32 = 2
SHN_UNDEF, SHN_LORESERVE = 0, 0xFF00
REL = struct.Struct("<QQq")            # r_offset, r_info, r_addend
SYM = struct.Struct("<IBBHQQ")         # st_name, st_info, st_other, st_shndx, st_value, st_size
SHDR = struct.Struct("<IIQQQQIIQQ")
# Tables of other patching whose entry's first field (an s32, relocated) names text that may
# be rewritten: (relocation section, entry size, length of the bytes it names or None: the
# alt_instr's instrlen byte, the entry's last but one).  An alt_instr entry has two
# relocations (instr_offset, repl_offset) whatever its size (14 bytes in 6.12, 12 in
# 6.1): its size is the section's over half their number (size None).
GUARDS = ((".altinstructions", None, None, "the original instruction of an alternative (.altinstructions)"),
          ("__jump_table", 16, 5, "a jump label (__jump_table)"),
          (".static_call_sites", 8, 5, "an inline static call (.static_call_sites)"))


class Module:
    def __init__(self, path, data=None):
        self.path = path
        self.data = data = read(path) if data is None else data
        self.elf = uplocks.Elf(path, data, relocatable=True)
        if self.elf.type != 1:
            raise Error("%s: not a relocatable object (a .ko)" % path)
        self.names = [s[0] for s in self.elf.sections]
        tabs = [i for i, h in enumerate(self.elf.headers) if h[1] == SHT_SYMTAB]
        if len(tabs) != 1:
            raise Error("%s: %d symbol tables (.symtab): a stripped or broken module" % (path, len(tabs)))
        self.symtab = tabs[0]
        h = self.elf.headers[self.symtab]
        self.syms = [SYM.unpack_from(data, h[4] + i * SYM.size) for i in range(h[5] // SYM.size)]

    def symbol(self, name):
        """(section name, value, size) of the first symbol called `name` defined in a section."""
        st = self.elf.headers[self.elf.headers[self.symtab][6]][4]
        want = name.encode() + b"\0"
        for st_name, _, _, sh, value, size in self.syms:
            if 0 < sh < SHN_LORESERVE and self.data[st + st_name:st + st_name + len(want)] == want:
                return self.names[sh], value, size
        raise Error("%s: no symbol %s defined in it" % (self.path, name))

    def index(self, name):
        found = [i for i, n in enumerate(self.names) if n == name]
        if len(found) > 1:
            raise Error("%s: %d sections named %s" % (self.path, len(found), name))
        return found[0] if found else None

    def rela_for(self, target):
        """Index of the SHT_RELA section applying to section `target`, or None."""
        found = [i for i, h in enumerate(self.elf.headers) if h[1] == SHT_RELA and h[7] == target]
        if len(found) > 1:
            raise Error("%s: %d relocation sections for %s" % (self.path, len(found), self.names[target]))
        return found[0] if found else None

    def relocs(self, rela):
        h = self.elf.headers[rela]
        if h[6] != self.symtab:
            raise Error("%s: %s does not use .symtab" % (self.path, self.names[rela]))
        return [REL.unpack_from(self.data, h[4] + i * REL.size) for i in range(h[5] // REL.size)]

    def target(self, sym, addend, what):
        """(section index, offset) a relocation names (symbol value + addend)."""
        if sym >= len(self.syms) or self.syms[sym][3] in (SHN_UNDEF,) or self.syms[sym][3] >= SHN_LORESERVE:
            raise Error("%s: %s: a relocation against symbol %d, not defined in a section of the module"
                        % (self.path, what, sym))
        return self.syms[sym][3], self.syms[sym][4] + addend

    def symbol_in(self, shndx):
        """(symbol index, value) to relocate against in section shndx: its section symbol, else the
        first symbol defined in it."""
        best = None
        for i, (_, info, _, sh, value, _) in enumerate(self.syms):
            if i == 0 or sh != shndx or info & 0xF == STT_FILE:
                continue
            if info & 0xF == STT_SECTION:
                return i, value
            if best is None:
                best = (i, value)
        if best is None:
            raise Error("%s: no symbol in section %s to relocate a .smp_locks entry against"
                        % (self.path, self.names[shndx]))
        return best



def built_modules(kb):
    """The .ko files a build directory's modules.order names (6.12 names
    each module's .o, 6.1 its .ko); none when it has no modules.order."""
    try:
        with open(os.path.join(kb, "modules.order")) as f:
            return [os.path.join(kb, re.sub(r"\.k?o$", ".ko", l.strip())) for l in f
                    if l.strip().endswith((".o", ".ko"))]
    except OSError:
        return []

def text_sections(m):
    """{index: name} of the sections that stay as module text (mem[MOD_TEXT]) and can be recorded."""
    out = {}
    for i, (nm, stype, flags, _, _, size) in enumerate(m.elf.sections):
        if (flags & uplocks.SHF_ALLOC and flags & uplocks.SHF_EXECINSTR and stype != uplocks.SHT_NOBITS
                and size and not nm.startswith(".init") and nm != ".altinstr_replacement"):
            out[i] = nm
    return out


def guarded(m):
    """[(section index, start, end, what)]: text other patching may rewrite."""
    out = []
    for name, size, length, what in GUARDS:
        sec = m.index(name)
        if sec is None:
            continue
        rela = m.rela_for(sec)
        off, sec_size = m.elf.sections[sec][4], m.elf.sections[sec][5]
        rels = m.relocs(rela) if rela is not None else []
        if size is None:
            if not rels:
                continue
            if (2 * sec_size) % len(rels) or len(rels) % 2:
                raise Error("%s: section %s: %d bytes, %d relocations: not entries of two each"
                            % (m.path, name, sec_size, len(rels)))
            size = 2 * sec_size // len(rels)
        for r_off, info, addend in rels:
            if r_off + 4 > sec_size:
                raise Error("%s: a relocation at 0x%x lies beyond section %s" % (m.path, r_off, name))
            if r_off % size:
                continue                    # a later field (replacement, target, key)
            if r_off + size > sec_size:
                raise Error("%s: section %s ends inside an entry (%d bytes each)" % (m.path, name, size))
            shndx, at = m.target(info >> 32, addend, name)
            n = length if length is not None else m.data[off + r_off + size - 2]
            out.append((shndx, at, at + n, what))
    return out


def run(path, list_sites=False, dry_run=False, out=sys.stdout):
    m = Module(path, read(path))
    by_name = uplocks.lock_sites_by_section(path)
    found = {}                                  # (section index, offset) -> site
    for name, sites in by_name.items():
        sec = m.index(name)
        if sec is None:
            raise Error("%s: objdump shows section %s, which the section headers lack" % (path, name))
        for a, site in sites.items():
            found[(sec, a)] = site
    text = text_sections(m)

    tab, rela = m.index(TABLE), m.index(RELA)
    if rela is not None and (tab is None or m.elf.headers[rela][7] != tab or m.elf.headers[rela][1] != SHT_RELA):
        raise Error("%s: %s does not relocate %s" % (path, RELA, TABLE))
    if tab is not None and m.elf.headers[tab][1] != SHT_PROGBITS:
        raise Error("%s: %s is not a PROGBITS section" % (path, TABLE))
    old_relocs = m.relocs(rela) if rela is not None else []
    entries = set()
    for r_off, info, addend in old_relocs:
        if info & 0xFFFFFFFF != R_X86_64_PC32 or r_off % 4:
            raise Error("%s: %s: an entry at 0x%x is not an R_X86_64_PC32 relocation of an s32 (type %d)"
                        % (path, RELA, r_off, info & 0xFFFFFFFF))
        entries.add(m.target(info >> 32, addend, RELA))
    stale = sorted(e for e in entries if e[0] in text and e not in found)
    if stale:
        sec, at = stale[0]
        s = m.elf.sections[sec]
        held = "0x%02x" % m.data[s[4] + at] if at < s[5] else "no byte"
        raise Error("%s: stale %s: an entry names %s+0x%x, which holds %s, not a lock prefix (%d such "
                    "entries): link the module again" % (path, TABLE, s[0], at, held, len(stale)))
    repl = m.index(".altinstr_replacement")
    bad = sorted(k for k in found if k[0] == repl and k not in entries)
    if bad:
        raise Error("%s: a lock at .altinstr_replacement+0x%x lies in an alternative's replacement, which "
                    "%s cannot cover (%d such locks)" % (path, bad[0][1], TABLE, len(bad)))
    new, kept, outside = [], [], []
    for k in sorted(found):
        if k in entries:
            continue
        if k[0] not in text:
            outside.append(k)
        elif kept_locked(k[1], found[k]):
            kept.append(k)
        else:
            new.append(k)
    for sec, a in new:
        for gs, s, e, what in guarded(m):
            if gs == sec and s <= a < e:
                raise Error("%s: the lock at %s+0x%x lies in %s at %s+0x%x: it cannot be recorded"
                            % (path, m.names[sec], a, what, m.names[sec], s))
    if list_sites:
        for k in sorted(found):
            tag = ("table" if k in entries else "new" if k in new else "kept locked" if k in kept
                   else "not module text")
            print("%s+0x%x\t%s\t%s" % (m.names[k[0]], k[1], found[k][2], tag), file=out)
    if new and not dry_run:
        write(m, tab, rela, new)
    print("katomic smplocks: %s: %d lock sites in module text; %s had %d entries, %s %d new (%d kept locked, "
          "%d outside module text left out)"
          % (path, sum(1 for k in found if k[0] in text), TABLE, len(entries), "found" if dry_run else "added",
             len(new), len(kept), len(outside)), file=out)
    return {"lock_sites": len(found), "in_text": sum(1 for k in found if k[0] in text),
            "table_before": len(entries), "new": len(new), "kept_locked": len(kept), "outside_text": len(outside)}


def write(m, tab, rela, new):
    """Append the grown table and its relocations (and, if new, their section headers)."""
    data, hdrs = bytearray(m.data), [list(h) for h in m.elf.headers]

    def append(blob, align):
        data.extend(b"\0" * (-len(data) % align))
        at = len(data)
        data.extend(blob)
        return at

    old_size = hdrs[tab][5] if tab is not None else 0
    old_locks = bytes(m.data[hdrs[tab][4]:hdrs[tab][4] + old_size]) if tab is not None else b""
    old_rela = bytes(m.data[hdrs[rela][4]:hdrs[rela][4] + hdrs[rela][5]]) if rela is not None else b""
    syms = {}
    recs = []
    for i, (sec, a) in enumerate(new):
        if sec not in syms:
            syms[sec] = m.symbol_in(sec)
        sym, value = syms[sec]
        recs.append(REL.pack(old_size + 4 * i, (sym << 32) | R_X86_64_PC32, a - value))
    add_names = []
    if tab is None:
        tab = len(hdrs)
        hdrs.append([0, SHT_PROGBITS, uplocks.SHF_ALLOC, 0, 0, 0, 0, 0, 4, 0])
        add_names.append(tab)
    if rela is None:
        rela = len(hdrs)
        hdrs.append([0, SHT_RELA, SHF_INFO_LINK, 0, 0, 0, m.symtab, tab, 8, REL.size])
        add_names.append(rela)
    hdrs[tab][4] = append(old_locks + b"\0" * (4 * len(new)), 4)
    hdrs[tab][5] = old_size + 4 * len(new)
    hdrs[rela][4] = append(old_rela + b"".join(recs), 8)
    hdrs[rela][5] = len(old_rela) + REL.size * len(new)
    if add_names:
        # ".rela.smp_locks\0": .smp_locks's name is its tail, as ld shares them.
        shs = hdrs[m.elf.shstrndx]
        strtab = bytes(m.data[shs[4]:shs[4] + shs[5]])
        base = len(strtab)
        for i in add_names:
            hdrs[i][0] = base + (len(".rela") if i == tab else 0)
        strtab += (RELA + "\0").encode()
        shs[4], shs[5] = append(strtab, 1), len(strtab)
        shoff = append(b"".join(SHDR.pack(*h) for h in hdrs), 8)
        struct.pack_into("<Q", data, 40, shoff)
        struct.pack_into("<H", data, 60, len(hdrs))
    else:
        for i in (tab, rela):
            SHDR.pack_into(data, m.elf.shoff + i * SHDR.size, *hdrs[i])
    try:
        with open(m.path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise Error("%s: cannot write it: %s" % (m.path, e.strerror)) from e
