/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw core internals shared by core.c (lifecycle), iseg.c (BAR0 register file) and cmd.c
 * (command engine).  Not part of the platform interface.
 */
#ifndef CXFW_PRIV_H
#define CXFW_PRIV_H

#include <pthread.h>

#include <cxib/hw.h>

#include "cxfw.h"

#define CXFW_NS_PER_MS		1000000ull
#define CXFW_NS_PER_SEC		1000000000ull
#define CXFW_MAX_PORTS		2	/* size of cxfw_stats.link_up[] */
#define CXFW_MAX_MSIX		2048	/* PCI MSI-X table size limit */
#define CXFW_LOG_CMDQ_SIZE_MIN	1	/* Linux reserves the last slot for MANAGE_PAGES */

/* Health buffer contents the model reports once the firmware is dead. */
#define CXFW_HEALTH_SEVERITY_CRIT	2	/* syslog-style level: critical */
#define CXFW_HEALTH_SYND_FW_INTERNAL	0x01	/* used when a fatal is injected with synd 0 */

#if defined(__GNUC__)
#define CXFW_PRINTF(f, a)	__attribute__((format(printf, f, a)))
#else
#define CXFW_PRINTF(f, a)
#endif

struct cxfw_dev {
	/* Set at creation, read-only afterwards. */
	struct cxfw_config cfg;
	struct cxfw_platform plat;
	uint64_t node_guid;		/* cfg.node_guid or derived from cfg.serial (for the SMA) */
	uint64_t power_on_ns;		/* the internal timer counts from here */

	/*
	 * Protects every field below.  Held only for short register-sized critical sections
	 * and NEVER across a platform callback: a DMA may land in our own BAR (re-entering
	 * cxfw_mmio_*), and under QEMU the callbacks may take the BQL.
	 */
	pthread_mutex_t lock;
	uint64_t reset_ns;		/* last create/reset: initializing, health counter */
	uint32_t cmdq_addr_h;		/* cmdq_phy_addr[63:32] */
	uint32_t cmdq_addr_l;		/* cmdq_phy_addr[31:12], as the field value */
	uint8_t nic_interface;		/* last value the driver wrote */
	uint32_t cmd_pending;		/* rung doorbell slots not yet executed */
	bool fatal;			/* firmware "crashed" (cxfw_inject_fatal) */
	uint8_t health_synd;
	uint32_t health_time;		/* seconds since power-on at the fatal event */
	uint32_t frozen_counter;	/* health counter value at the fatal event */
	struct cxfw_stats stats;
};

/* core.c */
void cxfw_log(struct cxfw_dev *dev, enum cxfw_log_level level, const char *fmt, ...)
	CXFW_PRINTF(3, 4);
uint64_t cxfw_now(struct cxfw_dev *dev);
void cxfw_stat_add(struct cxfw_dev *dev, uint64_t *counter, uint64_t n);

/* iseg.c (lock held) */
uint32_t cxfw_iseg_health_counter(const struct cxfw_dev *dev, uint64_t now);
uint64_t cxfw_iseg_cmdq_base(const struct cxfw_dev *dev);

/* cmd.c */
void cxfw_cmd_process(struct cxfw_dev *dev);

/* Nanoseconds from @since to @now, 0 if the clock has not moved forward. */
static inline uint64_t cxfw_elapsed_ns(uint64_t now, uint64_t since)
{
	return now > since ? now - since : 0;
}

static inline uint32_t cxfw_cmdq_slots(const struct cxfw_dev *dev)
{
	return 1u << dev->cfg.log_cmdq_size;
}

/* Doorbell bits that name an existing slot. */
static inline uint32_t cxfw_cmdq_slot_mask(const struct cxfw_dev *dev)
{
	return (uint32_t)((1ull << cxfw_cmdq_slots(dev)) - 1);
}

#endif /* CXFW_PRIV_H */
