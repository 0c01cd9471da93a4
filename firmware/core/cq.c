// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw completion queues (PRM sections 5.3, 6.3, 6.4): CREATE_CQ / DESTROY_CQ / QUERY_CQ /
 * MODIFY_CQ, the CQE writer, the CQ doorbell record, arming and completion events.
 *
 * A CQ is a ring of 2^log_cq_size CQEs in guest memory described by its PAS list, like an
 * EQ; with cqe_sz 128 each slot is 128 bytes and the CQE is its second half.  CQE number p
 * (p = producer counter) goes to slot p % size with owner bit (p >> log_cq_size) & 1 (the
 * driver initialises op_own to 0xf0), and op_own is written after the rest of the CQE.
 *
 * Overrun: before each CQE the device reads set_ci (doorbell record dword 0); if size
 * CQEs are outstanding the CQ is full: unless created with oi, the CQ goes to error (status
 * CQ_OVERFLOW, every later CQE dropped) and a CQ error event (syndrome 1) goes to the EQ
 * that subscribes to CQ_ERROR.  A failed CQE write does the same with status
 * CQ_WRITE_FAIL / syndrome 2.
 *
 * Arming: the 64-bit doorbell at UAR + 0x20 (dw0 = sn << 28 | cmd << 24 | ci, dw1 = cqn)
 * arms the CQ for the next CQE (cmd 0) or the next solicited-or-error CQE (cmd 1).  If a
 * qualifying CQE already sits at an index >= ci the event fires at once, else the CQE
 * writer fires it; either way one completion EQE (type 0, CQN) goes to c_eqn and the CQ is
 * disarmed.  An arm carrying the sn of the arm that last fired is stale (issued before the
 * driver saw that event) and is ignored.  Doorbells arrive on vCPU threads: they only
 * update the arm state under the lock and leave the EQE to the worker (cxfw_cq_process).
 * A doorbell through a UAR other than the CQ's uar_page, or for no CQ, is ignored.
 *
 * Moderation (caps cq_moderation, cq_period_start_from_cqe, cq_period_mode_modify,
 * scqe_break_moderation): cq_max_count (CQEs) and cq_period (microseconds), 0 = that trigger
 * off, both 0 = no moderation.  A moderated CQ whose arm is met raises its event only when
 * max_count CQEs sit at indexes >= the arm's ci, or when the period timer has run out,
 * whichever comes first.  The timer (re)starts at each completion event (and when moderation
 * is set) in cq_period_mode START_FROM_EQE, at each CQE in START_FROM_CQE.  With
 * scqe_break_moderation_en a CQE with SE set breaks moderation: a met arm fires at once.
 * Solicited and error CQEs are moderated like any other otherwise (an arm for solicited
 * needs one in [ci, prod) and then waits for the count or the period).  The count is checked
 * by the CQE writer and at arming; the period by the worker, which runs at least every
 * 10 ms under QEMU, so a period fires up to one worker tick late.
 *
 * CQNs run 1 .. CXFW_MAX_CQS - 1.  MODIFY_CQ supports op_mod MODIFY only (RESIZE is refused
 * by the command engine's op_mod check: cap cq_resize is 0).
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_COUNTER_MASK	0xffffffu	/* consumer/producer counters are 24 bits */

static struct cxfw_cq *cxfw_cq_lookup(const struct cxfw_dev *dev, uint32_t cqn)
{
	return dev->cqs && cqn && cqn < CXFW_MAX_CQS ? dev->cqs[cqn] : NULL;
}

static void cxfw_cq_free(struct cxfw_cq *cq)
{
	if (cq)
		free(cq->pas);
	free(cq);
}

/* Clear mod_wait; lock held. */
static void cxfw_cq_mod_unwait(struct cxfw_dev *dev, struct cxfw_cq *cq)
{
	if (cq->mod_wait) {
		cq->mod_wait = false;
		dev->cq_mod_waiting--;
	}
}

void cxfw_cq_destroy_all(struct cxfw_dev *dev)
{
	unsigned int i;

	if (dev->cqs)
		for (i = 0; i < CXFW_MAX_CQS; i++)
			cxfw_cq_free(dev->cqs[i]);
	free(dev->cqs);
	dev->cqs = NULL;
	dev->cq_fire_pending = 0;
	dev->cq_mod_waiting = 0;
}

bool cxfw_eq_has_cqs(const struct cxfw_dev *dev, uint32_t eqn)
{
	unsigned int i;

	if (dev->cqs)
		for (i = 1; i < CXFW_MAX_CQS; i++)
			if (dev->cqs[i] && dev->cqs[i]->eqn == eqn)
				return true;
	return false;
}

uint8_t cxfw_cmd_create_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_create_cq_in *in = (const void *)cmd->in;
	struct cxib_create_cq_out *out = (void *)cmd->out;
	const __be32 *cqc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_CREATE_CQ_IN_CQC_OFFSET);
	uint32_t log_size = CXIB_GET(cqc, CXIB_CQC_LOG_CQ_SIZE);
	uint32_t log_pg = CXIB_GET(cqc, CXIB_CQC_LOG_PAGE_SIZE);
	uint32_t page_offset = CXIB_GET(cqc, CXIB_CQC_PAGE_OFFSET);
	uint32_t cqe_sz = CXIB_GET(cqc, CXIB_CQC_CQE_SZ);
	uint32_t uar = CXIB_GET(cqc, CXIB_CQC_UAR_PAGE);
	uint32_t eqn = CXIB_GET(cqc, CXIB_CQC_C_EQN);
	uint64_t dbr = CXIB_GET64(cqc, CXIB_CQC_DBR_ADDR), probe, bytes, *list = NULL;
	uint32_t max_log_size, npas = 0, cqn;
	uint64_t eq_serial = 0;
	struct cxfw_cq *cq;
	bool uar_ok;
	uint8_t st;

	if (CXIB_GET(in, CXIB_CREATE_CQ_IN_CQ_UMEM_VALID) ||
	    CXIB_GET(cqc, CXIB_CQC_DBR_UMEM_VALID))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 1));
	if (cqe_sz > CXIB_CQC_CQE_SZ_128 || CXIB_GET(cqc, CXIB_CQC_CQE_COMP_EN) ||
	    CXIB_GET(cqc, CXIB_CQC_CC))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, cqe_sz));
	if (CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD_MODE) > CXIB_CQ_PERIOD_MODE_START_FROM_CQE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD_MODE)));
	pthread_mutex_lock(&dev->lock);
	max_log_size = CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_CQ_SZ);
	uar_ok = cxfw_uar_allocated(dev, uar);
	if (eqn < CXFW_MAX_EQS && dev->eqs[eqn].valid)
		eq_serial = dev->eqs[eqn].serial;
	pthread_mutex_unlock(&dev->lock);
	if (log_size > max_log_size)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, log_size));
	if (log_pg > CXFW_MAX_LOG_PAGE_SIZE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, log_pg));
	if (!uar_ok)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, uar));
	if (!eq_serial)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, eqn));
	if (!dbr || (dbr & (CXIB_CQ_DB_SIZE - 1)) ||
	    cxfw_dma_read(dev, dbr, &probe, sizeof(probe)))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, (uint32_t)dbr));

	bytes = CXIB_PAGE_OFFSET_BYTES(page_offset, log_pg) +
		((uint64_t)CXIB_CQE_SIZE << cqe_sz << log_size);
	st = cxfw_pas_load(dev, cmd, CXIB_CREATE_CQ_IN_PAS_OFFSET, log_pg, bytes, &list, &npas,
			   "CREATE_CQ");
	if (st)
		return st;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		free(list);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	cq->log_size = (uint8_t)log_size;
	cq->log_page_size = (uint8_t)log_pg;
	cq->page_offset = (uint8_t)page_offset;
	cq->cqe_sz = (uint8_t)cqe_sz;
	cq->oi = CXIB_GET(cqc, CXIB_CQC_OI);
	cq->period_mode = (uint8_t)CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD_MODE);
	cq->period = (uint16_t)CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD);
	cq->max_count = (uint16_t)CXIB_GET(cqc, CXIB_CQC_CQ_MAX_COUNT);
	cq->scqe_break = CXIB_GET(cqc, CXIB_CQC_SCQE_BREAK_MODERATION_EN);
	cq->mod_ts_ns = cxfw_now(dev);
	cq->uar = uar;
	cq->eqn = eqn;
	cq->eq_serial = eq_serial;
	cq->dbr = dbr;
	cq->npas = npas;
	cq->pas = list;

	pthread_mutex_lock(&dev->lock);
	if (!dev->cqs)
		dev->cqs = calloc(CXFW_MAX_CQS, sizeof(*dev->cqs));
	cqn = CXFW_MAX_CQS;
	if (dev->cqs)
		for (cqn = 1; cqn < CXFW_MAX_CQS && dev->cqs[cqn]; cqn++)
			;
	/* the EQ may not have gone meanwhile: only commands (this thread) destroy EQs */
	if (cqn == CXFW_MAX_CQS) {
		pthread_mutex_unlock(&dev->lock);
		cxfw_cq_free(cq);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	cq->serial = ++dev->cq_serial;
	dev->cqs[cqn] = cq;
	pthread_mutex_unlock(&dev->lock);

	CXIB_SET(out, CXIB_CREATE_CQ_OUT_CQN, cqn);
	cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: CQ %u created: %u CQEs of %u bytes, EQ %u, UAR %u",
		 cqn, 1u << log_size, CXIB_CQE_SIZE << cqe_sz, eqn, uar);
	return CXIB_CMD_STAT_OK;
}

/* The CQ a DESTROY/QUERY/MODIFY_CQ names; lock held on success. */
static struct cxfw_cq *cxfw_cq_get(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t cqn,
				   uint8_t *st)
{
	struct cxfw_cq *cq;

	if (!cqn || cqn >= CXFW_MAX_CQS) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, cqn));
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	cq = cxfw_cq_lookup(dev, cqn);
	if (!cq) {
		pthread_mutex_unlock(&dev->lock);
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, cqn));
	}
	return cq;
}

uint8_t cxfw_cmd_destroy_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_cq_in *in = (const void *)cmd->in;
	uint32_t cqn = CXIB_GET(in, CXIB_DESTROY_CQ_IN_CQN);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_cq *cq;

	cq = cxfw_cq_get(dev, cmd, cqn, &st);
	if (!cq)
		return st;
	if (cq->refs) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_RES_BUSY, CXFW_SYND(CXFW_SYND_RES_BUSY, cqn));
	}
	if (cq->fire_pending)
		dev->cq_fire_pending--;
	cxfw_cq_mod_unwait(dev, cq);
	dev->cqs[cqn] = NULL;
	pthread_mutex_unlock(&dev->lock);
	cxfw_cq_free(cq);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_cq_in *in = (const void *)cmd->in;
	__be32 *cqc = (__be32 *)cxfw_out_bytes(cmd, CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	uint8_t st = CXIB_CMD_STAT_OK, arm_st;
	struct cxfw_cq *cq;

	cq = cxfw_cq_get(dev, cmd, CXIB_GET(in, CXIB_QUERY_CQ_IN_CQN), &st);
	if (!cq)
		return st;
	arm_st = cq->arm == CXFW_CQ_ARM_NEXT ? CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED :
		 cq->arm == CXFW_CQ_ARM_SOL ?
		 CXIB_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED : CXIB_CQC_ST_FIRED;
	CXIB_SET(cqc, CXIB_CQC_STATUS, cq->overflow ? CXIB_CQC_STATUS_CQ_OVERFLOW :
		 cq->write_failure ? CXIB_CQC_STATUS_CQ_WRITE_FAIL : CXIB_CQC_STATUS_OK);
	CXIB_SET(cqc, CXIB_CQC_CQE_SZ, cq->cqe_sz);
	CXIB_SET(cqc, CXIB_CQC_OI, cq->oi);
	CXIB_SET(cqc, CXIB_CQC_SCQE_BREAK_MODERATION_EN, cq->scqe_break);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD_MODE, cq->period_mode);
	CXIB_SET(cqc, CXIB_CQC_ST, arm_st);
	CXIB_SET(cqc, CXIB_CQC_PAGE_OFFSET, cq->page_offset);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, cq->log_size);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, cq->uar);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD, cq->period);
	CXIB_SET(cqc, CXIB_CQC_CQ_MAX_COUNT, cq->max_count);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, cq->eqn);
	CXIB_SET(cqc, CXIB_CQC_LOG_PAGE_SIZE, cq->log_page_size);
	CXIB_SET(cqc, CXIB_CQC_LAST_NOTIFIED_INDEX, cq->last_notified);
	CXIB_SET(cqc, CXIB_CQC_LAST_SOLICIT_INDEX, cq->sol_seen ? cq->sol_idx : 0);
	CXIB_SET(cqc, CXIB_CQC_CONSUMER_COUNTER, cq->cons);
	CXIB_SET(cqc, CXIB_CQC_PRODUCER_COUNTER, cq->prod & CXFW_COUNTER_MASK);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, cq->dbr);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_modify_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_modify_cq_in *in = (const void *)cmd->in;
	const __be32 *cqc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_MODIFY_CQ_IN_CQC_OFFSET);
	uint32_t sel = CXIB_GET(in, CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT);
	uint32_t known = CXIB_CQ_MODIFY_PERIOD | CXIB_CQ_MODIFY_COUNT | CXIB_CQ_MODIFY_OVERRUN |
			 CXIB_CQ_MODIFY_PERIOD_MODE;
	uint64_t now = cxfw_now(dev);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_cq *cq;

	if (sel & ~known)		/* EQ remap: cap cq_eq_remap = 0 */
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, sel));
	if ((sel & CXIB_CQ_MODIFY_PERIOD_MODE) &&
	    CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD_MODE) > CXIB_CQ_PERIOD_MODE_START_FROM_CQE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD_MODE)));
	cq = cxfw_cq_get(dev, cmd, CXIB_GET(in, CXIB_MODIFY_CQ_IN_CQN), &st);
	if (!cq)
		return st;
	if (sel & CXIB_CQ_MODIFY_PERIOD)
		cq->period = (uint16_t)CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD);
	if (sel & CXIB_CQ_MODIFY_COUNT)
		cq->max_count = (uint16_t)CXIB_GET(cqc, CXIB_CQC_CQ_MAX_COUNT);
	if (sel & CXIB_CQ_MODIFY_OVERRUN)
		cq->oi = CXIB_GET(cqc, CXIB_CQC_OI);
	if (sel & CXIB_CQ_MODIFY_PERIOD_MODE)
		cq->period_mode = (uint8_t)CXIB_GET(cqc, CXIB_CQC_CQ_PERIOD_MODE);
	if (sel & (CXIB_CQ_MODIFY_PERIOD | CXIB_CQ_MODIFY_COUNT | CXIB_CQ_MODIFY_PERIOD_MODE)) {
		/* new moderation: the timer restarts; a met arm is re-evaluated by the worker */
		cq->mod_ts_ns = now;
		if (cq->arm && !cq->fire_pending) {
			cq->fire_pending = true;
			dev->cq_fire_pending++;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

/* Guest address of the 64-byte CQE of slot @slot. */
static uint64_t cxfw_cqe_addr(const struct cxfw_cq *cq, uint32_t slot)
{
	uint64_t off = CXIB_PAGE_OFFSET_BYTES(cq->page_offset, cq->log_page_size) +
		       ((uint64_t)slot << (CXIB_LOG_CQE_SIZE + cq->cqe_sz)) +
		       (cq->cqe_sz ? CXIB_CQE_SIZE : 0);
	unsigned int shift = CXIB_ADAPTER_PAGE_SHIFT + cq->log_page_size;

	return cq->pas[off >> shift] + (off & ((1ull << shift) - 1));
}

/* Does the armed CQ have a qualifying CQE at an index in [arm ci, prod)?  Lock held. */
static bool cxfw_cq_arm_met(const struct cxfw_cq *cq)
{
	uint32_t pending = (cq->prod - cq->arm_ci) & CXFW_COUNTER_MASK;

	if (cq->arm == CXFW_CQ_ARM_NEXT)
		return pending != 0;
	if (cq->arm == CXFW_CQ_ARM_SOL)
		return cq->sol_seen && ((cq->sol_idx - cq->arm_ci) & CXFW_COUNTER_MASK) < pending;
	return false;
}

/* Disarm and return the EQ to notify; lock held. */
static uint64_t cxfw_cq_fire(struct cxfw_dev *dev, struct cxfw_cq *cq, uint64_t now)
{
	if (cq->fire_pending) {
		cq->fire_pending = false;
		dev->cq_fire_pending--;
	}
	cxfw_cq_mod_unwait(dev, cq);
	if (cq->period_mode == CXIB_CQ_PERIOD_MODE_START_FROM_EQE)
		cq->mod_ts_ns = now;
	cq->arm = 0;
	cq->fired = true;
	cq->last_notified = cq->prod & CXFW_COUNTER_MASK;
	dev->stats.cq_events++;
	return cq->eq_serial;
}

/* Is the met arm of @cq due under its moderation at @now?  Lock held. */
static bool cxfw_cq_mod_due(const struct cxfw_cq *cq, uint64_t now)
{
	uint32_t pending = (cq->prod - cq->arm_ci) & CXFW_COUNTER_MASK;

	if (!cq->max_count && !cq->period)
		return true;
	if (cq->max_count && pending >= cq->max_count)
		return true;
	return cq->period &&
	       now - cq->mod_ts_ns >= (uint64_t)cq->period * CXFW_NS_PER_US;
}

/*
 * Settle the arm state of @cq at @now: fire (return the EQ to notify) if the arm is met and
 * due, else wait for the period (mod_wait) or for more CQEs.  Clears fire_pending.  Lock held.
 */
static uint64_t cxfw_cq_settle(struct cxfw_dev *dev, struct cxfw_cq *cq, uint64_t now,
			       bool brk)
{
	uint64_t deadline;

	if (cxfw_cq_arm_met(cq) && (brk || cxfw_cq_mod_due(cq, now)))
		return cxfw_cq_fire(dev, cq, now);
	if (cq->fire_pending) {
		cq->fire_pending = false;
		dev->cq_fire_pending--;
	}
	if (!cxfw_cq_arm_met(cq) || !cq->period) {
		cxfw_cq_mod_unwait(dev, cq);
		return 0;
	}
	if (!cq->mod_wait) {
		cq->mod_wait = true;
		if (!dev->cq_mod_waiting++)
			dev->cq_mod_next_ns = UINT64_MAX;
	}
	deadline = cq->mod_ts_ns + (uint64_t)cq->period * CXFW_NS_PER_US;
	if (deadline < dev->cq_mod_next_ns)
		dev->cq_mod_next_ns = deadline;
	return 0;
}

static void cxfw_cq_error(struct cxfw_dev *dev, uint32_t cqn, unsigned int synd)
{
	uint32_t data[7] = { 0 };
	uint64_t eq = cxfw_eq_subscriber(dev, CXIB_EVENT_TYPE_CQ_ERROR);

	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: CQ %u error, syndrome %u", cqn, synd);
	if (!eq)
		return;
	/* EQE data dword k is EQE dword 8 + k */
	data[CXIB_DW(CXIB_EQE_CQ_ERR_CQN) - 8] = CXIB_FIELD_PREP(CXIB_EQE_CQ_ERR_CQN, cqn);
	data[CXIB_DW(CXIB_EQE_CQ_ERR_SYNDROME) - 8] =
		CXIB_FIELD_PREP(CXIB_EQE_CQ_ERR_SYNDROME, synd);
	cxfw_eq_post(dev, eq, CXIB_EVENT_TYPE_CQ_ERROR, 0, data);
}

static void cxfw_cq_comp_event(struct cxfw_dev *dev, uint64_t eq, uint32_t cqn)
{
	uint32_t data[7] = { 0 };

	data[CXIB_DW(CXIB_EQE_COMP_CQN) - 8] = CXIB_FIELD_PREP(CXIB_EQE_COMP_CQN, cqn);
	cxfw_eq_post(dev, eq, CXIB_EVENT_TYPE_COMP, 0, data);
}

/*
 * Write @cqe (everything but the owner bit filled in by the caller) as the CQ's next CQE,
 * then fire the completion event if the CQ is armed for it.  Worker only.  Returns 0, or
 * -1 if the CQ does not exist, is in error, overran or the write failed (CQE dropped).
 */
int cxfw_cq_post(struct cxfw_dev *dev, uint32_t cqn, struct cxib_cqe64 *cqe)
{
	uint8_t *b = (uint8_t *)cqe;
	struct cxfw_cq *cq;
	uint64_t addr, dbr, eq = 0;
	uint32_t p, set_ci = 0;
	__be32 ci_be;
	bool oi, sol, moderated;
	unsigned int synd = 0;
	uint64_t now;

	pthread_mutex_lock(&dev->lock);
	cq = cxfw_cq_lookup(dev, cqn);
	if (!cq || cq->overflow || cq->write_failure) {
		pthread_mutex_unlock(&dev->lock);
		return -1;
	}
	dbr = cq->dbr;
	oi = cq->oi;
	moderated = cq->period || cq->max_count;
	pthread_mutex_unlock(&dev->lock);
	now = moderated ? cxfw_now(dev) : 0;

	/* only the worker writes CQEs and destroys CQs, so cq stays valid meanwhile */
	if (!oi) {
		if (cxfw_dma_read(dev, dbr, &ci_be, sizeof(ci_be)))
			synd = CXIB_CQ_ERROR_SYNDROME_ACCESS_VIOLATION;
		else
			set_ci = CXIB_GET(&ci_be, CXIB_CQ_DB_SET_CI);
	}
	pthread_mutex_lock(&dev->lock);
	p = cq->prod;
	if (!oi && !synd) {
		cq->cons = set_ci;
		if (((p - set_ci) & CXFW_COUNTER_MASK) >= (1u << cq->log_size))
			synd = CXIB_CQ_ERROR_SYNDROME_OVERRUN;
	}
	if (synd) {
		if (synd == CXIB_CQ_ERROR_SYNDROME_OVERRUN) {
			cq->overflow = true;
			dev->stats.cq_overruns++;
		} else {
			cq->write_failure = true;
			dev->stats.dma_errors++;
		}
		pthread_mutex_unlock(&dev->lock);
		cxfw_cq_error(dev, cqn, synd);
		return -1;
	}
	addr = cxfw_cqe_addr(cq, p & ((1u << cq->log_size) - 1));
	pthread_mutex_unlock(&dev->lock);

	CXIB_SET(cqe, CXIB_CQE_OWNER, (p >> cq->log_size) & 1);
	sol = CXIB_GET(cqe, CXIB_CQE_SE) ||
	      CXIB_GET(cqe, CXIB_CQE_OPCODE) == CXIB_CQE_OPCODE_REQ_ERR ||
	      CXIB_GET(cqe, CXIB_CQE_OPCODE) == CXIB_CQE_OPCODE_RESP_ERR;
	/* body first, op_own last: software polls op_own */
	if (cxfw_dma_write(dev, addr, b, CXIB_CQE_OP_OWN_OFFSET) ||
	    cxfw_dma_write(dev, addr + CXIB_CQE_OP_OWN_OFFSET,
			   b + CXIB_CQE_OP_OWN_OFFSET, 1)) {
		pthread_mutex_lock(&dev->lock);
		cq->write_failure = true;
		dev->stats.dma_errors++;
		pthread_mutex_unlock(&dev->lock);
		cxfw_cq_error(dev, cqn, CXIB_CQ_ERROR_SYNDROME_ACCESS_VIOLATION);
		return -1;
	}

	pthread_mutex_lock(&dev->lock);
	cq->prod = p + 1;
	if (sol) {
		cq->sol_seen = true;
		cq->sol_idx = p & CXFW_COUNTER_MASK;
	}
	dev->stats.cqes_written++;
	if (cq->period_mode == CXIB_CQ_PERIOD_MODE_START_FROM_CQE)
		cq->mod_ts_ns = now;
	/* a pending doorbell's event is posted (or set waiting) here rather than by the worker */
	if (cq->arm)
		eq = cxfw_cq_settle(dev, cq, now, cq->scqe_break && CXIB_GET(cqe, CXIB_CQE_SE));
	pthread_mutex_unlock(&dev->lock);
	if (eq)
		cxfw_cq_comp_event(dev, eq, cqn);
	return 0;
}

void cxfw_cq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t dw0, uint32_t dw1)
{
	uint32_t cqn = CXIB_FIELD_GET(CXIB_CQ_UAR_DB_CQN, dw1);
	uint32_t sn = CXIB_FIELD_GET(CXIB_CQ_UAR_DB_SN, dw0);
	struct cxfw_cq *cq;
	bool bad, kick = false;
	uint32_t owner = 0;

	pthread_mutex_lock(&dev->lock);
	dev->stats.cq_doorbells++;
	cq = cxfw_cq_lookup(dev, cqn);
	bad = !cq || cq->uar != uar;
	if (cq)
		owner = cq->uar;
	if (!bad && !(cq->fired && sn == cq->arm_sn)) {	/* else stale: event already sent */
		cq->arm = CXIB_FIELD_GET(CXIB_CQ_UAR_DB_CMD, dw0) ? CXFW_CQ_ARM_SOL :
								    CXFW_CQ_ARM_NEXT;
		cq->arm_sn = (uint8_t)sn;
		cq->fired = false;
		cq->arm_ci = CXIB_FIELD_GET(CXIB_CQ_UAR_DB_CI, dw0);
		if (cxfw_cq_arm_met(cq) && !cq->fire_pending) {
			cq->fire_pending = true;
			dev->cq_fire_pending++;
			kick = true;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (bad)
		cxfw_doorbell_refused(dev, "CQ", cqn, uar, owner);
	if (kick)
		dev->plat.kick(dev->plat.opaque);
}

/*
 * Post the completion events arm doorbells (or MODIFY_CQ) found due, and those whose
 * moderation period ran out.  Worker only.
 */
void cxfw_cq_process(struct cxfw_dev *dev)
{
	unsigned int waiting;
	uint64_t now;
	uint32_t cqn;
	bool timers;

	pthread_mutex_lock(&dev->lock);
	timers = dev->cq_fire_pending || dev->cq_mod_waiting;
	pthread_mutex_unlock(&dev->lock);
	if (!timers)
		return;
	now = cxfw_now(dev);
	pthread_mutex_lock(&dev->lock);
	timers = dev->cq_mod_waiting && now >= dev->cq_mod_next_ns;
	waiting = timers ? dev->cq_mod_waiting : 0;
	if (timers)		/* recomputed by the CQs still waiting after this pass */
		dev->cq_mod_next_ns = UINT64_MAX;
	pthread_mutex_unlock(&dev->lock);

	for (cqn = 1; cqn < CXFW_MAX_CQS; cqn++) {
		struct cxfw_cq *cq;
		uint64_t eq = 0;

		pthread_mutex_lock(&dev->lock);
		if ((!dev->cq_fire_pending && !waiting) || !dev->cqs) {
			pthread_mutex_unlock(&dev->lock);
			return;
		}
		cq = dev->cqs[cqn];
		if (cq && (cq->fire_pending || (waiting && cq->mod_wait))) {
			if (cq->mod_wait && waiting)
				waiting--;
			eq = cxfw_cq_settle(dev, cq, now, false);
		}
		pthread_mutex_unlock(&dev->lock);
		if (eq)
			cxfw_cq_comp_event(dev, eq, cqn);
	}
}
