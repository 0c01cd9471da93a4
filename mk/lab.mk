# SPDX-License-Identifier: GPL-2.0-only
#
# The QEMU lab tier: QEMU with cxib-pci, guest images, the e2e scenarios.
# scripts/cxlab builds what it needs itself (QEMU, images, cxib.ko); these targets are
# conveniences and the `make check` entry.

CXIB_CACHE ?= $(HOME)/.cache/cxib
export CXIB_CACHE
CXLAB := $(TOP)/scripts/cxlab
QEMU_BIN := $(CXIB_CACHE)/bin/qemu-system-x86_64
E2E_SCENARIOS ?= smoke bringup
# make check boots its own lab, separate from one a developer may have up.
CHECK_LAB_DIR := $(CXIB_CACHE)/lab-check

.PHONY: qemu images kmod-path lab lab-down check-e2e check-e2e-61 check-qemu

qemu:
	$(TOP)/scripts/build-qemu

images:
	$(TOP)/scripts/mkrootfs --kver $(KVER)
	$(TOP)/scripts/mkinitramfs --kver $(KVER)

# Build cxib.ko for $(KVER) and print its path (used by cxlab).
kmod-path: $(TOP)/build/kmod/$(KVER)/cxib.ko
	@echo $<

lab:
	$(CXLAB) up -n 2 --json $(TOP)/build/lab.json

lab-down:
	$(CXLAB) down

# The device as QEMU sees it (config space, BAR0 registers, cable), without a guest OS.
check-qemu: qemu
	$(TOP)/firmware/qemu/smoke-test $(QEMU_BIN)

check-e2e: check-qemu
	@mkdir -p $(TOP)/build/check
	CXLAB_DIR=$(CHECK_LAB_DIR) $(CXLAB) run $(E2E_SCENARIOS) \
		--json $(TOP)/build/check/e2e.json

# The same scenarios on Debian's stock 6.1 kernel (cxib.ko built against its headers).
check-e2e-61: check-qemu
	@mkdir -p $(TOP)/build/check
	CXLAB_DIR=$(CHECK_LAB_DIR) $(CXLAB) run $(E2E_SCENARIOS) --kernel 6.1 \
		--json $(TOP)/build/check/e2e-6.1.json
