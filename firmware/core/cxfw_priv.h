/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw core internals shared by the core's files: util.c (log, clock, PAS lists, UAR check),
 * core.c (lifecycle), iseg.c (BAR0 register file), cmd.c (command engine), hca.c (HCA
 * lifecycle, capabilities, UARs), pages.c (firmware pages), eq.c (event queues), port.c
 * (port state, registers, vport queries), sma.c (MAD_IFC), pma.c (PerfMgt behind MAD_IFC).
 * Not part of the platform interface.
 */
#ifndef CXFW_PRIV_H
#define CXFW_PRIV_H

#include <pthread.h>

#include <cxib/hw.h>
#include <cxib/cmd.h>
#include <cxib/eq.h>
#include <cxib/mad.h>
#include <cxib/pma.h>
#include <cxib/verbs.h>
#include <cxib/wqe.h>

#include "cxfw.h"
#include "engine.h"
#include "wire.h"

#define CXFW_NS_PER_US		1000ull
#define CXFW_NS_PER_MS		1000000ull
#define CXFW_NS_PER_SEC		1000000000ull
#define CXFW_MAX_PORTS		2	/* size of cxfw_stats.link_up[] */
#define CXFW_MAX_MSIX		2048	/* PCI MSI-X table size limit */
#define CXFW_LOG_CMDQ_SIZE_MIN	1	/* Linux reserves the last slot for MANAGE_PAGES */
#define CXFW_MAX_FW_PAGES	65536	/* bound of boot_pages + init_pages */
#define CXFW_MAX_RUNTIME_PAGES_PER_QP	256	/* bound of cfg.runtime_pages */
#define CXFW_MAX_RUNTIME_PAGES	16384	/* pages asked for at run time, in all */

/* Health buffer contents the model reports once the firmware is dead. */
#define CXFW_HEALTH_SEVERITY_CRIT	2	/* syslog-style level: critical */
#define CXFW_HEALTH_SYND_FW_INTERNAL	0x01	/* used when a fatal is injected with synd 0 */

/* Resource limits (also reported in the capabilities, hca.c: each value comes from here). */
#define CXFW_LOG_MAX_EQ		5			/* 32 EQs */
#define CXFW_MAX_EQS		(1u << CXFW_LOG_MAX_EQ)
#define CXFW_LOG_MAX_EQ_SZ	16			/* 65536 EQEs */
#define CXFW_MAX_LOG_PAGE_SIZE	18			/* queue pages up to 1 GiB (4 KiB << 18) */
#define CXFW_UAR_BASE		((uint64_t)CXIB_FIRST_UAR_INDEX << CXIB_ADAPTER_PAGE_SHIFT)
#define CXFW_NUM_UAR_PAGES	(CXIB_BAR0_SIZE >> CXIB_ADAPTER_PAGE_SHIFT)
#define CXFW_LOG_UAR_AREA	13			/* uar_sz: 4 KiB << 13 = the 32 MiB BAR */
#define CXFW_UARS_PER_PAGE	1			/* num_of_uars_per_page */
#define CXFW_CAP_PKEY_TABLE_SIZE 0			/* pkey_table_size: 128 P_Keys */
#define CXFW_PKEY_TABLE_LEN	CXIB_CAP_PKEY_TABLE_LEN(CXFW_CAP_PKEY_TABLE_SIZE)
#define CXFW_CAP_GID_TABLE_SIZE	0			/* gid_table_size: 8 GIDs */
#define CXFW_GID_TABLE_LEN	CXIB_CAP_GID_TABLE_LEN(CXFW_CAP_GID_TABLE_SIZE)
#define CXFW_LOCAL_CA_ACK_DELAY	16			/* 4.096 us << 16 = 268 ms */
#define CXFW_PORT_EVENTS	32			/* pending port change events */
#define CXFW_LOG_MAX_PD		16			/* PD numbers 1 .. 65535 */
#define CXFW_MAX_PDS		(1u << CXFW_LOG_MAX_PD)
/* cxfw_mkey_translate()'s pd for a QP without one (a UMR QP of PD 0): keys of any PD */
#define CXFW_PD_ANY		UINT32_MAX
#define CXFW_LOG_MAX_MKEY	16			/* mkey indexes 2 .. 65535 */
#define CXFW_MAX_MKEYS		(1u << CXFW_LOG_MAX_MKEY)
#define CXFW_FIRST_MKEY		2	/* index 1 would make lkey 0x100 (CXIB_INVALID_LKEY) */
#define CXFW_MAX_MTT_OCTWORDS	(1u << 20)		/* 2 Mi translation entries per mkey */
#define CXFW_MKEY_MAX_LOG_PAGE	30			/* MTT pages 4 KiB .. 1 GiB */
#define CXFW_MAX_MTT_TOTAL	(1u << 24)		/* MTT entries held, all mkeys (128 MiB) */
#define CXFW_LOG_MAX_MRW_SZ	64			/* an mkey may cover any length */
#define CXFW_LOG_MAX_KLM_LIST_SIZE 16
#define CXFW_LOG_MAX_MSG	30			/* 1 GiB messages (req.c) */
#define CXFW_LOG_MAX_CQ		12			/* CQNs 1 .. 4095 */
#define CXFW_MAX_CQS		(1u << CXFW_LOG_MAX_CQ)
#define CXFW_LOG_MAX_CQ_SZ	22
#define CXFW_LOG_MAX_QP		18			/* QPNs 2 .. 2^18 - 1 */
#define CXFW_MAX_QPS		(1u << CXFW_LOG_MAX_QP)
#define CXFW_DEFAULT_LOG_MAX_QP	16			/* current log_max_qp before SET_HCA_CAP */
#define CXFW_LOG_MAX_QP_SZ	15			/* 32768 WQEs per SQ and RQ */
#define CXFW_LOG_MAX_RA_REQ_QP	4			/* READ / atomic requests in flight, per QP */
#define CXFW_LOG_MAX_RA_RES_QP	4			/* ... and responder resources (resp.h) */
/* qpc and srqc log_rq_stride: receive WQEs up to 512 bytes (max_wqe_sz_rq) */
#define CXFW_MAX_LOG_RQ_STRIDE	5
#define CXFW_MAX_RQ_WQE_BYTES	(1u << (CXIB_QPC_LOG_RQ_STRIDE_BASE + CXFW_MAX_LOG_RQ_STRIDE))
#define CXFW_MAX_SQ_WQE_BYTES	(CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB)	/* max_wqe_sz_sq */
#define CXFW_QP_DB_RING		256			/* pending SQ doorbells */
#define CXFW_QP_ERR_POLL_MAX	4096	/* QPs in ERR whose RQ doorbell record the worker reads */
#define CXFW_QP_ERR_POLL_BUDGET	8	/* ... at most this many per cxfw_process() pass ... */
#define CXFW_QP_ERR_POLL_NS	CXFW_NS_PER_MS	/* ... each at most this often */
#define CXFW_LOG_MAX_SRQ	12			/* SRQNs 1 .. 4095 */
#define CXFW_MAX_SRQS		(1u << CXFW_LOG_MAX_SRQ)
#define CXFW_LOG_MAX_SRQ_SZ	15			/* 32768 WQEs per SRQ */
#define CXFW_LOG_MAX_RMP	10			/* reported; RMPs take SRQNs too */
#define CXFW_LOG_MAX_XRCD	8			/* XRCDs 1 .. 255 */
#define CXFW_MAX_XRCDS		(1u << CXFW_LOG_MAX_XRCD)
#define CXFW_LOG_MAX_MCG	12			/* multicast groups */
#define CXFW_MAX_MCGS		(1u << CXFW_LOG_MAX_MCG)
#define CXFW_MAX_QP_MCG		240			/* QPs per group */
#define CXFW_MAX_Q_COUNTERS	16			/* Q counter sets 1 .. 15 (cap max_qp_cnt) */

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
	CXFW_SYND_ORDER		= 0x18,	/* detail: opcode of the command that must come first */
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

struct cxfw_wire;
struct cxfw_req;
struct cxfw_req_dev;
struct cxfw_resp;
struct cxfw_resp_dev;

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

/* One memory key (mr.c). */
struct cxfw_mkey {
	uint32_t pd;
	uint8_t variant;		/* mkey_7_0 */
	uint8_t access_mode;		/* CXIB_MKC_ACCESS_MODE_PA / _MTT */
	uint8_t access;			/* CXFW_ACCESS_* */
	uint8_t log_page_size;		/* MTT: absolute */
	bool free, umr_en, length64, en_rinval;
	uint32_t qpn;
	uint64_t start, len;
	uint32_t octwords;		/* translations_octword_size (capacity) */
	uint32_t nmtt;			/* MTT entries loaded */
	uint64_t *mtt;
};

/* One completion queue (cq.c). */
struct cxfw_cq {
	uint64_t serial;		/* creation number, never reused */
	uint8_t log_size;
	uint8_t log_page_size;		/* relative to 4 KiB */
	uint8_t page_offset;		/* 64-byte units */
	uint8_t cqe_sz;			/* CXIB_CQC_CQE_SZ_64 / _128 */
	bool oi;
	uint8_t period_mode;		/* CXIB_CQ_PERIOD_MODE_START_FROM_EQE / _CQE */
	uint16_t period, max_count;	/* moderation: microseconds / CQEs, 0 = off */
	bool scqe_break;		/* scqe_break_moderation_en */
	bool mod_wait;			/* armed and due but for the period (counted in dev) */
	uint64_t mod_ts_ns;		/* period timer start: last EQE or last CQE (mode) */
	uint32_t uar;
	uint32_t eqn;
	uint64_t eq_serial;
	uint64_t dbr;
	uint32_t npas;
	uint64_t *pas;
	uint32_t prod;			/* CQEs written so far */
	uint32_t cons;			/* set_ci read at the last CQE write */
	uint32_t arm_ci;		/* ci of the last accepted arm doorbell */
	uint8_t arm;			/* 0 not armed, else CXFW_CQ_ARM_NEXT / _SOL */
	uint8_t arm_sn;			/* sn of the current (or last fired) arm */
	bool fired;			/* an arm fired and no newer arm arrived since */
	bool fire_pending;		/* the doorbell found a qualifying CQE: worker posts EQE */
	bool sol_seen;			/* a solicited / error CQE was written ... */
	uint32_t sol_idx;		/* ... the last one at this index */
	uint32_t last_notified;		/* producer counter when the last event fired */
	bool overflow;			/* overrun: CQ in error, CQEs dropped */
	bool write_failure;
	uint32_t refs;			/* QPs / SRQs using it */
};

/* One queue pair (qp.c): context, state, and the engines' own state (req.h, resp.h). */
struct cxfw_qp {
	__be32 qpc[CXIB_QPC_SIZE / 4];	/* context image (state field not kept current) */
	uint32_t qpn;
	uint8_t state;			/* CXIB_QPC_STATE_* */
	uint8_t st;			/* CXIB_QPC_ST_* */
	uint32_t pd, cqn_snd, cqn_rcv;
	uint32_t srqn;			/* rq_type SRQ: the SRQ it holds, else 0 */
	bool xrc_srq;			/* srqn is an XRC SRQ: cqn_rcv is its CQ ... */
	uint32_t xrc_uidx;		/* ... and receive CQEs (version 1) carry its user_index */
	uint32_t npas;
	uint64_t *pas;			/* RQ then SQ */
	/* queue geometry, fixed at creation */
	uint32_t uar;
	uint64_t dbr;
	uint8_t log_pg, page_offset;
	uint8_t log_rq, rq_stride, log_sq, rq_type;
	bool no_sq;
	/* consumer counters (16 bits used): SQ in WQEBBs, RQ in WQEs */
	uint16_t sq_cons, rq_cons;
	bool sq_db_pending;		/* an SQ doorbell is waiting for the worker */
	bool err_poll;			/* in dev->qp_err_poll: receives posted in ERR flushed */
	uint64_t err_poll_ns;		/* when its doorbell record was last read for that */
	struct cxfw_req *req;		/* requester (req.c): made at CREATE_QP, worker only */
	struct cxfw_resp *resp;		/* responder (resp.c): likewise */
};

/*
 * A UD QP carrying IPoIB with the stateless offloads (ipoib.c): its send WQEs have the
 * Ethernet segment, its receives are checksum-checked.
 */
static inline bool cxfw_qp_ipoib(const struct cxfw_qp *qp)
{
	return qp->st == CXIB_QPC_ST_UD &&
	       CXIB_GET(qp->qpc, CXIB_QPC_ULP_STATELESS_OFFLOAD_MODE) ==
	       CXIB_QPC_ULP_OFFLOAD_IPOIB_UD;
}

/* Which commands name an SRQ object (one SRQN space for all three). */
enum cxfw_srq_kind {
	CXFW_SRQ_KIND_SRQ	= 1,	/* CREATE_SRQ (ISSI 0) */
	CXFW_SRQ_KIND_XRC_SRQ	= 2,	/* CREATE_XRC_SRQ */
	CXFW_SRQ_KIND_RMP	= 3,	/* CREATE_RMP */
};

/*
 * One shared receive queue (srq.c; its WQEs are consumed by resp.c).  @srqc is the receive
 * engine's view in the srqc layout (log_rq_stride, dbr_addr): the srqc or xrc_srqc as
 * created (same positions), or for an RMP one built from its wq context, kept in @rmpc.
 */
struct cxfw_srq {
	__be32 srqc[CXIB_SRQC_SIZE / 4];
	struct cxib_rmpc rmpc;		/* RMP: rmpc + wq as created */
	uint8_t kind;			/* enum cxfw_srq_kind */
	uint32_t pd, cqn;		/* cqn: XRC SRQ completions (and an ISSI 0 srqc's) */
	uint32_t xrcd, user_index;	/* XRC SRQ */
	uint8_t log_size, log_stride;	/* 2^log_size WQEs of 2^log_stride bytes */
	uint8_t log_pg;			/* pages of 4 KiB << log_pg */
	uint32_t offset;		/* of WQE 0 in the first page, bytes */
	uint16_t lwm;			/* ARM_RQ limit watermark */
	bool armed;			/* limit event armed */
	bool error;
	uint32_t refs;			/* QPs using it */
	uint32_t npas;
	uint64_t *pas;
	/* receive engine (resp.c), worker only */
	uint16_t wqe_head;		/* index of the next WQE (follows next_wqe_index) */
	uint16_t wqe_cons;		/* WQEs consumed, compared with the doorbell counter */
};

/* One multicast group (mcg.c). */
struct cxfw_mcg {
	uint8_t gid[CXIB_MGID_LEN];
	uint32_t nqps;
	uint32_t qpns[CXFW_MAX_QP_MCG];
};

enum {
	CXFW_CQ_ARM_NEXT	= 1,
	CXFW_CQ_ARM_SOL		= 2,
};

/* Access rights a translation asks for (mkc lr/lw/rr/rw/a). */
enum {
	CXFW_ACCESS_LOCAL_READ		= 1 << 0,
	CXFW_ACCESS_LOCAL_WRITE		= 1 << 1,
	CXFW_ACCESS_REMOTE_READ		= 1 << 2,
	CXFW_ACCESS_REMOTE_WRITE	= 1 << 3,
	CXFW_ACCESS_REMOTE_ATOMIC	= 1 << 4,
};

#define CXFW_ACCESS_REMOTE	(CXFW_ACCESS_REMOTE_READ | CXFW_ACCESS_REMOTE_WRITE | \
				 CXFW_ACCESS_REMOTE_ATOMIC)

/* A piece of guest memory a translation produced. */
struct cxfw_sg {
	uint64_t addr;
	uint32_t len;
};

/*
 * One port's performance counters (pma.c reports them, wire.c counts them): raw 64-bit
 * totals of what crossed the link, never of packets looped back inside the device.  The
 * PMA derives its saturated 32/16/8-bit views on read; a reset zeroes the raw value.
 * Under dev->lock.
 */
struct cxfw_pma_counters {
	uint64_t xmit_data, rcv_data;	/* 4-octet words, LRH through ICRC (no VCRC) */
	uint64_t xmit_pkts, rcv_pkts;	/* rcv_pkts includes packets with errors */
	uint64_t ucast_xmit_pkts, ucast_rcv_pkts;
	uint64_t mcast_xmit_pkts, mcast_rcv_pkts;
	uint64_t rcv_errors;		/* malformed (parse, CRC, VL misuse) packets */
	uint64_t symbol_errors;		/* packets from the cable whose VCRC failed: bit errors */
	uint64_t rcv_constraint_errors;	/* inbound P_Key violations, one per packet */
	uint64_t xmit_discards;		/* not sent: link down, the cable refused it */
	uint64_t vl15_dropped;		/* well-formed VL15 packets dropped */
};

/* VLArbitrationTable entries per table (PortInfo VLArbitrationHigh/LowCap). */
#define CXFW_VL_ARB_CAP		8
#define CXFW_PORT_TRAPS		4	/* traps waiting for the SM's TrapRepress, per port */
/* The link: 1X or 4X at SDR, DDR or QDR (trains to 4X QDR); PortInfo error thresholds. */
#define CXFW_PORT_WIDTHS	(CXIB_IB_WIDTH_1X | CXIB_IB_WIDTH_4X)
#define CXFW_PORT_SPEEDS	(CXIB_IB_SPEED_SDR | CXIB_IB_SPEED_DDR | CXIB_IB_SPEED_QDR)
#define CXFW_PORT_LOCAL_ERR_THRESH 8	/* LocalPhyErrors / OverrunErrors thresholds */

/* A trap (Notice) the SMA sends to the master SM until it is repressed (sma.c). */
struct cxfw_trap {
	uint64_t tid;
	uint64_t next_ns;		/* next (re)send */
	unsigned int sends;		/* sends so far; 0: not yet sent */
	uint8_t notice[CXIB_SMP_DATA_SIZE];
};

/*
 * One port as its SMA and the vport queries see it.  Everything a SubnSet(PortInfo) writes
 * is kept here and echoed by every later SubnGet (sma.c), so the SM finds what it wrote.
 */
struct cxfw_port {
	uint8_t state;			/* IB PortState */
	uint8_t phys_state;		/* IB PortPhysicalState */
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl, subnet_timeout;
	uint8_t neighbor_mtu, op_vls;
	uint32_t cap_mask;		/* PortInfo.CapabilityMask (PCAP writes it) */
	uint64_t gid_prefix;
	uint16_t qkey_violations, pkey_violations, mkey_violations;
	uint16_t pkeys[CXFW_PKEY_TABLE_LEN];
	struct cxfw_pma_counters pma;	/* zeroed with the port (power-on, function reset) */
	uint64_t guids[CXFW_GID_TABLE_LEN];	/* GUIDInfo; [0] is the port GUID, read-only */
	/* M_Key protection (IBTA vol 1 14.2.4) */
	uint64_t mkey;
	uint16_t mkey_lease_period;	/* seconds; 0: the lease never expires */
	uint8_t mkey_protect;
	uint64_t mkey_lease_end_ns;	/* protection drops at this time; 0: lease not running */
	/* written by the SM, echoed, otherwise without effect on a CA */
	uint8_t link_down_default, width_enabled, speed_enabled;
	uint8_t phy_err_thresh, overrun_thresh;
	uint8_t vl_high_limit, hoq_life, vl_stall_count;
	uint8_t sl2vl[CXIB_SMP_SL_TO_VL_ENTRIES];
	uint8_t vl_arb[2][CXFW_VL_ARB_CAP][2];	/* [low, high][entry][VL, weight] */
	uint64_t retrain_ns;		/* SubnSet PortState Down: link retrains at this time */
	/* traps waiting for TrapRepress (sma.c) */
	struct cxfw_trap traps[CXFW_PORT_TRAPS];
	unsigned int ntraps;
	bool notice_toggle;
};

/* Link faults (fault.c), by kind; each has a rate in parts per million. */
enum cxfw_link_fault_kind {
	CXFW_LINK_LOSS,
	CXFW_LINK_DUP,
	CXFW_LINK_REORDER,
	CXFW_LINK_CORRUPT,
	CXFW_LINK_FAULTS
};

/* What the link does with one packet (cxfw_fault_link()). */
enum cxfw_link_verdict {
	CXFW_LINK_SEND,			/* on the cable (perhaps with a bit flipped) */
	CXFW_LINK_SEND_TWICE,		/* on the cable twice */
	CXFW_LINK_LOSE,			/* never arrives */
	CXFW_LINK_HOLD,			/* kept; goes after the port's next packet */
};

/* One port's link faults: settings and counts under dev->lock; rng and held worker-only. */
struct cxfw_link_fault {
	uint32_t ppm[CXFW_LINK_FAULTS];
	uint64_t count[CXFW_LINK_FAULTS];	/* packets lost, duplicated, reordered, corrupted */
	uint64_t rng;
	uint8_t *held;			/* CXFW_PKT_MAX bytes once reordering held a packet */
	size_t held_len;		/* 0: nothing held */
};

#define CXFW_FAULT_ALWAYS	UINT32_MAX	/* cmd_fail_left: until cleared */
#define CXFW_FAULT_CMD_SYNDROME	0x0fa017edu	/* syndrome of a command failed on purpose */

/* Faults set at run time (fault.c); under dev->lock unless said otherwise. */
struct cxfw_fault {
	struct cxfw_link_fault link[CXFW_MAX_PORTS];
	bool health_stall;		/* the health counter reads health_counter */
	uint32_t health_counter;
	bool cmd_hang;			/* commands rung are not executed */
	uint16_t cmd_fail_opcode;	/* fails with cmd_fail_status ... */
	uint8_t cmd_fail_status;
	uint32_t cmd_fail_left;		/* ... this many more times */
	uint64_t cmds_failed;
	uint32_t dma_read_fail, dma_write_fail;	/* accesses still to fail */
	bool dma_armed;			/* either is non-zero (read without the lock) */
	uint64_t dma_failed;
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
	uint64_t cmd_trace_seq;		/* next command-trace line's number (never reset) */
	bool issi_set;			/* SET_ISSI ran since ENABLE_HCA (strict.c) */
	/* Runtime page requests (pages.c), from INIT_HCA on. */
	uint32_t runtime_extra;		/* pages asked for beyond boot + init */
	uint32_t live_qps, peak_qps;
	struct cxib_hca_cap cap_max, cap_cur;			/* general (type 0) */
	struct cxib_hca_cap atomic_cap_max, atomic_cap_cur;	/* atomic (type 3) */
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

	/* Verbs resources (mr.c, cq.c), allocated on first use; index = number. */
	uint32_t *pd_refs;		/* 0 free, else 1 + mkeys and QPs using it */
	uint64_t xrcd_map[CXFW_MAX_XRCDS / 64];
	struct cxfw_mkey **mkeys;
	uint64_t mtt_total;		/* MTT entries held by all mkeys */
	struct cxfw_cq **cqs;
	struct cxfw_qp **qps;
	uint32_t qpn_next;		/* where CREATE_QP looks for a free QPN first */
	uint32_t qp_db_ring[CXFW_QP_DB_RING];	/* QPNs with sq_db_pending, oldest first */
	unsigned int qp_db_head, qp_db_count;
	uint32_t qp_err_poll[CXFW_QP_ERR_POLL_MAX];	/* QPNs with err_poll set */
	unsigned int qp_err_count, qp_err_cursor;
	bool qp_db_overflow;		/* ring was full: scan every QP */
	struct cxfw_srq **srqs;
	struct cxfw_mcg **mcgs;
	uint32_t q_counter_map;		/* counters.c: bit n = Q counter set n allocated */
	struct cxfw_stats q_counter_base[CXFW_MAX_Q_COUNTERS];	/* stats at alloc / clear */
	uint64_t cq_serial;
	unsigned int cq_fire_pending;	/* CQs with fire_pending set */
	unsigned int cq_mod_waiting;	/* CQs with mod_wait set ... */
	uint64_t cq_mod_next_ns;	/* ... none of them due before this */

	/* Data-path state of wire.c, req.c and resp.c that is not per QP (each file's own type). */
	struct cxfw_wire *wire;
	struct cxfw_req_dev *req_dev;
	struct cxfw_resp_dev *resp_dev;

	/* Ports (port.c), index port - 1. */
	struct cxfw_port ports[CXFW_MAX_PORTS];
	struct cxfw_port_event port_events[CXFW_PORT_EVENTS];
	unsigned int port_ev_head, port_ev_count;
	uint64_t trap_tid;		/* transaction ID of the last trap the SMA sent */

	struct cxfw_fault fault;	/* fault.c */
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

/* util.c: the leaf every file uses */
void cxfw_log(struct cxfw_dev *dev, enum cxfw_log_level level, const char *fmt, ...)
	CXFW_PRINTF(3, 4);
uint64_t cxfw_now(struct cxfw_dev *dev);
void cxfw_stat_add(struct cxfw_dev *dev, uint64_t *counter, uint64_t n);
/* The firmware is dead (cxfw_inject_fatal) until its next reset: it runs nothing. */
bool cxfw_dead(struct cxfw_dev *dev);
/*
 * Text built piece by piece into a caller's buffer of @len bytes (always terminated when
 * @len > 0); @need counts every byte asked for, as snprintf does, so a first pass with
 * @len 0 sizes the buffer of a second.
 */
struct cxfw_text {
	char *buf;
	size_t len, need;
};
void cxfw_textf(struct cxfw_text *t, const char *fmt, ...) CXFW_PRINTF(2, 3);
/*
 * Read and check the PAS list of a queue of @bytes bytes (page_offset included) made of
 * pages of 4 KiB << @log_pg; on success *list (malloc'd) and *npas are set.
 */
uint8_t cxfw_pas_load(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t pas_off,
		      uint32_t log_pg, uint64_t bytes, uint64_t **list, uint32_t *npas,
		      const char *what);
bool cxfw_uar_allocated(const struct cxfw_dev *dev, uint32_t uar);	/* lock held */

/* core.c */
void cxfw_function_reset(struct cxfw_dev *dev, const char *why);

/*
 * fault.c.  cxfw_dma_read/_write are how the core reaches guest memory: the platform's
 * DMA, unless a DMA fault says this access fails (-1, as for an unmapped address).
 */
void cxfw_fault_init(struct cxfw_dev *dev);
void cxfw_fault_fini(struct cxfw_dev *dev);
void cxfw_fault_reset_firmware(struct cxfw_dev *dev);	/* lock held */
int cxfw_dma_read(struct cxfw_dev *dev, uint64_t addr, void *buf, size_t len);
int cxfw_dma_write(struct cxfw_dev *dev, uint64_t addr, const void *buf, size_t len);
/* What the link of @port does with the packet @pkt about to go on its cable.  Worker. */
enum cxfw_link_verdict cxfw_fault_link(struct cxfw_dev *dev, unsigned int port, uint8_t *pkt,
				       size_t len);
/* The packet held for reordering on @port into @buf (CXFW_PKT_MAX); its length, 0: none. */
size_t cxfw_fault_take_held(struct cxfw_dev *dev, unsigned int port, uint8_t *buf);
bool cxfw_fault_cmd_hang(struct cxfw_dev *dev);
/* The command @opcode is to fail: true with its *@status and *@syndrome. */
bool cxfw_fault_cmd_fail(struct cxfw_dev *dev, uint16_t opcode, uint8_t *status,
			 uint32_t *syndrome);

/* iseg.c (lock held) */
uint32_t cxfw_iseg_health_counter(const struct cxfw_dev *dev, uint64_t now);
uint64_t cxfw_iseg_cmdq_base(const struct cxfw_dev *dev);

/* cmd.c */
void cxfw_cmd_process(struct cxfw_dev *dev);

/* cmdtrace.c: the trace line of an executed command (@name NULL: unknown opcode). */
#define CXFW_TRACE_LINE_MAX	2048

/* strict.c: the strict-mode rules for a command about to run; its status (0: run it). */
uint8_t cxfw_strict_check(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
/*
 * A doorbell for @what number @num came through UAR page @uar and is ignored; @owner is
 * the object's own UAR page (0: no such object, or a QP without a send queue).  Logged;
 * under strict mode's uar-owner rule when the object exists.  Lock not held.
 */
void cxfw_doorbell_refused(struct cxfw_dev *dev, const char *what, uint32_t num,
			   uint32_t uar, uint32_t owner);
void cxfw_cmd_trace(struct cxfw_dev *dev, const struct cxfw_cmd *cmd, const char *name,
		    uint8_t status);
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
void cxfw_hca_release_resources(struct cxfw_dev *dev);		/* lock held */

/* pages.c */
uint8_t cxfw_cmd_query_pages(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_manage_pages(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint32_t cxfw_pages_needed(const struct cxfw_dev *dev);		/* lock held */
void cxfw_pages_drop(struct cxfw_dev *dev, const char *when);	/* lock not held */
/* A QP was created (+1) or destroyed (-1): runtime page requests; lock not held. */
void cxfw_pages_qp_count(struct cxfw_dev *dev, int delta);

/* eq.c */
uint8_t cxfw_cmd_create_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_eq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint64_t cxfw_eq_subscriber(struct cxfw_dev *dev, unsigned int type);
void cxfw_eq_post(struct cxfw_dev *dev, uint64_t serial, unsigned int type,
		  unsigned int sub_type, const uint32_t data[7]);
void cxfw_eq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t off, uint32_t val);
void cxfw_eq_destroy_all(struct cxfw_dev *dev);			/* lock held */

/* mr.c */
uint8_t cxfw_cmd_alloc_pd(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_dealloc_pd(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_alloc_xrcd(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_dealloc_xrcd(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_create_mkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_mkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_mkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
bool cxfw_pd_valid(const struct cxfw_dev *dev, uint32_t pd);			/* lock held */
uint8_t cxfw_mkey_translate(struct cxfw_dev *dev, uint32_t key, uint32_t pd,
			    unsigned int access, uint64_t va, uint64_t len,
			    struct cxfw_sg *sg, unsigned int max_sg, unsigned int *nsg);
void cxfw_mr_destroy_all(struct cxfw_dev *dev);				/* lock held */

/* cq.c */
uint8_t cxfw_cmd_create_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_modify_cq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
int cxfw_cq_post(struct cxfw_dev *dev, uint32_t cqn, struct cxib_cqe64 *cqe);	/* worker */
void cxfw_cq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t dw0, uint32_t dw1);
void cxfw_cq_process(struct cxfw_dev *dev);					/* worker */
bool cxfw_eq_has_cqs(const struct cxfw_dev *dev, uint32_t eqn);		/* lock held */
void cxfw_cq_destroy_all(struct cxfw_dev *dev);				/* lock held */

/* qp.c */
uint8_t cxfw_cmd_create_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_modify_qp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
void cxfw_qp_destroy_all(struct cxfw_dev *dev);				/* lock held */
void cxfw_qp_sq_doorbell(struct cxfw_dev *dev, uint32_t uar, uint32_t dw0, uint32_t dw1);
void cxfw_qp_process(struct cxfw_dev *dev);					/* worker */
void cxfw_qp_sq_error(struct cxfw_dev *dev, struct cxfw_qp *qp);	/* worker: UD/UC to SQER */

/* srq.c */
uint8_t cxfw_cmd_create_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_arm_rq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_create_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_arm_xrc_srq(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_create_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_modify_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_destroy_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_rmp(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
struct cxfw_srq *cxfw_srq_lookup(const struct cxfw_dev *dev, uint32_t srqn);	/* lock held */
void cxfw_srq_destroy_all(struct cxfw_dev *dev);			/* lock held */

/* mcg.c */
uint8_t cxfw_cmd_attach_to_mcg(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_detach_from_mcg(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
unsigned int cxfw_mcg_qps(struct cxfw_dev *dev, const uint8_t *gid, uint32_t *qpns,
			  unsigned int max);
void cxfw_mcg_detach_qp(struct cxfw_dev *dev, uint32_t qpn);		/* lock held */
void cxfw_mcg_destroy_all(struct cxfw_dev *dev);			/* lock held */

/* counters.c */
uint8_t cxfw_cmd_alloc_q_counter(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_dealloc_q_counter(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_q_counter(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
void cxfw_q_counters_release(struct cxfw_dev *dev);			/* lock held */

/* port.c */
void cxfw_ports_init(struct cxfw_dev *dev);				/* lock held */
bool cxfw_port_link_locked(struct cxfw_dev *dev, unsigned int port, bool up);	/* lock held */
bool cxfw_port_event_locked(struct cxfw_dev *dev, unsigned int port, uint8_t subtype);
void cxfw_port_set_state_locked(struct cxfw_dev *dev, unsigned int port, uint8_t state);
void cxfw_port_retrain_locked(struct cxfw_dev *dev, unsigned int port, uint64_t now);
void cxfw_port_process(struct cxfw_dev *dev);
uint64_t cxfw_port_guid(const struct cxfw_dev *dev, unsigned int port);

/* vport.c */
uint8_t cxfw_cmd_access_reg(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_vport_context(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_vport_gid(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_hca_vport_pkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
uint8_t cxfw_cmd_query_vport_state(struct cxfw_dev *dev, struct cxfw_cmd *cmd);

/* sma.c */
uint8_t cxfw_cmd_mad_ifc(struct cxfw_dev *dev, struct cxfw_cmd *cmd);
void cxfw_sma_process(struct cxfw_dev *dev, uint64_t now);
/*
 * The next trap of @port due at @now, as a packet to the master SM in *@pkt whose payload
 * is @mad; false when none is due.  Counts it as sent and schedules its resend; the caller
 * puts it on the wire (cxfw_wire_send_traps).  Lock not held.
 */
bool cxfw_sma_next_trap(struct cxfw_dev *dev, unsigned int port, uint64_t now,
			struct cxfw_pkt *pkt, uint8_t mad[CXIB_MAD_SIZE]);
/* Queue a trap to the master SM (sent by cxfw_wire_send_traps()); lock held. */
void cxfw_sma_trap_locked(struct cxfw_dev *dev, unsigned int port, uint16_t trap_num,
			  const uint8_t notice[CXIB_SMP_DATA_SIZE]);
void cxfw_sma_trap_key_locked(struct cxfw_dev *dev, unsigned int port, uint16_t trap_num,
			      const struct cxfw_pkt *p, uint32_t key);
void cxfw_sma_cap_mask_changed_locked(struct cxfw_dev *dev, unsigned int port);

/*
 * pma.c: answer the PerfMgt MAD @req that arrived on @port (1-based, checked by the
 * caller).  @resp holds a copy of @req; its data is filled, the header left to the caller
 * (method GetResp, status).  Returns the MAD status.  *@drop is set when the MAD wants no
 * reply at all (it is itself a response).  Lock not held.
 */
uint16_t cxfw_pma_process(struct cxfw_dev *dev, unsigned int port, const uint8_t *req,
			  uint8_t *resp, bool *drop);

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

/*
 * Dword 8 [23:0] of a CQE of @qp (srqn_uidx): with CQE version 1 (the current capability)
 * the QP's user_index for every CQE of the QP, except that a receive (@rcv) from an XRC
 * SRQ carries the XRC SRQ's; with version 0 the SRQ number for an SRQ receive and 0
 * otherwise.  Worker only (SET_HCA_CAP also runs there).
 */
static inline void cxfw_cqe_set_index(const struct cxfw_dev *dev, const struct cxfw_qp *qp,
				      struct cxib_cqe64 *cqe, bool rcv)
{
	if (CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_CQE_VERSION) == CXIB_CQE_VERSION_1)
		CXIB_SET(cqe, CXIB_CQE_SRQN_UIDX, rcv && qp->xrc_srq ? qp->xrc_uidx :
						  CXIB_GET(qp->qpc, CXIB_QPC_USER_INDEX));
	else
		CXIB_SET(cqe, CXIB_CQE_SRQN_UIDX, rcv ? qp->srqn : 0);
}

#endif /* CXFW_PRIV_H */
