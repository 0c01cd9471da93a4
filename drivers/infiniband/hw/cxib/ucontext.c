// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: user contexts, in the form the stock libmlx5 expects (rdma-core providers/mlx5,
 * mlx5_init_context(); struct mlx5_ib_alloc_ucontext_req_v2 / _resp in <rdma/mlx5-abi.h>).
 *
 * libmlx5 asks for a number of "bfregs" (BlueFlame registers, two per UAR page it may
 * use) and then maps each UAR page by its index ("static UAR" mode).  cxib allocates one
 * firmware UAR per two requested bfregs and offers UAR i of the context at the mmap offsets
 * libmlx5 computes: command << 8 | i, for the commands REGULAR (0), WC (2) and NC (3).
 * Each offset is an rdma_user_mmap_entry, so the RDMA core finds it, counts the mappings
 * of it, and revokes them when the device goes away.  When the device has BlueFlame the
 * context reports its register size (bf_reg_size), and libmlx5 copies a single small WQE
 * into the register of its QP's bfreg (uverbs.c) instead of the 8-byte doorbell; REGULAR
 * and NC pages are mapped uncached, WC pages write-combining.
 *
 * DEVX (raw firmware commands from user space) and dynamically allocated UARs are not
 * supported; libmlx5 falls back to a context without them.  The mmap commands of those
 * features (MLX5_IB_MMAP_ALLOC_WC: the UAR of mlx5dv_devx_alloc_uar() and of thread
 * domains; the clock pages; device memory) fail with -EOPNOTSUPP, which libmlx5 hands to
 * its caller as errno, the way mlx5_ib answers a context without DEVX.
 */

#include <kunit/visibility.h>
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
/* mmap offset (in pages) = command << 8 | index (upstream hw/mlx5/main.c, mlx5_ib_mmap()). */
#define CXIB_MMAP_CMD_SHIFT		8
/* The oldest request libmlx5 sends: total and low-latency bfregs (v0, 8 bytes). */
#define CXIB_UCTX_REQ_MIN_LEN		offsetofend(struct mlx5_ib_alloc_ucontext_req_v2, \
						    num_low_latency_bfregs)

/* The mmap commands of a UAR page, each its own offset. */
static const u8 cxib_uar_mmap_cmds[] = {
	MLX5_IB_MMAP_REGULAR_PAGE,
	MLX5_IB_MMAP_WC_PAGE,
	MLX5_IB_MMAP_NC_PAGE,
};

/**
 * struct cxib_uar_mmap - one mmap offset of a context's UAR page
 * @rdma_entry: the RDMA core's entry, at page offset @cmd << 8 | UAR number in the context
 * @pfn: the UAR page's frame in BAR0
 * @cmd: MLX5_IB_MMAP_REGULAR_PAGE, _WC_PAGE or _NC_PAGE
 */
struct cxib_uar_mmap {
	struct rdma_user_mmap_entry rdma_entry;
	unsigned long pfn;
	u8 cmd;
};

static struct cxib_uar_mmap *to_cxib_uar_mmap(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct cxib_uar_mmap, rdma_entry);
}

static u32 cxib_uar_mmap_pgoff(u8 cmd, unsigned int idx)
{
	return (u32)cmd << CXIB_MMAP_CMD_SHIFT | idx;
}

/**
 * cxib_mmap_unknown_err() - the error of an mmap at an offset cxib did not offer
 * @pgoff: the mapping's page offset (command << 8 | index, upstream's encoding)
 *
 * A UAR page command (REGULAR, WC, NC) with an index the context does not have is a bad
 * argument; so is GET_CONTIGUOUS_PAGES, whose -EINVAL libmlx5 takes as "not supported"
 * and falls back from.  Every other command is a feature cxib does not offer.
 *
 * Return: -EINVAL or -EOPNOTSUPP.
 */
VISIBLE_IF_KUNIT int cxib_mmap_unknown_err(unsigned long pgoff)
{
	switch (pgoff >> CXIB_MMAP_CMD_SHIFT) {
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
	case MLX5_IB_MMAP_GET_CONTIGUOUS_PAGES:
		return -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mmap_unknown_err);

/* Remove the mmap offsets of the context's first @n UARs (mappings keep their entries). */
static void cxib_ucontext_remove_mmaps(struct cxib_ucontext *uctx, unsigned int n)
{
	struct rdma_user_mmap_entry *entry;
	unsigned int i, c;
	u32 pgoff;

	for (i = 0; i < n; i++)
		for (c = 0; c < ARRAY_SIZE(cxib_uar_mmap_cmds); c++) {
			pgoff = cxib_uar_mmap_pgoff(cxib_uar_mmap_cmds[c], i);
			entry = rdma_user_mmap_entry_get_pgoff(&uctx->ibucontext, pgoff);
			if (!entry)
				continue;
			rdma_user_mmap_entry_put(entry);
			rdma_user_mmap_entry_remove(entry);
		}
}

/* Offer UAR @idx of the context at its mmap offsets. */
static int cxib_ucontext_add_mmaps(struct cxib_dev *dev, struct cxib_ucontext *uctx,
				   unsigned int idx)
{
	struct cxib_uar_mmap *m;
	unsigned int c;
	int err;

	for (c = 0; c < ARRAY_SIZE(cxib_uar_mmap_cmds); c++) {
		m = kzalloc(sizeof(*m), GFP_KERNEL);
		if (!m)
			return -ENOMEM;
		m->cmd = cxib_uar_mmap_cmds[c];
		m->pfn = PHYS_PFN(pci_resource_start(dev->pdev, CXIB_BAR0)) + uctx->uars[idx];
		err = rdma_user_mmap_entry_insert_exact(&uctx->ibucontext, &m->rdma_entry,
							PAGE_SIZE,
							cxib_uar_mmap_pgoff(m->cmd, idx));
		if (err) {
			kfree(m);
			return err;
		}
	}
	return 0;
}

static void cxib_ucontext_free_uars(struct cxib_dev *dev, struct cxib_ucontext *uctx,
				    unsigned int n)
{
	cxib_ucontext_remove_mmaps(uctx, n);
	while (n--)
		cxib_cmd_dealloc_uar(dev, uctx->uars[n]);
	kfree(uctx->uars);
	uctx->uars = NULL;
}

/**
 * cxib_alloc_ucontext() - ib_device_ops.alloc_ucontext: libmlx5's context
 * @ibuctx: the context, allocated by the RDMA core
 * @udata: struct mlx5_ib_alloc_ucontext_req_v2 in (8 to 32 bytes), struct
 *	mlx5_ib_alloc_ucontext_resp out (as much of it as the caller has room for)
 *
 * Allocates the UAR pages the request's bfregs need and answers with the device's queue
 * limits, the CQE version both sides know and the UAR layout.  Sleeps.
 *
 * Return: 0; -EOPNOTSUPP for flags or extensions not offered (DEVX: libmlx5 retries
 * without), -EINVAL for a malformed request, or the error of allocating a UAR.
 */
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
	if (udata->inlen < CXIB_UCTX_REQ_MIN_LEN)
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	/* Flags (DEVX) and extensions cxib does not implement: libmlx5 retries without. */
	if (req.flags || req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;
	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req), udata->inlen - sizeof(req)))
		return -EOPNOTSUPP;
	/* lib_caps (4K_UAR, DYN_UAR) are what libmlx5 could do; cxib uses neither. */

	total = ALIGN(req.total_num_bfregs, CXIB_BFREGS_PER_UAR);
	if (!total || total > CXIB_MAX_BFREGS || req.num_low_latency_bfregs >= total)
		return -EINVAL;

	mutex_init(&uctx->db_lock);
	INIT_LIST_HEAD(&uctx->db_pages);
	uctx->cqe_version = min_t(u8, req.max_cqe_version, caps->cqe_version);
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
		err = cxib_ucontext_add_mmaps(dev, uctx, i);
		if (err) {
			i++;
			goto err_free_uars;
		}
	}

	resp.qp_tab_size = 1u << caps->log_max_qp;
	resp.bf_reg_size = caps->bf ? BIT(caps->log_bf_reg_size) : 0;
	resp.tot_bfregs = total;
	resp.cache_line_size = cache_line_size();
	resp.max_sq_desc_sz = caps->max_wqe_sz_sq;
	resp.max_rq_desc_sz = caps->max_wqe_sz_rq;
	resp.max_send_wqebb = 1u << caps->log_max_qp_sz;
	resp.max_recv_wr = 1u << caps->log_max_qp_sz;
	resp.max_srq_recv_wr = (1u << caps->log_max_srq_sz) - 1;
	resp.num_ports = dev->ibdev.phys_port_cnt;
	resp.cqe_version = uctx->cqe_version;
	/* query_device answers with struct mlx5_ib_query_device_resp. */
	resp.cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE;
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

/**
 * cxib_dealloc_ucontext() - ib_device_ops.dealloc_ucontext
 * @ibuctx: the context; its queues are gone (so are their doorbell pages)
 *
 * The context's mappings are gone too (a mapping holds the uverbs file, or the core has
 * revoked it), so its UAR pages go back to the firmware.
 */
void cxib_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct cxib_ucontext *uctx = to_cxib_ucontext(ibuctx);

	WARN_ON(!list_empty(&uctx->db_pages));
	cxib_ucontext_free_uars(to_cxib_dev(ibuctx->device), uctx, uctx->nuars);
	mutex_destroy(&uctx->db_lock);
}

/*
 * The RDMA core revokes the context's mappings itself (every one was made through
 * rdma_user_mmap_io()) and then destroys its objects and the context through the normal
 * destroy ops, which release the pinned memory.  Nothing else of the context can keep the
 * device busy, so there is nothing to stop here.  Providing the op tells the core that a
 * device can be removed under open contexts.
 */
void cxib_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

/**
 * cxib_mmap() - ib_device_ops.mmap: map one UAR page of the context
 * @ibuctx: the context
 * @vma: one page, shared, at an offset cxib_alloc_ucontext() offered
 *
 * Return: 0, -EINVAL for a UAR offset (or size) not offered, -EOPNOTSUPP for the offset
 * of a feature cxib does not have (cxib_mmap_unknown_err()).
 */
int cxib_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct cxib_uar_mmap *m;
	pgprot_t prot;
	int err;

	/* NULL unless shared and exactly the entry's size. */
	entry = rdma_user_mmap_entry_get(ibuctx, vma);
	if (!entry)
		return cxib_mmap_unknown_err(vma->vm_pgoff);
	m = to_cxib_uar_mmap(entry);
	if (m->cmd == MLX5_IB_MMAP_WC_PAGE)
		prot = pgprot_writecombine(vma->vm_page_prot);
	else
		prot = pgprot_noncached(vma->vm_page_prot);
	err = rdma_user_mmap_io(ibuctx, vma, m->pfn, PAGE_SIZE, prot, entry);
	rdma_user_mmap_entry_put(entry);
	return err;
}

/**
 * cxib_mmap_free() - ib_device_ops.mmap_free: an mmap offset is gone and unmapped
 * @entry: the entry of a struct cxib_uar_mmap
 */
void cxib_mmap_free(struct rdma_user_mmap_entry *entry)
{
	kfree(to_cxib_uar_mmap(entry));
}
