// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: PDs, the DMA MR, kernel CQs and an SRQ on a real cxib function (the cxib-pci
 * model in the KUnit VM), through the RDMA core's kernel verbs on the device cxib.ko
 * registered.
 *
 * Unlike the other live suites this one leaves the function to cxib.ko and holds a
 * reference on its ib_device.  What the verbs did in the device is read back with
 * QUERY_MKEY and QUERY_CQ, issued through the driver's fw.c (compiled into this module,
 * working on cxib.ko's device structure and command queue, which is the same code).
 * The cases check creation, the contexts the device holds, arming and destruction (of a
 * kernel SRQ too: an RMP at ISSI 1, read back with QUERY_RMP), and completion event
 * moderation (rdma_set_cq_moderation), whose CQEs come from receives posted to a QP in the
 * error state: the device flushes each one with an error CQE.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/pci.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "cxib_kunit.h"

/* How long the model's worker may take to act on an arm doorbell. */
#define CQ_LIVE_ARM_WAIT_MS	2000

static struct cxib_dev *cq_live_dev;
static atomic_t cq_live_comp_events;
/* The CPU the last completion event ran on. */
static atomic_t cq_live_comp_cpu;

static int cq_live_suite_init(struct kunit_suite *suite)
{
	struct pci_dev *pdev = cxib_kunit_find_function();
	struct cxib_dev *dev = NULL;

	cq_live_dev = NULL;
	if (!pdev)
		return 0;	/* each case skips or fails */
	device_lock(&pdev->dev);
	if (pdev->dev.driver && !strcmp(pdev->dev.driver->name, "cxib"))
		dev = pci_get_drvdata(pdev);
	if (dev && ib_device_try_get(&dev->ibdev))
		cq_live_dev = dev;
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	return 0;
}

static void cq_live_suite_exit(struct kunit_suite *suite)
{
	if (cq_live_dev)
		ib_device_put(&cq_live_dev->ibdev);
	cq_live_dev = NULL;
}

static int cq_live_init(struct kunit *test)
{
	if (!cq_live_dev) {
		KUNIT_ASSERT_FALSE_MSG(test, cxib_kunit_require_device,
				       "no registered cxib device found");
		kunit_skip(test, "no registered cxib device in this machine");
	}
	atomic_set(&cq_live_comp_events, 0);
	test->priv = cq_live_dev;
	return 0;
}

static void cq_live_comp(struct ib_cq *cq, void *ctx)
{
	atomic_set(&cq_live_comp_cpu, raw_smp_processor_id());
	atomic_inc(&cq_live_comp_events);
}

/* The device's state of the CQ, once it is @st or after CQ_LIVE_ARM_WAIT_MS. */
static u8 cq_live_wait_state(struct kunit *test, struct cxib_dev *dev, u32 cqn, u8 st)
{
	struct cxib_cqc cqc;
	unsigned int waited;
	u8 cur = 0;

	for (waited = 0; waited <= CQ_LIVE_ARM_WAIT_MS; waited += 20) {
		/* No assertion here: the caller still has to destroy the CQ. */
		if (cxib_cmd_query_cq(dev, cqn, &cqc)) {
			KUNIT_FAIL(test, "QUERY_CQ %u failed", cqn);
			break;
		}
		cur = CXIB_GET(&cqc, CXIB_CQC_ST);
		if (cur == st)
			break;
		msleep(20);
	}
	return cur;
}

/* ib_alloc_pd() makes a PD and, as no reserved lkey is offered, a PA key over everything. */
static void live_pd_gets_dma_mr(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct cxib_mkc mkc;
	struct ib_pd *pd;
	u32 lkey, index;

	pd = ib_alloc_pd(&dev->ibdev, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd));
	lkey = pd->local_dma_lkey;
	index = CXIB_MKEY_INDEX(lkey);
	KUNIT_EXPECT_NE(test, to_cxib_pd(pd)->pdn, 0);
	KUNIT_EXPECT_GE(test, index, 2);
	KUNIT_EXPECT_EQ(test, cxib_cmd_query_mkey(dev, index, &mkc), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_ACCESS_MODE_1_0), CXIB_MKC_ACCESS_MODE_PA);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_LENGTH64), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_LR), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_LW), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_RR), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_RW), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_A), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_FREE), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_QPN), CXIB_MKC_QPN_NONE);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_MKEY_7_0), CXIB_MKEY_VARIANT(lkey));
	KUNIT_EXPECT_EQ(test, CXIB_GET(&mkc, CXIB_MKC_PD), to_cxib_pd(pd)->pdn);
	ib_dealloc_pd(pd);
	/* The key went with the PD. */
	KUNIT_EXPECT_NE(test, cxib_cmd_query_mkey(dev, index, &mkc), 0);
}

static struct ib_cq *cq_live_create(struct cxib_dev *dev, int cqe, int vector)
{
	struct ib_cq_init_attr attr = { .cqe = cqe, .comp_vector = vector };

	return ib_create_cq(&dev->ibdev, cq_live_comp, NULL, NULL, &attr);
}

/* The context the device holds is the one the driver built; the CQ arms and goes. */
static void live_cq_create_arm_destroy(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct cxib_cqc cqc;
	struct ib_wc wc[4];
	struct ib_cq *ibcq;
	struct cxib_cq *cq;
	u32 cqn;

	ibcq = cq_live_create(dev, 16, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ibcq), "ib_create_cq: %ld", PTR_ERR(ibcq));
	cq = to_cxib_cq(ibcq);
	cqn = cq->cqn;
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 31);

	KUNIT_EXPECT_EQ(test, cxib_cmd_query_cq(dev, cqn, &cqc), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_STATUS), CXIB_CQC_STATUS_OK);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_CQE_SZ), CXIB_CQC_CQE_SZ_64);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_LOG_CQ_SIZE), 5);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_UAR_PAGE), dev->uar);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_C_EQN), dev->eqt.comp[0].eqn);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(&cqc, CXIB_CQC_DBR_ADDR), (u64)cq->dbr.dma);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_PRODUCER_COUNTER), 0);

	KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, ARRAY_SIZE(wc), wc), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	KUNIT_EXPECT_EQ(test, cq_live_wait_state(test, dev, cqn,
						 CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED),
			CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED);
	/* Nothing was completed, so nothing fired. */
	KUNIT_EXPECT_EQ(test, atomic_read(&cq_live_comp_events), 0);

	KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(ibcq, NULL), 0);
	KUNIT_EXPECT_NE(test, cxib_cmd_query_cq(dev, cqn, &cqc), 0);
}

/* A solicited-only arm on the last completion vector. */
static void live_cq_solicited_arm(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	int vector = dev->ibdev.num_comp_vectors - 1;
	struct cxib_cqc cqc;
	struct ib_cq *ibcq;
	u32 cqn;

	ibcq = cq_live_create(dev, 1, vector);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ibcq), "ib_create_cq: %ld", PTR_ERR(ibcq));
	cqn = to_cxib_cq(ibcq)->cqn;
	KUNIT_EXPECT_EQ(test, ibcq->cqe, 1);
	KUNIT_EXPECT_EQ(test, cxib_cmd_query_cq(dev, cqn, &cqc), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_C_EQN), dev->eqt.comp[vector].eqn);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, cq_live_wait_state(test, dev, cqn,
						 CXIB_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED),
			CXIB_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED);
	KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(ibcq, NULL), 0);
}

static void live_cq_bad_attributes_rejected(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct ib_cq *ibcq;

	ibcq = cq_live_create(dev, 16, dev->ibdev.num_comp_vectors);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ibcq), -EINVAL);
	if (!IS_ERR(ibcq))
		ib_destroy_cq(ibcq);
	ibcq = cq_live_create(dev, 1 << dev->caps.log_max_cq_sz, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ibcq), -EINVAL);
	if (!IS_ERR(ibcq))
		ib_destroy_cq(ibcq);
}

/*
 * A kernel SRQ as the device holds it: at ISSI 1 an RMP (QUERY_RMP finds it), at ISSI 0 an
 * SRQ; its ring, PD and doorbell record as the driver built them; the limit armed through
 * the verbs (MODIFY_RMP or ARM_RQ) read back through the device.
 */
static void live_srq_object_and_limit(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = 100, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq_attr qa = {}, ma = {};
	struct cxib_srq *srq;
	struct ib_srq *ibsrq;
	struct ib_pd *pd;
	u32 srqn, lwm;

	pd = ib_alloc_pd(&dev->ibdev, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd));
	ibsrq = ib_create_srq(pd, &sa);
	if (IS_ERR(ibsrq)) {
		ib_dealloc_pd(pd);
		KUNIT_FAIL_AND_ABORT(test, "ib_create_srq: %ld", PTR_ERR(ibsrq));
	}
	srq = to_cxib_srq(ibsrq);
	srqn = srq->srqn;
	/* 100 receives + the list's tail: 128 WQEs; 16 + 2 * 16 bytes: 64-byte WQEs */
	KUNIT_EXPECT_EQ(test, sa.attr.max_wr, 127);
	KUNIT_EXPECT_EQ(test, sa.attr.max_sge, 3);

	if (dev->issi == CXIB_ISSI_1) {
		struct cxib_rmpc rmpc;
		struct cxib_wqc *wq = cxib_rmpc_wq(&rmpc);

		KUNIT_ASSERT_EQ(test, cxib_cmd_query_rmp(dev, srqn, &rmpc), 0);
		KUNIT_EXPECT_EQ(test, CXIB_GET(&rmpc, CXIB_RMPC_STATE), CXIB_RMPC_STATE_RDY);
		KUNIT_EXPECT_EQ(test, CXIB_GET(wq, CXIB_WQC_WQ_TYPE), CXIB_WQ_TYPE_LINKED_LIST);
		KUNIT_EXPECT_EQ(test, CXIB_GET(wq, CXIB_WQC_LOG_WQ_SZ), 7);
		KUNIT_EXPECT_EQ(test, CXIB_GET(wq, CXIB_WQC_LOG_WQ_STRIDE), 6);
		KUNIT_EXPECT_EQ(test, CXIB_GET(wq, CXIB_WQC_PD), to_cxib_pd(pd)->pdn);
		KUNIT_EXPECT_EQ(test, CXIB_GET64(wq, CXIB_WQC_DBR_ADDR), (u64)srq->dbr.dma);
		KUNIT_EXPECT_EQ(test, CXIB_GET(wq, CXIB_WQC_LWM), 0);
	} else {
		struct cxib_srqc srqc;

		KUNIT_ASSERT_EQ(test, cxib_cmd_query_srq(dev, srqn, &srqc), 0);
		KUNIT_EXPECT_EQ(test, CXIB_GET(&srqc, CXIB_SRQC_LOG_SRQ_SIZE), 7);
		KUNIT_EXPECT_EQ(test, CXIB_GET(&srqc, CXIB_SRQC_PD), to_cxib_pd(pd)->pdn);
		KUNIT_EXPECT_EQ(test, CXIB_GET64(&srqc, CXIB_SRQC_DBR_ADDR), (u64)srq->dbr.dma);
	}

	/* arm, read back through the verbs and the device; the limit must lie in the ring */
	ma.srq_limit = 10;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &ma, IB_SRQ_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, ib_query_srq(ibsrq, &qa), 0);
	KUNIT_EXPECT_EQ(test, qa.srq_limit, 10);
	KUNIT_EXPECT_EQ(test, qa.max_wr, 127);
	if (dev->issi == CXIB_ISSI_1) {
		struct cxib_rmpc rmpc;

		KUNIT_EXPECT_EQ(test, cxib_cmd_query_rmp(dev, srqn, &rmpc), 0);
		lwm = CXIB_GET(cxib_rmpc_wq(&rmpc), CXIB_WQC_LWM);
		KUNIT_EXPECT_EQ(test, lwm, 10);
	}
	ma.srq_limit = 127;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &ma, IB_SRQ_LIMIT), -EINVAL);
	ma.srq_limit = 0;	/* disarms */
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &ma, IB_SRQ_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, ib_query_srq(ibsrq, &qa), 0);
	KUNIT_EXPECT_EQ(test, qa.srq_limit, 0);
	KUNIT_EXPECT_EQ(test, ib_modify_srq(ibsrq, &ma, IB_SRQ_MAX_WR), -EOPNOTSUPP);

	KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(ibsrq, NULL), 0);
	ib_dealloc_pd(pd);
}

/* Wait until the device has written @n CQEs to the CQ (or CQ_LIVE_ARM_WAIT_MS passed). */
static bool cq_live_wait_prod(struct cxib_dev *dev, u32 cqn, u32 n)
{
	struct cxib_cqc cqc;
	unsigned int waited;

	for (waited = 0; waited <= CQ_LIVE_ARM_WAIT_MS; waited += 20) {
		if (cxib_cmd_query_cq(dev, cqn, &cqc))
			return false;
		if (CXIB_GET(&cqc, CXIB_CQC_PRODUCER_COUNTER) == n)
			return true;
		msleep(20);
	}
	return false;
}

/* Wait until @n completion events were delivered (or CQ_LIVE_ARM_WAIT_MS passed). */
static int cq_live_wait_events(int n)
{
	unsigned int waited;

	for (waited = 0; waited < CQ_LIVE_ARM_WAIT_MS &&
	     atomic_read(&cq_live_comp_events) < n; waited += 20)
		msleep(20);
	return atomic_read(&cq_live_comp_events);
}

/* How long an event held back by moderation must stay away (many worker ticks). */
#define CQ_LIVE_MOD_QUIET_MS	300

/* Post @n receives (no SGE) to @qp, which is in the error state: each is flushed. */
static int cq_live_post_recvs(struct ib_qp *qp, int n)
{
	struct ib_recv_wr wr = {};
	int err = 0;

	while (!err && n--)
		err = ib_post_recv(qp, &wr, NULL);
	return err;
}

/*
 * An RC QP of @pd on @ibcq, moved to the error state: each receive posted to it is then
 * flushed with an error CQE, which is how these cases make completions without a peer.
 * RESET -> ERR is not a transition (ib_modify_qp_is_ok()), so it goes through INIT.
 * Returns the QP, or an ERR_PTR after a failed expectation, with nothing left behind.
 */
static struct ib_qp *cq_live_err_qp(struct kunit *test, struct ib_pd *pd, struct ib_cq *ibcq,
				    u32 max_recv_wr)
{
	struct ib_qp_init_attr ia = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = ibcq,
		.recv_cq = ibcq,
		.cap = { .max_send_wr = 1, .max_recv_wr = max_recv_wr, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ib_qp_attr qi = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ib_qp_attr qa = { .qp_state = IB_QPS_ERR };
	struct ib_qp *qp;
	int err;

	qp = ib_create_qp(pd, &ia);
	if (IS_ERR(qp)) {
		KUNIT_FAIL(test, "ib_create_qp: %ld", PTR_ERR(qp));
		return qp;
	}
	err = ib_modify_qp(qp, &qi, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (!err)
		err = ib_modify_qp(qp, &qa, IB_QP_STATE);
	if (err) {
		KUNIT_FAIL(test, "ib_modify_qp to INIT, then ERR: %d", err);
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
		return ERR_PTR(err);
	}
	return qp;
}

/*
 * rdma_set_cq_moderation (ib_device_ops.modify_cq): with max_count 4 (no timer) an armed
 * CQ raises no event for 1..3 CQEs and one at the 4th; with a count that is never reached,
 * the period fires it; a count that holds the event back is released by turning
 * moderation off.
 */
static void live_cq_moderation(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct ib_wc wc[4];
	struct ib_cq *ibcq;
	struct ib_qp *qp;
	struct ib_pd *pd;
	int err, polled;
	u32 cqn;

	if (!dev->caps.cq_moderation)
		kunit_skip(test, "no cq_moderation capability in dev->caps");
	KUNIT_EXPECT_EQ(test, dev->ibdev.attrs.cq_caps.max_cq_moderation_count,
			CXIB_CQ_MAX_COUNT);
	KUNIT_EXPECT_EQ(test, dev->ibdev.attrs.cq_caps.max_cq_moderation_period,
			CXIB_CQ_MAX_PERIOD);
	pd = ib_alloc_pd(&dev->ibdev, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd));
	ibcq = cq_live_create(dev, 32, 0);
	if (IS_ERR(ibcq)) {
		KUNIT_FAIL(test, "ib_create_cq: %ld", PTR_ERR(ibcq));
		goto out_pd;
	}
	cqn = to_cxib_cq(ibcq)->cqn;
	qp = cq_live_err_qp(test, pd, ibcq, 16);
	if (IS_ERR(qp))
		goto out_cq;

	KUNIT_EXPECT_EQ(test, rdma_set_cq_moderation(ibcq, 1, CXIB_CQ_MAX_PERIOD + 1), -EINVAL);
	err = rdma_set_cq_moderation(ibcq, 4, 0);
	if (err) {
		KUNIT_FAIL(test, "rdma_set_cq_moderation(4, 0): %d", err);
		goto out_qp;
	}
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cq_live_post_recvs(qp, 1), 0);
	KUNIT_EXPECT_TRUE(test, cq_live_wait_prod(dev, cqn, 1));
	msleep(CQ_LIVE_MOD_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq_live_comp_events), 0);
	KUNIT_EXPECT_EQ(test, cq_live_wait_state(test, dev, cqn,
						 CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED),
			CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED);
	KUNIT_EXPECT_EQ(test, cq_live_post_recvs(qp, 3), 0);
	KUNIT_EXPECT_EQ(test, cq_live_wait_events(1), 1);
	KUNIT_EXPECT_TRUE(test, cq_live_wait_prod(dev, cqn, 4));
	polled = ib_poll_cq(ibcq, ARRAY_SIZE(wc), wc);
	KUNIT_EXPECT_EQ(test, polled, 4);
	if (polled > 0)
		KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);

	/* The count is never reached: the period (1 ms) fires the event. */
	KUNIT_EXPECT_EQ(test, rdma_set_cq_moderation(ibcq, 16, 1000), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cq_live_post_recvs(qp, 1), 0);
	KUNIT_EXPECT_EQ(test, cq_live_wait_events(2), 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, ARRAY_SIZE(wc), wc), 1);

	/* Count only, never reached: held back until moderation is turned off. */
	KUNIT_EXPECT_EQ(test, rdma_set_cq_moderation(ibcq, 16, 0), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cq_live_post_recvs(qp, 1), 0);
	KUNIT_EXPECT_TRUE(test, cq_live_wait_prod(dev, cqn, 6));
	msleep(CQ_LIVE_MOD_QUIET_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq_live_comp_events), 2);
	KUNIT_EXPECT_EQ(test, rdma_set_cq_moderation(ibcq, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, cq_live_wait_events(3), 3);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, ARRAY_SIZE(wc), wc), 1);
out_qp:
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
out_cq:
	KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(ibcq, NULL), 0);
out_pd:
	ib_dealloc_pd(pd);
}

/*
 * The completion vectors: one per online CPU (up to what the device offers), each its own
 * EQ and MSI-X vector pointed at its own CPU, which get_vector_affinity reports; a CQ on
 * vector v names v's EQ, and its completion events run on v's CPU.  The events come from
 * receives flushed on a QP in the error state; the first interrupt after the affinity was
 * set may still arrive where the vector pointed before, so the CPU of the second counts.
 */
static void live_cq_vectors_and_affinity(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	unsigned int nvec = dev->ibdev.num_comp_vectors, v, w;
	const struct cpumask *mask;
	struct ib_wc wc[2];
	struct cxib_cqc cqc;
	struct ib_cq *ibcq;
	struct ib_qp *qp;
	struct ib_pd *pd;
	char name[sizeof(dev->eqt.comp[0].irq_name)];
	int cpu[8];
	int round;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: one completion vector, shared with the control EQs");
	KUNIT_EXPECT_EQ(test, nvec, min(num_online_cpus(), (unsigned int)dev->eqt.nvec - 1));
	KUNIT_ASSERT_GE(test, nvec, 2);
	KUNIT_ASSERT_LE(test, nvec, ARRAY_SIZE(cpu));
	for (v = 0; v < nvec; v++) {
		mask = ib_get_vector_affinity(&dev->ibdev, v);
		KUNIT_ASSERT_NOT_NULL_MSG(test, mask, "vector %u has no affinity", v);
		KUNIT_ASSERT_EQ(test, cpumask_weight(mask), 1);
		cpu[v] = cpumask_first(mask);
		KUNIT_EXPECT_TRUE(test, cpu_online(cpu[v]));
		/* /proc/interrupts tells the vectors apart: cxib-comp<v>@<PCI name> */
		snprintf(name, sizeof(name), "cxib-comp%u@%s", v, pci_name(dev->pdev));
		KUNIT_EXPECT_STREQ(test, dev->eqt.comp[v].irq_name, name);
		for (w = 0; w < v; w++)
			KUNIT_EXPECT_NE_MSG(test, cpu[w], cpu[v], "vectors %u and %u share a CPU",
					    w, v);
	}
	KUNIT_EXPECT_NULL(test, ib_get_vector_affinity(&dev->ibdev, nvec));

	pd = ib_alloc_pd(&dev->ibdev, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd));
	for (v = 0; v < nvec; v++) {
		atomic_set(&cq_live_comp_events, 0);
		atomic_set(&cq_live_comp_cpu, -1);
		ibcq = cq_live_create(dev, 8, v);
		if (IS_ERR(ibcq)) {
			KUNIT_FAIL(test, "ib_create_cq on vector %u: %ld", v, PTR_ERR(ibcq));
			break;
		}
		KUNIT_EXPECT_EQ(test, cxib_cmd_query_cq(dev, to_cxib_cq(ibcq)->cqn, &cqc), 0);
		KUNIT_EXPECT_EQ(test, CXIB_GET(&cqc, CXIB_CQC_C_EQN), dev->eqt.comp[v].eqn);
		qp = cq_live_err_qp(test, pd, ibcq, 4);
		if (IS_ERR(qp)) {
			ib_destroy_cq_user(ibcq, NULL);
			break;
		}
		for (round = 1; round <= 2; round++) {
			KUNIT_EXPECT_EQ(test, ib_req_notify_cq(ibcq, IB_CQ_NEXT_COMP), 0);
			KUNIT_EXPECT_EQ(test, cq_live_post_recvs(qp, 1), 0);
			KUNIT_EXPECT_EQ_MSG(test, cq_live_wait_events(round), round,
					    "vector %u: completion event %d", v, round);
			KUNIT_EXPECT_EQ(test, ib_poll_cq(ibcq, ARRAY_SIZE(wc), wc), 1);
		}
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&cq_live_comp_cpu), cpu[v],
				    "vector %u's event ran on another CPU", v);
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
		KUNIT_EXPECT_EQ(test, ib_destroy_cq_user(ibcq, NULL), 0);
	}
	ib_dealloc_pd(pd);
}

static struct kunit_case cxib_cq_live_cases[] = {
	KUNIT_CASE(live_pd_gets_dma_mr),
	KUNIT_CASE(live_cq_create_arm_destroy),
	KUNIT_CASE(live_cq_solicited_arm),
	KUNIT_CASE(live_cq_bad_attributes_rejected),
	KUNIT_CASE(live_srq_object_and_limit),
	KUNIT_CASE(live_cq_moderation),
	KUNIT_CASE(live_cq_vectors_and_affinity),
	{}
};

static struct kunit_suite cxib_cq_live_suite = {
	.name = "cxib_cq_live",
	.suite_init = cq_live_suite_init,
	.suite_exit = cq_live_suite_exit,
	.init = cq_live_init,
	.test_cases = cxib_cq_live_cases,
};

kunit_test_suite(cxib_cq_live_suite);
