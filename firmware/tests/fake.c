// SPDX-License-Identifier: GPL-2.0-or-later
/* Fake platform for the cxfw host tests; see fake.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Offset of [addr, addr+len) in the window, or -1 if any byte is outside it. */
static long long fake_window(const struct fake *fk, uint64_t addr, size_t len)
{
	if (addr < fk->base || addr - fk->base > fk->size || fk->size - (addr - fk->base) < len)
		return -1;
	return (long long)(addr - fk->base);
}

static int fake_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	struct fake *fk = opaque;
	long long off;
	int ret = -1;

	if (fk->reenter) {
		/* as if the read hit our own BAR: must not deadlock inside the core */
		(void)cxfw_mmio_read(fk->reenter, 0x1010, 4);
		cxfw_mmio_write(fk->reenter, 3 * 4096 + 0x40, 0, 4);
	}
	pthread_mutex_lock(&fk->lock);
	fk->dma_reads++;
	off = fake_window(fk, addr, len);
	if (off >= 0 && !fk->fail_reads) {
		memcpy(buf, fk->mem + off, len);
		ret = 0;
	}
	pthread_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_dma_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
	struct fake *fk = opaque;
	long long off;
	int ret = -1;

	pthread_mutex_lock(&fk->lock);
	fk->dma_writes++;
	fk->wlog[fk->wlog_n++ % FAKE_WLOG] = addr;
	if (fk->wr_hi && (addr < fk->wr_lo || addr >= fk->wr_hi || fk->wr_hi - addr < len))
		fk->wr_violations++;
	off = fake_window(fk, addr, len);
	if (fk->fail_hi && addr < fk->fail_hi && addr + len > fk->fail_lo)
		off = -1;
	if (off >= 0 && !fk->fail_writes) {
		memcpy(fk->mem + off, buf, len);
		ret = 0;
	}
	pthread_mutex_unlock(&fk->lock);
	return ret;
}

static void fake_msix_notify(void *opaque, unsigned int vector)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	if (vector < FAKE_MAX_MSIX)
		fk->msix[vector]++;
	pthread_mutex_unlock(&fk->lock);
}

static uint64_t fake_clock_ns(void *opaque)
{
	struct fake *fk = opaque;
	uint64_t now;

	pthread_mutex_lock(&fk->lock);
	now = fk->now_ns;
	pthread_mutex_unlock(&fk->lock);
	return now;
}

static void fake_kick(void *opaque)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	fk->kicks++;
	pthread_cond_broadcast(&fk->kicked);
	pthread_mutex_unlock(&fk->lock);
}

/* ---- the cable ---------------------------------------------------------------------- */

static uint32_t cable_rand(struct fake_cable *c)
{
	uint32_t x = c->rng ? c->rng : (c->seed ? c->seed : 0x9e3779b9u);

	/* xorshift32: deterministic for a given seed and packet order */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	c->rng = x;
	return x;
}

static bool cable_chance(struct fake_cable *c, unsigned int pct)
{
	return pct && cable_rand(c) % 100 < pct;
}

/* Packets queued from @end towards the other (held ones too). */
static unsigned int cable_queued_from(const struct fake_cable *c, unsigned int end)
{
	unsigned int i, n = c->holding[end];

	for (i = 0; i < c->nq; i++)
		n += c->q[i].to != end;
	return n;
}

static bool cable_enqueue(struct fake_cable *c, unsigned int to, const void *pkt, size_t len)
{
	struct fake_cable_pkt *q;
	unsigned int n;

	if (c->nq == FAKE_CABLE_MAX_QUEUED) {
		c->overflow++;
		return false;
	}
	q = &c->q[c->nq];
	q->data = malloc(len ? len : 1);
	if (!q->data) {
		c->overflow++;
		return false;
	}
	memcpy(q->data, pkt, len);
	q->len = len;
	q->to = to;
	q->due = c->round + c->delay_rounds;
	c->nq++;
	n = cable_queued_from(c, !to);
	if (n > c->max_queued[!to])
		c->max_queued[!to] = n;
	return true;
}

/* Release the packet held back for reordering in direction @from, if any. */
static void cable_release_held(struct fake_cable *c, unsigned int from)
{
	struct fake_cable_pkt *h = &c->held[from];

	if (!c->holding[from])
		return;
	c->holding[from] = false;
	cable_enqueue(c, !from, h->data, h->len);
	free(h->data);
	h->data = NULL;
}

static void cable_put(struct fake_cable *c, unsigned int from, const uint8_t *pkt, size_t len)
{
	unsigned int n = ++c->sent[from];
	bool dup;

	if (len > FAKE_CABLE_PKT_MAX)
		c->oversize++;
	if (c->cut || (c->tap && !c->tap(c->tap_arg, from, pkt, len)) ||
	    (c->drop_every && n % c->drop_every == 0) || cable_chance(c, c->drop_pct)) {
		c->dropped[from]++;
		return;
	}
	dup = (c->dup_every && n % c->dup_every == 0) || cable_chance(c, c->dup_pct);
	if (c->reorder_every && n % c->reorder_every == 0 && !c->holding[from]) {
		struct fake_cable_pkt *h = &c->held[from];

		h->data = malloc(len ? len : 1);
		if (h->data) {
			memcpy(h->data, pkt, len);
			h->len = len;
			c->holding[from] = true;
			c->reordered[from]++;
			if (dup) {
				c->duplicated[from]++;
				cable_enqueue(c, !from, pkt, len);
			}
			return;
		}
	}
	cable_enqueue(c, !from, pkt, len);
	if (dup) {
		c->duplicated[from]++;
		cable_enqueue(c, !from, pkt, len);
	}
	cable_release_held(c, from);
}

static int fake_port_send(void *opaque, unsigned int port, const void *pkt, size_t len)
{
	struct fake *fk = opaque;

	if (port != 1 || !fk->cable) {
		fk->pkts_unplugged++;
		return 0;	/* on the wire, nobody listens */
	}
	cable_put(fk->cable, fk->cable_end, pkt, len);
	return 0;
}

static bool fake_port_busy(void *opaque, unsigned int port)
{
	struct fake *fk = opaque;
	struct fake_cable *c = fk->cable;

	if (port != 1 || !c || !c->busy_at || cable_queued_from(c, fk->cable_end) < c->busy_at)
		return false;
	c->busy_said[fk->cable_end]++;
	return true;
}

static uint64_t fake_port_wait_ns(void *opaque, unsigned int port)
{
	struct fake *fk = opaque;

	return port == 1 && fk->cable ? fk->cable->wait_ns[fk->cable_end] : 0;
}

struct fake_cable *fake_cable_new(void)
{
	return calloc(1, sizeof(struct fake_cable));
}

static void cable_flush(struct fake_cable *c)
{
	unsigned int i;

	for (i = 0; i < c->nq; i++)
		free(c->q[i].data);
	c->nq = 0;
	for (i = 0; i < 2; i++) {
		free(c->held[i].data);
		c->held[i].data = NULL;
		c->holding[i] = false;
	}
}

void fake_cable_free(struct fake_cable *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < 2; i++)
		if (c->fk[i] && c->fk[i]->cable == c)
			c->fk[i]->cable = NULL;
	cable_flush(c);
	free(c);
}

void fake_cable_plug(struct fake_cable *c, unsigned int end, struct fake *fk,
		     struct cxfw_dev *dev)
{
	c->fk[end] = fk;
	c->dev[end] = dev;
	fk->cable = c;
	fk->cable_end = end;
	cxfw_port_link(dev, 1, true);
}

void fake_cable_link(struct fake_cable *c, bool up)
{
	unsigned int i;

	if (!up)
		cable_flush(c);
	for (i = 0; i < 2; i++)
		if (c->dev[i])
			cxfw_port_link(c->dev[i], 1, up);
}

unsigned int fake_cable_queued(const struct fake_cable *c)
{
	return c->nq + c->holding[0] + c->holding[1];
}

unsigned int fake_cable_round(struct fake_cable *c)
{
	unsigned int before = c->sent[0] + c->sent[1], i, n, kept = 0, delivered = 0;
	unsigned int kicks[2] = { 0, 0 }, kicked = 0;

	/* a kick (e.g. a packet on a device's internal loopback path) is work too */
	for (i = 0; i < 2; i++)
		if (c->fk[i])
			kicks[i] = fake_kicks(c->fk[i]);
	for (i = 0; i < 2; i++)
		if (c->dev[i])
			cxfw_process(c->dev[i]);
	/* deliver what is due now; packets sent while delivering wait for the next round */
	n = c->nq;
	for (i = 0; i < n; i++) {
		struct fake_cable_pkt p = c->q[i];

		if (p.due > c->round || !c->dev[p.to]) {
			if (p.due > c->round)
				c->q[kept++] = p;
			else
				free(p.data);
			continue;
		}
		c->delivered[!p.to]++;
		delivered++;
		if (c->rx_tap)
			c->rx_tap(c->rx_tap_arg, p.to, p.data, p.len);
		cxfw_port_receive(c->dev[p.to], 1, p.data, p.len);
		free(p.data);
	}
	/* keep the not-yet-due ones in order, ahead of what the deliveries sent */
	memmove(&c->q[kept], &c->q[n], (c->nq - n) * sizeof(c->q[0]));
	c->nq = kept + (c->nq - n);
	c->round++;
	for (i = 0; i < 2; i++) {
		if (c->fk[i] && fake_kicks(c->fk[i]) != kicks[i])
			kicked++;
		if (c->fk[i] && c->round_ns)
			fake_advance_ns(c->fk[i], c->round_ns);
	}
	return delivered + kicked + (c->sent[0] + c->sent[1] - before);
}

int fake_cable_pump(struct fake_cable *c, unsigned int max_rounds)
{
	unsigned int r;

	for (r = 1; r <= max_rounds; r++) {
		if (fake_cable_round(c))
			continue;
		if (c->holding[0] || c->holding[1]) {
			/* nothing follows a held packet: let it go */
			cable_release_held(c, 0);
			cable_release_held(c, 1);
			continue;
		}
		if (!c->nq)
			return (int)r;
	}
	return -1;
}

long fake_cable_pump_time(struct fake_cable *c, uint64_t step_ns, uint64_t total_ns)
{
	uint64_t elapsed = 0;
	long rounds = 0;
	bool stuck = false;
	unsigned int i;
	int r;

	for (;;) {
		r = fake_cable_pump(c, 100000);
		stuck |= r < 0;
		rounds += r < 0 ? 100000 : r;
		if (elapsed >= total_ns || !step_ns)
			return stuck ? -1 : rounds;
		for (i = 0; i < 2; i++)
			if (c->fk[i])
				fake_advance_ns(c->fk[i], step_ns);
		elapsed += step_ns;
	}
}

static void fake_append(char **buf, size_t *len, size_t *cap, unsigned int *lines,
			const char *line);

static void fake_log(void *opaque, enum cxfw_log_level level, const char *msg)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	if ((unsigned int)level < 3)
		fk->logs[level]++;
	snprintf(fk->last_log, sizeof(fk->last_log), "%s", msg);
	fake_append(&fk->log, &fk->log_len, &fk->log_cap, &fk->log_lines, msg);
	if (fk->verbose)
		fprintf(stderr, "  [log %d] %s\n", (int)level, msg);
	pthread_mutex_unlock(&fk->lock);
}

/* Append @line and a newline to the growing buffer *@buf; lock held (dropped: no memory). */
static void fake_append(char **buf, size_t *len, size_t *cap, unsigned int *lines,
			const char *line)
{
	size_t n = strlen(line) + 1;

	if (*len + n + 1 > *cap) {
		size_t c = (*cap ? 2 * *cap : 4096) + n;
		char *p = realloc(*buf, c);

		if (!p)
			return;
		*buf = p;
		*cap = c;
	}
	memcpy(*buf + *len, line, n - 1);
	(*buf)[*len + n - 1] = '\n';
	*len += n;
	(*buf)[*len] = 0;
	(*lines)++;
}

static void fake_cmd_trace(void *opaque, const char *line)
{
	struct fake *fk = opaque;

	pthread_mutex_lock(&fk->lock);
	fake_append(&fk->trace, &fk->trace_len, &fk->trace_cap, &fk->trace_lines, line);
	pthread_mutex_unlock(&fk->lock);
}

bool fake_log_has(struct fake *fk, const char *needle)
{
	bool has;

	pthread_mutex_lock(&fk->lock);
	has = fk->log && strstr(fk->log, needle);
	pthread_mutex_unlock(&fk->lock);
	return has;
}

const char *fake_trace_find(struct fake *fk, unsigned int from, const char *needle,
			    unsigned int *lineno)
{
	const char *p = fk->trace, *nl, *m;
	unsigned int n;

	for (n = 0; p && (nl = strchr(p, '\n')); p = nl + 1, n++) {
		m = strstr(p, needle);
		if (n >= from && m && m < nl) {
			if (lineno)
				*lineno = n;
			return p;
		}
	}
	return NULL;
}

int fake_init(struct fake *fk, uint64_t base, size_t size)
{
	memset(fk, 0, sizeof(*fk));
	fk->mem = calloc(1, size);
	if (!fk->mem)
		return -1;
	pthread_mutex_init(&fk->lock, NULL);
	pthread_cond_init(&fk->kicked, NULL);
	fk->base = base;
	fk->size = size;
	fk->now_ns = FAKE_CLOCK_START_NS;
	fk->verbose = getenv("CXFW_TEST_VERBOSE") != NULL;
	return 0;
}

void fake_fini(struct fake *fk)
{
	if (!fk->mem)
		return;
	if (fk->cable) {
		fk->cable->fk[fk->cable_end] = NULL;
		fk->cable->dev[fk->cable_end] = NULL;
		fk->cable = NULL;
	}
	pthread_cond_destroy(&fk->kicked);
	pthread_mutex_destroy(&fk->lock);
	free(fk->mem);
	fk->mem = NULL;
	free(fk->trace);
	fk->trace = NULL;
	free(fk->log);
	fk->log = NULL;
}

void fake_platform(struct fake *fk, struct cxfw_platform *plat)
{
	memset(plat, 0, sizeof(*plat));
	plat->opaque = fk;
	plat->dma_read = fake_dma_read;
	plat->dma_write = fake_dma_write;
	plat->msix_notify = fake_msix_notify;
	plat->clock_ns = fake_clock_ns;
	plat->kick = fake_kick;
	plat->log = fake_log;
	plat->cmd_trace = fake_cmd_trace;
	plat->port_send = fake_port_send;
	plat->port_busy = fake_port_busy;
	plat->port_wait_ns = fake_port_wait_ns;
}

void fake_advance_ns(struct fake *fk, uint64_t ns)
{
	pthread_mutex_lock(&fk->lock);
	fk->now_ns += ns;
	pthread_mutex_unlock(&fk->lock);
}

void fake_advance_ms(struct fake *fk, uint64_t ms)
{
	fake_advance_ns(fk, ms * 1000000ull);
}

unsigned int fake_kicks(struct fake *fk)
{
	unsigned int n;

	pthread_mutex_lock(&fk->lock);
	n = fk->kicks;
	pthread_mutex_unlock(&fk->lock);
	return n;
}

unsigned int fake_err_logs(struct fake *fk)
{
	unsigned int n;

	pthread_mutex_lock(&fk->lock);
	n = fk->logs[CXFW_LOG_ERR];
	pthread_mutex_unlock(&fk->lock);
	return n;
}

void fake_mem_write(struct fake *fk, uint64_t addr, const void *buf, size_t len)
{
	long long off;

	pthread_mutex_lock(&fk->lock);
	off = fake_window(fk, addr, len);
	if (off < 0)
		abort();	/* a bug in the test itself */
	memcpy(fk->mem + off, buf, len);
	pthread_mutex_unlock(&fk->lock);
}

void fake_mem_read(struct fake *fk, uint64_t addr, void *buf, size_t len)
{
	long long off;

	pthread_mutex_lock(&fk->lock);
	off = fake_window(fk, addr, len);
	if (off < 0)
		abort();
	memcpy(buf, fk->mem + off, len);
	pthread_mutex_unlock(&fk->lock);
}

/* MMIO values are BAR bytes in little-endian order; the register value is big-endian. */
uint32_t rd32(struct cxfw_dev *dev, uint64_t off)
{
	uint64_t v = cxfw_mmio_read(dev, off, 4);
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	return be32_at(b);
}

void wr32(struct cxfw_dev *dev, uint64_t off, uint32_t v)
{
	uint8_t b[4];

	put_be32(b, v);
	cxfw_mmio_write(dev, off,
			(uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
			(uint64_t)b[3] << 24, 4);
}

void cmdq_setup(struct cxfw_dev *dev, uint64_t addr)
{
	wr32(dev, 0x010, (uint32_t)(addr >> 32));
	wr32(dev, 0x014, (uint32_t)addr & 0xfffff000u);
}

void entry_prepare(struct fake *fk, uint64_t q, unsigned int slot, uint16_t opcode,
		   uint16_t op_mod, uint32_t inlen, uint32_t outlen)
{
	uint8_t e[64];

	memset(e, 0, sizeof(e));
	e[0x00] = 0x07;				/* type: PCIe command interface */
	put_be32(e + 0x04, inlen);
	put_be32(e + 0x10, (uint32_t)opcode << 16);	/* opcode, uid 0 */
	put_be32(e + 0x14, op_mod);
	put_be32(e + 0x18, 0x11223344);		/* command-specific input */
	memset(e + 0x20, 0xee, 16);		/* stale output the device must overwrite */
	put_be32(e + 0x38, outlen);
	e[0x3c] = 0x5a;				/* token */
	e[0x3d] = 0xc3;				/* signature */
	e[0x3f] = 0x01;				/* ownership: hardware */
	entry_put(fk, q, slot, e);
}

void entry_get(struct fake *fk, uint64_t q, unsigned int slot, uint8_t ent[64])
{
	fake_mem_read(fk, q + 64ull * slot, ent, 64);
}

void entry_put(struct fake *fk, uint64_t q, unsigned int slot, const uint8_t ent[64])
{
	fake_mem_write(fk, q + 64ull * slot, ent, 64);
}

int fake_wlog_last(struct fake *fk, uint64_t lo, uint64_t hi)
{
	unsigned int i, n;
	int pos = -1;

	pthread_mutex_lock(&fk->lock);
	n = fk->wlog_n < FAKE_WLOG ? fk->wlog_n : FAKE_WLOG;
	for (i = fk->wlog_n - n; i < fk->wlog_n; i++)
		if (fk->wlog[i % FAKE_WLOG] >= lo && fk->wlog[i % FAKE_WLOG] < hi)
			pos = (int)i;
	pthread_mutex_unlock(&fk->lock);
	return pos;
}

unsigned int fake_msix(struct fake *fk, unsigned int vector)
{
	unsigned int n;

	pthread_mutex_lock(&fk->lock);
	n = vector < FAKE_MAX_MSIX ? fk->msix[vector] : 0;
	pthread_mutex_unlock(&fk->lock);
	return n;
}
