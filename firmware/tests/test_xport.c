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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"
#include "wire.h"

#define FILL_DST	0xee		/* receive buffers are pre-filled with this */
#define IMM		0x12345678u

/* ---- helpers ---------------------------------------------------------------------------- */

static struct drv_sge sge(const struct drv_mr *mr, uint64_t off, uint32_t len)
{
	struct drv_sge s = { mr->va + off, len, mr->key };

	return s;
}

static struct drv_wr wr_op(unsigned int opcode, bool signaled)
{
	struct drv_wr w;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.signaled = signaled;
	return w;
}

/* Fill @len bytes of @mr at @off with pattern @seed. */
static void mr_pattern(struct drv_node *n, const struct drv_mr *mr, uint64_t off, uint32_t len,
		       uint32_t seed)
{
	uint8_t *b = malloc(len ? len : 1);

	if (!b)
		abort();
	drv_pattern(b, len, seed);
	drv_mem_write(n, mr->pa + off, b, len);
	free(b);
}

/* Does @mr at @off hold pattern @seed for @len bytes? */
static bool mr_has_pattern(struct drv_node *n, const struct drv_mr *mr, uint64_t off,
			   uint32_t len, uint32_t seed)
{
	uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
	bool ok;

	if (!a || !b)
		abort();
	drv_pattern(a, len, seed);
	drv_mem_read(n, mr->pa + off, b, len);
	ok = !memcmp(a, b, len);
	free(a);
	free(b);
	return ok;
}

/* Does @mr at @off hold @byte for @len bytes? */
static bool mr_has_fill(struct drv_node *n, const struct drv_mr *mr, uint64_t off, uint32_t len,
			uint8_t byte)
{
	uint8_t *b = malloc(len ? len : 1);
	uint32_t i;
	bool ok = true;

	if (!b)
		abort();
	drv_mem_read(n, mr->pa + off, b, len);
	for (i = 0; i < len && ok; i++)
		ok = b[i] == byte;
	free(b);
	return ok;
}

/* An 8-byte atomic operand in guest memory: little endian (the host order drv declared). */
static uint64_t mr_get_u64(struct drv_node *n, const struct drv_mr *mr, uint64_t off)
{
	uint8_t b[8];
	uint64_t v = 0;
	int i;

	drv_mem_read(n, mr->pa + off, b, 8);
	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static void mr_put_u64(struct drv_node *n, const struct drv_mr *mr, uint64_t off, uint64_t v)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	drv_mem_write(n, mr->pa + off, b, 8);
}

/* Run the cable until quiet; a model that keeps talking forever (a storm) fails the test. */
#define PUMP(w)		CHECK(drv_pump(w) > 0)

#define CQE_OPCODE(c)	CXIB_GET(c, CXIB_CQE_OPCODE)
#define CQE_SYND(c)	CXIB_GET(c, CXIB_CQE_ERR_SYNDROME)

/* A successful requester CQE for WQE @idx (@opc) of @qp. */
#define CHECK_REQ_CQE(c, qp, opc, idx)						\
	do {									\
		CHECK_EQ(CQE_OPCODE(c), CXIB_CQE_OPCODE_REQ);			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_SOP), (opc));			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_QPN), (qp)->qpn);			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_WQE_COUNTER), (uint16_t)(idx));	\
	} while (0)

/* A successful responder CQE on @qp. */
#define CHECK_RESP_CQE(c, qp, opc, bytes, idx)					\
	do {									\
		CHECK_EQ(CQE_OPCODE(c), (opc));					\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_QPN), (qp)->qpn);			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_BYTE_CNT), (bytes));		\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_WQE_COUNTER), (uint16_t)(idx));	\
	} while (0)

/* An error CQE (@opc REQ_ERR / RESP_ERR) with @synd for WQE @idx of @qp. */
#define CHECK_ERR_CQE(c, qp, opc, synd, idx)					\
	do {									\
		CHECK_EQ(CQE_OPCODE(c), (opc));					\
		CHECK_EQ(CQE_SYND(c), (synd));					\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_QPN), (qp)->qpn);		\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_WQE_COUNTER), (uint16_t)(idx)); \
	} while (0)

/* The world with one connected pair; @st RC or UC. */
struct env {
	struct drv_world w;
	struct drv_node *na, *nb;	/* requester side, responder side */
	struct drv_qp a, b;
	struct drv_cq *ca, *cb;
};

static unsigned int env_pair(struct test_ctx *t, struct env *e, unsigned int nodes, uint32_t st,
			     const struct drv_qp_conn *conn)
{
	unsigned int s = drv_world_init(t, &e->w, nodes);

	if (s)
		return s;
	e->na = &e->w.n[0];
	e->nb = &e->w.n[nodes - 1];
	e->ca = e->w.cq[0];
	e->cb = e->w.cq[nodes - 1];
	return drv_rc_pair(&e->w, st, conn, &e->a, &e->b);
}

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

struct ud_env {
	struct drv_world w;
	struct drv_node *na, *nb;
	struct drv_qp a, b, b2;
	struct drv_qp_init ia, ib;
};

static unsigned int ud_env(struct test_ctx *t, struct ud_env *u)
{
	struct drv_qp_conn c;
	unsigned int s = drv_world_init(t, &u->w, 2);

	if (s)
		return s;
	u->na = &u->w.n[0];
	u->nb = &u->w.n[1];
	drv_qp_init_defaults(&u->ia, CXIB_QPC_ST_UD, u->w.cq[0]);
	drv_qp_init_defaults(&u->ib, CXIB_QPC_ST_UD, u->w.cq[1]);
	drv_qp_conn_defaults(&c);
	s = drv_qp_create(u->na, &u->ia, &u->a);
	if (!s)
		s = drv_qp_create(u->nb, &u->ib, &u->b);
	if (!s)
		s = drv_qp_create(u->nb, &u->ib, &u->b2);
	if (!s)
		s = drv_qp_connect(u->na, &u->a, &u->ia, &c);
	if (!s)
		s = drv_qp_connect(u->nb, &u->b, &u->ib, &c);
	if (!s)
		s = drv_qp_connect(u->nb, &u->b2, &u->ib, &c);
	return s;
}

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
	c.timeout = 10;				/* 4.096 us << 10 = 4.19 ms */
	CHECK_EQ(env_pair(t, &e, 2, CXIB_QPC_ST_RC, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.na, 256, DRV_LR, &src), 0);
	e.w.cable->cut = true;
	wr = wr_op(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sge(&src, 0, 100);
	si = drv_post_send(e.na, &e.a, &wr);
	/* three timeouts (the try and two retries) cannot have passed after 12 ms */
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 12000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);
	CHECK_EQ(drv_pump_time(&e.w, 1000000, 500000000), 0);
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 1);
	CHECK_ERR_CQE(&cqe, &e.a, CXIB_CQE_OPCODE_REQ_ERR,
		      CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR, si);
	CHECK_EQ(drv_qp_state(e.na, &e.a), CXIB_QPC_STATE_ERR);
	cxfw_get_stats(e.na->t->dev, &sa);
	CHECK_EQ(sa.retransmits, 2);
	CHECK_EQ(sa.retry_exceeded, 1);
	CHECK_EQ(e.w.cable->sent[0], 3);	/* and nothing after giving up */
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

/* While @hold: drops the ACKs node 1 sends, keeping the bytes of the last for later. */
struct late_ack {
	bool hold;
	uint8_t pkt[FAKE_CABLE_PKT_MAX];
	size_t len;
	unsigned int acks;
};

static bool late_ack_tap(void *arg, unsigned int from, const uint8_t *pkt, size_t len)
{
	struct late_ack *la = arg;
	struct cxfw_pkt p;

	if (!la->hold || from != 1 || cxfw_pkt_parse(pkt, len, &p) ||
	    p.opcode != CXIB_BTH_OP_RC_ACKNOWLEDGE || len > sizeof(la->pkt))
		return true;
	memcpy(la->pkt, pkt, len);
	la->len = len;
	la->acks++;
	return false;
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
	struct late_ack la;
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
	memset(&la, 0, sizeof(la));
	la.hold = true;
	e.w.cable->tap = late_ack_tap;
	e.w.cable->tap_arg = &la;
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
	CHECK_EQ(la.acks, nmsg);	/* one per message (AckReq on each LAST), held back */
	CHECK(la.len > 0);
	la.hold = false;
	for (k = 0; k < nmsg; k++) {
		CHECK_EQ(drv_poll(e.nb, e.cb, &cqe), 1);
		CHECK_RESP_CQE(&cqe, &e.b, CXIB_CQE_OPCODE_RESP_SEND, 8192, k);
		CHECK(mr_has_pattern(e.nb, &dst, 8192 * k, 8192, 93 + k));
	}
	CHECK_EQ(drv_poll(e.na, e.ca, &cqe), 0);

	/* the timer fires; the go-back sends two packets, then the port is busy */
	e.w.cable->busy_at = 2;
	fake_advance_ns(&e.na->t->fk, 1000000000ull);
	cxfw_process(da);
	cxfw_get_stats(da, &sa);
	CHECK_EQ(sa.local_ack_timeouts, 1);
	CHECK_EQ(sa.retransmits, 2);
	/* now the first pass's last ACK: it acknowledges every message */
	cxfw_port_receive(da, 1, la.pkt, la.len);
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

/* The knobs really did something, and the engines noticed. */
TEST(xport_rc_lossy_5pct_drop_completes_exactly_once)
{
	struct cxfw_stats sa, sb;

	lossy_case(t, knobs_drop, &sa, &sb);
	if (t->failed)
		return;
	CHECK(t->fk.cable->dropped[0] > 0 && t->fk.cable->dropped[1] > 0);
	CHECK(sa.retransmits > 0);
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
	c->round_ns = 2000000;		/* 80 ms one way: past the 50 ms ACK timeout floor */
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
