/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxib-cable: the transport behind one cxib-pci port (protocol: cxib-cable.h).  Either a
 * cable, a Unix stream socket to another cxib-pci (connect/accept/listen, framing, HELLO,
 * packets in and out), or a loopback plug (a queue the port's packets come back in from),
 * or nothing (no link).
 *
 * Threads and locks: the device's worker drives the cable (cxib_cable_poll_prepare(),
 * cxib_cable_poll_done(), cxib_cable_stop()) and owns the connection's receive side; any
 * thread may send (cxib_cable_send(), cxib_cable_busy()), so tx_lock protects the connected
 * socket, the link state, the transmit buffer and the loopback queue.  The device's
 * callbacks (link, receive) are called from the worker without tx_lock, so the device may
 * take its own locks in them before tx_lock (its order: fw_lock -> tx_lock).  Packets sent
 * are recorded in the capture under tx_lock, so the file has them in cable order; packets
 * received are recorded before the device sees them.
 */
#include "qemu/osdep.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <linux/sockios.h>

#include "qapi/error.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/thread.h"
#include "qemu/timer.h"

#include "hw/cxib/qemu/cxib-cable.h"
#include "hw/cxib/qemu/cxib-capture.h"
#include "hw/cxib/trace.h"

#define CXIB_CABLE_RECONNECT_MS		200	/* connecting side: retry period */
#define CXIB_CABLE_TX_BUF_SIZE		(1u << 20)	/* queued cable bytes; more is dropped */
/*
 * Queued cable bytes from which the port has no link credits (cxib_cable_busy): the
 * engines hold data packets back until the peer has read enough, so the buffer's remaining
 * room is for control packets and drops do not happen on a healthy cable.
 */
#define CXIB_CABLE_TX_HIGH_WATER	(1u << 18)
#define CXIB_CABLE_FRAME_MAX		(CXIB_CABLE_HDR_LEN + CXIB_CABLE_MAX_PAYLOAD)
#define CXIB_CABLE_RX_BUF_SIZE		(2 * CXIB_CABLE_FRAME_MAX)
#define CXIB_CABLE_RX_ROUNDS		16	/* socket reads per wake-up, then serve kicks */

/* Loopback plug: packets in flight at most (more are dropped); no credits from half of it. */
#define CXIB_CABLE_LOOPBACK_DEPTH	512
#define CXIB_CABLE_LOOPBACK_HIGH_WATER	(CXIB_CABLE_LOOPBACK_DEPTH / 2)

struct CxibCable {
	/* Fixed at creation. */
	char *path;			/* the cable's socket path, NULL: no cable */
	bool listen;
	bool loopback;			/* a loopback plug instead of a cable */
	unsigned int port;		/* the device's port number (HELLO, traces) */
	uint64_t node_guid;		/* announced in HELLO */
	const char *name;		/* the device's, for messages */
	CxibCapture *capture;
	CxibCableOps ops;
	void *opaque;

	/* Unplugged by cxib_cable_plug(): the worker drops the connection and makes none. */
	bool want_plugged;		/* atomic: what was asked */
	bool plugged;			/* worker: what is */

	/* listen_fd belongs to creation and cxib_cable_free(); the rest is the worker's. */
	int listen_fd;
	int64_t next_connect_ms;	/* QEMU_CLOCK_REALTIME */
	uint8_t *rxbuf;
	size_t rxlen;
	uint64_t peer_guid;
	QemuMutex tx_lock;		/* conn_fd, link_up, txbuf/txlen, lb_queue, stats */
	int conn_fd;
	bool link_up;			/* HELLO received on conn_fd */
	uint8_t *txbuf;
	size_t txlen;
	CxibCableStats stats;
	/*
	 * Waiting (cxib_cable_sample): bytes were pending for the peer at the last sample
	 * (unread in the socket, or still in txbuf), and the socket queue then, with the
	 * writes counted so far; wait_ns sums the intervals in which nothing moved.
	 */
	uint64_t writes;		/* successful writes into the socket */
	int64_t sample_ns;		/* QEMU_CLOCK_VIRTUAL */
	int sample_outq;
	size_t sample_txlen;
	uint64_t sample_writes;
	bool sample_pending;
	uint64_t wait_ns;

	/* Loopback plug: packets the port sent, waiting to arrive on it again. */
	GQueue lb_queue;
};

static void cxib_cable_hdr(uint8_t *hdr, enum cxib_cable_type type, uint32_t len)
{
	stl_be_p(hdr + CXIB_CABLE_OFF_MAGIC, CXIB_CABLE_MAGIC);
	hdr[CXIB_CABLE_OFF_VERSION] = CXIB_CABLE_VERSION;
	hdr[CXIB_CABLE_OFF_TYPE] = type;
	stw_be_p(hdr + CXIB_CABLE_OFF_RESERVED, 0);
	stl_be_p(hdr + CXIB_CABLE_OFF_LENGTH, len);
}

/*
 * Queue one frame (tx_lock held): send what the socket takes now, keep the rest for the
 * worker.  A frame is queued whole or not at all, so the stream never carries a torn frame.
 */
static bool cxib_cable_queue_locked(CxibCable *c, const uint8_t *hdr, const void *payload,
				    size_t plen)
{
	size_t total = CXIB_CABLE_HDR_LEN + plen;
	size_t sent = 0;

	if (c->conn_fd < 0 || c->txlen + total > CXIB_CABLE_TX_BUF_SIZE)
		return false;
	if (!c->txlen) {
		struct iovec iov[2] = {
			{ .iov_base = (void *)hdr, .iov_len = CXIB_CABLE_HDR_LEN },
			{ .iov_base = (void *)payload, .iov_len = plen },
		};
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = plen ? 2 : 1 };
		ssize_t n = sendmsg(c->conn_fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			sent = n;
			c->writes++;
		} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			return false;	/* the worker sees the error on its next poll */
		}
	}
	if (sent < CXIB_CABLE_HDR_LEN) {
		memcpy(c->txbuf + c->txlen, hdr + sent, CXIB_CABLE_HDR_LEN - sent);
		c->txlen += CXIB_CABLE_HDR_LEN - sent;
		sent = CXIB_CABLE_HDR_LEN;
	}
	if (sent < total) {
		memcpy(c->txbuf + c->txlen, (const uint8_t *)payload + (sent - CXIB_CABLE_HDR_LEN),
		       total - sent);
		c->txlen += total - sent;
	}
	c->stats.tx_queued = c->txlen;
	c->stats.tx_queued_peak = MAX(c->stats.tx_queued_peak, c->txlen);
	return true;
}

/* One packet of @len bytes left the port (tx_lock held). */
static void cxib_cable_count_tx_locked(CxibCable *c, size_t len)
{
	c->stats.tx_pkts++;
	c->stats.tx_bytes += len;
}

/* One packet of @len bytes goes to the device (worker). */
static void cxib_cable_count_rx(CxibCable *c, size_t len)
{
	qemu_mutex_lock(&c->tx_lock);
	c->stats.rx_pkts++;
	c->stats.rx_bytes += len;
	qemu_mutex_unlock(&c->tx_lock);
}

/* One packet on the loopback plug. */
struct cxib_cable_lb_pkt {
	size_t len;
	uint8_t data[];
};

/* Send with a loopback plug: the packet comes back in through the worker. */
static int cxib_cable_loopback_send(CxibCable *c, const void *pkt, size_t len)
{
	struct cxib_cable_lb_pkt *p;
	bool queued = false;

	qemu_mutex_lock(&c->tx_lock);
	if (g_queue_get_length(&c->lb_queue) < CXIB_CABLE_LOOPBACK_DEPTH) {
		p = g_malloc(sizeof(*p) + len);
		p->len = len;
		memcpy(p->data, pkt, len);
		g_queue_push_tail(&c->lb_queue, p);
		queued = true;
		cxib_cable_count_tx_locked(c, len);
		cxib_capture_packet(c->capture, CXIB_CAPTURE_SENT, pkt, len);
	} else {
		c->stats.tx_drop_full++;
	}
	qemu_mutex_unlock(&c->tx_lock);
	if (!queued) {
		trace_cxib_pci_cable_tx_drop(len, "loopback plug full");
		return -1;
	}
	trace_cxib_pci_cable_tx(c->port, len);
	c->ops.kick(c->opaque);
	return 0;
}

/* Worker: deliver the packets queued on the loopback plug so far (not the ones they cause). */
static void cxib_cable_loopback_deliver(CxibCable *c)
{
	GQueue batch = G_QUEUE_INIT;
	struct cxib_cable_lb_pkt *p;

	qemu_mutex_lock(&c->tx_lock);
	batch = c->lb_queue;
	g_queue_init(&c->lb_queue);
	qemu_mutex_unlock(&c->tx_lock);
	while ((p = g_queue_pop_head(&batch))) {
		trace_cxib_pci_cable_rx(c->port, p->len);
		cxib_cable_count_rx(c, p->len);
		cxib_capture_packet(c->capture, CXIB_CAPTURE_RECEIVED, p->data, p->len);
		c->ops.receive(c->opaque, p->data, p->len);
		g_free(p);
	}
}

/* Drop whatever is on the loopback plug (device stopped). */
static void cxib_cable_loopback_flush(CxibCable *c)
{
	qemu_mutex_lock(&c->tx_lock);
	while (!g_queue_is_empty(&c->lb_queue))
		g_free(g_queue_pop_head(&c->lb_queue));
	qemu_mutex_unlock(&c->tx_lock);
}

int cxib_cable_send(CxibCable *c, const void *pkt, size_t len)
{
	uint8_t hdr[CXIB_CABLE_HDR_LEN];
	bool queued = false, backlog = false;

	if (!len || len > CXIB_CABLE_MAX_PAYLOAD) {
		qemu_mutex_lock(&c->tx_lock);
		c->stats.tx_drop_bad++;
		qemu_mutex_unlock(&c->tx_lock);
		trace_cxib_pci_cable_tx_drop(len, "bad packet length");
		return -1;
	}
	if (c->loopback)
		return cxib_cable_loopback_send(c, pkt, len);
	cxib_cable_hdr(hdr, CXIB_CABLE_PACKET, len);
	qemu_mutex_lock(&c->tx_lock);
	if (!c->link_up) {
		c->stats.tx_drop_down++;
	} else if (cxib_cable_queue_locked(c, hdr, pkt, len)) {
		queued = true;
		backlog = c->txlen != 0;
		cxib_cable_count_tx_locked(c, len);
		cxib_capture_packet(c->capture, CXIB_CAPTURE_SENT, pkt, len);
	} else if (c->conn_fd >= 0) {
		c->stats.tx_drop_full++;
	} else {
		c->stats.tx_drop_down++;
	}
	qemu_mutex_unlock(&c->tx_lock);
	if (!queued) {
		trace_cxib_pci_cable_tx_drop(len, "link down or transmit queue full");
		return -1;
	}
	trace_cxib_pci_cable_tx(c->port, len);
	if (backlog)
		c->ops.kick(c->opaque);	/* let the worker wait for POLLOUT */
	return 0;
}

bool cxib_cable_busy(CxibCable *c)
{
	bool busy;

	qemu_mutex_lock(&c->tx_lock);
	if (c->loopback)
		busy = g_queue_get_length(&c->lb_queue) >= CXIB_CABLE_LOOPBACK_HIGH_WATER;
	else
		busy = c->link_up && c->txlen >= CXIB_CABLE_TX_HIGH_WATER;
	c->stats.busy += busy;
	qemu_mutex_unlock(&c->tx_lock);
	return busy;
}

void cxib_cable_get_stats(CxibCable *c, CxibCableStats *st)
{
	qemu_mutex_lock(&c->tx_lock);
	*st = c->stats;
	st->wait_ms = c->wait_ns / SCALE_MS;
	qemu_mutex_unlock(&c->tx_lock);
}

uint64_t cxib_cable_wait_ns(CxibCable *c)
{
	uint64_t ns;

	qemu_mutex_lock(&c->tx_lock);
	ns = c->wait_ns;
	qemu_mutex_unlock(&c->tx_lock);
	return ns;
}

/*
 * Worker, every turn: has the peer been reading?  An interval counts as waiting when bytes
 * were pending for the peer at its start and, by its end, we wrote nothing more into the
 * socket, the socket's unread queue (SIOCOUTQ: what the peer has not read yet) did not
 * shrink and our own backlog did not move: the peer's QEMU did not run.  Intervals in
 * which we wrote count as not waiting (what the peer read cannot be told apart then).
 */
static void cxib_cable_sample(CxibCable *c)
{
	int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
	int outq = 0;

	if (c->conn_fd >= 0 && ioctl(c->conn_fd, SIOCOUTQ, &outq) < 0)
		outq = 0;
	qemu_mutex_lock(&c->tx_lock);
	if (c->link_up && c->sample_pending && c->writes == c->sample_writes &&
	    outq == c->sample_outq && c->txlen == c->sample_txlen && now > c->sample_ns)
		c->wait_ns += now - c->sample_ns;
	c->sample_ns = now;
	c->sample_outq = outq;
	c->sample_txlen = c->txlen;
	c->sample_writes = c->writes;
	c->sample_pending = c->link_up && (outq > 0 || c->txlen > 0);
	qemu_mutex_unlock(&c->tx_lock);
}

char *cxib_cable_stats_format(const CxibCableStats *st)
{
	return g_strdup_printf("tx_pkts=%" PRIu64 " tx_bytes=%" PRIu64 " rx_pkts=%" PRIu64
			       " rx_bytes=%" PRIu64 " tx_drop_down=%" PRIu64
			       " tx_drop_full=%" PRIu64 " tx_drop_bad=%" PRIu64
			       " tx_lost_bytes=%" PRIu64 " busy=%" PRIu64 " tx_queued=%" PRIu64
			       " tx_queued_peak=%" PRIu64 " wait_ms=%" PRIu64 " links_up=%" PRIu64
			       " links_down=%" PRIu64,
			       st->tx_pkts, st->tx_bytes, st->rx_pkts, st->rx_bytes,
			       st->tx_drop_down, st->tx_drop_full, st->tx_drop_bad,
			       st->tx_lost_bytes, st->busy, st->tx_queued, st->tx_queued_peak,
			       st->wait_ms, st->links_up, st->links_down);
}

/* Worker: forget the connection; @why is printed if the link was up or it is an error. */
static void cxib_cable_close(CxibCable *c, const char *why, bool protocol_error)
{
	bool was_up;
	int fd;

	qemu_mutex_lock(&c->tx_lock);
	fd = c->conn_fd;
	was_up = c->link_up;
	if (fd >= 0) {
		c->stats.tx_lost_bytes += c->txlen;
		c->stats.links_down += was_up;
	}
	c->conn_fd = -1;
	c->link_up = false;
	c->txlen = 0;
	c->stats.tx_queued = 0;
	qemu_mutex_unlock(&c->tx_lock);
	if (fd < 0)
		return;
	close(fd);
	c->rxlen = 0;
	trace_cxib_pci_cable_down(why);
	if (was_up) {
		c->ops.link(c->opaque, false);
		fprintf(stderr, "%s: cable down (%s)\n", c->name, why);
	} else if (protocol_error) {
		fprintf(stderr, "%s: cable: dropping connection (%s)\n", c->name, why);
	}
	c->next_connect_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + CXIB_CABLE_RECONNECT_MS;
}

/* Worker: a connection exists (accepted or connected); say HELLO. */
static void cxib_cable_established(CxibCable *c, int fd)
{
	uint8_t hdr[CXIB_CABLE_HDR_LEN], hello[CXIB_CABLE_HELLO_LEN] = { 0 };
	bool ok;

	stq_be_p(hello + CXIB_CABLE_HELLO_OFF_GUID, c->node_guid);
	stl_be_p(hello + CXIB_CABLE_HELLO_OFF_PORT, c->port);
	cxib_cable_hdr(hdr, CXIB_CABLE_HELLO, sizeof(hello));

	qemu_mutex_lock(&c->tx_lock);
	c->conn_fd = fd;
	c->link_up = false;
	c->txlen = 0;
	ok = cxib_cable_queue_locked(c, hdr, hello, sizeof(hello));
	qemu_mutex_unlock(&c->tx_lock);
	c->rxlen = 0;
	if (!ok)
		cxib_cable_close(c, "cannot send HELLO", false);
}

static void cxib_cable_connect(CxibCable *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	c->next_connect_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + CXIB_CABLE_RECONNECT_MS;
	pstrcpy(sun.sun_path, sizeof(sun.sun_path), c->path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	/* A local stream connect completes at once or fails (e.g. no listener yet). */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return;
	}
	cxib_cable_established(c, fd);
}

static void cxib_cable_accept(CxibCable *c)
{
	int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd >= 0)
		cxib_cable_established(c, fd);
}

/* Worker: one complete frame; false if the connection was dropped. */
static bool cxib_cable_frame(CxibCable *c, uint8_t type, const uint8_t *p, uint32_t len)
{
	if (type == CXIB_CABLE_HELLO) {
		if (c->link_up) {
			cxib_cable_close(c, "second HELLO", true);
			return false;
		}
		c->peer_guid = ldq_be_p(p + CXIB_CABLE_HELLO_OFF_GUID);
		qemu_mutex_lock(&c->tx_lock);
		c->link_up = true;
		c->stats.links_up++;
		qemu_mutex_unlock(&c->tx_lock);
		c->ops.link(c->opaque, true);
		trace_cxib_pci_cable_up(c->peer_guid);
		fprintf(stderr, "%s: cable up, peer guid 0x%016" PRIx64 " port %u\n", c->name,
			c->peer_guid, (unsigned int)ldl_be_p(p + CXIB_CABLE_HELLO_OFF_PORT));
		return true;
	}
	if (!c->link_up) {
		cxib_cable_close(c, "packet before HELLO", true);
		return false;
	}
	trace_cxib_pci_cable_rx(c->port, len);
	cxib_cable_count_rx(c, len);
	cxib_capture_packet(c->capture, CXIB_CAPTURE_RECEIVED, p, len);
	c->ops.receive(c->opaque, p, len);
	return true;
}

/* Worker: check the header at @h; NULL if it is acceptable, else why not. */
static const char *cxib_cable_bad_header(const uint8_t *h)
{
	uint32_t len = ldl_be_p(h + CXIB_CABLE_OFF_LENGTH);

	if (ldl_be_p(h + CXIB_CABLE_OFF_MAGIC) != CXIB_CABLE_MAGIC)
		return "bad frame magic";
	if (h[CXIB_CABLE_OFF_VERSION] != CXIB_CABLE_VERSION)
		return "unsupported cable protocol version";
	switch (h[CXIB_CABLE_OFF_TYPE]) {
	case CXIB_CABLE_HELLO:
		return len == CXIB_CABLE_HELLO_LEN ? NULL : "bad HELLO length";
	case CXIB_CABLE_PACKET:
		return len && len <= CXIB_CABLE_MAX_PAYLOAD ? NULL : "bad packet length";
	default:
		return "unknown frame type";
	}
}

/* Worker: read what the socket has, hand complete frames on. */
static void cxib_cable_read(CxibCable *c)
{
	int round;

	for (round = 0; round < CXIB_CABLE_RX_ROUNDS; round++) {
		size_t off = 0;
		ssize_t n = recv(c->conn_fd, c->rxbuf + c->rxlen, CXIB_CABLE_RX_BUF_SIZE - c->rxlen,
				 MSG_DONTWAIT);

		if (n == 0) {
			cxib_cable_close(c, "peer closed the connection", false);
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				cxib_cable_close(c, g_strerror(errno), false);
			return;
		}
		c->rxlen += n;
		while (c->rxlen - off >= CXIB_CABLE_HDR_LEN) {
			const uint8_t *h = c->rxbuf + off;
			const char *bad = cxib_cable_bad_header(h);
			uint32_t len;

			if (bad) {
				cxib_cable_close(c, bad, true);
				return;
			}
			len = ldl_be_p(h + CXIB_CABLE_OFF_LENGTH);
			if (c->rxlen - off < CXIB_CABLE_HDR_LEN + len)
				break;
			if (!cxib_cable_frame(c, h[CXIB_CABLE_OFF_TYPE], h + CXIB_CABLE_HDR_LEN,
					      len))
				return;
			off += CXIB_CABLE_HDR_LEN + len;
		}
		memmove(c->rxbuf, c->rxbuf + off, c->rxlen - off);
		c->rxlen -= off;
	}
}

/* Worker: push queued bytes out. */
static void cxib_cable_flush(CxibCable *c)
{
	const char *err = NULL;

	qemu_mutex_lock(&c->tx_lock);
	if (c->conn_fd >= 0 && c->txlen) {
		ssize_t n = send(c->conn_fd, c->txbuf, c->txlen, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			memmove(c->txbuf, c->txbuf + n, c->txlen - n);
			c->txlen -= n;
			c->stats.tx_queued = c->txlen;
			c->writes++;
		} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			err = g_strerror(errno);
		}
	}
	qemu_mutex_unlock(&c->tx_lock);
	if (err)
		cxib_cable_close(c, err, false);
}

/* Creation: the listening side binds now, so a bad path fails at startup. */
static bool cxib_cable_listen(CxibCable *c, Error **errp)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	pstrcpy(sun.sun_path, sizeof(sun.sun_path), c->path);
	if (lstat(c->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			error_setg(errp, "cable %s exists and is not a socket", c->path);
			return false;
		}
		/* A socket file: in use if someone accepts on it, else left over from a run. */
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			close(fd);
			error_setg(errp, "cable %s is already in use by another listener",
				   c->path);
			return false;
		}
		if (fd >= 0)
			close(fd);
		unlink(c->path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		error_setg_errno(errp, errno, "cable socket");
		return false;
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 1) < 0) {
		error_setg_errno(errp, errno, "cannot listen on cable %s", c->path);
		close(fd);
		return false;
	}
	c->listen_fd = fd;
	return true;
}

CxibCable *cxib_cable_new(const CxibCableConfig *cfg, const CxibCableOps *ops, void *opaque,
			  Error **errp)
{
	CxibCable *c = g_new0(CxibCable, 1);

	c->path = g_strdup(cfg->path);
	c->listen = cfg->listen;
	c->loopback = cfg->loopback;
	c->port = cfg->port;
	c->node_guid = cfg->node_guid;
	c->name = cfg->name;
	c->capture = cfg->capture;
	c->ops = *ops;
	c->opaque = opaque;
	c->listen_fd = -1;
	c->conn_fd = -1;
	c->want_plugged = c->plugged = true;
	qemu_mutex_init(&c->tx_lock);
	g_queue_init(&c->lb_queue);
	if (c->path) {
		c->rxbuf = g_malloc(CXIB_CABLE_RX_BUF_SIZE);
		c->txbuf = g_malloc(CXIB_CABLE_TX_BUF_SIZE);
		if (c->listen && !cxib_cable_listen(c, errp)) {
			cxib_cable_free(c);
			return NULL;
		}
	}
	return c;
}

void cxib_cable_free(CxibCable *c)
{
	if (!c)
		return;
	if (c->listen_fd >= 0) {
		close(c->listen_fd);
		unlink(c->path);
	}
	cxib_cable_loopback_flush(c);
	g_free(c->txbuf);
	g_free(c->rxbuf);
	qemu_mutex_destroy(&c->tx_lock);
	g_free(c->path);
	g_free(c);
}

void cxib_cable_start(CxibCable *c)
{
	c->next_connect_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
}

/* The connecting side has no connection: it tries again every CXIB_CABLE_RECONNECT_MS. */
static bool cxib_cable_connecting(const CxibCable *c)
{
	return c->path && !c->listen && c->conn_fd < 0 && c->plugged;
}

void cxib_cable_plug(CxibCable *c, bool plugged)
{
	qatomic_set(&c->want_plugged, plugged);
	c->ops.kick(c->opaque);
}

bool cxib_cable_plugged(CxibCable *c)
{
	return qatomic_read(&c->want_plugged);
}

/* Worker: carry out an unplug or replug asked for since the last turn. */
static void cxib_cable_apply_plug(CxibCable *c)
{
	bool want = qatomic_read(&c->want_plugged);

	if (want == c->plugged || !c->path)
		return;
	c->plugged = want;
	if (!want) {
		cxib_cable_close(c, "cable unplugged", false);
		fprintf(stderr, "%s: cable unplugged\n", c->name);
	} else {
		c->next_connect_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
		fprintf(stderr, "%s: cable plugged in again\n", c->name);
	}
}

void cxib_cable_poll_prepare(CxibCable *c, struct pollfd *pfd, int *timeout_ms)
{
	pfd->fd = -1;
	pfd->events = 0;
	pfd->revents = 0;
	cxib_cable_apply_plug(c);
	if (!c->plugged)
		return;		/* a peer's connection waits in the backlog until replugged */
	if (c->conn_fd >= 0) {
		pfd->fd = c->conn_fd;
		pfd->events = POLLIN;
		qemu_mutex_lock(&c->tx_lock);
		if (c->txlen)
			pfd->events |= POLLOUT;
		qemu_mutex_unlock(&c->tx_lock);
	} else if (c->listen_fd >= 0) {
		pfd->fd = c->listen_fd;
		pfd->events = POLLIN;
	} else if (cxib_cable_connecting(c)) {
		int64_t wait = c->next_connect_ms - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

		*timeout_ms = MAX(0, MIN(*timeout_ms, wait));
	}
}

void cxib_cable_poll_done(CxibCable *c, const struct pollfd *pfd)
{
	/* only the worker opens and closes the connection: as it was in poll_prepare */
	bool connecting = cxib_cable_connecting(c);

	if (c->conn_fd >= 0 && pfd->fd == c->conn_fd) {
		if (pfd->revents & (POLLIN | POLLHUP | POLLERR))
			cxib_cable_read(c);
		if (c->conn_fd >= 0 && (pfd->revents & POLLOUT))
			cxib_cable_flush(c);
	} else if (pfd->fd >= 0 && pfd->fd == c->listen_fd && (pfd->revents & POLLIN) &&
		   c->plugged) {
		cxib_cable_accept(c);
	} else if (connecting && qemu_clock_get_ms(QEMU_CLOCK_REALTIME) >= c->next_connect_ms) {
		cxib_cable_connect(c);
	}
	if (c->loopback)
		cxib_cable_loopback_deliver(c);
	cxib_cable_sample(c);
}

void cxib_cable_stop(CxibCable *c)
{
	cxib_cable_close(c, "device stopped", false);
	cxib_cable_loopback_flush(c);
}
