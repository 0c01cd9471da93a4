# SPDX-License-Identifier: GPL-2.0-only
"""cxlab bench --ipoib: IP over cxib (the stock ib_ipoib, datagram and connected mode)
against the management network's virtio-net, in the same guests and the same run.

Rows: iperf3 TCP throughput (one stream, node2 -> node1) and ping round-trip time, each on
ib0 in datagram mode with the device's offloads (checksums, TSO) and without them (ethtool
-K), ib0 in connected mode and the management interface.  Soft-RoCE has no
IPoIB: IP over rxe is IP over the Ethernet netdev rxe sits on, i.e. the virtio-net row
itself, so there is no third column (the JSON says so).

The pure parts (parsing iperf3's JSON and ping's summary, rows, the table, the document) are
tested by scripts/tests/test_cxlab_netbench.py; the lab parts run jobs on a cxlab.lab.Lab
with bench.Runner's conventions (one job per row on both nodes).
"""

import json
import os
import re
import sys
import time
from types import ModuleType
from typing import Any

from .common import LabError, save_json, say
from .lab import Lab
from .share import job_script

SERVER_NODE, CLIENT_NODE = "node1", "node2"
IPOIB_NET = "198.51.100"  # RFC 5737 TEST-NET-2, as tests/e2e/ipoib_lib.sh: the lab's own
PATHS = [  # (name, what) in table order; the last one is the reference
    ("ipoib-datagram", "ib0, datagram mode, MTU 2044 (the broadcast group's 2048 - 4), "
                       "checksum offload and TSO on (the default)"),
    ("ipoib-datagram-nooffload", "the same with ethtool -K ib0 tx off rx off tso off on "
                                 "both nodes"),
    ("ipoib-connected", "ib0, connected mode, MTU 65520 (RC QPs through ib_cm)"),
    ("virtio-net", "the management interface (virtio-net, QEMU dgram netdev, host UDP relay)"),
]
REFERENCE = "virtio-net"
TESTS = {  # name -> (unit, kind): kind "bw" higher is better, "lat" lower is better
    "tcp_bw": ("Mbit/s", "bw"),
    "ping_rtt": ("ms", "lat"),
}
IPERF_SECONDS = 5
PING_COUNT = 50
JOB_TIMEOUT = 180


class ParseError(Exception):
    pass


def first_json(text, tool):
    """The first JSON document in a job's output @text (script lines may come before it)."""
    i = text.find("{")
    if i < 0:
        raise ParseError(f"no {tool} JSON in the output")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[i:])
    except ValueError as e:
        raise ParseError(f"{tool} JSON unreadable: {e}")
    return doc


def parse_iperf3(text):
    """Receiver throughput in Mbit/s from the iperf3 -J document inside @text."""
    doc = first_json(text, "iperf3")
    if doc.get("error"):
        raise ParseError(f"iperf3: {doc['error']}")
    end = doc.get("end") or {}
    s = end.get("sum_received") or end.get("sum")
    if not s or "bits_per_second" not in s:
        raise ParseError("iperf3 JSON has no receiver summary")
    return s["bits_per_second"] / 1e6


_PING_RTT = re.compile(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
_PING_LOSS = re.compile(r"(\d+) packets transmitted, (\d+) received")


def parse_ping(text):
    """(average RTT in ms, packets sent, packets received) from ping's summary."""
    m, n = _PING_RTT.search(text), _PING_LOSS.search(text)
    if not n:
        raise ParseError("no ping summary in the output")
    if not m:
        raise ParseError(f"ping got no reply ({n.group(1)} sent)")
    return float(m.group(2)), int(n.group(1)), int(n.group(2))


def ratio(kind, value, ref):
    """@value relative to @ref, > 1 when value is better."""
    if value is None or ref is None or value <= 0 or ref <= 0:
        return None
    return value / ref if kind == "bw" else ref / value


def make_rows(results, tests=None, paths=None, reference=None):
    """Rows from {(test, path): outcome}; each row holds every path and the ratio of each
    other path to the reference (default: this module's tests, IPoIB against virtio-net;
    nvmebench passes its own)."""

    tests, paths, reference = tests or TESTS, paths or PATHS, reference or REFERENCE
    rows = []
    for test, (unit, kind) in tests.items():
        row = {"test": test, "unit": unit, "kind": kind}
        for path, _ in paths:
            if (test, path) in results:
                row[path] = results[(test, path)]
        ref = row.get(reference, {}).get("value")
        for path, _ in paths:
            if path != reference and path in row:
                row[f"{path} vs {reference}"] = ratio(kind, row[path].get("value"), ref)
        rows.append(row)
    return rows


def fmt(v, unit):
    if v is None:
        return "-"
    return f"{v:.0f} {unit}" if v >= 100 else f"{v:.3g} {unit}"


def build_table(rows, paths=None, reference=None):
    paths, reference = paths or PATHS, reference or REFERENCE
    headers = ["test"] + [p for p, _ in paths] + \
        [f"{p} vs {reference}" for p, _ in paths if p != reference]
    out = []
    for row in rows:
        line = [row["test"]]
        for p, _ in paths:
            r = row.get(p)
            if r is None:
                line.append("not run")
            elif r["status"] == "ok":
                line.append(fmt(r["value"], row["unit"]))
            else:
                line.append(f"failed: {r['reason'][:40]}")
        for p, _ in paths:
            if p != reference:
                x = row.get(f"{p} vs {reference}")
                line.append(f"{x:.2f}x" if x is not None else "-")
        out.append(line)
    return headers, out


def document(rows, results_dir, partial=False):
    return {"command": "bench --ipoib", "results": results_dir, "rows": rows,
            "complete": not partial,
            "paths": {p: what for p, what in PATHS},
            "tests": {"tcp_bw": f"iperf3 -c <node1> -t {IPERF_SECONDS} -J, one TCP stream "
                                "node2 -> node1, the receiver's bits_per_second",
                      "ping_rtt": f"ping -c {PING_COUNT} -i 0.05 node2 -> node1, average RTT"},
            "baseline_rxe": "none: Soft-RoCE has no IPoIB; IP over rxe is IP over its "
                            "Ethernet netdev, which is the virtio-net row",
            "units": {"ratio": "IPoIB path relative to virtio-net, > 1 = IPoIB better"}}


# The guest side, tests/e2e/bench_ipoib.sh (on the share as /cxlab/e2e/): a job script sets
# its variables and sources it.
GUEST_SCRIPT = "bench_ipoib.sh"


def guest_script(test, path):
    """The job script of one row: GUEST_SCRIPT's variables, then GUEST_SCRIPT."""
    what = "One row of `cxlab bench --ipoib` (scripts/lib/cxlab/netbench.py)."
    return job_script(GUEST_SCRIPT, what,
                      {"TEST": test, "PATHNAME": path, "SECS": IPERF_SECONDS,
                       "COUNT": PING_COUNT, "NET": IPOIB_NET, "SERVER": SERVER_NODE,
                       "CLIENT": CLIENT_NODE})


def guest_failure(client_output):
    """The failed outcome a guest script reported (BENCH-ERROR line), or None."""
    err = re.search(r"BENCH-ERROR: (.*)", client_output)
    return {"status": "failed", "reason": err.group(1).strip()} if err else None


def outcome(test, client_output, client_status):
    """The (test, path) result from the client's output and job status."""
    failed = guest_failure(client_output)
    if failed:
        return failed
    try:
        if test == "tcp_bw":
            return {"status": "ok", "value": parse_iperf3(client_output)}
        avg, sent, rcvd = parse_ping(client_output)
        return {"status": "ok", "value": avg, "sent": sent, "received": rcvd}
    except ParseError as e:
        return {"status": "failed", "reason": f"{e} (client {client_status})"}


def run_rows(lab: Lab, results: str, mod: ModuleType, prefix: str) -> dict[str, Any]:
    """Every (test, path) row of the bench module @mod (its TESTS, PATHS, guest_script,
    outcome, make_rows, document, JOB_TIMEOUT) on @lab, one job on node1 and node2 per row;
    returns the JSON document."""
    nodes = [lab.node(SERVER_NODE), lab.node(CLIENT_NODE)]
    got: dict[tuple[str, str], dict[str, Any]] = {}
    k = 0
    total = len(mod.TESTS) * len(mod.PATHS)
    for test in mod.TESTS:
        for path, _ in mod.PATHS:
            k += 1
            job = f"{prefix}-{k:02d}-{test}-{path}"
            script = os.path.join(lab.run, f"{job}.sh")
            with open(script, "w") as f:
                f.write(mod.guest_script(test, path))
            t0 = time.time()
            try:
                res = lab.run_job(job, script, nodes, mod.JOB_TIMEOUT, results)
                client = res[CLIENT_NODE]
                out = ""
                if client.output and os.path.exists(client.output):
                    with open(client.output, errors="replace") as f:
                        out = f.read()
                r = mod.outcome(test, out, client.status.value)
            except LabError as e:
                r = {"status": "failed", "reason": str(e)}
            r["seconds"] = round(time.time() - t0, 1)
            got[(test, path)] = r
            shown = fmt(r["value"], mod.TESTS[test][0]) if r["status"] == "ok" else r["reason"]
            say(f"bench: [{k}/{total}] {test} on {path}: {shown} ({r['seconds']}s)")
            save_json(os.path.join(results, "bench.json"),
                      mod.document(mod.make_rows(got), results, partial=True))
    return mod.document(mod.make_rows(got), results)


def run(lab: Lab, results: str) -> dict[str, Any]:
    """Every row on @lab; returns the JSON document."""
    return run_rows(lab, results, sys.modules[__name__], "netbench")

