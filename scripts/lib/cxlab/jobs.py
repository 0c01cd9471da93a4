# SPDX-License-Identifier: GPL-2.0-only
"""Running a job: a script on some of a lab's nodes at once, through their agents.

The script and one environment file per node go to the share (/cxlab/jobs/<job>/), each
node's agent runs it and answers DONE <job> <rc>; what the job wrote under $CXLAB_RESULTS
is copied into the results directory.  A job fails on a node whose model complained on
QEMU's stderr meanwhile (strict mode, pages not returned)."""

import contextlib
import fcntl
import os
import re
import shlex
import shutil
import sys
import time
from typing import Any, Iterator

from .agent import Agent
from .common import LabError, say
from .diag import dump_failed_job, keep_state, snapshot
from .fault import set_fault
from .procs import pid_is
from .qemu import node_driver
from .qmp import trace_mark
from .results import JobResult, Status, first_failure

State = dict[str, Any]  # a lab's state (lab.Lab.state): run, kver, nodes, ...
Node = dict[str, Any]   # one of its nodes: name, index, addr, pid, start, ...

# Host variables with these prefixes are passed on to scenario scripts.
SCENARIO_ENV_PREFIXES = ("KVERBS_", "E2E_")

# Lines on a node's QEMU stderr that mean the device model caught the driver misbehaving.
MODEL_COMPLAINTS = re.compile(r"pages not returned|strict: ")


def job_env(st: State, job: str, node: Node) -> dict[str, Any]:
    """The environment of @job on @node (README.md lists the variables)."""
    allnodes = st["nodes"]
    peer = next((x["addr"] for x in allnodes if x["name"] != node["name"]), "")
    env: dict[str, Any] = {
        "CXLAB_NODE": node["name"], "CXLAB_INDEX": node["index"],
        "CXLAB_NODES": " ".join(x["name"] for x in allnodes),
        "CXLAB_NODE_COUNT": len(allnodes), "CXLAB_ADDR": node["addr"],
        "CXLAB_PEER_ADDR": peer, "CXLAB_SERVER_ADDR": allnodes[0]["addr"],
        "CXLAB_RESULTS": f"/cxlab/results/{job}/{node['name']}",
        "CXLAB_JOB": job, "CXLAB_KVER": st["kver"], "CXLAB_SM": st.get("sm", "model"),
        "CXLAB_DRIVER": node_driver(st.get("driver", "cxib"), node["index"]),
        "CXLAB_LAB_DRIVER": st.get("driver", "cxib"),
    }
    for x in allnodes:
        env[f"CXLAB_ADDR_{x['name']}"] = x["addr"]
    # Scenario switches from the host's environment, e.g. KVERBS_DEVICE=rxe.
    for k, v in os.environ.items():
        if k.startswith(SCENARIO_ENV_PREFIXES) and re.fullmatch(r"[A-Z0-9_]+", k) \
                and "'" not in v:
            env[k] = v
    return env


def write_job(st: State, job: str, script: str, nodes: list[Node]) -> None:
    """@script and each node's environment file (sourced by the agent) on the share."""
    jdir = os.path.join(st["run"], "share", "jobs", job)
    os.makedirs(jdir, exist_ok=True)
    shutil.copy2(script, os.path.join(jdir, "script"))
    for node in nodes:
        with open(os.path.join(jdir, f"{node['name']}.env"), "w") as f:
            for k, v in job_env(st, job, node).items():
                f.write(f"{k}={shlex.quote(str(v))}\n")


def answer_mark(st: State, agent: Agent, name: str, job: str, text: str) -> None:
    """MARK: the job cuts its node's command trace (check.sh: cxlab_mark)."""
    try:
        trace_mark(st["run"], name, text)
        agent.send(f"MARKED {job} ok")
    except LabError as e:
        agent.send(f"MARKED {job} {e}")


def answer_fault(st: State, agent: Agent, job: str, node: str, kind: str,
                 args: list[str]) -> None:
    """FAULT: the job sets a fault on a node's HCA (check.sh: cxlab_fault)."""
    names = [n["name"] for n in st["nodes"]]
    try:
        if node not in names:
            raise LabError(f"no node {node} (the lab has {' '.join(names)})")
        say(f"{job}: {node}: {set_fault(st['run'], node, kind, args)}")
        agent.send(f"FAULTED {job} ok")
    except (LabError, OSError) as e:
        agent.send(f"FAULTED {job} {e}")


def wait_done(st: State, job: str, nodes: list[Node], agents: dict[str, Agent],
              timeout: float) -> dict[str, JobResult]:
    """Serve the agents' MARKs until every node said DONE, died or ran out of time."""
    res: dict[str, JobResult] = {}
    t0 = time.time()
    pending, last_note = set(agents), t0
    while pending:
        for name in list(pending):
            node = next(x for x in nodes if x["name"] == name)
            try:
                for ln in agents[name].lines(0.2):
                    parts = ln.split()
                    if len(parts) >= 2 and parts[0] == "MARK" and parts[1] == job:
                        answer_mark(st, agents[name], name, job, " ".join(parts[2:]))
                        continue
                    if len(parts) == 3 and parts[0] == "STATE" and parts[1] == job:
                        keep_state(st["run"], list(agents), job, parts[2])
                        continue
                    if len(parts) >= 4 and parts[0] == "FAULT" and parts[1] == job:
                        answer_fault(st, agents[name], job, parts[2], parts[3], parts[4:])
                        continue
                    if len(parts) == 3 and parts[0] == "DONE" and parts[1] == job:
                        rc = int(parts[2])
                        res[name] = JobResult(Status.of_rc(rc), rc, round(time.time() - t0, 1))
                        pending.discard(name)
                        say(f"{name}: {job} finished: {res[name].status.value} (rc {rc}, "
                            f"{res[name].seconds}s)")
                        break
            except LabError as e:
                res[name] = JobResult(Status.FAIL, -1, round(time.time() - t0, 1),
                                      detail=str(e))
                pending.discard(name)
            if name in pending and not pid_is(node["pid"], node["start"]):
                res[name] = JobResult(Status.FAIL, -1, round(time.time() - t0, 1),
                                      detail="QEMU exited")
                pending.discard(name)
        now = time.time()
        if now - t0 > timeout + 30:
            for name in pending:
                res[name] = JobResult(Status.TIMEOUT, -1, round(now - t0, 1))
            pending.clear()
        elif pending and now - last_note > 15:
            say(f"{job}: running on {', '.join(sorted(pending))} ({now - t0:.0f}s)")
            last_note = now
    return res


def collect(st: State, job: str, nodes: list[Node], results: str,
            res: dict[str, JobResult]) -> None:
    """Copy what @job wrote on the share into @results/<node>/@job; note its output."""
    src = os.path.join(st["run"], "share", "results", job)
    for node in nodes:
        s = os.path.join(src, node["name"])
        d = os.path.join(results, node["name"], job)
        if os.path.isdir(s):
            if os.path.isdir(d):
                shutil.rmtree(d)
            shutil.copytree(s, d)
        out = os.path.join(d, "output.log")
        r = res[node["name"]]
        r.output = out if os.path.exists(out) else None
        if r.output:
            with open(out, errors="replace") as f:
                tail = [ln.rstrip() for ln in f.readlines() if ln.strip()]
            r.last_line = tail[-1][:60] if tail else ""
            r.first_fail = first_failure(tail)


AGENTS_LOCK = "agents.lock"   # in a lab's run directory


@contextlib.contextmanager
def agents_lock(run: str, job: str, timeout: float | None = None) -> Iterator[None]:
    """Held while a job talks to the nodes' agents.  QEMU serves one client per serial
    socket: a second cxlab command on the same lab (a `status` or `run --script` while a
    scenario runs) would connect, send RUN into a queue nobody reads and wait out its
    timeout.  It waits here instead, saying for whom, and goes on when the job before it
    ends.  @timeout (seconds; None: no limit) is for the tests: LabError when it runs out."""
    path = os.path.join(run, AGENTS_LOCK)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        t0 = last = time.time()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            now = time.time()
            if timeout is not None and now - t0 >= timeout:
                raise LabError(f"the lab is busy with {holder(fd)}")
            if now - t0 < 0.5 or now - last >= 15:
                say(f"{job}: waiting for {holder(fd)} to end (one cxlab command at a time "
                    "runs jobs on a lab; `cxlab shell NODE` works meanwhile)")
                last = now
            time.sleep(0.5)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {job}: {' '.join(sys.argv)}\n".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def holder(fd: int) -> str:
    """Who holds the agents lock, from what it wrote into the file."""
    try:
        text = os.pread(fd, 4096, 0).decode(errors="replace").strip()
    except OSError:
        text = ""
    if not text:
        return "another cxlab command's job"
    pid, _, what = text.partition(" ")
    return f"job {what} (pid {pid})"


def run_job(st: State, job: str, script: str, nodes: list[Node], timeout: float,
            results: str) -> dict[str, JobResult]:
    """Run @script on @nodes concurrently; returns {node: JobResult}."""
    write_job(st, job, script, nodes)
    names = [n["name"] for n in nodes]
    with agents_lock(st["run"], job):
        logpos = {n: qemu_log_size(st["run"], n) for n in names}
        before = snapshot(st["run"], names)
        agents = {}
        try:
            for node in nodes:
                a = Agent(os.path.join(st["run"], node["name"], "agent.sock"))
                if not a.connect():
                    raise LabError(f"{node['name']}: agent not reachable; is the lab up? "
                                   "(cxlab status)")
                agents[node["name"]] = a
                a.send(f"RUN {job} {int(timeout)}")
            res = wait_done(st, job, nodes, agents, timeout)
        finally:
            for a in agents.values():
                a.close()
    # The model's own verdict: problems it reported on QEMU's stderr during the job fail it.
    for node in nodes:
        bad = model_complaints(st["run"], node["name"], logpos[node["name"]])
        r = res[node["name"]]
        if bad and r.status is Status.PASS:
            r.status, r.rc, r.detail = Status.FAIL, -1, f"model reported: {bad[0]}"
            say(f"{node['name']}: {job}: the model reported: {'; '.join(bad[:3])}")
    collect(st, job, nodes, results, res)
    if any(r.status.failed for r in res.values()):
        dump_failed_job(st["run"], names, job, results, before)
    return res


def qemu_log_size(run: str, node: str) -> int:
    try:
        return os.path.getsize(os.path.join(run, node, "qemu.log"))
    except OSError:
        return 0


def model_complaints(run: str, node: str, since: int) -> list[str]:
    """The MODEL_COMPLAINTS lines of @node's QEMU log after offset @since."""
    try:
        with open(os.path.join(run, node, "qemu.log"), errors="replace") as f:
            f.seek(since)
            return [ln.strip() for ln in f if MODEL_COMPLAINTS.search(ln)]
    except OSError:
        return []
