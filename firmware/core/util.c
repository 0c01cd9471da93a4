// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw utilities every core file uses: logging through the platform, the platform clock,
 * statistics counters, text for the debug dumps, the PAS-list loader of the queue-creating
 * commands and the UAR ownership check.  A leaf: it calls nothing else in the core.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cxfw_priv.h"

#define CXFW_LOG_LINE_MAX		256

void cxfw_log(struct cxfw_dev *dev, enum cxfw_log_level level, const char *fmt, ...)
{
	char line[CXFW_LOG_LINE_MAX];
	va_list ap;

	if (!dev->plat.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	dev->plat.log(dev->plat.opaque, level, line);
}

uint64_t cxfw_now(struct cxfw_dev *dev)
{
	return dev->plat.clock_ns(dev->plat.opaque);
}

void cxfw_stat_add(struct cxfw_dev *dev, uint64_t *counter, uint64_t n)
{
	pthread_mutex_lock(&dev->lock);
	*counter += n;
	pthread_mutex_unlock(&dev->lock);
}

void cxfw_textf(struct cxfw_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->len > t->need ? t->buf + t->need : NULL,
		      t->len > t->need ? t->len - t->need : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->need += (size_t)n;
}

/*
 * Read and check the PAS list of a queue of @bytes bytes (page_offset included) made of
 * pages of 4 KiB << @log_pg: enough entries in the input, each aligned to the page size
 * and both ends of the part used readable.  On success *list (malloc'd) and *npas are set.
 */
uint8_t cxfw_pas_load(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t pas_off,
		      uint32_t log_pg, uint64_t bytes, uint64_t **list, uint32_t *npas,
		      const char *what)
{
	uint64_t pg_size = (uint64_t)CXIB_ADAPTER_PAGE_SIZE << log_pg, probe, *l;
	uint64_t n = (bytes + pg_size - 1) / pg_size;
	const uint8_t *pas = cxfw_in_bytes(cmd, pas_off);
	uint32_t i;

	if ((uint64_t)cmd->inlen < pas_off + n * CXIB_PAS_ENTRY_SIZE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_INLEN, cmd->inlen));
	l = calloc(n, sizeof(*l));
	if (!l)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	for (i = 0; i < n; i++) {
		l[i] = CXIB_GET64(pas + (size_t)i * CXIB_PAS_ENTRY_SIZE, CXIB_PAS_ENTRY_PA);
		if ((l[i] & (pg_size - 1)) || !l[i] ||
		    cxfw_dma_read(dev, l[i], &probe, sizeof(probe)) ||
		    cxfw_dma_read(dev, l[i] + (i + 1 < n ? pg_size : bytes - i * pg_size) -
				  sizeof(probe), &probe, sizeof(probe))) {
			cxfw_log(dev, CXFW_LOG_ERR, "cxfw: %s: bad PAS entry %u 0x%llx", what, i,
				 (unsigned long long)l[i]);
			free(l);
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PAGE, i));
		}
	}
	*list = l;
	*npas = (uint32_t)n;
	return CXIB_CMD_STAT_OK;
}

/* UAR page @uar was handed out by ALLOC_UAR (lock held). */
bool cxfw_uar_allocated(const struct cxfw_dev *dev, uint32_t uar)
{
	return uar >= CXIB_FIRST_UAR_INDEX && uar < CXFW_NUM_UAR_PAGES &&
	       (dev->uar_map[uar / 64] >> (uar % 64) & 1);
}
