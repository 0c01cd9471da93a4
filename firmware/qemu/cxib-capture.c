/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxib-capture: cable packets into a pcap file of ERF InfiniBand records.  The format and
 * the locking are described in cxib-capture.h.
 */
#include "qemu/osdep.h"

#include "qapi/error.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"

#include "hw/cxib/qemu/cxib-cable.h"
#include "hw/cxib/qemu/cxib-capture.h"

/* pcap file header (all fields in the writer's byte order; we write little-endian). */
#define CXIB_PCAP_MAGIC_USEC		0xa1b2c3d4u	/* microsecond timestamps */
#define CXIB_PCAP_VERSION_MAJOR		2
#define CXIB_PCAP_VERSION_MINOR		4
#define CXIB_PCAP_LINKTYPE_ERF		197
#define CXIB_CAPTURE_SNAPLEN		65535
#define CXIB_PCAP_FILE_HDR_LEN		24
#define CXIB_PCAP_FH_OFF_MAGIC		0
#define CXIB_PCAP_FH_OFF_MAJOR		4
#define CXIB_PCAP_FH_OFF_MINOR		6
#define CXIB_PCAP_FH_OFF_THISZONE	8
#define CXIB_PCAP_FH_OFF_SIGFIGS	12
#define CXIB_PCAP_FH_OFF_SNAPLEN	16
#define CXIB_PCAP_FH_OFF_LINKTYPE	20

/* pcap record header. */
#define CXIB_PCAP_REC_HDR_LEN		16
#define CXIB_PCAP_RH_OFF_SEC		0
#define CXIB_PCAP_RH_OFF_USEC		4
#define CXIB_PCAP_RH_OFF_INCL_LEN	8
#define CXIB_PCAP_RH_OFF_ORIG_LEN	12

/* ERF record header, at the start of every pcap record's data. */
#define CXIB_ERF_HDR_LEN		16
#define CXIB_ERF_OFF_TS			0	/* 64-bit little-endian */
#define CXIB_ERF_OFF_TYPE		8
#define CXIB_ERF_OFF_FLAGS		9
#define CXIB_ERF_OFF_RLEN		10	/* big-endian, header included */
#define CXIB_ERF_OFF_LCTR		12	/* big-endian */
#define CXIB_ERF_OFF_WLEN		14	/* big-endian, the frame on the wire */
#define CXIB_ERF_TYPE_INFINIBAND	21
#define CXIB_ERF_FLAG_IFACE_MASK	0x03	/* capture interface (port A..D) */
#define CXIB_ERF_FLAG_VLEN		0x04	/* varying-length record: no padding */
#define CXIB_ERF_FRAC_SHIFT		32	/* seconds above, binary fraction below */

/* Frames longer than the cable carries cannot occur; they would be cut here. */
#define CXIB_CAPTURE_MAX_FRAME		CXIB_CABLE_MAX_PAYLOAD
#define CXIB_CAPTURE_REC_MAX		(CXIB_PCAP_REC_HDR_LEN + CXIB_ERF_HDR_LEN + \
					 CXIB_CAPTURE_MAX_FRAME)
#define CXIB_CAPTURE_FILE_MODE		0644

QEMU_BUILD_BUG_ON(CXIB_CAPTURE_REC_MAX - CXIB_PCAP_REC_HDR_LEN > CXIB_CAPTURE_SNAPLEN);

void cxib_capture_init(CxibCapture *cap)
{
	qemu_mutex_init(&cap->lock);
	cap->active = false;
	cap->fd = -1;
	cap->path = NULL;
	cap->rec = NULL;
}

void cxib_capture_destroy(CxibCapture *cap)
{
	cxib_capture_stop(cap);
	qemu_mutex_destroy(&cap->lock);
}

/* Lock held: forget the current file. */
static void cxib_capture_close_locked(CxibCapture *cap)
{
	qatomic_set(&cap->active, false);
	if (cap->fd >= 0)
		close(cap->fd);
	cap->fd = -1;
	g_free(cap->path);
	cap->path = NULL;
	g_free(cap->rec);
	cap->rec = NULL;
}

bool cxib_capture_start(CxibCapture *cap, const char *path, Error **errp)
{
	uint8_t fh[CXIB_PCAP_FILE_HDR_LEN] = { 0 };
	int fd;

	fd = qemu_create(path, O_WRONLY | O_TRUNC, CXIB_CAPTURE_FILE_MODE, errp);
	if (fd < 0)
		return false;
	stl_le_p(fh + CXIB_PCAP_FH_OFF_MAGIC, CXIB_PCAP_MAGIC_USEC);
	stw_le_p(fh + CXIB_PCAP_FH_OFF_MAJOR, CXIB_PCAP_VERSION_MAJOR);
	stw_le_p(fh + CXIB_PCAP_FH_OFF_MINOR, CXIB_PCAP_VERSION_MINOR);
	stl_le_p(fh + CXIB_PCAP_FH_OFF_THISZONE, 0);
	stl_le_p(fh + CXIB_PCAP_FH_OFF_SIGFIGS, 0);
	stl_le_p(fh + CXIB_PCAP_FH_OFF_SNAPLEN, CXIB_CAPTURE_SNAPLEN);
	stl_le_p(fh + CXIB_PCAP_FH_OFF_LINKTYPE, CXIB_PCAP_LINKTYPE_ERF);
	if (qemu_write_full(fd, fh, sizeof(fh)) != (ssize_t)sizeof(fh)) {
		error_setg_errno(errp, errno, "cannot write the capture file header to %s", path);
		close(fd);
		return false;
	}

	qemu_mutex_lock(&cap->lock);
	cxib_capture_close_locked(cap);
	cap->fd = fd;
	cap->path = g_strdup(path);
	cap->rec = g_malloc(CXIB_CAPTURE_REC_MAX);
	qatomic_set(&cap->active, true);
	qemu_mutex_unlock(&cap->lock);
	return true;
}

void cxib_capture_stop(CxibCapture *cap)
{
	qemu_mutex_lock(&cap->lock);
	cxib_capture_close_locked(cap);
	qemu_mutex_unlock(&cap->lock);
}

char *cxib_capture_path(CxibCapture *cap)
{
	char *path;

	qemu_mutex_lock(&cap->lock);
	path = g_strdup(cap->path ? cap->path : "");
	qemu_mutex_unlock(&cap->lock);
	return path;
}

void cxib_capture_packet(CxibCapture *cap, enum cxib_capture_dir dir, const void *pkt,
			 size_t len)
{
	size_t caplen = MIN(len, CXIB_CAPTURE_MAX_FRAME);
	size_t reclen = CXIB_PCAP_REC_HDR_LEN + CXIB_ERF_HDR_LEN + caplen;
	uint64_t frac;
	struct timespec ts;
	uint8_t *rh, *erf;

	if (!qatomic_read(&cap->active))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	frac = ((uint64_t)ts.tv_nsec << CXIB_ERF_FRAC_SHIFT) / NANOSECONDS_PER_SECOND;

	qemu_mutex_lock(&cap->lock);
	if (cap->fd < 0) {
		qemu_mutex_unlock(&cap->lock);	/* stopped since the check above */
		return;
	}
	rh = cap->rec;
	erf = rh + CXIB_PCAP_REC_HDR_LEN;
	stl_le_p(rh + CXIB_PCAP_RH_OFF_SEC, ts.tv_sec);
	stl_le_p(rh + CXIB_PCAP_RH_OFF_USEC, ts.tv_nsec / SCALE_US);
	stl_le_p(rh + CXIB_PCAP_RH_OFF_INCL_LEN, CXIB_ERF_HDR_LEN + caplen);
	stl_le_p(rh + CXIB_PCAP_RH_OFF_ORIG_LEN, CXIB_ERF_HDR_LEN + len);
	stq_le_p(erf + CXIB_ERF_OFF_TS, (uint64_t)ts.tv_sec << CXIB_ERF_FRAC_SHIFT | frac);
	erf[CXIB_ERF_OFF_TYPE] = CXIB_ERF_TYPE_INFINIBAND;
	erf[CXIB_ERF_OFF_FLAGS] = (dir & CXIB_ERF_FLAG_IFACE_MASK) | CXIB_ERF_FLAG_VLEN;
	stw_be_p(erf + CXIB_ERF_OFF_RLEN, CXIB_ERF_HDR_LEN + caplen);
	stw_be_p(erf + CXIB_ERF_OFF_LCTR, 0);
	stw_be_p(erf + CXIB_ERF_OFF_WLEN, MIN(len, UINT16_MAX));
	memcpy(erf + CXIB_ERF_HDR_LEN, pkt, caplen);
	/* One write per record: a reader of the growing file never sees half of one. */
	if (qemu_write_full(cap->fd, rh, reclen) != (ssize_t)reclen) {
		error_report("cxib-pci: capture to %s failed (%s); capture stopped", cap->path,
			     g_strerror(errno));
		cxib_capture_close_locked(cap);
	}
	qemu_mutex_unlock(&cap->lock);
}
