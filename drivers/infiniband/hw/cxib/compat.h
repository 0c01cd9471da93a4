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

#include <linux/build_bug.h>
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

#endif /* _CXIB_COMPAT_H */
