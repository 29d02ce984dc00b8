# Uniprocessor lock elision (<katomic/up.h>): `katomic uplocks` and its tests.
# Included by the top-level Makefile.
#
#   make check-up   tests/test-up-scan.py: PIE, non-PIE and shared-object
#                   builds of tests/test-up-{patch,auto}.c, per compiler x
#                   backend, scanned with `katomic uplocks` and run; stale
#                   binaries and the scanner's refusals (TAP)
#
# tools/up/uplocks.py (Python 3, standard library; objdump from binutils) is
# run from the source tree by tools/katomic.sh, so nothing is built for it.
# An installed CLI needs it at $root/tools/up/uplocks.py.
UP_SCAN_DIR = $(BUILD)/up-scan

.PHONY: check-up
check-up:
	@command -v python3 >/dev/null 2>&1 || { echo 'note: python3 not installed: check-up skipped'; exit 0; }; \
	 CFLAGS_TEST='$(CFLAGS_TEST)' python3 tests/test-up-scan.py $(UP_SCAN_DIR) $(HAVE_CCS) -- $(BACKENDS) \
	   > $(UP_SCAN_DIR).tap 2>&1; rc=$$?; \
	 grep -v '^ok' $(UP_SCAN_DIR).tap; echo "check-up: TAP log in $(UP_SCAN_DIR).tap"; exit $$rc
