// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Q counters: ALLOC_Q_COUNTER / DEALLOC_Q_COUNTER / QUERY_Q_COUNTER (counters.c): set
 * numbering, the checks of every input, and which device statistic each counter of the
 * QUERY_Q_COUNTER output reports (device-wide, since allocation or the last clear).
 */
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"

static unsigned int alloc_qc(struct test_ctx *t, uint32_t *id)
{
	__be32 out[CXIB_ALLOC_Q_COUNTER_OUT_LEN / 4];
	unsigned int st;

	st = cmd_simple(t, CXIB_CMD_OP_ALLOC_Q_COUNTER, 0, 0, 0, out, sizeof(out));
	if (!st && id)
		*id = CXIB_GET(out, CXIB_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID);
	return st;
}

static unsigned int dealloc_qc(struct test_ctx *t, uint32_t id)
{
	__be32 out[CXIB_DEALLOC_Q_COUNTER_OUT_LEN / 4];

	return cmd_simple(t, CXIB_CMD_OP_DEALLOC_Q_COUNTER, 0, id, 0, out, sizeof(out));
}

/* QUERY_Q_COUNTER of set @id; @dw6 is the clear/aggregate dword, @dw2 the vport dword. */
static unsigned int query_qc(struct test_ctx *t, uint32_t id, uint32_t dw2, uint32_t dw6,
			     __be32 *out)
{
	__be32 in[CXIB_QUERY_Q_COUNTER_IN_LEN / 4];

	memset(in, 0, sizeof(in));
	cmd_hdr(in, CXIB_CMD_OP_QUERY_Q_COUNTER, 0);
	in[2] = cxib_host_to_be32(dw2);
	in[6] = cxib_host_to_be32(dw6);
	CXIB_SET(in, CXIB_QUERY_Q_COUNTER_IN_COUNTER_SET_ID, id);
	memset(out, 0xa5, CXIB_QUERY_Q_COUNTER_OUT_LEN);
	return drv_run(t, in, sizeof(in), out, CXIB_QUERY_Q_COUNTER_OUT_LEN);
}

static uint32_t qc(const __be32 *out, unsigned int dw)
{
	return CXIB_GET(out, CXIB_Q_COUNTER_FIELD(dw));
}

/* Add @n to every statistic a Q counter reports, each with its own multiple of @n. */
static void bump_stats(struct test_ctx *t, uint64_t n)
{
	pthread_mutex_lock(&t->dev->lock);
	t->dev->stats.out_of_buffer += 1 * n;
	t->dev->stats.out_of_sequence += 2 * n;
	t->dev->stats.duplicate_requests += 3 * n;
	t->dev->stats.rnr_naks_received += 4 * n;
	t->dev->stats.local_ack_timeouts += 5 * n;
	t->dev->stats.rnr_retry_exceeded += 6 * n;
	t->dev->stats.retry_exceeded += 7 * n;
	t->dev->stats.remote_access_errors += 8 * n;
	t->dev->stats.cq_overruns += 9 * n;
	t->dev->stats.packet_seq_err += 10 * n;
	t->dev->stats.implied_nak_seq_err += 11 * n;
	/* statistics with no Q counter: must not show up anywhere */
	t->dev->stats.pkts_sent += 1000 * n;
	t->dev->stats.naks_received += 1000 * n;
	pthread_mutex_unlock(&t->dev->lock);
}

/* The counters bump_stats(@n) moves read @n times their multiple; every other dword 0. */
static bool counters_are(const __be32 *out, uint32_t n)
{
	static const struct { unsigned int dw, mult; } want[] = {
		{ CXIB_Q_COUNTER_OUT_OF_BUFFER, 1 },
		{ CXIB_Q_COUNTER_OUT_OF_SEQUENCE, 2 },
		{ CXIB_Q_COUNTER_DUPLICATE_REQUEST, 3 },
		{ CXIB_Q_COUNTER_RNR_NAK_RETRY_ERR, 4 },
		{ CXIB_Q_COUNTER_LOCAL_ACK_TIMEOUT_ERR, 5 },
		{ CXIB_Q_COUNTER_REQ_RNR_RETRIES_EXCEEDED, 6 },
		{ CXIB_Q_COUNTER_REQ_TRANSPORT_RETRIES_EXCEEDED, 7 },
		{ CXIB_Q_COUNTER_RESP_REMOTE_ACCESS_ERRORS, 8 },
		{ CXIB_Q_COUNTER_CQ_OVERFLOW, 9 },
		{ CXIB_Q_COUNTER_PACKET_SEQ_ERR, 10 },
		{ CXIB_Q_COUNTER_IMPLIED_NAK_SEQ_ERR, 11 },
	};
	unsigned int dw, i;

	for (dw = 0; dw < CXIB_QUERY_Q_COUNTER_OUT_LEN / 4; dw++) {
		uint32_t expect = 0;

		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (want[i].dw == dw)
				expect = want[i].mult * n;
		if (qc(out, dw) != expect)
			return false;
	}
	return true;
}

TEST(q_counter_alloc_numbers_lowest_free_and_runs_out)
{
	uint32_t ids[CXFW_MAX_Q_COUNTERS], id, i;

	CHECK_EQ(drv_bringup(t), 0);
	for (i = 1; i < CXFW_MAX_Q_COUNTERS; i++) {
		CHECK_EQ(alloc_qc(t, &ids[i]), 0);
		CHECK_EQ(ids[i], i);			/* 1, 2, ...: set 0 is never handed out */
	}
	CHECK_EQ(alloc_qc(t, &id), CXIB_CMD_STAT_NO_RESOURCES);
	CHECK_EQ(dealloc_qc(t, 5), 0);
	CHECK_EQ(dealloc_qc(t, 5), CXIB_CMD_STAT_BAD_RES);	/* double free */
	CHECK_EQ(alloc_qc(t, &id), 0);
	CHECK_EQ(id, 5);
	CHECK_EQ(dealloc_qc(t, 0), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(dealloc_qc(t, CXFW_MAX_Q_COUNTERS), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(dealloc_qc(t, 0xff), CXIB_CMD_STAT_BAD_INDEX);
}

TEST(q_counter_commands_need_an_initialized_hca)
{
	uint32_t id;

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(alloc_qc(t, &id), CXIB_CMD_STAT_BAD_SYS_STATE);
}

TEST(q_counter_commands_check_reserved_fields)
{
	__be32 out[4];
	uint32_t id;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ALLOC_Q_COUNTER, 0, 1, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ALLOC_Q_COUNTER, 1, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_OP);			/* op_mod: the engine refuses it */
	CHECK_EQ(alloc_qc(t, &id), 0);
	/* counter_set_id is 8 bits: the bits above are reserved */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_Q_COUNTER, 0, 0x100 | id, 0, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_Q_COUNTER, 0, id, 1, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(dealloc_qc(t, id), 0);
}

TEST(q_counter_query_reports_the_device_statistics_since_alloc)
{
	__be32 out[CXIB_QUERY_Q_COUNTER_OUT_LEN / 4];
	uint32_t a, b;

	CHECK_EQ(drv_bringup(t), 0);
	bump_stats(t, 100);			/* before the set exists: not counted */
	CHECK_EQ(alloc_qc(t, &a), 0);
	CHECK_EQ(query_qc(t, a, 0, 0, out), 0);
	CHECK(counters_are(out, 0));
	bump_stats(t, 3);
	CHECK_EQ(alloc_qc(t, &b), 0);
	bump_stats(t, 2);
	CHECK_EQ(query_qc(t, a, 0, 0, out), 0);
	CHECK(counters_are(out, 5));
	CHECK_EQ(query_qc(t, b, 0, 0, out), 0);
	CHECK(counters_are(out, 2));
	/* a query without clear leaves the set alone */
	CHECK_EQ(query_qc(t, a, 0, 0, out), 0);
	CHECK(counters_are(out, 5));
}

TEST(q_counter_query_clear_restarts_the_set)
{
	__be32 out[CXIB_QUERY_Q_COUNTER_OUT_LEN / 4];
	uint32_t clear = CXIB_FIELD_PREP(CXIB_QUERY_Q_COUNTER_IN_CLEAR, 1);
	uint32_t id, other;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(alloc_qc(t, &id), 0);
	CHECK_EQ(alloc_qc(t, &other), 0);
	bump_stats(t, 7);
	CHECK_EQ(query_qc(t, id, 0, clear, out), 0);
	CHECK(counters_are(out, 7));		/* the values before the clear */
	CHECK_EQ(query_qc(t, id, 0, 0, out), 0);
	CHECK(counters_are(out, 0));
	CHECK_EQ(query_qc(t, other, 0, 0, out), 0);
	CHECK(counters_are(out, 7));		/* other sets keep counting */
	bump_stats(t, 1);
	CHECK_EQ(query_qc(t, id, 0, 0, out), 0);
	CHECK(counters_are(out, 1));
}

TEST(q_counter_values_are_the_low_32_bits)
{
	__be32 out[CXIB_QUERY_Q_COUNTER_OUT_LEN / 4];
	uint32_t id;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(alloc_qc(t, &id), 0);
	pthread_mutex_lock(&t->dev->lock);
	t->dev->stats.out_of_buffer += 0x100000005ull;
	pthread_mutex_unlock(&t->dev->lock);
	CHECK_EQ(query_qc(t, id, 0, 0, out), 0);
	CHECK_EQ(qc(out, CXIB_Q_COUNTER_OUT_OF_BUFFER), 5);
}

TEST(q_counter_query_refuses_bad_sets_and_other_vports)
{
	__be32 out[CXIB_QUERY_Q_COUNTER_OUT_LEN / 4];
	uint32_t id;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(alloc_qc(t, &id), 0);
	CHECK_EQ(query_qc(t, id + 1, 0, 0, out), CXIB_CMD_STAT_BAD_RES);	/* not allocated */
	CHECK_EQ(query_qc(t, 0, 0, 0, out), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(query_qc(t, CXFW_MAX_Q_COUNTERS, 0, 0, out), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(query_qc(t, id, CXIB_FIELD_PREP(CXIB_QUERY_Q_COUNTER_IN_OTHER_VPORT, 1), 0,
			  out), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(query_qc(t, id, CXIB_FIELD_PREP(CXIB_QUERY_Q_COUNTER_IN_VPORT_NUMBER, 1), 0,
			  out), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(query_qc(t, id, 0, CXIB_FIELD_PREP(CXIB_QUERY_Q_COUNTER_IN_AGGREGATE, 1),
			  out), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(query_qc(t, id, 0, 1, out), CXIB_CMD_STAT_BAD_PARAM);	/* reserved */
	CHECK_EQ(dealloc_qc(t, id), 0);
	CHECK_EQ(query_qc(t, id, 0, 0, out), CXIB_CMD_STAT_BAD_RES);	/* freed */
}
