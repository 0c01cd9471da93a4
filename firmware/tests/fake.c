// SPDX-License-Identifier: GPL-2.0-or-later
/* Fake platform for the cxfw host tests; see fake.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Offset of [addr, addr+len) in the window, or -1 if any byte is outside it. */
static long long fake_window(const struct fake *fk, uint64_t addr, size_t len)
{
	if (addr < fk->base || addr - fk->base > fk->size || fk->size - (addr - fk->base) < len)
		return -1;
	return (long long)(addr - fk->base);
}

static int fake_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	struct fake *fk = opaque;
	long long off;
	int ret = -1;

	if (fk->reenter) {
		/* as if the read hit our own BAR: must not deadlock inside the core */
		(void)cxfw_mmio_read(fk->reenter, 0x1010, 4);
		cxfw_mmio_write(fk->reenter, 3 * 4096 + 0x40, 0, 4);
	}
	pthread_mutex_lock(&fk->lock);
	fk->dma_reads++;
	off = fake_window(fk, addr, len);
	if (off >= 0 && !fk->fail_reads) {
		memcpy(buf, fk->mem + off, len);
		ret = 0;
	}
	pthread_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_dma_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
	struct fake *fk = opaque;
	long long off;
	int ret = -1;

	pthread_mutex_lock(&fk->lock);
	fk->dma_writes++;
	fk->wlog[fk->wlog_n++ % FAKE_WLOG] = addr;
	if (fk->wr_hi && (addr < fk->wr_lo || addr >= fk->wr_hi || fk->wr_hi - addr < len))
		fk->wr_violations++;
	off = fake_window(fk, addr, len);
	if (fk->fail_hi && addr < fk->fail_hi && addr + len > fk->fail_lo)
		off = -1;
	if (off >= 0 && !fk->fail_writes) {
		memcpy(fk->mem + off, buf, len);
		ret = 0;
	}
	pthread_mutex_unlock(&fk->lock);
	return ret;
}

static void fake_msix_notify(void *opaque, unsigned int vector)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	if (vector < FAKE_MAX_MSIX)
		fk->msix[vector]++;
	pthread_mutex_unlock(&fk->lock);
}

static uint64_t fake_clock_ns(void *opaque)
{
	struct fake *fk = opaque;
	uint64_t now;

	pthread_mutex_lock(&fk->lock);
	now = fk->now_ns;
	pthread_mutex_unlock(&fk->lock);
	return now;
}

static void fake_kick(void *opaque)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	fk->kicks++;
	pthread_cond_broadcast(&fk->kicked);
	pthread_mutex_unlock(&fk->lock);
}

static void fake_log(void *opaque, enum cxfw_log_level level, const char *msg)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	if ((unsigned int)level < 3)
		fk->logs[level]++;
	snprintf(fk->last_log, sizeof(fk->last_log), "%s", msg);
	if (fk->verbose)
		fprintf(stderr, "  [log %d] %s\n", (int)level, msg);
	pthread_mutex_unlock(&fk->lock);
}

int fake_init(struct fake *fk, uint64_t base, size_t size)
{
	memset(fk, 0, sizeof(*fk));
	fk->mem = calloc(1, size);
	if (!fk->mem)
		return -1;
	pthread_mutex_init(&fk->lock, NULL);
	pthread_cond_init(&fk->kicked, NULL);
	fk->base = base;
	fk->size = size;
	fk->now_ns = FAKE_CLOCK_START_NS;
	fk->verbose = getenv("CXFW_TEST_VERBOSE") != NULL;
	return 0;
}

void fake_fini(struct fake *fk)
{
	if (!fk->mem)
		return;
	pthread_cond_destroy(&fk->kicked);
	pthread_mutex_destroy(&fk->lock);
	free(fk->mem);
	fk->mem = NULL;
}

void fake_platform(struct fake *fk, struct cxfw_platform *plat)
{
	memset(plat, 0, sizeof(*plat));
	plat->opaque = fk;
	plat->dma_read = fake_dma_read;
	plat->dma_write = fake_dma_write;
	plat->msix_notify = fake_msix_notify;
	plat->clock_ns = fake_clock_ns;
	plat->kick = fake_kick;
	plat->log = fake_log;
}

void fake_advance_ns(struct fake *fk, uint64_t ns)
{
	pthread_mutex_lock(&fk->lock);
	fk->now_ns += ns;
	pthread_mutex_unlock(&fk->lock);
}

void fake_advance_ms(struct fake *fk, uint64_t ms)
{
	fake_advance_ns(fk, ms * 1000000ull);
}

unsigned int fake_kicks(struct fake *fk)
{
	unsigned int n;

	pthread_mutex_lock(&fk->lock);
	n = fk->kicks;
	pthread_mutex_unlock(&fk->lock);
	return n;
}

unsigned int fake_err_logs(struct fake *fk)
{
	unsigned int n;

	pthread_mutex_lock(&fk->lock);
	n = fk->logs[CXFW_LOG_ERR];
	pthread_mutex_unlock(&fk->lock);
	return n;
}

void fake_mem_write(struct fake *fk, uint64_t addr, const void *buf, size_t len)
{
	long long off;

	pthread_mutex_lock(&fk->lock);
	off = fake_window(fk, addr, len);
	if (off < 0)
		abort();	/* a bug in the test itself */
	memcpy(fk->mem + off, buf, len);
	pthread_mutex_unlock(&fk->lock);
}

void fake_mem_read(struct fake *fk, uint64_t addr, void *buf, size_t len)
{
	long long off;

	pthread_mutex_lock(&fk->lock);
	off = fake_window(fk, addr, len);
	if (off < 0)
		abort();
	memcpy(buf, fk->mem + off, len);
	pthread_mutex_unlock(&fk->lock);
}

/* MMIO values are BAR bytes in little-endian order; the register value is big-endian. */
uint32_t rd32(struct cxfw_dev *dev, uint64_t off)
{
	uint64_t v = cxfw_mmio_read(dev, off, 4);
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	return be32_at(b);
}

void wr32(struct cxfw_dev *dev, uint64_t off, uint32_t v)
{
	uint8_t b[4];

	put_be32(b, v);
	cxfw_mmio_write(dev, off,
			(uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
			(uint64_t)b[3] << 24, 4);
}

void cmdq_setup(struct cxfw_dev *dev, uint64_t addr)
{
	wr32(dev, 0x010, (uint32_t)(addr >> 32));
	wr32(dev, 0x014, (uint32_t)addr & 0xfffff000u);
}

void entry_prepare(struct fake *fk, uint64_t q, unsigned int slot, uint16_t opcode,
		   uint16_t op_mod, uint32_t inlen, uint32_t outlen)
{
	uint8_t e[64];

	memset(e, 0, sizeof(e));
	e[0x00] = 0x07;				/* type: PCIe command interface */
	put_be32(e + 0x04, inlen);
	put_be32(e + 0x10, (uint32_t)opcode << 16);	/* opcode, uid 0 */
	put_be32(e + 0x14, op_mod);
	put_be32(e + 0x18, 0x11223344);		/* command-specific input */
	memset(e + 0x20, 0xee, 16);		/* stale output the device must overwrite */
	put_be32(e + 0x38, outlen);
	e[0x3c] = 0x5a;				/* token */
	e[0x3d] = 0xc3;				/* signature */
	e[0x3f] = 0x01;				/* ownership: hardware */
	entry_put(fk, q, slot, e);
}

void entry_get(struct fake *fk, uint64_t q, unsigned int slot, uint8_t ent[64])
{
	fake_mem_read(fk, q + 64ull * slot, ent, 64);
}

void entry_put(struct fake *fk, uint64_t q, unsigned int slot, const uint8_t ent[64])
{
	fake_mem_write(fk, q + 64ull * slot, ent, 64);
}

int fake_wlog_last(struct fake *fk, uint64_t lo, uint64_t hi)
{
	unsigned int i, n;
	int pos = -1;

	pthread_mutex_lock(&fk->lock);
	n = fk->wlog_n < FAKE_WLOG ? fk->wlog_n : FAKE_WLOG;
	for (i = fk->wlog_n - n; i < fk->wlog_n; i++)
		if (fk->wlog[i % FAKE_WLOG] >= lo && fk->wlog[i % FAKE_WLOG] < hi)
			pos = (int)i;
	pthread_mutex_unlock(&fk->lock);
	return pos;
}

unsigned int fake_msix(struct fake *fk, unsigned int vector)
{
	unsigned int n;

	pthread_mutex_lock(&fk->lock);
	n = vector < FAKE_MAX_MSIX ? fk->msix[vector] : 0;
	pthread_mutex_unlock(&fk->lock);
	return n;
}
