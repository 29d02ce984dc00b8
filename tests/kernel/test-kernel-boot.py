#!/usr/bin/env python3
"""make check-kernel-boot: the boot side of `katomic kernel` without a kernel (TAP).

judge.console() on synthetic console snippets written here in the shape of
linux-source-6.12's printk formats (a pass; each kind of failure; a log cut
short; a built-in torture test), the initramfs writer (read back by our own
parser and, when installed, by cpio), /init built warning-free by every
compiler, and boot.run()'s outcomes against stand-in qemu scripts (powers
off, hangs past the deadline, fails to start).

  test-kernel-boot.py CC...
"""
import os
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap  # noqa: E402
from katomic_tools.kernel import boot, initramfs, judge  # noqa: E402

t = Tap()

# ------------------------------------------------------------ synthetic logs
HEAD = """\
[    0.000000] Linux version 6.12.57-katomic (root@host) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP
[    0.000000] Command line: console=ttyS0 panic=-1 katomic.torture_s=10
[    0.101000] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks, data leaks possible!
[    0.510000] test_bitops: Starting bitops test
[    0.511000] test_bitops: Completed bitops test
[    0.520000] atomic64_test: passed for x86-64 platform with CX8 and with SSE
[    0.800000] Run /init as init process
katomic-init: start
katomic-init: kernel 6.12.57-katomic #1 SMP x86_64
katomic-init: cpus online 2 (0-1)
katomic-init: plan torture_s=10 locks=spin_lock,mutex_lock rcu=1
"""


def lock_run(ttype, fail=0, end="SUCCESS", seconds="10.0"):
    s = ("katomic-init: torture locktorture %s start 10 s\n"
         "[    1.0] torture module --- %s:  disable_onoff_at_boot=0 ftrace_dump_at_shutdown=0\n"
         "[    1.0] %s-torture:--- Start of test: acq_writer_lim=0 bind_readers=0-1 nwriters_stress=4\n"
         "[    1.1] %s-torture: Creating torture_shuffle task\n"
         "[    6.0] Writes:  Total: 51234  Max/Min: 13000/12000   Fail: 0 \n" % (ttype, ttype, ttype, ttype))
    if "rw" in ttype:
        s += "[    6.0] Reads :  Total: 40000  Max/Min: 11000/9000 ???  Fail: 0 \n"
    if end:
        s += "[   11.0] Writes:  Total: 99999  Max/Min: 25000/24000   Fail: %d %s\n" % (
            fail, "!!!" if fail else "")
        s += "[   11.0] %s-torture:--- End of test: %s: acq_writer_lim=0 nwriters_stress=4\n" % (ttype, end)
        s += "katomic-init: torture locktorture %s ran %s s\n" % (ttype, seconds)
    return s


def rcu_run(bang=False, end="SUCCESS"):
    s = ("katomic-init: torture rcutorture rcu start 10 s\n"
         "[   12.0] rcu-torture:--- Start of test: nreaders=1 nfakewriters=4 stat_interval=10\n"
         "[   17.0] rcu-torture: rtc: 00000000a1b2c3d4 ver: 900 tfle: 0 rta: 901 rtaf: 0 rtf: 890 "
         "rtmbe: 0 rtmbkf: 0/0 rtbe: 0 rtbke: 0 rtbf: 0 rtb: 0 nt: 3000 barrier: 10/10:0\n"
         "[   17.0] rcu-torture: %sReader Pipe:  40000 300 0 0 0 0 0 0 0 0 0\n"
         "[   17.0] rcu-torture: Reader Batch:  39000 1300 0 0 0 0 0 0 0 0 0\n" % ("!!! " if bang else ""))
    if end:
        s += "[   22.0] rcu-torture:--- End of test: %s: nreaders=1 nfakewriters=4\n" % end
        s += "katomic-init: torture rcutorture rcu ran 10.1 s\n"
    return s


TAIL = "katomic-init: done torture runs 3 failed 0\n[   23.0] reboot: Power down\n"
GOOD = HEAD + lock_run("spin_lock") + lock_run("rwsem_lock") + rcu_run() + TAIL


def judged(text):
    return judge.console(text)


def problems_has(r, word):
    return any(word in p for p in r["problems"])


r = judged(GOOD)
t.check(r["passed"] and r["problems"] == [], "a clean log passes (RETBleed's WARNING note is not a splat)")
t.check(r["reached_init"] and r["finished"] and r["cpus"] == 2 and r["kernel"] == "6.12.57-katomic",
        "init reached and finished, 2 CPUs, the kernel version")
t.check([s["status"] for s in r["selftests"]] == ["pass", "pass"], "atomic64_test and test_bitops pass")
t.check([(x["name"], x["type"], x["status"], x["errors"]) for x in r["torture"]] ==
        [("locktorture", "spin_lock", "pass", 0), ("locktorture", "rwsem_lock", "pass", 0),
         ("rcutorture", "rcu", "pass", 0)], "three torture runs, in order, 0 errors")
t.check(r["torture"][2]["seconds"] == 10.1, "the seconds /init measured")
t.check(judged(GOOD.replace("\n", "\r\n"))["passed"], "serial \\r\\n line ends")

r = judged(GOOD.replace("atomic64_test: passed for x86-64 platform with CX8 and with SSE\n", ""))
t.check(not r["passed"] and r["selftests"][0]["status"] == "missing", "no atomic64_test line: fails (missing)")

r = judged(GOOD.replace("Completed bitops test", "ERROR: FOUND SET BIT 17"))
t.check(not r["passed"] and r["selftests"][1]["status"] == "fail", "test_bitops ERROR: fails")
r = judged(GOOD.replace("[    0.511000] test_bitops: Completed bitops test\n",
                        "[    0.511000] test_bitops: get_count_order wrong for 80000\n"
                        "[    0.511000] test_bitops: Completed bitops test\n"))
t.check(not r["passed"] and r["selftests"][1]["status"] == "fail", "get_count_order wrong, then Completed: still fails")

r = judged(HEAD + lock_run("spin_lock", fail=1, end="FAILURE") + TAIL)
t.check(not r["passed"] and r["torture"][0]["status"] == "fail" and r["torture"][0]["errors"] == 1,
        "locktorture Fail: 1 and End of test: FAILURE: fails, 1 error")
r = judged(HEAD + lock_run("spin_lock", fail=1, end="SUCCESS") + TAIL)
t.check(not r["passed"] and r["torture"][0]["status"] == "fail", "a Fail: 1 line fails even with SUCCESS")
r = judged(HEAD + lock_run("spin_lock", end="LOCK_HOTPLUG") + TAIL)
t.check(not r["passed"] and problems_has(r, "LOCK_HOTPLUG"), "End of test: LOCK_HOTPLUG fails")
r = judged(HEAD + rcu_run(bang=True, end="FAILURE") + TAIL)
t.check(not r["passed"] and r["torture"][0]["errors"] == 1, "rcutorture !!! Reader Pipe: 1 error, fails")

r = judged(HEAD + "katomic-init: torture locktorture mutex_lock start 10 s\n"
           "katomic-init: torture locktorture mutex_lock load-failed: No such file or directory\n" + TAIL)
t.check(not r["passed"] and problems_has(r, "load-failed"), "a torture module that did not load fails")

# Truncated: the log ends inside the second torture run (a hang killed at the deadline).
cut = HEAD + lock_run("spin_lock") + lock_run("mutex_lock", end=None)
r = judged(cut)
t.check(not r["passed"] and r["torture"][1]["status"] == "incomplete" and not r["finished"]
        and problems_has(r, "did not finish"), "a log cut short: incomplete torture, /init did not finish")
r = judged(GOOD[:GOOD.index("Run /init")])
t.check(not r["passed"] and not r["reached_init"] and problems_has(r, "init not reached"),
        "a log that ends before /init: init not reached")
t.check(not judged("")["passed"], "an empty log fails")

SPLATS = {
    "WARN": "[    3.0] ------------[ cut here ]------------\n[    3.0] WARNING: CPU: 1 PID: 42 at "
            "kernel/locking/mutex.c:580 __mutex_lock+0x1/0x2\n",
    "BUG": "[    3.0] BUG: kernel NULL pointer dereference, address: 0000000000000008\n",
    "Oops": "[    3.0] Oops: 0002 [#1] PREEMPT SMP NOPTI\n",
    "soft lockup": "[   30.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:1]\n",
    "lockdep": "[    3.0] WARNING: possible recursive locking detected\n",
    "lockdep INFO": "[    3.0] INFO: possible circular locking dependency detected\n",
    "RCU stall": "[   30.0] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:\n",
    "panic": "[    3.0] Kernel panic - not syncing: Fatal exception\n",
    "Call Trace": "[    3.0] Call Trace:\n[    3.0]  <TASK>\n",
    "kernel BUG": "[    3.0] kernel BUG at lib/atomic64_test.c:42!\n",
}
for what, snippet in SPLATS.items():
    r = judged(GOOD.replace("katomic-init: done", snippet + "katomic-init: done"))
    t.check(not r["passed"] and r["splats"] and problems_has(r, "splat"), "a splat fails the boot: " + what)

r = judged(GOOD.replace("[    0.800000] Run /init",
                        "[    0.7] Good, all 262 testcases passed! |\n[    0.800000] Run /init"))
t.check(r["passed"] and r["selftests"][2] == {"name": "locking-selftest", "status": "pass",
                                              "detail": "262 testcases passed"},
        "locking self-tests: Good, all N testcases passed")
r = judged(GOOD.replace("[    0.800000] Run /init",
                        "[    0.7] BUG:   3 unexpected failures (out of 262) - debugging disabled! |\n"
                        "[    0.800000] Run /init"))
t.check(not r["passed"] and r["selftests"][2]["status"] == "fail", "locking self-tests: unexpected failures")

# A built-in torture test (no /init lines around it) is still found and judged.
builtin = HEAD + ("[ 1.0] spin_lock-torture:--- Start of test: nwriters_stress=4\n"
                  "[ 9.0] Writes:  Total: 5  Max/Min: 3/2   Fail: 0 \n"
                  "[ 9.0] spin_lock-torture:--- End of test: SUCCESS: nwriters_stress=4\n") + TAIL
r = judged(builtin)
t.check(r["passed"] and r["torture"] == [{"name": "locktorture", "type": "spin_lock", "seconds": None,
                                          "errors": 0, "status": "pass"}], "a built-in locktorture run")

# verdict(): the boot outcome counts too.
base = {"outcome": "poweroff", "accel": "tcg", "seconds": 20.0, "log": "x.log", "cmdline": "",
        "smp": "2", "deadline_s": 120}
t.check(judge.verdict(base, judged(GOOD))["passed"], "verdict: poweroff + clean log passes")
v = judge.verdict(dict(base, outcome="deadline"), judged(GOOD))
t.check(not v["passed"] and v["problems"][0].startswith("hung: killed at the 120 s deadline"),
        "verdict: a deadline fails even with a clean-looking log")
v = judge.verdict(dict(base, outcome="qemu-error", error="qemu: could not load kernel"), judged(""))
t.check(not v["passed"] and "could not load kernel" in v["problems"][0], "verdict: qemu-error fails")
t.check(judge.summary_line(v).startswith("FAIL smp=2"), "summary line: FAIL first")

# ------------------------------------------------------------ command line
line = boot.kernel_cmdline(60, 2, locks=("spin_lock", "mutex_lock"), rcu=False)
t.check(line == "katomic.torture_s=60 katomic.locks=spin_lock,mutex_lock katomic.rcu=0", "kernel_cmdline")
t.check(boot.kernel_cmdline(0, 1, locks=()) == "katomic.torture_s=0 katomic.locks=- katomic.rcu=1",
        "kernel_cmdline: no lock types")


# ------------------------------------------------------------ initramfs
def read_newc(path):
    """Our own reader: [(name, mode, rdevmajor, rdevminor, data)]."""
    out, data = [], open(path, "rb").read()
    pos = 0
    while True:
        h = data[pos:pos + 110]
        if h[:6] != b"070701":
            raise ValueError("bad magic at %d" % pos)
        f = [int(h[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        nsz, fsz = f[11], f[6]
        name = data[pos + 110:pos + 110 + nsz - 1].decode()
        pos = (pos + 110 + nsz + 3) & ~3
        body = data[pos:pos + fsz]
        pos = (pos + fsz + 3) & ~3
        if name == "TRAILER!!!":
            return out
        out.append((name, f[1], f[9], f[10], body))


with tempfile.TemporaryDirectory() as tmp:
    p = os.path.join(tmp, "a.cpio")
    initramfs.write_cpio(p, [("dev", "dir", b""), ("dev/console", ("chr", 5, 1), b""),
                             ("x", "file", b"abcde"), ("init", "exec", b"\x7fELF")])
    ents = read_newc(p)
    t.check([(n, oct(m)) for n, m, *_ in ents] == [("dev", "0o40755"), ("dev/console", "0o20600"),
                                                   ("x", "0o100644"), ("init", "0o100755")],
            "newc: names and modes read back")
    t.check(ents[1][2:4] == (5, 1) and ents[2][4] == b"abcde", "newc: device numbers and file data")
    if subprocess.run(["sh", "-c", "command -v cpio"], stdout=subprocess.DEVNULL).returncode == 0:
        ls = subprocess.run(["cpio", "-it", "--quiet"], stdin=open(p, "rb"), stdout=subprocess.PIPE,
                            universal_newlines=True).stdout.split()
        t.check(ls == ["dev", "dev/console", "x", "init"], "newc: GNU cpio lists the archive")
    else:
        print("# cpio not installed: the archive is checked by our reader only")

    for cc in sys.argv[1:]:
        out = os.path.join(tmp, "init-" + cc)
        try:
            initramfs.build_init(out, cc)
            ok, note = os.access(out, os.X_OK), ""
        except initramfs.Error as e:
            ok, note = False, str(e)
        t.check(ok, "/init builds static with %s %s" % (cc, note))
        w = subprocess.run([cc, "-static", "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o",
                            out, initramfs.init_source()], stderr=subprocess.PIPE, universal_newlines=True)
        t.check(w.returncode == 0, "/init is warning-free with %s %s" % (cc, w.stderr.strip()[:200]))
    if sys.argv[1:]:
        cc = sys.argv[1]
        kb = os.path.join(tmp, "kbuild", "kernel", "locking")
        os.makedirs(kb)
        open(os.path.join(kb, "locktorture.ko"), "wb").write(b"module")
        path = initramfs.build(os.path.join(tmp, "ir"), cc, torture_s=7, kbuild=os.path.join(tmp, "kbuild"),
                               locks=("mutex_lock",), rcu=False)
        ents = {n: body for n, _, _, _, body in read_newc(path)}
        t.check(ents.get("katomic.conf") == b"torture_s=7 locks=mutex_lock rcu=0\n"
                and ents.get("lib/katomic/locktorture.ko") == b"module" and "dev/console" in ents
                and ents.get("init", b"")[:4] == b"\x7fELF",
                "initramfs.build: /init, the plan, the modules found in the build")
    bad = os.path.join(tmp, "no-such-cc")
    try:
        initramfs.build_init(os.path.join(tmp, "i"), bad)
        t.check(False, "a missing compiler is one clear error")
    except initramfs.Error as e:
        t.check("cannot run" in str(e) and "\n" not in str(e), "a missing compiler is one clear error")

    # ------------------------------------------------------------ boot.run
    fake = os.path.join(tmp, "bin")
    os.makedirs(fake)
    q = os.path.join(fake, "qemu-system-x86_64")
    kern, rd = os.path.join(tmp, "bzImage"), os.path.join(tmp, "rd")
    open(kern, "w").close()
    open(rd, "w").close()
    env_path = os.environ["PATH"]
    os.environ["PATH"] = fake + os.pathsep + env_path
    os.environ["KATOMIC_KERNEL_ACCEL"] = "tcg"
    for what, script, outcome in (
            ("powers off", 'echo "Linux version 6.12"; echo "$@"', "poweroff"),
            ("hangs", 'echo "Linux version 6.12"; exec sleep 30', "deadline"),
            ("cannot start", 'echo "qemu-system-x86_64: -kernel: bad" >&2; exit 1', "qemu-error")):
        with open(q, "w") as f:
            f.write("#!/bin/sh\n" + script + "\n")
        os.chmod(q, stat.S_IRWXU)
        log = os.path.join(tmp, "logs", what + ".log")
        res = boot.run(kern, rd, "1,maxcpus=2", 2, log, append="katomic.torture_s=1")
        text = open(log).read()
        t.check(res["outcome"] == outcome and res["accel"] == "tcg" and "Linux version" in text
                if outcome != "qemu-error" else res["outcome"] == outcome and "bad" in res["error"]
                and "[qemu stderr]" in text, "boot.run: a guest that %s -> %s, log kept" % (what, outcome))
        if outcome == "poweroff":
            t.check("-smp 1,maxcpus=2" in text and "console=ttyS0 panic=-1 katomic.torture_s=1" in text
                    and "-no-reboot" in text, "boot.run: -smp string, -no-reboot, the command line")
        if outcome == "deadline":
            t.check(res["seconds"] < 10, "boot.run: the deadline kills the hung guest (%.1f s)" % res["seconds"])
    res = boot.run(os.path.join(tmp, "nope"), rd, "2", 5, os.path.join(tmp, "n.log"))
    t.check(res["outcome"] == "qemu-error" and "no such file" in res["error"], "boot.run: a missing kernel")
    os.environ["PATH"] = env_path

sys.exit(t.summary())
