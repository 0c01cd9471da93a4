/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The boundary between cxfw's data-path parts:
 *
 *   qp.c    QP table, state machine, doorbells, flushing; calls the engines on transitions
 *   req.c   the requester: send WQEs -> packets, PSN/ACK/NAK/retry/timeouts, local
 *           operations (LOCAL_INV, UMR fast registration), requester CQEs
 *   resp.c  the responder: request packets -> memory / receive WQEs (RQ and SRQ), ACK/NAK
 *           generation, RDMA READ responses, atomics, duplicates, responder CQEs
 *   wire.c  packets: build/parse/CRC, loopback, dispatch of arriving packets
 *
 * The engines speak to each other only through packets (wire.h), like two HCAs would, so
 * loopback inside one device and traffic between two devices take the same path.
 *
 * Context: all of it runs in the worker (cxfw_process() / cxfw_port_receive(), which the
 * platform never runs concurrently), never with dev->lock held around DMA.  Per-QP engine
 * state (struct cxfw_req in req.h, struct cxfw_resp in resp.h: only the engine includes its
 * header) hangs off struct cxfw_qp, is made and freed with the QP and is touched only by
 * the worker.  Commands also run in the worker, so a QP cannot be destroyed under an engine.
 */
#ifndef CXFW_ENGINE_H
#define CXFW_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

struct cxfw_dev;
struct cxfw_qp;
struct cxfw_pkt;
struct cxfw_srq;
struct cxfw_text;

/* ---- qp.c ------------------------------------------------------------------------------ */

/* The QP with number @qpn if it exists (lock held or worker). */
struct cxfw_qp *cxfw_qp_find(const struct cxfw_dev *dev, uint32_t qpn);

/*
 * Move @qp to ERR because of a transport or local error (not a command): posts the async
 * event @event_type (CXIB_EVENT_TYPE_*, 0 for none) and flushes every outstanding WQE
 * after the error CQE the caller already wrote.  Worker.
 */
void cxfw_qp_error(struct cxfw_dev *dev, struct cxfw_qp *qp, unsigned int event_type);

/* Guest address of RQ WQE / SQ WQEBB @idx (counters wrap at the ring size). */
uint64_t cxfw_qp_wqe_addr(const struct cxfw_qp *qp, bool sq, uint32_t idx);

/* ---- req.c (requester) ----------------------------------------------------------------- */

/* The QP moved from @from to @to (CXIB_QPC_STATE_*); qp->qpc holds the new attributes. */
void cxfw_req_modify(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t from, uint8_t to);
/*
 * The requester state of a new QP (qp->req): 0, or -1 when out of memory.  Destroy frees it
 * (NULL: nothing to do).
 */
int cxfw_req_create(struct cxfw_dev *dev, struct cxfw_qp *qp);
void cxfw_req_destroy(struct cxfw_dev *dev, struct cxfw_qp *qp);
/* QUERY_QP: the requester's next_send_psn and retry counters into @qpc, while it is active. */
void cxfw_req_query(const struct cxfw_qp *qp, __be32 *qpc);
/* Execute newly posted send WQEs (SQ doorbell served). */
void cxfw_req_doorbell(struct cxfw_dev *dev, struct cxfw_qp *qp);
/* A response packet (ACK/NAK, RDMA READ response, atomic ACK) for an RC requester. */
void cxfw_req_rx(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p);
/* Timeouts (local ACK timeout, RNR wait) and deferred sending; called every cxfw_process(). */
void cxfw_req_process(struct cxfw_dev *dev, uint64_t now);
/* The requester's state (PSNs, timers, the window's WQEs) as text (cxfw_engines_format()). */
void cxfw_req_format(struct cxfw_dev *dev, const struct cxfw_qp *qp, uint64_t now,
		     struct cxfw_text *t);

/* ---- resp.c (responder) ---------------------------------------------------------------- */

void cxfw_resp_modify(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t from, uint8_t to);
/* The responder state of a new QP (qp->resp), as cxfw_req_create(). */
int cxfw_resp_create(struct cxfw_dev *dev, struct cxfw_qp *qp);
void cxfw_resp_destroy(struct cxfw_dev *dev, struct cxfw_qp *qp);
/*
 * A request packet for @qp (any transport: RC, UC, UD incl. multicast copies).  wire.c has
 * checked the CRCs, the P_Key and that @qp exists; the responder checks everything else.
 */
void cxfw_resp_rx(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p);
/* Coalesced ACKs and other deferred responder work; called every cxfw_process(). */
void cxfw_resp_process(struct cxfw_dev *dev, uint64_t now);
/* The responder's state (ePSN, MSN, the open message, a pending ACK) as text. */
void cxfw_resp_format(const struct cxfw_qp *qp, struct cxfw_text *t);
/*
 * @qp entered ERR (cxfw_qp_error() and the 2ERR command; dev->lock not held): drops
 * pending responses, flushes a WQE the responder took from an SRQ and, for a QP attached
 * to an SRQ, posts SRQ_LAST_WQE (0x13) once per entry into ERR.
 */
void cxfw_resp_qp_error(struct cxfw_dev *dev, struct cxfw_qp *qp);
/* Free the device-wide responder state (function reset, after every QP is gone). */
void cxfw_resp_dev_free(struct cxfw_dev *dev);

/* ---- srq.c ----------------------------------------------------------------------------- */

/* Helpers for the responder (worker). */
uint64_t cxfw_srq_wqe_addr(const struct cxfw_srq *srq, uint32_t idx);
/* The SRQ's WQE list is broken at a WQE linking to @next: SRQ to error, SRQ_CATAS event. */
void cxfw_srq_fail(struct cxfw_dev *dev, uint32_t srqn, struct cxfw_srq *srq, uint16_t next);
/* Check the limit watermark after a WQE was consumed (posts SRQ_RQ_LIMIT once). */
void cxfw_srq_consumed(struct cxfw_dev *dev, uint32_t srqn, struct cxfw_srq *srq,
		       uint16_t posted);

/* ---- mr.c ------------------------------------------------------------------------------ */

/*
 * Invalidate the mkey @key (LOCAL_INV, or SEND_WITH_INV received on a QP of PD @pd):
 * 0 on success, else the CQE syndrome to report (CXIB_CQE_SYND_*).
 */
uint8_t cxfw_mkey_invalidate(struct cxfw_dev *dev, uint32_t key, uint32_t pd, bool remote);

/* A UMR WQE (fast registration, UMR-form LOCAL_INV) as the send engine parsed it. */
struct cxfw_umr {
	uint32_t key;			/* ctrl general id: the target mkey (new variant) */
	uint8_t flags;			/* CXIB_UMR_CHECK_FREE, ... */
	uint64_t mask;			/* CXIB_UMR_MKEY_MASK_* */
	bool free, length64, en_rinval;
	unsigned int access;		/* CXFW_ACCESS_* */
	uint32_t qpn, pd;
	uint64_t start, len;
	uint8_t log_page_size;
	uint64_t xlt_offset;		/* first translation entry to load */
	uint32_t nxlt;			/* entries in @xlt */
	const uint64_t *xlt;
};

/* Apply the UMR WQE @u posted on a QP of PD @pd (worker): 0, else the CQE syndrome. */
uint8_t cxfw_mkey_umr(struct cxfw_dev *dev, uint32_t pd, const struct cxfw_umr *u);

#endif /* CXFW_ENGINE_H */
