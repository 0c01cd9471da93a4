# SPDX-License-Identifier: GPL-2.0-only
"""Command traces on the host: the part of a node's trace a scenario marked as its own, and
the cmdtrace=compare row (scripts/lib/cmdtrace.py, Documentation/silicon.md)."""

import contextlib
import os
import re
import time
from typing import Any

import cmdtrace

from .common import TOP, say
from .qemu import CMD_TRACE, node_driver
from .results import SKIP_RC, JobResult, Status

START_MARK = re.compile(r"# mark start driver=(\S+)\s*$")
SILICON_DOC = os.path.join(TOP, "Documentation", "silicon.md")


def trace_section(path: str) -> tuple[str | None, list[str]]:
    """The part of the command trace @path a scenario marked as its own: (driver, lines)
    from its last "# mark start driver=<driver>" line to the "# mark stop" after it (or
    the end); (None, every line) if it has no such mark."""
    with open(path, errors="replace") as f:
        lines = f.readlines()
    starts = [(i, m) for i, m in enumerate(START_MARK.match(ln) for ln in lines) if m]
    if not starts:
        return None, lines
    i, m = starts[-1]
    part = lines[i + 1:]
    stop = next((k for k, ln in enumerate(part) if ln.strip() == "# mark stop"), len(part))
    return m.group(1), part[:stop]


def compare_traces(st: dict[str, Any], name: str, results: str) -> JobResult:
    """The cmdtrace=compare row of scenario @name: the first cxib node's command trace
    against the first mlx5 node's, each difference looked up in Documentation/silicon.md.
    A node's driver and the part of its trace compared come from the scenario's
    "start driver=..." and "stop" marks (a node may have changed drivers in the
    scenario), else from the lab's --driver and the whole trace.  The compared parts and
    the report go to @results/host/<name>/."""
    t0 = time.time()
    out = os.path.join(results, "host", name)
    os.makedirs(out, exist_ok=True)
    sections = {}
    for x in st["nodes"]:
        path = os.path.join(st["run"], x["name"], CMD_TRACE)
        drv, lines = trace_section(path) if os.path.exists(path) else (None, [])
        sections[x["name"]] = (drv or node_driver(st.get("driver", "cxib"), x["index"]), lines)
    pick = {d: next((n for n in sorted(sections) if sections[n][0] == d), None)
            for d in ("cxib", "mlx5")}
    cxib, mlx5 = pick["cxib"], pick["mlx5"]
    if not cxib or not mlx5:
        res = JobResult(Status.SKIP, SKIP_RC, detail="cmdtrace: needs a cxib and an mlx5 "
                        "node (the scenario's start marks, or --driver mixed)")
    else:
        paths = {}
        for d, node in (("cxib", cxib), ("mlx5", mlx5)):
            paths[d] = os.path.join(out, f"{d}-{node}-{CMD_TRACE}")
            with open(paths[d], "w") as f:
                f.writelines(sections[node][1])
        report = os.path.join(out, "cmdtrace-compare.txt")
        with open(report, "w") as f:
            with contextlib.redirect_stdout(f):
                rc = cmdtrace.main(["compare", paths["cxib"], paths["mlx5"], "--known",
                                    SILICON_DOC, "--kernel", st.get("kver", ""),
                                    "--json", os.path.join(out, "cmdtrace-compare.json")])
        with open(report) as f:
            last = [ln.strip() for ln in f if ln.strip()]
        res = JobResult(Status.PASS if rc == 0 else Status.FAIL, rc, output=report,
                        last_line=(last[-1] if last else "")[:60])
        say(f"host: {name}: command traces of {cxib} (cxib) and {mlx5} (mlx5) "
            f"compared: {res.last_line}")
    res.seconds = round(time.time() - t0, 1)
    return res
