/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: InfiniBand packets on the wire (IBTA Vol 1 ch. 5, 7 (LRH,
 * VCRC), 8 (GRH) and 9 (BTH, extended headers, opcodes, ICRC)).
 *
 *   LRH(8) [GRH(40)] BTH(12) [extended headers] [payload] [pad 0..3] ICRC(4) VCRC(2)
 *
 *   CXIB_<HDR>_<FIELD>     header fields, "dword, hi, lo" relative to the start of that
 *                          header (LRH, GRH, BTH, RETH, AETH, ATOMIC_ETH, ATOMIC_ACK_ETH,
 *                          IMMDT, IETH, DETH); every header is a multiple of 4 bytes
 *   CXIB_<HDR>_LEN         header sizes in bytes
 *   CXIB_BTH_OP_*          BTH opcodes (transport class | operation), section 2
 *   CXIB_AETH_*            AETH syndrome encoding, section 1.6
 *
 * Every header field is big-endian; the two CRCs are stored least-significant byte first
 * (sections 1.8, 1.9).  64-bit fields are "dword, 63, 0": use CXIB_GET64/CXIB_SET64.
 * The P_Key constants CXIB_PKEY_DEFAULT and CXIB_PKEY_FULL_MEMBER live in mad.h.
 */
#ifndef _CXIB_IBWIRE_H
#define _CXIB_IBWIRE_H

#include "bits.h"
#include "mad.h"

/* ---- Sizes (section 1.1) ---------------------------------------------------------------- */

#define CXIB_LRH_LEN				8
#define CXIB_GRH_LEN				40
#define CXIB_BTH_LEN				12
#define CXIB_RETH_LEN				16
#define CXIB_AETH_LEN				4
#define CXIB_ATOMIC_ETH_LEN			28
#define CXIB_ATOMIC_ACK_ETH_LEN			8
#define CXIB_IMMDT_LEN				4
#define CXIB_IETH_LEN				4
#define CXIB_DETH_LEN				8
#define CXIB_ICRC_LEN				4
#define CXIB_VCRC_LEN				2

/* CRC polynomials in the reflected (LSB-first) form the wire order needs (1.8, 1.9). */
#define CXIB_ICRC_POLY_REFLECTED		0xedb88320u	/* 0x04C11DB7, as Ethernet */
#define CXIB_VCRC_POLY_REFLECTED		0xd008u		/* 0x100B */
#define CXIB_PKT_WORD				4	/* PktLen unit, pad alignment */
#define CXIB_PKT_MAX_PAD			3
#define CXIB_GID_LEN				16
#define CXIB_GID_PREFIX				0, 63, 0	/* subnet prefix */
#define CXIB_GID_GUID				2, 63, 0	/* interface ID: a port's GUID */
/* Largest payload of one packet: the 4096-byte MTU (section 7). */
#define CXIB_PKT_MAX_PAYLOAD			4096

/* ---- LRH, Local Route Header (section 1.2) ---------------------------------------------- */

#define CXIB_LRH_VL				0, 31, 28
#define CXIB_LRH_LVER				0, 27, 24	/* must be 0 */
#define CXIB_LRH_SL				0, 23, 20
#define CXIB_LRH_LNH				0, 17, 16
#define CXIB_LRH_DLID				0, 15, 0
#define CXIB_LRH_PKTLEN				1, 26, 16	/* 4-byte words, LRH..ICRC */
#define CXIB_LRH_SLID				1, 15, 0

#define CXIB_LRH_LVER_0				0

/* Link next header. */
enum {
	CXIB_LNH_RAW				= 0,	/* raw packet: not IBA transport */
	CXIB_LNH_IP_NON_IBA			= 1,
	CXIB_LNH_IBA_LOCAL			= 2,	/* BTH follows the LRH */
	CXIB_LNH_IBA_GLOBAL			= 3,	/* GRH follows the LRH */
};

/* Virtual lanes (section 7): data VLs 0..14, VL15 carries QP0 (SMP) traffic only. */
#define CXIB_VL_DATA_0				0
#define CXIB_VL_SMP				15

/* LIDs (section 7). */
#define CXIB_LID_RESERVED			0x0000
#define CXIB_LID_UNICAST_MIN			0x0001
#define CXIB_LID_UNICAST_MAX			0xbfff
#define CXIB_LID_MULTICAST_MIN			0xc000
#define CXIB_LID_MULTICAST_MAX			0xfffe
#define CXIB_LID_PERMISSIVE			0xffff	/* QP0 (directed-route SMPs) only */

/* ---- GRH, Global Route Header (section 1.3) --------------------------------------------- */

#define CXIB_GRH_IPVER				0, 31, 28
#define CXIB_GRH_TCLASS				0, 27, 20
#define CXIB_GRH_FLOW_LABEL			0, 19, 0
#define CXIB_GRH_PAYLEN				1, 31, 16	/* bytes BTH..ICRC incl. pad */
#define CXIB_GRH_NXTHDR				1, 15, 8
#define CXIB_GRH_HOPLMT				1, 7, 0
#define CXIB_GRH_SGID_OFFSET			8
#define CXIB_GRH_DGID_OFFSET			24

#define CXIB_GRH_IPVER_6			6
#define CXIB_GRH_NXTHDR_IBA			0x1b	/* BTH follows */
#define CXIB_GID_MULTICAST_PREFIX		0xff	/* first byte of an MGID (section 5.3) */

/* ---- BTH, Base Transport Header (section 1.4) ------------------------------------------- */

#define CXIB_BTH_OPCODE				0, 31, 24
#define CXIB_BTH_SE				0, 23, 23
#define CXIB_BTH_MIGREQ				0, 22, 22
#define CXIB_BTH_PADCNT				0, 21, 20
#define CXIB_BTH_TVER				0, 19, 16	/* must be 0 */
#define CXIB_BTH_PKEY				0, 15, 0
#define CXIB_BTH_RESV8A				1, 31, 24	/* FECN, BECN, resv6a: variant */
#define CXIB_BTH_FECN				1, 31, 31
#define CXIB_BTH_BECN				1, 30, 30
#define CXIB_BTH_DQPN				1, 23, 0
#define CXIB_BTH_ACKREQ				2, 31, 31
#define CXIB_BTH_PSN				2, 23, 0

#define CXIB_BTH_TVER_0				0
#define CXIB_PSN_MASK				0xffffff
#define CXIB_QPN_MASK				0xffffff
#define CXIB_MULTICAST_QPN			0xffffff	/* BTH.DestQP of multicast (5.3) */
#define CXIB_QP0				0	/* SMI */
#define CXIB_QP1				1	/* GSI */

/* P_Key (section 6.3): bit 15 membership, bits 14:0 partition (0 is invalid). */
#define CXIB_PKEY_PARTITION_MASK		0x7fff

/* ---- Extended transport headers (section 1.5) ------------------------------------------- */

/* RETH: RDMA extended transport header. */
#define CXIB_RETH_VA				0, 63, 0
#define CXIB_RETH_RKEY				2, 31, 0
#define CXIB_RETH_DMA_LEN			3, 31, 0

/* AETH: ACK extended transport header. */
#define CXIB_AETH_SYNDROME			0, 31, 24
#define CXIB_AETH_MSN				0, 23, 0

/* AtomicETH: no alignment padding, the 64-bit fields sit at bytes 0, 12 and 20. */
#define CXIB_ATOMIC_ETH_VA			0, 63, 0
#define CXIB_ATOMIC_ETH_RKEY			2, 31, 0
#define CXIB_ATOMIC_ETH_SWAP_ADD		3, 63, 0
#define CXIB_ATOMIC_ETH_COMPARE			5, 63, 0

/* AtomicAckETH: the remote value before the atomic. */
#define CXIB_ATOMIC_ACK_ETH_ORIG		0, 63, 0

/* ImmDt: opaque, copied unchanged into the receiver's CQE. */
#define CXIB_IMMDT_IMM				0, 31, 0

/* IETH: R_Key to invalidate. */
#define CXIB_IETH_RKEY				0, 31, 0

/* DETH: datagram extended transport header. */
#define CXIB_DETH_QKEY				0, 31, 0
#define CXIB_DETH_SQPN				1, 23, 0

/* ---- AETH syndrome (section 1.6) -------------------------------------------------------- */

#define CXIB_AETH_TYPE_MASK			0x60
#define CXIB_AETH_VALUE_MASK			0x1f
enum {
	CXIB_AETH_TYPE_ACK			= 0x00,	/* value: credit count code */
	CXIB_AETH_TYPE_RNR_NAK			= 0x20,	/* value: RNR timer code */
	CXIB_AETH_TYPE_NAK			= 0x60,	/* value: CXIB_AETH_NAK_* */
};

/* NAK codes (value of a CXIB_AETH_TYPE_NAK syndrome). */
enum {
	CXIB_AETH_NAK_PSN_SEQ_ERR		= 0,
	CXIB_AETH_NAK_INVALID_REQ		= 1,
	CXIB_AETH_NAK_REMOTE_ACCESS_ERR		= 2,
	CXIB_AETH_NAK_REMOTE_OP_ERR		= 3,
	CXIB_AETH_NAK_INVALID_RD_REQ		= 4,
};

#define CXIB_AETH_CREDIT_INVALID		0x1f	/* "no credit limit" */
#define CXIB_AETH_ACK(credit)	(CXIB_AETH_TYPE_ACK | ((credit) & CXIB_AETH_VALUE_MASK))
#define CXIB_AETH_RNR_NAK(timer) \
	(CXIB_AETH_TYPE_RNR_NAK | ((timer) & CXIB_AETH_VALUE_MASK))
#define CXIB_AETH_NAK(code)	(CXIB_AETH_TYPE_NAK | ((code) & CXIB_AETH_VALUE_MASK))
#define CXIB_AETH_SYND_TYPE(synd)	((synd) & CXIB_AETH_TYPE_MASK)
#define CXIB_AETH_SYND_VALUE(synd)	((synd) & CXIB_AETH_VALUE_MASK)

/* ---- BTH opcodes (section 2) ------------------------------------------------------------ */

/* Bits 7:5 transport class, bits 4:0 operation. */
#define CXIB_BTH_OP_CLASS_MASK			0xe0
#define CXIB_BTH_OP_OPERATION_MASK		0x1f
enum {
	CXIB_BTH_OP_CLASS_RC			= 0x00,
	CXIB_BTH_OP_CLASS_UC			= 0x20,
	CXIB_BTH_OP_CLASS_RD			= 0x40,	/* not supported */
	CXIB_BTH_OP_CLASS_UD			= 0x60,
};

/* Operations (low 5 bits); not every class defines every operation. */
enum {
	CXIB_BTH_OP_SEND_FIRST			= 0x00,
	CXIB_BTH_OP_SEND_MIDDLE			= 0x01,
	CXIB_BTH_OP_SEND_LAST			= 0x02,
	CXIB_BTH_OP_SEND_LAST_IMM		= 0x03,
	CXIB_BTH_OP_SEND_ONLY			= 0x04,
	CXIB_BTH_OP_SEND_ONLY_IMM		= 0x05,
	CXIB_BTH_OP_RDMA_WRITE_FIRST		= 0x06,
	CXIB_BTH_OP_RDMA_WRITE_MIDDLE		= 0x07,
	CXIB_BTH_OP_RDMA_WRITE_LAST		= 0x08,
	CXIB_BTH_OP_RDMA_WRITE_LAST_IMM		= 0x09,
	CXIB_BTH_OP_RDMA_WRITE_ONLY		= 0x0a,
	CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM		= 0x0b,
	CXIB_BTH_OP_RDMA_READ_REQUEST		= 0x0c,
	CXIB_BTH_OP_RDMA_READ_RESP_FIRST	= 0x0d,
	CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE	= 0x0e,
	CXIB_BTH_OP_RDMA_READ_RESP_LAST		= 0x0f,
	CXIB_BTH_OP_RDMA_READ_RESP_ONLY		= 0x10,
	CXIB_BTH_OP_ACKNOWLEDGE			= 0x11,
	CXIB_BTH_OP_ATOMIC_ACKNOWLEDGE		= 0x12,
	CXIB_BTH_OP_COMPARE_SWAP		= 0x13,
	CXIB_BTH_OP_FETCH_ADD			= 0x14,
	CXIB_BTH_OP_SEND_LAST_INV		= 0x16,
	CXIB_BTH_OP_SEND_ONLY_INV		= 0x17,
};

#define CXIB_BTH_OP_CLASS(op)		((op) & CXIB_BTH_OP_CLASS_MASK)
#define CXIB_BTH_OP_OPERATION(op)	((op) & CXIB_BTH_OP_OPERATION_MASK)

/* Full opcodes: RC. */
enum {
	CXIB_BTH_OP_RC_SEND_FIRST		= 0x00,
	CXIB_BTH_OP_RC_SEND_MIDDLE		= 0x01,
	CXIB_BTH_OP_RC_SEND_LAST		= 0x02,
	CXIB_BTH_OP_RC_SEND_LAST_IMM		= 0x03,
	CXIB_BTH_OP_RC_SEND_ONLY		= 0x04,
	CXIB_BTH_OP_RC_SEND_ONLY_IMM		= 0x05,
	CXIB_BTH_OP_RC_RDMA_WRITE_FIRST		= 0x06,
	CXIB_BTH_OP_RC_RDMA_WRITE_MIDDLE	= 0x07,
	CXIB_BTH_OP_RC_RDMA_WRITE_LAST		= 0x08,
	CXIB_BTH_OP_RC_RDMA_WRITE_LAST_IMM	= 0x09,
	CXIB_BTH_OP_RC_RDMA_WRITE_ONLY		= 0x0a,
	CXIB_BTH_OP_RC_RDMA_WRITE_ONLY_IMM	= 0x0b,
	CXIB_BTH_OP_RC_RDMA_READ_REQUEST	= 0x0c,
	CXIB_BTH_OP_RC_RDMA_READ_RESP_FIRST	= 0x0d,
	CXIB_BTH_OP_RC_RDMA_READ_RESP_MIDDLE	= 0x0e,
	CXIB_BTH_OP_RC_RDMA_READ_RESP_LAST	= 0x0f,
	CXIB_BTH_OP_RC_RDMA_READ_RESP_ONLY	= 0x10,
	CXIB_BTH_OP_RC_ACKNOWLEDGE		= 0x11,
	CXIB_BTH_OP_RC_ATOMIC_ACKNOWLEDGE	= 0x12,
	CXIB_BTH_OP_RC_COMPARE_SWAP		= 0x13,
	CXIB_BTH_OP_RC_FETCH_ADD		= 0x14,
	CXIB_BTH_OP_RC_SEND_LAST_INV		= 0x16,
	CXIB_BTH_OP_RC_SEND_ONLY_INV		= 0x17,
};

/* Full opcodes: UC (no READ, ATOMIC, ACK or INVALIDATE). */
enum {
	CXIB_BTH_OP_UC_SEND_FIRST		= 0x20,
	CXIB_BTH_OP_UC_SEND_MIDDLE		= 0x21,
	CXIB_BTH_OP_UC_SEND_LAST		= 0x22,
	CXIB_BTH_OP_UC_SEND_LAST_IMM		= 0x23,
	CXIB_BTH_OP_UC_SEND_ONLY		= 0x24,
	CXIB_BTH_OP_UC_SEND_ONLY_IMM		= 0x25,
	CXIB_BTH_OP_UC_RDMA_WRITE_FIRST		= 0x26,
	CXIB_BTH_OP_UC_RDMA_WRITE_MIDDLE	= 0x27,
	CXIB_BTH_OP_UC_RDMA_WRITE_LAST		= 0x28,
	CXIB_BTH_OP_UC_RDMA_WRITE_LAST_IMM	= 0x29,
	CXIB_BTH_OP_UC_RDMA_WRITE_ONLY		= 0x2a,
	CXIB_BTH_OP_UC_RDMA_WRITE_ONLY_IMM	= 0x2b,
};

/* Full opcodes: UD (one packet per message). */
enum {
	CXIB_BTH_OP_UD_SEND_ONLY		= 0x64,
	CXIB_BTH_OP_UD_SEND_ONLY_IMM		= 0x65,
};

/* What an opcode carries after the BTH, in wire order (section 1.5). */
enum {
	CXIB_BTH_HDR_DETH			= 1 << 0,
	CXIB_BTH_HDR_RETH			= 1 << 1,
	CXIB_BTH_HDR_ATOMIC_ETH			= 1 << 2,
	CXIB_BTH_HDR_AETH			= 1 << 3,
	CXIB_BTH_HDR_ATOMIC_ACK_ETH		= 1 << 4,
	CXIB_BTH_HDR_IMMDT			= 1 << 5,
	CXIB_BTH_HDR_IETH			= 1 << 6,
	CXIB_BTH_HDR_PAYLOAD			= 1 << 7,	/* may carry a payload */
	CXIB_BTH_HDR_VALID			= 1 << 8,	/* opcode supported */
	CXIB_BTH_HDR_RESPONSE			= 1 << 9,	/* responder -> requester */
};

/*
 * CXIB_BTH_HDR_* set of @op, 0 for an opcode this interface does not support (RD, CNP,
 * XRC, manufacturer specific, reserved and the IBTA 1.5 FLUSH / ATOMIC_WRITE).
 */
static inline unsigned int cxib_bth_op_hdrs(unsigned int op)
{
	const unsigned int v = CXIB_BTH_HDR_VALID, pl = CXIB_BTH_HDR_PAYLOAD;
	const unsigned int rsp = CXIB_BTH_HDR_RESPONSE;
	unsigned int cls = CXIB_BTH_OP_CLASS(op);

	if (op > 0xff)
		return 0;
	if (cls == CXIB_BTH_OP_CLASS_UD) {
		if (op == CXIB_BTH_OP_UD_SEND_ONLY)
			return v | pl | CXIB_BTH_HDR_DETH;
		if (op == CXIB_BTH_OP_UD_SEND_ONLY_IMM)
			return v | pl | CXIB_BTH_HDR_DETH | CXIB_BTH_HDR_IMMDT;
		return 0;
	}
	if (cls != CXIB_BTH_OP_CLASS_RC && cls != CXIB_BTH_OP_CLASS_UC)
		return 0;
	switch (CXIB_BTH_OP_OPERATION(op)) {
	case CXIB_BTH_OP_SEND_FIRST:
	case CXIB_BTH_OP_SEND_MIDDLE:
	case CXIB_BTH_OP_SEND_LAST:
	case CXIB_BTH_OP_SEND_ONLY:
	case CXIB_BTH_OP_RDMA_WRITE_MIDDLE:
	case CXIB_BTH_OP_RDMA_WRITE_LAST:
		return v | pl;
	case CXIB_BTH_OP_SEND_LAST_IMM:
	case CXIB_BTH_OP_SEND_ONLY_IMM:
	case CXIB_BTH_OP_RDMA_WRITE_LAST_IMM:
		return v | pl | CXIB_BTH_HDR_IMMDT;
	case CXIB_BTH_OP_RDMA_WRITE_FIRST:
	case CXIB_BTH_OP_RDMA_WRITE_ONLY:
		return v | pl | CXIB_BTH_HDR_RETH;
	case CXIB_BTH_OP_RDMA_WRITE_ONLY_IMM:
		return v | pl | CXIB_BTH_HDR_RETH | CXIB_BTH_HDR_IMMDT;
	default:
		break;
	}
	if (cls == CXIB_BTH_OP_CLASS_UC)
		return 0;
	switch (CXIB_BTH_OP_OPERATION(op)) {
	case CXIB_BTH_OP_RDMA_READ_REQUEST:
		return v | CXIB_BTH_HDR_RETH;
	case CXIB_BTH_OP_RDMA_READ_RESP_FIRST:
	case CXIB_BTH_OP_RDMA_READ_RESP_LAST:
	case CXIB_BTH_OP_RDMA_READ_RESP_ONLY:
		return v | pl | rsp | CXIB_BTH_HDR_AETH;
	case CXIB_BTH_OP_RDMA_READ_RESP_MIDDLE:
		return v | pl | rsp;
	case CXIB_BTH_OP_ACKNOWLEDGE:
		return v | rsp | CXIB_BTH_HDR_AETH;
	case CXIB_BTH_OP_ATOMIC_ACKNOWLEDGE:
		return v | rsp | CXIB_BTH_HDR_AETH | CXIB_BTH_HDR_ATOMIC_ACK_ETH;
	case CXIB_BTH_OP_COMPARE_SWAP:
	case CXIB_BTH_OP_FETCH_ADD:
		return v | CXIB_BTH_HDR_ATOMIC_ETH;
	case CXIB_BTH_OP_SEND_LAST_INV:
	case CXIB_BTH_OP_SEND_ONLY_INV:
		return v | pl | CXIB_BTH_HDR_IETH;
	default:
		return 0;
	}
}

/* Bytes of extended headers @op carries after the BTH (0 for none or unsupported). */
static inline unsigned int cxib_bth_op_ext_len(unsigned int op)
{
	unsigned int h = cxib_bth_op_hdrs(op), len = 0;

	if (h & CXIB_BTH_HDR_DETH)
		len += CXIB_DETH_LEN;
	if (h & CXIB_BTH_HDR_RETH)
		len += CXIB_RETH_LEN;
	if (h & CXIB_BTH_HDR_ATOMIC_ETH)
		len += CXIB_ATOMIC_ETH_LEN;
	if (h & CXIB_BTH_HDR_AETH)
		len += CXIB_AETH_LEN;
	if (h & CXIB_BTH_HDR_ATOMIC_ACK_ETH)
		len += CXIB_ATOMIC_ACK_ETH_LEN;
	if (h & CXIB_BTH_HDR_IMMDT)
		len += CXIB_IMMDT_LEN;
	if (h & CXIB_BTH_HDR_IETH)
		len += CXIB_IETH_LEN;
	return len;
}

/* Largest LRH + GRH + BTH + extended headers of any supported opcode (ATOMIC: 28). */
#define CXIB_PKT_MAX_HDRS	(CXIB_LRH_LEN + CXIB_GRH_LEN + CXIB_BTH_LEN + CXIB_ATOMIC_ETH_LEN)

/* Multicast LIDs (section 5.3); the permissive LID is not one. */
static inline int cxib_lid_is_multicast(unsigned int lid)
{
	return lid >= CXIB_LID_MULTICAST_MIN && lid <= CXIB_LID_MULTICAST_MAX;
}

/*
 * Two P_Keys match iff their partitions are equal and valid and at least one is a full
 * member (section 6.3).
 */
static inline int cxib_pkey_match(unsigned int a, unsigned int b)
{
	return (a & CXIB_PKEY_PARTITION_MASK) &&
	       (a & CXIB_PKEY_PARTITION_MASK) == (b & CXIB_PKEY_PARTITION_MASK) &&
	       ((a | b) & CXIB_PKEY_FULL_MEMBER);
}

#endif /* _CXIB_IBWIRE_H */
