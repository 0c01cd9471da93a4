// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: what the driver learns from the firmware's subnet management agent (PRM §5.8).
 *
 * The HCA's firmware hosts the port's SMA.  The driver asks it directly with MAD_IFC:
 * a LID-routed SubnGet of NodeInfo, NodeDescription, PortInfo, GUIDInfo or P_KeyTable,
 * with M_Key and B_Key checks off, and reads the attribute from the response, exactly as
 * a subnet manager would see it.
 */

#include <linux/slab.h>
#include <linux/string.h>

#include "cxib.h"

/**
 * cxib_mad_build_subn_get() - build a LID-routed SubnGet
 * @smp: the MAD to fill (all CXIB_MAD_SIZE bytes are written)
 * @attr_id: CXIB_SMP_ATTR_*
 * @attr_mod: the attribute modifier (port, block number)
 */
void cxib_mad_build_subn_get(struct cxib_smp *smp, u16 attr_id, u32 attr_mod)
{
	memset(smp, 0, sizeof(*smp));
	CXIB_SET(smp, CXIB_MAD_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(smp, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_SUBN_LID_ROUTED);
	CXIB_SET(smp, CXIB_MAD_CLASS_VERSION, CXIB_SMP_CLASS_VERSION);
	CXIB_SET(smp, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_GET);
	CXIB_SET(smp, CXIB_MAD_ATTR_ID, attr_id);
	CXIB_SET(smp, CXIB_MAD_ATTR_MOD, attr_mod);
}

/**
 * cxib_mad_check_response() - check the SMA's answer to a SubnGet
 * @smp: the response
 * @attr_id: the attribute asked for
 *
 * Return: 0 for a GetResp of @attr_id with status success; -EOPNOTSUPP if the SMA does not
 * support the attribute; -EINVAL for another MAD status; -EPROTO if the response is not a
 * GetResp of @attr_id.
 */
int cxib_mad_check_response(const struct cxib_smp *smp, u16 attr_id)
{
	u16 status = CXIB_GET(smp, CXIB_MAD_STATUS) & ~CXIB_SMP_DIRECTION;

	if (CXIB_GET(smp, CXIB_MAD_METHOD) != CXIB_MGMT_METHOD_GET_RESP ||
	    CXIB_GET(smp, CXIB_MAD_ATTR_ID) != attr_id)
		return -EPROTO;
	if (status == CXIB_MAD_STATUS_UNSUPPORTED_METHOD ||
	    status == CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR)
		return -EOPNOTSUPP;
	return status == CXIB_MAD_STATUS_SUCCESS ? 0 : -EINVAL;
}

/**
 * cxib_mad_query() - SubnGet one attribute from the firmware's SMA
 * @dev: the device
 * @port: the port the query arrives on
 * @attr_id: CXIB_SMP_ATTR_*
 * @attr_mod: the attribute modifier
 * @data: room for the CXIB_SMP_DATA_SIZE bytes of attribute data
 *
 * Return: 0 or a negative errno (a failure of the SMA is logged, rate limited).
 */
int cxib_mad_query(struct cxib_dev *dev, u8 port, u16 attr_id, u32 attr_mod, void *data)
{
	struct cxib_smp *in, *out;
	int err;

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	cxib_mad_build_subn_get(in, attr_id, attr_mod);
	err = cxib_cmd_mad_ifc(dev, port, CXIB_MAD_IFC_IGNORE_MKEY | CXIB_MAD_IFC_IGNORE_BKEY,
			       be16_to_cpu(IB_LID_PERMISSIVE), in, out);
	if (err)
		goto out;
	err = cxib_mad_check_response(out, attr_id);
	if (err) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "MAD_IFC SubnGet attribute 0x%04x mod 0x%x port %u: method 0x%02x status 0x%04x\n",
				    attr_id, attr_mod, port, CXIB_GET(out, CXIB_MAD_METHOD),
				    CXIB_GET(out, CXIB_MAD_STATUS));
		goto out;
	}
	memcpy(data, out->data, CXIB_SMP_DATA_SIZE);
out:
	kfree(out);
	kfree(in);
	return err;
}

/* IB link speed of a port from PortInfo's LinkSpeedActive and LinkSpeedExtActive. */
static u16 cxib_mad_active_speed(const void *pi)
{
	bool ext = CXIB_GET(pi, CXIB_SMP_PORT_INFO_CAPABILITY_MASK) &
		   CXIB_PORT_CAP_EXTENDED_SPEEDS;

	if (ext) {
		switch (CXIB_GET(pi, CXIB_SMP_PORT_INFO_LINK_SPEED_EXT_ACTIVE)) {
		case CXIB_IB_SPEED_EXT_FDR:
			return IB_SPEED_FDR;
		case CXIB_IB_SPEED_EXT_EDR:
			return IB_SPEED_EDR;
		case CXIB_IB_SPEED_EXT_HDR:
			return IB_SPEED_HDR;
		case CXIB_IB_SPEED_EXT_NDR:
			return IB_SPEED_NDR;
		}
	}
	switch (CXIB_GET(pi, CXIB_SMP_PORT_INFO_LINK_SPEED_ACTIVE)) {
	case CXIB_IB_SPEED_DDR:
		return IB_SPEED_DDR;
	case CXIB_IB_SPEED_QDR:
		return IB_SPEED_QDR;
	default:
		return IB_SPEED_SDR;
	}
}

/**
 * cxib_mad_port_info_to_attr() - port attributes from a PortInfo attribute
 * @pi: the CXIB_SMP_DATA_SIZE bytes of PortInfo
 * @attr: filled with what PortInfo says (the rest is left alone)
 *
 * PortInfo's encodings of state, physical state, MTU and width are the IB core's.
 */
void cxib_mad_port_info_to_attr(const void *pi, struct ib_port_attr *attr)
{
	u32 cap_mask = CXIB_GET(pi, CXIB_SMP_PORT_INFO_CAPABILITY_MASK);

	attr->lid = CXIB_GET(pi, CXIB_SMP_PORT_INFO_LID);
	attr->sm_lid = CXIB_GET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_LID);
	attr->lmc = CXIB_GET(pi, CXIB_SMP_PORT_INFO_LMC);
	attr->sm_sl = CXIB_GET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_SL);
	attr->state = CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_STATE);
	attr->phys_state = CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE);
	attr->port_cap_flags = cap_mask;
	if (cap_mask & CXIB_PORT_CAP_CAP_MASK2)
		attr->port_cap_flags2 = CXIB_GET(pi, CXIB_SMP_PORT_INFO_CAPABILITY_MASK2);
	attr->gid_tbl_len = CXIB_GET(pi, CXIB_SMP_PORT_INFO_GUID_CAP);
	attr->max_mtu = CXIB_GET(pi, CXIB_SMP_PORT_INFO_MTU_CAP);
	attr->active_mtu = CXIB_GET(pi, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU);
	attr->max_vl_num = CXIB_GET(pi, CXIB_SMP_PORT_INFO_VL_CAP);
	attr->bad_pkey_cntr = CXIB_GET(pi, CXIB_SMP_PORT_INFO_PKEY_VIOLATIONS);
	attr->qkey_viol_cntr = CXIB_GET(pi, CXIB_SMP_PORT_INFO_QKEY_VIOLATIONS);
	attr->subnet_timeout = CXIB_GET(pi, CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT);
	attr->init_type_reply = CXIB_GET(pi, CXIB_SMP_PORT_INFO_INIT_TYPE_REPLY);
	attr->active_width = CXIB_GET(pi, CXIB_SMP_PORT_INFO_LINK_WIDTH_ACTIVE);
	attr->active_speed = cxib_mad_active_speed(pi);
}

/**
 * cxib_mad_pkey_from_table() - one P_Key of a P_KeyTable block
 * @blk: the CXIB_SMP_DATA_SIZE bytes of a P_KeyTable block
 * @i: index in the block, below CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK
 *
 * Return: the P_Key.
 */
u16 cxib_mad_pkey_from_table(const void *blk, unsigned int i)
{
	const __be32 *dw = (const __be32 *)blk + i / 2;

	return i % 2 ? CXIB_GET(dw, CXIB_SMP_PKEY_TABLE_PKEY1) :
		       CXIB_GET(dw, CXIB_SMP_PKEY_TABLE_PKEY0);
}

/**
 * cxib_mad_guid_from_info() - one GUID of a GUIDInfo block
 * @blk: the CXIB_SMP_DATA_SIZE bytes of a GUIDInfo block
 * @i: index in the block, below CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK
 *
 * Return: the GUID, big-endian as in a GID.
 */
__be64 cxib_mad_guid_from_info(const void *blk, unsigned int i)
{
	const __be64 *guid = (const __be64 *)blk + i;

	return cpu_to_be64(CXIB_GET64(guid, CXIB_SMP_GUID_INFO_GUID0));
}

/**
 * cxib_mad_query_node() - node identity from NodeInfo and NodeDescription
 * @dev: the device
 *
 * Sets the IB device's node GUID and node description and the system image GUID.
 *
 * Return: 0 or a negative errno.
 */
int cxib_mad_query_node(struct cxib_dev *dev)
{
	u8 *data;
	int err;

	data = kzalloc(CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!data)
		return -ENOMEM;

	err = cxib_mad_query(dev, 1, CXIB_SMP_ATTR_NODE_INFO, 0, data);
	if (err)
		goto out;
	dev->ibdev.node_guid = cpu_to_be64(CXIB_GET64(data, CXIB_SMP_NODE_INFO_NODE_GUID));
	dev->sys_image_guid =
		cpu_to_be64(CXIB_GET64(data, CXIB_SMP_NODE_INFO_SYSTEM_IMAGE_GUID));
	if (!dev->vendor_id)
		dev->vendor_id = CXIB_GET(data, CXIB_SMP_NODE_INFO_VENDOR_ID);

	err = cxib_mad_query(dev, 1, CXIB_SMP_ATTR_NODE_DESC, 0, data);
	if (err)
		goto out;
	BUILD_BUG_ON(sizeof(dev->ibdev.node_desc) != CXIB_SMP_NODE_DESC_LEN);
	memcpy(dev->ibdev.node_desc, data, CXIB_SMP_NODE_DESC_LEN);
out:
	kfree(data);
	return err;
}
