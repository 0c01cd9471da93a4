# SPDX-License-Identifier: GPL-2.0-only
#
# The build tier: cxib.ko and its static checks.  Included by the top-level Makefile, which
# sets TOP, KVER, KVER_612, KVER_61 and KDIR, after mk/version.mk (CXIB_VERSION).
#
#   module        cxib.ko for $(KVER) from $(KDIR), built in the source tree
#   modules-all   cxib.ko for Debian's 6.12 and 6.1 kernels with W=1, each built in its own
#                 tree of symlinks build/kmod/<kver>/ and copied to build/kmod/<kver>/cxib.ko
#   sparse        sparse (C=2) over the driver, for both kernels
#   checkpatch    checkpatch.pl --strict over the driver and include/cxib
#   check-build   all of the above but `module`, and mk/kverbs.mk's builds: one line per
#                 result, then "check-build: N passed, N failed" counted from those lines
#   clean-build   remove build/kmod, build/compat and kbuild's artefacts in the source tree
#                 (only ours)
#
# Any build/kmod/<kver>/cxib.ko is a target of its own (mk/lab.mk's kmod-path uses it).
# Every kbuild of cxib first probes its kernel into build/compat/<kver>/cxib_config.h
# (compat/, Documentation/compat.md); all the targets here share that one cache.

.PHONY: module modules-all sparse checkpatch check-build clean-build clean FORCE

# The kernel feature probes' results, one directory per kernel release.
CXIB_CONFIG_DIR := $(TOP)/build/compat

# Kernels that modules-all, sparse and check-build cover.
KMOD_KVERS = $(strip $(KVER_612) $(filter-out $(KVER_612),$(KVER_61)))
KMOD_DIR := $(TOP)/build/kmod
KMOD_KOS = $(foreach k,$(KMOD_KVERS),$(KMOD_DIR)/$(k)/cxib.ko)
# Where kbuild looks for a kernel: $(KDIR) for $(KVER), the installed headers otherwise.
kdir_of = $(if $(filter $(1),$(KVER)),$(KDIR),/lib/modules/$(1)/build)

# Sources that kbuild reads, relative to $(TOP), and the pattern that picks out diagnostics
# about them (absolute or relative paths, in gcc, kernel-doc, modpost and sparse output).
KMOD_SRC_ROOTS := $(patsubst $(TOP)/%,%,$(wildcard $(addprefix $(TOP)/,\
		  Kbuild compat drivers/infiniband/hw/cxib include/cxib tests/kunit tests/kvh)))
CXIB_DIAG_RE := (drivers/infiniband/hw/cxib|include/cxib|tests/kunit|tests/kvh)/.*(warning|error|WARNING|ERROR):
# What every kbuild of cxib's sources is given (the version, the probes' cache).
CXIB_KBUILD_ARGS = CXIB_VERSION=$(CXIB_VERSION) CXIB_CONFIG_DIR=$(CXIB_CONFIG_DIR)

# kmod_mirror(tree, roots): make <tree> a tree of symlinks to the current sources under
# <roots> (relative to $(TOP)); kbuild writes its objects next to the sources, so each
# build gets its own tree.  Links to sources that have gone away are dropped.
define kmod_mirror
mkdir -p $(1) && cd $(TOP) && \
find $(2) -type f \( -name Kbuild -o -name Makefile -o -name Kconfig \
	-o -name '*.[ch]' -o -name run-probes \) ! -name '*.mod.c' | \
while read -r f; do \
	case $$f in */*) mkdir -p "$(1)/$${f%/*}" || exit;; esac; \
	ln -sfn "$(TOP)/$$f" "$(1)/$$f" || exit; \
done && \
find $(1) -xtype l -delete
endef

# kbuild_gate(step, kdir, tree, log, diagnostics, kbuild arguments): the gate every kernel
# module of the project passes (cxib.ko, sparse, the KUnit modules, kverbs.ko): build
# M=<tree> against <kdir> with W=1, quietly, into <log>.  Fails with "<step>: FAILED ..."
# and the log when kbuild fails or when a line of the log matches the extended regex
# <diagnostics> (a file of ours named in a diagnostic); after such a diagnostic the tree's
# objects are removed, so the next run compiles again and reports it again.  Leaves the
# tree in $$tree, the log in $$log, the start time in $$t0 and the count of all
# diagnostics (ours are none by then) in $$other.
define kbuild_gate
t0=$$(date +%s); tree=$(3); log=$(4); \
if [ ! -d $(2)/ ]; then \
	echo "$(1): FAILED, no kernel build directory $(2) (scripts/setup installs the headers)" >&2; \
	exit 1; \
fi; \
$(MAKE) -C $(2) M=$$tree W=1 $(6) modules >$$log 2>&1 || { \
	cat $$log >&2; echo "$(1): FAILED (log: $${log#$(TOP)/})" >&2; exit 1; }; \
if grep -Eq '$(5)' $$log; then \
	cat $$log >&2; \
	find $$tree -name '*.o' -type f -delete; rm -f $$tree/Module.symvers; \
	echo "$(1): FAILED, $$(grep -Ec '$(5)' $$log) diagnostics (log: $${log#$(TOP)/})" >&2; \
	exit 1; \
fi; \
other=$$(grep -Ec '(warning|error):' $$log)
endef

# cxib_gate(step, kver, log name, extra kbuild arguments): cxib.ko in build/kmod/<kver>.
cxib_gate = $(call kbuild_gate,$(1) $(2),$(call kdir_of,$(2)),$(KMOD_DIR)/$(2),$(KMOD_DIR)/$(2)/$(3).log,$(CXIB_DIAG_RE),$(CXIB_KBUILD_ARGS) $(4))
# ", N diagnostics outside cxib (see <log>)" after a gate, if there were any.
gate_other = "$$( [ $$other = 0 ] || echo ", $$other diagnostics outside cxib (see $${log\#$(TOP)/})")"

# ---- module: the in-tree build a developer runs -------------------------------------

module:
	@if [ ! -d $(KDIR)/ ]; then \
		echo "module: no kernel build directory $(KDIR) (install linux-headers-$(KVER), or set KDIR=)" >&2; \
		exit 1; \
	fi
	+$(MAKE) -C $(KDIR) M=$(TOP) $(CXIB_KBUILD_ARGS) modules
	@echo "module: drivers/infiniband/hw/cxib/cxib.ko for $(KVER), version $(CXIB_VERSION)"

# ---- modules-all and build/kmod/<kver>/cxib.ko ---------------------------------------

modules-all:
	+@[ -n "$(KMOD_KVERS)" ] || { \
		echo "modules-all: no Debian kernel headers found (scripts/setup installs them)" >&2; \
		exit 1; }; \
	$(call submake,$(KMOD_KOS)) && \
	for ko in $(KMOD_KOS); do echo "modules-all: $${ko#$(TOP)/}"; done

$(KMOD_DIR)/%/cxib.ko: FORCE
	+@$(call kmod_mirror,$(KMOD_DIR)/$*,$(KMOD_SRC_ROOTS))
	+@$(call cxib_gate,build,$*,build); \
	ko=$$tree/drivers/infiniband/hw/cxib/cxib.ko; \
	cmp -s $$ko $@ || cp -p $$ko $@; \
	printf '%-10s %-24s ok, W=1 clean, %ss%s\n' build $* $$(( $$(date +%s) - t0 )) $(gate_other)

FORCE:

# ---- sparse -------------------------------------------------------------------------

sparse: modules-all
	+@$(call submake,$(addprefix sparse-,$(KMOD_KVERS)))

# C=2 checks every file whether or not it is rebuilt; after modules-all the tree is built, so
# this runs sparse only.
sparse-%: FORCE
	+@$(call kmod_mirror,$(KMOD_DIR)/$*,$(KMOD_SRC_ROOTS))
	+@$(call cxib_gate,sparse,$*,sparse,C=2 CF="-D__CHECK_ENDIAN__"); \
	printf '%-10s %-24s ok, %s files clean, %ss%s\n' sparse $* \
		$$(grep -c '^ *CHECK ' $$log) $$(( $$(date +%s) - t0 )) $(gate_other)

# ---- checkpatch ---------------------------------------------------------------------

# checkpatch.pl comes from Debian's linux-source-6.12, extracted once into a cache keyed by
# the tarball's name, size and mtime.
CHECKPATCH_TARBALL ?= /usr/src/linux-source-6.12.tar.xz
CHECKPATCH_CACHE ?= $(HOME)/.cache/cxib/checkpatch
CHECKPATCH_SRCDIR := $(basename $(basename $(notdir $(CHECKPATCH_TARBALL))))
CHECKPATCH_KEY = $(eval CHECKPATCH_KEY := \
	$(CHECKPATCH_SRCDIR)-$(shell stat -c '%s-%Y' $(CHECKPATCH_TARBALL) 2>/dev/null))$(CHECKPATCH_KEY)
CHECKPATCH = $(CHECKPATCH_CACHE)/$(CHECKPATCH_KEY)/checkpatch.pl
CHECKPATCH_FLAGS := --strict --no-tree --terse --show-types -f

# include/cxib is shared with the userspace model and names each field "dword, hi, lo", so:
#   COMPLEX_MACRO     field macros are bare lists on purpose (parentheses would break them)
#   MACRO_ARG_UNUSED  the accessor helpers take the whole triple and use part of it
#   MACRO_ARG_REUSE   the triple is made of integer constants
#   BIT_MACRO         BIT() is kernel-only
CHECKPATCH_HW_IGNORE := COMPLEX_MACRO,MACRO_ARG_UNUSED,MACRO_ARG_REUSE,BIT_MACRO

# Evaluated when the rule runs, so new files are picked up.  The top-level Kconfig is left
# out: it only sources the driver's, and checkpatch flags any file naming its own file name.
checkpatch_driver_files = $(filter-out %.mod.c,$(patsubst $(TOP)/%,%,$(wildcard \
	$(TOP)/Kbuild \
	$(addprefix $(TOP)/compat/,*.c probes/*.c) \
	$(addprefix $(TOP)/drivers/infiniband/hw/cxib/,Kbuild Kconfig *.c *.h) \
	$(addprefix $(TOP)/tests/kunit/,Kbuild Kconfig *.c *.h))))
checkpatch_hw_files = $(patsubst $(TOP)/%,%,$(wildcard $(TOP)/include/cxib/*.h))

checkpatch: checkpatch-tool
	@t0=$$(date +%s); cd $(TOP) && \
	out=$$( { $(CHECKPATCH) $(CHECKPATCH_FLAGS) $(checkpatch_driver_files); \
		  $(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore $(CHECKPATCH_HW_IGNORE) \
			$(checkpatch_hw_files); } 2>&1 ); \
	n=$$(printf '%s\n' "$$out" | grep -Ec ': (ERROR|WARNING|CHECK):'); \
	if [ $$n != 0 ] || printf '%s\n' "$$out" | grep -v '^total: 0 errors, 0 warnings, 0 checks' | grep -q .; then \
		printf '%s\n' "$$out" >&2; \
		echo "checkpatch: FAILED, $$n findings" >&2; exit 1; \
	fi; \
	printf '%-10s %-24s ok, %s files clean (--strict), %ss\n' checkpatch \
		"" $(words $(checkpatch_driver_files) $(checkpatch_hw_files)) $$(( $$(date +%s) - t0 ))

# $(CHECKPATCH), extracted unless the cache has it.
.PHONY: checkpatch-tool
checkpatch-tool:
	@[ -x $(CHECKPATCH) ] || { \
	dir=$(CHECKPATCH_CACHE)/$(CHECKPATCH_KEY); \
	if [ ! -r $(CHECKPATCH_TARBALL) ]; then \
		echo "checkpatch: $(CHECKPATCH_TARBALL) is missing (package linux-source-6.12; scripts/setup installs it)" >&2; \
		exit 1; \
	fi; \
	echo "checkpatch: extracting checkpatch.pl from $(CHECKPATCH_TARBALL) into $$dir"; \
	rm -rf $$dir.tmp && mkdir -p $$dir.tmp && \
	tar -xJf $(CHECKPATCH_TARBALL) -C $$dir.tmp --strip-components=2 \
		$(addprefix $(CHECKPATCH_SRCDIR)/scripts/,checkpatch.pl spelling.txt const_structs.checkpatch) && \
	find $(CHECKPATCH_CACHE) -mindepth 1 -maxdepth 1 ! -name '$(CHECKPATCH_KEY).tmp' -exec rm -rf {} + && \
	mv $$dir.tmp $$dir; }

# ---- check-build ----------------------------------------------------------------------

# The steps, and one word for each result line they print: "<step> [<what>] ok, ..." or
# "<step> [<what>]: FAILED ...".  mk/kverbs.mk adds its own.
CHECK_BUILD_STEPS := modules-all sparse checkpatch
CHECK_BUILD_RESULTS = $(addprefix build-,$(KMOD_KVERS)) $(addprefix sparse-,$(KMOD_KVERS)) checkpatch
CHECK_BUILD_LOG := $(KMOD_DIR)/check-build.log

# The steps run with -k, so that a failure does not hide the other results.  The closing
# line counts the result lines printed; a result that never printed (its step did not run,
# or died without a word) counts as failed.
check-build:
	+@mkdir -p $(KMOD_DIR); set -o pipefail; \
	$(call submake,-k $(CHECK_BUILD_STEPS)) 2>&1 | tee $(CHECK_BUILD_LOG); rc=$$?; \
	p=$$(grep -Ec '^[a-z-]+ +([^ ]+ +)?ok, ' $(CHECK_BUILD_LOG)); \
	f=$$(grep -Ec '^[a-z-]+( [^ ]+)?: FAILED' $(CHECK_BUILD_LOG)); \
	missing=$$(( $(words $(CHECK_BUILD_RESULTS)) - p - f )); \
	[ $$missing -le 0 ] || f=$$(( f + missing )); \
	[ $$rc = 0 ] || [ $$f -gt 0 ] || f=1; \
	echo "check-build: $$p passed, $$f failed"; \
	[ $$rc = 0 ] && [ $$f = 0 ]

# ---- cleaning -------------------------------------------------------------------------

# Not "make -C $(KDIR) M=$(TOP) clean": kbuild's clean deletes every *.[aios] file under
# M, which would take the other tiers' build/ outputs with it.  The same patterns, scoped to
# the directories kbuild writes in:
KBUILD_ARTEFACTS := '*.o' '*.a' '*.ko' '*.ko.*' '*.mod' '*.mod.c' '.*.cmd' '.*.d' '.*.tmp' \
		    '*.dwo' '*.su' '*.lst' 'modules.order' 'Module.symvers'
kbuild_artefacts_find = \( $(subst ' ',' -o -name ',-name $(KBUILD_ARTEFACTS)) \) -type f

clean-build:
	rm -rf $(KMOD_DIR) $(CXIB_CONFIG_DIR)
	-@rmdir $(TOP)/build 2>/dev/null || true
	find $(TOP) -maxdepth 1 $(kbuild_artefacts_find) -delete
	find $(addprefix $(TOP)/,$(filter-out Kbuild,$(KMOD_SRC_ROOTS))) $(kbuild_artefacts_find) -delete

# Other tiers add their own prerequisites to clean (plain "clean: clean-<tier>" rules).
clean: clean-build
