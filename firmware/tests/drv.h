/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny test-side "driver" for the cxfw host tests: builds command queue entries and
 * mailbox chains in fake guest memory exactly as the PRM lays them out (using the shared
 * include/cxib headers), rings the doorbell, runs the worker and reads the result back.
 *
 *	__be32 in[4] = { 0 }, out[4];
 *
 *	cmd_hdr(in, CXIB_CMD_OP_ENABLE_HCA, 0);
 *	CHECK_EQ(cmd_exec(t, in, 16, out, 16), 0);		// delivery status
 *	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_STATUS), 0);
 *
 * Memory: slot s's mailboxes live in the 64 KiB at FAKE_MBOX_OFF + s * 64 KiB (input
 * blocks first, then output blocks, each 1 KiB aligned).
 */
#ifndef CXFW_TEST_DRV_H
#define CXFW_TEST_DRV_H

#include <stdbool.h>
#include <stdint.h>

#include <cxib/hw.h>
#include <cxib/cmd.h>
#include <cxib/eq.h>
#include <cxib/mad.h>
#include <cxib/verbs.h>
#include <cxib/wqe.h>

#include "test.h"

#define DRV_TOKEN	0x5a

/* How the next prepared command is built (tests change these to break things). */
struct drv_opts {
	uint8_t token;		/* entry token (0: DRV_TOKEN) */
	bool sign;		/* fill entry and mailbox signatures */
};

extern struct drv_opts drv;	/* reset to defaults by drv_reset() */

void drv_reset(struct test_ctx *t);

/* Write the opcode / op_mod header of a command input. */
void cmd_hdr(void *in, uint16_t opcode, uint16_t op_mod);

/* Address of block @k of slot @slot's input (@out: output) chain. */
uint64_t drv_mbox_addr(struct test_ctx *t, unsigned int slot, bool out, unsigned int k);

/* Build slot @slot's entry and chains (hardware owned); does not ring. */
void cmd_prepare(struct test_ctx *t, unsigned int slot, const void *in, uint32_t inlen,
		 uint32_t outlen);
/* Ring the doorbell for @mask and run the worker. */
void cmd_ring(struct test_ctx *t, uint32_t mask);
/*
 * Read slot @slot back: returns the delivery status, or -1 if the entry is still owned by
 * hardware.  With delivery 0 the first @outlen output bytes land in @out.
 */
int cmd_collect(struct test_ctx *t, unsigned int slot, void *out, uint32_t outlen);
/* prepare + ring + collect in slot 0. */
int cmd_exec(struct test_ctx *t, const void *in, uint32_t inlen, void *out, uint32_t outlen);

/* Status byte of an output. */
uint8_t out_status(const void *out);
/*
 * Run a command whose input is just the 16-byte header + dwords 2 and 3; returns the
 * output status, or 0x100 + delivery status when delivery failed.  @out gets @outlen bytes.
 */
unsigned int cmd_simple(struct test_ctx *t, uint16_t opcode, uint16_t op_mod, uint32_t dw2,
			uint32_t dw3, void *out, uint32_t outlen);

/* ---- bring-up helpers (prm-subset.md 4.1), each returns the output status -------------- */

unsigned int drv_enable_hca(struct test_ctx *t);
unsigned int drv_query_pages(struct test_ctx *t, uint16_t op_mod, int32_t *npages);
/* Give @n fresh pages from the test's pool (their addresses are recorded). */
unsigned int drv_give_pages(struct test_ctx *t, uint32_t n);
/* Take up to @n pages back; *@got = how many came back, each must be one the test gave. */
unsigned int drv_take_pages(struct test_ctx *t, uint32_t n, uint32_t *got);
unsigned int drv_query_cap(struct test_ctx *t, uint16_t op_mod, struct cxib_hca_cap *cap);
unsigned int drv_set_cap(struct test_ctx *t, const struct cxib_hca_cap *cap);
unsigned int drv_init_hca(struct test_ctx *t);
unsigned int drv_teardown_hca(struct test_ctx *t);
unsigned int drv_disable_hca(struct test_ctx *t);
unsigned int drv_alloc_uar(struct test_ctx *t, uint32_t *uar);
/* Everything up to and including INIT_HCA, as mlx5_core does it; 0 on success. */
unsigned int drv_bringup(struct test_ctx *t);
/* TEARDOWN_HCA, take every page back, DISABLE_HCA; 0 on success. */
unsigned int drv_teardown(struct test_ctx *t);
/* Pages given and not yet taken back, by the test's own count. */
uint32_t drv_pages_out(void);

/* An EQ buffer of 2^log_size EQEs at FAKE_EQ_OFF + @off with every owner bit set. */
uint64_t drv_eq_buffer(struct test_ctx *t, uint32_t off, unsigned int log_size);
/* CREATE_EQ on one contiguous buffer (4 KiB PAS pages); returns status, *eqn on success. */
unsigned int drv_create_eq(struct test_ctx *t, uint64_t buf, unsigned int log_size,
			   uint32_t uar, unsigned int intr, uint64_t events, uint32_t *eqn);
unsigned int drv_destroy_eq(struct test_ctx *t, uint32_t eqn);
/* Read EQE @index of the EQ buffer at @buf. */
void drv_eqe(struct test_ctx *t, uint64_t buf, uint32_t index, struct cxib_eqe *eqe);
/* EQ doorbell through UAR @uar: arm (UAR + 0x40) or update only (UAR + 0x48). */
void drv_eq_doorbell(struct test_ctx *t, uint32_t uar, uint32_t eqn, uint32_t ci, bool arm);

/* MAD_IFC: send the 256-byte @mad on @port; returns the command status, @resp the MAD. */
/* Verbs resources (test_mr.c, test_cq.c). */
#define DRV_CQ_OFF	0x500000	/* CQ buffers */
#define DRV_DBR_OFF	0x600000	/* doorbell records, 64 bytes apart */
#define DRV_DATA_OFF	0x700000	/* memory registered through mkeys */

unsigned int drv_run(struct test_ctx *t, const void *in, uint32_t inlen, void *out,
		     uint32_t outlen);
unsigned int drv_alloc_pd(struct test_ctx *t, uint32_t *pd);
unsigned int drv_dealloc_pd(struct test_ctx *t, uint32_t pd);

unsigned int drv_mad_ifc(struct test_ctx *t, unsigned int port, uint16_t op_mod,
			 const void *mad, void *resp);

#endif /* CXFW_TEST_DRV_H */
