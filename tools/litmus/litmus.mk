# katomic litmus runner: `include tools/litmus/litmus.mk` from the top Makefile.
#   make litmus          build $(BUILD)/katomic-litmus
#   make check-litmus    tests/litmus/ and $(LKMM_DIR) under every backend, judged by herd7 where
#                        it is found (LITMUS_JUDGE); ends "N passed, M failed"
#   make check-litmus-corpus  the public corpus share (parse all, run a sample) and
#                        linux-source-6.12's litmus tests, every backend (CI)
#   make fuzz-litmus     libFuzzer + ASan on the parser for FUZZ_TIME seconds (clang)
#   make litmus-ceiling  the rates this machine's coherence allows such a harness (a benchmark)
BUILD ?= build
AWK ?= awk
CC ?= cc
LITMUS_CC ?= $(CC)
LITMUS_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra $(WERROR)
LKMM_DIR ?= ../shared/litmus/lkmm
# The public kernel litmus corpus share (../shared, CI only): all parsed, every
# LITMUS_SAMPLE-th file run; Debian's kernel source for its own litmus tests.
LITMUS_CORPUS ?= ../shared/litmus/corpus
LITMUS_SAMPLE ?= 8
LITMUS_CORPUS_ITERATIONS ?= 20000
LINUX_TAR ?= /usr/src/linux-source-6.12.tar.xz
LITMUS_LINUX_ITERATIONS ?= 200000
# Every file of the share and tests/litmus once more, few iterations: does what parses run?
LITMUS_AGREE_BACKENDS ?= c11
LITMUS_AGREE_ITERATIONS ?= 1000
LITMUS_ITERATIONS ?= 2000000
# The harnesses' compiler (gcc, clang or a path) and backends; asm only when its header exists.
LITMUS_HARNESS_CC ?= gcc
LITMUS_BACKENDS ?= c11 $(if $(wildcard include/katomic/backend/asm.h),asm)
FUZZ_TIME ?= 60
# Who judges the runs of check-litmus and check-litmus-corpus: auto (herd7's LKMM states
# where herd7 is found, else the Result: comments, with a note), herd7 (required: CI), comment.
LITMUS_JUDGE ?= auto
FUZZ_CC ?= clang

LITMUS_SRCS := $(addprefix tools/litmus/,main.c parse.c harness.c verify.c compile.c run.c oracle.c judge.c output.c util.c)
LITMUS_RT := tools/litmus/harness-head.h tools/litmus/harness-main.h

.PHONY: litmus check-litmus check-litmus-corpus fuzz-litmus litmus-ceiling

litmus: $(BUILD)/katomic-litmus $(BUILD)/litmus-ceiling

$(BUILD)/litmus-ceiling: tools/litmus/ceiling.c
	@mkdir -p $(BUILD)
	$(LITMUS_CC) $(LITMUS_CFLAGS) -pthread -o $@ tools/litmus/ceiling.c

litmus-ceiling: $(BUILD)/litmus-ceiling
	$(BUILD)/litmus-ceiling

$(BUILD)/litmus-rt.c: $(LITMUS_RT) tools/litmus/embed.awk
	@mkdir -p $(BUILD)
	$(AWK) -v name=kl_rt_head -f tools/litmus/embed.awk tools/litmus/harness-head.h > $@.tmp
	$(AWK) -v name=kl_rt_main -f tools/litmus/embed.awk tools/litmus/harness-main.h >> $@.tmp
	mv $@.tmp $@

$(BUILD)/katomic-litmus: $(LITMUS_SRCS) tools/litmus/parse.h tools/litmus/runner.h $(BUILD)/litmus-rt.c
	$(LITMUS_CC) $(LITMUS_CFLAGS) -o $@ $(LITMUS_SRCS) $(BUILD)/litmus-rt.c

check-litmus: $(BUILD)/katomic-litmus $(BUILD)/litmus-ceiling
	@$(BUILD)/litmus-ceiling -r 1 -n 20000 >/dev/null || { echo 'check-litmus: litmus-ceiling failed'; exit 1; }
	@LITMUS=$(BUILD)/katomic-litmus ITER=$(LITMUS_ITERATIONS) HCC='$(LITMUS_HARNESS_CC)' \
	 BACKENDS='$(LITMUS_BACKENDS)' LKMM_DIR='$(LKMM_DIR)' JUDGE=$(LITMUS_JUDGE) sh tools/litmus/check.sh

LITMUS_FUZZ_SRCS := $(addprefix tools/litmus/,fuzz.c parse.c harness.c util.c) $(BUILD)/litmus-rt.c

check-litmus-corpus: $(BUILD)/katomic-litmus
	@LITMUS=$(BUILD)/katomic-litmus HCC='$(LITMUS_HARNESS_CC)' BACKENDS='$(LITMUS_BACKENDS)' BUILD=$(BUILD) \
	 CORPUS='$(LITMUS_CORPUS)' SAMPLE=$(LITMUS_SAMPLE) ITER=$(LITMUS_CORPUS_ITERATIONS) \
	 AGREE_BACKENDS='$(LITMUS_AGREE_BACKENDS)' AGREE_ITER=$(LITMUS_AGREE_ITERATIONS) \
	 LINUX_TAR='$(LINUX_TAR)' LINUX_ITER=$(LITMUS_LINUX_ITERATIONS) JUDGE=$(LITMUS_JUDGE) sh tools/litmus/check-corpus.sh

$(BUILD)/fuzz-litmus: $(LITMUS_FUZZ_SRCS) tools/litmus/parse.h tools/litmus/runner.h
	@mkdir -p $(BUILD)
	$(FUZZ_CC) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $(LITMUS_FUZZ_SRCS)

# Seeds (directories are read recursively): our tests and bad/, the kernel's, the corpus share when present.
fuzz-litmus: $(BUILD)/fuzz-litmus
	@mkdir -p $(BUILD)/fuzz-litmus-corpus
	$(BUILD)/fuzz-litmus -max_total_time=$(FUZZ_TIME) -max_len=8192 -timeout=10 -dict=tools/litmus/fuzz.dict \
		$(BUILD)/fuzz-litmus-corpus tests/litmus $(wildcard $(LKMM_DIR) $(LITMUS_CORPUS))
