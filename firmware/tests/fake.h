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

struct fake_cable;

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

	/* The cable this device's port 1 is plugged into (NULL: packets are counted, dropped). */
	struct fake_cable *cable;
	unsigned int cable_end;		/* 0 or 1 */
	unsigned int pkts_unplugged;	/* port_send with no cable */

	unsigned int logs[3];		/* per enum cxfw_log_level */
	char last_log[256];
	bool verbose;			/* CXFW_TEST_VERBOSE set: echo log lines */

	/* Command-trace lines (platform->cmd_trace), newline-terminated, oldest first. */
	char *trace;
	size_t trace_len, trace_cap;
	unsigned int trace_lines;
	/* Every log line, the same way. */
	char *log;
	size_t log_len, log_cap;
	unsigned int log_lines;
};

/*
 * An in-memory cable between port 1 of two devices (or of one device and nothing).  A
 * device's port_send() queues the packet towards the other end; packets reach the other
 * device only from fake_cable_pump*(), which alternates cxfw_process() on both devices
 * with cxfw_port_receive() of the queued packets, so the core is never re-entered.
 *
 *	struct fake_cable *c = fake_cable_new();
 *	fake_cable_plug(c, 0, &fk_a, dev_a);
 *	fake_cable_plug(c, 1, &fk_b, dev_b);		// also calls cxfw_port_link(.., up)
 *	c->drop_pct = 5; c->seed = 42;			// knobs, any time
 *	fake_cable_pump(c, 1000);			// until quiet
 *
 * Knobs apply to every packet put on the cable (both directions) in this order: cut (drop
 * everything), tap (test callback may drop or let pass), drop_every (every Nth packet),
 * drop_pct (seeded pseudo-random), dup_every / dup_pct (deliver twice), reorder_every
 * (deliver after the next packet of the same direction), delay_rounds (deliver K rounds
 * later).  The random sequence depends only on @seed and the packet order, so a failing
 * lossy run is reproducible.  @busy_at (0: off) is link-level flow control: an end with
 * that many packets queued towards the other says port_busy, and the sending engines wait.
 */
#define FAKE_CABLE_MAX_QUEUED	4096
#define FAKE_CABLE_PKT_MAX	4352	/* > CXFW_PKT_MAX: a longer packet is a model bug */

struct fake_cable_pkt {
	unsigned int to;		/* receiving end */
	uint64_t due;			/* pump round at which it may be delivered */
	size_t len;
	uint8_t *data;
};

struct fake_cable {
	struct fake *fk[2];
	struct cxfw_dev *dev[2];
	/* knobs */
	bool cut;
	unsigned int drop_every;	/* 0: off; N: drop packets N, 2N, ... */
	unsigned int drop_pct;		/* 0..100, seeded */
	unsigned int dup_every, dup_pct;
	unsigned int reorder_every;	/* N: packet N, 2N, ... swaps with the next one */
	unsigned int delay_rounds;
	uint64_t round_ns;		/* 0: off; both clocks advance this much per round (a slow
					 * cable: timers run while packets are in flight) */
	unsigned int busy_at;		/* 0: off; N: port_busy with N packets queued from an end */
	uint64_t wait_ns[2];		/* port_wait_ns of each end: its packets waited unread */
	uint32_t seed;
	/* return false to drop @pkt (sent by end @from); may inspect it. */
	bool (*tap)(void *arg, unsigned int from, const uint8_t *pkt, size_t len);
	void *tap_arg;
	/* called for every packet just before cxfw_port_receive() on end @to (may be NULL) */
	void (*rx_tap)(void *arg, unsigned int to, const uint8_t *pkt, size_t len);
	void *rx_tap_arg;
	/* state */
	uint64_t round;
	uint32_t rng;
	struct fake_cable_pkt q[FAKE_CABLE_MAX_QUEUED];
	unsigned int nq;
	struct fake_cable_pkt held[2];	/* reorder: one packet per direction held back */
	bool holding[2];
	/* counters, per sending end */
	unsigned int sent[2], delivered[2], dropped[2], duplicated[2], reordered[2];
	unsigned int overflow;		/* queue full (a test bug or a packet storm) */
	unsigned int max_queued[2];	/* most packets ever queued from an end */
	unsigned int busy_said[2];	/* port_busy answers "busy" */
	unsigned int oversize;		/* packet longer than FAKE_CABLE_PKT_MAX */
};

struct fake_cable *fake_cable_new(void);
/* Unplugs both ends (link down not signalled) and frees queued packets. */
void fake_cable_free(struct fake_cable *c);
/* Plug @dev (platform @fk) in as end @end and bring its port 1 up. */
void fake_cable_plug(struct fake_cable *c, unsigned int end, struct fake *fk,
		     struct cxfw_dev *dev);
/* Link state of both ends' port 1 (a pulled cable also drops everything in flight). */
void fake_cable_link(struct fake_cable *c, bool up);
/*
 * One round: cxfw_process() on each plugged device, then deliver every queued packet
 * that is due.  Returns the number of packets sent or delivered during the round plus the
 * number of devices that kicked (asked for cxfw_process()) during it.
 */
unsigned int fake_cable_round(struct fake_cable *c);
/*
 * Rounds until one sends and delivers nothing with nothing left queued (quiet), at most
 * @max_rounds.  Returns the rounds run, or -1 if still busy after @max_rounds.
 */
int fake_cable_pump(struct fake_cable *c, unsigned int max_rounds);
/*
 * Like fake_cable_pump(), but each time the cable is quiet the clocks of both devices
 * move forward by @step_ns, until @total_ns of fake time has passed: lets local ACK
 * timeouts and RNR timers fire.  Returns the rounds run, or -1 if the cable once did not
 * get quiet within 100000 rounds (it carries on with the clock anyway).
 */
long fake_cable_pump_time(struct fake_cable *c, uint64_t step_ns, uint64_t total_ns);
/* Packets waiting on the cable (both directions, held ones included). */
unsigned int fake_cable_queued(const struct fake_cable *c);

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
/* The first trace line at or after line @from (0-based) containing @needle, or NULL. */
const char *fake_trace_find(struct fake *fk, unsigned int from, const char *needle,
			    unsigned int *lineno);
/* Whether a log line contains @needle. */
bool fake_log_has(struct fake *fk, const char *needle);

uint32_t be32_at(const uint8_t *p);
void put_be32(uint8_t *p, uint32_t v);

#endif /* CXFW_TEST_FAKE_H */
