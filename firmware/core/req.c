// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw requester (engine.h): send WQEs -> packets, and back from responses to CQEs.
 *
 * Send engine (rung as upstream drivers/infiniband/hw/mlx5/wr.c does): the doorbell
 * record's send counter says how many WQEBBs the driver posted; each WQE (1..16 WQEBBs,
 * may wrap the ring) is copied into the QP's window (req.h), its control segment checked
 * (opcode for the transport, ds, qpn,
 * wqe_index) and its segments parsed: datagram segment (UD/QP0/QP1), remote address,
 * atomic, then data or inline segments.  UMR (fast registration, UMR-form LOCAL_INV) and
 * NOP are local operations executed when their turn comes.  A malformed WQE or a failed
 * key check completes it with an error CQE (LOCAL_QP_OP_ERR, LOCAL_PROT_ERR,
 * LOCAL_LENGTH_ERR) once every older WQE has completed, and the QP goes to ERR.
 *
 * Transport (IBTA vol 1 ch. 9): messages are cut into MTU packets (FIRST/MIDDLE/LAST or
 * ONLY), PSNs 24-bit from next_send_psn, an RDMA READ reserves one PSN per response packet.
 * RC: AckReq on the last packet of a message and every CXFW_REQ_ACKREQ_PKTS packets; at
 * most CXFW_REQ_MAX_UNACKED PSNs and 2^log_sra_max READ/ATOMIC WQEs outstanding; fences
 * (fm) hold a WQE until older READ/ATOMICs (fence) or all older WQEs (strong ordering,
 * what mlx5_ib puts on LOCAL_INV / REG_MR) have completed.  Responses complete WQEs in
 * order: ACKs (coalesced), READ responses (scattered into the local SGEs), atomic ACKs
 * (original value written back);
 * implied NAKs, NAK-PSN-sequence and the local ACK timer (see req.h for the TCG clamp) go
 * back to the oldest unacknowledged PSN, counted against retry_count; RNR NAKs wait the
 * AETH's timer, counted against rnr_retry (7 = forever); remote NAKs end the WQE with the
 * matching error.  UC/UD complete a WQE when its last packet is sent; a UD message larger
 * than the MTU is a LOCAL_LENGTH_ERR.  A failed WQE moves an RC QP to ERR, a UD/UC QP to
 * SQER (its RQ keeps working; SQERR2RTS resumes).
 *
 * Requester errors are reported by the error CQE only (no affiliated event: IBA 11.6.3
 * reserves those for errors the CQE cannot report, and for responder-detected ones).
 *
 * Everything runs in the worker (engine.h); per-QP state is worker-only, dev->lock is
 * taken only for the QP's counters, stats and port tables.
 */
#include <stdlib.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"
#include "req.h"

/* Device-wide requester state: the list of QPs whose requester is active. */
struct cxfw_req_dev {
	struct cxfw_qp *first;
	unsigned int n;
	struct cxfw_qp *cursor;		/* where the next cxfw_req_process() starts */
};

/*
 * The PD a QP's local keys must belong to: its own, or any for a UMR QP created without
 * one (mlx5_ib's: its data segments name a DMA key of the driver's UMR PD).
 */
static uint32_t cxfw_req_qp_key_pd(const struct cxfw_qp *qp)
{
	return qp->st == CXIB_QPC_ST_REG_UMR && !qp->pd ? CXFW_PD_ANY : qp->pd;
}

/* RNR NAK timer codes (AETH value) in units of 10 us (IBTA vol 1 ch. 9, AETH). */
static const uint32_t cxfw_req_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576,
	32768, 49152,
};

#define CXFW_NS_PER_10US	10000ull

/* ---- helpers ------------------------------------------------------------------------- */

/* Signed distance a - b of two 24-bit PSNs. */
static int32_t cxfw_req_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static uint32_t cxfw_req_psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & CXIB_PSN_MASK;
}

/*
 * Was @psn ever sent?  An ACK may arrive for packets sent in an earlier pass, after a go-back
 * (timeout, NAK, RNR) has started sending them again, so what it acknowledges is checked
 * against the highest PSN sent so far, not against the current pass's progress.  An ACK of a
 * PSN never sent is a "ghost" acknowledgement and is ignored (IBTA vol 1 ch. 9, requester
 * side).
 */
static bool cxfw_req_psn_was_sent(const struct cxfw_req *r, uint32_t psn)
{
	return cxfw_req_psn_diff(psn, r->hi_psn) < 0;
}

static const __be32 *cxfw_req_qp_path(const struct cxfw_qp *qp)
{
	return qp->qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;
}

static bool cxfw_req_st_ud(uint8_t st)
{
	return st == CXIB_QPC_ST_UD || st == CXIB_QPC_ST_QP0 || st == CXIB_QPC_ST_QP1;
}

static unsigned int cxfw_req_qp_port(const struct cxfw_qp *qp)
{
	return CXIB_GET(cxfw_req_qp_path(qp), CXIB_ADS_VHCA_PORT_NUM);
}

/* Path MTU in bytes (UD: also bounded by the port's). */
static uint32_t cxfw_req_mtu(struct cxfw_dev *dev, const struct cxfw_qp *qp)
{
	unsigned int mtu = CXIB_GET(qp->qpc, CXIB_QPC_MTU), port = cxfw_req_qp_port(qp);

	if (mtu < CXIB_QPC_MTU_256 || mtu > CXIB_QPC_MTU_4096)
		mtu = CXIB_QPC_MTU_256;
	if (cxfw_req_st_ud(qp->st) && port >= 1 && port <= dev->cfg.num_ports) {
		unsigned int pm;

		pthread_mutex_lock(&dev->lock);
		pm = dev->ports[port - 1].neighbor_mtu;
		pthread_mutex_unlock(&dev->lock);
		if (pm >= CXIB_QPC_MTU_256 && pm < mtu)
			mtu = pm;
	}
	return 128u << mtu;	/* 1: 256 .. 5: 4096 */
}

static struct cxfw_req_wqe *cxfw_req_win(struct cxfw_req *r, unsigned int i)
{
	return &r->win[(r->head + i) % CXFW_REQ_WINDOW];
}

static uint64_t cxfw_req_ack_timeout_ns(const struct cxfw_qp *qp)
{
	unsigned int t = CXIB_GET(cxfw_req_qp_path(qp), CXIB_ADS_ACK_TIMEOUT);
	uint64_t ns;

	if (!t)
		return 0;	/* infinite */
	ns = CXFW_REQ_ACK_TIMEOUT_UNIT_NS << t;
	return ns < CXFW_REQ_MIN_ACK_TIMEOUT_NS ? CXFW_REQ_MIN_ACK_TIMEOUT_NS : ns;
}

/*
 * The local ACK timer's clock: @now less the time the QP's packets waited in the cable
 * unread by the peer (cxfw_wire_port_wait_ns).  IBA's timeout is the time a request and
 * its response may take on the fabric; time in which the peer did not even read the
 * request is the peer's host not running (a TCG guest's QEMU without CPU), not fabric time.
 */
static uint64_t cxfw_req_ack_clock(struct cxfw_dev *dev, const struct cxfw_qp *qp,
				   uint64_t now)
{
	return now - cxfw_wire_port_wait_ns(dev, cxfw_req_qp_port(qp));
}

static void cxfw_req_reset_counters(struct cxfw_qp *qp)
{
	qp->req->retry_left = (uint8_t)CXIB_GET(qp->qpc, CXIB_QPC_RETRY_COUNT);
	qp->req->rnr_left = (uint8_t)CXIB_GET(qp->qpc, CXIB_QPC_RNR_RETRY);
}

/* ---- active list ----------------------------------------------------------------------- */

static void cxfw_req_link(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_req_dev *rd = dev->req_dev;

	if (qp->req->active)
		return;
	if (!rd) {
		rd = calloc(1, sizeof(*rd));
		if (!rd)
			return;
		dev->req_dev = rd;
	}
	qp->req->prev = NULL;
	qp->req->next = rd->first;
	if (rd->first)
		rd->first->req->prev = qp;
	rd->first = qp;
	rd->n++;
	qp->req->active = true;
}

static void cxfw_req_unlink(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_req_dev *rd = dev->req_dev;

	if (!qp->req->active || !rd)
		return;
	if (rd->cursor == qp)
		rd->cursor = qp->req->next;
	if (qp->req->prev)
		qp->req->prev->req->next = qp->req->next;
	else
		rd->first = qp->req->next;
	if (qp->req->next)
		qp->req->next->req->prev = qp->req->prev;
	qp->req->prev = qp->req->next = NULL;
	qp->req->active = false;
	if (!--rd->n) {		/* freed with the last user: nothing to leak at destroy */
		free(rd);
		dev->req_dev = NULL;
	}
}

/* Forget everything in flight (ERR, RST, destroy). */
static void cxfw_req_drop(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	cxfw_req_unlink(dev, qp);
	free(qp->req->win);
	memset(qp->req, 0, sizeof(*qp->req));
}

void cxfw_req_modify(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t from, uint8_t to)
{
	struct cxfw_req *r = qp->req;

	if (to == CXIB_QPC_STATE_RTS || to == CXIB_QPC_STATE_SQD) {
		if (qp->no_sq)
			return;
		if (!r->win) {
			r->win = calloc(CXFW_REQ_WINDOW, sizeof(*r->win));
			if (!r->win) {
				cxfw_log(dev, CXFW_LOG_ERR, "cxfw: QP 0x%x: no memory for the requester",
					 qp->qpn);
				return;
			}
			r->head = r->count = 0;
			r->sq_next = qp->sq_cons;
		}
		if (from == CXIB_QPC_STATE_RTR) {
			r->next_psn = CXIB_GET(qp->qpc, CXIB_QPC_NEXT_SEND_PSN);
			r->hi_psn = r->next_psn;
		}
		if (from != to)
			cxfw_req_reset_counters(qp);
		r->db = true;		/* WQEs posted before RTS are served now */
		cxfw_req_link(dev, qp);
		return;
	}
	if (to == CXIB_QPC_STATE_ERR || to == CXIB_QPC_STATE_RST)
		cxfw_req_drop(dev, qp);
	if (to == CXIB_QPC_STATE_SQER) {	/* UD/UC: PSNs continue after SQERR2RTS */
		uint32_t psn = r->next_psn, hi = r->hi_psn;

		cxfw_req_drop(dev, qp);
		r->next_psn = psn;
		r->hi_psn = hi;
	}
}

int cxfw_req_create(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	(void)dev;
	qp->req = calloc(1, sizeof(*qp->req));
	return qp->req ? 0 : -1;
}

void cxfw_req_destroy(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	if (!qp->req)
		return;
	cxfw_req_drop(dev, qp);
	free(qp->req);
	qp->req = NULL;
}

void cxfw_req_query(const struct cxfw_qp *qp, __be32 *qpc)
{
	const struct cxfw_req *r = qp->req;

	if (!r->active)
		return;
	CXIB_SET(qpc, CXIB_QPC_NEXT_SEND_PSN, r->next_psn);
	CXIB_SET(qpc, CXIB_QPC_CUR_RETRY_COUNT, r->retry_left);
	CXIB_SET(qpc, CXIB_QPC_CUR_RNR_RETRY, r->rnr_left);
}

/* ---- completion ------------------------------------------------------------------------ */

static bool cxfw_req_local_synd(uint8_t synd)
{
	return synd == CXIB_CQE_SYND_LOCAL_LENGTH_ERR || synd == CXIB_CQE_SYND_LOCAL_QP_OP_ERR ||
	       synd == CXIB_CQE_SYND_LOCAL_PROT_ERR || synd == CXIB_CQE_SYND_LOCAL_ACCESS_ERR ||
	       synd == CXIB_CQE_SYND_MW_BIND_ERR;
}

/*
 * Pop every completed WQE at the head of the window, in order, writing its CQE.  Returns
 * false if the QP went to ERR (an error WQE reached the head): the caller must stop.
 */
static bool cxfw_req_complete(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_req *r = qp->req;

	while (r->win && r->count && cxfw_req_win(r, 0)->done) {
		struct cxfw_req_wqe *w = cxfw_req_win(r, 0);
		struct cxib_cqe64 cqe;

		memset(&cqe, 0, sizeof(cqe));
		cxfw_cqe_set_index(dev, qp, &cqe, false);
		if (w->synd) {
			CXIB_SET(&cqe, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_REQ_ERR);
			CXIB_SET(&cqe, CXIB_CQE_ERR_SYNDROME, w->synd);
			CXIB_SET(&cqe, CXIB_CQE_ERR_S_WQE_OPCODE, w->opcode);
			CXIB_SET(&cqe, CXIB_CQE_ERR_QPN, qp->qpn);
			CXIB_SET(&cqe, CXIB_CQE_ERR_WQE_COUNTER, w->idx);
		} else if (w->signaled) {
			CXIB_SET(&cqe, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_REQ);
			CXIB_SET(&cqe, CXIB_CQE_SOP, w->opcode);
			CXIB_SET(&cqe, CXIB_CQE_QPN, qp->qpn);
			CXIB_SET(&cqe, CXIB_CQE_WQE_COUNTER, w->idx);
			if (w->opcode == CXIB_WQE_OPCODE_RDMA_READ ||
			    w->opcode == CXIB_WQE_OPCODE_ATOMIC_CS ||
			    w->opcode == CXIB_WQE_OPCODE_ATOMIC_FA)
				CXIB_SET(&cqe, CXIB_CQE_BYTE_CNT, (uint32_t)w->len);
		}
		if (w->synd || w->signaled)
			cxfw_cq_post(dev, qp->cqn_snd, &cqe);
		pthread_mutex_lock(&dev->lock);
		qp->sq_cons = (uint16_t)(w->idx + w->bbs);
		if (w->synd && cxfw_req_local_synd(w->synd))
			dev->stats.local_errors++;
		pthread_mutex_unlock(&dev->lock);
		if (w->rd_atomic && w->started && r->rd_atomic)
			r->rd_atomic--;
		r->head = (r->head + 1) % CXFW_REQ_WINDOW;
		r->count--;
		if (w->synd) {
			cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: QP 0x%x: WQE %u failed, syndrome 0x%02x",
				 qp->qpn, w->idx, w->synd);
			if (qp->st == CXIB_QPC_ST_RC)
				cxfw_qp_error(dev, qp, 0);
			else
				cxfw_qp_sq_error(dev, qp);	/* UD / UC: SQER */
			return false;
		}
	}
	return true;
}

/* End WQE @w with @synd; nothing after it is started. */
static void cxfw_req_fail(struct cxfw_req_wqe *w, struct cxfw_req *r, uint8_t synd)
{
	w->synd = synd;
	w->done = true;
	r->stopped = true;
}

static uint32_t cxfw_req_una(const struct cxfw_req *r);

/* ---- fetching and parsing WQEs ------------------------------------------------------- */

/* Copy WQEBBs [idx, idx + n) of the SQ into @buf (wraps the ring). */
static int cxfw_req_sq_read(struct cxfw_dev *dev, const struct cxfw_qp *qp, uint16_t idx,
			    unsigned int n, uint8_t *buf)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (cxfw_dma_read(dev, cxfw_qp_wqe_addr(qp, true, (uint16_t)(idx + i)),
				  buf + i * CXIB_SEND_WQE_BB, CXIB_SEND_WQE_BB))
			return -1;
	return 0;
}

static bool cxfw_req_opcode_ok(const struct cxfw_qp *qp, uint8_t op)
{
	bool fre = CXIB_GET(qp->qpc, CXIB_QPC_FRE) || qp->st == CXIB_QPC_ST_REG_UMR;

	if (op == CXIB_WQE_OPCODE_NOP)
		return true;
	if (op == CXIB_WQE_OPCODE_UMR)
		return fre;
	if (qp->st == CXIB_QPC_ST_REG_UMR)
		return false;
	switch (op) {
	case CXIB_WQE_OPCODE_SEND:
	case CXIB_WQE_OPCODE_SEND_IMM:
		return true;
	case CXIB_WQE_OPCODE_LSO:
		return cxfw_qp_ipoib(qp);
	case CXIB_WQE_OPCODE_RDMA_WRITE:
	case CXIB_WQE_OPCODE_RDMA_WRITE_IMM:
		return qp->st == CXIB_QPC_ST_RC || qp->st == CXIB_QPC_ST_UC;
	case CXIB_WQE_OPCODE_SEND_INVAL:
	case CXIB_WQE_OPCODE_RDMA_READ:
	case CXIB_WQE_OPCODE_ATOMIC_CS:
	case CXIB_WQE_OPCODE_ATOMIC_FA:
		return qp->st == CXIB_QPC_ST_RC;
	default:
		return false;
	}
}

/* @n bytes of a WQE rounded up to whole 16-byte units (DS). */
static unsigned int cxfw_req_ds_align(unsigned int n)
{
	return (n + CXIB_WQE_DS_SIZE - 1) & ~(unsigned int)(CXIB_WQE_DS_SIZE - 1);
}

/*
 * Data and inline segments from @off to @end of @wqe into @w's pieces, in WQE order: the
 * message is their concatenation.  The two kinds may be mixed (UCX puts its header inline
 * and its payload behind a pointer); an empty pointer segment adds nothing.  0 or a CQE
 * syndrome.
 */
static uint8_t cxfw_req_parse_data(const uint8_t *wqe, unsigned int off, unsigned int end,
				   struct cxfw_req_wqe *w)
{
	uint32_t ilen = 0;

	w->len = 0;
	w->nsge = 0;
	w->inl = false;
	while (off + CXIB_WQE_DS_SIZE <= end) {
		const __be32 *d = (const __be32 *)(wqe + off);
		struct cxfw_req_sge *s = &w->u.sge[w->nsge];

		if (CXIB_GET(d, CXIB_WQE_INLINE_SEG)) {
			uint32_t n = CXIB_GET(d, CXIB_WQE_INLINE_BYTE_COUNT);

			if (off + CXIB_WQE_INLINE_HDR_SIZE + n > end)
				return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
			memcpy(w->u.data + ilen, wqe + off + CXIB_WQE_INLINE_HDR_SIZE, n);
			*s = (struct cxfw_req_sge){ .len = n, .addr = ilen, .inl = true };
			ilen += n;
			w->inl = true;
			off += cxfw_req_ds_align(CXIB_WQE_INLINE_HDR_SIZE + n);
		} else {
			*s = (struct cxfw_req_sge){ .len = CXIB_GET(d, CXIB_WQE_DATA_BYTE_COUNT),
						    .lkey = CXIB_GET(d, CXIB_WQE_DATA_LKEY),
						    .addr = CXIB_GET64(d, CXIB_WQE_DATA_ADDR) };
			off += CXIB_WQE_DS_SIZE;
		}
		if (s->len) {
			w->len += s->len;
			w->nsge++;
		}
	}
	return 0;
}

static void cxfw_req_parse_av(const uint8_t *seg, const struct cxfw_qp *qp, struct cxfw_req_av *av)
{
	const __be32 *a = (const __be32 *)seg;

	av->qkey = CXIB_GET(a, CXIB_WQE_AV_QKEY);
	if (av->qkey & CXFW_QKEY_CONTROLLED)
		av->qkey = CXIB_GET(qp->qpc, CXIB_QPC_Q_KEY);
	av->dqpn = CXIB_GET(a, CXIB_WQE_AV_DQPN);
	av->sl = (uint8_t)CXIB_GET(a, CXIB_WQE_AV_SL);
	av->dlid = (uint16_t)CXIB_GET(a, CXIB_WQE_AV_RLID);
	av->grh = CXIB_GET(a, CXIB_WQE_AV_GRH);
	av->tclass = (uint8_t)CXIB_GET(a, CXIB_WQE_AV_TCLASS);
	av->hop_limit = (uint8_t)CXIB_GET(a, CXIB_WQE_AV_HOP_LIMIT);
	av->sgid_index = (uint8_t)CXIB_GET(a, CXIB_WQE_AV_SGID_INDEX);
	av->flow_label = CXIB_GET(a, CXIB_WQE_AV_FLOW_LABEL);
	memcpy(av->dgid, seg + CXIB_WQE_AV_RGID_OFFSET, sizeof(av->dgid));
}

/*
 * The pad and Ethernet segment of an IPoIB UD QP's WQE at *@off: the checksum request and,
 * for LSO, the MSS and the inline headers (kept in @w).  0 or a CQE syndrome.
 */
static uint8_t cxfw_req_parse_eth(const uint8_t *wqe, unsigned int *off, unsigned int end,
				  struct cxfw_req_wqe *w)
{
	const uint8_t *e = wqe + *off + CXIB_WQE_ETH_PAD_SIZE;
	unsigned int at = *off + CXIB_WQE_ETH_PAD_SIZE;
	uint32_t sz;

	if (at + sizeof(struct cxib_wqe_eth_seg) > end)
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
	w->cs_flags = (uint8_t)CXIB_GET(e, CXIB_WQE_ETH_CS_FLAGS);
	sz = CXIB_GET(e, CXIB_WQE_ETH_INLINE_HDR_SZ);
	if (w->opcode != CXIB_WQE_OPCODE_LSO) {
		if (sz)		/* headers inline only in an LSO WQE */
			return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		*off = at + sizeof(struct cxib_wqe_eth_seg);
		return 0;
	}
	/* LSO: the headers must be IPoIB + IPv4/IPv6 + TCP, whole */
	if (!sz || sz > sizeof(w->hdr) || at + CXIB_WQE_ETH_INLINE_HDR_OFFSET + sz > end)
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
	memcpy(w->hdr, e + CXIB_WQE_ETH_INLINE_HDR_OFFSET, sz);
	if (!cxfw_ipoib_parse(w->hdr, sz, true, &w->lso))
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
	w->hlen = (uint16_t)sz;
	w->mss = (uint16_t)CXIB_GET(e, CXIB_WQE_ETH_MSS);
	*off = at + cxfw_req_ds_align(CXIB_WQE_ETH_INLINE_HDR_OFFSET + sz);
	return 0;
}

/*
 * Parse the WQE in @wqe (@bbs WQEBBs) into @w.  Returns 0 or the syndrome to complete it
 * with.  PSNs are assigned by the caller.
 */
static uint8_t cxfw_req_parse_wqe(struct cxfw_dev *dev, struct cxfw_qp *qp, const uint8_t *wqe,
				  struct cxfw_req_wqe *w)
{
	const __be32 *c = (const __be32 *)wqe;
	unsigned int end = CXIB_GET(c, CXIB_WQE_CTRL_DS) * CXIB_WQE_DS_SIZE;
	unsigned int off = sizeof(struct cxib_wqe_ctrl_seg);
	uint64_t max_msg;
	uint32_t mtu = cxfw_req_mtu(dev, qp);
	uint8_t st;

	w->fm = (uint8_t)CXIB_GET(c, CXIB_WQE_CTRL_FM);
	w->signaled = CXIB_GET(c, CXIB_WQE_CTRL_CE) == CXIB_WQE_CTRL_CE_CQE_ALWAYS ||
		      CXIB_GET(c, CXIB_WQE_CTRL_CE) == CXIB_WQE_CTRL_CE_CQE_AND_EQE;
	w->se = CXIB_GET(c, CXIB_WQE_CTRL_SE);
	w->imm = CXIB_GET(c, CXIB_WQE_CTRL_IMM);
	if (CXIB_GET(c, CXIB_WQE_CTRL_QPN) != qp->qpn ||
	    CXIB_GET(c, CXIB_WQE_CTRL_WQE_INDEX) != w->idx || !cxfw_req_opcode_ok(qp, w->opcode))
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;

	switch (w->opcode) {
	case CXIB_WQE_OPCODE_NOP:
	case CXIB_WQE_OPCODE_UMR:
		w->local = true;
		return 0;	/* the UMR segments are read when it executes */
	case CXIB_WQE_OPCODE_RDMA_WRITE:
	case CXIB_WQE_OPCODE_RDMA_WRITE_IMM:
	case CXIB_WQE_OPCODE_RDMA_READ:
	case CXIB_WQE_OPCODE_ATOMIC_CS:
	case CXIB_WQE_OPCODE_ATOMIC_FA:
		if (off + sizeof(struct cxib_wqe_raddr_seg) > end)
			return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		w->raddr = CXIB_GET64(wqe + off, CXIB_WQE_RADDR_RADDR);
		w->rkey = CXIB_GET(wqe + off, CXIB_WQE_RADDR_RKEY);
		off += sizeof(struct cxib_wqe_raddr_seg);
		break;
	default:
		if (cxfw_req_st_ud(qp->st)) {
			if (off + CXIB_WQE_AV_SIZE > end)
				return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
			cxfw_req_parse_av(wqe + off, qp, &w->av);
			off += CXIB_WQE_AV_SIZE;
			if (cxfw_qp_ipoib(qp)) {
				st = cxfw_req_parse_eth(wqe, &off, end, w);
				if (st)
					return st;
			}
		}
		break;
	}
	if (w->opcode == CXIB_WQE_OPCODE_ATOMIC_CS || w->opcode == CXIB_WQE_OPCODE_ATOMIC_FA) {
		if (off + sizeof(struct cxib_wqe_atomic_seg) > end)
			return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		w->swap_add = CXIB_GET64(wqe + off, CXIB_WQE_ATOMIC_SWAP_ADD);
		w->compare = CXIB_GET64(wqe + off, CXIB_WQE_ATOMIC_COMPARE);
		off += sizeof(struct cxib_wqe_atomic_seg);
	}
	st = cxfw_req_parse_data(wqe, off, end, w);
	if (st)
		return st;
	w->rd_atomic = w->opcode == CXIB_WQE_OPCODE_RDMA_READ ||
		       w->opcode == CXIB_WQE_OPCODE_ATOMIC_CS ||
		       w->opcode == CXIB_WQE_OPCODE_ATOMIC_FA;
	if (w->rd_atomic && w->inl)
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;	/* a scatter list cannot be inline */
	if (w->opcode == CXIB_WQE_OPCODE_ATOMIC_CS || w->opcode == CXIB_WQE_OPCODE_ATOMIC_FA) {
		if (w->len < sizeof(uint64_t))
			return CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
		w->len = sizeof(uint64_t);
		if (w->raddr & (sizeof(uint64_t) - 1))
			return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
	}
	max_msg = 1ull << CXIB_GET(qp->qpc, CXIB_QPC_LOG_MSG_MAX);
	if (!CXIB_GET(qp->qpc, CXIB_QPC_LOG_MSG_MAX))
		max_msg = 1ull << CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_MSG);
	if (w->hlen) {
		/*
		 * LSO: log_msg_max (12 for the UD QPs mlx5_ib creates) bounds each packet, not
		 * the payload the device cuts up; each packet is the headers and at most MSS
		 * bytes of it.
		 */
		if (!w->mss || w->hlen + (uint32_t)w->mss > mtu ||
		    w->hlen + (uint32_t)w->mss > max_msg || w->len > CXFW_REQ_LSO_MAX_PAYLOAD)
			return CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
		w->npkts = w->len ? (uint32_t)((w->len + w->mss - 1) / w->mss) : 1;
		w->npsn = w->npkts;
		return 0;
	}
	if (w->len > max_msg)
		return CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
	if (cxfw_req_st_ud(qp->st) && w->len > mtu)
		return CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
	if (w->rd_atomic) {
		w->npkts = 1;
		w->npsn = w->opcode == CXIB_WQE_OPCODE_RDMA_READ && w->len > mtu ?
			  (uint32_t)((w->len + mtu - 1) / mtu) : 1;
	} else {
		w->npkts = w->len > mtu ? (uint32_t)((w->len + mtu - 1) / mtu) : 1;
		w->npsn = w->npkts;
	}
	return 0;
}

/* Read newly posted WQEs into the window.  Returns false if the QP went to ERR. */
static bool cxfw_req_fetch(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_req *r = qp->req;
	uint8_t wqe[CXFW_REQ_WQE_BYTES];
	uint32_t ring = 1u << qp->log_sq;
	uint16_t avail;
	__be32 db[2];

	if (!r->db || r->stopped)
		return true;
	if (cxfw_dma_read(dev, qp->dbr, db, sizeof(db))) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: QP 0x%x: doorbell record unreadable", qp->qpn);
		cxfw_stat_add(dev, &dev->stats.dma_errors, 1);
		r->db = false;
		return true;
	}
	avail = (uint16_t)(CXIB_GET(db, CXIB_QP_DB_SND_COUNTER) - r->sq_next);
	if (avail > ring) {	/* more than the ring holds: the counter is garbage */
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: QP 0x%x: send counter %u beyond the ring",
			 qp->qpn, CXIB_GET(db, CXIB_QP_DB_SND_COUNTER));
		r->db = false;
		return true;
	}
	while (avail && r->count < CXFW_REQ_WINDOW) {
		struct cxfw_req_wqe *w = cxfw_req_win(r, r->count);
		unsigned int ds, bbs;
		uint8_t st = 0;

		memset(w, 0, offsetof(struct cxfw_req_wqe, u));
		w->idx = r->sq_next;
		if (cxfw_req_sq_read(dev, qp, r->sq_next, 1, wqe)) {
			cxfw_stat_add(dev, &dev->stats.dma_errors, 1);
			st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
			bbs = 1;
		} else {
			ds = CXIB_GET(wqe, CXIB_WQE_CTRL_DS);
			bbs = (ds * CXIB_WQE_DS_SIZE + CXIB_SEND_WQE_BB - 1) / CXIB_SEND_WQE_BB;
			w->opcode = (uint8_t)CXIB_GET(wqe, CXIB_WQE_CTRL_OPCODE);
			if (!ds || bbs > CXIB_MAX_WQE_BBS || bbs > avail) {
				/* the WQE's extent is unknown or not all posted: take what is */
				st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
				bbs = !ds || bbs > CXIB_MAX_WQE_BBS ? 1 : avail;
			} else if (bbs > 1 && cxfw_req_sq_read(dev, qp, (uint16_t)(r->sq_next + 1),
							    bbs - 1, wqe + CXIB_SEND_WQE_BB)) {
				cxfw_stat_add(dev, &dev->stats.dma_errors, 1);
				st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
			}
		}
		w->bbs = (uint16_t)bbs;
		if (!st)
			st = cxfw_req_parse_wqe(dev, qp, wqe, w);
		if (st) {	/* what a driver author needs to see; a user can trigger it */
			const __be32 *c = (const __be32 *)wqe;

			cxfw_log(dev, CXFW_LOG_DEBUG,
				 "cxfw: QP 0x%x WQE %u (%u of %u WQEBBs posted): syndrome 0x%02x, "
				 "ctrl %08x %08x %08x %08x", qp->qpn, w->idx, bbs, avail, st,
				 cxib_be32_to_host(c[0]), cxib_be32_to_host(c[1]),
				 cxib_be32_to_host(c[2]), cxib_be32_to_host(c[3]));
		}
		if (!st && w->opcode == CXIB_WQE_OPCODE_UMR) {
			/* keep the raw WQE: the UMR segments are applied when it executes */
			const uint8_t *uc = wqe + sizeof(struct cxib_wqe_ctrl_seg);
			const uint8_t *mk = uc + sizeof(struct cxib_wqe_umr_ctrl_seg);

			memcpy(w->u.data, wqe, (size_t)bbs * CXIB_SEND_WQE_BB);
			w->linv = CXIB_GET(mk, CXIB_WQE_MKEY_FREE) &&
				  CXIB_GET64(uc, CXIB_WQE_UMR_MKEY_MASK) ==
				  CXIB_UMR_MKEY_MASK_FREE;
		}
		/* keep every outstanding PSN well inside the comparable half of the space */
		if (!st && !w->local && r->count &&
		    cxfw_req_psn_diff(cxfw_req_psn_add(r->next_psn, w->npsn), cxfw_req_una(r)) >
		    CXFW_REQ_MAX_PSN_SPAN)
			break;		/* fetched again once older WQEs complete */
		r->sq_next = (uint16_t)(r->sq_next + bbs);
		avail = (uint16_t)(avail - bbs);
		r->count++;
		if (st) {
			cxfw_req_fail(w, r, st);
			break;
		}
		w->first_psn = r->next_psn;
		if (!w->local)
			r->next_psn = cxfw_req_psn_add(r->next_psn, w->npsn);
	}
	if (!avail)
		r->db = false;
	return true;
}

/* ---- local operations ---------------------------------------------------------------- */

static unsigned int cxfw_req_umr_access(uint8_t flags)
{
	__be32 dw = cxib_host_to_be32((uint32_t)flags << 8);

	return (CXIB_GET(&dw, CXIB_WQE_MKEY_LR) ? CXFW_ACCESS_LOCAL_READ : 0) |
	       (CXIB_GET(&dw, CXIB_WQE_MKEY_LW) ? CXFW_ACCESS_LOCAL_WRITE : 0) |
	       (CXIB_GET(&dw, CXIB_WQE_MKEY_RR) ? CXFW_ACCESS_REMOTE_READ : 0) |
	       (CXIB_GET(&dw, CXIB_WQE_MKEY_RW) ? CXFW_ACCESS_REMOTE_WRITE : 0) |
	       (CXIB_GET(&dw, CXIB_WQE_MKEY_A) ? CXFW_ACCESS_REMOTE_ATOMIC : 0);
}

/* Execute the UMR WQE kept raw in @w; 0 or a CQE syndrome. */
static uint8_t cxfw_req_umr(struct cxfw_dev *dev, struct cxfw_qp *qp, struct cxfw_req_wqe *w)
{
	const uint8_t *wqe = w->u.data;
	unsigned int end = CXIB_GET(wqe, CXIB_WQE_CTRL_DS) * CXIB_WQE_DS_SIZE;
	unsigned int off = sizeof(struct cxib_wqe_ctrl_seg);
	const __be32 *uc = (const __be32 *)(wqe + off);
	const __be32 *mk = (const __be32 *)(wqe + off + sizeof(struct cxib_wqe_umr_ctrl_seg));
	struct cxfw_umr u;
	uint64_t *xlt = NULL;
	uint32_t n, k;
	uint8_t st;

	off += sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg);
	if (off > end)
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
	memset(&u, 0, sizeof(u));
	u.key = w->imm;
	u.flags = (uint8_t)CXIB_GET(uc, CXIB_WQE_UMR_FLAGS);
	u.mask = CXIB_GET64(uc, CXIB_WQE_UMR_MKEY_MASK);
	/* the offset counts octowords of the table; entries are 8 bytes */
	if (u.flags & CXIB_UMR_TRANSLATION_OFFSET_EN)
		u.xlt_offset = ((uint64_t)CXIB_GET(uc, CXIB_WQE_UMR_XLT_OFFSET_47_16) << 16 |
				CXIB_GET(uc, CXIB_WQE_UMR_XLT_OFFSET)) * CXIB_MTT_PER_OCTWORD;
	n = CXIB_GET(uc, CXIB_WQE_UMR_XLT_OCTOWORDS) * CXIB_MTT_PER_OCTWORD;
	u.free = CXIB_GET(mk, CXIB_WQE_MKEY_FREE);
	u.access = cxfw_req_umr_access((uint8_t)CXIB_GET(mk, CXIB_WQE_MKEY_FLAGS));
	u.qpn = CXIB_GET(mk, CXIB_WQE_MKEY_QPN);
	u.length64 = CXIB_GET(mk, CXIB_WQE_MKEY_LENGTH64);
	u.en_rinval = CXIB_GET(mk, CXIB_WQE_MKEY_EN_RINVAL);
	u.pd = CXIB_GET(mk, CXIB_WQE_MKEY_PD);
	u.start = CXIB_GET64(mk, CXIB_WQE_MKEY_START_ADDR);
	u.len = CXIB_GET64(mk, CXIB_WQE_MKEY_LEN);
	u.log_page_size = (uint8_t)CXIB_GET(mk, CXIB_WQE_MKEY_LOG2_PAGE_SIZE);
	if ((u.mask & CXIB_UMR_MKEY_MASK_KEY) &&
	    CXIB_GET(mk, CXIB_WQE_MKEY_MKEY_7_0) != CXIB_MKEY_VARIANT(u.key))
		return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;

	/* LOCAL_INV in its UMR form: only the free bit changes, to free */
	if (u.mask == CXIB_UMR_MKEY_MASK_FREE && u.free && !n)
		return cxfw_mkey_invalidate(dev, u.key, qp->pd, false);

	if (n) {
		if (n > CXFW_REQ_MAX_UMR_XLT)
			return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		xlt = malloc((size_t)n * sizeof(*xlt));
		if (!xlt)
			return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		if (u.flags & CXIB_UMR_INLINE) {
			if (off + (uint64_t)n * CXIB_MTT_ENTRY_SIZE > end) {
				free(xlt);
				return CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
			}
			memcpy(xlt, wqe + off, (size_t)n * CXIB_MTT_ENTRY_SIZE);
		} else {
			/* a data segment pointing at the translation list */
			const __be32 *d = (const __be32 *)(wqe + off);
			uint64_t got = 0, total = (uint64_t)n * CXIB_MTT_ENTRY_SIZE;

			st = off + CXIB_WQE_DS_SIZE > end ? CXIB_CQE_SYND_LOCAL_QP_OP_ERR : 0;
			if (!st && CXIB_GET(d, CXIB_WQE_DATA_BYTE_COUNT) < total)
				st = CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
			while (!st && got < total) {	/* a page at a time: any key layout */
				uint64_t chunk = total - got < CXIB_ADAPTER_PAGE_SIZE ?
						 total - got : CXIB_ADAPTER_PAGE_SIZE;
				struct cxfw_sg sg[4];
				unsigned int nsg = 0, i;

				st = cxfw_mkey_translate(dev, CXIB_GET(d, CXIB_WQE_DATA_LKEY),
							 cxfw_req_qp_key_pd(qp),
							 CXFW_ACCESS_LOCAL_READ,
							 CXIB_GET64(d, CXIB_WQE_DATA_ADDR) + got, chunk,
							 sg, 4, &nsg);
				for (i = 0; !st && i < nsg; i++) {
					if (cxfw_dma_read(dev, sg[i].addr,
							  (uint8_t *)xlt + got, sg[i].len))
						st = CXIB_CQE_SYND_LOCAL_PROT_ERR;
					got += sg[i].len;
				}
			}
			if (st) {
				free(xlt);
				return st;
			}
			cxfw_stat_add(dev, &dev->stats.dma_read_bytes, got);
		}
		for (k = 0; k < n; k++)		/* entries are big-endian */
			xlt[k] = CXIB_GET64(&xlt[k], CXIB_MTT_ENTRY_PTAG);
	}
	u.nxlt = n;
	u.xlt = xlt;
	st = cxfw_mkey_umr(dev, qp->st == CXIB_QPC_ST_REG_UMR ? 0 : qp->pd, &u);
	free(xlt);
	return st;
}

/* ---- building and sending packets -------------------------------------------------- */

/* Fill the LRH/GRH/BTH addressing of a packet of @qp (UD: from @av). */
static unsigned int cxfw_req_addr(struct cxfw_dev *dev, const struct cxfw_qp *qp,
				  const struct cxfw_req_av *av, struct cxfw_pkt *p)
{
	const __be32 *pp = cxfw_req_qp_path(qp);
	unsigned int port = cxfw_req_qp_port(qp), pki = CXIB_GET(pp, CXIB_ADS_PKEY_INDEX);

	if (av) {
		p->dlid = av->dlid;
		p->sl = av->sl;
		p->grh = av->grh;
		p->tclass = av->tclass;
		p->hop_limit = av->hop_limit;
		p->flow_label = av->flow_label;
		memcpy(p->dgid, av->dgid, sizeof(p->dgid));
		p->dqpn = av->dqpn;
	} else {
		p->dlid = (uint16_t)CXIB_GET(pp, CXIB_ADS_RLID);
		p->sl = (uint8_t)CXIB_GET(pp, CXIB_ADS_SL);
		p->grh = CXIB_GET(pp, CXIB_ADS_GRH);
		p->tclass = (uint8_t)CXIB_GET(pp, CXIB_ADS_TCLASS);
		p->hop_limit = (uint8_t)CXIB_GET(pp, CXIB_ADS_HOP_LIMIT);
		p->flow_label = CXIB_GET(pp, CXIB_ADS_FLOW_LABEL);
		memcpy(p->dgid, (const uint8_t *)pp + CXIB_ADS_RGID_OFFSET, sizeof(p->dgid));
		p->dqpn = CXIB_GET(qp->qpc, CXIB_QPC_REMOTE_QPN);
	}
	p->vl = qp->st == CXIB_QPC_ST_QP0 ? CXIB_VL_SMP : CXIB_VL_DATA_0;
	p->migreq = CXIB_GET(qp->qpc, CXIB_QPC_PM_STATE) == CXIB_QPC_PM_STATE_MIGRATED;
	if (port >= 1 && port <= dev->cfg.num_ports) {
		pthread_mutex_lock(&dev->lock);
		if (pki < CXFW_PKEY_TABLE_LEN)
			p->pkey = dev->ports[port - 1].pkeys[pki];
		if (p->grh) {	/* SGID: the port's GID 0 (prefix + port GUID) */
			CXIB_SET64(p->sgid, CXIB_GID_PREFIX, dev->ports[port - 1].gid_prefix);
			CXIB_SET64(p->sgid, CXIB_GID_GUID, cxfw_port_guid(dev, port));
		}
		pthread_mutex_unlock(&dev->lock);
	}
	return port;
}

/*
 * Move [off, off + n) of @w's message between @buf and the SGEs, through their lkeys:
 * gather (local read, guest -> @buf) or scatter (local write, @buf -> guest).  0 or a CQE
 * syndrome.
 */
static uint8_t cxfw_req_sge_copy(struct cxfw_dev *dev, const struct cxfw_qp *qp,
				 const struct cxfw_req_wqe *w, uint64_t off, uint32_t n,
				 uint8_t *buf, bool scatter)
{
	unsigned int access = scatter ? CXFW_ACCESS_LOCAL_WRITE : CXFW_ACCESS_LOCAL_READ;
	uint32_t done = 0;
	unsigned int i;

	for (i = 0; i < w->nsge && done < n; i++) {
		const struct cxfw_req_sge *s = &w->u.sge[i];
		struct cxfw_sg sg[4];
		unsigned int nsg, k;
		uint32_t chunk;
		uint8_t st;

		if (off >= s->len) {
			off -= s->len;
			continue;
		}
		chunk = s->len - off < n - done ? (uint32_t)(s->len - off) : n - done;
		if (s->inl) {	/* never scattered into: READ and atomics refuse inline data */
			memcpy(buf + done, w->u.data + s->addr + off, chunk);
			done += chunk;
			off = 0;
			continue;
		}
		st = cxfw_mkey_translate(dev, s->lkey, cxfw_req_qp_key_pd(qp), access,
					 s->addr + off, chunk, sg, 4, &nsg);
		if (st)
			return st;
		for (k = 0; k < nsg; k++) {
			int err = scatter ?
				cxfw_dma_write(dev, sg[k].addr, buf + done, sg[k].len) :
				cxfw_dma_read(dev, sg[k].addr, buf + done, sg[k].len);

			if (err) {
				cxfw_stat_add(dev, &dev->stats.dma_errors, 1);
				return CXIB_CQE_SYND_LOCAL_PROT_ERR;
			}
			done += sg[k].len;
		}
		off = 0;
	}
	cxfw_stat_add(dev, scatter ? &dev->stats.dma_write_bytes : &dev->stats.dma_read_bytes,
		      done);
	return done == n ? 0 : CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
}

/* Gather [off, off + n) of @w's message into @buf: inline bytes and SGEs (local read). */
static uint8_t cxfw_req_gather(struct cxfw_dev *dev, const struct cxfw_qp *qp,
			       const struct cxfw_req_wqe *w, uint64_t off, uint32_t n, uint8_t *buf)
{
	return cxfw_req_sge_copy(dev, qp, w, off, n, buf, false);
}

/* Scatter @n bytes at message offset @off into @w's SGEs (local write).  0 or syndrome. */
static uint8_t cxfw_req_scatter(struct cxfw_dev *dev, const struct cxfw_qp *qp,
				const struct cxfw_req_wqe *w, uint64_t off, uint32_t n,
				const uint8_t *buf)
{
	return cxfw_req_sge_copy(dev, qp, w, off, n, (uint8_t *)buf, true);
}

/* The BTH opcode of packet @k of @w (class | operation). */
static uint8_t cxfw_req_pkt_opcode(const struct cxfw_qp *qp, const struct cxfw_req_wqe *w,
				   uint32_t k)
{
	/* UD: every packet is a message (an LSO WQE's segments too) */
	bool first = k == 0 || cxfw_req_st_ud(qp->st);
	bool last = k + 1 == w->npkts || cxfw_req_st_ud(qp->st);
	uint8_t cls = qp->st == CXIB_QPC_ST_UC ? CXIB_BTH_OP_CLASS_UC :
		      cxfw_req_st_ud(qp->st) ? CXIB_BTH_OP_CLASS_UD : CXIB_BTH_OP_CLASS_RC;
	uint8_t op;

	switch (w->opcode) {
	case CXIB_WQE_OPCODE_RDMA_WRITE:
	case CXIB_WQE_OPCODE_RDMA_WRITE_IMM: {
		bool imm = w->opcode == CXIB_WQE_OPCODE_RDMA_WRITE_IMM;

		if (first && last)
			op = imm ? CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM : CXIB_BTH_OP_RDMA_WRITE_ONLY;
		else if (first)
			op = CXIB_BTH_OP_RDMA_WRITE_FIRST;
		else if (last)
			op = imm ? CXIB_BTH_OP_RDMA_WRITE_LAST_IMM : CXIB_BTH_OP_RDMA_WRITE_LAST;
		else
			op = CXIB_BTH_OP_RDMA_WRITE_MIDDLE;
		break;
	}
	case CXIB_WQE_OPCODE_RDMA_READ:
		op = CXIB_BTH_OP_RDMA_READ_REQUEST;
		break;
	case CXIB_WQE_OPCODE_ATOMIC_CS:
		op = CXIB_BTH_OP_COMPARE_SWAP;
		break;
	case CXIB_WQE_OPCODE_ATOMIC_FA:
		op = CXIB_BTH_OP_FETCH_ADD;
		break;
	default: {
		bool imm = w->opcode == CXIB_WQE_OPCODE_SEND_IMM;
		bool inv = w->opcode == CXIB_WQE_OPCODE_SEND_INVAL;

		if (first && last)
			op = imm ? CXIB_BTH_OP_SEND_ONLY_IMM :
			     inv ? CXIB_BTH_OP_SEND_ONLY_INV : CXIB_BTH_OP_SEND_ONLY;
		else if (first)
			op = CXIB_BTH_OP_SEND_FIRST;
		else if (last)
			op = imm ? CXIB_BTH_OP_SEND_LAST_IMM :
			     inv ? CXIB_BTH_OP_SEND_LAST_INV : CXIB_BTH_OP_SEND_LAST;
		else
			op = CXIB_BTH_OP_SEND_MIDDLE;
		break;
	}
	}
	return cls | op;
}

/* Send request packet @k of @w (READ / atomic: the request); 0 or a CQE syndrome. */
static uint8_t cxfw_req_send_pkt(struct cxfw_dev *dev, struct cxfw_qp *qp,
				 struct cxfw_req_wqe *w, uint32_t k)
{
	uint8_t buf[CXIB_PKT_MAX_PAYLOAD];
	uint32_t mtu = cxfw_req_mtu(dev, qp);
	struct cxfw_pkt p;
	unsigned int port;
	bool last = k + 1 == w->npkts;
	uint8_t st;

	memset(&p, 0, sizeof(p));
	port = cxfw_req_addr(dev, qp, cxfw_req_st_ud(qp->st) ? &w->av : NULL, &p);
	p.opcode = cxfw_req_pkt_opcode(qp, w, k);
	p.psn = cxfw_req_psn_add(w->first_psn, k);
	if (w->opcode == CXIB_WQE_OPCODE_RDMA_READ) {
		uint64_t done = (uint64_t)w->acked * mtu;	/* partial re-read (3.5) */

		p.psn = cxfw_req_psn_add(w->first_psn, w->acked);
		p.reth_va = w->raddr + done;
		p.reth_rkey = w->rkey;
		p.reth_len = (uint32_t)(w->len - done);
	} else if (w->rd_atomic) {
		p.atomic_va = w->raddr;
		p.atomic_rkey = w->rkey;
		p.atomic_swap_add = w->swap_add;
		p.atomic_compare = w->compare;
	} else {
		uint32_t step = w->hlen ? w->mss : mtu;	/* LSO: MSS bytes behind the headers */
		uint64_t off = (uint64_t)k * step;
		uint32_t n = w->len - off < step ? (uint32_t)(w->len - off) : step;

		memcpy(buf, w->hdr, w->hlen);
		st = cxfw_req_gather(dev, qp, w, off, n, buf + w->hlen);
		if (st)
			return st;
		if (w->hlen) {
			cxfw_ipoib_lso_fixup(buf, &w->lso, k, w->mss, n, last);
			cxfw_stat_add(dev, &dev->stats.lso_segments, 1);
		} else if (w->cs_flags) {
			cxfw_ipoib_tx_csum(buf, n, w->cs_flags);
			cxfw_stat_add(dev, &dev->stats.tx_csum_offloads, 1);
		}
		p.payload = buf;
		p.paylen = w->hlen + n;
		if (k == 0) {
			p.reth_va = w->raddr;
			p.reth_rkey = w->rkey;
			p.reth_len = (uint32_t)w->len;
		}
		if (last) {
			p.se = w->se && w->opcode != CXIB_WQE_OPCODE_RDMA_WRITE;
			p.imm = w->imm;
			p.ieth_rkey = w->imm;
		}
	}
	if (cxfw_req_st_ud(qp->st)) {
		uint32_t sqpn = CXIB_GET(qp->qpc, CXIB_QPC_DETH_SQPN);

		p.deth_qkey = w->av.qkey;
		p.deth_sqpn = qp->st == CXIB_QPC_ST_QP0 ? CXIB_QP0 :
			      qp->st == CXIB_QPC_ST_QP1 ? CXIB_QP1 : sqpn ? sqpn : qp->qpn;
		p.imm = w->imm;
	} else if (qp->st == CXIB_QPC_ST_RC) {
		p.ackreq = last || w->rd_atomic || !((k + 1) % CXFW_REQ_ACKREQ_PKTS);
	}
	if (cxfw_req_psn_diff(p.psn, qp->req->hi_psn) < 0)
		cxfw_stat_add(dev, &dev->stats.retransmits, 1);
	else
		qp->req->hi_psn = cxfw_req_psn_add(p.psn, 1);
	cxfw_wire_send(dev, port, &p);	/* a drop is recovered like a lost packet */
	return 0;
}

/* Oldest unacknowledged PSN (the head WQE's next expected one). */
static uint32_t cxfw_req_una(const struct cxfw_req *r)
{
	unsigned int i;

	for (i = 0; i < r->count; i++) {
		const struct cxfw_req_wqe *w = &r->win[(r->head + i) % CXFW_REQ_WINDOW];

		if (!w->local && !w->done)
			return cxfw_req_psn_add(w->first_psn, w->acked);
	}
	return r->next_psn;
}

/* May @w (window position @pos) start now: fence and READ/ATOMIC limit. */
static bool cxfw_req_may_start(const struct cxfw_qp *qp, unsigned int pos,
			       const struct cxfw_req_wqe *w)
{
	const struct cxfw_req *r = qp->req;
	/*
	 * mlx5_ib: LOCAL_INV / REG_MR carry STRONG_ORDERING (wait for every older WQE); a
	 * LOCAL_INV waits so whatever fm says (IBA 10.6.5.1, the local invalidate fence);
	 * IB_SEND_FENCE gives FENCE (wait for older READ/ATOMICs),
	 * and the WQE after a UMR gets INITIATOR_SMALL: it must see the UMR's effect, which
	 * in-order execution of local operations already gives.
	 */
	bool all = w->fm == CXIB_WQE_FM_STRONG_ORDERING || w->linv;
	bool rd = w->fm == CXIB_WQE_FM_FENCE ||
		  w->fm == CXIB_WQE_FM_FENCE_AND_INITIATOR_SMALL_FENCE;
	unsigned int i;

	for (i = 0; i < pos; i++) {
		const struct cxfw_req_wqe *o = &r->win[(r->head + i) % CXFW_REQ_WINDOW];

		if (!o->done && (all || (rd && o->rd_atomic)))
			return false;
	}
	if (w->rd_atomic &&
	    r->rd_atomic >= (1u << CXIB_GET(qp->qpc, CXIB_QPC_LOG_SRA_MAX)))
		return false;
	return true;
}

/* Check every SGE of @w against its key before the first packet; 0 or a syndrome. */
static uint8_t cxfw_req_check_keys(struct cxfw_dev *dev, const struct cxfw_qp *qp,
				   const struct cxfw_req_wqe *w)
{
	unsigned int access = w->rd_atomic ? CXFW_ACCESS_LOCAL_WRITE : CXFW_ACCESS_LOCAL_READ;
	uint64_t need = w->len;
	unsigned int i, nsg;
	uint8_t st;

	for (i = 0; i < w->nsge && need; i++) {
		uint64_t n = w->u.sge[i].len < need ? w->u.sge[i].len : need;

		need -= n;
		if (w->u.sge[i].inl)
			continue;
		st = cxfw_mkey_translate(dev, w->u.sge[i].lkey, cxfw_req_qp_key_pd(qp), access,
					 w->u.sge[i].addr, n, NULL, 0, &nsg);
		if (st)
			return st;
	}
	return 0;
}

/*
 * Fetch, start and send what the window allows, at most @budget units of work: a packet
 * sent, or a local WQE (NOP, UMR) executed.  Returns the units done, or -1 if the QP went
 * to ERR.  A caller that gets all of @budget back kicks the worker for more: a window of
 * local WQEs sends nothing, and must not wait for the next tick to make room for the rest
 * of the ring (mlx5_ib's write-combining test posts 256 NOPs and polls for 100 ms).
 */
static int cxfw_req_send(struct cxfw_dev *dev, struct cxfw_qp *qp, uint64_t now,
			 unsigned int budget)
{
	struct cxfw_req *r = qp->req;
	bool rc = qp->st == CXIB_QPC_ST_RC, sqd;
	unsigned int i, sent = 0;

	pthread_mutex_lock(&dev->lock);
	sqd = qp->state != CXIB_QPC_STATE_RTS;
	pthread_mutex_unlock(&dev->lock);
	if (!r->win)
		return 0;
	if (!sqd && !cxfw_req_fetch(dev, qp))
		return -1;
	if (r->rnr_deadline)
		return cxfw_req_complete(dev, qp) ? 0 : -1;
	for (i = 0; i < r->count; i++) {
		struct cxfw_req_wqe *w = cxfw_req_win(r, i);
		uint8_t st;

		if (w->synd)
			break;
		if (w->done)
			continue;
		if (!w->started) {
			if (sqd || !cxfw_req_may_start(qp, i, w))
				break;
			if (w->local && sent == budget)
				break;
			cxfw_stat_add(dev, &dev->stats.send_wqes, 1);
			if (w->hlen)
				cxfw_stat_add(dev, &dev->stats.lso_wqes, 1);
			if (w->local) {
				st = w->opcode == CXIB_WQE_OPCODE_UMR ?
				     cxfw_req_umr(dev, qp, w) : 0;
				if (st) {
					const uint8_t *uc = w->u.data + sizeof(struct cxib_wqe_ctrl_seg);

					cxfw_log(dev, CXFW_LOG_DEBUG,
						 "cxfw: QP 0x%x UMR WQE %u on key 0x%x: syndrome 0x%02x, "
						 "flags 0x%02x, mask 0x%llx, %u octowords",
						 qp->qpn, w->idx, w->imm, st,
						 CXIB_GET(uc, CXIB_WQE_UMR_FLAGS),
						 (unsigned long long)CXIB_GET64(uc, CXIB_WQE_UMR_MKEY_MASK),
						 CXIB_GET(uc, CXIB_WQE_UMR_XLT_OCTOWORDS));
					cxfw_req_fail(w, r, st);
				}
				w->done = true;
				sent++;
				if (st)
					break;
				continue;
			}
			st = cxfw_req_check_keys(dev, qp, w);
			if (st) {
				cxfw_req_fail(w, r, st);
				break;
			}
			w->started = true;
			if (w->rd_atomic)
				r->rd_atomic++;
		}
		while (w->sent < w->npkts) {
			uint32_t psn = cxfw_req_psn_add(w->first_psn,
							w->rd_atomic ? w->acked : w->sent);

			if (rc && cxfw_req_psn_diff(psn, cxfw_req_una(r)) >= CXFW_REQ_MAX_UNACKED)
				goto out;
			if (sent == budget)
				goto out;
			/* no link credits: wait for the cable to drain (a later cxfw_process()) */
			if (cxfw_wire_port_busy(dev, cxfw_req_qp_port(qp)))
				goto out;
			st = cxfw_req_send_pkt(dev, qp, w, w->sent);
			if (st) {
				cxfw_req_fail(w, r, st);
				goto out;
			}
			w->sent++;
			sent++;
			if (rc && !r->ack_deadline) {
				uint64_t t = cxfw_req_ack_timeout_ns(qp);

				r->ack_deadline = t ? cxfw_req_ack_clock(dev, qp, now) + t : 0;
			}
		}
		if (!rc)
			w->done = true;		/* UC / UD: complete once sent */
	}
out:
	if (!cxfw_req_complete(dev, qp))
		return -1;
	return (int)sent;
}

void cxfw_req_doorbell(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	if (!qp->req->active)
		return;
	qp->req->db = true;
	if (cxfw_req_send(dev, qp, cxfw_now(dev), CXFW_REQ_QP_BUDGET) ==
	    (int)CXFW_REQ_QP_BUDGET)
		dev->plat.kick(dev->plat.opaque);
}

/* ---- retry --------------------------------------------------------------------------- */

/* Go back N: send again from @psn (everything before it is acknowledged). */
static void cxfw_req_go_back(struct cxfw_qp *qp, uint32_t psn)
{
	struct cxfw_req *r = qp->req;
	unsigned int i;

	for (i = 0; i < r->count; i++) {
		struct cxfw_req_wqe *w = cxfw_req_win(r, i);
		int32_t d = cxfw_req_psn_diff(psn, w->first_psn);

		if (w->local || w->done || !w->started)
			continue;
		w->resp_in_pass = false;
		if (w->rd_atomic) {
			w->sent = 0;		/* the request again, from what arrived */
			continue;
		}
		if (d > 0 && (uint32_t)d < w->npkts) {
			/*
			 * Everything before @psn arrived (IBTA vol 1 ch. 9: a NAK acknowledges
			 * what precedes it), perhaps in an earlier pass than the current one:
			 * resume exactly there, neither before (duplicates) nor after.
			 */
			w->sent = (uint32_t)d;
			if (w->acked < (uint32_t)d)
				w->acked = (uint32_t)d;
		} else if (d <= 0) {
			w->sent = 0;
		}
	}
}

/* Retry budget for one more go-back; false (and the head WQE failed) if exhausted. */
static bool cxfw_req_retry(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	struct cxfw_req *r = qp->req;

	if (!r->retry_left) {
		struct cxfw_req_wqe *w = cxfw_req_win(r, 0);

		cxfw_stat_add(dev, &dev->stats.retry_exceeded, 1);
		cxfw_req_fail(w, r, CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR);
		return false;
	}
	r->retry_left--;
	return true;
}

/* Forward progress: counters back to the QP's, timer restarted or stopped. */
static void cxfw_req_progress(struct cxfw_dev *dev, struct cxfw_qp *qp, uint64_t now)
{
	struct cxfw_req *r = qp->req;
	uint64_t t = cxfw_req_ack_timeout_ns(qp);
	bool unacked = false;
	unsigned int i;

	cxfw_req_reset_counters(qp);
	r->retrying = false;
	for (i = 0; i < r->count && !unacked; i++) {
		const struct cxfw_req_wqe *w = cxfw_req_win(r, i);

		unacked = !w->local && !w->done && w->started && (w->sent || w->acked);
	}
	r->ack_deadline = unacked && t ? cxfw_req_ack_clock(dev, qp, now) + t : 0;
}

/* ---- responses ------------------------------------------------------------------------- */

static uint8_t cxfw_req_nak_synd(uint8_t code)
{
	switch (code) {
	case CXIB_AETH_NAK_INVALID_REQ:
		return CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR;
	case CXIB_AETH_NAK_REMOTE_ACCESS_ERR:
		return CXIB_CQE_SYND_REMOTE_ACCESS_ERR;
	default:
		return CXIB_CQE_SYND_REMOTE_OP_ERR;
	}
}

/*
 * A NAK / RNR NAK in an AETH at @psn, against head WQE @w.  Everything before @psn is
 * acknowledged by it.
 */
static void cxfw_req_nak(struct cxfw_dev *dev, struct cxfw_qp *qp, struct cxfw_req_wqe *w,
			 uint8_t synd, uint32_t psn, uint64_t now)
{
	struct cxfw_req *r = qp->req;
	int32_t d = cxfw_req_psn_diff(psn, w->first_psn);

	pthread_mutex_lock(&dev->lock);
	dev->stats.naks_received++;
	if (CXIB_AETH_SYND_TYPE(synd) == CXIB_AETH_TYPE_RNR_NAK)
		dev->stats.rnr_naks_received++;
	pthread_mutex_unlock(&dev->lock);
	if (!w->rd_atomic && d > 0 && (uint32_t)d > w->acked && (uint32_t)d < w->npsn) {
		/*
		 * Forward progress (IBTA vol 1 ch. 9, requester side: a NAK acknowledges
		 * every packet before its PSN): the retry counters start again, and the
		 * go-back below is a new one, not a repeat of one already under way.
		 */
		w->acked = (uint32_t)d;
		cxfw_req_progress(dev, qp, now);
	}

	if (CXIB_AETH_SYND_TYPE(synd) == CXIB_AETH_TYPE_RNR_NAK) {
		if (CXIB_GET(qp->qpc, CXIB_QPC_RNR_RETRY) != CXFW_RNR_RETRY_INFINITE) {
			if (!r->rnr_left) {
				cxfw_stat_add(dev, &dev->stats.rnr_retry_exceeded, 1);
				cxfw_req_fail(w, r, CXIB_CQE_SYND_RNR_RETRY_EXC_ERR);
				return;
			}
			r->rnr_left--;
		}
		r->rnr_deadline = now + cxfw_req_rnr_10us[CXIB_AETH_SYND_VALUE(synd)] *
					CXFW_NS_PER_10US;
		if (!r->rnr_deadline)
			r->rnr_deadline = 1;
		r->rnr_psn = psn;
		r->ack_deadline = 0;
		return;
	}
	if (CXIB_AETH_SYND_VALUE(synd) == CXIB_AETH_NAK_PSN_SEQ_ERR) {
		cxfw_stat_add(dev, &dev->stats.packet_seq_err, 1);
		if (r->retrying)
			return;
		if (!cxfw_req_retry(dev, qp))
			return;
		r->retrying = true;
		cxfw_req_go_back(qp, psn);
		return;
	}
	cxfw_req_fail(w, r, cxfw_req_nak_synd((uint8_t)CXIB_AETH_SYND_VALUE(synd)));
}

/*
 * The 8 bytes an atomic's original value is stored as: big-endian unless the driver set the
 * atomic capability req_8B_endianness_mode to host order, then in the order the responder
 * uses for memory (resp.c), which the driver sets through the HOST_ENDIANNESS register.
 */
static void cxfw_req_atomic_bytes(struct cxfw_dev *dev, uint64_t v, uint8_t b[8])
{
	bool be;
	unsigned int i;

	pthread_mutex_lock(&dev->lock);
	be = CXIB_GET(dev->atomic_cap_cur.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE) !=
	     CXIB_ATOMIC_REQ_MODE_HOST || dev->host_endianness == CXIB_HOST_ENDIANNESS_BIG;
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < sizeof(uint64_t); i++)
		b[be ? sizeof(uint64_t) - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static bool cxfw_req_op_read_resp(uint8_t op)
{
	return op == CXIB_BTH_OP_RDMA_READ_RESP_FIRST || op == CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE ||
	       op == CXIB_BTH_OP_RDMA_READ_RESP_LAST || op == CXIB_BTH_OP_RDMA_READ_RESP_ONLY;
}

/* A response for the head WQE @w (PSN within it).  Returns true if @w progressed. */
static bool cxfw_req_resp(struct cxfw_dev *dev, struct cxfw_qp *qp, struct cxfw_req_wqe *w,
			  const struct cxfw_pkt *p, uint8_t op, uint64_t now)
{
	struct cxfw_req *r = qp->req;
	int32_t e = cxfw_req_psn_diff(p->psn, cxfw_req_psn_add(w->first_psn, w->acked));
	bool has_aeth = op != CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE;
	uint32_t mtu = cxfw_req_mtu(dev, qp);
	uint8_t st;

	if (has_aeth && CXIB_AETH_SYND_TYPE(p->aeth_synd) != CXIB_AETH_TYPE_ACK) {
		if (e >= 0 || CXIB_AETH_SYND_TYPE(p->aeth_synd) == CXIB_AETH_TYPE_NAK)
			cxfw_req_nak(dev, qp, w, p->aeth_synd, p->psn, now);
		return false;
	}
	if (op == CXIB_BTH_OP_ACKNOWLEDGE) {
		if (w->rd_atomic || e < 0 || !cxfw_req_psn_was_sent(r, p->psn))
			return false;		/* duplicate, ghost, or an ACK inside a READ: drop */
		w->acked = (uint32_t)cxfw_req_psn_diff(p->psn, w->first_psn) + 1;
		/* SEND / WRITE: one PSN per packet; what is acknowledged needs no resending */
		if (w->sent < w->acked)
			w->sent = w->acked;
		if (w->acked >= w->npsn)
			w->done = true;
		return true;
	}
	if (cxfw_req_op_read_resp(op)) {
		uint32_t left = w->npsn - w->acked, n;
		uint8_t want;

		if (w->opcode != CXIB_WQE_OPCODE_RDMA_READ) {
			cxfw_req_fail(w, r, CXIB_CQE_SYND_BAD_RESP_ERR);
			return false;
		}
		if (e)
			return false;		/* duplicate, or an earlier one was lost */
		if (w->resp_in_pass)
			want = left > 1 ? CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE :
			       CXIB_BTH_OP_RDMA_READ_RESP_LAST;
		else
			want = left > 1 ? CXIB_BTH_OP_RDMA_READ_RESP_FIRST :
			       CXIB_BTH_OP_RDMA_READ_RESP_ONLY;
		if (op != want)
			return false;		/* out of sequence: the timer recovers */
		n = w->len - (uint64_t)w->acked * mtu < mtu ?
		    (uint32_t)(w->len - (uint64_t)w->acked * mtu) : mtu;
		if (p->paylen != n) {
			cxfw_req_fail(w, r, CXIB_CQE_SYND_BAD_RESP_ERR);
			return false;
		}
		st = cxfw_req_scatter(dev, qp, w, (uint64_t)w->acked * mtu, n, p->payload);
		if (st) {
			cxfw_req_fail(w, r, st);
			return false;
		}
		w->acked++;
		w->resp_in_pass = true;
		if (w->acked == w->npsn)
			w->done = true;
		return true;
	}
	if (op == CXIB_BTH_OP_ATOMIC_ACKNOWLEDGE) {
		uint8_t orig[sizeof(uint64_t)];

		if (!w->rd_atomic || w->opcode == CXIB_WQE_OPCODE_RDMA_READ) {
			cxfw_req_fail(w, r, CXIB_CQE_SYND_BAD_RESP_ERR);
			return false;
		}
		if (e)
			return false;
		cxfw_req_atomic_bytes(dev, p->atomic_orig, orig);
		st = cxfw_req_scatter(dev, qp, w, 0, sizeof(orig), orig);
		if (st) {
			cxfw_req_fail(w, r, st);
			return false;
		}
		w->acked = 1;
		w->done = true;
		return true;
	}
	return false;
}

void cxfw_req_rx(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p)
{
	struct cxfw_req *r = qp->req;
	uint8_t op = CXIB_BTH_OP_OPERATION(p->opcode);
	uint64_t now = cxfw_now(dev);
	bool progress = false;

	if (qp->st != CXIB_QPC_ST_RC || !r->active || !r->win ||
	    CXIB_BTH_OP_CLASS(p->opcode) != CXIB_BTH_OP_CLASS_RC)
		return;
	if (op == CXIB_BTH_OP_ACKNOWLEDGE || op == CXIB_BTH_OP_ATOMIC_ACKNOWLEDGE)
		cxfw_stat_add(dev, &dev->stats.acks_received, 1);
	while (r->count) {
		struct cxfw_req_wqe *w = NULL;
		unsigned int i;

		/* the oldest WQE still waiting for the wire (local ones complete on their own) */
		for (i = 0; i < r->count; i++) {
			struct cxfw_req_wqe *o = cxfw_req_win(r, i);

			if (!o->done && !o->local) {
				w = o;
				break;
			}
			if (!o->done)
				break;
		}
		if (!w || !w->started || w->synd)
			break;
		if (cxfw_req_psn_diff(p->psn, cxfw_req_psn_add(w->first_psn, w->npsn - 1)) > 0) {
			/* beyond @w: coalesced ACK (SEND/WRITE) or implied NAK (READ/ATOMIC) */
			if (w->rd_atomic) {
				if (!r->retrying)	/* once a go-back, not per packet */
					cxfw_stat_add(dev, &dev->stats.implied_nak_seq_err, 1);
				if (!r->retrying && cxfw_req_retry(dev, qp)) {
					r->retrying = true;
					cxfw_req_go_back(qp, cxfw_req_psn_add(w->first_psn,
									      w->acked));
				}
				break;
			}
			if (!cxfw_req_psn_was_sent(r, p->psn))
				break;		/* cannot acknowledge what was never sent */
			w->sent = w->npkts;
			w->acked = w->npsn;
			w->done = true;
			progress = true;
			if (!cxfw_req_complete(dev, qp))
				return;
			continue;
		}
		if (cxfw_req_psn_diff(p->psn, w->first_psn) < 0)
			break;		/* older than anything outstanding: duplicate */
		if (cxfw_req_resp(dev, qp, w, p, op, now))
			progress = true;
		break;
	}
	if (progress)
		cxfw_req_progress(dev, qp, now);
	if (!cxfw_req_complete(dev, qp))
		return;
	if (r->active && cxfw_req_send(dev, qp, now, CXFW_REQ_QP_BUDGET) ==
			 (int)CXFW_REQ_QP_BUDGET)
		dev->plat.kick(dev->plat.opaque);
}

/* ---- timers and deferred sending --------------------------------------------------- */

/* Timers of one QP; false if it went to ERR. */
static bool cxfw_req_timers(struct cxfw_dev *dev, struct cxfw_qp *qp, uint64_t now)
{
	struct cxfw_req *r = qp->req;

	if (r->rnr_deadline) {
		if (now < r->rnr_deadline)
			return true;	/* the ACK timer waits for the RNR timer (3.6) */
		r->rnr_deadline = 0;
		cxfw_req_go_back(qp, r->rnr_psn);
		return true;
	}
	if (r->ack_deadline && cxfw_req_ack_clock(dev, qp, now) >= r->ack_deadline) {
		r->ack_deadline = 0;
		cxfw_stat_add(dev, &dev->stats.local_ack_timeouts, 1);
		if (!r->count)
			return true;
		if (!cxfw_req_retry(dev, qp))
			return cxfw_req_complete(dev, qp);
		r->retrying = false;
		cxfw_req_go_back(qp, cxfw_req_una(r));
	}
	return true;
}

/*
 * Timers and deferred sending of every active requester, round robin: at most
 * CXFW_REQ_CALL_BUDGET packets per call, then the next call (kicked) resumes where this
 * one stopped.
 */
void cxfw_req_process(struct cxfw_dev *dev, uint64_t now)
{
	struct cxfw_req_dev *rd = dev->req_dev;
	unsigned int n, total = 0;
	struct cxfw_qp *qp;

	if (!rd)
		return;
	qp = rd->cursor ? rd->cursor : rd->first;
	rd->cursor = NULL;
	for (n = rd->n; qp && n; n--) {
		/* @qp may leave the list (ERR) and the list itself may go: look ahead */
		struct cxfw_qp *next = qp->req->next ? qp->req->next : rd->first;
		int sent = 0;

		if (cxfw_req_timers(dev, qp, now))
			sent = cxfw_req_send(dev, qp, now, CXFW_REQ_QP_BUDGET);
		rd = dev->req_dev;
		if (!rd)
			return;
		if (next == qp)			/* it was the only one */
			next = rd->first;
		if (sent > 0)
			total += (unsigned int)sent;
		if (sent == (int)CXFW_REQ_QP_BUDGET || total >= CXFW_REQ_CALL_BUDGET) {
			if (total >= CXFW_REQ_CALL_BUDGET)
				rd->cursor = next;
			dev->plat.kick(dev->plat.opaque);
			if (total >= CXFW_REQ_CALL_BUDGET)
				return;
		}
		qp = next;
	}
}

/* ---- debugging ---------------------------------------------------------------------- */

static void cxfw_req_format_timer(struct cxfw_text *t, const char *name, uint64_t deadline,
				  uint64_t now)
{
	if (!deadline)
		cxfw_textf(t, " %s off", name);
	else if (deadline <= now)
		cxfw_textf(t, " %s due", name);
	else
		cxfw_textf(t, " %s %llu us", name, (unsigned long long)((deadline - now) / 1000));
}

void cxfw_req_format(struct cxfw_dev *dev, const struct cxfw_qp *qp, uint64_t now,
		     struct cxfw_text *t)
{
	const struct cxfw_req *r = qp->req;
	unsigned int i;

	if (!r)
		return;
	cxfw_textf(t, "  req next_psn 0x%06x hi_psn 0x%06x una 0x%06x sq_next %u window %u",
		   r->next_psn, r->hi_psn, cxfw_req_una(r), r->sq_next, r->count);
	cxfw_req_format_timer(t, "ack_timer", r->ack_deadline, cxfw_req_ack_clock(dev, qp, now));
	cxfw_req_format_timer(t, "rnr_timer", r->rnr_deadline, now);
	cxfw_textf(t, " retry_left %u rnr_left %u rd_atomic %u%s%s%s\n", r->retry_left,
		   r->rnr_left, r->rd_atomic, r->active ? " active" : "",
		   r->retrying ? " retrying" : "", r->stopped ? " stopped" : "");
	for (i = 0; r->win && i < r->count; i++) {
		const struct cxfw_req_wqe *w = &r->win[(r->head + i) % CXFW_REQ_WINDOW];

		cxfw_textf(t, "    wqe %u opcode 0x%02x psn 0x%06x npsn %u npkts %u sent %u "
			   "acked %u len %llu%s%s%s%s", w->idx, w->opcode, w->first_psn, w->npsn,
			   w->npkts, w->sent, w->acked, (unsigned long long)w->len,
			   w->local ? " local" : "", w->started ? " started" : "",
			   w->done ? " done" : "", w->signaled ? " signaled" : "");
		if (w->synd)
			cxfw_textf(t, " syndrome 0x%02x", w->synd);
		cxfw_textf(t, "\n");
	}
}
