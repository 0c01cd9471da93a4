# SPDX-License-Identifier: GPL-2.0-only
#
# cxib top-level Makefile.
#
#   make                 build cxib.ko against Debian's stock 6.12 headers
#   make KVER=<release>  ... against another installed kernel (or KDIR=<build dir>)
#   make check-quick     host tests of the model, the docs' references, module builds, sparse,
#                        checkpatch
#   make check           everything, including the QEMU lab smoke scenario
#   make lab             boot a two-node lab and show it (scripts/cxlab up)
#
# The pieces live in mk/*.mk, one file per tier.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SHELL := /bin/bash

# Nothing runs a command while the makefiles are read (`make help` runs none): a value that
# needs one is a "=" variable that runs it on first use, in a recipe.  Targets named after
# such a value (build/kmod/<kver>/cxib.ko, ...) are made by a sub-make that a recipe runs:
# $(call submake,<targets>), which hands it the kernel names.
submake = $(MAKE) --no-print-directory -C $(TOP) KVER_612=$(KVER_612) KVER_61=$(KVER_61) $(1)

# Kernel ABI names, derived from Debian's meta-packages so they match what scripts/setup installed.
kabi_of = $(shell dpkg-query -W -f='$${Depends}' $(1) 2>/dev/null | \
	    sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
KVER_612 = $(eval KVER_612 := $(call kabi_of,linux-headers-6.12-amd64))$(KVER_612)
KVER_61  = $(eval KVER_61 := $(call kabi_of,linux-headers-amd64))$(KVER_61)
KVER ?= $(KVER_612)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all check check-quick check-tiers check-quick-tiers help
all: module

include $(TOP)/mk/version.mk
include $(TOP)/mk/driver.mk
include $(TOP)/mk/model.mk
include $(TOP)/mk/bench.mk
include $(TOP)/mk/lab.mk
include $(TOP)/mk/kverbs.mk
include $(TOP)/mk/package.mk
include $(TOP)/mk/kunit.mk

# Each tier ends its output with "N passed, N failed"; check and check-quick run the tiers
# with their output logged and close with the sum over every tier.
CHECK_DIR := $(TOP)/build/check
sum_results = awk '/^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed/ { \
	sub(/^[A-Za-z0-9_-]+: /, ""); p += $$1; f += $$3 } \
	END { printf "%s: %d passed, %d failed\n", "$(1)", p, f; exit (f > 0) }' $(2)

# A tier that stops before its closing line still fails the run: make's exit status counts.

CHECK_TIERS := check-host check-scripts check-docs check-build check-package check-kunit \
	check-qemu check-e2e-both
check-quick-tiers: $(wordlist 1,4,$(CHECK_TIERS))
check-tiers: $(CHECK_TIERS)

# The tiers run one after the other, in that order (each waits for the one before it), but
# make runs with -j<cores>: the builds inside a tier, and a later tier's builds, use both
# cores while a tier runs.  Only in these runs: `make check-e2e` alone is what it says.
tier_chain = $(if $(word 2,$(1)),$(eval $(word 2,$(1)): | $(word 1,$(1)))$(call tier_chain,$(wordlist 2,$(words $(1)),$(1))))
ifneq ($(filter check-tiers check-quick-tiers,$(MAKECMDGOALS)),)
$(call tier_chain,$(CHECK_TIERS))
endif

check-quick check:
	@mkdir -p $(CHECK_DIR)
	@set -o pipefail; $(MAKE) --no-print-directory -j$$(nproc) $@-tiers 2>&1 | tee $(CHECK_DIR)/$@.log; \
	rc=$$?; [ $$rc = 0 ] && echo "$@: all tiers passed" || echo "$@: FAILED (see above)"; \
	$(call sum_results,$@,$(CHECK_DIR)/$@.log) && exit $$rc

help:
	@sed -n '3,11p' $(TOP)/Makefile | sed 's/^# \{0,1\}//'
