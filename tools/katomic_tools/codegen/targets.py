"""The audit's targets: how to compile and disassemble the probes for each,
and which Debian package supplies a missing tool."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str       # what --target takes
    triple: str     # GNU triple: <triple>-gcc, <triple>-objdump, /usr/<triple>
    arch: str       # the disassembly's architecture (isa.py)
    isa: str        # kernel-seq.tbl's isa column: aarch64 llsc or lse, else *
    flags: str      # extra compiler flags
    debian: str     # the Debian architecture name of the cross libc (libc6-dev-<debian>-cross)


TARGETS = (
    Target("x86_64", "x86_64-linux-gnu", "x86_64", "*", "", "amd64"),
    Target("aarch64", "aarch64-linux-gnu", "aarch64", "llsc", "", "arm64"),
    Target("aarch64-no-outline", "aarch64-linux-gnu", "aarch64", "llsc", "-mno-outline-atomics", "arm64"),
    Target("aarch64-lse", "aarch64-linux-gnu", "aarch64", "lse", "-march=armv8.1-a", "arm64"),
    Target("ppc64le", "powerpc64le-linux-gnu", "ppc64le", "*", "", "ppc64el"),
    Target("riscv64", "riscv64-linux-gnu", "riscv64", "*", "", "riscv64"),
    Target("s390x", "s390x-linux-gnu", "s390x", "*", "", "s390x"),
    Target("armhf", "arm-linux-gnueabihf", "armhf", "*", "", "armhf"),
)
BY_NAME = {t.name: t for t in TARGETS}
# clang --target needs the ISA spelled out for armhf (Debian's gcc defaults to it).
CLANG_EXTRA = {"armhf": "-march=armv7-a -mthumb"}
