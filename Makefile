# SPDX-License-Identifier: GPL-2.0-only
#
# cxib top-level Makefile.
#
#   make                 build cxib.ko against Debian's stock 6.12 headers
#   make KVER=<release>  ... against another installed kernel (or KDIR=<build dir>)
#   make check-quick     host tests of the model + module builds, sparse, checkpatch
#   make check           everything, including the QEMU lab smoke scenario
#   make lab             boot a two-node lab and show it (scripts/cxlab up)
#
# The pieces live in mk/*.mk, one file per tier.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Kernel ABI names, derived from Debian's meta-packages so they match what scripts/setup installed.
kabi_of = $(shell dpkg-query -W -f='$${Depends}' $(1) 2>/dev/null | \
	    sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
KVER_612 := $(call kabi_of,linux-headers-6.12-amd64)
KVER_61  := $(call kabi_of,linux-headers-amd64)
KVER ?= $(KVER_612)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all check check-quick help
all: module

include $(TOP)/mk/driver.mk
include $(TOP)/mk/model.mk
include $(TOP)/mk/lab.mk

check-quick: check-host check-build
	@echo "check-quick: all tiers passed"

check: check-quick check-e2e
	@echo "check: all tiers passed"

help:
	@sed -n '3,11p' $(TOP)/Makefile | sed 's/^# \{0,1\}//'
