"""Which compiles the audit makes: compilers x targets x backends, and a note
(with the Debian package to install) for everything that cannot be built here."""
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass, field

from .targets import BY_NAME, CLANG_EXTRA


@dataclass
class Compile:
    id: str         # <label>.<target>.<backend>: also the work file names
    cc: list        # the compiler command (clang --target=... is several words)
    flags: list
    objdump: str
    arch: str


@dataclass
class Config:
    """One compiler x target: the C11 probes and their reference."""
    compiler: str   # label: gcc, clang-19, or gcc-12 for Debian's cross gcc
    target: str
    arch: str
    isa: str
    c11: Compile
    ref: Compile = None     # x86-64: the asm backend; elsewhere the kernel table
    command: str = ""


@dataclass
class Plan:
    configs: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def compiles(self):
        return [c for cfg in self.configs for c in (cfg.c11, cfg.ref) if c is not None]


def _have(cmd):
    return shutil.which(cmd) is not None


def make_plan(ccs, cross_ccs, targets, opt):
    """ccs: native x86-64 compilers; cross_ccs: "gcc" and/or clang-N for the others."""
    plan = Plan()
    native = [c for c in ccs if _have(c)]
    for c in ccs:
        if not _have(c):
            plan.notes.append("compiler %s not installed: skipped (apt-get install %s)" % (c, c))
    for name in targets:
        t = BY_NAME[name]
        if name == "x86_64":
            if platform.machine() != "x86_64":
                plan.notes.append("x86_64 skipped: not an x86-64 host")
                continue
            for c in native:
                c11 = Compile("%s.%s.c11" % (c, name), [c], [opt], "objdump", t.arch)
                asm = Compile("%s.%s.asm" % (c, name), [c], [opt, "-DKATOMIC_BACKEND_ASM"], "objdump", t.arch)
                plan.configs.append(Config(c, name, t.arch, t.isa, c11, asm, c))
            continue
        objdump = t.triple + "-objdump"
        if not _have(objdump):
            plan.notes.append("%s skipped: %s missing (apt-get install binutils-%s)" % (name, objdump, t.triple))
            continue
        for x in cross_ccs:
            if x.startswith("gcc"):
                xc = t.triple + "-gcc"
                if not _have(xc):
                    plan.notes.append("%s/gcc skipped: %s missing (apt-get install gcc-%s)" % (name, xc, t.triple))
                    continue
                ver = subprocess.run([xc, "-dumpversion"], capture_output=True, text=True).stdout.strip()
                label, cmd = "gcc-" + ver.split(".")[0], [xc]
            elif x.startswith("clang"):
                if not _have(x):
                    plan.notes.append("%s/%s skipped: %s not installed" % (name, x, x))
                    continue
                if not os.path.isdir("/usr/%s/include" % t.triple):
                    plan.notes.append("%s/%s skipped: no sysroot /usr/%s (apt-get install libc6-dev-%s-cross)"
                                      % (name, x, t.triple, t.debian))
                    continue
                label, cmd = x, [x, "--target=" + t.triple] + CLANG_EXTRA.get(name, "").split()
            else:
                plan.notes.append("cross compiler '%s' not understood (gcc or clang-N): skipped" % x)
                continue
            c11 = Compile("%s.%s.c11" % (label, name), cmd, [opt] + t.flags.split(), objdump, t.arch)
            plan.configs.append(Config(label, name, t.arch, t.isa, c11, None, " ".join(cmd)))
    return plan
