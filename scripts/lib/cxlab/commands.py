# SPDX-License-Identifier: GPL-2.0-only
"""The subcommands: one cmd_<name>(args) each, returning the exit status; LabError for what
the user can fix."""

import argparse
import os
import select
import shutil
import socket
import sys
import termios
import time
import tty
from typing import IO, Any

import cmdtrace
import cxcap

from .common import TOP, LabError, say, table, write_json
from .lab import Lab, new_results_dir
from .qemu import CMD_TRACE
from .qmp import qmp_path, trace_mark
from .results import JobResult, Status, summary_line
from .scenarios import LAB_KEYS, Job, find_scenario, lab_groups, lab_mismatch, lab_profile, \
    scenario_meta
from .share import share_e2e
from .status import node_status, print_status
from .trace import compare_traces


def running_lab() -> Lab:
    """The running lab; LabError that says how to start one if there is none."""
    lab = Lab.load()
    if not lab:
        raise LabError("no lab is running: start one with: cxlab up")
    return lab


def cmd_up(args: argparse.Namespace) -> int:
    lab = Lab.up(args, args.nodes, "up")
    rows = node_status(lab, lab.results)
    print()
    print_status(rows)
    print()
    say(f"lab is up ({len(rows)} nodes); results in {lab.results}")
    say("next: cxlab shell node1 | cxlab run --script FILE | cxlab down")
    write_json(args.json, {"command": "up", "results": lab.results, "nodes": rows})
    bad = [r["node"] for r in rows if r["driver"] != "cxib"]
    if bad:
        say(f"WARNING: cxib is not bound on {', '.join(bad)}; see their console.log")
        return 1
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    lab = Lab.load()
    if not lab:
        say("no lab is running (start one with: cxlab up)")
        return 1
    rows = node_status(lab, lab.results)
    print_status(rows)
    write_json(args.json, {"command": "status", "results": lab.results, "nodes": rows})
    return 0


def cmd_down(args: argparse.Namespace) -> int:
    lab = Lab.load()
    if not lab:
        left = Lab.saved()  # a lab whose nodes died: stop its relay, keep its logs
        if left:
            Lab(left).down(quiet=True)
        say("no lab is running")
        return 0
    lab.down()
    return 0


def cmd_shell(args: argparse.Namespace) -> int:
    lab = running_lab()
    node = lab.node(args.node)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(lab.run, node["name"], "console.sock"))
    say(f"console of {node['name']} (Ctrl-] to leave)")
    s.sendall(b"\n")
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd) if os.isatty(fd) else None
    try:
        if old:
            tty.setraw(fd)
        while True:
            r, _, _ = select.select([s, fd], [], [])
            if s in r:
                data = s.recv(4096)
                if not data:
                    break
                os.write(sys.stdout.fileno(), data)
            if fd in r:
                data = os.read(fd, 1024)
                if not data or b"\x1d" in data:
                    break
                s.sendall(data)
    finally:
        if old:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
        s.close()
    print()
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if not args.scenarios and not args.script:
        raise LabError("nothing to run: give SCENARIO names or --script FILE")
    jobs: list[Job] = []
    if args.script:
        # Read now, before booting: a pipe can be read once, and an error costs no boot.
        # The text is written to the results directory and the job runs that copy.
        jobs.append(("script", read_script(args.script),
                     {"nodes": 1, "timeout": args.timeout or 600}))
    for s in args.scenarios:
        path = find_scenario(s)
        meta = scenario_meta(path)
        if args.timeout:
            meta["timeout"] = args.timeout
        else:
            meta["timeout"] = int(meta["timeout"] * getattr(args, "timeout_scale", 1.0))
        jobs.append((os.path.basename(path)[:-3] if path.endswith(".sh") else
                     os.path.basename(path), path, meta))
    running = Lab.load()
    if running is None:
        groups = lab_groups(jobs, lab_profile(args))
    else:
        bad = lab_mismatch(jobs, running.state)
        if bad:
            raise LabError(bad)
        groups = [({}, jobs)]
    rows: list[list[Any]] = []
    data: list[dict[str, Any]] = []
    failed = 0
    results: str | None = None
    for gi, (prof, gjobs) in enumerate(groups):
        need = max(m["nodes"] for _, _, m in gjobs)
        own = running is None
        if running is None:
            n = max(need, args.nodes or 2)
            gargs = argparse.Namespace(**vars(args))
            gargs.init, gargs.sm, gargs.driver = prof["init"], prof["sm"], prof["driver"]
            sub = None
            if gi and results:
                # A later lab: its logs in a directory of the run's; the sweep was the first's.
                gargs.capture_sweep = None
                sub = os.path.join(results, f"lab{gi + 1}-{prof['init']}-{prof['sm']}"
                                   + (f"-{prof['driver']}" if prof["driver"] != "cxib" else ""))
            how = ", ".join(f"--{k} {prof[k]}" for k in LAB_KEYS)
            say(f"no lab running: booting {n} node(s) ({how}) for "
                f"{', '.join(name for name, _, _ in gjobs)}")
            try:
                lab = Lab.up(gargs, n, "run", sub)
            except LabError as e:
                if not gi:
                    raise
                # The scenarios before it have run: count these as failed, report them all.
                say(f"error: {e}")
                for name, _, _ in gjobs:
                    failed += 1
                    rows.append([name, "-", Status.FAIL.value, -1, "0s",
                                 f"lab did not boot: {e}"[:60]])
                    data.append({"scenario": name, "node": "-", "status": Status.FAIL.value,
                                 "rc": -1, "seconds": 0, "detail": f"lab did not boot: {e}"})
                continue
            results = results or lab.results
            gresults = lab.results
        else:
            lab = running
            if len(lab.nodes) < need:
                raise LabError(f"the running lab has {len(lab.nodes)} node(s), the "
                               f"scenarios need {need}: cxlab down, then cxlab up -n {need}")
            results = gresults = new_results_dir(args, "run")
        try:
            failed += run_jobs(lab, own, gjobs, gresults, args, rows, data)
        finally:
            if own:
                lab.down(quiet=True)

    print()
    print(table(["scenario", "node", "result", "exit", "time", "last line"], rows))
    print()
    say(f"results in {results}")
    say(summary_line(rows))
    write_json(args.json, {"command": "run", "results": results, "runs": data})
    return 1 if failed else 0


def run_jobs(lab: Lab, own: bool, jobs: list[Job], results: str, args: argparse.Namespace,
             rows: list[list[Any]], data: list[dict[str, Any]]) -> int:
    """Run @jobs, one after the other, on @lab (booted for them if @own); appends the
    table's rows to @rows and the JSON's to @data; returns how many node runs failed."""
    failed = 0
    share_e2e(os.path.join(lab.run, "share"))
    for name, script, meta in jobs:
        if isinstance(script, bytes):
            path = os.path.join(results, name + ".sh")
            with open(path, "wb") as f:
                f.write(script)
        else:
            path = script
        nodes = [lab.node(args.node)] if args.node else lab.nodes
        if not (own and name == jobs[0][0]):
            # an earlier scenario may have reloaded cxib under opensm's feet
            try:
                lab.sm_bringup(results)
            except LabError as e:
                say(f"{name}: {e}")
        job = f"{name}-{int(time.time() * 1000) % 10**8}"
        say(f"{name}: running on {', '.join(x['name'] for x in nodes)} "
            f"(timeout {meta['timeout']}s)")
        res = lab.run_job(job, path, nodes, meta["timeout"], results)
        names = [x["name"] for x in nodes]
        if meta.get("cmdtrace") == "compare":
            res["host"] = compare_traces(lab.state, name, results)
            names.append("host")
        failed += add_rows(name, names, res, args, rows, data)
        if lab.get("kmemleak", False):
            failed += add_rows(f"{name}/kmemleak", [x["name"] for x in nodes],
                               lab.run_job(f"kmemleak-{job}", KMEMLEAK_CHECK, nodes, 600,
                                           results), args, rows, data)
    return failed


# The leak check after each scenario on a kernel with kmemleak (--kernel debug).
KMEMLEAK_CHECK = os.path.join(TOP, "scripts", "guest", "kmemleak-check")


def add_rows(name: str, names: list[str], res: dict[str, JobResult], args: argparse.Namespace,
             rows: list[list[Any]], data: list[dict[str, Any]]) -> int:
    """The table's and the JSON's rows of job @name on the nodes @names; returns how many
    failed (their output is shown)."""
    failed = 0
    for node in names:
        r = res[node]
        if r.status.failed:
            failed += 1
        if args.script or r.status is not Status.PASS or args.verbose:
            show_output(node, name, r)
        rows.append([name, node, r.status.value, r.rc, f"{r.seconds}s", r.summary()])
        data.append({"scenario": name, "node": node, **r.to_json()})
    return failed


def show_output(node: str, name: str, r: JobResult) -> None:
    """The output of job @name on @node (or why it has none) between a header line."""
    print(f"----- {node}: {name} (exit {r.rc}) -----")
    if r.output:
        with open(r.output, errors="replace") as f:
            sys.stdout.write(f.read())
    elif r.detail:
        print(r.detail)


def cmd_trace(args: argparse.Namespace) -> int:
    """Copy a node's command trace (or mark it) and summarise it."""
    lab = running_lab()
    node = lab.node(args.node)
    if args.mark is not None:
        trace_mark(lab.run, node["name"], args.mark)
        say(f"{node['name']}: '# mark {args.mark}' written into its command trace")
        return 0
    if not args.file:
        raise LabError("give the FILE to copy the trace into (or --mark TEXT)")
    src = os.path.join(lab.run, node["name"], CMD_TRACE)
    try:
        shutil.copyfile(src, args.file)
        recs = cmdtrace.read(args.file)
    except OSError as e:
        raise LabError(f"{node['name']}: cannot copy its command trace {src}: {e}")
    except cmdtrace.TraceError as e:
        raise LabError(f"{args.file}: {e}")
    summ = cmdtrace.summary(recs)
    rows = [[k, v[0], v[1]] for k, v in sorted(summ.items())]
    print(table(["command", "count", "failed"], rows))
    ncmd = sum(v[0] for v in summ.values())
    nfail = sum(v[1] for v in summ.values())
    nmark = sum(1 for r in recs if "mark" in r)
    say(f"{node['name']}: {ncmd} commands ({nfail} failed, {nmark} marks) in {args.file}; "
        f"compare two with: scripts/lib/cmdtrace.py compare CXIB_TRACE MLX5_TRACE")
    write_json(args.json, {"command": "trace", "node": node["name"], "file": args.file,
                           "commands": ncmd, "failed": nfail, "marks": nmark,
                           "by_command": {k: {"count": v[0], "failed": v[1]}
                                          for k, v in summ.items()}})
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    """Record the packets a node's port sends and receives on its cable for a while."""
    lab = running_lab()
    if args.cable:
        # cable k joins nodes 2k-1 and 2k; its lower node sees both directions
        want = f"node{2 * args.cable - 1}"
        if args.node and args.node != want:
            raise LabError(f"cable {args.cable} is {want}'s: use --cable or --node, not both")
        args.node = want
    node = lab.node(args.node or "node1")
    if args.seconds <= 0:
        raise LabError("--seconds must be positive")
    path = os.path.abspath(args.file)
    sock = qmp_path(lab.run, node["name"])
    try:
        cxcap.set_capture(sock, path)
    except (cxcap.CaptureError, OSError) as e:
        raise LabError(f"{node['name']}: cannot start the capture into {path}: {e}")
    say(f"{node['name']}: capturing its cable into {path} for {args.seconds}s "
        f"(opensm sweeps every few seconds)")
    try:
        end = time.time() + args.seconds
        while time.time() < end:
            time.sleep(min(1.0, max(0.0, end - time.time())))
    finally:
        try:
            cxcap.set_capture(sock, "")
        except (cxcap.CaptureError, OSError) as e:
            say(f"{node['name']}: could not stop the capture: {e}")
    summary = cxcap.summarise(cxcap.read_capture(path))
    print(cxcap.format_summary(summary))
    say(f"read it with: tshark -r {path} --disable-heuristic rpcrdma_infiniband")
    # counts keyed by (direction, name) become "direction name" in JSON
    flat = {k: ({" ".join(kk) if isinstance(kk, tuple) else kk: vv for kk, vv in v.items()}
                if isinstance(v, dict) else v) for k, v in summary.items()}
    write_json(args.json, {"command": "capture", "node": node["name"], "file": path,
                           "summary": flat})
    return 0


def read_script(name: str, stdin: IO[bytes] | None = None) -> bytes:

    """The text of --script @name: a file, "-" for standard input, or anything open() reads
    once, such as a pipe (/dev/fd/N from "<(...)").  LabError if there is nothing to run."""
    what = "standard input" if name == "-" else name
    try:
        if name == "-":
            stdin = stdin or sys.stdin.buffer
            if stdin.isatty():
                say("reading the script from standard input (end it with Ctrl-D)")
            text = stdin.read()
        else:
            if os.path.isdir(name):
                raise LabError(f"{name} is a directory: give a script file, or - for "
                               "standard input")
            with open(name, "rb") as f:
                text = f.read()
    except FileNotFoundError:
        raise LabError(f"{name}: no such file (give a script file, or - to read it from "
                       "standard input)")
    except OSError as e:
        raise LabError(f"cannot read the script from {what}: {e.strerror or e}")
    if not text.strip():
        raise LabError(f"the script from {what} is empty: nothing to run")
    return text
