// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fault injection (fault.c): the link faults' rates measured over many packets, their
 * reproducibility, reordering and corruption as a receiver sees them, the settings'
 * parser, and the firmware faults (health counter, command interface, one command, DMA).
 */
#include <stdio.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"
#include "drv.h"

#define RATE_PKTS	20000u		/* packets per measured rate */
#define MY_LID		0x21

/* The packets the device put on its cable, in order. */
static struct {
	unsigned int n;
	uint32_t psn[2 * RATE_PKTS];
	size_t len;
	uint8_t last[CXFW_PKT_MAX];
} seen;

static int seen_send(void *opaque, unsigned int port, const void *pkt, size_t len)
{
	struct cxfw_pkt p;

	(void)opaque;
	(void)port;
	if (seen.n < 2 * RATE_PKTS)
		seen.psn[seen.n] = cxfw_pkt_parse(pkt, len, &p) ? UINT32_MAX : p.psn;
	seen.n++;
	seen.len = len;
	memcpy(seen.last, pkt, len);
	return 0;
}

/* The fixture's device, its port up with LID MY_LID, on a platform that records sends. */
static bool fault_dev(struct test_ctx *t)
{
	struct cxfw_platform plat;
	struct cxfw_config cfg;

	memset(&seen, 0, sizeof(seen));
	cxfw_config_defaults(&cfg);
	cfg.lid = MY_LID;
	cxfw_destroy(t->dev);
	fake_platform(&t->fk, &plat);
	plat.port_send = seen_send;
	t->dev = cxfw_create(&cfg, &plat);
	if (!t->dev)
		return false;
	cxfw_port_link(t->dev, 1, true);
	return true;
}

static bool set(struct test_ctx *t, const char *spec)
{
	char err[160];

	return cxfw_fault_set(t->dev, spec, err, sizeof(err)) == 0;
}

/* Send @n UD packets with PSNs 0 .. n-1 to another LID. */
static unsigned int send_n(struct test_ctx *t, unsigned int n)
{
	struct cxfw_pkt p;
	unsigned int i, ok = 0;

	memset(&p, 0, sizeof(p));
	p.opcode = CXIB_BTH_OP_UD_SEND_ONLY;
	p.dlid = 0x42;
	p.dqpn = 0x77;
	p.payload = (const uint8_t *)"payload!";
	p.paylen = 8;
	for (i = 0; i < n; i++) {
		p.psn = i;
		ok += cxfw_wire_send(t->dev, 1, &p) == 0;
	}
	cxfw_wire_release_held(t->dev);
	return ok;
}

/* @got within @tol_pct percent of @want. */
static bool near(uint64_t got, uint64_t want, unsigned int tol_pct)
{
	uint64_t d = got > want ? got - want : want - got;

	return d * 100 <= want * tol_pct;
}

static uint64_t link_count(struct test_ctx *t, unsigned int kind)
{
	return t->dev->fault.link[0].count[kind];
}

TEST(fault_loss_rate_is_what_was_asked_and_every_loss_is_counted)
{
	CHECK(fault_dev(t));
	CHECK(set(t, "loss 10%"));
	/* the port transmitted every packet; the cable lost some */
	CHECK_EQ(send_n(t, RATE_PKTS), RATE_PKTS);
	CHECK(near(RATE_PKTS - seen.n, RATE_PKTS / 10, 10));
	CHECK_EQ(link_count(t, CXFW_LINK_LOSS), RATE_PKTS - seen.n);
	CHECK_EQ(t->dev->ports[0].pma.xmit_pkts, RATE_PKTS);
	/* 0 turns it off again */
	CHECK(set(t, "loss 0"));
	seen.n = 0;
	send_n(t, 1000);
	CHECK_EQ(seen.n, 1000);
}

TEST(fault_duplication_rate_and_each_duplicate_follows_its_original)
{
	unsigned int i, dups = 0;

	CHECK(fault_dev(t));
	CHECK(set(t, "dup 50000"));		/* 5 % in parts per million */
	send_n(t, RATE_PKTS);
	for (i = 1; i < seen.n; i++)
		dups += seen.psn[i] == seen.psn[i - 1];
	CHECK_EQ(seen.n - RATE_PKTS, dups);
	CHECK(near(dups, RATE_PKTS / 20, 10));
	CHECK_EQ(link_count(t, CXFW_LINK_DUP), dups);
}

TEST(fault_reordering_swaps_a_packet_with_the_next_and_loses_none)
{
	unsigned int i, swapped = 0;
	bool have[RATE_PKTS] = { false };

	CHECK(fault_dev(t));
	CHECK(set(t, "reorder 2%"));
	send_n(t, RATE_PKTS);
	CHECK_EQ(seen.n, RATE_PKTS);
	for (i = 0; i < seen.n; i++) {
		CHECK(seen.psn[i] < RATE_PKTS && !have[seen.psn[i]]);
		have[seen.psn[i]] = true;
		if (i && seen.psn[i] < seen.psn[i - 1]) {
			CHECK_EQ(seen.psn[i] + 1, seen.psn[i - 1]);	/* after the next one */
			swapped++;
		}
	}
	CHECK_EQ(swapped, link_count(t, CXFW_LINK_REORDER));
	CHECK(near(swapped, RATE_PKTS / 50, 15));
}

TEST(fault_a_held_packet_with_no_successor_goes_at_the_end_of_the_pass)
{
	CHECK(fault_dev(t));
	CHECK(set(t, "reorder 100%"));
	CHECK(set(t, "seed 5"));
	memset(&seen, 0, sizeof(seen));
	{
		struct cxfw_pkt p;

		memset(&p, 0, sizeof(p));
		p.opcode = CXIB_BTH_OP_UD_SEND_ONLY;
		p.dlid = 0x42;
		p.dqpn = 0x77;
		CHECK_EQ(cxfw_wire_send(t->dev, 1, &p), 0);
	}
	CHECK_EQ(seen.n, 0);			/* held back ... */
	cxfw_process(t->dev);
	CHECK_EQ(seen.n, 1);			/* ... and not lost */
}

TEST(fault_same_seed_same_losses_other_seed_other_losses)
{
	uint32_t first[RATE_PKTS / 10];
	unsigned int n1;

	CHECK(fault_dev(t));
	CHECK(set(t, "seed 77"));
	CHECK(set(t, "loss 20%"));
	send_n(t, RATE_PKTS / 10);
	n1 = seen.n;
	memcpy(first, seen.psn, n1 * sizeof(first[0]));
	CHECK(fault_dev(t));
	CHECK(set(t, "seed 77"));
	CHECK(set(t, "loss 20%"));
	send_n(t, RATE_PKTS / 10);
	CHECK_EQ(seen.n, n1);
	CHECK(!memcmp(first, seen.psn, n1 * sizeof(first[0])));
	CHECK(fault_dev(t));
	CHECK(set(t, "seed 78"));
	CHECK(set(t, "loss 20%"));
	send_n(t, RATE_PKTS / 10);
	CHECK(seen.n != n1 || memcmp(first, seen.psn, n1 * sizeof(first[0])));
}

TEST(fault_corrupted_packet_fails_its_crc_at_the_receiver_and_is_counted)
{
	struct cxfw_stats st;
	struct cxfw_pkt p;
	unsigned int i, bad = 0;

	CHECK(fault_dev(t));
	CHECK(set(t, "corrupt 100%"));
	for (i = 0; i < 200; i++) {
		send_n(t, 1);
		/* every single-bit error is caught (VCRC covers the whole packet) */
		bad += cxfw_pkt_parse(seen.last, seen.len, &p) != 0;
		/* what the peer does with it: this device hears its own packet */
		cxfw_port_receive(t->dev, 1, seen.last, seen.len);
	}
	CHECK_EQ(bad, 200);
	CHECK_EQ(link_count(t, CXFW_LINK_CORRUPT), 200);
	cxfw_get_stats(t->dev, &st);
	CHECK_EQ(st.vcrc_errors, 200);		/* the link's check fails first */
	CHECK_EQ(t->dev->ports[0].pma.rcv_errors, 200);
	CHECK_EQ(t->dev->ports[0].pma.symbol_errors, 200);
}

TEST(fault_settings_are_checked_and_reported)
{
	char err[160], buf[1024];

	CHECK(fault_dev(t));
	CHECK_EQ(cxfw_fault_set(t->dev, "loss", err, sizeof(err)), -1);
	CHECK(strstr(err, "RATE") != NULL);
	CHECK_EQ(cxfw_fault_set(t->dev, "loss 101%", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "loss 1000001", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "loss -1", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "loss 5% port=2", err, sizeof(err)), -1);
	CHECK(strstr(err, "port 2") != NULL);
	CHECK_EQ(cxfw_fault_set(t->dev, "melt 5", err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown fault 'melt'") != NULL);
	CHECK_EQ(cxfw_fault_set(t->dev, "cmd-fail 0x100", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "cmd-fail 0x100 0", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "health-stall maybe", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "seed 0", err, sizeof(err)), -1);
	CHECK_EQ(cxfw_fault_set(t->dev, "", err, sizeof(err)), -1);
	CHECK(set(t, "loss 0.5%"));
	CHECK(set(t, "corrupt 25 port=1"));
	CHECK(set(t, "cmd-fail 0x100 0x3 always"));
	cxfw_fault_format(t->dev, buf, sizeof(buf));
	CHECK(strstr(buf, "port1.loss=5000 ") != NULL);
	CHECK(strstr(buf, "port1.corrupt=25 ") != NULL);
	CHECK(strstr(buf, "cmd_fail_opcode=0x100 cmd_fail_status=0x3 cmd_fail_left=always") !=
	      NULL);
	CHECK_EQ(cxfw_fault_format(t->dev, NULL, 0), strlen(buf));
	CHECK(set(t, "clear"));
	cxfw_fault_format(t->dev, buf, sizeof(buf));
	CHECK(strstr(buf, "port1.loss=0 ") != NULL);
	CHECK(strstr(buf, "cmd_fail_left=0 ") != NULL);
}

TEST(fault_health_stall_stops_the_counter_until_cleared_or_reset)
{
	uint32_t c;

	fake_advance_ms(&t->fk, 5);
	CHECK(set(t, "health-stall on"));
	c = rd32(t->dev, 0x1010);
	CHECK_EQ(c, 5);
	fake_advance_ms(&t->fk, 3000);
	CHECK_EQ(rd32(t->dev, 0x1010), c);	/* a hung firmware: no longer moving */
	CHECK(set(t, "health-stall off"));
	CHECK(rd32(t->dev, 0x1010) > c);
	CHECK(set(t, "health-stall on"));
	cxfw_reset(t->dev);			/* a reset restarts the firmware */
	fake_advance_ms(&t->fk, 2);
	CHECK_EQ(rd32(t->dev, 0x1010), 2);
}

TEST(fault_cmd_hang_takes_doorbells_and_executes_nothing_until_cleared)
{
	uint8_t in[16] = { 0 }, out[16];

	drv_reset(t);
	CHECK(set(t, "cmd-hang on"));
	cmd_hdr(in, CXIB_CMD_OP_ENABLE_HCA, 0);
	cmd_prepare(t, 0, in, sizeof(in), sizeof(out));
	cmd_ring(t, 1);
	fake_advance_ms(&t->fk, 1000);
	cxfw_process(t->dev);
	CHECK_EQ(cmd_collect(t, 0, out, sizeof(out)), -1);	/* still the hardware's */
	CHECK(set(t, "cmd-hang off"));
	cxfw_process(t->dev);
	CHECK_EQ(cmd_collect(t, 0, out, sizeof(out)), 0);
	CHECK_EQ(out_status(out), CXIB_CMD_STAT_OK);
}

TEST(fault_cmd_fail_fails_that_opcode_count_times_without_executing_it)
{
	uint8_t out[16];
	char buf[1024];

	drv_reset(t);
	CHECK(set(t, "cmd-fail 0x104 0x4 2"));	/* ENABLE_HCA, BAD_RESOURCE_STATE, twice */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 0, 0, out, sizeof(out)), 0x4);
	CHECK_EQ(CXIB_GET(out, CXIB_CMD_OUT_SYNDROME), CXFW_FAULT_CMD_SYNDROME);
	CHECK_EQ(t->dev->hca_state, CXFW_HCA_DISABLED);		/* not executed */
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 0, 0, out, sizeof(out)), 0x4);
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_ENABLE_HCA, 0, 0, 0, out, sizeof(out)), 0);
	cxfw_fault_format(t->dev, buf, sizeof(buf));
	CHECK(strstr(buf, "cmd_fail_left=0 cmds_failed=2 ") != NULL);
}

TEST(fault_dma_read_and_write_fail_the_next_n_accesses)
{
	uint8_t b[8] = { 0 };
	unsigned int i;

	CHECK(set(t, "dma-read-fail 3"));
	CHECK(set(t, "dma-write-fail 1"));
	for (i = 0; i < 3; i++)
		CHECK_EQ(cxfw_dma_read(t->dev, FAKE_MEM_BASE, b, sizeof(b)), -1);
	CHECK_EQ(cxfw_dma_read(t->dev, FAKE_MEM_BASE, b, sizeof(b)), 0);
	CHECK_EQ(cxfw_dma_write(t->dev, FAKE_MEM_BASE, b, sizeof(b)), -1);
	CHECK_EQ(cxfw_dma_write(t->dev, FAKE_MEM_BASE, b, sizeof(b)), 0);
	CHECK_EQ(t->dev->fault.dma_failed, 4);
	/* a failed command-entry read leaves the command with the hardware */
	drv_reset(t);
	CHECK(set(t, "dma-read-fail 1"));
	CHECK_EQ(cmd_simple(t, CXIB_CMD_OP_QUERY_ISSI, 0, 0, 0, b, sizeof(b)), 0x100 + 0xff);
}
