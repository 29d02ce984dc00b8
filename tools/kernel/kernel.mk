# `katomic kernel`: the Linux kernel built stock and on katomic's C11 atomics
# (docs/kernel.md).  Included by the top-level Makefile.
#
#   make kernel         katomic kernel (KERNEL_ARGS: e.g. --quick, --config defconfig):
#                       builds in ~/.cache/katomic/kernel, writes $(BUILD)/kernel/kernel.json
#   make check-kernel   the fast checks, no kernel build (tests/kernel/check-kernel.py):
#                       the generated arch layer in user space per compiler, the
#                       patch against linux-source-6.12 (skipped without it), bad input;
#                       the x86_64/arm64/riscv64 patches made for linux-source-6.1 and applied
#                       (dry run) to the files they touch (skipped without its tarball);
#                       katomic's .smp_locks decoder on synthetic kernels (tests/kernel/check-smplocks.py)
#                       and synthetic modules (tests/kernel/check-smplocks-ko.py); objtool --smp-locks
#                       of the patched tree on synthetic objects, against that decoder
#                       (tests/kernel/check-objtool-smplocks.py); when a C11 kernel
#                       build exists (KATOMIC_SMPLOCKS_KBUILD, default small-gcc-c11 in the cache),
#                       the cross-check and its -smp 1 guest reading its own lock sites
#                       (tests/kernel/check-smplocks-boot.py; otherwise a note);
#                       katomic kernel --series: git am of the series onto the touched files ends where
#                       --patch does, checkpatch.pl of the tree: 0 errors, every warning explained
#                       (tests/kernel/check-series.py);
#                       kernel.json keeps what the driver measures, the schema refuses a broken
#                       one (tests/kernel/check-kernel-json.py, per compiler)
KERNEL_ARGS ?=

.PHONY: kernel check-kernel check-kernel-cross
# make check runs it (a prerequisite added here keeps the top-level rule as it was).
check: check-kernel check-kernel-cross

kernel:
	sh tools/kernel/kernel.sh --out $(BUILD)/kernel $(KERNEL_ARGS)

check-kernel:
	@command -v python3 >/dev/null 2>&1 || { echo 'note: python3 not installed: check-kernel skipped'; exit 0; }; \
	 python3 tests/kernel/check-kernel.py $(BUILD)/check-kernel $(HAVE_CCS) && \
	 python3 tests/kernel/check-smplocks.py $(BUILD)/check-kernel $(or $(firstword $(HAVE_CCS)),cc) && \
	 python3 tests/kernel/check-smplocks-ko.py $(BUILD)/check-kernel $(or $(firstword $(HAVE_CCS)),cc) && \
	 python3 tests/kernel/check-objtool-smplocks.py $(BUILD)/check-kernel $(or $(firstword $(HAVE_CCS)),cc) && \
	 python3 tests/kernel/check-smplocks-boot.py $(BUILD)/check-kernel && \
	 python3 tests/kernel/check-series.py $(BUILD)/check-kernel && \
	 for cc in $(or $(HAVE_CCS),cc); do python3 tests/kernel/check-kernel-json.py $(BUILD)/check-kernel $$cc || exit 1; done

# The asm-generic C11 layer (`katomic kernel --arch arm64|riscv64`) on the
# Debian cross compilers, run under qemu-user, its fences read from the code
# (tests/kernel/check-kernel-cross.py; a missing cross compiler is a note).
check-kernel-cross:
	@command -v python3 >/dev/null 2>&1 || { echo 'note: python3 not installed: check-kernel-cross skipped'; exit 0; }; \
	 python3 tests/kernel/check-kernel-cross.py $(BUILD)/check-kernel-cross
