/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the data path (mlx5 PRM, the data path chapter; layouts as in
 * include/linux/mlx5/qp.h and device.h): send WQE segments, receive WQEs, the 64-byte CQE,
 * CQ arming and the CQ / QP / SRQ doorbell records.
 *
 *   CXIB_WQE_CTRL_<FIELD>     control segment (struct cxib_wqe_ctrl_seg, 16 B)
 *   CXIB_WQE_RADDR_<FIELD>    remote address segment (16 B)
 *   CXIB_WQE_ATOMIC_<FIELD>   atomic segment (16 B; masked: 32 B)
 *   CXIB_WQE_DATA_<FIELD>     data (scatter/gather) segment (16 B), send and receive
 *   CXIB_WQE_INLINE_<FIELD>   inline segment header (4 B, then the bytes, padded to 16)
 *   CXIB_WQE_AV_<FIELD>       datagram segment / address vector (48 B)
 *   CXIB_WQE_ETH_<FIELD>      Ethernet segment of IPoIB UD QPs (16 B + inline headers)
 *   CXIB_WQE_XRC_<FIELD>      XRC segment (16 B)
 *   CXIB_WQE_UMR_<FIELD>      UMR control segment (48 B)
 *   CXIB_WQE_MKEY_<FIELD>     UMR mkey segment (64 B)
 *   CXIB_WQE_SRQ_NEXT_<FIELD> SRQ next segment (16 B, first in every SRQ WQE)
 *   CXIB_CQE_<FIELD>          64-byte CQE (good and error)
 *   CXIB_CQ_DB_<FIELD>        CQ doorbell record (8 B at cqc.dbr_addr)
 *   CXIB_CQ_UAR_DB_<FIELD>    64-bit arm doorbell written at UAR + CXIB_UAR_CQ_DOORBELL
 *   CXIB_QP_DB_<FIELD>        QP doorbell record (8 B at qpc.dbr_addr)
 *   CXIB_SRQ_DB_<FIELD>       SRQ doorbell record
 *
 * Field macros are "dword, high bit, low bit" relative to their segment (bits.h).
 *
 * Example: a signaled SEND of one buffer at WQE index idx:
 *
 *	struct cxib_wqe_ctrl_seg *c = wqe;
 *	struct cxib_wqe_data_seg *d = (void *)(c + 1);
 *
 *	CXIB_SET(c, CXIB_WQE_CTRL_WQE_INDEX, idx);
 *	CXIB_SET(c, CXIB_WQE_CTRL_OPCODE, CXIB_WQE_OPCODE_SEND);
 *	CXIB_SET(c, CXIB_WQE_CTRL_QPN, qpn);
 *	CXIB_SET(c, CXIB_WQE_CTRL_DS, 2);
 *	CXIB_SET(c, CXIB_WQE_CTRL_CE, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
 *	CXIB_SET(d, CXIB_WQE_DATA_BYTE_COUNT, len);
 *	CXIB_SET(d, CXIB_WQE_DATA_LKEY, lkey);
 *	CXIB_SET64(d, CXIB_WQE_DATA_ADDR, dma);
 */
#ifndef _CXIB_WQE_H
#define _CXIB_WQE_H

#include "bits.h"

/* ---- Send queue geometry ----------------------------------------------------------------- */

#define CXIB_SEND_WQE_BB			64	/* basic block */
#define CXIB_LOG_SEND_WQE_BB			6
#define CXIB_WQE_DS_SIZE			16	/* DS unit */
#define CXIB_MAX_WQE_BBS			16	/* a WQE is at most 1024 bytes */
#define CXIB_INVALID_LKEY			0x100	/* receive scatter list terminator */

/* ---- Control segment ------------------------------------------------------------------- */

struct cxib_wqe_ctrl_seg {
	__be32 opmod_idx_opcode;
	__be32 qpn_ds;
	__u8 signature;
	__u8 rsvd[2];
	__u8 fm_ce_se;
	__be32 imm;			/* immediate, invalidate rkey or UMR target mkey */
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_ctrl_seg) == 16);

#define CXIB_WQE_CTRL_OPMOD			0, 31, 24, struct cxib_wqe_ctrl_seg
/* SQ counter, WQEBBs */
#define CXIB_WQE_CTRL_WQE_INDEX			0, 23, 8, struct cxib_wqe_ctrl_seg
#define CXIB_WQE_CTRL_OPCODE			0, 7, 0, struct cxib_wqe_ctrl_seg
#define CXIB_WQE_CTRL_QPN			1, 31, 8, struct cxib_wqe_ctrl_seg
/* 16-byte units incl. ctrl */
#define CXIB_WQE_CTRL_DS			1, 5, 0, struct cxib_wqe_ctrl_seg
#define CXIB_WQE_CTRL_SIGNATURE			2, 31, 24, struct cxib_wqe_ctrl_seg
/* fence mode */
#define CXIB_WQE_CTRL_FM			2, 7, 5, struct cxib_wqe_ctrl_seg
/* completion request */
#define CXIB_WQE_CTRL_CE			2, 3, 2, struct cxib_wqe_ctrl_seg
/* solicited event */
#define CXIB_WQE_CTRL_SE			2, 1, 1, struct cxib_wqe_ctrl_seg
/* general_id */
#define CXIB_WQE_CTRL_IMM			3, 31, 0, struct cxib_wqe_ctrl_seg

/* fm (fence mode) */
enum {
	CXIB_WQE_FM_NO_FENCE			= 0,
	CXIB_WQE_FM_INITIATOR_SMALL_FENCE	= 1,
	CXIB_WQE_FM_FENCE			= 2,
	CXIB_WQE_FM_STRONG_ORDERING		= 3,
	CXIB_WQE_FM_FENCE_AND_INITIATOR_SMALL_FENCE	= 4,
};

/* ce (completion request) */
enum {
	CXIB_WQE_CTRL_CE_CQE_ON_ERROR		= 0,
	CXIB_WQE_CTRL_CE_CQE_ALWAYS		= 2,
	CXIB_WQE_CTRL_CE_CQE_AND_EQE		= 3,
};

/* Send WQE opcodes (CXIB_WQE_CTRL_OPCODE; also CQE sop on requester CQEs) */
enum {
	CXIB_WQE_OPCODE_NOP			= 0x00,
	CXIB_WQE_OPCODE_SEND_INVAL		= 0x01,
	CXIB_WQE_OPCODE_RDMA_WRITE		= 0x08,
	CXIB_WQE_OPCODE_RDMA_WRITE_IMM		= 0x09,
	CXIB_WQE_OPCODE_SEND			= 0x0a,
	CXIB_WQE_OPCODE_SEND_IMM		= 0x0b,
	CXIB_WQE_OPCODE_LSO			= 0x0e,
	CXIB_WQE_OPCODE_RDMA_READ		= 0x10,
	CXIB_WQE_OPCODE_ATOMIC_CS		= 0x11,
	CXIB_WQE_OPCODE_ATOMIC_FA		= 0x12,
	CXIB_WQE_OPCODE_ATOMIC_MASKED_CS	= 0x14,
	CXIB_WQE_OPCODE_ATOMIC_MASKED_FA	= 0x15,
	CXIB_WQE_OPCODE_BIND_MW			= 0x18,
	CXIB_WQE_OPCODE_CONFIG_SIZE		= 0x1f,
	CXIB_WQE_OPCODE_UMR			= 0x25,
};

/* ---- Remote address segment (RDMA WRITE / READ / atomics) ----------------------------- */

struct cxib_wqe_raddr_seg {
	__be64 raddr;
	__be32 rkey;
	__be32 rsvd;
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_raddr_seg) == 16);

#define CXIB_WQE_RADDR_RADDR			0, 63, 0, struct cxib_wqe_raddr_seg
#define CXIB_WQE_RADDR_RKEY			2, 31, 0, struct cxib_wqe_raddr_seg
#define CXIB_WQE_RADDR_RESERVED_AT_60		3, 31, 0, struct cxib_wqe_raddr_seg

/* ---- Atomic segments ----------------------------------------------------------------- */

struct cxib_wqe_atomic_seg {
	__be64 swap_add;
	__be64 compare;
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_atomic_seg) == 16);

#define CXIB_WQE_ATOMIC_SWAP_ADD		0, 63, 0, struct cxib_wqe_atomic_seg
#define CXIB_WQE_ATOMIC_COMPARE			2, 63, 0, struct cxib_wqe_atomic_seg

struct cxib_wqe_masked_atomic_seg {
	__be64 swap_add;
	__be64 compare;
	__be64 swap_add_mask;
	__be64 compare_mask;
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_masked_atomic_seg) == 32);

#define CXIB_WQE_MASKED_ATOMIC_SWAP_ADD		0, 63, 0, struct cxib_wqe_masked_atomic_seg
#define CXIB_WQE_MASKED_ATOMIC_COMPARE		2, 63, 0, struct cxib_wqe_masked_atomic_seg
#define CXIB_WQE_MASKED_ATOMIC_SWAP_ADD_MASK	4, 63, 0, struct cxib_wqe_masked_atomic_seg
#define CXIB_WQE_MASKED_ATOMIC_COMPARE_MASK	6, 63, 0, struct cxib_wqe_masked_atomic_seg

/* ---- Data segment (send gather list and receive scatter list) ------------------------ */

struct cxib_wqe_data_seg {
	__be32 byte_count;
	__be32 lkey;
	__be64 addr;
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_data_seg) == 16);

#define CXIB_WQE_DATA_BYTE_COUNT		0, 30, 0, struct cxib_wqe_data_seg
#define CXIB_WQE_DATA_LKEY			1, 31, 0, struct cxib_wqe_data_seg
#define CXIB_WQE_DATA_ADDR			2, 63, 0, struct cxib_wqe_data_seg

/* ---- Inline segment: header dword, then byte_count bytes, padded to 16 --------------- */

#define CXIB_WQE_INLINE_HDR_SIZE		4
#define CXIB_WQE_INLINE_SEG			0, 31, 31	/* always 1 */
#define CXIB_WQE_INLINE_BYTE_COUNT		0, 30, 0

/* ---- Datagram segment / address vector (UD, QP0, QP1) --------------------------------- */

struct cxib_wqe_av {
	__be32 qkey;
	__be32 rsvd0;
	__be32 dqp_dct;
	__u8 stat_rate_sl;
	__u8 fl_mlid;
	__be16 rlid;
	__be32 rsvd1;
	__u8 rmac[6];
	__u8 tclass;
	__u8 hop_limit;
	__be32 grh_gid_fl;
	__u8 rgid[16];
};

#define CXIB_WQE_AV_SIZE			48

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_av) == CXIB_WQE_AV_SIZE);

#define CXIB_WQE_AV_QKEY			0, 31, 0, struct cxib_wqe_av
#define CXIB_WQE_AV_RESERVED_AT_20		1, 31, 0, struct cxib_wqe_av
/* extended AV: always 1 */
#define CXIB_WQE_AV_EXT				2, 31, 31, struct cxib_wqe_av
#define CXIB_WQE_AV_DQPN			2, 23, 0, struct cxib_wqe_av
#define CXIB_WQE_AV_STAT_RATE			3, 31, 28, struct cxib_wqe_av
#define CXIB_WQE_AV_SL				3, 27, 24, struct cxib_wqe_av
#define CXIB_WQE_AV_FL				3, 23, 23, struct cxib_wqe_av	/* force loopback */
/* source path bits */
#define CXIB_WQE_AV_MLID			3, 22, 16, struct cxib_wqe_av
#define CXIB_WQE_AV_RLID			3, 15, 0, struct cxib_wqe_av	/* DLID */
#define CXIB_WQE_AV_TCLASS			6, 15, 8, struct cxib_wqe_av
#define CXIB_WQE_AV_HOP_LIMIT			6, 7, 0, struct cxib_wqe_av
#define CXIB_WQE_AV_GRH				7, 30, 30, struct cxib_wqe_av
#define CXIB_WQE_AV_SGID_INDEX			7, 27, 20, struct cxib_wqe_av
#define CXIB_WQE_AV_FLOW_LABEL			7, 19, 0, struct cxib_wqe_av
#define CXIB_WQE_AV_RGID_OFFSET			32

/* ---- Ethernet segment (UD QPs with ulp_stateless_offload_mode IPOIB_UD) --------------- */

/*
 * An IPoIB UD QP's send WQE has, after the datagram segment, a 16-byte pad of zeros and the
 * Ethernet segment: the checksum request and, for an LSO WQE, the MSS and the packet's
 * headers inline (inline_hdr_sz bytes from byte CXIB_WQE_ETH_INLINE_HDR_OFFSET of the
 * segment, the segment then padded to 16 bytes).  The data segments that follow carry the
 * payload; the device cuts it in pieces of MSS bytes and sends each behind a copy of the
 * headers, fixed up (IPv4 length, ID and checksum, TCP sequence, flags and checksum).
 */
#define CXIB_WQE_ETH_PAD_SIZE			16

struct cxib_wqe_eth_seg {
	__u8 swp_offsets[4];
	__u8 cs_flags;
	__u8 swp_flags;
	__be16 mss;
	__be32 flow_table_metadata;
	__be16 inline_hdr_sz;
	__u8 inline_hdr_start[2];
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_eth_seg) == 16);

#define CXIB_WQE_ETH_CS_FLAGS			1, 31, 24, struct cxib_wqe_eth_seg
#define CXIB_WQE_ETH_MSS			1, 15, 0, struct cxib_wqe_eth_seg
#define CXIB_WQE_ETH_INLINE_HDR_SZ		3, 31, 16, struct cxib_wqe_eth_seg
#define CXIB_WQE_ETH_INLINE_HDR_OFFSET		14	/* first header byte in the segment */

/* cs_flags */
enum {
	CXIB_WQE_ETH_L3_CSUM			= 1 << 6,	/* IPv4 header checksum */
	CXIB_WQE_ETH_L4_CSUM			= 1 << 7,	/* TCP / UDP checksum */
};

/* ---- XRC segment (XRC initiator, first after ctrl) ----------------------------------- */

#define CXIB_WQE_XRC_SEG_SIZE			16
#define CXIB_WQE_XRC_SRQN			0, 23, 0

/* ---- UMR control segment ------------------------------------------------------------- */

struct cxib_wqe_umr_ctrl_seg {
	__u8 flags;
	__u8 rsvd0[3];
	__be16 xlt_octowords;
	__be16 xlt_offset;
	__be64 mkey_mask;
	__be32 xlt_offset_47_16;
	__u8 rsvd1[28];
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_umr_ctrl_seg) == 48);

#define CXIB_WQE_UMR_FLAGS			0, 31, 24, struct cxib_wqe_umr_ctrl_seg
#define CXIB_WQE_UMR_XLT_OCTOWORDS		1, 31, 16, struct cxib_wqe_umr_ctrl_seg
#define CXIB_WQE_UMR_XLT_OFFSET			1, 15, 0, struct cxib_wqe_umr_ctrl_seg
#define CXIB_WQE_UMR_MKEY_MASK			2, 63, 0, struct cxib_wqe_umr_ctrl_seg
#define CXIB_WQE_UMR_XLT_OFFSET_47_16		4, 31, 0, struct cxib_wqe_umr_ctrl_seg

/*
 * UMR flags.  TRANSLATION_OFFSET_EN: xlt_offset (in octowords of the translation table, two
 * MTT entries each) applies, else the entries load from the start.  CHECK_NOT_FREE: fail
 * unless the key is free (a first registration, fast or through the UMR QP);
 * CHECK_FREE: fail if the key is free (an update of a key in use).  INLINE: the entries
 * follow the mkey segment, else a data segment points at them.
 */
enum {
	CXIB_UMR_TRANSLATION_OFFSET_EN		= 1 << 4,
	CXIB_UMR_CHECK_NOT_FREE			= 1 << 5,
	CXIB_UMR_CHECK_FREE			= 1 << 6,
	CXIB_UMR_INLINE				= 1 << 7,
};

/* UMR mkey_mask bits (which mkey segment fields the UMR applies) */
#define CXIB_UMR_MKEY_MASK_LEN			(1ull << 0)
#define CXIB_UMR_MKEY_MASK_PAGE_SIZE		(1ull << 1)
#define CXIB_UMR_MKEY_MASK_START_ADDR		(1ull << 6)
#define CXIB_UMR_MKEY_MASK_PD			(1ull << 7)
#define CXIB_UMR_MKEY_MASK_EN_RINVAL		(1ull << 8)
#define CXIB_UMR_MKEY_MASK_KEY			(1ull << 13)
#define CXIB_UMR_MKEY_MASK_QPN			(1ull << 14)
#define CXIB_UMR_MKEY_MASK_LR			(1ull << 17)
#define CXIB_UMR_MKEY_MASK_LW			(1ull << 18)
#define CXIB_UMR_MKEY_MASK_RR			(1ull << 19)
#define CXIB_UMR_MKEY_MASK_RW			(1ull << 20)
#define CXIB_UMR_MKEY_MASK_A			(1ull << 21)
#define CXIB_UMR_MKEY_MASK_SMALL_FENCE		(1ull << 23)
#define CXIB_UMR_MKEY_MASK_FREE			(1ull << 29)

/* ---- UMR mkey segment ---------------------------------------------------------------- */

struct cxib_wqe_mkey_seg {
	__u8 status;
	__u8 pcie_control;
	__u8 flags;
	__u8 version;
	__be32 qpn_mkey7_0;
	__u8 rsvd1[4];
	__be32 flags_pd;
	__be64 start_addr;
	__be64 len;
	__be32 bsfs_octo_size;
	__u8 rsvd2[16];
	__be32 xlt_oct_size;
	__u8 rsvd3[3];
	__u8 log2_page_size;
	__u8 rsvd4[4];
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_mkey_seg) == 64);

#define CXIB_WQE_MKEY_STATUS			0, 31, 24, struct cxib_wqe_mkey_seg
/* status bit 6 */
#define CXIB_WQE_MKEY_FREE			0, 30, 30, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_FLAGS			0, 15, 8, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_UMR_EN			0, 15, 15, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_A				0, 14, 14, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_RW			0, 13, 13, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_RR			0, 12, 12, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_LW			0, 11, 11, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_LR			0, 10, 10, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_ACCESS_MODE		0, 9, 8, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_QPN			1, 31, 8, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_MKEY_7_0			1, 7, 0, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_LENGTH64			3, 31, 31, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_EN_RINVAL			3, 24, 24, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_PD			3, 23, 0, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_START_ADDR		4, 63, 0, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_LEN			6, 63, 0, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_BSFS_OCTO_SIZE		8, 31, 0, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_XLT_OCT_SIZE		13, 31, 0, struct cxib_wqe_mkey_seg
#define CXIB_WQE_MKEY_LOG2_PAGE_SIZE		14, 5, 0, struct cxib_wqe_mkey_seg

/* ---- Receive WQEs ---------------------------------------------------------------------- */

/* RQ WQE: 16 << log_rq_stride bytes of data segments, ended by an CXIB_INVALID_LKEY one. */
struct cxib_wqe_srq_next_seg {
	__u8 rsvd0[2];
	__be16 next_wqe_index;
	__u8 signature;
	__u8 rsvd1[11];
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_wqe_srq_next_seg) == 16);

#define CXIB_WQE_SRQ_NEXT_NEXT_WQE_INDEX	0, 15, 0, struct cxib_wqe_srq_next_seg
#define CXIB_WQE_SRQ_NEXT_SIGNATURE		1, 31, 24, struct cxib_wqe_srq_next_seg

/* ---- CQE (64 B; in a 128-byte slot it is the second half) ------------------------------ */

struct cxib_cqe64 {
	__be32 dw[16];
};

#define CXIB_CQE_SIZE				64
#define CXIB_LOG_CQE_SIZE			6

CXIB_STATIC_ASSERT(sizeof(struct cxib_cqe64) == CXIB_CQE_SIZE);

/* striding RQ only */
#define CXIB_CQE_WQE_ID				0, 15, 0, struct cxib_cqe64
#define CXIB_CQE_RSS_HASH_RESULT		3, 31, 0, struct cxib_cqe64
#define CXIB_CQE_RSS_HASH_TYPE			4, 31, 24, struct cxib_cqe64
#define CXIB_CQE_ML_PATH			4, 23, 16, struct cxib_cqe64	/* DLID path bits */
#define CXIB_CQE_CHECK_SUM			5, 31, 16, struct cxib_cqe64
#define CXIB_CQE_SLID				5, 15, 0, struct cxib_cqe64
#define CXIB_CQE_FLAGS_RQPN			6, 31, 0, struct cxib_cqe64
#define CXIB_CQE_G				6, 29, 28, struct cxib_cqe64	/* GRH present */
#define CXIB_CQE_SL				6, 27, 24, struct cxib_cqe64
#define CXIB_CQE_RQPN				6, 23, 0, struct cxib_cqe64	/* source QPN */
#define CXIB_CQE_HDS_IP_EXT			7, 31, 24, struct cxib_cqe64
#define CXIB_CQE_L4_L3_HDR_TYPE			7, 23, 16, struct cxib_cqe64
#define CXIB_CQE_VLAN_INFO			7, 15, 0, struct cxib_cqe64
#define CXIB_CQE_LRO_NUM_SEG			8, 31, 24, struct cxib_cqe64
/* SRQN (cqe_version 0) */
#define CXIB_CQE_SRQN_UIDX			8, 23, 0, struct cxib_cqe64
#define CXIB_CQE_IMM_INVAL_PKEY			9, 31, 0, struct cxib_cqe64
#define CXIB_CQE_PKEY				9, 15, 0, struct cxib_cqe64	/* QP1 receives */
#define CXIB_CQE_APP				10, 31, 24, struct cxib_cqe64
#define CXIB_CQE_BYTE_CNT			11, 31, 0, struct cxib_cqe64
#define CXIB_CQE_TIMESTAMP			12, 63, 0, struct cxib_cqe64
#define CXIB_CQE_SOP_DROP_QPN			14, 31, 0, struct cxib_cqe64
/* requester: WQE opcode */
#define CXIB_CQE_SOP				14, 31, 24, struct cxib_cqe64
#define CXIB_CQE_QPN				14, 23, 0, struct cxib_cqe64
#define CXIB_CQE_WQE_COUNTER			15, 31, 16, struct cxib_cqe64
#define CXIB_CQE_SIGNATURE			15, 15, 8, struct cxib_cqe64
#define CXIB_CQE_OP_OWN				15, 7, 0, struct cxib_cqe64	/* written last */
#define CXIB_CQE_OPCODE				15, 7, 4, struct cxib_cqe64
#define CXIB_CQE_FORMAT				15, 3, 2, struct cxib_cqe64	/* 0: normal */
#define CXIB_CQE_SE				15, 1, 1, struct cxib_cqe64
#define CXIB_CQE_OWNER				15, 0, 0, struct cxib_cqe64

/* Error CQE (opcode REQ_ERR / RESP_ERR): same 64 bytes, these fields replace others. */
#define CXIB_CQE_ERR_SRQN			8, 23, 0, struct cxib_cqe64
#define CXIB_CQE_ERR_VENDOR_ERR_SYND		13, 15, 8, struct cxib_cqe64
#define CXIB_CQE_ERR_SYNDROME			13, 7, 0, struct cxib_cqe64
#define CXIB_CQE_ERR_S_WQE_OPCODE		14, 31, 24, struct cxib_cqe64
#define CXIB_CQE_ERR_QPN			14, 23, 0, struct cxib_cqe64
#define CXIB_CQE_ERR_WQE_COUNTER		15, 31, 16, struct cxib_cqe64

/* Byte offset of op_own, the byte whose write publishes the CQE. */
#define CXIB_CQE_OP_OWN_OFFSET			63

/* CQE opcodes */
enum {
	CXIB_CQE_OPCODE_REQ			= 0x0,
	CXIB_CQE_OPCODE_RESP_WR_IMM		= 0x1,
	CXIB_CQE_OPCODE_RESP_SEND		= 0x2,
	CXIB_CQE_OPCODE_RESP_SEND_IMM		= 0x3,
	CXIB_CQE_OPCODE_RESP_SEND_INV		= 0x4,
	CXIB_CQE_OPCODE_RESIZE_CQ		= 0x5,
	CXIB_CQE_OPCODE_SIG_ERR			= 0xc,
	CXIB_CQE_OPCODE_REQ_ERR			= 0xd,
	CXIB_CQE_OPCODE_RESP_ERR		= 0xe,
	CXIB_CQE_OPCODE_INVALID			= 0xf,
};

/* Error CQE syndromes */
enum {
	CXIB_CQE_SYND_LOCAL_LENGTH_ERR		= 0x01,
	CXIB_CQE_SYND_LOCAL_QP_OP_ERR		= 0x02,
	CXIB_CQE_SYND_LOCAL_PROT_ERR		= 0x04,
	CXIB_CQE_SYND_WR_FLUSH_ERR		= 0x05,
	CXIB_CQE_SYND_MW_BIND_ERR		= 0x06,
	CXIB_CQE_SYND_BAD_RESP_ERR		= 0x10,
	CXIB_CQE_SYND_LOCAL_ACCESS_ERR		= 0x11,
	CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR	= 0x12,
	CXIB_CQE_SYND_REMOTE_ACCESS_ERR		= 0x13,
	CXIB_CQE_SYND_REMOTE_OP_ERR		= 0x14,
	CXIB_CQE_SYND_TRANSPORT_RETRY_EXC_ERR	= 0x15,
	CXIB_CQE_SYND_RNR_RETRY_EXC_ERR		= 0x16,
	CXIB_CQE_SYND_REMOTE_ABORTED_ERR	= 0x22,
};

/* hds_ip_ext: what the receive checksum check found (IPoIB UD QPs) */
enum {
	CXIB_CQE_L2_OK				= 1 << 0,
	CXIB_CQE_L3_OK				= 1 << 1,	/* IPv4 header checksum good */
	CXIB_CQE_L4_OK				= 1 << 2,	/* TCP / UDP checksum good */
	CXIB_CQE_L3_L4_OK			= CXIB_CQE_L3_OK | CXIB_CQE_L4_OK,
};

/* l4_l3_hdr_type: l4_hdr_type in bits 6:4, l3_hdr_type in bits 3:2 of the byte */
#define CXIB_CQE_L4_HDR_TYPE			7, 22, 20, struct cxib_cqe64
#define CXIB_CQE_L3_HDR_TYPE			7, 19, 18, struct cxib_cqe64

enum {
	CXIB_CQE_L4_HDR_TYPE_NONE		= 0x0,
	CXIB_CQE_L4_HDR_TYPE_TCP_NO_ACK		= 0x1,
	CXIB_CQE_L4_HDR_TYPE_UDP		= 0x2,
	CXIB_CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA	= 0x3,
	CXIB_CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA	= 0x4,
};

enum {
	CXIB_CQE_L3_HDR_TYPE_NONE		= 0x0,
	CXIB_CQE_L3_HDR_TYPE_IPV6		= 0x1,
	CXIB_CQE_L3_HDR_TYPE_IPV4		= 0x2,
};

/* CQE g (GRH) values */
enum {
	CXIB_CQE_G_NONE				= 0,
	CXIB_CQE_G_GRH				= 1,
};

/* ---- CQ doorbell record (cqc.dbr_addr) and arm doorbell (UAR + 0x20) ----------------- */

#define CXIB_CQ_DB_SIZE				8
#define CXIB_CQ_DB_SET_CI			0, 23, 0	/* consumer index */
#define CXIB_CQ_DB_ARM_SN			1, 29, 28	/* copy of the last arm */
#define CXIB_CQ_DB_ARM_CMD			1, 24, 24
#define CXIB_CQ_DB_ARM_CI			1, 23, 0

/* The 64-bit big-endian value written at UAR + CXIB_UAR_CQ_DOORBELL. */
#define CXIB_CQ_UAR_DB_SN			0, 29, 28
#define CXIB_CQ_UAR_DB_CMD			0, 24, 24
#define CXIB_CQ_UAR_DB_CI			0, 23, 0
#define CXIB_CQ_UAR_DB_CQN			1, 23, 0

/* arm cmd */
enum {
	CXIB_CQ_DB_CMD_REQ_NOT			= 0,	/* next completion */
	CXIB_CQ_DB_CMD_REQ_NOT_SOL		= 1,	/* solicited (or error) only */
};

/* ---- QP and SRQ doorbell records ---------------------------------------------------- */

#define CXIB_QP_DB_SIZE				8
#define CXIB_QP_DB_RCV_COUNTER			0, 15, 0	/* RQ WQEs posted */
#define CXIB_QP_DB_SND_COUNTER			1, 15, 0	/* SQ producer, WQEBBs */

#define CXIB_SRQ_DB_SIZE			4
#define CXIB_SRQ_DB_WQE_COUNTER			0, 15, 0	/* SRQ WQEs ever posted */

/* SQ doorbell (BlueFlame area): the first 8 bytes of the WQE's control segment. */
#define CXIB_SQ_DB_WQE_INDEX			0, 23, 8
#define CXIB_SQ_DB_QPN				1, 31, 8

#endif /* _CXIB_WQE_H */
