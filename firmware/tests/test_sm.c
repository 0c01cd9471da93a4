// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SMA under a subnet manager (IBTA vol 1 ch. 14): SubnSet of PortInfo (kept and echoed,
 * invalid values, the PortState machine, ClientReregister), P_KeyTable, GUIDInfo,
 * SLtoVLMappingTable, VLArbitrationTable; the port change events each Set raises; M_Key
 * protection and its lease; traps and TrapRepress; what the wire carries in each PortState
 * and P_Key enforcement with its trap.
 */
#include <string.h>

#include "../core/cxfw_priv.h"
#include "drv.h"

#define IGN	(CXIB_MAD_IFC_IGNORE_MKEY | CXIB_MAD_IFC_IGNORE_BKEY)
#define GET	CXIB_MGMT_METHOD_GET
#define SET	CXIB_MGMT_METHOD_SET
#define MAD_ST(st)	(0x1000 + (st))
#define INVALID		MAD_ST(CXIB_MAD_STATUS_INVALID_ATTR_VALUE)

/* One node with its port in Init (no auto_activate), HCA up with an EQ for port events. */
static unsigned int sm_node(struct test_ctx *t, struct drv_world *w)
{
	drv.sm = true;
	/* drv_world_init() activates the port; take it back to a fresh Init first */
	return drv_world_init(t, w, 1);
}

/* SubnGet(PortInfo) as the base of a Set: PortState NoChange, PortPhysicalState NoChange. */
static unsigned int get_for_set(struct test_ctx *t, uint8_t pi[CXIB_SMP_DATA_SIZE])
{
	unsigned int st = drv_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi);

	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, 0);
	return st;
}

/* SubnSet(PortInfo) of @pi with PortPhysicalState NoChange, as opensm writes it. */
static unsigned int set_pi(struct test_ctx *t, uint8_t pi[CXIB_SMP_DATA_SIZE])
{
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, 0);
	return drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi);
}

static uint8_t port_state(struct test_ctx *t)
{
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };

	if (drv_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi))
		return 0xff;
	return (uint8_t)CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_STATE);
}

/* Port change sub types queued since the last call, as a bit mask. */
static unsigned int port_events(struct drv_node *n)
{
	struct cxib_eqe e;
	unsigned int mask = 0;
	int ty;

	cxfw_process(n->t->dev);
	while ((ty = drv_next_event(n, &e)) >= 0)
		if (ty == CXIB_EVENT_TYPE_PORT_CHANGE)
			mask |= 1u << e.sub_type;
	return mask;
}

#define EV(x)	(1u << CXIB_PORT_CHANGE_SUBTYPE_##x)

/* Bounce the port through Set(Down) and the retrain back to Init. */
static void set_down_and_retrain(struct test_ctx *t)
{
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };

	CHECK_EQ(get_for_set(t, pi), 0);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_DOWN);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi), 0);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_STATE), CXIB_PORT_STATE_DOWN);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE), CXIB_PORT_PHYS_STATE_POLLING);
	fake_advance_ms(&t->fk, 25);
	cxfw_process(t->dev);
}

TEST(sm_port_info_set_is_kept_and_echoed)
{
	struct drv_world w;
	struct drv_node *n = &w.n[0];
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 }, again[CXIB_SMP_DATA_SIZE] = { 0 };

	CHECK_EQ(sm_node(t, &w), 0);
	port_events(n);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 0, IGN, pi), 0);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_LID), DRV_SM_LID);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_LID), DRV_SM_LID);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_STATE), CXIB_PORT_STATE_ACTIVE);

	/* what opensm's LID manager writes, with NoChange as the state */
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, 0);
	CXIB_SET64(pi, CXIB_SMP_PORT_INFO_GID_PREFIX, 0xfe80000000001234ull);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_LID, 0x21);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_LID, 0x22);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MKEY_LEASE_PERIOD, 60);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_LMC, 2);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_SL, 3);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT, 17);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU, CXIB_IB_MTU_2048);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_OPERATIONAL_VLS, CXIB_IB_VL_CAP_VL0_3);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED, CXIB_LINK_WIDTH_SET_SUPPORTED);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED, CXIB_IB_SPEED_QDR);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_LOCAL_PHY_ERRORS, 5);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_OVERRUN_ERRORS, 6);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_HOQ_LIFE, 16);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_VL_STALL_COUNT, 7);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_CLIENT_REREGISTER, 1);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 0x80000001u, IGN, pi), 0);
	/* the SetResp is the new PortInfo, ClientReregister echoed */
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_CLIENT_REREGISTER), 1);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_LID), 0x21);
	CHECK_EQ(port_events(n), EV(LID) | EV(GUID) | EV(CLIENT_REREG));

	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, again), 0);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_CLIENT_REREGISTER), 0);
	CHECK_EQ(CXIB_GET64(again, CXIB_SMP_PORT_INFO_GID_PREFIX), 0xfe80000000001234ull);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_LID), 0x21);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_MASTER_SM_LID), 0x22);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_MKEY_LEASE_PERIOD), 60);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_LMC), 2);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_MASTER_SM_SL), 3);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_SUBNET_TIMEOUT), 17);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_NEIGHBOR_MTU), CXIB_IB_MTU_2048);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_OPERATIONAL_VLS), CXIB_IB_VL_CAP_VL0_3);
	/* 255 means "everything supported"; a subset is kept as written */
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED),
		 CXIB_IB_WIDTH_1X | CXIB_IB_WIDTH_4X);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED), CXIB_IB_SPEED_QDR);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_LOCAL_PHY_ERRORS), 5);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_OVERRUN_ERRORS), 6);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_HOQ_LIFE), 16);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_VL_STALL_COUNT), 7);
	CHECK_EQ(CXIB_GET(again, CXIB_SMP_PORT_INFO_PORT_STATE), CXIB_PORT_STATE_ACTIVE);
	/* the GID table follows the prefix */
	CHECK_EQ(CXIB_GET64(again, CXIB_SMP_PORT_INFO_GID_PREFIX) >> 32, 0xfe800000u);

	/* the same values again: nothing changes, no event */
	CXIB_SET(again, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CXIB_SET(again, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, 0);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, again), 0);
	CHECK_EQ(port_events(n), 0);
	/* the wire uses the LID the SM set: the old LID is no longer this port's */
	CHECK_EQ(t->dev->ports[0].lid, 0x21);
}

TEST(sm_port_info_invalid_values_change_nothing)
{
	struct drv_world w;
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 }, bad[CXIB_SMP_DATA_SIZE], now[CXIB_SMP_DATA_SIZE];
	static const struct { unsigned int dw, hi, lo, v; } cases[] = {
		{ CXIB_SMP_PORT_INFO_LID, 0 },
		{ CXIB_SMP_PORT_INFO_LID, 0xc000 },
		{ CXIB_SMP_PORT_INFO_LID, 0xffff },
		{ CXIB_SMP_PORT_INFO_MASTER_SM_LID, 0xc001 },
		{ CXIB_SMP_PORT_INFO_NEIGHBOR_MTU, 0 },
		{ CXIB_SMP_PORT_INFO_NEIGHBOR_MTU, 6 },
		{ CXIB_SMP_PORT_INFO_OPERATIONAL_VLS, CXIB_IB_VL_CAP_VL0_14 },
		{ CXIB_SMP_PORT_INFO_LINK_WIDTH_ENABLED, CXIB_IB_WIDTH_12X },
		{ CXIB_SMP_PORT_INFO_LINK_SPEED_ENABLED, 8 },
		{ CXIB_SMP_PORT_INFO_LINK_DOWN_DEFAULT_STATE, 3 },
		{ CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, CXIB_PORT_PHYS_STATE_DISABLED },
		{ CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, CXIB_PORT_PHYS_STATE_SLEEP },
	};
	unsigned int i;

	CHECK_EQ(sm_node(t, &w), 0);
	port_events(&w.n[0]);
	CHECK_EQ(get_for_set(t, pi), 0);
	memcpy(bad, pi, sizeof(bad));
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, bad), 0);	/* valid as is */
	CHECK_EQ(get_for_set(t, pi), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(bad, pi, sizeof(bad));
		/* the M_Key would change too */
		CXIB_SET64(bad, CXIB_SMP_PORT_INFO_MKEY,
			   CXIB_GET64(pi, CXIB_SMP_PORT_INFO_MKEY) ^ 0x1234000000000000ull);
		CXIB_SET(bad, cases[i].dw, cases[i].hi, cases[i].lo, cases[i].v);
		CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, bad), INVALID);
		CHECK_EQ(get_for_set(t, now), 0);
		CHECK(!memcmp(now, pi, sizeof(pi)));
	}
	/* a CA sets only the port the SMP arrived on; port 2 does not exist */
	memcpy(bad, pi, sizeof(bad));
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 2, IGN, bad), INVALID);
	CHECK_EQ(port_events(&w.n[0]), 0);
	/* bad versions and methods */
	CHECK_EQ(drv_smp(t, CXIB_MGMT_METHOD_GET_RESP, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, bad),
		 MAD_ST(CXIB_MAD_STATUS_UNSUPPORTED_METHOD));
}

TEST(sm_port_state_machine)
{
	struct drv_world w;
	struct drv_node *n = &w.n[0];
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };

	CHECK_EQ(sm_node(t, &w), 0);
	set_down_and_retrain(t);
	CHECK_EQ(port_events(n) & EV(DOWN), EV(DOWN));
	CHECK_EQ(port_state(t), CXIB_PORT_STATE_INIT);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi), 0);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE), CXIB_PORT_PHYS_STATE_LINK_UP);
	/* configuration survives the bounce */
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_LID), DRV_SM_LID);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, 0);

	/* Init -> Active skips Armed: refused, other fields still applied */
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_ACTIVE);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_SL, 5);
	CHECK_EQ(set_pi(t, pi), INVALID);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_STATE), CXIB_PORT_STATE_INIT);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_SL), 5);
	/* Init is never set */
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_INIT);
	CHECK_EQ(set_pi(t, pi), INVALID);
	/* Init -> Armed, Armed -> Armed refused, Armed -> Active */
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_ARMED);
	CHECK_EQ(set_pi(t, pi), 0);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_PORT_STATE), CXIB_PORT_STATE_ARMED);
	CHECK_EQ(port_events(n), 0);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_ARMED);
	CHECK_EQ(set_pi(t, pi), INVALID);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_ACTIVE);
	CHECK_EQ(set_pi(t, pi), 0);
	CHECK_EQ(port_state(t), CXIB_PORT_STATE_ACTIVE);
	CHECK_EQ(port_events(n), EV(ACTIVE));
	/* Active -> Active and an unknown state are refused */
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_ACTIVE);
	CHECK_EQ(set_pi(t, pi), INVALID);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, 7);
	CHECK_EQ(set_pi(t, pi), INVALID);
	CHECK_EQ(port_state(t), CXIB_PORT_STATE_ACTIVE);
	/* PhysState Polling retrains like Down */
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, CXIB_PORT_PHYS_STATE_POLLING);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi), 0);
	CHECK_EQ(port_state(t), CXIB_PORT_STATE_DOWN);
	CHECK_EQ(port_events(n), EV(DOWN));
	/* no retrain while the cable is out */
	cxfw_port_link(t->dev, 1, false);
	fake_advance_ms(&t->fk, 25);
	cxfw_process(t->dev);
	CHECK_EQ(port_state(t), CXIB_PORT_STATE_DOWN);
	cxfw_port_link(t->dev, 1, true);
	CHECK_EQ(port_state(t), CXIB_PORT_STATE_INIT);
}

TEST(sm_pkey_guid_sl2vl_vlarb_tables)
{
	struct drv_world w;
	struct drv_node *n = &w.n[0];
	uint8_t d[CXIB_SMP_DATA_SIZE] = { 0 }, g[16];
	unsigned int i;

	CHECK_EQ(sm_node(t, &w), 0);
	port_events(n);
	/* P_KeyTable block 1: entries 32..63 */
	for (i = 0; i < 32; i += 2) {
		CXIB_SET(&d[2 * i], CXIB_SMP_PKEY_TABLE_PKEY0, 0x8000 | (0x100 + i));
		CXIB_SET(&d[2 * i], CXIB_SMP_PKEY_TABLE_PKEY1, 0x100 + i + 1);
	}
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PKEY_TABLE, 1, IGN, d), 0);
	CHECK_EQ(port_events(n), EV(PKEY));
	memset(d, 0, sizeof(d));
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_PKEY_TABLE, 1, IGN, d), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_SMP_PKEY_TABLE_PKEY0), 0x8100);
	CHECK_EQ(CXIB_GET(&d[60], CXIB_SMP_PKEY_TABLE_PKEY1), 0x11f);
	CHECK_EQ(t->dev->ports[0].pkeys[33], 0x101);
	/* the same block again: no event; block 0 keeps the default at index 0 */
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PKEY_TABLE, 1, IGN, d), 0);
	CHECK_EQ(port_events(n), 0);
	CHECK_EQ(t->dev->ports[0].pkeys[0], CXIB_PKEY_DEFAULT);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PKEY_TABLE, 4, IGN, d), INVALID);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_PKEY_TABLE, 4, IGN, d), INVALID);

	/* GUIDInfo: alias GUIDs are kept, GUID 0 (the port GUID) is not writable */
	memset(d, 0, sizeof(d));
	CXIB_SET64(d, CXIB_SMP_GUID_INFO_GUID0, 0x1111);
	CXIB_SET64(&d[8], CXIB_SMP_GUID_INFO_GUID0, 0x2222);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_GUID_INFO, 0, IGN, d), 0);
	CHECK_EQ(CXIB_GET64(d, CXIB_SMP_GUID_INFO_GUID0), n->guid);
	CHECK_EQ(CXIB_GET64(&d[8], CXIB_SMP_GUID_INFO_GUID0), 0x2222);
	CHECK_EQ(port_events(n), EV(GUID));
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_GUID_INFO, 1, IGN, d), INVALID);
	/* the vport GID table has the alias at index 1 */
	{
		uint8_t out[CXIB_QUERY_HCA_VPORT_GID_OUT_LEN(1)];

		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_VPORT_GID, 0,
				    CXIB_FIELD_PREP(CXIB_QUERY_HCA_VPORT_GID_IN_PORT_NUM, 1),
				    CXIB_FIELD_PREP(CXIB_QUERY_HCA_VPORT_GID_IN_GID_INDEX, 1),
				    out, sizeof(out)), 0);
		memcpy(g, out + CXIB_QUERY_HCA_VPORT_GID_OUT_GID_OFFSET, 16);
		CHECK_EQ(CXIB_GET64(g, CXIB_GID_GUID), 0x2222);
	}

	/* SLtoVL */
	memset(d, 0, sizeof(d));
	for (i = 0; i < 16; i++)
		CXIB_SET(d, CXIB_SMP_SL_TO_VL(i), 15 - i);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_SL_TO_VL_TABLE, 0, IGN, d), 0);
	memset(d, 0, sizeof(d));
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_SL_TO_VL_TABLE, 0, IGN, d), 0);
	CHECK_EQ(d[0], 0xfe);
	CHECK_EQ(d[7], 0x10);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_SL_TO_VL_TABLE, 0x101, IGN, d), INVALID);

	/* VLArbitration low 0-31: the 8 entries of the cap are kept, the rest read 0 */
	memset(d, 0, sizeof(d));
	for (i = 0; i < 32; i++) {
		CXIB_SET(d, CXIB_SMP_VL_ARB_VL(i), i % 8);
		CXIB_SET(d, CXIB_SMP_VL_ARB_WEIGHT(i), 10 + i);
	}
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_VL_ARB_TABLE, CXIB_VL_ARB_BLOCK_LOW_0_31 << 16,
			 IGN, d), 0);
	CHECK_EQ(d[1], 10);
	CHECK_EQ(d[15], 17);
	CHECK_EQ(d[16], 0);
	memset(d, 0, sizeof(d));
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_VL_ARB_TABLE, CXIB_VL_ARB_BLOCK_HIGH_0_31 << 16,
			 IGN, d), 0);
	CHECK_EQ(d[1], 0);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_VL_ARB_TABLE, CXIB_VL_ARB_BLOCK_LOW_0_31 << 16,
			 IGN, d), 0);
	CHECK_EQ(d[14], 7);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_VL_ARB_TABLE, CXIB_VL_ARB_BLOCK_LOW_32_63 << 16,
			 IGN, d), INVALID);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_VL_ARB_TABLE,
			 CXIB_VL_ARB_BLOCK_LOW_0_31 << 16 | 2, IGN, d), INVALID);
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_VL_ARB_TABLE, 0, IGN, d), INVALID);
	/* ExtendedPortInfo reads all zero (no FDR10); it is not writable */
	memset(d, 0xa5, sizeof(d));
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_MLNX_EXT_PORT_INFO, 1, IGN, d), 0);
	for (i = 0; i < sizeof(d); i++)
		CHECK_EQ(d[i], 0);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_MLNX_EXT_PORT_INFO, 1, IGN, d),
		 MAD_ST(CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR));
	CHECK_EQ(drv_smp(t, GET, CXIB_SMP_ATTR_MLNX_EXT_PORT_INFO, 2, IGN, d), INVALID);
}

/* Set the port's M_Key protection (with the M_Key check off). */
static void set_mkey(struct test_ctx *t, uint64_t key, unsigned int protect, unsigned int lease)
{
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };

	CHECK_EQ(get_for_set(t, pi), 0);
	CXIB_SET64(pi, CXIB_SMP_PORT_INFO_MKEY, key);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MKEY_PROTECT_BITS, protect);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MKEY_LEASE_PERIOD, lease);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi), 0);
}

/* An SMP from the wire (M_Key checked) carrying @key. */
static unsigned int wire_smp(struct test_ctx *t, uint8_t method, uint16_t attr, uint64_t key,
			     uint8_t data[CXIB_SMP_DATA_SIZE])
{
	uint8_t req[CXIB_MAD_SIZE] = { 0 }, resp[CXIB_MAD_SIZE];
	unsigned int st;

	CXIB_SET(req, CXIB_MAD_BASE_VERSION, 1);
	CXIB_SET(req, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_SUBN_DIRECTED_ROUTE);
	CXIB_SET(req, CXIB_MAD_CLASS_VERSION, 1);
	CXIB_SET(req, CXIB_MAD_METHOD, method);
	CXIB_SET(req, CXIB_MAD_ATTR_ID, attr);
	CXIB_SET(req, CXIB_MAD_ATTR_MOD, attr == CXIB_SMP_ATTR_PORT_INFO);
	CXIB_SET64(req, CXIB_SMP_MKEY, key);
	memcpy(req + CXIB_SMP_DATA_OFFSET, data, CXIB_SMP_DATA_SIZE);
	st = drv_mad_ifc(t, 1, 0, req, resp);
	if (st)
		return st;
	memcpy(data, resp + CXIB_SMP_DATA_OFFSET, CXIB_SMP_DATA_SIZE);
	return MAD_ST(CXIB_GET(resp, CXIB_MAD_STATUS) & ~CXIB_SMP_DIRECTION) & 0xfff;
}

static unsigned int mkey_violations(struct test_ctx *t)
{
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };

	if (drv_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi))
		return 0xfffff;
	return CXIB_GET(pi, CXIB_SMP_PORT_INFO_MKEY_VIOLATIONS);
}

TEST(sm_mkey_protection_and_lease)
{
	struct drv_world w;
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };

	CHECK_EQ(sm_node(t, &w), 0);
	/* M_Key 0: every key passes */
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_NODE_INFO, 0x99, pi), 0);

	set_mkey(t, 0x1234, 2, 1);
	/* protect 2: a Get with a wrong key is dropped (no answer), counted */
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 0x99, pi), CXIB_CMD_STAT_BAD_PKT);
	CHECK_EQ(mkey_violations(t), 1);
	/* a Set with the wrong key changes nothing */
	CHECK_EQ(get_for_set(t, pi), 0);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_LID, 0x77);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CHECK_EQ(wire_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 0x99, pi), CXIB_CMD_STAT_BAD_PKT);
	CHECK_EQ(mkey_violations(t), 2);
	CHECK_EQ(t->dev->ports[0].lid, DRV_SM_LID);
	/* the right key works and stops the lease */
	CHECK_EQ(get_for_set(t, pi), 0);
	CHECK_EQ(wire_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 0x1234, pi), 0);
	CHECK_EQ(CXIB_GET64(pi, CXIB_SMP_PORT_INFO_MKEY), 0x1234);
	/* a violation starts the lease; when it runs out protection is gone */
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_NODE_INFO, 0x99, pi), CXIB_CMD_STAT_BAD_PKT);
	fake_advance_ms(&t->fk, 1100);
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 0x99, pi), 0);
	CHECK_EQ(CXIB_GET(pi, CXIB_SMP_PORT_INFO_MKEY_PROTECT_BITS), 0);
	/* protect 1: a Get with a wrong key is answered, M_Key reads 0 */
	set_mkey(t, 0x1234, 1, 0);
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 0x99, pi), 0);
	CHECK_EQ(CXIB_GET64(pi, CXIB_SMP_PORT_INFO_MKEY), 0);
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 0x1234, pi), 0);
	CHECK_EQ(CXIB_GET64(pi, CXIB_SMP_PORT_INFO_MKEY), 0x1234);
	/* lease 0: protection never expires */
	CHECK_EQ(wire_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 0x98, pi), CXIB_CMD_STAT_BAD_PKT);
	CHECK_EQ(mkey_violations(t), 4);
	/* the SM clears the counter by writing 0 */
	CHECK_EQ(get_for_set(t, pi), 0);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_MKEY_VIOLATIONS, 0);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi), 0);
	CHECK_EQ(mkey_violations(t), 0);
	CHECK_EQ(t->dev->stats.mkey_violations, 4);
}

/* Cable tap: collect the SubnTrap MADs node 0 sends. */
struct trap_log {
	unsigned int n;
	uint16_t num[8];
	uint64_t tid[8];
	uint16_t dlid[8];
};

static bool trap_tap(void *arg, unsigned int from, const uint8_t *pkt, size_t len)
{
	struct trap_log *tl = arg;
	struct cxfw_pkt p;

	if (from != 0 || cxfw_pkt_parse(pkt, len, &p) || p.dqpn != CXIB_QP0 ||
	    p.paylen != CXIB_MAD_SIZE || p.vl != CXIB_VL_SMP)
		return true;
	if (CXIB_GET(p.payload, CXIB_MAD_METHOD) == CXIB_MGMT_METHOD_TRAP && tl->n < 8) {
		tl->num[tl->n] = (uint16_t)CXIB_GET(p.payload + CXIB_SMP_DATA_OFFSET,
						    CXIB_SMP_NOTICE_TRAP_NUMBER);
		tl->tid[tl->n] = CXIB_GET64(p.payload, CXIB_MAD_TID);
		tl->dlid[tl->n] = p.dlid;
		tl->n++;
	}
	return true;
}

TEST(sm_traps_resent_until_repressed)
{
	struct drv_world w;
	struct trap_log tl = { 0 };
	uint8_t d[CXIB_SMP_DATA_SIZE] = { 0 };
	uint8_t in[CXIB_ACCESS_REG_IN_LEN(CXIB_REG_PCAP_LEN)] = { 0 };
	uint8_t out[CXIB_ACCESS_REG_OUT_LEN(CXIB_REG_PCAP_LEN)];
	__be32 *reg = (__be32 *)(in + CXIB_ACCESS_REG_IN_DATA_OFFSET);

	drv.sm = true;
	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	w.cable->tap = trap_tap;
	w.cable->tap_arg = &tl;
	/* node 0's SM is node 1 (LID DRV_SM_LID + 1) */
	CHECK_EQ(get_for_set(t, d), 0);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_MASTER_SM_LID, DRV_SM_LID + 1);
	CXIB_SET(d, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_NOP);
	CHECK_EQ(drv_smp(t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, d), 0);

	/* the host sets IsSM through PCAP: trap 144 with the new capability mask */
	cmd_hdr(in, CXIB_CMD_OP_ACCESS_REG, CXIB_ACCESS_REG_OP_MOD_WRITE);
	CXIB_SET(in, CXIB_ACCESS_REG_IN_REGISTER_ID, CXIB_REG_PCAP);
	CXIB_SET(reg, CXIB_REG_PCAP_LOCAL_PORT, 1);
	CXIB_SET(reg, CXIB_REG_PCAP_PORT_CAPABILITY_MASK,
		 t->dev->ports[0].cap_mask | CXIB_PORT_CAP_SM);
	CHECK_EQ(cmd_exec(t, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(out_status(out), 0);
	cxfw_process(t->dev);
	drv_pump(&w);
	CHECK_EQ(tl.n, 1);
	CHECK_EQ(tl.num[0], CXIB_TRAP_LOCAL_CHANGES);
	CHECK_EQ(tl.dlid[0], DRV_SM_LID + 1);
	/* no TrapRepress: resent after the subnet timeout (2^18 * 4.096 us), same TID */
	fake_advance_ms(&t->fk, 1100);
	cxfw_process(t->dev);
	drv_pump(&w);
	CHECK_EQ(tl.n, 2);
	CHECK_EQ(tl.tid[1], tl.tid[0]);
	/* TrapRepress stops it */
	memset(d, 0, sizeof(d));
	{
		uint8_t req[CXIB_MAD_SIZE] = { 0 }, resp[CXIB_MAD_SIZE];

		CXIB_SET(req, CXIB_MAD_BASE_VERSION, 1);
		CXIB_SET(req, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_SUBN_LID_ROUTED);
		CXIB_SET(req, CXIB_MAD_CLASS_VERSION, 1);
		CXIB_SET(req, CXIB_MAD_METHOD, CXIB_MGMT_METHOD_TRAP_REPRESS);
		CXIB_SET(req, CXIB_MAD_ATTR_ID, CXIB_SMP_ATTR_NOTICE);
		CXIB_SET64(req, CXIB_MAD_TID, tl.tid[0]);
		CHECK_EQ(drv_mad_ifc(t, 1, 0, req, resp), 0);
	}
	CHECK_EQ(t->dev->stats.traps_repressed, 1);
	fake_advance_ms(&t->fk, 5000);
	cxfw_process(t->dev);
	drv_pump(&w);
	CHECK_EQ(tl.n, 2);

	/* an unrepressed trap gives up after four sends */
	set_mkey(t, 0x55, 2, 0);
	CHECK_EQ(wire_smp(t, GET, CXIB_SMP_ATTR_PORT_INFO, 0x66, d), CXIB_CMD_STAT_BAD_PKT);
	cxfw_process(t->dev);
	drv_pump(&w);
	CHECK_EQ(tl.n, 3);
	CHECK_EQ(tl.num[2], CXIB_TRAP_BAD_MKEY);
	CHECK(tl.tid[2] != tl.tid[0]);
	for (int i = 0; i < 6; i++) {
		fake_advance_ms(&t->fk, 1100);
		cxfw_process(t->dev);
		drv_pump(&w);
	}
	CHECK_EQ(tl.n, 6);
	CHECK_EQ(t->dev->stats.traps_dropped, 1);
}

/* Two connected UD QPs, a send buffer on node 0 and a posted receive on node 1. */
struct ud_pair {
	struct drv_qp a, b;
	struct drv_mr src, dst;
	struct drv_wr wr;
};

static void ud_pair(struct test_ctx *t, struct drv_world *w, struct ud_pair *u)
{
	struct drv_qp_init ia, ib;
	struct drv_qp_conn c;
	struct drv_sge r;

	drv_qp_init_defaults(&ia, CXIB_QPC_ST_UD, w->cq[0]);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_UD, w->cq[1]);
	drv_qp_conn_defaults(&c);
	CHECK_EQ(drv_qp_create(&w->n[0], &ia, &u->a), 0);
	CHECK_EQ(drv_qp_create(&w->n[1], &ib, &u->b), 0);
	CHECK_EQ(drv_qp_connect(&w->n[0], &u->a, &ia, &c), 0);
	CHECK_EQ(drv_qp_connect(&w->n[1], &u->b, &ib, &c), 0);
	CHECK_EQ(drv_mr_alloc(&w->n[0], 256, DRV_LR, &u->src), 0);
	CHECK_EQ(drv_mr_alloc(&w->n[1], 1024, DRV_LR | DRV_LW, &u->dst), 0);
	r = (struct drv_sge){ .addr = u->dst.va, .len = DRV_GRH_LEN + 256, .lkey = u->dst.key };
	CHECK_EQ(drv_post_recv(&w->n[1], &u->b, &r, 1), 0);
	memset(&u->wr, 0, sizeof(u->wr));
	u->wr.opcode = CXIB_WQE_OPCODE_SEND;
	u->wr.signaled = true;
	u->wr.sg[0] = (struct drv_sge){ .addr = u->src.va, .len = 64, .lkey = u->src.key };
	u->wr.nsg = 1;
	u->wr.ah.dlid = w->n[1].lid;
	u->wr.ah.dqpn = u->b.qpn;
	u->wr.ah.qkey = DRV_DEFAULT_QKEY;
}

TEST(sm_data_flows_only_when_active)
{
	struct drv_world w;
	struct ud_pair u;
	struct cxib_cqe64 cqe;
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };
	struct drv_wr back;
	uint64_t drops;

	drv.sm = true;
	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	ud_pair(t, &w, &u);

	/* node 1 back to Init: node 0's send is refused by node 1 */
	set_down_and_retrain(w.n[1].t);
	CHECK_EQ(port_state(w.n[1].t), CXIB_PORT_STATE_INIT);
	drops = w.n[1].t->dev->stats.port_state_drops;
	CHECK(drv_post_send(&w.n[0], &u.a, &u.wr) >= 0);
	drv_pump(&w);
	CHECK_EQ(drv_poll(&w.n[0], w.cq[0], &cqe), 1);	/* UD: sent is done */
	CHECK_EQ(drv_poll(&w.n[1], w.cq[1], &cqe), 0);
	CHECK_EQ(w.n[1].t->dev->stats.port_state_drops, drops + 1);

	/* a port in Init sends nothing but VL15 either */
	back = u.wr;
	back.sg[0] = (struct drv_sge){ .addr = u.dst.va, .len = 64, .lkey = u.dst.key };
	back.ah.dlid = w.n[0].lid;
	back.ah.dqpn = u.a.qpn;
	drops = w.n[1].t->dev->stats.port_state_drops;
	CHECK(drv_post_send(&w.n[1], &u.b, &back) >= 0);
	drv_pump(&w);
	CHECK_EQ(w.n[1].t->dev->stats.port_state_drops, drops + 1);
	CHECK_EQ(w.n[0].t->dev->stats.pkts_looped + w.cable->delivered[1], 0);
	CHECK_EQ(drv_poll(&w.n[1], w.cq[1], &cqe), 1);	/* the send WQE completes */

	/* Armed: the first data packet from the neighbour makes the port Active */
	CHECK_EQ(get_for_set(w.n[1].t, pi), 0);
	CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, CXIB_PORT_STATE_ARMED);
	CHECK_EQ(drv_smp(w.n[1].t, SET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, pi), 0);
	CHECK(drv_post_send(&w.n[0], &u.a, &u.wr) >= 0);
	drv_pump(&w);
	CHECK_EQ(port_state(w.n[1].t), CXIB_PORT_STATE_ACTIVE);
	CHECK_EQ(port_events(&w.n[1]) & EV(ACTIVE), EV(ACTIVE));
	CHECK_EQ(drv_poll(&w.n[1], w.cq[1], &cqe), 1);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
}

TEST(sm_pkey_violation_is_dropped_counted_and_trapped)
{
	struct drv_world w;
	struct drv_node *nb;
	struct ud_pair u;
	struct cxib_cqe64 cqe;
	uint8_t d[CXIB_SMP_DATA_SIZE] = { 0 };
	const struct cxfw_port *pb;

	drv.sm = true;
	CHECK_EQ(drv_world_init(t, &w, 2), 0);
	nb = &w.n[1];
	pb = &nb->t->dev->ports[0];
	ud_pair(t, &w, &u);
	/* node 1 is moved to partition 0x8001 only: node 0's default P_Key is foreign */
	CXIB_SET(d, CXIB_SMP_PKEY_TABLE_PKEY0, 0x8001);
	CHECK_EQ(drv_smp(nb->t, SET, CXIB_SMP_ATTR_PKEY_TABLE, 0, IGN, d), 0);
	port_events(nb);

	CHECK(drv_post_send(&w.n[0], &u.a, &u.wr) >= 0);
	drv_pump(&w);
	CHECK_EQ(drv_poll(&w.n[0], w.cq[0], &cqe), 1);
	CHECK_EQ(drv_poll(nb, w.cq[1], &cqe), 0);
	CHECK_EQ(drv_smp(nb->t, GET, CXIB_SMP_ATTR_PORT_INFO, 1, IGN, d), 0);
	CHECK_EQ(CXIB_GET(d, CXIB_SMP_PORT_INFO_PKEY_VIOLATIONS), 1);
	CHECK_EQ(nb->t->dev->stats.pkey_violations, 1);
	/* node 1's SM is DRV_SM_LID (node 0): trap 257 with the packet's addresses */
	cxfw_process(nb->t->dev);
	CHECK_EQ(nb->t->dev->stats.traps_sent, 1);
	CHECK_EQ(pb->ntraps, 1);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_TRAP_NUMBER), CXIB_TRAP_BAD_PKEY);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_TYPE), CXIB_NOTICE_TYPE_SECURITY);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_ISSUER_LID), nb->lid);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_257_KEY), CXIB_PKEY_DEFAULT);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_257_LID1), w.n[0].lid);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_257_LID2), nb->lid);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_257_QP1), u.a.qpn);
	CHECK_EQ(CXIB_GET(pb->traps[0].notice, CXIB_SMP_NOTICE_257_QP2), u.b.qpn);
	/* a second violation while the first is outstanding is counted, not trapped again */
	CHECK(drv_post_send(&w.n[0], &u.a, &u.wr) >= 0);
	drv_pump(&w);
	cxfw_process(nb->t->dev);
	CHECK_EQ(nb->t->dev->stats.pkey_violations, 2);
	CHECK_EQ(pb->ntraps, 1);
	/* back in the partition: the same send is delivered */
	CXIB_SET(d, CXIB_SMP_PKEY_TABLE_PKEY0, CXIB_PKEY_DEFAULT);
	memset(d, 0, sizeof(d));
	CXIB_SET(d, CXIB_SMP_PKEY_TABLE_PKEY0, CXIB_PKEY_DEFAULT);
	CHECK_EQ(drv_smp(nb->t, SET, CXIB_SMP_ATTR_PKEY_TABLE, 0, IGN, d), 0);
	CHECK(drv_post_send(&w.n[0], &u.a, &u.wr) >= 0);
	drv_pump(&w);
	CHECK_EQ(drv_poll(nb, w.cq[1], &cqe), 1);
}
