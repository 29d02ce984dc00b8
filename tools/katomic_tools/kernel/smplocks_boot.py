"""The guest's own reading of its lock sites: the .smp_locks step's evidence.

usage: python3 -m katomic_tools.kernel.smplocks_boot KBUILD --list FILE [--cc gcc-12]
           [--boot SMP[:APPEND]]... [--deadline S] [--out DIR]

KBUILD is a kernel O= build dir (vmlinux, arch/x86/boot/bzImage) of a
non-relocatable kernel; FILE is `python3 -m katomic_tools.kernel.smplocks
--list --dry-run KBUILD/vmlinux`'s output (the decoder's lock sites, so the
slow disassembly is not repeated; every site is checked to hold 0xf0 in
vmlinux).  A test module (tools/kernel/smplocks/) is built with the site
addresses in it: recorded (the .smp_locks entries in _text.._etext) and
unrecorded (the other lock sites there).  A minimal /init loads it, brings
cpu1 online when there is one, loads it again, powers off.  Each --boot
(qemu -smp value, then kernel arguments; default: 1, 2, and 2:maxcpus=1)
prints one line per reading: how many sites hold 0xf0 and how many 0x3e.
Exit 0 when every boot shows what the kernel's rule says: one CPU present,
or booted with maxcpus=1 before cpu1 comes up: every recorded site 0x3e;
otherwise (and after "SMP alternatives: switching to SMP code") every
recorded site 0xf0; unrecorded sites always 0xf0.
"""
import os
import re
import shutil
import struct
import subprocess
import sys

from . import boot, initramfs
from .smplocks import symbols, TABLE
from ..common import paths

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "up"))
import uplocks                       # noqa: E402

LINE = re.compile(r"katomic-smplocks: (recorded|unrecorded): (\d+) sites: (\d+) hold 0xf0, (\d+) hold 0x3e, "
                  r"(\d+) other \(online (\d+), possible (\d+)\)")


def die(msg):
    print("smplocks_boot: " + msg, file=sys.stderr)
    sys.exit(2)


def sites(vmlinux, list_file):
    with open(vmlinux, "rb") as f:
        data = f.read()
    elf = uplocks.Elf(vmlinux, data)
    sy = symbols(elf, ("_text", "_etext"))
    lo, hi = sy["_text"], sy["_etext"]
    tab = elf.section(TABLE)
    slots = struct.unpack_from("<%di" % (tab[5] // 4), data, tab[4])
    recorded = sorted({t for t in (tab[3] + 4 * i + v for i, v in enumerate(slots) if v) if lo <= t < hi})
    text = elf.section(".text")
    allsites = set()
    with open(list_file) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("0x"):
                a = int(line.split("\t")[0], 16)
                if lo <= a < hi:
                    allsites.add(a)
    for a in sorted(allsites | set(recorded)):
        if not text[3] <= a < text[3] + text[5] or data[text[4] + a - text[3]] != 0xF0:
            die("%s: 0x%x does not hold a lock prefix in vmlinux: %s is not this vmlinux's list" % (vmlinux, a, list_file))
    return recorded, sorted(allsites - set(recorded))


def main(argv):
    a = {"list": None, "cc": "gcc-12", "boots": [], "deadline": 600, "out": None, "kbuild": None}
    it = iter(argv)
    for arg in it:
        if arg in ("-h", "--help"):
            print(__doc__)
            return 0
        if arg in ("--list", "--cc", "--boot", "--deadline", "--out"):
            v = next(it, None)
            if v is None:
                die("%s needs a value" % arg)
            if arg == "--boot":
                a["boots"].append(v)
            else:
                a[arg[2:]] = v
        elif arg.startswith("-"):
            die("unknown option %s" % arg)
        else:
            a["kbuild"] = arg
    if not a["kbuild"] or not a["list"]:
        die("usage: smplocks_boot KBUILD --list FILE [--boot SMP[:APPEND]]...")
    kb = os.path.abspath(a["kbuild"])
    out = os.path.abspath(a["out"] or os.path.join(kb, "katomic-smplocks"))
    recorded, kept = sites(os.path.join(kb, "vmlinux"), a["list"])
    mod = os.path.join(out, "mod")
    shutil.rmtree(mod, ignore_errors=True)
    os.makedirs(mod)
    src = os.path.join(paths.root(), "tools", "kernel", "smplocks")
    for f in ("katomic_smplocks_probe.c", "Kbuild"):
        shutil.copyfile(os.path.join(src, f), os.path.join(mod, f))
    with open(os.path.join(mod, "sites.h"), "w") as f:
        for name, xs in (("katomic_recorded", recorded), ("katomic_kept", kept)):
            f.write("static const unsigned long %s[] = {\n%s\n};\n"
                    % (name, "\n".join("\t0x%xUL," % x for x in xs) or "\t0"))
    r = subprocess.run(["make", "-C", kb, "M=" + mod, "CC=" + a["cc"], "HOSTCC=" + a["cc"], "modules"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    ko = os.path.join(mod, "katomic_smplocks_probe.ko")
    if r.returncode or not os.path.isfile(ko):
        die("building the probe module failed: %s" % r.stdout.strip()[-400:])
    init = os.path.join(out, "init")
    p = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-o", init, os.path.join(src, "init.c")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode:
        die("building /init failed: %s" % p.stdout.strip()[-300:])
    entries = [("dev", "dir", b""), ("dev/console", ("chr", 5, 1), b""), ("sys", "dir", b"")]
    for name, path, kind in (("init", init, "exec"), ("probe.ko", ko, "file")):
        with open(path, "rb") as f:
            entries.append((name, kind, f.read()))
    initrd = os.path.join(out, "initramfs.cpio")
    initramfs.write_cpio(initrd, entries)
    print("smplocks_boot: %d recorded sites, %d unrecorded lock sites in _text.._etext" % (len(recorded), len(kept)))
    ok = True
    for spec in a["boots"] or ["1", "2", "2:maxcpus=1"]:
        smp, _, append = spec.partition(":")
        log = os.path.join(out, "boot-smp%s%s.log" % (smp.replace(",", "-").replace("=", ""),
                                                       ("-" + append.replace("=", "")) if append else ""))
        res = boot.run(os.path.join(kb, "arch/x86/boot/bzImage"), initrd, smp, int(a["deadline"]), log,
                       append=append)
        with open(log, errors="replace") as f:
            text = f.read()
        # 6.12 prints nothing when it patches to UP; with one possible CPU it
        # then frees the table ("Freeing SMP alternatives memory").
        freed = "Freeing SMP alternatives memory" in text
        smpc = "SMP alternatives: switching to SMP code" in text
        readings = LINE.findall(text)
        print("boot -smp %s %s: %s in %.0f s; table freed: %s, 'switching to SMP code': %s; cpu1 online: %s"
              % (smp, append, res["outcome"], res["seconds"], freed, smpc,
                 "katomic-smplocks-init: cpu1 online" in text))
        one_cpu = "maxcpus=1" in append or smp.split(",")[0] == "1"
        for i, (what, n, f0, ds, other, online, possible) in enumerate(readings):
            print("  %s: %s sites, %s hold 0xf0, %s hold 0x3e, %s other (online %s, possible %s)"
                  % (what, n, f0, ds, other, online, possible))
            # alternative_instructions(): UP code when one CPU is present or maxcpus<=1,
            # until alternatives_enable_smp() before a second CPU comes up.
            patched = one_cpu and online == "1"
            want = (int(n), 0) if (what == "unrecorded" or not patched) else (0, int(n))
            if (int(f0), int(ds)) != want or other != "0":
                ok = False
                print("  ^ expected %d hold 0xf0, %d hold 0x3e" % want)
        cpu1 = "katomic-smplocks-init: cpu1 online" in text
        if (res["outcome"] != "poweroff" or len(readings) != (4 if cpu1 else 2)
                or (cpu1 and one_cpu and not smpc)):
            ok = False
            print("  ^ the boot did not finish with the readings (log: %s)" % log)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
