// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the pure parts of SRQs, fast-registration MRs, multicast and the port counters
 * (srq.c, mr.c, mcast.c, counters.c), without a device:
 *
 * - SRQ ring geometry, the free list of linked WQEs, the WQEs post_srq_recv writes (checked
 *   byte by byte against the PRM's offsets), the doorbell record, full and bad requests,
 *   and recycling a WQE a completion names;
 * - the device's view of an SRQ: the srqc of CREATE_SRQ (ISSI 0), the rmpc and wq of
 *   CREATE_RMP (ISSI 1), the MODIFY_RMP input that arms an RMP's limit, and how far into
 *   its page each context lets a ring start;
 * - the memory key context of a fast-registration MR and the translation list map_mr_sg
 *   builds from a DMA-mapped scatterlist;
 * - the ATTACH_TO_MCG / DETACH_FROM_MCG input;
 * - the counter names and which QUERY_Q_COUNTER dword each is read from.
 */

#include <kunit/test.h>
#include <linux/scatterlist.h>
#include <linux/unaligned.h>

#include "cxib_kunit.h"

/* ---- SRQ ---------------------------------------------------------------------------------- */

/* Byte offsets in an SRQ WQE (PRM §6: next segment, then 16-byte data segments). */
#define OFF_NEXT_WQE_INDEX	2
#define SRQ_NEXT_SEG_SIZE	16
#define DSEG_SIZE		16
#define OFF_DSEG_BYTE_COUNT	0
#define OFF_DSEG_LKEY		4
#define OFF_DSEG_ADDR		8
#define INVALID_LKEY		0x100

static struct cxib_caps srq_test_caps(void)
{
	struct cxib_caps caps = {
		.log_max_srq = 12,
		.log_max_srq_sz = 15,
		.max_wqe_sz_rq = 512,
	};

	return caps;
}

static void srq_geometry_test(struct kunit *test)
{
	struct cxib_caps caps = srq_test_caps();
	u8 log_size, log_stride;

	/* 1 SGE: 16 + 16 = 32 bytes; 100 WRs + the sentinel: 128 WQEs */
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 100, 1, &log_size, &log_stride), 0);
	KUNIT_EXPECT_EQ(test, log_size, 7);
	KUNIT_EXPECT_EQ(test, log_stride, 5);
	/* 0 SGEs still gets room for one (the terminator) */
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 1, 0, &log_size, &log_stride), 0);
	KUNIT_EXPECT_EQ(test, log_size, 1);
	KUNIT_EXPECT_EQ(test, log_stride, 5);
	/* 127 WRs need exactly 128 WQEs; 128 WRs need 256 */
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 127, 2, &log_size, &log_stride), 0);
	KUNIT_EXPECT_EQ(test, log_size, 7);
	KUNIT_EXPECT_EQ(test, log_stride, 6);	/* 48 -> 64 bytes */
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 128, 2, &log_size, &log_stride), 0);
	KUNIT_EXPECT_EQ(test, log_size, 8);
	/* 31 SGEs: 16 + 496 = 512, the device's largest receive WQE; 32 do not fit */
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 4, 31, &log_size, &log_stride), 0);
	KUNIT_EXPECT_EQ(test, log_stride, 9);
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 4, 32, &log_size, &log_stride), -EINVAL);
	/* limits of the ring */
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 0, 1, &log_size, &log_stride), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, BIT(15) - 1, 1, &log_size, &log_stride), 0);
	KUNIT_EXPECT_EQ(test, log_size, 15);
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, BIT(15), 1, &log_size, &log_stride),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_srq_geometry(&caps, 4, U32_MAX, &log_size, &log_stride),
			-EINVAL);
}

/*
 * An SRQ of 2^log_size WQEs of 2^log_stride bytes in plain memory, of a device that exists
 * only as a structure: no firmware, no DMA.
 */
static struct cxib_srq *fake_srq(struct kunit *test, u8 log_size, u8 log_stride)
{
	struct cxib_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);
	struct cxib_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, srq);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	srq->ibsrq.device = &dev->ibdev;
	srq->log_size = log_size;
	srq->log_stride = log_stride;
	srq->max_gs = (BIT(log_stride) - SRQ_NEXT_SEG_SIZE) / DSEG_SIZE;
	srq->buf.npages = DIV_ROUND_UP(BIT(log_size + log_stride), PAGE_SIZE);
	srq->buf.bufs = kunit_kcalloc(test, srq->buf.npages, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srq->buf.bufs);
	for (i = 0; i < srq->buf.npages; i++) {
		srq->buf.bufs[i] = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, srq->buf.bufs[i]);
	}
	srq->dbr.db = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srq->dbr.db);
	srq->wrid = kunit_kcalloc(test, BIT(log_size), sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srq->wrid);
	spin_lock_init(&srq->lock);
	cxib_srq_init_free_list(srq);
	return srq;
}

static u8 *wqe_bytes(struct cxib_srq *srq, u32 idx)
{
	u32 off = idx << srq->log_stride;

	return (u8 *)srq->buf.bufs[off / PAGE_SIZE] + off % PAGE_SIZE;
}

static u16 wqe_next(struct cxib_srq *srq, u32 idx)
{
	return get_unaligned_be16(wqe_bytes(srq, idx) + OFF_NEXT_WQE_INDEX);
}

static u32 dbr_counter(struct cxib_srq *srq)
{
	return get_unaligned_be32(srq->dbr.db) & 0xffff;
}

static void srq_free_list_init_test(struct kunit *test)
{
	/* 256 WQEs of 64 bytes: four pages, so the links cross pieces of the buffer */
	struct cxib_srq *srq = fake_srq(test, 8, 6);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, srq->head, 0);
	KUNIT_EXPECT_EQ(test, srq->tail, 255);
	KUNIT_EXPECT_EQ(test, srq->wqe_ctr, 0);
	for (i = 0; i < 256; i++)
		KUNIT_EXPECT_EQ(test, wqe_next(srq, i), (i + 1) % 256);
}

static void srq_post_writes_wqes_and_doorbell_test(struct kunit *test)
{
	struct cxib_srq *srq = fake_srq(test, 3, 6);	/* 8 WQEs, 3 SGEs each */
	struct ib_sge sge[3] = {
		{ .addr = 0x1122334455667788ull, .length = 0x1000, .lkey = 0xabcd01 },
		{ .addr = 0x2000, .length = 64, .lkey = 0xabcd02 },
		{ .addr = 0x3000, .length = 1, .lkey = 0xabcd03 },
	};
	struct ib_recv_wr wr[2] = {
		{ .wr_id = 0xdead, .sg_list = sge, .num_sge = 3, .next = &wr[1] },
		{ .wr_id = 0xbeef, .sg_list = &sge[1], .num_sge = 1 },
	};
	const struct ib_recv_wr *bad = NULL;
	unsigned int i;
	u8 *w;

	KUNIT_EXPECT_EQ(test, srq->max_gs, 3);
	KUNIT_EXPECT_EQ(test, cxib_post_srq_recv(&srq->ibsrq, wr, &bad), 0);
	KUNIT_EXPECT_NULL(test, bad);
	KUNIT_EXPECT_EQ(test, dbr_counter(srq), 2);
	KUNIT_EXPECT_EQ(test, srq->head, 2);
	KUNIT_EXPECT_EQ(test, srq->wrid[0], 0xdead);
	KUNIT_EXPECT_EQ(test, srq->wrid[1], 0xbeef);

	/* WQE 0: all three entries, no terminator (the WQE is full) */
	w = wqe_bytes(srq, 0) + SRQ_NEXT_SEG_SIZE;
	for (i = 0; i < 3; i++, w += DSEG_SIZE) {
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(w + OFF_DSEG_BYTE_COUNT), sge[i].length);
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(w + OFF_DSEG_LKEY), sge[i].lkey);
		KUNIT_EXPECT_EQ(test, get_unaligned_be64(w + OFF_DSEG_ADDR), sge[i].addr);
	}
	/* WQE 1: one entry, then the terminator */
	w = wqe_bytes(srq, 1) + SRQ_NEXT_SEG_SIZE;
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(w + OFF_DSEG_LKEY), 0xabcd02);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(w + OFF_DSEG_ADDR), 0x2000);
	w += DSEG_SIZE;
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(w + OFF_DSEG_BYTE_COUNT), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(w + OFF_DSEG_LKEY), INVALID_LKEY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(w + OFF_DSEG_ADDR), 0);
	/* posting leaves the links alone */
	KUNIT_EXPECT_EQ(test, wqe_next(srq, 0), 1);
	KUNIT_EXPECT_EQ(test, wqe_next(srq, 1), 2);
}

static void srq_post_full_and_bad_requests_test(struct kunit *test)
{
	struct cxib_srq *srq = fake_srq(test, 2, 5);	/* 4 WQEs: 3 receives at most */
	struct ib_sge sge[2] = { { .addr = 0x1000, .length = 8, .lkey = 7 } };
	struct ib_recv_wr wr[5] = {};
	const struct ib_recv_wr *bad = NULL;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	/* too many SGEs: nothing posted, bad_wr is the first request */
	wr[0].num_sge = 2;
	KUNIT_EXPECT_EQ(test, cxib_post_srq_recv(&srq->ibsrq, wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[0]);
	KUNIT_EXPECT_EQ(test, dbr_counter(srq), 0);
	wr[0].num_sge = 1;

	/* five requests into room for three: three posted, the doorbell says 3 */
	KUNIT_EXPECT_EQ(test, cxib_post_srq_recv(&srq->ibsrq, wr, &bad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[3]);
	KUNIT_EXPECT_EQ(test, dbr_counter(srq), 3);
	KUNIT_EXPECT_EQ(test, srq->head, srq->tail);

	/* a completion for WQE 1 returns its wr_id and links it after the tail (3) */
	KUNIT_EXPECT_EQ(test, cxib_srq_free_wqe(srq, 1), 101);
	KUNIT_EXPECT_EQ(test, wqe_next(srq, 3), 1);
	KUNIT_EXPECT_EQ(test, srq->tail, 1);
	/* the next receive goes into WQE 3 (the old tail), and the SRQ is full again */
	bad = NULL;
	KUNIT_EXPECT_EQ(test, cxib_post_srq_recv(&srq->ibsrq, &wr[3], &bad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[4]);
	KUNIT_EXPECT_EQ(test, srq->wrid[3], 103);
	KUNIT_EXPECT_EQ(test, dbr_counter(srq), 4);
	/* the wqe_counter of a CQE is taken modulo the ring */
	KUNIT_EXPECT_EQ(test, cxib_srq_free_wqe(srq, 4 + 0), 100);
	KUNIT_EXPECT_EQ(test, wqe_next(srq, 1), 0);
	KUNIT_EXPECT_EQ(test, srq->tail, 0);

	/* a dead device takes nothing: the room stays, the doorbell record does not move */
	set_bit(CXIB_DEV_DEAD, &to_cxib_dev(srq->ibsrq.device)->flags);
	bad = NULL;
	KUNIT_EXPECT_EQ(test, cxib_post_srq_recv(&srq->ibsrq, &wr[0], &bad), -EIO);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[0]);
	KUNIT_EXPECT_EQ(test, dbr_counter(srq), 4);
	KUNIT_EXPECT_EQ(test, srq->head, 1);
}

static void srq_event_type_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cxib_srq_event_type(CXIB_EVENT_TYPE_SRQ_RQ_LIMIT),
			IB_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_EQ(test, cxib_srq_event_type(0x14), IB_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_EQ(test, cxib_srq_event_type(0x12), IB_EVENT_SRQ_ERR);
	KUNIT_EXPECT_EQ(test, cxib_srq_event_type(0x13), -1);	/* a QP's event */
	KUNIT_EXPECT_EQ(test, cxib_srq_event_type(CXIB_EVENT_TYPE_CQ_ERROR), -1);
}

/* ---- The device's SRQ object: srqc (ISSI 0), rmpc + wq (ISSI 1) ------------------------------ */

/* Byte offsets in the srqc and the rmpc with its wq (mlx5_ifc.h bit offsets / 8). */
#define SRQC_LOG_SRQ_SIZE	0x00	/* [3:0] */
#define SRQC_LOG_RQ_STRIDE	0x04	/* [2:0], log2(bytes) - 4 */
#define SRQC_PAGE_OFFSET	0x08	/* [7:2] */
#define SRQC_PD			0x18	/* [23:0] of the dword */
#define SRQC_DBR_ADDR		0x28
#define RMPC_STATE		0x01	/* [7:4] */
#define RMPC_CYCLIC		0x04	/* [7] basic_cyclic_rcv_wqe */
#define RMPC_WQ			0x30
#define WQ_TYPE			0x00	/* [7:4] */
#define WQ_PAGE_OFFSET		0x05	/* [4:0] */
#define WQ_LWM			0x06	/* 16 bits */
#define WQ_PD			0x08	/* [23:0] of the dword */
#define WQ_DBR_ADDR		0x10
#define WQ_LOG_WQ_STRIDE	0x21	/* [3:0], log2(bytes) */
#define WQ_LOG_WQ_PG_SZ		0x22	/* [4:0] */
#define WQ_LOG_WQ_SZ		0x23	/* [4:0] */
#define RMPC_BYTES		(RMPC_WQ + 0xc0)

/* One SRQ, two contexts: the same ring, PD and doorbell record in each layout. */
static void srq_srqc_and_rmpc_test(struct kunit *test)
{
	struct cxib_srq *srq = fake_srq(test, 7, 6);	/* 128 WQEs of 64 bytes */
	struct cxib_srqc srqc = {};
	struct cxib_rmpc rmpc = {};
	u8 *b = (u8 *)&srqc, *r = (u8 *)&rmpc, *wq = r + RMPC_WQ;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(rmpc), RMPC_BYTES);
	srq->dbr.dma = 0x123456789abcdec0ull;
	cxib_srq_fill_srqc(srq, 0xabcdef, &srqc);
	KUNIT_EXPECT_EQ(test, b[SRQC_LOG_SRQ_SIZE], 7);	/* state GOOD (0) above it */
	KUNIT_EXPECT_EQ(test, b[SRQC_LOG_RQ_STRIDE], 6 - 4);
	KUNIT_EXPECT_EQ(test, b[SRQC_PAGE_OFFSET], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + SRQC_PD), 0xabcdef);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(b + SRQC_DBR_ADDR), 0x123456789abcdec0ull);

	cxib_srq_fill_rmpc(srq, 0xabcdef, &rmpc);
	KUNIT_EXPECT_EQ(test, r[RMPC_STATE], 0x10);	/* RDY */
	KUNIT_EXPECT_EQ(test, r[RMPC_CYCLIC], 0);
	KUNIT_EXPECT_EQ(test, wq[WQ_TYPE], 0);		/* linked list, no signature */
	KUNIT_EXPECT_EQ(test, wq[WQ_PAGE_OFFSET], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(wq + WQ_LWM), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(wq + WQ_PD), 0xabcdef);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(wq + WQ_DBR_ADDR), 0x123456789abcdec0ull);
	KUNIT_EXPECT_EQ(test, wq[WQ_LOG_WQ_STRIDE], 6);	/* plain log2, not 16-byte units */
	KUNIT_EXPECT_EQ(test, wq[WQ_LOG_WQ_PG_SZ], 0);	/* 4 KiB pieces */
	KUNIT_EXPECT_EQ(test, wq[WQ_LOG_WQ_SZ], 7);
	/* nothing else: the rest of the rmpc and every other wq field stay 0 */
	for (i = 0; i < RMPC_BYTES; i++) {
		if (i == RMPC_STATE || (i >= RMPC_WQ + WQ_PD + 1 && i < RMPC_WQ + WQ_PD + 4) ||
		    (i >= RMPC_WQ + WQ_DBR_ADDR && i < RMPC_WQ + WQ_DBR_ADDR + 8) ||
		    i == RMPC_WQ + WQ_LOG_WQ_STRIDE || i == RMPC_WQ + WQ_LOG_WQ_SZ)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, r[i], 0, "rmpc byte 0x%x", i);
	}
}

/* A user SRQ's ring off a page: both contexts carry libmlx5's offset, in 64-byte units. */
static void srq_contexts_page_offset_test(struct kunit *test)
{
	struct cxib_srq *srq = fake_srq(test, 4, 5);
	struct cxib_uq *uq = kunit_kzalloc(test, sizeof(*uq), GFP_KERNEL);
	struct cxib_srqc srqc = {};
	struct cxib_rmpc rmpc = {};
	u8 *wq = (u8 *)&rmpc + RMPC_WQ;

	KUNIT_ASSERT_NOT_NULL(test, uq);
	uq->page_offset = 0x7c0 / 64;	/* the last unit an RMP's wq reaches */
	srq->uq = uq;
	cxib_srq_fill_srqc(srq, 1, &srqc);
	cxib_srq_fill_rmpc(srq, 1, &rmpc);
	KUNIT_EXPECT_EQ(test, ((u8 *)&srqc)[SRQC_PAGE_OFFSET] >> 2, 31);
	KUNIT_EXPECT_EQ(test, wq[WQ_PAGE_OFFSET], 31);
	srq->uq = NULL;
}

/* The srqc's page_offset reaches every 64-byte unit of a 4 KiB page; the wq's only half. */
static void srq_max_page_offset_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cxib_srq_max_page_offset(CXIB_ISSI_0), 63);
	KUNIT_EXPECT_EQ(test, cxib_srq_max_page_offset(CXIB_ISSI_1), 31);
}

/* MODIFY_RMP as modify_srq(IB_SRQ_LIMIT) sends it at ISSI 1. */
static void rmp_arm_cmd_layout_test(struct kunit *test)
{
	u8 *in = kunit_kzalloc(test, CXIB_MODIFY_RMP_IN_LEN, GFP_KERNEL);
	u8 *want = kunit_kzalloc(test, CXIB_MODIFY_RMP_IN_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_EQ(test, CXIB_MODIFY_RMP_IN_LEN, 0x20 + RMPC_BYTES);
	cxib_rmp_build_arm((void *)in, 0xabcdef, 0x1234);
	put_unaligned_be16(0x90d, want);		/* opcode MODIFY_RMP, op_mod 0 */
	put_unaligned_be32(0x10abcdef, want + 8);	/* rmp_state RDY, rmpn */
	put_unaligned_be64(1, want + 0x10);		/* bitmask: lwm */
	want[0x20 + RMPC_STATE] = 0x10;			/* the rmpc's (next) state RDY */
	put_unaligned_be16(0x1234, want + 0x20 + RMPC_WQ + WQ_LWM);
	KUNIT_EXPECT_MEMEQ(test, in, want, CXIB_MODIFY_RMP_IN_LEN);

	/* 0 disarms: the same command with lwm 0 */
	memset(in, 0, CXIB_MODIFY_RMP_IN_LEN);
	cxib_rmp_build_arm((void *)in, 1, 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(in + 8), 0x10000001);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(in + 0x10), 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(in + 0x20 + RMPC_WQ + WQ_LWM), 0);
}

/* ---- Fast-registration MRs ------------------------------------------------------------------ */

/* mkc byte offsets and bits (PRM §5.2). */
#define MKC_DW0			0x00	/* [30] free, [15] umr_en, [10] lr, [9:8] access_mode */
#define MKC_DW1			0x04	/* [31:8] qpn, [7:0] mkey_7_0 */
#define MKC_DW3			0x0c	/* [23:0] pd */
#define MKC_TRANSLATIONS	0x34	/* translations_octword_size */
#define MKC_LOG_PAGE_SIZE	0x3b	/* [5:0] */

static void mr_fast_reg_mkc_test(struct kunit *test)
{
	struct cxib_mkc mkc = {};
	u8 *b = (u8 *)&mkc;
	u32 dw0;

	cxib_mr_build_fast_reg_mkc(&mkc, 0x123456, 0x5a, 64);
	dw0 = get_unaligned_be32(b + MKC_DW0);
	KUNIT_EXPECT_EQ(test, (dw0 >> 30) & 1, 1);		/* free */
	KUNIT_EXPECT_EQ(test, (dw0 >> 15) & 1, 1);		/* umr_en */
	KUNIT_EXPECT_EQ(test, (dw0 >> 8) & 3, 1);		/* MTT */
	KUNIT_EXPECT_EQ(test, (dw0 >> 26) & 7, 0);		/* access_mode_4_2 */
	KUNIT_EXPECT_EQ(test, (dw0 >> 11) & 0xf, 0);		/* no rights until the UMR */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + MKC_DW1), 0xffffff5a);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + MKC_DW3) & 0xffffff, 0x123456);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + MKC_TRANSLATIONS), 32);
	KUNIT_EXPECT_EQ(test, b[MKC_LOG_PAGE_SIZE] & 0x3f, PAGE_SHIFT);
}

/* Rights from IB access flags (lr always; each call rewrites all five); the mode split. */
static void mkc_access_and_mode_test(struct kunit *test)
{
	struct cxib_mkc mkc = {};
	u8 *b = (u8 *)&mkc;
	u32 dw0;

	cxib_mkc_set_access(&mkc, 0);
	dw0 = get_unaligned_be32(b + MKC_DW0);
	KUNIT_EXPECT_EQ(test, (dw0 >> 10) & 0x1f, 0x01);	/* a rw rr lw lr */
	cxib_mkc_set_access(&mkc, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC);
	dw0 = get_unaligned_be32(b + MKC_DW0);
	KUNIT_EXPECT_EQ(test, (dw0 >> 10) & 0x1f, 0x13);
	cxib_mkc_set_access(&mkc, IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	dw0 = get_unaligned_be32(b + MKC_DW0);
	KUNIT_EXPECT_EQ(test, (dw0 >> 10) & 0x1f, 0x0d);

	cxib_mkc_set_access_mode(&mkc, CXIB_MKC_ACCESS_MODE_MTT);
	dw0 = get_unaligned_be32(b + MKC_DW0);
	KUNIT_EXPECT_EQ(test, (dw0 >> 8) & 3, 1);		/* access_mode_1_0 */
	KUNIT_EXPECT_EQ(test, (dw0 >> 26) & 7, 0);		/* access_mode_4_2 */
	KUNIT_EXPECT_EQ(test, (dw0 >> 10) & 0x1f, 0x0d);	/* rights kept */
	cxib_mkc_set_access_mode(&mkc, 0x6);
	dw0 = get_unaligned_be32(b + MKC_DW0);
	KUNIT_EXPECT_EQ(test, (dw0 >> 8) & 3, 2);
	KUNIT_EXPECT_EQ(test, (dw0 >> 26) & 7, 1);
	KUNIT_EXPECT_EQ(test, dw0 & ~(0x1cu << 24 | 0x7f << 8), 0);	/* nothing else */
}

static void mr_page_list_size_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_entries(0), 8);
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_entries(1), 8);
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_entries(8), 8);
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_entries(9), 16);
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_entries(256), 256);
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_bytes(16), 128);
	KUNIT_EXPECT_EQ(test, cxib_mr_pl_bytes(cxib_mr_pl_entries(3)) % CXIB_MR_PL_ALIGN, 0);
}

static struct cxib_mr *fake_fr_mr(struct kunit *test, u32 max_pages)
{
	struct cxib_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->max_pages = max_pages;
	mr->pl = kunit_kcalloc(test, max_pages, sizeof(*mr->pl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr->pl);
	mr->ibmr.page_size = SZ_4K;
	return mr;
}

static void mr_map_sg_builds_the_page_list_test(struct kunit *test)
{
	struct cxib_mr *mr = fake_fr_mr(test, 8);
	struct scatterlist sg[2];
	unsigned int off = 0;

	/* 0x10100 + 0x2f00 bytes (pages 0x10000..0x12000), then three whole pages */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = 0x10100;
	sg_dma_len(&sg[0]) = 0x2f00;
	sg_dma_address(&sg[1]) = 0x40000;
	sg_dma_len(&sg[1]) = 0x3000;
	KUNIT_EXPECT_EQ(test, cxib_map_mr_sg(&mr->ibmr, sg, 2, &off), 2);
	KUNIT_EXPECT_EQ(test, mr->npages, 6);
	KUNIT_EXPECT_EQ(test, mr->page_shift, 12);
	KUNIT_EXPECT_EQ(test, mr->ibmr.iova, 0x10100);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 0x5f00);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[0]), 0x10000);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[1]), 0x11000);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[2]), 0x12000);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[3]), 0x40000);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[5]), 0x42000);
	/* the bytes are big-endian in memory */
	KUNIT_EXPECT_EQ(test, ((u8 *)mr->pl)[8 * 3 + 5], 0x04);

	/* a second mapping starts over */
	sg_init_table(sg, 1);
	sg_dma_address(&sg[0]) = 0x90000;
	sg_dma_len(&sg[0]) = 0x1000;
	off = 0;
	KUNIT_EXPECT_EQ(test, cxib_map_mr_sg(&mr->ibmr, sg, 1, &off), 1);
	KUNIT_EXPECT_EQ(test, mr->npages, 1);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[0]), 0x90000);
}

static void mr_map_sg_stops_at_capacity_test(struct kunit *test)
{
	struct cxib_mr *mr = fake_fr_mr(test, 8);
	struct scatterlist sg[2];
	unsigned int off = 0;

	/* 8 pages fit, the second entry's pages do not: one entry mapped */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = 0x100000;
	sg_dma_len(&sg[0]) = 8 * SZ_4K;
	sg_dma_address(&sg[1]) = 0x200000;
	sg_dma_len(&sg[1]) = SZ_4K;
	KUNIT_EXPECT_EQ(test, cxib_map_mr_sg(&mr->ibmr, sg, 2, &off), 1);
	KUNIT_EXPECT_EQ(test, mr->npages, 8);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mr->pl[7]), 0x107000);
	KUNIT_EXPECT_EQ(test, cxib_mr_set_page(&mr->ibmr, 0x300000), -ENOMEM);
}

/* ---- Multicast ---------------------------------------------------------------------------- */

static void mcg_cmd_layout_test(struct kunit *test)
{
	union ib_gid gid;
	u8 in[CXIB_ATTACH_TO_MCG_IN_LEN] = {};
	unsigned int i;

	for (i = 0; i < 16; i++)
		gid.raw[i] = 0xf0 + i;
	cxib_mcg_build_cmd(in, CXIB_CMD_OP_ATTACH_TO_MCG, 0xabcdef, &gid);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(in), 0x806);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(in + 8), 0xabcdef);
	KUNIT_EXPECT_MEMEQ(test, in + 0x10, gid.raw, 16);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(in + 4), 0);	/* op_mod */

	memset(in, 0, sizeof(in));
	cxib_mcg_build_cmd(in, CXIB_CMD_OP_DETACH_FROM_MCG, 1, &gid);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(in), 0x807);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(in + 8), 1);
}

/* ---- Port counters ------------------------------------------------------------------------ */

/* Byte offsets of counters in the QUERY_Q_COUNTER output (mlx5_ifc bit offsets / 8). */
static const struct {
	const char *name;
	unsigned int off;
} q_counter_offsets[] = {
	{ "rx_write_requests", 0x10 },
	{ "out_of_buffer", 0x30 },
	{ "out_of_sequence", 0x38 },
	{ "duplicate_request", 0x40 },
	{ "rnr_nak_retry_err", 0x48 },
	{ "packet_seq_err", 0x50 },
	{ "implied_nak_seq_err", 0x58 },
	{ "local_ack_timeout_err", 0x60 },
	{ "req_rnr_retries_exceeded", 0x70 },
	{ "resp_local_length_error", 0x78 },
	{ "resp_remote_access_errors", 0xac },
	{ "req_transport_retries_exceeded", 0xb4 },
	{ "req_cqe_flush_error", 0xc0 },
};

static int q_counter_index(const char *name)
{
	int i;

	for (i = 0; i < CXIB_NUM_Q_COUNTERS; i++)
		if (!strcmp(cxib_q_counter_descs[i].name, name))
			return i;
	return -1;
}

static void counters_names_test(struct kunit *test)
{
	int i, j;

	for (i = 0; i < CXIB_NUM_Q_COUNTERS; i++) {
		KUNIT_ASSERT_NOT_NULL(test, cxib_q_counter_descs[i].name);
		KUNIT_EXPECT_EQ(test, cxib_q_counter_descs[i].flags, 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, cxib_q_counter_descs[i].name,
					    cxib_q_counter_descs[j].name);
		/* every dword read lies in the output and is a distinct counter */
		KUNIT_EXPECT_LT(test, cxib_q_counter_dws[i] * 4, CXIB_QUERY_Q_COUNTER_OUT_LEN);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, cxib_q_counter_dws[i], cxib_q_counter_dws[j]);
	}
}

static void counters_parse_test(struct kunit *test)
{
	u8 *out = kunit_kzalloc(test, CXIB_QUERY_Q_COUNTER_OUT_LEN, GFP_KERNEL);
	u64 values[CXIB_NUM_Q_COUNTERS];
	unsigned int i;
	int idx;

	KUNIT_ASSERT_NOT_NULL(test, out);
	/* every dword holds a distinct value: 0xc0000000 + its byte offset */
	for (i = 0; i < CXIB_QUERY_Q_COUNTER_OUT_LEN; i += 4)
		put_unaligned_be32(0xc0000000 + i, out + i);
	cxib_q_counter_values((void *)out, cxib_q_counter_dws, CXIB_NUM_Q_COUNTERS, values);
	for (i = 0; i < ARRAY_SIZE(q_counter_offsets); i++) {
		idx = q_counter_index(q_counter_offsets[i].name);
		KUNIT_ASSERT_GE_MSG(test, idx, 0, "%s missing", q_counter_offsets[i].name);
		KUNIT_EXPECT_EQ_MSG(test, values[idx], 0xc0000000ull + q_counter_offsets[i].off,
				    "%s", q_counter_offsets[i].name);
	}
}

static struct kunit_case cxib_srq_cases[] = {
	KUNIT_CASE(srq_geometry_test),
	KUNIT_CASE(srq_free_list_init_test),
	KUNIT_CASE(srq_post_writes_wqes_and_doorbell_test),
	KUNIT_CASE(srq_post_full_and_bad_requests_test),
	KUNIT_CASE(srq_event_type_test),
	KUNIT_CASE(srq_srqc_and_rmpc_test),
	KUNIT_CASE(srq_contexts_page_offset_test),
	KUNIT_CASE(srq_max_page_offset_test),
	KUNIT_CASE(rmp_arm_cmd_layout_test),
	KUNIT_CASE(mr_fast_reg_mkc_test),
	KUNIT_CASE(mkc_access_and_mode_test),
	KUNIT_CASE(mr_page_list_size_test),
	KUNIT_CASE(mr_map_sg_builds_the_page_list_test),
	KUNIT_CASE(mr_map_sg_stops_at_capacity_test),
	KUNIT_CASE(mcg_cmd_layout_test),
	KUNIT_CASE(counters_names_test),
	KUNIT_CASE(counters_parse_test),
	{}
};

static struct kunit_suite cxib_srq_suite = {
	.name = "cxib_srq_mr_mcast_counters",
	.test_cases = cxib_srq_cases,
};

kunit_test_suite(cxib_srq_suite);
