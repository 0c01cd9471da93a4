# SPDX-License-Identifier: GPL-2.0-only
"""class Lab: a running lab, the state saved in LABDIR/state.json (its run directory, kernel,
results directory, the kind of lab, and per node its name, address and QEMU process), with
what can be done to it: boot, load, run a job, bring the subnet up, power off."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import json
import os
import shutil
import subprocess
import time
from typing import Any, Iterator

import cxcap

from . import jobs
from .agent import Agent
from .build import kernel_has, kver_of, prerequisites
from .common import CACHE, LABDIR, TOP, LabError, say
from .procs import adopt, kill_pid, pid_is
from .qemu import RUNTIME_PAGES, SCRATCH_DISK, SCRATCH_DISK_MIB, node_driver, qemu_cmdline
from .qmp import qmp_path
from .results import JobResult, Status
from .share import prepare_share
from .switch import SUBNET, free_udp_ports, mgmt_socket, start_switch

State = jobs.State
Node = jobs.Node

BOOT_TIMEOUT = 300
SM_PRIORITY = 10   # node1's opensm; a standby SM of a scenario uses a lower one
SM_TIMEOUT = 120   # seconds for opensm to bring every port to ACTIVE


SM_JOB = r"""
set -u
# The HCA's InfiniBand device: cxib_0 as the driver names it, or the name rdma-core's udev
# rules give it on a systemd node (ibp1s0: by PCI location, as for mlx5).
for d in /sys/bus/pci/drivers/cxib/*/infiniband/* /sys/bus/pci/drivers/mlx5_core/*/infiniband/*; do
	[ -e "$d" ] && SM_DEV=${d##*/} && break
done
. /cxlab/e2e/sm_lib.sh
if [ "$CXLAB_INDEX" = 1 ]; then
	sm_ensure "$SM_PRIORITY" || { echo "opensm did not start: see /var/log/opensm-lab.log"; exit 1; }
fi
sm_wait_active "$SM_TIMEOUT" || { echo "port 1 not ACTIVE after ${SM_TIMEOUT}s"; exit 1; }
cp /var/log/opensm-lab.log . 2>/dev/null
s=/sys/class/infiniband/$SM_DEV/ports/1
echo "lid=$(($(cat $s/lid))) smlid=$(($(cat $s/sm_lid))) port=$(cut -d' ' -f2 $s/state)"
"""


def state_path() -> str:
    return os.path.join(LABDIR, "state.json")


def new_results_dir(args: argparse.Namespace, what: str) -> str:
    """--results, or results/<time>-@what/ in the tree (with results/latest pointing to it)."""
    if args.results:
        d = os.path.abspath(args.results)
    else:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        base = os.path.join(TOP, "results", f"{stamp}-{what}")
        d, k = base, 1
        os.makedirs(os.path.dirname(base), exist_ok=True)
        while True:  # two cxlab runs in one second (make check's two kernels) get two
            try:
                os.makedirs(d)
                break
            except FileExistsError:
                k += 1
                d = f"{base}-{k}"
    os.makedirs(d, exist_ok=True)
    latest = os.path.join(os.path.dirname(d), "latest")
    if os.path.dirname(d) == os.path.join(TOP, "results"):
        try:
            if os.path.islink(latest):
                os.unlink(latest)
            os.symlink(os.path.basename(d), latest)
        except OSError:
            pass
    return d


UP_LOCK = os.path.join(CACHE, "lab-up.lock")


@contextlib.contextmanager
def up_lock() -> Iterator[None]:
    """Held while a lab builds what it needs and boots: two cxlab runs at once (make check
    runs the two kernels' labs side by side, each in its own CXLAB_DIR) share QEMU's build
    tree, build/deb and the host's free ports, so their builds and boots take turns."""
    os.makedirs(CACHE, exist_ok=True)
    with open(UP_LOCK, "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another cxlab to finish building and booting ({UP_LOCK})")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def node_names(n: int) -> list[str]:
    return [f"node{i}" for i in range(1, n + 1)]


def wait_ready(nodes: list[Node], run: str, timeout: float) -> dict[str, float]:
    """Wait until every node's agent answers; returns boot seconds per node."""
    t0 = time.time()
    agents = {n["name"]: Agent(os.path.join(run, n["name"], "agent.sock")) for n in nodes}
    ready: dict[str, float] = {}
    last_ping: dict[str, float] = {}
    last_note = t0
    while len(ready) < len(nodes):
        now = time.time()
        if now - t0 > timeout:
            missing = [n["name"] for n in nodes if n["name"] not in ready]
            raise LabError(f"{', '.join(missing)} did not come up within {timeout}s; "
                           f"see the console logs in the results directory")
        for n in nodes:
            name = n["name"]
            if name in ready:
                continue
            if not pid_is(n["pid"], n["start"]):
                raise LabError(f"{name}: QEMU exited during boot; see "
                               f"{os.path.join(run, name, 'qemu.log')} and the console log")
            a = agents[name]
            if not a.connect():
                continue
            if now - last_ping.get(name, 0) > 1.0:
                try:
                    a.send(f"PING {int(now)}")
                except OSError:
                    a.close()
                    continue
                last_ping[name] = now
            try:
                for ln in a.lines(0.05):
                    if ln.startswith("PONG"):
                        ready[name] = time.time() - n["started"]
                        say(f"{name}: up after {ready[name]:.1f}s")
                        break
            except LabError:
                a.close()
        if now - last_note > 15:
            say(f"booting... {len(ready)}/{len(nodes)} ready after {now - t0:.0f}s")
            last_note = now
        time.sleep(0.2)
    for a in agents.values():
        a.close()
    return ready


class Lab:
    """A lab: @state is what state.json holds (run, kver, results, paths, sm, init, driver,
    started, nodes, switch).  Lab.up() boots one, Lab.load() finds the running one."""

    def __init__(self, state: State) -> None:
        self.state = state

    @property
    def run(self) -> str:
        return str(self.state["run"])

    @property
    def results(self) -> str:
        return str(self.state["results"])

    @property
    def nodes(self) -> list[Node]:
        return list(self.state["nodes"])

    def get(self, key: str, default: Any = None) -> Any:
        """A state entry a lab of an older cxlab may lack (sm, init, driver)."""
        return self.state.get(key, default)

    def node(self, name: str) -> Node:
        """The node called @name; LabError naming the nodes if there is none."""
        node = next((n for n in self.nodes if n["name"] == name), None)
        if not node:
            raise LabError(f"no node {name!r}; nodes: "
                           f"{', '.join(n['name'] for n in self.nodes)}")
        return node

    def alive(self, node: Node) -> bool:
        """@node's QEMU is still the process the lab started."""
        return pid_is(node["pid"], node["start"])

    def save(self) -> None:
        with open(state_path(), "w") as f:
            json.dump(self.state, f, indent=1)

    @classmethod
    def load(cls) -> Lab | None:
        """The running lab: the saved state if one of its nodes lives, else None."""
        st = cls.saved()
        if st is None or not any(pid_is(n["pid"], n["start"]) for n in st["nodes"]):
            return None
        return cls(st)

    @staticmethod
    def saved() -> State | None:
        """The saved state, whether its nodes live or not (None if there is none)."""
        try:
            with open(state_path()) as f:
                st = json.load(f)
        except (OSError, ValueError):
            return None
        return st if isinstance(st, dict) else None

    def run_job(self, job: str, script: str, nodes: list[Node], timeout: float,
                results: str) -> dict[str, JobResult]:
        """Run @script on @nodes concurrently (jobs.run_job); returns {node: JobResult}."""
        return jobs.run_job(self.state, job, script, nodes, timeout, results)

    def sm_bringup(self, results: str, what: str = "sm") -> None:
        """With --sm opensm: (re)start opensm on node1 unless it runs on a live device, and
        wait until every port is ACTIVE.  Raises LabError with what to look at when it does
        not."""
        if self.get("sm", "model") != "opensm":   # labs of an older cxlab had no SM
            return
        path = os.path.join(self.run, "sm-job.sh")
        with open(path, "w") as f:
            f.write(f"SM_PRIORITY={SM_PRIORITY}\nSM_TIMEOUT={SM_TIMEOUT}\n" + SM_JOB)
        job = f"{what}-{int(time.time() * 1000) % 100000000}"
        res = self.run_job(job, path, self.nodes, SM_TIMEOUT + 30, results)
        bad = [n for n, r in res.items() if r.status is not Status.PASS]
        if bad:
            raise LabError(f"the subnet manager did not bring up {', '.join(sorted(bad))}: "
                           f"see {os.path.join(results, 'node1', job)} (opensm-lab.log); "
                           "or boot without it: --sm model")

    def stop_sweep_capture(self, path: str) -> None:
        """--capture-sweep: node1 recorded its cable from power-on until now; stop it."""
        try:
            cxcap.set_capture(qmp_path(self.run, "node1"), "")
        except (cxcap.CaptureError, OSError) as e:
            raise LabError(f"node1: cannot stop the capture {path}: {e}")
        s = cxcap.summarise(cxcap.read_capture(path))
        say(f"node1: cable from power-on to ACTIVE recorded in {path}: {s['packets']} packets")

    @classmethod
    def up(cls, args: argparse.Namespace, n: int, what: str,
           results: str | None = None) -> Lab:
        """Boot @n nodes.  Raises LabError after cleaning up on failure.  The logs go to
        @results, by default a new results directory."""
        driver = getattr(args, "driver", None) or "cxib"
        init = getattr(args, "init", None) or "cxlab"
        if driver != "cxib" and init != "cxlab":
            raise LabError(f"--driver {driver} needs the lab's own init (--init cxlab): a "
                           "systemd node loads cxib from its package")
        kver = kver_of(args.kernel, build=not getattr(args, "no_build", False))
        with up_lock():
            return cls._up(args, n, what, results, kver, driver, init)

    @classmethod
    def _up(cls, args: argparse.Namespace, n: int, what: str, results: str | None,
            kver: str, driver: str, init: str) -> Lab:
        paths = prerequisites(args, kver)
        if cls.load():
            raise LabError("a lab is already running: use it (cxlab run/shell/status) "
                           "or stop it with: cxlab down")
        run = os.path.join(LABDIR, "run")
        if os.path.isdir(run):
            shutil.rmtree(run)
        os.makedirs(run)
        names = node_names(n)
        for nm in names:
            os.makedirs(os.path.join(run, nm))
        if results:
            os.makedirs(results, exist_ok=True)
        else:
            results = new_results_dir(args, what)
        prepare_share(run, paths, kver, names)
        sm = getattr(args, "sm", None) or "opensm"
        lab = cls({"run": run, "kver": kver, "results": results, "paths": paths, "sm": sm,
                   "init": init, "driver": driver, "started": time.time(), "nodes": [],
                   "switch": None, "kmemleak": kernel_has(kver, "CONFIG_DEBUG_KMEMLEAK")})
        try:
            lab.boot(args, names)
            if sm == "opensm":
                say("node1: starting opensm; waiting for every port to become ACTIVE")
                t0 = time.time()
                lab.sm_bringup(results)
                say(f"subnet up after {time.time() - t0:.1f}s")
            if getattr(args, "capture_sweep", None):
                lab.stop_sweep_capture(os.path.abspath(args.capture_sweep))
        except BaseException:
            lab.down(quiet=True)
            raise
        return lab

    def boot(self, args: argparse.Namespace, names: list[str]) -> None:
        """Start the management network and a QEMU per node of @names, and wait until
        every node's agent answers."""
        st, run, n = self.state, self.run, len(names)
        ports = free_udp_ports(n + 1)
        switch_port, node_ports = ports[0], ports[1:]
        st["switch"] = start_switch(run, node_ports, switch_port)
        for i, nm in enumerate(names, 1):
            net = mgmt_socket(node_ports[i - 1], switch_port)
            sweep = getattr(args, "capture_sweep", None)
            cmd = qemu_cmdline(st["paths"], run, nm, i, n, node_ports, switch_port,
                               self.results, args.mem, st["kver"], net.fileno(), st["sm"],
                               os.path.abspath(sweep) if sweep and i == 1 else None,
                               st["init"], st["driver"], getattr(args, "strict", "on") != "off",
                               getattr(args, "runtime_pages", RUNTIME_PAGES))
            with open(os.path.join(run, nm, "cmdline"), "w") as f:
                f.write(" ".join(cmd) + "\n")
            with open(os.path.join(run, nm, SCRATCH_DISK), "wb") as f:
                f.truncate(SCRATCH_DISK_MIB << 20)
            say(f"{nm}: starting QEMU (TCG, 1 vCPU, {args.mem} MiB, {SUBNET}{i}"
                f"{', systemd' if st['init'] == 'systemd' else ''}, "
                f"{node_driver(st['driver'], i)})")
            try:
                with open(os.path.join(run, nm, "qemu.log"), "w") as log:
                    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         pass_fds=[net.fileno()])
            finally:
                net.close()
            st["nodes"].append({"name": nm, "index": i, **adopt(p), "addr": f"{SUBNET}{i}",
                                "started": time.time()})
        self.save()
        boot = wait_ready(st["nodes"], run, args.boot_timeout)
        for node in st["nodes"]:
            node["boot_s"] = round(boot[node["name"]], 1)
        self.save()

    def down(self, quiet: bool = False) -> None:
        """Power the nodes off (POWEROFF to the agents, then SIGTERM/SIGKILL), stop the
        relay, keep the QEMU logs with the results, forget the state."""
        st = self.state
        for node in st["nodes"]:
            a = Agent(os.path.join(st["run"], node["name"], "agent.sock"))
            if pid_is(node["pid"], node["start"]) and a.connect():
                try:
                    a.send("POWEROFF")
                except OSError:
                    pass
                a.close()
        deadline = time.time() + 5
        while time.time() < deadline and any(pid_is(nd["pid"], nd["start"])
                                             for nd in st["nodes"]):
            time.sleep(0.1)
        for node in st["nodes"]:
            kill_pid(node["pid"], node["start"])
        if st.get("switch"):
            kill_pid(st["switch"]["pid"], st["switch"]["start"])
        for node in st["nodes"]:
            src = os.path.join(st["run"], node["name"], "qemu.log")
            dst = os.path.join(st["results"], node["name"], "qemu.log")
            if os.path.exists(src) and os.path.isdir(os.path.dirname(dst)):
                shutil.copy2(src, dst)
        try:
            os.unlink(state_path())
        except OSError:
            pass
        if not quiet:
            say(f"lab stopped; logs in {st['results']}")
