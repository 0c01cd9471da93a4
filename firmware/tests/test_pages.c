// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Firmware pages: QUERY_PAGES / MANAGE_PAGES, every page checked, held and given back; the
 * full bring-up and teardown as mlx5_core does it (mlx5_core: main.c mlx5_function_setup() / mlx5_function_teardown()) with page
 * accounting that proves every page came back.
 */
#include <stdlib.h>
#include <string.h>

#include "drv.h"

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

/* MANAGE_PAGES give with explicit addresses; returns the output status. */
static unsigned int give_addrs(struct test_ctx *t, const uint64_t *a, uint32_t n)
{
	uint8_t in[CXIB_MANAGE_PAGES_IN_LEN(8)] = { 0 };
	__be32 out[4];
	uint32_t i;

	cmd_hdr(in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_GIVE);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	for (i = 0; i < n; i++)
		CXIB_SET64(in + CXIB_MANAGE_PAGES_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA, a[i]);
	if (cmd_exec(t, in, CXIB_MANAGE_PAGES_IN_LEN(n), out, 16))
		return 0x1ff;
	return out_status(out);
}

TEST(query_pages_asks_for_boot_then_init_pages)
{
	int32_t n;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(n, 16);
	CHECK_EQ(drv_give_pages(t, 10), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(n, 6);
	CHECK_EQ(drv_give_pages(t, 6), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_INIT, &n), 0);
	CHECK_EQ(n, 64);
	CHECK_EQ(drv_give_pages(t, 64), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_INIT, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_REGULAR, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(stats(t).pages_held, 80);
	/* more than asked for */
	CHECK_EQ(drv_give_pages(t, 1), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(stats(t).pages_held, 80);
}

TEST(page_count_knobs)
{
	struct cxfw_config cfg;
	int32_t n;

	cxfw_config_defaults(&cfg);
	cfg.boot_pages = 0;
	cfg.init_pages = 3;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(stats(t).pages_held, 3);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(drv_teardown(t), 0);
	cfg.init_pages = 70000;	/* over the 65536 limit: bad config */
	CHECK(!test_recreate(t, &cfg, FAKE_MEM_BASE));
}

TEST(manage_pages_give_checks_every_address)
{
	uint64_t pool = t->fk.base + FAKE_PAGES_OFF, a[4];
	int32_t n;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	/* misaligned */
	a[0] = pool;
	a[1] = pool + 0x1800;
	CHECK_EQ(give_addrs(t, a, 2), CXIB_CMD_STAT_BAD_PARAM);
	/* outside guest memory, partly outside, address 0 */
	a[1] = 0x7f0000000000ull;
	CHECK_EQ(give_addrs(t, a, 2), CXIB_CMD_STAT_BAD_PARAM);
	a[1] = t->fk.base + FAKE_MEM_SIZE - 0x800;
	a[1] &= ~0xfffull;
	a[1] += 0x1000;					/* first byte past the end */
	CHECK_EQ(give_addrs(t, a, 2), CXIB_CMD_STAT_BAD_PARAM);
	a[1] = 0;
	CHECK_EQ(give_addrs(t, a, 2), CXIB_CMD_STAT_BAD_PARAM);
	/* duplicates in one command */
	a[1] = pool + 0x2000;
	a[2] = pool;
	CHECK_EQ(give_addrs(t, a, 3), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(stats(t).pages_held, 0);		/* all or nothing */
	/* good, then the same page again */
	CHECK_EQ(give_addrs(t, a, 2), 0);
	CHECK_EQ(stats(t).pages_held, 2);
	a[0] = pool + 0x5000;
	a[1] = pool + 0x2000;
	CHECK_EQ(give_addrs(t, a, 2), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(stats(t).pages_held, 2);
}

TEST(manage_pages_lengths_and_function)
{
	uint8_t in[CXIB_MANAGE_PAGES_IN_LEN(4)] = { 0 };
	__be32 out[4];
	uint32_t got;

	CHECK_EQ(drv_enable_hca(t), 0);
	/* 4 entries announced, room for 2 */
	cmd_hdr(in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_GIVE);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 4);
	CHECK_EQ(cmd_exec(t, in, CXIB_MANAGE_PAGES_IN_LEN(2), out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_INPUT_LEN);
	/* an absurd count */
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 0xffffffffu);
	CHECK_EQ(cmd_exec(t, in, sizeof(in), out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_INPUT_LEN);
	/* take with no room for the answer */
	cmd_hdr(in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_TAKE);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, 10);
	CHECK_EQ(cmd_exec(t, in, 16, out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_OUTPUT_LEN);
	/* other functions */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_MANAGE_PAGES, 1, 1, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, 1, 0x80000000u, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	/* allocation-failure notice is accepted */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_MANAGE_PAGES, 0, 0, 0, out, 16), 0);
	/* nothing to take yet */
	CHECK_EQ(drv_take_pages(t, 5, &got), 0);
	CHECK_EQ(got, 0);
}

TEST(manage_pages_take_returns_only_what_the_device_can_spare)
{
	uint32_t got;
	int32_t n;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(stats(t).pages_held, 80);
	CHECK_EQ(drv_take_pages(t, 10, &got), 0);
	CHECK_EQ(got, 0);				/* initialized: it needs all 80 */
	CHECK_EQ(drv_teardown_hca(t), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_REGULAR, &n), 0);
	CHECK_EQ(n, -80);				/* please take them all */
	CHECK_EQ(drv_take_pages(t, 30, &got), 0);
	CHECK_EQ(got, 30);
	CHECK_EQ(drv_take_pages(t, 768, &got), 0);
	CHECK_EQ(got, 50);
	CHECK_EQ(drv_take_pages(t, 768, &got), 0);
	CHECK_EQ(got, 0);
	CHECK_EQ(drv_pages_out(), 0);			/* each page came back exactly once */
	CHECK_EQ(drv_give_pages(t, 1), CXIB_CMD_STAT_BAD_PARAM);	/* not wanted now */
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(stats(t).pages_leaked, 0);
}

/*
 * An aborted bring-up (mlx5_core: set_hca_cap fails, mlx5_function_disable() reclaims, then
 * DISABLE_HCA): before INIT_HCA every page comes back, boot pages included, and INIT_HCA
 * then lacks them.
 */
TEST(manage_pages_take_before_init_hca_returns_every_page)
{
	uint32_t got;
	int32_t n;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(drv_give_pages(t, (uint32_t)n), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_INIT, &n), 0);
	CHECK_EQ(drv_give_pages(t, (uint32_t)n), 0);
	CHECK_EQ(stats(t).pages_held, 80);
	CHECK_EQ(drv_take_pages(t, 50, &got), 0);
	CHECK_EQ(got, 50);
	CHECK_EQ(drv_init_hca(t), CXIB_CMD_STAT_NO_RESOURCES);
	CHECK_EQ(drv_take_pages(t, 768, &got), 0);
	CHECK_EQ(got, 30);
	CHECK_EQ(drv_pages_out(), 0);			/* each page came back exactly once */
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(stats(t).pages_leaked, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 2);		/* the INIT_HCA and its complaint */
}

TEST(full_bringup_and_teardown_returns_every_page)
{
	__be32 out[CXIB_QUERY_ADAPTER_OUT_LEN / 4];
	uint32_t uar, eqn;
	uint64_t buf;
	unsigned int round;

	for (round = 0; round < 2; round++) {
		/* mlx5_core's order: mlx5_function_setup() */
		CHECK_EQ(drv_bringup(t), 0);
		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, NULL, 0), 0x108);
		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ADAPTER, 0, 0, 0, out, sizeof(out)), 0);
		CHECK_EQ(drv_alloc_uar(t, &uar), 0);
		buf = drv_eq_buffer(t, 0, 8);
		CHECK_EQ(drv_create_eq(t, buf, 8, uar, 0, 1ull << CXIB_EVENT_TYPE_CMD, &eqn), 0);
		drv_eq_doorbell(t, uar, eqn, 0, true);
		CHECK_EQ(stats(t).pages_held, 80);
		/* 4.2: destroy EQs, DEALLOC_UAR, TEARDOWN_HCA, reclaim, DISABLE_HCA */
		CHECK_EQ(drv_destroy_eq(t, eqn), 0);
		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, uar, 0, out, 16), 0);
		CHECK_EQ(drv_teardown(t), 0);
		CHECK_EQ(drv_pages_out(), 0);
		CHECK_EQ(stats(t).pages_held, 0);
		CHECK_EQ(stats(t).pages_leaked, 0);
	}
	CHECK_EQ(fake_err_logs(&t->fk), 2);	/* only the deliberately short QUERY_HCA_CAPs */
}

TEST(disable_with_pages_held_reports_them_not_returned)
{
	int32_t n;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(drv_give_pages(t, (uint32_t)n), 0);
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(stats(t).pages_leaked, 16);
	CHECK_EQ(stats(t).pages_held, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 1);		/* "cxfw: 16 pages not returned" */
}

/* A dead firmware answers no MANAGE_PAGES: its pages are forgotten at reset, not leaked. */
TEST(reset_of_a_dead_firmware_forgets_its_pages_without_complaint)
{
	CHECK_EQ(drv_bringup(t), 0);
	cxfw_inject_fatal(t->dev, 0x7);
	cxfw_reset(t->dev);
	CHECK_EQ(stats(t).pages_leaked, 0);
	CHECK_EQ(stats(t).pages_held, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
	/* the function starts over, healthy, with the same page requests */
	drv_reset(t);
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(stats(t).pages_held, 80);
}

TEST(reset_and_destroy_report_pages_not_returned)
{
	CHECK_EQ(drv_bringup(t), 0);
	cxfw_reset(t->dev);
	CHECK_EQ(stats(t).pages_leaked, 80);
	CHECK_EQ(stats(t).pages_held, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 1);
	/* after reset the function starts over, with the same page requests */
	drv_reset(t);
	CHECK_EQ(drv_bringup(t), 0);
	cxfw_destroy(t->dev);
	t->dev = NULL;
	CHECK(strstr(t->fk.last_log, "80 pages not returned (destroy)") != NULL);
}
