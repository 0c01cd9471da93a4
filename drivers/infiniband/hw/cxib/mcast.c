// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: multicast (PRM §5.7 ATTACH_TO_MCG / DETACH_FROM_MCG).  The device keeps the groups:
 * attaching a UD QP to a multicast GID makes the device deliver a copy of every packet sent
 * to that GID to the QP.  The LID is not needed: the device matches on the GID.
 */

#include <linux/string.h>

#include "cxib.h"

/**
 * cxib_mcg_build_cmd() - the input of ATTACH_TO_MCG or DETACH_FROM_MCG
 * @in: CXIB_ATTACH_TO_MCG_IN_LEN zeroed bytes (both commands have the same layout)
 * @opcode: CXIB_CMD_OP_ATTACH_TO_MCG or CXIB_CMD_OP_DETACH_FROM_MCG
 * @qpn: the QP
 * @gid: the multicast GID, in network order
 */
void cxib_mcg_build_cmd(void *in, u16 opcode, u32 qpn, const union ib_gid *gid)
{
	BUILD_BUG_ON(CXIB_ATTACH_TO_MCG_IN_LEN != CXIB_DETACH_FROM_MCG_IN_LEN);
	BUILD_BUG_ON(CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET !=
		     CXIB_DETACH_FROM_MCG_IN_MULTICAST_GID_OFFSET);
	BUILD_BUG_ON(sizeof(gid->raw) != CXIB_MGID_LEN);

	CXIB_SET(in, CXIB_CMD_IN_OPCODE, opcode);
	CXIB_SET(in, CXIB_ATTACH_TO_MCG_IN_QPN, qpn);
	memcpy(in + CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET, gid->raw, CXIB_MGID_LEN);
}

static int cxib_mcg_cmd(struct ib_qp *ibqp, union ib_gid *gid, u16 opcode)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	__be32 in[CXIB_ATTACH_TO_MCG_IN_LEN / 4] = {};
	__be32 out[CXIB_ATTACH_TO_MCG_OUT_LEN / 4] = {};
	int err;

	BUILD_BUG_ON(CXIB_ATTACH_TO_MCG_OUT_LEN != CXIB_DETACH_FROM_MCG_OUT_LEN);
	cxib_mcg_build_cmd(in, opcode, ibqp->qp_num, gid);
	err = cxib_cmd_exec(dev, in, sizeof(in), out, sizeof(out));
	if (err)
		ibdev_dbg(&dev->ibdev, "%s QP 0x%x GID %pI6 failed: %d\n",
			  cxib_cmd_opcode_str(opcode), ibqp->qp_num, gid->raw, err);
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
	return cxib_mcg_cmd(ibqp, gid, CXIB_CMD_OP_ATTACH_TO_MCG);
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
	return cxib_mcg_cmd(ibqp, gid, CXIB_CMD_OP_DETACH_FROM_MCG);
}
