# SPDX-License-Identifier: GPL-2.0-only
"""Cable captures of cxib-pci nodes: switch them over QMP, summarise the files.

Standard library only.  The file format is the one firmware/qemu/cxib-capture.h writes
(Documentation/lab.md, "Capturing a cable"): pcap, link type 197 (ERF), each record a
16-byte ERF header of type 21 (InfiniBand) and the packet LRH [GRH] BTH ... ICRC VCRC; the
ERF capture interface is the direction (0 sent by the node, 1 received).

    set_capture(qmp_sock, "/tmp/n1.pcap")      # start (truncates)
    set_capture(qmp_sock, "")                  # stop
    get_capture(qmp_sock)                      # the file being written, "" if none
    print(format_summary(summarise(read_capture("/tmp/n1.pcap"))))
"""

import json
import socket
import struct
import sys

DEVICE = "/machine/peripheral/hca1"     # cxlab's -device cxib-pci,id=hca1

PCAP_MAGIC_USEC = 0xA1B2C3D4
PCAP_FILE_HDR = struct.Struct("<IHHiIII")
PCAP_REC_HDR = struct.Struct("<IIII")
LINKTYPE_ERF = 197
ERF_HDR_LEN = 16
ERF_TYPE_INFINIBAND = 21
ERF_IFACE_MASK = 0x03
DIRECTIONS = {0: "sent", 1: "received"}

LRH_LEN, GRH_LEN, BTH_LEN, DETH_LEN = 8, 40, 12, 8
LNH_GLOBAL = 3
MAD_QPS = (0, 1)
UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x64, 0x65

OPCODE_NAMES = {
    0x00: "RC SEND_FIRST", 0x01: "RC SEND_MIDDLE", 0x02: "RC SEND_LAST",
    0x03: "RC SEND_LAST_IMM", 0x04: "RC SEND_ONLY", 0x05: "RC SEND_ONLY_IMM",
    0x06: "RC WRITE_FIRST", 0x07: "RC WRITE_MIDDLE", 0x08: "RC WRITE_LAST",
    0x09: "RC WRITE_LAST_IMM", 0x0A: "RC WRITE_ONLY", 0x0B: "RC WRITE_ONLY_IMM",
    0x0C: "RC READ_REQUEST", 0x0D: "RC READ_RESPONSE_FIRST", 0x0E: "RC READ_RESPONSE_MIDDLE",
    0x0F: "RC READ_RESPONSE_LAST", 0x10: "RC READ_RESPONSE_ONLY", 0x11: "RC ACK",
    0x12: "RC ATOMIC_ACK", 0x13: "RC CMP_SWAP", 0x14: "RC FETCH_ADD",
    0x16: "RC SEND_LAST_INV", 0x17: "RC SEND_ONLY_INV",
    0x20: "UC SEND_FIRST", 0x21: "UC SEND_MIDDLE", 0x22: "UC SEND_LAST",
    0x23: "UC SEND_LAST_IMM", 0x24: "UC SEND_ONLY", 0x25: "UC SEND_ONLY_IMM",
    0x26: "UC WRITE_FIRST", 0x27: "UC WRITE_MIDDLE", 0x28: "UC WRITE_LAST",
    0x29: "UC WRITE_LAST_IMM", 0x2A: "UC WRITE_ONLY", 0x2B: "UC WRITE_ONLY_IMM",
    0x64: "UD SEND_ONLY", 0x65: "UD SEND_ONLY_IMM",
}
MAD_CLASS_NAMES = {0x01: "SMP (LID routed)", 0x81: "SMP (directed route)", 0x03: "SA",
                   0x04: "PMA", 0x05: "BM", 0x06: "DevMgt", 0x07: "CM", 0x08: "SNMP"}


class CaptureError(Exception):
    pass


# ---- QMP -----------------------------------------------------------------------------------

def qmp(sock_path, command, timeout=10.0, **arguments):
    """Run one QMP command on the node's QMP socket; its "return", or CaptureError."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(sock_path)
        except OSError as e:
            raise CaptureError(f"cannot connect to QMP at {sock_path}: {e}") from e
        f = s.makefile("rw", encoding="utf-8")

        def reply():
            while True:
                line = f.readline()
                if not line:
                    raise CaptureError(f"QMP at {sock_path} closed the connection")
                msg = json.loads(line)
                if "event" not in msg:
                    return msg

        reply()                                             # the greeting
        for cmd, args in (("qmp_capabilities", {}), (command, arguments)):
            f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
            f.flush()
            msg = reply()
            if "error" in msg:
                raise CaptureError(f"{cmd}: {msg['error'].get('desc', msg['error'])}")
        return msg.get("return")


def set_capture(sock_path, path, device=DEVICE):
    """Start capturing into @path (truncated) or, with "", stop."""
    qmp(sock_path, "qom-set", path=device, property="capture", value=path)


def get_capture(sock_path, device=DEVICE):
    return qmp(sock_path, "qom-get", path=device, property="capture")


# ---- the file ------------------------------------------------------------------------------

def parse_capture(data):
    """Records of a capture file's bytes: dicts with time, direction, frame.  A torn last
    record (the file is still being written) is ignored."""
    if len(data) < PCAP_FILE_HDR.size:
        raise CaptureError(f"{len(data)} bytes: not a pcap file")
    magic, major, minor, _, _, _, linktype = PCAP_FILE_HDR.unpack_from(data)
    if magic != PCAP_MAGIC_USEC or (major, minor) != (2, 4):
        raise CaptureError(f"not a little-endian microsecond pcap file (magic {magic:#x})")
    if linktype != LINKTYPE_ERF:
        raise CaptureError(f"link type {linktype}, not {LINKTYPE_ERF} (ERF)")
    recs, off = [], PCAP_FILE_HDR.size
    while off + PCAP_REC_HDR.size <= len(data):
        sec, usec, incl, _ = PCAP_REC_HDR.unpack_from(data, off)
        body = data[off + PCAP_REC_HDR.size:off + PCAP_REC_HDR.size + incl]
        if len(body) < incl:
            break
        off += PCAP_REC_HDR.size + incl
        if incl < ERF_HDR_LEN or body[8] != ERF_TYPE_INFINIBAND:
            raise CaptureError(f"record {len(recs) + 1}: not an ERF InfiniBand record")
        wlen = struct.unpack_from(">H", body, 14)[0]
        recs.append({"time": sec + usec / 1e6, "direction": body[9] & ERF_IFACE_MASK,
                     "wlen": wlen, "frame": bytes(body[ERF_HDR_LEN:])})
    return recs


def read_capture(path):
    with open(path, "rb") as f:
        return parse_capture(f.read())


def decode(frame):
    """(opcode, destination QP, MAD class or None) of an IB frame; None if too short."""
    if len(frame) < LRH_LEN + BTH_LEN:
        return None
    bth = LRH_LEN + (GRH_LEN if frame[1] & 0x3 == LNH_GLOBAL else 0)
    if len(frame) < bth + BTH_LEN:
        return None
    opcode = frame[bth]
    dqp = int.from_bytes(frame[bth + 5:bth + 8], "big")
    mad_class = None
    if opcode in (UD_SEND_ONLY, UD_SEND_ONLY_IMM) and dqp in MAD_QPS:
        mad = bth + BTH_LEN + DETH_LEN + (4 if opcode == UD_SEND_ONLY_IMM else 0)
        if len(frame) > mad + 1:
            mad_class = frame[mad + 1]
    return opcode, dqp, mad_class


def summarise(records):
    """Counts: total, per direction, per (direction, opcode name), per (direction, MAD class
    name)."""
    out = {"packets": len(records), "bytes": sum(len(r["frame"]) for r in records),
           "directions": {}, "opcodes": {}, "mad_classes": {}}
    for r in records:
        d = DIRECTIONS.get(r["direction"], f"if{r['direction']}")
        out["directions"][d] = out["directions"].get(d, 0) + 1
        dec = decode(r["frame"])
        name = "short" if dec is None else OPCODE_NAMES.get(dec[0], f"opcode {dec[0]:#04x}")
        out["opcodes"][(d, name)] = out["opcodes"].get((d, name), 0) + 1
        if dec and dec[2] is not None:
            cls = MAD_CLASS_NAMES.get(dec[2], f"class {dec[2]:#04x}")
            out["mad_classes"][(d, cls)] = out["mad_classes"].get((d, cls), 0) + 1
    return out


def format_summary(s):
    lines = [f"{s['packets']} packets, {s['bytes']} bytes: " +
             ", ".join(f"{n} {d}" for d, n in sorted(s["directions"].items()))]
    for title, key in (("opcode", "opcodes"), ("MAD class", "mad_classes")):
        for (d, name), n in sorted(s[key].items()):
            lines.append(f"  {d:<8} {title:<9} {name:<24} {n}")
    return "\n".join(lines)


def main(argv):
    """cxcap.py start QMP_SOCK FILE | stop QMP_SOCK | status QMP_SOCK | summary FILE"""
    try:
        if len(argv) == 3 and argv[0] == "start":
            set_capture(argv[1], argv[2])
        elif len(argv) == 2 and argv[0] == "stop":
            set_capture(argv[1], "")
        elif len(argv) == 2 and argv[0] == "status":
            print(get_capture(argv[1]) or "not capturing")
        elif len(argv) == 2 and argv[0] == "summary":
            print(format_summary(summarise(read_capture(argv[1]))))
        else:
            print("usage: " + main.__doc__, file=sys.stderr)
            return 2
    except (CaptureError, OSError) as e:
        print(f"cxcap: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
