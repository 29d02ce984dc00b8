"""check-bench: every benchmark kernel sits where bench/bench.mk puts it.

  nm -S build/katomic-bench | python3 -m katomic_tools.bench.placement

Prints one TAP line without its number: every kernel (kb_k_*, not gcc's
.cold parts) must start on a 64-byte line and end in the 4 KiB page it
starts in (-falign-functions=512 and kernels under 512 bytes), so identical
code sits identically in every contender.
"""
import sys


def check(nm_lines):
    n, bad = 0, []
    for line in nm_lines:
        f = line.split()
        if len(f) != 4 or not f[3].startswith("kb_k_") or "." in f[3]:
            continue
        n += 1
        try:
            addr, size = int(f[0], 16), int(f[1], 16)
        except ValueError:
            addr, size = -1, 0
        if addr < 0 or size <= 0 or addr % 64 or addr // 4096 != (addr + size - 1) // 4096:
            bad.append("%s@%s+%s" % (f[3], f[0], f[1]))
    if not n:
        return "not ok - kernel placement: no kb_k_* symbols (stripped?)"
    if bad:
        return "not ok - kernel placement: %d of %d kernels off a line or across a page: %s" % (len(bad), n, " ".join(bad[:3]))
    return "ok - kernel placement: %d kernels, each on a 64-byte line and within one 4 KiB page" % n


if __name__ == "__main__":
    print(check(sys.stdin))
