// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: building command queue entries, reading command outputs, the token
 * sequence, and the return status -> errno table (cmd.c; PRM §2.1, §2.3, §2.5); the
 * command header and PAS lists every typed command writes (cxib_cmd.h, fw.c).
 *
 * Byte offsets are written here by hand from the PRM, so the entry layout of
 * include/cxib/cmd.h is checked as well as the driver's use of it.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/* Entry bytes (PRM §2.1). */
#define ENT_TYPE		0x00
#define ENT_INPUT_LENGTH	0x04
#define ENT_IN_MBOX		0x08
#define ENT_IN_INLINE		0x10
#define ENT_OUT_INLINE		0x20
#define ENT_OUT_MBOX		0x30
#define ENT_OUTPUT_LENGTH	0x38
#define ENT_TOKEN		0x3c
#define ENT_SIGNATURE		0x3d
#define ENT_STATUS_OWNER	0x3f

/* Big-endian values at a byte offset, assembled byte by byte. */
static u32 be32_at(const void *p, unsigned int off)
{
	const u8 *b = (const u8 *)p + off;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static u64 be64_at(const void *p, unsigned int off)
{
	return (u64)be32_at(p, off) << 32 | be32_at(p, off + 4);
}

static u8 xor_bytes(const void *p, unsigned int len)
{
	const u8 *b = p;
	u8 x = 0;

	while (len--)
		x ^= *b++;
	return x;
}

static void fill_pattern(void *buf, size_t len, u8 seed)
{
	u8 *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (u8)(i * 7 + seed);
}

/* A command that fits the entry: no mailbox, input inline, the entry handed over signed. */
static void entry_inline_only(struct kunit *test)
{
	__be32 in[CXIB_NOP_IN_LEN / 4] = {};
	struct cxib_cmd_msg none = {};
	struct cxib_cmd_queue_entry ent;
	const u8 *raw = (const u8 *)&ent;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(ent), 64);
	CXIB_SET(in, CXIB_CMD_IN_OPCODE, CXIB_CMD_OP_NOP);
	CXIB_SET(in, CXIB_CMD_IN_OP_MOD, 0x1234);
	memset(&ent, 0xa5, sizeof(ent));
	cxib_cmd_build_entry(&ent, in, sizeof(in), CXIB_NOP_OUT_LEN, &none, &none, 0x5a);

	KUNIT_EXPECT_EQ(test, raw[ENT_TYPE], 0x07);
	KUNIT_EXPECT_EQ(test, raw[1] | raw[2] | raw[3], 0);
	KUNIT_EXPECT_EQ(test, be32_at(raw, ENT_INPUT_LENGTH), 16);
	KUNIT_EXPECT_EQ(test, be64_at(raw, ENT_IN_MBOX), 0);
	KUNIT_EXPECT_EQ(test, memcmp(raw + ENT_IN_INLINE, in, 16), 0);
	/* The opcode is the first two bytes of the input, op_mod bytes 6-7. */
	KUNIT_EXPECT_EQ(test, raw[ENT_IN_INLINE] << 8 | raw[ENT_IN_INLINE + 1], 0x80d);
	KUNIT_EXPECT_EQ(test, raw[ENT_IN_INLINE + 6] << 8 | raw[ENT_IN_INLINE + 7], 0x1234);
	for (i = ENT_OUT_INLINE; i < ENT_OUT_INLINE + 16; i++)
		KUNIT_EXPECT_EQ_MSG(test, raw[i], 0, "output byte 0x%x", i);
	KUNIT_EXPECT_EQ(test, be64_at(raw, ENT_OUT_MBOX), 0);
	KUNIT_EXPECT_EQ(test, be32_at(raw, ENT_OUTPUT_LENGTH), CXIB_NOP_OUT_LEN);
	KUNIT_EXPECT_EQ(test, raw[ENT_TOKEN], 0x5a);
	/* Ownership 1 (hardware), delivery status 0. */
	KUNIT_EXPECT_EQ(test, raw[ENT_STATUS_OWNER], 0x01);
	/* The signature makes the XOR of all 64 bytes 0xff. */
	KUNIT_EXPECT_EQ(test, xor_bytes(raw, 64), 0xff);
}

/* A longer command: the entry points at the first block of each chain. */
static void entry_points_at_mailboxes(struct kunit *test)
{
	struct cxib_cmd_block inb[2] = {
		{ .dma = 0x123456789400ull }, { .dma = 0x123456789800ull },
	};
	struct cxib_cmd_block outb[1] = { { .dma = 0xfedcba98c00ull } };
	struct cxib_cmd_msg inmsg = { .nblocks = 2, .blocks = inb };
	struct cxib_cmd_msg outmsg = { .nblocks = 1, .blocks = outb };
	struct cxib_cmd_queue_entry ent;
	u8 in[600];

	fill_pattern(in, sizeof(in), 1);
	cxib_cmd_build_entry(&ent, in, sizeof(in), 272, &inmsg, &outmsg, 0xff);
	KUNIT_EXPECT_EQ(test, be32_at(&ent, ENT_INPUT_LENGTH), 600);
	KUNIT_EXPECT_EQ(test, be64_at(&ent, ENT_IN_MBOX), 0x123456789400ull);
	KUNIT_EXPECT_EQ(test, be64_at(&ent, ENT_OUT_MBOX), 0xfedcba98c00ull);
	KUNIT_EXPECT_EQ(test, be32_at(&ent, ENT_OUTPUT_LENGTH), 272);
	KUNIT_EXPECT_EQ(test, memcmp((u8 *)&ent + ENT_IN_INLINE, in, 16), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)&ent)[ENT_TOKEN], 0xff);
	KUNIT_EXPECT_EQ(test, xor_bytes(&ent, 64), 0xff);
}

/* The signature byte depends on the whole entry: any other token changes it. */
static void entry_signature_covers_token(struct kunit *test)
{
	__be32 in[4] = {};
	struct cxib_cmd_msg none = {};
	struct cxib_cmd_queue_entry a, b;

	CXIB_SET(in, CXIB_CMD_IN_OPCODE, CXIB_CMD_OP_QUERY_ISSI);
	cxib_cmd_build_entry(&a, in, sizeof(in), CXIB_QUERY_ISSI_OUT_LEN, &none, &none, 1);
	cxib_cmd_build_entry(&b, in, sizeof(in), CXIB_QUERY_ISSI_OUT_LEN, &none, &none, 2);
	KUNIT_EXPECT_NE(test, ((u8 *)&a)[ENT_SIGNATURE], ((u8 *)&b)[ENT_SIGNATURE]);
	KUNIT_EXPECT_EQ(test, xor_bytes(&a, 64), 0xff);
	KUNIT_EXPECT_EQ(test, xor_bytes(&b, 64), 0xff);
}

/* Tokens are 8 bits, never 0, and visit all of 1..255 before repeating. */
static void tokens_roll_over_nonzero(struct kunit *test)
{
	DECLARE_BITMAP(seen, 256) = {};
	u8 t = 0;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, cxib_cmd_next_token(0), 1);
	KUNIT_EXPECT_EQ(test, cxib_cmd_next_token(1), 2);
	KUNIT_EXPECT_EQ(test, cxib_cmd_next_token(254), 255);
	KUNIT_EXPECT_EQ(test, cxib_cmd_next_token(255), 1);
	for (i = 0; i < 255; i++) {
		t = cxib_cmd_next_token(t);
		KUNIT_ASSERT_NE(test, t, 0);
		KUNIT_EXPECT_FALSE_MSG(test, test_bit(t, seen), "token %u twice", t);
		__set_bit(t, seen);
	}
	KUNIT_EXPECT_EQ(test, cxib_cmd_next_token(t), 1);
}

/* PRM §2.5: the errno of every return status, written out by hand. */
static void status_maps_to_errno(struct kunit *test)
{
	static const struct {
		u8 status;
		int err;
	} prm[] = {
		{ 0x00, 0 }, { 0x01, -EIO }, { 0x02, -EINVAL }, { 0x03, -EINVAL },
		{ 0x04, -EIO }, { 0x05, -EINVAL }, { 0x06, -EBUSY }, { 0x07, -EAGAIN },
		{ 0x08, -ENOMEM }, { 0x09, -EINVAL }, { 0x0a, -EINVAL }, { 0x0f, -EAGAIN },
		{ 0x10, -EINVAL }, { 0x30, -EINVAL }, { 0x40, -EINVAL }, { 0x50, -EIO },
		{ 0x51, -EIO },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prm); i++) {
		KUNIT_EXPECT_EQ_MSG(test, cxib_cmd_status_to_errno(prm[i].status), prm[i].err,
				    "status 0x%02x", prm[i].status);
		KUNIT_EXPECT_STRNEQ(test, cxib_cmd_status_str(prm[i].status), "unknown status");
	}
}

/* A status the PRM does not define fails the command as an I/O error. */
static void unknown_status_is_eio(struct kunit *test)
{
	static const u8 unknown[] = { 0x0b, 0x0e, 0x11, 0x52, 0x7f, 0xff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		KUNIT_EXPECT_EQ(test, cxib_cmd_status_to_errno(unknown[i]), -EIO);
		KUNIT_EXPECT_STREQ(test, cxib_cmd_status_str(unknown[i]), "unknown status");
	}
}

/* Log lines name commands by the PRM's names. */
static void opcodes_have_prm_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x100), "QUERY_HCA_CAP");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x104), "ENABLE_HCA");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x108), "MANAGE_PAGES");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x301), "CREATE_EQ");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x50d), "MAD_IFC");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x805), "ACCESS_REG");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x80d), "NOP");
	KUNIT_EXPECT_STREQ(test, cxib_cmd_opcode_str(0x7ff), "UNKNOWN");
}

/* Output beyond the inline 16 bytes is read from the blocks in order; the rest is kept. */
static void output_read_from_blocks(struct kunit *test)
{
	const u32 outlen = 16 + 512 + 100;
	struct cxib_cmd_mailbox *box;
	struct cxib_cmd_block blk[2];
	struct cxib_cmd_msg msg = { .nblocks = 2, .blocks = blk };
	u8 *out;
	u32 j;

	box = kunit_kcalloc(test, 2, sizeof(*box), GFP_KERNEL);
	out = kunit_kzalloc(test, outlen + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, box);
	KUNIT_ASSERT_NOT_NULL(test, out);
	blk[0].buf = &box[0];
	blk[1].buf = &box[1];
	fill_pattern(box[0].data, 512, 3);
	fill_pattern(box[1].data, 512, 9);
	memset(out, 0xee, outlen + 8);

	cxib_cmd_msg_read(&msg, out, outlen);
	for (j = 0; j < 16; j++)
		KUNIT_EXPECT_EQ_MSG(test, out[j], 0xee, "inline byte %u", j);
	for (j = 16; j < outlen; j++)
		KUNIT_EXPECT_EQ_MSG(test, out[j], box[(j - 16) / 512].data[(j - 16) % 512],
				    "output byte %u", j);
	for (j = outlen; j < outlen + 8; j++)
		KUNIT_EXPECT_EQ_MSG(test, out[j], 0xee, "byte %u past the output", j);
}

/* The input header: opcode in bytes 0-1, op_mod in bytes 6-7; the rest untouched. */
static void cmd_hdr_writes_opcode_and_op_mod(struct kunit *test)
{
	u8 in[16];
	u32 j;

	memset(in, 0xee, sizeof(in));
	memset(in, 0, 8);
	cxib_cmd_hdr(in, 0x0754, 0x1234);
	KUNIT_EXPECT_EQ(test, be32_at(in, 0), 0x07540000);
	KUNIT_EXPECT_EQ(test, be32_at(in, 4), 0x00001234);
	for (j = 8; j < sizeof(in); j++)
		KUNIT_EXPECT_EQ_MSG(test, in[j], 0xee, "byte %u", j);
}

/* A PAS list: big-endian 64-bit entries from the offset on, nothing before or after. */
static void cmd_put_pas_writes_be64_entries(struct kunit *test)
{
	const dma_addr_t pas[] = { 0x1000, 0x123456789000ull, 0xfffffffffffff000ull };
	const u32 off = 0x110, len = off + sizeof(pas) + 8;
	u8 *in = kunit_kzalloc(test, len, GFP_KERNEL);
	u32 i, j;

	KUNIT_ASSERT_NOT_NULL(test, in);
	memset(in, 0xee, len);
	cxib_cmd_put_pas(in, off, pas, 0);
	for (j = 0; j < len; j++)
		KUNIT_EXPECT_EQ_MSG(test, in[j], 0xee, "byte %u with no entries", j);

	cxib_cmd_put_pas(in, off, pas, ARRAY_SIZE(pas));
	for (i = 0; i < ARRAY_SIZE(pas); i++)
		KUNIT_EXPECT_EQ_MSG(test, be64_at(in, off + 8 * i), (u64)pas[i], "entry %u", i);
	for (j = 0; j < off; j++)
		KUNIT_EXPECT_EQ_MSG(test, in[j], 0xee, "byte %u before the list", j);
	for (j = off + sizeof(pas); j < len; j++)
		KUNIT_EXPECT_EQ_MSG(test, in[j], 0xee, "byte %u after the list", j);
}

static struct kunit_case cxib_cmd_cases[] = {
	KUNIT_CASE(entry_inline_only),
	KUNIT_CASE(entry_points_at_mailboxes),
	KUNIT_CASE(entry_signature_covers_token),
	KUNIT_CASE(tokens_roll_over_nonzero),
	KUNIT_CASE(status_maps_to_errno),
	KUNIT_CASE(unknown_status_is_eio),
	KUNIT_CASE(opcodes_have_prm_names),
	KUNIT_CASE(output_read_from_blocks),
	KUNIT_CASE(cmd_hdr_writes_opcode_and_op_mod),
	KUNIT_CASE(cmd_put_pas_writes_be64_entries),
	{}
};

static struct kunit_suite cxib_cmd_suite = {
	.name = "cxib_cmd",
	.test_cases = cxib_cmd_cases,
};

kunit_test_suite(cxib_cmd_suite);
