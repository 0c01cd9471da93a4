# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of scripts/lib/cxlab/nvmebench.py (the pure parts of cxlab bench --nvmeof)."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from cxlab import nvmebench as nvb  # noqa: E402
from cxlab.scenarios import E2E_DIR as E2E  # noqa: E402

FIO = "BENCH-INFO: path=nvme-rdma-cxib\n" + json.dumps({"jobs": [{
    "jobname": "bench", "error": 0,
    "read": {"io_bytes": 52428800, "iops": 10240.5, "bw_bytes": 209715200,
             "clat_ns": {"mean": 95500.0}}}]})


class Fio(unittest.TestCase):
    def test_each_test_reads_its_number(self):
        self.assertAlmostEqual(nvb.parse_fio("randread_4k_iops", FIO), 10240.5)
        self.assertAlmostEqual(nvb.parse_fio("randread_4k_qd1_lat", FIO), 95.5)  # us
        self.assertAlmostEqual(nvb.parse_fio("seqread_128k_bw", FIO), 209.7152)  # MB/s

    def test_errors_and_empty_runs_give_no_number(self):
        bad = FIO.replace('"error": 0', '"error": 5')
        with self.assertRaises(nvb.nb.ParseError):
            nvb.parse_fio("randread_4k_iops", bad)
        none = FIO.replace('"io_bytes": 52428800', '"io_bytes": 0')
        with self.assertRaises(nvb.nb.ParseError):
            nvb.parse_fio("randread_4k_iops", none)
        with self.assertRaises(nvb.nb.ParseError):
            nvb.parse_fio("randread_4k_iops", "nvme connect failed")

    def test_outcome(self):
        self.assertEqual(nvb.outcome("randread_4k_iops", "BENCH-ERROR: nvme connect -t tcp\n",
                                     "fail")["reason"], "nvme connect -t tcp")
        self.assertEqual(nvb.outcome("randread_4k_iops", FIO, "pass"),
                         {"status": "ok", "value": 10240.5})


class Rows(unittest.TestCase):
    def test_ratios_against_nvme_tcp(self):
        res = {("randread_4k_iops", "nvme-rdma-cxib"): {"status": "ok", "value": 8000.0},
               ("randread_4k_iops", "nvme-tcp-virtio"): {"status": "ok", "value": 4000.0},
               ("randread_4k_iops", "nvme-rdma-rxe"): {"status": "ok", "value": 2000.0},
               ("randread_4k_qd1_lat", "nvme-rdma-cxib"): {"status": "ok", "value": 100.0},
               ("randread_4k_qd1_lat", "nvme-tcp-virtio"): {"status": "ok", "value": 300.0}}
        rows = nvb.make_rows(res)
        self.assertAlmostEqual(rows[0]["nvme-rdma-cxib vs nvme-tcp-virtio"], 2.0)
        self.assertAlmostEqual(rows[0]["nvme-rdma-rxe vs nvme-tcp-virtio"], 0.5)
        self.assertAlmostEqual(rows[1]["nvme-rdma-cxib vs nvme-tcp-virtio"], 3.0)  # lower: better
        headers, lines = nvb.build_table(rows)
        self.assertEqual(headers[:4], ["test", "nvme-rdma-cxib", "nvme-tcp-virtio",
                                       "nvme-rdma-rxe"])
        self.assertEqual(lines[0][1], "8000 IOPS")
        self.assertEqual(lines[2][1], "not run")
        json.dumps(nvb.document(rows, "/r"), allow_nan=False)

    def test_guest_script_sets_the_rows_variables_and_sources_the_guest_side(self):
        for path in ("nvme-rdma-cxib", "nvme-tcp-virtio", "nvme-rdma-rxe"):
            s = nvb.guest_script("seqread_128k_bw", path)
            self.assertIn(f"TEST='seqread_128k_bw' PATHNAME='{path}' SECS=", s)
            self.assertIn("FIOOPTS='--rw=read --bs=128k --iodepth=16", s)
            self.assertTrue(s.endswith(". /cxlab/e2e/bench_nvmeof.sh\n"))

    def test_guest_side_connects_each_path_on_its_own_port(self):
        with open(os.path.join(E2E, nvb.GUEST_SCRIPT)) as f:
            s = f.read()
        self.assertFalse(s.startswith("#!"))   # sourced, not a scenario
        for path, port in (("nvme-rdma-cxib", "4420"), ("nvme-tcp-virtio", "4421"),
                           ("nvme-rdma-rxe", "4422")):
            self.assertRegex(s, path + r"\) args=.* -s " + port + '"; dev=')

if __name__ == "__main__":
    unittest.main()
