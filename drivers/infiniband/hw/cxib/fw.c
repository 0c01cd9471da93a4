// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: one typed function per firmware command of the function's life cycle, firmware
 * pages, registers and capabilities, adapter and UARs, event queues and management
 * datagrams (PRM §3-4), built on the queue engine in cmd.c; and the parsing of the device
 * capabilities.  The commands of the verbs resources are in fw_verbs.c.
 *
 * Each function lays out its command with the accessors and layouts of include/cxib/cmd.h,
 * runs it, and returns what the output says in C types.  Callers never see a mailbox or
 * an opcode.  Every function sleeps.
 */

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxib.h"

/**
 * cxib_cmd_put_pas() - write a physical address list into a command's input
 * @in: the input
 * @offset: byte offset of the list in @in (CXIB_<CMD>_IN_PAS_OFFSET)
 * @pas: bus addresses of the 4 KiB pages
 * @npas: number of entries
 *
 * Every entry is one big-endian 64-bit address (CXIB_PAS_ENTRY_SIZE bytes); MANAGE_PAGES,
 * CREATE_EQ, CREATE_CQ, CREATE_QP and CREATE_SRQ carry such a list.
 */
void cxib_cmd_put_pas(void *in, size_t offset, const dma_addr_t *pas, u32 npas)
{
	__be64 *ent = in + offset;
	u32 i;

	BUILD_BUG_ON(sizeof(*ent) != CXIB_PAS_ENTRY_SIZE);
	for (i = 0; i < npas; i++)
		ent[i] = cpu_to_be64(pas[i]);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_put_pas);

/* Whether a command that failed with @err was answered "not supported" (status BAD_OP). */
static bool cxib_cmd_bad_op(int err, const void *out)
{
	return err && CXIB_GET(out, CXIB_CMD_OUT_STATUS) == CXIB_CMD_STAT_BAD_OP;
}

/* ---- Function life cycle ---------------------------------------------------------------- */

/**
 * cxib_cmd_enable_hca() - ENABLE_HCA: start the function's firmware context
 * @dev: the device
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_enable_hca(struct cxib_dev *dev)
{
	struct cxib_enable_hca_in in = {};
	struct cxib_enable_hca_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_ENABLE_HCA, 0);
	CXIB_SET(&in, CXIB_ENABLE_HCA_IN_FUNCTION_ID, 0);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_enable_hca);

/**
 * cxib_cmd_disable_hca() - DISABLE_HCA: stop the function's firmware context
 * @dev: the device
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_disable_hca(struct cxib_dev *dev)
{
	struct cxib_disable_hca_in in = {};
	struct cxib_disable_hca_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DISABLE_HCA, 0);
	CXIB_SET(&in, CXIB_DISABLE_HCA_IN_FUNCTION_ID, 0);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_disable_hca);

/**
 * cxib_cmd_query_issi() - QUERY_ISSI: the interface step sequence IDs the firmware speaks
 * @dev: the device
 * @supported: bitmap of supported ISSIs (bit n: ISSI n), first 32
 * @current_issi: the ISSI in use
 *
 * Return: 0; -EOPNOTSUPP if the firmware does not know the command (it then speaks ISSI 0);
 * another negative errno on failure.
 */
int cxib_cmd_query_issi(struct cxib_dev *dev, u32 *supported, u16 *current_issi)
{
	struct cxib_query_issi_in in = {};
	struct cxib_query_issi_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_ISSI, 0);
	err = cxib_cmd_exec_flags(dev, &in, sizeof(in), &out, sizeof(out), CXIB_CMD_F_BAD_OP_OK);
	if (cxib_cmd_bad_op(err, &out))
		return -EOPNOTSUPP;
	if (err)
		return err;
	*supported = CXIB_GET(&out, CXIB_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0);
	*current_issi = CXIB_GET(&out, CXIB_QUERY_ISSI_OUT_CURRENT_ISSI);
	return 0;
}

/**
 * cxib_cmd_set_issi() - SET_ISSI: select an interface step sequence ID
 * @dev: the device
 * @issi: CXIB_ISSI_*
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_set_issi(struct cxib_dev *dev, u16 issi)
{
	struct cxib_set_issi_in in = {};
	struct cxib_set_issi_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_SET_ISSI, 0);
	CXIB_SET(&in, CXIB_SET_ISSI_IN_CURRENT_ISSI, issi);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/**
 * cxib_cmd_init_hca() - INIT_HCA: bring the function to its operational state
 * @dev: the device, with capabilities set and the pages for initialization given
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_init_hca(struct cxib_dev *dev)
{
	struct cxib_init_hca_in in = {};
	struct cxib_init_hca_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_INIT_HCA, 0);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_init_hca);

/**
 * cxib_cmd_teardown_hca() - TEARDOWN_HCA: undo INIT_HCA
 * @dev: the device
 * @profile: CXIB_TEARDOWN_HCA_PROFILE_*
 *
 * Return: 0; -EIO if the firmware reports that a forced teardown failed; another negative
 * errno if the command failed.
 */
int cxib_cmd_teardown_hca(struct cxib_dev *dev, u16 profile)
{
	struct cxib_teardown_hca_in in = {};
	struct cxib_teardown_hca_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_TEARDOWN_HCA, 0);
	CXIB_SET(&in, CXIB_TEARDOWN_HCA_IN_PROFILE, profile);
	err = cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
	if (err)
		return err;
	if (profile != CXIB_TEARDOWN_HCA_PROFILE_GRACEFUL_CLOSE &&
	    CXIB_GET(&out, CXIB_TEARDOWN_HCA_OUT_STATE) != CXIB_TEARDOWN_HCA_STATE_SUCCESS)
		return -EIO;
	return 0;
}

#if IS_ENABLED(CONFIG_KUNIT)	/* only the KUnit suites run a NOP */
/**
 * cxib_cmd_nop() - NOP: a command that does nothing, to check the command path
 * @dev: the device
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_nop(struct cxib_dev *dev)
{
	struct cxib_nop_in in = {};
	struct cxib_nop_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_NOP, 0);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_nop);
#endif

/* ---- Pages ------------------------------------------------------------------------------ */

/**
 * cxib_cmd_query_pages() - QUERY_PAGES: how many pages the firmware wants
 * @dev: the device
 * @op_mod: CXIB_QUERY_PAGES_OP_MOD_* (boot, init or regular)
 * @func_id: the function the pages are for
 * @npages: pages to give (> 0) or that may be taken back (< 0)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_pages(struct cxib_dev *dev, u16 op_mod, u16 *func_id, s32 *npages)
{
	struct cxib_query_pages_in in = {};
	struct cxib_query_pages_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_PAGES, op_mod);
	err = cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
	if (err)
		return err;
	*func_id = CXIB_GET(&out, CXIB_QUERY_PAGES_OUT_FUNCTION_ID);
	*npages = (s32)CXIB_GET(&out, CXIB_QUERY_PAGES_OUT_NUM_PAGES);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_pages);

/**
 * cxib_cmd_give_pages() - MANAGE_PAGES (give): lend pages to the firmware
 * @dev: the device
 * @func_id: the function the pages are for
 * @pas: bus addresses of the 4 KiB pages
 * @npages: number of pages, at most CXIB_PAGES_PER_CMD
 *
 * Return: 0 when the firmware owns the pages; a negative errno when it took none.
 */
int cxib_cmd_give_pages(struct cxib_dev *dev, u16 func_id, const dma_addr_t *pas, u32 npages)
{
	struct cxib_manage_pages_out out = {};
	u32 inlen = CXIB_MANAGE_PAGES_IN_LEN(npages);
	struct cxib_manage_pages_in *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_cmd_hdr(in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_GIVE);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_FUNCTION_ID, func_id);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, npages);
	cxib_cmd_put_pas(in, CXIB_MANAGE_PAGES_IN_PAS_OFFSET, pas, npages);

	err = cxib_cmd_exec(dev, in, inlen, &out, sizeof(out));
	kvfree(in);
	return err;
}

/**
 * cxib_cmd_take_pages() - MANAGE_PAGES (take): ask the firmware to return pages
 * @dev: the device
 * @func_id: the function the pages were given for
 * @npages: how many pages to ask for, at most CXIB_PAGES_PER_CMD
 * @pas: room for @npages addresses; filled with those of the returned pages
 * @nreturned: number of pages returned, at most @npages
 *
 * Return: 0 or a negative errno (then no page was returned).
 */
int cxib_cmd_take_pages(struct cxib_dev *dev, u16 func_id, u32 npages, dma_addr_t *pas,
			u32 *nreturned)
{
	struct cxib_manage_pages_in in = {};
	u32 outlen = CXIB_MANAGE_PAGES_OUT_LEN(npages);
	const __be64 *list;
	struct cxib_manage_pages_out *out;
	u32 i, n;
	int err;

	out = kvzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	cxib_cmd_hdr(&in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_TAKE);
	CXIB_SET(&in, CXIB_MANAGE_PAGES_IN_FUNCTION_ID, func_id);
	CXIB_SET(&in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, npages);

	err = cxib_cmd_exec(dev, &in, sizeof(in), out, outlen);
	if (err)
		goto out;
	n = CXIB_GET(out, CXIB_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES);
	if (n > npages) {
		dev_err(&dev->pdev->dev,
			"MANAGE_PAGES (take) returned %u pages, %u were asked for\n", n, npages);
		err = -EPROTO;
		goto out;
	}
	list = (void *)out + CXIB_MANAGE_PAGES_OUT_PAS_OFFSET;
	for (i = 0; i < n; i++)
		pas[i] = be64_to_cpu(list[i]);
	*nreturned = n;
out:
	kvfree(out);
	return err;
}

/**
 * cxib_cmd_pages_alloc_failed() - MANAGE_PAGES (allocation failed): tell the firmware its
 *	request for pages cannot be met
 * @dev: the device
 * @func_id: the function that asked
 * @npages: the number of pages it asked for
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_pages_alloc_failed(struct cxib_dev *dev, u16 func_id, u32 npages)
{
	struct cxib_manage_pages_in in = {};
	struct cxib_manage_pages_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_ALLOC_FAIL);
	CXIB_SET(&in, CXIB_MANAGE_PAGES_IN_FUNCTION_ID, func_id);
	CXIB_SET(&in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, npages);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/* ---- Registers and capabilities --------------------------------------------------------- */

/**
 * cxib_cmd_access_reg() - ACCESS_REG: read or write a device register
 * @dev: the device
 * @op_mod: CXIB_ACCESS_REG_OP_MOD_READ or _WRITE
 * @reg_id: CXIB_REG_*
 * @arg: the register argument (usually 0)
 * @data_in: @len bytes of register data to send (for a read: the index fields)
 * @data_out: room for @len bytes of register data returned, or NULL
 * @len: the register's length in bytes (CXIB_REG_<NAME>_LEN)
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_access_reg(struct cxib_dev *dev, u16 op_mod, u16 reg_id, u32 arg,
			const void *data_in, void *data_out, u32 len)
{
	u32 inlen = CXIB_ACCESS_REG_IN_LEN(len), outlen = CXIB_ACCESS_REG_OUT_LEN(len);
	struct cxib_access_reg_in *in;
	struct cxib_access_reg_out *out;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	out = kvzalloc(outlen, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	cxib_cmd_hdr(in, CXIB_CMD_OP_ACCESS_REG, op_mod);
	CXIB_SET(in, CXIB_ACCESS_REG_IN_REGISTER_ID, reg_id);
	CXIB_SET(in, CXIB_ACCESS_REG_IN_ARGUMENT, arg);
	memcpy((void *)in + CXIB_ACCESS_REG_IN_DATA_OFFSET, data_in, len);

	err = cxib_cmd_exec(dev, in, inlen, out, outlen);
	if (!err && data_out)
		memcpy(data_out, (void *)out + CXIB_ACCESS_REG_OUT_DATA_OFFSET, len);
out:
	kvfree(out);
	kvfree(in);
	return err;
}

/**
 * cxib_cmd_set_host_endianness() - ACCESS_REG HOST_ENDIANNESS: tell the firmware the
 *	host's byte order (mandatory for a physical function)
 * @dev: the device
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_set_host_endianness(struct cxib_dev *dev)
{
	__be32 reg[CXIB_REG_HOST_ENDIANNESS_LEN / 4] = {};

	CXIB_SET(reg, CXIB_REG_HOST_ENDIANNESS_HE,
		 IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? CXIB_HOST_ENDIANNESS_BIG :
						     CXIB_HOST_ENDIANNESS_LITTLE);
	return cxib_cmd_access_reg(dev, CXIB_ACCESS_REG_OP_MOD_WRITE, CXIB_REG_HOST_ENDIANNESS,
				   0, reg, NULL, sizeof(reg));
}

/**
 * cxib_cmd_query_hca_cap() - QUERY_HCA_CAP: read one type of device capabilities
 * @dev: the device
 * @type: CXIB_HCA_CAP_TYPE_*
 * @mode: CXIB_HCA_CAP_MODE_CUR (in force) or CXIB_HCA_CAP_MODE_MAX (the most allowed)
 * @cap: where to put the first CXIB_HCA_CAP_SIZE bytes of the capabilities
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_hca_cap(struct cxib_dev *dev, u16 type, u16 mode, struct cxib_hca_cap *cap)
{
	struct cxib_query_hca_cap_in in = {};
	struct cxib_query_hca_cap_out *out;
	int err;

	out = kvzalloc(CXIB_QUERY_HCA_CAP_OUT_LEN, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_HCA_CAP, CXIB_HCA_CAP_OP_MOD(type, mode));
	err = cxib_cmd_exec(dev, &in, sizeof(in), out, CXIB_QUERY_HCA_CAP_OUT_LEN);
	if (!err)
		memcpy(cap, (void *)out + CXIB_QUERY_HCA_CAP_OUT_CAPABILITY_OFFSET, sizeof(*cap));
	kvfree(out);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_hca_cap);

/**
 * cxib_cmd_set_hca_cap() - SET_HCA_CAP: set the writable capabilities of one type
 * @dev: the device, not yet initialized (INIT_HCA)
 * @type: CXIB_HCA_CAP_TYPE_*
 * @cap: the capabilities: the current ones with the fields to change rewritten
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_set_hca_cap(struct cxib_dev *dev, u16 type, const struct cxib_hca_cap *cap)
{
	struct cxib_set_hca_cap_out out = {};
	struct cxib_set_hca_cap_in *in;
	int err;

	in = kvzalloc(CXIB_SET_HCA_CAP_IN_LEN, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	/* SET_HCA_CAP's op_mod is the type alone: the mode bit is 0. */
	cxib_cmd_hdr(in, CXIB_CMD_OP_SET_HCA_CAP, CXIB_HCA_CAP_OP_MOD(type, 0));
	memcpy((void *)in + CXIB_SET_HCA_CAP_IN_CAPABILITY_OFFSET, cap, sizeof(*cap));
	err = cxib_cmd_exec(dev, in, CXIB_SET_HCA_CAP_IN_LEN, &out, sizeof(out));
	kvfree(in);
	return err;
}

/**
 * cxib_caps_prepare_set() - the general capabilities cxib sets before INIT_HCA
 * @set: filled with the capabilities to write with SET_HCA_CAP
 * @cur: the current general capabilities
 * @max: the maximum general capabilities
 *
 * The current capabilities with the profile's fields rewritten (PRM §4.1 step 10): a
 * 128-entry P_Key table, at most 2^CXIB_PROFILE_LOG_MAX_QP QPs, no command checksums, UAR
 * pages of the system page size, CQE version 1 when the device supports it.
 */
void cxib_caps_prepare_set(struct cxib_hca_cap *set, const struct cxib_hca_cap *cur,
			   const struct cxib_hca_cap *max)
{
	u32 uar_4k;

	*set = *cur;
	CXIB_SET(set, CXIB_HCA_CAP_PKEY_TABLE_SIZE, CXIB_PROFILE_PKEY_TABLE_SIZE);
	CXIB_SET(set, CXIB_HCA_CAP_LOG_MAX_QP,
		 min_t(u32, CXIB_PROFILE_LOG_MAX_QP, CXIB_GET(max, CXIB_HCA_CAP_LOG_MAX_QP)));
	CXIB_SET(set, CXIB_HCA_CAP_CMDIF_CHECKSUM, CXIB_CAP_CMDIF_CHECKSUM_DISABLED);
	CXIB_SET(set, CXIB_HCA_CAP_LOG_UAR_PAGE_SZ, PAGE_SHIFT - CXIB_ADAPTER_PAGE_SHIFT);
	/* 4 KiB UARs inside larger system pages, where the device can do that */
	uar_4k = CXIB_GET(max, CXIB_HCA_CAP_UAR_4K);
	if (PAGE_SHIFT == CXIB_ADAPTER_PAGE_SHIFT)
		uar_4k = 0;
	CXIB_SET(set, CXIB_HCA_CAP_UAR_4K, uar_4k);
	/* CQE version 1 (user indexes in CQEs, what libmlx5 asks for) where the device has it */
	CXIB_SET(set, CXIB_HCA_CAP_CQE_VERSION,
		 min_t(u32, CXIB_CQE_VERSION_1, CXIB_GET(max, CXIB_HCA_CAP_CQE_VERSION)));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_caps_prepare_set);

/**
 * cxib_caps_parse() - extract what the driver uses from the general capabilities
 * @caps: filled in
 * @cap: the general capabilities, as QUERY_HCA_CAP returned them
 */
void cxib_caps_parse(struct cxib_caps *caps, const struct cxib_hca_cap *cap)
{
	memset(caps, 0, sizeof(*caps));
	caps->port_type = CXIB_GET(cap, CXIB_HCA_CAP_PORT_TYPE);
	caps->num_ports = CXIB_GET(cap, CXIB_HCA_CAP_NUM_PORTS);
	caps->page_request_disable = CXIB_GET(cap, CXIB_HCA_CAP_PAGE_REQUEST_DISABLE);
	caps->ib_virt = CXIB_GET(cap, CXIB_HCA_CAP_IB_VIRT);
	caps->rc = CXIB_GET(cap, CXIB_HCA_CAP_RC);
	caps->uc = CXIB_GET(cap, CXIB_HCA_CAP_UC);
	caps->ud = CXIB_GET(cap, CXIB_HCA_CAP_UD);
	caps->xrc = CXIB_GET(cap, CXIB_HCA_CAP_XRC);
	caps->atomic = CXIB_GET(cap, CXIB_HCA_CAP_ATOMIC);
	caps->bf = CXIB_GET(cap, CXIB_HCA_CAP_BF);
	caps->log_max_qp = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_QP);
	caps->log_max_qp_sz = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_QP_SZ);
	caps->log_max_srq = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_SRQ);
	caps->log_max_srq_sz = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_SRQ_SZ);
	caps->log_max_cq = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_CQ);
	caps->log_max_cq_sz = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_CQ_SZ);
	caps->log_max_eq = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_EQ);
	caps->log_max_eq_sz = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_EQ_SZ);
	caps->log_max_mkey = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_MKEY);
	caps->log_max_pd = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_PD);
	caps->log_max_xrcd = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_XRCD);
	caps->log_max_mrw_sz = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_MRW_SZ);
	caps->log_max_klm_list_size = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_KLM_LIST_SIZE);
	caps->log_max_ra_req_qp = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_RA_REQ_QP);
	caps->log_max_ra_res_qp = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_RA_RES_QP);
	caps->log_max_msg = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_MSG);
	caps->log_max_mcg = CXIB_GET(cap, CXIB_HCA_CAP_LOG_MAX_MCG);
	caps->log_pg_sz = CXIB_GET(cap, CXIB_HCA_CAP_LOG_PG_SZ);
	caps->log_bf_reg_size = CXIB_GET(cap, CXIB_HCA_CAP_LOG_BF_REG_SIZE);
	caps->local_ca_ack_delay = CXIB_GET(cap, CXIB_HCA_CAP_LOCAL_CA_ACK_DELAY);
	caps->cqe_version = CXIB_GET(cap, CXIB_HCA_CAP_CQE_VERSION);
	caps->ipoib_offloads = CXIB_GET(cap, CXIB_HCA_CAP_IPOIB_BASIC_OFFLOADS);
	caps->umr_ext_xlt_offset = CXIB_GET(cap, CXIB_HCA_CAP_UMR_EXTENDED_TRANSLATION_OFFSET);
	caps->umr_fixed_entity_size = CXIB_GET(cap, CXIB_HCA_CAP_UMR_MODIFY_ENTITY_SIZE_DISABLED);
	caps->cq_moderation = CXIB_GET(cap, CXIB_HCA_CAP_CQ_MODERATION);
	caps->gid_table_size = CXIB_GET(cap, CXIB_HCA_CAP_GID_TABLE_SIZE);
	caps->pkey_table_size = CXIB_GET(cap, CXIB_HCA_CAP_PKEY_TABLE_SIZE);
	caps->max_num_eqs = CXIB_GET(cap, CXIB_HCA_CAP_MAX_NUM_EQS);
	caps->max_wqe_sz_sq = CXIB_GET(cap, CXIB_HCA_CAP_MAX_WQE_SZ_SQ);
	caps->max_wqe_sz_rq = CXIB_GET(cap, CXIB_HCA_CAP_MAX_WQE_SZ_RQ);
	caps->max_qp_mcg = CXIB_GET(cap, CXIB_HCA_CAP_MAX_QP_MCG);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_caps_parse);

/**
 * cxib_caps_max_eqs() - how many EQs the device supports
 * @caps: the capabilities
 *
 * Return: max_num_eqs when the device reports it, else 2^log_max_eq.
 */
unsigned int cxib_caps_max_eqs(const struct cxib_caps *caps)
{
	return caps->max_num_eqs ?: 1u << caps->log_max_eq;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_caps_max_eqs);

/**
 * cxib_caps_pkey_table_len() - P_Key table length of a port
 * @caps: the capabilities
 *
 * Return: the number of P_Keys (pkey_table_size encodes 128 << n).
 */
unsigned int cxib_caps_pkey_table_len(const struct cxib_caps *caps)
{
	return CXIB_CAP_PKEY_TABLE_LEN(min_t(unsigned int, caps->pkey_table_size, 8));
}
EXPORT_SYMBOL_IF_KUNIT(cxib_caps_pkey_table_len);

/* ---- Adapter and UARs ------------------------------------------------------------------- */

/**
 * cxib_cmd_query_adapter() - QUERY_ADAPTER: the adapter's identity
 * @dev: the device
 * @board_id: room for CXIB_QUERY_ADAPTER_PSID_LEN + 1 bytes; the PSID, NUL terminated
 * @vendor_id: the IEEE vendor ID
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_query_adapter(struct cxib_dev *dev, char *board_id, u32 *vendor_id)
{
	struct cxib_query_adapter_in in = {};
	struct cxib_query_adapter_out *out;
	int err;

	out = kvzalloc(CXIB_QUERY_ADAPTER_OUT_LEN, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	cxib_cmd_hdr(&in, CXIB_CMD_OP_QUERY_ADAPTER, 0);
	err = cxib_cmd_exec(dev, &in, sizeof(in), out, CXIB_QUERY_ADAPTER_OUT_LEN);
	if (!err) {
		memcpy(board_id, (void *)out + CXIB_QUERY_ADAPTER_OUT_PSID_OFFSET,
		       CXIB_QUERY_ADAPTER_PSID_LEN);
		board_id[CXIB_QUERY_ADAPTER_PSID_LEN] = '\0';
		*vendor_id = CXIB_GET(out, CXIB_QUERY_ADAPTER_OUT_IEEE_VENDOR_ID);
	}
	kvfree(out);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_query_adapter);

/**
 * cxib_cmd_alloc_uar() - ALLOC_UAR: allocate a UAR page
 * @dev: the device
 * @uar: the UAR's index; the page is BAR0 + @uar * 4 KiB
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_alloc_uar(struct cxib_dev *dev, u32 *uar)
{
	struct cxib_alloc_uar_in in = {};
	struct cxib_alloc_uar_out out = {};
	int err;

	cxib_cmd_hdr(&in, CXIB_CMD_OP_ALLOC_UAR, 0);
	err = cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
	if (!err)
		*uar = CXIB_GET(&out, CXIB_ALLOC_UAR_OUT_UAR);
	return err;
}

/**
 * cxib_cmd_dealloc_uar() - DEALLOC_UAR: free a UAR page
 * @dev: the device
 * @uar: the UAR's index
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_dealloc_uar(struct cxib_dev *dev, u32 uar)
{
	struct cxib_dealloc_uar_in in = {};
	struct cxib_dealloc_uar_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DEALLOC_UAR, 0);
	CXIB_SET(&in, CXIB_DEALLOC_UAR_IN_UAR, uar);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/* ---- Event queues ----------------------------------------------------------------------- */

/**
 * cxib_cmd_create_eq() - CREATE_EQ: create an event queue
 * @dev: the device
 * @p: the EQ's size, UAR, interrupt vector, events and pages
 * @eqn: the new EQ's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_create_eq(struct cxib_dev *dev, const struct cxib_eq_params *p, u8 *eqn)
{
	struct cxib_create_eq_out out = {};
	u32 inlen = CXIB_CREATE_EQ_IN_LEN(p->npages);
	struct cxib_create_eq_in *in;
	struct cxib_eqc *eqc;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cxib_cmd_hdr(in, CXIB_CMD_OP_CREATE_EQ, 0);
	eqc = (void *)in + CXIB_CREATE_EQ_IN_EQC_OFFSET;
	CXIB_SET(eqc, CXIB_EQC_LOG_EQ_SIZE, p->log_size);
	CXIB_SET(eqc, CXIB_EQC_UAR_PAGE, p->uar);
	CXIB_SET(eqc, CXIB_EQC_INTR, p->vector);
	/* 4 KiB pages, the buffer starts at the start of its first page */
	CXIB_SET(eqc, CXIB_EQC_LOG_PAGE_SIZE, 0);
	CXIB_SET(eqc, CXIB_EQC_PAGE_OFFSET, 0);
	CXIB_SET64(in, CXIB_CREATE_EQ_IN_EVENT_BITMASK, p->event_mask);
	cxib_cmd_put_pas(in, CXIB_CREATE_EQ_IN_PAS_OFFSET, p->pas, p->npages);

	err = cxib_cmd_exec(dev, in, inlen, &out, sizeof(out));
	if (!err)
		*eqn = CXIB_GET(&out, CXIB_CREATE_EQ_OUT_EQ_NUMBER);
	kvfree(in);
	return err;
}

/**
 * cxib_cmd_destroy_eq() - DESTROY_EQ: destroy an event queue
 * @dev: the device
 * @eqn: the EQ's number
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_destroy_eq(struct cxib_dev *dev, u8 eqn)
{
	struct cxib_destroy_eq_in in = {};
	struct cxib_destroy_eq_out out = {};

	cxib_cmd_hdr(&in, CXIB_CMD_OP_DESTROY_EQ, 0);
	CXIB_SET(&in, CXIB_DESTROY_EQ_IN_EQ_NUMBER, eqn);
	return cxib_cmd_exec(dev, &in, sizeof(in), &out, sizeof(out));
}

/* ---- Management datagrams --------------------------------------------------------------- */

/**
 * cxib_cmd_mad_ifc() - MAD_IFC: hand a MAD to the firmware's management agents
 * @dev: the device
 * @port: the port the MAD arrives on
 * @op_mod: CXIB_MAD_IFC_* flags (which keys the firmware does not check)
 * @remote_lid: the SLID the MAD came from (0xffff, permissive, for the driver's own MADs)
 * @mad_in: the CXIB_MAD_SIZE-byte request
 * @mad_out: room for the CXIB_MAD_SIZE-byte response
 *
 * A MAD-level error is in the response's status; the command still succeeds.  Status
 * BAD_PKT means the firmware dropped the MAD without an answer (an M_Key violation, say):
 * a MAD from the wire can cause that, so it is logged at debug level only.
 *
 * Return: 0 with the response in @mad_out; -EBADMSG if the firmware dropped the MAD;
 * another negative errno if the command failed.
 */
int cxib_cmd_mad_ifc(struct cxib_dev *dev, u8 port, u16 op_mod, u16 remote_lid,
		     const void *mad_in, void *mad_out)
{
	struct cxib_mad_ifc_in *in;
	struct cxib_mad_ifc_out *out;
	int err;

	in = kvzalloc(CXIB_MAD_IFC_IN_LEN, GFP_KERNEL);
	out = kvzalloc(CXIB_MAD_IFC_OUT_LEN, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	cxib_cmd_hdr(in, CXIB_CMD_OP_MAD_IFC, op_mod);
	CXIB_SET(in, CXIB_MAD_IFC_IN_REMOTE_LID, remote_lid);
	CXIB_SET(in, CXIB_MAD_IFC_IN_PORT, port);
	memcpy((void *)in + CXIB_MAD_IFC_IN_MAD_OFFSET, mad_in, CXIB_MAD_SIZE);

	err = cxib_cmd_exec_flags(dev, in, CXIB_MAD_IFC_IN_LEN, out, CXIB_MAD_IFC_OUT_LEN,
				  CXIB_CMD_F_BAD_PKT_OK);
	/* @out was zeroed: its status is the firmware's only if the command executed. */
	if (err && CXIB_GET(out, CXIB_CMD_OUT_STATUS) == CXIB_CMD_STAT_BAD_PKT)
		err = -EBADMSG;
	if (!err)
		memcpy(mad_out, (void *)out + CXIB_MAD_IFC_OUT_RESPONSE_MAD_OFFSET, CXIB_MAD_SIZE);
out:
	kvfree(out);
	kvfree(in);
	return err;
}
