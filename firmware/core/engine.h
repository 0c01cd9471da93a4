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
 * platform never runs concurrently), never with dev->lock held around DMA.  Engine state
 * (struct cxfw_req / struct cxfw_resp inside struct cxfw_qp) is touched only by the worker.
 * Commands also run in the worker, so a QP cannot be destroyed under an engine.
 */
#ifndef CXFW_ENGINE_H
#define CXFW_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

struct cxfw_dev;
struct cxfw_qp;
struct cxfw_pkt;

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
void cxfw_req_destroy(struct cxfw_dev *dev, struct cxfw_qp *qp);
/* Execute newly posted send WQEs (SQ doorbell served). */
void cxfw_req_doorbell(struct cxfw_dev *dev, struct cxfw_qp *qp);
/* A response packet (ACK/NAK, RDMA READ response, atomic ACK) for an RC requester. */
void cxfw_req_rx(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p);
/* Timeouts (local ACK timeout, RNR wait) and deferred sending; called every cxfw_process(). */
void cxfw_req_process(struct cxfw_dev *dev, uint64_t now);

/* ---- resp.c (responder) ---------------------------------------------------------------- */

void cxfw_resp_modify(struct cxfw_dev *dev, struct cxfw_qp *qp, uint8_t from, uint8_t to);
void cxfw_resp_destroy(struct cxfw_dev *dev, struct cxfw_qp *qp);
/*
 * A request packet for @qp (any transport: RC, UC, UD incl. multicast copies).  wire.c has
 * checked the CRCs, the P_Key and that @qp exists; the responder checks everything else.
 */
void cxfw_resp_rx(struct cxfw_dev *dev, struct cxfw_qp *qp, const struct cxfw_pkt *p);
/* Coalesced ACKs and other deferred responder work; called every cxfw_process(). */
void cxfw_resp_process(struct cxfw_dev *dev, uint64_t now);
/*
 * @qp entered ERR (cxfw_qp_error() and the 2ERR command; dev->lock not held): drops
 * pending responses, flushes a WQE the responder took from an SRQ and, for a QP attached
 * to an SRQ, posts SRQ_LAST_WQE (0x13) once per entry into ERR.
 */
void cxfw_resp_qp_error(struct cxfw_dev *dev, struct cxfw_qp *qp);

/* ---- mr.c ------------------------------------------------------------------------------ */

/*
 * Invalidate the mkey @key (LOCAL_INV, or SEND_WITH_INV received on a QP of PD @pd):
 * 0 on success, else the CQE syndrome to report (CXIB_CQE_SYND_*).
 */
uint8_t cxfw_mkey_invalidate(struct cxfw_dev *dev, uint32_t key, uint32_t pd, bool remote);

#endif /* CXFW_ENGINE_H */
