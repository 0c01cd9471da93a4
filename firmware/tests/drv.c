// SPDX-License-Identifier: GPL-2.0-or-later
/* The tests' tiny driver; see drv.h. */
#include <stdlib.h>
#include <string.h>

#include "drv.h"

struct drv_opts drv;

/* Which pages of the pool the device holds, by the test's own bookkeeping. */
static bool page_out[FAKE_PAGES_MAX];

/* Devices and the cable a drv_world made besides the fixture; freed at the next reset. */
static struct test_ctx *extra_node[DRV_MAX_NODES];
static struct fake_cable *extra_cable;
static struct drv_cq world_cq[DRV_MAX_NODES];

static void drv_free_extras(void)
{
	unsigned int i;

	fake_cable_free(extra_cable);
	extra_cable = NULL;
	for (i = 0; i < DRV_MAX_NODES; i++) {
		if (!extra_node[i])
			continue;
		cxfw_destroy(extra_node[i]->dev);
		fake_fini(&extra_node[i]->fk);
		free(extra_node[i]);
		extra_node[i] = NULL;
	}
}

void drv_reset(struct test_ctx *t)
{
	(void)t;
	memset(&drv, 0, sizeof(drv));
	memset(page_out, 0, sizeof(page_out));
	drv_free_extras();
}

/* The host tests and the model benchmark share it: both link this file and fake.c. */
bool test_recreate(struct test_ctx *t, const struct cxfw_config *cfg, uint64_t mem_base)
{
	struct cxfw_platform plat;

	cxfw_destroy(t->dev);
	t->dev = NULL;
	fake_fini(&t->fk);
	if (fake_init(&t->fk, mem_base, FAKE_MEM_SIZE))
		return false;
	fake_platform(&t->fk, &plat);
	drv_reset(t);
	t->dev = cxfw_create(cfg, &plat);
	return t->dev != NULL;
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
		if (drv.sign)
			cxib_cmd_mbox_sign(&b);
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
		cxib_cmd_entry_sign(&e);
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
		CXIB_SET64(in + CXIB_MANAGE_PAGES_IN_PAS_OFFSET + 8 * k, CXIB_PAS_ENTRY_PA,
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
	return drv_set_cap_type(t, CXIB_HCA_CAP_TYPE_GENERAL, cap);
}

unsigned int drv_set_cap_type(struct test_ctx *t, uint16_t type, const struct cxib_hca_cap *cap)
{
	uint8_t *in = calloc(1, CXIB_SET_HCA_CAP_IN_LEN);
	__be32 out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	cmd_hdr(in, CXIB_CMD_OP_SET_HCA_CAP, CXIB_HCA_CAP_OP_MOD(type, 0));
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
		CXIB_SET(cur.dw, CXIB_HCA_CAP_CQE_VERSION, drv_cqe_version);
		st = drv_set_cap(t, &cur);
	}
	/* as mlx5_core: atomic results in host order when the device can */
	if (!st && CXIB_GET(cur.dw, CXIB_HCA_CAP_ATOMIC))
		st = drv_query_cap(t, CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ATOMIC,
							  CXIB_HCA_CAP_MODE_CUR), &cur);
	if (!st && drv_atomic_req_mode == CXIB_ATOMIC_REQ_MODE_HOST &&
	    CXIB_GET(cur.dw, CXIB_ATOMIC_CAP_SUPPORTED_REQ_8B_ENDIANNESS_MODE_1)) {
		CXIB_SET(cur.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE, CXIB_ATOMIC_REQ_MODE_HOST);
		st = drv_set_cap_type(t, CXIB_HCA_CAP_TYPE_ATOMIC, &cur);
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
		CXIB_SET64(in + CXIB_CREATE_EQ_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
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

/* ==== data path mini driver ============================================================ */

#define DRV_EVENTS	((1ull << CXIB_EVENT_TYPE_CQ_ERROR) |			\
			 (1ull << CXIB_EVENT_TYPE_COMM_EST) |			\
			 (1ull << CXIB_EVENT_TYPE_SQ_DRAINED) |			\
			 (1ull << CXIB_EVENT_TYPE_WQ_CATAS_ERROR) |		\
			 (1ull << CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR) |		\
			 (1ull << CXIB_EVENT_TYPE_WQ_ACCESS_ERROR) |		\
			 (1ull << CXIB_EVENT_TYPE_SRQ_CATAS_ERROR) |		\
			 (1ull << CXIB_EVENT_TYPE_SRQ_LAST_WQE) |		\
			 (1ull << CXIB_EVENT_TYPE_SRQ_RQ_LIMIT) |		\
			 (1ull << CXIB_EVENT_TYPE_PORT_CHANGE))
#define DRV_PUMP_ROUNDS	20000
#define DRV_RC_LOG_MSG	30
#define DRV_UD_LOG_MSG	12
#define DRV_LOG_ACK_REQ	8		/* what mlx5_ib puts in log_ack_req_freq */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static unsigned int drv_node_up(struct drv_node *n, struct test_ctx *t, unsigned int idx)
{
	unsigned int st;

	memset(n, 0, sizeof(*n));
	n->t = t;
	n->idx = idx;
	n->mkey_variant = (uint8_t)(0x31 + 0x40 * idx);
	n->q_next = t->fk.base + DRV_CQ_OFF;
	n->dbr_next = t->fk.base + DRV_DBR_OFF;
	n->data_next = t->fk.base + DRV_DATA_OFF;
	st = drv_bringup(t);
	if (!st)
		st = drv_alloc_uar(t, &n->uar);
	n->eq_buf = drv_eq_buffer(t, 0, DRV_EQ_LOG);
	if (!st)
		st = drv_create_eq(t, n->eq_buf, DRV_EQ_LOG, n->uar, 0, DRV_EVENTS, &n->eqn);
	if (!st)
		drv_eq_doorbell(t, n->uar, n->eqn, 0, true);
	if (!st)
		st = drv_alloc_pd(t, &n->pd);
	return st;
}

static void drv_node_cfg(struct cxfw_config *cfg, unsigned int idx)
{
	cxfw_config_defaults(cfg);
	cfg->serial = DRV_SERIAL(idx);
	cfg->auto_activate = !drv.sm;
}

unsigned int drv_smp(struct test_ctx *t, uint8_t method, uint16_t attr, uint32_t mod,
		     uint16_t op_mod, uint8_t data[CXIB_SMP_DATA_SIZE])
{
	uint8_t req[CXIB_MAD_SIZE] = { 0 }, resp[CXIB_MAD_SIZE];
	unsigned int st;

	CXIB_SET(req, CXIB_MAD_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(req, CXIB_MAD_MGMT_CLASS, CXIB_MGMT_CLASS_SUBN_LID_ROUTED);
	CXIB_SET(req, CXIB_MAD_CLASS_VERSION, CXIB_SMP_CLASS_VERSION);
	CXIB_SET(req, CXIB_MAD_METHOD, method);
	CXIB_SET64(req, CXIB_MAD_TID, 0x5a5a0000u | attr);
	CXIB_SET(req, CXIB_MAD_ATTR_ID, attr);
	CXIB_SET(req, CXIB_MAD_ATTR_MOD, mod);
	memcpy(req + CXIB_SMP_DATA_OFFSET, data, CXIB_SMP_DATA_SIZE);
	st = drv_mad_ifc(t, 1, op_mod, req, resp);
	if (st)
		return st;
	memcpy(data, resp + CXIB_SMP_DATA_OFFSET, CXIB_SMP_DATA_SIZE);
	st = CXIB_GET(resp, CXIB_MAD_STATUS) & ~CXIB_SMP_DIRECTION;
	return st ? 0x1000 + st : 0;
}

unsigned int drv_sm_activate(struct test_ctx *t, uint16_t lid, uint16_t sm_lid)
{
	const uint16_t ign = CXIB_MAD_IFC_IGNORE_MKEY | CXIB_MAD_IFC_IGNORE_BKEY;
	static const uint8_t states[] = { CXIB_PORT_STATE_NOP, CXIB_PORT_STATE_ARMED,
					  CXIB_PORT_STATE_ACTIVE };
	uint8_t pi[CXIB_SMP_DATA_SIZE] = { 0 };
	unsigned int st, i;

	st = drv_smp(t, CXIB_MGMT_METHOD_GET, CXIB_SMP_ATTR_PORT_INFO, 1, ign, pi);
	for (i = 0; !st && i < sizeof(states); i++) {
		CXIB_SET(pi, CXIB_SMP_PORT_INFO_LID, lid);
		CXIB_SET(pi, CXIB_SMP_PORT_INFO_MASTER_SM_LID, sm_lid);
		CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_STATE, states[i]);
		CXIB_SET(pi, CXIB_SMP_PORT_INFO_PORT_PHYS_STATE, 0);
		st = drv_smp(t, CXIB_MGMT_METHOD_SET, CXIB_SMP_ATTR_PORT_INFO, 1, ign, pi);
	}
	return st;
}

/* Port 1's LID and GUID as mlx5_ib learns them; 0 or a status (0x1ef: port not ACTIVE). */
static unsigned int drv_node_port(struct drv_node *n)
{
	uint8_t out[CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_LEN];
	const __be32 *ctx = (const __be32 *)(out + CXIB_QUERY_HCA_VPORT_CONTEXT_OUT_CONTEXT_OFFSET);
	unsigned int st = cmd_simple(n->t, CXIB_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 0, 0, out,
				     sizeof(out));

	if (st)
		return st;
	if (CXIB_GET(ctx, CXIB_HCA_VPORT_CTX_PORT_STATE) != CXIB_PORT_STATE_ACTIVE)
		return 0x1ef;
	n->lid = (uint16_t)CXIB_GET(ctx, CXIB_HCA_VPORT_CTX_LID);
	n->guid = CXIB_GET64(ctx, CXIB_HCA_VPORT_CTX_PORT_GUID);
	return 0;
}

unsigned int drv_cqe_version;
unsigned int drv_atomic_req_mode = CXIB_ATOMIC_REQ_MODE_HOST;

unsigned int drv_world_init(struct test_ctx *t, struct drv_world *w, unsigned int nnodes)
{
	struct cxfw_config cfg;
	struct cxfw_platform plat;
	bool sm = drv.sm;		/* test_recreate() resets drv */
	unsigned int i, st;

	memset(w, 0, sizeof(*w));
	if (nnodes < 1 || nnodes > DRV_MAX_NODES)
		return 0x1f0;
	w->nnodes = nnodes;
	drv_node_cfg(&cfg, 0);
	if (!test_recreate(t, &cfg, FAKE_MEM_BASE))	/* frees last test's extras */
		return 0x1f1;
	drv.sm = sm;
	for (i = 1; i < nnodes; i++) {
		struct test_ctx *x = calloc(1, sizeof(*x));

		if (!x)
			return 0x1fe;
		extra_node[i] = x;
		if (fake_init(&x->fk, DRV_NODE1_BASE * i, FAKE_MEM_SIZE))
			return 0x1fe;
		fake_platform(&x->fk, &plat);
		drv_node_cfg(&cfg, i);
		x->dev = cxfw_create(&cfg, &plat);
		if (!x->dev)
			return 0x1f1;
	}
	for (i = 0; i < nnodes; i++) {
		st = drv_node_up(&w->n[i], i ? extra_node[i] : t, i);
		if (st)
			return st;
		w->cq[i] = &world_cq[i];
		st = drv_cq_create(&w->n[i], 8, w->cq[i]);
		if (st)
			return st;
	}
	extra_cable = fake_cable_new();
	if (!extra_cable)
		return 0x1fe;
	w->cable = extra_cable;
	for (i = 0; i < nnodes; i++)
		fake_cable_plug(w->cable, i, &w->n[i].t->fk, w->n[i].t->dev);
	drv_pump(w);
	for (i = 0; drv.sm && i < nnodes; i++) {
		st = drv_sm_activate(w->n[i].t, DRV_SM_LID + i, DRV_SM_LID);
		if (st)
			return st;
	}
	for (i = 0; i < nnodes; i++) {
		st = drv_node_port(&w->n[i]);
		if (st)
			return st;
	}
	return 0;
}

int drv_pump(struct drv_world *w)
{
	return fake_cable_pump(w->cable, DRV_PUMP_ROUNDS);
}

int drv_pump_time(struct drv_world *w, uint64_t step_ns, uint64_t total_ns)
{
	return fake_cable_pump_time(w->cable, step_ns, total_ns) < 0 ? -1 : 0;
}

/* ---- memory ---- */

uint64_t drv_alloc_data(struct drv_node *n, uint64_t len)
{
	uint64_t a = n->data_next;

	n->data_next = align_up(a + (len ? len : 1), DRV_PAGE);
	if (n->data_next > n->t->fk.base + n->t->fk.size)
		abort();	/* the test asked for more than the data area: a test bug */
	return a;
}

static uint64_t drv_alloc_q(struct drv_node *n, uint64_t len)
{
	uint64_t a = n->q_next;

	n->q_next = align_up(a + len, DRV_PAGE);
	if (n->q_next > n->t->fk.base + DRV_DBR_OFF)
		abort();
	return a;
}

static uint64_t drv_alloc_dbr(struct drv_node *n)
{
	uint64_t a = n->dbr_next;

	n->dbr_next += 64;
	if (n->dbr_next > n->t->fk.base + DRV_DATA_OFF)
		abort();
	fake_mem_write(&n->t->fk, a, (uint8_t[8]){ 0 }, 8);
	return a;
}

void drv_mem_write(struct drv_node *n, uint64_t pa, const void *buf, size_t len)
{
	fake_mem_write(&n->t->fk, pa, buf, len);
}

void drv_mem_read(struct drv_node *n, uint64_t pa, void *buf, size_t len)
{
	fake_mem_read(&n->t->fk, pa, buf, len);
}

void drv_mem_fill(struct drv_node *n, uint64_t pa, uint8_t byte, size_t len)
{
	uint8_t *b = malloc(len ? len : 1);

	if (!b)
		abort();
	memset(b, byte, len);
	fake_mem_write(&n->t->fk, pa, b, len);
	free(b);
}

void drv_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 12345;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345;
		buf[i] = (uint8_t)(x >> 16);
	}
}

/* ---- memory keys ---- */

static unsigned int drv_mkey(struct drv_node *n, uint32_t pd, uint32_t mode, uint64_t pa,
			     uint64_t va, uint64_t len, unsigned int access, struct drv_mr *mr)
{
	uint32_t npages = mode == CXIB_MKC_ACCESS_MODE_MTT ?
			  (uint32_t)(align_up(len, DRV_PAGE) / DRV_PAGE) : 0;
	uint32_t nmtt = (npages + 1) / 2 * 2, inlen = CXIB_CREATE_MKEY_IN_LEN(nmtt), i;
	uint8_t *in = calloc(1, inlen), variant = n->mkey_variant++;
	__be32 *mkc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	mkc = (__be32 *)(in + CXIB_CREATE_MKEY_IN_MKC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_MKEY, 0);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_1_0, mode & 3);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_4_2, mode >> 2);
	CXIB_SET(mkc, CXIB_MKC_LR, !!(access & DRV_LR));
	CXIB_SET(mkc, CXIB_MKC_LW, !!(access & DRV_LW));
	CXIB_SET(mkc, CXIB_MKC_RR, !!(access & DRV_RR));
	CXIB_SET(mkc, CXIB_MKC_RW, !!(access & DRV_RW));
	CXIB_SET(mkc, CXIB_MKC_A, !!(access & DRV_A));
	CXIB_SET(mkc, CXIB_MKC_QPN, CXIB_MKC_QPN_NONE);
	CXIB_SET(mkc, CXIB_MKC_MKEY_7_0, variant);
	CXIB_SET(mkc, CXIB_MKC_PD, pd);
	CXIB_SET(mkc, CXIB_MKC_EN_RINVAL, !(access & DRV_NO_RINVAL));
	if (mode == CXIB_MKC_ACCESS_MODE_PA) {
		CXIB_SET(mkc, CXIB_MKC_LENGTH64, 1);
	} else {
		CXIB_SET64(mkc, CXIB_MKC_START_ADDR, va);
		CXIB_SET64(mkc, CXIB_MKC_LEN, len);
		CXIB_SET(mkc, CXIB_MKC_LOG_PAGE_SIZE, 12);
		CXIB_SET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE, nmtt / 2);
		CXIB_SET(in, CXIB_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE, nmtt / 2);
		for (i = 0; i < npages; i++)
			CXIB_SET64(in + CXIB_CREATE_MKEY_IN_KLM_PAS_MTT_OFFSET + 8 * i,
				   CXIB_MTT_ENTRY_PTAG, pa + (uint64_t)i * DRV_PAGE);
	}
	st = drv_run(n->t, in, inlen, out, sizeof(out));
	if (!st) {
		mr->idx = CXIB_GET(out, CXIB_CREATE_MKEY_OUT_MKEY_INDEX);
		mr->key = CXIB_MKEY(mr->idx, variant);
		mr->pa = pa;
		mr->va = va;
		mr->len = len;
	}
	free(in);
	return st;
}

unsigned int drv_mr_create(struct drv_node *n, uint32_t pd, uint64_t pa, uint64_t len,
			   unsigned int access, struct drv_mr *mr)
{
	/* a VA unrelated to the PA, so a model that skips translation is caught */
	return drv_mkey(n, pd, CXIB_MKC_ACCESS_MODE_MTT, pa,
			DRV_VA_BASE + (pa - n->t->fk.base) * 2, len, access, mr);
}

unsigned int drv_mr_alloc(struct drv_node *n, uint64_t len, unsigned int access,
			  struct drv_mr *mr)
{
	return drv_mr_create(n, n->pd, drv_alloc_data(n, len), len, access, mr);
}

unsigned int drv_mr_pa(struct drv_node *n, unsigned int access, struct drv_mr *mr)
{
	return drv_mkey(n, n->pd, CXIB_MKC_ACCESS_MODE_PA, 0, 0, 0, access, mr);
}

unsigned int drv_mr_destroy(struct drv_node *n, struct drv_mr *mr)
{
	__be32 out[4];

	return cmd_simple(n->t, CXIB_CMD_OP_DESTROY_MKEY, 0, mr->idx, 0, out, 16);
}

uint64_t drv_mr_pa_of(const struct drv_mr *mr, uint64_t va)
{
	return mr->pa + (va - mr->va);
}

/* ---- CQs and events ---- */

unsigned int drv_cq_create(struct drv_node *n, unsigned int log_size, struct drv_cq *cq)
{
	uint64_t bytes = (uint64_t)CXIB_CQE_SIZE << log_size;
	uint32_t npas = (uint32_t)(align_up(bytes, DRV_PAGE) / DRV_PAGE), i;
	uint32_t inlen = CXIB_CREATE_CQ_IN_LEN(npas);
	uint8_t *in = calloc(1, inlen), cqe[CXIB_CQE_SIZE];
	__be32 *cqc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	memset(cq, 0, sizeof(*cq));
	cq->log_size = log_size;
	cq->buf = drv_alloc_q(n, bytes);
	cq->dbr = drv_alloc_dbr(n);
	memset(cqe, 0, sizeof(cqe));
	cqe[CXIB_CQE_OP_OWN_OFFSET] = CXIB_CQE_OPCODE_INVALID << 4;
	for (i = 0; i < (1u << log_size); i++)
		fake_mem_write(&n->t->fk, cq->buf + (uint64_t)i * CXIB_CQE_SIZE, cqe, sizeof(cqe));
	cqc = (__be32 *)(in + CXIB_CREATE_CQ_IN_CQC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_CQ, 0);
	CXIB_SET(cqc, CXIB_CQC_CQE_SZ, CXIB_CQC_CQE_SZ_64);
	CXIB_SET(cqc, CXIB_CQC_LOG_CQ_SIZE, log_size);
	CXIB_SET(cqc, CXIB_CQC_UAR_PAGE, n->uar);
	CXIB_SET(cqc, CXIB_CQC_C_EQN, n->eqn);
	CXIB_SET64(cqc, CXIB_CQC_DBR_ADDR, cq->dbr);
	for (i = 0; i < npas; i++)
		CXIB_SET64(in + CXIB_CREATE_CQ_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   cq->buf + (uint64_t)i * DRV_PAGE);
	st = drv_run(n->t, in, inlen, out, sizeof(out));
	if (!st)
		cq->cqn = CXIB_GET(out, CXIB_CREATE_CQ_OUT_CQN);
	free(in);
	return st;
}

int drv_poll(struct drv_node *n, struct drv_cq *cq, struct cxib_cqe64 *cqe)
{
	uint32_t slot = cq->ci & ((1u << cq->log_size) - 1);
	uint8_t b[4];

	fake_mem_read(&n->t->fk, cq->buf + (uint64_t)slot * CXIB_CQE_SIZE, cqe, sizeof(*cqe));
	if (CXIB_GET(cqe, CXIB_CQE_OPCODE) == CXIB_CQE_OPCODE_INVALID ||
	    CXIB_GET(cqe, CXIB_CQE_OWNER) != ((cq->ci >> cq->log_size) & 1))
		return 0;
	cq->ci++;
	put_be32(b, cq->ci & 0xffffff);
	fake_mem_write(&n->t->fk, cq->dbr, b, 4);
	return 1;
}

unsigned int drv_poll_many(struct drv_node *n, struct drv_cq *cq, struct cxib_cqe64 *cqes,
			   unsigned int want)
{
	unsigned int got = 0;

	while (got < want && drv_poll(n, cq, &cqes[got]))
		got++;
	return got;
}

void drv_cq_arm(struct drv_node *n, struct drv_cq *cq, bool solicited)
{
	uint32_t dw0 = CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_SN, cq->arm_sn & 3) |
		       CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CMD, solicited ?
				       CXIB_CQ_DB_CMD_REQ_NOT_SOL : CXIB_CQ_DB_CMD_REQ_NOT) |
		       CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CI, cq->ci & 0xffffff);
	uint32_t dw1 = CXIB_FIELD_PREP(CXIB_CQ_UAR_DB_CQN, cq->cqn);
	uint8_t b[4];

	put_be32(b, dw0);
	fake_mem_write(&n->t->fk, cq->dbr + 4, b, 4);
	cxfw_mmio_write(n->t->dev, ((uint64_t)n->uar << CXIB_ADAPTER_PAGE_SHIFT) +
			CXIB_UAR_CQ_DOORBELL,
			(uint64_t)__builtin_bswap32(dw0) | (uint64_t)__builtin_bswap32(dw1) << 32,
			8);
}

int drv_next_event(struct drv_node *n, struct cxib_eqe *eqe)
{
	drv_eqe(n->t, n->eq_buf, n->eq_ci & ((1u << DRV_EQ_LOG) - 1), eqe);
	if ((eqe->owner & 1) != ((n->eq_ci >> DRV_EQ_LOG) & 1))
		return -1;
	n->eq_ci++;
	drv_eq_doorbell(n->t, n->uar, n->eqn, n->eq_ci & 0xffffff, true);
	return eqe->type;
}

int drv_find_event(struct drv_node *n, unsigned int type, struct cxib_eqe *eqe)
{
	int ty;

	while ((ty = drv_next_event(n, eqe)) >= 0)
		if ((unsigned int)ty == type)
			return 1;
	return 0;
}

/* ---- SRQ ---- */

unsigned int drv_srq_create(struct drv_node *n, unsigned int log_size, unsigned int stride,
			    struct drv_srq *srq)
{
	uint64_t bytes = (16ull << stride) << log_size;
	uint32_t npas = (uint32_t)(align_up(bytes, DRV_PAGE) / DRV_PAGE), i;
	uint32_t inlen = CXIB_CREATE_SRQ_IN_LEN(npas);
	uint8_t *in = calloc(1, inlen);
	__be32 *srqc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	memset(srq, 0, sizeof(*srq));
	srq->log_size = log_size;
	srq->stride = stride;
	srq->buf = drv_alloc_q(n, bytes);
	srq->dbr = drv_alloc_dbr(n);
	/* link every WQE to the next, as mlx5_ib does at creation */
	for (i = 0; i < (1u << log_size); i++) {
		struct cxib_wqe_srq_next_seg next;

		memset(&next, 0, sizeof(next));
		CXIB_SET(&next, CXIB_WQE_SRQ_NEXT_NEXT_WQE_INDEX, (i + 1) & ((1u << log_size) - 1));
		fake_mem_write(&n->t->fk, srq->buf + ((uint64_t)i << (stride + 4)), &next,
			       sizeof(next));
	}
	srq->head = 0;
	srq->tail = (uint16_t)((1u << log_size) - 1);
	srqc = (__be32 *)(in + CXIB_CREATE_SRQ_IN_SRQC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_SRQ, 0);
	CXIB_SET(srqc, CXIB_SRQC_LOG_SRQ_SIZE, log_size);
	CXIB_SET(srqc, CXIB_SRQC_LOG_RQ_STRIDE, stride);
	CXIB_SET(srqc, CXIB_SRQC_PD, n->pd);
	CXIB_SET64(srqc, CXIB_SRQC_DBR_ADDR, srq->dbr);
	for (i = 0; i < npas; i++)
		CXIB_SET64(in + CXIB_CREATE_SRQ_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   srq->buf + (uint64_t)i * DRV_PAGE);
	st = drv_run(n->t, in, inlen, out, sizeof(out));
	if (!st)
		srq->srqn = CXIB_GET(out, CXIB_CREATE_SRQ_OUT_SRQN);
	free(in);
	return st;
}

/* Data segments for @sg at @segs (room for @max), terminated if fewer. */
static void drv_scatter_list(struct cxib_wqe_data_seg *segs, unsigned int max,
			     const struct drv_sge *sg, unsigned int nsg)
{
	unsigned int i;

	for (i = 0; i < nsg && i < max; i++) {
		CXIB_SET(&segs[i], CXIB_WQE_DATA_BYTE_COUNT, sg[i].len);
		CXIB_SET(&segs[i], CXIB_WQE_DATA_LKEY, sg[i].lkey);
		CXIB_SET64(&segs[i], CXIB_WQE_DATA_ADDR, sg[i].addr);
	}
	if (i < max) {
		CXIB_SET(&segs[i], CXIB_WQE_DATA_BYTE_COUNT, 0);
		CXIB_SET(&segs[i], CXIB_WQE_DATA_LKEY, CXIB_INVALID_LKEY);
		CXIB_SET64(&segs[i], CXIB_WQE_DATA_ADDR, 0);
	}
}

int drv_srq_post(struct drv_node *n, struct drv_srq *srq, const struct drv_sge *sg,
		 unsigned int nsg)
{
	uint32_t bytes = 16u << srq->stride, max = bytes / 16 - 1;
	uint64_t addr = srq->buf + ((uint64_t)srq->head << (srq->stride + 4));
	uint8_t w[1024];
	uint16_t idx = srq->head;
	uint8_t b[4];

	if (nsg > max || bytes > sizeof(w) || srq->head == srq->tail)
		return -1;
	fake_mem_read(&n->t->fk, addr, w, bytes);	/* keep the next segment */
	memset(w + 16, 0, bytes - 16);
	drv_scatter_list((struct cxib_wqe_data_seg *)(w + 16), max, sg, nsg);
	fake_mem_write(&n->t->fk, addr, w, bytes);
	srq->head = (uint16_t)CXIB_GET(w, CXIB_WQE_SRQ_NEXT_NEXT_WQE_INDEX);
	srq->counter++;
	put_be32(b, srq->counter);
	fake_mem_write(&n->t->fk, srq->dbr, b, 4);
	return idx;
}

unsigned int drv_srq_arm(struct drv_node *n, struct drv_srq *srq, uint16_t lwm)
{
	__be32 out[4];

	return cmd_simple(n->t, CXIB_CMD_OP_ARM_RQ, CXIB_ARM_RQ_OP_MOD_SRQ, srq->srqn, lwm, out,
			  sizeof(out));
}

void drv_srq_free(struct drv_node *n, struct drv_srq *srq, uint16_t idx)
{
	uint64_t addr = srq->buf + ((uint64_t)srq->tail << (srq->stride + 4));
	struct cxib_wqe_srq_next_seg next;

	fake_mem_read(&n->t->fk, addr, &next, sizeof(next));
	CXIB_SET(&next, CXIB_WQE_SRQ_NEXT_NEXT_WQE_INDEX, idx);
	fake_mem_write(&n->t->fk, addr, &next, sizeof(next));
	srq->tail = idx;
}

/* ---- QPs ---- */

void drv_qp_init_defaults(struct drv_qp_init *a, uint32_t st, struct drv_cq *cq)
{
	memset(a, 0, sizeof(*a));
	a->st = st;
	a->log_rq = 7;
	a->rq_stride = 2;		/* 64-byte receive WQEs: 3 segments + terminator */
	a->log_sq = 8;
	a->scq = a->rcq = cq;
	a->qkey = DRV_DEFAULT_QKEY;
	a->rre = a->rwe = a->rae = true;
}

void drv_qp_conn_defaults(struct drv_qp_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->sq_psn = 0x100;
	c->rq_psn = 0x100;
	c->mtu = CXIB_QPC_MTU_1024;	/* small: multi-packet messages in little memory */
	c->retry = 7;
	c->rnr_retry = 7;
	c->timeout = 14;		/* 67 ms */
	c->min_rnr = 12;		/* 0.64 ms */
	c->sra = 4;
	c->rra = 4;
}

unsigned int drv_qp_create(struct drv_node *n, const struct drv_qp_init *a, struct drv_qp *qp)
{
	uint64_t rq_bytes = a->srq ? 0 : (16ull << a->rq_stride) << a->log_rq;
	uint64_t bytes = rq_bytes + ((uint64_t)CXIB_SEND_WQE_BB << a->log_sq);
	uint32_t npas = (uint32_t)(align_up(bytes, DRV_PAGE) / DRV_PAGE), i;
	uint32_t inlen = CXIB_CREATE_QP_IN_LEN(npas);
	uint8_t *in = calloc(1, inlen);
	__be32 *qpc, out[4];
	unsigned int st;

	if (!in)
		return 0x1fe;
	memset(qp, 0, sizeof(*qp));
	qp->st = a->st;
	qp->log_rq = a->srq ? 0 : a->log_rq;
	qp->rq_stride = a->srq ? 0 : a->rq_stride;
	qp->log_sq = a->log_sq;
	qp->scq = a->scq;
	qp->rcq = a->rcq;
	qp->srq = a->srq;
	qp->ipoib = a->offload == CXIB_QPC_ULP_OFFLOAD_IPOIB_UD;
	qp->buf = drv_alloc_q(n, bytes);
	qp->sq = qp->buf + rq_bytes;
	qp->dbr = drv_alloc_dbr(n);
	qpc = (__be32 *)(in + CXIB_CREATE_QP_IN_QPC_OFFSET);
	cmd_hdr(in, CXIB_CMD_OP_CREATE_QP, 0);
	CXIB_SET(qpc, CXIB_QPC_ST, a->st);
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	CXIB_SET(qpc, CXIB_QPC_BLOCK_LB_MC, a->block_lb_mc);
	CXIB_SET(qpc, CXIB_QPC_ULP_STATELESS_OFFLOAD_MODE, a->offload);
	CXIB_SET(qpc, CXIB_QPC_USER_INDEX, a->user_index);
	CXIB_SET(qpc, CXIB_QPC_PD, a->no_pd ? 0 : n->pd);
	CXIB_SET(qpc, CXIB_QPC_FRE, 1);		/* mlx5_ib: every kernel QP may fast-register */
	CXIB_SET(qpc, CXIB_QPC_RLKY, 1);	/* and use the reserved lkey */
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_SIZE, qp->log_rq);
	CXIB_SET(qpc, CXIB_QPC_LOG_RQ_STRIDE, qp->rq_stride);
	CXIB_SET(qpc, CXIB_QPC_LOG_SQ_SIZE, a->log_sq);
	CXIB_SET(qpc, CXIB_QPC_UAR_PAGE, n->uar);
	CXIB_SET(qpc, CXIB_QPC_CQN_SND, a->scq->cqn);
	CXIB_SET(qpc, CXIB_QPC_CQN_RCV, a->rcq->cqn);
	CXIB_SET(qpc, CXIB_QPC_RQ_TYPE, a->srq ? CXIB_QPC_RQ_TYPE_SRQ : CXIB_QPC_RQ_TYPE_REGULAR);
	if (a->srq)
		CXIB_SET(qpc, CXIB_QPC_SRQN_RMPN_XRQN, a->srq->srqn);
	CXIB_SET64(qpc, CXIB_QPC_DBR_ADDR, qp->dbr);
	for (i = 0; i < npas; i++)
		CXIB_SET64(in + CXIB_CREATE_QP_IN_PAS_OFFSET + 8 * i, CXIB_PAS_ENTRY_PA,
			   qp->buf + (uint64_t)i * DRV_PAGE);
	st = drv_run(n->t, in, inlen, out, sizeof(out));
	if (!st)
		qp->qpn = CXIB_GET(out, CXIB_CREATE_QP_OUT_QPN);
	free(in);
	return st;
}

static unsigned int drv_modify(struct drv_node *n, struct drv_qp *qp, uint16_t op,
			       const struct drv_qp_init *a, const struct drv_qp_conn *c)
{
	uint8_t in[CXIB_QP_MODIFY_IN_LEN] = { 0 };
	__be32 *qpc = (__be32 *)(in + CXIB_QP_MODIFY_IN_QPC_OFFSET), out[4];
	__be32 *pp = qpc + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET / 4;
	bool dgram = qp->st == CXIB_QPC_ST_UD;

	cmd_hdr(in, op, 0);
	CXIB_SET(in, CXIB_QP_MODIFY_IN_QPN, qp->qpn);
	if (op == CXIB_CMD_OP_2ERR_QP || op == CXIB_CMD_OP_2RST_QP)
		return drv_run(n->t, in, 16, out, sizeof(out));
	CXIB_SET(qpc, CXIB_QPC_PM_STATE, CXIB_QPC_PM_STATE_MIGRATED);
	CXIB_SET(pp, CXIB_ADS_VHCA_PORT_NUM, 1);
	CXIB_SET(pp, CXIB_ADS_PKEY_INDEX, 0);
	if (a) {
		CXIB_SET(qpc, CXIB_QPC_Q_KEY, a->qkey);
		CXIB_SET(qpc, CXIB_QPC_RRE, a->rre);
		CXIB_SET(qpc, CXIB_QPC_RWE, a->rwe);
		CXIB_SET(qpc, CXIB_QPC_RAE, a->rae);
		if (a->rae)
			CXIB_SET(qpc, CXIB_QPC_ATOMIC_MODE, CXIB_QPC_ATOMIC_MODE_IB_SPEC);
	}
	if (c) {
		CXIB_SET(qpc, CXIB_QPC_MTU, dgram ? CXIB_QPC_MTU_4096 : c->mtu);
		CXIB_SET(qpc, CXIB_QPC_LOG_MSG_MAX, dgram ? DRV_UD_LOG_MSG : DRV_RC_LOG_MSG);
		CXIB_SET(pp, CXIB_ADS_RLID, c->dlid);
		CXIB_SET(pp, CXIB_ADS_SL, c->sl);
		CXIB_SET(pp, CXIB_ADS_ACK_TIMEOUT, c->timeout);
		CXIB_SET(qpc, CXIB_QPC_REMOTE_QPN, c->dqpn);
		CXIB_SET(qpc, CXIB_QPC_NEXT_RCV_PSN, c->rq_psn);
		CXIB_SET(qpc, CXIB_QPC_NEXT_SEND_PSN, c->sq_psn);
		CXIB_SET(qpc, CXIB_QPC_LOG_RRA_MAX, c->rra);
		CXIB_SET(qpc, CXIB_QPC_LOG_SRA_MAX, c->sra);
		CXIB_SET(qpc, CXIB_QPC_MIN_RNR_NAK, c->min_rnr);
		CXIB_SET(qpc, CXIB_QPC_RETRY_COUNT, c->retry);
		CXIB_SET(qpc, CXIB_QPC_RNR_RETRY, c->rnr_retry);
		CXIB_SET(qpc, CXIB_QPC_LOG_ACK_REQ_FREQ, DRV_LOG_ACK_REQ);
	}
	return drv_run(n->t, in, sizeof(in), out, sizeof(out));
}

unsigned int drv_qp_rtr(struct drv_node *n, struct drv_qp *qp, const struct drv_qp_init *a,
			const struct drv_qp_conn *c)
{
	unsigned int st = drv_modify(n, qp, CXIB_CMD_OP_RST2INIT_QP, a, NULL);

	if (!st)
		st = drv_modify(n, qp, CXIB_CMD_OP_INIT2RTR_QP, a, c);
	return st;
}

unsigned int drv_qp_connect(struct drv_node *n, struct drv_qp *qp, const struct drv_qp_init *a,
			    const struct drv_qp_conn *c)
{
	unsigned int st = drv_qp_rtr(n, qp, a, c);

	if (!st)
		st = drv_modify(n, qp, CXIB_CMD_OP_RTR2RTS_QP, a, c);
	return st;
}

unsigned int drv_qp_modify(struct drv_node *n, struct drv_qp *qp, uint16_t op)
{
	return drv_modify(n, qp, op, NULL, NULL);
}

unsigned int drv_qp_state(struct drv_node *n, struct drv_qp *qp)
{
	uint8_t out[CXIB_QUERY_QP_OUT_LEN];

	if (cmd_simple(n->t, CXIB_CMD_OP_QUERY_QP, 0, qp->qpn, 0, out, sizeof(out)))
		return 0xff;
	return CXIB_GET(out + CXIB_QUERY_QP_OUT_QPC_OFFSET, CXIB_QPC_STATE);
}

unsigned int drv_pair_init(struct drv_world *w, const struct drv_qp_init *ia,
			   const struct drv_qp_init *ib, const struct drv_qp_conn *conn,
			   struct drv_qp *a, struct drv_qp *b)
{
	struct drv_node *na = &w->n[0], *nb = &w->n[w->nnodes > 1 ? 1 : 0];
	struct drv_qp_conn ca, cb;
	unsigned int s;

	if (conn)
		ca = *conn;
	else
		drv_qp_conn_defaults(&ca);
	cb = ca;
	s = drv_qp_create(na, ia, a);
	if (!s)
		s = drv_qp_create(nb, ib, b);
	if (s)
		return s;
	ca.dlid = nb->lid;
	ca.dqpn = b->qpn;
	cb.dlid = na->lid;
	cb.dqpn = a->qpn;
	/* each side's receive PSN is the other's send PSN */
	cb.rq_psn = ca.sq_psn;
	ca.rq_psn = cb.sq_psn;
	s = drv_qp_connect(na, a, ia, &ca);
	if (!s)
		s = drv_qp_connect(nb, b, ib, &cb);
	return s;
}

unsigned int drv_rc_pair(struct drv_world *w, uint32_t st, const struct drv_qp_conn *conn,
			 struct drv_qp *a, struct drv_qp *b)
{
	struct drv_qp_init ia, ib;

	drv_qp_init_defaults(&ia, st, w->cq[0]);
	drv_qp_init_defaults(&ib, st, w->cq[w->nnodes > 1 ? 1 : 0]);
	return drv_pair_init(w, &ia, &ib, conn, a, b);
}

unsigned int drv_mcg(struct drv_node *n, struct drv_qp *qp, const uint8_t gid[16], bool attach)
{
	uint8_t in[CXIB_ATTACH_TO_MCG_IN_LEN] = { 0 };
	__be32 out[4];

	cmd_hdr(in, attach ? CXIB_CMD_OP_ATTACH_TO_MCG : CXIB_CMD_OP_DETACH_FROM_MCG, 0);
	CXIB_SET(in, CXIB_ATTACH_TO_MCG_IN_QPN, qp->qpn);
	memcpy(in + CXIB_ATTACH_TO_MCG_IN_MULTICAST_GID_OFFSET, gid, CXIB_MGID_LEN);
	return drv_run(n->t, in, sizeof(in), out, sizeof(out));
}

/* ---- posting ---- */

int drv_post_send(struct drv_node *n, struct drv_qp *qp, const struct drv_wr *wr)
{
	uint8_t w[CXIB_MAX_WQE_BBS * CXIB_SEND_WQE_BB];
	struct cxib_wqe_ctrl_seg *c = (struct cxib_wqe_ctrl_seg *)w;
	uint32_t off = sizeof(*c), ds, nbb, i;
	uint16_t idx = qp->sq_pi;
	uint64_t db;
	uint8_t b[4];

	memset(w, 0, sizeof(w));
	if (wr->nsg > DRV_MAX_SGE)
		return -1;
	if (qp->st == CXIB_QPC_ST_UD) {
		struct cxib_wqe_av *av = (struct cxib_wqe_av *)(w + off);

		CXIB_SET(av, CXIB_WQE_AV_QKEY, wr->ah.qkey);
		CXIB_SET(av, CXIB_WQE_AV_EXT, 1);
		CXIB_SET(av, CXIB_WQE_AV_DQPN, wr->ah.dqpn);
		CXIB_SET(av, CXIB_WQE_AV_SL, wr->ah.sl);
		CXIB_SET(av, CXIB_WQE_AV_RLID, wr->ah.dlid);
		if (wr->ah.grh) {
			CXIB_SET(av, CXIB_WQE_AV_GRH, 1);
			CXIB_SET(av, CXIB_WQE_AV_SGID_INDEX, wr->ah.sgid_index);
			CXIB_SET(av, CXIB_WQE_AV_FLOW_LABEL, wr->ah.flow_label);
			CXIB_SET(av, CXIB_WQE_AV_TCLASS, wr->ah.tclass);
			CXIB_SET(av, CXIB_WQE_AV_HOP_LIMIT, wr->ah.hop_limit);
			memcpy((uint8_t *)av + CXIB_WQE_AV_RGID_OFFSET, wr->ah.dgid, 16);
		}
		off += CXIB_WQE_AV_SIZE;
		if (qp->ipoib) {
			/* zero pad, then the Ethernet segment with the LSO headers inline */
			uint8_t *e = w + off + CXIB_WQE_ETH_PAD_SIZE;

			CXIB_SET(e, CXIB_WQE_ETH_CS_FLAGS, wr->cs_flags);
			CXIB_SET(e, CXIB_WQE_ETH_MSS, wr->mss);
			CXIB_SET(e, CXIB_WQE_ETH_INLINE_HDR_SZ, wr->hlen);
			if (CXIB_WQE_ETH_PAD_SIZE + CXIB_WQE_ETH_INLINE_HDR_OFFSET + off + wr->hlen >
			    sizeof(w))
				return -1;
			if (wr->hlen)
				memcpy(e + CXIB_WQE_ETH_INLINE_HDR_OFFSET, wr->hdr, wr->hlen);
			off += CXIB_WQE_ETH_PAD_SIZE +
			       (wr->hlen ? (uint32_t)align_up(CXIB_WQE_ETH_INLINE_HDR_OFFSET +
							      wr->hlen, CXIB_WQE_DS_SIZE) :
				(uint32_t)sizeof(struct cxib_wqe_eth_seg));
		}
	}
	switch (wr->opcode) {
	case CXIB_WQE_OPCODE_RDMA_WRITE:
	case CXIB_WQE_OPCODE_RDMA_WRITE_IMM:
	case CXIB_WQE_OPCODE_RDMA_READ:
	case CXIB_WQE_OPCODE_ATOMIC_CS:
	case CXIB_WQE_OPCODE_ATOMIC_FA: {
		struct cxib_wqe_raddr_seg *r = (struct cxib_wqe_raddr_seg *)(w + off);

		CXIB_SET64(r, CXIB_WQE_RADDR_RADDR, wr->raddr);
		CXIB_SET(r, CXIB_WQE_RADDR_RKEY, wr->rkey);
		off += sizeof(*r);
		break;
	}
	default:
		break;
	}
	if (wr->opcode == CXIB_WQE_OPCODE_ATOMIC_CS || wr->opcode == CXIB_WQE_OPCODE_ATOMIC_FA) {
		struct cxib_wqe_atomic_seg *a = (struct cxib_wqe_atomic_seg *)(w + off);

		CXIB_SET64(a, CXIB_WQE_ATOMIC_SWAP_ADD, wr->swap_add);
		CXIB_SET64(a, CXIB_WQE_ATOMIC_COMPARE,
			   wr->opcode == CXIB_WQE_OPCODE_ATOMIC_CS ? wr->compare : 0);
		off += sizeof(*a);
	}
	if (wr->inl) {
		/* inline: header dword then the bytes, gathered here by the CPU (PA keys only) */
		uint32_t total = 0, hdr = off;

		off += CXIB_WQE_INLINE_HDR_SIZE;
		for (i = 0; i < wr->nsg; i++) {
			if (off + wr->sg[i].len > sizeof(w))
				return -1;
			fake_mem_read(&n->t->fk, wr->sg[i].addr, w + off, wr->sg[i].len);
			off += wr->sg[i].len;
			total += wr->sg[i].len;
		}
		CXIB_SET(w + hdr, CXIB_WQE_INLINE_SEG, 1);
		CXIB_SET(w + hdr, CXIB_WQE_INLINE_BYTE_COUNT, total);
		off = (uint32_t)align_up(off, CXIB_WQE_DS_SIZE);
	} else {
		for (i = 0; i < wr->nsg; i++) {
			struct cxib_wqe_data_seg *d = (struct cxib_wqe_data_seg *)(w + off);

			if (wr->sg[i].inl) {	/* an inline segment of its own, as UCX writes */
				if (off + CXIB_WQE_INLINE_HDR_SIZE + wr->sg[i].len > sizeof(w))
					return -1;
				CXIB_SET(d, CXIB_WQE_INLINE_SEG, 1);
				CXIB_SET(d, CXIB_WQE_INLINE_BYTE_COUNT, wr->sg[i].len);
				fake_mem_read(&n->t->fk, wr->sg[i].addr,
					      w + off + CXIB_WQE_INLINE_HDR_SIZE, wr->sg[i].len);
				off = (uint32_t)align_up(off + CXIB_WQE_INLINE_HDR_SIZE +
							 wr->sg[i].len, CXIB_WQE_DS_SIZE);
				continue;
			}
			if (!wr->sg[i].len)
				continue;	/* mlx5 skips empty segments */
			CXIB_SET(d, CXIB_WQE_DATA_BYTE_COUNT, wr->sg[i].len);
			CXIB_SET(d, CXIB_WQE_DATA_LKEY, wr->sg[i].lkey);
			CXIB_SET64(d, CXIB_WQE_DATA_ADDR, wr->sg[i].addr);
			off += sizeof(*d);
		}
	}
	ds = off / CXIB_WQE_DS_SIZE;
	nbb = (off + CXIB_SEND_WQE_BB - 1) / CXIB_SEND_WQE_BB;
	if (nbb > (1u << qp->log_sq))
		return -1;
	CXIB_SET(c, CXIB_WQE_CTRL_WQE_INDEX, idx);
	CXIB_SET(c, CXIB_WQE_CTRL_OPCODE, wr->opcode);
	CXIB_SET(c, CXIB_WQE_CTRL_QPN, qp->qpn);
	CXIB_SET(c, CXIB_WQE_CTRL_DS, ds);
	CXIB_SET(c, CXIB_WQE_CTRL_FM, wr->fence ? CXIB_WQE_FM_FENCE : CXIB_WQE_FM_NO_FENCE);
	CXIB_SET(c, CXIB_WQE_CTRL_CE, wr->signaled ? CXIB_WQE_CTRL_CE_CQE_ALWAYS :
						     CXIB_WQE_CTRL_CE_CQE_ON_ERROR);
	CXIB_SET(c, CXIB_WQE_CTRL_SE, wr->solicited);
	CXIB_SET(c, CXIB_WQE_CTRL_IMM, wr->imm);
	/* copy WQEBB by WQEBB: a WQE may wrap around the end of the ring */
	for (i = 0; i < nbb; i++) {
		uint32_t slot = (uint32_t)(idx + i) & ((1u << qp->log_sq) - 1);

		fake_mem_write(&n->t->fk, qp->sq + (uint64_t)slot * CXIB_SEND_WQE_BB,
			       w + i * CXIB_SEND_WQE_BB, CXIB_SEND_WQE_BB);
	}
	qp->sq_pi = (uint16_t)(qp->sq_pi + nbb);
	/* doorbell record first, then the BlueFlame doorbell (first 8 bytes of ctrl) */
	put_be32(b, qp->sq_pi);
	fake_mem_write(&n->t->fk, qp->dbr + 4, b, 4);
	memcpy(&db, w, 8);	/* host little-endian: lowest address is the low byte */
	cxfw_mmio_write(n->t->dev, ((uint64_t)n->uar << CXIB_ADAPTER_PAGE_SHIFT) +
			CXIB_UAR_BF_OFFSET + qp->bf_off, db, 8);
	qp->bf_off ^= DRV_BF_HALF;
	return idx;
}

int drv_post_recv(struct drv_node *n, struct drv_qp *qp, const struct drv_sge *sg,
		  unsigned int nsg)
{
	uint32_t bytes = 16u << qp->rq_stride, max = bytes / 16;
	uint32_t slot = qp->rq_pi & ((1u << qp->log_rq) - 1);
	struct cxib_wqe_data_seg segs[64];
	uint16_t idx = qp->rq_pi;
	uint8_t b[4];

	if (qp->srq || nsg > max || max > 64)
		return -1;
	memset(segs, 0, sizeof(segs));
	drv_scatter_list(segs, max, sg, nsg);
	fake_mem_write(&n->t->fk, qp->buf + (uint64_t)slot * bytes, segs, bytes);
	qp->rq_pi++;
	put_be32(b, qp->rq_pi);
	fake_mem_write(&n->t->fk, qp->dbr, b, 4);
	return idx;
}
