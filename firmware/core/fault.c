// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw fault injection: what a lab or a test makes go wrong on purpose, at run time
 * (cxfw_fault_set(); the QEMU device's "fault" property; `cxlab fault`).
 *
 * Link faults act on the packets a port puts on its cable (wire.c: cxfw_wire_send), after
 * their CRCs are computed, as a bad link would: loss (the packet never arrives),
 * duplication (it arrives twice), reordering (it arrives after the next packet the port
 * sends, or at the end of the worker's pass if there is none) and corruption (one bit
 * flipped, so the receiver's VCRC or ICRC check drops and counts it).  Each has a rate in
 * parts per million, decided per packet from a pseudo-random sequence that depends only on
 * the seed and the order of the packets, so a lossy run can be replayed.  A packet counts
 * as transmitted by the port whatever the cable then does to it.  Packets to the port's
 * own LID never reach the cable and are left alone.
 *
 * Firmware faults: the health counter stops moving (a hung firmware, not a fatal one);
 * the command interface stops answering (doorbells are taken, nothing executes until the
 * fault is cleared); one opcode fails with a chosen status the next N times; the next N
 * DMA reads or writes fail, as an unmapped address would.  Firmware-fatal is
 * cxfw_inject_fatal().
 *
 * Locking: the settings and counters are under dev->lock; the held packet of a reordering
 * link and the random state belong to the worker (egress runs there).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_FAULT_PPM		1000000u	/* a rate of 100 % */
#define CXFW_FAULT_SEED		0x9e3779b97f4a7c15ull	/* seed until one is set */

static const char *const cxfw_link_fault_names[CXFW_LINK_FAULTS] = {
	[CXFW_LINK_LOSS] = "loss",
	[CXFW_LINK_DUP] = "dup",
	[CXFW_LINK_REORDER] = "reorder",
	[CXFW_LINK_CORRUPT] = "corrupt",
};

void cxfw_fault_init(struct cxfw_dev *dev)
{
	unsigned int p;

	memset(&dev->fault, 0, sizeof(dev->fault));
	for (p = 0; p < CXFW_MAX_PORTS; p++)
		dev->fault.link[p].rng = CXFW_FAULT_SEED + p;
}

void cxfw_fault_fini(struct cxfw_dev *dev)
{
	unsigned int p;

	for (p = 0; p < CXFW_MAX_PORTS; p++) {
		free(dev->fault.link[p].held);
		dev->fault.link[p].held = NULL;
	}
}

/* xorshift64*: a small, seedable sequence (worker only). */
static uint64_t cxfw_fault_next(struct cxfw_link_fault *lf)
{
	uint64_t x = lf->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	lf->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* One draw against @ppm parts per million. */
static bool cxfw_fault_hit(struct cxfw_link_fault *lf, uint32_t ppm)
{
	if (!ppm)
		return false;
	return (uint32_t)(cxfw_fault_next(lf) >> 32) % CXFW_FAULT_PPM < ppm;
}

enum cxfw_link_verdict cxfw_fault_link(struct cxfw_dev *dev, unsigned int port, uint8_t *pkt,
				       size_t len)
{
	struct cxfw_link_fault *lf = &dev->fault.link[port - 1];
	uint32_t rate[CXFW_LINK_FAULTS];
	enum cxfw_link_verdict v = CXFW_LINK_SEND;
	bool any = false;
	unsigned int k;

	pthread_mutex_lock(&dev->lock);
	for (k = 0; k < CXFW_LINK_FAULTS; k++) {
		rate[k] = lf->ppm[k];
		any |= rate[k] != 0;
	}
	pthread_mutex_unlock(&dev->lock);
	if (!any)
		return CXFW_LINK_SEND;

	if (cxfw_fault_hit(lf, rate[CXFW_LINK_LOSS])) {
		v = CXFW_LINK_LOSE;
	} else {
		if (cxfw_fault_hit(lf, rate[CXFW_LINK_CORRUPT]) && len) {
			uint64_t bit = cxfw_fault_next(lf) % (len * 8);

			pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			k = CXFW_LINK_CORRUPT;
			pthread_mutex_lock(&dev->lock);
			lf->count[k]++;
			pthread_mutex_unlock(&dev->lock);
		}
		if (cxfw_fault_hit(lf, rate[CXFW_LINK_DUP]))
			v = CXFW_LINK_SEND_TWICE;
		else if (!lf->held_len && len <= CXFW_PKT_MAX &&
			 cxfw_fault_hit(lf, rate[CXFW_LINK_REORDER]))
			v = CXFW_LINK_HOLD;
	}
	if (v == CXFW_LINK_HOLD) {
		if (!lf->held)
			lf->held = malloc(CXFW_PKT_MAX);
		if (!lf->held)
			return CXFW_LINK_SEND;	/* cannot hold it: it simply goes */
		memcpy(lf->held, pkt, len);
		lf->held_len = len;
	}
	if (v != CXFW_LINK_SEND) {
		k = v == CXFW_LINK_LOSE ? CXFW_LINK_LOSS :
		    v == CXFW_LINK_SEND_TWICE ? CXFW_LINK_DUP : CXFW_LINK_REORDER;
		pthread_mutex_lock(&dev->lock);
		lf->count[k]++;
		pthread_mutex_unlock(&dev->lock);
	}
	return v;
}

size_t cxfw_fault_take_held(struct cxfw_dev *dev, unsigned int port, uint8_t *buf)
{
	struct cxfw_link_fault *lf = &dev->fault.link[port - 1];
	size_t len = lf->held_len;

	if (len)
		memcpy(buf, lf->held, len);
	lf->held_len = 0;
	return len;
}

/* A device reset restarts the firmware: its own faults (not the link's) are gone. */
void cxfw_fault_reset_firmware(struct cxfw_dev *dev)
{
	dev->fault.health_stall = false;
	dev->fault.cmd_hang = false;
}

bool cxfw_fault_cmd_hang(struct cxfw_dev *dev)
{
	bool hang;

	pthread_mutex_lock(&dev->lock);
	hang = dev->fault.cmd_hang;
	pthread_mutex_unlock(&dev->lock);
	return hang;
}

bool cxfw_fault_cmd_fail(struct cxfw_dev *dev, uint16_t opcode, uint8_t *status,
			 uint32_t *syndrome)
{
	struct cxfw_fault *f = &dev->fault;
	bool hit;

	pthread_mutex_lock(&dev->lock);
	hit = f->cmd_fail_left && f->cmd_fail_opcode == opcode;
	if (hit) {
		if (f->cmd_fail_left != CXFW_FAULT_ALWAYS)
			f->cmd_fail_left--;
		f->cmds_failed++;
		*status = f->cmd_fail_status;
		*syndrome = CXFW_FAULT_CMD_SYNDROME;
	}
	pthread_mutex_unlock(&dev->lock);
	return hit;
}

/* One DMA of the direction whose budget is @left; true if it is to fail.  Lock not held. */
static bool cxfw_fault_dma(struct cxfw_dev *dev, uint32_t *left)
{
	bool fail;

	pthread_mutex_lock(&dev->lock);
	fail = *left != 0;
	if (fail) {
		(*left)--;
		dev->fault.dma_failed++;
		__atomic_store_n(&dev->fault.dma_armed,
				 dev->fault.dma_read_fail || dev->fault.dma_write_fail,
				 __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&dev->lock);
	return fail;
}

int cxfw_dma_read(struct cxfw_dev *dev, uint64_t addr, void *buf, size_t len)
{
	if (__atomic_load_n(&dev->fault.dma_armed, __ATOMIC_RELAXED) &&
	    cxfw_fault_dma(dev, &dev->fault.dma_read_fail))
		return -1;
	return dev->plat.dma_read(dev->plat.opaque, addr, buf, len);
}

int cxfw_dma_write(struct cxfw_dev *dev, uint64_t addr, const void *buf, size_t len)
{
	if (__atomic_load_n(&dev->fault.dma_armed, __ATOMIC_RELAXED) &&
	    cxfw_fault_dma(dev, &dev->fault.dma_write_fail))
		return -1;
	return dev->plat.dma_write(dev->plat.opaque, addr, buf, len);
}

/* ---- settings ------------------------------------------------------------------------- */

/* A number: decimal, or hexadecimal with 0x. */
static bool cxfw_fault_number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long n;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n > max)
		return false;
	*v = n;
	return true;
}

/* A rate: parts per million ("2500"), or a percentage ("0.25%", "5%"). */
static bool cxfw_fault_rate(const char *s, uint32_t *ppm)
{
	size_t n = s ? strlen(s) : 0;
	uint64_t v;

	if (n && s[n - 1] == '%') {
		char num[32], *end;
		double pct;

		if (n - 1 >= sizeof(num) || n == 1)
			return false;
		memcpy(num, s, n - 1);
		num[n - 1] = 0;
		if (!isdigit((unsigned char)num[0]))
			return false;
		pct = strtod(num, &end);
		if (*end || pct < 0 || pct > 100)
			return false;
		*ppm = (uint32_t)(pct * (CXFW_FAULT_PPM / 100) + 0.5);
		return true;
	}
	if (!cxfw_fault_number(s, CXFW_FAULT_PPM, &v))
		return false;
	*ppm = (uint32_t)v;
	return true;
}

static bool cxfw_fault_onoff(const char *s, bool *on)
{
	if (s && !strcmp(s, "on"))
		*on = true;
	else if (s && !strcmp(s, "off"))
		*on = false;
	else
		return false;
	return true;
}

/* Everything off (lock held); counters and the seed stay. */
static void cxfw_fault_clear_locked(struct cxfw_dev *dev)
{
	struct cxfw_fault *f = &dev->fault;
	unsigned int p;

	for (p = 0; p < CXFW_MAX_PORTS; p++)
		memset(f->link[p].ppm, 0, sizeof(f->link[p].ppm));
	cxfw_fault_reset_firmware(dev);
	f->cmd_fail_left = 0;
	f->dma_read_fail = 0;
	f->dma_write_fail = 0;
	__atomic_store_n(&f->dma_armed, false, __ATOMIC_RELAXED);
}

#define CXFW_FAULT_MAX_ARGS	5

static int cxfw_fault_err(char *err, size_t errlen, const char *fmt, const char *what)
{
	if (errlen)
		snprintf(err, errlen, fmt, what);
	return -1;
}

/* Apply the split spec @a (@n words), lock held.  0, or -1 with @err set. */
static int cxfw_fault_apply_locked(struct cxfw_dev *dev, char **a, unsigned int n,
				   unsigned int port, uint64_t now, char *err, size_t errlen)
{
	struct cxfw_fault *f = &dev->fault;
	uint64_t v, v2, cnt = 1;
	unsigned int k;
	bool on;

	for (k = 0; k < CXFW_LINK_FAULTS; k++) {
		if (strcmp(a[0], cxfw_link_fault_names[k]))
			continue;
		if (n != 2 || !cxfw_fault_rate(a[1], &f->link[port - 1].ppm[k]))
			return cxfw_fault_err(err, errlen,
					      "%s RATE: parts per million (0..1000000) or a "
					      "percentage (0.5%%)", a[0]);
		return 0;
	}
	if (!strcmp(a[0], "clear") && n == 1) {
		cxfw_fault_clear_locked(dev);
		return 0;
	}
	if (!strcmp(a[0], "seed")) {
		if (n != 2 || !cxfw_fault_number(a[1], UINT64_MAX, &v) || !v)
			return cxfw_fault_err(err, errlen, "%s N: a non-zero number", a[0]);
		for (k = 0; k < CXFW_MAX_PORTS; k++)
			f->link[k].rng = v + k;
		return 0;
	}
	if (!strcmp(a[0], "health-stall") || !strcmp(a[0], "cmd-hang")) {
		if (n != 2 || !cxfw_fault_onoff(a[1], &on))
			return cxfw_fault_err(err, errlen, "%s on|off", a[0]);
		if (a[0][0] == 'h') {
			if (on && !f->health_stall)	/* it stops where it is */
				f->health_counter = cxfw_iseg_health_counter(dev, now);
			f->health_stall = on;
		} else {
			f->cmd_hang = on;
		}
		return 0;
	}
	if (!strcmp(a[0], "cmd-fail")) {
		if (n < 3 || n > 4 || !cxfw_fault_number(a[1], UINT16_MAX, &v) ||
		    !cxfw_fault_number(a[2], UINT8_MAX, &v2) || !v2 ||
		    (n == 4 && strcmp(a[3], "always") &&
		     !cxfw_fault_number(a[3], CXFW_FAULT_ALWAYS - 1, &cnt)))
			return cxfw_fault_err(err, errlen,
					      "%s OPCODE STATUS [COUNT|always]: a command opcode, "
					      "a non-zero status, how many times (1)", a[0]);
		f->cmd_fail_opcode = (uint16_t)v;
		f->cmd_fail_status = (uint8_t)v2;
		f->cmd_fail_left = n == 4 && !strcmp(a[3], "always") ? CXFW_FAULT_ALWAYS :
				   (uint32_t)cnt;
		return 0;
	}
	if (!strcmp(a[0], "dma-read-fail") || !strcmp(a[0], "dma-write-fail")) {
		if (n != 2 || !cxfw_fault_number(a[1], UINT32_MAX, &v))
			return cxfw_fault_err(err, errlen, "%s N: how many accesses fail", a[0]);
		if (a[0][4] == 'r')
			f->dma_read_fail = (uint32_t)v;
		else
			f->dma_write_fail = (uint32_t)v;
		__atomic_store_n(&f->dma_armed, f->dma_read_fail || f->dma_write_fail,
				 __ATOMIC_RELAXED);
		return 0;
	}
	return cxfw_fault_err(err, errlen,
			      "unknown fault '%s' (loss, dup, reorder, corrupt, seed, clear, "
			      "health-stall, cmd-hang, cmd-fail, dma-read-fail, dma-write-fail)",
			      a[0]);
}

int cxfw_fault_set(struct cxfw_dev *dev, const char *spec, char *err, size_t errlen)
{
	char buf[128], *a[CXFW_FAULT_MAX_ARGS + 1], *save = NULL, *w;
	unsigned int n = 0, port = 1;
	uint64_t v, now = cxfw_now(dev);
	int ret;

	if (errlen)
		err[0] = 0;
	if (!spec || strlen(spec) >= sizeof(buf))
		return cxfw_fault_err(err, errlen, "%s", "a fault is a short line: KIND [ARGS]");
	memcpy(buf, spec, strlen(spec) + 1);
	for (w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(w, "port=", 5)) {
			if (!cxfw_fault_number(w + 5, dev->cfg.num_ports, &v) || !v)
				return cxfw_fault_err(err, errlen, "no port %s on this device", w + 5);
			port = (unsigned int)v;
			continue;
		}
		if (n == CXFW_FAULT_MAX_ARGS)
			return cxfw_fault_err(err, errlen, "%s", "too many words");
		a[n++] = w;
	}
	if (!n)
		return cxfw_fault_err(err, errlen, "%s", "no fault given");
	pthread_mutex_lock(&dev->lock);
	ret = cxfw_fault_apply_locked(dev, a, n, port, now, err, errlen);
	pthread_mutex_unlock(&dev->lock);
	if (!ret)
		cxfw_log(dev, CXFW_LOG_INFO, "cxfw: fault set: %s", spec);
	return ret;
}

size_t cxfw_fault_format(struct cxfw_dev *dev, char *buf, size_t len)
{
	struct cxfw_text t = { .buf = buf, .len = len };
	struct cxfw_fault f;
	unsigned int p, k;

	if (len)
		buf[0] = 0;
	pthread_mutex_lock(&dev->lock);
	f = dev->fault;
	pthread_mutex_unlock(&dev->lock);
	for (p = 0; p < dev->cfg.num_ports; p++) {
		for (k = 0; k < CXFW_LINK_FAULTS; k++)
			cxfw_textf(&t, "%sport%u.%s=%u", p || k ? " " : "", p + 1,
				   cxfw_link_fault_names[k], f.link[p].ppm[k]);
		cxfw_textf(&t, " port%u.lost=%llu port%u.duplicated=%llu port%u.reordered=%llu "
			   "port%u.corrupted=%llu", p + 1,
			   (unsigned long long)f.link[p].count[CXFW_LINK_LOSS], p + 1,
			   (unsigned long long)f.link[p].count[CXFW_LINK_DUP], p + 1,
			   (unsigned long long)f.link[p].count[CXFW_LINK_REORDER], p + 1,
			   (unsigned long long)f.link[p].count[CXFW_LINK_CORRUPT]);
	}
	cxfw_textf(&t, " health_stall=%d cmd_hang=%d cmd_fail_opcode=0x%x cmd_fail_status=0x%x",
		   f.health_stall, f.cmd_hang, f.cmd_fail_opcode, f.cmd_fail_status);
	if (f.cmd_fail_left == CXFW_FAULT_ALWAYS)
		cxfw_textf(&t, " cmd_fail_left=always");
	else
		cxfw_textf(&t, " cmd_fail_left=%u", f.cmd_fail_left);
	cxfw_textf(&t, " cmds_failed=%llu dma_read_fail=%u dma_write_fail=%u dma_failed=%llu",
		   (unsigned long long)f.cmds_failed, f.dma_read_fail, f.dma_write_fail,
		   (unsigned long long)f.dma_failed);
	return t.need;
}
