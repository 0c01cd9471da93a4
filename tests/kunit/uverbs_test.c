// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: the checks of libmlx5's driver data and the PAS / MTT lists of user memory
 * (uverbs.c, umem.c), without a device:
 *
 * - create_cq: CQE size, CQ depth (libmlx5's 2^n - 1), the buffer the device will write,
 *   and every flag or reserved field that must be refused;
 * - create_qp: the RQ-then-SQ geometry of the buffer for the layouts libmlx5 sends
 *   (rc_pingpong, ud_pingpong, SRQ QPs), and each count, stride, flag or field the device
 *   cannot take;
 * - create_srq and the user index of CQE version 1;
 * - the page lists built from a DMA-mapped umem: 4 KiB entries of a queue, and the largest
 *   page size a user MR can use (2 MiB blocks of huge pages, 4 KiB when the I/O address and
 *   the memory disagree);
 * - where a queue buffer starts in its first page: libmlx5's buffers from a parent domain's
 *   allocator are aligned to their stride, not to a page;
 * - the answer to an mmap of a feature cxib does not have (mlx5dv_devx_alloc_uar()).
 */

#include <kunit/test.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>
#include <rdma/mlx5-abi.h>

#include "cxib_kunit.h"

static struct cxib_caps uverbs_test_caps(void)
{
	struct cxib_caps caps = {
		.log_max_qp_sz = 15,
		.log_max_cq_sz = 22,
		.log_max_srq_sz = 15,
		.max_wqe_sz_sq = 1024,
		.max_wqe_sz_rq = 512,
	};

	return caps;
}

/* ---- create_cq ---------------------------------------------------------------------------- */

static void ucq_check_sizes_test(struct kunit *test)
{
	struct cxib_caps caps = uverbs_test_caps();
	struct mlx5_ib_create_cq ucmd = { .cqe_size = 64 };
	u8 cqe_sz, log_size;
	size_t bytes;

	/* rc_pingpong: 501 CQEs -> libmlx5 sends 511 and uses 512 entries */
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 511, &cqe_sz, &log_size, &bytes), 0);
	KUNIT_EXPECT_EQ(test, cqe_sz, CXIB_CQC_CQE_SZ_64);
	KUNIT_EXPECT_EQ(test, log_size, 9);
	KUNIT_EXPECT_EQ(test, bytes, 512 * 64);
	/* MLX5_CQE_SIZE=128: twice the buffer */
	ucmd.cqe_size = 128;
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 511, &cqe_sz, &log_size, &bytes), 0);
	KUNIT_EXPECT_EQ(test, cqe_sz, CXIB_CQC_CQE_SZ_128);
	KUNIT_EXPECT_EQ(test, bytes, 512 * 128);
	/* a depth that is not 2^n - 1 gets the next power of two (as mlx5 does) */
	ucmd.cqe_size = 64;
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 500, &cqe_sz, &log_size, &bytes), 0);
	KUNIT_EXPECT_EQ(test, log_size, 9);
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 1, &cqe_sz, &log_size, &bytes), 0);
	KUNIT_EXPECT_EQ(test, log_size, 1);
	KUNIT_EXPECT_EQ(test, bytes, 128);
	/* the largest CQ the device has: 2^22 entries, one of them never used */
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, BIT(22) - 1, &cqe_sz, &log_size,
					     &bytes), 0);
	KUNIT_EXPECT_EQ(test, log_size, 22);
}

static void ucq_check_refuses_test(struct kunit *test)
{
	struct cxib_caps caps = uverbs_test_caps();
	struct mlx5_ib_create_cq ucmd = { .cqe_size = 64 };
	u8 cqe_sz, log_size;
	size_t bytes;

	/* depth 0 and beyond the device */
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 0, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, BIT(22), &cqe_sz, &log_size, &bytes),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, U32_MAX, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	/* CQE sizes other than 64 and 128 */
	ucmd.cqe_size = 32;
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	ucmd.cqe_size = 0;
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	ucmd.cqe_size = 256;
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	/* compression, 128-byte padding, dynamic UARs, real-time stamps: not offered */
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64, .cqe_comp_en = 1 };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EOPNOTSUPP);
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64, .cqe_comp_res_format = 1 };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EOPNOTSUPP);
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64,
					   .flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EOPNOTSUPP);
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64,
					   .flags = MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EOPNOTSUPP);
	/* reserved fields and a UAR page index without its flag */
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64, .reserved1 = 1 };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64, .reserved0 = 1 };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EINVAL);
	ucmd = (struct mlx5_ib_create_cq){ .cqe_size = 64, .uar_page_index = 3 };
	KUNIT_EXPECT_EQ(test, cxib_ucq_check(&caps, &ucmd, 63, &cqe_sz, &log_size, &bytes),
			-EINVAL);
}

/* ---- create_qp ---------------------------------------------------------------------------- */

/* What libmlx5 44 sends for ibv_rc_pingpong's QP (rdma-core providers/mlx5/verbs.c). */
static void rc_pingpong_qp(struct mlx5_ib_create_qp *ucmd, struct ib_qp_init_attr *attr)
{
	*ucmd = (struct mlx5_ib_create_qp){
		.sq_wqe_count = 4,
		.rq_wqe_count = 512,
		.rq_wqe_shift = 4,
		.flags = MLX5_QP_FLAG_SCATTER_CQE,
		.uidx = 0,
	};
	*attr = (struct ib_qp_init_attr){
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 500, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 60 },
	};
}

static void uqp_check_layouts_test(struct kunit *test)
{
	struct cxib_caps caps = uverbs_test_caps();
	struct ib_qp_init_attr attr;
	struct mlx5_ib_create_qp ucmd;
	size_t bytes;

	/* rc_pingpong: RQ 512 x 16 bytes, then SQ 4 x 64 bytes */
	rc_pingpong_qp(&ucmd, &attr);
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, 8192 + 256);

	/* ud_pingpong: SQ 2 WQEBBs */
	ucmd.sq_wqe_count = 2;
	attr.qp_type = IB_QPT_UD;
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, 8192 + 128);

	/* UC, and a QP on an SRQ: no RQ at all */
	attr.qp_type = IB_QPT_UC;
	attr.srq = (struct ib_srq *)&attr;	/* only tested for NULL */
	attr.cap.max_recv_wr = 0;
	attr.cap.max_recv_sge = 0;
	ucmd.rq_wqe_count = 0;
	ucmd.rq_wqe_shift = 0;
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, 128);
	/* receive capacities of a QP on an SRQ are ignored, as the verbs say */
	attr.cap.max_recv_wr = 100;
	attr.cap.max_recv_sge = 4;
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, 128);

	/* a receive-only QP (no SQ) and the largest SQ and RQ the device has */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.sq_wqe_count = 0;
	attr.cap.max_send_wr = 0;
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, 8192);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.sq_wqe_count = BIT(15);
	ucmd.rq_wqe_count = BIT(15);
	ucmd.rq_wqe_shift = 9;
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, (size_t)BIT(15) * 512 + BIT(15) * 64);
	/* the flags libmlx5 may send by default */
	ucmd.flags = MLX5_QP_FLAG_SCATTER_CQE | MLX5_QP_FLAG_ALLOW_SCATTER_CQE;
	KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), 0);
}

static void uqp_check_refuses_test(struct kunit *test)
{
	struct cxib_caps caps = uverbs_test_caps();
	struct ib_qp_init_attr attr;
	struct mlx5_ib_create_qp ucmd;
	size_t bytes = 0;

#define EXPECT_UQP(err) KUNIT_EXPECT_EQ(test, cxib_uqp_check(&caps, &ucmd, &attr, &bytes), err)
	/* SQ: not a power of two, beyond the device, smaller than the WRs asked for */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.sq_wqe_count = 3;
	EXPECT_UQP(-EINVAL);
	ucmd.sq_wqe_count = BIT(16);
	EXPECT_UQP(-EINVAL);
	ucmd.sq_wqe_count = 4;
	attr.cap.max_send_wr = 5;
	EXPECT_UQP(-EINVAL);
	ucmd.sq_wqe_count = 0;
	attr.cap.max_send_wr = 1;
	EXPECT_UQP(-EINVAL);
	/* send SGEs or inline data no WQE of the device holds */
	rc_pingpong_qp(&ucmd, &attr);
	attr.cap.max_send_sge = 65;
	EXPECT_UQP(-EINVAL);
	rc_pingpong_qp(&ucmd, &attr);
	attr.cap.max_inline_data = 1025;
	EXPECT_UQP(-EINVAL);

	/* RQ: not a power of two, too deep, too shallow for the WRs, bad strides */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.rq_wqe_count = 500;
	EXPECT_UQP(-EINVAL);
	ucmd.rq_wqe_count = BIT(16);
	EXPECT_UQP(-EINVAL);
	ucmd.rq_wqe_count = 256;
	EXPECT_UQP(-EINVAL);		/* max_recv_wr 500 */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.rq_wqe_shift = 3;
	EXPECT_UQP(-EINVAL);
	ucmd.rq_wqe_shift = 10;		/* 1024 > max_wqe_sz_rq */
	EXPECT_UQP(-EINVAL);
	ucmd.rq_wqe_shift = 31;
	EXPECT_UQP(-EINVAL);
	ucmd.rq_wqe_shift = U32_MAX;
	EXPECT_UQP(-EINVAL);
	rc_pingpong_qp(&ucmd, &attr);
	attr.cap.max_recv_sge = 2;	/* a 16-byte stride holds one */
	EXPECT_UQP(-EINVAL);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.rq_wqe_count = 0;		/* but 500 receive WRs asked for */
	EXPECT_UQP(-EINVAL);
	/* an RQ whose end does not start the SQ on a 64-byte block */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.rq_wqe_count = 2;
	attr.cap.max_recv_wr = 2;
	EXPECT_UQP(-EINVAL);
	/* an RQ beside an SRQ */
	rc_pingpong_qp(&ucmd, &attr);
	attr.srq = (struct ib_srq *)&attr;
	attr.cap.max_recv_wr = 0;
	EXPECT_UQP(-EINVAL);
	/* nothing at all */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.sq_wqe_count = 0;
	ucmd.rq_wqe_count = 0;
	attr.cap.max_send_wr = 0;
	attr.cap.max_recv_wr = 0;
	EXPECT_UQP(-EINVAL);

	/* flags, fields and types cxib does not offer */
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.flags |= MLX5_QP_FLAG_SIGNATURE;
	EXPECT_UQP(-EOPNOTSUPP);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.flags |= MLX5_QP_FLAG_BFREG_INDEX;
	EXPECT_UQP(-EOPNOTSUPP);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.flags |= MLX5_QP_FLAG_UAR_PAGE_INDEX;
	EXPECT_UQP(-EOPNOTSUPP);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.flags |= MLX5_QP_FLAG_TYPE_DCI;
	EXPECT_UQP(-EOPNOTSUPP);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.ece_options = 0x10000000;
	EXPECT_UQP(-EOPNOTSUPP);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.sq_buf_addr = 0x1000;
	EXPECT_UQP(-EINVAL);
	rc_pingpong_qp(&ucmd, &attr);
	ucmd.reserved = 1;
	EXPECT_UQP(-EINVAL);
	rc_pingpong_qp(&ucmd, &attr);
	attr.qp_type = IB_QPT_GSI;
	EXPECT_UQP(-EOPNOTSUPP);
	attr.qp_type = IB_QPT_RAW_PACKET;
	EXPECT_UQP(-EOPNOTSUPP);
	attr.qp_type = IB_QPT_XRC_INI;
	EXPECT_UQP(-EOPNOTSUPP);
#undef EXPECT_UQP
}

/* ---- create_srq, user indexes ------------------------------------------------------------ */

static void usrq_check_test(struct kunit *test)
{
	struct mlx5_ib_create_srq ucmd = { .buf_addr = 0x1000, .db_addr = 0x2000, .uidx = 7 };

	KUNIT_EXPECT_EQ(test, cxib_usrq_check(&ucmd), 0);
	ucmd.flags = MLX5_SRQ_FLAG_SIGNATURE;
	KUNIT_EXPECT_EQ(test, cxib_usrq_check(&ucmd), -EOPNOTSUPP);
	ucmd.flags = 2;
	KUNIT_EXPECT_EQ(test, cxib_usrq_check(&ucmd), -EINVAL);
	ucmd.flags = 0;
	ucmd.reserved0 = 1;
	KUNIT_EXPECT_EQ(test, cxib_usrq_check(&ucmd), -EINVAL);
	ucmd.reserved0 = 0;
	ucmd.reserved1 = 1;
	KUNIT_EXPECT_EQ(test, cxib_usrq_check(&ucmd), -EINVAL);
}

static void uidx_check_test(struct kunit *test)
{
	u32 uidx = 0;

	/* version 0: whatever libmlx5 sent (0xffffff), none used */
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(0, 0xffffff, &uidx), 0);
	KUNIT_EXPECT_EQ(test, uidx, CXIB_UIDX_NONE);
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(0, 12, &uidx), 0);
	KUNIT_EXPECT_EQ(test, uidx, CXIB_UIDX_NONE);
	/* version 1: libmlx5's index, 24 bits, not the "none" value */
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(1, 0, &uidx), 0);
	KUNIT_EXPECT_EQ(test, uidx, 0);
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(1, 0xfffffe, &uidx), 0);
	KUNIT_EXPECT_EQ(test, uidx, 0xfffffe);
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(1, 0xffffff, &uidx), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(1, 0x1000000, &uidx), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_uidx_check(1, U32_MAX, &uidx), -EINVAL);
}

/* ---- Page lists of user memory ------------------------------------------------------------ */

/*
 * A umem as ib_umem_get() leaves it: user address @addr, @len bytes, DMA-mapped as the
 * scatterlist @sg of @nents entries.
 */
static void fake_umem(struct ib_umem *umem, struct scatterlist *sg, unsigned int nents,
		      unsigned long addr, size_t len)
{
	memset(umem, 0, sizeof(*umem));
	umem->address = addr;
	umem->iova = addr;
	umem->length = len;
	umem->sgt_append.sgt.sgl = sg;
	umem->sgt_append.sgt.nents = nents;
	umem->sgt_append.sgt.orig_nents = nents;
}

static void umem_queue_pas_test(struct kunit *test)
{
	struct scatterlist sg[2];
	struct ib_umem umem;
	u64 pas[8] = {};

	/* a 5-page queue buffer: 3 contiguous pages, then 2 elsewhere */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = 0x10000;
	sg_dma_len(&sg[0]) = 3 * SZ_4K;
	sg_dma_address(&sg[1]) = 0x7000000;
	sg_dma_len(&sg[1]) = 2 * SZ_4K;
	fake_umem(&umem, sg, 2, 0x7f0000001000, 5 * SZ_4K);
	KUNIT_ASSERT_EQ(test, ib_umem_num_dma_blocks(&umem, SZ_4K), 5);
	KUNIT_EXPECT_EQ(test, cxib_umem_fill_pas(&umem, SZ_4K, pas, ARRAY_SIZE(pas)), 5);
	KUNIT_EXPECT_EQ(test, pas[0], 0x10000);
	KUNIT_EXPECT_EQ(test, pas[1], 0x11000);
	KUNIT_EXPECT_EQ(test, pas[2], 0x12000);
	KUNIT_EXPECT_EQ(test, pas[3], 0x7000000);
	KUNIT_EXPECT_EQ(test, pas[4], 0x7001000);
	KUNIT_EXPECT_EQ(test, pas[5], 0);
	/* never more than the room given */
	memset(pas, 0, sizeof(pas));
	KUNIT_EXPECT_EQ(test, cxib_umem_fill_pas(&umem, SZ_4K, pas, 2), 2);
	KUNIT_EXPECT_EQ(test, pas[1], 0x11000);
	KUNIT_EXPECT_EQ(test, pas[2], 0);
}

static void umem_mr_uses_huge_pages_test(struct kunit *test)
{
	unsigned long bitmap = GENMASK(30, 12), pgsz;
	struct scatterlist sg[2];
	struct ib_umem umem;
	u64 pas[4] = {};

	/* 4 MiB in two 2 MiB huge pages, mapped 2 MiB aligned: two 2 MiB entries */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = 0x40000000;
	sg_dma_len(&sg[0]) = SZ_2M;
	sg_dma_address(&sg[1]) = 0x80200000;
	sg_dma_len(&sg[1]) = SZ_2M;
	fake_umem(&umem, sg, 2, 0x7f0000200000, SZ_4M);
	pgsz = ib_umem_find_best_pgsz(&umem, bitmap, 0x7f0000200000);
	KUNIT_EXPECT_EQ(test, pgsz, SZ_2M);
	KUNIT_ASSERT_EQ(test, ib_umem_num_dma_blocks(&umem, pgsz), 2);
	KUNIT_EXPECT_EQ(test, cxib_umem_fill_pas(&umem, pgsz, pas, ARRAY_SIZE(pas)), 2);
	KUNIT_EXPECT_EQ(test, pas[0], 0x40000000);
	KUNIT_EXPECT_EQ(test, pas[1], 0x80200000);

	/* the same memory at an I/O address 4 KiB off the 2 MiB grid: 4 KiB entries */
	fake_umem(&umem, sg, 2, 0x7f0000200000, SZ_4M);
	pgsz = ib_umem_find_best_pgsz(&umem, bitmap, 0x1000);
	KUNIT_EXPECT_EQ(test, pgsz, SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(&umem, pgsz), SZ_4M / SZ_4K);

	/* a region starting inside a page: the first entry is that page's start */
	sg_init_table(sg, 1);
	sg_dma_address(&sg[0]) = 0x90000;
	sg_dma_len(&sg[0]) = 2 * SZ_4K;
	fake_umem(&umem, sg, 1, 0x7f0000000100, 2 * SZ_4K - 0x100);
	pgsz = ib_umem_find_best_pgsz(&umem, bitmap, 0x7f0000000100);
	KUNIT_EXPECT_EQ(test, pgsz, SZ_8K);
	KUNIT_EXPECT_EQ(test, cxib_umem_fill_pas(&umem, SZ_4K, pas, ARRAY_SIZE(pas)), 2);
	KUNIT_EXPECT_EQ(test, pas[0], 0x90000);
	KUNIT_EXPECT_EQ(test, pas[1], 0x91000);
}

/*
 * A parent domain's allocator gives libmlx5 queue buffers aligned to the queue's stride
 * (rdma-core mlx5_set_custom_qp_alignment()): each is accepted with its offset in 64-byte
 * units; one that would let a WQE or CQE straddle two pages is refused.
 */
static void uq_buf_offset_stride_aligned_test(struct kunit *test)
{
	u8 off = 0xff;

	/* libmlx5's own buffers: page aligned */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002000, 64, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 0);
	/* a small UD QP from the allocator: 64-byte aligned, 0x40 into its page */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002040, 64, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 1);
	/* an RQ stride of 128 bytes at a 128-byte boundary; the last unit of a page */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002f80, 128, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 0xf80 / 64);
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x55d0c0a3ffc0, 0, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 63);
	/* SRQs of 32-byte and 128-byte WQEs off a page */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x55d0c0a3f240, 32, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 0x240 / 64);
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x55d0c0a3f280, 128, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 0x280 / 64);
	/* refused: a WQE of its stride would cross into the next page */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002040, 128, &off), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002200, 1024, &off), -EINVAL);
	/* a CQ asks for a whole page (libmlx5 page-aligns every CQ buffer) */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002000, SZ_4K, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002040, SZ_4K, &off), -EINVAL);
	/* refused: not in whole 64-byte units of the context's page_offset, or none */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002020, 32, &off), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000002008, 0, &off), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0, 64, &off), -EINVAL);
	/* a stride that is not a power of two is never an alignment */
	KUNIT_EXPECT_EQ(test, cxib_uq_buf_offset(0x7f0000003000, 96, &off), -EINVAL);
}

/* mmap offsets libmlx5 computes: command << 8 | index (in pages) */
#define MMAP_PGOFF(cmd, idx)	((unsigned long)(cmd) << 8 | (idx))

/*
 * An mmap at an offset cxib did not offer: a bad UAR index is -EINVAL, as is the
 * contiguous-pages command (libmlx5 falls back on -EINVAL); the commands of features cxib
 * lacks (the dynamic UAR of mlx5dv_devx_alloc_uar(), clocks, device memory) answer
 * -EOPNOTSUPP, which libmlx5 passes on to its caller as "not supported".
 */
static void mmap_unknown_offset_errno_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_REGULAR_PAGE, 7)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_WC_PAGE, 255)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_NC_PAGE, 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_GET_CONTIGUOUS_PAGES, 12)),
			-EINVAL);
	/* mlx5dv_devx_alloc_uar() / thread domains: UAR 0 of the dynamic range */
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_ALLOC_WC, 0)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_CORE_CLOCK, 0)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_CLOCK_INFO, 0)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(MLX5_IB_MMAP_DEVICE_MEM, 3)),
			-EOPNOTSUPP);
	/* offsets of the rdma_user_mmap_entry kind (mlx5_ib's newer objects) */
	KUNIT_EXPECT_EQ(test, cxib_mmap_unknown_err(MMAP_PGOFF(0x12, 0x34)), -EOPNOTSUPP);
}

static struct kunit_case cxib_uverbs_cases[] = {
	KUNIT_CASE(ucq_check_sizes_test),
	KUNIT_CASE(ucq_check_refuses_test),
	KUNIT_CASE(uqp_check_layouts_test),
	KUNIT_CASE(uqp_check_refuses_test),
	KUNIT_CASE(usrq_check_test),
	KUNIT_CASE(uidx_check_test),
	KUNIT_CASE(umem_queue_pas_test),
	KUNIT_CASE(umem_mr_uses_huge_pages_test),
	KUNIT_CASE(uq_buf_offset_stride_aligned_test),
	KUNIT_CASE(mmap_unknown_offset_errno_test),
	{}
};

static struct kunit_suite cxib_uverbs_suite = {
	.name = "cxib_uverbs",
	.test_cases = cxib_uverbs_cases,
};

kunit_test_suite(cxib_uverbs_suite);
