// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Strict mode (strict.c): the rules hold only with cfg.strict, each refusal carries the
 * PRM status and a "strict: <rule>" error line, and a driver that follows the PRM
 * (drv_bringup, mlx5_core's order) runs unhindered.
 */
#include <string.h>

#include "drv.h"
#include "cxfw_priv.h"

static bool strict_device(struct test_ctx *t, bool strict)
{
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.strict = strict;
	return test_recreate(t, &cfg, FAKE_MEM_BASE);
}

TEST(strict_bringup_in_prm_order_passes)
{
	struct cxfw_stats st;

	CHECK(strict_device(t, true));
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_teardown(t), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cmd_failures, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
}

TEST(strict_refuses_commands_before_set_issi)
{
	__be32 out[CXIB_QUERY_PAGES_OUT_LEN / 4], issi[CXIB_QUERY_ISSI_OUT_LEN / 4];

	CHECK(strict_device(t, true));
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, CXIB_QUERY_PAGES_OP_MOD_BOOT, 0, 0, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME),
		 CXFW_SYND(CXFW_SYND_ORDER, CXIB_CMD_OP_SET_ISSI));
	CHECK(fake_log_has(&t->fk, "strict: issi-first"));
	/* QUERY_ISSI is allowed; after SET_ISSI the same command runs */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, issi, sizeof(issi)), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, CXIB_ISSI_1, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, CXIB_QUERY_PAGES_OP_MOD_BOOT, 0, 0, out,
			    sizeof(out)), 0);
	/* a new ENABLE_HCA starts the rule again */
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, CXIB_QUERY_PAGES_OP_MOD_BOOT, 0, 0, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_SYS_STATE);
}

TEST(strict_refuses_reserved_bits_of_header_only_commands)
{
	__be32 out[CXIB_QUERY_PAGES_OUT_LEN / 4];
	uint32_t rsvd2 = ~(CXIB_FMASK(CXIB_QUERY_PAGES_IN_EMBEDDED_CPU_FUNCTION) |
			   CXIB_FMASK(CXIB_QUERY_PAGES_IN_FUNCTION_ID));

	CHECK(strict_device(t, true));
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, CXIB_ISSI_1, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, CXIB_QUERY_PAGES_OP_MOD_BOOT,
			    rsvd2 & -rsvd2, 0, out, sizeof(out)), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), CXFW_SYND(CXFW_SYND_RESERVED, 2));
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, CXIB_QUERY_PAGES_OP_MOD_BOOT, 0, 1, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), CXFW_SYND(CXFW_SYND_RESERVED, 3));
	CHECK(fake_log_has(&t->fk, "strict: reserved"));
	/* a set SET_ISSI field outside current_issi */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, CXIB_ISSI_1 | 1u << 31, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
}

TEST(strict_off_is_lenient_about_both_rules)
{
	__be32 out[CXIB_QUERY_PAGES_OUT_LEN / 4];

	CHECK(strict_device(t, false));
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, CXIB_QUERY_PAGES_OP_MOD_BOOT, 0, 1, out,
			    sizeof(out)), 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
}

TEST(strict_refuses_commands_before_the_boot_pages)
{
	__be32 out[4];
	struct cxib_hca_cap cap;
	int32_t n;

	CHECK(strict_device(t, true));
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, CXIB_ISSI_1, 0, out, 16), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_MAX), &cap),
		 CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK(fake_log_has(&t->fk, "strict: boot-pages"));
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(drv_give_pages(t, (uint32_t)n), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_MAX), &cap), 0);
}

/* A doorbell through another UAR page is ignored either way; strict names the rule. */
static void eq_doorbell_through_another_uar(struct test_ctx *t, bool strict)
{
	uint32_t uar, other, eqn;

	CHECK(strict_device(t, strict));
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_uar(t, &uar), 0);
	CHECK_EQ(drv_alloc_uar(t, &other), 0);
	CHECK_EQ(drv_create_eq(t, drv_eq_buffer(t, 0, 4), 4, uar, 0, 0, &eqn), 0);
	drv_eq_doorbell(t, other, eqn, 0, true);
	CHECK(fake_log_has(&t->fk, "EQ doorbell for EQ"));
	CHECK_EQ(fake_log_has(&t->fk, "strict: uar-owner: EQ doorbell"), strict);
}

TEST(strict_names_the_uar_owner_rule)
{
	eq_doorbell_through_another_uar(t, true);
}

TEST(strict_off_still_ignores_a_doorbell_through_another_uar)
{
	eq_doorbell_through_another_uar(t, false);
}
