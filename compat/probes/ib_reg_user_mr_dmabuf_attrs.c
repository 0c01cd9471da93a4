// SPDX-License-Identifier: GPL-2.0-only
/* ib_device_ops.reg_user_mr_dmabuf takes a struct uverbs_attr_bundle *, not a struct ib_udata * */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

static struct ib_mr *cxib_probe_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset, u64 length,
						   u64 virt_addr, int fd, int access_flags,
						   struct uverbs_attr_bundle *attrs)
{
	return NULL;
}

const struct ib_device_ops cxib_probe_ops = {
	.reg_user_mr_dmabuf = cxib_probe_reg_user_mr_dmabuf,
};
