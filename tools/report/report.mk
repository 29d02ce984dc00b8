# katomic report (tools/report/): included from the Makefile with
#   include tools/report/report.mk
#   make report          the whole answer on this machine (quick, ~3 minutes): $(BUILD)/report/
#   make report-full     the same with every instrument at full size
#   make check-report    run the report like a user, check every file, render index.html
#                        in headless Chromium (skipped with a note when it is missing):
#                        tools/katomic_tools/report/check.py
.PHONY: report report-full check-report

REPORT_OUT ?= $(BUILD)/report

report: $(BUILD)/katomic
	@KATOMIC_BUILD=$(abspath $(BUILD)) $(BUILD)/katomic report --quick --out $(REPORT_OUT)

report-full: $(BUILD)/katomic
	@KATOMIC_BUILD=$(abspath $(BUILD)) $(BUILD)/katomic report --full --out $(REPORT_OUT)

check-report: $(BUILD)/katomic
	@KATOMIC_ROOT=$(CURDIR) KATOMIC_BUILD=$(abspath $(BUILD)) PYTHONPATH=tools python3 -m katomic_tools.report.check
