/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxib-capture: the packets of a cxib-pci cable, written to a pcap file that Wireshark and
 * tshark decode as InfiniBand.
 *
 * Why not pcap link type 247 (LINKTYPE_INFINIBAND)?  Debian 12's Wireshark 4.0 cannot read
 * it.  What it reads is what Mellanox's ibdump writes: link type 197 (LINKTYPE_ERF), every
 * record an Endace ERF record of type 21 (InfiniBand).  The file:
 *
 *	pcap file header (24 bytes, little-endian)
 *	    magic 0xa1b2c3d4 (microsecond timestamps), version 2.4, zone 0, sigfigs 0,
 *	    snaplen CXIB_CAPTURE_SNAPLEN, link type 197
 *	per packet:
 *	    pcap record header (16 bytes, little-endian): seconds, microseconds,
 *	        captured length, original length (both 16 + the IB frame's length)
 *	    ERF header (16 bytes):
 *	        0   8  timestamp, little-endian: seconds << 32 | binary fraction of a second
 *	        8   1  type 21 (InfiniBand)
 *	        9   1  flags: bits 1:0 capture interface, bit 2 varying-length record
 *	        10  2  rlen, big-endian: 16 + frame length
 *	        12  2  lctr (loss counter) 0
 *	        14  2  wlen, big-endian: frame length
 *	    the InfiniBand frame as it was on the cable: LRH [GRH] BTH ... ICRC VCRC
 *
 * The capture interface tells the two directions apart (field erf.flags.cap; some tools
 * call the interfaces ports A and B): 0 for packets the device sent, 1 for packets it
 * received.  Timestamps come from the host's realtime clock.
 *
 * Thread safety: every function may be called from any thread.  A mutex serialises the
 * writers; each record goes to the file in a single write() while it is held, so a reader
 * sees whole records as soon as they are written, even while the capture is still running
 * or after QEMU was killed.  The mutex is a leaf: nothing else is locked while it is held.
 */
#ifndef CXIB_CAPTURE_H
#define CXIB_CAPTURE_H

#include "qemu/thread.h"

/* The ERF capture interface of a record. */
enum cxib_capture_dir {
	CXIB_CAPTURE_SENT	= 0,	/* the device put it on the cable */
	CXIB_CAPTURE_RECEIVED	= 1,	/* it arrived from the cable */
};

typedef struct CxibCapture {
	QemuMutex lock;
	bool active;		/* atomic: a file is open (checked without the lock) */
	int fd;			/* lock: the open capture file, or -1 */
	char *path;		/* lock: its path, NULL when not capturing */
	uint8_t *rec;		/* lock: one record being assembled */
} CxibCapture;

void cxib_capture_init(CxibCapture *cap);
void cxib_capture_destroy(CxibCapture *cap);

/*
 * Start capturing into @path (created or truncated, the pcap file header written at once).
 * A capture already running is replaced, but only once the new file is open: on failure
 * the error is set, false returned and the old capture carries on.
 */
bool cxib_capture_start(CxibCapture *cap, const char *path, Error **errp);

/* Stop capturing and close the file (nothing to do if no capture runs). */
void cxib_capture_stop(CxibCapture *cap);

/* The file being written, "" when not capturing; g_free() it. */
char *cxib_capture_path(CxibCapture *cap);

/*
 * Append one packet (@len bytes, LRH through VCRC) seen in direction @dir.  Costs one
 * atomic read when no capture runs.  A failing write is reported once and ends the capture.
 */
void cxib_capture_packet(CxibCapture *cap, enum cxib_capture_dir dir, const void *pkt,
			 size_t len);

#endif /* CXIB_CAPTURE_H */
