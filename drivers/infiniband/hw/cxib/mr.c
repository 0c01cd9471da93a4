// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: memory regions (PRM §5.2).  Today: the DMA MR, a physical-address key spanning the
 * whole 64-bit bus address space, which the RDMA core creates for every kernel PD (the
 * device offers no reserved local DMA lkey, so IBK_LOCAL_DMA_LKEY is not claimed).
 *
 * A key is its index (from CREATE_MKEY) shifted left by 8 with a variant byte below it; the
 * variant changes with every key created, so a stale key held after its index is reused
 * does not match the new one.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "cxib.h"

/* The mkc access bits for IB access flags; local read is always allowed. */
static void cxib_mkc_set_access(struct cxib_mkc *mkc, int acc)
{
	CXIB_SET(mkc, CXIB_MKC_LR, 1);
	CXIB_SET(mkc, CXIB_MKC_LW, !!(acc & IB_ACCESS_LOCAL_WRITE));
	CXIB_SET(mkc, CXIB_MKC_RR, !!(acc & IB_ACCESS_REMOTE_READ));
	CXIB_SET(mkc, CXIB_MKC_RW, !!(acc & IB_ACCESS_REMOTE_WRITE));
	CXIB_SET(mkc, CXIB_MKC_A, !!(acc & IB_ACCESS_REMOTE_ATOMIC));
}

/**
 * cxib_get_dma_mr() - ib_device_ops.get_dma_mr: a key for all of the bus address space
 * @ibpd: the PD the key belongs to
 * @acc: IB_ACCESS_* rights
 *
 * Sleeps.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *cxib_get_dma_mr(struct ib_pd *ibpd, int acc)
{
	struct cxib_dev *dev = to_cxib_dev(ibpd->device);
	struct cxib_mkc mkc = {};
	struct cxib_mr *mr;
	u8 variant;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	variant = (u8)atomic_inc_return(&dev->mkey_variant);
	cxib_mkc_set_access(&mkc, acc);
	CXIB_SET(&mkc, CXIB_MKC_ACCESS_MODE_1_0, CXIB_MKC_ACCESS_MODE_PA);
	CXIB_SET(&mkc, CXIB_MKC_ACCESS_MODE_4_2, 0);
	CXIB_SET(&mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(&mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(&mkc, CXIB_MKC_LENGTH64, 1);
	CXIB_SET(&mkc, CXIB_MKC_PD, to_cxib_pd(ibpd)->pdn);
	CXIB_SET64(&mkc, CXIB_MKC_START_ADDR, 0);
	err = cxib_cmd_create_mkey(dev, &mkc, NULL, 0, &mr->mkey_index);
	if (err) {
		ibdev_err(&dev->ibdev, "CREATE_MKEY (DMA MR, PD %u) failed: %d\n",
			  to_cxib_pd(ibpd)->pdn, err);
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = CXIB_MKEY(mr->mkey_index, variant);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

/**
 * cxib_dereg_mr() - ib_device_ops.dereg_mr
 * @ibmr: the MR
 * @udata: unused
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno (the living device refused; the MR stays).
 */
int cxib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibmr->device);
	struct cxib_mr *mr = to_cxib_mr(ibmr);
	int err;

	err = cxib_cmd_destroy_mkey(dev, mr->mkey_index);
	if (err && !cxib_dev_dead(dev)) {
		ibdev_err(&dev->ibdev, "DESTROY_MKEY 0x%x failed: %d\n", mr->mkey_index, err);
		return err;
	}
	kfree(mr);
	return 0;
}
