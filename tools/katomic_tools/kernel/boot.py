"""Boot one kernel under qemu-system-x86_64 with a hard deadline (docs/kernel-boot.md).

qemu always runs under `timeout -s KILL`: a guest that hangs (nested KVM hangs
before the kernel prints anything on some hosts, and qemu then ignores
SIGTERM) is killed at the deadline and its console log is kept.  KVM is used
only when a short probe boot under KVM printed the kernel's banner; the
probe's answer is kept for the rest of the process.  KATOMIC_KERNEL_ACCEL=tcg
or =kvm skips the probe."""
import os
import shutil
import subprocess
import time

from .initramfs import DEFAULT_LOCKS

QEMU = {"x86_64": "qemu-system-x86_64", "arm64": "qemu-system-aarch64",
        "riscv64": "qemu-system-riscv64"}
# `--arch`: the machine, its serial console, and the firmware (riscv64: Debian's
# OpenSBI, package opensbi; arm64 virt boots the Image directly, PSCI in qemu).
MACHINE = {"x86_64": [], "arm64": ["-M", "virt", "-cpu", "max"],
           "riscv64": ["-M", "virt", "-bios", "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin"]}
CONSOLE = {"x86_64": "ttyS0", "arm64": "ttyAMA0", "riscv64": "ttyS0"}
# An early console on the virt machine's UART, so that a kernel that stops
# before its serial driver binds still says why (riscv64: SBI's console is
# not there, Debian's OpenSBI 1.2 has no DBCN and the kernel no SBI v0.1).
EARLYCON = {"x86_64": "", "arm64": "earlycon=pl011,mmio32,0x9000000",
            "riscv64": "earlycon=uart8250,mmio,0x10000000"}
# Under TCG on a loaded host a vCPU thread can go unscheduled for longer than
# RCU's default 21 s stall timeout: a stall warning then reports the host, not
# the kernel.  60 s keeps a real stall (a lock that never comes free) visible.
TCG_APPEND = "rcupdate.rcu_cpu_stall_timeout=60"
# The IO-APIC timer check counts ticks against a busy-wait: on a starved vCPU
# it fails and the kernel panics ("IO-APIC + timer doesn't work!"), seen here
# under TCG at load 30.  Virtual machines boot with it off.
VM_APPEND = "no_timer_check"
PROBE_S = 8                 # a KVM boot prints its banner well within this
_accel_cache = {}


def kernel_cmdline(torture_s, smp_cpus, locks=DEFAULT_LOCKS, rcu=True):
    """The katomic.* words /init reads: torture seconds per test, the
    locktorture types in order, rcutorture or not.  smp_cpus is not needed:
    the torture tests size their thread counts from the CPUs online."""
    del smp_cpus
    return "katomic.torture_s=%d katomic.locks=%s katomic.rcu=%d" % (
        int(torture_s), ",".join(locks) or "-", 1 if rcu else 0)


def _qemu_base(arch, accel, bzimage, smp):
    return ["timeout", "-s", "KILL"], [QEMU[arch]] + MACHINE[arch] + [
        "-accel", accel, "-m", "512", "-smp", smp, "-nographic", "-no-reboot", "-kernel", bzimage]


def kvm_works(bzimage, arch="x86_64"):
    """Whether a KVM guest gets as far as the kernel's banner (cached)."""
    if arch in _accel_cache:
        return _accel_cache[arch]
    ok = False
    if arch == "x86_64" and os.access("/dev/kvm", os.R_OK | os.W_OK) and shutil.which(QEMU[arch]):
        pre, q = _qemu_base(arch, "kvm", bzimage, "1")
        cmd = pre + [str(PROBE_S)] + q + ["-append", "console=ttyS0 panic=-1 rdinit=/katomic-probe"]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            ok = b"Linux version" in p.stdout
        except OSError:
            ok = False
    _accel_cache[arch] = ok
    return ok


def choose_accel(bzimage, arch="x86_64"):
    forced = os.environ.get("KATOMIC_KERNEL_ACCEL", "")
    if forced in ("tcg", "kvm"):
        return forced
    return "kvm" if kvm_works(bzimage, arch) else "tcg"


def run(bzimage, initrd, smp, deadline_s, log_path, append="", arch="x86_64", accel=None):
    """Boot; the console goes to log_path.  Returns
    {"outcome": "poweroff"|"deadline"|"qemu-error", "accel", "seconds", "log",
     "cmdline", "smp", "deadline_s", "error" (qemu-error only)}.
    poweroff only says the guest stopped by itself: judge.console() says
    whether it got there by passing."""
    if arch not in QEMU:
        raise ValueError("no qemu for arch %r" % arch)
    accel = accel or choose_accel(bzimage, arch)
    cmdline = " ".join(w for w in ("console=%s panic=-1" % CONSOLE[arch], EARLYCON[arch], append,
                                   VM_APPEND if arch == "x86_64" else "",
                                   TCG_APPEND if accel == "tcg" else "") if w)
    res = {"outcome": "qemu-error", "accel": accel, "seconds": 0.0, "log": log_path,
           "cmdline": cmdline, "smp": smp, "deadline_s": int(deadline_s)}
    for what, path in (("kernel", bzimage), ("initrd", initrd)):
        if not os.path.isfile(path):
            res["error"] = "%s %s: no such file" % (what, path)
            return res
    if not shutil.which(QEMU[arch]) or not shutil.which("timeout"):
        res["error"] = "%s or timeout not found (apt-get install qemu-system-%s coreutils)" % (
            QEMU[arch], {"x86_64": "x86", "arm64": "arm", "riscv64": "misc"}[arch])
        return res
    fw = MACHINE[arch][MACHINE[arch].index("-bios") + 1] if "-bios" in MACHINE[arch] else None
    if fw and not os.path.isfile(fw):
        res["error"] = "%s: no such file (apt-get install opensbi)" % fw
        return res
    pre, q = _qemu_base(arch, accel, bzimage, smp)
    cmd = pre + [str(int(deadline_s))] + q + ["-initrd", initrd, "-append", cmdline]
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.PIPE)
    res["seconds"] = round(time.monotonic() - t0, 2)
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode in (137, -9):       # timeout -s KILL: the deadline passed
        res["outcome"] = "deadline"
    elif p.returncode == 0:
        res["outcome"] = "poweroff"
    else:
        res["error"] = (err.splitlines() or ["qemu exited with status %d" % p.returncode])[0]
    if err:
        with open(log_path, "a") as log:
            log.write("\n[qemu stderr] " + err.replace("\n", "\n[qemu stderr] ") + "\n")
    return res
