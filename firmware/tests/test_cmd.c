// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command engine: doorbell -> kick -> cxfw_process() -> entry handed back.  Entries are
 * built and checked byte by byte at the PRM offsets (prm-subset.md 2.1, 2.3, 2.5).
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "test.h"

#define ENABLE_HCA	0x104
#define QUERY_ISSI	0x10a
#define STATUS_BAD_OP	0x02
/* the model's syndrome for an unsupported opcode: 0x0b << 24 | opcode */
#define SYND_BAD_OP(op)	(0x0b000000u | (op))

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

static void ring(struct test_ctx *t, uint32_t bits)
{
	wr32(t->dev, 0x018, bits);
}

TEST(doorbell_kicks_and_defers_to_process)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0, 16, 16);
	ring(t, 0x1);
	CHECK_EQ(fake_kicks(&t->fk), 1);
	CHECK_EQ(stats(t).cmd_doorbells, 1);
	/* nothing happens in the MMIO path */
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f] & 1, 1);
	CHECK_EQ(t->fk.dma_reads, 0);

	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f] & 1, 0);
	CHECK_EQ(stats(t).cmds_completed, 1);
	/* idle: a second process does nothing */
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).cmds_completed, 1);
}

TEST(doorbell_completes_entry_with_bad_operation)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t before[64], e[64];
	int i;

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0x0003, 16, 16);
	entry_get(&t->fk, q, 0, before);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);

	/* descriptor and input untouched */
	CHECK(memcmp(e, before, 0x20) == 0);
	CHECK(memcmp(e + 0x30, before + 0x30, 0x0c) == 0);
	/* output: status, syndrome, the rest zero */
	CHECK_EQ(e[0x20], STATUS_BAD_OP);
	CHECK_EQ(e[0x21] | e[0x22] | e[0x23], 0);
	CHECK_EQ(be32_at(e + 0x24), SYND_BAD_OP(ENABLE_HCA));
	for (i = 0x28; i < 0x30; i++)
		CHECK_EQ(e[i], 0);
	/* token and signature kept, delivery status 0, ownership back to software */
	CHECK_EQ(e[0x3c], 0x5a);
	CHECK_EQ(e[0x3d], 0xc3);
	CHECK_EQ(e[0x3f], 0x00);
	CHECK_EQ(stats(t).cmds_completed, 1);
	CHECK_EQ(stats(t).dma_errors, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
}

TEST(doorbell_multiple_slots_complete_independently)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];
	unsigned int s;

	cmdq_setup(t->dev, q);
	for (s = 0; s < 32; s++)
		entry_prepare(&t->fk, q, s, (uint16_t)(0x100 + s), 0, 16, 16);
	ring(t, 0x0000000b);			/* slots 0, 1, 3 in one write */
	ring(t, 0x80000000);			/* the last slot (MANAGE_PAGES') */
	CHECK_EQ(stats(t).cmd_doorbells, 4);
	cxfw_process(t->dev);

	for (s = 0; s < 32; s++) {
		bool rung = s == 0 || s == 1 || s == 3 || s == 31;

		entry_get(&t->fk, q, s, e);
		CHECK_EQ(e[0x3f] & 1, rung ? 0 : 1);
		if (rung)
			CHECK_EQ(be32_at(e + 0x24), SYND_BAD_OP(0x100 + s));
		else
			CHECK_EQ(e[0x20], 0xee);	/* untouched */
	}
	CHECK_EQ(stats(t).cmds_completed, 4);
}

TEST(doorbell_slot_reuse_after_completion)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 2, ENABLE_HCA, 0, 16, 16);
	ring(t, 1u << 2);
	cxfw_process(t->dev);
	entry_prepare(&t->fk, q, 2, QUERY_ISSI, 0, 16, 0x70);
	ring(t, 1u << 2);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 2, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(be32_at(e + 0x24), SYND_BAD_OP(QUERY_ISSI));
	CHECK_EQ(stats(t).cmds_completed, 2);
}

TEST(cmd_entry_wrong_type_bad_descriptor)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0, 16, 16);
	entry_get(&t->fk, q, 0, e);
	e[0x00] = 0x05;
	entry_put(&t->fk, q, 0, e);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0x10 << 1);		/* delivery 0x10, ownership 0 */
	CHECK_EQ(e[0x20], 0xee);		/* output not written */
	CHECK_EQ(stats(t).cmds_completed, 1);
}

TEST(cmd_entry_software_owned_left_alone)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t before[64], e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 4, ENABLE_HCA, 0, 16, 16);
	entry_get(&t->fk, q, 4, before);
	before[0x3f] = 0;
	entry_put(&t->fk, q, 4, before);
	ring(t, 1u << 4);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 4, e);
	CHECK(memcmp(e, before, 64) == 0);
	CHECK_EQ(stats(t).cmds_completed, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 1);
}

TEST(cmd_short_input_length_bad_input_len)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0, 4, 16);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(e[0x20], 0x50);		/* bad input length */
	CHECK_EQ(be32_at(e + 0x24), 0x1e000004);
}

TEST(cmd_short_output_length_delivery_error)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0, 16, 4);
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0x08 << 1);		/* output length error */
	CHECK_EQ(e[0x20], 0xee);
}

TEST(doorbell_slot_out_of_range_ignored)
{
	struct cxfw_config cfg;
	uint64_t q;
	uint8_t e[64];

	cxfw_config_defaults(&cfg);
	cfg.log_cmdq_size = 2;			/* 4 slots */
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	q = FAKE_CMDQ_ADDR(&t->fk);
	CHECK_EQ(rd32(t->dev, 0x014) & 0xff, 0x26);
	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 1, ENABLE_HCA, 0, 16, 16);
	entry_prepare(&t->fk, q, 3, ENABLE_HCA, 0, 16, 16);
	entry_prepare(&t->fk, q, 5, ENABLE_HCA, 0, 16, 16);

	ring(t, 1u << 5);
	CHECK_EQ(fake_kicks(&t->fk), 0);
	CHECK_EQ(fake_err_logs(&t->fk), 1);
	ring(t, 1u << 5 | 1u << 3 | 1u << 1);	/* slot 3 is the last valid one */
	CHECK_EQ(fake_kicks(&t->fk), 1);
	cxfw_process(t->dev);

	entry_get(&t->fk, q, 1, e);
	CHECK_EQ(e[0x3f], 0);
	entry_get(&t->fk, q, 3, e);
	CHECK_EQ(e[0x3f], 0);
	entry_get(&t->fk, q, 5, e);
	CHECK_EQ(e[0x3f], 1);
	CHECK_EQ(e[0x20], 0xee);
	CHECK_EQ(stats(t).cmds_completed, 2);
	CHECK_EQ(stats(t).cmd_doorbells, 2);
}

TEST(cmdq_address_high_word_used)
{
	struct cxfw_config cfg;
	uint64_t q;
	uint8_t e[64];

	cxfw_config_defaults(&cfg);
	CHECK(test_recreate(t, &cfg, 0x2400000000ull));	/* guest RAM above 4 GiB */
	q = FAKE_CMDQ_ADDR(&t->fk);
	cmdq_setup(t->dev, q);
	CHECK_EQ(rd32(t->dev, 0x010), 0x24);
	entry_prepare(&t->fk, q, 7, ENABLE_HCA, 0, 16, 16);
	ring(t, 1u << 7);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 7, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(stats(t).dma_errors, 0);
}

TEST(dma_failure_counted_no_crash)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	/* queue never programmed: address 0 is outside guest memory */
	ring(t, 0x3);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).dma_errors, 2);
	CHECK_EQ(stats(t).cmds_completed, 0);

	/* queue in unmapped space */
	cmdq_setup(t->dev, 0xfff000000000ull);
	ring(t, 0x1);
	cxfw_process(t->dev);
	CHECK_EQ(stats(t).dma_errors, 3);

	/* reads work, writes are refused: the entry stays with the hardware */
	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0, 16, 16);
	t->fk.fail_writes = true;
	ring(t, 0x1);
	cxfw_process(t->dev);
	t->fk.fail_writes = false;
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 1);
	CHECK_EQ(stats(t).dma_errors, 4);
	CHECK_EQ(stats(t).cmds_completed, 0);

	/* and the engine still works afterwards */
	ring(t, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(stats(t).cmds_completed, 1);
}

TEST(cmd_writes_stay_inside_the_entry)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	unsigned int s;

	cmdq_setup(t->dev, q);
	for (s = 0; s < 32; s++)
		entry_prepare(&t->fk, q, s, ENABLE_HCA, 0, 16, 16);
	for (s = 0; s < 32; s++) {
		t->fk.wr_lo = q + 64ull * s;
		t->fk.wr_hi = t->fk.wr_lo + 64;
		ring(t, 1u << s);
		cxfw_process(t->dev);
	}
	CHECK_EQ(t->fk.wr_violations, 0);
	CHECK_EQ(t->fk.dma_writes, 64);		/* output, then status/ownership */
	CHECK_EQ(stats(t).cmds_completed, 32);
}

TEST(dma_reentering_mmio_does_not_deadlock)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, ENABLE_HCA, 0, 16, 16);
	t->fk.reenter = t->dev;
	ring(t, 0x1);
	cxfw_process(t->dev);
	t->fk.reenter = NULL;
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(stats(t).uar_writes, 1);
}

/* ---- vCPU thread vs worker thread ----------------------------------------------- */

struct worker {
	struct test_ctx *t;
	bool stop;
	unsigned int seen;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fake *fk = &w->t->fk;

	for (;;) {
		pthread_mutex_lock(&fk->lock);
		while (!w->stop && fk->kicks == w->seen)
			pthread_cond_wait(&fk->kicked, &fk->lock);
		if (w->stop) {
			pthread_mutex_unlock(&fk->lock);
			return NULL;
		}
		w->seen = fk->kicks;
		pthread_mutex_unlock(&fk->lock);
		cxfw_process(w->t->dev);
	}
}

TEST(concurrent_doorbells_and_worker_complete_everything)
{
	enum { ROUNDS = 40, SLOTS = 31 };
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	struct worker w = { .t = t };
	pthread_t th;
	unsigned int r, s, busy = 0;
	unsigned long spins;
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	CHECK(pthread_create(&th, NULL, worker_main, &w) == 0);
	for (r = 0; r < ROUNDS; r++) {
		for (s = 0; s < SLOTS; s++) {
			entry_prepare(&t->fk, q, s, (uint16_t)(0x100 + s), 0, 16, 16);
			ring(t, 1u << s);
			(void)rd32(t->dev, 0x1010);	/* the health poll meanwhile */
		}
		/* wait for the worker, but never forever */
		for (spins = 0; spins < 2000000; spins++) {
			busy = 0;
			for (s = 0; s < SLOTS; s++) {
				entry_get(&t->fk, q, s, e);
				busy += e[0x3f] & 1;
			}
			if (!busy)
				break;
			sched_yield();
		}
		if (busy)
			break;
	}
	pthread_mutex_lock(&t->fk.lock);
	w.stop = true;
	pthread_cond_broadcast(&t->fk.kicked);
	pthread_mutex_unlock(&t->fk.lock);
	pthread_join(th, NULL);

	CHECK_EQ(busy, 0);
	CHECK_EQ(stats(t).cmds_completed, ROUNDS * SLOTS);
	CHECK_EQ(stats(t).cmd_doorbells, ROUNDS * SLOTS);
	CHECK_EQ(stats(t).dma_errors, 0);
}
