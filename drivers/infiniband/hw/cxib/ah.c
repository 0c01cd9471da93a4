// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: address handles.  An AH is the address vector a UD, SMI or GSI send WQE carries
 * (struct cxib_wqe_av, PRM §6.1), kept in its wire format so that posting copies it as is
 * and fills in only the Q_Key and destination QP of the WR.  Nothing goes to the device,
 * so create and destroy never sleep (RDMA_CREATE_AH_SLEEPABLE or not).
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cxib.h"

/**
 * cxib_ah_attr_to_av() - the address vector of an IB address handle attribute
 * @attr: the attribute (type RDMA_AH_ATTR_TYPE_IB)
 * @av: the address vector; every byte is written.  Q_Key and destination QPN stay 0 for
 *	the WR to fill in.
 */
VISIBLE_IF_KUNIT void cxib_ah_attr_to_av(const struct rdma_ah_attr *attr,
					 struct cxib_wqe_av *av)
{
	const struct ib_global_route *grh;
	enum ib_rate rate = rdma_ah_get_static_rate(attr);

	memset(av, 0, sizeof(*av));
	CXIB_SET(av, CXIB_WQE_AV_EXT, 1);
	/* IB static rate codes as the address path takes them (0: the port's rate). */
	CXIB_SET(av, CXIB_WQE_AV_STAT_RATE,
		 rate == IB_RATE_PORT_CURRENT ? 0 :
		 min_t(u32, rate + CXIB_AV_STAT_RATE_OFFSET,
		       CXIB_FIELD_GET(CXIB_WQE_AV_STAT_RATE, U32_MAX)));
	CXIB_SET(av, CXIB_WQE_AV_SL, rdma_ah_get_sl(attr));
	CXIB_SET(av, CXIB_WQE_AV_MLID, rdma_ah_get_path_bits(attr));
	CXIB_SET(av, CXIB_WQE_AV_RLID, rdma_ah_get_dlid(attr));
	if (rdma_ah_get_ah_flags(attr) & IB_AH_GRH) {
		grh = rdma_ah_read_grh(attr);
		CXIB_SET(av, CXIB_WQE_AV_GRH, 1);
		CXIB_SET(av, CXIB_WQE_AV_SGID_INDEX, grh->sgid_index);
		CXIB_SET(av, CXIB_WQE_AV_FLOW_LABEL, grh->flow_label);
		CXIB_SET(av, CXIB_WQE_AV_TCLASS, grh->traffic_class);
		CXIB_SET(av, CXIB_WQE_AV_HOP_LIMIT, grh->hop_limit);
		memcpy(av->rgid, grh->dgid.raw, sizeof(av->rgid));
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_ah_attr_to_av);

/**
 * cxib_create_ah() - ib_device_ops.create_ah
 * @ibah: the AH, allocated by the RDMA core
 * @init_attr: the address; its flags may or may not allow sleeping: nothing here sleeps
 * @udata: NULL; user AHs are not offered yet (libmlx5 builds its own)
 *
 * Return: 0, -EOPNOTSUPP for a user AH, -EINVAL for an address that is not InfiniBand.
 */
int cxib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibah->device);
	const struct rdma_ah_attr *attr = init_attr->ah_attr;

	if (udata)
		return -EOPNOTSUPP;
	if (attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	if (rdma_ah_get_port_num(attr) < 1 || rdma_ah_get_port_num(attr) > dev->caps.num_ports)
		return -EINVAL;
	cxib_ah_attr_to_av(attr, &to_cxib_ah(ibah)->av);
	return 0;
}

/**
 * cxib_query_ah() - ib_device_ops.query_ah: the address an AH was created with
 * @ibah: the AH
 * @attr: filled from the AH's address vector
 *
 * ib_mad matches a LID-routed response to its request by comparing the request's AH with
 * the response's work completion (rcv_has_same_gid() in core/mad.c), so without this no
 * answer to a LID-routed MAD (sminfo, smpquery by LID, the SA, the PMA) reaches its agent.
 *
 * Return: 0.
 */
int cxib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	const struct cxib_wqe_av *av = &to_cxib_ah(ibah)->av;
	u32 rate = CXIB_GET(av, CXIB_WQE_AV_STAT_RATE);
	union ib_gid dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(attr, 1);		/* cxib drives port 1 */
	rdma_ah_set_dlid(attr, CXIB_GET(av, CXIB_WQE_AV_RLID));
	rdma_ah_set_sl(attr, CXIB_GET(av, CXIB_WQE_AV_SL));
	rdma_ah_set_path_bits(attr, CXIB_GET(av, CXIB_WQE_AV_MLID));
	rdma_ah_set_static_rate(attr, rate ? rate - CXIB_AV_STAT_RATE_OFFSET :
				IB_RATE_PORT_CURRENT);
	if (CXIB_GET(av, CXIB_WQE_AV_GRH)) {
		memcpy(dgid.raw, av->rgid, sizeof(dgid.raw));
		rdma_ah_set_grh(attr, &dgid, CXIB_GET(av, CXIB_WQE_AV_FLOW_LABEL),
				CXIB_GET(av, CXIB_WQE_AV_SGID_INDEX),
				CXIB_GET(av, CXIB_WQE_AV_HOP_LIMIT),
				CXIB_GET(av, CXIB_WQE_AV_TCLASS));
	}
	return 0;
}

/**
 * cxib_destroy_ah() - ib_device_ops.destroy_ah
 * @ibah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0: nothing here sleeps either way
 *
 * Return: 0.
 */
int cxib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}
