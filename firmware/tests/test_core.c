// SPDX-License-Identifier: GPL-2.0-or-later
/* Lifecycle, configuration, ports, fault injection and reset. */
#include <string.h>

#include "test.h"

static struct cxfw_stats stats(struct test_ctx *t)
{
	struct cxfw_stats st;

	cxfw_get_stats(t->dev, &st);
	return st;
}

TEST(config_defaults_describe_a_connectx4)
{
	struct cxfw_config cfg;

	memset(&cfg, 0xa5, sizeof(cfg));
	cxfw_config_defaults(&cfg);
	CHECK_EQ(cfg.pci_device_id, 0x1013);
	CHECK_EQ(cfg.fw_major, 12);
	CHECK_EQ(cfg.fw_minor, 28);
	CHECK_EQ(cfg.fw_subminor, 1002);
	CHECK_EQ(cfg.num_ports, 1);
	CHECK(cfg.num_msix >= 1);
	CHECK_EQ(cfg.log_cmdq_size, 5);
	CHECK_EQ(cfg.node_guid, 0);
	CHECK(cfg.device_frequency_khz != 0);
}

TEST(create_rejects_bad_config)
{
	struct cxfw_platform plat, bad;
	struct cxfw_config cfg;

	fake_platform(&t->fk, &plat);
	cxfw_config_defaults(&cfg);
	CHECK(cxfw_create(NULL, &plat) == NULL);
	CHECK(cxfw_create(&cfg, NULL) == NULL);

	cfg.num_ports = 0;
	CHECK(cxfw_create(&cfg, &plat) == NULL);
	cfg.num_ports = 3;
	CHECK(cxfw_create(&cfg, &plat) == NULL);
	cxfw_config_defaults(&cfg);
	cfg.num_msix = 0;
	CHECK(cxfw_create(&cfg, &plat) == NULL);
	cxfw_config_defaults(&cfg);
	cfg.log_cmdq_size = 6;			/* the doorbell has 32 bits */
	CHECK(cxfw_create(&cfg, &plat) == NULL);
	cfg.log_cmdq_size = 0;
	CHECK(cxfw_create(&cfg, &plat) == NULL);

	cxfw_config_defaults(&cfg);
	bad = plat;
	bad.dma_read = NULL;
	CHECK(cxfw_create(&cfg, &bad) == NULL);
	bad = plat;
	bad.clock_ns = NULL;
	CHECK(cxfw_create(&cfg, &bad) == NULL);
	bad = plat;
	bad.kick = NULL;
	CHECK(cxfw_create(&cfg, &bad) == NULL);

	/* optional callbacks may be absent */
	bad = plat;
	bad.log = NULL;
	bad.port_send = NULL;
	cfg.num_ports = 2;
	{
		struct cxfw_dev *dev = cxfw_create(&cfg, &bad);

		CHECK(dev != NULL);
		(void)cxfw_mmio_read(dev, 0x3, 4);	/* an error log with no logger */
		cxfw_destroy(dev);
	}
}

TEST(destroy_null_is_noop)
{
	cxfw_destroy(NULL);
}

TEST(port_link_and_receive_counted)
{
	static const uint8_t pkt[64] = { 0xf0, 0x02 };
	struct cxfw_config cfg;

	cxfw_config_defaults(&cfg);
	cfg.num_ports = 2;
	CHECK(test_recreate(t, &cfg, FAKE_MEM_BASE));
	CHECK(!stats(t).link_up[0]);
	CHECK(!stats(t).link_up[1]);

	cxfw_port_receive(t->dev, 1, pkt, sizeof(pkt));	/* link down: dropped */
	CHECK_EQ(stats(t).pkts_received, 0);

	cxfw_port_link(t->dev, 1, true);
	CHECK(stats(t).link_up[0]);
	CHECK(!stats(t).link_up[1]);
	cxfw_port_receive(t->dev, 1, pkt, sizeof(pkt));
	cxfw_port_receive(t->dev, 1, pkt, 1);
	CHECK_EQ(stats(t).pkts_received, 2);

	cxfw_port_link(t->dev, 2, true);
	cxfw_port_link(t->dev, 1, false);
	CHECK(!stats(t).link_up[0]);
	CHECK(stats(t).link_up[1]);
	CHECK_EQ(stats(t).pkts_sent, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 0);
}

TEST(port_invalid_index_or_packet_ignored)
{
	static const uint8_t pkt[8];

	cxfw_port_link(t->dev, 0, true);
	cxfw_port_link(t->dev, 2, true);	/* one port by default */
	cxfw_port_link(t->dev, 1000, true);
	cxfw_port_link(t->dev, 1, true);
	cxfw_port_receive(t->dev, 0, pkt, sizeof(pkt));
	cxfw_port_receive(t->dev, 2, pkt, sizeof(pkt));
	cxfw_port_receive(t->dev, 1, NULL, 100);
	cxfw_port_receive(t->dev, 1, pkt, 0);
	CHECK(stats(t).link_up[0]);
	CHECK(!stats(t).link_up[1]);
	CHECK_EQ(stats(t).pkts_received, 0);
	CHECK_EQ(fake_err_logs(&t->fk), 7);
}

TEST(inject_fatal_sets_health_syndrome)
{
	uint32_t fw = rd32(t->dev, 0x000);

	fake_advance_ms(&t->fk, 5);
	CHECK_EQ(rd32(t->dev, 0x1010), 5);
	fake_advance_ms(&t->fk, 2000);
	cxfw_inject_fatal(t->dev, 0x0b);

	/* health buffer: RFR, valid, severity 2; synd at byte 0x23d; fw_ver still sane */
	CHECK_EQ(rd32(t->dev, 0x238), 0x8a000000);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x238, 1) & 0x80, 0x80);
	CHECK_EQ(rd32(t->dev, 0x23c), 0x000b0000);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x23d, 1), 0x0b);
	CHECK_EQ(rd32(t->dev, 0x22c), 2);		/* time: seconds since power-on */
	CHECK_EQ(rd32(t->dev, 0x230), fw);
	CHECK_NE(rd32(t->dev, 0x230), 0xffffffff);
	/* nic_interface is the driver's: untouched */
	CHECK_EQ((rd32(t->dev, 0x014) >> 8) & 7, 0);

	/* health_counter: syndrome in [31:24], counter frozen */
	CHECK_EQ(rd32(t->dev, 0x1010), 0x0b000000u | 2005);
	fake_advance_ms(&t->fk, 6000);
	CHECK_EQ(rd32(t->dev, 0x1010), 0x0b000000u | 2005);

	/* a second fatal updates the syndrome, the counter stays frozen */
	cxfw_inject_fatal(t->dev, 0x10);
	CHECK_EQ(rd32(t->dev, 0x1010), 0x10000000u | 2005);
	CHECK_EQ(cxfw_mmio_read(t->dev, 0x23d, 1), 0x10);
}

TEST(inject_fatal_zero_syndrome_reads_as_fatal)
{
	cxfw_inject_fatal(t->dev, 0);
	CHECK_EQ(rd32(t->dev, 0x238) >> 31, 1);
	CHECK_NE((rd32(t->dev, 0x23c) >> 16) & 0xff, 0);
}

TEST(fatal_firmware_ignores_doorbells)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint8_t e[64];

	cmdq_setup(t->dev, q);
	entry_prepare(&t->fk, q, 0, 0x104, 0, 16, 16);
	entry_prepare(&t->fk, q, 1, 0x104, 0, 16, 16);
	wr32(t->dev, 0x018, 0x1);		/* rung before the crash */
	cxfw_inject_fatal(t->dev, 0x07);
	wr32(t->dev, 0x018, 0x2);		/* rung after */
	CHECK_EQ(fake_kicks(&t->fk), 1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 1);
	entry_get(&t->fk, q, 1, e);
	CHECK_EQ(e[0x3f], 1);
	CHECK_EQ(stats(t).cmds_completed, 0);
}

TEST(reset_restores_power_on_state)
{
	uint64_t q = FAKE_CMDQ_ADDR(&t->fk);
	uint32_t fw = rd32(t->dev, 0x000);
	uint32_t timer_before;
	uint64_t off;
	uint8_t e[64];

	cxfw_port_link(t->dev, 1, true);
	fake_advance_ms(&t->fk, 100);
	cmdq_setup(t->dev, q);
	wr32(t->dev, 0x014, ((uint32_t)q & 0xfffff000u) | 1u << 8);
	entry_prepare(&t->fk, q, 0, 0x104, 0, 16, 16);
	wr32(t->dev, 0x018, 0x1);		/* pending, never processed */
	cxfw_inject_fatal(t->dev, 0x0c);
	timer_before = rd32(t->dev, 0x1004);

	cxfw_reset(t->dev);

	CHECK_EQ(rd32(t->dev, 0x010), 0);
	CHECK_EQ(rd32(t->dev, 0x014), 0x56);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0x80000000);	/* initializing again */
	CHECK_EQ(rd32(t->dev, 0x1010), 0);		/* healthy, counter restarted */
	for (off = 0x200; off < 0x240; off += 4)
		if (off != 0x230 && off != 0x234)
			CHECK_EQ(rd32(t->dev, off), 0);
	CHECK_EQ(rd32(t->dev, 0x230), fw);
	/* the pending doorbell died with the reset */
	cmdq_setup(t->dev, q);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 1);
	/* kept: link (a cable property), free-running timer, counters */
	CHECK(stats(t).link_up[0]);
	CHECK(rd32(t->dev, 0x1004) >= timer_before);
	CHECK(stats(t).mmio_writes > 0);

	fake_advance_ms(&t->fk, 10);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0);
	CHECK_EQ(rd32(t->dev, 0x1010), 10);
	/* and the engine works after the reset */
	wr32(t->dev, 0x018, 0x1);
	cxfw_process(t->dev);
	entry_get(&t->fk, q, 0, e);
	CHECK_EQ(e[0x3f], 0);
	CHECK_EQ(stats(t).cmds_completed, 1);
}

TEST(clock_going_backwards_is_harmless)
{
	t->fk.now_ns = 1000;			/* before power-on */
	CHECK_EQ(rd32(t->dev, 0x1010), 0);
	CHECK_EQ(rd32(t->dev, 0x1004), 0);
	CHECK_EQ(rd32(t->dev, 0x1fc), 0x80000000);
}

TEST(stats_format_names_every_counter)
{
	struct cxfw_stats st;
	char buf[4096], small[16];
	size_t need, n;

	memset(&st, 0, sizeof(st));
	st.link_up[0] = true;
	st.sq_doorbells = 7;
	st.mcast_pkts_received = 12345678901ull;	/* the last counter */
	st.mmio_reads = 3;				/* the first */
	need = cxfw_stats_format(&st, buf, sizeof(buf));
	CHECK_EQ(need, strlen(buf));
	CHECK(strncmp(buf, "link_up1=1 link_up2=0 mmio_reads=3 ", 35) == 0);
	CHECK(strstr(buf, " sq_doorbells=7 ") != NULL);
	CHECK(strstr(buf, " mcast_pkts_received=12345678901") != NULL);
	CHECK(buf[need - 1] != ' ');
	/* a short buffer is truncated, terminated, and the needed length still reported */
	n = cxfw_stats_format(&st, small, sizeof(small));
	CHECK_EQ(n, need);
	CHECK_EQ(strlen(small), sizeof(small) - 1);
	CHECK_EQ(cxfw_stats_format(&st, NULL, 0), need);
}
