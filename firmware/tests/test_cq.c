// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Completion queues: CREATE/DESTROY/QUERY/MODIFY_CQ and their checks, the CQE writer
 * (ownership per lap, 64- and 128-byte slots, op_own last), overrun -> CQ error event, and
 * arming through the UAR CQ doorbell -> one completion EQE per arm (the PRM's CQ commands and CQE format,
 * 6.3, 6.4).
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"

#define COMP_EQ_VECTOR	3
#define EQ_LOG		6
#define CQ_EVENTS	(1ull << CXIB_EVENT_TYPE_CQ_ERROR)

struct cq_env {
	uint32_t uar, eqn;
	uint64_t eq_buf;
	uint32_t eq_ci;			/* EQEs consumed by the test */
};

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

/* Bring up, allocate a UAR, create an armed EQ for completion and CQ error events. */
static unsigned int setup(struct test_ctx *t, struct cq_env *e)
{
	unsigned int st = drv_bringup(t);

	memset(e, 0, sizeof(*e));
	if (!st)
		st = drv_alloc_uar(t, &e->uar);
	e->eq_buf = drv_eq_buffer(t, 0, EQ_LOG);
	if (!st)
		st = drv_create_eq(t, e->eq_buf, EQ_LOG, e->uar, COMP_EQ_VECTOR, CQ_EVENTS,
				   &e->eqn);
	if (!st)
		drv_eq_doorbell(t, e->uar, e->eqn, 0, true);
	return st;
}

static uint64_t cq_buf(struct test_ctx *t, uint32_t off)
{
	return t->fk.base + DRV_CQ_OFF + off;
}

static uint64_t dbr_addr(struct test_ctx *t, unsigned int k)
{
	return t->fk.base + DRV_DBR_OFF + 64ull * k;
}

struct cq_args {
	uint64_t buf, dbr;
	unsigned int log_size, cqe_sz;
	uint32_t uar, eqn;
	bool oi, comp_en;
	bool scqe_break;		/* scqe_break_moderation_en */
	unsigned int period_mode, period, max_count;
	int npas;			/* < 0: as many as needed */
	uint64_t pas0;			/* != 0: first PAS entry instead of buf */
};

static unsigned int create_cq(struct test_ctx *t, const struct cq_args *a, uint32_t *cqn,
			      uint32_t *syndrome)
{
	uint64_t bytes = (uint64_t)(CXIB_CQE_SIZE << a->cqe_sz) << a->log_size;
	uint32_t need = (uint32_t)((bytes + CXIB_ADAPTER_PAGE_SIZE - 1) / CXIB_ADAPTER_PAGE_SIZE);
	uint32_t npas = a->npas < 0 ? need : (uint32_t)a->npas, i;
	uint32_t inlen = CXIB_CREATE_CQ_IN_LEN(npas);
	uint8_t *in = calloc(1, inlen), cqe[CXIB_CQE_SIZE];
	__be32 *cqc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	/* as mlx5_ib: every CQE invalid, owner 0 */
	memset(cqe, 0, sizeof(cqe));
	cqe[CXIB_CQE_OP_OWN_OFFSET] = 0xf0;
	for (i = 0; bytes <= 0x100000 && i < (1u << a->log_size); i++)
		fake_mem_write(&t->fk, a->buf + ((uint64_t)i << (6 + a->cqe_sz)) +
			       (a->cqe_sz ? 64 : 0), cqe, sizeof(cqe));
	if (a->dbr >= t->fk.base && !(a->dbr & 7))	/* bad ones are never written */
		fake_mem_write(&t->fk, a->dbr, (uint8_t[8]){ 0 }, 8);
	cqc = (__be32 *)(in + CXIB_CREATE_CQ_IN_CQC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_CQ, 0);
	CXIB_SET(cqc, CXIB_CQC_CQE_SZ, a->cqe_sz);
	CXIB_SET(cqc, CXIB_CQC_OI, a->oi);
	CXIB_SET(cqc, CXIB_CQC_CQE_COMP_EN, a->comp_en);
	CXIB_SET(cqc, CXIB_CQC_SCQE_BREAK_MODERATION_EN, a->scqe_break);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD_MODE, a->period_mode);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD, a->period);
	CXIB_SET(cqc, CXIB_CQC_CQ_MAX_COUNT, a->max_count);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, a->log_size);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, a->uar);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, a->eqn);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, a->dbr);
	for (i = 0; i < npas; i++)
		CXIB_SET64(in + CXIB_CREATE_CQ_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   (i == 0 && a->pas0 ? a->pas0 : a->buf) +
			   (uint64_t)i * CXIB_ADAPTER_PAGE_SIZE);
	st = drv_run(t, in, inlen, out, sizeof(out));
	if (!st && cqn)
		*cqn = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
	if (syndrome)
		*syndrome = CXIB_GET(out, CXIB_CMD_OUT_SYNDROME);
	free(in);
	return st;
}

static struct cq_args cq_defaults(struct test_ctx *t, const struct cq_env *e,
				  unsigned int log_size)
{
	struct cq_args a = { 0 };

	a.buf = cq_buf(t, 0);
	a.dbr = dbr_addr(t, 0);
	a.log_size = log_size;
	a.uar = e->uar;
	a.eqn = e->eqn;
	a.npas = -1;
	return a;
}

static unsigned int destroy_cq(struct test_ctx *t, uint32_t cqn)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_DESTROY_CQ, 0, cqn, 0, out, 16);
}

static unsigned int query_cq(struct test_ctx *t, uint32_t cqn, uint8_t *out)
{
	return cmd_simple(t, CXIB_CMD_OP_QUERY_CQ, 0, cqn, 0, out, CXIB_QUERY_CQ_OUT_LEN);
}

/* The model's CQE writer, as a send/receive engine calls it. */
static int post(struct test_ctx *t, uint32_t cqn, unsigned int opcode, uint32_t byte_cnt,
		bool se)
{
	struct cxib_cqe64 cqe;

	memset(&cqe, 0, sizeof(cqe));
	CXIB_SET(&cqe, CXIB_CQE_OPCODE, opcode);
	CXIB_SET(&cqe, CXIB_CQE_SE, se);
	CXIB_SET(&cqe, CXIB_CQE_BYTE_CNT, byte_cnt);
	CXIB_SET(&cqe, CXIB_CQE_QPN, 0x42);
	return cxfw_cq_post(t->dev, cqn, &cqe);
}

static void read_cqe(struct test_ctx *t, const struct cq_args *a, uint32_t n,
		     struct cxib_cqe64 *cqe)
{
	uint32_t slot = n & ((1u << a->log_size) - 1);

	fake_mem_read(&t->fk, a->buf + ((uint64_t)slot << (6 + a->cqe_sz)) +
		      (a->cqe_sz ? 64 : 0), cqe, sizeof(*cqe));
}

static void set_ci(struct test_ctx *t, const struct cq_args *a, uint32_t ci)
{
	uint8_t b[4];

	put_be32(b, ci & 0xffffff);
	fake_mem_write(&t->fk, a->dbr, b, 4);
}

/* The 64-bit arm doorbell at UAR + 0x20 (big-endian dwords, as mlx5_write64). */
static void arm(struct test_ctx *t, uint32_t uar, uint32_t cqn, unsigned int sn, bool sol,
		uint32_t ci)
{
	uint32_t dw0 = CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_SN, sn) |
		       CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CMD, sol) |
		       CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CI, ci);
	uint32_t dw1 = CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CQN, cqn);

	cxfw_mmio_write(t->dev, ((uint64_t)uar << CXIB_ADAPTER_PAGE_SHIFT) + CXIB_UAR_CQ_DOORBELL,
			(uint64_t)__builtin_bswap32(dw0) |
			(uint64_t)__builtin_bswap32(dw1) << 32, 8);
	cxfw_process(t->dev);	/* the worker posts events a doorbell found due */
}

/* Next EQE of the test's EQ if software owns it: its type, else -1. */
static int next_eqe(struct test_ctx *t, struct cq_env *e, struct cxib_eqe *eqe)
{
	drv_eqe(t, e->eq_buf, e->eq_ci & ((1u << EQ_LOG) - 1), eqe);
	if ((eqe->owner & 1) != ((e->eq_ci >> EQ_LOG) & 1))
		return -1;
	e->eq_ci++;
	return eqe->type;
}

TEST(cq_create_query_destroy)
{
	uint8_t out[CXIB_QUERY_CQ_OUT_LEN];
	const __be32 *cqc = (const __be32 *)(out + CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn, cqn2;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK(cqn != 0);
	a.buf = cq_buf(t, 0x10000);
	a.dbr = dbr_addr(t, 1);
	a.cqe_sz = CXIB_CQC_CQE_SZ_128;
	CHECK_EQ(create_cq(t, &a, &cqn2, NULL), 0);
	CHECK(cqn2 != cqn);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_STATUS), CXIB_CQC_STATUS_OK);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_LOG_CQ_SIZE), 4);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_CQE_SZ), CXIB_CQC_CQE_SZ_64);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_UAR_PAGE), e.uar);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_C_EQN), e.eqn);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_ST), CXIB_CQC_ST_FIRED);	/* not armed */
	CHECK_EQ(CXIB_GET64(cqc, CXIB_CQC_DBR_ADDR), dbr_addr(t, 0));
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_PRODUCER_COUNTER), 0);
	CHECK_EQ(query_cq(t, cqn2, out), 0);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_CQE_SZ), CXIB_CQC_CQE_SZ_128);
	CHECK_EQ(destroy_cq(t, cqn), 0);
	CHECK_EQ(destroy_cq(t, cqn), CXIB_CMD_STAT_BAD_RES);		/* double destroy */
	CHECK_EQ(query_cq(t, cqn, out), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(destroy_cq(t, 0), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(destroy_cq(t, CXFW_MAX_CQS), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(destroy_cq(t, cqn2), 0);
}

TEST(cq_create_rejects_bad_input)
{
	struct cq_env e;
	struct cq_args a, b;
	uint32_t cqn, synd;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 2);

	b = a;				/* beyond log_max_cq_sz */
	b.log_size = CXFW_LOG_MAX_CQ_SZ + 1;
	b.npas = 1;
	CHECK_EQ(create_cq(t, &b, &cqn, &synd), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(synd, CXFW_SYND(CXFW_SYND_BAD_PARAM, CXFW_LOG_MAX_CQ_SZ + 1));
	b = a;				/* no such EQ */
	b.eqn = e.eqn + 1;
	CHECK_EQ(create_cq(t, &b, &cqn, &synd), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(synd, CXFW_SYND(CXFW_SYND_BAD_RES, e.eqn + 1));
	b.eqn = 1000;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_RES);
	b = a;				/* UAR not allocated */
	b.uar = e.uar + 1;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_RES);
	b = a;				/* doorbell record not 8-byte aligned / not memory */
	b.dbr += 4;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b.dbr = 0x8;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;				/* 128-byte padded CQEs, compression */
	b.cqe_sz = CXIB_CQC_CQE_SZ_128_PAD;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;
	b.comp_en = true;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;				/* PAS list shorter than the ring */
	b.log_size = 8;			/* 16 KiB: 4 pages */
	b.npas = 2;
	CHECK_EQ(create_cq(t, &b, &cqn, NULL), CXIB_CMD_STAT_BAD_INPUT_LEN);
	b = a;				/* unaligned page */
	b.pas0 = a.buf + 0x80;
	CHECK_EQ(create_cq(t, &b, &cqn, &synd), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(synd, CXFW_SYND(CXFW_SYND_BAD_PAGE, 0));
	/* nothing was created */
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(cqn, 1);
}

TEST(destroy_eq_still_used_by_a_cq_is_busy)
{
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 2);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(drv_destroy_eq(t, e.eqn), CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(destroy_cq(t, cqn), 0);
	CHECK_EQ(drv_destroy_eq(t, e.eqn), 0);
}

TEST(cqe_owner_bit_flips_each_lap)
{
	struct cxib_cqe64 cqe;
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn, n;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 2);		/* 4 CQEs */
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	for (n = 0; n < 12; n++) {
		if (n % 4 == 0)
			set_ci(t, &a, n);	/* software consumed the previous lap */
		CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_RESP_SEND, 100 + n, false), 0);
		read_cqe(t, &a, n, &cqe);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OPCODE), CXIB_CQE_OPCODE_RESP_SEND);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OWNER), (n >> 2) & 1);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 100 + n);
		CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_QPN), 0x42);
	}
	/* op_own is the last byte written */
	CHECK(fake_wlog_last(&t->fk, a.buf + 3 * 64 + 63, a.buf + 3 * 64 + 64) >
	      fake_wlog_last(&t->fk, a.buf + 3 * 64, a.buf + 3 * 64 + 63));
	CHECK(fake_wlog_last(&t->fk, a.buf + 3 * 64, a.buf + 3 * 64 + 63) >= 0);
	CHECK_EQ(stats(t).cqes_written, 12);
}

TEST(cqe_128_byte_slots_use_the_second_half)
{
	struct cxib_cqe64 cqe;
	uint8_t first[64];
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 6);		/* 64 x 128 B = 2 pages */
	a.cqe_sz = CXIB_CQC_CQE_SZ_128;
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	fake_mem_write(&t->fk, a.buf + 40 * 128, (uint8_t[64]){ 0 }, 64);
	set_ci(t, &a, 0);
	for (unsigned int n = 0; n < 41; n++)
		CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, n, false), 0);
	read_cqe(t, &a, 40, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 40);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OWNER), 0);
	fake_mem_read(&t->fk, a.buf + 40 * 128, first, sizeof(first));
	CHECK_EQ(first[63], 0);			/* first half untouched */
}

TEST(cq_overrun_raises_cq_error_event)
{
	uint8_t out[CXIB_QUERY_CQ_OUT_LEN];
	const __be32 *cqc = (const __be32 *)(out + CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	struct cxib_eqe eqe;
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 1);		/* 2 CQEs */
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 1, false), 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 2, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	/* set_ci still 0: the third CQE would overwrite an unconsumed one */
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 3, false), -1);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_CQ_ERROR);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_CQ_ERR_CQN), cqn);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_CQ_ERR_SYNDROME), CXIB_CQ_ERROR_SYNDROME_OVERRUN);
	CHECK_EQ(fake_msix(&t->fk, COMP_EQ_VECTOR), 1);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_STATUS), CXIB_CQC_STATUS_CQ_OVERFLOW);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_PRODUCER_COUNTER), 2);
	/* the CQ is in error: later CQEs are dropped even with room */
	set_ci(t, &a, 2);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 4, false), -1);
	CHECK_EQ(stats(t).cq_overruns, 1);
	CHECK_EQ(stats(t).cqes_written, 2);
}

TEST(cq_overrun_ignore_keeps_writing)
{
	struct cxib_cqe64 cqe;
	struct cxib_eqe eqe;
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn, n;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 1);
	a.oi = true;
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	for (n = 0; n < 5; n++)
		CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, n, false), 0);
	read_cqe(t, &a, 4, &cqe);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_BYTE_CNT), 4);
	CHECK_EQ(CXIB_GET(&cqe, CXIB_CQE_OWNER), 0);	/* third lap */
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
}

TEST(cq_arm_next_fires_one_eqe_per_arm)
{
	uint8_t out[CXIB_QUERY_CQ_OUT_LEN];
	const __be32 *cqc = (const __be32 *)(out + CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	struct cxib_eqe eqe;
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	/* not armed: a CQE makes no event */
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	/* armed at ci 1 (software polled the first): the next CQE fires once */
	set_ci(t, &a, 1);
	arm(t, e.uar, cqn, 0, false, 1);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_ST), CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 1, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_COMP);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_COMP_CQN), cqn);
	CHECK_EQ(fake_msix(&t->fk, COMP_EQ_VECTOR), 1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 2, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);		/* disarmed */
	/* a stale arm (same sn, issued before the driver saw the event) is ignored */
	arm(t, e.uar, cqn, 0, false, 3);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 3, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	/* the next sn with CQEs already past ci fires at once */
	arm(t, e.uar, cqn, 1, false, 3);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_COMP);
	CHECK_EQ(CXIB_GET(&eqe, CXIB_EQE_COMP_CQN), cqn);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	/* with nothing new past ci it waits for the next CQE */
	arm(t, e.uar, cqn, 2, false, 4);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 4, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_COMP);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_ST), CXIB_CQC_ST_FIRED);
	CHECK_EQ(CXIB_GET(cqc, CXIB_CQC_LAST_NOTIFIED_INDEX), 5);
	CHECK_EQ(stats(t).cq_events, 3);
	CHECK_EQ(stats(t).cq_doorbells, 4);
}

TEST(cq_arm_solicited_fires_on_se_or_error_only)
{
	struct cxib_eqe eqe;
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	arm(t, e.uar, cqn, 0, true, 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_RESP_SEND, 1, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_RESP_SEND, 2, true), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_COMP);
	/* error CQEs qualify too */
	arm(t, e.uar, cqn, 1, true, 2);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 3, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ_ERR, 0, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_COMP);
	/* a solicited arm with a solicited CQE already past ci fires at once; one before ci
	 * does not count */
	arm(t, e.uar, cqn, 2, true, 4);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
	arm(t, e.uar, cqn, 2, true, 3);
	CHECK_EQ(next_eqe(t, &e, &eqe), CXIB_EVENT_TYPE_COMP);
}

TEST(cq_doorbell_through_the_wrong_uar_or_for_no_cq_is_ignored)
{
	struct cxib_eqe eqe;
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn, uar2;

	CHECK_EQ(setup(t, &e), 0);
	CHECK_EQ(drv_alloc_uar(t, &uar2), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	arm(t, uar2, cqn, 0, false, 0);
	arm(t, e.uar, cqn + 1, 0, false, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 2);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	CHECK_EQ(next_eqe(t, &e, &eqe), -1);
}

TEST(modify_cq_moderation_and_no_resize)
{
	uint8_t in[CXIB_MODIFY_CQ_IN_LEN(0)] = { 0 }, out[CXIB_QUERY_CQ_OUT_LEN];
	__be32 *cqc = (__be32 *)(in + CXIB_MODIFY_CQ_IN_CQC_OFFSET);
	const __be32 *qc = (const __be32 *)(out + CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	cmd_hdr(in, CXIB_CMD_OP_MODIFY_CQ, CXIB_MODIFY_CQ_OP_MOD_MODIFY);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_CQN, cqn);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT,
		 CXIB_CQ_MODIFY_PERIOD | CXIB_CQ_MODIFY_COUNT);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD, 16);
	CXIB_SET(cqc, CXIB_CQC_CQ_MAX_COUNT, 8);
	CHECK_EQ(drv_run(t, in, sizeof(in), out, 16), 0);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_CQ_PERIOD), 16);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_CQ_MAX_COUNT), 8);
	/* EQ remap is not supported, nor resize */
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT, CXIB_CQ_MODIFY_EQN);
	CHECK_EQ(drv_run(t, in, sizeof(in), out, 16), CXIB_CMD_STAT_BAD_PARAM);
	cmd_hdr(in, CXIB_CMD_OP_MODIFY_CQ, CXIB_MODIFY_CQ_OP_MOD_RESIZE);
	CHECK_EQ(drv_run(t, in, sizeof(in), out, 16), CXIB_CMD_STAT_BAD_OP);
	/* unknown CQ */
	cmd_hdr(in, CXIB_CMD_OP_MODIFY_CQ, CXIB_MODIFY_CQ_OP_MOD_MODIFY);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT, CXIB_CQ_MODIFY_PERIOD);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_CQN, cqn + 1);
	CHECK_EQ(drv_run(t, in, sizeof(in), out, 16), CXIB_CMD_STAT_BAD_RES);
}

/* MODIFY_CQ of the moderation fields in @sel. */
static unsigned int modify_mod(struct test_ctx *t, uint32_t cqn, uint32_t sel,
			       unsigned int mode, unsigned int period, unsigned int count)
{
	uint8_t in[CXIB_MODIFY_CQ_IN_LEN(0)] = { 0 }, out[16];
	__be32 *cqc = (__be32 *)(in + CXIB_MODIFY_CQ_IN_CQC_OFFSET);

	cmd_hdr(in, CXIB_CMD_OP_MODIFY_CQ, CXIB_MODIFY_CQ_OP_MOD_MODIFY);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_CQN, cqn);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT, sel);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD_MODE, mode);
	CXIB_SET(cqc, CXIB_CQC_CQ_PERIOD, period);
	CXIB_SET(cqc, CXIB_CQC_CQ_MAX_COUNT, count);
	return drv_run(t, in, sizeof(in), out, sizeof(out));
}

#define MOD_PC	(CXIB_CQ_MODIFY_PERIOD | CXIB_CQ_MODIFY_COUNT)

#define BAD_EVENT	1000u	/* comp_events(): an EQE of another type or CQ was found */

/* Number of completion EQEs for @cqn now in the EQ, BAD_EVENT if any other is there. */
static unsigned int comp_events(struct test_ctx *t, struct cq_env *e, uint32_t cqn)
{
	struct cxib_eqe eqe;
	unsigned int n = 0;
	int type;

	while ((type = next_eqe(t, e, &eqe)) >= 0) {
		if (type != CXIB_EVENT_TYPE_COMP || CXIB_GET(&eqe, CXIB_EQE_COMP_CQN) != cqn)
			return BAD_EVENT;
		n++;
	}
	return n;
}

TEST(cq_moderation_count)
{
	uint8_t out[CXIB_QUERY_CQ_OUT_LEN];
	const __be32 *qc = (const __be32 *)(out + CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;
	int i;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(modify_mod(t, cqn, MOD_PC, 0, 0, 4), 0);
	arm(t, e.uar, cqn, 0, false, 0);
	/* 3 CQEs: armed and met but fewer than max_count, and the timer is off */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
		fake_advance_ms(&t->fk, 100);
		cxfw_process(t->dev);
		CHECK_EQ(comp_events(t, &e, cqn), 0);
	}
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_ST), CXIB_CQC_ST_NOTIFICATION_REQUEST_ARMED);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_ST), CXIB_CQC_ST_FIRED);
	/* the count is of CQEs at indexes >= the arm's ci: 3 unpolled + 1 new */
	set_ci(t, &a, 1);
	arm(t, e.uar, cqn, 1, false, 1);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
	/* an arm finding max_count CQEs already there fires at once */
	arm(t, e.uar, cqn, 2, false, 0);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
}

TEST(cq_moderation_period_from_eqe)
{
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	a.period = 100;			/* microseconds, timer restarts at each event */
	a.max_count = 16;
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	arm(t, e.uar, cqn, 0, false, 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	fake_advance_ns(&t->fk, 99 * 1000);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	fake_advance_ns(&t->fk, 1000);	/* 100 us since the CQ was created */
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	/* next arm: the timer started at that event */
	fake_advance_ns(&t->fk, 40 * 1000);
	arm(t, e.uar, cqn, 1, false, 1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	fake_advance_ns(&t->fk, 59 * 1000);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	fake_advance_ns(&t->fk, 1000);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
	/* the timer ran out long ago: the next CQE of an arm fires at once */
	fake_advance_ms(&t->fk, 1);
	arm(t, e.uar, cqn, 2, false, 2);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
}

TEST(cq_moderation_period_from_cqe)
{
	uint8_t out[CXIB_QUERY_CQ_OUT_LEN];
	const __be32 *qc = (const __be32 *)(out + CXIB_QUERY_CQ_OUT_CQC_OFFSET);
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(modify_mod(t, cqn, CXIB_CQ_MODIFY_PERIOD | CXIB_CQ_MODIFY_PERIOD_MODE,
			    CXIB_CQ_PERIOD_MODE_START_FROM_CQE, 100, 0), 0);
	CHECK_EQ(query_cq(t, cqn, out), 0);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_CQ_PERIOD_MODE), CXIB_CQ_PERIOD_MODE_START_FROM_CQE);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_CQ_PERIOD), 100);
	CHECK_EQ(CXIB_GET(qc, CXIB_CQC_CQ_MAX_COUNT), 0);
	arm(t, e.uar, cqn, 0, false, 0);
	/* each CQE restarts the timer: a burst 60 us apart never lets it run out */
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	fake_advance_ns(&t->fk, 60 * 1000);
	cxfw_process(t->dev);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	fake_advance_ns(&t->fk, 60 * 1000);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	fake_advance_ns(&t->fk, 40 * 1000);	/* 100 us after the last CQE */
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
}

TEST(cq_moderation_off_and_solicited)
{
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn, cqn2;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	a.max_count = 8;
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	arm(t, e.uar, cqn, 0, false, 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	/* moderation back to 0: the met arm fires at the next worker pass ... */
	CHECK_EQ(modify_mod(t, cqn, MOD_PC, 0, 0, 0), 0);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 1);
	/* ... and every arm fires at its first CQE again */
	arm(t, e.uar, cqn, 1, false, 1);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), 0);
	CHECK_EQ(comp_events(t, &e, cqn), 1);

	/* solicited CQEs are moderated too: an arm for solicited also waits for the count */
	CHECK_EQ(modify_mod(t, cqn, MOD_PC, 0, 0, 2), 0);
	arm(t, e.uar, cqn, 2, true, 2);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_RESP_SEND, 0, true), 0);
	cxfw_process(t->dev);
	CHECK_EQ(comp_events(t, &e, cqn), 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_RESP_SEND, 0, false), 0);
	CHECK_EQ(comp_events(t, &e, cqn), 1);

	/* ... unless scqe_break_moderation_en: an SE CQE fires the met arm at once */
	a.dbr = dbr_addr(t, 1);
	a.buf = cq_buf(t, 0x10000);
	a.scqe_break = true;
	CHECK_EQ(create_cq(t, &a, &cqn2, NULL), 0);
	arm(t, e.uar, cqn2, 0, false, 0);
	CHECK_EQ(post(t, cqn2, CXIB_CQE_OPCODE_RESP_SEND, 0, false), 0);
	CHECK_EQ(comp_events(t, &e, cqn2), 0);
	CHECK_EQ(post(t, cqn2, CXIB_CQE_OPCODE_RESP_SEND, 0, true), 0);
	CHECK_EQ(comp_events(t, &e, cqn2), 1);
}

TEST(cq_moderation_bad_values)
{
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn, synd = 0;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	a.period_mode = 2;		/* only START_FROM_EQE (0) and START_FROM_CQE (1) */
	CHECK_EQ(create_cq(t, &a, &cqn, &synd), CXIB_CMD_STAT_BAD_PARAM);
	CHECK(synd != 0);
	a.period_mode = CXIB_CQ_PERIOD_MODE_START_FROM_CQE;
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(modify_mod(t, cqn, CXIB_CQ_MODIFY_PERIOD_MODE, 3, 0, 0),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(modify_mod(t, cqn, MOD_PC | CXIB_CQ_MODIFY_EQN, 0, 5, 5),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(modify_mod(t, cqn + 1, MOD_PC, 0, 5, 5), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(modify_mod(t, 0, MOD_PC, 0, 5, 5), CXIB_CMD_STAT_BAD_INDEX);
}

TEST(teardown_releases_cqs)
{
	struct cq_env e;
	struct cq_args a;
	uint32_t cqn;

	CHECK_EQ(setup(t, &e), 0);
	a = cq_defaults(t, &e, 4);
	CHECK_EQ(create_cq(t, &a, &cqn, NULL), 0);
	CHECK_EQ(drv_teardown(t), 0);
	CHECK_EQ(post(t, cqn, CXIB_CQE_OPCODE_REQ, 0, false), -1);
}
