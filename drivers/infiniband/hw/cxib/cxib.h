/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: InfiniBand HCA driver for ConnectX-class (mlx5 PRM) adapters.
 *
 * Driver-wide definitions: the per-function device structure and the interfaces
 * between the files of the driver.
 */
#ifndef _CXIB_H
#define _CXIB_H

#include <linux/io.h>
#include <linux/pci.h>
#include <linux/types.h>

#include <cxib/hw.h>

#include "compat.h"

/* Match any programming interface of the InfiniBand network controller class. */
#define CXIB_PCI_CLASS_MASK		0xffff00

/* Firmware start-up wait (PRM §1.4): default limit, poll period, progress report period. */
#define CXIB_FW_INIT_TIMEOUT_MS		120000
#define CXIB_FW_INIT_POLL_MS		10
#define CXIB_FW_INIT_REPORT_MS		20000

/**
 * struct cxib_fw_rev - firmware revision as read from the initialization segment
 * @major: fw_rev_major
 * @minor: fw_rev_minor
 * @subminor: fw_rev_subminor
 */
struct cxib_fw_rev {
	u16 major;
	u16 minor;
	u16 subminor;
};

/**
 * struct cxib_dev - one cxib PCI function
 * @pdev: the PCI function
 * @iseg: BAR0 mapping of the initialization segment, CXIB_ISEG_SIZE bytes
 * @fw_rev: firmware revision, valid once the firmware has finished initializing
 * @cmdif_rev: command interface revision the firmware speaks
 *
 * Probe runs in two phases: hardware bring-up (cxib_hw_init()) and then registration
 * with the RDMA core.  The IB device will become the first member of this structure.
 */
struct cxib_dev {
	struct pci_dev *pdev;
	void __iomem *iseg;
	struct cxib_fw_rev fw_rev;
	u16 cmdif_rev;
};

/**
 * cxib_iseg_read() - read one dword of the initialization segment
 * @dev: the device
 * @offset: byte offset of the dword, e.g. CXIB_OFFSET(CXIB_ISEG_CMDIF_REV)
 *
 * The segment is big-endian, like everything the device exposes.
 *
 * Return: the dword in host order, ready for CXIB_FIELD_GET().
 */
static inline u32 cxib_iseg_read(const struct cxib_dev *dev, unsigned int offset)
{
	return ioread32be(dev->iseg + offset);
}

/* iseg.c: the initialization segment */
int cxib_iseg_check(struct cxib_dev *dev);
int cxib_iseg_wait_ready(struct cxib_dev *dev, unsigned int timeout_ms);
void cxib_iseg_read_fw_rev(struct cxib_dev *dev);

#endif /* _CXIB_H */
