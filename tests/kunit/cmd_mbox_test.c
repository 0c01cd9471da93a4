// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: mailbox chains (cmd.c; PRM §2.2, §2.3): how many blocks a length needs,
 * where each input byte goes, and how the blocks are linked, numbered, tokened and signed.
 *
 * The blocks here are plain memory with made-up bus addresses: the chain only records
 * the addresses, so no DMA is needed.  Byte offsets inside a block are the PRM's, by hand.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxib_kunit.h"

/* Block bytes (PRM §2.2). */
#define BOX_NEXT		0x230
#define BOX_BLOCK_NUMBER	0x238
#define BOX_TOKEN		0x23d
#define BOX_CTRL_SIGNATURE	0x23e
#define BOX_SIGNATURE		0x23f

#define MBOX_TEST_BLOCKS	3
/* Made-up, 1 KiB aligned bus addresses, above 4 GiB so both halves matter. */
#define MBOX_TEST_DMA(i)	(0x0000000512340000ull + 0x400ull * (i))

static u64 be64_at(const void *p, unsigned int off)
{
	const u8 *b = (const u8 *)p + off;
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static u32 be32_at(const void *p, unsigned int off)
{
	return (u32)(be64_at(p, off) >> 32);
}

static u8 xor_range(const void *p, unsigned int from, unsigned int to_incl)
{
	const u8 *b = p;
	u8 x = 0;

	while (from <= to_incl)
		x ^= b[from++];
	return x;
}

/* A zeroed chain of @n blocks with MBOX_TEST_DMA() addresses. */
static struct cxib_cmd_msg *mbox_test_chain(struct kunit *test, unsigned int n)
{
	struct cxib_cmd_msg *msg;
	struct cxib_cmd_mailbox *box;
	unsigned int i;

	msg = kunit_kzalloc(test, sizeof(*msg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	msg->blocks = kunit_kcalloc(test, n, sizeof(*msg->blocks), GFP_KERNEL);
	box = kunit_kcalloc(test, n, sizeof(*box), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg->blocks);
	KUNIT_ASSERT_NOT_NULL(test, box);
	for (i = 0; i < n; i++) {
		msg->blocks[i].buf = &box[i];
		msg->blocks[i].dma = MBOX_TEST_DMA(i);
	}
	msg->nblocks = n;
	return msg;
}

/* 16 bytes travel inline; every 512 more (or part of it) take one block. */
static void blocks_for_lengths(struct kunit *test)
{
	static const struct {
		u32 len;
		unsigned int blocks;
	} cases[] = {
		{ 0, 0 }, { 8, 0 }, { 16, 0 }, { 17, 1 }, { 528, 1 }, { 529, 2 },
		{ 1040, 2 }, { 1041, 3 },
		{ CXIB_QUERY_ISSI_OUT_LEN, 1 },			/* 0x70 */
		{ CXIB_MAD_IFC_IN_LEN, 1 },			/* 0x110 */
		{ CXIB_QUERY_ADAPTER_OUT_LEN, 1 },		/* 0x110 */
		{ CXIB_QUERY_HCA_CAP_OUT_LEN, 8 },		/* 4112 */
		{ CXIB_SET_HCA_CAP_IN_LEN, 8 },
		{ CXIB_MANAGE_PAGES_IN_LEN(CXIB_PAGES_PER_CMD), 8 },	/* 16 + 4096 */
		{ CXIB_MANAGE_PAGES_IN_LEN(CXIB_PAGES_PER_CMD + 1), 9 },
	};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(struct cxib_cmd_mailbox), 576);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, CXIB_CMD_MBOX_BLOCKS(cases[i].len), cases[i].blocks,
				    "length %u", cases[i].len);
}

/* Each block points at the next (the last at nothing), carries its number and the token. */
static void chain_links_numbers_and_tokens(struct kunit *test)
{
	struct cxib_cmd_msg *msg = mbox_test_chain(test, MBOX_TEST_BLOCKS);
	unsigned int i;
	u8 *raw;

	cxib_cmd_msg_chain(msg, 0x42);
	for (i = 0; i < MBOX_TEST_BLOCKS; i++) {
		raw = (u8 *)msg->blocks[i].buf;
		KUNIT_EXPECT_EQ_MSG(test, be64_at(raw, BOX_NEXT),
				    i + 1 < MBOX_TEST_BLOCKS ? MBOX_TEST_DMA(i + 1) : 0,
				    "next pointer of block %u", i);
		KUNIT_EXPECT_EQ_MSG(test, be32_at(raw, BOX_BLOCK_NUMBER), i, "block %u", i);
		KUNIT_EXPECT_EQ_MSG(test, raw[BOX_TOKEN], 0x42, "token of block %u", i);
		/* The next pointer's bits 9:0 are reserved. */
		KUNIT_EXPECT_EQ(test, raw[BOX_NEXT + 7] & 0x03, 0);
	}
}

/* Input byte j >= 16 lands at block (j - 16) / 512, offset (j - 16) % 512; nothing else. */
static void input_bytes_land_in_order(struct kunit *test)
{
	const u32 inlen = 16 + 512 + 200;
	struct cxib_cmd_msg *msg = mbox_test_chain(test, 2);
	u8 *in;
	u32 j;

	KUNIT_ASSERT_EQ(test, CXIB_CMD_MBOX_BLOCKS(inlen), 2);
	in = kunit_kmalloc(test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	for (j = 0; j < inlen; j++)
		in[j] = (u8)(j * 13 + 1);

	cxib_cmd_msg_write(msg, in, inlen);
	for (j = 16; j < inlen; j++)
		KUNIT_EXPECT_EQ_MSG(test, msg->blocks[(j - 16) / 512].buf->data[(j - 16) % 512],
				    in[j], "input byte %u", j);
	/* The rest of the last block stays as it was (zero). */
	for (j = inlen - 16 - 512; j < CXIB_CMD_MBOX_DATA_LEN; j++)
		KUNIT_EXPECT_EQ_MSG(test, msg->blocks[1].buf->data[j], 0, "tail byte %u", j);
}

/* What is written into a chain reads back the same. */
static void write_then_read_round_trips(struct kunit *test)
{
	const u32 len = CXIB_QUERY_HCA_CAP_OUT_LEN;
	struct cxib_cmd_msg *msg = mbox_test_chain(test, CXIB_CMD_MBOX_BLOCKS(len));
	u8 *in, *out;
	u32 j;

	in = kunit_kmalloc(test, len, GFP_KERNEL);
	out = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (j = 0; j < len; j++)
		in[j] = (u8)(j ^ (j >> 8));

	cxib_cmd_msg_write(msg, in, len);
	cxib_cmd_msg_read(msg, out, len);
	KUNIT_EXPECT_EQ(test, memcmp(in + 16, out + 16, len - 16), 0);
}

/* Signed blocks verify: XOR over 0x200..0x23e and over 0x000..0x23f is 0xff. */
static void signatures_verify(struct kunit *test)
{
	struct cxib_cmd_msg *msg = mbox_test_chain(test, 2);
	u8 in[16 + 700];
	unsigned int i;
	u8 *raw;

	memset(in, 0x3c, sizeof(in));
	cxib_cmd_msg_write(msg, in, sizeof(in));
	cxib_cmd_msg_chain(msg, 0x99);
	for (i = 0; i < msg->nblocks; i++) {
		cxib_cmd_mbox_sign(msg->blocks[i].buf);
		raw = (u8 *)msg->blocks[i].buf;
		KUNIT_EXPECT_EQ_MSG(test, xor_range(raw, 0x200, BOX_CTRL_SIGNATURE), 0xff,
				    "control signature of block %u", i);
		KUNIT_EXPECT_EQ_MSG(test, xor_range(raw, 0, BOX_SIGNATURE), 0xff,
				    "signature of block %u", i);
		/* Signing leaves the token and block number alone. */
		KUNIT_EXPECT_EQ(test, raw[BOX_TOKEN], 0x99);
		KUNIT_EXPECT_EQ(test, be32_at(raw, BOX_BLOCK_NUMBER), i);
	}
}

/* Signing again after a change gives signatures that verify again. */
static void resigning_after_change_verifies(struct kunit *test)
{
	struct cxib_cmd_msg *msg = mbox_test_chain(test, 1);
	u8 *raw = (u8 *)msg->blocks[0].buf;

	cxib_cmd_msg_chain(msg, 7);
	cxib_cmd_mbox_sign(msg->blocks[0].buf);
	raw[100] ^= 0x81;
	KUNIT_EXPECT_NE(test, xor_range(raw, 0, BOX_SIGNATURE), 0xff);
	cxib_cmd_mbox_sign(msg->blocks[0].buf);
	KUNIT_EXPECT_EQ(test, xor_range(raw, 0, BOX_SIGNATURE), 0xff);
	KUNIT_EXPECT_EQ(test, xor_range(raw, 0x200, BOX_CTRL_SIGNATURE), 0xff);
}

static struct kunit_case cxib_cmd_mbox_cases[] = {
	KUNIT_CASE(blocks_for_lengths),
	KUNIT_CASE(chain_links_numbers_and_tokens),
	KUNIT_CASE(input_bytes_land_in_order),
	KUNIT_CASE(write_then_read_round_trips),
	KUNIT_CASE(signatures_verify),
	KUNIT_CASE(resigning_after_change_verifies),
	{}
};

static struct kunit_suite cxib_cmd_mbox_suite = {
	.name = "cxib_cmd_mbox",
	.test_cases = cxib_cmd_mbox_cases,
};

kunit_test_suite(cxib_cmd_mbox_suite);
