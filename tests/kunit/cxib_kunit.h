/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib_kunit: what the KUnit suites of cxib share (Documentation/kunit.md).
 *
 * Every suite is one *_test.c file in tests/kunit/ and one line in tests/kunit/Kbuild.
 * The driver's own code is compiled into the module from drivers/infiniband/hw/cxib/, so
 * a suite calls it as the driver does, through cxib.h.  Suites that need the cxib-pci
 * function take it from cxib.ko for their duration with cxib_kunit_fn_claim().
 */
#ifndef _CXIB_KUNIT_H
#define _CXIB_KUNIT_H

#include <linux/pci.h>
#include <linux/types.h>

#include "cxib.h"

/* Module parameters (kunit_main.c); scripts/run-kunit sets them to match the VM. */
extern bool cxib_kunit_require_device;
extern unsigned int cxib_kunit_init_delay_ms;

/**
 * struct cxib_kunit_fn - a cxib PCI function taken over by a live suite
 * @pdev: the function, with a reference held
 * @driver: name of the driver bound to it when it was claimed, or "" if there was
 *	none; cxib_kunit_fn_release() binds a driver again
 * @dev: the driver's device structure, zeroed, with @dev.pdev set and @dev.iseg mapping
 *	the initialization segment: enough for the driver's iseg functions
 *
 * While claimed the function is enabled for memory access and its BAR0 is requested
 * under the name "cxib_kunit"; no driver is bound to it.
 */
struct cxib_kunit_fn {
	struct pci_dev *pdev;
	char driver[32];
	struct cxib_dev dev;
};

struct pci_dev *cxib_kunit_find_function(void);
int cxib_kunit_fn_claim(struct cxib_kunit_fn *fn);
int cxib_kunit_fn_release(struct cxib_kunit_fn *fn);

#endif /* _CXIB_KUNIT_H */
