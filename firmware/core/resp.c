// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw responder (engine.h): request packets -> guest memory and receive WQEs.
 *
 * Receive WQEs: a regular RQ is consumed in order from qp->rq_cons up to the receive
 * counter of the QP's doorbell record (the record is the authority); an SRQ is a linked
 * list followed from srq->wqe_head through each WQE's next segment, bounded by the SRQ
 * doorbell record's counter.  A WQE is a scatter list of data segments ending at the first
 * CXIB_INVALID_LKEY entry or the stride end (the layouts of mlx5_wqe_data_seg and
 * mlx5_wqe_srq_next_seg in upstream include/linux/mlx5/qp.h).  A regular RQ WQE is
 * counted consumed when its CQE is written (so a QP that fails mid-message flushes it); an
 * SRQ WQE leaves the SRQ when a message takes it.  An unreadable WQE (or an SRQ link
 * outside the SRQ, which also puts the SRQ in error) completes with LOCAL_QP_OP_ERR.
 *
 * RC (IBTA vol 1 ch. 9, reliable service): ePSN from next_rcv_psn at INIT2RTR; PSN
 * ahead -> one sequence NAK until ePSN arrives; behind -> duplicate (re-ACK; READ
 * re-executed from the requested PSN; atomics replayed from the resource ring, never
 * re-executed); opcode sequence and
 * length checks; SEND / WRITE / READ / atomics with MSN counting; ACKs coalesced: sent at
 * once for AckReq, otherwise from cxfw_resp_process() after the batch.  READ responses and
 * atomic ACKs are streamed from the resource ring (2^log_rra_max entries) in PSN order,
 * at most CXFW_RESP_BUDGET packets per QP per pass, and a coalesced ACK waits for them.
 * UC (5.1): no ACKs; a PSN gap or bad packet drops the rest of the message; a FIRST/ONLY
 * packet resynchronises.  UD (5.2): Q_Key check, 40-byte GRH area, src QP / SLID / SL /
 * G in the CQE, P_Key index for QP1.
 *
 * Responses go back to the source of the request (port, SLID, SL, P_Key, GIDs swapped).
 */
#include <stdlib.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"
#include "ipoib.h"
#include "resp.h"

/* AETH syndromes the responder sends (IBTA vol 1 ch. 9, the AETH syndrome encodings). */
#define CXFW_AETH_ACK		CXIB_AETH_ACK(CXIB_AETH_CREDIT_INVALID)
#define CXFW_AETH_NAK_SEQ	CXIB_AETH_NAK(CXIB_AETH_NAK_PSN_SEQ_ERR)
#define CXFW_AETH_NAK_INV	CXIB_AETH_NAK(CXIB_AETH_NAK_INVALID_REQ)
#define CXFW_AETH_NAK_ACCESS	CXIB_AETH_NAK(CXIB_AETH_NAK_REMOTE_ACCESS_ERR)
#define CXFW_AETH_NAK_OP	CXIB_AETH_NAK(CXIB_AETH_NAK_REMOTE_OP_ERR)

#define CXFW_PSN_HALF		0x800000u
#define CXFW_MSN_MASK		0xffffffu
#define CXFW_MTU_SHIFT_BASE	7		/* path MTU enum m -> 128 << m bytes */
#define CXFW_RETH_MAX_LEN	(1u << 31)
#define CXFW_ATOMIC_LEN		8
#define CXFW_RESP_BUDGET	64		/* response packets per QP per pass */
#define CXFW_RESP_CHECK_CHUNK	(64u << 10)	/* R_Key range checks go this far at a time */
#define CXFW_RESP_MAX_PIECES	18		/* pieces of one check chunk or one packet */

/* The responder's tables hold what the capabilities promise (cxfw_priv.h). */
_Static_assert(CXFW_RESP_MAX_RES == 1u << CXFW_LOG_MAX_RA_RES_QP, "READ / atomic resources");
_Static_assert(CXFW_RESP_MAX_SGE == CXFW_MAX_RQ_WQE_BYTES / CXIB_WQE_DS_SIZE, "receive SGEs");

enum {
	CXFW_RESP_MSG_NONE	= 0,
	CXFW_RESP_MSG_SEND	= 1,
	CXFW_RESP_MSG_WRITE	= 2,
};

enum {
	CXFW_RESP_RES_READ	= 1,
	CXFW_RESP_RES_ATOMIC	= 2,
};

/* QPs with deferred work (coalesced ACKs, READ responses), oldest first. */
struct cxfw_resp_dev {
	uint32_t *qpns;
	unsigned int n, cap;
};

/* Receive WQE lookup results. */
enum {
	CXFW_WQE_OK		= 0,
	CXFW_WQE_NONE		= 1,
	CXFW_WQE_BAD		= 2,
};

static uint32_t cxfw_resp_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & CXIB_PSN_MASK;
}

/* 0 equal, > 0 @a is ahead of @b, < 0 behind (modulo 2^24, half window). */
static int cxfw_resp_psn_cmp(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & CXIB_PSN_MASK;

	return d == 0 ? 0 : d < CXFW_PSN_HALF ? 1 : -1;
}

static uint32_t cxfw_resp_mtu(const struct cxfw_qp *qp)
{
	uint32_t m = CXIB_GET(qp->qpc, CXIB_QPC_MTU);

	if (m < CXIB_QPC_MTU_256 || m > CXIB_QPC_MTU_4096)
		m = CXIB_QPC_MTU_256;
	return 1u << (CXFW_MTU_SHIFT_BASE + m);
}

static unsigned int cxfw_resp_nres(const struct cxfw_qp *qp)
{
	unsigned int n = 1u << CXIB_GET(qp->qpc, CXIB_QPC_LOG_RRA_MAX);

	return n > CXFW_RESP_MAX_RES ? CXFW_RESP_MAX_RES : n;
}

static bool cxfw_resp_is_srq(const struct cxfw_qp *qp)
{
	return qp->rq_type == CXIB_QPC_RQ_TYPE_SRQ && qp->srqn;
}

static uint8_t cxfw_resp_qp_state(struct cxfw_dev *dev, const struct cxfw_qp *qp)
{
	uint8_t s;

	pthread_mutex_lock(&dev->lock);
	s = qp->state;
	pthread_mutex_unlock(&dev->lock);
	return s;
}

/* ---- deferred work list ---------------------------------------------------------------- */

static void cxfw_resp_queue(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_resp_dev *rd = dev->resp_dev;

	if (qp->resp->queued)
		return;
	if (!rd) {
		rd = calloc(1, sizeof(*rd));
		if (!rd)
			return;
		dev->resp_dev = rd;
	}
	if (rd->n == rd->cap) {
		unsigned int cap = rd->cap ? rd->cap * 2 : 16;
		uint32_t *q = realloc(rd->qpns, cap * sizeof(*q));

		if (!q)
			return;
		rd->qpns = q;
		rd->cap = cap;
	}
	rd->qpns[rd->n++] = qp->qpn;
	qp->resp->queued = true;
	/*
	 * A packet from the cable is handled outside cxfw_process(): make sure one follows.
	 * Responses waiting for link credits resume when the cable drains instead.
	 */
	if (!qp->resp->blocked)
		dev->plat.kick(dev->plat.opaque);
}

/* Called by srq.c's cxfw_srq_destroy_all() at function reset: every QP is gone. */
void cxfw_resp_dev_free(struct cxfw_dev *dev)
{
	struct cxfw_resp_dev *rd = dev->resp_dev;

	if (rd)
		free(rd->qpns);
	free(rd);
	dev->resp_dev = NULL;
}

/* ---- packets out --------------------------------------------------------------------- */

static void cxfw_resp_pkt_init(const struct cxfw_qp *qp, struct cxfw_pkt *o, uint8_t operation,
			       uint32_t psn)
{
	const struct cxfw_resp_reply *r = &qp->resp->reply;

	memset(o, 0, sizeof(*o));
	o->opcode = (uint8_t)(CXIB_BTH_OP_CLASS_RC | operation);
	o->dqpn = CXIB_GET(qp->qpc, CXIB_QPC_REMOTE_QPN);
	o->psn = psn & CXIB_PSN_MASK;
	o->dlid = r->dlid;
	o->sl = r->sl;
	o->pkey = r->pkey;
	o->grh = r->grh;
	if (r->grh) {
		o->tclass = r->tclass;
		o->hop_limit = r->hop_limit;
		o->flow_label = r->flow_label;
		memcpy(o->sgid, r->sgid, sizeof(o->sgid));
		memcpy(o->dgid, r->dgid, sizeof(o->dgid));
	}
}

static void cxfw_resp_send_ack(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t synd,
			       uint32_t psn)
{
	struct cxfw_pkt o;

	cxfw_resp_pkt_init(qp, &o, CXIB_BTH_OP_ACKNOWLEDGE, psn);
	o.aeth_synd = synd;
	o.aeth_msn = qp->resp->msn;
	cxfw_wire_send(dev, qp->resp->reply.port, &o);
	pthread_mutex_lock(&dev->lock);
	if (synd == CXFW_AETH_ACK) {
		dev->stats.acks_sent++;
	} else {
		dev->stats.naks_sent++;
		if (CXIB_AETH_SYND_TYPE(synd) == CXIB_AETH_TYPE_RNR_NAK)
			dev->stats.rnr_naks_sent++;
	}
	pthread_mutex_unlock(&dev->lock);
}

/* ---- receive WQEs ---------------------------------------------------------------------- */

/* Parse the data segments of a receive WQE image (@first: byte offset of the first one). */
static void cxfw_resp_parse_sges(struct cxfw_resp *r, const uint8_t *wqe, unsigned int size,
				 unsigned int first)
{
	unsigned int off;

	r->nsge = 0;
	for (off = first; off + sizeof(struct cxib_wqe_data_seg) <= size &&
	     r->nsge < CXFW_RESP_MAX_SGE; off += sizeof(struct cxib_wqe_data_seg)) {
		const __be32 *d = (const __be32 *)(wqe + off);
		uint32_t lkey = CXIB_GET(d, CXIB_WQE_DATA_LKEY);

		if (lkey == CXIB_INVALID_LKEY)
			break;
		r->sge[r->nsge].lkey = lkey;
		r->sge[r->nsge].len = CXIB_GET(d, CXIB_WQE_DATA_BYTE_COUNT);
		r->sge[r->nsge].addr = CXIB_GET64(d, CXIB_WQE_DATA_ADDR);
		r->nsge++;
	}
	r->rcv_off = 0;
}

/* Take the next receive WQE into qp->resp (CXFW_WQE_*). */
static int cxfw_resp_get_wqe(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_resp *r = qp->resp;
	uint8_t wqe[CXFW_MAX_RQ_WQE_BYTES];
	unsigned int size;

	if (r->have_wqe)
		return CXFW_WQE_OK;
	if (cxfw_resp_is_srq(qp)) {
		struct cxfw_srq *srq;
		uint64_t dbr, addr;
		uint16_t head, cons, next;
		uint32_t log_size;
		__be32 db;

		pthread_mutex_lock(&dev->lock);
		srq = cxfw_srq_lookup(dev, qp->srqn);
		pthread_mutex_unlock(&dev->lock);
		if (!srq || srq->error)
			return CXFW_WQE_NONE;
		/* SRQs are destroyed by commands, which run in this thread: srq stays valid */
		dbr = CXIB_GET64(srq->srqc, CXIB_SRQC_DBR_ADDR);
		size = 1u << (CXIB_SRQC_LOG_RQ_STRIDE_BASE +
			      CXIB_GET(srq->srqc, CXIB_SRQC_LOG_RQ_STRIDE));
		log_size = srq->log_size;
		head = srq->wqe_head;
		cons = srq->wqe_cons;
		if (cxfw_dma_read(dev, dbr, &db, sizeof(db)))
			return CXFW_WQE_BAD;
		if ((uint16_t)(CXIB_GET(&db, CXIB_SRQ_DB_WQE_COUNTER) - cons) == 0)
			return CXFW_WQE_NONE;
		addr = cxfw_srq_wqe_addr(srq, head);
		r->wqe_idx = head;
		r->nsge = 0;
		r->have_wqe = true;	/* even a bad one: it gets the error CQE */
		next = 0;
		if (size > sizeof(wqe) ||
		    cxfw_dma_read(dev, addr, wqe, size) ||
		    (next = (uint16_t)CXIB_GET(wqe, CXIB_WQE_SRQ_NEXT_NEXT_WQE_INDEX)) >=
		    (1u << log_size)) {
			/* the list is broken: nothing after this WQE can be found */
			cxfw_srq_fail(dev, qp->srqn, srq, next);
			return CXFW_WQE_BAD;
		}
		cxfw_resp_parse_sges(r, wqe, size, sizeof(struct cxib_wqe_srq_next_seg));
		srq->wqe_head = next;
		srq->wqe_cons = (uint16_t)(cons + 1);
		cxfw_srq_consumed(dev, qp->srqn, srq,
				  (uint16_t)(CXIB_GET(&db, CXIB_SRQ_DB_WQE_COUNTER) - cons - 1));
		return CXFW_WQE_OK;
	}
	if (qp->rq_type != CXIB_QPC_RQ_TYPE_REGULAR || !qp->pas)
		return CXFW_WQE_NONE;
	{
		uint16_t cons;
		__be32 db[2];

		pthread_mutex_lock(&dev->lock);
		cons = qp->rq_cons;
		pthread_mutex_unlock(&dev->lock);
		if (cxfw_dma_read(dev, qp->dbr, db, sizeof(db)))
			return CXFW_WQE_BAD;
		if ((uint16_t)(CXIB_GET(db, CXIB_QP_DB_RCV_COUNTER) - cons) == 0)
			return CXFW_WQE_NONE;
		size = 1u << (CXIB_QPC_LOG_RQ_STRIDE_BASE + qp->rq_stride);
		r->wqe_idx = cons;
		r->nsge = 0;
		r->have_wqe = true;	/* even a bad one: it gets the error CQE */
		if (size > sizeof(wqe) ||
		    cxfw_dma_read(dev, cxfw_qp_wqe_addr(qp, false, cons), wqe,
				  size))
			return CXFW_WQE_BAD;
		cxfw_resp_parse_sges(r, wqe, size,
				     CXIB_GET(qp->qpc, CXIB_QPC_WQ_SIGNATURE) ?
				     sizeof(struct cxib_wqe_data_seg) : 0);
		return CXFW_WQE_OK;
	}
}

/* The held WQE is done (its CQE was written): a regular RQ moves on. */
static void cxfw_resp_wqe_done(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_resp *r = qp->resp;

	if (!r->have_wqe)
		return;
	r->have_wqe = false;
	pthread_mutex_lock(&dev->lock);
	if (!cxfw_resp_is_srq(qp) && qp->rq_cons == r->wqe_idx)
		qp->rq_cons++;
	dev->stats.recv_wqes++;
	pthread_mutex_unlock(&dev->lock);
}

static uint32_t cxfw_resp_pd(struct cxfw_dev *dev, const struct cxfw_qp *qp)
{
	uint32_t pd = qp->pd;

	if (cxfw_resp_is_srq(qp)) {
		struct cxfw_srq *srq;

		pthread_mutex_lock(&dev->lock);
		srq = cxfw_srq_lookup(dev, qp->srqn);
		if (srq)
			pd = srq->pd;
		pthread_mutex_unlock(&dev->lock);
	}
	return pd;
}

/*
 * Place @len bytes (@data, or nothing but the offset when NULL) at the current offset of
 * the held WQE's scatter list: 0, or the CQE syndrome (LOCAL_LENGTH_ERR when the list is
 * too short, LOCAL_PROT_ERR for a bad lkey / range / access / DMA).
 */
static uint8_t cxfw_resp_scatter(struct cxfw_dev *dev, struct cxfw_qp *qp, const uint8_t *data,
				 uint32_t len)
{
	struct cxfw_resp *r = qp->resp;
	uint64_t total = 0, pos = 0, off = r->rcv_off;
	uint32_t pd = cxfw_resp_pd(dev, qp), done = 0;
	unsigned int i;

	for (i = 0; i < r->nsge; i++)
		total += r->sge[i].len;
	if (off + len > total)
		return CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
	for (i = 0; i < r->nsge && done < len; i++) {
		const struct cxfw_resp_sge *s = &r->sge[i];
		struct cxfw_sg sg[CXFW_RESP_MAX_PIECES];
		uint32_t in, chunk;
		unsigned int n, k;
		uint8_t st;

		if (off + done >= pos + s->len) {
			pos += s->len;
			continue;
		}
		in = (uint32_t)(off + done - pos);
		chunk = s->len - in < len - done ? s->len - in : len - done;
		if (data) {
			st = cxfw_mkey_translate(dev, s->lkey, pd, CXFW_ACCESS_LOCAL_WRITE,
						 s->addr + in, chunk, sg, CXFW_RESP_MAX_PIECES, &n);
			if (st)
				return CXIB_CQE_SYND_LOCAL_PROT_ERR;
			for (k = 0, st = 0; k < n; k++) {
				if (cxfw_dma_write(dev, sg[k].addr, data + done,
						   sg[k].len))
					return CXIB_CQE_SYND_LOCAL_PROT_ERR;
				done += sg[k].len;
			}
			cxfw_stat_add(dev, &dev->stats.dma_write_bytes, chunk);
		} else {
			done += chunk;
		}
		pos += s->len;
	}
	r->rcv_off += len;
	return 0;
}

/* ---- completions --------------------------------------------------------------------- */

static void cxfw_resp_cqe_common(const struct cxfw_dev *dev, const struct cxfw_qp *qp,
				 struct cxib_cqe64 *cqe)
{
	memset(cqe, 0, sizeof(*cqe));
	cxfw_cqe_set_index(dev, qp, cqe, true);	/* SRQ number or user index */
}

/* CQ overflow or a vanished CQ: the QP goes to ERR without a NAK (class G). */
static void cxfw_resp_cq_failed(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: QP 0x%x: receive CQ %u unusable, QP to error",
		 qp->qpn, qp->cqn_rcv);
	cxfw_qp_error(dev, qp, CXIB_EVENT_TYPE_WQ_CATAS_ERROR);
}

/* Successful completion of the held WQE. */
static void cxfw_resp_complete(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			       unsigned int opcode, uint32_t byte_cnt, uint32_t imm_inval,
			       const struct cxfw_ipoib_rx *rx)
{
	bool ud = qp->st == CXIB_QPC_ST_UD || qp->st == CXIB_QPC_ST_QP0 ||
		  qp->st == CXIB_QPC_ST_QP1;
	struct cxib_cqe64 cqe;

	cxfw_resp_cqe_common(dev, qp, &cqe);
	CXIB_SET(&cqe, CXIB_CQE_OPCODE, opcode);
	CXIB_SET(&cqe, CXIB_CQE_BYTE_CNT, byte_cnt);
	CXIB_SET(&cqe, CXIB_CQE_QPN, qp->qpn);
	CXIB_SET(&cqe, CXIB_CQE_WQE_COUNTER, qp->resp->wqe_idx);
	CXIB_SET(&cqe, CXIB_CQE_SE, p->se);
	CXIB_SET(&cqe, CXIB_CQE_SLID, p->slid);
	CXIB_SET(&cqe, CXIB_CQE_SL, p->sl);
	CXIB_SET(&cqe, CXIB_CQE_G, p->grh ? CXIB_CQE_G_GRH : CXIB_CQE_G_NONE);
	CXIB_SET(&cqe, CXIB_CQE_RQPN, ud ? p->deth_sqpn : CXIB_GET(qp->qpc, CXIB_QPC_REMOTE_QPN));
	if (opcode != CXIB_CQE_OPCODE_RESP_SEND)
		CXIB_SET(&cqe, CXIB_CQE_IMM_INVAL_PKEY, imm_inval);
	else if (qp->st == CXIB_QPC_ST_QP1)
		/* the packet's P_Key itself; the host maps it to its table index */
		CXIB_SET(&cqe, CXIB_CQE_PKEY, p->pkey);
	if (rx) {
		CXIB_SET(&cqe, CXIB_CQE_HDS_IP_EXT, rx->hds_ip_ext);
		CXIB_SET(&cqe, CXIB_CQE_L4_HDR_TYPE, rx->l4_type);
		CXIB_SET(&cqe, CXIB_CQE_L3_HDR_TYPE, rx->l3_type);
	}
	if (cxfw_cq_post(dev, qp->cqn_rcv, &cqe)) {
		cxfw_resp_wqe_done(dev, qp);
		cxfw_resp_cq_failed(dev, qp);
		return;
	}
	cxfw_resp_wqe_done(dev, qp);
}

/* Error completion of the held WQE (if any) with @synd. */
static void cxfw_resp_err_cqe(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t synd)
{
	struct cxib_cqe64 cqe;

	if (!qp->resp->have_wqe)
		return;
	cxfw_resp_cqe_common(dev, qp, &cqe);
	CXIB_SET(&cqe, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_RESP_ERR);
	CXIB_SET(&cqe, CXIB_CQE_ERR_SYNDROME, synd);
	CXIB_SET(&cqe, CXIB_CQE_ERR_QPN, qp->qpn);
	CXIB_SET(&cqe, CXIB_CQE_ERR_WQE_COUNTER, qp->resp->wqe_idx);
	cxfw_cq_post(dev, qp->cqn_rcv, &cqe);
	if (synd != CXIB_CQE_SYND_WR_FLUSH_ERR)
		cxfw_stat_add(dev, &dev->stats.local_errors, 1);
	cxfw_resp_wqe_done(dev, qp);
}

static void cxfw_resp_reset_msg(struct cxfw_resp *r)
{
	r->msg = CXFW_RESP_MSG_NONE;
	r->rcv_off = 0;
	r->wr_off = r->wr_len = 0;
}

/*
 * A fatal responder error: NAK @nak (RC, 0 = none) with the request's PSN, error CQE
 * @cqe_synd on the held WQE (0 = none), QP to ERR with async event @event.
 */
static void cxfw_resp_fatal(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			    uint8_t nak, uint8_t cqe_synd, unsigned int event)
{
	if (nak && qp->st == CXIB_QPC_ST_RC)
		cxfw_resp_send_ack(dev, qp, nak, p->psn);
	if (nak == CXFW_AETH_NAK_ACCESS)
		cxfw_stat_add(dev, &dev->stats.remote_access_errors, 1);
	if (cqe_synd)
		cxfw_resp_err_cqe(dev, qp, cqe_synd);
	cxfw_resp_reset_msg(qp->resp);
	qp->resp->ack_pending = false;
	cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: QP 0x%x responder error: NAK 0x%02x, CQE 0x%02x",
		 qp->qpn, nak, cqe_synd);
	cxfw_qp_error(dev, qp, event);
}

/* The NAK that goes with a scatter failure. */
static uint8_t cxfw_resp_scatter_nak(uint8_t synd)
{
	return synd == CXIB_CQE_SYND_LOCAL_LENGTH_ERR ? CXFW_AETH_NAK_INV : CXFW_AETH_NAK_OP;
}

/* No receive WQE for a message that needs one (class B), or a malformed one (class A). */
static void cxfw_resp_no_wqe(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			     int why)
{
	if (why == CXFW_WQE_BAD) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: QP 0x%x: receive WQE unreadable or malformed",
			 qp->qpn);
		cxfw_resp_fatal(dev, qp, p, qp->st == CXIB_QPC_ST_RC ? CXFW_AETH_NAK_OP : 0,
				qp->resp->have_wqe ? CXIB_CQE_SYND_LOCAL_QP_OP_ERR : 0,
				qp->resp->have_wqe ? 0 : CXIB_EVENT_TYPE_WQ_CATAS_ERROR);
		return;
	}
	cxfw_stat_add(dev, &dev->stats.out_of_buffer, 1);
	if (qp->st == CXIB_QPC_ST_RC) {
		cxfw_resp_send_ack(dev, qp, (uint8_t)CXIB_AETH_RNR_NAK(
				CXIB_GET(qp->qpc, CXIB_QPC_MIN_RNR_NAK)), p->psn);
		/* packets already in flight behind it are dropped silently until the retry */
		qp->resp->nak_seq_sent = true;
	} else if (qp->st == CXIB_QPC_ST_UC)
		qp->resp->uc_drop = true;
}

/* ---- ACKs and the resource ring ------------------------------------------------------ */

static bool cxfw_resp_streaming(const struct cxfw_qp *qp)
{
	unsigned int i;

	for (i = 0; i < CXFW_RESP_MAX_RES; i++)
		if (qp->resp->res[i].sending)
			return true;
	return false;
}

/* Check that [va, va + len) of @rkey allows @access for this QP: 0 or a CQE syndrome. */
static uint8_t cxfw_resp_check_range(struct cxfw_dev *dev, const struct cxfw_qp *qp, uint32_t rkey,
				     unsigned int access, uint64_t va, uint64_t len)
{
	struct cxfw_sg sg[CXFW_RESP_MAX_PIECES];
	unsigned int n;
	uint8_t st;

	if (va + len < va)
		return CXIB_CQE_SYND_REMOTE_ACCESS_ERR;
	do {
		uint64_t chunk = len < CXFW_RESP_CHECK_CHUNK ? len : CXFW_RESP_CHECK_CHUNK;

		st = cxfw_mkey_translate(dev, rkey, qp->pd, access, va, chunk, sg,
					 CXFW_RESP_MAX_PIECES, &n);
		if (st)
			return st;
		va += chunk;
		len -= chunk;
	} while (len);
	return 0;
}

/* Send one response packet of resource @res; false if it could not be built. */
static bool cxfw_resp_send_one(struct cxfw_dev *dev, struct cxfw_qp *qp, struct cxfw_resp_res *res)
{
	uint8_t buf[1u << (CXFW_MTU_SHIFT_BASE + CXIB_QPC_MTU_4096)];
	struct cxfw_sg sg[CXFW_RESP_MAX_PIECES];
	uint32_t mtu = cxfw_resp_mtu(qp), chunk, got = 0;
	struct cxfw_pkt o;
	bool first, last;
	unsigned int n, k;
	uint8_t op;

	if (res->kind == CXFW_RESP_RES_ATOMIC) {
		cxfw_resp_pkt_init(qp, &o, CXIB_BTH_OP_ATOMIC_ACKNOWLEDGE, res->s_psn);
		o.aeth_synd = CXFW_AETH_ACK;
		o.aeth_msn = qp->resp->msn;
		o.atomic_orig = res->orig;
		cxfw_wire_send(dev, qp->resp->reply.port, &o);
		res->sending = false;
		return true;
	}
	chunk = res->s_len - res->s_off < mtu ? res->s_len - res->s_off : mtu;
	first = res->s_off == 0;
	last = res->s_off + chunk == res->s_len;
	op = first && last ? CXIB_BTH_OP_RDMA_READ_RESP_ONLY : first ? CXIB_BTH_OP_RDMA_READ_RESP_FIRST :
	     last ? CXIB_BTH_OP_RDMA_READ_RESP_LAST : CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE;
	if (chunk) {
		if (cxfw_mkey_translate(dev, res->rkey, qp->pd, CXFW_ACCESS_REMOTE_READ,
					res->s_va + res->s_off, chunk, sg, CXFW_RESP_MAX_PIECES,
					&n))
			return false;
		for (k = 0; k < n; k++) {
			if (cxfw_dma_read(dev, sg[k].addr, buf + got, sg[k].len))
				return false;
			got += sg[k].len;
		}
		cxfw_stat_add(dev, &dev->stats.dma_read_bytes, chunk);
	}
	cxfw_resp_pkt_init(qp, &o, op, res->s_psn);
	if (op != CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE) {
		o.aeth_synd = CXFW_AETH_ACK;
		o.aeth_msn = qp->resp->msn;
	}
	o.payload = buf;
	o.paylen = chunk;
	cxfw_wire_send(dev, qp->resp->reply.port, &o);
	res->s_off += chunk;
	res->s_psn = cxfw_resp_psn_add(res->s_psn, 1);
	if (last)
		res->sending = false;
	return true;
}

/*
 * Send what is due, oldest resource first, then the coalesced ACK.  Returns true if work
 * is left: the budget is used up, or the port has no link credits (r->blocked; the next
 * cxfw_process() after the cable drained resumes it, no kick needed).
 */
static bool cxfw_resp_pump(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_resp *r = qp->resp;
	unsigned int budget = CXFW_RESP_BUDGET, nres = cxfw_resp_nres(qp), i;

	r->blocked = false;
	for (i = 0; i < nres; i++) {
		struct cxfw_resp_res *res = &r->res[(r->res_next + i) % nres];

		while (res->sending) {
			if (!budget)
				return true;
			if (res->kind != CXFW_RESP_RES_ATOMIC &&
			    cxfw_wire_port_busy(dev, r->reply.port)) {
				r->blocked = true;
				return true;
			}
			budget--;
			if (!cxfw_resp_send_one(dev, qp, res)) {
				/* the memory went away under an accepted READ */
				struct cxfw_pkt p;

				memset(&p, 0, sizeof(p));
				p.psn = res->s_psn;
				res->sending = false;
				cxfw_resp_fatal(dev, qp, &p, CXFW_AETH_NAK_ACCESS, 0,
						CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
				return false;
			}
		}
	}
	if (r->ack_pending) {
		r->ack_pending = false;
		cxfw_resp_send_ack(dev, qp, CXFW_AETH_ACK, r->ack_psn);
	}
	return false;
}

/* The request with @psn succeeded: ACK now (AckReq) or after the batch. */
static void cxfw_resp_ack(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			  uint32_t psn)
{
	struct cxfw_resp *r = qp->resp;

	if (qp->st != CXIB_QPC_ST_RC)
		return;
	r->ack_pending = true;
	r->ack_psn = psn;
	if (p->ackreq && !cxfw_resp_streaming(qp))
		cxfw_resp_pump(dev, qp);
	else
		cxfw_resp_queue(dev, qp);
}

/* Take the next resource slot; NULL if the requester exceeded our resources. */
static struct cxfw_resp_res *cxfw_resp_res_alloc(struct cxfw_qp *qp)
{
	struct cxfw_resp *r = qp->resp;
	unsigned int nres = cxfw_resp_nres(qp);
	struct cxfw_resp_res *res = &r->res[r->res_next % nres];

	if (res->sending)
		return NULL;
	r->res_next = (r->res_next + 1) % nres;
	memset(res, 0, sizeof(*res));
	/* a new READ/ATOMIC response acknowledges everything before it */
	r->ack_pending = false;
	return res;
}

/* ---- RC / UC requests ---------------------------------------------------------------- */

static bool cxfw_resp_op_is_send(uint8_t op)
{
	return op <= CXIB_BTH_OP_SEND_ONLY_IMM || op == CXIB_BTH_OP_SEND_LAST_INV ||
	       op == CXIB_BTH_OP_SEND_ONLY_INV;
}

static bool cxfw_resp_op_is_write(uint8_t op)
{
	return op >= CXIB_BTH_OP_RDMA_WRITE_FIRST && op <= CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM;
}

static bool cxfw_resp_op_starts(uint8_t op)
{
	return op == CXIB_BTH_OP_SEND_FIRST || op == CXIB_BTH_OP_SEND_ONLY ||
	       op == CXIB_BTH_OP_SEND_ONLY_IMM || op == CXIB_BTH_OP_SEND_ONLY_INV ||
	       op == CXIB_BTH_OP_RDMA_WRITE_FIRST || op == CXIB_BTH_OP_RDMA_WRITE_ONLY ||
	       op == CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM;
}

static bool cxfw_resp_op_ends(uint8_t op)
{
	return op == CXIB_BTH_OP_SEND_LAST || op == CXIB_BTH_OP_SEND_LAST_IMM ||
	       op == CXIB_BTH_OP_SEND_LAST_INV || op == CXIB_BTH_OP_SEND_ONLY ||
	       op == CXIB_BTH_OP_SEND_ONLY_IMM || op == CXIB_BTH_OP_SEND_ONLY_INV ||
	       op == CXIB_BTH_OP_RDMA_WRITE_LAST || op == CXIB_BTH_OP_RDMA_WRITE_LAST_IMM ||
	       op == CXIB_BTH_OP_RDMA_WRITE_ONLY || op == CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM;
}

static bool cxfw_resp_op_only(uint8_t op)
{
	return cxfw_resp_op_starts(op) && cxfw_resp_op_ends(op);
}

/*
 * Opcode allowed after the open message and on this transport (IBTA vol 1 ch. 9, the
 * opcode sequence within a message).
 */
static bool cxfw_resp_seq_ok(const struct cxfw_qp *qp, uint8_t op)
{
	bool uc = qp->st == CXIB_QPC_ST_UC;

	if (uc && (op == CXIB_BTH_OP_RDMA_READ_REQUEST || op == CXIB_BTH_OP_COMPARE_SWAP ||
		   op == CXIB_BTH_OP_FETCH_ADD || op == CXIB_BTH_OP_SEND_LAST_INV ||
		   op == CXIB_BTH_OP_SEND_ONLY_INV))
		return false;
	switch (qp->resp->msg) {
	case CXFW_RESP_MSG_SEND:
		return cxfw_resp_op_is_send(op) && !cxfw_resp_op_starts(op);
	case CXFW_RESP_MSG_WRITE:
		return cxfw_resp_op_is_write(op) && !cxfw_resp_op_starts(op);
	default:
		return cxfw_resp_op_starts(op) || op == CXIB_BTH_OP_RDMA_READ_REQUEST ||
		       op == CXIB_BTH_OP_COMPARE_SWAP || op == CXIB_BTH_OP_FETCH_ADD;
	}
}

/* Payload length allowed for this packet of a SEND / WRITE. */
static bool cxfw_resp_len_ok(const struct cxfw_qp *qp, uint8_t op, uint32_t paylen)
{
	uint32_t mtu = cxfw_resp_mtu(qp);

	if (cxfw_resp_op_only(op))
		return paylen <= mtu;
	if (cxfw_resp_op_ends(op))
		return paylen >= 1 && paylen <= mtu;
	return paylen == mtu;
}

/* A bad request: RC -> NAK and QP error; UC -> drop the rest of the message. */
static void cxfw_resp_bad(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			  uint8_t nak, unsigned int event)
{
	if (qp->st == CXIB_QPC_ST_RC) {
		cxfw_resp_fatal(dev, qp, p, nak, nak == CXFW_AETH_NAK_ACCESS ?
				0 : (qp->resp->have_wqe && qp->resp->msg == CXFW_RESP_MSG_SEND ?
				     CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR : 0), event);
		return;
	}
	if (nak == CXFW_AETH_NAK_ACCESS)
		cxfw_stat_add(dev, &dev->stats.remote_access_errors, 1);
	qp->resp->uc_drop = true;
	cxfw_resp_reset_msg(qp->resp);
}

static void cxfw_resp_rx_send(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			      uint8_t op)
{
	struct cxfw_resp *r = qp->resp;
	unsigned int opcode = CXIB_CQE_OPCODE_RESP_SEND;
	uint32_t imm = 0;
	uint8_t st;
	int w;

	if (cxfw_resp_op_starts(op)) {
		w = cxfw_resp_get_wqe(dev, qp);
		if (w != CXFW_WQE_OK) {
			cxfw_resp_no_wqe(dev, qp, p, w);
			return;
		}
		r->rcv_off = 0;
	}
	st = cxfw_resp_scatter(dev, qp, p->payload, p->paylen);
	if (st) {
		cxfw_resp_fatal(dev, qp, p, cxfw_resp_scatter_nak(st), st, 0);
		return;
	}
	r->epsn = cxfw_resp_psn_add(p->psn, 1);
	if (!cxfw_resp_op_ends(op)) {
		r->msg = CXFW_RESP_MSG_SEND;
		cxfw_resp_ack(dev, qp, p, p->psn);
		return;
	}
	r->msg = CXFW_RESP_MSG_NONE;
	if (op == CXIB_BTH_OP_SEND_LAST_IMM || op == CXIB_BTH_OP_SEND_ONLY_IMM) {
		opcode = CXIB_CQE_OPCODE_RESP_SEND_IMM;
		imm = p->imm;
	} else if (op == CXIB_BTH_OP_SEND_LAST_INV || op == CXIB_BTH_OP_SEND_ONLY_INV) {
		if (cxfw_mkey_invalidate(dev, p->ieth_rkey, qp->pd, true)) {
			cxfw_resp_fatal(dev, qp, p, CXFW_AETH_NAK_INV,
					CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR,
					CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
			return;
		}
		opcode = CXIB_CQE_OPCODE_RESP_SEND_INV;
		imm = p->ieth_rkey;
	}
	r->msn = (r->msn + 1) & CXFW_MSN_MASK;
	cxfw_resp_complete(dev, qp, p, opcode, r->rcv_off, imm, NULL);
	if (cxfw_resp_qp_state(dev, qp) != CXIB_QPC_STATE_ERR)
		cxfw_resp_ack(dev, qp, p, p->psn);
}

static void cxfw_resp_rx_write(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
			       uint8_t op)
{
	struct cxfw_resp *r = qp->resp;
	bool imm = op == CXIB_BTH_OP_RDMA_WRITE_LAST_IMM || op == CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM;
	struct cxfw_sg sg[CXFW_RESP_MAX_PIECES];
	unsigned int n, k;
	uint32_t done = 0;
	int w;

	if (!CXIB_GET(qp->qpc, CXIB_QPC_RWE)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS, CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
		return;
	}
	if (cxfw_resp_op_starts(op)) {
		if (p->reth_len > CXFW_RETH_MAX_LEN ||
		    (cxfw_resp_op_only(op) ? p->paylen != p->reth_len : p->reth_len <= p->paylen)) {
			cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV,
				      CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
			return;
		}
		r->wr_va = p->reth_va;
		r->wr_rkey = p->reth_rkey;
		r->wr_len = p->reth_len;
		r->wr_off = 0;
	}
	if ((uint64_t)r->wr_off + p->paylen > r->wr_len ||
	    (cxfw_resp_op_ends(op) && r->wr_off + p->paylen != r->wr_len)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	if (imm) {		/* the WQE first: without one the packet is retried (RNR) */
		w = cxfw_resp_get_wqe(dev, qp);
		if (w != CXFW_WQE_OK) {
			cxfw_resp_no_wqe(dev, qp, p, w);
			return;
		}
	}
	if (p->paylen) {
		if (cxfw_mkey_translate(dev, r->wr_rkey, qp->pd, CXFW_ACCESS_REMOTE_WRITE,
					r->wr_va + r->wr_off, p->paylen, sg,
					CXFW_RESP_MAX_PIECES, &n)) {
			cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS,
				      CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
			return;
		}
		for (k = 0; k < n; k++) {
			if (cxfw_dma_write(dev, sg[k].addr, p->payload + done,
					   sg[k].len)) {
				cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS,
					      CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
				return;
			}
			done += sg[k].len;
		}
		cxfw_stat_add(dev, &dev->stats.dma_write_bytes, p->paylen);
	}
	r->wr_off += p->paylen;
	r->epsn = cxfw_resp_psn_add(p->psn, 1);
	if (!cxfw_resp_op_ends(op)) {
		r->msg = CXFW_RESP_MSG_WRITE;
		cxfw_resp_ack(dev, qp, p, p->psn);
		return;
	}
	r->msg = CXFW_RESP_MSG_NONE;
	r->msn = (r->msn + 1) & CXFW_MSN_MASK;
	if (imm) {
		cxfw_resp_complete(dev, qp, p, CXIB_CQE_OPCODE_RESP_WR_IMM, r->wr_len, p->imm,
				   NULL);
		if (cxfw_resp_qp_state(dev, qp) == CXIB_QPC_STATE_ERR)
			return;
	}
	cxfw_resp_ack(dev, qp, p, p->psn);
}

static void cxfw_resp_rx_read(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p)
{
	struct cxfw_resp *r = qp->resp;
	uint32_t mtu = cxfw_resp_mtu(qp), npkts;
	struct cxfw_resp_res *res;

	if (!CXIB_GET(qp->qpc, CXIB_QPC_RRE)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS, CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
		return;
	}
	if (p->reth_len > CXFW_RETH_MAX_LEN) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	if (p->reth_len && cxfw_resp_check_range(dev, qp, p->reth_rkey, CXFW_ACCESS_REMOTE_READ,
						 p->reth_va, p->reth_len)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS, CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
		return;
	}
	res = cxfw_resp_res_alloc(qp);
	if (!res) {		/* more outstanding READs/atomics than log_rra_max allows */
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	npkts = p->reth_len ? (p->reth_len + mtu - 1) / mtu : 1;
	res->kind = CXFW_RESP_RES_READ;
	res->first_psn = p->psn;
	res->last_psn = cxfw_resp_psn_add(p->psn, npkts - 1);
	res->va = res->s_va = p->reth_va;
	res->rkey = p->reth_rkey;
	res->len = res->s_len = p->reth_len;
	res->s_psn = res->s_first = p->psn;
	res->sending = true;
	r->epsn = cxfw_resp_psn_add(p->psn, npkts);
	r->msn = (r->msn + 1) & CXFW_MSN_MASK;
	if (cxfw_resp_pump(dev, qp))
		cxfw_resp_queue(dev, qp);
}

/*
 * Atomics see guest memory as 8-byte values in the byte order the driver declared with
 * ACCESS_REG HOST_ENDIANNESS (mlx5_core's atomic_req_8B_endianness_mode = host); the
 * requester (req.c) writes the returned original value in the same order.
 */
static uint64_t cxfw_resp_load64(const struct cxfw_dev *dev, const uint8_t *b)
{
	bool be = dev->host_endianness == CXIB_HOST_ENDIANNESS_BIG;
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < CXFW_ATOMIC_LEN; i++)
		v = v << 8 | b[be ? i : CXFW_ATOMIC_LEN - 1 - i];
	return v;
}

static void cxfw_resp_store64(const struct cxfw_dev *dev, uint8_t *b, uint64_t v)
{
	bool be = dev->host_endianness == CXIB_HOST_ENDIANNESS_BIG;
	unsigned int i;

	for (i = 0; i < CXFW_ATOMIC_LEN; i++, v >>= 8)
		b[be ? CXFW_ATOMIC_LEN - 1 - i : i] = (uint8_t)v;
}

static void cxfw_resp_rx_atomic(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
				uint8_t op)
{
	struct cxfw_resp *r = qp->resp;
	struct cxfw_sg sg[1];
	struct cxfw_resp_res *res;
	uint8_t b[CXFW_ATOMIC_LEN];
	uint64_t orig, val;
	unsigned int n;

	if (!CXIB_GET(qp->qpc, CXIB_QPC_RAE)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS, CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
		return;
	}
	if (p->atomic_va & (CXFW_ATOMIC_LEN - 1)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	if (cxfw_mkey_translate(dev, p->atomic_rkey, qp->pd, CXFW_ACCESS_REMOTE_ATOMIC,
				p->atomic_va, CXFW_ATOMIC_LEN, sg, 1, &n) || n != 1 ||
	    cxfw_dma_read(dev, sg[0].addr, b, sizeof(b))) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS, CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
		return;
	}
	res = cxfw_resp_res_alloc(qp);
	if (!res) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	orig = cxfw_resp_load64(dev, b);
	if (op == CXIB_BTH_OP_COMPARE_SWAP)
		val = orig == p->atomic_compare ? p->atomic_swap_add : orig;
	else
		val = orig + p->atomic_swap_add;
	if (val != orig) {
		cxfw_resp_store64(dev, b, val);
		if (cxfw_dma_write(dev, sg[0].addr, b, sizeof(b))) {
			cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_ACCESS,
				      CXIB_EVENT_TYPE_WQ_ACCESS_ERROR);
			return;
		}
	}
	cxfw_stat_add(dev, &dev->stats.dma_read_bytes, CXFW_ATOMIC_LEN);
	cxfw_stat_add(dev, &dev->stats.dma_write_bytes, CXFW_ATOMIC_LEN);
	res->kind = CXFW_RESP_RES_ATOMIC;
	res->first_psn = res->last_psn = res->s_psn = res->s_first = p->psn;
	res->orig = orig;
	res->sending = true;
	r->epsn = cxfw_resp_psn_add(p->psn, 1);
	r->msn = (r->msn + 1) & CXFW_MSN_MASK;
	if (cxfw_resp_pump(dev, qp))
		cxfw_resp_queue(dev, qp);
}

/* RC duplicate (PSN behind ePSN, IBTA vol 1 ch. 9: duplicate requests). */
static void cxfw_resp_duplicate(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p,
				uint8_t op)
{
	struct cxfw_resp *r = qp->resp;
	unsigned int nres = cxfw_resp_nres(qp), i;

	cxfw_stat_add(dev, &dev->stats.duplicate_requests, 1);
	if (op == CXIB_BTH_OP_RDMA_READ_REQUEST || op == CXIB_BTH_OP_COMPARE_SWAP ||
	    op == CXIB_BTH_OP_FETCH_ADD) {
		for (i = 0; i < nres; i++) {
			struct cxfw_resp_res *res = &r->res[i];

			if (!res->kind || cxfw_resp_psn_cmp(p->psn, res->first_psn) < 0 ||
			    cxfw_resp_psn_cmp(p->psn, res->last_psn) > 0)
				continue;
			if (op == CXIB_BTH_OP_RDMA_READ_REQUEST) {
				if (res->kind != CXFW_RESP_RES_READ || p->reth_rkey != res->rkey ||
				    p->reth_va < res->va ||
				    p->reth_va + p->reth_len > res->va + res->len ||
				    (p->reth_len && p->reth_va + p->reth_len < p->reth_va))
					return;		/* not a subset of the original: drop */
				res->s_psn = res->s_first = p->psn;
				res->s_va = p->reth_va;
				res->s_len = p->reth_len;
				res->s_off = 0;
			} else {
				if (res->kind != CXFW_RESP_RES_ATOMIC ||
				    res->first_psn != p->psn)
					return;
				res->s_psn = p->psn;
			}
			res->sending = true;
			if (cxfw_resp_pump(dev, qp))
				cxfw_resp_queue(dev, qp);
			return;
		}
		return;		/* resource recycled: drop, the requester retries */
	}
	/* SEND / WRITE: never re-executed; ACK what we have (C9-105) */
	r->ack_pending = true;
	r->ack_psn = cxfw_resp_psn_add(r->epsn, CXIB_PSN_MASK);
	if (p->ackreq && !cxfw_resp_streaming(qp))
		cxfw_resp_pump(dev, qp);
	else
		cxfw_resp_queue(dev, qp);
}

static void cxfw_resp_save_reply(struct cxfw_qp *qp, const struct cxfw_pkt *p)
{
	struct cxfw_resp_reply *r = &qp->resp->reply;

	r->port = p->port;
	r->dlid = p->slid;
	r->sl = p->sl;
	r->pkey = p->pkey;
	r->grh = p->grh;
	if (p->grh) {
		r->tclass = p->tclass;
		r->hop_limit = p->hop_limit;
		r->flow_label = p->flow_label;
		memcpy(r->sgid, p->dgid, sizeof(r->sgid));
		memcpy(r->dgid, p->sgid, sizeof(r->dgid));
	}
}

static void cxfw_resp_rx_conn(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p)
{
	const __be32 *pp = qp->qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;
	uint32_t rlid = CXIB_GET(pp, CXIB_ADS_RLID);
	struct cxfw_resp *r = qp->resp;
	uint8_t op = CXIB_BTH_OP_OPERATION(p->opcode);
	int d = cxfw_resp_psn_cmp(p->psn, r->epsn);

	/* a connected QP takes requests only from its peer (IBTA vol 1 ch. 9, header checks) */
	if (rlid && p->slid != rlid) {
		pthread_mutex_lock(&dev->lock);
		dev->stats.pkts_dropped++;
		dev->stats.transport_drops++;	/* not from the QP's peer */
		pthread_mutex_unlock(&dev->lock);
		return;
	}
	if (qp->st == CXIB_QPC_ST_RC) {
		cxfw_resp_save_reply(qp, p);
		if (d > 0) {
			if (!r->nak_seq_sent) {
				r->nak_seq_sent = true;
				cxfw_stat_add(dev, &dev->stats.out_of_sequence, 1);
				cxfw_resp_send_ack(dev, qp, CXFW_AETH_NAK_SEQ, r->epsn);
			}
			return;
		}
		if (d < 0) {
			cxfw_resp_duplicate(dev, qp, p, op);
			return;
		}
		r->nak_seq_sent = false;
	} else {
		/* UC: a gap drops the rest of the message; FIRST/ONLY resynchronise */
		if (d != 0 || r->uc_drop) {
			if (!cxfw_resp_op_starts(op)) {
				if (d != 0) {
					cxfw_stat_add(dev, &dev->stats.out_of_sequence, 1);
					r->uc_drop = true;
					cxfw_resp_reset_msg(r);
				}
				r->epsn = cxfw_resp_psn_add(p->psn, 1);
				return;
			}
			r->uc_drop = false;
			cxfw_resp_reset_msg(r);	/* a held WQE is reused from its start */
		}
	}
	if (!cxfw_resp_seq_ok(qp, op)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	if ((cxfw_resp_op_is_send(op) || cxfw_resp_op_is_write(op)) &&
	    !cxfw_resp_len_ok(qp, op, p->paylen)) {
		cxfw_resp_bad(dev, qp, p, CXFW_AETH_NAK_INV, CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		return;
	}
	if (cxfw_resp_op_is_send(op))
		cxfw_resp_rx_send(dev, qp, p, op);
	else if (cxfw_resp_op_is_write(op))
		cxfw_resp_rx_write(dev, qp, p, op);
	else if (op == CXIB_BTH_OP_RDMA_READ_REQUEST)
		cxfw_resp_rx_read(dev, qp, p);
	else
		cxfw_resp_rx_atomic(dev, qp, p, op);
}

/* ---- UD -------------------------------------------------------------------------------- */

/* The 40-byte GRH of a received UD packet, as IBA lays it out. */
static void cxfw_resp_build_grh(const struct cxfw_pkt *p, bool imm, uint8_t grh[CXIB_GRH_LEN])
{
	uint32_t pad = (CXIB_PKT_WORD - (p->paylen % CXIB_PKT_WORD)) % CXIB_PKT_WORD;
	uint32_t paylen = CXIB_BTH_LEN + CXIB_DETH_LEN + (imm ? CXIB_IMMDT_LEN : 0) + p->paylen +
			  pad + CXIB_ICRC_LEN;
	__be32 *g = (__be32 *)grh;

	memset(grh, 0, CXIB_GRH_LEN);
	CXIB_SET(g, CXIB_GRH_IPVER, CXIB_GRH_IPVER_6);
	CXIB_SET(g, CXIB_GRH_TCLASS, p->tclass);
	CXIB_SET(g, CXIB_GRH_FLOW_LABEL, p->flow_label);
	CXIB_SET(g, CXIB_GRH_PAYLEN, paylen);
	CXIB_SET(g, CXIB_GRH_NXTHDR, CXIB_GRH_NXTHDR_IBA);
	CXIB_SET(g, CXIB_GRH_HOPLMT, p->hop_limit);
	memcpy(grh + CXIB_GRH_SGID_OFFSET, p->sgid, sizeof(p->sgid));
	memcpy(grh + CXIB_GRH_DGID_OFFSET, p->dgid, sizeof(p->dgid));
}

static void cxfw_resp_rx_ud(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p)
{
	uint8_t op = CXIB_BTH_OP_OPERATION(p->opcode), st;
	__be32 grh[CXIB_GRH_LEN / 4];
	bool imm = op == CXIB_BTH_OP_SEND_ONLY_IMM;
	struct cxfw_ipoib_rx rx, *checked = NULL;
	int w;

	if (op != CXIB_BTH_OP_SEND_ONLY && !imm)
		return;
	if (imm && (qp->st == CXIB_QPC_ST_QP0 || qp->st == CXIB_QPC_ST_QP1))
		return;
	if (qp->st != CXIB_QPC_ST_QP0 && p->deth_qkey != CXIB_GET(qp->qpc, CXIB_QPC_Q_KEY)) {
		pthread_mutex_lock(&dev->lock);
		dev->stats.qkey_violations++;
		if (p->port >= 1 && p->port <= dev->cfg.num_ports) {
			if (dev->ports[p->port - 1].qkey_violations != UINT16_MAX)
				dev->ports[p->port - 1].qkey_violations++;
			cxfw_sma_trap_key_locked(dev, p->port, CXIB_TRAP_BAD_QKEY, p,
						 p->deth_qkey);
		}
		pthread_mutex_unlock(&dev->lock);
		return;
	}
	w = cxfw_resp_get_wqe(dev, qp);
	if (w == CXFW_WQE_NONE) {
		cxfw_stat_add(dev, &dev->stats.out_of_buffer, 1);
		cxfw_wire_vl15_dropped(dev, p);		/* an SMP with no buffer for it */
		return;
	}
	if (w == CXFW_WQE_BAD) {
		cxfw_resp_no_wqe(dev, qp, p, w);
		return;
	}
	qp->resp->rcv_off = 0;
	if (p->grh)
		cxfw_resp_build_grh(p, imm, (uint8_t *)grh);
	st = cxfw_resp_scatter(dev, qp, p->grh ? (const uint8_t *)grh : NULL, CXIB_GRH_LEN);
	if (!st)
		st = cxfw_resp_scatter(dev, qp, p->payload, p->paylen);
	if (st) {
		cxfw_resp_fatal(dev, qp, p, 0, st, 0);
		return;
	}
	if (cxfw_qp_ipoib(qp)) {
		/* the checksums the device checked on the way in */
		cxfw_ipoib_rx_check(p->payload, p->paylen, &rx);
		if (rx.l3_type)
			cxfw_stat_add(dev, (rx.hds_ip_ext & CXIB_CQE_L3_L4_OK) == CXIB_CQE_L3_L4_OK ?
				      &dev->stats.rx_csum_ok : &dev->stats.rx_csum_bad, 1);
		checked = &rx;
	}
	cxfw_resp_complete(dev, qp, p,
			   imm ? CXIB_CQE_OPCODE_RESP_SEND_IMM : CXIB_CQE_OPCODE_RESP_SEND,
			   qp->resp->rcv_off, p->imm, checked);
}

/* ---- engine.h entry points ---------------------------------------------------------- */

void cxfw_resp_rx(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p)
{
	uint8_t s = cxfw_resp_qp_state(dev, qp), tr = CXIB_BTH_OP_CLASS(p->opcode);

	if (s != CXIB_QPC_STATE_RTR && s != CXIB_QPC_STATE_RTS && s != CXIB_QPC_STATE_SQD &&
	    s != CXIB_QPC_STATE_SQER) {
		cxfw_wire_vl15_dropped(dev, p);		/* QP0 not receiving yet */
		return;
	}
	if (p->paylen && !p->payload)
		return;
	switch (qp->st) {
	case CXIB_QPC_ST_RC:
		if (tr == CXIB_BTH_OP_CLASS_RC)
			cxfw_resp_rx_conn(dev, qp, p);
		break;
	case CXIB_QPC_ST_UC:
		if (tr == CXIB_BTH_OP_CLASS_UC)
			cxfw_resp_rx_conn(dev, qp, p);
		break;
	case CXIB_QPC_ST_UD:
	case CXIB_QPC_ST_QP0:
	case CXIB_QPC_ST_QP1:
		if (tr == CXIB_BTH_OP_CLASS_UD)
			cxfw_resp_rx_ud(dev, qp, p);
		break;
	default:
		break;
	}
}

void cxfw_resp_process(struct cxfw_dev *dev, uint64_t now)
{
	struct cxfw_resp_dev *rd = dev->resp_dev;
	unsigned int i, n, keep = 0, ready = 0;

	(void)now;
	if (!rd || !rd->n)
		return;
	n = rd->n;
	for (i = 0; i < n; i++) {
		uint32_t qpn = rd->qpns[i];
		struct cxfw_qp *qp = cxfw_qp_find(dev, qpn);

		if (!qp || !qp->resp->queued)
			continue;
		qp->resp->queued = false;
		if (cxfw_resp_qp_state(dev, qp) == CXIB_QPC_STATE_ERR ||
		    cxfw_resp_qp_state(dev, qp) == CXIB_QPC_STATE_RST)
			continue;
		if (cxfw_resp_pump(dev, qp)) {
			qp->resp->queued = true;
			rd->qpns[keep++] = qpn;
			ready += !qp->resp->blocked;
		}
	}
	/* QPs queued meanwhile (by cxfw_resp_fatal paths) sit after n */
	memmove(rd->qpns + keep, rd->qpns + n, (rd->n - n) * sizeof(*rd->qpns));
	rd->n = keep + (rd->n - n);
	if (ready)	/* READ responses left over the budget: come back soon */
		dev->plat.kick(dev->plat.opaque);
}

void cxfw_resp_qp_error(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_resp *r = qp->resp;
	unsigned int i;

	for (i = 0; i < CXFW_RESP_MAX_RES; i++)
		r->res[i].sending = false;
	r->ack_pending = false;
	cxfw_resp_reset_msg(r);
	if (!cxfw_resp_is_srq(qp))
		return;		/* the held RQ WQE is flushed by qp.c from rq_cons */
	if (r->have_wqe)	/* taken from the SRQ: only this QP can complete it */
		cxfw_resp_err_cqe(dev, qp, CXIB_CQE_SYND_WR_FLUSH_ERR);
	if (!r->last_wqe_sent) {
		uint32_t data[7] = { 0 };
		uint64_t eq = cxfw_eq_subscriber(dev, CXIB_EVENT_TYPE_SRQ_LAST_WQE);

		r->last_wqe_sent = true;
		if (eq) {
			data[CXIB_DW(CXIB_EQE_QP_TYPE) - 8] =
				CXIB_FIELD_PREP(CXIB_EQE_QP_TYPE, CXIB_EVENT_QUEUE_TYPE_QP);
			data[CXIB_DW(CXIB_EQE_QP_QPN) - 8] =
				CXIB_FIELD_PREP(CXIB_EQE_QP_QPN, qp->qpn);
			cxfw_eq_post(dev, eq, CXIB_EVENT_TYPE_SRQ_LAST_WQE, 0, data);
		}
	}
}

void cxfw_resp_modify(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t from, uint8_t to)
{
	struct cxfw_resp *r = qp->resp;

	if (to == CXIB_QPC_STATE_RST || (from == CXIB_QPC_STATE_RST &&
					 to == CXIB_QPC_STATE_INIT)) {
		memset(r, 0, sizeof(*r));
		return;
	}
	if (from == CXIB_QPC_STATE_INIT && to == CXIB_QPC_STATE_RTR) {
		bool queued = r->queued;

		memset(r, 0, sizeof(*r));
		r->queued = queued;
		r->epsn = CXIB_GET(qp->qpc, CXIB_QPC_NEXT_RCV_PSN) & CXIB_PSN_MASK;
		return;
	}
	if (to == CXIB_QPC_STATE_ERR)
		cxfw_resp_qp_error(dev, qp);
}

int cxfw_resp_create(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	(void)dev;
	qp->resp = calloc(1, sizeof(*qp->resp));
	return qp->resp ? 0 : -1;
}

/* A stale entry of the QP in the work list is skipped: its number no longer finds it. */
void cxfw_resp_destroy(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	(void)dev;
	free(qp->resp);
	qp->resp = NULL;
}

/* ---- debugging ---------------------------------------------------------------------- */

void cxfw_resp_format(const struct cxfw_qp *qp, struct cxfw_text *t)
{
	const struct cxfw_resp *r = qp->resp;

	if (!r)
		return;
	cxfw_textf(t, "  resp epsn 0x%06x msn %u msg %u rcv_off %u", r->epsn, r->msn, r->msg,
		   r->rcv_off);
	if (r->have_wqe)
		cxfw_textf(t, " wqe %u", r->wqe_idx);
	if (r->ack_pending)
		cxfw_textf(t, " ack_pending 0x%06x", r->ack_psn);
	cxfw_textf(t, "%s%s%s%s\n", r->nak_seq_sent ? " nak_seq_sent" : "",
		   r->queued ? " queued" : "", r->blocked ? " blocked" : "",
		   r->uc_drop ? " uc_drop" : "");
}
