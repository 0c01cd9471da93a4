# SPDX-License-Identifier: GPL-2.0-only
#
# The QEMU lab tier: QEMU with cxib-pci, guest images, the e2e scenarios.
# scripts/cxlab builds what it needs itself (QEMU, images, cxib.ko); these targets are
# conveniences and the `make check` entry.

CXIB_CACHE ?= $(HOME)/.cache/cxib
export CXIB_CACHE
CXLAB := $(TOP)/scripts/cxlab
QEMU_BIN := $(CXIB_CACHE)/bin/qemu-system-x86_64
# package_boot asks for nodes that boot systemd (its "# cxlab:" line): cxlab run boots a
# lab for it after the others.  mlx5 moves node2 of the shared lab to the stock mlx5
# drivers and back.  The pingpong and perftest matrices run inside mlx5, between cxib and
# the stock driver with each side serving once (every cxib path of the cxib-to-cxib run, in
# both roles, against an independent peer); `cxlab run pingpong perftest` runs them cxib to
# cxib.
E2E_SCENARIOS ?= smoke bringup sm sm_failover sm_partition kverbs uverbs_neg uverbs_abuse \
	ipoib rdma_cm nvmeof nvmeof_fail faults removal mlx5 package_boot
# make check boots its own lab, separate from one a developer may have up.
CHECK_LAB_DIR := $(CXIB_CACHE)/lab-check

.PHONY: qemu images kmod-path lab lab-down check-e2e check-e2e-61 check-e2e-both check-e2e-debug check-qemu check-scripts check-docs

# Unit tests of the lab's Python (scripts/tests): parsing, tables, JSON, retry policy.
# References a reader cannot follow: notes outside the repository, missing paths in docs.
check-docs:
	@$(TOP)/scripts/check-docs $(TOP)

check-scripts:
	@$(TOP)/scripts/tests/run

qemu:
	$(TOP)/scripts/build-qemu

images:
	$(TOP)/scripts/mkrootfs --kver $(KVER)
	$(TOP)/scripts/mkinitramfs --kver $(KVER)

# Build cxib.ko for $(KVER) and print its path (used by cxlab).  mk/kverbs.mk adds to the
# files built with it.
KMOD_PATH_FILES = $(TOP)/build/kmod/$(KVER)/cxib.ko
kmod-path:
	+@$(call submake,$(KMOD_PATH_FILES))
	@echo $(TOP)/build/kmod/$(KVER)/cxib.ko

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
		--capture-sweep $(TOP)/build/check/sweep.pcap --json $(TOP)/build/check/e2e.json
	$(TOP)/scripts/check-capture $(TOP)/build/check/sweep.pcap

# The same scenarios on Debian's stock 6.1 kernel (cxib.ko built against its headers).
check-e2e-61: check-qemu
	@mkdir -p $(TOP)/build/check
	CXLAB_DIR=$(CHECK_LAB_DIR) $(CXLAB) run $(E2E_SCENARIOS) --kernel 6.1 \
		--json $(TOP)/build/check/e2e-6.1.json

# The debug tier: the scenarios that drive cxib's own code, on a kernel with KASAN,
# lockdep, kmemleak, DEBUG_OBJECTS and the hung-task detector at 30 s
# (scripts/lib/debug-kernel.config, built by scripts/build-kernel: under 10 min cold on two
# cores, cached after that).  cxlab checks kmemleak on every node after each scenario; a
# scenario fails on any report in the kernel log (tests/e2e/check.sh, SPLAT_RE).  Not part
# of make check (a third lab of slow guests beside the two does not fit CI's budget): run
# it before resolving work that touches the driver's locking, memory or teardown.  Left
# out: mlx5 (the stock mlx5 drivers are not in this kernel), package_boot (DKMS needs
# Debian's kernel), sm_failover and sm_partition (opensm's behaviour; sm covers cxib's
# SMA).  removal runs its full matrix here (E2E_REMOVAL=full); ipoib's floor of data moved
# per iperf3 run is 100 kB (E2E_IPOIB_MIN_BYTES) and every scenario has four times its own
# timeout, and the guests 900 s to boot (60 s on an idle machine, over 300 s beside a make
# check): KASAN guests beside other labs run several times slower.
E2E_DEBUG_SCENARIOS ?= smoke bringup sm kverbs uverbs_neg uverbs_abuse ipoib rdma_cm \
	nvmeof nvmeof_fail faults removal
check-e2e-debug: check-qemu
	@mkdir -p $(TOP)/build/check
	E2E_REMOVAL=full E2E_IPOIB_MIN_BYTES=100000 CXLAB_DIR=$(CXIB_CACHE)/lab-debug \
		$(CXLAB) run $(E2E_DEBUG_SCENARIOS) --kernel debug --timeout-scale 4 --boot-timeout 900 \
		--json $(TOP)/build/check/e2e-debug.json

# make check: both kernels' labs side by side, each in its own lab directory.  A lab's
# guests are idle much of the time (a scenario waits for an SM sweep, a peer, a timer), so
# the two share the cores well; cxlab serializes their builds and boots (lab-up.lock).
# Each run's lines stream with a "6.12| " or "6.1| " prefix; its closing table and
# "N passed, N failed" lines are printed again without it once both have ended.
E2E_BOTH_LOGS := $(TOP)/build/check/e2e-6.12.log $(TOP)/build/check/e2e-6.1.log
check-e2e-both: check-qemu
	@mkdir -p $(TOP)/build/check; set -o pipefail; \
	{ CXLAB_DIR=$(CHECK_LAB_DIR) $(CXLAB) run $(E2E_SCENARIOS) \
		--capture-sweep $(TOP)/build/check/sweep.pcap --json $(TOP)/build/check/e2e.json \
		2>&1 | tee $(word 1,$(E2E_BOTH_LOGS)) | sed -u 's/^/6.12| /'; } & p612=$$!; \
	{ sleep 5; CXLAB_DIR=$(CHECK_LAB_DIR)-6.1 $(CXLAB) run $(E2E_SCENARIOS) --kernel 6.1 \
		--json $(TOP)/build/check/e2e-6.1.json \
		2>&1 | tee $(word 2,$(E2E_BOTH_LOGS)) | sed -u 's/^/6.1| /'; } & p61=$$!; \
	rc=0; wait $$p612 || rc=1; wait $$p61 || rc=1; \
	for log in $(E2E_BOTH_LOGS); do \
		echo "== $${log#$(TOP)/}: the run's table"; \
		sed -n '/^scenario  *node  *result/,$$p' $$log; \
		grep -qE '^cxlab: [0-9]+ passed, [0-9]+ failed' $$log || { \
			echo "e2e: 0 passed, 1 failed ($${log#$(TOP)/} has no closing count)"; rc=1; }; \
	done; \
	$(TOP)/scripts/check-capture $(TOP)/build/check/sweep.pcap || rc=1; \
	exit $$rc
