/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the data path acceptance tests (test_xport*.c): scatter/gather entries and
 * work requests, data patterns in MRs, the CQE checks, and a world with one connected pair.
 * The conventions the tests assert are at the top of test_xport.c.
 */
#ifndef CXFW_TEST_XPORT_H
#define CXFW_TEST_XPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"
#include "drv.h"
#include "wire.h"

#define FILL_DST	0xee		/* receive buffers are pre-filled with this */
#define IMM		0x12345678u

static inline struct drv_sge sge(const struct drv_mr *mr, uint64_t off, uint32_t len)
{
	struct drv_sge s = { .addr = mr->va + off, .len = len, .lkey = mr->key };

	return s;
}

static inline struct drv_wr wr_op(unsigned int opcode, bool signaled)
{
	struct drv_wr w;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.signaled = signaled;
	return w;
}

/* Fill @len bytes of @mr at @off with pattern @seed. */
static inline void mr_pattern(struct drv_node *n, const struct drv_mr *mr, uint64_t off, uint32_t len,
		       uint32_t seed)
{
	uint8_t *b = malloc(len ? len : 1);

	if (!b)
		abort();
	drv_pattern(b, len, seed);
	drv_mem_write(n, mr->pa + off, b, len);
	free(b);
}

/* Does @mr at @off hold pattern @seed for @len bytes? */
static inline bool mr_has_pattern(struct drv_node *n, const struct drv_mr *mr, uint64_t off,
			   uint32_t len, uint32_t seed)
{
	uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
	bool ok;

	if (!a || !b)
		abort();
	drv_pattern(a, len, seed);
	drv_mem_read(n, mr->pa + off, b, len);
	ok = !memcmp(a, b, len);
	free(a);
	free(b);
	return ok;
}

/* Does @mr at @off hold @byte for @len bytes? */
static inline bool mr_has_fill(struct drv_node *n, const struct drv_mr *mr, uint64_t off, uint32_t len,
			uint8_t byte)
{
	uint8_t *b = malloc(len ? len : 1);
	uint32_t i;
	bool ok = true;

	if (!b)
		abort();
	drv_mem_read(n, mr->pa + off, b, len);
	for (i = 0; i < len && ok; i++)
		ok = b[i] == byte;
	free(b);
	return ok;
}

/* An 8-byte atomic operand in guest memory: little endian (the host order drv declared). */
static inline uint64_t mr_get_u64(struct drv_node *n, const struct drv_mr *mr, uint64_t off)
{
	uint8_t b[8];
	uint64_t v = 0;
	int i;

	drv_mem_read(n, mr->pa + off, b, 8);
	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline void mr_put_u64(struct drv_node *n, const struct drv_mr *mr, uint64_t off, uint64_t v)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	drv_mem_write(n, mr->pa + off, b, 8);
}

/* Run the cable until quiet; a model that keeps talking forever (a storm) fails the test. */
#define PUMP(w)		CHECK(drv_pump(w) > 0)

#define CQE_OPCODE(c)	CXIB_GET(c, CXIB_CQE_OPCODE)
#define CQE_SYND(c)	CXIB_GET(c, CXIB_CQE_ERR_SYNDROME)

/* A successful requester CQE for WQE @idx (@opc) of @qp. */
#define CHECK_REQ_CQE(c, qp, opc, idx)						\
	do {									\
		CHECK_EQ(CQE_OPCODE(c), CXIB_CQE_OPCODE_REQ);			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_SOP), (opc));			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_QPN), (qp)->qpn);			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_WQE_COUNTER), (uint16_t)(idx));	\
	} while (0)

/* A successful responder CQE on @qp. */
#define CHECK_RESP_CQE(c, qp, opc, bytes, idx)					\
	do {									\
		CHECK_EQ(CQE_OPCODE(c), (opc));					\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_QPN), (qp)->qpn);			\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_BYTE_CNT), (bytes));		\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_WQE_COUNTER), (uint16_t)(idx));	\
	} while (0)

/* An error CQE (@opc REQ_ERR / RESP_ERR) with @synd for WQE @idx of @qp. */
#define CHECK_ERR_CQE(c, qp, opc, synd, idx)					\
	do {									\
		CHECK_EQ(CQE_OPCODE(c), (opc));					\
		CHECK_EQ(CQE_SYND(c), (synd));					\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_QPN), (qp)->qpn);		\
		CHECK_EQ(CXIB_GET(c, CXIB_CQE_ERR_WQE_COUNTER), (uint16_t)(idx)); \
	} while (0)

/* The world with one connected pair; @st RC or UC. */
struct env {
	struct drv_world w;
	struct drv_node *na, *nb;	/* requester side, responder side */
	struct drv_qp a, b;
	struct drv_cq *ca, *cb;
};

static inline unsigned int env_pair(struct test_ctx *t, struct env *e, unsigned int nodes, uint32_t st,
			     const struct drv_qp_conn *conn)
{
	unsigned int s = drv_world_init(t, &e->w, nodes);

	if (s)
		return s;
	e->na = &e->w.n[0];
	e->nb = &e->w.n[nodes - 1];
	e->ca = e->w.cq[0];
	e->cb = e->w.cq[nodes - 1];
	return drv_rc_pair(&e->w, st, conn, &e->a, &e->b);
}

/* A world with one UD QP on each of two nodes. */
struct ud_env {
	struct drv_world w;
	struct drv_node *na, *nb;
	struct drv_qp a, b, b2;
	struct drv_qp_init ia, ib;
};

static inline unsigned int ud_env(struct test_ctx *t, struct ud_env *u)
{
	struct drv_qp_conn c;
	unsigned int s = drv_world_init(t, &u->w, 2);

	if (s)
		return s;
	u->na = &u->w.n[0];
	u->nb = &u->w.n[1];
	drv_qp_init_defaults(&u->ia, CXIB_QPC_ST_UD, u->w.cq[0]);
	drv_qp_init_defaults(&u->ib, CXIB_QPC_ST_UD, u->w.cq[1]);
	drv_qp_conn_defaults(&c);
	s = drv_qp_create(u->na, &u->ia, &u->a);
	if (!s)
		s = drv_qp_create(u->nb, &u->ib, &u->b);
	if (!s)
		s = drv_qp_create(u->nb, &u->ib, &u->b2);
	if (!s)
		s = drv_qp_connect(u->na, &u->a, &u->ia, &c);
	if (!s)
		s = drv_qp_connect(u->nb, &u->b, &u->ib, &c);
	if (!s)
		s = drv_qp_connect(u->nb, &u->b2, &u->ib, &c);
	return s;
}

#endif /* CXFW_TEST_XPORT_H */
