/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: InfiniBand HCA driver for ConnectX-class (mlx5 PRM) adapters.
 *
 * Driver-wide definitions: the per-function device structure and the interfaces
 * between the files of the driver.
 */
#ifndef _CXIB_H
#define _CXIB_H

#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/semaphore.h>
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

/* ---- Queue buffers (buf.c) --------------------------------------------------------------- */

/**
 * struct cxib_frag_buf - a queue buffer the device reads or writes, in 4 KiB pieces
 * @bufs: CPU addresses of the pieces
 * @dma: their bus addresses, the PAS list of the queue's create command
 * @npages: number of pieces
 *
 * The pieces are separate coherent allocations, so a large queue needs no contiguous
 * memory; an entry never straddles two pieces (entries are powers of two up to 4 KiB).
 */
struct cxib_frag_buf {
	void **bufs;
	dma_addr_t *dma;
	unsigned int npages;
};

/**
 * cxib_frag_buf_entry() - address of entry @idx of a buffer of equal-sized entries
 * @buf: the buffer
 * @idx: entry index, already masked to the queue size
 * @log_stride: log2 of the entry size, at most 12
 *
 * Return: the CPU address of the entry.
 */
static inline void *cxib_frag_buf_entry(const struct cxib_frag_buf *buf, u32 idx,
					unsigned int log_stride)
{
	u32 off = idx << log_stride;

	return buf->bufs[off >> CXIB_ADAPTER_PAGE_SHIFT] +
	       (off & (CXIB_ADAPTER_PAGE_SIZE - 1));
}

/**
 * struct cxib_dbr - a doorbell record: 64 bytes of coherent memory the device reads
 * @db: CPU address; dword 0 and 1 are what the queue type defines (a CQ's set_ci, arm_db)
 * @dma: bus address, written to the queue's context (dbr_addr)
 */
struct cxib_dbr {
	__be32 *db;
	dma_addr_t dma;
};

/**
 * struct cxib_obj_ref - how an object of a device table (CQ, QP, SRQ) outlives the event
 *	handlers that found it there
 * @refs: the table's reference and one per event handler running for the object
 * @free: completed when the last reference goes, so destroy can free the object
 *
 * Event handlers take a reference with cxib_obj_get() and drop it with cxib_obj_put();
 * destroy takes the object out of its table, then drops the table's reference and waits
 * with cxib_obj_put_wait().
 */
struct cxib_obj_ref {
	refcount_t refs;
	struct completion free;
};

/* A new object's reference: the one its table will hold. */
static inline void cxib_obj_ref_init(struct cxib_obj_ref *ref)
{
	refcount_set(&ref->refs, 1);
	init_completion(&ref->free);
}

/* Drop a reference from cxib_obj_get(), or the table's. */
static inline void cxib_obj_put(struct cxib_obj_ref *ref)
{
	if (refcount_dec_and_test(&ref->refs))
		complete(&ref->free);
}

/* Drop the table's reference and wait until no event handler uses the object.  Sleeps. */
static inline void cxib_obj_put_wait(struct cxib_obj_ref *ref)
{
	cxib_obj_put(ref);
	wait_for_completion(&ref->free);
}

void *__cxib_obj_get(struct xarray *xa, unsigned long idx, size_t ref_off);

/*
 * cxib_obj_get() - a reference to the @type (struct cxib_cq, ...) numbered @idx in the
 * table @xa, or NULL; any context.  The object's struct cxib_obj_ref is its member "ref".
 */
#define cxib_obj_get(xa, idx, type)					\
	((type *)__cxib_obj_get(xa, idx, offsetof(type, ref)))

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

/* ---- Health (health.c) --------------------------------------------------------------------- */

#define CXIB_HEALTH_POLL_MS		2000
/* Polls without the health counter moving before the firmware counts as stuck. */
#define CXIB_HEALTH_STUCK_POLLS		3

/**
 * struct cxib_health - firmware health monitoring
 * @work: the poll, every CXIB_HEALTH_POLL_MS
 * @last_counter: health counter at the previous poll
 * @stuck_polls: consecutive polls that saw the same counter
 * @stuck_reported: the stuck counter has been reported and has not moved since
 */
struct cxib_health {
	struct delayed_work work;
	u32 last_counter;
	unsigned int stuck_polls;
	bool stuck_reported;
};

/* ---- User queues and user memory (umem.c, uverbs.c) -------------------------------------- */

/* The user index of a QP when the context uses CQE version 0 (libmlx5 sends it then). */
#define CXIB_UIDX_NONE			0xffffff

/**
 * struct cxib_udb_page - a user page holding doorbell records, pinned for the device
 * @list: on cxib_ucontext.db_pages
 * @user_page: user virtual address of the page
 * @umem: the pinned page
 * @refcnt: queues of the context whose doorbell record lies in the page (under db_lock)
 *
 * libmlx5 packs the doorbell records of a context's queues into shared pages; each page is
 * pinned once, however many queues use it.
 */
struct cxib_udb_page {
	struct list_head list;
	unsigned long user_page;
	struct ib_umem *umem;
	unsigned int refcnt;
};

/**
 * struct cxib_uq - the user memory of a user CQ, QP or SRQ
 * @uctx: the user context the queue belongs to
 * @umem: the queue buffer, pinned
 * @pas: the create command's PAS list: bus addresses of the buffer's 4 KiB pages
 * @npas: number of entries in @pas
 * @db_page: the pinned page holding the queue's doorbell record
 * @db_dma: bus address of the doorbell record (the context's dbr_addr)
 * @uar: the firmware UAR whose doorbells the queue's owner rings
 * @uidx: the user index libmlx5 chose (CQE version 1), else CXIB_UIDX_NONE
 * @page_offset: where the buffer starts in its first page, in the context's page_offset
 *	units (64 bytes): libmlx5's buffers from a parent domain's allocator are only
 *	aligned to the queue's stride
 *
 * The queue object's buf.dma / buf.npages and dbr.dma are set to @pas / @npas and @db_dma,
 * so that the kernel-object code builds its commands unchanged; buf.bufs and dbr.db stay
 * NULL: the kernel never reads or writes a user queue's memory.  Freed with cxib_uq_free().
 */
struct cxib_uq {
	struct cxib_ucontext *uctx;
	struct ib_umem *umem;
	dma_addr_t *pas;
	u32 npas;
	struct cxib_udb_page *db_page;
	dma_addr_t db_dma;
	u32 uar;
	u32 uidx;
	u8 page_offset;
};

/**
 * struct cxib_uq_req - where libmlx5 put a user queue, from its create request
 * @buf_addr: user virtual address of the queue buffer
 * @db_addr: user virtual address of the doorbell record
 * @uidx: the user index (CQE version 1), else CXIB_UIDX_NONE
 */
struct cxib_uq_req {
	u64 buf_addr;
	u64 db_addr;
	u32 uidx;
};

/* ---- Verbs objects (pd.c, mr.c, cq.c) ------------------------------------------------------- */

/**
 * struct cxib_pd - a protection domain
 * @ibpd: the RDMA core's PD; first, as INIT_RDMA_OBJ_SIZE requires
 * @pdn: the PD number, from ALLOC_PD
 */
struct cxib_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct cxib_pd *to_cxib_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct cxib_pd, ibpd);
}

/**
 * struct cxib_mr - a memory region (memory key)
 * @ibmr: the RDMA core's MR; first (ib_mr is allocated by the driver).  For a
 *	fast-registration MR, ib_map_mr_sg() sets @ibmr.iova, @ibmr.length and
 *	@ibmr.page_size (= 1 << @page_shift)
 * @mkey_index: the key's index, from CREATE_MKEY; the key is index << 8 | variant
 * @pl: fast-registration MRs (alloc_mr) only, else NULL: the translation list, @max_pages
 *	big-endian 8-byte MTT entries (page bus addresses) in coherent memory; the
 *	IB_WR_REG_MR UMR WQE points the device at it (not inline)
 * @pl_dma: bus address of @pl, CXIB_MR_PL_ALIGN aligned
 * @max_pages: capacity of @pl in entries: max_num_sg rounded up to CXIB_MR_PL_ALIGN / 8
 *	(the key's translations_octword_size is @max_pages / CXIB_MTT_PER_OCTWORD)
 * @npages: entries filled by the last map_mr_sg (the UMR's translation count; round it up
 *	to whole CXIB_MR_PL_ALIGN blocks for xlt_octowords)
 * @page_shift: log2 of the page size of the last map_mr_sg (the mkey seg log2_page_size)
 * @pd: PD number the key was created in (the UMR's mkey seg pd)
 * @umem: user MRs (reg_user_mr) only, else NULL: the pinned user memory the key maps;
 *	released after the key is destroyed
 */
struct cxib_mr {
	struct ib_mr ibmr;
	u32 mkey_index;
	__be64 *pl;
	dma_addr_t pl_dma;
	u32 max_pages;
	u32 npages;
	u8 page_shift;
	u32 pd;
	struct ib_umem *umem;
};

/* A fast-registration translation list is allocated, and handed to UMRs, in 64-byte blocks. */
#define CXIB_MR_PL_ALIGN		64

static inline struct cxib_mr *to_cxib_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct cxib_mr, ibmr);
}

/**
 * struct cxib_cq - a completion queue
 * @ibcq: the RDMA core's CQ; first, as INIT_RDMA_OBJ_SIZE requires
 * @lock: serialises polling and arming (both may run in any context, concurrently)
 * @buf: 2^@log_size CQEs of CXIB_CQE_SIZE bytes
 * @dbr: doorbell record: dword 0 set_ci, dword 1 the last arm doorbell
 * @cqn: the CQ number, from CREATE_CQ
 * @log_size: log2 of the number of CQEs
 * @cons_index: consumer counter: CQEs consumed since creation (free-running, 24 bits
 *	reach the device)
 * @arm_sn: arm sequence number; advanced by every completion event of the CQ, so the
 *	device can tell an arm issued before the event from one issued after it
 * @eqn: the completion EQ the CQ reports to
 * @ref: the CQ table's reference and those of event handlers running for the CQ
 * @send_qps: QPs whose send queue completes here (cxib_qp.cq_send_node), under @lock;
 *	poll_cq flushes their outstanding WRs in software once the device is dead
 * @recv_qps: likewise for receive queues (cxib_qp.cq_recv_node)
 * @uq: user CQs only, else NULL: the CQ's user memory; the kernel never polls or arms a
 *	user CQ (libmlx5 does both in user space)
 *
 * Lifetime: the CQ is in the device's CQ table (cxib_dev.cqs) from after CREATE_CQ until
 * destroy; event handlers look it up under the table's lock and hold a reference while
 * they call the consumer, and destroy waits for those references after taking it out.
 */
struct cxib_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* polling and arming */
	struct cxib_frag_buf buf;
	struct cxib_dbr dbr;
	u32 cqn;
	u8 log_size;
	u32 cons_index;
	u8 arm_sn;
	u8 eqn;
	struct cxib_obj_ref ref;
	struct list_head send_qps;
	struct list_head recv_qps;
	struct cxib_uq *uq;
};

static inline struct cxib_cq *to_cxib_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct cxib_cq, ibcq);
}

/**
 * struct cxib_srq - a shared receive queue, a kernel or a user one
 * @ibsrq: the RDMA core's SRQ; first, as INIT_RDMA_OBJ_SIZE requires
 * @lock: serialises posting and freeing WQEs (post_srq_recv and the CQ poller)
 * @buf: 2^@log_size WQEs of 2^@log_stride bytes, each a struct cxib_wqe_srq_next_seg
 *	followed by up to @max_gs data segments
 * @dbr: doorbell record: dword 0 the WQE counter (CXIB_SRQ_DB_WQE_COUNTER)
 * @wrid: wr_id of each posted WQE, by WQE index
 * @srqn: the number CREATE_SRQ (ISSI 0) or CREATE_RMP (ISSI 1) returned, which QPs, CQEs
 *	and SRQ events carry
 * @log_size: log2 of the number of WQEs; one WQE always stays on the free list as its
 *	tail, so at most 2^@log_size - 1 receives are posted at once
 * @log_stride: log2 of the WQE size in bytes
 * @max_gs: scatter entries per WQE
 * @head: free list: the next WQE to post into
 * @tail: free list: its last WQE; a freed WQE is linked after it
 * @wqe_ctr: WQEs ever posted (free-running, 16 bits reach the doorbell record)
 * @ref: the SRQ table's reference and those of event handlers running for the SRQ
 * @uq: user SRQs only, else NULL: the SRQ's user memory (libmlx5 posts in user space)
 *
 * The free list is linked through the next_wqe_index of each WQE's next segment, as the
 * device follows it: posting takes @head, a completion (cxib_srq_free_wqe()) appends the
 * WQE after @tail.  Lifetime as for struct cxib_cq (table cxib_dev.srqs).
 */
struct cxib_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;		/* posting and freeing WQEs */
	struct cxib_frag_buf buf;
	struct cxib_dbr dbr;
	u64 *wrid;
	u32 srqn;
	u8 log_size;
	u8 log_stride;
	u32 max_gs;
	u32 head;
	u32 tail;
	u16 wqe_ctr;
	struct cxib_obj_ref ref;
	struct cxib_uq *uq;
};

static inline struct cxib_srq *to_cxib_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct cxib_srq, ibsrq);
}

/* ---- Queue pairs and address handles (qp.c, wr.c, ah.c) --------------------------------- */

/* Bits of cxib_sq_ent.flags. */
enum {
	CXIB_SQE_SIGNALED	= 1 << 0,	/* the WQE asked for a CQE */
};

/**
 * struct cxib_sq_ent - what the driver remembers of a posted send WQE
 * @wr_id: the consumer's wr_id
 * @nbb: WQEBBs the WQE occupies
 * @wc_opcode: the ib_wc_opcode its completion reports (REG_MR and LOCAL_INV both are UMRs)
 * @flags: CXIB_SQE_*
 *
 * Kept at the WQE's first WQEBB index; entries of the other WQEBBs are unused.
 */
struct cxib_sq_ent {
	u64 wr_id;
	u8 nbb;
	u8 wc_opcode;
	u8 flags;
};

/**
 * struct cxib_sq - a QP's send queue
 * @lock: serialises posting (post_send) against itself and against the ring's owner
 *	changing it (modify to RST)
 * @ents: one entry per WQEBB (see struct cxib_sq_ent)
 * @stage: a WQE is built here (CXIB_MAX_WQE_BBS WQEBBs) and then copied into the ring,
 *	wrapping at the ring end as the PRM allows; the BlueFlame copy reads it too
 * @offset: byte offset of the ring in cxib_qp.buf (after the RQ)
 * @log_wqe_cnt: log2 of the number of WQEBBs in the ring; 0 with no SQ
 * @max_wr: WRs that may be outstanding (ib_qp_cap.max_send_wr)
 * @max_gs: gather entries per WR
 * @max_inline: inline bytes per WR
 * @max_wqe_bbs: WQEBBs of the largest WQE this QP can post
 * @head: producer counter in WQEBBs (free-running; 16 bits reach the device)
 * @tail: the first WQEBB not yet completed; advanced by the CQ poller under the send
 *	CQ's lock, read by post_send
 * @wr_head: WRs posted (free-running)
 * @wr_tail: WRs completed or retired; with @wr_head the outstanding count
 * @small_fence: the last WQE was a UMR (REG_MR, LOCAL_INV): the next one waits for it
 *	(initiator small fence)
 */
struct cxib_sq {
	spinlock_t lock;		/* posting */
	struct cxib_sq_ent *ents;
	void *stage;
	u32 offset;
	u8 log_wqe_cnt;
	u32 max_wr;
	u32 max_gs;
	u32 max_inline;
	u32 max_wqe_bbs;
	u32 head;
	u32 tail;
	u32 wr_head;
	u32 wr_tail;
	bool small_fence;
};

/**
 * struct cxib_sq_params - what building a send WQE needs to know of its QP (wr.c)
 * @qpn: the device QP number
 * @type: the QP type (RC, UC, UD, GSI, SMI)
 * @max_gs: gather entries per WR
 * @max_inline: inline bytes per WR
 * @sig_all: every WR is signaled
 * @atomic: the device does atomics
 * @small_fence: the WQE must wait for the UMR before it
 * @local_dma_lkey: the PD's local DMA key (a REG_MR's translation list is read with it)
 * @ipoib: a UD QP with the IPoIB offloads: every WQE has the Ethernet segment, IB_WR_LSO
 *	is allowed
 */
struct cxib_sq_params {
	u32 qpn;
	enum ib_qp_type type;
	u32 max_gs;
	u32 max_inline;
	bool sig_all;
	bool atomic;
	bool small_fence;
	u32 local_dma_lkey;
	bool ipoib;
};

/* The SQ doorbell: the first 8 bytes of the control segment (CXIB_SQ_DB_*). */
#define CXIB_SQ_DB_SIZE			8
/* Largest WQE copied whole through BlueFlame (half of a 512-byte register). */
#define CXIB_SQ_BF_MAX_COPY		256
/* IB static rate (enum ib_rate) to an address's stat_rate: + 5 (0: the port's rate). */
#define CXIB_AV_STAT_RATE_OFFSET	5

/**
 * struct cxib_rq - a QP's receive queue (none when the QP uses an SRQ)
 * @lock: serialises posting
 * @wrid: wr_id of each WQE, by WQE index
 * @log_wqe_cnt: log2 of the number of WQEs; 0 with no RQ
 * @log_stride: log2 of the WQE size in bytes (16 << qpc.log_rq_stride)
 * @max_wr: WRs that may be outstanding (ib_qp_cap.max_recv_wr)
 * @max_gs: scatter entries per WR (one more slot holds the terminator when it fits)
 * @head: WQEs posted (free-running; 16 bits reach the doorbell record)
 * @tail: WQEs completed; advanced by the CQ poller under the receive CQ's lock
 */
struct cxib_rq {
	spinlock_t lock;		/* posting */
	u64 *wrid;
	u8 log_wqe_cnt;
	u8 log_stride;
	u32 max_wr;
	u32 max_gs;
	u32 head;
	u32 tail;
};

/**
 * struct cxib_qp - a queue pair (kernel consumers only)
 * @ibqp: the RDMA core's QP; first, as INIT_RDMA_OBJ_SIZE requires
 * @qpn: the device's QP number (from CREATE_QP); @ibqp.qp_num is 0/1 for SMI/GSI
 * @st: the qpc service type (CXIB_QPC_ST_*)
 * @state: the QP's state as last set by modify_qp (under @mutex; read unlocked by post)
 * @mutex: serialises modify_qp, query_qp and destroy
 * @port: the port (1-based) from the last modify that named one
 * @pkey_index: the P_Key index from the last modify that named one (both travel in every
 *	address path the driver sends, as a path replaces the whole primary path)
 * @sq_sig_all: every send WR is signaled (IB_SIGNAL_ALL_WR)
 * @ipoib: created with IB_QP_CREATE_IPOIB_UD_LSO: every send WQE carries the IPoIB
 *	segments (pad and Ethernet segment: checksum offload, LSO)
 * @buf: the work queue buffer: the RQ at offset 0, then the SQ (PAS list: RQ first)
 * @dbr: doorbell record: dword 0 receive counter, dword 1 send counter
 * @sq: the send queue
 * @rq: the receive queue
 * @srq: the SRQ the QP receives from, or NULL (DRES's struct cxib_srq)
 * @send_cq: the CQ of the send queue
 * @recv_cq: the CQ of the receive queue
 * @cq_send_node: on @send_cq->send_qps
 * @cq_recv_node: on @recv_cq->recv_qps
 * @ref: the QP table's reference and those of event handlers running for the QP
 * @uq: user QPs only, else NULL: the QP's user memory; libmlx5 posts and resets the work
 *	queues and cleans the CQs in user space, so the kernel leaves @sq/@rq heads alone
 *
 * Lifetime as for struct cxib_cq: in the device's QP table (cxib_dev.qps, by @qpn) from
 * after CREATE_QP until destroy; the async EQ handler holds a reference (cxib_obj_get())
 * while it calls the consumer.  CQ pollers find QPs through the table under the CQ's lock;
 * destroy takes the QP off its CQs' lists under those locks before freeing it.
 */
struct cxib_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u8 st;
	enum ib_qp_state state;
	struct mutex mutex;		/* modify, query, destroy */
	u8 port;
	u16 pkey_index;
	bool sq_sig_all;
	bool ipoib;			/* IB_QP_CREATE_IPOIB_UD_LSO: the IPoIB offloads */
	struct cxib_frag_buf buf;
	struct cxib_dbr dbr;
	struct cxib_sq sq;
	struct cxib_rq rq;
	struct cxib_srq *srq;
	struct cxib_cq *send_cq;
	struct cxib_cq *recv_cq;
	struct list_head cq_send_node;
	struct list_head cq_recv_node;
	struct cxib_obj_ref ref;
	struct cxib_uq *uq;
};

static inline struct cxib_qp *to_cxib_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct cxib_qp, ibqp);
}

/**
 * struct cxib_ah - an address handle
 * @ibah: the RDMA core's AH; first, as INIT_RDMA_OBJ_SIZE requires
 * @av: the address vector in its wire format (the UD WQE's datagram segment; the Q_Key
 *	and destination QPN are filled per WR)
 */
struct cxib_ah {
	struct ib_ah ibah;
	struct cxib_wqe_av av;
};

static inline struct cxib_ah *to_cxib_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct cxib_ah, ibah);
}

/* ---- The device ------------------------------------------------------------------------------ */

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

/*
 * The driver's UMR QP (umr.c): a kernel QP of service type REG_UMR, which may load the
 * translation table of any key, whatever its PD.  It is a driver-private QP type, as the
 * RDMA core reserves IB_QPT_RESERVED1.. for; its one work request is CXIB_WR_UMR_XLT.
 */
#define CXIB_QPT_REG_UMR		IB_QPT_RESERVED1
#define CXIB_WR_UMR_XLT			IB_WR_RESERVED1

/**
 * struct cxib_umr_wr - load part of a key's translation table (the UMR QP's one WR)
 * @wr: the work request; opcode CXIB_WR_UMR_XLT
 * @mkey: the key (index and variant)
 * @xlt_dma: bus address of the entries (big-endian MTT entries)
 * @xlt_lkey: the key the device reads them through (the UMR PD's local_dma_lkey)
 * @offset: the table entry the first of them lands at (a multiple of CXIB_UMR_XLT_ALIGN)
 * @nentries: how many; the device reads them in whole CXIB_UMR_XLT_ALIGN blocks
 * @enable: the last piece: the key stops being free once the entries are in
 */
struct cxib_umr_wr {
	struct ib_send_wr wr;
	u32 mkey;
	dma_addr_t xlt_dma;
	u32 xlt_lkey;
	u64 offset;
	u32 nentries;
	bool enable;
};

/* Translation entries a UMR loads in blocks of 64 bytes: 8 MTT entries, 4 octowords. */
#define CXIB_UMR_XLT_ALIGN		(CXIB_MR_PL_ALIGN / CXIB_PAS_ENTRY_SIZE)

static inline const struct cxib_umr_wr *cxib_umr_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct cxib_umr_wr, wr);
}

/**
 * struct cxib_umr - the UMR QP and what it needs
 * @lock: one load at a time (a load is a sequence of WRs, each waited for)
 * @pd: the QP's PD; its local_dma_lkey reads the entries
 * @cq: the QP's CQ (IB_POLL_SOFTIRQ)
 * @qp: the QP, in RTS; NULL before cxib_umr_init() and after cxib_umr_cleanup()
 */
struct cxib_umr {
	struct mutex lock;		/* pd, cq, qp and the QP's state */
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
};

/* Bits of cxib_dev.flags. */
enum {
	CXIB_DEV_DEAD,		/* fatal firmware condition: commands fail at once */
	CXIB_DEV_IB_ACTIVE,	/* registered with the RDMA core: events are dispatched */
};

/**
 * struct cxib_dev - one cxib PCI function
 * @ibdev: the InfiniBand device; first, as ib_alloc_device() requires
 * @pdev: the PCI function
 * @iseg: BAR0 mapping of the initialization segment, CXIB_ISEG_SIZE bytes
 * @fw_rev: firmware revision, valid once the firmware has finished initializing
 * @cmdif_rev: command interface revision the firmware speaks
 * @flags: CXIB_DEV_* bits
 * @cmdq: the command queue
 * @health: firmware health monitoring
 * @issi: interface step sequence ID in use (CXIB_ISSI_*)
 * @caps: general capabilities after INIT_HCA
 * @board_id: the adapter's PSID, from QUERY_ADAPTER
 * @vendor_id: IEEE vendor ID, from QUERY_ADAPTER
 * @uar: index of the driver's UAR page (EQ doorbells)
 * @uar_map: mapping of that page
 * @eqt: the event queues
 * @pages: pages lent to the firmware
 * @sys_image_guid: system image GUID, from NodeInfo
 * @port_lock: serialises changes to the port capability mask
 * @dbr_pool: DMA pool of doorbell records (struct cxib_dbr)
 * @cqs: the CQs by number, for the EQ handlers; its lock is taken in hard interrupt
 *	context (XA_FLAGS_LOCK_IRQ)
 * @mkey_variant: the variant byte of the last memory key created
 * @srqs: the SRQs by number, for the EQ handlers and the CQ poller; its lock is taken in
 *	hard interrupt context (XA_FLAGS_LOCK_IRQ)
 * @q_counter: the Q counter set (ALLOC_Q_COUNTER) behind the port statistics
 * @q_counter_valid: @q_counter is allocated
 * @qps: the QPs by device QP number, for the EQ handlers and the CQ pollers; its lock is
 *	taken in hard interrupt context (XA_FLAGS_LOCK_IRQ)
 * @bf_lock: serialises the SQ doorbells on BlueFlame register 0 of @uar (every kernel QP)
 * @bf_offset: the half of that register the next doorbell writes (alternates)
 * @sm_lock: protects @port_sm; taken in process context only, never around a command
 * @port_sm: per port (index port - 1), the master SM last seen: read from PortInfo at
 *	registration, then updated by cxib_process_mad() from the SubnSet(PortInfo)
 *	responses it passes back (the snoop behind IB_EVENT_SM_CHANGE)
 * @umr: the driver's UMR QP (umr.c), which loads translation tables too large for one
 *	command
 *
 * Probe runs in two phases: hardware bring-up (cxib_hw_init()) and then registration
 * with the RDMA core (cxib_ib_register()).
 */
struct cxib_dev {
	struct ib_device ibdev;
	struct pci_dev *pdev;
	void __iomem *iseg;
	struct cxib_fw_rev fw_rev;
	u16 cmdif_rev;
	unsigned long flags;
	struct cxib_cmdq cmdq;
	struct cxib_health health;
	u16 issi;
	struct cxib_caps caps;
	char board_id[CXIB_QUERY_ADAPTER_PSID_LEN + 1];
	u32 vendor_id;
	u32 uar;
	void __iomem *uar_map;
	struct cxib_eq_table eqt;
	struct cxib_pages pages;
	__be64 sys_image_guid;
	struct mutex port_lock;		/* port capability mask changes */
	struct dma_pool *dbr_pool;
	struct xarray cqs;
	atomic_t mkey_variant;
	struct xarray srqs;
	u16 q_counter;
	bool q_counter_valid;
	struct xarray qps;
	spinlock_t bf_lock;		/* SQ doorbells (BlueFlame register 0) */
	u32 bf_offset;
	spinlock_t sm_lock;		/* port_sm */
	struct cxib_port_sm port_sm[CXIB_IB_PORTS];
	struct cxib_umr umr;
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
 * struct cxib_ucontext - a user context (libmlx5's)
 * @ibucontext: the RDMA core's context; first, as INIT_RDMA_OBJ_SIZE requires
 * @uars: indexes of the context's UAR pages, mapped by index
 * @nuars: number of UAR pages
 * @cqe_version: the CQE version agreed with libmlx5 (0, or 1: CQEs carry user indexes)
 * @db_lock: protects @db_pages
 * @db_pages: the pinned doorbell-record pages of the context's queues (struct cxib_udb_page)
 */
struct cxib_ucontext {
	struct ib_ucontext ibucontext;
	u32 *uars;
	unsigned int nuars;
	u8 cqe_version;
	struct mutex db_lock;		/* db_pages */
	struct list_head db_pages;
};

static inline struct cxib_ucontext *to_cxib_ucontext(struct ib_ucontext *ibuctx)
{
	return container_of(ibuctx, struct cxib_ucontext, ibucontext);
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

/* fw.c: capabilities */
void cxib_caps_prepare_set(struct cxib_hca_cap *set, const struct cxib_hca_cap *cur,
			   const struct cxib_hca_cap *max);
void cxib_caps_parse(struct cxib_caps *caps, const struct cxib_hca_cap *cap);
unsigned int cxib_caps_max_eqs(const struct cxib_caps *caps);
unsigned int cxib_caps_pkey_table_len(const struct cxib_caps *caps);

/* hca.c: firmware initialization and teardown */
int cxib_hca_init(struct cxib_dev *dev);
void cxib_hca_cleanup(struct cxib_dev *dev);

/* pages.c: pages lent to the firmware */
int cxib_pages_init(struct cxib_dev *dev);
void cxib_pages_cleanup(struct cxib_dev *dev);
int cxib_pages_supply(struct cxib_dev *dev, u16 op_mod);
int cxib_pages_reclaim(struct cxib_dev *dev);
void cxib_pages_request(struct cxib_dev *dev, u16 func_id, s32 npages);
void cxib_pages_flush_requests(struct cxib_dev *dev);
u32 cxib_pages_count(struct cxib_dev *dev);

/* eq.c: event queues and MSI-X */
int cxib_eqs_init(struct cxib_dev *dev);
const struct cpumask *cxib_get_vector_affinity(struct ib_device *ibdev, int comp_vector);
void cxib_eqs_cleanup(struct cxib_dev *dev);
void cxib_eqs_sync_async(struct cxib_dev *dev);
void cxib_ib_dispatch_port_event(struct cxib_dev *dev, u32 port, enum ib_event_type type);
int cxib_port_event_type(u8 sub_type);

/* health.c: firmware health */
void cxib_health_start(struct cxib_dev *dev);
void cxib_health_stop(struct cxib_dev *dev);
void cxib_dev_fatal(struct cxib_dev *dev, const char *reason);
const char *cxib_health_fatal_reason(u32 fw_ver, u32 cmdq_addr_l, u32 rfr, u32 synd);

/* mad.c: the firmware's subnet management agent */
void cxib_mad_build_subn_get(struct cxib_smp *smp, u16 attr_id, u32 attr_mod);
int cxib_mad_check_response(const struct cxib_smp *smp, u16 attr_id);
int cxib_mad_query(struct cxib_dev *dev, u8 port, u16 attr_id, u32 attr_mod, void *data);
void cxib_mad_port_info_to_attr(const void *pi, struct ib_port_attr *attr);
u16 cxib_mad_pkey_from_table(const void *blk, unsigned int i);
__be64 cxib_mad_guid_from_info(const void *blk, unsigned int i);
int cxib_mad_query_node(struct cxib_dev *dev);

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

enum cxib_mad_route cxib_mad_route(u8 mgmt_class, u8 method, u16 attr_id, u16 slid,
				   bool have_wc);
bool cxib_mad_snoop_sm(const struct cxib_smp *req, const struct cxib_smp *resp, u32 port,
		       struct cxib_port_sm *sm);
int cxib_mad_sm_init(struct cxib_dev *dev);
int cxib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in_mad, struct ib_mad *out_mad, size_t *out_mad_size,
		     u16 *out_mad_pkey_index);

/* ib.c: the InfiniBand device */
int cxib_ib_register(struct cxib_dev *dev);
void cxib_ib_unregister(struct cxib_dev *dev);

/* buf.c: queue buffers and doorbell records */
int cxib_frag_buf_alloc(struct cxib_dev *dev, struct cxib_frag_buf *buf, size_t size);
void cxib_frag_buf_free(struct cxib_dev *dev, struct cxib_frag_buf *buf);
int cxib_dbr_alloc(struct cxib_dev *dev, struct cxib_dbr *dbr);
void cxib_dbr_free(struct cxib_dev *dev, struct cxib_dbr *dbr);
int cxib_res_init(struct cxib_dev *dev);
void cxib_res_cleanup(struct cxib_dev *dev);

/* pd.c, mr.c: protection domains, memory regions */
void cxib_mkc_set_access(struct cxib_mkc *mkc, int acc);
void cxib_mkc_set_access_mode(struct cxib_mkc *mkc, u8 mode);
int cxib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int cxib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *cxib_get_dma_mr(struct ib_pd *ibpd, int acc);
int cxib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* cq.c: completion queues */
bool cxib_cqe_sw_owned(const void *cqe, u32 ci, u8 log_size);
enum ib_wc_status cxib_cqe_syndrome_to_status(u8 syndrome);
bool cxib_cqe_is_send(const void *cqe);
void cxib_cqe_to_wc(const void *cqe, struct ib_wc *wc);
int cxib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   CXIB_CREATE_CQ_ARG *arg);
int cxib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int cxib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int cxib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int cxib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period);
void cxib_cq_comp_event(struct cxib_dev *dev, u32 cqn);
void cxib_cq_error_event(struct cxib_dev *dev, u32 cqn, u8 syndrome);
void cxib_cq_clean_locked(struct cxib_cq *cq, u32 qpn, struct cxib_srq *srq);
int cxib_sq_complete(struct cxib_sq *sq, u16 counter, bool err, struct ib_wc *wc);

/* mr.c: fast-registration MRs */
struct ib_mr *cxib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg);
int cxib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
u32 cxib_mr_pl_entries(u32 max_num_sg);
size_t cxib_mr_pl_bytes(u32 entries);
void cxib_mr_build_fast_reg_mkc(struct cxib_mkc *mkc, u32 pdn, u8 variant, u32 max_pages);
int cxib_mr_set_page(struct ib_mr *ibmr, u64 addr);

/* srq.c: shared receive queues */
int cxib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);
int cxib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int cxib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int cxib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int cxib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
u64 cxib_srq_free_wqe(struct cxib_srq *srq, u16 wqe_index);
void cxib_srq_init_free_list(struct cxib_srq *srq);
void cxib_srq_build_wqe(void *wqe, const struct ib_recv_wr *wr, u32 max_gs);
int cxib_srq_geometry(const struct cxib_caps *caps, u32 max_wr, u32 max_sge, u8 *log_size,
		      u8 *log_stride);
int cxib_srq_event_type(u8 event_type);
u32 cxib_srq_max_sge(const struct cxib_caps *caps);
u32 cxib_srq_max_page_offset(u16 issi);
void cxib_srq_fill_srqc(const struct cxib_srq *srq, u32 pdn, struct cxib_srqc *srqc);
void cxib_srq_fill_rmpc(const struct cxib_srq *srq, u32 pdn, struct cxib_rmpc *rmpc);
void cxib_srq_event(struct cxib_dev *dev, u32 srqn, u8 event_type);

/* mcast.c: multicast */
int cxib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int cxib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* counters.c: port statistics (Q counters) */
#define CXIB_NUM_Q_COUNTERS	20
extern const struct rdma_stat_desc cxib_q_counter_descs[];
extern const u8 cxib_q_counter_dws[];
int cxib_counters_init(struct cxib_dev *dev);
void cxib_counters_cleanup(struct cxib_dev *dev);

/* qp.c: queue pairs */
int cxib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr, struct ib_udata *udata);
int cxib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int attr_mask,
		   struct ib_udata *udata);
int cxib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int attr_mask,
		  struct ib_qp_init_attr *init_attr);
int cxib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void cxib_qp_event(struct cxib_dev *dev, u32 qpn, u8 event_type);
int cxib_qp_event_type(u8 event_type);
void cxib_qp_caps(const struct cxib_dev *dev, struct ib_device_attr *props);

/* wr.c: posting work requests */
int cxib_wqe_build_send(const struct cxib_sq_params *p, const struct ib_send_wr *wr, u16 idx,
			void *wqe, struct cxib_sq_ent *info);
void cxib_sq_copy_wqe(const struct cxib_frag_buf *buf, u32 sq_offset, u8 log_wqe_cnt, u32 idx,
		      const void *wqe, u32 nbb);
u32 cxib_sq_bf_len(const struct cxib_caps *caps, u32 nreq, u32 nbb);
int cxib_wqe_build_recv(void *wqe, u32 max_gs, const struct ib_recv_wr *wr);
u32 cxib_umr_xlt_octowords(u32 npages);
int cxib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int cxib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);

/* ah.c: address handles */
int cxib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int cxib_destroy_ah(struct ib_ah *ibah, u32 flags);
int cxib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
void cxib_ah_attr_to_av(const struct rdma_ah_attr *attr, struct cxib_wqe_av *av);

/* ucontext.c: user contexts */
int cxib_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata);
void cxib_dealloc_ucontext(struct ib_ucontext *ibuctx);
void cxib_disassociate_ucontext(struct ib_ucontext *ibuctx);
int cxib_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma);
int cxib_mmap_unknown_err(unsigned long pgoff);
void cxib_mmap_free(struct rdma_user_mmap_entry *entry);

/* umr.c: the driver's UMR QP */
int cxib_umr_init(struct cxib_dev *dev);
void cxib_umr_cleanup(struct cxib_dev *dev);
int cxib_umr_load_mtt(struct cxib_dev *dev, u32 mkey, const u64 *mtt, u64 nmtt);

/* umem.c: user memory (user MRs, user queue buffers, doorbell pages) */
int cxib_mkey_create_mtt(struct cxib_dev *dev, struct cxib_mkc *mkc, u64 *mtt, size_t nmtt,
			 u32 *mkey_index);
struct ib_mr *cxib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 virt_addr,
			       int access, struct ib_udata *udata);
u32 cxib_umem_fill_pas(struct ib_umem *umem, unsigned long pgsz, u64 *pas, u32 max);
int cxib_udb_map(struct cxib_ucontext *uctx, u64 db_addr, struct cxib_udb_page **page,
		 dma_addr_t *dma);
void cxib_udb_unmap(struct cxib_ucontext *uctx, struct cxib_udb_page *page);
struct cxib_uq *cxib_uq_create(struct cxib_dev *dev, struct cxib_ucontext *uctx,
			       const struct cxib_uq_req *req, size_t size,
			       struct cxib_frag_buf *buf, struct cxib_dbr *dbr);
void cxib_uq_free(struct cxib_dev *dev, struct cxib_uq *uq);
int cxib_uq_buf_offset(u64 buf_addr, u32 stride, u8 *page_offset);

/* uverbs.c: the user halves of create_cq / create_qp / create_srq (libmlx5's udata) */
struct mlx5_ib_create_cq;
struct mlx5_ib_create_qp;
struct mlx5_ib_create_srq;
int cxib_uidx_check(u8 cqe_version, u32 uidx, u32 *out);
int cxib_ucq_check(const struct cxib_caps *caps, const struct mlx5_ib_create_cq *ucmd,
		   u32 cqe, u8 *cqe_sz, u8 *log_size, size_t *bytes);
int cxib_uqp_check(const struct cxib_caps *caps, const struct mlx5_ib_create_qp *ucmd,
		   const struct ib_qp_init_attr *attr, size_t *bytes);
int cxib_usrq_check(const struct mlx5_ib_create_srq *ucmd);
int cxib_ucq_init(struct cxib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata, u8 *cqe_sz);
int cxib_ucq_respond(struct cxib_cq *cq, struct ib_udata *udata);
int cxib_uqp_init(struct cxib_qp *qp, struct ib_qp_init_attr *attr, struct ib_udata *udata);
void cxib_uqp_fill_qpc(const struct cxib_qp *qp, struct cxib_qpc *qpc);
int cxib_uqp_respond(struct cxib_qp *qp, struct ib_udata *udata);
int cxib_usrq_get(struct ib_udata *udata, struct cxib_uq_req *req);
int cxib_usrq_respond(struct cxib_srq *srq, struct ib_udata *udata);

#endif /* _CXIB_H */
