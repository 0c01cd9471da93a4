// SPDX-License-Identifier: GPL-2.0-only
/*
 * uabuse: hand-made mlx5 driver data through the uverbs write() ABI (what a malicious
 * caller can send without libmlx5): every malformed request must fail with the expected
 * errno, the well-formed ones must work, and the device must keep working.
 *
 *	uabuse [/dev/infiniband/uverbs0]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#define PG 4096
static int fd, failures, passes;
static unsigned int cqe_version;	/* the context's, from GET_CONTEXT */
static unsigned int bf_reg_size;	/* the context's: 0 means no BlueFlame */

static int uv_write(uint32_t command, void *in, size_t inlen, size_t outlen)
{
	struct ib_uverbs_cmd_hdr *h = in;

	h->command = command;
	h->in_words = inlen / 4;
	h->out_words = outlen / 4;
	return write(fd, in, inlen) == (ssize_t)inlen ? 0 : -errno;
}

static void expect(const char *what, int got, int want)
{
	if (got == want) {
		printf("ok   %-58s %d\n", what, got);
		passes++;
	} else {
		printf("FAIL %-58s got %d (%s), want %d\n", what, got, strerror(-got), want);
		failures++;
	}
}

static uint32_t pd_handle;

/* ---- CQ ---- */
struct cq_in {
	struct ib_uverbs_cmd_hdr h;
	struct ib_uverbs_create_cq c;
	struct mlx5_ib_create_cq d;
	uint64_t extra;
};
struct cq_out {
	struct ib_uverbs_create_cq_resp r;
	struct mlx5_ib_create_cq_resp d;
};

static int create_cq(struct mlx5_ib_create_cq *d, uint32_t cqe, int extra, uint64_t extra_val,
		     size_t outlen, uint32_t *handle, uint32_t *cqn)
{
	struct cq_in in = {};
	struct cq_out out = {};
	size_t inlen = sizeof(in) - (extra ? 0 : sizeof(in.extra));
	int err;

	in.c.response = (uintptr_t)&out;
	in.c.cqe = cqe;
	in.c.comp_channel = -1;
	in.d = *d;
	in.extra = extra_val;
	err = uv_write(IB_USER_VERBS_CMD_CREATE_CQ, &in, inlen, outlen ? outlen : sizeof(out));
	if (!err) {
		*handle = out.r.cq_handle;
		if (cqn)
			*cqn = out.d.cqn;
	}
	return err;
}

static int destroy_cq(uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_destroy_cq c;
	} in = {};
	struct ib_uverbs_destroy_cq_resp out = {};

	in.c.response = (uintptr_t)&out;
	in.c.cq_handle = handle;
	return uv_write(IB_USER_VERBS_CMD_DESTROY_CQ, &in, sizeof(in), sizeof(out));
}

/* ---- QP ---- */
static int create_qp(struct mlx5_ib_create_qp *d, uint32_t cq, uint32_t send_wr,
		     uint32_t recv_wr, uint32_t *handle, uint32_t *bfreg)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_create_qp c;
		struct mlx5_ib_create_qp d;
	} in = {};
	struct {
		struct ib_uverbs_create_qp_resp r;
		struct mlx5_ib_create_qp_resp d;
	} out = {};
	int err;

	out.d.bfreg_index = 0xdead;
	in.c.response = (uintptr_t)&out;
	in.c.pd_handle = pd_handle;
	in.c.send_cq_handle = cq;
	in.c.recv_cq_handle = cq;
	in.c.max_send_wr = send_wr;
	in.c.max_recv_wr = recv_wr;
	in.c.max_send_sge = 1;
	in.c.max_recv_sge = 1;
	in.c.qp_type = IB_UVERBS_QPT_RC;
	in.d = *d;
	err = uv_write(IB_USER_VERBS_CMD_CREATE_QP, &in, sizeof(in), sizeof(out));
	if (!err) {
		*handle = out.r.qp_handle;
		*bfreg = out.d.bfreg_index;
	}
	return err;
}

static int destroy_qp(uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_destroy_qp c;
	} in = {};
	struct ib_uverbs_destroy_qp_resp out = {};

	in.c.response = (uintptr_t)&out;
	in.c.qp_handle = handle;
	return uv_write(IB_USER_VERBS_CMD_DESTROY_QP, &in, sizeof(in), sizeof(out));
}

/* ---- MR ---- */
static int reg_mr(void *start, uint64_t len, uint64_t va, uint32_t access, uint32_t *lkey,
		  uint32_t *handle)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_reg_mr c;
	} in = {};
	struct ib_uverbs_reg_mr_resp out = {};
	int err;

	in.c.response = (uintptr_t)&out;
	in.c.start = (uintptr_t)start;
	in.c.length = len;
	in.c.hca_va = va;
	in.c.pd_handle = pd_handle;
	in.c.access_flags = access;
	err = uv_write(IB_USER_VERBS_CMD_REG_MR, &in, sizeof(in), sizeof(out));
	if (!err) {
		*lkey = out.lkey;
		*handle = out.mr_handle;
	}
	return err;
}

static int dereg_mr(uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_dereg_mr c;
	} in = {};

	in.c.mr_handle = handle;
	return uv_write(IB_USER_VERBS_CMD_DEREG_MR, &in, sizeof(in), 0);
}

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(p, 0, len);
	return p;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/dev/infiniband/uverbs0";
	struct mlx5_ib_create_cq cq;
	struct mlx5_ib_create_qp qp;
	uint32_t h, cqn = 0, bfreg, lkey, cq_keep;
	char *buf, *db, *hole, *mrbuf;
	int err;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 2;
	}

	/* GET_CONTEXT: as libmlx5's plain (no DEVX) request */
	{
		struct {
			struct ib_uverbs_cmd_hdr h;
			struct ib_uverbs_get_context c;
			struct mlx5_ib_alloc_ucontext_req_v2 d;
		} in = {};
		struct {
			struct ib_uverbs_get_context_resp r;
			struct mlx5_ib_alloc_ucontext_resp d;
		} out = {};

		in.c.response = (uintptr_t)&out;
		in.d.total_num_bfregs = 16;
		in.d.num_low_latency_bfregs = 4;
		in.d.max_cqe_version = 1;
		in.d.flags = MLX5_IB_ALLOC_UCTX_DEVX;
		expect("get_context with DEVX: refused", uv_write(IB_USER_VERBS_CMD_GET_CONTEXT,
			&in, sizeof(in), sizeof(out)), -EOPNOTSUPP);
		in.d.flags = 0;
		in.d.num_low_latency_bfregs = 16;
		expect("get_context with low-latency bfregs = total", uv_write(
			IB_USER_VERBS_CMD_GET_CONTEXT, &in, sizeof(in), sizeof(out)), -EINVAL);
		in.d.num_low_latency_bfregs = 4;
		err = uv_write(IB_USER_VERBS_CMD_GET_CONTEXT, &in, sizeof(in), sizeof(out));
		expect("get_context", err, 0);
		if (err)
			return 1;
		cqe_version = out.d.cqe_version;
		bf_reg_size = out.d.bf_reg_size;
		printf("     context: tot_bfregs %u cqe_version %u cache_line %u max_sq_desc %u\n",
		       out.d.tot_bfregs, out.d.cqe_version, out.d.cache_line_size,
		       out.d.max_sq_desc_sz);
	}
	/* ALLOC_PD */
	{
		struct {
			struct ib_uverbs_cmd_hdr h;
			struct ib_uverbs_alloc_pd c;
		} in = {};
		struct {
			struct ib_uverbs_alloc_pd_resp r;
			struct mlx5_ib_alloc_pd_resp d;
		} out = {};

		in.c.response = (uintptr_t)&out;
		expect("alloc_pd", uv_write(IB_USER_VERBS_CMD_ALLOC_PD, &in, sizeof(in),
					    sizeof(out)), 0);
		pd_handle = out.r.pd_handle;
		printf("     pdn %u\n", out.d.pdn);
	}

	buf = map(4 * PG);
	db = map(PG);
	/* An address range nothing accessible is mapped at (kept, so nothing reuses it). */
	hole = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED) {
		perror("mmap");
		return 2;
	}

	/* ---- CQs: 64 entries of 64 bytes = one page ---- */
	cq = (struct mlx5_ib_create_cq){ .buf_addr = (uintptr_t)buf, .db_addr = (uintptr_t)db,
					 .cqe_size = 64 };
	err = create_cq(&cq, 63, 0, 0, 0, &cq_keep, &cqn);
	expect("create_cq 64 x 64 B", err, 0);
	printf("     cqn %u\n", cqn);
	cq.db_addr = (uintptr_t)db + 64;
	cq.cqe_size = 128;
	expect("create_cq 64 x 128 B (2 pages)", create_cq(&cq, 63, 0, 0, 0, &h, NULL), 0);
	expect("destroy it", destroy_cq(h), 0);
	cq.cqe_size = 32;
	expect("create_cq cqe_size 32", create_cq(&cq, 63, 0, 0, 0, &h, NULL), -EINVAL);
	cq.cqe_size = 64;
	cq.buf_addr = (uintptr_t)buf + 64;
	expect("create_cq buffer not page aligned", create_cq(&cq, 63, 0, 0, 0, &h, NULL),
	       -EINVAL);
	cq.buf_addr = (uintptr_t)hole;
	expect("create_cq buffer not mapped", create_cq(&cq, 63, 0, 0, 0, &h, NULL), -EFAULT);
	cq.buf_addr = (uintptr_t)buf;
	expect("create_cq 1024 entries: buffer (4 pages) too short",
	       create_cq(&cq, 1023, 0, 0, 0, &h, NULL), -EFAULT);
	cq.buf_addr = (uintptr_t)buf + 3 * PG;
	expect("create_cq 128 entries from the last page", create_cq(&cq, 127, 0, 0, 0, &h, NULL),
	       -EFAULT);
	cq.buf_addr = (uintptr_t)buf;
	cq.db_addr = (uintptr_t)db + 4;
	expect("create_cq doorbell not 8-byte aligned", create_cq(&cq, 63, 0, 0, 0, &h, NULL),
	       -EINVAL);
	cq.db_addr = (uintptr_t)hole;
	expect("create_cq doorbell not mapped", create_cq(&cq, 63, 0, 0, 0, &h, NULL), -EFAULT);
	cq.db_addr = 0;
	expect("create_cq doorbell at 0", create_cq(&cq, 63, 0, 0, 0, &h, NULL), -EINVAL);
	cq.db_addr = (uintptr_t)db + 128;
	cq.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
	expect("create_cq flag UAR_PAGE_INDEX", create_cq(&cq, 63, 0, 0, 0, &h, NULL),
	       -EOPNOTSUPP);
	cq.flags = 0;
	cq.cqe_comp_en = 1;
	expect("create_cq CQE compression", create_cq(&cq, 63, 0, 0, 0, &h, NULL), -EOPNOTSUPP);
	cq.cqe_comp_en = 0;
	cq.reserved1 = 1;
	expect("create_cq reserved1 != 0", create_cq(&cq, 63, 0, 0, 0, &h, NULL), -EINVAL);
	cq.reserved1 = 0;
	expect("create_cq unknown trailing bytes != 0", create_cq(&cq, 63, 1, 5, 0, &h, NULL),
	       -EOPNOTSUPP);
	expect("create_cq unknown trailing bytes == 0", create_cq(&cq, 63, 1, 0, 0, &h, NULL), 0);
	expect("destroy it", destroy_cq(h), 0);
	expect("create_cq depth 2^24", create_cq(&cq, 1u << 24, 0, 0, 0, &h, NULL), -EINVAL);
	expect("create_cq no room for the response",
	       create_cq(&cq, 63, 0, 0, sizeof(struct ib_uverbs_create_cq_resp), &h, NULL),
	       -EINVAL);

	/* ---- QPs: RQ 16 x 16 B + SQ 4 x 64 B = 512 B ---- */
	qp = (struct mlx5_ib_create_qp){ .buf_addr = (uintptr_t)buf + PG,
					 .db_addr = (uintptr_t)db + 256, .sq_wqe_count = 4,
					 .rq_wqe_count = 16, .rq_wqe_shift = 4,
					 .flags = MLX5_QP_FLAG_SCATTER_CQE, .uidx = 0xffffff };
	/* with CQE version 1 the user index names the QP in every CQE: 0xffffff is none */
	if (cqe_version == 1)
		expect("create_qp uidx 0xffffff with CQE version 1",
		       create_qp(&qp, cq_keep, 4, 16, &h, &bfreg), -EINVAL);
	qp.uidx = 1;		/* valid with either version (version 0 ignores it) */
	err = create_qp(&qp, cq_keep, 4, 16, &h, &bfreg);
	expect("create_qp RC", err, 0);
	if (!err) {
		/* bfreg 1 of UAR 0 with BlueFlame, bfreg 0 (never BlueFlame) without */
		expect("  its bfreg_index", bfreg, bf_reg_size ? 1 : 0);
		expect("destroy it", destroy_qp(h), 0);
	}
	qp.sq_wqe_count = 3;
	expect("create_qp sq_wqe_count 3", create_qp(&qp, cq_keep, 1, 16, &h, &bfreg), -EINVAL);
	qp.sq_wqe_count = 4;
	expect("create_qp 5 send WRs in 4 WQEBBs", create_qp(&qp, cq_keep, 5, 16, &h, &bfreg),
	       -EINVAL);
	qp.rq_wqe_shift = 3;
	expect("create_qp rq_wqe_shift 3", create_qp(&qp, cq_keep, 4, 16, &h, &bfreg), -EINVAL);
	qp.rq_wqe_shift = 40;
	expect("create_qp rq_wqe_shift 40", create_qp(&qp, cq_keep, 4, 16, &h, &bfreg), -EINVAL);
	qp.rq_wqe_shift = 4;
	qp.flags |= MLX5_QP_FLAG_SIGNATURE;
	expect("create_qp WQE signatures", create_qp(&qp, cq_keep, 4, 16, &h, &bfreg),
	       -EOPNOTSUPP);
	qp.flags = MLX5_QP_FLAG_SCATTER_CQE | MLX5_QP_FLAG_BFREG_INDEX;
	qp.bfreg_index = 7;
	expect("create_qp own bfreg index", create_qp(&qp, cq_keep, 4, 16, &h, &bfreg),
	       -EOPNOTSUPP);
	qp.flags = MLX5_QP_FLAG_SCATTER_CQE;
	qp.bfreg_index = 0;
	qp.sq_buf_addr = (uintptr_t)buf;
	expect("create_qp sq_buf_addr (raw packet only)",
	       create_qp(&qp, cq_keep, 4, 16, &h, &bfreg), -EINVAL);
	qp.sq_buf_addr = 0;
	qp.sq_wqe_count = 1024;		/* 64 KiB of SQ in a 3-page mapping */
	expect("create_qp buffer too short for its geometry",
	       create_qp(&qp, cq_keep, 4, 16, &h, &bfreg), -EFAULT);
	qp.sq_wqe_count = 4;
	qp.buf_addr = (uintptr_t)hole;
	expect("create_qp buffer not mapped", create_qp(&qp, cq_keep, 4, 16, &h, &bfreg), -EFAULT);
	qp.buf_addr = (uintptr_t)buf + PG;
	qp.db_addr = (uintptr_t)hole + 8;
	expect("create_qp doorbell not mapped", create_qp(&qp, cq_keep, 4, 16, &h, &bfreg),
	       -EFAULT);
	qp.db_addr = (uintptr_t)db + 256;
	err = create_qp(&qp, cq_keep, 4, 16, &h, &bfreg);
	expect("create_qp RC again", err, 0);
	if (!err)
		expect("destroy it", destroy_qp(h), 0);

	/* ---- MRs ---- */
	mrbuf = map(16 * PG);
	err = reg_mr(mrbuf, 16 * PG, (uintptr_t)mrbuf, IB_UVERBS_ACCESS_LOCAL_WRITE |
		     IB_UVERBS_ACCESS_REMOTE_WRITE | IB_UVERBS_ACCESS_RELAXED_ORDERING, &lkey, &h);
	expect("reg_mr 64 KiB, relaxed ordering", err, 0);
	if (!err) {
		expect("  its lkey is not 0x100", lkey == 0x100, 0);
		expect("dereg_mr", dereg_mr(h), 0);
	}
	expect("reg_mr of unmapped memory", reg_mr(hole, PG, (uintptr_t)hole,
	       IB_UVERBS_ACCESS_LOCAL_WRITE, &lkey, &h), -EFAULT);
	expect("reg_mr zero-based", reg_mr(mrbuf, PG, 0, IB_UVERBS_ACCESS_LOCAL_WRITE |
	       IB_UVERBS_ACCESS_ZERO_BASED, &lkey, &h), -EOPNOTSUPP);
	expect("reg_mr I/O range wrapping 2^64", reg_mr(mrbuf, 2 * PG, (uint64_t)-PG,
	       IB_UVERBS_ACCESS_LOCAL_WRITE, &lkey, &h), -EINVAL);
	err = reg_mr(mrbuf, PG, 0x1000, IB_UVERBS_ACCESS_LOCAL_WRITE, &lkey, &h);
	expect("reg_mr at another I/O address", err, 0);
	if (!err)
		expect("dereg_mr", dereg_mr(h), 0);

	expect("destroy the first CQ", destroy_cq(cq_keep), 0);
	printf("uabuse: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
