// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: queue pairs (PRM §5.4, §5.5): create/modify/query/destroy for kernel consumers (the
 * QP commands are in fw_verbs.c), and the QP's asynchronous events.
 *
 * A QP's work queues live in one buffer of 4 KiB pieces: the receive queue at offset 0,
 * then the send queue, as the QP context's PAS list describes them.  The doorbell record
 * holds the receive counter (dword 0) and the send counter (dword 1).
 *
 * Special QPs: SMI (QP0) and GSI (QP1) are device QPs of service type QP0 / QP1 (PRM
 * §5.5); the device numbers them as it likes, the RDMA core sees qp_num 0 and 1.  They
 * send with a datagram segment like UD QPs.  Receive completions of QP1 carry the P_Key,
 * which the CQ poller turns into a P_Key index.
 *
 * Locking (Documentation/infiniband/core_locking.rst): modify, query and destroy of one QP
 * are serialised by the QP's mutex; posting takes the queue's spinlock and never sleeps.
 * The QP table's lock is taken in hard interrupt context (the async EQ); the CQ pollers
 * look QPs up under their CQ's lock, and destroy takes the QP off its CQs under those locks,
 * so a poller never uses a QP being freed.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cxib.h"

/* ---- The QP table and events --------------------------------------------------------------- */

/**
 * cxib_qp_event_type() - the RDMA core's event for a QP event type of an EQE
 * @event_type: CXIB_EVENT_TYPE_*
 *
 * Return: the enum ib_event_type, or -1 if @event_type is no QP event.
 */
VISIBLE_IF_KUNIT int cxib_qp_event_type(u8 event_type)
{
	switch (event_type) {
	case CXIB_EVENT_TYPE_PATH_MIG:
		return IB_EVENT_PATH_MIG;
	case CXIB_EVENT_TYPE_COMM_EST:
		return IB_EVENT_COMM_EST;
	case CXIB_EVENT_TYPE_SQ_DRAINED:
		return IB_EVENT_SQ_DRAINED;
	case CXIB_EVENT_TYPE_SRQ_LAST_WQE:
		return IB_EVENT_QP_LAST_WQE_REACHED;
	case CXIB_EVENT_TYPE_WQ_CATAS_ERROR:
		return IB_EVENT_QP_FATAL;
	case CXIB_EVENT_TYPE_PATH_MIG_FAILED:
		return IB_EVENT_PATH_MIG_ERR;
	case CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
		return IB_EVENT_QP_REQ_ERR;
	case CXIB_EVENT_TYPE_WQ_ACCESS_ERROR:
		return IB_EVENT_QP_ACCESS_ERR;
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_qp_event_type);

/**
 * cxib_qp_event() - the device reports an event of a QP
 * @dev: the device
 * @qpn: the device QP number from the EQE
 * @event_type: CXIB_EVENT_TYPE_* (a QP event: see cxib_qp_event_type())
 *
 * Called from the async EQ's interrupt handler; calls the QP's event handler.  An error
 * event of a kernel QP is logged as a warning; a user QP's, which its process can cause
 * (a bad WQE, a bad key), at debug level: the process hears of it as an async event.
 */
void cxib_qp_event(struct cxib_dev *dev, u32 qpn, u8 event_type)
{
	int type = cxib_qp_event_type(event_type);
	struct ib_event ev = {};
	struct cxib_qp *qp;
	bool error;

	if (type < 0 || !test_bit(CXIB_DEV_IB_ACTIVE, &dev->flags))
		return;
	qp = cxib_obj_get(&dev->qps, qpn, struct cxib_qp);
	if (!qp) {
		dev_dbg_ratelimited(&dev->pdev->dev, "event 0x%02x for unknown QP %u\n",
				    event_type, qpn);
		return;
	}
	error = type != IB_EVENT_COMM_EST && type != IB_EVENT_QP_LAST_WQE_REACHED &&
		type != IB_EVENT_SQ_DRAINED;
	if (error && qp->uq)
		ibdev_dbg_ratelimited(&dev->ibdev, "user QP %u: async error event 0x%02x\n",
				      qpn, event_type);
	else if (error)
		ibdev_warn_ratelimited(&dev->ibdev, "QP %u: async error event 0x%02x\n", qpn,
				       event_type);
	if (qp->ibqp.event_handler) {
		ev.device = qp->ibqp.device;
		ev.event = type;
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	cxib_obj_put(&qp->ref);
}

/* ---- Sizing -------------------------------------------------------------------------------- */

/* Largest message of a QP0/QP1 (one MAD; PRM §5.5: log_msg_max 8) and of a UD QP (4 KiB). */
#define CXIB_SQP_MSG_MAX		256
#define CXIB_UD_MSG_MAX			4096

/*
 * The pad and Ethernet segment of an IPoIB UD QP's WQEs, at their largest: an LSO WQE
 * with the longest headers inline.
 */
#define CXIB_SQ_IPOIB_OVERHEAD	(CXIB_WQE_ETH_PAD_SIZE +					\
				 ALIGN(CXIB_WQE_ETH_INLINE_HDR_OFFSET + CXIB_IPOIB_LSO_MAX_HDR,	\
				       CXIB_WQE_DS_SIZE))

/* Bytes of a send WQE before its data or inline segments, for the QP's type. */
static u32 cxib_sq_overhead(enum ib_qp_type type, bool ipoib)
{
	u32 ctrl = sizeof(struct cxib_wqe_ctrl_seg);
	u32 umr = ctrl + sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg) +
		  sizeof(struct cxib_wqe_data_seg);

	switch (type) {
	case IB_QPT_RC:
		/* raddr + atomic, or a whole REG_MR UMR */
		return max_t(u32, ctrl + sizeof(struct cxib_wqe_raddr_seg) +
				  sizeof(struct cxib_wqe_atomic_seg), umr);
	case IB_QPT_UC:
		return max_t(u32, ctrl + sizeof(struct cxib_wqe_raddr_seg), umr);
	case CXIB_QPT_REG_UMR:
		return umr;
	default:	/* UD, GSI, SMI */
		return ctrl + CXIB_WQE_AV_SIZE + (ipoib ? CXIB_SQ_IPOIB_OVERHEAD : 0);
	}
}

static u32 cxib_inline_bytes(u32 max_inline)
{
	return max_inline ? ALIGN(CXIB_WQE_INLINE_HDR_SIZE + max_inline, CXIB_WQE_DS_SIZE) : 0;
}

/* Size the SQ for @cap and update @cap to what the QP gets. */
static int cxib_qp_size_sq(struct cxib_dev *dev, struct cxib_qp *qp, enum ib_qp_type type,
			   struct ib_qp_cap *cap)
{
	u32 max_wqe = min_t(u32, dev->caps.max_wqe_sz_sq, CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB);
	u32 ovh = cxib_sq_overhead(type, qp->ipoib), wqe, bbs, nwr;

	if (cap->max_send_sge > (max_wqe - ovh) / sizeof(struct cxib_wqe_data_seg) ||
	    cap->max_inline_data > max_wqe - ovh - CXIB_WQE_INLINE_HDR_SIZE)
		return -EINVAL;
	wqe = ovh + max_t(u32, cap->max_send_sge * sizeof(struct cxib_wqe_data_seg),
			  cxib_inline_bytes(cap->max_inline_data));
	wqe = ALIGN(wqe, CXIB_SEND_WQE_BB);
	if (wqe > max_wqe)
		return -EINVAL;
	bbs = wqe / CXIB_SEND_WQE_BB;
	nwr = max_t(u32, cap->max_send_wr, 1);
	if ((u64)nwr * bbs > BIT(dev->caps.log_max_qp_sz))
		return -EINVAL;
	qp->sq.log_wqe_cnt = order_base_2(nwr * bbs);
	qp->sq.max_wqe_bbs = bbs;
	qp->sq.max_wr = BIT(qp->sq.log_wqe_cnt) / bbs;
	/* What fits beside the fixed segments of the largest WQE. */
	qp->sq.max_gs = (wqe - ovh) / sizeof(struct cxib_wqe_data_seg);
	qp->sq.max_inline = wqe - ovh - CXIB_WQE_INLINE_HDR_SIZE;
	cap->max_send_wr = qp->sq.max_wr;
	cap->max_send_sge = qp->sq.max_gs;
	cap->max_inline_data = qp->sq.max_inline;
	return 0;
}

/* Size the RQ for @cap (none with an SRQ) and update @cap to what the QP gets. */
static int cxib_qp_size_rq(struct cxib_dev *dev, struct cxib_qp *qp, struct ib_qp_cap *cap,
			   bool srq)
{
	u32 stride, nwr;

	if (srq) {
		qp->rq.log_wqe_cnt = 0;
		qp->rq.max_wr = 0;
		qp->rq.max_gs = 0;
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	if (!cap->max_recv_wr) {
		/* A zero-size RQ: nothing can be posted. */
		qp->rq.max_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	stride = roundup_pow_of_two(max_t(u32, cap->max_recv_sge, 1) *
				    sizeof(struct cxib_wqe_data_seg));
	if (stride > dev->caps.max_wqe_sz_rq ||
	    ilog2(stride) - ilog2(CXIB_WQE_DS_SIZE) >
	    CXIB_FIELD_GET(CXIB_QPC_LOG_RQ_STRIDE, U32_MAX))
		return -EINVAL;
	/* At least one WQEBB of RQ, so that the SQ after it starts on a WQEBB boundary. */
	nwr = max_t(u32, roundup_pow_of_two(cap->max_recv_wr), CXIB_SEND_WQE_BB / stride);
	if (nwr > BIT(dev->caps.log_max_qp_sz))
		return -EINVAL;
	qp->rq.log_wqe_cnt = ilog2(nwr);
	qp->rq.log_stride = ilog2(stride);
	qp->rq.max_wr = nwr;
	qp->rq.max_gs = stride / sizeof(struct cxib_wqe_data_seg);
	cap->max_recv_wr = nwr;
	cap->max_recv_sge = qp->rq.max_gs;
	return 0;
}

static u32 cxib_rq_bytes(const struct cxib_qp *qp)
{
	return qp->rq.max_wr ? BIT(qp->rq.log_wqe_cnt + qp->rq.log_stride) : 0;
}

static u8 cxib_qp_st(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return CXIB_QPC_ST_RC;
	case IB_QPT_UC:
		return CXIB_QPC_ST_UC;
	case IB_QPT_SMI:
		return CXIB_QPC_ST_QP0;
	case IB_QPT_GSI:
		return CXIB_QPC_ST_QP1;
	case CXIB_QPT_REG_UMR:
		return CXIB_QPC_ST_REG_UMR;
	default:
		return CXIB_QPC_ST_UD;
	}
}

/* Put a new QP on its CQs' lists; its CQEs can be polled from now on. */
static void cxib_qp_link_cqs(struct cxib_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->send_cq->lock, flags);
	list_add_tail(&qp->cq_send_node, &qp->send_cq->send_qps);
	spin_unlock_irqrestore(&qp->send_cq->lock, flags);
	spin_lock_irqsave(&qp->recv_cq->lock, flags);
	list_add_tail(&qp->cq_recv_node, &qp->recv_cq->recv_qps);
	spin_unlock_irqrestore(&qp->recv_cq->lock, flags);
}

/* Take a QP off its CQs' lists and drop its CQEs still in them. */
static void cxib_qp_unlink_cqs(struct cxib_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->send_cq->lock, flags);
	list_del(&qp->cq_send_node);
	if (!qp->uq)	/* a user CQ's memory is not the kernel's */
		cxib_cq_clean_locked(qp->send_cq, qp->qpn, NULL);
	spin_unlock_irqrestore(&qp->send_cq->lock, flags);
	spin_lock_irqsave(&qp->recv_cq->lock, flags);
	list_del(&qp->cq_recv_node);
	if (!qp->uq)
		cxib_cq_clean_locked(qp->recv_cq, qp->qpn, qp->srq);
	spin_unlock_irqrestore(&qp->recv_cq->lock, flags);
}

/* Forget the work queues' contents (a QP back in RESET): counters and doorbell record 0. */
static void cxib_qp_reset_wqs(struct cxib_qp *qp)
{
	unsigned long flags, cflags;

	/* The pollers' view first: no CQE of this QP is left, and none will come. */
	spin_lock_irqsave(&qp->send_cq->lock, cflags);
	cxib_cq_clean_locked(qp->send_cq, qp->qpn, NULL);
	spin_unlock_irqrestore(&qp->send_cq->lock, cflags);
	spin_lock_irqsave(&qp->recv_cq->lock, cflags);
	cxib_cq_clean_locked(qp->recv_cq, qp->qpn, qp->srq);
	spin_unlock_irqrestore(&qp->recv_cq->lock, cflags);

	spin_lock_irqsave(&qp->sq.lock, flags);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->sq.wr_head = 0;
	qp->sq.wr_tail = 0;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	spin_lock_irqsave(&qp->rq.lock, flags);
	qp->rq.head = 0;
	qp->rq.tail = 0;
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	qp->dbr.db[CXIB_OFFSET(CXIB_QP_DB_RCV_COUNTER) / 4] = 0;
	qp->dbr.db[CXIB_OFFSET(CXIB_QP_DB_SND_COUNTER) / 4] = 0;
}

/* ---- create_qp ----------------------------------------------------------------------------- */

static int cxib_qp_check_init_attr(struct cxib_dev *dev, const struct ib_qp_init_attr *attr,
				   const struct ib_udata *udata)
{
	switch (attr->qp_type) {
	case IB_QPT_RC:
		if (!dev->caps.rc)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_UC:
		if (!dev->caps.uc)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_UD:
		if (!dev->caps.ud)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (attr->port_num < 1 || attr->port_num > dev->caps.num_ports)
			return -EINVAL;
		break;
	case CXIB_QPT_REG_UMR:
		/* the driver's own (umr.c): sends only */
		if (udata || attr->srq || attr->cap.max_recv_wr)
			return -EOPNOTSUPP;
		break;
	default:
		return -EOPNOTSUPP;
	}
	/* IPoIB's UD QP (kernel only): the offloads, if the device has them */
	if (attr->create_flags & ~IB_QP_CREATE_IPOIB_UD_LSO)
		return -EOPNOTSUPP;
	if ((attr->create_flags & IB_QP_CREATE_IPOIB_UD_LSO) &&
	    (attr->qp_type != IB_QPT_UD || udata || !dev->caps.ipoib_offloads))
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	return 0;
}

static void cxib_qp_free_bufs(struct cxib_dev *dev, struct cxib_qp *qp)
{
	if (qp->uq) {
		cxib_uq_free(dev, qp->uq);
		qp->uq = NULL;
		return;
	}
	kfree(qp->sq.stage);
	kvfree(qp->sq.ents);
	kvfree(qp->rq.wrid);
	cxib_dbr_free(dev, &qp->dbr);
	cxib_frag_buf_free(dev, &qp->buf);
}

static int cxib_qp_alloc_bufs(struct cxib_dev *dev, struct cxib_qp *qp)
{
	u32 rq_bytes = cxib_rq_bytes(qp);
	u32 sq_bytes = BIT(qp->sq.log_wqe_cnt) * CXIB_SEND_WQE_BB;
	int err;

	qp->sq.offset = rq_bytes;
	err = cxib_frag_buf_alloc(dev, &qp->buf, (size_t)rq_bytes + sq_bytes);
	if (err)
		return err;
	err = cxib_dbr_alloc(dev, &qp->dbr);
	if (err) {
		cxib_frag_buf_free(dev, &qp->buf);
		return err;
	}
	qp->dbr.db[CXIB_OFFSET(CXIB_QP_DB_RCV_COUNTER) / 4] = 0;
	qp->dbr.db[CXIB_OFFSET(CXIB_QP_DB_SND_COUNTER) / 4] = 0;
	qp->sq.ents = kvcalloc(BIT(qp->sq.log_wqe_cnt), sizeof(*qp->sq.ents), GFP_KERNEL);
	qp->sq.stage = kzalloc(CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB, GFP_KERNEL);
	if (qp->rq.max_wr)
		qp->rq.wrid = kvcalloc(qp->rq.max_wr, sizeof(*qp->rq.wrid), GFP_KERNEL);
	if (!qp->sq.ents || !qp->sq.stage || (qp->rq.max_wr && !qp->rq.wrid)) {
		cxib_qp_free_bufs(dev, qp);
		return -ENOMEM;
	}
	return 0;
}

static void cxib_qp_fill_create_qpc(struct cxib_dev *dev, struct cxib_qp *qp,
				    struct cxib_qpc *qpc)
{
	CXIB_SET(qpc, CXIB_QPC_ST, qp->st);
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	CXIB_SET(qpc, CXIB_QPC_PD, to_cxib_pd(qp->ibqp.pd)->pdn);
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, dev->uar);
	CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, qp->sq.log_wqe_cnt);
	/* Kernel QPs post UMRs (REG_MR, LOCAL_INV). */
	CXIB_SET(qpc, CXIB_QPC_FRE, 1);
	if (qp->ipoib)
		CXIB_SET(qpc, CXIB_QPC_ULP_STATELESS_OFFLOAD_MODE, CXIB_QPC_ULP_OFFLOAD_IPOIB_UD);
	if (qp->srq) {
		CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, CXIB_QPC_RQ_TYPE_SRQ);
		/* the SRQ's number, an RMP's at ISSI 1 (srq.c) */
		CXIB_SET(qpc, CXIB_QPC_SRQN_RMPN_XRQN, qp->srq->srqn);
	} else if (!qp->rq.max_wr) {
		CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, CXIB_QPC_RQ_TYPE_ZERO_SIZE_RQ);
	} else {
		CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, CXIB_QPC_RQ_TYPE_REGULAR);
		CXIB_SET(qpc, CXIB_QPC_LOG_RQ_SIZE, qp->rq.log_wqe_cnt);
		CXIB_SET(qpc, CXIB_QPC_LOG_RQ_STRIDE,
			 qp->rq.log_stride - CXIB_QPC_LOG_RQ_STRIDE_BASE);
	}
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, qp->send_cq->cqn);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, qp->recv_cq->cqn);
	/* 4 KiB pages, the buffer starts at the start of its first page */
	CXIB_SET(qpc, CXIB_QPC_LOG_PAGE_SIZE, 0);
	CXIB_SET(qpc, CXIB_QPC_PAGE_OFFSET, 0);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, qp->dbr.dma);
}

/**
 * cxib_create_qp() - ib_device_ops.create_qp: an RC, UC, UD, SMI or GSI QP, or the UMR QP
 * @ibqp: the QP, allocated by the RDMA core
 * @attr: type, CQs, SRQ, capacities, signalling
 * @udata: NULL for a kernel QP; for a user QP, libmlx5's request (its buffer and doorbell
 *	record, pinned by cxib_uqp_init()) and response room
 *
 * Sleeps.  @attr->cap is updated to what the QP got.
 *
 * Return: 0 or a negative errno.
 */
int cxib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	struct cxib_qp *qp = to_cxib_qp(ibqp);
	struct cxib_qpc qpc = {};
	int err;

	err = cxib_qp_check_init_attr(dev, attr, udata);
	if (err)
		return err;

	qp->st = cxib_qp_st(attr->qp_type);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->ipoib = attr->create_flags & IB_QP_CREATE_IPOIB_UD_LSO;
	qp->port = attr->qp_type == IB_QPT_SMI || attr->qp_type == IB_QPT_GSI ?
		   attr->port_num : 1;
	qp->srq = attr->srq ? to_cxib_srq(attr->srq) : NULL;
	qp->send_cq = to_cxib_cq(attr->send_cq);
	qp->recv_cq = to_cxib_cq(attr->recv_cq);
	mutex_init(&qp->mutex);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	cxib_obj_ref_init(&qp->ref);

	if (udata) {
		/* libmlx5's buffer and doorbell record, pinned (uverbs.c) */
		err = cxib_uqp_init(qp, attr, udata);
		if (err)
			return err;
	} else {
		err = cxib_qp_size_sq(dev, qp, attr->qp_type, &attr->cap);
		if (err)
			return err;
		err = cxib_qp_size_rq(dev, qp, &attr->cap, qp->srq);
		if (err)
			return err;
		err = cxib_qp_alloc_bufs(dev, qp);
		if (err)
			return err;
	}

	cxib_qp_fill_create_qpc(dev, qp, &qpc);
	if (qp->uq)
		cxib_uqp_fill_qpc(qp, &qpc);
	err = cxib_cmd_create_qp(dev, &qpc, qp->buf.dma, qp->buf.npages, &qp->qpn);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_QP (type %d) failed: %d\n", attr->qp_type, err);
		goto err_free;
	}
	if (qp->uq) {
		err = cxib_uqp_respond(qp, udata);
		if (err)
			goto err_destroy;
	}
	err = xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err) {
		ibdev_err(&dev->ibdev, "QP %u: number already in use: %d\n", qp->qpn, err);
		goto err_destroy;
	}
	cxib_qp_link_cqs(qp);

	if (attr->qp_type == IB_QPT_SMI)
		ibqp->qp_num = 0;
	else if (attr->qp_type == IB_QPT_GSI)
		ibqp->qp_num = 1;
	else
		ibqp->qp_num = qp->qpn;
	return 0;

err_destroy:
	cxib_cmd_destroy_qp(dev, qp->qpn);
err_free:
	cxib_qp_free_bufs(dev, qp);
	return err;
}

/* ---- modify_qp ----------------------------------------------------------------------------- */

static u8 cxib_ib_rate_to_hw(enum ib_rate rate)
{
	if (rate == IB_RATE_PORT_CURRENT)
		return 0;
	return min_t(u32, rate + CXIB_AV_STAT_RATE_OFFSET,
		     CXIB_FIELD_GET(CXIB_ADS_STAT_RATE, U32_MAX));
}

static enum ib_rate cxib_hw_rate_to_ib(u8 rate)
{
	return rate >= CXIB_AV_STAT_RATE_OFFSET ? rate - CXIB_AV_STAT_RATE_OFFSET :
					       IB_RATE_PORT_CURRENT;
}

/* An address handle attribute into an address path. */
static int cxib_set_path(struct cxib_dev *dev, const struct rdma_ah_attr *ah,
			 struct cxib_ads *path)
{
	const struct ib_global_route *grh;

	if (ah->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	CXIB_SET(path, CXIB_ADS_RLID, rdma_ah_get_dlid(ah));
	CXIB_SET(path, CXIB_ADS_MLID, rdma_ah_get_path_bits(ah));
	CXIB_SET(path, CXIB_ADS_SL, rdma_ah_get_sl(ah));
	CXIB_SET(path, CXIB_ADS_STAT_RATE, cxib_ib_rate_to_hw(rdma_ah_get_static_rate(ah)));
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		grh = rdma_ah_read_grh(ah);
		CXIB_SET(path, CXIB_ADS_GRH, 1);
		CXIB_SET(path, CXIB_ADS_SRC_ADDR_INDEX, grh->sgid_index);
		CXIB_SET(path, CXIB_ADS_HOP_LIMIT, grh->hop_limit);
		CXIB_SET(path, CXIB_ADS_TCLASS, grh->traffic_class);
		CXIB_SET(path, CXIB_ADS_FLOW_LABEL, grh->flow_label);
		memcpy((void *)path + CXIB_ADS_RGID_OFFSET, grh->dgid.raw, CXIB_ADS_RGID_LEN);
	}
	return 0;
}

static void cxib_get_path(const struct cxib_ads *path, u8 port, struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(ah, port);
	rdma_ah_set_dlid(ah, CXIB_GET(path, CXIB_ADS_RLID));
	rdma_ah_set_path_bits(ah, CXIB_GET(path, CXIB_ADS_MLID));
	rdma_ah_set_sl(ah, CXIB_GET(path, CXIB_ADS_SL));
	rdma_ah_set_static_rate(ah, cxib_hw_rate_to_ib(CXIB_GET(path, CXIB_ADS_STAT_RATE)));
	if (CXIB_GET(path, CXIB_ADS_GRH)) {
		memcpy(dgid.raw, (const void *)path + CXIB_ADS_RGID_OFFSET, CXIB_ADS_RGID_LEN);
		rdma_ah_set_grh(ah, &dgid, CXIB_GET(path, CXIB_ADS_FLOW_LABEL),
				CXIB_GET(path, CXIB_ADS_SRC_ADDR_INDEX),
				CXIB_GET(path, CXIB_ADS_HOP_LIMIT),
				CXIB_GET(path, CXIB_ADS_TCLASS));
	}
}

/* The command of a transition, or 0 if none. */
static u16 cxib_modify_opcode(enum ib_qp_state cur, enum ib_qp_state new)
{
	if (new == IB_QPS_RESET)
		return CXIB_CMD_OP_2RST_QP;
	if (new == IB_QPS_ERR)
		return CXIB_CMD_OP_2ERR_QP;
	switch (cur) {
	case IB_QPS_RESET:
		return new == IB_QPS_INIT ? CXIB_CMD_OP_RST2INIT_QP : 0;
	case IB_QPS_INIT:
		if (new == IB_QPS_INIT)
			return CXIB_CMD_OP_INIT2INIT_QP;
		return new == IB_QPS_RTR ? CXIB_CMD_OP_INIT2RTR_QP : 0;
	case IB_QPS_RTR:
		return new == IB_QPS_RTS ? CXIB_CMD_OP_RTR2RTS_QP : 0;
	case IB_QPS_RTS:
		return new == IB_QPS_RTS ? CXIB_CMD_OP_RTS2RTS_QP : 0;
	case IB_QPS_SQE:
		return new == IB_QPS_RTS ? CXIB_CMD_OP_SQERR2RTS_QP : 0;
	case IB_QPS_SQD:
		return new == IB_QPS_RTS ? CXIB_CMD_OP_SQD_RTS_QP : 0;
	default:
		return 0;
	}
}

/* The optional parameters a transition may carry for a service type (as mlx5 sends them). */
static u32 cxib_modify_opt_allowed(u16 opcode, u8 st)
{
	bool rc = st == CXIB_QPC_ST_RC, uc = st == CXIB_QPC_ST_UC, ud = st == CXIB_QPC_ST_UD;
	u32 rw = CXIB_QP_OPTPAR_RWE | (rc ? CXIB_QP_OPTPAR_RRE | CXIB_QP_OPTPAR_RAE : 0);

	if (!rc && !uc && !ud)
		return 0;	/* QP0, QP1: opt_param_mask 0 */
	switch (opcode) {
	case CXIB_CMD_OP_INIT2INIT_QP:
		return ud ? CXIB_QP_OPTPAR_PKEY_INDEX | CXIB_QP_OPTPAR_Q_KEY |
			    CXIB_QP_OPTPAR_PRI_PORT :
			    rw | CXIB_QP_OPTPAR_PKEY_INDEX | CXIB_QP_OPTPAR_PRI_PORT;
	case CXIB_CMD_OP_INIT2RTR_QP:
		return ud ? CXIB_QP_OPTPAR_PKEY_INDEX | CXIB_QP_OPTPAR_Q_KEY :
			    rw | CXIB_QP_OPTPAR_PKEY_INDEX;
	case CXIB_CMD_OP_RTR2RTS_QP:
		return ud ? CXIB_QP_OPTPAR_Q_KEY :
			    rw | CXIB_QP_OPTPAR_PM_STATE |
			    (rc ? CXIB_QP_OPTPAR_RNR_TIMEOUT : 0);
	case CXIB_CMD_OP_RTS2RTS_QP:
	case CXIB_CMD_OP_SQD_RTS_QP:
		return ud ? CXIB_QP_OPTPAR_Q_KEY :
			    rw | CXIB_QP_OPTPAR_PM_STATE |
			    (rc ? CXIB_QP_OPTPAR_RNR_TIMEOUT | CXIB_QP_OPTPAR_ACK_TIMEOUT : 0);
	case CXIB_CMD_OP_SQERR2RTS_QP:
		return ud ? CXIB_QP_OPTPAR_Q_KEY : rc ? CXIB_QP_OPTPAR_RNR_TIMEOUT : 0;
	default:
		return 0;
	}
}

static u8 cxib_log_rd_atomic(u8 n)
{
	return n ? order_base_2(n) : 0;
}

static u8 cxib_ib_mtu_to_hw(enum ib_mtu mtu)
{
	/* The qpc's encoding is the IB one (CXIB_QPC_MTU_256 = IB_MTU_256 ...). */
	return mtu;
}

static int cxib_modify_check(struct cxib_dev *dev, struct cxib_qp *qp,
			     const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && (attr->port_num < 1 || attr->port_num > dev->caps.num_ports))
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= cxib_caps_pkey_table_len(&dev->caps))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > BIT(dev->caps.log_max_ra_req_qp))
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > BIT(dev->caps.log_max_ra_res_qp))
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_AV) && attr->ah_attr.type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	if (mask & (IB_QP_ALT_PATH | IB_QP_EN_SQD_ASYNC_NOTIFY))
		return -EOPNOTSUPP;
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_SQD)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Whether the RDMA core's state machine allows a transition with these attributes; the
 * UMR QP, which has no transport, is not in its tables: it moves with the port at most.
 */
static bool cxib_modify_is_ok(enum ib_qp_type type, enum ib_qp_state cur,
			      enum ib_qp_state new, int mask)
{
	if (type == CXIB_QPT_REG_UMR)
		return !(mask & ~(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_PORT | IB_QP_PKEY_INDEX));
	return ib_modify_qp_is_ok(cur, new, type, mask);
}

/* The context of a transition, and the optional parameters it names. */
static u32 cxib_modify_fill_qpc(struct cxib_dev *dev, struct cxib_qp *qp,
				const struct ib_qp_attr *attr, int mask, struct cxib_qpc *qpc)
{
	struct cxib_ads *path = (void *)qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET;
	u8 port = mask & IB_QP_PORT ? attr->port_num : qp->port;
	u16 pkey_index = mask & IB_QP_PKEY_INDEX ? attr->pkey_index : qp->pkey_index;
	enum ib_qp_type type = qp->ibqp.qp_type;
	u32 opt = 0;

	CXIB_SET(qpc, CXIB_QPC_ST, qp->st);
	CXIB_SET(qpc, CXIB_QPC_PD, to_cxib_pd(qp->ibqp.pd)->pdn);
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	/* The path always carries the port and P_Key index: a new path replaces the old. */
	if (mask & IB_QP_AV) {
		cxib_set_path(dev, &attr->ah_attr, path);
		opt |= CXIB_QP_OPTPAR_PRIMARY_ADDR_PATH;
	}
	CXIB_SET(path, CXIB_ADS_VHCA_PORT_NUM, port);
	CXIB_SET(path, CXIB_ADS_PKEY_INDEX, pkey_index);
	if (mask & IB_QP_PORT)
		opt |= CXIB_QP_OPTPAR_PRI_PORT;
	if (mask & IB_QP_PKEY_INDEX)
		opt |= CXIB_QP_OPTPAR_PKEY_INDEX;
	if (mask & IB_QP_TIMEOUT) {
		CXIB_SET(path, CXIB_ADS_ACK_TIMEOUT, attr->timeout);
		opt |= CXIB_QP_OPTPAR_ACK_TIMEOUT;
	}

	if (type == IB_QPT_GSI || type == IB_QPT_SMI) {
		CXIB_SET(qpc, CXIB_QPC_MTU, IB_MTU_256);
		CXIB_SET(qpc, CXIB_QPC_LOG_MSG_MAX, ilog2(CXIB_SQP_MSG_MAX));
	} else if (type == IB_QPT_UD || type == CXIB_QPT_REG_UMR) {
		/* the UMR QP too: a zero mtu is reserved, whatever the service */
		CXIB_SET(qpc, CXIB_QPC_MTU, IB_MTU_4096);
		CXIB_SET(qpc, CXIB_QPC_LOG_MSG_MAX, ilog2(CXIB_UD_MSG_MAX));
	} else if (mask & IB_QP_PATH_MTU) {
		CXIB_SET(qpc, CXIB_QPC_MTU, cxib_ib_mtu_to_hw(attr->path_mtu));
		CXIB_SET(qpc, CXIB_QPC_LOG_MSG_MAX, dev->caps.log_max_msg);
	}
	if (mask & IB_QP_QKEY) {
		CXIB_SET(qpc, CXIB_QPC_Q_KEY, attr->qkey);
		opt |= CXIB_QP_OPTPAR_Q_KEY;
	}
	if (mask & IB_QP_ACCESS_FLAGS) {
		CXIB_SET(qpc, CXIB_QPC_RRE, !!(attr->qp_access_flags & IB_ACCESS_REMOTE_READ));
		CXIB_SET(qpc, CXIB_QPC_RWE, !!(attr->qp_access_flags & IB_ACCESS_REMOTE_WRITE));
		if ((attr->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC) && dev->caps.atomic) {
			CXIB_SET(qpc, CXIB_QPC_RAE, 1);
			CXIB_SET(qpc, CXIB_QPC_ATOMIC_MODE, CXIB_QPC_ATOMIC_MODE_IB_SPEC);
		}
		opt |= CXIB_QP_OPTPAR_RRE | CXIB_QP_OPTPAR_RWE | CXIB_QP_OPTPAR_RAE;
	}
	if (mask & IB_QP_DEST_QPN)
		CXIB_SET(qpc, CXIB_QPC_REMOTE_QPN, attr->dest_qp_num);
	if (mask & IB_QP_RQ_PSN)
		CXIB_SET(qpc, CXIB_QPC_NEXT_RCV_PSN, attr->rq_psn);
	if (mask & IB_QP_SQ_PSN)
		CXIB_SET(qpc, CXIB_QPC_NEXT_SEND_PSN, attr->sq_psn);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		CXIB_SET(qpc, CXIB_QPC_LOG_RRA_MAX, cxib_log_rd_atomic(attr->max_dest_rd_atomic));
		opt |= CXIB_QP_OPTPAR_RRA_MAX;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		CXIB_SET(qpc, CXIB_QPC_LOG_SRA_MAX, cxib_log_rd_atomic(attr->max_rd_atomic));
		opt |= CXIB_QP_OPTPAR_SRA_MAX;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		CXIB_SET(qpc, CXIB_QPC_MIN_RNR_NAK, attr->min_rnr_timer);
		opt |= CXIB_QP_OPTPAR_RNR_TIMEOUT;
	}
	if (mask & IB_QP_RETRY_CNT) {
		CXIB_SET(qpc, CXIB_QPC_RETRY_COUNT, attr->retry_cnt);
		opt |= CXIB_QP_OPTPAR_RETRY_COUNT;
	}
	if (mask & IB_QP_RNR_RETRY) {
		CXIB_SET(qpc, CXIB_QPC_RNR_RETRY, attr->rnr_retry);
		opt |= CXIB_QP_OPTPAR_RNR_RETRY;
	}
	if (mask & IB_QP_PATH_MIG_STATE) {
		CXIB_SET(qpc, CXIB_QPC_PM_STATE, attr->path_mig_state == IB_MIG_MIGRATED ?
			 CXIB_QPC_PM_STATE_MIGRATED : attr->path_mig_state == IB_MIG_REARM ?
			 CXIB_QPC_PM_STATE_REARM : CXIB_QPC_PM_STATE_ARMED);
		opt |= CXIB_QP_OPTPAR_PM_STATE;
	}
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, qp->send_cq->cqn);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, qp->recv_cq->cqn);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, qp->dbr.dma);
	return opt;
}

/**
 * cxib_modify_qp() - ib_device_ops.modify_qp
 * @ibqp: the QP
 * @attr: the new attributes
 * @mask: which of @attr apply (IB_QP_*)
 * @udata: NULL for kernel QPs
 *
 * Checks the transition (cxib_modify_is_ok()), then issues the PRM command of the
 * transition with the context built from @attr and the optional-parameter mask the
 * transition allows.  Moving to RESET also forgets the work queues' contents (and their
 * CQEs).  Once the device is dead, moves to ERR and RESET succeed without the device.
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	struct cxib_qp *qp = to_cxib_qp(ibqp);
	enum ib_qp_state cur, new;
	struct cxib_qpc *qpc;
	u32 opt = 0;
	u16 opcode;
	int err;

	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	err = -EINVAL;
	if (!cxib_modify_is_ok(ibqp->qp_type, cur, new, mask))
		goto out;
	err = cxib_modify_check(dev, qp, attr, mask);
	if (err)
		goto out;
	if (cur == IB_QPS_RESET && new == IB_QPS_RESET) {
		err = 0;
		goto out;
	}
	opcode = cxib_modify_opcode(cur, new);
	err = -EOPNOTSUPP;
	if (!opcode)
		goto out;

	qpc = kzalloc(sizeof(*qpc), GFP_KERNEL);
	err = -ENOMEM;
	if (!qpc)
		goto out;
	if (opcode != CXIB_CMD_OP_2ERR_QP && opcode != CXIB_CMD_OP_2RST_QP)
		opt = cxib_modify_fill_qpc(dev, qp, attr, mask, qpc);
	/*
	 * RST2INIT binds the QP to the port's Q counter set: a set counts only the QPs bound
	 * to it, so the port statistics (counters.c) would read zero otherwise.
	 */
	if (opcode == CXIB_CMD_OP_RST2INIT_QP && dev->q_counter_valid)
		CXIB_SET(qpc, CXIB_QPC_COUNTER_SET_ID, dev->q_counter);
	opt &= cxib_modify_opt_allowed(opcode, qp->st);
	err = cxib_cmd_modify_qp(dev, opcode, qp->qpn, opt, qpc);
	kfree(qpc);
	if (err && cxib_dev_dead(dev) &&
	    (opcode == CXIB_CMD_OP_2ERR_QP || opcode == CXIB_CMD_OP_2RST_QP))
		err = 0;	/* the device is gone: its QPs are as good as in ERR */
	if (err) {
		ibdev_dbg(&dev->ibdev, "QP %u: modify %d -> %d (cmd 0x%x) failed: %d\n",
			  qp->qpn, cur, new, opcode, err);
		goto out;
	}

	if (mask & IB_QP_PORT)
		qp->port = attr->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	WRITE_ONCE(qp->state, new);
	/* libmlx5 resets a user QP's counters and cleans its (user) CQs itself. */
	if (new == IB_QPS_RESET && !qp->uq)
		cxib_qp_reset_wqs(qp);
out:
	mutex_unlock(&qp->mutex);
	return err;
}

/* ---- query_qp ------------------------------------------------------------------------------ */

static enum ib_qp_state cxib_hw_state_to_ib(u8 state)
{
	switch (state) {
	case CXIB_QPC_STATE_RST:
		return IB_QPS_RESET;
	case CXIB_QPC_STATE_INIT:
		return IB_QPS_INIT;
	case CXIB_QPC_STATE_RTR:
		return IB_QPS_RTR;
	case CXIB_QPC_STATE_RTS:
		return IB_QPS_RTS;
	case CXIB_QPC_STATE_SQER:
		return IB_QPS_SQE;
	case CXIB_QPC_STATE_SQD:
	case CXIB_QPC_STATE_SQ_DRAINING:
		return IB_QPS_SQD;
	default:
		return IB_QPS_ERR;
	}
}

static void cxib_qpc_to_attr(const struct cxib_qp *qp, const struct cxib_qpc *qpc,
			     struct ib_qp_attr *attr)
{
	const struct cxib_ads *path = (const void *)qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET;
	u8 pm = CXIB_GET(qpc, CXIB_QPC_PM_STATE);

	attr->qp_state = cxib_hw_state_to_ib(CXIB_GET(qpc, CXIB_QPC_STATE));
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = CXIB_GET(qpc, CXIB_QPC_MTU);
	attr->path_mig_state = pm == CXIB_QPC_PM_STATE_MIGRATED ? IB_MIG_MIGRATED :
			       pm == CXIB_QPC_PM_STATE_REARM ? IB_MIG_REARM : IB_MIG_ARMED;
	attr->qkey = CXIB_GET(qpc, CXIB_QPC_Q_KEY);
	attr->rq_psn = CXIB_GET(qpc, CXIB_QPC_NEXT_RCV_PSN);
	attr->sq_psn = CXIB_GET(qpc, CXIB_QPC_NEXT_SEND_PSN);
	attr->dest_qp_num = CXIB_GET(qpc, CXIB_QPC_REMOTE_QPN);
	attr->qp_access_flags =
		(CXIB_GET(qpc, CXIB_QPC_RRE) ? IB_ACCESS_REMOTE_READ : 0) |
		(CXIB_GET(qpc, CXIB_QPC_RWE) ? IB_ACCESS_REMOTE_WRITE : 0) |
		(CXIB_GET(qpc, CXIB_QPC_RAE) ? IB_ACCESS_REMOTE_ATOMIC : 0);
	attr->pkey_index = CXIB_GET(path, CXIB_ADS_PKEY_INDEX);
	attr->port_num = CXIB_GET(path, CXIB_ADS_VHCA_PORT_NUM);
	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		cxib_get_path(path, attr->port_num, &attr->ah_attr);
	attr->timeout = CXIB_GET(path, CXIB_ADS_ACK_TIMEOUT);
	attr->retry_cnt = CXIB_GET(qpc, CXIB_QPC_RETRY_COUNT);
	attr->rnr_retry = CXIB_GET(qpc, CXIB_QPC_RNR_RETRY);
	attr->min_rnr_timer = CXIB_GET(qpc, CXIB_QPC_MIN_RNR_NAK);
	attr->max_rd_atomic = BIT(CXIB_GET(qpc, CXIB_QPC_LOG_SRA_MAX));
	attr->max_dest_rd_atomic = BIT(CXIB_GET(qpc, CXIB_QPC_LOG_RRA_MAX));
	attr->sq_draining = CXIB_GET(qpc, CXIB_QPC_STATE) == CXIB_QPC_STATE_SQ_DRAINING;
}

/**
 * cxib_query_qp() - ib_device_ops.query_qp
 * @ibqp: the QP
 * @attr: filled from the QP's context (QUERY_QP)
 * @mask: what the caller wants (all is filled)
 * @init_attr: the QP's creation attributes as granted
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	struct cxib_qp *qp = to_cxib_qp(ibqp);
	struct cxib_qpc *qpc;
	int err = 0;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	qpc = kzalloc(sizeof(*qpc), GFP_KERNEL);
	if (!qpc)
		return -ENOMEM;
	mutex_lock(&qp->mutex);
	if (qp->state == IB_QPS_RESET || cxib_dev_dead(dev)) {
		/* Nothing in the device worth asking for (or no device to ask). */
		attr->qp_state = qp->state;
		attr->cur_qp_state = qp->state;
		attr->port_num = qp->port;
		attr->pkey_index = qp->pkey_index;
	} else {
		err = cxib_cmd_query_qp(dev, qp->qpn, qpc);
		if (!err) {
			cxib_qpc_to_attr(qp, qpc, attr);
			/*
			 * The device moves a QP to SQE or ERR on its own (an error completion);
			 * learn that here as mlx5_ib does, so a following modify_qp without
			 * IB_QP_CUR_STATE starts from the real state (ib_ipoib's SQE -> RTS
			 * recovery, ipoib_qp_state_validate_work(), relies on it).
			 */
			WRITE_ONCE(qp->state, attr->qp_state);
		}
	}
	mutex_unlock(&qp->mutex);
	kfree(qpc);
	if (err)
		return err;

	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_gs;
	attr->cap.max_inline_data = qp->sq.max_inline;
	attr->cap.max_recv_wr = qp->rq.max_wr;
	attr->cap.max_recv_sge = qp->rq.max_gs;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init_attr->create_flags = qp->ipoib ? IB_QP_CREATE_IPOIB_UD_LSO : 0;
	init_attr->port_num = qp->port;
	init_attr->qp_context = ibqp->qp_context;
	init_attr->event_handler = ibqp->event_handler;
	return 0;
}

/* ---- destroy_qp ---------------------------------------------------------------------------- */

/*
 * The QP in RESET as far as posting goes: set under the RQ lock, then the SQ lock taken and
 * released, so a post holding either lock has finished and every later one (both check
 * the state under their lock) is refused.  qp->mutex held.
 */
static void cxib_qp_stop_posting(struct cxib_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->rq.lock, flags);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	spin_lock_irqsave(&qp->sq.lock, flags);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/**
 * cxib_destroy_qp() - ib_device_ops.destroy_qp
 * @ibqp: the QP
 * @udata: NULL for kernel QPs
 *
 * Refuses further posts (a post racing the destroy either ends before the buffers go or
 * fails with -EINVAL), moves the QP to RESET (the device stops using its buffers), takes
 * it out of the QP table, destroys it, takes it off its CQs (dropping its CQEs still
 * there), waits for event handlers still running for it, and frees it.  If the living
 * device refuses, the QP stays as it was and the error is returned.  Sleeps.
 *
 * The MAD layer is such a racer: ib_mad_port_close() destroys QP0 and QP1 while a receive
 * completion of theirs may still be in ib_mad_recv_done(), which reposts when its
 * process_mad (a MAD_IFC command) returns.
 *
 * Return: 0 or a negative errno.
 */
int cxib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	struct cxib_qp *qp = to_cxib_qp(ibqp);
	enum ib_qp_state was;
	int err, reset_err = 0;

	mutex_lock(&qp->mutex);
	was = qp->state;
	cxib_qp_stop_posting(qp);
	if (was != IB_QPS_RESET) {
		reset_err = cxib_cmd_modify_qp(dev, CXIB_CMD_OP_2RST_QP, qp->qpn, 0, NULL);
		if (reset_err && !cxib_dev_dead(dev))
			ibdev_dbg(&dev->ibdev, "QP %u: 2RST before destroy failed: %d\n",
				  qp->qpn, reset_err);
	}
	xa_erase_irq(&dev->qps, qp->qpn);
	err = cxib_cmd_destroy_qp(dev, qp->qpn);
	if (err && !cxib_dev_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "DESTROY_QP %u failed: %d\n", qp->qpn, err);
		if (!xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL)) {
			if (reset_err)
				WRITE_ONCE(qp->state, was);	/* still where it was */
			mutex_unlock(&qp->mutex);
			return err;
		}
		/* Cannot happen: the number is still the device's. Free it anyway. */
	}
	mutex_unlock(&qp->mutex);

	cxib_qp_unlink_cqs(qp);
	cxib_obj_put_wait(&qp->ref);
	cxib_qp_free_bufs(dev, qp);
	return 0;
}

/**
 * cxib_qp_caps() - the QP limits of query_device
 * @dev: the device
 * @props: max_qp_wr, max_send_sge, max_recv_sge, max_sge_rd, atomic_cap and the QP
 *	related device_cap_flags are set
 *
 * The gather limit is what the largest WQE holds for the QP type with the most fixed
 * segments, so any QP type can be created with it.
 */
void cxib_qp_caps(const struct cxib_dev *dev, struct ib_device_attr *props)
{
	u32 max_wqe = min_t(u32, dev->caps.max_wqe_sz_sq, CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB);
	u32 ovh = max3(cxib_sq_overhead(IB_QPT_RC, false), cxib_sq_overhead(IB_QPT_UC, false),
		       cxib_sq_overhead(IB_QPT_UD, dev->caps.ipoib_offloads));
	u32 max_rq = min_t(u32, dev->caps.max_wqe_sz_rq,
			   CXIB_WQE_DS_SIZE << CXIB_FIELD_GET(CXIB_QPC_LOG_RQ_STRIDE, U32_MAX));

	props->max_qp_wr = min_t(u32, BIT(dev->caps.log_max_qp_sz), INT_MAX);
	props->max_send_sge = max_wqe > ovh ? (max_wqe - ovh) / sizeof(struct cxib_wqe_data_seg) :
					      0;
	props->max_recv_sge = max_rq / sizeof(struct cxib_wqe_data_seg);
	props->max_sge_rd = props->max_send_sge;
	props->device_cap_flags |= IB_DEVICE_RC_RNR_NAK_GEN;
	props->atomic_cap = dev->caps.atomic ? IB_ATOMIC_HCA : IB_ATOMIC_NONE;
}
