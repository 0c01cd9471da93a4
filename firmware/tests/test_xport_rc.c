// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Data path acceptance tests, RC under stress: lossy cables (drops, duplicates, reordering,
 * storms), more RC shapes, ordering, fences, timers and concurrency (helpers and
 * conventions: xport.h, test_xport.c).
 */
#include "xport.h"

/* ---- lossy cables ------------------------------------------------------------------------ */

#define LOSSY_OPS	24

/* Operation k of a lossy run is lossy_ops[k % 4]. */
static const unsigned int lossy_ops[4] = {
	CXIB_WQE_OPCODE_SEND, CXIB_WQE_OPCODE_RDMA_WRITE,
	CXIB_WQE_OPCODE_RDMA_READ, CXIB_WQE_OPCODE_ATOMIC_FA,
};

/*
 * A mix of SENDs, WRITEs, READs and FETCH_ADDs (all signaled) over a cable with @knobs;
 * everything must complete exactly once with the right data.
 */
static void lossy_case(struct test_ctx *t, void (*knobs)(struct fake_cable *c),
		       struct cxfw_stats *sa, struct cxfw_stats *sb)
{
	struct drv_mr src, rdst, rbuf, wdst, rsrc, ctr, res;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_wr wr;
	struct env e;
	uint64_t expect = 0x1000, elapsed;
	unsigned int k, got = 0, nsend = 0;
	uint32_t lens[LOSSY_OPS];
	int idx[LOSSY_OPS];

	drv_qp_conn_defaults(&c);
	c.timeout = 8;				/* ~1 ms */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, LOSSY_OPS * 4096, DRV_LR | DRV_LW, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.na, LOSSY_OPS * 4096, DRV_LR | DRV_LW, &rdst), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 8 * LOSSY_OPS, DRV_LR | DRV_LW, &res), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, LOSSY_OPS * 4096, DRV_LR | DRV_LW, &rbuf), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, LOSSY_OPS * 4096, DRV_LR | DRV_LW | DRV_RW, &wdst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, LOSSY_OPS * 4096, DRV_LR | DRV_RR, &rsrc), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW | DRV_A, &ctr), 0);
	mr_put_u64(e.nb, &ctr, 0, expect);
	for (k = 0; k < LOSSY_OPS; k++) {
		lens[k] = 1 + (k * 977u) % 4000;	/* 1 .. 4000 bytes, up to 4 packets */
		mr_pattern(e.na, &src, 4096ull * k, lens[k], 500 + k);
		mr_pattern(e.nb, &rsrc, 4096ull * k, lens[k], 700 + k);
		if (k % 4 == 0) {
			struct drv_sge r = sge(&rbuf, 4096ull * k, 4096);

			CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), nsend);
			nsend++;
		}
	}
	knobs(e.w.cable);
	for (k = 0; k < LOSSY_OPS; k++) {
		wr = wr_op(lossy_ops[k % 4], true);
		switch (k % 4) {
		case 0:
			wr.sg[wr.nsg++] = sge(&src, 4096ull * k, lens[k]);
			break;
		case 1:
			wr.raddr = wdst.va + 4096ull * k;
			wr.rkey = wdst.key;
			wr.sg[wr.nsg++] = sge(&src, 4096ull * k, lens[k]);
			break;
		case 2:
			wr.raddr = rsrc.va + 4096ull * k;
			wr.rkey = rsrc.key;
			wr.sg[wr.nsg++] = sge(&rdst, 4096ull * k, lens[k]);
			break;
		default:
			wr.raddr = ctr.va;
			wr.rkey = ctr.key;
			wr.swap_add = 1ull << k;
			wr.sg[wr.nsg++] = sge(&res, 8ull * k, 8);
			break;
		}
		idx[k] = drv_post_send(e.na, &e.a, &wr);
		CHECK(idx[k] >= 0);
	}
	/* run until every requester CQE is in (at most 10 s of fake time) */
	for (elapsed = 0; got < LOSSY_OPS && elapsed < 10000000000ull; elapsed += 10000000) {
		CHECK_EQ(drv_pump_time(&e.w, 1000000, 10000000), 0);
		while (got < LOSSY_OPS && drv_poll(e.na, e.ca, &cqe)) {
			CHECK_REQ_CQE(&cqe, &e.a, lossy_ops[got % 4], idx[got]);
			if (got % 4 == 2)
				CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), lens[got]);
			got++;
		}
	}
	CHECK_EQ(got, LOSSY_OPS);
	/* settle, then nothing more may appear: exactly once */
	e.w.cable->drop_pct = e.w.cable->dup_pct = 0;
	e.w.cable->drop_every = e.w.cable->dup_every = e.w.cable->reorder_every = 0;
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 200000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	for (k = 0; k < nsend; k++) {
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, lens[4 * k], k);
		CHECK(mr_has_pattern(e.nb, &rbuf, 4096ull * 4 * k, lens[4 * k], 500 + 4 * k));
	}
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	for (k = 0; k < LOSSY_OPS; k++) {
		if (k % 4 == 1)
			CHECK(mr_has_pattern(e.nb, &wdst, 4096ull * k, lens[k], 500 + k));
		if (k % 4 == 2)
			CHECK(mr_has_pattern(e.na, &rdst, 4096ull * k, lens[k], 700 + k));
		if (k % 4 == 3) {
			CHECK_EQ(mr_get_u64(e.na, &res, 8ull * k), expect);
			expect += 1ull << k;
		}
	}
	CHECK_EQ(mr_get_u64(e.nb, &ctr, 0), expect);	/* each add applied once */
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_RTS);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
	cxfw_get_stats(e.na->t->dev, sa);
	cxfw_get_stats(e.nb->t->dev, sb);
}

static void knobs_drop(struct fake_cable *c)
{
	c->drop_pct = 5;
	c->seed = 2026;
}

static void knobs_dup(struct fake_cable *c)
{
	c->dup_every = 3;
}

static void knobs_reorder(struct fake_cable *c)
{
	c->reorder_every = 4;
}

static void knobs_all(struct fake_cable *c)
{
	c->drop_pct = 5;
	c->dup_pct = 5;
	c->reorder_every = 7;
	c->seed = 7;
}

/* The models' own link faults (fault.c) on both ends: what `cxlab fault` sets in a lab. */
static void knobs_model(struct fake_cable *c)
{
	static const char *const spec[] = { "seed 11", "loss 3%", "dup 2%", "reorder 2%",
					    "corrupt 2%" };
	char err[160];
	unsigned int end, i;

	for (end = 0; end < 2; end++)
		for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++)
			if (cxfw_fault_set(c->dev[end], spec[i], err, sizeof(err)))
				c->cut = true;		/* fails the run loudly */
}

/* The knobs really did something, and the engines noticed. */
TEST(xport_rc_lossy_5pct_drop_completes_exactly_once)
{
	struct cxfw_stats sa, sb;

	lossy_case(t, knobs_drop, &sa, &sb);
	if (t->failed)
		return;
	CHECK(t->fk.cable->dropped[0] > 0 && t->fk.cable->dropped[1] > 0);
	CHECK(sa.retransmits > 0);
	/* requester A heard of the losses: NAK-PSN-sequence (some lost too), implied NAKs */
	CHECK(sa.packet_seq_err > 0 && sa.packet_seq_err <= sb.out_of_sequence);
	CHECK(sa.implied_nak_seq_err > 0);
}

TEST(xport_rc_lossy_duplication_completes_exactly_once)
{
	struct cxfw_stats sa, sb;

	lossy_case(t, knobs_dup, &sa, &sb);
	if (t->failed)
		return;
	CHECK(t->fk.cable->duplicated[0] > 0 && t->fk.cable->duplicated[1] > 0);
	CHECK(sb.duplicate_requests > 0);
}

TEST(xport_rc_lossy_reordering_completes_exactly_once)
{
	struct cxfw_stats sa, sb;

	lossy_case(t, knobs_reorder, &sa, &sb);
	if (t->failed)
		return;
	CHECK(t->fk.cable->reordered[0] > 0 && t->fk.cable->reordered[1] > 0);
	CHECK(sb.out_of_sequence > 0);
}

TEST(xport_rc_lossy_drop_dup_reorder_together)
{
	struct cxfw_stats sa, sb;

	lossy_case(t, knobs_all, &sa, &sb);
	if (t->failed)
		return;
	CHECK(t->fk.cable->dropped[0] + t->fk.cable->dropped[1] > 0 &&
	      t->fk.cable->duplicated[0] + t->fk.cable->duplicated[1] > 0 &&
	      t->fk.cable->reordered[0] + t->fk.cable->reordered[1] > 0);
	CHECK(sa.retransmits > 0);
}

TEST(xport_rc_over_the_models_faulty_link_completes_exactly_once)
{
	struct cxfw_stats sa, sb;

	lossy_case(t, knobs_model, &sa, &sb);
	if (t->failed)
		return;
	CHECK(!t->fk.cable->cut);
	/* corrupted packets were dropped by the receivers' CRC checks, losses retried */
	CHECK(sa.vcrc_errors + sb.vcrc_errors > 0);
	CHECK(sa.retransmits > 0);
	CHECK(sb.duplicate_requests > 0);
}

/* ---- more RC shapes ------------------------------------------------------------------------ */

TEST(xport_rc_psn_wraps_at_24_bits)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, rsrc, rdst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.sq_psn = 0xfffffe;			/* the 4-packet SEND crosses 0xffffff -> 0 */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 8192, DRV_LR | DRV_LW, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 8192, DRV_LR | DRV_LW, &rdst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_RR, &rsrc), 0);
	mr_pattern(e.na, &src, 0, 8192, 111);
	mr_pattern(e.nb, &rsrc, 0, 8192, 112);
	r = sge(&dst, 0, 8192);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 3500);
	si = drv_post_send(e.na, &e.a, &wr);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = rsrc.va;
	wr.rkey = rsrc.key;
	wr.sg[wr.nsg++] = sge(&rdst, 0, 5000);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), si + 1);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 3500, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 3500, 111));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, si + 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 5000);
	CHECK(mr_has_pattern(e.na, &rdst, 0, 5000, 112));
}

TEST(xport_rc_send_at_mtu_256)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.mtu = CXIB_QPC_MTU_256;		/* 40 packets for 10000 bytes */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 10000, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 12288, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 10000, 121);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 12288);
	r = sge(&dst, 0, 12288);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 10000);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(e.w.cable->sent[0], 40);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 10000, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 10000, 121));
	CHECK(mr_has_fill(e.nb, &dst, 10000, 12288 - 10000, FILL_DST));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
}

/*
 * A dead firmware (cxfw_inject_fatal) runs nothing until it is reset: the SEND that reaches
 * it is dropped and counted, it writes no CQE, and a WQE posted on it sends no packet.
 */
TEST(xport_rc_dead_firmware_sends_receives_and_completes_nothing)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct cxfw_stats st;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;

	drv_qp_conn_defaults(&c);
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 4096);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	cxfw_inject_fatal(e.nb->t->dev, 0x1);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK(e.w.cable->sent[0] >= 1);
	cxfw_get_stats(e.nb->t->dev, &st);
	CHECK_EQ(st.dead_drops, e.w.cable->delivered[0]);
	CHECK(st.dead_drops >= 1);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK(mr_has_fill(e.nb, &dst, 0, 4096, FILL_DST));
	/* its own SEND goes nowhere and completes nothing */
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&dst, 0, 100);
	drv_post_send(e.nb, &e.b, &wr);
	drv_pump(&e.w);
	CHECK_EQ(e.w.cable->sent[1], 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
}

/* More READs than the initiator depth (log_sra_max 0: one at a time) all complete in order. */
static void reads_beyond_depth(struct test_ctx *t, unsigned int nodes)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr rsrc, rdst;
	struct drv_wr wr;
	struct env e;
	unsigned int k;
	int idx[6];

	drv_qp_conn_defaults(&c);
	c.sra = 0;
	c.rra = 0;
	CHECK_EQ(env_pair(t, &e, nodes, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 6 * 4096, DRV_LR | DRV_RR, &rsrc), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 6 * 4096, DRV_LR | DRV_LW, &rdst), 0);
	mr_pattern(e.nb, &rsrc, 0, 6 * 4096, 131);
	for (k = 0; k < 6; k++) {
		wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
		wr.raddr = rsrc.va + 4096 * k;
		wr.rkey = rsrc.key;
		wr.sg[wr.nsg++] = sge(&rdst, 4096 * k, 1000 + 500 * k);
		idx[k] = drv_post_send(e.na, &e.a, &wr);
	}
	PUMP(&e.w);
	for (k = 0; k < 6; k++) {
		uint8_t want[6 * 4096], got[4096];

		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, idx[k]);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 1000 + 500 * k);
		drv_pattern(want, sizeof(want), 131);
		drv_mem_read(e.na, rdst.pa + 4096 * k, got, 1000 + 500 * k);
		CHECK(!memcmp(want + 4096 * k, got, 1000 + 500 * k));
	}
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
}

TEST(xport_rc_reads_beyond_initiator_depth_wait_their_turn)
{
	reads_beyond_depth(t, 2);
	if (!t->failed)
		reads_beyond_depth(t, 1);		/* and inside one device */
}

TEST(xport_cq_armed_for_solicited_fires_on_a_solicited_receive)
{
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 1024, DRV_LR | DRV_LW, &dst), 0);
	while (drv_next_event(e.nb, &eqe) >= 0)
		;				/* port events from the bring-up */
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	r = sge(&dst, 512, 512);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 1);
	drv_cq_arm(e.nb, e.cb, true);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, false);
	wr.sg[wr.nsg++] = sge(&src, 0, 10);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 0);
	PUMP(&e.w);
	CHECK_EQ(drv_next_event(e.nb, &eqe), -1);	/* not solicited: no event */
	wr.solicited = true;
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 1);
	PUMP(&e.w);
	CHECK_EQ(drv_next_event(e.nb, &eqe), CXIB_EVENT_TYPE_COMP);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_COMP_CQN), e.cb->cqn);
	CHECK_EQ(drv_next_event(e.nb, &eqe), -1);	/* one per arm */
	e.cb->arm_sn++;
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 10, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 10, 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 1);
}

/* ---- ordering, timers, concurrency ----------------------------------------------------- */

/* When (in pump rounds) the first SEND left node 0 and the last READ response reached it. */
struct fence_watch {
	struct fake_cable *c;
	long send_round, last_resp_round;
};

static bool fence_tx(void *arg, unsigned int from, const uint8_t *pkt, size_t len)
{
	struct fence_watch *fw = arg;
	struct cxfw_pkt p;

	if (from == 0 && !cxfw_pkt_parse(pkt, len, &p) && p.opcode == CXIB_BTH_OP_RC_SEND_ONLY &&
	    fw->send_round < 0)
		fw->send_round = (long)fw->c->round;
	return true;
}

static void fence_rx(void *arg, unsigned int to, const uint8_t *pkt, size_t len)
{
	struct fence_watch *fw = arg;
	struct cxfw_pkt p;

	if (to == 0 && !cxfw_pkt_parse(pkt, len, &p) &&
	    (p.opcode == CXIB_BTH_OP_RC_RDMA_READ_RESP_LAST ||
	     p.opcode == CXIB_BTH_OP_RC_RDMA_READ_RESP_ONLY))
		fw->last_resp_round = (long)fw->c->round;
}

/* A READ then a SEND: with @fence the SEND leaves only after the READ's data is back. */
static void fence_case(struct test_ctx *t, bool fence, struct fence_watch *fw)
{
	struct cxib_cqe64 cqe;
	struct drv_mr rsrc, rdst, src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_RR, &rsrc), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 8192, DRV_LR | DRV_LW, &rdst), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.nb, &rsrc, 0, 8192, 141);
	r = sge(&dst, 0, 256);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	memset(fw, 0, sizeof(*fw));
	fw->c = e.w.cable;
	fw->send_round = fw->last_resp_round = -1;
	e.w.cable->tap = fence_tx;
	e.w.cable->tap_arg = fw;
	e.w.cable->rx_tap = fence_rx;
	e.w.cable->rx_tap_arg = fw;
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = rsrc.va;
	wr.rkey = rsrc.key;
	wr.sg[wr.nsg++] = sge(&rdst, 0, 8192);		/* 8 response packets */
	si = drv_post_send(e.na, &e.a, &wr);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.fence = fence;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), si + 1);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, si);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si + 1);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 64, 0);
	CHECK(mr_has_pattern(e.na, &rdst, 0, 8192, 141));
	CHECK(fw->send_round >= 0 && fw->last_resp_round >= 0);
}

TEST(xport_rc_fence_holds_a_send_behind_an_outstanding_read)
{
	struct fence_watch fw;

	/* without the fence the SEND goes out while the READ is still being answered */
	fence_case(t, false, &fw);
	if (t->failed)
		return;
	CHECK(fw.send_round < fw.last_resp_round);
	fence_case(t, true, &fw);
	if (t->failed)
		return;
	CHECK(fw.send_round >= fw.last_resp_round);
}

TEST(xport_rc_ack_timeout_zero_never_gives_up)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;

	drv_qp_conn_defaults(&c);
	c.retry = 1;
	c.timeout = 0;				/* infinite: the timer is off */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW, &dst), 0);
	r = sge(&dst, 0, 256);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	e.w.cable->cut = true;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 0);
	CHECK_EQ(drv_pump_time(&e.w, 100000000, 10000000000ull), 0);	/* 10 s */
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_RTS);
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK_EQ(sa.retransmits, 0);
	CHECK_EQ(sa.local_ack_timeouts, 0);
	CHECK_EQ(e.w.cable->sent[0], 1);
}

TEST(xport_rc_64k_write_at_mtu_4096)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.mtu = CXIB_QPC_MTU_4096;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 65536, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 65536 + 4096, DRV_LR | DRV_LW | DRV_RW, &dst), 0);
	mr_pattern(e.na, &src, 0, 65536, 151);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 65536 + 4096);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE_IMM, true);
	wr.raddr = dst.va + 2048;		/* every packet straddles two pages */
	wr.rkey = dst.key;
	wr.imm = IMM;
	wr.sg[wr.nsg++] = sge(&src, 0, 65536);
	si = drv_post_send(e.na, &e.a, &wr);
	{
		struct drv_sge r = sge(&dst, 0, 0);

		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 0), 0);	/* no scatter entries */
	}
	PUMP(&e.w);
	CHECK_EQ(e.w.cable->sent[0], 16);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE_IMM, si);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_WR_IMM, 65536, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), IMM);
	CHECK(mr_has_fill(e.nb, &dst, 0, 2048, FILL_DST));
	CHECK(mr_has_pattern(e.nb, &dst, 2048, 65536, 151));
	CHECK(mr_has_fill(e.nb, &dst, 2048 + 65536, 2048, FILL_DST));
}

/* Two QP pairs, traffic both ways on both at once: nothing crosses between QPs. */
TEST(xport_rc_two_qps_both_directions_at_once)
{
	struct cxib_cqe64 cqe;
	struct drv_mr sa, sb, da, db;
	struct drv_qp q[4];			/* q[0] <-> q[1], q[2] <-> q[3]; even on node 0 */
	struct drv_world w;
	unsigned int k, i, got[4] = { 0 };

	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &q[0], &q[1]), 0);
	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &q[2], &q[3]), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 8 * 4096, DRV_LR | DRV_LW, &sa), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[1], 8 * 4096, DRV_LR | DRV_LW, &sb), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 16 * 4096, DRV_LR | DRV_LW, &da), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[1], 16 * 4096, DRV_LR | DRV_LW, &db), 0);
	/* message k of QP i: 1500 + 100 * k + 7 * i bytes, pattern 1000 * i + k */
	for (i = 0; i < 4; i++) {
		struct drv_node *n = &w.n[i & 1];
		const struct drv_mr *s = i & 1 ? &sb : &sa, *d = i & 1 ? &db : &da;

		for (k = 0; k < 4; k++) {
			uint64_t off = 4096ull * (4 * (i >> 1) + k);
			struct drv_sge r = sge(d, 2 * off, 4096);
			struct drv_wr wr = wr_op(CXIB_WQE_OPCODE_SEND, k == 3);

			mr_pattern(n, s, off, 1500 + 100 * k + 7 * i, 1000 * i + k);
			CHECK_EQ(drv_post_recv(n, &q[i], &r, 1), k);
			wr.sg[wr.nsg++] = sge(s, off, 1500 + 100 * k + 7 * i);
			CHECK_EQ(drv_post_send(n, &q[i], &wr), k);
		}
	}
	PUMP(&w);
	for (i = 0; i < 2; i++) {
		while (drv_poll(&w.n[i], w.cq[i], &cqe)) {
			uint32_t qpn = CXIB_GET(&cqe, CXIB_CQE_QPN);
			unsigned int j = qpn == q[i].qpn ? i : i + 2, peer = j ^ 1;

			CHECK(qpn == q[j].qpn);
			if (CQE_OPCODE(&cqe) == CXIB_CQE_OPCODE_REQ) {
				CHECK_REQ_CQE(&cqe, &q[j], CXIB_WQE_OPCODE_SEND, 3);
				continue;
			}
			k = got[j]++;
			CHECK_RESP_CQE(&cqe, &q[j], CXIB_CQE_OPCODE_RESP_SEND,
				       1500 + 100 * k + 7 * peer, k);
			CHECK(mr_has_pattern(&w.n[i], i ? &db : &da,
					     2 * 4096ull * (4 * (j >> 1) + k),
					     1500 + 100 * k + 7 * peer, 1000 * peer + k));
		}
	}
	for (i = 0; i < 4; i++)
		CHECK_EQ(got[i], 4);
}

/*
 * Multicast members on the sending node get a copy through the device's own loopback
 * (IBTA Vol 1 ch. 9-10, UD multicast), the sender included, unless the sender has block_lb_mc.
 */
TEST(xport_ud_multicast_loops_back_to_local_members)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x78 };
	struct drv_qp_init ia;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, bdst;
	struct drv_qp s, m, blk;		/* node 0: sender, member, blocking sender */
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;
	unsigned int k, seen;

	CHECK_EQ(ud_env(t, &u), 0);
	drv_qp_conn_defaults(&c);
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_UD, u.w.cq[0]);
	CHECK_EQ(drv_qp_create(u.na, &ia, &s), 0);
	CHECK_EQ(drv_qp_create(u.na, &ia, &m), 0);
	ia.block_lb_mc = true;
	CHECK_EQ(drv_qp_create(u.na, &ia, &blk), 0);
	CHECK_EQ(drv_qp_connect(u.na, &s, &ia, &c), 0);
	CHECK_EQ(drv_qp_connect(u.na, &m, &ia, &c), 0);
	CHECK_EQ(drv_qp_connect(u.na, &blk, &ia, &c), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 4096, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 4096, DRV_LR | DRV_LW, &bdst), 0);
	mr_pattern(u.na, &src, 0, 256, 161);
	for (k = 0; k < 2; k++) {
		r = sge(&dst, 512 * k, 512);
		CHECK_EQ(drv_post_recv(u.na, &s, &r, 1), k);
		r = sge(&dst, 1024 + 512 * k, 512);
		CHECK_EQ(drv_post_recv(u.na, &m, &r, 1), k);
		r = sge(&dst, 2048 + 512 * k, 512);
		CHECK_EQ(drv_post_recv(u.na, &blk, &r, 1), k);
		r = sge(&bdst, 512 * k, 512);
		CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), k);
	}
	CHECK_EQ(drv_mcg(u.na, &s, mgid, true), 0);
	CHECK_EQ(drv_mcg(u.na, &m, mgid, true), 0);
	CHECK_EQ(drv_mcg(u.na, &blk, mgid, true), 0);
	CHECK_EQ(drv_mcg(u.nb, &u.b, mgid, true), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, false);
	wr.ah.dlid = DRV_MCAST_LID;
	wr.ah.dqpn = DRV_MCAST_QPN;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.ah.grh = true;
	wr.ah.hop_limit = 1;
	memcpy(wr.ah.dgid, mgid, 16);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);

	/* s sends: s, m and blk (members on node 0) and b (node 1) each get one copy */
	CHECK_EQ(drv_post_send(u.na, &s, &wr), 0);
	PUMP(&u.w);
	for (k = 0, seen = 0; k < 3; k++) {
		uint32_t qpn;

		CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
		qpn = CXIB_GET(&cqe, CXIB_CQE_QPN);
		CHECK_EQ(CQE_OPCODE(&cqe), CXIB_CQE_OPCODE_RESP_SEND);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), DRV_GRH_LEN + 100);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), s.qpn);
		seen |= qpn == s.qpn ? 1 : qpn == m.qpn ? 2 : qpn == blk.qpn ? 4 : 8;
	}
	CHECK_EQ(seen, 7);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 0);
	CHECK(mr_has_pattern(u.na, &dst, 1024 + DRV_GRH_LEN, 100, 161));
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 100, 0);

	/* blk sends: it does not hear itself; node 1 still gets it */
	CHECK_EQ(drv_post_send(u.na, &blk, &wr), 0);
	PUMP(&u.w);
	while (drv_poll(u.na, u.w.cq[0], &cqe))
		CHECK(CXIB_GET(&cqe, CXIB_CQE_QPN) != blk.qpn);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 100, 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), blk.qpn);
}

/* The cable pulled and plugged back while a SEND waits: port events, then the retry wins. */
TEST(xport_rc_link_flap_is_recovered_by_retry)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	unsigned int i;
	int si;

	drv_qp_conn_defaults(&c);
	c.timeout = 10;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 2500, 171);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	for (i = 0; i < 2; i++)
		while (drv_next_event(&e.w.n[i], &eqe) >= 0)
			;			/* bring-up events */
	fake_cable_link(e.w.cable, false);
	PUMP(&e.w);				/* the worker posts the port events */
	for (i = 0; i < 2; i++) {
		CHECK_EQ(drv_next_event(&e.w.n[i], &eqe), CXIB_EVENT_TYPE_PORT_CHANGE);
		CHECK_EQ(eqe.sub_type, CXIB_PORT_CHANGE_SUBTYPE_DOWN);
	}
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 2500);
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 30000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	fake_cable_link(e.w.cable, true);
	PUMP(&e.w);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(drv_next_event(&e.w.n[i], &eqe), CXIB_EVENT_TYPE_PORT_CHANGE);
		CHECK_EQ(eqe.sub_type, CXIB_PORT_CHANGE_SUBTYPE_ACTIVE);
	}
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 1000000000), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 2500, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 2500, 171));
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
}

/*
 * A failed UD send moves the QP to SQER (IBA Send Queue Error), not ERR: the rest of the SQ
 * is flushed, the RQ keeps receiving, and SQERR2RTS (what IPoIB does) makes it send again.
 */
TEST(xport_ud_send_error_is_sqer_and_sqerr2rts_recovers)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, adst;
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;
	int si;

	CHECK_EQ(ud_env(t, &u), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 512, DRV_LR | DRV_LW, &adst), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 512, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(u.na, &src, 0, 256, 181);
	r = sge(&adst, 0, 512);
	CHECK_EQ(drv_post_recv(u.na, &u.a, &r, 1), 0);
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.ah.dlid = u.nb->lid;
	wr.ah.dqpn = u.b.qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	wr.sg[0].lkey ^= 0x80;
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 0);
	wr.sg[0].lkey = src.key;
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 2);
	PUMP(&u.w);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_ERR_CQE(&cqe, &u.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_LOCAL_PROT_ERR, 0);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_ERR_CQE(&cqe, &u.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_WR_FLUSH_ERR, 2);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 0);	/* the receive is not flushed */
	CHECK_EQ(drv_qp_state(u.na, &u.a), CXIB_QPC_STATE_SQER);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 0);

	/* the RQ still works in SQER */
	{
		struct drv_mr bsrc;
		struct drv_wr w2 = wr_op(CXIB_WQE_OPCODE_SEND, false);

		CHECK_EQ(drv_mr_alloc(u.nb, 256, DRV_LR, &bsrc), 0);
		mr_pattern(u.nb, &bsrc, 0, 64, 182);
		w2.ah.dlid = u.na->lid;
		w2.ah.dqpn = u.a.qpn;
		w2.ah.qkey = DRV_DEFAULT_QKEY;
		w2.sg[w2.nsg++] = sge(&bsrc, 0, 64);
		CHECK_EQ(drv_post_send(u.nb, &u.b2, &w2), 0);
		PUMP(&u.w);
		CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
		CHECK_RESP_CQE(&cqe, &u.a, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 64, 0);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), u.b2.qpn);
		CHECK(mr_has_pattern(u.na, &adst, DRV_GRH_LEN, 64, 182));
	}
	/* back to RTS: sends go out again */
	CHECK_EQ(drv_qp_modify(u.na, &u.a, CXIB_CMD_OP_SQERR2RTS_QP), 0);
	CHECK_EQ(drv_qp_state(u.na, &u.a), CXIB_QPC_STATE_RTS);
	wr.ah.dlid = u.nb->lid;
	wr.ah.dqpn = u.b.qpn;
	si = drv_post_send(u.na, &u.a, &wr);
	CHECK_EQ(si, 4);
	PUMP(&u.w);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_REQ_CQE(&cqe, &u.a, CXIB_WQE_OPCODE_SEND, si);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 100, 0);
	CHECK(mr_has_pattern(u.nb, &dst, DRV_GRH_LEN, 100, 181));
}

TEST(xport_uc_send_error_is_sqer_not_err)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_UC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	wr.sg[0].lkey ^= 0x80;
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 0);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_LOCAL_PROT_ERR, 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_SQER);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
}

/* Heavier weather, several seeds: 10% loss, 5% duplication, reordering, 2-round delays. */
static uint32_t storm_seed;

static void knobs_storm(struct fake_cable *c)
{
	c->drop_pct = 10;
	c->dup_pct = 5;
	c->reorder_every = 5;
	c->delay_rounds = 2;
	c->seed = storm_seed;
}

TEST(xport_rc_lossy_storm_over_several_seeds)
{
	struct cxfw_stats sa, sb;

	for (storm_seed = 1; storm_seed <= 6 && !t->failed; storm_seed++)
		lossy_case(t, knobs_storm, &sa, &sb);
	if (t->failed) {
		size_t n = strlen(t->msg);

		snprintf(t->msg + n, sizeof(t->msg) - n, " (seed %u)", storm_seed - 1);
	}
}

/*
 * srq_pingpong's shape under weather: two nodes, each with one SRQ feeding SRQ_QPS RC QPs,
 * every QP sending a 64 KiB message (64 packets at MTU 1024) to its peer in both
 * directions at once, round after round.  Loss, duplication, reordering and a cable slower
 * than the local ACK timeout make the requesters go back mid-message, so the responders see
 * duplicates and resumed messages on QPs that share a receive queue.  Every message lands
 * once, whole, in the SRQ WQE its CQE names; every QP stays in RTS.
 */
#define SRQ_QPS		4
#define SRQ_MSG		65536u
#define SRQ_BUFS	6
#define SRQ_ROUNDS	3

static uint32_t srq_seed(unsigned int from, unsigned int round, unsigned int q)
{
	return 9000 + 100 * from + 10 * round + q;
}

static void srq_storm_case(struct test_ctx *t, void (*knobs)(struct fake_cable *c))
{
	struct drv_qp qp[2][SRQ_QPS];
	struct drv_mr src[2], dst[2];
	struct drv_srq srq[2];
	struct drv_qp_init ia, ib;
	struct drv_qp_conn c;
	struct drv_world w;
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	unsigned int buf_of[2][16];		/* SRQ WQE index -> receive buffer */
	unsigned int n, q, k, round;
	uint64_t elapsed;

	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	for (n = 0; n < 2; n++) {
		CHECK_EQ(drv_srq_create(&w.n[n], 4, 1, &srq[n]), 0);
		CHECK_EQ(drv_mr_alloc(&w.n[n], SRQ_QPS * SRQ_MSG, DRV_LR, &src[n]), 0);
		CHECK_EQ(drv_mr_alloc(&w.n[n], SRQ_BUFS * SRQ_MSG, DRV_LR | DRV_LW, &dst[n]), 0);
		for (k = 0; k < SRQ_BUFS; k++) {
			struct drv_sge r = sge(&dst[n], (uint64_t)SRQ_MSG * k, SRQ_MSG);

			CHECK_EQ(drv_srq_post(&w.n[n], &srq[n], &r, 1), (int)k);
			buf_of[n][k] = k;
		}
	}
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, w.cq[0]);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, w.cq[1]);
	ia.srq = &srq[0];
	ib.srq = &srq[1];
	drv_qp_conn_defaults(&c);
	c.timeout = 8;				/* the model's 50 ms floor applies */
	for (q = 0; q < SRQ_QPS; q++)
		CHECK_EQ(drv_pair_init(&w, &ia, &ib, &c, &qp[0][q], &qp[1][q]), 0);
	knobs(w.cable);
	for (round = 0; round < SRQ_ROUNDS && !t->failed; round++) {
		unsigned int sends[2] = { 0 }, recvs[2] = { 0 };
		int idx[2][SRQ_QPS];
		bool seen[2][SRQ_QPS];

		memset(seen, 0, sizeof(seen));
		for (n = 0; n < 2; n++) {
			for (q = 0; q < SRQ_QPS; q++) {
				struct drv_wr wr = wr_op(CXIB_WQE_OPCODE_SEND, true);

				mr_pattern(&w.n[n], &src[n], (uint64_t)SRQ_MSG * q, SRQ_MSG,
					   srq_seed(n, round, q));
				wr.sg[wr.nsg++] = sge(&src[n], (uint64_t)SRQ_MSG * q, SRQ_MSG);
				idx[n][q] = drv_post_send(&w.n[n], &qp[n][q], &wr);
				CHECK(idx[n][q] >= 0);
			}
		}
		/* at most 20 s of fake time for the round */
		for (elapsed = 0; elapsed < 20000000000ull && !t->failed &&
		     sends[0] + sends[1] + recvs[0] + recvs[1] < 4 * SRQ_QPS;
		     elapsed += 10000000) {
			CHECK_EQ(drv_pump_time(&w, 1000000, 10000000), 0);
			for (n = 0; n < 2; n++) {
				while (!t->failed && drv_poll(&w.n[n], w.cq[n], &cqe)) {
					struct drv_sge r;
					unsigned int b;
					uint32_t qpn = CXIB_GET(&cqe, CXIB_CQE_QPN);
					uint16_t wqe = CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER);

					for (q = 0; q < SRQ_QPS && qp[n][q].qpn != qpn; q++)
						;
					CHECK(q < SRQ_QPS);
					if (t->failed)
						break;
					if (CQE_OPCODE(&cqe) == CXIB_CQE_OPCODE_REQ_ERR)
						CHECK_EQ(CQE_SYND(&cqe), 0);	/* shows which */
					if (CQE_OPCODE(&cqe) == CXIB_CQE_OPCODE_REQ) {
						CHECK_REQ_CQE(&cqe, &qp[n][q], CXIB_WQE_OPCODE_SEND,
							      idx[n][q]);
						sends[n]++;
						continue;
					}
					CHECK_EQ(CQE_OPCODE(&cqe), CXIB_CQE_OPCODE_RESP_SEND);
					CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), SRQ_MSG);
					CHECK(wqe < 16 && !seen[n][q]);
					if (t->failed)
						break;
					seen[n][q] = true;
					b = buf_of[n][wqe];
					/* the peer's message on this QP, in the WQE the CQE names */
					CHECK(mr_has_pattern(&w.n[n], &dst[n], (uint64_t)SRQ_MSG * b,
							     SRQ_MSG, srq_seed(!n, round, q)));
					drv_srq_free(&w.n[n], &srq[n], wqe);
					r = sge(&dst[n], (uint64_t)SRQ_MSG * b, SRQ_MSG);
					k = (unsigned int)drv_srq_post(&w.n[n], &srq[n], &r, 1);
					CHECK(k < 16);
					if (t->failed)
						break;
					buf_of[n][k] = b;
					recvs[n]++;
				}
			}
		}
		CHECK_EQ(sends[0], SRQ_QPS);
		CHECK_EQ(sends[1], SRQ_QPS);
		CHECK_EQ(recvs[0], SRQ_QPS);
		CHECK_EQ(recvs[1], SRQ_QPS);
	}
	/* settle: nothing more may appear, every QP still in RTS */
	w.cable->drop_pct = w.cable->dup_pct = 0;
	w.cable->drop_every = w.cable->dup_every = w.cable->reorder_every = 0;
	w.cable->delay_rounds = 0;
	w.cable->round_ns = 0;
	CHECK_EQ(drv_pump_time(&w, 1000000, 200000000), 0);
	for (n = 0; n < 2; n++) {
		CHECK_EQ(drv_poll(&w.n[n], w.cq[n], &cqe), 0);
		for (q = 0; q < SRQ_QPS; q++)
			CHECK_EQ(drv_qp_state(&w.n[n], &qp[n][q]), CXIB_QPC_STATE_RTS);
	}
	cxfw_get_stats(w.n[0].t->dev, &st);
	CHECK(st.local_ack_timeouts > 0);	/* the weather did make it go back */
}

/* A cable slower than the ACK timeout: whole messages sent again, duplicates answered. */
static void knobs_slow(struct fake_cable *c)
{
	c->delay_rounds = 40;
	c->round_ns = 15000000;		/* 600 ms one way: past the ACK timeout floor */
}

TEST(xport_rc_srq_64k_sends_both_ways_over_a_slow_cable)
{
	srq_storm_case(t, knobs_slow);
}

TEST(xport_rc_srq_64k_sends_both_ways_over_a_storm)
{
	storm_seed = 11;
	srq_storm_case(t, knobs_storm);
}

/* An empty SRQ answers with RNR NAKs; a WQE posted later is used by the retry. */
TEST(xport_rc_empty_srq_is_rnr_until_a_wqe_is_posted)
{
	struct drv_qp_init ia, ib;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sb;
	struct drv_srq srq;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si, ri;

	CHECK_EQ(drv_world_init(t, &e.w, 2), 0);
	e.na = &e.w.n[0];
	e.nb = &e.w.n[1];
	e.ca = e.w.cq[0];
	e.cb = e.w.cq[1];
	CHECK_EQ(drv_srq_create(e.nb, 3, 2, &srq), 0);
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.ca);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, e.cb);
	ib.srq = &srq;
	CHECK_EQ(drv_pair_init(&e.w, &ia, &ib, NULL, &e.a, &e.b), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 1800, 191);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 1800);
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 3000000), 0);
	cxfw_get_stats(e.nb->t->dev, &sb);
	CHECK(sb.rnr_naks_sent >= 1);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	r = sge(&dst, 0, 4096);
	ri = drv_srq_post(e.nb, &srq, &r, 1);
	CHECK_EQ(ri, 0);
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 10000000), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 1800, ri);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 1800, 191));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
}

/* The responder half works from RTR on: a QP never moved to RTS still receives. */
TEST(xport_rc_responder_works_in_rtr)
{
	struct drv_qp_init ia, ib;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, wdst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;

	CHECK_EQ(drv_world_init(t, &e.w, 2), 0);
	e.na = &e.w.n[0];
	e.nb = &e.w.n[1];
	e.ca = e.w.cq[0];
	e.cb = e.w.cq[1];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.ca);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, e.cb);
	drv_qp_conn_defaults(&c);
	CHECK_EQ(drv_qp_create(e.na, &ia, &e.a), 0);
	CHECK_EQ(drv_qp_create(e.nb, &ib, &e.b), 0);
	/* b stops at RTR, as a passive side waiting for its RTU */
	c.dlid = e.na->lid;
	c.dqpn = e.a.qpn;
	CHECK_EQ(drv_qp_rtr(e.nb, &e.b, &ib, &c), 0);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTR);
	c.dlid = e.nb->lid;
	c.dqpn = e.b.qpn;
	CHECK_EQ(drv_qp_connect(e.na, &e.a, &ia, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW | DRV_RW, &wdst), 0);
	mr_pattern(e.na, &src, 0, 3000, 201);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 3000);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 0);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = wdst.va;
	wr.rkey = wdst.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 2000);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 1);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 3000, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 3000, 201));
	CHECK(mr_has_pattern(e.nb, &wdst, 0, 2000, 201));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE, 1);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTR);
}

/* 2ERR while sends are outstanding (nothing acknowledged): all flushed, in order. */
TEST(xport_rc_2err_with_sends_in_flight_flushes_them_in_order)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src;
	struct drv_wr wr;
	struct env e;
	unsigned int k;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	e.w.cable->cut = true;			/* no ACK will ever come */
	for (k = 0; k < 4; k++) {
		wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
		wr.sg[wr.nsg++] = sge(&src, 0, 100 + 500 * k);
		CHECK_EQ(drv_post_send(e.na, &e.a, &wr), k);
	}
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_qp_modify(e.na, &e.a, CXIB_CMD_OP_2ERR_QP), 0);
	PUMP(&e.w);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_WR_FLUSH_ERR, k);
	}
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	/* nothing more is sent from an ERR QP, even when the timers would fire */
	k = e.w.cable->sent[0];
	CHECK_EQ(drv_pump_time(&e.w, 10000000, 2000000000), 0);
	CHECK_EQ(e.w.cable->sent[0], k);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
}

/*
 * CQE version 1 (what libmlx5 asks for): every CQE of a QP - requester, responder, error,
 * flush - carries the QP's user_index in srqn_uidx, an SRQ receive included; version 0
 * keeps the SRQ number there (the other tests).
 */
TEST(xport_cqe_version_1_carries_user_indexes)
{
	struct drv_qp_init ia, ib;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct drv_sge r;
	struct env e;
	int si, ri;
	unsigned int st;

	drv_cqe_version = CXIB_CQE_VERSION_1;
	st = drv_world_init(t, &e.w, 2);	/* both nodes' bring-up ask for version 1 */
	drv_cqe_version = CXIB_CQE_VERSION_0;
	CHECK_EQ(st, 0);
	e.na = &e.w.n[0];
	e.nb = &e.w.n[1];
	e.ca = e.w.cq[0];
	e.cb = e.w.cq[1];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.ca);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, e.cb);
	ia.user_index = 0x123456;
	ib.user_index = 0xabcdef;
	CHECK_EQ(drv_pair_init(&e.w, &ia, &ib, NULL, &e.a, &e.b), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 100, 7);
	r = sge(&dst, 0, 256);
	ri = drv_post_recv(e.nb, &e.b, &r, 1);
	CHECK_EQ(ri, 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK_EQ(si, 0);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 100, ri);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX), 0xabcdef);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 100, 7));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX), 0x123456);
	/* a send with a bad lkey: the error CQE carries the user index too */
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	wr.sg[0].lkey ^= 0xffffff00;
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK(si >= 0);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_EQ(CQE_OPCODE(&cqe), CXIB_CQE_OPCODE_REQ_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX), 0x123456);
}

/*
 * Link-level flow control: two READs of 256 MTU-sized responses each, on a cable that has
 * no credits while 8 packets of an end are queued.  The responder (and the requester)
 * wait for credits instead of overrunning the link: every byte arrives, nothing is lost,
 * retransmitted or timed out, and the cable never held more than 8 packets from the
 * responder's end plus the one that took the last credit.
 */
TEST(xport_rc_read_responses_wait_for_link_credits)
{
	enum { LEN = 65536, NREAD = 2, BUSY_AT = 8 };
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa, sb;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	unsigned int k;
	int idx[NREAD];

	drv_qp_conn_defaults(&c);
	c.mtu = CXIB_QPC_MTU_256;		/* 256 response packets per READ */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, NREAD * LEN, DRV_LR | DRV_RR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.na, NREAD * LEN, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.nb, &src, 0, NREAD * LEN, 161);
	drv_mem_fill(e.na, dst.pa, FILL_DST, NREAD * LEN);
	e.w.cable->busy_at = BUSY_AT;
	for (k = 0; k < NREAD; k++) {
		wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
		wr.raddr = src.va + (uint64_t)LEN * k;
		wr.rkey = src.key;
		wr.sg[wr.nsg++] = sge(&dst, (uint64_t)LEN * k, LEN);
		idx[k] = drv_post_send(e.na, &e.a, &wr);
	}
	PUMP(&e.w);
	for (k = 0; k < NREAD; k++) {
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, idx[k]);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), LEN);
	}
	CHECK(mr_has_pattern(e.na, &dst, 0, NREAD * LEN, 161));
	CHECK_EQ(e.w.cable->sent[1], NREAD * LEN / 256);
	CHECK(e.w.cable->busy_said[1] > 0);		/* the responder did wait */
	CHECK(e.w.cable->max_queued[1] <= BUSY_AT + 1);
	CHECK_EQ(e.w.cable->dropped[0] + e.w.cable->dropped[1] + e.w.cable->overflow, 0);
	cxfw_get_stats(e.na->t->dev, &sa);
	cxfw_get_stats(e.nb->t->dev, &sb);
	CHECK_EQ(sa.retransmits, 0);
	CHECK_EQ(sa.local_ack_timeouts, 0);
	CHECK_EQ(sb.pkts_dropped, 0);
}

/* ---- a pingpong over a corrupting link ------------------------------------------------------- */

#define PP_ROUNDS	40
#define PP_LEN		65536u

/* Pump until @cq holds @want good completions; false on an error CQE or after 20 s. */
static bool pp_wait(struct env *e, struct drv_node *n, struct drv_cq *cq, unsigned int want)
{
	struct cxib_cqe64 cqe;
	unsigned int got = 0, ms;

	for (ms = 0; ms < 20000 && got < want; ms++) {
		if (drv_pump_time(&e->w, 1000000, 1000000))
			return false;
		while (got < want && drv_poll(n, cq, &cqe)) {
			if (CQE_OPCODE(&cqe) == CXIB_CQE_OPCODE_REQ_ERR ||
			    CQE_OPCODE(&cqe) == CXIB_CQE_OPCODE_RESP_ERR)
				return false;
			got++;
		}
	}
	return got == want;
}

/* Half a round: @from fills @src with pattern @seed and SENDs it on @qp. */
static void pp_send(struct test_ctx *t, struct drv_node *from, struct drv_qp *qp,
		    struct drv_mr *src, uint8_t seed)
{
	struct drv_wr wr;

	mr_pattern(from, src, 0, PP_LEN, seed);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(src, 0, PP_LEN);
	CHECK(drv_post_send(from, qp, &wr) >= 0);
}

/*
 * ibv_rc_pingpong's shape (64 KiB SENDs, one round trip at a time, MTU 1024) with the
 * model's own fault injection corrupting 2 % of packets at both ends: every corrupted
 * packet fails the receiver's CRC check, go-back-N resends it, and every round completes
 * with the data intact and no QP giving up (a 7-retry budget is never near exhaustion
 * when only one packet in fifty is lost).
 */
TEST(xport_rc_pingpong_64k_both_ways_survives_corruption)
{
	struct drv_mr sa_buf, ra_buf, sb_buf, rb_buf;
	struct cxfw_stats sa, sb;
	struct drv_qp_conn c;
	unsigned int k, end;
	char err[160];
	struct env e;

	drv_qp_conn_defaults(&c);
	c.timeout = 14;
	c.retry = 7;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, PP_LEN, DRV_LR | DRV_LW, &sa_buf), 0);
	CHECK_EQ(drv_mr_alloc(e.na, PP_LEN, DRV_LR | DRV_LW, &ra_buf), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, PP_LEN, DRV_LR | DRV_LW, &sb_buf), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, PP_LEN, DRV_LR | DRV_LW, &rb_buf), 0);
	for (end = 0; end < 2; end++) {
		CHECK_EQ(cxfw_fault_set(e.w.cable->dev[end], "seed 5", err, sizeof(err)), 0);
		CHECK_EQ(cxfw_fault_set(e.w.cable->dev[end], "corrupt 2%", err, sizeof(err)), 0);
	}
	for (k = 0; k < PP_ROUNDS; k++) {
		struct drv_sge r = sge(&rb_buf, 0, PP_LEN);

		CHECK(drv_post_recv(e.nb, &e.b, &r, 1) >= 0);
		r = sge(&ra_buf, 0, PP_LEN);
		CHECK(drv_post_recv(e.na, &e.a, &r, 1) >= 0);
		pp_send(t, e.na, &e.a, &sa_buf, (uint8_t)(2 * k));
		CHECK(pp_wait(&e, e.nb, e.cb, 1));
		CHECK(mr_has_pattern(e.nb, &rb_buf, 0, PP_LEN, (uint8_t)(2 * k)));
		pp_send(t, e.nb, &e.b, &sb_buf, (uint8_t)(2 * k + 1));
		CHECK(pp_wait(&e, e.na, e.ca, 2));	/* its send and the reply */
		CHECK(mr_has_pattern(e.na, &ra_buf, 0, PP_LEN, (uint8_t)(2 * k + 1)));
		CHECK(pp_wait(&e, e.nb, e.cb, 1));
	}
	cxfw_get_stats(e.na->t->dev, &sa);
	cxfw_get_stats(e.nb->t->dev, &sb);
	CHECK(sa.vcrc_errors > 0 && sb.vcrc_errors > 0);
	CHECK(sa.retransmits > 0 && sb.retransmits > 0);
	CHECK_EQ(sa.retry_exceeded + sb.retry_exceeded, 0);
}
