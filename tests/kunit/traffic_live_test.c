// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: live traffic through the stock kernel verbs on one cxib device, looped back.
 *
 * The KUnit VM's cxib-pci function has a loopback plug instead of a cable (run-kunit), so
 * its port comes up ACTIVE with a LID and every packet it sends arrives on it again.  Two
 * QPs on the device talk to each other with dlid = the port's own LID: RC SEND/RECV from
 * 1 B to 1 MiB, RDMA WRITE, WRITE_WITH_IMM, RDMA READ, both atomics, an SRQ with its limit
 * event, UD, UD multicast, fast registration with LOCAL_INV and SEND_WITH_INV, and the
 * error completions with their exact statuses (bad lkey, bad rkey, a write to a read-only
 * region, RNR retries exceeded, flush after an error), ib_drain_qp() (also once the device
 * is dead, when posts and creates fail with -EIO), and a CQ overrun reported to the CQ's
 * event handler as IB_EVENT_CQ_ERR.  Data is compared byte for byte.
 *
 * Like cxib_cq_live the suite leaves the function to cxib.ko and holds its ib_device.  A
 * port that is not ACTIVE (no cable, no plug) skips every case, saying so.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/ip.h>
#include <linux/jiffies.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <rdma/ib_verbs.h>

#include "cxib_kunit.h"
#include "kvh.h"

#define TL_WC_TIMEOUT_MS	5000
#define TL_EVENT_TIMEOUT_MS	5000
#define TL_BUF_SIZE		SZ_1M
#define TL_CQ_DEPTH		256
#define TL_QP_DEPTH		64
#define TL_QKEY			0x11110000
#define TL_RC_TIMEOUT		14
#define TL_RD_ATOM		4
#define TL_UD_GRH		40
#define TL_RO_SIZE		PAGE_SIZE
#define TL_FR_SIZE		SZ_64K
/* The multicast group of the UD multicast case: an MLID from the multicast LID range. */
#define TL_MLID			0xc123
static const u8 tl_mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
				0, 0, 0, 0, 0xc0, 0xde, 0x00, 0x02 };

static struct cxib_dev *tl_dev;

struct tl_qp_opts {
	bool ud;
	bool srq;
	bool ipoib;		/* UD with IB_QP_CREATE_IPOIB_UD_LSO */
	u8 rnr_retry;
};

struct tl_ctx {
	struct kunit *test;
	struct ib_device *dev;
	struct ib_pd *pd;
	u8 port;
	u16 lid;
	enum ib_mtu mtu;
	u32 max_msg;
	struct kvh_buf a, b;
	struct kvh_q qa, qb;
	struct kvh_q qx;		/* a QP of its own, for the flush probe */
	struct ib_mr *mr;	/* remote read/write/atomic over b */
	struct ib_mr *mr_ro;	/* remote read over b's last page */
	struct ib_mr *mr_fr;	/* the fast registration case's */
	/* the large list and large table cases */
	struct page **big_pg;
	u64 *big_dma;
	unsigned int big_n;
	u64 *mtt;
	u32 umr_mkey_index;
	bool umr_mkey;
	u32 reg_len;		/* bytes of b that mr covers */
	struct ib_ah *ah;
	bool mc_attached;
	/* SRQ limit events of the SRQ case, and any other event on an SRQ */
	atomic_t srq_limit_events;
	bool srq_other_event;
	/* CQ overrun */
	struct ib_cq *small_cq;
	atomic_t cq_err_events;
	struct ib_cq *cq_err_cq;
};

static const struct tl_qp_opts tl_rc = { .rnr_retry = 7 };

static int tl_suite_init(struct kunit_suite *suite)
{
	struct pci_dev *pdev = cxib_kunit_find_function();
	struct cxib_dev *dev = NULL;

	tl_dev = NULL;
	if (!pdev)
		return 0;	/* each case skips or fails */
	device_lock(&pdev->dev);
	if (pdev->dev.driver && !strcmp(pdev->dev.driver->name, "cxib"))
		dev = pci_get_drvdata(pdev);
	if (dev && ib_device_try_get(&dev->ibdev))
		tl_dev = dev;
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	return 0;
}

static void tl_suite_exit(struct kunit_suite *suite)
{
	if (tl_dev)
		ib_device_put(&tl_dev->ibdev);
	tl_dev = NULL;
}

static int tl_buf_alloc(struct tl_ctx *c, struct kvh_buf *b, size_t len)
{
	return kvh_buf_alloc(c->dev, b, len);
}

static void tl_buf_free(struct tl_ctx *c, struct kvh_buf *b)
{
	kvh_buf_free(c->dev, b);
}

static int tl_init(struct kunit *test)
{
	struct ib_port_attr pa;
	struct tl_ctx *c;
	int err;

	if (!tl_dev) {
		KUNIT_ASSERT_FALSE_MSG(test, cxib_kunit_require_device,
				       "no registered cxib device found");
		kunit_skip(test, "no registered cxib device in this machine");
	}
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	c->test = test;
	c->dev = &tl_dev->ibdev;
	c->port = 1;
	err = ib_query_port(c->dev, c->port, &pa);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_query_port: %d", err);
	if (pa.state != IB_PORT_ACTIVE || !pa.lid)
		kunit_skip(test, "port 1 state %d, LID 0x%x: no cable or loopback plug",
			   pa.state, pa.lid);
	if (rdma_port_get_link_layer(c->dev, c->port) != IB_LINK_LAYER_INFINIBAND)
		kunit_skip(test, "port 1 is not InfiniBand: the loopback cases address by LID");
	c->lid = pa.lid;
	c->mtu = pa.active_mtu;
	c->max_msg = pa.max_msg_sz;
	c->pd = ib_alloc_pd(c->dev, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->pd), "ib_alloc_pd: %ld", PTR_ERR(c->pd));
	KUNIT_ASSERT_EQ(test, tl_buf_alloc(c, &c->a, TL_BUF_SIZE), 0);
	KUNIT_ASSERT_EQ(test, tl_buf_alloc(c, &c->b, TL_BUF_SIZE), 0);
	return 0;
}

static void tl_q_close(struct kvh_q *q)
{
	if (!IS_ERR_OR_NULL(q->qp))
		ib_destroy_qp(q->qp);
	if (!IS_ERR_OR_NULL(q->srq))
		ib_destroy_srq(q->srq);
	if (!IS_ERR_OR_NULL(q->cq))
		ib_free_cq(q->cq);
	memset(q, 0, sizeof(*q));
}

static void tl_exit(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	union ib_gid mgid;

	if (!c)
		return;
	if (c->mc_attached) {
		memcpy(mgid.raw, tl_mgid, sizeof(mgid.raw));
		ib_detach_mcast(c->qb.qp, &mgid, TL_MLID);
	}
	if (c->ah)
		rdma_destroy_ah(c->ah, RDMA_DESTROY_AH_SLEEPABLE);
	tl_q_close(&c->qa);
	tl_q_close(&c->qb);
	tl_q_close(&c->qx);
	if (!IS_ERR_OR_NULL(c->small_cq))
		ib_destroy_cq(c->small_cq);
	if (!IS_ERR_OR_NULL(c->mr))
		ib_dereg_mr(c->mr);
	if (!IS_ERR_OR_NULL(c->mr_ro))
		ib_dereg_mr(c->mr_ro);
	if (!IS_ERR_OR_NULL(c->mr_fr))
		ib_dereg_mr(c->mr_fr);
	if (c->umr_mkey)
		cxib_cmd_destroy_mkey(tl_dev, c->umr_mkey_index);
	kvfree(c->mtt);
	while (c->big_n--) {
		ib_dma_unmap_page(c->dev, c->big_dma[c->big_n], PAGE_SIZE, DMA_BIDIRECTIONAL);
		__free_page(c->big_pg[c->big_n]);
	}
	tl_buf_free(c, &c->a);
	tl_buf_free(c, &c->b);
	if (!IS_ERR_OR_NULL(c->pd))
		ib_dealloc_pd(c->pd);
}

/* ---- data ---------------------------------------------------------------------------- */

static void tl_fill(struct tl_ctx *c, struct kvh_buf *b, size_t off, size_t len, u32 seed)
{
	kvh_fill(c->dev, b, off, len, seed);
}

static void tl_zero(struct tl_ctx *c, struct kvh_buf *b, size_t off, size_t len)
{
	kvh_zero(c->dev, b, off, len);
}

/* Expect @len bytes at @off to hold the pattern of @seed. */
static void tl_check(struct tl_ctx *c, struct kvh_buf *b, size_t off, size_t len, u32 seed,
		     const char *what)
{
	size_t i = kvh_mismatch(c->dev, b, off, len, seed);

	if (i < len)
		KUNIT_FAIL(c->test, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i,
			   len, ((u8 *)b->va)[off + i], kvh_pat(seed, i));
}

static u64 tl_get64(struct tl_ctx *c, struct kvh_buf *b, size_t off)
{
	return kvh_get64(c->dev, b, off);
}

static void tl_put64(struct tl_ctx *c, struct kvh_buf *b, size_t off, u64 v)
{
	kvh_put64(c->dev, b, off, v);
}

/* ---- QPs ----------------------------------------------------------------------------- */

static void tl_srq_event(struct ib_event *ev, void *ctx)
{
	struct tl_ctx *c = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		atomic_inc(&c->srq_limit_events);
	else
		c->srq_other_event = true;
}

static void tl_q_create(struct tl_ctx *c, struct kvh_q *q, const struct tl_qp_opts *o)
{
	struct kunit *test = c->test;
	struct ib_qp_init_attr ia = {};
	struct ib_qp_attr a = {};
	int mask, err;

	q->cq = ib_alloc_cq(c->dev, NULL, TL_CQ_DEPTH, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(q->cq), "ib_alloc_cq: %ld", PTR_ERR(q->cq));
	if (o->srq) {
		struct ib_srq_init_attr sa = {
			.attr = { .max_wr = TL_QP_DEPTH, .max_sge = 1 },
			.srq_type = IB_SRQT_BASIC,
			.event_handler = tl_srq_event,
			.srq_context = c,
		};

		q->srq = ib_create_srq(c->pd, &sa);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(q->srq), "ib_create_srq: %ld",
				       PTR_ERR(q->srq));
	}
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	ia.srq = q->srq;
	ia.qp_type = o->ud ? IB_QPT_UD : IB_QPT_RC;
	ia.create_flags = o->ipoib ? IB_QP_CREATE_IPOIB_UD_LSO : 0;
	ia.sq_sig_type = IB_SIGNAL_REQ_WR;
	ia.cap.max_send_wr = TL_QP_DEPTH;
	ia.cap.max_recv_wr = o->srq ? 0 : TL_QP_DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	q->qp = ib_create_qp(c->pd, &ia);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(q->qp), "ib_create_qp(%s): %ld",
			       o->ud ? "UD" : "RC", PTR_ERR(q->qp));
	q->psn = get_random_u32() & 0xffffff;

	a.qp_state = IB_QPS_INIT;
	a.port_num = c->port;
	mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (o->ud) {
		a.qkey = TL_QKEY;
		mask |= IB_QP_QKEY;
	} else {
		a.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	err = ib_modify_qp(q->qp, &a, mask);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_modify_qp to INIT: %d", err);
}

static void tl_ah_attr(struct tl_ctx *c, struct rdma_ah_attr *ah, bool mcast)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(c->dev, c->port);
	rdma_ah_set_port_num(ah, c->port);
	rdma_ah_set_dlid(ah, mcast ? TL_MLID : c->lid);
	if (mcast) {
		union ib_gid dgid;

		memcpy(dgid.raw, tl_mgid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah, &dgid, 0, 0, 64, 0);
	}
}

/* c->ah: the address of this port's LID (or, with @mcast, of the test's group). */
static void tl_create_ah(struct tl_ctx *c, bool mcast)
{
	struct rdma_ah_attr aa;

	tl_ah_attr(c, &aa, mcast);
	c->ah = rdma_create_ah(c->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE_MSG(c->test, IS_ERR(c->ah), "rdma_create_ah: %ld", PTR_ERR(c->ah));
}

/* A signaled UD work request of the one entry @sge, to @remote_qpn through c->ah. */
static void tl_ud_wr(struct tl_ctx *c, struct ib_ud_wr *wr, struct ib_sge *sge, u64 wr_id,
		     enum ib_wr_opcode opcode, u32 remote_qpn)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr.wr_id = wr_id;
	wr->wr.opcode = opcode;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->ah = c->ah;
	wr->remote_qpn = remote_qpn;
	wr->remote_qkey = TL_QKEY;
}

/* RTR and RTS; an RC QP is connected to @peer on this same port. */
static void tl_q_rts(struct tl_ctx *c, struct kvh_q *q, const struct tl_qp_opts *o,
		     const struct kvh_q *peer)
{
	struct kunit *test = c->test;
	struct ib_qp_attr a = {};
	int err, mask;

	a.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (!o->ud) {
		a.path_mtu = c->mtu;
		a.dest_qp_num = peer->qp->qp_num;
		a.rq_psn = peer->psn;
		a.max_dest_rd_atomic = min_t(int, TL_RD_ATOM, c->dev->attrs.max_qp_rd_atom);
		a.min_rnr_timer = 1;
		tl_ah_attr(c, &a.ah_attr, false);
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	err = ib_modify_qp(q->qp, &a, mask);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_modify_qp to RTR: %d", err);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = q->psn;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (!o->ud) {
		a.timeout = TL_RC_TIMEOUT;
		a.retry_cnt = 7;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = min_t(int, TL_RD_ATOM, c->dev->attrs.max_qp_init_rd_atom);
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
	}
	err = ib_modify_qp(q->qp, &a, mask);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_modify_qp to RTS: %d", err);
}

/* A (the requester) and B (the responder), connected to each other through the port. */
static void tl_pair(struct tl_ctx *c, const struct tl_qp_opts *oa, const struct tl_qp_opts *ob)
{
	tl_q_close(&c->qa);
	tl_q_close(&c->qb);
	tl_q_create(c, &c->qa, oa);
	tl_q_create(c, &c->qb, ob);
	tl_q_rts(c, &c->qa, oa, &c->qb);
	tl_q_rts(c, &c->qb, ob, &c->qa);
}

/* The next completion on @q, within TL_WC_TIMEOUT_MS. */
static void tl_wait(struct tl_ctx *c, struct kvh_q *q, struct ib_wc *wc, const char *what)
{
	int n = kvh_poll(q, wc, TL_WC_TIMEOUT_MS);

	KUNIT_ASSERT_GE_MSG(c->test, n, 0, "%s: ib_poll_cq: %d", what, n);
	KUNIT_ASSERT_GT_MSG(c->test, n, 0, "%s: no completion in %d ms", what,
			    TL_WC_TIMEOUT_MS);
}

/* A completion with this wr_id, status and (for a success) opcode. */
static void tl_expect(struct tl_ctx *c, struct kvh_q *q, struct ib_wc *wc, u64 wr_id,
		      enum ib_wc_status status, int opcode, const char *what)
{
	struct kunit *test = c->test;

	tl_wait(c, q, wc, what);
	KUNIT_ASSERT_EQ_MSG(test, wc->status, status, "%s: status %s (vendor 0x%x), expected %s",
			    what, ib_wc_status_msg(wc->status), wc->vendor_err,
			    ib_wc_status_msg(status));
	KUNIT_ASSERT_EQ_MSG(test, wc->wr_id, wr_id, "%s: wr_id", what);
	if (status == IB_WC_SUCCESS && opcode >= 0)
		KUNIT_ASSERT_EQ_MSG(test, wc->opcode, opcode, "%s: opcode", what);
}

/* Nothing more on @q's CQ. */
static void tl_expect_empty(struct tl_ctx *c, struct kvh_q *q, const char *what)
{
	struct ib_wc wc;
	int n = ib_poll_cq(q->cq, 1, &wc);

	KUNIT_EXPECT_EQ_MSG(c->test, n, 0, "%s: unexpected completion (status %s, wr_id %llu)",
			    what, n > 0 ? ib_wc_status_msg(wc.status) : "-",
			    n > 0 ? wc.wr_id : 0);
}

static void tl_post_recv(struct tl_ctx *c, struct kvh_q *q, u64 wr_id, u64 addr, u32 len)
{
	int err = kvh_post_recv(c->pd, q, wr_id, addr, len);

	KUNIT_ASSERT_EQ_MSG(c->test, err, 0, "ib_post_recv: %d", err);
}

/* Post @n signaled operations (struct kvh_op) as one chain on @q. */
static void tl_post(struct tl_ctx *c, struct kvh_q *q, const struct kvh_op *ops, int n)
{
	int err = kvh_post(c->pd, q, ops, n);

	KUNIT_ASSERT_EQ_MSG(c->test, err, 0, "ib_post_send (opcode %d): %d", ops[0].opcode, err);
}

static void tl_need_fastreg(struct tl_ctx *c)
{
	if (!(c->dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		kunit_skip(c->test, "no IB_DEVICE_MEM_MGT_EXTENSIONS (fast registration)");
}

/* Map @nents DMA-mapped entries of @sg into @mr and register them with REG_MR posted on @q. */
static void tl_reg_mr_sg(struct tl_ctx *c, struct kvh_q *q, struct ib_mr *mr,
			 struct scatterlist *sg, int nents, int access)
{
	struct kunit *test = c->test;
	struct ib_reg_wr wr = {};
	struct ib_wc wc;
	int n, err;

	n = ib_map_mr_sg(mr, sg, nents, NULL, PAGE_SIZE);
	KUNIT_ASSERT_EQ_MSG(test, n, nents, "ib_map_mr_sg of %d entries: %d", nents, n);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 0xfe;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	err = ib_post_send(q->qp, &wr.wr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(REG_MR): %d", err);
	tl_expect(c, q, &wc, 0xfe, IB_WC_SUCCESS, IB_WC_REG_MR, "REG_MR");
}

/* Register @len bytes of @b at @off through @mr with REG_MR posted on @q. */
static void tl_reg_mr(struct tl_ctx *c, struct kvh_q *q, struct ib_mr *mr, struct kvh_buf *b,
		      size_t off, size_t len, int access)
{
	struct scatterlist sg;

	sg_init_table(&sg, 1);
	sg_set_buf(&sg, b->va + off, len);
	sg_dma_address(&sg) = b->dma + off;
	sg_dma_len(&sg) = len;
	tl_reg_mr_sg(c, q, mr, &sg, 1, access);
	KUNIT_ASSERT_EQ(c->test, mr->iova, b->dma + off);
	KUNIT_ASSERT_EQ(c->test, mr->length, len);
}

static struct ib_mr *tl_alloc_mr(struct tl_ctx *c, size_t len)
{
	struct ib_mr *mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, DIV_ROUND_UP(len, PAGE_SIZE));

	KUNIT_ASSERT_FALSE_MSG(c->test, IS_ERR(mr), "ib_alloc_mr(%zu pages): %ld",
			       DIV_ROUND_UP(len, PAGE_SIZE), PTR_ERR(mr));
	return mr;
}

/* B's buffer for A's remote operations (registered on B), and a read-only page of it. */
static void tl_reg_b(struct tl_ctx *c)
{
	tl_need_fastreg(c);
	c->reg_len = min_t(u64, c->b.len - TL_RO_SIZE,
			   (u64)c->dev->attrs.max_fast_reg_page_list_len << PAGE_SHIFT);
	KUNIT_ASSERT_GT(c->test, c->reg_len, 0);
	c->mr = tl_alloc_mr(c, c->reg_len);
	tl_reg_mr(c, &c->qb, c->mr, &c->b, 0, c->reg_len,
		  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
		  IB_ACCESS_REMOTE_ATOMIC);
	c->mr_ro = tl_alloc_mr(c, TL_RO_SIZE);
	tl_reg_mr(c, &c->qb, c->mr_ro, &c->b, c->b.len - TL_RO_SIZE, TL_RO_SIZE,
		  IB_ACCESS_REMOTE_READ);
}

/* A key that is no key: that of a memory region made and destroyed again. */
static u32 tl_stale_key(struct tl_ctx *c, bool remote)
{
	struct ib_mr *mr = tl_alloc_mr(c, PAGE_SIZE);
	u32 key = remote ? mr->rkey : mr->lkey;

	ib_dereg_mr(mr);
	return key;
}

/* ---- cases --------------------------------------------------------------------------- */

/* RC SEND from A lands in B's receive buffer, 1 B to 1 MiB, byte for byte. */
static void live_rc_send_recv(struct kunit *test)
{
	static const u32 sizes[] = { 1, 64, 1000, 4096, 4097, SZ_64K, SZ_1M };
	struct tl_ctx *c = test->priv;
	struct kvh_op op = { .opcode = IB_WR_SEND };
	struct ib_wc wc;
	int i;

	tl_pair(c, &tl_rc, &tl_rc);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 size = sizes[i];

		if (size > c->max_msg) {
			kunit_info(test, "%u bytes: over max_msg_sz %u, not sent", size,
				   c->max_msg);
			continue;
		}
		tl_zero(c, &c->b, 0, size);
		/* The receive buffer is larger than the message: byte_len tells the size. */
		tl_post_recv(c, &c->qb, 100 + i, c->b.dma, min_t(u32, c->b.len, size + 64));
		tl_fill(c, &c->a, 0, size, i);
		op.wr_id = i;
		op.laddr = c->a.dma;
		op.len = size;
		tl_post(c, &c->qa, &op, 1);
		tl_expect(c, &c->qa, &wc, i, IB_WC_SUCCESS, IB_WC_SEND, "send");
		tl_expect(c, &c->qb, &wc, 100 + i, IB_WC_SUCCESS, IB_WC_RECV, "receive");
		KUNIT_EXPECT_EQ_MSG(test, wc.byte_len, size, "byte_len of a %u-byte send", size);
		KUNIT_EXPECT_PTR_EQ(test, wc.qp, c->qb.qp);
		KUNIT_EXPECT_EQ(test, wc.src_qp, c->qa.qp->qp_num);
		tl_check(c, &c->b, 0, size, i, "received data");
	}
	tl_expect_empty(c, &c->qa, "A");
	tl_expect_empty(c, &c->qb, "B");
}

static void tl_write(struct kunit *test, bool imm)
{
	static const u32 sizes[] = { 1, 4096, SZ_64K, SZ_1M - TL_RO_SIZE };
	struct tl_ctx *c = test->priv;
	struct ib_wc wc;
	int i;

	tl_need_fastreg(c);
	tl_pair(c, &tl_rc, &tl_rc);
	tl_reg_b(c);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 size = sizes[i], immv = 0xc0de0000 | i;
		struct kvh_op op = {
			.opcode = imm ? IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE, .wr_id = i,
			.laddr = c->a.dma, .len = size, .raddr = c->mr->iova,
			.rkey = c->mr->rkey, .imm_inv = immv,
		};

		if (size > c->max_msg || size > c->reg_len) {
			kunit_info(test, "%u bytes: over max_msg_sz %u or the registered %u, not written",
				   size, c->max_msg, c->reg_len);
			continue;
		}
		tl_zero(c, &c->b, 0, size);
		tl_fill(c, &c->a, 0, size, 10 + i);
		if (imm)
			tl_post_recv(c, &c->qb, 200 + i, 0, 0);
		tl_post(c, &c->qa, &op, 1);
		tl_expect(c, &c->qa, &wc, i, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, "RDMA WRITE");
		if (imm) {
			tl_expect(c, &c->qb, &wc, 200 + i, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
				  "receive of the immediate");
			KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_IMM);
			KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), immv);
			KUNIT_EXPECT_EQ(test, wc.byte_len, size);
		}
		tl_check(c, &c->b, 0, size, 10 + i, "written data");
	}
	/* A plain RDMA WRITE consumes no receive on B. */
	tl_expect_empty(c, &c->qb, "B");
}

static void live_rc_write(struct kunit *test)
{
	tl_write(test, false);
}

static void live_rc_write_imm(struct kunit *test)
{
	tl_write(test, true);
}

static void live_rc_read(struct kunit *test)
{
	static const u32 sizes[] = { 1, 4096, SZ_64K, SZ_1M - TL_RO_SIZE };
	struct tl_ctx *c = test->priv;
	struct ib_wc wc;
	int i;

	tl_need_fastreg(c);
	tl_pair(c, &tl_rc, &tl_rc);
	tl_reg_b(c);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 size = sizes[i];
		struct kvh_op op = {
			.opcode = IB_WR_RDMA_READ, .wr_id = i, .laddr = c->a.dma, .len = size,
			.raddr = c->mr->iova, .rkey = c->mr->rkey,
		};

		if (size > c->max_msg || size > c->reg_len) {
			kunit_info(test, "%u bytes: over max_msg_sz %u or the registered %u, not read",
				   size, c->max_msg, c->reg_len);
			continue;
		}
		tl_fill(c, &c->b, 0, size, 20 + i);
		tl_zero(c, &c->a, 0, size);
		tl_post(c, &c->qa, &op, 1);
		tl_expect(c, &c->qa, &wc, i, IB_WC_SUCCESS, IB_WC_RDMA_READ, "RDMA READ");
		KUNIT_EXPECT_EQ(test, wc.byte_len, size);
		tl_check(c, &c->a, 0, size, 20 + i, "read data");
	}
	tl_expect_empty(c, &c->qb, "B");
}

static void tl_atomic(struct tl_ctx *c, enum ib_wr_opcode opc, u64 cmp_add, u64 swap,
		      u64 expect_ret, const char *what)
{
	struct kvh_op op = {
		.opcode = opc, .wr_id = 3, .laddr = c->a.dma + 64, .len = 8,
		.raddr = c->mr->iova + 8, .rkey = c->mr->rkey, .cmp_add = cmp_add, .swap = swap,
	};
	struct ib_wc wc;

	tl_put64(c, &c->a, 64, 0xdeadbeefdeadbeefULL);
	tl_post(c, &c->qa, &op, 1);
	tl_expect(c, &c->qa, &wc, 3, IB_WC_SUCCESS,
		  opc == IB_WR_ATOMIC_CMP_AND_SWP ? IB_WC_COMP_SWAP : IB_WC_FETCH_ADD, what);
	KUNIT_EXPECT_EQ_MSG(c->test, tl_get64(c, &c->a, 64), expect_ret, "%s returned", what);
}

static void tl_atomics(struct kunit *test, bool cas)
{
	const u64 v0 = cas ? 0x1111222233334444ULL : 1000, v1 = 0x5555666677778888ULL;
	struct tl_ctx *c = test->priv;

	tl_need_fastreg(c);
	if (c->dev->attrs.atomic_cap == IB_ATOMIC_NONE)
		kunit_skip(test, "device reports atomic_cap IB_ATOMIC_NONE");
	tl_pair(c, &tl_rc, &tl_rc);
	tl_reg_b(c);
	tl_put64(c, &c->b, 8, v0);
	if (cas) {
		tl_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, v0, v1, v0, "CMP_AND_SWP (equal)");
		KUNIT_EXPECT_EQ(test, tl_get64(c, &c->b, 8), v1);
		tl_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, v0, 0x99, v1, "CMP_AND_SWP (different)");
		KUNIT_EXPECT_EQ(test, tl_get64(c, &c->b, 8), v1);
	} else {
		tl_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 24, 0, v0, "FETCH_AND_ADD 24");
		tl_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 1ULL << 32, 0, v0 + 24,
			  "FETCH_AND_ADD 2^32");
		KUNIT_EXPECT_EQ(test, tl_get64(c, &c->b, 8), v0 + 24 + (1ULL << 32));
	}
	/* The neighbours of the target are untouched. */
	KUNIT_EXPECT_EQ(test, tl_get64(c, &c->b, 0), 0);
	KUNIT_EXPECT_EQ(test, tl_get64(c, &c->b, 16), 0);
}

static void live_atomic_cmp_swp(struct kunit *test)
{
	tl_atomics(test, true);
}

static void live_atomic_fetch_add(struct kunit *test)
{
	tl_atomics(test, false);
}

/*
 * Sends of different sizes into B's shared receive queue, consumed in order; the SRQ's limit,
 * armed at 6 with 8 receives posted, raises one IB_EVENT_SRQ_LIMIT_REACHED (the device's
 * SRQ_RQ_LIMIT event naming the SRQ's number, an RMP's at ISSI 1).
 */
static void live_srq_recv(struct kunit *test)
{
	const struct tl_qp_opts osrq = { .srq = true, .rnr_retry = 7 };
	struct ib_srq_attr limit = { .srq_limit = 6 };
	struct tl_ctx *c = test->priv;
	const u32 slot = 4096;
	unsigned long end;
	struct ib_wc wc;
	u32 i;

	if (!c->dev->attrs.max_srq)
		kunit_skip(test, "device reports max_srq 0");
	tl_pair(c, &tl_rc, &osrq);
	for (i = 0; i < 8; i++)
		tl_post_recv(c, &c->qb, 300 + i, c->b.dma + i * slot, slot);
	KUNIT_EXPECT_EQ(test, ib_modify_srq(c->qb.srq, &limit, IB_SRQ_LIMIT), 0);
	for (i = 0; i < 8; i++) {
		struct kvh_op op = { .opcode = IB_WR_SEND, .wr_id = i,
				    .laddr = c->a.dma + i * slot, .len = 100 * (i + 1) };

		tl_fill(c, &c->a, i * slot, op.len, 30 + i);
		tl_post(c, &c->qa, &op, 1);
		tl_expect(c, &c->qa, &wc, i, IB_WC_SUCCESS, IB_WC_SEND, "send");
		tl_expect(c, &c->qb, &wc, 300 + i, IB_WC_SUCCESS, IB_WC_RECV, "SRQ receive");
		KUNIT_EXPECT_PTR_EQ(test, wc.qp, c->qb.qp);
		KUNIT_EXPECT_EQ(test, wc.byte_len, op.len);
		tl_check(c, &c->b, i * slot, op.len, 30 + i, "SRQ data");
	}
	/* posted-but-unconsumed fell below 6 at the third receive; the device disarmed */
	end = jiffies + msecs_to_jiffies(TL_EVENT_TIMEOUT_MS);
	while (!atomic_read(&c->srq_limit_events) && !time_after(jiffies, end))
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&c->srq_limit_events), 1,
			    "SRQ limit events after 8 receives with the limit at 6");
	KUNIT_EXPECT_FALSE_MSG(test, c->srq_other_event, "another SRQ event came");
}

static void tl_ud(struct kunit *test, bool mcast)
{
	const struct tl_qp_opts oud = { .ud = true };
	struct tl_ctx *c = test->priv;
	u32 size = ib_mtu_enum_to_int(c->mtu);
	struct ib_ud_wr wr;
	struct ib_sge sge;
	union ib_gid mgid;
	struct ib_wc wc;
	int err;

	if (mcast && !c->dev->attrs.max_mcast_grp)
		kunit_skip(test, "device reports max_mcast_grp 0");
	tl_pair(c, &oud, &oud);
	if (mcast) {
		memcpy(mgid.raw, tl_mgid, sizeof(mgid.raw));
		err = ib_attach_mcast(c->qb.qp, &mgid, TL_MLID);
		KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_attach_mcast(MLID 0x%x): %d", TL_MLID, err);
		c->mc_attached = true;
	}
	tl_create_ah(c, mcast);

	tl_zero(c, &c->b, 0, size + TL_UD_GRH);
	tl_post_recv(c, &c->qb, 400, c->b.dma, size + TL_UD_GRH);
	tl_fill(c, &c->a, 0, size, 40);
	sge = (struct ib_sge){ .addr = c->a.dma, .length = size, .lkey = c->pd->local_dma_lkey };
	tl_ud_wr(c, &wr, &sge, 401, IB_WR_SEND, mcast ? IB_MULTICAST_QPN : c->qb.qp->qp_num);
	err = ib_post_send(c->qa.qp, &wr.wr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(UD): %d", err);
	tl_expect(c, &c->qa, &wc, 401, IB_WC_SUCCESS, IB_WC_SEND, "UD send");
	tl_expect(c, &c->qb, &wc, 400, IB_WC_SUCCESS, IB_WC_RECV, "UD receive");
	KUNIT_EXPECT_EQ(test, wc.byte_len, size + TL_UD_GRH);
	KUNIT_EXPECT_EQ(test, wc.src_qp, c->qa.qp->qp_num);
	KUNIT_EXPECT_EQ(test, wc.slid, c->lid);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);
	if (mcast)
		KUNIT_EXPECT_TRUE_MSG(test, wc.wc_flags & IB_WC_GRH, "multicast has a GRH");
	else
		KUNIT_EXPECT_FALSE(test, wc.wc_flags & IB_WC_GRH);
	tl_check(c, &c->b, TL_UD_GRH, size, 40, "UD payload");

	/* A datagram with the wrong Q_Key is dropped. */
	tl_post_recv(c, &c->qb, 402, c->b.dma, size + TL_UD_GRH);
	wr.wr.wr_id = 403;
	wr.remote_qkey = TL_QKEY + 1;
	err = ib_post_send(c->qa.qp, &wr.wr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(UD): %d", err);
	tl_expect(c, &c->qa, &wc, 403, IB_WC_SUCCESS, IB_WC_SEND, "UD send, bad Q_Key");
	msleep(100);
	tl_expect_empty(c, &c->qb, "B after a datagram with a bad Q_Key");
	if (mcast) {
		err = ib_detach_mcast(c->qb.qp, &mgid, TL_MLID);
		KUNIT_EXPECT_EQ(test, err, 0);
		c->mc_attached = false;
	}
}

static void live_ud_send_recv(struct kunit *test)
{
	tl_ud(test, false);
}

static void live_ud_multicast(struct kunit *test)
{
	tl_ud(test, true);
}

/*
 * A UD send that fails locally puts the QP in SQE; ib_query_qp() reports it and a
 * modify_qp(RTS) with only IB_QP_STATE brings it back -- what ib_ipoib's
 * ipoib_qp_state_validate_work() does after a failed send.
 */
static void live_ud_sqe_recovery(struct kunit *test)
{
	const struct tl_qp_opts oud = { .ud = true };
	struct tl_ctx *c = test->priv;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr qa = {};
	struct ib_ud_wr wr;
	struct ib_sge sge;
	struct ib_wc wc;
	int err;

	tl_pair(c, &oud, &oud);
	tl_create_ah(c, false);
	sge = (struct ib_sge){ .addr = c->a.dma, .length = 256, .lkey = tl_stale_key(c, false) };
	tl_ud_wr(c, &wr, &sge, 420, IB_WR_SEND, c->qb.qp->qp_num);
	err = ib_post_send(c->qa.qp, &wr.wr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(UD): %d", err);
	tl_expect(c, &c->qa, &wc, 420, IB_WC_LOC_PROT_ERR, -1, "UD send with a bad lkey");

	err = ib_query_qp(c->qa.qp, &qa, IB_QP_STATE, &ia);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, qa.qp_state, IB_QPS_SQE);
	qa.qp_state = IB_QPS_RTS;
	err = ib_modify_qp(c->qa.qp, &qa, IB_QP_STATE);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "SQE -> RTS with IB_QP_STATE only: %d", err);

	/* and it sends again */
	tl_post_recv(c, &c->qb, 421, c->b.dma, 256 + TL_UD_GRH);
	tl_fill(c, &c->a, 0, 256, 42);
	sge.lkey = c->pd->local_dma_lkey;
	wr.wr.wr_id = 422;
	err = ib_post_send(c->qa.qp, &wr.wr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(UD) after recovery: %d", err);
	tl_expect(c, &c->qa, &wc, 422, IB_WC_SUCCESS, IB_WC_SEND, "UD send after recovery");
	tl_expect(c, &c->qb, &wc, 421, IB_WC_SUCCESS, IB_WC_RECV, "UD receive");
	tl_check(c, &c->b, TL_UD_GRH, 256, 42, "UD payload after recovery");
}

/*
 * IPoIB QPs (IB_QP_CREATE_IPOIB_UD_LSO): an IB_WR_LSO with IPoIB + IPv4 + TCP headers and
 * 3000 bytes of payload arrives as three TCP segments of at most 1200 bytes, each with a
 * good checksum (checked here with the kernel's own csum helpers) and IB_WC_IP_CSUM_OK.
 */
#define TL_LSO_MSS	1200
#define TL_LSO_LEN	3000
#define TL_LSO_HLEN	(4 + sizeof(struct iphdr) + sizeof(struct tcphdr))

static void live_ipoib_lso(struct kunit *test)
{
	const struct tl_qp_opts oip = { .ud = true, .ipoib = true };
	struct tl_ctx *c = test->priv;
	u8 hdr[TL_LSO_HLEN] = { 0x08, 0x00 };	/* IPoIB header: IPv4 */
	struct iphdr *ip = (struct iphdr *)(hdr + 4);
	struct tcphdr *th = (struct tcphdr *)(ip + 1);
	u32 slot = TL_LSO_MSS + TL_LSO_HLEN + TL_UD_GRH;
	struct ib_ud_wr wr;
	struct ib_sge sge;
	struct ib_wc wc;
	int err, k;
	u32 i;

	if (!(c->dev->attrs.device_cap_flags & IB_DEVICE_UD_IP_CSUM) ||
	    !(c->dev->attrs.kernel_cap_flags & IBK_UD_TSO))
		kunit_skip(test, "the device has no IPoIB offloads");
	tl_pair(c, &oip, &oip);
	tl_create_ah(c, false);

	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(sizeof(*ip) + sizeof(*th) + TL_LSO_LEN);
	ip->id = htons(0x4242);
	ip->ttl = 64;
	ip->protocol = IPPROTO_TCP;
	ip->saddr = htonl(0xc6336401);
	ip->daddr = htonl(0xc6336402);
	th->source = htons(40000);
	th->dest = htons(5201);
	th->seq = htonl(1000);
	th->doff = sizeof(*th) / 4;
	th->ack = 1;
	th->psh = 1;
	th->window = htons(512);
	for (k = 0; k < 3; k++)
		tl_post_recv(c, &c->qb, 430 + k, c->b.dma + k * slot, slot);
	tl_fill(c, &c->a, 0, TL_LSO_LEN, 43);
	sge = (struct ib_sge){ .addr = c->a.dma, .length = TL_LSO_LEN,
			       .lkey = c->pd->local_dma_lkey };
	tl_ud_wr(c, &wr, &sge, 433, IB_WR_LSO, c->qb.qp->qp_num);
	wr.wr.send_flags |= IB_SEND_IP_CSUM;
	wr.header = hdr;
	wr.hlen = TL_LSO_HLEN;
	wr.mss = TL_LSO_MSS;
	err = ib_post_send(c->qa.qp, &wr.wr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(LSO): %d", err);
	tl_expect(c, &c->qa, &wc, 433, IB_WC_SUCCESS, IB_WC_LSO, "LSO send");
	for (k = 0; k < 3; k++) {
		u32 n = min_t(u32, TL_LSO_MSS, TL_LSO_LEN - k * TL_LSO_MSS);
		u8 *seg = c->b.va + k * slot + TL_UD_GRH;
		struct iphdr *sip = (struct iphdr *)(seg + 4);
		struct tcphdr *sth = (struct tcphdr *)(sip + 1);

		tl_expect(c, &c->qb, &wc, 430 + k, IB_WC_SUCCESS, IB_WC_RECV, "LSO segment");
		KUNIT_EXPECT_EQ(test, wc.byte_len, TL_UD_GRH + TL_LSO_HLEN + n);
		KUNIT_EXPECT_TRUE_MSG(test, wc.wc_flags & IB_WC_IP_CSUM_OK, "segment %d", k);
		ib_dma_sync_single_for_cpu(c->dev, c->b.dma + k * slot, slot, DMA_BIDIRECTIONAL);
		KUNIT_EXPECT_EQ(test, ntohs(sip->tot_len), sizeof(*sip) + sizeof(*sth) + n);
		KUNIT_EXPECT_EQ(test, ntohs(sip->id), 0x4242 + k);
		KUNIT_EXPECT_EQ(test, ip_fast_csum(sip, sip->ihl), 0);
		KUNIT_EXPECT_EQ(test, ntohl(sth->seq), 1000 + k * TL_LSO_MSS);
		KUNIT_EXPECT_EQ(test, !!sth->psh, k == 2);
		KUNIT_EXPECT_EQ(test, csum_tcpudp_magic(sip->saddr, sip->daddr, sizeof(*sth) + n,
							IPPROTO_TCP,
							csum_partial(sth, sizeof(*sth) + n, 0)), 0);
		for (i = 0; i < n; i++)
			if (seg[TL_LSO_HLEN + i] != kvh_pat(43, k * TL_LSO_MSS + i))
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, n, "segment %d: payload differs at byte %u", k, i);
	}
}

static void tl_write_expect(struct tl_ctx *c, u32 rkey, u64 raddr, u32 len,
			    enum ib_wc_status status, const char *what)
{
	struct kvh_op op = {
		.opcode = IB_WR_RDMA_WRITE, .wr_id = 5, .laddr = c->a.dma, .len = len,
		.raddr = raddr, .rkey = rkey,
	};
	struct ib_wc wc;

	tl_post(c, &c->qa, &op, 1);
	tl_expect(c, &c->qa, &wc, 5, status, IB_WC_RDMA_WRITE, what);
}

/*
 * Fast registration: B registers a region with REG_MR and A writes through its rkey;
 * LOCAL_INV revokes it (a write is refused); a new key registered over the same MR is
 * revoked by A's SEND_WITH_INV (a write is refused again).
 */
static void live_fastreg_inv(struct kunit *test)
{
	const int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	struct tl_ctx *c = test->priv;
	struct ib_send_wr inv = {
		.wr_id = 0xfd, .opcode = IB_WR_LOCAL_INV, .send_flags = IB_SEND_SIGNALED,
	};
	u32 key1, key2;
	struct ib_wc wc;
	int err;

	tl_need_fastreg(c);
	tl_pair(c, &tl_rc, &tl_rc);
	c->mr_fr = tl_alloc_mr(c, TL_FR_SIZE);
	tl_reg_mr(c, &c->qb, c->mr_fr, &c->b, 0, TL_FR_SIZE, acc);
	key1 = c->mr_fr->rkey;
	tl_zero(c, &c->b, 0, TL_FR_SIZE);
	tl_fill(c, &c->a, 0, TL_FR_SIZE, 50);
	tl_write_expect(c, key1, c->mr_fr->iova, TL_FR_SIZE, IB_WC_SUCCESS,
			"WRITE through the fast-registered rkey");
	tl_check(c, &c->b, 0, TL_FR_SIZE, 50, "data written through the rkey");

	inv.ex.invalidate_rkey = key1;
	err = ib_post_send(c->qb.qp, &inv, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send(LOCAL_INV): %d", err);
	tl_expect(c, &c->qb, &wc, 0xfd, IB_WC_SUCCESS, IB_WC_LOCAL_INV, "LOCAL_INV");
	tl_zero(c, &c->b, 0, TL_FR_SIZE);
	tl_write_expect(c, key1, c->mr_fr->iova, TL_FR_SIZE, IB_WC_REM_ACCESS_ERR,
			"WRITE after LOCAL_INV");
	KUNIT_EXPECT_EQ_MSG(test, tl_get64(c, &c->b, 0), 0, "the refused write wrote");

	/* The pair is in the error state now: a new one, a new key. */
	tl_pair(c, &tl_rc, &tl_rc);
	ib_update_fast_reg_key(c->mr_fr, ib_inc_rkey(c->mr_fr->rkey));
	tl_reg_mr(c, &c->qb, c->mr_fr, &c->b, 0, TL_FR_SIZE, acc);
	key2 = c->mr_fr->rkey;
	KUNIT_EXPECT_NE(test, key2, key1);
	tl_write_expect(c, key2, c->mr_fr->iova, 64, IB_WC_SUCCESS, "WRITE through the new key");
	tl_post_recv(c, &c->qb, 500, c->b.dma + TL_FR_SIZE, 64);
	{
		struct kvh_op op = { .opcode = IB_WR_SEND_WITH_INV, .wr_id = 7,
				    .laddr = c->a.dma, .len = 64, .imm_inv = key2 };

		tl_post(c, &c->qa, &op, 1);
	}
	tl_expect(c, &c->qa, &wc, 7, IB_WC_SUCCESS, IB_WC_SEND, "SEND_WITH_INV");
	tl_expect(c, &c->qb, &wc, 500, IB_WC_SUCCESS, IB_WC_RECV, "SEND_WITH_INV receive");
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, key2);
	tl_write_expect(c, key2, c->mr_fr->iova, 64, IB_WC_REM_ACCESS_ERR,
			"WRITE after SEND_WITH_INV");
}

#define TL_BIG_PAGES		512
#define TL_UMR_ENTRIES		70000	/* past one CREATE_MKEY (32768): three UMR pieces */
#define TL_UMR_IOVA		0x5000000000ull

/*
 * A fast registration of 512 pages (NVMe-oF asks for 256 and more) allocated one by one and
 * listed in reverse order: A writes 2 MiB through the rkey, in two 1 MiB halves, and each
 * page holds the slice its place in the list says.
 */
static void live_fastreg_large_list(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct scatterlist *sg;
	struct ib_mr *mr;
	unsigned int i, k;
	bool same;
	int half;

	tl_need_fastreg(c);
	KUNIT_ASSERT_GE(test, c->dev->attrs.max_fast_reg_page_list_len, TL_BIG_PAGES);
	tl_pair(c, &tl_rc, &tl_rc);
	c->big_pg = kunit_kcalloc(test, TL_BIG_PAGES, sizeof(*c->big_pg), GFP_KERNEL);
	c->big_dma = kunit_kcalloc(test, TL_BIG_PAGES, sizeof(*c->big_dma), GFP_KERNEL);
	sg = kunit_kcalloc(test, TL_BIG_PAGES, sizeof(*sg), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c->big_pg && c->big_dma && sg);
	for (; c->big_n < TL_BIG_PAGES; c->big_n++) {
		struct page *pg = alloc_page(GFP_KERNEL | __GFP_ZERO);

		KUNIT_ASSERT_NOT_NULL(test, pg);
		c->big_dma[c->big_n] = ib_dma_map_page(c->dev, pg, 0, PAGE_SIZE,
						       DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(c->dev, c->big_dma[c->big_n])) {
			__free_page(pg);
			KUNIT_FAIL_AND_ABORT(test, "cannot map page %u", c->big_n);
		}
		c->big_pg[c->big_n] = pg;
	}
	sg_init_table(sg, TL_BIG_PAGES);
	for (k = 0; k < TL_BIG_PAGES; k++) {
		i = TL_BIG_PAGES - 1 - k;
		sg_set_page(&sg[k], c->big_pg[i], PAGE_SIZE, 0);
		sg_dma_address(&sg[k]) = c->big_dma[i];
		sg_dma_len(&sg[k]) = PAGE_SIZE;
	}
	mr = tl_alloc_mr(c, TL_BIG_PAGES * PAGE_SIZE);
	c->mr_fr = mr;
	tl_reg_mr_sg(c, &c->qb, mr, sg, TL_BIG_PAGES,
		     IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	KUNIT_ASSERT_EQ(test, mr->length, TL_BIG_PAGES * PAGE_SIZE);

	for (half = 0; half < 2; half++) {
		u64 off = (u64)half * TL_BUF_SIZE;

		tl_fill(c, &c->a, 0, TL_BUF_SIZE, 60 + half);
		tl_write_expect(c, mr->rkey, mr->iova + off, TL_BUF_SIZE, IB_WC_SUCCESS,
				"WRITE of 1 MiB through the 512-page registration");
		for (k = off / PAGE_SIZE; k < (off + TL_BUF_SIZE) / PAGE_SIZE; k++) {
			i = TL_BIG_PAGES - 1 - k;
			ib_dma_sync_single_for_cpu(c->dev, c->big_dma[i], PAGE_SIZE,
						   DMA_BIDIRECTIONAL);
			same = !memcmp(page_address(c->big_pg[i]), c->a.va + k * PAGE_SIZE - off,
				       PAGE_SIZE);
			KUNIT_EXPECT_TRUE_MSG(test, same, "list entry %u (page %u): not its slice",
					      k, i);
		}
	}
}

/*
 * A key whose table (70000 entries) does not fit one CREATE_MKEY: created free and loaded
 * by the UMR QP in pieces (cxib_mkey_create_mtt(), as a large user MR is).  Every entry
 * names one of the first three pages of B's buffer, entry i page i % 3 (a piece of 2^15
 * entries loaded at the wrong place shows); writes through the key at entries on both
 * sides of each piece's edge land in the page and at the offset the table says.  A write
 * past the key's end is refused.
 */
static void live_umr_large_table(struct kunit *test)
{
	static const u32 ent[] = { 0, 1, 32767, 32768, 32769, 65535, 65536, 69999 };
	struct tl_ctx *c = test->priv;
	struct cxib_mkc mkc = {};
	u8 variant;
	u32 key, i;
	int err;

	tl_pair(c, &tl_rc, &tl_rc);
	KUNIT_ASSERT_EQ(test, c->b.dma & (PAGE_SIZE - 1), 0);
	c->mtt = kvcalloc(ALIGN(TL_UMR_ENTRIES, CXIB_MTT_PER_OCTWORD), sizeof(*c->mtt),
			  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->mtt);
	for (i = 0; i < TL_UMR_ENTRIES; i++)
		c->mtt[i] = c->b.dma + (i % 3) * PAGE_SIZE;

	variant = (u8)atomic_inc_return(&tl_dev->mkey_variant);
	CXIB_SET(&mkc, CXIB_MKC_ACCESS_MODE_1_0, CXIB_MKC_ACCESS_MODE_MTT & 3);
	CXIB_SET(&mkc, CXIB_MKC_ACCESS_MODE_4_2, CXIB_MKC_ACCESS_MODE_MTT >> 2);
	CXIB_SET(&mkc, CXIB_MKC_LR, 1);
	CXIB_SET(&mkc, CXIB_MKC_LW, 1);
	CXIB_SET(&mkc, CXIB_MKC_RW, 1);
	CXIB_SET(&mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(&mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(&mkc, CXIB_MKC_PD, to_cxib_pd(c->pd)->pdn);
	CXIB_SET64(&mkc, CXIB_MKC_START_ADDR, TL_UMR_IOVA);
	CXIB_SET64(&mkc, CXIB_MKC_LEN, (u64)TL_UMR_ENTRIES * PAGE_SIZE);
	CXIB_SET(&mkc, CXIB_MKC_LOG_PAGE_SIZE, PAGE_SHIFT);
	err = cxib_mkey_create_mtt(tl_dev, &mkc, c->mtt, TL_UMR_ENTRIES, &c->umr_mkey_index);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "key of %u entries: %d", TL_UMR_ENTRIES, err);
	c->umr_mkey = true;
	key = CXIB_MKEY(c->umr_mkey_index, variant);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_FREE), 1);	/* it went by UMR */

	tl_zero(c, &c->b, 0, 3 * PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(ent); i++) {
		tl_fill(c, &c->a, 0, 64, 70 + i);
		tl_write_expect(c, key, TL_UMR_IOVA + (u64)ent[i] * PAGE_SIZE + i * 64, 64,
				IB_WC_SUCCESS, "WRITE through the UMR-loaded key");
	}
	for (i = 0; i < ARRAY_SIZE(ent); i++)
		tl_check(c, &c->b, (ent[i] % 3) * PAGE_SIZE + i * 64, 64, 70 + i,
			 "data written at a table entry");
	tl_write_expect(c, key, TL_UMR_IOVA + (u64)TL_UMR_ENTRIES * PAGE_SIZE, 64,
			IB_WC_REM_ACCESS_ERR, "WRITE past the key's end");
}

/* A send with an lkey no MR has fails locally; the responder sees nothing. */
static void live_err_bad_lkey(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct kvh_op op = { .opcode = IB_WR_SEND, .wr_id = 30, .len = 256 };
	struct ib_wc wc;

	tl_pair(c, &tl_rc, &tl_rc);
	tl_post_recv(c, &c->qb, 600, c->b.dma, 256);
	op.laddr = c->a.dma;
	op.lkey = tl_stale_key(c, false);
	tl_post(c, &c->qa, &op, 1);
	tl_expect(c, &c->qa, &wc, 30, IB_WC_LOC_PROT_ERR, -1, "send with a bad lkey");
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, c->qa.qp);
	msleep(50);
	tl_expect_empty(c, &c->qb, "B");
}

static void live_err_bad_rkey(struct kunit *test)
{
	struct tl_ctx *c = test->priv;

	tl_need_fastreg(c);
	tl_pair(c, &tl_rc, &tl_rc);
	tl_reg_b(c);
	tl_write_expect(c, tl_stale_key(c, true), c->mr->iova, 256, IB_WC_REM_ACCESS_ERR,
			"WRITE with a bad rkey");
}

/* Reading through a read-only key works; writing through it is refused. */
static void live_err_ro_write(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct kvh_op op = { .opcode = IB_WR_RDMA_READ, .wr_id = 32, .len = TL_RO_SIZE };
	struct ib_wc wc;

	tl_need_fastreg(c);
	tl_pair(c, &tl_rc, &tl_rc);
	tl_reg_b(c);
	tl_fill(c, &c->b, c->b.len - TL_RO_SIZE, TL_RO_SIZE, 77);
	tl_zero(c, &c->a, 0, TL_RO_SIZE);
	op.laddr = c->a.dma;
	op.raddr = c->mr_ro->iova;
	op.rkey = c->mr_ro->rkey;
	tl_post(c, &c->qa, &op, 1);
	tl_expect(c, &c->qa, &wc, 32, IB_WC_SUCCESS, IB_WC_RDMA_READ,
		  "READ through the read-only rkey");
	tl_check(c, &c->a, 0, TL_RO_SIZE, 77, "read-only region");
	tl_fill(c, &c->a, 0, TL_RO_SIZE, 78);
	tl_write_expect(c, c->mr_ro->rkey, c->mr_ro->iova, TL_RO_SIZE, IB_WC_REM_ACCESS_ERR,
			"WRITE through the read-only rkey");
	tl_check(c, &c->b, c->b.len - TL_RO_SIZE, TL_RO_SIZE, 77, "read-only region after");
}

/* No receive posted and rnr_retry 0: the first RNR NAK ends the send. */
static void live_err_rnr_retry(struct kunit *test)
{
	const struct tl_qp_opts no_retry = { .rnr_retry = 0 };
	struct tl_ctx *c = test->priv;
	struct kvh_op op = { .opcode = IB_WR_SEND, .wr_id = 34, .len = 64 };
	struct ib_wc wc;

	tl_pair(c, &no_retry, &tl_rc);
	op.laddr = c->a.dma;
	tl_post(c, &c->qa, &op, 1);
	tl_expect(c, &c->qa, &wc, 34, IB_WC_RNR_RETRY_EXC_ERR, -1,
		  "SEND with no receive posted, rnr_retry 0");
	tl_expect_empty(c, &c->qb, "B");
}

/* After an error completion the QP's other work requests are flushed, in order. */
static void live_err_flush(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct kvh_op ops[3];
	struct ib_wc wc;
	int i;

	tl_pair(c, &tl_rc, &tl_rc);
	for (i = 0; i < 3; i++) {
		tl_post_recv(c, &c->qb, 700 + i, c->b.dma + i * 256, 256);
		ops[i] = (struct kvh_op){ .opcode = IB_WR_SEND, .wr_id = 30 + i,
					 .laddr = c->a.dma + i * 256, .len = 256 };
	}
	ops[0].lkey = tl_stale_key(c, false);
	tl_post(c, &c->qa, ops, 3);
	tl_expect(c, &c->qa, &wc, 30, IB_WC_LOC_PROT_ERR, -1, "send with a bad lkey");
	tl_expect(c, &c->qa, &wc, 31, IB_WC_WR_FLUSH_ERR, -1, "second send");
	tl_expect(c, &c->qa, &wc, 32, IB_WC_WR_FLUSH_ERR, -1, "third send");
	/* A receive posted to the QP in the error state is flushed too. */
	tl_post_recv(c, &c->qa, 710, c->a.dma, 64);
	tl_expect(c, &c->qa, &wc, 710, IB_WC_WR_FLUSH_ERR, -1, "receive on the failed QP");
	tl_expect_empty(c, &c->qa, "A");
}

/*
 * ib_drain_qp() waits, without a timeout, for work requests it posts to a QP in the error
 * state to be flushed.  So first see, on a QP of its own, that the device flushes a
 * receive and a send posted in the error state; if it does not, fail rather than hang.
 */
static void tl_flush_probe(struct tl_ctx *c)
{
	struct kunit *test = c->test;
	struct kvh_drain_cqe d[2] = {};
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct ib_sge sge = { .addr = c->a.dma, .length = 64, .lkey = c->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1, .wr_cqe = &d[0].cqe };
	struct ib_send_wr swr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
				  .sg_list = &sge, .num_sge = 1, .wr_cqe = &d[1].cqe };
	int err;

	tl_q_create(c, &c->qx, &tl_rc);
	err = ib_modify_qp(c->qx.qp, &a, IB_QP_STATE);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_modify_qp to ERR: %d", err);
	d[0].cqe.done = kvh_drain_done;
	d[1].cqe.done = kvh_drain_done;
	err = ib_post_recv(c->qx.qp, &rwr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_recv in ERR: %d", err);
	err = ib_post_send(c->qx.qp, &swr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_send in ERR: %d", err);
	KUNIT_ASSERT_TRUE_MSG(test, kvh_drain_wait(c->qx.cq, d, 2, TL_WC_TIMEOUT_MS),
			      "WRs posted in ERR not flushed (%d, %d): ib_drain_qp() would hang",
			      d[0].done, d[1].done);
	KUNIT_EXPECT_EQ(test, d[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, d[1].status, IB_WC_WR_FLUSH_ERR);
}

/* ib_drain_qp() on a connected QP returns with its posted receives flushed. */
static void live_drain_qp(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct kvh_drain_cqe d[4] = {};
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	int i, err;

	tl_flush_probe(c);
	tl_pair(c, &tl_rc, &tl_rc);
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		struct ib_sge sge = { .addr = c->a.dma, .length = 64,
				      .lkey = c->pd->local_dma_lkey };
		struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

		d[i].cqe.done = kvh_drain_done;
		wr.wr_cqe = &d[i].cqe;
		err = ib_post_recv(c->qa.qp, &wr, NULL);
		KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_recv: %d", err);
	}
	ib_drain_qp(c->qa.qp);
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		KUNIT_EXPECT_EQ_MSG(test, d[i].done, 1, "receive %d completions", i);
		KUNIT_EXPECT_EQ_MSG(test, d[i].status, IB_WC_WR_FLUSH_ERR, "receive %d status", i);
	}
	err = ib_query_qp(c->qa.qp, &a, IB_QP_STATE, &ia);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_ERR);
}

/*
 * Once the device is dead (marked so here; the firmware itself lives on), a post fails with
 * -EIO and takes nothing, so a ULP fails the request at once; ib_drain_qp() still returns,
 * every receive posted before the death flushed by the driver.
 */
static void live_dead_device_posts_fail_and_drain_returns(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct kvh_drain_cqe d[2] = {};
	struct ib_sge sge = { .addr = c->a.dma, .length = 64, .lkey = c->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ib_send_wr swr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
				  .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *rbad = NULL;
	const struct ib_send_wr *sbad = NULL;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	int i, err;

	tl_pair(c, &tl_rc, &tl_rc);
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		d[i].cqe.done = kvh_drain_done;
		rwr.wr_cqe = &d[i].cqe;
		err = ib_post_recv(c->qa.qp, &rwr, NULL);
		KUNIT_ASSERT_EQ_MSG(test, err, 0, "ib_post_recv: %d", err);
	}
	/* no assertion until the device lives again: the later cases need it */
	set_bit(CXIB_DEV_DEAD, &tl_dev->flags);
	KUNIT_EXPECT_EQ(test, ib_post_send(c->qa.qp, &swr, &sbad), -EIO);
	KUNIT_EXPECT_PTR_EQ(test, sbad, &swr);
	rwr.wr_cqe = NULL;
	KUNIT_EXPECT_EQ(test, ib_post_recv(c->qa.qp, &rwr, &rbad), -EIO);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr);
	ib_drain_qp(c->qa.qp);
	err = ib_query_qp(c->qa.qp, &a, IB_QP_STATE, &ia);
	clear_bit(CXIB_DEV_DEAD, &tl_dev->flags);
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		KUNIT_EXPECT_EQ_MSG(test, d[i].done, 1, "receive %d completions", i);
		KUNIT_EXPECT_EQ_MSG(test, d[i].status, IB_WC_WR_FLUSH_ERR, "receive %d status", i);
	}
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_ERR);
	tl_expect_empty(c, &c->qa, "A");
}

static unsigned long tl_xa_count(struct xarray *xa)
{
	unsigned long idx, n = 0;
	void *entry;

	xa_for_each(xa, idx, entry)
		n++;
	return n;
}

/*
 * Once the device is dead, creating a CQ, QP, SRQ or MR fails with -EIO and leaves nothing
 * behind (create unwinds what it had allocated before its command failed); once it lives
 * again the same creates work.
 */
static void live_dead_device_creates_fail_cleanly(struct kunit *test)
{
	struct tl_ctx *c = test->priv;
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ib_qp_init_attr ia = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	unsigned long ncq, nqp, nsrq;
	struct ib_srq *srq;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;

	tl_q_create(c, &c->qa, &tl_rc);
	ia.send_cq = c->qa.cq;
	ia.recv_cq = c->qa.cq;
	ncq = tl_xa_count(&tl_dev->cqs);
	nqp = tl_xa_count(&tl_dev->qps);
	nsrq = tl_xa_count(&tl_dev->srqs);

	/* no assertion until the device lives again: the later cases need it */
	set_bit(CXIB_DEV_DEAD, &tl_dev->flags);
	cq = ib_alloc_cq(c->dev, NULL, 8, 0, IB_POLL_DIRECT);
	qp = ib_create_qp(c->pd, &ia);
	srq = ib_create_srq(c->pd, &sa);
	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 4);
	clear_bit(CXIB_DEV_DEAD, &tl_dev->flags);

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(cq), -EIO);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EIO);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(srq), -EIO);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EIO);
	if (!IS_ERR(cq))
		ib_free_cq(cq);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	if (!IS_ERR(srq))
		ib_destroy_srq(srq);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	KUNIT_EXPECT_EQ(test, tl_xa_count(&tl_dev->cqs), ncq);
	KUNIT_EXPECT_EQ(test, tl_xa_count(&tl_dev->qps), nqp);
	KUNIT_EXPECT_EQ(test, tl_xa_count(&tl_dev->srqs), nsrq);

	qp = ib_create_qp(c->pd, &ia);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(qp), "ib_create_qp alive again: %ld", PTR_ERR(qp));
	if (!IS_ERR(qp)) {
		KUNIT_EXPECT_EQ(test, tl_xa_count(&tl_dev->qps), nqp + 1);
		ib_destroy_qp(qp);
	}
}

static void tl_cq_event(struct ib_event *ev, void *ctx)
{
	struct tl_ctx *c = ctx;

	if (ev->event == IB_EVENT_CQ_ERR && ev->element.cq == c->small_cq)
		atomic_inc(&c->cq_err_events);
	else
		c->cq_err_cq = ev->element.cq;	/* anything else is a failure */
}

/* More completions than a CQ holds, none polled: the CQ's event handler hears of it. */
static void live_cq_overrun(struct kunit *test)
{
	struct ib_cq_init_attr ca = { .cqe = 1 };
	struct tl_ctx *c = test->priv;
	struct ib_qp_init_attr ia = {};
	unsigned long end;
	int i, n, err;

	c->small_cq = ib_create_cq(c->dev, NULL, tl_cq_event, c, &ca);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->small_cq), "ib_create_cq: %ld",
			       PTR_ERR(c->small_cq));
	n = c->small_cq->cqe + 4;
	KUNIT_ASSERT_LE(test, n, TL_QP_DEPTH);

	/* A's sends complete on the small CQ; B takes them. */
	tl_pair(c, &tl_rc, &tl_rc);
	ib_destroy_qp(c->qa.qp);
	ia.send_cq = c->small_cq;
	ia.recv_cq = c->qa.cq;
	ia.qp_type = IB_QPT_RC;
	ia.sq_sig_type = IB_SIGNAL_REQ_WR;
	ia.cap.max_send_wr = TL_QP_DEPTH;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	c->qa.qp = ib_create_qp(c->pd, &ia);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->qa.qp), "ib_create_qp: %ld", PTR_ERR(c->qa.qp));
	{
		struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .port_num = c->port,
					.qp_access_flags = IB_ACCESS_LOCAL_WRITE };

		err = ib_modify_qp(c->qa.qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
				   IB_QP_ACCESS_FLAGS);
		KUNIT_ASSERT_EQ(test, err, 0);
	}
	/* B was connected to the old A: connect both again. */
	tl_q_close(&c->qb);
	tl_q_create(c, &c->qb, &tl_rc);
	tl_q_rts(c, &c->qa, &tl_rc, &c->qb);
	tl_q_rts(c, &c->qb, &tl_rc, &c->qa);

	for (i = 0; i < n; i++) {
		struct kvh_op op = { .opcode = IB_WR_SEND, .wr_id = i, .laddr = c->a.dma,
				    .len = 8 };

		tl_post_recv(c, &c->qb, 800 + i, c->b.dma, 8);
		tl_post(c, &c->qa, &op, 1);
	}
	end = jiffies + msecs_to_jiffies(TL_EVENT_TIMEOUT_MS);
	while (!atomic_read(&c->cq_err_events) && !time_after(jiffies, end))
		msleep(20);
	KUNIT_EXPECT_GE_MSG(test, atomic_read(&c->cq_err_events), 1,
			    "no IB_EVENT_CQ_ERR after %d completions on a CQ of %d", n,
			    c->small_cq->cqe);
	KUNIT_EXPECT_NULL_MSG(test, c->cq_err_cq, "another event came");
	/* The QP goes before its CQ. */
	ib_destroy_qp(c->qa.qp);
	c->qa.qp = NULL;
}

static struct kunit_case cxib_traffic_live_cases[] = {
	KUNIT_CASE(live_rc_send_recv),
	KUNIT_CASE(live_rc_write),
	KUNIT_CASE(live_rc_write_imm),
	KUNIT_CASE(live_rc_read),
	KUNIT_CASE(live_atomic_cmp_swp),
	KUNIT_CASE(live_atomic_fetch_add),
	KUNIT_CASE(live_srq_recv),
	KUNIT_CASE(live_ud_send_recv),
	KUNIT_CASE(live_ud_multicast),
	KUNIT_CASE(live_ud_sqe_recovery),
	KUNIT_CASE(live_ipoib_lso),
	KUNIT_CASE(live_fastreg_inv),
	KUNIT_CASE(live_fastreg_large_list),
	KUNIT_CASE(live_umr_large_table),
	KUNIT_CASE(live_err_bad_lkey),
	KUNIT_CASE(live_err_bad_rkey),
	KUNIT_CASE(live_err_ro_write),
	KUNIT_CASE(live_err_rnr_retry),
	KUNIT_CASE(live_err_flush),
	KUNIT_CASE(live_drain_qp),
	KUNIT_CASE(live_dead_device_posts_fail_and_drain_returns),
	KUNIT_CASE(live_dead_device_creates_fail_cleanly),
	KUNIT_CASE(live_cq_overrun),
	{}
};

static struct kunit_suite cxib_traffic_live_suite = {
	.name = "cxib_traffic_live",
	.suite_init = tl_suite_init,
	.suite_exit = tl_suite_exit,
	.init = tl_init,
	.exit = tl_exit,
	.test_cases = cxib_traffic_live_cases,
};

kunit_test_suite(cxib_traffic_live_suite);
