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

	err = cxib_iseg_check(dev);
	if (err)
		goto err_pci_cleanup;

	err = cxib_iseg_wait_ready(dev, READ_ONCE(init_timeout_ms));
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

	err = cxib_hw_init(dev);
	if (err)
		goto err_dealloc;

	err = cxib_ib_register(dev);
	if (err)
		goto err_hw_cleanup;

	pci_set_drvdata(pdev, dev);
	return 0;

err_hw_cleanup:
	cxib_hw_cleanup(dev);
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
	ib_dealloc_device(&dev->ibdev);
	pci_set_drvdata(pdev, NULL);
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
};
module_pci_driver(cxib_pci_driver);

MODULE_DESCRIPTION("InfiniBand HCA driver for ConnectX-class (mlx5 PRM) adapters");
MODULE_LICENSE("GPL");
#ifdef CXIB_VERSION
MODULE_VERSION(CXIB_VERSION);
#endif
