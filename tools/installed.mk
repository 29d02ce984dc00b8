# The Makefile of an installed copy of the instruments: `make install` puts
# it in $(PREFIX)/share/katomic/ beside tools/, bench/, tests/litmus/ and an
# include/ that points at the installed headers.  The instruments run
# `make -C <that directory> BUILD=<the user's cache> <target>` to build
# their programs (the litmus runner, the benchmarks), as they do in the
# source tree.  Every tools/*/*.mk is included, so an instrument's own rules
# come along without a change here.
ifndef BUILD
$(error BUILD is not set: run the instruments through the katomic command)
endif
.DEFAULT_GOAL := litmus
include $(wildcard tools/*/*.mk) bench/bench.mk
