// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the driver's UMR QP, which loads translation tables too large for one CREATE_MKEY
 * (PRM §6.1, "UMR" WQE: UMR control, mkey and data segments).
 *
 * A key whose table does not fit one command is created free, with umr_en and the size of
 * its whole table; cxib_umr_load_mtt() then writes the entries through the UMR QP in pieces
 * of at most CXIB_UMR_XLT_MAX_BYTES, each a CXIB_WR_UMR_XLT WR that is waited for, and the
 * last piece makes the key valid.  mlx5_ib loads its MRs the same way
 * (mlx5r_umr_update_mr_pas() in drivers/infiniband/hw/mlx5/umr.c).
 *
 * The QP is a kernel QP of service type REG_UMR, which may load the table of a key of any
 * PD, on a PD and a CQ of the driver's own.  The PD's local_dma_lkey is how the device reads
 * the entries.  It is made after ib_register_device() (ib_alloc_pd() and ib_create_qp() go
 * through the device's ops) and destroyed before ib_unregister_device().
 *
 * Locking: umr->lock serialises loads, so the QP has at most one WR outstanding, and guards
 * umr->qp, which is NULL while there is no QP.  A piece that fails leaves the QP in ERR; the
 * load brings it back through RESET to RTS before it returns.
 */

#include <linux/completion.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "cxib.h"

/* WRs the UMR QP holds; a load has one outstanding. */
#define CXIB_UMR_SQ_WRS		4
/* The largest piece of a table one UMR loads (32768 entries) and its buffer. */
#define CXIB_UMR_XLT_MAX_BYTES	SZ_256K

/* One UMR WR being waited for. */
struct cxib_umr_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

static void cxib_umr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cxib_umr_wait *w = container_of(wc->wr_cqe, struct cxib_umr_wait, cqe);

	w->status = wc->status;
	complete(&w->done);
}

/* RESET -> INIT (port 1, P_Key index 0) -> RTR -> RTS: the UMR QP carries nothing else. */
static int cxib_umr_qp_rts(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/**
 * cxib_umr_init() - create the UMR QP
 * @dev: the device, registered with the RDMA core
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno, with nothing left behind.
 */
int cxib_umr_init(struct cxib_dev *dev)
{
	struct cxib_umr *umr = &dev->umr;
	struct ib_qp_init_attr init = {
		.qp_type = CXIB_QPT_REG_UMR,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = CXIB_UMR_SQ_WRS, .max_send_sge = 1 },
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int err;

	mutex_init(&umr->lock);
	pd = ib_alloc_pd(&dev->ibdev, 0);
	if (IS_ERR(pd)) {
		err = PTR_ERR(pd);
		goto err_out;
	}
	cq = ib_alloc_cq(&dev->ibdev, NULL, CXIB_UMR_SQ_WRS, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(cq)) {
		err = PTR_ERR(cq);
		goto err_pd;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(pd, &init);
	if (IS_ERR(qp)) {
		err = PTR_ERR(qp);
		goto err_cq;
	}
	err = cxib_umr_qp_rts(qp);
	if (err)
		goto err_qp;

	mutex_lock(&umr->lock);
	umr->pd = pd;
	umr->cq = cq;
	umr->qp = qp;
	mutex_unlock(&umr->lock);
	return 0;

err_qp:
	ib_destroy_qp(qp);
err_cq:
	ib_free_cq(cq);
err_pd:
	ib_dealloc_pd(pd);
err_out:
	dev_err(&dev->pdev->dev, "cannot create the UMR QP: %d\n", err);
	mutex_destroy(&umr->lock);
	return err;
}

/**
 * cxib_umr_cleanup() - destroy the UMR QP
 * @dev: the device, still registered
 *
 * A load still running finishes first; later ones fail with -ENODEV.  Sleeps.
 */
void cxib_umr_cleanup(struct cxib_dev *dev)
{
	struct cxib_umr *umr = &dev->umr;
	struct ib_qp *qp;

	mutex_lock(&umr->lock);
	qp = umr->qp;
	umr->qp = NULL;
	mutex_unlock(&umr->lock);
	if (!qp)
		return;
	ib_destroy_qp(qp);
	ib_free_cq(umr->cq);
	ib_dealloc_pd(umr->pd);
	umr->cq = NULL;
	umr->pd = NULL;
	mutex_destroy(&umr->lock);
}

/* Post one piece and wait for it; umr->lock held.  A failed piece resets the QP. */
static int cxib_umr_post_wait(struct cxib_dev *dev, struct cxib_umr_wr *uw)
{
	struct cxib_umr *umr = &dev->umr;
	struct ib_qp_attr reset = { .qp_state = IB_QPS_RESET };
	struct cxib_umr_wait w = { .cqe.done = cxib_umr_done };
	int err;

	init_completion(&w.done);
	uw->wr.wr_cqe = &w.cqe;
	err = ib_post_send(umr->qp, &uw->wr, NULL);
	if (err)
		return err;
	/* The device completes it, or, should it die now, the software flush does (wr.c). */
	wait_for_completion(&w.done);
	if (w.status == IB_WC_SUCCESS)
		return 0;

	ibdev_dbg(&dev->ibdev, "UMR of key 0x%x (%u entries at %llu) failed: %s\n", uw->mkey,
		  uw->nentries, uw->offset, ib_wc_status_msg(w.status));
	err = ib_modify_qp(umr->qp, &reset, IB_QP_STATE);
	if (!err)
		err = cxib_umr_qp_rts(umr->qp);
	if (err)
		ibdev_warn_ratelimited(&dev->ibdev, "UMR QP not recovered: %d\n", err);
	return -EIO;
}

/* A buffer for the pieces: as large as the table or CXIB_UMR_XLT_MAX_BYTES, else smaller. */
static __be64 *cxib_umr_xlt_alloc(u64 nmtt, size_t *bytes)
{
	size_t len = min_t(u64, ALIGN(nmtt * CXIB_PAS_ENTRY_SIZE, CXIB_MR_PL_ALIGN),
			   CXIB_UMR_XLT_MAX_BYTES);
	__be64 *xlt;

	for (;;) {
		xlt = kmalloc(len, GFP_KERNEL | __GFP_NOWARN);
		if (xlt || len <= PAGE_SIZE)
			break;
		len = max_t(size_t, ALIGN_DOWN(len / 2, CXIB_MR_PL_ALIGN), PAGE_SIZE);
	}
	*bytes = len;
	return xlt;
}

/**
 * cxib_umr_load_mtt() - load a free key's MTT table and make the key valid
 * @dev: the device
 * @mkey: the key (index and variant): MTT access mode, umr_en, free, created with room for
 *	at least @nmtt entries
 * @mtt: the entries: bus addresses of the key's pages, in order
 * @nmtt: how many (at least one)
 *
 * Sleeps.  On failure the key may hold part of the table but stays free (unusable).
 *
 * Return: 0, -ENOMEM, -ENODEV without the UMR QP, or -EIO when the device refused a piece.
 */
int cxib_umr_load_mtt(struct cxib_dev *dev, u32 mkey, const u64 *mtt, u64 nmtt)
{
	struct cxib_umr *umr = &dev->umr;
	struct ib_device *ibdev = &dev->ibdev;
	struct cxib_umr_wr uw = {
		.wr = { .opcode = CXIB_WR_UMR_XLT, .send_flags = IB_SEND_SIGNALED },
		.mkey = mkey,
	};
	size_t bytes;
	__be64 *xlt;
	u64 dma, per, off;
	u32 i, n;
	int err;

	if (!nmtt)
		return -EINVAL;
	xlt = cxib_umr_xlt_alloc(nmtt, &bytes);
	if (!xlt)
		return -ENOMEM;
	dma = ib_dma_map_single(ibdev, xlt, bytes, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma)) {
		kfree(xlt);
		return -ENOMEM;
	}
	per = bytes / CXIB_PAS_ENTRY_SIZE;

	mutex_lock(&umr->lock);
	err = -ENODEV;
	if (!umr->qp)
		goto out;
	uw.xlt_dma = dma;
	uw.xlt_lkey = umr->pd->local_dma_lkey;
	for (off = 0, err = 0; off < nmtt && !err; off += n) {
		n = min(per, nmtt - off);
		ib_dma_sync_single_for_cpu(ibdev, dma, bytes, DMA_TO_DEVICE);
		for (i = 0; i < n; i++)
			xlt[i] = cpu_to_be64(mtt[off + i]);
		/* the device reads whole 64-byte blocks: the rest of the last one is zero */
		memset(&xlt[n], 0, ALIGN(n * CXIB_PAS_ENTRY_SIZE, CXIB_MR_PL_ALIGN) -
				   n * CXIB_PAS_ENTRY_SIZE);
		ib_dma_sync_single_for_device(ibdev, dma, bytes, DMA_TO_DEVICE);
		uw.offset = off;
		uw.nentries = n;
		uw.enable = off + n == nmtt;
		err = cxib_umr_post_wait(dev, &uw);
	}
out:
	mutex_unlock(&umr->lock);
	ib_dma_unmap_single(ibdev, dma, bytes, DMA_TO_DEVICE);
	kfree(xlt);
	return err;
}
