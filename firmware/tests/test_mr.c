// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Protection domains and memory keys: ALLOC/DEALLOC_PD, CREATE/QUERY/DESTROY_MKEY with
 * their checks, and the translation the data path engines use (the PRM's PD and memory key sections).
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"

#define SYND_CLASS(s)	((s) >> 24)

struct mkey_args {
	uint32_t pd;
	uint32_t mode;			/* CXIB_MKC_ACCESS_MODE_* */
	bool lr, lw, rr, rw, a, free, umr_en, len64;
	uint8_t variant;
	uint64_t start, len;
	uint32_t log_pg;		/* MTT page size, absolute */
	uint32_t octwords;		/* translations_octword_size */
	uint32_t nmtt;			/* entries supplied */
	const uint64_t *mtt;
	uint32_t qpn;			/* 0: none (0xffffff) */
};

static unsigned int create_mkey(struct test_ctx *t, const struct mkey_args *a, uint32_t *idx,
				uint32_t *syndrome)
{
	uint32_t inlen = CXIB_CREATE_MKEY_IN_LEN((a->nmtt + 1) / 2 * 2), i;
	uint8_t *in = calloc(1, inlen);
	__be32 *mkc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	mkc = (__be32 *)(in + CXIB_CREATE_MKEY_IN_MKC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_MKEY, 0);
	CXIB_SET(mkc, CXIB_MKC_FREE, a->free);
	CXIB_SET(mkc, CXIB_MKC_UMR_EN, a->umr_en);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_1_0, a->mode & 3);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_4_2, a->mode >> 2);
	CXIB_SET(mkc, CXIB_MKC_LR, a->lr);
	CXIB_SET(mkc, CXIB_MKC_LW, a->lw);
	CXIB_SET(mkc, CXIB_MKC_RR, a->rr);
	CXIB_SET(mkc, CXIB_MKC_RW, a->rw);
	CXIB_SET(mkc, CXIB_MKC_A, a->a);
	CXIB_SET(mkc, CXIB_MKC_QPN, a->qpn ? a->qpn : CXIB_MKC_QPN_NONE);
	CXIB_SET(mkc, CXIB_MKC_MKEY_7_0, a->variant);
	CXIB_SET(mkc, CXIB_MKC_LENGTH64, a->len64);
	CXIB_SET(mkc, CXIB_MKC_PD, a->pd);
	CXIB_SET64(mkc, CXIB_MKC_START_ADDR, a->start);
	CXIB_SET64(mkc, CXIB_MKC_LEN, a->len);
	CXIB_SET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE, a->octwords);
	CXIB_SET(mkc, CXIB_MKC_LOG_PAGE_SIZE, a->log_pg);
	CXIB_SET(in, CXIB_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, (a->nmtt + 1) / 2);
	for (i = 0; i < a->nmtt; i++)
		CXIB_SET64(in + CXIB_CREATE_MKEY_IN_KLM_PAS_MTT_OFFSET + 8 * i, CXIB_MTT_ENTRY_PTAG,
			   a->mtt[i]);
	st = drv_run(t, in, inlen, out, sizeof(out));
	if (!st && idx)
		*idx = CXIB_GET(out, CXIB_CREATE_MKEY_OUT_MKEY_INDEX);
	if (syndrome)
		*syndrome = CXIB_GET(out, CXIB_CMD_OUT_SYNDROME);
	free(in);
	return st;
}

static unsigned int destroy_mkey(struct test_ctx *t, uint32_t idx)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_DESTROY_MKEY, 0, idx, 0, out, 16);
}

TEST(pd_alloc_dealloc_and_double_free)
{
	uint32_t pd1, pd2, pd3;
	__be32 out[4];

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd1), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd2), 0);
	CHECK(pd1 != 0 && pd2 != 0 && pd1 != pd2);
	CHECK_EQ(drv_dealloc_pd(t, pd1), 0);
	CHECK_EQ(drv_dealloc_pd(t, pd1), CXIB_CMD_STAT_BAD_RES);	/* double free */
	CHECK_EQ(drv_alloc_pd(t, &pd3), 0);
	CHECK_EQ(pd3, pd1);					/* lowest free number */
	CHECK_EQ(drv_dealloc_pd(t, 0), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(drv_dealloc_pd(t, CXFW_MAX_PDS), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(drv_dealloc_pd(t, 0x777), CXIB_CMD_STAT_BAD_RES);
	/* reserved bits */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_PD, 0, pd2, 1, out, 16),
		 CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(drv_dealloc_pd(t, pd2), 0);
}

TEST(pd_commands_need_an_initialized_hca)
{
	__be32 out[4];

	CHECK_EQ(drv_enable_hca(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ALLOC_PD, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_SYS_STATE);
}

TEST(caps_report_the_implemented_resource_limits)
{
	struct cxib_hca_cap cap;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_CUR), &cap), 0);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_LOG_MAX_PD), CXFW_LOG_MAX_PD);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_LOG_MAX_MKEY), CXFW_LOG_MAX_MKEY);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_LOG_MAX_CQ), CXFW_LOG_MAX_CQ);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_LOG_MAX_CQ_SZ), CXFW_LOG_MAX_CQ_SZ);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_CQ_RESIZE), 0);
	CHECK_EQ(CXIB_GET(cap.dw, CXIB_HCA_CAP_LOG_MAX_SRQ), CXFW_LOG_MAX_SRQ);
}

TEST(mkey_pa_create_query_destroy)
{
	uint8_t out[CXIB_QUERY_MKEY_OUT_LEN];
	const __be32 *mkc = (const __be32 *)(out + CXIB_QUERY_MKEY_OUT_MKC_OFFSET);
	struct mkey_args a = { 0 };
	uint32_t pd, idx;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd), 0);
	a.pd = pd;
	a.mode = CXIB_MKC_ACCESS_MODE_PA;
	a.lr = a.lw = true;
	a.len64 = true;
	a.variant = 0x5c;
	CHECK_EQ(create_mkey(t, &a, &idx, NULL), 0);
	CHECK(idx >= 2);	/* never index 1: lkey 0x100 is the scatter terminator */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_MKEY, 0, idx, 0, out, sizeof(out)), 0);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_PD), pd);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_LR), 1);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_LW), 1);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_RW), 0);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_LENGTH64), 1);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_MKEY_7_0), 0x5c);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_QPN), CXIB_MKC_QPN_NONE);
	CHECK_EQ(CXIB_GET(mkc, CXIB_MKC_ACCESS_MODE_1_0), CXIB_MKC_ACCESS_MODE_PA);
	/* the PD is in use */
	CHECK_EQ(drv_dealloc_pd(t, pd), CXIB_CMD_STAT_RES_BUSY);
	CHECK_EQ(destroy_mkey(t, idx), 0);
	CHECK_EQ(destroy_mkey(t, idx), CXIB_CMD_STAT_BAD_RES);		/* double free */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_MKEY, 0, idx, 0, out, sizeof(out)),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(drv_dealloc_pd(t, pd), 0);
}

TEST(mkey_create_rejects_bad_input)
{
	uint64_t mtt[2] = { 0x700000, 0x701000 };
	struct mkey_args a = { 0 }, b;
	uint32_t pd, idx, synd;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd), 0);
	a.pd = pd;
	a.mode = CXIB_MKC_ACCESS_MODE_MTT;
	a.lr = true;
	a.start = 0x10000;
	a.len = 0x2000;
	a.log_pg = 12;
	a.octwords = 1;
	a.nmtt = 2;
	a.mtt = mtt;

	b = a;			/* unknown PD */
	b.pd = pd + 1;
	CHECK_EQ(create_mkey(t, &b, &idx, &synd), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(synd, CXFW_SYND(CXFW_SYND_BAD_RES, pd + 1));
	b = a;			/* KLM */
	b.mode = CXIB_MKC_ACCESS_MODE_KLMS;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;			/* bound to a QP */
	b.qpn = 5;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;			/* MTT page size below 4 KiB */
	b.log_pg = 11;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;			/* length needs 3 pages, 2 given */
	b.len = 0x2001;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;			/* actual size beyond the capacity */
	b.octwords = 0;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), CXIB_CMD_STAT_BAD_PARAM);
	b = a;			/* unaligned page address */
	b.mtt = (const uint64_t[]){ 0x700000, 0x701800 };
	CHECK_EQ(create_mkey(t, &b, &idx, &synd), CXIB_CMD_STAT_BAD_PARAM);
	CHECK_EQ(synd, CXFW_SYND(CXFW_SYND_BAD_PAGE, 1));
	b = a;			/* PA with translations */
	b.mode = CXIB_MKC_ACCESS_MODE_PA;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), CXIB_CMD_STAT_BAD_PARAM);
	/* a free MTT key needs no translation yet */
	b = a;
	b.free = b.umr_en = true;
	b.nmtt = 0;
	b.octwords = 4;
	CHECK_EQ(create_mkey(t, &b, &idx, NULL), 0);
	CHECK_EQ(create_mkey(t, &a, &idx, NULL), 0);
	/* unknown indexes */
	CHECK_EQ(destroy_mkey(t, 0), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(destroy_mkey(t, 1), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(destroy_mkey(t, CXFW_MAX_MKEYS), CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(destroy_mkey(t, 0x999), CXIB_CMD_STAT_BAD_RES);
}

TEST(mkey_translate_checks_key_pd_access_and_range)
{
	uint64_t base = t->fk.base + DRV_DATA_OFF;
	/* the middle entry with its read/write enables, as mlx5_ib may write them */
	uint64_t mtt[3] = { base + 0x3000, (base + 0x1000) | CXIB_MTT_RD_EN | CXIB_MTT_WR_EN,
			    base + 0x2000 };
	struct mkey_args a = { 0 };
	struct cxfw_sg sg[4];
	uint32_t pd, pd2, idx, key, idx_pa, key_pa;
	unsigned int n;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd2), 0);
	a.pd = pd;
	a.mode = CXIB_MKC_ACCESS_MODE_MTT;
	a.lr = a.lw = a.rr = true;
	a.variant = 0x21;
	a.start = 0x7f0000010800ull;	/* starts 0x800 into its first page */
	a.len = 0x2000;
	a.log_pg = 12;
	a.octwords = 2;
	a.nmtt = 3;
	a.mtt = mtt;
	CHECK_EQ(create_mkey(t, &a, &idx, NULL), 0);
	key = CXIB_MKEY(idx, 0x21);

	/* 0x1000 bytes from start: the rest of page 0, then half of page 1 (not adjacent) */
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_LOCAL_WRITE, a.start, 0x1000,
				     sg, 4, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(sg[0].addr, base + 0x3800);
	CHECK_EQ(sg[0].len, 0x800);
	CHECK_EQ(sg[1].addr, base + 0x1000);
	CHECK_EQ(sg[1].len, 0x800);
	/* pages 1 and 2 are adjacent in memory: one piece */
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_REMOTE_READ,
				     a.start + 0x800, 0x1800, sg, 4, &n), 0);
	CHECK_EQ(n, 1);
	CHECK_EQ(sg[0].addr, base + 0x1000);
	CHECK_EQ(sg[0].len, 0x1800);
	/* zero length: nothing to do, still checked */
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_LOCAL_READ, 0, 0, sg, 4, &n), 0);
	CHECK_EQ(n, 0);
	/* failures: local ones are protection errors, remote ones access errors */
	CHECK_EQ(cxfw_mkey_translate(t->dev, CXIB_MKEY(idx, 0x22), pd, CXFW_ACCESS_LOCAL_READ,
				     a.start, 8, sg, 4, &n), CXIB_CQE_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(cxfw_mkey_translate(t->dev, CXIB_MKEY(idx + 1, 0x21), pd,
				     CXFW_ACCESS_REMOTE_READ, a.start, 8, sg, 4, &n),
		 CXIB_CQE_SYND_REMOTE_ACCESS_ERR);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd2, CXFW_ACCESS_LOCAL_READ, a.start, 8, sg, 4,
				     &n), CXIB_CQE_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_REMOTE_WRITE, a.start, 8, sg,
				     4, &n), CXIB_CQE_SYND_REMOTE_ACCESS_ERR);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_LOCAL_READ, a.start - 1, 8, sg,
				     4, &n), CXIB_CQE_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_LOCAL_READ,
				     a.start + a.len - 4, 8, sg, 4, &n),
		 CXIB_CQE_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_LOCAL_READ, a.start, 0x1000,
				     sg, 1, &n), CXIB_CQE_SYND_LOCAL_LENGTH_ERR);

	/* PA + length64: identity over the whole address space */
	a.mode = CXIB_MKC_ACCESS_MODE_PA;
	a.len64 = true;
	a.start = a.len = 0;
	a.octwords = a.nmtt = 0;
	a.log_pg = 0;
	a.variant = 0;
	CHECK_EQ(create_mkey(t, &a, &idx_pa, NULL), 0);
	key_pa = CXIB_MKEY(idx_pa, 0);
	CHECK(key_pa != CXIB_INVALID_LKEY);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key_pa, pd, CXFW_ACCESS_LOCAL_WRITE, 0x123456789ull,
				     100, sg, 4, &n), 0);
	CHECK_EQ(n, 1);
	CHECK_EQ(sg[0].addr, 0x123456789ull);
	CHECK_EQ(sg[0].len, 100);
	/* once destroyed the key is gone */
	CHECK_EQ(destroy_mkey(t, idx), 0);
	CHECK_EQ(cxfw_mkey_translate(t->dev, key, pd, CXFW_ACCESS_LOCAL_READ, 0x7f0000010800ull,
				     8, sg, 4, &n), CXIB_CQE_SYND_LOCAL_PROT_ERR);
}

TEST(mkey_free_key_is_not_usable)
{
	struct mkey_args a = { 0 };
	struct cxfw_sg sg[2];
	uint32_t pd, idx;
	unsigned int n;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd), 0);
	a.pd = pd;
	a.mode = CXIB_MKC_ACCESS_MODE_MTT;
	a.free = a.umr_en = a.lr = a.lw = true;
	a.log_pg = 12;
	a.octwords = 8;
	CHECK_EQ(create_mkey(t, &a, &idx, NULL), 0);
	CHECK_EQ(cxfw_mkey_translate(t->dev, CXIB_MKEY(idx, 0), pd, CXFW_ACCESS_LOCAL_READ, 0, 8,
				     sg, 2, &n), CXIB_CQE_SYND_LOCAL_PROT_ERR);
}

TEST(teardown_releases_pds_and_mkeys)
{
	struct mkey_args a = { 0 };
	uint32_t pd, idx;

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_pd(t, &pd), 0);
	a.pd = pd;
	a.mode = CXIB_MKC_ACCESS_MODE_PA;
	a.len64 = a.lr = true;
	CHECK_EQ(create_mkey(t, &a, &idx, NULL), 0);
	CHECK_EQ(drv_teardown(t), 0);
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_dealloc_pd(t, pd), CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(destroy_mkey(t, idx), CXIB_CMD_STAT_BAD_RES);
}

TEST(xrcd_alloc_dealloc_and_double_free)
{
	uint32_t x1, x2;
	__be32 out[4];

	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ALLOC_XRCD, 0, 0, 0, out, 16), 0);
	x1 = CXIB_GET(out, CXIB_ALLOC_XRCD_OUT_XRCD);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ALLOC_XRCD, 0, 0, 0, out, 16), 0);
	x2 = CXIB_GET(out, CXIB_ALLOC_XRCD_OUT_XRCD);
	CHECK(x1 != 0 && x2 != 0 && x1 != x2);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_XRCD, 0, x1, 0, out, 16), 0);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_XRCD, 0, x1, 0, out, 16),
		 CXIB_CMD_STAT_BAD_RES);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_XRCD, 0, 0, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_XRCD, 0, CXFW_MAX_XRCDS, 0, out, 16),
		 CXIB_CMD_STAT_BAD_INDEX);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_DEALLOC_XRCD, 0, x2, 0, out, 16), 0);
}
