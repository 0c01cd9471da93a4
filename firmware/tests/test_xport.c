// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Data path acceptance tests: two cxfw devices joined by an in-memory cable (fake.h), each
 * driven like mlx5_ib drives a ConnectX (drv.h): WQEs built in guest memory, doorbell
 * records then BlueFlame doorbells, CQEs polled by owner bit.  Every case compares the
 * data byte for byte and the CQE fields exactly (the PRM's data path formats; IBTA Vol 1 ch. 9).
 *
 * Conventions the cases assert, beyond the plain formats:
 *  - requester CQE: opcode REQ, sop = WQE opcode, qpn, wqe_counter = WQE index (WQEBBs);
 *    byte_cnt only for RDMA READ (bytes read);
 *  - responder CQE: qpn, byte_cnt, imm, wqe_counter = index of the consumed RQ WQE (free
 *    running 16-bit counter) or SRQ WQE;
 *  - atomics operate on 8-byte values in memory in the host byte order the driver declared
 *    with ACCESS_REG HOST_ENDIANNESS (drv_bringup: little endian), and return the original
 *    value in that order: what mlx5_core asks for with atomic_req_8B_endianness_mode =
 *    HOST_ENDIANNESS.  (Older ConnectX without that mode work big-endian.)
 */
#include "xport.h"

/* ---- the harness itself ------------------------------------------------------------------ */

/* The cable's knobs, seen from the packets that come out of it (no engine needed). */
struct rx_log {
	unsigned int n;
	uint8_t seq[64];
	unsigned int to[64];
};

static void rx_log_tap(void *arg, unsigned int to, const uint8_t *pkt, size_t len)
{
	struct rx_log *l = arg;

	if (l->n < 64 && len) {
		l->seq[l->n] = pkt[0];
		l->to[l->n] = to;
		l->n++;
	}
}

/* Put packets @first..@last (one byte each, the sequence number, padded) on end 0. */
static void cable_send_seq(struct drv_world *w, unsigned int first, unsigned int last)
{
	struct cxfw_platform plat;
	uint8_t pkt[32];
	unsigned int i;

	fake_platform(&w->n[0].t->fk, &plat);
	for (i = first; i <= last; i++) {
		memset(pkt, 0, sizeof(pkt));
		pkt[0] = (uint8_t)i;
		plat.port_send(plat.opaque, 1, pkt, sizeof(pkt));
	}
}

static void cable_reset_log(struct drv_world *w, struct rx_log *l)
{
	memset(l, 0, sizeof(*l));
	w->cable->sent[0] = 0;
	w->cable->drop_every = w->cable->dup_every = w->cable->reorder_every = 0;
	w->cable->drop_pct = w->cable->dup_pct = 0;
	w->cable->delay_rounds = 0;
	w->cable->cut = false;
	w->cable->rng = 0;
}

/* The harness itself: two devices with their own memory, ports up, and the cable's knobs. */
TEST(xport_harness_world_and_cable_knobs)
{
	static const uint8_t reordered[10] = { 1, 2, 4, 3, 5, 7, 6, 8, 10, 9 };
	struct cxfw_stats st;
	struct drv_world w;
	struct rx_log l, l2;
	unsigned int i;
	int rounds;

	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	cxfw_get_stats(w.n[0].t->dev, &st);
	CHECK(st.link_up[0]);
	cxfw_get_stats(w.n[1].t->dev, &st);
	CHECK(st.link_up[0]);
	CHECK(w.n[0].t->dev != w.n[1].t->dev);
	CHECK(w.n[0].t->fk.base != w.n[1].t->fk.base);
	/* distinct serials: distinct unicast LIDs and port GUIDs */
	CHECK(w.n[0].lid >= CXIB_LID_UNICAST_MIN && w.n[0].lid <= CXIB_LID_UNICAST_MAX);
	CHECK(w.n[1].lid >= CXIB_LID_UNICAST_MIN && w.n[1].lid <= CXIB_LID_UNICAST_MAX);
	CHECK(w.n[0].lid != w.n[1].lid);
	CHECK(w.n[0].guid && w.n[0].guid != w.n[1].guid);
	CHECK_EQ(fake_cable_queued(w.cable), 0);
	w.cable->rx_tap = rx_log_tap;
	w.cable->rx_tap_arg = &l;

	cable_reset_log(&w, &l);
	cable_send_seq(&w, 1, 10);
	CHECK_EQ(fake_cable_queued(w.cable), 10);
	CHECK(drv_pump(&w) > 0);
	CHECK_EQ(l.n, 10);
	for (i = 0; i < 10; i++) {
		CHECK_EQ(l.seq[i], i + 1);
		CHECK_EQ(l.to[i], 1);
	}
	cxfw_get_stats(w.n[1].t->dev, &st);
	CHECK_EQ(st.pkts_received, 10);

	cable_reset_log(&w, &l);
	w.cable->drop_every = 3;
	cable_send_seq(&w, 1, 10);
	drv_pump(&w);
	CHECK_EQ(l.n, 7);
	CHECK_EQ(l.seq[2], 4);
	CHECK_EQ(l.seq[4], 7);
	CHECK_EQ(l.seq[6], 10);

	cable_reset_log(&w, &l);
	w.cable->dup_every = 4;
	cable_send_seq(&w, 1, 10);
	drv_pump(&w);
	CHECK_EQ(l.n, 12);
	CHECK_EQ(l.seq[3], 4);
	CHECK_EQ(l.seq[4], 4);
	CHECK_EQ(l.seq[9], 8);

	cable_reset_log(&w, &l);
	w.cable->reorder_every = 3;
	cable_send_seq(&w, 1, 10);
	drv_pump(&w);
	CHECK_EQ(l.n, 10);
	CHECK(!memcmp(l.seq, reordered, 10));
	/* a held packet with nothing behind it still comes out */
	cable_reset_log(&w, &l);
	w.cable->reorder_every = 3;
	cable_send_seq(&w, 1, 3);
	drv_pump(&w);
	CHECK_EQ(l.n, 3);
	CHECK_EQ(l.seq[2], 3);

	cable_reset_log(&w, &l);
	w.cable->delay_rounds = 5;
	cable_send_seq(&w, 1, 2);
	rounds = drv_pump(&w);
	CHECK(rounds >= 6);
	CHECK_EQ(l.n, 2);

	cable_reset_log(&w, &l);
	w.cable->cut = true;
	cable_send_seq(&w, 1, 5);
	drv_pump(&w);
	CHECK_EQ(l.n, 0);
	CHECK_EQ(w.cable->dropped[0] >= 5, 1);

	/* random loss: same seed, same packets lost */
	cable_reset_log(&w, &l);
	w.cable->drop_pct = 50;
	w.cable->seed = 99;
	cable_send_seq(&w, 1, 40);
	drv_pump(&w);
	l2 = l;
	cable_reset_log(&w, &l);
	w.cable->drop_pct = 50;
	w.cable->seed = 99;
	cable_send_seq(&w, 1, 40);
	drv_pump(&w);
	CHECK_EQ(l.n, l2.n);
	CHECK(!memcmp(l.seq, l2.seq, l.n));
	CHECK(l.n >= 8 && l.n <= 32);
}

/* ---- RC SEND / RECV ----------------------------------------------------------------------- */

/* One signaled SEND of @len bytes (gathered from @ngather pieces) into a receive of @rlen. */
static void rc_send_case(struct test_ctx *t, uint32_t len, unsigned int ngather, uint32_t rlen)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	unsigned int i;
	int ri, si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, len + 64, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, rlen + 64, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, len, len);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, rlen + 64);
	{
		struct drv_sge r = sge(&dst, 0, rlen);

		ri = drv_post_recv(e.nb, &e.b, &r, 1);
		CHECK_EQ(ri, 0);
	}
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	for (i = 0; i < ngather; i++) {
		uint32_t lo = len * i / ngather, hi = len * (i + 1) / ngather;

		wr.sg[wr.nsg++] = sge(&src, lo, hi - lo);
	}
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK_EQ(si, 0);
	CHECK(drv_pump(&e.w) > 0);

	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, len, ri);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, len, len));
	CHECK(mr_has_fill(e.nb, &dst, len, rlen + 64 - len, FILL_DST));
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);

	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_RTS);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
}

TEST(xport_rc_send_small)
{
	rc_send_case(t, 100, 1, 256);
}

TEST(xport_rc_send_multi_mtu_gather_and_exact_multiple)
{
	rc_send_case(t, 3 * 1024 + 700, 3, 8192);	/* MTU 1024: FIRST, MIDDLE x2, LAST */
	if (!t->failed)
		rc_send_case(t, 2 * 1024, 1, 2 * 1024);	/* FIRST, LAST of exactly MTU */
}

TEST(xport_rc_send_zero_length)
{
	struct cxib_cqe64 cqe;
	struct drv_mr dst;
	struct drv_wr wr;
	struct env e;
	struct drv_sge r;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW, &dst), 0);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 64);
	r = sge(&dst, 0, 64);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);		/* no data segment at all */
	si = drv_post_send(e.na, &e.a, &wr);
	CHECK_EQ(si, 0);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 0, 0);
	CHECK(mr_has_fill(e.nb, &dst, 0, 64, FILL_DST));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
}

TEST(xport_rc_send_imm_solicited_scatters_over_three_sges)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r[3];
	struct drv_wr wr;
	struct env e;
	const uint32_t len = 2500;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, len, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 3 * 1024, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, len, 77);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 3 * 1024);
	/* 1000 + 1000 + 1000 bytes, with 24-byte holes between them */
	r[0] = sge(&dst, 0, 1000);
	r[1] = sge(&dst, 1024, 1000);
	r[2] = sge(&dst, 2048, 1000);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, r, 3), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND_IMM, true);
	wr.imm = IMM;
	wr.solicited = true;
	wr.sg[wr.nsg++] = sge(&src, 0, len);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND_IMM, len, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), IMM);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 1);
	{
		uint8_t want[2500], got[2500];

		drv_pattern(want, len, 77);
		drv_mem_read(e.nb, dst.pa, got, 1000);
		drv_mem_read(e.nb, dst.pa + 1024, got + 1000, 1000);
		drv_mem_read(e.nb, dst.pa + 2048, got + 2000, 500);
		CHECK(!memcmp(want, got, len));
	}
	CHECK(mr_has_fill(e.nb, &dst, 1000, 24, FILL_DST));
	CHECK(mr_has_fill(e.nb, &dst, 2024, 24, FILL_DST));
	CHECK(mr_has_fill(e.nb, &dst, 2548, 3 * 1024 - 2548, FILL_DST));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND_IMM, si);
}

TEST(xport_rc_send_longer_than_recv_is_an_error)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 2048, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 2048, DRV_LR | DRV_LW, &dst), 0);
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 2048);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	/* IBTA Vol 1 ch. 9 (responder): NAK invalid request; responder: local length error */
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR, si);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_ERR, CXIB_CQE_SYND_LOCAL_LENGTH_ERR, 0);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_ERR);
}

TEST(xport_rc_send_inline)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 200, 5);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 256);
	r = sge(&dst, 0, 256);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.inl = true;
	wr.sg[0].addr = src.pa;		/* inline: the CPU copies, physical addresses */
	wr.sg[0].len = 120;
	wr.sg[1].addr = src.pa + 120;
	wr.sg[1].len = 80;
	wr.nsg = 2;
	si = drv_post_send(e.na, &e.a, &wr);
	/* the source changes after posting: inline data was taken at post time */
	drv_mem_fill(e.na, src.pa, 0, 256);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 200, 0);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 200, 5));
	CHECK(mr_has_fill(e.nb, &dst, 200, 56, FILL_DST));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, si);
}

/* ---- RDMA WRITE / READ ---------------------------------------------------------------------- */

TEST(xport_rc_write_multi_packet)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	const uint32_t len = 5000;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, len, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_LW | DRV_RW, &dst), 0);
	mr_pattern(e.na, &src, 0, len, 9);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 8192);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = dst.va + 100;		/* not page aligned, crosses pages */
	wr.rkey = dst.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 3000);
	wr.sg[wr.nsg++] = sge(&src, 3000, len - 3000);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE, si);
	CHECK(mr_has_fill(e.nb, &dst, 0, 100, FILL_DST));
	CHECK(mr_has_pattern(e.nb, &dst, 100, len, 9));
	CHECK(mr_has_fill(e.nb, &dst, 100 + len, 8192 - 100 - len, FILL_DST));
	/* a plain WRITE consumes no receive and makes no responder CQE */
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
}

TEST(xport_rc_write_imm_consumes_a_receive)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, rbuf;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	const uint32_t len = 3000;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, len, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 4096, DRV_LR | DRV_LW | DRV_RW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW, &rbuf), 0);
	mr_pattern(e.na, &src, 0, len, 10);
	drv_mem_fill(e.nb, rbuf.pa, FILL_DST, 64);
	r = sge(&rbuf, 0, 64);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 1);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE_IMM, true);
	wr.raddr = dst.va;
	wr.rkey = dst.key;
	wr.imm = IMM;
	wr.sg[wr.nsg++] = sge(&src, 0, len);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_WR_IMM, len, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), IMM);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);	/* the second receive is still there */
	CHECK(mr_has_pattern(e.nb, &dst, 0, len, 10));
	CHECK(mr_has_fill(e.nb, &rbuf, 0, 64, FILL_DST));	/* no data into the receive */
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE_IMM, si);
	/* the next SEND lands in the second receive (wqe_counter 1) */
	mr_pattern(e.na, &src, 0, 40, 11);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, false);
	wr.sg[wr.nsg++] = sge(&src, 0, 40);
	drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 40, 1);
	CHECK(mr_has_pattern(e.nb, &rbuf, 0, 40, 11));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);	/* unsignaled: no CQE */
}

TEST(xport_rc_read_multi_packet)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	const uint32_t len = 4500;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_RR, &src), 0);	/* remote */
	CHECK_EQ(drv_mr_alloc(e.na, 8192, DRV_LR | DRV_LW, &dst), 0);	/* local */
	mr_pattern(e.nb, &src, 0, 8192, 12);
	drv_mem_fill(e.na, dst.pa, FILL_DST, 8192);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = src.va + 300;
	wr.rkey = src.key;
	wr.sg[wr.nsg++] = sge(&dst, 0, 1500);
	wr.sg[wr.nsg++] = sge(&dst, 2000, len - 1500);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, si);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), len);
	{
		uint8_t want[8192], got[4500];

		drv_pattern(want, 8192, 12);
		drv_mem_read(e.na, dst.pa, got, 1500);
		drv_mem_read(e.na, dst.pa + 2000, got + 1500, len - 1500);
		CHECK(!memcmp(want + 300, got, len));
	}
	CHECK(mr_has_fill(e.na, &dst, 1500, 500, FILL_DST));
	CHECK(mr_has_fill(e.na, &dst, 2000 + len - 1500, 8192 - 2000 - (len - 1500), FILL_DST));
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
}

TEST(xport_rc_zero_length_read_and_write_skip_the_rkey_check)
{
	struct cxib_cqe64 cqe;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	/* C9-88: VA and R_Key of a zero-length READ are not checked */
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = 0x1234;
	wr.rkey = 0xdead00;
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_READ, si);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 0);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
	/* the same for a zero-length WRITE */
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = 0x42;
	wr.rkey = 0xbad00;
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE, si);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
}

/* ---- atomics ------------------------------------------------------------------------------- */

TEST(xport_rc_atomic_cmp_swap_success_and_failure)
{
	struct cxib_cqe64 cqe;
	struct drv_mr rem, res;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW | DRV_RR | DRV_A, &rem), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 64, DRV_LR | DRV_LW, &res), 0);
	mr_put_u64(e.nb, &rem, 8, 0x1111222233334444ull);
	mr_put_u64(e.nb, &rem, 16, 0x7777777777777777ull);	/* neighbours untouched */
	drv_mem_fill(e.na, res.pa, FILL_DST, 64);
	wr = wr_op(CXIB_WQE_OPCODE_ATOMIC_CS, true);
	wr.raddr = rem.va + 8;
	wr.rkey = rem.key;
	wr.compare = 0x1111222233334444ull;
	wr.swap_add = 0xaaaabbbbccccddddull;
	wr.sg[wr.nsg++] = sge(&res, 0, 8);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_ATOMIC_CS, si);
	CHECK_EQ(mr_get_u64(e.na, &res, 0), 0x1111222233334444ull);
	CHECK_EQ(mr_get_u64(e.nb, &rem, 8), 0xaaaabbbbccccddddull);
	CHECK_EQ(mr_get_u64(e.nb, &rem, 16), 0x7777777777777777ull);
	CHECK(mr_has_fill(e.na, &res, 8, 56, FILL_DST));
	/* compare no longer matches: memory unchanged, the current value comes back */
	wr.compare = 0x1111222233334444ull;
	wr.swap_add = 0x5555555555555555ull;
	wr.sg[0] = sge(&res, 8, 8);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_ATOMIC_CS, si);
	CHECK_EQ(mr_get_u64(e.na, &res, 8), 0xaaaabbbbccccddddull);
	CHECK_EQ(mr_get_u64(e.nb, &rem, 8), 0xaaaabbbbccccddddull);
}

TEST(xport_rc_atomic_fetch_add)
{
	struct cxib_cqe64 cqe;
	struct drv_mr rem, res;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW | DRV_A, &rem), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 64, DRV_LR | DRV_LW, &res), 0);
	mr_put_u64(e.nb, &rem, 0, 0x00000000fffffffeull);
	wr = wr_op(CXIB_WQE_OPCODE_ATOMIC_FA, true);
	wr.raddr = rem.va;
	wr.rkey = rem.key;
	wr.swap_add = 3;			/* carries into the upper half */
	wr.sg[wr.nsg++] = sge(&res, 0, 8);
	si = drv_post_send(e.na, &e.a, &wr);
	wr.swap_add = 0xffffffffffffffffull;	/* -1: wraps */
	wr.sg[0] = sge(&res, 8, 8);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), si + 1);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_ATOMIC_FA, si);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_ATOMIC_FA, si + 1);
	CHECK_EQ(mr_get_u64(e.na, &res, 0), 0x00000000fffffffeull);
	CHECK_EQ(mr_get_u64(e.na, &res, 8), 0x0000000100000001ull);
	CHECK_EQ(mr_get_u64(e.nb, &rem, 0), 0x0000000100000000ull);
}

/*
 * Without SET_HCA_CAP of the atomic byte order (a driver that never reads the atomic caps)
 * the requester returns the original value big-endian, the device default, while the
 * responder still works on memory in the declared host order.
 */
TEST(xport_rc_atomic_result_big_endian_unless_the_driver_sets_host_order)
{
	struct cxib_cqe64 cqe;
	struct drv_mr rem, res;
	struct drv_wr wr;
	struct env e;
	unsigned int st;
	uint8_t b[8];
	int si;

	drv_atomic_req_mode = CXIB_ATOMIC_REQ_MODE_BE;
	st = env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL);
	drv_atomic_req_mode = CXIB_ATOMIC_REQ_MODE_HOST;
	CHECK_EQ(st, 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW | DRV_A, &rem), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 64, DRV_LR | DRV_LW, &res), 0);
	mr_put_u64(e.nb, &rem, 0, 0x0102030405060708ull);
	wr = wr_op(CXIB_WQE_OPCODE_ATOMIC_FA, true);
	wr.raddr = rem.va;
	wr.rkey = rem.key;
	wr.swap_add = 1;
	wr.sg[wr.nsg++] = sge(&res, 0, 8);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_ATOMIC_FA, si);
	drv_mem_read(e.na, res.pa, b, sizeof(b));
	CHECK_EQ(b[0], 0x01);			/* most significant byte first */
	CHECK_EQ(b[7], 0x08);
	CHECK_EQ(mr_get_u64(e.nb, &rem, 0), 0x0102030405060709ull);
}

TEST(xport_rc_atomic_without_remote_atomic_access_fails)
{
	struct cxib_cqe64 cqe;
	struct drv_mr rem, res;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 64, DRV_LR | DRV_LW | DRV_RR | DRV_RW, &rem), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 64, DRV_LR | DRV_LW, &res), 0);
	mr_put_u64(e.nb, &rem, 0, 42);
	wr = wr_op(CXIB_WQE_OPCODE_ATOMIC_FA, true);
	wr.raddr = rem.va;
	wr.rkey = rem.key;
	wr.swap_add = 1;
	wr.sg[wr.nsg++] = sge(&res, 0, 8);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_ACCESS_ERR, si);
	CHECK_EQ(mr_get_u64(e.nb, &rem, 0), 42);
}

/* ---- SEND with invalidate ------------------------------------------------------------------ */

TEST(xport_rc_send_inv_invalidates_the_rkey)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, victim;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW | DRV_RW, &victim), 0);
	mr_pattern(e.na, &src, 0, 64, 13);
	/* the victim key works before */
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = victim.va;
	wr.rkey = victim.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE, si);
	CHECK(mr_has_pattern(e.nb, &victim, 0, 64, 13));

	r = sge(&dst, 0, 256);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND_INVAL, true);
	wr.imm = victim.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND_INV, 64, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), victim.key);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 64, 13));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND_INVAL, si);

	/* now the key is invalid: remote access error, nothing written */
	drv_mem_fill(e.nb, victim.pa, FILL_DST, 256);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = victim.va;
	wr.rkey = victim.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_ACCESS_ERR, si);
	CHECK(mr_has_fill(e.nb, &victim, 0, 256, FILL_DST));
}

/*
 * SEND_WITH_INVALIDATE naming a key the responder may not invalidate -- one of another PD,
 * one created without en_rinval, one that does not exist -- is an invalid request (IBA
 * 10.6.5: NAK, the responder's QP to ERR, REMOTE_INVAL_REQ_ERR on both sides), and the key
 * stays as it was.
 */
static void send_inv_refused(struct test_ctx *t, unsigned int which)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, victim;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	uint32_t pd2, key;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW, &dst), 0);
	if (which == 0) {
		CHECK_EQ(drv_alloc_pd(e.nb->t, &pd2), 0);
		CHECK_EQ(drv_mr_create(e.nb, pd2, drv_alloc_data(e.nb, 4096), 256,
				       DRV_LR | DRV_LW | DRV_RW, &victim), 0);
	} else {
		CHECK_EQ(drv_mr_alloc(e.nb, 256, DRV_LR | DRV_LW | DRV_RW | DRV_NO_RINVAL,
				      &victim), 0);
	}
	key = which == 2 ? victim.key ^ 0xff : victim.key;	/* 2: a variant never issued */
	mr_pattern(e.na, &src, 0, 64, 14);
	r = sge(&dst, 0, 256);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND_INVAL, true);
	wr.imm = key;
	wr.sg[wr.nsg++] = sge(&src, 0, 64);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_EQ(CQE_OPCODE(&cqe), CXIB_CQE_OPCODE_RESP_ERR);
	CHECK_EQ(CQE_SYND(&cqe), CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR, CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR, si);
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_ERR);
	/* the key was not invalidated */
	CHECK(!e.nb->t->dev->mkeys[CXIB_MKEY_INDEX(victim.key)]->free);
}

TEST(xport_rc_send_inv_of_another_pds_key_is_an_invalid_request)
{
	send_inv_refused(t, 0);
}

TEST(xport_rc_send_inv_of_a_key_without_en_rinval_is_an_invalid_request)
{
	send_inv_refused(t, 1);
}

TEST(xport_rc_send_inv_of_a_stale_key_variant_is_an_invalid_request)
{
	send_inv_refused(t, 2);
}

/* ---- SRQ ----------------------------------------------------------------------------------- */

TEST(xport_rc_srq_feeds_two_qps_and_signals_its_limit)
{
	struct drv_qp_init ia, ib;
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct drv_qp a2, b2;
	struct drv_srq srq;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	unsigned int k;
	int idx[3];

	CHECK_EQ(drv_world_init(t, &e.w, 2), 0);
	e.na = &e.w.n[0];
	e.nb = &e.w.n[1];
	e.ca = e.w.cq[0];
	e.cb = e.w.cq[1];
	CHECK_EQ(drv_srq_create(e.nb, 4, 2, &srq), 0);		/* 16 WQEs of 64 bytes */
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.ca);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, e.cb);
	ib.srq = &srq;
	CHECK_EQ(drv_pair_init(&e.w, &ia, &ib, NULL, &e.a, &e.b), 0);
	CHECK_EQ(drv_pair_init(&e.w, &ia, &ib, NULL, &a2, &b2), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 3 * 2048, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 4096, 21);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 3 * 2048);
	for (k = 0; k < 3; k++) {
		struct drv_sge r = sge(&dst, 2048 * k, 2048);

		idx[k] = drv_srq_post(e.nb, &srq, &r, 1);
		CHECK_EQ(idx[k], k);
	}
	while (drv_next_event(e.nb, &eqe) >= 0)
		;				/* port events from the bring-up */
	CHECK_EQ(drv_srq_arm(e.nb, &srq, 2), 0);	/* event once fewer than 2 are left */
	/* QP a -> b (1500 bytes), a2 -> b2 (100 bytes), a -> b (0 bytes), one at a time */
	for (k = 0; k < 3; k++) {
		static const uint32_t lens[3] = { 1500, 100, 0 };
		struct drv_qp *s = k == 1 ? &a2 : &e.a, *r = k == 1 ? &b2 : &e.b;

		wr = wr_op(CXIB_WQE_OPCODE_SEND, false);
		if (lens[k])
			wr.sg[wr.nsg++] = sge(&src, 512 * k, lens[k]);
		CHECK(drv_post_send(e.na, s, &wr) >= 0);
		PUMP(&e.w);
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_RESP_CQE(&cqe, r, CXIB_CQE_OPCODE_RESP_SEND, lens[k], idx[k]);
		drv_srq_free(e.nb, &srq, (uint16_t)CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER));
		if (lens[k]) {
			uint8_t want[4096], got[2048];

			drv_pattern(want, 4096, 21);
			drv_mem_read(e.nb, dst.pa + 2048 * k, got, lens[k]);
			CHECK(!memcmp(want + 512 * k, got, lens[k]));
		}
		CHECK(mr_has_fill(e.nb, &dst, 2048 * k + lens[k], 2048 - lens[k], FILL_DST));
		if (k == 0) {
			CHECK_EQ(drv_next_event(e.nb, &eqe), -1);	/* 2 left */
		} else if (k == 1) {
			CHECK_EQ(drv_next_event(e.nb, &eqe), CXIB_EVENT_TYPE_SRQ_RQ_LIMIT);
			CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_SRQ_SRQN), srq.srqn);
		} else {
			CHECK_EQ(drv_next_event(e.nb, &eqe), -1);	/* once per arm */
		}
	}
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);		/* all unsignaled */
}

/* ---- UC ------------------------------------------------------------------------------------ */

TEST(xport_uc_send_and_write)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, wdst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	int si;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_UC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 8192, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_LW | DRV_RW, &wdst), 0);
	mr_pattern(e.na, &src, 0, 8192, 31);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, 8192);
	drv_mem_fill(e.nb, wdst.pa, FILL_DST, 8192);
	r = sge(&dst, 0, 8192);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND_IMM, true);
	wr.imm = IMM;
	wr.sg[wr.nsg++] = sge(&src, 0, 2100);			/* 3 packets */
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND_IMM, 2100, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), IMM);
	CHECK(mr_has_pattern(e.nb, &dst, 0, 2100, 31));
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND_IMM, si);

	wr = wr_op(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = wdst.va + 8;
	wr.rkey = wdst.key;
	wr.sg[wr.nsg++] = sge(&src, 0, 5000);
	si = drv_post_send(e.na, &e.a, &wr);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_RDMA_WRITE, si);
	CHECK(mr_has_fill(e.nb, &wdst, 0, 8, FILL_DST));
	CHECK(mr_has_pattern(e.nb, &wdst, 8, 5000, 31));
	CHECK(mr_has_fill(e.nb, &wdst, 5008, 8192 - 5008, FILL_DST));
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
}

TEST(xport_uc_lost_packet_drops_the_message_only)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_UC, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 8192, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(e.na, &src, 0, 4096, 32);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 0);
	r = sge(&dst, 4096, 4096);
	CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), 1);
	/* message 1 is three packets; the second one is lost */
	e.w.cable->drop_every = 2;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 2100);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 0);
	PUMP(&e.w);
	e.w.cable->drop_every = 0;
	/* UC completes at the requester when sent; the responder drops the message */
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, 0);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	/* message 2 resynchronises and completes (in the first receive: it was rewound) */
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 100, 300);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), 1);
	PUMP(&e.w);
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
	CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 300, 0);
	{
		uint8_t want[4096], got[300];

		drv_pattern(want, 4096, 32);
		drv_mem_read(e.nb, dst.pa, got, 300);
		CHECK(!memcmp(want + 100, got, 300));
	}
	CHECK_EQ(drv_qp_state(e.nb, &e.b), CXIB_QPC_STATE_RTS);
}

/* ---- UD and multicast ---------------------------------------------------------------------- */

/* The GID of @n's port 1 at index 0: the default prefix and the port GUID. */
static void node_gid(const struct drv_node *n, uint8_t gid[16])
{
	uint64_t prefix = 0xfe80000000000000ull;	/* link-local: the default subnet prefix */
	unsigned int i;

	for (i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(n->guid >> (56 - 8 * i));
	}
}

TEST(xport_ud_send_recv_without_grh)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;
	int si;

	CHECK_EQ(ud_env(t, &u), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 8192, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(u.na, &src, 0, 4096, 41);
	drv_mem_fill(u.nb, dst.pa, FILL_DST, 8192);
	r = sge(&dst, 0, DRV_GRH_LEN + 4096);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND_IMM, true);
	wr.imm = IMM;
	wr.solicited = true;
	wr.ah.dlid = u.nb->lid;
	wr.ah.dqpn = u.b.qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.ah.sl = 3;
	wr.sg[wr.nsg++] = sge(&src, 0, 4096);		/* a full 4 KiB datagram */
	si = drv_post_send(u.na, &u.a, &wr);
	PUMP(&u.w);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND_IMM, DRV_GRH_LEN + 4096, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), IMM);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), u.a.qpn);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SLID), u.na->lid);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SL), 3);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_G), CXIB_CQE_G_NONE);
	CHECK(mr_has_pattern(u.nb, &dst, DRV_GRH_LEN, 4096, 41));
	CHECK(mr_has_fill(u.nb, &dst, DRV_GRH_LEN + 4096, 8192 - DRV_GRH_LEN - 4096, FILL_DST));
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_REQ_CQE(&cqe, &u.a, CXIB_WQE_OPCODE_SEND_IMM, si);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 0);		/* b2 got nothing */
}

/*
 * Inline and pointer segments mixed in one WQE, in any order (UCX's ud_mlx5 puts its header
 * inline and its payload behind a pointer): the message is their concatenation.
 */
TEST(xport_ud_send_mixes_inline_and_pointer_segments)
{
	static const uint32_t lens[DRV_MAX_SGE] = { 300, 8, 8, 5 };
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;
	uint64_t off = 0;
	unsigned int i;
	int si;

	CHECK_EQ(ud_env(t, &u), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 4096, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(u.na, &src, 0, 4096, 77);
	drv_mem_fill(u.nb, dst.pa, FILL_DST, 4096);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.ah.dlid = u.nb->lid;
	wr.ah.dqpn = u.b.qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	/* pointer, inline, pointer, inline: consecutive pieces of the pattern */
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		wr.sg[wr.nsg] = sge(&src, off, lens[i]);
		if (i % 2) {
			wr.sg[wr.nsg].inl = true;
			wr.sg[wr.nsg].addr = drv_mr_pa_of(&src, src.va + off);
		}
		wr.nsg++;
		off += lens[i];
	}
	si = drv_post_send(u.na, &u.a, &wr);
	CHECK(si >= 0);
	PUMP(&u.w);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_REQ_CQE(&cqe, &u.a, CXIB_WQE_OPCODE_SEND, si);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + off, 0);
	CHECK(mr_has_pattern(u.nb, &dst, DRV_GRH_LEN, (uint32_t)off, 77));
	CHECK(mr_has_fill(u.nb, &dst, DRV_GRH_LEN + off, 64, FILL_DST));
}

TEST(xport_ud_wrong_qkey_is_dropped)
{
	struct cxfw_stats st;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;

	CHECK_EQ(ud_env(t, &u), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 512, DRV_LR | DRV_LW, &dst), 0);
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.ah.dlid = u.nb->lid;
	wr.ah.dqpn = u.b.qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY + 1;
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 0);
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.sg[0].len = 50;
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 2);	/* ctrl + AV + data: 2 WQEBBs */
	PUMP(&u.w);
	/* the sender completes both; only the second arrives, in the first receive */
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_REQ_CQE(&cqe, &u.a, CXIB_WQE_OPCODE_SEND, 0);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_REQ_CQE(&cqe, &u.a, CXIB_WQE_OPCODE_SEND, 2);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 50, 0);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 0);
	cxfw_get_stats(u.nb->t->dev, &st);
	CHECK_EQ(st.qkey_violations, 1);
	CHECK_EQ(drv_qp_state(u.nb, &u.b), CXIB_QPC_STATE_RTS);
}

TEST(xport_ud_with_grh_fills_the_grh_area)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;
	uint8_t grh[DRV_GRH_LEN], sgid[16], dgid[16];

	CHECK_EQ(ud_env(t, &u), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 512, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(u.na, &src, 0, 256, 42);
	drv_mem_fill(u.nb, dst.pa, FILL_DST, 512);
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 0);
	node_gid(u.na, sgid);
	node_gid(u.nb, dgid);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.ah.dlid = u.nb->lid;
	wr.ah.dqpn = u.b.qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.ah.grh = true;
	wr.ah.hop_limit = 64;
	wr.ah.tclass = 0x20;
	wr.ah.flow_label = 0x12345;
	memcpy(wr.ah.dgid, dgid, 16);
	wr.sg[wr.nsg++] = sge(&src, 0, 200);
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 0);
	PUMP(&u.w);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_RESP_CQE(&cqe, &u.b, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 200, 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_G), CXIB_CQE_G_GRH);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), u.a.qpn);
	drv_mem_read(u.nb, dst.pa, grh, sizeof(grh));
	CHECK_EQ(CXIB_GET(grh, CXIB_GRH_IPVER), CXIB_GRH_IPVER_6);
	CHECK_EQ(CXIB_GET(grh, CXIB_GRH_TCLASS), 0x20);
	CHECK_EQ(CXIB_GET(grh, CXIB_GRH_FLOW_LABEL), 0x12345);
	CHECK_EQ(CXIB_GET(grh, CXIB_GRH_NXTHDR), CXIB_GRH_NXTHDR_IBA);
	CHECK_EQ(CXIB_GET(grh, CXIB_GRH_HOPLMT), 64);
	CHECK(!memcmp(grh + CXIB_GRH_SGID_OFFSET, sgid, 16));
	CHECK(!memcmp(grh + CXIB_GRH_DGID_OFFSET, dgid, 16));
	CHECK(mr_has_pattern(u.nb, &dst, DRV_GRH_LEN, 200, 42));
}

TEST(xport_ud_multicast_reaches_every_attached_qp)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x77 };
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct ud_env u;
	unsigned int k, seen = 0;
	uint8_t grh[DRV_GRH_LEN];

	CHECK_EQ(ud_env(t, &u), 0);
	CHECK_EQ(drv_mr_alloc(u.na, 256, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(u.nb, 1024, DRV_LR | DRV_LW, &dst), 0);
	mr_pattern(u.na, &src, 0, 256, 43);
	drv_mem_fill(u.nb, dst.pa, FILL_DST, 1024);
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 0);
	r = sge(&dst, 512, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b2, &r, 1), 0);
	CHECK_EQ(drv_mcg(u.nb, &u.b, mgid, true), 0);
	CHECK_EQ(drv_mcg(u.nb, &u.b2, mgid, true), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.ah.dlid = DRV_MCAST_LID;
	wr.ah.dqpn = DRV_MCAST_QPN;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.ah.grh = true;
	wr.ah.hop_limit = 1;
	memcpy(wr.ah.dgid, mgid, 16);
	wr.sg[wr.nsg++] = sge(&src, 0, 150);
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 0);
	PUMP(&u.w);
	for (k = 0; k < 2; k++) {
		const struct drv_qp *q;

		CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
		q = CXIB_GET(&cqe, CXIB_CQE_QPN) == u.b.qpn ? &u.b : &u.b2;
		seen |= q == &u.b ? 1 : 2;
		CHECK_RESP_CQE(&cqe, q, CXIB_CQE_OPCODE_RESP_SEND, DRV_GRH_LEN + 150, 0);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_G), CXIB_CQE_G_GRH);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), u.a.qpn);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SLID), u.na->lid);
		drv_mem_read(u.nb, dst.pa + (q == &u.b ? 0 : 512), grh, sizeof(grh));
		CHECK(!memcmp(grh + CXIB_GRH_DGID_OFFSET, mgid, 16));
		CHECK(mr_has_pattern(u.nb, &dst, (q == &u.b ? 0 : 512) + DRV_GRH_LEN, 150, 43));
	}
	CHECK_EQ(seen, 3);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 0);
	CHECK_EQ(drv_poll(u.na, u.w.cq[0], &cqe), 1);
	CHECK_REQ_CQE(&cqe, &u.a, CXIB_WQE_OPCODE_SEND, 0);
	/* detached QPs get nothing more */
	CHECK_EQ(drv_mcg(u.nb, &u.b2, mgid, false), 0);
	r = sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b, &r, 1), 1);
	r = sge(&dst, 512, 512);
	CHECK_EQ(drv_post_recv(u.nb, &u.b2, &r, 1), 1);
	CHECK_EQ(drv_post_send(u.na, &u.a, &wr), 2);
	PUMP(&u.w);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), u.b.qpn);
	CHECK_EQ(drv_poll(u.nb, u.w.cq[1], &cqe), 0);
}

/* ---- loopback, many in flight, ring wrap ------------------------------------------------- */

TEST(xport_rc_loopback_inside_one_device)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, rd;
	struct drv_sge r;
	struct drv_wr wr;
	struct env e;
	struct cxfw_stats st;
	int si;

	CHECK_EQ(env_pair(t, &e, 1, CXIB_QPC_ST_RC, NULL), 0);	/* dlid = own LID */
	CHECK(e.na == e.nb);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR | DRV_RR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR | DRV_LW, &rd), 0);
	mr_pattern(e.na, &src, 0, 4096, 51);
	r = sge(&dst, 0, 4096);
	CHECK_EQ(drv_post_recv(e.na, &e.b, &r, 1), 0);
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 3000);
	si = drv_post_send(e.na, &e.a, &wr);
	wr = wr_op(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = src.va + 1000;
	wr.rkey = src.key;
	wr.sg[wr.nsg++] = sge(&rd, 0, 2000);
	CHECK_EQ(drv_post_send(e.na, &e.a, &wr), si + 1);
	PUMP(&e.w);
	/* one CQ: the receive, the send and the read, the receive not necessarily first */
	{
		struct cxib_cqe64 c[3];
		unsigned int i, req = 0, resp = 0;

		CHECK_EQ(drv_poll_many(e.na, e.ca, c, 3), 3);
		for (i = 0; i < 3; i++) {
			if (CQE_OPCODE(&c[i]) == CXIB_CQE_OPCODE_RESP_SEND) {
				CHECK_RESP_CQE(&c[i], &e.b, CXIB_CQE_OPCODE_RESP_SEND, 3000, 0);
				resp++;
			} else {
				CHECK_REQ_CQE(&c[i], &e.a, req ? CXIB_WQE_OPCODE_RDMA_READ :
						 CXIB_WQE_OPCODE_SEND, si + req);
				req++;
			}
		}
		CHECK_EQ(resp, 1);
	}
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK(mr_has_pattern(e.na, &dst, 0, 3000, 51));
	{
		uint8_t want[4096], got[2000];

		drv_pattern(want, 4096, 51);
		drv_mem_read(e.na, rd.pa, got, 2000);
		CHECK(!memcmp(want + 1000, got, 2000));
	}
	/* nothing went on the cable */
	CHECK_EQ(e.w.cable->sent[0], 0);
	cxfw_get_stats(e.na->t->dev, &st);
	CHECK(st.pkts_looped >= 3 + 2);
}

TEST(xport_rc_64_sends_in_flight)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	unsigned int k, sig = 0;
	uint32_t lens[64], off[64], total = 0;
	int idx[64];

	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, NULL), 0);
	for (k = 0; k < 64; k++) {
		lens[k] = (k * 331u) % 2900;		/* 0 .. 2899, k = 0 is empty */
		off[k] = total;
		total += (lens[k] + 63) & ~63u;
	}
	CHECK_EQ(drv_mr_alloc(e.na, total + 64, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, total + 64, DRV_LR | DRV_LW, &dst), 0);
	for (k = 0; k < 64; k++)
		mr_pattern(e.na, &src, off[k], lens[k], 1000 + k);
	drv_mem_fill(e.nb, dst.pa, FILL_DST, total + 64);
	for (k = 0; k < 64; k++) {
		struct drv_sge r = sge(&dst, off[k], lens[k] ? lens[k] : 1);

		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), k);
	}
	for (k = 0; k < 64; k++) {
		wr = wr_op(CXIB_WQE_OPCODE_SEND, k % 4 == 3);	/* every 4th signaled */
		if (lens[k])
			wr.sg[wr.nsg++] = sge(&src, off[k], lens[k]);
		idx[k] = drv_post_send(e.na, &e.a, &wr);
		CHECK_EQ(idx[k], k);
	}
	PUMP(&e.w);
	for (k = 0; k < 64; k++) {
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, lens[k], k);
		CHECK(mr_has_pattern(e.nb, &dst, off[k], lens[k], 1000 + k));
	}
	CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 0);
	while (drv_poll(e.na, e.ca, &cqe)) {
		CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND, idx[4 * sig + 3]);
		sig++;
	}
	CHECK_EQ(sig, 16);
}

TEST(xport_sq_rq_and_cq_rings_wrap_around)
{
	struct drv_qp_init ia, ib;
	struct drv_cq sca, scb;
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct env e;
	unsigned int k;

	CHECK_EQ(drv_world_init(t, &e.w, 2), 0);
	e.na = &e.w.n[0];
	e.nb = &e.w.n[1];
	e.ca = e.w.cq[0];
	e.cb = e.w.cq[1];
	/* small rings everywhere: SQ of 8 WQEBBs, RQ of 8 WQEs, CQs of 4 CQEs (owner laps) */
	CHECK_EQ(drv_cq_create(e.na, 2, &sca), 0);
	CHECK_EQ(drv_cq_create(e.nb, 2, &scb), 0);
	e.ca = &sca;
	e.cb = &scb;
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.ca);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, e.cb);
	ia.log_sq = 3;
	ib.log_rq = 3;
	CHECK_EQ(drv_pair_init(&e.w, &ia, &ib, NULL, &e.a, &e.b), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, 16 * 256, DRV_LR | DRV_LW, &dst), 0);
	for (k = 0; k < 14; k++) {
		struct drv_sge r = sge(&dst, 256 * k, 256);
		int si;

		/* 150 inline bytes: 11 DS = 3 WQEBBs; they start at 0, 3, 6 (wraps), 9 ... */
		mr_pattern(e.na, &src, 256 * (k % 8), 150, 60 + k);
		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), k);
		wr = wr_op(CXIB_WQE_OPCODE_SEND_IMM, true);
		wr.imm = k;
		wr.inl = true;
		wr.sg[0].addr = src.pa + 256 * (k % 8);
		wr.sg[0].len = 150;
		wr.nsg = 1;
		si = drv_post_send(e.na, &e.a, &wr);
		CHECK_EQ(si, 3 * k);
		PUMP(&e.w);
		CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
		CHECK_REQ_CQE(&cqe, &e.a, CXIB_WQE_OPCODE_SEND_IMM, si);
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND_IMM, 150, k);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), k);
		CHECK(mr_has_pattern(e.nb, &dst, 256 * k, 150, 60 + k));
	}
}
