/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the InfiniBand management datagrams MAD_IFC carries (IBTA vol 1
 * chapters 13-14).  Everything is big-endian.
 *
 *   CXIB_MAD_<FIELD>              common MAD header, relative to the 256-byte MAD
 *   CXIB_SMP_<FIELD>              subnet management packet fields, relative to the MAD
 *   CXIB_SMP_<ATTR>_<FIELD>       attribute fields, relative to the 64-byte SMP data
 *                                 (MAD byte CXIB_SMP_DATA_OFFSET)
 *   CXIB_MAD_STATUS_*, CXIB_SMP_ATTR_*, CXIB_MGMT_*   codes
 *
 * 64-bit fields (M_Key, GUIDs, GID prefix) are "dword, 63, 0": use CXIB_GET64/CXIB_SET64.
 */
#ifndef _CXIB_MAD_H
#define _CXIB_MAD_H

#include "bits.h"

#define CXIB_MAD_SIZE				256
#define CXIB_SMP_DATA_OFFSET			64
#define CXIB_SMP_DATA_SIZE			64

/* A subnet management packet (LID routed; the DR fields are zero then). */
struct cxib_smp {
	__be32 hdr[6];			/* common MAD header */
	__be64 mkey;
	__be16 dr_slid;
	__be16 dr_dlid;
	__u8 rsvd[28];
	__u8 data[CXIB_SMP_DATA_SIZE];
	__u8 initial_path[64];
	__u8 return_path[64];
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_smp) == CXIB_MAD_SIZE);

/* ---- Common MAD header ------------------------------------------------------------------ */

#define CXIB_MAD_BASE_VERSION			0, 31, 24
#define CXIB_MAD_MGMT_CLASS			0, 23, 16
#define CXIB_MAD_CLASS_VERSION			0, 15, 8
#define CXIB_MAD_METHOD				0, 7, 0		/* bit 7: response */
#define CXIB_MAD_STATUS				1, 31, 16
#define CXIB_MAD_CLASS_SPECIFIC			1, 15, 0
#define CXIB_MAD_TID				2, 63, 0
#define CXIB_MAD_ATTR_ID			4, 31, 16
#define CXIB_MAD_ATTR_MOD			5, 31, 0
#define CXIB_MAD_HDR_LEN			24

/* Directed-route SMP: class specific = hop pointer / hop count; D bit = status bit 15. */
#define CXIB_SMP_HOP_PTR			1, 15, 8
#define CXIB_SMP_HOP_CNT			1, 7, 0
#define CXIB_SMP_MKEY				6, 63, 0
#define CXIB_SMP_DR_SLID			8, 31, 16
#define CXIB_SMP_DR_DLID			8, 15, 0
#define CXIB_SMP_DIRECTION			0x8000		/* in the status field */

#define CXIB_MAD_BASE_VERSION_1			1
#define CXIB_SMP_CLASS_VERSION			1

/* Management classes. */
enum {
	CXIB_MGMT_CLASS_SUBN_LID_ROUTED		= 0x01,
	CXIB_MGMT_CLASS_SUBN_ADM		= 0x03,
	CXIB_MGMT_CLASS_PERF_MGMT		= 0x04,
	CXIB_MGMT_CLASS_CM			= 0x07,
	CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE	= 0x81,
};

/* Methods. */
enum {
	CXIB_MGMT_METHOD_GET			= 0x01,
	CXIB_MGMT_METHOD_SET			= 0x02,
	CXIB_MGMT_METHOD_SEND			= 0x03,
	CXIB_MGMT_METHOD_TRAP			= 0x05,
	CXIB_MGMT_METHOD_REPORT			= 0x06,
	CXIB_MGMT_METHOD_TRAP_REPRESS		= 0x07,
	CXIB_MGMT_METHOD_RESP			= 0x80,
	CXIB_MGMT_METHOD_GET_RESP		= 0x81,
	CXIB_MGMT_METHOD_REPORT_RESP		= 0x86,
};

/* MAD status (without the DR direction bit). */
enum {
	CXIB_MAD_STATUS_SUCCESS			= 0x0000,
	CXIB_MAD_STATUS_BUSY			= 0x0001,
	CXIB_MAD_STATUS_REDIRECT		= 0x0002,
	CXIB_MAD_STATUS_BAD_VERSION		= 0x0004,
	CXIB_MAD_STATUS_UNSUPPORTED_METHOD	= 0x0008,
	CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR	= 0x000c,
	CXIB_MAD_STATUS_INVALID_ATTR_VALUE	= 0x001c,
};

/* SMP attribute IDs. */
enum {
	CXIB_SMP_ATTR_NOTICE			= 0x0002,
	CXIB_SMP_ATTR_NODE_DESC			= 0x0010,
	CXIB_SMP_ATTR_NODE_INFO			= 0x0011,
	CXIB_SMP_ATTR_SWITCH_INFO		= 0x0012,
	CXIB_SMP_ATTR_GUID_INFO			= 0x0014,
	CXIB_SMP_ATTR_PORT_INFO			= 0x0015,
	CXIB_SMP_ATTR_PKEY_TABLE		= 0x0016,
	CXIB_SMP_ATTR_SL_TO_VL_TABLE		= 0x0017,
	CXIB_SMP_ATTR_VL_ARB_TABLE		= 0x0018,
	CXIB_SMP_ATTR_SM_INFO			= 0x0020,
	CXIB_SMP_ATTR_VENDOR_DIAG		= 0x0030,
	CXIB_SMP_ATTR_LED_INFO			= 0x0031,
	CXIB_SMP_ATTR_MLNX_EXT_PORT_INFO	= 0xff90,
};

/* ---- NodeDescription (0x0010): 64-byte NUL padded string ----------------------------- */

#define CXIB_SMP_NODE_DESC_LEN			64

/* ---- NodeInfo (0x0011) ----------------------------------------------------------------- */

#define CXIB_SMP_NODE_INFO_BASE_VERSION		0, 31, 24
#define CXIB_SMP_NODE_INFO_CLASS_VERSION	0, 23, 16
#define CXIB_SMP_NODE_INFO_NODE_TYPE		0, 15, 8
#define CXIB_SMP_NODE_INFO_NUM_PORTS		0, 7, 0
#define CXIB_SMP_NODE_INFO_SYSTEM_IMAGE_GUID	1, 63, 0	/* byte 4 */
#define CXIB_SMP_NODE_INFO_NODE_GUID		3, 63, 0	/* byte 12 */
#define CXIB_SMP_NODE_INFO_PORT_GUID		5, 63, 0	/* byte 20 */
#define CXIB_SMP_NODE_INFO_PARTITION_CAP	7, 31, 16
#define CXIB_SMP_NODE_INFO_DEVICE_ID		7, 15, 0
#define CXIB_SMP_NODE_INFO_REVISION		8, 31, 0
#define CXIB_SMP_NODE_INFO_LOCAL_PORT_NUM	9, 31, 24
#define CXIB_SMP_NODE_INFO_VENDOR_ID		9, 23, 0
#define CXIB_SMP_NODE_INFO_LEN			40

enum {
	CXIB_NODE_TYPE_CA			= 1,
	CXIB_NODE_TYPE_SWITCH			= 2,
	CXIB_NODE_TYPE_ROUTER			= 3,
};

/* ---- GUIDInfo (0x0014): 8 GUIDs per block, attr_mod = block ---------------------------- */

#define CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK	8
#define CXIB_SMP_GUID_INFO_GUID0		0, 63, 0	/* GUID k: dword 2k */

/* ---- PortInfo (0x0015): attr_mod = port number (0: the receiving port) ----------------- */

#define CXIB_SMP_PORT_INFO_MKEY			0, 63, 0
#define CXIB_SMP_PORT_INFO_GID_PREFIX		2, 63, 0
#define CXIB_SMP_PORT_INFO_LID			4, 31, 16
#define CXIB_SMP_PORT_INFO_MASTER_SM_LID	4, 15, 0
#define CXIB_SMP_PORT_INFO_CAPABILITY_MASK	5, 31, 0
#define CXIB_SMP_PORT_INFO_DIAG_CODE		6, 31, 16
#define CXIB_SMP_PORT_INFO_MKEY_LEASE_PERIOD	6, 15, 0
#define CXIB_SMP_PORT_INFO_LOCAL_PORT_NUM	7, 31, 24
#define CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED	7, 23, 16
#define CXIB_SMP_PORT_INFO_LINK_WIDTH_SUPPORTED	7, 15, 8
#define CXIB_SMP_PORT_INFO_LINK_WIDTH_ACTIVE	7, 7, 0
#define CXIB_SMP_PORT_INFO_LINK_SPEED_SUPPORTED	8, 31, 28
#define CXIB_SMP_PORT_INFO_PORT_STATE		8, 27, 24
#define CXIB_SMP_PORT_INFO_PORT_PHYS_STATE	8, 23, 20
#define CXIB_SMP_PORT_INFO_LINK_DOWN_DEFAULT_STATE	8, 19, 16
#define CXIB_SMP_PORT_INFO_MKEY_PROTECT_BITS	8, 15, 14
#define CXIB_SMP_PORT_INFO_LMC			8, 10, 8
#define CXIB_SMP_PORT_INFO_LINK_SPEED_ACTIVE	8, 7, 4
#define CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED	8, 3, 0
#define CXIB_SMP_PORT_INFO_NEIGHBOR_MTU		9, 31, 28
#define CXIB_SMP_PORT_INFO_MASTER_SM_SL		9, 27, 24
#define CXIB_SMP_PORT_INFO_VL_CAP		9, 23, 20
#define CXIB_SMP_PORT_INFO_INIT_TYPE		9, 19, 16
#define CXIB_SMP_PORT_INFO_VL_HIGH_LIMIT	9, 15, 8
#define CXIB_SMP_PORT_INFO_VL_ARB_HIGH_CAP	9, 7, 0
#define CXIB_SMP_PORT_INFO_VL_ARB_LOW_CAP	10, 31, 24
#define CXIB_SMP_PORT_INFO_INIT_TYPE_REPLY	10, 23, 20
#define CXIB_SMP_PORT_INFO_MTU_CAP		10, 19, 16
#define CXIB_SMP_PORT_INFO_VL_STALL_COUNT	10, 15, 13
#define CXIB_SMP_PORT_INFO_HOQ_LIFE		10, 12, 8
#define CXIB_SMP_PORT_INFO_OPERATIONAL_VLS	10, 7, 4
#define CXIB_SMP_PORT_INFO_PARTITION_ENFORCEMENT_INBOUND	10, 3, 3
#define CXIB_SMP_PORT_INFO_PARTITION_ENFORCEMENT_OUTBOUND	10, 2, 2
#define CXIB_SMP_PORT_INFO_FILTER_RAW_INBOUND	10, 1, 1
#define CXIB_SMP_PORT_INFO_FILTER_RAW_OUTBOUND	10, 0, 0
#define CXIB_SMP_PORT_INFO_MKEY_VIOLATIONS	11, 31, 16
#define CXIB_SMP_PORT_INFO_PKEY_VIOLATIONS	11, 15, 0
#define CXIB_SMP_PORT_INFO_QKEY_VIOLATIONS	12, 31, 16
#define CXIB_SMP_PORT_INFO_GUID_CAP		12, 15, 8
#define CXIB_SMP_PORT_INFO_CLIENT_REREGISTER	12, 7, 7
#define CXIB_SMP_PORT_INFO_MCAST_PKEY_TRAP_SUPPRESSION	12, 6, 5
#define CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT	12, 4, 0
#define CXIB_SMP_PORT_INFO_RESP_TIME_VALUE	13, 28, 24
#define CXIB_SMP_PORT_INFO_LOCAL_PHY_ERRORS	13, 23, 20
#define CXIB_SMP_PORT_INFO_OVERRUN_ERRORS	13, 19, 16
#define CXIB_SMP_PORT_INFO_MAX_CREDIT_HINT	13, 15, 0
#define CXIB_SMP_PORT_INFO_LINK_ROUND_TRIP_LATENCY	14, 23, 0
#define CXIB_SMP_PORT_INFO_CAPABILITY_MASK2	15, 31, 16
#define CXIB_SMP_PORT_INFO_LINK_SPEED_EXT_ACTIVE	15, 15, 12
#define CXIB_SMP_PORT_INFO_LINK_SPEED_EXT_SUPPORTED	15, 11, 8
#define CXIB_SMP_PORT_INFO_LINK_SPEED_EXT_ENABLED	15, 4, 0

/* PortInfo attr_mod bit 31: "SM supports extended speeds", not part of the port number. */
#define CXIB_SMP_PORT_INFO_ATTR_MOD_PORT_MASK	0x7fffffff

/* PortState */
enum {
	CXIB_PORT_STATE_NOP			= 0,
	CXIB_PORT_STATE_DOWN			= 1,
	CXIB_PORT_STATE_INIT			= 2,
	CXIB_PORT_STATE_ARMED			= 3,
	CXIB_PORT_STATE_ACTIVE			= 4,
};

/* PortPhysicalState */
enum {
	CXIB_PORT_PHYS_STATE_SLEEP		= 1,
	CXIB_PORT_PHYS_STATE_POLLING		= 2,
	CXIB_PORT_PHYS_STATE_DISABLED		= 3,
	CXIB_PORT_PHYS_STATE_TRAINING		= 4,
	CXIB_PORT_PHYS_STATE_LINK_UP		= 5,
	CXIB_PORT_PHYS_STATE_LINK_ERR_RECOVERY	= 6,
	CXIB_PORT_PHYS_STATE_PHY_TEST		= 7,
};

/* MTU enum (NeighborMTU, MTUCap). */
enum {
	CXIB_IB_MTU_256				= 1,
	CXIB_IB_MTU_512				= 2,
	CXIB_IB_MTU_1024			= 3,
	CXIB_IB_MTU_2048			= 4,
	CXIB_IB_MTU_4096			= 5,
};

/* LinkWidth* bits. */
enum {
	CXIB_IB_WIDTH_1X			= 1,
	CXIB_IB_WIDTH_4X			= 2,
	CXIB_IB_WIDTH_8X			= 4,
	CXIB_IB_WIDTH_12X			= 8,
	CXIB_IB_WIDTH_2X			= 16,
};

/* LinkSpeed* bits (LinkSpeedExt*: 1 FDR, 2 EDR, 4 HDR, 8 NDR). */
enum {
	CXIB_IB_SPEED_SDR			= 1,
	CXIB_IB_SPEED_DDR			= 2,
	CXIB_IB_SPEED_QDR			= 4,
};

enum {
	CXIB_IB_SPEED_EXT_FDR			= 1,
	CXIB_IB_SPEED_EXT_EDR			= 2,
	CXIB_IB_SPEED_EXT_HDR			= 4,
	CXIB_IB_SPEED_EXT_NDR			= 8,
};

/* VLCap */
enum {
	CXIB_IB_VL_CAP_VL0			= 1,
	CXIB_IB_VL_CAP_VL0_1			= 2,
	CXIB_IB_VL_CAP_VL0_3			= 3,
	CXIB_IB_VL_CAP_VL0_7			= 4,
	CXIB_IB_VL_CAP_VL0_14			= 5,
};

/* PortInfo.CapabilityMask bits. */
#define CXIB_PORT_CAP_SM			(1u << 1)
#define CXIB_PORT_CAP_NOTICE			(1u << 2)
#define CXIB_PORT_CAP_TRAP			(1u << 3)
#define CXIB_PORT_CAP_AUTO_MIGR			(1u << 5)
#define CXIB_PORT_CAP_SL_MAP			(1u << 6)
#define CXIB_PORT_CAP_LED_INFO			(1u << 9)
#define CXIB_PORT_CAP_SM_DISABLED		(1u << 10)
#define CXIB_PORT_CAP_SYS_IMAGE_GUID		(1u << 11)
#define CXIB_PORT_CAP_EXTENDED_SPEEDS		(1u << 14)
#define CXIB_PORT_CAP_CAP_MASK2			(1u << 15)
#define CXIB_PORT_CAP_CM			(1u << 16)
#define CXIB_PORT_CAP_SNMP_TUNNEL		(1u << 17)
#define CXIB_PORT_CAP_REINIT			(1u << 18)
#define CXIB_PORT_CAP_DEVICE_MGMT		(1u << 19)
#define CXIB_PORT_CAP_VENDOR_CLASS		(1u << 20)
#define CXIB_PORT_CAP_DR_NOTICE			(1u << 21)
#define CXIB_PORT_CAP_CAP_MASK_NOTICE		(1u << 22)
#define CXIB_PORT_CAP_BOOT_MGMT			(1u << 23)
#define CXIB_PORT_CAP_LINK_LATENCY		(1u << 24)
#define CXIB_PORT_CAP_CLIENT_REG		(1u << 25)

/* LinkWidthEnabled / LinkSpeedEnabled / LinkSpeedExtEnabled values a Set may write. */
#define CXIB_LINK_WIDTH_NOP			0
#define CXIB_LINK_WIDTH_SET_SUPPORTED		255
#define CXIB_LINK_SPEED_NOP			0
#define CXIB_LINK_SPEED_SET_SUPPORTED		15
#define CXIB_LINK_SPEED_EXT_NOP			0
#define CXIB_LINK_SPEED_EXT_SET_SUPPORTED	31

/* ---- P_KeyTable (0x0016): 32 P_Keys per block, attr_mod = block ----------------------- */

#define CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK	32
#define CXIB_SMP_PKEY_TABLE_PKEY0		0, 31, 16	/* P_Key 2k: dw k hi; 2k+1: lo */
#define CXIB_SMP_PKEY_TABLE_PKEY1		0, 15, 0
#define CXIB_PKEY_FULL_MEMBER			0x8000
#define CXIB_PKEY_DEFAULT			0xffff

/* ---- SLtoVLMappingTable (0x0017): 16 x 4-bit VLs, SL 0 in the top nibble ---------------- */

#define CXIB_SMP_SL_TO_VL_ENTRIES		16
#define CXIB_SMP_SL_TO_VL(sl)		\
	((sl) / 8), (31 - 4 * ((sl) % 8)), (28 - 4 * ((sl) % 8))

/*
 * ---- VLArbitrationTable (0x0018): 32 (VL, weight) pairs per block --------------------------
 * attr_mod[31:16] selects the block (CXIB_VL_ARB_BLOCK_*), attr_mod[15:0] the port.
 */
#define CXIB_SMP_VL_ARB_ENTRIES_PER_BLOCK	32
#define CXIB_SMP_VL_ARB_VL(i)		\
	((i) / 2), (27 - 16 * ((i) % 2)), (24 - 16 * ((i) % 2))
#define CXIB_SMP_VL_ARB_WEIGHT(i)	\
	((i) / 2), (23 - 16 * ((i) % 2)), (16 - 16 * ((i) % 2))
#define CXIB_SMP_VL_ARB_ATTR_MOD_BLOCK		0, 31, 16	/* of the attribute modifier */
#define CXIB_SMP_VL_ARB_ATTR_MOD_PORT		0, 15, 0

enum {
	CXIB_VL_ARB_BLOCK_LOW_0_31		= 1,
	CXIB_VL_ARB_BLOCK_LOW_32_63		= 2,
	CXIB_VL_ARB_BLOCK_HIGH_0_31		= 3,
	CXIB_VL_ARB_BLOCK_HIGH_32_63		= 4,
};

/* ---- SMInfo (0x0020): answered by the SM, never by the SMA ------------------------------- */

#define CXIB_SMP_SM_INFO_GUID			0, 63, 0
#define CXIB_SMP_SM_INFO_SM_KEY			2, 63, 0
#define CXIB_SMP_SM_INFO_ACT_COUNT		4, 31, 0
#define CXIB_SMP_SM_INFO_PRIORITY		5, 31, 28
#define CXIB_SMP_SM_INFO_SM_STATE		5, 27, 24

/*
 * ---- Notice (0x0002): a trap the SMA sends to the master SM (IBTA vol 1 14.2.5.1) --------
 * Data details start at byte 10; the layouts below are those of traps 144, 256 and 257/258.
 */
#define CXIB_SMP_NOTICE_IS_GENERIC		0, 31, 31
#define CXIB_SMP_NOTICE_TYPE			0, 30, 24
#define CXIB_SMP_NOTICE_PRODUCER_TYPE		0, 23, 0
#define CXIB_SMP_NOTICE_TRAP_NUMBER		1, 31, 16
#define CXIB_SMP_NOTICE_ISSUER_LID		1, 15, 0
#define CXIB_SMP_NOTICE_TOGGLE			2, 31, 31
#define CXIB_SMP_NOTICE_COUNT			2, 30, 16
/* trap 144: local changes (capability mask) */
#define CXIB_SMP_NOTICE_144_LID			3, 31, 16
#define CXIB_SMP_NOTICE_144_OTHER_LOCAL_CHANGES	3, 0, 0
#define CXIB_SMP_NOTICE_144_NEW_CAP_MASK	4, 31, 0
#define CXIB_SMP_NOTICE_144_CHANGE_FLAGS	5, 23, 16
/* trap 256: bad M_Key */
#define CXIB_SMP_NOTICE_256_LID			3, 31, 16
#define CXIB_SMP_NOTICE_256_DR_SLID		3, 15, 0
#define CXIB_SMP_NOTICE_256_METHOD		4, 31, 24
#define CXIB_SMP_NOTICE_256_ATTR_ID		4, 15, 0
#define CXIB_SMP_NOTICE_256_ATTR_MOD		5, 31, 0
#define CXIB_SMP_NOTICE_256_MKEY		6, 63, 0
/* traps 257 (bad P_Key) and 258 (bad Q_Key) */
#define CXIB_SMP_NOTICE_257_LID1		3, 31, 16
#define CXIB_SMP_NOTICE_257_LID2		3, 15, 0
#define CXIB_SMP_NOTICE_257_KEY			4, 31, 0
#define CXIB_SMP_NOTICE_257_SL			5, 31, 28
#define CXIB_SMP_NOTICE_257_QP1			5, 23, 0
#define CXIB_SMP_NOTICE_257_QP2			6, 23, 0
#define CXIB_SMP_NOTICE_257_GID1_OFFSET		28	/* bytes into the Notice */
#define CXIB_SMP_NOTICE_257_GID2_OFFSET		44

enum {
	CXIB_NOTICE_TYPE_FATAL			= 0,
	CXIB_NOTICE_TYPE_URGENT			= 1,
	CXIB_NOTICE_TYPE_SECURITY		= 2,
	CXIB_NOTICE_TYPE_SM			= 3,
	CXIB_NOTICE_TYPE_INFO			= 4,
};

enum {
	CXIB_NOTICE_PRODUCER_CA			= 1,
};

enum {
	CXIB_TRAP_LOCAL_CHANGES			= 144,
	CXIB_TRAP_BAD_MKEY			= 256,
	CXIB_TRAP_BAD_PKEY			= 257,
	CXIB_TRAP_BAD_QKEY			= 258,
};

/* ---- Mellanox ExtendedPortInfo (vendor attribute 0xff90): all zero = no FDR10 ---------- */

#define CXIB_SMP_MLNX_EXT_PORT_INFO_LINK_SPEED_ACTIVE	3, 7, 0

#endif /* _CXIB_MAD_H */
