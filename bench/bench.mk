# katomic-bench: rules for the benchmark driver and its contenders.
# Included by the top-level Makefile (`include bench/bench.mk`); also usable
# alone: make -f bench/bench.mk bench.
#
#   make bench         build $(BUILD)/katomic-bench (+ $(BUILD)/up-patch)
#   make check-bench   build, then run every kernel at a tiny size (TAP, no timing)
#
# Each contender is its own object, built by its own compiler, from
# bench/kernels.h + one mapping file; the driver links every one that could
# be built.  A missing compiler or peer header skips that contender with a note.
ifndef KB_BENCH_MK
KB_BENCH_MK := 1

BUILD   ?= build
CC      ?= cc
WERROR  ?=
# The newest gcc and the newest clang installed (Debian 12: gcc-12, clang-19).
BENCH_CC ?= $(firstword $(foreach c,gcc-14 gcc-13 gcc-12 gcc,$(if $(shell command -v $(c) 2>/dev/null),$(c))) gcc)
BENCH_CLANG ?= $(firstword $(foreach c,clang-20 clang-19 clang-18 clang-17 clang-16 clang-15 clang,$(if $(shell command -v $(c) 2>/dev/null),$(c))) clang)
BENCH_OBJ := $(BUILD)/bench-obj
BENCH_BIN := $(BUILD)/katomic-bench
BENCH_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra $(WERROR) -Iinclude -Ibench -pthread
# Code placement, the same for every contender: each kernel starts on a
# 512-byte boundary and no padding is put inside it.  All kernels are under
# 512 bytes, so none crosses a 4 KiB page (check-bench verifies it) and
# identical code sits identically in fetch blocks, op-cache lines and pages,
# whatever is linked before it.  Measured (gcc-12, seqlock/1, one thread, the
# same instructions in asm-gcc and c11-gcc): 16-byte function alignment,
# C11/asm 1.15-1.28 from the address mod 64 alone; 64-byte alignment, 0.84
# because asm-gcc's reader loop then straddled a page; 512, 1.00.  No loop
# alignment: gcc's padding of loop heads depends on code further on (jump
# sizes), so the same loop got different padding in the two backends, and
# with -falign-loops=64 both compilers put nops on hot paths (before inner
# CAS loops) in some contenders only.
BENCH_ALIGN_GCC ?= -falign-functions=512 -fno-align-loops -fno-align-jumps -fno-align-labels
BENCH_ALIGN_CLANG ?= -falign-functions=512 -falign-loops=1
kb_align = $(if $(findstring clang,$(1)),$(BENCH_ALIGN_CLANG),$(BENCH_ALIGN_GCC))
BENCH_HDRS := bench/kb.h bench/kernels.h bench/ops.def bench/stat3.h \
	$(wildcard include/katomic/*.h include/katomic/*/*.h)

kb_hash := \#
# $(call kb_have_cc,compiler): non-empty if installed
kb_have_cc = $(shell command -v $(1) 2>/dev/null)
# $(call kb_have_hdr,compiler,header,flags): non-empty if the header compiles
kb_have_hdr = $(shell printf '$(kb_hash)include <$(2)>\n' | $(1) $(3) -x c -fsyntax-only - 2>/dev/null && echo yes)

KB_GCC   := $(call kb_have_cc,$(BENCH_CC))
KB_CLANG := $(call kb_have_cc,$(BENCH_CLANG))
KB_X86   := $(filter x86_64%,$(shell $(BENCH_CC) -dumpmachine 2>/dev/null))
KB_LIBATOMIC := $(if $(KB_GCC),$(filter /%,$(shell $(BENCH_CC) -print-file-name=libatomic.so 2>/dev/null)))

# $(call kb_contender,name,source,compiler,flags,condition,note): condition
# non-empty = build it; otherwise the note says why it is skipped.
# Contenders are rebuilt when the compilers or the placement flags change: a
# stamp naming them.
KB_STAMP := $(BENCH_OBJ)/compilers
KB_CCS_NOW := $(BENCH_CC) $(BENCH_CLANG) $(CC) $(BENCH_ALIGN_GCC) / $(BENCH_ALIGN_CLANG)
$(shell mkdir -p $(BENCH_OBJ) && { [ "$$(cat $(KB_STAMP) 2>/dev/null)" = "$(KB_CCS_NOW)" ] || echo "$(KB_CCS_NOW)" > $(KB_STAMP); })
KB_CONTENDERS :=
KB_NOTES :=
define kb_contender
ifneq ($(strip $(5)),)
KB_CONTENDERS += $(1)
$(BENCH_OBJ)/$(1).o: $(2) $(BENCH_HDRS) $(KB_STAMP) | $(BENCH_OBJ)
	$(3) $(BENCH_CFLAGS) $(call kb_align,$(3)) $(4) '-DKB_NAME="$(1)"' -DKB_SYM=kb_$(subst -,_,$(1)) -c -o $$@ $(2)
else
KB_NOTES += $(1):$(6)
endif
endef

KB_HAVE_URCU := $(if $(KB_GCC),$(call kb_have_hdr,$(BENCH_CC),urcu/uatomic.h))
KB_HAVE_CK   := $(if $(KB_GCC),$(call kb_have_hdr,$(BENCH_CC),ck_pr.h))
KB_HAVE_AO   := $(if $(KB_GCC),$(call kb_have_hdr,$(BENCH_CC),atomic_ops.h))

$(eval $(call kb_contender,raw,bench/raw.c,$(BENCH_CC),,$(and $(KB_GCC),$(KB_X86)),$(BENCH_CC)_missing_or_not_x86-64))
$(eval $(call kb_contender,asm-gcc,bench/kat.c,$(BENCH_CC),-DKATOMIC_BACKEND_ASM,$(and $(KB_GCC),$(KB_X86)),$(BENCH_CC)_missing_or_not_x86-64))
$(eval $(call kb_contender,c11-gcc,bench/kat.c,$(BENCH_CC),,$(KB_GCC),$(BENCH_CC)_not_installed))
$(eval $(call kb_contender,asm-clang,bench/kat.c,$(BENCH_CLANG),-DKATOMIC_BACKEND_ASM,$(and $(KB_CLANG),$(KB_X86)),$(BENCH_CLANG)_missing_or_not_x86-64))
$(eval $(call kb_contender,c11-clang,bench/kat.c,$(BENCH_CLANG),,$(KB_CLANG),$(BENCH_CLANG)_not_installed))
$(eval $(call kb_contender,urcu,bench/peer-urcu.c,$(BENCH_CC),,$(KB_HAVE_URCU),urcu/uatomic.h_not_found_(liburcu-dev)))
$(eval $(call kb_contender,ck,bench/peer-ck.c,$(BENCH_CC),,$(KB_HAVE_CK),ck_pr.h_not_found_(libck-dev)))
$(eval $(call kb_contender,ao,bench/peer-ao.c,$(BENCH_CC),-mcx16,$(KB_HAVE_AO),atomic_ops.h_not_found_(libatomic-ops-dev)))
$(eval $(call kb_contender,std-gcc,bench/peer-std.c,$(BENCH_CC),-mcx16 $(if $(KB_LIBATOMIC),,-DKB_NO_LIBATOMIC),$(KB_GCC),$(BENCH_CC)_not_installed))
$(eval $(call kb_contender,std-clang,bench/peer-std.c,$(BENCH_CLANG),-mcx16,$(KB_CLANG),$(BENCH_CLANG)_not_installed))
$(eval $(call kb_contender,libc,bench/peer-libc.c,$(BENCH_CC),,$(KB_GCC),$(BENCH_CC)_not_installed))
$(eval $(call kb_contender,mutex,bench/peer-mutex.c,$(BENCH_CC),,$(KB_GCC),$(BENCH_CC)_not_installed))
$(eval $(call kb_contender,ticket,bench/peer-ticket.c,$(BENCH_CC),,$(KB_GCC),$(BENCH_CC)_not_installed))

KB_OBJS := $(addprefix $(BENCH_OBJ)/,$(addsuffix .o,$(strip $(KB_CONTENDERS)))) $(BENCH_OBJ)/driver.o

$(BENCH_OBJ):
	mkdir -p $@

$(BENCH_OBJ)/driver.o: bench/driver.c bench/kb.h bench/stat3.h bench/ops.def $(KB_STAMP) | $(BENCH_OBJ)
	$(CC) $(BENCH_CFLAGS) -c -o $@ bench/driver.c

$(BENCH_BIN): $(KB_OBJS)
	$(CC) $(BENCH_CFLAGS) -o $@ $(KB_OBJS) $(if $(KB_LIBATOMIC),-latomic)

# bench/up-patch.c: uniprocessor lock elision, locked vs patched, one kernel
# object per backend and compiler (placed as the contenders are), linked into
# one program and scanned with `katomic uplocks` (the C11 kernels' locks).
KB_PY := $(shell command -v python3 2>/dev/null)
KB_UP := $(and $(KB_X86),$(KB_PY))
define upb_kernel
ifneq ($(strip $(4)),)
UPB_OBJS += $(BENCH_OBJ)/up-$(1).o
$(BENCH_OBJ)/up-$(1).o: bench/up-patch.c $(BENCH_HDRS) $(KB_STAMP) | $(BENCH_OBJ)
	$(2) $(BENCH_CFLAGS) $(call kb_align,$(2)) $(3) -DUPB_KERNEL '-DUPB_NAME="$(1)"' '-DUPB_CC="$(2)"' \
		-DUPB_SYM=upb_$(subst -,_,$(1)) -c -o $$@ bench/up-patch.c
endif
endef
UPB_OBJS :=
$(eval $(call upb_kernel,asm-gcc,$(BENCH_CC),-DKATOMIC_BACKEND_ASM,$(KB_GCC)))
$(eval $(call upb_kernel,c11-gcc,$(BENCH_CC),,$(KB_GCC)))
$(eval $(call upb_kernel,asm-clang,$(BENCH_CLANG),-DKATOMIC_BACKEND_ASM,$(KB_CLANG)))
$(eval $(call upb_kernel,c11-clang,$(BENCH_CLANG),,$(KB_CLANG)))
$(BUILD)/up-patch: bench/up-patch.c $(UPB_OBJS) $(BENCH_HDRS) tools/up/uplocks.py
	@mkdir -p $(BUILD)
	$(CC) $(BENCH_CFLAGS) -o $@.tmp bench/up-patch.c $(UPB_OBJS)
	python3 tools/up/uplocks.py $@.tmp >/dev/null
	mv $@.tmp $@
ifeq ($(KB_UP),)
KB_NOTES += up-patch:needs_x86-64_and_python3_(katomic_uplocks)
endif

# A/A control (make bench-aa): the same program with the c11-* slots built
# from the asm backend as well, at their own addresses.  Its "C11/asm"
# figures compare identical code, so they are the method's noise floor on
# this machine: run it beside a real run to tell timing from codegen.
KB_AA_OBJS := $(patsubst $(BENCH_OBJ)/c11-%.o,$(BENCH_OBJ)/aa-c11-%.o,$(KB_OBJS))
$(BENCH_OBJ)/aa-c11-gcc.o: bench/kat.c $(BENCH_HDRS) $(KB_STAMP) | $(BENCH_OBJ)
	$(BENCH_CC) $(BENCH_CFLAGS) $(call kb_align,$(BENCH_CC)) -DKATOMIC_BACKEND_ASM '-DKB_NAME="c11-gcc"' -DKB_SYM=kb_c11_gcc -c -o $@ bench/kat.c
$(BENCH_OBJ)/aa-c11-clang.o: bench/kat.c $(BENCH_HDRS) $(KB_STAMP) | $(BENCH_OBJ)
	$(BENCH_CLANG) $(BENCH_CFLAGS) $(call kb_align,$(BENCH_CLANG)) -DKATOMIC_BACKEND_ASM '-DKB_NAME="c11-clang"' -DKB_SYM=kb_c11_clang -c -o $@ bench/kat.c
$(BUILD)/katomic-bench-aa: $(KB_AA_OBJS)
	$(CC) $(BENCH_CFLAGS) -o $@ $(KB_AA_OBJS) $(if $(KB_LIBATOMIC),-latomic)

.PHONY: bench bench-aa check-bench bench-notes
bench-aa: bench-notes $(if $(KB_X86),$(BUILD)/katomic-bench-aa)
bench-notes:
	@$(foreach n,$(strip $(KB_NOTES)),echo 'note: bench contender skipped: $(subst _, ,$(n))' >&2;) :

bench: bench-notes $(BENCH_BIN) $(if $(KB_UP),$(BUILD)/up-patch)

# Tiny runs that prove every kernel works; no timing is asserted anywhere.
check-bench: bench
	@t=$(BUILD)/check-bench.tap; \
	 $(BENCH_BIN) --check > $$t.raw; \
	 grep -v -e '^1\.\.' -e '^# [0-9]* passed' $$t.raw > $$t; \
	 n=$$(grep -c -e '^ok' -e '^not ok' $$t); \
	 grep -q '^# [0-9]* passed' $$t.raw || { n=$$((n + 1)); echo "not ok $$n - katomic-bench --check did not finish" >> $$t; }; \
	 n=$$((n + 1)); l=$$(nm -S $(BENCH_BIN) 2>/dev/null | PYTHONPATH=tools python3 -m katomic_tools.bench.placement); \
	 echo "$${l%% - *} $$n - $${l#* - }" >> $$t; \
	 $(if $(KB_UP),n=$$((n + 1)); if l=$$($(BUILD)/up-patch --check 2>&1); \
	   then echo "ok $$n - $$l"; else echo "not ok $$n - up-patch --check: $$l"; fi >> $$t;) \
	 echo "1..$$n" >> $$t; \
	 grep -e '^not ok' $$t; \
	 p=$$(grep -c '^ok' $$t); f=$$(grep -c '^not ok' $$t); \
	 echo "check-bench: TAP log in $$t"; \
	 echo "$$p passed, $$f failed"; [ "$$f" -eq 0 ] && [ "$$p" -gt 0 ]

endif
