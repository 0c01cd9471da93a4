// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: user contexts, in the form the stock libmlx5 expects (libmlx5-abi.md §2, §3).
 *
 * libmlx5 asks for a number of "bfregs" (BlueFlame registers, two per UAR page it may
 * use) and then maps each UAR page by its index.  cxib allocates one firmware UAR per two
 * requested bfregs and maps UAR i of the context at mmap offset i (or 0x300 + i, the
 * non-cached variant).  UARs are mapped uncached and the context reports no BlueFlame
 * registers (bf_reg_size 0), so libmlx5 rings every doorbell with a plain 8-byte write.
 *
 * DEVX (raw firmware commands from user space) and dynamically allocated UARs are not
 * supported; libmlx5 falls back to a context without them.
 */

#include <linux/cache.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "cxib.h"

/* Two bfregs per UAR page (libmlx5 uses bfregs 0 and 1 of each) and the most per context. */
#define CXIB_BFREGS_PER_UAR		2
#define CXIB_MAX_BFREGS			512
/* mmap offset (in pages) = command << 8 | index (libmlx5-abi.md §3.1). */
#define CXIB_MMAP_CMD_SHIFT		8
#define CXIB_MMAP_INDEX_MASK		0xff

static void cxib_ucontext_free_uars(struct cxib_dev *dev, struct cxib_ucontext *uctx,
				    unsigned int n)
{
	while (n--)
		cxib_cmd_dealloc_uar(dev, uctx->uars[n]);
	kfree(uctx->uars);
	uctx->uars = NULL;
}

int cxib_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata)
{
	struct cxib_ucontext *uctx = to_cxib_ucontext(ibuctx);
	struct cxib_dev *dev = to_cxib_dev(ibuctx->device);
	const struct cxib_caps *caps = &dev->caps;
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	unsigned int i, total;
	int err;

	if (!udata)
		return -EINVAL;
	/* UAR i of the context is system page i: that needs 4 KiB system pages. */
	if (PAGE_SIZE != CXIB_ADAPTER_PAGE_SIZE)
		return -EOPNOTSUPP;
	if (udata->inlen < offsetofend(typeof(req), num_low_latency_bfregs))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	/* Flags (DEVX) and extensions cxib does not implement: libmlx5 retries without. */
	if (req.flags || req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;

	total = ALIGN(req.total_num_bfregs, CXIB_BFREGS_PER_UAR);
	if (!total || total > CXIB_MAX_BFREGS || req.num_low_latency_bfregs >= total)
		return -EINVAL;

	uctx->nuars = total / CXIB_BFREGS_PER_UAR;
	uctx->uars = kcalloc(uctx->nuars, sizeof(*uctx->uars), GFP_KERNEL);
	if (!uctx->uars)
		return -ENOMEM;
	for (i = 0; i < uctx->nuars; i++) {
		err = cxib_cmd_alloc_uar(dev, &uctx->uars[i]);
		if (err)
			goto err_free_uars;
		if (!cxib_uar_in_bar(dev, uctx->uars[i])) {
			dev_err(&dev->pdev->dev, "ALLOC_UAR returned UAR %u, outside BAR%d\n",
				uctx->uars[i], CXIB_BAR0);
			i++;
			err = -EIO;
			goto err_free_uars;
		}
	}

	resp.qp_tab_size = 1u << caps->log_max_qp;
	resp.bf_reg_size = 0;
	resp.tot_bfregs = total;
	resp.cache_line_size = cache_line_size();
	resp.max_sq_desc_sz = caps->max_wqe_sz_sq;
	resp.max_rq_desc_sz = caps->max_wqe_sz_rq;
	resp.max_send_wqebb = 1u << caps->log_max_qp_sz;
	resp.max_recv_wr = 1u << caps->log_max_qp_sz;
	resp.max_srq_recv_wr = (1u << caps->log_max_srq_sz) - 1;
	resp.num_ports = dev->ibdev.phys_port_cnt;
	resp.cqe_version = min_t(u8, req.max_cqe_version, caps->cqe_version);
	resp.log_uar_size = CXIB_ADAPTER_PAGE_SHIFT;
	resp.num_uars_per_page = 1;
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));
	err = ib_copy_to_udata(udata, &resp, resp.response_length);
	if (err)
		goto err_free_uars;
	return 0;

err_free_uars:
	cxib_ucontext_free_uars(dev, uctx, i);
	return err;
}

void cxib_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct cxib_ucontext *uctx = to_cxib_ucontext(ibuctx);

	cxib_ucontext_free_uars(to_cxib_dev(ibuctx->device), uctx, uctx->nuars);
}

/*
 * The RDMA core revokes the context's mappings itself before the device goes away; the
 * context holds nothing else the hardware could still use, so there is nothing to stop.
 * Providing the op tells the core that a device can be removed under open contexts.
 */
void cxib_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

int cxib_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct cxib_ucontext *uctx = to_cxib_ucontext(ibuctx);
	struct cxib_dev *dev = to_cxib_dev(ibuctx->device);
	unsigned long cmd = vma->vm_pgoff >> CXIB_MMAP_CMD_SHIFT;
	unsigned long idx = vma->vm_pgoff & CXIB_MMAP_INDEX_MASK;
	unsigned long pfn;

	if (cmd != MLX5_IB_MMAP_REGULAR_PAGE && cmd != MLX5_IB_MMAP_NC_PAGE)
		return -EINVAL;
	if (vma->vm_end - vma->vm_start != PAGE_SIZE || idx >= uctx->nuars)
		return -EINVAL;

	pfn = PHYS_PFN(pci_resource_start(dev->pdev, CXIB_BAR0)) + uctx->uars[idx];
	return rdma_user_mmap_io(ibuctx, vma, pfn, PAGE_SIZE,
				 pgprot_noncached(vma->vm_page_prot), NULL);
}
