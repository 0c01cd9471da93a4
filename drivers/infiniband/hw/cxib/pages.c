// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: memory lent to the firmware (PRM §4.1 steps 6 and 12, §4.2, §4.3).
 *
 * The firmware of a ConnectX-class HCA keeps some of its state in host memory.  It says how
 * many 4 KiB pages it wants at boot (QUERY_PAGES boot, before capabilities are set), for
 * initialization (QUERY_PAGES init, before INIT_HCA) and at run time (page request
 * events on the pages EQ, which can also ask for pages back).  The driver lends pages with
 * MANAGE_PAGES (give) and gets them back with MANAGE_PAGES (take); at teardown it takes
 * back everything and complains loudly about pages the firmware keeps.
 *
 * Every page the firmware holds is in an xarray keyed by its bus address, so pages the
 * firmware returns are found again and pages it never returns are accounted for.  All
 * MANAGE_PAGES commands use the command queue's reserved slot.
 */

#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "cxib.h"

/* Teardown gives up taking pages back after this long without progress (as mlx5 does). */
#define CXIB_PAGES_RECLAIM_TIMEOUT_MS	5000
#define CXIB_PAGES_RECLAIM_RETRY_MS	20

/**
 * struct cxib_fw_page - one 4 KiB page the firmware holds
 * @buf: its CPU address
 * @dma: its bus address
 */
struct cxib_fw_page {
	void *buf;
	dma_addr_t dma;
};

static unsigned long cxib_page_index(dma_addr_t dma)
{
	return dma >> CXIB_ADAPTER_PAGE_SHIFT;
}

static void cxib_fw_page_free(struct cxib_dev *dev, struct cxib_fw_page *page)
{
	dma_free_coherent(&dev->pdev->dev, CXIB_ADAPTER_PAGE_SIZE, page->buf, page->dma);
	kfree(page);
}

/* A new page, already in the xarray.  Pages lock held. */
static struct cxib_fw_page *cxib_fw_page_alloc(struct cxib_dev *dev)
{
	struct cxib_fw_page *page;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return NULL;
	/* Coherent allocations are page aligned, so this is a whole 4 KiB device page. */
	page->buf = dma_alloc_coherent(&dev->pdev->dev, CXIB_ADAPTER_PAGE_SIZE, &page->dma,
				       GFP_KERNEL);
	if (!page->buf)
		goto err_free;
	if (xa_insert(&dev->pages.xa, cxib_page_index(page->dma), page, GFP_KERNEL))
		goto err_free_buf;
	return page;

err_free_buf:
	dma_free_coherent(&dev->pdev->dev, CXIB_ADAPTER_PAGE_SIZE, page->buf, page->dma);
err_free:
	kfree(page);
	return NULL;
}

/* Undo cxib_fw_page_alloc() for a page the firmware did not take.  Pages lock held. */
static void cxib_fw_page_drop(struct cxib_dev *dev, dma_addr_t dma)
{
	struct cxib_fw_page *page = xa_erase(&dev->pages.xa, cxib_page_index(dma));

	if (page)
		cxib_fw_page_free(dev, page);
}

/*
 * Lend @npages pages to the firmware, CXIB_PAGES_PER_CMD at a time.  When memory runs out
 * and @notify is set, tell the firmware its request cannot be met.  Pages lock held.
 */
static int cxib_pages_give_locked(struct cxib_dev *dev, u16 func_id, u32 npages, bool notify)
{
	struct cxib_pages *pages = &dev->pages;
	struct cxib_fw_page *page;
	dma_addr_t *pas;
	u32 i, n;
	int err = 0;

	lockdep_assert_held(&pages->lock);
	pas = kcalloc(min_t(u32, npages, CXIB_PAGES_PER_CMD), sizeof(*pas), GFP_KERNEL);
	if (!pas) {
		err = -ENOMEM;
		goto out_notify;
	}

	while (npages) {
		n = min_t(u32, npages, CXIB_PAGES_PER_CMD);
		for (i = 0; i < n; i++) {
			page = cxib_fw_page_alloc(dev);
			if (!page)
				break;
			pas[i] = page->dma;
		}
		if (i < n) {
			while (i--)
				cxib_fw_page_drop(dev, pas[i]);
			err = -ENOMEM;
			break;
		}

		err = cxib_cmd_give_pages(dev, func_id, pas, n);
		if (err) {
			for (i = 0; i < n; i++)
				cxib_fw_page_drop(dev, pas[i]);
			break;
		}
		pages->npages += n;
		npages -= n;
	}
	kfree(pas);

out_notify:
	if (err == -ENOMEM && notify && npages) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "out of memory for the %u pages the firmware asked for\n",
				    npages);
		cxib_cmd_pages_alloc_failed(dev, func_id, npages);
	}
	return err;
}

/*
 * Ask the firmware to return up to @npages pages and free those it returns.  Sets @ntaken
 * to the number returned.  Pages lock held.
 */
static int cxib_pages_take_locked(struct cxib_dev *dev, u16 func_id, u32 npages, u32 *ntaken)
{
	struct cxib_pages *pages = &dev->pages;
	struct cxib_fw_page *page;
	dma_addr_t *pas;
	u32 i, n, nret;
	int err = 0;

	lockdep_assert_held(&pages->lock);
	*ntaken = 0;
	pas = kcalloc(min_t(u32, npages, CXIB_PAGES_PER_CMD), sizeof(*pas), GFP_KERNEL);
	if (!pas)
		return -ENOMEM;

	while (npages) {
		n = min_t(u32, npages, CXIB_PAGES_PER_CMD);
		err = cxib_cmd_take_pages(dev, func_id, n, pas, &nret);
		if (err)
			break;
		for (i = 0; i < nret; i++) {
			page = xa_erase(&pages->xa, cxib_page_index(pas[i]));
			if (!page) {
				dev_err_ratelimited(&dev->pdev->dev,
						    "firmware returned page %pad, which it was never given\n",
						    &pas[i]);
				continue;
			}
			cxib_fw_page_free(dev, page);
			pages->npages--;
			(*ntaken)++;
		}
		if (nret < n)
			break;		/* it has no more to give back now */
		npages -= n;
	}
	kfree(pas);
	return err;
}

/**
 * cxib_pages_supply() - give the firmware the pages it wants at a bring-up stage
 * @dev: the device
 * @op_mod: CXIB_QUERY_PAGES_OP_MOD_BOOT (before capabilities are set) or _INIT (before
 *	INIT_HCA)
 *
 * Return: 0 or a negative errno.
 */
int cxib_pages_supply(struct cxib_dev *dev, u16 op_mod)
{
	u16 func_id;
	s32 npages;
	int err;

	err = cxib_cmd_query_pages(dev, op_mod, &func_id, &npages);
	if (err)
		return err;
	dev_dbg(&dev->pdev->dev, "firmware asks for %d %s pages\n", npages,
		op_mod == CXIB_QUERY_PAGES_OP_MOD_BOOT ? "boot" : "init");
	if (npages <= 0)
		return 0;

	mutex_lock(&dev->pages.lock);
	err = cxib_pages_give_locked(dev, func_id, npages, false);
	mutex_unlock(&dev->pages.lock);
	if (err)
		dev_err(&dev->pdev->dev, "cannot give the firmware its %d %s pages: %d\n", npages,
			op_mod == CXIB_QUERY_PAGES_OP_MOD_BOOT ? "boot" : "init", err);
	return err;
}

/* Serve one page request. */
static void cxib_pages_serve(struct cxib_dev *dev, const struct cxib_page_req *req)
{
	u32 ntaken;
	int err;

	mutex_lock(&dev->pages.lock);
	if (req->npages > 0) {
		err = cxib_pages_give_locked(dev, req->func_id, req->npages, true);
		if (err)
			dev_err_ratelimited(&dev->pdev->dev,
					    "firmware asked for %d pages: %d\n", req->npages, err);
	} else if (req->npages < 0) {
		err = cxib_pages_take_locked(dev, req->func_id, -req->npages, &ntaken);
		if (err)
			dev_err_ratelimited(&dev->pdev->dev,
					    "firmware offered %d pages back: %d\n", -req->npages,
					    err);
	}
	mutex_unlock(&dev->pages.lock);
}

static void cxib_pages_req_work(struct work_struct *work)
{
	struct cxib_dev *dev = container_of(work, struct cxib_dev, pages.req_work);
	struct cxib_pages *pages = &dev->pages;
	struct cxib_page_req req;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&pages->req_lock, flags);
		if (!pages->req_count) {
			spin_unlock_irqrestore(&pages->req_lock, flags);
			return;
		}
		req = pages->reqs[pages->req_head];
		pages->req_head = (pages->req_head + 1) % CXIB_PAGE_REQS;
		pages->req_count--;
		spin_unlock_irqrestore(&pages->req_lock, flags);

		cxib_pages_serve(dev, &req);
	}
}

/**
 * cxib_pages_request() - handle a page request event
 * @dev: the device
 * @func_id: the function asking
 * @npages: pages wanted (> 0) or offered back (< 0)
 *
 * Queues the request for the pages worker.  Called from the pages EQ's interrupt handler.
 */
void cxib_pages_request(struct cxib_dev *dev, u16 func_id, s32 npages)
{
	struct cxib_pages *pages = &dev->pages;
	struct cxib_page_req *req;
	unsigned long flags;

	spin_lock_irqsave(&pages->req_lock, flags);
	if (pages->req_count == CXIB_PAGE_REQS) {
		spin_unlock_irqrestore(&pages->req_lock, flags);
		dev_err_ratelimited(&dev->pdev->dev,
				    "page request for %d pages dropped: %u requests pending\n",
				    npages, pages->req_count);
		return;
	}
	req = &pages->reqs[(pages->req_head + pages->req_count) % CXIB_PAGE_REQS];
	req->func_id = func_id;
	req->npages = npages;
	pages->req_count++;
	spin_unlock_irqrestore(&pages->req_lock, flags);
	queue_work(pages->wq, &pages->req_work);
}

/**
 * cxib_pages_flush_requests() - wait for queued page requests to be served
 * @dev: the device, whose pages EQ is gone (no new requests come)
 */
void cxib_pages_flush_requests(struct cxib_dev *dev)
{
	flush_work(&dev->pages.req_work);
}

/**
 * cxib_pages_reclaim() - take back every page the firmware holds
 * @dev: the device, after TEARDOWN_HCA
 *
 * Asks for pages until the firmware holds none, or it returns none for
 * CXIB_PAGES_RECLAIM_TIMEOUT_MS, or a command fails.
 *
 * Return: 0 if every page came back; -EBUSY if the firmware still holds some (logged);
 * the command's errno if one failed.
 */
int cxib_pages_reclaim(struct cxib_dev *dev)
{
	struct cxib_pages *pages = &dev->pages;
	unsigned long deadline = jiffies + msecs_to_jiffies(CXIB_PAGES_RECLAIM_TIMEOUT_MS);
	u32 ntaken;
	int err = 0;

	mutex_lock(&pages->lock);
	while (pages->npages && !cxib_dev_dead(dev)) {
		err = cxib_pages_take_locked(dev, 0, pages->npages, &ntaken);
		if (err)
			break;
		if (ntaken) {
			deadline = jiffies + msecs_to_jiffies(CXIB_PAGES_RECLAIM_TIMEOUT_MS);
			continue;
		}
		if (time_after(jiffies, deadline))
			break;
		mutex_unlock(&pages->lock);
		msleep(CXIB_PAGES_RECLAIM_RETRY_MS);
		mutex_lock(&pages->lock);
	}
	if (pages->npages) {
		dev_err(&dev->pdev->dev, "firmware did not return %u pages at teardown%s\n",
			pages->npages, cxib_dev_dead(dev) ? " (device dead)" : "");
		if (!err)
			err = -EBUSY;
	}
	mutex_unlock(&pages->lock);
	return err;
}

/**
 * cxib_pages_count() - number of pages the firmware holds
 * @dev: the device
 *
 * Return: the count, at the time of the call.
 */
u32 cxib_pages_count(struct cxib_dev *dev)
{
	u32 n;

	mutex_lock(&dev->pages.lock);
	n = dev->pages.npages;
	mutex_unlock(&dev->pages.lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_pages_count);

/**
 * cxib_pages_init() - set up page accounting and the page request worker
 * @dev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int cxib_pages_init(struct cxib_dev *dev)
{
	struct cxib_pages *pages = &dev->pages;

	mutex_init(&pages->lock);
	xa_init(&pages->xa);
	pages->npages = 0;
	INIT_WORK(&pages->req_work, cxib_pages_req_work);
	spin_lock_init(&pages->req_lock);
	pages->req_head = 0;
	pages->req_count = 0;
	pages->wq = alloc_ordered_workqueue("cxib_pages/%s", WQ_MEM_RECLAIM,
					    pci_name(dev->pdev));
	if (!pages->wq)
		return -ENOMEM;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_pages_init);

/**
 * cxib_pages_cleanup() - free what page accounting holds
 * @dev: the device, disabled (DISABLE_HCA) or dead
 *
 * Frees the pages the firmware never returned too (cxib_pages_reclaim() logged them),
 * after turning bus mastering off: only once the function can no longer write to memory
 * is that safe.
 */
void cxib_pages_cleanup(struct cxib_dev *dev)
{
	struct cxib_pages *pages = &dev->pages;
	struct cxib_fw_page *page;
	unsigned long index;

	destroy_workqueue(pages->wq);
	if (pages->npages) {
		dev_warn(&dev->pdev->dev,
			 "disabling DMA before freeing the %u pages the firmware kept\n",
			 pages->npages);
		pci_clear_master(dev->pdev);
	}
	xa_for_each(&pages->xa, index, page) {
		xa_erase(&pages->xa, index);
		cxib_fw_page_free(dev, page);
	}
	xa_destroy(&pages->xa);
	pages->npages = 0;
	mutex_destroy(&pages->lock);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_pages_cleanup);
