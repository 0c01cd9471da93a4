// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the field accessors of include/cxib/bits.h over every field of the
 * initialization segment in include/cxib/hw.h.
 *
 * Each field's place is written down here a second time, by hand, as the PRM gives it
 * (byte offset of its dword and mask within the dword; PRM §1.3), and checked against
 * the header's "dword, high bit, low bit" definition.  Then CXIB_SET, CXIB_GET,
 * CXIB_FIELD_PREP and CXIB_FIELD_GET are run over each field's geometry and their
 * results compared with big-endian bytes assembled by hand.
 */

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/* Bytes of BAR0 that hold every field below: up to and including the health counter. */
#define ISEG_TEST_BYTES		0x1014

struct iseg_field {
	const char *name;
	/* The header's definition, expanded from the field macro. */
	struct {
		unsigned int dw, hi, lo;
	} def;
	/* The PRM's, by hand. */
	unsigned int offset;
	u32 mask;
};

#define ISEG_FIELD(field, prm_offset, prm_mask) {				\
	.name = #field, .def = { field },					\
	.offset = (prm_offset), .mask = (prm_mask),				\
}

static const struct iseg_field iseg_fields[] = {
	ISEG_FIELD(CXIB_ISEG_FW_REV_MINOR,		0x000, 0xffff0000),
	ISEG_FIELD(CXIB_ISEG_FW_REV_MAJOR,		0x000, 0x0000ffff),
	ISEG_FIELD(CXIB_ISEG_CMDIF_REV,			0x004, 0xffff0000),
	ISEG_FIELD(CXIB_ISEG_FW_REV_SUBMINOR,		0x004, 0x0000ffff),
	ISEG_FIELD(CXIB_ISEG_CMDQ_ADDR_H,		0x010, 0xffffffff),
	ISEG_FIELD(CXIB_ISEG_CMDQ_ADDR_L,		0x014, 0xfffff000),
	ISEG_FIELD(CXIB_ISEG_NIC_INTERFACE,		0x014, 0x00000700),
	ISEG_FIELD(CXIB_ISEG_LOG_CMDQ_SIZE,		0x014, 0x000000f0),
	ISEG_FIELD(CXIB_ISEG_LOG_CMDQ_STRIDE,		0x014, 0x0000000f),
	ISEG_FIELD(CXIB_ISEG_CMD_DBELL,			0x018, 0xffffffff),
	ISEG_FIELD(CXIB_ISEG_INITIALIZING,		0x1fc, 0x80000000),
	ISEG_FIELD(CXIB_ISEG_FW_RESET_SUPPORTED,	0x1fc, 0x40000000),
	ISEG_FIELD(CXIB_ISEG_NIC_IF_SUPPORTED,		0x1fc, 0x07000000),
	ISEG_FIELD(CXIB_ISEG_EMBEDDED_CPU,		0x1fc, 0x00800000),
	/* Health buffer at 0x200. */
	ISEG_FIELD(CXIB_HEALTH_ASSERT_VAR0,		0x200, 0xffffffff),
	ISEG_FIELD(CXIB_HEALTH_ASSERT_EXIT_PTR,		0x220, 0xffffffff),
	ISEG_FIELD(CXIB_HEALTH_ASSERT_CALLRA,		0x224, 0xffffffff),
	ISEG_FIELD(CXIB_HEALTH_TIME,			0x22c, 0xffffffff),
	ISEG_FIELD(CXIB_HEALTH_FW_VER,			0x230, 0xffffffff),
	ISEG_FIELD(CXIB_HEALTH_HW_ID,			0x234, 0xffffffff),
	/* rfr_severity byte at 0x238: bit 7 RFR, bit 6 CRR; valid and severity below. */
	ISEG_FIELD(CXIB_HEALTH_RFR,			0x238, 0x80000000),
	ISEG_FIELD(CXIB_HEALTH_CRR,			0x238, 0x40000000),
	ISEG_FIELD(CXIB_HEALTH_VALID,			0x238, 0x08000000),
	ISEG_FIELD(CXIB_HEALTH_SEVERITY,		0x238, 0x07000000),
	/* irisc_index byte 0x23c, synd byte 0x23d, ext_synd bytes 0x23e-0x23f. */
	ISEG_FIELD(CXIB_HEALTH_IRISC_INDEX,		0x23c, 0xff000000),
	ISEG_FIELD(CXIB_HEALTH_SYND,			0x23c, 0x00ff0000),
	ISEG_FIELD(CXIB_HEALTH_EXT_SYND,		0x23c, 0x0000ffff),
	/* Timeouts. */
	ISEG_FIELD(CXIB_ISEG_CMD_EXEC_TO,		0xff8, 0xffffffff),
	ISEG_FIELD(CXIB_ISEG_CMD_Q_INIT_TO,		0xffc, 0xffffffff),
	/* Timers and the health counter. */
	ISEG_FIELD(CXIB_ISEG_INTERNAL_TIMER_H,		0x1000, 0xffffffff),
	ISEG_FIELD(CXIB_ISEG_INTERNAL_TIMER_L,		0x1004, 0xffffffff),
	ISEG_FIELD(CXIB_ISEG_CLEAR_INT,			0x100c, 0x00000001),
	ISEG_FIELD(CXIB_ISEG_HEALTH_SYNDROME,		0x1010, 0xff000000),
	ISEG_FIELD(CXIB_ISEG_HEALTH_COUNTER,		0x1010, 0x00ffffff),
	/* The two parts of a timeout word (0xff8, 0xffc), as fields of that one dword. */
	ISEG_FIELD(CXIB_TO_UNIT,			0x000, 0xe0000000),
	ISEG_FIELD(CXIB_TO_VALUE,			0x000, 0x000fffff),
};

KUNIT_ARRAY_PARAM_DESC(iseg_fields, iseg_fields, name);

/* The field's lowest bit and its largest value, from the hand-written mask. */
static unsigned int field_lo(const struct iseg_field *f)
{
	return __ffs(f->mask);
}

static u32 field_max(const struct iseg_field *f)
{
	return f->mask >> field_lo(f);
}

/* Store @v big-endian at byte @offset of @buf, one byte at a time. */
static void put_be32_bytes(u8 *buf, unsigned int offset, u32 v)
{
	buf[offset + 0] = v >> 24;
	buf[offset + 1] = v >> 16;
	buf[offset + 2] = v >> 8;
	buf[offset + 3] = v;
}

static u32 get_be32_bytes(const u8 *buf, unsigned int offset)
{
	return (u32)buf[offset] << 24 | (u32)buf[offset + 1] << 16 |
	       (u32)buf[offset + 2] << 8 | buf[offset + 3];
}

/* The header puts the field where the PRM does. */
static void iseg_field_matches_prm(struct kunit *test)
{
	const struct iseg_field *f = test->param_value;

	KUNIT_EXPECT_EQ(test, 4 * f->def.dw, f->offset);
	KUNIT_EXPECT_EQ(test, CXIB_OFFSET(f->def.dw, f->def.hi, f->def.lo), f->offset);
	KUNIT_EXPECT_EQ(test, CXIB_DW(f->def.dw, f->def.hi, f->def.lo), f->offset / 4);
	KUNIT_EXPECT_EQ(test, CXIB_FMASK(f->def.dw, f->def.hi, f->def.lo), f->mask);
	KUNIT_EXPECT_EQ(test, f->def.lo, field_lo(f));
	KUNIT_EXPECT_EQ(test, f->def.hi, (unsigned int)__fls(f->mask));
}

/*
 * CXIB_SET writes the value's bits at the PRM's bytes, big-endian, and nothing else;
 * CXIB_GET reads it back.  Over a buffer of zeros and one of ones, for values that set
 * every bit of the field, none, and alternating ones.
 */
static void iseg_field_set_get_round_trip(struct kunit *test)
{
	const struct iseg_field *f = test->param_value;
	unsigned int dw = f->def.dw, hi = f->def.hi, lo = f->def.lo;
	const u32 max = field_max(f);
	const u32 values[] = { 0, 1, max, max - 1, 0x55555555 & max, 0xaaaaaaaa & max };
	static const u8 fills[] = { 0x00, 0xff };
	u8 *buf, *want;
	unsigned int i, j;
	u32 old;

	buf = kunit_kmalloc(test, ISEG_TEST_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	want = kunit_kmalloc(test, ISEG_TEST_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);

	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		for (j = 0; j < ARRAY_SIZE(values); j++) {
			memset(buf, fills[i], ISEG_TEST_BYTES);
			memset(want, fills[i], ISEG_TEST_BYTES);
			old = get_be32_bytes(want, f->offset);
			put_be32_bytes(want, f->offset,
				       (old & ~f->mask) | (values[j] << field_lo(f)));

			CXIB_SET(buf, dw, hi, lo, values[j]);
			KUNIT_EXPECT_MEMEQ_MSG(test, buf, want, ISEG_TEST_BYTES,
					       "fill 0x%02x, value 0x%x", fills[i], values[j]);
			KUNIT_EXPECT_EQ_MSG(test, CXIB_GET(buf, dw, hi, lo), values[j],
					    "fill 0x%02x", fills[i]);
		}
	}
}

/*
 * CXIB_FIELD_PREP places a value in a host-order dword and drops bits that do not fit;
 * CXIB_FIELD_GET takes it out again and ignores the other bits.
 */
static void iseg_field_prep_get(struct kunit *test)
{
	const struct iseg_field *f = test->param_value;
	const unsigned int hi = f->def.hi, lo = f->def.lo;
	const u32 max = field_max(f);
	const u32 values[] = { 0, 1, max, 0x5a5a5a5a & max };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		const u32 v = values[i], placed = v << field_lo(f);

		KUNIT_EXPECT_EQ(test, CXIB_FIELD_PREP(f->def.dw, hi, lo, v), placed);
		KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(f->def.dw, hi, lo, placed), v);
		KUNIT_EXPECT_EQ(test, CXIB_FIELD_GET(f->def.dw, hi, lo, placed | ~f->mask), v);
	}
	/* One more than the largest value does not fit (unless the field is 32 bits). */
	if (max != U32_MAX) {
		KUNIT_EXPECT_EQ(test, CXIB_FIELD_PREP(f->def.dw, hi, lo, max + 1), 0);
		KUNIT_EXPECT_EQ(test, CXIB_FIELD_PREP(f->def.dw, hi, lo, U32_MAX), f->mask);
	}
}

/* Fields of one dword of the segment do not overlap. */
static void iseg_fields_do_not_overlap(struct kunit *test)
{
	const unsigned int n = ARRAY_SIZE(iseg_fields) - 2;	/* without CXIB_TO_* */
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			const struct iseg_field *a = &iseg_fields[i], *b = &iseg_fields[j];

			if (a->def.dw != b->def.dw)
				continue;
			KUNIT_EXPECT_EQ_MSG(test, CXIB_FMASK(a->def.dw, a->def.hi, a->def.lo) &
					    CXIB_FMASK(b->def.dw, b->def.hi, b->def.lo), 0,
					    "%s and %s overlap", a->name, b->name);
		}
	}
}

/*
 * The field macros used by name, as the driver and the model do, put values on the PRM's
 * bytes: a few values a reader of the PRM would expect to see in a dump of BAR0.
 */
static void iseg_named_fields_land_on_prm_bytes(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, ISEG_TEST_BYTES, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);

	CXIB_SET(buf, CXIB_ISEG_CMDIF_REV, CXIB_CMDIF_REV);
	KUNIT_EXPECT_EQ(test, buf[0x004], 0x00);
	KUNIT_EXPECT_EQ(test, buf[0x005], 0x05);

	CXIB_SET(buf, CXIB_ISEG_FW_REV_MAJOR, 0x0e);
	CXIB_SET(buf, CXIB_ISEG_FW_REV_MINOR, 0x1a2b);
	KUNIT_EXPECT_EQ(test, get_be32_bytes(buf, 0x000), 0x1a2b000e);

	CXIB_SET(buf, CXIB_ISEG_CMDQ_ADDR_L, 0x12345);	/* address 0x12345000 */
	CXIB_SET(buf, CXIB_ISEG_NIC_INTERFACE, CXIB_NIC_IF_SW_RESET);
	CXIB_SET(buf, CXIB_ISEG_LOG_CMDQ_SIZE, 5);
	CXIB_SET(buf, CXIB_ISEG_LOG_CMDQ_STRIDE, 6);
	KUNIT_EXPECT_EQ(test, get_be32_bytes(buf, 0x014), 0x12345756);

	CXIB_SET(buf, CXIB_ISEG_CMD_DBELL, 1u << 31);
	KUNIT_EXPECT_EQ(test, buf[0x018], 0x80);

	CXIB_SET(buf, CXIB_ISEG_INITIALIZING, 1);
	KUNIT_EXPECT_EQ(test, buf[0x1fc], 0x80);
	CXIB_SET(buf, CXIB_ISEG_EMBEDDED_CPU, 1);
	KUNIT_EXPECT_EQ(test, buf[0x1fd], 0x80);

	CXIB_SET(buf, CXIB_HEALTH_RFR, 1);
	CXIB_SET(buf, CXIB_HEALTH_SEVERITY, 2);
	KUNIT_EXPECT_EQ(test, buf[0x238], 0x82);
	CXIB_SET(buf, CXIB_HEALTH_SYND, 0xab);
	KUNIT_EXPECT_EQ(test, buf[0x23d], 0xab);

	CXIB_SET(buf, CXIB_ISEG_HEALTH_COUNTER, 0x123456);
	KUNIT_EXPECT_EQ(test, get_be32_bytes(buf, 0x1010), 0x00123456);
	KUNIT_EXPECT_EQ(test, CXIB_GET(buf, CXIB_ISEG_HEALTH_SYNDROME), 0);

	/* The registers the driver maps cover everything it reads. */
	KUNIT_EXPECT_LE(test, CXIB_OFFSET(CXIB_ISEG_HEALTH_COUNTER) + 4, CXIB_ISEG_SIZE);
	KUNIT_EXPECT_EQ(test, CXIB_OFFSET(CXIB_HEALTH_ASSERT_VAR0) +
			4 * CXIB_HEALTH_NUM_ASSERT_VARS, 0x218);
}

/* CXIB_MASK at the edges of a dword. */
static void cxib_mask_edges(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, CXIB_MASK(31, 0), 0xffffffff);
	KUNIT_EXPECT_EQ(test, CXIB_MASK(0, 0), 0x00000001);
	KUNIT_EXPECT_EQ(test, CXIB_MASK(31, 31), 0x80000000);
	KUNIT_EXPECT_EQ(test, CXIB_MASK(15, 8), 0x0000ff00);
	KUNIT_EXPECT_EQ(test, CXIB_MASK(30, 1), 0x7ffffffe);
}

/* The header's own byte-order helpers agree with the kernel's. */
static void cxib_byte_order_helpers(struct kunit *test)
{
	const __be32 be32 = cpu_to_be32(0x01020304);
	const __be64 be64 = cpu_to_be64(0x0102030405060708ull);
	const u8 bytes[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	KUNIT_EXPECT_EQ(test, cxib_be32_to_host(be32), 0x01020304);
	KUNIT_EXPECT_TRUE(test, cxib_host_to_be32(0x01020304) == be32);
	KUNIT_EXPECT_EQ(test, cxib_be64_to_host(be64), 0x0102030405060708ull);
	KUNIT_EXPECT_TRUE(test, cxib_host_to_be64(0x0102030405060708ull) == be64);
	KUNIT_EXPECT_MEMEQ(test, &be32, bytes, sizeof(be32));
	KUNIT_EXPECT_MEMEQ(test, &be64, bytes, sizeof(be64));
}

static struct kunit_case cxib_iseg_fields_cases[] = {
	KUNIT_CASE_PARAM(iseg_field_matches_prm, iseg_fields_gen_params),
	KUNIT_CASE_PARAM(iseg_field_set_get_round_trip, iseg_fields_gen_params),
	KUNIT_CASE_PARAM(iseg_field_prep_get, iseg_fields_gen_params),
	KUNIT_CASE(iseg_fields_do_not_overlap),
	KUNIT_CASE(iseg_named_fields_land_on_prm_bytes),
	KUNIT_CASE(cxib_mask_edges),
	KUNIT_CASE(cxib_byte_order_helpers),
	{}
};

static struct kunit_suite cxib_iseg_fields_suite = {
	.name = "cxib_iseg_fields",
	.test_cases = cxib_iseg_fields_cases,
};

kunit_test_suite(cxib_iseg_fields_suite);
