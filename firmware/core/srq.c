// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw shared receive queues, resource side (PRM section 5.6).  One SRQ object behind three
 * sets of commands, one SRQN space for all of them as in firmware:
 *
 *  - ISSI 0: CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ and ARM_RQ op_mod 1 (srqc);
 *  - XRC SRQs: CREATE_XRC_SRQ / DESTROY_XRC_SRQ / QUERY_XRC_SRQ / ARM_XRC_SRQ op_mod 1
 *    (xrc_srqc: the srqc's positions plus user_index; xrcd and cqn must exist);
 *  - RMPs (ISSI 1 basic SRQs): CREATE_RMP / MODIFY_RMP / DESTROY_RMP / QUERY_RMP (rmpc
 *    with a linked-list wq context; MODIFY_RMP takes the current state, the next state in
 *    the rmpc, and the wq's lwm when the bitmask says so).
 *
 * A command naming an object of another kind answers BAD_RESOURCE, as for no object.  Each
 * front end reads its context into one geometry (cxfw_srq_geom) and cxfw_srq_create()
 * checks and builds the object; the receive engine (resp.c) sees every kind alike through
 * srq->srqc (an RMP's wq is translated into it) and takes WQEs from the linked list
 * (cxfw_srq_wqe_addr), reporting each consumption here: when the number of
 * posted-but-unconsumed WQEs drops below an armed lwm (set at creation or by ARM_RQ,
 * ARM_XRC_SRQ, MODIFY_RMP), one SRQ_RQ_LIMIT event (0x14) is posted and the SRQ disarmed
 * until it is armed again.  A broken list (unreadable WQE, next_wqe_index outside the SRQ)
 * puts the SRQ in error (QUERY state ERROR / ERR, no more WQEs taken) with one
 * SRQ_CATAS_ERROR event (0x12).  A QP on an XRC SRQ completes its receives on the XRC
 * SRQ's CQ (qp.c).
 *
 * page_offset counts page_size / 64 units (CXIB_PAGE_OFFSET_BYTES()).  SRQNs run
 * 1 .. CXFW_MAX_SRQS - 1, lowest free first (never 0: with cqe_version 0 a CQE's srqn 0
 * means "no SRQ").  An SRQ holds its PD and CQ; a QP using it holds the SRQ.  The xrcd of
 * a CREATE_SRQ srqc is recorded, not checked; an XRC SRQ's must be allocated.
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"


/* What a front end read from its context: the geometry of the SRQ to create. */
struct cxfw_srq_geom {
	uint8_t kind;			/* enum cxfw_srq_kind */
	uint32_t log_size;		/* 2^log_size WQEs */
	uint32_t log_stride;		/* of 2^log_stride bytes */
	uint32_t log_pg;		/* pages of 4 KiB << log_pg */
	uint32_t page_offset;		/* in page_size / 64 units */
	uint32_t pd, cqn, xrcd, user_index, lwm;
	bool uidx_is_srqn;		/* user_index_equal_xrc_srqn */
	uint64_t dbr;
	uint32_t pas_off;
	const char *what;
};

/* A context field a front end requires to be zero (unsupported features, umem). */
struct cxfw_srq_field {
	uint8_t dw, hi, lo;
};

#define ZF(f)	{ CXIB_FIELD_POS(f) }

/* rmpc fields (relative to the rmpc) and wq fields (relative to the wq) that must be 0. */
static const struct cxfw_srq_field cxfw_rmpc_zero[] = {
	ZF(CXIB_RMPC_BASIC_CYCLIC_RCV_WQE),
};

static const struct cxfw_srq_field cxfw_wqc_zero[] = {
	ZF(CXIB_WQC_WQ_SIGNATURE),		ZF(CXIB_WQC_END_PADDING_MODE),
	ZF(CXIB_WQC_CD_SLAVE),			ZF(CXIB_WQC_HDS_SKIP_FIRST_SGE),
	ZF(CXIB_WQC_LOG2_HDS_BUF_SIZE),		ZF(CXIB_WQC_DBR_UMEM_VALID),
	ZF(CXIB_WQC_WQ_UMEM_VALID),		ZF(CXIB_WQC_LOG_HAIRPIN_NUM_PACKETS),
	ZF(CXIB_WQC_LOG_HAIRPIN_DATA_SZ),	ZF(CXIB_WQC_LOG_WQE_NUM_OF_STRIDES),
	ZF(CXIB_WQC_TWO_BYTE_SHIFT_EN),		ZF(CXIB_WQC_LOG_WQE_STRIDE_SIZE),
	ZF(CXIB_WQC_SHAMPO_ENABLE),
};

/* xrc_srqc fields that must be 0 (WQ signature, cyclic receive WQEs and umem: no caps). */
static const struct cxfw_srq_field cxfw_xrc_srqc_zero[] = {
	ZF(CXIB_XRC_SRQC_WQ_SIGNATURE),		ZF(CXIB_XRC_SRQC_BASIC_CYCLIC_RCV_WQE),
	ZF(CXIB_XRC_SRQC_DBR_UMEM_VALID),
};

/* The first field of @f[0..n) set in @ctx, as its dword index + 1; 0 if all are clear. */
static uint32_t cxfw_srq_nonzero(const __be32 *ctx, const struct cxfw_srq_field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (CXIB_GET(ctx, f[i].dw, f[i].hi, f[i].lo))
			return f[i].dw + 1u;
	return 0;
}

struct cxfw_srq *cxfw_srq_lookup(const struct cxfw_dev *dev, uint32_t srqn)
{
	return dev->srqs && srqn && srqn < CXFW_MAX_SRQS ? dev->srqs[srqn] : NULL;
}

static void cxfw_srq_free(struct cxfw_srq *srq)
{
	if (srq)
		free(srq->pas);
	free(srq);
}

void cxfw_srq_destroy_all(struct cxfw_dev *dev)
{
	unsigned int i;

	cxfw_resp_dev_free(dev);	/* the QPs went first (cxfw_hca_release_resources) */

	if (dev->srqs)
		for (i = 0; i < CXFW_MAX_SRQS; i++)
			cxfw_srq_free(dev->srqs[i]);
	free(dev->srqs);
	dev->srqs = NULL;
}

uint64_t cxfw_srq_wqe_addr(const struct cxfw_srq *srq, uint32_t idx)
{
	unsigned int shift = CXIB_ADAPTER_PAGE_SHIFT + srq->log_pg;
	uint64_t off = srq->offset +
		       ((uint64_t)(idx & ((1u << srq->log_size) - 1)) << srq->log_stride);

	return srq->pas[off >> shift] + (off & ((1ull << shift) - 1));
}

/* SRQ events carry the SRQN in EQE data dword 6 (EQE dword 14). */
static void cxfw_srq_event(struct cxfw_dev *dev, uint32_t srqn, unsigned int type)
{
	uint32_t data[7] = { 0 };
	uint64_t eq = cxfw_eq_subscriber(dev, type);

	if (!eq)
		return;
	data[CXIB_DW(CXIB_EQE_SRQ_SRQN) - 8] = CXIB_FIELD_PREP(CXIB_EQE_SRQ_SRQN, srqn);
	cxfw_eq_post(dev, eq, type, 0, data);
}

void cxfw_srq_consumed(struct cxfw_dev *dev, uint32_t srqn, struct cxfw_srq *srq,
		       uint16_t posted)
{
	bool fire = false;

	pthread_mutex_lock(&dev->lock);
	if (srq->armed && posted < srq->lwm) {
		srq->armed = false;
		fire = true;
	}
	pthread_mutex_unlock(&dev->lock);
	if (fire)
		cxfw_srq_event(dev, srqn, CXIB_EVENT_TYPE_SRQ_RQ_LIMIT);
}

void cxfw_srq_fail(struct cxfw_dev *dev, uint32_t srqn, struct cxfw_srq *srq, uint16_t next)
{
	bool first;

	pthread_mutex_lock(&dev->lock);
	first = !srq->error;
	srq->error = true;
	pthread_mutex_unlock(&dev->lock);
	if (!first)
		return;
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: SRQ %u: WQE %u unreadable or links to %u, SRQ to error",
		 srqn, srq->wqe_head, next);
	cxfw_srq_event(dev, srqn, CXIB_EVENT_TYPE_SRQ_CATAS_ERROR);
}

static bool cxfw_xrcd_allocated(const struct cxfw_dev *dev, uint32_t xrcd)
{
	return xrcd && xrcd < CXFW_MAX_XRCDS && (dev->xrcd_map[xrcd / 64] >> (xrcd % 64) & 1);
}

/* Lock held: the resources @g names, as the kind requires; OK or the failure status. */
static uint8_t cxfw_srq_check_refs(struct cxfw_dev *dev, struct cxfw_cmd *cmd,
				   const struct cxfw_srq_geom *g)
{
	bool cq_ok = dev->cqs && g->cqn < CXFW_MAX_CQS && dev->cqs[g->cqn];

	if (g->log_size > CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_SRQ_SZ))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, g->log_size));
	if (g->lwm >= (1u << g->log_size))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, g->lwm));
	if (!cxfw_pd_valid(dev, g->pd))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, g->pd));
	/* an XRC SRQ's completions go to its CQ: it must have one; ISSI 0: 0 or a CQ */
	if ((g->cqn || g->kind == CXFW_SRQ_KIND_XRC_SRQ) && !cq_ok)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, g->cqn));
	if (g->kind == CXFW_SRQ_KIND_XRC_SRQ && !cxfw_xrcd_allocated(dev, g->xrcd))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, g->xrcd));
	return CXIB_CMD_STAT_OK;
}

/*
 * Check @g, load its PAS list and enter a new SRQ with the receive engine's view @srqc
 * (its log_rq_stride and dbr_addr are those of @g) and, for an RMP, @rmpc; *srqn is its
 * number.  Returns the command status.
 */
static uint8_t cxfw_srq_create(struct cxfw_dev *dev, struct cxfw_cmd *cmd,
			       const struct cxfw_srq_geom *g, const __be32 *srqc,
			       const struct cxib_rmpc *rmpc, uint32_t *srqn_out)
{
	uint64_t probe, *list = NULL, offset;
	uint32_t srqn, npas = 0;
	struct cxfw_srq *srq;
	uint8_t st;

	if (g->log_stride < CXIB_SRQC_LOG_RQ_STRIDE_BASE ||
	    g->log_stride > CXIB_SRQC_LOG_RQ_STRIDE_BASE + CXFW_MAX_LOG_RQ_STRIDE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, g->log_stride));
	if (g->log_pg > CXFW_MAX_LOG_PAGE_SIZE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, g->log_pg));
	offset = CXIB_PAGE_OFFSET_BYTES(g->page_offset, g->log_pg);
	pthread_mutex_lock(&dev->lock);
	st = cxfw_srq_check_refs(dev, cmd, g);
	pthread_mutex_unlock(&dev->lock);
	if (st)
		return st;
	if (!g->dbr || (g->dbr & (CXIB_SRQ_DB_SIZE - 1)) ||
	    cxfw_dma_read(dev, g->dbr, &probe, CXIB_SRQ_DB_SIZE))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, (uint32_t)g->dbr));
	st = cxfw_pas_load(dev, cmd, g->pas_off, g->log_pg,
			   offset + ((uint64_t)1 << g->log_stride << g->log_size), &list, &npas,
			   g->what);
	if (st)
		return st;
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		free(list);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	memcpy(srq->srqc, srqc, sizeof(srq->srqc));
	if (rmpc)
		srq->rmpc = *rmpc;
	srq->kind = g->kind;
	srq->pd = g->pd;
	srq->cqn = g->cqn;
	srq->xrcd = g->xrcd;
	srq->user_index = g->user_index;
	srq->log_size = (uint8_t)g->log_size;
	srq->log_stride = (uint8_t)g->log_stride;
	srq->log_pg = (uint8_t)g->log_pg;
	srq->offset = (uint32_t)offset;
	srq->lwm = (uint16_t)g->lwm;
	srq->armed = g->lwm != 0;
	srq->npas = npas;
	srq->pas = list;

	pthread_mutex_lock(&dev->lock);
	if (!dev->srqs)
		dev->srqs = calloc(CXFW_MAX_SRQS, sizeof(*dev->srqs));
	srqn = CXFW_MAX_SRQS;
	if (dev->srqs)
		for (srqn = 1; srqn < CXFW_MAX_SRQS && dev->srqs[srqn]; srqn++)
			;
	if (srqn == CXFW_MAX_SRQS) {
		pthread_mutex_unlock(&dev->lock);
		cxfw_srq_free(srq);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	if (g->uidx_is_srqn)
		srq->user_index = srqn;
	/* PD and CQ cannot have gone meanwhile: only commands (this thread) free them */
	dev->srqs[srqn] = srq;
	dev->pd_refs[g->pd]++;
	if (g->cqn)
		dev->cqs[g->cqn]->refs++;
	pthread_mutex_unlock(&dev->lock);
	*srqn_out = srqn;
	return CXIB_CMD_STAT_OK;
}

/*
 * The SRQ of @kind a command names (@srqn); lock held on success.  An object of another
 * kind is BAD_RESOURCE, as no object is.  (The byte above the number is reserved in
 * every command but MODIFY_RMP: include/cxib/cmd_rsvd.h, checked before the command runs.)
 */
static struct cxfw_srq *cxfw_srq_get(struct cxfw_dev *dev, struct cxfw_cmd *cmd,
				     uint32_t srqn, uint8_t kind, uint8_t *st)
{
	struct cxfw_srq *srq;

	if (!srqn || srqn >= CXFW_MAX_SRQS) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, srqn));
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	srq = cxfw_srq_lookup(dev, srqn);
	if (!srq || srq->kind != kind) {
		pthread_mutex_unlock(&dev->lock);
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, srqn));
		return NULL;
	}
	return srq;
}

static uint8_t cxfw_srq_destroy(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t srqn,
				uint8_t kind)
{
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq = cxfw_srq_get(dev, cmd, srqn, kind, &st);

	if (!srq)
		return st;
	if (srq->refs) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_RES_BUSY, CXFW_SYND(CXFW_SYND_RES_BUSY, srqn));
	}
	dev->srqs[srqn] = NULL;
	if (dev->pd_refs && dev->pd_refs[srq->pd] > 1)
		dev->pd_refs[srq->pd]--;
	if (srq->cqn && dev->cqs && dev->cqs[srq->cqn])
		dev->cqs[srq->cqn]->refs--;
	pthread_mutex_unlock(&dev->lock);
	cxfw_srq_free(srq);
	return CXIB_CMD_STAT_OK;
}

/* Set the limit watermark (0 disarms); lwm beyond the SRQ is BAD_PARAM. */
static uint8_t cxfw_srq_arm(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t srqn,
			    uint8_t kind, uint32_t lwm)
{
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq = cxfw_srq_get(dev, cmd, srqn, kind, &st);

	if (!srq)
		return st;
	if (lwm >= (1u << srq->log_size)) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, lwm));
	}
	srq->lwm = (uint16_t)lwm;
	srq->armed = lwm != 0;
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

/* QUERY_SRQ / QUERY_XRC_SRQ: the context as created with the current state and lwm. */
static uint8_t cxfw_srq_query(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t srqn,
			      uint8_t kind, uint32_t ctx_off)
{
	__be32 *srqc = (__be32 *)cxfw_out_bytes(cmd, ctx_off);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq = cxfw_srq_get(dev, cmd, srqn, kind, &st);

	if (!srq)
		return st;
	memcpy(srqc, srq->srqc, sizeof(srq->srqc));
	CXIB_SET(srqc, CXIB_SRQC_STATE, srq->error ? CXIB_SRQC_STATE_ERROR :
						     CXIB_SRQC_STATE_GOOD);
	CXIB_SET(srqc, CXIB_SRQC_LWM, srq->lwm);
	CXIB_SET(srqc, CXIB_SRQC_WQE_CNT, 0);
	if (kind == CXFW_SRQ_KIND_XRC_SRQ)
		CXIB_SET(srqc, CXIB_XRC_SRQC_USER_INDEX, srq->user_index);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

/* ---- ISSI 0: CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ / ARM_RQ ------------------------------- */

uint8_t cxfw_cmd_create_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_create_srq_out *out = (void *)cmd->out;
	const __be32 *srqc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_CREATE_SRQ_IN_SRQC_OFFSET);
	struct cxfw_srq_geom g = {
		.kind = CXFW_SRQ_KIND_SRQ,
		.log_size = CXIB_GET(srqc, CXIB_SRQC_LOG_SRQ_SIZE),
		.log_stride = CXIB_GET(srqc, CXIB_SRQC_LOG_RQ_STRIDE) +
			      CXIB_SRQC_LOG_RQ_STRIDE_BASE,
		.log_pg = CXIB_GET(srqc, CXIB_SRQC_LOG_PAGE_SIZE),
		.page_offset = CXIB_GET(srqc, CXIB_SRQC_PAGE_OFFSET),
		.pd = CXIB_GET(srqc, CXIB_SRQC_PD),
		.cqn = CXIB_GET(srqc, CXIB_SRQC_CQN),
		.xrcd = CXIB_GET(srqc, CXIB_SRQC_XRCD),
		.lwm = CXIB_GET(srqc, CXIB_SRQC_LWM),
		.dbr = CXIB_GET64(srqc, CXIB_SRQC_DBR_ADDR),
		.pas_off = CXIB_CREATE_SRQ_IN_PAS_OFFSET,
		.what = "CREATE_SRQ",
	};
	uint32_t srqn = 0;
	uint8_t st;

	if (CXIB_GET(srqc, CXIB_SRQC_STATE) != CXIB_SRQC_STATE_GOOD ||
	    CXIB_GET(srqc, CXIB_SRQC_WQ_SIGNATURE))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 0));
	st = cxfw_srq_create(dev, cmd, &g, srqc, NULL, &srqn);
	if (!st)
		CXIB_SET(out, CXIB_CREATE_SRQ_OUT_SRQN, srqn);
	return st;
}

uint8_t cxfw_cmd_destroy_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_srq_in *in = (const void *)cmd->in;
	return cxfw_srq_destroy(dev, cmd, CXIB_GET(in, CXIB_DESTROY_SRQ_IN_SRQN),
				CXFW_SRQ_KIND_SRQ);
}

uint8_t cxfw_cmd_query_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_srq_in *in = (const void *)cmd->in;
	return cxfw_srq_query(dev, cmd, CXIB_GET(in, CXIB_QUERY_SRQ_IN_SRQN),
			      CXFW_SRQ_KIND_SRQ, CXIB_QUERY_SRQ_OUT_SRQC_OFFSET);
}

uint8_t cxfw_cmd_arm_rq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_arm_rq_in *in = (const void *)cmd->in;
	return cxfw_srq_arm(dev, cmd, CXIB_GET(in, CXIB_ARM_RQ_IN_SRQ_NUMBER),
			    CXFW_SRQ_KIND_SRQ, CXIB_GET(in, CXIB_ARM_RQ_IN_LWM));
}

/* ---- XRC SRQs: CREATE_XRC_SRQ / DESTROY_XRC_SRQ / QUERY_XRC_SRQ / ARM_XRC_SRQ ------------ */

uint8_t cxfw_cmd_create_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_create_xrc_srq_in *in = (const void *)cmd->in;
	struct cxib_create_xrc_srq_out *out = (void *)cmd->out;
	const __be32 *xc = (const __be32 *)cxfw_in_bytes(cmd,
							 CXIB_CREATE_XRC_SRQ_IN_XRC_SRQC_OFFSET);
	struct cxfw_srq_geom g = {
		.kind = CXFW_SRQ_KIND_XRC_SRQ,
		.log_size = CXIB_GET(xc, CXIB_XRC_SRQC_LOG_XRC_SRQ_SIZE),
		.log_stride = CXIB_GET(xc, CXIB_XRC_SRQC_LOG_RQ_STRIDE) +
			      CXIB_SRQC_LOG_RQ_STRIDE_BASE,
		.log_pg = CXIB_GET(xc, CXIB_XRC_SRQC_LOG_PAGE_SIZE),
		.page_offset = CXIB_GET(xc, CXIB_XRC_SRQC_PAGE_OFFSET),
		.pd = CXIB_GET(xc, CXIB_XRC_SRQC_PD),
		.cqn = CXIB_GET(xc, CXIB_XRC_SRQC_CQN),
		.xrcd = CXIB_GET(xc, CXIB_XRC_SRQC_XRCD),
		.user_index = CXIB_GET(xc, CXIB_XRC_SRQC_USER_INDEX),
		.uidx_is_srqn = CXIB_GET(xc, CXIB_XRC_SRQC_USER_INDEX_EQUAL_XRC_SRQN),
		.lwm = CXIB_GET(xc, CXIB_XRC_SRQC_LWM),
		.dbr = CXIB_GET64(xc, CXIB_XRC_SRQC_DB_RECORD_ADDR),
		.pas_off = CXIB_CREATE_XRC_SRQ_IN_PAS_OFFSET,
		.what = "CREATE_XRC_SRQ",
	};
	uint32_t srqn = 0, bad;
	uint8_t st;

	if (CXIB_GET(xc, CXIB_XRC_SRQC_STATE) != CXIB_SRQC_STATE_GOOD)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, CXIB_GET(xc, CXIB_XRC_SRQC_STATE)));
	bad = cxfw_srq_nonzero(xc, cxfw_xrc_srqc_zero,
			       sizeof(cxfw_xrc_srqc_zero) / sizeof(cxfw_xrc_srqc_zero[0]));
	if (bad)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, bad - 1));
	if (CXIB_GET(in, CXIB_CREATE_XRC_SRQ_IN_XRC_SRQ_UMEM_VALID))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_DW(CXIB_CREATE_XRC_SRQ_IN_XRC_SRQ_UMEM_VALID)));
	st = cxfw_srq_create(dev, cmd, &g, xc, NULL, &srqn);
	if (!st)
		CXIB_SET(out, CXIB_CREATE_XRC_SRQ_OUT_XRC_SRQN, srqn);
	return st;
}

uint8_t cxfw_cmd_destroy_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_xrc_srq_in *in = (const void *)cmd->in;
	return cxfw_srq_destroy(dev, cmd, CXIB_GET(in, CXIB_DESTROY_XRC_SRQ_IN_XRC_SRQN),
				CXFW_SRQ_KIND_XRC_SRQ);
}

uint8_t cxfw_cmd_query_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_xrc_srq_in *in = (const void *)cmd->in;
	return cxfw_srq_query(dev, cmd, CXIB_GET(in, CXIB_QUERY_XRC_SRQ_IN_XRC_SRQN),
			      CXFW_SRQ_KIND_XRC_SRQ, CXIB_QUERY_XRC_SRQ_OUT_XRC_SRQC_OFFSET);
}

uint8_t cxfw_cmd_arm_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_arm_xrc_srq_in *in = (const void *)cmd->in;
	return cxfw_srq_arm(dev, cmd, CXIB_GET(in, CXIB_ARM_XRC_SRQ_IN_XRC_SRQN),
			    CXFW_SRQ_KIND_XRC_SRQ, CXIB_GET(in, CXIB_ARM_XRC_SRQ_IN_LWM));
}

/* ---- RMPs: CREATE_RMP / MODIFY_RMP / DESTROY_RMP / QUERY_RMP ----------------------------- */

uint8_t cxfw_cmd_create_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_create_rmp_out *out = (void *)cmd->out;
	const struct cxib_rmpc *rmpc = (const void *)cxfw_in_bytes(cmd,
								    CXIB_CREATE_RMP_IN_RMPC_OFFSET);
	const struct cxib_wqc *wq = cxib_rmpc_wq_const(rmpc);
	struct cxfw_srq_geom g = {
		.kind = CXFW_SRQ_KIND_RMP,
		.log_size = CXIB_GET(wq, CXIB_WQC_LOG_WQ_SZ),
		.log_stride = CXIB_GET(wq, CXIB_WQC_LOG_WQ_STRIDE),
		.log_pg = CXIB_GET(wq, CXIB_WQC_LOG_WQ_PG_SZ),
		.page_offset = CXIB_GET(wq, CXIB_WQC_PAGE_OFFSET),
		.pd = CXIB_GET(wq, CXIB_WQC_PD),
		.lwm = CXIB_GET(wq, CXIB_WQC_LWM),
		.dbr = CXIB_GET64(wq, CXIB_WQC_DBR_ADDR),
		.pas_off = CXIB_CREATE_RMP_IN_PAS_OFFSET,
		.what = "CREATE_RMP",
	};
	__be32 srqc[CXIB_SRQC_SIZE / 4] = { 0 };
	uint32_t srqn = 0, bad;
	uint8_t st;

	if (CXIB_GET(rmpc, CXIB_RMPC_STATE) != CXIB_RMPC_STATE_RDY)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, CXIB_GET(rmpc, CXIB_RMPC_STATE)));
	if (CXIB_GET(wq, CXIB_WQC_WQ_TYPE) != CXIB_WQ_TYPE_LINKED_LIST)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, CXIB_GET(wq, CXIB_WQC_WQ_TYPE)));
	bad = cxfw_srq_nonzero(rmpc->dw, cxfw_rmpc_zero,
			       sizeof(cxfw_rmpc_zero) / sizeof(cxfw_rmpc_zero[0]));
	if (!bad) {
		bad = cxfw_srq_nonzero(wq->dw, cxfw_wqc_zero,
				       sizeof(cxfw_wqc_zero) / sizeof(cxfw_wqc_zero[0]));
		bad = bad ? bad + CXIB_RMPC_WQ_OFFSET / 4 : 0;
	}
	if (bad)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, bad - 1));
	/* the receive engine's view of it, in srqc terms */
	CXIB_SET(srqc, CXIB_SRQC_LOG_SRQ_SIZE, g.log_size);
	CXIB_SET(srqc, CXIB_SRQC_LOG_RQ_STRIDE, g.log_stride - CXIB_SRQC_LOG_RQ_STRIDE_BASE);
	CXIB_SET(srqc, CXIB_SRQC_LOG_PAGE_SIZE, g.log_pg);
	CXIB_SET(srqc, CXIB_SRQC_PAGE_OFFSET, g.page_offset);
	CXIB_SET(srqc, CXIB_SRQC_PD, g.pd);
	CXIB_SET64(srqc, CXIB_SRQC_DBR_ADDR, g.dbr);
	st = cxfw_srq_create(dev, cmd, &g, srqc, rmpc, &srqn);
	if (!st)
		CXIB_SET(out, CXIB_CREATE_RMP_OUT_RMPN, srqn);
	return st;
}

uint8_t cxfw_cmd_modify_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_modify_rmp_in *in = (const void *)cmd->in;
	const struct cxib_rmpc *rmpc = (const void *)cxfw_in_bytes(cmd,
								    CXIB_MODIFY_RMP_IN_RMPC_OFFSET);
	const struct cxib_wqc *wq = cxib_rmpc_wq_const(rmpc);
	uint64_t bitmask = CXIB_GET64(in, CXIB_MODIFY_RMP_IN_BITMASK);
	uint32_t cur = CXIB_GET(in, CXIB_MODIFY_RMP_IN_RMP_STATE);
	uint32_t next = CXIB_GET(rmpc, CXIB_RMPC_STATE), lwm = CXIB_GET(wq, CXIB_WQC_LWM);
	uint32_t rmpn = CXIB_GET(in, CXIB_MODIFY_RMP_IN_RMPN);
	uint8_t st = CXIB_CMD_STAT_OK, now;
	struct cxfw_srq *srq;

	/* lwm is the only field of an RMP that can change */
	if (bitmask & ~CXIB_RMP_BITMASK_LWM)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, (uint32_t)bitmask));
	if (next != CXIB_RMPC_STATE_RDY && next != CXIB_RMPC_STATE_ERR)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, next));
	srq = cxfw_srq_get(dev, cmd, rmpn, CXFW_SRQ_KIND_RMP, &st);
	if (!srq)
		return st;
	now = srq->error ? CXIB_RMPC_STATE_ERR : CXIB_RMPC_STATE_RDY;
	/* the caller's idea of the state must be right; nothing leaves ERR but DESTROY */
	if (cur != now || (now == CXIB_RMPC_STATE_ERR && next == CXIB_RMPC_STATE_RDY))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES_STATE,
			       CXFW_SYND(CXFW_SYND_BAD_STATE, now));
	else if ((bitmask & CXIB_RMP_BITMASK_LWM) && lwm >= (1u << srq->log_size))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, lwm));
	if (!st && (bitmask & CXIB_RMP_BITMASK_LWM)) {
		srq->lwm = (uint16_t)lwm;
		srq->armed = lwm != 0;
	}
	if (!st && next == CXIB_RMPC_STATE_ERR)
		srq->error = true;
	pthread_mutex_unlock(&dev->lock);
	return st;
}

uint8_t cxfw_cmd_destroy_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_rmp_in *in = (const void *)cmd->in;
	return cxfw_srq_destroy(dev, cmd, CXIB_GET(in, CXIB_DESTROY_RMP_IN_RMPN),
				CXFW_SRQ_KIND_RMP);
}

uint8_t cxfw_cmd_query_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_rmp_in *in = (const void *)cmd->in;
	struct cxib_rmpc *rmpc = (void *)cxfw_out_bytes(cmd, CXIB_QUERY_RMP_OUT_RMPC_OFFSET);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq = cxfw_srq_get(dev, cmd, CXIB_GET(in, CXIB_QUERY_RMP_IN_RMPN),
					    CXFW_SRQ_KIND_RMP, &st);

	if (!srq)
		return st;
	*rmpc = srq->rmpc;
	CXIB_SET(rmpc, CXIB_RMPC_STATE, srq->error ? CXIB_RMPC_STATE_ERR : CXIB_RMPC_STATE_RDY);
	CXIB_SET(cxib_rmpc_wq(rmpc), CXIB_WQC_LWM, srq->lwm);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}
