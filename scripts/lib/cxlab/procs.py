# SPDX-License-Identifier: GPL-2.0-only
"""The processes of a lab (QEMU, the management relay): is this pid still the process the
lab started, and stopping it.  A pid is always checked together with its start time, so a
reused pid is never mistaken for a node."""

import os
import signal
import subprocess
import time

# pid -> Popen of the processes this cxlab process started, reaped when they are stopped
# (processes of a lab another cxlab started are not children: nothing to reap).
CHILDREN: dict[int, "subprocess.Popen[bytes]"] = {}


def proc_start(pid: int) -> int | None:
    """Start time of @pid (clock ticks since boot), None if it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def pid_is(pid: int, start: int | None) -> bool:
    """True if @pid is alive and is the process started at @start (no pid-reuse accidents)."""
    return start is not None and proc_start(pid) == start


def adopt(p: "subprocess.Popen[bytes]") -> dict[str, int | None]:
    """Remember @p, a process this cxlab started; returns its {"pid", "start"} for the state."""
    CHILDREN[p.pid] = p
    return {"pid": p.pid, "start": proc_start(p.pid)}


def reap(pid: int) -> None:
    p = CHILDREN.pop(pid, None)
    if p:
        p.wait()


def kill_pid(pid: int, start: int | None, grace: float = 5.0) -> None:
    """SIGTERM, then after @grace seconds SIGKILL, the process @pid started at @start."""
    if not pid_is(pid, start):
        reap(pid)
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    t = time.time() + grace
    while time.time() < t and pid_is(pid, start):
        time.sleep(0.1)
    if pid_is(pid, start):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reap(pid)
