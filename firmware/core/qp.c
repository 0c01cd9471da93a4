// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw queue pairs, resource side (PRM section 5.4): CREATE_QP / DESTROY_QP / QUERY_QP and
 * the state transitions RST2INIT, INIT2INIT, INIT2RTR, RTR2RTS, RTS2RTS, SQERR2RTS,
 * SQD_RTS, 2ERR, 2RST; SQ doorbells; flushing.  Every transition is reported to the
 * requester (req.c) and the responder (resp.c) through cxfw_req_modify()/cxfw_resp_modify();
 * an SQ doorbell of a QP in RTS hands the new WQEs to the requester.  A QP in ERR (the
 * 2ERR command, or cxfw_qp_error() from an engine) completes every WQE still posted with a
 * flush error CQE (syndrome 0x05) when it enters ERR and at every SQ doorbell while in ERR.
 * There is no RQ doorbell, so receives posted to a QP in ERR would wait for an SQ doorbell:
 * the worker also re-reads the doorbell record of up to CXFW_QP_ERR_POLL_MAX QPs in ERR with
 * a regular RQ (a list filled as they enter ERR), each at most every CXFW_QP_ERR_POLL_NS and
 * at most CXFW_QP_ERR_POLL_BUDGET of them per cxfw_process() pass, and flushes what it
 * finds.  QPs beyond the list are flushed at SQ doorbells only.
 *
 * The QP keeps the qpc image the driver gave at creation; every transition builds the next
 * image from the current one, takes the transition's required attributes from the command's
 * qpc unconditionally and the optional ones whose opt_param_mask bit is set, checks it, and
 * commits it with the new state.  QUERY_QP returns the image with the current state.
 *
 * Transitions (anything else → BAD_QP_STATE 0x10): RST→INIT, INIT→INIT, INIT→RTR,
 * RTR→RTS, RTS→RTS, SQER→RTS, SQD→RTS; 2ERR and 2RST from any state.
 *
 * QPNs run 2 .. 2^log_max_qp (current cap) - 1, lowest free first; the QP holds a
 * reference on its PD, CQs and SRQ (DEALLOC_PD / DESTROY_CQ / DESTROY_SRQ → RES_BUSY).
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_QPC_DWORDS		(CXIB_QPC_SIZE / 4)
#define CXFW_ADS_DW(off)	((off) / 4)	/* first qpc dword of an address path */
#define CXFW_FIRST_QPN		2

static void cxfw_qp_flush(struct cxfw_dev *dev, uint32_t qpn);

/* Copy a field from @src to @dst (context images). */
#define CXFW_CP(dst, src, ...)	CXIB_SET(dst, __VA_ARGS__, CXIB_GET(src, __VA_ARGS__))

static struct cxfw_qp *cxfw_qp_lookup(const struct cxfw_dev *dev, uint32_t qpn)
{
	return dev->qps && qpn < CXFW_MAX_QPS ? dev->qps[qpn] : NULL;
}

/*
 * Free @qp with its engines' state (their destroy takes no lock and calls no platform
 * callback, so this also runs under dev->lock).
 */
static void cxfw_qp_free(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	if (!qp)
		return;
	cxfw_req_destroy(dev, qp);
	cxfw_resp_destroy(dev, qp);
	free(qp->pas);
	free(qp);
}

static const char *cxfw_qp_st_name(uint8_t st)
{
	switch (st) {
	case CXIB_QPC_ST_RC: return "RC";
	case CXIB_QPC_ST_UC: return "UC";
	case CXIB_QPC_ST_UD: return "UD";
	case CXIB_QPC_ST_QP0: return "QP0";
	case CXIB_QPC_ST_QP1: return "QP1";
	case CXIB_QPC_ST_REG_UMR: return "UMR";
	default: return "other";
	}
}

static const char *cxfw_qp_state_name(uint8_t state)
{
	switch (state) {
	case CXIB_QPC_STATE_RST: return "RST";
	case CXIB_QPC_STATE_INIT: return "INIT";
	case CXIB_QPC_STATE_RTR: return "RTR";
	case CXIB_QPC_STATE_RTS: return "RTS";
	case CXIB_QPC_STATE_SQER: return "SQER";
	case CXIB_QPC_STATE_SQD: return "SQD";
	case CXIB_QPC_STATE_ERR: return "ERR";
	default: return "other";
	}
}

size_t cxfw_engines_format(struct cxfw_dev *dev, char *buf, size_t len)
{
	struct cxfw_text t = { .buf = buf, .len = len };
	uint64_t now = cxfw_now(dev);
	unsigned int i;

	if (len)
		buf[0] = 0;
	for (i = 0; dev->qps && i < CXFW_MAX_QPS; i++) {
		const struct cxfw_qp *qp = dev->qps[i];

		if (!qp || qp->state == CXIB_QPC_STATE_RST || qp->state == CXIB_QPC_STATE_INIT ||
		    (qp->st != CXIB_QPC_ST_RC && qp->st != CXIB_QPC_ST_UC &&
		     qp->st != CXIB_QPC_ST_UD))
			continue;
		cxfw_textf(&t, "qp 0x%06x %s %s sq_cons %u rq_cons %u cqn %u/%u", qp->qpn,
			   cxfw_qp_st_name(qp->st), cxfw_qp_state_name(qp->state), qp->sq_cons,
			   qp->rq_cons, qp->cqn_snd, qp->cqn_rcv);
		if (qp->srqn)
			cxfw_textf(&t, " srqn 0x%x", qp->srqn);
		cxfw_textf(&t, "\n");
		cxfw_req_format(dev, qp, now, &t);
		cxfw_resp_format(qp, &t);
	}
	return t.need;
}

void cxfw_qp_destroy_all(struct cxfw_dev *dev)
{
	unsigned int i;

	if (dev->qps)
		for (i = 0; i < CXFW_MAX_QPS; i++)
			cxfw_qp_free(dev, dev->qps[i]);
	free(dev->qps);
	dev->qps = NULL;
	dev->qp_db_head = dev->qp_db_count = 0;
	dev->qp_db_overflow = false;
	dev->qp_err_count = dev->qp_err_cursor = 0;
}

/* Take entry @i off the list of QPs in ERR whose receives the worker polls; lock held. */
static void cxfw_qp_err_unwatch_at(struct cxfw_dev *dev, unsigned int i)
{
	struct cxfw_qp *qp = cxfw_qp_lookup(dev, dev->qp_err_poll[i]);

	if (qp)
		qp->err_poll = false;
	dev->qp_err_poll[i] = dev->qp_err_poll[--dev->qp_err_count];
}

/* Take @qp off that list if it is on it; lock held. */
static void cxfw_qp_err_unwatch(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	unsigned int i;

	for (i = 0; qp->err_poll && i < dev->qp_err_count; i++)
		if (dev->qp_err_poll[i] == qp->qpn)
			cxfw_qp_err_unwatch_at(dev, i);
	qp->err_poll = false;
}

static bool cxfw_st_supported(uint32_t st)
{
	switch (st) {
	case CXIB_QPC_ST_RC:
	case CXIB_QPC_ST_UC:
	case CXIB_QPC_ST_UD:
	case CXIB_QPC_ST_QP0:
	case CXIB_QPC_ST_QP1:
	case CXIB_QPC_ST_REG_UMR:
		return true;
	default:
		return false;
	}
}

static bool cxfw_st_datagram(uint32_t st)
{
	return st == CXIB_QPC_ST_UD || st == CXIB_QPC_ST_QP0 || st == CXIB_QPC_ST_QP1;
}

/* A CQ a QP names must exist; lock held. */
static bool cxfw_cq_exists(const struct cxfw_dev *dev, uint32_t cqn)
{
	return dev->cqs && cqn && cqn < CXFW_MAX_CQS && dev->cqs[cqn];
}

static void cxfw_cq_ref(struct cxfw_dev *dev, uint32_t cqn, int d)
{
	if (cxfw_cq_exists(dev, cqn))
		dev->cqs[cqn]->refs = (uint32_t)((int)dev->cqs[cqn]->refs + d);
}

/*
 * A free QPN below @limit, or CXFW_MAX_QPS when there is none.  QPNs are handed out in
 * rotation, the search starting after the last one given, as ConnectX firmware does, not
 * lowest-free: a QPN destroyed a moment ago is not reused at once.  A peer's IB CM keeps a
 * closed connection's remote QPN until its timewait ends and treats a new REQ from the same
 * QPN as a stale connection (IBTA vol 1 ch. 12; drivers/infiniband/core/cm.c, cm_match_req()),
 * which back-to-back rdma_cm clients would otherwise hit.  Under dev->lock.
 */
static uint32_t qp_pick_qpn(struct cxfw_dev *dev, uint32_t limit)
{
	uint32_t n, start, i, qpn;

	if (limit > CXFW_MAX_QPS)
		limit = CXFW_MAX_QPS;
	if (limit <= CXFW_FIRST_QPN)
		return CXFW_MAX_QPS;
	n = limit - CXFW_FIRST_QPN;
	start = dev->qpn_next >= CXFW_FIRST_QPN && dev->qpn_next < limit ?
		dev->qpn_next - CXFW_FIRST_QPN : 0;
	for (i = 0; i < n; i++) {
		qpn = CXFW_FIRST_QPN + (start + i) % n;
		if (!dev->qps[qpn]) {
			dev->qpn_next = qpn + 1;
			return qpn;
		}
	}
	return CXFW_MAX_QPS;
}

uint8_t cxfw_cmd_create_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_create_qp_in *in = (const void *)cmd->in;
	struct cxib_create_qp_out *out = (void *)cmd->out;
	const __be32 *qpc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_CREATE_QP_IN_QPC_OFFSET);
	uint32_t st_type = CXIB_GET(qpc, CXIB_QPC_ST), pd = CXIB_GET(qpc, CXIB_QPC_PD);
	uint32_t log_rq = CXIB_GET(qpc, CXIB_QPC_LOG_RQ_SIZE);
	uint32_t rq_stride = CXIB_GET(qpc, CXIB_QPC_LOG_RQ_STRIDE);
	uint32_t log_sq = CXIB_GET(qpc, CXIB_QPC_LOG_SQ_SIZE);
	uint32_t rq_type = CXIB_GET(qpc, CXIB_QPC_RQ_TYPE);
	bool no_sq = CXIB_GET(qpc, CXIB_QPC_NO_SQ);
	uint32_t log_pg = CXIB_GET(qpc, CXIB_QPC_LOG_PAGE_SIZE);
	uint32_t page_offset = CXIB_GET(qpc, CXIB_QPC_PAGE_OFFSET);
	uint32_t uar = CXIB_GET(qpc, CXIB_QPC_UAR_PAGE);
	uint32_t cqn_snd = CXIB_GET(qpc, CXIB_QPC_CQN_SND);
	uint32_t cqn_rcv = CXIB_GET(qpc, CXIB_QPC_CQN_RCV);
	uint32_t srqn = CXIB_GET(qpc, CXIB_QPC_SRQN_RMPN_XRQN);
	uint32_t offload = CXIB_GET(qpc, CXIB_QPC_ULP_STATELESS_OFFLOAD_MODE);
	uint64_t dbr = CXIB_GET64(qpc, CXIB_QPC_DBR_ADDR), probe, rq_bytes = 0, sq_bytes = 0;
	uint32_t max_log_sz, log_max_qp, qpn, npas = 0;
	uint64_t *list = NULL;
	struct cxfw_qp *qp;
	uint8_t st;

	if (CXIB_GET(in, CXIB_CREATE_QP_IN_QPC_EXT) ||
	    CXIB_GET(in, CXIB_CREATE_QP_IN_INPUT_QPN) ||
	    CXIB_GET(in, CXIB_CREATE_QP_IN_WQ_UMEM_VALID) ||
	    CXIB_GET(qpc, CXIB_QPC_DBR_UMEM_VALID))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 2));
	if (!cxfw_st_supported(st_type))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, st_type));
	if (CXIB_GET(qpc, CXIB_QPC_STATE) != CXIB_QPC_STATE_RST)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 0));
	if (rq_type != CXIB_QPC_RQ_TYPE_REGULAR && rq_type != CXIB_QPC_RQ_TYPE_ZERO_SIZE_RQ &&
	    rq_type != CXIB_QPC_RQ_TYPE_SRQ)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, rq_type));
	if (rq_stride > CXFW_MAX_LOG_RQ_STRIDE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, rq_stride));
	if (log_pg > CXFW_MAX_LOG_PAGE_SIZE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, log_pg));

	pthread_mutex_lock(&dev->lock);
	max_log_sz = CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_QP_SZ);
	log_max_qp = CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_QP);
	st = CXIB_CMD_STAT_OK;
	if (log_rq > max_log_sz || log_sq > max_log_sz)
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
			       CXFW_SYND(CXFW_SYND_BAD_PARAM, log_rq > log_sq ? log_rq : log_sq));
	else if (offload != CXIB_QPC_ULP_OFFLOAD_NONE &&
		 (st_type != CXIB_QPC_ST_UD || offload != CXIB_QPC_ULP_OFFLOAD_IPOIB_UD ||
		  !CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_IPOIB_BASIC_OFFLOADS)))
		/* the IPoIB offloads (ipoib.c): UD QPs only, when the capability is on */
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, offload));
	else if (!cxfw_pd_valid(dev, pd) && !(st_type == CXIB_QPC_ST_REG_UMR && !pd))
		/* a UMR QP may have no PD (mlx5_ib creates its own so): it names keys of any */
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, pd));
	else if (!cxfw_uar_allocated(dev, uar))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, uar));
	else if ((!no_sq || cqn_snd) && !cxfw_cq_exists(dev, cqn_snd))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, cqn_snd));
	else if ((rq_type != CXIB_QPC_RQ_TYPE_ZERO_SIZE_RQ || cqn_rcv) &&
		 !cxfw_cq_exists(dev, cqn_rcv))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, cqn_rcv));
	else if (rq_type == CXIB_QPC_RQ_TYPE_SRQ && !cxfw_srq_lookup(dev, srqn))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, srqn));
	pthread_mutex_unlock(&dev->lock);
	if (st)
		return st;
	if (!dbr || (dbr & (CXIB_QP_DB_SIZE - 1)) ||
	    cxfw_dma_read(dev, dbr, &probe, sizeof(probe)))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, (uint32_t)dbr));

	/* one buffer: the RQ first, then the SQ */
	if (rq_type == CXIB_QPC_RQ_TYPE_REGULAR)
		rq_bytes = (uint64_t)1 << (CXIB_QPC_LOG_RQ_STRIDE_BASE + rq_stride) << log_rq;
	if (!no_sq)
		sq_bytes = (uint64_t)CXIB_SEND_WQE_BB << log_sq;
	if (rq_bytes + sq_bytes) {
		st = cxfw_pas_load(dev, cmd, CXIB_CREATE_QP_IN_PAS_OFFSET, log_pg,
				   CXIB_PAGE_OFFSET_BYTES(page_offset, log_pg) + rq_bytes + sq_bytes,
				   &list, &npas,
				   "CREATE_QP");
		if (st)
			return st;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		free(list);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	qp->pas = list;
	if (cxfw_req_create(dev, qp) || cxfw_resp_create(dev, qp)) {
		cxfw_qp_free(dev, qp);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	memcpy(qp->qpc, qpc, sizeof(qp->qpc));
	qp->state = CXIB_QPC_STATE_RST;
	qp->st = (uint8_t)st_type;
	qp->pd = pd;
	qp->cqn_snd = cqn_snd;
	qp->cqn_rcv = cqn_rcv;
	qp->srqn = rq_type == CXIB_QPC_RQ_TYPE_SRQ ? srqn : 0;
	qp->npas = npas;
	qp->uar = uar;
	qp->dbr = dbr;
	qp->log_pg = (uint8_t)log_pg;
	qp->page_offset = (uint8_t)page_offset;
	qp->log_rq = (uint8_t)log_rq;
	qp->rq_stride = (uint8_t)rq_stride;
	qp->log_sq = (uint8_t)log_sq;
	qp->rq_type = (uint8_t)rq_type;
	qp->no_sq = no_sq;

	pthread_mutex_lock(&dev->lock);
	if (!dev->qps)
		dev->qps = calloc(CXFW_MAX_QPS, sizeof(*dev->qps));
	qpn = dev->qps ? qp_pick_qpn(dev, 1u << log_max_qp) : CXFW_MAX_QPS;
	/* PD and CQs cannot have gone meanwhile: only commands (this thread) free them */
	if (qpn >= CXFW_MAX_QPS || qpn >= (1u << log_max_qp)) {
		pthread_mutex_unlock(&dev->lock);
		cxfw_qp_free(dev, qp);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	qp->qpn = qpn;
	dev->qps[qpn] = qp;
	if (pd)
		dev->pd_refs[pd]++;
	if (qp->srqn) {
		struct cxfw_srq *srq = cxfw_srq_lookup(dev, qp->srqn);

		srq->refs++;
		/* receives from an XRC SRQ complete on the XRC SRQ's CQ, with its user_index */
		if (srq->kind == CXFW_SRQ_KIND_XRC_SRQ) {
			qp->xrc_srq = true;
			qp->xrc_uidx = srq->user_index;
			qp->cqn_rcv = srq->cqn;
		}
	}
	cxfw_cq_ref(dev, cqn_snd, 1);
	cxfw_cq_ref(dev, qp->cqn_rcv, 1);
	pthread_mutex_unlock(&dev->lock);

	CXIB_SET(out, CXIB_CREATE_QP_OUT_QPN, qpn);
	cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: QP 0x%x created: st %u, CQs %u/%u, PD %u", qpn,
		 st_type, cqn_snd, cqn_rcv, pd);
	cxfw_pages_qp_count(dev, 1);
	return CXIB_CMD_STAT_OK;
}

/* The QP a command names (dw2[23:0]); lock held on success. */
static struct cxfw_qp *cxfw_qp_get(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint8_t *st)
{
	const struct cxib_qp_modify_in *in = (const void *)cmd->in;
	uint32_t qpn = CXIB_GET(in, CXIB_QP_MODIFY_IN_QPN);
	struct cxfw_qp *qp;

	if (qpn < CXFW_FIRST_QPN || qpn >= CXFW_MAX_QPS) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, qpn));
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	qp = cxfw_qp_lookup(dev, qpn);
	if (!qp) {
		pthread_mutex_unlock(&dev->lock);
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, qpn));
	}
	return qp;
}

uint8_t cxfw_cmd_destroy_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_qp_in *in = (const void *)cmd->in;
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_qp *qp = cxfw_qp_get(dev, cmd, &st);

	if (!qp)
		return st;
	cxfw_qp_err_unwatch(dev, qp);
	dev->qps[CXIB_GET(in, CXIB_DESTROY_QP_IN_QPN)] = NULL;
	cxfw_mcg_detach_qp(dev, CXIB_GET(in, CXIB_DESTROY_QP_IN_QPN));
	if (qp->pd && dev->pd_refs && dev->pd_refs[qp->pd] > 1)
		dev->pd_refs[qp->pd]--;
	cxfw_cq_ref(dev, qp->cqn_snd, -1);
	cxfw_cq_ref(dev, qp->cqn_rcv, -1);
	if (qp->srqn && cxfw_srq_lookup(dev, qp->srqn))
		cxfw_srq_lookup(dev, qp->srqn)->refs--;
	pthread_mutex_unlock(&dev->lock);
	cxfw_qp_free(dev, qp);
	cxfw_pages_qp_count(dev, -1);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	__be32 *qpc = (__be32 *)cxfw_out_bytes(cmd, CXIB_QUERY_QP_OUT_QPC_OFFSET);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_qp *qp = cxfw_qp_get(dev, cmd, &st);

	if (!qp)
		return st;
	memcpy(qpc, qp->qpc, sizeof(qp->qpc));
	CXIB_SET(qpc, CXIB_QPC_STATE, qp->state);
	/* commands run in the worker: the requester's state is stable here */
	cxfw_req_query(qp, qpc);
	CXIB_SET(qpc, CXIB_QPC_HW_SQ_WQEBB_COUNTER, qp->sq_cons);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

/* Optional attributes by opt_param_mask, from @in into @img. */
static void cxfw_qp_optional(__be32 *img, const __be32 *in, uint32_t mask)
{
	__be32 *pp = img + CXFW_ADS_DW(CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET);
	const __be32 *ipp = in + CXFW_ADS_DW(CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET);

	if (mask & CXIB_QP_OPTPAR_PRIMARY_ADDR_PATH)
		memcpy(pp, ipp, CXIB_ADS_SIZE);
	if (mask & CXIB_QP_OPTPAR_ALT_ADDR_PATH)
		memcpy(img + CXFW_ADS_DW(CXIB_QPC_SECONDARY_ADDRESS_PATH_OFFSET),
		       in + CXFW_ADS_DW(CXIB_QPC_SECONDARY_ADDRESS_PATH_OFFSET), CXIB_ADS_SIZE);
	if (mask & CXIB_QP_OPTPAR_RRE)
		CXFW_CP(img, in, CXIB_QPC_RRE);
	if (mask & CXIB_QP_OPTPAR_RAE) {
		CXFW_CP(img, in, CXIB_QPC_RAE);
		CXFW_CP(img, in, CXIB_QPC_ATOMIC_MODE);
	}
	if (mask & CXIB_QP_OPTPAR_RWE)
		CXFW_CP(img, in, CXIB_QPC_RWE);
	if (mask & CXIB_QP_OPTPAR_PKEY_INDEX)
		CXFW_CP(pp, ipp, CXIB_ADS_PKEY_INDEX);
	if (mask & CXIB_QP_OPTPAR_PRI_PORT)
		CXFW_CP(pp, ipp, CXIB_ADS_VHCA_PORT_NUM);
	if (mask & CXIB_QP_OPTPAR_Q_KEY)
		CXFW_CP(img, in, CXIB_QPC_Q_KEY);
	if (mask & CXIB_QP_OPTPAR_RNR_TIMEOUT)
		CXFW_CP(img, in, CXIB_QPC_MIN_RNR_NAK);
	if (mask & CXIB_QP_OPTPAR_SRA_MAX)
		CXFW_CP(img, in, CXIB_QPC_LOG_SRA_MAX);
	if (mask & CXIB_QP_OPTPAR_RRA_MAX)
		CXFW_CP(img, in, CXIB_QPC_LOG_RRA_MAX);
	if (mask & CXIB_QP_OPTPAR_PM_STATE)
		CXFW_CP(img, in, CXIB_QPC_PM_STATE);
	if (mask & CXIB_QP_OPTPAR_RETRY_COUNT)
		CXFW_CP(img, in, CXIB_QPC_RETRY_COUNT);
	if (mask & CXIB_QP_OPTPAR_RNR_RETRY)
		CXFW_CP(img, in, CXIB_QPC_RNR_RETRY);
	if (mask & CXIB_QP_OPTPAR_ACK_TIMEOUT)
		CXFW_CP(pp, ipp, CXIB_ADS_ACK_TIMEOUT);
	if (mask & CXIB_QP_OPTPAR_COUNTER_SET_ID)
		CXFW_CP(img, in, CXIB_QPC_COUNTER_SET_ID);
}

/* Required attributes of transition @op for service type @st, from @in into @img. */
static void cxfw_qp_required(__be32 *img, const __be32 *in, uint16_t op, uint32_t st)
{
	__be32 *pp = img + CXFW_ADS_DW(CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET);
	const __be32 *ipp = in + CXFW_ADS_DW(CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET);
	bool dgram = cxfw_st_datagram(st);
	/* a UMR QP has no peer: no path, remote QP or PSNs (mlx5_ib gives it none past INIT) */
	bool peer = !dgram && st != CXIB_QPC_ST_REG_UMR;

	switch (op) {
	case CXIB_CMD_OP_RST2INIT_QP:
		CXFW_CP(pp, ipp, CXIB_ADS_PKEY_INDEX);
		CXFW_CP(pp, ipp, CXIB_ADS_VHCA_PORT_NUM);
		CXFW_CP(img, in, CXIB_QPC_PM_STATE);
		if (dgram) {
			CXFW_CP(img, in, CXIB_QPC_Q_KEY);
		} else {
			CXFW_CP(img, in, CXIB_QPC_RRE);
			CXFW_CP(img, in, CXIB_QPC_RWE);
			CXFW_CP(img, in, CXIB_QPC_RAE);
			CXFW_CP(img, in, CXIB_QPC_ATOMIC_MODE);
		}
		break;
	case CXIB_CMD_OP_INIT2RTR_QP:
		CXFW_CP(img, in, CXIB_QPC_MTU);
		CXFW_CP(img, in, CXIB_QPC_LOG_MSG_MAX);
		if (peer) {
			memcpy(pp, ipp, CXIB_ADS_SIZE);
			CXFW_CP(img, in, CXIB_QPC_REMOTE_QPN);
			CXFW_CP(img, in, CXIB_QPC_NEXT_RCV_PSN);
			CXFW_CP(img, in, CXIB_QPC_LOG_RRA_MAX);
			CXFW_CP(img, in, CXIB_QPC_MIN_RNR_NAK);
		}
		break;
	case CXIB_CMD_OP_RTR2RTS_QP:
		CXFW_CP(img, in, CXIB_QPC_NEXT_SEND_PSN);
		if (peer) {
			CXFW_CP(pp, ipp, CXIB_ADS_ACK_TIMEOUT);
			CXFW_CP(img, in, CXIB_QPC_RETRY_COUNT);
			CXFW_CP(img, in, CXIB_QPC_RNR_RETRY);
			CXFW_CP(img, in, CXIB_QPC_LOG_SRA_MAX);
			CXFW_CP(img, in, CXIB_QPC_LOG_ACK_REQ_FREQ);
		}
		break;
	default:
		break;
	}
}

/* The state @op moves a QP from @cur to, or -1 if not allowed from there. */
static int cxfw_qp_next_state(uint16_t op, uint8_t cur)
{
	switch (op) {
	case CXIB_CMD_OP_RST2INIT_QP:
		return cur == CXIB_QPC_STATE_RST ? CXIB_QPC_STATE_INIT : -1;
	case CXIB_CMD_OP_INIT2INIT_QP:
		return cur == CXIB_QPC_STATE_INIT ? CXIB_QPC_STATE_INIT : -1;
	case CXIB_CMD_OP_INIT2RTR_QP:
		return cur == CXIB_QPC_STATE_INIT ? CXIB_QPC_STATE_RTR : -1;
	case CXIB_CMD_OP_RTR2RTS_QP:
		return cur == CXIB_QPC_STATE_RTR ? CXIB_QPC_STATE_RTS : -1;
	case CXIB_CMD_OP_RTS2RTS_QP:
		return cur == CXIB_QPC_STATE_RTS ? CXIB_QPC_STATE_RTS : -1;
	case CXIB_CMD_OP_SQERR2RTS_QP:
		return cur == CXIB_QPC_STATE_SQER ? CXIB_QPC_STATE_RTS : -1;
	case CXIB_CMD_OP_SQD_RTS_QP:
		return cur == CXIB_QPC_STATE_SQD ? CXIB_QPC_STATE_RTS : -1;
	case CXIB_CMD_OP_2ERR_QP:
		return CXIB_QPC_STATE_ERR;
	case CXIB_CMD_OP_2RST_QP:
		return CXIB_QPC_STATE_RST;
	default:
		return -1;
	}
}

/*
 * Check a would-be image of a QP of service type @st; 0 or the failing value + 1 (as a
 * syndrome detail).  The UMR QP sends no packets: it has no MTU to check.
 */
static uint32_t cxfw_qp_check(const struct cxfw_dev *dev, const __be32 *img, uint32_t st,
			      int state)
{
	const __be32 *pp = img + CXFW_ADS_DW(CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET);
	uint32_t port = CXIB_GET(pp, CXIB_ADS_VHCA_PORT_NUM);
	uint32_t mtu = CXIB_GET(img, CXIB_QPC_MTU);

	if (state == CXIB_QPC_STATE_INIT || state == CXIB_QPC_STATE_RTR ||
	    state == CXIB_QPC_STATE_RTS) {
		if (port < 1 || port > dev->cfg.num_ports)
			return port + 1;
		if (CXIB_GET(pp, CXIB_ADS_PKEY_INDEX) >= CXFW_PKEY_TABLE_LEN)
			return CXIB_GET(pp, CXIB_ADS_PKEY_INDEX) + 1;
	}
	if ((state == CXIB_QPC_STATE_RTR || state == CXIB_QPC_STATE_RTS) &&
	    st != CXIB_QPC_ST_REG_UMR && (mtu < CXIB_QPC_MTU_256 || mtu > CXIB_QPC_MTU_4096))
		return mtu + 1;
	if (CXIB_GET(img, CXIB_QPC_LOG_RRA_MAX) >
	    CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_RA_RES_QP))
		return CXIB_GET(img, CXIB_QPC_LOG_RRA_MAX) + 1;
	if (CXIB_GET(img, CXIB_QPC_LOG_SRA_MAX) >
	    CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_RA_REQ_QP))
		return CXIB_GET(img, CXIB_QPC_LOG_SRA_MAX) + 1;
	return 0;
}

/* RST2INIT .. SQD_RTS, 2ERR, 2RST. */
uint8_t cxfw_cmd_modify_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_qp_modify_in *hdr = (const void *)cmd->in;
	bool has_ctx = cmd->opcode != CXIB_CMD_OP_2ERR_QP && cmd->opcode != CXIB_CMD_OP_2RST_QP;
	const __be32 *in = has_ctx ?
		(const __be32 *)cxfw_in_bytes(cmd, CXIB_QP_MODIFY_IN_QPC_OFFSET) : NULL;
	uint32_t mask = has_ctx ? CXIB_GET(hdr, CXIB_QP_MODIFY_IN_OPT_PARAM_MASK) : 0;
	__be32 img[CXFW_QPC_DWORDS];
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_qp *qp;
	uint32_t bad;
	uint8_t from;
	int next;

	qp = cxfw_qp_get(dev, cmd, &st);
	if (!qp)
		return st;
	next = cxfw_qp_next_state(cmd->opcode, qp->state);
	if (next < 0) {
		uint8_t cur = qp->state;

		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_QP_STATE,
				 CXFW_SYND(CXFW_SYND_BAD_STATE, cur));
	}
	memcpy(img, qp->qpc, sizeof(img));
	if (has_ctx) {
		cxfw_qp_required(img, in, cmd->opcode, qp->st);
		cxfw_qp_optional(img, in, mask);
	}
	bad = cxfw_qp_check(dev, img, qp->st, next);
	if (bad) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM,
								       bad - 1));
	}
	memcpy(qp->qpc, img, sizeof(img));
	from = qp->state;
	qp->state = (uint8_t)next;
	if (next == CXIB_QPC_STATE_RST)		/* the driver restarts its counters too */
		qp->sq_cons = qp->rq_cons = 0;
	pthread_mutex_unlock(&dev->lock);
	/* commands run in the worker: the engines see every transition, in order */
	cxfw_req_modify(dev, qp, from, (uint8_t)next);
	cxfw_resp_modify(dev, qp, from, (uint8_t)next);
	if (next == CXIB_QPC_STATE_ERR)
		cxfw_qp_flush(dev, CXIB_GET(hdr, CXIB_QP_MODIFY_IN_QPN));
	return CXIB_CMD_STAT_OK;
}

/* ---- SQ doorbells and flushing (the only WQE processing so far) ----------------------- */

void cxfw_qp_sq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t dw0, uint32_t dw1)
{
	uint32_t qpn = CXIB_FIELD_GET(CXIB_SQ_DB_QPN, dw1);
	struct cxfw_qp *qp;
	bool bad, kick = false;
	uint32_t owner = 0;

	(void)dw0;
	pthread_mutex_lock(&dev->lock);
	dev->stats.sq_doorbells++;
	qp = cxfw_qp_lookup(dev, qpn);
	bad = !qp || qp->uar != uar || qp->no_sq;
	if (qp && !qp->no_sq)
		owner = qp->uar;
	if (!bad && !qp->sq_db_pending) {
		qp->sq_db_pending = true;
		if (dev->qp_db_count < CXFW_QP_DB_RING)
			dev->qp_db_ring[(dev->qp_db_head + dev->qp_db_count++) % CXFW_QP_DB_RING] =
				qpn;
		else
			dev->qp_db_overflow = true;
		kick = true;
	}
	pthread_mutex_unlock(&dev->lock);
	if (bad)
		cxfw_doorbell_refused(dev, "QP", qpn, uar, owner);
	if (kick)
		dev->plat.kick(dev->plat.opaque);
}

uint64_t cxfw_qp_wqe_addr(const struct cxfw_qp *qp, bool sq, uint32_t idx)
{
	unsigned int log_rq_wqe = CXIB_QPC_LOG_RQ_STRIDE_BASE + qp->rq_stride;
	uint64_t rq_bytes = qp->rq_type == CXIB_QPC_RQ_TYPE_REGULAR ?
			    (uint64_t)1 << log_rq_wqe << qp->log_rq : 0;
	uint64_t off = CXIB_PAGE_OFFSET_BYTES(qp->page_offset, qp->log_pg);
	unsigned int shift = CXIB_ADAPTER_PAGE_SHIFT + qp->log_pg;

	if (sq)
		off += rq_bytes + ((uint64_t)(idx & ((1u << qp->log_sq) - 1)) << CXIB_LOG_SEND_WQE_BB);
	else
		off += (uint64_t)(idx & ((1u << qp->log_rq) - 1)) << log_rq_wqe;
	return qp->pas[off >> shift] + (off & ((1ull << shift) - 1));
}

static void cxfw_flush_cqe(struct cxfw_dev *dev, const struct cxfw_qp *qp, bool sq,
			   uint32_t opcode, uint16_t idx)
{
	struct cxib_cqe64 cqe;

	memset(&cqe, 0, sizeof(cqe));
	cxfw_cqe_set_index(dev, qp, &cqe, !sq);
	CXIB_SET(&cqe, CXIB_CQE_OPCODE, sq ? CXIB_CQE_OPCODE_REQ_ERR : CXIB_CQE_OPCODE_RESP_ERR);
	CXIB_SET(&cqe, CXIB_CQE_ERR_SYNDROME, CXIB_CQE_SYND_WR_FLUSH_ERR);
	CXIB_SET(&cqe, CXIB_CQE_ERR_S_WQE_OPCODE, sq ? opcode : 0);
	CXIB_SET(&cqe, CXIB_CQE_ERR_QPN, qp->qpn);
	CXIB_SET(&cqe, CXIB_CQE_ERR_WQE_COUNTER, idx);
	cxfw_cq_post(dev, sq ? qp->cqn_snd : qp->cqn_rcv, &cqe);
}

/*
 * A QP in ERR: complete every WQE posted (per the doorbell record) and not yet consumed
 * with a flush error CQE (syndrome 0x05), one per WQE: RQ WQEs (regular RQs only) on
 * cqn_rcv, SQ WQEs on cqn_snd with the WQE's opcode and index.  A QP in SQER (UD/UC send
 * error): the SQ only, the RQ keeps working.  Without @with_sq only the RQ (the poll of QPs
 * in ERR: sends are flushed at their doorbell).  Worker only; nothing happens for a QP in
 * another state.
 */
static void cxfw_qp_flush_wqs(struct cxfw_dev *dev, uint32_t qpn, bool with_sq)
{
	struct cxfw_qp *qp;
	uint16_t rq_cons, sq_cons, rcv, snd;
	uint64_t now = cxfw_now(dev);
	uint32_t n, limit;
	bool sq_only;
	__be32 db[2];

	pthread_mutex_lock(&dev->lock);
	qp = cxfw_qp_lookup(dev, qpn);
	if (!qp || (qp->state != CXIB_QPC_STATE_ERR && qp->state != CXIB_QPC_STATE_SQER)) {
		pthread_mutex_unlock(&dev->lock);
		return;
	}
	sq_only = qp->state == CXIB_QPC_STATE_SQER;
	rq_cons = qp->rq_cons;
	sq_cons = qp->sq_cons;
	if (!sq_only && !qp->err_poll && qp->rq_type == CXIB_QPC_RQ_TYPE_REGULAR &&
	    dev->qp_err_count < CXFW_QP_ERR_POLL_MAX) {
		qp->err_poll = true;
		qp->err_poll_ns = now;
		dev->qp_err_poll[dev->qp_err_count++] = qpn;
	}
	pthread_mutex_unlock(&dev->lock);
	/* only the worker destroys QPs and moves the counters: qp stays valid */
	if (cxfw_dma_read(dev, qp->dbr, db, sizeof(db))) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: QP 0x%x: doorbell record unreadable", qpn);
		return;
	}
	rcv = (uint16_t)CXIB_GET(db, CXIB_QP_DB_RCV_COUNTER);
	snd = (uint16_t)CXIB_GET(db, CXIB_QP_DB_SND_COUNTER);

	if (qp->rq_type == CXIB_QPC_RQ_TYPE_REGULAR && !sq_only) {
		limit = 1u << qp->log_rq;	/* a garbage counter cannot loop for long */
		for (n = 0; rq_cons != rcv && n < limit; n++, rq_cons++)
			cxfw_flush_cqe(dev, qp, false, 0, rq_cons);
	}
	if (!qp->no_sq && with_sq) {
		limit = 1u << qp->log_sq;
		for (n = 0; sq_cons != snd && n < limit;) {
			uint32_t ctrl[2] = { 0, 0 }, bbs;

			if (cxfw_dma_read(dev, cxfw_qp_wqe_addr(qp, true, sq_cons),
					  ctrl, sizeof(ctrl)))
				break;
			bbs = (CXIB_GET(ctrl, CXIB_WQE_CTRL_DS) * CXIB_WQE_DS_SIZE +
			       CXIB_SEND_WQE_BB - 1) / CXIB_SEND_WQE_BB;
			/* a garbage ds must not carry the consumer past the producer */
			if (!bbs || bbs > CXIB_MAX_WQE_BBS)
				bbs = 1;
			if (bbs > (uint16_t)(snd - sq_cons))
				bbs = (uint16_t)(snd - sq_cons);
			cxfw_flush_cqe(dev, qp, true,
				       CXIB_GET(ctrl, CXIB_WQE_CTRL_OPCODE), sq_cons);
			sq_cons = (uint16_t)(sq_cons + bbs);
			n += bbs;
		}
	}
	pthread_mutex_lock(&dev->lock);
	if (!sq_only)
		qp->rq_cons = rq_cons;
	qp->sq_cons = sq_cons;
	pthread_mutex_unlock(&dev->lock);
}

static void cxfw_qp_flush(struct cxfw_dev *dev, uint32_t qpn)
{
	cxfw_qp_flush_wqs(dev, qpn, true);
}

/*
 * One SQ doorbell: a QP in RTS hands its new WQEs to the requester; SQD starts nothing
 * new (the requester finishes what it has); ERR and SQER flush; other states ignore it.
 */
static void cxfw_qp_sq_serve(struct cxfw_dev *dev, uint32_t qpn)
{
	struct cxfw_qp *qp;
	uint8_t state;

	pthread_mutex_lock(&dev->lock);
	qp = cxfw_qp_lookup(dev, qpn);
	state = qp ? qp->state : CXIB_QPC_STATE_RST;
	pthread_mutex_unlock(&dev->lock);
	if (!qp)
		return;
	if (state == CXIB_QPC_STATE_RTS)
		cxfw_req_doorbell(dev, qp);
	else if (state == CXIB_QPC_STATE_ERR || state == CXIB_QPC_STATE_SQER)
		cxfw_qp_flush(dev, qpn);
}

/*
 * Flush the receives posted to QPs in ERR since their last flush: visit up to
 * CXFW_QP_ERR_POLL_BUDGET entries of the list (round robin), dropping QPs no longer in
 * ERR, and flush those not read in the last CXFW_QP_ERR_POLL_NS.  Worker only.
 */
static void cxfw_qp_err_poll(struct cxfw_dev *dev)
{
	uint32_t due[CXFW_QP_ERR_POLL_BUDGET];
	unsigned int n = 0, todo, i;
	uint64_t now;

	pthread_mutex_lock(&dev->lock);
	todo = dev->qp_err_count;
	pthread_mutex_unlock(&dev->lock);
	if (!todo)
		return;
	now = cxfw_now(dev);
	pthread_mutex_lock(&dev->lock);
	todo = dev->qp_err_count < CXFW_QP_ERR_POLL_BUDGET ? dev->qp_err_count :
							     CXFW_QP_ERR_POLL_BUDGET;
	while (todo-- && dev->qp_err_count) {
		struct cxfw_qp *qp;

		if (dev->qp_err_cursor >= dev->qp_err_count)
			dev->qp_err_cursor = 0;
		i = dev->qp_err_cursor;
		qp = cxfw_qp_lookup(dev, dev->qp_err_poll[i]);
		if (!qp || qp->state != CXIB_QPC_STATE_ERR) {
			cxfw_qp_err_unwatch_at(dev, i);	/* the last entry moves to i */
			continue;
		}
		dev->qp_err_cursor++;
		if (now - qp->err_poll_ns >= CXFW_QP_ERR_POLL_NS) {
			qp->err_poll_ns = now;
			due[n++] = qp->qpn;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < n; i++)
		cxfw_qp_flush_wqs(dev, due[i], false);
}

/* Serve the SQ doorbells rung since the last call, then poll QPs in ERR.  Worker only. */
void cxfw_qp_process(struct cxfw_dev *dev)
{
	uint32_t qpn;

	for (;;) {
		struct cxfw_qp *qp;

		pthread_mutex_lock(&dev->lock);
		if (dev->qp_db_count) {
			qpn = dev->qp_db_ring[dev->qp_db_head];
			dev->qp_db_head = (dev->qp_db_head + 1) % CXFW_QP_DB_RING;
			dev->qp_db_count--;
		} else if (dev->qp_db_overflow) {
			dev->qp_db_overflow = false;
			pthread_mutex_unlock(&dev->lock);
			for (qpn = CXFW_FIRST_QPN; qpn < CXFW_MAX_QPS; qpn++) {
				bool pending;

				pthread_mutex_lock(&dev->lock);
				qp = cxfw_qp_lookup(dev, qpn);
				pending = qp && qp->sq_db_pending;
				if (pending)
					qp->sq_db_pending = false;
				pthread_mutex_unlock(&dev->lock);
				if (pending)
					cxfw_qp_sq_serve(dev, qpn);
			}
			continue;
		} else {
			pthread_mutex_unlock(&dev->lock);
			cxfw_qp_err_poll(dev);
			return;
		}
		qp = cxfw_qp_lookup(dev, qpn);
		if (qp)
			qp->sq_db_pending = false;
		pthread_mutex_unlock(&dev->lock);
		if (qp)
			cxfw_qp_sq_serve(dev, qpn);
	}
}

struct cxfw_qp *cxfw_qp_find(const struct cxfw_dev *dev, uint32_t qpn)
{
	return cxfw_qp_lookup(dev, qpn);
}

void cxfw_qp_error(struct cxfw_dev *dev, struct cxfw_qp *qp, unsigned int event_type)
{
	uint32_t qpn = qp->qpn, data[7] = { 0 };
	uint64_t eq = 0;
	uint8_t from;

	pthread_mutex_lock(&dev->lock);
	from = qp->state;
	if (from != CXIB_QPC_STATE_ERR && from != CXIB_QPC_STATE_RST)
		qp->state = CXIB_QPC_STATE_ERR;
	pthread_mutex_unlock(&dev->lock);
	if (from == CXIB_QPC_STATE_ERR || from == CXIB_QPC_STATE_RST)
		return;		/* already stopped: nothing to flush, no second event */
	cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: QP 0x%x to ERR (event 0x%02x)", qpn, event_type);
	cxfw_req_modify(dev, qp, from, CXIB_QPC_STATE_ERR);
	cxfw_resp_modify(dev, qp, from, CXIB_QPC_STATE_ERR);
	if (event_type)
		eq = cxfw_eq_subscriber(dev, event_type);
	if (eq) {
		/* EQE data dword k is EQE dword 8 + k */
		data[CXIB_DW(CXIB_EQE_QP_TYPE) - 8] |=
			CXIB_FIELD_PREP(CXIB_EQE_QP_TYPE, CXIB_EVENT_QUEUE_TYPE_QP);
		data[CXIB_DW(CXIB_EQE_QP_QPN) - 8] |= CXIB_FIELD_PREP(CXIB_EQE_QP_QPN, qpn);
		cxfw_eq_post(dev, eq, event_type, 0, data);
	}
	cxfw_qp_flush(dev, qpn);
}

/*
 * A send error on a UD or UC QP (IBA 10.3.1, the Send Queue Error state): the SQ stops
 * and is flushed after the error CQE the caller wrote, the RQ keeps receiving; SQERR2RTS
 * resumes.  An RC QP goes to ERR instead; a QP not in RTS/SQD is left alone.  No async
 * event.
 */
void cxfw_qp_sq_error(struct cxfw_dev *dev, struct cxfw_qp *qp)
{
	uint8_t from;

	if (qp->st == CXIB_QPC_ST_RC) {
		cxfw_qp_error(dev, qp, 0);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	from = qp->state;
	if (from == CXIB_QPC_STATE_RTS || from == CXIB_QPC_STATE_SQD)
		qp->state = CXIB_QPC_STATE_SQER;
	pthread_mutex_unlock(&dev->lock);
	if (from != CXIB_QPC_STATE_RTS && from != CXIB_QPC_STATE_SQD)
		return;
	cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: QP 0x%x to SQER", qp->qpn);
	cxfw_req_modify(dev, qp, from, CXIB_QPC_STATE_SQER);
	cxfw_resp_modify(dev, qp, from, CXIB_QPC_STATE_SQER);
	cxfw_qp_flush(dev, qp->qpn);
}
