# The C11-vs-asm differential test: tests/differential/ops.c compiled once per
# backend into objects with different entry points, linked with
# tests/test-differential.c built with -DDIFF_BOTH, one program per compiler.
# Included from the Makefile after the test rules (it uses HAVE_CCS, BACKENDS,
# BUILD, CFLAGS_TEST and HEADERS); `make check-differential` runs it.
.PHONY: check-differential

DIFF_DEPS := tests/test-differential.c tests/differential/ops.c tests/differential/diff.h \
	tests/tap.h $(HEADERS)

ifneq ($(filter asm,$(BACKENDS)),)
$(BUILD)/t/diff-%: $(DIFF_DEPS)
	@mkdir -p $(BUILD)/t/diff-obj-$*
	$* $(CFLAGS_TEST) -DDIFF_NAME=diff_run_c11 -c -o $(BUILD)/t/diff-obj-$*/ops-c11.o tests/differential/ops.c
	$* $(CFLAGS_TEST) -DKATOMIC_BACKEND_ASM -DDIFF_NAME=diff_run_asm -c -o $(BUILD)/t/diff-obj-$*/ops-asm.o tests/differential/ops.c
	$* $(CFLAGS_TEST) -DDIFF_BOTH -o $@ tests/test-differential.c \
		$(BUILD)/t/diff-obj-$*/ops-c11.o $(BUILD)/t/diff-obj-$*/ops-asm.o

check-differential: $(addprefix $(BUILD)/t/diff-,$(HAVE_CCS))
	prove -f $^
else
check-differential:
	@echo 'check-differential: skipped (needs the asm backend: x86-64 only)'
endif
