// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HCA lifecycle and identity: ENABLE/DISABLE_HCA, ISSI, capabilities, INIT/TEARDOWN_HCA,
 * QUERY_ADAPTER, UARs (the PRM's HCA bring-up, capabilities and UAR sections).
 */
#include <string.h>

#include "drv.h"

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

TEST(enable_disable_hca_cycle)
{
	__be32 out[4];

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(drv_enable_hca(t), 0);
	/* only the PF itself exists */
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 1, 0, out, 16), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 0x80000000u, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(fake_err_logs(&t->fk), 2);		/* the two failed commands */
}

TEST(query_issi_reports_0_and_1_and_set_issi_takes_them)
{
	__be32 out[CXIB_QUERY_ISSI_OUT_LEN / 4];

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0), 0x3);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_ISSI_OUT_CURRENT_ISSI), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, 1, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_ISSI_OUT_CURRENT_ISSI), 1);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, 2, 0, out, 16), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, 0, 0, out, 16), 0);
}

TEST(supported_issi_knob)
{
	__be32 out[CXIB_QUERY_ISSI_OUT_LEN / 4];
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.supported_issi = 0x1;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0), 0x1);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, 1, 0, out, 16), CXIB_CMD_STAT_BAD_PARAM);
	cfg.supported_issi = 0x4;			/* unknown ISSI: bad config */
	CHECK(!test_recreate(t, &cfg, FAKE_MEM_BASE));
}

TEST(query_hca_cap_describes_an_ib_only_connectx4_function)
{
	struct cxib_hca_cap c;
	const __be32 *d = c.dw;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_CUR), &c), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_PORT_TYPE), CXIB_CAP_PORT_TYPE_IB);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_NUM_PORTS), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_XRC), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_RC), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_UC), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_UD), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_ATOMIC), 1);	/* 8-byte CS and FA */
	CHECK(CXIB_GET(d, CXIB_HCA_CAP_LOG_MAX_EQ_SZ) >= 13);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_LOG_MAX_EQ), 5);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_LOG_PG_SZ), 12);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_BF), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_LOG_BF_REG_SIZE), 9);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_UMR_MODIFY_ENTITY_SIZE_DISABLED), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_PAGE_REQUEST_DISABLE), 1);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_IB_VIRT), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_LOCAL_CA_ACK_DELAY), 16);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_DEVICE_FREQUENCY_KHZ), 156250);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_MAX_WQE_SZ_SQ), 1024);
	/* the subsystems an IB-only model leaves out */
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_HCA_CAP_2), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_PG), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_ROCE), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_ETH_NET_OFFLOADS), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_ESWITCH_MANAGER), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_NIC_FLOW_TABLE), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_MCAM_REG), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_FAST_TEARDOWN), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_DTOR), 0);
	CHECK_EQ(CXIB_GET64(d, CXIB_HCA_CAP_GENERAL_OBJ_TYPES), 0);
	/* current vs max */
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_CMDIF_CHECKSUM), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_LOG_MAX_QP), 16);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_MAX), &c), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_CMDIF_CHECKSUM), 3);
	CHECK_EQ(CXIB_GET(d, CXIB_HCA_CAP_LOG_MAX_QP), 18);
}

TEST(query_hca_cap_atomic_caps_and_set_of_the_requester_byte_order)
{
	struct cxib_hca_cap gen, cur, max, c;
	unsigned int i;

	CHECK_EQ(drv_enable_hca(t), 0);
	/* the general cap "atomic" is what tells a driver to read this type (mlx5_core) */
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_GENERAL, 1), &gen), 0);
	CHECK_EQ(CXIB_GET(gen.dw, CXIB_HCA_CAP_ATOMIC), 1);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ATOMIC, 1), &cur), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ATOMIC, 0), &max), 0);
	CHECK_EQ(CXIB_GET(cur.dw, CXIB_ATOMIC_CAP_OPERATIONS),
		 CXIB_ATOMIC_OPS_CMP_SWAP | CXIB_ATOMIC_OPS_FETCH_ADD);
	CHECK_EQ(CXIB_GET(cur.dw, CXIB_ATOMIC_CAP_SIZE_QP), CXIB_ATOMIC_SIZE_8B);
	CHECK_EQ(CXIB_GET(cur.dw, CXIB_ATOMIC_CAP_SIZE_DC), 0);	/* no DC transport */
	CHECK_EQ(CXIB_GET(cur.dw, CXIB_ATOMIC_CAP_SUPPORTED_REQ_8B_ENDIANNESS_MODE_1), 1);
	CHECK_EQ(CXIB_GET(cur.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE), CXIB_ATOMIC_REQ_MODE_BE);
	CHECK_EQ(CXIB_GET(max.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE),
		 CXIB_ATOMIC_REQ_MODE_HOST);
	/* only the byte order is writable: 2 and 3 are not modes the device has */
	for (i = 2; i < 4; i++) {
		c = cur;
		CXIB_SET(c.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE, i);
		CHECK_EQ(drv_set_cap_type(t, CXIB_HCA_CAP_TYPE_ATOMIC, &c), CXIB_CMD_STAT_BAD_PARAM);
	}
	c = cur;
	CXIB_SET(c.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE, CXIB_ATOMIC_REQ_MODE_HOST);
	CXIB_SET(c.dw, CXIB_ATOMIC_CAP_OPERATIONS, 0xf);	/* read-only: ignored */
	CHECK_EQ(drv_set_cap_type(t, CXIB_HCA_CAP_TYPE_ATOMIC, &c), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ATOMIC, 1), &c), 0);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE),
		 CXIB_ATOMIC_REQ_MODE_HOST);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_ATOMIC_CAP_OPERATIONS),
		 CXIB_ATOMIC_OPS_CMP_SWAP | CXIB_ATOMIC_OPS_FETCH_ADD);
	/* the general caps are untouched by a SET of another type */
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_GENERAL, 1), &c), 0);
	CHECK(memcmp(&c, &gen, sizeof(c)) == 0);
	/* a new ENABLE_HCA starts from big-endian again */
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ATOMIC, 1), &c), 0);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE), CXIB_ATOMIC_REQ_MODE_BE);
}

TEST(query_hca_cap_other_types_not_supported)
{
	uint8_t out[CXIB_QUERY_HCA_CAP_OUT_LEN];
	struct cxib_hca_cap c = { { 0 } };

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_CAP,
			    CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ODP, 1), 0, 0, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(drv_set_cap_type(t, CXIB_HCA_CAP_TYPE_ODP, &c), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_CAP,
			    CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_GENERAL_2, 0), 0, 0, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_OP);
	/* other functions do not exist */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_CAP, 1, 0x80000001u, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_PARAM);
}

TEST(set_hca_cap_is_reflected_in_current_not_max)
{
	struct cxib_hca_cap c;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_cap(t, 1, &c), 0);
	CXIB_SET(c.dw, CXIB_HCA_CAP_LOG_MAX_QP, 18);
	CXIB_SET(c.dw, CXIB_HCA_CAP_DRAIN_SIGERR, 1);
	/* read-only fields in a SET are ignored */
	CXIB_SET(c.dw, CXIB_HCA_CAP_NUM_PORTS, 7);
	CHECK_EQ(drv_set_cap(t, &c), 0);
	CHECK_EQ(drv_query_cap(t, 1, &c), 0);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_HCA_CAP_LOG_MAX_QP), 18);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_HCA_CAP_DRAIN_SIGERR), 1);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_HCA_CAP_NUM_PORTS), 1);
	CHECK_EQ(drv_query_cap(t, 0, &c), 0);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_HCA_CAP_LOG_MAX_QP), 18);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_HCA_CAP_DRAIN_SIGERR), 1);
	/* a new ENABLE_HCA starts from the defaults again */
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_cap(t, 1, &c), 0);
	CHECK_EQ(CXIB_GET(c.dw, CXIB_HCA_CAP_LOG_MAX_QP), 16);
}

TEST(set_hca_cap_rejects_what_it_cannot_honour)
{
	static const struct {
		unsigned int dw, hi, lo, v;
	} bad[] = {
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_LOG_MAX_QP), 19 },	/* > max */
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_LOG_MAX_QP), 0 },
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_PKEY_TABLE_SIZE), 1 },	/* 256 P_Keys */
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_CMDIF_CHECKSUM), 1 },
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_LOG_UAR_PAGE_SZ), 4 },	/* 64 KiB UAR pages */
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_UAR_4K), 1 },
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_ROCE), 1 },
		{ CXIB_FIELD_POS(CXIB_HCA_CAP_DCT), 1 },
	};
	struct cxib_hca_cap c, orig;
	unsigned int i;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_query_cap(t, 1, &orig), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = orig;
		CXIB_SET(c.dw, CXIB_HCA_CAP_LOG_MAX_QP, 17);	/* would be fine alone */
		CXIB_SET(c.dw, bad[i].dw, bad[i].hi, bad[i].lo, bad[i].v);
		CHECK_EQ(drv_set_cap(t, &c), CXIB_CMD_STAT_BAD_PARAM);
		/* nothing applied */
		CHECK_EQ(drv_query_cap(t, 1, &c), 0);
		CHECK(memcmp(&c, &orig, sizeof(c)) == 0);
	}
	/* short input */
	{
		uint8_t in[CXIB_SET_HCA_CAP_IN_LEN] = { 0 };
		__be32 out[4];

		cmd_hdr(in, CXIB_CMD_OP_SET_HCA_CAP, 0);
		CHECK_EQ(cmd_exec(t, in, 0x110, out, 16), 0);
		CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_INPUT_LEN);
	}
}

TEST(query_adapter_reports_psid_and_vendor)
{
	uint8_t out[CXIB_QUERY_ADAPTER_OUT_LEN];

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ADAPTER, 0, 0, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_ADAPTER_OUT_IEEE_VENDOR_ID), 0x02c9);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_ADAPTER_OUT_VSD_VENDOR_ID), 0x15b3);
	CHECK(memcmp(out + CXIB_QUERY_ADAPTER_OUT_PSID_OFFSET, "CXIB000001\0\0\0\0\0\0", 16) == 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ADAPTER, 0, 0, 0, out, 0x100),
		 CXIB_CMD_STAT_BAD_OUTPUT_LEN);
}

TEST(init_hca_without_pages_no_resources)
{
	int32_t n;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_init_hca(t), CXIB_CMD_STAT_NO_RESOURCES);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(drv_give_pages(t, (uint32_t)n), 0);
	CHECK_EQ(drv_init_hca(t), CXIB_CMD_STAT_NO_RESOURCES);	/* init pages missing */
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_INIT, &n), 0);
	CHECK_EQ(n, 64);
	CHECK_EQ(drv_give_pages(t, (uint32_t)n), 0);
	CHECK_EQ(drv_init_hca(t), 0);
	/* INIT_HCA's sw_vhca_id needs hca_cap_2 */
	CHECK_EQ(drv_teardown(t), 0);
	CHECK_EQ(drv_pages_out(), 0);
}

TEST(teardown_hca_profiles)
{
	__be32 out[4];

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_TEARDOWN_HCA, 0, 2, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);	/* fast teardown: cap is 0 */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_TEARDOWN_HCA, 0, 1, 0, out, 16), 0);	/* force */
	CHECK_EQ(CXIB_GET(out, CXIB_TEARDOWN_HCA_OUT_STATE), 0);
}

TEST(alloc_uar_starts_after_the_init_segment_and_dealloc_checks)
{
	uint32_t a, b, c;
	__be32 out[4];

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_uar(t, &a), 0);
	CHECK_EQ(drv_alloc_uar(t, &b), 0);
	CHECK_EQ(a, CXIB_FIRST_UAR_INDEX);
	CHECK_EQ(b, CXIB_FIRST_UAR_INDEX + 1);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, a, 0, out, 16), 0);
	CHECK_EQ(drv_alloc_uar(t, &c), 0);
	CHECK_EQ(c, a);				/* lowest free first */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, 2, 0, out, 16), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, 8192, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, 100, 0, out, 16), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, b, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, b, 0, out, 16), CXIB_CMD_STAT_BAD_RES);
}

TEST(alloc_uar_exhausts_the_bar)
{
	uint32_t uar = 0, n = 0;
	unsigned int st;

	CHECK_EQ(drv_bringup(t), 0);
	while (!(st = drv_alloc_uar(t, &uar)))
		n++;
	CHECK_EQ(st, CXIB_CMD_STAT_NO_RESOURCES);
	CHECK_EQ(n, CXIB_BAR0_SIZE / 4096 - CXIB_FIRST_UAR_INDEX);
	/* the last one is the BAR's last page */
	CHECK_EQ(stats(t).cmd_failures, 1);
}
