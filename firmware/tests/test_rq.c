// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The responder (resp.c) on one device: request packets are handed to cxfw_resp_rx() as
 * wire.c would after its checks, and the tests look at guest memory, CQEs, EQEs, the QP
 * state and the ACK/NAK counters (IBTA Vol 1 ch. 9, the responder; the PRM's SRQ, receive WQE and CQE formats).
 */
#include <stdlib.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"
#include "resp.h"
#include "drv.h"

#define RQ_QP_BUF	(DRV_CQ_OFF + 0x20000)	/* 2 pages: 1 KiB RQ, then the SQ */
#define RQ_SRQ_BUF	(DRV_CQ_OFF + 0x40000)
#define RQ_QP_DBR	(DRV_DBR_OFF + 0x800)
#define RQ_SRQ_DBR	(DRV_DBR_OFF + 0xc00)
#define RQ_MR_LEN	0x10000
#define RQ_WQE_SZ	64			/* log_rq_stride 2 */
#define RQ_PEER_LID	7			/* connected QPs' remote LID, requests' SLID */
#define RQ_EVENTS	(1ull << CXIB_EVENT_TYPE_SRQ_RQ_LIMIT | \
			 1ull << CXIB_EVENT_TYPE_SRQ_LAST_WQE | \
			 1ull << CXIB_EVENT_TYPE_SRQ_CATAS_ERROR)

struct rq_env {
	uint32_t uar, eqn, pd, cqn, mkey, lkey;
	uint64_t eq_buf, data;
	uint32_t cqes;			/* CQEs read so far */
};

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats s;

	cxfw_get_stats(t->dev, &s);
	return s;
}

static unsigned int create_cq(struct test_ctx *t, struct rq_env *e)
{
	uint8_t in[CXIB_CREATE_CQ_IN_LEN(1)] = { 0 };
	__be32 *cqc = (__be32 *)(in + CXIB_CREATE_CQ_IN_CQC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_CQ, 0);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, 5);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, e->uar);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, e->eqn);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, t->fk.base + DRV_DBR_OFF);
	CXIB_SET64(in + CXIB_CREATE_CQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + DRV_CQ_OFF);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		e->cqn = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
	return st;
}

/* A PA mkey over RQ_MR_LEN bytes at DRV_DATA_OFF with every right. */
static unsigned int create_mr(struct test_ctx *t, struct rq_env *e)
{
	uint8_t in[CXIB_CREATE_MKEY_IN_LEN(0)] = { 0 };
	__be32 *mkc = (__be32 *)(in + CXIB_CREATE_MKEY_IN_MKC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_MKEY, 0);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_1_0, CXIB_MKC_ACCESS_MODE_PA);
	CXIB_SET(mkc, CXIB_MKC_LR, 1);
	CXIB_SET(mkc, CXIB_MKC_LW, 1);
	CXIB_SET(mkc, CXIB_MKC_RR, 1);
	CXIB_SET(mkc, CXIB_MKC_RW, 1);
	CXIB_SET(mkc, CXIB_MKC_A, 1);
	CXIB_SET(mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mkc, CXIB_MKC_MKEY_7_0, 0x42);
	CXIB_SET(mkc, CXIB_MKC_PD, e->pd);
	CXIB_SET64(mkc, CXIB_MKC_START_ADDR, e->data);
	CXIB_SET64(mkc, CXIB_MKC_LEN, RQ_MR_LEN);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st) {
		e->mkey = CXIB_GET(out, CXIB_CREATE_MKEY_OUT_MKEY_INDEX);
		e->lkey = e->mkey << 8 | 0x42;
	}
	return st;
}

static unsigned int setup(struct test_ctx *t, struct rq_env *e)
{
	unsigned int st = drv_bringup(t);

	memset(e, 0, sizeof(*e));
	e->data = t->fk.base + DRV_DATA_OFF;
	e->eq_buf = drv_eq_buffer(t, 0, 6);
	if (!st)
		st = drv_alloc_uar(t, &e->uar);
	if (!st)
		st = drv_create_eq(t, e->eq_buf, 6, e->uar, 0, RQ_EVENTS, &e->eqn);
	if (!st)
		st = drv_alloc_pd(t, &e->pd);
	if (!st)
		st = create_cq(t, e);
	if (!st)
		st = create_mr(t, e);
	return st;
}

struct qp_cfg {
	uint32_t st, rq_type, srqn, qkey, rq_psn;
	unsigned int mtu, rra;
	bool rre, rwe, rae;
	unsigned int min_rnr;
};

static unsigned int qp_cmd(struct test_ctx *t, uint16_t op, uint32_t qpn, const struct qp_cfg *c)
{
	uint8_t in[CXIB_QP_MODIFY_IN_LEN] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_QP_MODIFY_IN_QPC_OFFSET), out[4];
	__be32 *pp = qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;

	cmd_hdr(in, op, 0);
	CXIB_SET(in, CXIB_QP_MODIFY_IN_QPN, qpn);
	CXIB_SET(pp, CXIB_ADS_VHCA_PORT_NUM, 1);
	CXIB_SET(pp, CXIB_ADS_RLID, RQ_PEER_LID);
	CXIB_SET(qpc, CXIB_QPC_MTU, c->mtu);
	CXIB_SET(qpc, CXIB_QPC_Q_KEY, c->qkey);
	CXIB_SET(qpc, CXIB_QPC_NEXT_RCV_PSN, c->rq_psn);
	CXIB_SET(qpc, CXIB_QPC_REMOTE_QPN, 0x99);
	CXIB_SET(qpc, CXIB_QPC_RRE, c->rre);
	CXIB_SET(qpc, CXIB_QPC_RWE, c->rwe);
	CXIB_SET(qpc, CXIB_QPC_RAE, c->rae);
	CXIB_SET(qpc, CXIB_QPC_LOG_RRA_MAX, c->rra);
	CXIB_SET(qpc, CXIB_QPC_MIN_RNR_NAK, c->min_rnr);
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

/* Create a QP and bring it to RTR; 0 on success. */
static unsigned int make_qp(struct test_ctx *t, const struct rq_env *e, const struct qp_cfg *c,
			    uint32_t *qpn)
{
	uint8_t in[CXIB_CREATE_QP_IN_LEN(2)] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_CREATE_QP_IN_QPC_OFFSET), out[4];
	unsigned int st, i;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_QP, 0);
	CXIB_SET(qpc, CXIB_QPC_ST, c->st);
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	CXIB_SET(qpc, CXIB_QPC_PD, e->pd);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_SIZE, 4);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_STRIDE, 2);
	CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, 6);
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, e->uar);
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, e->cqn);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, e->cqn);
	CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, c->rq_type);
	CXIB_SET(qpc, CXIB_QPC_SRQN_RMPN_XRQN, c->srqn);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, t->fk.base + RQ_QP_DBR);
	for (i = 0; i < 2; i++)
		CXIB_SET64(in + CXIB_CREATE_QP_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   t->fk.base + RQ_QP_BUF + 0x1000 * i);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (st)
		return st;
	*qpn = CXIB_GET(out, CXIB_CREATE_QP_OUT_QPN);
	st = qp_cmd(t, CXIB_CMD_OP_RST2INIT_QP, *qpn, c);
	if (!st)
		st = qp_cmd(t, CXIB_CMD_OP_INIT2RTR_QP, *qpn, c);
	return st;
}

static struct qp_cfg rc_cfg(void)
{
	struct qp_cfg c = { 0 };

	c.st = CXIB_QPC_ST_RC;
	c.mtu = CXIB_QPC_MTU_256;
	c.rre = c.rwe = c.rae = true;
	c.rra = 2;
	c.min_rnr = 12;
	return c;
}

static uint8_t qp_state(struct test_ctx *t, uint32_t qpn)
{
	return cxfw_qp_find(t->dev, qpn)->state;
}

/* Receive WQE @idx of the QP's RQ: @n (addr, len) pieces of the MR, then a terminator. */
static void post_rq(struct test_ctx *t, const struct rq_env *e, uint16_t idx, unsigned int n,
		    const uint64_t *addr, const uint32_t *len, uint32_t lkey)
{
	__be32 w[RQ_WQE_SZ / 4] = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		__be32 *d = w + 4 * i;

		CXIB_SET(d, CXIB_WQE_DATA_BYTE_COUNT, len[i]);
		CXIB_SET(d, CXIB_WQE_DATA_LKEY, lkey ? lkey : e->lkey);
		CXIB_SET64(d, CXIB_WQE_DATA_ADDR, addr[i]);
	}
	if (n < RQ_WQE_SZ / 16)
		CXIB_SET(w + 4 * n, CXIB_WQE_DATA_LKEY, CXIB_INVALID_LKEY);
	fake_mem_write(&t->fk, t->fk.base + RQ_QP_BUF + RQ_WQE_SZ * (idx % 16), w, sizeof(w));
}

static void rq_doorbell(struct test_ctx *t, uint16_t rcv)
{
	uint8_t b[8] = { 0 };

	put_be32(b, rcv);
	fake_mem_write(&t->fk, t->fk.base + RQ_QP_DBR, b, sizeof(b));
}

/* Hand one request to the responder as wire.c would. */
static void rx(struct test_ctx *t, uint32_t qpn, struct cxfw_pkt *p)
{
	p->port = 1;
	if (!p->slid)
		p->slid = RQ_PEER_LID;
	if (!p->pkey)
		p->pkey = 0xffff;
	p->dqpn = qpn;
	cxfw_resp_rx(t->dev, cxfw_qp_find(t->dev, qpn), p);
}

static void send_pkt(struct cxfw_pkt *p, uint8_t op, uint32_t psn, const uint8_t *data,
		     uint32_t len, bool ackreq)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->psn = psn;
	p->payload = data;
	p->paylen = len;
	p->ackreq = ackreq;
}

static void cqe_at(struct test_ctx *t, uint32_t n, struct cxib_cqe64 *cqe)
{
	fake_mem_read(&t->fk, t->fk.base + DRV_CQ_OFF + 64ull * n, cqe, sizeof(*cqe));
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

TEST(rc_send_scatters_across_sges_and_acks_coalesced)
{
	uint8_t msg[612], got[612];
	uint64_t addr[2];
	uint32_t len[2] = { 300, 1000 }, qpn;
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	c.rq_psn = 100;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr[0] = e.data;
	addr[1] = e.data + 0x1000;
	post_rq(t, &e, 0, 2, addr, len, 0);
	rq_doorbell(t, 1);
	fill(msg, sizeof(msg), 3);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_FIRST, 100, msg, 256, false);
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_MIDDLE, 101, msg + 256, 256, false);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cqes_written, 0);
	CHECK_EQ(stats(t).acks_sent, 0);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_LAST, 102, msg + 512, 100, true);
	p.se = true;
	rx(t, qpn, &p);
	/* one ACK for the AckReq packet, none for the others */
	CHECK_EQ(stats(t).acks_sent, 1);
	fake_mem_read(&t->fk, e.data, got, 300);
	fake_mem_read(&t->fk, e.data + 0x1000, got + 300, 312);
	CHECK(memcmp(got, msg, sizeof(msg)) == 0);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 612);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), qpn);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX), 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SLID), RQ_PEER_LID);
	CHECK_EQ(stats(t).recv_wqes, 1);
	CHECK_EQ(stats(t).dma_write_bytes, 612);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).acks_sent, 1);

	/* without AckReq the ACK comes from the end-of-batch pass, once */
	post_rq(t, &e, 1, 1, addr, len, 0);
	rq_doorbell(t, 2);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 103, msg, 10, false);
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_WRITE_ONLY, 104, msg, 10, false);
	p.reth_va = e.data + 0x3000;
	p.reth_rkey = e.lkey;
	p.reth_len = 10;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).acks_sent, 1);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).acks_sent, 2);
	cqe_at(t, 1, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 10);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SE), 0);
}

TEST(rc_send_without_wqe_gets_rnr_nak_and_is_served_on_retry)
{
	uint8_t msg[64], got[64];
	uint64_t addr = 0;
	uint32_t len = 64, qpn;
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	rq_doorbell(t, 0);
	fill(msg, sizeof(msg), 9);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, 64, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).rnr_naks_sent, 1);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(stats(t).out_of_buffer, 1);
	CHECK_EQ(stats(t).cqes_written, 0);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_RTR);
	/* a packet in flight behind the RNR'd one is dropped without a sequence NAK */
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 1, msg, 64, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(stats(t).cqes_written, 0);
	/* the retry with the same PSN lands once a WQE is posted */
	addr = e.data + 0x100;
	post_rq(t, &e, 0, 1, &addr, &len, 0);
	rq_doorbell(t, 1);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, 64, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cqes_written, 1);
	CHECK_EQ(stats(t).acks_sent, 1);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
	fake_mem_read(&t->fk, addr, got, sizeof(got));
	CHECK(memcmp(got, msg, sizeof(msg)) == 0);
}

TEST(rc_psn_gap_naks_once_and_duplicates_are_not_reexecuted)
{
	uint8_t msg[32];
	uint64_t addr[2];
	uint32_t len[1] = { 64 }, qpn;
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	c.rq_psn = 0xfffffe;		/* crosses the 24-bit wrap */
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr[0] = e.data;
	addr[1] = e.data + 0x40;
	post_rq(t, &e, 0, 1, &addr[0], len, 0);
	post_rq(t, &e, 1, 1, &addr[1], len, 0);
	rq_doorbell(t, 2);
	fill(msg, sizeof(msg), 1);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 1, msg, 32, true);	/* ePSN + 3: ahead */
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 2, msg, 32, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).out_of_sequence, 1);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(stats(t).cqes_written, 0);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0xfffffe, msg, 32, true);
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0xffffff, msg, 32, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cqes_written, 2);
	/* a new gap NAKs again (the flag cleared when ePSN arrived) */
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 5, msg, 32, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).naks_sent, 2);
	/* a request from another LID is not for this connection: dropped silently */
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, 32, true);
	p.slid = RQ_PEER_LID + 1;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).transport_drops, 1);
	CHECK_EQ(stats(t).naks_sent, 2);
	CHECK_EQ(stats(t).cqes_written, 2);
	CHECK_EQ(stats(t).acks_sent, 2);
	/* duplicates: ACKed, never executed again */
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0xffffff, msg, 32, true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).duplicate_requests, 1);
	CHECK_EQ(stats(t).cqes_written, 2);
	CHECK_EQ(stats(t).acks_sent, 3);
	CHECK_EQ(stats(t).recv_wqes, 2);
}

TEST(rc_write_with_immediate_consumes_a_wqe_and_bad_rkey_naks)
{
	uint8_t msg[266], got[266];
	uint64_t addr = 0;
	uint32_t len = 16, qpn;
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr = e.data + 0x8000;
	post_rq(t, &e, 0, 1, &addr, &len, 0);
	rq_doorbell(t, 1);
	fill(msg, sizeof(msg), 5);
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_WRITE_FIRST, 0, msg, 256, false);
	p.reth_va = e.data + 0x2000;
	p.reth_rkey = e.lkey;
	p.reth_len = sizeof(msg);
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_WRITE_LAST_IMM, 1, msg + 256, 10, true);
	p.imm = 0xa1b2c3d4;
	rx(t, qpn, &p);
	fake_mem_read(&t->fk, e.data + 0x2000, got, sizeof(got));
	CHECK(memcmp(got, msg, sizeof(msg)) == 0);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_WR_IMM);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), sizeof(msg));
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_IMM_INVAL_PKEY), 0xa1b2c3d4);
	CHECK_EQ(stats(t).acks_sent, 1);
	/* a WRITE outside the MR: NAK remote access, QP to ERR, nothing written */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_WRITE_ONLY, 2, msg, 16, true);
	p.reth_va = e.data + RQ_MR_LEN - 8;
	p.reth_rkey = e.lkey;
	p.reth_len = 16;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).remote_access_errors, 1);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	/* a QP in ERR ignores requests */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_WRITE_ONLY, 3, msg, 16, true);
	p.reth_va = e.data + 0x4000;
	p.reth_rkey = e.lkey;
	p.reth_len = 16;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(stats(t).acks_sent, 1);
}

TEST(rc_write_without_rwe_and_bad_opcode_sequence_are_rejected)
{
	uint8_t msg[256];
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t qpn, qpn2;

	CHECK_EQ(setup(t, &e), 0);
	c.rwe = false;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	fill(msg, sizeof(msg), 2);
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_WRITE_ONLY, 0, msg, 16, true);
	p.reth_va = e.data;
	p.reth_rkey = e.lkey;
	p.reth_len = 16;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).remote_access_errors, 1);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	/* a MIDDLE with no open message: invalid request */
	c = rc_cfg();
	CHECK_EQ(make_qp(t, &e, &c, &qpn2), 0);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_MIDDLE, 0, msg, 256, true);
	rx(t, qpn2, &p);
	CHECK_EQ(stats(t).naks_sent, 2);
	CHECK_EQ(qp_state(t, qpn2), CXIB_QPC_STATE_ERR);
	CHECK_EQ(stats(t).remote_access_errors, 1);
}

/* Atomic targets: 8-byte values in the declared host order (little endian at bring-up). */
static void put_le64(struct test_ctx *t, uint64_t addr, uint64_t v)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < 8; i++, v >>= 8)
		b[i] = (uint8_t)v;
	fake_mem_write(&t->fk, addr, b, 8);
}

static uint64_t get_le64(struct test_ctx *t, uint64_t addr)
{
	uint8_t b[8];
	uint64_t v = 0;
	unsigned int i;

	fake_mem_read(&t->fk, addr, b, 8);
	for (i = 8; i--;)
		v = v << 8 | b[i];
	return v;
}

TEST(rc_atomics_execute_once_and_duplicates_replay)
{
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t qpn;
	uint64_t va;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	va = e.data + 0x3000;
	put_le64(t, va, 0xfffffffeull);
	put_le64(t, va + 8, 0x7777777777777777ull);
	send_pkt(&p, CXIB_BTH_OP_RC_FETCH_ADD, 0, NULL, 0, true);
	p.atomic_va = va;
	p.atomic_rkey = e.lkey;
	p.atomic_swap_add = 3;			/* carries into the upper half */
	rx(t, qpn, &p);
	CHECK_EQ(get_le64(t, va), 0x100000001ull);
	/* the duplicate is answered from the replay cache: memory untouched */
	rx(t, qpn, &p);
	CHECK_EQ(get_le64(t, va), 0x100000001ull);
	CHECK_EQ(stats(t).duplicate_requests, 1);
	send_pkt(&p, CXIB_BTH_OP_RC_COMPARE_SWAP, 1, NULL, 0, true);
	p.atomic_va = va;
	p.atomic_rkey = e.lkey;
	p.atomic_compare = 0x100000001ull;
	p.atomic_swap_add = 42;
	rx(t, qpn, &p);
	CHECK_EQ(get_le64(t, va), 42);
	send_pkt(&p, CXIB_BTH_OP_RC_COMPARE_SWAP, 2, NULL, 0, true);	/* compare fails */
	p.atomic_va = va;
	p.atomic_rkey = e.lkey;
	p.atomic_compare = 7;
	p.atomic_swap_add = 1;
	rx(t, qpn, &p);
	CHECK_EQ(get_le64(t, va), 42);
	CHECK_EQ(get_le64(t, va + 8), 0x7777777777777777ull);
	CHECK_EQ(stats(t).naks_sent, 0);
	/* misaligned: invalid request, QP to ERR, memory untouched */
	send_pkt(&p, CXIB_BTH_OP_RC_FETCH_ADD, 3, NULL, 0, true);
	p.atomic_va = va + 4;
	p.atomic_rkey = e.lkey;
	p.atomic_swap_add = 1;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	CHECK_EQ(get_le64(t, va), 42);
	CHECK_EQ(get_le64(t, va + 8), 0x7777777777777777ull);
}

TEST(rc_read_checks_rkey_and_rre)
{
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t qpn, qpn2;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	/* 1000 bytes at MTU 256: 4 response packets, ePSN moves by 4 */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 0, NULL, 0, true);
	p.reth_va = e.data;
	p.reth_rkey = e.lkey;
	p.reth_len = 1000;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).dma_read_bytes, 1000);
	CHECK_EQ(cxfw_qp_find(t->dev, qpn)->resp->epsn, 4);
	/* a duplicate of its tail is re-read from memory */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 2, NULL, 0, true);
	p.reth_va = e.data + 512;
	p.reth_rkey = e.lkey;
	p.reth_len = 488;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).duplicate_requests, 1);
	CHECK_EQ(stats(t).dma_read_bytes, 1488);
	/* beyond the MR: remote access NAK */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 4, NULL, 0, true);
	p.reth_va = e.data + RQ_MR_LEN - 4;
	p.reth_rkey = e.lkey;
	p.reth_len = 8;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).remote_access_errors, 1);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	/* no rre */
	c.rre = false;
	CHECK_EQ(make_qp(t, &e, &c, &qpn2), 0);
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 0, NULL, 0, true);
	p.reth_va = e.data;
	p.reth_rkey = e.lkey;
	p.reth_len = 8;
	rx(t, qpn2, &p);
	CHECK_EQ(stats(t).remote_access_errors, 2);
	CHECK_EQ(stats(t).dma_read_bytes, 1488);
}

TEST(rq_bad_lkey_and_short_wqe_give_local_error_cqes)
{
	uint8_t msg[100];
	uint64_t addr;
	uint32_t len = 16, qpn, qpn2;
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr = e.data;
	post_rq(t, &e, 0, 1, &addr, &len, (e.mkey + 7) << 8);	/* no such mkey */
	rq_doorbell(t, 2);
	fill(msg, sizeof(msg), 4);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, 8, true);
	rx(t, qpn, &p);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME), CXIB_CQE_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_QPN), qpn);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), 0);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(stats(t).local_errors, 1);
	e.cqes = (uint32_t)stats(t).cqes_written;	/* + the flush of WQE 1 (qp.c) */

	/* a message longer than the WQE: local length error */
	CHECK_EQ(make_qp(t, &e, &c, &qpn2), 0);
	post_rq(t, &e, 0, 1, &addr, &len, 0);
	rq_doorbell(t, 1);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, 100, true);
	rx(t, qpn2, &p);
	cqe_at(t, e.cqes, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME), CXIB_CQE_SYND_LOCAL_LENGTH_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_QPN), qpn2);
	CHECK_EQ(qp_state(t, qpn2), CXIB_QPC_STATE_ERR);
	CHECK_EQ(stats(t).naks_sent, 2);
	CHECK_EQ(stats(t).dma_write_bytes, 0);
}

/* ---- SRQ ---- */

static unsigned int create_srq(struct test_ctx *t, const struct rq_env *e, unsigned int log_size,
			       uint32_t *srqn)
{
	uint8_t in[CXIB_CREATE_SRQ_IN_LEN(1)] = { 0 };
	__be32 *srqc = (__be32 *)(in + CXIB_CREATE_SRQ_IN_SRQC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_SRQ, 0);
	CXIB_SET(srqc, CXIB_SRQC_LOG_SRQ_SIZE, log_size);
	CXIB_SET(srqc, CXIB_SRQC_LOG_RQ_STRIDE, 2);
	CXIB_SET(srqc, CXIB_SRQC_PD, e->pd);
	CXIB_SET64(srqc, CXIB_SRQC_DBR_ADDR, t->fk.base + RQ_SRQ_DBR);
	CXIB_SET64(in + CXIB_CREATE_SRQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + RQ_SRQ_BUF);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		*srqn = CXIB_GET(out, CXIB_CREATE_SRQ_OUT_SRQN);
	return st;
}

/* SRQ WQE @idx: next -> @next, one 64-byte piece of the MR at @off. */
static void post_srq(struct test_ctx *t, const struct rq_env *e, uint16_t idx, uint16_t next,
		     uint64_t off)
{
	__be32 w[RQ_WQE_SZ / 4] = { 0 };

	CXIB_SET(w, CXIB_WQE_SRQ_NEXT_NEXT_WQE_INDEX, next);
	CXIB_SET(w + 4, CXIB_WQE_DATA_BYTE_COUNT, 64);
	CXIB_SET(w + 4, CXIB_WQE_DATA_LKEY, e->lkey);
	CXIB_SET64(w + 4, CXIB_WQE_DATA_ADDR, e->data + off);
	CXIB_SET(w + 8, CXIB_WQE_DATA_LKEY, CXIB_INVALID_LKEY);
	fake_mem_write(&t->fk, t->fk.base + RQ_SRQ_BUF + RQ_WQE_SZ * idx, w, sizeof(w));
}

static void srq_doorbell(struct test_ctx *t, uint16_t count)
{
	uint8_t b[4];

	put_be32(b, count);
	fake_mem_write(&t->fk, t->fk.base + RQ_SRQ_DBR, b, sizeof(b));
}

TEST(srq_wqes_follow_the_linked_list_and_limit_fires_once)
{
	static const uint16_t order[4] = { 0, 3, 5, 1 };
	uint8_t msg[16], out[16], got[16];
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t srqn, qpn;
	unsigned int i;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(create_srq(t, &e, 3, &srqn), 0);
	for (i = 0; i < 4; i++)
		post_srq(t, &e, order[i], order[(i + 1) % 4], 0x100 * order[i]);
	srq_doorbell(t, 4);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ, srqn, 3, out, 16), 0);
	c.rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	c.srqn = srqn;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	for (i = 0; i < 3; i++) {
		fill(msg, sizeof(msg), (uint8_t)(i + 1));
		send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, i, msg, sizeof(msg), true);
		rx(t, qpn, &p);
		cqe_at(t, i, &cqe);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), order[i]);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX), srqn);
		fake_mem_read(&t->fk, e.data + 0x100 * order[i], got, sizeof(got));
		CHECK(memcmp(got, msg, sizeof(msg)) == 0);
		/* 4 posted, lwm 3: the event fires when 2 are left, once */
		CHECK_EQ(stats(t).eqes_written, i >= 1 ? 1 : 0);
	}
	drv_eqe(t, e.eq_buf, 0, &eqe);
	CHECK_EQ(eqe.type, CXIB_EVENT_TYPE_SRQ_RQ_LIMIT);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_SRQ_SRQN), srqn);
	/* one WQE left; then none: RNR */
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 3, msg, sizeof(msg), true);
	rx(t, qpn, &p);
	cqe_at(t, 3, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 1);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 4, msg, sizeof(msg), true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).rnr_naks_sent, 1);
	CHECK_EQ(stats(t).recv_wqes, 4);
	/* the QP leaves for ERR: LAST_WQE_REACHED once */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_2ERR_QP, 0, qpn, 0, out, 16), 0);
	cxfw_resp_qp_error(t->dev, cxfw_qp_find(t->dev, qpn));
	cxfw_resp_qp_error(t->dev, cxfw_qp_find(t->dev, qpn));
	CHECK_EQ(stats(t).eqes_written, 2);
	drv_eqe(t, e.eq_buf, 1, &eqe);
	CHECK_EQ(eqe.type, CXIB_EVENT_TYPE_SRQ_LAST_WQE);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_QP_QPN), qpn);
}

TEST(srq_malformed_wqe_link_fails_the_qp_with_remote_op_nak)
{
	uint8_t msg[16] = { 0 }, out[CXIB_QUERY_SRQ_OUT_LEN];
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t srqn, qpn;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(create_srq(t, &e, 3, &srqn), 0);
	post_srq(t, &e, 0, 200, 0);		/* next index outside the 8-entry SRQ */
	srq_doorbell(t, 1);
	c.rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	c.srqn = srqn;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, sizeof(msg), true);
	rx(t, qpn, &p);
	/* NAK remote operational error, the WQE completes with LOCAL_QP_OP_ERR */
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(stats(t).rnr_naks_sent, 0);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	CHECK_EQ(stats(t).dma_write_bytes, 0);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME), CXIB_CQE_SYND_LOCAL_QP_OP_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SRQN), srqn);
	CHECK_EQ(stats(t).cqes_written, 1);
	/* the SRQ is broken: error state, SRQ_CATAS_ERROR; the QP reports LAST_WQE */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_SRQ, 0, srqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(out + CXIB_QUERY_SRQ_OUT_SRQC_OFFSET, CXIB_SRQC_STATE),
		 CXIB_SRQC_STATE_ERROR);
	drv_eqe(t, e.eq_buf, 0, &eqe);
	CHECK_EQ(eqe.type, CXIB_EVENT_TYPE_SRQ_CATAS_ERROR);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_SRQ_SRQN), srqn);
	drv_eqe(t, e.eq_buf, 1, &eqe);
	CHECK_EQ(eqe.type, CXIB_EVENT_TYPE_SRQ_LAST_WQE);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_QP_QPN), qpn);
}

/* ---- RMPs and XRC SRQs (ISSI 1): the same receive engine ---- */

#define RQ_CQ2_OFF	(DRV_CQ_OFF + 0x10000)	/* an XRC SRQ's own CQ */
#define RQ_CQ2_DBR	(DRV_DBR_OFF + 0x40)

static unsigned int modify_rmp_lwm(struct test_ctx *t, uint32_t rmpn, uint32_t lwm)
{
	uint8_t in[CXIB_MODIFY_RMP_IN_LEN] = { 0 };
	__be32 *rmpc = (__be32 *)(in + CXIB_MODIFY_RMP_IN_RMPC_OFFSET), out[4];

	cmd_hdr(in, CXIB_CMD_OP_MODIFY_RMP, 0);
	CXIB_SET(in, CXIB_MODIFY_RMP_IN_RMP_STATE, CXIB_RMPC_STATE_RDY);
	CXIB_SET(in, CXIB_MODIFY_RMP_IN_RMPN, rmpn);
	CXIB_SET64(in, CXIB_MODIFY_RMP_IN_BITMASK, CXIB_RMP_BITMASK_LWM);
	CXIB_SET(rmpc, CXIB_RMPC_STATE, CXIB_RMPC_STATE_RDY);
	CXIB_SET(rmpc + CXIB_RMPC_WQ_OFFSET / 4, CXIB_WQC_LWM, lwm);
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

TEST(rmp_feeds_a_qp_from_its_list_and_modify_rmp_arms_the_limit)
{
	static const uint16_t order[4] = { 0, 3, 5, 1 };
	uint8_t in[CXIB_CREATE_RMP_IN_LEN(1)] = { 0 }, msg[16], got[16];
	uint8_t q[CXIB_QUERY_RMP_OUT_LEN];
	__be32 *rmpc = (__be32 *)(in + CXIB_CREATE_RMP_IN_RMPC_OFFSET), out[4];
	__be32 *wq = rmpc + CXIB_RMPC_WQ_OFFSET / 4;
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t rmpn, qpn;
	unsigned int i;

	CHECK_EQ(setup(t, &e), 0);
	/* as mlx5_ib's create_rmp_cmd(): RDY, a linked-list wq of 8 x 64-byte WQEs */
	cmd_hdr(in, CXIB_CMD_OP_CREATE_RMP, 0);
	CXIB_SET(rmpc, CXIB_RMPC_STATE, CXIB_RMPC_STATE_RDY);
	CXIB_SET(wq, CXIB_WQC_PD, e.pd);
	CXIB_SET64(wq, CXIB_WQC_DBR_ADDR, t->fk.base + RQ_SRQ_DBR);
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_STRIDE, 6);
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_SZ, 3);
	CXIB_SET64(in + CXIB_CREATE_RMP_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + RQ_SRQ_BUF);
	CHECK_EQ(drv_run(t, in, sizeof(in), out, sizeof(out)), 0);
	rmpn = CXIB_GET(out, CXIB_CREATE_RMP_OUT_RMPN);
	for (i = 0; i < 4; i++)
		post_srq(t, &e, order[i], order[(i + 1) % 4], 0x100 * order[i]);
	srq_doorbell(t, 4);
	CHECK_EQ(modify_rmp_lwm(t, rmpn, 3), 0);
	c.rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	c.srqn = rmpn;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	for (i = 0; i < 3; i++) {
		fill(msg, sizeof(msg), (uint8_t)(i + 5));
		send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, i, msg, sizeof(msg), true);
		rx(t, qpn, &p);
		cqe_at(t, i, &cqe);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), qpn);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), order[i]);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX), rmpn);
		fake_mem_read(&t->fk, e.data + 0x100 * order[i], got, sizeof(got));
		CHECK(memcmp(got, msg, sizeof(msg)) == 0);
		/* 4 posted, lwm 3: the event fires when 2 are left, once */
		CHECK_EQ(stats(t).eqes_written, i >= 1 ? 1 : 0);
	}
	drv_eqe(t, e.eq_buf, 0, &eqe);
	CHECK_EQ(eqe.type, CXIB_EVENT_TYPE_SRQ_RQ_LIMIT);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_SRQ_SRQN), rmpn);
	/* the limit fired: QUERY_RMP still RDY, the lwm as set */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, q, sizeof(q)), 0);
	CHECK_EQ(CXIB_GET(q + CXIB_QUERY_RMP_OUT_RMPC_OFFSET, CXIB_RMPC_STATE),
		 CXIB_RMPC_STATE_RDY);
	CHECK_EQ(CXIB_GET(q + CXIB_QUERY_RMP_OUT_RMPC_OFFSET + CXIB_RMPC_WQ_OFFSET,
			  CXIB_WQC_LWM), 3);
}

/*
 * A QP on an XRC SRQ with its own CQ: the receive completes there, not on the QP's
 * cqn_rcv, and carries the XRC SRQ's number (CQE version 0) or user_index (version 1).
 */
static void xrc_srq_receive(struct test_ctx *t, unsigned int cqe_version)
{
	uint8_t in[CXIB_CREATE_XRC_SRQ_IN_LEN(1)] = { 0 }, msg[16], got[16];
	uint8_t cin[CXIB_CREATE_CQ_IN_LEN(1)] = { 0 };
	__be32 *xc = (__be32 *)(in + CXIB_CREATE_XRC_SRQ_IN_XRC_SRQC_OFFSET), out[4];
	__be32 *cqc = (__be32 *)(cin + CXIB_CREATE_CQ_IN_CQC_OFFSET);
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t xrcd, cq2, srqn, qpn;
	unsigned int st;

	drv_cqe_version = cqe_version;
	st = setup(t, &e);
	drv_cqe_version = CXIB_CQE_VERSION_0;
	CHECK_EQ(st, 0);
	cmd_hdr(cin, CXIB_CMD_OP_CREATE_CQ, 0);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, 5);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, e.uar);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, e.eqn);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, t->fk.base + RQ_CQ2_DBR);
	CXIB_SET64(cin + CXIB_CREATE_CQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + RQ_CQ2_OFF);
	CHECK_EQ(drv_run(t, cin, sizeof(cin), out, sizeof(out)), 0);
	cq2 = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ALLOC_XRCD, 0, 0, 0, out, sizeof(out)), 0);
	xrcd = CXIB_GET(out, CXIB_ALLOC_XRCD_OUT_XRCD);
	/* as mlx5_ib's create_xrc_srq_cmd(): 8 x 64-byte WQEs on CQ 2 */
	cmd_hdr(in, CXIB_CMD_OP_CREATE_XRC_SRQ, 0);
	CXIB_SET(xc, CXIB_XRC_SRQC_LOG_XRC_SRQ_SIZE, 3);
	CXIB_SET(xc, CXIB_XRC_SRQC_LOG_RQ_STRIDE, 2);
	CXIB_SET(xc, CXIB_XRC_SRQC_XRCD, xrcd);
	CXIB_SET(xc, CXIB_XRC_SRQC_CQN, cq2);
	CXIB_SET(xc, CXIB_XRC_SRQC_USER_INDEX, 0x4321);
	CXIB_SET(xc, CXIB_XRC_SRQC_PD, e.pd);
	CXIB_SET64(xc, CXIB_XRC_SRQC_DB_RECORD_ADDR, t->fk.base + RQ_SRQ_DBR);
	CXIB_SET64(in + CXIB_CREATE_XRC_SRQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA,
		   t->fk.base + RQ_SRQ_BUF);
	CHECK_EQ(drv_run(t, in, sizeof(in), out, sizeof(out)), 0);
	srqn = CXIB_GET(out, CXIB_CREATE_XRC_SRQ_OUT_XRC_SRQN);
	post_srq(t, &e, 0, 1, 0);
	post_srq(t, &e, 1, 2, 0x100);
	srq_doorbell(t, 2);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, srqn, 2,
			    out, 16), 0);
	c.rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	c.srqn = srqn;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);	/* cqn_rcv: the setup's CQ */
	fill(msg, sizeof(msg), 0x31);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 0, msg, sizeof(msg), true);
	rx(t, qpn, &p);
	fake_mem_read(&t->fk, e.data, got, sizeof(got));
	CHECK(memcmp(got, msg, sizeof(msg)) == 0);
	CHECK_EQ(stats(t).cqes_written, 1);
	fake_mem_read(&t->fk, t->fk.base + RQ_CQ2_OFF, &cqe, sizeof(cqe));
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), qpn);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), sizeof(msg));
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SRQN_UIDX),
		 cqe_version == CXIB_CQE_VERSION_1 ? 0x4321 : srqn);
	cqe_at(t, 0, &cqe);		/* the QP's own receive CQ got nothing */
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), 0);
	/* 2 posted, lwm 2: one left fires the limit, with the XRC SRQ's number */
	drv_eqe(t, e.eq_buf, 0, &eqe);
	CHECK_EQ(eqe.type, CXIB_EVENT_TYPE_SRQ_RQ_LIMIT);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_SRQ_SRQN), srqn);
	/* the XRC SRQ holds CQ 2 until it is gone; the QP holds the XRC SRQ */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, cq2, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_QP, 0, qpn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, cq2, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, cq2, 0, out, 16), 0);
	/* the references balance: nothing holds the QP's own CQs any more */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16), 0);
}

TEST(xrc_srq_receive_completes_on_the_xrc_srqs_cq)
{
	xrc_srq_receive(t, CXIB_CQE_VERSION_0);
}

TEST(xrc_srq_receive_cqe_v1_carries_the_xrc_srqs_user_index)
{
	xrc_srq_receive(t, CXIB_CQE_VERSION_1);
}

TEST(uc_gap_drops_the_rest_of_the_message)
{
	uint8_t msg[512];
	uint64_t addr;
	uint32_t len = 1024, qpn;
	struct qp_cfg c = rc_cfg();
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	c.st = CXIB_QPC_ST_UC;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr = e.data;
	post_rq(t, &e, 0, 1, &addr, &len, 0);
	rq_doorbell(t, 1);
	fill(msg, sizeof(msg), 8);
	send_pkt(&p, CXIB_BTH_OP_UC_SEND_FIRST, 0, msg, 256, false);
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_UC_SEND_LAST, 2, msg + 256, 100, false);	/* PSN 1 lost */
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cqes_written, 0);
	CHECK_EQ(stats(t).naks_sent + stats(t).acks_sent, 0);
	/* the next message resynchronises and reuses the WQE */
	send_pkt(&p, CXIB_BTH_OP_UC_SEND_FIRST, 3, msg, 256, false);
	rx(t, qpn, &p);
	send_pkt(&p, CXIB_BTH_OP_UC_SEND_LAST, 4, msg + 256, 100, false);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cqes_written, 1);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 356);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 0);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_RTR);
}

/* QP1 (GSI): the CQE carries the packet's P_Key (not an index); immediate data is refused. */
static void qp1_receive(struct test_ctx *t, const struct rq_env *ep)
{
	struct rq_env e = *ep;
	uint32_t len = 512, qpn, base = (uint32_t)stats(t).cqes_written;
	struct qp_cfg c = { 0 };
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	uint8_t mad[256];
	uint64_t addr;

	c.st = CXIB_QPC_ST_QP1;
	c.mtu = CXIB_QPC_MTU_256;
	c.qkey = 0x80010000;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	pthread_mutex_lock(&t->dev->lock);
	t->dev->ports[0].pkeys[3] = 0x8001;
	pthread_mutex_unlock(&t->dev->lock);
	addr = e.data;
	post_rq(t, &e, 0, 1, &addr, &len, 0);
	rq_doorbell(t, 1);
	fill(mad, sizeof(mad), 11);
	/* immediate data is not valid to QP1: dropped, the WQE stays */
	send_pkt(&p, CXIB_BTH_OP_UD_SEND_ONLY_IMM, 0, mad, sizeof(mad), false);
	p.deth_qkey = 0x80010000;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cqes_written, base);
	send_pkt(&p, CXIB_BTH_OP_UD_SEND_ONLY, 1, mad, sizeof(mad), false);
	p.deth_qkey = 0x80010000;
	p.deth_sqpn = 1;
	p.pkey = 0x8001;
	rx(t, qpn, &p);
	cqe_at(t, base, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 256 + 40);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_PKEY), 0x8001);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 0);
}

TEST(ud_receive_fills_the_grh_area_checks_the_qkey_and_qp1_pkey)
{
	uint8_t msg[50], got[90];
	uint64_t addr[2];
	uint32_t len[2] = { 256, 256 }, qpn;
	struct qp_cfg c = { 0 };
	struct cxib_cqe64 cqe;
	struct cxfw_pkt p;
	struct rq_env e;
	unsigned int i;

	CHECK_EQ(setup(t, &e), 0);
	c.st = CXIB_QPC_ST_UD;
	c.mtu = CXIB_QPC_MTU_2048;
	c.qkey = 0x1234;
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr[0] = e.data;
	addr[1] = e.data + 0x400;
	post_rq(t, &e, 0, 1, &addr[0], &len[0], 0);
	post_rq(t, &e, 1, 1, &addr[1], &len[1], 0);
	rq_doorbell(t, 2);
	fill(msg, sizeof(msg), 6);
	/* wrong Q_Key: dropped and counted */
	send_pkt(&p, CXIB_BTH_OP_UD_SEND_ONLY, 0, msg, sizeof(msg), false);
	p.deth_qkey = 0x1235;
	p.deth_sqpn = 0x77;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).qkey_violations, 1);
	CHECK_EQ(stats(t).cqes_written, 0);
	/* with a GRH */
	send_pkt(&p, CXIB_BTH_OP_UD_SEND_ONLY, 1, msg, sizeof(msg), false);
	p.deth_qkey = 0x1234;
	p.deth_sqpn = 0x77;
	p.slid = 9;
	p.sl = 3;
	p.grh = true;
	p.hop_limit = 64;
	for (i = 0; i < 16; i++) {
		p.sgid[i] = (uint8_t)(0xa0 + i);
		p.dgid[i] = (uint8_t)(0xc0 + i);
	}
	rx(t, qpn, &p);
	cqe_at(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 90);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), 0x77);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SLID), 9);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SL), 3);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_G), CXIB_CQE_G_GRH);
	fake_mem_read(&t->fk, e.data, got, sizeof(got));
	CHECK_EQ(got[0] >> 4, 6);			/* IPVer */
	CHECK_EQ(got[7], 64);				/* HopLmt */
	CHECK(memcmp(got + 8, p.sgid, 16) == 0);
	CHECK(memcmp(got + 24, p.dgid, 16) == 0);
	CHECK(memcmp(got + 40, msg, sizeof(msg)) == 0);
	/* without one: the 40 bytes are skipped, still counted */
	memset(got, 0xee, sizeof(got));
	fake_mem_write(&t->fk, e.data + 0x400, got, sizeof(got));
	send_pkt(&p, CXIB_BTH_OP_UD_SEND_ONLY, 2, msg, sizeof(msg), false);
	p.deth_qkey = 0x1234;
	p.deth_sqpn = 0x78;
	rx(t, qpn, &p);
	cqe_at(t, 1, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 90);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_G), CXIB_CQE_G_NONE);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_RQPN), 0x78);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_WQE_COUNTER), 1);
	fake_mem_read(&t->fk, e.data + 0x400, got, sizeof(got));
	CHECK_EQ(got[0], 0xee);
	CHECK(memcmp(got + 40, msg, sizeof(msg)) == 0);
	/* no WQE left: dropped, counted */
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).out_of_buffer, 1);
	CHECK_EQ(stats(t).cqes_written, 2);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_RTR);
	qp1_receive(t, &e);
}

/* ---- hostile input ---- */

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

/* Back to RTR after an error (2RST, RST2INIT, INIT2RTR). */
static unsigned int revive(struct test_ctx *t, uint32_t qpn, const struct qp_cfg *c)
{
	__be32 out[4];
	unsigned int st = cmd_simple(t, CXIB_CMD_OP_2RST_QP, 0, qpn, 0, out, 16);

	if (!st)
		st = qp_cmd(t, CXIB_CMD_OP_RST2INIT_QP, qpn, c);
	if (!st)
		st = qp_cmd(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, c);
	return st;
}

TEST(resp_random_requests_stay_inside_guest_buffers)
{
	static uint8_t junk[4096], payload[4096];
	struct qp_cfg cfg[4];
	uint32_t qpn[4], srqn;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct cxfw_stats st;
	struct rq_env e;
	unsigned int i, k;
	uint8_t ci[4];

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(create_srq(t, &e, 3, &srqn), 0);
	cfg[0] = rc_cfg();
	cfg[1] = rc_cfg();
	cfg[1].rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	cfg[1].srqn = srqn;
	cfg[2] = rc_cfg();
	cfg[2].st = CXIB_QPC_ST_UC;
	memset(&cfg[3], 0, sizeof(cfg[3]));
	cfg[3].st = CXIB_QPC_ST_UD;
	cfg[3].mtu = CXIB_QPC_MTU_4096;
	cfg[3].qkey = 0x11;
	for (k = 0; k < 4; k++)
		CHECK_EQ(make_qp(t, &e, &cfg[k], &qpn[k]), 0);
	/* the responder's DMA writes may only land in the EQ, CQ, doorbell and MR areas */
	t->fk.wr_lo = t->fk.base + FAKE_EQ_OFF;
	for (i = 0; i < 20000; i++) {
		struct cxfw_pkt p;
		uint32_t r = rnd(&seed);

		/* every 64 packets: fresh garbage WQEs (sometimes with the real lkey) */
		if (i % 64 == 0) {
			for (k = 0; k < sizeof(junk); k += 4) {
				uint32_t v = rnd(&seed);

				if (v % 3 == 0)
					v = e.lkey;
				else if (v % 3 == 1)
					v = (uint32_t)((e.data + v % (RQ_MR_LEN + 512)) & 0xffffffff);
				put_be32(junk + k, v);
			}
			fake_mem_write(&t->fk, t->fk.base + RQ_QP_BUF, junk, 1024);
			fake_mem_write(&t->fk, t->fk.base + RQ_SRQ_BUF, junk + 1024, 512);
			rq_doorbell(t, (uint16_t)rnd(&seed));
			srq_doorbell(t, (uint16_t)rnd(&seed));
		}
		memset(&p, 0, sizeof(p));
		k = r % 4;
		p.opcode = (uint8_t)(r >> 8);
		if (r & 0x10000)	/* mostly the QP's own transport class */
			p.opcode = (uint8_t)((k == 2 ? CXIB_BTH_OP_CLASS_UC : k == 3 ?
					      CXIB_BTH_OP_CLASS_UD : CXIB_BTH_OP_CLASS_RC) |
					     (rnd(&seed) % 0x18));
		p.psn = (cxfw_qp_find(t->dev, qpn[k])->resp->epsn + rnd(&seed) % 5 - 2) & 0xffffff;
		p.ackreq = rnd(&seed) & 1;
		p.se = rnd(&seed) & 1;
		p.paylen = rnd(&seed) % 5 == 0 ? rnd(&seed) % sizeof(payload) :
			   (rnd(&seed) & 1) ? 256 : rnd(&seed) % 300;
		p.payload = payload;
		p.reth_va = (rnd(&seed) & 1) ? e.data + rnd(&seed) % (RQ_MR_LEN + 64) :
			    (uint64_t)rnd(&seed) << 20 | rnd(&seed);
		p.reth_rkey = (rnd(&seed) & 3) ? e.lkey : rnd(&seed);
		p.reth_len = (rnd(&seed) & 1) ? rnd(&seed) % 2048 : rnd(&seed);
		p.atomic_va = e.data + rnd(&seed) % (RQ_MR_LEN + 16);
		p.atomic_rkey = (rnd(&seed) & 3) ? e.lkey : rnd(&seed);
		p.atomic_swap_add = rnd(&seed);
		p.ieth_rkey = rnd(&seed);
		p.deth_qkey = (rnd(&seed) & 1) ? 0x11 : rnd(&seed);
		p.deth_sqpn = rnd(&seed) & 0xffffff;
		p.grh = rnd(&seed) & 1;
		t->fk.wr_hi = e.data + RQ_MR_LEN;
		rx(t, qpn[k], &p);
		if (r % 7 == 0)
			cxfw_process(t->dev);
		t->fk.wr_hi = 0;	/* commands write their mailboxes */
		/* the consumer keeps up, so the CQ never overruns */
		st = stats(t);
		put_be32(ci, (uint32_t)st.cqes_written & 0xffffff);
		fake_mem_write(&t->fk, t->fk.base + DRV_DBR_OFF, ci, sizeof(ci));
		if (qp_state(t, qpn[k]) == CXIB_QPC_STATE_ERR)
			CHECK_EQ(revive(t, qpn[k], &cfg[k]), 0);
	}
	cxfw_process(t->dev);
	st = stats(t);
	CHECK_EQ(t->fk.wr_violations, 0);
	CHECK_EQ(st.cq_overruns, 0);
	/* the run reached the interesting paths */
	CHECK(st.recv_wqes > 0);
	CHECK(st.acks_sent > 0);
	CHECK(st.naks_sent > 0);
	CHECK(st.remote_access_errors > 0);
	CHECK(st.duplicate_requests > 0);
	CHECK(st.local_errors > 0);
}

TEST(rc_read_responses_are_paced_and_bounded_by_rra)
{
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;
	uint32_t qpn;

	CHECK_EQ(setup(t, &e), 0);
	c.rra = 0;			/* one READ/atomic resource */
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	/* 100 packets at MTU 256: part now, the rest from the worker's next pass */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 0, NULL, 0, true);
	p.reth_va = e.data;
	p.reth_rkey = e.lkey;
	p.reth_len = 100 * 256;
	rx(t, qpn, &p);
	CHECK(stats(t).dma_read_bytes < 100 * 256);
	CHECK(stats(t).dma_read_bytes > 0);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).dma_read_bytes, 100 * 256);
	CHECK_EQ(cxfw_qp_find(t->dev, qpn)->resp->epsn, 100);
	/* the resource is free again: a second READ is served */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 100, NULL, 0, true);
	p.reth_va = e.data;
	p.reth_rkey = e.lkey;
	p.reth_len = 100 * 256;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).naks_sent, 0);
	/* while it still streams, another READ exceeds log_rra_max: invalid request */
	send_pkt(&p, CXIB_BTH_OP_RC_RDMA_READ_REQUEST, 200, NULL, 0, true);
	p.reth_va = e.data;
	p.reth_rkey = e.lkey;
	p.reth_len = 8;
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).naks_sent, 1);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	/* ERR stops the stream */
	cxfw_process(t->dev);
	CHECK(stats(t).dma_read_bytes < 200 * 256);
}

TEST(rc_receive_cq_overrun_moves_the_qp_to_err_without_nak)
{
	uint8_t msg[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t addr;
	uint32_t len = 64, qpn, i;
	struct qp_cfg c = rc_cfg();
	struct cxfw_pkt p;
	struct rq_env e;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(make_qp(t, &e, &c, &qpn), 0);
	addr = e.data;
	for (i = 0; i < 16; i++)
		post_rq(t, &e, (uint16_t)i, 1, &addr, &len, 0);
	rq_doorbell(t, 40);		/* the ring wraps: each WQE is posted again */
	for (i = 0; i < 32; i++) {	/* the CQ holds 32 and the consumer never moves */
		send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, i, msg, sizeof(msg), true);
		rx(t, qpn, &p);
	}
	CHECK_EQ(stats(t).cqes_written, 32);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_RTR);
	send_pkt(&p, CXIB_BTH_OP_RC_SEND_ONLY, 32, msg, sizeof(msg), true);
	rx(t, qpn, &p);
	CHECK_EQ(stats(t).cq_overruns, 1);
	CHECK_EQ(qp_state(t, qpn), CXIB_QPC_STATE_ERR);
	CHECK_EQ(stats(t).naks_sent, 0);
	CHECK_EQ(stats(t).acks_sent, 32);
}
