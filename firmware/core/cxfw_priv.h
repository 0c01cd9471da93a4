/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw core internals shared by the core's files: core.c (lifecycle), iseg.c (BAR0 register
 * file), cmd.c (command engine), hca.c (HCA lifecycle, capabilities, UARs), pages.c
 * (firmware pages), eq.c (event queues), port.c (port state, registers, vport queries),
 * sma.c (MAD_IFC).  Not part of the platform interface.
 */
#ifndef CXFW_PRIV_H
#define CXFW_PRIV_H

#include <pthread.h>

#include <cxib/hw.h>
#include <cxib/cmd.h>
#include <cxib/eq.h>
#include <cxib/mad.h>

#include "cxfw.h"

#define CXFW_NS_PER_MS		1000000ull
#define CXFW_NS_PER_SEC		1000000000ull
#define CXFW_MAX_PORTS		2	/* size of cxfw_stats.link_up[] */
#define CXFW_MAX_MSIX		2048	/* PCI MSI-X table size limit */
#define CXFW_LOG_CMDQ_SIZE_MIN	1	/* Linux reserves the last slot for MANAGE_PAGES */
#define CXFW_MAX_FW_PAGES	65536	/* bound of boot_pages + init_pages */

/* Health buffer contents the model reports once the firmware is dead. */
#define CXFW_HEALTH_SEVERITY_CRIT	2	/* syslog-style level: critical */
#define CXFW_HEALTH_SYND_FW_INTERNAL	0x01	/* used when a fatal is injected with synd 0 */

/* Resource limits (also reported in the capabilities). */
#define CXFW_LOG_MAX_EQ		5			/* 32 EQs */
#define CXFW_MAX_EQS		(1u << CXFW_LOG_MAX_EQ)
#define CXFW_LOG_MAX_EQ_SZ	16			/* 65536 EQEs */
#define CXFW_MAX_LOG_PAGE_SIZE	18			/* queue pages up to 1 GiB (4 KiB << 18) */
#define CXFW_UAR_BASE		((uint64_t)CXIB_FIRST_UAR_INDEX << CXIB_ADAPTER_PAGE_SHIFT)
#define CXFW_NUM_UAR_PAGES	(CXIB_BAR0_SIZE >> CXIB_ADAPTER_PAGE_SHIFT)
#define CXFW_PKEY_TABLE_LEN	128
#define CXFW_GID_TABLE_LEN	8
#define CXFW_PORT_EVENTS	16			/* pending port change events */

/* Default GID prefix (link local) until an SM sets another. */
#define CXFW_DEFAULT_GID_PREFIX	0xfe80000000000000ull

/* Largest input or output the command engine accepts: 1 MiB (2048 mailboxes). */
#define CXFW_CMD_MAX_LEN	(1u << 20)

/*
 * Syndromes are opaque to the driver, which prints them.  The model's are class << 24 |
 * detail (usually the offending value), so a log line tells which check failed.
 */
enum {
	CXFW_SYND_BAD_OPCODE	= 0x0b,	/* detail: opcode */
	CXFW_SYND_BAD_OP_MOD	= 0x0c,	/* detail: op_mod */
	CXFW_SYND_BAD_STATE	= 0x0d,	/* detail: HCA state */
	CXFW_SYND_BAD_UID	= 0x0e,	/* detail: uid */
	CXFW_SYND_BAD_PARAM	= 0x10,	/* detail: the offending value */
	CXFW_SYND_RESERVED	= 0x11,	/* detail: dword index of a non-zero reserved field */
	CXFW_SYND_BAD_INDEX	= 0x12,	/* detail: the index */
	CXFW_SYND_BAD_RES	= 0x13,	/* detail: the resource number */
	CXFW_SYND_RES_BUSY	= 0x14,	/* detail: the resource number */
	CXFW_SYND_NO_RES	= 0x15,	/* detail: 0 */
	CXFW_SYND_PAGES		= 0x16,	/* detail: page count still missing */
	CXFW_SYND_BAD_PAGE	= 0x17,	/* detail: entry index of the bad page address */
	CXFW_SYND_BAD_INLEN	= 0x1e,	/* detail: input_length (saturated) */
	CXFW_SYND_BAD_OUTLEN	= 0x1f,	/* detail: output_length (saturated) */
};

#define CXFW_SYND(cls, detail)	((uint32_t)(cls) << 24 | ((uint32_t)(detail) & 0xffffff))

#if defined(__GNUC__)
#define CXFW_PRINTF(f, a)	__attribute__((format(printf, f, a)))
#else
#define CXFW_PRINTF(f, a)
#endif

/* HCA function state, driven by ENABLE_HCA / INIT_HCA / TEARDOWN_HCA / DISABLE_HCA. */
enum cxfw_hca_state {
	CXFW_HCA_DISABLED	= 0,	/* power-on; only ENABLE_HCA and NOP */
	CXFW_HCA_ENABLED	= 1,	/* after ENABLE_HCA: ISSI, pages, caps, INIT_HCA */
	CXFW_HCA_INITIALIZED	= 2,	/* after INIT_HCA: resources */
	CXFW_HCA_TORN_DOWN	= 3,	/* after TEARDOWN_HCA: page reclaim, DISABLE_HCA */
	CXFW_HCA_NUM_STATES
};

#define CXFW_ST(s)		(1u << (s))
#define CXFW_ST_ANY		((1u << CXFW_HCA_NUM_STATES) - 1)

/* One event queue. */
struct cxfw_eq {
	bool valid;
	uint64_t serial;		/* creation number, never reused */
	uint8_t log_size;
	uint8_t log_page_size;		/* relative to 4 KiB */
	uint8_t page_offset;		/* 64-byte units */
	bool oi, ec;
	uint32_t uar;
	uint16_t intr;
	uint64_t bitmask[CXIB_CREATE_EQ_EVENT_BITMASK_WORDS];
	uint32_t npas;
	uint64_t *pas;
	uint32_t prod;			/* EQEs written so far */
	uint32_t cons;			/* 24-bit consumer counter from the last doorbell */
	bool armed;
	bool write_failure;		/* an EQE could not be written (eqc status 0xa) */
	bool overrun_logged;
};

/* One port as its SMA and the vport queries see it. */
struct cxfw_port {
	uint8_t state;			/* IB PortState */
	uint8_t phys_state;		/* IB PortPhysicalState */
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl, subnet_timeout;
	uint8_t neighbor_mtu, op_vls;
	uint32_t cap_mask;		/* PortInfo.CapabilityMask (PCAP writes it) */
	uint64_t gid_prefix;
	uint16_t qkey_violations, pkey_violations;
	uint16_t pkeys[CXFW_PKEY_TABLE_LEN];
};

/* A pending port change event. */
struct cxfw_port_event {
	uint8_t port;
	uint8_t subtype;
};

struct cxfw_dev {
	/* Set at creation, read-only afterwards. */
	struct cxfw_config cfg;
	struct cxfw_platform plat;
	uint64_t node_guid;		/* cfg.node_guid or derived from cfg.serial (for the SMA) */
	uint64_t power_on_ns;		/* the internal timer counts from here */
	uint16_t auto_lid;		/* LID auto_activate assigns */
	char node_desc[CXIB_SMP_NODE_DESC_LEN + 1];	/* power-on NodeDescription */

	/*
	 * Protects every field below.  Held only for short critical sections and NEVER across
	 * a platform callback (DMA, MSI-X, log, kick): a DMA may land in our own BAR
	 * (re-entering cxfw_mmio_*), and under QEMU the callbacks may take the BQL.
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

	/* Function state (commands run in the worker; reset with the worker quiesced). */
	enum cxfw_hca_state hca_state;
	uint16_t issi;
	struct cxib_hca_cap cap_max, cap_cur;
	uint8_t host_endianness;
	char cur_node_desc[CXIB_SMP_NODE_DESC_LEN];

	/* Firmware pages the driver gave (pages.c): sorted, no duplicates. */
	uint64_t *pages;
	uint32_t npages;
	bool init_pages_requested;

	/* UAR pages handed out by ALLOC_UAR: bit i = BAR0 page i. */
	uint64_t uar_map[CXFW_NUM_UAR_PAGES / 64];

	/* Event queues (eq.c). */
	struct cxfw_eq eqs[CXFW_MAX_EQS];
	uint64_t eq_serial;

	/* Ports (port.c), index port - 1. */
	struct cxfw_port ports[CXFW_MAX_PORTS];
	struct cxfw_port_event port_events[CXFW_PORT_EVENTS];
	unsigned int port_ev_head, port_ev_count;
};

/* One command being executed (cmd.c builds it, the handlers read and fill it). */
struct cxfw_cmd {
	unsigned int slot;
	uint16_t opcode;
	uint16_t op_mod;
	uint32_t inlen, outlen;
	const __be32 *in;		/* inlen bytes: the whole input */
	__be32 *out;			/* outlen bytes, zeroed before execution */
	uint32_t syndrome;
};

/* Byte pointers into a command's input / output. */
static inline const uint8_t *cxfw_in_bytes(const struct cxfw_cmd *cmd, uint32_t off)
{
	return (const uint8_t *)cmd->in + off;
}

static inline uint8_t *cxfw_out_bytes(struct cxfw_cmd *cmd, uint32_t off)
{
	return (uint8_t *)cmd->out + off;
}

/* Set the syndrome and return @status: "return cxfw_fail(cmd, ST, SYND(...));" */
static inline uint8_t cxfw_fail(struct cxfw_cmd *cmd, uint8_t status, uint32_t syndrome)
{
	cmd->syndrome = syndrome;
	return status;
}

/* core.c */
void cxfw_log(struct cxfw_dev *dev, enum cxfw_log_level level, const char *fmt, ...)
	CXFW_PRINTF(3, 4);
uint64_t cxfw_now(struct cxfw_dev *dev);
void cxfw_stat_add(struct cxfw_dev *dev, uint64_t *counter, uint64_t n);
void cxfw_function_reset(struct cxfw_dev *dev, const char *why);

/* iseg.c (lock held) */
uint32_t cxfw_iseg_health_counter(const struct cxfw_dev *dev, uint64_t now);
uint64_t cxfw_iseg_cmdq_base(const struct cxfw_dev *dev);

/* cmd.c */
void cxfw_cmd_process(struct cxfw_dev *dev);
bool cxfw_cmd_checksums(struct cxfw_dev *dev);

/* hca.c */
void cxfw_hca_caps_init(struct cxfw_dev *dev);
uint8_t cxfw_cmd_enable_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_disable_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_issi(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_set_issi(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_cap(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_set_hca_cap(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_init_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_teardown_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_adapter(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_alloc_uar(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_dealloc_uar(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_nop(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
bool cxfw_uar_allocated(const struct cxfw_dev *dev, uint32_t uar);	/* lock held */
void cxfw_hca_release_resources(struct cxfw_dev *dev);		/* lock held */

/* pages.c */
uint8_t cxfw_cmd_query_pages(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_manage_pages(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint32_t cxfw_pages_needed(const struct cxfw_dev *dev);		/* lock held */
void cxfw_pages_drop(struct cxfw_dev *dev, const char *when);	/* lock not held */

/* eq.c */
uint8_t cxfw_cmd_create_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint64_t cxfw_eq_subscriber(struct cxfw_dev *dev, unsigned int type);
void cxfw_eq_post(struct cxfw_dev *dev, uint64_t serial, unsigned int type,
		  unsigned int sub_type, const uint32_t data[7]);
void cxfw_eq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t off, uint32_t val);
void cxfw_eq_destroy_all(struct cxfw_dev *dev);			/* lock held */

/* port.c */
void cxfw_ports_init(struct cxfw_dev *dev);				/* lock held */
bool cxfw_port_link_locked(struct cxfw_dev *dev, unsigned int port, bool up);	/* lock held */
void cxfw_port_process(struct cxfw_dev *dev);
uint8_t cxfw_cmd_access_reg(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_vport_context(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_vport_gid(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_vport_pkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_vport_state(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint64_t cxfw_port_guid(const struct cxfw_dev *dev, unsigned int port);

/* sma.c */
uint8_t cxfw_cmd_mad_ifc(struct cxfw_dev *dev, struct cxfw_cmd *cmd);

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
