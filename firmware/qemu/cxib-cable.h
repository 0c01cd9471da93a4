/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cxib cable: how two cxib-pci ports (or a port and a switch model) exchange InfiniBand
 * packets over a Unix stream socket.  Plain C, no QEMU types, so other tools (a switch,
 * a capture converter) can speak it too.
 *
 * The byte stream is a sequence of frames.  Every frame is a 12-byte header, all fields
 * big-endian, followed by @length payload bytes:
 *
 *	offset  size  field
 *	0       4     magic    CXIB_CABLE_MAGIC ("CXIB")
 *	4       1     version  CXIB_CABLE_VERSION
 *	5       1     type     CXIB_CABLE_HELLO or CXIB_CABLE_PACKET
 *	6       2     reserved (0)
 *	8       4     length   payload bytes; 1..CXIB_CABLE_MAX_PAYLOAD for PACKET,
 *	                       exactly CXIB_CABLE_HELLO_LEN for HELLO
 *
 * HELLO payload: node GUID (8 bytes, big-endian), sender's port number (4 bytes,
 * big-endian, 1-based), 4 reserved bytes.  Each side sends HELLO first, right after the
 * connection is established; the physical link is up once the peer's HELLO has arrived.
 *
 * PACKET payload: one InfiniBand packet in wire format (LRH ... VCRC), exactly as the
 * model's port put it on the wire.
 *
 * A receiver drops the connection (link down) on a bad magic, an unknown version or type,
 * a length out of range, a second HELLO, or a PACKET before HELLO.  EOF or a socket error
 * is also link down.
 *
 * The second half of this file is cxib-pci's side of it (cxib-cable.c), declared with
 * plain C types and opaque pointers only.
 */
#ifndef CXIB_CABLE_H
#define CXIB_CABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CXIB_CABLE_MAGIC		0x43584942u	/* "CXIB" */
#define CXIB_CABLE_VERSION		1

#define CXIB_CABLE_HDR_LEN		12
#define CXIB_CABLE_OFF_MAGIC		0
#define CXIB_CABLE_OFF_VERSION		4
#define CXIB_CABLE_OFF_TYPE		5
#define CXIB_CABLE_OFF_RESERVED		6
#define CXIB_CABLE_OFF_LENGTH		8

enum cxib_cable_type {
	CXIB_CABLE_HELLO	= 1,
	CXIB_CABLE_PACKET	= 2,
};

#define CXIB_CABLE_HELLO_LEN		16
#define CXIB_CABLE_HELLO_OFF_GUID	0
#define CXIB_CABLE_HELLO_OFF_PORT	8

/*
 * Largest packet carried: a 4 KiB MTU payload plus every header IB can stack in front of
 * it fits with room to spare; anything longer is garbage.
 */
#define CXIB_CABLE_MAX_PAYLOAD		8192

/* ---- cxib-cable.c: the transport behind one cxib-pci port ------------------------------ */

struct pollfd;
struct Error;
struct CxibCapture;

/* A cable, a loopback plug or nothing; see cxib-cable.c for its threads and locks. */
typedef struct CxibCable CxibCable;

/*
 * What crossed the port's end of the cable since the device was created.  A healthy cable
 * loses nothing: every packet counted in tx_pkts reaches the peer, so the peer's rx_pkts
 * grows by the same number unless a drop counter below moves.
 */
typedef struct CxibCableStats {
	uint64_t tx_pkts, tx_bytes;	/* packets put on the stream (or the plug) */
	uint64_t rx_pkts, rx_bytes;	/* packets handed to the device */
	uint64_t tx_drop_down;		/* refused: no connection, link not up */
	uint64_t tx_drop_full;		/* refused: transmit queue (or plug) full */
	uint64_t tx_drop_bad;		/* refused: length out of range */
	uint64_t tx_lost_bytes;		/* queued, then thrown away when the connection closed */
	uint64_t busy;			/* flow-control checks that held the port back */
	uint64_t tx_queued, tx_queued_peak;	/* transmit queue bytes now, highest so far */
	uint64_t wait_ms;		/* time our packets waited unread: the peer not reading */
	uint64_t links_up, links_down;	/* HELLO received / connection lost */
} CxibCableStats;

/* What the cable calls back into its device with (@opaque of cxib_cable_new()). */
typedef struct CxibCableOps {
	/* The link came up (the peer's HELLO arrived) or went down.  Worker. */
	void (*link)(void *opaque, bool up);
	/* A packet arrived (already traced and captured).  Worker. */
	void (*receive)(void *opaque, const void *pkt, size_t len);
	/* Wake the worker: loopback packets to deliver, bytes waiting for POLLOUT.  Any thread. */
	void (*kick)(void *opaque);
} CxibCableOps;

typedef struct CxibCableConfig {
	const char *path;		/* socket path (copied); NULL: no cable */
	bool listen;			/* listen on @path instead of connecting to it */
	bool loopback;			/* a loopback plug instead of a cable (no @path) */
	unsigned int port;		/* the device's port: HELLO, traces */
	uint64_t node_guid;		/* announced in HELLO */
	const char *name;		/* the device's, for messages; outlives the cable */
	struct CxibCapture *capture;	/* records every packet; outlives the cable */
} CxibCableConfig;

/* A listening cable binds at once, so a bad path fails here (NULL, @errp set). */
CxibCable *cxib_cable_new(const CxibCableConfig *cfg, const CxibCableOps *ops, void *opaque,
			  struct Error **errp);
/* Close the listening socket (and remove its path), free everything.  Worker stopped. */
void cxib_cable_free(CxibCable *c);

/*
 * Send one packet (LRH through VCRC) from the port: 0, or -1 if it was dropped (bad
 * length, link down, transmit queue or loopback plug full).  Any thread.
 */
int cxib_cable_send(CxibCable *c, const void *pkt, size_t len);
/* Link-level flow control: the transmit queue is past its high-water mark.  Any thread. */
bool cxib_cable_busy(CxibCable *c);
/*
 * Pull the cable out (@plugged false: the connection is dropped, both ends see the link go
 * down, no new one is made) or plug it in again (connect / accept as at start).  Carried
 * out by the worker; any thread.  A loopback plug stays in.
 */
void cxib_cable_plug(CxibCable *c, bool plugged);
bool cxib_cable_plugged(CxibCable *c);
/*
 * Nanoseconds (QEMU_CLOCK_VIRTUAL) in which the port's packets waited in the cable because
 * the other end did not read them, since creation: the worker samples it every turn.  Any
 * thread.
 */
uint64_t cxib_cable_wait_ns(CxibCable *c);
/* A consistent copy of the counters.  Any thread. */
void cxib_cable_get_stats(CxibCable *c, CxibCableStats *st);
/* The counters as "name=value ..." (a g_malloc'ed string). */
char *cxib_cable_stats_format(const CxibCableStats *st);

/*
 * The worker's side.  Start: the worker is about to run (connect at once).  Each turn:
 * poll_prepare fills the cable's poll entry and may shorten @timeout_ms (the next connect
 * attempt), poll_done serves it (read frames, flush, accept, connect, deliver what the
 * loopback plug holds).  Stop: the worker is about to return (connection closed, plug
 * emptied).
 */
void cxib_cable_start(CxibCable *c);
void cxib_cable_poll_prepare(CxibCable *c, struct pollfd *pfd, int *timeout_ms);
void cxib_cable_poll_done(CxibCable *c, const struct pollfd *pfd);
void cxib_cable_stop(CxibCable *c);

#endif /* CXIB_CABLE_H */
