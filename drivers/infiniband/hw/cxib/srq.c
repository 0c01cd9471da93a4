// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: shared receive queues (PRM §5.6, §6 SRQ WQEs).  One creation path for kernel and
 * user SRQs: the ring's geometry comes from the core attributes either way; a kernel SRQ's
 * ring is the driver's, a user SRQ's is libmlx5's, pinned (libmlx5 links and posts its
 * WQEs itself).
 *
 * An SRQ is a ring of 2^log_size WQEs of 2^log_stride bytes; each WQE starts with a next
 * segment whose next_wqe_index links the free WQEs into a list, followed by the scatter
 * list (data segments, ended early by one with CXIB_INVALID_LKEY).  The device takes WQEs
 * from the list in the order software posted them (the doorbell record counts them) and
 * names a consumed WQE by its index in the CQE's wqe_counter; completing it puts the WQE back
 * at the tail of the list (cxib_srq_free_wqe()).  One WQE is always on the list as its tail,
 * so at most 2^log_size - 1 receives are posted at once.
 *
 * Locking (Documentation/infiniband/core_locking.rst): post_srq_recv may be called from any
 * context and must not sleep; it and the CQ poller, which frees WQEs, serialise on the SRQ's
 * spinlock with interrupts off.  SRQ events arrive on the async EQ and find the SRQ in the
 * device's SRQ table under the table's interrupt-safe lock, holding a reference while they
 * call the consumer; destroy takes the SRQ out of the table and waits for those references.
 *
 * The device's object depends on the ISSI the driver negotiated (hca.c), as in mlx5's
 * srq_cmd.c: the SRQ commands (CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ / ARM_RQ, an srqc) are
 * ISSI 0's; at ISSI 1 a basic SRQ is a receive memory pool (CREATE_RMP / DESTROY_RMP /
 * QUERY_RMP, and MODIFY_RMP of the wq's lwm to arm the limit), an rmpc whose wq context
 * describes the same linked-list ring.  Everything else is the same for both: the number
 * the device returns (srqn or rmpn) is what a QP's srqn_rmpn_xrqn, a CQE's srqn, the SRQ
 * events (SRQ_RQ_LIMIT, SRQ_CATAS_ERROR with the number in the EQE's srqn) and libmlx5's
 * create_srq response carry.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "cxib.h"

/* The smallest SRQ WQE: the next segment and one data segment. */
#define CXIB_SRQ_MIN_WQE_SIZE	(sizeof(struct cxib_wqe_srq_next_seg) + \
				 sizeof(struct cxib_wqe_data_seg))

/* ---- The WQE ring: pure functions of the SRQ's memory ------------------------------------ */

static void *cxib_srq_wqe(struct cxib_srq *srq, u32 idx)
{
	return cxib_frag_buf_entry(&srq->buf, idx & ((1u << srq->log_size) - 1),
				   srq->log_stride);
}

/**
 * cxib_srq_init_free_list() - link every WQE of an empty SRQ into the free list
 * @srq: the SRQ, with @buf, @log_size and @log_stride set
 *
 * WQE i links to i + 1, the last to 0; the list runs from WQE 0 (@head) to the last
 * (@tail).  Also zeroes the WQE counter.
 */
VISIBLE_IF_KUNIT void cxib_srq_init_free_list(struct cxib_srq *srq)
{
	u32 n = 1u << srq->log_size, i;

	for (i = 0; i < n; i++) {
		struct cxib_wqe_srq_next_seg *next = cxib_srq_wqe(srq, i);

		next->next_wqe_index = cpu_to_be16((i + 1) & (n - 1));
	}
	srq->head = 0;
	srq->tail = n - 1;
	srq->wqe_ctr = 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_init_free_list);

/**
 * cxib_srq_build_wqe() - write a receive request's scatter list into an SRQ WQE
 * @wqe: the WQE; its next segment is left alone
 * @wr: the request, at most @max_gs scatter entries
 * @max_gs: data segments the WQE has room for
 *
 * Fewer entries than @max_gs are ended by a data segment with CXIB_INVALID_LKEY.
 */
static void cxib_srq_build_wqe(void *wqe, const struct ib_recv_wr *wr, u32 max_gs)
{
	struct cxib_wqe_data_seg *d = wqe + sizeof(struct cxib_wqe_srq_next_seg);
	int i;

	for (i = 0; i < wr->num_sge; i++, d++) {
		d->byte_count = cpu_to_be32(wr->sg_list[i].length);
		d->lkey = cpu_to_be32(wr->sg_list[i].lkey);
		d->addr = cpu_to_be64(wr->sg_list[i].addr);
	}
	if (i < max_gs) {
		d->byte_count = 0;
		d->lkey = cpu_to_be32(CXIB_INVALID_LKEY);
		d->addr = 0;
	}
}

/**
 * cxib_post_srq_recv() - ib_device_ops.post_srq_recv
 * @ibsrq: the SRQ
 * @wr: the chain of receive requests
 * @bad_wr: set to the first request not posted, on error
 *
 * Any context; does not sleep.
 *
 * Return: 0, -EINVAL (too many scatter entries), -ENOMEM (the SRQ is full) or -EIO (the
 * device is dead); the requests before *@bad_wr are posted.
 */
int cxib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct cxib_srq *srq = to_cxib_srq(ibsrq);
	unsigned long flags;
	unsigned int nreq;
	int err = 0;

	if (unlikely(srq->uq)) {	/* libmlx5 posts to a user SRQ itself */
		*bad_wr = wr;
		return -EINVAL;
	}
	if (unlikely(cxib_dev_dead(to_cxib_dev(ibsrq->device)))) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (nreq = 0; wr; nreq++, wr = wr->next) {
		struct cxib_wqe_srq_next_seg *next;

		if (unlikely(wr->num_sge < 0 || wr->num_sge > srq->max_gs)) {
			err = -EINVAL;
			break;
		}
		if (unlikely(srq->head == srq->tail)) {
			err = -ENOMEM;
			break;
		}
		next = cxib_srq_wqe(srq, srq->head);
		srq->wrid[srq->head] = wr->wr_id;
		cxib_srq_build_wqe(next, wr, srq->max_gs);
		srq->head = be16_to_cpu(next->next_wqe_index);
		srq->wqe_ctr++;
	}
	if (err)
		*bad_wr = wr;
	if (likely(nreq)) {
		/* The WQEs must be in memory before the device sees the counter move. */
		dma_wmb();
		srq->dbr.db[0] = cpu_to_be32(CXIB_FIELD_PREP(CXIB_SRQ_DB_WQE_COUNTER,
							     srq->wqe_ctr));
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_post_srq_recv);

/**
 * cxib_srq_free_wqe() - retire the SRQ WQE a receive completion names
 * @srq: the SRQ
 * @wqe_index: the CQE's wqe_counter: the WQE's index in the ring
 *
 * Any context (the CQ poller).  The WQE goes back on the free list, after its tail.
 *
 * Return: the wr_id the consumer posted the WQE with.
 */
u64 cxib_srq_free_wqe(struct cxib_srq *srq, u16 wqe_index)
{
	u32 idx = wqe_index & ((1u << srq->log_size) - 1);
	struct cxib_wqe_srq_next_seg *tail;
	unsigned long flags;
	u64 wr_id;

	spin_lock_irqsave(&srq->lock, flags);
	wr_id = srq->wrid[idx];
	tail = cxib_srq_wqe(srq, srq->tail);
	tail->next_wqe_index = cpu_to_be16(idx);
	srq->tail = idx;
	spin_unlock_irqrestore(&srq->lock, flags);
	return wr_id;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_free_wqe);

/* ---- Verbs ------------------------------------------------------------------------------ */

/**
 * cxib_srq_geometry() - the ring an SRQ of @max_wr receives of @max_sge entries needs
 * @caps: the device's capabilities
 * @max_wr: receives the consumer wants to have posted at once
 * @max_sge: scatter entries per receive
 * @log_size: set to log2 of the number of WQEs (one more than @max_wr, rounded up)
 * @log_stride: set to log2 of the WQE size (next segment + data segments, rounded up)
 *
 * Return: 0, or -EINVAL if the device cannot hold it.
 */
VISIBLE_IF_KUNIT int cxib_srq_geometry(const struct cxib_caps *caps, u32 max_wr,
				       u32 max_sge, u8 *log_size, u8 *log_stride)
{
	u32 wqe_size;

	if (!max_wr || max_wr >= BIT(caps->log_max_srq_sz) || max_sge > caps->max_wqe_sz_rq)
		return -EINVAL;	/* (the max_sge test only keeps the sum below from overflowing) */
	wqe_size = sizeof(struct cxib_wqe_srq_next_seg) +
		   max_t(u32, max_sge, 1) * sizeof(struct cxib_wqe_data_seg);
	wqe_size = roundup_pow_of_two(max_t(u32, wqe_size, CXIB_SRQ_MIN_WQE_SIZE));
	if (wqe_size > caps->max_wqe_sz_rq)
		return -EINVAL;
	*log_stride = ilog2(wqe_size);
	*log_size = order_base_2(max_wr + 1);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_geometry);

/**
 * cxib_srq_max_sge() - the most scatter entries an SRQ WQE of the device can hold
 * @caps: the device's capabilities
 *
 * Return: the entries that fit, with the next segment, in max_wqe_sz_rq bytes.
 */
u32 cxib_srq_max_sge(const struct cxib_caps *caps)
{
	if (caps->max_wqe_sz_rq < CXIB_SRQ_MIN_WQE_SIZE)
		return 0;
	return (rounddown_pow_of_two(caps->max_wqe_sz_rq) -
		sizeof(struct cxib_wqe_srq_next_seg)) / sizeof(struct cxib_wqe_data_seg);
}

/* Data segments a WQE of 2^@log_stride bytes holds. */
static u32 cxib_srq_max_gs(u8 log_stride)
{
	return (BIT(log_stride) - sizeof(struct cxib_wqe_srq_next_seg)) /
	       sizeof(struct cxib_wqe_data_seg);
}

static void cxib_srq_free_mem(struct cxib_dev *dev, struct cxib_srq *srq)
{
	if (srq->uq) {
		cxib_uq_free(dev, srq->uq);
		srq->uq = NULL;
		return;
	}
	kvfree(srq->wrid);
	srq->wrid = NULL;
	if (srq->dbr.db)
		cxib_dbr_free(dev, &srq->dbr);
	cxib_frag_buf_free(dev, &srq->buf);
}

/* ---- The device's object: an SRQ (ISSI 0) or an RMP (ISSI 1) ---------------------------- */

/* Whether the device holds the basic SRQs as RMPs: at ISSI 1 (the SRQ commands are ISSI 0's). */
static bool cxib_srq_is_rmp(const struct cxib_dev *dev)
{
	return dev->issi != CXIB_ISSI_0;
}

/**
 * cxib_srq_max_page_offset() - the farthest into its first page an SRQ's ring may start
 * @issi: the ISSI in use (CXIB_ISSI_*)
 *
 * In the page_offset units of the 4 KiB pages cxib hands the device (64 bytes): the
 * srqc's field reaches every unit of a page, the wq of an RMP has one bit less and reaches
 * only the first half, so at ISSI 1 a user SRQ's buffer must start there (mlx5_ib refuses
 * the others too).
 *
 * Return: the largest page_offset the context for @issi holds.
 */
VISIBLE_IF_KUNIT u32 cxib_srq_max_page_offset(u16 issi)
{
	return issi == CXIB_ISSI_0 ? CXIB_FIELD_MAX(CXIB_SRQC_PAGE_OFFSET) :
				     CXIB_FIELD_MAX(CXIB_WQC_PAGE_OFFSET);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_max_page_offset);

/* Where @srq's ring starts in its first page: libmlx5's choice for a user SRQ, else 0. */
static u8 cxib_srq_page_offset(const struct cxib_srq *srq)
{
	return srq->uq ? srq->uq->page_offset : 0;
}

/**
 * cxib_srq_fill_srqc() - the context CREATE_SRQ (ISSI 0) gets for an SRQ
 * @srq: the SRQ, its ring and doorbell record set up
 * @pdn: its PD
 * @srqc: the context, zeroed
 */
VISIBLE_IF_KUNIT void cxib_srq_fill_srqc(const struct cxib_srq *srq, u32 pdn,
					 struct cxib_srqc *srqc)
{
	CXIB_SET(srqc, CXIB_SRQC_STATE, CXIB_SRQC_STATE_GOOD);
	CXIB_SET(srqc, CXIB_SRQC_LOG_SRQ_SIZE, srq->log_size);
	/* the stride in 16-byte units, log2, as the QP's RQ stride is encoded */
	CXIB_SET(srqc, CXIB_SRQC_LOG_RQ_STRIDE, srq->log_stride - CXIB_SRQC_LOG_RQ_STRIDE_BASE);
	CXIB_SET(srqc, CXIB_SRQC_PAGE_OFFSET, cxib_srq_page_offset(srq));
	CXIB_SET(srqc, CXIB_SRQC_LOG_PAGE_SIZE, 0);	/* 4 KiB pieces */
	CXIB_SET(srqc, CXIB_SRQC_PD, pdn);
	CXIB_SET64(srqc, CXIB_SRQC_DBR_ADDR, srq->dbr.dma);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_fill_srqc);

/**
 * cxib_srq_fill_rmpc() - the context CREATE_RMP (ISSI 1) gets for an SRQ
 * @srq: the SRQ, its ring and doorbell record set up; a user SRQ's page offset within
 *	cxib_srq_max_page_offset(CXIB_ISSI_1)
 * @pdn: its PD
 * @rmpc: the context, zeroed
 *
 * The RMP is created ready; its wq describes the same ring as an srqc would: linked-list
 * WQEs (not cyclic ones, basic_cyclic_rcv_wqe 0), no limit armed, no WQE signature.
 */
VISIBLE_IF_KUNIT void cxib_srq_fill_rmpc(const struct cxib_srq *srq, u32 pdn,
					 struct cxib_rmpc *rmpc)
{
	struct cxib_wqc *wq = cxib_rmpc_wq(rmpc);

	CXIB_SET(rmpc, CXIB_RMPC_STATE, CXIB_RMPC_STATE_RDY);
	CXIB_SET(wq, CXIB_WQC_WQ_TYPE, CXIB_WQ_TYPE_LINKED_LIST);
	CXIB_SET(wq, CXIB_WQC_PAGE_OFFSET, cxib_srq_page_offset(srq));
	CXIB_SET(wq, CXIB_WQC_PD, pdn);
	CXIB_SET64(wq, CXIB_WQC_DBR_ADDR, srq->dbr.dma);
	/* the stride's own log2, not the srqc's 16-byte units */
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_STRIDE, srq->log_stride);
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_PG_SZ, 0);		/* 4 KiB pieces */
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_SZ, srq->log_size);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_fill_rmpc);

/* Create @srq in the device (CREATE_SRQ or CREATE_RMP): srq->srqn is its number. */
static int cxib_srq_create_obj(struct cxib_dev *dev, struct cxib_srq *srq, u32 pdn)
{
	if (cxib_srq_is_rmp(dev)) {
		struct cxib_rmpc rmpc = {};

		cxib_srq_fill_rmpc(srq, pdn, &rmpc);
		return cxib_cmd_create_rmp(dev, &rmpc, srq->buf.dma, srq->buf.npages,
					   &srq->srqn);
	} else {
		struct cxib_srqc srqc = {};

		cxib_srq_fill_srqc(srq, pdn, &srqc);
		return cxib_cmd_create_srq(dev, &srqc, srq->buf.dma, srq->buf.npages,
					   &srq->srqn);
	}
}

static int cxib_srq_destroy_obj(struct cxib_dev *dev, struct cxib_srq *srq)
{
	if (cxib_srq_is_rmp(dev))
		return cxib_cmd_destroy_rmp(dev, srq->srqn);
	return cxib_cmd_destroy_srq(dev, srq->srqn);
}

/**
 * cxib_create_srq() - ib_device_ops.create_srq
 * @ibsrq: the SRQ, allocated by the RDMA core
 * @attr: what the consumer asks for; max_wr and max_sge are updated to what it got
 * @udata: NULL for a kernel SRQ; for a user SRQ, libmlx5's request (its ring and
 *	doorbell record, read by cxib_usrq_get(), pinned with cxib_uq_create()) and
 *	response room
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibsrq->device);
	struct cxib_srq *srq = to_cxib_srq(ibsrq);
	struct cxib_uq_req ureq = {};
	u8 page_offset;
	int err;

	if (attr->srq_type != IB_SRQT_BASIC || !dev->caps.log_max_srq)
		return -EOPNOTSUPP;
	spin_lock_init(&srq->lock);
	cxib_obj_ref_init(&srq->ref);
	if (udata) {
		/* libmlx5's request, checked before the geometry (uverbs.c) */
		err = cxib_usrq_get(udata, &ureq);
		if (err)
			return err;
	}
	err = cxib_srq_geometry(&dev->caps, attr->attr.max_wr, attr->attr.max_sge,
				&srq->log_size, &srq->log_stride);
	if (err)
		return err;
	srq->max_gs = cxib_srq_max_gs(srq->log_stride);

	if (udata) {
		struct cxib_ucontext *uctx = rdma_udata_to_drv_context(udata,
								       struct cxib_ucontext,
								       ibucontext);
		struct cxib_uq *uq;

		/* libmlx5's ring and doorbell record, pinned; libmlx5 posts to them */
		err = cxib_uq_buf_offset(ureq.buf_addr, BIT(srq->log_stride), &page_offset);
		if (err)
			return err;
		if (page_offset > cxib_srq_max_page_offset(dev->issi)) {
			ibdev_dbg(&dev->ibdev,
				  "user SRQ ring at 0x%llx: too far into its page for an RMP\n",
				  ureq.buf_addr);
			return -EINVAL;
		}
		uq = cxib_uq_create(dev, uctx, &ureq, BIT(srq->log_size + srq->log_stride),
				    &srq->buf, &srq->dbr);
		if (IS_ERR(uq))
			return PTR_ERR(uq);
		srq->uq = uq;
		goto create;
	}
	err = cxib_frag_buf_alloc(dev, &srq->buf, BIT(srq->log_size + srq->log_stride));
	if (err)
		return err;
	err = cxib_dbr_alloc(dev, &srq->dbr);
	if (err)
		goto err_free;
	srq->wrid = kvcalloc(BIT(srq->log_size), sizeof(*srq->wrid), GFP_KERNEL);
	if (!srq->wrid) {
		err = -ENOMEM;
		goto err_free;
	}
	cxib_srq_init_free_list(srq);

create:
	err = cxib_srq_create_obj(dev, srq, to_cxib_pd(ibsrq->pd)->pdn);
	if (err) {
		ibdev_dbg(&dev->ibdev, "creating an SRQ (%u WQEs of %u bytes) failed: %d\n",
			  1u << srq->log_size, 1u << srq->log_stride, err);
		goto err_free;
	}
	if (srq->uq) {
		/* before the SRQ is in the table, where event handlers find it */
		err = cxib_usrq_respond(srq, udata);
		if (err)
			goto err_destroy;
	}
	err = xa_insert_irq(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	attr->attr.max_wr = BIT(srq->log_size) - 1;
	attr->attr.max_sge = srq->max_gs;
	return 0;

err_destroy:
	cxib_srq_destroy_obj(dev, srq);
err_free:
	cxib_srq_free_mem(dev, srq);
	return err;
}

/**
 * cxib_modify_srq() - ib_device_ops.modify_srq: arm the SRQ limit event
 * @ibsrq: the SRQ
 * @attr: srq_limit: raise IB_EVENT_SRQ_LIMIT_REACHED once fewer WQEs are posted
 * @mask: IB_SRQ_LIMIT; resizing (IB_SRQ_MAX_WR) is not supported
 * @udata: unused
 *
 * ARM_RQ, or for an RMP MODIFY_RMP of its lwm.  Sleeps.  The device disarms the limit when
 * it raises the event; the consumer re-arms.
 *
 * Return: 0 or a negative errno.
 */
int cxib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibsrq->device);
	struct cxib_srq *srq = to_cxib_srq(ibsrq);

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= BIT(srq->log_size) - 1)
		return -EINVAL;
	if (cxib_srq_is_rmp(dev))
		return cxib_cmd_arm_rmp(dev, srq->srqn, attr->srq_limit);
	return cxib_cmd_arm_srq(dev, srq->srqn, attr->srq_limit);
}

/* The device's limit of @srq (QUERY_SRQ, or QUERY_RMP's wq). */
static int cxib_srq_query_lwm(struct cxib_dev *dev, struct cxib_srq *srq, u32 *lwm)
{
	int err;

	if (cxib_srq_is_rmp(dev)) {
		struct cxib_rmpc rmpc;

		err = cxib_cmd_query_rmp(dev, srq->srqn, &rmpc);
		if (!err)
			*lwm = CXIB_GET(cxib_rmpc_wq(&rmpc), CXIB_WQC_LWM);
	} else {
		struct cxib_srqc srqc;

		err = cxib_cmd_query_srq(dev, srq->srqn, &srqc);
		if (!err)
			*lwm = CXIB_GET(&srqc, CXIB_SRQC_LWM);
	}
	return err;
}

/**
 * cxib_query_srq() - ib_device_ops.query_srq
 * @ibsrq: the SRQ
 * @attr: filled with max_wr, max_sge and the armed limit (0: not armed)
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct cxib_dev *dev = to_cxib_dev(ibsrq->device);
	struct cxib_srq *srq = to_cxib_srq(ibsrq);
	int err;

	err = cxib_srq_query_lwm(dev, srq, &attr->srq_limit);
	if (err)
		return err;
	attr->max_wr = BIT(srq->log_size) - 1;
	attr->max_sge = srq->max_gs;
	return 0;
}

/**
 * cxib_destroy_srq() - ib_device_ops.destroy_srq
 * @ibsrq: the SRQ; no QP uses it any more
 * @udata: unused
 *
 * Sleeps.  No event handler runs for the SRQ once this returns.
 *
 * Return: 0 or a negative errno (the living device refused; the SRQ stays).
 */
int cxib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibsrq->device);
	struct cxib_srq *srq = to_cxib_srq(ibsrq);
	int err;

	err = cxib_srq_destroy_obj(dev, srq);
	if (err && !cxib_dev_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "destroying SRQ 0x%x failed: %d\n", srq->srqn, err);
		return err;
	}
	xa_erase_irq(&dev->srqs, srq->srqn);
	cxib_obj_put_wait(&srq->ref);
	cxib_srq_free_mem(dev, srq);
	return 0;
}

/* ---- Events ---------------------------------------------------------------------------- */

/**
 * cxib_srq_event_type() - the RDMA core's event for an SRQ event of the device
 * @event_type: CXIB_EVENT_TYPE_SRQ_RQ_LIMIT or CXIB_EVENT_TYPE_SRQ_CATAS_ERROR
 *
 * Return: the ib_event_type, or -1 for an event type that is not an SRQ's.
 */
VISIBLE_IF_KUNIT int cxib_srq_event_type(u8 event_type)
{
	switch (event_type) {
	case CXIB_EVENT_TYPE_SRQ_RQ_LIMIT:
		return IB_EVENT_SRQ_LIMIT_REACHED;
	case CXIB_EVENT_TYPE_SRQ_CATAS_ERROR:
		return IB_EVENT_SRQ_ERR;
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_srq_event_type);

/**
 * cxib_srq_event() - the device reports an SRQ event
 * @dev: the device
 * @srqn: the SRQ number from the EQE
 * @event_type: the EQE's event type (CXIB_EVENT_TYPE_SRQ_*)
 *
 * Called from the async EQ's interrupt handler; becomes IB_EVENT_SRQ_LIMIT_REACHED or
 * IB_EVENT_SRQ_ERR for the consumer's event handler.  A kernel SRQ's catastrophic error
 * is logged as an error; a user SRQ's, which its process can cause (a broken WQE list), at
 * debug level.
 */
void cxib_srq_event(struct cxib_dev *dev, u32 srqn, u8 event_type)
{
	int type = cxib_srq_event_type(event_type);
	struct ib_event ev = {};
	struct cxib_srq *srq;

	/* The SRQ table exists while the device is registered. */
	if (type < 0 || !test_bit(CXIB_DEV_IB_ACTIVE, &dev->flags))
		return;
	srq = cxib_obj_get(&dev->srqs, srqn, struct cxib_srq);
	if (!srq) {
		dev_dbg_ratelimited(&dev->pdev->dev, "event 0x%02x for unknown SRQ 0x%x\n",
				    event_type, srqn);
		return;
	}
	if (event_type == CXIB_EVENT_TYPE_SRQ_CATAS_ERROR && srq->uq)
		dev_dbg_ratelimited(&dev->pdev->dev, "user SRQ 0x%x catastrophic error\n", srqn);
	else if (event_type == CXIB_EVENT_TYPE_SRQ_CATAS_ERROR)
		dev_err_ratelimited(&dev->pdev->dev, "SRQ 0x%x catastrophic error\n", srqn);
	if (srq->ibsrq.event_handler) {
		ev.device = srq->ibsrq.device;
		ev.event = type;
		ev.element.srq = &srq->ibsrq;
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	cxib_obj_put(&srq->ref);
}
