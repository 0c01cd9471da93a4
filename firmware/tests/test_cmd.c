// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command engine: doorbell -> kick -> cxfw_process() -> entry handed back; descriptor,
 * mailbox chain, token, block number and signature checks; header checks (opcode,
 * lengths, op_mod, uid, state).  Entries are built and checked at the PRM offsets
 * (the PRM's command interface: queue, entries, mailboxes, signatures, completion).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <cxib/cmd_rsvd.h>

#include "drv.h"
#include "cxfw_priv.h"

#define SYND_BAD_OP(op)	(0x0b000000u | (op))

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

static void ring(struct test_ctx *t, uint32_t bits)
{
	wr32(t->dev, 0x018, bits);
}

/* ---- queue mechanics -------------------------------------------------------------------- */

TEST(doorbell_kicks_and_defers_to_process)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 16);
	ring(t, 0x1);
	CHECK_EQ(fake_kicks(&t->fk), 1);
	CHECK_EQ(stats(t).cmd_doorbells, 1);
	/* nothing happens in the MMIO path */
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f] & 1, 1);
	CHECK_EQ(t->fk.dma_reads, 0);

	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f] & 1, 0);
	CHECK_EQ(stats(t).cmds_completed, 1);
	/* idle: a second process does nothing */
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).cmds_completed, 1);
}

TEST(cmd_nop_completes_ok_and_keeps_descriptor)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t before[64], e[64];
	int i;

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 16);
	entry_get(&t->fk, q, 0, before);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);

	/* descriptor and input untouched */
	CHECK(memcmp(e, before, 0x20) == 0);
	CHECK(memcmp(e + 0x30, before + 0x30, 0x0c) == 0);
	/* output: status 0, syndrome 0, the rest zero */
	for (i = 0x20; i < 0x30; i++)
		CHECK_EQ(e[i], 0);
	/* token and signature kept, delivery status 0, ownership back to software */
	CHECK_EQ(e[0x3c], 0x5a);
	CHECK_EQ(e[0x3d], 0xc3);
	CHECK_EQ(e[0x3f], 0x00);
	CHECK_EQ(stats(t).cmds_completed, 1);
	CHECK_EQ(stats(t).dma_errors, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
}

TEST(cmd_unknown_opcode_bad_operation)
{
	__be32 out[4];

	CHECK_EQ(cmd_simple(t, 0x7777, 0, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), SYND_BAD_OP(0x7777));
	/* known to the PRM but not implemented yet: also "not supported" */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_DRIVER_VERSION, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), SYND_BAD_OP(CXIB_CMD_OP_SET_DRIVER_VERSION));
	CHECK_EQ(stats(t).cmd_failures, 2);
}

TEST(doorbell_multiple_slots_complete_independently)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];
	unsigned int s;

	cmdq_setup(t->dev, q);
	for (s = 0; s < 32; s++)
		entry_prepare(&t->fk, q, s, (uint16_t)(0x1000 + s), 0, 16, 16);
	ring(t, 0x0000000b);			/* slots 0, 1, 3 in one write */
	ring(t, 0x80000000);			/* the last slot (MANAGE_PAGES') */
	CHECK_EQ(stats(t).cmd_doorbells, 4);
	cxfw_process(t->dev);

	for (s = 0; s < 32; s++) {
		bool rung = s == 0 || s == 1 || s == 3 || s == 31;

		entry_get(&t->fk, q, s, e);
		CHECK_EQ(e[0x3f] & 1, rung ? 0 : 1);
		if (rung)
			CHECK_EQ(be32_at(e + 0x24), SYND_BAD_OP(0x1000 + s));
		else
			CHECK_EQ(e[0x20], 0xee);	/* untouched */
	}
	CHECK_EQ(stats(t).cmds_completed, 4);
}

TEST(doorbell_slot_reuse_after_completion)
{
	__be32 in[4] = { 0 }, out[4];

	cmd_hdr(in, CXIB_CMD_OP_NOP, 0);
	cmd_prepare(t, 2, in, 16, 16);
	cmd_ring(t, 1u << 2);
	CHECK_EQ(cmd_collect(t, 2, out, 16), 0);
	cmd_hdr(in, CXIB_CMD_OP_ENABLE_HCA, 0);
	cmd_prepare(t, 2, in, 16, 16);
	cmd_ring(t, 1u << 2);
	CHECK_EQ(cmd_collect(t, 2, out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_OK);
	CHECK_EQ(stats(t).cmds_completed, 2);
}

TEST(doorbell_slot_out_of_range_ignored)
{
	struct cxfw_config cfg;
	uint64_t q;
	uint8_t e[64];

	cxfw_config_defaults(&cfg);
	cfg.log_cmdq_size = 2;			/* 4 slots */
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	q = FAKE_CMDQ_ADDR(&t->fk);
	CHECK_EQ(rd32(t->dev, 0x014) & 0xff, 0x26);
	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 1, CXIB_CMD_OP_NOP, 0, 16, 16);
	entry_prepare(&t->fk, q, 3, CXIB_CMD_OP_NOP, 0, 16, 16);
	entry_prepare(&t->fk, q, 5, CXIB_CMD_OP_NOP, 0, 16, 16);

	ring(t, 1u << 5);
	CHECK_EQ(fake_kicks(&t->fk), 0);
	CHECK_EQ(fake_err_logs(&t->fk), 1);
	ring(t, 1u << 5 | 1u << 3 | 1u << 1);	/* slot 3 is the last valid one */
	CHECK_EQ(fake_kicks(&t->fk), 1);
	cxfw_process(t->dev);

	entry_get(&t->fk, q, 1, e);
	CHECK_EQ(e[0x3f], 0);
	entry_get(&t->fk, q, 3, e);
	CHECK_EQ(e[0x3f], 0);
	entry_get(&t->fk, q, 5, e);
	CHECK_EQ(e[0x3f], 1);
	CHECK_EQ(e[0x20], 0xee);
	CHECK_EQ(stats(t).cmds_completed, 2);
	CHECK_EQ(stats(t).cmd_doorbells, 2);
}

TEST(cmdq_address_high_word_used)
{
	struct cxfw_config cfg;
	__be32 out[4];

	int32_t n;

	cxfw_config_defaults(&cfg);
	CHECK(test_recreate(t, &cfg, 0x2400000000ull));	/* guest RAM above 4 GiB */
	cmdq_setup(t->dev, FAKE_CMDQ_ADDR(&t->fk));
	CHECK_EQ(rd32(t->dev, 0x010), 0x24);
	/* a command with mailboxes above 4 GiB too */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 0, 0, out, 16), 0);
	CHECK_EQ(drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n), 0);
	CHECK_EQ(n, 16);
	CHECK_EQ(drv_give_pages(t, 16), 0);
	CHECK_EQ(stats(t).pages_held, 16);
	CHECK_EQ(stats(t).dma_errors, 0);
}

/* ---- descriptor checks (delivery status) ------------------------------------------------ */

TEST(cmd_entry_wrong_type_bad_descriptor)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 16);
	entry_get(&t->fk, q, 0, e);
	e[0x00] = 0x05;
	entry_put(&t->fk, q, 0, e);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0x10 << 1);		/* delivery 0x10, ownership 0 */
	CHECK_EQ(e[0x20], 0xee);		/* output not written */
	CHECK_EQ(stats(t).cmds_completed, 1);
	CHECK_EQ(stats(t).cmd_delivery_errors, 1);
}

TEST(cmd_entry_reserved_bits_res_fld_not_clr)
{
	static const unsigned int bytes[] = { 0x01, 0x0f, 0x37, 0x3e };
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];
	unsigned int i;

	cmdq_setup(t->dev, q);
	for (i = 0; i < 4; i++) {
		entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 16);
		entry_get(&t->fk, q, 0, e);
		e[bytes[i]] |= 0x01;	/* type's low bits, pointer bits 8:0, status dword */
		entry_put(&t->fk, q, 0, e);
		ring(t, 0x1);
		cxfw_process(t->dev);
		entry_get(&t->fk, q, 0, e);
		CHECK_EQ(e[0x3f], CXIB_CMD_DELIVERY_RES_FLD_NOT_CLR << 1);
	}
}

TEST(cmd_entry_software_owned_left_alone)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t before[64], e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 4, CXIB_CMD_OP_NOP, 0, 16, 16);
	entry_get(&t->fk, q, 4, before);
	before[0x3f] = 0;
	entry_put(&t->fk, q, 4, before);
	ring(t, 1u << 4);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 4, e);
	CHECK(memcmp(e, before, 64) == 0);
	CHECK_EQ(stats(t).cmds_completed, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 1);
}

TEST(cmd_short_input_length_bad_input_len)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_ENABLE_HCA, 0, 4, 16);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(e[0x20], 0x50);		/* bad input length */
	CHECK_EQ(be32_at(e + 0x24), 0x1e000004);
}

TEST(cmd_short_output_length_delivery_error)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_ENABLE_HCA, 0, 16, 4);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0x08 << 1);		/* output length error */
	CHECK_EQ(e[0x20], 0xee);
}

TEST(cmd_absurd_lengths_delivery_length_errors)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 0xfffffff0u, 16);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], CXIB_CMD_DELIVERY_INPUT_LEN_ERR << 1);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 0x80000000u);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR << 1);
}

/* ---- mailbox chains --------------------------------------------------------------------- */

/* A big input: SET_HCA_CAP's 4112 bytes need 9 blocks (QUERY_HCA_CAP's output 8). */
static void prepare_big(struct test_ctx *t, unsigned int slot)
{
	static uint8_t in[CXIB_SET_HCA_CAP_IN_LEN];

	memset(in, 0, sizeof(in));
	cmd_hdr(in, CXIB_CMD_OP_SET_HCA_CAP, 0);
	CXIB_SET(in + CXIB_SET_HCA_CAP_IN_CAPABILITY_OFFSET, CXIB_HCA_CAP_LOG_MAX_QP, 16);
	cmd_prepare(t, slot, in, sizeof(in), CXIB_SET_HCA_CAP_OUT_LEN);
}

static void poke_block(struct test_ctx *t, unsigned int slot, bool out, unsigned int k,
		       unsigned int off, const void *val, size_t len)
{
	fake_mem_write(&t->fk, drv_mbox_addr(t, slot, out, k) + off, val, len);
}

TEST(cmd_mailbox_token_mismatch_token_error)
{
	uint8_t bad = 0x77;
	__be32 out[4];

	CHECK_EQ(drv_enable_hca(t), 0);
	prepare_big(t, 0);
	poke_block(t, 0, false, 3, 0x23d, &bad, 1);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, out, 16), CXIB_CMD_DELIVERY_TOKEN_ERR);

	/* in an output block too */
	{
		__be32 in[4] = { 0 };

		cmd_hdr(in, CXIB_CMD_OP_QUERY_HCA_CAP, 1);
		cmd_prepare(t, 0, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
		poke_block(t, 0, true, 7, 0x23d, &bad, 1);
		cmd_ring(t, 1);
		CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_TOKEN_ERR);
	}
}

TEST(cmd_mailbox_wrong_block_number_bad_block_number)
{
	__be32 v = cxib_host_to_be32(5);

	CHECK_EQ(drv_enable_hca(t), 0);
	prepare_big(t, 0);
	poke_block(t, 0, false, 2, 0x238, &v, 4);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_BAD_BLOCK_NUMBER);
}

TEST(cmd_mailbox_cyclic_chain_bad_block_number)
{
	uint64_t b1 = drv_mbox_addr(t, 0, false, 1);
	__be32 next[2] = { cxib_host_to_be32((uint32_t)(b1 >> 32)),
			   cxib_host_to_be32((uint32_t)b1 & 0xfffffc00u) };

	CHECK_EQ(drv_enable_hca(t), 0);
	prepare_big(t, 0);
	/* block 4 links back to block 1: the walk meets block_number 1 where 5 belongs */
	poke_block(t, 0, false, 4, 0x230, next, 8);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_BAD_BLOCK_NUMBER);
	/* a block that points at itself */
	b1 = drv_mbox_addr(t, 0, false, 0);
	next[0] = cxib_host_to_be32((uint32_t)(b1 >> 32));
	next[1] = cxib_host_to_be32((uint32_t)b1 & 0xfffffc00u);
	prepare_big(t, 0);
	poke_block(t, 0, false, 0, 0x230, next, 8);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_BAD_BLOCK_NUMBER);
}

TEST(cmd_mailbox_chain_too_short_length_errors)
{
	const uint8_t zero[8] = { 0 };
	__be32 in[4] = { 0 };

	CHECK_EQ(drv_enable_hca(t), 0);
	prepare_big(t, 0);
	poke_block(t, 0, false, 6, 0x230, zero, 8);	/* 7 of 9 blocks */
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_INPUT_LEN_ERR);

	cmd_hdr(in, CXIB_CMD_OP_QUERY_HCA_CAP, 1);
	cmd_prepare(t, 0, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
	poke_block(t, 0, true, 0, 0x230, zero, 8);	/* 1 of 8 blocks */
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR);
	/* and the first output pointer missing altogether */
	cmd_prepare(t, 0, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
	fake_mem_write(&t->fk, FAKE_CMDQ_ADDR(&t->fk) + 0x30, zero, 8);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR);
}

TEST(cmd_mailbox_longer_chain_than_needed_is_fine)
{
	uint8_t in[600] = { 0 };
	__be32 out[CXIB_ACCESS_REG_OUT_LEN(CXIB_REG_HOST_ENDIANNESS_LEN) / 4];
	__be32 len = cxib_host_to_be32(CXIB_ACCESS_REG_IN_LEN(CXIB_REG_HOST_ENDIANNESS_LEN));

	/* as mlx5's cached messages: a 2-block chain for a 1-block command */
	CHECK_EQ(drv_enable_hca(t), 0);
	cmd_hdr(in, CXIB_CMD_OP_ACCESS_REG, CXIB_ACCESS_REG_OP_MOD_READ);
	CXIB_SET(in, CXIB_ACCESS_REG_IN_REGISTER_ID, CXIB_REG_HOST_ENDIANNESS);
	cmd_prepare(t, 0, in, sizeof(in), sizeof(out));
	fake_mem_write(&t->fk, FAKE_CMDQ_ADDR(&t->fk) + 4, &len, 4);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, out, sizeof(out)), 0);
	CHECK_EQ(out_status(out), 0);
}

TEST(cmd_mailbox_misaligned_pointer_alignment_errors)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	__be32 in[4] = { 0 };
	uint8_t b;

	CHECK_EQ(drv_enable_hca(t), 0);
	prepare_big(t, 0);
	fake_mem_read(&t->fk, q + 0x0e, &b, 1);
	b |= 0x02;					/* input pointer bit 9 */
	fake_mem_write(&t->fk, q + 0x0e, &b, 1);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_INPUT_PTR_ALIGN);

	cmd_hdr(in, CXIB_CMD_OP_QUERY_HCA_CAP, 1);
	cmd_prepare(t, 0, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
	fake_mem_read(&t->fk, q + 0x36, &b, 1);
	b |= 0x02;					/* output pointer bit 9 */
	fake_mem_write(&t->fk, q + 0x36, &b, 1);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_OUTPUT_PTR_ALIGN);
}

TEST(cmd_mailbox_unreadable_bad_descriptor)
{
	__be32 next[2] = { cxib_host_to_be32(0x7fff), 0 };

	CHECK_EQ(drv_enable_hca(t), 0);
	prepare_big(t, 0);
	poke_block(t, 0, false, 1, 0x230, next, 8);	/* block 2 outside guest memory */
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR);
	CHECK_EQ(stats(t).dma_errors, 1);
}

/* ---- signatures ------------------------------------------------------------------------- */

static unsigned int checksums_on(struct test_ctx *t)
{
	struct cxib_hca_cap cap;
	unsigned int st = drv_enable_hca(t);

	if (!st)
		st = drv_query_cap(t, 1, &cap);
	CXIB_SET(cap.dw, CXIB_HCA_CAP_CMDIF_CHECKSUM, CXIB_CAP_CMDIF_CHECKSUM_ENABLED);
	if (!st)
		st = drv_set_cap(t, &cap);
	return st;
}

TEST(cmd_signatures_ignored_when_checksums_off)
{
	__be32 out[4];

	/* entry_prepare's signature 0xc3 is wrong, so are the unsigned mailboxes */
	CHECK_EQ(drv_enable_hca(t), 0);
	drv.sign = false;
	prepare_big(t, 0);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, out, 16), 0);
	CHECK_EQ(out_status(out), 0);
}

TEST(cmd_bad_signature_returns_delivery_status_with_checksums_on)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t b, zero = 0;
	__be32 in[4] = { 0 }, out[4];

	CHECK_EQ(checksums_on(t), 0);
	/* unsigned entry */
	cmd_hdr(in, CXIB_CMD_OP_NOP, 0);
	cmd_prepare(t, 0, in, 16, 16);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_SIGNATURE_ERR);

	/* signed entry, one flipped byte */
	drv.sign = true;
	cmd_prepare(t, 0, in, 16, 16);
	fake_mem_read(&t->fk, q + 0x18, &b, 1);
	b ^= 0x40;
	fake_mem_write(&t->fk, q + 0x18, &b, 1);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_SIGNATURE_ERR);

	/* input block data corrupted after signing */
	prepare_big(t, 0);
	poke_block(t, 0, false, 5, 0x100, &b, 1);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), CXIB_CMD_DELIVERY_SIGNATURE_ERR);

	/* output block control signature broken */
	cmd_hdr(in, CXIB_CMD_OP_QUERY_HCA_CAP, 1);
	cmd_prepare(t, 0, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
	poke_block(t, 0, true, 2, 0x23e, &zero, 1);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, out, 16), CXIB_CMD_DELIVERY_SIGNATURE_ERR);
}

TEST(cmd_signed_command_output_is_signed_with_checksums_on)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	struct cxib_cmd_mailbox b;
	uint8_t e[64];
	__be32 in[4] = { 0 };
	unsigned int k;

	CHECK_EQ(checksums_on(t), 0);
	drv.sign = true;
	cmd_hdr(in, CXIB_CMD_OP_QUERY_HCA_CAP, 1);
	cmd_prepare(t, 0, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
	cmd_ring(t, 1);
	CHECK_EQ(cmd_collect(t, 0, NULL, 0), 0);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x20], 0);
	CHECK_EQ(cxib_xor8(e, 64), 0xff);
	for (k = 0; k < 8; k++) {
		fake_mem_read(&t->fk, drv_mbox_addr(t, 0, true, k), &b, sizeof(b));
		CHECK_EQ(cxib_xor8(&b, sizeof(b)), 0xff);
		CHECK_EQ(cxib_xor8((uint8_t *)&b + 0x200, 0x3f), 0xff);
	}
	/* the capability says so */
	{
		struct cxib_hca_cap cap;

		CHECK_EQ(drv_query_cap(t, 1, &cap), 0);
		CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_CMDIF_CHECKSUM), 3);
	}
}

/* ---- header checks ---------------------------------------------------------------------- */

TEST(cmd_lengths_below_the_struct_bad_input_and_output_length)
{
	__be32 in[4] = { 0 }, out[CXIB_QUERY_ISSI_OUT_LEN / 4];

	cmd_hdr(in, CXIB_CMD_OP_ENABLE_HCA, 0);
	CHECK_EQ(cmd_exec(t, in, 12, out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_INPUT_LEN);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), 0x1e00000c);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_OUTPUT_LEN);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_CAP, 1, 0, 0, out, 0x70),
		 CXIB_CMD_STAT_BAD_OUTPUT_LEN);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)), 0);
}

TEST(cmd_bad_op_mod_bad_operation)
{
	__be32 out[4];

	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 3, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), 0x0c000003);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, 0, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, 4, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_MANAGE_PAGES, 3, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_NOP, 0xffff, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
}

TEST(cmd_uid_and_reserved_header_bits_bad_param)
{
	__be32 in[4] = { 0 }, out[4];

	cmd_hdr(in, CXIB_CMD_OP_NOP, 0);
	CXIB_SET(in, CXIB_CMD_IN_UID, 5);
	CHECK_EQ(cmd_exec(t, in, 16, out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_PARAM);
	CXIB_SET(in, CXIB_CMD_IN_UID, 0);
	CXIB_SET(in, CXIB_CMD_IN_RESERVED_AT_20, 1);
	CHECK_EQ(cmd_exec(t, in, 16, out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_PARAM);
}

TEST(cmd_wrong_state_bad_system_state)
{
	__be32 out[CXIB_QUERY_ISSI_OUT_LEN / 4];
	uint32_t eqn;

	/* nothing but ENABLE_HCA (and NOP) before ENABLE_HCA */
	CHECK_EQ(drv_init_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_disable_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_teardown_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_NOP, 0, 0, 0, out, 16), 0);
	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(drv_enable_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	/* resources need INIT_HCA */
	CHECK_EQ(drv_create_eq(t, drv_eq_buffer(t, 0, 6), 6, 3, 0, 0, &eqn),
		 CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_alloc_uar(t, &eqn), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_teardown_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_disable_hca(t), 0);
	CHECK_EQ(drv_bringup(t), 0);
	/* no more SET_HCA_CAP / SET_ISSI / INIT_HCA / DISABLE_HCA once initialized */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, 1, 0, out, 16),
		 CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_init_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_disable_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_enable_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	/* after TEARDOWN_HCA: only page reclaim and DISABLE_HCA */
	CHECK_EQ(drv_teardown_hca(t), 0);
	CHECK_EQ(drv_init_hca(t), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_alloc_uar(t, &eqn), CXIB_CMD_STAT_BAD_SYS_STATE);
	CHECK_EQ(drv_teardown(t) == CXIB_CMD_STAT_BAD_SYS_STATE, 1);	/* already torn down */
}

/* ---- DMA and threading ------------------------------------------------------------------ */

TEST(dma_failure_counted_no_crash)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	/* queue never programmed: address 0 is outside guest memory */
	ring(t, 0x3);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).dma_errors, 2);
	CHECK_EQ(stats(t).cmds_completed, 0);

	/* queue in unmapped space */
	cmdq_setup(t->dev, 0xfff000000000ull);
	ring(t, 0x1);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).dma_errors, 3);

	/* reads work, writes are refused: the entry stays with the hardware */
	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 16);
	t->fk.fail_writes = true;
	ring(t, 0x1);
	cxfw_process(t->dev);
	t->fk.fail_writes = false;
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 1);
	CHECK_EQ(stats(t).dma_errors, 4);
	CHECK_EQ(stats(t).cmds_completed, 0);

	/* and the engine still works afterwards */
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(stats(t).cmds_completed, 1);
}

TEST(cmd_writes_stay_inside_the_entry_and_output_mailboxes)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	__be32 in[4] = { 0 };
	unsigned int s, writes;

	CHECK_EQ(drv_enable_hca(t), 0);
	cmdq_setup(t->dev, q);
	for (s = 0; s < 32; s++) {
		/* entries only */
		entry_prepare(&t->fk, q, s, CXIB_CMD_OP_NOP, 0, 16, 16);
		t->fk.wr_lo = q + 64ull * s;
		t->fk.wr_hi = t->fk.wr_lo + 64;
		writes = t->fk.dma_writes;
		ring(t, 1u << s);
		cxfw_process(t->dev);
		CHECK_EQ(t->fk.dma_writes - writes, 2);	/* output, then status/ownership */
	}
	CHECK_EQ(t->fk.wr_violations, 0);
	/* output mailboxes: the 8 data areas, then the entry */
	cmd_hdr(in, CXIB_CMD_OP_QUERY_HCA_CAP, 1);
	cmd_prepare(t, 5, in, 16, CXIB_QUERY_HCA_CAP_OUT_LEN);
	t->fk.wr_lo = drv_mbox_addr(t, 5, true, 0);
	t->fk.wr_hi = drv_mbox_addr(t, 5, true, 7) + 512;
	writes = t->fk.dma_writes;
	cmd_ring(t, 1u << 5);
	CHECK_EQ(t->fk.dma_writes - writes, 10);
	CHECK_EQ(t->fk.wr_violations, 2);		/* just the two entry writes */
	CHECK_EQ(fake_wlog_last(&t->fk, q + 5 * 64, q + 6 * 64), (int)t->fk.wlog_n - 1);
	t->fk.wr_hi = 0;
}

TEST(dma_reentering_mmio_does_not_deadlock)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, CXIB_CMD_OP_NOP, 0, 16, 16);
	t->fk.reenter = t->dev;
	ring(t, 0x1);
	cxfw_process(t->dev);
	t->fk.reenter = NULL;
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(stats(t).uar_writes, 1);
}

/* ---- vCPU thread vs worker thread ----------------------------------------------- */

struct worker {
	struct test_ctx *t;
	bool stop;
	unsigned int seen;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fake *fk = &w->t->fk;

	for (;;) {
		pthread_mutex_lock(&fk->lock);
		while (!w->stop && fk->kicks == w->seen)
			pthread_cond_wait(&fk->kicked, &fk->lock);
		if (w->stop) {
			pthread_mutex_unlock(&fk->lock);
			return NULL;
		}
		w->seen = fk->kicks;
		pthread_mutex_unlock(&fk->lock);
		cxfw_process(w->t->dev);
	}
}

TEST(concurrent_doorbells_and_worker_complete_everything)
{
	enum { ROUNDS = 40, SLOTS = 31 };
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	struct worker w = { .t = t };
	pthread_t th;
	unsigned int r, s, busy = 0;
	unsigned long spins;
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	CHECK(pthread_create(&th, NULL, worker_main, &w) == 0);
	for (r = 0; r < ROUNDS; r++) {
		for (s = 0; s < SLOTS; s++) {
			entry_prepare(&t->fk, q, s, (uint16_t)(s & 1 ? CXIB_CMD_OP_NOP : 0x1100 + s),
				      0, 16, 16);
			ring(t, 1u << s);
			(void)rd32(t->dev, 0x1010);	/* the health poll meanwhile */
		}
		/* wait for the worker, but never forever */
		for (spins = 0; spins < 2000000; spins++) {
			busy = 0;
			for (s = 0; s < SLOTS; s++) {
				entry_get(&t->fk, q, s, e);
				busy += e[0x3f] & 1;
			}
			if (!busy)
				break;
			sched_yield();
		}
		if (busy)
			break;
	}
	pthread_mutex_lock(&t->fk.lock);
	w.stop = true;
	pthread_cond_broadcast(&t->fk.kicked);
	pthread_mutex_unlock(&t->fk.lock);
	pthread_join(th, NULL);

	CHECK_EQ(busy, 0);
	CHECK_EQ(stats(t).cmds_completed, ROUNDS * SLOTS);
	CHECK_EQ(stats(t).cmd_doorbells, ROUNDS * SLOTS);
	CHECK_EQ(stats(t).dma_errors, 0);
}

/* ---- reserved input fields (include/cxib/cmd_rsvd.h) ------------------------------------ */

struct rsvd_case {
	uint16_t opcode;
	const char *name;
	uint8_t dw;
	uint32_t mask;
};

#define RSVD_CASE(op, ...) \
	{ CXIB_CMD_OP_##op, #op, CXIB_DW(__VA_ARGS__), CXIB_FMASK(__VA_ARGS__) },

static const struct rsvd_case rsvd_cases[] = {
	CXIB_CMD_RSVD_IN(RSVD_CASE)
};

/*
 * Every row of the description, lenient mode: the command with only the lowest and then
 * only the highest bit of the field set is refused with BAD_PARAM, class RESERVED and
 * the field's dword, before it touches any object (none exists with the numbers 0).
 */
TEST(cmd_every_described_reserved_field_is_refused)
{
	static uint8_t in[0x200], out[0x200];
	size_t i;
	int b;

	CHECK_EQ(drv_bringup(t), 0);
	for (i = 0; i < sizeof(rsvd_cases) / sizeof(rsvd_cases[0]); i++) {
		const struct rsvd_case *c = &rsvd_cases[i];
		uint16_t op_mod = c->opcode == CXIB_CMD_OP_ARM_RQ ? CXIB_ARM_RQ_OP_MOD_SRQ :
				  c->opcode == CXIB_CMD_OP_ARM_XRC_SRQ ?
				  CXIB_ARM_XRC_SRQ_OP_MOD_XRC_SRQ : 0;

		for (b = 0; b < 2; b++) {
			uint32_t bit = b ? 1u << (31 - __builtin_clz(c->mask)) : c->mask & -c->mask;
			unsigned int st;

			memset(in, 0, sizeof(in));
			cmd_hdr(in, c->opcode, op_mod);
			((__be32 *)in)[c->dw] = cxib_host_to_be32(bit);
			st = drv_run(t, in, sizeof(in), out, sizeof(out));
			if (st != CXIB_CMD_STAT_BAD_PARAM ||
			    CXIB_GET(out, CXIB_CMD_OUT_SYNDROME) !=
			    CXFW_SYND(CXFW_SYND_RESERVED, c->dw))
				fprintf(stderr, "%s dword %u bit 0x%08x: status 0x%x\n", c->name,
					c->dw, bit, st);
			CHECK_EQ(st, CXIB_CMD_STAT_BAD_PARAM);
			CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME),
				 CXFW_SYND(CXFW_SYND_RESERVED, c->dw));
		}
	}
	CHECK(i >= 50);
}
