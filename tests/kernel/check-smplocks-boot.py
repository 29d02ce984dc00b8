"""make check-kernel: a C11 kernel on one CPU patches its compiler's lock prefixes (TAP-like).

When a C11 kernel build exists (KATOMIC_SMPLOCKS_KBUILD, else katomic
kernel's small-gcc-c11 in its cache), check its modules as objtool
--smp-locks left them: `readelf -r` (binutils) lists in .rela.smp_locks
exactly the lock sites of module text the decoder finds, but the ones kept
locked, and the decoder has nothing left to add; objtool's table and the
decoder's agree site for site (crosscheck.py), vmlinux and modules.  Then
boot it under qemu with -smp 1 and let the guest read its own text
(katomic_tools.kernel.smplocks_boot): every site recorded in vmlinux and in
the probe module must hold 0x3e, every other lock site 0xf0, the probe's
sync_*() sites (ANNOTATE_KEEP_LOCK) too; self-tests pass.  No build, no
qemu, or a build without objtool --smp-locks: skipped with a note (CI runs
make check before katomic kernel --quick, so there it is a note; it takes
~1 min where a build exists).
usage: check-smplocks-boot.py BUILD_DIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap            # noqa: E402
from katomic_tools.kernel import smplocks          # noqa: E402
from katomic_tools.kernel.tree import kcache        # noqa: E402

sys.path.insert(0, HERE)
from importlib import import_module                 # noqa: E402
ko_test = import_module("check-smplocks-ko")        # readelf_table()

READING = re.compile(r"^  ((?:module-)?(?:un)?recorded|module-sync|kernel-sync): (\d+) sites, (\d+) hold 0xf0, (\d+) hold 0x3e", re.M)


def run(args, **kw):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"))
    return subprocess.run([sys.executable, "-m"] + args, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, **kw)


def skip(t, why):
    print("# note: %s: the -smp 1 guest reading of the .smp_locks steps skipped" % why)
    return t.summary()


def listing(vmlinux, lst):
    """The decoder's list of vmlinux's lock sites (~30 s), kept in `lst` while vmlinux is unchanged;
    None if the decoder fails."""
    if not os.path.isfile(lst) or os.path.getmtime(lst) < os.path.getmtime(vmlinux):
        r = run(["katomic_tools.kernel.smplocks", "--list", "--dry-run", vmlinux])
        if r.returncode:
            return None
        with open(lst, "w") as f:
            f.write(r.stdout)
    return lst


def fence_tags(lst):
    """{tag: count} of the stack fences (lock add/or $0 to the stack) in .text."""
    tags = {}
    with open(lst) as f:
        for row in (l.rstrip("\n").split("\t") for l in f):
            if len(row) == 4 and row[1] == ".text" and smplocks.FENCE.match(row[2]):
                tags[row[3]] = tags.get(row[3], 0) + 1
    return tags


def fences(t, kb, config, lst, out):
    """smp_mb() is recorded (the patch writes it with LOCK_PREFIX); the fences left locked, virt_mb()'s
    and the direct __smp_mb()'s, are no more than the stock kernel's (all of its fences), if a stock
    build of the same config is in the cache."""
    if "CONFIG_X86_BARRIER_C11=y" in config.split("\n"):
        print("# note: %s has CONFIG_X86_BARRIER_C11 (smp_mb() is the compiler's fence): fence checks skipped" % kb)
        return
    c11 = fence_tags(lst)
    t.check(c11.get("table", 0) > 0,
            "smp_mb()'s lock addl $0,-4(%%rsp) sites are in .smp_locks: %d recorded, %d kept locked"
            % (c11.get("table", 0), c11.get("kept locked", 0)))
    stock = os.path.join(os.path.dirname(kb), os.path.basename(kb).replace("-c11", "-stock"))
    if stock == kb or not os.path.isfile(os.path.join(stock, "vmlinux")):
        print("# note: no stock build %s beside it: the comparison of fences left locked skipped" % stock)
        return
    slst = listing(os.path.join(stock, "vmlinux"), os.path.join(out, "vmlinux-stock.list"))
    if slst is None:
        t.check(False, "the decoder lists the stock vmlinux's lock sites")
        return
    st = fence_tags(slst)
    t.check(c11.get("table", 0) + c11.get("kept locked", 0) > 0 and
            c11.get("kept locked", 0) <= st.get("kept locked", 0) and not st.get("table"),
            "fences left locked on one CPU: C11 %d, stock %d (none of stock's recorded)"
            % (c11.get("kept locked", 0), st.get("kept locked", 0)))


def main(argv):
    if len(argv) != 1:
        print("usage: check-smplocks-boot.py BUILD_DIR", file=sys.stderr)
        return 2
    t = Tap()
    kb = os.environ.get("KATOMIC_SMPLOCKS_KBUILD") or os.path.join(kcache(), "builds", "small-gcc-c11")
    vmlinux, bz = os.path.join(kb, "vmlinux"), os.path.join(kb, "arch/x86/boot/bzImage")
    if not (os.path.isfile(vmlinux) and os.path.isfile(bz)):
        return skip(t, "no C11 kernel build in %s (katomic kernel makes one)" % kb)
    with open(os.path.join(kb, ".config")) as f:
        config = f.read()
    if "CONFIG_X86_ATOMIC_C11=y" not in config or "CONFIG_MODULES=y" not in config:
        return skip(t, "%s is not a C11 kernel with modules" % kb)
    if "CONFIG_X86_ATOMIC_C11_SMP_LOCKS=y" not in config.split("\n"):
        return skip(t, "%s: built without objtool --smp-locks (its tree predates it; katomic kernel refreshes it)" % kb)
    for tool in ("qemu-system-x86_64", "timeout", "objdump", "gcc-12"):
        if not shutil.which(tool):
            return skip(t, "%s not found" % tool)
    with open(os.path.join(kb, "modules.order")) as f:
        mods = [os.path.join(kb, l.strip()[:-2] + ".ko") for l in f if l.strip().endswith(".o")]
    for ko in mods:
        r = run(["katomic_tools.kernel.smplocks", "--list", "--dry-run", ko])
        tags = [l.split("\t") for l in r.stdout.splitlines() if "\t" in l]
        listed = sorted((a.split("+0x")[0], int(a.split("+0x")[1], 16)) for a, _, tag in tags if tag == "table")
        by_readelf = sorted(row[1:] for row in ko_test.readelf_table(ko))
        t.check(r.returncode == 0 and "found 0 new" in r.stdout and listed == by_readelf and listed,
                "%s: readelf -r lists the %d sites the decoder finds recorded (%d kept locked), none left to add"
                % (os.path.relpath(ko, kb), len(by_readelf), sum(1 for x in tags if x[2] == "kept locked")))
    r = run(["katomic_tools.kernel.crosscheck", kb])
    t.check(r.returncode == 0 and "agree site for site" in r.stdout,
            "objtool's .smp_locks and the decoder's agree site for site: %s" % r.stdout.strip()[:600])
    out = os.path.join(os.path.abspath(argv[0]), "smplocks-boot")
    os.makedirs(out, exist_ok=True)
    lst = listing(vmlinux, os.path.join(out, "vmlinux.list"))
    if lst is None:
        t.check(False, "the decoder lists vmlinux's lock sites")
        return t.summary()
    fences(t, kb, config, lst, out)
    r = run(["katomic_tools.kernel.smplocks_boot", kb, "--list", lst, "--boot", "1", "--torture-s", "0",
             "--deadline", "300", "--out", out])
    print("\n".join("# " + line for line in r.stdout.strip().splitlines()))
    t.check(r.returncode == 0, "smplocks_boot -smp 1: the guest passes the judge and reads what the rule says")
    got = {}
    for what, n, f0, ds in READING.findall(r.stdout):
        got.setdefault(what, []).append((int(n), int(f0), int(ds)))
    for what, patched in (("recorded", True), ("unrecorded", False), ("kernel-sync", False),
                          ("module-recorded", True), ("module-unrecorded", False), ("module-sync", False)):
        rs = got.get(what, [])
        good = len(rs) == 2 and all((f0, ds) == ((0, n) if patched else (n, 0)) for n, f0, ds in rs)
        t.check(good and (rs[0][0] > 0 or what.endswith("unrecorded") or what == "kernel-sync"),
                "%s sites: %s on one CPU, read twice by the guest %s" % (what, "all 0x3e" if patched else "all 0xf0", rs))
    return t.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
