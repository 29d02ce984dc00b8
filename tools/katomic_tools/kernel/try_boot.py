"""Boot one kernel build by hand, as `katomic kernel` does, and judge it.

  PYTHONPATH=tools python3 -m katomic_tools.kernel.try_boot KBUILD [--smp S]...
        [--torture-s N] [--locks a,b,c] [--no-rcu] [--deadline S] [--out DIR] [--cc CC]

KBUILD is a kernel O= build directory (arch/x86/boot/bzImage and the torture
modules).  Boots once per --smp (default: 2, then 1), prints one summary
line per boot and the problems of a failed one, keeps each console log in
DIR (default KBUILD/katomic-boot/), writes DIR/boots.json (the "boots" items
of kernel.json without config/cc/variant).  Exit status 0 if every boot
passed, 1 if one failed, 2 on a usage error.  docs/kernel-boot.md.
"""
import json
import os
import sys

from . import KernelError, boot, initramfs, judge


def die(msg):
    print("try_boot: " + msg, file=sys.stderr)
    sys.exit(2)


def parse(argv):
    a = {"smp": [], "torture_s": 10, "locks": list(initramfs.DEFAULT_LOCKS), "rcu": True,
         "deadline": None, "out": None, "cc": "gcc", "kbuild": None}
    it = iter(argv)
    for arg in it:
        if arg in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if arg == "--no-rcu":
            a["rcu"] = False
            continue
        if arg.startswith("--"):
            val = next(it, None)
            if val is None:
                die("%s needs a value" % arg)
            if arg == "--smp":
                a["smp"].append(val)
            elif arg in ("--torture-s", "--deadline"):
                if not val.isdigit():
                    die("%s: not a number of seconds: %s" % (arg, val))
                a[arg[2:].replace("-", "_")] = int(val)
            elif arg == "--locks":
                a["locks"] = [x for x in val.split(",") if x and x != "-"]
            elif arg in ("--out", "--cc"):
                a[arg[2:]] = val
            else:
                die("unknown option %s" % arg)
        elif a["kbuild"] is None:
            a["kbuild"] = arg
        else:
            die("one KBUILD directory only")
    if not a["kbuild"]:
        die("no KBUILD directory (see --help)")
    return a


def deadline_for(torture_s, tests):
    """Generous under TCG on a loaded 2-CPU machine: boot, module loads, torture."""
    return 120 + tests * (torture_s + 15) * 3


def main(argv):
    a = parse(argv)
    kb = a["kbuild"]
    bz = os.path.join(kb, "arch", "x86", "boot", "bzImage")
    if not os.path.isfile(bz):
        die("%s: no such file (build the kernel first)" % bz)
    out = a["out"] or os.path.join(kb, "katomic-boot")
    try:
        rd = initramfs.build(out, a["cc"], a["torture_s"], kb, a["locks"], a["rcu"])
    except KernelError as e:
        die(str(e))
    tests = (len(a["locks"]) + a["rcu"]) if a["torture_s"] else 0
    deadline = a["deadline"] or deadline_for(a["torture_s"], tests)
    recs, bad = [], 0
    for smp in a["smp"] or ["2", "1"]:
        log = os.path.join(out, "console-smp%s.log" % smp.replace(",", "-").replace("=", ""))
        append = boot.kernel_cmdline(a["torture_s"], int(smp.split(",")[0]), a["locks"], a["rcu"])
        res = boot.run(bz, rd, smp, deadline, log, append)
        with open(log, encoding="utf-8", errors="replace") as f:
            rec = judge.verdict(res, judge.console(f.read()))
        rec["torture_s"] = a["torture_s"]
        recs.append(rec)
        print(judge.summary_line(rec))
        for p in rec["problems"]:
            print("  - " + p)
        bad += not rec["passed"]
    with open(os.path.join(out, "boots.json"), "w") as f:
        json.dump(recs, f, indent=2)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
