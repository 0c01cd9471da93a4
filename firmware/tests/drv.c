// SPDX-License-Identifier: GPL-2.0-or-later
/* The tests' tiny driver; see drv.h. */
#include <stdlib.h>
#include <string.h>

#include "drv.h"

struct drv_opts drv;

/* Which pages of the pool the device holds, by the test's own bookkeeping. */
static bool page_out[FAKE_PAGES_MAX];

void drv_reset(struct test_ctx *t)
{
	(void)t;
	memset(&drv, 0, sizeof(drv));
	memset(page_out, 0, sizeof(page_out));
}

void cmd_hdr(void *in, uint16_t opcode, uint16_t op_mod)
{
	CXIB_SET(in, CXIB_CMD_IN_OPCODE, opcode);
	CXIB_SET(in, CXIB_CMD_IN_OP_MOD, op_mod);
}

uint8_t out_status(const void *out)
{
	return (uint8_t)CXIB_GET(out, CXIB_CMD_OUT_STATUS);
}

uint64_t drv_mbox_addr(struct test_ctx *t, unsigned int slot, bool out, unsigned int k)
{
	/* input blocks from the bottom of the slot's area, output blocks from the middle */
	return t->fk.base + FAKE_MBOX_OFF + (uint64_t)slot * FAKE_MBOX_SLOT_SIZE +
	       (out ? FAKE_MBOX_SLOT_SIZE / 2 : 0) + (uint64_t)k * CXIB_CMD_MBOX_ALIGN;
}

static uint8_t token(void)
{
	return drv.token ? drv.token : DRV_TOKEN;
}

/* Build a chain of blocks for @len bytes (data from @data, or zero for output). */
static void build_chain(struct test_ctx *t, unsigned int slot, bool out, const uint8_t *data,
			uint32_t len)
{
	uint32_t n = CXIB_CMD_MBOX_BLOCKS(len), k, off, chunk;
	struct cxib_cmd_mailbox b;
	uint8_t *raw = (uint8_t *)&b;

	for (k = 0; k < n; k++) {
		uint64_t next = k + 1 < n ? drv_mbox_addr(t, slot, out, k + 1) : 0;

		memset(&b, 0, sizeof(b));
		off = CXIB_CMD_INLINE_LEN + k * CXIB_CMD_MBOX_DATA_LEN;
		chunk = len - off < CXIB_CMD_MBOX_DATA_LEN ? len - off : CXIB_CMD_MBOX_DATA_LEN;
		if (data)
			memcpy(b.data, data + off, chunk);
		else
			memset(b.data, 0xcc, sizeof(b.data));	/* stale: the device must write */
		CXIB_SET(&b, CXIB_CMD_MBOX_NEXT_PTR_H, (uint32_t)(next >> 32));
		CXIB_SET(&b, CXIB_CMD_MBOX_NEXT_PTR_L, (uint32_t)next >> 10);
		CXIB_SET(&b, CXIB_CMD_MBOX_BLOCK_NUMBER, k);
		CXIB_SET(&b, CXIB_CMD_MBOX_TOKEN, token());
		if (drv.sign) {
			raw[CXIB_CMD_MBOX_CTRL_SIG_END] =
				(uint8_t)~cxib_xor8(raw + CXIB_CMD_MBOX_CTRL_SIG_START,
						    CXIB_CMD_MBOX_CTRL_SIG_END -
						    CXIB_CMD_MBOX_CTRL_SIG_START);
			raw[CXIB_CMD_MBOX_SIG_END] = (uint8_t)~cxib_xor8(raw, CXIB_CMD_MBOX_SIG_END);
		}
		fake_mem_write(&t->fk, drv_mbox_addr(t, slot, out, k), &b, sizeof(b));
	}
}

void cmd_prepare(struct test_ctx *t, unsigned int slot, const void *in, uint32_t inlen,
		 uint32_t outlen)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint64_t inp = drv_mbox_addr(t, slot, false, 0), outp = drv_mbox_addr(t, slot, true, 0);
	uint8_t inl[CXIB_CMD_INLINE_LEN] = { 0 };
	struct cxib_cmd_queue_entry e;
	uint8_t *raw = (uint8_t *)&e;

	/* program the queue address if the test has not (or moved it) */
	if (rd32(t->dev, CXIB_OFFSET(CXIB_ISEG_CMDQ_ADDR_H)) != (uint32_t)(q >> 32) ||
	    (rd32(t->dev, CXIB_OFFSET(CXIB_ISEG_CMDQ_ADDR_L)) & 0xfffff000u) != (uint32_t)q)
		cmdq_setup(t->dev, q);
	memcpy(inl, in, inlen < sizeof(inl) ? inlen : sizeof(inl));
	memset(&e, 0, sizeof(e));
	CXIB_SET(&e, CXIB_CMD_ENTRY_TYPE, CXIB_CMD_TYPE_PCIE);
	CXIB_SET(&e, CXIB_CMD_ENTRY_INPUT_LENGTH, inlen);
	CXIB_SET(&e, CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR_H, (uint32_t)(inp >> 32));
	CXIB_SET(&e, CXIB_CMD_ENTRY_INPUT_MAILBOX_PTR_L, (uint32_t)inp >> 9);
	memcpy(e.in, inl, sizeof(inl));
	memset(e.out, 0xee, sizeof(e.out));		/* stale output */
	CXIB_SET(&e, CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR_H, (uint32_t)(outp >> 32));
	CXIB_SET(&e, CXIB_CMD_ENTRY_OUTPUT_MAILBOX_PTR_L, (uint32_t)outp >> 9);
	CXIB_SET(&e, CXIB_CMD_ENTRY_OUTPUT_LENGTH, outlen);
	CXIB_SET(&e, CXIB_CMD_ENTRY_TOKEN, token());
	CXIB_SET(&e, CXIB_CMD_ENTRY_OWNERSHIP, CXIB_CMD_OWNER_HW);
	if (drv.sign)
		raw[0x3d] = (uint8_t)~cxib_xor8(raw, sizeof(e));
	build_chain(t, slot, false, in, inlen);
	build_chain(t, slot, true, NULL, outlen);
	fake_mem_write(&t->fk, q + (uint64_t)slot * CXIB_CMD_ENTRY_SIZE, &e, sizeof(e));
}

void cmd_ring(struct test_ctx *t, uint32_t mask)
{
	wr32(t->dev, CXIB_OFFSET(CXIB_ISEG_CMD_DBELL), mask);
	cxfw_process(t->dev);
}

int cmd_collect(struct test_ctx *t, unsigned int slot, void *out, uint32_t outlen)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	struct cxib_cmd_queue_entry e;
	uint8_t *o = out;
	uint32_t k, off, chunk;
	int delivery;

	fake_mem_read(&t->fk, q + (uint64_t)slot * CXIB_CMD_ENTRY_SIZE, &e, sizeof(e));
	if (CXIB_GET(&e, CXIB_CMD_ENTRY_OWNERSHIP) != CXIB_CMD_OWNER_SW)
		return -1;
	delivery = (int)CXIB_GET(&e, CXIB_CMD_ENTRY_STATUS);
	if (delivery || !out)
		return delivery;
	memcpy(o, e.out, outlen < CXIB_CMD_INLINE_LEN ? outlen : CXIB_CMD_INLINE_LEN);
	for (k = 0; k < CXIB_CMD_MBOX_BLOCKS(outlen); k++) {
		struct cxib_cmd_mailbox b;

		fake_mem_read(&t->fk, drv_mbox_addr(t, slot, true, k), &b, sizeof(b));
		off = CXIB_CMD_INLINE_LEN + k * CXIB_CMD_MBOX_DATA_LEN;
		chunk = outlen - off < CXIB_CMD_MBOX_DATA_LEN ? outlen - off :
								 CXIB_CMD_MBOX_DATA_LEN;
		memcpy(o + off, b.data, chunk);
	}
	return 0;
}

int cmd_exec(struct test_ctx *t, const void *in, uint32_t inlen, void *out, uint32_t outlen)
{
	cmd_prepare(t, 0, in, inlen, outlen);
	cmd_ring(t, 1);
	return cmd_collect(t, 0, out, outlen);
}

/* Run @in/@out through slot 0: the output status, or 0x100 + delivery status. */
static unsigned int run(struct test_ctx *t, const void *in, uint32_t inlen, void *out,
			uint32_t outlen)
{
	int d = cmd_exec(t, in, inlen, out, outlen);

	if (d < 0)
		return 0x1ff;
	if (d)
		return 0x100 + (unsigned int)d;
	return out_status(out);
}

unsigned int cmd_simple(struct test_ctx *t, uint16_t opcode, uint16_t op_mod, uint32_t dw2,
			uint32_t dw3, void *out, uint32_t outlen)
{
	__be32 in[4] = { 0 };

	cmd_hdr(in, opcode, op_mod);
	in[2] = cxib_host_to_be32(dw2);
	in[3] = cxib_host_to_be32(dw3);
	return run(t, in, sizeof(in), out, outlen);
}

unsigned int drv_enable_hca(struct test_ctx *t)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 0, 0, out, CXIB_ENABLE_HCA_OUT_LEN);
}

unsigned int drv_disable_hca(struct test_ctx *t)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_DISABLE_HCA, 0, 0, 0, out, CXIB_DISABLE_HCA_OUT_LEN);
}

unsigned int drv_init_hca(struct test_ctx *t)
{
	__be32 in[CXIB_INIT_HCA_IN_LEN / 4] = { 0 }, out[4];

	cmd_hdr(in, CXIB_CMD_OP_INIT_HCA, 0);
	return run(t, in, sizeof(in), out, sizeof(out));
}

unsigned int drv_teardown_hca(struct test_ctx *t)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_TEARDOWN_HCA, 0, 0, 0, out, CXIB_TEARDOWN_HCA_OUT_LEN);
}

unsigned int drv_query_pages(struct test_ctx *t, uint16_t op_mod, int32_t *npages)
{
	__be32 out[4];
	unsigned int st = cmd_simple(t, CXIB_CMD_OP_QUERY_PAGES, op_mod, 0, 0, out, sizeof(out));

	if (!st)
		*npages = (int32_t)CXIB_GET(out, CXIB_QUERY_PAGES_OUT_NUM_PAGES);
	return st;
}

static uint64_t pool_addr(struct test_ctx *t, unsigned int i)
{
	return t->fk.base + FAKE_PAGES_OFF + (uint64_t)i * CXIB_ADAPTER_PAGE_SIZE;
}

unsigned int drv_give_pages(struct test_ctx *t, uint32_t n)
{
	uint32_t inlen = CXIB_MANAGE_PAGES_IN_LEN(n), k = 0, i;
	unsigned int picked[FAKE_PAGES_MAX], st;
	__be32 out[4];
	uint8_t *in = calloc(1, inlen);

	if (!in)
		return 0x1fe;
	cmd_hdr(in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_GIVE);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	for (i = 0; i < FAKE_PAGES_MAX && k < n; i++) {
		if (page_out[i])
			continue;
		picked[k] = i;
		CXIB_SET64(in + CXIB_MANAGE_PAGES_IN_PAS_OFFSET + 8 * k, 0, 63, 0,
			   pool_addr(t, i));
		k++;
	}
	if (k < n) {
		free(in);
		return 0x1fd;	/* pool exhausted: a test bug */
	}
	st = run(t, in, inlen, out, CXIB_MANAGE_PAGES_OUT_LEN(0));
	if (!st)
		for (i = 0; i < n; i++)
			page_out[picked[i]] = true;
	free(in);
	return st;
}

unsigned int drv_take_pages(struct test_ctx *t, uint32_t n, uint32_t *got)
{
	uint32_t outlen = CXIB_MANAGE_PAGES_OUT_LEN(n), i;
	__be32 in[4] = { 0 };
	uint8_t *out = calloc(1, outlen);
	unsigned int st;

	if (!out)
		return 0x1fe;
	cmd_hdr(in, CXIB_CMD_OP_MANAGE_PAGES, CXIB_MANAGE_PAGES_OP_MOD_TAKE);
	CXIB_SET(in, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES, n);
	st = run(t, in, sizeof(in), out, outlen);
	*got = 0;
	if (!st) {
		*got = CXIB_GET(out, CXIB_MANAGE_PAGES_OUT_OUTPUT_NUM_ENTRIES);
		if (*got > n)
			st = 0x1fc;
		for (i = 0; i < *got && !st; i++) {
			uint64_t a = CXIB_GET64(out + CXIB_MANAGE_PAGES_OUT_PAS_OFFSET + 8 * i,
						0, 63, 0);
			uint64_t idx = (a - t->fk.base - FAKE_PAGES_OFF) / CXIB_ADAPTER_PAGE_SIZE;

			/* must be a page the test gave and has not had back yet */
			if (a < pool_addr(t, 0) || idx >= FAKE_PAGES_MAX || !page_out[idx] ||
			    a != pool_addr(t, (unsigned int)idx))
				st = 0x1fb;
			else
				page_out[idx] = false;
		}
	}
	free(out);
	return st;
}

uint32_t drv_pages_out(void)
{
	uint32_t n = 0, i;

	for (i = 0; i < FAKE_PAGES_MAX; i++)
		n += page_out[i];
	return n;
}

unsigned int drv_query_cap(struct test_ctx *t, uint16_t op_mod, struct cxib_hca_cap *cap)
{
	uint8_t *out = calloc(1, CXIB_QUERY_HCA_CAP_OUT_LEN);
	unsigned int st;

	if (!out)
		return 0x1fe;
	st = cmd_simple(t, CXIB_CMD_OP_QUERY_HCA_CAP, op_mod, 0, 0, out,
			CXIB_QUERY_HCA_CAP_OUT_LEN);
	if (!st)
		memcpy(cap, out + CXIB_QUERY_HCA_CAP_OUT_CAPABILITY_OFFSET, sizeof(*cap));
	free(out);
	return st;
}

unsigned int drv_set_cap(struct test_ctx *t, const struct cxib_hca_cap *cap)
{
	uint8_t *in = calloc(1, CXIB_SET_HCA_CAP_IN_LEN);
	__be32 out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	cmd_hdr(in, CXIB_CMD_OP_SET_HCA_CAP, CXIB_HCA_CAP_TYPE_GENERAL << 1);
	memcpy(in + CXIB_SET_HCA_CAP_IN_CAPABILITY_OFFSET, cap, sizeof(*cap));
	st = run(t, in, CXIB_SET_HCA_CAP_IN_LEN, out, sizeof(out));
	free(in);
	return st;
}

unsigned int drv_alloc_uar(struct test_ctx *t, uint32_t *uar)
{
	__be32 out[4];
	unsigned int st = cmd_simple(t, CXIB_CMD_OP_ALLOC_UAR, 0, 0, 0, out, sizeof(out));

	if (!st)
		*uar = CXIB_GET(out, CXIB_ALLOC_UAR_OUT_UAR);
	return st;
}

unsigned int drv_bringup(struct test_ctx *t)
{
	__be32 in[CXIB_ACCESS_REG_IN_LEN(CXIB_REG_HOST_ENDIANNESS_LEN) / 4] = { 0 };
	__be32 out[CXIB_ACCESS_REG_OUT_LEN(CXIB_REG_HOST_ENDIANNESS_LEN) / 4];
	__be32 issi[CXIB_QUERY_ISSI_OUT_LEN / 4];
	struct cxib_hca_cap cur, max;
	unsigned int st;
	int32_t n;

	st = drv_enable_hca(t);
	if (!st)
		st = cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, issi, sizeof(issi));
	if (!st && (CXIB_GET(issi, CXIB_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0) & 2))
		st = cmd_simple(t, CXIB_CMD_OP_SET_ISSI, 0, CXIB_ISSI_1, 0, out, 16);
	if (!st)
		st = drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_BOOT, &n);
	if (!st && n > 0)
		st = drv_give_pages(t, (uint32_t)n);
	if (!st) {
		cmd_hdr(in, CXIB_CMD_OP_ACCESS_REG, CXIB_ACCESS_REG_OP_MOD_WRITE);
		CXIB_SET(in, CXIB_ACCESS_REG_IN_REGISTER_ID, CXIB_REG_HOST_ENDIANNESS);
		st = run(t, in, sizeof(in), out, sizeof(out));
	}
	if (!st)
		st = drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_CUR), &cur);
	if (!st)
		st = drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(0, CXIB_HCA_CAP_MODE_MAX), &max);
	if (!st) {
		/* what mlx5_core rewrites in the current caps before SET_HCA_CAP */
		CXIB_SET(cur.dw, CXIB_HCA_CAP_PKEY_TABLE_SIZE, 0);
		CXIB_SET(cur.dw, CXIB_HCA_CAP_LOG_MAX_QP,
			 CXIB_GET(max.dw, CXIB_HCA_CAP_LOG_MAX_QP) < 18 ?
			 CXIB_GET(max.dw, CXIB_HCA_CAP_LOG_MAX_QP) : 18);
		CXIB_SET(cur.dw, CXIB_HCA_CAP_CMDIF_CHECKSUM, 0);
		CXIB_SET(cur.dw, CXIB_HCA_CAP_DRAIN_SIGERR, 1);
		CXIB_SET(cur.dw, CXIB_HCA_CAP_LOG_UAR_PAGE_SZ, 0);
		st = drv_set_cap(t, &cur);
	}
	if (!st)
		st = drv_query_pages(t, CXIB_QUERY_PAGES_OP_MOD_INIT, &n);
	if (!st && n > 0)
		st = drv_give_pages(t, (uint32_t)n);
	if (!st)
		st = drv_init_hca(t);
	return st;
}

unsigned int drv_teardown(struct test_ctx *t)
{
	unsigned int st = drv_teardown_hca(t);
	uint32_t got = 1;

	while (!st && got)
		st = drv_take_pages(t, 768, &got);
	if (!st)
		st = drv_disable_hca(t);
	return st;
}

uint64_t drv_eq_buffer(struct test_ctx *t, uint32_t off, unsigned int log_size)
{
	uint64_t buf = t->fk.base + FAKE_EQ_OFF + off;
	struct cxib_eqe e;
	uint32_t i;

	memset(&e, 0, sizeof(e));
	e.owner = 1;
	for (i = 0; i < (1u << log_size); i++)
		fake_mem_write(&t->fk, buf + (uint64_t)i * sizeof(e), &e, sizeof(e));
	return buf;
}

unsigned int drv_create_eq(struct test_ctx *t, uint64_t buf, unsigned int log_size,
			   uint32_t uar, unsigned int intr, uint64_t events, uint32_t *eqn)
{
	uint32_t bytes = CXIB_EQE_SIZE << log_size;
	uint32_t npas = (bytes + CXIB_ADAPTER_PAGE_SIZE - 1) / CXIB_ADAPTER_PAGE_SIZE, i;
	uint32_t inlen = CXIB_CREATE_EQ_IN_LEN(npas);
	uint8_t *in = calloc(1, inlen);
	__be32 *eqc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	eqc = (__be32 *)(in + CXIB_CREATE_EQ_IN_EQC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_EQ, 0);
	CXIB_SET(eqc, CXIB_EQC_LOG_EQ_SIZE, log_size);
	CXIB_SET(eqc, CXIB_EQC_UAR_PAGE, uar);
	CXIB_SET(eqc, CXIB_EQC_INTR, intr);
	CXIB_SET64(in, CXIB_CREATE_EQ_IN_EVENT_BITMASK, events);
	for (i = 0; i < npas; i++)
		CXIB_SET64(in + CXIB_CREATE_EQ_IN_PAS_OFFSET + 8 * i, 0, 63, 0,
			   buf + (uint64_t)i * CXIB_ADAPTER_PAGE_SIZE);
	st = run(t, in, inlen, out, sizeof(out));
	if (!st)
		*eqn = CXIB_GET(out, CXIB_CREATE_EQ_OUT_EQ_NUMBER);
	free(in);
	return st;
}

unsigned int drv_destroy_eq(struct test_ctx *t, uint32_t eqn)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_DESTROY_EQ, 0, eqn, 0, out, sizeof(out));
}

void drv_eqe(struct test_ctx *t, uint64_t buf, uint32_t index, struct cxib_eqe *eqe)
{
	fake_mem_read(&t->fk, buf + (uint64_t)index * sizeof(*eqe), eqe, sizeof(*eqe));
}

void drv_eq_doorbell(struct test_ctx *t, uint32_t uar, uint32_t eqn, uint32_t ci, bool arm)
{
	uint32_t v = CXIB_FIELD_PREP(CXIB_EQ_DB_EQN, eqn) | CXIB_FIELD_PREP(CXIB_EQ_DB_CI, ci);

	wr32(t->dev, ((uint64_t)uar << CXIB_ADAPTER_PAGE_SHIFT) +
		     (arm ? CXIB_UAR_EQ_DOORBELL_ARM : CXIB_UAR_EQ_DOORBELL), v);
}

unsigned int drv_mad_ifc(struct test_ctx *t, unsigned int port, uint16_t op_mod,
			 const void *mad, void *resp)
{
	uint8_t in[CXIB_MAD_IFC_IN_LEN] = { 0 }, out[CXIB_MAD_IFC_OUT_LEN];
	unsigned int st;

	cmd_hdr(in, CXIB_CMD_OP_MAD_IFC, op_mod);
	CXIB_SET(in, CXIB_MAD_IFC_IN_PORT, port);
	memcpy(in + CXIB_MAD_IFC_IN_MAD_OFFSET, mad, CXIB_MAD_SIZE);
	st = run(t, in, sizeof(in), out, sizeof(out));
	if (!st)
		memcpy(resp, out + CXIB_MAD_IFC_OUT_RESPONSE_MAD_OFFSET, CXIB_MAD_SIZE);
	return st;
}

unsigned int drv_run(struct test_ctx *t, const void *in, uint32_t inlen, void *out,
		     uint32_t outlen)
{
	return run(t, in, inlen, out, outlen);
}

unsigned int drv_alloc_pd(struct test_ctx *t, uint32_t *pd)
{
	__be32 out[4];
	unsigned int st = cmd_simple(t, CXIB_CMD_OP_ALLOC_PD, 0, 0, 0, out,
				     CXIB_ALLOC_PD_OUT_LEN);

	if (!st)
		*pd = CXIB_GET(out, CXIB_ALLOC_PD_OUT_PD);
	return st;
}

unsigned int drv_dealloc_pd(struct test_ctx *t, uint32_t pd)
{
	__be32 out[4];

	return cmd_simple(t, CXIB_CMD_OP_DEALLOC_PD, 0, pd, 0, out, CXIB_DEALLOC_PD_OUT_LEN);
}
