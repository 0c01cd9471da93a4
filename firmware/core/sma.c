// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw subnet management agent behind MAD_IFC (PRM section 5.8; IBTA vol 1 ch. 14).
 *
 * MAD_IFC hands the device a 256-byte MAD for port dw2[7:0] and gets the response MAD back.
 * The driver passes every SMP it receives on QP0 (and the SMPs its own SM sends to hop 0),
 * and every PMA MAD it receives on QP1 (class 0x04: the PMA, pma.c); other classes get
 * 0x000c.  Command status is 0 whenever a response
 * was produced; MAD-level problems go in the response's MAD status: bad base/class version
 * 0x0004, a method other than Get, Set and TrapRepress 0x0008, an attribute or method /
 * attribute combination the SMA does not implement 0x000c, a bad attribute modifier or
 * value 0x001c.  A MAD the agent must drop without an answer (an M_Key violation, 14.2.4.1;
 * a response method sent to the PMA) gets command status BAD_PKT.  Responses keep the request header (TID, attribute,
 * modifier) with method GetResp; directed-route responses get the D bit.
 *
 * Attributes (14.2.5):
 *   NodeDescription, NodeInfo            Get
 *   PortInfo                             Get, Set (everything the SM writes is kept and
 *                                        echoed; PortState Down/Armed/Active; events)
 *   P_KeyTable (4 blocks of 32)          Get, Set (PKEY event when the table changes)
 *   GUIDInfo (1 block of 8)              Get, Set of the alias GUIDs 1..7 (GUID event)
 *   SLtoVLMappingTable                   Get, Set
 *   VLArbitrationTable (low, high 0-31)  Get, Set
 *   Mellanox ExtendedPortInfo            Get (all zero: no FDR10)
 *   SMInfo, Notice, everything else      0x000c (SMInfo belongs to the host's SM)
 *
 * PortState (14.2.5.6): a Set of Down retrains the link (back to Init, configuration kept);
 * Armed is valid from Init, Active from Armed; anything else (Init, X -> X, skips) is 0x001c
 * with every other field still applied.  A field with an invalid value (LID 0 or not
 * unicast, NeighborMTU above MTUCap, OperationalVLs above VLCap, widths or speeds that are
 * not supported) fails the whole Set with 0x001c and changes nothing.
 *
 * M_Key (14.2.4): a port M_Key of 0 passes every check.  Otherwise an SMP with another key
 * is refused (dropped, counted in M_KeyViolations, trap 256, lease timer started) unless it
 * is a Get and ProtectBits < 2; at ProtectBits 1 such a Get reads the M_Key as 0.  When the
 * lease runs out the protection bits clear.  MAD_IFC op_mod IGNORE_MKEY skips the check.
 *
 * Traps (14.2.5.1 Notice): the SMA sends traps 144 (capability mask changed), 256 (bad
 * M_Key) and 257/258 (bad P_Key / Q_Key, raised by the wire and responder) as LID-routed
 * SubnTrap(Notice) MADs from QP0 to the master SM, while the port is Active and the SM LID
 * is set; each is resent every subnet timeout until the SM answers with a TrapRepress of
 * the same TID, at most CXFW_TRAP_SENDS times.
 */
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"

#define CXFW_SMP_VENDOR_ID	0x0002c9	/* Mellanox */
#define CXFW_RESP_TIME_VALUE	3		/* 4.096 us << 3 */
#define CXFW_MTU_CAP		CXIB_IB_MTU_4096
#define CXFW_VL_CAP		CXIB_IB_VL_CAP_VL0_7
#define CXFW_LMC_MAX		7
#define CXFW_TRAP_SENDS		4		/* a trap nobody represses is sent this often */
#define CXFW_SUBNET_TIMEOUT_NS	4096ull		/* PortInfo.SubnetTimeOut unit: 4.096 us */
#define CXFW_NS_PER_S		1000000000ull
#define CXFW_TRAP_QKEY		0		/* QP0 ignores the Q_Key */

/* What a MAD_IFC request turned into. */
struct cxfw_smp_req {
	unsigned int port;		/* the port it arrived on */
	uint32_t method, attr, mod;
	bool ignore_mkey;
	uint64_t now;
	bool drop;			/* answer nothing (M_Key violation) */
	bool hide_mkey;			/* Get at ProtectBits 1 with a wrong key */
	bool client_rereg;		/* echo ClientReregister in this SetResp */
};

/* ---- Get -------------------------------------------------------------------------------- */

static void cxfw_smp_node_info(struct cxfw_dev *dev, unsigned int port, __be32 *d)
{
	CXIB_SET(d, CXIB_SMP_NODE_INFO_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_CLASS_VERSION, CXIB_SMP_CLASS_VERSION);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_NODE_TYPE, CXIB_NODE_TYPE_CA);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_NUM_PORTS, dev->cfg.num_ports);
	CXIB_SET64(d, CXIB_SMP_NODE_INFO_SYSTEM_IMAGE_GUID, dev->node_guid);
	CXIB_SET64(d, CXIB_SMP_NODE_INFO_NODE_GUID, dev->node_guid);
	CXIB_SET64(d, CXIB_SMP_NODE_INFO_PORT_GUID, cxfw_port_guid(dev, port));
	CXIB_SET(d, CXIB_SMP_NODE_INFO_PARTITION_CAP, CXFW_PKEY_TABLE_LEN);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_DEVICE_ID, dev->cfg.pci_device_id);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_REVISION, 0);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_LOCAL_PORT_NUM, port);
	CXIB_SET(d, CXIB_SMP_NODE_INFO_VENDOR_ID, CXFW_SMP_VENDOR_ID);
}

/* Lock held.  @port is the port described, @local the port the SMP arrived on. */
static void cxfw_smp_port_info(struct cxfw_dev *dev, unsigned int port, bool hide_mkey,
			       __be32 *d)
{
	const struct cxfw_port *p = &dev->ports[port - 1];

	CXIB_SET64(d, CXIB_SMP_PORT_INFO_MKEY, hide_mkey ? 0 : p->mkey);
	CXIB_SET64(d, CXIB_SMP_PORT_INFO_GID_PREFIX, p->gid_prefix);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LID, p->lid);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MASTER_SM_LID, p->sm_lid);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_CAPABILITY_MASK, p->cap_mask);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MKEY_LEASE_PERIOD, p->mkey_lease_period);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LOCAL_PORT_NUM, port);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED, p->width_enabled);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_SUPPORTED, CXFW_PORT_WIDTHS);
	/* always one valid width and speed: sysfs "rate" fails on anything else */
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_ACTIVE, CXIB_IB_WIDTH_4X);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_SUPPORTED, CXFW_PORT_SPEEDS);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PORT_STATE, p->state);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, p->phys_state);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_DOWN_DEFAULT_STATE, p->link_down_default);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MKEY_PROTECT_BITS, p->mkey_protect);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LMC, p->lmc);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_ACTIVE, CXIB_IB_SPEED_QDR);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED, p->speed_enabled);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU, p->neighbor_mtu);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MASTER_SM_SL, p->sm_sl);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_CAP, CXFW_VL_CAP);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_HIGH_LIMIT, p->vl_high_limit);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_ARB_HIGH_CAP, CXFW_VL_ARB_CAP);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_ARB_LOW_CAP, CXFW_VL_ARB_CAP);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MTU_CAP, CXFW_MTU_CAP);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_VL_STALL_COUNT, p->vl_stall_count);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_HOQ_LIFE, p->hoq_life);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_OPERATIONAL_VLS, p->op_vls);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MKEY_VIOLATIONS, p->mkey_violations);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PKEY_VIOLATIONS, p->pkey_violations);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_QKEY_VIOLATIONS, p->qkey_violations);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_GUID_CAP, CXFW_GID_TABLE_LEN);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT, p->subnet_timeout);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_RESP_TIME_VALUE, CXFW_RESP_TIME_VALUE);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_LOCAL_PHY_ERRORS, p->phy_err_thresh);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_OVERRUN_ERRORS, p->overrun_thresh);
}

static void cxfw_smp_pkey_block(const struct cxfw_port *p, uint32_t block, __be32 *d)
{
	const unsigned int n = CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK;
	unsigned int i;

	for (i = 0; i < n; i += 2) {
		CXIB_SET(&d[i / 2], CXIB_SMP_PKEY_TABLE_PKEY0, p->pkeys[block * n + i]);
		CXIB_SET(&d[i / 2], CXIB_SMP_PKEY_TABLE_PKEY1, p->pkeys[block * n + i + 1]);
	}
}

static void cxfw_smp_guid_block(const struct cxfw_port *p, uint32_t block, __be32 *d)
{
	const unsigned int n = CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK;
	unsigned int i;

	for (i = 0; i < n && block * n + i < CXFW_GID_TABLE_LEN; i++)
		CXIB_SET64(&d[2 * i], CXIB_SMP_GUID_INFO_GUID0, p->guids[block * n + i]);
}

static void cxfw_smp_sl2vl(const struct cxfw_port *p, __be32 *d)
{
	unsigned int i;

	for (i = 0; i < CXIB_SMP_SL_TO_VL_ENTRIES; i++)
		CXIB_SET(d, CXIB_SMP_SL_TO_VL(i), p->sl2vl[i]);
}

/* The VLArbitrationTable a block number names (low or high); -1 for none we have. */
static int cxfw_smp_vl_arb_table(uint32_t mod, unsigned int port)
{
	uint32_t block = CXIB_FIELD_GET(CXIB_SMP_VL_ARB_ATTR_MOD_BLOCK, mod);
	uint32_t mport = CXIB_FIELD_GET(CXIB_SMP_VL_ARB_ATTR_MOD_PORT, mod);

	/* a CA's table is its port's: port 0 (this one) or the port itself */
	if (mport && mport != port)
		return -1;
	/* entries 32-63 do not exist: the caps are below 32 */
	if (block == CXIB_VL_ARB_BLOCK_LOW_0_31)
		return 0;
	if (block == CXIB_VL_ARB_BLOCK_HIGH_0_31)
		return 1;
	return -1;
}

static void cxfw_smp_vl_arb(const struct cxfw_port *p, int table, __be32 *d)
{
	unsigned int i;

	for (i = 0; i < CXFW_VL_ARB_CAP; i++) {
		CXIB_SET(d, CXIB_SMP_VL_ARB_VL(i), p->vl_arb[table][i][0]);
		CXIB_SET(d, CXIB_SMP_VL_ARB_WEIGHT(i), p->vl_arb[table][i][1]);
	}
}

/* The PortInfo a modifier names: 0 is the receiving port; a CA has no other to Set. */
static unsigned int cxfw_smp_port_info_port(const struct cxfw_dev *dev,
					    const struct cxfw_smp_req *r)
{
	uint32_t mod = r->mod & CXIB_SMP_PORT_INFO_ATTR_MOD_PORT_MASK;

	if (mod > dev->cfg.num_ports)
		return 0;
	return mod ? mod : r->port;
}

/* Fill the SMP data for a SubnGet; returns the MAD status.  Lock held. */
static uint16_t cxfw_smp_get(struct cxfw_dev *dev, const struct cxfw_smp_req *r, __be32 *d)
{
	const struct cxfw_port *p = &dev->ports[r->port - 1];
	unsigned int pn;
	int table;

	switch (r->attr) {
	case CXIB_SMP_ATTR_NODE_DESC:
		if (r->mod)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		memcpy(d, dev->cur_node_desc, CXIB_SMP_NODE_DESC_LEN);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_NODE_INFO:
		if (r->mod)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_node_info(dev, r->port, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_PORT_INFO:
		pn = cxfw_smp_port_info_port(dev, r);
		if (!pn)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_port_info(dev, pn, r->hide_mkey, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_GUID_INFO:
		if (r->mod >= CXFW_GID_TABLE_LEN / CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_guid_block(p, r->mod, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_PKEY_TABLE:
		if (r->mod >= CXFW_PKEY_TABLE_LEN / CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_pkey_block(p, r->mod, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_SL_TO_VL_TABLE:
		if (r->mod)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_sl2vl(p, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_VL_ARB_TABLE:
		table = cxfw_smp_vl_arb_table(r->mod, r->port);
		if (table < 0)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		cxfw_smp_vl_arb(p, table, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_MLNX_EXT_PORT_INFO:
		pn = cxfw_smp_port_info_port(dev, r);
		if (!pn)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		return CXIB_MAD_STATUS_SUCCESS;		/* all zero: no FDR10 */
	default:
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
	}
}

/* ---- Set -------------------------------------------------------------------------------- */

/* A LinkWidth/SpeedEnabled value: 0 keeps @cur, @all means "supported", else a subset. */
static bool cxfw_smp_enabled(uint32_t v, uint32_t all, uint32_t supported, uint8_t *cur)
{
	if (!v)
		return true;
	if (v == all)
		v = supported;
	if (v & ~supported)
		return false;
	*cur = (uint8_t)v;
	return true;
}

/* Check every value of a SubnSet(PortInfo) before anything is applied. */
static bool cxfw_smp_port_info_valid(const __be32 *d)
{
	uint32_t lid = CXIB_GET(d, CXIB_SMP_PORT_INFO_LID);
	uint32_t sm_lid = CXIB_GET(d, CXIB_SMP_PORT_INFO_MASTER_SM_LID);
	uint32_t mtu = CXIB_GET(d, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU);
	uint32_t vls = CXIB_GET(d, CXIB_SMP_PORT_INFO_OPERATIONAL_VLS);
	uint32_t ldd = CXIB_GET(d, CXIB_SMP_PORT_INFO_LINK_DOWN_DEFAULT_STATE);
	uint32_t phys = CXIB_GET(d, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE);
	uint32_t w = CXIB_GET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED);
	uint32_t s = CXIB_GET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED);
	uint8_t scratch;

	if (lid < CXIB_LID_UNICAST_MIN || lid > CXIB_LID_UNICAST_MAX)
		return false;
	if (sm_lid > CXIB_LID_UNICAST_MAX)
		return false;
	if (mtu < CXIB_IB_MTU_256 || mtu > CXFW_MTU_CAP || vls > CXFW_VL_CAP)
		return false;
	if (ldd > CXIB_PORT_PHYS_STATE_POLLING)
		return false;
	/* a CA port may only be told to retrain (Polling); Sleep/Disable are switch things */
	if (phys && phys != CXIB_PORT_PHYS_STATE_POLLING)
		return false;
	return cxfw_smp_enabled(w, CXIB_LINK_WIDTH_SET_SUPPORTED, CXFW_PORT_WIDTHS, &scratch) &&
	       cxfw_smp_enabled(s, CXIB_LINK_SPEED_SET_SUPPORTED, CXFW_PORT_SPEEDS, &scratch);
}

/* A violation counter the SM writes: 0 clears it, anything else leaves it counting. */
static void cxfw_smp_clear_counter(uint16_t *c, uint32_t v)
{
	if (!v)
		*c = 0;
}

/*
 * The PortState a Set asks for, applied after every other field; returns false for a
 * transition the port does not make (14.2.5.6: Down from anywhere, Armed from Init, Active
 * from Armed; Init is never set).  Lock held.
 */
static bool cxfw_smp_port_state(struct cxfw_dev *dev, unsigned int port, uint32_t state,
				uint32_t phys, uint64_t now)
{
	struct cxfw_port *p = &dev->ports[port - 1];

	if (state == CXIB_PORT_STATE_DOWN || phys == CXIB_PORT_PHYS_STATE_POLLING) {
		if (state != CXIB_PORT_STATE_NOP && state != CXIB_PORT_STATE_DOWN)
			return false;
		cxfw_port_retrain_locked(dev, port, now);
		return true;
	}
	switch (state) {
	case CXIB_PORT_STATE_NOP:
		return true;
	case CXIB_PORT_STATE_ARMED:
		if (p->state != CXIB_PORT_STATE_INIT)
			return false;
		cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_ARMED);
		return true;
	case CXIB_PORT_STATE_ACTIVE:
		if (p->state != CXIB_PORT_STATE_ARMED)
			return false;
		cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_ACTIVE);
		return true;
	default:
		return false;
	}
}

/* SubnSet(PortInfo); lock held.  Returns the MAD status; @d gets the resulting PortInfo. */
static uint16_t cxfw_smp_set_port_info(struct cxfw_dev *dev, struct cxfw_smp_req *r,
				       __be32 *d)
{
	struct cxfw_port *p = &dev->ports[r->port - 1];
	uint32_t mod = r->mod & CXIB_SMP_PORT_INFO_ATTR_MOD_PORT_MASK;
	uint16_t old_lid = p->lid;
	uint8_t old_lmc = p->lmc;
	uint64_t old_prefix = p->gid_prefix;
	uint16_t status = CXIB_MAD_STATUS_SUCCESS;
	uint32_t v;

	/* a CA configures only the port the SMP came in on */
	if ((mod && mod != r->port) || !cxfw_smp_port_info_valid(d)) {
		memset(d, 0, CXIB_SMP_DATA_SIZE);
		cxfw_smp_port_info(dev, r->port, false, d);
		return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
	}

	p->mkey = CXIB_GET64(d, CXIB_SMP_PORT_INFO_MKEY);
	p->gid_prefix = CXIB_GET64(d, CXIB_SMP_PORT_INFO_GID_PREFIX);
	p->lid = (uint16_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_LID);
	p->sm_lid = (uint16_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_MASTER_SM_LID);
	p->mkey_lease_period = (uint16_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_MKEY_LEASE_PERIOD);
	p->mkey_protect = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_MKEY_PROTECT_BITS);
	p->lmc = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_LMC);
	p->sm_sl = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_MASTER_SM_SL);
	p->subnet_timeout = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT);
	p->neighbor_mtu = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU);
	v = CXIB_GET(d, CXIB_SMP_PORT_INFO_OPERATIONAL_VLS);
	if (v)
		p->op_vls = (uint8_t)v;
	v = CXIB_GET(d, CXIB_SMP_PORT_INFO_LINK_DOWN_DEFAULT_STATE);
	if (v)
		p->link_down_default = (uint8_t)v;
	cxfw_smp_enabled(CXIB_GET(d, CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED),
			 CXIB_LINK_WIDTH_SET_SUPPORTED, CXFW_PORT_WIDTHS, &p->width_enabled);
	cxfw_smp_enabled(CXIB_GET(d, CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED),
			 CXIB_LINK_SPEED_SET_SUPPORTED, CXFW_PORT_SPEEDS, &p->speed_enabled);
	p->phy_err_thresh = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_LOCAL_PHY_ERRORS);
	p->overrun_thresh = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_OVERRUN_ERRORS);
	p->vl_high_limit = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_VL_HIGH_LIMIT);
	p->hoq_life = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_HOQ_LIFE);
	p->vl_stall_count = (uint8_t)CXIB_GET(d, CXIB_SMP_PORT_INFO_VL_STALL_COUNT);
	cxfw_smp_clear_counter(&p->mkey_violations, CXIB_GET(d, CXIB_SMP_PORT_INFO_MKEY_VIOLATIONS));
	cxfw_smp_clear_counter(&p->pkey_violations, CXIB_GET(d, CXIB_SMP_PORT_INFO_PKEY_VIOLATIONS));
	cxfw_smp_clear_counter(&p->qkey_violations, CXIB_GET(d, CXIB_SMP_PORT_INFO_QKEY_VIOLATIONS));
	if (!p->mkey_protect || !p->mkey)
		p->mkey_lease_end_ns = 0;

	if (p->lid != old_lid || p->lmc != old_lmc)
		cxfw_port_event_locked(dev, r->port, CXIB_PORT_CHANGE_SUBTYPE_LID);
	if (p->gid_prefix != old_prefix)
		cxfw_port_event_locked(dev, r->port, CXIB_PORT_CHANGE_SUBTYPE_GUID);
	/* ClientReregister is an action, echoed once in this SetResp and read as 0 after */
	if (CXIB_GET(d, CXIB_SMP_PORT_INFO_CLIENT_REREGISTER) &&
	    (p->cap_mask & CXIB_PORT_CAP_CLIENT_REG)) {
		r->client_rereg = true;
		cxfw_port_event_locked(dev, r->port, CXIB_PORT_CHANGE_SUBTYPE_CLIENT_REREG);
	}
	if (!cxfw_smp_port_state(dev, r->port, CXIB_GET(d, CXIB_SMP_PORT_INFO_PORT_STATE),
				 CXIB_GET(d, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE), r->now))
		status = CXIB_MAD_STATUS_INVALID_ATTR_VALUE;

	memset(d, 0, CXIB_SMP_DATA_SIZE);
	cxfw_smp_port_info(dev, r->port, false, d);
	if (r->client_rereg)
		CXIB_SET(d, CXIB_SMP_PORT_INFO_CLIENT_REREGISTER, 1);
	return status;
}

/* SubnSet(P_KeyTable) of one block; lock held. */
static uint16_t cxfw_smp_set_pkeys(struct cxfw_dev *dev, const struct cxfw_smp_req *r,
				   __be32 *d)
{
	const unsigned int n = CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK;
	struct cxfw_port *p = &dev->ports[r->port - 1];
	uint16_t *blk;
	bool changed = false;
	unsigned int i;
	uint16_t k;

	if (r->mod >= CXFW_PKEY_TABLE_LEN / n)
		return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
	blk = &p->pkeys[r->mod * n];
	for (i = 0; i < n; i++) {
		k = (uint16_t)(i % 2 ? CXIB_GET(&d[i / 2], CXIB_SMP_PKEY_TABLE_PKEY1) :
				       CXIB_GET(&d[i / 2], CXIB_SMP_PKEY_TABLE_PKEY0));
		changed |= blk[i] != k;
		blk[i] = k;
	}
	if (changed)
		cxfw_port_event_locked(dev, r->port, CXIB_PORT_CHANGE_SUBTYPE_PKEY);
	cxfw_smp_pkey_block(p, r->mod, d);
	return CXIB_MAD_STATUS_SUCCESS;
}

/* SubnSet(GUIDInfo): the alias GUIDs; entry 0, the port GUID, is read-only.  Lock held. */
static uint16_t cxfw_smp_set_guids(struct cxfw_dev *dev, const struct cxfw_smp_req *r,
				   __be32 *d)
{
	const unsigned int n = CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK;
	struct cxfw_port *p = &dev->ports[r->port - 1];
	bool changed = false;
	unsigned int i, idx;
	uint64_t g;

	if (r->mod >= CXFW_GID_TABLE_LEN / n)
		return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
	for (i = 0; i < n; i++) {
		idx = r->mod * n + i;
		if (!idx)
			continue;
		g = CXIB_GET64(&d[2 * i], CXIB_SMP_GUID_INFO_GUID0);
		changed |= p->guids[idx] != g;
		p->guids[idx] = g;
	}
	if (changed)
		cxfw_port_event_locked(dev, r->port, CXIB_PORT_CHANGE_SUBTYPE_GUID);
	memset(d, 0, CXIB_SMP_DATA_SIZE);
	cxfw_smp_guid_block(p, r->mod, d);
	return CXIB_MAD_STATUS_SUCCESS;
}

/* Apply a SubnSet and leave the resulting attribute in @d; returns the MAD status. */
static uint16_t cxfw_smp_set(struct cxfw_dev *dev, struct cxfw_smp_req *r, __be32 *d)
{
	struct cxfw_port *p = &dev->ports[r->port - 1];
	unsigned int i;
	int table;

	switch (r->attr) {
	case CXIB_SMP_ATTR_PORT_INFO:
		return cxfw_smp_set_port_info(dev, r, d);
	case CXIB_SMP_ATTR_PKEY_TABLE:
		return cxfw_smp_set_pkeys(dev, r, d);
	case CXIB_SMP_ATTR_GUID_INFO:
		return cxfw_smp_set_guids(dev, r, d);
	case CXIB_SMP_ATTR_SL_TO_VL_TABLE:
		if (r->mod)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		for (i = 0; i < CXIB_SMP_SL_TO_VL_ENTRIES; i++)
			p->sl2vl[i] = (uint8_t)CXIB_GET(d, CXIB_SMP_SL_TO_VL(i));
		cxfw_smp_sl2vl(p, d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_SMP_ATTR_VL_ARB_TABLE:
		table = cxfw_smp_vl_arb_table(r->mod, r->port);
		if (table < 0)
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		for (i = 0; i < CXFW_VL_ARB_CAP; i++) {
			p->vl_arb[table][i][0] = (uint8_t)CXIB_GET(d, CXIB_SMP_VL_ARB_VL(i));
			p->vl_arb[table][i][1] = (uint8_t)CXIB_GET(d, CXIB_SMP_VL_ARB_WEIGHT(i));
		}
		/* entries past the cap do not exist and read back as zero */
		memset(d, 0, CXIB_SMP_DATA_SIZE);
		cxfw_smp_vl_arb(p, table, d);
		return CXIB_MAD_STATUS_SUCCESS;
	default:
		/* NodeInfo, NodeDescription, ExtendedPortInfo: read-only; the rest: unknown */
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
	}
}

/* ---- Traps ------------------------------------------------------------------------------ */

void cxfw_sma_trap_locked(struct cxfw_dev *dev, unsigned int port, uint16_t trap_num,
			  const uint8_t notice[CXIB_SMP_DATA_SIZE])
{
	struct cxfw_port *p = &dev->ports[port - 1];
	struct cxfw_trap *t;
	unsigned int i;

	/* traps are for an SM that configured an Active port (14.2.5.1) */
	if (p->state != CXIB_PORT_STATE_ACTIVE || !p->sm_lid ||
	    !(p->cap_mask & CXIB_PORT_CAP_TRAP))
		return;
	for (i = 0; i < p->ntraps; i++)
		if (CXIB_GET(p->traps[i].notice, CXIB_SMP_NOTICE_TRAP_NUMBER) == trap_num)
			return;		/* one of its kind is outstanding: that one says it */
	if (p->ntraps == CXFW_PORT_TRAPS) {
		cxfw_stat_add(dev, &dev->stats.traps_dropped, 1);
		return;
	}
	t = &p->traps[p->ntraps++];
	memcpy(t->notice, notice, CXIB_SMP_DATA_SIZE);
	CXIB_SET(t->notice, CXIB_SMP_NOTICE_IS_GENERIC, 1);
	CXIB_SET(t->notice, CXIB_SMP_NOTICE_PRODUCER_TYPE, CXIB_NOTICE_PRODUCER_CA);
	CXIB_SET(t->notice, CXIB_SMP_NOTICE_TRAP_NUMBER, trap_num);
	CXIB_SET(t->notice, CXIB_SMP_NOTICE_ISSUER_LID, p->lid);
	CXIB_SET(t->notice, CXIB_SMP_NOTICE_TOGGLE, p->notice_toggle);
	p->notice_toggle = !p->notice_toggle;
	t->tid = ++dev->trap_tid;
	t->sends = 0;
	t->next_ns = 0;		/* now */
	dev->plat.kick(dev->plat.opaque);
}

void cxfw_sma_trap_key_locked(struct cxfw_dev *dev, unsigned int port, uint16_t trap_num,
			      const struct cxfw_pkt *pkt, uint32_t key)
{
	uint8_t n[CXIB_SMP_DATA_SIZE] = { 0 };

	CXIB_SET(n, CXIB_SMP_NOTICE_TYPE, CXIB_NOTICE_TYPE_SECURITY);
	CXIB_SET(n, CXIB_SMP_NOTICE_257_LID1, pkt->slid);
	CXIB_SET(n, CXIB_SMP_NOTICE_257_LID2, pkt->dlid);
	CXIB_SET(n, CXIB_SMP_NOTICE_257_KEY, key);
	CXIB_SET(n, CXIB_SMP_NOTICE_257_SL, pkt->sl);
	CXIB_SET(n, CXIB_SMP_NOTICE_257_QP1, pkt->deth_sqpn);
	CXIB_SET(n, CXIB_SMP_NOTICE_257_QP2, pkt->dqpn);
	if (pkt->grh) {
		memcpy(n + CXIB_SMP_NOTICE_257_GID1_OFFSET, pkt->sgid, sizeof(pkt->sgid));
		memcpy(n + CXIB_SMP_NOTICE_257_GID2_OFFSET, pkt->dgid, sizeof(pkt->dgid));
	}
	cxfw_sma_trap_locked(dev, port, trap_num, n);
}

void cxfw_sma_cap_mask_changed_locked(struct cxfw_dev *dev, unsigned int port)
{
	const struct cxfw_port *p = &dev->ports[port - 1];
	uint8_t n[CXIB_SMP_DATA_SIZE] = { 0 };

	CXIB_SET(n, CXIB_SMP_NOTICE_TYPE, CXIB_NOTICE_TYPE_INFO);
	CXIB_SET(n, CXIB_SMP_NOTICE_144_LID, p->lid);
	CXIB_SET(n, CXIB_SMP_NOTICE_144_NEW_CAP_MASK, p->cap_mask);
	cxfw_sma_trap_locked(dev, port, CXIB_TRAP_LOCAL_CHANGES, n);
}

static void cxfw_sma_trap_mkey_locked(struct cxfw_dev *dev, const struct cxfw_smp_req *r,
				      const uint8_t *req)
{
	const struct cxfw_port *p = &dev->ports[r->port - 1];
	uint8_t n[CXIB_SMP_DATA_SIZE] = { 0 };

	CXIB_SET(n, CXIB_SMP_NOTICE_TYPE, CXIB_NOTICE_TYPE_SECURITY);
	CXIB_SET(n, CXIB_SMP_NOTICE_256_LID, p->lid);
	CXIB_SET(n, CXIB_SMP_NOTICE_256_DR_SLID, CXIB_GET(req, CXIB_SMP_DR_SLID));
	CXIB_SET(n, CXIB_SMP_NOTICE_256_METHOD, r->method);
	CXIB_SET(n, CXIB_SMP_NOTICE_256_ATTR_ID, r->attr);
	CXIB_SET(n, CXIB_SMP_NOTICE_256_ATTR_MOD, r->mod);
	CXIB_SET64(n, CXIB_SMP_NOTICE_256_MKEY, CXIB_GET64(req, CXIB_SMP_MKEY));
	cxfw_sma_trap_locked(dev, r->port, CXIB_TRAP_BAD_MKEY, n);
}

/* TrapRepress: the SM got the trap with this TID; stop resending it.  Lock held. */
static void cxfw_sma_trap_repress(struct cxfw_dev *dev, unsigned int port, uint64_t tid)
{
	struct cxfw_port *p = &dev->ports[port - 1];
	unsigned int i;

	for (i = 0; i < p->ntraps; i++) {
		if (p->traps[i].tid != tid)
			continue;
		p->traps[i] = p->traps[--p->ntraps];
		dev->stats.traps_repressed++;
		return;
	}
}

/* Timers: links that retrain after a SubnSet of Down. */
void cxfw_sma_process(struct cxfw_dev *dev, uint64_t now)
{
	unsigned int port;
	bool kick = false;

	pthread_mutex_lock(&dev->lock);
	for (port = 1; port <= dev->cfg.num_ports; port++) {
		struct cxfw_port *p = &dev->ports[port - 1];

		if (p->retrain_ns && now >= p->retrain_ns) {
			p->retrain_ns = 0;
			if (dev->stats.link_up[port - 1])
				cxfw_port_link_locked(dev, port, true);
			kick = true;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (kick)
		dev->plat.kick(dev->plat.opaque);	/* the worker posts the port events */
}

/* The SubnTrap(Notice) MAD of @t; lock held. */
static void cxfw_sma_trap_mad(const struct cxfw_port *p, const struct cxfw_trap *t,
			      uint8_t mad[CXIB_MAD_SIZE])
{
	memset(mad, 0, CXIB_MAD_SIZE);
	CXIB_SET(mad, CXIB_MAD_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(mad, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_SUBN_LID_ROUTED);
	CXIB_SET(mad, CXIB_MAD_CLASS_VERSION, CXIB_SMP_CLASS_VERSION);
	CXIB_SET(mad, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_TRAP);
	CXIB_SET64(mad, CXIB_MAD_TID, t->tid);
	CXIB_SET(mad, CXIB_MAD_ATTR_ID, CXIB_SMP_ATTR_NOTICE);
	CXIB_SET64(mad, CXIB_SMP_MKEY, p->mkey);
	memcpy(mad + CXIB_SMP_DATA_OFFSET, t->notice, CXIB_SMP_DATA_SIZE);
}

bool cxfw_sma_next_trap(struct cxfw_dev *dev, unsigned int port, uint64_t now,
			struct cxfw_pkt *pkt, uint8_t mad[CXIB_MAD_SIZE])
{
	struct cxfw_port *p = &dev->ports[port - 1];
	bool due = false;
	unsigned int i;

	pthread_mutex_lock(&dev->lock);
	if (p->state != CXIB_PORT_STATE_ACTIVE || !p->sm_lid)
		p->ntraps = 0;	/* nobody to tell: forget them */
	for (i = 0; i < p->ntraps; i++) {
		struct cxfw_trap *t = &p->traps[i];

		if (now < t->next_ns)
			continue;
		if (t->sends == CXFW_TRAP_SENDS) {
			p->traps[i--] = p->traps[--p->ntraps];
			dev->stats.traps_dropped++;
			continue;
		}
		cxfw_sma_trap_mad(p, t, mad);
		t->sends++;
		t->next_ns = now + (CXFW_SUBNET_TIMEOUT_NS << p->subnet_timeout);
		dev->stats.traps_sent++;
		/* LID routed, QP0 to QP0, VL15 (the wire picks the VL of QP0) */
		memset(pkt, 0, sizeof(*pkt));
		pkt->opcode = CXIB_BTH_OP_UD_SEND_ONLY;
		pkt->dlid = p->sm_lid;
		pkt->sl = p->sm_sl;
		pkt->pkey = CXIB_PKEY_DEFAULT;
		pkt->dqpn = CXIB_QP0;
		pkt->deth_sqpn = CXIB_QP0;
		pkt->deth_qkey = CXFW_TRAP_QKEY;
		pkt->payload = mad;
		pkt->paylen = CXIB_MAD_SIZE;
		due = true;
		break;
	}
	pthread_mutex_unlock(&dev->lock);
	return due;
}

/* ---- MAD_IFC ---------------------------------------------------------------------------- */

/*
 * The M_Key check of 14.2.4.1 for an SMP; lock held.  Returns false if the SMP must be
 * dropped (counted, trap 256 queued, lease started).
 */
static bool cxfw_smp_mkey_ok(struct cxfw_dev *dev, struct cxfw_smp_req *r, const uint8_t *req)
{
	struct cxfw_port *p = &dev->ports[r->port - 1];
	uint64_t key = CXIB_GET64(req, CXIB_SMP_MKEY);

	if (p->mkey_lease_end_ns && r->now >= p->mkey_lease_end_ns) {
		p->mkey_protect = 0;		/* the lease ran out: protection is gone */
		p->mkey_lease_end_ns = 0;
	}
	if (r->ignore_mkey || !p->mkey)
		return true;
	if (key == p->mkey) {
		p->mkey_lease_end_ns = 0;	/* the SM is alive: the lease stops */
		return true;
	}
	if (r->method == CXIB_MGMT_METHOD_GET && p->mkey_protect < 2) {
		r->hide_mkey = p->mkey_protect == 1;
		return true;
	}
	if (p->mkey_violations < UINT16_MAX)
		p->mkey_violations++;
	dev->stats.mkey_violations++;
	if (p->mkey_lease_period && !p->mkey_lease_end_ns)
		p->mkey_lease_end_ns = r->now + (uint64_t)p->mkey_lease_period * CXFW_NS_PER_S;
	cxfw_sma_trap_mkey_locked(dev, r, req);
	return false;
}

/* An SMP (class 0x01 or 0x81); returns the MAD status.  Sets @r->drop for no answer. */
static uint16_t cxfw_smp_process(struct cxfw_dev *dev, struct cxfw_smp_req *r,
				 const uint8_t *req, __be32 *data)
{
	uint16_t status;

	if (CXIB_GET(req, CXIB_MAD_CLASS_VERSION) != CXIB_SMP_CLASS_VERSION)
		return CXIB_MAD_STATUS_BAD_VERSION;
	if (r->method != CXIB_MGMT_METHOD_GET && r->method != CXIB_MGMT_METHOD_SET &&
	    r->method != CXIB_MGMT_METHOD_TRAP_REPRESS)
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD;

	pthread_mutex_lock(&dev->lock);
	if (!cxfw_smp_mkey_ok(dev, r, req)) {
		r->drop = true;
		status = CXIB_MAD_STATUS_SUCCESS;
	} else if (r->method == CXIB_MGMT_METHOD_TRAP_REPRESS) {
		if (r->attr == CXIB_SMP_ATTR_NOTICE)
			cxfw_sma_trap_repress(dev, r->port, CXIB_GET64(req, CXIB_MAD_TID));
		status = r->attr == CXIB_SMP_ATTR_NOTICE ? CXIB_MAD_STATUS_SUCCESS :
			 CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
	} else if (r->method == CXIB_MGMT_METHOD_SET) {
		status = cxfw_smp_set(dev, r, data);
	} else {
		memset(data, 0, CXIB_SMP_DATA_SIZE);
		status = cxfw_smp_get(dev, r, data);
	}
	/*
	 * No kick needed: this runs inside cxfw_process(), whose cxfw_wire_send_traps() and
	 * cxfw_port_process() come later in the same pass; a queued trap kicks by itself.
	 */
	pthread_mutex_unlock(&dev->lock);
	return status;
}

uint8_t cxfw_cmd_mad_ifc(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_mad_ifc_in *in = (const void *)cmd->in;
	const uint8_t *req = cxfw_in_bytes(cmd, CXIB_MAD_IFC_IN_MAD_OFFSET);
	uint8_t *resp = cxfw_out_bytes(cmd, CXIB_MAD_IFC_OUT_RESPONSE_MAD_OFFSET);
	__be32 *data = (__be32 *)(resp + CXIB_SMP_DATA_OFFSET);
	uint32_t port = CXIB_GET(in, CXIB_MAD_IFC_IN_PORT);
	struct cxfw_smp_req r = { 0 };
	uint32_t mclass;
	uint16_t status;

	if (port < 1 || port > dev->cfg.num_ports)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, port));
	if (CXIB_GET(in, CXIB_MAD_IFC_IN_PLANE_INDEX))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM,
					   CXIB_GET(in, CXIB_MAD_IFC_IN_PLANE_INDEX)));

	/* the response starts as the request: header, M_Key, DR fields and paths kept */
	memcpy(resp, req, CXIB_MAD_SIZE);
	mclass = CXIB_GET(req, CXIB_MAD_MGMT_CLASS);
	r.port = port;
	r.method = CXIB_GET(req, CXIB_MAD_METHOD);
	r.attr = CXIB_GET(req, CXIB_MAD_ATTR_ID);
	r.mod = CXIB_GET(req, CXIB_MAD_ATTR_MOD);
	r.ignore_mkey = cmd->op_mod & CXIB_MAD_IFC_IGNORE_MKEY;
	r.now = cxfw_now(dev);

	if (CXIB_GET(req, CXIB_MAD_BASE_VERSION) != CXIB_MAD_BASE_VERSION_1)
		status = CXIB_MAD_STATUS_BAD_VERSION;
	else if (mclass == CXIB_MGMT_CLASS_PERF_MGMT)
		status = cxfw_pma_process(dev, port, req, resp, &r.drop);
	else if (mclass == CXIB_MGMT_CLASS_SUBN_LID_ROUTED ||
		 mclass == CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		status = cxfw_smp_process(dev, &r, req, data);
	else
		status = CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;

	if (r.drop) {
		cxfw_log(dev, CXFW_LOG_DEBUG,
			 "cxfw: port %u: MAD class 0x%02x method 0x%02x attr 0x%04x dropped",
			 port, mclass, r.method, r.attr);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PKT, CXFW_SYND(CXFW_SYND_BAD_PARAM, r.attr));
	}
	CXIB_SET(resp, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_GET_RESP);
	if (mclass == CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		status |= CXIB_SMP_DIRECTION;
	CXIB_SET(resp, CXIB_MAD_STATUS, status);
	if (status & ~CXIB_SMP_DIRECTION)
		cxfw_log(dev, CXFW_LOG_DEBUG,
			 "cxfw: MAD_IFC class 0x%02x method 0x%02x attr 0x%04x mod 0x%x: MAD status 0x%04x",
			 mclass, r.method, r.attr, r.mod, status);
	return CXIB_CMD_STAT_OK;
}
