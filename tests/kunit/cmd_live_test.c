// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the command interface and firmware bring-up on a real cxib function (the
 * cxib-pci model in the KUnit VM), through the driver's own cmd.c, fw.c, hca.c, pages.c
 * and mad.c, in polling mode (no EQ).
 *
 * The suite takes the function from cxib.ko (kunit_live.c), turns bus mastering on, sets
 * up the command queue and page accounting as probe does, and gives everything back at
 * the end.  Each case leaves the function disabled (DISABLE_HCA), as it found it.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "cxib_kunit.h"

#define CMD_LIVE_TIMEOUT_MS	10000
/* Commands for the token test: more than a full lap of the 255 tokens. */
#define CMD_LIVE_NOPS		300
/* Concurrent submitters, and NOPs each. */
#define CMD_LIVE_WORKERS	8
#define CMD_LIVE_WORKER_NOPS	25

static struct cxib_kunit_fn cmd_live;
static bool cmd_live_ready;

static int cmd_live_suite_init(struct kunit_suite *suite)
{
	struct cxib_dev *dev = &cmd_live.dev;
	int err;

	memset(&cmd_live, 0, sizeof(cmd_live));
	cmd_live_ready = false;
	cmd_live.pdev = cxib_kunit_find_function();
	if (!cmd_live.pdev)
		return 0;	/* each case skips or fails */
	err = cxib_kunit_fn_claim(&cmd_live);
	if (err)
		goto err_put;

	pci_set_master(cmd_live.pdev);
	err = dma_set_mask_and_coherent(&cmd_live.pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_release;
	err = cxib_iseg_check(dev);
	if (err)
		goto err_release;
	err = cxib_iseg_wait_ready(dev, CMD_LIVE_TIMEOUT_MS);
	if (err)
		goto err_release;
	err = cxib_pages_init(dev);
	if (err)
		goto err_release;
	err = cxib_cmd_init(dev, CMD_LIVE_TIMEOUT_MS);
	if (err)
		goto err_pages;
	cmd_live_ready = true;
	return 0;

err_pages:
	cxib_pages_cleanup(dev);
err_release:
	pci_clear_master(cmd_live.pdev);
	cxib_kunit_fn_release(&cmd_live);
err_put:
	pci_dev_put(cmd_live.pdev);
	cmd_live.pdev = NULL;
	return err;
}

static void cmd_live_suite_exit(struct kunit_suite *suite)
{
	if (!cmd_live.pdev)
		return;
	if (cmd_live_ready) {
		cxib_cmd_cleanup(&cmd_live.dev);
		cxib_pages_cleanup(&cmd_live.dev);
		pci_clear_master(cmd_live.pdev);
	}
	cxib_kunit_fn_release(&cmd_live);
	pci_dev_put(cmd_live.pdev);
	cmd_live.pdev = NULL;
}

static int cmd_live_init(struct kunit *test)
{
	if (!cmd_live.pdev) {
		KUNIT_ASSERT_FALSE_MSG(test, cxib_kunit_require_device,
				       "no cxib function (vendor 0x%04x, class 0x%04x) found",
				       CXIB_PCI_VENDOR_ID, CXIB_PCI_CLASS_INFINIBAND);
		kunit_skip(test, "no cxib function in this machine");
	}
	KUNIT_ASSERT_TRUE(test, cmd_live_ready);
	test->priv = &cmd_live.dev;
	return 0;
}

/* Every regular slot is free and the MANAGE_PAGES slot is not taken. */
static void expect_slots_idle(struct kunit *test, struct cxib_dev *dev)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned int slot;

	KUNIT_EXPECT_EQ(test, cmdq->free, GENMASK(cmdq->nslots - 2, 0));
	for (slot = 0; slot < cmdq->nslots; slot++)
		KUNIT_EXPECT_FALSE_MSG(test, cmdq->slots[slot].stale, "slot %u stale", slot);
	KUNIT_EXPECT_EQ(test, down_trylock(&cmdq->pages_sem), 0);
	up(&cmdq->pages_sem);
}

/* The queue geometry is the one the initialization segment announces. */
static void live_queue_geometry(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	u32 v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_LOG_CMDQ_SIZE));

	KUNIT_EXPECT_EQ(test, dev->cmdq.nslots, 1u << CXIB_FIELD_GET(CXIB_ISEG_LOG_CMDQ_SIZE, v));
	KUNIT_EXPECT_EQ(test, dev->cmdq.log_stride, CXIB_FIELD_GET(CXIB_ISEG_LOG_CMDQ_STRIDE, v));
	KUNIT_EXPECT_EQ(test, dev->cmdq.pages_slot, dev->cmdq.nslots - 1);
	KUNIT_EXPECT_GE(test, dev->cmdq.nslots, 2);
	kunit_info(test, "%u slots of %u bytes\n", dev->cmdq.nslots, 1u << dev->cmdq.log_stride);
}

/* NOP round trips, more of them than there are tokens, all complete with status OK. */
static void live_nops_round_trip_past_token_wrap(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	unsigned int i, failed = 0;
	u8 first = dev->cmdq.token;

	for (i = 0; i < CMD_LIVE_NOPS; i++)
		failed += cxib_cmd_nop(dev) != 0;
	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, dev->cmdq.token, (u8)((first + CMD_LIVE_NOPS - 1) % 255 + 1));
	expect_slots_idle(test, dev);
}

/* An opcode the firmware does not know comes back "bad operation", as -EINVAL. */
static void live_unknown_opcode_is_bad_op(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	__be32 in[4] = {}, out[4] = {};

	CXIB_SET(in, CXIB_CMD_IN_OPCODE, 0x7ff);
	KUNIT_EXPECT_EQ(test, cxib_cmd_exec_flags(dev, in, sizeof(in), out, sizeof(out),
						  CXIB_CMD_F_BAD_OP_OK), -EINVAL);
	KUNIT_EXPECT_EQ(test, CXIB_GET(out, CXIB_CMD_OUT_STATUS), CXIB_CMD_STAT_BAD_OP);
	expect_slots_idle(test, dev);
}

/* A command out of order is refused with the firmware's status: INIT_HCA while disabled. */
static void live_init_hca_while_disabled_fails(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;

	KUNIT_EXPECT_LT(test, cxib_cmd_init_hca(dev), 0);
	expect_slots_idle(test, dev);
}

/* Mailbox commands: QUERY_ADAPTER (one output block) and QUERY_HCA_CAP (eight). */
static void live_mailbox_commands(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct cxib_hca_cap *cap;
	struct cxib_caps cur, max;
	char board[CXIB_QUERY_ADAPTER_PSID_LEN + 1] = {};
	u32 vendor = 0;

	cap = kunit_kzalloc(test, sizeof(*cap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cap);
	KUNIT_ASSERT_EQ(test, cxib_cmd_enable_hca(dev), 0);

	KUNIT_EXPECT_EQ(test, cxib_cmd_query_adapter(dev, board, &vendor), 0);
	kunit_info(test, "board id '%s', vendor 0x%06x\n", board, vendor);
	KUNIT_EXPECT_GT(test, strlen(board), 0);
	KUNIT_EXPECT_EQ(test, vendor, 0x02c9);

	KUNIT_EXPECT_EQ(test, cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_GENERAL,
						     CXIB_HCA_CAP_MODE_CUR, cap), 0);
	cxib_caps_parse(&cur, cap);
	KUNIT_EXPECT_EQ(test, cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_GENERAL,
						     CXIB_HCA_CAP_MODE_MAX, cap), 0);
	cxib_caps_parse(&max, cap);
	KUNIT_EXPECT_EQ(test, cur.port_type, CXIB_CAP_PORT_TYPE_IB);
	KUNIT_EXPECT_GE(test, cur.num_ports, 1);
	KUNIT_EXPECT_LE(test, cur.log_max_qp, max.log_max_qp);
	KUNIT_EXPECT_GT(test, max.log_max_eq_sz, 0);

	KUNIT_EXPECT_EQ(test, cxib_cmd_disable_hca(dev), 0);
	expect_slots_idle(test, dev);
}

/* What the workers' NOPs came to. */
struct cmd_live_counts {
	atomic_t done, eio, other;
};

struct cmd_live_worker {
	struct work_struct work;
	struct cxib_dev *dev;
	unsigned int nops;		/* NOPs to run; 0: until one fails */
	struct cmd_live_counts *counts;
};

static void cmd_live_worker_fn(struct work_struct *work)
{
	struct cmd_live_worker *w = container_of(work, struct cmd_live_worker, work);
	unsigned int i;
	int err;

	for (i = 0; !w->nops || i < w->nops; i++) {
		err = cxib_cmd_nop(w->dev);
		if (!err) {
			atomic_inc(&w->counts->done);
			continue;
		}
		atomic_inc(err == -EIO ? &w->counts->eio : &w->counts->other);
		if (!w->nops)
			break;
	}
}

/* CMD_LIVE_WORKERS workers of @nops NOPs each, on a queue of their own, started. */
static struct workqueue_struct *cmd_live_start(struct kunit *test, unsigned int nops,
					       struct cmd_live_counts *counts)
{
	struct cmd_live_worker *w;
	struct workqueue_struct *wq;
	unsigned int i;

	w = kunit_kcalloc(test, CMD_LIVE_WORKERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	wq = alloc_workqueue("cxib_kunit_cmd", WQ_UNBOUND, CMD_LIVE_WORKERS);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	for (i = 0; i < CMD_LIVE_WORKERS; i++) {
		INIT_WORK(&w[i].work, cmd_live_worker_fn);
		w[i].dev = test->priv;
		w[i].nops = nops;
		w[i].counts = counts;
		queue_work(wq, &w[i].work);
	}
	return wq;
}

/* Commands from several threads at once share the slots; every one completes. */
static void live_concurrent_commands(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct cmd_live_counts n = {};

	destroy_workqueue(cmd_live_start(test, CMD_LIVE_WORKER_NOPS, &n));	/* waits */
	KUNIT_EXPECT_EQ(test, atomic_read(&n.done), CMD_LIVE_WORKERS * CMD_LIVE_WORKER_NOPS);
	KUNIT_EXPECT_EQ(test, atomic_read(&n.eio) + atomic_read(&n.other), 0);
	expect_slots_idle(test, dev);
}

static unsigned int cmd_live_stale(struct cxib_dev *dev)
{
	unsigned int slot, n = 0;

	for (slot = 0; slot < dev->cmdq.nslots; slot++)
		n += READ_ONCE(dev->cmdq.slots[slot].stale);
	return n;
}

/*
 * The device dies while commands are being submitted (what cxib_dev_fatal() does to the
 * command interface: the dead flag, then every waiter woken): each submitter ends with
 * -EIO at once instead of waiting out its timeout, and the queue is whole afterwards.  A
 * command abandoned while the firmware still held it would keep its slot and mailboxes
 * until the firmware gives the entry back (the log line counts them); the model mostly
 * answers before the waiter looks again, so that path is seldom taken here.
 */
static void live_fatal_during_commands(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	struct cmd_live_counts n = {};
	struct workqueue_struct *wq;
	unsigned long t0, took;
	unsigned int i;

	wq = cmd_live_start(test, 0, &n);
	/* until every worker has had its commands answered a few times */
	for (i = 0; i < 250 && atomic_read(&n.done) < 4 * CMD_LIVE_WORKERS; i++)
		msleep(20);
	t0 = jiffies;
	set_bit(CXIB_DEV_DEAD, &dev->flags);
	cxib_cmd_abort_all(dev);
	destroy_workqueue(wq);	/* waits for the workers */
	took = jiffies - t0;
	clear_bit(CXIB_DEV_DEAD, &dev->flags);

	kunit_info(test, "%d NOPs before the death, workers out %u ms after it, %u in flight\n",
		   atomic_read(&n.done), jiffies_to_msecs(took), cmd_live_stale(dev));
	KUNIT_EXPECT_GE(test, atomic_read(&n.done), 4 * CMD_LIVE_WORKERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&n.eio), CMD_LIVE_WORKERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&n.other), 0);
	/* nobody waited for the command timeout */
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(took), CMD_LIVE_TIMEOUT_MS / 2);
	/* the firmware gives the abandoned entries back; a command reaps them */
	for (i = 0; i < 50 && cmd_live_stale(dev); i++) {
		msleep(20);
		KUNIT_EXPECT_EQ(test, cxib_cmd_nop(dev), 0);
	}
	KUNIT_EXPECT_EQ(test, cxib_cmd_nop(dev), 0);
	expect_slots_idle(test, dev);
}

/*
 * A dead device sends nothing to the firmware: the commands that give something back
 * (destroy, deallocate, detach, to RESET) report success with a zeroed output, so a teardown
 * runs to its end; every other command fails with -EIO.  No token is used.
 */
static void live_dead_device_releases_succeed(struct kunit *test)
{
	static const u16 releases[] = {
		CXIB_CMD_OP_DESTROY_CQ, CXIB_CMD_OP_DESTROY_QP, CXIB_CMD_OP_2RST_QP,
		CXIB_CMD_OP_DEALLOC_PD, CXIB_CMD_OP_DETACH_FROM_MCG, CXIB_CMD_OP_TEARDOWN_HCA,
	};
	static const u16 others[] = {
		CXIB_CMD_OP_NOP, CXIB_CMD_OP_CREATE_CQ, CXIB_CMD_OP_RTR2RTS_QP,
		CXIB_CMD_OP_ALLOC_PD, CXIB_CMD_OP_ATTACH_TO_MCG, CXIB_CMD_OP_MANAGE_PAGES,
	};
	struct cxib_dev *dev = test->priv;
	__be32 in[4] = {}, out[4];
	u8 token = dev->cmdq.token;
	unsigned int i;
	int err;

	set_bit(CXIB_DEV_DEAD, &dev->flags);
	for (i = 0; i < ARRAY_SIZE(releases); i++) {
		CXIB_SET(in, CXIB_CMD_IN_OPCODE, releases[i]);
		memset(out, 0xa5, sizeof(out));
		err = cxib_cmd_exec_flags(dev, in, sizeof(in), out, sizeof(out), 0);
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "opcode 0x%x", releases[i]);
		KUNIT_EXPECT_EQ(test, CXIB_GET(out, CXIB_CMD_OUT_STATUS), CXIB_CMD_STAT_OK);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(out[3]), 0);
	}
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		CXIB_SET(in, CXIB_CMD_IN_OPCODE, others[i]);
		err = cxib_cmd_exec_flags(dev, in, sizeof(in), out, sizeof(out), 0);
		KUNIT_EXPECT_EQ_MSG(test, err, -EIO, "opcode 0x%x", others[i]);
	}
	clear_bit(CXIB_DEV_DEAD, &dev->flags);
	KUNIT_EXPECT_EQ(test, dev->cmdq.token, token);
	KUNIT_EXPECT_EQ(test, cxib_cmd_nop(dev), 0);
	expect_slots_idle(test, dev);
}

/*
 * The whole firmware bring-up of probe, and its teardown: the firmware's pages are lent
 * (INIT_HCA succeeds only once it has all it asked for), nothing more is asked for once
 * initialized, the SMA answers, and teardown takes every page back.
 */
static void live_bringup_accounts_pages(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	u8 *data;
	u16 func_id;
	s32 more = -1;

	data = kunit_kzalloc(test, CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);

	KUNIT_ASSERT_EQ(test, cxib_hca_init(dev), 0);
	kunit_info(test, "ISSI %u, board %s, %u pages lent\n", dev->issi, dev->board_id,
		   cxib_pages_count(dev));
	KUNIT_EXPECT_EQ(test, dev->caps.port_type, CXIB_CAP_PORT_TYPE_IB);
	KUNIT_EXPECT_EQ(test, cxib_cmd_query_pages(dev, CXIB_QUERY_PAGES_OP_MOD_REGULAR,
						   &func_id, &more), 0);
	KUNIT_EXPECT_LE(test, more, 0);

	KUNIT_EXPECT_EQ(test, cxib_mad_query(dev, 1, CXIB_SMP_ATTR_NODE_INFO, 0, data), 0);
	KUNIT_EXPECT_NE(test, CXIB_GET64(data, CXIB_SMP_NODE_INFO_NODE_GUID), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(data, CXIB_SMP_NODE_INFO_NODE_TYPE), CXIB_NODE_TYPE_CA);
	KUNIT_EXPECT_EQ(test, cxib_mad_query(dev, 1, CXIB_SMP_ATTR_PORT_INFO, 1, data), 0);

	cxib_hca_cleanup(dev);
	KUNIT_EXPECT_EQ(test, cxib_pages_count(dev), 0);
	expect_slots_idle(test, dev);
}

static struct kunit_case cxib_cmd_live_cases[] = {
	KUNIT_CASE(live_queue_geometry),
	KUNIT_CASE(live_nops_round_trip_past_token_wrap),
	KUNIT_CASE(live_unknown_opcode_is_bad_op),
	KUNIT_CASE(live_init_hca_while_disabled_fails),
	KUNIT_CASE(live_mailbox_commands),
	KUNIT_CASE(live_concurrent_commands),
	KUNIT_CASE(live_dead_device_releases_succeed),
	KUNIT_CASE(live_fatal_during_commands),
	KUNIT_CASE(live_bringup_accounts_pages),
	{}
};

static struct kunit_suite cxib_cmd_live_suite = {
	.name = "cxib_cmd_live",
	.suite_init = cmd_live_suite_init,
	.suite_exit = cmd_live_suite_exit,
	.init = cmd_live_init,
	.test_cases = cxib_cmd_live_cases,
};

kunit_test_suite(cxib_cmd_live_suite);
