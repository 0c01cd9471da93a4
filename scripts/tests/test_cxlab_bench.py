# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of the pure parts of `cxlab bench` (scripts/lib/cxlab/bench.py).

Run: python3 -m unittest discover -s scripts/tests -t scripts/tests
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))
from cxlab import bench as b  # noqa: E402
from cxlab.common import LabError  # noqa: E402
from cxlab.results import JobResult, Status  # noqa: E402

# Outputs in the shape perftest prints them (Debian bookworm perftest 23.04 and later).
WRITE_BW = """\
---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF		Device         : rxe0
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 Mtu             : 4096[B]
 Link type       : Ethernet
 GID index       : 1
---------------------------------------------------------------------------------------
 local address: LID 0000 QPN 0x0011 PSN 0x9c1b2a RKey 0x0013f2 VAddr 0x007f3a5c1f0000
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:02
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      500              57.02              52.83  		   0.000845
---------------------------------------------------------------------------------------
"""

WRITE_LAT = """\
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 2       1000          390.21         2210.40      421.77             455.10         80.33           812.00                 2210.40  
---------------------------------------------------------------------------------------
"""

OLD_LAT = """\
 #bytes #iterations    t_min[usec]    t_max[usec]  t_avg[usec]
 2       1000          3.10           9.40         3.55
"""

FAIL_NO_DEV = """\
BENCH-INFO: dev=cxib_0 link_layer=InfiniBand
 IB device cxib_0 not found
 Unable to find the Infiniband/RoCE device
"""


class ParsePerftest(unittest.TestCase):
    def test_bw_takes_the_average_column(self):
        r = b.parse_perftest(WRITE_BW, "bw")
        self.assertEqual(r["bytes"], 65536)
        self.assertEqual(r["iterations"], 500)
        self.assertEqual(r["value"], 52.83)
        self.assertEqual(r["unit"], "MB/s")
        self.assertEqual(r["fields"]["BW peak[MB/sec]"], 57.02)
        self.assertEqual(r["column"], "BW average[MB/sec]")

    def test_lat_takes_the_median(self):
        r = b.parse_perftest(WRITE_LAT, "lat")
        self.assertEqual(r["value"], 421.77)
        self.assertEqual(r["unit"], "usec")
        self.assertEqual(r["fields"]["t_avg[usec]"], 455.10)
        self.assertEqual(r["fields"]["99% percentile[usec]"], 812.00)

    def test_lat_without_typical_falls_back_to_avg(self):
        r = b.parse_perftest(OLD_LAT, "lat")
        self.assertEqual(r["value"], 3.55)
        self.assertEqual(r["column"], "t_avg[usec]")

    def test_no_table_is_a_failure_not_a_number(self):
        with self.assertRaises(b.ParseError):
            b.parse_perftest(FAIL_NO_DEV, "bw")
        with self.assertRaises(b.ParseError):
            b.parse_perftest("", "lat")

    def test_header_without_a_row_is_a_failure(self):
        txt = WRITE_BW.split(" 65536 ")[0] + "\n Couldn't post send\n"
        with self.assertRaises(b.ParseError):
            b.parse_perftest(txt, "bw")

    def test_bw_table_parsed_as_lat_has_no_latency(self):
        with self.assertRaises(b.ParseError):
            b.parse_perftest(WRITE_BW, "lat")


class Reasons(unittest.TestCase):
    def test_bench_error_wins(self):
        out = "x\nBENCH-ERROR: cxib_0 has no uverbs device: no userspace verbs\n"
        self.assertEqual(b.failure_reason(out, "Couldn't connect"),
                         "cxib_0 has no uverbs device: no userspace verbs")

    def test_first_perftest_error_line(self):
        self.assertEqual(b.failure_reason(FAIL_NO_DEV), "IB device cxib_0 not found")

    def test_counter_lines_are_not_reasons(self):
        out = ("BENCH-HWC-BEFORE: req_cqe_error=0 out_of_sequence=0\n"
               "Couldn't allocate MR\nfailed to create mr\n")
        self.assertEqual(b.failure_reason(out), "Couldn't allocate MR")

    def test_server_side_when_the_client_said_nothing(self):
        self.assertEqual(b.failure_reason("", " Couldn't create QP\n"), "Couldn't create QP")

    def test_last_line_and_empty(self):
        self.assertEqual(b.failure_reason("hello\nworld\n"), "hello")
        self.assertEqual(b.failure_reason("", None), "no output")

    def test_dmesg_lines(self):
        self.assertEqual(b.guest_dmesg("BENCH-DMESG: [ 1.0] cxib: x\nother\n"), ["[ 1.0] cxib: x"])
        self.assertEqual(b.failure_reason("BENCH-DMESG: [ 1.0] failed x\nCouldn't y\n"),
                         "Couldn't y")

    def test_info_pairs(self):
        info = b.bench_info("BENCH-INFO: dev=rxe0 netdev_mtu=9000 active_mtu=4096\nzz=1\n")
        self.assertEqual(info, {"dev": "rxe0", "netdev_mtu": "9000", "active_mtu": "4096"})


class Counters(unittest.TestCase):
    def test_parse_quoted_hmp_output(self):
        s = b.parse_stats('"link_up1=1 link_up2=0 sq_doorbells=12 bf_writes=3"\r\n')
        self.assertEqual(s, {"link_up1": 1, "link_up2": 0, "sq_doorbells": 12, "bf_writes": 3})

    def test_delta_keeps_only_changes(self):
        d = b.stats_delta({"a": 1, "b": 5}, {"a": 4, "b": 5, "c": 2})
        self.assertEqual(d, {"a": 3, "c": 2})
        self.assertIsNone(b.stats_delta(None, {"a": 1}))

    def test_cells_sum_both_nodes(self):
        deltas = {"node1": {"sq_doorbells": 2, "dma_write_bytes": 4096, "acks_sent": 7},
                  "node2": {"sq_doorbells": 3, "bf_writes": 1, "dma_read_bytes": 2048,
                            "pkts_sent": 9, "retransmits": 1}}
        self.assertEqual(b.counter_cells(deltas), ["0", "5", "1", "6", "9", "7", "1"])

    def test_unreadable_counters_are_unknown_not_zero(self):
        self.assertEqual(b.counter_cells({"node1": None, "node2": {}}),
                         ["?"] * len(b.COUNTER_COLUMNS))


class DeviceCounters(unittest.TestCase):
    def test_hw_counter_deltas(self):
        out = ("BENCH-HWC-BEFORE: sent_pkts=10 rcvd_seq_err=0 completer_retry_err=1 \n"
               "junk\nBENCH-HWC-AFTER: sent_pkts=530 rcvd_seq_err=0 completer_retry_err=4 \n")
        self.assertEqual(b.device_counters(out), {"sent_pkts": 520, "completer_retry_err": 3})

    def test_missing_after_is_unknown(self):
        self.assertIsNone(b.device_counters("BENCH-HWC-BEFORE: a=1\n"))

    def test_nan_stdev_is_dropped_not_a_number(self):
        txt = WRITE_LAT.replace("80.33", "-nan")
        r = b.parse_perftest(txt, "lat")
        self.assertNotIn("t_stdev[usec]", r["fields"])
        self.assertEqual(r["fields"]["99% percentile[usec]"], 812.00)
        json.dumps(r, allow_nan=False)


class Matrix(unittest.TestCase):
    def test_default_sizes_span_2_to_1MiB(self):
        self.assertEqual(b.DEFAULT_SIZES[0], 2)
        self.assertEqual(b.DEFAULT_SIZES[-1], 1 << 20)
        self.assertIn(32768, b.DEFAULT_SIZES)

    def test_select_tests(self):
        self.assertEqual(b.select_tests("send,write"),
                         ["write_bw", "write_lat", "send_bw", "send_lat"])
        self.assertEqual(b.select_tests("lat"),
                         ["write_lat", "read_lat", "send_lat", "atomic_lat"])
        self.assertEqual(b.select_tests(None), list(b.TESTS))
        with self.assertRaises(ValueError):
            b.select_tests("writ")

    def test_atomics_have_one_row(self):
        rows = b.matrix(["write_bw", "atomic_bw"], [2, 4096])
        self.assertEqual(rows, [("write_bw", 2), ("write_bw", 4096), ("atomic_bw", 8)])

    def test_quick(self):
        self.assertEqual(b.matrix(list(b.TESTS), None, quick=True), b.QUICK_ROWS)
        self.assertEqual(b.matrix(["write_lat"], None, quick=True), [("write_lat", 2)])

    def test_sizes(self):
        self.assertEqual(b.parse_size("64K"), 65536)
        self.assertEqual(b.parse_size("1MiB"), 1 << 20)
        self.assertEqual(b.parse_size("2"), 2)
        for bad in ("0", "x", "16M", "-1"):
            with self.assertRaises(ValueError):
                b.parse_size(bad)
        self.assertEqual(b.size_label(65536), "64 KiB")
        self.assertEqual(b.size_label(1 << 20), "1 MiB")
        self.assertEqual(b.size_label(2), "2 B")

    def test_perftest_args(self):
        prog, args = b.perftest_args("write_bw", 65536)
        self.assertEqual(prog, "ib_write_bw")
        self.assertEqual(args, ["-s", "65536", "-n", "512"])
        prog, args = b.perftest_args("atomic_lat", 8)
        self.assertNotIn("-s", args)
        self.assertIn("-e", b.perftest_args("send_bw", 2)[1])
        self.assertEqual(b.perftest_args("write_lat", 1 << 20)[1][-1], "100")

    def test_guest_script_is_fully_substituted(self):
        s = b.guest_script("rxe0", True, "read_bw", 4096, 18600, 9000)
        self.assertNotIn("@", s.replace("$@", "").replace("'@'", ""))
        self.assertIn("DEV='rxe0' PROG='ib_read_bw' ARGS='-s 4096 -n 1000' PORT=18600", s)
        self.assertIn("RXE=1", s)
        self.assertIn("SERVER='node1' CLIENT='node2'", s)
        self.assertTrue(s.endswith(". /cxlab/e2e/bench_perftest.sh\n"))


class Retry(unittest.TestCase):
    OK = {"status": "ok", "value": 50.0, "unit": "MB/s", "reason": None}
    BAD = {"status": "crashed", "reason": "node2 crashed (QEMU exited)"}

    def test_baseline_failure_is_retried_once(self):
        self.assertTrue(b.should_retry("baseline", 1, self.BAD))
        self.assertFalse(b.should_retry("baseline", 2, self.BAD))
        self.assertFalse(b.should_retry("baseline", 1, self.OK))

    def test_cxib_is_never_retried(self):
        self.assertFalse(b.should_retry("measured", 1, self.BAD))

    def test_failed_twice_has_no_number(self):
        bad2 = dict(self.BAD, value=1.0)
        r = b.summarise_attempts([self.BAD, bad2])
        self.assertNotIn("value", r)
        self.assertEqual(r["reason"], "failed after retry: node2 crashed (QEMU exited)")
        self.assertEqual(len(r["attempts"]), 2)

    def test_retried_success_says_so(self):
        r = b.summarise_attempts([self.BAD, self.OK])
        self.assertEqual(r["value"], 50.0)
        self.assertIn("retried", r["note"])

    def test_single_failure_keeps_its_reason(self):
        r = b.summarise_attempts([{"status": "failed", "reason": "no uverbs"}])
        self.assertEqual(r["reason"], "no uverbs")


class TableAndJson(unittest.TestCase):
    def rows(self):
        cx_fail = b.summarise_attempts([{"status": "failed", "reason": "no uverbs",
                                         "counters": {"node1": {}, "node2": {}}}])
        rxe = b.summarise_attempts([{"status": "ok", "value": 52.8, "unit": "MB/s"}])
        cx_ok = b.summarise_attempts([{"status": "ok", "value": 2.0, "unit": "usec",
                                       "counters": {"node1": {"sq_doorbells": 10},
                                                    "node2": {"sq_doorbells": 10}}}])
        rxe_lat = b.summarise_attempts([{"status": "ok", "value": 400.0, "unit": "usec"}])
        return [b.make_row("write_bw", 65536, cx_fail, rxe),
                b.make_row("write_lat", 2, cx_ok, rxe_lat),
                b.make_row("send_lat", 2, dict(cx_fail), rxe_lat)]

    def test_value_format_keeps_small_values(self):
        self.assertEqual(b.fmt_value(0.0123, "MB/s"), "0.0123 MB/s")
        self.assertEqual(b.fmt_value(52.83, "MB/s"), "52.8 MB/s")
        self.assertEqual(b.fmt_value(4065.2, "usec"), "4065 usec")

    def test_speedup_direction(self):
        self.assertEqual(b.speedup("bw", 100.0, 50.0), 2.0)
        self.assertEqual(b.speedup("lat", 2.0, 400.0), 200.0)
        self.assertIsNone(b.speedup("bw", None, 50.0))
        self.assertIsNone(b.speedup("lat", 0.0, 50.0))

    def test_table_marks_failures_and_footnotes_them_once(self):
        headers, rows, notes = b.build_table(self.rows(), ["cxib", "rxe"])
        self.assertEqual(headers[:5], ["test", "size", "cxib", "rxe", "cxib vs rxe"])
        self.assertEqual(rows[0][:5], ["write_bw", "64 KiB", "failed [1]", "52.8 MB/s", "-"])
        self.assertEqual(rows[1][:5], ["write_lat", "2 B", "2.00 usec", "400 usec", "200.00x"])
        self.assertEqual(rows[1][6], "20")
        self.assertEqual(rows[2][2], "failed [1]")
        self.assertEqual(notes, ["[1] cxib: failed: no uverbs"])

    def test_baseline_only_table(self):
        row = b.make_row("write_bw", 65536, None,
                         b.summarise_attempts([{"status": "failed", "reason": "x"},
                                               {"status": "failed", "reason": "oops"}]))
        headers, rows, notes = b.build_table([row], ["rxe"])
        self.assertNotIn("cxib vs rxe", headers)
        self.assertEqual(rows[0][2], "failed [1]")
        self.assertEqual(len(rows[0]), 3)
        self.assertEqual(notes, ["[1] rxe: failed after retry: oops"])

    def test_json_round_trips_and_has_no_number_for_failures(self):
        doc = b.bench_document(self.rows(), {"quick": True}, "/r")
        back = json.loads(json.dumps(doc))
        self.assertEqual(back["rows"][0]["cxib"]["status"], "failed")
        self.assertNotIn("value", back["rows"][0]["cxib"])
        self.assertEqual(back["rows"][0]["rxe"]["value"], 52.8)
        self.assertIsNone(back["rows"][0]["speedup"])
        self.assertEqual(back["rows"][1]["unit"], "usec")


class FakeLab:
    """Stands in for cxlab.lab.Lab: jobs 'run' by writing the outputs a script gives."""

    def __init__(self, tmp, plan):
        self.tmp, self.plan, self.calls, self.dead = tmp, list(plan), [], set()
        self.run = self.results = tmp
        self.nodes = [{"name": "node1", "index": 1, "pid": 1, "start": 1},
                      {"name": "node2", "index": 2, "pid": 2, "start": 2}]

    def node(self, name):
        return next(n for n in self.nodes if n["name"] == name)

    def run_job(self, job, script, nodes, timeout, results):
        client, server, crash = self.plan.pop(0)
        self.calls.append(job)
        res = {}
        for n, text in (("node1", server), ("node2", client)):
            d = os.path.join(results, n, job)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "output.log"), "w") as f:
                f.write(text)
            res[n] = JobResult(Status.PASS if "#bytes" in text else Status.FAIL, 0,
                               output=os.path.join(d, "output.log"))
        if crash:
            self.dead.add(2)
            with open(os.path.join(results, "node2", "console.log"), "a") as f:
                f.write("[  9.1] BUG: kernel NULL pointer dereference, address: 0000\n")
        return res

    def alive(self, node):
        return node["pid"] not in self.dead

    def down(self, quiet=False):
        self.calls.append("down")

    def up(self, args, n, what):
        self.calls.append("up")
        self.dead.clear()
        return self


class RunnerWithFakeLab(unittest.TestCase):
    def run_rows(self, plan, own=True, role="baseline"):
        import tempfile
        import types
        tmp = tempfile.mkdtemp()
        lab = FakeLab(tmp, plan)
        args = types.SimpleNamespace(results=None)
        r = b.Runner(lab, args, own, tmp)
        got = b.run_device(r, "write_bw", 65536, "rxe0", role, 9000, lambda m: None)
        return got, lab

    def test_crash_is_retried_after_a_reboot_and_reported(self):
        got, lab = self.run_rows([(WRITE_BW, "", True), (WRITE_BW, "", False)])
        self.assertEqual(got["status"], "ok")
        self.assertEqual(got["value"], 52.83)
        self.assertIn("crashed", got["note"])
        self.assertIn("BUG: kernel NULL pointer", got["attempts"][0]["reason"])
        self.assertNotIn("value", got["attempts"][0])
        self.assertEqual([c for c in lab.calls if c in ("up", "down")], ["down", "up"])

    def test_two_failures_give_no_number(self):
        got, lab = self.run_rows([("Completion with error at client\n", "", False),
                                  ("Completion with error at client\n", "", False)])
        self.assertEqual(got["status"], "failed")
        self.assertNotIn("value", got)
        self.assertEqual(got["reason"], "failed after retry: Completion with error at client")

    def test_cxib_failure_runs_once(self):
        got, lab = self.run_rows([("BENCH-ERROR: no RDMA device cxib_0 on node2\n", "", False)],
                                 role="measured")
        self.assertEqual(len(lab.calls), 1)
        self.assertEqual(got["reason"], "no RDMA device cxib_0 on node2")

    def test_a_failed_reboot_fails_the_rest_with_its_reason(self):
        import tempfile
        import types
        tmp = tempfile.mkdtemp()
        lab = FakeLab(tmp, [(WRITE_BW, "", True)])

        def no_boot(args, n, what):
            raise LabError("node1 did not come up within 300s")
        lab.up = no_boot
        r = b.Runner(lab, types.SimpleNamespace(results=None), True, tmp)
        got = b.run_device(r, "write_bw", 65536, "rxe0", "baseline", 9000, lambda m: None)
        self.assertEqual(got["status"], "failed")
        self.assertIn("rebooting the lab failed: node1 did not come up", got["reason"])
        nxt = r.attempt("write_lat", 2, "cxib_0", False, 9000)
        self.assertIn("rebooting the lab failed", nxt["reason"])

    def test_a_lab_not_owned_is_not_rebooted(self):
        got, lab = self.run_rows([(WRITE_BW, "", True)], own=False)
        self.assertEqual(got["status"], "failed")
        self.assertEqual(got["attempts"][0]["status"], "crashed")
        self.assertIn("failed after retry", got["reason"])
        self.assertIn("not owned", got["reason"])
        self.assertNotIn("up", lab.calls)


class CountersOverQMP(unittest.TestCase):
    def test_stats_come_over_qmp(self):
        import socket
        import tempfile
        import threading
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "node1"))
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(os.path.join(d, "node1", "qmp.sock"))
        srv.listen(1)
        asked = []

        def serve():
            c, _ = srv.accept()
            c.sendall(b'{"QMP": {"version": {}, "capabilities": []}}\r\n')
            for line in c.makefile("rb"):
                req = json.loads(line)
                asked.append(req.get("arguments"))
                ret = "sq_doorbells=4 bf_writes=2" if req["execute"] == "qom-get" else {}
                c.sendall(json.dumps({"return": ret, "id": req["id"]}).encode() + b"\r\n")
            c.close()
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        self.assertEqual(b.read_stats(d, "node1"), {"sq_doorbells": 4, "bf_writes": 2})
        srv.close()
        self.assertEqual(asked[-1], {"path": "/machine/peripheral/hca1", "property": "stats"})


if __name__ == "__main__":
    unittest.main()
