# SPDX-License-Identifier: GPL-2.0-only
"""cxlab - the cxib lab: QEMU nodes with the cxib-pci HCA model, cabled together.

  cxlab up [-n N]                      boot N nodes (default 2) and leave them running
  cxlab status                         show the running lab
  cxlab down                           power the lab off
  cxlab shell NODE                     interactive root console of NODE (Ctrl-] leaves)
  cxlab run SCENARIO...                run scenarios from tests/e2e/ on every node
  cxlab run --script FILE [--node N]   run any script on one node or on all of them
                                       (FILE - : the script comes on standard input)
  cxlab bench [--quick] [--tests ...]  perftest on cxib and on Soft-RoCE (Documentation/bench.md)
  cxlab fault NODE KIND [ARGS]         make NODE's HCA fail on purpose: loss 1%, unplug, fatal,
                                       aer fatal, remove, ... (Documentation/lab.md, "Faults")

Nodes boot with the lab's own small init (--init cxlab, the default) or with systemd
(--init systemd: an image with systemd, the cxib-dkms package installed by dpkg, cxib
loaded by udev); a scenario whose "# cxlab:" line asks for another init or subnet manager
than the others gets a lab of its own.

`run` uses the running lab if there is one, otherwise it boots a lab for the run and
powers it off afterwards.  Every command prints progress, a table at the end and, with
--json FILE, the same data as JSON.  Console logs and script output go to a results
directory (default: results/<time>-<what>/ in the repository).

Scripts get, as environment variables: CXLAB_NODE, CXLAB_INDEX, CXLAB_NODES,
CXLAB_NODE_COUNT, CXLAB_ADDR_<node>, CXLAB_ADDR, CXLAB_PEER_ADDR, CXLAB_SERVER_ADDR,
CXLAB_RESULTS, CXLAB_JOB, CXLAB_KVER.  See README.md.
"""

import argparse
import os
import signal
import sys
from typing import Callable

from . import bench
from .commands import cmd_capture, cmd_down, cmd_run, cmd_shell, cmd_status, cmd_trace, cmd_up
from .common import LABDIR, PROG, LabError, say
from .fault import cmd_fault
from .lab import BOOT_TIMEOUT
from .qemu import DRIVERS, INITS, RUNTIME_PAGES, SM_MODES
from .switch import switch_main


def add_common(p: argparse.ArgumentParser, boots: bool = True) -> None:
    """The options every subcommand has (--json), and those of the ones that boot a lab."""
    p.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    if boots:
        p.add_argument("--kernel", default=os.environ.get("CXLAB_KERNEL", "6.12"),
                       help="guest kernel: 6.12 (default), 6.1, debug (built by scripts/build-kernel "
                            "with KASAN, lockdep, kmemleak) or a release")
        p.add_argument("--mem", type=int, default=1024, help="MiB per node (1024)")
        p.add_argument("--results", metavar="DIR", help="results directory")
        p.add_argument("--no-build", action="store_true",
                       help="do not (re)build QEMU, images or cxib.ko first")
        p.add_argument("--boot-timeout", type=int, default=BOOT_TIMEOUT,
                       help=f"seconds to wait for boot ({BOOT_TIMEOUT})")
        p.add_argument("--capture-sweep", metavar="FILE",
                       help="record node1's cable from power-on until every port is "
                            "ACTIVE (the opensm sweep) into FILE (pcap, tshark)")
        p.add_argument("--sm", choices=SM_MODES,
                       default=os.environ.get("CXLAB_SM", "opensm"),
                       help="subnet manager: opensm on node1 (default), model (the "
                            "model activates ports itself), none (ports stay INIT)")
        p.add_argument("--init", choices=tuple(INITS),
                       default=os.environ.get("CXLAB_INIT", "cxlab"),
                       help="the nodes' PID 1: the lab's init (cxlab, default) or systemd "
                            "(an image with systemd and the cxib-dkms package installed)")
        p.add_argument("--strict", choices=("on", "off"),
                       default=os.environ.get("CXLAB_STRICT", "on"),
                       help="the model's strict mode (firmware/core/strict.c): on "
                            "(default) refuses what real firmware refuses, and a job "
                            "during which it refused something fails")
        p.add_argument("--runtime-pages", type=int, metavar="N",
                       default=int(os.environ.get("CXLAB_RUNTIME_PAGES", RUNTIME_PAGES)),
                       help="pages each model asks its driver for (PAGE_REQUEST event) "
                            f"at each new peak of live QPs ({RUNTIME_PAGES}; 0: never)")
        p.add_argument("--driver", choices=DRIVERS,
                       default=os.environ.get("CXLAB_DRIVER", "cxib"),
                       help="the HCA's driver: cxib (default), mlx5 (the guest kernel's "
                            "stock mlx5_core + mlx5_ib) or mixed (cxib on odd nodes, "
                            "mlx5 on even ones)")



def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = add_common
    p = sub.add_parser("up", help="boot the lab and leave it running")
    p.add_argument("-n", "--nodes", type=int, default=2, help="number of nodes (2)")
    common(p)
    p = sub.add_parser("down", help="power the lab off")
    p = sub.add_parser("status", help="show the running lab")
    common(p, boots=False)
    p = sub.add_parser("shell", help="interactive console of a node")
    p.add_argument("node")
    p = sub.add_parser("run", help="run scenarios or a script")
    p.add_argument("scenarios", nargs="*", metavar="SCENARIO")
    p.add_argument("--script", metavar="FILE",
                   help="run this script instead; - (or a pipe) reads it from standard input")
    p.add_argument("--node", help="only on this node (default: all)")
    p.add_argument("-n", "--nodes", type=int, help="nodes to boot if no lab is up (2)")
    p.add_argument("--timeout", type=int, help="seconds per scenario (default from it, 600)")
    p.add_argument("--timeout-scale", type=float, default=1.0, metavar="F",
                   help="multiply each scenario's own timeout by F (slower guests, e.g. "
                        "--kernel debug)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every node's output")
    common(p)
    p = sub.add_parser("trace", help="copy a node's firmware command trace, or mark it")
    p.add_argument("node", metavar="NODE")
    p.add_argument("file", metavar="FILE", nargs="?", help="where to copy the trace")
    p.add_argument("--mark", metavar="TEXT",
                   help="instead: write '# mark TEXT' into the trace (phases for cmdtrace)")
    common(p, boots=False)
    p = sub.add_parser("capture", help="record a cable's packets (pcap/ERF for tshark)")
    p.add_argument("file", metavar="FILE", help="the capture file to write")
    p.add_argument("--cable", type=int, help="cable N (nodes 2N-1 and 2N; default 1)")
    p.add_argument("--node", help="the node whose port to record (default node1)")
    p.add_argument("--seconds", type=float, default=12.0, help="how long (12)")
    common(p, boots=False)
    p = sub.add_parser("fault", help="make a node's HCA fail on purpose, at run time")
    p.add_argument("node", metavar="NODE")
    p.add_argument("kind", metavar="KIND", nargs="?",
                   help="loss|dup|reorder|corrupt RATE, seed N, unplug, replug, fatal [SYND], "
                        "health-stall on|off, cmd-hang on|off, cmd-fail OPCODE STATUS "
                        "[COUNT|always], dma-read-fail N, dma-write-fail N, clear, "
                        "aer correctable|nonfatal|fatal, remove, add; none: show")
    p.add_argument("args", metavar="ARGS", nargs="*")
    common(p, boots=False)
    bench.add_parser(sub, common)
    return ap


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "up": cmd_up, "down": cmd_down, "status": cmd_status, "shell": cmd_shell, "run": cmd_run,
    "capture": cmd_capture, "trace": cmd_trace, "bench": bench.cmd_bench,
    "fault": cmd_fault}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_switch"]:
        signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
        return switch_main(argv[1:])
    ap = parser()
    args = ap.parse_args(argv)
    if getattr(args, "nodes", None) is not None and not 1 <= args.nodes <= 8:
        ap.error("-n must be between 1 and 8")
    if not 0 <= getattr(args, "runtime_pages", 0) <= 256:
        ap.error("--runtime-pages must be between 0 and 256 (pages per new peak of QPs)")
    os.makedirs(LABDIR, exist_ok=True)
    fn = COMMANDS[args.cmd]

    def on_signal(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        return fn(args)
    except LabError as e:
        say(f"error: {e}")
        return 2
    except KeyboardInterrupt:
        say("interrupted; QEMU processes of this command were stopped")
        return 130
