// SPDX-License-Identifier: GPL-2.0-only
/*
 * kverbs: a two-node traffic matrix over the stock kernel verbs (ib_core), krping-like.
 *
 * Loaded on two nodes: role=server on one, role=client peer=<server's IPv4> on the other.
 * The two talk over a TCP control connection (a kernel socket, port=) to exchange QP
 * numbers, PSNs, addresses and keys and to step through each case together; the RDMA
 * traffic itself goes over the InfiniBand device dev= (any ib_core device: cxib_0, rxe0).
 * Addressing is by LID on an InfiniBand port and by RoCE v2 GID on an Ethernet one.
 *
 * The whole matrix runs in module init; every case prints one line:
 *   kverbs: role=client case=<name> result=<pass|FAIL|skip> bytes=<n> seconds=<s>
 *           mbps=<MB/s> reason="<why>"
 * and the run ends with "kverbs: role=<role> summary passed=N failed=N skipped=N", to
 * which " stopped=M (device removed)" is added when the device's removal (rmmod, unplug,
 * recovery) ended the run with M cases not run; otherwise a case not run is a failure.
 * A case is skipped only when the device's attributes say it cannot be run.
 * tests/e2e/kverbs.sh drives it in the lab.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/igmp.h>
#include <linux/in.h>
#include <linux/inetdevice.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "kvh.h"

static char *role = "client";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");
static char *peer = "";
module_param(peer, charp, 0444);
MODULE_PARM_DESC(peer, "the server's IPv4 address (client)");
static ushort port = 18515;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port of the control connection");
static char *dev = "cxib_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device name");
static uint ibport = 1;
module_param(ibport, uint, 0444);
MODULE_PARM_DESC(ibport, "port of the RDMA device");
static uint max_size = SZ_1M;
module_param(max_size, uint, 0444);
MODULE_PARM_DESC(max_size, "largest message in bytes (default 1 MiB)");
static uint wc_timeout_ms = 10000;
module_param(wc_timeout_ms, uint, 0444);
MODULE_PARM_DESC(wc_timeout_ms, "how long to wait for one completion");
static uint ctl_timeout_s = 120;
module_param(ctl_timeout_s, uint, 0444);
MODULE_PARM_DESC(ctl_timeout_s, "how long to wait for the peer on the control connection");
static char *cases = "";
module_param(cases, charp, 0444);
MODULE_PARM_DESC(cases, "comma-separated case names to run, \"rc_*\" for a prefix (default: all)");
static uint rounds = 1;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "how many times to run the matrix (default 1)");
static uint mlid = 0xc123;
module_param(mlid, uint, 0444);
MODULE_PARM_DESC(mlid, "multicast LID for the UD multicast case (0xc000-0xfffe)");

#define KV_MAGIC		0x6b766231	/* "kvb1" */
#define KV_QKEY			0x11110000
#define KV_CQ_DEPTH		512
#define KV_QP_DEPTH		64
#define KV_AUX_SIZE		PAGE_SIZE
#define KV_UD_GRH		40
#define KV_RD_ATOM		4
#define KV_RC_TIMEOUT		17	/* 4.096 us * 2^17: about half a second, for TCG */
#define KV_FR_SIZE		SZ_64K
#define KV_IMM			0xc0de0000
/* RoCE v2 multicast group 239.192.7.7 and the InfiniBand MGID of the UD multicast case. */
#define KV_MCAST_IPV4		0xefc00707
static const u8 kv_ib_mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
				   0, 0, 0, 0, 0xc0, 0xde, 0x00, 0x01 };

enum kv_result { KV_PASS, KV_FAIL, KV_SKIP };
static const char * const kv_result_names[] = { "pass", "FAIL", "skip" };

enum kv_cmd { KV_CMD_CASE = 1 };

/* What the two sides tell each other when they connect (same architecture both ends). */
struct kv_hello {
	u32 magic;
	u32 ncases;
	u32 lid;
	u32 mtu;
	u32 bsize;
	u32 roce;
	u8 gid[16];
	u8 mac[ETH_ALEN];
	u8 pad[2];
};

struct kv_keys {
	u64 addr;
	u64 addr_ro;
	u32 rkey;
	u32 rkey_ro;
	u32 ok;		/* the server registered both regions */
	u32 pad;
};

struct kv_qpinfo {
	u32 qpn;
	u32 psn;
};

struct kv_res {
	u32 result;
	u32 pad;
	u64 bytes;
	u64 ns;
	char why[160];
};

struct kv_ctx {
	bool server;
	struct socket *sock;
	u32 seq;
	bool fatal;

	struct ib_device *dev;
	u8 port;
	bool roce;
	int gid_index;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	int ifindex;		/* RoCE: the GID's network device */
	u16 lid;
	enum ib_mtu mtu;
	u32 max_msg;
	u32 bsize;		/* the largest message both sides can take */
	struct ib_pd *pd;
	struct kvh_buf buf;
	struct kvh_buf aux;

	struct kv_hello peer;
	struct kvh_q main;
	struct ib_mr *mr;	/* server: remote read/write/atomic over buf */
	struct ib_mr *mr_ro;	/* server: remote read over aux */
	struct kv_keys keys;	/* the server's, on both sides */
	char mr_why[160];	/* server: why registering them failed */

	/* The running case. */
	struct kv_res res;
	u64 t0;

	bool gone;		/* the device is being unregistered: stop (kv_remove_one) */
};

/* ---- control connection ------------------------------------------------------------ */

struct kv_hdr {
	u32 magic;
	u32 seq;
	u32 failed;
	u32 len;
};

static int kv_sock_io(struct kv_ctx *c, void *p, size_t len, bool send)
{
	struct msghdr msg = { .msg_flags = send ? MSG_NOSIGNAL : MSG_WAITALL };
	struct kvec iov;
	int n;

	while (len) {
		iov.iov_base = p;
		iov.iov_len = len;
		if (send)
			n = kernel_sendmsg(c->sock, &msg, &iov, 1, len);
		else
			n = kernel_recvmsg(c->sock, &msg, &iov, 1, len, MSG_WAITALL);
		if (n <= 0)
			return n ? n : -ECONNRESET;
		p += n;
		len -= n;
	}
	return 0;
}

static void kv_fail(struct kv_ctx *c, const char *fmt, ...) __printf(2, 3);
static void kv_fail(struct kv_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->res.result == KV_FAIL)
		return;		/* the first reason is the one that counts */
	c->res.result = KV_FAIL;
	va_start(ap, fmt);
	vsnprintf(c->res.why, sizeof(c->res.why), fmt, ap);
	va_end(ap);
}

static void kv_skip(struct kv_ctx *c, const char *fmt, ...) __printf(2, 3);
static void kv_skip(struct kv_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->res.result != KV_PASS)
		return;
	c->res.result = KV_SKIP;
	va_start(ap, fmt);
	vsnprintf(c->res.why, sizeof(c->res.why), fmt, ap);
	va_end(ap);
}

/*
 * Send @len bytes of @mine, receive as many into @theirs, with this side's failure state.
 * Both sides call the exchanges of a case in the same order.  Returns true when either
 * side has failed (or skipped) the case so far, or the connection broke: both then leave
 * the case at this same exchange.
 */
static bool kv_xchg(struct kv_ctx *c, const void *mine, void *theirs, u32 len)
{
	struct kv_hdr h = { KV_MAGIC, ++c->seq, c->res.result != KV_PASS, len }, ph;

	if (c->fatal)
		return true;
	if (kv_sock_io(c, &h, sizeof(h), true) || (len && kv_sock_io(c, (void *)mine, len, true)) ||
	    kv_sock_io(c, &ph, sizeof(ph), false))
		goto broken;
	if (ph.magic != KV_MAGIC || ph.seq != h.seq || ph.len != len) {
		pr_err("control: out of step (seq %u/%u len %u/%u)\n", ph.seq, h.seq, ph.len, len);
		goto broken;
	}
	if (len && kv_sock_io(c, theirs, len, false))
		goto broken;
	if (ph.failed && c->res.result == KV_PASS) {
		/* The peer's reason arrives with the results; note only that it stopped. */
		c->res.result = KV_SKIP;
		strscpy(c->res.why, "peer stopped", sizeof(c->res.why));
	}
	return c->res.result != KV_PASS;

broken:
	c->fatal = true;
	kv_fail(c, "control connection lost");
	return true;
}

static bool kv_sync(struct kv_ctx *c)
{
	return kv_xchg(c, NULL, NULL, 0);
}

/* ---- buffers and data -------------------------------------------------------------- */

static void kv_fill(struct kv_ctx *c, struct kvh_buf *b, size_t off, size_t len, u32 seed)
{
	kvh_fill(c->dev, b, off, len, seed);
}

static void kv_zero(struct kv_ctx *c, struct kvh_buf *b, size_t off, size_t len)
{
	kvh_zero(c->dev, b, off, len);
}

/* Compare @len bytes at @off with the pattern of @seed; fail the case on a difference. */
static bool kv_check(struct kv_ctx *c, struct kvh_buf *b, size_t off, size_t len, u32 seed,
		     const char *what)
{
	size_t i = kvh_mismatch(c->dev, b, off, len, seed);

	if (i == len)
		return true;
	kv_fail(c, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, len,
		((u8 *)b->va)[off + i], kvh_pat(seed, i));
	return false;
}

static u64 kv_get64(struct kv_ctx *c, struct kvh_buf *b, size_t off)
{
	return kvh_get64(c->dev, b, off);
}

static void kv_put64(struct kv_ctx *c, struct kvh_buf *b, size_t off, u64 v)
{
	kvh_put64(c->dev, b, off, v);
}

static int kv_buf_alloc(struct kv_ctx *c, struct kvh_buf *b, size_t len)
{
	return kvh_buf_alloc(c->dev, b, len);
}

static void kv_buf_free(struct kv_ctx *c, struct kvh_buf *b)
{
	kvh_buf_free(c->dev, b);
}

/* ---- completions and posting ------------------------------------------------------- */

static const char *kv_status(enum ib_wc_status s)
{
	return ib_wc_status_msg(s);
}

/* The next completion of @q, or a failure after wc_timeout_ms or once the device goes. */
static bool kv_wait(struct kv_ctx *c, struct kvh_q *q, struct ib_wc *wc, const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(wc_timeout_ms);
	int n;

	do {
		n = kvh_poll(q, wc, 100);
	} while (!n && !READ_ONCE(c->gone) && time_before(jiffies, end));
	if (n < 0)
		kv_fail(c, "%s: ib_poll_cq: %d", what, n);
	else if (!n && READ_ONCE(c->gone))
		kv_fail(c, "%s: the device is going away", what);
	else if (!n)
		kv_fail(c, "%s: no completion in %u ms", what, wc_timeout_ms);
	return n > 0;
}

/* Wait for a completion and check its status, opcode and wr_id. */
static bool kv_expect(struct kv_ctx *c, struct kvh_q *q, struct ib_wc *wc, u64 wr_id,
		      enum ib_wc_status status, int opcode, const char *what)
{
	if (!kv_wait(c, q, wc, what))
		return false;
	if (wc->status != status) {
		kv_fail(c, "%s: status %s (%d, vendor 0x%x), expected %s", what,
			kv_status(wc->status), wc->status, wc->vendor_err, kv_status(status));
		return false;
	}
	if (wc->wr_id != wr_id) {
		kv_fail(c, "%s: wr_id %llu, expected %llu", what, wc->wr_id, wr_id);
		return false;
	}
	/* The opcode is valid only for successful completions. */
	if (status == IB_WC_SUCCESS && opcode >= 0 && wc->opcode != opcode) {
		kv_fail(c, "%s: opcode %d, expected %d", what, wc->opcode, opcode);
		return false;
	}
	return true;
}

static bool kv_post_recv(struct kv_ctx *c, struct kvh_q *q, u64 wr_id, u64 addr, u32 len)
{
	int err = kvh_post_recv(c->pd, q, wr_id, addr, len);

	if (err)
		kv_fail(c, "ib_post_recv: %d", err);
	return !err;
}

/* Post @n operations (struct kvh_op) as one chain. */
static bool kv_post(struct kv_ctx *c, struct kvh_q *q, const struct kvh_op *ops, int n)
{
	int err = kvh_post(c->pd, q, ops, n);

	if (err)
		kv_fail(c, "ib_post_send (opcode %d): %d", ops[0].opcode, err);
	return !err;
}

static bool kv_post1(struct kv_ctx *c, struct kvh_q *q, const struct kvh_op *op)
{
	return kv_post(c, q, op, 1);
}

/* ---- addressing and queue pairs ---------------------------------------------------- */

static void kv_ah_attr(struct kv_ctx *c, struct rdma_ah_attr *ah, bool mcast)
{
	union ib_gid dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(c->dev, c->port);
	rdma_ah_set_port_num(ah, c->port);
	rdma_ah_set_sl(ah, 0);
	if (mcast) {
		if (c->roce) {
			ipv6_addr_set_v4mapped(htonl(KV_MCAST_IPV4), (struct in6_addr *)dgid.raw);
			ip_eth_mc_map(htonl(KV_MCAST_IPV4), ah->roce.dmac);
		} else {
			memcpy(dgid.raw, kv_ib_mgid, sizeof(dgid.raw));
			rdma_ah_set_dlid(ah, mlid);
		}
		rdma_ah_set_grh(ah, &dgid, 0, c->gid_index, 64, 0);
		return;
	}
	if (c->roce) {
		memcpy(dgid.raw, c->peer.gid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah, &dgid, 0, c->gid_index, 64, 0);
		memcpy(ah->roce.dmac, c->peer.mac, ETH_ALEN);
	} else {
		rdma_ah_set_dlid(ah, c->peer.lid);
	}
}

static void kv_qp_close(struct kvh_q *q)
{
	if (!IS_ERR_OR_NULL(q->qp))
		ib_destroy_qp(q->qp);
	if (!IS_ERR_OR_NULL(q->srq))
		ib_destroy_srq(q->srq);
	if (!IS_ERR_OR_NULL(q->cq))
		ib_free_cq(q->cq);
	memset(q, 0, sizeof(*q));
}

struct kv_qp_opts {
	bool ud;
	bool srq;
	u8 rnr_retry;
};

/* Create a CQ and a QP (and an SRQ), and take the QP to INIT.  Local only. */
static bool kv_qp_create(struct kv_ctx *c, struct kvh_q *q, const struct kv_qp_opts *o)
{
	struct ib_qp_init_attr ia = {};
	struct ib_qp_attr a = {};
	int mask, err;

	memset(q, 0, sizeof(*q));
	q->cq = ib_alloc_cq(c->dev, NULL, KV_CQ_DEPTH, 0, IB_POLL_DIRECT);
	if (IS_ERR(q->cq)) {
		kv_fail(c, "ib_alloc_cq: %ld", PTR_ERR(q->cq));
		return false;
	}
	if (o->srq) {
		struct ib_srq_init_attr sa = {
			.attr = { .max_wr = KV_QP_DEPTH, .max_sge = 1 },
			.srq_type = IB_SRQT_BASIC,
		};

		q->srq = ib_create_srq(c->pd, &sa);
		if (IS_ERR(q->srq)) {
			kv_fail(c, "ib_create_srq: %ld", PTR_ERR(q->srq));
			return false;
		}
	}
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	ia.srq = q->srq;
	ia.qp_type = o->ud ? IB_QPT_UD : IB_QPT_RC;
	ia.sq_sig_type = IB_SIGNAL_REQ_WR;
	ia.cap.max_send_wr = KV_QP_DEPTH;
	ia.cap.max_recv_wr = o->srq ? 0 : KV_QP_DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	q->qp = ib_create_qp(c->pd, &ia);
	if (IS_ERR(q->qp)) {
		kv_fail(c, "ib_create_qp (%s): %ld", o->ud ? "UD" : "RC", PTR_ERR(q->qp));
		return false;
	}
	q->psn = get_random_u32() & 0xffffff;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = c->port;
	mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (o->ud) {
		a.qkey = KV_QKEY;
		mask |= IB_QP_QKEY;
	} else {
		a.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	err = ib_modify_qp(q->qp, &a, mask);
	if (err) {
		kv_fail(c, "ib_modify_qp to INIT: %d", err);
		return false;
	}
	return true;
}

/* RTR and RTS; for RC connected to the peer's @pq. */
static bool kv_qp_rts(struct kv_ctx *c, struct kvh_q *q, const struct kv_qp_opts *o,
		      const struct kv_qpinfo *pq)
{
	struct ib_qp_attr a = {};
	int err, mask;

	a.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (!o->ud) {
		a.path_mtu = c->mtu;
		a.dest_qp_num = pq->qpn;
		a.rq_psn = pq->psn;
		a.max_dest_rd_atomic = min_t(int, KV_RD_ATOM, c->dev->attrs.max_qp_rd_atom);
		a.min_rnr_timer = 1;
		kv_ah_attr(c, &a.ah_attr, false);
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	err = ib_modify_qp(q->qp, &a, mask);
	if (err) {
		kv_fail(c, "ib_modify_qp to RTR: %d", err);
		return false;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = q->psn;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (!o->ud) {
		a.timeout = KV_RC_TIMEOUT;
		a.retry_cnt = 7;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = min_t(int, KV_RD_ATOM, c->dev->attrs.max_qp_init_rd_atom);
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
	}
	err = ib_modify_qp(q->qp, &a, mask);
	if (err) {
		kv_fail(c, "ib_modify_qp to RTS: %d", err);
		return false;
	}
	return true;
}

/*
 * Both sides: create a QP, exchange its number and PSN, connect (RC) and meet.  @pq gets
 * the peer's QP.  Returns false, on both sides, if either failed.
 */
static bool kv_qp_open(struct kv_ctx *c, struct kvh_q *q, const struct kv_qp_opts *o,
		       struct kv_qpinfo *pq)
{
	struct kv_qpinfo mine = {};

	if (kv_qp_create(c, q, o)) {
		mine.qpn = q->qp->qp_num;
		mine.psn = q->psn;
	}
	if (kv_xchg(c, &mine, pq, sizeof(*pq)))
		return false;
	kv_qp_rts(c, q, o, pq);
	return !kv_sync(c);
}

static const struct kv_qp_opts kv_rc = { .rnr_retry = 7 };

/* Register @len bytes of @b at @off through @mr with REG_MR posted on @q. */
static bool kv_reg_mr(struct kv_ctx *c, struct kvh_q *q, struct ib_mr *mr, struct kvh_buf *b,
		      size_t off, size_t len, int access)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	struct ib_wc wc;
	int n, err;

	sg_init_table(&sg, 1);
	sg_set_buf(&sg, b->va + off, len);
	sg_dma_address(&sg) = b->dma + off;
	sg_dma_len(&sg) = len;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		kv_fail(c, "ib_map_mr_sg of %zu bytes: %d", len, n);
		return false;
	}
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 0xfe;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	err = ib_post_send(q->qp, &wr.wr, NULL);
	if (err) {
		kv_fail(c, "ib_post_send(REG_MR): %d", err);
		return false;
	}
	return kv_expect(c, q, &wc, 0xfe, IB_WC_SUCCESS, IB_WC_REG_MR, "REG_MR");
}

static bool kv_local_inv(struct kv_ctx *c, struct kvh_q *q, u32 rkey)
{
	struct ib_send_wr wr = {
		.wr_id = 0xfd, .opcode = IB_WR_LOCAL_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rkey,
	};
	struct ib_wc wc;
	int err;

	err = ib_post_send(q->qp, &wr, NULL);
	if (err) {
		kv_fail(c, "ib_post_send(LOCAL_INV): %d", err);
		return false;
	}
	return kv_expect(c, q, &wc, 0xfd, IB_WC_SUCCESS, IB_WC_LOCAL_INV, "LOCAL_INV");
}

/* A key that is no key: that of a memory region made and destroyed again. */
static u32 kv_stale_key(struct kv_ctx *c, bool remote)
{
	struct ib_mr *mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 1);
	u32 key;

	if (IS_ERR(mr)) {
		kv_fail(c, "ib_alloc_mr: %ld", PTR_ERR(mr));
		return 0;
	}
	key = remote ? mr->rkey : mr->lkey;
	ib_dereg_mr(mr);
	return key;
}

/* ---- the cases ----------------------------------------------------------------------- */

static void kv_t_start(struct kv_ctx *c)
{
	c->t0 = ktime_get_ns();
}

static void kv_t_stop(struct kv_ctx *c, u64 bytes)
{
	c->res.ns = ktime_get_ns() - c->t0;
	c->res.bytes = bytes;
}

static bool kv_need_fastreg(struct kv_ctx *c)
{
	if (!(c->dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		kv_skip(c, "device lacks IB_DEVICE_MEM_MGT_EXTENSIONS (fast registration)");
		return false;
	}
	return true;
}

/* Cases that reach the server's buffer through its rkeys. */
static bool kv_need_keys(struct kv_ctx *c)
{
	if (!kv_need_fastreg(c))
		return false;
	if (!c->keys.ok) {
		kv_fail(c, "no remote keys: the server's REG_MR failed (%s)",
			c->server ? c->mr_why : "see its log");
		return false;
	}
	return true;
}

static bool kv_size_ok(struct kv_ctx *c, u32 size)
{
	if (size > c->max_msg) {
		kv_skip(c, "%u bytes exceed the port's max_msg_sz %u", size, c->max_msg);
		return false;
	}
	if (size > c->bsize) {
		kv_skip(c, "%u bytes exceed the registered %u (max_size, fast-reg page list)",
			size, c->bsize);
		return false;
	}
	return true;
}

/* RC SEND/RECV: a batch of messages of @size bytes, each checked byte for byte. */
static void kv_case_send(struct kv_ctx *c, u32 size)
{
	u32 i, n = clamp_t(u32, c->buf.len / max(size, 1U), 1, KVH_MAX_BATCH);
	struct kvh_op ops[KVH_MAX_BATCH];
	struct kvh_q *q = &c->main;
	struct ib_wc wc;
	char what[32];

	if (size > c->max_msg)
		kv_skip(c, "%u bytes exceed the port's max_msg_sz %u", size, c->max_msg);
	else if (size > max_size)
		kv_skip(c, "%u bytes exceed max_size=%u", size, max_size);
	if (kv_sync(c))
		return;
	if (c->server) {
		for (i = 0; i < n; i++)
			if (!kv_post_recv(c, q, i, c->buf.dma + (u64)i * size, size))
				break;
	}
	if (kv_sync(c))
		return;
	if (c->server) {
		for (i = 0; i < n; i++) {
			snprintf(what, sizeof(what), "receive %u of %u", i + 1, n);
			if (!kv_expect(c, q, &wc, i, IB_WC_SUCCESS, IB_WC_RECV, what))
				break;
			if (wc.byte_len != size) {
				kv_fail(c, "%s: byte_len %u, expected %u", what, wc.byte_len, size);
				break;
			}
			if (!kv_check(c, &c->buf, (size_t)i * size, size, i, what))
				break;
		}
	} else {
		for (i = 0; i < n; i++) {
			kv_fill(c, &c->buf, (size_t)i * size, size, i);
			ops[i] = (struct kvh_op){ .opcode = IB_WR_SEND, .wr_id = i,
				.laddr = c->buf.dma + (u64)i * size, .len = size };
		}
		kv_t_start(c);
		if (kv_post(c, q, ops, n)) {
			for (i = 0; i < n; i++) {
				snprintf(what, sizeof(what), "send %u of %u", i + 1, n);
				if (!kv_expect(c, q, &wc, i, IB_WC_SUCCESS, IB_WC_SEND, what))
					break;
			}
		}
		kv_t_stop(c, (u64)n * size);
	}
	kv_sync(c);
}

static void kv_case_write(struct kv_ctx *c, u32 size, bool imm)
{
	u32 immv = KV_IMM | (size & 0xffff);
	struct kvh_q *q = &c->main;
	struct ib_wc wc;

	kv_need_keys(c);
	kv_size_ok(c, size);
	if (kv_sync(c))
		return;
	if (c->server) {
		kv_zero(c, &c->buf, 0, size);
		if (imm)
			kv_post_recv(c, q, 7, 0, 0);
	} else {
		kv_fill(c, &c->buf, 0, size, size);
	}
	if (kv_sync(c))
		return;
	if (c->server) {
		if (imm && kv_expect(c, q, &wc, 7, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
				     "receive of the immediate")) {
			if (!(wc.wc_flags & IB_WC_WITH_IMM))
				kv_fail(c, "IB_WC_WITH_IMM not set");
			else if (be32_to_cpu(wc.ex.imm_data) != immv)
				kv_fail(c, "immediate 0x%x, expected 0x%x",
					be32_to_cpu(wc.ex.imm_data), immv);
			else if (wc.byte_len != size)
				kv_fail(c, "byte_len %u, expected %u", wc.byte_len, size);
		}
	} else {
		struct kvh_op op = {
			.opcode = imm ? IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE, .wr_id = 1,
			.laddr = c->buf.dma, .len = size, .raddr = c->keys.addr,
			.rkey = c->keys.rkey, .imm_inv = immv,
		};

		kv_t_start(c);
		if (kv_post1(c, q, &op))
			kv_expect(c, q, &wc, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, "RDMA WRITE");
		kv_t_stop(c, size);
	}
	if (kv_sync(c))
		return;
	if (c->server)
		kv_check(c, &c->buf, 0, size, size, "written data");
	kv_sync(c);
}

static void kv_case_read(struct kv_ctx *c, u32 size)
{
	struct kvh_q *q = &c->main;
	struct ib_wc wc;

	kv_need_keys(c);
	kv_size_ok(c, size);
	if (kv_sync(c))
		return;
	if (c->server)
		kv_fill(c, &c->buf, 0, size, size + 1);
	else
		kv_zero(c, &c->buf, 0, size);
	if (kv_sync(c))
		return;
	if (!c->server) {
		struct kvh_op op = {
			.opcode = IB_WR_RDMA_READ, .wr_id = 2, .laddr = c->buf.dma, .len = size,
			.raddr = c->keys.addr, .rkey = c->keys.rkey,
		};

		kv_t_start(c);
		if (kv_post1(c, q, &op) &&
		    kv_expect(c, q, &wc, 2, IB_WC_SUCCESS, IB_WC_RDMA_READ, "RDMA READ")) {
			kv_t_stop(c, size);
			kv_check(c, &c->buf, 0, size, size + 1, "read data");
		}
	}
	kv_sync(c);
}

/*
 * Whether @dev belongs to the module @name.  Not by driver_id: cxib answers to libmlx5 as
 * RDMA_DRIVER_MLX5 too.
 */
static bool kv_driver_is(struct ib_device *dev, const char *name)
{
	return dev->ops.owner && !strcmp(module_name(dev->ops.owner), name);
}

static bool kv_need_atomics(struct kv_ctx *c)
{
	if (!kv_need_keys(c))
		return false;
	if (c->dev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		kv_skip(c, "device reports atomic_cap IB_ATOMIC_NONE");
		return false;
	}
	/*
	 * The stock mlx5_ib offers atomics to user space only: its kernel post_send refuses
	 * them (drivers/infiniband/hw/mlx5/wr.c, "Atomic operations are not supported yet").
	 * A limit of that driver, named as such, on the side that posts them (the client);
	 * as the target of another driver's atomics it takes part, and any other device
	 * must run them.
	 */
	if (!c->server && kv_driver_is(c->dev, "mlx5_ib")) {
		kv_skip(c, "mlx5_ib posts no atomics from kernel verbs (wr.c)");
		return false;
	}
	return true;
}

/* One atomic from the client; the value it returns is checked. */
static void kv_atomic(struct kv_ctx *c, enum ib_wr_opcode opc, u64 cmp_add, u64 swap,
		      u64 expect_ret, const char *what)
{
	struct kvh_op op = {
		.opcode = opc, .wr_id = 3, .laddr = c->buf.dma + 64, .len = 8,
		.raddr = c->keys.addr, .rkey = c->keys.rkey, .cmp_add = cmp_add, .swap = swap,
	};
	struct ib_wc wc;
	u64 got;

	if (c->res.result != KV_PASS)
		return;
	kv_put64(c, &c->buf, 64, 0xdeadbeefdeadbeefULL);
	if (!kv_post1(c, &c->main, &op) ||
	    !kv_expect(c, &c->main, &wc, 3, IB_WC_SUCCESS,
		       opc == IB_WR_ATOMIC_CMP_AND_SWP ? IB_WC_COMP_SWAP : IB_WC_FETCH_ADD, what))
		return;
	got = kv_get64(c, &c->buf, 64);
	if (got != expect_ret)
		kv_fail(c, "%s returned 0x%llx, expected 0x%llx", what, got, expect_ret);
}

static void kv_case_atomic(struct kv_ctx *c, bool cas)
{
	const u64 v0 = cas ? 0x1111222233334444ULL : 1000, v1 = 0x5555666677778888ULL;
	u64 got, want;

	kv_need_atomics(c);
	if (kv_sync(c))
		return;
	if (c->server)
		kv_put64(c, &c->buf, 0, v0);
	if (kv_sync(c))
		return;
	if (!c->server) {
		kv_t_start(c);
		if (cas) {
			kv_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, v0, v1, v0, "CMP_AND_SWP (equal)");
			kv_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, v0, 0x99, v1,
				  "CMP_AND_SWP (different)");
		} else {
			kv_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 24, 0, v0, "FETCH_AND_ADD 24");
			kv_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 1ULL << 32, 0, v0 + 24,
				  "FETCH_AND_ADD 2^32");
		}
		kv_t_stop(c, 16);
	}
	if (kv_sync(c))
		return;
	if (c->server) {
		got = kv_get64(c, &c->buf, 0);
		want = cas ? v1 : v0 + 24 + (1ULL << 32);
		if (got != want)
			kv_fail(c, "target holds 0x%llx after the atomics, expected 0x%llx", got,
				want);
	}
	kv_sync(c);
}

/* Messages into a shared receive queue, of sizes that differ, checked in order. */
static void kv_case_srq(struct kv_ctx *c)
{
	const struct kv_qp_opts o = { .srq = c->server, .rnr_retry = 7 };
	const u32 n = 8, slot = 4096;
	struct kvh_op ops[8];
	struct kv_qpinfo pq;
	struct kvh_q q = {};
	struct ib_wc wc;
	char what[32];
	u32 i;

	if (!c->dev->attrs.max_srq)
		kv_skip(c, "device reports max_srq 0");
	if (kv_sync(c) || !kv_qp_open(c, &q, &o, &pq))
		goto out;
	if (c->server)
		for (i = 0; i < n && kv_post_recv(c, &q, 100 + i, c->buf.dma + i * slot, slot); i++)
			;
	if (kv_sync(c))
		goto out;
	if (c->server) {
		for (i = 0; i < n; i++) {
			snprintf(what, sizeof(what), "SRQ receive %u", i + 1);
			if (!kv_expect(c, &q, &wc, 100 + i, IB_WC_SUCCESS, IB_WC_RECV, what))
				break;
			if (wc.qp != q.qp) {
				kv_fail(c, "%s: completion names QP %u, expected %u", what,
					wc.qp ? wc.qp->qp_num : 0, q.qp->qp_num);
				break;
			}
			if (wc.byte_len != 100 * (i + 1)) {
				kv_fail(c, "%s: byte_len %u, expected %u", what, wc.byte_len,
					100 * (i + 1));
				break;
			}
			if (!kv_check(c, &c->buf, i * slot, wc.byte_len, 50 + i, what))
				break;
		}
	} else {
		for (i = 0; i < n; i++) {
			kv_fill(c, &c->buf, i * slot, 100 * (i + 1), 50 + i);
			ops[i] = (struct kvh_op){ .opcode = IB_WR_SEND, .wr_id = i,
				.laddr = c->buf.dma + i * slot, .len = 100 * (i + 1) };
		}
		kv_t_start(c);
		if (kv_post(c, &q, ops, n))
			for (i = 0; i < n; i++)
				if (!kv_expect(c, &q, &wc, i, IB_WC_SUCCESS, IB_WC_SEND, "send"))
					break;
		kv_t_stop(c, 100 * n * (n + 1) / 2);
	}
	kv_sync(c);
out:
	kv_qp_close(&q);
}

/* RoCE v2 multicast is IPv4 multicast: join or leave the group on the GID's device. */
static int kv_igmp(struct kv_ctx *c, bool join)
{
	struct net_device *nd = dev_get_by_index(&init_net, c->ifindex);
	struct in_device *in;

	if (!nd)
		return -ENODEV;
	rtnl_lock();
	in = __in_dev_get_rtnl(nd);
	if (in && join)
		ip_mc_inc_group(in, htonl(KV_MCAST_IPV4));
	else if (in)
		ip_mc_dec_group(in, htonl(KV_MCAST_IPV4));
	rtnl_unlock();
	dev_put(nd);
	return in ? 0 : -ENODEV;
}

/* UD: datagrams of @size bytes to the peer's UD QP, or to a multicast group it joined. */
static void kv_case_ud(struct kv_ctx *c, u32 size, bool mcast)
{
	const struct kv_qp_opts o = { .ud = true };
	union ib_gid mgid = {};
	struct rdma_ah_attr aa;
	struct ib_ah *ah = NULL;
	struct kv_qpinfo pq;
	struct kvh_q q = {};
	bool attached = false, joined = false;
	struct ib_wc wc;
	int err;

	if (!size)
		size = ib_mtu_enum_to_int(c->mtu);
	if (mcast && !c->dev->attrs.max_mcast_grp)
		kv_skip(c, "device reports max_mcast_grp 0");
	if (kv_sync(c) || !kv_qp_open(c, &q, &o, &pq))
		goto out;
	if (c->server) {
		if (mcast) {
			if (c->roce)
				ipv6_addr_set_v4mapped(htonl(KV_MCAST_IPV4),
						       (struct in6_addr *)mgid.raw);
			else
				memcpy(mgid.raw, kv_ib_mgid, sizeof(mgid.raw));
			err = ib_attach_mcast(q.qp, &mgid, c->roce ? 0 : mlid);
			if (err)
				kv_fail(c, "ib_attach_mcast(mlid 0x%x): %d", mlid, err);
			attached = !err;
			/* RoCE v2: the host joins the IP group too, as rdma_cm does. */
			if (attached && c->roce) {
				err = kv_igmp(c, true);
				if (err)
					kv_fail(c, "joining IPv4 group %pI4: %d", &mgid.raw[12],
						err);
				joined = !err;
			}
		}
		kv_zero(c, &c->buf, 0, size + KV_UD_GRH);
		kv_post_recv(c, &q, 9, c->buf.dma, size + KV_UD_GRH);
	}
	if (kv_sync(c))
		goto out;
	if (c->server) {
		if (kv_expect(c, &q, &wc, 9, IB_WC_SUCCESS, IB_WC_RECV, "UD receive")) {
			if (wc.byte_len != size + KV_UD_GRH)
				kv_fail(c, "byte_len %u, expected %u + %u (GRH)", wc.byte_len,
					size, KV_UD_GRH);
			else if (wc.src_qp != pq.qpn)
				kv_fail(c, "src_qp 0x%x, expected 0x%x", wc.src_qp, pq.qpn);
			else if ((c->roce || mcast) && !(wc.wc_flags & IB_WC_GRH))
				kv_fail(c, "IB_WC_GRH not set");
			else if (!c->roce && wc.slid != c->peer.lid)
				kv_fail(c, "slid 0x%x, expected 0x%x", wc.slid, c->peer.lid);
			else
				kv_check(c, &c->buf, KV_UD_GRH, size, size + 3, "UD payload");
		}
	} else {
		struct ib_ud_wr wr = {};
		struct ib_sge sge = {
			.addr = c->buf.dma, .length = size, .lkey = c->pd->local_dma_lkey,
		};

		kv_ah_attr(c, &aa, mcast);
		ah = rdma_create_ah(c->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(ah)) {
			kv_fail(c, "rdma_create_ah: %ld", PTR_ERR(ah));
			ah = NULL;
			goto sync;
		}
		kv_fill(c, &c->buf, 0, size, size + 3);
		wr.wr.wr_id = 10;
		wr.wr.opcode = IB_WR_SEND;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.ah = ah;
		wr.remote_qpn = mcast ? IB_MULTICAST_QPN : pq.qpn;
		wr.remote_qkey = KV_QKEY;
		kv_t_start(c);
		err = ib_post_send(q.qp, &wr.wr, NULL);
		if (err)
			kv_fail(c, "ib_post_send(UD): %d", err);
		else
			kv_expect(c, &q, &wc, 10, IB_WC_SUCCESS, IB_WC_SEND, "UD send");
		kv_t_stop(c, size);
	}
sync:
	kv_sync(c);
out:
	if (joined)
		kv_igmp(c, false);
	if (attached)
		ib_detach_mcast(q.qp, &mgid, c->roce ? 0 : mlid);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	kv_qp_close(&q);
}

/* The client's RDMA WRITE of @len bytes through @rkey gets @status (a new QP pair). */
static void kv_write_expect(struct kv_ctx *c, const struct kv_keys *k, u32 len,
			    enum ib_wc_status status, const char *what)
{
	struct kv_qpinfo pq;
	struct kvh_q q = {};
	struct ib_wc wc;

	if (!kv_qp_open(c, &q, &kv_rc, &pq))
		goto out;
	if (!c->server) {
		struct kvh_op op = {
			.opcode = IB_WR_RDMA_WRITE, .wr_id = 5, .laddr = c->buf.dma, .len = len,
			.raddr = k->addr, .rkey = k->rkey,
		};

		kv_fill(c, &c->buf, 0, len, 5);
		if (kv_post1(c, &q, &op))
			kv_expect(c, &q, &wc, 5, status, IB_WC_RDMA_WRITE, what);
	}
	kv_sync(c);
out:
	kv_qp_close(&q);
}

/*
 * Fast registration: the server registers part of its buffer with REG_MR, the client
 * writes through that rkey; LOCAL_INV revokes it (a write fails), a new key is registered
 * and SEND_WITH_INV revokes that from the client's side (a write fails again).
 */
static void kv_case_fastreg(struct kv_ctx *c)
{
	const int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	struct ib_mr *mr = NULL;
	struct kv_keys k = {}, pk;
	struct kv_qpinfo pq;
	struct kvh_q q = {};
	struct ib_wc wc;
	u32 len = min_t(u32, KV_FR_SIZE, c->bsize);

	kv_need_fastreg(c);
	if (kv_sync(c) || !kv_qp_open(c, &q, &kv_rc, &pq))
		goto out;
	/* 1: register, write, check. */
	if (c->server) {
		mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, len >> PAGE_SHIFT);
		if (IS_ERR(mr)) {
			kv_fail(c, "ib_alloc_mr: %ld", PTR_ERR(mr));
			mr = NULL;
		} else if (kv_reg_mr(c, &q, mr, &c->buf, 0, len, acc)) {
			k.addr = mr->iova;
			k.rkey = mr->rkey;
			kv_zero(c, &c->buf, 0, len);
		}
	}
	if (kv_xchg(c, &k, &pk, sizeof(k)))
		goto out;
	if (!c->server) {
		struct kvh_op op = {
			.opcode = IB_WR_RDMA_WRITE, .wr_id = 6, .laddr = c->buf.dma, .len = len,
			.raddr = pk.addr, .rkey = pk.rkey,
		};

		kv_fill(c, &c->buf, 0, len, 6);
		kv_t_start(c);
		if (kv_post1(c, &q, &op))
			kv_expect(c, &q, &wc, 6, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
				  "WRITE through the fast-registered rkey");
		kv_t_stop(c, len);
	}
	if (kv_sync(c))
		goto out;
	/* 2: LOCAL_INV; a write through the key is refused. */
	if (c->server && kv_check(c, &c->buf, 0, len, 6, "data written through the rkey"))
		kv_local_inv(c, &q, mr->rkey);
	if (kv_sync(c))
		goto out;
	kv_write_expect(c, &pk, len, IB_WC_REM_ACCESS_ERR, "WRITE after LOCAL_INV");
	if (kv_sync(c))
		goto out;
	/* 3: a new key (the variant bumped), then the client's SEND_WITH_INV revokes it. */
	if (c->server) {
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		if (kv_reg_mr(c, &q, mr, &c->buf, 0, len, acc)) {
			k.addr = mr->iova;
			k.rkey = mr->rkey;
			if (k.rkey == pk.rkey)
				kv_fail(c, "the re-registered key did not change");
			kv_post_recv(c, &q, 8, c->buf.dma + len, 64);
		}
	}
	if (kv_xchg(c, &k, &pk, sizeof(k)))
		goto out;
	if (c->server) {
		if (kv_expect(c, &q, &wc, 8, IB_WC_SUCCESS, IB_WC_RECV, "SEND_WITH_INV receive")) {
			if (!(wc.wc_flags & IB_WC_WITH_INVALIDATE))
				kv_fail(c, "IB_WC_WITH_INVALIDATE not set");
			else if (wc.ex.invalidate_rkey != k.rkey)
				kv_fail(c, "invalidated rkey 0x%x, expected 0x%x",
					wc.ex.invalidate_rkey, k.rkey);
		}
	} else {
		struct kvh_op op = {
			.opcode = IB_WR_SEND_WITH_INV, .wr_id = 7, .laddr = c->buf.dma, .len = 64,
			.imm_inv = pk.rkey,
		};

		if (kv_post1(c, &q, &op))
			kv_expect(c, &q, &wc, 7, IB_WC_SUCCESS, IB_WC_SEND, "SEND_WITH_INV");
	}
	if (kv_sync(c))
		goto out;
	kv_write_expect(c, &pk, len, IB_WC_REM_ACCESS_ERR, "WRITE after SEND_WITH_INV");
	kv_sync(c);
out:
	kv_qp_close(&q);
	if (mr)
		ib_dereg_mr(mr);
}

enum kv_err { KV_ERR_LKEY, KV_ERR_RKEY, KV_ERR_RO, KV_ERR_RNR, KV_ERR_FLUSH };

/* Error completions with their exact status, each on a QP pair of its own. */
static void kv_case_err(struct kv_ctx *c, enum kv_err e)
{
	struct kv_qp_opts o = { .rnr_retry = e == KV_ERR_RNR ? 0 : 7 };
	struct kvh_op ops[3] = {};
	struct kv_qpinfo pq;
	struct kvh_q q = {};
	struct ib_wc wc;
	u32 key = 0, pkey = 0;
	int i;

	if (e == KV_ERR_RO)
		kv_need_keys(c);
	else if (e != KV_ERR_LKEY && e != KV_ERR_RNR)
		kv_need_fastreg(c);
	if (kv_sync(c) || !kv_qp_open(c, &q, &o, &pq))
		goto out;
	if (c->server && (e == KV_ERR_LKEY || e == KV_ERR_FLUSH)) {
		for (i = 0; i < 3; i++)
			kv_post_recv(c, &q, 20 + i, c->buf.dma + i * 256, 256);
	}
	if ((e == KV_ERR_RKEY || e == KV_ERR_FLUSH) && c->server)
		key = kv_stale_key(c, true);
	if (kv_xchg(c, &key, &pkey, sizeof(key)))
		goto out;
	if (c->server) {
		kv_sync(c);
		goto out;
	}
	kv_t_start(c);
	switch (e) {
	case KV_ERR_LKEY:
		ops[0] = (struct kvh_op){ .opcode = IB_WR_SEND, .wr_id = 30, .laddr = c->buf.dma,
			.len = 256, .lkey = kv_stale_key(c, false) };
		if (kv_post1(c, &q, ops))
			kv_expect(c, &q, &wc, 30, IB_WC_LOC_PROT_ERR, -1, "send with a bad lkey");
		break;
	case KV_ERR_FLUSH:
		/* A WRITE the responder refuses, then two SENDs: those are flushed. */
		ops[0] = (struct kvh_op){ .opcode = IB_WR_RDMA_WRITE, .wr_id = 30,
			.laddr = c->buf.dma, .len = 256, .raddr = c->keys.addr, .rkey = pkey };
		for (i = 1; i < 3; i++)
			ops[i] = (struct kvh_op){ .opcode = IB_WR_SEND, .wr_id = 30 + i,
				.laddr = c->buf.dma + i * 256, .len = 256 };
		if (!kv_post(c, &q, ops, 3) ||
		    !kv_expect(c, &q, &wc, 30, IB_WC_REM_ACCESS_ERR, -1, "WRITE with a bad rkey"))
			break;
		for (i = 1; i < 3; i++)
			if (!kv_expect(c, &q, &wc, 30 + i, IB_WC_WR_FLUSH_ERR, -1,
				       "send after the error"))
				break;
		break;
	case KV_ERR_RKEY:
		ops[0] = (struct kvh_op){ .opcode = IB_WR_RDMA_WRITE, .wr_id = 31,
			.laddr = c->buf.dma, .len = 256, .raddr = c->keys.addr, .rkey = pkey };
		if (kv_post1(c, &q, ops))
			kv_expect(c, &q, &wc, 31, IB_WC_REM_ACCESS_ERR, -1,
				  "WRITE with a bad rkey");
		break;
	case KV_ERR_RO:
		/* Reading through the read-only key works, writing is refused. */
		ops[0] = (struct kvh_op){ .opcode = IB_WR_RDMA_READ, .wr_id = 32,
			.laddr = c->buf.dma, .len = KV_AUX_SIZE, .raddr = c->keys.addr_ro,
			.rkey = c->keys.rkey_ro };
		kv_zero(c, &c->buf, 0, KV_AUX_SIZE);
		if (!kv_post1(c, &q, ops) ||
		    !kv_expect(c, &q, &wc, 32, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			       "READ through the read-only rkey") ||
		    !kv_check(c, &c->buf, 0, KV_AUX_SIZE, 77, "read-only region"))
			break;
		ops[0].opcode = IB_WR_RDMA_WRITE;
		ops[0].wr_id = 33;
		if (kv_post1(c, &q, ops))
			kv_expect(c, &q, &wc, 33, IB_WC_REM_ACCESS_ERR, -1,
				  "WRITE through the read-only rkey");
		break;
	case KV_ERR_RNR:
		ops[0] = (struct kvh_op){ .opcode = IB_WR_SEND, .wr_id = 34, .laddr = c->buf.dma,
			.len = 64 };
		if (kv_post1(c, &q, ops))
			kv_expect(c, &q, &wc, 34, IB_WC_RNR_RETRY_EXC_ERR, -1,
				  "SEND with no receive posted, rnr_retry 0");
		break;
	}
	kv_t_stop(c, 0);
	kv_sync(c);
out:
	kv_qp_close(&q);
}

/*
 * ib_drain_qp() waits, without a timeout, for the work requests it posts to a QP in the
 * error state to be flushed.  See first, on a QP of its own, that the device flushes a
 * receive and a send posted in the error state; if it does not, fail rather than hang.
 */
static void kv_flush_probe(struct kv_ctx *c)
{
	struct kvh_drain_cqe d[2] = {};
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct ib_sge sge = { .addr = c->buf.dma, .length = 64, .lkey = c->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1, .wr_cqe = &d[0].cqe };
	struct ib_send_wr swr = { .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
				  .sg_list = &sge, .num_sge = 1, .wr_cqe = &d[1].cqe };
	struct kvh_q x = {};
	int err;

	d[0].cqe.done = kvh_drain_done;
	d[1].cqe.done = kvh_drain_done;
	if (!kv_qp_create(c, &x, &kv_rc))
		goto out;
	err = ib_modify_qp(x.qp, &a, IB_QP_STATE);
	if (!err)
		err = ib_post_recv(x.qp, &rwr, NULL);
	if (!err)
		err = ib_post_send(x.qp, &swr, NULL);
	if (err) {
		kv_fail(c, "flush probe: %d", err);
		goto out;
	}
	if (!kvh_drain_wait(x.cq, d, 2, wc_timeout_ms))
		kv_fail(c, "WRs posted in ERR not flushed (%d, %d): ib_drain_qp() would hang",
			d[0].done, d[1].done);
	else if (d[0].status != IB_WC_WR_FLUSH_ERR || d[1].status != IB_WC_WR_FLUSH_ERR)
		kv_fail(c, "WRs posted in ERR complete with %s, %s",
			kv_status(d[0].status), kv_status(d[1].status));
out:
	kv_qp_close(&x);
}

/* ib_drain_qp() on a connected QP with receives posted: they come back flushed. */
static void kv_case_drain(struct kv_ctx *c)
{
	struct kvh_drain_cqe d[4] = {};
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	struct kv_qpinfo pq;
	struct kvh_q q = {};
	int i, err;

	if (!c->server)
		kv_flush_probe(c);
	if (kv_sync(c) || !kv_qp_open(c, &q, &kv_rc, &pq))
		goto out;
	if (!c->server) {
		kv_t_start(c);
		for (i = 0; i < ARRAY_SIZE(d); i++) {
			struct ib_sge sge = { .addr = c->buf.dma, .length = 64,
					      .lkey = c->pd->local_dma_lkey };
			struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

			d[i].cqe.done = kvh_drain_done;
			wr.wr_cqe = &d[i].cqe;
			err = ib_post_recv(q.qp, &wr, NULL);
			if (err) {
				kv_fail(c, "ib_post_recv: %d", err);
				break;
			}
		}
		if (c->res.result == KV_PASS) {
			ib_drain_qp(q.qp);
			for (i = 0; i < ARRAY_SIZE(d); i++) {
				if (d[i].done != 1 || d[i].status != IB_WC_WR_FLUSH_ERR) {
					kv_fail(c, "receive %d: %d completions, status %s", i,
						d[i].done, kv_status(d[i].status));
					break;
				}
			}
			err = ib_query_qp(q.qp, &a, IB_QP_STATE, &ia);
			if (!err && a.qp_state != IB_QPS_ERR)
				kv_fail(c, "QP state %d after the drain, expected ERR", a.qp_state);
		}
		kv_t_stop(c, 0);
	}
	kv_sync(c);
out:
	kv_qp_close(&q);
}

/* ---- the matrix ---------------------------------------------------------------------- */

enum kv_kind { K_SEND, K_WRITE, K_WRITE_IMM, K_READ, K_CAS, K_FAA, K_SRQ, K_UD, K_MCAST,
	       K_FASTREG, K_ERR, K_DRAIN };

struct kv_case {
	const char *name;
	enum kv_kind kind;
	u32 arg;
};

static const struct kv_case kv_cases[] = {
	{ "rc_send_1", K_SEND, 1 },
	{ "rc_send_64", K_SEND, 64 },
	{ "rc_send_1000", K_SEND, 1000 },
	{ "rc_send_4096", K_SEND, 4096 },
	{ "rc_send_4097", K_SEND, 4097 },
	{ "rc_send_65536", K_SEND, SZ_64K },
	{ "rc_send_1048576", K_SEND, SZ_1M },
	{ "rc_write_1", K_WRITE, 1 },
	{ "rc_write_4096", K_WRITE, 4096 },
	{ "rc_write_65536", K_WRITE, SZ_64K },
	{ "rc_write_1048576", K_WRITE, SZ_1M },
	{ "rc_write_imm_1", K_WRITE_IMM, 1 },
	{ "rc_write_imm_65536", K_WRITE_IMM, SZ_64K },
	{ "rc_read_1", K_READ, 1 },
	{ "rc_read_4096", K_READ, 4096 },
	{ "rc_read_65536", K_READ, SZ_64K },
	{ "rc_read_1048576", K_READ, SZ_1M },
	{ "atomic_cmp_swp", K_CAS, 0 },
	{ "atomic_fetch_add", K_FAA, 0 },
	{ "srq_recv", K_SRQ, 0 },
	{ "ud_send_1", K_UD, 1 },
	{ "ud_send_256", K_UD, 256 },
	{ "ud_send_mtu", K_UD, 0 },
	{ "ud_mcast", K_MCAST, 0 },
	{ "fastreg_inv", K_FASTREG, 0 },
	{ "err_bad_lkey", K_ERR, KV_ERR_LKEY },
	{ "err_bad_rkey", K_ERR, KV_ERR_RKEY },
	{ "err_ro_write", K_ERR, KV_ERR_RO },
	{ "err_rnr_retry", K_ERR, KV_ERR_RNR },
	{ "err_flush", K_ERR, KV_ERR_FLUSH },
	{ "drain_qp", K_DRAIN, 0 },
};

static noinline_for_stack void kv_run_case(struct kv_ctx *c, const struct kv_case *k)
{
	switch (k->kind) {
	case K_SEND:
		kv_case_send(c, k->arg);
		break;
	case K_WRITE:
	case K_WRITE_IMM:
		kv_case_write(c, k->arg, k->kind == K_WRITE_IMM);
		break;
	case K_READ:
		kv_case_read(c, k->arg);
		break;
	case K_CAS:
	case K_FAA:
		kv_case_atomic(c, k->kind == K_CAS);
		break;
	case K_SRQ:
		kv_case_srq(c);
		break;
	case K_UD:
	case K_MCAST:
		kv_case_ud(c, k->arg, k->kind == K_MCAST);
		break;
	case K_FASTREG:
		kv_case_fastreg(c);
		break;
	case K_ERR:
		kv_case_err(c, k->arg);
		break;
	case K_DRAIN:
		kv_case_drain(c);
		break;
	}
}

/* Merge the two sides' results (failure over skip over pass) and print the line. */
static enum kv_result kv_report(struct kv_ctx *c, const struct kv_case *k,
				const struct kv_res *mine, const struct kv_res *theirs)
{
	const struct kv_res *cl = c->server ? theirs : mine, *sv = c->server ? mine : theirs;
	enum kv_result r = max(cl->result, sv->result) == KV_SKIP ? KV_SKIP : KV_PASS;
	char why[360] = "";
	u64 mbps = 0;

	if (cl->result == KV_FAIL || sv->result == KV_FAIL)
		r = KV_FAIL;
	if (r != KV_PASS)
		snprintf(why, sizeof(why), "%s%s%s%s%s",
			 cl->result != KV_PASS ? "client: " : "",
			 cl->result != KV_PASS ? cl->why : "",
			 cl->result != KV_PASS && sv->result != KV_PASS ? "; " : "",
			 sv->result != KV_PASS ? "server: " : "",
			 sv->result != KV_PASS ? sv->why : "");
	if (cl->ns)
		mbps = div64_u64(cl->bytes * 100000, cl->ns);
	pr_info("role=%s case=%s result=%s bytes=%llu seconds=%llu.%06llu mbps=%llu.%02llu reason=\"%s\"\n",
		c->server ? "server" : "client", k->name, kv_result_names[r], cl->bytes,
		div_u64(cl->ns, NSEC_PER_SEC), div_u64(cl->ns % NSEC_PER_SEC, NSEC_PER_USEC),
		div_u64(mbps, 100), mbps % 100, why);
	return r;
}

/* ---- setup ------------------------------------------------------------------------- */

static int kv_connect(struct kv_ctx *c)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	long tmo = msecs_to_jiffies(ctl_timeout_s * MSEC_PER_SEC);
	unsigned long end = jiffies + tmo;
	struct socket *ls = NULL, *s = NULL;
	int err;

	if (!c->server && !in4_pton(peer, -1, (u8 *)&sa.sin_addr.s_addr, -1, NULL)) {
		pr_err("peer=%s is not an IPv4 address\n", peer);
		return -EINVAL;
	}
	if (c->server) {
		err = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &ls);
		if (err)
			return err;
		sock_set_reuseaddr(ls->sk);
		WRITE_ONCE(ls->sk->sk_rcvtimeo, tmo);
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		err = kernel_bind(ls, (struct sockaddr *)&sa, sizeof(sa));
		if (!err)
			err = kernel_listen(ls, 1);
		if (!err) {
			pr_info("role=server listening on port %u\n", port);
			err = kernel_accept(ls, &s, 0);
		}
		sock_release(ls);
		if (err) {
			pr_err("no client connected: %d\n", err);
			return err;
		}
	} else {
		/* The server may not listen yet: try again until the timeout. */
		for (;;) {
			err = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &s);
			if (err)
				return err;
			err = kernel_connect(s, (struct sockaddr *)&sa, sizeof(sa), 0);
			if (!err)
				break;
			sock_release(s);
			s = NULL;
			if (time_after(jiffies, end)) {
				pr_err("cannot connect to %pI4:%u: %d\n", &sa.sin_addr, port, err);
				return err;
			}
			msleep(250);
		}
	}
	WRITE_ONCE(s->sk->sk_rcvtimeo, tmo);
	WRITE_ONCE(s->sk->sk_sndtimeo, tmo);
	tcp_sock_set_nodelay(s->sk);
	c->sock = s;
	return 0;
}

/* The GID the peer addresses us by: on RoCE the first RoCE v2 GID holding an IPv4 address. */
static int kv_find_gid(struct kv_ctx *c, int tbl_len)
{
	const struct ib_gid_attr *ga;
	struct net_device *nd;
	int i;

	if (!c->roce) {
		c->gid_index = 0;
		return rdma_query_gid(c->dev, c->port, 0, &c->gid);
	}
	for (i = 0; i < tbl_len; i++) {
		ga = rdma_get_gid_attr(c->dev, c->port, i);
		if (IS_ERR(ga))
			continue;
		if (ga->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)ga->gid.raw)) {
			c->gid_index = i;
			c->gid = ga->gid;
			rcu_read_lock();
			nd = rdma_read_gid_attr_ndev_rcu(ga);
			if (!IS_ERR(nd)) {
				ether_addr_copy(c->mac, nd->dev_addr);
				c->ifindex = nd->ifindex;
			}
			rcu_read_unlock();
			rdma_put_gid_attr(ga);
			return IS_ERR(nd) ? PTR_ERR(nd) : 0;
		}
		rdma_put_gid_attr(ga);
	}
	pr_err("%s: no RoCE v2 GID with an IPv4 address on port %u\n", dev, c->port);
	return -EADDRNOTAVAIL;
}

static int kv_setup(struct kv_ctx *c)
{
	struct ib_port_attr pa;
	struct kv_hello h = {};
	u32 npages;
	int err;

	c->dev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!c->dev) {
		pr_err("no RDMA device %s\n", dev);
		return -ENODEV;
	}
	c->port = ibport;
	if (!rdma_is_port_valid(c->dev, c->port))
		return -EINVAL;
	err = ib_query_port(c->dev, c->port, &pa);
	if (err)
		return err;
	if (pa.state != IB_PORT_ACTIVE) {
		pr_err("%s port %u is in state %d, not ACTIVE\n", dev, c->port, pa.state);
		return -ENETDOWN;
	}
	c->roce = rdma_port_get_link_layer(c->dev, c->port) == IB_LINK_LAYER_ETHERNET;
	c->lid = pa.lid;
	c->mtu = pa.active_mtu;
	c->max_msg = pa.max_msg_sz;
	err = kv_find_gid(c, pa.gid_tbl_len);
	if (err)
		return err;

	/* Remote access goes through one fast-registered MR over the buffer. */
	npages = c->dev->attrs.max_fast_reg_page_list_len;
	c->bsize = min_t(u64, rounddown_pow_of_two(max(max_size, 4096U)),
			 (u64)max(npages, 1U) << PAGE_SHIFT);
	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		err = PTR_ERR(c->pd);
		c->pd = NULL;
		return err;
	}
	err = kv_buf_alloc(c, &c->buf, max(c->bsize, (u32)SZ_1M));
	if (!err)
		err = kv_buf_alloc(c, &c->aux, KV_AUX_SIZE);
	if (err)
		return err;

	pr_info("role=%s device %s port %u: %s, lid 0x%x, gid %pI6 (index %d), mtu %d, buffer %u bytes\n",
		role, dev, c->port, c->roce ? "RoCE" : "InfiniBand", c->lid, c->gid.raw,
		c->gid_index, ib_mtu_enum_to_int(c->mtu), c->bsize);

	err = kv_connect(c);
	if (err)
		return err;
	h.magic = KV_MAGIC;
	h.ncases = ARRAY_SIZE(kv_cases);
	h.lid = c->lid;
	h.mtu = c->mtu;
	h.bsize = c->bsize;
	h.roce = c->roce;
	memcpy(h.gid, c->gid.raw, sizeof(h.gid));
	ether_addr_copy(h.mac, c->mac);
	if (kv_xchg(c, &h, &c->peer, sizeof(h)) || c->peer.magic != KV_MAGIC ||
	    c->peer.ncases != h.ncases || c->peer.roce != h.roce) {
		pr_err("the peer is not a matching kverbs\n");
		return -EPROTO;
	}
	c->mtu = min_t(u32, c->mtu, c->peer.mtu);
	c->bsize = min(c->bsize, c->peer.bsize);
	return 0;
}

/*
 * The main QP pair; on the server the MRs the client reaches are registered through it
 * (once).  A failed registration does not stop the run: the cases that need the keys fail
 * one by one, and the pair, which the failure may have broken, is made again.
 */
static noinline_for_stack bool kv_main_open(struct kv_ctx *c)
{
	const int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_ATOMIC;
	struct kv_keys k = {};
	bool tried = false;

	memset(&c->res, 0, sizeof(c->res));
	if (!kv_qp_open(c, &c->main, &kv_rc, &(struct kv_qpinfo){}))
		goto fail;
	if (c->server && (c->dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	    !c->mr && !c->mr_why[0]) {
		tried = true;
		c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, c->bsize >> PAGE_SHIFT);
		c->mr_ro = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 1);
		if (IS_ERR(c->mr) || IS_ERR(c->mr_ro)) {
			kv_fail(c, "ib_alloc_mr: %d/%d", PTR_ERR_OR_ZERO(c->mr),
				PTR_ERR_OR_ZERO(c->mr_ro));
		} else {
			kv_fill(c, &c->aux, 0, KV_AUX_SIZE, 77);
			if (kv_reg_mr(c, &c->main, c->mr, &c->buf, 0, c->bsize, acc))
				kv_reg_mr(c, &c->main, c->mr_ro, &c->aux, 0, KV_AUX_SIZE,
					  IB_ACCESS_REMOTE_READ);
		}
		if (c->res.result != KV_PASS) {
			strscpy(c->mr_why, c->res.why, sizeof(c->mr_why));
			pr_err("role=server registering the remote regions failed: %s\n",
			       c->mr_why);
			memset(&c->res, 0, sizeof(c->res));
		}
	}
	if (c->server && !c->mr_why[0] && !IS_ERR_OR_NULL(c->mr) && !IS_ERR_OR_NULL(c->mr_ro)) {
		k.addr = c->mr->iova;
		k.rkey = c->mr->rkey;
		k.addr_ro = c->mr_ro->iova;
		k.rkey_ro = c->mr_ro->rkey;
		k.ok = 1;
	}
	k.pad = tried;
	if (kv_xchg(c, &k, &c->keys, sizeof(k)))
		goto fail;
	if (c->server)
		swap(k, c->keys);
	/* A registration that failed may have broken the server's QP: a new pair. */
	if (c->keys.pad && !c->keys.ok) {
		kv_qp_close(&c->main);
		if (!kv_qp_open(c, &c->main, &kv_rc, &(struct kv_qpinfo){}))
			goto fail;
	}
	return true;
fail:
	pr_err("role=%s setting up the main QP pair failed: %s\n", role, c->res.why);
	return false;
}

static void kv_teardown(struct kv_ctx *c)
{
	kv_qp_close(&c->main);
	if (!IS_ERR_OR_NULL(c->mr))
		ib_dereg_mr(c->mr);
	if (!IS_ERR_OR_NULL(c->mr_ro))
		ib_dereg_mr(c->mr_ro);
	if (c->dev) {
		kv_buf_free(c, &c->aux);
		kv_buf_free(c, &c->buf);
	}
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->sock) {
		kernel_sock_shutdown(c->sock, SHUT_RDWR);
		sock_release(c->sock);
	}
	if (c->dev)
		ib_device_put(c->dev);
}

/* Does the cases= entry @p (@n bytes: a name, or a prefix ending in '*') name @name? */
static bool kv_entry_names(const char *p, size_t n, const char *name)
{
	if (n && p[n - 1] == '*')
		return !strncmp(name, p, n - 1);
	return n == strlen(name) && !strncmp(name, p, n);
}

/* Is case @name selected by the cases= list (an empty list selects every case)? */
static bool kv_selected(const char *name)
{
	const char *p;
	size_t n;

	if (!*cases)
		return true;
	for (p = cases; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		if (kv_entry_names(p, n, name))
			return true;
	}
	return false;
}

/* Does every cases= entry name a case?  A misspelt one would otherwise just run less. */
static bool kv_cases_valid(void)
{
	const char *p;
	size_t n;
	u32 i;

	for (p = cases; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		for (i = 0; i < ARRAY_SIZE(kv_cases); i++)
			if (kv_entry_names(p, n, kv_cases[i].name))
				break;
		if (i == ARRAY_SIZE(kv_cases)) {
			pr_err("role=%s cases=: '%.*s' names no case\n", role, (int)n, p);
			return false;
		}
	}
	return true;
}

/* One case, stepped through with the peer; its result counted.  False if the run is over. */
static bool kv_step(struct kv_ctx *c, u32 i, u32 round, int counts[3])
{
	struct kv_res mine, peer_res = {};
	u32 cmd[2], pcmd[2];
	bool fatal = false;
	enum kv_result r;

	memset(&c->res, 0, sizeof(c->res));
	/* The client names the case; both check they agree. */
	cmd[0] = KV_CMD_CASE;
	cmd[1] = round * ARRAY_SIZE(kv_cases) + i;
	if (kv_xchg(c, cmd, pcmd, sizeof(cmd)) || pcmd[0] != cmd[0] || pcmd[1] != cmd[1]) {
		pr_err("control: out of step at case %u of round %u\n", i, round);
		return false;
	}
	kv_run_case(c, &kv_cases[i]);
	if (c->res.result == KV_SKIP && !strcmp(c->res.why, "peer stopped"))
		c->res.result = KV_PASS;	/* the peer's result says why */
	/* Results always go across, whatever happened in the case. */
	mine = c->res;
	c->res.result = KV_PASS;
	if (kv_xchg(c, &mine, &peer_res, sizeof(mine)))
		fatal = true;
	c->res = mine;
	if (fatal)
		peer_res = (struct kv_res){ .result = KV_FAIL,
					    .why = "no result (control connection)" };
	r = kv_report(c, &kv_cases[i], &c->res, &peer_res);
	counts[r]++;
	if (r == KV_FAIL && !c->fatal && !fatal) {
		/* The main pair may be in the error state: make a new one. */
		kv_qp_close(&c->main);
		if (!kv_main_open(c))
			fatal = true;
	}
	return !fatal && !c->fatal && !READ_ONCE(c->gone);
}

static int kv_run(struct kv_ctx *c)
{
	int counts[3] = {}, selected = 0, unrun;
	bool go = true;
	u32 i, round;

	if (!kv_main_open(c))
		return -EIO;
	for (i = 0; i < ARRAY_SIZE(kv_cases); i++)
		selected += kv_selected(kv_cases[i].name);
	for (round = 0; round < rounds && go; round++)
		for (i = 0; i < ARRAY_SIZE(kv_cases) && go; i++)
			if (kv_selected(kv_cases[i].name))
				go = kv_step(c, i, round, counts);
	unrun = selected * rounds - (counts[0] + counts[1] + counts[2]);
	if (unrun && READ_ONCE(c->gone)) {
		/* stopped by the device's removal: what did not run did not fail */
		pr_info("role=%s summary passed=%d failed=%d skipped=%d stopped=%d (device removed)\n",
			role, counts[KV_PASS], counts[KV_FAIL], counts[KV_SKIP], unrun);
		return -ENODEV;
	}
	counts[KV_FAIL] += unrun;
	pr_info("role=%s summary passed=%d failed=%d skipped=%d\n", role, counts[KV_PASS],
		counts[KV_FAIL], counts[KV_SKIP]);
	return counts[KV_FAIL] ? -EIO : 0;
}

/*
 * The device may be unregistered under the run (rmmod cxib, a hot-unplug).  As a ULP does,
 * kverbs is an ib_client: ib_core calls its remove callback before it waits for the
 * device's last reference (drivers/infiniband/core/device.c, disable_device()), and the
 * callback stops the run and waits until the run has released everything it held.
 */
static DEFINE_MUTEX(kv_lock);
static struct kv_ctx *kv_live;		/* the run, once set up; under kv_lock */
static DECLARE_COMPLETION(kv_released);

static void kv_remove_one(struct ib_device *ibdev, void *client_data)
{
	bool ours;

	mutex_lock(&kv_lock);
	ours = kv_live && kv_live->dev == ibdev;
	if (ours) {
		WRITE_ONCE(kv_live->gone, true);
		/* a control exchange in progress fails now, on both sides */
		kernel_sock_shutdown(kv_live->sock, SHUT_RDWR);
	}
	mutex_unlock(&kv_lock);
	if (ours) {
		pr_info("role=%s %s is going away: stopping\n", role, dev_name(&ibdev->dev));
		wait_for_completion(&kv_released);
	}
}

static struct ib_client kv_client = {
	.name = "kverbs",
	.remove = kv_remove_one,
};

static void kv_set_live(struct kv_ctx *c)
{
	mutex_lock(&kv_lock);
	kv_live = c;
	mutex_unlock(&kv_lock);
}

static int __init kverbs_init(void)
{
	struct kv_ctx *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	if (!strcmp(role, "server")) {
		c->server = true;
	} else if (strcmp(role, "client")) {
		pr_err("role=%s: must be server or client\n", role);
		kfree(c);
		return -EINVAL;
	}
	if (!rounds || !kv_cases_valid()) {
		pr_err("role=%s rounds=%u cases=%s: bad parameters\n", role, rounds, cases);
		kfree(c);
		return -EINVAL;
	}
	err = ib_register_client(&kv_client);
	if (err) {
		pr_err("ib_register_client: %d\n", err);
		kfree(c);
		return err;
	}
	err = kv_setup(c);
	if (!err) {
		kv_set_live(c);
		err = kv_run(c);
	} else {
		pr_info("role=%s summary passed=0 failed=%zu skipped=0 (setup failed: %d)\n", role,
			ARRAY_SIZE(kv_cases), err);
	}
	kv_set_live(NULL);
	kv_teardown(c);
	complete_all(&kv_released);
	ib_unregister_client(&kv_client);
	kfree(c);
	/* The work is done: stay loaded (rmmod kverbs) whatever the outcome. */
	return 0;
}

static void __exit kverbs_exit(void)
{
}

module_init(kverbs_init);
module_exit(kverbs_exit);

MODULE_DESCRIPTION("Two-node kernel verbs traffic matrix (cxib lab)");
MODULE_LICENSE("GPL");
