"""katomic kernel: build the Linux kernel stock and on katomic's C11 atomics,
boot each under qemu, audit the code (docs/kernel.md).

usage: katomic kernel [--arch x86_64|arm64|riscv64] [--src DIR] [--config small|small-xen|defconfig]
                      [--cc gcc,clang] [--variant stock,c11[,c11fence]] [--smp 2,1] [--torture-s N]
                      [--quick|--full] [--no-boot] [--no-audit] [--jobs N] [--out DIR]
       katomic kernel --audit-objects "kernel/fork.o mm/slub.o ..." [--cc gcc]
                      a partial audit of those objects of existing stock and C11 builds
       katomic kernel --patch [--src DIR]            print the patch
       katomic kernel --apply FILE [--src DIR]       check that a saved patch applies (dry run)
       katomic kernel --series DIR [--src DIR] [--arch x86|arm64|riscv64|all] [--from OUT]...
                      [--author 'Name <email>']
                      the same change as an RFC series in git format-patch form (cover letter and one
                      patch per logical change); figures only from the kernel.json of each --from OUT
  --quick: gcc, C11 only, -smp 2, self-tests + 10 s of locktorture (CI)
  --full (default): gcc and clang, stock and C11, -smp 2 and 1, all torture tests, the audit
  --probes (with --arch): no kernel build: configure, make modules_prepare, and judge the kernel
        probes (every atomic operation and order as the kernel's headers compile it) with the codegen
        classifier; minutes instead of a kernel build
  --arch arm64|riscv64: the asm-generic C11 layer (CONFIG_ARCH_ATOMIC_C11) on a weakly ordered
        architecture, Debian's cross gcc, qemu-system-aarch64/riscv64 (docs/kernel.md, bringing up a
        new architecture); arm64 builds --config small (LSE) and small-llsc (LL/SC only); default -smp 2,
        60 s per torture test, the audit with the codegen classifier on the kernel's own operations
x86-64 C11 builds: objtool --smp-locks (in the patch) records the compiler's lock prefixes in
.smp_locks; katomic's decoder then checks that table site for site (a difference fails the run).
Writes OUT/kernel.json (tools/schema/kernel.schema.json) and OUT/kernel-audit.md;
OUT defaults to build/kernel.  Exit 0: everything built, booted and passed.
"""
import json
import os
import platform
import sys
import time

from . import KernelError, audit, build, patch, tree
from ..common import paths

KEPT_ASM = [
    {"what": "arch_cmpxchg_local, arch_try_cmpxchg_local, arch_cmpxchg64_local, arch_cmpxchg128_local",
     "why": "cmpxchg without the lock prefix, atomic against this CPU only: C11 has no order or scope for it"},
    {"what": "arch_cmpxchg128, arch_try_cmpxchg128",
     "why": "gcc lowers 16-byte __atomic builtins to libatomic calls (__atomic_compare_exchange_16) even "
            "with -mcx16, and the kernel has no libatomic; cmpxchg16b's presence is a run-time check"},
    {"what": "the non-atomic bitops (__set_bit, __test_and_clear_bit, ...), test_bit, ffs/fls",
     "why": "not atomics: bt/bts/btr on a bit string, bsf/bsr; they stay the kernel's"},
    {"what": "callers that use lock-prefixed asm themselves (qspinlock's lock btsl in "
             "queued_fetch_set_pending_acquire, futex, rwsem/percpu, uaccess, LOCK_PREFIX users outside "
             "the arch atomic headers)",
     "why": "above or beside the arch atomic layer: out of the arch atomics' scope, they stay the kernel's"},
    {"what": "mb(), rmb(), wmb(), dma_*, smp_mb() unless CONFIG_X86_BARRIER_C11",
     "why": "mfence/lfence/sfence also order device and non-temporal accesses, which C11 does not model"},
    {"what": "the UP lock elision (.smp_locks) of the compiler's stack fences (lock addl $0,-4(%rsp)), of "
             "virt_mb()/__smp_mb() and of sync_*() (ANNOTATE_KEEP_LOCK)",
     "why": "objtool --smp-locks records the compiler's other lock prefixes in .smp_locks (vmlinux and each "
            "module), and smp_mb() is written with LOCK_PREFIX; a fence the patch cannot tell from virt_mb() "
            "stays locked on one CPU, as the stock kernel's __smp_mb() does, and so does memory shared with "
            "a hypervisor (docs/kernel.md)"},
]


def crosscheck_one(b):
    """objtool's .smp_locks against the decoder (crosscheck.py), into b; a failure line or None."""
    from . import crosscheck
    name = "%s-%s-%s" % (b["config"], b["cc"], b["variant"])
    try:
        with open(os.path.join(b["build_dir"], ".config")) as f:
            on = "CONFIG_X86_ATOMIC_C11_SMP_LOCKS=y" in f.read().split("\n")
    except OSError:
        on = False
    if not on:
        b["smp_locks_crosscheck"] = {"checked": False, "reason": "CONFIG_X86_ATOMIC_C11_SMP_LOCKS is not set"}
        return None
    try:
        c = crosscheck.check(b["build_dir"])
    except crosscheck.Error as e:
        b["smp_locks_crosscheck"] = {"checked": False, "reason": str(e)}
        return "%s: the .smp_locks cross-check failed: %s" % (name, e)
    b["smp_locks_crosscheck"] = dict(c, checked=True)
    print("katomic kernel: %s" % crosscheck.summary(name, c), flush=True)
    return None if c["agree"] else "%s: objtool's .smp_locks and the decoder's differ" % name


def die(msg):
    print("katomic kernel: %s" % msg, file=sys.stderr)
    sys.exit(2)


def parse(argv):
    a = {"src": None, "config": "small", "cc": ["gcc", "clang"], "variant": ["stock", "c11"],
         "smp": ["2", "1"], "torture_s": 10, "boot": True, "audit": True, "jobs": 2,
         "out": os.path.join(paths.build(), "kernel"), "patch": False, "apply": None, "quick": False,
         "locks": None, "rcu": True, "objects": None, "arch": "x86_64", "set": set(), "probes": False,
         "series": None, "from": [], "author": None}
    it = iter(argv)
    for opt in it:
        def val():
            v = next(it, None)
            if v is None:
                die("%s needs a value" % opt)
            return v
        if opt not in ("--quick", "--full"):
            a["set"].add(opt)
        if opt == "--src":
            a["src"] = val()
        elif opt == "--arch":
            a["arch"] = val()
        elif opt == "--config":
            a["config"] = val()
        elif opt == "--cc":
            a["cc"] = val().split(",")
            for c in a["cc"]:
                if c not in build.CCS:
                    die("--cc %s: one of %s" % (c, ", ".join(build.CCS)))
        elif opt == "--variant":
            a["variant"] = val().split(",")
        elif opt == "--smp":
            a["smp"] = val().split(",")
        elif opt == "--torture-s":
            v = val()
            if not v.isdigit():
                die("--torture-s %s: seconds, an integer" % v)
            a["torture_s"] = int(v)
        elif opt == "--jobs":
            v = val()
            if not v.isdigit() or int(v) < 1:
                die("--jobs %s: a positive integer" % v)
            a["jobs"] = int(v)
        elif opt == "--out":
            a["out"] = val()
        elif opt == "--quick":
            a.update(quick=True, cc=["gcc"], variant=["c11"], smp=["2"], audit=False,
                     locks=("spin_lock",), rcu=False)
        elif opt == "--full":
            pass
        elif opt == "--no-boot":
            a["boot"] = False
        elif opt == "--no-audit":
            a["audit"] = False
        elif opt == "--audit-objects":
            a["objects"] = val().split()
        elif opt == "--patch":
            a["patch"] = True
        elif opt == "--probes":
            a["probes"] = True
        elif opt == "--apply":
            a["apply"] = val()
        elif opt == "--series":
            a["series"] = val()
        elif opt == "--from":
            a["from"] += [d for d in val().split(",") if d]
        elif opt == "--author":
            a["author"] = val()
        elif opt in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        else:
            die("unknown option %s (katomic kernel --help)" % opt)
    if a["series"] is not None:
        from .series import ARCHES
        if "--arch" not in a["set"]:
            a["arch"] = "all"
        if a["arch"] not in ARCHES + ("x86_64",):
            die("--arch %s: one of %s" % (a["arch"], ", ".join(ARCHES)))
        return a
    if a["from"] or a["author"]:
        die("--from and --author go with --series")
    if a["arch"] not in build.ARCHES:
        die("--arch %s: one of %s" % (a["arch"], ", ".join(build.ARCHES)))
    A = build.ARCHES[a["arch"]]
    if a["arch"] != "x86_64":
        # The cross defaults: every config of the arch (arm64: LSE and LL/SC),
        # gcc (--cc clang adds clang-19 --target), -smp 2, 60 s per torture test.
        if "--config" not in a["set"]:
            a["configs"] = ["small"] if a["quick"] else sorted(A["configs"])
        if "--cc" not in a["set"]:
            a["cc"] = ["gcc"]
        if "--smp" not in a["set"]:
            a["smp"] = ["2"]
        if "--torture-s" not in a["set"] and not a["quick"]:
            a["torture_s"] = 60
    a.setdefault("configs", [a["config"]])
    for c in a["configs"]:
        if c not in A["configs"]:
            die("--config %s: one of %s (--arch %s)" % (c, ", ".join(A["configs"]), a["arch"]))
    for v in a["variant"]:
        if v not in A["variants"]:
            die("--variant %s: one of %s" % (v, ", ".join(A["variants"])))
    return a


def machine(kvm):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"name": os.environ.get("KATOMIC_MACHINE") or platform.node(), "arch": platform.machine(),
            "cpu": cpu, "cpus": os.cpu_count() or 1,
            "load": " ".join("%.2f" % x for x in os.getloadavg()),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kvm": bool(kvm)}


def _resolve(root, schema):
    """A schema node, its "#/$defs/NAME" reference followed."""
    from ..common.schema import _resolve as resolve
    return resolve(root, schema) if isinstance(schema, dict) else schema


def prune(doc, schema, root=None):
    """`doc` less the fields the schema does not declare (where it forbids extras)."""
    root = root or schema
    schema = _resolve(root, schema)
    if isinstance(doc, dict) and isinstance(schema, dict) and "properties" in schema:
        props = schema["properties"]
        keep = schema.get("additionalProperties", True) is not False
        return {k: prune(v, props.get(k, {}), root) for k, v in doc.items() if keep or k in props}
    if isinstance(doc, list) and isinstance(schema, dict) and "items" in schema:
        return [prune(x, schema["items"], root) for x in doc]
    return doc


def undeclared(doc, schema, root=None, path=""):
    """The paths of `doc`'s fields that prune() would drop (one per field name)."""
    root = root or schema
    schema = _resolve(root, schema)
    out = []
    if isinstance(doc, dict) and isinstance(schema, dict) and "properties" in schema:
        props, keep = schema["properties"], schema.get("additionalProperties", True) is not False
        for k, v in doc.items():
            p = "%s.%s" % (path, k) if path else k
            if k in props:
                out += undeclared(v, props[k], root, p)
            elif not keep:
                out.append(p)
    elif isinstance(doc, list) and isinstance(schema, dict) and "items" in schema:
        for x in doc:
            out += [p for p in undeclared(x, schema["items"], root, path + "[]") if p not in out]
    return out


def write_doc(out, doc):
    from ..common import documents, schema as sch
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "kernel.json")
    with open(os.path.join(out, "kernel-full.json"), "w") as f:
        json.dump(doc, f, indent=1)
    spath = os.path.join(paths.root(), "tools", "schema", "kernel.schema.json")
    if not os.path.isfile(spath):
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        print("katomic kernel: note: %s missing, %s not validated" % (spath, path), file=sys.stderr)
        return path
    with open(spath) as f:
        s = json.load(f)
    lost = undeclared(doc, s)
    if lost:    # the schema is behind the driver: say so, keep everything in kernel-full.json
        print("katomic kernel: note: %s omits what tools/schema/kernel.schema.json does not declare: %s "
              "(kept in kernel-full.json)" % (path, ", ".join(lost[:8]) + (" ..." if len(lost) > 8 else "")),
              file=sys.stderr)
    try:
        documents.write(path, prune(doc, s))
    except ValueError as e:
        raise KernelError(str(e))
    del sch
    return path


def boot_one(b, a, out):
    from . import boot, initramfs, judge
    bdir = b["build_dir"]
    arch = b.get("arch", "x86_64")
    name = "%s-%s-%s" % (b["config"], b["cc"], b["variant"])
    odir = os.path.join(out, "boot", name)
    locks = a["locks"] if a["locks"] is not None else initramfs.DEFAULT_LOCKS
    # UP lock elision (x86-64): the -smp 1 boot also loads the probe that reads the lock sites.
    extra, facts = (), None
    if arch == "x86_64":
        from . import smplocks_boot, up_elision
        extra, facts = up_elision.prepare(b, a["smp"], os.path.join(odir, "up-elision"),
                                          build.make_args(arch, b["cc"]))
        if extra is None:
            b["up_elision"], extra = facts, ()
            print("katomic kernel: %s: UP lock elision not measured: %s" % (name, facts["reason"]))
    rd = initramfs.build(odir, build.ARCHES[arch].get("tool_prefix", "") + "gcc", a["torture_s"], bdir,
                         locks, a["rcu"], extra=extra)
    tests = (len(locks) + (1 if a["rcu"] else 0)) if a["torture_s"] else 0
    deadline = 120 + tests * (a["torture_s"] + 15) * 3
    recs = []
    for smp in a["smp"]:
        log = os.path.join(odir, "console-smp%s.log" % smp.replace(",", "-").replace("=", ""))
        append = boot.kernel_cmdline(a["torture_s"], int(smp.split(",")[0]), locks, a["rcu"])
        probe = bool(extra) and smp.split(",")[0] == "1"
        if probe:
            append += " " + smplocks_boot.probe_cmdline(bdir)
        res = boot.run(b["bzimage"], rd, smp, deadline, log, append, arch=arch)
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        rec = judge.verdict(res, judge.console(text))
        if probe:
            b["up_elision"] = up_elision.record(facts, text)
            print("katomic kernel: %s" % up_elision.summary(name, b["up_elision"]))
        rec.update(config=b["config"], cc=b["cc"], variant=b["variant"], torture_s=a["torture_s"])
        print(judge.summary_line(rec))
        for p in rec.get("problems", []):
            print("  - " + p)
        recs.append(rec)
    return recs


def audit_md(audits):
    out = ["# katomic kernel: stock vs C11 code audit", ""]
    for x in audits:
        bl = x["bloat"]
        out += ["## %s, %s (%s)" % (x["config"], x["cc"], x.get("variant", "c11")), "",
                "text: %d -> %d bytes (%+d); %d functions grew, %d shrank; lock-prefixed instructions "
                "%d -> %d; .smp_locks %d -> %d; %d functions' locked instructions changed" % (
                    bl["total_before"], bl["total_after"], bl["total_delta"], bl["grown"], bl["shrunk"],
                    x["lock_prefixes"]["stock"], x["lock_prefixes"]["c11"], x["smp_locks"]["stock"],
                    x["smp_locks"]["c11"], x["atomics_changed"]), ""]
        for title, rows in (("grown most", bl["top_grown"]), ("shrunk most", bl["top_shrunk"]),
                            ("every function more than 16 bytes bigger", bl["grown_over_16"])):
            out += ["### %s" % title, ""]
            if rows is bl["grown_over_16"]:
                out += ["%d functions, by reason: %s." % (len(rows), "; ".join(
                    "%d %s" % ng for ng in audit.reason_groups(rows))), ""]
            out += ["| function | stock | C11 | delta | reason |", "|---|---:|---:|---:|---|"]
            out += ["| %s | %d | %d | %+d | %s |" % (r["fn"], r["old"], r["new"], r["delta"], r["reason"]) for r in rows]
            out.append("")
        out += ["### functions whose locked instructions changed most", ""]
        for f in x["functions"]:
            out += ["#### %s (%+d bytes; locks %d -> %d): %s" % (f["fn"], f["delta"], f["locks_stock"],
                                                                   f["locks_c11"], f["reason"]),
                    "", "```diff", f["diff"], "```", ""]
    return "\n".join(out) + "\n"


def audit_objects(src, a):
    """--audit-objects: no build, no boot; OUT/kernel-audit-objects.{json,md}."""
    audits = []
    for cc in a["cc"]:
        st = build.build_dir(a["config"], cc, "stock", src=src)
        for v in [v for v in a["variant"] if v != "stock"]:
            x = audit.compare_objects(src, st, build.build_dir(a["config"], cc, v, src=src), a["objects"])
            x.update(config=a["config"], cc=cc, variant=v)
            audits.append(x)
            print("katomic kernel: audit of %d objects, %s %s: text %+d bytes (%d -> %d), %d grew / %d shrank, "
                  "lock prefixes %d -> %d" % (len(a["objects"]), cc, v, x["bloat"]["total_delta"],
                                              x["bloat"]["total_before"], x["bloat"]["total_after"],
                                              x["bloat"]["grown"], x["bloat"]["shrunk"],
                                              x["lock_prefixes"]["stock"], x["lock_prefixes"]["c11"]))
    os.makedirs(a["out"], exist_ok=True)
    with open(os.path.join(a["out"], "kernel-audit-objects.json"), "w") as f:
        json.dump(audits, f, indent=1)
    with open(os.path.join(a["out"], "kernel-audit-objects.md"), "w") as f:
        f.write(audit_md(audits).replace("code audit", "code audit of %d object files (%s)"
                                          % (len(a["objects"]), " ".join(a["objects"])), 1))
    print("katomic kernel: wrote %s" % os.path.join(a["out"], "kernel-audit-objects.md"))
    return 0


# What an architecture keeps when it opts into the asm-generic C11 layer.
KEPT_ASM_GENERIC = [
    {"what": "arch_cmpxchg128 (arm64 casp / ldxp-stxp)",
     "why": "gcc lowers 16-byte __atomic builtins to libatomic calls (__atomic_compare_exchange_16) on "
            "arm64 and RISC-V, and the kernel has no libatomic"},
    {"what": "__cmpwait_relaxed, smp_cond_load_relaxed/acquire (wfe, wrs.nto)",
     "why": "waiting for a cache line to change is no memory order: C11 has no wait instruction"},
    {"what": "mb/rmb/wmb, dma_mb/rmb/wmb (dsb, dmb osh*, fence io*)",
     "why": "they order device memory; C11 fences order normal memory only"},
    {"what": "the percpu atomics (arm64 this_cpu_* LL/SC and LSE asm), futex and uaccess atomics",
     "why": "they run with user-access or per-CPU addressing the C11 builtins cannot express"},
    {"what": "the LSE/LL-SC run-time choice (arm64 alternatives)",
     "why": "C has no run-time patching: the C11 layer picks LSE (-march=armv8.1-a) or LL/SC "
            "(-march=armv8-a) when the kernel is compiled; -mno-outline-atomics, since the kernel has "
            "no __aarch64_* helpers"},
    {"what": "RISC-V with gcc < 13: the 4-byte LR/SC CAS (asm-generic/cmpxchg-c11.h)",
     "why": "gcc 12 miscompiles a CAS whose expected value is not sign-extended (PR 114130) and has no "
            "inline sub-word atomics; 1/2-byte xchg/cmpxchg are built in C on that word CAS"},
]


def probes_only(src, c11_tree, a):
    """--arch ... --probes: the kernel probes of the C11 (and stock) headers, judged."""
    from . import xaudit
    arch, A = a["arch"], build.ARCHES[a["arch"]]
    out, bad = [], []
    for config in a["configs"]:
        for cc in a["cc"]:
            facts = {}
            for v in ("stock", "c11"):
                t = src if v == "stock" else c11_tree
                bdir = build.prepare(t, config, cc, v, arch, a["jobs"], src)
                facts[v] = xaudit.probes(t, bdir, build.make_args(arch, cc), arch, A["tool_prefix"])
            isa = ("llsc" if "llsc" in config else "lse") if arch == "arm64" else "*"
            rows = xaudit.judge(facts["c11"], arch, isa)
            for r in rows:
                s = facts["stock"].get("kp_" + r["probe"])
                r["stock_insns"], r["c11_insns"] = (s.n if s else None), facts["c11"]["kp_" + r["probe"]].n
                r["stock"] = s.seq if s else ""
            tally = {}
            for r in rows:
                tally[r["verdict"]] = tally.get(r["verdict"], 0) + 1
            item = {"config": "%s-%s" % (config, arch), "cc": cc, "arch": arch, "isa": isa, "verdicts": tally,
                    "weaker": tally.get("WEAKER", 0), "probes": rows}
            out.append(item)
            print("katomic kernel: probes %s-%s %s: %s (WEAKER %d)" % (config, arch, cc, ", ".join(
                "%s %d" % kv for kv in sorted(tally.items())), item["weaker"]), flush=True)
            if item["weaker"]:
                bad.append("%s-%s %s: %d WEAKER probes" % (config, arch, cc, item["weaker"]))
    odir = os.path.join(a["out"], arch)
    os.makedirs(odir, exist_ok=True)
    with open(os.path.join(odir, "kernel-probes.json"), "w") as f:
        json.dump(out, f, indent=1)
    md = ["# katomic kernel --arch %s --probes: the kernel's atomics on the asm-generic C11 layer, judged" % arch, "",
          "Each probe is one operation in one order, compiled by the kernel's own headers (tools/kernel/probes);",
          "the C11 code is judged against the kernel's sequence for its class (tools/codegen/kernel-seq.tbl).", ""]
    for x in out:
        md += ["## %s, %s (isa %s): %s; WEAKER %d" % (x["config"], x["cc"], x["isa"], ", ".join(
            "%s %d" % kv for kv in sorted(x["verdicts"].items())), x["weaker"]), "",
               "| probe | class | verdict | reason | C11 code | insns C11 / stock |", "|---|---|---|---|---|---|"]
        md += ["| %s | %s | %s | %s | `%s` | %s / %s |" % (r["probe"], r["class"], r["verdict"], r["reason"],
                                                         r["c11"], r["c11_insns"], r["stock_insns"]) for r in x["probes"]]
        md.append("")
    with open(os.path.join(odir, "kernel-probes.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("katomic kernel: wrote %s" % os.path.join(odir, "kernel-probes.md"))
    if bad:
        print("katomic kernel: FAILED: %s" % "; ".join(bad), file=sys.stderr)
        return 1
    return 0


def main_cross(src, a):
    """`--arch arm64|riscv64`: stock and asm-generic C11 kernels, booted, audited."""
    from . import xaudit
    arch, A = a["arch"], build.ARCHES[a["arch"]]
    if a["patch"]:
        c11_tree_of(src, a, arch)
        return 0
    c11_tree = c11_tree_of(src, a, arch) if any(v != "stock" for v in a["variant"]) else None
    if a["probes"]:
        return probes_only(src, c11_tree, a)
    doc = {"schema": "katomic-kernel", "version": 1, "tool": "katomic kernel", "machine": machine(False),
           "source": dict({"tree": src, "version": tree.version(src)}, **({"applied": True} if a.get("applied") else {})),
           "builds": [], "boots": [], "audit": [],
           "c11_kept_asm": KEPT_ASM_GENERIC}
    bad = []
    label = lambda c: "%s-%s" % (c, arch)     # the config as kernel.json and the report show it
    for config in a["configs"]:
        for cc in a["cc"]:
            for v in a["variant"]:
                print("katomic kernel: building %s %s %s ..." % (label(config), cc, v), flush=True)
                try:
                    b = build.build(src if v == "stock" else c11_tree, config, cc, v, a["jobs"], arch, src)
                    b["lock_prefixes"] = 0      # no lock prefixes on arm64/riscv64: see the audit's insns
                    print("katomic kernel: built %s-%s-%s in %s: text %d bytes" % (
                        label(config), cc, v, build.took(b), b["text_bytes"]), flush=True)
                except KernelError as e:
                    print("katomic kernel: %s" % e, file=sys.stderr)
                    bad.append(str(e))
                    b = {"cc": cc, "variant": v, "build_s": 0, "ok": False, "error": str(e),
                         "objtool_warnings": None, "text_bytes": None, "lock_prefixes": None, "bzimage": ""}
                b.update(config=label(config), arch=arch)
                doc["builds"].append(b)
    ok = {(b["config"], b["cc"], b["variant"]): b for b in doc["builds"] if b["ok"]}
    if a["audit"]:
        for config in a["configs"]:
            for cc in a["cc"]:
                st, cb = ok.get((label(config), cc, "stock")), ok.get((label(config), cc, "c11"))
                if not st or not cb:
                    continue
                try:
                    x = xaudit.compare(c11_tree, st, cb, arch, config, build.make_args(arch, cc),
                                       A["tool_prefix"], src)
                except KernelError as e:
                    bad.append("audit %s %s: %s" % (label(config), cc, e))
                    continue
                x.update(config=label(config), cc=cc, variant="c11", lock_prefixes={"stock": 0, "c11": 0},
                         functions=[])
                doc["audit"].append(x)
                print("katomic kernel: audit %s %s: text %+d bytes (%d -> %d), %d grew / %d shrank; probes %s; "
                      "WEAKER %d" % (label(config), cc, x["bloat"]["total_delta"], x["bloat"]["total_before"],
                                     x["bloat"]["total_after"], x["bloat"]["grown"], x["bloat"]["shrunk"],
                                     ", ".join("%s %d" % kv for kv in sorted(x["verdicts"].items())),
                                     x["weaker"]), flush=True)
                if x["weaker"]:
                    bad.append("audit %s %s: %d WEAKER probes" % (label(config), cc, x["weaker"]))
    if a["boot"]:
        for b in doc["builds"]:
            if b["ok"] and (b["variant"] != "stock" or a.get("boot_stock")):
                recs = boot_one(b, a, a["out"])
                for r in recs:
                    r["arch"] = arch
                doc["boots"] += recs
                bad += ["%s-%s-%s -smp %s did not pass" % (r["config"], r["cc"], r["variant"], r["smp"])
                        for r in recs if not r["passed"]]
    path = write_doc(os.path.join(a["out"], arch), doc)
    if doc["audit"]:
        with open(os.path.join(a["out"], arch, "kernel-audit.md"), "w") as f:
            f.write("# katomic kernel --arch %s: stock vs asm-generic C11\n\n" % arch +
                    "\n".join(xaudit.markdown(x) for x in doc["audit"]))
    print("katomic kernel: wrote %s" % path)
    if bad:
        print("katomic kernel: FAILED: %s" % "; ".join(bad), file=sys.stderr)
        return 1
    return 0


def c11_tree_of(src, a, arch):
    """The tree the C11 variant builds: the patched copy of `src`, or `src`
    itself when it already holds the change (the series applied with git am);
    then the stock variant is that tree with the options off.  With --patch:
    prints the patch and returns None."""
    if patch.applied(src, arch):
        if a["patch"]:
            raise KernelError("%s already holds the change (the series applied?): no patch to print" % src)
        print("katomic kernel: %s already holds the change: the C11 builds use it as it is, "
              "the stock builds are it with the options off" % src, flush=True)
        a["applied"] = True
        return src
    ptext = patch.make(src, arch)
    if a["patch"]:
        sys.stdout.write(ptext)
        return None
    return patch.patched_tree(src, ptext, arch)


def main(argv):
    a = parse(argv)
    src = tree.pristine(a["src"])
    if a["apply"]:
        try:
            with open(a["apply"]) as f:
                text = f.read()
        except OSError as e:
            raise KernelError("%s: %s" % (a["apply"], e.strerror))
        patch.check_applies(text, src)
        print("katomic kernel: %s applies to %s" % (a["apply"], src))
        return 0
    if a["series"] is not None:
        from . import series, series_text
        files = series.build(src, a["series"], a["arch"], a["author"], series_text.Facts(a["from"]))
        for f in files:
            print(f)
        return 0
    if a["objects"]:
        return audit_objects(src, a)
    if a["arch"] != "x86_64":
        return main_cross(src, a)
    if a["patch"]:
        c11_tree_of(src, a, "x86_64")
        return 0
    for cc in a["cc"]:          # a missing tool: one line before hours of building
        build.check_tools(cc)
    if a["boot"]:
        tree.need_tool("qemu-system-x86_64", "qemu-system-x86")
        tree.need_tool("timeout", "coreutils")
    c11_tree = c11_tree_of(src, a, "x86_64") if any(v != "stock" for v in a["variant"]) else None
    doc = {"schema": "katomic-kernel", "version": 1, "tool": "katomic kernel", "machine": machine(False),
           "source": dict({"tree": src, "version": tree.version(src)}, **({"applied": True} if a.get("applied") else {})),
           "builds": [], "boots": [], "audit": [],
           "c11_kept_asm": KEPT_ASM}
    bad = []
    for cc in a["cc"]:
        for v in a["variant"]:
            print("katomic kernel: building %s %s %s ..." % (a["config"], cc, v), flush=True)
            try:
                b = build.build(src if v == "stock" else c11_tree, a["config"], cc, v, a["jobs"], src=src)
                b["lock_prefixes"] = audit.lock_count(audit.disassemble(b["vmlinux"]))
                print("katomic kernel: built %s-%s-%s in %s: text %d bytes, %d lock prefixes, "
                      "%d objtool warnings" % (a["config"], cc, v, build.took(b), b["text_bytes"],
                                               b["lock_prefixes"], b["objtool_warnings"]), flush=True)
                if v != "stock":
                    why = crosscheck_one(b)
                    if why:
                        bad.append(why)
            except KernelError as e:
                print("katomic kernel: %s" % e, file=sys.stderr)
                bad.append(str(e))
                b = {"config": a["config"], "cc": cc, "variant": v, "build_s": 0, "ok": False,
                     "error": str(e), "objtool_warnings": None, "text_bytes": None, "lock_prefixes": None,
                     "bzimage": ""}
            doc["builds"].append(b)
    ok = {(b["cc"], b["variant"]): b for b in doc["builds"] if b["ok"]}
    for cc in a["cc"]:
        st = ok.get((cc, "stock"))
        if not st:
            continue
        for v in a["variant"]:
            if v == "stock" or (cc, v) not in ok:
                continue
            ob = ok[(cc, v)]
            new_w = sorted(set(ob.get("objtool", [])) - set(st.get("objtool", [])))
            ob["new_objtool_warnings"] = new_w
            if new_w:
                bad.append("%s %s: %d objtool warnings the stock build does not have, first: %s"
                           % (cc, v, len(new_w), new_w[0]))
            if a["audit"]:
                x = audit.compare(src, st["vmlinux"], ob["vmlinux"])
                x.update(config=a["config"], cc=cc, variant=v)
                doc["audit"].append(x)
                print("katomic kernel: audit %s %s: text %+d bytes, %d grew / %d shrank, lock prefixes "
                      "%d -> %d" % (cc, v, x["bloat"]["total_delta"], x["bloat"]["grown"],
                                    x["bloat"]["shrunk"], x["lock_prefixes"]["stock"],
                                    x["lock_prefixes"]["c11"]), flush=True)
    if a["boot"]:
        for b in doc["builds"]:
            if b["ok"]:
                recs = boot_one(b, a, a["out"])
                doc["boots"] += recs
                bad += ["%s-%s-%s -smp %s did not pass" % (r["config"], r["cc"], r["variant"], r["smp"])
                        for r in recs if not r["passed"]]
        doc["machine"]["kvm"] = any(r.get("accel") == "kvm" for r in doc["boots"])
    for b in doc["builds"]:
        if "up_elision" not in b:
            b["up_elision"] = {"measured": False, "reason": "the build failed" if not b["ok"] else
                               "not booted (--no-boot)"}
    path = write_doc(a["out"], doc)
    if doc["audit"]:
        with open(os.path.join(a["out"], "kernel-audit.md"), "w") as f:
            f.write(audit_md(doc["audit"]))
    print("katomic kernel: wrote %s" % path)
    if bad:
        print("katomic kernel: FAILED: %s" % "; ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KernelError as e:
        die(str(e))
    except KeyboardInterrupt:
        die("interrupted")
