// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * MAD_IFC and the SMA: SubnGet attributes decoded field by field at their IBTA offsets
 * (IBTA Vol 1 ch. 13-14; mlx5_ib mad.c), MAD-level errors in the MAD status.
 */
#include <string.h>

#include "drv.h"

#define GUID	0x0002c90300000007ull	/* serial 7 */

static unsigned int setup(struct test_ctx *t)
{
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.serial = 7;
	cfg.node_desc = "lab node a";
	if (!test_recreate(t, &cfg, FAKE_MEM_BASE))
		return 0x1ff;
	return drv_bringup(t);
}

/* A SubnGet (LID routed unless @dr) for @attr / @mod. */
static void smp_get(uint8_t mad[256], uint16_t attr, uint32_t mod, bool dr)
{
	memset(mad, 0, 256);
	CXIB_SET(mad, CXIB_MAD_BASE_VERSION, 1);
	CXIB_SET(mad, CXIB_MAD_MGMT_CLASS, dr ? CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE :
					       CXIB_MGMT_CLASS_SUBN_LID_ROUTED);
	CXIB_SET(mad, CXIB_MAD_CLASS_VERSION, 1);
	CXIB_SET(mad, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_GET);
	CXIB_SET64(mad, CXIB_MAD_TID, 0x1122334455667788ull);
	CXIB_SET(mad, CXIB_MAD_ATTR_ID, attr);
	CXIB_SET(mad, CXIB_MAD_ATTR_MOD, mod);
}

/* Send @req, return the response's MAD status (0x10000 + command status on failure). */
static unsigned int mad(struct test_ctx *t, const uint8_t *req, uint8_t *resp)
{
	unsigned int st = drv_mad_ifc(t, 1, CXIB_MAD_IFC_IGNORE_MKEY | CXIB_MAD_IFC_IGNORE_BKEY,
				      req, resp);

	if (st)
		return 0x10000 + st;
	return CXIB_GET(resp, CXIB_MAD_STATUS);
}

TEST(mad_ifc_node_info)
{
	uint8_t req[256], resp[256];
	const uint8_t *d = resp + CXIB_SMP_DATA_OFFSET;

	CHECK_EQ(setup(t), 0);
	smp_get(req, CXIB_SMP_ATTR_NODE_INFO, 0, false);
	CHECK_EQ(mad(t, req, resp), 0);
	/* header: a GetResp to the same transaction */
	CHECK_EQ(resp[3], CXIB_MGMT_METHOD_GET_RESP);
	CHECK(memcmp(resp + 8, req + 8, 8) == 0);
	CHECK_EQ(CXIB_GET(resp, CXIB_MAD_ATTR_ID), CXIB_SMP_ATTR_NODE_INFO);
	/* NodeInfo, byte by byte */
	CHECK_EQ(d[0], 1);				/* BaseVersion */
	CHECK_EQ(d[1], 1);				/* ClassVersion */
	CHECK_EQ(d[2], CXIB_NODE_TYPE_CA);
	CHECK_EQ(d[3], 1);				/* NumPorts */
	CHECK_EQ(CXIB_GET64(d, CXIB_SMP_NODE_INFO_SYSTEM_IMAGE_GUID), GUID);
	CHECK_EQ(d[4], 0x00);
	CHECK_EQ(d[11], 0x07);
	CHECK_EQ(d[12 + 1], 0x02);			/* NodeGUID at 12: 00 02 c9 03 ... */
	CHECK_EQ(d[12 + 2], 0xc9);
	CHECK_EQ(d[19], 0x07);
	CHECK_EQ(CXIB_GET64(d, CXIB_SMP_NODE_INFO_PORT_GUID), GUID);
	CHECK_EQ(d[28] << 8 | d[29], 128);		/* PartitionCap */
	CHECK_EQ(d[30] << 8 | d[31], 0x1013);		/* DeviceID */
	CHECK_EQ(d[36], 1);				/* LocalPortNum */
	CHECK_EQ(d[37] << 16 | d[38] << 8 | d[39], 0x0002c9);	/* VendorID */
	CHECK_EQ(d[40], 0);
}

TEST(mad_ifc_node_description)
{
	uint8_t req[256], resp[256];

	CHECK_EQ(setup(t), 0);
	smp_get(req, CXIB_SMP_ATTR_NODE_DESC, 0, false);
	CHECK_EQ(mad(t, req, resp), 0);
	CHECK(memcmp(resp + 64, "lab node a", 11) == 0);
	CHECK_EQ(resp[64 + 63], 0);
	smp_get(req, CXIB_SMP_ATTR_NODE_DESC, 1, false);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
}

TEST(mad_ifc_port_info)
{
	uint8_t req[256], resp[256];
	const uint8_t *d = resp + CXIB_SMP_DATA_OFFSET;

	CHECK_EQ(setup(t), 0);
	cxfw_port_link(t->dev, 1, true);
	smp_get(req, CXIB_SMP_ATTR_PORT_INFO, 1, false);
	CHECK_EQ(mad(t, req, resp), 0);
	CHECK_EQ(CXIB_GET64(d, CXIB_SMP_PORT_INFO_MKEY), 0);
	CHECK_EQ(CXIB_GET64(d, CXIB_SMP_PORT_INFO_GID_PREFIX), 0xfe80000000000000ull);
	CHECK_EQ(d[16] << 8 | d[17], 8);		/* LID = 1 + serial */
	CHECK_EQ(d[18] << 8 | d[19], 0);		/* MasterSMLID: no SM */
	CHECK_EQ(be32_at(d + 20), 0x02000808);		/* ClientRereg | SysImageGUID */
	CHECK_EQ(d[28], 1);				/* LocalPortNum */
	CHECK_EQ(d[29], 3);				/* LinkWidthEnabled 1X|4X */
	CHECK_EQ(d[30], 3);				/* LinkWidthSupported */
	CHECK_EQ(d[31], 2);				/* LinkWidthActive 4X */
	CHECK_EQ(d[32] >> 4, 7);			/* LinkSpeedSupported SDR|DDR|QDR */
	CHECK_EQ(d[32] & 0xf, CXIB_PORT_STATE_ACTIVE);
	CHECK_EQ(d[33] >> 4, CXIB_PORT_PHYS_STATE_LINK_UP);
	CHECK_EQ(d[33] & 0xf, 2);			/* LinkDownDefaultState Polling */
	CHECK_EQ(d[34], 0);				/* ProtectBits, LMC */
	CHECK_EQ(d[35] >> 4, 4);			/* LinkSpeedActive QDR */
	CHECK_EQ(d[35] & 0xf, 7);			/* LinkSpeedEnabled == Supported */
	CHECK_EQ(d[36] >> 4, CXIB_IB_MTU_4096);		/* NeighborMTU */
	CHECK_EQ(d[37] >> 4, CXIB_IB_VL_CAP_VL0_7);	/* VLCap */
	CHECK_EQ(d[41] & 0xf, CXIB_IB_MTU_4096);	/* MTUCap */
	CHECK_EQ(d[43] >> 4, CXIB_IB_VL_CAP_VL0_7);	/* OperationalVLs */
	CHECK_EQ(d[50], 8);				/* GUIDCap */
	CHECK_EQ(d[51] & 0x1f, 18);			/* SubnetTimeOut */
	CHECK_EQ(d[52] & 0x1f, 3);			/* RespTimeValue */
	CHECK_EQ(d[60] << 8 | d[61], 0);		/* CapabilityMask2 */
	/* attr_mod 0 is the receiving port; bit 31 is not part of the port number */
	smp_get(req, CXIB_SMP_ATTR_PORT_INFO, 0, false);
	CHECK_EQ(mad(t, req, resp), 0);
	CHECK_EQ(d[28], 1);
	smp_get(req, CXIB_SMP_ATTR_PORT_INFO, 0x80000001u, false);
	CHECK_EQ(mad(t, req, resp), 0);
	smp_get(req, CXIB_SMP_ATTR_PORT_INFO, 2, false);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	/* down: state and phys state change, width/speed stay valid */
	cxfw_port_link(t->dev, 1, false);
	smp_get(req, CXIB_SMP_ATTR_PORT_INFO, 1, false);
	CHECK_EQ(mad(t, req, resp), 0);
	CHECK_EQ(d[32] & 0xf, CXIB_PORT_STATE_DOWN);
	CHECK_EQ(d[33] >> 4, CXIB_PORT_PHYS_STATE_POLLING);
	CHECK_EQ(d[31], 2);
}

TEST(mad_ifc_guid_info_and_pkey_table)
{
	uint8_t req[256], resp[256];
	const uint8_t *d = resp + CXIB_SMP_DATA_OFFSET;
	unsigned int i;

	CHECK_EQ(setup(t), 0);
	smp_get(req, CXIB_SMP_ATTR_GUID_INFO, 0, false);
	CHECK_EQ(mad(t, req, resp), 0);
	CHECK_EQ(CXIB_GET64(d, CXIB_SMP_GUID_INFO_GUID0), GUID);
	for (i = 8; i < 64; i++)
		CHECK_EQ(d[i], 0);
	smp_get(req, CXIB_SMP_ATTR_GUID_INFO, 1, false);	/* GUIDCap 8: one block */
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);

	smp_get(req, CXIB_SMP_ATTR_PKEY_TABLE, 0, false);
	CHECK_EQ(mad(t, req, resp), 0);
	CHECK_EQ(d[0] << 8 | d[1], 0xffff);
	for (i = 2; i < 64; i++)
		CHECK_EQ(d[i], 0);
	smp_get(req, CXIB_SMP_ATTR_PKEY_TABLE, 3, false);	/* 128 P_Keys: blocks 0-3 */
	CHECK_EQ(mad(t, req, resp), 0);
	smp_get(req, CXIB_SMP_ATTR_PKEY_TABLE, 4, false);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
}

TEST(mad_ifc_unsupported_requests_get_mad_status_not_command_status)
{
	uint8_t req[256], resp[256];

	CHECK_EQ(setup(t), 0);
	/* attributes the SMA does not implement */
	smp_get(req, CXIB_SMP_ATTR_SM_INFO, 0, false);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	smp_get(req, CXIB_SMP_ATTR_NOTICE, 0, false);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	CHECK_EQ(resp[3], CXIB_MGMT_METHOD_GET_RESP);
	/* read-only attributes */
	smp_get(req, CXIB_SMP_ATTR_NODE_INFO, 0, false);
	CXIB_SET(req, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_SET);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	smp_get(req, CXIB_SMP_ATTR_NODE_DESC, 0, false);
	CXIB_SET(req, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_SET);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	/* methods the SMA does not take */
	smp_get(req, CXIB_SMP_ATTR_PORT_INFO, 1, false);
	CXIB_SET(req, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_SEND);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD);
	CXIB_SET(req, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_TRAP);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD);
	/* versions */
	smp_get(req, CXIB_SMP_ATTR_NODE_INFO, 0, false);
	CXIB_SET(req, CXIB_MAD_CLASS_VERSION, 2);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_BAD_VERSION);
	smp_get(req, CXIB_SMP_ATTR_NODE_INFO, 0, false);
	CXIB_SET(req, CXIB_MAD_BASE_VERSION, 3);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_BAD_VERSION);
	/* other classes (CM here; PerfMgt goes to the PMA, test_pma.c) */
	smp_get(req, 0x12, 0, false);
	CXIB_SET(req, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_CM);
	CHECK_EQ(mad(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	/* a garbage MAD never fails the command */
	memset(req, 0xa5, sizeof(req));
	CHECK(mad(t, req, resp) < 0x10000);
}

TEST(mad_ifc_directed_route_response_has_the_d_bit)
{
	uint8_t req[256], resp[256];

	CHECK_EQ(setup(t), 0);
	smp_get(req, CXIB_SMP_ATTR_NODE_INFO, 0, true);
	CXIB_SET(req, CXIB_SMP_HOP_CNT, 0);
	CXIB_SET(req, CXIB_SMP_DR_SLID, 0xffff);
	CXIB_SET(req, CXIB_SMP_DR_DLID, 0xffff);
	req[128 + 1] = 1;				/* InitialPath[1] */
	CHECK_EQ(mad(t, req, resp), CXIB_SMP_DIRECTION);
	CHECK_EQ(CXIB_GET(resp, CXIB_SMP_DR_SLID), 0xffff);
	CHECK_EQ(resp[128 + 1], 1);			/* paths are the MAD core's business */
	CHECK_EQ(CXIB_GET64(resp + 64, CXIB_SMP_NODE_INFO_NODE_GUID), GUID);
	smp_get(req, CXIB_SMP_ATTR_SM_INFO, 0, true);
	CHECK_EQ(mad(t, req, resp), CXIB_SMP_DIRECTION | CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
}

TEST(mad_ifc_command_checks)
{
	uint8_t req[256], resp[256];
	uint8_t in[CXIB_MAD_IFC_IN_LEN] = { 0 }, out[CXIB_MAD_IFC_OUT_LEN];

	smp_get(req, CXIB_SMP_ATTR_NODE_INFO, 0, false);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_mad_ifc(t, 1, 0, req, resp), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(setup(t), 0);
	CHECK_EQ(drv_mad_ifc(t, 0, 0, req, resp), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(drv_mad_ifc(t, 2, 0, req, resp), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(drv_mad_ifc(t, 1, 8, req, resp), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(drv_mad_ifc(t, 1, 7, req, resp), 0);
	/* a MAD cut short */
	cmd_hdr(in, CXIB_CMD_OP_MAD_IFC, 0);
	CXIB_SET(in, CXIB_MAD_IFC_IN_PORT, 1);
	CHECK_EQ(cmd_exec(t, in, 0x90, out, sizeof(out)), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_INPUT_LEN);
	CHECK_EQ(cmd_exec(t, in, sizeof(in), out, 0x90), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_OUTPUT_LEN);
}
