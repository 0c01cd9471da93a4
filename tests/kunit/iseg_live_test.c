// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the initialization segment of a real cxib function (the cxib-pci model in
 * the KUnit VM), read through the driver's own iseg.c.
 *
 * The suite takes the function from cxib.ko for its duration (kunit_live.c) and gives it
 * back at the end, checking that cxib binds to it again.  Without a function every case
 * is skipped, or fails with cxib_kunit.require_device=1.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/* How long a check waits for the firmware, beyond the device's own init delay. */
#define ISEG_LIVE_WAIT_MS	5000

static struct cxib_kunit_fn iseg_live;

static int iseg_live_suite_init(struct kunit_suite *suite)
{
	memset(&iseg_live, 0, sizeof(iseg_live));
	int err;

	iseg_live.pdev = cxib_kunit_find_function();
	if (!iseg_live.pdev)
		return 0;	/* each case skips or fails */
	err = cxib_kunit_fn_claim(&iseg_live);
	if (err) {
		/* The suite fails; suite_exit does not run. */
		pci_dev_put(iseg_live.pdev);
		iseg_live.pdev = NULL;
	}
	return err;
}

static void iseg_live_suite_exit(struct kunit_suite *suite)
{
	if (!iseg_live.pdev)
		return;
	cxib_kunit_fn_release(&iseg_live);
	pci_dev_put(iseg_live.pdev);
	iseg_live.pdev = NULL;
}

static int iseg_live_init(struct kunit *test)
{
	if (!iseg_live.pdev) {
		KUNIT_ASSERT_FALSE_MSG(test, cxib_kunit_require_device,
				       "no cxib function (vendor 0x%04x, class 0x%04x) found",
				       CXIB_PCI_VENDOR_ID, CXIB_PCI_CLASS_INFINIBAND);
		kunit_skip(test, "no cxib function in this machine");
	}
	if (!iseg_live.dev.iseg)
		kunit_skip(test, "the function was given back by an earlier case");
	test->priv = &iseg_live.dev;
	return 0;
}

/* A 16-bit big-endian register half at a byte offset of the segment. */
static u16 iseg_read16(const struct cxib_dev *dev, unsigned int offset)
{
	return ioread16be(dev->iseg + offset);
}

/* The firmware speaks command interface revision 5 (bytes 0x004-0x005). */
static void live_cmdif_rev_is_5(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;

	KUNIT_EXPECT_EQ(test, iseg_read16(dev, 0x004), 5);
	KUNIT_ASSERT_EQ(test, cxib_iseg_check(dev), 0);
	KUNIT_EXPECT_EQ(test, dev->cmdif_rev, CXIB_CMDIF_REV);
	/* Not an embedded-CPU function: bit 23 of 0x1fc, the top bit of byte 0x1fd. */
	KUNIT_EXPECT_EQ(test, ioread8(dev->iseg + 0x1fd) & 0x80, 0);
}

/*
 * The firmware revision the driver reads (cxib_iseg_read_fw_rev) is the one in the
 * segment: major at 0x002, minor at 0x000, subminor at 0x006, read 16 bits at a time.
 */
static void live_fw_rev_reads_back(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;

	cxib_iseg_read_fw_rev(dev);
	kunit_info(test, "firmware %u.%u.%u\n",
		   dev->fw_rev.major, dev->fw_rev.minor, dev->fw_rev.subminor);
	KUNIT_EXPECT_EQ(test, dev->fw_rev.major, iseg_read16(dev, 0x002));
	KUNIT_EXPECT_EQ(test, dev->fw_rev.minor, iseg_read16(dev, 0x000));
	KUNIT_EXPECT_EQ(test, dev->fw_rev.subminor, iseg_read16(dev, 0x006));
	KUNIT_EXPECT_NE(test, dev->fw_rev.major | dev->fw_rev.minor | dev->fw_rev.subminor, 0);
	KUNIT_EXPECT_NE(test, dev->fw_rev.major, 0xffff);
}

/* The health counter (0x1010 [23:0]) keeps moving and the syndrome is clear. */
static void live_health_counter_advances(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	u32 v0, v1, delta, reg;

	v0 = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_HEALTH_COUNTER));
	msleep(50);
	v1 = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_HEALTH_COUNTER));

	KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(CXIB_ISEG_HEALTH_SYNDROME, v0), 0);
	KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(CXIB_ISEG_HEALTH_SYNDROME, v1), 0);
	delta = (CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER, v1) -
		 CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER, v0)) &
		CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER, U32_MAX);
	kunit_info(test, "health counter 0x%06x -> 0x%06x in 50 ms\n",
		   CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER, v0),
		   CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER, v1));
	KUNIT_EXPECT_GT(test, delta, 0);

	/* The health buffer reports no fatal condition. */
	reg = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_RFR));
	KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(CXIB_HEALTH_RFR, reg), 0);
	reg = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_SYND));
	KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(CXIB_HEALTH_SYND, reg), 0);
	KUNIT_EXPECT_NE(test, cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_FW_VER)), U32_MAX);
}

/*
 * After a function reset the firmware reports "initializing" (bit 31 of 0x1fc) for the
 * device's init delay; cxib_iseg_wait_ready() times out while it does and returns once
 * the bit clears.
 */
static void live_initializing_clears_after_reset(struct kunit *test)
{
	struct cxib_dev *dev = test->priv;
	unsigned int delay = cxib_kunit_init_delay_ms;
	unsigned long t0;
	u32 v;

	KUNIT_ASSERT_EQ(test, pci_reset_function(dev->pdev), 0);
	t0 = jiffies;

	v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_INITIALIZING));
	KUNIT_ASSERT_NE_MSG(test, v, U32_MAX, "the function does not respond after reset");
	if (delay) {
		KUNIT_EXPECT_EQ_MSG(test, CXIB_FIELD_GET(CXIB_ISEG_INITIALIZING, v), 1,
				    "not initializing right after a reset, with init-delay-ms=%u",
				    delay);
		if (CXIB_FIELD_GET(CXIB_ISEG_INITIALIZING, v))
			KUNIT_EXPECT_EQ(test, cxib_iseg_wait_ready(dev, 0), -ETIMEDOUT);
	}

	KUNIT_EXPECT_EQ(test, cxib_iseg_wait_ready(dev, delay + ISEG_LIVE_WAIT_MS), 0);
	v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_INITIALIZING));
	KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(CXIB_ISEG_INITIALIZING, v), 0);
	kunit_info(test, "ready %u ms after the reset (init-delay-ms=%u%s)\n",
		   jiffies_to_msecs(jiffies - t0), delay,
		   delay ? "" : ": the initializing phase was not checked");

	/* The segment reads as before the reset. */
	KUNIT_EXPECT_EQ(test, cxib_iseg_check(dev), 0);
}

/* The driver that had the function binds to it again (its probe runs). */
static void live_driver_binds_again(struct kunit *test)
{
	struct pci_dev *pdev = iseg_live.pdev;
	char driver[sizeof(iseg_live.driver)];

	strscpy(driver, iseg_live.driver, sizeof(driver));
	if (!driver[0])
		kunit_skip(test, "no driver was bound to %s", pci_name(pdev));

	KUNIT_EXPECT_EQ(test, cxib_kunit_fn_release(&iseg_live), 0);
	device_lock(&pdev->dev);
	KUNIT_EXPECT_NOT_NULL(test, pdev->dev.driver);
	if (pdev->dev.driver)
		KUNIT_EXPECT_STREQ(test, pdev->dev.driver->name, driver);
	device_unlock(&pdev->dev);
}

static struct kunit_case cxib_iseg_live_cases[] = {
	KUNIT_CASE(live_cmdif_rev_is_5),
	KUNIT_CASE(live_fw_rev_reads_back),
	KUNIT_CASE(live_health_counter_advances),
	KUNIT_CASE_SLOW(live_initializing_clears_after_reset),
	/* Last: it gives the function back. */
	KUNIT_CASE(live_driver_binds_again),
	{}
};

static struct kunit_suite cxib_iseg_live_suite = {
	.name = "cxib_iseg_live",
	.suite_init = iseg_live_suite_init,
	.suite_exit = iseg_live_suite_exit,
	.init = iseg_live_init,
	.test_cases = cxib_iseg_live_cases,
};

kunit_test_suite(cxib_iseg_live_suite);
