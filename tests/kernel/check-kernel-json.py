#!/usr/bin/env python3
"""make check-kernel, part 3: kernel.json carries what `katomic kernel` measures (TAP).

 - an audit item made by the driver's own audit.compare, on two small object
   files compiled here (the kernel's `lock bts` asm vs C11's fetch_or of a
   mask, and a helper inlined at two call sites) with a stand-in for the
   tree's scripts/bloat-o-meter that reads their symbol sizes with nm, joins
   the build records and the --arch audit item of tests/json/kernel-arm64.json
   (written by the driver from the small arm64 builds) in one document:
   write_doc() keeps every field (kernel.json == kernel-full.json, no note)
   and the schema accepts it; the reasons read from the code are checked;
 - broken documents are refused by tools/schema/kernel.schema.json (a
   negative count, an unknown verdict, a mistyped WEAKER count, a function
   without its reason, an undeclared field), and a field the schema lacks is
   dropped from kernel.json with a note naming it, kept in kernel-full.json.
usage: check-kernel-json.py BUILD_DIR CC
"""
import contextlib
import copy
import io
import json
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common import documents, schema            # noqa: E402
from katomic_tools.common.tap import Tap                      # noqa: E402
from katomic_tools.kernel import audit                         # noqa: E402
from katomic_tools.kernel import smplocks_boot, up_elision     # noqa: E402
from katomic_tools.kernel import __main__ as driver           # noqa: E402

STOCK = r"""
static inline void set_bit_asm(long nr, unsigned long *addr)
{ asm volatile(".pushsection .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.popsection\n671:\n\t"
               "lock btsq %1,%0" : "+m"(*addr) : "r"(nr) : "memory"); }     /* the kernel's LOCK_PREFIX */
unsigned long map[4];
void mark(long a, long b) { set_bit_asm(a, map); set_bit_asm(b, map); }
__attribute__((noinline)) void take(int *l)
{ int z = 0; while (!__atomic_compare_exchange_n(l, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) z = 0; }
void twice(int *l, int *m) { take(l); take(m); }
"""
C11 = r"""
static inline void set_bit_c11(long nr, unsigned long *addr)
{ __atomic_fetch_or(addr + nr / 64, 1UL << (nr % 64), __ATOMIC_SEQ_CST); }
unsigned long map[4];
void mark(long a, long b) { set_bit_c11(a, map); set_bit_c11(b, map); }
static inline void take(int *l)
{ int z = 0; while (!__atomic_compare_exchange_n(l, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) z = 0; }
void twice(int *l, int *m) { take(l); take(m); }
"""
# scripts/bloat-o-meter -t OLD NEW, as much of it as audit.bloat reads: text symbols' sizes by nm.
BLOAT = r"""
import subprocess, sys
def sizes(f):
    out = {}
    for line in subprocess.run(["nm", "--size-sort", "-S", "-t", "d", f], stdout=subprocess.PIPE,
                               universal_newlines=True).stdout.splitlines():
        x = line.split()
        if len(x) == 4 and x[2] in "tTwW":
            out[x[3]] = int(x[1])
    return out
old, new = sizes(sys.argv[-2]), sizes(sys.argv[-1])
print("Function old new delta")
for fn in sorted(set(old) | set(new)):
    d = new.get(fn, 0) - old.get(fn, 0)
    if d:
        print("%s %s %s %+d" % (fn, old.get(fn, "-"), new.get(fn, "-"), d))
print("Total: Before=%d, After=%d, chg +0.00%%" % (sum(old.values()), sum(new.values())))
"""


def refused(doc):
    try:
        schema.check(doc, schema.load_schema("kernel"))
        return None
    except schema.SchemaError as e:
        return str(e)


def write(out, doc):
    """driver.write_doc(out, doc): (kernel.json, kernel-full.json, what it printed on stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        driver.write_doc(out, doc)
    with open(os.path.join(out, "kernel.json")) as f, open(os.path.join(out, "kernel-full.json")) as g:
        return json.load(f), json.load(g), err.getvalue()


def main():
    if len(sys.argv) != 3:
        print("usage: check-kernel-json.py BUILD_DIR CC", file=sys.stderr)
        return 2
    bdir, cc = sys.argv[1], sys.argv[2]
    t = Tap()
    work = os.path.join(bdir, "kernel-json")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "tree", "scripts"))
    with open(os.path.join(work, "tree", "scripts", "bloat-o-meter"), "w") as f:
        f.write(BLOAT)
    with open(os.path.join(ROOT, "tests", "json", "kernel-arm64.json")) as f:
        arm64 = json.load(f)

    item = None
    if platform.machine() not in ("x86_64", "amd64") or not shutil.which(cc) or not shutil.which("objdump"):
        print("# note: not an x86-64 host with %s and objdump: the audit of compiled code is skipped" % cc)
    else:
        objs = []
        for name, code in (("stock", STOCK), ("c11", C11)):
            src = os.path.join(work, name + ".c")
            with open(src, "w") as f:
                f.write(code)
            objs.append(os.path.join(work, name + ".o"))
            subprocess.run([cc, "-O2", "-fno-pic", "-c", src, "-o", objs[-1]], check=True)
        item = audit.compare(os.path.join(work, "tree"), objs[0], objs[1])
        item.update(config="small", cc=cc, variant="c11")
        rows = {r["fn"]: r for r in item["bloat"]["top_grown"] + item["bloat"]["top_shrunk"]}
        why = rows.get("mark", {}).get("reason", "")
        t.check("2 set/clear/change_bit on a variable bit" in why,
                "audit: lock bts on the bit string vs lock or of a computed mask, 2 sites: %s" % why)
        why = rows.get("twice", {}).get("reason", "")
        t.check("take inlined" in why and "locked" not in why and "cmpxchg" not in why,
                "audit: a callee inlined at 2 call sites brings its 2 lock cmpxchg (nothing left over): %s" % why)
        t.check(rows.get("take", {}).get("reason", "").startswith("gone"), "audit: the inlined helper is gone")
        t.check(item["smp_locks"] == {"stock": 2, "c11": 0},
                "audit: .smp_locks of an object file: its 2 LOCK_PREFIX entries (relocations) vs none: %s"
                % item["smp_locks"])

    # Reasons read from code the compilers here need not make (synthetic bodies).
    from katomic_tools.kernel import xaudit
    fa = xaudit.Functions()
    fa.update({"lock_it": [("ret", "")], "lock_it#2": [("mov", "w1,"), ("casa", "w1, w2, [x0]"), ("cbz", "w1, 0 <x>"),
                                                      ("ldaxr", "w3, [x0]"), ("stxr", "w4, w2, [x0]"), ("ret", "")],
               "caller": []})
    fa.by_addr = {0x100: "lock_it", 0x200: "lock_it#2"}
    old = [("bl", "0000000000000200 <lock_it>"), ("ret", "")]
    new = [("mov", "w1,"), ("casa", "w1, w2, [x0]"), ("ret", "")]
    why = xaudit.reason("arm64", "small", old, new, "caller", fa, {"caller": new})
    t.check(why.startswith("inlining changed (lock_it inlined)") and "LSE only" in why and "lse" not in why.split(";")[-1],
            "xaudit: the copy of a static function the call's address names is the one inlined; its LL/SC fallback "
            "gone: %s" % why)
    why = xaudit.reason("arm64", "small", [("ldr", "w0, [x0,"), ("ret", "")],
                        [("add", "x0, x0,"), ("ldr", "w0, [x0]"), ("ret", "")], "f")
    t.check("1 accesses with the offset in an add" in why, "xaudit: gcc's add + ldr [x] of an __atomic load: %s" % why)
    loop = ["mov (%rdi),%rax", "lea 0x1(%rax),%rdx", "lock cmpxchg %rdx,(%rdi)", "jne ADDR <f>", "ret"]
    spill = ["push %rdx", "mov (%rdi),%rax", "mov %rax,(%rsp)", "mov (%rsp),%rax", "lea 0x1(%rax),%rdx",
             "lock cmpxchg %rdx,(%rdi)", "mov %rax,(%rsp)", "jne ADDR <f>", "pop %rax", "ret"]
    why = audit.reason(loop, spill, "f")
    t.check(why.startswith("3 more stack accesses"), "audit: the expected value kept in a stack slot: %s" % why)

    fa, fb = {"f": ["ret"]}, {"f": ["ret"], "f#2": ["ret"]}
    why = audit.reason(["ret"], ["ret"], "f", fa, fb)
    t.check(why.startswith("more copies of this static function (2, stock 1)"),
            "audit: a static function emitted in more objects (bloat-o-meter sums the copies): %s" % why)

    # One document as the driver writes it: x86 builds and audit, --arch arm64 builds, boots, audit.
    doc = copy.deepcopy(arm64)
    x86 = []
    for b in arm64["builds"]:
        b = dict(copy.deepcopy(b), config="small", cc=cc, arch="x86_64", lock_prefixes=12)
        b["new_objtool_warnings"] = [] if b["variant"] != "stock" else b.get("new_objtool_warnings", [])
        x86.append(b)
    # UP lock elision: the driver's up_elision.record() on a -smp 1 console holding the probe's
    # readings (two loads; the last counts), and why_not() on a build with modules off.
    reading = ("katomic-smplocks: recorded: %d sites: %d hold 0xf0, %d hold 0x3e, 0 other (online 1, possible 1)\n"
               "katomic-smplocks: unrecorded: %d sites: %d hold 0xf0, 0 hold 0x3e, 0 other (online 1, possible 1)\n"
               "katomic-smplocks: kernel-sync: 0 sites: 0 hold 0xf0, 0 hold 0x3e, 0 other (online 1, possible 1)\n"
               "katomic-smplocks: module-recorded: 7 sites: 0 hold 0xf0, 7 hold 0x3e, 0 other (online 1, possible 1)\n"
               "katomic-smplocks: module-unrecorded: 1 sites: 1 hold 0xf0, 0 hold 0x3e, 0 other (online 1, possible 1)\n"
               "katomic-smplocks: module-sync: 3 sites: 3 hold 0xf0, 0 hold 0x3e, 0 other (online 1, possible 1)\n")
    facts = {"recorded": 1653, "unrecorded": 128, "probe_recorded": 7, "probe_unrecorded": 1, "sync": 0, "probe_sync": 3, "modules": 4,
             "modules_recorded": 33, "modules_unrecorded": 7}
    console = (reading % (1653, 2, 1651, 128, 128) + "Freeing SMP alternatives memory: 36K\n"
               + reading % (1653, 0, 1653, 128, 127))
    up = up_elision.record(facts, console)
    t.check(up["measured"] and (up["recorded_locked"], up["recorded_patched"], up["unrecorded_locked"],
                                up["left_locked"], up["modules_left_locked"], up["table_freed"],
                                up["probe_sync_locked"]) == (0, 1653, 127, 127, 7, True, 3),
            "up_elision.record(): the last reading, left locked = recorded 0xf0 + unrecorded 0xf0: %s" % up)
    none = up_elision.record(facts, "no probe here\n")
    t.check(not none["measured"] and "0 of the probe's 6 readings" in none["reason"],
            "up_elision.record() without readings: not measured, with the reason: %s" % none.get("reason"))
    nomod = os.path.join(work, "nomod")
    os.makedirs(nomod)
    with open(os.path.join(nomod, ".config"), "w") as f:
        f.write("CONFIG_SMP=y\n# CONFIG_MODULES is not set\n")
    kaslr = os.path.join(work, "kaslr")
    os.makedirs(kaslr)
    with open(os.path.join(kaslr, ".config"), "w") as f:
        f.write("CONFIG_SMP=y\nCONFIG_MODULES=y\nCONFIG_RELOCATABLE=y\nCONFIG_RANDOMIZE_BASE=y\n")
    t.check(smplocks_boot.probe_cmdline(kaslr) == "katomic.probe=1 nokaslr"
            and smplocks_boot.probe_cmdline(nomod) == "katomic.probe=1",
            "the probe's boot turns KASLR off where the config randomizes the base (defconfig): "
            "it reads vmlinux's link-time addresses")
    why = [up_elision.why_not(dict(x86[0], build_dir=nomod), ["1"]),
           up_elision.why_not(dict(x86[0], build_dir=nomod), ["2"]),
           up_elision.why_not(arm64["builds"][0], ["1"])]
    t.check(why[0].startswith("modules off") and why[1].startswith("not booted with -smp 1")
            and why[2].startswith("not x86-64"), "up_elision.why_not(): modules off, no -smp 1, not x86-64: %s" % why)
    x86[0]["up_elision"], x86[-1]["up_elision"] = up, up_elision.not_measured(why[0])
    doc["builds"] += x86
    if item is not None:
        doc["audit"].append(item)
    out = os.path.join(work, "out")
    kept, full, note = write(out, doc)
    t.check(kept == full and note == "" and documents.read(os.path.join(out, "kernel.json"), "kernel"),
            "kernel.json keeps every field the driver measured (%d builds, %d audits: bloat, smp_locks, "
            "atomics_changed, insns, probes, build CPU s): kernel.json == kernel-full.json, no note%s"
            % (len(doc["builds"]), len(doc["audit"]), (": " + note.strip()) if note else ""))
    a = kept["audit"][0]
    t.check(a["insns"] == arm64["audit"][0]["insns"] and a["weaker"] == arm64["audit"][0]["weaker"]
            and a["bloat"]["grown_over_16"] == arm64["audit"][0]["bloat"]["grown_over_16"]
            and kept["builds"][0]["build_cpu_s"] == arm64["builds"][0]["build_cpu_s"],
            "kernel.json: the --arch counts, WEAKER, the functions >16 B bigger and build CPU s as measured")
    if item is not None:
        x = kept["audit"][-1]
        t.check(x["smp_locks"] == item["smp_locks"] and x["atomics_changed"] == item["atomics_changed"]
                and x["functions"][0]["locks_c11"] == item["functions"][0]["locks_c11"],
                "kernel.json: the x86 audit's .smp_locks, atomics_changed and per-function lock counts")

    broken = []

    def mutate(what, f):
        d = copy.deepcopy(full)
        f(d)
        broken.append((what, d))
    a0 = lambda d: d["audit"][0]                                # noqa: E731
    mutate("a negative full-fence count", lambda d: a0(d)["insns"]["c11"].update(full_fence=-1))
    mutate("an instruction class no architecture has", lambda d: a0(d)["insns"]["c11"].update(mfence=1))
    mutate("a probe verdict that is no verdict", lambda d: a0(d)["probes"][0].update(verdict="maybe"))
    mutate("WEAKER as a string", lambda d: a0(d).update(weaker="0"))
    mutate("a function >16 B bigger without its reason", lambda d: a0(d)["bloat"]["grown_over_16"][0].pop("reason"))
    mutate("build CPU seconds as text", lambda d: d["builds"][0].update(build_cpu_s="535 s"))
    mutate("an undeclared audit field", lambda d: a0(d).update(surprise=1))
    mutate(".smp_locks without its C11 count", lambda d: d["audit"][-1].setdefault("smp_locks", {"stock": 1}).pop("c11", None))
    ux = len(arm64["builds"])           # the first x86 build: its up_elision
    mutate("up_elision measured without the probe's reading", lambda d: d["builds"][ux]["up_elision"].pop("probe_recorded_patched"))
    mutate("up_elision not measured without a reason", lambda d: d["builds"][-1]["up_elision"].pop("reason"))
    mutate("up_elision measured as a string", lambda d: d["builds"][ux]["up_elision"].update(measured="yes"))
    for what, d in broken:
        err = refused(d)
        t.check(err is not None, "schema refuses %s (%s)" % (what, err))

    extra = copy.deepcopy(full)
    extra["builds"][0]["ccache_hits"] = 7
    kept, full2, note = write(os.path.join(work, "extra"), extra)
    t.check("ccache_hits" not in kept["builds"][0] and full2["builds"][0]["ccache_hits"] == 7
            and "builds[].ccache_hits" in note and "kernel-full.json" in note and note.count("\n") == 1,
            "a field the schema lacks: dropped from kernel.json with one note naming it, kept in kernel-full.json")
    shutil.rmtree(work, ignore_errors=True)
    return t.summary()


if __name__ == "__main__":
    sys.exit(main())
