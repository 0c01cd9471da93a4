/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command queue entry and command header layout (PRM section 2.1, 2.3, 2.5).
 *
 * TO MOVE to include/cxib/ (hw.h, "command queue entry and mailbox" section) in the
 * bring-up issue; kept private to the model until then.  Names follow the PRM field names
 * (cmd_queue_entry: type, input_length, input_mailbox_pointer, ..., token, signature,
 * status, ownership).  Field macros are "dword, high bit, low bit" for <cxib/bits.h>.
 */
#ifndef CXFW_CMD_LAYOUT_H
#define CXFW_CMD_LAYOUT_H

#include <cxib/bits.h>

/* ---- Command queue entry (64 bytes, one per slot) -------------------------------- */

#define CXIB_CMD_ENTRY_SIZE			64
#define CXIB_CMD_ENTRY_TYPE			0, 31, 24
#define CXIB_CMD_ENTRY_INPUT_LENGTH		1, 31, 0
#define CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR_H	2, 31, 0
#define CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR_L	3, 31, 9	/* pointer[31:9] */
#define CXIB_CMD_ENTRY_IN_INLINE_OFFSET		0x10	/* command_input_inline_data */
#define CXIB_CMD_ENTRY_OUT_INLINE_OFFSET	0x20	/* command_output_inline_data */
#define CXIB_CMD_INLINE_LEN			16
#define CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR_H	12, 31, 0
#define CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR_L	13, 31, 9
#define CXIB_CMD_ENTRY_OUTPUT_LENGTH		14, 31, 0
#define CXIB_CMD_ENTRY_TOKEN			15, 31, 24
#define CXIB_CMD_ENTRY_SIGNATURE		15, 23, 16
#define CXIB_CMD_ENTRY_STATUS			15, 7, 1	/* delivery status */
#define CXIB_CMD_ENTRY_OWNERSHIP		15, 0, 0

/* type: the only transport the device speaks. */
#define CXIB_CMD_TYPE_PCIE			0x07

/* ownership */
enum {
	CXIB_CMD_OWNER_SW	= 0,
	CXIB_CMD_OWNER_HW	= 1,
};

/* Delivery status (entry byte 0x3f bits 7:1). */
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

/* ---- Command header (start of every input / output) ------------------------------ */

#define CXIB_CMD_IN_OPCODE			0, 31, 16
#define CXIB_CMD_IN_UID				0, 15, 0
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

#endif /* CXFW_CMD_LAYOUT_H */
