"""The guest's own reading of its lock sites: the .smp_locks steps' evidence.

usage: python3 -m katomic_tools.kernel.smplocks_boot KBUILD --list FILE [--cc gcc-12]
           [--boot SMP[:APPEND]]... [--torture-s N] [--cpu1-s N] [--deadline S] [--out DIR]

KBUILD is a kernel O= build dir (vmlinux, arch/x86/boot/bzImage) of a
non-relocatable C11 kernel; FILE is `python3 -m katomic_tools.kernel.smplocks
--list --dry-run KBUILD/vmlinux`'s output (the decoder's lock sites, so the
slow disassembly is not repeated; every site is checked to hold 0xf0 in
vmlinux).  A test module (tools/kernel/smplocks/) is built against KBUILD
(so the tree's module step records its own lock sites in its .smp_locks)
with the kernel's site addresses in it: recorded (the .smp_locks entries in
_text.._etext) and unrecorded (the other lock sites there).  Its own sites,
read from the final .ko (the module step's list: in .smp_locks or not), go
in as module parameters: offsets from its subject() function.  katomic's
/init (tools/kernel/init/init.c, katomic.probe=1) loads it at the start,
after cpu1 comes online and at the end, around the torture tests.

Each --boot (qemu -smp value, then kernel arguments; default: 1, 2, and
2:maxcpus=1) prints one line per reading: how many sites hold 0xf0 and how
many 0x3e.  With maxcpus=1, /init brings cpu1 online --cpu1-s seconds into
the first torture run (default 5; before torture when --torture-s is 0).
Exit 0 when every boot passes the judge (judge.py: self-tests, torture, no
splat) and shows what the kernel's rule says: one CPU present, or booted
with maxcpus=1 before cpu1 comes up: every recorded site 0x3e, the kernel's
and the module's; otherwise (and after "SMP alternatives: switching to SMP
code") every recorded site 0xf0; unrecorded sites always 0xf0.  Exit 1 when
a reading is wrong, 2 on bad usage or a build failure.
"""
import io
import os
import re
import shutil
import struct
import subprocess
import sys

from . import boot, initramfs, judge, smplocks_ko
from .smplocks import symbols, TABLE, uplocks, Error
from ..common import paths

LINE = re.compile(r"katomic-smplocks: ((?:module-)?(?:un)?recorded|module-sync|kernel-sync): (\d+) sites: (\d+) hold 0xf0, (\d+) hold 0x3e, "
                  r"(\d+) other \(online (\d+), possible (\d+)\)")
SUBJECT, SYNC = "subject", "sync_subject"
KINDS = ("recorded", "unrecorded", "kernel-sync", "module-recorded", "module-unrecorded", "module-sync")
MAX_PARAMS = 64                      # mod_recorded[64] in katomic_smplocks_probe.c


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
            raise Error("%s: 0x%x does not hold a lock prefix in vmlinux: %s is not this vmlinux's list" % (vmlinux, a, list_file))
    return recorded, sorted(allsites - set(recorded))


def probe_cmdline(kb):
    """The kernel arguments of a boot that loads the probe.  The probe is handed
    vmlinux's link-time site addresses: a kernel that randomizes its base
    (CONFIG_RANDOMIZE_BASE, defconfig) boots with nokaslr for it, or the probe
    reads unmapped memory (the lock prefixes do not depend on where the text is)."""
    try:
        with open(os.path.join(kb, ".config")) as f:
            kaslr = "CONFIG_RANDOMIZE_BASE=y" in f.read().split("\n")
    except OSError:
        kaslr = False
    return "katomic.probe=1" + (" nokaslr" if kaslr else "")


def _sites_of(listing, module, fn):
    """[(offset from fn, tag)] of the decoder's listing of a .ko, for function fn."""
    sec, value, size = module.symbol(fn)
    out = []
    for line in listing.splitlines():
        m = re.match(r"(\S+)\+0x([0-9a-f]+)\t[^\t]*\t(.*)$", line)
        if m and m.group(1) == sec and value <= int(m.group(2), 16) < value + size:
            out.append((int(m.group(2), 16) - value, m.group(3)))
    return out


def module_sites(ko):
    """(recorded, unrecorded, sync) lock sites of the final .ko, as offsets from their function:
    subject()'s in .smp_locks and not, sync_subject()'s (none may be in .smp_locks)."""
    buf = io.StringIO()
    smplocks_ko.run(ko, list_sites=True, dry_run=True, out=buf)
    m = smplocks_ko.Module(ko)
    rec, kept = [], []
    for off, tag in _sites_of(buf.getvalue(), m, SUBJECT):
        (rec if tag == "table" else kept).append(off)
    sync = _sites_of(buf.getvalue(), m, SYNC)
    if any(tag == "table" for _, tag in sync):
        raise Error("%s: a lock of %s() (sync_*(): memory shared with a hypervisor) is in .smp_locks: "
                    "it would be patched out on one CPU" % (ko, SYNC))
    if len(sync) < 3:
        raise Error("%s: %s() has %d lock sites, 3 expected (sync_set_bit, sync_test_and_clear_bit, "
                    "sync_cmpxchg)" % (ko, SYNC, len(sync)))
    if not rec:
        raise Error("%s: no lock site of %s() is in its .smp_locks: the build lacks objtool --smp-locks "
                    "(CONFIG_X86_ATOMIC_C11_SMP_LOCKS of katomic's patch; refresh the patched tree)" % (ko, SUBJECT))
    if len(rec) > MAX_PARAMS or len(kept) > MAX_PARAMS:
        raise Error("%s: %d/%d sites, the probe takes at most %d each" % (ko, len(rec), len(kept), MAX_PARAMS))
    return rec, kept, [off for off, _ in sync]


def sync_sites(kb, kept):
    """The unrecorded lock sites of vmlinux annotated ANNOTATE_KEEP_LOCK (their marks read from
    vmlinux.o; a mark names the instruction, whose lock byte may follow a 0x66 prefix)."""
    from . import crosscheck
    vm = os.path.join(kb, "vmlinux")
    with open(vm, "rb") as f:
        data = f.read()
    marks = crosscheck.vmlinux_marks(kb, uplocks.Elf(vm, data))
    kept = set(kept)
    out = {next((m + d for d in range(5) if m + d in kept), None) for m in marks}
    out.discard(None)
    return sorted(out)


def build_probe(kb, out, cc, recorded, kept, make_vars=None, sync=()):
    """The probe module built against KBUILD (make_vars: the build's compiler variables, default
    CC=cc HOSTCC=cc); raises Error with make's last lines."""
    mod = os.path.join(out, "mod")
    shutil.rmtree(mod, ignore_errors=True)
    os.makedirs(mod)
    src = os.path.join(paths.root(), "tools", "kernel", "smplocks")
    for f in ("katomic_smplocks_probe.c", "Kbuild"):
        shutil.copyfile(os.path.join(src, f), os.path.join(mod, f))
    with open(os.path.join(mod, "sites.h"), "w") as f:
        # An empty list is {0} (C has no empty initializer): the probe reads katomic_nr_*.
        for name, xs in (("recorded", recorded), ("kept", kept), ("sync", sync)):
            f.write("static const unsigned long katomic_%s[] = {\n%s\n};\n"
                    "static const unsigned long katomic_nr_%s = %d;\n"
                    % (name, "\n".join("\t0x%xUL," % x for x in xs) or "\t0", name, len(xs)))
    r = subprocess.run(["make", "-C", kb, "M=" + mod] + (make_vars or ["CC=" + cc, "HOSTCC=" + cc]) + ["modules"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    ko = os.path.join(mod, "katomic_smplocks_probe.ko")
    if r.returncode or not os.path.isfile(ko):
        raise Error("building the probe module failed: %s" % r.stdout.strip()[-400:])
    return ko


def probe_files(ko, mrec, mkept, msync=()):
    """The initramfs entries /init's katomic.probe=1 loads: the module and its parameters."""
    params = "mod_recorded=%s" % ",".join("%d" % x for x in mrec)
    if mkept:
        params += " mod_kept=%s" % ",".join("%d" % x for x in mkept)
    if msync:
        params += " mod_sync=%s" % ",".join("%d" % x for x in msync)
    with open(ko, "rb") as f:
        return [("lib/katomic/katomic_smplocks_probe.ko", "file", f.read()),
                ("lib/katomic/probe.params", "file", params.encode())]


def readings(text):
    """The probe's readings in a console log: [(what, sites, hold 0xf0, hold 0x3e, other, online, possible)]."""
    return [(w,) + tuple(int(x) for x in rest) for w, *rest in LINE.findall(text)]


def expected(what, n, online, one_cpu):
    """(hold 0xf0, hold 0x3e) the kernel's rule gives: alternative_instructions() runs UP code
    when one CPU is present or maxcpus<=1, until alternatives_enable_smp() before a second CPU
    comes up; a module's sites follow (alternatives_smp_module_add())."""
    patched = one_cpu and online == 1
    return (0, n) if what.endswith("recorded") and not what.endswith("unrecorded") and patched else (n, 0)


def check_boot(text, res, smp, append, cpu1):
    """Lines to print and whether the boot shows the rule."""
    lines, ok = [], True
    one_cpu = "maxcpus=1" in append or smp.split(",")[0] == "1"
    smpc = "SMP alternatives: switching to SMP code" in text
    online = "katomic-init: cpu1 online\n" in text.replace("\r", "")
    readings = LINE.findall(text)
    v = judge.verdict(res, judge.console(text))
    lines.append("boot -smp %s %s: %s; %s; table freed: %s, 'switching to SMP code': %s; cpu1 brought online: %s"
                 % (smp, append, judge.summary_line(v), res["outcome"],
                    "Freeing SMP alternatives memory" in text, smpc, online))
    ok = ok and v["passed"]
    for what, n, f0, ds, other, on, possible in readings:
        want = expected(what, int(n), int(on), one_cpu)
        bad = (int(f0), int(ds)) != want or other != "0" or (what in ("module-recorded", "module-sync") and n == "0")
        lines.append("  %s: %s sites, %s hold 0xf0, %s hold 0x3e, %s other (online %s, possible %s)%s"
                     % (what, n, f0, ds, other, on, possible,
                        "" if not bad else "  <- expected %d hold 0xf0, %d hold 0x3e" % want))
        ok = ok and not bad
    loads = 3 if cpu1 else 2
    wrong = "subject() computed" in text        # also sync_subject()
    if len(readings) != len(KINDS) * loads or wrong or (cpu1 and not (online and smpc)):
        ok = False
        lines.append("  ^ %d readings, %d expected; cpu1 online %s, switched to SMP %s; subject() %s"
                     % (len(readings), len(KINDS) * loads, online, smpc, "wrong" if wrong else "ok"))
    return lines, ok


def main(argv):
    a = {"list": None, "cc": "gcc-12", "boots": [], "deadline": 600, "out": None, "kbuild": None,
         "torture-s": "0", "cpu1-s": "5"}
    it = iter(argv)
    for arg in it:
        if arg in ("-h", "--help"):
            print(__doc__)
            return 0
        if arg in ("--list", "--cc", "--boot", "--deadline", "--out", "--torture-s", "--cpu1-s"):
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
        die("usage: smplocks_boot KBUILD --list FILE [--boot SMP[:APPEND]]... [--torture-s N] [--cpu1-s N]")
    try:
        torture_s, cpu1_s, deadline = int(a["torture-s"]), int(a["cpu1-s"]), int(a["deadline"])
    except ValueError:
        die("--torture-s, --cpu1-s and --deadline take whole seconds")
    kb = os.path.abspath(a["kbuild"])
    out = os.path.abspath(a["out"] or os.path.join(kb, "katomic-smplocks"))
    try:
        recorded, kept = sites(os.path.join(kb, "vmlinux"), a["list"])
        sync = sync_sites(kb, kept)
        ko = build_probe(kb, out, a["cc"], recorded, kept, sync=sync)
        mrec, mkept, msync = module_sites(ko)
    except Error as e:
        die(str(e))
    extra = probe_files(ko, mrec, mkept, msync)
    initrd = initramfs.build(out, "gcc", torture_s, kbuild=kb, extra=extra)
    print("smplocks_boot: kernel: %d recorded sites, %d unrecorded lock sites in _text.._etext (%d of them "
          "annotated ANNOTATE_KEEP_LOCK); module: %d recorded, %d unrecorded in %s(), %d sync_*() sites in %s()"
          % (len(recorded), len(kept), len(sync), len(mrec), len(mkept), SUBJECT, len(msync), SYNC))
    ok = True
    for spec in a["boots"] or ["1", "2", "2:maxcpus=1"]:
        smp, _, append = spec.partition(":")
        cpu1 = "maxcpus=1" in append and smp.split(",")[0] != "1"
        words = [boot.kernel_cmdline(torture_s, 1), probe_cmdline(kb)]
        if cpu1:
            words.append("katomic.cpu1_s=%d" % cpu1_s)
        log = os.path.join(out, "boot-smp%s%s.log" % (smp.replace(",", "-").replace("=", ""),
                                                       ("-" + append.replace("=", "")) if append else ""))
        res = boot.run(os.path.join(kb, "arch/x86/boot/bzImage"), initrd, smp, deadline, log,
                       append=" ".join(words + ([append] if append else [])))
        with open(log, errors="replace") as f:
            text = f.read()
        lines, good = check_boot(text, res, smp, append, cpu1)
        print("\n".join(lines))
        if not good:
            print("  ^ FAIL (log: %s)" % log)
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
