/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny test-side "driver" for the cxfw host tests: builds command queue entries and
 * mailbox chains in fake guest memory exactly as the PRM lays them out (using the shared
 * include/cxib headers), rings the doorbell, runs the worker and reads the result back.
 *
 *	__be32 in[4] = { 0 }, out[4];
 *
 *	cmd_hdr(in, CXIB_CMD_OP_ENABLE_HCA, 0);
 *	CHECK_EQ(cmd_exec(t, in, 16, out, 16), 0);		// delivery status
 *	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_STATUS), 0);
 *
 * Memory: slot s's mailboxes live in the 64 KiB at FAKE_MBOX_OFF + s * 64 KiB (input
 * blocks first, then output blocks, each 1 KiB aligned).
 */
#ifndef CXFW_TEST_DRV_H
#define CXFW_TEST_DRV_H

#include <stdbool.h>
#include <stdint.h>

#include <cxib/hw.h>
#include <cxib/ibwire.h>
#include <cxib/cmd.h>
#include <cxib/eq.h>
#include <cxib/mad.h>
#include <cxib/verbs.h>
#include <cxib/wqe.h>

#include "test.h"

#define DRV_TOKEN	0x5a

/* How the next prepared command is built (tests change these to break things). */
struct drv_opts {
	uint8_t token;		/* entry token (0: DRV_TOKEN) */
	bool sign;		/* fill entry and mailbox signatures */
	/*
	 * drv_world_init(): nodes without auto_activate, their ports configured and made
	 * ACTIVE by SubnSet(PortInfo) through MAD_IFC as a subnet manager would (LID
	 * DRV_SM_LID + node index, SM LID DRV_SM_LID).
	 */
	bool sm;
};

#define DRV_SM_LID	0x10

extern struct drv_opts drv;	/* reset to defaults by drv_reset() */

void drv_reset(struct test_ctx *t);

/* Write the opcode / op_mod header of a command input. */
void cmd_hdr(void *in, uint16_t opcode, uint16_t op_mod);

/* Address of block @k of slot @slot's input (@out: output) chain. */
uint64_t drv_mbox_addr(struct test_ctx *t, unsigned int slot, bool out, unsigned int k);

/* Build slot @slot's entry and chains (hardware owned); does not ring. */
void cmd_prepare(struct test_ctx *t, unsigned int slot, const void *in, uint32_t inlen,
		 uint32_t outlen);
/* Ring the doorbell for @mask and run the worker. */
void cmd_ring(struct test_ctx *t, uint32_t mask);
/*
 * Read slot @slot back: returns the delivery status, or -1 if the entry is still owned by
 * hardware.  With delivery 0 the first @outlen output bytes land in @out.
 */
int cmd_collect(struct test_ctx *t, unsigned int slot, void *out, uint32_t outlen);
/* prepare + ring + collect in slot 0. */
int cmd_exec(struct test_ctx *t, const void *in, uint32_t inlen, void *out, uint32_t outlen);

/* Status byte of an output. */
uint8_t out_status(const void *out);
/*
 * Run a command whose input is just the 16-byte header + dwords 2 and 3; returns the
 * output status, or 0x100 + delivery status when delivery failed.  @out gets @outlen bytes.
 */
unsigned int cmd_simple(struct test_ctx *t, uint16_t opcode, uint16_t op_mod, uint32_t dw2,
			uint32_t dw3, void *out, uint32_t outlen);

/* ---- bring-up helpers (mlx5_core's order: drivers/net/ethernet/mellanox/mlx5/core/main.c, mlx5_function_setup()), each returns the output status -------------- */

unsigned int drv_enable_hca(struct test_ctx *t);
unsigned int drv_query_pages(struct test_ctx *t, uint16_t op_mod, int32_t *npages);
/* Give @n fresh pages from the test's pool (their addresses are recorded). */
unsigned int drv_give_pages(struct test_ctx *t, uint32_t n);
/* Take up to @n pages back; *@got = how many came back, each must be one the test gave. */
unsigned int drv_take_pages(struct test_ctx *t, uint32_t n, uint32_t *got);
unsigned int drv_query_cap(struct test_ctx *t, uint16_t op_mod, struct cxib_hca_cap *cap);
unsigned int drv_set_cap(struct test_ctx *t, const struct cxib_hca_cap *cap);
unsigned int drv_set_cap_type(struct test_ctx *t, uint16_t type, const struct cxib_hca_cap *cap);
unsigned int drv_init_hca(struct test_ctx *t);
unsigned int drv_teardown_hca(struct test_ctx *t);
unsigned int drv_disable_hca(struct test_ctx *t);
unsigned int drv_alloc_uar(struct test_ctx *t, uint32_t *uar);
/* Everything up to and including INIT_HCA, as mlx5_core does it; 0 on success. */
unsigned int drv_bringup(struct test_ctx *t);
/* TEARDOWN_HCA, take every page back, DISABLE_HCA; 0 on success. */
unsigned int drv_teardown(struct test_ctx *t);
/* Pages given and not yet taken back, by the test's own count. */
uint32_t drv_pages_out(void);

/* An EQ buffer of 2^log_size EQEs at FAKE_EQ_OFF + @off with every owner bit set. */
uint64_t drv_eq_buffer(struct test_ctx *t, uint32_t off, unsigned int log_size);
/* CREATE_EQ on one contiguous buffer (4 KiB PAS pages); returns status, *eqn on success. */
unsigned int drv_create_eq(struct test_ctx *t, uint64_t buf, unsigned int log_size,
			   uint32_t uar, unsigned int intr, uint64_t events, uint32_t *eqn);
unsigned int drv_destroy_eq(struct test_ctx *t, uint32_t eqn);
/* Read EQE @index of the EQ buffer at @buf. */
void drv_eqe(struct test_ctx *t, uint64_t buf, uint32_t index, struct cxib_eqe *eqe);
/* EQ doorbell through UAR @uar: arm (UAR + 0x40) or update only (UAR + 0x48). */
void drv_eq_doorbell(struct test_ctx *t, uint32_t uar, uint32_t eqn, uint32_t ci, bool arm);

/* MAD_IFC: send the 256-byte @mad on @port; returns the command status, @resp the MAD. */
/* Verbs resources (test_mr.c, test_cq.c). */
#define DRV_CQ_OFF	0x500000	/* CQ buffers */
#define DRV_DBR_OFF	0x600000	/* doorbell records, 64 bytes apart */
#define DRV_DATA_OFF	0x700000	/* memory registered through mkeys */

unsigned int drv_run(struct test_ctx *t, const void *in, uint32_t inlen, void *out,
		     uint32_t outlen);
unsigned int drv_alloc_pd(struct test_ctx *t, uint32_t *pd);
unsigned int drv_dealloc_pd(struct test_ctx *t, uint32_t pd);

unsigned int drv_mad_ifc(struct test_ctx *t, unsigned int port, uint16_t op_mod,
			 const void *mad, void *resp);

/* ==== Data path mini driver (test_xport.c) ================================================
 *
 * What mlx5_ib does for kernel verbs, in fake guest memory: CQ rings polled by owner bit,
 * QPs with RQ + SQ in one buffer, WQEs built segment by segment from include/cxib/wqe.h,
 * doorbell record update then the 8-byte BlueFlame doorbell (alternating halves), SRQs with
 * linked free lists.  Several devices are joined by a fake_cable (fake.h).
 *
 *	struct drv_world w;
 *	struct drv_qp a, b;
 *
 *	CHECK_EQ(drv_world_init(t, &w, 2), 0);		// two HCAs, ports ACTIVE, cabled
 *	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &a, &b), 0);
 *	... drv_post_recv(&w.n[1], &b, ...); drv_post_send(&w.n[0], &a, &wr);
 *	drv_pump(&w);					// until the cable is quiet (see fake.h)
 *	CHECK_EQ(drv_poll(&w.n[0], a.scq, &cqe), 1);
 *
 * Guest memory of every node: queue buffers from DRV_CQ_OFF, doorbell records from
 * DRV_DBR_OFF, data buffers from DRV_DATA_OFF (bump allocators, page aligned).
 */
#define DRV_MAX_NODES		2
#define DRV_NODE1_BASE		0x40000000ull	/* node 1's guest memory base */
#define DRV_SERIAL(i)		(0x100u + (i))	/* distinct serials: distinct auto LIDs, GUIDs */
#define DRV_EQ_LOG		7
#define DRV_VA_BASE		0x00007f0000000000ull	/* MTT mkeys' virtual addresses */
#define DRV_PAGE		CXIB_ADAPTER_PAGE_SIZE
#define DRV_DEFAULT_QKEY	0x11223344u
#define DRV_MAX_SGE		4
#define DRV_GRH_LEN		CXIB_GRH_LEN	/* UD receive: GRH area before the payload */
#define DRV_MCAST_QPN		CXIB_MULTICAST_QPN
#define DRV_MCAST_LID		(CXIB_LID_MULTICAST_MIN + 1)
/* TODO(lead): no name for the BlueFlame half in include/cxib yet */
#define DRV_BF_HALF		(1u << (CXIB_LOG_BF_REG_SIZE - 1))	/* 256 B */

struct drv_cq;

struct drv_node {
	struct test_ctx *t;		/* this node's fake (t->fk) and device (t->dev) */
	unsigned int idx;
	uint16_t lid;			/* port 1, learnt with QUERY_HCA_VPORT_CONTEXT */
	uint64_t guid;			/* port 1 GUID, likewise */
	uint32_t uar, eqn, pd;
	uint64_t eq_buf;
	uint32_t eq_ci;
	uint8_t mkey_variant;		/* next variant byte for an mkey */
	uint64_t q_next, dbr_next, data_next;	/* bump allocators (guest addresses) */
};

struct drv_world {
	unsigned int nnodes;
	struct drv_node n[DRV_MAX_NODES];
	struct fake_cable *cable;	/* owned by drv.c, freed at the next drv_reset() */
	struct drv_cq *cq[DRV_MAX_NODES];	/* one shared CQ per node (log 8), see below */
};

struct drv_mr {
	uint32_t idx, key;		/* lkey == rkey */
	uint64_t pa, va;		/* guest physical and virtual start (va = pa for PA keys) */
	uint64_t len;
};

/* Access flags of an mkey (mkc lr/lw/rr/rw/a); DRV_NO_RINVAL clears mkc.en_rinval. */
enum {
	DRV_LR = 1 << 0, DRV_LW = 1 << 1, DRV_RR = 1 << 2, DRV_RW = 1 << 3, DRV_A = 1 << 4,
	DRV_ALL = 0x1f,
	DRV_NO_RINVAL = 1 << 5,
};

struct drv_cq {
	uint32_t cqn;
	uint64_t buf, dbr;
	unsigned int log_size;
	uint32_t ci;			/* CQEs consumed (free running) */
	uint8_t arm_sn;
};

struct drv_srq {
	uint32_t srqn;
	uint64_t buf, dbr;
	unsigned int log_size, stride;	/* stride: log2(WQE bytes) - 4 */
	uint16_t head, tail;		/* free list */
	uint16_t counter;		/* WQEs ever posted */
};

struct drv_qp {
	uint32_t qpn, st;
	uint64_t buf, sq, dbr;
	unsigned int log_rq, rq_stride, log_sq;
	uint16_t sq_pi, rq_pi;		/* producer counters: WQEBBs, RQ WQEs */
	uint32_t bf_off;		/* BlueFlame half to use next */
	struct drv_cq *scq, *rcq;
	struct drv_srq *srq;
	bool ipoib;			/* ulp_stateless_offload_mode IPOIB_UD */
};

/* Creation attributes; drv_qp_init_defaults() gives sane ones. */
struct drv_qp_init {
	uint32_t st;			/* CXIB_QPC_ST_RC / UC / UD */
	unsigned int log_rq, rq_stride, log_sq;
	struct drv_cq *scq, *rcq;
	struct drv_srq *srq;		/* non-NULL: rq_type SRQ */
	uint32_t qkey;			/* UD */
	bool rre, rwe, rae;		/* RC / UC remote access */
	bool block_lb_mc;
	uint32_t offload;		/* qpc ulp_stateless_offload_mode */
	uint32_t user_index;		/* qpc user_index (CQE version 1 puts it in CQEs) */
	bool no_pd;			/* qpc pd 0 (a UMR QP as mlx5_ib makes it) */
};

/* CQE version the bring-up asks for with SET_HCA_CAP (default 0); a test sets and restores it. */
extern unsigned int drv_cqe_version;
/* Atomic requester byte order the bring-up sets (default host order, as mlx5_core does). */
extern unsigned int drv_atomic_req_mode;

/* Connection attributes for RST -> INIT -> RTR -> RTS. */
struct drv_qp_conn {
	uint16_t dlid;
	uint32_t dqpn;
	uint32_t sq_psn, rq_psn;
	unsigned int mtu;		/* CXIB_QPC_MTU_* */
	unsigned int retry, rnr_retry;	/* 3 bits each (rnr 7 = infinite) */
	unsigned int timeout;		/* local ACK timeout: 4.096 us << timeout, 0 = off */
	unsigned int min_rnr;		/* RNR NAK timer code */
	unsigned int sra, rra;		/* log2 initiator depth / responder resources */
	unsigned int sl;
};

struct drv_sge {
	uint64_t addr;			/* VA of an MTT key (or PA of a PA key) */
	uint32_t len;
	uint32_t lkey;
	bool inl;			/* send WR: this entry inline (addr a PA, read at post) */
};

struct drv_ah {				/* UD address (datagram segment) */
	uint16_t dlid;
	uint32_t dqpn, qkey;
	unsigned int sl;
	bool grh;
	uint8_t dgid[16];
	uint8_t sgid_index, hop_limit, tclass;
	uint32_t flow_label;
};

struct drv_wr {
	unsigned int opcode;		/* CXIB_WQE_OPCODE_* */
	bool signaled, solicited, fence, inl;
	uint32_t imm;			/* immediate, or rkey to invalidate (SEND_INVAL) */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare;	/* atomics */
	struct drv_sge sg[DRV_MAX_SGE];
	unsigned int nsg;
	struct drv_ah ah;		/* UD */
	/* IPoIB UD QPs: the Ethernet segment (cs_flags; LSO: mss and hlen bytes of hdr) */
	uint8_t cs_flags;
	uint16_t mss;
	const uint8_t *hdr;
	uint32_t hlen;
};

/*
 * Recreate the fixture as node 0 (and create node 1 when @nnodes is 2) with distinct
 * serials (auto_activate derives LIDs and GUIDs from them); bring each up (drv_bringup,
 * UAR, EQ, PD, one CQ), plug port 1 of each into one cable (nnodes 1: a cable with one
 * end, the port is up, nothing comes back), then learn each port's LID and GUID with
 * QUERY_HCA_VPORT_CONTEXT as mlx5_ib does (0x1ef if a port is not ACTIVE).
 * Returns 0 or the first failing command status.
 */
unsigned int drv_world_init(struct test_ctx *t, struct drv_world *w, unsigned int nnodes);
/*
 * What a subnet manager does to a port in Init: SubnGet(PortInfo), SubnSet with @lid and
 * @sm_lid, then PortState Armed and Active (MAD_IFC, M_Key ignored).  0 or the first
 * failing command status, 0x1000 + MAD status.
 */
unsigned int drv_sm_activate(struct test_ctx *t, uint16_t lid, uint16_t sm_lid);
/* SubnGet / SubnSet one attribute through MAD_IFC on port 1; same return convention. */
unsigned int drv_smp(struct test_ctx *t, uint8_t method, uint16_t attr, uint32_t mod,
		     uint16_t op_mod, uint8_t data[CXIB_SMP_DATA_SIZE]);
/* Pump the cable until quiet (bounded); returns rounds or -1. */
int drv_pump(struct drv_world *w);
/* Pump while advancing both clocks by @step_ns whenever quiet, for @total_ns; 0, or -1
 * if the cable once did not get quiet (a packet storm). */
int drv_pump_time(struct drv_world *w, uint64_t step_ns, uint64_t total_ns);

/* Allocate @len bytes (page aligned) of data memory on @n; returns the guest address. */
uint64_t drv_alloc_data(struct drv_node *n, uint64_t len);
void drv_mem_write(struct drv_node *n, uint64_t pa, const void *buf, size_t len);
void drv_mem_read(struct drv_node *n, uint64_t pa, void *buf, size_t len);
void drv_mem_fill(struct drv_node *n, uint64_t pa, uint8_t byte, size_t len);
/* Deterministic pattern for message @seed: byte i = f(seed, i). */
void drv_pattern(uint8_t *buf, size_t len, uint32_t seed);

/* An MTT mkey over fresh data memory of @len bytes with @access (DRV_*). */
unsigned int drv_mr_alloc(struct drv_node *n, uint64_t len, unsigned int access,
			  struct drv_mr *mr);
/* An MTT mkey over [pa, pa + len) (page aligned pa) in PD @pd. */
unsigned int drv_mr_create(struct drv_node *n, uint32_t pd, uint64_t pa, uint64_t len,
			   unsigned int access, struct drv_mr *mr);
/* A PA mkey (length64, identity) with @access: addresses are guest physical. */
unsigned int drv_mr_pa(struct drv_node *n, unsigned int access, struct drv_mr *mr);
unsigned int drv_mr_destroy(struct drv_node *n, struct drv_mr *mr);
/* Guest physical address of VA @va of @mr. */
uint64_t drv_mr_pa_of(const struct drv_mr *mr, uint64_t va);

/* CQ of 2^@log_size 64-byte CQEs, every entry invalid (op_own 0xf0), on the node's EQ. */
unsigned int drv_cq_create(struct drv_node *n, unsigned int log_size, struct drv_cq *cq);
/* Next CQE if software owns it (then the consumer index advances and set_ci is written). */
int drv_poll(struct drv_node *n, struct drv_cq *cq, struct cxib_cqe64 *cqe);
/* Poll until @want CQEs or none is left; returns how many were taken. */
unsigned int drv_poll_many(struct drv_node *n, struct drv_cq *cq, struct cxib_cqe64 *cqes,
			   unsigned int want);
/* Arm: doorbell record dword 1 mirrored, then the 64-bit UAR doorbell. */
void drv_cq_arm(struct drv_node *n, struct drv_cq *cq, bool solicited);
/* Next EQE of the node's EQ (type) or -1; consumes it and re-arms the EQ. */
int drv_next_event(struct drv_node *n, struct cxib_eqe *eqe);
/* Consume EQEs until one of @type is found: 1, or 0 if none. */
int drv_find_event(struct drv_node *n, unsigned int type, struct cxib_eqe *eqe);

unsigned int drv_srq_create(struct drv_node *n, unsigned int log_size, unsigned int stride,
			    struct drv_srq *srq);
/* Post one SRQ WQE; returns its index, or -1 if the SRQ is full. */
int drv_srq_post(struct drv_node *n, struct drv_srq *srq, const struct drv_sge *sg,
		 unsigned int nsg);
/* ARM_RQ: one SRQ_RQ_LIMIT event when fewer than @lwm WQEs remain posted. */
unsigned int drv_srq_arm(struct drv_node *n, struct drv_srq *srq, uint16_t lwm);
/* Give WQE @idx (a completed CQE's wqe_counter) back to the free list. */
void drv_srq_free(struct drv_node *n, struct drv_srq *srq, uint16_t idx);

void drv_qp_init_defaults(struct drv_qp_init *a, uint32_t st, struct drv_cq *cq);
void drv_qp_conn_defaults(struct drv_qp_conn *c);
unsigned int drv_qp_create(struct drv_node *n, const struct drv_qp_init *a, struct drv_qp *qp);
/* RST -> INIT -> RTR only (a passive side before its RTU). */
unsigned int drv_qp_rtr(struct drv_node *n, struct drv_qp *qp, const struct drv_qp_init *a,
			const struct drv_qp_conn *c);
/* RST -> INIT -> RTR -> RTS (RC/UC use @c fully; UD only the PSN). */
unsigned int drv_qp_connect(struct drv_node *n, struct drv_qp *qp, const struct drv_qp_init *a,
			    const struct drv_qp_conn *c);
unsigned int drv_qp_modify(struct drv_node *n, struct drv_qp *qp, uint16_t op);
/* State by QUERY_QP (CXIB_QPC_STATE_*), or 0xff if the query failed. */
unsigned int drv_qp_state(struct drv_node *n, struct drv_qp *qp);
/*
 * A QP on node 0 and one on node 1 (both on node 0 in a one-node world), both on their
 * node's w->cq, connected to each other with @conn (NULL: defaults; dlid/dqpn/rq_psn are
 * filled in).
 */
unsigned int drv_rc_pair(struct drv_world *w, uint32_t st, const struct drv_qp_conn *conn,
			 struct drv_qp *a, struct drv_qp *b);
/* The same with explicit creation attributes for @a (node 0) and @b (node 1, or 0). */
unsigned int drv_pair_init(struct drv_world *w, const struct drv_qp_init *ia,
			   const struct drv_qp_init *ib, const struct drv_qp_conn *conn,
			   struct drv_qp *a, struct drv_qp *b);
/* ATTACH_TO_MCG / DETACH_FROM_MCG of @qp to the 16-byte MGID @gid. */
unsigned int drv_mcg(struct drv_node *n, struct drv_qp *qp, const uint8_t gid[16], bool attach);

/*
 * Build @wr at the SQ producer, wrap at the ring end, update the doorbell record, ring the
 * BlueFlame doorbell.  Returns the WQE index (the CQE's wqe_counter) or -1 if @wr cannot
 * be built (too many segments, SQ full is not checked).  An entry with sg[i].inl is an
 * inline segment of its own among pointer segments.  With wr->inl the segments'
 * addresses are guest physical (the CPU copies the bytes into the WQE) and keys unused.
 */
int drv_post_send(struct drv_node *n, struct drv_qp *qp, const struct drv_wr *wr);
/* One RQ WQE with @nsg segments (terminated if shorter than the stride). Returns its index. */
int drv_post_recv(struct drv_node *n, struct drv_qp *qp, const struct drv_sge *sg,
		  unsigned int nsg);

#endif /* CXFW_TEST_DRV_H */
