// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: multicast (PRM §5.7 ATTACH_TO_MCG / DETACH_FROM_MCG, issued by fw_verbs.c).  The
 * device keeps the groups: attaching a UD QP to a multicast GID makes the device deliver a
 * copy of every packet sent to that GID to the QP.  The LID is not needed: the device
 * matches on the GID.
 */

#include "cxib.h"

static int cxib_mcg_cmd(struct ib_qp *ibqp, union ib_gid *gid, bool attach)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	int err;

	if (attach)
		err = cxib_cmd_attach_to_mcg(dev, ibqp->qp_num, gid);
	else
		err = cxib_cmd_detach_from_mcg(dev, ibqp->qp_num, gid);
	if (err)
		ibdev_dbg(&dev->ibdev, "%s QP 0x%x GID %pI6 failed: %d\n",
			  cxib_cmd_opcode_str(attach ? CXIB_CMD_OP_ATTACH_TO_MCG :
						       CXIB_CMD_OP_DETACH_FROM_MCG),
			  ibqp->qp_num, gid->raw, err);
	return err;
}

/**
 * cxib_attach_mcast() - ib_device_ops.attach_mcast
 * @ibqp: a UD QP
 * @gid: the multicast group's GID
 * @lid: its LID (unused)
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return cxib_mcg_cmd(ibqp, gid, true);
}

/**
 * cxib_detach_mcast() - ib_device_ops.detach_mcast
 * @ibqp: a QP attached to the group
 * @gid: the multicast group's GID
 * @lid: its LID (unused)
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return cxib_mcg_cmd(ibqp, gid, false);
}
