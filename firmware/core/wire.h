/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw link and network layer (wire.c): InfiniBand packets as the transport engines see
 * them.  The requester (req.c) and the responder (resp.c) build a struct cxfw_pkt and hand
 * it to cxfw_wire_send(); packets that arrive (from the cable or looped back inside the
 * device) are parsed, checked (VCRC, ICRC, LRH/BTH consistency, P_Key, DLID/DGID) and
 * dispatched by wire.c to cxfw_req_rx() / cxfw_resp_rx() (engine.h).  The byte layouts
 * live in include/cxib/ibwire.h; IBTA vol 1 ch. 7-9 and ch. 13 (MADs).
 *
 * Context: everything here runs in the worker (cxfw_process(), cxfw_port_receive()), never
 * with dev->lock held.
 */
#ifndef CXFW_WIRE_H
#define CXFW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crc.h"	/* the packets' ICRC and VCRC */

struct cxfw_dev;

/* One packet, parsed (receive) or to be built (send).  Host byte order throughout. */
struct cxfw_pkt {
	/* LRH */
	uint8_t vl, sl;
	uint16_t dlid, slid;
	/* GRH (present iff @grh) */
	bool grh;
	uint8_t tclass, hop_limit;
	uint32_t flow_label;
	uint8_t sgid[16], dgid[16];
	/* BTH */
	uint8_t opcode;			/* CXIB_BTH_OP_* (transport class | operation) */
	bool se, migreq, ackreq;
	uint16_t pkey;
	uint32_t dqpn, psn;		/* 24 bits each */
	/* extended headers: the opcode says which are present; builders fill those */
	uint64_t reth_va;		/* RETH */
	uint32_t reth_rkey, reth_len;
	uint8_t aeth_synd;		/* AETH */
	uint32_t aeth_msn;
	uint64_t atomic_va;		/* AtomicETH */
	uint32_t atomic_rkey;
	uint64_t atomic_swap_add, atomic_compare;
	uint64_t atomic_orig;		/* AtomicAckETH */
	uint32_t imm;			/* ImmDt (network order value as a host integer) */
	uint32_t ieth_rkey;		/* IETH */
	uint32_t deth_qkey, deth_sqpn;	/* DETH */
	/* payload (without pad and CRCs); points into the received buffer or the sender's */
	const uint8_t *payload;
	uint32_t paylen;
	/* receive side only */
	unsigned int port;		/* 1-based port it arrived on */
	bool loopback;			/* came from this device, not from the cable */
};

/* Largest packet cxfw builds: LRH + GRH + BTH + the largest ETH set + 4 KiB + pad + CRCs. */
#define CXFW_PKT_MAX		4200

/*
 * Serialise @p (computes pad, PadCnt, LRH.PktLen, ICRC and VCRC) into @buf.  Returns the
 * length, or 0 if @p is inconsistent (unknown opcode, payload over @cap, ...).
 */
size_t cxfw_pkt_build(const struct cxfw_pkt *p, void *buf, size_t cap);

/*
 * Parse and check one packet of @len bytes.  0 on success (@p->payload points into @buf),
 * else a negative CXFW_PKT_E* telling why it was dropped.
 */
int cxfw_pkt_parse(const void *buf, size_t len, struct cxfw_pkt *p);

enum {
	CXFW_PKT_ESHORT		= -1,	/* shorter than its headers / LRH.PktLen disagrees */
	CXFW_PKT_EVCRC		= -2,
	CXFW_PKT_EICRC		= -3,
	CXFW_PKT_ELNH		= -4,	/* LNH not IBA local / global, GRH NxtHdr not IBA */
	CXFW_PKT_EVERSION	= -5,	/* LRH LVer, GRH IPVer or BTH TVer */
	CXFW_PKT_EOPCODE	= -6,	/* reserved / unsupported BTH opcode */
	CXFW_PKT_EPAD		= -7,	/* PadCnt larger than the payload allows */
	CXFW_PKT_ELEN		= -8,	/* payload on an opcode without one, or over the MTU */
};

/*
 * Put @p on the wire from port @port (1-based).  The link layer is filled here: SLID from
 * the port's LID (the permissive LID when DLID is permissive: directed-route SMPs), VL 15
 * for UD packets to QP0 and VL 0 otherwise (@p->vl and @p->slid are ignored), and the
 * default P_Key 0xffff when @p->pkey is 0.  A DLID inside the port's LID range (base LID,
 * LMC path bits) is looped back inside the device: queued (bounded by
 * CXFW_WIRE_LOOP_SLOTS, a kick asks for the worker) and delivered from
 * cxfw_wire_process(), never recursively.  A multicast DLID goes to the cable and, when
 * QPs of this device are attached to the GRH's MGID, also to the loopback queue (the
 * sender QP gets a copy unless its qpc has block_lb_mc).  Counts pkts_sent and
 * pkt_bytes_sent for the cable, and the port's PMA counters (transmitted packets and data,
 * unicast / multicast; PortXmitDiscards when the link is down or the cable refuses the
 * packet; nothing for the loopback queue).  Returns 0, or -1 if the packet went nowhere (link down,
 * build error, cable refused, loopback queue full); IB has no back-pressure to report:
 * a dropped packet is recovered by the transport like a lost one.
 */
int cxfw_wire_send(struct cxfw_dev *dev, unsigned int port, const struct cxfw_pkt *p);

/* Whether @port has no link credits now (platform->port_busy): hold data packets back. */
bool cxfw_wire_port_busy(struct cxfw_dev *dev, unsigned int port);

/* Time @port's packets have waited unread in its cable (platform->port_wait_ns), or 0. */
uint64_t cxfw_wire_port_wait_ns(struct cxfw_dev *dev, unsigned int port);

/* Deliver looped-back packets queued by cxfw_wire_send().  Worker. */
void cxfw_wire_process(struct cxfw_dev *dev);

/*
 * Count @p in its port's VL15Dropped if it is a VL15 packet from the cable: a subnet
 * management packet the port had no resources for (no QP0, QP0 not receiving, no receive
 * WQE on it), IBTA vol 1 16.1.3.5, while the function is initialized (a function torn
 * down, its driver unloading, has no receive side at all).  Lock not held.
 */
void cxfw_wire_vl15_dropped(struct cxfw_dev *dev, const struct cxfw_pkt *p);

/*
 * Send the SMA's traps that are due at @now (cxfw_sma_next_trap), VL15 from QP0; none while
 * the function is not initialized (they wait).  Worker.
 */
void cxfw_wire_send_traps(struct cxfw_dev *dev, uint64_t now);

/*
 * A packet from the cable (cxfw_port_receive(), which counts pkts_received; this counts
 * pkt_bytes_received): parse, check, dispatch, like a looped-back one.  Checks: the
 * parse (VCRC, ICRC, versions, lengths), DLID in the port's LID range, a multicast LID
 * or the permissive LID (QP0 only, as is a permissive SLID), VL 15 if and only if the
 * DQPN is QP0, P_Key in the port's table (QP0 exempt) and, for QPs other than QP0/QP1,
 * matching the P_Key at the QP's primary-path pkey_index; a QP that exists (DQPN 0 / 1:
 * the QP created with st QP0 / QP1 for that port) whose st speaks the opcode's transport.
 * Responses go to cxfw_req_rx(), requests to cxfw_resp_rx(); a multicast packet (GRH with
 * an MGID, DQPN 0xffffff, UD) to cxfw_resp_rx() of every attached UD QP.  A failed check
 * drops the packet (pkts_dropped, and icrc_errors / vcrc_errors / pkey_violations).
 * The port's PMA counters count every packet from the cable (received packets and data,
 * unicast / multicast once the LRH is trusted) and its fate: PortRcvErrors (malformed),
 * SymbolErrorCounter (a failed VCRC: the link changed bits), PortRcvConstraintErrors
 * (P_Key), VL15Dropped (other VL15 drops).
 */
void cxfw_wire_receive(struct cxfw_dev *dev, unsigned int port, const void *buf, size_t len);

/* Drop everything queued (reset, destroy), a packet a reordering link holds too. */
void cxfw_wire_reset(struct cxfw_dev *dev);

/*
 * Send the packets reordering links (fault.c) still hold: a packet held for lack of a next
 * one goes at the end of the worker's pass, late but not lost.  Worker.
 */
void cxfw_wire_release_held(struct cxfw_dev *dev);

/* Packets waiting in the loopback queue (tests, lab statistics).  Worker. */
unsigned int cxfw_wire_loop_pending(const struct cxfw_dev *dev);

/* Loopback queue bound: a packet sent while it is full is dropped (pkts_dropped). */
#define CXFW_WIRE_LOOP_SLOTS	256

#endif /* CXFW_WIRE_H */
