/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the packet headers the IPoIB UD offloads look at.
 *
 * A UD QP created with ulp_stateless_offload_mode IPOIB_UD (verbs.h) carries IPoIB: each
 * message starts with the 4-byte IPoIB encapsulation header (RFC 4391 section 6: EtherType
 * and two reserved bytes), then an IPv4 (RFC 791) or IPv6 (RFC 8200) packet.  The device
 * fills in the IPv4 header checksum and the TCP (RFC 9293) / UDP (RFC 768) checksum of a
 * send WQE that asks for it (CXIB_WQE_ETH_L3_CSUM / _L4_CSUM), cuts an LSO WQE's payload
 * into MSS-sized TCP segments, and on receive checks those checksums (CXIB_CQE_L3_OK /
 * _L4_OK).  These are the byte offsets and values it uses, each relative to the start of
 * its header; multi-byte fields are big-endian (network order) and need not be aligned.
 */
#ifndef _CXIB_IPOIB_H
#define _CXIB_IPOIB_H

/* IPoIB encapsulation header */
#define CXIB_IPOIB_ENCAP_LEN			4
#define CXIB_IPOIB_ETHERTYPE			0	/* 2 bytes */

#define CXIB_ETHERTYPE_IPV4			0x0800
#define CXIB_ETHERTYPE_IPV6			0x86dd

/* Header lengths are counted in 32-bit words */
#define CXIB_IP_WORD				4

/* IPv4 header (20..60 bytes) */
#define CXIB_IPV4_MIN_HLEN			20
#define CXIB_IPV4_MAX_HLEN			60
#define CXIB_IPV4_VER_IHL			0	/* version << 4 | IHL (32-bit words) */
#define CXIB_IPV4_VERSION			4
#define CXIB_IP_VERSION(b)			((b) >> 4)	/* of byte 0, IPv4 and IPv6 */
#define CXIB_IPV4_IHL(b)			((b) & 0xf)	/* of byte 0 */
#define CXIB_IPV4_TOT_LEN			2	/* 2 bytes: header + payload */
#define CXIB_IPV4_ID				4	/* 2 bytes */
#define CXIB_IPV4_FRAG_OFF			6	/* 2 bytes: flags and fragment offset */
#define CXIB_IPV4_FRAG_MF			0x2000	/* more fragments */
#define CXIB_IPV4_FRAG_OFFSET_MASK		0x1fff
#define CXIB_IPV4_PROTOCOL			9
#define CXIB_IPV4_CHECK				10	/* 2 bytes */
#define CXIB_IPV4_SADDR				12	/* 4 bytes, then the destination */
#define CXIB_IPV4_ADDRS_LEN			8

/* IPv6 header (40 bytes; extension headers are not parsed by the offloads) */
#define CXIB_IPV6_HLEN				40
#define CXIB_IPV6_VERSION			6	/* high nibble of byte 0 */
#define CXIB_IPV6_PAYLOAD_LEN			4	/* 2 bytes */
#define CXIB_IPV6_NEXTHDR			6
#define CXIB_IPV6_SADDR				8	/* 16 bytes, then the destination */
#define CXIB_IPV6_ADDRS_LEN			32

/* IP protocol / next header numbers */
#define CXIB_IPPROTO_TCP			6
#define CXIB_IPPROTO_UDP			17

/* TCP header (20..60 bytes) */
#define CXIB_TCP_MIN_HLEN			20
#define CXIB_TCP_MAX_HLEN			60
#define CXIB_TCP_SEQ				4	/* 4 bytes */
#define CXIB_TCP_DOFF				12	/* data offset (32-bit words) << 4 */
#define CXIB_TCP_DOFF_WORDS(b)			((b) >> 4)
#define CXIB_TCP_FLAGS				13
#define CXIB_TCP_CHECK				16	/* 2 bytes */

/* TCP flags */
#define CXIB_TCP_FIN				0x01
#define CXIB_TCP_PSH				0x08
#define CXIB_TCP_ACK				0x10
#define CXIB_TCP_CWR				0x80

/* UDP header */
#define CXIB_UDP_HLEN				8
#define CXIB_UDP_CHECK				6	/* 2 bytes; 0 in IPv4: none */

/* The longest LSO header: IPoIB + IPv4 + TCP, each at its longest (IPv6 + TCP is shorter) */
#define CXIB_IPOIB_LSO_MAX_HDR			(CXIB_IPOIB_ENCAP_LEN + CXIB_IPV4_MAX_HLEN + \
						 CXIB_TCP_MAX_HLEN)

#endif /* _CXIB_IPOIB_H */
