// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw multicast attachments (PRM section 5.7): ATTACH_TO_MCG / DETACH_FROM_MCG, and the
 * lookup the receive engine will use to deliver a multicast datagram to every attached QP.
 *
 * Up to CXFW_MAX_MCGS groups (cap log_max_mcg) of up to CXFW_MAX_QP_MCG QPs each (cap
 * max_qp_mcg).  Only UD QPs attach; the MGID must be a multicast GID (first byte 0xff).
 * Attaching a QP that is already attached succeeds and changes nothing; a group with no QP
 * left disappears.  DESTROY_QP detaches the QP from every group.
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

static struct cxfw_mcg *cxfw_mcg_find(const struct cxfw_dev *dev, const uint8_t *gid,
				      unsigned int *slot)
{
	unsigned int i;

	for (i = 0; dev->mcgs && i < CXFW_MAX_MCGS; i++)
		if (dev->mcgs[i] && !memcmp(dev->mcgs[i]->gid, gid, CXIB_MGID_LEN)) {
			if (slot)
				*slot = i;
			return dev->mcgs[i];
		}
	return NULL;
}

static int cxfw_mcg_member(const struct cxfw_mcg *g, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < g->nqps; i++)
		if (g->qpns[i] == qpn)
			return (int)i;
	return -1;
}

static void cxfw_mcg_remove(struct cxfw_dev *dev, unsigned int slot, unsigned int k)
{
	struct cxfw_mcg *g = dev->mcgs[slot];

	g->qpns[k] = g->qpns[--g->nqps];
	if (!g->nqps) {
		free(g);
		dev->mcgs[slot] = NULL;
	}
}

void cxfw_mcg_detach_qp(struct cxfw_dev *dev, uint32_t qpn)
{
	unsigned int i;
	int k;

	for (i = 0; dev->mcgs && i < CXFW_MAX_MCGS; i++)
		if (dev->mcgs[i]) {
			k = cxfw_mcg_member(dev->mcgs[i], qpn);
			if (k >= 0)
				cxfw_mcg_remove(dev, i, (unsigned int)k);
		}
}

void cxfw_mcg_destroy_all(struct cxfw_dev *dev)
{
	unsigned int i;

	for (i = 0; dev->mcgs && i < CXFW_MAX_MCGS; i++)
		free(dev->mcgs[i]);
	free(dev->mcgs);
	dev->mcgs = NULL;
}

unsigned int cxfw_mcg_qps(struct cxfw_dev *dev, const uint8_t *gid, uint32_t *qpns,
			  unsigned int max)
{
	const struct cxfw_mcg *g;
	unsigned int n = 0;

	pthread_mutex_lock(&dev->lock);
	g = cxfw_mcg_find(dev, gid, NULL);
	for (; g && n < g->nqps && n < max; n++)
		qpns[n] = g->qpns[n];
	pthread_mutex_unlock(&dev->lock);
	return n;
}

/* Common checks; lock held on success (status 0). */
static uint8_t cxfw_mcg_prepare(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t *qpn,
				const uint8_t **gid)
{
	const struct cxib_attach_to_mcg_in *in = (const void *)cmd->in;
	const struct cxfw_qp *qp;

	*qpn = CXIB_GET(in, CXIB_ATTACH_TO_MCG_IN_QPN);
	*gid = cxfw_in_bytes(cmd, CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET);
	if ((*gid)[0] != 0xff)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, (*gid)[0]));
	if (*qpn >= CXFW_MAX_QPS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, *qpn));
	pthread_mutex_lock(&dev->lock);
	qp = dev->qps ? dev->qps[*qpn] : NULL;
	if (!qp) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, *qpn));
	}
	if (qp->st != CXIB_QPC_ST_UD) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, qp->st));
	}
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_attach_to_mcg(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxfw_mcg *g;
	const uint8_t *gid;
	unsigned int slot;
	uint32_t qpn;
	uint8_t st = cxfw_mcg_prepare(dev, cmd, &qpn, &gid);

	if (st)
		return st;
	g = cxfw_mcg_find(dev, gid, NULL);
	if (!g) {
		if (!dev->mcgs)
			dev->mcgs = calloc(CXFW_MAX_MCGS, sizeof(*dev->mcgs));
		for (slot = 0; dev->mcgs && slot < CXFW_MAX_MCGS && dev->mcgs[slot]; slot++)
			;
		if (dev->mcgs && slot < CXFW_MAX_MCGS)
			g = calloc(1, sizeof(*g));
		if (!g) {
			pthread_mutex_unlock(&dev->lock);
			return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES,
					 CXFW_SYND(CXFW_SYND_NO_RES, 0));
		}
		memcpy(g->gid, gid, CXIB_MGID_LEN);
		dev->mcgs[slot] = g;
	}
	if (cxfw_mcg_member(g, qpn) < 0) {
		if (g->nqps == CXFW_MAX_QP_MCG) {
			pthread_mutex_unlock(&dev->lock);
			return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES,
					 CXFW_SYND(CXFW_SYND_NO_RES, 0));
		}
		g->qpns[g->nqps++] = qpn;
	}
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_detach_from_mcg(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxfw_mcg *g;
	const uint8_t *gid;
	unsigned int slot = 0;
	uint32_t qpn;
	int k = -1;
	uint8_t st = cxfw_mcg_prepare(dev, cmd, &qpn, &gid);

	if (st)
		return st;
	g = cxfw_mcg_find(dev, gid, &slot);
	if (g)
		k = cxfw_mcg_member(g, qpn);
	if (k < 0) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, qpn));
	}
	cxfw_mcg_remove(dev, slot, (unsigned int)k);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}
