"""The verdict rules of `katomic report`, in one place (docs/report.md explains them).

Speed (C11 ns/op / asm ns/op, same compiler, measured in the same rounds;
median of the per-round ratios, with their min and max):
  - an op (and mode) is SLOWER when its median > OP_SLOWER and C11 was
    slower in every round (min > 1);
  - a workload (threads <= CPUs) is SLOWER when its median > WORKLOAD_SLOWER
    and C11 was slower in every round; oversubscribed workload points
    measure the scheduler and are not judged;
  - C11 is AS FAST with a compiler when the geometric mean of its per-op
    medians is <= AS_FAST.

The answer, first rule that applies:
  NO          the C11 backend showed a forbidden litmus outcome on this CPU,
              or a probe compiles to code WEAKER than the kernel's ordering
              on this machine's architecture, or (kernel results present)
              the Linux kernel built on the C11 atomics failed a boot the
              stock kernel passed;
  NOT YET     C11 is correct, but not AS FAST with some benchmarked compiler;
  INCOMPLETE  a stage failed, was skipped or could not run, or a kernel
              build or boot failed for the stock kernel too (nothing else wrong);
  YES         otherwise; the line also names the op families that still lose
              instructions, every SLOWER op or workload (a geometric mean can
              hide one), and WEAKER probes on other targets.
With kernel results, every answer line ends with what the kernel showed.
"""
import math
import re

# spinlock_t against glibc's pthread_mutex_t (issue 11; docs/spinlock.md), on
# LOCK_WORKLOAD with a thread per CPU and twice as many: throughput / mutex at
# least LOCK_AS_FAST (median) and, with threads outnumbering CPUs, above
# LOCK_FLOOR in every round; fairness (min/max acquisitions per thread) at
# least LOCK_FAIR.  The other lock workloads and thread counts are shown.
LOCK_AS_FAST = 1.0
LOCK_FLOOR = 0.8
LOCK_FAIR = 0.5
LOCK_WORKLOAD = "spinlock_short"
# Fairness is judged over samples this long or longer: over a few scheduler
# time slices (--quick: 12 ms) even the mutex looks unfair.
LOCK_FAIR_MS = 1000

OP_SLOWER = 1.05
WORKLOAD_SLOWER = 1.10
AS_FAST = 1.05


def is_judged_workload(threads, cpus):
    """Workload points with more threads than CPUs are shown, not judged."""
    return cpus is None or threads <= cpus


def is_slower(kind, median, lowest):
    """An op or a judged workload point that is slower than the asm in every round."""
    return median > (OP_SLOWER if kind == "op" else WORKLOAD_SLOWER) and lowest > 1


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def is_as_fast(geometric_mean):
    return geometric_mean <= AS_FAST


def is_judged_lock_point(workload, threads, cpus):
    """The issue's targets: the short critical section with a thread per CPU and twice as many."""
    return workload == LOCK_WORKLOAD and bool(cpus) and threads in (cpus, 2 * cpus)


def judges_fairness(workload_ms):
    return workload_ms >= LOCK_FAIR_MS


def lock_misses(threads, cpus, med, lowest, fair):
    """What a katomic lock figure misses of the targets ([] = none)."""
    out = []
    if med is not None and med < LOCK_AS_FAST:
        out.append("throughput %.2f of the mutex (target %.2f)" % (med, LOCK_AS_FAST))
    if lowest is not None and cpus and threads > cpus and lowest < LOCK_FLOOR:
        out.append("a round at %.2f (floor %.2f)" % (lowest, LOCK_FLOOR))
    if fair is not None and threads > 1 and fair < LOCK_FAIR:
        out.append("fairness %.2f (target %.2f)" % (fair, LOCK_FAIR))
    return out


def exit_status(forbidden_seen, weaker_here, kernel_regressions=0):
    """1 when the report found a correctness problem on this machine, else 0."""
    return 1 if forbidden_seen > 0 or weaker_here > 0 or kernel_regressions > 0 else 0


def answer(f):
    """(ANSWER, line) from the facts `f` (model.Facts)."""
    if f.forbidden_c11 > 0:
        ans, line = "NO", ("NO: the C11 backend showed %d forbidden litmus outcome(s) on this CPU -- it is not "
                           "correct here (see the litmus section)" % f.forbidden_c11)
    elif f.weaker_native > 0:
        ans, line = "NO", ("NO: %d probe(s) compile to code WEAKER than the kernel's ordering on %s (see the "
                           "codegen section)" % (f.weaker_native, f.native))
    elif f.kernel is not None and f.kernel.c11_regressions:
        ans, line = "NO", "NO: " + f.kernel.phrase()
    elif f.speed and not all(is_as_fast(g) for _, g in f.speed):
        ans, line = "NOT YET", "NOT YET: C11 is correct here but slower than the asm (C11/asm geomean %s)" % f.speed_list()
    elif f.missing:
        ran = []
        if f.codegen_ok:
            ran.append("%d WEAKER probes" % f.weaker_native)
        if f.litmus_ok and f.litmus_runs_ok:
            ran.append("%d forbidden outcomes in %d litmus runs" % (f.forbidden, f.litmus_tests))
        if f.speed:
            ran.append("C11/asm " + f.speed_list())
        ans = "INCOMPLETE"
        line = "INCOMPLETE: %s, but %s" % ("nothing wrong in what ran (%s)" % ", ".join(ran) if ran else "nothing ran",
                                           ", ".join(f.missing))
    else:
        ans = "YES"
        line = ("YES on this %s: C11 is as correct as the asm (%d forbidden outcomes in %d litmus runs, %d WEAKER "
                "probes) and as fast (C11/asm %s)" % (f.native, f.forbidden, f.litmus_tests, f.weaker_native, f.speed_list()))
        if f.code_loss_families:
            line += "; a few instructions lost in %d op families (above)" % f.code_loss_families
        if f.slower_names:
            line += "; but slower than the asm in every round on: %s (above)" % ", ".join(f.slower_names)
    if f.forbidden_asm > 0:
        line += "; the asm backend also showed %d forbidden outcome(s): check the runner and the CPU" % f.forbidden_asm
    if f.weaker_elsewhere:
        line += "; elsewhere: WEAKER probes: " + ", ".join(f.weaker_elsewhere)
    if f.kernel is not None and not (ans == "NO" and f.kernel.c11_regressions):
        line += "; " + f.kernel.phrase()
    return ans, line


def cell_colour(header, cell):
    """index.html: red for WEAKER / forbidden / failed > 0, amber for worse > 0 or a
    C11/asm figure above AS_FAST, green for one at or below it."""
    if any(w in header for w in ("WEAKER", "forbidden", "failed")) and leading_number(cell) > 0:
        return " bad"
    if header.startswith("worse") and leading_number(cell) > 0:
        return " warn"
    if ("C11/asm" in header or "workloads" in header) and re.fullmatch(r"[0-9.]+", cell):
        return " warn" if leading_number(cell) > AS_FAST else " good"
    return ""


def leading_number(s):
    """The number a cell starts with ("3 of 15" -> 3), 0 if none."""
    m = re.match(r"\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)", s)
    return float(m.group(0)) if m else 0.0


# The Linux kernel on katomic's C11 atomics (docs/kernel-boot.md): each torture
# test runs at least KERNEL_TORTURE_S seconds in a full run; a C11 boot that
# fails where the stock kernel (same config, compiler, -smp) passed makes the
# answer NO; other failed builds or boots make it INCOMPLETE.
KERNEL_TORTURE_S = 60
