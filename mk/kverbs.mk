# SPDX-License-Identifier: GPL-2.0-only
#
# kverbs.ko, the kernel verbs traffic client of the kverbs lab scenario (tests/e2e/kverbs/,
# tests/e2e/kverbs.sh).  Included by the top-level Makefile after mk/driver.mk and
# mk/lab.mk, whose KMOD_KVERS, kdir_of, kmod_mirror, kbuild_gate and FORCE it uses.
#
#   kverbs        kverbs.ko for Debian's 6.12 and 6.1 kernels, W=1, each built in its own
#                 tree of symlinks build/kverbs/<kver>/tree/tests/e2e/kverbs/ and copied to
#                 build/kverbs/<kver>/kverbs.ko
#   checkpatch-kverbs  checkpatch.pl --strict over tests/e2e/kverbs and tests/kvh (the
#                 kernel-verbs harness it shares with the KUnit live suite)
#   clean-kverbs  remove build/kverbs
#
# check-build (mk/driver.mk) runs kverbs, checkpatch-kverbs, uabuse and ustock too.
#
# It uses only ib_core's exports, so it needs no cxib code.  kmod-path (mk/lab.mk, run by
# scripts/cxlab) builds it next to cxib.ko; cxlab copies it to the lab share as
# /cxlab/modules/<kver>/kverbs.ko.

KVERBS_SRC := $(TOP)/tests/e2e/kverbs
KVERBS_DIR := $(TOP)/build/kverbs
KVERBS_KOS = $(foreach k,$(KMOD_KVERS),$(KVERBS_DIR)/$(k)/kverbs.ko)
# Diagnostics about kverbs' own files fail the build.
KVERBS_DIAG_RE := (kverbs[^ ]*|kvh/kvh)\.[ch]:.*(warning|error):

.PHONY: kverbs checkpatch-kverbs clean-kverbs

kverbs:
	+@$(call submake,$(KVERBS_KOS)) && \
	for ko in $(KVERBS_KOS); do echo "kverbs: $${ko#$(TOP)/}"; done

$(KVERBS_DIR)/%/kverbs.ko: FORCE
	+@$(call kmod_mirror,$(KVERBS_DIR)/$*/tree,tests/e2e/kverbs tests/kvh)
	+@$(call kbuild_gate,kverbs $*,$(call kdir_of,$*),$(KVERBS_DIR)/$*/tree/tests/e2e/kverbs,$(KVERBS_DIR)/$*/build.log,$(KVERBS_DIAG_RE)); \
	cmp -s $$tree/kverbs.ko $@ || cp -p $$tree/kverbs.ko $@; \
	printf '%-10s %-24s ok, W=1 clean, %ss\n' kverbs $* $$(( $$(date +%s) - t0 ))

# The lab takes kverbs.ko along with cxib.ko (kmod-path's recipe prints cxib.ko's path only).
KMOD_PATH_FILES += $(KVERBS_DIR)/$(KVER)/kverbs.ko

kverbs_files = $(patsubst $(TOP)/%,%,$(wildcard $(KVERBS_SRC)/Kbuild $(KVERBS_SRC)/*.[ch] \
		$(TOP)/tests/kvh/*.h))

checkpatch-kverbs: checkpatch-tool
	@cd $(TOP) && out=$$($(CHECKPATCH) $(CHECKPATCH_FLAGS) $(kverbs_files) 2>&1); \
	if printf '%s\n' "$$out" | grep -Eq ': (ERROR|WARNING|CHECK):'; then \
		printf '%s\n' "$$out" >&2; echo "checkpatch-kverbs: FAILED" >&2; exit 1; \
	fi; \
	printf '%-10s %-24s ok, %s files clean (--strict)\n' checkpatch kverbs $(words $(kverbs_files))

CHECK_BUILD_STEPS += kverbs checkpatch-kverbs uabuse ustock
CHECK_BUILD_RESULTS += $(addprefix kverbs-,$(KMOD_KVERS)) checkpatch-kverbs uabuse

clean-kverbs:
	rm -rf $(KVERBS_DIR)

clean: clean-kverbs

# uabuse (tests/e2e/uabuse): a static userspace program that sends hand-made mlx5 driver data
# through the uverbs write() ABI; built on the host (kernel uapi headers and libc only) and
# taken to the guests by cxlab like kverbs.ko, for the uverbs_abuse scenario.
UABUSE_SRC := $(TOP)/tests/e2e/uabuse/uabuse.c
UABUSE_BIN := $(TOP)/build/uabuse/uabuse

$(UABUSE_BIN): $(UABUSE_SRC)
	@mkdir -p $(@D)
	@$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static -o $@ $<

uabuse: $(UABUSE_BIN)
	@printf '%-10s %-24s ok, -Wall -Wextra -Werror, static\n' uabuse ""
kmod-path: $(UABUSE_BIN)
.PHONY: uabuse

# ustock (tests/e2e/ustock): what the stock libibverbs + libmlx5 do on their own (parent
# domain allocators, MLX_*_ALLOC_TYPE=PREFER_HUGE, mlx5dv_devx_alloc_uar()), for the
# stock_lib case of uverbs_neg.  Linked against the guest's own shared rdma-core 44
# libraries, so it needs their headers on the host (libibverbs-dev); without them it is not
# built and the case skips.  cxlab takes it to the guests as /cxlab/bin/ustock.
USTOCK_SRC := $(TOP)/tests/e2e/ustock/ustock.c
USTOCK_BIN := $(TOP)/build/ustock/ustock

$(USTOCK_BIN): $(USTOCK_SRC)
	@mkdir -p $(@D)
	@$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -libverbs -lmlx5

ifneq ($(wildcard /usr/include/infiniband/mlx5dv.h),)
ustock: $(USTOCK_BIN)
	@printf '%-10s %-24s ok, -Wall -Wextra -Werror, libibverbs + libmlx5\n' ustock ""
kmod-path: $(USTOCK_BIN)
CHECK_BUILD_RESULTS += ustock
else
ustock:
	@echo "ustock: no <infiniband/mlx5dv.h> (package libibverbs-dev): not built"
endif
.PHONY: ustock
