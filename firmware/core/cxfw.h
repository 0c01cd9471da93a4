/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxfw - functional model of a ConnectX-class (mlx5 PRM) InfiniBand HCA.
 *
 * This is the whole interface between the platform-independent core and whatever hosts it
 * (the QEMU device in firmware/qemu, the fake platform of firmware/tests).  No QEMU type
 * appears here.  The core never trusts the guest: every address it is given goes through
 * the platform's DMA callbacks, which may fail, and a failure becomes the PRM's error status.
 *
 * Threading: cxfw_mmio_read()/cxfw_mmio_write() run in the caller's context (a vCPU thread
 * under QEMU) and must stay O(1); anything slower is deferred with platform->kick() and done
 * by cxfw_process() in the platform's worker thread.  The two may run concurrently; the core
 * synchronises internally.  cxfw_process() is never run concurrently with itself.
 */
#ifndef CXFW_H
#define CXFW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cxfw_dev;

enum cxfw_log_level {
	CXFW_LOG_ERR,		/* the model or the guest did something wrong */
	CXFW_LOG_INFO,		/* lifecycle: reset, link up/down, fatal injected */
	CXFW_LOG_DEBUG,		/* per command / per doorbell */
};

/* What the core needs from its host.  Every callback gets @opaque back. */
struct cxfw_platform {
	void *opaque;
	/* Guest-physical DMA; 0 on success, -1 if any byte of the range is not accessible. */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf, size_t len);
	/* Raise MSI-X vector @vector (may be called from the worker thread). */
	void (*msix_notify)(void *opaque, unsigned int vector);
	/* Monotonic nanoseconds; the only source of time in the core. */
	uint64_t (*clock_ns)(void *opaque);
	/* Ask for cxfw_process() to be called soon from the worker (must be cheap, any thread). */
	void (*kick)(void *opaque);
	/* Put one packet (wire format) on the cable of @port (1-based); 0 or -1. May be NULL. */
	int (*port_send)(void *opaque, unsigned int port, const void *pkt, size_t len);
	/*
	 * Whether @port's transmit queue is past its high-water mark: the link has no credits
	 * (IB links are lossless, IBTA vol 1 ch. 7.9, credit-based flow control).  The send
	 * engines then hold their data packets (requests, READ responses) back and resume in a
	 * later cxfw_process(), which the platform calls once the queue has drained; small
	 * control packets (ACKs, NAKs) still go.  May be NULL (never busy).
	 */
	bool (*port_busy)(void *opaque, unsigned int port);
	/*
	 * Nanoseconds (of clock_ns) during which packets @port sent have waited in its cable
	 * because the other end was not reading them, since the device was created: a
	 * non-decreasing total.  The local ACK timer does not count that time (req.c): a peer
	 * that has not yet read the request cannot have answered it.  May be NULL (0).
	 */
	uint64_t (*port_wait_ns)(void *opaque, unsigned int port);
	/* One log line without trailing newline. May be NULL. */
	void (*log)(void *opaque, enum cxfw_log_level level, const char *msg);
	/*
	 * One command-trace line (no trailing newline) per executed command, from the worker
	 * thread: format in firmware/core/cmdtrace.c and Documentation/model.md.  May be NULL
	 * (no trace is formatted then).
	 */
	void (*cmd_trace)(void *opaque, const char *line);
};

/* Device knobs, set once at creation (QEMU device properties map onto these). */
struct cxfw_config {
	uint16_t pci_device_id;		/* default CXIB_PCI_DEVICE_CX4 */
	uint64_t node_guid;		/* 0: derived from the serial number */
	uint32_t serial;		/* per-instance number, distinguishes lab nodes */
	uint16_t fw_major, fw_minor, fw_subminor;
	uint32_t init_delay_ms;		/* "initializing" stays set this long after reset */
	uint32_t device_frequency_khz;	/* rate of the internal timer */
	unsigned int num_msix;		/* MSI-X vectors the platform provides */
	unsigned int num_ports;		/* physical ports (1 for now) */
	unsigned int log_cmdq_size;	/* command queue slots = 2^n, 1..5 (default 5) */
	/* Firmware pages: QUERY_PAGES asks for this many at boot and at init (0..65536). */
	unsigned int boot_pages;	/* default 16 */
	unsigned int init_pages;	/* default 64 */
	uint32_t supported_issi;	/* QUERY_ISSI bit mask, bits 0-1 (default 0x3) */
	/*
	 * Port bring-up without a subnet manager: when the cable comes up the port goes
	 * straight to ACTIVE with LID @lid (0: derived from @serial).  Off: the port stops at
	 * INIT with LID 0, waiting for an SM.  Default on.
	 */
	bool auto_activate;
	uint16_t lid;
	/*
	 * Strict mode: refuse what real firmware refuses where being lenient would be easier
	 * (the rules: firmware/core/strict.c, Documentation/model.md).  Default off.
	 */
	bool strict;
	/*
	 * Runtime page requests: each time the number of live QPs reaches a new peak while the
	 * HCA is initialized, the firmware wants this many more pages and says so with a
	 * PAGE_REQUEST event (0..CXFW_MAX_RUNTIME_PAGES_PER_QP; 0: never, and the caps say
	 * page_request_disable).  Default 0.
	 */
	unsigned int runtime_pages;
	const char *node_desc;		/* NodeDescription; NULL: "cxib node <serial>" */
};

/* Fill @cfg with the defaults (a ConnectX-4 IB function, firmware 12.28.1002). */
void cxfw_config_defaults(struct cxfw_config *cfg);

/* Create a device in its power-on state; NULL on bad config or no memory. */
struct cxfw_dev *cxfw_create(const struct cxfw_config *cfg, const struct cxfw_platform *plat);
void cxfw_destroy(struct cxfw_dev *dev);

/* PCI reset / FLR: back to the power-on state (the platform has quiesced the worker). */
void cxfw_reset(struct cxfw_dev *dev);

/*
 * BAR0 access.  @offset is the byte offset in BAR0, @size 1, 2, 4 or 8, @offset aligned to
 * @size.  Values are the bytes of BAR0 in little-endian order (PCI is little endian; the
 * mlx5 registers themselves are big-endian, so the guest's ioread32be sees the PRM value).
 * Out-of-range or misaligned accesses read as zero and are ignored on write (and logged).
 */
uint64_t cxfw_mmio_read(struct cxfw_dev *dev, uint64_t offset, unsigned int size);
void cxfw_mmio_write(struct cxfw_dev *dev, uint64_t offset, uint64_t val, unsigned int size);

/* Worker entry: do all deferred work (command doorbells, ...).  Returns once idle. */
void cxfw_process(struct cxfw_dev *dev);

/*
 * Cable events from the platform: link state of @port and packets arriving on it.
 * cxfw_port_receive() processes the packet at once (DMA, CQEs, response packets through
 * platform->port_send()), so it must be called from the worker context: never concurrently
 * with cxfw_process() or with itself.  The packet buffer is not kept.
 */
void cxfw_port_link(struct cxfw_dev *dev, unsigned int port, bool up);
void cxfw_port_receive(struct cxfw_dev *dev, unsigned int port, const void *pkt, size_t len);

/* Fault injection: put the firmware into the fatal state with health syndrome @synd. */
void cxfw_inject_fatal(struct cxfw_dev *dev, uint8_t synd);

/*
 * Fault injection at run time (fault.c), one fault per call as a line "KIND [ARGS]
 * [port=N]": link faults at a port's egress, "loss|dup|reorder|corrupt RATE" (RATE in
 * parts per million, or a percentage "0.5%"; 0 turns it off; port 1 unless port=N);
 * "seed N" (the link faults' random sequence); "health-stall on|off" (the health counter
 * stops); "cmd-hang on|off" (commands are taken, not executed); "cmd-fail OPCODE STATUS
 * [COUNT|always]" (that command fails with STATUS, COUNT times, 1 by default);
 * "dma-read-fail N", "dma-write-fail N" (the next N accesses fail); "clear" (all off).
 * Returns 0, or -1 with a message for the user in @err.  Any thread.
 */
int cxfw_fault_set(struct cxfw_dev *dev, const char *spec, char *err, size_t errlen);
/* The faults set and what they did, as "name=value" pairs; the length it needs. */
size_t cxfw_fault_format(struct cxfw_dev *dev, char *buf, size_t len);

/* Counters for the lab and tests. */
struct cxfw_stats {
	uint64_t mmio_reads, mmio_writes;
	uint64_t cmd_doorbells;		/* slots rung */
	uint64_t cmds_completed;	/* entries handed back to software */
	uint64_t dma_errors;		/* DMA the platform refused */
	uint64_t uar_writes;		/* doorbell/BlueFlame writes to UAR pages */
	uint64_t pkts_sent, pkts_received;
	bool link_up[2];		/* per port, index port-1 */
	uint64_t cmd_delivery_errors;	/* entries handed back with delivery status != 0 */
	uint64_t cmd_failures;		/* delivered commands with output status != 0 */
	uint64_t pages_held;		/* firmware pages the driver has given and not taken */
	uint64_t pages_leaked;		/* pages never returned (DISABLE_HCA, reset, destroy) */
	uint64_t eqes_written;
	uint64_t eq_overruns;		/* EQEs dropped because the EQ was full */
	uint64_t eq_doorbells;		/* EQ doorbells through a UAR */
	uint64_t msix_sent;		/* platform->msix_notify() calls */
	uint64_t cqes_written;
	uint64_t cq_overruns;		/* CQEs dropped because the CQ was full */
	uint64_t cq_doorbells;		/* CQ arm doorbells through a UAR */
	uint64_t cq_events;		/* completion EQEs requested by armed CQs */
	uint64_t sq_doorbells;		/* SQ doorbells (first 8 bytes of a BlueFlame half) */
	/* Data path (req.c, resp.c, wire.c). */
	uint64_t bf_writes;		/* BlueFlame writes carrying a whole WQE */
	uint64_t send_wqes;		/* send WQEs executed (incl. local operations) */
	uint64_t recv_wqes;		/* receive WQEs consumed (RQ and SRQ) */
	uint64_t page_requests;		/* PAGE_REQUEST events asked for (cfg.runtime_pages) */
	uint64_t dma_read_bytes;	/* payload read from guest memory */
	uint64_t dma_write_bytes;	/* payload written to guest memory */
	uint64_t pkts_looped;		/* packets delivered inside the device (loopback) */
	uint64_t pkt_bytes_sent, pkt_bytes_received;
	uint64_t pkts_dropped;		/* arriving packets dropped by wire.c (CRC, LID, P_Key, QP) */
	uint64_t icrc_errors, vcrc_errors;
	uint64_t pkey_violations, qkey_violations;
	uint64_t acks_sent, acks_received;
	uint64_t naks_sent, naks_received;	/* every NAK kind incl. RNR */
	uint64_t rnr_naks_sent, rnr_naks_received;
	uint64_t out_of_sequence;	/* responder: PSN sequence error NAKs */
	uint64_t duplicate_requests;	/* responder: duplicate PSNs */
	uint64_t retransmits;		/* requester: packets sent again (timeout, NAK, RNR) */
	uint64_t local_ack_timeouts;	/* requester: local ACK timer expiries */
	uint64_t packet_seq_err;	/* requester: NAK-PSN-sequence-error received */
	uint64_t implied_nak_seq_err;	/* requester: implied NAKs that started a go-back */
	uint64_t retry_exceeded;	/* requester: retry_cnt exhausted */
	uint64_t rnr_retry_exceeded;	/* requester: rnr_retry exhausted */
	uint64_t out_of_buffer;		/* responder: no receive WQE (RNR / UD drop) */
	uint64_t remote_access_errors;	/* responder: rkey / bounds / access NAKs */
	uint64_t local_errors;		/* error CQEs for local problems (lkey, length, ...) */
	uint64_t mcast_pkts_received;	/* multicast copies delivered to QPs */
	uint64_t mkey_violations;	/* SMPs refused for a wrong M_Key */
	uint64_t traps_sent, traps_repressed, traps_dropped;	/* SMA traps to the SM */
	uint64_t port_state_drops;	/* packets the logical port state kept off the wire */
	/* why else packets were dropped (each also in pkts_dropped) */
	uint64_t addressing_drops;	/* DLID not the port's, LID / VL15 / multicast misuse */
	uint64_t no_qp_drops;		/* no such QP, no QP in the multicast group */
	uint64_t transport_drops;	/* wrong transport for the QP, not from its peer */
	uint64_t loop_drops;		/* the loopback queue was full */
	uint64_t dead_drops;		/* arrived while the firmware was dead */
	/* IPoIB UD offloads (ipoib.c) */
	uint64_t lso_wqes, lso_segments;	/* LSO WQEs executed, packets they became */
	uint64_t tx_csum_offloads;	/* messages sent with checksums filled in */
	uint64_t rx_csum_ok, rx_csum_bad;	/* IP messages received: both checksums good, not */
};
void cxfw_get_stats(struct cxfw_dev *dev, struct cxfw_stats *st);

/*
 * @st as "name=value" pairs separated by single spaces (the counters' field names; link_up
 * as link_up1=0/1 per port), NUL-terminated in @buf.  Returns the length it needs (like
 * snprintf), so a caller can size its buffer.
 */
size_t cxfw_stats_format(const struct cxfw_stats *st, char *buf, size_t len);

/*
 * Debugging: the transport state of every QP past INIT (RC, UC, UD; the requester's PSNs,
 * timers and window of WQEs, the responder's ePSN, MSN and open message), a few lines per
 * QP, NUL-terminated in @buf.  Returns the length it needs, like cxfw_stats_format().  The
 * engines belong to the worker: the caller serialises with cxfw_process() and
 * cxfw_port_receive() (cxib-pci: under its fw_lock), and sizes and fills the buffer within
 * one such section for a consistent view.
 */
size_t cxfw_engines_format(struct cxfw_dev *dev, char *buf, size_t len);

#endif /* CXFW_H */
