// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The requester (req.c) on one device: WQE validation errors, error CQE then flush, local
 * operations (fast registration by UMR, LOCAL_INV), loopback RC traffic (DLID = own LID),
 * unsignaled completions, the READ/ATOMIC limit, local ACK timeout and RNR retry limits,
 * BlueFlame accounting (the PRM's send WQE format; IBTA Vol 1 ch. 9, the requester).
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"
#include "req.h"

#define SQ_FILL		0xee
#define SQ_NS_PER_MS	1000000ull

struct sq_env {
	struct drv_world w;
	struct drv_node *n;
	struct drv_qp a, b;		/* a sends, b receives; both on node 0 */
	struct drv_cq *cq;
};

static struct drv_sge sq_sge(const struct drv_mr *mr, uint64_t off, uint32_t len)
{
	struct drv_sge s = { .addr = mr->va + off, .len = len, .lkey = mr->key };

	return s;
}

static struct drv_wr sq_wr(unsigned int opcode, bool signaled)
{
	struct drv_wr w;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.signaled = signaled;
	return w;
}

/* qpc.fre as if CREATE_QP had said @on (drv.c sets it, like mlx5_ib for kernel QPs). */
static void sq_set_fre(struct test_ctx *t, const struct drv_qp *qp, bool on)
{
	struct cxfw_qp *q = cxfw_qp_find(t->dev, qp->qpn);

	if (q)
		CXIB_SET(q->qpc, CXIB_QPC_FRE, on);
}

static unsigned int sq_env_init(struct test_ctx *t, struct sq_env *e,
				const struct drv_qp_conn *conn)
{
	unsigned int s = drv_world_init(t, &e->w, 1);

	if (s)
		return s;
	e->n = &e->w.n[0];
	e->cq = e->w.cq[0];
	return drv_rc_pair(&e->w, CXIB_QPC_ST_RC, conn, &e->a, &e->b);
}

/*
 * Post a raw WQE of @nbb WQEBBs (ctrl fields left as the caller wrote them) the way
 * drv_post_send() does: ring copy with wrap, doorbell record, 8-byte doorbell.  With @bf
 * the whole first 64 bytes go to the BlueFlame register (8 qword writes).
 */
static uint16_t sq_post_raw(struct drv_node *n, struct drv_qp *qp, const uint8_t *w,
			    unsigned int nbb, bool bf)
{
	uint64_t reg = ((uint64_t)n->uar << CXIB_ADAPTER_PAGE_SHIFT) + CXIB_UAR_BF_OFFSET +
		       qp->bf_off;
	uint16_t idx = qp->sq_pi;
	unsigned int i;
	uint64_t v;
	uint8_t b[4];

	for (i = 0; i < nbb; i++) {
		uint32_t slot = (uint32_t)(idx + i) & ((1u << qp->log_sq) - 1);

		drv_mem_write(n, qp->sq + (uint64_t)slot * CXIB_SEND_WQE_BB,
			      w + i * CXIB_SEND_WQE_BB, CXIB_SEND_WQE_BB);
	}
	qp->sq_pi = (uint16_t)(qp->sq_pi + nbb);
	put_be32(b, qp->sq_pi);
	drv_mem_write(n, qp->dbr + 4, b, 4);
	for (i = 0; i < (bf ? CXIB_SEND_WQE_BB / 8 : 1); i++) {
		memcpy(&v, w + 8 * i, 8);	/* host little-endian: lowest address first */
		cxfw_mmio_write(n->t->dev, reg + 8 * i, v, 8);
	}
	qp->bf_off ^= DRV_BF_HALF;
	return idx;
}

/* A control segment for WQE @idx of @qp. */
static void sq_ctrl(uint8_t *w, const struct drv_qp *qp, uint16_t idx, unsigned int opcode,
		    unsigned int ds, bool signaled)
{
	CXIB_SET(w, CXIB_WQE_CTRL_WQE_INDEX, idx);
	CXIB_SET(w, CXIB_WQE_CTRL_OPCODE, opcode);
	CXIB_SET(w, CXIB_WQE_CTRL_QPN, qp->qpn);
	CXIB_SET(w, CXIB_WQE_CTRL_DS, ds);
	CXIB_SET(w, CXIB_WQE_CTRL_CE, signaled ? CXIB_WQE_CTRL_CE_CQE_ALWAYS :
						 CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
}

static void sq_check_err(struct test_ctx *t, const struct cxib_cqe64 *c, uint32_t qpn,
			 unsigned int synd, uint16_t idx, unsigned int opcode)
{
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ_ERR);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_SYNDROME), synd);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_QPN), qpn);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_WQE_COUNTER), idx);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_S_WQE_OPCODE), opcode);
}

static void sq_check_req(struct test_ctx *t, const struct cxib_cqe64 *c, uint32_t qpn,
			 uint16_t idx, unsigned int opcode)
{
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_SOP), opcode);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_QPN), qpn);
	CHECK_EQ(CXIB_GET(c, CXIB_CQE_WQE_COUNTER), idx);
}

/* ---- WQE validation ------------------------------------------------------------------ */

/* A malformed WQE completes with LOCAL_QP_OP_ERR, the QP goes to ERR, the next is flushed. */
static void sq_bad_wqe_case(struct test_ctx *t, unsigned int what)
{
	uint8_t w[CXIB_SEND_WQE_BB];
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct drv_wr wr;
	struct sq_env e;
	uint16_t idx;
	int si;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	memset(w, 0, sizeof(w));
	sq_ctrl(w, &e.a, e.a.sq_pi, CXIB_WQE_OPCODE_NOP, 1, true);
	switch (what) {
	case 0:		/* unsupported opcode */
		CXIB_SET(w, CXIB_WQE_CTRL_OPCODE, CXIB_WQE_OPCODE_CONFIG_SIZE);
		break;
	case 1:		/* ds 0 */
		CXIB_SET(w, CXIB_WQE_CTRL_DS, 0);
		break;
	case 2:		/* another QP's number */
		CXIB_SET(w, CXIB_WQE_CTRL_QPN, e.b.qpn);
		break;
	case 3:		/* wqe_index not the producer counter */
		CXIB_SET(w, CXIB_WQE_CTRL_WQE_INDEX, e.a.sq_pi + 5);
		break;
	default:	/* RDMA READ without its remote address segment */
		CXIB_SET(w, CXIB_WQE_CTRL_OPCODE, CXIB_WQE_OPCODE_RDMA_READ);
		break;
	}
	idx = sq_post_raw(e.n, &e.a, w, 1, false);
	wr = sq_wr(CXIB_WQE_OPCODE_NOP, true);
	si = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_QP_OP_ERR, idx,
		     CXIB_GET(w, CXIB_WQE_CTRL_OPCODE));
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_WR_FLUSH_ERR, (uint16_t)si,
		     CXIB_WQE_OPCODE_NOP);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
	CHECK_EQ(drv_qp_state(e.n, &e.a), CXIB_QPC_STATE_ERR);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.local_errors, 1);
}

TEST(sq_unsupported_opcode_is_local_qp_op_err)
{
	sq_bad_wqe_case(t, 0);
}

TEST(sq_zero_ds_is_local_qp_op_err)
{
	sq_bad_wqe_case(t, 1);
}

TEST(sq_foreign_qpn_in_ctrl_is_local_qp_op_err)
{
	sq_bad_wqe_case(t, 2);
}

TEST(sq_wrong_wqe_index_is_local_qp_op_err)
{
	sq_bad_wqe_case(t, 3);
}

TEST(sq_read_without_raddr_segment_is_local_qp_op_err)
{
	sq_bad_wqe_case(t, 4);
}

TEST(sq_bad_lkey_is_local_prot_err_then_flush)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src;
	struct drv_wr wr;
	struct sq_env e;
	int s1, s2;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &src), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, false);	/* unsignaled: errors still complete */
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 64);
	wr.sg[0].lkey ^= 0x1;				/* wrong variant byte */
	s1 = drv_post_send(e.n, &e.a, &wr);
	wr.sg[0] = sq_sge(&src, 0, 64);
	s2 = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_SEND);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_WR_FLUSH_ERR, (uint16_t)s2,
		     CXIB_WQE_OPCODE_SEND);
	CHECK_EQ(drv_qp_state(e.n, &e.a), CXIB_QPC_STATE_ERR);
}

TEST(sq_gather_beyond_the_key_is_local_prot_err)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src;
	struct drv_wr wr;
	struct sq_env e;
	int s1;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &src), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	wr.raddr = src.va;
	wr.rkey = src.key;
	wr.sg[wr.nsg++] = sq_sge(&src, 4000, 200);	/* 104 bytes past the end */
	s1 = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_RDMA_WRITE);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
}

TEST(sq_read_into_key_without_local_write_is_local_prot_err)
{
	struct cxib_cqe64 cqe;
	struct drv_mr ro, rem;
	struct drv_wr wr;
	struct sq_env e;
	int s1;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &ro), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR | DRV_RR, &rem), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = rem.va;
	wr.rkey = rem.key;
	wr.sg[wr.nsg++] = sq_sge(&ro, 0, 128);
	s1 = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_RDMA_READ);
}

TEST(sq_ud_message_over_the_mtu_is_local_length_err_then_sqe)
{
	struct drv_qp_init ia;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_world w;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct drv_qp u;
	struct drv_node *n;
	unsigned int i, nreq = 0;
	int s1;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	n = &w.n[0];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_UD, w.cq[0]);
	drv_qp_conn_defaults(&c);
	CHECK_EQ(drv_qp_create(n, &ia, &u), 0);
	CHECK_EQ(drv_qp_connect(n, &u, &ia, &c), 0);
	CHECK_EQ(drv_mr_alloc(n, 8192, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(n, 4096, DRV_LR | DRV_LW, &dst), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);
	wr.ah.dlid = n->lid;
	wr.ah.dqpn = u.qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 4097);
	s1 = drv_post_send(n, &u, &wr);
	drv_pump(&w);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 1);
	sq_check_err(t, &cqe, u.qpn, CXIB_CQE_SYND_LOCAL_LENGTH_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_SEND);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 0);
	/* UD: the send queue stops (SQE), the receive queue still works */
	CHECK_EQ(drv_qp_state(n, &u), CXIB_QPC_STATE_SQER);
	r = sq_sge(&dst, 0, 512);
	CHECK_EQ(drv_post_recv(n, &u, &r, 1), 0);
	wr.sg[0].len = 100;
	s1 = drv_post_send(n, &u, &wr);		/* posted in SQE: flushed */
	drv_pump(&w);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 1);
	sq_check_err(t, &cqe, u.qpn, CXIB_CQE_SYND_WR_FLUSH_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_SEND);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 0);
	/* SQERR2RTS: sending resumes, the datagram reaches the receive posted meanwhile */
	CHECK_EQ(drv_qp_modify(n, &u, CXIB_CMD_OP_SQERR2RTS_QP), 0);
	CHECK_EQ(drv_qp_state(n, &u), CXIB_QPC_STATE_RTS);
	s1 = drv_post_send(n, &u, &wr);
	drv_pump(&w);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 1);
		if (CXIB_GET(&cqe, CXIB_CQE_OPCODE) == CXIB_CQE_OPCODE_REQ) {
			sq_check_req(t, &cqe, u.qpn, (uint16_t)s1, CXIB_WQE_OPCODE_SEND);
			nreq++;
		} else {
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), DRV_GRH_LEN + 100);
		}
	}
	CHECK_EQ(nreq, 1);
}

/* ---- loopback data ------------------------------------------------------------------- */

TEST(sq_loopback_rc_send_write_read)
{
	uint8_t want[6000], got[6000];
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst, rd;
	struct drv_sge r;
	struct drv_wr wr;
	struct sq_env e;
	struct cxfw_stats st;
	unsigned int i, nreq = 0, nresp = 0;
	int s1, s2, s3;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 8192, DRV_LR | DRV_RR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 8192, DRV_LR | DRV_LW | DRV_RW, &dst), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 8192, DRV_LR | DRV_LW, &rd), 0);
	drv_pattern(want, sizeof(want), 7);
	drv_mem_write(e.n, src.pa, want, sizeof(want));
	drv_mem_fill(e.n, dst.pa, SQ_FILL, 8192);
	drv_mem_fill(e.n, rd.pa, SQ_FILL, 8192);

	r = sq_sge(&dst, 0, 3000);
	CHECK_EQ(drv_post_recv(e.n, &e.b, &r, 1), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);		/* 3 packets at MTU 1024 */
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 3000);
	s1 = drv_post_send(e.n, &e.a, &wr);
	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_WRITE, true);	/* 5 packets */
	wr.raddr = dst.va + 3000;
	wr.rkey = dst.key;
	wr.sg[wr.nsg++] = sq_sge(&src, 1000, 5000);
	s2 = drv_post_send(e.n, &e.a, &wr);
	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_READ, true);	/* 6 responses */
	wr.raddr = src.va;
	wr.rkey = src.key;
	wr.sg[wr.nsg++] = sq_sge(&rd, 100, 2000);
	wr.sg[wr.nsg++] = sq_sge(&rd, 4000, 4000);
	s3 = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);

	for (i = 0; i < 4; i++) {
		CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
		if (CXIB_GET(&cqe, CXIB_CQE_QPN) == e.b.qpn) {
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 3000);
			nresp++;
			continue;
		}
		sq_check_req(t, &cqe, e.a.qpn, (uint16_t)(nreq == 0 ? s1 : nreq == 1 ? s2 : s3),
			     nreq == 0 ? CXIB_WQE_OPCODE_SEND : nreq == 1 ?
			     CXIB_WQE_OPCODE_RDMA_WRITE : CXIB_WQE_OPCODE_RDMA_READ);
		if (nreq == 2)
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 6000);
		nreq++;
	}
	CHECK_EQ(nreq, 3);
	CHECK_EQ(nresp, 1);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
	drv_mem_read(e.n, dst.pa, got, 3000);
	CHECK(!memcmp(got, want, 3000));
	drv_mem_read(e.n, dst.pa + 3000, got, 5000);
	CHECK(!memcmp(got, want + 1000, 5000));
	drv_mem_read(e.n, rd.pa + 100, got, 2000);
	drv_mem_read(e.n, rd.pa + 4000, got + 2000, 4000);
	CHECK(!memcmp(got, want, 6000));
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.send_wqes, 3);
	CHECK_EQ(st.retransmits, 0);
	CHECK(st.acks_received >= 2);
	CHECK_EQ(drv_qp_state(e.n, &e.a), CXIB_QPC_STATE_RTS);
}

TEST(sq_unsignaled_wqes_complete_silently_in_order)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src, dst;
	struct drv_wr wr;
	struct sq_env e;
	unsigned int i, nreq = 0;
	int last = -1;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR | DRV_LW | DRV_RW, &dst), 0);
	for (i = 0; i < 5; i++) {
		wr = sq_wr(CXIB_WQE_OPCODE_RDMA_WRITE, i == 4);
		wr.raddr = dst.va + 100 * i;
		wr.rkey = dst.key;
		wr.sg[wr.nsg++] = sq_sge(&src, 0, 100);
		last = drv_post_send(e.n, &e.a, &wr);
	}
	drv_pump(&e.w);
	while (drv_poll(e.n, e.cq, &cqe) == 1) {
		sq_check_req(t, &cqe, e.a.qpn, (uint16_t)last, CXIB_WQE_OPCODE_RDMA_WRITE);
		nreq++;
	}
	CHECK_EQ(nreq, 1);
}

TEST(sq_read_limit_of_one_still_completes_every_read)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr src, rd;
	uint8_t want[3000], got[3000];
	struct drv_wr wr;
	struct sq_env e;
	unsigned int i;
	int idx[4];

	drv_qp_conn_defaults(&c);
	c.sra = 0;				/* one READ/ATOMIC outstanding */
	CHECK_EQ(sq_env_init(t, &e, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR | DRV_RR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 16384, DRV_LR | DRV_LW, &rd), 0);
	drv_pattern(want, sizeof(want), 3);
	drv_mem_write(e.n, src.pa, want, sizeof(want));
	for (i = 0; i < 4; i++) {
		wr = sq_wr(CXIB_WQE_OPCODE_RDMA_READ, true);
		wr.raddr = src.va;
		wr.rkey = src.key;
		wr.fence = i == 3;
		wr.sg[wr.nsg++] = sq_sge(&rd, 4096 * i, 3000);
		idx[i] = drv_post_send(e.n, &e.a, &wr);
	}
	drv_pump(&e.w);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
		sq_check_req(t, &cqe, e.a.qpn, (uint16_t)idx[i], CXIB_WQE_OPCODE_RDMA_READ);
		drv_mem_read(e.n, rd.pa + 4096 * i, got, sizeof(got));
		CHECK(!memcmp(got, want, sizeof(got)));
	}
}

/* ---- local operations ----------------------------------------------------------------- */

/* CREATE_MKEY of a free, umr_en MTT key with room for @octwords * 2 pages. */
static unsigned int sq_free_mkey(struct drv_node *n, uint32_t octwords, uint8_t variant,
				 uint32_t *key)
{
	uint8_t in[CXIB_CREATE_MKEY_IN_LEN(0)] = { 0 };
	__be32 *mkc = (__be32 *)(in + CXIB_CREATE_MKEY_IN_MKC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_MKEY, 0);
	CXIB_SET(mkc, CXIB_MKC_FREE, 1);
	CXIB_SET(mkc, CXIB_MKC_UMR_EN, 1);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_1_0, CXIB_MKC_ACCESS_MODE_MTT);
	CXIB_SET(mkc, CXIB_MKC_LR, 1);
	CXIB_SET(mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(mkc, CXIB_MKC_PD, n->pd);
	CXIB_SET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE, octwords);
	CXIB_SET(mkc, CXIB_MKC_LOG_PAGE_SIZE, 12);
	st = drv_run(n->t, in, sizeof(in), out, sizeof(out));
	if (!st)
		*key = CXIB_GET(out, CXIB_CREATE_MKEY_OUT_MKEY_INDEX) << 8 | variant;
	return st;
}

#define SQ_FRWR_MASK	(CXIB_UMR_MKEY_MASK_LEN | CXIB_UMR_MKEY_MASK_PAGE_SIZE |	\
			 CXIB_UMR_MKEY_MASK_START_ADDR | CXIB_UMR_MKEY_MASK_EN_RINVAL |	\
			 CXIB_UMR_MKEY_MASK_KEY | CXIB_UMR_MKEY_MASK_LR |		\
			 CXIB_UMR_MKEY_MASK_LW | CXIB_UMR_MKEY_MASK_RR |		\
			 CXIB_UMR_MKEY_MASK_RW | CXIB_UMR_MKEY_MASK_SMALL_FENCE |	\
			 CXIB_UMR_MKEY_MASK_FREE)

/*
 * IB_WR_REG_MR as mlx5_ib posts it: UMR ctrl + mkey segment + the page list inline;
 * @key carries the new variant.  Returns the WQE index.
 */
static uint16_t sq_post_reg_mr(struct drv_node *n, struct drv_qp *qp, uint32_t key,
			       uint64_t va, uint64_t len, const uint64_t *pages,
			       unsigned int npages, bool signaled)
{
	uint8_t w[4 * CXIB_SEND_WQE_BB];
	uint8_t *uc = w + sizeof(struct cxib_wqe_ctrl_seg);
	uint8_t *mk = uc + sizeof(struct cxib_wqe_umr_ctrl_seg);
	uint8_t *xlt = mk + sizeof(struct cxib_wqe_mkey_seg);
	unsigned int octw = (npages + 1) / 2, i, ds;

	memset(w, 0, sizeof(w));
	ds = (unsigned int)((xlt - w) + octw * 16) / CXIB_WQE_DS_SIZE;
	sq_ctrl(w, qp, qp->sq_pi, CXIB_WQE_OPCODE_UMR, ds, signaled);
	CXIB_SET(w, CXIB_WQE_CTRL_IMM, key);
	CXIB_SET(w, CXIB_WQE_CTRL_FM, CXIB_WQE_FM_STRONG_ORDERING);
	CXIB_SET(uc, CXIB_WQE_UMR_FLAGS, CXIB_UMR_INLINE);
	CXIB_SET(uc, CXIB_WQE_UMR_XLT_OCTOWORDS, octw);
	CXIB_SET64(uc, CXIB_WQE_UMR_MKEY_MASK, SQ_FRWR_MASK);
	CXIB_SET(mk, CXIB_WQE_MKEY_LR, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_LW, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_RR, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_RW, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_ACCESS_MODE, CXIB_MKC_ACCESS_MODE_MTT);
	CXIB_SET(mk, CXIB_WQE_MKEY_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mk, CXIB_WQE_MKEY_MKEY_7_0, CXIB_MKEY_VARIANT(key));
	CXIB_SET(mk, CXIB_WQE_MKEY_EN_RINVAL, 1);
	CXIB_SET64(mk, CXIB_WQE_MKEY_START_ADDR, va);
	CXIB_SET64(mk, CXIB_WQE_MKEY_LEN, len);
	CXIB_SET(mk, CXIB_WQE_MKEY_XLT_OCT_SIZE, octw);
	CXIB_SET(mk, CXIB_WQE_MKEY_LOG2_PAGE_SIZE, 12);
	for (i = 0; i < npages; i++)
		CXIB_SET64(xlt + CXIB_MTT_ENTRY_SIZE * i, CXIB_MTT_ENTRY_PTAG, pages[i]);
	return sq_post_raw(n, qp, w, (ds * CXIB_WQE_DS_SIZE + CXIB_SEND_WQE_BB - 1) /
				     CXIB_SEND_WQE_BB, false);
}

/*
 * A UMR whose translation entries are in memory behind a data segment (through @list's key,
 * at @list_off): @npages entries loaded at octoword @octo_off of the table, with @flags and
 * @mask; the mkey segment grants LR/LW/RR and names @va/@len.  Returns the WQE index.
 */
static uint16_t sq_post_umr_ptr(struct drv_node *n, struct drv_qp *qp, uint32_t key,
				uint8_t flags, uint64_t octo_off, uint64_t mask, uint64_t va,
				uint64_t len, const uint64_t *pages, unsigned int npages,
				const struct drv_mr *list, uint64_t list_off)
{
	uint8_t w[3 * CXIB_SEND_WQE_BB];
	uint8_t *uc = w + sizeof(struct cxib_wqe_ctrl_seg);
	uint8_t *mk = uc + sizeof(struct cxib_wqe_umr_ctrl_seg);
	uint8_t *d = mk + sizeof(struct cxib_wqe_mkey_seg), be[8];
	unsigned int octw = (npages + 1) / 2, i;
	unsigned int ds = (unsigned int)(d + CXIB_WQE_DS_SIZE - w) / CXIB_WQE_DS_SIZE;

	memset(w, 0, sizeof(w));
	for (i = 0; i < npages; i++) {
		CXIB_SET64(be, CXIB_MTT_ENTRY_PTAG, pages[i]);
		drv_mem_write(n, drv_mr_pa_of(list, list->va + list_off) + 8 * i, be, 8);
	}
	sq_ctrl(w, qp, qp->sq_pi, CXIB_WQE_OPCODE_UMR, ds, true);
	CXIB_SET(w, CXIB_WQE_CTRL_IMM, key);
	CXIB_SET(uc, CXIB_WQE_UMR_FLAGS, flags);
	CXIB_SET(uc, CXIB_WQE_UMR_XLT_OCTOWORDS, octw);
	CXIB_SET(uc, CXIB_WQE_UMR_XLT_OFFSET, octo_off & 0xffff);
	CXIB_SET(uc, CXIB_WQE_UMR_XLT_OFFSET_47_16, octo_off >> 16);
	CXIB_SET64(uc, CXIB_WQE_UMR_MKEY_MASK, mask);
	CXIB_SET(mk, CXIB_WQE_MKEY_LR, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_LW, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_RR, 1);
	CXIB_SET(mk, CXIB_WQE_MKEY_ACCESS_MODE, CXIB_MKC_ACCESS_MODE_MTT);
	CXIB_SET(mk, CXIB_WQE_MKEY_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mk, CXIB_WQE_MKEY_MKEY_7_0, CXIB_MKEY_VARIANT(key));
	CXIB_SET64(mk, CXIB_WQE_MKEY_START_ADDR, va);
	CXIB_SET64(mk, CXIB_WQE_MKEY_LEN, len);
	CXIB_SET(mk, CXIB_WQE_MKEY_LOG2_PAGE_SIZE, 12);
	CXIB_SET(d, CXIB_WQE_DATA_BYTE_COUNT, octw * 16);
	CXIB_SET(d, CXIB_WQE_DATA_LKEY, list->key);
	CXIB_SET64(d, CXIB_WQE_DATA_ADDR, list->va + list_off);
	return sq_post_raw(n, qp, w, (ds * CXIB_WQE_DS_SIZE + CXIB_SEND_WQE_BB - 1) /
				     CXIB_SEND_WQE_BB, false);
}

/*
 * IB_WR_REG_MR as cxib posts it: the page list in memory behind a data segment (through
 * @list's key), CHECK_NOT_FREE set (the key must be free).  Returns the WQE index.
 */
static uint16_t sq_post_reg_mr_ptr(struct drv_node *n, struct drv_qp *qp, uint32_t key,
				   uint64_t va, uint64_t len, const uint64_t *pages,
				   unsigned int npages, const struct drv_mr *list)
{
	return sq_post_umr_ptr(n, qp, key, CXIB_UMR_CHECK_NOT_FREE, 0, SQ_FRWR_MASK, va, len,
			       pages, npages, list, 0);
}

/* IB_WR_LOCAL_INV as mlx5_ib posts it: UMR with only the free bit, set. */
static uint16_t sq_post_local_inv(struct drv_node *n, struct drv_qp *qp, uint32_t key)
{
	uint8_t w[2 * CXIB_SEND_WQE_BB];
	uint8_t *uc = w + sizeof(struct cxib_wqe_ctrl_seg);
	uint8_t *mk = uc + sizeof(struct cxib_wqe_umr_ctrl_seg);
	unsigned int ds = (unsigned int)(mk + sizeof(struct cxib_wqe_mkey_seg) - w) /
			  CXIB_WQE_DS_SIZE;

	memset(w, 0, sizeof(w));
	sq_ctrl(w, qp, qp->sq_pi, CXIB_WQE_OPCODE_UMR, ds, true);
	CXIB_SET(w, CXIB_WQE_CTRL_IMM, key);
	CXIB_SET(w, CXIB_WQE_CTRL_FM, CXIB_WQE_FM_STRONG_ORDERING);
	CXIB_SET(uc, CXIB_WQE_UMR_FLAGS, CXIB_UMR_INLINE);
	CXIB_SET64(uc, CXIB_WQE_UMR_MKEY_MASK, CXIB_UMR_MKEY_MASK_FREE);
	CXIB_SET(mk, CXIB_WQE_MKEY_FREE, 1);
	return sq_post_raw(n, qp, w, 2, false);
}

TEST(sq_fast_register_then_write_then_local_inv)
{
	uint8_t want[5000], got[5000];
	struct cxib_cqe64 cqe;
	struct drv_mr src;
	struct drv_wr wr;
	struct sq_env e;
	uint64_t pages[2], base, va = 0x5550000000ull + 0x300;
	uint32_t key, newkey;
	uint16_t ri;
	int wi;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 8192, DRV_LR, &src), 0);
	drv_pattern(want, sizeof(want), 21);
	drv_mem_write(e.n, src.pa, want, sizeof(want));
	base = drv_alloc_data(e.n, 3 * DRV_PAGE);
	drv_mem_fill(e.n, base, SQ_FILL, 3 * DRV_PAGE);
	pages[0] = base + 2 * DRV_PAGE;		/* out of order: translation is exercised */
	pages[1] = base;
	CHECK_EQ(sq_free_mkey(e.n, 4, 0x10, &key), 0);

	/* registration (new variant), then a WRITE through it, behind the UMR's fence */
	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_WRITE, true);
	newkey = (key & ~0xffu) | 0x11;
	ri = sq_post_reg_mr(e.n, &e.a, newkey, va, 5000, pages, 2, true);
	wr.raddr = va;
	wr.rkey = newkey;
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 5000);
	wi = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, ri, CXIB_WQE_OPCODE_UMR);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, (uint16_t)wi, CXIB_WQE_OPCODE_RDMA_WRITE);
	drv_mem_read(e.n, base + 2 * DRV_PAGE + 0x300, got, DRV_PAGE - 0x300);
	drv_mem_read(e.n, base, got + DRV_PAGE - 0x300, 5000 - (DRV_PAGE - 0x300));
	CHECK(!memcmp(got, want, sizeof(got)));
	drv_mem_read(e.n, base + DRV_PAGE, got, 16);
	CHECK_EQ(got[0], SQ_FILL);		/* the page not in the list is untouched */

	/* the old variant no longer matches */
	wr.rkey = key;
	wi = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_REMOTE_ACCESS_ERR, (uint16_t)wi,
		     CXIB_WQE_OPCODE_RDMA_WRITE);
}

TEST(sq_local_inv_then_the_key_fails)
{
	struct cxib_cqe64 cqe;
	struct drv_mr src;
	struct drv_wr wr;
	struct sq_env e;
	uint64_t page, va = 0x6660000000ull;
	uint32_t key;
	uint16_t ri, li;
	int wi;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &src), 0);
	page = drv_alloc_data(e.n, DRV_PAGE);
	CHECK_EQ(sq_free_mkey(e.n, 1, 0x20, &key), 0);
	ri = sq_post_reg_mr(e.n, &e.a, key, va, DRV_PAGE, &page, 1, false);
	li = sq_post_local_inv(e.n, &e.a, key);
	drv_pump(&e.w);
	/* the unsignaled registration completes silently, the invalidation reports */
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, li, CXIB_WQE_OPCODE_UMR);
	CHECK_NE(ri, li);
	/* a local use of the invalidated key: local protection error */
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 16);
	wr.sg[0].lkey = key;
	wr.sg[0].addr = va;
	wi = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, (uint16_t)wi,
		     CXIB_WQE_OPCODE_SEND);
}

TEST(sq_local_inv_of_an_unknown_key_is_local_prot_err)
{
	struct cxib_cqe64 cqe;
	struct sq_env e;
	uint16_t li;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	li = sq_post_local_inv(e.n, &e.a, 0x7fff00);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, li, CXIB_WQE_OPCODE_UMR);
	CHECK_EQ(drv_qp_state(e.n, &e.a), CXIB_QPC_STATE_ERR);
}

TEST(sq_umr_without_fre_is_local_qp_op_err)
{
	struct cxib_cqe64 cqe;
	struct sq_env e;
	uint64_t page;
	uint32_t key;
	uint16_t ri;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	page = drv_alloc_data(e.n, DRV_PAGE);
	CHECK_EQ(sq_free_mkey(e.n, 1, 0x30, &key), 0);
	sq_set_fre(t, &e.b, false);		/* a user QP: no fast registration */
	ri = sq_post_reg_mr(e.n, &e.b, key, 0x1000, DRV_PAGE, &page, 1, true);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.b.qpn, CXIB_CQE_SYND_LOCAL_QP_OP_ERR, ri, CXIB_WQE_OPCODE_UMR);
}

TEST(sq_nop_completes_and_blueflame_write_is_counted)
{
	uint8_t w[CXIB_SEND_WQE_BB];
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct sq_env e;
	uint16_t idx;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	memset(w, 0, sizeof(w));
	sq_ctrl(w, &e.a, e.a.sq_pi, CXIB_WQE_OPCODE_NOP, 1, true);
	idx = sq_post_raw(e.n, &e.a, w, 1, true);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, idx, CXIB_WQE_OPCODE_NOP);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.bf_writes, 1);
	CHECK_EQ(st.send_wqes, 1);
}

/* ---- retry limits ------------------------------------------------------------------- */

/*
 * A ring full of NOPs, all posted before the worker runs (a busy host), the last one
 * signaled: mlx5_ib's write-combining test on 6.1 does this and gives the completion
 * 100 ms.  Local WQEs send no packet, yet each window of them must lead straight to the
 * next (a kick), not wait for the worker's next tick: the pump stops when nothing kicks.
 */
TEST(sq_ring_of_nops_completes_without_waiting_for_ticks)
{
	unsigned int i, n = (1u << 8) - 1;
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct drv_wr wr;
	struct sq_env e;
	int last = -1;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	for (i = 0; i < n; i++) {
		wr = sq_wr(CXIB_WQE_OPCODE_NOP, i == n - 1);
		last = drv_post_send(e.n, &e.a, &wr);
		CHECK(last >= 0);
	}
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, (uint16_t)last, CXIB_WQE_OPCODE_NOP);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.send_wqes, n);
}

TEST(sq_local_ack_timeout_retries_then_transport_retry_exceeded)
{
	struct drv_qp_init ia;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct drv_world w;
	struct drv_mr src;
	struct drv_wr wr;
	struct drv_qp q;
	struct drv_node *n;
	int s1, s2;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	n = &w.n[0];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, w.cq[0]);
	drv_qp_conn_defaults(&c);
	c.dlid = 0x99;				/* nobody: every packet is lost */
	c.dqpn = 0x1234;
	c.retry = 2;
	c.timeout = 14;				/* 67 ms: the model's floor applies */
	CHECK_EQ(drv_qp_create(n, &ia, &q), 0);
	CHECK_EQ(drv_qp_connect(n, &q, &ia, &c), 0);
	CHECK_EQ(drv_mr_alloc(n, 4096, DRV_LR, &src), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 100);
	s1 = drv_post_send(n, &q, &wr);
	s2 = drv_post_send(n, &q, &wr);
	drv_pump(&w);
	/* before the timeout nothing happens */
	drv_pump_time(&w, 10 * SQ_NS_PER_MS, CXFW_REQ_MIN_ACK_TIMEOUT_NS - 10 * SQ_NS_PER_MS);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.local_ack_timeouts, 0);
	/* three expiries: two retries (both packets again each time), then the error */
	drv_pump_time(&w, 10 * SQ_NS_PER_MS, 3 * CXFW_REQ_MIN_ACK_TIMEOUT_NS);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 1);
	sq_check_err(t, &cqe, q.qpn, CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_SEND);
	CHECK_EQ(drv_poll(n, w.cq[0], &cqe), 1);
	sq_check_err(t, &cqe, q.qpn, CXIB_CQE_SYND_WR_FLUSH_ERR, (uint16_t)s2,
		     CXIB_WQE_OPCODE_SEND);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.local_ack_timeouts, 3);
	CHECK_EQ(st.retransmits, 4);
	CHECK_EQ(st.retry_exceeded, 1);
	CHECK_EQ(drv_qp_state(n, &q), CXIB_QPC_STATE_ERR);
}

TEST(sq_rnr_naks_retry_then_rnr_retry_exceeded)
{
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct drv_mr src;
	struct drv_wr wr;
	struct sq_env e;
	int s1;

	drv_qp_conn_defaults(&c);
	c.rnr_retry = 1;
	c.min_rnr = 1;				/* 10 us */
	CHECK_EQ(sq_env_init(t, &e, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &src), 0);
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);	/* b has no receive posted */
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 100);
	s1 = drv_post_send(e.n, &e.a, &wr);
	drv_pump_time(&e.w, SQ_NS_PER_MS, 10 * SQ_NS_PER_MS);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_RNR_RETRY_EXC_ERR, (uint16_t)s1,
		     CXIB_WQE_OPCODE_SEND);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.rnr_naks_received, 2);
	CHECK_EQ(st.rnr_retry_exceeded, 1);
	CHECK_EQ(st.retransmits, 1);
	CHECK_EQ(drv_qp_state(e.n, &e.a), CXIB_QPC_STATE_ERR);
}

TEST(sq_rnr_wait_then_the_receive_arrives)
{
	uint8_t want[200], got[200];
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct drv_mr src, dst;
	struct drv_sge r;
	struct drv_wr wr;
	struct sq_env e;
	unsigned int i, nreq = 0;
	int s1;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);	/* rnr_retry 7: forever, min_rnr 0.64 ms */
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR | DRV_LW, &dst), 0);
	drv_pattern(want, sizeof(want), 5);
	drv_mem_write(e.n, src.pa, want, sizeof(want));
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sq_sge(&src, 0, 200);
	s1 = drv_post_send(e.n, &e.a, &wr);
	drv_pump_time(&e.w, SQ_NS_PER_MS, 5 * SQ_NS_PER_MS);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
	r = sq_sge(&dst, 0, 200);
	CHECK_EQ(drv_post_recv(e.n, &e.b, &r, 1), 0);
	drv_pump_time(&e.w, SQ_NS_PER_MS, 5 * SQ_NS_PER_MS);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
		if (CXIB_GET(&cqe, CXIB_CQE_QPN) == e.a.qpn) {
			sq_check_req(t, &cqe, e.a.qpn, (uint16_t)s1, CXIB_WQE_OPCODE_SEND);
			nreq++;
		}
	}
	CHECK_EQ(nreq, 1);
	drv_mem_read(e.n, dst.pa, got, sizeof(got));
	CHECK(!memcmp(got, want, sizeof(got)));
	cxfw_get_stats(t->dev, &st);
	CHECK(st.rnr_naks_received >= 2);
	CHECK_EQ(st.rnr_retry_exceeded, 0);
}

/* ---- robustness ---------------------------------------------------------------------- */

static uint32_t sq_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static unsigned int sq_hw_sq_counter(struct drv_node *n, const struct drv_qp *qp)
{
	uint8_t out[CXIB_QUERY_QP_OUT_LEN];

	if (cmd_simple(n->t, CXIB_CMD_OP_QUERY_QP, 0, qp->qpn, 0, out, sizeof(out)))
		return 0x10000;
	return CXIB_GET(out + CXIB_QUERY_QP_OUT_QPC_OFFSET, CXIB_QPC_HW_SQ_WQEBB_COUNTER);
}

/*
 * Random WQEs (right qpn and index, random opcode, ds, segments and keys) never crash the
 * engine, every one is consumed (executed, failed or flushed), and the QP ends in RTS or
 * ERR.  The pair is reset and reconnected after each error.
 */
TEST(sq_random_wqes_are_consumed_without_harm)
{
	static const uint8_t ops[] = {
		CXIB_WQE_OPCODE_NOP, CXIB_WQE_OPCODE_SEND, CXIB_WQE_OPCODE_SEND_IMM,
		CXIB_WQE_OPCODE_SEND_INVAL, CXIB_WQE_OPCODE_RDMA_WRITE,
		CXIB_WQE_OPCODE_RDMA_WRITE_IMM, CXIB_WQE_OPCODE_RDMA_READ,
		CXIB_WQE_OPCODE_ATOMIC_CS, CXIB_WQE_OPCODE_ATOMIC_FA, CXIB_WQE_OPCODE_UMR,
		CXIB_WQE_OPCODE_LSO, CXIB_WQE_OPCODE_BIND_MW, 0x7f,
	};
	uint8_t w[4 * CXIB_SEND_WQE_BB];
	struct drv_qp_init ia;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr mr;
	struct drv_sge r;
	struct sq_env e;
	uint32_t seed = 12345, i, k;

	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, NULL);
	drv_qp_conn_defaults(&c);
	c.rnr_retry = 2;		/* finite: a SEND without a receive ends in error */
	c.retry = 2;
	CHECK_EQ(sq_env_init(t, &e, &c), 0);
	ia.scq = ia.rcq = e.cq;
	CHECK_EQ(drv_mr_alloc(e.n, 65536, DRV_ALL, &mr), 0);
	for (i = 0; i < 300; i++) {
		unsigned int nbb = 1 + sq_rand(&seed) % 4, ds;
		uint16_t idx = e.a.sq_pi;

		for (k = 0; k < sizeof(w); k++)
			w[k] = (uint8_t)sq_rand(&seed);
		ds = 1 + sq_rand(&seed) % (nbb * CXIB_SEND_WQE_BB / CXIB_WQE_DS_SIZE);
		sq_ctrl(w, &e.a, idx, ops[sq_rand(&seed) % sizeof(ops)], ds, sq_rand(&seed) & 1);
		/* half of the data segments point into the real MR */
		for (k = 1; k < ds; k++) {
			uint8_t *d = w + k * CXIB_WQE_DS_SIZE;

			if (sq_rand(&seed) & 1) {
				CXIB_SET(d, CXIB_WQE_DATA_BYTE_COUNT, sq_rand(&seed) % 9000);
				CXIB_SET(d, CXIB_WQE_DATA_LKEY, mr.key);
				CXIB_SET64(d, CXIB_WQE_DATA_ADDR, mr.va + sq_rand(&seed) % 70000);
			}
		}
		if (sq_rand(&seed) & 1) {
			r = sq_sge(&mr, sq_rand(&seed) % 60000, 4096);
			drv_post_recv(e.n, &e.b, &r, 1);
		}
		sq_post_raw(e.n, &e.a, w, nbb, sq_rand(&seed) & 1);
		drv_pump_time(&e.w, 50 * SQ_NS_PER_MS, 1000 * SQ_NS_PER_MS);
		while (drv_poll(e.n, e.cq, &cqe) == 1)
			;
		k = drv_qp_state(e.n, &e.a);
		CHECK(k == CXIB_QPC_STATE_RTS || k == CXIB_QPC_STATE_ERR);
		CHECK_EQ(sq_hw_sq_counter(e.n, &e.a), e.a.sq_pi);
		if (k == CXIB_QPC_STATE_RTS && drv_qp_state(e.n, &e.b) == CXIB_QPC_STATE_RTS)
			continue;
		/* start over: both back to RST, counters with them, and connected again */
		CHECK_EQ(drv_qp_modify(e.n, &e.a, CXIB_CMD_OP_2RST_QP), 0);
		CHECK_EQ(drv_qp_modify(e.n, &e.b, CXIB_CMD_OP_2RST_QP), 0);
		e.a.sq_pi = e.a.rq_pi = e.b.sq_pi = e.b.rq_pi = 0;
		drv_mem_fill(e.n, e.a.dbr, 0, CXIB_QP_DB_SIZE);
		drv_mem_fill(e.n, e.b.dbr, 0, CXIB_QP_DB_SIZE);
		c.dlid = e.n->lid;
		c.dqpn = e.b.qpn;
		CHECK_EQ(drv_qp_connect(e.n, &e.a, &ia, &c), 0);
		c.dqpn = e.a.qpn;
		CHECK_EQ(drv_qp_connect(e.n, &e.b, &ia, &c), 0);
		while (drv_poll(e.n, e.cq, &cqe) == 1)
			;
	}
}

TEST(sq_fast_register_through_a_page_list_in_memory_then_read)
{
	uint8_t want[6000], got[6000];
	struct cxib_cqe64 cqe;
	struct drv_mr list, dst;
	struct drv_wr wr;
	struct sq_env e;
	uint64_t pages[3], base, va = 0x7770000000ull + 0x80;
	uint32_t key;
	uint16_t ri;
	int si;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &list), 0);	/* an MTT key holds the list */
	CHECK_EQ(drv_mr_alloc(e.n, 8192, DRV_LR | DRV_LW, &dst), 0);
	base = drv_alloc_data(e.n, 3 * DRV_PAGE);
	pages[0] = base + DRV_PAGE;
	pages[1] = base + 2 * DRV_PAGE;
	pages[2] = base;
	drv_pattern(want, sizeof(want), 33);
	drv_mem_write(e.n, base + DRV_PAGE + 0x80, want, DRV_PAGE - 0x80);
	drv_mem_write(e.n, base + 2 * DRV_PAGE, want + DRV_PAGE - 0x80,
		      sizeof(want) - (DRV_PAGE - 0x80));
	CHECK_EQ(sq_free_mkey(e.n, 2, 0x40, &key), 0);
	key = (key & ~0xffu) | 0x41;
	ri = sq_post_reg_mr_ptr(e.n, &e.a, key, va, 6000, pages, 3, &list);
	/* READ the registered (remote read) region back into dst through the new key */
	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = va;
	wr.rkey = key;
	wr.sg[wr.nsg++] = sq_sge(&dst, 0, 6000);
	si = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, ri, CXIB_WQE_OPCODE_UMR);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, e.a.qpn, (uint16_t)si, CXIB_WQE_OPCODE_RDMA_READ);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 6000);
	drv_mem_read(e.n, dst.pa, got, sizeof(got));
	CHECK(!memcmp(got, want, sizeof(got)));
	/* registering again while valid is refused (CHECK_NOT_FREE): the QP errs, the READ flushes */
	ri = sq_post_reg_mr_ptr(e.n, &e.a, key + 1, va, 100, pages, 1, &list);
	si = drv_post_send(e.n, &e.a, &wr);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, ri, CXIB_WQE_OPCODE_UMR);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.a.qpn, CXIB_CQE_SYND_WR_FLUSH_ERR, (uint16_t)si,
		     CXIB_WQE_OPCODE_RDMA_READ);
	CHECK(!e.n->t->dev->mkeys[CXIB_MKEY_INDEX(key)]->free);	/* the key is as it was */
}

#define SQ_TBL_PAGES	16

/*
 * An RDMA READ of @len bytes at @va through @rkey into @dst, on @e's QP: it completes and
 * reads @want.  @got: @len bytes of scratch.
 */
static void sq_read_compare(struct test_ctx *t, struct sq_env *e, uint32_t rkey, uint64_t va,
			    const struct drv_mr *dst, const uint8_t *want, uint8_t *got,
			    uint32_t len)
{
	struct cxib_cqe64 cqe;
	struct drv_wr wr;
	int si;

	wr = sq_wr(CXIB_WQE_OPCODE_RDMA_READ, true);
	wr.raddr = va;
	wr.rkey = rkey;
	wr.sg[wr.nsg++] = sq_sge(dst, 0, len);
	si = drv_post_send(e->n, &e->a, &wr);
	drv_pump(&e->w);
	CHECK_EQ(drv_poll(e->n, e->cq, &cqe), 1);
	sq_check_req(t, &cqe, e->a.qpn, (uint16_t)si, CXIB_WQE_OPCODE_RDMA_READ);
	drv_mem_read(e->n, dst->pa, got, len);
	CHECK(!memcmp(got, want, len));
}

/*
 * The UMR QP (service type REG_UMR, any PD) loads a free key's table in two pieces, the
 * second at an octoword offset (TRANSLATION_OFFSET_EN), and the last piece enables the key;
 * a READ through it finds every page where the table says.  A load into the valid key with
 * CHECK_NOT_FREE, and a CHECK_FREE load into a free key, are refused.
 */
TEST(sq_umr_qp_loads_a_table_in_pieces_then_enables_the_key)
{
	const uint64_t enable = CXIB_UMR_MKEY_MASK_LEN | CXIB_UMR_MKEY_MASK_PAGE_SIZE |
				CXIB_UMR_MKEY_MASK_START_ADDR | CXIB_UMR_MKEY_MASK_LR |
				CXIB_UMR_MKEY_MASK_LW | CXIB_UMR_MKEY_MASK_RR |
				CXIB_UMR_MKEY_MASK_FREE;
	uint8_t want[SQ_TBL_PAGES * DRV_PAGE], got[SQ_TBL_PAGES * DRV_PAGE];
	uint64_t pages[SQ_TBL_PAGES], base, va = 0x6660000000ull;
	struct drv_qp_init ia;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct drv_mr list, dst;
	struct drv_qp umr;
	struct sq_env e;
	uint32_t key, key2;
	uint16_t u1, u2;
	unsigned int i;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_REG_UMR, e.cq);
	ia.log_rq = 0;
	CHECK_EQ(drv_qp_create(e.n, &ia, &umr), 0);
	drv_qp_conn_defaults(&c);
	c.dqpn = umr.qpn;
	CHECK_EQ(drv_qp_connect(e.n, &umr, &ia, &c), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &list), 0);
	CHECK_EQ(drv_mr_alloc(e.n, sizeof(got), DRV_LR | DRV_LW, &dst), 0);
	base = drv_alloc_data(e.n, SQ_TBL_PAGES * DRV_PAGE);
	for (i = 0; i < SQ_TBL_PAGES; i++)	/* the table names the pages backwards */
		pages[i] = base + (uint64_t)(SQ_TBL_PAGES - 1 - i) * DRV_PAGE;
	drv_pattern(want, sizeof(want), 55);
	for (i = 0; i < SQ_TBL_PAGES; i++)
		drv_mem_write(e.n, pages[i], want + i * DRV_PAGE, DRV_PAGE);
	CHECK_EQ(sq_free_mkey(e.n, SQ_TBL_PAGES / 2, 0x60, &key), 0);
	CHECK_EQ(sq_free_mkey(e.n, 2, 0x70, &key2), 0);

	u1 = sq_post_umr_ptr(e.n, &umr, key, CXIB_UMR_CHECK_NOT_FREE, 0, 0, 0, 0, pages,
			     SQ_TBL_PAGES / 2, &list, 0);
	u2 = sq_post_umr_ptr(e.n, &umr, key,
			     CXIB_UMR_CHECK_NOT_FREE | CXIB_UMR_TRANSLATION_OFFSET_EN,
			     SQ_TBL_PAGES / 4, enable, va, sizeof(want), pages + SQ_TBL_PAGES / 2,
			     SQ_TBL_PAGES / 2, &list, 2048);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, umr.qpn, u1, CXIB_WQE_OPCODE_UMR);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, umr.qpn, u2, CXIB_WQE_OPCODE_UMR);
	CHECK(!e.n->t->dev->mkeys[CXIB_MKEY_INDEX(key)]->free);

	sq_read_compare(t, &e, key, va, &dst, want, got, sizeof(got));

	/* the key is valid now: another first load (CHECK_NOT_FREE) is refused */
	u1 = sq_post_umr_ptr(e.n, &umr, key, CXIB_UMR_CHECK_NOT_FREE, 0, 0, 0, 0, pages, 2,
			     &list, 0);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, umr.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, u1, CXIB_WQE_OPCODE_UMR);

	/* an update (CHECK_FREE) of a key that is free is refused too (here on b, same PD) */
	u1 = sq_post_umr_ptr(e.n, &e.b, key2, CXIB_UMR_CHECK_FREE, 0, 0, 0, 0, pages, 2,
			     &list, 0);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_err(t, &cqe, e.b.qpn, CXIB_CQE_SYND_LOCAL_PROT_ERR, u1, CXIB_WQE_OPCODE_UMR);
	CHECK_EQ(e.n->t->dev->mkeys[CXIB_MKEY_INDEX(key2)]->nmtt, 0);
}

/*
 * mlx5_ib creates its UMR QP without a PD (create_kernel_qp() leaves qpc.pd 0 for REG_UMR)
 * and moves it to RTS with an empty path past INIT: such a QP is accepted, and its data
 * segments may name keys of any PD; any other QP needs a PD.
 */
TEST(sq_umr_qp_without_pd_loads_mlx5_style_entries_through_a_key_of_another_pd)
{
	uint64_t pages[2], base, va = 0x7770000000ull;
	uint8_t want[2 * DRV_PAGE], got[2 * DRV_PAGE];
	struct drv_qp_init ia;
	struct cxib_cqe64 cqe;
	struct drv_mr list, dst;
	struct drv_qp umr, bad;
	struct sq_env e;
	__be32 out[4];
	unsigned int i;
	uint32_t key;
	uint16_t u;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, e.cq);
	ia.no_pd = true;
	CHECK_EQ(drv_qp_create(e.n, &ia, &bad), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(fake_err_logs(&e.n->t->fk), 1);
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_REG_UMR, e.cq);
	ia.log_rq = 0;
	ia.no_pd = true;
	CHECK_EQ(drv_qp_create(e.n, &ia, &umr), 0);
	/* mlx5r_umr_qp_rst2rts(): the port at RST2INIT, then RTR and RTS with nothing in them */
	CHECK_EQ(drv_qp_modify(e.n, &umr, CXIB_CMD_OP_RST2INIT_QP), 0);
	for (i = 0; i < 2; i++) {
		uint8_t in[CXIB_QP_MODIFY_IN_LEN] = { 0 };

		cmd_hdr(in, i ? CXIB_CMD_OP_RTR2RTS_QP : CXIB_CMD_OP_INIT2RTR_QP, 0);
		CXIB_SET(in, CXIB_QP_MODIFY_IN_QPN, umr.qpn);
		CHECK_EQ(drv_run(e.n->t, in, sizeof(in), out, sizeof(out)), 0);
	}
	CHECK_EQ(drv_qp_state(e.n, &umr), CXIB_QPC_STATE_RTS);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR, &list), 0);	/* in the node's PD */
	CHECK_EQ(drv_mr_alloc(e.n, sizeof(got), DRV_LR | DRV_LW, &dst), 0);
	base = drv_alloc_data(e.n, 2 * DRV_PAGE);
	drv_pattern(want, sizeof(want), 77);
	drv_mem_write(e.n, base, want, sizeof(want));
	/* as mlx5_ib loads them: each entry with its read and write enables set */
	pages[0] = base | CXIB_MTT_RD_EN | CXIB_MTT_WR_EN;
	pages[1] = (base + DRV_PAGE) | CXIB_MTT_RD_EN | CXIB_MTT_WR_EN;
	CHECK_EQ(sq_free_mkey(e.n, 2, 0x71, &key), 0);
	u = sq_post_umr_ptr(e.n, &umr, key, CXIB_UMR_CHECK_NOT_FREE, 0,
			    CXIB_UMR_MKEY_MASK_LEN | CXIB_UMR_MKEY_MASK_START_ADDR |
			    CXIB_UMR_MKEY_MASK_PAGE_SIZE | CXIB_UMR_MKEY_MASK_LR |
			    CXIB_UMR_MKEY_MASK_LW | CXIB_UMR_MKEY_MASK_RR | CXIB_UMR_MKEY_MASK_FREE,
			    va, 2 * DRV_PAGE, pages, 2, &list, 0);
	drv_pump(&e.w);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
	sq_check_req(t, &cqe, umr.qpn, u, CXIB_WQE_OPCODE_UMR);
	CHECK(!e.n->t->dev->mkeys[CXIB_MKEY_INDEX(key)]->free);
	/* the enables are not part of the address: a READ through the key gets the pages */
	sq_read_compare(t, &e, key, va, &dst, want, got, sizeof(got));
	/* no PD reference to drop: destroying it leaves the node's PD as it was */
	CHECK_EQ(cmd_simple(e.n->t, CXIB_CMD_OP_DESTROY_QP, 0, umr.qpn, 0, out, sizeof(out)), 0);
	CHECK_EQ(e.n->t->dev->pd_refs[0], 0);
}

/* An engine's fatal QP error: ERR, the async event it names (QPN in it), both queues flushed. */
TEST(sq_qp_error_posts_the_event_and_flushes_both_queues)
{
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct drv_mr buf;
	struct drv_sge r;
	struct drv_wr wr;
	struct sq_env e;
	struct cxfw_qp *q;
	unsigned int i, nsq = 0, nrq = 0;
	int si;

	CHECK_EQ(sq_env_init(t, &e, NULL), 0);
	CHECK_EQ(drv_mr_alloc(e.n, 4096, DRV_LR | DRV_LW, &buf), 0);
	r = sq_sge(&buf, 0, 64);
	CHECK_EQ(drv_post_recv(e.n, &e.a, &r, 1), 0);
	CHECK_EQ(drv_post_recv(e.n, &e.a, &r, 1), 1);
	/* a WQE that waits: a SEND to b, which has no receive and RNR-retries forever */
	wr = sq_wr(CXIB_WQE_OPCODE_SEND, true);
	wr.sg[wr.nsg++] = sq_sge(&buf, 0, 16);
	si = drv_post_send(e.n, &e.a, &wr);
	drv_pump_time(&e.w, SQ_NS_PER_MS, 3 * SQ_NS_PER_MS);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
	while (drv_next_event(e.n, &eqe) >= 0)
		;
	q = cxfw_qp_find(t->dev, e.a.qpn);
	CHECK(q != NULL);
	cxfw_qp_error(t->dev, q, CXIB_EVENT_TYPE_WQ_CATAS_ERROR);
	CHECK_EQ(drv_qp_state(e.n, &e.a), CXIB_QPC_STATE_ERR);
	CHECK_EQ(drv_find_event(e.n, CXIB_EVENT_TYPE_WQ_CATAS_ERROR, &eqe), 1);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_QP_QPN), e.a.qpn);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_QP_TYPE), CXIB_EVENT_QUEUE_TYPE_QP);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 1);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME), CXIB_CQE_SYND_WR_FLUSH_ERR);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_QPN), e.a.qpn);
		if (CXIB_GET(&cqe, CXIB_CQE_OPCODE) == CXIB_CQE_OPCODE_REQ_ERR) {
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), (uint16_t)si);
			nsq++;
		} else {
			CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
			nrq++;
		}
	}
	CHECK_EQ(nsq, 1);
	CHECK_EQ(nrq, 2);
	CHECK_EQ(drv_poll(e.n, e.cq, &cqe), 0);
	/* a second error changes nothing and posts nothing */
	cxfw_qp_error(t->dev, q, CXIB_EVENT_TYPE_WQ_CATAS_ERROR);
	CHECK_EQ(drv_find_event(e.n, CXIB_EVENT_TYPE_WQ_CATAS_ERROR, &eqe), 0);
}
