/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: the command layer (PRM §2-5): the command queue engine (cmd.c) and, built on it,
 * one typed function per firmware command:
 *
 *   fw.c        function life cycle, firmware pages, registers and capabilities, adapter
 *               and UARs, event queues, management datagrams
 *   fw_verbs.c  the verbs resources: PDs, memory keys, CQs, QPs, SRQs (and the RMPs of
 *               ISSI 1), multicast groups, Q counters
 *
 * Only these three files lay out a command's input or read its output; the rest of the
 * driver calls the cxib_cmd_*() functions with C types and the contexts of
 * include/cxib/verbs.h (struct cxib_cqc, struct cxib_qpc, ...).
 *
 * Prototypes inside #if IS_ENABLED(CONFIG_KUNIT) are of functions that only the KUnit
 * suites call from outside their file: VISIBLE_IF_KUNIT (<kunit/visibility.h>) makes them
 * static in a kernel without KUnit, and the commands only the suites issue (NOP,
 * QUERY_MKEY, QUERY_CQ) are not built there at all.
 */
#ifndef _CXIB_DRV_CMD_H
#define _CXIB_DRV_CMD_H

#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <cxib/cmd.h>
#include <cxib/hw.h>
#include <cxib/verbs.h>

struct cxib_dev;
struct dma_pool;

/* ---- The queue engine (cmd.c) ------------------------------------------------------ */

/* Default per-command timeout (module parameter cmd_timeout_ms), as mlx5 uses. */
#define CXIB_CMD_TIMEOUT_MS		60000
/* A command waiting for its completion event also checks its entry this often. */
#define CXIB_CMD_EVENT_POLL_MS		1000
/* The queue has at most 2^CXIB_LOG_CMDQ_SIZE_MAX slots and fits one 4 KiB page. */
#define CXIB_CMDQ_MAX_SLOTS		BIT(CXIB_LOG_CMDQ_SIZE_MAX)
#define CXIB_CMDQ_BYTES			CXIB_ADAPTER_PAGE_SIZE
/* How long the firmware may take to take the command queue address (PRM §1.4: 2 s). */
#define CXIB_CMDQ_INIT_TIMEOUT_MS	2000

/**
 * struct cxib_cmd_block - one mailbox block
 * @buf: CPU address of the block
 * @dma: its bus address, CXIB_CMD_MBOX_ALIGN aligned
 */
struct cxib_cmd_block {
	struct cxib_cmd_mailbox *buf;
	dma_addr_t dma;
};

/**
 * struct cxib_cmd_msg - the mailbox chain of a command's input or output
 * @nblocks: number of blocks: CXIB_CMD_MBOX_BLOCKS() of the length
 * @blocks: the blocks in chain order; NULL when @nblocks is 0
 *
 * Carries the bytes beyond the 16 that travel inline in the queue entry.
 */
struct cxib_cmd_msg {
	unsigned int nblocks;
	struct cxib_cmd_block *blocks;
};

/**
 * struct cxib_cmd_slot - one entry of the command queue and the command in it
 * @done: completed by the command completion event that names the slot (a hint: the
 *	entry's ownership bit is what says the command is done)
 * @in: input mailboxes of the command
 * @out: output mailboxes of the command
 * @opcode: the command's opcode, for log lines
 * @stale: the command's caller gave up on it (timeout, dead device) while the device still
 *	owned the entry; the slot and its mailboxes stay reserved until the device gives the
 *	entry back, because the device may still write the output mailboxes
 */
struct cxib_cmd_slot {
	struct completion done;
	struct cxib_cmd_msg in;
	struct cxib_cmd_msg out;
	u16 opcode;
	bool stale;
};

/**
 * struct cxib_cmdq - the command queue (PRM §2)
 * @buf: the queue: 2^@log_size entries of 2^@log_stride bytes in one 4 KiB page
 * @dma: bus address of @buf, written to the initialization segment
 * @log_size: log2 of the number of entries (slots), from the initialization segment
 * @log_stride: log2 of the entry stride in bytes, from the initialization segment
 * @nslots: 2^@log_size
 * @pages_slot: the last slot, used by MANAGE_PAGES only, so that supplying pages the
 *	firmware asks for never waits behind commands that wait for those pages
 * @timeout_ms: how long a command may take, and may wait for a free slot
 * @lock: protects @free, @token and the slots' @stale; taken in hard interrupt context
 * @free: bitmap of the free regular slots (all but @pages_slot)
 * @token: the token of the last command; tokens roll over 1..255
 * @sem: counts the free regular slots; up to @nslots - 1 commands run at once
 * @pages_sem: the MANAGE_PAGES slot
 * @events: completions come as command completion events on the command EQ; before it
 *	exists (and after it is gone) callers poll the ownership bit
 * @pool: DMA pool of mailbox blocks
 * @slots: per-slot state
 */
struct cxib_cmdq {
	void *buf;
	dma_addr_t dma;
	u8 log_size;
	u8 log_stride;
	unsigned int nslots;
	unsigned int pages_slot;
	unsigned int timeout_ms;
	spinlock_t lock;		/* free slots, token, stale slots */
	unsigned long free;
	u8 token;
	struct semaphore sem;
	struct semaphore pages_sem;
	bool events;
	struct dma_pool *pool;
	struct cxib_cmd_slot slots[CXIB_CMDQ_MAX_SLOTS];
};

/* Flags of cxib_cmd_exec_flags(). */
enum {
	/* Status BAD_OP is an expected answer ("not supported"): log it at debug level. */
	CXIB_CMD_F_BAD_OP_OK	= 1 << 0,
	/*
	 * Status BAD_PKT is an expected answer: MAD_IFC's "the firmware dropped the MAD"
	 * (a MAD from the wire can cause it): log it at debug level.
	 */
	CXIB_CMD_F_BAD_PKT_OK	= 1 << 1,
};

int cxib_cmd_init(struct cxib_dev *dev, unsigned int timeout_ms);
void cxib_cmd_cleanup(struct cxib_dev *dev);
void cxib_cmd_use_events(struct cxib_dev *dev, bool events);
int cxib_cmd_exec(struct cxib_dev *dev, const void *in, u32 inlen, void *out, u32 outlen);
int cxib_cmd_exec_flags(struct cxib_dev *dev, const void *in, u32 inlen, void *out,
			u32 outlen, unsigned int flags);
void cxib_cmd_comp_event(struct cxib_dev *dev, u32 vector);
void cxib_cmd_abort_all(struct cxib_dev *dev);
const char *cxib_cmd_opcode_str(u16 opcode);
#if IS_ENABLED(CONFIG_KUNIT)
const char *cxib_cmd_status_str(u8 status);
int cxib_cmd_status_to_errno(u8 status);
u8 cxib_cmd_next_token(u8 token);
void cxib_cmd_msg_chain(struct cxib_cmd_msg *msg, u8 token);
void cxib_cmd_msg_write(struct cxib_cmd_msg *msg, const void *in, u32 inlen);
void cxib_cmd_msg_read(const struct cxib_cmd_msg *msg, void *out, u32 outlen);
void cxib_cmd_build_entry(struct cxib_cmd_queue_entry *ent, const void *in, u32 inlen,
			  u32 outlen, const struct cxib_cmd_msg *inmsg,
			  const struct cxib_cmd_msg *outmsg, u8 token);
#endif

/* ---- Building commands (fw.c, fw_verbs.c) ------------------------------------------ */

/*
 * Where a command's input and output live: a fixed-size one of at most 128 bytes on the
 * stack, zero-initialized (__be32 in[CXIB_<CMD>_IN_LEN / 4] = {}); any other (the
 * fixed-size ones of 256 bytes and more, and every one whose length depends on a count:
 * PAS lists, MTT lists, register data, returned pages) from kvzalloc(), released with
 * kvfree().  The engine copies inputs into its mailboxes and outputs out of them, so a
 * buffer need not be physically contiguous and a long list never needs a high-order
 * allocation.
 */

/**
 * cxib_cmd_hdr() - write the opcode and op_mod of a command input
 * @in: the input (zeroed)
 * @opcode: CXIB_CMD_OP_*
 * @op_mod: the opcode modifier (0 for most commands)
 */
static inline void cxib_cmd_hdr(void *in, u16 opcode, u16 op_mod)
{
	CXIB_SET(in, CXIB_CMD_IN_OPCODE, opcode);
	CXIB_SET(in, CXIB_CMD_IN_OP_MOD, op_mod);
}

void cxib_cmd_put_pas(void *in, size_t offset, const dma_addr_t *pas, u32 npas);

/**
 * struct cxib_eq_params - what CREATE_EQ needs to know about a new EQ
 * @log_size: log2 of the number of EQEs
 * @uar: UAR page whose doorbells update the EQ
 * @vector: MSI-X vector the EQ raises
 * @event_mask: bit n: deliver events of type n (CXIB_EVENT_TYPE_*) to this EQ
 * @npages: number of 4 KiB pages of the EQ's buffer
 * @pas: their bus addresses
 */
struct cxib_eq_params {
	u8 log_size;
	u32 uar;
	u16 vector;
	u64 event_mask;
	unsigned int npages;
	const dma_addr_t *pas;
};

/* ---- fw.c: bring-up, pages, registers, capabilities, UARs, EQs, MADs --------------- */

int cxib_cmd_enable_hca(struct cxib_dev *dev);
int cxib_cmd_disable_hca(struct cxib_dev *dev);
int cxib_cmd_query_issi(struct cxib_dev *dev, u32 *supported, u16 *current_issi);
int cxib_cmd_set_issi(struct cxib_dev *dev, u16 issi);
int cxib_cmd_init_hca(struct cxib_dev *dev);
int cxib_cmd_teardown_hca(struct cxib_dev *dev, u16 profile);
int cxib_cmd_query_pages(struct cxib_dev *dev, u16 op_mod, u16 *func_id, s32 *npages);
int cxib_cmd_give_pages(struct cxib_dev *dev, u16 func_id, const dma_addr_t *pas, u32 npages);
int cxib_cmd_take_pages(struct cxib_dev *dev, u16 func_id, u32 npages, dma_addr_t *pas,
			u32 *nreturned);
int cxib_cmd_pages_alloc_failed(struct cxib_dev *dev, u16 func_id, u32 npages);
int cxib_cmd_access_reg(struct cxib_dev *dev, u16 op_mod, u16 reg_id, u32 arg,
			const void *data_in, void *data_out, u32 len);
int cxib_cmd_set_host_endianness(struct cxib_dev *dev);
int cxib_cmd_query_hca_cap(struct cxib_dev *dev, u16 type, u16 mode, struct cxib_hca_cap *cap);
int cxib_cmd_set_hca_cap(struct cxib_dev *dev, u16 type, const struct cxib_hca_cap *cap);
int cxib_cmd_query_adapter(struct cxib_dev *dev, char *board_id, u32 *vendor_id);
int cxib_cmd_alloc_uar(struct cxib_dev *dev, u32 *uar);
int cxib_cmd_dealloc_uar(struct cxib_dev *dev, u32 uar);
int cxib_cmd_create_eq(struct cxib_dev *dev, const struct cxib_eq_params *p, u8 *eqn);
int cxib_cmd_destroy_eq(struct cxib_dev *dev, u8 eqn);
int cxib_cmd_mad_ifc(struct cxib_dev *dev, u8 port, u16 op_mod, u16 remote_lid,
		     const void *mad_in, void *mad_out);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_cmd_nop(struct cxib_dev *dev);
#endif

/* ---- fw_verbs.c: verbs resources --------------------------------------------------- */

int cxib_cmd_alloc_pd(struct cxib_dev *dev, u32 *pdn);
int cxib_cmd_dealloc_pd(struct cxib_dev *dev, u32 pdn);
int cxib_cmd_create_mkey(struct cxib_dev *dev, const struct cxib_mkc *mkc, const u64 *mtt,
			 u32 nmtt, u32 *mkey_index);
int cxib_cmd_destroy_mkey(struct cxib_dev *dev, u32 mkey_index);
int cxib_cmd_create_cq(struct cxib_dev *dev, const struct cxib_cqc *cqc, const dma_addr_t *pas,
		       u32 npas, u32 *cqn);
int cxib_cmd_destroy_cq(struct cxib_dev *dev, u32 cqn);
int cxib_cmd_modify_cq(struct cxib_dev *dev, u32 cqn, u32 field_select,
		       const struct cxib_cqc *cqc);
int cxib_cmd_create_qp(struct cxib_dev *dev, const struct cxib_qpc *qpc, const dma_addr_t *pas,
		       u32 npas, u32 *qpn);
int cxib_cmd_destroy_qp(struct cxib_dev *dev, u32 qpn);
int cxib_cmd_modify_qp(struct cxib_dev *dev, u16 opcode, u32 qpn, u32 opt_mask,
		       const struct cxib_qpc *qpc);
int cxib_cmd_query_qp(struct cxib_dev *dev, u32 qpn, struct cxib_qpc *qpc);
int cxib_cmd_create_srq(struct cxib_dev *dev, const struct cxib_srqc *srqc,
			const dma_addr_t *pas, u32 npas, u32 *srqn);
int cxib_cmd_destroy_srq(struct cxib_dev *dev, u32 srqn);
int cxib_cmd_arm_srq(struct cxib_dev *dev, u32 srqn, u16 lwm);
int cxib_cmd_query_srq(struct cxib_dev *dev, u32 srqn, struct cxib_srqc *srqc);
int cxib_cmd_create_rmp(struct cxib_dev *dev, const struct cxib_rmpc *rmpc,
			const dma_addr_t *pas, u32 npas, u32 *rmpn);
int cxib_cmd_destroy_rmp(struct cxib_dev *dev, u32 rmpn);
int cxib_cmd_arm_rmp(struct cxib_dev *dev, u32 rmpn, u16 lwm);
int cxib_cmd_query_rmp(struct cxib_dev *dev, u32 rmpn, struct cxib_rmpc *rmpc);
int cxib_cmd_attach_to_mcg(struct cxib_dev *dev, u32 qpn, const union ib_gid *gid);
int cxib_cmd_detach_from_mcg(struct cxib_dev *dev, u32 qpn, const union ib_gid *gid);
int cxib_cmd_alloc_q_counter(struct cxib_dev *dev, u16 *id);
int cxib_cmd_dealloc_q_counter(struct cxib_dev *dev, u16 id);
int cxib_cmd_query_q_counter(struct cxib_dev *dev, u16 id, const u8 *dws, unsigned int n,
			     u64 *values);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_cmd_query_mkey(struct cxib_dev *dev, u32 mkey_index, struct cxib_mkc *mkc);
int cxib_cmd_query_cq(struct cxib_dev *dev, u32 cqn, struct cxib_cqc *cqc);
void cxib_rmp_build_arm(struct cxib_modify_rmp_in *in, u32 rmpn, u16 lwm);
void cxib_mcg_build_cmd(void *in, u16 opcode, u32 qpn, const union ib_gid *gid);
void cxib_q_counter_values(const struct cxib_query_q_counter_out *out, const u8 *dws,
			   unsigned int n, u64 *values);
#endif

#endif /* _CXIB_DRV_CMD_H */
