// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw event queues (PRM section 4.5): CREATE_EQ / DESTROY_EQ / QUERY_EQ, EQE writing,
 * EQ doorbells and MSI-X.
 *
 * An EQ is a ring of 2^log_eq_size 64-byte EQEs in guest memory, described by its PAS list
 * (pages of 4 KiB << log_page_size, the first one starting CXIB_PAGE_OFFSET_BYTES() in).  The
 * device writes EQE number p (p = producer counter) into slot p % size with owner bit
 * (p >> log_eq_size) & 1, so the driver's owner bits (initialised to 1) flip each lap.  An
 * EQ that would overflow (size EQEs not yet consumed according to the last doorbell) drops
 * the EQE and counts an overrun, unless created with oi (overrun ignore).
 *
 * Interrupts: writing UAR + 0x40 (eqn << 24 | ci) updates the consumer counter and arms the
 * EQ; if EQEs are already pending past ci the MSI-X vector eqc.intr fires at once (and the
 * EQ stays disarmed), otherwise the next EQE written fires it and disarms the EQ.  UAR +
 * 0x48 only updates the consumer counter.  A doorbell for an EQ that does not exist, or
 * through a UAR other than the EQ's uar_page, is ignored and logged.
 *
 * EQEs are written only from the worker (cxfw_process); doorbells arrive from vCPU
 * threads.  The producer counter moves only after the EQE's DMA write, so a doorbell can
 * never fire an interrupt for an EQE that is not in memory yet.
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_COUNTER_MASK	0xffffffu	/* consumer/producer counters are 24 bits */

static struct cxfw_eq *cxfw_eq_by_serial(struct cxfw_dev *dev, uint64_t serial)
{
	unsigned int i;

	for (i = 0; i < CXFW_MAX_EQS; i++)
		if (dev->eqs[i].valid && dev->eqs[i].serial == serial)
			return &dev->eqs[i];
	return NULL;
}

static void cxfw_eq_free(struct cxfw_eq *eq)
{
	free(eq->pas);
	memset(eq, 0, sizeof(*eq));
}

void cxfw_eq_destroy_all(struct cxfw_dev *dev)
{
	unsigned int i;

	for (i = 0; i < CXFW_MAX_EQS; i++)
		cxfw_eq_free(&dev->eqs[i]);
}

static bool cxfw_eq_subscribes(const struct cxfw_eq *eq, unsigned int type)
{
	return type < 64 * CXIB_CREATE_EQ_EVENT_BITMASK_WORDS &&
	       (eq->bitmask[type / 64] >> (type % 64) & 1);
}

uint64_t cxfw_eq_subscriber(struct cxfw_dev *dev, unsigned int type)
{
	uint64_t serial = 0;
	unsigned int i;

	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < CXFW_MAX_EQS && !serial; i++)
		if (dev->eqs[i].valid && cxfw_eq_subscribes(&dev->eqs[i], type))
			serial = dev->eqs[i].serial;
	pthread_mutex_unlock(&dev->lock);
	return serial;
}

/* Guest address of EQE slot @slot. */
static uint64_t cxfw_eqe_addr(const struct cxfw_eq *eq, uint32_t slot)
{
	uint64_t off = CXIB_PAGE_OFFSET_BYTES(eq->page_offset, eq->log_page_size) +
		       ((uint64_t)slot << CXIB_LOG_EQE_SIZE);
	unsigned int shift = CXIB_ADAPTER_PAGE_SHIFT + eq->log_page_size;

	return eq->pas[off >> shift] + (off & ((1ull << shift) - 1));
}

static void cxfw_msix(struct cxfw_dev *dev, unsigned int vector)
{
	cxfw_stat_add(dev, &dev->stats.msix_sent, 1);
	dev->plat.msix_notify(dev->plat.opaque, vector);
}

void cxfw_eq_post(struct cxfw_dev *dev, uint64_t serial, unsigned int type,
		  unsigned int sub_type, const uint32_t data[7])
{
	struct cxib_eqe eqe;
	struct cxfw_eq *eq;
	uint64_t addr;
	uint32_t p, eqn;
	unsigned int intr = 0, i;
	bool fire = false;

	pthread_mutex_lock(&dev->lock);
	eq = cxfw_eq_by_serial(dev, serial);
	if (!eq) {
		pthread_mutex_unlock(&dev->lock);
		return;
	}
	eqn = (uint32_t)(eq - dev->eqs);
	p = eq->prod;
	if (!eq->oi && ((p - eq->cons) & CXFW_COUNTER_MASK) >= (1u << eq->log_size)) {
		bool first = !eq->overrun_logged;

		eq->overrun_logged = true;
		dev->stats.eq_overruns++;
		pthread_mutex_unlock(&dev->lock);
		if (first)	/* once per EQ: a stuck consumer would flood the log */
			cxfw_log(dev, CXFW_LOG_ERR, "cxfw: EQ %u overrun, event 0x%02x dropped",
				 eqn, type);
		return;
	}
	addr = cxfw_eqe_addr(eq, p & ((1u << eq->log_size) - 1));
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = (uint8_t)type;
	eqe.sub_type = (uint8_t)sub_type;
	for (i = 0; i < 7; i++)
		eqe.data[i] = cxib_host_to_be32(data[i]);
	eqe.owner = (uint8_t)((p >> eq->log_size) & 1);
	pthread_mutex_unlock(&dev->lock);

	/* only the worker writes EQEs and destroys EQs, so eq stays valid meanwhile */
	if (cxfw_dma_write(dev, addr, &eqe, sizeof(eqe))) {
		pthread_mutex_lock(&dev->lock);
		eq->write_failure = true;
		dev->stats.dma_errors++;
		pthread_mutex_unlock(&dev->lock);
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: EQ %u: EQE write at 0x%llx failed", eqn,
			 (unsigned long long)addr);
		return;
	}

	pthread_mutex_lock(&dev->lock);
	eq->prod = p + 1;
	dev->stats.eqes_written++;
	if (eq->armed) {
		eq->armed = false;
		fire = true;
		intr = eq->intr;
	}
	pthread_mutex_unlock(&dev->lock);
	if (fire)
		cxfw_msix(dev, intr);
}

void cxfw_eq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t off, uint32_t val)
{
	uint32_t eqn = CXIB_FIELD_GET(CXIB_EQ_DB_EQN, val);
	uint32_t ci = CXIB_FIELD_GET(CXIB_EQ_DB_CI, val);
	struct cxfw_eq *eq;
	unsigned int intr = 0;
	bool fire = false, bad;
	uint32_t owner = 0;

	pthread_mutex_lock(&dev->lock);
	dev->stats.eq_doorbells++;
	eq = eqn < CXFW_MAX_EQS && dev->eqs[eqn].valid ? &dev->eqs[eqn] : NULL;
	bad = !eq || eq->uar != uar;
	if (eq)
		owner = eq->uar;
	if (!bad) {
		eq->cons = ci;
		if (off == CXIB_UAR_EQ_DOORBELL_ARM) {
			if ((eq->prod - ci) & CXFW_COUNTER_MASK) {
				fire = true;	/* EQEs already waiting: interrupt now */
				eq->armed = false;
				intr = eq->intr;
			} else {
				eq->armed = true;
			}
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (bad)
		cxfw_doorbell_refused(dev, "EQ", eqn, uar, owner);
	if (fire)
		cxfw_msix(dev, intr);
}

uint8_t cxfw_cmd_create_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_create_eq_in *in = (const void *)cmd->in;
	struct cxib_create_eq_out *out = (void *)cmd->out;
	const __be32 *eqc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_CREATE_EQ_IN_EQC_OFFSET);
	uint32_t log_size = CXIB_GET(eqc, CXIB_EQC_LOG_EQ_SIZE);
	uint32_t log_pg = CXIB_GET(eqc, CXIB_EQC_LOG_PAGE_SIZE);
	uint32_t page_offset = CXIB_GET(eqc, CXIB_EQC_PAGE_OFFSET);
	uint32_t uar = CXIB_GET(eqc, CXIB_EQC_UAR_PAGE);
	uint32_t intr = CXIB_GET(eqc, CXIB_EQC_INTR);
	uint32_t max_log_size, npas, eqn, i;
	uint64_t bytes, *list = NULL;
	struct cxfw_eq *eq;
	bool uar_ok;
	uint8_t st;

	pthread_mutex_lock(&dev->lock);
	max_log_size = CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_EQ_SZ);
	uar_ok = cxfw_uar_allocated(dev, uar);
	pthread_mutex_unlock(&dev->lock);
	if (log_size > max_log_size)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, log_size));
	if (log_pg > CXFW_MAX_LOG_PAGE_SIZE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, log_pg));
	if (intr >= dev->cfg.num_msix)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, intr));
	if (!uar_ok)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, uar));

	bytes = CXIB_PAGE_OFFSET_BYTES(page_offset, log_pg) + ((uint64_t)CXIB_EQE_SIZE << log_size);
	st = cxfw_pas_load(dev, cmd, CXIB_CREATE_EQ_IN_PAS_OFFSET, log_pg, bytes, &list, &npas,
			   "CREATE_EQ");
	if (st)
		return st;

	pthread_mutex_lock(&dev->lock);
	for (eqn = 0; eqn < CXFW_MAX_EQS && dev->eqs[eqn].valid; eqn++)
		;
	if (eqn == CXFW_MAX_EQS) {
		pthread_mutex_unlock(&dev->lock);
		free(list);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	eq = &dev->eqs[eqn];
	memset(eq, 0, sizeof(*eq));
	eq->valid = true;
	eq->serial = ++dev->eq_serial;
	eq->log_size = (uint8_t)log_size;
	eq->log_page_size = (uint8_t)log_pg;
	eq->page_offset = (uint8_t)page_offset;
	eq->oi = CXIB_GET(eqc, CXIB_EQC_OI);
	eq->ec = CXIB_GET(eqc, CXIB_EQC_EC);
	eq->uar = uar;
	eq->intr = (uint16_t)intr;
	for (i = 0; i < CXIB_CREATE_EQ_EVENT_BITMASK_WORDS; i++)
		eq->bitmask[i] = CXIB_GET64(in, CXIB_CREATE_EQ_IN_EVENT_BITMASK_WORD(i));
	eq->npas = npas;
	eq->pas = list;
	pthread_mutex_unlock(&dev->lock);

	CXIB_SET(out, CXIB_CREATE_EQ_OUT_EQ_NUMBER, eqn);
	cxfw_log(dev, CXFW_LOG_DEBUG,
		 "cxfw: EQ %u created: %u EQEs, vector %u, UAR %u, events 0x%016llx", eqn,
		 1u << log_size, intr, uar,
		 (unsigned long long)CXIB_GET64(in, CXIB_CREATE_EQ_IN_EVENT_BITMASK));
	return CXIB_CMD_STAT_OK;
}

/* Look up the EQ a DESTROY_EQ / QUERY_EQ names; lock held on success. */
static struct cxfw_eq *cxfw_eq_get(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t eqn,
				   uint8_t *st)
{
	if (eqn >= CXFW_MAX_EQS) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, eqn));
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	if (!dev->eqs[eqn].valid) {
		pthread_mutex_unlock(&dev->lock);
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, eqn));
		return NULL;
	}
	return &dev->eqs[eqn];
}

uint8_t cxfw_cmd_destroy_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_eq_in *in = (const void *)cmd->in;
	uint32_t eqn = CXIB_GET(in, CXIB_DESTROY_EQ_IN_EQ_NUMBER);
	struct cxfw_eq *eq;
	uint8_t st = CXIB_CMD_STAT_OK;

	eq = cxfw_eq_get(dev, cmd, eqn, &st);
	if (!eq)
		return st;
	if (cxfw_eq_has_cqs(dev, eqn)) {	/* CQs still send their events here */
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_RES_BUSY, CXFW_SYND(CXFW_SYND_RES_BUSY, eqn));
	}
	cxfw_eq_free(eq);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_eq_in *in = (const void *)cmd->in;
	struct cxib_query_eq_out *out = (void *)cmd->out;
	uint32_t eqn = CXIB_GET(in, CXIB_QUERY_EQ_IN_EQ_NUMBER);
	__be32 *eqc = (__be32 *)cxfw_out_bytes(cmd, CXIB_QUERY_EQ_OUT_EQC_OFFSET);
	struct cxfw_eq *eq;
	uint8_t st = CXIB_CMD_STAT_OK;

	eq = cxfw_eq_get(dev, cmd, eqn, &st);
	if (!eq)
		return st;
	CXIB_SET(eqc, CXIB_EQC_STATUS,
		 eq->write_failure ? CXIB_EQC_STATUS_EQ_WRITE_FAILURE : CXIB_EQC_STATUS_OK);
	CXIB_SET(eqc, CXIB_EQC_EC, eq->ec);
	CXIB_SET(eqc, CXIB_EQC_OI, eq->oi);
	CXIB_SET(eqc, CXIB_EQC_ST, eq->armed ? CXIB_EQC_ST_ARMED : CXIB_EQC_ST_FIRED);
	CXIB_SET(eqc, CXIB_EQC_PAGE_OFFSET, eq->page_offset);
	CXIB_SET(eqc, CXIB_EQC_LOG_EQ_SIZE, eq->log_size);
	CXIB_SET(eqc, CXIB_EQC_UAR_PAGE, eq->uar);
	CXIB_SET(eqc, CXIB_EQC_INTR, eq->intr);
	CXIB_SET(eqc, CXIB_EQC_LOG_PAGE_SIZE, eq->log_page_size);
	CXIB_SET(eqc, CXIB_EQC_CONSUMER_COUNTER, eq->cons);
	CXIB_SET(eqc, CXIB_EQC_PRODUCER_COUNTER, eq->prod & CXFW_COUNTER_MASK);
	CXIB_SET64(out, CXIB_QUERY_EQ_OUT_EVENT_BITMASK, eq->bitmask[0]);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}
