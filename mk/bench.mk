# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmarks (not tests: nothing here is part of make check).  Included by the top-level
# Makefile, which defines TOP; uses the host tier's variables from mk/model.mk.
#
#   make bench-model   native benchmark of the model's data movement on the host: two
#                      cxfw instances on the fake platform joined by the in-memory cable,
#                      64 KiB RC RDMA WRITEs against memcpy of the same blocks in the same
#                      run (firmware/bench/bench_model.c).  Prints a table and writes the
#                      JSON to build/bench/bench-model.json.  Pass options with
#                      BENCH_MODEL_ARGS="--msgs 8192 --window 8".
#
# Built with -O2 and no sanitizers into build/bench/ (its own objects: never shares a
# build directory with check-host).

BENCH_BUILD		:= $(TOP)/build/bench
BENCH_DIR		:= $(TOP)/firmware/bench
BENCH_MODEL_ARGS	?=
BENCH_MODEL_JSON	:= $(BENCH_BUILD)/bench-model.json
BENCH_CFLAGS		:= -std=c11 -Wall -Wextra -Werror -O2 -g -pthread \
			   -I$(TOP)/include -I$(MODEL_CORE_DIR) -I$(MODEL_TEST_DIR) -MMD -MP
# The fake platform and the mini driver of the host tests, nothing else from firmware/tests.
BENCH_TEST_SRCS		:= fake.c drv.c

BENCH_MODEL_OBJS := $(patsubst $(MODEL_CORE_DIR)/%.c,$(BENCH_BUILD)/core/%.o,$(MODEL_CORE_SRCS)) \
		    $(addprefix $(BENCH_BUILD)/tests/,$(BENCH_TEST_SRCS:.c=.o)) \
		    $(BENCH_BUILD)/bench_model.o

$(BENCH_BUILD)/core/%.o: $(MODEL_CORE_DIR)/%.c
	@mkdir -p $(@D)
	@echo "  CC [bench]  firmware/core/$*.c"
	@$(HOST_CC) $(BENCH_CFLAGS) -c $< -o $@

$(BENCH_BUILD)/tests/%.o: $(MODEL_TEST_DIR)/%.c
	@mkdir -p $(@D)
	@echo "  CC [bench]  firmware/tests/$*.c"
	@$(HOST_CC) $(BENCH_CFLAGS) -c $< -o $@

$(BENCH_BUILD)/bench_model.o: $(BENCH_DIR)/bench_model.c
	@mkdir -p $(@D)
	@echo "  CC [bench]  firmware/bench/bench_model.c"
	@$(HOST_CC) $(BENCH_CFLAGS) -c $< -o $@

$(BENCH_BUILD)/bench_model: $(BENCH_MODEL_OBJS)
	@echo "  LD [bench]  $(@F)"
	@$(HOST_CC) $(BENCH_CFLAGS) $^ -o $@

.PHONY: bench-model clean-bench
bench-model: $(BENCH_BUILD)/bench_model
	@$(BENCH_BUILD)/bench_model --out $(BENCH_MODEL_JSON) $(BENCH_MODEL_ARGS)
	@echo "bench-model: JSON in $(BENCH_MODEL_JSON)"

clean-bench:
	rm -rf $(BENCH_BUILD)

-include $(wildcard $(BENCH_BUILD)/*.d $(BENCH_BUILD)/*/*.d)
