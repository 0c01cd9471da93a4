# SPDX-License-Identifier: GPL-2.0-only
"""cxlab fault NODE KIND [ARGS]: make a node's HCA fail on purpose, at run time.

The model's faults go to the cxib-pci property "fault" (firmware/qemu/README.md lists
them: link loss, duplication, reordering and corruption, cable unplug and replug, firmware
fatal, health-counter stall, command hang, a failed command, DMA failures, clear).  Three
more are QEMU's own, on the PCIe slot: "aer correctable|nonfatal|fatal" (an AER error
reported by the HCA, QEMU's pcie_aer_inject_error), "remove" (hot-unplug of the HCA from
its root port, device_del: the guest's pciehp removes the driver first) and "add" (the
HCA plugged in again with the properties it booted with)."""

import argparse
import os
import time

from .common import LabError, say, table, write_json
from .qmp import HCA_QOM_PATH, QMP, QMPError, qmp_path

# An AER error of each class (QEMU 7.2's names; the severity is the AER default for it).
AER_ERRORS = {"correctable": "RCVR", "nonfatal": "COMP_TIME", "fatal": "MALF_TLP"}
HCA_ID = HCA_QOM_PATH.rsplit("/", 1)[1]
REMOVE_TIMEOUT = 60.0   # seconds for the guest to let the HCA go (pciehp, driver remove)


def hca_device_arg(run: str, node: str) -> str:
    """The -device argument @node's HCA was started with (from run/<node>/cmdline)."""
    try:
        with open(os.path.join(run, node, "cmdline")) as f:
            words = f.read().split()
    except OSError as e:
        raise LabError(f"{node}: cannot read its QEMU command line: {e}")
    for w in words:
        if w.startswith("cxib-pci,") and f"id={HCA_ID}" in w.split(","):
            return w
    raise LabError(f"{node}: no cxib-pci {HCA_ID} on its QEMU command line")


def present(q: QMP) -> bool:
    """Whether the HCA is plugged in (listed under /machine/peripheral)."""
    return any(p.get("name") == HCA_ID for p in q.execute("qom-list", path="/machine/peripheral"))


def parse_state(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in str(text).split() if "=" in kv)


def apply(q: QMP, run: str, node: str, kind: str, args: list[str]) -> str:
    """Set one fault on @node through its QMP connection @q; what was done, for the user."""
    if kind == "aer":
        if len(args) != 1 or args[0] not in AER_ERRORS:
            raise LabError(f"aer {'|'.join(AER_ERRORS)}: which class of AER error")
        out = q.execute("human-monitor-command",
                        **{"command-line": f"pcie_aer_inject_error {HCA_ID} "
                                           f"{AER_ERRORS[args[0]]}"})
        if not str(out).startswith("OK"):
            raise LabError(f"{node}: QEMU did not inject the AER error: {str(out).strip()}")
        return f"AER {args[0]} error ({AER_ERRORS[args[0]]}) reported by the HCA"
    if kind == "remove":
        if not present(q):
            raise LabError(f"{node}: the HCA is not plugged in (cxlab fault {node} add)")
        q.execute("device_del", id=HCA_ID)
        end = time.time() + REMOVE_TIMEOUT
        while present(q):
            if time.time() > end:
                raise LabError(f"{node}: the guest did not let the HCA go within "
                               f"{REMOVE_TIMEOUT:.0f} s (see its console.log)")
            time.sleep(0.2)
        return "HCA hot-unplugged from its root port"
    if kind == "add":
        if present(q):
            raise LabError(f"{node}: the HCA is plugged in already")
        arg = hca_device_arg(run, node)
        props = dict(kv.split("=", 1) for kv in arg.split(",")[1:] if "=" in kv)
        q.execute("device_add", driver="cxib-pci", **props)
        return "HCA plugged in again"
    q.execute("qom-set", path=HCA_QOM_PATH, property="fault", value=" ".join([kind] + args))
    return f"fault set: {' '.join([kind] + args)}"


def set_fault(run: str, node: str, kind: str, args: list[str]) -> str:
    """Set one fault on @node of the lab in @run; what was done.  LabError if refused."""
    try:
        with QMP(qmp_path(run, node), timeout=REMOVE_TIMEOUT + 5) as q:
            return apply(q, run, node, kind, args)
    except QMPError as e:
        raise LabError(f"{node}: {e}")
    except OSError as e:
        raise LabError(f"{node}: QEMU does not answer on its QMP socket: {e}")


def cmd_fault(args: argparse.Namespace) -> int:
    from .lab import Lab    # here: jobs.py imports this module, and lab.py imports jobs.py
    lab = Lab.load()
    if not lab:
        raise LabError("no lab is running: start one with: cxlab up")
    node = lab.node(args.node)["name"]
    try:
        with QMP(qmp_path(lab.run, node), timeout=REMOVE_TIMEOUT + 5) as q:
            done = apply(q, lab.run, node, args.kind, args.args) if args.kind else ""
            state = parse_state(q.qom_get(HCA_QOM_PATH, "fault")) if present(q) else {}
    except QMPError as e:
        raise LabError(f"{node}: {e}")
    except OSError as e:
        raise LabError(f"{node}: QEMU does not answer on its QMP socket: {e}")
    if done:
        say(f"{node}: {done}")
    if state:
        active = [[k, v] for k, v in state.items() if v not in ("0", "0x0", "plugged")]
        print(table(["fault", "value"], active) if active else "no fault set, nothing hit")
    else:
        say(f"{node}: no HCA plugged in")
    write_json(args.json, {"command": "fault", "node": node, "done": done, "state": state})
    return 0
