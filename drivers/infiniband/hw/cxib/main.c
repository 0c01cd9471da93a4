// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: InfiniBand HCA driver for ConnectX-class (mlx5 PRM) adapters.
 *
 * PCI probe and remove, and the device lifecycle.  Probe brings the function up in two
 * phases: the hardware (PCI resources, command interface, firmware, UAR, EQs), then
 * registration with the RDMA core.  Remove undoes them in exactly the reverse order, and a
 * failing step undoes the steps before it.
 *
 * Phase 1, in order: PCI function and BAR0, initialization segment, page accounting
 * (pages.c), command queue (cmd.c), health polling (health.c), firmware initialization
 * (hca.c: ENABLE_HCA .. QUERY_ADAPTER), the driver's UAR, MSI-X and EQs (eq.c).  Phase 2
 * registers the InfiniBand device (ib.c).
 *
 * Recovery (as mlx5 does it: unload, reset, load): once the device is dead (health.c: a
 * fatal firmware condition, a command that never completed; or a PCI error), a work item
 * unbinds the driver from the function (remove: the IB device unregisters, every ULP lets
 * go, the dead hardware state is freed, and the function is reset, so that the firmware
 * starts again and forgets the memory it was given) and probes it again: a new IB device
 * registers, the ULPs come back.  A PCI error (AER) and a reset asked for through sysfs
 * are followed the same way.  A function that dies again within recovery_grace_ms of its
 * last recovery is left dead, as is any with recovery off.
 */

#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/stringify.h>
#include <rdma/ib_verbs.h>

#include "cxib.h"

static unsigned int init_timeout_ms = CXIB_FW_INIT_TIMEOUT_MS;
module_param(init_timeout_ms, uint, 0644);
MODULE_PARM_DESC(init_timeout_ms,
		 "How long probe waits for the firmware to finish initializing, in ms (default "
		 __stringify(CXIB_FW_INIT_TIMEOUT_MS) ")");

static unsigned int cmd_timeout_ms = CXIB_CMD_TIMEOUT_MS;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms,
		 "How long a firmware command may take before it fails with -ETIMEDOUT, in ms (default "
		 __stringify(CXIB_CMD_TIMEOUT_MS) "); applies to devices probed later");

static bool recovery = true;
module_param(recovery, bool, 0644);
MODULE_PARM_DESC(recovery,
		 "After a fatal device error, reset the function and probe it again (default on)");

static unsigned int recovery_grace_ms = CXIB_RECOVERY_GRACE_MS;
module_param(recovery_grace_ms, uint, 0644);
MODULE_PARM_DESC(recovery_grace_ms,
		 "A function that fails again within this many ms of its last recovery is left dead (default "
		 __stringify(CXIB_RECOVERY_GRACE_MS) ")");

static int cxib_check_bar0(struct pci_dev *pdev)
{
	unsigned long flags = pci_resource_flags(pdev, CXIB_BAR0);
	resource_size_t len = pci_resource_len(pdev, CXIB_BAR0);

	if (!(flags & IORESOURCE_MEM) || !(flags & IORESOURCE_MEM_64)) {
		dev_err(&pdev->dev, "BAR%d is not a 64-bit memory BAR\n", CXIB_BAR0);
		return -ENODEV;
	}
	if (len < CXIB_ISEG_SIZE) {
		dev_err(&pdev->dev, "BAR%d is %pa bytes, too small for the initialization segment\n",
			CXIB_BAR0, &len);
		return -ENODEV;
	}
	return 0;
}

static int cxib_set_dma_mask(struct pci_dev *pdev)
{
	int err;

	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (!err)
		return 0;

	dev_warn(&pdev->dev, "64-bit DMA not available, falling back to 32-bit\n");
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (err)
		dev_err(&pdev->dev, "no usable DMA configuration: %d\n", err);
	return err;
}

/* Enable the function, claim BAR0 and map its initialization segment. */
static int cxib_pci_init(struct cxib_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot enable PCI device: %d\n", err);
		return err;
	}

	err = pci_request_region(pdev, CXIB_BAR0, KBUILD_MODNAME);
	if (err) {
		dev_err(&pdev->dev, "cannot claim BAR%d: %d\n", CXIB_BAR0, err);
		goto err_disable_device;
	}

	err = cxib_check_bar0(pdev);
	if (err)
		goto err_release_region;

	err = cxib_set_dma_mask(pdev);
	if (err)
		goto err_release_region;

	pci_set_master(pdev);
	/* the configuration a link reset of a PCI error wipes: slot_reset() restores it */
	pci_save_state(pdev);

	dev->iseg = ioremap(pci_resource_start(pdev, CXIB_BAR0), CXIB_ISEG_SIZE);
	if (!dev->iseg) {
		dev_err(&pdev->dev, "cannot map the initialization segment\n");
		err = -ENOMEM;
		goto err_clear_master;
	}

	return 0;

err_clear_master:
	pci_clear_master(pdev);
err_release_region:
	pci_release_region(pdev, CXIB_BAR0);
err_disable_device:
	pci_disable_device(pdev);
	return err;
}

static void cxib_pci_cleanup(struct cxib_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	iounmap(dev->iseg);
	pci_clear_master(pdev);
	pci_release_region(pdev, CXIB_BAR0);
	pci_disable_device(pdev);
}

/* The driver's own UAR page, for EQ (and later CQ) doorbells. */
static int cxib_uar_init(struct cxib_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	int err;

	err = cxib_cmd_alloc_uar(dev, &dev->uar);
	if (err)
		return err;
	if (!cxib_uar_in_bar(dev, dev->uar)) {
		dev_err(&pdev->dev, "ALLOC_UAR returned UAR %u, outside BAR%d\n", dev->uar,
			CXIB_BAR0);
		err = -EIO;
		goto err_dealloc;
	}
	dev->uar_map = ioremap(pci_resource_start(pdev, CXIB_BAR0) +
			       (resource_size_t)dev->uar * CXIB_ADAPTER_PAGE_SIZE,
			       CXIB_ADAPTER_PAGE_SIZE);
	if (!dev->uar_map) {
		err = -ENOMEM;
		goto err_dealloc;
	}
	return 0;

err_dealloc:
	cxib_cmd_dealloc_uar(dev, dev->uar);
	return err;
}

static void cxib_uar_cleanup(struct cxib_dev *dev)
{
	iounmap(dev->uar_map);
	cxib_cmd_dealloc_uar(dev, dev->uar);
}

/**
 * cxib_hw_init() - probe phase 1: bring the hardware up
 * @dev: the device
 *
 * Claims and maps the PCI function, checks the initialization segment, waits for the
 * firmware, sets up the command queue, starts health polling, initializes the firmware,
 * maps the driver's UAR and creates the EQs.  Undone by cxib_hw_cleanup().
 *
 * Return: 0 or a negative errno, with everything done so far undone.
 */
static int cxib_hw_init(struct cxib_dev *dev)
{
	int err;

	err = cxib_pci_init(dev);
	if (err)
		return err;

	/* the fields the check reads are valid once the firmware is ready (a fresh reset) */
	err = cxib_iseg_wait_ready(dev, READ_ONCE(init_timeout_ms));
	if (err)
		goto err_pci_cleanup;

	err = cxib_iseg_check(dev);
	if (err)
		goto err_pci_cleanup;

	cxib_iseg_read_fw_rev(dev);
	dev_info(&dev->pdev->dev, "firmware %u.%u.%u, command interface rev %u\n",
		 dev->fw_rev.major, dev->fw_rev.minor, dev->fw_rev.subminor, dev->cmdif_rev);

	err = cxib_pages_init(dev);
	if (err)
		goto err_pci_cleanup;
	err = cxib_cmd_init(dev, READ_ONCE(cmd_timeout_ms));
	if (err)
		goto err_pages_cleanup;
	cxib_health_start(dev);
	err = cxib_hca_init(dev);
	if (err)
		goto err_health_stop;
	err = cxib_uar_init(dev);
	if (err)
		goto err_hca_cleanup;
	err = cxib_eqs_init(dev);
	if (err)
		goto err_uar_cleanup;

	return 0;

err_uar_cleanup:
	cxib_uar_cleanup(dev);
err_hca_cleanup:
	cxib_hca_cleanup(dev);
err_health_stop:
	cxib_health_stop(dev);
	cxib_cmd_cleanup(dev);
err_pages_cleanup:
	cxib_pages_cleanup(dev);
err_pci_cleanup:
	cxib_pci_cleanup(dev);
	return err;
}

static void cxib_hw_cleanup(struct cxib_dev *dev)
{
	cxib_eqs_cleanup(dev);
	cxib_uar_cleanup(dev);
	cxib_hca_cleanup(dev);
	cxib_health_stop(dev);
	cxib_cmd_cleanup(dev);
	cxib_pages_cleanup(dev);
	cxib_pci_cleanup(dev);
}

/* ---- Recovery ------------------------------------------------------------------------- */

/* Recoveries run here, one at a time; module exit waits for them. */
static struct workqueue_struct *cxib_recovery_wq;
static DEFINE_MUTEX(cxib_recovery_lock);	/* cxib_unloading, cxib_recovered */
static bool cxib_unloading;
static LIST_HEAD(cxib_recovered);

/* When a function (by its PCI name) last came back from a recovery. */
struct cxib_recovered_fn {
	struct list_head node;
	char name[32];
	unsigned long when;	/* jiffies */
};

/**
 * struct cxib_recovery - one recovery of a function
 * @work: runs cxib_recovery_work() on cxib_recovery_wq
 * @pdev: the function, referenced
 */
struct cxib_recovery {
	struct work_struct work;
	struct pci_dev *pdev;
};

static struct cxib_recovered_fn *cxib_recovered_find(const char *name)
{
	struct cxib_recovered_fn *f;

	lockdep_assert_held(&cxib_recovery_lock);
	list_for_each_entry(f, &cxib_recovered, node)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* The function recovered less than recovery_grace_ms ago. */
static bool cxib_recovery_too_soon(struct pci_dev *pdev)
{
	struct cxib_recovered_fn *f;
	bool soon;

	mutex_lock(&cxib_recovery_lock);
	f = cxib_recovered_find(pci_name(pdev));
	soon = f && time_before(jiffies, f->when + msecs_to_jiffies(READ_ONCE(recovery_grace_ms)));
	mutex_unlock(&cxib_recovery_lock);
	return soon;
}

/* Note that @pdev recovers now; false if the module is going away (no new probe then). */
static bool cxib_recovery_note(struct pci_dev *pdev)
{
	struct cxib_recovered_fn *f;
	bool go;

	mutex_lock(&cxib_recovery_lock);
	go = !cxib_unloading;
	f = cxib_recovered_find(pci_name(pdev));
	if (!f) {
		f = kzalloc(sizeof(*f), GFP_KERNEL);
		if (f) {
			strscpy(f->name, pci_name(pdev), sizeof(f->name));
			list_add(&f->node, &cxib_recovered);
		}
	}
	if (f)
		f->when = jiffies;
	mutex_unlock(&cxib_recovery_lock);
	return go;
}

static void cxib_recovery_work(struct work_struct *work)
{
	struct cxib_recovery *r = container_of(work, struct cxib_recovery, work);
	struct pci_dev *pdev = r->pdev;
	unsigned long t0 = jiffies;
	int err;

	dev_info(&pdev->dev, "recovery: removing the failed device\n");
	device_release_driver(&pdev->dev);	/* remove() resets the dead function */
	if (!cxib_recovery_note(pdev)) {
		dev_info(&pdev->dev, "recovery: not probed again, the module is going away\n");
	} else {
		err = device_attach(&pdev->dev);
		if (err > 0)
			dev_info(&pdev->dev, "recovery: device back after %u ms\n",
				 jiffies_to_msecs(jiffies - t0));
		else
			dev_err(&pdev->dev,
				"recovery: the function did not come back (%d); see the probe's messages above\n",
				err);
	}
	pci_dev_put(pdev);
	kfree(r);
}

/**
 * cxib_recover() - recover a dead device: probe its function again, in a work item
 * @dev: the device, marked dead
 *
 * Once per device; not with recovery off, nor within recovery_grace_ms of the function's
 * last recovery (then the device stays dead, with a message saying what to do).  Process
 * context.
 */
void cxib_recover(struct cxib_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	struct cxib_recovery *r;

	if (test_and_set_bit(CXIB_DEV_RECOVERING, &dev->flags))
		return;
	if (!READ_ONCE(recovery)) {
		dev_err(&pdev->dev,
			"device left dead: recovery is off (module parameter recovery); rmmod and modprobe cxib to bring it back\n");
		return;
	}
	if (cxib_recovery_too_soon(pdev)) {
		dev_err(&pdev->dev,
			"device left dead: it failed again less than %u ms after its last recovery; rmmod and modprobe cxib to bring it back\n",
			READ_ONCE(recovery_grace_ms));
		return;
	}
	r = xchg(&dev->recovery, NULL);		/* the work owns it from here */
	if (!r)
		return;
	INIT_WORK(&r->work, cxib_recovery_work);
	r->pdev = pci_dev_get(pdev);
	queue_work(cxib_recovery_wq, &r->work);
}

/* ---- PCI error handling (AER), function reset -------------------------------------- */

/*
 * An uncorrectable PCI error: the device is dead from here on (as mlx5 does for any of
 * them); the PCI core resets the link for a fatal one (not for a non-fatal one), then
 * resume() has the function reset and probed again.  A permanent failure (the device is
 * gone) is only marked dead: removal follows.
 */
static pci_ers_result_t cxib_pci_error_detected(struct pci_dev *pdev, pci_channel_state_t state)
{
	struct cxib_dev *dev = pci_get_drvdata(pdev);

	dev_err(&pdev->dev, "PCI error detected (channel state %d)\n", state);
	if (dev)
		cxib_dev_fatal(dev, state == pci_channel_io_perm_failure ?
			       "the PCI function is gone" : "uncorrectable PCI error");
	return state == pci_channel_io_perm_failure ? PCI_ERS_RESULT_DISCONNECT :
						      PCI_ERS_RESULT_NEED_RESET;
}

/* After the link reset: the configuration back (BARs, command register) as saved at probe. */
static pci_ers_result_t cxib_pci_slot_reset(struct pci_dev *pdev)
{
	dev_info(&pdev->dev, "PCI slot reset: restoring the configuration\n");
	pci_restore_state(pdev);
	pci_save_state(pdev);
	return PCI_ERS_RESULT_RECOVERED;
}

static void cxib_pci_resume(struct pci_dev *pdev)
{
	struct cxib_dev *dev = pci_get_drvdata(pdev);

	if (dev)
		cxib_recover(dev);
}

/* A function reset someone else asked for (sysfs reset): stop using the hardware ... */
static void cxib_pci_reset_prepare(struct pci_dev *pdev)
{
	struct cxib_dev *dev = pci_get_drvdata(pdev);

	if (dev)
		cxib_dev_fatal(dev, "function reset requested");
}

/*
 * ... and once it is done, come back as a new device; unless the reset belongs to the
 * recovery of a PCI error (the channel is offline then), whose resume() does that.
 */
static void cxib_pci_reset_done(struct pci_dev *pdev)
{
	struct cxib_dev *dev = pci_get_drvdata(pdev);

	if (dev && !pci_channel_offline(pdev))
		cxib_recover(dev);
}

static const struct pci_error_handlers cxib_pci_err_handlers = {
	.error_detected = cxib_pci_error_detected,
	.slot_reset = cxib_pci_slot_reset,
	.resume = cxib_pci_resume,
	.reset_prepare = cxib_pci_reset_prepare,
	.reset_done = cxib_pci_reset_done,
};

/* ---- Probe and remove ---------------------------------------------------------------- */

static int cxib_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct cxib_dev *dev;
	int err;

	dev = ib_alloc_device(cxib_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	dev->pdev = pdev;
	/* The EQ handlers look objects up from phase 1 on; objects exist only after phase 2. */
	cxib_obj_tables_init(dev);
	/* allocated now: a dying device must not need memory to recover */
	dev->recovery = kzalloc(sizeof(*dev->recovery), GFP_KERNEL);
	if (!dev->recovery) {
		err = -ENOMEM;
		goto err_dealloc;
	}

	err = cxib_hw_init(dev);
	if (err)
		goto err_free_recovery;

	err = cxib_ib_register(dev);
	if (err)
		goto err_hw_cleanup;

	pci_set_drvdata(pdev, dev);
	return 0;

err_hw_cleanup:
	cxib_hw_cleanup(dev);
err_free_recovery:
	kfree(xchg(&dev->recovery, NULL));
err_dealloc:
	ib_dealloc_device(&dev->ibdev);
	return err;
}

static void cxib_remove(struct pci_dev *pdev)
{
	struct cxib_dev *dev = pci_get_drvdata(pdev);

	if (!dev)
		return;		/* already shut down */
	cxib_ib_unregister(dev);
	cxib_hw_cleanup(dev);
	pci_set_drvdata(pdev, NULL);
	/*
	 * A dead firmware was never told to let go of the memory it was given (queues, EQs,
	 * pages, now freed): reset the function, so that no later probe, turning bus
	 * mastering on again, lets it write there.  The device lock is held (remove).
	 */
	if (cxib_dev_dead(dev) && pci_reset_function_locked(pdev))
		dev_warn(&pdev->dev, "cannot reset the dead function: reset it before using it again\n");
	kfree(xchg(&dev->recovery, NULL));	/* unless a recovery took it */
	ib_dealloc_device(&dev->ibdev);
}

/*
 * Reboot, power off, kexec: tear the function down as remove does, so the firmware gets
 * its pages back and the function is disabled before the machine moves on.
 */
static void cxib_shutdown(struct pci_dev *pdev)
{
	cxib_remove(pdev);
}

/*
 * A physical function in its InfiniBand personality, which ConnectX adapters show in the
 * PCI class code (the Ethernet personality is a network controller of class 0x0200 and
 * belongs to mlx5_core).  The class field holds class and subclass above the prog-if byte.
 */
#define CXIB_PCI_IB_PF(id) {						\
	PCI_DEVICE(CXIB_PCI_VENDOR_ID, id),				\
	.class = CXIB_PCI_CLASS_INFINIBAND << 8,			\
	.class_mask = CXIB_PCI_CLASS_MASK,				\
}

static const struct pci_device_id cxib_pci_table[] = {
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX4),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX4_LX),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX5),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX5_EX),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX6),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX6_DX),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX6_LX),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX7),
	CXIB_PCI_IB_PF(CXIB_PCI_DEVICE_CX8),
	{ }
};
MODULE_DEVICE_TABLE(pci, cxib_pci_table);

static struct pci_driver cxib_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = cxib_pci_table,
	.probe = cxib_probe,
	.remove = cxib_remove,
	.shutdown = cxib_shutdown,
	.err_handler = &cxib_pci_err_handlers,
};

static int __init cxib_init(void)
{
	int err;

	cxib_recovery_wq = alloc_ordered_workqueue("cxib_recovery", 0);
	if (!cxib_recovery_wq)
		return -ENOMEM;
	err = pci_register_driver(&cxib_pci_driver);
	if (err)
		destroy_workqueue(cxib_recovery_wq);
	return err;
}

static void __exit cxib_exit(void)
{
	struct cxib_recovered_fn *f, *tmp;

	mutex_lock(&cxib_recovery_lock);
	cxib_unloading = true;		/* a recovery under way probes nothing more */
	mutex_unlock(&cxib_recovery_lock);
	pci_unregister_driver(&cxib_pci_driver);
	destroy_workqueue(cxib_recovery_wq);	/* waits for a recovery under way */
	list_for_each_entry_safe(f, tmp, &cxib_recovered, node)
		kfree(f);
}

module_init(cxib_init);
module_exit(cxib_exit);

MODULE_DESCRIPTION("InfiniBand HCA driver for ConnectX-class (mlx5 PRM) adapters");
MODULE_LICENSE("GPL");
#ifdef CXIB_VERSION
MODULE_VERSION(CXIB_VERSION);
#endif
