// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ports: state from the cable and auto_activate, PORT_CHANGE EQEs, HCA-vport queries,
 * QUERY_VPORT_STATE and the ACCESS_REG registers (mlx5_ib mad.c and the PRM's ACCESS_REG registers).
 */
#include <string.h>

#include "drv.h"

#define GUID	0x0002c90300000000ull	/* derived GUID prefix (serial 0) */

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

static unsigned int vport_ctx(struct test_ctx *t, uint32_t dw2, uint8_t *out)
{
	return cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, dw2, 0, out,
			  CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN);
}

/* ACCESS_REG of @reg_len bytes: @data in, the register back in @data; output status. */
static unsigned int access_reg(struct test_ctx *t, uint16_t reg, bool write, void *data,
			       uint32_t reg_len)
{
	uint8_t in[16 + 64] = { 0 }, out[16 + 64];
	int d;

	cmd_hdr(in, CXIB_CMD_OP_ACCESS_REG,
		write ? CXIB_ACCESS_REG_OP_MOD_WRITE : CXIB_ACCESS_REG_OP_MOD_READ);
	CXIB_SET(in, CXIB_ACCESS_REG_IN_REGISTER_ID, reg);
	memcpy(in + CXIB_ACCESS_REG_IN_DATA_OFFSET, data, reg_len);
	d = cmd_exec(t, in, CXIB_ACCESS_REG_IN_LEN(reg_len), out, CXIB_ACCESS_REG_OUT_LEN(reg_len));
	if (d)
		return 0x100 + (unsigned int)d;
	if (!out_status(out))
		memcpy(data, out + CXIB_ACCESS_REG_OUT_DATA_OFFSET, reg_len);
	return out_status(out);
}

TEST(port_active_with_model_lid_when_the_cable_is_up)
{
	uint8_t out[CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN];
	const __be32 *c = (const __be32 *)(out + CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_CONTEXT_OFFSET);
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.serial = 41;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(drv_bringup(t), 0);
	/* no cable yet */
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_STATE), CXIB_PORT_STATE_DOWN);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_VPORT_STATE), CXIB_PORT_STATE_DOWN);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_PHYSICAL_STATE),
		 CXIB_PORT_PHYS_STATE_POLLING);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_LID), 0);
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_STATE), CXIB_PORT_STATE_ACTIVE);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_PHYSICAL_STATE),
		 CXIB_PORT_PHYS_STATE_LINK_UP);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_LID), 42);		/* 1 + serial */
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_HAS_SMI), 1);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_GRH_REQUIRED), 0);
	CHECK_EQ(CXIB_GET64(c, CXIB_HCA_VPORT_CTX_NODE_GUID), GUID | 41);
	CHECK_EQ(CXIB_GET64(c, CXIB_HCA_VPORT_CTX_PORT_GUID), GUID | 41);
	CHECK_EQ(CXIB_GET64(c, CXIB_HCA_VPORT_CTX_SYSTEM_IMAGE_GUID), GUID | 41);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_CAP_MASK1), 0x02000808);
	CHECK(CXIB_GET(c, CXIB_HCA_VPORT_CTX_CAP_MASK1_FIELD_SELECT) & CXIB_PORT_CAP_CM);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_SUBNET_TIMEOUT), 18);
	/* port_num 1 is the same port, 2 does not exist; no other vports */
	CHECK_EQ(vport_ctx(t, 1u << 16, out), 0);
	CHECK_EQ(vport_ctx(t, 2u << 16, out), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(vport_ctx(t, 0x80000000u, out), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(vport_ctx(t, 3, out), CXIB_CMD_STAT_BAD_PARAM);
	/* cable gone */
	cxfw_port_link(t->dev, 1, false);
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_STATE), CXIB_PORT_STATE_DOWN);
}

TEST(port_lid_knob_and_auto_activate_off)
{
	uint8_t out[CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN];
	const __be32 *c = (const __be32 *)(out + CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_CONTEXT_OFFSET);
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.lid = 0x123;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	cxfw_port_link(t->dev, 1, true);		/* before the driver: no event */
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_LID), 0x123);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_STATE), CXIB_PORT_STATE_ACTIVE);

	cfg.auto_activate = false;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(drv_bringup(t), 0);
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_STATE), CXIB_PORT_STATE_INIT);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_PORT_PHYSICAL_STATE),
		 CXIB_PORT_PHYS_STATE_LINK_UP);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_LID), 0);
	cfg.lid = 0xc000;				/* multicast range: bad config */
	CHECK(!test_recreate(t, &cfg, FAKE_MEM_BASE));
}

TEST(port_change_eqes_follow_the_cable)
{
	uint32_t uar, eqn;
	uint64_t buf;
	struct cxib_eqe e;

	cxfw_port_link(t->dev, 1, true);		/* before INIT_HCA: nobody to tell */
	cxfw_port_link(t->dev, 1, false);
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_uar(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 6);
	CHECK_EQ(drv_create_eq(t, buf, 6, uar, 1, 1ull << CXIB_EVENT_TYPE_PORT_CHANGE, &eqn), 0);
	drv_eq_doorbell(t, uar, eqn, 0, true);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).eqes_written, 0);

	cxfw_port_link(t->dev, 1, true);
	CHECK(fake_kicks(&t->fk) > 0);
	cxfw_process(t->dev);
	drv_eqe(t, buf, 0, &e);
	CHECK_EQ(e.type, CXIB_EVENT_TYPE_PORT_CHANGE);
	CHECK_EQ(e.sub_type, CXIB_PORT_CHANGE_SUBTYPE_ACTIVE);
	CHECK_EQ(CXIB_GET(&e, CXIB_EQE_PORT_NUM), 1);
	CHECK_EQ(e.owner, 0);
	CHECK_EQ(fake_msix(&t->fk, 1), 1);
	cxfw_port_link(t->dev, 1, true);		/* no change, no event */
	cxfw_port_link(t->dev, 1, false);
	cxfw_process(t->dev);
	drv_eqe(t, buf, 1, &e);
	CHECK_EQ(e.sub_type, CXIB_PORT_CHANGE_SUBTYPE_DOWN);
	CHECK_EQ(stats(t).eqes_written, 2);
	/* a bogus port number from the platform is ignored */
	cxfw_port_link(t->dev, 2, true);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).eqes_written, 2);
}

TEST(vport_gid_and_pkey_tables)
{
	uint8_t out[CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(128)];
	const uint8_t *gid = out + CXIB_QUERY_HCA_VPORT_GID_OUT_GID_OFFSET;
	unsigned int i;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 0, out,
			    CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(1)), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_HCA_VPORT_GID_OUT_GIDS_NUM), 1);
	CHECK_EQ(CXIB_GET64(gid, CXIB_GID_PREFIX), 0xfe80000000000000ull);
	CHECK_EQ(CXIB_GET64(gid, CXIB_GID_GUID), GUID);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 7, out,
			    CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(1)), 0);
	CHECK_EQ(CXIB_GET64(gid, CXIB_GID_GUID), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 8, out,
			    CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(1)), CXIB_CMD_STAT_BAD_INDEX);
	/* the whole table needs room for 8 */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 0xffff, out,
			    CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(1)), CXIB_CMD_STAT_BAD_OUTPUT_LEN);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 0xffff, out,
			    CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(8)), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_HCA_VPORT_GID_OUT_GIDS_NUM), 8);

	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0, 0, out,
			    CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(1)), 0);
	CHECK_EQ(CXIB_GET(out + 0x10, CXIB_HCA_VPORT_PKEY_ENTRY_PKEY), 0xffff);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0, 127, out,
			    CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(1)), 0);
	CHECK_EQ(CXIB_GET(out + 0x10, CXIB_HCA_VPORT_PKEY_ENTRY_PKEY), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0, 128, out,
			    CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(1)), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0, 0xffff, out,
			    sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(out + 0x10, CXIB_HCA_VPORT_PKEY_ENTRY_PKEY), 0xffff);
	for (i = 1; i < 128; i++)
		CHECK_EQ(CXIB_GET(out + 0x10 + 4 * i, CXIB_HCA_VPORT_PKEY_ENTRY_PKEY), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_PKEY, 0, 0x80000000u, 0, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_PARAM);
}

TEST(query_vport_state_follows_the_port)
{
	__be32 out[4];

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_VPORT_STATE_OUT_STATE), CXIB_VPORT_STATE_DOWN);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_VPORT_STATE_OUT_ADMIN_STATE), CXIB_VPORT_STATE_UP);
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_VPORT_STATE, 0, 0, 0, out, 16), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_VPORT_STATE_OUT_STATE), CXIB_VPORT_STATE_UP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_VPORT_STATE, 2, 0, 0, out, 16), 0);
	CHECK_EQ(CXIB_GET(out, CXIB_QUERY_VPORT_STATE_OUT_STATE), CXIB_VPORT_STATE_UP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_VPORT_STATE, 1, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_VPORT_STATE, 3, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_VPORT_STATE, 0, 5, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
}

TEST(access_reg_host_endianness)
{
	uint8_t r[16] = { 0 };

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(access_reg(t, CXIB_REG_HOST_ENDIANNESS, true, r, 16), 0);
	CHECK_EQ(r[0], 0x00);
	r[0] = 0x80;
	CHECK_EQ(access_reg(t, CXIB_REG_HOST_ENDIANNESS, true, r, 16), 0);
	memset(r, 0, sizeof(r));
	CHECK_EQ(access_reg(t, CXIB_REG_HOST_ENDIANNESS, false, r, 16), 0);
	CHECK_EQ(r[0], 0x80);
	r[0] = 0x40;
	CHECK_EQ(access_reg(t, CXIB_REG_HOST_ENDIANNESS, true, r, 16), CXIB_CMD_STAT_BAD_PARAM);
	/* register data cut short */
	CHECK_EQ(access_reg(t, CXIB_REG_HOST_ENDIANNESS, true, r, 8),
		 CXIB_CMD_STAT_BAD_INPUT_LEN);
}

TEST(access_reg_unknown_or_unsupported_registers_bad_operation)
{
	uint8_t r[64] = { 0 };

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(access_reg(t, 0x1234, false, r, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(access_reg(t, CXIB_REG_PPCNT, false, r, 64), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(access_reg(t, CXIB_REG_DTOR, false, r, 16), CXIB_CMD_STAT_BAD_OP);
	r[1] = 1;
	CHECK_EQ(access_reg(t, CXIB_REG_PTYS, true, r, 64), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(access_reg(t, CXIB_REG_PAOS, true, r, 16), CXIB_CMD_STAT_BAD_OP);
}

TEST(access_reg_port_registers)
{
	uint8_t r[64] = { 0 };

	CHECK_EQ(drv_bringup(t), 0);
	/* local_port must name a port */
	CHECK_EQ(access_reg(t, CXIB_REG_PMTU, false, r, 16), CXIB_CMD_STAT_BAD_PARAM);
	r[1] = 2;
	CHECK_EQ(access_reg(t, CXIB_REG_PMTU, false, r, 16), CXIB_CMD_STAT_BAD_PARAM);
	r[1] = 1;
	CHECK_EQ(access_reg(t, CXIB_REG_PMTU, false, r, 16), 0);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PMTU_MAX_MTU), 4096);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PMTU_OPER_MTU), 4096);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PMTU_LOCAL_PORT), 1);

	memset(r, 0, sizeof(r));
	r[1] = 1;
	CHECK_EQ(access_reg(t, CXIB_REG_PTYS, false, r, 64), CXIB_CMD_STAT_BAD_PARAM);	/* ETH */
	CXIB_SET(r, CXIB_REG_PTYS_PROTO_MASK, CXIB_PTYS_PROTO_IB);
	CHECK_EQ(access_reg(t, CXIB_REG_PTYS, false, r, 64), 0);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PTYS_IB_LINK_WIDTH_OPER), 0);	/* link down */
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(access_reg(t, CXIB_REG_PTYS, false, r, 64), 0);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PTYS_IB_LINK_WIDTH_OPER), CXIB_PTYS_WIDTH_4X);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PTYS_IB_PROTO_OPER), CXIB_PTYS_IB_QDR);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PTYS_IB_LINK_WIDTH_CAPABILITY), 0x5);

	memset(r, 0, sizeof(r));
	r[1] = 1;
	CHECK_EQ(access_reg(t, CXIB_REG_PVLC, false, r, 16), 0);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PVLC_VL_HW_CAP), CXIB_IB_VL_CAP_VL0_7);
	CHECK_EQ(access_reg(t, CXIB_REG_PAOS, false, r, 16), 0);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PAOS_OPER_STATUS), CXIB_PORT_STATUS_UP);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PAOS_ADMIN_STATUS), CXIB_PORT_STATUS_UP);
}

TEST(access_reg_pcap_sets_the_capability_mask)
{
	uint8_t r[20] = { 0 }, out[CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN];
	const __be32 *c = (const __be32 *)(out + CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_CONTEXT_OFFSET);

	CHECK_EQ(drv_bringup(t), 0);
	CXIB_SET(r, CXIB_REG_PCAP_LOCAL_PORT, 1);
	CXIB_SET(r, CXIB_REG_PCAP_PORT_CAPABILITY_MASK, 0x02010800 | CXIB_PORT_CAP_SM);
	CHECK_EQ(access_reg(t, CXIB_REG_PCAP, true, r, sizeof(r)), 0);
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_CAP_MASK1), 0x02010802);
	memset(r + 4, 0, 16);
	CHECK_EQ(access_reg(t, CXIB_REG_PCAP, false, r, sizeof(r)), 0);
	CHECK_EQ(CXIB_GET(r, CXIB_REG_PCAP_PORT_CAPABILITY_MASK), 0x02010802);
	/* a reset of the function forgets it */
	cxfw_reset(t->dev);
	drv_reset(t);
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(vport_ctx(t, 0, out), 0);
	CHECK_EQ(CXIB_GET(c, CXIB_HCA_VPORT_CTX_CAP_MASK1), 0x02000808);
}

TEST(access_reg_node_desc)
{
	uint8_t r[64];

	CHECK_EQ(drv_bringup(t), 0);
	memset(r, 0, sizeof(r));
	CHECK_EQ(access_reg(t, CXIB_REG_NODE_DESC, false, r, 64), 0);
	CHECK(strcmp((char *)r, "cxib node 0") == 0);
	memset(r, 0, sizeof(r));
	strcpy((char *)r, "lab-a mlx5_0");
	CHECK_EQ(access_reg(t, CXIB_REG_NODE_DESC, true, r, 64), 0);
	memset(r, 0, sizeof(r));
	CHECK_EQ(access_reg(t, CXIB_REG_NODE_DESC, false, r, 64), 0);
	CHECK(strcmp((char *)r, "lab-a mlx5_0") == 0);
}
