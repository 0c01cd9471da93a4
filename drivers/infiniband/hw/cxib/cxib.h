/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: InfiniBand HCA driver for ConnectX-class (mlx5 PRM) adapters.
 *
 * The device: the per-function structure and what brings it up, watches it and registers
 * it: the initialization segment (iseg.c), capabilities (fw.c), firmware pages (pages.c),
 * EQs and MSI-X (eq.c), health (health.c), the ports' MADs and statistics (mad.c,
 * counters.c), firmware initialization (hca.c), the InfiniBand device (ib.c) and probe
 * (main.c).  The driver's files include this header alone; it includes the others:
 * cxib_cmd.h (the command layer), cxib_verbs.h (the verbs objects) and cxib_user.h (what
 * user space reaches).
 *
 * Prototypes inside #if IS_ENABLED(CONFIG_KUNIT) are of functions that only the KUnit
 * suites call from outside their file: VISIBLE_IF_KUNIT (<kunit/visibility.h>) makes them
 * static in a kernel without KUnit.
 */
#ifndef _CXIB_H
#define _CXIB_H

#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <cxib/cmd.h>
#include <cxib/eq.h>
#include <cxib/hw.h>
#include <cxib/ipoib.h>
#include <cxib/mad.h>
#include <cxib/verbs.h>
#include <cxib/wqe.h>

#include "compat.h"
#include "cxib_cmd.h"
#include "cxib_user.h"
#include "cxib_verbs.h"

struct cxib_dev;

/* Match any programming interface of the InfiniBand network controller class. */
#define CXIB_PCI_CLASS_MASK		0xffff00

/* Firmware start-up wait (PRM §1.4): default limit, poll period, progress report period. */
#define CXIB_FW_INIT_TIMEOUT_MS		120000
#define CXIB_FW_INIT_POLL_MS		10
#define CXIB_FW_INIT_REPORT_MS		20000

/**
 * struct cxib_fw_rev - firmware revision as read from the initialization segment
 * @major: fw_rev_major
 * @minor: fw_rev_minor
 * @subminor: fw_rev_subminor
 */
struct cxib_fw_rev {
	u16 major;
	u16 minor;
	u16 subminor;
};

/* ---- Capabilities (fw.c) --------------------------------------------------------------- */

/* What cxib writes with SET_HCA_CAP (PRM §4.1 step 10). */
#define CXIB_PROFILE_LOG_MAX_QP		18	/* at most 2^18 QPs */
#define CXIB_PROFILE_PKEY_TABLE_SIZE	0	/* 128 P_Keys */

/**
 * struct cxib_caps - the general device capabilities the driver uses
 * @port_type: CXIB_CAP_PORT_TYPE_*; cxib drives InfiniBand ports only
 * @num_ports: physical ports
 * @page_request_disable: the firmware never asks for pages at run time (no pages EQ)
 * @ib_virt: port attributes come from HCA vport commands rather than MAD_IFC
 * @rc: RC transport
 * @uc: UC transport
 * @ud: UD transport
 * @xrc: XRC transport
 * @atomic: atomic operations (with the ATOMIC capabilities)
 * @bf: BlueFlame registers in UAR pages
 * @log_max_qp: log2 of the number of QPs
 * @log_max_qp_sz: log2 of the number of WQEs in a work queue
 * @log_max_srq: log2 of the number of SRQs
 * @log_max_srq_sz: log2 of the number of WQEs in an SRQ
 * @log_max_cq: log2 of the number of CQs
 * @log_max_cq_sz: log2 of the number of CQEs in a CQ
 * @log_max_eq: log2 of the number of EQs (when @max_num_eqs is 0)
 * @log_max_eq_sz: log2 of the number of EQEs in an EQ
 * @log_max_mkey: log2 of the number of memory keys
 * @log_max_pd: log2 of the number of PDs
 * @log_max_xrcd: log2 of the number of XRC domains
 * @log_max_mrw_sz: log2 of the largest memory region
 * @log_max_klm_list_size: log2 of the longest fast-registration page list
 * @log_max_ra_req_qp: log2 of the RDMA reads/atomics a QP may have outstanding
 * @log_max_ra_res_qp: log2 of the RDMA reads/atomics a QP answers at once
 * @log_max_msg: log2 of the largest message
 * @log_max_mcg: log2 of the number of multicast groups
 * @log_pg_sz: log2 of the smallest page size the device maps
 * @log_bf_reg_size: log2 of the size of a BlueFlame register
 * @local_ca_ack_delay: local CA ACK delay (IB encoding)
 * @cqe_version: CQE format version
 * @gid_table_size: GID table length, encoded (8 << n entries)
 * @pkey_table_size: P_Key table length, encoded (128 << n entries)
 * @max_num_eqs: number of EQs, when non-zero
 * @max_wqe_sz_sq: largest send WQE in bytes
 * @max_wqe_sz_rq: largest receive WQE in bytes
 * @max_qp_mcg: QPs per multicast group
 * @ipoib_offloads: UD QPs may carry IPoIB with checksum offload and LSO
 * @cq_moderation: CQs take MODIFY_CQ's event moderation (cq_period, cq_max_count)
 * @umr_ext_xlt_offset: a UMR's translation offset has bits 47:16 (xlt_offset_47_16), not
 *	just 16 bits of octowords
 * @umr_fixed_entity_size: a UMR cannot change a key's page size
 *	(umr_modify_entity_size_disabled), so IB_WR_REG_MR cannot work: no fast registration
 */
struct cxib_caps {
	u8 port_type;
	u8 num_ports;
	bool page_request_disable;
	bool ib_virt;
	bool rc;
	bool uc;
	bool ud;
	bool xrc;
	bool atomic;
	bool bf;
	bool cq_moderation;
	bool ipoib_offloads;
	bool umr_ext_xlt_offset;
	bool umr_fixed_entity_size;
	u8 log_max_qp;
	u8 log_max_qp_sz;
	u8 log_max_srq;
	u8 log_max_srq_sz;
	u8 log_max_cq;
	u8 log_max_cq_sz;
	u8 log_max_eq;
	u8 log_max_eq_sz;
	u8 log_max_mkey;
	u8 log_max_pd;
	u8 log_max_xrcd;
	u8 log_max_mrw_sz;
	u8 log_max_klm_list_size;
	u8 log_max_ra_req_qp;
	u8 log_max_ra_res_qp;
	u8 log_max_msg;
	u8 log_max_mcg;
	u8 log_pg_sz;
	u8 log_bf_reg_size;
	u8 local_ca_ack_delay;
	u8 cqe_version;
	u8 gid_table_size;
	u16 pkey_table_size;
	u16 max_num_eqs;
	u16 max_wqe_sz_sq;
	u16 max_wqe_sz_rq;
	u32 max_qp_mcg;
};

/* fw.c: capabilities */
void cxib_caps_prepare_set(struct cxib_hca_cap *set, const struct cxib_hca_cap *cur,
			   const struct cxib_hca_cap *max);
void cxib_caps_parse(struct cxib_caps *caps, const struct cxib_hca_cap *cap);
unsigned int cxib_caps_max_eqs(const struct cxib_caps *caps);
unsigned int cxib_caps_pkey_table_len(const struct cxib_caps *caps);

/* ---- Firmware pages (pages.c) ------------------------------------------------------------ */

/* Entries of the pages EQ (256: page requests). */
#define CXIB_LOG_PAGES_EQ_SIZE		8
/* Pages per MANAGE_PAGES command: 4 KiB of addresses, nine mailbox blocks. */
#define CXIB_PAGES_PER_CMD		512
/* Page requests that may wait for the worker: as many as the pages EQ holds. */
#define CXIB_PAGE_REQS			BIT(CXIB_LOG_PAGES_EQ_SIZE)

/**
 * struct cxib_page_req - a page request event
 * @func_id: the function asking
 * @npages: pages to give (> 0) or to take back (< 0)
 */
struct cxib_page_req {
	u16 func_id;
	s32 npages;
};

/**
 * struct cxib_pages - memory the firmware borrowed from the host
 * @lock: serialises giving and taking back pages
 * @xa: the pages the firmware holds, by bus address / 4 KiB
 * @npages: number of pages in @xa
 * @wq: ordered workqueue that serves the firmware's page requests
 * @req_work: the worker
 * @req_lock: protects the request ring; taken in hard interrupt context
 * @reqs: ring of page requests waiting for the worker
 * @req_head: oldest request in @reqs
 * @req_count: number of requests in @reqs
 */
struct cxib_pages {
	struct mutex lock;		/* giving and taking pages */
	struct xarray xa;
	u32 npages;
	struct workqueue_struct *wq;
	struct work_struct req_work;
	spinlock_t req_lock;		/* the request ring */
	struct cxib_page_req reqs[CXIB_PAGE_REQS];
	unsigned int req_head;
	unsigned int req_count;
};

/* pages.c: pages lent to the firmware */
int cxib_pages_init(struct cxib_dev *dev);
void cxib_pages_cleanup(struct cxib_dev *dev);
int cxib_pages_supply(struct cxib_dev *dev, u16 op_mod);
int cxib_pages_reclaim(struct cxib_dev *dev);
void cxib_pages_request(struct cxib_dev *dev, u16 func_id, s32 npages);
void cxib_pages_flush_requests(struct cxib_dev *dev);
u32 cxib_pages_count(struct cxib_dev *dev);

/* ---- Event queues and MSI-X (eq.c) ------------------------------------------------------- */

/* Entries per EQ: what may be outstanding, plus a batch of slack as PRM §4.5 suggests. */
#define CXIB_LOG_CMD_EQ_SIZE		8	/* 256: command completions (<= 32) */
#define CXIB_LOG_ASYNC_EQ_SIZE		10	/* 1024: port, QP, CQ and SRQ events */
#define CXIB_LOG_COMP_EQ_SIZE		11	/* 2048: completion events */
/* MSI-X vector of the control EQs (command, async, pages). */
#define CXIB_CTRL_VECTOR		0

/**
 * struct cxib_eq - an event queue
 * @dev: the device
 * @name: what the EQ is for, in log lines and the interrupt's name
 * @lock: serialises consuming the EQ (its interrupt and the first poll after creation)
 * @buf: the EQ's ring, 2^@log_size EQEs in 4 KiB pieces
 * @log_size: log2 of the number of EQEs
 * @eqn: the EQ's number, from CREATE_EQ
 * @cons_index: consumer counter: EQEs consumed since creation
 * @vector: MSI-X vector index the EQ raises
 * @irq: Linux interrupt number of @vector, or 0 while no handler is installed
 * @irq_name: the handler's name in /proc/interrupts
 * @cpu: the CPU a completion EQ's interrupt is pointed at, or -1 (a vector shared with
 *	the control EQs, or the affinity could not be set)
 */
struct cxib_eq {
	struct cxib_dev *dev;
	const char *name;
	spinlock_t lock;		/* consuming the EQ */
	struct cxib_frag_buf buf;
	u8 log_size;
	u8 eqn;
	u32 cons_index;
	u16 vector;
	int irq;
	char irq_name[32];
	int cpu;
};

/**
 * struct cxib_eq_table - the device's EQs
 * @cmd: command completions; created first and destroyed last
 * @async: asynchronous events (port changes, QP/CQ/SRQ errors)
 * @pages: firmware page requests (unless the device has page_request_disable)
 * @comp: one completion EQ per completion vector
 * @num_comp: number of completion EQs (ib_device.num_comp_vectors)
 * @nvec: MSI-X vectors allocated
 */
struct cxib_eq_table {
	struct cxib_eq cmd;
	struct cxib_eq async;
	struct cxib_eq pages;
	struct cxib_eq *comp;
	unsigned int num_comp;
	unsigned int nvec;
};

/* eq.c: event queues and MSI-X */
int cxib_eqs_init(struct cxib_dev *dev);
const struct cpumask *cxib_get_vector_affinity(struct ib_device *ibdev, int comp_vector);
void cxib_eqs_cleanup(struct cxib_dev *dev);
void cxib_eqs_sync_async(struct cxib_dev *dev);
void cxib_ib_dispatch_port_event(struct cxib_dev *dev, u32 port, enum ib_event_type type);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_port_event_type(u8 sub_type);
#endif

/* ---- Health (health.c) --------------------------------------------------------------------- */

#define CXIB_HEALTH_POLL_MS		2000
/* A function failing again this soon after its recovery is left dead (mlx5: 60 s for a PF). */
#define CXIB_RECOVERY_GRACE_MS		60000
/* Polls without the health counter moving before the firmware counts as stuck. */
#define CXIB_HEALTH_STUCK_POLLS		3

/**
 * struct cxib_health - firmware health monitoring
 * @work: the poll, every CXIB_HEALTH_POLL_MS
 * @last_counter: health counter at the previous poll
 * @stuck_polls: consecutive polls that saw the same counter
 * @stuck_reported: the stuck counter has been reported and has not moved since
 * @lock: protects @running against a poll queued while polling stops
 * @running: polling is on: the poll may be queued
 */
struct cxib_health {
	struct delayed_work work;
	spinlock_t lock;		/* @running */
	bool running;
	u32 last_counter;
	unsigned int stuck_polls;
	bool stuck_reported;
};

/* health.c: firmware health */
void cxib_health_start(struct cxib_dev *dev);
void cxib_health_stop(struct cxib_dev *dev);
void cxib_health_cmd_timeout(struct cxib_dev *dev);
bool cxib_dev_fatal(struct cxib_dev *dev, const char *reason);

/* main.c: recovery, once the device is dead (a new probe of the function after a reset) */
struct cxib_recovery;
void cxib_recover(struct cxib_dev *dev);
#if IS_ENABLED(CONFIG_KUNIT)
const char *cxib_health_fatal_reason(u32 fw_ver, u32 cmdq_addr_l, u32 rfr, u32 synd);
#endif

/* ---- Ports: management datagrams, statistics (mad.c, counters.c) --------------------- */

/* IB ports cxib registers (port 1 of the function; the firmware may have more). */
#define CXIB_IB_PORTS		1

/**
 * struct cxib_port_sm - a port's master SM, as the driver last saw it
 * @lid: PortInfo.MasterSMLID
 * @sl: PortInfo.MasterSMSL
 */
struct cxib_port_sm {
	u16 lid;
	u8 sl;
};

/* mad.c: the firmware's subnet management agent */
int cxib_mad_query(struct cxib_dev *dev, u8 port, u16 attr_id, u32 attr_mod, void *data);
void cxib_mad_port_info_to_attr(const void *pi, struct ib_port_attr *attr);
u16 cxib_mad_pkey_from_table(const void *blk, unsigned int i);
__be64 cxib_mad_guid_from_info(const void *blk, unsigned int i);
int cxib_mad_query_node(struct cxib_dev *dev);
#if IS_ENABLED(CONFIG_KUNIT)
void cxib_mad_build_subn_get(struct cxib_smp *smp, u16 attr_id, u32 attr_mod);
int cxib_mad_check_response(const struct cxib_smp *smp, u16 attr_id);
#endif

/**
 * enum cxib_mad_route - what cxib_process_mad() does with a MAD (cxib_mad_route())
 * @CXIB_MAD_ROUTE_PASS: not for the firmware: IB_MAD_RESULT_SUCCESS alone, so that ib_mad
 *	hands it to the agent registered for it (opensm, the SA client, the CM, ...)
 * @CXIB_MAD_ROUTE_CONSUME: drop it, no reply (a trap generated locally)
 * @CXIB_MAD_ROUTE_FW: MAD_IFC, and send the firmware's response back
 * @CXIB_MAD_ROUTE_FW_CONSUME: MAD_IFC, and send nothing back (TrapRepress)
 */
enum cxib_mad_route {
	CXIB_MAD_ROUTE_PASS,
	CXIB_MAD_ROUTE_CONSUME,
	CXIB_MAD_ROUTE_FW,
	CXIB_MAD_ROUTE_FW_CONSUME,
};

int cxib_mad_sm_init(struct cxib_dev *dev);
int cxib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in_mad, struct ib_mad *out_mad, size_t *out_mad_size,
		     u16 *out_mad_pkey_index);
#if IS_ENABLED(CONFIG_KUNIT)
enum cxib_mad_route cxib_mad_route(u8 mgmt_class, u8 method, u16 attr_id, u16 slid,
				   bool have_wc);
bool cxib_mad_snoop_sm(const struct cxib_smp *req, const struct cxib_smp *resp, u32 port,
		       struct cxib_port_sm *sm);
#endif

/* counters.c: port statistics (Q counters) */
#define CXIB_NUM_Q_COUNTERS	20
int cxib_counters_init(struct cxib_dev *dev);
void cxib_counters_cleanup(struct cxib_dev *dev);
#if IS_ENABLED(CONFIG_KUNIT)
extern const struct rdma_stat_desc cxib_q_counter_descs[];
extern const u8 cxib_q_counter_dws[];
#endif

/* ---- The device ---------------------------------------------------------------------- */

/* Bits of cxib_dev.flags. */
enum {
	CXIB_DEV_DEAD,		/* fatal firmware condition: commands fail at once */
	CXIB_DEV_CMD_TIMEOUT,	/* a command timed out: the health poll declares it dead */
	CXIB_DEV_RECOVERING,	/* recovery asked for (or refused): once per device */
	CXIB_DEV_IB_ACTIVE,	/* registered with the RDMA core: events are dispatched */
};

/**
 * struct cxib_dev - one cxib PCI function
 * @ibdev: the InfiniBand device; first, as ib_alloc_device() requires
 * @pdev: the PCI function
 * @flags: CXIB_DEV_* bits
 * @iseg: BAR0 mapping of the initialization segment, CXIB_ISEG_SIZE bytes
 * @fw_rev: firmware revision, valid once the firmware has finished initializing
 * @cmdif_rev: command interface revision the firmware speaks
 * @cmdq: the command queue
 * @health: firmware health monitoring
 * @recovery: the device's recovery, allocated at probe; a recovery under way owns it
 * @issi: interface step sequence ID in use (CXIB_ISSI_*)
 * @caps: general capabilities after INIT_HCA
 * @board_id: the adapter's PSID, from QUERY_ADAPTER
 * @vendor_id: IEEE vendor ID, from QUERY_ADAPTER
 * @pages: pages lent to the firmware
 * @uar: index of the driver's UAR page (EQ, CQ and SQ doorbells)
 * @uar_map: mapping of that page
 * @bf_lock: serialises the SQ doorbells on BlueFlame register 0 of @uar (every kernel QP)
 * @bf_offset: the half of that register the next doorbell writes (alternates)
 * @eqt: the event queues
 * @cqs: the CQs by number, for the EQ handlers; its lock is taken in hard interrupt
 *	context (XA_FLAGS_LOCK_IRQ)
 * @qps: the QPs by device QP number, for the EQ handlers and the CQ pollers; its lock is
 *	taken in hard interrupt context (XA_FLAGS_LOCK_IRQ)
 * @srqs: the SRQs by number, for the EQ handlers and the CQ poller; its lock is taken in
 *	hard interrupt context (XA_FLAGS_LOCK_IRQ)
 * @dbr_pool: DMA pool of doorbell records (struct cxib_dbr)
 * @mkey_variant: the variant byte of the last memory key created
 * @umr: the driver's UMR QP (umr.c), which loads translation tables too large for one
 *	command
 * @sys_image_guid: system image GUID, from NodeInfo
 * @port_lock: serialises changes to the port capability mask
 * @sm_lock: protects @port_sm; taken in process context only, never around a command
 * @port_sm: per port (index port - 1), the master SM last seen: read from PortInfo at
 *	registration, then updated by cxib_process_mad() from the SubnSet(PortInfo)
 *	responses it passes back (the snoop behind IB_EVENT_SM_CHANGE)
 * @q_counter: the Q counter set (ALLOC_Q_COUNTER) behind the port statistics
 * @q_counter_valid: @q_counter is allocated
 *
 * Probe runs in two phases: hardware bring-up (cxib_hw_init()) and then registration
 * with the RDMA core (cxib_ib_register()).
 */
struct cxib_dev {
	/* The RDMA core's device and the PCI function (main.c, ib.c) */
	struct ib_device ibdev;
	struct pci_dev *pdev;
	unsigned long flags;

	/* Firmware: init segment, commands, health, identity (iseg.c, cmd.c, health.c, hca.c) */
	void __iomem *iseg;
	struct cxib_fw_rev fw_rev;
	u16 cmdif_rev;
	struct cxib_cmdq cmdq;
	struct cxib_health health;
	struct cxib_recovery *recovery;
	u16 issi;
	struct cxib_caps caps;
	char board_id[CXIB_QUERY_ADAPTER_PSID_LEN + 1];
	u32 vendor_id;

	/* Memory lent to the firmware (pages.c) */
	struct cxib_pages pages;

	/* The driver's UAR page and its doorbells (main.c, eq.c, cq.c, wr.c) */
	u32 uar;
	void __iomem *uar_map;
	spinlock_t bf_lock;		/* SQ doorbells (BlueFlame register 0) */
	u32 bf_offset;

	/* Event queues and MSI-X (eq.c) */
	struct cxib_eq_table eqt;

	/* Verbs resources: object tables, doorbell records, keys, UMR QP (buf.c, mr.c, umr.c) */
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	struct dma_pool *dbr_pool;
	atomic_t mkey_variant;
	struct cxib_umr umr;

	/* Ports: identity, capability mask, master SM, statistics (ib.c, mad.c, counters.c) */
	__be64 sys_image_guid;
	struct mutex port_lock;		/* port capability mask changes */
	spinlock_t sm_lock;		/* port_sm */
	struct cxib_port_sm port_sm[CXIB_IB_PORTS];
	u16 q_counter;
	bool q_counter_valid;
};

static inline struct cxib_dev *to_cxib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct cxib_dev, ibdev);
}

static inline bool cxib_dev_dead(const struct cxib_dev *dev)
{
	return test_bit(CXIB_DEV_DEAD, &dev->flags);
}

/**
 * cxib_uar_in_bar() - whether a UAR index the firmware handed out lies inside BAR0
 * @dev: the device
 * @uar: the UAR index
 *
 * Return: true if the UAR's 4 KiB page is within BAR0 and past the initialization segment.
 */
static inline bool cxib_uar_in_bar(const struct cxib_dev *dev, u32 uar)
{
	return uar >= CXIB_FIRST_UAR_INDEX &&
	       ((u64)uar + 1) * CXIB_ADAPTER_PAGE_SIZE <= pci_resource_len(dev->pdev, CXIB_BAR0);
}

/**
 * cxib_iseg_read() - read one dword of the initialization segment
 * @dev: the device
 * @offset: byte offset of the dword, e.g. CXIB_OFFSET(CXIB_ISEG_CMDIF_REV)
 *
 * The segment is big-endian, like everything the device exposes.
 *
 * Return: the dword in host order, ready for CXIB_FIELD_GET().
 */
static inline u32 cxib_iseg_read(const struct cxib_dev *dev, unsigned int offset)
{
	return ioread32be(dev->iseg + offset);
}

/**
 * cxib_iseg_write() - write one dword of the initialization segment
 * @dev: the device
 * @offset: byte offset of the dword
 * @v: the value in host order
 */
static inline void cxib_iseg_write(const struct cxib_dev *dev, unsigned int offset, u32 v)
{
	iowrite32be(v, dev->iseg + offset);
}

/* iseg.c: the initialization segment */
int cxib_iseg_check(struct cxib_dev *dev);
int cxib_iseg_wait_ready(struct cxib_dev *dev, unsigned int timeout_ms);
void cxib_iseg_read_fw_rev(struct cxib_dev *dev);

/* hca.c: firmware initialization and teardown */
int cxib_hca_init(struct cxib_dev *dev);
void cxib_hca_cleanup(struct cxib_dev *dev);

/* ib.c: the InfiniBand device */
int cxib_ib_register(struct cxib_dev *dev);
void cxib_ib_unregister(struct cxib_dev *dev);

#endif /* _CXIB_H */
