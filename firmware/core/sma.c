// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw subnet management agent behind MAD_IFC (PRM section 5.8; IBTA vol 1 ch. 14;
 * sma-opensm.md section 2).
 *
 * MAD_IFC hands the device a 256-byte MAD for port dw2[7:0] and gets the response MAD back.
 * Command status is 0 whenever a MAD was processed; MAD-level problems go in the response's
 * MAD status: bad base/class version 0x0004, a method other than Get 0x0008 (SubnSet and
 * traps arrive with the SM stage), an attribute the SMA does not implement 0x000c, a bad
 * attribute modifier 0x001c.  Responses keep the request header (TID, attribute, modifier)
 * with method GetResp; directed-route responses get the D bit.
 *
 * SubnGet attributes: NodeDescription, NodeInfo, PortInfo, GUIDInfo (block 0: the port
 * GUID), P_KeyTable (4 blocks of 32; entry 0 = 0xffff).  Only subnet management classes
 * (LID routed 0x01, directed route 0x81) are answered; other classes get 0x000c.
 * M_Key is 0, so every M_Key check passes.
 */
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_SMP_VENDOR_ID	0x0002c9	/* Mellanox */
#define CXFW_RESP_TIME_VALUE	3		/* 4.096 us << 3 */
#define CXFW_LOCAL_ERR_THRESH	8		/* LocalPhyErrors / OverrunErrors thresholds */
#define CXFW_VL_ARB_CAP		8		/* VL arbitration table entries (high / low) */

static void cxfw_smp_node_info(struct cxfw_dev *dev, unsigned int port, __be32 *d)
{
	CXIB_SET(d, CXIB_SMP_NODE_INFO_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_CLASS_VERSION, CXIB_SMP_CLASS_VERSION);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_NODE_TYPE, CXIB_NODE_TYPE_CA);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_NUM_PORTS, dev->cfg.num_ports);
	CXIB_SET64(d, CXIB_SMP_NODE_INFO_SYSTEM_IMAGE_GUID, dev->node_guid);
	CXIB_SET64(d, CXIB_SMP_NODE_INFO_NODE_GUID, dev->node_guid);
	CXIB_SET64(d, CXIB_SMP_NODE_INFO_PORT_GUID, cxfw_port_guid(dev, port));
	CXIB_SET(d, CXIB_SMP_NODE_INFO_PARTITION_CAP, CXFW_PKEY_TABLE_LEN);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_DEVICE_ID, dev->cfg.pci_device_id);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_REVISION, 0);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_LOCAL_PORT_NUM, port);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_VENDOR_ID, CXFW_SMP_VENDOR_ID);
}

/* lock held */
static void cxfw_smp_port_info(struct cxfw_dev *dev, unsigned int port, __be32 *d)
{
	const struct cxfw_port *p = &dev->ports[port - 1];
	const uint32_t widths = CXIB_IB_WIDTH_1X | CXIB_IB_WIDTH_4X;
	const uint32_t speeds = CXIB_IB_SPEED_SDR | CXIB_IB_SPEED_DDR | CXIB_IB_SPEED_QDR;

	CXIB_SET64(d, CXIB_SMP_PORT_INFO_MKEY, 0);
	CXIB_SET64(d, CXIB_SMP_PORT_INFO_GID_PREFIX, p->gid_prefix);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LID, p->lid);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MASTER_SM_LID, p->sm_lid);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_CAPABILITY_MASK, p->cap_mask);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LOCAL_PORT_NUM, port);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED, widths);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_SUPPORTED, widths);
	/* always one valid width and speed: sysfs "rate" fails on anything else */
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_ACTIVE, CXIB_IB_WIDTH_4X);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_SUPPORTED, speeds);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PORT_STATE, p->state);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, p->phys_state);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_DOWN_DEFAULT_STATE, CXIB_PORT_PHYS_STATE_POLLING);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MKEY_PROTECT_BITS, 0);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LMC, p->lmc);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_ACTIVE, CXIB_IB_SPEED_QDR);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED, speeds);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU, p->neighbor_mtu);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MASTER_SM_SL, p->sm_sl);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_CAP, CXIB_IB_VL_CAP_VL0_7);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_ARB_HIGH_CAP, CXFW_VL_ARB_CAP);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_ARB_LOW_CAP, CXFW_VL_ARB_CAP);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MTU_CAP, CXIB_IB_MTU_4096);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_OPERATIONAL_VLS, p->op_vls);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PKEY_VIOLATIONS, p->pkey_violations);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_QKEY_VIOLATIONS, p->qkey_violations);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_GUID_CAP, CXFW_GID_TABLE_LEN);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT, p->subnet_timeout);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_RESP_TIME_VALUE, CXFW_RESP_TIME_VALUE);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LOCAL_PHY_ERRORS, CXFW_LOCAL_ERR_THRESH);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_OVERRUN_ERRORS, CXFW_LOCAL_ERR_THRESH);
}

/* Fill the SMP data for a SubnGet; returns the MAD status.  Lock held. */
static uint16_t cxfw_smp_get(struct cxfw_dev *dev, unsigned int port, uint32_t attr,
			     uint32_t mod, __be32 *d)
{
	unsigned int i, n;

	switch (attr) {
	case CXIB_SMP_ATTR_NODE_DESC:
		if (mod)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		memcpy(d, dev->cur_node_desc, CXIB_SMP_NODE_DESC_LEN);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_NODE_INFO:
		if (mod)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_node_info(dev, port, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_PORT_INFO:
		mod &= CXIB_SMP_PORT_INFO_ATTR_MOD_PORT_MASK;
		if (mod > dev->cfg.num_ports)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_port_info(dev, mod ? mod : port, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_GUID_INFO:
		n = CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK;
		if (mod >= (CXFW_GID_TABLE_LEN + n - 1) / n)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		/* GUID 0 is the port GUID; the alias GUIDs after it are unassigned */
		if (!mod)
			CXIB_SET64(d, CXIB_SMP_GUID_INFO_GUID0, cxfw_port_guid(dev, port));
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_PKEY_TABLE:
		n = CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK;
		if (mod >= CXFW_PKEY_TABLE_LEN / n)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		for (i = 0; i < n; i += 2) {
			CXIB_SET(&d[i / 2], CXIB_SMP_PKEY_TABLE_PKEY0,
				 dev->ports[port - 1].pkeys[mod * n + i]);
			CXIB_SET(&d[i / 2], CXIB_SMP_PKEY_TABLE_PKEY1,
				 dev->ports[port - 1].pkeys[mod * n + i + 1]);
		}
		return CXIB_MAD_STATUS_SUCCESS;
	default:
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
	}
}

uint8_t cxfw_cmd_mad_ifc(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const uint8_t *req = cxfw_in_bytes(cmd, CXIB_MAD_IFC_IN_MAD_OFFSET);
	uint8_t *resp = cxfw_out_bytes(cmd, CXIB_MAD_IFC_OUT_RESPONSE_MAD_OFFSET);
	__be32 *data = (__be32 *)(resp + CXIB_SMP_DATA_OFFSET);
	uint32_t port = CXIB_GET(cmd->in, CXIB_MAD_IFC_IN_PORT);
	uint32_t mclass, method, attr, mod;
	uint16_t status;

	if (port < 1 || port > dev->cfg.num_ports)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, port));
	if (CXIB_GET(cmd->in, CXIB_MAD_IFC_IN_PLANE_INDEX))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_GET(cmd->in, CXIB_MAD_IFC_IN_PLANE_INDEX)));

	/* the response starts as the request: header, M_Key, DR fields and paths kept */
	memcpy(resp, req, CXIB_MAD_SIZE);
	mclass = CXIB_GET(req, CXIB_MAD_MGMT_CLASS);
	method = CXIB_GET(req, CXIB_MAD_METHOD);
	attr = CXIB_GET(req, CXIB_MAD_ATTR_ID);
	mod = CXIB_GET(req, CXIB_MAD_ATTR_MOD);

	if (mclass == CXIB_MGMT_CLASS_PERF_MGMT) {
		bool drop;	/* MAD_IFC cannot say "no reply": it answers with the status */

		status = cxfw_pma_process(dev, port, req, resp, &drop);
	} else if (mclass != CXIB_MGMT_CLASS_SUBN_LID_ROUTED &&
		   mclass != CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		status = CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
	} else if (CXIB_GET(req, CXIB_MAD_BASE_VERSION) != CXIB_MAD_BASE_VERSION_1 ||
		   CXIB_GET(req, CXIB_MAD_CLASS_VERSION) != CXIB_SMP_CLASS_VERSION) {
		status = CXIB_MAD_STATUS_BAD_VERSION;
	} else if (method != CXIB_MGMT_METHOD_GET) {
		status = CXIB_MAD_STATUS_UNSUPPORTED_METHOD;
	} else {
		memset(data, 0, CXIB_SMP_DATA_SIZE);
		pthread_mutex_lock(&dev->lock);
		status = cxfw_smp_get(dev, port, attr, mod, data);
		pthread_mutex_unlock(&dev->lock);
	}

	CXIB_SET(resp, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_GET_RESP);
	if (mclass == CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		status |= CXIB_SMP_DIRECTION;
	CXIB_SET(resp, CXIB_MAD_STATUS, status);
	if (status & ~CXIB_SMP_DIRECTION)
		cxfw_log(dev, CXFW_LOG_DEBUG,
			 "cxfw: MAD_IFC class 0x%02x method 0x%02x attr 0x%04x mod 0x%x: MAD status 0x%04x",
			 mclass, method, attr, mod, status);
	return CXIB_CMD_STAT_OK;
}
