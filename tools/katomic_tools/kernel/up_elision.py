"""UP lock elision for kernel.json: the -smp 1 guest's own reading of its lock sites.

`katomic kernel` calls prepare() for each x86-64 build it boots with -smp 1
(stock and C11): the decoder's list of vmlinux's lock sites, the probe module
(tools/kernel/smplocks/) built against the build and its initramfs entries,
all by smplocks_boot's functions.  The -smp 1 boot then gets katomic.probe=1
(/init loads the probe at the start and at the end, around the torture runs),
so no extra boot is made; record() turns that boot's console into the build's
`up_elision` object (tools/schema/kernel.schema.json).  A build that cannot be
read (not x86-64, modules off, a C11 build without objtool --smp-locks, no
-smp 1 boot, the probe failed to build) gets {"measured": false, "reason": ...}.
"""
import io
import os

from . import smplocks, smplocks_boot, smplocks_ko
from .smplocks import Error

FREED = "Freeing SMP alternatives memory"


def not_measured(reason):
    return {"measured": False, "reason": reason}


def why_not(b, smps):
    """Why build `b` gets no reading (None: it can get one)."""
    if b.get("arch", "x86_64") != "x86_64":
        return "not x86-64: .smp_locks and the UP patching are x86's"
    if not b.get("ok"):
        return "the build failed"
    if "1" not in [s.split(",")[0] for s in smps]:
        return "not booted with -smp 1 (--smp)"
    kb = b["build_dir"]
    try:
        with open(os.path.join(kb, ".config")) as f:
            config = f.read()
    except OSError as e:
        return "%s/.config: %s" % (kb, e.strerror)
    if "CONFIG_MODULES=y" not in config:
        return "modules off (CONFIG_MODULES not set): the probe that reads the text is a module"
    if "CONFIG_SMP=y" not in config:
        return "CONFIG_SMP off: no .smp_locks"
    if b["variant"] != "stock" and "CONFIG_X86_ATOMIC_C11_SMP_LOCKS=y" not in config.split("\n"):
        return "a C11 build without objtool --smp-locks (CONFIG_X86_ATOMIC_C11_SMP_LOCKS; its tree predates it)"
    return None


def module_counts(kb):
    """The lock sites of the build's own modules (modules.order) in core text, by the decoder's
    tags: recorded in .smp_locks ("table"), the rest (kept locked, or new: not recorded)."""
    rec = rest = 0
    kos = smplocks_ko.built_modules(kb)
    for ko in kos:
        buf = io.StringIO()
        smplocks_ko.run(ko, list_sites=True, dry_run=True, out=buf)
        for line in buf.getvalue().splitlines():
            if "\t" in line:
                # Init text is freed after the module's init, never patched: not core
                # text (6.1's test_bitops.ko runs its locked ops there).
                if line.startswith(".init") or line.rsplit("\t", 1)[1] == "not module text":
                    continue
                if line.rsplit("\t", 1)[1] == "table":
                    rec += 1
                else:
                    rest += 1
    return len(kos), rec, rest


def prepare(b, smps, odir, make_vars):
    """(initramfs entries for katomic.probe=1, facts) or (None, a not-measured record)."""
    reason = why_not(b, smps)
    if reason:
        return None, not_measured(reason)
    kb = b["build_dir"]
    os.makedirs(odir, exist_ok=True)
    lst = os.path.join(odir, "vmlinux.list")
    try:
        with open(lst, "w") as f:
            smplocks.run(os.path.join(kb, "vmlinux"), list_sites=True, dry_run=True, out=f)
        recorded, kept = smplocks_boot.sites(os.path.join(kb, "vmlinux"), lst)
        sync = smplocks_boot.sync_sites(kb, kept)
        ko = smplocks_boot.build_probe(kb, os.path.join(odir, "probe"), None, recorded, kept, make_vars, sync)
        mrec, mkept, msync = smplocks_boot.module_sites(ko)
        nmods, modrec, modrest = module_counts(kb)
    except (Error, OSError) as e:
        return None, not_measured("the probe could not be prepared: %s" % e)
    facts = {"recorded": len(recorded), "unrecorded": len(kept), "sync": len(sync), "probe_recorded": len(mrec),
             "probe_unrecorded": len(mkept), "probe_sync": len(msync), "modules": nmods, "modules_recorded": modrec,
             "modules_unrecorded": modrest}
    return smplocks_boot.probe_files(ko, mrec, mkept, msync), facts


def record(facts, text):
    """The build's up_elision object from its -smp 1 console log (the last reading of each kind)."""
    last = {}
    for what, n, f0, ds, other, online, possible in smplocks_boot.readings(text):
        last[what] = (n, f0, ds)
    if set(last) != set(smplocks_boot.KINDS):
        return not_measured("the -smp 1 guest printed %d of the probe's %d readings (probe not loaded?)"
                            % (len(last), len(smplocks_boot.KINDS)))
    r, u, ks, mr, mu, ms = (last[k] for k in smplocks_boot.KINDS)
    out = dict(facts, measured=True, recorded=r[0], unrecorded=u[0],
               recorded_locked=r[1], recorded_patched=r[2], unrecorded_locked=u[1],
               probe_recorded=mr[0], probe_unrecorded=mu[0],
               probe_recorded_locked=mr[1], probe_recorded_patched=mr[2], probe_unrecorded_locked=mu[1],
               sync=ks[0], sync_locked=ks[1], probe_sync=ms[0], probe_sync_locked=ms[1],
               table_freed=FREED in text)
    out["left_locked"] = out["recorded_locked"] + out["unrecorded_locked"]
    # The modules' sites the kernel's rule leaves locked: every site not in their .smp_locks
    # (the probe's reading shows the rule holds for a module's recorded sites).
    out["modules_left_locked"] = out["modules_unrecorded"]
    return out


def summary(name, u):
    """One line for the driver's output."""
    if not u["measured"]:
        return "%s: UP lock elision not measured: %s" % (name, u["reason"])
    return ("%s -smp 1: .smp_locks %d sites, %d left 0xf0, %d patched 0x3e; %d unrecorded lock sites, %d 0xf0; "
            "lock prefixes left in the text: %d; modules: %d recorded, %d left locked; table freed: %s"
            % (name, u["recorded"], u["recorded_locked"], u["recorded_patched"], u["unrecorded"],
               u["unrecorded_locked"], u["left_locked"], u["modules_recorded"], u["modules_left_locked"],
               u["table_freed"]))
