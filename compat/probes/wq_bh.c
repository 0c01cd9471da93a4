// SPDX-License-Identifier: GPL-2.0-only
/* workqueues can run their work in softirq context (WQ_BH), the replacement for tasklets */
#include <linux/workqueue.h>

const unsigned int cxib_probe_flags = WQ_BH;
