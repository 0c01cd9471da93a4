// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_model: native benchmark of the cxfw model's data movement on the host (no QEMU).
 *
 * Two model instances on the fake platform of firmware/tests, joined by its in-memory cable,
 * driven by the tests' mini driver (drv.h).  Measured in one run:
 *
 *   memcpy   64 KiB blocks from node A's guest memory to node B's, the same slots and the
 *            same number of blocks as the WRITE run (warm; best of BENCH_MEMCPY_REPS)
 *   write    RC RDMA WRITEs of 64 KiB from A to B, path MTU 4096, a window of outstanding
 *            WRITEs, both devices pumped until every WRITE has completed on A
 *   latency  2-byte RC WRITEs one at a time (messages per second)
 *   crc      ICRC + VCRC of one full-MTU packet (what build and parse each compute)
 *
 * and a breakdown of the WRITE run: time inside the fake platform's DMA and port_send
 * callbacks (the host, not the model), the CRCs (their per-packet cost times the packets),
 * and the rest (the model's own work: WQE fetch, packet build, parse, transport, CQEs; plus
 * the mini driver and the cable's packet queue).
 *
 * Data is checked so the benchmark cannot pass by moving nothing: the source slots hold
 * distinct patterns and message k copies source slot k % SRC_SLOTS to destination slot
 * k % DST_SLOTS (coprime counts, so every reuse of a destination slot changes its bytes);
 * every completion compares two 8-byte samples per MTU packet of its message, and at the
 * end every destination slot is compared byte for byte with the source of its last WRITE.
 * The model's own counters (bytes DMA'd, retransmits, errors) are checked too.
 *
 *	bench_model [--msgs N] [--window W] [--lat-msgs N] [--json] [--out FILE] [--quiet]
 *
 * Prints a table on stdout (with --json: the JSON instead); --out FILE also writes the JSON
 * to FILE.  Progress lines go to stderr.  Exit status 0 only if every check passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cxfw_priv.h"
#include "drv.h"
#include "fake.h"
#include "test.h"
#include "wire.h"

#define BENCH_MSG_SIZE		(64u << 10)
#define BENCH_DST_SLOTS		16u		/* 1 MiB: all of a node's data area */
#define BENCH_SRC_SLOTS		15u		/* coprime with BENCH_DST_SLOTS */
#define BENCH_MTU		4096u
#define BENCH_MTU_CODE		CXIB_QPC_MTU_4096
#define BENCH_DEF_MSGS		4096u		/* 256 MiB */
#define BENCH_DEF_WINDOW	16u
#define BENCH_DEF_LAT_MSGS	20000u
#define BENCH_LAT_LEN		2u
#define BENCH_MEMCPY_REPS	3u
#define BENCH_CRC_REPS		20000u
#define BENCH_STALL_ROUNDS	100000u		/* rounds without progress: the model is stuck */
#define BENCH_SAMPLE		8u		/* bytes compared per packet per completion */
#define BENCH_LOG_SQ		8u		/* 256 WQEBBs: the window must fit */
#define BENCH_PROGRESS_SEC	2.0
#define BENCH_POLL_BATCH	32u

/* ---- the pieces of the test runner drv.c relies on ----------------------------------------- */

void test_register(const char *name, test_fn fn)
{
	(void)name;
	(void)fn;
}

void test_fail(struct test_ctx *t, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	t->failed = true;
	fprintf(stderr, "bench_model: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- timing ---------------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * CPU time of this thread: what the results are computed from, so that other load on a
 * shared machine (preemption) does not count against either side of the ratio.  The
 * callback breakdown uses now_ns() (cheaper) against the same run's wall time.
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/*
 * Breakdown: the devices' platform callbacks are wrapped (bench-only: dev->plat is the
 * core's copy of the platform) to count the time spent in the host's DMA and cable code.
 */
struct bench_cb {
	struct cxfw_platform inner;
	uint64_t ns_read, ns_write, ns_send;
	uint64_t n_read, n_write, n_send;
	uint64_t b_read, b_write;
};

static struct bench_cb cbs[DRV_MAX_NODES];
static bool cb_on;

#define CB_OF(op)	((struct bench_cb *)(op))

static int cb_dma_read(void *op, uint64_t addr, void *buf, size_t len)
{
	struct bench_cb *c = CB_OF(op);
	uint64_t t0 = cb_on ? now_ns() : 0;
	int r = c->inner.dma_read(c->inner.opaque, addr, buf, len);

	if (cb_on) {
		c->ns_read += now_ns() - t0;
		c->n_read++;
		c->b_read += len;
	}
	return r;
}

static int cb_dma_write(void *op, uint64_t addr, const void *buf, size_t len)
{
	struct bench_cb *c = CB_OF(op);
	uint64_t t0 = cb_on ? now_ns() : 0;
	int r = c->inner.dma_write(c->inner.opaque, addr, buf, len);

	if (cb_on) {
		c->ns_write += now_ns() - t0;
		c->n_write++;
		c->b_write += len;
	}
	return r;
}

static int cb_port_send(void *op, unsigned int port, const void *pkt, size_t len)
{
	struct bench_cb *c = CB_OF(op);
	uint64_t t0 = cb_on ? now_ns() : 0;
	int r = c->inner.port_send(c->inner.opaque, port, pkt, len);

	if (cb_on) {
		c->ns_send += now_ns() - t0;
		c->n_send++;
	}
	return r;
}

static void cb_msix(void *op, unsigned int v)
{
	CB_OF(op)->inner.msix_notify(CB_OF(op)->inner.opaque, v);
}

static uint64_t cb_clock(void *op)
{
	return CB_OF(op)->inner.clock_ns(CB_OF(op)->inner.opaque);
}

static void cb_kick(void *op)
{
	CB_OF(op)->inner.kick(CB_OF(op)->inner.opaque);
}

static void cb_log(void *op, enum cxfw_log_level level, const char *msg)
{
	CB_OF(op)->inner.log(CB_OF(op)->inner.opaque, level, msg);
}

static void cb_install(struct cxfw_dev *dev, struct bench_cb *c)
{
	memset(c, 0, sizeof(*c));
	c->inner = dev->plat;
	dev->plat.opaque = c;
	dev->plat.dma_read = cb_dma_read;
	dev->plat.dma_write = cb_dma_write;
	dev->plat.msix_notify = cb_msix;
	dev->plat.clock_ns = cb_clock;
	dev->plat.kick = cb_kick;
	dev->plat.port_send = c->inner.port_send ? cb_port_send : NULL;
	dev->plat.log = c->inner.log ? cb_log : NULL;
}

static void cb_zero(void)
{
	unsigned int i;

	for (i = 0; i < DRV_MAX_NODES; i++) {
		struct cxfw_platform in = cbs[i].inner;

		memset(&cbs[i], 0, sizeof(cbs[i]));
		cbs[i].inner = in;
	}
}

/* ---- the world ------------------------------------------------------------------------------- */

struct bench {
	struct test_ctx *t;
	struct drv_world w;
	struct drv_qp a, b;
	struct drv_mr src, dst;
	struct drv_node *na, *nb;
	uint8_t *src_mem, *dst_mem;	/* host pointers to the two MRs' guest memory */
	bool quiet;
};

static uint8_t *guest_ptr(struct drv_node *n, uint64_t pa, size_t len)
{
	struct fake *fk = &n->t->fk;

	if (pa < fk->base || pa - fk->base + len > fk->size)
		abort();
	return fk->mem + (pa - fk->base);
}

static int bench_setup(struct bench *B)
{
	struct cxfw_config cfg;
	struct drv_qp_init ia, ib;
	struct drv_qp_conn conn;
	unsigned int st, i;

	B->t = calloc(1, sizeof(*B->t));
	if (!B->t)
		return -1;
	cxfw_config_defaults(&cfg);
	if (!test_recreate(B->t, &cfg, FAKE_MEM_BASE))
		return -1;
	st = drv_world_init(B->t, &B->w, 2);
	if (st) {
		fprintf(stderr, "bench_model: world init failed: status 0x%x\n", st);
		return -1;
	}
	B->na = &B->w.n[0];
	B->nb = &B->w.n[1];
	drv_qp_init_defaults(&ia, CXIB_QPC_ST_RC, B->w.cq[0]);
	drv_qp_init_defaults(&ib, CXIB_QPC_ST_RC, B->w.cq[1]);
	ia.log_sq = ib.log_sq = BENCH_LOG_SQ;
	drv_qp_conn_defaults(&conn);
	conn.mtu = BENCH_MTU_CODE;
	st = drv_pair_init(&B->w, &ia, &ib, &conn, &B->a, &B->b);
	if (!st)
		st = drv_mr_alloc(B->na, (uint64_t)BENCH_SRC_SLOTS * BENCH_MSG_SIZE, DRV_LR,
				  &B->src);
	if (!st)
		st = drv_mr_alloc(B->nb, (uint64_t)BENCH_DST_SLOTS * BENCH_MSG_SIZE,
				  DRV_LR | DRV_LW | DRV_RW, &B->dst);
	if (st) {
		fprintf(stderr, "bench_model: QP/MR setup failed: status 0x%x\n", st);
		return -1;
	}
	B->src_mem = guest_ptr(B->na, B->src.pa, B->src.len);
	B->dst_mem = guest_ptr(B->nb, B->dst.pa, B->dst.len);
	for (i = 0; i < BENCH_SRC_SLOTS; i++)
		drv_pattern(B->src_mem + (size_t)i * BENCH_MSG_SIZE, BENCH_MSG_SIZE, 0x1000 + i);
	memset(B->dst_mem, 0, B->dst.len);
	for (i = 0; i < B->w.nnodes; i++)
		cb_install(B->w.n[i].t->dev, &cbs[i]);
	return 0;
}

static void bench_free(struct bench *B)
{
	if (!B->t)
		return;
	drv_reset(B->t);	/* node 1 and the cable */
	cxfw_destroy(B->t->dev);
	fake_fini(&B->t->fk);
	free(B->t);
}

static uint64_t src_off(uint64_t k)
{
	return (k % BENCH_SRC_SLOTS) * BENCH_MSG_SIZE;
}

static uint64_t dst_off(uint64_t k)
{
	return (k % BENCH_DST_SLOTS) * BENCH_MSG_SIZE;
}

static int post_write(struct bench *B, uint64_t soff, uint64_t doff, uint32_t len)
{
	struct drv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = CXIB_WQE_OPCODE_RDMA_WRITE;
	wr.signaled = true;
	wr.raddr = B->dst.va + doff;
	wr.rkey = B->dst.key;
	wr.sg[0].addr = B->src.va + soff;
	wr.sg[0].len = len;
	wr.sg[0].lkey = B->src.key;
	wr.nsg = 1;
	return drv_post_send(B->na, &B->a, &wr);
}

/* Two samples of every MTU packet of message @k: did it land? */
static bool sample_ok(const struct bench *B, uint64_t k)
{
	const uint8_t *s = B->src_mem + src_off(k), *d = B->dst_mem + dst_off(k);
	uint32_t p;

	for (p = 0; p < BENCH_MSG_SIZE; p += BENCH_MTU) {
		if (memcmp(s + p, d + p, BENCH_SAMPLE) ||
		    memcmp(s + p + BENCH_MTU - BENCH_SAMPLE, d + p + BENCH_MTU - BENCH_SAMPLE,
			   BENCH_SAMPLE))
			return false;
	}
	return true;
}

struct run_result {
	uint64_t msgs, bytes, ns, rounds;	/* ns: thread CPU time */
	uint64_t wall_ns;
	bool ok;
};

/*
 * @n WRITEs of @len bytes with @window outstanding; message k goes src slot k % SRC to
 * dst slot k % DST (@check: sample every completion).
 */
static struct run_result run_writes(struct bench *B, uint64_t n, unsigned int window,
				    uint32_t len, bool check, const char *what)
{
	struct run_result r = { .msgs = n, .bytes = n * len, .ok = false };
	uint16_t *idx = calloc(window, sizeof(*idx));
	uint64_t posted = 0, done = 0, stall = 0, t0, last, c0;
	struct cxib_cqe64 cqe[BENCH_POLL_BATCH];

	if (!idx)
		return r;
	c0 = cpu_ns();
	t0 = last = now_ns();
	while (posted < n && posted < window) {
		int i = post_write(B, src_off(posted), dst_off(posted), len);

		if (i < 0)
			goto out;
		idx[posted % window] = (uint16_t)i;
		posted++;
	}
	while (done < n) {
		unsigned int act = fake_cable_round(B->w.cable), got, j;

		r.rounds++;
		got = drv_poll_many(B->na, B->w.cq[0], cqe, BENCH_POLL_BATCH);
		for (j = 0; j < got; j++) {
			if (CXIB_GET(&cqe[j], CXIB_CQE_OPCODE) != CXIB_CQE_OPCODE_REQ ||
			    CXIB_GET(&cqe[j], CXIB_CQE_WQE_COUNTER) != idx[done % window]) {
				fprintf(stderr, "bench_model: %s: message %llu: CQE opcode 0x%x "
					"syndrome 0x%x wqe_counter %u (want %u)\n", what,
					(unsigned long long)done,
					(unsigned int)CXIB_GET(&cqe[j], CXIB_CQE_OPCODE),
					(unsigned int)CXIB_GET(&cqe[j], CXIB_CQE_ERR_SYNDROME),
					(unsigned int)CXIB_GET(&cqe[j], CXIB_CQE_WQE_COUNTER),
					idx[done % window]);
				goto out;
			}
			if (check && !sample_ok(B, done)) {
				fprintf(stderr, "bench_model: %s: message %llu completed but its "
					"data is not at the destination\n", what,
					(unsigned long long)done);
				goto out;
			}
			done++;
			if (posted < n) {
				int i = post_write(B, src_off(posted), dst_off(posted), len);

				if (i < 0)
					goto out;
				idx[posted % window] = (uint16_t)i;
				posted++;
			}
		}
		stall = act || got ? 0 : stall + 1;
		if (stall > BENCH_STALL_ROUNDS) {
			fprintf(stderr, "bench_model: %s: stuck after %llu of %llu messages\n",
				what, (unsigned long long)done, (unsigned long long)n);
			goto out;
		}
		if (!B->quiet && (done & 63) == 0 && secs(now_ns() - last) > BENCH_PROGRESS_SEC) {
			last = now_ns();
			fprintf(stderr, "  %s: %llu/%llu messages, %.1f s\n", what,
				(unsigned long long)done, (unsigned long long)n, secs(last - t0));
		}
	}
	r.wall_ns = now_ns() - t0;
	r.ns = cpu_ns() - c0;
	r.ok = true;
out:
	free(idx);
	return r;
}

/* Every destination slot holds the source of the last WRITE into it, byte for byte. */
static bool final_check(const struct bench *B, uint64_t n)
{
	uint64_t d;

	for (d = 0; d < BENCH_DST_SLOTS && d < n; d++) {
		uint64_t k = d + (n - 1 - d) / BENCH_DST_SLOTS * BENCH_DST_SLOTS;

		if (memcmp(B->dst_mem + dst_off(k), B->src_mem + src_off(k), BENCH_MSG_SIZE)) {
			fprintf(stderr, "bench_model: destination slot %llu differs from the "
				"source of message %llu\n", (unsigned long long)d,
				(unsigned long long)k);
			return false;
		}
	}
	return true;
}

static volatile uint8_t sink;

/* Best of BENCH_MEMCPY_REPS passes of @n blocks, the same slots as the WRITEs. */
static uint64_t run_memcpy(const struct bench *B, uint64_t n)
{
	uint64_t best = UINT64_MAX, rep, k;

	for (k = 0; k < BENCH_DST_SLOTS; k++)	/* warm */
		memcpy(B->dst_mem + dst_off(k), B->src_mem + src_off(k), BENCH_MSG_SIZE);
	for (rep = 0; rep < BENCH_MEMCPY_REPS; rep++) {
		uint64_t t0 = cpu_ns(), dt;

		for (k = 0; k < n; k++) {
			memcpy(B->dst_mem + dst_off(k), B->src_mem + src_off(k), BENCH_MSG_SIZE);
			sink = B->dst_mem[dst_off(k)];
		}
		dt = cpu_ns() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* One-at-a-time 2-byte WRITEs. */
static struct run_result run_latency(struct bench *B, uint64_t n)
{
	struct run_result r = run_writes(B, n, 1, BENCH_LAT_LEN, false, "latency");

	if (r.ok && memcmp(B->dst_mem + dst_off(n - 1), B->src_mem + src_off(n - 1),
			   BENCH_LAT_LEN))
		r.ok = false;
	return r;
}

/* ---- CRC cost ------------------------------------------------------------------------------ */

struct crc_cost {
	double icrc_ns, vcrc_ns;	/* per full-MTU packet */
	size_t pkt_len;
};

static struct crc_cost measure_crc(void)
{
	/* a middle-of-message WRITE packet: LRH, BTH, MTU of payload, ICRC, VCRC */
	size_t len = CXIB_LRH_LEN + CXIB_BTH_LEN + BENCH_MTU + CXIB_ICRC_LEN + CXIB_VCRC_LEN;
	struct crc_cost c = { .pkt_len = len };
	uint8_t *p = malloc(len);
	uint32_t acc = 0;
	uint64_t t0, i;

	if (!p)
		abort();
	drv_pattern(p, len, 77);
	for (i = 0; i < BENCH_CRC_REPS / 10; i++)	/* warm (and table init) */
		acc ^= cxfw_icrc(p, len - CXIB_ICRC_LEN - CXIB_VCRC_LEN) ^ cxfw_vcrc(p, len - 2);
	t0 = cpu_ns();
	for (i = 0; i < BENCH_CRC_REPS; i++) {
		p[i & 63] ^= 1;
		acc ^= cxfw_icrc(p, len - CXIB_ICRC_LEN - CXIB_VCRC_LEN);
	}
	c.icrc_ns = (double)(cpu_ns() - t0) / BENCH_CRC_REPS;
	t0 = cpu_ns();
	for (i = 0; i < BENCH_CRC_REPS; i++) {
		p[i & 63] ^= 1;
		acc ^= cxfw_vcrc(p, len - CXIB_VCRC_LEN);
	}
	c.vcrc_ns = (double)(cpu_ns() - t0) / BENCH_CRC_REPS;
	sink = (uint8_t)acc;
	free(p);
	return c;
}

/* Bit-serial reflected CRC: the definition the table-driven ones in crc.c must match. */
static uint32_t ref_crc(const uint8_t *b, size_t len, uint32_t poly, uint32_t init)
{
	uint32_t c = init;
	unsigned int k;

	while (len--) {
		c ^= *b++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ poly : c >> 1;
	}
	return ~c;
}

#define REF_CRC32_POLY	0xedb88320u	/* ICRC, IBTA vol 1 7.8 (reflected 0x04C11DB7) */
#define REF_CRC16_POLY	0xd008u		/* 1.9 (reflected 0x100B) */

/*
 * cxfw_vcrc() against the bit-serial CRC-16 over every length up to a full packet (and
 * every start alignment), cxfw_icrc() against the bit-serial CRC-32 of a local-route
 * packet with its variant bits set to ones: guards the CRC speed-ups, which must not
 * change a single CRC.
 */
static bool crc_selfcheck(void)
{
	size_t max = CXIB_LRH_LEN + CXIB_BTH_LEN + BENCH_MTU + CXIB_ICRC_LEN, len, a, at = 0;
	uint8_t *p = malloc(max + 8), *m = malloc(max);
	const char *bad = NULL;

	if (!p || !m)
		abort();
	drv_pattern(p, max + 8, 4242);
	for (len = 0; len <= max && !bad; len += len < 64 ? 1 : 61) {
		for (a = 0; a < 8 && !bad; a++)
			if (cxfw_vcrc(p + a, len) !=
			    (uint16_t)ref_crc(p + a, len, REF_CRC16_POLY, 0xffff)) {
				bad = "VCRC";
				at = len;
			}
	}
	for (len = CXIB_LRH_LEN + CXIB_BTH_LEN; len <= max && !bad; len += 37) {
		memcpy(m, p, len);
		CXIB_SET(m, CXIB_LRH_LNH, CXIB_LNH_IBA_LOCAL);
		memcpy(p, m, CXIB_LRH_LEN);	/* the packet itself says local */
		m[0] |= 0xf0;			/* VL */
		m[CXIB_LRH_LEN + CXIB_OFFSET(CXIB_BTH_RESV8A)] = 0xff;
		if (cxfw_icrc(p, len) != ref_crc(m, len, REF_CRC32_POLY, 0xffffffffu)) {
			bad = "ICRC";
			at = len;
		}
	}
	if (bad)
		fprintf(stderr, "bench_model: %s self-check failed at length %zu\n", bad, at);
	free(p);
	free(m);
	return !bad;
}

/* ---- output -------------------------------------------------------------------------------- */

static double mbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / 1e6 / secs(ns) : 0.0;
}

struct report {
	uint64_t msgs, window, lat_msgs;
	struct run_result wr, lat, instr;
	uint64_t memcpy_ns;
	struct crc_cost crc;
	struct cxfw_stats sa, sb;
	/* breakdown of the instrumented WRITE run */
	uint64_t dma_ns, send_ns, dma_calls, send_calls, data_pkts;
	double crc_ns;
	uint64_t run_read, run_write, run_retx;	/* model counters over the measured run */
	bool data_ok, stats_ok;
};

static void print_table(FILE *f, const struct report *R)
{
	double mc = mbps(R->wr.bytes, R->memcpy_ns), mw = mbps(R->wr.bytes, R->wr.ns);
	double ti = (double)R->instr.wall_ns, tc = (double)R->instr.ns;

	fprintf(f, "cxfw model data movement (host, -O2; two devices, in-memory cable)\n");
	fprintf(f, "%-34s %14s %9s %10s %8s\n", "test", "bytes", "seconds", "MB/s", "ratio");
	fprintf(f, "%-34s %14llu %9.3f %10.1f %8s\n", "memcpy 64 KiB (A -> B guest mem)",
		(unsigned long long)R->wr.bytes, secs(R->memcpy_ns), mc, "1.000");
	fprintf(f, "%-34s %14llu %9.3f %10.1f %8.3f\n", "RC WRITE 64 KiB, MTU 4096, win 16",
		(unsigned long long)R->wr.bytes, secs(R->wr.ns), mw, mc > 0 ? mw / mc : 0.0);
	if (R->lat_msgs)
		fprintf(f, "%-34s %14llu %9.3f %10s %8s   %.0f msg/s, %.2f us/msg\n",
			"RC WRITE 2 B, one at a time", (unsigned long long)R->lat.bytes,
			secs(R->lat.ns), "-", "-", (double)R->lat.msgs / secs(R->lat.ns),
			(double)R->lat.ns / 1e3 / (double)R->lat.msgs);
	fprintf(f, "\nbreakdown of an instrumented WRITE run (%llu msgs, %.3f s CPU, %.3f s wall, "
		"%.1f MB/s):\n", (unsigned long long)R->instr.msgs, secs(R->instr.ns),
		secs(R->instr.wall_ns), mbps(R->instr.bytes, R->instr.ns));
	fprintf(f, "  %-54s %6.1f %%\n", "ICRC+VCRC (CPU; build + check, cost/packet x packets)",
		100.0 * R->crc_ns / tc);
	fprintf(f, "  %-54s %6.1f %%\n", "fake platform DMA callbacks (wall; host memcpy + lock)",
		100.0 * (double)R->dma_ns / ti);
	fprintf(f, "  %-54s %6.1f %%\n", "fake cable port_send (wall; malloc + packet copy)",
		100.0 * (double)R->send_ns / ti);
	fprintf(f, "  %-54s %6.1f %%\n", "rest: model logic + packet copy, driver, cable",
		100.0 - 100.0 * R->crc_ns / tc - 100.0 * (double)(R->dma_ns + R->send_ns) / ti);
	fprintf(f, "  CRC per %zu-byte packet: ICRC %.0f ns (%.0f MB/s), "
		"VCRC %.0f ns (%.0f MB/s)\n",
		R->crc.pkt_len, R->crc.icrc_ns, (double)R->crc.pkt_len / R->crc.icrc_ns * 1e3,
		R->crc.vcrc_ns, (double)R->crc.pkt_len / R->crc.vcrc_ns * 1e3);
	fprintf(f, "checks: data %s, model counters %s\n", R->data_ok ? "ok" : "FAILED",
		R->stats_ok ? "ok" : "FAILED");
}

static void print_json(FILE *f, const struct report *R)
{
	double mc = mbps(R->wr.bytes, R->memcpy_ns), mw = mbps(R->wr.bytes, R->wr.ns);
	double ti = (double)R->instr.wall_ns, tc = (double)R->instr.ns;

	fprintf(f, "{\n  \"bench\": \"model\",\n  \"msg_size\": %u,\n  \"mtu\": %u,\n"
		"  \"window\": %llu,\n  \"msgs\": %llu,\n  \"bytes\": %llu,\n",
		BENCH_MSG_SIZE, BENCH_MTU, (unsigned long long)R->window,
		(unsigned long long)R->msgs, (unsigned long long)R->wr.bytes);
	fprintf(f, "  \"memcpy\": { \"seconds\": %.6f, \"mb_per_s\": %.1f },\n",
		secs(R->memcpy_ns), mc);
	fprintf(f, "  \"rc_write\": { \"seconds\": %.6f, \"mb_per_s\": %.1f, "
		"\"ratio_to_memcpy\": %.4f, \"rounds\": %llu, \"wall_seconds\": %.6f },\n",
		secs(R->wr.ns), mw, mc > 0 ? mw / mc : 0.0, (unsigned long long)R->wr.rounds,
		secs(R->wr.wall_ns));
	if (R->lat_msgs)
		fprintf(f, "  \"rc_write_2b_latency\": { \"msgs\": %llu, \"seconds\": %.6f, "
			"\"msgs_per_s\": %.0f, \"us_per_msg\": %.3f },\n",
			(unsigned long long)R->lat.msgs, secs(R->lat.ns),
			(double)R->lat.msgs / secs(R->lat.ns),
			(double)R->lat.ns / 1e3 / (double)R->lat.msgs);
	fprintf(f, "  \"crc_per_packet\": { \"pkt_len\": %zu, \"icrc_ns\": %.1f, "
		"\"vcrc_ns\": %.1f },\n", R->crc.pkt_len, R->crc.icrc_ns, R->crc.vcrc_ns);
	fprintf(f, "  \"breakdown\": { \"msgs\": %llu, \"seconds\": %.6f, \"data_pkts\": %llu, "
		"\"crc_pct\": %.1f, \"fake_dma_pct\": %.1f, \"fake_send_pct\": %.1f, "
		"\"rest_pct\": %.1f, \"dma_calls\": %llu, \"send_calls\": %llu, "
		"\"wall_seconds\": %.6f },\n",
		(unsigned long long)R->instr.msgs, secs(R->instr.ns),
		(unsigned long long)R->data_pkts, 100.0 * R->crc_ns / tc,
		100.0 * (double)R->dma_ns / ti, 100.0 * (double)R->send_ns / ti,
		100.0 - 100.0 * R->crc_ns / tc - 100.0 * (double)(R->dma_ns + R->send_ns) / ti,
		(unsigned long long)R->dma_calls, (unsigned long long)R->send_calls,
		secs(R->instr.wall_ns));
	fprintf(f, "  \"model_counters_measured_run\": { \"a_dma_read_bytes\": %llu, "
		"\"b_dma_write_bytes\": %llu, \"a_retransmits\": %llu, "
		"\"b_pkts_dropped_total\": %llu },\n",
		(unsigned long long)R->run_read, (unsigned long long)R->run_write,
		(unsigned long long)R->run_retx, (unsigned long long)R->sb.pkts_dropped);
	fprintf(f, "  \"data_ok\": %s,\n  \"counters_ok\": %s\n}\n",
		R->data_ok ? "true" : "false", R->stats_ok ? "true" : "false");
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_model [--msgs N] [--window W] [--lat-msgs N] [--json] "
		"[--out FILE] [--quiet]\n");
}

static bool parse_u64(const char *s, uint64_t *v, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end || x < min || x > max)
		return false;
	*v = x;
	return true;
}

int main(int argc, char **argv)
{
	static struct report R;
	struct bench B;
	const char *out = NULL;
	bool json = false;
	uint64_t prev_a_read, prev_b_write, prev_a_retx;
	int i, rc = 1;

	memset(&B, 0, sizeof(B));
	R.msgs = BENCH_DEF_MSGS;
	R.window = BENCH_DEF_WINDOW;
	R.lat_msgs = BENCH_DEF_LAT_MSGS;
	for (i = 1; i < argc; i++) {
		bool more = i + 1 < argc;

		if (!strcmp(argv[i], "--msgs") && more &&
		    parse_u64(argv[i + 1], &R.msgs, BENCH_DST_SLOTS, 1ull << 32)) {
			i++;
		} else if (!strcmp(argv[i], "--window") && more &&
			   parse_u64(argv[i + 1], &R.window, 1, BENCH_DST_SLOTS)) {
			i++;
		} else if (!strcmp(argv[i], "--lat-msgs") && more &&
			   parse_u64(argv[i + 1], &R.lat_msgs, 0, 1ull << 32)) {
			i++;
		} else if (!strcmp(argv[i], "--out") && more) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--quiet")) {
			B.quiet = true;
		} else {
			usage();
			return 2;
		}
	}

	if (!crc_selfcheck())
		goto done;
	if (bench_setup(&B))
		goto done;

	if (!B.quiet)
		fprintf(stderr, "bench_model: memcpy baseline, %llu x 64 KiB\n",
			(unsigned long long)R.msgs);
	R.memcpy_ns = run_memcpy(&B, R.msgs);
	memset(B.dst_mem, 0, B.dst.len);

	/* warm-up (also checks the path works), then the measured run */
	R.wr = run_writes(&B, BENCH_DST_SLOTS, (unsigned int)R.window, BENCH_MSG_SIZE, true,
			  "warm-up");
	if (!R.wr.ok)
		goto done;
	memset(B.dst_mem, 0, B.dst.len);
	cxfw_get_stats(B.na->t->dev, &R.sa);
	cxfw_get_stats(B.nb->t->dev, &R.sb);
	prev_a_read = R.sa.dma_read_bytes;
	prev_b_write = R.sb.dma_write_bytes;
	prev_a_retx = R.sa.retransmits;
	if (!B.quiet)
		fprintf(stderr, "bench_model: RC WRITE, %llu x 64 KiB, window %llu\n",
			(unsigned long long)R.msgs, (unsigned long long)R.window);
	R.wr = run_writes(&B, R.msgs, (unsigned int)R.window, BENCH_MSG_SIZE, true, "write");
	if (!R.wr.ok)
		goto done;
	R.data_ok = final_check(&B, R.msgs);
	cxfw_get_stats(B.na->t->dev, &R.sa);
	cxfw_get_stats(B.nb->t->dev, &R.sb);
	R.run_read = R.sa.dma_read_bytes - prev_a_read;
	R.run_write = R.sb.dma_write_bytes - prev_b_write;
	R.run_retx = R.sa.retransmits - prev_a_retx;
	R.stats_ok = R.run_read == R.wr.bytes && R.run_write == R.wr.bytes && !R.run_retx && !R.sb.pkts_dropped &&
		     !R.sa.pkts_dropped && !R.sa.local_errors && !R.sb.remote_access_errors;

	/* the breakdown run: a quarter of the messages with the callbacks timed */
	R.crc = measure_crc();
	R.instr.msgs = R.msgs / 4 > BENCH_DST_SLOTS ? R.msgs / 4 : BENCH_DST_SLOTS;
	if (!B.quiet)
		fprintf(stderr, "bench_model: instrumented RC WRITE run, %llu x 64 KiB\n",
			(unsigned long long)R.instr.msgs);
	{
		struct cxfw_stats a0, b0, a1, b1;
		uint64_t pkts;

		cxfw_get_stats(B.na->t->dev, &a0);
		cxfw_get_stats(B.nb->t->dev, &b0);
		cb_zero();
		cb_on = true;
		R.instr = run_writes(&B, R.instr.msgs, (unsigned int)R.window, BENCH_MSG_SIZE,
				     true, "instrumented");
		cb_on = false;
		if (!R.instr.ok)
			goto done;
		cxfw_get_stats(B.na->t->dev, &a1);
		cxfw_get_stats(B.nb->t->dev, &b1);
		/* every data packet is built (ICRC + VCRC) on A and checked (both) on B */
		pkts = a1.pkts_sent - a0.pkts_sent;
		R.data_pkts = pkts;
		R.crc_ns = (double)pkts * 2.0 * (R.crc.icrc_ns + R.crc.vcrc_ns);
		for (i = 0; i < (int)DRV_MAX_NODES; i++) {
			R.dma_ns += cbs[i].ns_read + cbs[i].ns_write;
			R.send_ns += cbs[i].ns_send;
			R.dma_calls += cbs[i].n_read + cbs[i].n_write;
			R.send_calls += cbs[i].n_send;
		}
		(void)b0;
		(void)b1;
	}
	if (!final_check(&B, R.instr.msgs))
		R.data_ok = false;

	if (R.lat_msgs) {
		if (!B.quiet)
			fprintf(stderr, "bench_model: latency, %llu x %u B one at a time\n",
				(unsigned long long)R.lat_msgs, BENCH_LAT_LEN);
		memset(B.dst_mem, 0, B.dst.len);
		R.lat = run_latency(&B, R.lat_msgs);
		if (!R.lat.ok)
			R.data_ok = false;
	}

	if (json)
		print_json(stdout, &R);
	else
		print_table(stdout, &R);
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f) {
			fprintf(stderr, "bench_model: %s: %s\n", out, strerror(errno));
			goto done;
		}
		print_json(f, &R);
		if (fclose(f))
			goto done;
	}
	rc = R.data_ok && R.stats_ok ? 0 : 1;
done:
	bench_free(&B);
	return rc;
}
