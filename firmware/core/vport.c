// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw port commands: the ACCESS_REG port registers and the HCA-vport queries (PRM
 * sections 5.8, 5.9), the driver's view of the ports whose state port.c keeps.  A new
 * CapabilityMask written through PCAP is announced to the SM with trap 144 (sma.c).
 */
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"

#define CXFW_MTU_BYTES		4096
#define CXFW_PORT_CAP_WRITABLE	0xffffffffu	/* PCAP may set any CapabilityMask bit */

/* The port a command names (0 = port 1 on a single-port HCA); 0 if there is none. */
static unsigned int cxfw_cmd_port(const struct cxfw_dev *dev, uint32_t port_num)
{
	if (!port_num && dev->cfg.num_ports == 1)
		return 1;
	return port_num >= 1 && port_num <= dev->cfg.num_ports ? port_num : 0;
}

/* ---- ACCESS_REG ------------------------------------------------------------------------ */

struct cxfw_reg_desc {
	uint16_t id;
	uint16_t len;
	bool readable, writable, has_port;
};

static const struct cxfw_reg_desc cxfw_regs[] = {
	{ CXIB_REG_HOST_ENDIANNESS, CXIB_REG_HOST_ENDIANNESS_LEN, true, true, false },
	{ CXIB_REG_PCAP, CXIB_REG_PCAP_LEN, true, true, true },
	{ CXIB_REG_PMTU, CXIB_REG_PMTU_LEN, true, false, true },
	{ CXIB_REG_PTYS, CXIB_REG_PTYS_LEN, true, false, true },
	{ CXIB_REG_PVLC, CXIB_REG_PVLC_LEN, true, false, true },
	{ CXIB_REG_PAOS, CXIB_REG_PAOS_LEN, true, false, true },
	{ CXIB_REG_NODE_DESC, CXIB_REG_NODE_DESC_LEN, true, true, false },
};

static const struct cxfw_reg_desc *cxfw_reg_lookup(uint32_t id)
{
	size_t i;

	for (i = 0; i < sizeof(cxfw_regs) / sizeof(cxfw_regs[0]); i++)
		if (cxfw_regs[i].id == id)
			return &cxfw_regs[i];
	return NULL;
}

/* Fill @out (the register's current contents) after applying a write of @in; lock held. */
static uint8_t cxfw_reg_access(struct cxfw_dev *dev, struct cxfw_cmd *cmd, uint32_t id,
			       bool write, unsigned int port, const __be32 *in, __be32 *out)
{
	struct cxfw_port *p = port ? &dev->ports[port - 1] : NULL;
	bool up = port && dev->stats.link_up[port - 1];
	uint32_t v;

	switch (id) {
	case CXIB_REG_HOST_ENDIANNESS:
		if (write) {
			v = CXIB_GET(in, CXIB_REG_HOST_ENDIANNESS_HE);
			if (v != CXIB_HOST_ENDIANNESS_LITTLE && v != CXIB_HOST_ENDIANNESS_BIG)
				return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
						 CXFW_SYND(CXFW_SYND_BAD_PARAM, v));
			dev->host_endianness = (uint8_t)v;
		}
		CXIB_SET(out, CXIB_REG_HOST_ENDIANNESS_HE, dev->host_endianness);
		break;
	case CXIB_REG_PCAP:
		if (write) {
			v = CXIB_GET(in, CXIB_REG_PCAP_PORT_CAPABILITY_MASK) &
			    CXFW_PORT_CAP_WRITABLE;
			if (v != p->cap_mask) {
				p->cap_mask = v;
				cxfw_sma_cap_mask_changed_locked(dev, port);
			}
		}
		CXIB_SET(out, CXIB_REG_PCAP_LOCAL_PORT, port);
		CXIB_SET(out, CXIB_REG_PCAP_PORT_CAPABILITY_MASK, p->cap_mask);
		break;
	case CXIB_REG_PMTU:
		CXIB_SET(out, CXIB_REG_PMTU_LOCAL_PORT, port);
		CXIB_SET(out, CXIB_REG_PMTU_MAX_MTU, CXFW_MTU_BYTES);
		CXIB_SET(out, CXIB_REG_PMTU_ADMIN_MTU, CXFW_MTU_BYTES);
		CXIB_SET(out, CXIB_REG_PMTU_OPER_MTU, CXFW_MTU_BYTES);
		break;
	case CXIB_REG_PTYS:
		if (!(CXIB_GET(in, CXIB_REG_PTYS_PROTO_MASK) & CXIB_PTYS_PROTO_IB))
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM,
						   CXIB_GET(in, CXIB_REG_PTYS_PROTO_MASK)));
		CXIB_SET(out, CXIB_REG_PTYS_LOCAL_PORT, port);
		CXIB_SET(out, CXIB_REG_PTYS_PROTO_MASK, CXIB_PTYS_PROTO_IB);
		CXIB_SET(out, CXIB_REG_PTYS_IB_LINK_WIDTH_CAPABILITY,
			 CXIB_PTYS_WIDTH_1X | CXIB_PTYS_WIDTH_4X);
		CXIB_SET(out, CXIB_REG_PTYS_IB_PROTO_CAPABILITY,
			 CXIB_PTYS_IB_SDR | CXIB_PTYS_IB_DDR | CXIB_PTYS_IB_QDR);
		CXIB_SET(out, CXIB_REG_PTYS_IB_LINK_WIDTH_ADMIN,
			 CXIB_PTYS_WIDTH_1X | CXIB_PTYS_WIDTH_4X);
		CXIB_SET(out, CXIB_REG_PTYS_IB_PROTO_ADMIN,
			 CXIB_PTYS_IB_SDR | CXIB_PTYS_IB_DDR | CXIB_PTYS_IB_QDR);
		CXIB_SET(out, CXIB_REG_PTYS_IB_LINK_WIDTH_OPER, up ? CXIB_PTYS_WIDTH_4X : 0);
		CXIB_SET(out, CXIB_REG_PTYS_IB_PROTO_OPER, up ? CXIB_PTYS_IB_QDR : 0);
		break;
	case CXIB_REG_PVLC:
		CXIB_SET(out, CXIB_REG_PVLC_LOCAL_PORT, port);
		CXIB_SET(out, CXIB_REG_PVLC_VL_HW_CAP, CXIB_IB_VL_CAP_VL0_7);
		CXIB_SET(out, CXIB_REG_PVLC_VL_ADMIN, CXIB_IB_VL_CAP_VL0_7);
		CXIB_SET(out, CXIB_REG_PVLC_VL_OPERATIONAL, p->op_vls);
		break;
	case CXIB_REG_PAOS:
		CXIB_SET(out, CXIB_REG_PAOS_LOCAL_PORT, port);
		CXIB_SET(out, CXIB_REG_PAOS_ADMIN_STATUS, CXIB_PORT_STATUS_UP);
		CXIB_SET(out, CXIB_REG_PAOS_OPER_STATUS,
			 up ? CXIB_PORT_STATUS_UP : CXIB_PORT_STATUS_DOWN);
		break;
	case CXIB_REG_NODE_DESC:
	default:
		if (write)
			memcpy(dev->cur_node_desc, in, CXIB_REG_NODE_DESC_LEN);
		memcpy(out, dev->cur_node_desc, CXIB_REG_NODE_DESC_LEN);
		break;
	}
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_access_reg(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_access_reg_in *hdr = (const void *)cmd->in;
	uint32_t id = CXIB_GET(hdr, CXIB_ACCESS_REG_IN_REGISTER_ID);
	bool write = cmd->op_mod == CXIB_ACCESS_REG_OP_MOD_WRITE;
	const __be32 *in = (const __be32 *)cxfw_in_bytes(cmd, CXIB_ACCESS_REG_IN_DATA_OFFSET);
	__be32 *out = (__be32 *)cxfw_out_bytes(cmd, CXIB_ACCESS_REG_OUT_DATA_OFFSET);
	const struct cxfw_reg_desc *reg = cxfw_reg_lookup(id);
	unsigned int port = 0;
	uint8_t st;

	if (!reg || (write && !reg->writable) || (!write && !reg->readable))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OP, CXFW_SYND(CXFW_SYND_BAD_PARAM, id));
	if (cmd->inlen < CXIB_ACCESS_REG_IN_LEN(reg->len))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_INLEN, cmd->inlen));
	if (cmd->outlen < CXIB_ACCESS_REG_OUT_LEN(reg->len))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OUTPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_OUTLEN, cmd->outlen));
	if (reg->has_port) {
		/* local_port is [23:16] of the first dword in every port register */
		uint32_t lp = CXIB_GET(in, CXIB_REG_PCAP_LOCAL_PORT);

		port = lp >= 1 && lp <= dev->cfg.num_ports ? lp : 0;
		if (!port)
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, lp));
	}
	pthread_mutex_lock(&dev->lock);
	st = cxfw_reg_access(dev, cmd, id, write, port, in, out);
	pthread_mutex_unlock(&dev->lock);
	return st;
}

/* ---- HCA vport queries ---------------------------------------------------------------- */

/* other_vport / vport_number: only the function's own vport 0 exists. */
static uint8_t cxfw_vport_check(struct cxfw_cmd *cmd, uint32_t other, uint32_t vport)
{
	if (other || vport)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, vport));
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_hca_vport_context(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_hca_vport_ctx_in *in = (const void *)cmd->in;
	__be32 *ctx = (__be32 *)cxfw_out_bytes(cmd,
					       CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_CONTEXT_OFFSET);
	uint32_t pn = CXIB_GET(in, CXIB_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM);
	unsigned int port = cxfw_cmd_port(dev, pn);
	struct cxfw_port *p;
	uint8_t st;

	st = cxfw_vport_check(cmd, CXIB_GET(in, CXIB_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT),
			      CXIB_GET(in, CXIB_QUERY_HCA_VPORT_CONTEXT_IN_VPORT_NUMBER));
	if (st)
		return st;
	if (!port)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, pn));

	pthread_mutex_lock(&dev->lock);
	p = &dev->ports[port - 1];
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_HAS_SMI, 1);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_PORT_PHYSICAL_STATE, p->phys_state);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_PORT_STATE, p->state);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_VPORT_STATE, p->state);
	CXIB_SET64(ctx, CXIB_HCA_VPORT_CTX_SYSTEM_IMAGE_GUID, dev->node_guid);
	CXIB_SET64(ctx, CXIB_HCA_VPORT_CTX_PORT_GUID, cxfw_port_guid(dev, port));
	CXIB_SET64(ctx, CXIB_HCA_VPORT_CTX_NODE_GUID, dev->node_guid);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_CAP_MASK1, p->cap_mask);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_CAP_MASK1_FIELD_SELECT, CXFW_PORT_CAP_WRITABLE);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_LID, p->lid);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_LMC, p->lmc);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_SUBNET_TIMEOUT, p->subnet_timeout);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_SM_LID, p->sm_lid);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_SM_SL, p->sm_sl);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_QKEY_VIOLATION_COUNTER, p->qkey_violations);
	CXIB_SET(ctx, CXIB_HCA_VPORT_CTX_PKEY_VIOLATION_COUNTER, p->pkey_violations);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

/* GID @index of @port: prefix + GUIDInfo entry; an unassigned (zero) GUID gives a zero GID. */
static void cxfw_port_gid(const struct cxfw_dev *dev, unsigned int port, uint32_t index,
			  uint8_t gid[16])
{
	const struct cxfw_port *p = &dev->ports[port - 1];

	memset(gid, 0, 16);
	if (!p->guids[index])
		return;
	CXIB_SET64(gid, CXIB_GID_PREFIX, p->gid_prefix);
	CXIB_SET64(gid, CXIB_GID_GUID, p->guids[index]);
}

/*
 * The entries a vport GID/P_Key query asks for: all of them (CXIB_HCA_VPORT_INDEX_ALL) or
 * the one at @index; a bad index fails @cmd with BAD_INDEX.
 */
static uint8_t cxfw_vport_table_range(struct cxfw_cmd *cmd, uint32_t index, uint32_t len,
				      uint32_t *first, uint32_t *n)
{
	if (index == CXIB_HCA_VPORT_INDEX_ALL) {
		*first = 0;
		*n = len;
	} else if (index < len) {
		*first = index;
		*n = 1;
	} else {
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, index));
	}
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_hca_vport_gid(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_hca_vport_gid_in *in = (const void *)cmd->in;
	struct cxib_query_hca_vport_gid_out *out = (void *)cmd->out;
	uint32_t pn = CXIB_GET(in, CXIB_QUERY_HCA_VPORT_GID_IN_PORT_NUM);
	uint32_t index = CXIB_GET(in, CXIB_QUERY_HCA_VPORT_GID_IN_GID_INDEX);
	unsigned int port = cxfw_cmd_port(dev, pn);
	uint8_t *gids = cxfw_out_bytes(cmd, CXIB_QUERY_HCA_VPORT_GID_OUT_GID_OFFSET);
	uint32_t first, n, i;
	uint8_t st;

	st = cxfw_vport_check(cmd, CXIB_GET(in, CXIB_QUERY_HCA_VPORT_GID_IN_OTHER_VPORT),
			      CXIB_GET(in, CXIB_QUERY_HCA_VPORT_GID_IN_VPORT_NUMBER));
	if (st)
		return st;
	if (!port)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, pn));
	st = cxfw_vport_table_range(cmd, index, CXFW_GID_TABLE_LEN, &first, &n);
	if (st)
		return st;
	if (cmd->outlen < CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(n))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OUTPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_OUTLEN, cmd->outlen));
	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < n; i++)
		cxfw_port_gid(dev, port, first + i, gids + 16 * i);
	pthread_mutex_unlock(&dev->lock);
	CXIB_SET(out, CXIB_QUERY_HCA_VPORT_GID_OUT_GIDS_NUM, n);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_hca_vport_pkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_hca_vport_pkey_in *in = (const void *)cmd->in;
	uint32_t pn = CXIB_GET(in, CXIB_QUERY_HCA_VPORT_PKEY_IN_PORT_NUM);
	uint32_t index = CXIB_GET(in, CXIB_QUERY_HCA_VPORT_PKEY_IN_PKEY_INDEX);
	unsigned int port = cxfw_cmd_port(dev, pn);
	uint8_t *ent = cxfw_out_bytes(cmd, CXIB_QUERY_HCA_VPORT_PKEY_OUT_PKEY_OFFSET);
	uint32_t first, n, i;
	uint8_t st;

	st = cxfw_vport_check(cmd, CXIB_GET(in, CXIB_QUERY_HCA_VPORT_PKEY_IN_OTHER_VPORT),
			      CXIB_GET(in, CXIB_QUERY_HCA_VPORT_PKEY_IN_VPORT_NUMBER));
	if (st)
		return st;
	if (!port)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, pn));
	st = cxfw_vport_table_range(cmd, index, CXFW_PKEY_TABLE_LEN, &first, &n);
	if (st)
		return st;
	if (cmd->outlen < CXIB_QUERY_HCA_VPORT_PKEY_OUT_LEN(n))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OUTPUT_LEN,
				 CXFW_SYND(CXFW_SYND_BAD_OUTLEN, cmd->outlen));
	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < n; i++)
		CXIB_SET(ent + 4 * i, CXIB_HCA_VPORT_PKEY_ENTRY_PKEY,
			 dev->ports[port - 1].pkeys[first + i]);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_vport_state(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_vport_state_in *in = (const void *)cmd->in;
	struct cxib_query_vport_state_out *out = (void *)cmd->out;
	bool active;
	uint8_t st;

	st = cxfw_vport_check(cmd, CXIB_GET(in, CXIB_QUERY_VPORT_STATE_IN_OTHER_VPORT),
			      CXIB_GET(in, CXIB_QUERY_VPORT_STATE_IN_VPORT_NUMBER));
	if (st)
		return st;
	if (cmd->op_mod == CXIB_VPORT_STATE_OP_MOD_ESW_VPORT)	/* not an e-switch manager */
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, cmd->op_mod));
	pthread_mutex_lock(&dev->lock);
	if (cmd->op_mod == CXIB_VPORT_STATE_OP_MOD_UPLINK)
		active = dev->stats.link_up[0];
	else
		active = dev->ports[0].state == CXIB_PORT_STATE_ACTIVE;
	pthread_mutex_unlock(&dev->lock);
	CXIB_SET(out, CXIB_QUERY_VPORT_STATE_OUT_ADMIN_STATE, CXIB_VPORT_STATE_UP);
	CXIB_SET(out, CXIB_QUERY_VPORT_STATE_OUT_STATE,
		 active ? CXIB_VPORT_STATE_UP : CXIB_VPORT_STATE_DOWN);
	return CXIB_CMD_STAT_OK;
}
