/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: one spelling for the kernel interfaces that differ between the kernels cxib builds
 * against (Debian 12's 6.1 and 6.12, and whatever comes next).
 *
 * <cxib_config.h> is generated for the target kernel by compat/run-probes, which compiles
 * one small probe per difference (compat/probes/<name>.c) and defines HAVE_<NAME> for each
 * probe that compiles.  This file is the only one that tests those macros: the rest of the
 * driver uses the cxib_* and CXIB_* names below and never tests a kernel version or a
 * HAVE_* macro.  Each block ends in a static_assert() that checks its spelling against the
 * kernel's own declaration, so a wrong block fails the build on the kernel it is wrong for.
 * Documentation/compat.md says how to add a difference.
 */
#ifndef _CXIB_COMPAT_H
#define _CXIB_COMPAT_H

#include <linux/aer.h>
#include <linux/build_bug.h>
#include <linux/cleanup.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <cxib_config.h>

/*
 * ib_device_ops.create_cq: its last argument is the uverbs attribute bundle on 6.12 (NULL
 * for a kernel CQ), the driver's udata on 6.1.  Declare the op as
 *
 *	int cxib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
 *			   CXIB_CREATE_CQ_ARG *arg);
 *
 * and take the udata (NULL for a kernel CQ) from cxib_create_cq_udata(arg).
 */
#ifdef HAVE_IB_CREATE_CQ_ATTRS
#define CXIB_CREATE_CQ_ARG struct uverbs_attr_bundle

static inline struct ib_udata *cxib_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define CXIB_CREATE_CQ_ARG struct ib_udata

static inline struct ib_udata *cxib_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif
static_assert(__same_type(typeof_member(const struct ib_device_ops, create_cq),
			  int (*)(struct ib_cq *, const struct ib_cq_init_attr *,
				  CXIB_CREATE_CQ_ARG *)));

/*
 * ib_device_ops.reg_user_mr_dmabuf: the same change as create_cq (6.12 passes the bundle).
 * Declare the op as
 *
 *	struct ib_mr *cxib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
 *					      u64 virt_addr, int fd, int access_flags,
 *					      CXIB_REG_MR_DMABUF_ARG *arg);
 *
 * and take the udata from cxib_reg_mr_dmabuf_udata(arg).
 */
#ifdef HAVE_IB_REG_USER_MR_DMABUF_ATTRS
#define CXIB_REG_MR_DMABUF_ARG struct uverbs_attr_bundle

static inline struct ib_udata *cxib_reg_mr_dmabuf_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define CXIB_REG_MR_DMABUF_ARG struct ib_udata

static inline struct ib_udata *cxib_reg_mr_dmabuf_udata(struct ib_udata *udata)
{
	return udata;
}
#endif
static_assert(__same_type(typeof_member(const struct ib_device_ops, reg_user_mr_dmabuf),
			  struct ib_mr *(*)(struct ib_pd *, u64, u64, u64, int, int,
					    CXIB_REG_MR_DMABUF_ARG *)));

/**
 * cxib_user_mmap_disassociate() - revoke every user mapping of the device's pages
 * @ibdev: a registered device
 *
 * For recovery: after this, user processes that touch a UAR or queue page they had mapped
 * get a zero page or a fault instead of the device.  6.1 cannot do this for a device that
 * stays registered; there only unregistering the device revokes the mappings.
 *
 * Return: true if the mappings were revoked, false if the kernel cannot do it.
 */
static inline bool cxib_user_mmap_disassociate(struct ib_device *ibdev)
{
#ifdef HAVE_RDMA_USER_MMAP_DISASSOCIATE
	rdma_user_mmap_disassociate(ibdev);
	return true;
#else
	return false;
#endif
}

/*
 * IB_SPEED_XDR (200 Gb/s per lane): 6.1's ib_core has no such speed, and shows a speed it
 * does not know as SDR (the port's "rate" in sysfs, which opensm and ibstat read), so an XDR
 * link is reported there as the fastest speed that core knows, NDR.
 */
#ifdef HAVE_IB_SPEED_XDR
#define CXIB_IB_SPEED_XDR	IB_SPEED_XDR
#else
#define CXIB_IB_SPEED_XDR	IB_SPEED_NDR
#endif
static_assert(CXIB_IB_SPEED_XDR >= IB_SPEED_NDR);

/*
 * Workqueue flags for work that would be a tasklet: WQ_BH runs it in softirq context where
 * the kernel has it (6.12); elsewhere a high-priority workqueue runs it in process context,
 * which is slower but correct for code that does not sleep.  Use
 * alloc_workqueue("...", CXIB_WQ_BH, 0).
 */
#ifdef HAVE_WQ_BH
#define CXIB_WQ_BH	WQ_BH
#else
#define CXIB_WQ_BH	WQ_HIGHPRI
#endif
static_assert(CXIB_WQ_BH != 0);

/* guard(spinlock_bh)(&lock): 6.1's <linux/cleanup.h> has spinlock guards, but not this one. */
#ifndef HAVE_GUARD_SPINLOCK_BH
DEFINE_LOCK_GUARD_1(spinlock_bh, spinlock_t,
		    spin_lock_bh(_T->lock),
		    spin_unlock_bh(_T->lock))
#endif

/**
 * cxib_pci_enable_error_reporting() - have the function report PCIe errors through AER
 * @pdev: the PCI function
 *
 * 6.1 leaves this to the driver; 6.12's PCI core does it for every device that has AER
 * and no longer exports the call.  Failure (no AER capability, or AER owned by firmware)
 * is not an error for the driver.
 */
static inline void cxib_pci_enable_error_reporting(struct pci_dev *pdev)
{
#ifdef HAVE_PCI_ENABLE_PCIE_ERROR_REPORTING
	pci_enable_pcie_error_reporting(pdev);
#endif
}

/**
 * cxib_pci_disable_error_reporting() - undo cxib_pci_enable_error_reporting()
 * @pdev: the PCI function
 */
static inline void cxib_pci_disable_error_reporting(struct pci_dev *pdev)
{
#ifdef HAVE_PCI_ENABLE_PCIE_ERROR_REPORTING
	pci_disable_pcie_error_reporting(pdev);
#endif
}

#endif /* _CXIB_COMPAT_H */
