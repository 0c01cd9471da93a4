// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw shared receive queues, resource side (PRM section 5.6, ISSI 0 commands):
 * CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ and ARM_RQ op_mod 1 (SRQ limit watermark; op_mod 0,
 * RQ objects, is refused by the command engine).  The receive engine (rq.c) takes WQEs
 * from the linked list (cxfw_srq_wqe_addr) and reports each consumption here: when the
 * number of posted-but-unconsumed WQEs drops below an armed lwm, one SRQ_RQ_LIMIT event
 * (0x14) is posted and the SRQ disarmed until the next ARM_RQ.  A broken list (unreadable
 * WQE, next_wqe_index outside the SRQ) puts the SRQ in error (QUERY_SRQ state 1, no more
 * WQEs taken) with one SRQ_CATAS_ERROR event (0x12).
 *
 * SRQNs run 1 .. CXFW_MAX_SRQS - 1, lowest free first (never 0: with cqe_version 0 a CQE's
 * srqn 0 means "no SRQ").  An SRQ holds its PD and (XRC) CQ; a QP using it holds the SRQ.
 * xrcd is recorded but not checked (ALLOC_XRCD is not modelled yet).
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_MAX_SRQ_STRIDE	5	/* 512-byte WQEs (cap max_wqe_sz_rq) */

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
	uint32_t stride = CXIB_GET(srq->srqc, CXIB_SRQC_LOG_RQ_STRIDE);
	unsigned int shift = CXIB_ADAPTER_PAGE_SHIFT + CXIB_GET(srq->srqc, CXIB_SRQC_LOG_PAGE_SIZE);
	uint64_t off = (uint64_t)CXIB_GET(srq->srqc, CXIB_SRQC_PAGE_OFFSET) * 64 +
		       ((uint64_t)(idx & ((1u << srq->log_size) - 1)) << (4 + stride));

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

uint8_t cxfw_cmd_create_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const __be32 *srqc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_CREATE_SRQ_IN_SRQC_OFFSET);
	uint32_t log_size = CXIB_GET(srqc, CXIB_SRQC_LOG_SRQ_SIZE);
	uint32_t stride = CXIB_GET(srqc, CXIB_SRQC_LOG_RQ_STRIDE);
	uint32_t log_pg = CXIB_GET(srqc, CXIB_SRQC_LOG_PAGE_SIZE);
	uint32_t page_offset = CXIB_GET(srqc, CXIB_SRQC_PAGE_OFFSET);
	uint32_t pd = CXIB_GET(srqc, CXIB_SRQC_PD), cqn = CXIB_GET(srqc, CXIB_SRQC_CQN);
	uint64_t dbr = CXIB_GET64(srqc, CXIB_SRQC_DBR_ADDR), probe, *list = NULL;
	uint32_t max_log, srqn, npas = 0;
	struct cxfw_srq *srq;
	uint8_t st = CXIB_CMD_STAT_OK;

	if (CXIB_GET(srqc, CXIB_SRQC_STATE) != CXIB_SRQC_STATE_GOOD ||
	    CXIB_GET(srqc, CXIB_SRQC_WQ_SIGNATURE))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 0));
	if (stride > CXFW_MAX_SRQ_STRIDE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, stride));
	if (log_pg > CXFW_MAX_LOG_PAGE_SIZE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, log_pg));
	if ((uint64_t)page_offset * 64 >= (uint64_t)CXIB_ADAPTER_PAGE_SIZE << log_pg)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, page_offset));
	pthread_mutex_lock(&dev->lock);
	max_log = CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_SRQ_SZ);
	if (log_size > max_log)
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
			       CXFW_SYND(CXFW_SYND_BAD_PARAM, log_size));
	else if (!cxfw_pd_valid(dev, pd))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, pd));
	else if (cqn && (!dev->cqs || cqn >= CXFW_MAX_CQS || !dev->cqs[cqn]))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, cqn));
	pthread_mutex_unlock(&dev->lock);
	if (st)
		return st;
	if (!dbr || (dbr & 3) ||
	    dev->plat.dma_read(dev->plat.opaque, dbr, &probe, CXIB_SRQ_DB_SIZE))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, (uint32_t)dbr));
	st = cxfw_pas_load(dev, cmd, CXIB_CREATE_SRQ_IN_PAS_OFFSET, log_pg,
			   (uint64_t)page_offset * 64 + ((uint64_t)16 << stride << log_size),
			   &list, &npas, "CREATE_SRQ");
	if (st)
		return st;
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		free(list);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	memcpy(srq->srqc, srqc, sizeof(srq->srqc));
	srq->pd = pd;
	srq->cqn = cqn;
	srq->log_size = (uint8_t)log_size;
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
	dev->srqs[srqn] = srq;
	dev->pd_refs[pd]++;
	if (cqn)
		dev->cqs[cqn]->refs++;
	pthread_mutex_unlock(&dev->lock);
	CXIB_SET(cmd->out, CXIB_CREATE_SRQ_OUT_SRQN, srqn);
	return CXIB_CMD_STAT_OK;
}

/* The SRQ a command names in dw2[23:0]; lock held on success. */
static struct cxfw_srq *cxfw_srq_get(struct cxfw_dev *dev, struct cxfw_cmd *cmd,
				     uint32_t srqn, uint8_t *st)
{
	struct cxfw_srq *srq;

	if (CXIB_GET(cmd->in, 2, 31, 24)) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_RESERVED, 2));
		return NULL;
	}
	if (!srqn || srqn >= CXFW_MAX_SRQS) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, srqn));
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	srq = cxfw_srq_lookup(dev, srqn);
	if (!srq) {
		pthread_mutex_unlock(&dev->lock);
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, srqn));
	}
	return srq;
}

uint8_t cxfw_cmd_destroy_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	uint32_t srqn = CXIB_GET(cmd->in, CXIB_DESTROY_SRQ_IN_SRQN);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq = cxfw_srq_get(dev, cmd, srqn, &st);

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

uint8_t cxfw_cmd_query_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	__be32 *srqc = (__be32 *)cxfw_out_bytes(cmd, CXIB_QUERY_SRQ_OUT_SRQC_OFFSET);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq = cxfw_srq_get(dev, cmd, CXIB_GET(cmd->in, CXIB_QUERY_SRQ_IN_SRQN),
					    &st);

	if (!srq)
		return st;
	memcpy(srqc, srq->srqc, sizeof(srq->srqc));
	CXIB_SET(srqc, CXIB_SRQC_STATE, srq->error ? CXIB_SRQC_STATE_ERROR :
						     CXIB_SRQC_STATE_GOOD);
	CXIB_SET(srqc, CXIB_SRQC_LWM, srq->lwm);
	CXIB_SET(srqc, CXIB_SRQC_WQE_CNT, 0);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_arm_rq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	uint32_t lwm = CXIB_GET(cmd->in, CXIB_ARM_RQ_IN_LWM);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_srq *srq;

	if (CXIB_GET(cmd->in, 3, 31, 16))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_RESERVED, 3));
	srq = cxfw_srq_get(dev, cmd, CXIB_GET(cmd->in, CXIB_ARM_RQ_IN_SRQ_NUMBER), &st);
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
