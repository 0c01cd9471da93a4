// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: memory regions (PRM §5.2).
 *
 * The DMA MR: a physical-address key spanning the whole 64-bit bus address space, which the
 * RDMA core creates for every kernel PD (the device offers no reserved local DMA lkey, so
 * IBK_LOCAL_DMA_LKEY is not claimed and the PD's DMA MR serves as its local_dma_lkey).
 *
 * Fast-registration MRs (alloc_mr IB_MR_TYPE_MEM_REG): a key created free (unusable) with
 * UMR enabled, MTT access mode and room for max_num_sg translations.  map_mr_sg writes the
 * page addresses into a translation list in coherent memory; the consumer's IB_WR_REG_MR
 * (a UMR WQE built by wr.c from the struct cxib_mr fields) loads them into the key together
 * with the address, length, access rights and the new variant byte, and makes it usable.
 *
 * A key is its index (from CREATE_MKEY) shifted left by 8 with a variant byte below it; the
 * variant changes with every key created, so a stale key held after its index is reused
 * does not match the new one.
 */

#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "cxib.h"

/**
 * cxib_mkc_set_access() - the access rights of a memory key context
 * @mkc: the context
 * @acc: IB_ACCESS_* flags; local read is always allowed
 */
void cxib_mkc_set_access(struct cxib_mkc *mkc, int acc)
{
	CXIB_SET(mkc, CXIB_MKC_LR, 1);
	CXIB_SET(mkc, CXIB_MKC_LW, !!(acc & IB_ACCESS_LOCAL_WRITE));
	CXIB_SET(mkc, CXIB_MKC_RR, !!(acc & IB_ACCESS_REMOTE_READ));
	CXIB_SET(mkc, CXIB_MKC_RW, !!(acc & IB_ACCESS_REMOTE_WRITE));
	CXIB_SET(mkc, CXIB_MKC_A, !!(acc & IB_ACCESS_REMOTE_ATOMIC));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mkc_set_access);

/**
 * cxib_mkc_set_access_mode() - the access mode of a memory key context
 * @mkc: the context
 * @mode: CXIB_MKC_ACCESS_MODE_* (PA, MTT, ...), split over access_mode_1_0 and _4_2
 */
void cxib_mkc_set_access_mode(struct cxib_mkc *mkc, u8 mode)
{
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_1_0, mode & 3);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_4_2, mode >> 2);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mkc_set_access_mode);

/**
 * cxib_get_dma_mr() - ib_device_ops.get_dma_mr: a key for all of the bus address space
 * @ibpd: the PD the key belongs to
 * @acc: IB_ACCESS_* rights
 *
 * Sleeps.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *cxib_get_dma_mr(struct ib_pd *ibpd, int acc)
{
	struct cxib_dev *dev = to_cxib_dev(ibpd->device);
	struct cxib_mkc mkc = {};
	struct cxib_mr *mr;
	u8 variant;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	variant = (u8)atomic_inc_return(&dev->mkey_variant);
	cxib_mkc_set_access(&mkc, acc);
	cxib_mkc_set_access_mode(&mkc, CXIB_MKC_ACCESS_MODE_PA);
	CXIB_SET(&mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(&mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(&mkc, CXIB_MKC_LENGTH64, 1);
	CXIB_SET(&mkc, CXIB_MKC_PD, to_cxib_pd(ibpd)->pdn);
	CXIB_SET64(&mkc, CXIB_MKC_START_ADDR, 0);
	err = cxib_cmd_create_mkey(dev, &mkc, NULL, 0, &mr->mkey_index);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_MKEY (DMA MR, PD %u) failed: %d\n",
			  to_cxib_pd(ibpd)->pdn, err);
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = CXIB_MKEY(mr->mkey_index, variant);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

/* ---- Fast-registration MRs -------------------------------------------------------------- */

/**
 * cxib_mr_pl_entries() - translation list capacity for a fast-registration MR
 * @max_num_sg: pages the consumer wants to map at most
 *
 * Return: @max_num_sg rounded up to whole CXIB_MR_PL_ALIGN blocks of MTT entries (at
 * least one block).
 */
VISIBLE_IF_KUNIT u32 cxib_mr_pl_entries(u32 max_num_sg)
{
	u32 per_block = CXIB_MR_PL_ALIGN / CXIB_MTT_ENTRY_SIZE;

	return round_up(max_t(u32, max_num_sg, 1), per_block);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mr_pl_entries);

/**
 * cxib_mr_pl_bytes() - bytes of a translation list of @entries MTT entries
 * @entries: from cxib_mr_pl_entries()
 *
 * Return: the size.
 */
VISIBLE_IF_KUNIT size_t cxib_mr_pl_bytes(u32 entries)
{
	return (size_t)entries * CXIB_MTT_ENTRY_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mr_pl_bytes);

/**
 * cxib_mr_build_fast_reg_mkc() - the memory key context of a fast-registration MR
 * @mkc: the context to fill (zeroed by the caller)
 * @pdn: the PD
 * @variant: the key's variant byte
 * @max_pages: translation capacity, a multiple of CXIB_MTT_PER_OCTWORD
 *
 * Free (unusable until a UMR), UMR enabled, MTT access mode, no access rights yet (the UMR
 * sets them), translations_octword_size for @max_pages entries.
 */
VISIBLE_IF_KUNIT void cxib_mr_build_fast_reg_mkc(struct cxib_mkc *mkc, u32 pdn, u8 variant,
						 u32 max_pages)
{
	CXIB_SET(mkc, CXIB_MKC_FREE, 1);
	CXIB_SET(mkc, CXIB_MKC_UMR_EN, 1);
	cxib_mkc_set_access_mode(mkc, CXIB_MKC_ACCESS_MODE_MTT);
	CXIB_SET(mkc, CXIB_MKC_LR, 1);
	CXIB_SET(mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(mkc, CXIB_MKC_PD, pdn);
	CXIB_SET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE, max_pages / CXIB_MTT_PER_OCTWORD);
	CXIB_SET(mkc, CXIB_MKC_LOG_PAGE_SIZE, PAGE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mr_build_fast_reg_mkc);

/**
 * cxib_alloc_mr() - ib_device_ops.alloc_mr: a fast-registration MR
 * @ibpd: the PD
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: pages a registration may map
 *
 * Sleeps.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *cxib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg)
{
	struct cxib_dev *dev = to_cxib_dev(ibpd->device);
	u32 pdn = to_cxib_pd(ibpd)->pdn;
	struct cxib_mkc mkc = {};
	struct cxib_mr *mr;
	u8 variant;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (dev->caps.umr_fixed_entity_size)	/* no IB_DEVICE_MEM_MGT_EXTENSIONS */
		return ERR_PTR(-EOPNOTSUPP);
	if (max_num_sg > BIT_ULL(dev->caps.log_max_klm_list_size))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = cxib_mr_pl_entries(max_num_sg);
	mr->pd = pdn;
	/* Coherent, so the UMR the consumer posts after map_mr_sg reads what it wrote. */
	mr->pl = dma_alloc_coherent(&dev->pdev->dev, cxib_mr_pl_bytes(mr->max_pages),
				    &mr->pl_dma, GFP_KERNEL);
	if (!mr->pl) {
		err = -ENOMEM;
		goto err_free;
	}
	if (!IS_ALIGNED(mr->pl_dma, CXIB_MR_PL_ALIGN)) {
		err = -ENOMEM;
		goto err_free_pl;
	}

	variant = (u8)atomic_inc_return(&dev->mkey_variant);
	cxib_mr_build_fast_reg_mkc(&mkc, pdn, variant, mr->max_pages);
	err = cxib_cmd_create_mkey(dev, &mkc, NULL, 0, &mr->mkey_index);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_MKEY (fast registration, %u pages, PD %u) failed: %d\n",
			  mr->max_pages, pdn, err);
		goto err_free_pl;
	}
	mr->ibmr.lkey = CXIB_MKEY(mr->mkey_index, variant);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;

err_free_pl:
	dma_free_coherent(&dev->pdev->dev, cxib_mr_pl_bytes(mr->max_pages), mr->pl, mr->pl_dma);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * cxib_mr_set_page() - ib_sg_to_pages() callback: append one page to the translation list
 * @ibmr: a fast-registration MR
 * @addr: the page's bus address
 *
 * Return: 0, or -ENOMEM when the list is full.
 */
VISIBLE_IF_KUNIT int cxib_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct cxib_mr *mr = to_cxib_mr(ibmr);

	if (unlikely(mr->npages >= mr->max_pages))
		return -ENOMEM;
	mr->pl[mr->npages++] = cpu_to_be64(addr);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mr_set_page);

/**
 * cxib_map_mr_sg() - ib_device_ops.map_mr_sg: the pages a fast registration will map
 * @ibmr: a fast-registration MR, not registered (or invalidated) at the moment
 * @sg: the scatterlist, DMA mapped
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry; updated as ib_sg_to_pages() documents
 *
 * The RDMA core set @ibmr->page_size; ib_sg_to_pages() sets iova and length.  Any context
 * (no sleeping, no device access).
 *
 * Return: the number of scatterlist entries mapped.
 */
int cxib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct cxib_mr *mr = to_cxib_mr(ibmr);

	if (!mr->pl)
		return -EINVAL;
	mr->npages = 0;
	mr->page_shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, cxib_mr_set_page);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_map_mr_sg);

/* ---- Every kind of MR: deregistration --------------------------------------------------- */

/**
 * cxib_dereg_mr() - ib_device_ops.dereg_mr
 * @ibmr: the MR
 * @udata: unused
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno (the living device refused; the MR stays).
 */
int cxib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibmr->device);
	struct cxib_mr *mr = to_cxib_mr(ibmr);
	int err;

	err = cxib_cmd_destroy_mkey(dev, mr->mkey_index);
	if (err && !cxib_dev_dead(dev)) {
		ibdev_dbg(&dev->ibdev, "DESTROY_MKEY 0x%x failed: %d\n", mr->mkey_index, err);
		return err;
	}
	if (mr->pl)
		dma_free_coherent(&dev->pdev->dev, cxib_mr_pl_bytes(mr->max_pages), mr->pl,
				  mr->pl_dma);
	/* A user MR's pages (umem.c): the device no longer maps them. */
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}
