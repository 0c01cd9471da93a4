// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: posting work requests (PRM §6.1, §6.2, §1.5).
 *
 * A send WR becomes a WQE of 1..CXIB_MAX_WQE_BBS 64-byte basic blocks.  The WQE is built
 * in the QP's staging buffer by cxib_wqe_build_send(), a pure function of the WR and the
 * QP's parameters (the KUnit suite wqe_test checks its bytes), then copied into the ring
 * block by block, wrapping at the ring end as the PRM allows (cxib_sq_copy_wqe()).  After
 * the last WR: the send counter in the doorbell record, then the doorbell on BlueFlame
 * register 0 of the driver's UAR: the whole WQE when one small WQE was posted, else the
 * first 8 bytes of the last WQE's control segment.  The device reads WQEs from memory up to
 * the doorbell record's counter; the MMIO write is the kick.
 *
 * A receive WR becomes one RQ WQE of data segments, ended by a terminator entry when it
 * has fewer than fit; the receive counter in the doorbell record is all the device needs.
 *
 * Once the device is dead, posts fail with -EIO, as mlx5_ib's do (mlx5_ib_post_send()): a
 * ULP fails the request at once (nvme-rdma: a path error) instead of waiting for a
 * completion that will only come from a flush.  WRs taken before the death are kept for the
 * CQ's software flush.  ib_drain_qp() still returns: cxib's drain_sq and drain_rq post
 * their drain WR past the check, ring no doorbell for it, and schedule the CQ's completion
 * handler (cxib_cq_kick(), a work item: never from inside the post) so that the consumer
 * polls the flush completion.
 *
 * post_send and post_recv may be called from any context, also concurrently with each
 * other and with the CQ pollers; each queue has its spinlock.
 */

#include <kunit/visibility.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cxib.h"

/* ---- Building send WQEs (pure) ------------------------------------------------------------- */

static bool cxib_wr_is_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP || op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* The WRs that become UMR WQEs: no gather list, no inline data. */
static bool cxib_wr_is_umr(enum ib_wr_opcode op)
{
	return op == IB_WR_LOCAL_INV || op == IB_WR_REG_MR || op == CXIB_WR_UMR_XLT;
}

/* The WQE opcode and the completion's opcode of a WR opcode allowed on the QP type. */
static int cxib_wr_opcode(const struct cxib_sq_params *p, enum ib_wr_opcode op, u8 *wqe_op,
			  u8 *wc_op)
{
	bool rc = p->type == IB_QPT_RC, uc = p->type == IB_QPT_UC;
	bool umr_qp = p->type == CXIB_QPT_REG_UMR, umr_wr = op == CXIB_WR_UMR_XLT;

	/* The UMR QP loads translation tables, and nothing else does. */
	if (umr_qp != umr_wr)
		return -EINVAL;
	switch (op) {
	case IB_WR_SEND:
		*wqe_op = CXIB_WQE_OPCODE_SEND;
		*wc_op = IB_WC_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*wqe_op = CXIB_WQE_OPCODE_SEND_IMM;
		*wc_op = IB_WC_SEND;
		return 0;
	case IB_WR_LSO:
		*wqe_op = CXIB_WQE_OPCODE_LSO;
		*wc_op = IB_WC_LSO;
		return p->ipoib ? 0 : -EINVAL;
	case IB_WR_SEND_WITH_INV:
		*wqe_op = CXIB_WQE_OPCODE_SEND_INVAL;
		*wc_op = IB_WC_SEND;
		return rc ? 0 : -EINVAL;
	case IB_WR_RDMA_WRITE:
		*wqe_op = CXIB_WQE_OPCODE_RDMA_WRITE;
		*wc_op = IB_WC_RDMA_WRITE;
		return rc || uc ? 0 : -EINVAL;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*wqe_op = CXIB_WQE_OPCODE_RDMA_WRITE_IMM;
		*wc_op = IB_WC_RDMA_WRITE;
		return rc || uc ? 0 : -EINVAL;
	case IB_WR_RDMA_READ:
		*wqe_op = CXIB_WQE_OPCODE_RDMA_READ;
		*wc_op = IB_WC_RDMA_READ;
		return rc ? 0 : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*wqe_op = CXIB_WQE_OPCODE_ATOMIC_CS;
		*wc_op = IB_WC_COMP_SWAP;
		return rc && p->atomic ? 0 : -EINVAL;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*wqe_op = CXIB_WQE_OPCODE_ATOMIC_FA;
		*wc_op = IB_WC_FETCH_ADD;
		return rc && p->atomic ? 0 : -EINVAL;
	case IB_WR_LOCAL_INV:
		*wqe_op = CXIB_WQE_OPCODE_UMR;
		*wc_op = IB_WC_LOCAL_INV;
		return rc || uc ? 0 : -EINVAL;
	case IB_WR_REG_MR:
		*wqe_op = CXIB_WQE_OPCODE_UMR;
		*wc_op = IB_WC_REG_MR;
		return rc || uc ? 0 : -EINVAL;
	case CXIB_WR_UMR_XLT:
		*wqe_op = CXIB_WQE_OPCODE_UMR;
		*wc_op = IB_WC_REG_MR;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * One data segment, every bit of it written: the staging buffer and the rings hold older
 * WQEs, and a stale bit 31 of byte_count would make the device read an inline segment.
 */
static void cxib_wqe_put_data(struct cxib_wqe_data_seg *d, u32 len, u32 lkey, u64 addr)
{
	d->byte_count = cpu_to_be32(CXIB_FIELD_PREP(CXIB_WQE_DATA_BYTE_COUNT, len));
	d->lkey = cpu_to_be32(CXIB_FIELD_PREP(CXIB_WQE_DATA_LKEY, lkey));
	d->addr = cpu_to_be64(addr);
}

/* Gather list as data segments at @seg; zero-length entries are skipped. Returns bytes. */
static u32 cxib_wqe_set_data(void *seg, const struct ib_sge *sg, int num_sge)
{
	struct cxib_wqe_data_seg *d = seg;
	int i;

	for (i = 0; i < num_sge; i++) {
		if (!sg[i].length)
			continue;
		cxib_wqe_put_data(d, sg[i].length, sg[i].lkey, sg[i].addr);
		d++;
	}
	return (void *)d - seg;
}

/* Gather list copied inline at @seg (sg addresses are kernel virtual addresses). */
static int cxib_wqe_set_inline(const struct cxib_sq_params *p, void *seg,
			       const struct ib_sge *sg, int num_sge)
{
	u8 *data = seg + CXIB_WQE_INLINE_HDR_SIZE;
	u32 len = 0;
	int i;

	for (i = 0; i < num_sge; i++) {
		if (sg[i].length > p->max_inline - len)
			return -EINVAL;
		memcpy(data + len, (void *)(uintptr_t)sg[i].addr, sg[i].length);
		len += sg[i].length;
	}
	if (!len)
		return 0;	/* nothing to send: no segment at all */
	CXIB_SET(seg, CXIB_WQE_INLINE_SEG, 1);
	CXIB_SET(seg, CXIB_WQE_INLINE_BYTE_COUNT, len);
	/* The padding to the 16-byte unit goes as zeros. */
	memset(data + len, 0, ALIGN(CXIB_WQE_INLINE_HDR_SIZE + len, CXIB_WQE_DS_SIZE) -
			      CXIB_WQE_INLINE_HDR_SIZE - len);
	return ALIGN(CXIB_WQE_INLINE_HDR_SIZE + len, CXIB_WQE_DS_SIZE);
}

/*
 * IPoIB UD QPs: the zero pad and the Ethernet segment after the datagram segment -- the
 * checksum request (IB_SEND_IP_CSUM) and, for IB_WR_LSO, the MSS and the packet's headers
 * inline (the device sends the payload in MSS pieces behind fixed-up copies of them).
 * Returns the bytes written or -EINVAL.
 */
static int cxib_wqe_set_eth(void *seg, const struct ib_send_wr *wr)
{
	struct cxib_wqe_eth_seg *eth = seg + CXIB_WQE_ETH_PAD_SIZE;
	u8 *hdr = (u8 *)eth + CXIB_WQE_ETH_INLINE_HDR_OFFSET;
	const struct ib_ud_wr *ud = ud_wr(wr);
	u32 len;

	memset(seg, 0, CXIB_WQE_ETH_PAD_SIZE + sizeof(*eth));
	if (wr->send_flags & IB_SEND_IP_CSUM)
		CXIB_SET(eth, CXIB_WQE_ETH_CS_FLAGS, CXIB_WQE_ETH_L3_CSUM | CXIB_WQE_ETH_L4_CSUM);
	if (wr->opcode != IB_WR_LSO)
		return CXIB_WQE_ETH_PAD_SIZE + sizeof(*eth);
	if (!ud->header || ud->hlen <= 0 || ud->hlen > CXIB_IPOIB_LSO_MAX_HDR ||
	    ud->mss <= 0 || ud->mss > U16_MAX)
		return -EINVAL;
	CXIB_SET(eth, CXIB_WQE_ETH_MSS, ud->mss);
	CXIB_SET(eth, CXIB_WQE_ETH_INLINE_HDR_SZ, ud->hlen);
	len = ALIGN(CXIB_WQE_ETH_INLINE_HDR_OFFSET + ud->hlen, CXIB_WQE_DS_SIZE);
	memcpy(hdr, ud->header, ud->hlen);
	memset(hdr + ud->hlen, 0, len - CXIB_WQE_ETH_INLINE_HDR_OFFSET - ud->hlen);
	return CXIB_WQE_ETH_PAD_SIZE + len;
}

/* mkey segment access bits of IB access flags; local read is always granted. */
static void cxib_mkey_seg_access(void *mkey, int access, bool atomic)
{
	CXIB_SET(mkey, CXIB_WQE_MKEY_LR, 1);
	CXIB_SET(mkey, CXIB_WQE_MKEY_LW, !!(access & IB_ACCESS_LOCAL_WRITE));
	CXIB_SET(mkey, CXIB_WQE_MKEY_RR, !!(access & IB_ACCESS_REMOTE_READ));
	CXIB_SET(mkey, CXIB_WQE_MKEY_RW, !!(access & IB_ACCESS_REMOTE_WRITE));
	CXIB_SET(mkey, CXIB_WQE_MKEY_A, atomic && (access & IB_ACCESS_REMOTE_ATOMIC));
}

/**
 * cxib_umr_xlt_octowords() - octowords of a fast-registration translation list
 * @npages: MTT entries in use
 *
 * The list goes to the device in whole CXIB_MR_PL_ALIGN blocks.
 *
 * Return: the number of 16-byte octowords.
 */
VISIBLE_IF_KUNIT u32 cxib_umr_xlt_octowords(u32 npages)
{
	return ALIGN(npages * CXIB_PAS_ENTRY_SIZE, CXIB_MR_PL_ALIGN) / CXIB_WQE_DS_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_umr_xlt_octowords);

/* LOCAL_INV: a UMR that sets the key free. Returns the bytes after the control segment. */
static u32 cxib_wqe_set_local_inv(void *seg)
{
	void *umr = seg, *mkey = seg + sizeof(struct cxib_wqe_umr_ctrl_seg);

	memset(seg, 0, sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg));
	CXIB_SET(umr, CXIB_WQE_UMR_FLAGS, CXIB_UMR_INLINE);
	CXIB_SET64(umr, CXIB_WQE_UMR_MKEY_MASK, CXIB_UMR_MKEY_MASK_FREE);
	CXIB_SET(mkey, CXIB_WQE_MKEY_FREE, 1);
	return sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg);
}

/* REG_MR: a UMR loading the MR's translation list, range and access into its key. */
static int cxib_wqe_set_reg_mr(const struct cxib_sq_params *p, void *seg,
			       const struct ib_reg_wr *wr)
{
	const struct cxib_mr *mr = container_of(wr->mr, struct cxib_mr, ibmr);
	void *umr = seg, *mkey = seg + sizeof(struct cxib_wqe_umr_ctrl_seg);
	void *data = mkey + sizeof(struct cxib_wqe_mkey_seg);
	u32 octo = cxib_umr_xlt_octowords(mr->npages);
	u64 mask;

	/* Remote atomic access is not granted by a device without atomics (as mlx5). */
	if (!mr->pl || !mr->npages || mr->npages > mr->max_pages)
		return -EINVAL;
	memset(seg, 0, sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg));

	mask = CXIB_UMR_MKEY_MASK_LEN | CXIB_UMR_MKEY_MASK_PAGE_SIZE |
	       CXIB_UMR_MKEY_MASK_START_ADDR | CXIB_UMR_MKEY_MASK_EN_RINVAL |
	       CXIB_UMR_MKEY_MASK_KEY | CXIB_UMR_MKEY_MASK_LR | CXIB_UMR_MKEY_MASK_LW |
	       CXIB_UMR_MKEY_MASK_RR | CXIB_UMR_MKEY_MASK_RW | CXIB_UMR_MKEY_MASK_SMALL_FENCE |
	       CXIB_UMR_MKEY_MASK_FREE;
	if (p->atomic)
		mask |= CXIB_UMR_MKEY_MASK_A;
	CXIB_SET(umr, CXIB_WQE_UMR_FLAGS, CXIB_UMR_CHECK_NOT_FREE);
	CXIB_SET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS, octo);
	CXIB_SET64(umr, CXIB_WQE_UMR_MKEY_MASK, mask);

	cxib_mkey_seg_access(mkey, wr->access, p->atomic);
	CXIB_SET(mkey, CXIB_WQE_MKEY_ACCESS_MODE, CXIB_MKC_ACCESS_MODE_MTT);
	CXIB_SET(mkey, CXIB_WQE_MKEY_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mkey, CXIB_WQE_MKEY_MKEY_7_0, wr->key & 0xff);
	CXIB_SET(mkey, CXIB_WQE_MKEY_EN_RINVAL, 1);
	CXIB_SET(mkey, CXIB_WQE_MKEY_PD, mr->pd);
	CXIB_SET64(mkey, CXIB_WQE_MKEY_START_ADDR, mr->ibmr.iova);
	CXIB_SET64(mkey, CXIB_WQE_MKEY_LEN, mr->ibmr.length);
	CXIB_SET(mkey, CXIB_WQE_MKEY_XLT_OCT_SIZE, octo);
	CXIB_SET(mkey, CXIB_WQE_MKEY_LOG2_PAGE_SIZE, mr->page_shift);

	/* The translation list, read by the device through the PD's local DMA key. */
	cxib_wqe_put_data(data, octo * CXIB_WQE_DS_SIZE, p->local_dma_lkey, mr->pl_dma);
	return sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg) +
	       sizeof(struct cxib_wqe_data_seg);
}

/*
 * The UMR QP's table load: the entries behind a data segment land at an octoword offset of
 * the key's table; every piece requires the key still free (CHECK_NOT_FREE), and the last
 * clears its free bit (mkey_mask FREE, the mkey segment's free bit 0).  Returns the bytes
 * after the control segment, or -EINVAL for a piece the segment cannot describe.
 */
static int cxib_wqe_set_umr_xlt(void *seg, const struct cxib_umr_wr *uw)
{
	void *umr = seg, *mkey = seg + sizeof(struct cxib_wqe_umr_ctrl_seg);
	void *data = mkey + sizeof(struct cxib_wqe_mkey_seg);
	u32 octo = cxib_umr_xlt_octowords(uw->nentries);
	u64 octo_off = uw->offset / CXIB_MTT_PER_OCTWORD;

	if (!uw->nentries || octo > CXIB_FIELD_MAX(CXIB_WQE_UMR_XLT_OCTOWORDS) ||
	    uw->offset % CXIB_UMR_XLT_ALIGN ||
	    octo_off >> 16 > CXIB_FIELD_MAX(CXIB_WQE_UMR_XLT_OFFSET_47_16))
		return -EINVAL;
	memset(seg, 0, sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg));
	CXIB_SET(umr, CXIB_WQE_UMR_FLAGS, CXIB_UMR_CHECK_NOT_FREE | CXIB_UMR_TRANSLATION_OFFSET_EN);
	CXIB_SET(umr, CXIB_WQE_UMR_XLT_OCTOWORDS, octo);
	CXIB_SET(umr, CXIB_WQE_UMR_XLT_OFFSET, octo_off & CXIB_FIELD_MAX(CXIB_WQE_UMR_XLT_OFFSET));
	CXIB_SET(umr, CXIB_WQE_UMR_XLT_OFFSET_47_16, octo_off >> 16);
	if (uw->enable)
		CXIB_SET64(umr, CXIB_WQE_UMR_MKEY_MASK, CXIB_UMR_MKEY_MASK_FREE);
	CXIB_SET(mkey, CXIB_WQE_MKEY_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mkey, CXIB_WQE_MKEY_MKEY_7_0, uw->mkey & 0xff);
	cxib_wqe_put_data(data, octo * CXIB_WQE_DS_SIZE, uw->xlt_lkey, uw->xlt_dma);
	return sizeof(struct cxib_wqe_umr_ctrl_seg) + sizeof(struct cxib_wqe_mkey_seg) +
	       sizeof(struct cxib_wqe_data_seg);
}

/* The fence mode of a WQE: the WR's fence, and the small fence owed to a preceding UMR. */
static u8 cxib_wqe_fence(const struct ib_send_wr *wr, bool small_fence)
{
	bool fence = wr->send_flags & IB_SEND_FENCE;

	if (fence && small_fence)
		return CXIB_WQE_FM_FENCE_AND_INITIATOR_SMALL_FENCE;
	if (fence)
		return CXIB_WQE_FM_FENCE;
	return small_fence ? CXIB_WQE_FM_INITIATOR_SMALL_FENCE : CXIB_WQE_FM_NO_FENCE;
}

/**
 * cxib_wqe_build_send() - build the send WQE of one WR
 * @p: the QP's parameters (QPN, type, limits, pending small fence)
 * @wr: the work request
 * @idx: the WQE index (SQ producer counter in WQEBBs; 16 bits reach the WQE)
 * @wqe: where to build it: CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB bytes, contiguous
 * @info: what the QP must remember of the WQE (its completion opcode and flags)
 *
 * Does not sleep and touches nothing but @wqe and @info.
 *
 * Return: the WQE's size in 16-byte units (the control segment's ds), or -EINVAL for a WR
 * the QP cannot post (opcode not allowed on the QP type, too many gather entries, too
 * much inline data, bad registration).
 */
VISIBLE_IF_KUNIT int cxib_wqe_build_send(const struct cxib_sq_params *p,
					 const struct ib_send_wr *wr, u16 idx, void *wqe,
					 struct cxib_sq_ent *info)
{
	struct cxib_wqe_ctrl_seg *ctrl = wqe;
	void *seg = ctrl + 1;
	bool inl = wr->send_flags & IB_SEND_INLINE;
	u8 wqe_op, wc_op;
	u32 imm = 0;
	int len;

	if (cxib_wr_opcode(p, wr->opcode, &wqe_op, &wc_op) || wr->num_sge < 0 ||
	    (u32)wr->num_sge > p->max_gs)
		return -EINVAL;
	if (inl && (wr->opcode == IB_WR_RDMA_READ || cxib_wr_is_atomic(wr->opcode) ||
		    cxib_wr_is_umr(wr->opcode)))
		return -EINVAL;
	memset(ctrl, 0, sizeof(*ctrl));

	switch (p->type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
	case IB_QPT_SMI: {
		const struct ib_ud_wr *ud = ud_wr(wr);
		struct cxib_wqe_av *av = seg;

		if (!ud->ah)
			return -EINVAL;
		*av = container_of(ud->ah, struct cxib_ah, ibah)->av;
		CXIB_SET(av, CXIB_WQE_AV_QKEY, ud->remote_qkey);
		CXIB_SET(av, CXIB_WQE_AV_EXT, 1);
		CXIB_SET(av, CXIB_WQE_AV_DQPN, ud->remote_qpn);
		seg += CXIB_WQE_AV_SIZE;
		if (p->ipoib) {
			len = cxib_wqe_set_eth(seg, wr);
			if (len < 0)
				return len;
			seg += len;
		}
		break;
	}
	default:
		break;
	}

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
		imm = be32_to_cpu(wr->ex.imm_data);
		break;
	case IB_WR_SEND_WITH_INV:
		imm = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		imm = be32_to_cpu(wr->ex.imm_data);
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		CXIB_SET64(seg, CXIB_WQE_RADDR_RADDR, rdma_wr(wr)->remote_addr);
		CXIB_SET(seg, CXIB_WQE_RADDR_RKEY, rdma_wr(wr)->rkey);
		((struct cxib_wqe_raddr_seg *)seg)->rsvd = 0;
		seg += sizeof(struct cxib_wqe_raddr_seg);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD: {
		const struct ib_atomic_wr *aw = atomic_wr(wr);
		bool cs = wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP;

		/* One 8-byte local buffer receives the original value. */
		if (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(u64))
			return -EINVAL;
		CXIB_SET64(seg, CXIB_WQE_RADDR_RADDR, aw->remote_addr);
		CXIB_SET(seg, CXIB_WQE_RADDR_RKEY, aw->rkey);
		((struct cxib_wqe_raddr_seg *)seg)->rsvd = 0;
		seg += sizeof(struct cxib_wqe_raddr_seg);
		CXIB_SET64(seg, CXIB_WQE_ATOMIC_SWAP_ADD, cs ? aw->swap : aw->compare_add);
		CXIB_SET64(seg, CXIB_WQE_ATOMIC_COMPARE, cs ? aw->compare_add : 0);
		seg += sizeof(struct cxib_wqe_atomic_seg);
		break;
	}
	case IB_WR_LOCAL_INV:
		imm = wr->ex.invalidate_rkey;
		seg += cxib_wqe_set_local_inv(seg);
		break;
	case IB_WR_REG_MR:
		imm = reg_wr(wr)->key;
		len = cxib_wqe_set_reg_mr(p, seg, reg_wr(wr));
		if (len < 0)
			return len;
		seg += len;
		break;
	case CXIB_WR_UMR_XLT:
		imm = cxib_umr_wr(wr)->mkey;
		len = cxib_wqe_set_umr_xlt(seg, cxib_umr_wr(wr));
		if (len < 0)
			return len;
		seg += len;
		break;
	default:
		break;
	}

	if (!cxib_wr_is_umr(wr->opcode)) {
		if (inl) {
			len = cxib_wqe_set_inline(p, seg, wr->sg_list, wr->num_sge);
			if (len < 0)
				return len;
		} else {
			len = cxib_wqe_set_data(seg, wr->sg_list, wr->num_sge);
		}
		seg += len;
	}

	len = (seg - wqe) / CXIB_WQE_DS_SIZE;
	CXIB_SET(ctrl, CXIB_WQE_CTRL_WQE_INDEX, idx);
	CXIB_SET(ctrl, CXIB_WQE_CTRL_OPCODE, wqe_op);
	CXIB_SET(ctrl, CXIB_WQE_CTRL_QPN, p->qpn);
	CXIB_SET(ctrl, CXIB_WQE_CTRL_DS, len);
	CXIB_SET(ctrl, CXIB_WQE_CTRL_FM, cxib_wqe_fence(wr, p->small_fence));
	info->flags = 0;
	if (p->sig_all || (wr->send_flags & IB_SEND_SIGNALED)) {
		CXIB_SET(ctrl, CXIB_WQE_CTRL_CE, CXIB_WQE_CTRL_CE_CQE_ALWAYS);
		info->flags |= CXIB_SQE_SIGNALED;
	} else {
		CXIB_SET(ctrl, CXIB_WQE_CTRL_CE, CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	}
	CXIB_SET(ctrl, CXIB_WQE_CTRL_SE, !!(wr->send_flags & IB_SEND_SOLICITED));
	CXIB_SET(ctrl, CXIB_WQE_CTRL_IMM, imm);

	info->wr_id = wr->wr_id;
	info->wc_opcode = wc_op;
	info->nbb = DIV_ROUND_UP(len * CXIB_WQE_DS_SIZE, CXIB_SEND_WQE_BB);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_wqe_build_send);

/**
 * cxib_sq_copy_wqe() - copy a built WQE into the send ring
 * @buf: the QP's buffer
 * @sq_offset: byte offset of the SQ in @buf (a multiple of CXIB_SEND_WQE_BB)
 * @log_wqe_cnt: log2 of the WQEBBs in the ring
 * @idx: the WQE's index (unmasked)
 * @wqe: the built WQE
 * @nbb: its WQEBBs
 *
 * Block by block, wrapping to the start of the ring after its last block; a block never
 * straddles two pieces of @buf.
 */
VISIBLE_IF_KUNIT void cxib_sq_copy_wqe(const struct cxib_frag_buf *buf, u32 sq_offset,
				       u8 log_wqe_cnt, u32 idx, const void *wqe, u32 nbb)
{
	u32 mask = BIT(log_wqe_cnt) - 1, base = sq_offset / CXIB_SEND_WQE_BB, i;

	for (i = 0; i < nbb; i++)
		memcpy(cxib_frag_buf_entry(buf, base + ((idx + i) & mask), CXIB_LOG_SEND_WQE_BB),
		       wqe + i * CXIB_SEND_WQE_BB, CXIB_SEND_WQE_BB);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_sq_copy_wqe);

/**
 * cxib_sq_bf_len() - how much of a WQE goes through BlueFlame
 * @caps: the device's capabilities
 * @nreq: WRs posted by this call
 * @nbb: WQEBBs of the (last) WQE
 *
 * One small WQE is copied whole into half of the BlueFlame register; otherwise the
 * doorbell is the first 8 bytes of the last WQE's control segment.
 *
 * Return: bytes to write at the BlueFlame register.
 */
VISIBLE_IF_KUNIT u32 cxib_sq_bf_len(const struct cxib_caps *caps, u32 nreq, u32 nbb)
{
	u32 half = caps->bf && caps->log_bf_reg_size ? BIT(caps->log_bf_reg_size) / 2 : 0;

	if (nreq == 1 && nbb * CXIB_SEND_WQE_BB <= min_t(u32, half, CXIB_SQ_BF_MAX_COPY))
		return nbb * CXIB_SEND_WQE_BB;
	return CXIB_SQ_DB_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_sq_bf_len);

/* ---- post_send ----------------------------------------------------------------------------- */

static void cxib_sq_doorbell(struct cxib_dev *dev, struct cxib_qp *qp, const void *wqe,
			     u32 len)
{
	void __iomem *bf = dev->uar_map + CXIB_UAR_BF_OFFSET;
	unsigned long flags;

	/* The WQEs are in memory before the device can see the new counter ... */
	wmb();
	qp->dbr.db[CXIB_OFFSET(CXIB_QP_DB_SND_COUNTER) / 4] =
		cpu_to_be32(CXIB_FIELD_PREP(CXIB_QP_DB_SND_COUNTER, qp->sq.head));
	/* ... and the counter before the kick. */
	wmb();
	spin_lock_irqsave(&dev->bf_lock, flags);
	if (len > CXIB_SQ_DB_SIZE)
		__iowrite64_copy(bf + dev->bf_offset, wqe, len / sizeof(u64));
	else
		__raw_writeq(*(const u64 *)wqe, bf + dev->bf_offset);
	dev->bf_offset ^= CXIB_BF_HALF_SIZE(dev->caps.log_bf_reg_size);
	spin_unlock_irqrestore(&dev->bf_lock, flags);
}

/* cxib_post_send(); @drain: a drain WR, taken also once the device is dead */
static int cxib_sq_post(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad_wr, bool drain)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	struct cxib_qp *qp = to_cxib_qp(ibqp);
	struct cxib_sq *sq = &qp->sq;
	struct cxib_sq_params p = {
		.qpn = qp->qpn,
		.type = ibqp->qp_type,
		.max_gs = sq->max_gs,
		.max_inline = sq->max_inline,
		.sig_all = qp->sq_sig_all,
		.atomic = dev->caps.atomic,
		.local_dma_lkey = ibqp->pd->local_dma_lkey,
		.ipoib = qp->ipoib,
	};
	bool dead = cxib_dev_dead(dev);
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct cxib_sq_ent info;
	u32 mask = BIT(sq->log_wqe_cnt) - 1, nreq = 0, nbb = 0;
	unsigned long flags;
	int ds, err = 0;

	/* A user QP posts in user space; its rings are not the kernel's to touch. */
	if (unlikely(qp->uq) ||
	    state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (unlikely(dead && !drain)) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&sq->lock, flags);
	/* again under the lock: cxib_destroy_qp() frees the ring once no post holds it */
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		spin_unlock_irqrestore(&sq->lock, flags);
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next, nreq++) {
		if (sq->wr_head - READ_ONCE(sq->wr_tail) >= sq->max_wr) {
			err = -ENOMEM;
			break;
		}
		p.small_fence = sq->small_fence;
		ds = cxib_wqe_build_send(&p, wr, sq->head, sq->stage, &info);
		if (ds < 0) {
			err = ds;
			break;
		}
		if (sq->head - READ_ONCE(sq->tail) + info.nbb > BIT(sq->log_wqe_cnt)) {
			err = -ENOMEM;
			break;
		}
		cxib_sq_copy_wqe(&qp->buf, sq->offset, sq->log_wqe_cnt, sq->head, sq->stage,
				 info.nbb);
		sq->ents[sq->head & mask] = info;
		sq->small_fence = wr->opcode == IB_WR_LOCAL_INV || wr->opcode == IB_WR_REG_MR;
		nbb = info.nbb;
		sq->head += info.nbb;
		sq->wr_head++;
	}
	if (err)
		*bad_wr = wr;
	if (nreq && !dead) {
		/* The last WQE is still in the staging buffer. */
		cxib_sq_doorbell(dev, qp, sq->stage, cxib_sq_bf_len(&dev->caps, nreq, nbb));
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	if (nreq && dead)
		cxib_cq_kick(qp->send_cq);
	return err;
}

/**
 * cxib_post_send() - ib_device_ops.post_send
 * @ibqp: the QP
 * @wr: the chain of work requests
 * @bad_wr: set to the first WR not posted on failure
 *
 * Any context; does not sleep.
 *
 * Return: 0, -EINVAL for a WR the QP cannot take (or a QP not yet able to send), -ENOMEM
 * when the send queue is full, -EIO once the device is dead.
 */
int cxib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	return cxib_sq_post(ibqp, wr, bad_wr, false);
}

/* ---- post_recv ----------------------------------------------------------------------------- */

/**
 * cxib_wqe_build_recv() - build a receive WQE
 * @wqe: the WQE: @max_gs data segments
 * @max_gs: the data segments that fit in a WQE
 * @wr: the work request
 *
 * The scatter list in order, then a terminator (byte count 0, CXIB_INVALID_LKEY) when it
 * is shorter than @max_gs.
 *
 * Return: 0, or -EINVAL if the WR has more than @max_gs entries.
 */
VISIBLE_IF_KUNIT int cxib_wqe_build_recv(void *wqe, u32 max_gs, const struct ib_recv_wr *wr)
{
	struct cxib_wqe_data_seg *d = wqe;
	int i;

	if (wr->num_sge < 0 || (u32)wr->num_sge > max_gs)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++, d++)
		cxib_wqe_put_data(d, wr->sg_list[i].length, wr->sg_list[i].lkey,
				  wr->sg_list[i].addr);
	if ((u32)wr->num_sge < max_gs)
		cxib_wqe_put_data(d, 0, CXIB_INVALID_LKEY, 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_wqe_build_recv);

/* cxib_post_recv(); @drain: a drain WR, taken also once the device is dead */
static int cxib_rq_post(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr, bool drain)
{
	struct cxib_dev *dev = to_cxib_dev(ibqp->device);
	struct cxib_qp *qp = to_cxib_qp(ibqp);
	struct cxib_rq *rq = &qp->rq;
	u32 mask = BIT(rq->log_wqe_cnt) - 1, nreq = 0;
	unsigned long flags;
	int err = 0;

	if (unlikely(qp->uq) || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (unlikely(!drain && cxib_dev_dead(dev))) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&rq->lock, flags);
	/* under the lock: cxib_destroy_qp() frees the ring once no post holds it */
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		spin_unlock_irqrestore(&rq->lock, flags);
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next, nreq++) {
		if (rq->head - READ_ONCE(rq->tail) >= rq->max_wr) {
			err = -ENOMEM;
			break;
		}
		err = cxib_wqe_build_recv(cxib_frag_buf_entry(&qp->buf, rq->head & mask,
							      rq->log_stride),
					  rq->max_gs, wr);
		if (err)
			break;
		rq->wrid[rq->head & mask] = wr->wr_id;
		rq->head++;
	}
	if (err)
		*bad_wr = wr;
	if (nreq) {
		/* The WQEs are in memory before the device can see the new counter. */
		dma_wmb();
		qp->dbr.db[CXIB_OFFSET(CXIB_QP_DB_RCV_COUNTER) / 4] =
			cpu_to_be32(CXIB_FIELD_PREP(CXIB_QP_DB_RCV_COUNTER, rq->head));
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	/*
	 * Receives have no doorbell: the device reads the record's counter, also for a QP in
	 * ERR, whose new receives it flushes by itself.  A dead device completes nothing.
	 */
	if (nreq && cxib_dev_dead(dev))
		cxib_cq_kick(qp->recv_cq);
	return err;
}

/**
 * cxib_post_recv() - ib_device_ops.post_recv
 * @ibqp: the QP
 * @wr: the chain of work requests
 * @bad_wr: set to the first WR not posted on failure
 *
 * Any context; does not sleep.
 *
 * Return: 0, -EINVAL for a WR with too many scatter entries (or a QP with an SRQ or in
 * RESET), -ENOMEM when the receive queue is full, -EIO once the device is dead.
 */
int cxib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	return cxib_rq_post(ibqp, wr, bad_wr, false);
}

/* ---- draining (ib_device_ops.drain_sq, drain_rq) ------------------------------------------ */

/* A drain WR: its completion, which is the last of its queue (the QP is in ERR). */
struct cxib_drain {
	struct ib_cqe cqe;
	struct completion done;
};

static void cxib_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	complete(&container_of(wc->wr_cqe, struct cxib_drain, cqe)->done);
}

/* Wait for the drain WR; a CQ with no completion handler (IB_POLL_DIRECT) is polled here. */
static void cxib_drain_wait(struct ib_cq *cq, struct cxib_drain *d)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&d->done);
		return;
	}
	while (!wait_for_completion_timeout(&d->done, HZ / 10))
		ib_process_cq_direct(cq, -1);
}

/* Move the QP to ERR, which flushes what it holds; false if it did not go. */
static bool cxib_drain_start(struct ib_qp *ibqp, const char *queue)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int err = ib_modify_qp(ibqp, &attr, IB_QP_STATE);

	if (err)
		ibdev_warn(ibqp->device, "QP 0x%x: %s not drained: to ERR failed: %d\n",
			   ibqp->qp_num, queue, err);
	return !err;
}

/**
 * cxib_drain_sq() - ib_device_ops.drain_sq
 * @ibqp: a kernel RC or UC QP
 *
 * The QP goes to ERR and a signaled RDMA WRITE is posted behind everything outstanding;
 * its flush completion means every earlier send WR has completed.  As ib_drain_sq(), but
 * also once the device is dead, when ib_post_send() fails.  Process context; sleeps until
 * the CQ's consumer has polled the drain completion.
 */
void cxib_drain_sq(struct ib_qp *ibqp)
{
	struct cxib_drain d = { .cqe.done = cxib_drain_done };
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = &d.cqe, .opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
	};
	const struct ib_send_wr *bad;
	int err;

	init_completion(&d.done);
	if (!cxib_drain_start(ibqp, "send queue"))
		return;
	err = cxib_sq_post(ibqp, &wr.wr, &bad, true);
	if (err) {
		ibdev_warn(ibqp->device, "QP 0x%x: send queue not drained: %d\n", ibqp->qp_num,
			   err);
		return;
	}
	cxib_drain_wait(ibqp->send_cq, &d);
}

/**
 * cxib_drain_rq() - ib_device_ops.drain_rq
 * @ibqp: a kernel QP without an SRQ
 *
 * As cxib_drain_sq(), with a receive WR behind every outstanding receive.
 */
void cxib_drain_rq(struct ib_qp *ibqp)
{
	struct cxib_drain d = { .cqe.done = cxib_drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &d.cqe };
	const struct ib_recv_wr *bad;
	int err;

	init_completion(&d.done);
	if (!cxib_drain_start(ibqp, "receive queue"))
		return;
	err = cxib_rq_post(ibqp, &wr, &bad, true);
	if (err) {
		ibdev_warn(ibqp->device, "QP 0x%x: receive queue not drained: %d\n",
			   ibqp->qp_num, err);
		return;
	}
	cxib_drain_wait(ibqp->recv_cq, &d);
}
