// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the firmware's management agents (PRM §5.8): what the driver learns from the
 * subnet management agent, and process_mad.
 *
 * The HCA's firmware hosts the port's SMA and PMA.  The driver asks the SMA directly with
 * MAD_IFC: a LID-routed SubnGet of NodeInfo, NodeDescription, PortInfo, GUIDInfo or
 * P_KeyTable, with M_Key and B_Key checks off, and reads the attribute from the response,
 * exactly as a subnet manager would see it.
 *
 * process_mad is ib_mad's hook: it sees every MAD that arrives on QP0 and QP1, the
 * directed-route SMPs that end at this port without leaving it, and the core's own PMA
 * queries (the sysfs counters).  SMPs and PMA requests go to the firmware's agents through
 * MAD_IFC, everything else to the agents registered on the host (cxib_mad_route()).  The
 * firmware reports the port changes its SMA applies as PORT_CHANGE events; the master SM
 * moving has no such event, so the driver watches the SubnSet(PortInfo) responses for it.
 */

#include <kunit/visibility.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>

#include "cxib.h"

/**
 * cxib_mad_build_subn_get() - build a LID-routed SubnGet
 * @smp: the MAD to fill (all CXIB_MAD_SIZE bytes are written)
 * @attr_id: CXIB_SMP_ATTR_*
 * @attr_mod: the attribute modifier (port, block number)
 */
VISIBLE_IF_KUNIT void cxib_mad_build_subn_get(struct cxib_smp *smp, u16 attr_id,
					      u32 attr_mod)
{
	memset(smp, 0, sizeof(*smp));
	CXIB_SET(smp, CXIB_MAD_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(smp, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_SUBN_LID_ROUTED);
	CXIB_SET(smp, CXIB_MAD_CLASS_VERSION, CXIB_SMP_CLASS_VERSION);
	CXIB_SET(smp, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_GET);
	CXIB_SET(smp, CXIB_MAD_ATTR_ID, attr_id);
	CXIB_SET(smp, CXIB_MAD_ATTR_MOD, attr_mod);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_build_subn_get);

/**
 * cxib_mad_check_response() - check the SMA's answer to a SubnGet
 * @smp: the response
 * @attr_id: the attribute asked for
 *
 * Return: 0 for a GetResp of @attr_id with status success; -EOPNOTSUPP if the SMA does not
 * support the attribute; -EINVAL for another MAD status; -EPROTO if the response is not a
 * GetResp of @attr_id.
 */
VISIBLE_IF_KUNIT int cxib_mad_check_response(const struct cxib_smp *smp, u16 attr_id)
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
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_check_response);

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
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_query);

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
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_port_info_to_attr);

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
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_pkey_from_table);

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
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_guid_from_info);

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

/* ---- process_mad ------------------------------------------------------------------------ */

/**
 * cxib_mad_route() - where a MAD offered to process_mad goes
 * @mgmt_class: the MAD's management class
 * @method: its method
 * @attr_id: its attribute ID
 * @slid: the LID it came from (meaningful only with @have_wc)
 * @have_wc: it was received (or is a local directed-route SMP), with a work completion
 *
 * The firmware hosts the SMA (classes 0x01 and 0x81) and the PMA (0x04): their requests go
 * to MAD_IFC.  SMInfo is the subnet manager's attribute, not the SMA's, and responses,
 * traps and reports arriving at this port are for the host's agents (opensm, perfquery,
 * the SA client): those pass, as does every other class.  A trap that did not come from
 * the wire (no work completion, or source LID 0) is the node's own and is dropped.
 *
 * Return: the route, enum cxib_mad_route.
 */
VISIBLE_IF_KUNIT enum cxib_mad_route cxib_mad_route(u8 mgmt_class, u8 method, u16 attr_id,
						    u16 slid, bool have_wc)
{
	if (method == CXIB_MGMT_METHOD_TRAP && (!have_wc || !slid))
		return CXIB_MAD_ROUTE_CONSUME;

	switch (mgmt_class) {
	case CXIB_MGMT_CLASS_SUBN_LID_ROUTED:
	case CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		if (attr_id == CXIB_SMP_ATTR_SM_INFO)
			return CXIB_MAD_ROUTE_PASS;
		switch (method) {
		case CXIB_MGMT_METHOD_GET:
		case CXIB_MGMT_METHOD_SET:
			return CXIB_MAD_ROUTE_FW;
		case CXIB_MGMT_METHOD_TRAP_REPRESS:
			return CXIB_MAD_ROUTE_FW_CONSUME;
		default:
			return CXIB_MAD_ROUTE_PASS;
		}
	case CXIB_MGMT_CLASS_PERF_MGMT:
		if (method == CXIB_MGMT_METHOD_GET || method == CXIB_MGMT_METHOD_SET)
			return CXIB_MAD_ROUTE_FW;
		return CXIB_MAD_ROUTE_PASS;
	default:
		return CXIB_MAD_ROUTE_PASS;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_route);

/**
 * cxib_mad_snoop_sm() - whether a SubnSet(PortInfo) moved a port's master SM
 * @req: the request the firmware processed
 * @resp: the firmware's response to it
 * @port: the port it arrived on
 * @sm: the master SM last seen on @port; updated when it moved
 *
 * Only a SubnSet of @port's PortInfo (attribute modifier 0 or @port) that the SMA applied
 * (a GetResp of PortInfo with MAD status 0, the direction bit aside) counts; its response
 * carries the port's PortInfo after the Set.
 *
 * Return: true if the response's MasterSMLID or MasterSMSL differ from @sm.
 */
VISIBLE_IF_KUNIT bool cxib_mad_snoop_sm(const struct cxib_smp *req,
					const struct cxib_smp *resp, u32 port,
					struct cxib_port_sm *sm)
{
	u8 mgmt_class = CXIB_GET(req, CXIB_MAD_MGMT_CLASS);
	u32 mod = CXIB_GET(req, CXIB_MAD_ATTR_MOD) & CXIB_SMP_PORT_INFO_ATTR_MOD_PORT_MASK;
	u16 lid;
	u8 sl;

	if ((mgmt_class != CXIB_MGMT_CLASS_SUBN_LID_ROUTED &&
	     mgmt_class != CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) ||
	    CXIB_GET(req, CXIB_MAD_METHOD) != CXIB_MGMT_METHOD_SET ||
	    CXIB_GET(req, CXIB_MAD_ATTR_ID) != CXIB_SMP_ATTR_PORT_INFO ||
	    (mod && mod != port))
		return false;
	if (CXIB_GET(resp, CXIB_MAD_METHOD) != CXIB_MGMT_METHOD_GET_RESP ||
	    CXIB_GET(resp, CXIB_MAD_ATTR_ID) != CXIB_SMP_ATTR_PORT_INFO ||
	    (CXIB_GET(resp, CXIB_MAD_STATUS) & ~CXIB_SMP_DIRECTION) != CXIB_MAD_STATUS_SUCCESS)
		return false;

	lid = CXIB_GET(resp->data, CXIB_SMP_PORT_INFO_MASTER_SM_LID);
	sl = CXIB_GET(resp->data, CXIB_SMP_PORT_INFO_MASTER_SM_SL);
	if (lid == sm->lid && sl == sm->sl)
		return false;
	sm->lid = lid;
	sm->sl = sl;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mad_snoop_sm);

/**
 * cxib_mad_sm_init() - read where the ports' master SM is
 * @dev: the device, not yet registered
 *
 * Return: 0 or a negative errno.
 */
int cxib_mad_sm_init(struct cxib_dev *dev)
{
	u8 *pi;
	u32 port;
	int err = 0;

	pi = kzalloc(CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!pi)
		return -ENOMEM;
	for (port = 1; port <= CXIB_IB_PORTS; port++) {
		err = cxib_mad_query(dev, port, CXIB_SMP_ATTR_PORT_INFO, port, pi);
		if (err)
			break;
		spin_lock(&dev->sm_lock);
		dev->port_sm[port - 1].lid = CXIB_GET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_LID);
		dev->port_sm[port - 1].sl = CXIB_GET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_SL);
		spin_unlock(&dev->sm_lock);
	}
	kfree(pi);
	return err;
}

/*
 * After the firmware applied a SubnSet(PortInfo): IB_EVENT_SM_CHANGE if the master SM
 * moved.  The firmware's PORT_CHANGE events cover LID, P_Key, GID (GidPrefix and GUIDInfo
 * included), client reregistration and the port state, so nothing else is snooped.
 */
static void cxib_mad_snoop(struct cxib_dev *dev, u32 port, const struct cxib_smp *req,
			   const struct cxib_smp *resp)
{
	bool moved;

	spin_lock(&dev->sm_lock);
	moved = cxib_mad_snoop_sm(req, resp, port, &dev->port_sm[port - 1]);
	spin_unlock(&dev->sm_lock);
	if (moved) {
		dev_dbg(&dev->pdev->dev, "port %u: master SM now LID 0x%x SL %u\n", port,
			CXIB_GET(resp->data, CXIB_SMP_PORT_INFO_MASTER_SM_LID),
			CXIB_GET(resp->data, CXIB_SMP_PORT_INFO_MASTER_SM_SL));
		cxib_ib_dispatch_port_event(dev, port, IB_EVENT_SM_CHANGE);
	}
}

/**
 * cxib_process_mad() - ib_device_ops.process_mad: offer a MAD to the firmware's agents
 * @ibdev: the device
 * @mad_flags: IB_MAD_IGNORE_MKEY, IB_MAD_IGNORE_BKEY
 * @port_num: the port
 * @in_wc: the MAD's receive completion (for a local directed-route SMP the one ib_mad
 *	made up), or NULL for a MAD the RDMA core generated itself (sysfs PMA counters)
 * @in_grh: the GRH, or NULL
 * @in_mad: the MAD
 * @out_mad: room for the response
 * @out_mad_size: size of @out_mad; set to the response's size with a reply
 * @out_mad_pkey_index: set to the P_Key index to send the reply with
 *
 * Routes the MAD with cxib_mad_route().  MAD_IFC's input carries the source LID
 * (permissive without @in_wc) and skips the M_Key check for the core's own MADs and with
 * IB_MAD_IGNORE_MKEY, the B_Key check for the core's own MADs and with IB_MAD_IGNORE_BKEY.
 * A MAD the firmware drops (an M_Key violation) is consumed; a directed-route response
 * always leaves with the direction bit set.  Called in process context (ib_mad's
 * completion workqueue, a thread posting a directed-route SMP that ends at this port,
 * sysfs) and sleeps: MAD_IFC is a firmware command.  Nothing is logged above debug level
 * for what a MAD from the wire can cause.
 *
 * Return: IB_MAD_RESULT_SUCCESS, alone to pass the MAD on to the host's agents, with
 * IB_MAD_RESULT_REPLY to send @out_mad back, with IB_MAD_RESULT_CONSUMED to drop it;
 * IB_MAD_RESULT_FAILURE if MAD_IFC failed.
 */
int cxib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in_mad, struct ib_mad *out_mad, size_t *out_mad_size,
		     u16 *out_mad_pkey_index)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	const struct cxib_smp *req = (const struct cxib_smp *)in_mad;
	struct cxib_smp *resp = (struct cxib_smp *)out_mad;
	u8 mgmt_class = CXIB_GET(req, CXIB_MAD_MGMT_CLASS);
	u16 slid = in_wc ? ib_lid_cpu16(in_wc->slid) : be16_to_cpu(IB_LID_PERMISSIVE);
	enum cxib_mad_route route;
	u16 op_mod = 0;
	int err;

	BUILD_BUG_ON(sizeof(*in_mad) != CXIB_MAD_SIZE);

	route = cxib_mad_route(mgmt_class, CXIB_GET(req, CXIB_MAD_METHOD),
			       CXIB_GET(req, CXIB_MAD_ATTR_ID), slid, !!in_wc);
	if (route == CXIB_MAD_ROUTE_PASS)
		return IB_MAD_RESULT_SUCCESS;
	if (route == CXIB_MAD_ROUTE_CONSUME)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	if (port_num < 1 || port_num > ibdev->phys_port_cnt ||
	    WARN_ON_ONCE(*out_mad_size < sizeof(*out_mad)))
		return IB_MAD_RESULT_FAILURE;
	/*
	 * Unregistering: drop the MAD rather than wait for a MAD_IFC.  ib_mad_recv_done()
	 * reposts its receive buffer after this returns, racing ib_mad_port_close()'s destroy
	 * of the QP; not sleeping here keeps that window to the repost itself.
	 */
	if (!test_bit(CXIB_DEV_IB_ACTIVE, &dev->flags))
		return IB_MAD_RESULT_FAILURE;

	if (!in_wc || (mad_flags & IB_MAD_IGNORE_MKEY))
		op_mod |= CXIB_MAD_IFC_IGNORE_MKEY;
	if (!in_wc || (mad_flags & IB_MAD_IGNORE_BKEY))
		op_mod |= CXIB_MAD_IFC_IGNORE_BKEY;
	err = cxib_cmd_mad_ifc(dev, port_num, op_mod, slid, req, resp);
	if (err == -EBADMSG) {
		dev_dbg(&dev->pdev->dev,
			"port %u: firmware dropped MAD class 0x%02x method 0x%02x attr 0x%04x from LID 0x%x\n",
			port_num, mgmt_class, CXIB_GET(req, CXIB_MAD_METHOD),
			CXIB_GET(req, CXIB_MAD_ATTR_ID), slid);
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	}
	if (err)
		return IB_MAD_RESULT_FAILURE;	/* the command engine logged it */

	/* The firmware sets the direction bit; ib_mad would drop a DR response without it. */
	if (mgmt_class == CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		CXIB_SET(resp, CXIB_MAD_STATUS,
			 CXIB_GET(resp, CXIB_MAD_STATUS) | CXIB_SMP_DIRECTION);
	cxib_mad_snoop(dev, port_num, req, resp);

	if (route == CXIB_MAD_ROUTE_FW_CONSUME)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	*out_mad_size = sizeof(*out_mad);
	*out_mad_pkey_index = in_wc ? in_wc->pkey_index : 0;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
