# The code-generation audit (tools/codegen/): included from the Makefile.
#   make codegen         the full audit: $(BUILD)/codegen/codegen.{md,html,json}
#   make check-codegen   regression guard against tools/codegen/expected/
#   make codegen-update  rewrite tools/codegen/expected/ from this machine
.PHONY: codegen check-codegen codegen-update

codegen:
	KATOMIC_ROOT=$(CURDIR) KATOMIC_BUILD=$(CURDIR)/$(BUILD) sh tools/codegen/codegen.sh --out $(BUILD)/codegen

check-codegen:
	@KATOMIC_ROOT=$(CURDIR) KATOMIC_BUILD=$(CURDIR)/$(BUILD) sh tools/codegen/check.sh

codegen-update:
	@KATOMIC_ROOT=$(CURDIR) KATOMIC_BUILD=$(CURDIR)/$(BUILD) sh tools/codegen/check.sh --update
