// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw strict mode (cfg.strict; QEMU property strict=on, on in every cxlab node): rules
 * the model enforces only when asked, because being lenient would be easier and a driver
 * could pass every test while relying on it.  Each refusal is logged at error level with
 * "strict:" and the rule's name (the lab fails a job on such a line), and answered with
 * the PRM status real firmware gives:
 *
 *  issi-first   Between ENABLE_HCA and SET_ISSI, while the device offers ISSI 1, only
 *               QUERY_ISSI, SET_ISSI, DISABLE_HCA and NOP run (PRM "HCA Driver Start-up":
 *               the interface version is fixed before anything else is negotiated):
 *               BAD_SYS_STATE, syndrome class ORDER with the SET_ISSI opcode.
 *  boot-pages   Between SET_ISSI and the boot pages (QUERY_PAGES op_mod 1) being held,
 *               only QUERY_ISSI, SET_ISSI, QUERY_PAGES, MANAGE_PAGES, DISABLE_HCA and NOP
 *               run (PRM start-up: the firmware runs on the boot pages): BAD_SYS_STATE,
 *               class ORDER with the MANAGE_PAGES opcode.
 *  reserved     The commands whose whole input is the 16-byte header (include/cxib/
 *               cmd_rsvd.h, CXIB_CMD_HDR_ONLY_IN) have every bit of dwords 2 and 3
 *               outside their named fields clear: BAD_PARAM, syndrome class RESERVED with
 *               the dword index.
 *  uar-owner    An EQ, CQ or SQ doorbell through a UAR page other than the one the queue
 *               was created with is ignored in either mode; in strict mode the log line
 *               names the rule, so the lab fails the job (a doorbell has no status).
 *
 * Always enforced, strict or not (elsewhere): reserved bits of the command entry, the
 * mailboxes and dword 1 of every header, and the reserved fields include/cxib/cmd_rsvd.h
 * lists per command (CXIB_CMD_RSVD_IN), all in cmd.c; INIT_HCA only after the pages QUERY_PAGES
 * asked for (pages.c); doorbells only through the UAR page the EQ, CQ or QP was created
 * with (eq.c, cq.c, qp.c); every command only in the HCA states the PRM allows (cmd.c).
 */
#include <cxib/cmd_rsvd.h>

#include "cxfw_priv.h"

/* A named field of dword 2 or 3 of a header-only command. */
struct cxfw_strict_field {
	uint8_t dw;
	uint32_t mask;
};

struct cxfw_strict_cmd {
	uint16_t opcode;
	struct cxfw_strict_field f[2];	/* unused entries: mask 0 */
};

#define SF(...)		{ CXIB_DW(__VA_ARGS__), CXIB_FMASK(__VA_ARGS__) }
#define SCMD(op, ...)	{ CXIB_CMD_OP_##op, { __VA_ARGS__ } },

/* include/cxib/cmd_rsvd.h's header-only commands with their named fields */
static const struct cxfw_strict_cmd cxfw_strict_cmds[] = {
	CXIB_CMD_HDR_ONLY_IN(SCMD, SF)
};

/* The commands that may run before SET_ISSI (issi-first). */
static bool cxfw_strict_before_issi(uint16_t opcode)
{
	return opcode == CXIB_CMD_OP_QUERY_ISSI || opcode == CXIB_CMD_OP_SET_ISSI ||
	       opcode == CXIB_CMD_OP_DISABLE_HCA || opcode == CXIB_CMD_OP_NOP;
}

/* ... and before the boot pages are held (boot-pages). */
static bool cxfw_strict_before_boot_pages(uint16_t opcode)
{
	return cxfw_strict_before_issi(opcode) || opcode == CXIB_CMD_OP_QUERY_PAGES ||
	       opcode == CXIB_CMD_OP_MANAGE_PAGES;
}

void cxfw_doorbell_refused(struct cxfw_dev *dev, const char *what, uint32_t num,
			   uint32_t uar, uint32_t owner)
{
	if (owner && dev->cfg.strict)
		cxfw_log(dev, CXFW_LOG_ERR,
			 "cxfw: strict: uar-owner: %s doorbell for %s 0x%x through UAR %u, not its UAR %u: ignored",
			 what, what, num, uar, owner);
	else
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: %s doorbell for %s 0x%x through UAR %u ignored",
			 what, what, num, uar);
}

static uint8_t cxfw_strict_refuse(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint8_t status,
				  uint32_t synd, const char *rule, const char *what)
{
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: strict: %s: opcode 0x%x op_mod 0x%x refused: %s",
		 rule, cmd->opcode, cmd->op_mod, what);
	return cxfw_fail(cmd, status, synd);
}

uint8_t cxfw_strict_check(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	enum cxfw_hca_state state;
	bool issi_set, boot_held;
	size_t i, k;

	if (!dev->cfg.strict)
		return CXIB_CMD_STAT_OK;

	pthread_mutex_lock(&dev->lock);
	state = dev->hca_state;
	issi_set = dev->issi_set;
	boot_held = dev->npages >= dev->cfg.boot_pages;
	pthread_mutex_unlock(&dev->lock);
	if (state == CXFW_HCA_ENABLED && !issi_set &&
	    (dev->cfg.supported_issi & (1u << CXIB_ISSI_1)) &&
	    !cxfw_strict_before_issi(cmd->opcode))
		return cxfw_strict_refuse(dev, cmd, CXIB_CMD_STAT_BAD_SYS_STATE,
					  CXFW_SYND(CXFW_SYND_ORDER, CXIB_CMD_OP_SET_ISSI),
					  "issi-first", "SET_ISSI has not run since ENABLE_HCA");
	if (state == CXFW_HCA_ENABLED && !boot_held &&
	    !cxfw_strict_before_boot_pages(cmd->opcode))
		return cxfw_strict_refuse(dev, cmd, CXIB_CMD_STAT_BAD_SYS_STATE,
					  CXFW_SYND(CXFW_SYND_ORDER, CXIB_CMD_OP_MANAGE_PAGES),
					  "boot-pages", "the boot pages have not been given");

	for (i = 0; i < sizeof(cxfw_strict_cmds) / sizeof(cxfw_strict_cmds[0]); i++) {
		const struct cxfw_strict_cmd *c = &cxfw_strict_cmds[i];
		uint32_t used[2] = { 0, 0 };
		unsigned int dw;

		if (c->opcode != cmd->opcode)
			continue;
		for (k = 0; k < sizeof(c->f) / sizeof(c->f[0]); k++)
			if (c->f[k].mask && c->f[k].dw >= 2 && c->f[k].dw <= 3)
				used[c->f[k].dw - 2] |= c->f[k].mask;
		for (dw = 2; dw <= 3; dw++)
			if (cxib_be32_to_host(cmd->in[dw]) & ~used[dw - 2])
				return cxfw_strict_refuse(dev, cmd, CXIB_CMD_STAT_BAD_PARAM,
							  CXFW_SYND(CXFW_SYND_RESERVED, dw),
							  "reserved", "reserved input bits set");
		break;
	}
	return CXIB_CMD_STAT_OK;
}
