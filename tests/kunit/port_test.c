// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: what the driver makes of the firmware's subnet management agent and of port
 * events (mad.c, eq.c; PRM §5.8, §4.5): the SubnGet it sends, how it judges the answer,
 * PortInfo as IB port attributes, P_Key and GUID table blocks, and the IB event each port
 * change sub type becomes.
 *
 * MADs and attributes are built byte by byte at the IBTA offsets, written here by hand.
 */

#include <kunit/test.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "cxib_kunit.h"

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

/* A LID-routed SubnGet: version 1, class 0x01, method Get, attribute and modifier. */
static void subn_get_layout(struct kunit *test)
{
	struct cxib_smp smp;
	const u8 *b = (const u8 *)&smp;
	unsigned int i;

	memset(&smp, 0xa5, sizeof(smp));
	cxib_mad_build_subn_get(&smp, CXIB_SMP_ATTR_PORT_INFO, 0x01020304);
	KUNIT_EXPECT_EQ(test, b[0], 1);		/* BaseVersion */
	KUNIT_EXPECT_EQ(test, b[1], 0x01);	/* MgmtClass: SubnMgt LID routed */
	KUNIT_EXPECT_EQ(test, b[2], 1);		/* ClassVersion */
	KUNIT_EXPECT_EQ(test, b[3], 0x01);	/* Method: Get */
	KUNIT_EXPECT_EQ(test, b[16] << 8 | b[17], 0x0015);	/* AttributeID */
	KUNIT_EXPECT_EQ(test, b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23], 0x01020304);
	for (i = 4; i < 16; i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "MAD byte %u", i);
	for (i = 24; i < sizeof(smp); i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "MAD byte %u", i);
}

static void make_resp(struct cxib_smp *smp, u8 method, u16 status, u16 attr)
{
	u8 *b = (u8 *)smp;

	memset(smp, 0, sizeof(*smp));
	b[0] = 1;
	b[1] = 0x01;
	b[2] = 1;
	b[3] = method;
	put16(b, 4, status);
	put16(b, 16, attr);
}

/* Only a successful GetResp of the attribute asked for is an answer. */
static void response_judged_by_method_status_attr(struct kunit *test)
{
	struct cxib_smp smp;

	make_resp(&smp, 0x81, 0x0000, 0x0011);
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0x0011), 0);
	make_resp(&smp, 0x81, 0x8000, 0x0011);		/* direction bit only */
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0x0011), 0);
	make_resp(&smp, 0x81, 0x000c, 0xff90);		/* unsupported attribute */
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0xff90), -EOPNOTSUPP);
	make_resp(&smp, 0x81, 0x0008, 0x0011);		/* unsupported method */
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0x0011), -EOPNOTSUPP);
	make_resp(&smp, 0x81, 0x001c, 0x0016);		/* invalid attribute value */
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0x0016), -EINVAL);
	make_resp(&smp, 0x01, 0x0000, 0x0011);		/* our own Get echoed */
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0x0011), -EPROTO);
	make_resp(&smp, 0x81, 0x0000, 0x0015);		/* another attribute */
	KUNIT_EXPECT_EQ(test, cxib_mad_check_response(&smp, 0x0011), -EPROTO);
}

/* A PortInfo like an active 4X QDR port's, at the IBTA byte offsets. */
static void port_info_example(u8 *pi)
{
	memset(pi, 0, CXIB_SMP_DATA_SIZE);
	put32(pi, 8, 0xfe800000);		/* GidPrefix, bytes 8-15 */
	put16(pi, 16, 0x0017);			/* LID */
	put16(pi, 18, 0x0001);			/* MasterSMLID */
	put32(pi, 20, 0x0251084a);		/* CapabilityMask: no CapMask2/ext speeds */
	pi[31] = 0x02;				/* LinkWidthActive 4X */
	pi[32] = 0x24;				/* LinkSpeedSupported 2, PortState ACTIVE (4) */
	pi[33] = 0x52;				/* PortPhysicalState LinkUp (5) */
	pi[34] = 0x03;				/* LMC 3 */
	pi[35] = 0x47;				/* LinkSpeedActive QDR (4) */
	pi[36] = 0x52;				/* NeighborMTU 4096 (5), MasterSMSL 2 */
	pi[37] = 0x40;				/* VLCap VL0-7 (4) */
	pi[41] = 0x34;				/* InitTypeReply 3, MTUCap 2048 (4) */
	put16(pi, 46, 0x0102);			/* P_KeyViolations */
	put16(pi, 48, 0x0304);			/* Q_KeyViolations */
	pi[50] = 8;				/* GUIDCap */
	pi[51] = 0x12;				/* SubnetTimeOut 18 */
}

static void port_info_to_attr(struct kunit *test)
{
	u8 pi[CXIB_SMP_DATA_SIZE];
	struct ib_port_attr attr = {};

	port_info_example(pi);
	cxib_mad_port_info_to_attr(pi, &attr);
	KUNIT_EXPECT_EQ(test, attr.lid, 0x17);
	KUNIT_EXPECT_EQ(test, attr.sm_lid, 1);
	KUNIT_EXPECT_EQ(test, attr.port_cap_flags, 0x0251084a);
	KUNIT_EXPECT_EQ(test, attr.port_cap_flags2, 0);
	KUNIT_EXPECT_EQ(test, attr.active_width, IB_WIDTH_4X);
	KUNIT_EXPECT_EQ(test, attr.state, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, attr.phys_state, IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, attr.lmc, 3);
	KUNIT_EXPECT_EQ(test, attr.active_speed, IB_SPEED_QDR);
	KUNIT_EXPECT_EQ(test, attr.active_mtu, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, attr.sm_sl, 2);
	KUNIT_EXPECT_EQ(test, attr.max_vl_num, 4);
	KUNIT_EXPECT_EQ(test, attr.init_type_reply, 3);
	KUNIT_EXPECT_EQ(test, attr.max_mtu, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, attr.bad_pkey_cntr, 0x0102);
	KUNIT_EXPECT_EQ(test, attr.qkey_viol_cntr, 0x0304);
	KUNIT_EXPECT_EQ(test, attr.gid_tbl_len, 8);
	KUNIT_EXPECT_EQ(test, attr.subnet_timeout, 18);
}

/* Extended speeds count only when the CapabilityMask says the port has them. */
static void port_info_extended_speed(struct kunit *test)
{
	u8 pi[CXIB_SMP_DATA_SIZE];
	struct ib_port_attr attr = {};

	port_info_example(pi);
	pi[62] = 0x20;				/* LinkSpeedExtActive EDR (2) */
	cxib_mad_port_info_to_attr(pi, &attr);
	KUNIT_EXPECT_EQ(test, attr.active_speed, IB_SPEED_QDR);

	put32(pi, 20, 0x0251084a | BIT(14) | BIT(15));	/* IsExtendedSpeeds, CapMask2 */
	put16(pi, 60, 0x0044);			/* CapabilityMask2 */
	cxib_mad_port_info_to_attr(pi, &attr);
	KUNIT_EXPECT_EQ(test, attr.active_speed, IB_SPEED_EDR);
	KUNIT_EXPECT_EQ(test, attr.port_cap_flags2, 0x0044);

	pi[62] = 0x80;				/* NDR */
	cxib_mad_port_info_to_attr(pi, &attr);
	KUNIT_EXPECT_EQ(test, attr.active_speed, IB_SPEED_NDR);

	pi[62] = 0;				/* no extended speed active */
	pi[35] = 0x17;				/* SDR */
	cxib_mad_port_info_to_attr(pi, &attr);
	KUNIT_EXPECT_EQ(test, attr.active_speed, IB_SPEED_SDR);
}

/* P_Key i of a block is the big-endian 16 bits at byte 2i. */
static void pkey_block_entries(struct kunit *test)
{
	u8 blk[CXIB_SMP_DATA_SIZE];
	unsigned int i;

	for (i = 0; i < 32; i++)
		put16(blk, 2 * i, 0x8000 | (i * 0x101));
	put16(blk, 0, 0xffff);
	KUNIT_EXPECT_EQ(test, cxib_mad_pkey_from_table(blk, 0), 0xffff);
	for (i = 1; i < 32; i++)
		KUNIT_EXPECT_EQ_MSG(test, cxib_mad_pkey_from_table(blk, i), 0x8000 | (i * 0x101),
				    "P_Key %u", i);
}

/* GUID i of a GUIDInfo block is the 8 bytes at byte 8i, kept big-endian. */
static void guid_block_entries(struct kunit *test)
{
	u8 blk[CXIB_SMP_DATA_SIZE];
	unsigned int i;

	for (i = 0; i < sizeof(blk); i++)
		blk[i] = (u8)(0x10 + i);
	for (i = 0; i < 8; i++) {
		__be64 guid = cxib_mad_guid_from_info(blk, i);

		KUNIT_EXPECT_EQ_MSG(test, memcmp(&guid, blk + 8 * i, 8), 0, "GUID %u", i);
	}
}

/* Port change sub types (PRM §4.5) and the IB events they become. */
static void port_change_to_ib_event(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(4), IB_EVENT_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(1), IB_EVENT_PORT_ERR);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(5), IB_EVENT_PORT_ERR);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(6), IB_EVENT_LID_CHANGE);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(7), IB_EVENT_PKEY_CHANGE);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(8), IB_EVENT_GID_CHANGE);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(9), IB_EVENT_CLIENT_REREGISTER);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(0), -1);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(2), -1);
	KUNIT_EXPECT_EQ(test, cxib_port_event_type(0xff), -1);
}

static struct kunit_case cxib_port_cases[] = {
	KUNIT_CASE(subn_get_layout),
	KUNIT_CASE(response_judged_by_method_status_attr),
	KUNIT_CASE(port_info_to_attr),
	KUNIT_CASE(port_info_extended_speed),
	KUNIT_CASE(pkey_block_entries),
	KUNIT_CASE(guid_block_entries),
	KUNIT_CASE(port_change_to_ib_event),
	{}
};

static struct kunit_suite cxib_port_suite = {
	.name = "cxib_port",
	.test_cases = cxib_port_cases,
};

kunit_test_suite(cxib_port_suite);
