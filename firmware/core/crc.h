/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw packet CRCs (crc.c), reflected and table driven, with carry-less-multiply folding of
 * long buffers where the CPU has it.  Pure functions of the bytes: callable from any thread.
 */
#ifndef CXFW_CRC_H
#define CXFW_CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * ICRC / VCRC over a wire-format packet (for wire.c; exposed for the tests and the bench).
 * cxfw_icrc() covers the first @len bytes (LRH through the last pad byte), masking the
 * variant fields the LNH in the LRH calls for (IBTA vol 1 ch. 7); cxfw_vcrc() covers @len
 * bytes as they are (LRH through ICRC, 1.9).  Both values go on the wire
 * least-significant byte first.
 */
uint32_t cxfw_icrc(const void *pkt, size_t len);
uint16_t cxfw_vcrc(const void *pkt, size_t len);

#endif /* CXFW_CRC_H */
