# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of the pure parts of `cxlab bench --ipoib` (scripts/lib/cxlab/netbench.py).

Run: python3 -m unittest discover -s scripts/tests -t scripts/tests
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))
from cxlab import netbench as nb  # noqa: E402
from cxlab.scenarios import E2E_DIR as E2E  # noqa: E402

# iperf3 3.12 -J, trimmed to what is read; a job's output has script lines before it.
IPERF_TCP = "BENCH-INFO: path=ipoib-connected dst=198.51.100.1 ib0_mode=connected\n" + \
    json.dumps({"start": {}, "intervals": [],
                "end": {"sum_sent": {"bytes": 300000000, "bits_per_second": 480.5e6},
                        "sum_received": {"bytes": 290000000, "bits_per_second": 470.25e6}}},
               indent=1)
IPERF_ERR = json.dumps({"start": {}, "intervals": [], "end": {},
                        "error": "unable to connect to server: Connection refused"})

PING = """\
PING 198.51.100.1 (198.51.100.1) 56(84) bytes of data.
64 bytes from 198.51.100.1: icmp_seq=1 ttl=64 time=2.17 ms

--- 198.51.100.1 ping statistics ---
50 packets transmitted, 50 received, 0% packet loss, time 2505ms
rtt min/avg/max/mdev = 0.912/1.733/3.561/0.585 ms
"""
PING_NONE = """\
--- 198.51.100.1 ping statistics ---
50 packets transmitted, 0 received, 100% packet loss, time 2505ms
"""


class Parsing(unittest.TestCase):
    def test_iperf3_receiver_rate_in_mbit(self):
        self.assertAlmostEqual(nb.parse_iperf3(IPERF_TCP), 470.25)

    def test_iperf3_error_is_reported(self):
        with self.assertRaisesRegex(nb.ParseError, "Connection refused"):
            nb.parse_iperf3(IPERF_ERR)

    def test_iperf3_no_json(self):
        with self.assertRaisesRegex(nb.ParseError, "no iperf3 JSON"):
            nb.parse_iperf3("iperf3: error - unable to connect\n")

    def test_ping_average_and_counts(self):
        self.assertEqual(nb.parse_ping(PING), (1.733, 50, 50))

    def test_ping_without_reply(self):
        with self.assertRaisesRegex(nb.ParseError, "no reply"):
            nb.parse_ping(PING_NONE)

    def test_outcome_prefers_the_script_error(self):
        r = nb.outcome("tcp_bw", "BENCH-ERROR: ib0 has no carrier (is the SM up?)\n", "FAIL")
        self.assertEqual(r, {"status": "failed", "reason": "ib0 has no carrier (is the SM up?)"})

    def test_outcome_ok(self):
        self.assertEqual(nb.outcome("ping_rtt", PING, "pass"),
                         {"status": "ok", "value": 1.733, "sent": 50, "received": 50})


class Rows(unittest.TestCase):
    def results(self):
        return {("tcp_bw", "ipoib-datagram"): {"status": "ok", "value": 250.0},
                ("tcp_bw", "ipoib-datagram-nooffload"): {"status": "ok", "value": 100.0},
                ("tcp_bw", "ipoib-connected"): {"status": "ok", "value": 480.0},
                ("tcp_bw", "virtio-net"): {"status": "ok", "value": 400.0},
                ("ping_rtt", "ipoib-datagram"): {"status": "ok", "value": 1.5},
                ("ping_rtt", "ipoib-connected"): {"status": "failed", "reason": "no reply"},
                ("ping_rtt", "virtio-net"): {"status": "ok", "value": 3.0}}

    def test_ratios_against_virtio_net(self):
        rows = nb.make_rows(self.results())
        bw, rtt = rows
        self.assertAlmostEqual(bw["ipoib-datagram vs virtio-net"], 0.625)
        self.assertAlmostEqual(bw["ipoib-connected vs virtio-net"], 1.2)
        self.assertAlmostEqual(bw["ipoib-datagram-nooffload vs virtio-net"], 0.25)
        self.assertNotIn("ipoib-datagram-nooffload", rtt)  # not run: no column value
        self.assertAlmostEqual(rtt["ipoib-datagram vs virtio-net"], 2.0)  # lower RTT: better
        self.assertIsNone(rtt["ipoib-connected vs virtio-net"])

    def test_table(self):
        headers, rows = nb.build_table(nb.make_rows(self.results()))
        self.assertEqual(headers, ["test", "ipoib-datagram", "ipoib-datagram-nooffload",
                                   "ipoib-connected", "virtio-net",
                                   "ipoib-datagram vs virtio-net",
                                   "ipoib-datagram-nooffload vs virtio-net",
                                   "ipoib-connected vs virtio-net"])
        self.assertEqual(rows[0], ["tcp_bw", "250 Mbit/s", "100 Mbit/s", "480 Mbit/s",
                                   "400 Mbit/s", "0.62x", "0.25x", "1.20x"])
        self.assertEqual(rows[1][2], "not run")
        self.assertEqual(rows[1][3], "failed: no reply")
        self.assertEqual(rows[1][7], "-")

    def test_document_is_json_and_names_the_missing_baseline(self):
        doc = nb.document(nb.make_rows(self.results()), "/r")
        json.dumps(doc, allow_nan=False)
        self.assertIn("Soft-RoCE has no IPoIB", doc["baseline_rxe"])
        self.assertTrue(doc["complete"])

    def test_guest_script_sets_the_rows_variables_and_sources_the_guest_side(self):
        s = nb.guest_script("tcp_bw", "ipoib-connected")
        self.assertTrue(s.startswith("#!/bin/bash\n"))
        self.assertIn("TEST='tcp_bw' PATHNAME='ipoib-connected' SECS=", s)
        self.assertIn(f"NET='{nb.IPOIB_NET}' SERVER='node1' CLIENT='node2'", s)
        self.assertTrue(s.endswith(". /cxlab/e2e/bench_ipoib.sh\n"))

    def test_guest_side_sets_the_offloads_per_path(self):
        with open(os.path.join(E2E, nb.GUEST_SCRIPT)) as f:
            s = f.read()
        self.assertFalse(s.startswith("#!"))   # sourced, not a scenario
        self.assertIn('[ "$PATHNAME" = ipoib-datagram-nooffload ] && offl=off', s)
        self.assertIn("ethtool -K ib0 tx $offl rx $offl tso $offl", s)
        for var in ("TEST", "PATHNAME", "SECS", "COUNT", "NET", "SERVER"):
            self.assertIn("$" + var, s)

if __name__ == "__main__":
    unittest.main()
