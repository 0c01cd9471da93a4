// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The performance management agent behind MAD_IFC (pma.c) and the per-port counters wire.c
 * keeps for it: ClassPortInfo, PortCounters and PortCountersExtended read after real
 * traffic between two devices on the in-memory cable, and after packets handed to a port
 * as if from the cable (bad P_Key, bad CRC, VL15); resets, saturation, MAD-level errors.
 * Counts are exact: data in 4-octet words from the LRH through the ICRC (IBTA vol 1
 * ch. 16.1.3.5).
 */
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"
#include "wire.h"

#define MAD_FLAGS	(CXIB_MAD_IFC_IGNORE_MKEY | CXIB_MAD_IFC_IGNORE_BKEY)
#define TID		0x0123456789abcdefull
#define QKEY		DRV_DEFAULT_QKEY
#define BAD_PKEY	0x1234		/* in no port's table (only 0xffff is) */
#define FAR_LID		0x0050		/* nobody's LID */

/* Wire sizes (ibwire.h): header octets of the packets the tests send. */
#define UD_HDRS		(CXIB_LRH_LEN + CXIB_BTH_LEN + CXIB_DETH_LEN)
#define TRAILER		(CXIB_ICRC_LEN)			/* counted; the VCRC is not */
#define WORDS(octets)	((octets) / CXIB_PMA_DATA_UNIT)

/* ---- MAD helpers -------------------------------------------------------------------------- */

static void pma_req(uint8_t mad[CXIB_MAD_SIZE], uint16_t attr, uint8_t method,
		    unsigned int port_select)
{
	memset(mad, 0, CXIB_MAD_SIZE);
	CXIB_SET(mad, CXIB_MAD_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(mad, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_PERF_MGMT);
	CXIB_SET(mad, CXIB_MAD_CLASS_VERSION, CXIB_PMA_CLASS_VERSION);
	CXIB_SET(mad, CXIB_MAD_METHOD, method);
	CXIB_SET64(mad, CXIB_MAD_TID, TID);
	CXIB_SET(mad, CXIB_MAD_ATTR_ID, attr);
	/* PortSelect sits at data byte 1 in both counter attributes */
	CXIB_SET(mad + CXIB_PMA_DATA_OFFSET, CXIB_PMA_PC_PORT_SELECT, port_select);
}

/* Send @req to port 1 of @x; the MAD status, or 0x10000 + the command status. */
static unsigned int pma(struct test_ctx *x, const uint8_t *req, uint8_t *resp)
{
	unsigned int st = drv_mad_ifc(x, 1, MAD_FLAGS, req, resp);

	return st ? 0x10000 + st : CXIB_GET(resp, CXIB_MAD_STATUS);
}

/* PortCounters, decoded. */
struct pc {
	unsigned int port_select, sel, sel2;
	unsigned int symbol, link_recovery, link_downed, rcv_errors, rcv_remote_phys;
	unsigned int rcv_switch_relay, xmit_discards, xmit_constraint, rcv_constraint;
	unsigned int link_integrity, buffer_overrun, qp1_dropped, vl15_dropped;
	uint32_t xmit_data, rcv_data, xmit_pkts, rcv_pkts, xmit_wait;
};

/* PortCountersExtended, decoded (the 64-bit error block must read 0: not advertised). */
struct pce {
	unsigned int port_select, sel;
	uint64_t xmit_data, rcv_data, xmit_pkts, rcv_pkts;
	uint64_t ucast_xmit, ucast_rcv, mcast_xmit, mcast_rcv;
	bool error_block_zero;
};

static void pc_decode(const uint8_t *d, struct pc *c)
{
	c->port_select = CXIB_GET(d, CXIB_PMA_PC_PORT_SELECT);
	c->sel = CXIB_GET(d, CXIB_PMA_PC_COUNTER_SELECT);
	c->sel2 = CXIB_GET(d, CXIB_PMA_PC_COUNTER_SELECT2);
	c->symbol = CXIB_GET(d, CXIB_PMA_PC_SYMBOL_ERRORS);
	c->link_recovery = CXIB_GET(d, CXIB_PMA_PC_LINK_ERROR_RECOVERY);
	c->link_downed = CXIB_GET(d, CXIB_PMA_PC_LINK_DOWNED);
	c->rcv_errors = CXIB_GET(d, CXIB_PMA_PC_RCV_ERRORS);
	c->rcv_remote_phys = CXIB_GET(d, CXIB_PMA_PC_RCV_REMOTE_PHYS_ERRORS);
	c->rcv_switch_relay = CXIB_GET(d, CXIB_PMA_PC_RCV_SWITCH_RELAY_ERRORS);
	c->xmit_discards = CXIB_GET(d, CXIB_PMA_PC_XMIT_DISCARDS);
	c->xmit_constraint = CXIB_GET(d, CXIB_PMA_PC_XMIT_CONSTRAINT_ERRORS);
	c->rcv_constraint = CXIB_GET(d, CXIB_PMA_PC_RCV_CONSTRAINT_ERRORS);
	c->link_integrity = CXIB_GET(d, CXIB_PMA_PC_LOCAL_LINK_INTEGRITY_ERRORS);
	c->buffer_overrun = CXIB_GET(d, CXIB_PMA_PC_EXCESSIVE_BUFFER_OVERRUNS);
	c->qp1_dropped = CXIB_GET(d, CXIB_PMA_PC_QP1_DROPPED);
	c->vl15_dropped = CXIB_GET(d, CXIB_PMA_PC_VL15_DROPPED);
	c->xmit_data = CXIB_GET(d, CXIB_PMA_PC_XMIT_DATA);
	c->rcv_data = CXIB_GET(d, CXIB_PMA_PC_RCV_DATA);
	c->xmit_pkts = CXIB_GET(d, CXIB_PMA_PC_XMIT_PKTS);
	c->rcv_pkts = CXIB_GET(d, CXIB_PMA_PC_RCV_PKTS);
	c->xmit_wait = CXIB_GET(d, CXIB_PMA_PC_XMIT_WAIT);
}

static void pce_decode(const uint8_t *d, struct pce *c)
{
	unsigned int i;

	c->port_select = CXIB_GET(d, CXIB_PMA_PCE_PORT_SELECT);
	c->sel = CXIB_GET(d, CXIB_PMA_PCE_COUNTER_SELECT);
	c->xmit_data = CXIB_GET64(d, CXIB_PMA_PCE_XMIT_DATA);
	c->rcv_data = CXIB_GET64(d, CXIB_PMA_PCE_RCV_DATA);
	c->xmit_pkts = CXIB_GET64(d, CXIB_PMA_PCE_XMIT_PKTS);
	c->rcv_pkts = CXIB_GET64(d, CXIB_PMA_PCE_RCV_PKTS);
	c->ucast_xmit = CXIB_GET64(d, CXIB_PMA_PCE_UCAST_XMIT_PKTS);
	c->ucast_rcv = CXIB_GET64(d, CXIB_PMA_PCE_UCAST_RCV_PKTS);
	c->mcast_xmit = CXIB_GET64(d, CXIB_PMA_PCE_MCAST_XMIT_PKTS);
	c->mcast_rcv = CXIB_GET64(d, CXIB_PMA_PCE_MCAST_RCV_PKTS);
	c->error_block_zero = true;
	for (i = CXIB_PMA_PCE_BASE_LEN; i < CXIB_PMA_DATA_SIZE; i++)
		if (d[i])
			c->error_block_zero = false;
}

/* Get (or Set with @sel, @sel2) PortCounters of port 1 of @x; the MAD status. */
static unsigned int pc_op(struct test_ctx *x, uint8_t method, unsigned int sel,
			  unsigned int sel2, struct pc *c)
{
	uint8_t req[CXIB_MAD_SIZE], resp[CXIB_MAD_SIZE];
	unsigned int st;

	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, method, 1);
	CXIB_SET(req + CXIB_PMA_DATA_OFFSET, CXIB_PMA_PC_COUNTER_SELECT, sel);
	CXIB_SET(req + CXIB_PMA_DATA_OFFSET, CXIB_PMA_PC_COUNTER_SELECT2, sel2);
	st = pma(x, req, resp);
	memset(c, 0, sizeof(*c));
	if (!st)
		pc_decode(resp + CXIB_PMA_DATA_OFFSET, c);
	return st;
}

static unsigned int pc_get(struct test_ctx *x, struct pc *c)
{
	return pc_op(x, CXIB_MGMT_METHOD_GET, 0, 0, c);
}

static unsigned int pce_op(struct test_ctx *x, uint8_t method, unsigned int sel,
			   struct pce *c)
{
	uint8_t req[CXIB_MAD_SIZE], resp[CXIB_MAD_SIZE];
	unsigned int st;

	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS_EXT, method, 1);
	CXIB_SET(req + CXIB_PMA_DATA_OFFSET, CXIB_PMA_PCE_COUNTER_SELECT, sel);
	st = pma(x, req, resp);
	memset(c, 0, sizeof(*c));
	if (!st)
		pce_decode(resp + CXIB_PMA_DATA_OFFSET, c);
	return st;
}

static unsigned int pce_get(struct test_ctx *x, struct pce *c)
{
	return pce_op(x, CXIB_MGMT_METHOD_GET, 0, c);
}

/* Every counter the model has no source for reads 0. */
#define CHECK_UNSOURCED_ZERO(c)							\
	do {									\
		CHECK_EQ((c).symbol, 0);					\
		CHECK_EQ((c).link_recovery, 0);					\
		CHECK_EQ((c).link_downed, 0);					\
		CHECK_EQ((c).rcv_remote_phys, 0);				\
		CHECK_EQ((c).rcv_switch_relay, 0);				\
		CHECK_EQ((c).xmit_constraint, 0);				\
		CHECK_EQ((c).link_integrity, 0);				\
		CHECK_EQ((c).buffer_overrun, 0);				\
		CHECK_EQ((c).qp1_dropped, 0);					\
		CHECK_EQ((c).xmit_wait, 0);					\
	} while (0)

/* ---- traffic helpers ---------------------------------------------------------------------- */

struct world {
	struct drv_world w;
	struct drv_node *na, *nb;
	struct drv_qp a, b;		/* UD QPs: a on node 0, b on the last node */
	struct drv_mr src, dst;
};

/* @nodes devices cabled, a UD QP on the first and the last, source and sink buffers. */
static unsigned int world_ud(struct test_ctx *t, struct world *x, unsigned int nodes)
{
	struct drv_qp_init ia, ib;
	struct drv_qp_conn c;
	unsigned int s = drv_world_init(t, &x->w, nodes);

	if (s)
		return s;
	x->na = &x->w.n[0];
	x->nb = &x->w.n[nodes - 1];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_UD, x->w.cq[0]);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_UD, x->w.cq[nodes - 1]);
	drv_qp_conn_defaults(&c);
	s = drv_qp_create(x->na, &ia, &x->a);
	if (!s)
		s = drv_qp_create(x->nb, &ib, &x->b);
	if (!s)
		s = drv_qp_connect(x->na, &x->a, &ia, &c);
	if (!s)
		s = drv_qp_connect(x->nb, &x->b, &ib, &c);
	if (!s)
		s = drv_mr_alloc(x->na, 4096, DRV_LR, &x->src);
	if (!s)
		s = drv_mr_alloc(x->nb, 64 * 1024, DRV_LR | DRV_LW, &x->dst);
	return s;
}

/* Post @n receives of 1 KiB on b, then @n UD sends of @len bytes from a (to @dlid). */
static int ud_sends(struct world *x, unsigned int n, uint32_t len, uint16_t dlid,
		    const uint8_t *mgid)
{
	struct drv_sge r;
	struct drv_wr wr;
	unsigned int i;

	for (i = 0; i < n; i++) {
		r.addr = x->dst.va + (uint64_t)i * 1024;
		r.len = 1024;
		r.lkey = x->dst.key;
		if (drv_post_recv(x->nb, &x->b, &r, 1) < 0)
			return -1;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = CXIB_WQE_OPCODE_SEND;
	wr.ah.dlid = dlid;
	wr.ah.dqpn = mgid ? DRV_MCAST_QPN : x->b.qpn;
	wr.ah.qkey = QKEY;
	if (mgid) {
		wr.ah.grh = true;
		wr.ah.hop_limit = 1;
		memcpy(wr.ah.dgid, mgid, 16);
	}
	wr.sg[0].addr = x->src.va;
	wr.sg[0].len = len;
	wr.sg[0].lkey = x->src.key;
	wr.nsg = 1;
	for (i = 0; i < n; i++)
		if (drv_post_send(x->na, &x->a, &wr) < 0)
			return -1;
	return drv_pump(&x->w) > 0 ? 0 : -1;
}

/* A UD SEND to @dqpn at @dlid with a 32-byte payload, built as a peer would. */
static size_t raw_ud(uint8_t *buf, size_t cap, uint16_t dlid, uint32_t dqpn, uint16_t pkey)
{
	static const uint8_t payload[32] = { 1, 2, 3 };
	struct cxfw_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_UD_SEND_ONLY;
	p.vl = dqpn == CXIB_QP0 ? CXIB_VL_SMP : CXIB_VL_DATA_0;
	p.dlid = dlid;
	p.slid = FAR_LID;
	p.dqpn = dqpn;
	p.pkey = pkey;
	p.deth_qkey = QKEY;
	p.deth_sqpn = 0x42;
	p.payload = payload;
	p.paylen = sizeof(payload);
	return cxfw_pkt_build(&p, buf, cap);
}

/* ---- ClassPortInfo ------------------------------------------------------------------------ */

TEST(pma_class_port_info)
{
	uint8_t req[CXIB_MAD_SIZE], resp[CXIB_MAD_SIZE];
	const uint8_t *d = resp + CXIB_PMA_DATA_OFFSET;
	unsigned int i;

	CHECK_EQ(drv_bringup(t), 0);
	pma_req(req, CXIB_PMA_ATTR_CLASS_PORT_INFO, CXIB_MGMT_METHOD_GET, 0);
	memset(req + CXIB_PMA_DATA_OFFSET, 0x5a, CXIB_PMA_DATA_SIZE);	/* must not leak back */
	CHECK_EQ(pma(t, req, resp), 0);
	/* header: a GetResp to the same transaction and attribute */
	CHECK_EQ(CXIB_GET(resp, CXIB_MAD_METHOD), CXIB_MGMT_METHOD_GET_RESP);
	CHECK_EQ(CXIB_GET(resp, CXIB_MAD_MGMT_CLASS), CXIB_MGMT_CLASS_PERF_MGMT);
	CHECK_EQ(CXIB_GET64(resp, CXIB_MAD_TID), TID);
	CHECK_EQ(CXIB_GET(resp, CXIB_MAD_ATTR_ID), CXIB_PMA_ATTR_CLASS_PORT_INFO);
	/* byte by byte at the IBTA offsets */
	CHECK_EQ(d[0], 1);				/* BaseVersion */
	CHECK_EQ(d[1], 1);				/* ClassVersion */
	CHECK_EQ(d[2] << 8 | d[3], 0x0200);		/* CapabilityMask: bit 9 only */
	CHECK_EQ(be32_at(d + 4), 3);			/* CapabilityMask2 0, RespTimeValue 3 */
	for (i = 8; i < CXIB_PMA_DATA_SIZE; i++)	/* redirect and trap fields, the rest */
		CHECK_EQ(d[i], 0);
	/* through the field names */
	CHECK_EQ(CXIB_GET(d, CXIB_PMA_CPI_CAPABILITY_MASK), CXIB_PMA_CAP_EXT_WIDTH);
	CHECK_EQ(CXIB_GET(d, CXIB_PMA_CPI_CAPABILITY_MASK) & CXIB_PMA_CAP_ALL_PORT_SELECT, 0);
	CHECK_EQ(CXIB_GET(d, CXIB_PMA_CPI_CAPABILITY_MASK) & CXIB_PMA_CAP_XMIT_WAIT, 0);
	CHECK_EQ(CXIB_GET(d, CXIB_PMA_CPI_RESP_TIME_VALUE), 3);
	CHECK_EQ(CXIB_GET(d, CXIB_PMA_CPI_REDIRECT_LID), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_PMA_CPI_REDIRECT_QP), 0);
}

/* ---- real traffic ------------------------------------------------------------------------- */

TEST(pma_counts_ud_unicast_and_multicast_on_both_sides)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x31 };
	/* 4 unicast sends of 100 bytes, 3 multicast (GRH) sends of 150 bytes (2 bytes pad) */
	const uint64_t uwords = WORDS(UD_HDRS + 100 + TRAILER);
	const uint64_t mwords = WORDS(UD_HDRS + CXIB_GRH_LEN + 150 + 2 + TRAILER);
	struct cxib_cqe64 cqes[8];
	struct world x;
	struct pc a, b;
	struct pce ea, eb;

	CHECK_EQ(uwords, 33);
	CHECK_EQ(mwords, 56);
	CHECK_EQ(world_ud(t, &x, 2), 0);
	/* nothing crossed the cable while the world came up */
	CHECK_EQ(pc_get(x.na->t, &a), 0);
	CHECK_EQ(a.xmit_pkts + a.rcv_pkts + a.xmit_data + a.rcv_data, 0);
	CHECK_EQ(pc_get(x.nb->t, &b), 0);
	CHECK_EQ(b.xmit_pkts + b.rcv_pkts + b.xmit_data + b.rcv_data, 0);

	CHECK_EQ(ud_sends(&x, 4, 100, x.nb->lid, NULL), 0);
	CHECK_EQ(drv_mcg(x.nb, &x.b, mgid, true), 0);
	CHECK_EQ(ud_sends(&x, 3, 150, DRV_MCAST_LID, mgid), 0);
	/* every datagram arrived (and was sent) */
	CHECK_EQ(drv_poll_many(x.nb, x.w.cq[1], cqes, 8), 7);
	CHECK_EQ(drv_poll_many(x.na, x.w.cq[0], cqes, 8), 0);	/* unsignaled */

	CHECK_EQ(pc_get(x.na->t, &a), 0);
	CHECK_EQ(a.port_select, 1);
	CHECK_EQ(a.xmit_pkts, 7);
	CHECK_EQ(a.xmit_data, 4 * uwords + 3 * mwords);
	CHECK_EQ(a.rcv_pkts, 0);			/* UD: nothing comes back */
	CHECK_EQ(a.rcv_data, 0);
	CHECK_EQ(a.rcv_errors + a.xmit_discards + a.rcv_constraint + a.vl15_dropped, 0);
	CHECK_UNSOURCED_ZERO(a);
	CHECK_EQ(pc_get(x.nb->t, &b), 0);
	CHECK_EQ(b.rcv_pkts, 7);
	CHECK_EQ(b.rcv_data, 4 * uwords + 3 * mwords);
	CHECK_EQ(b.xmit_pkts, 0);
	CHECK_EQ(b.xmit_data, 0);
	CHECK_EQ(b.rcv_errors + b.xmit_discards + b.rcv_constraint + b.vl15_dropped, 0);
	CHECK_UNSOURCED_ZERO(b);

	CHECK_EQ(pce_get(x.na->t, &ea), 0);
	CHECK_EQ(ea.port_select, 1);
	CHECK_EQ(ea.xmit_pkts, 7);
	CHECK_EQ(ea.xmit_data, 4 * uwords + 3 * mwords);
	CHECK_EQ(ea.ucast_xmit, 4);
	CHECK_EQ(ea.mcast_xmit, 3);
	CHECK_EQ(ea.rcv_pkts + ea.rcv_data + ea.ucast_rcv + ea.mcast_rcv, 0);
	CHECK(ea.error_block_zero);
	CHECK_EQ(pce_get(x.nb->t, &eb), 0);
	CHECK_EQ(eb.rcv_pkts, 7);
	CHECK_EQ(eb.rcv_data, 4 * uwords + 3 * mwords);
	CHECK_EQ(eb.ucast_rcv, 4);
	CHECK_EQ(eb.mcast_rcv, 3);
	CHECK_EQ(eb.xmit_pkts + eb.xmit_data + eb.ucast_xmit + eb.mcast_xmit, 0);
	CHECK(eb.error_block_zero);
}

/*
 * A receive of @dst posted on @b (node @rn), then a signaled 100-byte SEND of @src from @a
 * (node @sn), pumped until the world is idle.  0, or -1 if a post failed or nothing moved.
 */
static int send_100(struct drv_world *w, struct drv_node *sn, struct drv_qp *a,
		    const struct drv_mr *src, struct drv_node *rn, struct drv_qp *b,
		    const struct drv_mr *dst)
{
	struct drv_sge r = { .addr = dst->va, .len = 4096, .lkey = dst->key };
	struct drv_wr wr;

	if (drv_post_recv(rn, b, &r, 1) < 0)
		return -1;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = CXIB_WQE_OPCODE_SEND;
	wr.signaled = true;
	wr.sg[0].addr = src->va;
	wr.sg[0].len = 100;
	wr.sg[0].lkey = src->key;
	wr.nsg = 1;
	if (drv_post_send(sn, a, &wr))
		return -1;
	return drv_pump(w) > 0 ? 0 : -1;
}

TEST(pma_counts_rc_requests_and_acks)
{
	/* one RC SEND of 100 bytes, one ACK back: LRH + BTH (+ AETH) + ICRC */
	const uint64_t swords = WORDS(CXIB_LRH_LEN + CXIB_BTH_LEN + 100 + TRAILER);
	const uint64_t awords = WORDS(CXIB_LRH_LEN + CXIB_BTH_LEN + CXIB_AETH_LEN + TRAILER);
	struct drv_world w;
	struct drv_qp a, b;
	struct drv_mr src, dst;
	struct cxib_cqe64 cqe;
	struct pce ea, eb;

	CHECK_EQ(swords, 31);
	CHECK_EQ(awords, 7);
	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &a, &b), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 4096, DRV_LR, &src), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[1], 4096, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(send_100(&w, &w.n[0], &a, &src, &w.n[1], &b, &dst), 0);
	CHECK_EQ(drv_poll(&w.n[0], w.cq[0], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ);
	CHECK_EQ(pce_get(w.n[0].t, &ea), 0);
	CHECK_EQ(pce_get(w.n[1].t, &eb), 0);
	CHECK_EQ(ea.xmit_pkts, 1);
	CHECK_EQ(ea.xmit_data, swords);
	CHECK_EQ(ea.rcv_pkts, 1);
	CHECK_EQ(ea.rcv_data, awords);
	CHECK_EQ(eb.rcv_pkts, 1);
	CHECK_EQ(eb.rcv_data, swords);
	CHECK_EQ(eb.xmit_pkts, 1);
	CHECK_EQ(eb.xmit_data, awords);
	CHECK_EQ(ea.ucast_xmit + ea.ucast_rcv + eb.ucast_xmit + eb.ucast_rcv, 4);
	CHECK_EQ(ea.mcast_xmit + ea.mcast_rcv + eb.mcast_xmit + eb.mcast_rcv, 0);
}

TEST(pma_loopback_inside_the_device_is_not_counted)
{
	struct drv_world w;
	struct drv_qp a, b;
	struct drv_mr src, dst;
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct pce e;
	struct pc c;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &a, &b), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 4096, DRV_LR | DRV_LW, &src), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 4096, DRV_LR | DRV_LW, &dst), 0);
	CHECK_EQ(send_100(&w, &w.n[0], &a, &src, &w.n[0], &b, &dst), 0);
	CHECK_EQ(drv_poll(&w.n[0], w.cq[0], &cqe), 1);
	CHECK_EQ(drv_poll(&w.n[0], w.cq[0], &cqe), 1);		/* send and receive done */
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.pkts_looped, 2);				/* the SEND and its ACK */
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.xmit_pkts + c.rcv_pkts + c.xmit_data + c.rcv_data, 0);
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.ucast_xmit + e.ucast_rcv + e.mcast_xmit + e.mcast_rcv, 0);
}

/* ---- packets from the cable with something wrong ------------------------------------------ */

TEST(pma_pkey_violation_is_a_rcv_constraint_error_saturating_at_255)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct drv_world w;
	unsigned int i;
	size_t len;
	struct pce e;
	struct pc c;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	len = raw_ud(buf, sizeof(buf), w.n[0].lid, 0x77, BAD_PKEY);
	CHECK_EQ(len, UD_HDRS + 32 + TRAILER + CXIB_VCRC_LEN);
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_constraint, 1);
	CHECK_EQ(c.rcv_pkts, 1);			/* received, then dropped */
	CHECK_EQ(c.rcv_data, WORDS(UD_HDRS + 32 + TRAILER));
	CHECK_EQ(c.rcv_errors, 0);
	CHECK_EQ(c.vl15_dropped, 0);
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.ucast_rcv, 1);
	/* the 8-bit counter stops at its maximum; the packet counts go on */
	for (i = 1; i < 300; i++)
		cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_constraint, 255);
	CHECK_EQ(c.rcv_pkts, 300);
	CHECK_EQ(c.rcv_data, 300 * WORDS(UD_HDRS + 32 + TRAILER));
	/* a good P_Key to a QP that does not exist is no constraint error */
	len = raw_ud(buf, sizeof(buf), w.n[0].lid, 0x77, CXIB_PKEY_DEFAULT);
	CHECK_EQ(pc_op(t, CXIB_MGMT_METHOD_SET, CXIB_PMA_PC_SEL_RCV_CONSTRAINT_ERRORS, 0, &c), 0);
	CHECK_EQ(c.rcv_constraint, 0);
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_constraint, 0);
	CHECK_EQ(c.rcv_errors, 0);
	CHECK_EQ(c.rcv_pkts, 301);
}

TEST(pma_multicast_pkey_violation_counts_once_per_packet)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x33 };
	static const uint8_t payload[16];
	const uint16_t other_pkey = 0x8123;	/* in the port's table, not the QPs' */
	uint8_t buf[CXFW_PKT_MAX];
	struct cxfw_pkt p;
	struct world x;
	size_t len;
	struct pce e;
	struct pc c;

	CHECK_EQ(world_ud(t, &x, 1), 0);		/* a and b on the one device */
	CHECK_EQ(drv_mcg(x.na, &x.a, mgid, true), 0);
	CHECK_EQ(drv_mcg(x.na, &x.b, mgid, true), 0);
	t->dev->ports[0].pkeys[1] = other_pkey;	/* as an SM would have added it */
	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_UD_SEND_ONLY;
	p.dlid = DRV_MCAST_LID;
	p.slid = FAR_LID;
	p.grh = true;
	p.hop_limit = 1;
	memcpy(p.dgid, mgid, sizeof(p.dgid));
	p.dqpn = CXIB_MULTICAST_QPN;
	p.pkey = other_pkey;
	p.deth_qkey = QKEY;
	p.deth_sqpn = 0x42;
	p.payload = payload;
	p.paylen = sizeof(payload);
	len = cxfw_pkt_build(&p, buf, sizeof(buf));
	CHECK(len > 0);
	cxfw_port_receive(t->dev, 1, buf, len);
	/* both QPs refused it (PortInfo counts per check), the PMA counts the packet */
	CHECK_EQ(t->dev->ports[0].pkey_violations, 2);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_constraint, 1);
	CHECK_EQ(c.rcv_pkts, 1);
	CHECK_EQ(c.rcv_data, WORDS(UD_HDRS + CXIB_GRH_LEN + sizeof(payload) + TRAILER));
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.mcast_rcv, 1);
	CHECK_EQ(e.ucast_rcv, 0);
}

TEST(pma_corrupted_packets_are_rcv_errors_saturating_at_65535)
{
	const unsigned int many = 70000;	/* beyond the 16-bit PortRcvErrors */
	uint8_t buf[CXFW_PKT_MAX];
	struct drv_world w;
	unsigned int i;
	uint16_t vcrc;
	size_t len;
	struct pce e;
	struct pc c;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	len = raw_ud(buf, sizeof(buf), w.n[0].lid, 0x77, CXIB_PKEY_DEFAULT);
	CHECK(len > 0);
	/* a bit flipped in the payload: the VCRC catches it */
	buf[UD_HDRS + 5] ^= 0x10;
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_errors, 1);
	CHECK_EQ(c.rcv_pkts, 1);
	CHECK_EQ(c.rcv_data, WORDS(UD_HDRS + 32 + TRAILER));
	CHECK_EQ(c.rcv_constraint + c.vl15_dropped, 0);
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.ucast_rcv + e.mcast_rcv, 0);		/* no LRH to trust */
	/* a good VCRC over the bad bytes: the ICRC catches it */
	vcrc = cxfw_vcrc(buf, len - CXIB_VCRC_LEN);
	buf[len - 2] = (uint8_t)vcrc;
	buf[len - 1] = (uint8_t)(vcrc >> 8);
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_errors, 2);
	CHECK_EQ(c.rcv_pkts, 2);
	/* the 16-bit counter saturates; the 32-bit packet count does not */
	for (i = 2; i < many; i++)
		cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_errors, 0xffff);
	CHECK_EQ(c.rcv_pkts, many);
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.rcv_pkts, many);
	/* reset: counts from 0 again */
	CHECK_EQ(pc_op(t, CXIB_MGMT_METHOD_SET, CXIB_PMA_PC_SEL_RCV_ERRORS, 0, &c), 0);
	CHECK_EQ(c.rcv_errors, 0);
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.rcv_errors, 1);
}

TEST(pma_vl15_drops_and_vl_misuse)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct drv_world w;
	size_t len;
	struct pc c;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	/* an SMP on VL15 to QP0, which nobody created: dropped */
	len = raw_ud(buf, sizeof(buf), w.n[0].lid, CXIB_QP0, CXIB_PKEY_DEFAULT);
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.vl15_dropped, 1);
	CHECK_EQ(c.rcv_errors, 0);
	/* one to another port's LID is dropped for its address, not for want of room */
	len = raw_ud(buf, sizeof(buf), FAR_LID, CXIB_QP0, CXIB_PKEY_DEFAULT);
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.vl15_dropped, 1);
	/* VL15 to a QP other than QP0 is malformed: a receive error, not a VL15 drop */
	{
		struct cxfw_pkt p;

		memset(&p, 0, sizeof(p));
		p.opcode = CXIB_BTH_OP_UD_SEND_ONLY;
		p.vl = CXIB_VL_SMP;
		p.dlid = w.n[0].lid;
		p.slid = FAR_LID;
		p.dqpn = 0x77;
		p.pkey = CXIB_PKEY_DEFAULT;
		len = cxfw_pkt_build(&p, buf, sizeof(buf));
		CHECK(len > 0);
	}
	cxfw_port_receive(t->dev, 1, buf, len);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.vl15_dropped, 1);
	CHECK_EQ(c.rcv_errors, 1);
	CHECK_EQ(c.rcv_pkts, 3);
	CHECK_EQ(pc_op(t, CXIB_MGMT_METHOD_SET, CXIB_PMA_PC_SEL_VL15_DROPPED, 0, &c), 0);
	CHECK_EQ(c.vl15_dropped, 0);
	CHECK_EQ(c.rcv_errors, 1);
}

TEST(pma_xmit_discards_while_the_link_is_down)
{
	struct world x;
	struct pce e;
	struct pc c;

	CHECK_EQ(world_ud(t, &x, 1), 0);
	/* up: on the cable (a cable with one end: nobody answers) */
	CHECK_EQ(ud_sends(&x, 1, 64, FAR_LID, NULL), 0);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.xmit_pkts, 1);
	CHECK_EQ(c.xmit_data, WORDS(UD_HDRS + 64 + TRAILER));
	CHECK_EQ(c.xmit_discards, 0);
	/* down: the port discards what the QP sends */
	cxfw_port_link(t->dev, 1, false);
	CHECK_EQ(ud_sends(&x, 2, 64, FAR_LID, NULL), 0);
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.xmit_discards, 2);
	CHECK_EQ(c.xmit_pkts, 1);
	CHECK_EQ(c.xmit_data, WORDS(UD_HDRS + 64 + TRAILER));
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.ucast_xmit, 1);
}

/* ---- resets and saturation ---------------------------------------------------------------- */

TEST(pma_set_resets_exactly_the_selected_counters)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x32 };
	const uint64_t uwords = WORDS(UD_HDRS + 200 + TRAILER);
	const uint64_t mwords = WORDS(UD_HDRS + CXIB_GRH_LEN + 200 + TRAILER);
	uint8_t buf[CXFW_PKT_MAX];
	struct world x;
	struct pce e;
	struct pc c;
	size_t len;

	CHECK_EQ(world_ud(t, &x, 2), 0);
	CHECK_EQ(ud_sends(&x, 5, 200, x.nb->lid, NULL), 0);
	CHECK_EQ(drv_mcg(x.nb, &x.b, mgid, true), 0);
	CHECK_EQ(ud_sends(&x, 2, 200, DRV_MCAST_LID, mgid), 0);
	len = raw_ud(buf, sizeof(buf), x.na->lid, 0x77, BAD_PKEY);
	cxfw_port_receive(x.na->t->dev, 1, buf, len);	/* a's RcvPkts / RcvConstraintErrors */

	/* PortCounters Set: XmitPkts and RcvConstraintErrors only; the answer is a Get's */
	CHECK_EQ(pc_op(x.na->t, CXIB_MGMT_METHOD_SET,
		       CXIB_PMA_PC_SEL_XMIT_PKTS | CXIB_PMA_PC_SEL_RCV_CONSTRAINT_ERRORS, 0, &c), 0);
	CHECK_EQ(c.sel, CXIB_PMA_PC_SEL_XMIT_PKTS | CXIB_PMA_PC_SEL_RCV_CONSTRAINT_ERRORS);
	CHECK_EQ(c.xmit_pkts, 0);
	CHECK_EQ(c.rcv_constraint, 0);
	CHECK_EQ(c.xmit_data, 5 * uwords + 2 * mwords);
	CHECK_EQ(c.rcv_pkts, 1);
	CHECK_EQ(c.rcv_data, WORDS(UD_HDRS + 32 + TRAILER));
	CHECK_EQ(pc_get(x.na->t, &c), 0);		/* and it stays reset */
	CHECK_EQ(c.sel, 0);
	CHECK_EQ(c.xmit_pkts, 0);
	CHECK_EQ(c.rcv_constraint, 0);
	CHECK_EQ(c.xmit_data, 5 * uwords + 2 * mwords);
	CHECK_EQ(c.rcv_pkts, 1);
	/* the two views share the counters: XmitPkts is 0 in the extended one too */
	CHECK_EQ(pce_get(x.na->t, &e), 0);
	CHECK_EQ(e.xmit_pkts, 0);
	CHECK_EQ(e.ucast_xmit, 5);
	CHECK_EQ(e.mcast_xmit, 2);
	/* PortCountersExtended Set: the unicast transmit count only */
	CHECK_EQ(pce_op(x.na->t, CXIB_MGMT_METHOD_SET, CXIB_PMA_PCE_SEL_UCAST_XMIT_PKTS, &e), 0);
	CHECK_EQ(e.sel, CXIB_PMA_PCE_SEL_UCAST_XMIT_PKTS);
	CHECK_EQ(e.ucast_xmit, 0);
	CHECK_EQ(e.mcast_xmit, 2);
	CHECK_EQ(e.xmit_data, 5 * uwords + 2 * mwords);
	CHECK_EQ(e.rcv_pkts, 1);
	CHECK_EQ(e.ucast_rcv, 1);
	/* the receiver was left alone */
	CHECK_EQ(pce_get(x.nb->t, &e), 0);
	CHECK_EQ(e.rcv_pkts, 7);
	CHECK_EQ(e.ucast_rcv, 5);
	CHECK_EQ(e.mcast_rcv, 2);
	/* new traffic counts from there */
	CHECK_EQ(ud_sends(&x, 1, 200, x.nb->lid, NULL), 0);
	CHECK_EQ(pce_get(x.na->t, &e), 0);
	CHECK_EQ(e.xmit_pkts, 1);
	CHECK_EQ(e.ucast_xmit, 1);
	CHECK_EQ(e.xmit_data, 6 * uwords + 2 * mwords);
	/* perfquery -r: everything (CounterSelect 0xffff, CounterSelect2 ignored) */
	CHECK_EQ(pc_op(x.nb->t, CXIB_MGMT_METHOD_SET, 0xffff, 0xff, &c), 0);
	CHECK_EQ(c.sel2, 0xff);
	CHECK_EQ(c.rcv_pkts + c.rcv_data + c.xmit_pkts + c.xmit_data, 0);
	CHECK_EQ(pce_get(x.nb->t, &e), 0);
	CHECK_EQ(e.rcv_pkts + e.rcv_data, 0);
	CHECK_EQ(e.ucast_rcv, 6);			/* not PortCounters' to reset */
	CHECK_EQ(pce_op(x.nb->t, CXIB_MGMT_METHOD_SET, 0xffff, &e), 0);
	CHECK_EQ(e.ucast_rcv + e.mcast_rcv, 0);
}

TEST(pma_32_bit_counters_saturate_and_the_extended_ones_do_not)
{
	struct cxfw_pma_counters *raw;
	struct pce e;
	struct pc c;

	CHECK_EQ(drv_bringup(t), 0);
	/* 16 GiB of traffic is too much for a unit test: start the raw counts near the top */
	raw = &t->dev->ports[0].pma;
	raw->xmit_data = 0x100000005ull;
	raw->rcv_data = 0xffffffffull;
	raw->xmit_pkts = 0xfffffffeull;
	raw->rcv_pkts = 0x7fffffffffffffffull;
	raw->xmit_discards = 0x10000;
	raw->vl15_dropped = 0xfffe;
	CHECK_EQ(pc_get(t, &c), 0);
	CHECK_EQ(c.xmit_data, 0xffffffffu);
	CHECK_EQ(c.rcv_data, 0xffffffffu);
	CHECK_EQ(c.xmit_pkts, 0xfffffffeu);
	CHECK_EQ(c.rcv_pkts, 0xffffffffu);
	CHECK_EQ(c.xmit_discards, 0xffff);
	CHECK_EQ(c.vl15_dropped, 0xfffe);
	CHECK_EQ(pce_get(t, &e), 0);
	CHECK_EQ(e.xmit_data, 0x100000005ull);
	CHECK_EQ(e.rcv_data, 0xffffffffull);
	CHECK_EQ(e.rcv_pkts, 0x7fffffffffffffffull);
}

/* ---- MAD-level errors --------------------------------------------------------------------- */

TEST(pma_bad_requests_get_mad_status)
{
	uint8_t req[CXIB_MAD_SIZE], resp[CXIB_MAD_SIZE];
	unsigned int i;

	CHECK_EQ(drv_bringup(t), 0);
	/* versions */
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET, 1);
	CXIB_SET(req, CXIB_MAD_CLASS_VERSION, 2);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_BAD_VERSION);
	CHECK_EQ(CXIB_GET(resp, CXIB_MAD_METHOD), CXIB_MGMT_METHOD_GET_RESP);
	CHECK_EQ(CXIB_GET64(resp, CXIB_MAD_TID), TID);
	pma_req(req, CXIB_PMA_ATTR_CLASS_PORT_INFO, CXIB_MGMT_METHOD_GET, 0);
	CXIB_SET(req, CXIB_MAD_BASE_VERSION, 2);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_BAD_VERSION);
	/* methods other than Get and Set, responses included */
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_SEND, 1);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD);
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_TRAP, 1);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD);
	/* a response is never answered: dropped (command status BAD_PKT) */
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET_RESP, 1);
	CHECK_EQ(pma(t, req, resp), 0x10000 + CXIB_CMD_STAT_BAD_PKT);
	/* attributes: not implemented, or not settable */
	pma_req(req, CXIB_PMA_ATTR_PORT_SAMPLES_CONTROL, CXIB_MGMT_METHOD_GET, 1);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	pma_req(req, CXIB_PMA_ATTR_PORT_SAMPLES_RESULT_EXT, CXIB_MGMT_METHOD_GET, 1);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	pma_req(req, 0xffff, CXIB_MGMT_METHOD_GET, 1);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	pma_req(req, CXIB_PMA_ATTR_CLASS_PORT_INFO, CXIB_MGMT_METHOD_SET, 0);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR);
	/* PortSelect: the receiving port only (no AllPortSelect) */
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET, 2);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET, 0);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS_EXT, CXIB_MGMT_METHOD_SET,
		CXIB_PMA_PORT_SELECT_ALL);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	/* attribute modifier */
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET, 1);
	CXIB_SET(req, CXIB_MAD_ATTR_MOD, 1);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	pma_req(req, CXIB_PMA_ATTR_CLASS_PORT_INFO, CXIB_MGMT_METHOD_GET, 0);
	CXIB_SET(req, CXIB_MAD_ATTR_MOD, 0x80000000u);
	CHECK_EQ(pma(t, req, resp), CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	/* the good request still works */
	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET, 1);
	CHECK_EQ(pma(t, req, resp), 0);
	/* garbage in the PerfMgt class never fails the command */
	for (i = 0; i < 256; i++) {
		memset(req, (int)i, sizeof(req));
		CXIB_SET(req, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_PERF_MGMT);
		CHECK(pma(t, req, resp) < 0x10000);
	}
}

/* The PMA unit itself: a response is flagged for dropping; a port out of range is refused. */
TEST(pma_process_drop_flag_and_port_range)
{
	uint8_t req[CXIB_MAD_SIZE], resp[CXIB_MAD_SIZE];
	bool drop = true;

	pma_req(req, CXIB_PMA_ATTR_PORT_COUNTERS, CXIB_MGMT_METHOD_GET, 1);
	memcpy(resp, req, sizeof(resp));
	CHECK_EQ(cxfw_pma_process(t->dev, 1, req, resp, &drop), 0);
	CHECK(!drop);
	CHECK_EQ(cxfw_pma_process(t->dev, 0, req, resp, &drop),
		 CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	CHECK_EQ(cxfw_pma_process(t->dev, 2, req, resp, &drop),
		 CXIB_MAD_STATUS_INVALID_ATTR_VALUE);
	CXIB_SET(req, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_GET_RESP);
	CHECK_EQ(cxfw_pma_process(t->dev, 1, req, resp, &drop),
		 CXIB_MAD_STATUS_UNSUPPORTED_METHOD);
	CHECK(drop);
}
