#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""katomic uplocks [--list] [--dry-run] PROG...

Record the lock prefixes of a linked x86-64 executable or shared object in
the table <katomic/up.h> reserved in it (KATOMIC_UP_TABLE or KATOMIC_UP_AUTO
in one translation unit), so that katomic_up_patch() and
katomic_up_patch_pinned() can drop them on one CPU -- for the C11 backend,
whose lock prefixes the compiler emits and records nowhere.

  1. objdump -d disassembles PROG's executable sections; every instruction
     whose legacy prefixes hold 0xF0 is a lock site.  Each is checked: the
     prefix is part of a decoded instruction (the address objdump starts it
     at), the opcode after the prefixes is one the CPU allows `lock` on (an
     ALU op, inc/dec/not/neg, xchg, xadd, cmpxchg, cmpxchg8b/16b,
     bts/btr/btc) with a memory operand, and objdump agrees that it is
     locked.  Anything else is an error: nothing is written.
  2. Locks that must stay (__KA_LOCK_KEEP: sync_cmpxchg and inline asm that
     asks for it) are left out: a DS prefix (0x3E) before the lock marks them
     in the code itself, and __ka_keep_locks records them (when the linker
     kept that section).  So are the asm backend's __ka_smp_locks sites
     (katomic_up_patch*() patch those from their own list).  Every record
     must point at a site found in step 1, every __ka_keep_locks one at a
     marked site.
  3. The addresses (as offsets from the table), the executable sections'
     ranges and a hash of their bytes are written into the table, in place.

Options: --list prints every lock site found (kept and asm-recorded ones
marked); --dry-run writes nothing.  OBJDUMP names the objdump to run.
Errors name the file and what is wrong, exit status 1 (2: bad usage).
"""
import os
import re
import shutil
import struct
import subprocess
import sys

MAGIC = b"katomic-uplocks\0"
VERSION = 1
NRANGES = 16
HDR = struct.Struct("<16sIIIIIIQ")          # magic, version, scanned, capacity, nsites, nranges, flags, hash
RANGE = struct.Struct("<qQ")
HDR_SIZE = HDR.size + NRANGES * RANGE.size   # 304: struct __ka_up_hdr
TABLE, KEEP, ASM = "__ka_uplocks", "__ka_keep_locks", "__ka_smp_locks"
SHF_ALLOC, SHF_EXECINSTR, SHT_NOBITS = 0x2, 0x4, 8
LEGACY = {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0, 0xF2, 0xF3}
# Opcodes `lock` is allowed on (memory destination only): opcode -> allowed ModRM.reg values.
ANY = range(8)
LOCKABLE_1 = {op: ANY for op in (0x00, 0x01, 0x08, 0x09, 0x10, 0x11, 0x18, 0x19, 0x20, 0x21,
                                 0x28, 0x29, 0x30, 0x31, 0x86, 0x87)}
LOCKABLE_1.update({0x80: range(7), 0x81: range(7), 0x83: range(7),   # add..xor, not cmp (/7)
                   0xF6: (2, 3), 0xF7: (2, 3),                        # not, neg
                   0xFE: (0, 1), 0xFF: (0, 1)})                       # inc, dec
LOCKABLE_0F = {op: ANY for op in (0xAB, 0xB3, 0xBB, 0xB0, 0xB1, 0xC0, 0xC1)}  # bts btr btc cmpxchg xadd
LOCKABLE_0F.update({0xBA: (5, 6, 7),        # bts/btr/btc imm8
                    0xC7: (1,)})            # cmpxchg8b/16b
MASK64 = (1 << 64) - 1


class Error(Exception):
    pass


def text_hash(ranges):
    """The hash <katomic/up.h> recomputes: over each range's bytes, then its length."""
    h = 0xCBF29CE484222325
    for data in ranges:
        pad = data + b"\0" * (-len(data) % 8)
        for (w,) in struct.iter_unpack("<Q", pad):
            h = ((h ^ w) * 0x100000001B3) & MASK64
            h ^= h >> 32
        h = ((h ^ len(data)) * 0x100000001B3) & MASK64
        h ^= h >> 32
    return h


class Elf:
    def __init__(self, path, data, relocatable=False):
        self.path, self.data = path, data
        if data[:4] != b"\x7fELF":
            raise Error(f"{path}: not an ELF file")
        if data[4] != 2 or data[5] != 1:
            raise Error(f"{path}: not a 64-bit little-endian ELF file (x86-64 only)")
        e_type, e_machine = struct.unpack_from("<HH", data, 16)
        if e_machine != 62:
            raise Error(f"{path}: not an x86-64 ELF file (e_machine {e_machine})")
        self.type = e_type
        if relocatable and e_type not in (1, 2, 3):
            raise Error(f"{path}: not a relocatable object, executable or shared object (ELF type {e_type})")
        if not relocatable and e_type not in (2, 3):
            raise Error(f"{path}: not a linked executable or shared object (ELF type {e_type}): "
                        "run katomic uplocks after linking")
        shoff, = struct.unpack_from("<Q", data, 40)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
        if not shoff or shentsize != 64 or shoff + shnum * 64 > len(data):
            raise Error(f"{path}: no usable section headers")
        if shnum == 0 or shstrndx >= shnum:
            raise Error(f"{path}: no usable section headers (extended section numbering is not supported)")
        self.shoff, self.shnum, self.shstrndx = shoff, shnum, shstrndx
        # Every field of each header (name, type, flags, addr, offset, size, link, info, align, entsize).
        self.headers = raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * 64) for i in range(shnum)]
        stroff, strsize = raw[shstrndx][4], raw[shstrndx][5]
        self.sections = []
        for name, stype, flags, addr, off, size, *_ in raw:
            end = data.index(b"\0", stroff + name) if stroff + name < len(data) else stroff + name
            nm = data[stroff + name:end].decode("ascii", "replace")
            if stype != SHT_NOBITS and off + size > len(data):
                raise Error(f"{path}: section {nm} lies beyond the end of the file")
            self.sections.append((nm, stype, flags, addr, off, size))

    def section(self, name):
        found = [s for s in self.sections if s[0] == name]
        if len(found) > 1:
            raise Error(f"{self.path}: {len(found)} sections named {name}")
        return found[0] if found else None

    def records(self, name):
        """A section of 32-bit self-relative offsets -> the addresses they name."""
        s = self.section(name)
        if not s:
            return []
        _, _, _, addr, off, size = s
        return [addr + i * 4 + struct.unpack_from("<i", self.data, off + i * 4)[0]
                for i in range(size // 4)]

    def exec_sections(self):
        return sorted((s for s in self.sections
                       if s[2] & SHF_ALLOC and s[2] & SHF_EXECINSTR and s[1] != SHT_NOBITS and s[5]),
                      key=lambda s: s[3])


def check_site(path, addr, raw, text):
    """raw: the instruction's bytes.  Returns (offset of 0xF0 in it, marked to keep: a DS prefix
    before the lock); raises if it is not a valid locked read-modify-write."""
    where = f"{path}: 0x{addr:x}: {' '.join(f'{b:02x}' for b in raw)} ({text.strip()})"
    i = 0
    while i < len(raw) and raw[i] in LEGACY:
        i += 1
    prefixes = raw[:i]
    if prefixes.count(0xF0) != 1:
        raise Error(f"{where}: {prefixes.count(0xF0)} lock prefixes")
    if i < len(raw) and 0x40 <= raw[i] <= 0x4F:
        i += 1                                  # REX
    if i < len(raw) and raw[i] == 0x0F:
        table, i = LOCKABLE_0F, i + 1
    else:
        table = LOCKABLE_1
    if i + 1 >= len(raw) or raw[i] not in table:
        raise Error(f"{where}: lock prefix on an instruction that cannot be locked")
    modrm = raw[i + 1]
    if modrm >> 6 == 3 or (modrm >> 3) & 7 not in table[raw[i]]:
        raise Error(f"{where}: lock prefix on an instruction that cannot be locked "
                    "(no memory destination, or not a read-modify-write)")
    if "lock" not in text.split():
        raise Error(f"{where}: objdump does not decode this lock prefix as part of the instruction")
    at = prefixes.index(0xF0)
    return at, 0x3E in prefixes[:at]


LINE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f]{2}(?: [0-9a-f]{2})*)\s*\t?(.*)$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")


def lock_sites_by_section(path):
    """{section name: {address of the 0xF0 byte: (instruction address, bytes, text, marked to
    keep)}} over every executable section (in a relocatable object each section starts at 0)."""
    objdump = os.environ.get("OBJDUMP", "objdump")
    if not shutil.which(objdump):
        raise Error(f"{path}: cannot disassemble it: {objdump} not found: install binutils (or set OBJDUMP)")
    try:
        out = subprocess.run([objdump, "-d", "-w", "--insn-width=16", path], capture_output=True,
                             text=True, errors="replace", check=False)
    except OSError as e:
        raise Error(f"cannot run {objdump}: {e}") from e
    if out.returncode:
        raise Error(f"{path}: {objdump} -d failed: {out.stderr.strip().splitlines()[-1:] or '?'}")
    by_section, sites = {}, {}
    for line in out.stdout.splitlines():
        m = SECTION.match(line)
        if m:
            sites = by_section.setdefault(m.group(1), {})
            continue
        m = LINE.match(line)
        if not m:
            continue
        raw = bytes.fromhex(m.group(2).replace(" ", ""))
        text = m.group(3)
        head = 0
        while head < len(raw) and raw[head] in LEGACY:
            head += 1
        if 0xF0 not in raw[:head]:
            if "lock" in text.split():
                raise Error(f"{path}: 0x{m.group(1)}: objdump shows a lock ({text.strip()}) "
                            "without a 0xF0 prefix byte")
            continue
        addr = int(m.group(1), 16)
        at, marked = check_site(path, addr, raw, text)
        sites[addr + at] = (addr, raw, text.strip(), marked)
    return by_section


def lock_sites(path):
    """{address of the 0xF0 byte: (instruction address, bytes, text, marked to keep)} over every
    executable section of a linked file."""
    sites = {}
    for s in lock_sites_by_section(path).values():
        sites.update(s)
    return sites


def scan(path, list_sites=False, dry_run=False):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Error(f"{path}: {e.strerror}") from e
    elf = Elf(path, data)
    tab = elf.section(TABLE)
    if not tab:
        raise Error(f"{path}: no {TABLE} section: define KATOMIC_UP_TABLE (or KATOMIC_UP_AUTO) before "
                    "#include <katomic/up.h> in one translation unit, and link again")
    _, stype, _, taddr, toff, tsize = tab
    if stype == SHT_NOBITS or tsize < HDR_SIZE:
        raise Error(f"{path}: section {TABLE} is not a table reserved by <katomic/up.h>")
    magic, version, scanned, capacity, nsites, _, _, old_hash = HDR.unpack_from(data, toff)
    if magic != MAGIC or version != VERSION:
        raise Error(f"{path}: section {TABLE} is not a version-{VERSION} table reserved by <katomic/up.h>")
    if HDR_SIZE + 4 * capacity > tsize:
        raise Error(f"{path}: section {TABLE} is smaller than the capacity it claims ({capacity} sites)")
    if data.find(MAGIC, toff + 16, toff + tsize) != -1:
        raise Error(f"{path}: more than one {TABLE} table: define KATOMIC_UP_TABLE in one translation unit only")
    if scanned:
        raise Error(f"{path}: already scanned ({nsites} sites, hash 0x{old_hash:016x}); "
                    "link it again to scan it again")

    found = lock_sites(path)
    keep_recs, asm = set(elf.records(KEEP)), set(elf.records(ASM))
    for name, recs in ((KEEP, keep_recs), (ASM, asm)):
        bad = sorted(recs - found.keys())
        if bad:
            raise Error(f"{path}: {name} names 0x{bad[0]:x}, which is not a lock prefix objdump decoded "
                        f"({len(bad)} such records)")
    keep = {a for a, f in found.items() if f[3]}
    bad = sorted(keep_recs - keep)
    if bad:
        raise Error(f"{path}: {KEEP} names 0x{bad[0]:x}, a lock without the DS prefix __KA_LOCK_KEEP puts before it")
    sites = sorted(found.keys() - keep - asm)
    xs = elf.exec_sections()
    if len(xs) > NRANGES:
        raise Error(f"{path}: {len(xs)} executable sections, the table describes at most {NRANGES}")
    if len(sites) > capacity:
        raise Error(f"{path}: {len(sites)} lock sites, the table holds {capacity}: build the translation "
                    f"unit that reserves it with -DKATOMIC_UP_TABLE_MAX={len(sites) + len(sites) // 4}")
    offs = [a - taddr for a in sites]
    if any(not -2**31 <= o < 2**31 for o in offs):
        raise Error(f"{path}: a lock site is more than 2 GiB from the table")
    ranges = [(s[3] - taddr, s[5]) for s in xs]
    h = text_hash([data[s[4]:s[4] + s[5]] for s in xs])

    if list_sites:
        for a in sorted(found):
            ia, raw, text, _ = found[a]
            mark = " (kept: __KA_LOCK_KEEP)" if a in keep else " (asm backend: __ka_smp_locks)" if a in asm else ""
            print(f"0x{a:x}\t{' '.join(f'{b:02x}' for b in raw)}\t{text}{mark}")
    blob = HDR.pack(MAGIC, VERSION, 1, capacity, len(sites), len(ranges), 0, h)
    blob += b"".join(RANGE.pack(o, n) for o, n in ranges) + b"\0" * (RANGE.size * (NRANGES - len(ranges)))
    blob += struct.pack(f"<{len(offs)}i", *offs)
    if not dry_run:
        try:
            with open(path, "r+b") as f:
                f.seek(toff)
                f.write(blob)
        except OSError as e:
            raise Error(f"{path}: cannot write the table: {e.strerror}") from e
    text_bytes = sum(s[5] for s in xs)
    print(f"katomic uplocks: {path}: {len(sites)} lock sites {'found' if dry_run else 'recorded'} "
          f"({len(keep)} kept locked by __KA_LOCK_KEEP, {len(asm - keep)} recorded by the asm backend), "
          f"{len(xs)} executable sections, {text_bytes} bytes, hash 0x{h:016x}")


def cli(argv, prog, usage, doc, run_one):
    """The option loop katomic uplocks and the kernel's smplocks share: --list, --dry-run, files;
    run_one(path, list_sites, dry_run) raises Error, printed as one line (exit 1; 2: bad usage)."""
    opts = {"--list": False, "--dry-run": False}
    files = []
    for a in argv:
        if a in opts:
            opts[a] = True
        elif a in ("-h", "--help"):
            print(doc.strip())
            return 0
        elif a.startswith("-"):
            print(f"{prog}: unknown option '{a}' (--list, --dry-run)", file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        print(f"usage: {usage}", file=sys.stderr)
        return 2
    rc = 0
    for p in files:
        try:
            run_one(p, opts["--list"], opts["--dry-run"])
        except Error as e:
            print(f"{prog}: {e}", file=sys.stderr)
            rc = 1
    return rc


def main(argv):
    return cli(argv, "katomic uplocks", "katomic uplocks [--list] [--dry-run] PROG...", __doc__, scan)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
