// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw command engine (PRM section 2): runs the command queue slots rung through the
 * doorbell at BAR0 0x018.
 *
 * Per slot, in the worker:
 *  1. DMA-read the 64-byte entry at cmdq_base + slot * 2^log_cmdq_stride; it must be owned
 *     by hardware.
 *  2. Check the descriptor: type 0x07, reserved fields clear, lengths within
 *     CXFW_CMD_MAX_LEN, entry signature (only when cmdif_checksum == 3).
 *  3. Walk the input mailbox chain (1 KiB-aligned 576-byte blocks): every block must carry
 *     the entry's token and its block number, be readable, and (checksums on) have valid
 *     signatures; the chain must hold ceil((input_length - 16) / 512) blocks (extra blocks
 *     after those are ignored: the stock driver reuses cached chains longer than needed).
 *     The output chain is checked the same way before anything executes.
 *  4. Decode the header and dispatch: unknown or unimplemented opcode -> BAD_OP; then
 *     lengths (BAD_INPUT_LEN / BAD_OUTPUT_LEN), op_mod (BAD_OP), uid (BAD_PARAM), HCA state
 *     (BAD_SYS_STATE), then the command's own checks.
 *  5. Hand the entry back: output mailboxes, inline output, then the dword holding the
 *     delivery status with ownership cleared (so software polling ownership never sees a
 *     half-written result); finally a command-completion EQE (type 0x0a, data = 1 << slot)
 *     if an EQ subscribed to that event existed when the command was delivered and still
 *     does.
 *
 * A descriptor or chain problem completes the entry with a non-zero delivery status and no
 * output.  An entry the device cannot even read stays owned by hardware (the DMA error is
 * counted and logged).
 */
#include <stdlib.h>
#include <string.h>

#include <cxib/cmd_rsvd.h>

#include "cxfw_priv.h"

#define CXFW_CMD_ENTRY_DWORDS	(CXIB_CMD_ENTRY_SIZE / 4)

/*
 * A 64-bit mailbox pointer @f (..._PTR_H, ..._PTR_L: high dword, then the bits above the
 * reserved ones of the low dword) in the entry or block at @p.
 */
#define CXFW_MBOX_PTR(p, f) \
	((uint64_t)CXIB_GET(p, f##_H) << 32 | CXIB_FIELD_PREP(f##_L, CXIB_GET(p, f##_L)))

typedef uint8_t (*cxfw_cmd_fn)(struct cxfw_dev *dev, struct cxfw_cmd *cmd);

struct cxfw_cmd_desc {
	uint16_t opcode;	/* named by cxib_cmd_op_name() */
	cxfw_cmd_fn exec;	/* NULL: known opcode, not implemented (BAD_OP) */
	uint32_t inlen;		/* minimum input_length (the PRM's struct size) */
	uint32_t outlen;	/* minimum output_length */
	uint32_t op_mods;	/* bit n: op_mod n is accepted (op_mod < 32) */
	uint32_t states;	/* CXFW_ST() of the HCA states it may run in */
};

#define CXFW_ST_LIVE	(CXFW_ST(CXFW_HCA_ENABLED) | CXFW_ST(CXFW_HCA_INITIALIZED))
#define CXFW_ST_INIT	CXFW_ST(CXFW_HCA_INITIALIZED)
#define CXFW_ST_ON	(CXFW_ST_LIVE | CXFW_ST(CXFW_HCA_TORN_DOWN))

/* QUERY_HCA_CAP: both modes of the general and atomic types (hca.c); SET_HCA_CAP: the type */
#define CXFW_CAP_OP_MOD_BIT(t, m)	(1u << CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_##t, m))
#define CXFW_CAP_QUERY_OP_MODS \
	(CXFW_CAP_OP_MOD_BIT(GENERAL, 0) | CXFW_CAP_OP_MOD_BIT(GENERAL, 1) | \
	 CXFW_CAP_OP_MOD_BIT(ATOMIC, 0) | CXFW_CAP_OP_MOD_BIT(ATOMIC, 1))
#define CXFW_CAP_SET_OP_MODS \
	(CXFW_CAP_OP_MOD_BIT(GENERAL, 0) | CXFW_CAP_OP_MOD_BIT(ATOMIC, 0))

#define CMD(op, fn, in, out, mods, st) \
	{ CXIB_CMD_OP_##op, fn, in, out, mods, st }
#define NOCMD(op)	{ CXIB_CMD_OP_##op, NULL, 0, 0, 0, 0 }

static const struct cxfw_cmd_desc cxfw_cmds[] = {
	CMD(QUERY_HCA_CAP, cxfw_cmd_query_hca_cap, CXIB_QUERY_HCA_CAP_IN_LEN,
	    CXIB_QUERY_HCA_CAP_OUT_LEN, CXFW_CAP_QUERY_OP_MODS, CXFW_ST_LIVE),
	CMD(QUERY_ADAPTER, cxfw_cmd_query_adapter, CXIB_QUERY_ADAPTER_IN_LEN,
	    CXIB_QUERY_ADAPTER_OUT_LEN, 0x1, CXFW_ST_LIVE),
	CMD(INIT_HCA, cxfw_cmd_init_hca, CXIB_INIT_HCA_IN_LEN, CXIB_INIT_HCA_OUT_LEN, 0x1,
	    CXFW_ST(CXFW_HCA_ENABLED)),
	CMD(TEARDOWN_HCA, cxfw_cmd_teardown_hca, CXIB_TEARDOWN_HCA_IN_LEN,
	    CXIB_TEARDOWN_HCA_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(ENABLE_HCA, cxfw_cmd_enable_hca, CXIB_ENABLE_HCA_IN_LEN, CXIB_ENABLE_HCA_OUT_LEN,
	    0x1, CXFW_ST(CXFW_HCA_DISABLED)),
	CMD(DISABLE_HCA, cxfw_cmd_disable_hca, CXIB_DISABLE_HCA_IN_LEN,
	    CXIB_DISABLE_HCA_OUT_LEN, 0x1,
	    CXFW_ST(CXFW_HCA_ENABLED) | CXFW_ST(CXFW_HCA_TORN_DOWN)),
	CMD(QUERY_PAGES, cxfw_cmd_query_pages, CXIB_QUERY_PAGES_IN_LEN,
	    CXIB_QUERY_PAGES_OUT_LEN, 0xe, CXFW_ST_ON),
	CMD(MANAGE_PAGES, cxfw_cmd_manage_pages, CXIB_MANAGE_PAGES_IN_LEN(0),
	    CXIB_MANAGE_PAGES_OUT_LEN(0), 0x7, CXFW_ST_ON),
	CMD(SET_HCA_CAP, cxfw_cmd_set_hca_cap, CXIB_SET_HCA_CAP_IN_LEN,
	    CXIB_SET_HCA_CAP_OUT_LEN, CXFW_CAP_SET_OP_MODS, CXFW_ST(CXFW_HCA_ENABLED)),
	CMD(QUERY_ISSI, cxfw_cmd_query_issi, CXIB_QUERY_ISSI_IN_LEN, CXIB_QUERY_ISSI_OUT_LEN,
	    0x1, CXFW_ST_LIVE),
	CMD(SET_ISSI, cxfw_cmd_set_issi, CXIB_SET_ISSI_IN_LEN, CXIB_SET_ISSI_OUT_LEN, 0x1,
	    CXFW_ST(CXFW_HCA_ENABLED)),
	NOCMD(SET_DRIVER_VERSION),
	CMD(CREATE_MKEY, cxfw_cmd_create_mkey, CXIB_CREATE_MKEY_IN_LEN(0),
	    CXIB_CREATE_MKEY_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(QUERY_MKEY, cxfw_cmd_query_mkey, CXIB_QUERY_MKEY_IN_LEN, CXIB_QUERY_MKEY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(DESTROY_MKEY, cxfw_cmd_destroy_mkey, CXIB_DESTROY_MKEY_IN_LEN,
	    CXIB_DESTROY_MKEY_OUT_LEN, 0x1, CXFW_ST_INIT),
	NOCMD(QUERY_SPECIAL_CONTEXTS),
	CMD(CREATE_EQ, cxfw_cmd_create_eq, CXIB_CREATE_EQ_IN_LEN(0), CXIB_CREATE_EQ_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(DESTROY_EQ, cxfw_cmd_destroy_eq, CXIB_DESTROY_EQ_IN_LEN, CXIB_DESTROY_EQ_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(QUERY_EQ, cxfw_cmd_query_eq, CXIB_QUERY_EQ_IN_LEN, CXIB_QUERY_EQ_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(CREATE_CQ, cxfw_cmd_create_cq, CXIB_CREATE_CQ_IN_LEN(0), CXIB_CREATE_CQ_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(DESTROY_CQ, cxfw_cmd_destroy_cq, CXIB_DESTROY_CQ_IN_LEN, CXIB_DESTROY_CQ_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(QUERY_CQ, cxfw_cmd_query_cq, CXIB_QUERY_CQ_IN_LEN, CXIB_QUERY_CQ_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(MODIFY_CQ, cxfw_cmd_modify_cq, CXIB_MODIFY_CQ_IN_LEN(0), CXIB_MODIFY_CQ_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(CREATE_QP, cxfw_cmd_create_qp, CXIB_CREATE_QP_IN_LEN(0), CXIB_CREATE_QP_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(DESTROY_QP, cxfw_cmd_destroy_qp, CXIB_DESTROY_QP_IN_LEN, CXIB_DESTROY_QP_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(RST2INIT_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(INIT2RTR_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(RTR2RTS_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(RTS2RTS_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(SQERR2RTS_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(2ERR_QP, cxfw_cmd_modify_qp, CXIB_QP_2ERR_IN_LEN, CXIB_QP_2ERR_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(2RST_QP, cxfw_cmd_modify_qp, CXIB_QP_2RST_IN_LEN, CXIB_QP_2RST_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(QUERY_QP, cxfw_cmd_query_qp, CXIB_QUERY_QP_IN_LEN, CXIB_QUERY_QP_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(SQD_RTS_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(INIT2INIT_QP, cxfw_cmd_modify_qp, CXIB_QP_MODIFY_IN_LEN, CXIB_QP_MODIFY_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(MAD_IFC, cxfw_cmd_mad_ifc, CXIB_MAD_IFC_IN_LEN, CXIB_MAD_IFC_OUT_LEN, 0xff,
	    CXFW_ST_INIT),
	CMD(CREATE_SRQ, cxfw_cmd_create_srq, CXIB_CREATE_SRQ_IN_LEN(0),
	    CXIB_CREATE_SRQ_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(DESTROY_SRQ, cxfw_cmd_destroy_srq, CXIB_DESTROY_SRQ_IN_LEN,
	    CXIB_DESTROY_SRQ_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(QUERY_SRQ, cxfw_cmd_query_srq, CXIB_QUERY_SRQ_IN_LEN, CXIB_QUERY_SRQ_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(ARM_RQ, cxfw_cmd_arm_rq, CXIB_ARM_RQ_IN_LEN, CXIB_ARM_RQ_OUT_LEN,
	    1u << CXIB_ARM_RQ_OP_MOD_SRQ, CXFW_ST_INIT),
	CMD(CREATE_XRC_SRQ, cxfw_cmd_create_xrc_srq, CXIB_CREATE_XRC_SRQ_IN_LEN(0),
	    CXIB_CREATE_XRC_SRQ_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(DESTROY_XRC_SRQ, cxfw_cmd_destroy_xrc_srq, CXIB_DESTROY_XRC_SRQ_IN_LEN,
	    CXIB_DESTROY_XRC_SRQ_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(QUERY_XRC_SRQ, cxfw_cmd_query_xrc_srq, CXIB_QUERY_XRC_SRQ_IN_LEN,
	    CXIB_QUERY_XRC_SRQ_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(ARM_XRC_SRQ, cxfw_cmd_arm_xrc_srq, CXIB_ARM_XRC_SRQ_IN_LEN, CXIB_ARM_XRC_SRQ_OUT_LEN,
	    1u << CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ, CXFW_ST_INIT),
	CMD(CREATE_RMP, cxfw_cmd_create_rmp, CXIB_CREATE_RMP_IN_LEN(0), CXIB_CREATE_RMP_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(MODIFY_RMP, cxfw_cmd_modify_rmp, CXIB_MODIFY_RMP_IN_LEN, CXIB_MODIFY_RMP_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(DESTROY_RMP, cxfw_cmd_destroy_rmp, CXIB_DESTROY_RMP_IN_LEN, CXIB_DESTROY_RMP_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(QUERY_RMP, cxfw_cmd_query_rmp, CXIB_QUERY_RMP_IN_LEN, CXIB_QUERY_RMP_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(QUERY_VPORT_STATE, cxfw_cmd_query_vport_state, CXIB_QUERY_VPORT_STATE_IN_LEN,
	    CXIB_QUERY_VPORT_STATE_OUT_LEN, 0x7, CXFW_ST_INIT),
	CMD(QUERY_HCA_VPORT_CONTEXT, cxfw_cmd_query_hca_vport_context,
	    CXIB_QUERY_HCA_VPORT_CONTEXT_IN_LEN, CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(QUERY_HCA_VPORT_GID, cxfw_cmd_query_hca_vport_gid, CXIB_QUERY_HCA_VPORT_GID_IN_LEN,
	    CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(1), 0x1, CXFW_ST_INIT),
	CMD(QUERY_HCA_VPORT_PKEY, cxfw_cmd_query_hca_vport_pkey,
	    CXIB_QUERY_HCA_VPORT_PKEY_IN_LEN, CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(1), 0x1,
	    CXFW_ST_INIT),
	CMD(ALLOC_PD, cxfw_cmd_alloc_pd, CXIB_ALLOC_PD_IN_LEN, CXIB_ALLOC_PD_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(DEALLOC_PD, cxfw_cmd_dealloc_pd, CXIB_DEALLOC_PD_IN_LEN, CXIB_DEALLOC_PD_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(ALLOC_UAR, cxfw_cmd_alloc_uar, CXIB_ALLOC_UAR_IN_LEN, CXIB_ALLOC_UAR_OUT_LEN, 0x1,
	    CXFW_ST_INIT),
	CMD(DEALLOC_UAR, cxfw_cmd_dealloc_uar, CXIB_DEALLOC_UAR_IN_LEN,
	    CXIB_DEALLOC_UAR_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(ACCESS_REG, cxfw_cmd_access_reg, CXIB_ACCESS_REG_IN_LEN(0),
	    CXIB_ACCESS_REG_OUT_LEN(0), 0x3, CXFW_ST_LIVE),
	CMD(ALLOC_Q_COUNTER, cxfw_cmd_alloc_q_counter, CXIB_ALLOC_Q_COUNTER_IN_LEN,
	    CXIB_ALLOC_Q_COUNTER_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(DEALLOC_Q_COUNTER, cxfw_cmd_dealloc_q_counter, CXIB_DEALLOC_Q_COUNTER_IN_LEN,
	    CXIB_DEALLOC_Q_COUNTER_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(QUERY_Q_COUNTER, cxfw_cmd_query_q_counter, CXIB_QUERY_Q_COUNTER_IN_LEN,
	    CXIB_QUERY_Q_COUNTER_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(ATTACH_TO_MCG, cxfw_cmd_attach_to_mcg, CXIB_ATTACH_TO_MCG_IN_LEN,
	    CXIB_ATTACH_TO_MCG_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(DETACH_FROM_MCG, cxfw_cmd_detach_from_mcg, CXIB_DETACH_FROM_MCG_IN_LEN,
	    CXIB_DETACH_FROM_MCG_OUT_LEN, 0x1, CXFW_ST_INIT),
	CMD(NOP, cxfw_cmd_nop, CXIB_NOP_IN_LEN, CXIB_NOP_OUT_LEN, 0x1, CXFW_ST_ANY),
	CMD(ALLOC_XRCD, cxfw_cmd_alloc_xrcd, CXIB_ALLOC_XRCD_IN_LEN, CXIB_ALLOC_XRCD_OUT_LEN,
	    0x1, CXFW_ST_INIT),
	CMD(DEALLOC_XRCD, cxfw_cmd_dealloc_xrcd, CXIB_DEALLOC_XRCD_IN_LEN,
	    CXIB_DEALLOC_XRCD_OUT_LEN, 0x1, CXFW_ST_INIT),
};

/* The reserved input fields every command is checked against (include/cxib/cmd_rsvd.h). */
struct cxfw_cmd_rsvd {
	uint16_t opcode;
	uint8_t dw;
	uint32_t mask;
};

#define RSVD(op, ...)	{ CXIB_CMD_OP_##op, CXIB_DW(__VA_ARGS__), CXIB_FMASK(__VA_ARGS__) },

static const struct cxfw_cmd_rsvd cxfw_cmd_rsvd_in[] = {
	CXIB_CMD_RSVD_IN(RSVD)
};

/* BAD_PARAM (class RESERVED, the dword) if @cmd sets a reserved field of its input. */
static uint8_t cxfw_cmd_check_rsvd(struct cxfw_cmd *cmd)
{
	size_t i;

	for (i = 0; i < sizeof(cxfw_cmd_rsvd_in) / sizeof(cxfw_cmd_rsvd_in[0]); i++) {
		const struct cxfw_cmd_rsvd *r = &cxfw_cmd_rsvd_in[i];

		if (r->opcode == cmd->opcode &&
		    (cxib_be32_to_host(cmd->in[r->dw]) & r->mask))
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_RESERVED, r->dw));
	}
	return CXIB_CMD_STAT_OK;
}

static const struct cxfw_cmd_desc *cxfw_cmd_lookup(uint16_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(cxfw_cmds) / sizeof(cxfw_cmds[0]); i++)
		if (cxfw_cmds[i].opcode == opcode)
			return &cxfw_cmds[i];
	return NULL;
}

bool cxfw_cmd_checksums(struct cxfw_dev *dev)
{
	bool on;

	pthread_mutex_lock(&dev->lock);
	on = CXIB_GET(dev->cap_cur.dw, CXIB_HCA_CAP_CMDIF_CHECKSUM) ==
	     CXIB_CAP_CMDIF_CHECKSUM_ENABLED;
	pthread_mutex_unlock(&dev->lock);
	return on;
}

static uint32_t cxfw_saturate24(uint32_t v)
{
	return v > 0xffffff ? 0xffffff : v;
}

/* Decode and execute a delivered command; returns the output status. */
static uint8_t cxfw_cmd_dispatch(struct cxfw_dev *dev, struct cxfw_cmd *cmd,
				 const struct cxfw_cmd_desc *desc)
{
	enum cxfw_hca_state state;
	uint16_t uid = (uint16_t)CXIB_GET(cmd->in, CXIB_CMD_IN_UID);
	uint8_t status;

	if (cmd->inlen < CXIB_CMD_IN_HDR_LEN)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_INLEN, cxfw_saturate24(cmd->inlen)));
	if (!desc || !desc->exec)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OP,
				 CXFW_SYND(CXFW_SYND_BAD_OPCODE, cmd->opcode));
	if (cmd->inlen < desc->inlen)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_INLEN, cxfw_saturate24(cmd->inlen)));
	if (cmd->outlen < desc->outlen)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OUTPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_OUTLEN, cxfw_saturate24(cmd->outlen)));
	if (cmd->op_mod >= 32 || !(desc->op_mods & (1u << cmd->op_mod)))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OP,
				 CXFW_SYND(CXFW_SYND_BAD_OP_MOD, cmd->op_mod));
	/* no user contexts (log_max_uctx = 0): only the kernel's uid 0 exists */
	if (uid)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_UID, uid));
	if (CXIB_GET(cmd->in, CXIB_CMD_IN_RESERVED_AT_20))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_RESERVED, CXIB_DW(CXIB_CMD_IN_RESERVED_AT_20)));

	pthread_mutex_lock(&dev->lock);
	state = dev->hca_state;
	pthread_mutex_unlock(&dev->lock);
	if (!(desc->states & CXFW_ST(state)))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_SYS_STATE,
				 CXFW_SYND(CXFW_SYND_BAD_STATE, state));
	status = cxfw_cmd_check_rsvd(cmd);
	if (status == CXIB_CMD_STAT_OK)
		status = cxfw_strict_check(dev, cmd);
	if (status != CXIB_CMD_STAT_OK)
		return status;
	return desc->exec(dev, cmd);
}

static void cxfw_cmd_dma_error(struct cxfw_dev *dev, unsigned int slot, const char *what,
			       uint64_t addr)
{
	cxfw_stat_add(dev, &dev->stats.dma_errors, 1);
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: DMA %s at 0x%llx failed", slot, what,
		 (unsigned long long)addr);
}

/* A mailbox chain as read from the guest. */
struct cxfw_chain {
	uint32_t nblocks;
	uint64_t *addr;			/* block addresses */
	struct cxib_cmd_mailbox *blk;	/* block images (output chain: for the signature) */
};

static void cxfw_chain_free(struct cxfw_chain *ch)
{
	free(ch->addr);
	free(ch->blk);
	ch->addr = NULL;
	ch->blk = NULL;
}

static bool cxfw_block_sigs_ok(const struct cxib_cmd_mailbox *b, bool data_too)
{
	const uint8_t *p = (const uint8_t *)b;

	if (cxib_xor8(p + CXIB_CMD_MBOX_CTRL_SIG_START,
		      CXIB_CMD_MBOX_CTRL_SIG_END - CXIB_CMD_MBOX_CTRL_SIG_START + 1) !=
	    CXIB_CMD_SIG_GOOD)
		return false;
	return !data_too || cxib_xor8(p, CXIB_CMD_MBOX_SIZE) == CXIB_CMD_SIG_GOOD;
}

/*
 * Walk the chain of @n blocks starting at @ptr; returns the delivery status.  @is_input:
 * copy the data after the inline bytes of @buf; otherwise keep the images for the write.
 */
static uint8_t cxfw_chain_read(struct cxfw_dev *dev, unsigned int slot, uint64_t ptr,
			       uint32_t n, uint8_t token, bool csum, bool is_input,
			       uint8_t *buf, uint32_t len, struct cxfw_chain *ch)
{
	const uint8_t len_err = is_input ? CXIB_CMD_DELIVERY_INPUT_LEN_ERR :
					   CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR;
	const char *dir = is_input ? "input" : "output";
	struct cxib_cmd_mailbox b;
	uint32_t k, off, chunk;

	ch->nblocks = n;
	ch->addr = calloc(n ? n : 1, sizeof(*ch->addr));
	ch->blk = is_input ? NULL : calloc(n ? n : 1, sizeof(*ch->blk));
	if (!ch->addr || (!is_input && !ch->blk)) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: out of memory", slot);
		return CXIB_CMD_DELIVERY_FW_INTERNAL_ERR;
	}
	if (n && (ptr & (CXIB_CMD_MBOX_ALIGN - 1))) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: %s mailbox 0x%llx not 1 KiB aligned",
			 slot, dir, (unsigned long long)ptr);
		return is_input ? CXIB_CMD_DELIVERY_INPUT_PTR_ALIGN :
				  CXIB_CMD_DELIVERY_OUTPUT_PTR_ALIGN;
	}
	for (k = 0; k < n; k++) {
		if (!ptr) {
			cxfw_log(dev, CXFW_LOG_ERR,
				 "cxfw: cmd slot %u: %s chain ends after %u of %u blocks", slot,
				 dir, k, n);
			return len_err;
		}
		if (cxfw_dma_read(dev, ptr, &b, sizeof(b))) {
			cxfw_cmd_dma_error(dev, slot, is_input ? "read of input mailbox" :
				"read of output mailbox", ptr);
			return CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR;
		}
		if (csum && !cxfw_block_sigs_ok(&b, is_input)) {
			cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: %s block %u bad signature",
				 slot, dir, k);
			return CXIB_CMD_DELIVERY_SIGNATURE_ERR;
		}
		if (CXIB_GET(&b, CXIB_CMD_MBOX_TOKEN) != token) {
			cxfw_log(dev, CXFW_LOG_ERR,
				 "cxfw: cmd slot %u: %s block %u token 0x%02x, entry 0x%02x", slot,
				 dir, k, CXIB_GET(&b, CXIB_CMD_MBOX_TOKEN), token);
			return CXIB_CMD_DELIVERY_TOKEN_ERR;
		}
		if (CXIB_GET(&b, CXIB_CMD_MBOX_BLOCK_NUMBER) != k) {
			cxfw_log(dev, CXFW_LOG_ERR,
				 "cxfw: cmd slot %u: %s block %u has block_number %u", slot, dir, k,
				 CXIB_GET(&b, CXIB_CMD_MBOX_BLOCK_NUMBER));
			return CXIB_CMD_DELIVERY_BAD_BLOCK_NUMBER;
		}
		ch->addr[k] = ptr;
		if (is_input) {
			off = CXIB_CMD_INLINE_LEN + k * CXIB_CMD_MBOX_DATA_LEN;
			chunk = len - off < CXIB_CMD_MBOX_DATA_LEN ? len - off :
								     CXIB_CMD_MBOX_DATA_LEN;
			memcpy(buf + off, b.data, chunk);
		} else {
			ch->blk[k] = b;
		}
		ptr = CXFW_MBOX_PTR(&b, CXIB_CMD_MBOX_NEXT_PTR);
	}
	return CXIB_CMD_DELIVERY_OK;
}

/* Write the output beyond the inline bytes into the output chain; false on a DMA error. */
static bool cxfw_chain_write(struct cxfw_dev *dev, unsigned int slot, struct cxfw_chain *ch,
			     const uint8_t *out, uint32_t outlen, bool csum)
{
	uint32_t k, off, chunk;

	for (k = 0; k < ch->nblocks; k++) {
		struct cxib_cmd_mailbox *b = &ch->blk[k];
		uint8_t *raw = (uint8_t *)b;

		off = CXIB_CMD_INLINE_LEN + k * CXIB_CMD_MBOX_DATA_LEN;
		chunk = outlen - off < CXIB_CMD_MBOX_DATA_LEN ? outlen - off :
								 CXIB_CMD_MBOX_DATA_LEN;
		memset(b->data, 0, sizeof(b->data));
		memcpy(b->data, out + off, chunk);
		if (cxfw_dma_write(dev, ch->addr[k], b->data, sizeof(b->data))) {
			cxfw_cmd_dma_error(dev, slot, "write of output mailbox", ch->addr[k]);
			return false;
		}
		if (!csum)
			continue;
		cxib_cmd_mbox_sign_data(b);
		if (cxfw_dma_write(dev, ch->addr[k] + CXIB_CMD_MBOX_SIG_END,
				   &raw[CXIB_CMD_MBOX_SIG_END], 1)) {
			cxfw_cmd_dma_error(dev, slot, "write of output signature", ch->addr[k]);
			return false;
		}
	}
	return true;
}

/* Descriptor checks that need no DMA; returns the delivery status. */
static uint8_t cxfw_entry_check(struct cxfw_dev *dev, unsigned int slot, const __be32 *ent,
				bool csum)
{
	uint32_t type = CXIB_GET(ent, CXIB_CMD_ENTRY_TYPE);
	uint32_t inlen = CXIB_GET(ent, CXIB_CMD_ENTRY_INPUT_LENGTH);
	uint32_t outlen = CXIB_GET(ent, CXIB_CMD_ENTRY_OUTPUT_LENGTH);

	if (type != CXIB_CMD_TYPE_PCIE) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: bad descriptor type 0x%02x",
			 slot, type);
		return CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR;
	}
	if (csum && cxib_xor8(ent, CXIB_CMD_ENTRY_SIZE) != CXIB_CMD_SIG_GOOD) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: bad entry signature", slot);
		return CXIB_CMD_DELIVERY_SIGNATURE_ERR;
	}
	if (CXIB_GET(ent, CXIB_CMD_ENTRY_RESERVED_AT_8) ||
	    CXIB_GET(ent, CXIB_CMD_ENTRY_RESERVED_AT_77) ||
	    CXIB_GET(ent, CXIB_CMD_ENTRY_RESERVED_AT_1B7) ||
	    CXIB_GET(ent, CXIB_CMD_ENTRY_RESERVED_AT_1F0)) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: reserved entry bits set", slot);
		return CXIB_CMD_DELIVERY_RES_FLD_NOT_CLR;
	}
	if (inlen > CXFW_CMD_MAX_LEN) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: input_length %u too long", slot,
			 inlen);
		return CXIB_CMD_DELIVERY_INPUT_LEN_ERR;
	}
	if (outlen < CXIB_CMD_OUT_HDR_LEN || outlen > CXFW_CMD_MAX_LEN) {
		/* not even room for status and syndrome, or absurd */
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: bad output_length %u", slot,
			 outlen);
		return CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR;
	}
	return CXIB_CMD_DELIVERY_OK;
}

/* Round a length up to whole dwords, at least the 16 inline bytes. */
static uint32_t cxfw_buf_len(uint32_t len)
{
	len = len < CXIB_CMD_INLINE_LEN ? CXIB_CMD_INLINE_LEN : len;
	return (len + 3) & ~3u;
}

/*
 * Deliver and execute the command in @ent (a copy of the entry; its inline output is
 * filled in); returns the delivery status.  The output mailboxes are written here.
 */
static uint8_t cxfw_cmd_deliver(struct cxfw_dev *dev, unsigned int slot, __be32 *ent,
				bool csum)
{
	const unsigned int in_dw = CXIB_CMD_ENTRY_IN_INLINE_OFFSET / 4;
	const unsigned int out_dw = CXIB_CMD_ENTRY_OUT_INLINE_OFFSET / 4;
	struct cxfw_chain in_ch = { 0 }, out_ch = { 0 };
	const struct cxfw_cmd_desc *desc;
	const char *name;
	struct cxfw_cmd cmd = { .slot = slot };
	uint8_t token = (uint8_t)CXIB_GET(ent, CXIB_CMD_ENTRY_TOKEN);
	uint8_t delivery, status;
	uint8_t *in = NULL, *out = NULL;

	delivery = cxfw_entry_check(dev, slot, ent, csum);
	if (delivery != CXIB_CMD_DELIVERY_OK)
		return delivery;

	cmd.inlen = CXIB_GET(ent, CXIB_CMD_ENTRY_INPUT_LENGTH);
	cmd.outlen = CXIB_GET(ent, CXIB_CMD_ENTRY_OUTPUT_LENGTH);
	in = calloc(1, cxfw_buf_len(cmd.inlen));
	out = calloc(1, cxfw_buf_len(cmd.outlen));
	if (!in || !out) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: out of memory", slot);
		delivery = CXIB_CMD_DELIVERY_FW_INTERNAL_ERR;
		goto out;
	}
	memcpy(in, &ent[in_dw], CXIB_CMD_INLINE_LEN);

	delivery = cxfw_chain_read(dev, slot, CXFW_MBOX_PTR(ent, CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR),
				   CXIB_CMD_MBOX_BLOCKS(cmd.inlen), token, csum, true, in,
				   cmd.inlen, &in_ch);
	if (delivery != CXIB_CMD_DELIVERY_OK)
		goto out;
	delivery = cxfw_chain_read(dev, slot, CXFW_MBOX_PTR(ent, CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR),
				   CXIB_CMD_MBOX_BLOCKS(cmd.outlen), token, csum, false, NULL,
				   cmd.outlen, &out_ch);
	if (delivery != CXIB_CMD_DELIVERY_OK)
		goto out;

	cmd.in = (const __be32 *)in;
	cmd.out = (__be32 *)out;
	cmd.opcode = (uint16_t)CXIB_GET(cmd.in, CXIB_CMD_IN_OPCODE);
	cmd.op_mod = (uint16_t)CXIB_GET(cmd.in, CXIB_CMD_IN_OP_MOD);
	desc = cxfw_cmd_lookup(cmd.opcode);
	/* the commands of the table have names; others are traced by number */
	name = desc ? cxib_cmd_op_name(desc->opcode) : NULL;

	/* a fault (fault.c) may fail it on purpose, without executing it */
	if (!cxfw_fault_cmd_fail(dev, cmd.opcode, &status, &cmd.syndrome))
		status = cxfw_cmd_dispatch(dev, &cmd, desc);
	if (status != CXIB_CMD_STAT_OK) {
		/* a failed command returns nothing but status and syndrome */
		memset(out, 0, cxfw_buf_len(cmd.outlen));
		cxfw_stat_add(dev, &dev->stats.cmd_failures, 1);
	}
	CXIB_SET(cmd.out, CXIB_CMD_OUT_STATUS, status);
	CXIB_SET(cmd.out, CXIB_CMD_OUT_SYNDROME, cmd.syndrome);
	/* "not supported" is a normal answer (drivers probe); other failures are guest bugs */
	cxfw_log(dev, !status ? CXFW_LOG_DEBUG :
		      status == CXIB_CMD_STAT_BAD_OP ? CXFW_LOG_INFO : CXFW_LOG_ERR,
		 "cxfw: cmd slot %u %s (0x%x) op_mod 0x%x inlen %u outlen %u: status 0x%02x syndrome 0x%08x",
		 slot, name ? name : "unknown", cmd.opcode, cmd.op_mod, cmd.inlen,
		 cmd.outlen, status, cmd.syndrome);
	cxfw_cmd_trace(dev, &cmd, name, status);

	if (!cxfw_chain_write(dev, slot, &out_ch, out, cmd.outlen, csum)) {
		delivery = CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR;
		goto out;
	}
	memcpy(&ent[out_dw], out, CXIB_CMD_INLINE_LEN);
out:
	cxfw_chain_free(&in_ch);
	cxfw_chain_free(&out_ch);
	free(in);
	free(out);
	return delivery;
}

static void cxfw_cmd_run_slot(struct cxfw_dev *dev, uint64_t qbase, unsigned int slot)
{
	uint64_t addr = qbase + ((uint64_t)slot << CXIB_LOG_CMDQ_STRIDE_MIN);
	const unsigned int sdw = CXIB_DW(CXIB_CMD_ENTRY_OWNERSHIP);
	const unsigned int out_dw = CXIB_CMD_ENTRY_OUT_INLINE_OFFSET / 4;
	__be32 ent[CXFW_CMD_ENTRY_DWORDS];
	uint64_t cmd_eq = 0;
	uint32_t vector[7] = { 0 };
	uint8_t delivery;
	bool csum;

	if (cxfw_dead(dev))
		return;		/* a dead firmware completes nothing */

	if (cxfw_dma_read(dev, addr, ent, sizeof(ent))) {
		cxfw_cmd_dma_error(dev, slot, "read of entry", addr);
		return;		/* the entry stays with the hardware */
	}
	if (CXIB_GET(ent, CXIB_CMD_ENTRY_OWNERSHIP) != CXIB_CMD_OWNER_HW) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u rung but owned by software", slot);
		return;
	}

	/* the command-completion EQE goes only to an EQ that existed before the command */
	cmd_eq = cxfw_eq_subscriber(dev, CXIB_EVENT_TYPE_CMD);
	csum = cxfw_cmd_checksums(dev);
	delivery = cxfw_cmd_deliver(dev, slot, ent, csum);
	if (delivery == CXIB_CMD_DELIVERY_OK &&
	    cxfw_dma_write(dev, addr + CXIB_CMD_ENTRY_OUT_INLINE_OFFSET,
			   &ent[out_dw], CXIB_CMD_INLINE_LEN)) {
		cxfw_cmd_dma_error(dev, slot, "write of output", addr);
		return;
	}

	CXIB_SET(ent, CXIB_CMD_ENTRY_STATUS, delivery);
	CXIB_SET(ent, CXIB_CMD_ENTRY_OWNERSHIP, CXIB_CMD_OWNER_SW);
	if (csum) {
		/* the completed entry's bytes XOR to 0xff (the driver may verify it) */
		cxib_cmd_entry_sign(ent);
	}
	if (cxfw_dma_write(dev, addr + 4 * sdw, &ent[sdw], sizeof(ent[sdw]))) {
		cxfw_cmd_dma_error(dev, slot, "write of status", addr);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	dev->stats.cmds_completed++;
	if (delivery != CXIB_CMD_DELIVERY_OK)
		dev->stats.cmd_delivery_errors++;
	pthread_mutex_unlock(&dev->lock);

	/* after ownership: the driver may look at the entry as soon as it sees the EQE */
	if (cmd_eq) {
		vector[0] = 1u << slot;
		cxfw_eq_post(dev, cmd_eq, CXIB_EVENT_TYPE_CMD, 0, vector);
	}
}

void cxfw_cmd_process(struct cxfw_dev *dev)
{
	uint32_t pending;
	uint64_t qbase;
	unsigned int slot;

	if (cxfw_fault_cmd_hang(dev))
		return;		/* a hung firmware: the doorbells wait (fault.c) */
	for (;;) {
		pthread_mutex_lock(&dev->lock);
		pending = dev->cmd_pending & cxfw_cmdq_slot_mask(dev);
		dev->cmd_pending = 0;
		qbase = cxfw_iseg_cmdq_base(dev);
		pthread_mutex_unlock(&dev->lock);
		if (!pending)
			return;

		while (pending) {
			slot = (unsigned int)__builtin_ctz(pending);
			pending &= pending - 1;
			cxfw_cmd_run_slot(dev, qbase, slot);
		}
	}
}
