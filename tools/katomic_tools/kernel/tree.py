"""The kernel trees: the build cache, the pristine source, its version.

KCACHE = $KATOMIC_KERNEL_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/katomic/kernel
(/work/wt/KERNEL-CONTRACT.md): src/ the pristine tree extracted once from
Debian's linux-source tarball, trees/ patched copies, builds/ O= directories.
"""
import os
import re
import shutil
import subprocess

from . import KernelError

TARBALL = "/usr/src/linux-source-6.12.tar.xz"
STAMP = ".katomic-extracted"


def kcache():
    c = os.environ.get("KATOMIC_KERNEL_CACHE")
    if c:
        return c
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "katomic", "kernel")


def need_tool(name, package):
    """The path of a tool, or KernelError naming the package that has it."""
    path = shutil.which(name)
    if not path:
        raise KernelError("%s not found (apt-get install %s)" % (name, package))
    return path


def check_tree(path):
    """`path` must be a kernel source tree with the x86 headers the patch edits."""
    if not os.path.isdir(path):
        raise KernelError("%s: no such directory" % path)
    for f in ("Makefile", "arch/x86/include/asm/atomic.h", "include/linux/atomic/atomic-arch-fallback.h"):
        if not os.path.isfile(os.path.join(path, f)):
            raise KernelError("%s: not a Linux source tree with x86 atomics (no %s)" % (path, f))
    if os.path.exists(os.path.join(path, ".config")):
        raise KernelError("%s: has a .config; katomic builds with O= and needs a clean tree (make mrproper)" % path)
    return os.path.abspath(path)


def pristine(src=None, tarball=TARBALL):
    """The source tree: `src` if given, else the tarball extracted once into KCACHE/src."""
    if src:
        return check_tree(src)
    name = os.path.basename(tarball).split(".tar")[0]
    dest = os.path.join(kcache(), "src", name)
    if os.path.isfile(os.path.join(dest, STAMP)):
        return dest
    if not os.path.isfile(tarball):
        raise KernelError("%s not found (apt-get install linux-source-6.12, or give --src DIR)" % tarball)
    need_tool("xz", "xz-utils")
    top = os.path.dirname(dest)
    os.makedirs(top, exist_ok=True)
    shutil.rmtree(dest, ignore_errors=True)
    r = subprocess.run(["tar", "-xf", tarball, "-C", top], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode != 0 or not os.path.isdir(dest):
        raise KernelError("%s: extraction into %s failed: %s" % (tarball, top, r.stdout.strip()[-200:]))
    open(os.path.join(dest, STAMP), "w").close()
    return check_tree(dest)


def version(tree):
    """"6.12.118" from the top Makefile."""
    v = {}
    with open(os.path.join(tree, "Makefile")) as f:
        for line in f:
            m = re.match(r"(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(\S*)", line)
            if m:
                v[m.group(1)] = m.group(2)
            if len(v) == 4:
                break
    if "VERSION" not in v:
        raise KernelError("%s/Makefile: no VERSION line" % tree)
    s = "%s.%s.%s" % (v["VERSION"], v.get("PATCHLEVEL", "0"), v.get("SUBLEVEL", "0"))
    return s + v.get("EXTRAVERSION", "")
