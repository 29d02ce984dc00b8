"""`katomic kernel`: the Linux kernel built on katomic's C11 atomics (x86-64)."""


class KernelError(Exception):
    """Bad input, a missing tool, a failed step: one line for the user, exit 2."""
