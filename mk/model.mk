# SPDX-License-Identifier: GPL-2.0-only
#
# Host tier: the cxfw model core (firmware/core) and its unit tests (firmware/tests),
# built and run on the build machine in seconds.  Included by the top-level Makefile,
# which defines TOP.
#
#   make check-host   build core + tests twice into build/host/ (plain -O2, and
#                     ASan/UBSan) and run both; also compile the core with QEMU's
#                     warning flags and every include/cxib header on its own (each must
#                     be self-contained).  The last output line is "N passed, N failed".
#   make clean-host   remove build/host/
#
# Run one test by name:  build/host/san/cxfw-tests <substring>  (CXFW_TEST_VERBOSE=1 for logs)

HOST_CC		?= gcc
HOST_BUILD	:= $(TOP)/build/host
MODEL_CORE_DIR	:= $(TOP)/firmware/core
MODEL_TEST_DIR	:= $(TOP)/firmware/tests

MODEL_CORE_SRCS	:= $(sort $(wildcard $(MODEL_CORE_DIR)/*.c))
MODEL_TEST_SRCS	:= $(sort $(wildcard $(MODEL_TEST_DIR)/*.c))

HOST_CFLAGS	:= -std=c11 -Wall -Wextra -Werror -g -pthread \
		   -I$(TOP)/include -I$(MODEL_CORE_DIR) -MMD -MP
HOST_PLAIN_FLAGS := -O2
HOST_SAN_FLAGS	:= -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all
# The warning flags of QEMU 7.2's build (plus -Wextra): the core is compiled into QEMU,
# so it must stay clean under them.
MODEL_QEMU_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wstrict-prototypes \
		   -Wmissing-prototypes -Wundef -Wold-style-definition -Wredundant-decls \
		   -fPIE -I$(TOP)/include -MMD -MP \
		   -Wshadow=local -Wtype-limits -Wvla -Wimplicit-fallthrough=2 \
		   -Wformat-security -Wnested-externs -Wold-style-declaration -Winit-self \
		   -Wmissing-format-attribute -Wendif-labels -Wexpansion-to-defined \
		   -fno-common -fwrapv

model_objs = $(patsubst $(MODEL_CORE_DIR)/%.c,$(HOST_BUILD)/$(1)/core/%.o,$(MODEL_CORE_SRCS))
model_test_objs = $(patsubst $(MODEL_TEST_DIR)/%.c,$(HOST_BUILD)/$(1)/tests/%.o,$(MODEL_TEST_SRCS))

# $(1): variant directory under build/host, $(2): its extra flags.
define model_host_variant
$(HOST_BUILD)/$(1)/core/%.o: $(MODEL_CORE_DIR)/%.c
	@mkdir -p $$(@D)
	@echo "  CC [$(1)]  firmware/core/$$*.c"
	@$(HOST_CC) $(HOST_CFLAGS) $(2) -c $$< -o $$@

$(HOST_BUILD)/$(1)/tests/%.o: $(MODEL_TEST_DIR)/%.c
	@mkdir -p $$(@D)
	@echo "  CC [$(1)]  firmware/tests/$$*.c"
	@$(HOST_CC) $(HOST_CFLAGS) $(2) -c $$< -o $$@

$(HOST_BUILD)/$(1)/cxfw-tests: $(call model_objs,$(1)) $(call model_test_objs,$(1))
	@echo "  LD [$(1)]  $$(@F)"
	@$(HOST_CC) $(HOST_CFLAGS) $(2) $$^ -o $$@
endef

$(eval $(call model_host_variant,plain,$(HOST_PLAIN_FLAGS)))
$(eval $(call model_host_variant,san,$(HOST_SAN_FLAGS)))

MODEL_QEMU_OBJS := $(call model_objs,qemu-flags)

# include/cxib/*.h one by one, as userspace C11 with the QEMU flags: a header that leans on
# another one's includes, or on a kernel-only helper, fails here.
MODEL_HDRS := $(sort $(wildcard $(TOP)/include/cxib/*.h))
MODEL_HDR_STAMPS := $(patsubst $(TOP)/include/cxib/%.h,$(HOST_BUILD)/headers/%.ok,$(MODEL_HDRS))

$(HOST_BUILD)/headers/%.ok: $(TOP)/include/cxib/%.h $(TOP)/include/cxib/bits.h
	@mkdir -p $(@D)
	@echo "  HDR         include/cxib/$*.h"
	@echo '#include <cxib/$*.h>' | $(HOST_CC) $(filter-out -MMD -MP,$(MODEL_QEMU_CFLAGS)) \
		-std=c11 -x c -fsyntax-only - && touch $@

$(HOST_BUILD)/qemu-flags/core/%.o: $(MODEL_CORE_DIR)/%.c
	@mkdir -p $(@D)
	@echo "  CC [qemu-flags]  firmware/core/$*.c"
	@$(HOST_CC) $(MODEL_QEMU_CFLAGS) -c $< -o $@

.PHONY: check-host clean-host
check-host: $(HOST_BUILD)/plain/cxfw-tests $(HOST_BUILD)/san/cxfw-tests $(MODEL_QEMU_OBJS) \
	    $(MODEL_HDR_STAMPS)
	@log=$(HOST_BUILD)/plain/tests.log; \
	 $(HOST_BUILD)/plain/cxfw-tests >$$log 2>&1; rc=$$?; \
	 if [ $$rc -ne 0 ]; then cat $$log; echo "host (plain): FAILED"; exit $$rc; fi; \
	 echo "host (plain): $$(tail -n 1 $$log)"
	@echo "host (ASan/UBSan):"
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	 $(HOST_BUILD)/san/cxfw-tests

clean-host:
	rm -rf $(HOST_BUILD)

-include $(wildcard $(HOST_BUILD)/*/*/*.d)
