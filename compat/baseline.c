// SPDX-License-Identifier: GPL-2.0-only
/*
 * The baseline every probe builds on: the headers cxib needs exist and compile with this
 * compiler.  If this fails, no probe result means anything and run-probes stops.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

static int cxib_probe_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops cxib_probe_ops = {
	.dealloc_pd = cxib_probe_dealloc_pd,
};
