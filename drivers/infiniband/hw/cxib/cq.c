// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: completion queues (PRM §5.3, §6.3, §6.4).
 *
 * Locking (Documentation/infiniband/core_locking.rst): poll_cq and req_notify_cq may be
 * called from any context, also concurrently with each other, and must not sleep; both
 * take the CQ's spinlock with interrupts off.  Completion events arrive on the CQ's
 * completion EQ, whose handler runs under that EQ's lock, so one CQ's completion handler
 * never runs twice at once.  CQ error events arrive on the async EQ.  Both handlers find
 * the CQ in the device's CQ table under the table's (interrupt-safe) lock and hold a
 * reference while they call the consumer; destroy takes the CQ out of the table, and waits
 * for those references, so no handler runs for a CQ once destroy_cq returns.
 */

#include <kunit/visibility.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <rdma/ib_cache.h>

#include "cxib.h"

/* ---- CQE parsing: pure functions of the CQE's bytes ---------------------------------------- */

/**
 * cxib_cqe_sw_owned() - whether the CQE at a consumer counter holds a new completion
 * @cqe: the CQE at @ci
 * @ci: the consumer counter (free-running, not masked)
 * @log_size: log2 of the number of CQEs in the CQ
 *
 * Every entry starts as opcode INVALID with owner 0; the device writes owner 0 on the
 * first lap through the ring, 1 on the second, and so on.
 *
 * Return: true if the device has written the entry for this lap.
 */
VISIBLE_IF_KUNIT bool cxib_cqe_sw_owned(const void *cqe, u32 ci, u8 log_size)
{
	return CXIB_GET(cqe, CXIB_CQE_OPCODE) != CXIB_CQE_OPCODE_INVALID &&
	       CXIB_GET(cqe, CXIB_CQE_OWNER) == ((ci >> log_size) & 1);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cqe_sw_owned);

/**
 * cxib_cqe_syndrome_to_status() - the work completion status of an error CQE's syndrome
 * @syndrome: CXIB_CQE_SYND_*
 *
 * Return: the matching IB_WC_* status; IB_WC_GENERAL_ERR for a syndrome not known.
 */
VISIBLE_IF_KUNIT enum ib_wc_status cxib_cqe_syndrome_to_status(u8 syndrome)
{
	switch (syndrome) {
	case CXIB_CQE_SYND_LOCAL_LENGTH_ERR:
		return IB_WC_LOC_LEN_ERR;
	case CXIB_CQE_SYND_LOCAL_QP_OP_ERR:
		return IB_WC_LOC_QP_OP_ERR;
	case CXIB_CQE_SYND_LOCAL_PROT_ERR:
		return IB_WC_LOC_PROT_ERR;
	case CXIB_CQE_SYND_WR_FLUSH_ERR:
		return IB_WC_WR_FLUSH_ERR;
	case CXIB_CQE_SYND_MW_BIND_ERR:
		return IB_WC_MW_BIND_ERR;
	case CXIB_CQE_SYND_BAD_RESP_ERR:
		return IB_WC_BAD_RESP_ERR;
	case CXIB_CQE_SYND_LOCAL_ACCESS_ERR:
		return IB_WC_LOC_ACCESS_ERR;
	case CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR:
		return IB_WC_REM_INV_REQ_ERR;
	case CXIB_CQE_SYND_REMOTE_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case CXIB_CQE_SYND_REMOTE_OP_ERR:
		return IB_WC_REM_OP_ERR;
	case CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR:
		return IB_WC_RETRY_EXC_ERR;
	case CXIB_CQE_SYND_RNR_RETRY_EXC_ERR:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case CXIB_CQE_SYND_REMOTE_ABORTED_ERR:
		return IB_WC_REM_ABORT_ERR;
	default:
		return IB_WC_GENERAL_ERR;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cqe_syndrome_to_status);

/**
 * cxib_cqe_is_send() - whether a CQE completes a send-queue WQE (requester side)
 * @cqe: a CQE owned by software
 *
 * Return: true for requester CQEs (good or error), false for receive completions.
 */
VISIBLE_IF_KUNIT bool cxib_cqe_is_send(const void *cqe)
{
	u8 op = CXIB_GET(cqe, CXIB_CQE_OPCODE);

	return op == CXIB_CQE_OPCODE_REQ || op == CXIB_CQE_OPCODE_REQ_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cqe_is_send);

/* Requester: the completed WQE's opcode (sop) to the work completion's. */
static void cxib_cqe_req_to_wc(const void *cqe, struct ib_wc *wc)
{
	switch (CXIB_GET(cqe, CXIB_CQE_SOP)) {
	case CXIB_WQE_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags |= IB_WC_WITH_IMM;
		fallthrough;
	case CXIB_WQE_OPCODE_RDMA_WRITE:
		wc->opcode = IB_WC_RDMA_WRITE;
		break;
	case CXIB_WQE_OPCODE_SEND_IMM:
		wc->wc_flags |= IB_WC_WITH_IMM;
		fallthrough;
	case CXIB_WQE_OPCODE_SEND:
	case CXIB_WQE_OPCODE_SEND_INVAL:
		wc->opcode = IB_WC_SEND;
		break;
	case CXIB_WQE_OPCODE_LSO:
		wc->opcode = IB_WC_LSO;
		break;
	case CXIB_WQE_OPCODE_RDMA_READ:
		wc->opcode = IB_WC_RDMA_READ;
		wc->byte_len = CXIB_GET(cqe, CXIB_CQE_BYTE_CNT);
		break;
	case CXIB_WQE_OPCODE_ATOMIC_CS:
		wc->opcode = IB_WC_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case CXIB_WQE_OPCODE_ATOMIC_FA:
		wc->opcode = IB_WC_FETCH_ADD;
		wc->byte_len = 8;
		break;
	case CXIB_WQE_OPCODE_ATOMIC_MASKED_CS:
		wc->opcode = IB_WC_MASKED_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case CXIB_WQE_OPCODE_ATOMIC_MASKED_FA:
		wc->opcode = IB_WC_MASKED_FETCH_ADD;
		wc->byte_len = 8;
		break;
	case CXIB_WQE_OPCODE_BIND_MW:
		wc->opcode = IB_WC_BIND_MW;
		break;
	case CXIB_WQE_OPCODE_UMR:
		/* Registration or local invalidation: the QP's ring knows which. */
		wc->opcode = IB_WC_REG_MR;
		break;
	default:
		wc->opcode = IB_WC_SEND;
		break;
	}
}

/* Responder: a receive WQE consumed by a SEND or an RDMA WRITE with immediate. */
static void cxib_cqe_resp_to_wc(const void *cqe, struct ib_wc *wc)
{
	u32 imm = CXIB_GET(cqe, CXIB_CQE_IMM_INVAL_PKEY);

	wc->byte_len = CXIB_GET(cqe, CXIB_CQE_BYTE_CNT);
	switch (CXIB_GET(cqe, CXIB_CQE_OPCODE)) {
	case CXIB_CQE_OPCODE_RESP_WR_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cpu_to_be32(imm);
		break;
	case CXIB_CQE_OPCODE_RESP_SEND_IMM:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cpu_to_be32(imm);
		break;
	case CXIB_CQE_OPCODE_RESP_SEND_INV:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = imm;
		break;
	default:
		wc->opcode = IB_WC_RECV;
		/* IPoIB UD QPs: the device checked both the IP and the TCP/UDP checksum */
		if ((CXIB_GET(cqe, CXIB_CQE_HDS_IP_EXT) & CXIB_CQE_L3_L4_OK) == CXIB_CQE_L3_L4_OK)
			wc->wc_flags |= IB_WC_IP_CSUM_OK;
		break;
	}
	wc->src_qp = CXIB_GET(cqe, CXIB_CQE_RQPN);
	wc->slid = CXIB_GET(cqe, CXIB_CQE_SLID);
	wc->sl = CXIB_GET(cqe, CXIB_CQE_SL);
	wc->dlid_path_bits = CXIB_GET(cqe, CXIB_CQE_ML_PATH);
	if (CXIB_GET(cqe, CXIB_CQE_G) != CXIB_CQE_G_NONE)
		wc->wc_flags |= IB_WC_GRH;
}

/**
 * cxib_cqe_to_wc() - fill a work completion from a CQE
 * @cqe: a CQE owned by software
 * @wc: the work completion; every field is written
 *
 * Everything the CQE itself says: status (error CQEs' syndromes mapped, the vendor
 * syndrome in vendor_err), opcode, byte count, immediate data or invalidated rkey, and for
 * receives the sender (QPN, LID, SL, path bits, GRH).  What only the QP knows (wr_id,
 * ib_qp, the P_Key index of a GSI receive) is left 0 for the QP's completion hook.
 */
VISIBLE_IF_KUNIT void cxib_cqe_to_wc(const void *cqe, struct ib_wc *wc)
{
	u8 op = CXIB_GET(cqe, CXIB_CQE_OPCODE);

	memset(wc, 0, sizeof(*wc));
	if (op == CXIB_CQE_OPCODE_REQ_ERR || op == CXIB_CQE_OPCODE_RESP_ERR) {
		wc->status = cxib_cqe_syndrome_to_status(CXIB_GET(cqe, CXIB_CQE_ERR_SYNDROME));
		wc->vendor_err = CXIB_GET(cqe, CXIB_CQE_ERR_VENDOR_ERR_SYND);
		/* The opcode of an error completion is undefined; say what is known. */
		wc->opcode = op == CXIB_CQE_OPCODE_REQ_ERR ? IB_WC_SEND : IB_WC_RECV;
		return;
	}
	wc->status = IB_WC_SUCCESS;
	if (op == CXIB_CQE_OPCODE_REQ)
		cxib_cqe_req_to_wc(cqe, wc);
	else
		cxib_cqe_resp_to_wc(cqe, wc);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cqe_to_wc);

/**
 * cxib_cq_comp_event() - a completion event named a CQ
 * @dev: the device
 * @cqn: the CQ number from the EQE
 *
 * Called from a completion EQ's interrupt handler.  The device disarmed the CQ when it
 * raised the event; advancing the arm sequence number tells it that the next arm comes
 * after this event.  Then the consumer's completion handler runs.
 */
void cxib_cq_comp_event(struct cxib_dev *dev, u32 cqn)
{
	struct cxib_cq *cq = cxib_obj_get(&dev->cqs, cqn, struct cxib_cq);

	if (!cq) {
		dev_dbg_ratelimited(&dev->pdev->dev, "completion event for unknown CQ %u\n",
				    cqn);
		return;
	}
	/* Read by req_notify_cq under the CQ's lock; a torn read is impossible for a u8. */
	WRITE_ONCE(cq->arm_sn, cq->arm_sn + 1);
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	cxib_obj_put(&cq->ref);
}

VISIBLE_IF_KUNIT void cxib_cq_kick_work(struct work_struct *work)
{
	struct cxib_cq *cq = container_of(work, struct cxib_cq, kick_work);

	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cq_kick_work);

/**
 * cxib_cq_kick() - have the CQ's consumer poll it, from a work item
 * @cq: the CQ
 *
 * A dead device raises no completion events: the consumer's completion handler is run by
 * a work item instead, so that it polls the software flush (mlx5_ib calls each CQ's
 * handler once on a fatal error for the same reason).  Never called synchronously: a post
 * that finds the device dead may hold its caller's locks, which the handler may take
 * again.  A CQ polled directly (IB_POLL_DIRECT) has no handler to run: its owner polls.
 * Any context.
 */
void cxib_cq_kick(struct cxib_cq *cq)
{
	if (cq->ibcq.poll_ctx != IB_POLL_DIRECT)
		queue_work(system_wq, &cq->kick_work);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cq_kick);

/**
 * cxib_cq_kick_all() - cxib_cq_kick() every kernel CQ of a device that just died
 * @dev: the device, marked dead
 *
 * Any context.
 */
void cxib_cq_kick_all(struct cxib_dev *dev)
{
	struct cxib_cq *cq;
	unsigned long cqn;

	xa_for_each(&dev->cqs, cqn, cq) {
		cq = cxib_obj_get(&dev->cqs, cqn, struct cxib_cq);
		if (!cq)
			continue;	/* destroyed meanwhile */
		if (!cq->uq)	/* a process learns of it from IBV_EVENT_DEVICE_FATAL */
			cxib_cq_kick(cq);
		cxib_obj_put(&cq->ref);
	}
}

/**
 * cxib_cq_error_event() - the device reports a CQ in error (overrun, bad access)
 * @dev: the device
 * @cqn: the CQ number from the EQE
 * @syndrome: the EQE's syndrome (1 overrun, 2 access violation)
 *
 * Called from the async EQ's interrupt handler; becomes IB_EVENT_CQ_ERR for the consumer.
 * Logged as an error for a kernel CQ; a user CQ's, which its process can cause, at debug
 * level (the process hears of it as an async event).
 */
void cxib_cq_error_event(struct cxib_dev *dev, u32 cqn, u8 syndrome)
{
	struct cxib_cq *cq = cxib_obj_get(&dev->cqs, cqn, struct cxib_cq);
	struct ib_event ev = {};

	if (!cq) {
		dev_dbg_ratelimited(&dev->pdev->dev, "error 0x%02x of unknown CQ %u\n", syndrome,
				    cqn);
		return;
	}
	if (cq->uq)
		dev_dbg_ratelimited(&dev->pdev->dev, "user CQ %u error, syndrome 0x%02x\n", cqn,
				    syndrome);
	else
		dev_err_ratelimited(&dev->pdev->dev, "CQ %u error, syndrome 0x%02x\n", cqn,
				    syndrome);
	if (cq->ibcq.event_handler) {
		ev.device = cq->ibcq.device;
		ev.event = IB_EVENT_CQ_ERR;
		ev.element.cq = &cq->ibcq;
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	cxib_obj_put(&cq->ref);
}

/* ---- Kernel CQs ---------------------------------------------------------------------------- */

static void *cxib_cq_entry(struct cxib_cq *cq, u32 ci)
{
	return cxib_frag_buf_entry(&cq->buf, ci & ((1u << cq->log_size) - 1), CXIB_LOG_CQE_SIZE);
}

/* The CQE at the consumer counter if it holds a new completion, else NULL; under cq->lock. */
static void *cxib_cq_peek(struct cxib_cq *cq)
{
	void *cqe = cxib_cq_entry(cq, cq->cons_index);

	if (!cxib_cqe_sw_owned(cqe, cq->cons_index, cq->log_size))
		return NULL;
	/* Read the rest of the CQE only after seeing op_own, which the device writes last. */
	dma_rmb();
	return cqe;
}

/**
 * cxib_sq_complete() - a requester CQE: retire the send WQEs up to the one it names
 * @sq: the QP's send queue; the send CQ's lock held
 * @counter: the CQE's wqe_counter: the index of the completed WQE's first WQEBB
 * @err: the CQE is an error CQE
 * @wc: its wr_id is set, and for UMRs and errors its opcode (from what posting recorded)
 *
 * Unsignaled WQEs posted before the completed one are done too and retire silently.
 *
 * Return: 0, or -EINVAL if @counter names no outstanding WQE (nothing is retired).
 */
VISIBLE_IF_KUNIT int cxib_sq_complete(struct cxib_sq *sq, u16 counter, bool err,
				      struct ib_wc *wc)
{
	u32 mask = BIT(sq->log_wqe_cnt) - 1, head = READ_ONCE(sq->head), t = sq->tail, n = 0;
	const struct cxib_sq_ent *ent;

	/* Walk the WQEs from the oldest; only one the driver posted and has not completed. */
	for (;;) {
		if ((u16)(counter - t) >= (u16)(head - t))
			return -EINVAL;
		ent = &sq->ents[t & mask];
		n++;
		if ((u16)t == counter)
			break;
		t += ent->nbb;
	}
	WRITE_ONCE(sq->wr_tail, sq->wr_tail + n);
	WRITE_ONCE(sq->tail, t + ent->nbb);
	wc->wr_id = ent->wr_id;
	/* A UMR is a REG_MR or a LOCAL_INV; an error CQE's opcode is the WQE's. */
	if (err || wc->opcode == IB_WC_REG_MR)
		wc->opcode = ent->wc_opcode;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_sq_complete);

/*
 * The QP's side of a completion: the ib_qp, the wr_id from the QP's ring (retiring the WQEs
 * up to wqe_counter on the send side), the SRQ's WQE back to its free list, the P_Key index
 * of a GSI receive.  Under the CQ's lock: destroy takes the QP off this CQ under the same
 * lock, after taking it out of the table, so a QP found here stays until the lock is let go.
 *
 * Return: 0 when @wc is complete, -ENOENT when the CQE names no QP of this device, -EINVAL
 * when it names no WQE of the QP.
 */
static int cxib_cq_qp_complete(struct cxib_cq *cq, const void *cqe, struct ib_wc *wc)
{
	struct cxib_dev *dev = to_cxib_dev(cq->ibcq.device);
	u8 op = CXIB_GET(cqe, CXIB_CQE_OPCODE);
	bool err = op == CXIB_CQE_OPCODE_REQ_ERR || op == CXIB_CQE_OPCODE_RESP_ERR;
	u16 counter = CXIB_GET(cqe, CXIB_CQE_WQE_COUNTER);
	struct cxib_qp *qp;
	struct cxib_rq *rq;
	u16 pkey_index;

	qp = xa_load(&dev->qps, CXIB_GET(cqe, CXIB_CQE_QPN));
	if (!qp)
		return -ENOENT;
	wc->qp = &qp->ibqp;
	if (cxib_cqe_is_send(cqe))
		return cxib_sq_complete(&qp->sq, counter, err, wc);

	if (qp->srq) {
		wc->wr_id = cxib_srq_free_wqe(qp->srq, counter);
	} else {
		rq = &qp->rq;
		if (rq->tail == READ_ONCE(rq->head))
			return -EINVAL;
		/* Receive WQEs complete in order. */
		wc->wr_id = rq->wrid[rq->tail & (BIT(rq->log_wqe_cnt) - 1)];
		WRITE_ONCE(rq->tail, rq->tail + 1);
	}
	if (!err && (qp->ibqp.qp_type == IB_QPT_GSI || qp->ibqp.qp_type == IB_QPT_SMI)) {
		wc->port_num = qp->port;
		if (qp->ibqp.qp_type == IB_QPT_GSI &&
		    !ib_find_cached_pkey(&dev->ibdev, qp->port, CXIB_GET(cqe, CXIB_CQE_PKEY),
					 &pkey_index))
			wc->pkey_index = pkey_index;
	}
	return 0;
}

/*
 * The device is dead: it writes no more CQEs.  Complete every WR still outstanding on the
 * QPs of this CQ with IB_WC_WR_FLUSH_ERR, as the device would have when the QPs went to
 * ERR, so that consumers (ib_drain_qp()) see all their WRs back.  Under the CQ's lock.
 */
static int cxib_cq_sw_flush(struct cxib_cq *cq, int num_entries, struct ib_wc *wc)
{
	struct cxib_sq_ent *ent;
	struct cxib_qp *qp;
	struct cxib_sq *sq;
	struct cxib_rq *rq;
	int n = 0;

	list_for_each_entry(qp, &cq->send_qps, cq_send_node) {
		if (qp->uq)
			continue;	/* user QPs complete in user space */
		sq = &qp->sq;
		spin_lock(&sq->lock);
		while (n < num_entries && sq->tail != sq->head) {
			ent = &sq->ents[sq->tail & (BIT(sq->log_wqe_cnt) - 1)];
			memset(&wc[n], 0, sizeof(wc[n]));
			wc[n].wr_id = ent->wr_id;
			wc[n].opcode = ent->wc_opcode;
			wc[n].status = IB_WC_WR_FLUSH_ERR;
			wc[n].qp = &qp->ibqp;
			n++;
			WRITE_ONCE(sq->tail, sq->tail + ent->nbb);
			WRITE_ONCE(sq->wr_tail, sq->wr_tail + 1);
		}
		spin_unlock(&sq->lock);
	}
	list_for_each_entry(qp, &cq->recv_qps, cq_recv_node) {
		rq = &qp->rq;
		if (qp->srq || qp->uq)
			continue;	/* the SRQ's WRs belong to no QP; user QPs' to user space */
		spin_lock(&rq->lock);
		while (n < num_entries && rq->tail != rq->head) {
			memset(&wc[n], 0, sizeof(wc[n]));
			wc[n].wr_id = rq->wrid[rq->tail & (BIT(rq->log_wqe_cnt) - 1)];
			wc[n].opcode = IB_WC_RECV;
			wc[n].status = IB_WC_WR_FLUSH_ERR;
			wc[n].qp = &qp->ibqp;
			n++;
			WRITE_ONCE(rq->tail, rq->tail + 1);
		}
		spin_unlock(&rq->lock);
	}
	return n;
}

/**
 * cxib_cq_clean_locked() - drop the CQEs of a QP from a CQ
 * @cq: the CQ, its lock held
 * @qpn: the device QP number
 * @srq: the QP's SRQ, whose WQEs consumed by the dropped receive CQEs go back to its free
 *	list; NULL without one
 *
 * For a QP going to RESET or away: its CQEs not yet polled are removed, and the CQEs of
 * other QPs after them move up, so the consumer counter only passes what was consumed.
 */
void cxib_cq_clean_locked(struct cxib_cq *cq, u32 qpn, struct cxib_srq *srq)
{
	u32 mask = BIT(cq->log_size) - 1, prod, nfreed = 0;
	void *cqe, *dst;
	u8 owner;

	lockdep_assert_held(&cq->lock);
	/* Find the end of the CQEs the device has written. */
	for (prod = cq->cons_index; prod - cq->cons_index <= mask; prod++)
		if (!cxib_cqe_sw_owned(cxib_cq_entry(cq, prod), prod, cq->log_size))
			break;
	dma_rmb();
	/* Walk back from the newest, moving the survivors up over the dropped ones. */
	while (prod-- != cq->cons_index) {
		cqe = cxib_cq_entry(cq, prod);
		if (CXIB_GET(cqe, CXIB_CQE_QPN) == qpn &&
		    CXIB_GET(cqe, CXIB_CQE_OPCODE) != CXIB_CQE_OPCODE_RESIZE_CQ) {
			if (srq && !cxib_cqe_is_send(cqe))
				cxib_srq_free_wqe(srq, CXIB_GET(cqe, CXIB_CQE_WQE_COUNTER));
			nfreed++;
		} else if (nfreed) {
			dst = cxib_cq_entry(cq, prod + nfreed);
			/* Keep the owner bit of the lap the destination slot belongs to. */
			owner = CXIB_GET(dst, CXIB_CQE_OWNER);
			memcpy(dst, cqe, CXIB_CQE_SIZE);
			CXIB_SET(dst, CXIB_CQE_OWNER, owner);
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		/* The moved CQEs are in place before the device may reuse the freed slots. */
		dma_mb();
		cq->dbr.db[CXIB_OFFSET(CXIB_CQ_DB_SET_CI) / 4] =
			cpu_to_be32(CXIB_FIELD_PREP(CXIB_CQ_DB_SET_CI, cq->cons_index));
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cq_clean_locked);

/**
 * cxib_poll_cq() - ib_device_ops.poll_cq: take up to @num_entries completions
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: the work completions
 *
 * Any context; does not sleep.
 *
 * Return: the number of completions written.
 */
int cxib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct cxib_cq *cq = to_cxib_cq(ibcq);
	u32 start, qpn;
	unsigned long flags;
	void *cqe;
	int n = 0, err;

	/* A user CQ is polled in user space; the kernel has no mapping of it. */
	if (unlikely(cq->uq))
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	start = cq->cons_index;
	while (n < num_entries && (cqe = cxib_cq_peek(cq))) {
		cq->cons_index++;
		if (CXIB_GET(cqe, CXIB_CQE_OPCODE) == CXIB_CQE_OPCODE_RESIZE_CQ)
			continue;	/* cxib never resizes a CQ */
		cxib_cqe_to_wc(cqe, &wc[n]);
		err = cxib_cq_qp_complete(cq, cqe, &wc[n]);
		if (err) {
			qpn = CXIB_GET(cqe, CXIB_CQE_QPN);
			ibdev_warn_ratelimited(ibcq->device,
					       "CQ %u: CQE for %s QP %u (WQE %u) dropped\n",
					       cq->cqn, err == -ENOENT ? "unknown" : "no WQE of",
					       qpn, CXIB_GET(cqe, CXIB_CQE_WQE_COUNTER));
			continue;
		}
		n++;
	}
	if (cq->cons_index != start) {
		/*
		 * Our reads of the consumed CQEs are done before the device may see them free
		 * and write them again.
		 */
		dma_mb();
		cq->dbr.db[CXIB_OFFSET(CXIB_CQ_DB_SET_CI) / 4] =
			cpu_to_be32(CXIB_FIELD_PREP(CXIB_CQ_DB_SET_CI, cq->cons_index));
	}
	if (n < num_entries && cxib_dev_dead(to_cxib_dev(ibcq->device)))
		n += cxib_cq_sw_flush(cq, num_entries - n, wc + n);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_poll_cq);

/*
 * Write the 64-bit CQ doorbell: dword 0 (arm) at the lower address, dword 1 (CQN) above,
 * both big-endian, as one write so the device never sees half of it (hence 64BIT in Kconfig).
 */
static void cxib_cq_uar_doorbell(struct cxib_dev *dev, u32 dw0, u32 dw1)
{
	__be32 db[2] = { cpu_to_be32(dw0), cpu_to_be32(dw1) };

	__raw_writeq(*(u64 *)db, dev->uar_map + CXIB_UAR_CQ_DOORBELL);
}

/**
 * cxib_req_notify_cq() - ib_device_ops.req_notify_cq: arm the CQ for one completion event
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally IB_CQ_REPORT_MISSED_EVENTS
 *
 * The arm carries the consumer counter (the device fires for a CQE at or beyond it, at
 * once if one is there already) and the arm sequence number (so the device can ignore an
 * arm that raced with the event it already raised).  Any context; does not sleep.
 *
 * Return: 0, or with IB_CQ_REPORT_MISSED_EVENTS 1 if completions are waiting to be polled.
 */
int cxib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct cxib_cq *cq = to_cxib_cq(ibcq);
	struct cxib_dev *dev = to_cxib_dev(ibcq->device);
	unsigned long irqflags;
	u32 cmd, arm;
	int ret = 0;

	if (unlikely(cq->uq))
		return -EINVAL;
	cmd = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ? CXIB_CQ_DB_CMD_REQ_NOT_SOL :
								   CXIB_CQ_DB_CMD_REQ_NOT;
	spin_lock_irqsave(&cq->lock, irqflags);
	arm = CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_SN, READ_ONCE(cq->arm_sn)) |
	      CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CMD, cmd) |
	      CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CI, cq->cons_index);
	/* The record's copy of the arm has the same layout as the doorbell's first dword. */
	cq->dbr.db[CXIB_OFFSET(CXIB_CQ_DB_ARM_CI) / 4] = cpu_to_be32(arm);
	/* The doorbell record is in memory before the device acts on the MMIO doorbell. */
	wmb();
	cxib_cq_uar_doorbell(dev, arm, CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CQN, cq->cqn));
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cxib_cq_peek(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/**
 * cxib_modify_cq() - ib_device_ops.modify_cq: set the CQ's completion event moderation
 * @ibcq: the CQ (kernel or user)
 * @cq_count: CQEs that raise the event at the latest (0: no count trigger)
 * @cq_period: microseconds after which the event is raised at the latest (0: no timer)
 *
 * MODIFY_CQ with the period and count field selects; the timer restarts at each event (the
 * CQ keeps cq_period_mode START_FROM_EQE).  Both 0 turn moderation off.  Needs the
 * cq_moderation capability, as in mlx5_ib; query_device reports the limits in cq_caps.
 * Sleeps.
 *
 * Return: 0, -EOPNOTSUPP without the capability, -EINVAL for a period or count beyond the
 * field widths, or the command's errno.
 */
int cxib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct cxib_dev *dev = to_cxib_dev(ibcq->device);
	struct cxib_cq *cq = to_cxib_cq(ibcq);
	struct cxib_cqc cqc = {};

	if (!dev->caps.cq_moderation)
		return -EOPNOTSUPP;
	if (cq_period > CXIB_CQ_MAX_PERIOD || cq_count > CXIB_CQ_MAX_COUNT)
		return -EINVAL;
	CXIB_SET(&cqc, CXIB_CQC_CQ_PERIOD, cq_period);
	CXIB_SET(&cqc, CXIB_CQC_CQ_MAX_COUNT, cq_count);
	return cxib_cmd_modify_cq(dev, cq->cqn, CXIB_CQ_MODIFY_PERIOD | CXIB_CQ_MODIFY_COUNT,
				  &cqc);
}

/* A kernel CQ's memory: 2^@log_size CQEs, every one invalid, and a doorbell record. */
static int cxib_cq_alloc_kernel(struct cxib_dev *dev, struct cxib_cq *cq)
{
	u32 nent = BIT(cq->log_size), i;
	int err;

	err = cxib_frag_buf_alloc(dev, &cq->buf, (size_t)nent * CXIB_CQE_SIZE);
	if (err)
		return err;
	/* Opcode INVALID, owner 0: nothing is valid until the device writes it. */
	for (i = 0; i < nent; i++)
		CXIB_SET(cxib_cq_entry(cq, i), CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_INVALID);

	err = cxib_dbr_alloc(dev, &cq->dbr);
	if (err)
		cxib_frag_buf_free(dev, &cq->buf);
	return err;
}

/* Release what cxib_cq_alloc_kernel() or cxib_ucq_init() got. */
static void cxib_cq_free_mem(struct cxib_dev *dev, struct cxib_cq *cq)
{
	if (cq->uq) {
		cxib_uq_free(dev, cq->uq);
		cq->uq = NULL;
		return;
	}
	cxib_dbr_free(dev, &cq->dbr);
	cxib_frag_buf_free(dev, &cq->buf);
}

/**
 * cxib_create_cq() - ib_device_ops.create_cq
 * @ibcq: the CQ, allocated by the RDMA core
 * @attr: number of CQEs wanted, completion vector, flags
 * @arg: the caller's udata (6.1) or attribute bundle (6.12): for a user CQ, libmlx5's
 *	request (its buffer and doorbell record, pinned by cxib_ucq_init()) and response room
 *
 * A kernel CQ's buffer holds the next power of two above @attr->cqe entries of 64 bytes,
 * every one marked invalid, and rings the driver's UAR; a user CQ's is libmlx5's.
 * CREATE_CQ puts the CQ on the completion EQ of the requested vector.  Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   CXIB_CREATE_CQ_ARG *arg)
{
	struct cxib_dev *dev = to_cxib_dev(ibcq->device);
	struct cxib_cq *cq = to_cxib_cq(ibcq);
	struct ib_udata *udata = cxib_create_cq_udata(arg);
	struct cxib_cqc cqc = {};
	u8 cqe_sz;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= dev->eqt.num_comp)
		return -EINVAL;
	cq->eqn = dev->eqt.comp[attr->comp_vector].eqn;
	cq->cons_index = 0;
	cq->arm_sn = 0;
	spin_lock_init(&cq->lock);
	INIT_LIST_HEAD(&cq->send_qps);
	INIT_LIST_HEAD(&cq->recv_qps);
	INIT_WORK(&cq->kick_work, cxib_cq_kick_work);
	cxib_obj_ref_init(&cq->ref);

	if (udata) {
		/* libmlx5's buffer and doorbell record, pinned (uverbs.c) */
		err = cxib_ucq_init(cq, attr, udata, &cqe_sz);
		if (err)
			return err;
	} else {
		if (attr->cqe < 1 || attr->cqe >= (1u << dev->caps.log_max_cq_sz))
			return -EINVAL;
		cq->log_size = ilog2(roundup_pow_of_two(attr->cqe + 1));
		cqe_sz = CXIB_CQC_CQE_SZ_64;
		err = cxib_cq_alloc_kernel(dev, cq);
		if (err)
			return err;
	}

	CXIB_SET(&cqc, CXIB_CQC_CQE_SZ, cqe_sz);
	CXIB_SET(&cqc, CXIB_CQC_LOG_CQ_SIZE, cq->log_size);
	CXIB_SET(&cqc, CXIB_CQC_UAR_PAGE, cq->uq ? cq->uq->uar : dev->uar);
	CXIB_SET(&cqc, CXIB_CQC_C_EQN, cq->eqn);
	/* 4 KiB pages, the buffer starts at the start of its first (page-aligned) page */
	CXIB_SET(&cqc, CXIB_CQC_LOG_PAGE_SIZE, 0);
	CXIB_SET(&cqc, CXIB_CQC_PAGE_OFFSET, 0);
	CXIB_SET64(&cqc, CXIB_CQC_DBR_ADDR, cq->dbr.dma);
	err = cxib_cmd_create_cq(dev, &cqc, cq->buf.dma, cq->buf.npages, &cq->cqn);
	if (err) {
		/* a command that failed was reported by the command engine */
		ibdev_dbg(&dev->ibdev, "CREATE_CQ (%s, %lu entries) failed: %d\n",
			  cq->uq ? "user" : "kernel", BIT(cq->log_size), err);
		goto err_free_mem;
	}
	if (cq->uq) {
		/* Answer before the CQ is in the table: once there, event handlers may use it. */
		err = cxib_ucq_respond(cq, udata);
		if (err)
			goto err_destroy_cq;
	}
	err = xa_insert_irq(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err) {
		ibdev_err(&dev->ibdev, "CQ %u: number already in use: %d\n", cq->cqn, err);
		goto err_destroy_cq;
	}
	/* 2^n - 1: what libmlx5 sent for a user CQ, which uses the value as its ring mask */
	ibcq->cqe = BIT(cq->log_size) - 1;
	return 0;

err_destroy_cq:
	cxib_cmd_destroy_cq(dev, cq->cqn);
err_free_mem:
	cxib_cq_free_mem(dev, cq);
	return err;
}

/**
 * cxib_destroy_cq() - ib_device_ops.destroy_cq
 * @ibcq: the CQ
 * @udata: NULL for kernel CQs
 *
 * Takes the CQ out of the table (no new event finds it), destroys it in the device, waits
 * for event handlers still running for it, and frees its memory.  If the living device
 * refuses to destroy it, the CQ stays as it was and the error is returned.  Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibcq->device);
	struct cxib_cq *cq = to_cxib_cq(ibcq);
	int err;

	xa_erase_irq(&dev->cqs, cq->cqn);
	err = cxib_cmd_destroy_cq(dev, cq->cqn);
	if (err && !cxib_dev_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "DESTROY_CQ %u failed: %d\n", cq->cqn, err);
		if (!xa_insert_irq(&dev->cqs, cq->cqn, cq, GFP_KERNEL))
			return err;
		/* Cannot happen: the number is still the device's. Free it anyway. */
	}

	cxib_obj_put_wait(&cq->ref);
	/* found by no one now, and no QP posts to it: no kick comes after this one */
	cancel_work_sync(&cq->kick_work);
	cxib_cq_free_mem(dev, cq);
	return 0;
}
