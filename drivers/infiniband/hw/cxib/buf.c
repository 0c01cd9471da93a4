// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: memory shared with the device by verbs resources: queue buffers handed to the
 * firmware as a list of 4 KiB pages (PAS), and doorbell records.
 *
 * A queue buffer is a set of separately allocated 4 KiB coherent pieces, so creating a large
 * CQ or QP never needs contiguous memory.  Doorbell records are 64-byte blocks of one DMA
 * pool per device, each in its own cache line, so the device's reads of one record never
 * share a line with the CPU's writes of another.
 */

#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/slab.h>

#include "cxib.h"

/* A doorbell record block: the device's 64-byte doorbell record slot. */
#define CXIB_DBR_BLOCK_SIZE	64

/**
 * cxib_frag_buf_free() - free a queue buffer
 * @dev: the device
 * @buf: the buffer; may be partly allocated (pieces not allocated are NULL)
 */
void cxib_frag_buf_free(struct cxib_dev *dev, struct cxib_frag_buf *buf)
{
	unsigned int i;

	for (i = 0; buf->bufs && i < buf->npages; i++)
		if (buf->bufs[i])
			dma_free_coherent(&dev->pdev->dev, CXIB_ADAPTER_PAGE_SIZE, buf->bufs[i],
					  buf->dma[i]);
	kfree(buf->dma);
	kfree(buf->bufs);
	buf->bufs = NULL;
	buf->dma = NULL;
	buf->npages = 0;
}

/**
 * cxib_frag_buf_alloc() - allocate a zeroed queue buffer
 * @dev: the device
 * @buf: the buffer to fill in
 * @size: its size in bytes; rounded up to whole 4 KiB pieces
 *
 * Sleeps.
 *
 * Return: 0 or -ENOMEM, with nothing left allocated.
 */
int cxib_frag_buf_alloc(struct cxib_dev *dev, struct cxib_frag_buf *buf, size_t size)
{
	unsigned int i;

	buf->npages = DIV_ROUND_UP(size, CXIB_ADAPTER_PAGE_SIZE);
	buf->bufs = kcalloc(buf->npages, sizeof(*buf->bufs), GFP_KERNEL);
	buf->dma = kcalloc(buf->npages, sizeof(*buf->dma), GFP_KERNEL);
	if (!buf->bufs || !buf->dma)
		goto err;
	for (i = 0; i < buf->npages; i++) {
		buf->bufs[i] = dma_alloc_coherent(&dev->pdev->dev, CXIB_ADAPTER_PAGE_SIZE,
						  &buf->dma[i], GFP_KERNEL);
		if (!buf->bufs[i])
			goto err;
	}
	return 0;

err:
	cxib_frag_buf_free(dev, buf);
	return -ENOMEM;
}

/**
 * cxib_dbr_alloc() - allocate a zeroed doorbell record
 * @dev: the device
 * @dbr: the record to fill in
 *
 * Sleeps.
 *
 * Return: 0 or -ENOMEM.
 */
int cxib_dbr_alloc(struct cxib_dev *dev, struct cxib_dbr *dbr)
{
	dbr->db = dma_pool_zalloc(dev->dbr_pool, GFP_KERNEL, &dbr->dma);
	return dbr->db ? 0 : -ENOMEM;
}

/**
 * cxib_dbr_free() - free a doorbell record
 * @dev: the device
 * @dbr: the record
 */
void cxib_dbr_free(struct cxib_dev *dev, struct cxib_dbr *dbr)
{
	dma_pool_free(dev->dbr_pool, dbr->db, dbr->dma);
	dbr->db = NULL;
}

/**
 * __cxib_obj_get() - a reference to an object of a device table; use cxib_obj_get()
 * @xa: the table (CQs, QPs, SRQs)
 * @idx: the object's number
 * @ref_off: offset of the object's struct cxib_obj_ref
 *
 * Any context: the tables' lock is taken with interrupts off.
 *
 * Return: the object, to be released with cxib_obj_put(), or NULL.
 */
void *__cxib_obj_get(struct xarray *xa, unsigned long idx, size_t ref_off)
{
	unsigned long flags;
	void *obj;

	xa_lock_irqsave(xa, flags);
	obj = xa_load(xa, idx);
	if (obj)
		refcount_inc(&((struct cxib_obj_ref *)(obj + ref_off))->refs);
	xa_unlock_irqrestore(xa, flags);
	return obj;
}

/**
 * cxib_obj_tables_init() - set up the device's object tables: CQs, QPs and SRQs
 * @dev: the device, before its EQs exist
 *
 * The EQ handlers look objects up from the first event on; objects exist only after the
 * device is registered (and QP and SRQ events are dispatched only while it is).
 */
void cxib_obj_tables_init(struct cxib_dev *dev)
{
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srqs, XA_FLAGS_LOCK_IRQ);
}

/**
 * cxib_res_init() - set up what the verbs resources share: the doorbell record pool
 * @dev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int cxib_res_init(struct cxib_dev *dev)
{
	dev->dbr_pool = dma_pool_create("cxib_dbr", &dev->pdev->dev, CXIB_DBR_BLOCK_SIZE,
					CXIB_DBR_BLOCK_SIZE, 0);
	return dev->dbr_pool ? 0 : -ENOMEM;
}

/**
 * cxib_res_cleanup() - undo cxib_res_init(), once every resource is gone
 * @dev: the device
 */
void cxib_res_cleanup(struct cxib_dev *dev)
{
	WARN_ON(!xa_empty(&dev->cqs));
	WARN_ON(!xa_empty(&dev->qps));
	WARN_ON(!xa_empty(&dev->srqs));
	dma_pool_destroy(dev->dbr_pool);
	dev->dbr_pool = NULL;
}
