// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: process_mad's decisions, without a device (mad.c).
 *
 * cxib_mad_route(): which MADs go to the firmware's agents through MAD_IFC (SMP Get, Set
 * and TrapRepress but SMInfo; PMA Get and Set), which pass to the host's agents (every
 * other SMP method, SMInfo, every other class) and which are dropped (a trap generated
 * locally).  cxib_mad_snoop_sm(): when a SubnSet(PortInfo) response means the master SM
 * moved (IB_EVENT_SM_CHANGE).
 *
 * Codes and MAD offsets are written here by hand from IBTA vol 1 ch. 13-14 and 16.1.
 */

#include <kunit/test.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/* ---- Routing ---------------------------------------------------------------------------- */

struct mad_route_case {
	const char *name;
	u8 mgmt_class;
	u8 method;
	u16 attr_id;
	u16 slid;
	bool have_wc;
	enum cxib_mad_route route;
};

#define MR_FW		CXIB_MAD_ROUTE_FW
#define MR_FW_CONSUME	CXIB_MAD_ROUTE_FW_CONSUME
#define MR_PASS		CXIB_MAD_ROUTE_PASS
#define MR_CONSUME	CXIB_MAD_ROUTE_CONSUME

static const struct mad_route_case mad_route_cases[] = {
	/* SMPs, LID routed (0x01) and directed route (0x81): requests to the SMA */
	{ "lid_get_nodeinfo", 0x01, 0x01, 0x0011, 5, true, MR_FW },
	{ "dr_get_nodeinfo_local", 0x81, 0x01, 0x0011, 0xffff, true, MR_FW },
	{ "dr_get_nodeinfo_internal", 0x81, 0x01, 0x0011, 0, false, MR_FW },
	{ "lid_get_portinfo_internal", 0x01, 0x01, 0x0015, 0, false, MR_FW },
	{ "lid_set_portinfo", 0x01, 0x02, 0x0015, 7, true, MR_FW },
	{ "dr_set_portinfo", 0x81, 0x02, 0x0015, 0xffff, true, MR_FW },
	{ "dr_set_pkeytable", 0x81, 0x02, 0x0016, 0xffff, true, MR_FW },
	{ "lid_get_vendor_attr", 0x01, 0x01, 0xff90, 3, true, MR_FW },
	{ "lid_trap_repress", 0x01, 0x07, 0x0002, 1, true, MR_FW_CONSUME },
	{ "dr_trap_repress", 0x81, 0x07, 0x0002, 0xffff, true, MR_FW_CONSUME },
	/* SMInfo belongs to the subnet manager (opensm), not to the SMA */
	{ "lid_get_sminfo", 0x01, 0x01, 0x0020, 9, true, MR_PASS },
	{ "dr_get_sminfo", 0x81, 0x01, 0x0020, 0xffff, true, MR_PASS },
	{ "dr_set_sminfo", 0x81, 0x02, 0x0020, 0xffff, true, MR_PASS },
	{ "lid_trap_repress_sminfo", 0x01, 0x07, 0x0020, 1, true, MR_PASS },
	/* other SMP methods arriving here are for the SM's agent */
	{ "lid_getresp", 0x01, 0x81, 0x0011, 4, true, MR_PASS },
	{ "dr_getresp", 0x81, 0x81, 0x0015, 0xffff, true, MR_PASS },
	{ "lid_trap_from_wire", 0x01, 0x05, 0x0002, 4, true, MR_PASS },
	{ "dr_trap_from_wire", 0x81, 0x05, 0x0002, 0xffff, true, MR_PASS },
	{ "lid_report", 0x01, 0x06, 0x0002, 4, true, MR_PASS },
	{ "lid_send", 0x01, 0x03, 0x0011, 4, true, MR_PASS },
	{ "lid_unknown_method", 0x01, 0x7f, 0x0011, 4, true, MR_PASS },
	/* a trap the node generated itself is dropped */
	{ "lid_trap_slid0", 0x01, 0x05, 0x0002, 0, true, MR_CONSUME },
	{ "lid_trap_no_wc", 0x01, 0x05, 0x0002, 0, false, MR_CONSUME },
	{ "dr_trap_no_wc", 0x81, 0x05, 0x0002, 0xffff, false, MR_CONSUME },
	{ "pma_trap_slid0", 0x04, 0x05, 0x0001, 0, true, MR_CONSUME },
	/* PMA (0x04): Get and Set to the firmware's PMA, the rest to the host */
	{ "pma_get_classportinfo_internal", 0x04, 0x01, 0x0001, 0, false, MR_FW },
	{ "pma_get_portcounters", 0x04, 0x01, 0x0012, 6, true, MR_FW },
	{ "pma_get_portcounters_ext", 0x04, 0x01, 0x001d, 6, true, MR_FW },
	{ "pma_set_portcounters", 0x04, 0x02, 0x0012, 6, true, MR_FW },
	{ "pma_get_unsupported_attr", 0x04, 0x01, 0x0016, 6, true, MR_FW },
	{ "pma_getresp", 0x04, 0x81, 0x0012, 6, true, MR_PASS },
	{ "pma_trap_from_wire", 0x04, 0x05, 0x0001, 6, true, MR_PASS },
	/* every other class is the host's */
	{ "sa_get", 0x03, 0x01, 0x0011, 1, true, MR_PASS },
	{ "sa_gettable", 0x03, 0x12, 0x0035, 1, true, MR_PASS },
	{ "sa_getresp", 0x03, 0x81, 0x0035, 1, true, MR_PASS },
	{ "sa_report", 0x03, 0x06, 0x0003, 1, true, MR_PASS },
	{ "sa_set_internal", 0x03, 0x02, 0x0038, 0, false, MR_PASS },
	{ "dm_get", 0x06, 0x01, 0x0010, 2, true, MR_PASS },
	{ "cm_send", 0x07, 0x03, 0x0010, 2, true, MR_PASS },
	{ "cm_send_internal", 0x07, 0x03, 0x0013, 0, false, MR_PASS },
	{ "snmp_get", 0x08, 0x01, 0x0001, 2, true, MR_PASS },
	{ "vendor_09_get", 0x09, 0x01, 0x0001, 2, true, MR_PASS },
	{ "vendor_0a_set", 0x0a, 0x02, 0x0001, 2, true, MR_PASS },
	{ "vendor_rmpp_30_get", 0x30, 0x01, 0x0001, 2, true, MR_PASS },
	{ "cc_get", 0x21, 0x01, 0x0001, 2, true, MR_PASS },
	{ "bm_get", 0x05, 0x01, 0x0001, 2, true, MR_PASS },
};

static void mad_route_case_desc(const struct mad_route_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mad_route, mad_route_cases, mad_route_case_desc);

static void mad_route_decision(struct kunit *test)
{
	const struct mad_route_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, cxib_mad_route(c->mgmt_class, c->method, c->attr_id, c->slid,
						 c->have_wc), c->route,
			    "class 0x%02x method 0x%02x attr 0x%04x slid 0x%x wc %d",
			    c->mgmt_class, c->method, c->attr_id, c->slid, c->have_wc);
}

/* ---- The SM_CHANGE snoop ---------------------------------------------------------------- */

static void put16(u8 *b, unsigned int off, u16 v)
{
	b[off] = v >> 8;
	b[off + 1] = v & 0xff;
}

static void put32(u8 *b, unsigned int off, u32 v)
{
	put16(b, off, v >> 16);
	put16(b, off + 2, v & 0xffff);
}

/* A MAD header: version 1, class, class version 1, method, status, attribute, modifier. */
static void mad_hdr(struct cxib_smp *smp, u8 mgmt_class, u8 method, u16 status, u16 attr,
		    u32 mod)
{
	u8 *b = (u8 *)smp;

	memset(smp, 0, sizeof(*smp));
	b[0] = 1;
	b[1] = mgmt_class;
	b[2] = 1;
	b[3] = method;
	put16(b, 4, status);
	put16(b, 16, attr);
	put32(b, 20, mod);
}

/*
 * PortInfo data: LID at byte 16, MasterSMLID at 18, NeighborMTU in the high nibble of
 * byte 36 and MasterSMSL in its low nibble.
 */
static void port_info_sm(struct cxib_smp *smp, u16 sm_lid, u8 sm_sl)
{
	u8 *d = (u8 *)smp + 64;

	put16(d, 16, 0x0042);
	put16(d, 18, sm_lid);
	d[36] = 0x40 | (sm_sl & 0xf);
}

struct snoop_ctx {
	struct cxib_smp req, resp;
	struct cxib_port_sm sm;
};

/* A SubnSet(PortInfo) on port 1 and its successful response naming SM LID/SL. */
static void snoop_set(struct snoop_ctx *s, u8 mgmt_class, u32 mod, u16 sm_lid, u8 sm_sl)
{
	mad_hdr(&s->req, mgmt_class, 0x02, 0, 0x0015, mod);
	port_info_sm(&s->req, sm_lid, sm_sl);
	mad_hdr(&s->resp, mgmt_class, 0x81, mgmt_class == 0x81 ? 0x8000 : 0, 0x0015, mod);
	port_info_sm(&s->resp, sm_lid, sm_sl);
}

/* The first SM to program the port moves it from LID 0; the same values again do not. */
static void snoop_sm_lid_change(struct kunit *test)
{
	struct snoop_ctx s = { .sm = { .lid = 0, .sl = 0 } };

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	KUNIT_EXPECT_TRUE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 1);
	KUNIT_EXPECT_EQ(test, s.sm.sl, 0);
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));

	snoop_set(&s, 0x01, 0, 0x0017, 0);		/* LID routed, modifier 0 */
	KUNIT_EXPECT_TRUE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 0x17);
}

/* The SL alone moving is an SM change too. */
static void snoop_sm_sl_change(struct kunit *test)
{
	struct snoop_ctx s = { .sm = { .lid = 0x17, .sl = 0 } };

	snoop_set(&s, 0x81, 1, 0x0017, 5);
	KUNIT_EXPECT_TRUE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 0x17);
	KUNIT_EXPECT_EQ(test, s.sm.sl, 5);
	snoop_set(&s, 0x81, 1, 0x0017, 5);
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
}

/* The values come from the response (what the SMA applied), not from the request. */
static void snoop_reads_the_response(struct kunit *test)
{
	struct snoop_ctx s = { .sm = { .lid = 3, .sl = 1 } };

	snoop_set(&s, 0x81, 1, 0x0009, 2);
	port_info_sm(&s.resp, 3, 1);			/* the SMA kept the old SM */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 3);
	KUNIT_EXPECT_EQ(test, s.sm.sl, 1);
}

/* Attribute modifier: 0 or the port, bit 31 (SMSupportsExtendedSpeeds) aside. */
static void snoop_port_of_the_modifier(struct kunit *test)
{
	struct snoop_ctx s = { .sm = { .lid = 0, .sl = 0 } };

	snoop_set(&s, 0x81, 2, 0x0001, 0);		/* another port's PortInfo */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 0);
	KUNIT_EXPECT_TRUE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 2, &s.sm));

	s.sm.lid = 0;
	snoop_set(&s, 0x81, 0x80000001, 0x0001, 0);
	KUNIT_EXPECT_TRUE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	s.sm.lid = 0;
	snoop_set(&s, 0x81, 0x80000000, 0x0001, 0);
	KUNIT_EXPECT_TRUE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
}

/* A Set the SMA refused, or a response that is no GetResp of PortInfo, changes nothing. */
static void snoop_only_applied_sets(struct kunit *test)
{
	struct snoop_ctx s = { .sm = { .lid = 0, .sl = 0 } };

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	put16((u8 *)&s.resp, 4, 0x801c);		/* D bit + invalid attribute value */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	put16((u8 *)&s.resp, 4, 0x0008);		/* unsupported method */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	((u8 *)&s.resp)[3] = 0x02;			/* the request echoed back */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	put16((u8 *)&s.resp, 16, 0x0016);		/* a response of another attribute */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 0);
}

/* Only a SubnSet of PortInfo is snooped: not a Get, not another attribute or class. */
static void snoop_only_subnset_portinfo(struct kunit *test)
{
	struct snoop_ctx s = { .sm = { .lid = 0, .sl = 0 } };

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	((u8 *)&s.req)[3] = 0x01;			/* SubnGet(PortInfo) */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	put16((u8 *)&s.req, 16, 0x0016);		/* SubnSet(P_KeyTable) */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));

	snoop_set(&s, 0x81, 1, 0x0001, 0);
	((u8 *)&s.req)[1] = 0x04;			/* a PMA Set */
	KUNIT_EXPECT_FALSE(test, cxib_mad_snoop_sm(&s.req, &s.resp, 1, &s.sm));
	KUNIT_EXPECT_EQ(test, s.sm.lid, 0);
}

static struct kunit_case cxib_mad_cases[] = {
	KUNIT_CASE_PARAM(mad_route_decision, mad_route_gen_params),
	KUNIT_CASE(snoop_sm_lid_change),
	KUNIT_CASE(snoop_sm_sl_change),
	KUNIT_CASE(snoop_reads_the_response),
	KUNIT_CASE(snoop_port_of_the_modifier),
	KUNIT_CASE(snoop_only_applied_sets),
	KUNIT_CASE(snoop_only_subnset_portinfo),
	{}
};

static struct kunit_suite cxib_mad_suite = {
	.name = "cxib_mad",
	.test_cases = cxib_mad_cases,
};

kunit_test_suite(cxib_mad_suite);
