// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw link and network layer (see wire.h): InfiniBand packets built from and parsed into
 * struct cxfw_pkt (their CRCs come from crc.c), the device-internal loopback queue and the
 * dispatch of arriving packets to the requester (responses) and the responder (requests).
 *
 * Wire format: include/cxib/ibwire.h, IBTA vol 1 ch. 7-9 (LRH, VCRC; GRH; BTH, ICRC).
 * Receive checks, in order: link layer (length vs LRH.PktLen, VCRC, LVer, LNH), network layer
 * (GRH IPVer / NxtHdr / PayLen), transport header (ICRC, TVer, opcode, header lengths,
 * PadCnt), addressing (DLID, permissive LID, VL15), P_Key (6.3), QP and transport class.
 * Each failure drops the packet silently, as IB does, with a counter and a DEBUG line.
 *
 * The port's PMA counters (struct cxfw_pma_counters, reported by pma.c) count what crosses
 * the link only: packets put on the cable (cxfw_wire_send) and packets from the cable
 * (cxfw_wire_receive, cxfw_wire_deliver).  Looped-back packets never reach the physical
 * port and are not counted, not even their drops.  Data is counted in 4-octet words from
 * the start of the LRH up to, not including, the VCRC (LRH.PktLen).
 *
 * Everything here runs in the worker; dev->lock is taken only around reads of the port,
 * the QP table and the counters, never across a platform callback or an engine call.
 */
#include <stdlib.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"

#define CXFW_HDR_WORDS		(CXIB_PKT_MAX_HDRS / 4)
#define CXFW_LMC_MASK		7		/* PortInfo.LMC is 3 bits */
/* The smallest IBA transport packet: LRH, BTH, ICRC and VCRC. */
#define CXFW_PKT_MIN		(CXIB_LRH_LEN + CXIB_BTH_LEN + CXIB_ICRC_LEN + CXIB_VCRC_LEN)

_Static_assert(CXIB_PKT_MAX_HDRS % 4 == 0, "header scratch in words");
_Static_assert(CXFW_PKT_MAX >= CXIB_PKT_MAX_HDRS + CXIB_PKT_MAX_PAYLOAD + CXIB_PKT_MAX_PAD +
	       CXIB_ICRC_LEN + CXIB_VCRC_LEN, "CXFW_PKT_MAX holds the largest packet");

/* One looped-back packet. */
struct cxfw_wire_slot {
	size_t len;
	unsigned int port;
	uint8_t buf[CXFW_PKT_MAX];
};

/* wire.c's device state (dev->wire), allocated on first loopback, worker only. */
struct cxfw_wire {
	struct cxfw_wire_slot *ring;	/* CXFW_WIRE_LOOP_SLOTS */
	unsigned int head, count;
	/* last QPN found for QP0 / QP1 per port (a hint; 0: none) */
	uint32_t special[CXFW_MAX_PORTS][2];
};

static void cxfw_put_le32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static uint32_t cxfw_get_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* ---- Build -------------------------------------------------------------------------------- */

static bool cxfw_pkt_fields_valid(const struct cxfw_pkt *p, unsigned int hdrs)
{
	if (p->vl > CXIB_FIELD_GET(CXIB_LRH_VL, 0xffffffffu) ||
	    p->sl > CXIB_FIELD_GET(CXIB_LRH_SL, 0xffffffffu) ||
	    p->dqpn > CXIB_QPN_MASK || p->psn > CXIB_PSN_MASK)
		return false;
	if (p->grh && p->flow_label > CXIB_FIELD_GET(CXIB_GRH_FLOW_LABEL, 0xffffffffu))
		return false;
	if ((hdrs & CXIB_BTH_HDR_AETH) && p->aeth_msn > CXIB_PSN_MASK)
		return false;
	if ((hdrs & CXIB_BTH_HDR_DETH) && p->deth_sqpn > CXIB_QPN_MASK)
		return false;
	if (p->paylen && (!(hdrs & CXIB_BTH_HDR_PAYLOAD) || !p->payload))
		return false;
	return p->paylen <= CXIB_PKT_MAX_PAYLOAD;
}

size_t cxfw_pkt_build(const struct cxfw_pkt *p, void *buf, size_t cap)
{
	uint32_t h[CXFW_HDR_WORDS] = { 0 };
	unsigned int hdrs, off, pad;
	uint8_t *b = buf;
	uint16_t vcrc;
	size_t total;
	__be32 *w;

	if (!p || !buf)
		return 0;
	hdrs = cxib_bth_op_hdrs(p->opcode);
	if (!hdrs || !cxfw_pkt_fields_valid(p, hdrs))
		return 0;
	off = CXIB_LRH_LEN + (p->grh ? CXIB_GRH_LEN : 0);
	pad = (CXIB_PKT_WORD - p->paylen % CXIB_PKT_WORD) % CXIB_PKT_WORD;
	total = off + CXIB_BTH_LEN + cxib_bth_op_ext_len(p->opcode) + p->paylen + pad +
		CXIB_ICRC_LEN + CXIB_VCRC_LEN;
	if (total > cap)
		return 0;

	CXIB_SET(h, CXIB_LRH_VL, p->vl);
	CXIB_SET(h, CXIB_LRH_LVER, CXIB_LRH_LVER_0);
	CXIB_SET(h, CXIB_LRH_SL, p->sl);
	CXIB_SET(h, CXIB_LRH_LNH, p->grh ? CXIB_LNH_IBA_GLOBAL : CXIB_LNH_IBA_LOCAL);
	CXIB_SET(h, CXIB_LRH_DLID, p->dlid);
	CXIB_SET(h, CXIB_LRH_PKTLEN, (total - CXIB_VCRC_LEN) / CXIB_PKT_WORD);
	CXIB_SET(h, CXIB_LRH_SLID, p->slid);
	if (p->grh) {
		w = h + CXIB_LRH_LEN / 4;
		CXIB_SET(w, CXIB_GRH_IPVER, CXIB_GRH_IPVER_6);
		CXIB_SET(w, CXIB_GRH_TCLASS, p->tclass);
		CXIB_SET(w, CXIB_GRH_FLOW_LABEL, p->flow_label);
		CXIB_SET(w, CXIB_GRH_PAYLEN, total - CXIB_VCRC_LEN - off);
		CXIB_SET(w, CXIB_GRH_NXTHDR, CXIB_GRH_NXTHDR_IBA);
		CXIB_SET(w, CXIB_GRH_HOPLMT, p->hop_limit);
		memcpy((uint8_t *)w + CXIB_GRH_SGID_OFFSET, p->sgid, CXIB_GID_LEN);
		memcpy((uint8_t *)w + CXIB_GRH_DGID_OFFSET, p->dgid, CXIB_GID_LEN);
	}
	w = h + off / 4;
	CXIB_SET(w, CXIB_BTH_OPCODE, p->opcode);
	CXIB_SET(w, CXIB_BTH_SE, p->se);
	CXIB_SET(w, CXIB_BTH_MIGREQ, p->migreq);
	CXIB_SET(w, CXIB_BTH_PADCNT, pad);
	CXIB_SET(w, CXIB_BTH_TVER, CXIB_BTH_TVER_0);
	CXIB_SET(w, CXIB_BTH_PKEY, p->pkey);
	CXIB_SET(w, CXIB_BTH_DQPN, p->dqpn);
	CXIB_SET(w, CXIB_BTH_ACKREQ, p->ackreq);
	CXIB_SET(w, CXIB_BTH_PSN, p->psn);
	off += CXIB_BTH_LEN;
	/* extended headers in wire order (1.5) */
	w = h + off / 4;
	if (hdrs & CXIB_BTH_HDR_DETH) {
		CXIB_SET(w, CXIB_DETH_QKEY, p->deth_qkey);
		CXIB_SET(w, CXIB_DETH_SQPN, p->deth_sqpn);
		w += CXIB_DETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_RETH) {
		CXIB_SET64(w, CXIB_RETH_VA, p->reth_va);
		CXIB_SET(w, CXIB_RETH_RKEY, p->reth_rkey);
		CXIB_SET(w, CXIB_RETH_DMA_LEN, p->reth_len);
		w += CXIB_RETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_ATOMIC_ETH) {
		CXIB_SET64(w, CXIB_ATOMIC_ETH_VA, p->atomic_va);
		CXIB_SET(w, CXIB_ATOMIC_ETH_RKEY, p->atomic_rkey);
		CXIB_SET64(w, CXIB_ATOMIC_ETH_SWAP_ADD, p->atomic_swap_add);
		CXIB_SET64(w, CXIB_ATOMIC_ETH_COMPARE, p->atomic_compare);
		w += CXIB_ATOMIC_ETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_AETH) {
		CXIB_SET(w, CXIB_AETH_SYNDROME, p->aeth_synd);
		CXIB_SET(w, CXIB_AETH_MSN, p->aeth_msn);
		w += CXIB_AETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_ATOMIC_ACK_ETH) {
		CXIB_SET64(w, CXIB_ATOMIC_ACK_ETH_ORIG, p->atomic_orig);
		w += CXIB_ATOMIC_ACK_ETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_IMMDT) {
		CXIB_SET(w, CXIB_IMMDT_IMM, p->imm);
		w += CXIB_IMMDT_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_IETH) {
		CXIB_SET(w, CXIB_IETH_RKEY, p->ieth_rkey);
		w += CXIB_IETH_LEN / 4;
	}
	off = (unsigned int)((uint8_t *)w - (uint8_t *)h);

	memcpy(b, h, off);
	if (p->paylen)
		memcpy(b + off, p->payload, p->paylen);
	off += p->paylen;
	memset(b + off, 0, pad);
	off += pad;
	cxfw_put_le32(b + off, cxfw_icrc(b, off));
	off += CXIB_ICRC_LEN;
	vcrc = cxfw_vcrc(b, off);
	b[off] = (uint8_t)vcrc;
	b[off + 1] = (uint8_t)(vcrc >> 8);
	return total;
}

/* ---- Parse -------------------------------------------------------------------------------- */

int cxfw_pkt_parse(const void *buf, size_t len, struct cxfw_pkt *p)
{
	uint32_t h[CXFW_HDR_WORDS];
	const uint8_t *b = buf;
	unsigned int hdrs, off, ext, pad;
	size_t rest, n;
	const __be32 *w;
	uint16_t vcrc;

	if (!p)
		return CXFW_PKT_ESHORT;
	memset(p, 0, sizeof(*p));
	if (!buf || len < CXFW_PKT_MIN)
		return CXFW_PKT_ESHORT;
	/* headers into an aligned scratch copy: the buffer may sit at any address */
	memset(h, 0, sizeof(h));
	n = len < sizeof(h) ? len : sizeof(h);
	memcpy(h, b, n);

	/*
	 * Link layer.  The VCRC, the frame's last two bytes, is checked first: a frame the
	 * link changed fails it whatever bits it hit, so it is told from a sender's
	 * malformed but intact packet (symbol errors count the former).
	 */
	vcrc = (uint16_t)(b[len - CXIB_VCRC_LEN] | b[len - CXIB_VCRC_LEN + 1] << 8);
	if (cxfw_vcrc(b, len - CXIB_VCRC_LEN) != vcrc)
		return CXFW_PKT_EVCRC;
	if (CXIB_GET(h, CXIB_LRH_LVER) != CXIB_LRH_LVER_0)
		return CXFW_PKT_EVERSION;
	if (CXIB_GET(h, CXIB_LRH_LNH) != CXIB_LNH_IBA_LOCAL &&
	    CXIB_GET(h, CXIB_LRH_LNH) != CXIB_LNH_IBA_GLOBAL)
		return CXFW_PKT_ELNH;
	if ((size_t)CXIB_GET(h, CXIB_LRH_PKTLEN) * CXIB_PKT_WORD + CXIB_VCRC_LEN != len)
		return CXFW_PKT_ESHORT;
	p->vl = (uint8_t)CXIB_GET(h, CXIB_LRH_VL);
	p->sl = (uint8_t)CXIB_GET(h, CXIB_LRH_SL);
	p->dlid = (uint16_t)CXIB_GET(h, CXIB_LRH_DLID);
	p->slid = (uint16_t)CXIB_GET(h, CXIB_LRH_SLID);
	off = CXIB_LRH_LEN;

	/* network layer */
	if (CXIB_GET(h, CXIB_LRH_LNH) == CXIB_LNH_IBA_GLOBAL) {
		if (len < CXFW_PKT_MIN + CXIB_GRH_LEN)
			return CXFW_PKT_ESHORT;
		w = h + off / 4;
		if (CXIB_GET(w, CXIB_GRH_IPVER) != CXIB_GRH_IPVER_6)
			return CXFW_PKT_EVERSION;
		if (CXIB_GET(w, CXIB_GRH_NXTHDR) != CXIB_GRH_NXTHDR_IBA)
			return CXFW_PKT_ELNH;
		if (CXIB_GET(w, CXIB_GRH_PAYLEN) != len - CXIB_VCRC_LEN - CXIB_LRH_LEN - CXIB_GRH_LEN)
			return CXFW_PKT_ESHORT;
		p->grh = true;
		p->tclass = (uint8_t)CXIB_GET(w, CXIB_GRH_TCLASS);
		p->flow_label = CXIB_GET(w, CXIB_GRH_FLOW_LABEL);
		p->hop_limit = (uint8_t)CXIB_GET(w, CXIB_GRH_HOPLMT);
		memcpy(p->sgid, (const uint8_t *)w + CXIB_GRH_SGID_OFFSET, CXIB_GID_LEN);
		memcpy(p->dgid, (const uint8_t *)w + CXIB_GRH_DGID_OFFSET, CXIB_GID_LEN);
		off += CXIB_GRH_LEN;
	}

	/* transport layer */
	if (cxfw_icrc(b, len - CXIB_VCRC_LEN - CXIB_ICRC_LEN) !=
	    cxfw_get_le32(b + len - CXIB_VCRC_LEN - CXIB_ICRC_LEN))
		return CXFW_PKT_EICRC;
	w = h + off / 4;
	if (CXIB_GET(w, CXIB_BTH_TVER) != CXIB_BTH_TVER_0)
		return CXFW_PKT_EVERSION;
	p->opcode = (uint8_t)CXIB_GET(w, CXIB_BTH_OPCODE);
	hdrs = cxib_bth_op_hdrs(p->opcode);
	if (!hdrs)
		return CXFW_PKT_EOPCODE;
	ext = cxib_bth_op_ext_len(p->opcode);
	if (off + CXIB_BTH_LEN + ext + CXIB_ICRC_LEN + CXIB_VCRC_LEN > len)
		return CXFW_PKT_ESHORT;
	p->se = CXIB_GET(w, CXIB_BTH_SE);
	p->migreq = CXIB_GET(w, CXIB_BTH_MIGREQ);
	pad = CXIB_GET(w, CXIB_BTH_PADCNT);
	p->pkey = (uint16_t)CXIB_GET(w, CXIB_BTH_PKEY);
	p->dqpn = CXIB_GET(w, CXIB_BTH_DQPN);
	p->ackreq = CXIB_GET(w, CXIB_BTH_ACKREQ);
	p->psn = CXIB_GET(w, CXIB_BTH_PSN);
	off += CXIB_BTH_LEN;
	w = h + off / 4;
	if (hdrs & CXIB_BTH_HDR_DETH) {
		p->deth_qkey = CXIB_GET(w, CXIB_DETH_QKEY);
		p->deth_sqpn = CXIB_GET(w, CXIB_DETH_SQPN);
		w += CXIB_DETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_RETH) {
		p->reth_va = CXIB_GET64(w, CXIB_RETH_VA);
		p->reth_rkey = CXIB_GET(w, CXIB_RETH_RKEY);
		p->reth_len = CXIB_GET(w, CXIB_RETH_DMA_LEN);
		w += CXIB_RETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_ATOMIC_ETH) {
		p->atomic_va = CXIB_GET64(w, CXIB_ATOMIC_ETH_VA);
		p->atomic_rkey = CXIB_GET(w, CXIB_ATOMIC_ETH_RKEY);
		p->atomic_swap_add = CXIB_GET64(w, CXIB_ATOMIC_ETH_SWAP_ADD);
		p->atomic_compare = CXIB_GET64(w, CXIB_ATOMIC_ETH_COMPARE);
		w += CXIB_ATOMIC_ETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_AETH) {
		p->aeth_synd = (uint8_t)CXIB_GET(w, CXIB_AETH_SYNDROME);
		p->aeth_msn = CXIB_GET(w, CXIB_AETH_MSN);
		w += CXIB_AETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_ATOMIC_ACK_ETH) {
		p->atomic_orig = CXIB_GET64(w, CXIB_ATOMIC_ACK_ETH_ORIG);
		w += CXIB_ATOMIC_ACK_ETH_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_IMMDT) {
		p->imm = CXIB_GET(w, CXIB_IMMDT_IMM);
		w += CXIB_IMMDT_LEN / 4;
	}
	if (hdrs & CXIB_BTH_HDR_IETH)
		p->ieth_rkey = CXIB_GET(w, CXIB_IETH_RKEY);
	off += ext;

	/* payload and pad */
	rest = len - off - CXIB_ICRC_LEN - CXIB_VCRC_LEN;
	if (pad > rest)
		return CXFW_PKT_EPAD;
	if (!(hdrs & CXIB_BTH_HDR_PAYLOAD) && rest)
		return CXFW_PKT_ELEN;
	if (rest - pad > CXIB_PKT_MAX_PAYLOAD)
		return CXFW_PKT_ELEN;
	p->payload = b + off;
	p->paylen = (uint32_t)(rest - pad);
	return 0;
}

/* ---- Device state ------------------------------------------------------------------------- */

static struct cxfw_wire *cxfw_wire_get(struct cxfw_dev *dev)
{
	struct cxfw_wire *w = dev->wire;

	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->ring = calloc(CXFW_WIRE_LOOP_SLOTS, sizeof(*w->ring));
	if (!w->ring) {
		free(w);
		return NULL;
	}
	dev->wire = w;
	return w;
}

void cxfw_wire_reset(struct cxfw_dev *dev)
{
	struct cxfw_wire *w = dev->wire;
	uint8_t pkt[CXFW_PKT_MAX];
	unsigned int port;

	for (port = 1; port <= dev->cfg.num_ports; port++)
		cxfw_fault_take_held(dev, port, pkt);	/* lost with the link's state */
	dev->wire = NULL;
	if (w)
		free(w->ring);
	free(w);
}

unsigned int cxfw_wire_loop_pending(const struct cxfw_dev *dev)
{
	return dev->wire ? dev->wire->count : 0;
}

/* The port as a packet sees it, copied under the lock. */
struct cxfw_wire_port {
	bool up;
	uint8_t state;			/* PortState */
	uint16_t lid;
	uint8_t lmc;
	uint16_t pkeys[CXFW_PKEY_TABLE_LEN];
};

static void cxfw_wire_port_get(struct cxfw_dev *dev, unsigned int port, struct cxfw_wire_port *wp)
{
	const struct cxfw_port *pt = &dev->ports[port - 1];

	pthread_mutex_lock(&dev->lock);
	wp->up = dev->stats.link_up[port - 1] && pt->state != CXIB_PORT_STATE_DOWN;
	wp->state = pt->state;
	wp->lid = pt->lid;
	wp->lmc = pt->lmc;
	memcpy(wp->pkeys, pt->pkeys, sizeof(wp->pkeys));
	pthread_mutex_unlock(&dev->lock);
}

static bool cxfw_lid_unicast(uint16_t lid)
{
	return lid >= CXIB_LID_UNICAST_MIN && lid <= CXIB_LID_UNICAST_MAX;
}

/* @dlid is one of the port's LIDs (base LID with LMC path bits, 7.). */
static bool cxfw_wire_own_lid(const struct cxfw_wire_port *wp, uint16_t dlid)
{
	uint16_t mask = (uint16_t)~((1u << (wp->lmc & CXFW_LMC_MASK)) - 1);

	return wp->lid && cxfw_lid_unicast(dlid) && (dlid & mask) == (wp->lid & mask);
}

/* ---- PMA counters ------------------------------------------------------------------------- */

static void cxfw_pma_add(uint64_t *counter, uint64_t n)
{
	*counter = *counter > UINT64_MAX - n ? UINT64_MAX : *counter + n;
}

/* Data words a packet of @len bytes counts for: LRH through ICRC, in 4-octet units. */
static uint64_t cxfw_pma_words(size_t len)
{
	return len > CXIB_VCRC_LEN ? (len - CXIB_VCRC_LEN) / CXIB_PMA_DATA_UNIT : 0;
}

/* One more packet of @port's counter @field ("rcv_errors", ...).  Lock not held. */
#define CXFW_WIRE_PMA_COUNT(dev, port, field)					\
	do {									\
		pthread_mutex_lock(&(dev)->lock);				\
		cxfw_pma_add(&(dev)->ports[(port) - 1].pma.field, 1);		\
		pthread_mutex_unlock(&(dev)->lock);				\
	} while (0)

/* ---- Send --------------------------------------------------------------------------------- */

static int cxfw_wire_loop_push(struct cxfw_dev *dev, unsigned int port, const uint8_t *pkt,
			       size_t len)
{
	struct cxfw_wire *w = cxfw_wire_get(dev);
	struct cxfw_wire_slot *s;

	if (!w || w->count >= CXFW_WIRE_LOOP_SLOTS) {
		pthread_mutex_lock(&dev->lock);
		dev->stats.pkts_dropped++;
		dev->stats.loop_drops++;
		pthread_mutex_unlock(&dev->lock);
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: port %u loopback queue %s, packet dropped",
			 port, w ? "full" : "unavailable");
		return -1;
	}
	s = &w->ring[(w->head + w->count) % CXFW_WIRE_LOOP_SLOTS];
	memcpy(s->buf, pkt, len);
	s->len = len;
	s->port = port;
	w->count++;
	dev->plat.kick(dev->plat.opaque);	/* cxfw_wire_process() delivers it */
	return 0;
}

/*
 * Put @pkt on @port's cable through the link's faults (fault.c); 0 if the port
 * transmitted it (what the cable then did to it does not matter), -1 if the cable refused
 * it.  A packet the link held back goes after this one.
 */
static int cxfw_wire_transmit(struct cxfw_dev *dev, unsigned int port, uint8_t *pkt,
			      size_t len)
{
	uint8_t held[CXFW_PKT_MAX];
	size_t hlen;
	int ret = 0;

	switch (cxfw_fault_link(dev, port, pkt, len)) {
	case CXFW_LINK_LOSE:
	case CXFW_LINK_HOLD:
		return 0;
	case CXFW_LINK_SEND_TWICE:
		ret = dev->plat.port_send(dev->plat.opaque, port, pkt, len);
		dev->plat.port_send(dev->plat.opaque, port, pkt, len);
		break;
	case CXFW_LINK_SEND:
		ret = dev->plat.port_send(dev->plat.opaque, port, pkt, len);
		break;
	}
	hlen = cxfw_fault_take_held(dev, port, held);
	if (hlen)
		dev->plat.port_send(dev->plat.opaque, port, held, hlen);
	return ret;
}

void cxfw_wire_release_held(struct cxfw_dev *dev)
{
	uint8_t held[CXFW_PKT_MAX];
	unsigned int port;
	size_t hlen;

	for (port = 1; port <= dev->cfg.num_ports; port++) {
		hlen = cxfw_fault_take_held(dev, port, held);
		if (hlen && dev->plat.port_send)
			dev->plat.port_send(dev->plat.opaque, port, held, hlen);
	}
}

bool cxfw_wire_port_busy(struct cxfw_dev *dev, unsigned int port)
{
	return dev->plat.port_busy && dev->plat.port_busy(dev->plat.opaque, port);
}

uint64_t cxfw_wire_port_wait_ns(struct cxfw_dev *dev, unsigned int port)
{
	return dev->plat.port_wait_ns ? dev->plat.port_wait_ns(dev->plat.opaque, port) : 0;
}

int cxfw_wire_send(struct cxfw_dev *dev, unsigned int port, const struct cxfw_pkt *p)
{
	uint8_t pkt[CXFW_PKT_MAX];
	struct cxfw_wire_port wp;
	struct cxfw_pkt q;
	bool looped = false, sent = false;
	uint32_t member;
	size_t len;

	if (!p || port < 1 || port > dev->cfg.num_ports) {
		/* a QP whose context names no valid port: the guest's doing, per packet */
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: packet sent on nonexistent port %u", port);
		return -1;
	}
	cxfw_wire_port_get(dev, port, &wp);
	if (!wp.up) {
		CXFW_WIRE_PMA_COUNT(dev, port, xmit_discards);
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: port %u down, packet to LID 0x%x dropped",
			 port, p->dlid);
		return -1;
	}
	/* until the SM makes the port Active it carries subnet management (VL15) only */
	if (wp.state != CXIB_PORT_STATE_ACTIVE && p->dqpn != CXIB_QP0) {
		cxfw_stat_add(dev, &dev->stats.port_state_drops, 1);
		cxfw_log(dev, CXFW_LOG_DEBUG,
			 "cxfw: port %u not active (state %u), packet to LID 0x%x QP 0x%x dropped",
			 port, wp.state, p->dlid, p->dqpn);
		return -1;
	}
	q = *p;
	/* directed-route SMPs use the permissive LID both ways (6.1) */
	q.slid = q.dlid == CXIB_LID_PERMISSIVE ? CXIB_LID_PERMISSIVE : wp.lid;
	if (!q.pkey)
		q.pkey = CXIB_PKEY_DEFAULT;
	q.vl = CXIB_BTH_OP_CLASS(q.opcode) == CXIB_BTH_OP_CLASS_UD && q.dqpn == CXIB_QP0 ?
	       CXIB_VL_SMP : CXIB_VL_DATA_0;
	len = cxfw_pkt_build(&q, pkt, sizeof(pkt));
	if (!len) {
		cxfw_log(dev, CXFW_LOG_ERR,
			 "cxfw: port %u: cannot build opcode 0x%02x to QP 0x%x (%u bytes)",
			 port, q.opcode, q.dqpn, q.paylen);
		return -1;
	}

	if (cxfw_wire_own_lid(&wp, q.dlid))
		return cxfw_wire_loop_push(dev, port, pkt, len);
	/* multicast: to the cable and to the QPs of this port attached to the group (5.3) */
	if (cxib_lid_is_multicast(q.dlid) && q.grh && cxfw_mcg_qps(dev, q.dgid, &member, 1))
		looped = !cxfw_wire_loop_push(dev, port, pkt, len);
	if (dev->plat.port_send && !cxfw_wire_transmit(dev, port, pkt, len)) {
		struct cxfw_pma_counters *c = &dev->ports[port - 1].pma;

		sent = true;
		pthread_mutex_lock(&dev->lock);
		dev->stats.pkts_sent++;
		dev->stats.pkt_bytes_sent += len;
		cxfw_pma_add(&c->xmit_pkts, 1);
		cxfw_pma_add(&c->xmit_data, cxfw_pma_words(len));
		cxfw_pma_add(cxib_lid_is_multicast(q.dlid) ? &c->mcast_xmit_pkts :
			     &c->ucast_xmit_pkts, 1);
		pthread_mutex_unlock(&dev->lock);
	} else {
		CXFW_WIRE_PMA_COUNT(dev, port, xmit_discards);
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: port %u: cable refused a %zu-byte packet",
			 port, len);
	}
	return sent || looped ? 0 : -1;
}

void cxfw_wire_send_traps(struct cxfw_dev *dev, uint64_t now)
{
	uint8_t mad[CXIB_MAD_SIZE];
	struct cxfw_pkt pkt;
	unsigned int port;
	bool up;

	/* the SMA speaks while the function is initialized; its traps wait meanwhile */
	pthread_mutex_lock(&dev->lock);
	up = dev->hca_state == CXFW_HCA_INITIALIZED;
	pthread_mutex_unlock(&dev->lock);
	if (!up)
		return;
	for (port = 1; port <= dev->cfg.num_ports; port++)
		while (cxfw_sma_next_trap(dev, port, now, &pkt, mad))
			if (cxfw_wire_send(dev, port, &pkt))
				cxfw_log(dev, CXFW_LOG_DEBUG,
					 "cxfw: port %u: trap to LID 0x%x not sent", port, pkt.dlid);
}

/* ---- Receive ------------------------------------------------------------------------------ */

void cxfw_wire_vl15_dropped(struct cxfw_dev *dev, const struct cxfw_pkt *p)
{
	if (p->loopback || p->vl != CXIB_VL_SMP || p->port < 1 || p->port > dev->cfg.num_ports)
		return;
	pthread_mutex_lock(&dev->lock);
	/* a function torn down (its driver unloading) has no receive side to run short of */
	if (dev->hca_state == CXFW_HCA_INITIALIZED)
		cxfw_pma_add(&dev->ports[p->port - 1].pma.vl15_dropped, 1);
	pthread_mutex_unlock(&dev->lock);
}

/*
 * Drop @p, counting it in pkts_dropped and @extra.  From the cable, a @malformed packet
 * (header fields that contradict each other: IBTA's malformed packet errors) counts in
 * PortRcvErrors.  Other drops (addressing, port state) are in no PMA counter: VL15Dropped
 * is for packets the port had no resources for (cxfw_wire_vl15_dropped).
 */
static void cxfw_wire_drop_pkt(struct cxfw_dev *dev, uint64_t *extra, bool malformed,
			       const struct cxfw_pkt *p, const char *why)
{
	struct cxfw_pma_counters *c = &dev->ports[p->port - 1].pma;

	pthread_mutex_lock(&dev->lock);
	dev->stats.pkts_dropped++;
	if (extra)
		(*extra)++;
	if (!p->loopback && malformed)
		cxfw_pma_add(&c->rcv_errors, 1);
	pthread_mutex_unlock(&dev->lock);
	cxfw_log(dev, CXFW_LOG_DEBUG,
		 "cxfw: port %u: dropped %spacket 0x%02x LID 0x%x->0x%x QP 0x%x PSN 0x%x: %s",
		 p->port, p->loopback ? "looped " : "", p->opcode, p->slid, p->dlid, p->dqpn,
		 p->psn, why);
}

static void cxfw_wire_drop(struct cxfw_dev *dev, uint64_t *extra, const struct cxfw_pkt *p,
			   const char *why)
{
	cxfw_wire_drop_pkt(dev, extra, false, p, why);
}

/*
 * @p fails a P_Key check.  @first: the packet's first failure (a multicast packet may fail
 * for several QPs; PortRcvConstraintErrors counts packets).
 */
static void cxfw_wire_pkey_violation(struct cxfw_dev *dev, const struct cxfw_pkt *p,
				     bool first)
{
	struct cxfw_port *pt = &dev->ports[p->port - 1];

	pthread_mutex_lock(&dev->lock);
	if (pt->pkey_violations < UINT16_MAX)	/* PortInfo counter saturates (6.3) */
		pt->pkey_violations++;
	if (first && !p->loopback)
		cxfw_pma_add(&pt->pma.rcv_constraint_errors, 1);
	cxfw_sma_trap_key_locked(dev, p->port, CXIB_TRAP_BAD_PKEY, p, p->pkey);
	pthread_mutex_unlock(&dev->lock);
	cxfw_wire_drop(dev, &dev->stats.pkey_violations, p, "P_Key violation");
}

/* The packet's P_Key matches an entry of the port's table (6.3). */
static bool cxfw_wire_pkey_in_table(const struct cxfw_wire_port *wp, uint16_t pkey)
{
	unsigned int i;

	for (i = 0; i < CXFW_PKEY_TABLE_LEN; i++)
		if (cxib_pkey_match(wp->pkeys[i], pkey))
			return true;
	return false;
}

/* The P_Key of @qp's primary path (its pkey_index into the port's table), 0 if none. */
static uint16_t cxfw_wire_qp_pkey(const struct cxfw_wire_port *wp, const struct cxfw_qp *qp)
{
	const __be32 *ads = qp->qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;
	uint32_t idx = CXIB_GET(ads, CXIB_ADS_PKEY_INDEX);

	return idx < CXFW_PKEY_TABLE_LEN ? wp->pkeys[idx] : 0;
}

/* Port a special QP is bound to (its primary path; 0 until RST2INIT sets it). */
static unsigned int cxfw_wire_qp_port(const struct cxfw_qp *qp)
{
	const __be32 *ads = qp->qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;

	return CXIB_GET(ads, CXIB_ADS_VHCA_PORT_NUM);
}

static bool cxfw_wire_is_special(const struct cxfw_qp *qp, uint8_t st, unsigned int port)
{
	unsigned int qport = cxfw_wire_qp_port(qp);

	return qp->st == st && (qport == port || !qport);
}

/*
 * The QP that serves QP0 or QP1 (@dqpn) on @port: the driver creates them with st QP0 /
 * QP1 and an ordinary number.  The last one found is tried first; else the table is
 * scanned (MADs are rare).  Lock held.
 */
static struct cxfw_qp *cxfw_wire_special_qp(struct cxfw_dev *dev, unsigned int port,
					     uint32_t dqpn)
{
	uint8_t st = dqpn == CXIB_QP0 ? CXIB_QPC_ST_QP0 : CXIB_QPC_ST_QP1;
	struct cxfw_wire *w = dev->wire;
	struct cxfw_qp *qp;
	uint32_t qpn;

	if (w && w->special[port - 1][dqpn]) {
		qp = cxfw_qp_find(dev, w->special[port - 1][dqpn]);
		if (qp && cxfw_wire_is_special(qp, st, port))
			return qp;
	}
	if (!dev->qps)
		return NULL;
	for (qpn = 0; qpn < CXFW_MAX_QPS; qpn++) {
		qp = dev->qps[qpn];
		if (qp && cxfw_wire_is_special(qp, st, port)) {
			if (w)
				w->special[port - 1][dqpn] = qpn;
			return qp;
		}
	}
	return NULL;
}

/* The opcode's transport class is the one @qp speaks. */
static bool cxfw_wire_class_ok(uint8_t opcode, uint8_t st)
{
	switch (CXIB_BTH_OP_CLASS(opcode)) {
	case CXIB_BTH_OP_CLASS_RC:
		return st == CXIB_QPC_ST_RC;
	case CXIB_BTH_OP_CLASS_UC:
		return st == CXIB_QPC_ST_UC;
	case CXIB_BTH_OP_CLASS_UD:
		return st == CXIB_QPC_ST_UD || st == CXIB_QPC_ST_QP0 || st == CXIB_QPC_ST_QP1;
	default:
		return false;
	}
}

static void cxfw_wire_unicast(struct cxfw_dev *dev, const struct cxfw_wire_port *wp,
			      const struct cxfw_pkt *p)
{
	bool special = p->dqpn == CXIB_QP0 || p->dqpn == CXIB_QP1;
	struct cxfw_qp *qp;

	if (p->dqpn == CXIB_MULTICAST_QPN) {
		cxfw_wire_drop(dev, &dev->stats.addressing_drops, p,
			       "multicast QPN to a unicast LID");
		return;
	}
	pthread_mutex_lock(&dev->lock);
	qp = special ? cxfw_wire_special_qp(dev, p->port, p->dqpn) : cxfw_qp_find(dev, p->dqpn);
	pthread_mutex_unlock(&dev->lock);
	/* special QPs are reached as QP0 / QP1 only, never by their own number */
	if (!qp || (!special && (qp->st == CXIB_QPC_ST_QP0 || qp->st == CXIB_QPC_ST_QP1))) {
		cxfw_wire_drop(dev, &dev->stats.no_qp_drops, p, "no such QP");
		if (p->dqpn == CXIB_QP0)
			cxfw_wire_vl15_dropped(dev, p);	/* no QP0 to take it yet */
		return;
	}
	if (!cxfw_wire_class_ok(p->opcode, qp->st)) {
		cxfw_wire_drop(dev, &dev->stats.transport_drops, p,
			       "opcode does not match the QP's transport");
		return;
	}
	/* QP1 accepts any P_Key of the table (checked already); others their own (5.2) */
	if (!special && !cxib_pkey_match(cxfw_wire_qp_pkey(wp, qp), p->pkey)) {
		cxfw_wire_pkey_violation(dev, p, true);
		return;
	}
	if (cxib_bth_op_hdrs(p->opcode) & CXIB_BTH_HDR_RESPONSE)
		cxfw_req_rx(dev, qp, p);
	else
		cxfw_resp_rx(dev, qp, p);
}

/* A multicast packet: one copy to every UD QP of the group (5.3). */
static void cxfw_wire_multicast(struct cxfw_dev *dev, const struct cxfw_wire_port *wp,
				const struct cxfw_pkt *p)
{
	uint32_t qpns[CXFW_MAX_QP_MCG];
	unsigned int n, i, copies = 0, violations = 0;
	struct cxfw_qp *qp;
	bool block;

	if (!p->grh || p->dgid[0] != CXIB_GID_MULTICAST_PREFIX ||
	    p->dqpn != CXIB_MULTICAST_QPN ||
	    CXIB_BTH_OP_CLASS(p->opcode) != CXIB_BTH_OP_CLASS_UD) {
		cxfw_wire_drop(dev, &dev->stats.addressing_drops, p,
			       "malformed multicast (GRH, MGID, QPN or not UD)");
		return;
	}
	n = cxfw_mcg_qps(dev, p->dgid, qpns, CXFW_MAX_QP_MCG);
	if (!n) {
		cxfw_wire_drop(dev, &dev->stats.no_qp_drops, p,
			       "no QP attached to the multicast group");
		return;
	}
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&dev->lock);
		qp = cxfw_qp_find(dev, qpns[i]);
		pthread_mutex_unlock(&dev->lock);
		if (!qp || qp->st != CXIB_QPC_ST_UD)
			continue;
		/* our own send comes back unless the QP blocks multicast loopback */
		block = p->loopback && qp->qpn == p->deth_sqpn &&
			CXIB_GET(qp->qpc, CXIB_QPC_BLOCK_LB_MC);
		if (block)
			continue;
		if (!cxib_pkey_match(cxfw_wire_qp_pkey(wp, qp), p->pkey)) {
			cxfw_wire_pkey_violation(dev, p, !violations++);
			continue;
		}
		copies++;
		cxfw_resp_rx(dev, qp, p);
	}
	if (copies)
		cxfw_stat_add(dev, &dev->stats.mcast_pkts_received, copies);
}

/* Parse, check and dispatch one packet that arrived on @port (cable or loopback). */
static void cxfw_wire_deliver(struct cxfw_dev *dev, unsigned int port, const uint8_t *buf,
			      size_t len, bool loopback)
{
	struct cxfw_wire_port wp;
	struct cxfw_pkt p;
	uint64_t *counter = NULL;
	int err;

	err = cxfw_pkt_parse(buf, len, &p);
	p.port = port;
	p.loopback = loopback;
	if (err) {
		if (err == CXFW_PKT_EVCRC)
			counter = &dev->stats.vcrc_errors;
		else if (err == CXFW_PKT_EICRC)
			counter = &dev->stats.icrc_errors;
		pthread_mutex_lock(&dev->lock);
		dev->stats.pkts_dropped++;
		if (counter)
			(*counter)++;
		if (!loopback)
			cxfw_pma_add(&dev->ports[port - 1].pma.rcv_errors, 1);
		/* a bad VCRC from the cable: bits changed on the link (a symbol error) */
		if (!loopback && err == CXFW_PKT_EVCRC)
			cxfw_pma_add(&dev->ports[port - 1].pma.symbol_errors, 1);
		pthread_mutex_unlock(&dev->lock);
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: port %u: dropped %s%zu-byte packet: error %d",
			 port, loopback ? "looped " : "", len, err);
		return;
	}
	if (!loopback) {
		struct cxfw_pma_counters *c = &dev->ports[port - 1].pma;

		/* by the DLID of an LRH that passed its VCRC (the permissive LID: unicast) */
		pthread_mutex_lock(&dev->lock);
		cxfw_pma_add(cxib_lid_is_multicast(p.dlid) ? &c->mcast_rcv_pkts :
			     &c->ucast_rcv_pkts, 1);
		pthread_mutex_unlock(&dev->lock);
	}
	cxfw_wire_port_get(dev, port, &wp);
	if (!wp.up) {
		cxfw_wire_drop(dev, &dev->stats.port_state_drops, &p, "port down");
		return;
	}
	/*
	 * Init and Armed take subnet management only; in Armed the first data packet from the
	 * neighbour means the link is in use and moves the port to Active (IBTA vol 1 7.2).
	 */
	if (wp.state != CXIB_PORT_STATE_ACTIVE && p.vl != CXIB_VL_SMP) {
		if (wp.state != CXIB_PORT_STATE_ARMED || loopback) {
			cxfw_wire_drop(dev, &dev->stats.port_state_drops, &p, "port not active");
			return;
		}
		pthread_mutex_lock(&dev->lock);
		if (dev->ports[port - 1].state == CXIB_PORT_STATE_ARMED)
			cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_ACTIVE);
		pthread_mutex_unlock(&dev->lock);
		dev->plat.kick(dev->plat.opaque);	/* the worker posts the ACTIVE event */
	}

	/* addressing (5.2, 6.1, 7) */
	if ((p.dlid == CXIB_LID_PERMISSIVE || p.slid == CXIB_LID_PERMISSIVE) &&
	    p.dqpn != CXIB_QP0) {
		cxfw_wire_drop_pkt(dev, &dev->stats.addressing_drops, true, &p,
				   "permissive LID to a QP other than QP0");
		return;
	}
	if (!cxib_lid_is_multicast(p.dlid) && p.dlid != CXIB_LID_PERMISSIVE &&
	    !cxfw_wire_own_lid(&wp, p.dlid)) {
		cxfw_wire_drop(dev, &dev->stats.addressing_drops, &p, "DLID is not this port's");
		return;
	}
	if ((p.vl == CXIB_VL_SMP) != (p.dqpn == CXIB_QP0)) {
		cxfw_wire_drop_pkt(dev, &dev->stats.addressing_drops, true, &p,
				   "VL15 is for QP0 and QP0 only");
		return;
	}
	/* P_Key against the port's table; QP0 is exempt (6.1) */
	if (p.dqpn != CXIB_QP0 && !cxfw_wire_pkey_in_table(&wp, p.pkey)) {
		cxfw_wire_pkey_violation(dev, &p, true);
		return;
	}
	if (cxib_lid_is_multicast(p.dlid))
		cxfw_wire_multicast(dev, &wp, &p);
	else
		cxfw_wire_unicast(dev, &wp, &p);
}

void cxfw_wire_receive(struct cxfw_dev *dev, unsigned int port, const void *buf, size_t len)
{
	if (port < 1 || port > dev->cfg.num_ports || !buf) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: bad packet delivery on port %u", port);
		return;
	}
	/* cxfw_port_receive() counted the packet itself; the PMA counts every one, bad or not */
	pthread_mutex_lock(&dev->lock);
	dev->stats.pkt_bytes_received += len;
	cxfw_pma_add(&dev->ports[port - 1].pma.rcv_pkts, 1);
	cxfw_pma_add(&dev->ports[port - 1].pma.rcv_data, cxfw_pma_words(len));
	pthread_mutex_unlock(&dev->lock);
	cxfw_wire_deliver(dev, port, buf, len, false);
}

void cxfw_wire_process(struct cxfw_dev *dev)
{
	struct cxfw_wire *w = dev->wire;
	struct cxfw_wire_slot *s;
	unsigned int n;

	if (!w)
		return;
	/* only what is queued now: packets the deliveries send wait for the next call */
	for (n = w->count; n && w->count; n--) {
		s = &w->ring[w->head];
		cxfw_stat_add(dev, &dev->stats.pkts_looped, 1);
		cxfw_wire_deliver(dev, s->port, s->buf, s->len, true);
		/* freed only now, so packets queued meanwhile cannot reuse this slot */
		w->head = (w->head + 1) % CXFW_WIRE_LOOP_SLOTS;
		w->count--;
	}
}
