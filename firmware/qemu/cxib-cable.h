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
 */
#ifndef CXIB_CABLE_H
#define CXIB_CABLE_H

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

#endif /* CXIB_CABLE_H */
