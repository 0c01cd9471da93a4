// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: process_mad on the registered cxib device (the cxib-pci model in the KUnit
 * VM), called as ib_mad calls it, through the device's ops.
 *
 * A directed-route SubnGet(NodeInfo) at hop 0 (the work completion ib_mad makes up for a
 * local SMP: SLID permissive, QP0) comes back as a reply: GetResp, D bit, hop count and
 * pointer and TID kept, the device's node GUID.  LID-routed SubnGet(PortInfo) without a
 * work completion (the core's own MADs) gives the LID ib_query_port() reports.  SMInfo and
 * a CM MAD pass to the host's agents untouched; a locally generated trap is consumed; a
 * PMA ClassPortInfo Get without a work completion (what sysfs asks at registration) is a
 * reply, whatever its MAD status.  A hop-0 SubnSet(PortInfo) that moves the master SM (and
 * one that moves it back) raises IB_EVENT_SM_CHANGE, one that repeats the values does not.
 *
 * Like cxib_cq_live the suite leaves the function to cxib.ko and holds its ib_device.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "cxib_kunit.h"

static struct cxib_dev *ml_dev;

struct ml_ctx {
	struct ib_device *dev;
	struct ib_mad *in, *out;
	struct ib_wc wc;
	size_t out_size;
	u16 pkey_index;
};

static int ml_suite_init(struct kunit_suite *suite)
{
	struct pci_dev *pdev = cxib_kunit_find_function();
	struct cxib_dev *dev = NULL;

	ml_dev = NULL;
	if (!pdev)
		return 0;	/* each case skips or fails */
	device_lock(&pdev->dev);
	if (pdev->dev.driver && !strcmp(pdev->dev.driver->name, "cxib"))
		dev = pci_get_drvdata(pdev);
	if (dev && ib_device_try_get(&dev->ibdev))
		ml_dev = dev;
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	return 0;
}

static void ml_suite_exit(struct kunit_suite *suite)
{
	if (ml_dev)
		ib_device_put(&ml_dev->ibdev);
	ml_dev = NULL;
}

static int ml_init(struct kunit *test)
{
	struct ml_ctx *c;

	if (!ml_dev) {
		KUNIT_ASSERT_FALSE_MSG(test, cxib_kunit_require_device,
				       "no registered cxib device found");
		kunit_skip(test, "no registered cxib device in this machine");
	}
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->in = kunit_kzalloc(test, sizeof(*c->in), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->in);
	c->out = kunit_kzalloc(test, sizeof(*c->out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->out);
	c->dev = &ml_dev->ibdev;
	KUNIT_ASSERT_NOT_NULL(test, c->dev->ops.process_mad);
	test->priv = c;
	return 0;
}

/* A request MAD: version 1, class, class version 1, method, attribute, TID. */
static void ml_build(struct ml_ctx *c, u8 mgmt_class, u8 method, u16 attr_id, u32 attr_mod)
{
	memset(c->in, 0, sizeof(*c->in));
	memset(c->out, 0, sizeof(*c->out));
	c->in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	c->in->mad_hdr.mgmt_class = mgmt_class;
	c->in->mad_hdr.class_version = mgmt_class == IB_MGMT_CLASS_CM ? 2 : 1;
	c->in->mad_hdr.method = method;
	c->in->mad_hdr.attr_id = cpu_to_be16(attr_id);
	c->in->mad_hdr.attr_mod = cpu_to_be32(attr_mod);
	c->in->mad_hdr.tid = cpu_to_be64(0x0123456789abcdefULL);
	c->out_size = sizeof(*c->out);
	c->pkey_index = 0xffff;
}

/* A directed-route SMP at hop 0 as the core hands it over: hop pointer 1, LIDs permissive. */
static void ml_build_dr_local(struct ml_ctx *c, u8 method, u16 attr_id)
{
	struct ib_smp *smp = (struct ib_smp *)c->in;

	ml_build(c, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, method, attr_id, 0);
	smp->hop_cnt = 0;
	smp->hop_ptr = 1;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	memset(&c->wc, 0, sizeof(c->wc));
	c->wc.status = IB_WC_SUCCESS;
	c->wc.opcode = IB_WC_RECV;
	c->wc.byte_len = sizeof(struct ib_mad) + sizeof(struct ib_grh);
	c->wc.src_qp = 0;
	c->wc.slid = 0xffff;
	c->wc.pkey_index = 0;
	c->wc.port_num = 1;
}

static int ml_process(struct ml_ctx *c, int flags, const struct ib_wc *wc)
{
	return c->dev->ops.process_mad(c->dev, flags, 1, wc, NULL, c->in, c->out,
				       &c->out_size, &c->pkey_index);
}

/*
 * While the device unregisters (CXIB_DEV_IB_ACTIVE clear) a MAD is dropped at once, not
 * sent to the SMA; registered, the same SMP is answered again.
 */
static void unregistering_device_drops_mads(struct kunit *test)
{
	struct ml_ctx *c = test->priv;
	int ret;

	ml_build_dr_local(c, IB_MGMT_METHOD_GET, be16_to_cpu(IB_SMP_ATTR_NODE_INFO));
	clear_bit(CXIB_DEV_IB_ACTIVE, &ml_dev->flags);
	ret = ml_process(c, 0, &c->wc);
	set_bit(CXIB_DEV_IB_ACTIVE, &ml_dev->flags);
	KUNIT_EXPECT_EQ(test, ret, IB_MAD_RESULT_FAILURE);
	KUNIT_EXPECT_EQ(test, c->out->mad_hdr.method, 0);	/* nothing written */
	ret = ml_process(c, 0, &c->wc);
	KUNIT_EXPECT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
}

/* opensm's first SMP: its own NodeInfo, directed route hop 0. */
static void dr_nodeinfo_hop0_replies(struct kunit *test)
{
	struct ml_ctx *c = test->priv;
	struct ib_smp *resp = (struct ib_smp *)c->out;
	__be64 guid;
	int ret;

	ml_build_dr_local(c, IB_MGMT_METHOD_GET, be16_to_cpu(IB_SMP_ATTR_NODE_INFO));
	ret = ml_process(c, 0, &c->wc);
	KUNIT_ASSERT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, c->out_size, sizeof(struct ib_mad));
	KUNIT_EXPECT_EQ(test, c->pkey_index, 0);
	KUNIT_EXPECT_EQ(test, resp->mgmt_class, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE);
	KUNIT_EXPECT_EQ(test, resp->method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->attr_id),
			be16_to_cpu(IB_SMP_ATTR_NODE_INFO));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->status), be16_to_cpu(IB_SMP_DIRECTION));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(resp->tid), 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, resp->hop_cnt, 0);
	KUNIT_EXPECT_EQ(test, resp->hop_ptr, 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->dr_slid), 0xffff);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->dr_dlid), 0xffff);
	KUNIT_EXPECT_EQ(test, resp->data[2], 1);		/* NodeType CA */
	memcpy(&guid, resp->data + 12, sizeof(guid));	/* NodeGUID */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(guid), be64_to_cpu(c->dev->node_guid));
	KUNIT_EXPECT_EQ(test, resp->data[36], 1);		/* LocalPortNum */
}

/* The core's own SubnGet (no work completion) agrees with query_port. */
static void lid_portinfo_internal_matches_query_port(struct kunit *test)
{
	struct ml_ctx *c = test->priv;
	struct ib_smp *resp = (struct ib_smp *)c->out;
	struct ib_port_attr attr = {};
	int ret;

	KUNIT_ASSERT_EQ(test, ib_query_port(c->dev, 1, &attr), 0);
	ml_build(c, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		 be16_to_cpu(IB_SMP_ATTR_PORT_INFO), 1);
	ret = ml_process(c, IB_MAD_IGNORE_MKEY, NULL);
	KUNIT_ASSERT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, resp->method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->status), 0);
	KUNIT_EXPECT_EQ(test, resp->data[16] << 8 | resp->data[17], attr.lid);
	KUNIT_EXPECT_EQ(test, resp->data[18] << 8 | resp->data[19], attr.sm_lid);
}

/* SMInfo is opensm's: untouched, for its agent. */
static void dr_sminfo_passes(struct kunit *test)
{
	struct ml_ctx *c = test->priv;

	ml_build_dr_local(c, IB_MGMT_METHOD_GET, be16_to_cpu(IB_SMP_ATTR_SM_INFO));
	KUNIT_EXPECT_EQ(test, ml_process(c, 0, &c->wc), IB_MAD_RESULT_SUCCESS);
	KUNIT_EXPECT_EQ(test, c->out->mad_hdr.method, 0);	/* no response written */
	KUNIT_EXPECT_EQ(test, c->out_size, sizeof(struct ib_mad));
}

/* A CM MAD from the wire is ib_cm's. */
static void cm_mad_passes(struct kunit *test)
{
	struct ml_ctx *c = test->priv;

	ml_build(c, IB_MGMT_CLASS_CM, IB_MGMT_METHOD_SEND, 0x0010, 0);	/* REQ */
	memset(&c->wc, 0, sizeof(c->wc));
	c->wc.src_qp = 1;
	c->wc.slid = 2;
	c->wc.port_num = 1;
	KUNIT_EXPECT_EQ(test, ml_process(c, 0, &c->wc), IB_MAD_RESULT_SUCCESS);
	KUNIT_EXPECT_EQ(test, c->out->mad_hdr.method, 0);
}

/* A trap of the node's own (no work completion) is dropped. */
static void local_trap_consumed(struct kunit *test)
{
	struct ml_ctx *c = test->priv;

	ml_build(c, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_TRAP,
		 be16_to_cpu(IB_SMP_ATTR_NOTICE), 0);
	KUNIT_EXPECT_EQ(test, ml_process(c, 0, NULL),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
}

/*
 * What the core's sysfs asks at registration: the firmware's PMA answers, with
 * ClassPortInfo or with "unsupported attribute", but it answers.
 */
static void pma_classportinfo_internal_replies(struct kunit *test)
{
	struct ml_ctx *c = test->priv;
	int ret;

	ml_build(c, IB_MGMT_CLASS_PERF_MGMT, IB_MGMT_METHOD_GET, 0x0001, 0);
	ret = ml_process(c, IB_MAD_IGNORE_MKEY, NULL);
	KUNIT_ASSERT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, c->out->mad_hdr.mgmt_class, IB_MGMT_CLASS_PERF_MGMT);
	KUNIT_EXPECT_EQ(test, c->out->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(c->out->mad_hdr.tid), 0x0123456789abcdefULL);
	kunit_info(test, "PMA ClassPortInfo: MAD status 0x%04x\n",
		   be16_to_cpu(c->out->mad_hdr.status));
}

/* ---- SubnSet(PortInfo) and the SM change snoop ------------------------------------------ */

#define ML_EVENT_WAIT_MS	2000

static atomic_t ml_sm_changes;
static struct completion ml_sm_change;

static void ml_event(struct ib_event_handler *h, struct ib_event *ev)
{
	if (ev->event != IB_EVENT_SM_CHANGE)
		return;
	atomic_inc(&ml_sm_changes);
	complete(&ml_sm_change);
}

static unsigned long ml_wait_sm_change(unsigned int ms)
{
	return wait_for_completion_timeout(&ml_sm_change, msecs_to_jiffies(ms));
}

/* SubnSet(PortInfo) at hop 0 with @pi, MasterSMLID/SL replaced, no state change asked. */
static int ml_set_sm(struct ml_ctx *c, const u8 *pi, u16 sm_lid, u8 sm_sl)
{
	struct ib_smp *smp = (struct ib_smp *)c->in;
	u8 *d = smp->data;

	ml_build_dr_local(c, IB_MGMT_METHOD_SET, be16_to_cpu(IB_SMP_ATTR_PORT_INFO));
	smp->attr_mod = cpu_to_be32(1);
	memcpy(d, pi, IB_SMP_DATA_SIZE);
	d[18] = sm_lid >> 8;			/* MasterSMLID */
	d[19] = sm_lid & 0xff;
	d[32] &= 0xf0;				/* PortState: no change */
	d[33] &= 0x0f;				/* PortPhysicalState: no change */
	d[36] = (d[36] & 0xf0) | (sm_sl & 0x0f);	/* MasterSMSL */
	d[51] &= 0x7f;				/* ClientReregister: no */
	return ml_process(c, 0, &c->wc);
}

static void subnset_sm_move_raises_sm_change(struct kunit *test)
{
	struct ml_ctx *c = test->priv;
	struct ib_smp *resp = (struct ib_smp *)c->out;
	struct ib_event_handler eh;
	struct ib_port_attr attr = {};
	u16 old_lid, new_lid;
	u8 old_sl, pi[IB_SMP_DATA_SIZE];
	int ret;

	ml_build_dr_local(c, IB_MGMT_METHOD_GET, be16_to_cpu(IB_SMP_ATTR_PORT_INFO));
	c->in->mad_hdr.attr_mod = cpu_to_be32(1);
	KUNIT_ASSERT_EQ(test, ml_process(c, 0, &c->wc),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_ASSERT_EQ(test, be16_to_cpu(resp->status), be16_to_cpu(IB_SMP_DIRECTION));
	memcpy(pi, resp->data, sizeof(pi));
	old_lid = pi[18] << 8 | pi[19];
	old_sl = pi[36] & 0x0f;
	new_lid = (pi[16] << 8 | pi[17]) ?: 1;	/* the port's own LID, as opensm's node */
	if (new_lid == old_lid)
		new_lid = old_lid + 1;

	atomic_set(&ml_sm_changes, 0);
	init_completion(&ml_sm_change);
	INIT_IB_EVENT_HANDLER(&eh, c->dev, ml_event);
	ib_register_event_handler(&eh);

	ret = ml_set_sm(c, pi, new_lid, 3);
	if (ret == (IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY) &&
	    (be16_to_cpu(resp->status) & 0x7fff) == 0x0008) {
		ib_unregister_event_handler(&eh);
		kunit_skip(test, "the firmware's SMA has no SubnSet");
	}
	KUNIT_EXPECT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, resp->method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->status), be16_to_cpu(IB_SMP_DIRECTION));
	KUNIT_EXPECT_EQ(test, resp->data[18] << 8 | resp->data[19], new_lid);
	KUNIT_EXPECT_GT(test, ml_wait_sm_change(ML_EVENT_WAIT_MS), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ml_sm_changes), 1);
	KUNIT_EXPECT_EQ(test, ib_query_port(c->dev, 1, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.sm_lid, new_lid);
	KUNIT_EXPECT_EQ(test, attr.sm_sl, 3);

	/* the same SM again: nothing moved */
	reinit_completion(&ml_sm_change);
	KUNIT_EXPECT_EQ(test, ml_set_sm(c, pi, new_lid, 3),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, ml_wait_sm_change(ML_EVENT_WAIT_MS / 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ml_sm_changes), 1);

	/* and back where it was: another move */
	KUNIT_EXPECT_EQ(test, ml_set_sm(c, pi, old_lid, old_sl),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(resp->status), be16_to_cpu(IB_SMP_DIRECTION));
	KUNIT_EXPECT_GT(test, ml_wait_sm_change(ML_EVENT_WAIT_MS), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ml_sm_changes), 2);

	ib_unregister_event_handler(&eh);
}

/*
 * ib_modify_device(NODE_DESC), as rdma-ndd sets it through sysfs: the device's copy and the
 * firmware SMA's NodeDescription both change (a directed-route query returns the new one);
 * the old description is put back.  Other attributes: -EOPNOTSUPP.
 */
static void node_desc_reaches_the_sma(struct kunit *test)
{
	struct ml_ctx *c = test->priv;
	struct ib_device_modify m = {};
	char old[IB_DEVICE_NODE_DESC_MAX];
	struct ib_smp *smp;
	int ret;

	memcpy(old, c->dev->node_desc, sizeof(old));
	KUNIT_EXPECT_EQ(test, ib_modify_device(c->dev, IB_DEVICE_MODIFY_SYS_IMAGE_GUID, &m),
			-EOPNOTSUPP);
	strscpy(m.node_desc, "cxib kunit node description", sizeof(m.node_desc));
	KUNIT_ASSERT_EQ(test, ib_modify_device(c->dev, IB_DEVICE_MODIFY_NODE_DESC, &m), 0);
	KUNIT_EXPECT_STREQ(test, c->dev->node_desc, "cxib kunit node description");

	ml_build_dr_local(c, IB_MGMT_METHOD_GET, be16_to_cpu(IB_SMP_ATTR_NODE_DESC));
	ret = ml_process(c, 0, &c->wc);
	KUNIT_EXPECT_EQ(test, ret, IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	smp = (struct ib_smp *)c->out;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(smp->status), be16_to_cpu(IB_SMP_DIRECTION));
	KUNIT_EXPECT_EQ(test, memcmp(smp->data, m.node_desc, sizeof(m.node_desc)), 0);

	memcpy(m.node_desc, old, sizeof(m.node_desc));
	KUNIT_EXPECT_EQ(test, ib_modify_device(c->dev, IB_DEVICE_MODIFY_NODE_DESC, &m), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->dev->node_desc, old, sizeof(old)), 0);
}

static struct kunit_case cxib_mad_live_cases[] = {
	KUNIT_CASE(dr_nodeinfo_hop0_replies),
	KUNIT_CASE(lid_portinfo_internal_matches_query_port),
	KUNIT_CASE(dr_sminfo_passes),
	KUNIT_CASE(cm_mad_passes),
	KUNIT_CASE(local_trap_consumed),
	KUNIT_CASE(pma_classportinfo_internal_replies),
	KUNIT_CASE(subnset_sm_move_raises_sm_change),
	KUNIT_CASE(node_desc_reaches_the_sma),
	KUNIT_CASE(unregistering_device_drops_mads),
	{}
};

static struct kunit_suite cxib_mad_live_suite = {
	.name = "cxib_mad_live",
	.suite_init = ml_suite_init,
	.suite_exit = ml_suite_exit,
	.init = ml_init,
	.test_cases = cxib_mad_live_cases,
};

kunit_test_suite(cxib_mad_live_suite);
