// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the commands of the verbs resources (PRM §5): PDs, memory keys, CQs, QPs and their
 * state transitions, SRQs (CREATE_SRQ at ISSI 0, the RMPs of ISSI 1), multicast groups and
 * Q counters, one typed function each, built like fw.c's on the queue engine in cmd.c.
 *
 * The verbs files build a resource's context (struct cxib_cqc, struct cxib_qpc, ...) and
 * hand it here; they never see a command's input or output.  Every function sleeps.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxib.h"

/* ---- Protection domains ----------------------------------------------------------------- */

/**
 * cxib_cmd_alloc_pd() - ALLOC_PD: allocate a protection domain
 * @dev: the device
 * @pdn: the new PD's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_alloc_pd(struct cxib_dev *dev, u32 *pdn)
{
	struct cxib_alloc_pd_in in = {};
	struct cxib_alloc_pd_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_ALLOC_PD, 0);
	err = cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
	if (!err)
		*pdn = CXIB_GET(&out, CXIB_ALLOC_PD_OUT_PD);
	return err;
}

/**
 * cxib_cmd_dealloc_pd() - DEALLOC_PD: free a protection domain
 * @dev: the device
 * @pdn: the PD's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_dealloc_pd(struct cxib_dev *dev, u32 pdn)
{
	struct cxib_dealloc_pd_in in = {};
	struct cxib_dealloc_pd_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DEALLOC_PD, 0);
	CXIB_SET(&in, CXIB_DEALLOC_PD_IN_PD, pdn);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/* ---- Memory keys ------------------------------------------------------------------------ */

/**
 * cxib_cmd_create_mkey() - CREATE_MKEY: create a memory key
 * @dev: the device
 * @mkc: the key's context (access mode, rights, PD, range, variant byte)
 * @mtt: @nmtt translation entries (page bus addresses) for MTT mode, or NULL
 * @nmtt: number of entries in @mtt
 * @mkey_index: the new key's index; the key is CXIB_MKEY(index, the mkc's mkey_7_0)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_create_mkey(struct cxib_dev *dev, const struct cxib_mkc *mkc, const u64 *mtt,
			 u32 nmtt, u32 *mkey_index)
{
	struct cxib_create_mkey_out out = {};
	/* whole octwords: an odd count is padded with a zero entry (kvzalloc) */
	u32 inlen = CXIB_CREATE_MKEY_IN_LEN(ALIGN(nmtt, CXIB_MTT_PER_OCTWORD));
	__be64 *ent;
	struct cxib_create_mkey_in *in;
	u32 i;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_cmd_hdr(in, CXIB_CMD_OP_CREATE_MKEY, 0);
	memcpy((void *)in + CXIB_CREATE_MKEY_IN_MKC_OFFSET, mkc, sizeof(*mkc));
	/* Octwords of translations supplied: two 8-byte entries each. */
	CXIB_SET(in, CXIB_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE,
		 DIV_ROUND_UP(nmtt, CXIB_MTT_PER_OCTWORD));
	ent = (void *)in + CXIB_CREATE_MKEY_IN_KLM_PAS_MTT_OFFSET;
	for (i = 0; i < nmtt; i++)
		ent[i] = cpu_to_be64(mtt[i]);

	err = cxib_cmd_exec(dev, in, inlen, &out, sizeof(out));
	if (!err)
		*mkey_index = CXIB_GET(&out, CXIB_CREATE_MKEY_OUT_MKEY_INDEX);
	kvfree(in);
	return err;
}

/**
 * cxib_cmd_destroy_mkey() - DESTROY_MKEY: destroy a memory key
 * @dev: the device
 * @mkey_index: the key's index
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_destroy_mkey(struct cxib_dev *dev, u32 mkey_index)
{
	struct cxib_destroy_mkey_in in = {};
	struct cxib_destroy_mkey_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DESTROY_MKEY, 0);
	CXIB_SET(&in, CXIB_DESTROY_MKEY_IN_MKEY_INDEX, mkey_index);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_destroy_mkey);

#if IS_ENABLED(CONFIG_KUNIT)	/* only the KUnit suites read a key's context */
/**
 * cxib_cmd_query_mkey() - QUERY_MKEY: read a memory key's context
 * @dev: the device
 * @mkey_index: the key's index
 * @mkc: the context
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_mkey(struct cxib_dev *dev, u32 mkey_index, struct cxib_mkc *mkc)
{
	struct cxib_query_mkey_in in = {};
	struct cxib_query_mkey_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_MKEY, 0);
	CXIB_SET(&in, CXIB_QUERY_MKEY_IN_MKEY_INDEX, mkey_index);
	err = cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
	if (!err)
		memcpy(mkc, (void *)&out + CXIB_QUERY_MKEY_OUT_MKC_OFFSET, sizeof(*mkc));
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_mkey);
#endif

/* ---- Queues: what CREATE and QUERY of a CQ, QP and SRQ share --------------------------- */

/*
 * Create a queue (CREATE_CQ, CREATE_QP, CREATE_SRQ, CREATE_RMP): the header, the context
 * (@ctx_len bytes at @ctx_off) and the PAS list at @pas_off, which ends the input; the
 * @outlen-byte output in @out.
 */
static int cxib_cmd_create_queue(struct cxib_dev *dev, u16 opcode, const void *ctx,
				 size_t ctx_len, u32 ctx_off, u32 pas_off,
				 const dma_addr_t *pas, u32 npas, void *out, u32 outlen)
{
	u32 inlen = pas_off + CXIB_PAS_ENTRY_SIZE * npas;
	void *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_cmd_hdr(in, opcode, 0);
	memcpy(in + ctx_off, ctx, ctx_len);
	cxib_cmd_put_pas(in, pas_off, pas, npas);
	err = cxib_cmd_exec(dev, in, inlen, out, outlen);
	kvfree(in);
	return err;
}

/*
 * Query a queue (QUERY_CQ, QUERY_QP, QUERY_SRQ, QUERY_RMP): @in is the input with its
 * header and the queue's number; the context, @ctx_len bytes at @ctx_off of the
 * @outlen-byte output, is copied to @ctx.
 */
static int cxib_cmd_query_queue(struct cxib_dev *dev, const void *in, u32 inlen, u32 outlen,
				u32 ctx_off, void *ctx, size_t ctx_len)
{
	void *out;
	int err;

	out = kvzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = cxib_cmd_exec(dev, in, inlen, out, outlen);
	if (!err)
		memcpy(ctx, out + ctx_off, ctx_len);
	kvfree(out);
	return err;
}

/* ---- Completion queues ------------------------------------------------------------------ */

/**
 * cxib_cmd_create_cq() - CREATE_CQ: create a completion queue
 * @dev: the device
 * @cqc: the CQ's context (size, CQE size, UAR, completion EQ, doorbell record)
 * @pas: bus addresses of the CQ buffer's 4 KiB pages
 * @npas: number of pages
 * @cqn: the new CQ's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_create_cq(struct cxib_dev *dev, const struct cxib_cqc *cqc, const dma_addr_t *pas,
		       u32 npas, u32 *cqn)
{
	struct cxib_create_cq_out out = {};
	int err;

	BUILD_BUG_ON(CXIB_CREATE_CQ_IN_LEN(0) != CXIB_CREATE_CQ_IN_PAS_OFFSET);
	err = cxib_cmd_create_queue(dev, CXIB_CMD_OP_CREATE_CQ, cqc, sizeof(*cqc),
				    CXIB_CREATE_CQ_IN_CQC_OFFSET, CXIB_CREATE_CQ_IN_PAS_OFFSET,
				    pas, npas, &out, sizeof(out));
	if (!err)
		*cqn = CXIB_GET(&out, CXIB_CREATE_CQ_OUT_CQN);
	return err;
}

/**
 * cxib_cmd_destroy_cq() - DESTROY_CQ: destroy a completion queue
 * @dev: the device
 * @cqn: the CQ's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_destroy_cq(struct cxib_dev *dev, u32 cqn)
{
	struct cxib_destroy_cq_in in = {};
	struct cxib_destroy_cq_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DESTROY_CQ, 0);
	CXIB_SET(&in, CXIB_DESTROY_CQ_IN_CQN, cqn);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

#if IS_ENABLED(CONFIG_KUNIT)	/* only the KUnit suites read a CQ's context */
/**
 * cxib_cmd_query_cq() - QUERY_CQ: read a completion queue's context
 * @dev: the device
 * @cqn: the CQ's number
 * @cqc: the context (status, state, counters)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_cq(struct cxib_dev *dev, u32 cqn, struct cxib_cqc *cqc)
{
	struct cxib_query_cq_in in = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_CQ, 0);
	CXIB_SET(&in, CXIB_QUERY_CQ_IN_CQN, cqn);
	return cxib_cmd_query_queue(dev, &in, sizeof(in), CXIB_QUERY_CQ_OUT_LEN,
				    CXIB_QUERY_CQ_OUT_CQC_OFFSET, cqc, sizeof(*cqc));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_cq);
#endif

/**
 * cxib_cmd_modify_cq() - MODIFY_CQ (op_mod MODIFY): change a CQ's moderation or EQ
 * @dev: the device
 * @cqn: the CQ's number
 * @field_select: CXIB_CQ_MODIFY_* bits: which fields of @cqc apply
 * @cqc: the new values
 *
 * Resizing (op_mod RESIZE) needs a new buffer and is not offered.
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_modify_cq(struct cxib_dev *dev, u32 cqn, u32 field_select,
		       const struct cxib_cqc *cqc)
{
	struct cxib_modify_cq_out out = {};
	u32 inlen = CXIB_MODIFY_CQ_IN_LEN(0);
	struct cxib_modify_cq_in *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_cmd_hdr(in, CXIB_CMD_OP_MODIFY_CQ, CXIB_MODIFY_CQ_OP_MOD_MODIFY);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_CQN, cqn);
	CXIB_SET(in, CXIB_MODIFY_CQ_IN_MODIFY_FIELD_SELECT, field_select);
	memcpy((void *)in + CXIB_MODIFY_CQ_IN_CQC_OFFSET, cqc, sizeof(*cqc));
	err = cxib_cmd_exec(dev, in, inlen, &out, sizeof(out));
	kvfree(in);
	return err;
}

/* ---- Queue pairs ------------------------------------------------------------------------ */

/**
 * cxib_cmd_create_qp() - CREATE_QP: create a queue pair
 * @dev: the device
 * @qpc: the QP's context (service type, PD, CQs, queue sizes, UAR, doorbell record)
 * @pas: bus addresses of the 4 KiB pages of the QP's buffer (RQ first, then SQ)
 * @npas: number of pages
 * @qpn: the new QP's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_create_qp(struct cxib_dev *dev, const struct cxib_qpc *qpc, const dma_addr_t *pas,
		       u32 npas, u32 *qpn)
{
	struct cxib_create_qp_out out = {};
	int err;

	BUILD_BUG_ON(CXIB_CREATE_QP_IN_LEN(0) != CXIB_CREATE_QP_IN_PAS_OFFSET);
	err = cxib_cmd_create_queue(dev, CXIB_CMD_OP_CREATE_QP, qpc, sizeof(*qpc),
				    CXIB_CREATE_QP_IN_QPC_OFFSET, CXIB_CREATE_QP_IN_PAS_OFFSET,
				    pas, npas, &out, sizeof(out));
	if (!err)
		*qpn = CXIB_GET(&out, CXIB_CREATE_QP_OUT_QPN);
	return err;
}

/**
 * cxib_cmd_destroy_qp() - DESTROY_QP: destroy a queue pair
 * @dev: the device
 * @qpn: the QP's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_destroy_qp(struct cxib_dev *dev, u32 qpn)
{
	struct cxib_destroy_qp_in in = {};
	struct cxib_destroy_qp_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DESTROY_QP, 0);
	CXIB_SET(&in, CXIB_DESTROY_QP_IN_QPN, qpn);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_cmd_modify_qp() - a QP state transition command
 * @dev: the device
 * @opcode: the transition: CXIB_CMD_OP_RST2INIT_QP .. CXIB_CMD_OP_SQD_RTS_QP with a
 *	context, or CXIB_CMD_OP_2ERR_QP / CXIB_CMD_OP_2RST_QP without one
 * @qpn: the QP's number
 * @opt_mask: CXIB_QP_OPTPAR_* bits: the optional context fields that apply
 * @qpc: the context for the transition; unused (may be NULL) for 2ERR and 2RST
 *
 * The transitions share one input layout (2ERR and 2RST a shorter one), so one function
 * issues them all; qp.c picks the opcode from the current and the new state.
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_modify_qp(struct cxib_dev *dev, u16 opcode, u32 qpn, u32 opt_mask,
		       const struct cxib_qpc *qpc)
{
	struct cxib_qp_modify_out out = {};
	struct cxib_qp_modify_in *in;
	int err;

	if (opcode == CXIB_CMD_OP_2ERR_QP || opcode == CXIB_CMD_OP_2RST_QP) {
		struct cxib_qp_2err_in sin = {};

		cxib_cmd_hdr(&sin, opcode, 0);
		CXIB_SET(&sin, CXIB_QP_2ERR_IN_QPN, qpn);
		return cxib_cmd_exec(dev, &sin, sizeof(sin), &out, CXIB_QP_2ERR_OUT_LEN);
	}
	in = kvzalloc(CXIB_QP_MODIFY_IN_LEN, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_cmd_hdr(in, opcode, 0);
	CXIB_SET(in, CXIB_QP_MODIFY_IN_QPN, qpn);
	CXIB_SET(in, CXIB_QP_MODIFY_IN_OPT_PARAM_MASK, opt_mask);
	memcpy((void *)in + CXIB_QP_MODIFY_IN_QPC_OFFSET, qpc, sizeof(*qpc));
	err = cxib_cmd_exec(dev, in, CXIB_QP_MODIFY_IN_LEN, &out, sizeof(out));
	kvfree(in);
	return err;
}

/**
 * cxib_cmd_query_qp() - QUERY_QP: read a queue pair's context
 * @dev: the device
 * @qpn: the QP's number
 * @qpc: the context (state, path, PSNs, ...)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_qp(struct cxib_dev *dev, u32 qpn, struct cxib_qpc *qpc)
{
	struct cxib_query_qp_in in = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_QP, 0);
	CXIB_SET(&in, CXIB_QUERY_QP_IN_QPN, qpn);
	return cxib_cmd_query_queue(dev, &in, sizeof(in), CXIB_QUERY_QP_OUT_LEN,
				    CXIB_QUERY_QP_OUT_QPC_OFFSET, qpc, sizeof(*qpc));
}

/* ---- Shared receive queues -------------------------------------------------------------- */

/**
 * cxib_cmd_create_srq() - CREATE_SRQ: create a shared receive queue (ISSI 0)
 * @dev: the device
 * @srqc: the SRQ's context (state, size, stride, page offset, PD, doorbell record)
 * @pas: bus addresses of the 4 KiB pages of the SRQ's buffer
 * @npas: number of pages
 * @srqn: the new SRQ's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_create_srq(struct cxib_dev *dev, const struct cxib_srqc *srqc,
			const dma_addr_t *pas, u32 npas, u32 *srqn)
{
	struct cxib_create_srq_out out = {};
	int err;

	BUILD_BUG_ON(CXIB_CREATE_SRQ_IN_LEN(0) != CXIB_CREATE_SRQ_IN_PAS_OFFSET);
	err = cxib_cmd_create_queue(dev, CXIB_CMD_OP_CREATE_SRQ, srqc, sizeof(*srqc),
				    CXIB_CREATE_SRQ_IN_SRQC_OFFSET, CXIB_CREATE_SRQ_IN_PAS_OFFSET,
				    pas, npas, &out, sizeof(out));
	if (!err)
		*srqn = CXIB_GET(&out, CXIB_CREATE_SRQ_OUT_SRQN);
	return err;
}

/**
 * cxib_cmd_destroy_srq() - DESTROY_SRQ: destroy a shared receive queue (ISSI 0)
 * @dev: the device
 * @srqn: the SRQ's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_destroy_srq(struct cxib_dev *dev, u32 srqn)
{
	struct cxib_destroy_srq_in in = {};
	struct cxib_destroy_srq_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DESTROY_SRQ, 0);
	CXIB_SET(&in, CXIB_DESTROY_SRQ_IN_SRQN, srqn);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_cmd_arm_srq() - ARM_RQ (op_mod SRQ): arm an SRQ's limit event (ISSI 0)
 * @dev: the device
 * @srqn: the SRQ's number
 * @lwm: the limit: the event comes once fewer WQEs are posted
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_arm_srq(struct cxib_dev *dev, u32 srqn, u16 lwm)
{
	struct cxib_arm_rq_in in = {};
	struct cxib_arm_rq_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ);
	CXIB_SET(&in, CXIB_ARM_RQ_IN_SRQ_NUMBER, srqn);
	CXIB_SET(&in, CXIB_ARM_RQ_IN_LWM, lwm);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_cmd_query_srq() - QUERY_SRQ: read a shared receive queue's context (ISSI 0)
 * @dev: the device
 * @srqn: the SRQ's number
 * @srqc: the context (state, armed limit, ...)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_srq(struct cxib_dev *dev, u32 srqn, struct cxib_srqc *srqc)
{
	struct cxib_query_srq_in in = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_SRQ, 0);
	CXIB_SET(&in, CXIB_QUERY_SRQ_IN_SRQN, srqn);
	return cxib_cmd_query_queue(dev, &in, sizeof(in), CXIB_QUERY_SRQ_OUT_LEN,
				    CXIB_QUERY_SRQ_OUT_SRQC_OFFSET, srqc, sizeof(*srqc));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_srq);

/* ---- Receive memory pools: the basic SRQs of ISSI 1 ------------------------------------- */

/**
 * cxib_cmd_create_rmp() - CREATE_RMP: create a receive memory pool (an ISSI 1 basic SRQ)
 * @dev: the device
 * @rmpc: the RMP's context: state RDY, and in its wq the linked-list ring (size, stride,
 *	page size and offset), PD and doorbell record
 * @pas: bus addresses of the 4 KiB pages of the ring
 * @npas: number of pages
 * @rmpn: the new RMP's number, which QPs (srqn_rmpn_xrqn), CQEs and SRQ events carry
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_create_rmp(struct cxib_dev *dev, const struct cxib_rmpc *rmpc,
			const dma_addr_t *pas, u32 npas, u32 *rmpn)
{
	struct cxib_create_rmp_out out = {};
	int err;

	BUILD_BUG_ON(CXIB_CREATE_RMP_IN_LEN(0) != CXIB_CREATE_RMP_IN_PAS_OFFSET);
	BUILD_BUG_ON(CXIB_CREATE_RMP_IN_RMPC_OFFSET + sizeof(*rmpc) !=
		     CXIB_CREATE_RMP_IN_PAS_OFFSET);
	err = cxib_cmd_create_queue(dev, CXIB_CMD_OP_CREATE_RMP, rmpc, sizeof(*rmpc),
				    CXIB_CREATE_RMP_IN_RMPC_OFFSET, CXIB_CREATE_RMP_IN_PAS_OFFSET,
				    pas, npas, &out, sizeof(out));
	if (!err)
		*rmpn = CXIB_GET(&out, CXIB_CREATE_RMP_OUT_RMPN);
	return err;
}

/**
 * cxib_cmd_destroy_rmp() - DESTROY_RMP: destroy a receive memory pool
 * @dev: the device
 * @rmpn: the RMP's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_destroy_rmp(struct cxib_dev *dev, u32 rmpn)
{
	struct cxib_destroy_rmp_in in = {};
	struct cxib_destroy_rmp_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DESTROY_RMP, 0);
	CXIB_SET(&in, CXIB_DESTROY_RMP_IN_RMPN, rmpn);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_rmp_build_arm() - the input of MODIFY_RMP that sets an RMP's limit
 * @in: a zeroed input
 * @rmpn: the RMP
 * @lwm: the limit (0 disarms)
 *
 * An RDY RMP stays RDY (rmp_state the current state, the rmpc's state the next); the
 * bitmask selects the wq's lwm, the only field that changes.
 */
VISIBLE_IF_KUNIT void cxib_rmp_build_arm(struct cxib_modify_rmp_in *in, u32 rmpn, u16 lwm)
{
	struct cxib_rmpc *rmpc = (void *)in + CXIB_MODIFY_RMP_IN_RMPC_OFFSET;
	struct cxib_wqc *wq = cxib_rmpc_wq(rmpc);

	cxib_cmd_hdr(in, CXIB_CMD_OP_MODIFY_RMP, 0);
	CXIB_SET(in, CXIB_MODIFY_RMP_IN_RMP_STATE, CXIB_RMPC_STATE_RDY);
	CXIB_SET(in, CXIB_MODIFY_RMP_IN_RMPN, rmpn);
	CXIB_SET64(in, CXIB_MODIFY_RMP_IN_BITMASK, CXIB_RMP_BITMASK_LWM);
	CXIB_SET(rmpc, CXIB_RMPC_STATE, CXIB_RMPC_STATE_RDY);
	CXIB_SET(wq, CXIB_WQC_LWM, lwm);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_rmp_build_arm);

/**
 * cxib_cmd_arm_rmp() - MODIFY_RMP of the lwm: arm an RMP's limit event (ISSI 1's ARM_RQ)
 * @dev: the device
 * @rmpn: the RMP's number
 * @lwm: the limit: the event comes once fewer WQEs are posted
 *
 * Return: 0 or a negative errno (also when the RMP is in error: nothing leaves ERR).
 */
int cxib_cmd_arm_rmp(struct cxib_dev *dev, u32 rmpn, u16 lwm)
{
	struct cxib_modify_rmp_out out = {};
	struct cxib_modify_rmp_in *in;
	int err;

	BUILD_BUG_ON(CXIB_MODIFY_RMP_IN_RMPC_OFFSET + sizeof(struct cxib_rmpc) !=
		     sizeof(*in));
	in = kvzalloc(CXIB_MODIFY_RMP_IN_LEN, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_rmp_build_arm(in, rmpn, lwm);
	err = cxib_cmd_exec(dev, in, CXIB_MODIFY_RMP_IN_LEN, &out, sizeof(out));
	kvfree(in);
	return err;
}

/**
 * cxib_cmd_query_rmp() - QUERY_RMP: read a receive memory pool's context
 * @dev: the device
 * @rmpn: the RMP's number
 * @rmpc: the context (state; in the wq the armed lwm, ...)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_rmp(struct cxib_dev *dev, u32 rmpn, struct cxib_rmpc *rmpc)
{
	struct cxib_query_rmp_in in = {};

	BUILD_BUG_ON(CXIB_QUERY_RMP_OUT_RMPC_OFFSET + sizeof(*rmpc) != CXIB_QUERY_RMP_OUT_LEN);
	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_RMP, 0);
	CXIB_SET(&in, CXIB_QUERY_RMP_IN_RMPN, rmpn);
	return cxib_cmd_query_queue(dev, &in, sizeof(in), CXIB_QUERY_RMP_OUT_LEN,
				    CXIB_QUERY_RMP_OUT_RMPC_OFFSET, rmpc, sizeof(*rmpc));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_rmp);

/* ---- Multicast groups ------------------------------------------------------------------- */

/**
 * cxib_mcg_build_cmd() - the input of ATTACH_TO_MCG or DETACH_FROM_MCG
 * @in: CXIB_ATTACH_TO_MCG_IN_LEN zeroed bytes (both commands have the same layout)
 * @opcode: CXIB_CMD_OP_ATTACH_TO_MCG or CXIB_CMD_OP_DETACH_FROM_MCG
 * @qpn: the QP
 * @gid: the multicast GID, in network order
 */
VISIBLE_IF_KUNIT void cxib_mcg_build_cmd(void *in, u16 opcode, u32 qpn,
					 const union ib_gid *gid)
{
	BUILD_BUG_ON(CXIB_ATTACH_TO_MCG_IN_LEN != CXIB_DETACH_FROM_MCG_IN_LEN);
	BUILD_BUG_ON(CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET !=
		     CXIB_DETACH_FROM_MCG_IN_MULTICAST_GID_OFFSET);
	BUILD_BUG_ON(sizeof(gid->raw) != CXIB_MGID_LEN);

	cxib_cmd_hdr(in, opcode, 0);
	CXIB_SET(in, CXIB_ATTACH_TO_MCG_IN_QPN, qpn);
	memcpy(in + CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET, gid->raw, CXIB_MGID_LEN);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_mcg_build_cmd);

static int cxib_cmd_mcg(struct cxib_dev *dev, u16 opcode, u32 qpn, const union ib_gid *gid)
{
	struct cxib_attach_to_mcg_in in = {};
	struct cxib_attach_to_mcg_out out = {};

	BUILD_BUG_ON(CXIB_ATTACH_TO_MCG_OUT_LEN != CXIB_DETACH_FROM_MCG_OUT_LEN);
	cxib_mcg_build_cmd(&in, opcode, qpn, gid);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_cmd_attach_to_mcg() - ATTACH_TO_MCG: deliver a multicast group's packets to a QP
 * @dev: the device
 * @qpn: the QP's number
 * @gid: the group's GID
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_attach_to_mcg(struct cxib_dev *dev, u32 qpn, const union ib_gid *gid)
{
	return cxib_cmd_mcg(dev, CXIB_CMD_OP_ATTACH_TO_MCG, qpn, gid);
}

/**
 * cxib_cmd_detach_from_mcg() - DETACH_FROM_MCG: undo ATTACH_TO_MCG
 * @dev: the device
 * @qpn: the QP's number
 * @gid: the group's GID
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_detach_from_mcg(struct cxib_dev *dev, u32 qpn, const union ib_gid *gid)
{
	return cxib_cmd_mcg(dev, CXIB_CMD_OP_DETACH_FROM_MCG, qpn, gid);
}

/* ---- Q counters ------------------------------------------------------------------------- */

/**
 * cxib_cmd_alloc_q_counter() - ALLOC_Q_COUNTER: allocate a set of QP counters
 * @dev: the device
 * @id: the new set's counter_set_id
 *
 * "Not supported" (a device without Q counters) is logged at debug level only.
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_alloc_q_counter(struct cxib_dev *dev, u16 *id)
{
	struct cxib_alloc_q_counter_in in = {};
	struct cxib_alloc_q_counter_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_ALLOC_Q_COUNTER, 0);
	err = cxib_cmd_exec_flags(dev, &in, sizeof(in), &out, sizeof(out), CXIB_CMD_F_BAD_OP_OK);
	if (!err)
		*id = CXIB_GET(&out, CXIB_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID);
	return err;
}

/**
 * cxib_cmd_dealloc_q_counter() - DEALLOC_Q_COUNTER: free a set of QP counters
 * @dev: the device
 * @id: the set's counter_set_id
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_dealloc_q_counter(struct cxib_dev *dev, u16 id)
{
	struct cxib_dealloc_q_counter_in in = {};
	struct cxib_dealloc_q_counter_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DEALLOC_Q_COUNTER, 0);
	CXIB_SET(&in, CXIB_DEALLOC_Q_COUNTER_IN_COUNTER_SET_ID, id);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_q_counter_values() - counters from a QUERY_Q_COUNTER output
 * @out: the output
 * @dws: the dword of @out each counter is in (CXIB_Q_COUNTER_*), all below
 *	CXIB_QUERY_Q_COUNTER_OUT_LEN / 4
 * @n: number of counters
 * @values: the @n counters, in the order of @dws
 */
VISIBLE_IF_KUNIT void cxib_q_counter_values(const struct cxib_query_q_counter_out *out,
					    const u8 *dws, unsigned int n, u64 *values)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		values[i] = CXIB_GET(out, CXIB_Q_COUNTER_FIELD(dws[i]));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_q_counter_values);

/**
 * cxib_cmd_query_q_counter() - QUERY_Q_COUNTER: read a set of QP counters
 * @dev: the device
 * @id: the set's counter_set_id
 * @dws: the counters to read: the dword of the output each is in (CXIB_Q_COUNTER_*)
 * @n: number of counters
 * @values: the @n counters, in the order of @dws
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_q_counter(struct cxib_dev *dev, u16 id, const u8 *dws, unsigned int n,
			     u64 *values)
{
	struct cxib_query_q_counter_in in = {};
	struct cxib_query_q_counter_out *out;
	int err;

	out = kvzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_Q_COUNTER, 0);
	CXIB_SET(&in, CXIB_QUERY_Q_COUNTER_IN_COUNTER_SET_ID, id);
	err = cxib_cmd_exec(dev, &in, sizeof(in), out, sizeof(*out));
	if (!err)
		cxib_q_counter_values(out, dws, n, values);
	kvfree(out);
	return err;
}
