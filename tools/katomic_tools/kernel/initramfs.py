"""The initramfs every katomic kernel boots with (docs/kernel-boot.md).

It holds /init (tools/kernel/init/init.c, built static with the host
compiler), /dev/console, the directories /init mounts on, /katomic.conf (the
default torture plan; the kernel command line overrides it) and the torture
modules of one kernel build in /lib/katomic/.  Written as an uncompressed
"newc" cpio by the small writer below, so that no cpio tool and no
CONFIG_RD_* decompressor is needed."""
import os
import subprocess

from ..common import paths
from . import KernelError

Error = KernelError     # one line saying what is wrong (the driver prints it, exit 2)


# The modules /init loads, and where a kernel build (O= directory) has them.
MODULES = {
    "torture.ko": "kernel/torture.ko",
    "locktorture.ko": "kernel/locking/locktorture.ko",
    "rcutorture.ko": "kernel/rcu/rcutorture.ko",
    # A self-test the tree builds as a module only (build.MODULE_ONLY: 6.1's
    # TEST_BITOPS); /init loads it at the start.
    "test_bitops.ko": "lib/test_bitops.ko",
}

DEFAULT_LOCKS = ("spin_lock", "mutex_lock", "rwsem_lock")

_S_IFDIR, _S_IFREG, _S_IFCHR = 0o040000, 0o100000, 0o020000


def init_source():
    return os.path.join(paths.root(), "tools", "kernel", "init", "init.c")


def build_init(out_path, cc="gcc"):
    """Compile /init, static.  Raises Error with the compiler's first error line."""
    cmd = [cc, "-static", "-O2", "-std=gnu11", "-Wall", "-Wextra", "-o", out_path, init_source()]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    except OSError as e:
        raise Error("cannot run %s to build /init: %s" % (cc, e.strerror))
    if p.returncode != 0:
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        first = next((l for l in lines if "error" in l), lines[0] if lines else "no output")
        raise Error("%s -static could not build /init (static libc missing?): %s" % (cc, first))
    return out_path


def _header(name, mode, size, ino, rdev=(0, 0), nlink=1):
    fields = (ino, mode, 0, 0, nlink, 0, size, 0, 0, rdev[0], rdev[1], len(name) + 1, 0)
    return ("070701" + "".join("%08X" % f for f in fields)).encode("ascii")


def _pad(n):
    return b"\0" * ((4 - n % 4) % 4)


def write_cpio(path, entries):
    """Write a newc archive.  entries: (name, kind, data) with kind "dir",
    "file", "exec" or ("chr", major, minor); names without a leading '/'."""
    with open(path, "wb") as f:
        ino = 1
        for name, kind, data in list(entries) + [("TRAILER!!!", "trailer", b"")]:
            rdev, nlink = (0, 0), 1
            if kind == "dir":
                mode, nlink = _S_IFDIR | 0o755, 2
            elif kind == "file":
                mode = _S_IFREG | 0o644
            elif kind == "exec":
                mode = _S_IFREG | 0o755
            elif kind == "trailer":
                mode, ino = 0, 0
            else:
                mode, rdev = _S_IFCHR | 0o600, (kind[1], kind[2])
            head = _header(name, mode, len(data), ino, rdev, nlink) + name.encode() + b"\0"
            f.write(head + _pad(len(head)))
            f.write(data + _pad(len(data)))
            ino += 1


def build(out_dir, cc="gcc", torture_s=10, kbuild=None, locks=DEFAULT_LOCKS, rcu=True, extra=()):
    """Build /init with `cc` and write out_dir/initramfs.cpio; returns its path.

    kbuild: a kernel O= build directory whose torture modules go in (none:
    /init reports the torture runs as load-failed, which fails the boot).
    torture_s, locks, rcu: the plan in /katomic.conf, the kernel command line
    (boot.kernel_cmdline) overrides it.  extra: more (name, kind, data) entries
    (the .smp_locks probe module and its parameters, smplocks_boot)."""
    os.makedirs(out_dir, exist_ok=True)
    init = build_init(os.path.join(out_dir, "init"), cc)
    with open(init, "rb") as f:
        init_data = f.read()
    conf = "torture_s=%d locks=%s rcu=%d\n" % (int(torture_s), ",".join(locks) or "-", 1 if rcu else 0)
    entries = [("dev", "dir", b""), ("dev/console", ("chr", 5, 1), b""), ("proc", "dir", b""),
               ("sys", "dir", b""), ("lib", "dir", b""), ("lib/katomic", "dir", b""),
               ("init", "exec", init_data), ("katomic.conf", "file", conf.encode())]
    if kbuild:
        for name, rel in sorted(MODULES.items()):
            src = os.path.join(kbuild, rel)
            if os.path.exists(src):
                with open(src, "rb") as f:
                    entries.append(("lib/katomic/" + name, "file", f.read()))
    entries.extend(extra)
    out = os.path.join(out_dir, "initramfs.cpio")
    write_cpio(out, entries)
    return out
