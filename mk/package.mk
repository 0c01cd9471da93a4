# SPDX-License-Identifier: GPL-2.0-only
#
# The package tier: DKMS and the Debian package cxib-dkms.  Included by the top-level Makefile
# after mk/driver.mk, whose CXIB_VERSION and KMOD_KVERS it uses.
#
#   deb             build cxib-dkms from a copy of the tree, into build/deb/
#   lintian         lintian over what `deb` built (fails on errors and warnings)
#   check-package   deb, then scripts/check-package: lintian, install the .deb on this
#                   machine, check DKMS built and installed cxib.ko for every kernel with
#                   headers, purge it (root; the closing line is "N passed, N failed")
#   dkms-install    register this checkout with DKMS as cxib/$(CXIB_VERSION), then build and
#                   install it for every kernel with headers (root)
#   dkms-uninstall  remove what dkms-install installed, for every kernel (root)
#   dkms-source     copy the files DKMS builds from into DKMS_SRC_DIR=<new directory>, with
#                   dkms.conf's version set to $(CXIB_VERSION) (debian/rules uses it)
#   clean-package   remove build/deb
#
# Documentation/packaging.md.

.PHONY: deb lintian check-package dkms-install dkms-uninstall dkms-source clean-package

# Computed on first use (recipes only).
DEB_VERSION = $(eval DEB_VERSION := \
	$(shell dpkg-parsechangelog -l $(TOP)/debian/changelog -S Version 2>/dev/null))$(DEB_VERSION)
DEB_ARCH = $(eval DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null))$(DEB_ARCH)
DEB_DIR := $(TOP)/build/deb
DEB_SRC = $(DEB_DIR)/cxib-$(DEB_VERSION)
DEB_CHANGES = $(DEB_DIR)/cxib_$(DEB_VERSION)_$(DEB_ARCH).changes
DEB_PKG = $(DEB_DIR)/cxib-dkms_$(DEB_VERSION)_all.deb

# What DKMS builds from, relative to $(TOP): the out-of-tree kbuild entry, the kernel feature
# probes, the driver and the hardware interface.  Sources only: kbuild's artefacts from an
# in-tree `make module` are left behind.
DKMS_SRC_ROOTS := compat drivers/infiniband/hw/cxib include/cxib
dkms_src_files = { printf '%s\n' Kbuild Kconfig; \
	find $(DKMS_SRC_ROOTS) -type f \( -name Kbuild -o -name Kconfig -o -name Makefile \
		-o -name '*.[ch]' -o -name run-probes \) ! -name '*.mod.c' | LC_ALL=C sort; }

dkms-source:
	@case "$(DKMS_SRC_DIR)" in /?*) ;; *) \
		echo "dkms-source: set DKMS_SRC_DIR to the absolute path of a new directory" >&2; \
		exit 1;; esac
	@if [ -n "$$(ls -A $(DKMS_SRC_DIR) 2>/dev/null)" ]; then \
		echo "dkms-source: $(DKMS_SRC_DIR) is not empty" >&2; exit 1; fi
	@mkdir -p $(DKMS_SRC_DIR)
	@cd $(TOP) && $(dkms_src_files) | tar -cf - --no-recursion -T - | \
		tar -C $(DKMS_SRC_DIR) -xf - --no-same-owner
	@sed 's/#MODULE_VERSION#/$(CXIB_VERSION)/g' $(TOP)/dkms.conf >$(DKMS_SRC_DIR)/dkms.conf
	@echo "dkms-source: cxib $(CXIB_VERSION) in $(DKMS_SRC_DIR)"

# ---- the Debian package -----------------------------------------------------------------

# The tree as a checkout sees it (tracked and untracked files, not what .gitignore ignores),
# or everything but build/ and results/ without git.
deb_tree_files = if [ -e .git ]; then \
		git ls-files -co --exclude-standard | while read -r f; do \
			[ -e "$$f" ] && printf '%s\n' "$$f"; done; \
	else \
		find . \( -path ./.git -o -path ./build -o -path ./results \) -prune -o \
			\( -type f -o -type l \) -print | sed 's|^\./||'; \
	fi

# dpkg-buildpackage writes next to the tree it builds, so it builds a copy in build/deb/.
deb:
	@t0=$$(date +%s); \
	rm -rf $(DEB_SRC) $(DEB_DIR)/cxib_* $(DEB_DIR)/cxib-dkms_* && mkdir -p $(DEB_SRC) && \
	cd $(TOP) && { $(deb_tree_files); } | tar -cf - --no-recursion -T - | tar -C $(DEB_SRC) -xf - && \
	cd $(DEB_SRC) && { dpkg-buildpackage -us -uc >$(DEB_DIR)/build.log 2>&1 || { \
		tail -n 30 $(DEB_DIR)/build.log >&2; \
		echo "deb: dpkg-buildpackage FAILED (log: build/deb/build.log)" >&2; exit 1; }; } && \
	printf '%-10s %-24s ok, %s, %ss\n' deb "" "$(patsubst $(TOP)/%,%,$(DEB_PKG))" \
		$$(( $$(date +%s) - t0 ))

lintian:
	@test -f $(DEB_CHANGES) || { echo "lintian: no $(DEB_CHANGES); make deb first" >&2; exit 1; }
	lintian --fail-on error,warning $(DEB_CHANGES)

check-package: deb
	@$(TOP)/scripts/check-package $(DEB_CHANGES) $(KMOD_KVERS)

# ---- DKMS from a checkout ---------------------------------------------------------------

dkms-install:
	@$(TOP)/scripts/dkms-checkout install $(CXIB_VERSION)

dkms-uninstall:
	@$(TOP)/scripts/dkms-checkout uninstall

# ---- cleaning -----------------------------------------------------------------------------

clean-package:
	rm -rf $(DEB_DIR)

clean: clean-package
