/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the command queue, mailboxes and the bring-up command set
 * (mlx5 PRM: command interface, HCA bring-up, capabilities, EQs, MAD_IFC;
 * field positions as in include/linux/mlx5/mlx5_ifc.h).
 *
 * Naming (field macros expand to "dword, high bit, low bit" for the accessors in bits.h):
 *
 *   CXIB_CMD_ENTRY_<FIELD>       64-byte command queue entry (struct cxib_cmd_queue_entry)
 *   CXIB_CMD_MBOX_<FIELD>        576-byte mailbox block (struct cxib_cmd_mailbox)
 *   CXIB_CMD_IN_* / CXIB_CMD_OUT_*   the header every command input / output starts with
 *   CXIB_<CMD>_IN_<FIELD>        a field of command <CMD>'s input, counted from the first
 *                                byte of the input: dwords 0-3 are the 16 inline bytes of
 *                                the entry, dword 4 onwards is mailbox data (input byte j >=
 *                                16 is byte (j - 16) % 512 of block (j - 16) / 512)
 *   CXIB_<CMD>_OUT_<FIELD>       the same for the output
 *   CXIB_<CMD>_IN_LEN, _OUT_LEN  byte lengths for input_length / output_length (PRM struct
 *                                sizes; function-like when an array makes them variable)
 *   struct cxib_<cmd>_in / _out  the input / output as a C type, the fixed part (what a
 *                                variable length adds follows it in the same buffer); the
 *                                command's field macros name it (bits.h)
 *   CXIB_<CMD>_{IN,OUT}_<X>_OFFSET  byte offset of an array or embedded context
 *   CXIB_HCA_CAP_<FIELD>         cmd_hca_cap fields, relative to the capability structure
 *                                (which sits at CXIB_QUERY_HCA_CAP_OUT_CAPABILITY_OFFSET)
 *   CXIB_HCA_VPORT_CTX_<FIELD>   hca_vport_context fields, relative to the context
 *   CXIB_REG_<NAME>_<FIELD>      ACCESS_REG register fields, relative to the register data
 *   ..._RESERVED_AT_<X>          a reserved range the device checks is clear, named as in
 *                                mlx5_ifc.h: X is its first bit in hex, counted from bit 31
 *                                of dword 0 (RESERVED_AT_40 starts at dword 2, bit 31)
 *
 * 64-bit fields are "dword, 63, 0" and go through CXIB_GET64 / CXIB_SET64.
 * The EQ context and EQE are in eq.h, MAD/SMP layouts (MAD_IFC payload) in mad.h.
 *
 * Example: the number of pages the device wants at boot, from a QUERY_PAGES output:
 *
 *	struct cxib_query_pages_out out;
 *	s32 npages = (s32)CXIB_GET(&out, CXIB_QUERY_PAGES_OUT_NUM_PAGES);
 */
#ifndef _CXIB_CMD_H
#define _CXIB_CMD_H

#include "bits.h"

/* ---- Command queue entry (PRM 2.1) --------------------------------------------------- */

struct cxib_cmd_queue_entry {
	__be32 type;			/* [31:24] type */
	__be32 input_length;
	__be64 input_mailbox_pointer;	/* bits 8:0 reserved */
	__be32 in[4];			/* command_input_inline_data */
	__be32 out[4];			/* command_output_inline_data */
	__be64 output_mailbox_pointer;	/* bits 8:0 reserved */
	__be32 output_length;
	__be32 status;			/* token, signature, delivery status, ownership */
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_cmd_queue_entry) == 64);

#define CXIB_CMD_ENTRY_SIZE			64
#define CXIB_CMD_ENTRY_TYPE			0, 31, 24, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_RESERVED_AT_8		0, 23, 0, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_INPUT_LENGTH		1, 31, 0, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR_H	2, 31, 0, struct cxib_cmd_queue_entry
/* pointer[31:9] */
#define CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR_L	3, 31, 9, struct cxib_cmd_queue_entry
/* pointer[8:0] */
#define CXIB_CMD_ENTRY_RESERVED_AT_77		3, 8, 0, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_IN_INLINE_OFFSET		0x10	/* command_input_inline_data */
#define CXIB_CMD_ENTRY_OUT_INLINE_OFFSET	0x20	/* command_output_inline_data */
#define CXIB_CMD_INLINE_LEN			16
#define CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR_H	12, 31, 0, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR_L	13, 31, 9, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_RESERVED_AT_1B7		13, 8, 0, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_OUTPUT_LENGTH		14, 31, 0, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_TOKEN			15, 31, 24, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_SIGNATURE		15, 23, 16, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_RESERVED_AT_1F0		15, 15, 8, struct cxib_cmd_queue_entry
/* delivery status */
#define CXIB_CMD_ENTRY_STATUS			15, 7, 1, struct cxib_cmd_queue_entry
#define CXIB_CMD_ENTRY_OWNERSHIP		15, 0, 0, struct cxib_cmd_queue_entry

/* type: the only transport the device speaks. */
#define CXIB_CMD_TYPE_PCIE			0x07

/* ownership */
enum {
	CXIB_CMD_OWNER_SW	= 0,
	CXIB_CMD_OWNER_HW	= 1,
};

/* Delivery status (entry byte 0x3f bits 7:1).  Non-zero: the output is not valid. */
enum {
	CXIB_CMD_DELIVERY_OK			= 0x00,
	CXIB_CMD_DELIVERY_SIGNATURE_ERR		= 0x01,
	CXIB_CMD_DELIVERY_TOKEN_ERR		= 0x02,
	CXIB_CMD_DELIVERY_BAD_BLOCK_NUMBER	= 0x03,
	CXIB_CMD_DELIVERY_OUTPUT_PTR_ALIGN	= 0x04,
	CXIB_CMD_DELIVERY_INPUT_PTR_ALIGN	= 0x05,
	CXIB_CMD_DELIVERY_FW_INTERNAL_ERR	= 0x06,
	CXIB_CMD_DELIVERY_INPUT_LEN_ERR		= 0x07,
	CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR	= 0x08,
	CXIB_CMD_DELIVERY_RES_FLD_NOT_CLR	= 0x09,
	CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR	= 0x10,
};

/* ---- Mailbox block (PRM 2.2): 576 bytes, 1 KiB aligned, singly linked ---------------- */

struct cxib_cmd_mailbox {
	__u8 data[512];
	__u8 rsvd0[48];
	__be64 next;			/* next block, bits 9:0 reserved; 0 ends the chain */
	__be32 block_number;
	__be32 sig;			/* [23:16] token, [15:8] ctrl_signature, [7:0] signature */
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_cmd_mailbox) == 576);

#define CXIB_CMD_MBOX_SIZE			576
#define CXIB_CMD_MBOX_ALIGN			1024
#define CXIB_CMD_MBOX_DATA_LEN			512
#define CXIB_CMD_MBOX_NEXT_PTR_H		140, 31, 0, struct cxib_cmd_mailbox	/* 0x230 */
/* next_pointer[31:10] */
#define CXIB_CMD_MBOX_NEXT_PTR_L		141, 31, 10, struct cxib_cmd_mailbox
#define CXIB_CMD_MBOX_BLOCK_NUMBER		142, 31, 0, struct cxib_cmd_mailbox
#define CXIB_CMD_MBOX_TOKEN			143, 23, 16, struct cxib_cmd_mailbox
#define CXIB_CMD_MBOX_CTRL_SIGNATURE		143, 15, 8, struct cxib_cmd_mailbox
#define CXIB_CMD_MBOX_SIGNATURE			143, 7, 0, struct cxib_cmd_mailbox

/* Byte ranges the signatures cover (PRM 2.3). */
#define CXIB_CMD_MBOX_CTRL_SIG_START		0x200	/* ctrl_signature: 0x200..0x23d */
#define CXIB_CMD_MBOX_CTRL_SIG_END		0x23e
#define CXIB_CMD_MBOX_SIG_END			0x23f	/* signature: 0x000..0x23e */

/* Mailbox blocks a command of @len bytes (input or output) needs beyond the inline part. */
#define CXIB_CMD_MBOX_BLOCKS(len)					\
	((len) > CXIB_CMD_INLINE_LEN ?					\
	 ((len) - CXIB_CMD_INLINE_LEN + CXIB_CMD_MBOX_DATA_LEN - 1) /	\
	 CXIB_CMD_MBOX_DATA_LEN : 0)

/*
 * XOR of @len bytes.  A signature byte is chosen so the XOR over its whole range, the
 * signature included, is 0xff: write sig = ~xor8(range with sig = 0).  The entry signature
 * covers all 64 bytes (taken with ownership = 1); checked only when cmdif_checksum == 3.
 */
static inline __u8 cxib_xor8(const void *buf, unsigned int len)
{
	const __u8 *p = buf;
	__u8 x = 0;

	while (len--)
		x ^= *p++;
	return x;
}

#define CXIB_CMD_SIG_GOOD			0xff

/*
 * Signing, one definition for the driver, the model and the host tests.  A mailbox block
 * from the driver carries both signatures (ctrl_signature first: the block signature
 * covers it); a block the device fills in, only the block signature.  The entry signature
 * is taken over the whole entry as it is handed over (ownership included).
 */
static inline void cxib_cmd_mbox_sign_data(struct cxib_cmd_mailbox *box)
{
	CXIB_SET(box, CXIB_CMD_MBOX_SIGNATURE, 0);
	CXIB_SET(box, CXIB_CMD_MBOX_SIGNATURE,
		 (__u8)~cxib_xor8(box, CXIB_CMD_MBOX_SIG_END));
}

static inline void cxib_cmd_mbox_sign(struct cxib_cmd_mailbox *box)
{
	const __u8 *raw = (const __u8 *)box;

	CXIB_SET(box, CXIB_CMD_MBOX_CTRL_SIGNATURE, 0);
	CXIB_SET(box, CXIB_CMD_MBOX_CTRL_SIGNATURE,
		 (__u8)~cxib_xor8(raw + CXIB_CMD_MBOX_CTRL_SIG_START,
				  CXIB_CMD_MBOX_CTRL_SIG_END - CXIB_CMD_MBOX_CTRL_SIG_START));
	cxib_cmd_mbox_sign_data(box);
}

static inline void cxib_cmd_entry_sign(void *ent)
{
	CXIB_SET(ent, CXIB_CMD_ENTRY_SIGNATURE, 0);
	CXIB_SET(ent, CXIB_CMD_ENTRY_SIGNATURE,
		 (__u8)~cxib_xor8(ent, CXIB_CMD_ENTRY_SIZE));
}

/* ---- Command header (PRM 2.5) -------------------------------------------------------- */

#define CXIB_CMD_IN_OPCODE			0, 31, 16
#define CXIB_CMD_IN_UID				0, 15, 0
#define CXIB_CMD_IN_RESERVED_AT_20		1, 31, 16	/* in every command */
#define CXIB_CMD_IN_OP_MOD			1, 15, 0
#define CXIB_CMD_IN_HDR_LEN			8

#define CXIB_CMD_OUT_STATUS			0, 31, 24
#define CXIB_CMD_OUT_SYNDROME			1, 31, 0
#define CXIB_CMD_OUT_HDR_LEN			8

/* Command return status (output byte 0). */
enum {
	CXIB_CMD_STAT_OK			= 0x00,
	CXIB_CMD_STAT_INT_ERR			= 0x01,
	CXIB_CMD_STAT_BAD_OP			= 0x02,
	CXIB_CMD_STAT_BAD_PARAM			= 0x03,
	CXIB_CMD_STAT_BAD_SYS_STATE		= 0x04,
	CXIB_CMD_STAT_BAD_RES			= 0x05,
	CXIB_CMD_STAT_RES_BUSY			= 0x06,
	CXIB_CMD_STAT_NOT_READY			= 0x07,
	CXIB_CMD_STAT_LIM_EXCEEDED		= 0x08,
	CXIB_CMD_STAT_BAD_RES_STATE		= 0x09,
	CXIB_CMD_STAT_BAD_INDEX			= 0x0a,
	CXIB_CMD_STAT_NO_RESOURCES		= 0x0f,
	CXIB_CMD_STAT_BAD_QP_STATE		= 0x10,
	CXIB_CMD_STAT_BAD_PKT			= 0x30,
	CXIB_CMD_STAT_BAD_SIZE			= 0x40,
	CXIB_CMD_STAT_BAD_INPUT_LEN		= 0x50,
	CXIB_CMD_STAT_BAD_OUTPUT_LEN		= 0x51,
};

/* ---- Opcodes (PRM 3) ------------------------------------------------------------------ */

/*
 * Every command opcode once, as X(NAME, opcode): the enum of CXIB_CMD_OP_<NAME> and
 * cxib_cmd_op_name() are generated from this list.
 */
#define CXIB_CMD_OPCODES(X)				\
	X(QUERY_HCA_CAP,		0x100)		\
	X(QUERY_ADAPTER,		0x101)		\
	X(INIT_HCA,			0x102)		\
	X(TEARDOWN_HCA,			0x103)		\
	X(ENABLE_HCA,			0x104)		\
	X(DISABLE_HCA,			0x105)		\
	X(QUERY_PAGES,			0x107)		\
	X(MANAGE_PAGES,			0x108)		\
	X(SET_HCA_CAP,			0x109)		\
	X(QUERY_ISSI,			0x10a)		\
	X(SET_ISSI,			0x10b)		\
	X(SET_DRIVER_VERSION,		0x10d)		\
	X(CREATE_MKEY,			0x200)		\
	X(QUERY_MKEY,			0x201)		\
	X(DESTROY_MKEY,			0x202)		\
	X(QUERY_SPECIAL_CONTEXTS,	0x203)		\
	X(CREATE_EQ,			0x301)		\
	X(DESTROY_EQ,			0x302)		\
	X(QUERY_EQ,			0x303)		\
	X(CREATE_CQ,			0x400)		\
	X(DESTROY_CQ,			0x401)		\
	X(QUERY_CQ,			0x402)		\
	X(MODIFY_CQ,			0x403)		\
	X(CREATE_QP,			0x500)		\
	X(DESTROY_QP,			0x501)		\
	X(RST2INIT_QP,			0x502)		\
	X(INIT2RTR_QP,			0x503)		\
	X(RTR2RTS_QP,			0x504)		\
	X(RTS2RTS_QP,			0x505)		\
	X(SQERR2RTS_QP,			0x506)		\
	X(2ERR_QP,			0x507)		\
	X(2RST_QP,			0x50a)		\
	X(QUERY_QP,			0x50b)		\
	X(SQD_RTS_QP,			0x50c)		\
	X(MAD_IFC,			0x50d)		\
	X(INIT2INIT_QP,			0x50e)		\
	X(CREATE_SRQ,			0x700)		\
	X(DESTROY_SRQ,			0x701)		\
	X(QUERY_SRQ,			0x702)		\
	X(ARM_RQ,			0x703)		\
	X(CREATE_XRC_SRQ,		0x705)		\
	X(DESTROY_XRC_SRQ,		0x706)		\
	X(QUERY_XRC_SRQ,		0x707)		\
	X(ARM_XRC_SRQ,			0x708)		\
	X(QUERY_VPORT_STATE,		0x750)		\
	X(QUERY_HCA_VPORT_CONTEXT,	0x762)		\
	X(MODIFY_HCA_VPORT_CONTEXT,	0x763)		\
	X(QUERY_HCA_VPORT_GID,		0x764)		\
	X(QUERY_HCA_VPORT_PKEY,		0x765)		\
	X(ALLOC_Q_COUNTER,		0x771)		\
	X(DEALLOC_Q_COUNTER,		0x772)		\
	X(QUERY_Q_COUNTER,		0x773)		\
	X(ALLOC_PD,			0x800)		\
	X(DEALLOC_PD,			0x801)		\
	X(ALLOC_UAR,			0x802)		\
	X(DEALLOC_UAR,			0x803)		\
	X(ACCESS_REG,			0x805)		\
	X(ATTACH_TO_MCG,		0x806)		\
	X(DETACH_FROM_MCG,		0x807)		\
	X(NOP,				0x80d)		\
	X(ALLOC_XRCD,			0x80e)		\
	X(DEALLOC_XRCD,			0x80f)		\
	X(ALLOC_TRANSPORT_DOMAIN,	0x816)		\
	X(DEALLOC_TRANSPORT_DOMAIN,	0x817)		\
	X(CREATE_RMP,			0x90c)		\
	X(MODIFY_RMP,			0x90d)		\
	X(DESTROY_RMP,			0x90e)		\
	X(QUERY_RMP,			0x90f)		\
	X(CREATE_UCTX,			0xa04)		\
	X(DESTROY_UCTX,			0xa06)

#define __CXIB_CMD_OP_ENUM(name, op)	CXIB_CMD_OP_##name = (op),
enum {
	CXIB_CMD_OPCODES(__CXIB_CMD_OP_ENUM)
};

#define __CXIB_CMD_OP_NAME(name, op)	{ (op), #name },

/* The PRM's name of command @op, e.g. "QUERY_HCA_CAP"; a null pointer for one not listed. */
static inline const char *cxib_cmd_op_name(__u16 op)
{
	static const struct {
		__u16 op;
		const char *name;
	} names[] = {
		CXIB_CMD_OPCODES(__CXIB_CMD_OP_NAME)
		{ 0 }		/* the end: no name */
	};
	unsigned int i;

	for (i = 0; names[i].name; i++)
		if (names[i].op == op)
			break;
	return names[i].name;
}

/* Physical address list entry: one 64-bit big-endian bus address per 4 KiB page. */
#define CXIB_PAS_ENTRY_SIZE			8
#define CXIB_PAS_ENTRY_PA			0, 63, 0	/* relative to the entry */

/* ---- ENABLE_HCA / DISABLE_HCA (0x104 / 0x105) ---------------------------------------- */

#define CXIB_ENABLE_HCA_IN_EMBEDDED_CPU_FUNCTION	2, 31, 31, struct cxib_enable_hca_in
#define CXIB_ENABLE_HCA_IN_FUNCTION_ID		2, 15, 0, struct cxib_enable_hca_in
#define CXIB_ENABLE_HCA_IN_LEN			16
struct cxib_enable_hca_in { __be32 dw[CXIB_ENABLE_HCA_IN_LEN / 4]; };
#define CXIB_ENABLE_HCA_OUT_LEN			12
struct cxib_enable_hca_out { __be32 dw[CXIB_ENABLE_HCA_OUT_LEN / 4]; };

#define CXIB_DISABLE_HCA_IN_EMBEDDED_CPU_FUNCTION	2, 31, 31, struct cxib_disable_hca_in
#define CXIB_DISABLE_HCA_IN_FUNCTION_ID		2, 15, 0, struct cxib_disable_hca_in
#define CXIB_DISABLE_HCA_IN_LEN			16
struct cxib_disable_hca_in { __be32 dw[CXIB_DISABLE_HCA_IN_LEN / 4]; };
#define CXIB_DISABLE_HCA_OUT_LEN		12
struct cxib_disable_hca_out { __be32 dw[CXIB_DISABLE_HCA_OUT_LEN / 4]; };

/* ---- QUERY_ISSI / SET_ISSI (0x10a / 0x10b) ------------------------------------------- */

#define CXIB_QUERY_ISSI_IN_LEN			16
struct cxib_query_issi_in { __be32 dw[CXIB_QUERY_ISSI_IN_LEN / 4]; };
#define CXIB_QUERY_ISSI_OUT_CURRENT_ISSI	2, 15, 0, struct cxib_query_issi_out
/* bit n: ISSI n supported */
#define CXIB_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0	27, 31, 0, struct cxib_query_issi_out
#define CXIB_QUERY_ISSI_OUT_LEN			0x70
struct cxib_query_issi_out { __be32 dw[CXIB_QUERY_ISSI_OUT_LEN / 4]; };

#define CXIB_SET_ISSI_IN_CURRENT_ISSI		2, 15, 0, struct cxib_set_issi_in
#define CXIB_SET_ISSI_IN_LEN			16
struct cxib_set_issi_in { __be32 dw[CXIB_SET_ISSI_IN_LEN / 4]; };
#define CXIB_SET_ISSI_OUT_LEN			16
struct cxib_set_issi_out { __be32 dw[CXIB_SET_ISSI_OUT_LEN / 4]; };

/* Interface step sequence IDs (ISSI) this interface knows. */
enum {
	CXIB_ISSI_0	= 0,	/* SRQs through CREATE_SRQ */
	CXIB_ISSI_1	= 1,	/* SRQs through CREATE_RMP / CREATE_XRC_SRQ */
};

/* ---- QUERY_PAGES / MANAGE_PAGES (0x107 / 0x108) -------------------------------------- */

#define CXIB_QUERY_PAGES_IN_EMBEDDED_CPU_FUNCTION	2, 31, 31, struct cxib_query_pages_in
#define CXIB_QUERY_PAGES_IN_FUNCTION_ID		2, 15, 0, struct cxib_query_pages_in
#define CXIB_QUERY_PAGES_IN_LEN			16
struct cxib_query_pages_in { __be32 dw[CXIB_QUERY_PAGES_IN_LEN / 4]; };
#define CXIB_QUERY_PAGES_OUT_EMBEDDED_CPU_FUNCTION	2, 31, 31, struct cxib_query_pages_out
#define CXIB_QUERY_PAGES_OUT_FUNCTION_ID	2, 15, 0, struct cxib_query_pages_out
/* s32: > 0 give, < 0 take */
#define CXIB_QUERY_PAGES_OUT_NUM_PAGES		3, 31, 0, struct cxib_query_pages_out
#define CXIB_QUERY_PAGES_OUT_LEN		16
struct cxib_query_pages_out { __be32 dw[CXIB_QUERY_PAGES_OUT_LEN / 4]; };

/* QUERY_PAGES op_mod: which request. */
enum {
	CXIB_QUERY_PAGES_OP_MOD_BOOT		= 1,
	CXIB_QUERY_PAGES_OP_MOD_INIT		= 2,
	CXIB_QUERY_PAGES_OP_MOD_REGULAR		= 3,
};

#define CXIB_MANAGE_PAGES_IN_EMBEDDED_CPU_FUNCTION	2, 31, 31, struct cxib_manage_pages_in
#define CXIB_MANAGE_PAGES_IN_FUNCTION_ID	2, 15, 0, struct cxib_manage_pages_in
#define CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES	3, 31, 0, struct cxib_manage_pages_in
#define CXIB_MANAGE_PAGES_IN_PAS_OFFSET		0x10	/* GIVE: the pages handed over */
struct cxib_manage_pages_in { __be32 dw[CXIB_MANAGE_PAGES_IN_PAS_OFFSET / 4]; };
#define CXIB_MANAGE_PAGES_IN_LEN(npages)	(0x10u + CXIB_PAS_ENTRY_SIZE * (npages))
#define CXIB_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES	2, 31, 0, struct cxib_manage_pages_out
#define CXIB_MANAGE_PAGES_OUT_PAS_OFFSET	0x10	/* TAKE: the pages given back */
struct cxib_manage_pages_out { __be32 dw[CXIB_MANAGE_PAGES_OUT_PAS_OFFSET / 4]; };
#define CXIB_MANAGE_PAGES_OUT_LEN(npages)	(0x10u + CXIB_PAS_ENTRY_SIZE * (npages))

/* MANAGE_PAGES op_mod. */
enum {
	CXIB_MANAGE_PAGES_OP_MOD_ALLOC_FAIL	= 0,	/* driver could not supply the pages */
	CXIB_MANAGE_PAGES_OP_MOD_GIVE		= 1,
	CXIB_MANAGE_PAGES_OP_MOD_TAKE		= 2,
};

/* ---- QUERY_HCA_CAP / SET_HCA_CAP (0x100 / 0x109) ------------------------------------- */

/* Size of the capability union in the command, and of the general capabilities in it. */
#define CXIB_HCA_CAP_UNION_SIZE			4096
#define CXIB_HCA_CAP_SIZE			256

#define CXIB_QUERY_HCA_CAP_IN_OTHER_FUNCTION	2, 31, 31, struct cxib_query_hca_cap_in
#define CXIB_QUERY_HCA_CAP_IN_FUNCTION_ID	2, 15, 0, struct cxib_query_hca_cap_in
#define CXIB_QUERY_HCA_CAP_IN_LEN		16
struct cxib_query_hca_cap_in { __be32 dw[CXIB_QUERY_HCA_CAP_IN_LEN / 4]; };
#define CXIB_QUERY_HCA_CAP_OUT_CAPABILITY_OFFSET	0x10
#define CXIB_QUERY_HCA_CAP_OUT_LEN		(0x10 + CXIB_HCA_CAP_UNION_SIZE)
struct cxib_query_hca_cap_out { __be32 dw[CXIB_QUERY_HCA_CAP_OUT_LEN / 4]; };

#define CXIB_SET_HCA_CAP_IN_OTHER_FUNCTION	2, 31, 31, struct cxib_set_hca_cap_in
#define CXIB_SET_HCA_CAP_IN_FUNCTION_ID		2, 15, 0, struct cxib_set_hca_cap_in
#define CXIB_SET_HCA_CAP_IN_CAPABILITY_OFFSET	0x10
#define CXIB_SET_HCA_CAP_IN_LEN			(0x10 + CXIB_HCA_CAP_UNION_SIZE)
struct cxib_set_hca_cap_in { __be32 dw[CXIB_SET_HCA_CAP_IN_LEN / 4]; };
#define CXIB_SET_HCA_CAP_OUT_LEN		16
struct cxib_set_hca_cap_out { __be32 dw[CXIB_SET_HCA_CAP_OUT_LEN / 4]; };

/* op_mod = type << 1 | mode for QUERY_HCA_CAP; type << 1 for SET_HCA_CAP. */
#define CXIB_HCA_CAP_OP_MOD(type, mode)		((type) << 1 | (mode))

enum {
	CXIB_HCA_CAP_MODE_MAX			= 0,
	CXIB_HCA_CAP_MODE_CUR			= 1,
};

/* Capability types (the model answers only GENERAL; all others report BAD_PARAM). */
enum {
	CXIB_HCA_CAP_TYPE_GENERAL		= 0x00,
	CXIB_HCA_CAP_TYPE_ETHERNET_OFFLOADS	= 0x01,
	CXIB_HCA_CAP_TYPE_ODP			= 0x02,
	CXIB_HCA_CAP_TYPE_ATOMIC		= 0x03,
	CXIB_HCA_CAP_TYPE_ROCE			= 0x04,
	CXIB_HCA_CAP_TYPE_IPOIB_OFFLOADS	= 0x05,
	CXIB_HCA_CAP_TYPE_IPOIB_ENHANCED	= 0x06,
	CXIB_HCA_CAP_TYPE_FLOW_TABLE		= 0x07,
	CXIB_HCA_CAP_TYPE_ESWITCH_FLOW_TABLE	= 0x08,
	CXIB_HCA_CAP_TYPE_ESWITCH		= 0x09,
	CXIB_HCA_CAP_TYPE_QOS			= 0x0c,
	CXIB_HCA_CAP_TYPE_DEBUG			= 0x0d,
	CXIB_HCA_CAP_TYPE_GENERAL_2		= 0x20,
};

/* General device capabilities (cmd_hca_cap), relative to the capability structure. */
struct cxib_hca_cap {
	__be32 dw[64];
};

CXIB_STATIC_ASSERT(sizeof(struct cxib_hca_cap) == CXIB_HCA_CAP_SIZE);

#define CXIB_HCA_CAP_PAGE_REQUEST_DISABLE	0, 25, 25, struct cxib_hca_cap
#define CXIB_HCA_CAP_HCA_CAP_2			1, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_DTOR			1, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_VHCA_ID			1, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_SRQ_SZ		4, 31, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_QP_SZ		4, 23, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_EVENT_CAP			4, 15, 15, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_QP			4, 4, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_SRQ		5, 20, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_CQ_SZ		6, 23, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_CQ			6, 4, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_EQ_SZ		7, 31, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_RELAXED_ORDERING_WRITE	7, 23, 23, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_MKEY		7, 21, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_TERMINATE_SCATTER_LIST_MKEY	7, 9, 9, struct cxib_hca_cap
#define CXIB_HCA_CAP_DUMP_FILL_MKEY		7, 7, 7, struct cxib_hca_cap
#define CXIB_HCA_CAP_FAST_TEARDOWN		7, 4, 4, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_EQ			7, 3, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_INDIRECTION		8, 31, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_MRW_SZ		8, 22, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_FORCE_TEARDOWN		8, 15, 15, struct cxib_hca_cap
#define CXIB_HCA_CAP_UMR_EXTENDED_TRANSLATION_OFFSET	8, 7, 7, struct cxib_hca_cap
#define CXIB_HCA_CAP_NULL_MKEY			8, 6, 6, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_KLM_LIST_SIZE	8, 5, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_RELEASE_ALL_PAGES		10, 26, 26, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_RA_REQ_QP		10, 21, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_RA_RES_QP		10, 5, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_END_PAD			11, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_CACHE_LINE_128BYTE		11, 27, 27, struct cxib_hca_cap
#define CXIB_HCA_CAP_QCAM_REG			11, 16, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_GID_TABLE_SIZE		11, 15, 0, struct cxib_hca_cap	/* 8 << n GIDs */
#define CXIB_HCA_CAP_OUT_OF_SEQ_CNT		12, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_VPORT_COUNTERS		12, 30, 30, struct cxib_hca_cap
#define CXIB_HCA_CAP_RETRANSMISSION_Q_COUNTERS	12, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_DEBUG			12, 28, 28, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_QP_CNT			12, 25, 16, struct cxib_hca_cap
/* 128 << n P_Keys */
#define CXIB_HCA_CAP_PKEY_TABLE_SIZE		12, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_VPORT_GROUP_MANAGER	13, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_IB_VIRT			13, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_ETH_VIRT			13, 28, 28, struct cxib_hca_cap
#define CXIB_HCA_CAP_NIC_FLOW_TABLE		13, 25, 25, struct cxib_hca_cap
#define CXIB_HCA_CAP_ESWITCH_MANAGER		13, 24, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_DEVICE_MEMORY		13, 23, 23, struct cxib_hca_cap
#define CXIB_HCA_CAP_MCAM_REG			13, 22, 22, struct cxib_hca_cap
#define CXIB_HCA_CAP_PCAM_REG			13, 21, 21, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOCAL_CA_ACK_DELAY		13, 20, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_PORT_MODULE_EVENT		13, 15, 15, struct cxib_hca_cap
#define CXIB_HCA_CAP_PORT_TYPE			13, 9, 8, struct cxib_hca_cap
#define CXIB_HCA_CAP_NUM_PORTS			13, 7, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_MSG		14, 28, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_TC			14, 19, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_TEMP_WARN_EVENT		14, 15, 15, struct cxib_hca_cap
#define CXIB_HCA_CAP_GENERAL_NOTIFICATION_EVENT	14, 13, 13, struct cxib_hca_cap
#define CXIB_HCA_CAP_FPGA			14, 10, 10, struct cxib_hca_cap
#define CXIB_HCA_CAP_STAT_RATE_SUPPORT		15, 31, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQE_VERSION		15, 3, 0, struct cxib_hca_cap

/* cqe_version: what a CQE's srqn_uidx field (dword 8, 23:0) holds */
enum {
	CXIB_CQE_VERSION_0			= 0,	/* the SRQ number (SRQ receives) */
	CXIB_CQE_VERSION_1			= 1,	/* the QP's user_index, every CQE */
};

#define CXIB_HCA_CAP_COMPACT_ADDRESS_VECTOR	16, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_STRIDING_RQ		16, 30, 30, struct cxib_hca_cap
#define CXIB_HCA_CAP_IPOIB_ENHANCED_OFFLOADS	16, 28, 28, struct cxib_hca_cap
#define CXIB_HCA_CAP_IPOIB_BASIC_OFFLOADS	16, 27, 27, struct cxib_hca_cap
#define CXIB_HCA_CAP_UMR_MODIFY_ENTITY_SIZE_DISABLED	16, 24, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_UMR_MODIFY_ATOMIC_DISABLED	16, 23, 23, struct cxib_hca_cap
#define CXIB_HCA_CAP_UMR_INDIRECT_MKEY_DISABLED	16, 22, 22, struct cxib_hca_cap
#define CXIB_HCA_CAP_UMR_FENCE			16, 21, 20, struct cxib_hca_cap
#define CXIB_HCA_CAP_DRAIN_SIGERR		16, 16, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_CMDIF_CHECKSUM		16, 15, 14, struct cxib_hca_cap
#define CXIB_HCA_CAP_SIGERR_CQE			16, 13, 13, struct cxib_hca_cap
#define CXIB_HCA_CAP_WQ_SIGNATURE		16, 11, 11, struct cxib_hca_cap
#define CXIB_HCA_CAP_SCTR_DATA_CQE		16, 10, 10, struct cxib_hca_cap
#define CXIB_HCA_CAP_SHO			16, 8, 8, struct cxib_hca_cap
#define CXIB_HCA_CAP_TPH			16, 7, 7, struct cxib_hca_cap
#define CXIB_HCA_CAP_RF				16, 6, 6, struct cxib_hca_cap
#define CXIB_HCA_CAP_DCT			16, 5, 5, struct cxib_hca_cap
#define CXIB_HCA_CAP_QOS			16, 4, 4, struct cxib_hca_cap
#define CXIB_HCA_CAP_ETH_NET_OFFLOADS		16, 3, 3, struct cxib_hca_cap
#define CXIB_HCA_CAP_ROCE			16, 2, 2, struct cxib_hca_cap
#define CXIB_HCA_CAP_ATOMIC			16, 1, 1, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQ_OI			17, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQ_RESIZE			17, 30, 30, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQ_MODERATION		17, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQ_PERIOD_MODE_MODIFY	17, 28, 28, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQ_EQ_REMAP		17, 25, 25, struct cxib_hca_cap
#define CXIB_HCA_CAP_PG				17, 24, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_BLOCK_LB_MC		17, 23, 23, struct cxib_hca_cap
#define CXIB_HCA_CAP_SCQE_BREAK_MODERATION	17, 21, 21, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQ_PERIOD_START_FROM_CQE	17, 20, 20, struct cxib_hca_cap
#define CXIB_HCA_CAP_CD				17, 19, 19, struct cxib_hca_cap
#define CXIB_HCA_CAP_APM			17, 17, 17, struct cxib_hca_cap
#define CXIB_HCA_CAP_VECTOR_CALC		17, 16, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_UMR_PTR_RLKY		17, 15, 15, struct cxib_hca_cap
#define CXIB_HCA_CAP_IMAICL			17, 14, 14, struct cxib_hca_cap
#define CXIB_HCA_CAP_QKV			17, 9, 9, struct cxib_hca_cap
#define CXIB_HCA_CAP_PKV			17, 8, 8, struct cxib_hca_cap
#define CXIB_HCA_CAP_SET_DETH_SQPN		17, 7, 7, struct cxib_hca_cap
#define CXIB_HCA_CAP_XRC			17, 3, 3, struct cxib_hca_cap
#define CXIB_HCA_CAP_UD				17, 2, 2, struct cxib_hca_cap
#define CXIB_HCA_CAP_UC				17, 1, 1, struct cxib_hca_cap
#define CXIB_HCA_CAP_RC				17, 0, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_UAR_4K			18, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_UAR_SZ			18, 21, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_PORT_SELECTION_CAP		18, 15, 15, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_PG_SZ			18, 7, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_BF				19, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_DRIVER_VERSION		19, 30, 30, struct cxib_hca_cap
#define CXIB_HCA_CAP_PAD_TX_ETH_PACKET		19, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_MKEY_BY_NAME		19, 25, 25, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_BF_REG_SIZE		19, 20, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_LAG_MASTER			19, 4, 4, struct cxib_hca_cap
#define CXIB_HCA_CAP_NUM_LAG_PORTS		19, 3, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_WQE_SZ_SQ		20, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_SHAMPO			21, 20, 20, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_WQE_SZ_RQ		21, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_WQE_SZ_SQ_DC		22, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_QP_MCG			23, 24, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_MCG		24, 7, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_TRANSPORT_DOMAIN	25, 28, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_RELAXED_ORDERING_READ	25, 21, 21, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_PD			25, 20, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_XRCD		25, 4, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_RQ			27, 28, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_SQ			27, 20, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_TIR		27, 12, 8, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_TIS		27, 4, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_BASIC_CYCLIC_RCV_WQE	28, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_RMP		28, 28, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_ROCE_RW_SUPPORTED		29, 30, 30, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_WQ_SZ		30, 4, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_NIC_VPORT_CHANGE_EVENT	31, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_VHCA_STATE			31, 21, 21, struct cxib_hca_cap
#define CXIB_HCA_CAP_GENERAL_OBJ_TYPES		32, 63, 0, struct cxib_hca_cap	/* 64-bit */
#define CXIB_HCA_CAP_LOG_MAX_UCTX		35, 28, 24, struct cxib_hca_cap
#define CXIB_HCA_CAP_CRYPTO			35, 22, 22, struct cxib_hca_cap
#define CXIB_HCA_CAP_IPSEC_OFFLOAD		35, 21, 21, struct cxib_hca_cap
#define CXIB_HCA_CAP_MAX_NUM_EQS		35, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_TLS_TX			36, 30, 30, struct cxib_hca_cap
#define CXIB_HCA_CAP_TLS_RX			36, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_UAR_PAGE_SZ		36, 15, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_DEVICE_FREQUENCY_MHZ	38, 31, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_DEVICE_FREQUENCY_KHZ	39, 31, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_NVMF_TARGET_OFFLOAD	40, 29, 29, struct cxib_hca_cap
#define CXIB_HCA_CAP_NUM_OF_UARS_PER_PAGE	41, 31, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_ADV_RDMA			43, 14, 14, struct cxib_hca_cap
#define CXIB_HCA_CAP_ADV_VIRTUALIZATION		43, 6, 6, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQE_128_ALWAYS		45, 2, 2, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQE_COMPRESSION_128	45, 1, 1, struct cxib_hca_cap
#define CXIB_HCA_CAP_CQE_COMPRESSION		45, 0, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_LOG_MAX_XRQ		47, 4, 0, struct cxib_hca_cap
#define CXIB_HCA_CAP_NATIVE_PORT_NUM		48, 23, 16, struct cxib_hca_cap
#define CXIB_HCA_CAP_NUM_VHCA_PORTS		48, 15, 8, struct cxib_hca_cap
#define CXIB_HCA_CAP_SW_OWNER_ID		48, 1, 1, struct cxib_hca_cap
#define CXIB_HCA_CAP_SF				52, 31, 31, struct cxib_hca_cap
#define CXIB_HCA_CAP_UCTX_CAP			53, 31, 0, struct cxib_hca_cap

/* The table lengths gid_table_size and pkey_table_size @n encode. */
#define CXIB_CAP_GID_TABLE_LEN(n)		(8 << (n))
#define CXIB_CAP_PKEY_TABLE_LEN(n)		(128 << (n))

/* port_type */
enum {
	CXIB_CAP_PORT_TYPE_IB			= 0,
	CXIB_CAP_PORT_TYPE_ETH			= 1,
};

/* cmdif_checksum: 3 = the device verifies entry and mailbox signatures. */
enum {
	CXIB_CAP_CMDIF_CHECKSUM_DISABLED	= 0,
	CXIB_CAP_CMDIF_CHECKSUM_ENABLED		= 3,
};

/*
 * Atomic capabilities (atomic_caps, capability type CXIB_HCA_CAP_TYPE_ATOMIC, asked for
 * when the general cap "atomic" is set): which atomic operations and sizes the responder
 * executes, and the byte order in which the requester writes the 8-byte original value an
 * atomic returns (req_8b_endianness_mode, the one field SET_HCA_CAP may change).  Same
 * size as the general capabilities; upstream mlx5_ifc.h names it atomic_caps.
 */
struct cxib_atomic_cap { __be32 dw[CXIB_HCA_CAP_SIZE / 4]; };
#define CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE		2, 31, 30, struct cxib_atomic_cap
#define CXIB_ATOMIC_CAP_SUPPORTED_REQ_8B_ENDIANNESS_MODE_1	2, 25, 25, struct cxib_atomic_cap
#define CXIB_ATOMIC_CAP_OPERATIONS			4, 15, 0, struct cxib_atomic_cap
#define CXIB_ATOMIC_CAP_SIZE_QP				5, 15, 0, struct cxib_atomic_cap
#define CXIB_ATOMIC_CAP_SIZE_DC				6, 15, 0, struct cxib_atomic_cap

/* atomic_req_8B_endianness_mode: the returned original value in memory */
enum {
	CXIB_ATOMIC_REQ_MODE_BE			= 0,	/* big-endian (the default) */
	CXIB_ATOMIC_REQ_MODE_HOST		= 1,	/* the HOST_ENDIANNESS register's order */
};

/* atomic_operations bits */
enum {
	CXIB_ATOMIC_OPS_CMP_SWAP		= 1 << 0,
	CXIB_ATOMIC_OPS_FETCH_ADD		= 1 << 1,
	CXIB_ATOMIC_OPS_MASKED_CMP_SWAP		= 1 << 2,
	CXIB_ATOMIC_OPS_MASKED_FETCH_ADD	= 1 << 3,
};

/* atomic_size_qp / atomic_size_dc bits: the operand sizes supported */
enum {
	CXIB_ATOMIC_SIZE_8B			= 1 << 3,
};

/* ---- INIT_HCA / TEARDOWN_HCA (0x102 / 0x103) ----------------------------------------- */

#define CXIB_INIT_HCA_IN_SW_VHCA_ID		3, 29, 16, struct cxib_init_hca_in
#define CXIB_INIT_HCA_IN_SW_OWNER_ID_OFFSET	0x10	/* 16 bytes, if cap sw_owner_id */
#define CXIB_INIT_HCA_IN_LEN			32
struct cxib_init_hca_in { __be32 dw[CXIB_INIT_HCA_IN_LEN / 4]; };
#define CXIB_INIT_HCA_OUT_LEN			16
struct cxib_init_hca_out { __be32 dw[CXIB_INIT_HCA_OUT_LEN / 4]; };

#define CXIB_TEARDOWN_HCA_IN_PROFILE		2, 15, 0, struct cxib_teardown_hca_in
#define CXIB_TEARDOWN_HCA_IN_LEN		16
struct cxib_teardown_hca_in { __be32 dw[CXIB_TEARDOWN_HCA_IN_LEN / 4]; };
/* force_state */
#define CXIB_TEARDOWN_HCA_OUT_STATE		3, 0, 0, struct cxib_teardown_hca_out
#define CXIB_TEARDOWN_HCA_OUT_LEN		16
struct cxib_teardown_hca_out { __be32 dw[CXIB_TEARDOWN_HCA_OUT_LEN / 4]; };

/* TEARDOWN_HCA profile */
enum {
	CXIB_TEARDOWN_HCA_PROFILE_GRACEFUL_CLOSE	= 0,
	CXIB_TEARDOWN_HCA_PROFILE_FORCE_CLOSE		= 1,
	CXIB_TEARDOWN_HCA_PROFILE_PREPARE_FAST_TEARDOWN	= 2,
};

/* TEARDOWN_HCA force_state */
enum {
	CXIB_TEARDOWN_HCA_STATE_SUCCESS		= 0,
	CXIB_TEARDOWN_HCA_STATE_FAIL		= 1,
};

/* ---- QUERY_ADAPTER (0x101) -------------------------------------------------------------- */

#define CXIB_QUERY_ADAPTER_IN_LEN		16
struct cxib_query_adapter_in { __be32 dw[CXIB_QUERY_ADAPTER_IN_LEN / 4]; };
/* 0x02c9: Mellanox */
#define CXIB_QUERY_ADAPTER_OUT_IEEE_VENDOR_ID	10, 23, 0, struct cxib_query_adapter_out
#define CXIB_QUERY_ADAPTER_OUT_VSD_VENDOR_ID	11, 15, 0, struct cxib_query_adapter_out
#define CXIB_QUERY_ADAPTER_OUT_VSD_OFFSET	0x30		/* vendor specific data */
#define CXIB_QUERY_ADAPTER_VSD_LEN		208
#define CXIB_QUERY_ADAPTER_OUT_PSID_OFFSET	0x100		/* vsd_contd_psid: board id */
#define CXIB_QUERY_ADAPTER_PSID_LEN		16		/* ASCII, NUL padded */
#define CXIB_QUERY_ADAPTER_OUT_LEN		0x110
struct cxib_query_adapter_out { __be32 dw[CXIB_QUERY_ADAPTER_OUT_LEN / 4]; };

/* ---- ALLOC_UAR / DEALLOC_UAR (0x802 / 0x803) ------------------------------------------- */

#define CXIB_ALLOC_UAR_IN_LEN			16
struct cxib_alloc_uar_in { __be32 dw[CXIB_ALLOC_UAR_IN_LEN / 4]; };
/* UAR page = BAR0 + uar * 4 KiB */
#define CXIB_ALLOC_UAR_OUT_UAR			2, 23, 0, struct cxib_alloc_uar_out
#define CXIB_ALLOC_UAR_OUT_LEN			16
struct cxib_alloc_uar_out { __be32 dw[CXIB_ALLOC_UAR_OUT_LEN / 4]; };

#define CXIB_DEALLOC_UAR_IN_UAR			2, 23, 0, struct cxib_dealloc_uar_in
#define CXIB_DEALLOC_UAR_IN_LEN			16
struct cxib_dealloc_uar_in { __be32 dw[CXIB_DEALLOC_UAR_IN_LEN / 4]; };
#define CXIB_DEALLOC_UAR_OUT_LEN		16
struct cxib_dealloc_uar_out { __be32 dw[CXIB_DEALLOC_UAR_OUT_LEN / 4]; };

/* ---- CREATE_EQ / DESTROY_EQ / QUERY_EQ (0x301-0x303); eqc and EQE in eq.h ------------- */

#define CXIB_CREATE_EQ_IN_RESERVED_AT_40	2, 31, 0, struct cxib_create_eq_in
#define CXIB_CREATE_EQ_IN_RESERVED_AT_60	3, 31, 0, struct cxib_create_eq_in
#define CXIB_CREATE_EQ_IN_EQC_OFFSET		0x10
/* 64-bit word 0 at 0x58 */
#define CXIB_CREATE_EQ_IN_EVENT_BITMASK		22, 63, 0, struct cxib_create_eq_in
/* 64-bit word @k of the event bitmask, at 0x58 + 8k: event types 64k .. 64k + 63. */
#define CXIB_CREATE_EQ_IN_EVENT_BITMASK_WORD(k)	(22 + 2 * (k)), 63, 0, struct cxib_create_eq_in
#define CXIB_CREATE_EQ_EVENT_BITMASK_WORDS	4
#define CXIB_CREATE_EQ_IN_PAS_OFFSET		0x110
struct cxib_create_eq_in { __be32 dw[CXIB_CREATE_EQ_IN_PAS_OFFSET / 4]; };
#define CXIB_CREATE_EQ_IN_LEN(npas)		(0x110u + CXIB_PAS_ENTRY_SIZE * (npas))
#define CXIB_CREATE_EQ_OUT_EQ_NUMBER		2, 7, 0, struct cxib_create_eq_out
#define CXIB_CREATE_EQ_OUT_LEN			16
struct cxib_create_eq_out { __be32 dw[CXIB_CREATE_EQ_OUT_LEN / 4]; };

#define CXIB_DESTROY_EQ_IN_RESERVED_AT_40	2, 31, 8, struct cxib_destroy_eq_in
#define CXIB_DESTROY_EQ_IN_EQ_NUMBER		2, 7, 0, struct cxib_destroy_eq_in
#define CXIB_DESTROY_EQ_IN_RESERVED_AT_60	3, 31, 0, struct cxib_destroy_eq_in
#define CXIB_DESTROY_EQ_IN_LEN			16
struct cxib_destroy_eq_in { __be32 dw[CXIB_DESTROY_EQ_IN_LEN / 4]; };
#define CXIB_DESTROY_EQ_OUT_LEN			16
struct cxib_destroy_eq_out { __be32 dw[CXIB_DESTROY_EQ_OUT_LEN / 4]; };

#define CXIB_QUERY_EQ_IN_RESERVED_AT_40		2, 31, 8, struct cxib_query_eq_in
#define CXIB_QUERY_EQ_IN_EQ_NUMBER		2, 7, 0, struct cxib_query_eq_in
#define CXIB_QUERY_EQ_IN_RESERVED_AT_60		3, 31, 0, struct cxib_query_eq_in
#define CXIB_QUERY_EQ_IN_LEN			16
struct cxib_query_eq_in { __be32 dw[CXIB_QUERY_EQ_IN_LEN / 4]; };
#define CXIB_QUERY_EQ_OUT_EQC_OFFSET		0x10
/* word 0 only */
#define CXIB_QUERY_EQ_OUT_EVENT_BITMASK		22, 63, 0, struct cxib_query_eq_out
#define CXIB_QUERY_EQ_OUT_LEN			0x110
struct cxib_query_eq_out { __be32 dw[CXIB_QUERY_EQ_OUT_LEN / 4]; };

/* ---- ACCESS_REG (0x805) ------------------------------------------------------------------ */

#define CXIB_ACCESS_REG_IN_RESERVED_AT_40	2, 31, 16, struct cxib_access_reg_in
#define CXIB_ACCESS_REG_IN_REGISTER_ID		2, 15, 0, struct cxib_access_reg_in
#define CXIB_ACCESS_REG_IN_ARGUMENT		3, 31, 0, struct cxib_access_reg_in
#define CXIB_ACCESS_REG_IN_DATA_OFFSET		0x10
struct cxib_access_reg_in { __be32 dw[CXIB_ACCESS_REG_IN_DATA_OFFSET / 4]; };
#define CXIB_ACCESS_REG_IN_LEN(reg_len)		(0x10u + (reg_len))
#define CXIB_ACCESS_REG_OUT_DATA_OFFSET		0x10
struct cxib_access_reg_out { __be32 dw[CXIB_ACCESS_REG_OUT_DATA_OFFSET / 4]; };
#define CXIB_ACCESS_REG_OUT_LEN(reg_len)	(0x10u + (reg_len))

/* ACCESS_REG op_mod */
enum {
	CXIB_ACCESS_REG_OP_MOD_WRITE		= 0,
	CXIB_ACCESS_REG_OP_MOD_READ		= 1,
};

/* register_id */
enum {
	CXIB_REG_PCAP				= 0x5001,
	CXIB_REG_PMTU				= 0x5003,
	CXIB_REG_PTYS				= 0x5004,
	CXIB_REG_PAOS				= 0x5006,
	CXIB_REG_PPCNT				= 0x5008,
	CXIB_REG_PVLC				= 0x500f,
	CXIB_REG_NODE_DESC			= 0x6001,
	CXIB_REG_HOST_ENDIANNESS		= 0x7004,
	CXIB_REG_DTOR				= 0xc00e,
};

/* HOST_ENDIANNESS (write, PF, mandatory at probe): he = byte 0. */
#define CXIB_REG_HOST_ENDIANNESS_HE		0, 31, 24, struct cxib_reg_host_endianness
#define CXIB_REG_HOST_ENDIANNESS_LEN		16
struct cxib_reg_host_endianness { __be32 dw[CXIB_REG_HOST_ENDIANNESS_LEN / 4]; };
enum {
	CXIB_HOST_ENDIANNESS_LITTLE		= 0x00,
	CXIB_HOST_ENDIANNESS_BIG		= 0x80,
};

/* PCAP: the port's PortInfo.CapabilityMask (write sets it, read returns it). */
#define CXIB_REG_PCAP_LOCAL_PORT		0, 23, 16, struct cxib_reg_pcap
#define CXIB_REG_PCAP_PORT_CAPABILITY_MASK	1, 31, 0, struct cxib_reg_pcap
#define CXIB_REG_PCAP_LEN			20
struct cxib_reg_pcap { __be32 dw[CXIB_REG_PCAP_LEN / 4]; };

/* PMTU: MTUs in bytes. */
#define CXIB_REG_PMTU_LOCAL_PORT		0, 23, 16, struct cxib_reg_pmtu
#define CXIB_REG_PMTU_MAX_MTU			1, 31, 16, struct cxib_reg_pmtu
#define CXIB_REG_PMTU_ADMIN_MTU			2, 31, 16, struct cxib_reg_pmtu
#define CXIB_REG_PMTU_OPER_MTU			3, 31, 16, struct cxib_reg_pmtu
#define CXIB_REG_PMTU_LEN			16
struct cxib_reg_pmtu { __be32 dw[CXIB_REG_PMTU_LEN / 4]; };

/* PTYS: link width / speed; IB fields when proto_mask = CXIB_PTYS_PROTO_IB. */
#define CXIB_REG_PTYS_LOCAL_PORT		0, 23, 16, struct cxib_reg_ptys
#define CXIB_REG_PTYS_PROTO_MASK		0, 2, 0, struct cxib_reg_ptys
#define CXIB_REG_PTYS_IB_LINK_WIDTH_CAPABILITY	4, 31, 16, struct cxib_reg_ptys
#define CXIB_REG_PTYS_IB_PROTO_CAPABILITY	4, 15, 0, struct cxib_reg_ptys
#define CXIB_REG_PTYS_IB_LINK_WIDTH_ADMIN	7, 31, 16, struct cxib_reg_ptys
#define CXIB_REG_PTYS_IB_PROTO_ADMIN		7, 15, 0, struct cxib_reg_ptys
#define CXIB_REG_PTYS_IB_LINK_WIDTH_OPER	10, 31, 16, struct cxib_reg_ptys
#define CXIB_REG_PTYS_IB_PROTO_OPER		10, 15, 0, struct cxib_reg_ptys
#define CXIB_REG_PTYS_LEN			64
struct cxib_reg_ptys { __be32 dw[CXIB_REG_PTYS_LEN / 4]; };

enum {
	CXIB_PTYS_PROTO_IB			= 1 << 0,
	CXIB_PTYS_PROTO_ETH			= 1 << 2,
};

/* PTYS ib_link_width_* bits */
enum {
	CXIB_PTYS_WIDTH_1X			= 1 << 0,
	CXIB_PTYS_WIDTH_2X			= 1 << 1,
	CXIB_PTYS_WIDTH_4X			= 1 << 2,
	CXIB_PTYS_WIDTH_8X			= 1 << 3,
	CXIB_PTYS_WIDTH_12X			= 1 << 4,
};

/* PTYS ib_proto_* bits (lane speed) */
enum {
	CXIB_PTYS_IB_SDR			= 1 << 0,
	CXIB_PTYS_IB_DDR			= 1 << 1,
	CXIB_PTYS_IB_QDR			= 1 << 2,
	CXIB_PTYS_IB_FDR10			= 1 << 3,
	CXIB_PTYS_IB_FDR			= 1 << 4,
	CXIB_PTYS_IB_EDR			= 1 << 5,
	CXIB_PTYS_IB_HDR			= 1 << 6,
	CXIB_PTYS_IB_NDR			= 1 << 7,
};

/* PVLC: VLs (IB VLCap encoding: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14). */
#define CXIB_REG_PVLC_LOCAL_PORT		0, 23, 16, struct cxib_reg_pvlc
#define CXIB_REG_PVLC_VL_HW_CAP			1, 3, 0, struct cxib_reg_pvlc
#define CXIB_REG_PVLC_VL_ADMIN			2, 3, 0, struct cxib_reg_pvlc
#define CXIB_REG_PVLC_VL_OPERATIONAL		3, 3, 0, struct cxib_reg_pvlc
#define CXIB_REG_PVLC_LEN			16
struct cxib_reg_pvlc { __be32 dw[CXIB_REG_PVLC_LEN / 4]; };

/* PAOS: administrative / operational port status (1 up, 2 down). */
#define CXIB_REG_PAOS_SWID			0, 31, 24, struct cxib_reg_paos
#define CXIB_REG_PAOS_LOCAL_PORT		0, 23, 16, struct cxib_reg_paos
#define CXIB_REG_PAOS_ADMIN_STATUS		0, 11, 8, struct cxib_reg_paos
#define CXIB_REG_PAOS_OPER_STATUS		0, 3, 0, struct cxib_reg_paos
#define CXIB_REG_PAOS_ASE			1, 31, 31, struct cxib_reg_paos
#define CXIB_REG_PAOS_EE			1, 30, 30, struct cxib_reg_paos
#define CXIB_REG_PAOS_E				1, 1, 0, struct cxib_reg_paos
#define CXIB_REG_PAOS_LEN			16
struct cxib_reg_paos { __be32 dw[CXIB_REG_PAOS_LEN / 4]; };

enum {
	CXIB_PORT_STATUS_UP			= 1,
	CXIB_PORT_STATUS_DOWN			= 2,
};

/* NODE_DESC: the 64-byte NodeDescription string. */
#define CXIB_REG_NODE_DESC_LEN			64

/* ---- QUERY_HCA_VPORT_CONTEXT / _GID / _PKEY (0x762, 0x764, 0x765) ----------------------- */

#define CXIB_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT 2, 31, 31, struct cxib_query_hca_vport_ctx_in
/* if num_ports == 2 */
#define CXIB_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM 2, 19, 16, struct cxib_query_hca_vport_ctx_in
#define CXIB_QUERY_HCA_VPORT_CONTEXT_IN_VPORT_NUMBER	2, 15, 0, struct cxib_query_hca_vport_ctx_in
#define CXIB_QUERY_HCA_VPORT_CONTEXT_IN_LEN		16
struct cxib_query_hca_vport_ctx_in { __be32 dw[CXIB_QUERY_HCA_VPORT_CONTEXT_IN_LEN / 4]; };
#define CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_CONTEXT_OFFSET	0x10
#define CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN		(0x10 + CXIB_HCA_VPORT_CTX_SIZE)

/* hca_vport_context, relative to the context. */
struct cxib_hca_vport_context {
	__be32 dw[128];
};

#define CXIB_HCA_VPORT_CTX_SIZE			512
struct cxib_query_hca_vport_ctx_out { __be32 dw[CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN / 4]; };

CXIB_STATIC_ASSERT(sizeof(struct cxib_hca_vport_context) == CXIB_HCA_VPORT_CTX_SIZE);

#define CXIB_HCA_VPORT_CTX_FIELD_SELECT		0, 31, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_SM_VIRT_AWARE	8, 31, 31, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_HAS_SMI		8, 30, 30, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_HAS_RAW		8, 29, 29, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_GRH_REQUIRED		8, 28, 28, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_NUM_PORT_PLANE	8, 23, 16, struct cxib_hca_vport_context
/* IB PortPhysicalState */
#define CXIB_HCA_VPORT_CTX_PORT_PHYSICAL_STATE	8, 15, 12, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_VPORT_STATE_POLICY	8, 11, 8, struct cxib_hca_vport_context
/* IB PortState */
#define CXIB_HCA_VPORT_CTX_PORT_STATE		8, 7, 4, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_VPORT_STATE		8, 3, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_SYSTEM_IMAGE_GUID	10, 63, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_PORT_GUID		12, 63, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_NODE_GUID		14, 63, 0, struct cxib_hca_vport_context
/* PortInfo.CapabilityMask */
#define CXIB_HCA_VPORT_CTX_CAP_MASK1		16, 31, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_CAP_MASK1_FIELD_SELECT	17, 31, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_CAP_MASK2		18, 31, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_CAP_MASK2_FIELD_SELECT	19, 31, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_LID			24, 31, 16, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_INIT_TYPE_REPLY	24, 11, 8, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_LMC			24, 7, 5, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_SUBNET_TIMEOUT	24, 4, 0, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_SM_LID		25, 31, 16, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_SM_SL		25, 15, 12, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_QKEY_VIOLATION_COUNTER	26, 31, 16, struct cxib_hca_vport_context
#define CXIB_HCA_VPORT_CTX_PKEY_VIOLATION_COUNTER	26, 15, 0, struct cxib_hca_vport_context

#define CXIB_QUERY_HCA_VPORT_GID_IN_OTHER_VPORT 2, 31, 31, struct cxib_query_hca_vport_gid_in
#define CXIB_QUERY_HCA_VPORT_GID_IN_PORT_NUM 2, 19, 16, struct cxib_query_hca_vport_gid_in
#define CXIB_QUERY_HCA_VPORT_GID_IN_VPORT_NUMBER	2, 15, 0, struct cxib_query_hca_vport_gid_in
#define CXIB_QUERY_HCA_VPORT_GID_IN_GID_INDEX		3, 15, 0, struct cxib_query_hca_vport_gid_in
#define CXIB_QUERY_HCA_VPORT_GID_IN_LEN			16
struct cxib_query_hca_vport_gid_in { __be32 dw[CXIB_QUERY_HCA_VPORT_GID_IN_LEN / 4]; };
#define CXIB_QUERY_HCA_VPORT_GID_OUT_GIDS_NUM 3, 31, 16, struct cxib_query_hca_vport_gid_out
#define CXIB_QUERY_HCA_VPORT_GID_OUT_GID_OFFSET		0x10	/* 16-byte GIDs */
struct cxib_query_hca_vport_gid_out { __be32 dw[CXIB_QUERY_HCA_VPORT_GID_OUT_GID_OFFSET / 4]; };
#define CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(ngids)		(0x10u + 16 * (ngids))

#define CXIB_QUERY_HCA_VPORT_PKEY_IN_OTHER_VPORT 2, 31, 31, struct cxib_query_hca_vport_pkey_in
#define CXIB_QUERY_HCA_VPORT_PKEY_IN_PORT_NUM 2, 19, 16, struct cxib_query_hca_vport_pkey_in
#define CXIB_QUERY_HCA_VPORT_PKEY_IN_VPORT_NUMBER 2, 15, 0, struct cxib_query_hca_vport_pkey_in
#define CXIB_QUERY_HCA_VPORT_PKEY_IN_PKEY_INDEX 3, 15, 0, struct cxib_query_hca_vport_pkey_in
#define CXIB_QUERY_HCA_VPORT_PKEY_IN_LEN		16
struct cxib_query_hca_vport_pkey_in { __be32 dw[CXIB_QUERY_HCA_VPORT_PKEY_IN_LEN / 4]; };
#define CXIB_QUERY_HCA_VPORT_PKEY_OUT_PKEY_OFFSET	0x10	/* 4-byte entries */
struct cxib_query_hca_vport_pkey_out { __be32 dw[CXIB_QUERY_HCA_VPORT_PKEY_OUT_PKEY_OFFSET / 4]; };
#define CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(npkeys)	(0x10u + 4 * (npkeys))
#define CXIB_HCA_VPORT_PKEY_ENTRY_PKEY			0, 15, 0	/* in each entry */

/* gid_index / pkey_index value asking for the whole table. */
#define CXIB_HCA_VPORT_INDEX_ALL		0xffff

/* ---- QUERY_VPORT_STATE (0x750) ----------------------------------------------------------- */

#define CXIB_QUERY_VPORT_STATE_IN_OTHER_VPORT	2, 31, 31, struct cxib_query_vport_state_in
#define CXIB_QUERY_VPORT_STATE_IN_VPORT_NUMBER	2, 15, 0, struct cxib_query_vport_state_in
#define CXIB_QUERY_VPORT_STATE_IN_LEN		16
struct cxib_query_vport_state_in { __be32 dw[CXIB_QUERY_VPORT_STATE_IN_LEN / 4]; };
#define CXIB_QUERY_VPORT_STATE_OUT_ADMIN_STATE	3, 7, 4, struct cxib_query_vport_state_out
#define CXIB_QUERY_VPORT_STATE_OUT_STATE	3, 3, 0, struct cxib_query_vport_state_out
#define CXIB_QUERY_VPORT_STATE_OUT_LEN		16
struct cxib_query_vport_state_out { __be32 dw[CXIB_QUERY_VPORT_STATE_OUT_LEN / 4]; };

/* QUERY_VPORT_STATE op_mod */
enum {
	CXIB_VPORT_STATE_OP_MOD_VNIC_VPORT	= 0,
	CXIB_VPORT_STATE_OP_MOD_ESW_VPORT	= 1,
	CXIB_VPORT_STATE_OP_MOD_UPLINK		= 2,
};

/* vport state / admin_state */
enum {
	CXIB_VPORT_STATE_DOWN			= 0,
	CXIB_VPORT_STATE_UP			= 1,
	CXIB_VPORT_STATE_AUTO			= 2,	/* admin_state only */
};

/* ---- ALLOC_Q_COUNTER / DEALLOC_Q_COUNTER / QUERY_Q_COUNTER (0x771 - 0x773) ------------- */

#define CXIB_ALLOC_Q_COUNTER_IN_RESERVED_AT_40	2, 31, 0, struct cxib_alloc_q_counter_in
#define CXIB_ALLOC_Q_COUNTER_IN_RESERVED_AT_60	3, 31, 0, struct cxib_alloc_q_counter_in
#define CXIB_ALLOC_Q_COUNTER_IN_LEN		16
struct cxib_alloc_q_counter_in { __be32 dw[CXIB_ALLOC_Q_COUNTER_IN_LEN / 4]; };
#define CXIB_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID	2, 7, 0, struct cxib_alloc_q_counter_out
#define CXIB_ALLOC_Q_COUNTER_OUT_LEN		16
struct cxib_alloc_q_counter_out { __be32 dw[CXIB_ALLOC_Q_COUNTER_OUT_LEN / 4]; };

#define CXIB_DEALLOC_Q_COUNTER_IN_RESERVED_AT_40	2, 31, 8, struct cxib_dealloc_q_counter_in
#define CXIB_DEALLOC_Q_COUNTER_IN_COUNTER_SET_ID	2, 7, 0, struct cxib_dealloc_q_counter_in
#define CXIB_DEALLOC_Q_COUNTER_IN_RESERVED_AT_60	3, 31, 0, struct cxib_dealloc_q_counter_in
#define CXIB_DEALLOC_Q_COUNTER_IN_LEN		16
struct cxib_dealloc_q_counter_in { __be32 dw[CXIB_DEALLOC_Q_COUNTER_IN_LEN / 4]; };
#define CXIB_DEALLOC_Q_COUNTER_OUT_LEN		16
struct cxib_dealloc_q_counter_out { __be32 dw[CXIB_DEALLOC_Q_COUNTER_OUT_LEN / 4]; };

#define CXIB_QUERY_Q_COUNTER_IN_OTHER_VPORT	2, 31, 31, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_RESERVED_AT_41	2, 30, 16, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_VPORT_NUMBER	2, 15, 0, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_RESERVED_AT_60	3, 31, 0, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_RESERVED_AT_80	4, 31, 0, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_RESERVED_AT_A0	5, 31, 0, struct cxib_query_q_counter_in
/* zero the set after reading */
#define CXIB_QUERY_Q_COUNTER_IN_CLEAR		6, 31, 31, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_AGGREGATE	6, 30, 30, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_RESERVED_AT_C2	6, 29, 0, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_RESERVED_AT_E0	7, 31, 8, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_COUNTER_SET_ID	7, 7, 0, struct cxib_query_q_counter_in
#define CXIB_QUERY_Q_COUNTER_IN_LEN		0x20
struct cxib_query_q_counter_in { __be32 dw[CXIB_QUERY_Q_COUNTER_IN_LEN / 4]; };
#define CXIB_QUERY_Q_COUNTER_OUT_LEN		0x100
struct cxib_query_q_counter_out { __be32 dw[CXIB_QUERY_Q_COUNTER_OUT_LEN / 4]; };

/* QUERY_Q_COUNTER output: one 32-bit counter per dword; CXIB_Q_COUNTER_DW(name) is its dword. */
enum {
	CXIB_Q_COUNTER_RX_WRITE_REQUESTS		= 4,
	CXIB_Q_COUNTER_RX_READ_REQUESTS			= 6,
	CXIB_Q_COUNTER_RX_ATOMIC_REQUESTS		= 8,
	CXIB_Q_COUNTER_RX_DCT_CONNECT			= 10,
	CXIB_Q_COUNTER_OUT_OF_BUFFER			= 12,
	CXIB_Q_COUNTER_OUT_OF_SEQUENCE			= 14,
	CXIB_Q_COUNTER_DUPLICATE_REQUEST		= 16,
	CXIB_Q_COUNTER_RNR_NAK_RETRY_ERR		= 18,
	CXIB_Q_COUNTER_PACKET_SEQ_ERR			= 20,
	CXIB_Q_COUNTER_IMPLIED_NAK_SEQ_ERR		= 22,
	CXIB_Q_COUNTER_LOCAL_ACK_TIMEOUT_ERR		= 24,
	CXIB_Q_COUNTER_REQ_RNR_RETRIES_EXCEEDED		= 28,
	CXIB_Q_COUNTER_RESP_LOCAL_LENGTH_ERROR		= 30,
	CXIB_Q_COUNTER_REQ_LOCAL_LENGTH_ERROR		= 31,
	CXIB_Q_COUNTER_RESP_LOCAL_QP_ERROR		= 32,
	CXIB_Q_COUNTER_LOCAL_OPERATION_ERROR		= 33,
	CXIB_Q_COUNTER_RESP_LOCAL_PROTECTION		= 34,
	CXIB_Q_COUNTER_REQ_LOCAL_PROTECTION		= 35,
	CXIB_Q_COUNTER_RESP_CQE_ERROR			= 36,
	CXIB_Q_COUNTER_REQ_CQE_ERROR			= 37,
	CXIB_Q_COUNTER_REQ_MW_BINDING			= 38,
	CXIB_Q_COUNTER_REQ_BAD_RESPONSE			= 39,
	CXIB_Q_COUNTER_REQ_REMOTE_INVALID_REQUEST	= 40,
	CXIB_Q_COUNTER_RESP_REMOTE_INVALID_REQUEST	= 41,
	CXIB_Q_COUNTER_REQ_REMOTE_ACCESS_ERRORS		= 42,
	CXIB_Q_COUNTER_RESP_REMOTE_ACCESS_ERRORS	= 43,
	CXIB_Q_COUNTER_REQ_REMOTE_OPERATION_ERRORS	= 44,
	CXIB_Q_COUNTER_REQ_TRANSPORT_RETRIES_EXCEEDED	= 45,
	CXIB_Q_COUNTER_CQ_OVERFLOW			= 46,
	CXIB_Q_COUNTER_RESP_CQE_FLUSH_ERROR		= 47,
	CXIB_Q_COUNTER_REQ_CQE_FLUSH_ERROR		= 48,
};

/* Field macro of the counter at dword @dw of the QUERY_Q_COUNTER output. */
#define CXIB_Q_COUNTER_FIELD(dw)		(dw), 31, 0, struct cxib_query_q_counter_out

/* ---- MAD_IFC (0x50d): MAD layouts in mad.h ------------------------------------------------ */

#define CXIB_MAD_IFC_IN_REMOTE_LID		2, 31, 16, struct cxib_mad_ifc_in
#define CXIB_MAD_IFC_IN_PLANE_INDEX		2, 15, 8, struct cxib_mad_ifc_in
#define CXIB_MAD_IFC_IN_PORT			2, 7, 0, struct cxib_mad_ifc_in
#define CXIB_MAD_IFC_IN_MAD_OFFSET		0x10	/* 256-byte request MAD */
#define CXIB_MAD_IFC_IN_LEN			0x110
struct cxib_mad_ifc_in { __be32 dw[CXIB_MAD_IFC_IN_LEN / 4]; };
#define CXIB_MAD_IFC_OUT_RESPONSE_MAD_OFFSET	0x10	/* 256-byte response MAD */
#define CXIB_MAD_IFC_OUT_LEN			0x110
struct cxib_mad_ifc_out { __be32 dw[CXIB_MAD_IFC_OUT_LEN / 4]; };

/* MAD_IFC op_mod bits */
enum {
	CXIB_MAD_IFC_IGNORE_MKEY		= 1 << 0,
	CXIB_MAD_IFC_IGNORE_BKEY		= 1 << 1,
	CXIB_MAD_IFC_NET_VIEW			= 1 << 2,
};

/* ---- NOP (0x80d) ----------------------------------------------------------------------------- */

#define CXIB_NOP_IN_LEN				16
struct cxib_nop_in { __be32 dw[CXIB_NOP_IN_LEN / 4]; };
#define CXIB_NOP_OUT_LEN			16
struct cxib_nop_out { __be32 dw[CXIB_NOP_OUT_LEN / 4]; };

#endif /* _CXIB_CMD_H */
