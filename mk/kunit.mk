# SPDX-License-Identifier: GPL-2.0-only
#
# The KUnit tier: cxib's KUnit suites in a 6.12 debug kernel under QEMU, on the cxib-pci
# model (Documentation/kunit.md).  Included by the top-level Makefile after mk/driver.mk,
# whose kmod_mirror, kbuild_gate, KMOD_SRC_ROOTS, CXIB_KBUILD_ARGS and CXIB_DIAG_RE it
# uses.
#
#   kernel          build (or reuse) the debug kernel: scripts/build-kernel, cached in
#                   $(CXIB_CACHE)/kernel/<key>/ (~10-25 min cold, a second when cached)
#   kunit-modules   cxib.ko and tests/kunit's cxib_kunit.ko against that kernel, W=1, in the
#                   tree of symlinks build/kunit/tree/ (the other builds are not touched)
#   check-kunit     all of the above, then scripts/run-kunit (RUN_KUNIT_FLAGS=... adds
#                   options, e.g. RUN_KUNIT_FLAGS=-v); ends with
#                   "kunit: N passed, N failed, N skipped"
#   clean-kunit     remove build/kunit (the kernel stays in the cache)

KUNIT_DIR := $(TOP)/build/kunit
KUNIT_TREE := $(KUNIT_DIR)/tree
# The kernel's key directory for the current inputs; "=" so that it is computed (a few
# hashes) only by the recipes that use it, after `kernel` has run.
KUNIT_KERNEL = $(shell $(TOP)/scripts/build-kernel --print-dir)
RUN_KUNIT_FLAGS ?=

.PHONY: kernel kunit-modules check-kunit clean-kunit

kernel:
	@$(TOP)/scripts/build-kernel >/dev/null

# cxib.ko first: its kbuild probes the kernel into $(CXIB_CONFIG_DIR)/<release>/, which the
# test module's objects (the driver's files among them) include.  Then cxib_kunit.ko, with
# cxib.ko's exports known to modpost.  Each passes mk/driver.mk's kbuild_gate.
kunit-modules: kernel
	+@$(call kmod_mirror,$(KUNIT_TREE),$(KMOD_SRC_ROOTS))
	+@kb=$(KUNIT_KERNEL)/build; release=$$(cat $$kb/include/config/kernel.release); \
	$(call kbuild_gate,kunit-mod cxib.ko,$$kb,$(KUNIT_TREE),$(KUNIT_DIR)/kbuild.log,$(CXIB_DIAG_RE),$(CXIB_KBUILD_ARGS)); \
	start=$$t0; \
	$(call kbuild_gate,kunit-mod cxib_kunit.ko,$$kb,$(KUNIT_TREE)/tests/kunit,$(KUNIT_DIR)/kbuild-kunit.log,$(CXIB_DIAG_RE),$(CXIB_KBUILD_ARGS) KBUILD_EXTRA_SYMBOLS=$(KUNIT_TREE)/Module.symvers); \
	printf '%-10s %-24s ok, cxib.ko + cxib_kunit.ko, W=1 clean, %ss\n' kunit-mod $$release \
		$$(( $$(date +%s) - start ))

# run-kunit boots our QEMU build, so that comes first (cold caches: scripts/build-qemu).
check-kunit: kunit-modules qemu
	@$(TOP)/scripts/run-kunit --tree $(KUNIT_TREE) --out $(KUNIT_DIR) $(RUN_KUNIT_FLAGS)

clean-kunit:
	rm -rf $(KUNIT_DIR)

clean: clean-kunit
