/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Requester state of one QP (req.c).  Worker-only; see engine.h.
 *
 * The requester keeps a window of up to CXFW_REQ_WINDOW send WQEs that have been fetched
 * from the SQ and not yet completed, oldest first.  Each has its PSNs assigned when it is
 * fetched; it is started (fence, READ/ATOMIC limit, key checks, local operations executed)
 * in order, its packets are sent (and sent again after a NAK, RNR wait or local ACK
 * timeout: go-back-N from the oldest unacknowledged PSN), and it completes in SQ order.
 */
#ifndef CXFW_REQ_H
#define CXFW_REQ_H

#include <stdbool.h>
#include <stdint.h>

#include <cxib/ipoib.h>
#include <cxib/wqe.h>

#include "cxfw_priv.h"
#include "ipoib.h"

struct cxfw_qp;

/* Limits of the requester (model-internal). */
#define CXFW_REQ_WINDOW		32	/* send WQEs in flight per QP */
#define CXFW_REQ_MAX_UNACKED	128	/* PSNs sent and not acknowledged (rxe's value) */
#define CXFW_REQ_MAX_PSN_SPAN	(1 << 22)	/* PSNs the window's WQEs may occupy */
#define CXFW_REQ_ACKREQ_PKTS	16	/* AckReq at least every this many packets */
#define CXFW_REQ_QP_BUDGET	32	/* work (req.c) per QP per worker call, then kick */
#define CXFW_REQ_CALL_BUDGET	256	/* the same per cxfw_req_process() call, all QPs */
#define CXFW_REQ_WQE_BYTES	CXFW_MAX_SQ_WQE_BYTES
#define CXFW_REQ_MAX_SGE	(CXFW_REQ_WQE_BYTES / CXIB_WQE_DS_SIZE)
#define CXFW_REQ_MAX_UMR_XLT	(1u << 17)	/* translation entries one UMR may load */
#define CXFW_REQ_LSO_MAX_PAYLOAD (1u << 18)	/* payload bytes of one LSO WQE (256 KiB) */

/*
 * Local ACK timeout: IBA says 4.096 us * 2^ack_timeout (0 = infinite).  The model's fabric
 * delay is the peer's host scheduling: with two labs of TCG guests on two cores (make
 * check) a responding node's worker can stall for hundreds of milliseconds, and at the
 * 67 ms of perftest's ack_timeout 14 eight stalls in a row exhausted retry_count 7 of a
 * healthy cable (its perftest and pingpong cases failed with RETRY_EXC_ERR about once per
 * mlx5 scenario under load).  So the model never times out sooner than
 * CXFW_REQ_MIN_ACK_TIMEOUT_NS; a lost packet then costs half a second, on a cable that only
 * loses packets when a port goes down or a test injects loss.
 */
#define CXFW_REQ_ACK_TIMEOUT_UNIT_NS	4096ull		/* 4.096 us */
#define CXFW_REQ_MIN_ACK_TIMEOUT_NS	(500ull * 1000000ull)	/* 500 ms */

#define CXFW_RNR_RETRY_INFINITE	7	/* rnr_retry 7: retry forever */
#define CXFW_QKEY_CONTROLLED	0x80000000u	/* WR Q_Key: use the QP's (IBA 10.2.5) */

/*
 * A piece of a send WQE's message, in WQE order: a gather / scatter entry through @lkey at
 * @addr, or (@inl) @len bytes of inline data at offset @addr of the WQE's inline bytes.
 */
struct cxfw_req_sge {
	uint32_t lkey;
	uint32_t len;
	uint64_t addr;
	bool inl;
};

/* Destination of a UD WQE (its datagram segment). */
struct cxfw_req_av {
	uint32_t dqpn, qkey, flow_label;
	uint16_t dlid;
	uint8_t sl, tclass, hop_limit, sgid_index;
	bool grh;
	uint8_t dgid[16];
};

/* One send WQE in the window. */
struct cxfw_req_wqe {
	uint16_t idx, bbs;		/* first WQEBB, size in WQEBBs */
	uint8_t opcode, fm, synd;	/* synd: error to report when it completes (0: none) */
	bool signaled, se, rd_atomic, local, started, done, resp_in_pass;
	bool inl;			/* some of the message is inline data */
	bool linv;			/* a UMR that invalidates: fenced (IBA 10.6.5.1) */
	uint32_t imm;			/* ctrl general id */
	uint32_t first_psn, npsn;	/* PSNs it occupies */
	uint32_t npkts;			/* request packets to send (READ / atomic: 1) */
	uint32_t sent;			/* request packets sent in the current pass */
	uint32_t acked;			/* PSNs acknowledged / responses received */
	uint64_t len;			/* message length */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare;
	struct cxfw_req_av av;
	uint8_t cs_flags;		/* IPoIB UD: CXIB_WQE_ETH_L3_CSUM | _L4_CSUM */
	uint16_t mss;			/* LSO: payload bytes per packet */
	uint16_t hlen;			/* LSO: header bytes in @hdr (0: not LSO) */
	struct cxfw_ipoib_hdrs lso;	/* LSO: the headers in @hdr */
	unsigned int nsge;
	struct {
		struct cxfw_req_sge sge[CXFW_REQ_MAX_SGE];	/* the message's pieces */
		uint8_t data[CXFW_REQ_WQE_BYTES];	/* inline bytes; a UMR's raw WQE */
	} u;
	uint8_t hdr[CXIB_IPOIB_LSO_MAX_HDR];	/* LSO: the WQE's inline headers */
};

struct cxfw_req {
	uint32_t next_psn;		/* PSN of the next new request packet */
	uint32_t hi_psn;		/* one past the highest PSN ever sent (retransmit count) */
	bool active;			/* on the device's list (RTS / SQD) */
	bool db;			/* WQEs may be waiting in the SQ */
	bool stopped;			/* a WQE failed: nothing more is fetched */
	bool retrying;			/* in a NAK's go-back-N: another NAK is ignored */
	struct cxfw_qp *prev, *next;	/* device's list of active requesters */
	struct cxfw_req_wqe *win;	/* CXFW_REQ_WINDOW entries, allocated at RTS */
	unsigned int head, count;
	uint16_t sq_next;		/* next WQEBB to fetch */
	unsigned int rd_atomic;		/* READ / ATOMIC WQEs started and not completed */
	uint8_t retry_left, rnr_left;
	uint64_t ack_deadline;		/* local ACK timer, 0: off */
	uint64_t rnr_deadline;		/* end of an RNR wait, 0: not waiting */
	uint32_t rnr_psn;		/* PSN to resume from after the RNR wait */
};

#endif /* CXFW_REQ_H */
