// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: firmware health monitoring (PRM §1.4).
 *
 * Every CXIB_HEALTH_POLL_MS the driver reads the health buffer and the health counter in
 * the initialization segment.  A fatal condition (the firmware's version word reads all
 * ones, the NIC interface is disabled or in software reset, or the firmware asks for a
 * reset flow with a syndrome), or a command the firmware did not complete within its
 * timeout, is logged once and marks the device dead: commands fail at once, commands
 * waiting are woken to fail, every kernel CQ's consumer is called to poll the software
 * flush (from a work item), the RDMA core is told (IB_EVENT_DEVICE_FATAL), and recovery is
 * asked for (main.c: the function is reset and probed again, a new IB device registers).
 * A health counter that stops moving for CXIB_HEALTH_STUCK_POLLS polls only draws a
 * warning, as mlx5 does: a stalled counter alone is no proof of a dead firmware.
 */

#include <kunit/visibility.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "cxib.h"

/**
 * cxib_health_fatal_reason() - whether the health registers describe a dead firmware
 * @fw_ver: the health buffer's fw_ver dword (CXIB_HEALTH_FW_VER)
 * @cmdq_addr_l: the initialization segment dword holding nic_interface
 * @rfr: the health buffer dword holding the reset-flow-required bit (CXIB_HEALTH_RFR)
 * @synd: the health buffer dword holding the syndrome (CXIB_HEALTH_SYND)
 *
 * Return: NULL if none of the fatal conditions of PRM §1.4 holds, else what is wrong.
 */
VISIBLE_IF_KUNIT const char *cxib_health_fatal_reason(u32 fw_ver, u32 cmdq_addr_l, u32 rfr,
						      u32 synd)
{
	u32 nic_if = CXIB_FIELD_GET(CXIB_ISEG_NIC_INTERFACE, cmdq_addr_l);

	if (fw_ver == U32_MAX)
		return "firmware not responding (health buffer reads all ones)";
	if (nic_if == CXIB_NIC_IF_DISABLED)
		return "NIC interface disabled";
	if (nic_if == CXIB_NIC_IF_SW_RESET)
		return "NIC interface in software reset";
	if (CXIB_FIELD_GET(CXIB_HEALTH_RFR, rfr) && CXIB_FIELD_GET(CXIB_HEALTH_SYND, synd))
		return "firmware requires a reset flow";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_health_fatal_reason);

/**
 * cxib_dev_fatal() - declare the device dead
 * @dev: the device
 * @reason: what happened, for the log
 *
 * Logs once; later calls do nothing.  Process context without locks of the driver held:
 * the health poll, the PCI error handlers.  Recovery (cxib_recover()) is the caller's: the
 * one that declared the device dead decides when it comes back.
 *
 * Return: true if this call declared it dead, false if it was already.
 */
bool cxib_dev_fatal(struct cxib_dev *dev, const char *reason)
{
	struct ib_event ev = {};
	u32 synd;

	if (test_and_set_bit(CXIB_DEV_DEAD, &dev->flags))
		return false;

	synd = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_SYND));
	dev_err(&dev->pdev->dev,
		"fatal firmware error, device is dead: %s (health syndrome 0x%02x ext 0x%04x, fw_ver 0x%08x, assert_var0 0x%08x)\n",
		reason, CXIB_FIELD_GET(CXIB_HEALTH_SYND, synd),
		CXIB_FIELD_GET(CXIB_HEALTH_EXT_SYND, synd),
		cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_FW_VER)),
		cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_ASSERT_VAR0)));

	cxib_cmd_abort_all(dev);
	/* the device raises no more events: every CQ's consumer polls the software flush */
	cxib_cq_kick_all(dev);
	if (test_bit(CXIB_DEV_IB_ACTIVE, &dev->flags)) {
		ev.device = &dev->ibdev;
		ev.event = IB_EVENT_DEVICE_FATAL;
		ib_dispatch_event(&ev);
	}
	return true;
}

/* Queue the poll @delay_ms from now, unless polling stops (cxib_health_stop()). */
static void cxib_health_queue(struct cxib_dev *dev, unsigned int delay_ms)
{
	struct cxib_health *health = &dev->health;
	unsigned long flags;

	spin_lock_irqsave(&health->lock, flags);
	if (health->running)
		mod_delayed_work(system_wq, &health->work, msecs_to_jiffies(delay_ms));
	spin_unlock_irqrestore(&health->lock, flags);
}

/**
 * cxib_health_cmd_timeout() - the firmware did not complete a command in time
 * @dev: the device
 *
 * A firmware that stops answering commands is as dead as one that says so: the next
 * health poll, run now, declares the device dead (the caller may hold locks that the
 * fatal path must not run under).  Any context.
 */
void cxib_health_cmd_timeout(struct cxib_dev *dev)
{
	if (!test_and_set_bit(CXIB_DEV_CMD_TIMEOUT, &dev->flags))
		cxib_health_queue(dev, 0);
}

static void cxib_health_check_counter(struct cxib_dev *dev)
{
	struct cxib_health *health = &dev->health;
	u32 counter = CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER,
				     cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_HEALTH_COUNTER)));

	if (counter != health->last_counter) {
		if (health->stuck_reported)
			dev_info(&dev->pdev->dev, "firmware health counter moves again\n");
		health->last_counter = counter;
		health->stuck_polls = 0;
		health->stuck_reported = false;
		return;
	}
	if (++health->stuck_polls >= CXIB_HEALTH_STUCK_POLLS && !health->stuck_reported) {
		dev_warn(&dev->pdev->dev,
			 "firmware health counter stuck at %u for %u polls: health compromised\n",
			 counter, health->stuck_polls);
		health->stuck_reported = true;
	}
}

static void cxib_health_poll(struct work_struct *work)
{
	struct cxib_dev *dev = container_of(to_delayed_work(work), struct cxib_dev,
					    health.work);
	const char *reason;

	if (cxib_dev_dead(dev))
		return;		/* declared dead elsewhere (a PCI error): nothing more to watch */
	if (test_bit(CXIB_DEV_CMD_TIMEOUT, &dev->flags)) {
		if (cxib_dev_fatal(dev, "firmware did not complete a command in time"))
			cxib_recover(dev);
		return;
	}
	reason = cxib_health_fatal_reason(cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_FW_VER)),
					  cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_NIC_INTERFACE)),
					  cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_RFR)),
					  cxib_iseg_read(dev, CXIB_OFFSET(CXIB_HEALTH_SYND)));
	if (reason) {
		if (cxib_dev_fatal(dev, reason))
			cxib_recover(dev);
		return;		/* nothing more to watch */
	}
	cxib_health_check_counter(dev);
	cxib_health_queue(dev, CXIB_HEALTH_POLL_MS);
}

/**
 * cxib_health_start() - start polling the firmware's health
 * @dev: the device, with its initialization segment mapped
 */
void cxib_health_start(struct cxib_dev *dev)
{
	struct cxib_health *health = &dev->health;

	INIT_DELAYED_WORK(&health->work, cxib_health_poll);
	spin_lock_init(&health->lock);
	health->running = true;
	health->last_counter =
		CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER,
			       cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_HEALTH_COUNTER)));
	health->stuck_polls = 0;
	health->stuck_reported = false;
	queue_delayed_work(system_wq, &health->work, msecs_to_jiffies(CXIB_HEALTH_POLL_MS));
}

/**
 * cxib_health_stop() - stop polling, waiting for a poll in progress
 * @dev: the device
 */
void cxib_health_stop(struct cxib_dev *dev)
{
	struct cxib_health *health = &dev->health;

	spin_lock_irq(&health->lock);
	health->running = false;	/* no poll is queued after this ... */
	spin_unlock_irq(&health->lock);
	cancel_delayed_work_sync(&health->work);	/* ... and the one queued is gone */
}
