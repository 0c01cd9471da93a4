/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the Performance Management class (management class 0x04) the
 * device's performance management agent answers behind MAD_IFC (IBTA vol 1 ch. 16.1
 * "Performance Management"; the common MAD header and ClassPortInfo, ch. 13.4; upstream
 * include/rdma/ib_pma.h and infiniband-diags/perfquery.c use the same layouts).
 *
 *   CXIB_PMA_<ATTR>_<FIELD>       attribute fields, relative to the PMA data (MAD byte
 *                                 CXIB_PMA_DATA_OFFSET: the 24-byte MAD header, then 40
 *                                 reserved bytes)
 *   CXIB_PMA_ATTR_*               attribute IDs
 *   CXIB_PMA_CAP_*, CXIB_PMA_CAP2_*        ClassPortInfo CapabilityMask / CapabilityMask2
 *   CXIB_PMA_PC_SEL_*, CXIB_PMA_PCE_SEL_*  CounterSelect bits
 *
 * The common header (class, method, status, TID, attribute) is mad.h's CXIB_MAD_*.  64-bit
 * fields are "dword, 63, 0": use CXIB_GET64 / CXIB_SET64.
 */
#ifndef _CXIB_PMA_H
#define _CXIB_PMA_H

#include "bits.h"

#define CXIB_PMA_CLASS_VERSION			1
#define CXIB_PMA_DATA_OFFSET			64
#define CXIB_PMA_DATA_SIZE			192	/* up to the end of the 256-byte MAD */

/* PortSelect 0xff: every port of the node (only with CXIB_PMA_CAP_ALL_PORT_SELECT). */
#define CXIB_PMA_PORT_SELECT_ALL		0xff

/* Attribute IDs. */
enum {
	CXIB_PMA_ATTR_CLASS_PORT_INFO		= 0x0001,
	CXIB_PMA_ATTR_PORT_SAMPLES_CONTROL	= 0x0010,
	CXIB_PMA_ATTR_PORT_SAMPLES_RESULT	= 0x0011,
	CXIB_PMA_ATTR_PORT_COUNTERS		= 0x0012,
	CXIB_PMA_ATTR_PORT_COUNTERS_EXT		= 0x001d,
	CXIB_PMA_ATTR_PORT_SAMPLES_RESULT_EXT	= 0x001e,
};

/* ---- ClassPortInfo (0x0001), 72 bytes ------------------------------------------------- */

#define CXIB_PMA_CPI_BASE_VERSION		0, 31, 24
#define CXIB_PMA_CPI_CLASS_VERSION		0, 23, 16
#define CXIB_PMA_CPI_CAPABILITY_MASK		0, 15, 0
#define CXIB_PMA_CPI_CAPABILITY_MASK2		1, 31, 5
#define CXIB_PMA_CPI_RESP_TIME_VALUE		1, 4, 0
#define CXIB_PMA_CPI_REDIRECT_GID_HI		2, 63, 0	/* bytes 8-15 */
#define CXIB_PMA_CPI_REDIRECT_GID_LO		4, 63, 0	/* bytes 16-23 */
#define CXIB_PMA_CPI_REDIRECT_TC		6, 31, 24
#define CXIB_PMA_CPI_REDIRECT_SL		6, 23, 20
#define CXIB_PMA_CPI_REDIRECT_FL		6, 19, 0
#define CXIB_PMA_CPI_REDIRECT_LID		7, 31, 16
#define CXIB_PMA_CPI_REDIRECT_PKEY		7, 15, 0
#define CXIB_PMA_CPI_REDIRECT_QP		8, 23, 0
#define CXIB_PMA_CPI_REDIRECT_QKEY		9, 31, 0
#define CXIB_PMA_CPI_TRAP_GID_HI		10, 63, 0	/* bytes 40-47 */
#define CXIB_PMA_CPI_TRAP_GID_LO		12, 63, 0	/* bytes 48-55 */
#define CXIB_PMA_CPI_TRAP_TC			14, 31, 24
#define CXIB_PMA_CPI_TRAP_SL			14, 23, 20
#define CXIB_PMA_CPI_TRAP_FL			14, 19, 0
#define CXIB_PMA_CPI_TRAP_LID			15, 31, 16
#define CXIB_PMA_CPI_TRAP_PKEY			15, 15, 0
#define CXIB_PMA_CPI_TRAP_HOP_LIMIT		16, 31, 24
#define CXIB_PMA_CPI_TRAP_QP			16, 23, 0
#define CXIB_PMA_CPI_TRAP_QKEY			17, 31, 0
#define CXIB_PMA_CPI_LEN			72

/* CapabilityMask: the PerfMgt class bits (bits 0-7 are the generic class bits). */
#define CXIB_PMA_CAP_ALL_PORT_SELECT		(1u << 8)
#define CXIB_PMA_CAP_EXT_WIDTH			(1u << 9)	/* IsExtendedWidthSupported */
#define CXIB_PMA_CAP_EXT_WIDTH_NOIETF		(1u << 10)	/* ... without Uni/Multicast */
#define CXIB_PMA_CAP_SAMPLES_ONLY		(1u << 11)
#define CXIB_PMA_CAP_XMIT_WAIT			(1u << 12)	/* PortXmitWait is counted */
#define CXIB_PMA_CAP_INH_LMTD_PKEY_MC_CONSTR	(1u << 13)
#define CXIB_PMA_CAP_RSFEC_COUNTERS		(1u << 14)
#define CXIB_PMA_CAP_QP1_DROPPED		(1u << 15)	/* QP1Dropped is counted */

/* CapabilityMask2. */
#define CXIB_PMA_CAP2_PM_KEY			(1u << 0)
#define CXIB_PMA_CAP2_ADDL_PORT_COUNTERS_EXT	(1u << 1)	/* 64-bit error counters */

/* ---- PortCounters (0x0012), 44 bytes -------------------------------------------------- */

#define CXIB_PMA_PC_PORT_SELECT			0, 23, 16
#define CXIB_PMA_PC_COUNTER_SELECT		0, 15, 0
#define CXIB_PMA_PC_SYMBOL_ERRORS		1, 31, 16
#define CXIB_PMA_PC_LINK_ERROR_RECOVERY		1, 15, 8
#define CXIB_PMA_PC_LINK_DOWNED			1, 7, 0
#define CXIB_PMA_PC_RCV_ERRORS			2, 31, 16
#define CXIB_PMA_PC_RCV_REMOTE_PHYS_ERRORS	2, 15, 0
#define CXIB_PMA_PC_RCV_SWITCH_RELAY_ERRORS	3, 31, 16
#define CXIB_PMA_PC_XMIT_DISCARDS		3, 15, 0
#define CXIB_PMA_PC_XMIT_CONSTRAINT_ERRORS	4, 31, 24
#define CXIB_PMA_PC_RCV_CONSTRAINT_ERRORS	4, 23, 16
#define CXIB_PMA_PC_COUNTER_SELECT2		4, 15, 8
#define CXIB_PMA_PC_LOCAL_LINK_INTEGRITY_ERRORS	4, 7, 4
#define CXIB_PMA_PC_EXCESSIVE_BUFFER_OVERRUNS	4, 3, 0
#define CXIB_PMA_PC_QP1_DROPPED			5, 31, 16
#define CXIB_PMA_PC_VL15_DROPPED		5, 15, 0
#define CXIB_PMA_PC_XMIT_DATA			6, 31, 0	/* 4-octet units */
#define CXIB_PMA_PC_RCV_DATA			7, 31, 0	/* 4-octet units */
#define CXIB_PMA_PC_XMIT_PKTS			8, 31, 0
#define CXIB_PMA_PC_RCV_PKTS			9, 31, 0
#define CXIB_PMA_PC_XMIT_WAIT			10, 31, 0
#define CXIB_PMA_PC_LEN				44

/* PortXmitData / PortRcvData count octets divided by this. */
#define CXIB_PMA_DATA_UNIT			4

/* PortCounters CounterSelect (Set: the counters to reset). */
#define CXIB_PMA_PC_SEL_SYMBOL_ERRORS		(1u << 0)
#define CXIB_PMA_PC_SEL_LINK_ERROR_RECOVERY	(1u << 1)
#define CXIB_PMA_PC_SEL_LINK_DOWNED		(1u << 2)
#define CXIB_PMA_PC_SEL_RCV_ERRORS		(1u << 3)
#define CXIB_PMA_PC_SEL_RCV_REMOTE_PHYS_ERRORS	(1u << 4)
#define CXIB_PMA_PC_SEL_RCV_SWITCH_RELAY_ERRORS	(1u << 5)
#define CXIB_PMA_PC_SEL_XMIT_DISCARDS		(1u << 6)
#define CXIB_PMA_PC_SEL_XMIT_CONSTRAINT_ERRORS	(1u << 7)
#define CXIB_PMA_PC_SEL_RCV_CONSTRAINT_ERRORS	(1u << 8)
#define CXIB_PMA_PC_SEL_LOCAL_LINK_INTEGRITY	(1u << 9)
#define CXIB_PMA_PC_SEL_EXCESSIVE_BUFFER_OVERRUNS	(1u << 10)
#define CXIB_PMA_PC_SEL_VL15_DROPPED		(1u << 11)
#define CXIB_PMA_PC_SEL_XMIT_DATA		(1u << 12)
#define CXIB_PMA_PC_SEL_RCV_DATA		(1u << 13)
#define CXIB_PMA_PC_SEL_XMIT_PKTS		(1u << 14)
#define CXIB_PMA_PC_SEL_RCV_PKTS		(1u << 15)

/* PortCounters CounterSelect2. */
#define CXIB_PMA_PC_SEL2_XMIT_WAIT		(1u << 0)
#define CXIB_PMA_PC_SEL2_QP1_DROPPED		(1u << 1)

/* ---- PortCountersExtended (0x001D), 184 bytes ----------------------------------------- */

#define CXIB_PMA_PCE_PORT_SELECT		0, 23, 16
#define CXIB_PMA_PCE_COUNTER_SELECT		0, 15, 0
#define CXIB_PMA_PCE_COUNTER_SELECT2		1, 31, 0
#define CXIB_PMA_PCE_XMIT_DATA			2, 63, 0	/* 4-octet units */
#define CXIB_PMA_PCE_RCV_DATA			4, 63, 0	/* 4-octet units */
#define CXIB_PMA_PCE_XMIT_PKTS			6, 63, 0
#define CXIB_PMA_PCE_RCV_PKTS			8, 63, 0
#define CXIB_PMA_PCE_UCAST_XMIT_PKTS		10, 63, 0
#define CXIB_PMA_PCE_UCAST_RCV_PKTS		12, 63, 0
#define CXIB_PMA_PCE_MCAST_XMIT_PKTS		14, 63, 0
#define CXIB_PMA_PCE_MCAST_RCV_PKTS		16, 63, 0
#define CXIB_PMA_PCE_BASE_LEN			72	/* without the counters below */
/* 64-bit error counters, valid only with CXIB_PMA_CAP2_ADDL_PORT_COUNTERS_EXT */
#define CXIB_PMA_PCE_SYMBOL_ERRORS		18, 63, 0	/* byte 72 */
#define CXIB_PMA_PCE_LINK_ERROR_RECOVERY	20, 63, 0
#define CXIB_PMA_PCE_LINK_DOWNED		22, 63, 0
#define CXIB_PMA_PCE_RCV_ERRORS			24, 63, 0
#define CXIB_PMA_PCE_RCV_REMOTE_PHYS_ERRORS	26, 63, 0
#define CXIB_PMA_PCE_RCV_SWITCH_RELAY_ERRORS	28, 63, 0
#define CXIB_PMA_PCE_XMIT_DISCARDS		30, 63, 0
#define CXIB_PMA_PCE_XMIT_CONSTRAINT_ERRORS	32, 63, 0
#define CXIB_PMA_PCE_RCV_CONSTRAINT_ERRORS	34, 63, 0
#define CXIB_PMA_PCE_LOCAL_LINK_INTEGRITY_ERRORS	36, 63, 0
#define CXIB_PMA_PCE_EXCESSIVE_BUFFER_OVERRUNS	38, 63, 0
#define CXIB_PMA_PCE_VL15_DROPPED		40, 63, 0
#define CXIB_PMA_PCE_XMIT_WAIT			42, 63, 0
#define CXIB_PMA_PCE_QP1_DROPPED		44, 63, 0	/* bytes 176-183 */
#define CXIB_PMA_PCE_LEN			184

/* PortCountersExtended CounterSelect (Set: the counters to reset). */
#define CXIB_PMA_PCE_SEL_XMIT_DATA		(1u << 0)
#define CXIB_PMA_PCE_SEL_RCV_DATA		(1u << 1)
#define CXIB_PMA_PCE_SEL_XMIT_PKTS		(1u << 2)
#define CXIB_PMA_PCE_SEL_RCV_PKTS		(1u << 3)
#define CXIB_PMA_PCE_SEL_UCAST_XMIT_PKTS	(1u << 4)
#define CXIB_PMA_PCE_SEL_UCAST_RCV_PKTS		(1u << 5)
#define CXIB_PMA_PCE_SEL_MCAST_XMIT_PKTS	(1u << 6)
#define CXIB_PMA_PCE_SEL_MCAST_RCV_PKTS		(1u << 7)

#endif /* _CXIB_PMA_H */
