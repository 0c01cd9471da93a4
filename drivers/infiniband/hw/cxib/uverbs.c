// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the user halves of create_cq, create_qp and create_srq: libmlx5's driver data
 * (struct mlx5_ib_create_cq / _qp / _srq in <rdma/mlx5-abi.h>; rdma-core providers/mlx5
 * mlx5_create_cq(), create_qp(), mlx5_create_srq()).
 *
 * libmlx5 allocates the queue buffers and doorbell records in user memory, builds WQEs,
 * rings doorbells through its UAR pages and polls CQEs itself; the kernel's part is to check
 * the geometry it sends against the device's limits, pin the memory (umem.c), hand the
 * device the pages (PAS), the doorbell record address and the UAR, and answer with the
 * queue's number.  Every field of the request is checked: a length, count or size the
 * device cannot hold, a flag cxib does not implement or a reserved field that is not zero
 * fails the call with -EINVAL or -EOPNOTSUPP before anything is pinned, and the buffer
 * handed to the device is exactly the one the queue's geometry describes, so the device
 * cannot be made to reach memory outside what the caller pinned.
 *
 * The kernel-object files call in here when their verb has udata: cq.c and qp.c call
 * cxib_ucq_init() / cxib_uqp_init() instead of allocating kernel buffers; srq.c reads the
 * request with cxib_usrq_get() and pins the ring itself (cxib_uq_create()); all three
 * call the respond functions once the device has numbered the queue.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "cxib.h"

/* The shortest requests and responses the checks below need (older libmlx5 send less). */
#define CXIB_UCQ_REQ_MIN_LEN	offsetofend(struct mlx5_ib_create_cq, cqe_size)
#define CXIB_UCQ_RESP_MIN_LEN	offsetofend(struct mlx5_ib_create_cq_resp, cqn)
#define CXIB_UQP_REQ_MIN_LEN	offsetofend(struct mlx5_ib_create_qp, flags)
#define CXIB_UQP_RESP_MIN_LEN	offsetofend(struct mlx5_ib_create_qp_resp, bfreg_index)
#define CXIB_USRQ_REQ_MIN_LEN	offsetofend(struct mlx5_ib_create_srq, flags)
#define CXIB_USRQ_RESP_MIN_LEN	offsetofend(struct mlx5_ib_create_srq_resp, srqn)

/*
 * QP flags libmlx5 may send that cxib accepts: scatter-to-CQE is an optimisation the
 * device may decline (libmlx5 sets it by default), so it is accepted and not used.
 */
#define CXIB_UQP_FLAGS		(MLX5_QP_FLAG_SCATTER_CQE | MLX5_QP_FLAG_ALLOW_SCATTER_CQE)
/* The largest user index (24 bits in the QP context and the CQE). */
#define CXIB_UIDX_MASK		0xffffff
/*
 * The bfreg (BlueFlame register slot, in libmlx5's numbering of four per UAR) every user QP
 * rings, both in the context's UAR 0 (which the QP context names): slot 1, the second
 * register (UAR + 0x800 + bf_reg_size), which libmlx5 uses for BlueFlame copies under its
 * lock, when the device has BlueFlame; else slot 0, which libmlx5 never uses for BlueFlame.
 */
#define CXIB_UQP_BFREG_BF	1
#define CXIB_UQP_BFREG_DB	0

/* Copy a request of at least @min_len bytes; bytes beyond what cxib knows must be zero. */
static int cxib_udata_get(struct ib_udata *udata, void *req, size_t len, size_t min_len)
{
	int err;

	if (udata->inlen < min_len)
		return -EINVAL;
	err = ib_copy_from_udata(req, udata, min(udata->inlen, len));
	if (err)
		return err;
	if (udata->inlen > len && !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return 0;
}

static int cxib_udata_put(struct ib_udata *udata, void *resp, size_t len)
{
	return ib_copy_to_udata(udata, resp, min(udata->outlen, len));
}

/**
 * cxib_uidx_check() - the user index a QP or SRQ of a context gets
 * @cqe_version: the context's CQE version
 * @uidx: what libmlx5 sent
 * @out: set to the user index (CXIB_UIDX_NONE with CQE version 0)
 *
 * With CQE version 1 every CQE names its QP by the user index libmlx5 chose, so it must
 * be a valid 24-bit index; with version 0 the field is ignored.
 *
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int cxib_uidx_check(u8 cqe_version, u32 uidx, u32 *out)
{
	if (!cqe_version) {
		*out = CXIB_UIDX_NONE;
		return 0;
	}
	if (uidx > CXIB_UIDX_MASK || uidx == CXIB_UIDX_NONE)
		return -EINVAL;
	*out = uidx;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_uidx_check);

/* ---- CQs --------------------------------------------------------------------------------- */

/**
 * cxib_ucq_check() - check libmlx5's create_cq request
 * @caps: the device's capabilities
 * @ucmd: the request (bytes the caller did not send are zero)
 * @cqe: the CQE count of the core request; libmlx5 sends 2^n - 1 and uses 2^n entries
 * @cqe_sz: set to the cqc's cqe_sz (CXIB_CQC_CQE_SZ_64 or _128)
 * @log_size: set to log2 of the number of entries: @cqe + 1 rounded up to a power of two
 * @bytes: set to the size of the CQ buffer the device will write
 *
 * Return: 0; -EOPNOTSUPP for CQE compression, 128-byte padding, dynamic UARs or real-time
 * timestamps; -EINVAL for a bad size, CQE size or reserved field.
 */
VISIBLE_IF_KUNIT int cxib_ucq_check(const struct cxib_caps *caps,
				    const struct mlx5_ib_create_cq *ucmd, u32 cqe,
				    u8 *cqe_sz, u8 *log_size, size_t *bytes)
{
	if (ucmd->cqe_comp_en || ucmd->cqe_comp_res_format || ucmd->flags)
		return -EOPNOTSUPP;
	if (ucmd->uar_page_index || ucmd->reserved0 || ucmd->reserved1)
		return -EINVAL;
	if (!cqe || cqe >= BIT(caps->log_max_cq_sz))
		return -EINVAL;
	switch (ucmd->cqe_size) {
	case CXIB_CQE_SIZE:
		*cqe_sz = CXIB_CQC_CQE_SZ_64;
		break;
	case 2 * CXIB_CQE_SIZE:
		*cqe_sz = CXIB_CQC_CQE_SZ_128;
		break;
	default:
		return -EINVAL;
	}
	*log_size = order_base_2(cqe + 1);
	*bytes = (size_t)ucmd->cqe_size << *log_size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_ucq_check);

/**
 * cxib_ucq_init() - the user part of create_cq: the CQ's memory from libmlx5
 * @cq: the CQ being created
 * @attr: CQE count (libmlx5 sends 2^n - 1)
 * @udata: struct mlx5_ib_create_cq in, struct mlx5_ib_create_cq_resp room out
 * @cqe_sz: set to the cqc's cqe_sz for the CQE size libmlx5 chose
 *
 * Called by create_cq instead of allocating a kernel buffer: checks the request, sets
 * @cq->log_size and pins the CQ buffer (2^n CQEs of cqe_size bytes, initialised by
 * libmlx5) and the page of its doorbell record (cxib_uq_create(); @cq->uq, @cq->buf and
 * @cq->dbr).  The CQ rings UAR 0 of the context, where libmlx5 rings the arm doorbell.
 * Completion and error events reach the consumer (uverbs) as for a kernel CQ; the kernel
 * never polls or arms a user CQ.  Sleeps.
 *
 * Return: 0 or a negative errno (nothing is left allocated).
 */
int cxib_ucq_init(struct cxib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata, u8 *cqe_sz)
{
	struct cxib_ucontext *uctx = rdma_udata_to_drv_context(udata, struct cxib_ucontext,
							       ibucontext);
	struct cxib_dev *dev = to_cxib_dev(cq->ibcq.device);
	struct mlx5_ib_create_cq ucmd = {};
	struct cxib_uq_req req = {};
	struct cxib_uq *uq;
	u8 log_size, page_offset;
	size_t bytes;
	int err;

	if (udata->outlen < CXIB_UCQ_RESP_MIN_LEN)
		return -EINVAL;
	err = cxib_udata_get(udata, &ucmd, sizeof(ucmd), CXIB_UCQ_REQ_MIN_LEN);
	if (err)
		return err;
	err = cxib_ucq_check(&dev->caps, &ucmd, attr->cqe, cqe_sz, &log_size, &bytes);
	if (err)
		return err;
	/*
	 * libmlx5 asks for a page-aligned CQ buffer, even from a parent domain's allocator
	 * (mlx5_alloc_cq_buf()): a CQ off a page is refused.
	 */
	err = cxib_uq_buf_offset(ucmd.buf_addr, CXIB_ADAPTER_PAGE_SIZE, &page_offset);
	if (err)
		return err;

	req.buf_addr = ucmd.buf_addr;
	req.db_addr = ucmd.db_addr;
	req.uidx = CXIB_UIDX_NONE;
	uq = cxib_uq_create(dev, uctx, &req, bytes, &cq->buf, &cq->dbr);
	if (IS_ERR(uq))
		return PTR_ERR(uq);
	cq->uq = uq;
	cq->log_size = log_size;
	return 0;
}

/**
 * cxib_ucq_respond() - answer libmlx5's create_cq once the device created the CQ
 * @cq: the CQ
 * @udata: the response room (checked by cxib_ucq_init())
 *
 * Return: 0 or -EFAULT.
 */
int cxib_ucq_respond(struct cxib_cq *cq, struct ib_udata *udata)
{
	struct mlx5_ib_create_cq_resp resp = {};

	resp.cqn = cq->cqn;
	return cxib_udata_put(udata, &resp, sizeof(resp));
}

/* ---- QPs --------------------------------------------------------------------------------- */

/**
 * cxib_uqp_check() - check libmlx5's create_qp request against the core attributes
 * @caps: the device's capabilities
 * @ucmd: the request (bytes the caller did not send are zero)
 * @attr: the core attributes of the QP
 * @bytes: set to the size of the QP buffer: the RQ (rq_wqe_count << rq_wqe_shift), then
 *	the SQ (sq_wqe_count 64-byte basic blocks)
 *
 * Return: 0; -EOPNOTSUPP for a QP type, flag or extension cxib does not offer (signatures,
 * DC, raw packet, ECE, dynamic UARs); -EINVAL for a count, stride or capability the
 * device cannot hold or that does not match the core attributes.
 */
VISIBLE_IF_KUNIT int cxib_uqp_check(const struct cxib_caps *caps,
				    const struct mlx5_ib_create_qp *ucmd,
				    const struct ib_qp_init_attr *attr, size_t *bytes)
{
	u32 max_wq = BIT(caps->log_max_qp_sz), stride;
	const struct ib_qp_cap *cap = &attr->cap;
	u64 rq_bytes = 0, sq_bytes;

	if (attr->qp_type != IB_QPT_RC && attr->qp_type != IB_QPT_UC &&
	    attr->qp_type != IB_QPT_UD)
		return -EOPNOTSUPP;
	if (ucmd->flags & ~CXIB_UQP_FLAGS)
		return -EOPNOTSUPP;
	if (ucmd->ece_options || ucmd->dci_streams.log_num_concurent ||
	    ucmd->dci_streams.log_num_errored)
		return -EOPNOTSUPP;
	if (ucmd->sq_buf_addr || ucmd->reserved)
		return -EINVAL;

	/* Send queue: a power of two of basic blocks the QP context can say, or none. */
	if (ucmd->sq_wqe_count) {
		if (!is_power_of_2(ucmd->sq_wqe_count) || ucmd->sq_wqe_count > max_wq ||
		    ilog2(ucmd->sq_wqe_count) > CXIB_FIELD_GET(CXIB_QPC_LOG_SQ_SIZE, U32_MAX) ||
		    cap->max_send_wr > ucmd->sq_wqe_count)
			return -EINVAL;
	} else if (cap->max_send_wr) {
		return -EINVAL;
	}
	if (cap->max_send_sge > caps->max_wqe_sz_sq / CXIB_WQE_DS_SIZE ||
	    cap->max_inline_data > caps->max_wqe_sz_sq)
		return -EINVAL;

	/*
	 * Receive queue: none with an SRQ (whose QP's receive capacities the verbs ignore);
	 * else 2^n WQEs of a stride the device takes.
	 */
	if (attr->srq) {
		if (ucmd->rq_wqe_count)
			return -EINVAL;
	} else if (ucmd->rq_wqe_count) {
		if (!is_power_of_2(ucmd->rq_wqe_count) || ucmd->rq_wqe_count > max_wq ||
		    cap->max_recv_wr > ucmd->rq_wqe_count)
			return -EINVAL;
		if (ucmd->rq_wqe_shift < ilog2(CXIB_WQE_DS_SIZE) ||
		    ucmd->rq_wqe_shift - ilog2(CXIB_WQE_DS_SIZE) >
		    CXIB_FIELD_GET(CXIB_QPC_LOG_RQ_STRIDE, U32_MAX))
			return -EINVAL;
		stride = BIT(ucmd->rq_wqe_shift);
		if (stride > caps->max_wqe_sz_rq || cap->max_recv_sge > stride / CXIB_WQE_DS_SIZE)
			return -EINVAL;
		rq_bytes = (u64)ucmd->rq_wqe_count << ucmd->rq_wqe_shift;
	} else if (cap->max_recv_wr) {
		return -EINVAL;
	}

	/* The SQ follows the RQ and starts on a basic block. */
	if (!IS_ALIGNED(rq_bytes, CXIB_SEND_WQE_BB))
		return -EINVAL;
	sq_bytes = (u64)ucmd->sq_wqe_count * CXIB_SEND_WQE_BB;
	if (!rq_bytes && !sq_bytes)
		return -EINVAL;
	*bytes = rq_bytes + sq_bytes;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_uqp_check);

/**
 * cxib_uqp_init() - the user part of create_qp: geometry and memory from libmlx5
 * @qp: the QP being created (RDMA core fields, type, CQs and SRQ set)
 * @attr: the core attributes; @attr->cap is set to what the QP got
 * @udata: struct mlx5_ib_create_qp in (its geometry is the QP's), response room out
 *
 * Called by create_qp instead of sizing and allocating kernel work queues.  Sets the
 * work-queue geometry of @qp (for the QP context and query_qp), pins the QP buffer and the
 * doorbell record's page, and points @qp->buf.dma / @qp->buf.npages and @qp->dbr.dma at
 * them (@qp->buf.bufs and @qp->dbr.db stay NULL).  On success @qp->uq is set; release it
 * with cxib_uq_free() when the QP is destroyed (or its creation fails).  Sleeps.
 *
 * Return: 0 or a negative errno (nothing is left allocated).
 */
int cxib_uqp_init(struct cxib_qp *qp, struct ib_qp_init_attr *attr, struct ib_udata *udata)
{
	struct cxib_ucontext *uctx = rdma_udata_to_drv_context(udata, struct cxib_ucontext,
							       ibucontext);
	struct cxib_dev *dev = to_cxib_dev(qp->ibqp.device);
	struct mlx5_ib_create_qp ucmd = {};
	struct cxib_uq_req req = {};
	struct cxib_uq *uq;
	size_t bytes;
	u32 uidx;
	u8 page_offset;
	int err;

	if (udata->outlen < CXIB_UQP_RESP_MIN_LEN)
		return -EINVAL;
	err = cxib_udata_get(udata, &ucmd, sizeof(ucmd), CXIB_UQP_REQ_MIN_LEN);
	if (err)
		return err;
	err = cxib_uqp_check(&dev->caps, &ucmd, attr, &bytes);
	if (err)
		return err;
	/* RQ WQEs of their stride, then the SQ's 64-byte basic blocks */
	err = cxib_uq_buf_offset(ucmd.buf_addr, ucmd.rq_wqe_count ? BIT(ucmd.rq_wqe_shift) : 0,
				 &page_offset);
	if (err)
		return err;
	err = cxib_uidx_check(uctx->cqe_version, ucmd.uidx, &uidx);
	if (err)
		return err;

	req.buf_addr = ucmd.buf_addr;
	req.db_addr = ucmd.db_addr;
	req.uidx = uidx;
	/* UAR 0 of the context: the UAR of both bfregs cxib hands out */
	uq = cxib_uq_create(dev, uctx, &req, bytes, &qp->buf, &qp->dbr);
	if (IS_ERR(uq))
		return PTR_ERR(uq);
	qp->uq = uq;

	/* The RQ at offset 0 and the SQ after it, exactly as libmlx5 lays them out. */
	qp->rq.log_wqe_cnt = ucmd.rq_wqe_count ? ilog2(ucmd.rq_wqe_count) : 0;
	qp->rq.log_stride = ucmd.rq_wqe_count ? ucmd.rq_wqe_shift : 0;
	qp->rq.max_wr = ucmd.rq_wqe_count;
	qp->rq.max_gs = ucmd.rq_wqe_count ? BIT(ucmd.rq_wqe_shift) / CXIB_WQE_DS_SIZE : 0;
	qp->sq.offset = ucmd.rq_wqe_count ? ucmd.rq_wqe_count << ucmd.rq_wqe_shift : 0;
	qp->sq.log_wqe_cnt = ucmd.sq_wqe_count ? ilog2(ucmd.sq_wqe_count) : 0;
	/* libmlx5 sizes its WQEs; the send limits are the ones it asked for. */
	qp->sq.max_wr = attr->cap.max_send_wr;
	qp->sq.max_gs = attr->cap.max_send_sge;
	qp->sq.max_inline = attr->cap.max_inline_data;
	qp->sq.max_wqe_bbs = ucmd.sq_wqe_count ? 1 : 0;
	attr->cap.max_recv_wr = qp->rq.max_wr;
	attr->cap.max_recv_sge = qp->rq.max_gs;
	return 0;
}

/**
 * cxib_uqp_fill_qpc() - the user QP's part of its CREATE_QP context
 * @qp: a QP cxib_uqp_init() set up
 * @qpc: the context create_qp built; the UAR, the user index, the buffer's offset in its
 *	first page and the SQ presence are set
 *
 * The QP rings its send doorbells through the context's UAR of its bfreg; it posts no
 * fast-registration UMRs (it has no kernel keys to register into), and with CQE version 1
 * its CQEs carry libmlx5's user index.
 */
void cxib_uqp_fill_qpc(const struct cxib_qp *qp, struct cxib_qpc *qpc)
{
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, qp->uq->uar);
	CXIB_SET(qpc, CXIB_QPC_PAGE_OFFSET, qp->uq->page_offset);
	CXIB_SET(qpc, CXIB_QPC_FRE, 0);
	if (qp->uq->uidx != CXIB_UIDX_NONE)
		CXIB_SET(qpc, CXIB_QPC_USER_INDEX, qp->uq->uidx);
	if (!qp->sq.max_wqe_bbs) {
		CXIB_SET(qpc, CXIB_QPC_NO_SQ, 1);
		CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, 0);
	}
}

/**
 * cxib_uqp_respond() - answer libmlx5's create_qp once the device created the QP
 * @qp: the QP
 * @udata: the response room (checked by cxib_uqp_init())
 *
 * Return: 0 or -EFAULT.
 */
int cxib_uqp_respond(struct cxib_qp *qp, struct ib_udata *udata)
{
	struct cxib_dev *dev = to_cxib_dev(qp->ibqp.device);
	struct mlx5_ib_create_qp_resp resp = {};

	resp.bfreg_index = dev->caps.bf ? CXIB_UQP_BFREG_BF : CXIB_UQP_BFREG_DB;
	return cxib_udata_put(udata, &resp, sizeof(resp));
}

/* ---- SRQs -------------------------------------------------------------------------------- */

/**
 * cxib_usrq_check() - check libmlx5's create_srq request
 * @ucmd: the request (bytes the caller did not send are zero)
 *
 * Return: 0; -EOPNOTSUPP for WQE signatures; -EINVAL for unknown flags or reserved fields.
 */
VISIBLE_IF_KUNIT int cxib_usrq_check(const struct mlx5_ib_create_srq *ucmd)
{
	if (ucmd->flags & MLX5_SRQ_FLAG_SIGNATURE)
		return -EOPNOTSUPP;
	if (ucmd->flags || ucmd->reserved0 || ucmd->reserved1)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_usrq_check);

/**
 * cxib_usrq_get() - read and check libmlx5's create_srq request
 * @udata: struct mlx5_ib_create_srq in, response room out
 * @req: set to the ring's and the doorbell record's user addresses and the user index
 *
 * The first step of a user SRQ's creation: create_srq then works out the ring's geometry
 * from the core attributes as for a kernel SRQ (libmlx5 sends max_wr 2^n - 1), checks
 * the ring's alignment against its stride and pins it (cxib_uq_create()).  Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int cxib_usrq_get(struct ib_udata *udata, struct cxib_uq_req *req)
{
	struct cxib_ucontext *uctx = rdma_udata_to_drv_context(udata, struct cxib_ucontext,
							       ibucontext);
	struct mlx5_ib_create_srq ucmd = {};
	int err;

	if (udata->outlen < CXIB_USRQ_RESP_MIN_LEN)
		return -EINVAL;
	err = cxib_udata_get(udata, &ucmd, sizeof(ucmd), CXIB_USRQ_REQ_MIN_LEN);
	if (err)
		return err;
	err = cxib_usrq_check(&ucmd);
	if (err)
		return err;
	err = cxib_uidx_check(uctx->cqe_version, ucmd.uidx, &req->uidx);
	if (err)
		return err;
	req->buf_addr = ucmd.buf_addr;
	req->db_addr = ucmd.db_addr;
	return 0;
}

/**
 * cxib_usrq_respond() - answer libmlx5's create_srq once the device created the SRQ
 * @srq: the SRQ
 * @udata: the response room (checked by cxib_usrq_get())
 *
 * libmlx5 does not clear this response: the SRQ number must be written.
 *
 * Return: 0 or -EFAULT.
 */
int cxib_usrq_respond(struct cxib_srq *srq, struct ib_udata *udata)
{
	struct mlx5_ib_create_srq_resp resp = {};

	resp.srqn = srq->srqn;
	return cxib_udata_put(udata, &resp, sizeof(resp));
}
