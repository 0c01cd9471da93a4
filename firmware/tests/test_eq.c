// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event queues: CREATE/DESTROY/QUERY_EQ and their checks, EQE layout and ownership,
 * command-completion EQEs, doorbells, arming and MSI-X (the PRM's command completion and EQ chapters).
 */
#include <string.h>

#include "drv.h"

#define CMD_EVENTS	(1ull << CXIB_EVENT_TYPE_CMD)

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

/* Bring up and allocate a UAR: the state every EQ test starts from. */
static unsigned int setup(struct test_ctx *t, uint32_t *uar)
{
	unsigned int st = drv_bringup(t);

	return st ? st : drv_alloc_uar(t, uar);
}

static unsigned int nop(struct test_ctx *t, unsigned int slot)
{
	__be32 in[4] = { 0 }, out[4];
	int d;

	cmd_hdr(in, CXIB_CMD_OP_NOP, 0);
	cmd_prepare(t, slot, in, 16, 16);
	cmd_ring(t, 1u << slot);
	d = cmd_collect(t, slot, out, 16);
	return d ? 0x100 + (unsigned int)d : out_status(out);
}

TEST(create_query_destroy_eq)
{
	uint8_t out[CXIB_QUERY_EQ_OUT_LEN];
	const __be32 *eqc = (const __be32 *)(out + CXIB_QUERY_EQ_OUT_EQC_OFFSET);
	uint32_t uar, eqn, eqn2;
	uint64_t buf;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 7);
	CHECK_EQ(drv_create_eq(t, buf, 7, uar, 2, CMD_EVENTS | 1ull << 9, &eqn), 0);
	CHECK_EQ(eqn, 0);
	CHECK_EQ(drv_create_eq(t, drv_eq_buffer(t, 0x10000, 6), 6, uar, 1, 0, &eqn2), 0);
	CHECK_EQ(eqn2, 1);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_EQ, 0, eqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_STATUS), CXIB_EQC_STATUS_OK);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_LOG_EQ_SIZE), 7);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_UAR_PAGE), uar);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_INTR), 2);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_ST), CXIB_EQC_ST_FIRED);	/* not armed yet */
	/* the second CREATE_EQ's completion went to this EQ */
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_PRODUCER_COUNTER), 1);
	CHECK_EQ(CXIB_GET64(out, CXIB_QUERY_EQ_OUT_EVENT_BITMASK), CMD_EVENTS | 1ull << 9);
	/* two EQEs so far (second CREATE_EQ, QUERY_EQ): consume them and arm */
	drv_eq_doorbell(t, uar, eqn, 2, true);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_EQ, 0, eqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_ST), CXIB_EQC_ST_ARMED);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_CONSUMER_COUNTER), 2);
	CHECK_EQ(fake_msix(&t->fk, 2), 1);		/* fired by the QUERY_EQ's own EQE */

	CHECK_EQ(drv_destroy_eq(t, eqn), 0);
	CHECK_EQ(drv_destroy_eq(t, eqn), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_EQ, 0, eqn, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(drv_destroy_eq(t, 200), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_EQ, 0, 32, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(drv_destroy_eq(t, eqn2), 0);
}

TEST(create_eq_rejects_bad_contexts)
{
	uint64_t buf;
	uint32_t uar, eqn;
	uint8_t in[CXIB_CREATE_EQ_IN_LEN(2)] = { 0 };
	__be32 *eqc = (__be32 *)(in + CXIB_CREATE_EQ_IN_EQC_OFFSET), out[4];

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 6);
	CHECK_EQ(drv_create_eq(t, buf, 17, uar, 0, 0, &eqn), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(drv_create_eq(t, buf, 6, uar, 8, 0, &eqn), CXIB_CMD_STAT_BAD_PARAM);	/* vector */
	CHECK_EQ(drv_create_eq(t, buf, 6, uar + 1, 0, 0, &eqn), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(drv_create_eq(t, buf + 0x100, 6, uar, 0, 0, &eqn), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(drv_create_eq(t, 0x7f0000000000ull, 6, uar, 0, 0, &eqn),
		 CXIB_CMD_STAT_BAD_PARAM);
	/* 128 EQEs = 2 PAS pages, only one given */
	cmd_hdr(in, CXIB_CMD_OP_CREATE_EQ, 0);
	CXIB_SET(eqc, CXIB_EQC_LOG_EQ_SIZE, 7);
	CXIB_SET(eqc, CXIB_EQC_UAR_PAGE, uar);
	CXIB_SET64(in + CXIB_CREATE_EQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, buf);
	CHECK_EQ(cmd_exec(t, in, CXIB_CREATE_EQ_IN_LEN(1), out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_INPUT_LEN);
	/* reserved input words */
	CXIB_SET(eqc, CXIB_EQC_LOG_EQ_SIZE, 6);
	CXIB_SET(in, CXIB_CREATE_EQ_IN_RESERVED_AT_40, 1);
	CHECK_EQ(cmd_exec(t, in, CXIB_CREATE_EQ_IN_LEN(1), out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_PARAM);
	CXIB_SET(in, CXIB_CREATE_EQ_IN_RESERVED_AT_40, 0);
	/* the largest page_offset still lies in the page (it counts page size / 64 units) */
	CXIB_SET(eqc, CXIB_EQC_LOG_PAGE_SIZE, 0);
	CXIB_SET(eqc, CXIB_EQC_PAGE_OFFSET, 63);
	CXIB_SET64(in + CXIB_CREATE_EQ_IN_PAS_OFFSET + 8, CXIB_PAS_ENTRY_PA, buf + 4096);
	CHECK_EQ(cmd_exec(t, in, CXIB_CREATE_EQ_IN_LEN(2), out, 16), 0);
	CHECK_EQ(out_status(out), 0);			/* 63 * 64 < 4096: fine, 2 pages */
	CXIB_SET(eqc, CXIB_EQC_LOG_PAGE_SIZE, 20);
	CHECK_EQ(cmd_exec(t, in, CXIB_CREATE_EQ_IN_LEN(2), out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(stats(t).dma_errors, 0);
}

TEST(create_eq_runs_out_of_eqs)
{
	uint32_t uar, eqn, i;
	uint64_t buf;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 6);
	for (i = 0; i < 32; i++) {
		CHECK_EQ(drv_create_eq(t, buf, 6, uar, 0, 0, &eqn), 0);	/* same buffer: fine */
		CHECK_EQ(eqn, i);
	}
	CHECK_EQ(drv_create_eq(t, buf, 6, uar, 0, 0, &eqn), CXIB_CMD_STAT_NO_RESOURCES);
	CHECK_EQ(drv_destroy_eq(t, 17), 0);
	CHECK_EQ(drv_create_eq(t, buf, 6, uar, 0, 0, &eqn), 0);
	CHECK_EQ(eqn, 17);
	/* TEARDOWN_HCA closes them all */
	CHECK_EQ(drv_teardown(t), 0);
	CHECK_EQ(drv_pages_out(), 0);
}

TEST(cmd_completion_eqe_after_the_cmd_eq_exists)
{
	uint32_t uar, eqn;
	uint64_t buf;
	struct cxib_eqe e;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 8);
	CHECK_EQ(drv_create_eq(t, buf, 8, uar, 0, CMD_EVENTS, &eqn), 0);
	/* CREATE_EQ itself completed in polling mode: no EQE for it */
	drv_eqe(t, buf, 0, &e);
	CHECK_EQ(e.owner, 1);
	CHECK_EQ(stats(t).eqes_written, 0);

	CHECK_EQ(nop(t, 3), 0);
	drv_eqe(t, buf, 0, &e);
	CHECK_EQ(e.type, CXIB_EVENT_TYPE_CMD);
	CHECK_EQ(e.sub_type, 0);
	CHECK_EQ(CXIB_GET(&e, CXIB_EQE_CMD_VECTOR), 1u << 3);
	CHECK_EQ(e.owner, 0);				/* first lap */
	CHECK_EQ(e.signature, 0);
	CHECK_EQ(fake_msix(&t->fk, 0), 0);		/* not armed */
	/* a failed command and a delivery error complete with an EQE too */
	{
		__be32 out[4];
		uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
		uint8_t bad = 0x06;

		CHECK_EQ(cmd_simple(t, 0x7777, 0, 0, 0, out, 16), CXIB_CMD_STAT_BAD_OP);
		drv_eqe(t, buf, 1, &e);
		CHECK_EQ(CXIB_GET(&e, CXIB_EQE_CMD_VECTOR), 1u << 0);
		CHECK_EQ(e.owner, 0);
		cmd_prepare(t, 9, out, 16, 16);
		fake_mem_write(&t->fk, q + 9 * 64, &bad, 1);	/* type 6 */
		cmd_ring(t, 1u << 9);
		CHECK_EQ(cmd_collect(t, 9, NULL, 0), CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR);
		drv_eqe(t, buf, 2, &e);
		CHECK_EQ(CXIB_GET(&e, CXIB_EQE_CMD_VECTOR), 1u << 9);
	}
	CHECK_EQ(stats(t).eqes_written, 3);
}

TEST(cmd_completion_eqe_written_after_ownership)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint32_t uar, eqn;
	uint64_t buf;
	int own, eqe;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 8);
	CHECK_EQ(drv_create_eq(t, buf, 8, uar, 0, CMD_EVENTS, &eqn), 0);
	drv_eq_doorbell(t, uar, eqn, 0, true);
	CHECK_EQ(nop(t, 6), 0);
	own = fake_wlog_last(&t->fk, q + 6 * 64 + 0x3c, q + 6 * 64 + 0x40);
	eqe = fake_wlog_last(&t->fk, buf, buf + 64);
	CHECK(own >= 0);
	CHECK(eqe > own);
	CHECK_EQ(fake_msix(&t->fk, 0), 1);		/* armed: the EQE fired vector 0 */
}

TEST(concurrent_slots_get_one_completion_eqe_each)
{
	__be32 in[4] = { 0 };
	uint32_t uar, eqn, seen = 0, i;
	uint64_t buf;
	struct cxib_eqe e;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 8);
	CHECK_EQ(drv_create_eq(t, buf, 8, uar, 0, CMD_EVENTS, &eqn), 0);
	cmd_hdr(in, CXIB_CMD_OP_NOP, 0);
	cmd_prepare(t, 1, in, 16, 16);
	cmd_prepare(t, 4, in, 16, 16);
	cmd_prepare(t, 31, in, 16, 16);
	cmd_ring(t, 1u << 1 | 1u << 4 | 1u << 31);
	for (i = 0; i < 3; i++) {
		drv_eqe(t, buf, i, &e);
		CHECK_EQ(e.type, CXIB_EVENT_TYPE_CMD);
		CHECK_EQ(__builtin_popcount(CXIB_GET(&e, CXIB_EQE_CMD_VECTOR)), 1);
		seen |= CXIB_GET(&e, CXIB_EQE_CMD_VECTOR);
	}
	CHECK_EQ(seen, 1u << 1 | 1u << 4 | 1u << 31);
	drv_eqe(t, buf, 3, &e);
	CHECK_EQ(e.owner, 1);				/* nothing more */
}

TEST(eq_arming_and_msix)
{
	uint32_t uar, eqn;
	uint64_t buf;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 8);
	CHECK_EQ(drv_create_eq(t, buf, 8, uar, 5, CMD_EVENTS, &eqn), 0);
	/* an EQE while disarmed: no interrupt; arming with it pending fires at once */
	CHECK_EQ(nop(t, 0), 0);
	CHECK_EQ(fake_msix(&t->fk, 5), 0);
	drv_eq_doorbell(t, uar, eqn, 0, true);
	CHECK_EQ(fake_msix(&t->fk, 5), 1);
	/* still disarmed: the next EQE is silent */
	CHECK_EQ(nop(t, 0), 0);
	CHECK_EQ(fake_msix(&t->fk, 5), 1);
	/* consumed both, armed: the next EQE fires once */
	drv_eq_doorbell(t, uar, eqn, 2, true);
	CHECK_EQ(fake_msix(&t->fk, 5), 1);
	CHECK_EQ(nop(t, 0), 0);
	CHECK_EQ(fake_msix(&t->fk, 5), 2);
	CHECK_EQ(nop(t, 0), 0);
	CHECK_EQ(fake_msix(&t->fk, 5), 2);
	/* update-only doorbell never fires */
	drv_eq_doorbell(t, uar, eqn, 3, false);
	CHECK_EQ(fake_msix(&t->fk, 5), 2);
	drv_eq_doorbell(t, uar, eqn, 4, true);
	CHECK_EQ(nop(t, 0), 0);
	CHECK_EQ(fake_msix(&t->fk, 5), 3);
	CHECK_EQ(stats(t).msix_sent, 3);
	CHECK_EQ(fake_msix(&t->fk, 0), 0);		/* only the EQ's own vector */
}

TEST(eq_doorbell_through_the_wrong_uar_or_for_no_eq_is_ignored)
{
	uint32_t uar, uar2, eqn;
	uint64_t buf;

	CHECK_EQ(setup(t, &uar), 0);
	CHECK_EQ(drv_alloc_uar(t, &uar2), 0);
	buf = drv_eq_buffer(t, 0, 8);
	CHECK_EQ(drv_create_eq(t, buf, 8, uar, 1, CMD_EVENTS, &eqn), 0);
	CHECK_EQ(nop(t, 0), 0);
	drv_eq_doorbell(t, uar2, eqn, 0, true);		/* another UAR */
	drv_eq_doorbell(t, uar, 9, 0, true);		/* no such EQ */
	drv_eq_doorbell(t, 0x1ff0, eqn, 0, true);	/* a UAR page nobody allocated */
	CHECK_EQ(fake_msix(&t->fk, 1), 0);
	CHECK_EQ(fake_err_logs(&t->fk), 3);
	drv_eq_doorbell(t, uar, eqn, 0, true);
	CHECK_EQ(fake_msix(&t->fk, 1), 1);
	/* a UAR an EQ still uses cannot go */
	{
		__be32 out[4];

		CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_UAR, 0, uar, 0, out, 16),
			 CXIB_CMD_STAT_RES_BUSY);
	}
}

TEST(eq_owner_bit_toggles_each_lap_and_overrun_drops)
{
	uint32_t uar, eqn, i;
	uint64_t buf;
	struct cxib_eqe e;
	uint8_t out[CXIB_QUERY_EQ_OUT_LEN];
	const __be32 *eqc = (const __be32 *)(out + CXIB_QUERY_EQ_OUT_EQC_OFFSET);

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 2);			/* 4 EQEs */
	CHECK_EQ(drv_create_eq(t, buf, 2, uar, 0, CMD_EVENTS, &eqn), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(nop(t, 0), 0);
	for (i = 0; i < 4; i++) {
		drv_eqe(t, buf, i, &e);
		CHECK_EQ(e.owner, 0);
	}
	/* full: the fifth is dropped */
	CHECK_EQ(nop(t, 0), 0);
	CHECK_EQ(stats(t).eq_overruns, 1);
	CHECK_EQ(stats(t).eqes_written, 4);
	/* consume all four: the second lap writes owner 1 */
	drv_eq_doorbell(t, uar, eqn, 4, false);
	for (i = 0; i < 3; i++)
		CHECK_EQ(nop(t, 0), 0);
	for (i = 0; i < 3; i++) {
		drv_eqe(t, buf, i, &e);
		CHECK_EQ(e.owner, 1);
	}
	drv_eqe(t, buf, 3, &e);
	CHECK_EQ(e.owner, 0);				/* slot 3 not rewritten yet */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_EQ, 0, eqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_PRODUCER_COUNTER), 7);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_CONSUMER_COUNTER), 4);
}

TEST(eqe_write_failure_reported_in_eq_status)
{
	uint8_t out[CXIB_QUERY_EQ_OUT_LEN];
	const __be32 *eqc = (const __be32 *)(out + CXIB_QUERY_EQ_OUT_EQC_OFFSET);
	uint32_t uar, eqn;
	uint64_t buf;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 6);
	CHECK_EQ(drv_create_eq(t, buf, 6, uar, 0, CMD_EVENTS, &eqn), 0);
	drv_eq_doorbell(t, uar, eqn, 0, true);
	/* the EQ's memory goes away (the command itself still completes) */
	t->fk.fail_lo = buf;
	t->fk.fail_hi = buf + 4096;
	CHECK_EQ(nop(t, 0), 0);
	t->fk.fail_hi = 0;
	CHECK_EQ(stats(t).eqes_written, 0);
	CHECK_EQ(stats(t).dma_errors, 1);
	CHECK_EQ(fake_msix(&t->fk, 0), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_EQ, 0, eqn, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_STATUS), CXIB_EQC_STATUS_EQ_WRITE_FAILURE);
	CHECK_EQ(CXIB_GET(eqc, CXIB_EQC_PRODUCER_COUNTER), 0);
}

TEST(eq_with_page_offset_and_large_pages)
{
	uint8_t in[CXIB_CREATE_EQ_IN_LEN(1)] = { 0 };
	__be32 *eqc = (__be32 *)(in + CXIB_CREATE_EQ_IN_EQC_OFFSET), out[4];
	uint64_t buf;
	uint32_t uar, eqn;
	struct cxib_eqe e;

	CHECK_EQ(setup(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 8);			/* 16 KiB of owner-1 EQEs */
	cmd_hdr(in, CXIB_CMD_OP_CREATE_EQ, 0);
	CXIB_SET(eqc, CXIB_EQC_LOG_EQ_SIZE, 6);
	CXIB_SET(eqc, CXIB_EQC_UAR_PAGE, uar);
	CXIB_SET(eqc, CXIB_EQC_LOG_PAGE_SIZE, 2);	/* one 16 KiB page */
	/* page_offset counts page size / 64 units: 4 x 256 bytes, EQE slot 16 */
	CXIB_SET(eqc, CXIB_EQC_PAGE_OFFSET, 4);
	CXIB_SET64(in, CXIB_CREATE_EQ_IN_EVENT_BITMASK, CMD_EVENTS);
	CXIB_SET64(in + CXIB_CREATE_EQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, buf);
	CHECK_EQ(cmd_exec(t, in, sizeof(in), out, 16), 0);
	CHECK_EQ(out_status(out), 0);
	eqn = CXIB_GET(out, CXIB_CREATE_EQ_OUT_EQ_NUMBER);
	CHECK_EQ(nop(t, 2), 0);
	drv_eqe(t, buf, 16, &e);
	CHECK_EQ(e.type, CXIB_EVENT_TYPE_CMD);
	CHECK_EQ(e.owner, 0);
	drv_eqe(t, buf, 4, &e);		/* where 64-byte units would have put it */
	CHECK_EQ(e.owner, 1);
	drv_eqe(t, buf, 0, &e);
	CHECK_EQ(e.owner, 1);
	CHECK_EQ(drv_destroy_eq(t, eqn), 0);
	/* a 16 KiB page must be 16 KiB aligned */
	CXIB_SET64(in + CXIB_CREATE_EQ_IN_PAS_OFFSET, CXIB_PAS_ENTRY_PA, buf + 0x1000);
	CHECK_EQ(cmd_exec(t, in, sizeof(in), out, 16), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_BAD_PARAM);
}
