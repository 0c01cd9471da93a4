// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: protection domains (PRM §5.1).  The RDMA core allocates struct cxib_pd
 * (INIT_RDMA_OBJ_SIZE); the driver asks the firmware for a PD number.
 */

#include <rdma/ib_verbs.h>
#include <rdma/mlx5-abi.h>

#include "cxib.h"

/**
 * cxib_alloc_pd() - ib_device_ops.alloc_pd
 * @ibpd: the PD, allocated by the RDMA core
 * @udata: for a user PD, where libmlx5 expects its PD number; NULL for a kernel PD
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibpd->device);
	struct cxib_pd *pd = to_cxib_pd(ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	err = cxib_cmd_alloc_pd(dev, &pd->pdn);
	if (err)
		return err;
	if (udata) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
		if (err) {
			cxib_cmd_dealloc_pd(dev, pd->pdn);
			return err;
		}
	}
	return 0;
}

/**
 * cxib_dealloc_pd() - ib_device_ops.dealloc_pd
 * @ibpd: the PD
 * @udata: unused
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno (the living device refused; the PD stays).
 */
int cxib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibpd->device);
	struct cxib_pd *pd = to_cxib_pd(ibpd);
	int err;

	err = cxib_cmd_dealloc_pd(dev, pd->pdn);
	if (err && !cxib_dev_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "DEALLOC_PD %u failed: %d\n", pd->pdn, err);
		return err;
	}
	return 0;
}
