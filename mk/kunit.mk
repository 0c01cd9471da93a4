# SPDX-License-Identifier: GPL-2.0-only
#
# The KUnit tier: cxib's KUnit suites in a 6.12 debug kernel under QEMU, on the cxib-pci
# model (Documentation/kunit.md).  Included by the top-level Makefile after mk/driver.mk,
# whose kmod_mirror, CXIB_VERSION, CXIB_CONFIG_DIR and CXIB_DIAG_RE it uses.
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
KUNIT_LOG := $(KUNIT_DIR)/kbuild.log
# The kernel's key directory for the current inputs; "=" so that it is computed (a few
# hashes) only by the recipes that use it, after `kernel` has run.
KUNIT_KERNEL = $(shell $(TOP)/scripts/build-kernel --print-dir)
RUN_KUNIT_FLAGS ?=

.PHONY: kernel kunit-modules check-kunit clean-kunit

kernel:
	@$(TOP)/scripts/build-kernel >/dev/null

# cxib.ko first: its kbuild probes the kernel into $(CXIB_CONFIG_DIR)/<release>/, which the
# test module's objects (the driver's files among them) include.  Then cxib_kunit.ko, with
# cxib.ko's exports known to modpost.  A diagnostic about cxib's files fails the step, as in
# mk/driver.mk, and removes the objects so that the next run reports it again.
kunit-modules: kernel
	+@$(call kmod_mirror,$(KUNIT_TREE))
	+@t0=$$(date +%s); kb=$(KUNIT_KERNEL)/build; log=$(KUNIT_LOG); \
	release=$$(cat $$kb/include/config/kernel.release); \
	kbuild() { $(MAKE) -C $$kb W=1 CXIB_VERSION=$(CXIB_VERSION) \
		CXIB_CONFIG_DIR=$(CXIB_CONFIG_DIR) "$$@" modules >>$$log 2>&1; }; \
	: >$$log; \
	if ! kbuild M=$(KUNIT_TREE) || \
	   ! kbuild M=$(KUNIT_TREE)/tests/kunit KBUILD_EXTRA_SYMBOLS=$(KUNIT_TREE)/Module.symvers; then \
		cat $$log >&2; echo "kunit-modules: FAILED (log: $${log#$(TOP)/})" >&2; exit 1; \
	fi; \
	if grep -Eq '$(CXIB_DIAG_RE)' $$log; then \
		cat $$log >&2; \
		find $(KUNIT_TREE) -name '*.o' -type f -delete; \
		echo "kunit-modules: FAILED, $$(grep -Ec '$(CXIB_DIAG_RE)' $$log) diagnostics in cxib (log: $${log#$(TOP)/})" >&2; \
		exit 1; \
	fi; \
	printf '%-10s %-24s ok, cxib.ko + cxib_kunit.ko, W=1 clean, %ss\n' kunit-mod $$release \
		$$(( $$(date +%s) - t0 ))

# run-kunit boots our QEMU build, so that comes first (cold caches: scripts/build-qemu).
check-kunit: kunit-modules qemu
	@$(TOP)/scripts/run-kunit --tree $(KUNIT_TREE) --out $(KUNIT_DIR) $(RUN_KUNIT_FLAGS)

clean-kunit:
	rm -rf $(KUNIT_DIR)

clean: clean-kunit
