// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: reading CQEs (cq.c; PRM §6.3): which entries belong to software on each lap
 * through the ring, and how every field of a good or error CQE lands in the ib_wc.  CQEs are
 * composed byte by byte from the PRM's table of offsets, not with the header's accessors, so
 * the header's field definitions are checked too.
 */

#include <kunit/test.h>
#include <linux/unaligned.h>

#include "cxib_kunit.h"

/* Byte offsets in the 64-byte CQE (PRM §6.3). */
#define OFF_ML_PATH	0x11
#define OFF_SLID	0x16
#define OFF_FLAGS_RQPN	0x18	/* [29:28] g, [27:24] sl, [23:0] source QPN */
#define OFF_HDS_IP_EXT	0x1c	/* [2] L4 OK, [1] L3 OK (IPoIB UD QPs) */
#define OFF_IMM		0x24
#define OFF_BYTE_CNT	0x2c
#define OFF_VENDOR_SYND	0x36
#define OFF_SYNDROME	0x37
#define OFF_SOP_QPN	0x38	/* [31:24] send opcode, [23:0] QPN */
#define OFF_WQE_COUNTER	0x3c
#define OFF_OP_OWN	0x3f	/* [7:4] opcode, [0] owner */

#define OP_REQ		0x0
#define OP_RESP_WR_IMM	0x1
#define OP_RESP_SEND	0x2
#define OP_RESP_SEND_IMM 0x3
#define OP_RESP_SEND_INV 0x4
#define OP_REQ_ERR	0xd
#define OP_RESP_ERR	0xe
#define OP_INVALID	0xf

static void cqe_init(u8 *cqe, u8 opcode, u8 owner)
{
	memset(cqe, 0, 64);
	cqe[OFF_OP_OWN] = opcode << 4 | owner;
}

static void cqe_put32(u8 *cqe, unsigned int off, u32 v)
{
	put_unaligned_be32(v, cqe + off);
}

/* A receive CQE with every field the driver reports set to a distinct value. */
static void cqe_recv(u8 *cqe, u8 opcode, u8 g)
{
	cqe_init(cqe, opcode, 0);
	cqe[OFF_ML_PATH] = 0x05;
	put_unaligned_be16(0x1234, cqe + OFF_SLID);
	cqe_put32(cqe, OFF_FLAGS_RQPN, (u32)g << 28 | 0x7 << 24 | 0x00abcd);
	cqe_put32(cqe, OFF_IMM, 0xdeadbeef);
	cqe_put32(cqe, OFF_BYTE_CNT, 4096);
	cqe_put32(cqe, OFF_SOP_QPN, 0x000042);
	put_unaligned_be16(7, cqe + OFF_WQE_COUNTER);
}

static void recv_send_fills_sender_fields(struct kunit *test)
{
	struct ib_wc wc;
	u8 cqe[64];

	cqe_recv(cqe, OP_RESP_SEND, 1);
	memset(&wc, 0xa5, sizeof(wc));
	cxib_cqe_to_wc(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4096);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 0xabcd);
	KUNIT_EXPECT_EQ(test, wc.slid, 0x1234);
	KUNIT_EXPECT_EQ(test, wc.sl, 7);
	KUNIT_EXPECT_EQ(test, wc.dlid_path_bits, 5);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_GRH);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, 0);
	/* What only the QP knows is left for its completion hook, cleared. */
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0);
	KUNIT_EXPECT_NULL(test, wc.qp);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);
	KUNIT_EXPECT_FALSE(test, cxib_cqe_is_send(cqe));
}

static void recv_without_grh_has_no_grh_flag(struct kunit *test)
{
	struct ib_wc wc;
	u8 cqe[64];

	cqe_recv(cqe, OP_RESP_SEND, 0);
	cxib_cqe_to_wc(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, 0);
}

/* IB_WC_IP_CSUM_OK only for a SEND whose IP and TCP/UDP checksums the device found good. */
static void recv_checksum_ok_needs_both_checks(struct kunit *test)
{
	static const struct {
		u8 opcode, hds;
		bool ok;
	} cases[] = {
		{ OP_RESP_SEND, 0x06, true },
		{ OP_RESP_SEND, 0x07, true },
		{ OP_RESP_SEND, 0x02, false },	/* header only */
		{ OP_RESP_SEND, 0x04, false },	/* L4 only */
		{ OP_RESP_SEND, 0x00, false },
		{ OP_RESP_SEND_IMM, 0x06, false },	/* not an IPoIB message */
	};
	struct ib_wc wc;
	unsigned int i;
	u8 cqe[64];

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cqe_recv(cqe, cases[i].opcode, 1);
		cqe[OFF_HDS_IP_EXT] = cases[i].hds;
		cxib_cqe_to_wc(cqe, &wc);
		KUNIT_EXPECT_EQ_MSG(test, !!(wc.wc_flags & IB_WC_IP_CSUM_OK), cases[i].ok,
				    "case %u", i);
		KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_GRH);
		KUNIT_EXPECT_EQ(test, wc.byte_len, 4096);
	}
}

static void recv_immediate_keeps_wire_byte_order(struct kunit *test)
{
	struct ib_wc wc;
	u8 cqe[64];

	cqe_recv(cqe, OP_RESP_SEND_IMM, 0);
	cxib_cqe_to_wc(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xdeadbeef);

	cqe_recv(cqe, OP_RESP_WR_IMM, 0);
	cxib_cqe_to_wc(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4096);
}

static void recv_send_invalidate_reports_rkey(struct kunit *test)
{
	struct ib_wc wc;
	u8 cqe[64];

	cqe_recv(cqe, OP_RESP_SEND_INV, 0);
	cxib_cqe_to_wc(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0xdeadbeef);
}

static const struct {
	u8 sop;
	enum ib_wc_opcode opcode;
	int flags;
	u32 byte_len;		/* 0: not reported */
} req_cases[] = {
	{ 0x0a, IB_WC_SEND, 0, 0 },				/* SEND */
	{ 0x0b, IB_WC_SEND, IB_WC_WITH_IMM, 0 },		/* SEND_IMM */
	{ 0x01, IB_WC_SEND, 0, 0 },				/* SEND_INVAL */
	{ 0x08, IB_WC_RDMA_WRITE, 0, 0 },			/* RDMA_WRITE */
	{ 0x09, IB_WC_RDMA_WRITE, IB_WC_WITH_IMM, 0 },		/* RDMA_WRITE_IMM */
	{ 0x10, IB_WC_RDMA_READ, 0, 4096 },			/* RDMA_READ: bytes read */
	{ 0x11, IB_WC_COMP_SWAP, 0, 8 },			/* ATOMIC_CS */
	{ 0x12, IB_WC_FETCH_ADD, 0, 8 },			/* ATOMIC_FA */
	{ 0x14, IB_WC_MASKED_COMP_SWAP, 0, 8 },
	{ 0x15, IB_WC_MASKED_FETCH_ADD, 0, 8 },
	{ 0x0e, IB_WC_LSO, 0, 0 },
	{ 0x18, IB_WC_BIND_MW, 0, 0 },
	{ 0x25, IB_WC_REG_MR, 0, 0 },				/* UMR */
};

static void send_completion_opcodes(struct kunit *test)
{
	struct ib_wc wc;
	unsigned int i;
	u8 cqe[64];

	for (i = 0; i < ARRAY_SIZE(req_cases); i++) {
		cqe_init(cqe, OP_REQ, 0);
		cqe_put32(cqe, OFF_BYTE_CNT, 4096);
		cqe_put32(cqe, OFF_SOP_QPN, (u32)req_cases[i].sop << 24 | 0x42);
		cxib_cqe_to_wc(cqe, &wc);
		KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "sop 0x%02x", req_cases[i].sop);
		KUNIT_EXPECT_EQ_MSG(test, wc.opcode, req_cases[i].opcode, "sop 0x%02x",
				    req_cases[i].sop);
		KUNIT_EXPECT_EQ_MSG(test, wc.wc_flags, req_cases[i].flags, "sop 0x%02x",
				    req_cases[i].sop);
		KUNIT_EXPECT_EQ_MSG(test, wc.byte_len, req_cases[i].byte_len, "sop 0x%02x",
				    req_cases[i].sop);
		KUNIT_EXPECT_TRUE(test, cxib_cqe_is_send(cqe));
	}
}

static const struct {
	u8 syndrome;
	enum ib_wc_status status;
} synd_cases[] = {
	{ 0x01, IB_WC_LOC_LEN_ERR },
	{ 0x02, IB_WC_LOC_QP_OP_ERR },
	{ 0x04, IB_WC_LOC_PROT_ERR },
	{ 0x05, IB_WC_WR_FLUSH_ERR },
	{ 0x06, IB_WC_MW_BIND_ERR },
	{ 0x10, IB_WC_BAD_RESP_ERR },
	{ 0x11, IB_WC_LOC_ACCESS_ERR },
	{ 0x12, IB_WC_REM_INV_REQ_ERR },
	{ 0x13, IB_WC_REM_ACCESS_ERR },
	{ 0x14, IB_WC_REM_OP_ERR },
	{ 0x15, IB_WC_RETRY_EXC_ERR },
	{ 0x16, IB_WC_RNR_RETRY_EXC_ERR },
	{ 0x22, IB_WC_REM_ABORT_ERR },
	{ 0x00, IB_WC_GENERAL_ERR },	/* not a PRM syndrome */
	{ 0x99, IB_WC_GENERAL_ERR },
};

static void error_cqe_syndrome_maps_to_status(struct kunit *test)
{
	static const u8 ops[] = { OP_REQ_ERR, OP_RESP_ERR };
	unsigned int i, j;
	struct ib_wc wc;
	u8 cqe[64];

	for (j = 0; j < ARRAY_SIZE(ops); j++) {
		for (i = 0; i < ARRAY_SIZE(synd_cases); i++) {
			cqe_init(cqe, ops[j], 0);
			cqe[OFF_SYNDROME] = synd_cases[i].syndrome;
			cqe[OFF_VENDOR_SYND] = 0x5a;
			cqe_put32(cqe, OFF_SOP_QPN, 0x0a000042);
			cxib_cqe_to_wc(cqe, &wc);
			KUNIT_EXPECT_EQ_MSG(test, wc.status, synd_cases[i].status,
					    "opcode 0x%x syndrome 0x%02x", ops[j],
					    synd_cases[i].syndrome);
			KUNIT_EXPECT_EQ(test, wc.vendor_err, 0x5a);
			KUNIT_EXPECT_EQ(test, wc.byte_len, 0);
			KUNIT_EXPECT_EQ(test, wc.wc_flags, 0);
		}
		KUNIT_EXPECT_EQ(test, cxib_cqe_is_send(cqe), ops[j] == OP_REQ_ERR);
	}
	for (i = 0; i < ARRAY_SIZE(synd_cases); i++)
		KUNIT_EXPECT_EQ(test, cxib_cqe_syndrome_to_status(synd_cases[i].syndrome),
				synd_cases[i].status);
}

/*
 * Last 16 bytes of error CQEs from real ConnectX adapters, as users posted them
 * (perftest issue 140: LOCAL_PROT on an RDMA WRITE; SPDK issue 961: LOCAL_PROT on a SEND).
 */
static const struct {
	u32 tail[4];
	u8 vendor_err;
	u32 qpn;
	u16 wqe_counter;
} real_err_cqes[] = {
	{ { 0x00000000, 0x01005104, 0x08001a78, 0x000013d2 }, 0x51, 0x001a78, 0x0000 },
	{ { 0x00000000, 0x93005204, 0x0a0019a1, 0xc0921cd2 }, 0x52, 0x0019a1, 0xc092 },
};

static void real_error_cqe_dumps(struct kunit *test)
{
	struct ib_wc wc;
	unsigned int i, j;
	u8 cqe[64];

	for (i = 0; i < ARRAY_SIZE(real_err_cqes); i++) {
		memset(cqe, 0, sizeof(cqe));
		for (j = 0; j < 4; j++)
			cqe_put32(cqe, 0x30 + 4 * j, real_err_cqes[i].tail[j]);
		KUNIT_EXPECT_TRUE(test, cxib_cqe_sw_owned(cqe, 0, 6));
		KUNIT_EXPECT_TRUE(test, cxib_cqe_is_send(cqe));
		KUNIT_EXPECT_EQ(test, CXIB_GET(cqe, CXIB_CQE_ERR_QPN), real_err_cqes[i].qpn);
		KUNIT_EXPECT_EQ(test, CXIB_GET(cqe, CXIB_CQE_ERR_WQE_COUNTER),
				real_err_cqes[i].wqe_counter);
		cxib_cqe_to_wc(cqe, &wc);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
		KUNIT_EXPECT_EQ(test, wc.vendor_err, real_err_cqes[i].vendor_err);
	}
}

/* A ring of 4 CQEs: the device writes owner 0 on lap 0, 1 on lap 1, 0 on lap 2. */
static void ownership_follows_laps(struct kunit *test)
{
	const u8 log_size = 2;
	u8 ring[4][64];
	u32 ci, lap;

	for (ci = 0; ci < 4; ci++)
		cqe_init(ring[ci], OP_INVALID, 0);
	for (ci = 0; ci < 4; ci++)
		KUNIT_EXPECT_FALSE(test, cxib_cqe_sw_owned(ring[ci], ci, log_size));

	for (lap = 0; lap < 3; lap++) {
		for (ci = lap * 4; ci < lap * 4 + 4; ci++) {
			/* Not yet written for this lap: still the previous lap's owner. */
			KUNIT_EXPECT_FALSE_MSG(test, cxib_cqe_sw_owned(ring[ci % 4], ci, log_size),
					       "ci %u before the device wrote it", ci);
			cqe_init(ring[ci % 4], OP_RESP_SEND, lap & 1);
			KUNIT_EXPECT_TRUE_MSG(test, cxib_cqe_sw_owned(ring[ci % 4], ci, log_size),
					      "ci %u after the device wrote it", ci);
		}
	}
}

/* The free-running counter wraps at 2^32 without breaking the lap parity. */
static void ownership_survives_counter_wrap(struct kunit *test)
{
	const u8 log_size = 4;
	u8 cqe[64];

	cqe_init(cqe, OP_REQ, 1);
	KUNIT_EXPECT_TRUE(test, cxib_cqe_sw_owned(cqe, 0xfffffff0u, log_size));
	cqe_init(cqe, OP_REQ, 0);
	KUNIT_EXPECT_TRUE(test, cxib_cqe_sw_owned(cqe, 0x00000000u, log_size));
	KUNIT_EXPECT_FALSE(test, cxib_cqe_sw_owned(cqe, 0xfffffff0u, log_size));
}

static void invalid_opcode_is_never_owned(struct kunit *test)
{
	u8 cqe[64];

	cqe_init(cqe, OP_INVALID, 0);
	KUNIT_EXPECT_FALSE(test, cxib_cqe_sw_owned(cqe, 0, 3));
	cqe_init(cqe, OP_INVALID, 1);
	KUNIT_EXPECT_FALSE(test, cxib_cqe_sw_owned(cqe, 8, 3));
}

static struct kunit_case cxib_cqe_cases[] = {
	KUNIT_CASE(recv_send_fills_sender_fields),
	KUNIT_CASE(recv_without_grh_has_no_grh_flag),
	KUNIT_CASE(recv_checksum_ok_needs_both_checks),
	KUNIT_CASE(recv_immediate_keeps_wire_byte_order),
	KUNIT_CASE(recv_send_invalidate_reports_rkey),
	KUNIT_CASE(send_completion_opcodes),
	KUNIT_CASE(error_cqe_syndrome_maps_to_status),
	KUNIT_CASE(real_error_cqe_dumps),
	KUNIT_CASE(ownership_follows_laps),
	KUNIT_CASE(ownership_survives_counter_wrap),
	KUNIT_CASE(invalid_opcode_is_never_owned),
	{}
};

static struct kunit_suite cxib_cqe_suite = {
	.name = "cxib_cqe",
	.test_cases = cxib_cqe_cases,
};

kunit_test_suite(cxib_cqe_suite);
