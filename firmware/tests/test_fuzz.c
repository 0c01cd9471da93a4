// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz smoke: a deterministic stream of garbage from the guest (entries, doorbells, BAR0
 * accesses of every size and alignment, queue addresses anywhere) and from the platform
 * (clock jumps, resets, fatals, cable events).  The core must not crash (the sanitizer
 * build checks memory and UB), must only write guest memory inside the entry it is
 * completing, and must leave every slot either owned by hardware or handed back.
 */
#include <string.h>

#include "drv.h"
#include "test.h"

#define FUZZ_ITERS	3000
#define FUZZ_CMDS	2500

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: fixed seed, so a failure replays exactly */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint64_t fuzz_offset(uint64_t *s)
{
	static const uint64_t hot[] = { 0x000, 0x004, 0x010, 0x014, 0x018, 0x1fc, 0x200,
					0x238, 0x23c, 0xff8, 0x1000, 0x1010, 0x2008, 0x3020,
					0x3040, 0x3800, (32ull << 20) - 8, 32ull << 20 };
	uint64_t r = rng_next(s);

	switch (r & 3) {
	case 0:
		return hot[(r >> 8) % (sizeof(hot) / sizeof(hot[0]))] + ((r >> 16) & 7);
	case 1:
		return (r >> 8) & 0x3fff;
	case 2:
		return (r >> 8) & ((64ull << 20) - 1);
	default:
		return r >> 2;
	}
}

TEST(fuzz_guest_garbage_never_crashes)
{
	static const unsigned int sizes[] = { 1, 2, 4, 8, 0, 3, 16 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	struct cxfw_stats st;
	unsigned int i, s;
	uint8_t e[64];

	memset(e, 0, sizeof(e));
	cmdq_setup(t->dev, q);
	for (i = 0; i < FUZZ_ITERS; i++) {
		uint64_t r = rng_next(&seed);

		switch (r % 10) {
		case 0: case 1: case 2: {	/* a garbage entry, often well-formed-ish */
			unsigned int k;

			s = (unsigned int)(r >> 8) % 32;
			for (k = 0; k < 64; k += 8) {
				uint64_t v = rng_next(&seed);

				memcpy(e + k, &v, 8);
			}
			if (r & (1u << 20))
				e[0x00] = 0x07;
			if (r & (1u << 21))
				e[0x3f] |= 1;
			if (r & (1u << 22))
				memset(e + 0x04, 0, 3);	/* small input length */
			entry_put(&t->fk, q, s, e);
			break;
		}
		case 3: case 4:			/* doorbells */
			wr32(t->dev, 0x018, (uint32_t)rng_next(&seed));
			break;
		case 5:				/* any BAR0 read */
			(void)cxfw_mmio_read(t->dev, fuzz_offset(&seed),
					     sizes[(r >> 8) % 7]);
			break;
		case 6:				/* any BAR0 write */
			cxfw_mmio_write(t->dev, fuzz_offset(&seed), rng_next(&seed),
					sizes[(r >> 8) % 7]);
			break;
		case 7:				/* the worker runs */
			/* wherever the queue is now, writes must land in it */
			t->fk.wr_lo = (uint64_t)rd32(t->dev, 0x010) << 32 |
				      (rd32(t->dev, 0x014) & 0xfffff000u);
			t->fk.wr_hi = t->fk.wr_lo + 32 * 64;
			cxfw_process(t->dev);
			break;
		case 8:				/* time moves, sometimes a lot */
			fake_advance_ns(&t->fk, rng_next(&seed) >> ((r >> 8) % 64));
			break;
		default:			/* platform events */
			switch ((r >> 8) % 8) {
			case 0:
				cxfw_reset(t->dev);
				break;
			case 1:
				cxfw_inject_fatal(t->dev, (uint8_t)(r >> 16));
				break;
			case 2:
				cxfw_port_link(t->dev, (unsigned int)(r >> 16) % 3,
					       (r >> 24) & 1);
				break;
			case 3:
				cxfw_port_receive(t->dev, 1, e, (r >> 16) % 64);
				break;
			default:		/* put the queue back where the test expects it */
				cmdq_setup(t->dev, q);
				break;
			}
			break;
		}
	}
	t->fk.wr_hi = 0;
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(t->fk.wr_violations, 0);
	CHECK(st.cmds_completed > 0);		/* the fuzz reached the engine */
	CHECK(st.dma_errors > 0);		/* ... and its error paths */
}

TEST(fuzz_same_inputs_same_outputs)
{
	/* determinism: the same guest actions give the same bytes */
	uint8_t a[2][32 * 64];
	int run;

	for (run = 0; run < 2; run++) {
		struct cxfw_config cfg;
		uint64_t seed = 42, q;
		unsigned int i, s;

		cxfw_config_defaults(&cfg);
		CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
		q = FAKE_CMDQ_ADDR(&t->fk);
		cmdq_setup(t->dev, q);
		for (i = 0; i < 200; i++) {
			s = (unsigned int)rng_next(&seed) % 32;
			entry_prepare(&t->fk, q, s, (uint16_t)rng_next(&seed),
				      (uint16_t)rng_next(&seed), (uint32_t)rng_next(&seed) % 64,
				      (uint32_t)rng_next(&seed) % 64);
			wr32(t->dev, 0x018, 1u << s);
			fake_advance_ns(&t->fk, rng_next(&seed) % 3000000);
			if (rng_next(&seed) & 1)
				cxfw_process(t->dev);
		}
		cxfw_process(t->dev);
		fake_mem_read(&t->fk, q, a[run], sizeof(a[run]));
	}
	CHECK(memcmp(a[0], a[1], sizeof(a[0])) == 0);
}

/* Opcodes worth aiming at: every implemented one, plus a few that are not. */
static const uint16_t fuzz_ops[] = {
	CXIB_CMD_OP_QUERY_HCA_CAP, CXIB_CMD_OP_QUERY_ADAPTER, CXIB_CMD_OP_INIT_HCA,
	CXIB_CMD_OP_TEARDOWN_HCA, CXIB_CMD_OP_ENABLE_HCA, CXIB_CMD_OP_DISABLE_HCA,
	CXIB_CMD_OP_QUERY_PAGES, CXIB_CMD_OP_MANAGE_PAGES, CXIB_CMD_OP_SET_HCA_CAP,
	CXIB_CMD_OP_QUERY_ISSI, CXIB_CMD_OP_SET_ISSI, CXIB_CMD_OP_CREATE_EQ,
	CXIB_CMD_OP_DESTROY_EQ, CXIB_CMD_OP_QUERY_EQ, CXIB_CMD_OP_MAD_IFC,
	CXIB_CMD_OP_QUERY_VPORT_STATE, CXIB_CMD_OP_QUERY_HCA_VPORT_CONTEXT,
	CXIB_CMD_OP_QUERY_HCA_VPORT_GID, CXIB_CMD_OP_QUERY_HCA_VPORT_PKEY,
	CXIB_CMD_OP_ALLOC_UAR, CXIB_CMD_OP_DEALLOC_UAR, CXIB_CMD_OP_ACCESS_REG,
	CXIB_CMD_OP_NOP, CXIB_CMD_OP_ALLOC_PD, CXIB_CMD_OP_DEALLOC_PD,
	CXIB_CMD_OP_ALLOC_XRCD, CXIB_CMD_OP_DEALLOC_XRCD, CXIB_CMD_OP_CREATE_MKEY,
	CXIB_CMD_OP_QUERY_MKEY, CXIB_CMD_OP_DESTROY_MKEY, CXIB_CMD_OP_CREATE_CQ,
	CXIB_CMD_OP_DESTROY_CQ, CXIB_CMD_OP_QUERY_CQ, CXIB_CMD_OP_MODIFY_CQ,
	CXIB_CMD_OP_CREATE_QP, CXIB_CMD_OP_DESTROY_QP, CXIB_CMD_OP_QUERY_QP,
	CXIB_CMD_OP_RST2INIT_QP, CXIB_CMD_OP_INIT2RTR_QP, CXIB_CMD_OP_RTR2RTS_QP,
	CXIB_CMD_OP_2ERR_QP, CXIB_CMD_OP_2RST_QP, CXIB_CMD_OP_CREATE_SRQ,
	CXIB_CMD_OP_DESTROY_SRQ, CXIB_CMD_OP_QUERY_SRQ, CXIB_CMD_OP_ARM_RQ,
	CXIB_CMD_OP_CREATE_XRC_SRQ, CXIB_CMD_OP_DESTROY_XRC_SRQ, CXIB_CMD_OP_QUERY_XRC_SRQ,
	CXIB_CMD_OP_ARM_XRC_SRQ, CXIB_CMD_OP_CREATE_RMP, CXIB_CMD_OP_MODIFY_RMP,
	CXIB_CMD_OP_DESTROY_RMP, CXIB_CMD_OP_QUERY_RMP,
	CXIB_CMD_OP_ATTACH_TO_MCG, CXIB_CMD_OP_DETACH_FROM_MCG,
	CXIB_CMD_OP_SET_DRIVER_VERSION, 0x0000, 0xffff,
};

TEST(fuzz_random_commands_and_mailboxes_never_crash)
{
	static uint8_t in[9000];
	uint64_t seed = 0x1234abcd5678ef01ull, pool = t->fk.base + FAKE_PAGES_OFF;
	uint8_t pat[4096], chk[4096];
	uint32_t uar, eqn, i, k;
	uint64_t buf;

	/* a live function with a command EQ, so the EQE path is in play */
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_alloc_uar(t, &uar), 0);
	buf = drv_eq_buffer(t, 0, 10);
	CHECK_EQ(drv_create_eq(t, buf, 10, uar, 0, 1ull << CXIB_EVENT_TYPE_CMD |
			       1ull << CXIB_EVENT_TYPE_PORT_CHANGE, &eqn), 0);
	memset(pat, 0x3c, sizeof(pat));
	for (i = 0; i < FAKE_PAGES_MAX; i++)
		fake_mem_write(&t->fk, pool + 4096ull * i, pat, sizeof(pat));

	for (i = 0; i < FUZZ_CMDS; i++) {
		uint64_t r = rng_next(&seed);
		unsigned int slot = (unsigned int)(r >> 8) % 32;
		uint32_t inlen = (uint32_t)(rng_next(&seed) % sizeof(in));
		uint32_t outlen = (uint32_t)(rng_next(&seed) % 6000);

		for (k = 0; k < sizeof(in); k += 8) {
			uint64_t v = rng_next(&seed);

			memcpy(in + k, &v, 8);
		}
		/* mostly sane headers, so the commands get past the first checks */
		if (r & 1) {
			cmd_hdr(in, fuzz_ops[(r >> 16) % (sizeof(fuzz_ops) / sizeof(fuzz_ops[0]))],
				(uint16_t)((r >> 24) % 4));
			memset(in + 2, 0, 2);			/* uid */
			memset(in + 4, 0, 2);			/* reserved */
			if (r & 2)
				inlen = 16 + inlen % 400;
			if (r & 4)
				outlen = 16 + outlen % 300;
		}
		drv.sign = (r >> 40) & 1;
		drv.token = (uint8_t)(r >> 48);
		cmd_prepare(t, slot, in, inlen, outlen);
		switch ((r >> 56) % 8) {
		case 0: {				/* break a block of the input chain */
			uint64_t v = rng_next(&seed);
			unsigned int blk = (unsigned int)(v % 9);

			fake_mem_write(&t->fk, drv_mbox_addr(t, slot, false, blk) + 0x230 +
				       (v >> 8) % 16, &v, 8);
			break;
		}
		case 1: {				/* ... or of the output chain */
			uint64_t v = rng_next(&seed);
			unsigned int blk = (unsigned int)(v % 9);

			fake_mem_write(&t->fk, drv_mbox_addr(t, slot, true, blk) + 0x230 +
				       (v >> 8) % 16, &v, 8);
			break;
		}
		case 2:					/* meanwhile on other threads */
			drv_eq_doorbell(t, uar, eqn, (uint32_t)r, r & 1);
			cxfw_port_link(t->dev, 1, (r >> 3) & 1);
			break;
		default:
			break;
		}
		cmd_ring(t, 1u << slot);
		CHECK(cmd_collect(t, slot, NULL, 0) >= -1);
		/* the consumer keeps up with the command EQ now and then */
		if (!(i % 64))
			drv_eq_doorbell(t, uar, eqn, i, true);
	}
	drv.sign = false;
	drv.token = 0;

	/* the device never wrote into the pages it was lent */
	for (i = 0; i < FAKE_PAGES_MAX; i++) {
		fake_mem_read(&t->fk, pool + 4096ull * i, chk, sizeof(chk));
		CHECK(memcmp(chk, pat, sizeof(chk)) == 0);
	}
	/* and it still works: a reset and a clean bring-up / teardown */
	cxfw_reset(t->dev);
	drv_reset(t);
	CHECK_EQ(drv_bringup(t), 0);
	CHECK_EQ(drv_teardown(t), 0);
	CHECK_EQ(drv_pages_out(), 0);
}
