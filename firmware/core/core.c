// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw core: device lifecycle, worker entry, port events, fault injection, statistics.
 *
 * Design
 * ------
 * The core is one struct cxfw_dev per HCA, with no global mutable state.  It talks to its
 * host only through struct cxfw_platform (DMA, MSI-X, clock, kick, port_send, log) and
 * never includes a QEMU header.
 *
 *  - iseg.c   BAR0 register file.  The initialization segment is not stored as a byte image;
 *             each 32-bit register is computed on access from the device state (PRM section
 *             1.3) and laid out big-endian, so 1/2/4/8-byte accesses are plain byte-lane
 *             extraction.  MMIO values are BAR bytes in little-endian order (see cxfw.h).
 *             Time-derived registers (initializing, internal_timer, health_counter) are
 *             computed lazily from platform->clock_ns(): nothing ticks in the background.
 *  - cmd.c    command engine.  A doorbell write only records the slot bits and calls
 *             platform->kick(); cxfw_process(), in the platform's worker, reads each rung
 *             entry and its input mailboxes by DMA, checks the descriptor and chain,
 *             executes the command and hands it back (output mailboxes, inline output, then
 *             delivery status with ownership cleared, then a command-completion EQE).
 *  - hca.c    ENABLE/DISABLE_HCA, ISSI, capabilities, INIT/TEARDOWN_HCA, QUERY_ADAPTER, UARs.
 *  - pages.c  QUERY_PAGES / MANAGE_PAGES and the firmware pages the driver lends.
 *  - eq.c     event queues: EQE writing, ownership, EQ doorbells, MSI-X.
 *  - port.c   port state (cable, auto-activation, LID), port events.
 *  - vport.c  ACCESS_REG port registers and the HCA-vport queries.
 *  - sma.c    MAD_IFC: the subnet management agent (SubnGet/SubnSet, M_Key, traps, whose
 *             packets wire.c sends, so the agent never reaches into the data path).
 *  - core.c   create/destroy/reset, process, port link and receive, inject_fatal, stats.
 *  - util.c   what every file uses: log, clock, statistics counters, PAS lists, UAR check.
 *
 * Locking: dev->lock (a pthread mutex) protects all mutable state.  It is held only for
 * short critical sections and never across a platform callback (DMA, MSI-X, log, kick),
 * because a DMA may target our own BAR (re-entering cxfw_mmio_*) and QEMU callbacks may
 * take the BQL.  cxfw_process() is never concurrent with itself and is the only writer of
 * EQEs and the only place EQs are created or destroyed, so an EQ stays valid across the
 * DMA that writes one of its EQEs; MMIO (EQ doorbells) only touches EQ counters and the
 * arm bit under the lock.
 *
 * Power-on / reset state: cmdq address 0, nic_interface 0, no pending doorbells, healthy,
 * "initializing" for cfg.init_delay_ms, health counter restarted; HCA disabled, ISSI 0,
 * default capabilities, no EQs, UARs or pending port events, and pages still held reported
 * as not returned and forgotten.  Reset keeps the statistics, the port link state (a cable
 * property, so an auto-activated port stays ACTIVE) and the free-running internal timer.
 *
 * Fatal state (cxfw_inject_fatal): health buffer RFR=1, valid=1, severity=2 (critical), synd;
 * health_counter[31:24] = synd and [23:0] frozen; nic_interface is left as the driver wrote
 * it.  Until cxfw_reset() the firmware is dead (cxfw_dead): doorbells are accepted but
 * ignored, no command, WQE, timer or packet is processed, no CQE or EQE is written, and a
 * packet that arrives is dropped (dead_drops).
 *
 * Knobs (struct cxfw_config): pci_device_id (reported as health hw_id), fw_major/minor/
 * subminor, init_delay_ms, device_frequency_khz (internal timer rate; 0 = timer reads 0),
 * num_msix, num_ports (1..2), log_cmdq_size (1..5), serial/node_guid, boot_pages/
 * init_pages, supported_issi, auto_activate/lid, node_desc.  Documentation/model.md lists
 * them with the command set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

/* Default identity: a ConnectX-4 IB function running firmware 12.28.1002. */
#define CXFW_DEFAULT_FW_MAJOR		12
#define CXFW_DEFAULT_FW_MINOR		28
#define CXFW_DEFAULT_FW_SUBMINOR	1002
#define CXFW_DEFAULT_INIT_DELAY_MS	10
#define CXFW_DEFAULT_FREQ_KHZ		156250	/* 156.25 MHz, a typical ConnectX-4 clock */
#define CXFW_DEFAULT_NUM_MSIX		8
#define CXFW_DEFAULT_BOOT_PAGES		16
#define CXFW_DEFAULT_INIT_PAGES		64
#define CXFW_DEFAULT_ISSI_MASK		0x3	/* ISSI 0 and 1 */
#define CXFW_MAX_UNICAST_LID		0xbfff

/* Node GUID derived from the serial: Mellanox OUI 00:02:c9, then 03:00, then the serial. */
#define CXFW_GUID_PREFIX		0x0002c90300000000ull

void cxfw_config_defaults(struct cxfw_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->pci_device_id = CXIB_PCI_DEVICE_CX4;
	cfg->fw_major = CXFW_DEFAULT_FW_MAJOR;
	cfg->fw_minor = CXFW_DEFAULT_FW_MINOR;
	cfg->fw_subminor = CXFW_DEFAULT_FW_SUBMINOR;
	cfg->init_delay_ms = CXFW_DEFAULT_INIT_DELAY_MS;
	cfg->device_frequency_khz = CXFW_DEFAULT_FREQ_KHZ;
	cfg->num_msix = CXFW_DEFAULT_NUM_MSIX;
	cfg->num_ports = 1;
	cfg->log_cmdq_size = CXIB_LOG_CMDQ_SIZE_MAX;
	cfg->boot_pages = CXFW_DEFAULT_BOOT_PAGES;
	cfg->init_pages = CXFW_DEFAULT_INIT_PAGES;
	cfg->supported_issi = CXFW_DEFAULT_ISSI_MASK;
	cfg->auto_activate = true;
}

static bool cxfw_config_valid(const struct cxfw_config *cfg)
{
	return cfg->num_ports >= 1 && cfg->num_ports <= CXFW_MAX_PORTS &&
	       cfg->num_msix >= 1 && cfg->num_msix <= CXFW_MAX_MSIX &&
	       cfg->log_cmdq_size >= CXFW_LOG_CMDQ_SIZE_MIN &&
	       cfg->log_cmdq_size <= CXIB_LOG_CMDQ_SIZE_MAX &&
	       (uint64_t)cfg->boot_pages + cfg->init_pages <= CXFW_MAX_FW_PAGES &&
	       cfg->runtime_pages <= CXFW_MAX_RUNTIME_PAGES_PER_QP &&
	       cfg->supported_issi && !(cfg->supported_issi & ~CXFW_DEFAULT_ISSI_MASK) &&
	       cfg->lid <= CXFW_MAX_UNICAST_LID;
}

static bool cxfw_platform_valid(const struct cxfw_platform *plat)
{
	return plat->dma_read && plat->dma_write && plat->msix_notify && plat->clock_ns &&
	       plat->kick;
}

/* Back to the power-on register state; lock held (or device not yet shared). */
static void cxfw_power_on_state(struct cxfw_dev *dev, uint64_t now)
{
	dev->reset_ns = now;
	dev->cmdq_addr_h = 0;
	dev->cmdq_addr_l = 0;
	dev->nic_interface = CXIB_NIC_IF_FULL_DRIVER;
	dev->cmd_pending = 0;
	dev->fatal = false;
	dev->health_synd = 0;
	dev->health_time = 0;
	dev->frozen_counter = 0;
	cxfw_fault_reset_firmware(dev);
}

/* Function state at power-on and after DISABLE_HCA-less resets; lock held or not shared. */
static void cxfw_function_state_init(struct cxfw_dev *dev)
{
	dev->hca_state = CXFW_HCA_DISABLED;
	dev->issi = CXIB_ISSI_0;
	dev->issi_set = false;
	dev->host_endianness = CXIB_HOST_ENDIANNESS_LITTLE;
	dev->init_pages_requested = false;
	memset(dev->uar_map, 0, sizeof(dev->uar_map));
	memcpy(dev->cur_node_desc, dev->node_desc, sizeof(dev->cur_node_desc));
	cxfw_hca_caps_init(dev);
}

/*
 * Back to power-on function state: pages the driver never took back are reported and
 * forgotten, every resource is released.  The worker is quiesced (reset, destroy).
 */
void cxfw_function_reset(struct cxfw_dev *dev, const char *why)
{
	cxfw_pages_drop(dev, why);
	cxfw_wire_reset(dev);
	pthread_mutex_lock(&dev->lock);
	cxfw_hca_release_resources(dev);
	cxfw_function_state_init(dev);
	cxfw_ports_init(dev);
	pthread_mutex_unlock(&dev->lock);
}

/* LID auto_activate assigns: the configured one, else 1 + serial within the unicast range. */
static uint16_t cxfw_auto_lid(const struct cxfw_config *cfg)
{
	if (cfg->lid)
		return cfg->lid;
	return (uint16_t)(1 + cfg->serial % CXFW_MAX_UNICAST_LID);
}

struct cxfw_dev *cxfw_create(const struct cxfw_config *cfg, const struct cxfw_platform *plat)
{
	struct cxfw_dev *dev;

	if (!cfg || !plat || !cxfw_config_valid(cfg) || !cxfw_platform_valid(plat))
		return NULL;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	if (pthread_mutex_init(&dev->lock, NULL)) {
		free(dev);
		return NULL;
	}
	dev->cfg = *cfg;
	dev->cfg.node_desc = NULL;	/* copied below; the caller's string may go away */
	dev->plat = *plat;
	dev->node_guid = cfg->node_guid ? cfg->node_guid : CXFW_GUID_PREFIX | cfg->serial;
	dev->auto_lid = cxfw_auto_lid(cfg);
	if (cfg->node_desc)
		snprintf(dev->node_desc, sizeof(dev->node_desc), "%s", cfg->node_desc);
	else
		snprintf(dev->node_desc, sizeof(dev->node_desc), "cxib node %u", cfg->serial);
	dev->power_on_ns = cxfw_now(dev);
	cxfw_fault_init(dev);
	cxfw_power_on_state(dev, dev->power_on_ns);
	cxfw_function_state_init(dev);
	cxfw_ports_init(dev);

	cxfw_log(dev, CXFW_LOG_INFO,
		 "cxfw: created device 0x%04x fw %u.%u.%u serial %u, %u port(s), %u cmdq slots",
		 cfg->pci_device_id, cfg->fw_major, cfg->fw_minor, cfg->fw_subminor,
		 cfg->serial, cfg->num_ports, cxfw_cmdq_slots(dev));
	return dev;
}

void cxfw_destroy(struct cxfw_dev *dev)
{
	if (!dev)
		return;
	cxfw_function_reset(dev, "destroy");
	cxfw_fault_fini(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

void cxfw_reset(struct cxfw_dev *dev)
{
	uint64_t now = cxfw_now(dev);

	cxfw_function_reset(dev, "reset");
	pthread_mutex_lock(&dev->lock);
	cxfw_power_on_state(dev, now);
	pthread_mutex_unlock(&dev->lock);
	cxfw_log(dev, CXFW_LOG_INFO, "cxfw: reset");
}

bool cxfw_dead(struct cxfw_dev *dev)
{
	bool dead;

	pthread_mutex_lock(&dev->lock);
	dead = dev->fatal;
	pthread_mutex_unlock(&dev->lock);
	return dead;
}

void cxfw_process(struct cxfw_dev *dev)
{
	uint64_t now;

	if (cxfw_dead(dev))
		return;
	cxfw_cmd_process(dev);
	cxfw_qp_process(dev);
	cxfw_wire_process(dev);
	now = cxfw_now(dev);
	cxfw_req_process(dev, now);
	cxfw_resp_process(dev, now);
	cxfw_sma_process(dev, now);
	cxfw_wire_send_traps(dev, now);
	cxfw_wire_process(dev);
	cxfw_cq_process(dev);
	cxfw_port_process(dev);
	cxfw_wire_release_held(dev);
}

static bool cxfw_port_valid(struct cxfw_dev *dev, unsigned int port, const char *what)
{
	if (port >= 1 && port <= dev->cfg.num_ports)
		return true;
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: %s on nonexistent port %u", what, port);
	return false;
}

void cxfw_port_link(struct cxfw_dev *dev, unsigned int port, bool up)
{
	bool was, event = false;

	if (!cxfw_port_valid(dev, port, "link event"))
		return;
	pthread_mutex_lock(&dev->lock);
	was = dev->stats.link_up[port - 1];
	dev->stats.link_up[port - 1] = up;
	if (was != up)
		event = cxfw_port_link_locked(dev, port, up);
	pthread_mutex_unlock(&dev->lock);
	if (was != up)
		cxfw_log(dev, CXFW_LOG_INFO, "cxfw: port %u link %s", port, up ? "up" : "down");
	if (event)
		dev->plat.kick(dev->plat.opaque);	/* the worker posts the port change EQE */
}

void cxfw_port_receive(struct cxfw_dev *dev, unsigned int port, const void *pkt, size_t len)
{
	bool up, dead;

	if (!cxfw_port_valid(dev, port, "packet"))
		return;
	if (!pkt || !len) {
		cxfw_log(dev, CXFW_LOG_ERR, "cxfw: empty packet on port %u", port);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	up = dev->stats.link_up[port - 1];
	if (up)
		dev->stats.pkts_received++;
	dead = up && dev->fatal;
	if (dead) {
		dev->stats.pkts_dropped++;
		dev->stats.dead_drops++;
	}
	pthread_mutex_unlock(&dev->lock);
	if (dead)
		return;
	if (!up) {
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: port %u down, dropped %zu-byte packet",
			 port, len);
		return;
	}
	cxfw_wire_receive(dev, port, pkt, len);
}

void cxfw_inject_fatal(struct cxfw_dev *dev, uint8_t synd)
{
	uint64_t now = cxfw_now(dev);

	if (!synd)
		synd = CXFW_HEALTH_SYND_FW_INTERNAL;	/* synd 0 would not read as fatal */

	pthread_mutex_lock(&dev->lock);
	if (!dev->fatal) {
		dev->frozen_counter = cxfw_iseg_health_counter(dev, now);
		dev->health_time = (uint32_t)(cxfw_elapsed_ns(now, dev->power_on_ns) /
					       CXFW_NS_PER_SEC);
		dev->fatal = true;
	}
	dev->health_synd = synd;
	dev->cmd_pending = 0;
	pthread_mutex_unlock(&dev->lock);
	cxfw_log(dev, CXFW_LOG_INFO, "cxfw: firmware fatal injected, health syndrome 0x%02x",
		 synd);
}

void cxfw_get_stats(struct cxfw_dev *dev, struct cxfw_stats *st)
{
	pthread_mutex_lock(&dev->lock);
	*st = dev->stats;
	pthread_mutex_unlock(&dev->lock);
}

/* The 64-bit counters of struct cxfw_stats by name, in declaration order. */
#define CXFW_STAT(n)	{ #n, offsetof(struct cxfw_stats, n) }
static const struct {
	const char *name;
	size_t off;
} cxfw_stat_fields[] = {
	CXFW_STAT(mmio_reads),
	CXFW_STAT(mmio_writes),
	CXFW_STAT(cmd_doorbells),
	CXFW_STAT(cmds_completed),
	CXFW_STAT(dma_errors),
	CXFW_STAT(uar_writes),
	CXFW_STAT(pkts_sent),
	CXFW_STAT(pkts_received),
	CXFW_STAT(cmd_delivery_errors),
	CXFW_STAT(cmd_failures),
	CXFW_STAT(pages_held),
	CXFW_STAT(pages_leaked),
	CXFW_STAT(eqes_written),
	CXFW_STAT(eq_overruns),
	CXFW_STAT(eq_doorbells),
	CXFW_STAT(msix_sent),
	CXFW_STAT(cqes_written),
	CXFW_STAT(cq_overruns),
	CXFW_STAT(cq_doorbells),
	CXFW_STAT(cq_events),
	CXFW_STAT(sq_doorbells),
	CXFW_STAT(bf_writes),
	CXFW_STAT(send_wqes),
	CXFW_STAT(recv_wqes),
	CXFW_STAT(dma_read_bytes),
	CXFW_STAT(dma_write_bytes),
	CXFW_STAT(pkts_looped),
	CXFW_STAT(pkt_bytes_sent),
	CXFW_STAT(pkt_bytes_received),
	CXFW_STAT(pkts_dropped),
	CXFW_STAT(icrc_errors),
	CXFW_STAT(vcrc_errors),
	CXFW_STAT(pkey_violations),
	CXFW_STAT(qkey_violations),
	CXFW_STAT(acks_sent),
	CXFW_STAT(acks_received),
	CXFW_STAT(naks_sent),
	CXFW_STAT(naks_received),
	CXFW_STAT(rnr_naks_sent),
	CXFW_STAT(rnr_naks_received),
	CXFW_STAT(out_of_sequence),
	CXFW_STAT(duplicate_requests),
	CXFW_STAT(retransmits),
	CXFW_STAT(local_ack_timeouts),
	CXFW_STAT(packet_seq_err),
	CXFW_STAT(implied_nak_seq_err),
	CXFW_STAT(retry_exceeded),
	CXFW_STAT(rnr_retry_exceeded),
	CXFW_STAT(out_of_buffer),
	CXFW_STAT(remote_access_errors),
	CXFW_STAT(local_errors),
	CXFW_STAT(mcast_pkts_received),
	CXFW_STAT(mkey_violations),
	CXFW_STAT(traps_sent),
	CXFW_STAT(traps_repressed),
	CXFW_STAT(traps_dropped),
	CXFW_STAT(port_state_drops),
	CXFW_STAT(addressing_drops),
	CXFW_STAT(no_qp_drops),
	CXFW_STAT(transport_drops),
	CXFW_STAT(loop_drops),
	CXFW_STAT(dead_drops),
	CXFW_STAT(lso_wqes),
	CXFW_STAT(lso_segments),
	CXFW_STAT(tx_csum_offloads),
	CXFW_STAT(rx_csum_ok),
	CXFW_STAT(rx_csum_bad),
	CXFW_STAT(page_requests),
};
#undef CXFW_STAT

/* Every counter is in the table: the only other member is link_up[] (one 8-byte slot). */
_Static_assert(sizeof(struct cxfw_stats) ==
	       (sizeof(cxfw_stat_fields) / sizeof(cxfw_stat_fields[0]) + 1) * sizeof(uint64_t),
	       "struct cxfw_stats has a counter cxfw_stat_fields[] does not name");

size_t cxfw_stats_format(const struct cxfw_stats *st, char *buf, size_t len)
{
	struct cxfw_text t = { .buf = buf, .len = len };
	size_t i;

	if (len)
		buf[0] = 0;
	for (i = 0; i < CXFW_MAX_PORTS; i++)
		cxfw_textf(&t, "%slink_up%zu=%d", i ? " " : "", i + 1, st->link_up[i] ? 1 : 0);
	for (i = 0; i < sizeof(cxfw_stat_fields) / sizeof(cxfw_stat_fields[0]); i++) {
		uint64_t v;

		memcpy(&v, (const char *)st + cxfw_stat_fields[i].off, sizeof(v));
		cxfw_textf(&t, " %s=%llu", cxfw_stat_fields[i].name, (unsigned long long)v);
	}
	return t.need;
}
