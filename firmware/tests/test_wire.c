// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The link and network layer (wire.c): packet build/parse for every opcode and header set,
 * the ICRC/VCRC with known-answer vectors, rejection of malformed
 * packets with the right reason, a fuzz loop, and the device side: sending (LRH filled
 * from the port), loopback order and bound, receive checks (CRC, DLID, VL15, P_Key, QP,
 * transport class) and multicast fan-out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"
#include "drv.h"

/* Layout checks against IBTA Vol 1 ch. 7-9 (LRH, GRH, BTH, extended headers) (byte offsets inside each header). */
_Static_assert(CXIB_OFFSET(CXIB_LRH_PKTLEN) == 4, "LRH PktLen at byte 4");
_Static_assert(CXIB_OFFSET(CXIB_LRH_SLID) == 4, "LRH SLID at bytes 6-7");
_Static_assert(CXIB_OFFSET(CXIB_GRH_PAYLEN) == 4, "GRH PayLen at bytes 4-5");
_Static_assert(CXIB_OFFSET(CXIB_BTH_DQPN) == 4, "BTH DestQP at bytes 5-7");
_Static_assert(CXIB_OFFSET(CXIB_BTH_PSN) == 8, "BTH PSN at bytes 9-11");
_Static_assert(CXIB_OFFSET(CXIB_RETH_RKEY) == 8 && CXIB_OFFSET(CXIB_RETH_DMA_LEN) == 12,
	       "RETH");
_Static_assert(CXIB_OFFSET(CXIB_ATOMIC_ETH_SWAP_ADD) == 12 &&
	       CXIB_OFFSET(CXIB_ATOMIC_ETH_COMPARE) == 20, "AtomicETH packed");
_Static_assert(CXIB_OFFSET(CXIB_DETH_SQPN) == 4, "DETH SrcQP at bytes 5-7");
_Static_assert(CXIB_AETH_NAK(CXIB_AETH_NAK_INVALID_RD_REQ) == 0x64 &&
	       CXIB_AETH_RNR_NAK(1) == 0x21 && CXIB_AETH_ACK(CXIB_AETH_CREDIT_INVALID) == 0x1f,
	       "AETH syndromes (1.6)");

/* ---- Known-answer CRC vectors ------------------------------------------- */

static const uint8_t vec_ack[] = {
	0x00, 0x02, 0x00, 0x02, 0x00, 0x07, 0x00, 0x01,
	0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x64,
	0x1f, 0x00, 0x00, 0x01,
	0x59, 0x9c, 0x97, 0x59,
	0x76, 0xb9,
};

static const uint8_t vec_send[] = {
	0x00, 0x02, 0x00, 0x02, 0x00, 0x08, 0x00, 0x01,
	0x04, 0xf0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x80, 0x00, 0x00, 0x64,
	0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00,
	0x94, 0x91, 0xab, 0xcf,
	0x74, 0xd5,
};

static const uint8_t vec_ud_grh[] = {
	0x00, 0x03, 0x00, 0x02, 0x00, 0x15, 0x00, 0x01,
	0x60, 0x00, 0x00, 0x00, 0x00, 0x24, 0x1b, 0x40,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x11, 0x11,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x22, 0x22,
	0x64, 0x20, 0xff, 0xff, 0x00, 0x00, 0x00, 0x33, 0x00, 0x00, 0x00, 0x07,
	0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x44,
	0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x00, 0x00,
	0xa9, 0x34, 0xf9, 0x62,
	0xb6, 0x96,
};

static uint32_t le32_at(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint16_t le16_at(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

/* Recompute both CRCs of a packet edited in place (the ICRC first, it is under the VCRC). */
static void fix_crcs(uint8_t *b, size_t len)
{
	uint32_t icrc;
	uint16_t vcrc;

	if (len < CXIB_ICRC_LEN + CXIB_VCRC_LEN)
		return;
	icrc = cxfw_icrc(b, len - CXIB_ICRC_LEN - CXIB_VCRC_LEN);
	b[len - 6] = (uint8_t)icrc;
	b[len - 5] = (uint8_t)(icrc >> 8);
	b[len - 4] = (uint8_t)(icrc >> 16);
	b[len - 3] = (uint8_t)(icrc >> 24);
	vcrc = cxfw_vcrc(b, len - CXIB_VCRC_LEN);
	b[len - 2] = (uint8_t)vcrc;
	b[len - 1] = (uint8_t)(vcrc >> 8);
}

TEST(wire_spec_vectors_crc_parse_and_rebuild)
{
	static const struct {
		const uint8_t *b;
		size_t len;
	} v[] = {
		{ vec_ack, sizeof(vec_ack) },
		{ vec_send, sizeof(vec_send) },
		{ vec_ud_grh, sizeof(vec_ud_grh) },
	};
	uint8_t out[CXFW_PKT_MAX];
	struct cxfw_pkt p;
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK_EQ(cxfw_icrc(v[i].b, v[i].len - 6), le32_at(v[i].b + v[i].len - 6));
		CHECK_EQ(cxfw_vcrc(v[i].b, v[i].len - 2), le16_at(v[i].b + v[i].len - 2));
		CHECK_EQ(cxfw_pkt_parse(v[i].b, v[i].len, &p), 0);
		CHECK_EQ(cxfw_pkt_build(&p, out, sizeof(out)), v[i].len);
		CHECK(!memcmp(out, v[i].b, v[i].len));
	}
	/* field values the vectors spell out */
	CHECK_EQ(cxfw_pkt_parse(vec_ack, sizeof(vec_ack), &p), 0);
	CHECK_EQ(p.opcode, CXIB_BTH_OP_RC_ACKNOWLEDGE);
	CHECK_EQ(p.dlid, 2);
	CHECK_EQ(p.slid, 1);
	CHECK_EQ(p.pkey, 0xffff);
	CHECK_EQ(p.dqpn, 0x11);
	CHECK_EQ(p.psn, 100);
	CHECK_EQ(p.aeth_synd, CXIB_AETH_ACK(CXIB_AETH_CREDIT_INVALID));
	CHECK_EQ(p.aeth_msn, 1);
	CHECK_EQ(p.paylen, 0);
	CHECK(!p.grh);
	CHECK_EQ(cxfw_pkt_parse(vec_send, sizeof(vec_send), &p), 0);
	CHECK_EQ(p.opcode, CXIB_BTH_OP_RC_SEND_ONLY);
	CHECK(p.se && p.migreq && p.ackreq);
	CHECK_EQ(p.paylen, 5);
	CHECK(!memcmp(p.payload, "hello", 5));
	CHECK(p.payload == vec_send + 20);		/* points into the buffer */
	CHECK_EQ(cxfw_pkt_parse(vec_ud_grh, sizeof(vec_ud_grh), &p), 0);
	CHECK_EQ(p.opcode, CXIB_BTH_OP_UD_SEND_ONLY);
	CHECK(p.grh);
	CHECK_EQ(p.hop_limit, 64);
	CHECK_EQ(p.sgid[15], 0x11);
	CHECK_EQ(p.dgid[14], 0x22);
	CHECK_EQ(p.dqpn, 0x33);
	CHECK_EQ(p.psn, 7);
	CHECK_EQ(p.deth_qkey, 0x11111111);
	CHECK_EQ(p.deth_sqpn, 0x44);
	CHECK_EQ(p.paylen, 10);
	CHECK_EQ(p.payload[9], 'x');
}

/* ---- Build / parse round trips ---------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state ? rng_state : 0x243f6a8885a308d3ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static uint8_t payload_src[CXIB_PKT_MAX_PAYLOAD];

static void payload_init(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(payload_src); i++)
		payload_src[i] = (uint8_t)(rnd() >> 24);
}

/* A packet of @op with every field its headers carry set at random. */
static void pkt_random(struct cxfw_pkt *p, uint8_t op, bool grh, uint32_t paylen)
{
	unsigned int h = cxib_bth_op_hdrs(op), i;

	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->vl = (uint8_t)(rnd() & 0xf);
	p->sl = (uint8_t)(rnd() & 0xf);
	p->dlid = (uint16_t)rnd();
	p->slid = (uint16_t)rnd();
	p->grh = grh;
	if (grh) {
		p->tclass = (uint8_t)rnd();
		p->hop_limit = (uint8_t)rnd();
		p->flow_label = (uint32_t)rnd() & 0xfffff;
		for (i = 0; i < 16; i++) {
			p->sgid[i] = (uint8_t)rnd();
			p->dgid[i] = (uint8_t)rnd();
		}
	}
	p->se = rnd() & 1;
	p->migreq = rnd() & 1;
	p->ackreq = rnd() & 1;
	p->pkey = (uint16_t)rnd();
	p->dqpn = (uint32_t)rnd() & CXIB_QPN_MASK;
	p->psn = (uint32_t)rnd() & CXIB_PSN_MASK;
	if (h & CXIB_BTH_HDR_RETH) {
		p->reth_va = rnd();
		p->reth_rkey = (uint32_t)rnd();
		p->reth_len = (uint32_t)rnd();
	}
	if (h & CXIB_BTH_HDR_AETH) {
		p->aeth_synd = (uint8_t)rnd();
		p->aeth_msn = (uint32_t)rnd() & CXIB_PSN_MASK;
	}
	if (h & CXIB_BTH_HDR_ATOMIC_ETH) {
		p->atomic_va = rnd();
		p->atomic_rkey = (uint32_t)rnd();
		p->atomic_swap_add = rnd();
		p->atomic_compare = rnd();
	}
	if (h & CXIB_BTH_HDR_ATOMIC_ACK_ETH)
		p->atomic_orig = rnd();
	if (h & CXIB_BTH_HDR_IMMDT)
		p->imm = (uint32_t)rnd();
	if (h & CXIB_BTH_HDR_IETH)
		p->ieth_rkey = (uint32_t)rnd();
	if (h & CXIB_BTH_HDR_DETH) {
		p->deth_qkey = (uint32_t)rnd();
		p->deth_sqpn = (uint32_t)rnd() & CXIB_QPN_MASK;
	}
	p->paylen = paylen;
	p->payload = paylen ? payload_src + (rnd() % (sizeof(payload_src) - paylen + 1)) : NULL;
}

/* Name of the first field in which @a and @b differ, NULL if none (payload by content). */
static const char *pkt_diff(const struct cxfw_pkt *a, const struct cxfw_pkt *b)
{
#define PKT_FIELD(f)	do { if (a->f != b->f) return #f; } while (0)
	PKT_FIELD(vl); PKT_FIELD(sl); PKT_FIELD(dlid); PKT_FIELD(slid); PKT_FIELD(grh);
	PKT_FIELD(tclass); PKT_FIELD(hop_limit); PKT_FIELD(flow_label);
	PKT_FIELD(opcode); PKT_FIELD(se); PKT_FIELD(migreq); PKT_FIELD(ackreq);
	PKT_FIELD(pkey); PKT_FIELD(dqpn); PKT_FIELD(psn);
	PKT_FIELD(reth_va); PKT_FIELD(reth_rkey); PKT_FIELD(reth_len);
	PKT_FIELD(aeth_synd); PKT_FIELD(aeth_msn);
	PKT_FIELD(atomic_va); PKT_FIELD(atomic_rkey); PKT_FIELD(atomic_swap_add);
	PKT_FIELD(atomic_compare); PKT_FIELD(atomic_orig);
	PKT_FIELD(imm); PKT_FIELD(ieth_rkey); PKT_FIELD(deth_qkey); PKT_FIELD(deth_sqpn);
	PKT_FIELD(paylen);
#undef PKT_FIELD
	if (memcmp(a->sgid, b->sgid, 16))
		return "sgid";
	if (memcmp(a->dgid, b->dgid, 16))
		return "dgid";
	if (a->paylen && memcmp(a->payload, b->payload, a->paylen))
		return "payload";
	return NULL;
}

/* Opcodes the wire format supports, from the BTH opcode table (IBTA Vol 1 ch. 9). */
static const uint8_t all_ops[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
	0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17,
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b,
	0x64, 0x65,
};

/* The BTH opcode table (IBTA Vol 1 ch. 9). */
static void check_opcode_table(struct test_ctx *t)
{
	unsigned int op, i, n = 0;
	bool listed;

	for (op = 0; op < 256; op++) {
		listed = false;
		for (i = 0; i < sizeof(all_ops); i++)
			listed |= all_ops[i] == op;
		CHECK_EQ(!!cxib_bth_op_hdrs(op), listed);
		n += listed;
	}
	CHECK_EQ(n, 37);
	CHECK_EQ(cxib_bth_op_hdrs(0x100), 0);
	/* header sets of section 2 */
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_RDMA_WRITE_ONLY_IMM), 20);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_UC_RDMA_WRITE_ONLY_IMM), 20);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_ATOMIC_ACKNOWLEDGE), 12);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_COMPARE_SWAP), 28);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_UD_SEND_ONLY_IMM), 12);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_SEND_ONLY_INV), 4);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_RDMA_READ_RESP_MIDDLE), 0);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_RDMA_READ_RESP_LAST), 4);
	CHECK_EQ(cxib_bth_op_ext_len(CXIB_BTH_OP_RC_RDMA_READ_REQUEST), 16);
	CHECK(!(cxib_bth_op_hdrs(CXIB_BTH_OP_RC_RDMA_READ_REQUEST) & CXIB_BTH_HDR_PAYLOAD));
	CHECK(!(cxib_bth_op_hdrs(CXIB_BTH_OP_RC_ACKNOWLEDGE) & CXIB_BTH_HDR_PAYLOAD));
	/* responses: ACK, atomic ACK and the four read responses, RC only */
	for (i = 0; i < sizeof(all_ops); i++) {
		op = all_ops[i];
		CHECK_EQ(!!(cxib_bth_op_hdrs(op) & CXIB_BTH_HDR_RESPONSE),
			 op >= CXIB_BTH_OP_RC_RDMA_READ_RESP_FIRST &&
			 op <= CXIB_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
	}
	/* reserved in RC, RD, UD sends other than ONLY, XRC, CNP, vendor */
	CHECK_EQ(cxib_bth_op_hdrs(0x15), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0x1c), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0x2c), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0x44), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0x60), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0x80), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0xa4), 0);
	CHECK_EQ(cxib_bth_op_hdrs(0xff), 0);
}

TEST(wire_roundtrip_every_opcode_with_and_without_grh)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 5, 7, 256, 1023, 4095, 4096 };
	uint8_t buf[CXFW_PKT_MAX];
	struct cxfw_pkt p, q;
	unsigned int i, g, l, hdrs, checked = 0;
	uint32_t pad;
	const char *d;
	size_t len, want;

	rng_state = 1;
	payload_init();
	for (i = 0; i < sizeof(all_ops); i++) {
		hdrs = cxib_bth_op_hdrs(all_ops[i]);
		for (g = 0; g < 2; g++) {
			for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
				if (lens[l] && !(hdrs & CXIB_BTH_HDR_PAYLOAD))
					continue;
				pkt_random(&p, all_ops[i], g, lens[l]);
				len = cxfw_pkt_build(&p, buf, sizeof(buf));
				want = CXIB_LRH_LEN + (g ? CXIB_GRH_LEN : 0) + CXIB_BTH_LEN +
				       cxib_bth_op_ext_len(all_ops[i]) + (lens[l] + 3) / 4 * 4 +
				       CXIB_ICRC_LEN + CXIB_VCRC_LEN;
				CHECK_EQ(len, want);
				/* PktLen in words through the ICRC; PadCnt; LNH */
				CHECK_EQ(((buf[4] & 7u) << 8 | buf[5]) * 4u, len - 2);
				CHECK_EQ(buf[1] & 3u, g ? CXIB_LNH_IBA_GLOBAL : CXIB_LNH_IBA_LOCAL);
				CHECK_EQ(buf[8 + (g ? 40 : 0) + 1] >> 4 & 3u, (4 - lens[l] % 4) % 4);
				CHECK_EQ(cxfw_pkt_parse(buf, len, &q), 0);
				d = pkt_diff(&p, &q);
				if (d) {
					test_fail(t, __FILE__, __LINE__, "op 0x%02x grh %u len %u: %s",
						  all_ops[i], g, lens[l], d);
					return;
				}
				CHECK(q.payload == buf + len - 6 - (lens[l] + 3) / 4 * 4);
				/* the pad bytes are zero */
				for (pad = lens[l]; pad % 4; pad++)
					CHECK_EQ(q.payload[pad], 0);
				checked++;
			}
		}
	}
	/* 32 opcodes carry a payload (every length), 5 do not (length 0 only) */
	CHECK_EQ(checked, 2 * (32 * sizeof(lens) / sizeof(lens[0]) + 5));
}

TEST(wire_opcode_table_and_header_offsets_match_spec)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct cxfw_pkt p;

	check_opcode_table(t);
	if (t->failed)
		return;

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_RC_RDMA_WRITE_ONLY_IMM;
	p.vl = 3;
	p.sl = 5;
	p.dlid = 0x1234;
	p.slid = 0x5678;
	p.pkey = 0x8001;
	p.dqpn = 0xabcdef;
	p.psn = 0x123456;
	p.ackreq = true;
	p.reth_va = 0x0102030405060708ull;
	p.reth_rkey = 0x11223344;
	p.reth_len = 0x55667788;
	p.imm = 0xdeadbeef;
	p.paylen = 1;
	p.payload = (const uint8_t *)"Z";
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 8 + 12 + 16 + 4 + 4 + 4 + 2);
	CHECK_EQ(buf[0], 0x30);				/* VL 3, LVer 0 */
	CHECK_EQ(buf[1], 0x52);				/* SL 5, LNH local */
	CHECK_EQ(be32_at(buf) & 0xffff, 0x1234);
	CHECK_EQ(be32_at(buf + 4), 0x000c5678);	/* PktLen 12 words */
	CHECK_EQ(be32_at(buf + 8), 0x0b308001);	/* opcode, PadCnt 3, P_Key */
	CHECK_EQ(be32_at(buf + 12), 0x00abcdef);
	CHECK_EQ(be32_at(buf + 16), 0x80123456);
	CHECK_EQ(be32_at(buf + 20), 0x01020304);
	CHECK_EQ(be32_at(buf + 24), 0x05060708);
	CHECK_EQ(be32_at(buf + 28), 0x11223344);
	CHECK_EQ(be32_at(buf + 32), 0x55667788);
	CHECK_EQ(be32_at(buf + 36), 0xdeadbeef);
	CHECK_EQ(be32_at(buf + 40), 0x5a000000);	/* payload, 3 pad bytes */

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_RC_COMPARE_SWAP;
	p.atomic_va = 0x1111111122222222ull;
	p.atomic_rkey = 0x33333333;
	p.atomic_swap_add = 0x4444444455555555ull;
	p.atomic_compare = 0x6666666677777777ull;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 8 + 12 + 28 + 6);
	CHECK_EQ(be32_at(buf + 20), 0x11111111);
	CHECK_EQ(be32_at(buf + 28), 0x33333333);
	CHECK_EQ(be32_at(buf + 32), 0x44444444);
	CHECK_EQ(be32_at(buf + 36), 0x55555555);
	CHECK_EQ(be32_at(buf + 40), 0x66666666);
	CHECK_EQ(be32_at(buf + 44), 0x77777777);

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_RC_ATOMIC_ACKNOWLEDGE;
	p.aeth_synd = CXIB_AETH_NAK(CXIB_AETH_NAK_REMOTE_ACCESS_ERR);
	p.aeth_msn = 0x010203;
	p.atomic_orig = 0x8877665544332211ull;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 8 + 12 + 4 + 8 + 6);
	CHECK_EQ(be32_at(buf + 20), 0x62010203);
	CHECK_EQ(be32_at(buf + 24), 0x88776655);
	CHECK_EQ(be32_at(buf + 28), 0x44332211);

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_RC_SEND_ONLY_INV;
	p.ieth_rkey = 0xcafef00d;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 8 + 12 + 4 + 6);
	CHECK_EQ(be32_at(buf + 20), 0xcafef00d);

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_UD_SEND_ONLY_IMM;
	p.deth_qkey = 0x80010000;
	p.deth_sqpn = 0x000001;
	p.imm = 0x01020304;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 8 + 12 + 8 + 4 + 6);
	CHECK_EQ(be32_at(buf + 20), 0x80010000);
	CHECK_EQ(be32_at(buf + 24), 0x00000001);
	CHECK_EQ(be32_at(buf + 28), 0x01020304);
}

TEST(wire_build_rejects_inconsistent_input)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct cxfw_pkt p;
	size_t len;

	rng_state = 2;
	payload_init();
	pkt_random(&p, CXIB_BTH_OP_RC_SEND_ONLY, true, 100);
	len = cxfw_pkt_build(&p, buf, sizeof(buf));
	CHECK(len > 0);
	CHECK_EQ(cxfw_pkt_build(&p, buf, len), len);		/* exact fit */
	CHECK_EQ(cxfw_pkt_build(&p, buf, len - 1), 0);		/* one byte short */
	CHECK_EQ(cxfw_pkt_build(&p, NULL, sizeof(buf)), 0);
	CHECK_EQ(cxfw_pkt_build(NULL, buf, sizeof(buf)), 0);
	p.opcode = 0x15;					/* reserved */
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.opcode = 0x44;					/* RD */
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.opcode = CXIB_BTH_OP_RC_ACKNOWLEDGE;			/* no payload allowed */
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.paylen = 0;
	CHECK(cxfw_pkt_build(&p, buf, sizeof(buf)) > 0);
	p.aeth_msn = 1u << 24;					/* 24-bit fields */
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	pkt_random(&p, CXIB_BTH_OP_UD_SEND_ONLY, false, 0);
	p.deth_sqpn = 1u << 24;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	pkt_random(&p, CXIB_BTH_OP_UC_SEND_FIRST, true, 8);
	p.dqpn = 1u << 24;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.dqpn = 0;
	p.psn = 1u << 24;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.psn = 0;
	p.vl = 16;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.vl = 0;
	p.sl = 16;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.sl = 0;
	p.flow_label = 1u << 20;
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.flow_label = 0;
	p.payload = NULL;					/* length without data */
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.payload = payload_src;
	p.paylen = CXIB_PKT_MAX_PAYLOAD + 1;			/* over the MTU */
	CHECK_EQ(cxfw_pkt_build(&p, buf, sizeof(buf)), 0);
	p.paylen = CXIB_PKT_MAX_PAYLOAD;
	CHECK(cxfw_pkt_build(&p, buf, sizeof(buf)) > 0);
}

/* ---- Parse rejections ------------------------------------------------------------------- */

/* A valid packet in @buf, edited by @edit and re-CRCed when @fix; the parse result. */
static int parse_edited(const struct cxfw_pkt *p, void (*edit)(uint8_t *b, size_t *len),
			bool fix)
{
	uint8_t buf[CXFW_PKT_MAX + 16];
	struct cxfw_pkt q;
	size_t len = cxfw_pkt_build(p, buf, CXFW_PKT_MAX);
	uint8_t *copy;
	int r;

	if (!len)
		return 100;
	edit(buf, &len);
	if (fix)
		fix_crcs(buf, len);
	/* an exact-size heap copy, so ASan sees any read past the end */
	copy = malloc(len ? len : 1);
	if (!copy)
		return 101;
	memcpy(copy, buf, len);
	r = cxfw_pkt_parse(copy, len, &q);
	free(copy);
	return r;
}

static void ed_none(uint8_t *b, size_t *len) { (void)b; (void)len; }
static void ed_trunc1(uint8_t *b, size_t *len) { (void)b; *len -= 1; }
static void ed_trunc4(uint8_t *b, size_t *len) { (void)b; *len -= 4; }
static void ed_extend4(uint8_t *b, size_t *len) { memset(b + *len, 0, 4); *len += 4; }
static void ed_tiny(uint8_t *b, size_t *len) { (void)b; *len = 25; }
static void ed_empty(uint8_t *b, size_t *len) { (void)b; *len = 0; }
static void ed_vcrc(uint8_t *b, size_t *len) { b[*len - 1] ^= 1; }
static void ed_icrc(uint8_t *b, size_t *len) { b[*len - 6] ^= 0x80; }
static void ed_byte21(uint8_t *b, size_t *len) { (void)len; b[21] ^= 0x40; }
static void ed_lver(uint8_t *b, size_t *len) { (void)len; b[0] |= 1; }
static void ed_lnh_raw(uint8_t *b, size_t *len) { (void)len; b[1] &= ~3; }
static void ed_lnh_ip(uint8_t *b, size_t *len) { (void)len; b[1] = (uint8_t)((b[1] & ~3) | 1); }
static void ed_tver(uint8_t *b, size_t *len) { (void)len; b[9] |= 2; }
static void ed_op_rsvd(uint8_t *b, size_t *len) { (void)len; b[8] = 0x15; }
static void ed_op_rd(uint8_t *b, size_t *len) { (void)len; b[8] = 0x44; }
static void ed_pad3(uint8_t *b, size_t *len) { (void)len; b[9] |= 0x30; }
static void ed_pad1(uint8_t *b, size_t *len) { (void)len; b[9] |= 0x10; }
static void ed_op_ack(uint8_t *b, size_t *len) { (void)len; b[8] = CXIB_BTH_OP_RC_ACKNOWLEDGE; }
static void ed_op_atomic(uint8_t *b, size_t *len)
{
	(void)len;
	b[8] = CXIB_BTH_OP_RC_FETCH_ADD;	/* 28-byte AtomicETH does not fit */
}
/* GRH packets: IPVer at byte 8, PayLen at 12-13, NxtHdr at 14, the BTH at 48 */
static void ed_ipver(uint8_t *b, size_t *len) { (void)len; b[8] = (uint8_t)(0x40 | (b[8] & 0xf)); }
static void ed_nxthdr(uint8_t *b, size_t *len) { (void)len; b[14] = 0x11; }
static void ed_paylen(uint8_t *b, size_t *len) { (void)len; b[13] ^= 4; }

static void check_over_mtu(struct test_ctx *t);

TEST(wire_parse_rejects_bad_packets_with_the_reason)
{
	struct cxfw_pkt p, g, ud, q;

	rng_state = 3;
	payload_init();
	pkt_random(&p, CXIB_BTH_OP_RC_SEND_ONLY, false, 8);
	pkt_random(&g, CXIB_BTH_OP_RC_SEND_ONLY, true, 8);
	pkt_random(&ud, CXIB_BTH_OP_UD_SEND_ONLY, false, 0);
	CHECK_EQ(parse_edited(&p, ed_none, false), 0);
	CHECK_EQ(parse_edited(&g, ed_none, false), 0);
	/* a frame cut short no longer ends in its VCRC: the link's check fails first */
	CHECK_EQ(parse_edited(&p, ed_trunc1, false), CXFW_PKT_EVCRC);
	/* lengths: the LRH PktLen must account for every byte */
	CHECK_EQ(parse_edited(&p, ed_trunc4, true), CXFW_PKT_ESHORT);
	CHECK_EQ(parse_edited(&p, ed_extend4, true), CXFW_PKT_ESHORT);
	CHECK_EQ(parse_edited(&p, ed_tiny, false), CXFW_PKT_ESHORT);
	CHECK_EQ(parse_edited(&p, ed_empty, false), CXFW_PKT_ESHORT);
	CHECK_EQ(cxfw_pkt_parse(NULL, 64, &q), CXFW_PKT_ESHORT);
	/* CRCs: any bit outside the CRCs breaks the VCRC; with the VCRC fixed, the ICRC */
	CHECK_EQ(parse_edited(&p, ed_vcrc, false), CXFW_PKT_EVCRC);
	CHECK_EQ(parse_edited(&p, ed_byte21, false), CXFW_PKT_EVCRC);
	CHECK_EQ(parse_edited(&p, ed_icrc, false), CXFW_PKT_EVCRC);
	{
		/* ICRC wrong, VCRC right */
		uint8_t buf[CXFW_PKT_MAX];
		size_t len = cxfw_pkt_build(&p, buf, sizeof(buf));
		uint16_t vcrc;

		buf[len - 6] ^= 0x80;
		vcrc = cxfw_vcrc(buf, len - 2);
		buf[len - 2] = (uint8_t)vcrc;
		buf[len - 1] = (uint8_t)(vcrc >> 8);
		CHECK_EQ(cxfw_pkt_parse(buf, len, &q), CXFW_PKT_EICRC);
	}
	/* versions, LNH, opcodes */
	CHECK_EQ(parse_edited(&p, ed_lver, true), CXFW_PKT_EVERSION);
	CHECK_EQ(parse_edited(&p, ed_lnh_raw, true), CXFW_PKT_ELNH);
	CHECK_EQ(parse_edited(&p, ed_lnh_ip, true), CXFW_PKT_ELNH);
	CHECK_EQ(parse_edited(&p, ed_tver, true), CXFW_PKT_EVERSION);
	CHECK_EQ(parse_edited(&p, ed_op_rsvd, true), CXFW_PKT_EOPCODE);
	CHECK_EQ(parse_edited(&p, ed_op_rd, true), CXFW_PKT_EOPCODE);
	/* PadCnt and payload against the opcode */
	CHECK_EQ(parse_edited(&ud, ed_pad3, true), CXFW_PKT_EPAD);
	CHECK_EQ(parse_edited(&ud, ed_pad1, true), CXFW_PKT_EPAD);	/* 1 > 0 bytes */
	CHECK_EQ(parse_edited(&p, ed_op_ack, true), CXFW_PKT_ELEN);
	CHECK_EQ(parse_edited(&ud, ed_op_atomic, true), CXFW_PKT_ESHORT);
	/* GRH */
	CHECK_EQ(parse_edited(&g, ed_ipver, true), CXFW_PKT_EVERSION);
	CHECK_EQ(parse_edited(&g, ed_nxthdr, true), CXFW_PKT_ELNH);
	CHECK_EQ(parse_edited(&g, ed_paylen, true), CXFW_PKT_ESHORT);
	/* a payload over the MTU */
	check_over_mtu(t);
}

/* One payload byte word over the 4096-byte MTU. */
static void check_over_mtu(struct test_ctx *t)
{
	uint8_t *buf = malloc(CXFW_PKT_MAX + 8);
	struct cxfw_pkt p, q;
	size_t len;

	CHECK(buf);
	rng_state = 4;
	payload_init();
	pkt_random(&p, CXIB_BTH_OP_UC_SEND_MIDDLE, false, CXIB_PKT_MAX_PAYLOAD);
	len = cxfw_pkt_build(&p, buf, CXFW_PKT_MAX);
	if (!len) {
		free(buf);
		CHECK(len);
	}
	/* four more bytes of payload: PktLen + 1 */
	memmove(buf + len - 2, buf + len - 6, 6);
	memset(buf + len - 6, 0x55, 4);
	len += 4;
	buf[5]++;
	fix_crcs(buf, len);
	CHECK_EQ(cxfw_pkt_parse(buf, len, &q), CXFW_PKT_ELEN);
	free(buf);
}

TEST(wire_icrc_ignores_variant_fields_only)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct cxfw_pkt p;
	uint32_t icrc;
	size_t len;

	rng_state = 5;
	payload_init();
	/* local: VL and BTH byte 4 (FECN/BECN) are variant, SL and LIDs are not */
	pkt_random(&p, CXIB_BTH_OP_RC_SEND_ONLY, false, 33);
	len = cxfw_pkt_build(&p, buf, sizeof(buf));
	icrc = cxfw_icrc(buf, len - 6);
	buf[0] ^= 0xf0;
	buf[12] ^= 0xc0;
	CHECK_EQ(cxfw_icrc(buf, len - 6), icrc);
	buf[1] ^= 0x10;				/* SL */
	CHECK_NE(cxfw_icrc(buf, len - 6), icrc);
	buf[1] ^= 0x10;
	buf[3] ^= 1;				/* DLID */
	CHECK_NE(cxfw_icrc(buf, len - 6), icrc);
	buf[3] ^= 1;
	/* the changed VL still parses (ICRC intact, VCRC recomputed per hop) */
	fix_crcs(buf, len);
	CHECK_EQ(le32_at(buf + len - 6), icrc);

	/* global: the whole LRH, TClass, FlowLabel and HopLmt are variant */
	pkt_random(&p, CXIB_BTH_OP_UD_SEND_ONLY, true, 12);
	len = cxfw_pkt_build(&p, buf, sizeof(buf));
	icrc = cxfw_icrc(buf, len - 6);
	buf[1] ^= 0xf0;
	buf[2] ^= 0xff;
	buf[6] ^= 0x5a;
	buf[8] ^= 0x0f;
	buf[9] ^= 0xff;
	buf[11] ^= 0x01;
	buf[15] ^= 0x3c;
	buf[52] ^= 0x80;
	CHECK_EQ(cxfw_icrc(buf, len - 6), icrc);
	buf[13] ^= 1;				/* PayLen is covered */
	CHECK_NE(cxfw_icrc(buf, len - 6), icrc);
	buf[13] ^= 1;
	buf[8 + 24 + 15] ^= 1;			/* DGID is covered */
	CHECK_NE(cxfw_icrc(buf, len - 6), icrc);
	/* short inputs do not read past their end */
	CHECK_EQ(cxfw_icrc(buf, 0), 0);
	CHECK_EQ(cxfw_vcrc(buf, 0), 0);
}

/* Random and mutated packets: never a crash or an out-of-bounds read; outcomes sane. */
TEST(wire_parse_survives_fuzzing)
{
	unsigned int i, ok = 0, bad = 0, codes = 0, fed = 0;
	uint8_t tmp[CXFW_PKT_MAX + 64];
	struct cxfw_stats st;
	struct cxfw_pkt p, q;
	size_t len;
	int r;

	rng_state = 6;
	payload_init();
	cxfw_port_link(t->dev, 1, true);
	for (i = 0; i < 6000; i++) {
		uint64_t mode = rnd() % 8;
		uint8_t *buf;

		if (mode == 0) {		/* noise */
			len = rnd() % 160;
			for (size_t k = 0; k < len; k++)
				tmp[k] = (uint8_t)rnd();
			if (rnd() & 1)
				fix_crcs(tmp, len);
		} else {			/* a valid packet, then damaged */
			uint8_t op = all_ops[rnd() % sizeof(all_ops)];
			uint32_t pl = cxib_bth_op_hdrs(op) & CXIB_BTH_HDR_PAYLOAD ?
				      (uint32_t)(rnd() % 300) : 0;
			unsigned int flips = (unsigned int)(rnd() % 4), k;

			pkt_random(&p, op, rnd() & 1, pl);
			len = cxfw_pkt_build(&p, tmp, CXFW_PKT_MAX);
			if (!len) {
				test_fail(t, __FILE__, __LINE__, "build op 0x%02x", op);
				return;
			}
			for (k = 0; k < flips; k++)
				tmp[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
			if (mode == 1)
				len = rnd() % len;
			else if (mode == 2)
				while (len < sizeof(tmp) && rnd() % 4)
					tmp[len++] = (uint8_t)rnd();
			else if (mode == 3)	/* lie in PktLen */
				tmp[5] = (uint8_t)rnd();
			if (mode != 7)
				fix_crcs(tmp, len);
			if (mode == 6 && len >= 6) {	/* a bad ICRC under a good VCRC */
				uint16_t v;

				tmp[len - 6 + rnd() % 4] ^= (uint8_t)(1u << (rnd() % 8));
				v = cxfw_vcrc(tmp, len - 2);
				tmp[len - 2] = (uint8_t)v;
				tmp[len - 1] = (uint8_t)(v >> 8);
			}
		}
		buf = malloc(len ? len : 1);
		CHECK(buf);
		memcpy(buf, tmp, len);
		r = cxfw_pkt_parse(buf, len, &q);
		if (!r) {
			ok++;
			if (q.payload < buf + 20 || q.payload + q.paylen + 6 > buf + len ||
			    q.paylen > CXIB_PKT_MAX_PAYLOAD) {
				free(buf);
				CHECK(!"payload outside the packet");
			}
		} else {
			bad++;
			if (r < CXFW_PKT_ELEN || r > CXFW_PKT_ESHORT) {
				free(buf);
				CHECK(!"unknown error code");
			}
			codes |= 1u << -r;
		}
		/* and through the device: nothing exists there, so everything is dropped */
		if (len) {
			cxfw_port_receive(t->dev, 1, buf, len);
			fed++;
		}
		free(buf);
	}
	CHECK(ok > 500);
	CHECK(bad > 500);
	/* every reason showed up at least once */
	CHECK_EQ(codes, 0x1feu);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.pkts_received, fed);
	CHECK_EQ(st.pkts_dropped, fed);
	CHECK(st.vcrc_errors > 0 && st.icrc_errors > 0);
}

/* ---- Device level ----------------------------------------------------------------------- */

#define CAP_LOGS	(CXFW_WIRE_LOOP_SLOTS + 64)
#define MY_LID		0x21

/* What the platform saw: packets put on the cable and log lines. */
static struct {
	unsigned int sent;
	int refuse;			/* port_send's return value */
	unsigned int port;
	size_t len;
	uint8_t pkt[CXFW_PKT_MAX];
	unsigned int nlogs;
	char logs[CAP_LOGS][200];
} cap;

static int cap_send(void *opaque, unsigned int port, const void *pkt, size_t len)
{
	(void)opaque;
	cap.sent++;
	cap.port = port;
	cap.len = len < sizeof(cap.pkt) ? len : sizeof(cap.pkt);
	memcpy(cap.pkt, pkt, cap.len);
	return cap.refuse;
}

static void cap_log(void *opaque, enum cxfw_log_level level, const char *msg)
{
	(void)opaque;
	(void)level;
	if (cap.nlogs < CAP_LOGS)
		snprintf(cap.logs[cap.nlogs], sizeof(cap.logs[0]), "%s", msg);
	cap.nlogs++;
}

/* The fixture's device again, on a platform whose cable and log the test sees. */
static bool wire_dev(struct test_ctx *t, bool with_cable)
{
	struct cxfw_platform plat;
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.lid = MY_LID;
	if (!test_recreate(t, &cfg, FAKE_MEM_BASE))
		return false;
	memset(&cap, 0, sizeof(cap));
	cxfw_destroy(t->dev);
	fake_platform(&t->fk, &plat);
	plat.port_send = with_cable ? cap_send : NULL;
	plat.log = cap_log;
	t->dev = cxfw_create(&cfg, &plat);
	return t->dev != NULL;
}

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

/* A minimal packet to @dqpn at @dlid. */
static struct cxfw_pkt pkt_to(uint8_t op, uint16_t dlid, uint32_t dqpn)
{
	struct cxfw_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = op;
	p.dlid = dlid;
	p.slid = 0x99;
	p.dqpn = dqpn;
	p.pkey = CXIB_PKEY_DEFAULT;
	if (cxib_bth_op_hdrs(op) & CXIB_BTH_HDR_PAYLOAD) {
		p.payload = (const uint8_t *)"abcdefgh";
		p.paylen = 8;
	}
	if (dqpn == CXIB_QP0)
		p.vl = CXIB_VL_SMP;
	return p;
}

/* Build @p and hand it to the device as if it came from the cable. */
static void rx(struct test_ctx *t, const struct cxfw_pkt *p)
{
	uint8_t buf[CXFW_PKT_MAX];
	size_t len = cxfw_pkt_build(p, buf, sizeof(buf));

	if (len)
		cxfw_port_receive(t->dev, 1, buf, len);
}

TEST(wire_send_fills_the_lrh_and_puts_the_packet_on_the_cable)
{
	struct cxfw_pkt p, q;
	struct cxfw_stats st;

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, 0x42, 0x77);
	p.pkey = 0;
	p.vl = 9;
	p.slid = 0x1111;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cap.sent, 1);
	CHECK_EQ(cap.port, 1);
	CHECK_EQ(cxfw_pkt_parse(cap.pkt, cap.len, &q), 0);
	CHECK_EQ(q.slid, MY_LID);			/* from the port */
	CHECK_EQ(q.dlid, 0x42);
	CHECK_EQ(q.pkey, CXIB_PKEY_DEFAULT);		/* 0 means the default */
	CHECK_EQ(q.vl, 0);
	CHECK_EQ(q.paylen, 8);
	st = stats(t);
	CHECK_EQ(st.pkts_sent, 1);
	CHECK_EQ(st.pkt_bytes_sent, cap.len);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 0);
	/* an explicit P_Key is kept */
	p.pkey = 0x8005;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cxfw_pkt_parse(cap.pkt, cap.len, &q), 0);
	CHECK_EQ(q.pkey, 0x8005);
	/* QP0 traffic on VL15; a directed-route SMP uses the permissive LID both ways */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, CXIB_LID_PERMISSIVE, CXIB_QP0);
	p.vl = 0;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cxfw_pkt_parse(cap.pkt, cap.len, &q), 0);
	CHECK_EQ(q.vl, CXIB_VL_SMP);
	CHECK_EQ(q.slid, CXIB_LID_PERMISSIVE);
	/* QP1 is a data VL */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, 0x42, CXIB_QP1);
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cxfw_pkt_parse(cap.pkt, cap.len, &q), 0);
	CHECK_EQ(q.vl, 0);
	CHECK_EQ(stats(t).pkts_sent, 4);
}

TEST(wire_send_drops_on_link_down_bad_port_bad_packet_or_refusal)
{
	struct cxfw_pkt p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, 0x42, 0x77);

	CHECK(wire_dev(t, true));
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), -1);		/* link down */
	CHECK_EQ(cap.sent, 0);
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(cxfw_wire_send(t->dev, 2, &p), -1);		/* one port only */
	CHECK_EQ(cxfw_wire_send(t->dev, 0, &p), -1);
	CHECK_EQ(cxfw_wire_send(t->dev, 1, NULL), -1);
	p.opcode = 0x15;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), -1);		/* cannot be built */
	CHECK_EQ(cap.sent, 0);
	p.opcode = CXIB_BTH_OP_RC_SEND_ONLY;
	cap.refuse = -1;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), -1);		/* the cable refused */
	CHECK_EQ(cap.sent, 1);
	CHECK_EQ(stats(t).pkts_sent, 0);
	cxfw_port_link(t->dev, 1, false);
	cap.refuse = 0;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), -1);
	CHECK_EQ(cap.sent, 1);
	/* no cable callback at all */
	CHECK(wire_dev(t, false));
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), -1);
	CHECK_EQ(stats(t).pkts_sent, 0);
}

/* PSN of the n-th "dropped looped packet" log line, or -1. */
static long looped_drop_psn(unsigned int n)
{
	unsigned int i, seen = 0;
	const char *s;

	for (i = 0; i < cap.nlogs && i < CAP_LOGS; i++) {
		if (!strstr(cap.logs[i], "dropped looped packet"))
			continue;
		if (seen++ != n)
			continue;
		s = strstr(cap.logs[i], "PSN 0x");
		return s ? strtol(s + 6, NULL, 16) : -1;
	}
	return -1;
}

TEST(wire_loopback_delivers_in_order_and_bounds_the_queue)
{
	struct cxfw_pkt p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, 0x1234);
	unsigned int i, kicks;
	struct cxfw_stats st;

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	kicks = fake_kicks(&t->fk);
	for (i = 0; i < 5; i++) {
		p.psn = 100 + i;
		CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	}
	CHECK_EQ(cap.sent, 0);				/* never on the cable */
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 5);
	CHECK(fake_kicks(&t->fk) > kicks);		/* the worker is asked to run */
	cap.nlogs = 0;
	cxfw_wire_process(t->dev);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 0);
	st = stats(t);
	CHECK_EQ(st.pkts_looped, 5);
	CHECK_EQ(st.pkts_sent, 0);
	CHECK_EQ(st.pkts_received, 0);
	CHECK_EQ(st.pkts_dropped, 5);			/* QP 0x1234 does not exist */
	CHECK_EQ(st.no_qp_drops, 5);
	for (i = 0; i < 5; i++)
		CHECK_EQ(looped_drop_psn(i), 100 + i);

	/* the bound: the queue holds CXFW_WIRE_LOOP_SLOTS, the rest is dropped and counted */
	for (i = 0; i < CXFW_WIRE_LOOP_SLOTS + 3; i++) {
		p.psn = i;
		CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), i < CXFW_WIRE_LOOP_SLOTS ? 0 : -1);
	}
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), CXFW_WIRE_LOOP_SLOTS);
	CHECK_EQ(stats(t).pkts_dropped, 5 + 3);
	CHECK_EQ(stats(t).loop_drops, 3);
	cap.nlogs = 0;
	cxfw_wire_process(t->dev);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 0);
	CHECK_EQ(stats(t).pkts_looped, 5 + CXFW_WIRE_LOOP_SLOTS);
	CHECK_EQ(looped_drop_psn(0), 0);
	CHECK_EQ(looped_drop_psn(CXFW_WIRE_LOOP_SLOTS - 1), CXFW_WIRE_LOOP_SLOTS - 1);
	/* LMC: the port owns base..base + 2^LMC - 1 */
	pthread_mutex_lock(&t->dev->lock);
	t->dev->ports[0].lmc = 2;
	pthread_mutex_unlock(&t->dev->lock);
	p.dlid = 0x23;			/* base 0x21 with LMC 2: LIDs 0x20..0x23 */
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	p.dlid = 0x20;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 2);
	CHECK_EQ(cap.sent, 0);
	p.dlid = 0x24;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cap.sent, 1);
	/* a reset drops what is queued */
	cxfw_reset(t->dev);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 0);
}

TEST(wire_receive_counts_and_drops_bad_packets)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct cxfw_pkt p;
	struct cxfw_stats st;
	uint16_t vcrc;
	size_t len;

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, 0x1234);
	len = cxfw_pkt_build(&p, buf, sizeof(buf));
	buf[len - 1] ^= 1;
	cxfw_port_receive(t->dev, 1, buf, len);			/* VCRC */
	buf[len - 1] ^= 1;
	buf[len - 6] ^= 1;					/* ICRC, under a good VCRC */
	vcrc = cxfw_vcrc(buf, len - 2);
	buf[len - 2] = (uint8_t)vcrc;
	buf[len - 1] = (uint8_t)(vcrc >> 8);
	cxfw_port_receive(t->dev, 1, buf, len);
	st = stats(t);
	CHECK_EQ(st.pkts_received, 2);
	CHECK_EQ(st.pkt_bytes_received, 2 * len);
	CHECK_EQ(st.vcrc_errors, 1);
	CHECK_EQ(st.icrc_errors, 1);
	CHECK_EQ(st.pkts_dropped, 2);
	/* not our LID, unassigned LID 0 */
	p.dlid = MY_LID + 1;
	rx(t, &p);
	p.dlid = 0;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, 4);
	/* permissive DLID or SLID to a QP other than QP0 */
	p.dlid = CXIB_LID_PERMISSIVE;
	rx(t, &p);
	p.dlid = MY_LID;
	p.slid = CXIB_LID_PERMISSIVE;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, 6);
	/* VL15 to a data QP, QP0 traffic on a data VL */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, 0x1234);
	p.vl = CXIB_VL_SMP;
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP0);
	p.vl = 0;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, 8);
	CHECK_EQ(stats(t).addressing_drops, 6);		/* each of the last six, by its cause */
	CHECK_EQ(stats(t).pkey_violations, 0);
	/* P_Key not in the table (only 0xffff): violation, counted twice (device, port) */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, 0x1234);
	p.pkey = 0x8123;
	rx(t, &p);
	p.pkey = 0x0000;
	rx(t, &p);
	st = stats(t);
	CHECK_EQ(st.pkey_violations, 2);
	CHECK_EQ(st.pkts_dropped, 10);
	CHECK_EQ(t->dev->ports[0].pkey_violations, 2);
	/* a limited member 0x7fff matches the full 0xffff of the table: on to the QP lookup */
	p.pkey = 0x7fff;
	rx(t, &p);
	CHECK_EQ(stats(t).pkey_violations, 2);
	/* QP0 is exempt from the P_Key */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP0);
	p.pkey = 0x1234;
	rx(t, &p);
	CHECK_EQ(stats(t).pkey_violations, 2);
	/* the port counter saturates */
	t->dev->ports[0].pkey_violations = 0xfffe;
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, 0x1234);
	p.pkey = 0x0001;
	rx(t, &p);
	rx(t, &p);
	CHECK_EQ(t->dev->ports[0].pkey_violations, 0xffff);
	CHECK_EQ(stats(t).pkey_violations, 4);
	/* link down: core.c drops before wire.c */
	cxfw_port_link(t->dev, 1, false);
	st = stats(t);
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_received, st.pkts_received);
}

/* ---- With QPs ----------------------------------------------------------------------------- */

struct wire_env {
	uint32_t uar, eqn, pd, cqn;
};

static unsigned int env_setup(struct test_ctx *t, struct wire_env *e)
{
	uint8_t in[CXIB_CREATE_CQ_IN_LEN(1)] = { 0 };
	__be32 *cqc = (__be32 *)(in + CXIB_CREATE_CQ_IN_CQC_OFFSET), out[4];
	unsigned int st = drv_bringup(t);

	if (!st)
		st = drv_alloc_uar(t, &e->uar);
	if (!st)
		st = drv_create_eq(t, drv_eq_buffer(t, 0, 6), 6, e->uar, 0, 0, &e->eqn);
	if (!st)
		st = drv_alloc_pd(t, &e->pd);
	if (st)
		return st;
	cmd_hdr(in, CXIB_CMD_OP_CREATE_CQ, 0);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, 4);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, e->uar);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, e->eqn);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, t->fk.base + DRV_DBR_OFF);
	CXIB_SET64(in + CXIB_CREATE_CQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, t->fk.base + DRV_CQ_OFF);
	st = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		e->cqn = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
	return st;
}

/* A QP of type @st in RST (the wire checks do not look at the state). */
static unsigned int env_qp_lb(struct test_ctx *t, const struct wire_env *e, uint32_t st,
			      unsigned int k, bool block_lb_mc, uint32_t *qpn)
{
	uint8_t in[CXIB_CREATE_QP_IN_LEN(2)] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_CREATE_QP_IN_QPC_OFFSET), out[4];
	unsigned int r, i;

	cmd_hdr(in, CXIB_CMD_OP_CREATE_QP, 0);
	CXIB_SET(qpc, CXIB_QPC_ST, st);
	CXIB_SET(qpc, CXIB_QPC_BLOCK_LB_MC, block_lb_mc);
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	CXIB_SET(qpc, CXIB_QPC_PD, e->pd);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_SIZE, 4);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_STRIDE, 2);
	CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, 6);
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, e->uar);
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, e->cqn);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, e->cqn);
	CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, CXIB_QPC_RQ_TYPE_REGULAR);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, t->fk.base + DRV_DBR_OFF + 0x800 + 64 * k);
	for (i = 0; i < 2; i++)
		CXIB_SET64(in + CXIB_CREATE_QP_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   t->fk.base + DRV_CQ_OFF + 0x20000 + 0x2000 * k + 0x1000 * i);
	r = drv_run(t, in, sizeof(in), out, sizeof(out));
	if (!r)
		*qpn = CXIB_GET(out, CXIB_CREATE_QP_OUT_QPN);
	return r;
}

static unsigned int env_qp(struct test_ctx *t, const struct wire_env *e, uint32_t st,
			   unsigned int k, uint32_t *qpn)
{
	return env_qp_lb(t, e, st, k, false, qpn);
}

static unsigned int env_attach(struct test_ctx *t, uint32_t qpn, const uint8_t *mgid)
{
	uint8_t in[CXIB_ATTACH_TO_MCG_IN_LEN] = { 0 };
	__be32 out[4];

	cmd_hdr(in, CXIB_CMD_OP_ATTACH_TO_MCG, 0);
	CXIB_SET(in, CXIB_ATTACH_TO_MCG_IN_QPN, qpn);
	memcpy(in + CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET, mgid, CXIB_GID_LEN);
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

/*
 * VL15Dropped counts the SMPs the port had no room for (IBTA vol 1 16.1.3.5: resource
 * limitations): no QP0, or a QP0 that does not receive.  An SMP to another port's LID is
 * dropped for its address and counted nowhere in the PMA.
 */
TEST(wire_vl15_dropped_counts_smps_the_port_had_no_room_for)
{
	struct cxfw_pkt p;
	struct wire_env e;
	uint32_t qp0;

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(env_setup(t, &e), 0);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID + 1, CXIB_QP0);
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, 1);
	CHECK_EQ(t->dev->ports[0].pma.vl15_dropped, 0);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP0);
	rx(t, &p);
	CHECK_EQ(t->dev->ports[0].pma.vl15_dropped, 1);
	/* a QP0 still in RST */
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_QP0, 4, &qp0), 0);
	rx(t, &p);
	CHECK_EQ(t->dev->ports[0].pma.vl15_dropped, 2);
	/* QP1's GMPs travel on a data VL: not VL15 drops, whatever happens to them */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP1);
	rx(t, &p);
	CHECK_EQ(t->dev->ports[0].pma.vl15_dropped, 2);
}

/*
 * A function torn down (its driver unloading: TEARDOWN_HCA) has no receive side to run
 * short of: SMPs that reach it are dropped, not counted in VL15Dropped.
 */
TEST(wire_vl15_dropped_leaves_out_a_function_torn_down)
{
	struct cxfw_pkt p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP0);

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(drv_bringup(t), 0);
	rx(t, &p);					/* initialized, no QP0 */
	CHECK_EQ(t->dev->ports[0].pma.vl15_dropped, 1);
	CHECK_EQ(drv_teardown_hca(t), 0);
	rx(t, &p);
	CHECK_EQ(t->dev->ports[0].pma.vl15_dropped, 1);
	CHECK_EQ(stats(t).no_qp_drops, 2);		/* dropped all the same */
}

TEST(wire_receive_needs_an_existing_qp_of_the_opcodes_transport)
{
	uint32_t rc, uc, ud, qp1, qp0;
	struct cxfw_pkt p;
	struct wire_env e;
	uint64_t dropped;

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(env_setup(t, &e), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_RC, 0, &rc), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_UC, 1, &uc), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_UD, 2, &ud), 0);
	dropped = stats(t).pkts_dropped;

	/* each transport reaches its own QP type: no drop */
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, rc);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_RC_ACKNOWLEDGE, MY_LID, rc);	/* a response: requester */
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UC_RDMA_WRITE_ONLY, MY_LID, uc);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY_IMM, MY_LID, ud);
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped);
	/* the wrong transport, a missing QP */
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, ud);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UC_SEND_ONLY, MY_LID, rc);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, uc);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, ud + 10);
	rx(t, &p);
	/* the multicast QPN on a unicast LID */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_MULTICAST_QPN);
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 5);
	dropped += 5;
	/* QP0 / QP1 do not exist yet */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP1);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, CXIB_LID_PERMISSIVE, CXIB_QP0);
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 2);
	dropped += 2;
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_QP1, 3, &qp1), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_QP0, 4, &qp0), 0);
	/* now they do, under the numbers 0 and 1 only */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP1);
	rx(t, &p);
	p.pkey = 0x7fff;			/* QP1: any P_Key of the table */
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, CXIB_LID_PERMISSIVE, CXIB_QP0);
	p.slid = CXIB_LID_PERMISSIVE;
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP0);
	p.pkey = 0x0001;			/* QP0: no P_Key check */
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped);
	/* VL15 carries QP0 and only QP0 */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP0);
	p.vl = 0;
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP1);
	p.vl = CXIB_VL_SMP;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 2);
	dropped += 2;
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, qp1);
	rx(t, &p);
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, CXIB_QP1);
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 2);
	dropped += 2;
	/* per-QP P_Key: the RC QP has pkey_index 0 (0xffff); a limited 0x7fff still matches */
	p = pkt_to(CXIB_BTH_OP_RC_SEND_ONLY, MY_LID, rc);
	p.pkey = 0x7fff;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped);
	/* a second partition in the table that the QP does not use */
	t->dev->ports[0].pkeys[1] = 0x8002;
	p.pkey = 0x8002;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 1);
	CHECK_EQ(stats(t).pkey_violations, 1);
	/* the QP1 accepts it: it is in the table */
	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, MY_LID, CXIB_QP1);
	p.pkey = 0x8002;
	rx(t, &p);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 1);
}

TEST(wire_multicast_reaches_every_attached_qp_and_loops_back)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x01 };
	uint32_t ud1, ud2, ud3, ud4;
	struct cxfw_pkt p, q;
	struct wire_env e;
	uint64_t dropped;

	CHECK(wire_dev(t, true));
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(env_setup(t, &e), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_UD, 0, &ud1), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_UD, 1, &ud2), 0);
	CHECK_EQ(env_qp(t, &e, CXIB_QPC_ST_UD, 2, &ud3), 0);
	CHECK_EQ(env_attach(t, ud1, mgid), 0);
	CHECK_EQ(env_attach(t, ud2, mgid), 0);
	CHECK_EQ(env_qp_lb(t, &e, CXIB_QPC_ST_UD, 3, true, &ud4), 0);
	dropped = stats(t).pkts_dropped;

	p = pkt_to(CXIB_BTH_OP_UD_SEND_ONLY, 0xc001, CXIB_MULTICAST_QPN);
	p.grh = true;
	memcpy(p.dgid, mgid, 16);
	rx(t, &p);
	CHECK_EQ(stats(t).mcast_pkts_received, 2);
	CHECK_EQ(stats(t).pkts_dropped, dropped);
	/* malformed multicast: no GRH, a unicast QPN, an RC opcode, unknown group */
	q = p;
	q.grh = false;
	rx(t, &q);
	q = p;
	q.dqpn = ud1;
	rx(t, &q);
	q = p;
	q.opcode = CXIB_BTH_OP_RC_SEND_ONLY;
	rx(t, &q);
	q = p;
	q.dgid[15] = 2;
	rx(t, &q);
	q = p;
	q.dgid[0] = 0xfe;
	rx(t, &q);
	CHECK_EQ(stats(t).pkts_dropped, dropped + 5);
	CHECK_EQ(stats(t).mcast_pkts_received, 2);

	/* sent by ud3: on the cable and looped back to ud1 and ud2 */
	p.deth_sqpn = ud3;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cap.sent, 1);
	CHECK_EQ(cxfw_pkt_parse(cap.pkt, cap.len, &q), 0);
	CHECK_EQ(q.dlid, 0xc001);
	CHECK_EQ(q.slid, MY_LID);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 1);
	cxfw_wire_process(t->dev);
	CHECK_EQ(stats(t).mcast_pkts_received, 4);
	CHECK_EQ(stats(t).pkts_looped, 1);
	/* sent by ud1 itself: it gets its own copy (no block_lb_mc) */
	p.deth_sqpn = ud1;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	cxfw_wire_process(t->dev);
	CHECK_EQ(stats(t).mcast_pkts_received, 6);
	/* ud4 blocks multicast loopback: its own send skips it, the others get theirs */
	CHECK_EQ(env_attach(t, ud4, mgid), 0);
	p.deth_sqpn = ud4;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	cxfw_wire_process(t->dev);
	CHECK_EQ(stats(t).mcast_pkts_received, 8);
	/* ...but a copy from the cable reaches it like the others */
	rx(t, &p);
	CHECK_EQ(stats(t).mcast_pkts_received, 11);
	/* a group without local members: cable only */
	p.dgid[15] = 9;
	CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 0);
	CHECK_EQ(cap.sent, 4);
}

/*
 * Fairness: one cxfw_wire_process() call delivers what was queued when it started; what
 * the deliveries send (here the responder's RNR NAK) waits for the next call.  Uses the
 * real engines through a one-node world (the RC pair talks to itself by loopback).
 */
TEST(wire_loopback_defers_packets_sent_during_delivery)
{
	struct drv_world w;
	struct drv_qp a, b;
	struct drv_mr src;
	struct drv_wr wr;
	struct cxfw_stats st;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &a, &b), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 256, DRV_LR, &src), 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = CXIB_WQE_OPCODE_SEND;
	wr.signaled = true;
	wr.sg[0].addr = src.va;
	wr.sg[0].len = 100;
	wr.sg[0].lkey = src.key;
	wr.nsg = 1;
	CHECK(drv_post_send(&w.n[0], &a, &wr) >= 0);	/* b has no receive posted */
	cxfw_qp_process(t->dev);			/* the SQ doorbell: the request */
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 1);
	cxfw_wire_process(t->dev);			/* request in, RNR NAK out */
	st = stats(t);
	CHECK_EQ(st.pkts_looped, 1);
	CHECK_EQ(st.rnr_naks_sent, 1);
	CHECK_EQ(st.rnr_naks_received, 0);
	CHECK_EQ(cxfw_wire_loop_pending(t->dev), 1);	/* the NAK waits */
	cxfw_wire_process(t->dev);
	st = stats(t);
	CHECK_EQ(st.pkts_looped, 2);
	CHECK_EQ(st.rnr_naks_received, 1);
	CHECK_EQ(st.pkts_sent, 0);			/* nothing went to the cable */
}

/*
 * Random but well-formed packets (good CRCs, our LID, existing QPs in RTS, random opcode,
 * PSN, keys, lengths) through the whole receive path into the engines: no crash, no
 * out-of-bounds access, no hang; the device stays usable.
 */
#ifndef WIRE_ENGINE_FUZZ
#define WIRE_ENGINE_FUZZ	3000
#endif

TEST(wire_engines_survive_random_wellformed_packets)
{
	uint8_t buf[CXFW_PKT_MAX];
	struct drv_world w;
	struct drv_qp a, b;
	struct cxfw_stats st;
	struct drv_mr mr;
	struct cxfw_pkt p;
	unsigned int i;
	uint32_t qpns[3];
	size_t len;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	CHECK_EQ(drv_rc_pair(&w, CXIB_QPC_ST_RC, NULL, &a, &b), 0);
	CHECK_EQ(drv_mr_alloc(&w.n[0], 8192, DRV_ALL, &mr), 0);
	qpns[0] = a.qpn;
	qpns[1] = b.qpn;
	qpns[2] = CXIB_QP1;
	rng_state = 7;
	payload_init();
	for (i = 0; i < WIRE_ENGINE_FUZZ; i++) {
		uint8_t op = all_ops[rnd() % sizeof(all_ops)];
		uint32_t pl = cxib_bth_op_hdrs(op) & CXIB_BTH_HDR_PAYLOAD ?
			      (uint32_t)(rnd() % 1100) : 0;

		pkt_random(&p, op, false, pl);
		p.vl = 0;
		p.dlid = w.n[0].lid;
		p.slid = w.n[0].lid;	/* the pair talks to itself */
		p.pkey = CXIB_PKEY_DEFAULT;
		p.dqpn = qpns[rnd() % 3];
		if (rnd() % 2) {		/* near the expected PSN and real keys */
			p.psn = (uint32_t)(rnd() % 8);
			p.reth_rkey = p.atomic_rkey = p.ieth_rkey = mr.key;
			p.reth_va = p.atomic_va = mr.va + rnd() % 8192;
			p.reth_len = (uint32_t)(rnd() % 9000);
		}
		len = cxfw_pkt_build(&p, buf, sizeof(buf));
		CHECK(len);
		cxfw_port_receive(t->dev, 1, buf, len);
		if (i % 64 == 0) {
			fake_advance_ms(&t->fk, 1);
			cxfw_process(t->dev);
		}
	}
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).pkts_received, WIRE_ENGINE_FUZZ);
	/* the wire drops the wrong transports and QP1 (none here); the rest reached an engine */
	st = stats(t);
	CHECK(st.pkts_dropped > WIRE_ENGINE_FUZZ / 4);
	CHECK(st.acks_sent + st.naks_sent > 0);
	CHECK(st.acks_received + st.naks_received > 0);
}

/*
 * Both CRCs against a bit-serial definition at every length up to a full packet and at
 * every start alignment: covers the table path and the carry-less-multiply folding path
 * (buffers of 128 bytes and more on x86-64 with PCLMULQDQ).
 */
static uint32_t bitwise_crc(const uint8_t *b, size_t len, uint32_t poly, uint32_t init)
{
	uint32_t c = init;
	unsigned int k;

	while (len--) {
		c ^= *b++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ poly : c >> 1;
	}
	return ~c;
}

TEST(wire_crcs_match_bit_serial_at_every_length)
{
	/* the longest packet's ICRC span, plus room to shift the start */
	enum { MAX = CXIB_LRH_LEN + CXIB_BTH_LEN + 4096 + CXIB_ICRC_LEN, SHIFT = 8 };
	static uint8_t p[MAX + SHIFT], m[MAX];
	size_t len, a;

	drv_pattern(p, sizeof(p), 4242);
	for (len = 0; len <= MAX; len += len < 300 ? 1 : 61)
		for (a = 0; a < SHIFT; a++)
			CHECK_EQ(cxfw_vcrc(p + a, len),
				 (uint16_t)bitwise_crc(p + a, len, CXIB_VCRC_POLY_REFLECTED, 0xffff));
	for (len = CXIB_LRH_LEN + CXIB_BTH_LEN; len <= MAX; len += 37) {
		memcpy(m, p, len);
		CXIB_SET(m, CXIB_LRH_LNH, CXIB_LNH_IBA_LOCAL);
		memcpy(p, m, CXIB_LRH_LEN);
		m[0] |= 0xf0;						/* VL */
		m[CXIB_LRH_LEN + CXIB_OFFSET(CXIB_BTH_RESV8A)] = 0xff;	/* Resv8a */
		CHECK_EQ(cxfw_icrc(p, len), bitwise_crc(m, len, CXIB_ICRC_POLY_REFLECTED, 0xffffffffu));
	}
}
