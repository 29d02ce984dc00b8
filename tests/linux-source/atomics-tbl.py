#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every operation and ordering variant of the kernel's own atomics table is katomic's.

Usage: atomics-tbl.py KERNEL_TBL OUR_TBL NAMES_H...
  KERNEL_TBL  scripts/atomic/atomics.tbl of a kernel source tree (extracted at
              test time, never copied into the project)
  OUR_TBL     gen/atomics.tbl
  NAMES_H     include/katomic/generated/names-atomic.h (the public names made
              from OUR_TBL) and names-stdatomic.h (those also in <stdatomic.h>)

For each operation of the kernel's table: katomic's table has it, its letters
give every function and ordering variant the kernel's give (the letters mean
the same in both tables), with the same argument types in the same order; and
for atomic_t, atomic64_t and atomic_long_t each function the kernel's letters
expand to is a public name.  Prints TAP and a summary; exits 1 when the
kernel's table has an operation, variant or argument we lack, 2 on a file that
cannot be read or parsed (one line naming file, line and what is wrong).
"""
import re
import sys

# The kernel's meta letters (scripts/atomic/atomics.tbl header), and ours (gen/atomics.tbl).
ORDERS = {"R": ["", "_acquire", "_release", "_relaxed"], "F": ["", "_acquire", "_release", "_relaxed"],
          "I": ["", "_acquire", "_release", "_relaxed"], "B": ["", "_acquire", "_release", "_relaxed"],
          "l": ["", "_acquire"], "s": ["", "_release"], "v": [""], "f": [""], "i": [""], "b": [""]}
TYPES = ["atomic", "atomic64", "atomic_long"]
ARG = re.compile(r"^(cv|v|i|p)(:[A-Za-z_]+)?$")


class BadInput(Exception):
    pass


def functions(op, meta):
    """The function names (without the atomic*_ prefix) an op's letters stand for."""
    out = []
    for m in meta:
        base = op + "_return" if m == "R" else "fetch_" + op if m in "Ff" else op
        out += [base + o for o in ORDERS[m]]
    return out


def parse(path, sep):
    """{op: (meta, [arg types], line)} from a table: sep None = whitespace (kernel), '|' (ours)."""
    ops = {}
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror))
    for no, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = [x.strip() for x in (line.split(sep) if sep else line.split())]
        if len(f) < 2:
            raise BadInput("%s:%d: expected an operation name and its letters" % (path, no))
        op, meta, args = f[0], f[1], (f[2].split() if sep else f[2:])
        if not re.match(r"^[a-z_]+$", op):
            raise BadInput("%s:%d: bad operation name '%s'" % (path, no, op))
        if not meta or any(m not in ORDERS for m in meta):
            raise BadInput("%s:%d: unknown family letter in '%s'" % (path, no, meta))
        for a in args:
            if not ARG.match(a):
                raise BadInput("%s:%d: bad argument '%s'" % (path, no, a))
        if op in ops:
            raise BadInput("%s:%d: operation '%s' listed twice" % (path, no, op))
        ops[op] = (meta, [a.split(":")[0] for a in args], no)
    if not ops:
        raise BadInput("%s: no operations" % path)
    return ops


def public_names(paths):
    names = set()
    for path in paths:
        try:
            text = open(path, encoding="utf-8").read()
        except OSError as e:
            raise BadInput("%s: cannot read: %s" % (path, e.strerror))
        names |= set(re.findall(r"^#define (atomic\w*)[ (]", text, re.M))
    return names


def main():
    if len(sys.argv) < 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    ktbl, otbl, names_h = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        kernel, ours, names = parse(ktbl, None), parse(otbl, "|"), public_names(names_h)
    except BadInput as e:
        print("atomics-tbl: %s" % e, file=sys.stderr)
        return 2
    n = failed = nfuncs = 0
    for op, (kmeta, kargs, kline) in kernel.items():
        n += 1
        problems = []
        if op not in ours:
            problems.append("not in %s" % otbl)
        else:
            meta, args, line = ours[op]
            missing = [f for f in functions(op, kmeta) if f not in functions(op, meta)]
            if missing:
                problems.append("%s:%d has letters '%s', the kernel '%s': lacks %s" % (
                    otbl, line, meta, kmeta, ", ".join(missing)))
            if args != kargs:
                problems.append("arguments %s, the kernel's %s" % (" ".join(args), " ".join(kargs)))
        funcs = ["%s_%s" % (t, f) for t in TYPES for f in functions(op, kmeta)]
        nfuncs += len(funcs)
        absent = [f for f in funcs if f not in names]
        if absent:
            problems.append("no public name for %s" % ", ".join(absent))
        if problems:
            failed += 1
            print("not ok %d - %s (%s:%d, %s %s): %s" % (n, op, ktbl, kline, kmeta, " ".join(kargs),
                                                           "; ".join(problems)))
        else:
            print("ok %d - %s: letters %s, arguments %s: %d functions on 3 types present" % (
                n, op, kmeta, " ".join(kargs) or "-", len(funcs)))
    extra = sorted(set(ours) - set(kernel))
    print("1..%d" % n)
    print("# kernel table: %d operations, %d functions on atomic_t/atomic64_t/atomic_long_t" % (len(kernel), nfuncs))
    print("# katomic-only operations: %s" % (", ".join(extra) if extra else "none"))
    print("atomics-tbl: %d of %d kernel operations complete in katomic, %d lacking" % (n - failed, n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
