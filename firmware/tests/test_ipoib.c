// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IPoIB UD offloads (core/ipoib.c): checksums against known values and an independent
 * reference sum, LSO segmentation field by field, and both through the device -- UD QPs
 * created with ulp_stateless_offload_mode IPOIB_UD on two nodes joined by the test cable,
 * WQEs with the pad and Ethernet segment as mlx5_ib builds them (drv.c).
 */
#include <stdlib.h>
#include <string.h>

#include <cxib/ipoib.h>

#include "drv.h"
#include "ipoib.h"

#define FILL_DST	0xee

/* ---- packets ------------------------------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/*
 * Reference Internet checksum, written the long way: copy the pseudo-header and the segment
 * into one buffer and add it up word by word, folding as it goes.
 */
static uint16_t ref_csum(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint8_t *buf = calloc(1, alen + blen + 1);
	uint32_t sum = 0;
	size_t i;

	if (!buf)
		abort();
	memcpy(buf, a, alen);
	if (blen)
		memcpy(buf + alen, b, blen);
	for (i = 0; i < alen + blen; i += 2) {
		sum += (uint32_t)(buf[i] << 8 | buf[i + 1]);
		if (sum > 0xffff)
			sum -= 0xffff;
	}
	free(buf);
	return (uint16_t)~sum;
}

/* The IPv4 header checksum of the message @m (IPoIB header first). */
static uint16_t ref_ip4(const uint8_t *m)
{
	uint8_t h[60];
	uint32_t ihl = (m[CXIB_IPOIB_ENCAP_LEN] & 0xf) * 4u;

	memcpy(h, m + CXIB_IPOIB_ENCAP_LEN, ihl);
	put16(h + CXIB_IPV4_CHECK, 0);
	return ref_csum(h, ihl, h, 0);
}

/* The checksum of the TCP / UDP segment @l4 (@l4len bytes) behind pseudo-header @ph. */
static uint16_t ref_l4(const uint8_t *ph, size_t phlen, const uint8_t *l4, uint32_t l4len,
		       uint8_t proto)
{
	uint8_t *seg = malloc(l4len);
	uint16_t c;

	if (!seg)
		abort();
	memcpy(seg, l4, l4len);
	put16(seg + (proto == CXIB_IPPROTO_TCP ? CXIB_TCP_CHECK : CXIB_UDP_CHECK), 0);
	c = ref_csum(ph, phlen, seg, l4len);
	free(seg);
	return c;
}

/* The TCP / UDP checksum an IPv4 message @m (IPoIB header first) should carry. */
static uint16_t ref_l4_v4(const uint8_t *m)
{
	const uint8_t *ip = m + CXIB_IPOIB_ENCAP_LEN;
	uint32_t ihl = (ip[0] & 0xf) * 4u, l4len = get16(ip + 2) - ihl;
	uint8_t ph[12];

	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = ip[9];
	put16(ph + 10, (uint16_t)l4len);
	return ref_l4(ph, sizeof(ph), ip + ihl, l4len, ip[9]);
}

/* The same for IPv6 (TCP / UDP right after the fixed header). */
static uint16_t ref_l4_v6(const uint8_t *m)
{
	const uint8_t *ip = m + CXIB_IPOIB_ENCAP_LEN;
	uint32_t l4len = get16(ip + 4);
	uint8_t ph[40];

	memcpy(ph, ip + 8, 32);
	memset(ph + 32, 0, 8);
	put16(ph + 34, (uint16_t)l4len);
	ph[39] = ip[6];
	return ref_l4(ph, sizeof(ph), ip + 40, l4len, ip[6]);
}

/* IPoIB + IPv4 (20 bytes) + TCP (20 bytes, ACK) + @paylen pattern bytes; returns length. */
static uint32_t mk_tcp4(uint8_t *m, uint32_t paylen, uint8_t flags)
{
	uint8_t *ip = m + CXIB_IPOIB_ENCAP_LEN, *tcp = ip + 20;
	uint32_t i;

	memset(m, 0, CXIB_IPOIB_ENCAP_LEN + 40);
	put16(m, CXIB_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(40 + paylen));
	put16(ip + 4, 0x1234);
	put16(ip + 6, 0x4000);		/* DF */
	ip[8] = 64;
	ip[9] = CXIB_IPPROTO_TCP;
	memcpy(ip + 12, "\xc6\x33\x64\x01\xc6\x33\x64\x02", 8);	/* 198.51.100.1 -> .2 */
	put16(tcp, 40000);
	put16(tcp + 2, 5201);
	tcp[4] = 0x89;			/* sequence 0x89abcdef */
	tcp[5] = 0xab;
	tcp[6] = 0xcd;
	tcp[7] = 0xef;
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	put16(tcp + 14, 512);
	for (i = 0; i < paylen; i++)
		tcp[20 + i] = (uint8_t)(i * 7 + 3);
	return CXIB_IPOIB_ENCAP_LEN + 40 + paylen;
}

/* IPoIB + IPv6 + UDP + @paylen bytes. */
static uint32_t mk_udp6(uint8_t *m, uint32_t paylen)
{
	uint8_t *ip = m + CXIB_IPOIB_ENCAP_LEN, *udp = ip + 40;
	uint32_t i;

	memset(m, 0, CXIB_IPOIB_ENCAP_LEN + 48);
	put16(m, CXIB_ETHERTYPE_IPV6);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)(8 + paylen));
	ip[6] = CXIB_IPPROTO_UDP;
	ip[7] = 64;
	memcpy(ip + 8, "\x20\x01\x0d\xb8\x00\x1b\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(ip + 24, "\x20\x01\x0d\xb8\x00\x1b\0\0\0\0\0\0\0\0\0\x02", 16);
	put16(udp, 5353);
	put16(udp + 2, 5201);
	put16(udp + 4, (uint16_t)(8 + paylen));
	for (i = 0; i < paylen; i++)
		udp[8 + i] = (uint8_t)(i * 13 + 1);
	return CXIB_IPOIB_ENCAP_LEN + 48 + paylen;
}

/* ---- the functions alone --------------------------------------------------------------------- */

TEST(ipoib_ipv4_header_checksum_matches_a_known_value)
{
	/* the usual worked example: 192.168.0.1 -> 192.168.0.199, UDP, checksum 0xb861 */
	static const uint8_t hdr[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40,
					 0x11, 0xaa, 0xbb, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
					 0x00, 0xc7 };
	uint8_t m[CXIB_IPOIB_ENCAP_LEN + 0x73];
	struct cxfw_ipoib_rx rx;

	memset(m, 0, sizeof(m));
	put16(m, CXIB_ETHERTYPE_IPV4);
	memcpy(m + CXIB_IPOIB_ENCAP_LEN, hdr, sizeof(hdr));
	put16(m + CXIB_IPOIB_ENCAP_LEN + 20 + 4, 0x73 - 20);	/* UDP length */
	cxfw_ipoib_tx_csum(m, sizeof(m), CXIB_WQE_ETH_L3_CSUM);
	CHECK_EQ(get16(m + CXIB_IPOIB_ENCAP_LEN + CXIB_IPV4_CHECK), 0xb861);
	/* L3 only: the UDP checksum was left as it was (0: none) */
	CHECK_EQ(get16(m + CXIB_IPOIB_ENCAP_LEN + 20 + CXIB_UDP_CHECK), 0);
	cxfw_ipoib_rx_check(m, sizeof(m), &rx);
	CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_L4_OK);	/* IPv4 UDP without a checksum passes */
	CHECK_EQ(rx.l3_type, CXIB_CQE_L3_HDR_TYPE_IPV4);
	CHECK_EQ(rx.l4_type, CXIB_CQE_L4_HDR_TYPE_UDP);
}

TEST(ipoib_tx_checksums_match_the_reference_and_pass_the_rx_check)
{
	uint8_t m[2048];
	struct cxfw_ipoib_rx rx;
	uint32_t len;

	/* IPv4 TCP, odd payload length, garbage in both checksum fields */
	len = mk_tcp4(m, 1001, CXIB_TCP_ACK | CXIB_TCP_PSH);
	put16(m + 4 + CXIB_IPV4_CHECK, 0xdead);
	put16(m + 24 + CXIB_TCP_CHECK, 0xbeef);
	cxfw_ipoib_tx_csum(m, len, CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM);
	CHECK_EQ(get16(m + 24 + CXIB_TCP_CHECK), ref_l4_v4(m));
	CHECK_EQ(get16(m + 4 + CXIB_IPV4_CHECK), ref_ip4(m));
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_L4_OK);
	CHECK_EQ(rx.l4_type, CXIB_CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA);

	/* one flipped payload bit: L4 fails, L3 still good */
	m[len - 1] ^= 0x10;
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_OK);
	m[len - 1] ^= 0x10;
	/* a flipped TTL: the header checksum fails */
	m[4 + 8] ^= 1;
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext & CXIB_CQE_L3_OK, 0);
	m[4 + 8] ^= 1;

	/* IPv6 UDP */
	len = mk_udp6(m, 333);
	cxfw_ipoib_tx_csum(m, len, CXIB_WQE_ETH_L4_CSUM);
	CHECK_EQ(get16(m + 44 + CXIB_UDP_CHECK), ref_l4_v6(m));
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_L4_OK);
	CHECK_EQ(rx.l3_type, CXIB_CQE_L3_HDR_TYPE_IPV6);
	m[44 + 8] ^= 0xff;
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_OK);
}

TEST(ipoib_offloads_leave_what_they_cannot_parse_alone)
{
	uint8_t m[256], before[256];
	struct cxfw_ipoib_rx rx;
	uint32_t len = mk_tcp4(m, 100, CXIB_TCP_ACK);

	/* ARP (not IP), a truncated IPv4 header, IHL < 5, a fragment */
	put16(m, 0x0806);
	memcpy(before, m, len);
	cxfw_ipoib_tx_csum(m, len, CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM);
	CHECK(!memcmp(before, m, len));
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, 0);
	CHECK_EQ(rx.l3_type, CXIB_CQE_L3_HDR_TYPE_NONE);

	len = mk_tcp4(m, 100, CXIB_TCP_ACK);
	cxfw_ipoib_rx_check(m, 20, &rx);		/* cut inside the IPv4 header */
	CHECK_EQ(rx.hds_ip_ext, 0);
	cxfw_ipoib_rx_check(m, len - 1, &rx);		/* total length beyond the message */
	CHECK_EQ(rx.hds_ip_ext, 0);
	m[4] = 0x44;
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, 0);

	len = mk_tcp4(m, 100, CXIB_TCP_ACK);
	put16(m + 4 + CXIB_IPV4_FRAG_OFF, CXIB_IPV4_FRAG_MF);
	put16(m + 24 + CXIB_TCP_CHECK, 0x5555);
	cxfw_ipoib_tx_csum(m, len, CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM);
	CHECK_EQ(get16(m + 24 + CXIB_TCP_CHECK), 0x5555);	/* a fragment: L4 untouched */
	cxfw_ipoib_rx_check(m, len, &rx);
	CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_OK);		/* header fine, no L4 verdict */
	CHECK_EQ(rx.l4_type, CXIB_CQE_L4_HDR_TYPE_NONE);
}

TEST(ipoib_lso_fixup_makes_each_segment_a_valid_tcp_packet)
{
	uint8_t tmpl[64], m[2048];
	struct cxfw_ipoib_hdrs h;
	struct cxfw_ipoib_rx rx;
	uint32_t k, hlen = mk_tcp4(tmpl, 0, CXIB_TCP_ACK | CXIB_TCP_PSH | CXIB_TCP_FIN |
				   CXIB_TCP_CWR);

	CHECK_EQ(hlen, 44u);
	CHECK(cxfw_ipoib_parse(tmpl, hlen, true, &h));
	CHECK(!cxfw_ipoib_parse(tmpl, hlen - 1, true, &h));	/* a header cut short */
	CHECK(cxfw_ipoib_parse(tmpl, hlen, true, &h));
	for (k = 0; k < 3; k++) {
		uint32_t pay = k < 2 ? 1000 : 17, i;
		bool last = k == 2;

		memcpy(m, tmpl, hlen);
		for (i = 0; i < pay; i++)
			m[hlen + i] = (uint8_t)(k + i);
		cxfw_ipoib_lso_fixup(m, &h, k, 1000, pay, last);
		CHECK_EQ(get16(m + 4 + CXIB_IPV4_TOT_LEN), 40 + pay);
		CHECK_EQ(get16(m + 4 + CXIB_IPV4_ID), 0x1234 + k);
		CHECK_EQ(get32(m + 24 + CXIB_TCP_SEQ), 0x89abcdefu + k * 1000);
		CHECK_EQ(m[24 + CXIB_TCP_FLAGS] & CXIB_TCP_CWR, k == 0 ? CXIB_TCP_CWR : 0);
		CHECK_EQ(m[24 + CXIB_TCP_FLAGS] & (CXIB_TCP_FIN | CXIB_TCP_PSH),
			 last ? CXIB_TCP_FIN | CXIB_TCP_PSH : 0);
		CHECK(m[24 + CXIB_TCP_FLAGS] & CXIB_TCP_ACK);
		CHECK_EQ(get16(m + 24 + CXIB_TCP_CHECK), ref_l4_v4(m));
		CHECK_EQ(get16(m + 4 + CXIB_IPV4_CHECK), ref_ip4(m));
		cxfw_ipoib_rx_check(m, hlen + pay, &rx);
		CHECK_EQ(rx.hds_ip_ext, CXIB_CQE_L3_L4_OK);
	}
	/* LSO needs TCP: UDP headers are refused */
	hlen = mk_udp6(tmpl, 0);
	CHECK(!cxfw_ipoib_parse(tmpl, hlen, true, &h));
}

/* ---- through the device -------------------------------------------------------------------- */

struct ipoib_env {
	struct drv_world w;
	struct drv_node *na, *nb;
	struct drv_qp a, b, plain;	/* a (node 0), b (node 1): IPoIB; plain: node 1, none */
	struct drv_mr src, dst;
};

static unsigned int ipoib_env(struct test_ctx *t, struct ipoib_env *e)
{
	struct drv_qp_init ia, ib;
	struct drv_qp_conn c;
	unsigned int s = drv_world_init(t, &e->w, 2);

	if (s)
		return s;
	e->na = &e->w.n[0];
	e->nb = &e->w.n[1];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_UD, e->w.cq[0]);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_UD, e->w.cq[1]);
	drv_qp_conn_defaults(&c);
	ia.offload = CXIB_QPC_ULP_OFFLOAD_IPOIB_UD;
	s = drv_qp_create(e->na, &ia, &e->a);
	if (!s)
		s = drv_qp_create(e->nb, &ib, &e->plain);
	ib.offload = CXIB_QPC_ULP_OFFLOAD_IPOIB_UD;
	if (!s)
		s = drv_qp_create(e->nb, &ib, &e->b);
	if (!s)
		s = drv_qp_connect(e->na, &e->a, &ia, &c);
	if (!s)
		s = drv_qp_connect(e->nb, &e->b, &ib, &c);
	if (!s)
		s = drv_qp_connect(e->nb, &e->plain, &ib, &c);
	if (!s)
		s = drv_mr_alloc(e->na, 16384, DRV_LR, &e->src);
	if (!s)
		s = drv_mr_alloc(e->nb, 16384, DRV_LR | DRV_LW, &e->dst);
	drv_mem_fill(e->nb, e->dst.pa, FILL_DST, 16384);
	return s;
}

static struct drv_wr ipoib_wr(const struct ipoib_env *e, const struct drv_qp *to,
			      unsigned int opcode)
{
	struct drv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = opcode;
	wr.signaled = true;
	wr.ah.dlid = e->nb->lid;
	wr.ah.dqpn = to->qpn;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	return wr;
}

/* Post @n receives of @each bytes (GRH area included) on @qp from @e->dst. */
static void ipoib_recvs(struct ipoib_env *e, struct drv_qp *qp, unsigned int n, uint32_t each)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct drv_sge r = { .addr = e->dst.va + i * each, .len = each, .lkey = e->dst.key };

		drv_post_recv(e->nb, qp, &r, 1);
	}
}

TEST(ipoib_lso_wqe_arrives_as_mss_sized_tcp_segments)
{
	uint8_t hdr[64], seg[4096], *pay = malloc(2500);
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct ipoib_env e;
	struct drv_wr wr;
	uint32_t hlen, k, i;

	CHECK(pay != NULL);
	CHECK_EQ(ipoib_env(t, &e), 0);
	hlen = mk_tcp4(hdr, 0, CXIB_TCP_ACK | CXIB_TCP_PSH);
	for (i = 0; i < 2500; i++)
		pay[i] = (uint8_t)(i * 31 + 5);
	drv_mem_write(e.na, e.src.pa, pay, 2500);
	ipoib_recvs(&e, &e.b, 3, 4096);
	wr = ipoib_wr(&e, &e.b, CXIB_WQE_OPCODE_LSO);
	wr.cs_flags = CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM;
	wr.mss = 1000;
	wr.hdr = hdr;
	wr.hlen = hlen;
	/* the payload in two pieces that do not line up with the MSS */
	wr.sg[wr.nsg++] = (struct drv_sge){ .addr = e.src.va, .len = 1500, .lkey = e.src.key };
	wr.sg[wr.nsg++] = (struct drv_sge){ .addr = e.src.va + 1500, .len = 1000, .lkey = e.src.key };
	CHECK(drv_post_send(e.na, &e.a, &wr) >= 0);
	CHECK(drv_pump(&e.w) > 0);

	/* one completion for the WQE, three messages for the receiver */
	CHECK_EQ(drv_poll(e.na, e.w.cq[0], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_SOP), CXIB_WQE_OPCODE_LSO);
	CHECK_EQ(drv_poll(e.na, e.w.cq[0], &cqe), 0);
	for (k = 0; k < 3; k++) {
		uint32_t n = k < 2 ? 1000 : 500;

		CHECK_EQ(drv_poll(e.nb, e.w.cq[1], &cqe), 1);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), e.b.qpn);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), DRV_GRH_LEN + hlen + n);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_HDS_IP_EXT), CXIB_CQE_L3_L4_OK);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_L3_HDR_TYPE), CXIB_CQE_L3_HDR_TYPE_IPV4);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_L4_HDR_TYPE),
			 CXIB_CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA);
		drv_mem_read(e.nb, e.dst.pa + k * 4096 + DRV_GRH_LEN, seg, hlen + n);
		CHECK_EQ(get16(seg), CXIB_ETHERTYPE_IPV4);
		CHECK_EQ(get16(seg + 4 + CXIB_IPV4_TOT_LEN), 40 + n);
		CHECK_EQ(get16(seg + 4 + CXIB_IPV4_ID), 0x1234 + k);
		CHECK_EQ(get32(seg + 24 + CXIB_TCP_SEQ), 0x89abcdefu + k * 1000);
		CHECK_EQ(seg[24 + CXIB_TCP_FLAGS] & CXIB_TCP_PSH, k == 2 ? CXIB_TCP_PSH : 0);
		CHECK_EQ(get16(seg + 24 + CXIB_TCP_CHECK), ref_l4_v4(seg));
		CHECK_EQ(get16(seg + 4 + CXIB_IPV4_CHECK), ref_ip4(seg));
		CHECK(!memcmp(seg + hlen, pay + k * 1000, n));
	}
	CHECK_EQ(drv_poll(e.nb, e.w.cq[1], &cqe), 0);
	cxfw_get_stats(e.na->t->dev, &st);
	CHECK_EQ(st.lso_wqes, 1);
	CHECK_EQ(st.lso_segments, 3);
	cxfw_get_stats(e.nb->t->dev, &st);
	CHECK_EQ(st.rx_csum_ok, 3);
	CHECK_EQ(st.rx_csum_bad, 0);
	free(pay);
}

TEST(ipoib_send_checksums_are_filled_in_and_checked_on_receive)
{
	uint8_t m[1200], got[1200];
	struct cxib_cqe64 cqe;
	struct cxfw_stats st;
	struct ipoib_env e;
	struct drv_wr wr;
	uint32_t len;

	CHECK_EQ(ipoib_env(t, &e), 0);
	len = mk_tcp4(m, 1100, CXIB_TCP_ACK);	/* checksum fields zero */
	drv_mem_write(e.na, e.src.pa, m, len);
	ipoib_recvs(&e, &e.b, 2, 2048);

	/* asked for: both checksums arrive right */
	wr = ipoib_wr(&e, &e.b, CXIB_WQE_OPCODE_SEND);
	wr.cs_flags = CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM;
	wr.sg[wr.nsg++] = (struct drv_sge){ .addr = e.src.va, .len = len, .lkey = e.src.key };
	CHECK(drv_post_send(e.na, &e.a, &wr) >= 0);
	/* not asked for: the zero checksums go as they are and fail the check */
	wr.cs_flags = 0;
	CHECK(drv_post_send(e.na, &e.a, &wr) >= 0);
	CHECK(drv_pump(&e.w) > 0);

	CHECK_EQ(drv_poll(e.nb, e.w.cq[1], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), DRV_GRH_LEN + len);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_HDS_IP_EXT), CXIB_CQE_L3_L4_OK);
	drv_mem_read(e.nb, e.dst.pa + DRV_GRH_LEN, got, len);
	CHECK_EQ(get16(got + 24 + CXIB_TCP_CHECK), ref_l4_v4(m));
	CHECK(!memcmp(got + 44, m + 44, len - 44));
	CHECK_EQ(drv_poll(e.nb, e.w.cq[1], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_HDS_IP_EXT) & CXIB_CQE_L3_L4_OK, 0);
	drv_mem_read(e.nb, e.dst.pa + 2048 + DRV_GRH_LEN, got, len);
	CHECK(!memcmp(got, m, len));			/* untouched */
	cxfw_get_stats(e.nb->t->dev, &st);
	CHECK_EQ(st.rx_csum_ok, 1);
	CHECK_EQ(st.rx_csum_bad, 1);

	/* a QP without the offload mode reports nothing */
	ipoib_recvs(&e, &e.plain, 1, 2048);
	wr = ipoib_wr(&e, &e.plain, CXIB_WQE_OPCODE_SEND);
	wr.cs_flags = CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM;
	wr.sg[wr.nsg++] = (struct drv_sge){ .addr = e.src.va, .len = len, .lkey = e.src.key };
	CHECK(drv_post_send(e.na, &e.a, &wr) >= 0);
	CHECK(drv_pump(&e.w) > 0);
	CHECK_EQ(drv_poll(e.nb, e.w.cq[1], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), e.plain.qpn);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_HDS_IP_EXT), 0);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_L3_HDR_TYPE), 0);
}

TEST(ipoib_offload_mode_is_for_ud_qps_only)
{
	struct drv_qp_init a;
	struct drv_world w;
	struct drv_qp qp;

	CHECK_EQ(drv_world_init(t, &w, 1), 0);
	drv_qp_init_defaults(&a, CXIB_QPC_ST_RC, w.cq[0]);
	a.offload = CXIB_QPC_ULP_OFFLOAD_IPOIB_UD;
	CHECK_EQ(drv_qp_create(&w.n[0], &a, &qp), CXIB_CMD_STAT_BAD_PARAM);
	drv_qp_init_defaults(&a, CXIB_QPC_ST_UD, w.cq[0]);
	a.offload = 2;				/* no such mode */
	CHECK_EQ(drv_qp_create(&w.n[0], &a, &qp), CXIB_CMD_STAT_BAD_PARAM);
	a.offload = CXIB_QPC_ULP_OFFLOAD_IPOIB_UD;
	CHECK_EQ(drv_qp_create(&w.n[0], &a, &qp), 0);
}

/* Post @wr on a fresh environment's QP @ipoib (or the plain one); the error CQE's syndrome. */
static unsigned int lso_error(struct test_ctx *t, struct drv_wr *wr, bool ipoib)
{
	struct drv_qp_init ia;
	struct drv_qp_conn c;
	struct cxib_cqe64 cqe;
	struct ipoib_env e;
	struct drv_qp plain;

	if (ipoib_env(t, &e))
		return 0x100;
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_UD, e.w.cq[0]);
	drv_qp_conn_defaults(&c);
	if (drv_qp_create(e.na, &ia, &plain) || drv_qp_connect(e.na, &plain, &ia, &c))
		return 0x101;
	wr->ah.dlid = e.nb->lid;
	wr->ah.dqpn = e.b.qpn;
	wr->sg[0] = (struct drv_sge){ .addr = e.src.va, .len = 3000, .lkey = e.src.key };
	wr->nsg = 1;
	ipoib_recvs(&e, &e.b, 4, 4096);
	if (drv_post_send(e.na, ipoib ? &e.a : &plain, wr) < 0 || drv_pump(&e.w) <= 0)
		return 0x102;
	if (drv_poll(e.nb, e.w.cq[1], &cqe) != 0)	/* nothing went out */
		return 0x103;
	if (drv_poll(e.na, e.w.cq[0], &cqe) != 1 ||
	    CXIB_GET(&cqe, CXIB_CQE_OPCODE) != CXIB_CQE_OPCODE_REQ_ERR)
		return 0x104;
	return CXIB_GET(&cqe, CXIB_CQE_ERR_SYNDROME);
}

TEST(ipoib_bad_lso_wqes_complete_in_error)
{
	uint8_t hdr[128];
	struct drv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = CXIB_WQE_OPCODE_LSO;
	wr.signaled = true;
	wr.ah.qkey = DRV_DEFAULT_QKEY;
	wr.hdr = hdr;
	wr.hlen = mk_tcp4(hdr, 0, CXIB_TCP_ACK);
	wr.mss = 1000;
	/* LSO on a UD QP without the offload mode: not an opcode it knows */
	CHECK_EQ(lso_error(t, &wr, false), CXIB_CQE_SYND_LOCAL_QP_OP_ERR);
	/* headers + MSS beyond the path MTU */
	wr.mss = 4096;
	CHECK_EQ(lso_error(t, &wr, true), CXIB_CQE_SYND_LOCAL_LENGTH_ERR);
	wr.mss = 0;
	CHECK_EQ(lso_error(t, &wr, true), CXIB_CQE_SYND_LOCAL_LENGTH_ERR);
	/* headers that are not IPoIB + IP + TCP */
	wr.mss = 1000;
	wr.hlen = mk_udp6(hdr, 0);
	CHECK_EQ(lso_error(t, &wr, true), CXIB_CQE_SYND_LOCAL_QP_OP_ERR);
	wr.hlen = mk_tcp4(hdr, 0, CXIB_TCP_ACK) - 2;	/* TCP header cut short */
	CHECK_EQ(lso_error(t, &wr, true), CXIB_CQE_SYND_LOCAL_QP_OP_ERR);
}

/*
 * log_msg_max (drv.c, as mlx5_ib: 12 for UD) bounds each packet of an LSO, not the payload
 * it cuts up: 30000 bytes go as 22 segments.
 */
TEST(ipoib_lso_payload_may_exceed_the_qps_message_limit)
{
	uint32_t total = 30000, mss = 1400, nseg = (total + mss - 1) / mss, k, got = 0;
	uint8_t hdr[64], seg[2048], *pay = malloc(total);
	struct cxib_cqe64 cqe;
	struct drv_mr big, sink;
	struct ipoib_env e;
	struct drv_wr wr;
	uint32_t hlen, i;

	CHECK(pay != NULL);
	CHECK_EQ(ipoib_env(t, &e), 0);
	CHECK_EQ(drv_mr_alloc(e.na, total, DRV_LR, &big), 0);
	CHECK_EQ(drv_mr_alloc(e.nb, nseg * 2048, DRV_LR | DRV_LW, &sink), 0);
	for (i = 0; i < total; i++)
		pay[i] = (uint8_t)(i ^ (i >> 8));
	drv_mem_write(e.na, big.pa, pay, total);
	for (k = 0; k < nseg; k++) {
		struct drv_sge r = { .addr = sink.va + k * 2048, .len = 2048, .lkey = sink.key };

		CHECK_EQ(drv_post_recv(e.nb, &e.b, &r, 1), (int)k);
	}
	hlen = mk_tcp4(hdr, 0, CXIB_TCP_ACK);
	wr = ipoib_wr(&e, &e.b, CXIB_WQE_OPCODE_LSO);
	wr.mss = (uint16_t)mss;
	wr.hdr = hdr;
	wr.hlen = hlen;
	wr.sg[wr.nsg++] = (struct drv_sge){ .addr = big.va, .len = total, .lkey = big.key };
	CHECK(drv_post_send(e.na, &e.a, &wr) >= 0);
	CHECK(drv_pump(&e.w) > 0);
	CHECK_EQ(drv_poll(e.na, e.w.cq[0], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_REQ);
	for (k = 0; k < nseg; k++) {
		uint32_t n = total - k * mss < mss ? total - k * mss : mss;

		CHECK_EQ(drv_poll(e.nb, e.w.cq[1], &cqe), 1);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), DRV_GRH_LEN + hlen + n);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_HDS_IP_EXT), CXIB_CQE_L3_L4_OK);
		drv_mem_read(e.nb, sink.pa + k * 2048 + DRV_GRH_LEN, seg, hlen + n);
		CHECK_EQ(get32(seg + 24 + CXIB_TCP_SEQ), 0x89abcdefu + k * mss);
		CHECK(!memcmp(seg + hlen, pay + k * mss, n));
		got += n;
	}
	CHECK_EQ(got, total);
	free(pay);
}
