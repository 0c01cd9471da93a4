// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * BAR0 register file as the driver sees it.  Offsets and values are written as the PRM gives
 * them (the PRM's initialization segment; mlx5_core's wait_fw_init() and cmd.c), not through the header macros, so a wrong macro cannot hide
 * a wrong register.
 */
#include <string.h>

#include "test.h"

#define BAR0_SIZE	(32ull << 20)
#define UAR3		(3ull * 4096)

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

TEST(iseg_fw_rev_reads_config)
{
	struct cxfw_config cfg;

	/* defaults: 12.28.1002 */
	CHECK_EQ(rd32(t->dev, 0x000), 28u << 16 | 12);
	CHECK_EQ(rd32(t->dev, 0x004) & 0xffff, 1002);

	cxfw_config_defaults(&cfg);
	cfg.fw_major = 16;
	cfg.fw_minor = 35;
	cfg.fw_subminor = 4030;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(rd32(t->dev, 0x000), 0x00230010);
	CHECK_EQ(rd32(t->dev, 0x004), 0x00050fbe);
}

TEST(iseg_cmdif_rev_is_5)
{
	CHECK_EQ(rd32(t->dev, 0x004) >> 16, 5);
}

TEST(cmdq_low_word_keeps_size_and_stride)
{
	/* power-on: no address, nic_interface 0, log size 5, log stride 6 */
	CHECK_EQ(rd32(t->dev, 0x014), 0x00000056);
	CHECK_EQ(rd32(t->dev, 0x014) & 0xff, 0x56);	/* what the driver reads first */

	wr32(t->dev, 0x014, 0xabcde000);
	CHECK_EQ(rd32(t->dev, 0x014), 0xabcde056);

	/* low byte written as garbage: size/stride are read-only, bit 11 reserved */
	wr32(t->dev, 0x014, 0x12345fff);
	CHECK_EQ(rd32(t->dev, 0x014), 0x12345756);
}

TEST(cmdq_address_round_trips)
{
	wr32(t->dev, 0x010, 0x00000001);
	wr32(t->dev, 0x014, 0x80000000);
	CHECK_EQ(rd32(t->dev, 0x010), 0x00000001);
	CHECK_EQ(rd32(t->dev, 0x014), 0x80000056);
	wr32(t->dev, 0x010, 0xfedcba98);
	CHECK_EQ(rd32(t->dev, 0x010), 0xfedcba98);
}

TEST(nic_interface_write_is_stored)
{
	uint32_t v;

	cmdq_setup(t->dev, 0x123456000ull);
	/* the driver's read-modify-write of nic_interface (1 = disabled) */
	v = rd32(t->dev, 0x014);
	wr32(t->dev, 0x014, (v & ~0x700u) | 1u << 8);
	CHECK_EQ(rd32(t->dev, 0x014), 0x23456156);
	CHECK_EQ(rd32(t->dev, 0x010), 0x1);
	/* 7 = SW reset */
	wr32(t->dev, 0x014, (v & ~0x700u) | 7u << 8);
	CHECK_EQ((rd32(t->dev, 0x014) >> 8) & 7, 7);
}

TEST(cmdq_low_word_narrow_writes_touch_only_their_bytes)
{
	wr32(t->dev, 0x014, 0xabcde000);
	/* byte 0x17 holds size/stride: ignored */
	cxfw_mmio_write(t->dev, 0x017, 0x00, 1);
	CHECK_EQ(rd32(t->dev, 0x014), 0xabcde056);
	/* byte 0x16 holds addr[15:12] and nic_interface */
	cxfw_mmio_write(t->dev, 0x016, 0x91, 1);
	CHECK_EQ(rd32(t->dev, 0x014), 0xabcd9156);
	/* 2-byte write at 0x14: addr[31:16]; value bytes in address order */
	cxfw_mmio_write(t->dev, 0x014, 0x3412, 2);
	CHECK_EQ(rd32(t->dev, 0x014), 0x12349156);
}

TEST(doorbell_reads_zero)
{
	wr32(t->dev, 0x018, 0x1);
	CHECK_EQ(rd32(t->dev, 0x018), 0);
}

TEST(initializing_clears_after_delay)
{
	/* default init_delay_ms = 10 */
	CHECK_EQ(rd32(t->dev, 0x1fc), 0x80000000);
	fake_advance_ns(&t->fk, 10 * 1000000ull - 1);
	CHECK_EQ(rd32(t->dev, 0x1fc) >> 31, 1);
	fake_advance_ns(&t->fk, 1);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0);
	fake_advance_ms(&t->fk, 1000);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0);
}

TEST(initializing_zero_delay_never_set)
{
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.init_delay_ms = 0;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK_EQ(rd32(t->dev, 0x1fc), 0);
}

TEST(embedded_cpu_and_timeouts_read_zero)
{
	/* bit 23 embedded_cpu must be 0; cmd_exec_to / cmd_q_init_to 0 = not supported */
	CHECK_EQ(rd32(t->dev, 0x1fc) & 0x7fffffff, 0);
	fake_advance_ms(&t->fk, 50);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0);
	CHECK_EQ(rd32(t->dev, 0xff8), 0);
	CHECK_EQ(rd32(t->dev, 0xffc), 0);
}

TEST(health_buffer_reads_healthy)
{
	uint64_t off;

	for (off = 0x200; off < 0x240; off += 4) {
		uint32_t v = rd32(t->dev, off);

		if (off == 0x230)
			CHECK_EQ(v, rd32(t->dev, 0x000));	/* fw_ver: same as fw_rev */
		else if (off == 0x234)
			CHECK_EQ(v, 0x1013);			/* hw_id: the PCI device */
		else
			CHECK_EQ(v, 0);
	}
	CHECK_NE(rd32(t->dev, 0x230), 0xffffffff);
	CHECK_EQ(rd32(t->dev, 0x1010) >> 24, 0);
}

TEST(health_counter_advances)
{
	uint32_t a, b;
	int i;

	a = rd32(t->dev, 0x1010);
	CHECK_EQ(a, 0);
	fake_advance_ms(&t->fk, 1);
	CHECK_EQ(rd32(t->dev, 0x1010), 1);
	fake_advance_ns(&t->fk, 500000);
	CHECK_EQ(rd32(t->dev, 0x1010), 1);
	fake_advance_ns(&t->fk, 500000);
	CHECK_EQ(rd32(t->dev, 0x1010), 2);

	/* any two reads >= 1 ms apart differ, at any phase of the millisecond */
	for (i = 0; i < 50; i++) {
		fake_advance_ns(&t->fk, 137777);
		a = rd32(t->dev, 0x1010);
		fake_advance_ns(&t->fk, 1000000);
		b = rd32(t->dev, 0x1010);
		CHECK_NE(a, b);
		CHECK_EQ(b >> 24, 0);
	}
	/* the driver polls every 2 s: 2000 ticks later */
	a = rd32(t->dev, 0x1010);
	fake_advance_ms(&t->fk, 2000);
	CHECK_EQ(rd32(t->dev, 0x1010) - a, 2000);
}

TEST(internal_timer_follows_clock)
{
	struct cxfw_config cfg;

	CHECK_EQ(rd32(t->dev, 0x1000), 0);
	CHECK_EQ(rd32(t->dev, 0x1004), 0);
	fake_advance_ms(&t->fk, 1);			/* 156.25 MHz default */
	CHECK_EQ(rd32(t->dev, 0x1004), 156250);
	fake_advance_ns(&t->fk, 64);			/* 64 ns = 10 ticks */
	CHECK_EQ(rd32(t->dev, 0x1004), 156260);

	cxfw_config_defaults(&cfg);
	cfg.device_frequency_khz = 0;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	fake_advance_ms(&t->fk, 5);
	CHECK_EQ(rd32(t->dev, 0x1004), 0);
}

TEST(mmio_8byte_timer_read)
{
	uint64_t v, ticks = 30000ull * 156250;	/* 30 s: past 2^32 ticks */
	uint8_t b[8];
	int i;

	fake_advance_ms(&t->fk, 30000);
	CHECK_EQ(rd32(t->dev, 0x1000), ticks >> 32);
	CHECK_EQ(rd32(t->dev, 0x1004), (uint32_t)ticks);

	v = cxfw_mmio_read(t->dev, 0x1000, 8);
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	/* BAR bytes: timer_h big-endian, then timer_l big-endian */
	CHECK_EQ(be32_at(b), ticks >> 32);
	CHECK_EQ(be32_at(b + 4), (uint32_t)ticks);
}

TEST(mmio_narrow_reads_are_byte_lanes)
{
	/* 0x004 = 0x0005 03ea (cmdif 5, subminor 1002): bytes 00 05 03 ea */
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x004, 1), 0x00);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x005, 1), 0x05);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x006, 1), 0x03);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x007, 1), 0xea);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x004, 2), 0x0500);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x006, 2), 0xea03);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x004, 4), 0xea030500);
	/* the driver reads the low byte of 0x014 first */
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x017, 1), 0x56);
}

TEST(mmio_8byte_access_spans_two_registers)
{
	uint64_t v = cxfw_mmio_read(t->dev, 0x000, 8);

	/* bytes: 00 1c 00 0c | 00 05 03 ea */
	CHECK_EQ(v, 0xea0305000c001c00ull);

	/* one 8-byte write programs both cmdq address words */
	cxfw_mmio_write(t->dev, 0x010, 0x00f0debc02000000ull, 8);
	CHECK_EQ(rd32(t->dev, 0x010), 0x00000002);
	CHECK_EQ(rd32(t->dev, 0x014), 0xbcdef056);
}

TEST(misaligned_access_reads_zero)
{
	unsigned int errs = fake_err_logs(&t->fk);

	wr32(t->dev, 0x014, 0xabcde000);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x002, 4), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x005, 2), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x1004, 8), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x004, 3), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x004, 0), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x000, 16), 0);
	cxfw_mmio_write(t->dev, 0x012, 0xffffffff, 4);
	cxfw_mmio_write(t->dev, 0x014, 0xffffffff, 3);
	CHECK_EQ(rd32(t->dev, 0x010), 0);
	CHECK_EQ(rd32(t->dev, 0x014), 0xabcde056);
	CHECK_EQ(fake_err_logs(&t->fk) - errs, 8);
}

TEST(out_of_bar_access_reads_zero)
{
	unsigned int errs = fake_err_logs(&t->fk);

	CHECK_EQ(cxfw_mmio_read(t->dev, BAR0_SIZE, 4), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, BAR0_SIZE + 0x1010, 4), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, UINT64_MAX - 7, 8), 0);
	cxfw_mmio_write(t->dev, BAR0_SIZE + 0x18, 0x1, 4);
	cxfw_mmio_write(t->dev, UINT64_MAX - 3, 0x1, 4);
	CHECK_EQ(fake_err_logs(&t->fk) - errs, 5);
	CHECK_EQ(fake_kicks(&t->fk), 0);
	/* the last bytes of the BAR are fine */
	CHECK_EQ(cxfw_mmio_read(t->dev, BAR0_SIZE - 8, 8), 0);
	CHECK_EQ(fake_err_logs(&t->fk) - errs, 5);
}

TEST(unused_iseg_offsets_read_zero_and_ignore_writes)
{
	static const uint64_t unused[] = { 0x008, 0x00c, 0x01c, 0x100, 0x1f8, 0x240,
					   0xff4, 0x1008, 0x100c, 0x1014, 0x1040, 0x2000,
					   0x200c, 0x2010, 0x2ffc };
	uint32_t fw = rd32(t->dev, 0x000);
	size_t i;

	for (i = 0; i < sizeof(unused) / sizeof(unused[0]); i++) {
		wr32(t->dev, unused[i], 0xffffffff);
		CHECK_EQ(rd32(t->dev, unused[i]), 0);
	}
	/* read-only registers ignore writes */
	wr32(t->dev, 0x000, 0xffffffff);
	wr32(t->dev, 0x004, 0);
	wr32(t->dev, 0x1fc, 0);
	wr32(t->dev, 0x230, 0xffffffff);
	wr32(t->dev, 0x1010, 0xff000000);
	CHECK_EQ(rd32(t->dev, 0x000), fw);
	CHECK_EQ(rd32(t->dev, 0x004) >> 16, 5);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0x80000000);
	CHECK_EQ(rd32(t->dev, 0x230), fw);
	CHECK_EQ(rd32(t->dev, 0x1010), 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
	CHECK_EQ(fake_kicks(&t->fk), 0);
}

TEST(uar_write_counted_read_zero)
{
	cxfw_mmio_write(t->dev, UAR3 + 0x40, 0x01000005, 4);		/* EQ doorbell */
	cxfw_mmio_write(t->dev, UAR3 + 0x20, 0x1234567801000000ull, 8);	/* CQ arm */
	cxfw_mmio_write(t->dev, BAR0_SIZE - 4096 + 0x800, 0xdeadbeef, 8);	/* BlueFlame */
	CHECK_EQ(stats(t).uar_writes, 3);
	CHECK_EQ(cxfw_mmio_read(t->dev, UAR3 + 0x40, 4), 0);
	CHECK_EQ(cxfw_mmio_read(t->dev, UAR3 + 0x800, 8), 0);
	CHECK_EQ(fake_kicks(&t->fk), 0);
	/* no EQ 1, CQ 0x12345678 or QP 0 exists: the three doorbells are ignored and logged */
	CHECK_EQ(fake_err_logs(&t->fk), 3);
	CHECK_EQ(stats(t).eq_doorbells, 1);
	CHECK_EQ(stats(t).cq_doorbells, 1);
	CHECK_EQ(stats(t).sq_doorbells, 1);
	CHECK_EQ(stats(t).msix_sent, 0);
}

TEST(mmio_accesses_counted)
{
	struct cxfw_stats st;

	(void)rd32(t->dev, 0x000);
	(void)cxfw_mmio_read(t->dev, 0x003, 4);		/* bad, still counted */
	wr32(t->dev, 0x010, 0);
	wr32(t->dev, UAR3, 0);
	st = stats(t);
	CHECK_EQ(st.mmio_reads, 2);
	CHECK_EQ(st.mmio_writes, 2);
	CHECK_EQ(st.uar_writes, 1);
}
