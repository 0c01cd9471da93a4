/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fake platform for the host tests: guest memory is one malloc'd window at a chosen guest
 * physical base (DMA outside it fails), the clock only moves when a test moves it, and kicks,
 * MSI-X and log lines are recorded.  Guest memory and the counters are guarded by a mutex so
 * threaded tests can share them with the core.
 */
#ifndef CXFW_TEST_FAKE_H
#define CXFW_TEST_FAKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxfw.h"

#define FAKE_MEM_BASE		0x100000ull	/* guest address 0 is deliberately unmapped */
#define FAKE_MEM_SIZE		(8u << 20)
/* Guest memory map the tests use (offsets from the base). */
#define FAKE_CMDQ_OFF		0x10000		/* command queue page */
#define FAKE_MBOX_OFF		0x100000	/* mailboxes: 64 KiB per slot, 32 slots */
#define FAKE_MBOX_SLOT_SIZE	0x10000
#define FAKE_PAGES_OFF		0x300000	/* firmware pages handed to the device */
#define FAKE_PAGES_MAX		256
#define FAKE_EQ_OFF		0x400000	/* EQ buffers */
#define FAKE_CLOCK_START_NS	5000000000ull	/* the clock does not start at 0 */
#define FAKE_CMDQ_ADDR(fk)	((fk)->base + FAKE_CMDQ_OFF)	/* 4 KiB aligned queue page */
#define FAKE_MAX_MSIX		64
#define FAKE_WLOG		64

struct fake {
	pthread_mutex_t lock;
	pthread_cond_t kicked;
	uint8_t *mem;
	uint64_t base;
	size_t size;
	uint64_t now_ns;

	unsigned int kicks;
	unsigned int msix[FAKE_MAX_MSIX];
	unsigned int dma_reads, dma_writes;
	bool fail_reads, fail_writes;
	/* If fail_hi != 0, DMA writes touching [fail_lo, fail_hi) fail. */
	uint64_t fail_lo, fail_hi;
	/* If wr_hi != 0, every DMA write must fall inside [wr_lo, wr_hi). */
	uint64_t wr_lo, wr_hi;
	unsigned int wr_violations;
	/* The last FAKE_WLOG DMA writes, in order (wlog_n counts all of them). */
	uint64_t wlog[FAKE_WLOG];
	unsigned int wlog_n;
	/* If set, each DMA read first touches this device's BAR0 (re-entrancy test). */
	struct cxfw_dev *reenter;

	unsigned int logs[3];		/* per enum cxfw_log_level */
	char last_log[256];
	bool verbose;			/* CXFW_TEST_VERBOSE set: echo log lines */
};

int fake_init(struct fake *fk, uint64_t base, size_t size);
void fake_fini(struct fake *fk);
void fake_platform(struct fake *fk, struct cxfw_platform *plat);

void fake_advance_ns(struct fake *fk, uint64_t ns);
void fake_advance_ms(struct fake *fk, uint64_t ms);
unsigned int fake_kicks(struct fake *fk);
unsigned int fake_err_logs(struct fake *fk);

/* Guest memory as the driver would touch it (addresses must be inside the window). */
void fake_mem_write(struct fake *fk, uint64_t addr, const void *buf, size_t len);
void fake_mem_read(struct fake *fk, uint64_t addr, void *buf, size_t len);

/* BAR0 access as the driver does it: ioread32be/iowrite32be give the PRM register value. */
uint32_t rd32(struct cxfw_dev *dev, uint64_t off);
void wr32(struct cxfw_dev *dev, uint64_t off, uint32_t v);

/* Program the command queue address as the driver does (hi, then lo). */
void cmdq_setup(struct cxfw_dev *dev, uint64_t addr);
/* Write a well-formed, hardware-owned entry into @slot of the queue at @q. */
void entry_prepare(struct fake *fk, uint64_t q, unsigned int slot, uint16_t opcode,
		   uint16_t op_mod, uint32_t inlen, uint32_t outlen);
void entry_get(struct fake *fk, uint64_t q, unsigned int slot, uint8_t ent[64]);
void entry_put(struct fake *fk, uint64_t q, unsigned int slot, const uint8_t ent[64]);

/* Position of the last DMA write to [lo, hi) in the write log, or -1. */
int fake_wlog_last(struct fake *fk, uint64_t lo, uint64_t hi);
unsigned int fake_msix(struct fake *fk, unsigned int vector);

uint32_t be32_at(const uint8_t *p);
void put_be32(uint8_t *p, uint32_t v);

#endif /* CXFW_TEST_FAKE_H */
