# SPDX-License-Identifier: GPL-2.0-only
"""cxlab bench --nvmeof: NVMe-oF with the stock nvmet target (node1) and host (node2), three
ways in the same guests and the same run, against one null_blk namespace:

    nvme-rdma-cxib   nvme-rdma over cxib_0, rdma_cm on ib0's IPoIB address
    nvme-tcp-virtio  nvme-tcp over the management virtio-net (the reference)
    nvme-rdma-rxe    nvme-rdma over Soft-RoCE (rdma_rxe on the management virtio-net)

Rows: fio 4 KiB random read IOPS at QD32, 4 KiB random read latency at QD1 and 128 KiB
sequential read throughput at QD16.  The target's namespace is a null_blk device without
memory backing (reads return zeros at once), so the rows measure the transports.

The table, the ratio columns and the JSON rows come from cxlab.netbench (generic over
paths and tests); the pure parts here (fio's JSON, the guest script) are tested by
scripts/tests/test_cxlab_nvmebench.py.
"""

import sys

from typing import Any

from . import netbench as nb
from .lab import Lab
from .share import job_script

SERVER_NODE, CLIENT_NODE = "node1", "node2"
PATHS = [
    ("nvme-rdma-cxib", "nvme-rdma over cxib_0 (rdma_cm on ib0, 198.51.100.1:4420)"),
    ("nvme-tcp-virtio", "nvme-tcp over the management virtio-net (port 4421)"),
    ("nvme-rdma-rxe", "nvme-rdma over Soft-RoCE: rdma_rxe on the management virtio-net "
                      "(port 4422)"),
]
REFERENCE = "nvme-tcp-virtio"
TESTS = {  # name -> (unit, kind)
    "randread_4k_iops": ("IOPS", "bw"),
    "randread_4k_qd1_lat": ("us", "lat"),
    "seqread_128k_bw": ("MB/s", "bw"),
}
FIO = {  # name -> fio options
    "randread_4k_iops": "--rw=randread --bs=4k --iodepth=32",
    "randread_4k_qd1_lat": "--rw=randread --bs=4k --iodepth=1",
    "seqread_128k_bw": "--rw=read --bs=128k --iodepth=16",
}
FIO_SECONDS = 5
JOB_TIMEOUT = 240


def parse_fio(test, text):
    """The row's number from the fio --output-format=json document inside @text."""
    jobs = nb.first_json(text, "fio").get("jobs") or []
    if not jobs:
        raise nb.ParseError("fio JSON has no job")
    j = jobs[0]
    if j.get("error"):
        raise nb.ParseError(f"fio: error {j['error']}")
    rd = j.get("read") or {}
    if not rd.get("io_bytes"):
        raise nb.ParseError("fio read nothing")
    if test == "randread_4k_iops":
        return float(rd["iops"])
    if test == "randread_4k_qd1_lat":
        return float(rd["clat_ns"]["mean"]) / 1000.0
    return float(rd["bw_bytes"]) / 1e6


# The guest side, tests/e2e/bench_nvmeof.sh (on the share as /cxlab/e2e/): a job script sets
# its variables and sources it.
GUEST_SCRIPT = "bench_nvmeof.sh"


def guest_script(test, path):
    """The job script of one row: GUEST_SCRIPT's variables, then GUEST_SCRIPT."""
    what = "One row of `cxlab bench --nvmeof` (scripts/lib/cxlab/nvmebench.py)."
    return job_script(GUEST_SCRIPT, what,
                      {"TEST": test, "PATHNAME": path, "SECS": FIO_SECONDS,
                       "FIOOPTS": FIO[test],
                       "SERVER": SERVER_NODE, "IBNET": nb.IPOIB_NET})


def outcome(test, client_output, client_status):
    failed = nb.guest_failure(client_output)
    if failed:
        return failed
    try:
        return {"status": "ok", "value": parse_fio(test, client_output)}
    except nb.ParseError as e:
        return {"status": "failed", "reason": f"{e} (client {client_status})"}


def make_rows(results):
    return nb.make_rows(results, TESTS, PATHS, REFERENCE)


def build_table(rows):
    return nb.build_table(rows, PATHS, REFERENCE)


def document(rows, results_dir, partial=False):
    return {"command": "bench --nvmeof", "results": results_dir, "rows": rows,
            "complete": not partial,
            "paths": {p: what for p, what in PATHS},
            "tests": {t: f"fio {FIO[t]} --runtime={FIO_SECONDS} --ramp_time=1, libaio, "
                         "direct, one job on the namespace, node2 -> node1's null_blk"
                      for t in TESTS},
            "target": "cxib at least 2x nvme-tcp IOPS (randread_4k_iops)",
            "units": {"ratio": f"path relative to {REFERENCE}, > 1 = that path better"}}


def run(lab: Lab, results: str) -> dict[str, Any]:
    """Every row on @lab; returns the JSON document."""
    return nb.run_rows(lab, results, sys.modules[__name__], "nvmebench")

