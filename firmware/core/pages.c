// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw firmware pages (PRM sections 4.1 steps 6/12, 4.2, 4.3): QUERY_PAGES / MANAGE_PAGES.
 *
 * The model really asks for host memory, as ConnectX firmware does: cfg.boot_pages after
 * ENABLE_HCA (QUERY_PAGES op_mod 1) and cfg.init_pages more before INIT_HCA (op_mod 2), and
 * INIT_HCA fails with NO_RESOURCES until it holds boot + init pages.  It never touches the
 * pages' contents, but it keeps every address it was given (sorted, so duplicates are
 * found), checks each one (4 KiB aligned, DMA-readable, not already held) and gives them
 * back on MANAGE_PAGES op_mod 2 (take): while the HCA is initialized only pages beyond what
 * it needs, before INIT_HCA (an abandoned bring-up) and after TEARDOWN_HCA all of them.
 * Pages still held at DISABLE_HCA, reset or destroy are reported ("cxfw: N pages not
 * returned", stats.pages_leaked) and forgotten.
 *
 * A GIVE is all or nothing: one bad address (or more pages than requested) rejects the
 * whole command with BAD_PARAM and keeps none of its pages.  TAKE returns the highest
 * addresses first.
 *
 * Runtime page requests (cfg.runtime_pages = N > 0; the caps then clear
 * page_request_disable): real firmware grows its memory as the driver creates objects and
 * asks for it with a PAGE_REQUEST event (PRM "Page Request Event": function_id and
 * num_pages, > 0 to give), which the driver answers with MANAGE_PAGES.  The model asks for
 * N more pages each time the number of live QPs reaches a new peak after INIT_HCA, up to
 * CXFW_MAX_RUNTIME_PAGES in all, and never asks to give any back before TEARDOWN_HCA.
 * The event goes to the first EQ subscribed to it; without one the driver still sees the
 * debt in QUERY_PAGES op_mod 3.  The model runs on without the pages.
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_PAGE_SIZE		CXIB_ADAPTER_PAGE_SIZE

/* Pages the function wants in its current state; lock held. */
static uint32_t cxfw_pages_target(const struct cxfw_dev *dev)
{
	switch (dev->hca_state) {
	case CXFW_HCA_ENABLED:
		return dev->cfg.boot_pages + (dev->init_pages_requested ? dev->cfg.init_pages : 0);
	case CXFW_HCA_INITIALIZED:
		return dev->cfg.boot_pages + dev->cfg.init_pages + dev->runtime_extra;
	default:
		return 0;
	}
}

/*
 * Pages a TAKE leaves the function: while initialized, what it runs on; before INIT_HCA
 * none, since a driver that takes pages back then is abandoning the bring-up (mlx5_core's
 * mlx5_function_disable() reclaims everything before DISABLE_HCA) and INIT_HCA fails with
 * NO_RESOURCES until they are given again.  Lock held.
 */
static uint32_t cxfw_pages_kept(const struct cxfw_dev *dev)
{
	return dev->hca_state == CXFW_HCA_INITIALIZED ? cxfw_pages_target(dev) : 0;
}

/* Pages INIT_HCA still lacks; lock held. */
uint32_t cxfw_pages_needed(const struct cxfw_dev *dev)
{
	uint32_t need = dev->cfg.boot_pages + dev->cfg.init_pages;

	return dev->npages >= need ? 0 : need - dev->npages;
}

void cxfw_pages_drop(struct cxfw_dev *dev, const char *when)
{
	bool fatal;
	uint32_t n;

	pthread_mutex_lock(&dev->lock);
	n = dev->npages;
	fatal = dev->fatal;
	free(dev->pages);
	dev->pages = NULL;
	dev->npages = 0;
	dev->init_pages_requested = false;
	dev->stats.pages_held = 0;
	if (!fatal)
		dev->stats.pages_leaked += n;
	pthread_mutex_unlock(&dev->lock);
	if (!n)
		return;
	/* a dead firmware answers no MANAGE_PAGES: the driver could not have taken them back */
	if (fatal)
		cxfw_log(dev, CXFW_LOG_INFO, "cxfw: %u pages forgotten with the dead firmware (%s)",
			 n, when);
	else
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: %u pages not returned (%s)", n, when);
}

void cxfw_pages_qp_count(struct cxfw_dev *dev, int delta)
{
	uint32_t data[7] = { 0 };
	uint32_t ask = 0;
	uint64_t eq;

	pthread_mutex_lock(&dev->lock);
	if (delta < 0 && dev->live_qps)
		dev->live_qps--;
	if (delta > 0) {
		dev->live_qps++;
		if (dev->cfg.runtime_pages && dev->hca_state == CXFW_HCA_INITIALIZED &&
		    dev->live_qps > dev->peak_qps &&
		    dev->runtime_extra + dev->cfg.runtime_pages <= CXFW_MAX_RUNTIME_PAGES) {
			dev->peak_qps = dev->live_qps;
			ask = dev->cfg.runtime_pages;
			dev->runtime_extra += ask;
			dev->stats.page_requests++;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (!ask)
		return;
	eq = cxfw_eq_subscriber(dev, CXIB_EVENT_TYPE_PAGE_REQUEST);
	if (!eq) {
		cxfw_log(dev, CXFW_LOG_DEBUG,
			 "cxfw: %u more pages wanted, no EQ takes page requests", ask);
		return;
	}
	data[CXIB_DW(CXIB_EQE_PAGE_REQ_FUNCTION_ID) - CXIB_EQE_DATA_OFFSET / 4] =
		CXIB_FIELD_PREP(CXIB_EQE_PAGE_REQ_FUNCTION_ID, 0);
	data[CXIB_DW(CXIB_EQE_PAGE_REQ_NUM_PAGES) - CXIB_EQE_DATA_OFFSET / 4] =
		CXIB_FIELD_PREP(CXIB_EQE_PAGE_REQ_NUM_PAGES, ask);
	cxfw_eq_post(dev, eq, CXIB_EVENT_TYPE_PAGE_REQUEST, 0, data);
}

uint8_t cxfw_cmd_query_pages(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_pages_in *in = (const void *)cmd->in;
	struct cxib_query_pages_out *out = (void *)cmd->out;
	int64_t num;

	if (CXIB_GET(in, CXIB_QUERY_PAGES_IN_EMBEDDED_CPU_FUNCTION) ||
	    CXIB_GET(in, CXIB_QUERY_PAGES_IN_FUNCTION_ID))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_GET(in, CXIB_QUERY_PAGES_IN_FUNCTION_ID)));

	pthread_mutex_lock(&dev->lock);
	switch (cmd->op_mod) {
	case CXIB_QUERY_PAGES_OP_MOD_BOOT:
		num = (int64_t)dev->cfg.boot_pages - dev->npages;
		num = num < 0 ? 0 : num;
		break;
	case CXIB_QUERY_PAGES_OP_MOD_INIT:
		if (dev->hca_state == CXFW_HCA_ENABLED)
			dev->init_pages_requested = true;
		num = (int64_t)cxfw_pages_target(dev) - dev->npages;
		num = num < 0 ? 0 : num;
		break;
	default:	/* regular: what the function wants now; < 0 = please take */
		num = (int64_t)cxfw_pages_target(dev) - dev->npages;
		break;
	}
	pthread_mutex_unlock(&dev->lock);
	CXIB_SET(out, CXIB_QUERY_PAGES_OUT_NUM_PAGES, (uint32_t)(int32_t)num);
	return CXIB_CMD_STAT_OK;
}

static int cxfw_addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool cxfw_page_held(const struct cxfw_dev *dev, uint64_t addr)
{
	return dev->npages &&
	       bsearch(&addr, dev->pages, dev->npages, sizeof(*dev->pages), cxfw_addr_cmp);
}

static uint8_t cxfw_manage_pages_give(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t n)
{
	const uint8_t *pas = cxfw_in_bytes(cmd, CXIB_MANAGE_PAGES_IN_PAS_OFFSET);
	uint64_t *batch = NULL, *merged = NULL, probe;
	uint32_t i, j, k, wanted;
	uint8_t st = CXIB_CMD_STAT_OK;

	if (cmd->inlen < CXIB_MANAGE_PAGES_IN_LEN((uint64_t)n))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_INLEN, cmd->inlen));
	pthread_mutex_lock(&dev->lock);
	wanted = cxfw_pages_target(dev) > dev->npages ? cxfw_pages_target(dev) - dev->npages : 0;
	pthread_mutex_unlock(&dev->lock);
	if (n > wanted) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: MANAGE_PAGES gives %u pages, %u requested", n,
			 wanted);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_PAGES, n));
	}
	if (!n)
		return CXIB_CMD_STAT_OK;

	batch = malloc(n * sizeof(*batch));
	if (!batch)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	for (i = 0; i < n; i++) {
		batch[i] = CXIB_GET64(pas + (size_t)i * CXIB_PAS_ENTRY_SIZE, CXIB_PAS_ENTRY_PA);
		/* every page must be aligned and really there (the device may use all of it) */
		if ((batch[i] & (CXFW_PAGE_SIZE - 1)) || !batch[i] ||
		    cxfw_dma_read(dev, batch[i], &probe, sizeof(probe)) ||
		    cxfw_dma_read(dev, batch[i] + CXFW_PAGE_SIZE - sizeof(probe),
				  &probe, sizeof(probe))) {
			cxfw_log(dev, CXFW_LOG_ERR,
				 "cxfw: MANAGE_PAGES entry %u: bad page address 0x%llx", i,
				 (unsigned long long)batch[i]);
			st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				       CXFW_SYND(CXFW_SYND_BAD_PAGE, i));
			goto out;
		}
	}
	qsort(batch, n, sizeof(*batch), cxfw_addr_cmp);

	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < n; i++) {
		if ((i && batch[i] == batch[i - 1]) || cxfw_page_held(dev, batch[i])) {
			pthread_mutex_unlock(&dev->lock);
			cxfw_log(dev, CXFW_LOG_ERR, "cxfw: MANAGE_PAGES gives page 0x%llx twice",
				 (unsigned long long)batch[i]);
			st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PAGE, i));
			goto out;
		}
	}
	merged = malloc(((size_t)dev->npages + n) * sizeof(*merged));
	if (!merged) {
		pthread_mutex_unlock(&dev->lock);
		st = cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
		goto out;
	}
	for (i = j = k = 0; i < dev->npages || j < n; k++)
		merged[k] = (j >= n || (i < dev->npages && dev->pages[i] < batch[j])) ?
			    dev->pages[i++] : batch[j++];
	free(dev->pages);
	dev->pages = merged;
	dev->npages += n;
	dev->stats.pages_held = dev->npages;
	pthread_mutex_unlock(&dev->lock);
out:
	free(batch);
	return st;
}

static uint8_t cxfw_manage_pages_take(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t n)
{
	struct cxib_manage_pages_out *out = (void *)cmd->out;
	uint8_t *pas = cxfw_out_bytes(cmd, CXIB_MANAGE_PAGES_OUT_PAS_OFFSET);
	uint32_t spare, give, i;

	if (cmd->outlen < CXIB_MANAGE_PAGES_OUT_LEN((uint64_t)n))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OUTPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_OUTLEN, cmd->outlen));
	pthread_mutex_lock(&dev->lock);
	spare = dev->npages > cxfw_pages_kept(dev) ? dev->npages - cxfw_pages_kept(dev) : 0;
	give = n < spare ? n : spare;
	/* the highest addresses go back first; the array stays sorted */
	for (i = 0; i < give; i++)
		CXIB_SET64(pas + (size_t)i * CXIB_PAS_ENTRY_SIZE, CXIB_PAS_ENTRY_PA,
			   dev->pages[dev->npages - 1 - i]);
	dev->npages -= give;
	dev->stats.pages_held = dev->npages;
	if (!dev->npages) {
		free(dev->pages);
		dev->pages = NULL;
	}
	pthread_mutex_unlock(&dev->lock);
	CXIB_SET(out, CXIB_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES, give);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_manage_pages(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_manage_pages_in *in = (const void *)cmd->in;
	uint32_t n = CXIB_GET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES);

	if (CXIB_GET(in, CXIB_MANAGE_PAGES_IN_EMBEDDED_CPU_FUNCTION) ||
	    CXIB_GET(in, CXIB_MANAGE_PAGES_IN_FUNCTION_ID))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_GET(in, CXIB_MANAGE_PAGES_IN_FUNCTION_ID)));

	switch (cmd->op_mod) {
	case CXIB_MANAGE_PAGES_OP_MOD_GIVE:
		return cxfw_manage_pages_give(dev, cmd, n);
	case CXIB_MANAGE_PAGES_OP_MOD_TAKE:
		return cxfw_manage_pages_take(dev, cmd, n);
	default:
		/* the driver could not supply the pages; nothing to undo */
		cxfw_log(dev, CXFW_LOG_INFO, "cxfw: driver reports page allocation failure");
		return CXIB_CMD_STAT_OK;
	}
}
