// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: building work queue entries (wr.c; PRM §6.1, §6.2) and retiring them on
 * completion (cq.c): every send opcode's segments, inline data across 16-byte units, the
 * gather and inline limits, the receive WQE's terminator, the copy into the ring across its
 * end, the BlueFlame / doorbell choice and word, the requester's wqe_counter -> wr_id walk,
 * dropping one QP's CQEs from a CQ, and the software flush of a dead device's CQ.  No
 * device is needed: the CQ and QP are built in memory.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include "cxib_kunit.h"

#define QPN		0x00abcd
#define WQE_BYTES	(CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB)

/* Raw byte offsets of the control segment (PRM §6.1), to check the header's fields too. */
#define OFF_CTRL_OPCODE	3
#define OFF_CTRL_QPN	4
#define OFF_CTRL_DS	7
#define OFF_CTRL_FM_CE_SE 11

static struct cxib_sq_params rc_params(void)
{
	return (struct cxib_sq_params){
		.qpn = QPN, .type = IB_QPT_RC, .max_gs = 4, .max_inline = 200,
		.atomic = true, .local_dma_lkey = 0x77,
	};
}

static u8 *wqe_alloc(struct kunit *test)
{
	u8 *w = kunit_kzalloc(test, WQE_BYTES, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	memset(w, 0xee, WQE_BYTES);	/* every byte the builder owns must be written */
	return w;
}

static void expect_ctrl(struct kunit *test, const u8 *w, u16 idx, u8 opcode, u32 ds, u8 ce)
{
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_OPMOD), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_WQE_INDEX), idx);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_OPCODE), opcode);
	KUNIT_EXPECT_EQ(test, w[OFF_CTRL_OPCODE], opcode);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_QPN), QPN);
	KUNIT_EXPECT_EQ(test, w[OFF_CTRL_QPN], 0x00);
	KUNIT_EXPECT_EQ(test, w[OFF_CTRL_QPN + 1], 0xab);
	KUNIT_EXPECT_EQ(test, w[OFF_CTRL_QPN + 2], 0xcd);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_DS), ds);
	KUNIT_EXPECT_EQ(test, w[OFF_CTRL_DS] & 0x3f, ds);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_CE), ce);
	KUNIT_EXPECT_EQ(test, (w[OFF_CTRL_FM_CE_SE] >> 2) & 3, ce);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_SIGNATURE), 0);
}

static void expect_data(struct kunit *test, const void *seg, u32 len, u32 lkey, u64 addr)
{
	/* the whole first word: bit 31 set would make it an inline segment */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(seg), len);
	KUNIT_EXPECT_EQ(test, CXIB_GET(seg, CXIB_WQE_DATA_BYTE_COUNT), len);
	KUNIT_EXPECT_EQ(test, CXIB_GET(seg, CXIB_WQE_DATA_LKEY), lkey);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(seg, CXIB_WQE_DATA_ADDR), addr);
}

static void send_gathers_and_skips_empty(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_sge sg[3] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x11 },
		{ .addr = 0x2000, .length = 0, .lkey = 0x22 },
		{ .addr = 0xffffffff12345678ull, .length = 7, .lkey = 0x33 },
	};
	struct ib_send_wr wr = {
		.wr_id = 0x1122334455667788ull, .sg_list = sg, .num_sge = 3,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED,
	};
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);
	int ds;

	ds = cxib_wqe_build_send(&p, &wr, 0x1234, w, &info);
	KUNIT_ASSERT_EQ(test, ds, 3);	/* ctrl + two data segments: the empty one is skipped */
	expect_ctrl(test, w, 0x1234, CXIB_WQE_OPCODE_SEND, 3, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_SE), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_FM), CXIB_WQE_FM_NO_FENCE);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_IMM), 0);
	expect_data(test, w + 16, 100, 0x11, 0x1000);
	expect_data(test, w + 32, 7, 0x33, 0xffffffff12345678ull);
	KUNIT_EXPECT_EQ(test, info.wr_id, 0x1122334455667788ull);
	KUNIT_EXPECT_EQ(test, info.nbb, 1);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, info.flags, CXIB_SQE_SIGNALED);
}

static void unsignaled_and_sig_all(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), 1);
	expect_ctrl(test, w, 0, CXIB_WQE_OPCODE_SEND, 1, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, info.flags, 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_SE), 0);
	p.sig_all = true;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), 1);
	expect_ctrl(test, w, 0, CXIB_WQE_OPCODE_SEND, 1, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, info.flags, CXIB_SQE_SIGNALED);
}

static void immediate_and_invalidate(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_send_wr wr = { .opcode = IB_WR_SEND_WITH_IMM,
				 .ex.imm_data = cpu_to_be32(0xdeadbeef) };
	struct ib_rdma_wr rw = { .wr = { .opcode = IB_WR_RDMA_WRITE_WITH_IMM,
					 .ex.imm_data = cpu_to_be32(0x01020304) },
				 .remote_addr = 0xabcdef0123ull, .rkey = 0x5566 };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &wr, 5, w, &info), 1);
	expect_ctrl(test, w, 5, CXIB_WQE_OPCODE_SEND_IMM, 1, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	/* The immediate travels in wire (big-endian) order as the WR holds it. */
	KUNIT_EXPECT_EQ(test, w[12], 0xde);
	KUNIT_EXPECT_EQ(test, w[15], 0xef);

	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = 0x12345678;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &wr, 6, w, &info), 1);
	expect_ctrl(test, w, 6, CXIB_WQE_OPCODE_SEND_INVAL, 1, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_IMM), 0x12345678);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_SEND);

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 7, w, &info), 2);
	expect_ctrl(test, w, 7, CXIB_WQE_OPCODE_RDMA_WRITE_IMM, 2, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_IMM), 0x01020304);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 16, CXIB_WQE_RADDR_RADDR), 0xabcdef0123ull);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w + 16, CXIB_WQE_RADDR_RKEY), 0x5566);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_RDMA_WRITE);
}

static void rdma_write_and_read(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_sge sg = { .addr = 0x4000, .length = 64, .lkey = 9 };
	struct ib_rdma_wr rw = { .wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sg,
					 .num_sge = 1, .send_flags = IB_SEND_SIGNALED },
				 .remote_addr = 0x8000000000000010ull, .rkey = 0xcafe };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 1, w, &info), 3);
	expect_ctrl(test, w, 1, CXIB_WQE_OPCODE_RDMA_WRITE, 3, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 16, CXIB_WQE_RADDR_RADDR), 0x8000000000000010ull);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w + 16, CXIB_WQE_RADDR_RKEY), 0xcafe);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w + 16, CXIB_WQE_RADDR_RESERVED_AT_60), 0);
	expect_data(test, w + 32, 64, 9, 0x4000);

	rw.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 2, w, &info), 3);
	expect_ctrl(test, w, 2, CXIB_WQE_OPCODE_RDMA_READ, 3, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_RDMA_READ);

	/* Not on UC (read) nor UD (any RDMA). */
	p.type = IB_QPT_UC;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 2, w, &info), -EINVAL);
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 2, w, &info), 3);
}

static void atomics(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_sge sg = { .addr = 0x5000, .length = 8, .lkey = 3 };
	struct ib_atomic_wr aw = { .wr = { .opcode = IB_WR_ATOMIC_CMP_AND_SWP, .sg_list = &sg,
					   .num_sge = 1 },
				   .remote_addr = 0x6000, .rkey = 0x44,
				   .compare_add = 0x1111222233334444ull,
				   .swap = 0x5555666677778888ull };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &aw.wr, 3, w, &info), 4);
	expect_ctrl(test, w, 3, CXIB_WQE_OPCODE_ATOMIC_CS, 4, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 16, CXIB_WQE_RADDR_RADDR), 0x6000);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w + 16, CXIB_WQE_RADDR_RKEY), 0x44);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 32, CXIB_WQE_ATOMIC_SWAP_ADD), 0x5555666677778888ull);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 32, CXIB_WQE_ATOMIC_COMPARE), 0x1111222233334444ull);
	expect_data(test, w + 48, 8, 3, 0x5000);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_COMP_SWAP);

	aw.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &aw.wr, 4, w, &info), 4);
	expect_ctrl(test, w, 4, CXIB_WQE_OPCODE_ATOMIC_FA, 4, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 32, CXIB_WQE_ATOMIC_SWAP_ADD), 0x1111222233334444ull);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(w + 32, CXIB_WQE_ATOMIC_COMPARE), 0);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_FETCH_ADD);

	/* The local buffer is one 8-byte word; no atomics without the capability. */
	sg.length = 4;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &aw.wr, 4, w, &info), -EINVAL);
	sg.length = 8;
	p.atomic = false;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &aw.wr, 4, w, &info), -EINVAL);
}

static void ud_send_carries_address_vector(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	union ib_gid dgid = { .raw = { 0xfe, 0x80, [15] = 0x42 } };
	struct cxib_ah ah = {};
	struct ib_sge sg = { .addr = 0x7000, .length = 256, .lkey = 5 };
	struct ib_ud_wr ud = { .wr = { .opcode = IB_WR_SEND, .sg_list = &sg, .num_sge = 1 },
			       .ah = &ah.ibah, .remote_qpn = 0x123456, .remote_qkey = 0x80010000 };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);
	void *av = w + 16;

	rdma_ah_set_dlid(&attr, 0x0007);
	rdma_ah_set_sl(&attr, 0xa);
	rdma_ah_set_path_bits(&attr, 0x3);
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_static_rate(&attr, IB_RATE_PORT_CURRENT);
	rdma_ah_set_grh(&attr, &dgid, 0xabcde, 2, 64, 0x12);
	cxib_ah_attr_to_av(&attr, &ah.av);

	p.type = IB_QPT_UD;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 9, w, &info), 5);
	expect_ctrl(test, w, 9, CXIB_WQE_OPCODE_SEND, 5, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_QKEY), 0x80010000);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_RESERVED_AT_20), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_EXT), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_DQPN), 0x123456);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_STAT_RATE), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_SL), 0xa);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_FL), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_MLID), 3);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_RLID), 7);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_GRH), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_SGID_INDEX), 2);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_FLOW_LABEL), 0xabcde);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_TCLASS), 0x12);
	KUNIT_EXPECT_EQ(test, CXIB_GET(av, CXIB_WQE_AV_HOP_LIMIT), 64);
	KUNIT_EXPECT_EQ(test, memcmp(av + CXIB_WQE_AV_RGID_OFFSET, dgid.raw, 16), 0);
	expect_data(test, w + 64, 256, 5, 0x7000);

	/* A static rate is coded as the address path takes it. */
	rdma_ah_set_static_rate(&attr, IB_RATE_10_GBPS);
	cxib_ah_attr_to_av(&attr, &ah.av);
	KUNIT_EXPECT_EQ(test, CXIB_GET(&ah.av, CXIB_WQE_AV_STAT_RATE),
			IB_RATE_10_GBPS + CXIB_AV_STAT_RATE_OFFSET);

	/* UD takes sends only. */
	ud.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 9, w, &info), -EINVAL);
	ud.wr.opcode = IB_WR_SEND_WITH_INV;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 9, w, &info), -EINVAL);
	/* GSI sends the same way. */
	ud.wr.opcode = IB_WR_SEND_WITH_IMM;
	p.type = IB_QPT_GSI;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 9, w, &info), 5);
}

/*
 * An IPoIB UD QP: after the datagram segment a zero pad and the Ethernet segment, 16 bytes
 * for a SEND (with the checksum request of IB_SEND_IP_CSUM), for an LSO the MSS and the
 * headers inline from byte 14, padded to 16 (raw offsets: mlx5_wqe_eth_seg).
 */
#define OFF_ETH		(16 + CXIB_WQE_AV_SIZE)	/* the pad, then the segment */
#define OFF_ETH_CS	(OFF_ETH + 16 + 4)
#define OFF_ETH_MSS	(OFF_ETH + 16 + 6)
#define OFF_ETH_HDR_SZ	(OFF_ETH + 16 + 12)
#define OFF_ETH_HDR	(OFF_ETH + 16 + 14)

static void ipoib_eth_segment_and_lso(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct cxib_ah ah = {};
	struct ib_sge sg[2] = { { .addr = 0x7000, .length = 3000, .lkey = 5 },
				{ .addr = 0x9000, .length = 1000, .lkey = 6 } };
	struct ib_ud_wr ud = { .wr = { .opcode = IB_WR_SEND, .sg_list = sg, .num_sge = 1,
				       .send_flags = IB_SEND_IP_CSUM | IB_SEND_SIGNALED },
			       .ah = &ah.ibah, .remote_qpn = 0x48, .remote_qkey = 0x0b1b };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test), hdr[CXIB_IPOIB_LSO_MAX_HDR + 1];
	unsigned int i;

	for (i = 0; i < sizeof(hdr); i++)
		hdr[i] = i + 1;
	p.type = IB_QPT_UD;
	p.ipoib = true;

	/* SEND: ctrl, av (3), pad, eth, one data segment */
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 2, w, &info), 7);
	expect_ctrl(test, w, 2, CXIB_WQE_OPCODE_SEND, 7, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(w + OFF_ETH, 0, 16));
	KUNIT_EXPECT_EQ(test, w[OFF_ETH_CS], CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM);
	KUNIT_EXPECT_EQ(test, w[OFF_ETH_CS], 0xc0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(w + OFF_ETH_MSS), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(w + OFF_ETH_HDR_SZ), 0);
	expect_data(test, w + OFF_ETH + 32, 3000, 5, 0x7000);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_SEND);
	/* without IB_SEND_IP_CSUM the segment is all zero */
	ud.wr.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 2, w, &info), 7);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(w + OFF_ETH, 0, 32));

	/* LSO: 54 header bytes -> the segment takes ALIGN(14 + 54, 16) = 80 bytes */
	ud.wr.opcode = IB_WR_LSO;
	ud.wr.send_flags = IB_SEND_IP_CSUM | IB_SEND_SIGNALED;
	ud.wr.num_sge = 2;
	ud.header = hdr;
	ud.hlen = 54;
	ud.mss = 1400;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), 1 + 3 + 1 + 5 + 2);
	expect_ctrl(test, w, 3, CXIB_WQE_OPCODE_LSO, 12, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, w[OFF_ETH_CS], 0xc0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(w + OFF_ETH_MSS), 1400);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(w + OFF_ETH_HDR_SZ), 54);
	KUNIT_EXPECT_EQ(test, memcmp(w + OFF_ETH_HDR, hdr, 54), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(w + OFF_ETH_HDR + 54, 0, 80 - 14 - 54));
	expect_data(test, w + OFF_ETH + 16 + 80, 3000, 5, 0x7000);
	expect_data(test, w + OFF_ETH + 16 + 96, 1000, 6, 0x9000);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_LSO);
	KUNIT_EXPECT_EQ(test, info.nbb, 3);

	/* the longest headers fit; one byte more, no MSS or no headers do not */
	ud.hlen = CXIB_IPOIB_LSO_MAX_HDR;
	KUNIT_EXPECT_GT(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), 0);
	ud.hlen = CXIB_IPOIB_LSO_MAX_HDR + 1;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), -EINVAL);
	ud.hlen = 54;
	ud.mss = 0;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), -EINVAL);
	ud.mss = 1400;
	ud.header = NULL;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), -EINVAL);
	ud.header = hdr;
	/* LSO only on a QP with the offloads (and never on RC) */
	p.ipoib = false;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), -EINVAL);
	p.type = IB_QPT_RC;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), -EINVAL);
	/* a plain UD QP ignores IB_SEND_IP_CSUM: no Ethernet segment at all */
	p.type = IB_QPT_UD;
	ud.wr.opcode = IB_WR_SEND;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &ud.wr, 3, w, &info), 6);
}

/* Inline sizes around the 16-byte units: the 4-byte header shares the first one. */
static void inline_data_sizes(struct kunit *test)
{
	static const u32 sizes[] = { 1, 12, 13, 28, 29, 60, 100, 200 };
	struct cxib_sq_params p = rc_params();
	u8 src[200], *w = wqe_alloc(test);
	struct ib_sge sg[3];
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .sg_list = sg,
				 .send_flags = IB_SEND_INLINE };
	struct cxib_sq_ent info;
	u32 i, len, a, b, pad;
	int ds;

	for (i = 0; i < sizeof(src); i++)
		src[i] = i * 7 + 1;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		len = sizes[i];
		/* Split into three pieces (some empty) to check they are packed. */
		a = len / 3;
		b = len / 2 - a / 2;
		sg[0] = (struct ib_sge){ .addr = (uintptr_t)src, .length = a };
		sg[1] = (struct ib_sge){ .addr = (uintptr_t)(src + a), .length = b };
		sg[2] = (struct ib_sge){ .addr = (uintptr_t)(src + a + b), .length = len - a - b };
		wr.num_sge = 3;
		memset(w, 0xee, WQE_BYTES);
		ds = cxib_wqe_build_send(&p, &wr, 0, w, &info);
		KUNIT_EXPECT_EQ_MSG(test, ds, 1 + (int)DIV_ROUND_UP(4 + len, 16), "len %u", len);
		KUNIT_EXPECT_EQ(test, CXIB_GET(w + 16, CXIB_WQE_INLINE_SEG), 1);
		KUNIT_EXPECT_EQ(test, CXIB_GET(w + 16, CXIB_WQE_INLINE_BYTE_COUNT), len);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(w + 20, src, len), 0, "len %u", len);
		pad = ALIGN(4 + len, 16) - 4 - len;
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(w + 20 + len, 0, pad), "len %u", len);
		KUNIT_EXPECT_EQ(test, info.nbb, DIV_ROUND_UP(ds * 16, 64));
	}

	/* Beyond max_inline: refused. */
	p.max_inline = 199;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), -EINVAL);
	/* Not for reads. */
	p.max_inline = 200;
	wr.opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), -EINVAL);
}

static void gather_limit(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_sge sg[5] = {};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .sg_list = sg, .num_sge = 5 };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);
	int i;

	for (i = 0; i < 5; i++)
		sg[i] = (struct ib_sge){ .addr = 0x1000 * i, .length = 1, .lkey = i };
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), -EINVAL);
	wr.num_sge = 4;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), 5);
	KUNIT_EXPECT_EQ(test, info.nbb, 2);
	wr.opcode = 0x7f;	/* no such opcode */
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &wr, 0, w, &info), -EINVAL);
}

static void fences(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);

	wr.send_flags = IB_SEND_FENCE;
	cxib_wqe_build_send(&p, &wr, 0, w, &info);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_FM), CXIB_WQE_FM_FENCE);
	KUNIT_EXPECT_EQ(test, w[OFF_CTRL_FM_CE_SE] >> 5, CXIB_WQE_FM_FENCE);
	p.small_fence = true;
	cxib_wqe_build_send(&p, &wr, 0, w, &info);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_FM),
			CXIB_WQE_FM_FENCE_AND_INITIATOR_SMALL_FENCE);
	wr.send_flags = 0;
	cxib_wqe_build_send(&p, &wr, 0, w, &info);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_FM), CXIB_WQE_FM_INITIATOR_SMALL_FENCE);
}

static void local_invalidate_umr(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct ib_send_wr wr = { .opcode = IB_WR_LOCAL_INV, .ex.invalidate_rkey = 0x00123401,
				 .send_flags = IB_SEND_SIGNALED };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test), *umr = w + 16, *mkey = w + 64;

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &wr, 8, w, &info), 8);
	expect_ctrl(test, w, 8, CXIB_WQE_OPCODE_UMR, 8, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_IMM), 0x00123401);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_FLAGS), CXIB_UMR_INLINE);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(umr, CXIB_WQE_UMR_MKEY_MASK), CXIB_UMR_MKEY_MASK_FREE);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(umr + 16, 0, 32));
	KUNIT_EXPECT_EQ(test, mkey[0], 0x40);	/* status: free */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(mkey + 1, 0, 63));
	KUNIT_EXPECT_EQ(test, info.nbb, 2);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_LOCAL_INV);
	/* Not on UD. */
	p.type = IB_QPT_UD;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &wr, 8, w, &info), -EINVAL);
}

static void register_mr_umr(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	__be64 pl[8] = {};
	struct cxib_mr mr = { .pl = pl, .pl_dma = 0x9000, .max_pages = 8, .npages = 3,
			      .page_shift = 12, .pd = 0x17 };
	struct ib_reg_wr rw = { .wr = { .opcode = IB_WR_REG_MR },
				.mr = &mr.ibmr, .key = 0x00555502,
				.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
					  IB_ACCESS_REMOTE_WRITE };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test), *umr = w + 16, *mkey = w + 64, *data = w + 128;
	u64 mask;

	mr.ibmr.iova = 0x7f0000001000ull;
	mr.ibmr.length = 3 * 4096 - 100;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 0x20, w, &info), 9);
	expect_ctrl(test, w, 0x20, CXIB_WQE_OPCODE_UMR, 9, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_IMM), 0x00555502);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_FLAGS), CXIB_UMR_CHECK_NOT_FREE);
	/* 3 entries of 8 bytes go as one 64-byte block: 4 octowords. */
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS), 4);
	mask = CXIB_GET64(umr, CXIB_WQE_UMR_MKEY_MASK);
	KUNIT_EXPECT_EQ(test, mask,
			CXIB_UMR_MKEY_MASK_LEN | CXIB_UMR_MKEY_MASK_PAGE_SIZE |
			CXIB_UMR_MKEY_MASK_START_ADDR | CXIB_UMR_MKEY_MASK_EN_RINVAL |
			CXIB_UMR_MKEY_MASK_KEY | CXIB_UMR_MKEY_MASK_LR | CXIB_UMR_MKEY_MASK_LW |
			CXIB_UMR_MKEY_MASK_RR | CXIB_UMR_MKEY_MASK_RW |
			CXIB_UMR_MKEY_MASK_SMALL_FENCE | CXIB_UMR_MKEY_MASK_FREE |
			CXIB_UMR_MKEY_MASK_A);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_FREE), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_LR), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_LW), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_RR), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_RW), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_A), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_ACCESS_MODE), CXIB_MKC_ACCESS_MODE_MTT);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_QPN), 0xffffff);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_MKEY_7_0), 0x02);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_EN_RINVAL), 1);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_PD), 0x17);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(mkey, CXIB_WQE_MKEY_START_ADDR), 0x7f0000001000ull);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(mkey, CXIB_WQE_MKEY_LEN), 3 * 4096 - 100);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_XLT_OCT_SIZE), 4);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_LOG2_PAGE_SIZE), 12);
	expect_data(test, data, 64, 0x77, 0x9000);
	KUNIT_EXPECT_EQ(test, info.nbb, 3);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_REG_MR);

	/* A list longer than the MR holds, or none at all: refused. */
	mr.npages = 9;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 0, w, &info), -EINVAL);
	mr.npages = 3;
	mr.pl = NULL;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 0, w, &info), -EINVAL);
}

/* A page list of 512 entries (past the 256 NVMe-oF asks for) goes as 256 octowords. */
static void register_mr_large_list(struct kunit *test)
{
	struct cxib_sq_params p = rc_params();
	struct cxib_mr mr = { .pl_dma = 0x123440000ull, .max_pages = 512, .npages = 512,
			      .page_shift = 12, .pd = 3 };
	struct ib_reg_wr rw = { .wr = { .opcode = IB_WR_REG_MR }, .mr = &mr.ibmr,
				.key = 0x00777701, .access = IB_ACCESS_LOCAL_WRITE };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test), *umr = w + 16, *mkey = w + 64, *data = w + 128;

	mr.pl = kunit_kcalloc(test, 512, sizeof(*mr.pl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr.pl);
	mr.ibmr.iova = 0x200000;
	mr.ibmr.length = 512 * 4096;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &rw.wr, 0, w, &info), 9);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS), 256);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_XLT_OCT_SIZE), 256);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(mkey, CXIB_WQE_MKEY_LEN), 512 * 4096);
	expect_data(test, data, 4096, 0x77, 0x123440000ull);
	/* 513 entries round up to the next 64-byte block: 260 octowords */
	KUNIT_EXPECT_EQ(test, cxib_umr_xlt_octowords(513), 260);
}

static struct cxib_sq_params umr_params(void)
{
	return (struct cxib_sq_params){
		.qpn = QPN, .type = CXIB_QPT_REG_UMR, .max_gs = 1, .local_dma_lkey = 0x99,
	};
}

/*
 * The UMR QP's table load (umr.c): 40 entries at entry 0x12340 of the key's table, read
 * through the UMR PD's key; the offset counts octowords (two entries) and needs bits
 * 47:16; only the last piece clears the free bit.  Nothing else goes on that QP, and the
 * load goes on no other.
 */
static void umr_qp_table_load(struct kunit *test)
{
	struct cxib_sq_params p = umr_params();
	struct cxib_umr_wr uw = {
		.wr = { .opcode = CXIB_WR_UMR_XLT, .send_flags = IB_SEND_SIGNALED, .wr_id = 9 },
		.mkey = 0x00abcd42, .xlt_dma = 0x7700000, .xlt_lkey = 0x99, .offset = 0x12340,
		.nentries = 40,
	};
	struct ib_send_wr send = { .opcode = IB_WR_SEND };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test), *umr = w + 16, *mkey = w + 64, *data = w + 128;

	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &uw.wr, 5, w, &info), 9);
	expect_ctrl(test, w, 5, CXIB_WQE_OPCODE_UMR, 9, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
	KUNIT_EXPECT_EQ(test, CXIB_GET(w, CXIB_WQE_CTRL_IMM), 0x00abcd42);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_FLAGS),
			CXIB_UMR_CHECK_NOT_FREE | CXIB_UMR_TRANSLATION_OFFSET_EN);
	KUNIT_EXPECT_EQ(test, umr[0], 0x30);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS), 20);
	/* entry 0x12340 is octoword 0x91a0: 0x91a0 below, 0 in bits 47:16 */
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OFFSET), 0x91a0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OFFSET_47_16), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(umr, CXIB_WQE_UMR_MKEY_MASK), 0);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_MKEY_7_0), 0x42);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_FREE), 0);
	expect_data(test, data, 20 * 16, 0x99, 0x7700000);
	KUNIT_EXPECT_EQ(test, info.nbb, 3);
	KUNIT_EXPECT_EQ(test, info.wc_opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, info.wr_id, 9);

	/* the last piece, far into a large table: offset 0x2_0000_0010 entries */
	uw.offset = 0x200000010ull;
	uw.nentries = 3;
	uw.enable = true;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &uw.wr, 6, w, &info), 9);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS), 4);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OFFSET), 0x0008);
	KUNIT_EXPECT_EQ(test, CXIB_GET(umr, CXIB_WQE_UMR_XLT_OFFSET_47_16), 0x10000);
	KUNIT_EXPECT_EQ(test, CXIB_GET64(umr, CXIB_WQE_UMR_MKEY_MASK), CXIB_UMR_MKEY_MASK_FREE);
	KUNIT_EXPECT_EQ(test, CXIB_GET(mkey, CXIB_WQE_MKEY_FREE), 0);
	expect_data(test, data, 64, 0x99, 0x7700000);

	/* pieces the segment cannot describe */
	uw.offset = 4;				/* not on a 64-byte block */
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &uw.wr, 0, w, &info), -EINVAL);
	uw.offset = 0;
	uw.nentries = 0;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &uw.wr, 0, w, &info), -EINVAL);
	uw.nentries = 131072;			/* 65536 octowords: one more than 16 bits */
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &uw.wr, 0, w, &info), -EINVAL);
	uw.nentries = 8;
	/* the UMR QP sends nothing else, and no other QP loads tables */
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &send, 0, w, &info), -EINVAL);
	p = rc_params();
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_send(&p, &uw.wr, 0, w, &info), -EINVAL);
}

static void recv_wqe_terminator(struct kunit *test)
{
	struct ib_sge sg[5];
	struct ib_recv_wr wr = { .sg_list = sg, .num_sge = 2 };
	u8 w[64];
	int i;

	for (i = 0; i < 5; i++)
		sg[i] = (struct ib_sge){ .addr = 0x100000 + i, .length = 10 + i, .lkey = 0x20 + i };
	memset(w, 0xee, sizeof(w));
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_recv(w, 4, &wr), 0);
	expect_data(test, w, 10, 0x20, 0x100000);
	expect_data(test, w + 16, 11, 0x21, 0x100001);
	expect_data(test, w + 32, 0, CXIB_INVALID_LKEY, 0);
	/* Entries after the terminator are not touched. */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(w + 48, 0xee, 16));

	wr.num_sge = 4;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_recv(w, 4, &wr), 0);
	expect_data(test, w + 48, 13, 0x23, 0x100003);
	wr.num_sge = 5;
	KUNIT_EXPECT_EQ(test, cxib_wqe_build_recv(w, 4, &wr), -EINVAL);
	wr.num_sge = 0;
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_recv(w, 4, &wr), 0);
	expect_data(test, w, 0, CXIB_INVALID_LKEY, 0);
}

/* A two-piece buffer: a 4 KiB RQ, then a 64-WQEBB (4 KiB) SQ in the second piece. */
static void ring_copy_wraps(struct kunit *test)
{
	struct cxib_frag_buf buf = {};
	void *bufs[2];
	u8 wqe[3 * 64];
	int i;

	for (i = 0; i < 2; i++) {
		bufs[i] = kunit_kzalloc(test, CXIB_ADAPTER_PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bufs[i]);
	}
	buf.bufs = bufs;
	buf.npages = 2;
	for (i = 0; i < sizeof(wqe); i++)
		wqe[i] = i + 1;

	/* WQE index 0x10003f (unmasked): its last WQEBB of the ring, then the first two. */
	cxib_sq_copy_wqe(&buf, CXIB_ADAPTER_PAGE_SIZE, 6, 0x10003f, wqe, 3);
	KUNIT_EXPECT_EQ(test, memcmp(bufs[1] + 63 * 64, wqe, 64), 0);
	KUNIT_EXPECT_EQ(test, memcmp(bufs[1], wqe + 64, 128), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(bufs[1] + 128, 0, 63 * 64 - 128));
	/* Nothing lands in the RQ. */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(bufs[0], 0, CXIB_ADAPTER_PAGE_SIZE));

	/* Not wrapping: in place. */
	memset(bufs[1], 0, CXIB_ADAPTER_PAGE_SIZE);
	cxib_sq_copy_wqe(&buf, CXIB_ADAPTER_PAGE_SIZE, 6, 5, wqe, 2);
	KUNIT_EXPECT_EQ(test, memcmp(bufs[1] + 5 * 64, wqe, 128), 0);
}

static void doorbell_and_blueflame(struct kunit *test)
{
	struct cxib_caps caps = { .bf = true, .log_bf_reg_size = CXIB_LOG_BF_REG_SIZE };
	struct cxib_sq_params p = rc_params();
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED };
	struct cxib_sq_ent info;
	u8 *w = wqe_alloc(test);
	__be32 db[2];

	/* The 8-byte doorbell is the first 8 bytes of the control segment. */
	KUNIT_ASSERT_EQ(test, cxib_wqe_build_send(&p, &wr, 0xbeef, w, &info), 1);
	memcpy(db, w, sizeof(db));
	KUNIT_EXPECT_EQ(test, CXIB_GET(db, CXIB_SQ_DB_WQE_INDEX), 0xbeef);
	KUNIT_EXPECT_EQ(test, CXIB_GET(db, CXIB_SQ_DB_QPN), QPN);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(db[0]), 0x00beef00 | CXIB_WQE_OPCODE_SEND);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(db[1]), QPN << 8 | 1);

	/* One small WQE goes whole through BlueFlame; else the 8-byte doorbell. */
	KUNIT_EXPECT_EQ(test, cxib_sq_bf_len(&caps, 1, 1), 64);
	KUNIT_EXPECT_EQ(test, cxib_sq_bf_len(&caps, 1, 4), 256);
	KUNIT_EXPECT_EQ(test, cxib_sq_bf_len(&caps, 1, 5), CXIB_SQ_DB_SIZE);
	KUNIT_EXPECT_EQ(test, cxib_sq_bf_len(&caps, 2, 1), CXIB_SQ_DB_SIZE);
	caps.bf = false;
	KUNIT_EXPECT_EQ(test, cxib_sq_bf_len(&caps, 1, 1), CXIB_SQ_DB_SIZE);
}

/* A send queue of 16 WQEBBs with WQEs posted at @head onwards: sizes @nbb, ids 100 + i. */
static void sq_post(struct cxib_sq *sq, struct cxib_sq_ent *ents, u32 head, const u8 *nbb,
		    int n, u8 signaled_mask)
{
	int i;

	memset(sq, 0, sizeof(*sq));
	sq->ents = ents;
	sq->log_wqe_cnt = 4;
	sq->head = head;
	sq->tail = head;
	for (i = 0; i < n; i++) {
		ents[sq->head & 15] = (struct cxib_sq_ent){
			.wr_id = 100 + i, .nbb = nbb[i], .wc_opcode = IB_WC_SEND,
			.flags = signaled_mask & BIT(i) ? CXIB_SQE_SIGNALED : 0 };
		sq->head += nbb[i];
		sq->wr_head++;
	}
}

static void requester_retires_unsignaled(struct kunit *test)
{
	static const u8 nbb[] = { 1, 2, 3, 1 };
	struct cxib_sq_ent ents[16];
	struct ib_wc wc = {};
	struct cxib_sq sq;

	/* Unsignaled, unsignaled, signaled (index 3), signaled (index 6). */
	sq_post(&sq, ents, 0, nbb, 4, BIT(2) | BIT(3));
	KUNIT_ASSERT_EQ(test, cxib_sq_complete(&sq, 3, false, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 102);
	KUNIT_EXPECT_EQ(test, sq.tail, 6);
	KUNIT_EXPECT_EQ(test, sq.wr_tail, 3);
	/* A counter inside a completed or never posted range is refused. */
	KUNIT_EXPECT_EQ(test, cxib_sq_complete(&sq, 3, false, &wc), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxib_sq_complete(&sq, 7, false, &wc), -EINVAL);
	KUNIT_EXPECT_EQ(test, sq.tail, 6);
	KUNIT_ASSERT_EQ(test, cxib_sq_complete(&sq, 6, true, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 103);
	KUNIT_EXPECT_EQ(test, sq.tail, 7);
	KUNIT_EXPECT_EQ(test, sq.wr_tail, 4);
}

static void requester_counter_wraps(struct kunit *test)
{
	static const u8 nbb[] = { 3, 2 };
	struct cxib_sq_ent ents[16];
	struct ib_wc wc = { .opcode = IB_WC_REG_MR };
	struct cxib_sq sq;

	/* The 16-bit counter wraps between the two WQEs (0xfffe, then 0x0001). */
	sq_post(&sq, ents, 0x3fffe, nbb, 2, BIT(1));
	ents[0x1 & 15].wc_opcode = IB_WC_LOCAL_INV;
	KUNIT_ASSERT_EQ(test, cxib_sq_complete(&sq, 0x0001, false, &wc), 0);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 101);
	/* A UMR completion reports what was posted: LOCAL_INV here. */
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, sq.tail, 0x40003);
	KUNIT_EXPECT_EQ(test, sq.wr_tail, 2);
}

static void qp_event_types(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_COMM_EST), IB_EVENT_COMM_EST);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_SRQ_LAST_WQE),
			IB_EVENT_QP_LAST_WQE_REACHED);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_WQ_CATAS_ERROR),
			IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR),
			IB_EVENT_QP_REQ_ERR);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_WQ_ACCESS_ERROR),
			IB_EVENT_QP_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_PATH_MIG), IB_EVENT_PATH_MIG);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_PATH_MIG_FAILED),
			IB_EVENT_PATH_MIG_ERR);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_SQ_DRAINED),
			IB_EVENT_SQ_DRAINED);
	KUNIT_EXPECT_EQ(test, cxib_qp_event_type(CXIB_EVENT_TYPE_CQ_ERROR), -1);
}

/* Dropping a QP's CQEs from a CQ of 8 entries: the others move up, owners kept. */
static void cq_clean_drops_one_qp(struct kunit *test)
{
	struct cxib_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	void *page = kunit_kzalloc(test, CXIB_ADAPTER_PAGE_SIZE, GFP_KERNEL);
	static const u32 qpns[] = { 0xa, 0xb, 0xa, 0xb, 0xb };
	__be32 dbr[2] = {};
	void *bufs[1];
	u8 *cqe;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cq);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bufs[0] = page;
	cq->buf.bufs = bufs;
	cq->buf.npages = 1;
	cq->dbr.db = dbr;
	cq->log_size = 3;
	spin_lock_init(&cq->lock);
	/* Consumer at 6: entries 6, 7 (lap 0, owner 0) and 8, 9, 10 (lap 1, owner 1). */
	cq->cons_index = 6;
	for (i = 0; i < 8; i++)
		CXIB_SET(page + i * 64, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_INVALID);
	for (i = 0; i < 5; i++) {
		cqe = page + ((6 + i) & 7) * 64;
		memset(cqe, 0, 64);
		CXIB_SET(cqe, CXIB_CQE_QPN, qpns[i]);
		CXIB_SET(cqe, CXIB_CQE_WQE_COUNTER, 0x100 + i);
		CXIB_SET(cqe, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_REQ);
		CXIB_SET(cqe, CXIB_CQE_OWNER, (6 + i) >> 3 & 1);
	}
	spin_lock_irq(&cq->lock);
	cxib_cq_clean_locked(cq, 0xa, NULL);
	spin_unlock_irq(&cq->lock);
	KUNIT_EXPECT_EQ(test, cq->cons_index, 8);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(dbr[0]) & 0xffffff, 8);
	/* 8, 9, 10 now hold QP b's CQEs 1, 3, 4 in order, each with its slot's owner (1). */
	for (i = 0; i < 3; i++) {
		cqe = page + ((8 + i) & 7) * 64;
		KUNIT_EXPECT_EQ(test, CXIB_GET(cqe, CXIB_CQE_QPN), 0xb);
		KUNIT_EXPECT_EQ(test, CXIB_GET(cqe, CXIB_CQE_OWNER), 1);
		KUNIT_EXPECT_TRUE(test, cxib_cqe_sw_owned(cqe, 8 + i, 3));
	}
	KUNIT_EXPECT_EQ(test, CXIB_GET(page + 0 * 64, CXIB_CQE_WQE_COUNTER), 0x101);
	KUNIT_EXPECT_EQ(test, CXIB_GET(page + 1 * 64, CXIB_CQE_WQE_COUNTER), 0x103);
	KUNIT_EXPECT_EQ(test, CXIB_GET(page + 2 * 64, CXIB_CQE_WQE_COUNTER), 0x104);
	/* No CQE of the QP left: nothing changes. */
	spin_lock_irq(&cq->lock);
	cxib_cq_clean_locked(cq, 0xa, NULL);
	spin_unlock_irq(&cq->lock);
	KUNIT_EXPECT_EQ(test, cq->cons_index, 8);
}

/*
 * A dead device writes no CQEs: poll_cq returns what the device wrote, then flushes every
 * WR still outstanding on the CQ's QPs (send queue, then receive queue) in posting order,
 * so ib_drain_qp() sees them all.
 */
static void dead_device_poll_flushes(struct kunit *test)
{
	struct cxib_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct cxib_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	struct cxib_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	void *page = kunit_kzalloc(test, CXIB_ADAPTER_PAGE_SIZE, GFP_KERNEL);
	static const u8 nbb[] = { 1, 2, 1 };
	struct cxib_sq_ent ents[16];
	struct ib_wc wc[8];
	__be32 dbr[2] = {};
	u64 wrid[4] = { 200, 201 };
	void *bufs[1];
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_NOT_NULL(test, page);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	cq->ibcq.device = &dev->ibdev;
	spin_lock_init(&cq->lock);
	INIT_LIST_HEAD(&cq->send_qps);
	INIT_LIST_HEAD(&cq->recv_qps);
	bufs[0] = page;
	cq->buf.bufs = bufs;
	cq->buf.npages = 1;
	cq->dbr.db = dbr;
	cq->log_size = 3;
	for (i = 0; i < 8; i++)
		CXIB_SET(page + i * 64, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_INVALID);

	qp->ibqp.qp_type = IB_QPT_RC;
	qp->qpn = 0x42;
	sq_post(&qp->sq, ents, 0, nbb, 3, BIT(0));
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->rq.wrid = wrid;
	qp->rq.log_wqe_cnt = 2;
	qp->rq.max_wr = 4;
	qp->rq.head = 2;
	list_add(&qp->cq_send_node, &cq->send_qps);
	list_add(&qp->cq_recv_node, &cq->recv_qps);
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL), 0);

	/* The device completed the first WQE before it died. */
	CXIB_SET(page, CXIB_CQE_QPN, qp->qpn);
	CXIB_SET(page, CXIB_CQE_SOP, CXIB_WQE_OPCODE_SEND);
	CXIB_SET(page, CXIB_CQE_WQE_COUNTER, 0);
	CXIB_SET(page, CXIB_CQE_OPCODE, CXIB_CQE_OPCODE_REQ);

	/* Alive: the CQE only. */
	n = cxib_poll_cq(&cq->ibcq, 8, wc);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 100);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, &qp->ibqp);
	KUNIT_EXPECT_EQ(test, cxib_poll_cq(&cq->ibcq, 8, wc), 0);

	set_bit(CXIB_DEV_DEAD, &dev->flags);
	n = cxib_poll_cq(&cq->ibcq, 2, wc);
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 101);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 102);
	n = cxib_poll_cq(&cq->ibcq, 8, wc);
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 200);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 201);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &qp->ibqp);
	}
	KUNIT_EXPECT_EQ(test, cxib_poll_cq(&cq->ibcq, 8, wc), 0);
	KUNIT_EXPECT_EQ(test, qp->sq.tail, qp->sq.head);
	KUNIT_EXPECT_EQ(test, qp->sq.wr_tail, 3);
	KUNIT_EXPECT_EQ(test, qp->rq.tail, 2);
	xa_destroy(&dev->qps);
}

struct kick_seen {
	struct completion done;
	struct task_struct *task;
};

static void kick_handler(struct ib_cq *ibcq, void *ctx)
{
	struct kick_seen *seen = ctx;

	seen->task = current;
	complete(&seen->done);
}

/*
 * The completion handler a dead device's post asks for runs from a work item, never in the
 * poster's context (which may hold locks the handler takes); a directly polled CQ gets none.
 */
static void dead_device_kick_runs_from_a_work_item(struct kunit *test)
{
	struct cxib_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	struct kick_seen seen;

	KUNIT_ASSERT_NOT_NULL(test, cq);
	init_completion(&seen.done);
	seen.task = NULL;
	INIT_WORK(&cq->kick_work, cxib_cq_kick_work);
	cq->ibcq.comp_handler = kick_handler;
	cq->ibcq.cq_context = &seen;
	cq->ibcq.poll_ctx = IB_POLL_SOFTIRQ;
	cxib_cq_kick(cq);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&seen.done, 5 * HZ), 0);
	KUNIT_EXPECT_PTR_NE(test, seen.task, current);
	KUNIT_EXPECT_TRUE(test, seen.task->flags & PF_WQ_WORKER);

	reinit_completion(&seen.done);
	cq->ibcq.poll_ctx = IB_POLL_DIRECT;
	cxib_cq_kick(cq);
	flush_work(&cq->kick_work);
	KUNIT_EXPECT_FALSE(test, completion_done(&seen.done));
}

static struct kunit_case cxib_wqe_cases[] = {
	KUNIT_CASE(send_gathers_and_skips_empty),
	KUNIT_CASE(unsignaled_and_sig_all),
	KUNIT_CASE(immediate_and_invalidate),
	KUNIT_CASE(rdma_write_and_read),
	KUNIT_CASE(atomics),
	KUNIT_CASE(ud_send_carries_address_vector),
	KUNIT_CASE(ipoib_eth_segment_and_lso),
	KUNIT_CASE(inline_data_sizes),
	KUNIT_CASE(gather_limit),
	KUNIT_CASE(fences),
	KUNIT_CASE(local_invalidate_umr),
	KUNIT_CASE(register_mr_umr),
	KUNIT_CASE(register_mr_large_list),
	KUNIT_CASE(umr_qp_table_load),
	KUNIT_CASE(recv_wqe_terminator),
	KUNIT_CASE(ring_copy_wraps),
	KUNIT_CASE(doorbell_and_blueflame),
	KUNIT_CASE(requester_retires_unsignaled),
	KUNIT_CASE(requester_counter_wraps),
	KUNIT_CASE(qp_event_types),
	KUNIT_CASE(cq_clean_drops_one_qp),
	KUNIT_CASE(dead_device_poll_flushes),
	KUNIT_CASE(dead_device_kick_runs_from_a_work_item),
	{}
};

static struct kunit_suite cxib_wqe_suite = {
	.name = "cxib_wqe",
	.test_cases = cxib_wqe_cases,
};

kunit_test_suite(cxib_wqe_suite);
