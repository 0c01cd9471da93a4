/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: the verbs objects and the verbs that act on them: the queue buffers, doorbell
 * records and object tables they are built from (buf.c), PDs and MRs (pd.c, mr.c), CQs
 * (cq.c), SRQs (srq.c), QPs and posting (qp.c, wr.c), address handles (ah.c), multicast
 * (mcast.c) and the driver's UMR QP (umr.c).  Each object's structure is followed by the
 * functions of its file.
 *
 * Prototypes inside #if IS_ENABLED(CONFIG_KUNIT) are of functions that only the KUnit
 * suites call from outside their file: VISIBLE_IF_KUNIT (<kunit/visibility.h>) makes them
 * static in a kernel without KUnit.
 */
#ifndef _CXIB_DRV_VERBS_H
#define _CXIB_DRV_VERBS_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <cxib/hw.h>
#include <cxib/verbs.h>
#include <cxib/wqe.h>

#include "compat.h"
#include "cxib_cmd.h"

struct cxib_caps;
struct cxib_dev;
struct cxib_sq;
struct cxib_srq;
struct cxib_uq;

/* ---- Queue buffers, doorbell records, object tables (buf.c) -------------------------- */

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

/* buf.c: queue buffers, doorbell records, the object tables */
int cxib_frag_buf_alloc(struct cxib_dev *dev, struct cxib_frag_buf *buf, size_t size);
void cxib_frag_buf_free(struct cxib_dev *dev, struct cxib_frag_buf *buf);
int cxib_dbr_alloc(struct cxib_dev *dev, struct cxib_dbr *dbr);
void cxib_dbr_free(struct cxib_dev *dev, struct cxib_dbr *dbr);
void cxib_obj_tables_init(struct cxib_dev *dev);
int cxib_res_init(struct cxib_dev *dev);
void cxib_res_cleanup(struct cxib_dev *dev);

/* ---- Protection domains and memory regions (pd.c, mr.c) ------------------------------ */

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

/* pd.c, mr.c: protection domains, memory regions */
void cxib_mkc_set_access(struct cxib_mkc *mkc, int acc);
void cxib_mkc_set_access_mode(struct cxib_mkc *mkc, u8 mode);
int cxib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int cxib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *cxib_get_dma_mr(struct ib_pd *ibpd, int acc);
int cxib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* mr.c: fast-registration MRs */
struct ib_mr *cxib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg);
int cxib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
#if IS_ENABLED(CONFIG_KUNIT)
u32 cxib_mr_pl_entries(u32 max_num_sg);
size_t cxib_mr_pl_bytes(u32 entries);
void cxib_mr_build_fast_reg_mkc(struct cxib_mkc *mkc, u32 pdn, u8 variant, u32 max_pages);
int cxib_mr_set_page(struct ib_mr *ibmr, u64 addr);
#endif

/* ---- Completion queues (cq.c) -------------------------------------------------------- */

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
 * @kick_work: runs the consumer's completion handler once the device is dead (it raises
 *	no more events), so the consumer polls the software flush; never from a post
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
	struct work_struct kick_work;
};

static inline struct cxib_cq *to_cxib_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct cxib_cq, ibcq);
}

/* cq.c: completion queues */
void cxib_cq_comp_event(struct cxib_dev *dev, u32 cqn);
void cxib_cq_error_event(struct cxib_dev *dev, u32 cqn, u8 syndrome);
void cxib_cq_clean_locked(struct cxib_cq *cq, u32 qpn, struct cxib_srq *srq);
void cxib_cq_kick(struct cxib_cq *cq);
void cxib_cq_kick_all(struct cxib_dev *dev);
int cxib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   CXIB_CREATE_CQ_ARG *arg);
int cxib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int cxib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int cxib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int cxib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period);
#if IS_ENABLED(CONFIG_KUNIT)
bool cxib_cqe_sw_owned(const void *cqe, u32 ci, u8 log_size);
enum ib_wc_status cxib_cqe_syndrome_to_status(u8 syndrome);
bool cxib_cqe_is_send(const void *cqe);
void cxib_cqe_to_wc(const void *cqe, struct ib_wc *wc);
int cxib_sq_complete(struct cxib_sq *sq, u16 counter, bool err, struct ib_wc *wc);
void cxib_cq_kick_work(struct work_struct *work);
#endif

/* ---- Shared receive queues (srq.c) --------------------------------------------------- */

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
u32 cxib_srq_max_sge(const struct cxib_caps *caps);
void cxib_srq_event(struct cxib_dev *dev, u32 srqn, u8 event_type);
#if IS_ENABLED(CONFIG_KUNIT)
void cxib_srq_init_free_list(struct cxib_srq *srq);
int cxib_srq_geometry(const struct cxib_caps *caps, u32 max_wr, u32 max_sge, u8 *log_size,
		      u8 *log_stride);
int cxib_srq_event_type(u8 event_type);
u32 cxib_srq_max_page_offset(u16 issi);
void cxib_srq_fill_srqc(const struct cxib_srq *srq, u32 pdn, struct cxib_srqc *srqc);
void cxib_srq_fill_rmpc(const struct cxib_srq *srq, u32 pdn, struct cxib_rmpc *rmpc);
#endif

/* ---- Queue pairs and posting (qp.c, wr.c) -------------------------------------------- */

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
 * struct cxib_qp - a queue pair, a kernel or a user one
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
 * @srq: the SRQ the QP receives from, or NULL
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

/* qp.c: queue pairs */
int cxib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr, struct ib_udata *udata);
int cxib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int attr_mask,
		   struct ib_udata *udata);
int cxib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int attr_mask,
		  struct ib_qp_init_attr *init_attr);
int cxib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void cxib_qp_event(struct cxib_dev *dev, u32 qpn, u8 event_type);
void cxib_qp_caps(const struct cxib_dev *dev, struct ib_device_attr *props);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_qp_event_type(u8 event_type);
#endif

/* wr.c: posting work requests */
int cxib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int cxib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
void cxib_drain_sq(struct ib_qp *ibqp);
void cxib_drain_rq(struct ib_qp *ibqp);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_wqe_build_send(const struct cxib_sq_params *p, const struct ib_send_wr *wr, u16 idx,
			void *wqe, struct cxib_sq_ent *info);
void cxib_sq_copy_wqe(const struct cxib_frag_buf *buf, u32 sq_offset, u8 log_wqe_cnt, u32 idx,
		      const void *wqe, u32 nbb);
u32 cxib_sq_bf_len(const struct cxib_caps *caps, u32 nreq, u32 nbb);
int cxib_wqe_build_recv(void *wqe, u32 max_gs, const struct ib_recv_wr *wr);
u32 cxib_umr_xlt_octowords(u32 npages);
#endif

/* ---- Address handles (ah.c) ---------------------------------------------------------- */

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

/* ah.c: address handles */
int cxib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int cxib_destroy_ah(struct ib_ah *ibah, u32 flags);
int cxib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
#if IS_ENABLED(CONFIG_KUNIT)
void cxib_ah_attr_to_av(const struct rdma_ah_attr *attr, struct cxib_wqe_av *av);
#endif

/* ---- Multicast (mcast.c) ------------------------------------------------------------- */

/* mcast.c: multicast */
int cxib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int cxib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* ---- The driver's UMR QP (umr.c) ----------------------------------------------------- */

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

/* umr.c: the driver's UMR QP */
int cxib_umr_init(struct cxib_dev *dev);
void cxib_umr_cleanup(struct cxib_dev *dev);
int cxib_umr_load_mtt(struct cxib_dev *dev, u32 mkey, const u64 *mtt, u64 nmtt);

#endif /* _CXIB_DRV_VERBS_H */
