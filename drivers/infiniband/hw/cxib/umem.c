// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: user memory the device is given (PRM §5.2 memory keys, the PAS lists of §5.3-§5.5).
 *
 * User MRs: the pages are pinned and DMA mapped with ib_umem_get(), and the key is an MTT
 * key whose translation entries are the bus addresses of the umem's blocks.  The block size
 * is the largest one ib_umem_find_best_pgsz() finds for the mapping (so a buffer backed by
 * huge pages gets 2 MiB or 1 GiB entries), within what the key's log_page_size can say.
 * The key maps exactly [virt_addr, virt_addr + length): the device checks every access
 * against that range and the key's rights, so a user can make the device reach nothing but
 * the pages it pinned here.
 *
 * User queues (CQ, QP, SRQ buffers of libmlx5): pinned the same way and handed to the device
 * as a list of 4 KiB pages (PAS) and the offset of the buffer in the first one (a buffer
 * from a parent domain's allocator need not start on a page).  Their doorbell records live
 * in pages libmlx5 shares among the queues of a context; each such page is pinned once and
 * reference counted per context (struct cxib_udb_page), as mlx5 does.
 */

#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "cxib.h"

/*
 * MTT page sizes a user MR may use: the mkc's log_page_size is an absolute log2; the page
 * sizes Linux maps user memory with are 4 KiB, 2 MiB and 1 GiB, and the device takes any
 * power of two from 4 KiB to 1 GiB.
 */
#define CXIB_MR_MAX_LOG_PAGE		30
#define CXIB_MR_PGSZ_BITMAP		GENMASK_ULL(CXIB_MR_MAX_LOG_PAGE, CXIB_ADAPTER_PAGE_SHIFT)
/*
 * Translation entries one CREATE_MKEY carries (256 KiB of command input: 128 MiB of 4 KiB
 * pages, 64 GiB of 2 MiB pages).  A larger table is loaded by the UMR QP (umr.c).
 */
#define CXIB_MR_MAX_CMD_MTT		32768
/* A doorbell record: two big-endian dwords, naturally aligned, never across a page. */
#define CXIB_UDB_ALIGN			8
/* The unit of a queue context's page_offset with 4 KiB pages (log_page_size 0): 64 bytes. */
#define CXIB_UQ_OFFSET_UNIT		((u32)CXIB_PAGE_OFFSET_UNIT(0))

/* Access flags a user MR may ask for; IB_ACCESS_OPTIONAL bits are hints and ignored. */
#define CXIB_MR_ACCESS_SUPPORTED	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
					 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/**
 * cxib_umem_fill_pas() - the bus addresses of a umem's blocks of @pgsz bytes
 * @umem: the pinned, DMA-mapped memory
 * @pgsz: block size, a power of two the umem's mapping allows (ib_umem_find_best_pgsz())
 * @pas: filled with the address of each block, the first one aligned down to @pgsz
 * @max: room in @pas
 *
 * Return: the number of entries written; less than ib_umem_num_dma_blocks() only if @max
 * is too small.
 */
VISIBLE_IF_KUNIT u32 cxib_umem_fill_pas(struct ib_umem *umem, unsigned long pgsz, u64 *pas,
					u32 max)
{
	struct ib_block_iter biter;
	u32 n = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (n == max)
			break;
		pas[n++] = rdma_block_iter_dma_address(&biter);
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_umem_fill_pas);

/* ---- User MRs ---------------------------------------------------------------------------- */

/**
 * cxib_mkey_create_mtt() - create an MTT key and load its table
 * @dev: the device
 * @mkc: the key's context: access mode MTT, range, access, PD, page size, variant; the
 *	table size is set here
 * @mtt: the bus addresses of its pages; room for @nmtt rounded up to whole octwords (the
 *	entry after an odd count is zeroed here)
 * @nmtt: how many
 * @mkey_index: the new key's index
 *
 * Up to CXIB_MR_MAX_CMD_MTT entries go with CREATE_MKEY.  A larger table does not fit one
 * command: the key is created free and with umr_en, and the UMR QP loads the table and
 * then makes the key valid (the key keeps umr_en: a user QP, without fast registration
 * enabled, cannot post UMRs).  Sleeps.
 *
 * Return: 0 or a negative errno, with no key left behind.
 */
VISIBLE_IF_KUNIT int cxib_mkey_create_mtt(struct cxib_dev *dev, struct cxib_mkc *mkc,
					  u64 *mtt, size_t nmtt, u32 *mkey_index)
{
	bool by_umr = nmtt > CXIB_MR_MAX_CMD_MTT;
	int err;

	if (!nmtt || DIV_ROUND_UP_ULL(nmtt, CXIB_MTT_PER_OCTWORD) >
		     CXIB_FIELD_MAX(CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE))
		return -EINVAL;
	/* without bits 47:16 of the UMR's offset, the table ends at 2^16 octowords */
	if (by_umr && !dev->caps.umr_ext_xlt_offset &&
	    nmtt > (u64)CXIB_MTT_PER_OCTWORD << 16)
		return -EOPNOTSUPP;
	if (nmtt % CXIB_MTT_PER_OCTWORD)
		mtt[nmtt] = 0;
	CXIB_SET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE,
		 DIV_ROUND_UP(nmtt, CXIB_MTT_PER_OCTWORD));
	CXIB_SET(mkc, CXIB_MKC_FREE, by_umr);
	CXIB_SET(mkc, CXIB_MKC_UMR_EN, by_umr);
	err = cxib_cmd_create_mkey(dev, mkc, mtt, by_umr ? 0 : ALIGN(nmtt, CXIB_MTT_PER_OCTWORD),
				   mkey_index);
	if (err || !by_umr)
		return err;

	err = cxib_umr_load_mtt(dev, CXIB_MKEY(*mkey_index, CXIB_GET(mkc, CXIB_MKC_MKEY_7_0)),
				mtt, nmtt);
	if (err) {
		ibdev_dbg(&dev->ibdev, "loading %zu translation entries by UMR failed: %d\n",
			  nmtt, err);
		cxib_cmd_destroy_mkey(dev, *mkey_index);
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mkey_create_mtt);

static int cxib_reg_user_mr_check(struct cxib_dev *dev, u64 length, u64 virt_addr,
				  int access, struct ib_udata *udata)
{
	/*
	 * Hints that may be ignored: IB_ACCESS_OPTIONAL (relaxed ordering, which perftest
	 * sets) and IB_ACCESS_HUGETLB (huge pages are found and used anyway).
	 */
	access &= ~(IB_ACCESS_OPTIONAL | IB_ACCESS_HUGETLB);
	if (access & ~CXIB_MR_ACCESS_SUPPORTED)
		return -EOPNOTSUPP;	/* on-demand paging, memory windows, zero-based, ... */
	if ((access & IB_ACCESS_REMOTE_ATOMIC) && !dev->caps.atomic)
		return -EOPNOTSUPP;
	if (!length || virt_addr + length < virt_addr ||
	    (dev->caps.log_max_mrw_sz < 64 && length > BIT_ULL(dev->caps.log_max_mrw_sz)))
		return -EINVAL;
	/* REG_MR has no driver data: anything the caller sends must be zero. */
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/**
 * cxib_reg_user_mr() - ib_device_ops.reg_user_mr: a key for user memory
 * @ibpd: the PD
 * @start: user virtual address of the memory
 * @length: its length in bytes
 * @virt_addr: the I/O virtual address the key maps it at (what work requests name)
 * @access: IB_ACCESS_* rights
 * @udata: the caller's driver data (none for libmlx5)
 *
 * Pins the memory, finds the largest page size that maps it, and creates an MTT key over
 * [@virt_addr, @virt_addr + @length) with the pages' bus addresses.  Sleeps.
 *
 * Return: the MR or an ERR_PTR(): -EOPNOTSUPP for access rights the device does not offer,
 * -EINVAL for a bad range, -ENOMEM, -EIO when the device refuses the translation.
 */
struct ib_mr *cxib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 virt_addr,
			       int access, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(ibpd->device);
	u32 pdn = to_cxib_pd(ibpd)->pdn;
	struct cxib_mkc mkc = {};
	struct ib_umem *umem;
	unsigned long pgsz;
	struct cxib_mr *mr;
	u64 *mtt = NULL;
	size_t nmtt;
	u8 variant;
	int err;

	err = cxib_reg_user_mr_check(dev, length, virt_addr, access, udata);
	if (err)
		return ERR_PTR(err);

	umem = ib_umem_get(&dev->ibdev, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	/* The same offset in the first page for the I/O address and the memory. */
	pgsz = ib_umem_find_best_pgsz(umem, CXIB_MR_PGSZ_BITMAP, virt_addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}
	nmtt = ib_umem_num_dma_blocks(umem, pgsz);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	/* Whole octwords go to the device: an odd list gets a zero entry after it. */
	mtt = kvcalloc(ALIGN(nmtt, CXIB_MTT_PER_OCTWORD), sizeof(*mtt), GFP_KERNEL);
	if (!mr || !mtt) {
		err = -ENOMEM;
		goto err_free;
	}
	if (cxib_umem_fill_pas(umem, pgsz, mtt, nmtt) != nmtt) {
		err = -EFAULT;	/* cannot happen: the umem shrank under us */
		goto err_free;
	}

	variant = (u8)atomic_inc_return(&dev->mkey_variant);
	cxib_mkc_set_access_mode(&mkc, CXIB_MKC_ACCESS_MODE_MTT);
	cxib_mkc_set_access(&mkc, access);
	CXIB_SET(&mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(&mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(&mkc, CXIB_MKC_PD, pdn);
	CXIB_SET64(&mkc, CXIB_MKC_START_ADDR, virt_addr);
	CXIB_SET64(&mkc, CXIB_MKC_LEN, length);
	CXIB_SET(&mkc, CXIB_MKC_LOG_PAGE_SIZE, order_base_2(pgsz));
	err = cxib_mkey_create_mtt(dev, &mkc, mtt, nmtt, &mr->mkey_index);
	if (err) {
		ibdev_dbg(&dev->ibdev, "user MR key (%zu pages of %lu bytes, PD %u) failed: %d\n",
			  nmtt, pgsz, pdn, err);
		goto err_free;
	}
	kvfree(mtt);

	mr->umem = umem;
	mr->pd = pdn;
	mr->page_shift = order_base_2(pgsz);
	mr->ibmr.lkey = CXIB_MKEY(mr->mkey_index, variant);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	mr->ibmr.page_size = pgsz;
	ibdev_dbg(&dev->ibdev, "user MR 0x%x: %llu bytes at 0x%llx, %zu pages of %lu bytes\n",
		  mr->ibmr.lkey, length, virt_addr, nmtt, pgsz);
	return &mr->ibmr;

err_free:
	kvfree(mtt);
	kfree(mr);
err_release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

/* ---- Doorbell-record pages ------------------------------------------------------------- */

/**
 * cxib_udb_map() - pin the user page holding a doorbell record
 * @uctx: the queue's user context
 * @db_addr: user virtual address of the record, CXIB_UDB_ALIGN aligned
 * @page: set to the pinned page, for cxib_udb_unmap()
 * @dma: set to the record's bus address
 *
 * A page already pinned for another queue of the context is shared.  Sleeps.
 *
 * Return: 0, -EINVAL for a misaligned address, or the error of pinning it.
 */
static int cxib_udb_map(struct cxib_ucontext *uctx, u64 db_addr,
			struct cxib_udb_page **page, dma_addr_t *dma)
{
	unsigned long user_page = db_addr & PAGE_MASK;
	struct cxib_udb_page *p;
	int err = 0;

	if (!db_addr || !IS_ALIGNED(db_addr, CXIB_UDB_ALIGN) || db_addr > ULONG_MAX)
		return -EINVAL;

	mutex_lock(&uctx->db_lock);
	list_for_each_entry(p, &uctx->db_pages, list)
		if (p->user_page == user_page)
			goto found;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	p->user_page = user_page;
	/*
	 * The device only reads doorbell records (libmlx5 writes them), but the page is
	 * pinned writable: a read-only pin is taken with FOLL_FORCE by 6.1's ib_umem_get(),
	 * which would accept a PROT_NONE page; a doorbell must be memory the process can
	 * write, on every kernel.
	 */
	p->umem = ib_umem_get(uctx->ibucontext.device, user_page, PAGE_SIZE,
			      IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(p->umem)) {
		err = PTR_ERR(p->umem);
		kfree(p);
		goto out;
	}
	list_add(&p->list, &uctx->db_pages);
found:
	p->refcnt++;
	*page = p;
	*dma = sg_dma_address(p->umem->sgt_append.sgt.sgl) + (db_addr & ~PAGE_MASK);
out:
	mutex_unlock(&uctx->db_lock);
	return err;
}

/**
 * cxib_udb_unmap() - undo cxib_udb_map()
 * @uctx: the context
 * @page: the page it returned; unpinned when no queue of the context uses it any more
 */
static void cxib_udb_unmap(struct cxib_ucontext *uctx, struct cxib_udb_page *page)
{
	mutex_lock(&uctx->db_lock);
	if (!--page->refcnt) {
		list_del(&page->list);
		ib_umem_release(page->umem);
		kfree(page);
	}
	mutex_unlock(&uctx->db_lock);
}

/* ---- User queue buffers ------------------------------------------------------------------ */

/**
 * cxib_uq_buf_offset() - where a user queue's buffer starts in its first page
 * @buf_addr: user virtual address of the buffer
 * @stride: the queue's largest WQE or CQE stride in bytes, a power of two
 * @page_offset: set to the offset in the queue context's units (64 bytes)
 *
 * The device takes a queue buffer as 4 KiB pages and a start offset of whole 64-byte units
 * in the first one.  libmlx5 page-aligns the buffers it allocates itself; a buffer from a
 * parent domain's alloc callback is aligned only to what libmlx5 asks of the callback:
 * for a QP the larger of its strides and 1/64 of the buffer's size rounded up to a power
 * of two (rdma-core providers/mlx5 mlx5_set_custom_qp_alignment()).  An address aligned
 * to the stride is what is required here, so that no WQE or CQE straddles two pages.
 *
 * Return: 0, or -EINVAL for a NULL address or one not aligned to @stride and 64 bytes.
 */
int cxib_uq_buf_offset(u64 buf_addr, u32 stride, u8 *page_offset)
{
	u32 align = max_t(u32, stride, CXIB_UQ_OFFSET_UNIT);

	if (!buf_addr || !is_power_of_2(align) || !IS_ALIGNED(buf_addr, align))
		return -EINVAL;
	*page_offset = (buf_addr & (CXIB_ADAPTER_PAGE_SIZE - 1)) / CXIB_UQ_OFFSET_UNIT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_uq_buf_offset);

/**
 * cxib_uq_pin() - pin a user queue's buffer and doorbell record
 * @dev: the device
 * @uq: the queue's user memory; @uq->uctx set by the caller, the rest is filled in
 * @buf_addr: user virtual address of the buffer, aligned to the queue's stride (checked
 *	by the caller with cxib_uq_buf_offset())
 * @size: its size in bytes, as the queue's geometry says (already checked against the
 *	device's limits by the caller)
 * @db_addr: user virtual address of the doorbell record
 *
 * The device gets the buffer as the list of the 4 KiB pages it touches and its offset in
 * the first (@uq->page_offset).  Sleeps.
 *
 * Return: 0, -EINVAL for a misaligned address or empty buffer, or the error of pinning.
 */
static int cxib_uq_pin(struct cxib_dev *dev, struct cxib_uq *uq, u64 buf_addr, size_t size,
		       u64 db_addr)
{
	size_t npas;
	int err;

	if (!size || buf_addr > ULONG_MAX ||
	    cxib_uq_buf_offset(buf_addr, CXIB_UQ_OFFSET_UNIT, &uq->page_offset))
		return -EINVAL;
	/* The device writes CQEs and reads WQEs: pin for writing. */
	uq->umem = ib_umem_get(&dev->ibdev, buf_addr, size, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(uq->umem)) {
		err = PTR_ERR(uq->umem);
		uq->umem = NULL;
		return err;
	}
	npas = ib_umem_num_dma_blocks(uq->umem, CXIB_ADAPTER_PAGE_SIZE);
	uq->pas = kvcalloc(npas, sizeof(*uq->pas), GFP_KERNEL);
	if (!uq->pas) {
		err = -ENOMEM;
		goto err_release;
	}
	/* dma_addr_t is 64 bits on every kernel cxib builds for (64BIT). */
	BUILD_BUG_ON(sizeof(*uq->pas) != sizeof(u64));
	uq->npas = cxib_umem_fill_pas(uq->umem, CXIB_ADAPTER_PAGE_SIZE, (u64 *)uq->pas, npas);
	if (uq->npas != npas) {
		err = -EFAULT;
		goto err_free_pas;
	}
	err = cxib_udb_map(uq->uctx, db_addr, &uq->db_page, &uq->db_dma);
	if (err)
		goto err_free_pas;
	return 0;

err_free_pas:
	kvfree(uq->pas);
	uq->pas = NULL;
err_release:
	ib_umem_release(uq->umem);
	uq->umem = NULL;
	return err;
}

/**
 * cxib_uq_create() - the user memory of a user CQ, QP or SRQ, pinned
 * @dev: the device
 * @uctx: the user context the queue belongs to; the queue rings its first UAR
 * @req: the buffer's and doorbell record's addresses and the user index from libmlx5's
 *	request (the buffer's alignment checked by the caller with cxib_uq_buf_offset())
 * @size: the buffer's size in bytes, as the queue's geometry says (already checked against
 *	the device's limits by the caller)
 * @buf: the queue object's buffer: set to the pinned pages (@buf->dma, @buf->npages: the
 *	create command's PAS list), @buf->bufs NULL
 * @dbr: the queue object's doorbell record: @dbr->dma set, @dbr->db NULL
 *
 * The one way a user CQ, QP or SRQ gets its memory: the kernel-object code then builds its
 * create command as for a kernel queue.  Sleeps.
 *
 * Return: the queue's user memory, released with cxib_uq_free() when the queue is
 * destroyed (or its creation fails), or an ERR_PTR() (then nothing is left allocated).
 */
struct cxib_uq *cxib_uq_create(struct cxib_dev *dev, struct cxib_ucontext *uctx,
			       const struct cxib_uq_req *req, size_t size,
			       struct cxib_frag_buf *buf, struct cxib_dbr *dbr)
{
	struct cxib_uq *uq;
	int err;

	uq = kzalloc(sizeof(*uq), GFP_KERNEL);
	if (!uq)
		return ERR_PTR(-ENOMEM);
	uq->uctx = uctx;
	uq->uar = uctx->uars[0];
	uq->uidx = req->uidx;
	err = cxib_uq_pin(dev, uq, req->buf_addr, size, req->db_addr);
	if (err) {
		cxib_uq_free(dev, uq);	/* also a partly pinned one */
		return ERR_PTR(err);
	}
	buf->bufs = NULL;
	buf->dma = uq->pas;
	buf->npages = uq->npas;
	dbr->db = NULL;
	dbr->dma = uq->db_dma;
	return uq;
}

/**
 * cxib_uq_free() - release a user queue's memory and the struct itself
 * @dev: the device
 * @uq: the queue's user memory, or NULL; the device no longer uses it (the queue has been
 *	destroyed in the device, or never created there)
 */
void cxib_uq_free(struct cxib_dev *dev, struct cxib_uq *uq)
{
	if (!uq)
		return;
	if (uq->db_page)
		cxib_udb_unmap(uq->uctx, uq->db_page);
	kvfree(uq->pas);
	ib_umem_release(uq->umem);
	kfree(uq);
}
