// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command trace (cmdtrace.c): one line per executed command, with the header fields,
 * the status and syndrome, and the input fields the model decodes, each marked with its
 * kind (plain value, ~size, #reference).
 */
#include <stdio.h>
#include <string.h>

#include "drv.h"

TEST(cmd_trace_records_bringup_with_decoded_fields)
{
	unsigned int first = 0, l_enable, l_issi, l_init, l_eq;
	const char *ln;
	uint64_t buf;
	uint32_t uar, eqn;

	CHECK_EQ(drv_bringup(t), 0);
	/* every command of the bring-up has its line, numbered from 0, in order */
	CHECK(!strncmp(t->fk.trace, "0 ", 2));
	ln = fake_trace_find(&t->fk, 0, " ENABLE_HCA op_mod=0x0 status=0x00 syndrome=0x00000000"
			     " function_id=0x0", &l_enable);
	CHECK(ln != NULL);
	ln = fake_trace_find(&t->fk, 0, " SET_ISSI op_mod=0x0 status=0x00 syndrome=0x00000000"
			     " current_issi=0x1", &l_issi);
	CHECK(ln != NULL);
	ln = fake_trace_find(&t->fk, 0, " INIT_HCA op_mod=0x0 status=0x00", &l_init);
	CHECK(ln != NULL);
	CHECK(l_enable < l_issi && l_issi < l_init);
	CHECK(fake_trace_find(&t->fk, 0, " MANAGE_PAGES op_mod=0x1 status=0x00 syndrome=0x00000000"
			      " function_id=0x0 input_num_entries=~0x", NULL) != NULL);
	CHECK(fake_trace_find(&t->fk, 0, " QUERY_HCA_CAP op_mod=0x1 status=0x00", NULL) != NULL);
	first = t->fk.trace_lines;

	/* CREATE_EQ: context fields by kind */
	CHECK_EQ(drv_alloc_uar(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 4);
	CHECK_EQ(drv_create_eq(t, buf, 4, uar, 0, 1ull << CXIB_EVENT_TYPE_CMD, &eqn), 0);
	ln = fake_trace_find(&t->fk, first, " CREATE_EQ op_mod=0x0 status=0x00", &l_eq);
	CHECK(ln != NULL);
	if (ln) {
		char want[64];

		CHECK(strstr(ln, " log_eq_size=~0x4 ") != NULL);
		snprintf(want, sizeof(want), " uar_page=#0x%x ", uar);
		CHECK(strstr(ln, want) != NULL);
		snprintf(want, sizeof(want), " event_bitmask=0x%llx\n",
			 1ull << CXIB_EVENT_TYPE_CMD);
		CHECK(strstr(ln, want) != NULL);
	}
	CHECK_EQ(t->fk.trace_lines, l_eq + 1);
}

TEST(cmd_trace_records_failures_and_unknown_opcodes)
{
	__be32 out[4];
	unsigned int n;

	CHECK_EQ(cmd_simple(t, 0x7777, 3, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK(fake_trace_find(&t->fk, 0, " 0x7777 op_mod=0x3 status=0x02 syndrome=0x", NULL));
	/* a known command in the wrong state: its name, status and syndrome */
	n = t->fk.trace_lines;
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DISABLE_HCA, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK(fake_trace_find(&t->fk, n, " DISABLE_HCA op_mod=0x0 status=0x04 syndrome=0x", NULL));
	CHECK_EQ(t->fk.trace_lines, n + 1);
}
