// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the general device capabilities (fw.c; PRM §4.1 step 10, §4.4): what the
 * driver reads from a cmd_hca_cap and what it writes back with SET_HCA_CAP.
 *
 * Capability structures are built byte by byte at the PRM's offsets, written here by hand,
 * so the field definitions of include/cxib/cmd.h are checked along with the parsing.
 */

#include <kunit/test.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/* Set the bits @mask of byte @byte of a capability structure to @val (pre-shifted). */
static void cap_put(struct cxib_hca_cap *cap, unsigned int byte, u8 mask, u8 val)
{
	u8 *b = (u8 *)cap;

	b[byte] = (b[byte] & ~mask) | (val & mask);
}

static void cap_put16(struct cxib_hca_cap *cap, unsigned int byte, u16 val)
{
	cap_put(cap, byte, 0xff, val >> 8);
	cap_put(cap, byte + 1, 0xff, val & 0xff);
}

/* A capability structure like an IB-only ConnectX-4 function's, from the PRM offsets. */
static void cap_example(struct cxib_hca_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap_put(cap, 0, 0x02, 0x02);		/* page_request_disable, dw0[25] */
	cap_put(cap, 16, 0xff, 15);		/* log_max_srq_sz, dw4[31:24] */
	cap_put(cap, 17, 0xff, 14);		/* log_max_qp_sz, dw4[23:16] */
	cap_put(cap, 19, 0x1f, 17);		/* log_max_qp, dw4[4:0] */
	cap_put(cap, 21, 0x1f, 11);		/* log_max_srq, dw5[20:16] */
	cap_put(cap, 25, 0xff, 22);		/* log_max_cq_sz, dw6[23:16] */
	cap_put(cap, 27, 0x1f, 13);		/* log_max_cq, dw6[4:0] */
	cap_put(cap, 28, 0xff, 13);		/* log_max_eq_sz, dw7[31:24] */
	cap_put(cap, 29, 0x3f, 21);		/* log_max_mkey, dw7[21:16] */
	cap_put(cap, 31, 0x0f, 5);		/* log_max_eq, dw7[3:0] */
	cap_put(cap, 33, 0x7f, 48);		/* log_max_mrw_sz, dw8[22:16] */
	cap_put(cap, 35, 0x3f, 16);		/* log_max_klm_list_size, dw8[5:0] */
	cap_put(cap, 41, 0x3f, 3);		/* log_max_ra_req_qp, dw10[21:16] */
	cap_put(cap, 43, 0x3f, 4);		/* log_max_ra_res_qp, dw10[5:0] */
	cap_put16(cap, 46, 1);			/* gid_table_size, dw11[15:0] */
	cap_put16(cap, 50, 2);			/* pkey_table_size, dw12[15:0] */
	cap_put(cap, 52, 0x20, 0x20);		/* ib_virt, dw13[29] */
	cap_put(cap, 53, 0x1f, 16);		/* local_ca_ack_delay, dw13[20:16] */
	cap_put(cap, 54, 0x03, 0);		/* port_type IB, dw13[9:8] */
	cap_put(cap, 55, 0xff, 1);		/* num_ports, dw13[7:0] */
	cap_put(cap, 56, 0x1f, 30);		/* log_max_msg, dw14[28:24] */
	cap_put(cap, 63, 0x0f, 1);		/* cqe_version, dw15[3:0] */
	cap_put(cap, 66, 0xc0, 0xc0);		/* cmdif_checksum 3, dw16[15:14] */
	cap_put(cap, 67, 0x02, 0x02);		/* atomic, dw16[1] */
	cap_put(cap, 71, 0x0f, 0x0f);		/* xrc, ud, uc, rc: dw17[3:0] */
	cap_put(cap, 75, 0xff, 12);		/* log_pg_sz, dw18[7:0] */
	cap_put(cap, 76, 0x80, 0x80);		/* bf, dw19[31] */
	cap_put(cap, 77, 0x1f, 9);		/* log_bf_reg_size, dw19[20:16] */
	cap_put16(cap, 82, 1024);		/* max_wqe_sz_sq, dw20[15:0] */
	cap_put16(cap, 86, 512);		/* max_wqe_sz_rq, dw21[15:0] */
	cap_put(cap, 95, 0xff, 240);		/* max_qp_mcg, dw23[24:0] */
	cap_put(cap, 99, 0xff, 12);		/* log_max_mcg, dw24[7:0] */
	cap_put(cap, 101, 0x1f, 18);		/* log_max_pd, dw25[20:16] */
	cap_put(cap, 103, 0x1f, 8);		/* log_max_xrcd, dw25[4:0] */
	cap_put16(cap, 142, 9);			/* max_num_eqs, dw35[15:0] */
}

/* Every field the driver uses comes from the PRM's place for it. */
static void parse_reads_prm_offsets(struct kunit *test)
{
	struct cxib_hca_cap cap;
	struct cxib_caps caps;

	cap_example(&cap);
	cxib_caps_parse(&caps, &cap);
	KUNIT_EXPECT_TRUE(test, caps.page_request_disable);
	KUNIT_EXPECT_EQ(test, caps.log_max_srq_sz, 15);
	KUNIT_EXPECT_EQ(test, caps.log_max_qp_sz, 14);
	KUNIT_EXPECT_EQ(test, caps.log_max_qp, 17);
	KUNIT_EXPECT_EQ(test, caps.log_max_srq, 11);
	KUNIT_EXPECT_EQ(test, caps.log_max_cq_sz, 22);
	KUNIT_EXPECT_EQ(test, caps.log_max_cq, 13);
	KUNIT_EXPECT_EQ(test, caps.log_max_eq_sz, 13);
	KUNIT_EXPECT_EQ(test, caps.log_max_mkey, 21);
	KUNIT_EXPECT_EQ(test, caps.log_max_eq, 5);
	KUNIT_EXPECT_EQ(test, caps.log_max_mrw_sz, 48);
	KUNIT_EXPECT_EQ(test, caps.log_max_klm_list_size, 16);
	KUNIT_EXPECT_EQ(test, caps.log_max_ra_req_qp, 3);
	KUNIT_EXPECT_EQ(test, caps.log_max_ra_res_qp, 4);
	KUNIT_EXPECT_EQ(test, caps.gid_table_size, 1);
	KUNIT_EXPECT_EQ(test, caps.pkey_table_size, 2);
	KUNIT_EXPECT_TRUE(test, caps.ib_virt);
	KUNIT_EXPECT_EQ(test, caps.local_ca_ack_delay, 16);
	KUNIT_EXPECT_EQ(test, caps.port_type, CXIB_CAP_PORT_TYPE_IB);
	KUNIT_EXPECT_EQ(test, caps.num_ports, 1);
	KUNIT_EXPECT_EQ(test, caps.log_max_msg, 30);
	KUNIT_EXPECT_EQ(test, caps.cqe_version, 1);
	KUNIT_EXPECT_TRUE(test, caps.atomic);
	KUNIT_EXPECT_TRUE(test, caps.xrc && caps.ud && caps.uc && caps.rc);
	KUNIT_EXPECT_EQ(test, caps.log_pg_sz, 12);
	KUNIT_EXPECT_TRUE(test, caps.bf);
	KUNIT_EXPECT_EQ(test, caps.log_bf_reg_size, 9);
	KUNIT_EXPECT_EQ(test, caps.max_wqe_sz_sq, 1024);
	KUNIT_EXPECT_EQ(test, caps.max_wqe_sz_rq, 512);
	KUNIT_EXPECT_EQ(test, caps.max_qp_mcg, 240);
	KUNIT_EXPECT_EQ(test, caps.log_max_mcg, 12);
	KUNIT_EXPECT_EQ(test, caps.log_max_pd, 18);
	KUNIT_EXPECT_EQ(test, caps.log_max_xrcd, 8);
	KUNIT_EXPECT_EQ(test, caps.max_num_eqs, 9);
	/* ConnectX-4 and later: UMR may change a key's page size (fast registration) */
	KUNIT_EXPECT_FALSE(test, caps.umr_fixed_entity_size);
	cap_put(&cap, 64, 0x01, 0x01);		/* umr_modify_entity_size_disabled, dw16[24] */
	cxib_caps_parse(&caps, &cap);
	KUNIT_EXPECT_TRUE(test, caps.umr_fixed_entity_size);
}

/* Fields are bounded by their width: all-ones gives each field's largest value. */
static void parse_all_ones_stays_in_fields(struct kunit *test)
{
	struct cxib_hca_cap cap;
	struct cxib_caps caps;

	memset(&cap, 0xff, sizeof(cap));
	cxib_caps_parse(&caps, &cap);
	KUNIT_EXPECT_EQ(test, caps.log_max_qp, 31);
	KUNIT_EXPECT_EQ(test, caps.log_max_eq, 15);
	KUNIT_EXPECT_EQ(test, caps.port_type, 3);
	KUNIT_EXPECT_EQ(test, caps.num_ports, 255);
	KUNIT_EXPECT_EQ(test, caps.log_max_mkey, 63);
	KUNIT_EXPECT_EQ(test, caps.cqe_version, 15);
	KUNIT_EXPECT_EQ(test, caps.max_qp_mcg, 0x1ffffff);
	KUNIT_EXPECT_EQ(test, caps.max_wqe_sz_sq, 0xffff);
}

/*
 * SET_HCA_CAP writes the current capabilities back with only the profile's fields
 * changed: a 128-entry P_Key table, log_max_qp min(18, max), no command checksums,
 * UAR pages of the system page size.
 */
static void prepare_set_rewrites_only_profile(struct kunit *test)
{
	struct cxib_hca_cap cur, max, set, expect;
	unsigned int i;

	for (i = 0; i < sizeof(cur); i++)
		((u8 *)&cur)[i] = (u8)(i * 29 + 5);
	cap_example(&max);
	cap_put(&max, 19, 0x1f, 20);		/* max log_max_qp 20 */
	cap_put(&cur, 72, 0x80, 0x80);		/* current uar_4k set ... */
	cap_put(&max, 72, 0x80, 0);		/* ... which the max does not allow */
	cap_put(&max, 63, 0x0f, 2);		/* a device with CQE versions up to 2 */

	cxib_caps_prepare_set(&set, &cur, &max);

	KUNIT_EXPECT_EQ(test, ((u8 *)&set)[50] << 8 | ((u8 *)&set)[51], 0);	/* pkeys */
	KUNIT_EXPECT_EQ(test, ((u8 *)&set)[19] & 0x1f, 18);			/* log_max_qp */
	KUNIT_EXPECT_EQ(test, ((u8 *)&set)[66] & 0xc0, 0);			/* checksum */
	KUNIT_EXPECT_EQ(test, ((u8 *)&set)[146] << 8 | ((u8 *)&set)[147],
			PAGE_SHIFT - 12);					/* uar page */
	if (PAGE_SIZE == 4096)
		KUNIT_EXPECT_EQ(test, ((u8 *)&set)[72] & 0x80, 0);		/* uar_4k */
	/* cqe_version */
	KUNIT_EXPECT_EQ(test, ((u8 *)&set)[63] & 0x0f,
			min_t(u8, CXIB_CQE_VERSION_1, ((u8 *)&max)[63] & 0x0f));

	/* Everything else is the current value. */
	expect = set;
	memcpy((u8 *)&expect + 50, (u8 *)&cur + 50, 2);
	cap_put(&expect, 19, 0x1f, ((u8 *)&cur)[19]);
	cap_put(&expect, 66, 0xc0, ((u8 *)&cur)[66]);
	memcpy((u8 *)&expect + 146, (u8 *)&cur + 146, 2);
	cap_put(&expect, 72, 0x80, ((u8 *)&cur)[72]);
	cap_put(&expect, 63, 0x0f, ((u8 *)&cur)[63]);
	KUNIT_EXPECT_EQ(test, memcmp(&expect, &cur, sizeof(cur)), 0);
}

/* A device that allows fewer QPs than the profile keeps its own maximum. */
static void prepare_set_keeps_smaller_max_qp(struct kunit *test)
{
	struct cxib_hca_cap cur, max, set;

	cap_example(&cur);
	cap_example(&max);
	cap_put(&max, 19, 0x1f, 12);
	cxib_caps_prepare_set(&set, &cur, &max);
	KUNIT_EXPECT_EQ(test, ((u8 *)&set)[19] & 0x1f, 12);
}

/* The EQ count is max_num_eqs when reported, else 2^log_max_eq. */
static void max_eqs_from_either_field(struct kunit *test)
{
	struct cxib_caps caps = { .log_max_eq = 4 };

	KUNIT_EXPECT_EQ(test, cxib_caps_max_eqs(&caps), 16);
	caps.max_num_eqs = 9;
	KUNIT_EXPECT_EQ(test, cxib_caps_max_eqs(&caps), 9);
}

/* pkey_table_size n means 128 << n P_Keys. */
static void pkey_table_length(struct kunit *test)
{
	struct cxib_caps caps = {};

	KUNIT_EXPECT_EQ(test, cxib_caps_pkey_table_len(&caps), 128);
	caps.pkey_table_size = 1;
	KUNIT_EXPECT_EQ(test, cxib_caps_pkey_table_len(&caps), 256);
	caps.pkey_table_size = 4;
	KUNIT_EXPECT_EQ(test, cxib_caps_pkey_table_len(&caps), 2048);
}

static struct kunit_case cxib_caps_cases[] = {
	KUNIT_CASE(parse_reads_prm_offsets),
	KUNIT_CASE(parse_all_ones_stays_in_fields),
	KUNIT_CASE(prepare_set_rewrites_only_profile),
	KUNIT_CASE(prepare_set_keeps_smaller_max_qp),
	KUNIT_CASE(max_eqs_from_either_field),
	KUNIT_CASE(pkey_table_length),
	{}
};

static struct kunit_suite cxib_caps_suite = {
	.name = "cxib_caps",
	.test_cases = cxib_caps_cases,
};

kunit_test_suite(cxib_caps_suite);
