/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the verbs resource commands and their contexts (mlx5 PRM,
 * the resource chapter; positions as in include/linux/mlx5/mlx5_ifc.h): PD, XRCD, memory
 * keys, CQs, QPs, SRQs, multicast.
 *
 * Naming follows cmd.h (field macros "dword, high bit, low bit" for bits.h):
 *
 *   CXIB_<CMD>_IN_<FIELD>, _OUT_<FIELD>   counted from the first byte of the input/output
 *   CXIB_<CMD>_IN_LEN / _OUT_LEN          byte lengths (function-like with a PAS/MTT array)
 *   CXIB_<CMD>_{IN,OUT}_<X>_OFFSET        byte offset of an embedded context or array
 *   CXIB_MKC_<FIELD>      memory key context (mkc, 64 B)
 *   CXIB_CQC_<FIELD>      CQ context (cqc, 64 B)
 *   CXIB_QPC_<FIELD>      QP context (qpc, 232 B)
 *   CXIB_ADS_<FIELD>      address path (ads, 44 B) inside the qpc
 *   CXIB_SRQC_<FIELD>     SRQ context (srqc, 64 B)
 *   CXIB_XRC_SRQC_<FIELD> XRC SRQ context (xrc_srqc, 64 B)
 *   CXIB_RMPC_<FIELD>     RMP context (rmpc, 0x30 B, then the wq context)
 *   CXIB_WQC_<FIELD>      work queue context (wq, 0xc0 B, then the PAS list)
 *
 * Contexts are relative to themselves.  The data path (WQEs, CQEs, doorbell records) is
 * in wqe.h.
 *
 * Example: create a CQ of 2^n 64-byte CQEs on EQ eqn, buffer in npas pages (in the
 * driver this is cxib_cmd_create_cq(), drivers/infiniband/hw/cxib/fw_verbs.c):
 *
 *	__be32 *in = kvzalloc(CXIB_CREATE_CQ_IN_LEN(npas), GFP_KERNEL);
 *	__be32 *cqc = (__be32 *)((u8 *)in + CXIB_CREATE_CQ_IN_CQC_OFFSET);
 *
 *	cxib_cmd_hdr(in, CXIB_CMD_OP_CREATE_CQ, 0);
 *	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, n);
 *	CXIB_SET(cqc, CXIB_CQC_C_EQN, eqn);
 *	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, dbr_dma);
 *	cxib_cmd_put_pas(in, CXIB_CREATE_CQ_IN_PAS_OFFSET, pas, npas);
 *	... exec ... cqn = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
 */
#ifndef _CXIB_VERBS_H
#define _CXIB_VERBS_H

#include "bits.h"
#include "cmd.h"
#include "hw.h"

/* ---- ALLOC_PD / DEALLOC_PD (0x800 / 0x801) ------------------------------------------- */

#define CXIB_ALLOC_PD_IN_LEN			16
struct cxib_alloc_pd_in { __be32 dw[CXIB_ALLOC_PD_IN_LEN / 4]; };
#define CXIB_ALLOC_PD_OUT_PD			2, 23, 0, struct cxib_alloc_pd_out
#define CXIB_ALLOC_PD_OUT_LEN			16
struct cxib_alloc_pd_out { __be32 dw[CXIB_ALLOC_PD_OUT_LEN / 4]; };

#define CXIB_DEALLOC_PD_IN_RESERVED_AT_40	2, 31, 24, struct cxib_dealloc_pd_in
#define CXIB_DEALLOC_PD_IN_PD			2, 23, 0, struct cxib_dealloc_pd_in
#define CXIB_DEALLOC_PD_IN_RESERVED_AT_60	3, 31, 0, struct cxib_dealloc_pd_in
#define CXIB_DEALLOC_PD_IN_LEN			16
struct cxib_dealloc_pd_in { __be32 dw[CXIB_DEALLOC_PD_IN_LEN / 4]; };
#define CXIB_DEALLOC_PD_OUT_LEN			16
struct cxib_dealloc_pd_out { __be32 dw[CXIB_DEALLOC_PD_OUT_LEN / 4]; };

/* ---- ALLOC_XRCD / DEALLOC_XRCD (0x80e / 0x80f) ----------------------------------------- */

#define CXIB_ALLOC_XRCD_IN_LEN			16
struct cxib_alloc_xrcd_in { __be32 dw[CXIB_ALLOC_XRCD_IN_LEN / 4]; };
#define CXIB_ALLOC_XRCD_OUT_XRCD		2, 23, 0, struct cxib_alloc_xrcd_out
#define CXIB_ALLOC_XRCD_OUT_LEN			16
struct cxib_alloc_xrcd_out { __be32 dw[CXIB_ALLOC_XRCD_OUT_LEN / 4]; };

#define CXIB_DEALLOC_XRCD_IN_RESERVED_AT_40	2, 31, 24, struct cxib_dealloc_xrcd_in
#define CXIB_DEALLOC_XRCD_IN_XRCD		2, 23, 0, struct cxib_dealloc_xrcd_in
#define CXIB_DEALLOC_XRCD_IN_RESERVED_AT_60	3, 31, 0, struct cxib_dealloc_xrcd_in
#define CXIB_DEALLOC_XRCD_IN_LEN		16
struct cxib_dealloc_xrcd_in { __be32 dw[CXIB_DEALLOC_XRCD_IN_LEN / 4]; };
#define CXIB_DEALLOC_XRCD_OUT_LEN		16
struct cxib_dealloc_xrcd_out { __be32 dw[CXIB_DEALLOC_XRCD_OUT_LEN / 4]; };

/* ---- Memory key context (mkc) ---------------------------------------------------------- */

struct cxib_mkc {
	__be32 dw[16];
};

#define CXIB_MKC_SIZE				64

CXIB_STATIC_ASSERT(sizeof(struct cxib_mkc) == CXIB_MKC_SIZE);

#define CXIB_MKC_FREE				0, 30, 30, struct cxib_mkc
#define CXIB_MKC_ACCESS_MODE_4_2		0, 28, 26, struct cxib_mkc
#define CXIB_MKC_RELAXED_ORDERING_WRITE		0, 18, 18, struct cxib_mkc
#define CXIB_MKC_UMR_EN				0, 15, 15, struct cxib_mkc
#define CXIB_MKC_A				0, 14, 14, struct cxib_mkc	/* remote atomic */
#define CXIB_MKC_RW				0, 13, 13, struct cxib_mkc	/* remote write */
#define CXIB_MKC_RR				0, 12, 12, struct cxib_mkc	/* remote read */
#define CXIB_MKC_LW				0, 11, 11, struct cxib_mkc	/* local write */
#define CXIB_MKC_LR				0, 10, 10, struct cxib_mkc	/* local read */
#define CXIB_MKC_ACCESS_MODE_1_0		0, 9, 8, struct cxib_mkc
/* 0xffffff: not bound */
#define CXIB_MKC_QPN				1, 31, 8, struct cxib_mkc
/* variant byte of the key */
#define CXIB_MKC_MKEY_7_0			1, 7, 0, struct cxib_mkc
#define CXIB_MKC_LENGTH64			3, 31, 31, struct cxib_mkc
#define CXIB_MKC_EN_RINVAL			3, 24, 24, struct cxib_mkc
#define CXIB_MKC_PD				3, 23, 0, struct cxib_mkc
#define CXIB_MKC_START_ADDR			4, 63, 0, struct cxib_mkc
#define CXIB_MKC_LEN				6, 63, 0, struct cxib_mkc
#define CXIB_MKC_BSF_OCTWORD_SIZE		8, 31, 0, struct cxib_mkc
#define CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE	13, 31, 0, struct cxib_mkc
#define CXIB_MKC_RELAXED_ORDERING_READ		14, 6, 6, struct cxib_mkc
#define CXIB_MKC_LOG_PAGE_SIZE			14, 5, 0, struct cxib_mkc	/* absolute log2 */

/* access_mode (access_mode_4_2 << 2 | access_mode_1_0) */
enum {
	CXIB_MKC_ACCESS_MODE_PA			= 0x0,
	CXIB_MKC_ACCESS_MODE_MTT		= 0x1,
	CXIB_MKC_ACCESS_MODE_KLMS		= 0x2,
	CXIB_MKC_ACCESS_MODE_KSM		= 0x3,
};

/* A key handed to verbs: index << 8 | variant byte (mkey_7_0). */
#define CXIB_MKEY_INDEX(key)			((__u32)(key) >> 8)
#define CXIB_MKEY_VARIANT(key)			((__u32)(key) & 0xff)
#define CXIB_MKEY(index, variant)		((__u32)(index) << 8 | ((__u32)(variant) & 0xff))
#define CXIB_MKC_QPN_NONE			0xffffff

/*
 * One MTT translation entry: the 8-byte big-endian bus address of a page, whose two low
 * bits are the entry's read and write enables (upstream mlx5_ifc.h struct mtt: rd_en,
 * wr_en; mlx5_ib sets both in every entry it loads by UMR and in fast-registration
 * lists).  They matter for on-demand paging; an MKey without it ignores them.
 */
#define CXIB_MTT_ENTRY_SIZE			8
#define CXIB_MTT_ENTRY_PTAG			0, 63, 0	/* the entry: address | enables */
#define CXIB_MTT_PER_OCTWORD			2
#define CXIB_MTT_RD_EN				0x1ull
#define CXIB_MTT_WR_EN				0x2ull
#define CXIB_MTT_ENABLES			(CXIB_MTT_RD_EN | CXIB_MTT_WR_EN)

/* ---- CREATE_MKEY / QUERY_MKEY / DESTROY_MKEY (0x200 / 0x201 / 0x202) ------------------ */

#define CXIB_CREATE_MKEY_IN_PG_ACCESS		3, 31, 31, struct cxib_create_mkey_in
#define CXIB_CREATE_MKEY_IN_MKEY_UMEM_VALID	3, 30, 30, struct cxib_create_mkey_in
#define CXIB_CREATE_MKEY_IN_MKC_OFFSET		0x10
/* 0x60 */
#define CXIB_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE 24, 31, 0, struct cxib_create_mkey_in
#define CXIB_CREATE_MKEY_IN_KLM_PAS_MTT_OFFSET	0x110
struct cxib_create_mkey_in { __be32 dw[CXIB_CREATE_MKEY_IN_KLM_PAS_MTT_OFFSET / 4]; };
#define CXIB_CREATE_MKEY_IN_LEN(nmtt)		(0x110u + CXIB_MTT_ENTRY_SIZE * (nmtt))
#define CXIB_CREATE_MKEY_OUT_MKEY_INDEX		2, 23, 0, struct cxib_create_mkey_out
#define CXIB_CREATE_MKEY_OUT_LEN		16
struct cxib_create_mkey_out { __be32 dw[CXIB_CREATE_MKEY_OUT_LEN / 4]; };

#define CXIB_QUERY_MKEY_IN_RESERVED_AT_40	2, 31, 24, struct cxib_query_mkey_in
#define CXIB_QUERY_MKEY_IN_MKEY_INDEX		2, 23, 0, struct cxib_query_mkey_in
/* below pg_access */
#define CXIB_QUERY_MKEY_IN_RESERVED_AT_61	3, 30, 0, struct cxib_query_mkey_in
#define CXIB_QUERY_MKEY_IN_LEN			16
struct cxib_query_mkey_in { __be32 dw[CXIB_QUERY_MKEY_IN_LEN / 4]; };
#define CXIB_QUERY_MKEY_OUT_MKC_OFFSET		0x10
#define CXIB_QUERY_MKEY_OUT_LEN			0x50	/* header + mkc; no translations */
struct cxib_query_mkey_out { __be32 dw[CXIB_QUERY_MKEY_OUT_LEN / 4]; };

#define CXIB_DESTROY_MKEY_IN_RESERVED_AT_40	2, 31, 24, struct cxib_destroy_mkey_in
#define CXIB_DESTROY_MKEY_IN_MKEY_INDEX		2, 23, 0, struct cxib_destroy_mkey_in
#define CXIB_DESTROY_MKEY_IN_RESERVED_AT_60	3, 31, 0, struct cxib_destroy_mkey_in
#define CXIB_DESTROY_MKEY_IN_LEN		16
struct cxib_destroy_mkey_in { __be32 dw[CXIB_DESTROY_MKEY_IN_LEN / 4]; };
#define CXIB_DESTROY_MKEY_OUT_LEN		16
struct cxib_destroy_mkey_out { __be32 dw[CXIB_DESTROY_MKEY_OUT_LEN / 4]; };

/* ---- CQ context (cqc) -------------------------------------------------------------------- */

struct cxib_cqc {
	__be32 dw[16];
};

#define CXIB_CQC_SIZE				64

CXIB_STATIC_ASSERT(sizeof(struct cxib_cqc) == CXIB_CQC_SIZE);

#define CXIB_CQC_STATUS				0, 31, 28, struct cxib_cqc
#define CXIB_CQC_DBR_UMEM_VALID			0, 25, 25, struct cxib_cqc
#define CXIB_CQC_CQE_SZ				0, 23, 21, struct cxib_cqc
#define CXIB_CQC_CC				0, 20, 20, struct cxib_cqc	/* collapsed */
#define CXIB_CQC_SCQE_BREAK_MODERATION_EN	0, 18, 18, struct cxib_cqc
#define CXIB_CQC_OI				0, 17, 17, struct cxib_cqc	/* overrun ignore */
#define CXIB_CQC_CQ_PERIOD_MODE			0, 16, 15, struct cxib_cqc
#define CXIB_CQC_CQE_COMP_EN			0, 14, 14, struct cxib_cqc
#define CXIB_CQC_MINI_CQE_RES_FORMAT		0, 13, 12, struct cxib_cqc
#define CXIB_CQC_ST				0, 11, 8, struct cxib_cqc
/* CXIB_PAGE_OFFSET_BYTES() */
#define CXIB_CQC_PAGE_OFFSET			2, 11, 6, struct cxib_cqc
#define CXIB_CQC_LOG_CQ_SIZE			3, 28, 24, struct cxib_cqc
#define CXIB_CQC_UAR_PAGE			3, 23, 0, struct cxib_cqc
#define CXIB_CQC_CQ_PERIOD			4, 27, 16, struct cxib_cqc	/* microseconds */
#define CXIB_CQC_CQ_MAX_COUNT			4, 15, 0, struct cxib_cqc
/* c_eqn_or_apu_element */
#define CXIB_CQC_C_EQN				5, 31, 0, struct cxib_cqc
/* log2(page) - 12 */
#define CXIB_CQC_LOG_PAGE_SIZE			6, 28, 24, struct cxib_cqc
#define CXIB_CQC_LAST_NOTIFIED_INDEX		8, 23, 0, struct cxib_cqc
#define CXIB_CQC_LAST_SOLICIT_INDEX		9, 23, 0, struct cxib_cqc
#define CXIB_CQC_CONSUMER_COUNTER		10, 23, 0, struct cxib_cqc
#define CXIB_CQC_PRODUCER_COUNTER		11, 23, 0, struct cxib_cqc
#define CXIB_CQC_DBR_ADDR			14, 63, 0, struct cxib_cqc

/* cqc status */
enum {
	CXIB_CQC_STATUS_OK			= 0x0,
	CXIB_CQC_STATUS_CQ_OVERFLOW		= 0x9,
	CXIB_CQC_STATUS_CQ_WRITE_FAIL		= 0xa,
};

/* cqc st (arm state) */
enum {
	CXIB_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED	= 0x6,
	CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED			= 0x9,
	CXIB_CQC_ST_FIRED					= 0xa,
};

/* cqc cqe_sz */
enum {
	CXIB_CQC_CQE_SZ_64			= 0,
	CXIB_CQC_CQE_SZ_128			= 1,
	CXIB_CQC_CQE_SZ_128_PAD			= 2,
};

/* cqc cq_period_mode */
enum {
	CXIB_CQ_PERIOD_MODE_START_FROM_EQE	= 0,
	CXIB_CQ_PERIOD_MODE_START_FROM_CQE	= 1,
};

/* Moderation limits: the widths of cq_period (microseconds) and cq_max_count; 0 = off */
#define CXIB_CQ_MAX_PERIOD			CXIB_FIELD_GET(CXIB_CQC_CQ_PERIOD, 0xffffffffu)
#define CXIB_CQ_MAX_COUNT			CXIB_FIELD_GET(CXIB_CQC_CQ_MAX_COUNT, 0xffffffffu)

/* ---- CREATE_CQ / DESTROY_CQ / QUERY_CQ / MODIFY_CQ (0x400 - 0x403) -------------------- */

#define CXIB_CREATE_CQ_IN_CQC_OFFSET		0x10
#define CXIB_CREATE_CQ_IN_CQ_UMEM_VALID		23, 31, 31, struct cxib_create_cq_in	/* 0x5c */
#define CXIB_CREATE_CQ_IN_PAS_OFFSET		0x110
struct cxib_create_cq_in { __be32 dw[CXIB_CREATE_CQ_IN_PAS_OFFSET / 4]; };
#define CXIB_CREATE_CQ_IN_LEN(npas)		(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_CREATE_CQ_OUT_CQN			2, 23, 0, struct cxib_create_cq_out
#define CXIB_CREATE_CQ_OUT_LEN			16
struct cxib_create_cq_out { __be32 dw[CXIB_CREATE_CQ_OUT_LEN / 4]; };

#define CXIB_DESTROY_CQ_IN_RESERVED_AT_40	2, 31, 24, struct cxib_destroy_cq_in
#define CXIB_DESTROY_CQ_IN_CQN			2, 23, 0, struct cxib_destroy_cq_in
#define CXIB_DESTROY_CQ_IN_RESERVED_AT_60	3, 31, 0, struct cxib_destroy_cq_in
#define CXIB_DESTROY_CQ_IN_LEN			16
struct cxib_destroy_cq_in { __be32 dw[CXIB_DESTROY_CQ_IN_LEN / 4]; };
#define CXIB_DESTROY_CQ_OUT_LEN			16
struct cxib_destroy_cq_out { __be32 dw[CXIB_DESTROY_CQ_OUT_LEN / 4]; };

#define CXIB_QUERY_CQ_IN_RESERVED_AT_40		2, 31, 24, struct cxib_query_cq_in
#define CXIB_QUERY_CQ_IN_CQN			2, 23, 0, struct cxib_query_cq_in
#define CXIB_QUERY_CQ_IN_RESERVED_AT_60		3, 31, 0, struct cxib_query_cq_in
#define CXIB_QUERY_CQ_IN_LEN			16
struct cxib_query_cq_in { __be32 dw[CXIB_QUERY_CQ_IN_LEN / 4]; };
#define CXIB_QUERY_CQ_OUT_CQC_OFFSET		0x10
#define CXIB_QUERY_CQ_OUT_LEN			0x110	/* no PAS returned */
struct cxib_query_cq_out { __be32 dw[CXIB_QUERY_CQ_OUT_LEN / 4]; };

#define CXIB_MODIFY_CQ_IN_RESERVED_AT_40	2, 31, 24, struct cxib_modify_cq_in
#define CXIB_MODIFY_CQ_IN_CQN			2, 23, 0, struct cxib_modify_cq_in
/* op_mod MODIFY */
#define CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT	3, 31, 0, struct cxib_modify_cq_in
/* op_mod RESIZE */
#define CXIB_MODIFY_CQ_IN_RESIZE_FIELD_SELECT	3, 31, 0, struct cxib_modify_cq_in
#define CXIB_MODIFY_CQ_IN_CQC_OFFSET		0x10
#define CXIB_MODIFY_CQ_IN_CQ_UMEM_VALID		23, 31, 31, struct cxib_modify_cq_in
#define CXIB_MODIFY_CQ_IN_PAS_OFFSET		0x110
struct cxib_modify_cq_in { __be32 dw[CXIB_MODIFY_CQ_IN_PAS_OFFSET / 4]; };
#define CXIB_MODIFY_CQ_IN_LEN(npas)		(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_MODIFY_CQ_OUT_LEN			16
struct cxib_modify_cq_out { __be32 dw[CXIB_MODIFY_CQ_OUT_LEN / 4]; };

/* MODIFY_CQ op_mod */
enum {
	CXIB_MODIFY_CQ_OP_MOD_MODIFY		= 0,
	CXIB_MODIFY_CQ_OP_MOD_RESIZE		= 1,
};

/* modify_field_select bits (op_mod MODIFY) */
enum {
	CXIB_CQ_MODIFY_PERIOD			= 1 << 0,
	CXIB_CQ_MODIFY_COUNT			= 1 << 1,
	CXIB_CQ_MODIFY_OVERRUN			= 1 << 2,
	CXIB_CQ_MODIFY_EQN			= 1 << 3,
	CXIB_CQ_MODIFY_PERIOD_MODE		= 1 << 4,
};

/* resize_field_select bits (op_mod RESIZE) */
enum {
	CXIB_CQ_RESIZE_LOG_SIZE			= 1 << 0,
	CXIB_CQ_RESIZE_PAGE_OFFSET		= 1 << 1,
	CXIB_CQ_RESIZE_LOG_PAGE_SIZE		= 1 << 2,
};

/* ---- Address path (ads, 44 B), inside the qpc ---------------------------------------- */

#define CXIB_ADS_SIZE				44
struct cxib_ads { __be32 dw[CXIB_ADS_SIZE / 4]; };

#define CXIB_ADS_FL				0, 31, 31, struct cxib_ads	/* force loopback */
#define CXIB_ADS_FREE_AR			0, 30, 30, struct cxib_ads
#define CXIB_ADS_PKEY_INDEX			0, 15, 0, struct cxib_ads
#define CXIB_ADS_PLANE_INDEX			1, 31, 24, struct cxib_ads
#define CXIB_ADS_GRH				1, 23, 23, struct cxib_ads
/* source path bits */
#define CXIB_ADS_MLID				1, 22, 16, struct cxib_ads
#define CXIB_ADS_RLID				1, 15, 0, struct cxib_ads
#define CXIB_ADS_ACK_TIMEOUT			2, 31, 27, struct cxib_ads
#define CXIB_ADS_SRC_ADDR_INDEX			2, 23, 16, struct cxib_ads	/* SGID index */
#define CXIB_ADS_STAT_RATE			2, 11, 8, struct cxib_ads
#define CXIB_ADS_HOP_LIMIT			2, 7, 0, struct cxib_ads
#define CXIB_ADS_TCLASS				3, 27, 20, struct cxib_ads
#define CXIB_ADS_FLOW_LABEL			3, 19, 0, struct cxib_ads
#define CXIB_ADS_RGID_OFFSET			0x10		/* 16 bytes */
#define CXIB_ADS_RGID_LEN			16
#define CXIB_ADS_SL				9, 27, 24, struct cxib_ads
#define CXIB_ADS_VHCA_PORT_NUM			9, 23, 16, struct cxib_ads	/* 1-based port */

/* ---- QP context (qpc, 232 B) ------------------------------------------------------------- */

struct cxib_qpc {
	__be32 dw[58];
};

#define CXIB_QPC_SIZE				232

CXIB_STATIC_ASSERT(sizeof(struct cxib_qpc) == CXIB_QPC_SIZE);

#define CXIB_QPC_STATE				0, 31, 28, struct cxib_qpc
#define CXIB_QPC_LAG_TX_PORT_AFFINITY		0, 27, 24, struct cxib_qpc
#define CXIB_QPC_ST				0, 23, 16, struct cxib_qpc
#define CXIB_QPC_PM_STATE			0, 12, 11, struct cxib_qpc
#define CXIB_QPC_END_PADDING_MODE		0, 3, 2, struct cxib_qpc
#define CXIB_QPC_WQ_SIGNATURE			1, 31, 31, struct cxib_qpc
#define CXIB_QPC_BLOCK_LB_MC			1, 30, 30, struct cxib_qpc
#define CXIB_QPC_LATENCY_SENSITIVE		1, 28, 28, struct cxib_qpc
#define CXIB_QPC_DRAIN_SIGERR			1, 26, 26, struct cxib_qpc
#define CXIB_QPC_PD				1, 23, 0, struct cxib_qpc
#define CXIB_QPC_MTU				2, 31, 29, struct cxib_qpc
#define CXIB_QPC_LOG_MSG_MAX			2, 28, 24, struct cxib_qpc
#define CXIB_QPC_LOG_RQ_SIZE			2, 22, 19, struct cxib_qpc
/* log2(RQ WQE bytes) - 4 */
#define CXIB_QPC_LOG_RQ_STRIDE			2, 18, 16, struct cxib_qpc
#define CXIB_QPC_NO_SQ				2, 15, 15, struct cxib_qpc
#define CXIB_QPC_LOG_SQ_SIZE			2, 14, 11, struct cxib_qpc	/* 64-byte WQEBBs */
#define CXIB_QPC_RETRY_MODE			2, 9, 8, struct cxib_qpc
#define CXIB_QPC_TS_FORMAT			2, 7, 6, struct cxib_qpc
#define CXIB_QPC_RLKY				2, 4, 4, struct cxib_qpc
#define CXIB_QPC_ULP_STATELESS_OFFLOAD_MODE	2, 3, 0, struct cxib_qpc
#define CXIB_QPC_COUNTER_SET_ID			3, 31, 24, struct cxib_qpc
#define CXIB_QPC_UAR_PAGE			3, 23, 0, struct cxib_qpc
#define CXIB_QPC_USER_INDEX			4, 23, 0, struct cxib_qpc
/* log2(page) - 12 */
#define CXIB_QPC_LOG_PAGE_SIZE			5, 28, 24, struct cxib_qpc
#define CXIB_QPC_REMOTE_QPN			5, 23, 0, struct cxib_qpc
#define CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET	0x18
#define CXIB_QPC_SECONDARY_ADDRESS_PATH_OFFSET	0x44
#define CXIB_QPC_LOG_ACK_REQ_FREQ		28, 31, 28, struct cxib_qpc
#define CXIB_QPC_LOG_SRA_MAX			28, 23, 21, struct cxib_qpc
#define CXIB_QPC_RETRY_COUNT			28, 18, 16, struct cxib_qpc
#define CXIB_QPC_RNR_RETRY			28, 15, 13, struct cxib_qpc
#define CXIB_QPC_FRE				28, 11, 11, struct cxib_qpc
#define CXIB_QPC_CUR_RNR_RETRY			28, 10, 8, struct cxib_qpc
#define CXIB_QPC_CUR_RETRY_COUNT		28, 7, 5, struct cxib_qpc
#define CXIB_QPC_NEXT_SEND_PSN			30, 23, 0, struct cxib_qpc
#define CXIB_QPC_CQN_SND			31, 23, 0, struct cxib_qpc
#define CXIB_QPC_DETH_SQPN			32, 23, 0, struct cxib_qpc
#define CXIB_QPC_LAST_ACKED_PSN			34, 23, 0, struct cxib_qpc
#define CXIB_QPC_SSN				35, 23, 0, struct cxib_qpc
#define CXIB_QPC_LOG_RRA_MAX			36, 23, 21, struct cxib_qpc
#define CXIB_QPC_ATOMIC_MODE			36, 19, 16, struct cxib_qpc
#define CXIB_QPC_RRE				36, 15, 15, struct cxib_qpc
#define CXIB_QPC_RWE				36, 14, 14, struct cxib_qpc
#define CXIB_QPC_RAE				36, 13, 13, struct cxib_qpc
/* CXIB_PAGE_OFFSET_BYTES() */
#define CXIB_QPC_PAGE_OFFSET			36, 11, 6, struct cxib_qpc
#define CXIB_QPC_CD_SLAVE_RECEIVE		36, 2, 2, struct cxib_qpc
#define CXIB_QPC_CD_SLAVE_SEND			36, 1, 1, struct cxib_qpc
#define CXIB_QPC_CD_MASTER			36, 0, 0, struct cxib_qpc
#define CXIB_QPC_MIN_RNR_NAK			37, 28, 24, struct cxib_qpc
#define CXIB_QPC_NEXT_RCV_PSN			37, 23, 0, struct cxib_qpc
#define CXIB_QPC_XRCD				38, 23, 0, struct cxib_qpc
#define CXIB_QPC_CQN_RCV			39, 23, 0, struct cxib_qpc
#define CXIB_QPC_DBR_ADDR			40, 63, 0, struct cxib_qpc
#define CXIB_QPC_Q_KEY				42, 31, 0, struct cxib_qpc
#define CXIB_QPC_RQ_TYPE			43, 26, 24, struct cxib_qpc
#define CXIB_QPC_SRQN_RMPN_XRQN			43, 23, 0, struct cxib_qpc
#define CXIB_QPC_RMSN				44, 23, 0, struct cxib_qpc
#define CXIB_QPC_HW_SQ_WQEBB_COUNTER		45, 31, 16, struct cxib_qpc
#define CXIB_QPC_SW_SQ_WQEBB_COUNTER		45, 15, 0, struct cxib_qpc
#define CXIB_QPC_HW_RQ_COUNTER			46, 31, 0, struct cxib_qpc
#define CXIB_QPC_SW_RQ_COUNTER			47, 31, 0, struct cxib_qpc
#define CXIB_QPC_CS_REQ				49, 15, 8, struct cxib_qpc
#define CXIB_QPC_CS_RES				49, 7, 0, struct cxib_qpc
#define CXIB_QPC_DC_ACCESS_KEY			50, 63, 0, struct cxib_qpc
#define CXIB_QPC_DBR_UMEM_VALID			52, 28, 28, struct cxib_qpc

/* qpc state */
enum {
	CXIB_QPC_STATE_RST			= 0x0,
	CXIB_QPC_STATE_INIT			= 0x1,
	CXIB_QPC_STATE_RTR			= 0x2,
	CXIB_QPC_STATE_RTS			= 0x3,
	CXIB_QPC_STATE_SQER			= 0x4,
	CXIB_QPC_STATE_SQD			= 0x5,
	CXIB_QPC_STATE_ERR			= 0x6,
	CXIB_QPC_STATE_SQ_DRAINING		= 0x7,
	CXIB_QPC_STATE_SUSPENDED		= 0x9,
};

/* qpc st (service type) */
enum {
	CXIB_QPC_ST_RC				= 0x0,
	CXIB_QPC_ST_UC				= 0x1,
	CXIB_QPC_ST_UD				= 0x2,
	CXIB_QPC_ST_XRC				= 0x3,
	CXIB_QPC_ST_MLX				= 0x4,
	CXIB_QPC_ST_DCI				= 0x5,
	CXIB_QPC_ST_DCT				= 0x6,
	CXIB_QPC_ST_QP0				= 0x7,
	CXIB_QPC_ST_QP1				= 0x8,
	CXIB_QPC_ST_RAW_DATAGRAM		= 0x9,
	CXIB_QPC_ST_REG_UMR			= 0xc,
	CXIB_QPC_ST_PTP_1588			= 0xd,
	CXIB_QPC_ST_SYNC_UMR			= 0xe,
};

/* qpc ulp_stateless_offload_mode: UD QPs only */
enum {
	CXIB_QPC_ULP_OFFLOAD_NONE		= 0x0,
	CXIB_QPC_ULP_OFFLOAD_IPOIB_UD		= 0x1,	/* eth segment: checksum, LSO */
};

/* qpc pm_state */
enum {
	CXIB_QPC_PM_STATE_ARMED			= 0x0,
	CXIB_QPC_PM_STATE_REARM			= 0x1,
	CXIB_QPC_PM_STATE_MIGRATED		= 0x3,
};

/* qpc mtu (the IB MTU enum) */
enum {
	CXIB_QPC_MTU_256			= 1,
	CXIB_QPC_MTU_512			= 2,
	CXIB_QPC_MTU_1024			= 3,
	CXIB_QPC_MTU_2048			= 4,
	CXIB_QPC_MTU_4096			= 5,
	CXIB_QPC_MTU_RAW_ETH			= 7,
};

/* qpc rq_type */
enum {
	CXIB_QPC_RQ_TYPE_REGULAR		= 0x0,
	CXIB_QPC_RQ_TYPE_SRQ			= 0x1,
	CXIB_QPC_RQ_TYPE_CRQ			= 0x2,
	CXIB_QPC_RQ_TYPE_ZERO_SIZE_RQ		= 0x3,
};

/* qpc log_rq_stride is log2(RQ WQE bytes) - this: it counts 16-byte units */
#define CXIB_QPC_LOG_RQ_STRIDE_BASE		4

/* qpc atomic_mode */
enum {
	CXIB_QPC_ATOMIC_MODE_IB_SPEC		= 0x1,
	CXIB_QPC_ATOMIC_MODE_ONLY_8B		= 0x2,
	CXIB_QPC_ATOMIC_MODE_UP_TO_8B		= 0x3,
};

/* opt_param_mask of the QP modify commands */
enum {
	CXIB_QP_OPTPAR_ALT_ADDR_PATH		= 1 << 0,
	CXIB_QP_OPTPAR_RRE			= 1 << 1,
	CXIB_QP_OPTPAR_RAE			= 1 << 2,
	CXIB_QP_OPTPAR_RWE			= 1 << 3,
	CXIB_QP_OPTPAR_PKEY_INDEX		= 1 << 4,
	CXIB_QP_OPTPAR_Q_KEY			= 1 << 5,
	CXIB_QP_OPTPAR_RNR_TIMEOUT		= 1 << 6,
	CXIB_QP_OPTPAR_PRIMARY_ADDR_PATH	= 1 << 7,
	CXIB_QP_OPTPAR_SRA_MAX			= 1 << 8,
	CXIB_QP_OPTPAR_RRA_MAX			= 1 << 9,
	CXIB_QP_OPTPAR_PM_STATE			= 1 << 10,
	CXIB_QP_OPTPAR_RETRY_COUNT		= 1 << 12,
	CXIB_QP_OPTPAR_RNR_RETRY		= 1 << 13,
	CXIB_QP_OPTPAR_ACK_TIMEOUT		= 1 << 14,
	CXIB_QP_OPTPAR_LAG_TX_AFF		= 1 << 15,
	CXIB_QP_OPTPAR_PRI_PORT			= 1 << 16,
	CXIB_QP_OPTPAR_SRQN			= 1 << 18,
	CXIB_QP_OPTPAR_CQN_RCV			= 1 << 19,
	CXIB_QP_OPTPAR_COUNTER_SET_ID		= 1 << 25,
};

/* ---- CREATE_QP / DESTROY_QP / QUERY_QP and the QP state commands (0x500 - 0x50e) ----- */

#define CXIB_CREATE_QP_IN_QPC_EXT		2, 31, 31, struct cxib_create_qp_in
#define CXIB_CREATE_QP_IN_INPUT_QPN		2, 23, 0, struct cxib_create_qp_in
#define CXIB_CREATE_QP_IN_OPT_PARAM_MASK	4, 31, 0, struct cxib_create_qp_in
#define CXIB_CREATE_QP_IN_ECE			5, 31, 0, struct cxib_create_qp_in
#define CXIB_CREATE_QP_IN_QPC_OFFSET		0x18
#define CXIB_CREATE_QP_IN_WQ_UMEM_OFFSET	64, 63, 0, struct cxib_create_qp_in	/* 0x100 */
#define CXIB_CREATE_QP_IN_WQ_UMEM_ID		66, 31, 0, struct cxib_create_qp_in
#define CXIB_CREATE_QP_IN_WQ_UMEM_VALID		67, 31, 31, struct cxib_create_qp_in
#define CXIB_CREATE_QP_IN_PAS_OFFSET		0x110	/* RQ first, then the SQ */
struct cxib_create_qp_in { __be32 dw[CXIB_CREATE_QP_IN_PAS_OFFSET / 4]; };
#define CXIB_CREATE_QP_IN_LEN(npas)		(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_CREATE_QP_OUT_QPN			2, 23, 0, struct cxib_create_qp_out
#define CXIB_CREATE_QP_OUT_ECE			3, 31, 0, struct cxib_create_qp_out
#define CXIB_CREATE_QP_OUT_LEN			16
struct cxib_create_qp_out { __be32 dw[CXIB_CREATE_QP_OUT_LEN / 4]; };

#define CXIB_DESTROY_QP_IN_RESERVED_AT_40	2, 31, 24, struct cxib_destroy_qp_in
#define CXIB_DESTROY_QP_IN_QPN			2, 23, 0, struct cxib_destroy_qp_in
#define CXIB_DESTROY_QP_IN_LEN			16
struct cxib_destroy_qp_in { __be32 dw[CXIB_DESTROY_QP_IN_LEN / 4]; };
#define CXIB_DESTROY_QP_OUT_LEN			16
struct cxib_destroy_qp_out { __be32 dw[CXIB_DESTROY_QP_OUT_LEN / 4]; };

#define CXIB_QUERY_QP_IN_RESERVED_AT_40		2, 31, 24, struct cxib_query_qp_in
#define CXIB_QUERY_QP_IN_QPN			2, 23, 0, struct cxib_query_qp_in
#define CXIB_QUERY_QP_IN_LEN			16
struct cxib_query_qp_in { __be32 dw[CXIB_QUERY_QP_IN_LEN / 4]; };
#define CXIB_QUERY_QP_OUT_OPT_PARAM_MASK	4, 31, 0, struct cxib_query_qp_out
#define CXIB_QUERY_QP_OUT_ECE			5, 31, 0, struct cxib_query_qp_out
#define CXIB_QUERY_QP_OUT_QPC_OFFSET		0x18
#define CXIB_QUERY_QP_OUT_PAS_OFFSET		0x110
#define CXIB_QUERY_QP_OUT_LEN			0x110	/* the model returns no PAS */
struct cxib_query_qp_out { __be32 dw[CXIB_QUERY_QP_OUT_LEN / 4]; };

/*
 * RST2INIT, INIT2INIT, INIT2RTR, RTR2RTS, RTS2RTS, SQERR2RTS, SQD_RTS share one input
 * layout (CXIB_QP_MODIFY_IN_*); 2ERR and 2RST take only the QPN (CXIB_QP_2ERR_IN_*).
 * Every QP command has its QPN, and the reserved byte above it, where these do.
 */
#define CXIB_QP_MODIFY_IN_RESERVED_AT_40	2, 31, 24, struct cxib_qp_modify_in
#define CXIB_QP_MODIFY_IN_QPN			2, 23, 0, struct cxib_qp_modify_in
#define CXIB_QP_MODIFY_IN_OPT_PARAM_MASK	4, 31, 0, struct cxib_qp_modify_in
#define CXIB_QP_MODIFY_IN_ECE			5, 31, 0, struct cxib_qp_modify_in
#define CXIB_QP_MODIFY_IN_QPC_OFFSET		0x18
#define CXIB_QP_MODIFY_IN_LEN			0x110
struct cxib_qp_modify_in { __be32 dw[CXIB_QP_MODIFY_IN_LEN / 4]; };
#define CXIB_QP_MODIFY_OUT_ECE			3, 31, 0, struct cxib_qp_modify_out
#define CXIB_QP_MODIFY_OUT_LEN			16
struct cxib_qp_modify_out { __be32 dw[CXIB_QP_MODIFY_OUT_LEN / 4]; };

#define CXIB_QP_2ERR_IN_QPN			2, 23, 0, struct cxib_qp_2err_in
#define CXIB_QP_2ERR_IN_LEN			16
struct cxib_qp_2err_in { __be32 dw[CXIB_QP_2ERR_IN_LEN / 4]; };
#define CXIB_QP_2ERR_OUT_LEN			16
struct cxib_qp_2err_out { __be32 dw[CXIB_QP_2ERR_OUT_LEN / 4]; };
#define CXIB_QP_2RST_IN_QPN			2, 23, 0, struct cxib_qp_2rst_in
#define CXIB_QP_2RST_IN_LEN			16
struct cxib_qp_2rst_in { __be32 dw[CXIB_QP_2RST_IN_LEN / 4]; };
#define CXIB_QP_2RST_OUT_LEN			16
struct cxib_qp_2rst_out { __be32 dw[CXIB_QP_2RST_OUT_LEN / 4]; };

/* ---- SRQ context (srqc, ISSI 0) ---------------------------------------------------------- */

struct cxib_srqc {
	__be32 dw[16];
};

#define CXIB_SRQC_SIZE				64

CXIB_STATIC_ASSERT(sizeof(struct cxib_srqc) == CXIB_SRQC_SIZE);

#define CXIB_SRQC_STATE				0, 31, 28, struct cxib_srqc
#define CXIB_SRQC_LOG_SRQ_SIZE			0, 27, 24, struct cxib_srqc
#define CXIB_SRQC_WQ_SIGNATURE			1, 31, 31, struct cxib_srqc
#define CXIB_SRQC_CONT_SRQ			1, 30, 30, struct cxib_srqc
#define CXIB_SRQC_RLKY				1, 28, 28, struct cxib_srqc
/* log2(WQE bytes) - 4 */
#define CXIB_SRQC_LOG_RQ_STRIDE			1, 26, 24, struct cxib_srqc
#define CXIB_SRQC_XRCD				1, 23, 0, struct cxib_srqc
#define CXIB_SRQC_PAGE_OFFSET			2, 31, 26, struct cxib_srqc
#define CXIB_SRQC_CQN				2, 23, 0, struct cxib_srqc	/* XRC SRQs only */
/* log2(page) - 12 */
#define CXIB_SRQC_LOG_PAGE_SIZE			4, 29, 24, struct cxib_srqc
#define CXIB_SRQC_PD				6, 23, 0, struct cxib_srqc
#define CXIB_SRQC_LWM				7, 31, 16, struct cxib_srqc
#define CXIB_SRQC_WQE_CNT			7, 15, 0, struct cxib_srqc
#define CXIB_SRQC_DBR_ADDR			10, 63, 0, struct cxib_srqc

/* srqc state */
enum {
	CXIB_SRQC_STATE_GOOD			= 0x0,
	CXIB_SRQC_STATE_ERROR			= 0x1,
};

/* log_rq_stride of an srqc or xrc_srqc is log2(WQE bytes) - this; a wq's log_wq_stride is not */
#define CXIB_SRQC_LOG_RQ_STRIDE_BASE		4	/* 16-byte units */

/* The byte above the 24-bit object number in dword 2 of every SRQ, XRC SRQ and RMP command. */
#define CXIB_SRQ_CMD_IN_RESERVED_AT_40		2, 31, 24

/* ---- CREATE_SRQ / DESTROY_SRQ / QUERY_SRQ / ARM_RQ (0x700 - 0x703) -------------------- */

#define CXIB_CREATE_SRQ_IN_SRQC_OFFSET		0x10
#define CXIB_CREATE_SRQ_IN_PAS_OFFSET		0x110
struct cxib_create_srq_in { __be32 dw[CXIB_CREATE_SRQ_IN_PAS_OFFSET / 4]; };
#define CXIB_CREATE_SRQ_IN_LEN(npas)		(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_CREATE_SRQ_OUT_SRQN		2, 23, 0, struct cxib_create_srq_out
#define CXIB_CREATE_SRQ_OUT_LEN			16
struct cxib_create_srq_out { __be32 dw[CXIB_CREATE_SRQ_OUT_LEN / 4]; };

#define CXIB_DESTROY_SRQ_IN_SRQN		2, 23, 0, struct cxib_destroy_srq_in
#define CXIB_DESTROY_SRQ_IN_LEN			16
struct cxib_destroy_srq_in { __be32 dw[CXIB_DESTROY_SRQ_IN_LEN / 4]; };
#define CXIB_DESTROY_SRQ_OUT_LEN		16
struct cxib_destroy_srq_out { __be32 dw[CXIB_DESTROY_SRQ_OUT_LEN / 4]; };

#define CXIB_QUERY_SRQ_IN_SRQN			2, 23, 0, struct cxib_query_srq_in
#define CXIB_QUERY_SRQ_IN_LEN			16
struct cxib_query_srq_in { __be32 dw[CXIB_QUERY_SRQ_IN_LEN / 4]; };
#define CXIB_QUERY_SRQ_OUT_SRQC_OFFSET		0x10
#define CXIB_QUERY_SRQ_OUT_LEN			0x110	/* no PAS returned */
struct cxib_query_srq_out { __be32 dw[CXIB_QUERY_SRQ_OUT_LEN / 4]; };

#define CXIB_ARM_RQ_IN_SRQ_NUMBER		2, 23, 0, struct cxib_arm_rq_in
#define CXIB_ARM_RQ_IN_RESERVED_AT_60		3, 31, 16, struct cxib_arm_rq_in
#define CXIB_ARM_RQ_IN_LWM			3, 15, 0, struct cxib_arm_rq_in
#define CXIB_ARM_RQ_IN_LEN			16
struct cxib_arm_rq_in { __be32 dw[CXIB_ARM_RQ_IN_LEN / 4]; };
#define CXIB_ARM_RQ_OUT_LEN			16
struct cxib_arm_rq_out { __be32 dw[CXIB_ARM_RQ_OUT_LEN / 4]; };

/* ARM_RQ op_mod */
enum {
	CXIB_ARM_RQ_OP_MOD_RQ			= 0,
	CXIB_ARM_RQ_OP_MOD_SRQ			= 1,
};

/* ---- XRC SRQ context (xrc_srqc, ISSI 1): the srqc's positions plus the XRC fields ------ */

#define CXIB_XRC_SRQC_SIZE			64
struct cxib_xrc_srqc { __be32 dw[CXIB_XRC_SRQC_SIZE / 4]; };

/* CXIB_SRQC_STATE_* */
#define CXIB_XRC_SRQC_STATE			0, 31, 28, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_LOG_XRC_SRQ_SIZE		0, 27, 24, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_WQ_SIGNATURE		1, 31, 31, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_CONT_SRQ			1, 30, 30, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_RLKY			1, 28, 28, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_BASIC_CYCLIC_RCV_WQE	1, 27, 27, struct cxib_xrc_srqc
/* log2(WQE bytes) - 4 */
#define CXIB_XRC_SRQC_LOG_RQ_STRIDE		1, 26, 24, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_XRCD			1, 23, 0, struct cxib_xrc_srqc
/* in page_size / 64 */
#define CXIB_XRC_SRQC_PAGE_OFFSET		2, 31, 26, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_DBR_UMEM_VALID		2, 24, 24, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_CQN			2, 23, 0, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_USER_INDEX_EQUAL_XRC_SRQN	4, 31, 31, struct cxib_xrc_srqc
/* log2(page) - 12 */
#define CXIB_XRC_SRQC_LOG_PAGE_SIZE		4, 29, 24, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_USER_INDEX		4, 23, 0, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_PD			6, 23, 0, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_LWM			7, 31, 16, struct cxib_xrc_srqc
#define CXIB_XRC_SRQC_WQE_CNT			7, 15, 0, struct cxib_xrc_srqc
/* bits 1:0 reserved */
#define CXIB_XRC_SRQC_DB_RECORD_ADDR		10, 63, 0, struct cxib_xrc_srqc

CXIB_STATIC_ASSERT(CXIB_XRC_SRQC_SIZE == CXIB_SRQC_SIZE);

/* ---- CREATE_XRC_SRQ / DESTROY_XRC_SRQ / QUERY_XRC_SRQ / ARM_XRC_SRQ (0x705 - 0x708) ---- */

#define CXIB_CREATE_XRC_SRQ_IN_XRC_SRQC_OFFSET	0x10
#define CXIB_CREATE_XRC_SRQ_IN_XRC_SRQ_UMEM_VALID	23, 31, 31, struct cxib_create_xrc_srq_in
#define CXIB_CREATE_XRC_SRQ_IN_PAS_OFFSET	0x110
struct cxib_create_xrc_srq_in { __be32 dw[CXIB_CREATE_XRC_SRQ_IN_PAS_OFFSET / 4]; };
#define CXIB_CREATE_XRC_SRQ_IN_LEN(npas)	(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_CREATE_XRC_SRQ_OUT_XRC_SRQN	2, 23, 0, struct cxib_create_xrc_srq_out
#define CXIB_CREATE_XRC_SRQ_OUT_LEN		16
struct cxib_create_xrc_srq_out { __be32 dw[CXIB_CREATE_XRC_SRQ_OUT_LEN / 4]; };

#define CXIB_DESTROY_XRC_SRQ_IN_XRC_SRQN	2, 23, 0, struct cxib_destroy_xrc_srq_in
#define CXIB_DESTROY_XRC_SRQ_IN_LEN		16
struct cxib_destroy_xrc_srq_in { __be32 dw[CXIB_DESTROY_XRC_SRQ_IN_LEN / 4]; };
#define CXIB_DESTROY_XRC_SRQ_OUT_LEN		16
struct cxib_destroy_xrc_srq_out { __be32 dw[CXIB_DESTROY_XRC_SRQ_OUT_LEN / 4]; };

#define CXIB_QUERY_XRC_SRQ_IN_XRC_SRQN		2, 23, 0, struct cxib_query_xrc_srq_in
#define CXIB_QUERY_XRC_SRQ_IN_LEN		16
struct cxib_query_xrc_srq_in { __be32 dw[CXIB_QUERY_XRC_SRQ_IN_LEN / 4]; };
#define CXIB_QUERY_XRC_SRQ_OUT_XRC_SRQC_OFFSET	0x10
#define CXIB_QUERY_XRC_SRQ_OUT_LEN		0x110	/* no PAS returned */
struct cxib_query_xrc_srq_out { __be32 dw[CXIB_QUERY_XRC_SRQ_OUT_LEN / 4]; };

#define CXIB_ARM_XRC_SRQ_IN_XRC_SRQN		2, 23, 0, struct cxib_arm_xrc_srq_in
#define CXIB_ARM_XRC_SRQ_IN_RESERVED_AT_60	3, 31, 16, struct cxib_arm_xrc_srq_in
#define CXIB_ARM_XRC_SRQ_IN_LWM			3, 15, 0, struct cxib_arm_xrc_srq_in
#define CXIB_ARM_XRC_SRQ_IN_LEN			16
struct cxib_arm_xrc_srq_in { __be32 dw[CXIB_ARM_XRC_SRQ_IN_LEN / 4]; };
#define CXIB_ARM_XRC_SRQ_OUT_LEN		16
struct cxib_arm_xrc_srq_out { __be32 dw[CXIB_ARM_XRC_SRQ_OUT_LEN / 4]; };

/* ARM_XRC_SRQ op_mod */
enum {
	CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ		= 1,
};

/* ---- RMP (ISSI 1 basic SRQs): rmpc with its embedded wq context ---------------------- */

#define CXIB_WQC_SIZE				0xc0	/* wq context, PAS list follows */
struct cxib_wqc { __be32 dw[CXIB_WQC_SIZE / 4]; };
#define CXIB_WQC_WQ_TYPE			0, 31, 28, struct cxib_wqc
#define CXIB_WQC_WQ_SIGNATURE			0, 27, 27, struct cxib_wqc
#define CXIB_WQC_END_PADDING_MODE		0, 26, 25, struct cxib_wqc
#define CXIB_WQC_CD_SLAVE			0, 24, 24, struct cxib_wqc
#define CXIB_WQC_HDS_SKIP_FIRST_SGE		1, 31, 31, struct cxib_wqc
#define CXIB_WQC_LOG2_HDS_BUF_SIZE		1, 30, 28, struct cxib_wqc
/* in page_size / 64 */
#define CXIB_WQC_PAGE_OFFSET			1, 20, 16, struct cxib_wqc
#define CXIB_WQC_LWM				1, 15, 0, struct cxib_wqc
#define CXIB_WQC_PD				2, 23, 0, struct cxib_wqc
#define CXIB_WQC_UAR_PAGE			3, 23, 0, struct cxib_wqc
#define CXIB_WQC_DBR_ADDR			4, 63, 0, struct cxib_wqc
#define CXIB_WQC_HW_COUNTER			6, 31, 0, struct cxib_wqc
#define CXIB_WQC_SW_COUNTER			7, 31, 0, struct cxib_wqc
#define CXIB_WQC_LOG_WQ_STRIDE			8, 19, 16, struct cxib_wqc	/* absolute log2 */
/* log2(page) - 12 */
#define CXIB_WQC_LOG_WQ_PG_SZ			8, 12, 8, struct cxib_wqc
#define CXIB_WQC_LOG_WQ_SZ			8, 4, 0, struct cxib_wqc
#define CXIB_WQC_DBR_UMEM_VALID			9, 31, 31, struct cxib_wqc
#define CXIB_WQC_WQ_UMEM_VALID			9, 30, 30, struct cxib_wqc
#define CXIB_WQC_LOG_HAIRPIN_NUM_PACKETS	9, 28, 24, struct cxib_wqc
#define CXIB_WQC_LOG_HAIRPIN_DATA_SZ		9, 20, 16, struct cxib_wqc
#define CXIB_WQC_LOG_WQE_NUM_OF_STRIDES		9, 11, 8, struct cxib_wqc
#define CXIB_WQC_TWO_BYTE_SHIFT_EN		9, 7, 7, struct cxib_wqc
#define CXIB_WQC_LOG_WQE_STRIDE_SIZE		9, 2, 0, struct cxib_wqc
#define CXIB_WQC_SHAMPO_ENABLE			15, 31, 31, struct cxib_wqc

/* wq_type */
enum {
	CXIB_WQ_TYPE_LINKED_LIST		= 0x0,
	CXIB_WQ_TYPE_CYCLIC			= 0x1,
};

#define CXIB_RMPC_STATE				0, 23, 20, struct cxib_rmpc
#define CXIB_RMPC_BASIC_CYCLIC_RCV_WQE		1, 31, 31, struct cxib_rmpc
#define CXIB_RMPC_WQ_OFFSET			0x30
#define CXIB_RMPC_SIZE				(CXIB_RMPC_WQ_OFFSET + CXIB_WQC_SIZE)
/*
 * An RMP context with its work queue context (CXIB_WQC_* at CXIB_RMPC_WQ_OFFSET), without
 * the PAS list that follows it in CREATE_RMP: what ISSI 1 creates a basic SRQ from and
 * QUERY_RMP returns.
 */
struct cxib_rmpc { __be32 dw[CXIB_RMPC_SIZE / 4]; };

/* The work queue context inside an RMP context. */
static inline struct cxib_wqc *cxib_rmpc_wq(struct cxib_rmpc *rmpc)
{
	return (struct cxib_wqc *)((unsigned char *)rmpc + CXIB_RMPC_WQ_OFFSET);
}

static inline const struct cxib_wqc *cxib_rmpc_wq_const(const struct cxib_rmpc *rmpc)
{
	return (const struct cxib_wqc *)((const unsigned char *)rmpc + CXIB_RMPC_WQ_OFFSET);
}

/* rmpc state */
enum {
	CXIB_RMPC_STATE_RDY			= 0x1,
	CXIB_RMPC_STATE_ERR			= 0x3,
};

#define CXIB_CREATE_RMP_IN_RMPC_OFFSET		0x20
#define CXIB_CREATE_RMP_IN_PAS_OFFSET		0x110	/* = rmpc + wq + CXIB_WQC_SIZE */
struct cxib_create_rmp_in { __be32 dw[CXIB_CREATE_RMP_IN_PAS_OFFSET / 4]; };
#define CXIB_CREATE_RMP_IN_LEN(npas)		(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_CREATE_RMP_OUT_RMPN		2, 23, 0, struct cxib_create_rmp_out
#define CXIB_CREATE_RMP_OUT_LEN			16
struct cxib_create_rmp_out { __be32 dw[CXIB_CREATE_RMP_OUT_LEN / 4]; };

/* the current state */
#define CXIB_MODIFY_RMP_IN_RMP_STATE		2, 31, 28, struct cxib_modify_rmp_in
#define CXIB_MODIFY_RMP_IN_RESERVED_AT_44	2, 27, 24, struct cxib_modify_rmp_in
#define CXIB_MODIFY_RMP_IN_RMPN			2, 23, 0, struct cxib_modify_rmp_in
/* CXIB_RMP_BITMASK_* */
#define CXIB_MODIFY_RMP_IN_BITMASK		4, 63, 0, struct cxib_modify_rmp_in
#define CXIB_MODIFY_RMP_IN_RMPC_OFFSET		0x20
#define CXIB_MODIFY_RMP_IN_LEN			0x110
struct cxib_modify_rmp_in { __be32 dw[CXIB_MODIFY_RMP_IN_LEN / 4]; };
#define CXIB_MODIFY_RMP_OUT_LEN			16
struct cxib_modify_rmp_out { __be32 dw[CXIB_MODIFY_RMP_OUT_LEN / 4]; };
#define CXIB_RMP_BITMASK_LWM			(1ull << 0)

#define CXIB_DESTROY_RMP_IN_RMPN		2, 23, 0, struct cxib_destroy_rmp_in
#define CXIB_DESTROY_RMP_IN_LEN			16
struct cxib_destroy_rmp_in { __be32 dw[CXIB_DESTROY_RMP_IN_LEN / 4]; };
#define CXIB_DESTROY_RMP_OUT_LEN		16
struct cxib_destroy_rmp_out { __be32 dw[CXIB_DESTROY_RMP_OUT_LEN / 4]; };

#define CXIB_QUERY_RMP_IN_RMPN			2, 23, 0, struct cxib_query_rmp_in
#define CXIB_QUERY_RMP_IN_LEN			16
struct cxib_query_rmp_in { __be32 dw[CXIB_QUERY_RMP_IN_LEN / 4]; };
#define CXIB_QUERY_RMP_OUT_RMPC_OFFSET		0x20
#define CXIB_QUERY_RMP_OUT_LEN			0x110
struct cxib_query_rmp_out { __be32 dw[CXIB_QUERY_RMP_OUT_LEN / 4]; };

/* ---- ATTACH_TO_MCG / DETACH_FROM_MCG (0x806 / 0x807) ---------------------------------- */

#define CXIB_ATTACH_TO_MCG_IN_RESERVED_AT_40	2, 31, 24, struct cxib_attach_to_mcg_in
#define CXIB_ATTACH_TO_MCG_IN_QPN		2, 23, 0, struct cxib_attach_to_mcg_in
#define CXIB_ATTACH_TO_MCG_IN_RESERVED_AT_60	3, 31, 0, struct cxib_attach_to_mcg_in
#define CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET	0x10	/* 16 bytes */
#define CXIB_ATTACH_TO_MCG_IN_LEN		0x20
struct cxib_attach_to_mcg_in { __be32 dw[CXIB_ATTACH_TO_MCG_IN_LEN / 4]; };
#define CXIB_ATTACH_TO_MCG_OUT_LEN		16
struct cxib_attach_to_mcg_out { __be32 dw[CXIB_ATTACH_TO_MCG_OUT_LEN / 4]; };

#define CXIB_DETACH_FROM_MCG_IN_RESERVED_AT_40	2, 31, 24, struct cxib_detach_from_mcg_in
#define CXIB_DETACH_FROM_MCG_IN_QPN		2, 23, 0, struct cxib_detach_from_mcg_in
#define CXIB_DETACH_FROM_MCG_IN_RESERVED_AT_60	3, 31, 0, struct cxib_detach_from_mcg_in
#define CXIB_DETACH_FROM_MCG_IN_MULTICAST_GID_OFFSET	0x10
#define CXIB_DETACH_FROM_MCG_IN_LEN		0x20
struct cxib_detach_from_mcg_in { __be32 dw[CXIB_DETACH_FROM_MCG_IN_LEN / 4]; };
#define CXIB_DETACH_FROM_MCG_OUT_LEN		16
struct cxib_detach_from_mcg_out { __be32 dw[CXIB_DETACH_FROM_MCG_OUT_LEN / 4]; };

#define CXIB_MGID_LEN				16

/* Every queue context's page_offset lies inside its first page (CXIB_PAGE_OFFSET_BYTES). */
CXIB_STATIC_ASSERT(CXIB_PAGE_OFFSET_FITS(CXIB_CQC_PAGE_OFFSET));
CXIB_STATIC_ASSERT(CXIB_PAGE_OFFSET_FITS(CXIB_QPC_PAGE_OFFSET));
CXIB_STATIC_ASSERT(CXIB_PAGE_OFFSET_FITS(CXIB_SRQC_PAGE_OFFSET));
CXIB_STATIC_ASSERT(CXIB_PAGE_OFFSET_FITS(CXIB_XRC_SRQC_PAGE_OFFSET));
CXIB_STATIC_ASSERT(CXIB_PAGE_OFFSET_FITS(CXIB_WQC_PAGE_OFFSET));

#endif /* _CXIB_VERBS_H */
