// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the cxib-pci function for the live suites.
 *
 * A live suite owns the function while it runs: cxib_kunit_fn_claim() unbinds cxib.ko
 * (running its remove), enables the function and maps the initialization segment the way
 * probe does; cxib_kunit_fn_release() undoes that and lets the PCI core bind a driver
 * again (running cxib's probe).  So a live suite may reset the function or drive its
 * firmware through the driver's own code without fighting the bound driver, and every run
 * of a live suite also exercises cxib's remove and probe.
 */

#include <linux/device.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/**
 * cxib_kunit_find_function() - find the first cxib function in the system
 *
 * Return: an InfiniBand-class function of vendor CXIB_PCI_VENDOR_ID with a reference
 * held (drop it with pci_dev_put()), or NULL.
 */
struct pci_dev *cxib_kunit_find_function(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_device(CXIB_PCI_VENDOR_ID, PCI_ANY_ID, pdev))) {
		if ((pdev->class >> 8) == CXIB_PCI_CLASS_INFINIBAND)
			return pdev;
	}
	return NULL;
}

/**
 * cxib_kunit_fn_claim() - take a cxib function over for a live suite
 * @fn: @fn->pdev set to the function (with a reference), the rest zeroed
 *
 * Return: 0, or a negative errno with nothing left claimed (a driver that was bound is
 * bound again).
 */
int cxib_kunit_fn_claim(struct cxib_kunit_fn *fn)
{
	struct pci_dev *pdev = fn->pdev;
	int err;

	device_lock(&pdev->dev);
	if (pdev->dev.driver)
		strscpy(fn->driver, pdev->dev.driver->name, sizeof(fn->driver));
	device_unlock(&pdev->dev);
	if (fn->driver[0]) {
		pci_info(pdev, "cxib_kunit: unbinding %s for the live suites\n", fn->driver);
		device_release_driver(&pdev->dev);
	}

	err = pci_enable_device_mem(pdev);
	if (err) {
		pci_err(pdev, "cxib_kunit: cannot enable the function: %d\n", err);
		goto err_rebind;
	}
	err = pci_request_region(pdev, CXIB_BAR0, "cxib_kunit");
	if (err) {
		pci_err(pdev, "cxib_kunit: cannot claim BAR%d: %d\n", CXIB_BAR0, err);
		goto err_disable;
	}
	if (pci_resource_len(pdev, CXIB_BAR0) < CXIB_ISEG_SIZE) {
		pci_err(pdev, "cxib_kunit: BAR%d is too small\n", CXIB_BAR0);
		err = -ENODEV;
		goto err_release_region;
	}
	fn->dev.pdev = pdev;
	fn->dev.iseg = ioremap(pci_resource_start(pdev, CXIB_BAR0), CXIB_ISEG_SIZE);
	if (!fn->dev.iseg) {
		err = -ENOMEM;
		goto err_release_region;
	}
	return 0;

err_release_region:
	pci_release_region(pdev, CXIB_BAR0);
err_disable:
	pci_disable_device(pdev);
err_rebind:
	if (fn->driver[0] && device_attach(&pdev->dev) <= 0)
		pci_err(pdev, "cxib_kunit: %s did not bind again\n", fn->driver);
	fn->driver[0] = '\0';
	return err;
}

/**
 * cxib_kunit_fn_release() - give a claimed function back
 * @fn: the function, claimed by cxib_kunit_fn_claim(); it may be released more than once
 *
 * If a driver was bound when the function was claimed, asks the PCI core to bind one
 * again.  Keeps the reference to @fn->pdev.
 *
 * Return: 0; -ENODEV if a driver was bound before and none is now.
 */
int cxib_kunit_fn_release(struct cxib_kunit_fn *fn)
{
	struct pci_dev *pdev = fn->pdev;
	int ret = 0;

	if (!fn->dev.iseg)
		return 0;

	iounmap(fn->dev.iseg);
	fn->dev.iseg = NULL;
	pci_release_region(pdev, CXIB_BAR0);
	pci_disable_device(pdev);

	if (fn->driver[0]) {
		if (device_attach(&pdev->dev) <= 0) {
			pci_err(pdev, "cxib_kunit: %s did not bind again\n", fn->driver);
			ret = -ENODEV;
		}
		fn->driver[0] = '\0';
	}
	return ret;
}
