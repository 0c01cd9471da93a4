// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz smoke: a deterministic stream of garbage from the guest (entries, doorbells, BAR0
 * accesses of every size and alignment, queue addresses anywhere) and from the platform
 * (clock jumps, resets, fatals, cable events).  The core must not crash (the sanitizer
 * build checks memory and UB), must only write guest memory inside the entry it is
 * completing, and must leave every slot either owned by hardware or handed back.
 */
#include <string.h>

#include "test.h"

#define FUZZ_ITERS	3000

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
