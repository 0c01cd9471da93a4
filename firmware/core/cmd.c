// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw command engine (PRM section 2): runs the command queue slots rung through the
 * doorbell at BAR0 0x018.
 *
 * Per slot: DMA-read the 64-byte entry at cmdq_base + slot * 2^log_cmdq_stride, require
 * ownership = HW, check the descriptor (type 0x07, lengths), decode the command header from
 * the 16 inline input bytes, execute, then hand the entry back: inline output first, then the
 * dword holding delivery status and ownership (cleared), so software polling ownership never
 * sees a half-written result.  Mailboxes and command execution arrive with the bring-up
 * issue; until then every delivered command completes with output status BAD_OP.
 */
#include <string.h>

#include "cmd_layout.h"
#include "cxfw_priv.h"

#define CXFW_CMD_ENTRY_DWORDS	(CXIB_CMD_ENTRY_SIZE / 4)
#define CXFW_CMD_INLINE_DWORDS	(CXIB_CMD_INLINE_LEN / 4)

/*
 * Syndromes are opaque to the driver, which prints them.  The model's are
 * class << 24 | detail, so a log line tells which check failed.
 */
#define CXFW_SYND_CLASS_BAD_OPCODE	0x0b	/* detail: opcode */
#define CXFW_SYND_CLASS_BAD_INLEN	0x1e	/* detail: input_length (saturated) */
#define CXFW_SYND(cls, detail)		((uint32_t)(cls) << 24 | ((uint32_t)(detail) & 0xffffff))

/* One command being executed, decoded from its entry. */
struct cxfw_cmd {
	unsigned int slot;
	uint16_t opcode;
	uint16_t op_mod;
	uint32_t inlen, outlen;
	const __be32 *in;	/* first 16 input bytes */
	__be32 *out;		/* first 16 output bytes, zeroed before execution */
};

struct cxfw_cmd_desc {
	uint16_t opcode;
	const char *name;
	/* Fills cmd->out; returns the output status.  NULL: not implemented yet. */
	uint8_t (*exec)(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t *syndrome);
};

/* Opcodes of PRM section 3; execution arrives with the bring-up issue. */
static const struct cxfw_cmd_desc cxfw_cmds[] = {
	{ 0x100, "QUERY_HCA_CAP", NULL },
	{ 0x101, "QUERY_ADAPTER", NULL },
	{ 0x102, "INIT_HCA", NULL },
	{ 0x103, "TEARDOWN_HCA", NULL },
	{ 0x104, "ENABLE_HCA", NULL },
	{ 0x105, "DISABLE_HCA", NULL },
	{ 0x107, "QUERY_PAGES", NULL },
	{ 0x108, "MANAGE_PAGES", NULL },
	{ 0x109, "SET_HCA_CAP", NULL },
	{ 0x10a, "QUERY_ISSI", NULL },
	{ 0x10b, "SET_ISSI", NULL },
	{ 0x10d, "SET_DRIVER_VERSION", NULL },
	{ 0x200, "CREATE_MKEY", NULL },
	{ 0x201, "QUERY_MKEY", NULL },
	{ 0x202, "DESTROY_MKEY", NULL },
	{ 0x203, "QUERY_SPECIAL_CONTEXTS", NULL },
	{ 0x301, "CREATE_EQ", NULL },
	{ 0x302, "DESTROY_EQ", NULL },
	{ 0x303, "QUERY_EQ", NULL },
	{ 0x400, "CREATE_CQ", NULL },
	{ 0x401, "DESTROY_CQ", NULL },
	{ 0x402, "QUERY_CQ", NULL },
	{ 0x403, "MODIFY_CQ", NULL },
	{ 0x500, "CREATE_QP", NULL },
	{ 0x501, "DESTROY_QP", NULL },
	{ 0x502, "RST2INIT_QP", NULL },
	{ 0x503, "INIT2RTR_QP", NULL },
	{ 0x504, "RTR2RTS_QP", NULL },
	{ 0x505, "RTS2RTS_QP", NULL },
	{ 0x506, "SQERR2RTS_QP", NULL },
	{ 0x507, "2ERR_QP", NULL },
	{ 0x50a, "2RST_QP", NULL },
	{ 0x50b, "QUERY_QP", NULL },
	{ 0x50d, "MAD_IFC", NULL },
	{ 0x700, "CREATE_SRQ", NULL },
	{ 0x701, "DESTROY_SRQ", NULL },
	{ 0x702, "QUERY_SRQ", NULL },
	{ 0x703, "ARM_RQ", NULL },
	{ 0x762, "QUERY_HCA_VPORT_CONTEXT", NULL },
	{ 0x800, "ALLOC_PD", NULL },
	{ 0x801, "DEALLOC_PD", NULL },
	{ 0x802, "ALLOC_UAR", NULL },
	{ 0x803, "DEALLOC_UAR", NULL },
	{ 0x805, "ACCESS_REG", NULL },
	{ 0x806, "ATTACH_TO_MCG", NULL },
	{ 0x807, "DETACH_FROM_MCG", NULL },
	{ 0x80d, "NOP", NULL },
	{ 0x80e, "ALLOC_XRCD", NULL },
	{ 0x80f, "DEALLOC_XRCD", NULL },
};

static const struct cxfw_cmd_desc *cxfw_cmd_lookup(uint16_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(cxfw_cmds) / sizeof(cxfw_cmds[0]); i++)
		if (cxfw_cmds[i].opcode == opcode)
			return &cxfw_cmds[i];
	return NULL;
}

/* Decode and execute a delivered command; fills cmd->out. */
static void cxfw_cmd_exec(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxfw_cmd_desc *desc;
	uint32_t syndrome = 0;
	uint8_t status;

	cmd->opcode = (uint16_t)CXIB_GET(cmd->in, CXIB_CMD_IN_OPCODE);
	cmd->op_mod = (uint16_t)CXIB_GET(cmd->in, CXIB_CMD_IN_OP_MOD);
	desc = cxfw_cmd_lookup(cmd->opcode);

	if (cmd->inlen < CXIB_CMD_IN_HDR_LEN) {
		status = CXIB_CMD_STAT_BAD_INPUT_LEN;
		syndrome = CXFW_SYND(CXFW_SYND_CLASS_BAD_INLEN, cmd->inlen);
	} else if (desc && desc->exec) {
		status = desc->exec(dev, cmd, &syndrome);
	} else {
		status = CXIB_CMD_STAT_BAD_OP;
		syndrome = CXFW_SYND(CXFW_SYND_CLASS_BAD_OPCODE, cmd->opcode);
	}

	CXIB_SET(cmd->out, CXIB_CMD_OUT_STATUS, status);
	CXIB_SET(cmd->out, CXIB_CMD_OUT_SYNDROME, syndrome);
	cxfw_log(dev, CXFW_LOG_DEBUG,
		 "cxfw: cmd slot %u %s (0x%x) op_mod 0x%x inlen %u outlen %u: status 0x%02x syndrome 0x%08x",
		 cmd->slot, desc ? desc->name : "unknown", cmd->opcode, cmd->op_mod, cmd->inlen,
		 cmd->outlen, status, syndrome);
}

/* Check the descriptor and run the command; returns the delivery status. */
static uint8_t cxfw_cmd_deliver(struct cxfw_dev *dev, unsigned int slot, const __be32 *ent,
				__be32 *out)
{
	struct cxfw_cmd cmd = {
		.slot = slot,
		.inlen = CXIB_GET(ent, CXIB_CMD_ENTRY_INPUT_LENGTH),
		.outlen = CXIB_GET(ent, CXIB_CMD_ENTRY_OUTPUT_LENGTH),
		.in = ent + CXIB_CMD_ENTRY_IN_INLINE_OFFSET / 4,
		.out = out,
	};
	uint32_t type = CXIB_GET(ent, CXIB_CMD_ENTRY_TYPE);

	if (type != CXIB_CMD_TYPE_PCIE) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: bad descriptor type 0x%02x",
			 slot, type);
		return CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR;
	}
	if (cmd.outlen < CXIB_CMD_OUT_HDR_LEN) {
		/* not even room for status and syndrome */
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: output_length %u too short",
			 slot, cmd.outlen);
		return CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR;
	}
	cxfw_cmd_exec(dev, &cmd);
	return CXIB_CMD_DELIVERY_OK;
}

static void cxfw_cmd_dma_error(struct cxfw_dev *dev, unsigned int slot, const char *what,
			       uint64_t addr)
{
	cxfw_stat_add(dev, &dev->stats.dma_errors, 1);
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u: DMA %s at 0x%llx failed", slot, what,
		 (unsigned long long)addr);
}

static void cxfw_cmd_run_slot(struct cxfw_dev *dev, uint64_t qbase, unsigned int slot)
{
	uint64_t addr = qbase + ((uint64_t)slot << CXIB_LOG_CMDQ_STRIDE_MIN);
	__be32 ent[CXFW_CMD_ENTRY_DWORDS];
	__be32 out[CXFW_CMD_INLINE_DWORDS];
	const unsigned int sdw = CXIB_DW(CXIB_CMD_ENTRY_OWNERSHIP);
	uint8_t delivery;
	bool fatal;

	pthread_mutex_lock(&dev->lock);
	fatal = dev->fatal;
	pthread_mutex_unlock(&dev->lock);
	if (fatal)
		return;		/* a dead firmware completes nothing */

	if (dev->plat.dma_read(dev->plat.opaque, addr, ent, sizeof(ent))) {
		cxfw_cmd_dma_error(dev, slot, "read of entry", addr);
		return;		/* the entry stays with the hardware */
	}
	if (CXIB_GET(ent, CXIB_CMD_ENTRY_OWNERSHIP) != CXIB_CMD_OWNER_HW) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: cmd slot %u rung but owned by software", slot);
		return;
	}

	memset(out, 0, sizeof(out));
	delivery = cxfw_cmd_deliver(dev, slot, ent, out);
	if (delivery == CXIB_CMD_DELIVERY_OK &&
	    dev->plat.dma_write(dev->plat.opaque, addr + CXIB_CMD_ENTRY_OUT_INLINE_OFFSET, out,
				sizeof(out))) {
		cxfw_cmd_dma_error(dev, slot, "write of output", addr);
		return;
	}

	CXIB_SET(ent, CXIB_CMD_ENTRY_STATUS, delivery);
	CXIB_SET(ent, CXIB_CMD_ENTRY_OWNERSHIP, CXIB_CMD_OWNER_SW);
	if (dev->plat.dma_write(dev->plat.opaque, addr + 4 * sdw, &ent[sdw], sizeof(ent[sdw]))) {
		cxfw_cmd_dma_error(dev, slot, "write of status", addr);
		return;
	}
	cxfw_stat_add(dev, &dev->stats.cmds_completed, 1);
}

void cxfw_cmd_process(struct cxfw_dev *dev)
{
	uint32_t pending;
	uint64_t qbase;
	unsigned int slot;

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
