// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Data path acceptance tests, errors: error CQEs and flushes, key and access checks, local
 * ACK timeouts and retry exhaustion, late ACKs, CQ overrun (helpers and conventions:
 * xport.h, test_xport.c).
 */
#include "req.h"
#include "xport.h"

/* ---- errors ------------------------------------------------------------------------------ */

/*
 * Poll the rest of @qp's flush CQEs from @cq: requester flushes (REQ_ERR) must come in
 * WQE order and end at @last_sq (coalescing allowed, as the PRM allows for flush CQEs); *@rq_flushed
 * counts responder flushes (RESP_ERR) of @qp's receives, in order from @rq_first.
 */
static const char *take_flushes(struct drv_node *n, struct drv_cq *cq, const struct drv_qp *qp,
				int last_sq, unsigned int rq_first, unsigned int *rq_flushed)
{
	struct cxib_cqe64 c;
	int prev = -1;

	*rq_flushed = 0;
	while (drv_poll(n, cq, &c)) {
		if (CXIB_GET(&c, CXIB_CQE_ERR_QPN) != qp->qpn)
			return "flush CQE of another QP";
		if (CQE_SYND(&c) != CXIB_CQE_SYND_WR_FLUSH_ERR)
			return "flush CQE without WR_FLUSH_ERR";
		if (CQE_OPCODE(&c) == CXIB_CQE_OPCODE_REQ_ERR) {
			int ctr = (int)CXIB_GET(&c, CXIB_CQE_ERR_WQE_COUNTER);

			if (ctr <= prev || ctr > last_sq)
				return "requester flush out of order or beyond the last WQE";
			prev = ctr;
		} else if (CQE_OPCODE(&c) == CXIB_CQE_OPCODE_RESP_ERR) {
			if (CXIB_GET(&c, CXIB_CQE_ERR_WQE_COUNTER) != rq_first + *rq_flushed)
				return "receive flush out of order";
			(*rq_flushed)++;
		} else {
			return "a good CQE after the error";
		}
	}
	if (prev != last_sq)
		return "the last send WQE was not flushed";
	return NULL;
}

#define CHECK_FLUSHES(n, cq, qp, last_sq, rq_first, rq_n)				\
	do {										\
		unsigned int _rq;							\
		const char *_why = take_flushes(n, cq, qp, last_sq, rq_first, &_rq);	\
											\
		if (_why) {								\
			test_fail(t, __FILE__, __LINE__, "%s", _why);			\
			return;								\
		}									\
		CHECK_EQ(_rq, (rq_n));							\
	} while (0)

TEST(xport_rc_bad_lkey_local_prot_err_flush_and_responder_side)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, abuf;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	unsigned int k;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR | DRV_LW, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR | DRV_LW, &abuf), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	r = sge(&abuf, 0, 256);
	CHECK_EQ(drv_post_recv(e.na, &e.a, &r, 1), 0);	/* a's own receive: flushed too */
	for (k = 0; k < 3; k++) {
		r = sge(&dst, 1024 * k, 1024);
		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), k);
	}
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	wr.sg[0].lkey ^= 0x80;			/* right index, wrong variant byte */
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK_EQ(si, 0);
	wr.sg[0].lkey = src.key;
	wr.signaled = false;			/* flushed even though unsignaled */
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 1);
	wr.signaled = true;
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 2);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_LOCAL_PROT_ERR, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_S_WQE_OPCODE), CXIB_WQE_OPCODE_SEND);
	CHECK_FLUSHES(e.na, e.ca, &e.a, 2, 0, 1);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
	/* nothing reached b; b is fine */
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
	/* a send posted in ERR is flushed at its doorbell */
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 3);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_WR_FLUSH_ERR, 3);

	/*
	 * A bad lkey in the responder's receive WQE: local protection error there, NAK remote
	 * operational error to the requester (IBTA Vol 1 ch. 9, responder error class A); both QPs in ERR.
	 */
	{
		struct drv_qp a2, b2;

		CHECK_EQ(drv_rc_pair(&e.w, CXIB_QPC_ST_RC, NULL, &a2, &b2), 0);
		r = sge(&dst, 0, 1024);
		r.lkey ^= 0x80;
		CHECK_EQ(drv_post_recv(e.nb, &b2, &r, 1), 0);
		wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
		wr.sg[wr.nsg++] = sge(&src, 0, 100);
		si = drv_post_send(e.na, &a2, &wr);
		PUMP(&e.w);
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_ERR_CQE(&cqe, &b2, CXIB_CQE_OPCODE_RESP_ERR, CXIB_CQE_SYND_LOCAL_PROT_ERR, 0);
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		CHECK_ERR_CQE(&cqe, &a2, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_OP_ERR, si);
		CHECK_EQ(drv_qp_state(e.na, &a2), CXIB_QPC_STATE_ERR);
		CHECK_EQ(drv_qp_state(e.nb, &b2), CXIB_QPC_STATE_ERR);
		CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);	/* the first b: fine */
	}
}

TEST(xport_rc_bad_rkey_range_or_pd_is_a_remote_access_error)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	struct cxfw_stats st;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW | DRV_RW, &dst), 0);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 4096);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = dst.va;
	wr.rkey = dst.key ^ 0x01;		/* wrong variant */
	wr.sg[wr.nsg++] = sge(&src, 0, 2000);
	si = drv_post_send(e.na, &e.a, &wr);
	wr.rkey = dst.key;
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), si + 1);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_ACCESS_ERR, si);
	CHECK_FLUSHES(e.na, e.ca, &e.a, si + 1, 0, 0);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
	/* the responder's QP goes to ERR too (class C); no receive was involved: no CQE */
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_ERR);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK(mr_has_fill(e.nb, &dst, 0, 4096, FILL_DST));
	cxfw_get_stats(e.nb->t->dev, &st);
	CHECK_EQ(st.remote_access_errors, 1);

	/* a READ running past the end of the MR, and a WRITE to an MR of another PD */
	{
		struct drv_mr other, rd;
		struct drv_qp a2, b2, a3, b3;
		uint32_t pd2;

		CHECK_EQ(drv_alloc_pd(e.nb->t, &pd2), 0);
		CHECK_EQ(drv_mr_create(e.nb, pd2, drv_alloc_data(e.nb, 4096), 4096,
				       DRV_ALL, &other), 0);
		CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR | DRV_LW, &rd), 0);
		drv_mem_fill(e.na, rd.pa, FILL_DST, 4096);
		drv_mem_fill(e.nb, other.pa, FILL_DST, 4096);
		CHECK_EQ(drv_rc_pair(&e.w, CXIB_QPC_ST_RC, NULL, &a2, &b2), 0);
		CHECK_EQ(drv_rc_pair(&e.w, CXIB_QPC_ST_RC, NULL, &a3, &b3), 0);
		wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
		wr.raddr = dst.va + 4000;		/* 200 bytes from a 4096-byte MR */
		wr.rkey = dst.key;
		wr.sg[wr.nsg++] = sge(&rd, 0, 200);
		si = drv_post_send(e.na, &a2, &wr);
		wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
		wr.raddr = other.va;
		wr.rkey = other.key;
		wr.sg[wr.nsg++] = sge(&src, 0, 100);
		CHECK_EQ(drv_post_send(e.na, &a3, &wr), 0);
		PUMP(&e.w);
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		if (CXIB_GET(&cqe, CXIB_CQE_ERR_QPN) == a3.qpn) {
			CHECK_ERR_CQE(&cqe, &a3, CXIB_CQE_OPCODE_REQ_ERR,
				      CXIB_CQE_SYND_REMOTE_ACCESS_ERR, 0);
			CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
			CHECK_ERR_CQE(&cqe, &a2, CXIB_CQE_OPCODE_REQ_ERR,
				      CXIB_CQE_SYND_REMOTE_ACCESS_ERR, si);
		} else {
			CHECK_ERR_CQE(&cqe, &a2, CXIB_CQE_OPCODE_REQ_ERR,
				      CXIB_CQE_SYND_REMOTE_ACCESS_ERR, si);
			CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
			CHECK_ERR_CQE(&cqe, &a3, CXIB_CQE_OPCODE_REQ_ERR,
				      CXIB_CQE_SYND_REMOTE_ACCESS_ERR, 0);
		}
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
		CHECK(mr_has_fill(e.na, &rd, 0, 4096, FILL_DST));
		CHECK(mr_has_fill(e.nb, &other, 0, 4096, FILL_DST));
		CHECK_EQ(drv_qp_state(e.nb, &b2), CXIB_QPC_STATE_ERR);
		CHECK_EQ(drv_qp_state(e.nb, &b3), CXIB_QPC_STATE_ERR);
		cxfw_get_stats(e.nb->t->dev, &st);
		CHECK_EQ(st.remote_access_errors, 3);
	}
}

TEST(xport_rc_read_into_a_buffer_without_local_write_fails)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_RR, &dst), 0);	/* read only */
	mr_pattern(e.nb, &dst, 0, 4096, 71);
	/* reading it is fine */
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = dst.va;
	wr.rkey = dst.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 0);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	/* the local buffer is LR only: writing the READ data into it is a local error */
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_LOCAL_PROT_ERR, 0);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
}

TEST(xport_rc_write_to_read_only_remote_mr_is_a_remote_access_error)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR | DRV_LW, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_RR, &dst), 0);	/* read only */
	mr_pattern(e.nb, &dst, 0, 4096, 71);
	mr_pattern(e.na, &src, 0, 4096, 72);
	/* reading it works */
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = dst.va;
	wr.rkey = dst.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, si);
	CHECK(mr_has_pattern(e.na, &src, 0, 64, 71));
	/* writing it does not */
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = dst.va + 64;
	wr.rkey = dst.key;
	wr.sg[wr.nsg++] = sge(&src, 64, 1000);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_ACCESS_ERR, si);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 4096, 71));
}

TEST(xport_rc_rnr_retry_exhausted)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa, sb;
	struct drv_mr src;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.rnr_retry = 1;
	c.min_rnr = 1;				/* 0.01 ms */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	si = drv_post_send(e.na, &e.a, &wr);	/* b has no receive posted */
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 50000000), 0);	/* 1 ms steps, 50 ms */
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_RNR_RETRY_EXC_ERR, si);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
	/* RNR is not an error for the responder */
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	cxfw_get_stats(e.na->t->dev, &sa);
	cxfw_get_stats(e.nb->t->dev, &sb);
	CHECK_EQ(sa.rnr_naks_received, 2);	/* the first try and one retry */
	CHECK_EQ(sb.rnr_naks_sent, 2);
	CHECK_EQ(sa.rnr_retry_exceeded, 1);
}

TEST(xport_rc_rnr_recovers_when_a_receive_is_posted)
{
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);	/* rnr_retry 7: forever */
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 3000, 81);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 3000);
	si = drv_post_send(e.na, &e.a, &wr);
	/* several RNR rounds (0.64 ms timer) */
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 5000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK(sa.rnr_naks_received >= 2);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 5000000), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 3000, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 3000, 81));
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);		/* exactly once */
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_RTS);
}

TEST(xport_rc_retry_exhausted_with_the_cable_cut)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa;
	struct drv_mr src;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.retry = 2;
	c.timeout = 10;				/* 4.19 ms: the model's floor applies */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	e.w.cable->cut = true;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	si = drv_post_send(e.na, &e.a, &wr);
	/* three timeouts (the try and two retries) cannot have passed after two */
	CHECK_EQ(drv_pump_time(&e.w, 10000000, 2 * CXFW_REQ_MIN_ACK_TIMEOUT_NS), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_pump_time(&e.w, 10000000, 2 * CXFW_REQ_MIN_ACK_TIMEOUT_NS), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR,
		      CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR, si);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK_EQ(sa.retransmits, 2);
	CHECK_EQ(sa.retry_exceeded, 1);
	CHECK_EQ(e.w.cable->sent[0], 3);	/* and nothing after giving up */
}

/*
 * Time in which the QP's packets wait in the cable unread (the peer's host not running) is
 * not fabric time: the local ACK timer stands still through it, and counts again after.
 */
TEST(xport_rc_ack_timer_stands_still_while_the_peer_does_not_read)
{
	const uint64_t step = 10000000;		/* 10 ms */
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa;
	struct drv_mr src;
	struct drv_wr wr;
	struct env e;
	uint64_t waited;
	int si;

	drv_qp_conn_defaults(&c);
	c.retry = 2;
	c.timeout = 10;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	e.w.cable->cut = true;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK(si >= 0);
	/* ten timeouts' worth of a peer that reads nothing: not one timeout */
	for (waited = 0; waited < 10 * CXFW_REQ_MIN_ACK_TIMEOUT_NS; waited += step) {
		e.w.cable->wait_ns[0] += step;
		CHECK_EQ(drv_pump_time(&e.w, step, step), 0);
	}
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK_EQ(sa.local_ack_timeouts, 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	/* the peer reads again (and the cable is still cut): three timeouts, then the error */
	CHECK_EQ(drv_pump_time(&e.w, step, 3 * CXFW_REQ_MIN_ACK_TIMEOUT_NS + step), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR,
		      CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR, si);
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK_EQ(sa.local_ack_timeouts, 3);
}

TEST(xport_rc_local_ack_timeout_recovers_a_lost_packet)
{
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa;
	struct drv_qp_conn c;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.timeout = 10;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 1000, 91);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	e.w.cable->drop_every = 1;		/* the only packet of the SEND is lost */
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 1000);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	e.w.cable->drop_every = 0;
	/* T = 4.19 ms; detection may take longer than T (IBTA Vol 1 ch. 9, the local ACK timeout), never less */
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 4000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 1000000000), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 1000, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 1000, 91));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK_EQ(sa.retransmits, 1);
	CHECK_EQ(sa.local_ack_timeouts, 1);
}

/*
 * The late-response tests' tap: drops node 0's request PSN @lost once (when @lose), and
 * while @hold drops every ACK and NAK node 1 sends, keeping the bytes of the last of each.
 */
struct held_resp {
	bool lose, dropped, hold;
	uint32_t lost;
	unsigned int acks, naks;
	size_t ack_len, nak_len;
	uint8_t ack[FAKE_CABLE_PKT_MAX], nak[FAKE_CABLE_PKT_MAX];
};

static bool held_resp_tap(void *arg, unsigned int from, const uint8_t *pkt, size_t len)
{
	struct held_resp *h = arg;
	struct cxfw_pkt p;

	if (cxfw_pkt_parse(pkt, len, &p))
		return true;
	if (from == 0 && h->lose && !h->dropped && p.psn == h->lost) {
		h->dropped = true;
		return false;
	}
	if (from != 1 || !h->hold || p.opcode != CXIB_BTH_OP_RC_ACKNOWLEDGE ||
	    len > FAKE_CABLE_PKT_MAX)
		return true;
	if (CXIB_AETH_SYND_TYPE(p.aeth_synd) == CXIB_AETH_TYPE_NAK) {
		memcpy(h->nak, pkt, len);
		h->nak_len = len;
		h->naks++;
	} else {
		memcpy(h->ack, pkt, len);
		h->ack_len = len;
		h->acks++;
	}
	return false;		/* the requester hears nothing of the first pass */
}

/*
 * @e's requester's local ACK timer fires (its clock moves 1 s on) and the go-back sends two
 * packets before the port is busy; then @pkt, held back from the first pass, arrives.  The
 * port stays busy until the caller clears busy_at.
 */
static void go_back_two_then_deliver(struct test_ctx *t, struct env *e, const uint8_t *pkt,
				     size_t len)
{
	struct cxfw_dev *da = e->na->t->dev;
	struct cxfw_stats sa;

	e->w.cable->busy_at = 2;
	fake_advance_ns(&e->na->t->fk, 1000000000ull);
	cxfw_process(da);
	cxfw_get_stats(da, &sa);
	CHECK_EQ(sa.local_ack_timeouts, 1);
	CHECK_EQ(sa.retransmits, 2);
	cxfw_port_receive(da, 1, pkt, len);
}

/*
 * The ACK of a whole message arrives late: after the local ACK timeout has gone back and
 * while the message is being sent again (the port holds the rest back).  It acknowledges
 * every packet, so the SEND completes then; later duplicates' ACKs change nothing.  (The
 * requester once compared it with the new pass's progress, kept the WQE open with every
 * PSN acknowledged, ignored every later ACK as a duplicate and waited for ever: 64 KiB
 * pingpongs hung in the lab.)
 */
static void late_ack_case(struct test_ctx *t, unsigned int nmsg)
{
	struct cxfw_dev *da;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa, sb;
	struct drv_qp_conn c;
	struct drv_mr src, dst;
	struct held_resp h;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	unsigned int k;
	int si = -1;

	drv_qp_conn_defaults(&c);
	c.timeout = 10;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	da = e.na->t->dev;
	CHECK_EQ(drv_mr_alloc(e.na, 8192 * nmsg, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192 * nmsg, DRV_LR | DRV_LW, &dst), 0);
	memset(&h, 0, sizeof(h));
	h.hold = true;
	e.w.cable->tap = held_resp_tap;
	e.w.cable->tap_arg = &h;
	for (k = 0; k < nmsg; k++) {
		mr_pattern(e.na, &src, 8192 * k, 8192, 93 + k);
		r = sge(&dst, 8192 * k, 8192);
		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), (int)k);
		wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
		wr.sg[wr.nsg++] = sge(&src, 8192 * k, 8192);	/* 8 packets, AckReq on the last */
		si = drv_post_send(e.na, &e.a, &wr);
		CHECK_EQ(si, (int)k);
	}
	PUMP(&e.w);
	CHECK_EQ(h.acks, nmsg);		/* one per message (AckReq on each LAST), held back */
	CHECK_EQ(h.naks, 0);
	CHECK(h.ack_len > 0);
	h.hold = false;
	for (k = 0; k < nmsg; k++) {
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 8192, k);
		CHECK(mr_has_pattern(e.nb, &dst, 8192 * k, 8192, 93 + k));
	}
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);

	/* the first pass's last ACK, after the go-back: it acknowledges every message */
	go_back_two_then_deliver(t, &e, h.ack, h.ack_len);
	for (k = 0; k < nmsg; k++) {
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, k);
	}

	e.w.cable->busy_at = 0;
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 2000000000), 0);
	cxfw_get_stats(da, &sa);
	cxfw_get_stats(e.nb->t->dev, &sb);
	CHECK_EQ(sa.local_ack_timeouts, 1);	/* nothing left to wait for */
	CHECK_EQ(sa.retransmits, 2);		/* the rest was not sent again */
	CHECK_EQ(sb.duplicate_requests, 2);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);	/* a duplicate completes nothing */
}

TEST(xport_rc_late_ack_after_a_timeout_completes_the_resent_message)
{
	late_ack_case(t, 1);
}

/* The same with two messages, and only the second's ACK: it acknowledges both. */
TEST(xport_rc_late_ack_of_the_last_message_completes_every_resent_one)
{
	late_ack_case(t, 2);
}

/*
 * A PSN sequence NAK from the first pass arrives after a timeout's go-back has resent the
 * first two packets: it says everything before its PSN arrived, so sending resumes at that
 * PSN, not where the new pass had got to (which would resend what the responder has).
 */
TEST(xport_rc_late_nak_resumes_at_its_psn_not_at_the_new_pass)
{
	struct cxfw_dev *da;
	struct cxib_cqe64 cqe;
	struct cxfw_stats sa, sb;
	struct drv_qp_conn c;
	struct drv_mr src, dst;
	struct held_resp h;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	drv_qp_conn_defaults(&c);
	c.timeout = 10;
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	da = e.na->t->dev;
	CHECK_EQ(drv_mr_alloc(e.na, 8192, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 8192, 95);
	r = sge(&dst, 0, 8192);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	memset(&h, 0, sizeof(h));
	h.lose = true;
	h.lost = c.sq_psn + 5;
	h.hold = true;
	e.w.cable->tap = held_resp_tap;
	e.w.cable->tap_arg = &h;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 8192);		/* 8 packets; the 6th is lost */
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK(h.dropped);
	CHECK_EQ(h.naks, 1);		/* one PSN sequence NAK (at the lost PSN), held */
	h.hold = false;
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);

	go_back_two_then_deliver(t, &e, h.nak, h.nak_len);	/* the first pass's NAK */
	e.w.cable->busy_at = 0;
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 2000000000), 0);

	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 8192, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 8192, 95));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	cxfw_get_stats(da, &sa);
	cxfw_get_stats(e.nb->t->dev, &sb);
	CHECK_EQ(sa.naks_received, 1);
	CHECK_EQ(sa.local_ack_timeouts, 1);
	CHECK_EQ(sa.retransmits, 2 + 3);	/* the go-back's two, then PSNs 5..7 */
	CHECK_EQ(sb.duplicate_requests, 2);
}

/* The engines' debug dump (QOM "engines" in cxib-pci), whole and sized like snprintf. */
static void engines_text(struct test_ctx *t, struct cxfw_dev *dev, char **out)
{
	size_t need = cxfw_engines_format(dev, NULL, 0);
	char *buf = malloc(need + 1), small[16];

	*out = buf;
	CHECK(buf != NULL);
	CHECK_EQ(cxfw_engines_format(dev, buf, need + 1), need);
	CHECK_EQ(strlen(buf), need);
	CHECK_EQ(cxfw_engines_format(dev, small, sizeof(small)), need);	/* truncated ... */
	CHECK_EQ(strlen(small), sizeof(small) - 1);			/* ... and terminated */
}

TEST(xport_engines_dump_shows_an_unacknowledged_send_and_its_timer)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	char *s, want[64];
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 2048, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 2048, DRV_LR | DRV_LW, &dst), 0);
	r = sge(&dst, 0, 2048);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	e.w.cable->cut = true;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 2048);		/* two packets */
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	engines_text(t, e.na->t->dev, &s);
	if (t->failed) {
		free(s);
		return;
	}
	snprintf(want, sizeof(want), "qp 0x%06x RC RTS ", e.a.qpn);
	CHECK(strstr(s, want) != NULL);
	CHECK(strstr(s, " window 1 ack_timer ") != NULL);
	CHECK(strstr(s, " us rnr_timer off ") != NULL);		/* the ACK timer runs */
	CHECK(strstr(s, " npsn 2 npkts 2 sent 2 acked 0 len 2048 started signaled") != NULL);
	CHECK(strstr(s, "  resp epsn 0x") != NULL);
	free(s);

	e.w.cable->cut = false;
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 1000000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	engines_text(t, e.na->t->dev, &s);
	if (t->failed) {
		free(s);
		return;
	}
	CHECK(strstr(s, " window 0 ack_timer off rnr_timer off ") != NULL);
	free(s);
}

TEST(xport_cq_overrun_raises_a_cq_error_event)
{
	struct drv_qp_init ia, ib;
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct drv_cq small;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	unsigned int k;

	CHECK_EQ(drv_world_init(t, &e.w, 2), 0);
	e.na = &e.w.n[0];
	e.nb = &e.w.n[1];
	CHECK_EQ(drv_cq_create(e.nb, 1, &small), 0);		/* 2 CQEs */
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.w.cq[0]);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, e.w.cq[1]);
	ib.rcq = &small;
	CHECK_EQ(drv_pair_init(&e.w, &ia, &ib, NULL, &e.a, &e.b), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4 * 256, DRV_LR | DRV_LW, &dst), 0);
	while (drv_next_event(e.nb, &eqe) >= 0)
		;				/* port events from the bring-up */
	for (k = 0; k < 3; k++) {
		struct drv_sge r = sge(&dst, 256 * k, 256);

		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), k);
		wr = wr_op(CXIB_WQE_OPCODE_SEND, false);
		wr.sg[wr.nsg++] = sge(&src, 0, 10 + k);
		CHECK_EQ(drv_post_send(e.na, &e.a, &wr), k);
		PUMP(&e.w);
		if (k < 2)
			CHECK_EQ(drv_next_event(e.nb, &eqe), -1);
	}
	/* nobody polled: the third receive CQE overruns the 2-entry CQ */
	CHECK_EQ(drv_find_event(e.nb, CXIB_EVENT_TYPE_CQ_ERROR, &eqe), 1);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_CQ_ERR_CQN), small.cqn);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_CQ_ERR_SYNDROME), CXIB_CQ_ERROR_SYNDROME_OVERRUN);
	CHECK_EQ(drv_poll(e.nb, &small, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 10, 0);
	CHECK_EQ(drv_poll(e.nb, &small, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 11, 1);
}
