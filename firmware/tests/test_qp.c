// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Queue pairs, resource side: CREATE/QUERY/DESTROY_QP, the state machine and its checks,
 * references on PD and CQs (the PRM's QP commands); SRQs, XRC SRQs and RMPs.  No data path
 * yet.
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"

#define QP_BUF_OFF	0x20000		/* inside DRV_CQ_OFF's area, after the CQ ring */

struct qp_env {
	uint32_t uar, eqn, pd, cqn;
};

static unsigned int create_cq(struct test_ctx *t, struct qp_env *e, unsigned int k,
			      uint32_t *cqn)
{
	uint8_t in[CXIB_CREATE_CQ_IN_LEN(1)] = { 0 };
	__be32 *cqc = (__be32 *)(in + CXIB_CREATE_CQ_IN_CQC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_CQ, 0);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, 4);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, e->uar);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, e->eqn);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, t->fk.base + DRV_DBR_OFF + 64 * k);
	CXIB_SET64(in + CXIB_CREATE_CQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA,
		   t->fk.base + DRV_CQ_OFF + 0x1000 * k);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		*cqn = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
	return st;
}

static unsigned int setup(struct test_ctx *t, struct qp_env *e)
{
	unsigned int st = drv_bringup(t);

	if (!st)
		st = drv_alloc_uar(t, &e->uar);
	if (!st)
		st = drv_create_eq(t, drv_eq_buffer(t, 0, 6), 6, e->uar, 0, 0, &e->eqn);
	if (!st)
		st = drv_alloc_pd(t, &e->pd);
	if (!st)
		st = create_cq(t, e, 0, &e->cqn);
	return st;
}

struct qp_args {
	uint32_t st, pd, uar, cqn_snd, cqn_rcv, rq_type;
	unsigned int log_rq, rq_stride, log_sq;
	bool no_sq;
	uint64_t dbr;
};

static struct qp_args qp_defaults(struct test_ctx *t, const struct qp_env *e, uint32_t st)
{
	struct qp_args a = { 0 };

	a.st = st;
	a.pd = e->pd;
	a.uar = e->uar;
	a.cqn_snd = a.cqn_rcv = e->cqn;
	a.rq_type = CXIB_QPC_RQ_TYPE_REGULAR;
	a.log_rq = 4;
	a.rq_stride = 2;		/* 64-byte receive WQEs: 1 KiB RQ */
	a.log_sq = 6;			/* 4 KiB SQ */
	a.dbr = t->fk.base + DRV_DBR_OFF + 0x800;
	return a;
}

static unsigned int create_qp(struct test_ctx *t, const struct qp_args *a, uint32_t *qpn)
{
	uint8_t in[CXIB_CREATE_QP_IN_LEN(2)] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_CREATE_QP_IN_QPC_OFFSET), out[4];
	unsigned int st, i;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_QP, 0);
	CXIB_SET(qpc, CXIB_QPC_ST, a->st);
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	CXIB_SET(qpc, CXIB_QPC_PD, a->pd);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_SIZE, a->log_rq);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_STRIDE, a->rq_stride);
	CXIB_SET(qpc, CXIB_QPC_NO_SQ, a->no_sq);
	CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, a->log_sq);
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, a->uar);
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, a->cqn_snd);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, a->cqn_rcv);
	CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, a->rq_type);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, a->dbr);
	for (i = 0; i < 2; i++)
		CXIB_SET64(in + CXIB_CREATE_QP_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   t->fk.base + DRV_CQ_OFF + QP_BUF_OFF + 0x1000 * i);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st && qpn)
		*qpn = CXIB_GET(out, CXIB_CREATE_QP_OUT_QPN);
	return st;
}

struct qp_mod {
	uint32_t mask;
	unsigned int port, pkey_index, mtu, rlid, sl, sra, rra;
	uint32_t qkey, sq_psn, rq_psn, remote_qpn;
	bool rre, rwe;
};

static unsigned int modify_qp(struct test_ctx *t, uint16_t op, uint32_t qpn,
			      const struct qp_mod *m)
{
	uint8_t in[CXIB_QP_MODIFY_IN_LEN] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_QP_MODIFY_IN_QPC_OFFSET), out[4];
	__be32 *pp = qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;

	cmd_hdr(in, op, 0);
	CXIB_SET(in, CXIB_QP_MODIFY_IN_QPN, qpn);
	if (op == CXIB_CMD_OP_2ERR_QP || op == CXIB_CMD_OP_2RST_QP)
		return drv_run(t, in, 16, out, sizeof(out));
	CXIB_SET(in, CXIB_QP_MODIFY_IN_OPT_PARAM_MASK, m->mask);
	CXIB_SET(pp, CXIB_ADS_VHCA_PORT_NUM, m->port);
	CXIB_SET(pp, CXIB_ADS_PKEY_INDEX, m->pkey_index);
	CXIB_SET(pp, CXIB_ADS_RLID, m->rlid);
	CXIB_SET(pp, CXIB_ADS_SL, m->sl);
	CXIB_SET(qpc, CXIB_QPC_MTU, m->mtu);
	CXIB_SET(qpc, CXIB_QPC_Q_KEY, m->qkey);
	CXIB_SET(qpc, CXIB_QPC_NEXT_SEND_PSN, m->sq_psn);
	CXIB_SET(qpc, CXIB_QPC_NEXT_RCV_PSN, m->rq_psn);
	CXIB_SET(qpc, CXIB_QPC_REMOTE_QPN, m->remote_qpn);
	CXIB_SET(qpc, CXIB_QPC_RRE, m->rre);
	CXIB_SET(qpc, CXIB_QPC_RWE, m->rwe);
	CXIB_SET(qpc, CXIB_QPC_LOG_SRA_MAX, m->sra);
	CXIB_SET(qpc, CXIB_QPC_LOG_RRA_MAX, m->rra);
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

static unsigned int query_qp(struct test_ctx *t, uint32_t qpn, uint8_t *out)
{
	return cmd_simple(t, CXIB_CMD_OP_QUERY_QP, 0, qpn, 0, out, CXIB_QUERY_QP_OUT_LEN);
}

static unsigned int destroy_qp(struct test_ctx *t, uint32_t qpn)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_DESTROY_QP, 0, qpn, 0, out, 16);
}

TEST(qp_ud_walks_rst_init_rtr_rts_and_back)
{
	uint8_t out[CXIB_QUERY_QP_OUT_LEN];
	const __be32 *qpc = (const __be32 *)(out + CXIB_QUERY_QP_OUT_QPC_OFFSET);
	const __be32 *pp = qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;
	struct qp_mod m = { 0 };
	struct qp_env e;
	struct qp_args a;
	uint32_t qpn;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_UD);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	CHECK(qpn >= 2);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_STATE), CXIB_QPC_STATE_RST);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_ST), CXIB_QPC_ST_UD);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_CQN_SND), e.cqn);
	m.port = 1;
	m.pkey_index = 0;
	m.qkey = 0x11111111;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), 0);
	m.mtu = CXIB_QPC_MTU_4096;
	m.qkey = 0x22222222;		/* not taken without the mask bit */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), 0);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_Q_KEY), 0x11111111);
	m.mask = CXIB_QP_OPTPAR_Q_KEY;
	m.sq_psn = 0x123456;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTR2RTS_QP, qpn, &m), 0);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_STATE), CXIB_QPC_STATE_RTS);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_Q_KEY), 0x22222222);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_NEXT_SEND_PSN), 0x123456);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_MTU), CXIB_QPC_MTU_4096);
	CHECK_EQ(CXIB_GET(pp, CXIB_ADS_VHCA_PORT_NUM), 1);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTS2RTS_QP, qpn, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_STATE), CXIB_QPC_STATE_ERR);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTS2RTS_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2RST_QP, qpn, NULL), 0);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_STATE), CXIB_QPC_STATE_RST);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), 0);
	CHECK_EQ(destroy_qp(t, qpn), 0);
	CHECK_EQ(destroy_qp(t, qpn), CXIB_CMD_STAT_BAD_RES);		/* double destroy */
	CHECK_EQ(query_qp(t, qpn, out), CXIB_CMD_STAT_BAD_RES);
}

TEST(qp_rc_rtr_takes_the_path_and_psns)
{
	uint8_t out[CXIB_QUERY_QP_OUT_LEN];
	const __be32 *qpc = (const __be32 *)(out + CXIB_QUERY_QP_OUT_QPC_OFFSET);
	const __be32 *pp = qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;
	struct qp_mod m = { 0 };
	struct qp_env e;
	struct qp_args a;
	uint32_t qpn;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	m.port = 1;
	m.rre = m.rwe = true;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), 0);
	m.mtu = CXIB_QPC_MTU_2048;
	m.rlid = 0x17;
	m.sl = 3;
	m.remote_qpn = 0xabc;
	m.rq_psn = 0x777;
	m.rra = 5;			/* above log_max_ra_res_qp 4 */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), CXIB_CMD_STAT_BAD_PARAM);
	m.rra = 2;
	m.mtu = 6;			/* not an IB MTU */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), CXIB_CMD_STAT_BAD_PARAM);
	m.mtu = CXIB_QPC_MTU_2048;
	m.port = 2;			/* the path's port must exist */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), CXIB_CMD_STAT_BAD_PARAM);
	m.port = 1;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), 0);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_STATE), CXIB_QPC_STATE_RTR);
	CHECK_EQ(CXIB_GET(pp, CXIB_ADS_RLID), 0x17);
	CHECK_EQ(CXIB_GET(pp, CXIB_ADS_SL), 3);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_REMOTE_QPN), 0xabc);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_NEXT_RCV_PSN), 0x777);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_RRE), 1);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_LOG_RRA_MAX), 2);
	/* RTR -> RTR is no transition; RTR2RTS is */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_SQERR2RTS_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	m.sra = 3;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTR2RTS_QP, qpn, &m), 0);
	CHECK_EQ(query_qp(t, qpn, out), 0);
	CHECK_EQ(CXIB_GET(qpc, CXIB_QPC_LOG_SRA_MAX), 3);
}

TEST(qp_state_machine_rejects_skipped_states)
{
	struct qp_mod m = { 0 };
	struct qp_env e;
	struct qp_args a;
	uint32_t qpn;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_UD);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	m.port = 1;
	m.mtu = CXIB_QPC_MTU_256;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTR2RTS_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2INIT_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	/* a bad port or P_Key index in RST2INIT leaves the QP in RST */
	m.port = 0;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), CXIB_CMD_STAT_BAD_PARAM);
	m.port = 1;
	m.pkey_index = CXFW_PKEY_TABLE_LEN;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), CXIB_CMD_STAT_BAD_PARAM);
	m.pkey_index = 0;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), CXIB_CMD_STAT_BAD_QP_STATE);
	/* INIT2INIT takes optional attributes only */
	m.mask = CXIB_QP_OPTPAR_PKEY_INDEX;
	m.pkey_index = 3;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2INIT_QP, qpn, &m), 0);
	/* 2ERR works from any state, even RST */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	/* unknown QPs */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, 1, NULL), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn + 1, NULL), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, 0xffffff, NULL), CXIB_CMD_STAT_BAD_INDEX);
}

TEST(qp_create_rejects_bad_input)
{
	struct qp_env e;
	struct qp_args a, b;
	uint32_t qpn;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	b = a;				/* wrong PD */
	b.pd = e.pd + 1;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_RES);
	b = a;				/* no such CQ */
	b.cqn_rcv = e.cqn + 1;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_RES);
	b = a;
	b.cqn_snd = 0;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_RES);
	b = a;				/* UAR not allocated */
	b.uar = e.uar + 1;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_RES);
	b = a;				/* 1 KiB receive WQEs: beyond max_wqe_sz_rq */
	b.rq_stride = 6;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;				/* DC, raw Ethernet: not modelled */
	b.st = CXIB_QPC_ST_DCI;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;				/* no such SRQ */
	b.rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_RES);
	b = a;				/* doorbell record */
	b.dbr += 4;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;				/* buffer of 3 pages, 2 given: short input */
	b.log_sq = 7;
	b.log_rq = 5;
	CHECK_EQ(create_qp(t, &b, &qpn), CXIB_CMD_STAT_BAD_INPUT_LEN);
	/* a QP without RQ and SQ needs no buffer */
	b = a;
	b.rq_type = CXIB_QPC_RQ_TYPE_ZERO_SIZE_RQ;
	b.no_sq = true;
	b.cqn_snd = b.cqn_rcv = 0;
	CHECK_EQ(create_qp(t, &b, &qpn), 0);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
}

TEST(qp_holds_its_pd_and_cqs)
{
	struct qp_env e;
	struct qp_args a;
	uint32_t qpn, cqn2;
	__be32 out[4];

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(create_cq(t, &e, 1, &cqn2), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	a.cqn_rcv = cqn2;
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, cqn2, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(drv_dealloc_pd(t, e.pd), CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(destroy_qp(t, qpn), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, cqn2, 0, out, 16), 0);
	CHECK_EQ(drv_dealloc_pd(t, e.pd), 0);
}

/* QPNs rotate: one destroyed a moment ago is not handed out again at once (IB CM timewait). */
TEST(qp_numbers_are_not_reused_at_once)
{
	struct qp_env e;
	struct qp_args a;
	uint32_t q1, q2, q3;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	CHECK_EQ(create_qp(t, &a, &q1), 0);
	CHECK_EQ(destroy_qp(t, q1), 0);
	CHECK_EQ(create_qp(t, &a, &q2), 0);
	CHECK(q2 != q1);
	CHECK(q2 > q1);
	CHECK_EQ(destroy_qp(t, q2), 0);
	CHECK_EQ(create_qp(t, &a, &q3), 0);
	CHECK(q3 > q2);
	CHECK_EQ(destroy_qp(t, q3), 0);
}

TEST(special_qps_and_umr_qp_are_created)
{
	struct qp_mod m = { 0 };
	struct qp_env e;
	struct qp_args a;
	uint32_t qp0, qp1, umr;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_QP0);
	CHECK_EQ(create_qp(t, &a, &qp0), 0);
	a.st = CXIB_QPC_ST_QP1;
	CHECK_EQ(create_qp(t, &a, &qp1), 0);
	a.st = CXIB_QPC_ST_REG_UMR;
	CHECK_EQ(create_qp(t, &a, &umr), 0);
	CHECK(qp0 != qp1 && qp1 != umr);
	m.port = 1;
	/* the UMR QP sends no packets: it reaches RTS with a port and nothing else */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, umr, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, umr, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTR2RTS_QP, umr, &m), 0);
	/* QP1 needs an MTU for RTR */
	m.qkey = 0x80010000;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qp1, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qp1, &m), CXIB_CMD_STAT_BAD_PARAM);
	m.mtu = CXIB_QPC_MTU_256;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_INIT2RTR_QP, qp1, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RTR2RTS_QP, qp1, &m), 0);
}

/* ---- SRQ (ISSI 0 commands) ---- */

static unsigned int create_srq(struct test_ctx *t, const struct qp_env *e, uint32_t pd,
			       unsigned int log_size, unsigned int stride, uint32_t *srqn)
{
	uint8_t in[CXIB_CREATE_SRQ_IN_LEN(1)] = { 0 };
	__be32 *srqc = (__be32 *)(in + CXIB_CREATE_SRQ_IN_SRQC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_SRQ, 0);
	CXIB_SET(srqc, CXIB_SRQC_LOG_SRQ_SIZE, log_size);
	CXIB_SET(srqc, CXIB_SRQC_LOG_RQ_STRIDE, stride);
	CXIB_SET(srqc, CXIB_SRQC_PD, pd);
	CXIB_SET(srqc, CXIB_SRQC_CQN, e->cqn);
	CXIB_SET64(srqc, CXIB_SRQC_DBR_ADDR, t->fk.base + DRV_DBR_OFF + 0xc00);
	CXIB_SET64(in + CXIB_CREATE_SRQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA,
		   t->fk.base + DRV_CQ_OFF + 0x40000);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		*srqn = CXIB_GET(out, CXIB_CREATE_SRQ_OUT_SRQN);
	return st;
}

TEST(srq_create_query_arm_destroy)
{
	uint8_t out[CXIB_QUERY_SRQ_OUT_LEN];
	const __be32 *srqc = (const __be32 *)(out + CXIB_QUERY_SRQ_OUT_SRQC_OFFSET);
	struct qp_env e;
	uint32_t srqn;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(create_srq(t, &e, e.pd, 6, 2, &srqn), 0);	/* 64 x 64 B = 1 page */
	CHECK(srqn != 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ, srqn, 16, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_SRQ, 0, srqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(srqc, CXIB_SRQC_STATE), CXIB_SRQC_STATE_GOOD);
	CHECK_EQ(CXIB_GET(srqc, CXIB_SRQC_LOG_SRQ_SIZE), 6);
	CHECK_EQ(CXIB_GET(srqc, CXIB_SRQC_PD), e.pd);
	CHECK_EQ(CXIB_GET(srqc, CXIB_SRQC_LWM), 16);
	/* lwm beyond the SRQ, ARM_RQ on an RQ object, unknown SRQ */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ, srqn, 64, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_RQ, srqn, 1, out, 16),
		 CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ, srqn + 1, 1, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	/* the SRQ holds its PD and CQ */
	CHECK_EQ(drv_dealloc_pd(t, e.pd), CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16), 0);
	CHECK_EQ(drv_dealloc_pd(t, e.pd), 0);
}

TEST(srq_create_rejects_bad_input_and_qp_holds_it)
{
	struct qp_env e;
	struct qp_args a;
	uint32_t srqn, qpn;
	__be32 out[4];

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(create_srq(t, &e, e.pd + 1, 6, 2, &srqn), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(create_srq(t, &e, e.pd, 6, 6, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(create_srq(t, &e, e.pd, 8, 2, &srqn), CXIB_CMD_STAT_BAD_INPUT_LEN);
	CHECK_EQ(create_srq(t, &e, e.pd, 6, 2, &srqn), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	a.rq_type = CXIB_QPC_RQ_TYPE_SRQ;
	a.log_rq = 0;
	a.rq_stride = 0;
	{
		uint8_t qin[CXIB_CREATE_QP_IN_LEN(1)] = { 0 };
		__be32 *qpc = (__be32 *)(qin + CXIB_CREATE_QP_IN_QPC_OFFSET);

		cmd_hdr(qin, CXIB_CMD_OP_CREATE_QP, 0);
		CXIB_SET(qpc, CXIB_QPC_ST, a.st);
		CXIB_SET(qpc, CXIB_QPC_PD, a.pd);
		CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, a.log_sq);
		CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, a.uar);
		CXIB_SET(qpc, CXIB_QPC_CQN_SND, a.cqn_snd);
		CXIB_SET(qpc, CXIB_QPC_CQN_RCV, a.cqn_rcv);
		CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, CXIB_QPC_RQ_TYPE_SRQ);
		CXIB_SET(qpc, CXIB_QPC_SRQN_RMPN_XRQN, srqn + 1);
		CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, a.dbr);
		CXIB_SET64(qin + CXIB_CREATE_QP_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA,
			   t->fk.base + DRV_CQ_OFF + QP_BUF_OFF);
		CHECK_EQ(drv_run(t, qin, sizeof(qin), out, sizeof(out)), CXIB_CMD_STAT_BAD_RES);
		CXIB_SET(qpc, CXIB_QPC_SRQN_RMPN_XRQN, srqn);
		CHECK_EQ(drv_run(t, qin, sizeof(qin), out, sizeof(out)), 0);
		qpn = CXIB_GET(out, CXIB_CREATE_QP_OUT_QPN);
	}
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(destroy_qp(t, qpn), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), 0);
}

/* ---- XRC SRQs and RMPs (ISSI 1 commands), one SRQN space with CREATE_SRQ ---- */

#define SRQ_BUF		(DRV_CQ_OFF + 0x40000)
#define SRQ_DBR		(DRV_DBR_OFF + 0xc00)

/* What CREATE_XRC_SRQ / CREATE_RMP get; the defaults make a 64 x 64 B = 1 page queue. */
struct xsrq_args {
	uint32_t state, pd, cqn, xrcd, user_index, lwm, wq_type;
	unsigned int log_size, log_stride;	/* log2 of WQEs and of WQE bytes */
	unsigned int npas;			/* PAS entries in the input */
	uint64_t dbr;
	bool sig, umem, uidx_is_srqn;
};

static unsigned int alloc_xrcd(struct test_ctx *t, uint32_t *xrcd)
{
	__be32 out[4];
	unsigned int st = cmd_simple(t, CXIB_CMD_OP_ALLOC_XRCD, 0, 0, 0, out, sizeof(out));

	if (!st)
		*xrcd = CXIB_GET(out, CXIB_ALLOC_XRCD_OUT_XRCD);
	return st;
}

static struct xsrq_args xsrq_defaults(struct test_ctx *t, const struct qp_env *e, uint32_t xrcd)
{
	struct xsrq_args a = { 0 };

	a.pd = e->pd;
	a.cqn = e->cqn;
	a.xrcd = xrcd;
	a.log_size = 6;
	a.log_stride = 6;
	a.npas = 1;
	a.dbr = t->fk.base + SRQ_DBR;
	return a;
}

static unsigned int create_xrc_srq(struct test_ctx *t, const struct xsrq_args *a, uint32_t *srqn)
{
	uint8_t in[CXIB_CREATE_XRC_SRQ_IN_LEN(1)] = { 0 };
	__be32 *xc = (__be32 *)(in + CXIB_CREATE_XRC_SRQ_IN_XRC_SRQC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_XRC_SRQ, 0);
	CXIB_SET(xc, CXIB_XRC_SRQC_STATE, a->state);
	CXIB_SET(xc, CXIB_XRC_SRQC_LOG_XRC_SRQ_SIZE, a->log_size);
	CXIB_SET(xc, CXIB_XRC_SRQC_WQ_SIGNATURE, a->sig);
	CXIB_SET(xc, CXIB_XRC_SRQC_LOG_RQ_STRIDE, a->log_stride - CXIB_SRQC_LOG_RQ_STRIDE_BASE);
	CXIB_SET(xc, CXIB_XRC_SRQC_XRCD, a->xrcd);
	CXIB_SET(xc, CXIB_XRC_SRQC_CQN, a->cqn);
	CXIB_SET(xc, CXIB_XRC_SRQC_USER_INDEX_EQUAL_XRC_SRQN, a->uidx_is_srqn);
	CXIB_SET(xc, CXIB_XRC_SRQC_USER_INDEX, a->user_index);
	CXIB_SET(xc, CXIB_XRC_SRQC_PD, a->pd);
	CXIB_SET(xc, CXIB_XRC_SRQC_LWM, a->lwm);
	CXIB_SET64(xc, CXIB_XRC_SRQC_DB_RECORD_ADDR, a->dbr);
	CXIB_SET(in, CXIB_CREATE_XRC_SRQ_IN_XRC_SRQ_UMEM_VALID, a->umem);
	CXIB_SET64(in + CXIB_CREATE_XRC_SRQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + SRQ_BUF);
	st = drv_run(t, in, CXIB_CREATE_XRC_SRQ_IN_LEN(a->npas), out, sizeof(out));
	if (!st)
		*srqn = CXIB_GET(out, CXIB_CREATE_XRC_SRQ_OUT_XRC_SRQN);
	return st;
}

static struct xsrq_args rmp_defaults(struct test_ctx *t, const struct qp_env *e)
{
	struct xsrq_args a = xsrq_defaults(t, e, 0);

	a.state = CXIB_RMPC_STATE_RDY;
	a.cqn = 0;
	return a;
}

static unsigned int create_rmp(struct test_ctx *t, const struct xsrq_args *a, uint32_t *rmpn)
{
	uint8_t in[CXIB_CREATE_RMP_IN_LEN(1)] = { 0 };
	struct cxib_rmpc *rmpc = (void *)(in + CXIB_CREATE_RMP_IN_RMPC_OFFSET);
	struct cxib_wqc *wq = cxib_rmpc_wq(rmpc);
	__be32 out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_RMP, 0);
	CXIB_SET(rmpc, CXIB_RMPC_STATE, a->state);
	CXIB_SET(wq, CXIB_WQC_WQ_TYPE, a->wq_type);
	CXIB_SET(wq, CXIB_WQC_WQ_SIGNATURE, a->sig);
	CXIB_SET(wq, CXIB_WQC_WQ_UMEM_VALID, a->umem);
	CXIB_SET(wq, CXIB_WQC_LWM, a->lwm);
	CXIB_SET(wq, CXIB_WQC_PD, a->pd);
	CXIB_SET64(wq, CXIB_WQC_DBR_ADDR, a->dbr);
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_STRIDE, a->log_stride);
	CXIB_SET(wq, CXIB_WQC_LOG_WQ_SZ, a->log_size);
	CXIB_SET64(in + CXIB_CREATE_RMP_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + SRQ_BUF);
	st = drv_run(t, in, CXIB_CREATE_RMP_IN_LEN(a->npas), out, sizeof(out));
	if (!st)
		*rmpn = CXIB_GET(out, CXIB_CREATE_RMP_OUT_RMPN);
	return st;
}

/* MODIFY_RMP as mlx5_ib's arm_rmp_cmd() builds it, with the states and bitmask given. */
static unsigned int modify_rmp(struct test_ctx *t, uint32_t rmpn, uint32_t cur, uint32_t next,
			       uint64_t bitmask, uint32_t lwm)
{
	uint8_t in[CXIB_MODIFY_RMP_IN_LEN] = { 0 };
	struct cxib_rmpc *rmpc = (void *)(in + CXIB_MODIFY_RMP_IN_RMPC_OFFSET);
	__be32 out[4];

	cmd_hdr(in, CXIB_CMD_OP_MODIFY_RMP, 0);
	CXIB_SET(in, CXIB_MODIFY_RMP_IN_RMP_STATE, cur);
	CXIB_SET(in, CXIB_MODIFY_RMP_IN_RMPN, rmpn);
	CXIB_SET64(in, CXIB_MODIFY_RMP_IN_BITMASK, bitmask);
	CXIB_SET(rmpc, CXIB_RMPC_STATE, next);
	CXIB_SET(cxib_rmpc_wq(rmpc), CXIB_WQC_LWM, lwm);
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

/* An RC QP without a receive queue of its own: rq_type SRQ on @srqn. */
static unsigned int create_srq_qp(struct test_ctx *t, const struct qp_env *e, uint32_t srqn,
				  uint32_t *qpn)
{
	struct qp_args a = qp_defaults(t, e, CXIB_QPC_ST_RC);
	uint8_t in[CXIB_CREATE_QP_IN_LEN(1)] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_CREATE_QP_IN_QPC_OFFSET), out[4];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_QP, 0);
	CXIB_SET(qpc, CXIB_QPC_ST, a.st);
	CXIB_SET(qpc, CXIB_QPC_PD, a.pd);
	CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, a.log_sq);
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, a.uar);
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, a.cqn_snd);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, a.cqn_rcv);
	CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, CXIB_QPC_RQ_TYPE_SRQ);
	CXIB_SET(qpc, CXIB_QPC_SRQN_RMPN_XRQN, srqn);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, a.dbr);
	CXIB_SET64(in + CXIB_CREATE_QP_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA,
		   t->fk.base + DRV_CQ_OFF + QP_BUF_OFF);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		*qpn = CXIB_GET(out, CXIB_CREATE_QP_OUT_QPN);
	return st;
}

TEST(xrc_srq_create_query_arm_destroy)
{
	uint8_t out[CXIB_QUERY_XRC_SRQ_OUT_LEN];
	const __be32 *xc = (const __be32 *)(out + CXIB_QUERY_XRC_SRQ_OUT_XRC_SRQC_OFFSET);
	struct xsrq_args a;
	struct qp_env e;
	uint32_t xrcd, srqn, srqn2;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(alloc_xrcd(t, &xrcd), 0);
	a = xsrq_defaults(t, &e, xrcd);
	a.user_index = 0x1234;
	a.lwm = 5;
	CHECK_EQ(create_xrc_srq(t, &a, &srqn), 0);
	CHECK(srqn != 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_XRC_SRQ, 0, srqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_STATE), CXIB_SRQC_STATE_GOOD);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_LOG_XRC_SRQ_SIZE), 6);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_LOG_RQ_STRIDE), 2);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_XRCD), xrcd);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_CQN), e.cqn);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_PD), e.pd);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_USER_INDEX), 0x1234);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_LWM), 5);
	CHECK_EQ(CXIB_GET64(xc, CXIB_XRC_SRQC_DB_RECORD_ADDR), t->fk.base + SRQ_DBR);
	/* ARM_XRC_SRQ op_mod 1 sets the watermark */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, srqn, 16,
			    out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_XRC_SRQ, 0, srqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_LWM), 16);
	/* lwm beyond the SRQ, reserved dw3 bits, op_mod 0, unknown number */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, srqn, 64,
			    out, 16), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, srqn,
			    1u << 16, out, 16), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, 0, srqn, 1, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, srqn + 1,
			    1, out, 16), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_XRC_SRQ, 0, srqn | 1u << 24, 0, out,
			    sizeof(out)), CXIB_CMD_STAT_BAD_PARAM);
	/* user_index_equal_xrc_srqn: the number is the user index */
	a.uidx_is_srqn = true;
	CHECK_EQ(create_xrc_srq(t, &a, &srqn2), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_XRC_SRQ, 0, srqn2, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(xc, CXIB_XRC_SRQC_USER_INDEX), srqn2);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn2, 0, out, 16), 0);
	/* the XRC SRQ holds its PD and CQ */
	CHECK_EQ(drv_dealloc_pd(t, e.pd), CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_XRC_SRQ, 0, srqn, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, CXFW_MAX_SRQS, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, e.cqn, 0, out, 16), 0);
	CHECK_EQ(drv_dealloc_pd(t, e.pd), 0);
}

TEST(xrc_srq_create_rejects_bad_input)
{
	struct xsrq_args a, b;
	struct qp_env e;
	uint32_t xrcd, srqn;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(alloc_xrcd(t, &xrcd), 0);
	a = xsrq_defaults(t, &e, xrcd);
	/* resources: PD, CQ (required), XRCD (allocated) */
	b = a;
	b.pd = e.pd + 1;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_RES);
	b = a;
	b.cqn = 0;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_RES);
	b.cqn = e.cqn + 1;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_RES);
	b = a;
	b.xrcd = 0;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_RES);
	b.xrcd = xrcd + 1;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_RES);
	/* state, features the model lacks, geometry, doorbell record */
	b = a;
	b.state = CXIB_SRQC_STATE_ERROR;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.sig = true;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.umem = true;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.log_stride = 10;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.lwm = 64;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.dbr = 0;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	b.dbr = a.dbr + 2;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_PARAM);
	/* a PAS list shorter than the queue */
	b = a;
	b.npas = 0;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_INPUT_LEN);
	b.log_size = 7;
	b.npas = 1;
	CHECK_EQ(create_xrc_srq(t, &b, &srqn), CXIB_CMD_STAT_BAD_INPUT_LEN);
	/* nothing was created on the way */
	CHECK_EQ(create_xrc_srq(t, &a, &srqn), 0);
	CHECK_EQ(srqn, 1);
	/* a QP on it holds it */
	{
		uint32_t qpn;
		__be32 out[4];

		CHECK_EQ(create_srq_qp(t, &e, srqn, &qpn), 0);
		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16),
			 CXIB_CMD_STAT_RES_BUSY);
		CHECK_EQ(destroy_qp(t, qpn), 0);
		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16), 0);
	}
}

TEST(rmp_create_query_modify_destroy)
{
	uint8_t out[CXIB_QUERY_RMP_OUT_LEN];
	const __be32 *rmpc = (const __be32 *)(out + CXIB_QUERY_RMP_OUT_RMPC_OFFSET);
	const __be32 *wq = rmpc + CXIB_RMPC_WQ_OFFSET / 4;
	const uint32_t rdy = CXIB_RMPC_STATE_RDY, err = CXIB_RMPC_STATE_ERR;
	struct xsrq_args a;
	struct qp_env e;
	uint32_t rmpn;

	CHECK_EQ(setup(t, &e), 0);
	a = rmp_defaults(t, &e);
	CHECK_EQ(create_rmp(t, &a, &rmpn), 0);
	CHECK(rmpn != 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(rmpc, CXIB_RMPC_STATE), rdy);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_WQ_TYPE), CXIB_WQ_TYPE_LINKED_LIST);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_PD), e.pd);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_LOG_WQ_STRIDE), 6);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_LOG_WQ_SZ), 6);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_LWM), 0);
	CHECK_EQ(CXIB_GET64(wq, CXIB_WQC_DBR_ADDR), t->fk.base + SRQ_DBR);
	/* arm as mlx5_ib does: RDY -> RDY with the lwm bit */
	CHECK_EQ(modify_rmp(t, rmpn, rdy, rdy, CXIB_RMP_BITMASK_LWM, 8), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_LWM), 8);
	/* without the bit the wq's lwm is not taken */
	CHECK_EQ(modify_rmp(t, rmpn, rdy, rdy, 0, 3), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_LWM), 8);
	/* a wrong current state, an unknown bitmask bit, next state 0, lwm beyond the RMP */
	CHECK_EQ(modify_rmp(t, rmpn, err, rdy, CXIB_RMP_BITMASK_LWM, 1),
		 CXIB_CMD_STAT_BAD_RES_STATE);
	CHECK_EQ(modify_rmp(t, rmpn, rdy, rdy, CXIB_RMP_BITMASK_LWM << 1, 1),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(modify_rmp(t, rmpn, rdy, 0, CXIB_RMP_BITMASK_LWM, 1), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(modify_rmp(t, rmpn, rdy, rdy, CXIB_RMP_BITMASK_LWM, 64),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(modify_rmp(t, rmpn + 1, rdy, rdy, CXIB_RMP_BITMASK_LWM, 1),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(wq, CXIB_WQC_LWM), 8);
	/* RDY -> ERR; nothing but DESTROY leaves ERR */
	CHECK_EQ(modify_rmp(t, rmpn, rdy, err, 0, 0), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(rmpc, CXIB_RMPC_STATE), err);
	CHECK_EQ(modify_rmp(t, rmpn, rdy, rdy, CXIB_RMP_BITMASK_LWM, 1),
		 CXIB_CMD_STAT_BAD_RES_STATE);
	CHECK_EQ(modify_rmp(t, rmpn, err, rdy, 0, 0), CXIB_CMD_STAT_BAD_RES_STATE);
	CHECK_EQ(modify_rmp(t, rmpn, err, err, 0, 0), 0);
	/* the RMP holds its PD */
	CHECK_EQ(drv_dealloc_pd(t, e.pd), CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_RMP, 0, rmpn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_RMP, 0, rmpn, 0, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, rmpn, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_RMP, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(drv_dealloc_pd(t, e.pd), 0);
}

TEST(rmp_create_rejects_bad_input)
{
	struct xsrq_args a, b;
	struct qp_env e;
	uint32_t rmpn;
	uint8_t in[CXIB_CREATE_RMP_IN_LEN(1)] = { 0 };
	__be32 out[4];

	CHECK_EQ(setup(t, &e), 0);
	a = rmp_defaults(t, &e);
	b = a;
	b.state = CXIB_RMPC_STATE_ERR;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b.state = 0;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.wq_type = CXIB_WQ_TYPE_CYCLIC;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.sig = true;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.umem = true;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	/* log_wq_stride is absolute: 16 .. 512 bytes */
	b = a;
	b.log_stride = 3;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b.log_stride = 10;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.log_size = 16;		/* above log_max_srq_sz */
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.lwm = 64;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.pd = 0;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_RES);
	b = a;
	b.dbr = a.dbr + 1;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b.dbr = 0x7fff0000ull;		/* outside guest memory */
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.npas = 0;
	CHECK_EQ(create_rmp(t, &b, &rmpn), CXIB_CMD_STAT_BAD_INPUT_LEN);
	/* a wq feature the model lacks (striding RQ) */
	cmd_hdr(in, CXIB_CMD_OP_CREATE_RMP, 0);
	{
		__be32 *rmpc = (__be32 *)(in + CXIB_CREATE_RMP_IN_RMPC_OFFSET);
		__be32 *wq = rmpc + CXIB_RMPC_WQ_OFFSET / 4;

		CXIB_SET(rmpc, CXIB_RMPC_STATE, CXIB_RMPC_STATE_RDY);
		CXIB_SET(wq, CXIB_WQC_PD, e.pd);
		CXIB_SET64(wq, CXIB_WQC_DBR_ADDR, a.dbr);
		CXIB_SET(wq, CXIB_WQC_LOG_WQ_STRIDE, 6);
		CXIB_SET(wq, CXIB_WQC_LOG_WQ_SZ, 6);
		CXIB_SET64(in + CXIB_CREATE_RMP_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA,
			   t->fk.base + SRQ_BUF);
		CXIB_SET(wq, CXIB_WQC_LOG_WQE_NUM_OF_STRIDES, 1);
		CHECK_EQ(drv_run(t, in, sizeof(in), out, sizeof(out)), CXIB_CMD_STAT_BAD_PARAM);
		CXIB_SET(wq, CXIB_WQC_LOG_WQE_NUM_OF_STRIDES, 0);
		CXIB_SET(rmpc, CXIB_RMPC_BASIC_CYCLIC_RCV_WQE, 1);
		CHECK_EQ(drv_run(t, in, sizeof(in), out, sizeof(out)), CXIB_CMD_STAT_BAD_PARAM);
		CXIB_SET(rmpc, CXIB_RMPC_BASIC_CYCLIC_RCV_WQE, 0);
		CHECK_EQ(drv_run(t, in, sizeof(in), out, sizeof(out)), 0);
		rmpn = CXIB_GET(out, CXIB_CREATE_RMP_OUT_RMPN);
	}
	CHECK_EQ(rmpn, 1);
}

TEST(srq_kinds_share_one_number_space_and_keep_their_commands)
{
	uint8_t out[CXIB_QUERY_RMP_OUT_LEN];
	struct xsrq_args xa, ra;
	struct qp_env e;
	uint32_t xrcd, srqn, xsrqn, rmpn, qpn, n;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(alloc_xrcd(t, &xrcd), 0);
	xa = xsrq_defaults(t, &e, xrcd);
	ra = rmp_defaults(t, &e);
	CHECK_EQ(create_srq(t, &e, e.pd, 6, 2, &srqn), 0);
	CHECK_EQ(create_xrc_srq(t, &xa, &xsrqn), 0);
	CHECK_EQ(create_rmp(t, &ra, &rmpn), 0);
	CHECK_EQ(srqn, 1);
	CHECK_EQ(xsrqn, 2);
	CHECK_EQ(rmpn, 3);
	/* a command of one kind does not see an object of another */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, rmpn, 0, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_SRQ, 0, xsrqn, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ, rmpn, 1, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_RMP, 0, xsrqn, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(modify_rmp(t, srqn, CXIB_RMPC_STATE_RDY, CXIB_RMPC_STATE_RDY,
			    CXIB_RMP_BITMASK_LWM, 1), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, srqn, 0, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, rmpn, 1,
			    out, 16), CXIB_CMD_STAT_BAD_RES);
	/* a QP names an RMP through srqn_rmpn_xrqn and holds it */
	CHECK_EQ(create_srq_qp(t, &e, rmpn, &qpn), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_RMP, 0, rmpn, 0, out, 16),
		 CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(destroy_qp(t, qpn), 0);
	/* a freed number is taken again by any kind */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_XRC_SRQ, 0, xsrqn, 0, out, 16), 0);
	CHECK_EQ(create_rmp(t, &ra, &n), 0);
	CHECK_EQ(n, xsrqn);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_RMP, 0, n, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_RMP, 0, rmpn, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_SRQ, 0, srqn, 0, out, 16), 0);
}

/* ---- Multicast ---- */

static unsigned int mcg(struct test_ctx *t, uint16_t op, uint32_t qpn, uint8_t first,
			uint8_t last)
{
	uint8_t in[CXIB_ATTACH_TO_MCG_IN_LEN] = { 0 };
	__be32 out[4];

	cmd_hdr(in, op, 0);
	CXIB_SET(in, CXIB_ATTACH_TO_MCG_IN_QPN, qpn);
	in[CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET] = first;
	in[CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET + 15] = last;
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

TEST(mcg_attach_detach_per_qp)
{
	uint8_t gid[16] = { 0xff, [15] = 1 };
	struct qp_env e;
	struct qp_args a;
	uint32_t ud1, ud2, rc, qpns[4];

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_UD);
	CHECK_EQ(create_qp(t, &a, &ud1), 0);
	CHECK_EQ(create_qp(t, &a, &ud2), 0);
	a.st = CXIB_QPC_ST_RC;
	CHECK_EQ(create_qp(t, &a, &rc), 0);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_ATTACH_TO_MCG, ud1, 0xff, 1), 0);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_ATTACH_TO_MCG, ud1, 0xff, 1), 0);	/* again: no change */
	CHECK_EQ(mcg(t, CXIB_CMD_OP_ATTACH_TO_MCG, ud2, 0xff, 1), 0);
	CHECK_EQ(cxfw_mcg_qps(t->dev, gid, qpns, 4), 2);
	CHECK_EQ(qpns[0], ud1);
	CHECK_EQ(qpns[1], ud2);
	/* not a multicast GID, not a UD QP, no such QP */
	CHECK_EQ(mcg(t, CXIB_CMD_OP_ATTACH_TO_MCG, ud1, 0xfe, 1), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_ATTACH_TO_MCG, rc, 0xff, 1), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_ATTACH_TO_MCG, rc + 1, 0xff, 1), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_DETACH_FROM_MCG, ud1, 0xff, 1), 0);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_DETACH_FROM_MCG, ud1, 0xff, 1), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(mcg(t, CXIB_CMD_OP_DETACH_FROM_MCG, ud1, 0xff, 2), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cxfw_mcg_qps(t->dev, gid, qpns, 4), 1);
	CHECK_EQ(qpns[0], ud2);
	/* destroying the QP detaches it */
	CHECK_EQ(destroy_qp(t, ud2), 0);
	CHECK_EQ(cxfw_mcg_qps(t->dev, gid, qpns, 4), 0);
}

/* ---- Flush in ERR (the only WQE processing so far) ---- */

static void put_qp_db(struct test_ctx *t, const struct qp_args *a, uint16_t rcv, uint16_t snd)
{
	uint8_t b[8];

	put_be32(b, rcv);
	put_be32(b + 4, snd);
	fake_mem_write(&t->fk, a->dbr, b, 8);
}

/* A send WQE's control segment at WQEBB @idx of the QP's SQ. */
static void put_ctrl(struct test_ctx *t, uint32_t qpn, uint16_t idx, unsigned int opcode,
		     unsigned int ds, uint8_t out8[8])
{
	uint64_t sq = t->fk.base + DRV_CQ_OFF + QP_BUF_OFF + 0x400;	/* after a 1 KiB RQ */
	__be32 c[4] = { 0 };

	CXIB_SET(c, CXIB_WQE_CTRL_WQE_INDEX, idx);
	CXIB_SET(c, CXIB_WQE_CTRL_OPCODE, opcode);
	CXIB_SET(c, CXIB_WQE_CTRL_QPN, qpn);
	CXIB_SET(c, CXIB_WQE_CTRL_DS, ds);
	fake_mem_write(&t->fk, sq + 64ull * (idx % 64), c, sizeof(c));
	if (out8)
		memcpy(out8, c, 8);
}

static void get_cqe(struct test_ctx *t, unsigned int n, struct cxib_cqe64 *cqe)
{
	fake_mem_read(&t->fk, t->fk.base + DRV_CQ_OFF + 64ull * n, cqe, sizeof(*cqe));
}

/* The 8-byte SQ doorbell at UAR + 0x800 (the first 8 bytes of the WQE, in address order). */
static void sq_doorbell(struct test_ctx *t, uint32_t uar, const uint8_t ctrl8[8])
{
	uint64_t v;

	memcpy(&v, ctrl8, 8);	/* host little-endian: the lowest address is the low byte */
	cxfw_mmio_write(t->dev, ((uint64_t)uar << CXIB_ADAPTER_PAGE_SHIFT) + CXIB_UAR_BF_OFFSET,
			v, 8);
	cxfw_process(t->dev);
}

TEST(qp_to_err_flushes_posted_wqes_and_later_sends)
{
	struct cxfw_stats st;
	struct cxib_cqe64 cqe;
	struct qp_mod m = { 0 };
	struct qp_env e;
	struct qp_args a;
	uint8_t db[8];
	uint32_t qpn;
	unsigned int i;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	m.port = 1;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), 0);
	/* 3 receives; a SEND (1 WQEBB) and an RDMA WRITE of 6 DS (2 WQEBBs) */
	put_ctrl(t, qpn, 0, CXIB_WQE_OPCODE_SEND, 2, NULL);
	put_ctrl(t, qpn, 1, CXIB_WQE_OPCODE_RDMA_WRITE, 6, NULL);
	put_qp_db(t, &a, 3, 3);
	/* in INIT nothing is consumed (no engine): a doorbell changes nothing */
	put_ctrl(t, qpn, 1, CXIB_WQE_OPCODE_RDMA_WRITE, 6, db);
	sq_doorbell(t, e.uar, db);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 0);
	CHECK_EQ(st.sq_doorbells, 1);

	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	for (i = 0; i < 3; i++) {
		get_cqe(t, i, &cqe);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME), CXIB_CQE_SYND_WR_FLUSH_ERR);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_QPN), qpn);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), i);
	}
	get_cqe(t, 3, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_S_WQE_OPCODE), CXIB_WQE_OPCODE_SEND);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), 0);
	get_cqe(t, 4, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_S_WQE_OPCODE), CXIB_WQE_OPCODE_RDMA_WRITE);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), 1);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 5);

	/* a send posted in ERR (a drain marker) is flushed at its doorbell */
	put_ctrl(t, qpn, 3, CXIB_WQE_OPCODE_NOP, 1, db);
	put_qp_db(t, &a, 3, 4);
	sq_doorbell(t, e.uar, db);
	get_cqe(t, 5, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), 3);
	/* a doorbell through another UAR is ignored */
	put_qp_db(t, &a, 3, 5);
	put_ctrl(t, qpn, 4, CXIB_WQE_OPCODE_NOP, 1, db);
	sq_doorbell(t, e.uar + 1, db);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 6);

	/* 2RST: no CQEs, counters restart with the driver's */
	put_qp_db(t, &a, 0, 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2RST_QP, qpn, NULL), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 6);
}

TEST(qp_in_err_flushes_receives_without_an_sq_doorbell)
{
	struct cxfw_stats st;
	struct cxib_cqe64 cqe;
	struct qp_mod m = { 0 };
	struct qp_env e;
	struct qp_args a;
	uint32_t qpn;
	unsigned int i;

	CHECK_EQ(setup(t, &e), 0);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	m.port = 1;
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_RST2INIT_QP, qpn, &m), 0);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 0);

	/* a receive posted in ERR: doorbell record only, no SQ doorbell */
	put_qp_db(t, &a, 1, 0);
	cxfw_process(t->dev);
	fake_advance_ns(&t->fk, CXFW_QP_ERR_POLL_NS - 1);
	cxfw_process(t->dev);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 0);		/* read at most every CXFW_QP_ERR_POLL_NS */
	fake_advance_ns(&t->fk, 1);
	cxfw_process(t->dev);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 1);
	CHECK_EQ(st.sq_doorbells, 0);
	get_cqe(t, 0, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME), CXIB_CQE_SYND_WR_FLUSH_ERR);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_QPN), qpn);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), 0);

	/* two more; a send counted in the record is left to its doorbell */
	put_ctrl(t, qpn, 0, CXIB_WQE_OPCODE_NOP, 1, NULL);
	put_qp_db(t, &a, 3, 1);
	fake_advance_ns(&t->fk, CXFW_QP_ERR_POLL_NS);
	cxfw_process(t->dev);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 3);
	for (i = 1; i < 3; i++) {
		get_cqe(t, i, &cqe);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_ERR);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_ERR_WQE_COUNTER), i);
	}

	/* out of ERR nothing is polled; destroyed, it is off the list */
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2RST_QP, qpn, NULL), 0);
	put_qp_db(t, &a, 2, 0);
	fake_advance_ns(&t->fk, CXFW_QP_ERR_POLL_NS);
	cxfw_process(t->dev);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 3);
	CHECK_EQ(modify_qp(t, CXIB_CMD_OP_2ERR_QP, qpn, NULL), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 5);		/* 2ERR flushes the two posted in RST */
	CHECK_EQ(destroy_qp(t, qpn), 0);
	fake_advance_ns(&t->fk, CXFW_QP_ERR_POLL_NS);
	cxfw_process(t->dev);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.cqes_written, 5);
}

/*
 * cfg.runtime_pages: a PAGE_REQUEST event for N more pages at each new peak of live QPs,
 * QUERY_PAGES op_mod 3 shows the debt, MANAGE_PAGES gives exactly that much, and
 * teardown takes everything back.
 */
TEST(qp_runtime_page_requests_at_each_new_peak_of_live_qps)
{
	struct cxfw_config cfg;
	struct qp_env e;
	struct qp_args a;
	struct cxib_hca_cap cap;
	struct cxib_eqe eqe;
	struct cxfw_stats st;
	__be32 out[4];
	uint32_t qpn[3], eqn;
	uint64_t buf;
	int32_t n;

	cxfw_config_defaults(&cfg);
	cfg.runtime_pages = 4;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_CUR), &cap), 0);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_PAGE_REQUEST_DISABLE), 0);
	buf = drv_eq_buffer(t, 0x8000, 4);
	CHECK_EQ(drv_create_eq(t, buf, 4, e.uar, 0, 1ull << CXIB_EVENT_TYPE_PAGE_REQUEST, &eqn),
		 0);

	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	CHECK_EQ(create_qp(t, &a, &qpn[0]), 0);
	drv_eqe(t, buf, 0, &eqe);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_EVENT_TYPE), CXIB_EVENT_TYPE_PAGE_REQUEST);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_PAGE_REQ_FUNCTION_ID), 0);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_PAGE_REQ_NUM_PAGES), 4);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_REGULAR, &n), 0);
	CHECK_EQ(n, 4);
	CHECK_EQ(drv_give_pages(t, 4), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_REGULAR, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(drv_give_pages(t, 1), CXIB_CMD_STAT_BAD_PARAM);	/* not asked for */

	/* a second live QP is a new peak; destroying one and creating one again is not */
	CHECK_EQ(create_qp(t, &a, &qpn[1]), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DESTROY_QP, 0, qpn[1], 0, out, 16), 0);
	CHECK_EQ(create_qp(t, &a, &qpn[2]), 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.page_requests, 2);
	drv_eqe(t, buf, 1, &eqe);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_PAGE_REQ_NUM_PAGES), 4);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_REGULAR, &n), 0);
	CHECK_EQ(n, 4);
	CHECK_EQ(drv_give_pages(t, 4), 0);
	/* while initialized only pages beyond what the function runs on come back */
	CHECK_EQ(drv_teardown(t), 0);
	CHECK_EQ(drv_pages_out(), 0);
}

TEST(qp_runtime_pages_off_by_default)
{
	struct qp_env e;
	struct qp_args a;
	struct cxib_hca_cap cap;
	struct cxfw_stats st;
	uint32_t qpn;
	int32_t n;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_CUR), &cap), 0);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_PAGE_REQUEST_DISABLE), 1);
	a = qp_defaults(t, &e, CXIB_QPC_ST_RC);
	CHECK_EQ(create_qp(t, &a, &qpn), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_REGULAR, &n), 0);
	CHECK_EQ(n, 0);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.page_requests, 0);
}
