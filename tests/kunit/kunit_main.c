// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the KUnit suites of cxib as one module.
 *
 * The suites register themselves (kunit_test_suite() in each *_test.c); KUnit runs them
 * when the module is loaded and prints KTAP to the kernel log.  This file holds the
 * module's parameters and identity.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "cxib_kunit.h"

bool cxib_kunit_require_device;
module_param_named(require_device, cxib_kunit_require_device, bool, 0444);
MODULE_PARM_DESC(require_device,
		 "Fail, rather than skip, the live suites when there is no cxib function (default: skip)");

unsigned int cxib_kunit_init_delay_ms;
module_param_named(init_delay_ms, cxib_kunit_init_delay_ms, uint, 0444);
MODULE_PARM_DESC(init_delay_ms,
		 "The device's init-delay-ms (QEMU cxib-pci property): how long it reports 'initializing' after a reset; 0 skips the checks that need it");

MODULE_DESCRIPTION("KUnit suites of the cxib InfiniBand HCA driver");
/* The driver functions under test, exported by cxib.ko only for KUnit (EXPORT_SYMBOL_IF_KUNIT). */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
