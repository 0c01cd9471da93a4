// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the initialization segment at the start of BAR0 (PRM §1.3, §1.4).
 *
 * Before it issues any command the driver checks that the firmware speaks the command
 * interface it knows and that the function is not an embedded-CPU function, then waits for
 * the firmware to finish initializing.
 */

#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/sched/signal.h>

#include "cxib.h"

/* A function that no longer answers on the bus reads all ones. */
static bool cxib_iseg_dead(const struct cxib_dev *dev, u32 v)
{
	if (v != U32_MAX)
		return false;
	dev_err(&dev->pdev->dev, "initialization segment reads all ones, device not responding\n");
	return true;
}

/**
 * cxib_iseg_check() - check that cxib can drive this function
 * @dev: the device, with its initialization segment mapped
 *
 * Records the command interface revision in @dev.
 *
 * Return: 0; -EIO if the function does not respond; -EOPNOTSUPP if the firmware speaks
 * another command interface revision or the function belongs to an embedded CPU.
 */
int cxib_iseg_check(struct cxib_dev *dev)
{
	u32 v;

	v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_CMDIF_REV));
	if (cxib_iseg_dead(dev, v))
		return -EIO;

	dev->cmdif_rev = CXIB_FIELD_GET(CXIB_ISEG_CMDIF_REV, v);
	if (dev->cmdif_rev != CXIB_CMDIF_REV) {
		dev_err(&dev->pdev->dev,
			"firmware command interface rev %u is not supported, cxib speaks rev %u\n",
			dev->cmdif_rev, CXIB_CMDIF_REV);
		return -EOPNOTSUPP;
	}

	v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_EMBEDDED_CPU));
	if (CXIB_FIELD_GET(CXIB_ISEG_EMBEDDED_CPU, v)) {
		dev_err(&dev->pdev->dev, "embedded CPU functions are not supported\n");
		return -EOPNOTSUPP;
	}

	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_iseg_check);

/**
 * cxib_iseg_wait_ready() - wait for the firmware to finish initializing
 * @dev: the device
 * @timeout_ms: how long to wait for the initializing bit to clear
 *
 * Polls the initializing bit, reporting progress every CXIB_FW_INIT_REPORT_MS.  May sleep
 * for up to @timeout_ms; a fatal signal to the probing task ends the wait early.
 *
 * Return: 0 once the firmware is ready; -ETIMEDOUT if it is still initializing after
 * @timeout_ms; -EINTR on a fatal signal; -EIO if the function stops responding.
 */
int cxib_iseg_wait_ready(struct cxib_dev *dev, unsigned int timeout_ms)
{
	unsigned long start = jiffies;
	unsigned long deadline = start + msecs_to_jiffies(timeout_ms);
	unsigned long report = start + msecs_to_jiffies(CXIB_FW_INIT_REPORT_MS);
	unsigned int waited_s;
	u32 v;

	for (;;) {
		v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_INITIALIZING));
		if (cxib_iseg_dead(dev, v))
			return -EIO;
		if (!CXIB_FIELD_GET(CXIB_ISEG_INITIALIZING, v))
			return 0;

		if (time_after(jiffies, deadline)) {
			dev_err(&dev->pdev->dev,
				"firmware did not finish initializing within %u ms\n", timeout_ms);
			return -ETIMEDOUT;
		}
		if (fatal_signal_pending(current)) {
			dev_err(&dev->pdev->dev,
				"interrupted while waiting for firmware to initialize\n");
			return -EINTR;
		}
		if (time_after_eq(jiffies, report)) {
			waited_s = jiffies_to_msecs(jiffies - start) / MSEC_PER_SEC;
			dev_warn(&dev->pdev->dev,
				 "firmware still initializing after %u s, waiting up to %u ms\n",
				 waited_s, timeout_ms);
			report += msecs_to_jiffies(CXIB_FW_INIT_REPORT_MS);
		}

		msleep(CXIB_FW_INIT_POLL_MS);
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_iseg_wait_ready);

/**
 * cxib_iseg_read_fw_rev() - read the firmware revision into @dev->fw_rev
 * @dev: the device, with its firmware ready
 */
void cxib_iseg_read_fw_rev(struct cxib_dev *dev)
{
	u32 rev = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_FW_REV_MAJOR));
	u32 sub = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_FW_REV_SUBMINOR));

	dev->fw_rev.major = CXIB_FIELD_GET(CXIB_ISEG_FW_REV_MAJOR, rev);
	dev->fw_rev.minor = CXIB_FIELD_GET(CXIB_ISEG_FW_REV_MINOR, rev);
	dev->fw_rev.subminor = CXIB_FIELD_GET(CXIB_ISEG_FW_REV_SUBMINOR, sub);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_iseg_read_fw_rev);
