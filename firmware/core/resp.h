/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Responder state of one QP (resp.c).  Worker-only; see engine.h. */
#ifndef CXFW_RESP_H
#define CXFW_RESP_H

#include <stdbool.h>
#include <stdint.h>

#define CXFW_RESP_MAX_RES	16	/* 2^CXFW_LOG_MAX_RA_RES_QP: READ / atomic resources */
#define CXFW_RESP_MAX_SGE	32	/* data segments of a CXFW_MAX_RQ_WQE_BYTES WQE */

/* Where responses go: the source of the last accepted request. */
struct cxfw_resp_reply {
	unsigned int port;
	uint16_t dlid, pkey;
	uint8_t sl;
	bool grh;
	uint8_t tclass, hop_limit;
	uint32_t flow_label;
	uint8_t sgid[16], dgid[16];
};

/* An RDMA READ or atomic the responder accepted (duplicates are served from here). */
struct cxfw_resp_res {
	uint8_t kind;			/* 0 free, CXFW_RESP_RES_READ / _ATOMIC */
	uint32_t first_psn, last_psn;
	uint64_t va;			/* READ: the original request */
	uint32_t rkey, len;
	uint64_t orig;			/* ATOMIC: the value returned (replay cache) */
	/* responses still to send (a READ being streamed, an ATOMIC ACK) */
	bool sending;
	uint32_t s_psn, s_first;	/* next PSN to send, PSN of the stream's first packet */
	uint64_t s_va;
	uint32_t s_len, s_off;
};

/* One scatter entry of the receive WQE the current message lands in. */
struct cxfw_resp_sge {
	uint32_t lkey, len;
	uint64_t addr;
};

struct cxfw_resp {
	uint32_t epsn;			/* expected PSN */
	uint32_t msn;			/* messages completed (24 bits) */
	bool nak_seq_sent;		/* RC: PSN sequence NAK sent, silent until ePSN */
	bool uc_drop;			/* UC: drop the rest of the current message */
	uint8_t msg;			/* open multi-packet message: CXFW_RESP_MSG_* */
	/* receive WQE held by the current SEND (or taken for a WRITE with immediate) */
	bool have_wqe;
	uint16_t wqe_idx;		/* RQ counter or SRQ WQE index (CQE wqe_counter) */
	unsigned int nsge;
	struct cxfw_resp_sge sge[CXFW_RESP_MAX_SGE];
	uint32_t rcv_off;		/* SEND bytes placed so far */
	/* RDMA WRITE in progress (RETH of its FIRST packet) */
	uint64_t wr_va;
	uint32_t wr_rkey, wr_len, wr_off;
	/* coalesced ACK */
	bool ack_pending;
	uint32_t ack_psn;
	struct cxfw_resp_reply reply;
	struct cxfw_resp_res res[CXFW_RESP_MAX_RES];
	unsigned int res_next;		/* slot the next READ / atomic takes (oldest) */
	bool queued;			/* on the device's work list */
	bool blocked;			/* READ responses wait for link credits */
	bool last_wqe_sent;		/* SRQ: LAST_WQE_REACHED posted for this ERR */
};

#endif /* CXFW_RESP_H */
