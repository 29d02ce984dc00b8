# katomic — the Linux kernel's atomic API for user-space C.  `make help` lists the targets.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
BUILD   ?= build
AWK     ?= awk
# Extra flags for every test build, e.g. WERROR=-Werror in CI.
WERROR  ?=
CFLAGS_TEST = -std=gnu11 -O2 -g -Wall -Wextra $(WERROR) -Iinclude -Itests -pthread

MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
# Compilers the test matrix uses when they are installed (others: skipped with a note).
TEST_CCS ?= gcc clang
HAVE_CCS := $(foreach c,$(TEST_CCS),$(if $(shell command -v $(c) 2>/dev/null),$(c)))
# Backends this machine can run: the asm backend is x86-64 only.
BACKENDS ?= c11 $(if $(and $(filter x86_64%,$(MACHINE)),$(wildcard include/katomic/backend/asm.h)),asm)

# Every test program: tests/test-*.c plus the ones generated from the tables.
TEST_SRCS := $(sort $(wildcard tests/test-*.c)) tests/generated/atomic-ops.c tests/generated/names.c \
	tests/generated/names-optin.c
TEST_NAMES := $(notdir $(TEST_SRCS:.c=))
# The concurrency tests, also run under ThreadSanitizer.
STRESS_NAMES := $(notdir $(basename $(wildcard tests/test-stress-*.c)))

HEADERS := $(wildcard include/katomic/*.h include/katomic/*/*.h)
VERSION := $(shell sed -n 's/^\#define KATOMIC_VERSION "\(.*\)"/\1/p' include/katomic/katomic.h)

.PHONY: all gen gen-check check check-unit check-headers check-prefix check-install check-interop \
	check-barrier-insns check-linux-source check-install-tools check-verify check-san check-tsan check-cross \
	check-differential check-spinlock-dso check-payg check-up check-json check-report-rules check-kernel-boot check-link \
	json-doc install uninstall clean help

all: $(BUILD)/katomic.pc $(BUILD)/katomic

# A product that records a make variable depends on $(BUILD)/vars/<VAR>, a
# file holding the value, rewritten only when the value changes: so that
# `make` then `make install PREFIX=/usr` remakes katomic.pc for /usr.
.PHONY: FORCE
$(BUILD)/vars/%: FORCE
	@mkdir -p $(BUILD)/vars
	@printf '%s\n' '$($*)' | cmp -s - $@ || printf '%s\n' '$($*)' > $@

# The CLI: tools/katomic.sh with this source tree baked in.
$(BUILD)/katomic: tools/katomic.sh $(BUILD)/vars/CURDIR
	@mkdir -p $(BUILD)
	sed "s|^srcroot=.*|srcroot=$(CURDIR)|" $< > $@ && chmod +x $@

help:
	@echo 'make                build what install needs ($(BUILD)/katomic.pc)'
	@echo 'make check          every test this machine can run (prove TAP output)'
	@echo '  check-unit        unit + stress tests, per compiler ($(HAVE_CCS)) x backend ($(BACKENDS));'
	@echo '                    the compat and name tests also as C++ ($(HAVE_CXXS))'
	@echo '  check-headers     each public header alone, warning-free as C11, C17 and C++17'
	@echo '  check-prefix      -DKATOMIC_PREFIX beside <stdatomic.h>, two TUs linked'
	@echo '  check-interop     beside liburcu, <stdatomic.h>/<atomic> (every name, both orders), <linux/types.h>, own kernel names'
	@echo '  check-barrier-insns dma_*/virt_* are the kernel'"'"'s instructions on every (cross) target'
	@echo 'make check-linux-source  the kernel'"'"'s atomics.tbl, lib/atomic64_test.c (every compiler, backend,'
	@echo '                    sanitizers, cross target), virtio ringtest and qspinlock/MCS/osq (linux-source-6.12; CI)'
	@echo '  check-san         unit + stress tests under ASan + UBSan, every backend'
	@echo '  check-tsan        stress tests under TSan'
	@echo '  check-differential random op sequences on both backends, compared exactly'
	@echo '  check-spinlock-dso one spinlock_t contended from a program and a shared library (every compiler pair)'
	@echo '  check-payg        katomic.h costs a program that never locks what atomic.h does; lock code once per program'
	@echo '  check-kernel      the generated kernel arch layer in user space, the kernel patch vs linux-source-6.12 and 6.1, bad input, objtool --smp-locks and the .smp_locks decoder on synthetic objects'
	@echo '  check-up          uniprocessor lock elision: PIE/non-PIE/shared builds scanned by katomic uplocks'
	@echo '  check-install     make install into a scratch DESTDIR, build with pkg-config and CMake, uninstall'
	@echo 'make check-install-tools  the installed katomic (litmus, report --quick) with the source tree deleted (CI)'
	@echo '  gen-check         fail if gen/gen.sh would change a checked-in generated file'
	@echo '  check-bench       every benchmark kernel at a tiny size, results checked (no timing)'
	@echo '  check-json        the JSON schemas, docs/json.md, tests/json/ and what the checker must refuse'
	@echo '  check-report-rules the report'"'"'s speed-confirmation rule on synthetic samples (no timing)'
	@echo '  check-kernel-boot katomic kernel'"'"'s console judge, initramfs, /init and boot deadlines (no kernel)'
	@echo '  check-verify      katomic verify: translator tests; with herd7 the compiled code of every target vs LKMM, mutations'
	@echo '  check-litmus      our litmus corpus (and $$(LKMM_DIR) if present) on this CPU, every backend,'
	@echo '                    and the mutation check (smp_mb weakened: the runner must report FAIL)'
	@echo 'make check-cross    unit tests cross-compiled and run under qemu-user (CI)'
	@echo 'make check-link     a single-threaded program links with pkg-config'"'"'s flags, and libc alone,'
	@echo '                    static and dynamic, gcc and clang, here and on every cross target (CI)'
	@echo 'make check-litmus-corpus  the public litmus corpus share (parse all, run a sample) and'
	@echo '                    linux-source-6.12'"'"'s litmus tests, every backend (CI; skipped where missing)'
	@echo 'make litmus         build $(BUILD)/katomic-litmus; make fuzz-litmus fuzzes its parser (FUZZ_TIME=60)'
	@echo 'make litmus-ceiling the litmus rates this CPU'"'"'s cache coherence allows (a benchmark)'
	@echo 'make bench-aa       A/A control for katomic bench (c11 slots built from the asm backend): katomic bench --aa'
	@echo 'make codegen        the code-generation audit into $(BUILD)/codegen; check-codegen: regression guard (CI)'
	@echo 'make kernel         katomic kernel: Linux built stock and on C11 atomics, booted, audited (KERNEL_ARGS=--quick; docs/kernel.md)'
	@echo 'make gen            regenerate include/katomic/generated/, tests/generated/ and tools/kernel/generated/'
	@echo 'make json-doc       rewrite docs/json.md'"'"'s field tables from tools/schema/'
	@echo 'make install        headers, katomic.pc, the CMake package, bin/katomic and share/katomic (the instruments)'
	@echo 'make uninstall      removes all of it (the installed CLI'"'"'s cache, ~/.cache/katomic, is the user'"'"'s)'
	@echo 'Variables: CC, TEST_CCS, BACKENDS, PREFIX, DESTDIR, WERROR=-Werror'

# ---------------------------------------------------------------- generation
gen:
	AWK=$(AWK) sh gen/gen.sh

gen-check:
	@rm -rf $(BUILD)/gen-check && mkdir -p $(BUILD)/gen-check
	@AWK=$(AWK) sh gen/gen.sh $(BUILD)/gen-check
	@diff -ru include/katomic/generated $(BUILD)/gen-check/include/katomic/generated && \
	 diff -ru tests/generated $(BUILD)/gen-check/tests/generated && \
	 diff -ru tools/kernel/generated $(BUILD)/gen-check/tools/kernel/generated && \
	 echo 'gen-check: generated files are up to date' || \
	 { echo 'gen-check: generated files are stale: run make gen and commit' >&2; exit 1; }

# ---------------------------------------------------------------- tests
# $(BUILD)/t/<cc>-<backend>/<test>: one test program per compiler and backend.
backend_flags = $(if $(filter asm,$(1)),-DKATOMIC_BACKEND_ASM)

define test_rules
$(BUILD)/t/$(1)-$(2)/%: tests/%.c $(HEADERS) tests/tap.h tests/stress.h tests/ro-page.h tests/model.h | $(BUILD)/t/$(1)-$(2)/generated
	$(1) $(CFLAGS_TEST) $(call backend_flags,$(2)) -o $$@ $$<
$(BUILD)/t/$(1)-$(2)/generated:
	mkdir -p $$@
endef
$(foreach c,$(HAVE_CCS),$(foreach b,$(BACKENDS),$(eval $(call test_rules,$(c),$(b)))))

UNIT_BINS := $(foreach c,$(HAVE_CCS),$(foreach b,$(BACKENDS),\
	$(addprefix $(BUILD)/t/$(c)-$(b)/,$(patsubst tests/%.c,%,$(TEST_SRCS)))))

# The tests that are also built as C++ (the names ported code uses, every
# public name): by the C++ twin of each compiler (gcc-11 -> g++-11, clang-16
# -> clang++-16) that is installed, per backend.
CXX_TEST_SRCS := tests/test-compat.c tests/generated/names.c tests/generated/names-optin.c
CXXFLAGS_TEST = -x c++ -std=gnu++17 -O2 -g -Wall -Wextra $(WERROR) -Iinclude -Itests -pthread
cxx_of = $(subst clang,clang++,$(subst gcc,g++,$(1)))
HAVE_CXXS := $(foreach c,$(HAVE_CCS),$(if $(shell command -v $(call cxx_of,$(c)) 2>/dev/null),$(call cxx_of,$(c))))
define cxx_test_rules
$(BUILD)/t/$(1)-$(2)/%: tests/%.c $(HEADERS) tests/tap.h | $(BUILD)/t/$(1)-$(2)/generated
	$(1) $(CXXFLAGS_TEST) $(call backend_flags,$(2)) -o $$@ $$<
$(BUILD)/t/$(1)-$(2)/generated:
	mkdir -p $$@
endef
$(foreach c,$(HAVE_CXXS),$(foreach b,$(BACKENDS),$(eval $(call cxx_test_rules,$(c),$(b)))))
UNIT_BINS += $(foreach c,$(HAVE_CXXS),$(foreach b,$(BACKENDS),\
	$(addprefix $(BUILD)/t/$(c)-$(b)/,$(patsubst tests/%.c,%,$(CXX_TEST_SRCS)))))

include tests/differential.mk
include tools/litmus/litmus.mk
include tools/codegen/codegen.mk
include bench/bench.mk
include tools/report/report.mk
include tools/up/up.mk
include tools/kernel/kernel.mk

# The tests' binaries are compiled one per CPU (a make of their own: the
# top-level make stays serial, so no two checks ever run side by side), then
# run one at a time: the stress tests measure stalls.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check-unit:
	@$(if $(filter-out $(HAVE_CCS),$(TEST_CCS)),echo 'note: not installed (skipped): $(filter-out $(HAVE_CCS),$(TEST_CCS))')
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_BINS)
	prove -f $(UNIT_BINS)

# Sanitizers: ASan+UBSan on every test; TSan on the stress tests (C11 backend).
SAN_CC ?= $(firstword $(HAVE_CCS))
TSAN_CC ?= $(if $(filter clang,$(HAVE_CCS)),clang,$(SAN_CC))
SAN_FLAGS = -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
$(BUILD)/san-c11/%: tests/%.c $(HEADERS) tests/tap.h tests/stress.h tests/ro-page.h tests/model.h
	@mkdir -p $(dir $@)
	$(SAN_CC) $(CFLAGS_TEST) $(SAN_FLAGS) -o $@ $<
$(BUILD)/san-asm/%: tests/%.c $(HEADERS) tests/tap.h tests/stress.h tests/ro-page.h tests/model.h
	@mkdir -p $(dir $@)
	$(SAN_CC) $(CFLAGS_TEST) $(SAN_FLAGS) -DKATOMIC_BACKEND_ASM -o $@ $<
$(BUILD)/tsan/%: tests/%.c $(HEADERS) tests/tap.h tests/stress.h tests/ro-page.h tests/model.h
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(CFLAGS_TEST) -O1 -fsanitize=thread -o $@ $<
SAN_BINS := $(foreach b,$(BACKENDS),$(addprefix $(BUILD)/san-$(b)/,$(patsubst tests/%.c,%,$(TEST_SRCS))))
TSAN_BINS := $(addprefix $(BUILD)/tsan/,$(STRESS_NAMES))
check-san:
	@$(MAKE) --no-print-directory -j$(JOBS) $(SAN_BINS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 prove -f $(SAN_BINS)
check-tsan:
	@$(MAKE) --no-print-directory -j$(JOBS) $(TSAN_BINS)
	TSAN_OPTIONS=halt_on_error=1 prove -f $(TSAN_BINS)

check-headers:
	@sh tests/check-headers.sh $(HAVE_CCS)

check-prefix:
	@sh tests/check-prefix.sh $(CC)

check-interop:
	@sh tests/check-interop.sh $(HAVE_CCS)

# Debian's linux-source-6.12 (extracted at test time): the kernel's atomics.tbl
# and tools/virtio/ringtest.  Skipped with a note when it is not installed.
check-linux-source:
	@BUILD=$(BUILD) sh tests/linux-source/run.sh $(HAVE_CCS)

check-barrier-insns:
	@if command -v python3 >/dev/null 2>&1; then python3 tests/check-barrier-insns.py --cc '$(HAVE_CCS)'; \
	 else echo 'note: python3 not installed: check-barrier-insns skipped (apt-get install python3)'; fi

check-spinlock-dso:
	@sh tests/check-spinlock-dso.sh $(HAVE_CCS)

check-payg:
	@sh tests/check-payg.sh include $(foreach c,$(HAVE_CCS),$(c) $(if $(findstring clang,$(c)),$(subst clang,clang++,$(c)),$(subst gcc,g++,$(c))))

check-install:
	@sh tests/check-install.sh

# The installed instruments without the source tree (includes katomic report --quick: minutes).
check-install-tools:
	@sh tests/check-install-tools.sh

check: gen-check check-json check-report-rules check-kernel-boot check-headers check-prefix check-interop \
	check-barrier-insns check-spinlock-dso check-payg \
	check-unit check-up check-differential check-san check-tsan check-install check-litmus check-bench check-verify
	@echo 'make check: all passed'

# katomic verify (docs/verify.md): the translator's tests, and with herd7 the
# compiled code of every target judged against the LKMM, and the mutation checks.
check-verify: $(BUILD)/katomic
	@sh tests/verify/check-verify.sh

# The report's confirmation rule (docs/report.md) on synthetic samples: nothing timed.
check-report-rules:
	@PYTHONPATH=tools python3 -m katomic_tools.report.test_confirm

# The instruments' JSON documents (docs/json.md): Python 3, standard library only.
check-json:
	@PYTHONPATH=tools python3 -m katomic_tools.common.schema_check

# The boot side of `katomic kernel` without a kernel (docs/kernel-boot.md):
# the console judge on synthetic logs, the initramfs, /init, boot deadlines;
# the report's kernel section rendered from tests/json/kernel.json.
check-kernel-boot:
	@python3 tests/kernel/test-kernel-boot.py $(HAVE_CCS)
	@python3 tests/kernel/test-kernel-report.py

json-doc:
	PYTHONPATH=tools python3 -m katomic_tools.common.schema --update-doc docs/json.md

check-cross:
	@sh tests/check-cross.sh

check-link:
	@sh tests/check-link.sh

# ---------------------------------------------------------------- install
# PREFIX/include/katomic/            the headers
# PREFIX/lib/pkgconfig/katomic.pc    pkg-config --cflags --libs katomic
# PREFIX/lib/cmake/katomic/          find_package(katomic) -> katomic::katomic
# PREFIX/bin/katomic                 the instruments' CLI, which uses
# PREFIX/share/katomic/              their sources (whole directories, so an
#                                    instrument's new files come along), the
#                                    litmus tests, a Makefile with their build
#                                    rules, include -> ../../include
# The installed CLI builds what it runs in the user's cache directory.
SHAREDIR  = $(PREFIX)/share/katomic
CMAKEDIR  = $(PREFIX)/lib/cmake/katomic
SHARE_DIRS := tools bench tests/litmus tests/kernel/mock-kernel.h

# Every installed file that records a variable is made from its $(BUILD)/vars/
# file (katomic.pc: PREFIX); the rest (the CMake package, bin/katomic) find
# their prefix from where they are, so a DESTDIR or moved install works.
$(BUILD)/katomic.pc: katomic.pc.in include/katomic/katomic.h $(BUILD)/vars/PREFIX
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' katomic.pc.in > $@

$(BUILD)/katomic-config-version.cmake: cmake/katomic-config-version.cmake.in include/katomic/katomic.h
	@mkdir -p $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|g' $< > $@

# The CLI as installed: it finds ../share/katomic next to itself.
$(BUILD)/katomic-installed: tools/katomic.sh
	@mkdir -p $(BUILD)
	sed 's|^installed=0$$|installed=1|' $< > $@
	@grep -q '^installed=1$$' $@ || { echo 'install: tools/katomic.sh has no installed=0 line' >&2; exit 1; }

install: $(BUILD)/katomic.pc $(BUILD)/katomic-config-version.cmake $(BUILD)/katomic-installed
	mkdir -p $(DESTDIR)$(PREFIX)/include/katomic $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(CMAKEDIR) \
		$(DESTDIR)$(PREFIX)/bin
	cd include && find katomic -name '*.h' -exec install -D -m 644 {} $(DESTDIR)$(PREFIX)/include/{} \;
	install -m 644 $(BUILD)/katomic.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/katomic.pc
	install -m 644 cmake/katomic-config.cmake $(BUILD)/katomic-config-version.cmake $(DESTDIR)$(CMAKEDIR)/
	install -m 755 $(BUILD)/katomic-installed $(DESTDIR)$(PREFIX)/bin/katomic
	rm -rf $(DESTDIR)$(SHAREDIR)
	mkdir -p $(DESTDIR)$(SHAREDIR)
	tar -cf - $(SHARE_DIRS) | (cd $(DESTDIR)$(SHAREDIR) && tar -xf - --no-same-owner)
	install -m 644 tools/installed.mk $(DESTDIR)$(SHAREDIR)/Makefile
	ln -s ../../include $(DESTDIR)$(SHAREDIR)/include

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/include/katomic $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(CMAKEDIR)
	rm -f $(DESTDIR)$(PREFIX)/lib/pkgconfig/katomic.pc $(DESTDIR)$(PREFIX)/bin/katomic

clean:
	rm -rf $(BUILD)
