// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw: IPoIB UD stateless offloads, the part of a ConnectX that mlx5_ib advertises as
 * IB_DEVICE_UD_IP_CSUM and IBK_UD_TSO when the HCA capability ipoib_basic_offloads is set
 * (drivers/infiniband/hw/mlx5/main.c, mlx5_ib_query_device()).
 *
 * The message of such a QP is IPoIB: the 4-byte encapsulation header, then IPv4 or IPv6
 * (include/cxib/ipoib.h).  Checksums are the Internet checksum (RFC 1071), the TCP / UDP one
 * over the pseudo-header of RFC 9293 section 3.1 / RFC 8200 section 8.1.  What the device
 * computes it computes from scratch: whatever the checksum fields held is overwritten, so
 * a sender may leave them zero or put the pseudo-header sum there (Linux does the latter).
 */

#include <string.h>

#include <cxib/ipoib.h>
#include <cxib/wqe.h>

#include "ipoib.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* Ones' complement sum of @n bytes as big-endian 16-bit words (odd tail padded). */
static uint64_t csum_add(uint64_t sum, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The sum of the TCP / UDP pseudo-header of @h for an L4 length of @l4_len. */
static uint64_t csum_pseudo(const uint8_t *pkt, const struct cxfw_ipoib_hdrs *h,
			    uint32_t l4_len)
{
	uint64_t sum;

	if (h->v4) {
		sum = csum_add(0, pkt + h->l3 + CXIB_IPV4_SADDR, CXIB_IPV4_ADDRS_LEN);
		return sum + h->proto + l4_len;
	}
	sum = csum_add(0, pkt + h->l3 + CXIB_IPV6_SADDR, CXIB_IPV6_ADDRS_LEN);
	return sum + (l4_len >> 16) + (l4_len & 0xffff) + h->proto;
}

bool cxfw_ipoib_parse(const uint8_t *pkt, uint32_t len, bool headers_only,
		      struct cxfw_ipoib_hdrs *h)
{
	uint32_t l3 = CXIB_IPOIB_ENCAP_LEN, ip_len;
	uint16_t type;

	memset(h, 0, sizeof(*h));
	if (len < l3 + 1)
		return false;
	type = get16(pkt + CXIB_IPOIB_ETHERTYPE);
	h->l3 = l3;
	if (type == CXIB_ETHERTYPE_IPV4) {
		uint8_t vihl = pkt[l3 + CXIB_IPV4_VER_IHL];
		uint16_t frag;

		h->v4 = true;
		h->l3_len = (uint32_t)CXIB_IPV4_IHL(vihl) * CXIB_IP_WORD;
		if (CXIB_IP_VERSION(vihl) != CXIB_IPV4_VERSION || h->l3_len < CXIB_IPV4_MIN_HLEN ||
		    l3 + h->l3_len > len)
			return false;
		ip_len = get16(pkt + l3 + CXIB_IPV4_TOT_LEN);
		if (!headers_only && (ip_len < h->l3_len || l3 + ip_len > len))
			return false;
		frag = get16(pkt + l3 + CXIB_IPV4_FRAG_OFF);
		h->proto = pkt[l3 + CXIB_IPV4_PROTOCOL];
		h->l4_len = ip_len > h->l3_len ? ip_len - h->l3_len : 0;
		if (frag & (CXIB_IPV4_FRAG_MF | CXIB_IPV4_FRAG_OFFSET_MASK))
			h->proto = 0;	/* a fragment: its L4 checksum covers other packets */
	} else if (type == CXIB_ETHERTYPE_IPV6) {
		h->l3_len = CXIB_IPV6_HLEN;
		if (l3 + h->l3_len > len || CXIB_IP_VERSION(pkt[l3]) != CXIB_IPV6_VERSION)
			return false;
		h->l4_len = get16(pkt + l3 + CXIB_IPV6_PAYLOAD_LEN);
		if (!headers_only && l3 + h->l3_len + h->l4_len > len)
			return false;
		h->proto = pkt[l3 + CXIB_IPV6_NEXTHDR];
	} else {
		return false;
	}
	h->l4 = l3 + h->l3_len;
	if (h->proto == CXIB_IPPROTO_TCP) {
		if (h->l4 + CXIB_TCP_MIN_HLEN > len)
			return false;
		h->l4_hlen = (uint32_t)CXIB_TCP_DOFF_WORDS(pkt[h->l4 + CXIB_TCP_DOFF]) * CXIB_IP_WORD;
		if (h->l4_hlen < CXIB_TCP_MIN_HLEN || h->l4 + h->l4_hlen > len)
			return false;
	} else if (h->proto == CXIB_IPPROTO_UDP) {
		h->l4_hlen = CXIB_UDP_HLEN;
		if (h->l4 + h->l4_hlen > len)
			return false;
	} else {
		h->proto = 0;
	}
	if (headers_only)
		return h->proto == CXIB_IPPROTO_TCP && h->l4 + h->l4_hlen == len;
	if (h->proto && h->l4_len < h->l4_hlen)
		return false;
	return true;
}

static void ipv4_csum(uint8_t *pkt, const struct cxfw_ipoib_hdrs *h)
{
	put16(pkt + h->l3 + CXIB_IPV4_CHECK, 0);
	put16(pkt + h->l3 + CXIB_IPV4_CHECK,
	      (uint16_t)~csum_fold(csum_add(0, pkt + h->l3, h->l3_len)));
}

static void l4_csum(uint8_t *pkt, const struct cxfw_ipoib_hdrs *h, uint32_t l4_len)
{
	uint32_t at = h->l4 + (h->proto == CXIB_IPPROTO_TCP ? CXIB_TCP_CHECK : CXIB_UDP_CHECK);
	uint16_t c;

	put16(pkt + at, 0);
	c = (uint16_t)~csum_fold(csum_add(csum_pseudo(pkt, h, l4_len), pkt + h->l4, l4_len));
	if (h->proto == CXIB_IPPROTO_UDP && !c)
		c = 0xffff;	/* 0 would mean "no checksum" */
	put16(pkt + at, c);
}

void cxfw_ipoib_tx_csum(uint8_t *pkt, uint32_t len, uint8_t cs_flags)
{
	struct cxfw_ipoib_hdrs h;

	if (!(cs_flags & (CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM)) ||
	    !cxfw_ipoib_parse(pkt, len, false, &h))
		return;
	if ((cs_flags & CXIB_WQE_ETH_L3_CSUM) && h.v4)
		ipv4_csum(pkt, &h);
	if ((cs_flags & CXIB_WQE_ETH_L4_CSUM) && h.proto)
		l4_csum(pkt, &h, h.l4_len);
}

void cxfw_ipoib_lso_fixup(uint8_t *pkt, const struct cxfw_ipoib_hdrs *h, uint32_t seg,
			  uint32_t mss, uint32_t paylen, bool last)
{
	uint32_t l4_len = h->l4_hlen + paylen;
	uint8_t *tcp = pkt + h->l4;
	uint8_t clear = 0;

	if (h->v4) {
		uint8_t *ip = pkt + h->l3;

		put16(ip + CXIB_IPV4_TOT_LEN, (uint16_t)(h->l3_len + l4_len));
		put16(ip + CXIB_IPV4_ID, (uint16_t)(get16(ip + CXIB_IPV4_ID) + seg));
		ipv4_csum(pkt, h);
	} else {
		put16(pkt + h->l3 + CXIB_IPV6_PAYLOAD_LEN, (uint16_t)l4_len);
	}
	put32(tcp + CXIB_TCP_SEQ, get32(tcp + CXIB_TCP_SEQ) + seg * mss);
	if (!last)
		clear |= CXIB_TCP_FIN | CXIB_TCP_PSH;
	if (seg)
		clear |= CXIB_TCP_CWR;
	tcp[CXIB_TCP_FLAGS] &= (uint8_t)~clear;
	l4_csum(pkt, h, l4_len);
}

void cxfw_ipoib_rx_check(const uint8_t *pkt, uint32_t len, struct cxfw_ipoib_rx *rx)
{
	struct cxfw_ipoib_hdrs h;
	uint32_t at;

	memset(rx, 0, sizeof(*rx));
	if (!cxfw_ipoib_parse(pkt, len, false, &h))
		return;
	rx->l3_type = h.v4 ? CXIB_CQE_L3_HDR_TYPE_IPV4 : CXIB_CQE_L3_HDR_TYPE_IPV6;
	if (!h.v4 || csum_fold(csum_add(0, pkt + h.l3, h.l3_len)) == 0xffff)
		rx->hds_ip_ext |= CXIB_CQE_L3_OK;
	if (!h.proto)
		return;
	if (h.proto == CXIB_IPPROTO_UDP) {
		rx->l4_type = CXIB_CQE_L4_HDR_TYPE_UDP;
		at = h.l4 + CXIB_UDP_CHECK;
		if (h.v4 && !get16(pkt + at)) {		/* sent without a checksum */
			rx->hds_ip_ext |= CXIB_CQE_L4_OK;
			return;
		}
	} else {
		bool ack = pkt[h.l4 + CXIB_TCP_FLAGS] & CXIB_TCP_ACK;

		rx->l4_type = !ack ? CXIB_CQE_L4_HDR_TYPE_TCP_NO_ACK :
			      h.l4_len > h.l4_hlen ? CXIB_CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA :
			      CXIB_CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA;
	}
	if (csum_fold(csum_add(csum_pseudo(pkt, &h, h.l4_len), pkt + h.l4, h.l4_len)) ==
	    0xffff)
		rx->hds_ip_ext |= CXIB_CQE_L4_OK;
}
