"""Configure and build one kernel: (config, compiler, variant) -> KCACHE/builds/.

Configs: `small` = tinyconfig + tools/kernel/configs/base-small.config,
`small-xen` = small + xen-hyperv.config (CONFIG_XEN, CONFIG_HYPERV),
`defconfig` = x86_64_defconfig + kernel/configs/kvm_guest.config +
tools/kernel/configs/base-defconfig.config; both + tests.config (the
self-tests and torture modules) + the variant's options.  Every option a
fragment sets must survive `make olddefconfig`, else the build stops naming it.
"""
import json
import os
import re
import resource
import subprocess
import time

from . import KernelError
from .tree import kcache, need_tool
from ..common import paths

CONFIGS = {
    "small": ("tinyconfig", [], ["base-small.config"]),
    "small-xen": ("tinyconfig", [], ["base-small.config", "xen-hyperv.config"]),
    "defconfig": ("x86_64_defconfig", ["kernel/configs/kvm_guest.config"], ["base-defconfig.config"]),
}
VARIANTS = {
    "stock": [],
    "c11": ["CONFIG_X86_ATOMIC_C11=y"],
    "c11fence": ["CONFIG_X86_ATOMIC_C11=y", "CONFIG_X86_BARRIER_C11=y"],
}
# `--arch arm64|riscv64`: the asm-generic C11 layer (CONFIG_ARCH_ATOMIC_C11).
# arm64's small-llsc config turns the kernel's LSE atomics off (the C11 layer
# is then compiled for ARMv8.0: LL/SC); small uses LSE (ARMv8.1).
ARCHES = {
    "x86_64": {"make": [], "image": "arch/x86/boot/bzImage", "targets": [], "tool_prefix": "",
               "configs": CONFIGS, "variants": VARIANTS},
    "arm64": {"make": ["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"], "image": "arch/arm64/boot/Image",
              "targets": ["Image", "modules"], "tool_prefix": "aarch64-linux-gnu-", "gcc_pkg": "gcc-aarch64-linux-gnu",
              "configs": {"small": ("tinyconfig", [], ["base-small-arm64.config"]),
                          "small-llsc": ("tinyconfig", [], ["base-small-arm64.config", "llsc-arm64.config"])},
              "variants": {"stock": [], "c11": ["CONFIG_ARCH_ATOMIC_C11=y"]}},
    "riscv64": {"make": ["ARCH=riscv", "CROSS_COMPILE=riscv64-linux-gnu-"], "image": "arch/riscv/boot/Image",
                "targets": ["Image", "modules"], "tool_prefix": "riscv64-linux-gnu-", "gcc_pkg": "gcc-riscv64-linux-gnu",
                "configs": {"small": ("tinyconfig", [], ["base-small-riscv64.config"])},
                "variants": {"stock": [], "c11": ["CONFIG_ARCH_ATOMIC_C11=y"]}},
}


def make_args(arch, cc):
    """make's variables for the architecture and compiler (cross gcc: CROSS_COMPILE's gcc)."""
    if arch == "x86_64":
        return CCS[cc][0]
    return ARCHES[arch]["make"] + (["LLVM=-19"] if cc == "clang" else [])
CCS = {
    "gcc": (["CC=gcc-12", "HOSTCC=gcc-12"], [("gcc-12", "gcc-12")]),
    "clang": (["LLVM=-19"], [("clang-19", "clang-19"), ("ld.lld-19", "lld-19"), ("llvm-objcopy-19", "llvm-19")]),
}
TOOLS = [("make", "make"), ("flex", "flex"), ("bison", "bison"), ("bc", "bc"), ("perl", "perl"),
         ("objdump", "binutils"), ("cpio", "cpio")]


# Self-tests a tree may build as modules only (tests.config asks for =y):
# linux 6.1's TEST_BITOPS `depends on m` (6.12's does not).
MODULE_ONLY = {"CONFIG_TEST_BITOPS"}


def configs_dir():
    return os.path.join(paths.root(), "tools", "kernel", "configs")


def fragment(name):
    p = os.path.join(configs_dir(), name)
    if name == "tests.config" and not os.path.isfile(p) and os.environ.get("KATOMIC_KERNEL_TESTS_CONFIG"):
        p = os.environ["KATOMIC_KERNEL_TESTS_CONFIG"]
    if not os.path.isfile(p):
        raise KernelError("%s: missing" % p)
    return p


def check_tools(cc, arch="x86_64"):
    if arch != "x86_64":
        A = ARCHES[arch]
        for tool, pkg in TOOLS + ([(A["tool_prefix"] + "gcc", A["gcc_pkg"])] if cc == "gcc" else CCS[cc][1]):
            need_tool(tool, pkg)
        return
    for tool, pkg in TOOLS + CCS[cc][1]:
        need_tool(tool, pkg)
    if not os.path.isfile("/usr/include/gelf.h"):
        raise KernelError("/usr/include/gelf.h not found (apt-get install libelf-dev): objtool needs it")


# The tree whose build dirs keep the plain names (those of the default
# tarball's tree, KCACHE/src/linux-source-6.12); any other pristine tree's
# name ends its build dirs' (small-gcc-c11-linux-source-6.1): O= dirs of two
# source trees must never mix.
DEFAULT_TREE = "linux-source-6.12"


def tree_tag(src):
    """"" for the default tree (or none given), else "-" + the pristine tree's name."""
    if not src:
        return ""
    name = os.path.basename(os.path.abspath(src))
    return "" if name == DEFAULT_TREE else "-" + name


def build_dir(config, cc, variant, arch="x86_64", src=None):
    """KCACHE/builds/<config>[-<arch>]-<cc>-<variant>[-<tree>]; src: the pristine tree."""
    if arch != "x86_64":
        return os.path.join(kcache(), "builds", "%s-%s-%s-%s%s" % (config, arch, cc, variant, tree_tag(src)))
    return os.path.join(kcache(), "builds", "%s-%s-%s%s" % (config, cc, variant, tree_tag(src)))


def _run(cmd, cwd, log, what):
    # The patched tree builds with make alone: no katomic, no Python (objtool
    # records the compiler's lock prefixes), so the environment is not ours to set.
    env = {k: v for k, v in os.environ.items() if k != "KATOMIC_TOOLS"}
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        r = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    if r.returncode != 0:
        tail = ""
        with open(log, errors="replace") as f:
            lines = [l.rstrip() for l in f if not l.startswith("$ ")]  # not our own command lines
        # The compiler's or linker's "error:" first (not a file named
        # fdt_strerror.o in kbuild's progress lines), else make's "***".
        first = [l for l in lines if re.search(r"\berror\b:", l, re.I)] or [l for l in lines if "***" in l]
        if first:
            tail = ": " + first[0].strip()[-200:]
        raise KernelError("%s failed (exit %d; log %s)%s" % (what, r.returncode, log, tail))


def _wanted(frags):
    """{CONFIG_X: value} of every fragment line ('n' for '# CONFIG_X is not set')."""
    want = {}
    for fr in frags:
        with open(fr) as f:
            for n, line in enumerate(f, 1):
                m = re.match(r"(CONFIG_\w+)=(.*)$", line.strip())
                if m:
                    want[m.group(1)] = (m.group(2), "%s:%d" % (fr, n))
                m = re.match(r"# (CONFIG_\w+) is not set", line.strip())
                if m:
                    want[m.group(1)] = ("n", "%s:%d" % (fr, n))
    return want


def configure(tree, bdir, config, cc, variant, arch="x86_64"):
    base, in_tree, ours = ARCHES[arch]["configs"][config]
    os.makedirs(bdir, exist_ok=True)
    log = os.path.join(bdir, "katomic-config.log")
    open(log, "w").close()
    vfrag = os.path.join(bdir, "katomic-variant.config")
    with open(vfrag, "w") as f:
        f.write("# variant %s\n" % variant + "".join(l + "\n" for l in ARCHES[arch]["variants"][variant]))
    frags = [os.path.join(tree, p) for p in in_tree] + [fragment(n) for n in ours] + \
        [fragment("tests.config"), vfrag]
    make = ["make", "-s", "O=" + bdir] + make_args(arch, cc)
    _run(make + [base], tree, log, "make %s" % base)
    _run([os.path.join(tree, "scripts/kconfig/merge_config.sh"), "-m", "-O", bdir,
          os.path.join(bdir, ".config")] + frags, tree, log, "merge_config.sh")
    _run(make + ["olddefconfig"], tree, log, "make olddefconfig")
    have, known = {}, set()
    with open(os.path.join(bdir, ".config")) as f:
        for line in f:
            m = re.match(r"(CONFIG_\w+)=(.*)$", line.strip())
            if m:
                have[m.group(1)] = m.group(2)
            m = re.match(r"(?:# )?(CONFIG_\w+)(?:=| is not set)", line.strip())
            if m:
                known.add(m.group(1))
    theirs = set(os.path.join(tree, p) for p in in_tree)
    for sym, (val, where) in sorted(_wanted(frags).items()):
        got = have.get(sym, "n")
        if got != val and sym not in known and where.rsplit(":", 1)[0] in theirs:
            # The tree's own fragments are shared by every architecture
            # (kvm_guest.config sets CONFIG_S390_GUEST): a symbol this
            # architecture's Kconfig does not define is not ours to demand.
            with open(log, "a") as f:
                f.write("katomic: %s: %s is not a symbol of this architecture; ignored\n" % (where, sym))
            continue
        if got == "m" and val == "y" and sym in MODULE_ONLY:
            # The tree builds this self-test as a module only (6.1: TEST_BITOPS
            # `depends on m`): /init loads it (initramfs.MODULES).
            with open(log, "a") as f:
                f.write("katomic: %s: %s=m (this tree builds it as a module only; /init loads it)\n"
                        % (where, sym))
            continue
        if got != val:
            raise KernelError("%s: %s=%s did not survive make olddefconfig (the .config has %s; a dependency is missing)"
                              % (where, sym, val, got))


def text_bytes(vmlinux, prefix=""):
    """Bytes of code: the sizes of vmlinux's text symbols (what bloat-o-meter -t
    totals), not .text's size, which the linker pads to a 2 MiB boundary.
    prefix: the cross tools' (`--arch`)."""
    r = subprocess.run([prefix + "nm", "--size-sort", "-S", "-t", "d", vmlinux], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise KernelError("%snm %s failed: %s" % (prefix, vmlinux, r.stderr.strip()[-200:]))
    total = 0
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in ("t", "T", "w", "W"):
            total += int(f[1], 10)
    if not total:
        raise KernelError("%s: no text symbols" % vmlinux)
    return total


def objtool_warnings(log, bdir):
    """objtool's warning lines, without the build directory (stock and C11 compare)."""
    out = []
    with open(log, errors="replace") as f:
        for line in f:
            if "objtool" in line and "warning" in line:
                out.append(line.strip().replace(bdir.rstrip("/") + "/", ""))
    return out


def _child_cpu():
    """CPU seconds (user + system) of this process's finished children: the
    cost of a build whatever else the shared machine runs."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _objects(bdir, since=None):
    """(all, newer): the objects a make compiled in bdir (configuring compiles
    only scripts/ and the generated headers), and those of them written at or
    after since (0 without since), in one walk."""
    n = newer = 0
    for top, dirs, files in os.walk(bdir):
        if top == bdir:
            dirs[:] = [d for d in dirs if d not in ("scripts", "include", "tools", "usr", "source")]
        for f in files:
            if f.endswith(".o"):
                n += 1
                if since is not None and os.path.getmtime(os.path.join(top, f)) >= since:
                    newer += 1
    return n, newer


def _has_objects(bdir):
    return _objects(bdir)[0] > 0


# A make that recompiled this share of the objects (a header that every file
# includes changed: the C11 layer) costs what a full build does.
REBUILT_ALL = 0.9


def build(tree, config, cc, variant, jobs=2, arch="x86_64", src=None):
    """Configure and make `tree` (the pristine src or its patched copy); returns
    the kernel.json `builds` item (KernelError if it fails)."""
    check_tools(cc, arch)
    A = ARCHES[arch]
    bdir = build_dir(config, cc, variant, arch, src)
    rec_path = os.path.join(bdir, "katomic-build.json")
    old = {}
    if os.path.isfile(rec_path):
        with open(rec_path) as f:
            old = json.load(f)
        if old.get("tree") != tree:
            old = {}
    configure(tree, bdir, config, cc, variant, arch)
    vmlinux = os.path.join(bdir, "vmlinux")
    # Three kinds of make (recorded_time): a full build (no objects yet, or
    # nearly all of them recompiled) is timed; an incremental one over a
    # finished build keeps that build's record (none: unknown); one that
    # resumes an interrupted build knows only part of the cost, so its full
    # time is recorded as unknown (null).
    fresh = not _has_objects(bdir)
    finished = os.path.isfile(vmlinux)
    log = os.path.join(bdir, "katomic-build.log")
    open(log, "w").close()
    t0, c0 = time.time(), _child_cpu()
    _run(["nice", "-n", "10", "make", "-j%d" % jobs, "O=" + bdir] + make_args(arch, cc) + A["targets"], tree, log,
         "building " + os.path.basename(bdir))
    secs, cpu = round(time.time() - t0, 1), round(_child_cpu() - c0, 1)
    warns = objtool_warnings(log, bdir)
    objects, rebuilt = _objects(bdir, since=t0 - 1)
    build_s, build_cpu_s = recorded_time(fresh, finished, rebuilt, objects, secs, cpu, old)
    if not fresh:
        # A make over existing objects compiles only what is left or changed:
        # keep the warnings of the objects it did not rebuild.
        warns = sorted(set(old.get("objtool", [])) | set(warns))
    rec = {"config": config, "cc": cc, "variant": variant, "ok": True,
           "build_s": build_s, "last_make_s": secs, "build_cpu_s": build_cpu_s,
           "objtool_warnings": len(warns), "objtool": warns,
           "text_bytes": text_bytes(vmlinux, A["tool_prefix"]), "bzimage": os.path.join(bdir, A["image"]),
           "arch": arch,
           "vmlinux": vmlinux, "build_dir": bdir, "tree": tree,
           "load_at_start": os.getloadavg()[0]}
    with open(rec_path, "w") as f:
        json.dump(rec, f, indent=1)
    return rec


def recorded_time(fresh, finished, rebuilt, objects, secs, cpu, old):
    """(build_s, build_cpu_s) of a make that took secs (cpu) and recompiled
    rebuilt of the build dir's objects; old: the dir's previous record."""
    if fresh or (finished and rebuilt >= REBUILT_ALL * objects):
        return secs, cpu
    if finished:
        return old.get("build_s"), old.get("build_cpu_s")
    return None, None


def took(rec):
    """A build item's time as a log line says it."""
    if rec.get("build_s") is None:
        return "%.0f s (a resumed build: its full time is not known)" % rec["last_make_s"]
    return "%.0f s" % rec["build_s"]


def prepare(tree, config, cc, variant, arch, jobs=2, src=None):
    """Configure and `make modules_prepare` only: enough to build the kernel
    probes (tools/kernel/probes) for `katomic kernel --arch ... --probes`."""
    check_tools(cc, arch)
    bdir = build_dir(config, cc, variant, arch, src)
    configure(tree, bdir, config, cc, variant, arch)
    log = os.path.join(bdir, "katomic-prepare.log")
    open(log, "w").close()
    _run(["nice", "-n", "10", "make", "-j%d" % jobs, "O=" + bdir] + make_args(arch, cc) + ["modules_prepare"],
         tree, log, "make modules_prepare for %s-%s-%s-%s" % (config, arch, cc, variant))
    return bdir
