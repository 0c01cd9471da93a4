/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: event queues (mlx5 PRM section 4.5).
 *
 *   CXIB_EQC_<FIELD>      EQ context (eqc), relative to the context; the context sits at
 *                         CXIB_CREATE_EQ_IN_EQC_OFFSET / CXIB_QUERY_EQ_OUT_EQC_OFFSET (cmd.h)
 *   CXIB_EQE_<FIELD>      64-byte event queue entry, relative to the entry (event data
 *                         fields included: data dword k is EQE dword 8 + k)
 *   CXIB_EQ_DB_<FIELD>    the 32-bit value written to UAR + CXIB_UAR_EQ_DOORBELL[_ARM]
 *   CXIB_EVENT_TYPE_*     event types (EQE byte 1; bit n of CREATE_EQ's event_bitmask)
 *
 * Ownership: software initialises every EQE's owner bit to 1.  The device writes EQE number
 * p (p = producer counter, counting from 0 forever) at slot p % 2^log_eq_size with owner =
 * (p >> log_eq_size) & 1; software's entry at consumer counter ci is valid when its owner
 * equals (ci >> log_eq_size) & 1.
 */
#ifndef _CXIB_EQ_H
#define _CXIB_EQ_H

#include "bits.h"
#include "hw.h"

/* ---- EQ context ------------------------------------------------------------------------ */

struct cxib_eqc {
	__be32 dw[16];
};

#define CXIB_EQC_SIZE				64

CXIB_STATIC_ASSERT(sizeof(struct cxib_eqc) == CXIB_EQC_SIZE);

#define CXIB_EQC_STATUS				0, 31, 28, struct cxib_eqc
#define CXIB_EQC_EC				0, 18, 18, struct cxib_eqc
#define CXIB_EQC_OI				0, 17, 17, struct cxib_eqc	/* overrun ignore */
#define CXIB_EQC_ST				0, 11, 8, struct cxib_eqc	/* armed / fired */
/* CXIB_PAGE_OFFSET_BYTES() */
#define CXIB_EQC_PAGE_OFFSET			2, 11, 6, struct cxib_eqc
#define CXIB_EQC_LOG_EQ_SIZE			3, 28, 24, struct cxib_eqc
#define CXIB_EQC_UAR_PAGE			3, 23, 0, struct cxib_eqc
#define CXIB_EQC_INTR				5, 11, 0, struct cxib_eqc	/* MSI-X vector */
/* log2(page) - 12 */
#define CXIB_EQC_LOG_PAGE_SIZE			6, 28, 24, struct cxib_eqc
#define CXIB_EQC_CONSUMER_COUNTER		10, 23, 0, struct cxib_eqc
#define CXIB_EQC_PRODUCER_COUNTER		11, 23, 0, struct cxib_eqc

/* eqc status */
enum {
	CXIB_EQC_STATUS_OK			= 0x0,
	CXIB_EQC_STATUS_EQ_WRITE_FAILURE	= 0xa,
};

/* eqc st */
enum {
	CXIB_EQC_ST_ARMED			= 0x9,
	CXIB_EQC_ST_FIRED			= 0xa,
};

/* ---- EQ doorbell (UAR + 0x40 update CI and arm, UAR + 0x48 update CI only) ------------ */

#define CXIB_EQ_DB_EQN				0, 31, 24
#define CXIB_EQ_DB_CI				0, 23, 0

/* ---- Event queue entry ----------------------------------------------------------------- */

struct cxib_eqe {
	__u8 rsvd0;
	__u8 type;
	__u8 rsvd1;
	__u8 sub_type;
	__be32 rsvd2[7];
	__be32 data[7];			/* event data, 28 bytes */
	__be16 rsvd3;
	__u8 signature;
	__u8 owner;			/* bit 0 */
};

#define CXIB_EQE_SIZE				64
#define CXIB_LOG_EQE_SIZE			6

CXIB_STATIC_ASSERT(sizeof(struct cxib_eqe) == CXIB_EQE_SIZE);

#define CXIB_EQE_EVENT_TYPE			0, 23, 16, struct cxib_eqe
#define CXIB_EQE_EVENT_SUB_TYPE			0, 7, 0, struct cxib_eqe
#define CXIB_EQE_DATA_OFFSET			0x20
#define CXIB_EQE_DATA_LEN			28
#define CXIB_EQE_SIGNATURE			15, 15, 8, struct cxib_eqe
#define CXIB_EQE_OWNER				15, 0, 0, struct cxib_eqe

/* Command completion (0x0a): bitmask of the command slots completed. */
#define CXIB_EQE_CMD_VECTOR			8, 31, 0, struct cxib_eqe

/* Page request (0x0b). */
#define CXIB_EQE_PAGE_REQ_EC_FUNCTION		8, 31, 16, struct cxib_eqe	/* flags */
#define CXIB_EQE_PAGE_REQ_FUNCTION_ID		8, 15, 0, struct cxib_eqe
/* s32: > 0 give, < 0 take */
#define CXIB_EQE_PAGE_REQ_NUM_PAGES		9, 31, 0, struct cxib_eqe

/* Port state change (0x09); the sub type says what changed. */
#define CXIB_EQE_PORT_NUM			10, 31, 28, struct cxib_eqe

/* Completion (0x00). */
#define CXIB_EQE_COMP_CQN			14, 23, 0, struct cxib_eqe

/* CQ error (0x04). */
#define CXIB_EQE_CQ_ERR_CQN			8, 23, 0, struct cxib_eqe
#define CXIB_EQE_CQ_ERR_SYNDROME		10, 7, 0, struct cxib_eqe

/* QP / WQ affiliated events (0x01-0x03, 0x05, 0x07, 0x10, 0x11, 0x13). */
#define CXIB_EQE_QP_TYPE			13, 31, 24, struct cxib_eqe	/* resource type */
#define CXIB_EQE_QP_QPN				14, 23, 0, struct cxib_eqe

/* SRQ events (0x12, 0x14). */
#define CXIB_EQE_SRQ_SRQN			14, 23, 0, struct cxib_eqe

/* Event types. */
enum {
	CXIB_EVENT_TYPE_COMP			= 0x00,
	CXIB_EVENT_TYPE_PATH_MIG		= 0x01,
	CXIB_EVENT_TYPE_COMM_EST		= 0x02,
	CXIB_EVENT_TYPE_SQ_DRAINED		= 0x03,
	CXIB_EVENT_TYPE_CQ_ERROR		= 0x04,
	CXIB_EVENT_TYPE_WQ_CATAS_ERROR		= 0x05,
	CXIB_EVENT_TYPE_PATH_MIG_FAILED		= 0x07,
	CXIB_EVENT_TYPE_INTERNAL_ERROR		= 0x08,
	CXIB_EVENT_TYPE_PORT_CHANGE		= 0x09,
	CXIB_EVENT_TYPE_CMD			= 0x0a,
	CXIB_EVENT_TYPE_PAGE_REQUEST		= 0x0b,
	CXIB_EVENT_TYPE_PAGE_FAULT		= 0x0c,
	CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR	= 0x10,
	CXIB_EVENT_TYPE_WQ_ACCESS_ERROR		= 0x11,
	CXIB_EVENT_TYPE_SRQ_CATAS_ERROR		= 0x12,
	CXIB_EVENT_TYPE_SRQ_LAST_WQE		= 0x13,
	CXIB_EVENT_TYPE_SRQ_RQ_LIMIT		= 0x14,
};

/* Port change sub types. */
enum {
	CXIB_PORT_CHANGE_SUBTYPE_DOWN		= 1,
	CXIB_PORT_CHANGE_SUBTYPE_ACTIVE		= 4,
	CXIB_PORT_CHANGE_SUBTYPE_INITIALIZED	= 5,
	CXIB_PORT_CHANGE_SUBTYPE_LID		= 6,
	CXIB_PORT_CHANGE_SUBTYPE_PKEY		= 7,
	CXIB_PORT_CHANGE_SUBTYPE_GUID		= 8,
	CXIB_PORT_CHANGE_SUBTYPE_CLIENT_REREG	= 9,
};

/* QP/WQ affiliated event resource type (CXIB_EQE_QP_TYPE). */
enum {
	CXIB_EVENT_QUEUE_TYPE_QP		= 0,
	CXIB_EVENT_QUEUE_TYPE_RQ		= 1,
	CXIB_EVENT_QUEUE_TYPE_SQ		= 2,
	CXIB_EVENT_QUEUE_TYPE_DCT		= 6,
};

/* CQ error syndrome. */
enum {
	CXIB_CQ_ERROR_SYNDROME_OVERRUN		= 1,
	CXIB_CQ_ERROR_SYNDROME_ACCESS_VIOLATION	= 2,
};

/* The EQ's page_offset lies inside its first page (CXIB_PAGE_OFFSET_BYTES). */
CXIB_STATIC_ASSERT(CXIB_PAGE_OFFSET_FITS(CXIB_EQC_PAGE_OFFSET));

#endif /* _CXIB_EQ_H */
