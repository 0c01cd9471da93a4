# SPDX-License-Identifier: GPL-2.0-only
"""The status table (cxlab up, cxlab status): per node what the guest sees of its HCA (a
probe job) and what QEMU says of it (QOM properties over QMP)."""

import os
import time
from typing import Any, Callable

from .common import say, table
from .lab import Lab, Node
from .qmp import HCA_QOM_PATH, QMP, QMPError, qmp_path

Row = dict[str, Any]


PROBE = r"""
set -u
dev=$(lspci -D -n -d 15b3: | awk 'NR==1 {print $1}')
ids=$(lspci -n -s "$dev" | awk '{print $3}')
drv=$(basename "$(readlink /sys/bus/pci/devices/$dev/driver 2>/dev/null)" 2>/dev/null)
ib=$(ls /sys/bus/pci/devices/$dev/infiniband 2>/dev/null | head -n1)  # renamed under systemd
fw=$(cat /sys/class/infiniband/${ib:-cxib_0}/fw_ver 2>/dev/null)
p=/sys/class/infiniband/${ib:-cxib_0}/ports/1
lid=$(($(cat $p/lid 2>/dev/null || echo 0)))
smlid=$(($(cat $p/sm_lid 2>/dev/null || echo 0)))
pst=$(cut -d' ' -f2 $p/state 2>/dev/null)
echo "pci=${ids:-none}@${dev:-none} driver=${drv:-none} fw=${fw:-?} lid=$lid smlid=$smlid port=${pst:-none} kernel=$(uname -r)"
"""


def node_status(lab: Lab, results: str) -> list[Row]:
    """Ask every node what it sees of its HCA, and every QEMU what its HCA is; returns rows."""
    probe = os.path.join(lab.run, "probe.sh")
    with open(probe, "w") as f:
        f.write(PROBE)
    res = lab.run_job(f"status-{int(time.time())}", probe, lab.nodes, 60, results)
    rows = []
    for node in lab.nodes:
        r = res[node["name"]]
        last = r.last_line or ""
        if r.output:
            with open(r.output, errors="replace") as f:
                txt = f.read().strip().splitlines()
            last = txt[-1] if txt else ""
        info = parse_kv(last)
        hca = read_hca(lab.run, node["name"])
        if hca.get("error"):
            say(f"{node['name']}: cannot ask QEMU about its HCA ({hca['error']}); "
                "if the lab was started by an older cxlab, restart it: cxlab down; cxlab up")
        rows.append(status_row(node, info, hca))
    return rows


def status_row(node: Node, info: dict[str, str], hca: dict[str, Any]) -> Row:
    """One node's row: @info from the guest (PROBE), @hca from QEMU (read_hca)."""
    return {"node": node["name"], "addr": node["addr"], "cable": cable_state(hca),
            "pci": info.get("pci", "?"), "driver": info.get("driver", "?"),
            "firmware": info.get("fw", "?"), "kernel": info.get("kernel", "?"),
            "lid": info.get("lid", "?"), "sm_lid": info.get("smlid", "?"),
            "port": info.get("port", "?"),
            "boot_s": node.get("boot_s", "")}


# QOM properties of cxib-pci that the table reads (qom-get over QMP): the cable's socket
# ("" if none), the loopback plug, and the model's counters, whose link_up1 is port 1's link.
HCA_PROPERTIES = ("cable", "loopback", "stats")


def read_hca(run: str, node: str) -> dict[str, Any]:
    """@node's HCA as QEMU sees it: {property: value} for HCA_PROPERTIES.  A property QEMU
    refused is left out (its error in "errors"); "error" says why QEMU could not be asked."""
    path = qmp_path(run, node)
    out: dict[str, Any] = {}
    try:
        with QMP(path) as q:
            for prop in HCA_PROPERTIES:
                try:
                    out[prop] = q.qom_get(HCA_QOM_PATH, prop)
                except QMPError as e:
                    out.setdefault("errors", {})[prop] = str(e)
    except OSError as e:
        out["error"] = f"{path}: {e}"
    return out


def parse_kv(text: object) -> dict[str, str]:
    """'a=1 b=x' -> {'a': '1', 'b': 'x'} (the format of the stats property)."""
    return dict(kv.split("=", 1) for kv in str(text).split() if "=" in kv)


def cable_state(hca: dict[str, Any]) -> str:
    """The IB cable column from read_hca(): "up"/"down" for a cable (the device's link on
    port 1), "loopback" for the loopback plug, "none" without a cable, "?" if unknown."""
    if hca.get("loopback") is True:
        return "loopback"
    if "cable" not in hca:
        return "?"
    if not hca["cable"]:
        return "none"
    return {"1": "up", "0": "down"}.get(parse_kv(hca.get("stats", "")).get("link_up1", ""), "?")



# The status table: (header, cell of a row).  Cells the guest knows come from PROBE, cells
# the device knows from read_hca(); status_row() puts both into the row.
STATUS_COLUMNS: list[tuple[str, Callable[[Row], Any]]] = [
    ("node", lambda r: r["node"]),
    ("mgmt addr", lambda r: r["addr"]),
    ("HCA (pci)", lambda r: r["pci"]),
    ("driver", lambda r: r["driver"]),
    ("firmware", lambda r: r["firmware"]),
    ("IB cable", lambda r: r["cable"]),
    ("port", lambda r: r.get("port", "?")),
    ("LID", lambda r: r.get("lid", "?")),
    ("SM LID", lambda r: r.get("sm_lid", "?")),
    ("kernel", lambda r: r["kernel"]),
    ("boot", lambda r: f"{r['boot_s']}s" if r["boot_s"] != "" else ""),
]


def status_table(rows: list[Row]) -> str:
    return table([h for h, _ in STATUS_COLUMNS], [[cell(r) for _, cell in STATUS_COLUMNS]
                                                  for r in rows])


def print_status(rows: list[Row]) -> None:

    print(status_table(rows))
