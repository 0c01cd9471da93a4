/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel-verbs harness: the building blocks shared by the two suites
 * that move data through ib_core's kernel verbs: the KUnit live traffic suite
 * (tests/kunit/traffic_live_test.c, one cxib device looped back) and the kverbs lab client
 * (tests/e2e/kverbs/kverbs.c, two nodes, any RDMA device).  Only ib_core's exports are
 * used, so the client builds against any kernel.
 *
 * A helper does the verbs work and says what happened (0 or a negative errno, a count, a
 * byte index); reporting is the caller's: KUnit asserts, kverbs fails the running case.
 *
 *   kvh_buf            a kzalloc'ed buffer mapped for DMA, with the data pattern helpers
 *   kvh_q              a QP with its CQ (and SRQ), the receive and send posting helpers
 *   kvh_op, kvh_post   signaled work requests (SEND, RDMA WRITE/READ, atomics) as a chain
 *   kvh_poll           one completion, within a time limit
 *   kvh_drain_cqe      ib_cqe completions counted by kvh_drain_wait (the drain cases)
 */
#ifndef _CXIB_TESTS_KVH_H
#define _CXIB_TESTS_KVH_H

#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

/* ---- buffers and data ---------------------------------------------------------------- */

struct kvh_buf {
	void *va;
	u64 dma;
	size_t len;
};

static inline int kvh_buf_alloc(struct ib_device *dev, struct kvh_buf *b, size_t len)
{
	b->va = kzalloc(len, GFP_KERNEL);
	if (!b->va)
		return -ENOMEM;
	b->len = len;
	b->dma = ib_dma_map_single(dev, b->va, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, b->dma)) {
		kfree(b->va);
		b->va = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Idempotent: a buffer never allocated, or already freed, is left alone. */
static inline void kvh_buf_free(struct ib_device *dev, struct kvh_buf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(dev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
	b->va = NULL;
}

/* Byte @i of the data pattern of @seed: no period a page or a packet would hide. */
static inline u8 kvh_pat(u32 seed, size_t i)
{
	return (u8)(seed * 131 + i * 7 + (i >> 9));
}

static inline void kvh_fill(struct ib_device *dev, struct kvh_buf *b, size_t off, size_t len,
			    u32 seed)
{
	u8 *p = b->va + off;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = kvh_pat(seed, i);
	ib_dma_sync_single_for_device(dev, b->dma + off, len, DMA_BIDIRECTIONAL);
}

static inline void kvh_zero(struct ib_device *dev, struct kvh_buf *b, size_t off, size_t len)
{
	memset(b->va + off, 0, len);
	ib_dma_sync_single_for_device(dev, b->dma + off, len, DMA_BIDIRECTIONAL);
}

/* The first of the @len bytes at @off that does not hold the pattern of @seed, or @len. */
static inline size_t kvh_mismatch(struct ib_device *dev, struct kvh_buf *b, size_t off,
				  size_t len, u32 seed)
{
	const u8 *p = b->va + off;
	size_t i;

	ib_dma_sync_single_for_cpu(dev, b->dma + off, len, DMA_BIDIRECTIONAL);
	for (i = 0; i < len && p[i] == kvh_pat(seed, i); i++)
		;
	return i;
}

static inline u64 kvh_get64(struct ib_device *dev, struct kvh_buf *b, size_t off)
{
	ib_dma_sync_single_for_cpu(dev, b->dma + off, 8, DMA_BIDIRECTIONAL);
	return *(u64 *)(b->va + off);
}

static inline void kvh_put64(struct ib_device *dev, struct kvh_buf *b, size_t off, u64 v)
{
	*(u64 *)(b->va + off) = v;
	ib_dma_sync_single_for_device(dev, b->dma + off, 8, DMA_BIDIRECTIONAL);
}

/* ---- queue pairs, posting, completions ----------------------------------------------- */

struct kvh_q {
	struct ib_cq *cq;
	struct ib_srq *srq;	/* receives go here when set */
	struct ib_qp *qp;
	u32 psn;
};

/* One receive of @len bytes at @addr (the PD's local DMA key), to the SRQ if @q has one. */
static inline int kvh_post_recv(struct ib_pd *pd, struct kvh_q *q, u64 wr_id, u64 addr,
				u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0 };

	if (q->srq)
		return ib_post_srq_recv(q->srq, &wr, NULL);
	return ib_post_recv(q->qp, &wr, NULL);
}

/* One work request: SEND (with invalidate), RDMA WRITE (with immediate), READ or atomic. */
struct kvh_op {
	enum ib_wr_opcode opcode;
	u64 wr_id;
	u64 laddr;
	u32 len;
	u32 lkey;	/* 0: the PD's local DMA key */
	u64 raddr;
	u32 rkey;
	u32 imm_inv;	/* immediate data (host order) or the rkey to invalidate */
	u64 cmp_add;
	u64 swap;
	bool unsignaled;
};

#define KVH_MAX_BATCH	16	/* operations kvh_post() chains at once */

static inline void kvh_op_wr(struct ib_pd *pd, const struct kvh_op *op, struct ib_atomic_wr *w,
			     struct ib_sge *sge)
{
	struct ib_rdma_wr *rw = (struct ib_rdma_wr *)w;

	memset(w, 0, sizeof(*w));
	sge->addr = op->laddr;
	sge->length = op->len;
	sge->lkey = op->lkey ? op->lkey : pd->local_dma_lkey;
	w->wr.wr_id = op->wr_id;
	w->wr.opcode = op->opcode;
	w->wr.sg_list = sge;
	w->wr.num_sge = op->len ? 1 : 0;
	w->wr.send_flags = op->unsignaled ? 0 : IB_SEND_SIGNALED;
	switch (op->opcode) {
	case IB_WR_RDMA_WRITE_WITH_IMM:
		w->wr.ex.imm_data = cpu_to_be32(op->imm_inv);
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		rw->remote_addr = op->raddr;
		rw->rkey = op->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = op->raddr;
		w->rkey = op->rkey;
		w->compare_add = op->cmp_add;
		w->swap = op->swap;
		break;
	case IB_WR_SEND_WITH_INV:
		w->wr.ex.invalidate_rkey = op->imm_inv;
		break;
	default:
		break;
	}
}

/* Post @n (1..KVH_MAX_BATCH) operations as one chain: 0, -EINVAL, or ib_post_send's error. */
static noinline_for_stack __maybe_unused int kvh_post(struct ib_pd *pd, struct kvh_q *q,
						      const struct kvh_op *ops, int n)
{
	struct ib_atomic_wr w[KVH_MAX_BATCH];
	struct ib_sge sge[KVH_MAX_BATCH];
	int i;

	if (n < 1 || n > KVH_MAX_BATCH)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		kvh_op_wr(pd, &ops[i], &w[i], &sge[i]);
		if (i)
			w[i - 1].wr.next = &w[i].wr;
	}
	return ib_post_send(q->qp, &w[0].wr, NULL);
}

/* The next completion of @q's CQ within @timeout_ms: 1, 0 if none came, or a negative errno. */
static inline int kvh_poll(struct kvh_q *q, struct ib_wc *wc, unsigned int timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int n;

	for (;;) {
		n = ib_poll_cq(q->cq, 1, wc);
		if (n)
			return n;
		if (time_after(jiffies, end))
			return 0;
		usleep_range(50, 200);
	}
}

/* ---- drain: completions through ib_cqe ----------------------------------------------- */

struct kvh_drain_cqe {
	struct ib_cqe cqe;	/* .done = kvh_drain_done */
	enum ib_wc_status status;
	int done;
};

static inline void kvh_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvh_drain_cqe *d = container_of(wc->wr_cqe, struct kvh_drain_cqe, cqe);

	d->status = wc->status;
	d->done++;
}

/* Process @cq (IB_POLL_DIRECT) until all @n of @d have completed, or @timeout_ms passed. */
static inline bool kvh_drain_wait(struct ib_cq *cq, struct kvh_drain_cqe *d, int n,
				  unsigned int timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int i;

	for (;;) {
		ib_process_cq_direct(cq, -1);
		for (i = 0; i < n && d[i].done; i++)
			;
		if (i == n)
			return true;
		if (time_after(jiffies, end))
			return false;
		usleep_range(100, 500);
	}
}

#endif /* _CXIB_TESTS_KVH_H */
