"""The C compilers on PATH (gcc, gcc-N, clang, clang-N)."""
import os
import re
import shutil
import subprocess


def _names_on_path(pattern):
    names = set()
    for d in os.environ.get("PATH", "").split(":"):
        try:
            for n in os.listdir(d or "."):
                if re.fullmatch(pattern, n):
                    names.add(n)
        except OSError:
            pass
    return names


def version_sort_key(name):
    """gcc-11 < gcc-12 < clang-13 ... by family, then version (plain names last)."""
    family, _, ver = name.partition("-")
    return (family, int(ver) if ver.isdigit() else 1 << 30, name)


def audit_compilers():
    """Every gcc-N / clang-N on PATH by family and version, then plain gcc and
    clang when they are another compiler (not a link to one already listed)."""
    versioned = sorted(_names_on_path(r"(gcc|clang)-[0-9]+"), key=lambda n: (n.split("-")[0], int(n.split("-")[1])))
    seen, out = set(), []
    for c in versioned + ["gcc", "clang"]:
        p = shutil.which(c)
        if not p:
            continue
        real = os.path.realpath(p)
        if real in seen:
            continue
        seen.add(real)
        out.append(c)
    return out


def dump_version(cc):
    """`cc -dumpversion` (first line), or "?"."""
    try:
        out = subprocess.run(cc.split() + ["-dumpversion"], capture_output=True, text=True, timeout=30).stdout
        return out.splitlines()[0].strip() or "?"
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def installed_compilers():
    """[{name, version, path}] for every gcc, gcc-N, clang, clang-N on PATH (by name)."""
    out = []
    for c in sorted(_names_on_path(r"(gcc|clang)(-[0-9]+)?")):
        p = shutil.which(c)
        if p:
            out.append({"name": c, "version": dump_version(c), "path": os.path.realpath(p)})
    return out
