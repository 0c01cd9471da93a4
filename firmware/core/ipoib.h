/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw: the IPoIB UD offloads (ipoib.c) -- checksums on send, LSO segmentation, checksum
 * checks on receive -- for UD QPs created with ulp_stateless_offload_mode IPOIB_UD.  Pure
 * functions of packet bytes: the send engine (req.c) and the responder (resp.c) call them.
 */
#ifndef CXFW_IPOIB_H
#define CXFW_IPOIB_H

#include <stdbool.h>
#include <stdint.h>

/* Where the IP and TCP/UDP headers of an IPoIB message are (cxfw_ipoib_parse()). */
struct cxfw_ipoib_hdrs {
	bool v4;		/* IPv4, else IPv6 */
	uint8_t proto;		/* CXIB_IPPROTO_TCP / _UDP; 0: no L4 the offloads handle */
	uint32_t l3;		/* offset of the IP header */
	uint32_t l3_len;	/* its length */
	uint32_t l4;		/* offset of the TCP / UDP header */
	uint32_t l4_hlen;	/* TCP / UDP header length */
	uint32_t l4_len;	/* TCP / UDP header + payload, as the IP header says */
};

/*
 * Find the headers of the IPoIB message @pkt (@len bytes).  With @headers_only, @pkt holds
 * only an LSO WQE's headers: the IP lengths are not checked against @len, and the message
 * must be exactly IPoIB + IP + TCP headers.  Returns false for anything else (not IP, a
 * truncated or malformed header); then no offload applies.
 */
bool cxfw_ipoib_parse(const uint8_t *pkt, uint32_t len, bool headers_only,
		      struct cxfw_ipoib_hdrs *h);

/*
 * Fill in the checksums of the IPoIB message @pkt (@len bytes) that @cs_flags asks for
 * (CXIB_WQE_ETH_L3_CSUM: IPv4 header; CXIB_WQE_ETH_L4_CSUM: TCP / UDP, not for a
 * fragment).  A message the offloads cannot parse goes as it is.
 */
void cxfw_ipoib_tx_csum(uint8_t *pkt, uint32_t len, uint8_t cs_flags);

/*
 * Turn the copy of an LSO WQE's headers at the start of @pkt (parsed into @h) into the
 * headers of segment @seg, which carries @paylen payload bytes at payload offset
 * @seg * @mss and is the last one if @last: IP lengths, IPv4 ID + @seg, TCP sequence
 * + offset, FIN and PSH only on the last segment, CWR only on the first; then both
 * checksums over the whole segment (@h->l4 + @h->l4_hlen + @paylen bytes at @pkt).
 */
void cxfw_ipoib_lso_fixup(uint8_t *pkt, const struct cxfw_ipoib_hdrs *h, uint32_t seg,
			  uint32_t mss, uint32_t paylen, bool last);

/* Result of checking a received IPoIB message: CQE hds_ip_ext and header types. */
struct cxfw_ipoib_rx {
	uint8_t hds_ip_ext;	/* CXIB_CQE_L3_OK | CXIB_CQE_L4_OK */
	uint8_t l3_type;	/* CXIB_CQE_L3_HDR_TYPE_* */
	uint8_t l4_type;	/* CXIB_CQE_L4_HDR_TYPE_* */
};

/* Check the checksums of the received IPoIB message @pkt (@len bytes) into @rx. */
void cxfw_ipoib_rx_check(const uint8_t *pkt, uint32_t len, struct cxfw_ipoib_rx *rx);

#endif /* CXFW_IPOIB_H */
