// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw Q counters (PRM section 5, ALLOC_Q_COUNTER / DEALLOC_Q_COUNTER / QUERY_Q_COUNTER):
 * the per-queue error and event counters behind "rdma statistic".
 *
 * Counter sets are numbered 1 .. CXFW_MAX_Q_COUNTERS - 1, lowest free first (set 0 is the
 * default set every QP counts into until the driver assigns another; it is never handed
 * out).  Simplification: the model counts device-wide, not per QP: every set reports the
 * device's data-path statistics (struct cxfw_stats) accumulated since the set was allocated
 * or last queried with clear = 1, so two sets allocated together read the same values and a
 * QP's counter_set_id selects nothing.  Counters with no source in the model read 0
 * (rx_*_requests, the local and CQE error breakdown).
 * Values are the low 32 bits, as the PRM's 32-bit fields wrap.
 */
#include <stddef.h>
#include <string.h>

#include "cxfw_priv.h"

/* One counter of the QUERY_Q_COUNTER output and the statistic it reports. */
struct cxfw_q_counter_src {
	unsigned int dw;	/* CXIB_Q_COUNTER_* */
	size_t off;		/* offsetof(struct cxfw_stats, ...) of a uint64_t */
};

#define CXFW_QC(name, field) \
	{ CXIB_Q_COUNTER_##name, offsetof(struct cxfw_stats, field) }

static const struct cxfw_q_counter_src cxfw_q_counter_srcs[] = {
	CXFW_QC(OUT_OF_BUFFER, out_of_buffer),
	CXFW_QC(OUT_OF_SEQUENCE, out_of_sequence),
	CXFW_QC(DUPLICATE_REQUEST, duplicate_requests),
	CXFW_QC(RNR_NAK_RETRY_ERR, rnr_naks_received),
	CXFW_QC(PACKET_SEQ_ERR, packet_seq_err),
	CXFW_QC(IMPLIED_NAK_SEQ_ERR, implied_nak_seq_err),
	CXFW_QC(LOCAL_ACK_TIMEOUT_ERR, local_ack_timeouts),
	CXFW_QC(REQ_RNR_RETRIES_EXCEEDED, rnr_retry_exceeded),
	CXFW_QC(REQ_TRANSPORT_RETRIES_EXCEEDED, retry_exceeded),
	CXFW_QC(RESP_REMOTE_ACCESS_ERRORS, remote_access_errors),
	CXFW_QC(CQ_OVERFLOW, cq_overruns),
};

static uint64_t cxfw_stat_at(const struct cxfw_stats *st, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)st + off, sizeof(v));
	return v;
}

static bool cxfw_q_counter_allocated(const struct cxfw_dev *dev, uint32_t id)
{
	return id && id < CXFW_MAX_Q_COUNTERS && (dev->q_counter_map >> id & 1);
}

void cxfw_q_counters_release(struct cxfw_dev *dev)
{
	dev->q_counter_map = 0;
	memset(dev->q_counter_base, 0, sizeof(dev->q_counter_base));
}

uint8_t cxfw_cmd_alloc_q_counter(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_alloc_q_counter_out *out = (void *)cmd->out;
	uint32_t id;

	pthread_mutex_lock(&dev->lock);
	for (id = 1; id < CXFW_MAX_Q_COUNTERS && cxfw_q_counter_allocated(dev, id); id++)
		;
	if (id < CXFW_MAX_Q_COUNTERS) {
		dev->q_counter_map |= 1u << id;
		dev->q_counter_base[id] = dev->stats;
	}
	pthread_mutex_unlock(&dev->lock);
	if (id >= CXFW_MAX_Q_COUNTERS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	CXIB_SET(out, CXIB_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID, id);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_dealloc_q_counter(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_dealloc_q_counter_in *in = (const void *)cmd->in;
	uint32_t id = CXIB_GET(in, CXIB_DEALLOC_Q_COUNTER_IN_COUNTER_SET_ID);
	uint8_t st = CXIB_CMD_STAT_OK;

	if (!id || id >= CXFW_MAX_Q_COUNTERS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, id));
	pthread_mutex_lock(&dev->lock);
	if (!cxfw_q_counter_allocated(dev, id))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, id));
	else
		dev->q_counter_map &= ~(1u << id);
	pthread_mutex_unlock(&dev->lock);
	return st;
}

uint8_t cxfw_cmd_query_q_counter(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_q_counter_in *in = (const void *)cmd->in;
	struct cxib_query_q_counter_out *out = (void *)cmd->out;
	uint32_t id = CXIB_GET(in, CXIB_QUERY_Q_COUNTER_IN_COUNTER_SET_ID);
	struct cxfw_stats now, base;
	uint8_t st = CXIB_CMD_STAT_OK;
	size_t i;

	/* Only this function's own vport exists; aggregation across vports is not offered. */
	if (CXIB_GET(in, CXIB_QUERY_Q_COUNTER_IN_OTHER_VPORT) ||
	    CXIB_GET(in, CXIB_QUERY_Q_COUNTER_IN_VPORT_NUMBER))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 2));
	if (CXIB_GET(in, CXIB_QUERY_Q_COUNTER_IN_AGGREGATE))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 6));
	if (!id || id >= CXFW_MAX_Q_COUNTERS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, id));
	pthread_mutex_lock(&dev->lock);
	if (!cxfw_q_counter_allocated(dev, id)) {
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, id));
	} else {
		now = dev->stats;
		base = dev->q_counter_base[id];
		if (CXIB_GET(in, CXIB_QUERY_Q_COUNTER_IN_CLEAR))
			dev->q_counter_base[id] = now;
	}
	pthread_mutex_unlock(&dev->lock);
	if (st)
		return st;
	for (i = 0; i < sizeof(cxfw_q_counter_srcs) / sizeof(cxfw_q_counter_srcs[0]); i++) {
		const struct cxfw_q_counter_src *s = &cxfw_q_counter_srcs[i];
		uint64_t v = cxfw_stat_at(&now, s->off) - cxfw_stat_at(&base, s->off);

		CXIB_SET(out, CXIB_Q_COUNTER_FIELD(s->dw), (uint32_t)v);
	}
	return CXIB_CMD_STAT_OK;
}
