# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of scripts/lib/cxcap.py: capture files and the QMP calls (a fake QMP server).

Run: python3 -m unittest discover -s scripts/tests -t scripts/tests
"""

import json
import os
import socket
import struct
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))
import cxcap  # noqa: E402


def frame(opcode, dqp, payload=b"", grh=False):
    """An IB frame (CRCs zero: cxcap does not check them)."""
    lrh = bytes([0xF0 if dqp == 0 else 0, 0x3 if grh else 0x2]) + bytes(6)
    bth = bytes([opcode, 0, 0xFF, 0xFF, 0]) + dqp.to_bytes(3, "big") + bytes(4)
    return lrh + (bytes(40) if grh else b"") + bth + payload + bytes(6)


def mad_frame(mgmt_class, dqp):
    mad = bytes([1, mgmt_class, 1, 1]) + bytes(252)
    return frame(0x64, dqp, bytes(8) + mad)


def capture(records, linktype=197):
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
    for i, (direction, f) in enumerate(records):
        erf = struct.pack("<QBB", (1000 + i) << 32, 21, direction | 4) + \
            struct.pack(">HHH", 16 + len(f), 0, len(f))
        out += struct.pack("<IIII", 1000 + i, 0, 16 + len(f), 16 + len(f)) + erf + f
    return bytes(out)


class CaptureFile(unittest.TestCase):
    RECS = [(1, mad_frame(0x81, 0)), (0, mad_frame(0x81, 0)), (1, mad_frame(0x04, 1)),
            (0, frame(0x04, 0x123, b"x" * 8)), (1, frame(0x11, 0x456)),
            (0, frame(0x0A, 0x123, b"y" * 4, grh=True))]

    def test_parse(self):
        recs = cxcap.parse_capture(capture(self.RECS))
        self.assertEqual([r["direction"] for r in recs], [1, 0, 1, 0, 1, 0])
        self.assertEqual(recs[3]["frame"], self.RECS[3][1])
        self.assertEqual(recs[2]["time"], 1002)
        self.assertEqual(recs[0]["wlen"], len(self.RECS[0][1]))

    def test_torn_last_record_ignored(self):
        data = capture(self.RECS)
        self.assertEqual(len(cxcap.parse_capture(data[:-3])), len(self.RECS) - 1)

    def test_empty_capture(self):
        self.assertEqual(cxcap.parse_capture(capture([])), [])

    def test_rejects_other_files(self):
        with self.assertRaises(cxcap.CaptureError):
            cxcap.parse_capture(capture([], linktype=247))
        with self.assertRaises(cxcap.CaptureError):
            cxcap.parse_capture(b"\x0a\x0d\x0d\x0a" + bytes(40))
        with self.assertRaises(cxcap.CaptureError):
            cxcap.parse_capture(b"")

    def test_decode(self):
        self.assertEqual(cxcap.decode(mad_frame(0x04, 1)), (0x64, 1, 0x04))
        self.assertEqual(cxcap.decode(frame(0x04, 0x123)), (0x04, 0x123, None))
        self.assertEqual(cxcap.decode(frame(0x0A, 0x123, grh=True)), (0x0A, 0x123, None))
        self.assertEqual(cxcap.decode(frame(0x64, 0x99, bytes(12))), (0x64, 0x99, None))
        self.assertIsNone(cxcap.decode(bytes(10)))

    def test_summary(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.pcap")
            with open(path, "wb") as f:
                f.write(capture(self.RECS))
            s = cxcap.summarise(cxcap.read_capture(path))
        self.assertEqual(s["packets"], 6)
        self.assertEqual(s["directions"], {"sent": 3, "received": 3})
        self.assertEqual(s["mad_classes"], {("received", "SMP (directed route)"): 1,
                                            ("sent", "SMP (directed route)"): 1,
                                            ("received", "PMA"): 1})
        self.assertEqual(s["opcodes"][("sent", "UD SEND_ONLY")], 1)
        self.assertEqual(s["opcodes"][("received", "RC ACK")], 1)
        self.assertEqual(s["opcodes"][("sent", "RC WRITE_ONLY")], 1)
        text = cxcap.format_summary(s)
        self.assertTrue(text.startswith("6 packets, "))
        self.assertIn("3 received, 3 sent", text)
        self.assertIn("PMA", text)


class FakeQMP:
    """A QMP server on a Unix socket that keeps a capture property like cxib-pci does."""

    def __init__(self, path):
        self.path, self.capture, self.seen = path, "", []
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(4)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.srv.accept()
            except OSError:
                return
            with conn, conn.makefile("rw") as f:
                f.write(json.dumps({"QMP": {"version": {}, "capabilities": []}}) + "\n")
                f.write(json.dumps({"event": "RESUME"}) + "\n")
                f.flush()
                for line in f:
                    msg = json.loads(line)
                    self.seen.append(msg)
                    f.write(json.dumps(self.answer(msg)) + "\n")
                    f.flush()

    def answer(self, msg):
        cmd, args = msg["execute"], msg.get("arguments", {})
        if cmd == "qmp_capabilities":
            return {"return": {}}
        if args.get("path") != cxcap.DEVICE or args.get("property") != "capture":
            return {"error": {"class": "GenericError", "desc": "no such property"}}
        if cmd == "qom-get":
            return {"return": self.capture}
        if args["value"].startswith("/nonexistent/"):
            return {"error": {"class": "GenericError",
                              "desc": f"Could not create '{args['value']}'"}}
        self.capture = args["value"]
        return {"return": {}}

    def close(self):
        self.srv.close()


class QMPCalls(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.sock = os.path.join(self.tmp.name, "qmp.sock")
        self.qmp = FakeQMP(self.sock)

    def tearDown(self):
        self.qmp.close()
        self.tmp.cleanup()

    def test_start_get_stop(self):
        cxcap.set_capture(self.sock, "/tmp/n1.pcap")
        self.assertEqual(cxcap.get_capture(self.sock), "/tmp/n1.pcap")
        cxcap.set_capture(self.sock, "")
        self.assertEqual(cxcap.get_capture(self.sock), "")
        sets = [m for m in self.qmp.seen if m["execute"] == "qom-set"]
        self.assertEqual(sets[0]["arguments"], {"path": "/machine/peripheral/hca1",
                                                "property": "capture",
                                                "value": "/tmp/n1.pcap"})

    def test_error_is_raised(self):
        with self.assertRaisesRegex(cxcap.CaptureError, "Could not create"):
            cxcap.set_capture(self.sock, "/nonexistent/x.pcap")

    def test_no_socket(self):
        with self.assertRaisesRegex(cxcap.CaptureError, "cannot connect"):
            cxcap.get_capture(os.path.join(self.tmp.name, "missing.sock"))


class CommandLine(unittest.TestCase):
    def test_summary_and_usage(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.pcap")
            with open(path, "wb") as f:
                f.write(capture(CaptureFile.RECS))
            self.assertEqual(cxcap.main(["summary", path]), 0)
            self.assertEqual(cxcap.main(["summary", os.path.join(tmp, "none.pcap")]), 1)
        self.assertEqual(cxcap.main(["bogus"]), 2)


if __name__ == "__main__":
    unittest.main()
