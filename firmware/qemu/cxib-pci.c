/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxib-pci: the cxfw HCA model as a QEMU 7.2 PCIe device.
 *
 * This file is glue only: PCI identity and capabilities, BAR0, MSI-X, DMA, properties and
 * a worker thread.  Everything the HCA does lives in firmware/core behind cxfw.h; port 1's
 * cable or loopback plug is cxib-cable.c.
 *
 * Threads and locks
 * -----------------
 *  - vCPU threads (BQL held) run the BAR0 callbacks, which go straight to cxfw_mmio_*();
 *    the core keeps them O(1) and asks for deferred work through platform->kick().
 *  - One worker thread ("cxib-worker", no BQL, RCU-registered) sleeps in poll() on the kick
 *    eventfd and the cable socket.  It runs cxfw_process() after every wake-up, plus every
 *    CXIB_PCI_TICK_MS so time-based work in the core (timeouts) makes progress, and it
 *    drives the cable (cxib_cable_poll_prepare/_done): connect/accept, packets in and out.
 *  - MSI-X from the worker: the vector goes into an atomic bitmap and a guarded bottom half
 *    calls msix_notify() on the main loop under the BQL.
 *  - fw_lock serialises the worker's calls into the core (process, port events) against
 *    cxfw_reset().  Lock order is BQL -> fw_lock -> the cable's tx_lock.  The worker must
 *    therefore never wait for the BQL while holding fw_lock; the only way it could is a DMA
 *    that hits MMIO, so DMA is limited to guest RAM (anything else fails like an unmapped
 *    address).
 *  - The cable's tx_lock protects its socket and transmit buffer, because the core may
 *    send packets from any thread it calls back from.
 *  - The capture file (cxib-capture.h, the "capture" property) has a lock of its own, the
 *    innermost: packets sent are recorded under tx_lock, so the file has them in cable
 *    order; packets received are recorded by the worker before the core sees them.
 *
 * Lifetime: the worker is stopped and joined by exit() (unplug) and by a shutdown notifier
 * (7.2 does not unrealize devices at process exit); both paths are idempotent.  A reset
 * after a shutdown that did not exit (-no-shutdown) starts the worker again.
 */
#include "qemu/osdep.h"

#include <poll.h>
#include <sys/un.h>

#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/atomic.h"
#include "qemu/bitmap.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/event_notifier.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/notify.h"
#include "qemu/rcu.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "exec/memory.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_aer.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "sysemu/dma.h"
#include "sysemu/runstate.h"

/*
 * Our headers, through the links scripts/build-qemu keeps in QEMU's tree (hw/cxib ->
 * firmware/, hw/cxib-include -> include/), found via QEMU's "-iquote <source root>".
 * Never "../" across a link: ninja folds ".." textually and would lose the dependency.
 */
#include "hw/cxib-include/cxib/hw.h"
#include "hw/cxib/core/cxfw.h"
#include "hw/cxib/qemu/cxib-cable.h"
#include "hw/cxib/qemu/cxib-capture.h"
#include "hw/cxib/trace.h"

#define TYPE_CXIB_PCI "cxib-pci"
OBJECT_DECLARE_SIMPLE_TYPE(CxibPciState, CXIB_PCI)

#define CXIB_PCI_PCIE_CAP_OFFSET	0x80	/* config-space offset of the PCIe capability */
#define CXIB_PCI_AER_OFFSET		0x100	/* AER: the first extended capability */
#define CXIB_PCI_DEFAULT_MSIX_VECTORS	16
#define CXIB_PCI_MAX_MSIX_VECTORS	(PCI_MSIX_FLAGS_QSIZE + 1)
#define CXIB_PCI_NUM_PORTS		1
#define CXIB_PCI_CABLE_PORT		1	/* the "cable" property belongs to port 1 */
#define CXIB_PCI_TICK_MS		10	/* cxfw_process() at least this often */
#define CXIB_PCI_MAX_ERR_REPORTS	32	/* firmware errors echoed to stderr */

/*
 * Node GUID announced in HELLO when the "guid" property is 0: the same rule the core uses
 * for its own derived GUID (Mellanox OUI 00:02:c9, 03:00, serial).  Should go away once
 * cxfw.h can tell the platform the GUID it derived.
 */
#define CXIB_PCI_DERIVED_GUID_PREFIX	0x0002c90300000000ull

struct CxibPciState {
	PCIDevice parent_obj;

	/* Properties. */
	uint16_t device_id;
	uint64_t guid;
	uint32_t serial;
	uint32_t init_delay_ms;
	uint32_t msix_vectors;
	char *cable_path;
	bool cable_listen;
	bool loopback;			/* a loopback plug instead of a cable */
	bool auto_activate;		/* cfg.auto_activate: no subnet manager needed */
	bool strict;			/* cfg.strict: firmware/core/strict.c */
	uint32_t runtime_pages;		/* cfg.runtime_pages: firmware/core/pages.c */

	char *name;			/* "cxib-pci" or "cxib-pci <id>", for messages */
	MemoryRegion bar0;
	struct cxfw_platform plat;
	struct cxfw_dev *fw;
	uint64_t node_guid;		/* announced in HELLO */
	QemuMutex fw_lock;		/* worker's core calls vs cxfw_reset() */

	/* Worker. */
	QemuThread worker;
	bool worker_running;		/* BQL */
	bool stopping;			/* atomic; tells the worker to return */
	EventNotifier kick;
	Notifier shutdown_notifier;
	unsigned int err_reports;	/* atomic */

	/* MSI-X raised outside the BQL, delivered by irq_bh. */
	QEMUBH *irq_bh;
	unsigned long *irq_pending;	/* bitmap of msix_vectors bits, atomic */

	/* Port 1's cable, loopback plug or nothing (cxib-cable.c). */
	CxibCable *cable;

	/* Packet capture of port 1's cable or plug: the "capture" property. */
	CxibCapture capture;

	/* Command trace: the "cmd-trace" file and its marks (trace_lock). */
	QemuMutex trace_lock;
	FILE *trace_f;
	char *trace_path;
};

static const uint16_t cxib_pci_device_ids[] = {
	CXIB_PCI_DEVICE_CX4, CXIB_PCI_DEVICE_CX4_LX, CXIB_PCI_DEVICE_CX5,
	CXIB_PCI_DEVICE_CX5_EX, CXIB_PCI_DEVICE_CX6, CXIB_PCI_DEVICE_CX6_DX,
	CXIB_PCI_DEVICE_CX6_LX, CXIB_PCI_DEVICE_CX7, CXIB_PCI_DEVICE_CX8,
};

/* ---- BAR0 ---------------------------------------------------------------------------- */

static uint64_t cxib_pci_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
	CxibPciState *s = opaque;
	uint64_t val = cxfw_mmio_read(s->fw, addr, size);

	trace_cxib_pci_mmio_read(addr, size, val);
	return val;
}

static void cxib_pci_bar0_write(void *opaque, hwaddr addr, uint64_t val, unsigned size)
{
	CxibPciState *s = opaque;

	trace_cxib_pci_mmio_write(addr, size, val);
	cxfw_mmio_write(s->fw, addr, val, size);
}

static const MemoryRegionOps cxib_pci_bar0_ops = {
	.read = cxib_pci_bar0_read,
	.write = cxib_pci_bar0_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.valid = { .min_access_size = 1, .max_access_size = 8 },
	.impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- platform callbacks for the core ------------------------------------------------- */

/*
 * True if every byte of [addr, addr + len) is guest RAM that can be accessed directly in
 * this direction.  DMA to MMIO (another BAR, our own BAR) would need the BQL and could
 * re-enter devices from the worker; a real HCA could do peer-to-peer there, the model
 * treats it like an unmapped address.
 */
static bool cxib_pci_dma_is_ram(AddressSpace *as, uint64_t addr, uint64_t len, bool is_write)
{
	RCU_READ_LOCK_GUARD();

	while (len) {
		hwaddr xlat, l = len;
		MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l, is_write,
							   MEMTXATTRS_UNSPECIFIED);

		if (!l || !memory_access_is_direct(mr, is_write))
			return false;
		addr += l;
		len -= l;
	}
	return true;
}

static int cxib_pci_dma(CxibPciState *s, uint64_t addr, void *buf, size_t len, bool is_write)
{
	PCIDevice *pdev = PCI_DEVICE(s);
	MemTxResult res;

	if (!len)
		return 0;
	if (addr + len < addr ||
	    !cxib_pci_dma_is_ram(pci_get_address_space(pdev), addr, len, is_write)) {
		trace_cxib_pci_dma_error(is_write, addr, len, MEMTX_DECODE_ERROR);
		return -1;
	}
	res = pci_dma_rw(pdev, addr, buf, len,
			 is_write ? DMA_DIRECTION_FROM_DEVICE : DMA_DIRECTION_TO_DEVICE,
			 MEMTXATTRS_UNSPECIFIED);
	if (res != MEMTX_OK) {
		trace_cxib_pci_dma_error(is_write, addr, len, res);
		return -1;
	}
	return 0;
}

static int cxib_pci_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	return cxib_pci_dma(opaque, addr, buf, len, false);
}

static int cxib_pci_dma_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
	/* pci_dma_rw() takes a non-const buffer for both directions; it only reads it here. */
	return cxib_pci_dma(opaque, addr, (void *)buf, len, true);
}

static void cxib_pci_msix_notify(void *opaque, unsigned int vector)
{
	CxibPciState *s = opaque;

	if (vector >= s->msix_vectors) {
		trace_cxib_pci_msix_dropped(vector);
		return;
	}
	set_bit_atomic(vector, s->irq_pending);
	qemu_bh_schedule(s->irq_bh);
}

/* Main loop, BQL held: deliver the vectors the worker asked for. */
static void cxib_pci_irq_bh(void *opaque)
{
	CxibPciState *s = opaque;
	PCIDevice *pdev = PCI_DEVICE(s);
	unsigned int i;

	for (i = 0; i < BITS_TO_LONGS(s->msix_vectors); i++) {
		unsigned long bits = qatomic_xchg(&s->irq_pending[i], 0);

		while (bits) {
			unsigned int vector = i * BITS_PER_LONG + ctzl(bits);

			bits &= bits - 1;
			if (!msix_enabled(pdev)) {
				trace_cxib_pci_msix_dropped(vector);
				continue;
			}
			trace_cxib_pci_msix(vector);
			msix_notify(pdev, vector);
		}
	}
}

static uint64_t cxib_pci_clock_ns(void *opaque)
{
	return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void cxib_pci_kick(void *opaque)
{
	CxibPciState *s = opaque;

	event_notifier_set(&s->kick);
}

static void cxib_pci_fw_log(void *opaque, enum cxfw_log_level level, const char *msg)
{
	CxibPciState *s = opaque;

	trace_cxib_pci_fw_log(level, msg);
	if (level != CXFW_LOG_ERR)
		return;
	qemu_log_mask(LOG_GUEST_ERROR, "%s: %s\n", s->name, msg);
	/* Errors may be guest-triggered: echo a bounded number, the rest go to the log. */
	switch (qatomic_fetch_inc(&s->err_reports)) {
	case 0 ... CXIB_PCI_MAX_ERR_REPORTS - 1:
		error_report("%s: %s", s->name, msg);
		break;
	case CXIB_PCI_MAX_ERR_REPORTS:
		error_report("%s: further firmware errors only with -d guest_errors "
			     "or -trace cxib_pci_fw_log", s->name);
		break;
	default:
		break;
	}
}

/*
 * Command trace: "qom-set <device> cmd-trace <path>" (or -device ...,cmd-trace=<path>)
 * writes one line per command the model executes into <path>, truncating it (format:
 * firmware/core/cmdtrace.c); "" stops and closes it.  "qom-set <device> cmd-trace-mark
 * <text>" writes "# mark <text>" between two commands, so that a script can cut the trace
 * into phases.  Every line is flushed at once: the file can be read while it grows.
 */
static void cxib_pci_cmd_trace(void *opaque, const char *line)
{
	CxibPciState *s = opaque;

	qemu_mutex_lock(&s->trace_lock);
	if (s->trace_f) {
		fprintf(s->trace_f, "%s\n", line);
		fflush(s->trace_f);
	}
	qemu_mutex_unlock(&s->trace_lock);
}

static char *cxib_pci_get_cmd_trace(Object *obj, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	char *path;

	qemu_mutex_lock(&s->trace_lock);
	path = g_strdup(s->trace_path ? s->trace_path : "");
	qemu_mutex_unlock(&s->trace_lock);
	return path;
}

static void cxib_pci_trace_close(CxibPciState *s)
{
	if (s->trace_f)
		fclose(s->trace_f);
	s->trace_f = NULL;
	g_free(s->trace_path);
	s->trace_path = NULL;
}

static void cxib_pci_set_cmd_trace(Object *obj, const char *path, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	FILE *f = NULL;

	if (*path) {
		f = fopen(path, "w");
		if (!f) {
			error_setg_errno(errp, errno, "cmd-trace: cannot write %s", path);
			return;
		}
	}
	qemu_mutex_lock(&s->trace_lock);
	cxib_pci_trace_close(s);
	s->trace_f = f;
	s->trace_path = f ? g_strdup(path) : NULL;
	qemu_mutex_unlock(&s->trace_lock);
}

static void cxib_pci_set_cmd_trace_mark(Object *obj, const char *text, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	bool open;

	if (strchr(text, '\n')) {
		error_setg(errp, "cmd-trace-mark: one line of text, please");
		return;
	}
	qemu_mutex_lock(&s->trace_lock);
	open = s->trace_f != NULL;
	if (open) {
		fprintf(s->trace_f, "# mark %s\n", text);
		fflush(s->trace_f);
	}
	qemu_mutex_unlock(&s->trace_lock);
	if (!open)
		error_setg(errp, "cmd-trace-mark: no trace is being written (set cmd-trace first)");
}

/* ---- port 1: cable or loopback plug (cxib-cable.c) ------------------------------------ */

/* platform->port_send: any thread. */
static int cxib_pci_port_send(void *opaque, unsigned int port, const void *pkt, size_t len)
{
	CxibPciState *s = opaque;

	if (port != CXIB_PCI_CABLE_PORT) {
		trace_cxib_pci_cable_tx_drop(len, "no cable on this port");
		return -1;
	}
	return cxib_cable_send(s->cable, pkt, len);
}

/*
 * platform->port_busy: any thread.  Link-level flow control: the transmit queue is past its
 * high-water mark (the peer's QEMU reads slower than we send); the worker calls
 * cxfw_process() again after each flush, which resumes the engines.
 */
static bool cxib_pci_port_busy(void *opaque, unsigned int port)
{
	CxibPciState *s = opaque;

	return port == CXIB_PCI_CABLE_PORT && cxib_cable_busy(s->cable);
}

/* platform->port_wait_ns: any thread.  The local ACK timer leaves this time out. */
static uint64_t cxib_pci_port_wait_ns(void *opaque, unsigned int port)
{
	CxibPciState *s = opaque;

	return port == CXIB_PCI_CABLE_PORT ? cxib_cable_wait_ns(s->cable) : 0;
}

/* CxibCableOps.link: worker. */
static void cxib_pci_cable_link(void *opaque, bool up)
{
	CxibPciState *s = opaque;

	qemu_mutex_lock(&s->fw_lock);
	cxfw_port_link(s->fw, CXIB_PCI_CABLE_PORT, up);
	qemu_mutex_unlock(&s->fw_lock);
}

/* CxibCableOps.receive: worker. */
static void cxib_pci_cable_receive(void *opaque, const void *pkt, size_t len)
{
	CxibPciState *s = opaque;

	qemu_mutex_lock(&s->fw_lock);
	cxfw_port_receive(s->fw, CXIB_PCI_CABLE_PORT, pkt, len);
	qemu_mutex_unlock(&s->fw_lock);
}

static const CxibCableOps cxib_pci_cable_ops = {
	.link = cxib_pci_cable_link,
	.receive = cxib_pci_cable_receive,
	.kick = cxib_pci_kick,
};

/* ---- worker -------------------------------------------------------------------------- */

static void *cxib_pci_worker(void *opaque)
{
	CxibPciState *s = opaque;

	rcu_register_thread();
	while (!qatomic_read(&s->stopping)) {
		struct pollfd pfd[2] = {
			{ .fd = event_notifier_get_fd(&s->kick), .events = POLLIN },
			{ .fd = -1 },
		};
		int timeout = CXIB_PCI_TICK_MS;

		cxib_cable_poll_prepare(s->cable, &pfd[1], &timeout);
		if (poll(pfd, ARRAY_SIZE(pfd), timeout) < 0 && errno != EINTR)
			g_usleep(CXIB_PCI_TICK_MS * 1000);	/* should not happen; don't spin */
		if (qatomic_read(&s->stopping))
			break;
		if (pfd[0].revents & POLLIN)
			event_notifier_test_and_clear(&s->kick);
		cxib_cable_poll_done(s->cable, &pfd[1]);
		qemu_mutex_lock(&s->fw_lock);
		cxfw_process(s->fw);
		qemu_mutex_unlock(&s->fw_lock);
	}
	cxib_cable_stop(s->cable);
	rcu_unregister_thread();
	return NULL;
}

static void cxib_pci_start_worker(CxibPciState *s)
{
	qatomic_set(&s->stopping, false);
	cxib_cable_start(s->cable);
	qemu_thread_create(&s->worker, "cxib-worker", cxib_pci_worker, s, QEMU_THREAD_JOINABLE);
	s->worker_running = true;
}

/* BQL held.  Idempotent. */
static void cxib_pci_stop_worker(CxibPciState *s)
{
	if (!s->worker_running)
		return;
	qatomic_set(&s->stopping, true);
	event_notifier_set(&s->kick);
	qemu_thread_join(&s->worker);
	s->worker_running = false;
}

static void cxib_pci_shutdown_notify(Notifier *n, void *data)
{
	CxibPciState *s = container_of(n, CxibPciState, shutdown_notifier);

	cxib_pci_stop_worker(s);
}

/* ---- qdev ---------------------------------------------------------------------------- */

/*
 * Fault injection: "qom-set <device> inject-fatal <syndrome>" puts the firmware into the
 * fatal state with that health syndrome (health buffer and counter as a crashed firmware
 * leaves them), for the driver's health monitoring and recovery to find.
 */
static void cxib_pci_set_inject_fatal(Object *obj, Visitor *v, const char *name,
				      void *opaque, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	uint8_t synd;

	if (!visit_type_uint8(v, name, &synd, errp))
		return;
	if (!s->fw) {
		error_setg(errp, "%s: only a realized device can be made to fail", name);
		return;
	}
	qemu_mutex_lock(&s->fw_lock);
	cxfw_inject_fatal(s->fw, synd);
	qemu_mutex_unlock(&s->fw_lock);
}

/*
 * Fault injection at run time: "qom-set <device> fault '<KIND> [ARGS]'".  The cable's own
 * faults ("unplug", "replug") are the glue's; "fatal [SYNDROME]" is inject-fatal; every
 * other kind is the core's (cxfw_fault_set(): link loss, duplication, reordering and
 * corruption, health-counter stall, command hang, a failed command, DMA failures, clear).
 * "qom-get <device> fault" returns what is set and what it did, and the cable's state.
 */
static void cxib_pci_set_fault(Object *obj, const char *spec, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	char err[256], kind[16] = "";
	unsigned int synd = 0;
	int n = 0;

	if (!s->fw) {
		error_setg(errp, "fault: only a realized device can be made to fail");
		return;
	}
	sscanf(spec, " %15s%n", kind, &n);
	if (!strcmp(kind, "unplug") || !strcmp(kind, "replug")) {
		if (!s->cable_path) {
			error_setg(errp, "fault %s: port 1 has no cable", kind);
			return;
		}
		cxib_cable_plug(s->cable, kind[0] == 'r');
		return;
	}
	if (!strcmp(kind, "fatal")) {
		if (sscanf(spec + n, " %i", &synd) == 1 && (synd < 1 || synd > UINT8_MAX)) {
			error_setg(errp, "fault fatal [SYNDROME]: a health syndrome 1..255");
			return;
		}
		qemu_mutex_lock(&s->fw_lock);
		cxfw_inject_fatal(s->fw, (uint8_t)synd);
		qemu_mutex_unlock(&s->fw_lock);
		return;
	}
	if (cxfw_fault_set(s->fw, spec, err, sizeof(err)))
		error_setg(errp, "fault: %s%s", err,
			   strstr(err, "unknown fault") ? "; or unplug, replug, fatal [SYNDROME]" :
			   "");
	else
		cxib_pci_kick(s);	/* a cleared hang: the waiting commands run now */
}

static char *cxib_pci_get_fault(Object *obj, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	size_t len;
	char *buf, *out;

	if (!s->fw) {
		error_setg(errp, "fault: the device is not realized");
		return NULL;
	}
	len = cxfw_fault_format(s->fw, NULL, 0) + 1;
	buf = g_malloc(len);
	cxfw_fault_format(s->fw, buf, len);
	out = g_strdup_printf("%s cable=%s", buf,
			      !s->cable_path ? "none" :
			      cxib_cable_plugged(s->cable) ? "plugged" : "unplugged");
	g_free(buf);
	return out;
}

/*
 * Counters: "qom-get <device> stats" returns the model's counters as "name=value ..."
 * (cxfw_stats_format()); the lab shows them next to its measurements.
 */
static char *cxib_pci_get_stats(Object *obj, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	struct cxfw_stats st;
	size_t len;
	char *buf;

	if (!s->fw) {
		error_setg(errp, "stats: the device is not realized");
		return NULL;
	}
	cxfw_get_stats(s->fw, &st);	/* the core's own lock; no fw_lock needed */
	len = cxfw_stats_format(&st, NULL, 0) + 1;
	buf = g_malloc(len);
	cxfw_stats_format(&st, buf, len);
	return buf;
}

/*
 * "qom-get <device> engines": the transport state of every QP past INIT (requester PSNs,
 * timers and window, responder ePSN and open message; cxfw_engines_format()), for a lab
 * whose traffic hangs.  Read under fw_lock, between two of the worker's core calls.
 */
static char *cxib_pci_get_engines(Object *obj, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	size_t len;
	char *buf;

	if (!s->fw) {
		error_setg(errp, "engines: the device is not realized");
		return NULL;
	}
	qemu_mutex_lock(&s->fw_lock);
	len = cxfw_engines_format(s->fw, NULL, 0) + 1;
	buf = g_malloc(len);
	cxfw_engines_format(s->fw, buf, len);
	qemu_mutex_unlock(&s->fw_lock);
	return buf;
}

/*
 * "qom-get <device> cable-stats": what crossed port 1's end of the cable (or loopback plug),
 * with every drop by cause (CxibCableStats), for a lab to tell where a packet went.
 */
static char *cxib_pci_get_cable_stats(Object *obj, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);
	CxibCableStats st;

	if (!s->cable) {
		error_setg(errp, "cable-stats: the device is not realized");
		return NULL;
	}
	cxib_cable_get_stats(s->cable, &st);
	return cxib_cable_stats_format(&st);
}

/*
 * Packet capture: "qom-set <device> capture <path>" starts writing every packet port 1
 * sends to and receives from its cable (or loopback plug) into <path>, truncating it;
 * "" stops and closes the file.  Reading returns the file being written, "" if none.
 * Also settable with -device (capture=<path>), before realize.
 */
static char *cxib_pci_get_capture(Object *obj, Error **errp)
{
	return cxib_capture_path(&CXIB_PCI(obj)->capture);
}

static void cxib_pci_set_capture(Object *obj, const char *path, Error **errp)
{
	CxibPciState *s = CXIB_PCI(obj);

	if (!*path) {
		cxib_capture_stop(&s->capture);
		return;
	}
	cxib_capture_start(&s->capture, path, errp);
}

static void cxib_pci_reset(DeviceState *dev)
{
	CxibPciState *s = CXIB_PCI(dev);
	unsigned int i;

	trace_cxib_pci_reset();
	/* Stop the world: the worker is between two cxfw_process() calls while we hold this. */
	qemu_mutex_lock(&s->fw_lock);
	cxfw_reset(s->fw);
	for (i = 0; i < BITS_TO_LONGS(s->msix_vectors); i++)
		qatomic_set(&s->irq_pending[i], 0);
	qemu_mutex_unlock(&s->fw_lock);
	/* Back from -no-shutdown: the shutdown notifier stopped the worker. */
	if (!s->worker_running)
		cxib_pci_start_worker(s);
}

static void cxib_pci_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val, int len)
{
	pci_default_write_config(pdev, addr, val, len);
	pcie_cap_flr_write_config(pdev, addr, val, len);
}

static bool cxib_pci_check_properties(CxibPciState *s, Error **errp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cxib_pci_device_ids); i++) {
		if (s->device_id == cxib_pci_device_ids[i])
			break;
	}
	if (i == ARRAY_SIZE(cxib_pci_device_ids)) {
		error_setg(errp, "device-id 0x%04x is not a ConnectX-4..8 PF ID "
			   "(0x%04x, 0x%04x, ... 0x%04x)", s->device_id, CXIB_PCI_DEVICE_CX4,
			   CXIB_PCI_DEVICE_CX4_LX, CXIB_PCI_DEVICE_CX8);
		return false;
	}
	if (!s->msix_vectors || s->msix_vectors > CXIB_PCI_MAX_MSIX_VECTORS) {
		error_setg(errp, "msix-vectors must be 1..%u", CXIB_PCI_MAX_MSIX_VECTORS);
		return false;
	}
	if (s->cable_path) {
		struct sockaddr_un sun;

		if (!*s->cable_path || strlen(s->cable_path) >= sizeof(sun.sun_path)) {
			error_setg(errp, "cable path must be 1..%zu characters",
				   sizeof(sun.sun_path) - 1);
			return false;
		}
		if (s->loopback) {
			error_setg(errp, "loopback (a plug) and cable=<socket path> exclude each other");
			return false;
		}
	} else if (s->cable_listen) {
		error_setg(errp, "cable-listen needs cable=<socket path>");
		return false;
	}
	return true;
}

static void cxib_pci_realize(PCIDevice *pdev, Error **errp)
{
	CxibPciState *s = CXIB_PCI(pdev);
	DeviceState *dev = DEVICE(pdev);
	struct cxfw_config cfg;
	int ret;

	if (!cxib_pci_check_properties(s, errp))
		return;
	s->name = dev->id ? g_strdup_printf("%s %s", TYPE_CXIB_PCI, dev->id)
			  : g_strdup(TYPE_CXIB_PCI);
	s->node_guid = s->guid ? s->guid : CXIB_PCI_DERIVED_GUID_PREFIX | s->serial;

	pci_config_set_device_id(pdev->config, s->device_id);
	pci_set_word(pdev->config + PCI_SUBSYSTEM_ID, s->device_id);

	ret = pcie_endpoint_cap_init(pdev, CXIB_PCI_PCIE_CAP_OFFSET);
	if (ret < 0) {
		error_setg_errno(errp, -ret, "cannot add the PCIe capability");
		goto err_name;
	}
	pcie_cap_flr_init(pdev);	/* FLR runs dc->reset through pci_device_reset() */
	pcie_cap_deverr_init(pdev);	/* the driver may enable error reporting */
	/* AER, so errors can be injected (HMP pcie_aer_inject_error) as on a real slot */
	ret = pcie_aer_init(pdev, PCI_ERR_VER, CXIB_PCI_AER_OFFSET, PCI_ERR_SIZEOF, errp);
	if (ret < 0)
		goto err_pcie;

	/* Unregistered by the PCI core if realize fails. */
	memory_region_init_io(&s->bar0, OBJECT(s), &cxib_pci_bar0_ops, s, "cxib-bar0",
			      CXIB_BAR0_SIZE);
	pci_register_bar(pdev, CXIB_BAR0,
			 PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);

	ret = msix_init_exclusive_bar(pdev, s->msix_vectors, CXIB_MSIX_BAR, errp);
	if (ret)
		goto err_aer;
	for (unsigned int v = 0; v < s->msix_vectors; v++)
		msix_vector_use(pdev, v);
	s->irq_pending = bitmap_new(s->msix_vectors);

	ret = event_notifier_init(&s->kick, 0);
	if (ret < 0) {
		error_setg_errno(errp, -ret, "cannot create the worker's eventfd");
		goto err_msix;
	}
	qemu_mutex_init(&s->fw_lock);
	s->cable = cxib_cable_new(&(CxibCableConfig) {
					.path = s->cable_path,
					.listen = s->cable_listen,
					.loopback = s->loopback,
					.port = CXIB_PCI_CABLE_PORT,
					.node_guid = s->node_guid,
					.name = s->name,
					.capture = &s->capture,
				  }, &cxib_pci_cable_ops, s, errp);
	if (!s->cable)
		goto err_kick;

	cxfw_config_defaults(&cfg);
	cfg.pci_device_id = s->device_id;
	cfg.node_guid = s->guid;
	cfg.serial = s->serial;
	cfg.init_delay_ms = s->init_delay_ms;
	cfg.auto_activate = s->auto_activate;
	cfg.strict = s->strict;
	cfg.runtime_pages = s->runtime_pages;
	cfg.num_msix = s->msix_vectors;
	cfg.num_ports = CXIB_PCI_NUM_PORTS;
	s->plat = (struct cxfw_platform) {
		.opaque = s,
		.dma_read = cxib_pci_dma_read,
		.dma_write = cxib_pci_dma_write,
		.msix_notify = cxib_pci_msix_notify,
		.clock_ns = cxib_pci_clock_ns,
		.kick = cxib_pci_kick,
		.port_send = cxib_pci_port_send,
		.port_busy = cxib_pci_port_busy,
		.port_wait_ns = cxib_pci_port_wait_ns,
		.log = cxib_pci_fw_log,
		.cmd_trace = cxib_pci_cmd_trace,
	};
	s->irq_bh = qemu_bh_new_guarded(cxib_pci_irq_bh, s, &dev->mem_reentrancy_guard);
	s->fw = cxfw_create(&cfg, &s->plat);
	if (!s->fw) {
		error_setg(errp, "the cxfw model rejected this configuration");
		goto err_bh;
	}

	if (s->loopback) {
		/* The plug is its own peer: the link is up from power-on and stays up. */
		cxfw_port_link(s->fw, CXIB_PCI_CABLE_PORT, true);
		fprintf(stderr, "%s: loopback plug, link up\n", s->name);
	}
	cxib_pci_start_worker(s);
	s->shutdown_notifier.notify = cxib_pci_shutdown_notify;
	qemu_register_shutdown_notifier(&s->shutdown_notifier);
	return;

err_bh:
	qemu_bh_delete(s->irq_bh);
	s->irq_bh = NULL;
	cxib_cable_free(s->cable);
	s->cable = NULL;
err_kick:
	qemu_mutex_destroy(&s->fw_lock);
	event_notifier_cleanup(&s->kick);
err_msix:
	g_free(s->irq_pending);
	s->irq_pending = NULL;
	msix_uninit_exclusive_bar(pdev);
err_aer:
	pcie_aer_exit(pdev);
err_pcie:
	pcie_cap_exit(pdev);
err_name:
	g_free(s->name);
	s->name = NULL;
}

static void cxib_pci_exit(PCIDevice *pdev)
{
	CxibPciState *s = CXIB_PCI(pdev);

	cxib_pci_stop_worker(s);
	cxib_capture_stop(&s->capture);		/* no packets any more: close the file */
	notifier_remove(&s->shutdown_notifier);
	qemu_bh_delete(s->irq_bh);
	cxfw_destroy(s->fw);
	s->fw = NULL;
	cxib_cable_free(s->cable);	/* closes the listening socket, removes its path */
	s->cable = NULL;
	qemu_mutex_destroy(&s->fw_lock);
	event_notifier_cleanup(&s->kick);
	g_free(s->irq_pending);
	msix_uninit_exclusive_bar(pdev);
	pcie_aer_exit(pdev);
	pcie_cap_exit(pdev);
	g_free(s->name);
}

static const VMStateDescription cxib_pci_vmstate = {
	.name = TYPE_CXIB_PCI,
	.unmigratable = 1,	/* the model's state lives in the core and on the cable */
};

static Property cxib_pci_properties[] = {
	DEFINE_PROP_UINT16("device-id", CxibPciState, device_id, CXIB_PCI_DEVICE_CX4),
	DEFINE_PROP_UINT64("guid", CxibPciState, guid, 0),
	DEFINE_PROP_UINT32("serial", CxibPciState, serial, 0),
	DEFINE_PROP_UINT32("init-delay-ms", CxibPciState, init_delay_ms, 0),
	DEFINE_PROP_UINT32("msix-vectors", CxibPciState, msix_vectors,
			   CXIB_PCI_DEFAULT_MSIX_VECTORS),
	DEFINE_PROP_STRING("cable", CxibPciState, cable_path),
	DEFINE_PROP_BOOL("cable-listen", CxibPciState, cable_listen, false),
	DEFINE_PROP_BOOL("loopback", CxibPciState, loopback, false),
	DEFINE_PROP_BOOL("auto-activate", CxibPciState, auto_activate, true),
	DEFINE_PROP_BOOL("strict", CxibPciState, strict, false),
	DEFINE_PROP_UINT32("runtime-pages", CxibPciState, runtime_pages, 0),
	DEFINE_PROP_END_OF_LIST(),
};

static const struct {
	const char *name, *desc;
} cxib_pci_property_help[] = {
	{ "device-id", "PCI device ID: a ConnectX-4..8 PF (0x1013 ConnectX-4, ...)" },
	{ "guid", "node GUID; 0 derives it from serial" },
	{ "serial", "per-node serial number" },
	{ "init-delay-ms", "time the init segment reports 'initializing' after reset" },
	{ "msix-vectors", "number of MSI-X vectors (1..2048)" },
	{ "cable", "Unix socket path of port 1's cable (another cxib-pci's cable-listen end)" },
	{ "cable-listen", "listen on the cable path instead of connecting to it" },
	{ "loopback", "a loopback plug on port 1: link up, packets sent come back in" },
	{ "auto-activate", "port ACTIVE with its own LID once the link is up (off: INIT, for an SM)" },
	{ "strict", "refuse what real firmware refuses even where lenient is easier (strict.c)" },
	{ "runtime-pages", "pages the firmware asks for (PAGE_REQUEST event) at each new peak of live QPs; 0: none" },
};

static void cxib_pci_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);
	struct cxfw_config defaults;
	Property *p;
	size_t i;

	pc->realize = cxib_pci_realize;
	pc->exit = cxib_pci_exit;
	pc->config_write = cxib_pci_config_write;
	pc->vendor_id = CXIB_PCI_VENDOR_ID;
	pc->device_id = CXIB_PCI_DEVICE_CX4;
	pc->subsystem_vendor_id = CXIB_PCI_VENDOR_ID;
	pc->class_id = CXIB_PCI_CLASS_INFINIBAND;
	pc->revision = 0;

	dc->desc = "ConnectX-class InfiniBand HCA (cxfw model)";
	dc->reset = cxib_pci_reset;
	dc->vmsd = &cxib_pci_vmstate;
	set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);

	/* The core owns the default initialization delay. */
	cxfw_config_defaults(&defaults);
	for (p = cxib_pci_properties; p->name; p++) {
		if (!strcmp(p->name, "init-delay-ms"))
			p->defval.u = defaults.init_delay_ms;
	}
	device_class_set_props(dc, cxib_pci_properties);
	object_class_property_add(klass, "inject-fatal", "uint8", NULL,
				  cxib_pci_set_inject_fatal, NULL, NULL);
	object_class_property_set_description(klass, "inject-fatal",
		"write-only, at run time: firmware-fatal state with this health syndrome");
	object_class_property_add_str(klass, "fault", cxib_pci_get_fault, cxib_pci_set_fault);
	object_class_property_set_description(klass, "fault",
		"at run time: set one fault ('loss 1%', 'unplug', 'cmd-hang on', 'clear', ...; "
		"firmware/qemu/README.md); reading says what is set and what it did");
	object_class_property_add_str(klass, "stats", cxib_pci_get_stats, NULL);
	object_class_property_set_description(klass, "stats",
		"read-only: the model's counters as name=value pairs");
	object_class_property_add_str(klass, "engines", cxib_pci_get_engines, NULL);
	object_class_property_set_description(klass, "engines",
		"read-only: the transport state of every QP past INIT, a few lines each");
	object_class_property_add_str(klass, "cable-stats", cxib_pci_get_cable_stats, NULL);
	object_class_property_set_description(klass, "cable-stats",
		"read-only: port 1's cable counters (packets, bytes, drops by cause) as "
		"name=value pairs");
	object_class_property_add_str(klass, "capture", cxib_pci_get_capture,
				      cxib_pci_set_capture);
	object_class_property_set_description(klass, "capture",
		"pcap file (ERF InfiniBand records) of port 1's packets; also at run time, "
		"\"\" stops");
	object_class_property_add_str(klass, "cmd-trace", cxib_pci_get_cmd_trace,
				      cxib_pci_set_cmd_trace);
	object_class_property_set_description(klass, "cmd-trace",
		"file of one line per executed firmware command (truncated); also at run time, "
		"\"\" stops");
	object_class_property_add_str(klass, "cmd-trace-mark", NULL,
				      cxib_pci_set_cmd_trace_mark);
	object_class_property_set_description(klass, "cmd-trace-mark",
		"write-only, at run time: a \"# mark <text>\" line in the cmd-trace file");
	for (i = 0; i < ARRAY_SIZE(cxib_pci_property_help); i++)
		object_class_property_set_description(klass, cxib_pci_property_help[i].name,
						      cxib_pci_property_help[i].desc);
}

static void cxib_pci_instance_init(Object *obj)
{
	cxib_capture_init(&CXIB_PCI(obj)->capture);
	qemu_mutex_init(&CXIB_PCI(obj)->trace_lock);
}

static void cxib_pci_instance_finalize(Object *obj)
{
	CxibPciState *s = CXIB_PCI(obj);

	cxib_capture_destroy(&s->capture);
	cxib_pci_trace_close(s);
	qemu_mutex_destroy(&s->trace_lock);
}

static const TypeInfo cxib_pci_info = {
	.name = TYPE_CXIB_PCI,
	.parent = TYPE_PCI_DEVICE,
	.instance_size = sizeof(CxibPciState),
	.instance_init = cxib_pci_instance_init,
	.instance_finalize = cxib_pci_instance_finalize,
	.class_init = cxib_pci_class_init,
	.interfaces = (InterfaceInfo[]) {
		{ INTERFACE_PCIE_DEVICE },
		{ }
	},
};

static void cxib_pci_register_types(void)
{
	type_register_static(&cxib_pci_info);
}

type_init(cxib_pci_register_types)
