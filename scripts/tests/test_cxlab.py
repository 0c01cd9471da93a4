# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of scripts/cxlab itself: the status table, QMP, scenario lookup, --script.

Run: python3 -m unittest discover -s scripts/tests -t scripts/tests
"""

import argparse
import importlib.machinery
import importlib.util
import json
import os
import shutil
import socket
import tempfile
import sys
import threading
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


sys.path.insert(0, os.path.join(TOP, "scripts", "lib"))
from cxlab import build, commands, common, jobs, qemu, results, scenarios, status  # noqa: E402
from cxlab import diag, fault, trace  # noqa: E402
from cxlab.lab import Lab, SM_PRIORITY  # noqa: E402
from cxlab import qmp as qmp_mod  # noqa: E402


class FakeQEMU:
    """A QMP server on @path answering qom-get from @props ({(path, property): value});
    an absent property gets QEMU's error.  Sends an event before each answer."""

    def __init__(self, path, props):
        self.props, self.seen, self.requests = props, [], []
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(4)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            with c:
                c.sendall(b'{"QMP": {"version": {"qemu": {"major": 7, "minor": 2}}, '
                          b'"capabilities": []}}\r\n')
                f = c.makefile("rb")
                for line in f:
                    req = json.loads(line)
                    self.seen.append(req["execute"])
                    self.requests.append(req)
                    c.sendall(b'{"timestamp": {"seconds": 1, "microseconds": 2}, '
                              b'"event": "NIC_RX_FILTER_CHANGED"}\r\n')
                    ans = {"id": req.get("id")}
                    if req["execute"] == "human-monitor-command":
                        ans["return"] = "OK id: hca1 root bus: pcie.0\r\n"
                    elif req["execute"] == "qom-get":
                        a = req["arguments"]
                        key = (a["path"], a["property"])
                        if key in self.props:
                            ans["return"] = self.props[key]
                        else:
                            ans["error"] = {"class": "GenericError",
                                            "desc": f"Property 'cxib-pci.{a['property']}' "
                                                    "not found"}
                    else:
                        ans["return"] = {}
                    c.sendall(json.dumps(ans).encode() + b"\r\n")

    def close(self):
        self.srv.close()


def hca(cable, loopback=False, stats="link_up1=1 sq_doorbells=3"):
    p = "/machine/peripheral/hca1"
    out = {(p, "loopback"): loopback, (p, "stats"): stats}
    if cable is not None:
        out[(p, "cable")] = cable
    return out


class StatusTable(unittest.TestCase):
    """The IB cable column comes from the device (QOM over QMP), not from QEMU's log."""

    def setUp(self):
        self.run = tempfile.mkdtemp()
        self.servers = []
        self.addCleanup(shutil.rmtree, self.run)

    def tearDown(self):
        for s in self.servers:
            s.close()

    def qemu(self, node, props, log=""):
        os.makedirs(os.path.join(self.run, node))
        with open(os.path.join(self.run, node, "qemu.log"), "w") as f:
            f.write(log)
        self.servers.append(FakeQEMU(os.path.join(self.run, node, "qmp.sock"), props))

    def rows(self, names):
        info = {"pci": "15b3:1013@0000:01:00.0", "driver": "cxib", "fw": "12.28.1002",
                "kernel": "6.12.117+deb12-amd64"}
        return [status.status_row({"name": n, "addr": f"192.0.2.{i}", "boot_s": 16.1}, info,
                              status.read_hca(self.run, n)) for i, n in enumerate(names, 1)]

    def column(self, text, header):
        lines = text.splitlines()
        start = lines[0].index(header)
        end = lines[1].index(" ", start) if " " in lines[1][start:] else None
        return [ln[start:end].strip() for ln in lines[2:]]

    def test_cable_up_down_none_loopback(self):
        self.qemu("node1", hca("/run/cable-1-2.sock"),
                  log="cxib-pci hca1: cable up, peer guid 0x0002c90300a00002 port 1\n")
        self.qemu("node2", hca("/run/cable-1-2.sock", stats="link_up1=0 sq_doorbells=0"),
                  log="cxib-pci: cable up\n")  # a log line no longer decides anything
        self.qemu("node3", hca(""))
        self.qemu("node4", hca("", loopback=True))
        text = status.status_table(self.rows(["node1", "node2", "node3", "node4"]))
        self.assertEqual(self.column(text, "IB cable"), ["up", "down", "none", "loopback"])
        self.assertEqual(self.column(text, "node"), ["node1", "node2", "node3", "node4"])
        self.assertEqual(self.column(text, "boot"), ["16.1s"] * 4)

    def test_qmp_is_asked_for_the_properties(self):
        self.qemu("node1", hca("/run/c.sock"))
        got = status.read_hca(self.run, "node1")
        self.assertEqual(got, {"cable": "/run/c.sock", "loopback": False,
                               "stats": "link_up1=1 sq_doorbells=3"})
        self.assertEqual(self.servers[0].seen[0], "qmp_capabilities")
        self.assertEqual(self.servers[0].seen[1:], ["qom-get"] * len(status.HCA_PROPERTIES))

    def test_refused_property_is_unknown(self):
        self.qemu("node1", hca(None))
        got = status.read_hca(self.run, "node1")
        self.assertIn("cable", got["errors"])
        self.assertEqual(status.cable_state(got), "?")

    def test_no_qmp_socket_is_unknown_and_says_where(self):
        os.makedirs(os.path.join(self.run, "node1"))
        got = status.read_hca(self.run, "node1")
        self.assertIn(os.path.join(self.run, "node1", "qmp.sock"), got["error"])
        row = self.rows(["node1"])[0]
        self.assertEqual(row["cable"], "?")

    def test_link_without_counter_is_unknown(self):
        self.assertEqual(status.cable_state({"cable": "/c", "loopback": False, "stats": "x=1"}),
                         "?")

    def test_json_row_keeps_the_cable(self):
        self.qemu("node1", hca("/run/c.sock"))
        self.assertEqual(json.loads(json.dumps(self.rows(["node1"])))[0]["cable"], "up")

    def test_qemu_command_line_has_a_qmp_socket(self):
        paths = {k: f"/x/{k}" for k in ("qemu", "kernel", "initramfs", "rootfs")}
        cmd = qemu.qemu_cmdline(paths, self.run, "node1", 1, 2, [1, 2], 3, self.run, 1024,
                              "6.12", netfd=5)
        i = cmd.index("-qmp")
        self.assertEqual(cmd[i + 1],
                         f"unix:{os.path.join(self.run, 'node1')}/qmp.sock,server=on,wait=off")
        self.assertIn(f"cxib-pci,id=hca1,bus=rp1,guid=0x2c90300a00001,serial=1,"
                      f"cmd-trace={self.run}/node1/cmd-trace.txt,strict=on,runtime-pages=0,"
                      f"cable={self.run}/cable-1-2.sock,cable-listen=on,auto-activate=off", cmd)

    def test_strict_mode_can_be_turned_off(self):
        paths = {k: f"/x/{k}" for k in ("qemu", "kernel", "initramfs", "rootfs")}
        cmd = qemu.qemu_cmdline(paths, self.run, "node1", 1, 2, [1, 2], 3, self.run, 1024,
                              "6.12", netfd=5, strict=False)
        dev = next(a for a in cmd if a.startswith("cxib-pci,"))
        self.assertIn(",strict=off,", dev)
        cmd = qemu.qemu_cmdline(paths, self.run, "node1", 1, 2, [1, 2], 3, self.run, 1024,
                              "6.12", netfd=5, runtime_pages=2)
        self.assertIn(",runtime-pages=2,", next(a for a in cmd if a.startswith("cxib-pci,")))

    def test_every_node_has_a_scratch_disk_of_its_own(self):
        paths = {k: f"/x/{k}" for k in ("qemu", "kernel", "initramfs", "rootfs")}
        for node, idx in (("node1", 1), ("node2", 2)):
            cmd = qemu.qemu_cmdline(paths, self.run, node, idx, 2, [1, 2], 3, self.run, 1024,
                                  "6.12", netfd=5)
            drives = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-drive"]
            self.assertEqual(drives[1], f"file={os.path.join(self.run, node)}/scratch.img,"
                                        "if=virtio,format=raw")
            self.assertIn("snapshot=on", drives[0])  # the shared image stays untouched

    def test_only_sm_model_lets_the_device_activate_its_port(self):
        paths = {k: f"/x/{k}" for k in ("qemu", "kernel", "initramfs", "rootfs")}
        for sm, want in (("opensm", True), ("none", True), ("model", False)):
            cmd = qemu.qemu_cmdline(paths, self.run, "node2", 2, 2, [1, 2], 3, self.run, 1024,
                                  "6.12", netfd=5, sm=sm)
            dev = next(a for a in cmd if a.startswith("cxib-pci,"))
            self.assertEqual("auto-activate=off" in dev.split(","), want, sm)

    def test_port_lid_and_sm_lid_columns(self):
        row = status.status_row({"name": "node2", "addr": "192.0.2.2", "boot_s": 1.0},
                            {"pci": "15b3:1013@0000:01:00.0", "driver": "cxib", "fw": "12.28.1002",
                             "lid": "2", "smlid": "1", "port": "ACTIVE", "kernel": "6.12"},
                            hca("/run/c.sock"))
        text = status.status_table([row])
        head, _, line = text.splitlines()
        cols = dict(zip([h.strip() for h in head.split("  ") if h.strip()],
                        [c.strip() for c in line.split("  ") if c.strip()]))
        self.assertEqual((cols["port"], cols["LID"], cols["SM LID"]), ("ACTIVE", "2", "1"))


class FailedJobState(unittest.TestCase):
    """A failed job keeps each node's model state and names the loss counters that moved."""

    P = "/machine/peripheral/hca1"

    def setUp(self):
        self.run = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.run)
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.close()

    def qemu(self, node, stats, cable, engines="QP 0x12 RC RTS\n"):
        os.makedirs(os.path.join(self.run, node), exist_ok=True)
        props = {(self.P, "stats"): stats, (self.P, "engines"): engines}
        if cable is not None:
            props[(self.P, "cable-stats")] = cable
        srv = FakeQEMU(os.path.join(self.run, node, "qmp.sock"), props)
        self.servers.append(srv)
        return srv

    def test_moved_counters_are_named_and_the_state_is_kept(self):
        srv = self.qemu("node1", "link_up1=1 out_of_buffer=2 pkts_sent=10",
                        "tx_pkts=10 tx_drop_full=0")
        before = diag.snapshot(self.run, ["node1"])
        srv.props[(self.P, "stats")] = "link_up1=1 out_of_buffer=5 pkts_sent=99"
        srv.props[(self.P, "cable-stats")] = "tx_pkts=98 tx_drop_full=1"
        res = os.path.join(self.run, "results")
        with mock.patch("sys.stdout"):
            got = diag.dump_failed_job(self.run, ["node1"], "pingpong", res, before)
        self.assertEqual(got, {"node1": ["out_of_buffer +3", "cable tx_drop_full +1"]})
        with open(os.path.join(res, "node1", "pingpong", "model-state.txt")) as f:
            text = f.read()
        self.assertIn("out_of_buffer=2", text)      # before
        self.assertIn("out_of_buffer=5", text)      # after
        self.assertIn("QP 0x12 RC RTS", text)       # the engines

    def test_a_property_qemu_refuses_is_marked_not_fatal(self):
        self.qemu("node1", "out_of_buffer=1", None)
        got = diag.read_props(self.run, "node1", diag.STATE)
        self.assertTrue(got["cable-stats"].startswith("(unavailable:"))
        self.assertEqual(got["stats"], "out_of_buffer=1")

    def test_no_qemu_is_marked_for_every_property(self):
        got = diag.read_props(self.run, "node9", diag.STATE)
        self.assertEqual(set(got), set(diag.STATE))
        self.assertTrue(all(v.startswith("(unavailable:") for v in got.values()))

    def test_a_running_job_keeps_the_state_once_per_label(self):
        srv = self.qemu("node1", "out_of_buffer=1", "tx_pkts=1")
        with mock.patch("sys.stdout"):
            diag.keep_state(self.run, ["node1"], "mlx5", "uc_pingpong/-e ../x")
            srv.props[(self.P, "stats")] = "out_of_buffer=7"
            diag.keep_state(self.run, ["node1"], "mlx5", "uc_pingpong/-e ../x")
        d = os.path.join(self.run, "share", "results", "mlx5", "node1")
        self.assertEqual(os.listdir(d), ["model-state-uc_pingpong_-e_.._x.txt"])
        with open(os.path.join(d, os.listdir(d)[0])) as f:
            self.assertIn("out_of_buffer=1\n", f.read())


class Faults(unittest.TestCase):
    """cxlab fault: the model's faults through the fault property, AER through QEMU."""

    def setUp(self):
        self.run = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.run)
        os.makedirs(os.path.join(self.run, "node1"))
        self.srv = FakeQEMU(os.path.join(self.run, "node1", "qmp.sock"), {})
        self.addCleanup(self.srv.close)

    def apply(self, kind, *args):
        with qmp_mod.QMP(qmp_mod.qmp_path(self.run, "node1")) as q:
            return fault.apply(q, self.run, "node1", kind, list(args))

    def test_a_model_fault_is_one_qom_set_of_the_whole_line(self):
        self.apply("loss", "1%")
        req = self.srv.requests[-1]
        self.assertEqual(req["execute"], "qom-set")
        self.assertEqual(req["arguments"], {"path": "/machine/peripheral/hca1",
                                            "property": "fault", "value": "loss 1%"})

    def test_aer_classes_map_to_qemu_error_names(self):
        self.assertIn("fatal", self.apply("aer", "fatal"))
        self.assertEqual(self.srv.requests[-1]["arguments"]["command-line"],
                         "pcie_aer_inject_error hca1 MALF_TLP")
        self.apply("aer", "correctable")
        self.assertTrue(self.srv.requests[-1]["arguments"]["command-line"].endswith("RCVR"))
        with self.assertRaises(common.LabError) as cm:
            self.apply("aer", "severe")
        self.assertIn("correctable|nonfatal|fatal", str(cm.exception))

    def test_add_uses_the_properties_the_hca_booted_with(self):
        with open(os.path.join(self.run, "node1", "cmdline"), "w") as f:
            f.write("qemu -device pcie-root-port,id=rp1 -device cxib-pci,id=hca1,bus=rp1,"
                    "serial=1,cable=/x/c.sock,cable-listen=on -append a b\n")
        self.assertEqual(fault.hca_device_arg(self.run, "node1"),
                         "cxib-pci,id=hca1,bus=rp1,serial=1,cable=/x/c.sock,cable-listen=on")


class FirstFailure(unittest.TestCase):
    """A failed job's row names its first failed check, nested scenarios' included."""

    OUT = ["ok   modprobe mlx5_core", "FAIL cxib-serves: perftest",
           "     summary perftest passed=11 failed=1", "ok   cxib-serves: kverbs",
           "summary mlx5 node=node2 driver=mlx5 passed=36 failed=1",
           "     FAIL send_lat 65536 (no result line)", "     FAIL later one"]

    def test_top_and_nested(self):
        self.assertEqual(results.first_failure(self.OUT),
                         "FAIL cxib-serves: perftest > FAIL send_lat 65536 (no result line)")

    def test_none_failed(self):
        self.assertIsNone(results.first_failure(["ok   a", "summary passed=1 failed=0"]))

    def test_cut_to_width(self):
        text = results.first_failure(["FAIL " + "x" * 200], width=40)
        self.assertEqual(len(text), 40)
        self.assertTrue(text.endswith("..."))

    def test_row_shows_it_only_when_failed(self):
        r = results.JobResult(results.Status.FAIL, 1, last_line="summary failed=1",
                              first_fail="FAIL a")
        self.assertEqual(r.summary(), "FAIL a")
        self.assertEqual(r.to_json()["first_fail"], "FAIL a")
        r.status = results.Status.PASS
        self.assertEqual(r.summary(), "summary failed=1")


class SubnetManager(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.jobs = []
        self.saved = Lab.run_job
        self.addCleanup(setattr, Lab, "run_job", self.saved)

    def fake(self, status):
        def run_job(lab, job, script, nodes, timeout, results_dir):
            with open(script) as f:
                self.jobs.append((job, f.read(), [n["name"] for n in nodes]))
            return {n["name"]: results.JobResult(results.Status(status),
                                                 0 if status == "pass" else 1, 0.1)
                    for n in nodes}
        Lab.run_job = run_job

    def st(self, sm):
        return {"run": self.tmp, "sm": sm, "nodes": [{"name": "node1"}, {"name": "node2"}]}

    def test_opensm_runs_the_sm_job_on_every_node(self):
        self.fake("pass")
        Lab(self.st("opensm")).sm_bringup(self.tmp)
        self.assertEqual(len(self.jobs), 1)
        job, text, nodes = self.jobs[0]
        self.assertEqual(nodes, ["node1", "node2"])
        self.assertIn("sm_ensure", text)
        self.assertIn("sm_wait_active", text)
        self.assertIn(f"SM_PRIORITY={SM_PRIORITY}", text)

    def test_no_sm_job_without_opensm(self):
        self.fake("pass")
        for sm in ("model", "none"):
            Lab(self.st(sm)).sm_bringup(self.tmp)
        Lab({"run": self.tmp, "nodes": []}).sm_bringup(self.tmp)   # an older lab
        self.assertEqual(self.jobs, [])

    def test_a_port_that_stays_down_is_an_error_that_says_what_to_do(self):
        self.fake("FAIL")
        with self.assertRaises(common.LabError) as e:
            Lab(self.st("opensm")).sm_bringup(self.tmp)
        self.assertIn("node1, node2", str(e.exception))
        self.assertIn("--sm model", str(e.exception))

class AgentsLock(unittest.TestCase):
    """One cxlab command at a time talks to a lab's agents; another waits, saying for whom."""

    def setUp(self):
        self.run = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.run)

    def test_a_second_holder_waits_and_names_the_first(self):
        with mock.patch.object(jobs, "say") as said:
            with jobs.agents_lock(self.run, "perftest-1"):
                with self.assertRaises(common.LabError) as e:
                    with jobs.agents_lock(self.run, "status-2", timeout=0.6):
                        pass
        self.assertIn("job perftest-1", str(e.exception))
        self.assertIn(f"(pid {os.getpid()})", str(e.exception))
        self.assertTrue(any("status-2: waiting for job perftest-1" in c.args[0]
                            for c in said.call_args_list))

    def test_free_again_once_the_holder_ends(self):
        with jobs.agents_lock(self.run, "a"):
            pass
        with jobs.agents_lock(self.run, "b", timeout=0.1):
            with open(os.path.join(self.run, jobs.AGENTS_LOCK)) as f:
                self.assertIn(" b: ", f.read())
        with open(os.path.join(self.run, jobs.AGENTS_LOCK)) as f:
            self.assertEqual(f.read(), "")

    def test_the_waiter_goes_on_when_the_job_before_it_ends(self):
        got = threading.Event()
        with jobs.agents_lock(self.run, "first"):
            def second():
                with mock.patch.object(jobs, "say"):
                    with jobs.agents_lock(self.run, "second", timeout=10):
                        got.set()
            t = threading.Thread(target=second)
            t.start()
            self.assertFalse(got.wait(0.8))
        t.join(10)
        self.assertTrue(got.is_set())


class Scenarios(unittest.TestCase):
    def test_lib_is_not_listed(self):
        names = scenarios.scenario_names()
        self.assertIn("smoke", names)
        self.assertNotIn("lib", names)

    def test_unknown_scenario_lists_only_scenarios(self):
        with self.assertRaises(common.LabError) as e:
            scenarios.find_scenario("nosuch")
        msg = str(e.exception)
        self.assertIn("no scenario 'nosuch'", msg)
        avail = msg.split("available: ", 1)[1].split(", ")
        self.assertIn("smoke", avail)
        self.assertNotIn("lib", avail)

    def test_library_by_name_is_refused(self):
        with self.assertRaises(common.LabError) as e:
            scenarios.find_scenario("lib")
        self.assertIn("not a scenario", str(e.exception))

    def test_scenario_by_name_and_with_sh(self):
        want = os.path.join(TOP, "tests", "e2e", "smoke.sh")
        self.assertEqual(scenarios.find_scenario("smoke"), want)
        self.assertEqual(scenarios.find_scenario("smoke.sh"), want)

    def test_a_directory_of_scenarios(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for name, text in (("a.sh", "#!/bin/bash\n"), ("helpers.sh", "f() { :; }\n"),
                           ("notes.txt", "#!/bin/bash\n")):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        self.assertEqual(scenarios.scenario_names(d), ["a"])


class Script(unittest.TestCase):
    def test_standard_input(self):
        import io
        self.assertEqual(commands.read_script("-", io.BytesIO(b"echo hi\n")), b"echo hi\n")

    def test_pipe_as_dev_fd(self):
        r, w = os.pipe()
        os.write(w, b"#!/bin/bash\nuname -r\n")
        os.close(w)
        try:
            self.assertEqual(commands.read_script(f"/dev/fd/{r}"), b"#!/bin/bash\nuname -r\n")
        finally:
            os.close(r)

    def test_file(self):
        with tempfile.NamedTemporaryFile("wb", suffix=".sh") as f:
            f.write(b"true\n")
            f.flush()
            self.assertEqual(commands.read_script(f.name), b"true\n")

    def test_empty_and_missing_say_what_to_do(self):
        import io
        with self.assertRaises(common.LabError) as e:
            commands.read_script("-", io.BytesIO(b" \n"))
        self.assertIn("empty", str(e.exception))
        with self.assertRaises(common.LabError) as e:
            commands.read_script("/nonexistent/x.sh")
        self.assertIn("- to read it from standard input", str(e.exception))
        with self.assertRaises(common.LabError) as e:
            commands.read_script(tempfile.gettempdir())
        self.assertIn("is a directory", str(e.exception))

    def test_run_takes_the_script_from_standard_input(self):
        import contextlib
        import io
        import sys
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        st = {"run": tmp, "kver": "6.12", "nodes": [{"name": "node1", "addr": "192.0.2.1"}]}
        ran = []

        def run_job(lab, job, script, nodes, timeout, results_dir):
            with open(script, "rb") as f:
                ran.append((job, f.read()))
            return {"node1": results.JobResult(results.Status.PASS, 0, 0.1)}
        saved = (Lab.load, Lab.run_job, commands.new_results_dir, sys.stdin)
        Lab.load, Lab.run_job = (lambda: Lab(st)), run_job
        commands.new_results_dir = lambda args, what: tmp
        sys.stdin = io.TextIOWrapper(io.BytesIO(b"#!/bin/bash\necho from-stdin\n"))
        try:
            args = argparse.Namespace(scenarios=[], script="-", timeout=None, node=None,
                                      nodes=None, verbose=False, json=None, results=None)
            with contextlib.redirect_stdout(io.StringIO()):
                rc = commands.cmd_run(args)
        finally:
            Lab.load, Lab.run_job, commands.new_results_dir, sys.stdin = saved
        self.assertEqual(rc, 0)
        self.assertEqual(len(ran), 1)
        self.assertTrue(ran[0][0].startswith("script-"))
        self.assertEqual(ran[0][1], b"#!/bin/bash\necho from-stdin\n")
        with open(os.path.join(tmp, "script.sh"), "rb") as f:
            self.assertEqual(f.read(), ran[0][1])  # a copy stays with the results


class ModuleIndex(unittest.TestCase):
    """depmod on the host for the guest's tree with the host-built modules in updates/cxlab."""

    def tree(self):
        """A small module tree made of a few of the host's real modules."""
        import glob
        import lzma
        found = sorted(glob.glob("/lib/modules/*/kernel/lib/*.ko*"))
        if len(found) < 2 or not (shutil.which("depmod") or os.path.exists("/usr/sbin/depmod")):
            self.skipTest("needs a kernel's modules in /lib/modules and depmod (kmod)")
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        moddir = os.path.join(tmp, "host")
        os.makedirs(os.path.join(moddir, "kernel", "lib"))
        shutil.copy2(found[0], os.path.join(moddir, "kernel", "lib"))
        with open(os.path.join(moddir, "modules.order"), "w") as f:
            f.write("kernel/lib/" + os.path.basename(found[0]) + "\n")
        ours = os.path.join(tmp, "ours.ko")
        opener = lzma.open if found[1].endswith(".xz") else open
        with opener(found[1], "rb") as src, open(ours, "wb") as dst:
            dst.write(src.read())
        return moddir, {"ours.ko": ours}, os.path.join(tmp, "cache")

    def test_index_lists_the_installed_module_and_is_cached(self):
        import contextlib
        import io
        moddir, mods, cache = self.tree()
        with contextlib.redirect_stdout(io.StringIO()):
            out = build.module_index("9.9.9-test", mods, moddir=moddir, cache=cache)
        with open(os.path.join(out, "modules.dep")) as f:
            dep = f.read()
        self.assertIn("updates/cxlab/ours.ko:", dep)
        self.assertIn("kernel/lib/", dep)
        self.assertTrue(os.path.isfile(os.path.join(out, "modules.dep.bin")))
        self.assertFalse(os.path.exists(os.path.join(out, "modules.order")))
        saved = build.subprocess.run
        build.subprocess.run = None  # a second call must not run depmod
        try:
            self.assertEqual(build.module_index("9.9.9-test", mods, moddir=moddir, cache=cache),
                             out)
        finally:
            build.subprocess.run = saved
        with open(mods["ours.ko"], "ab") as f:
            f.write(b"\0")  # another build of the module: another index
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertNotEqual(build.module_index("9.9.9-test", mods, moddir=moddir,
                                                cache=cache), out)

    def test_a_built_kernel_is_found_by_its_release_once_complete(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        key = os.path.join(tmp, "0123456789abcdef")
        os.makedirs(key)
        with open(os.path.join(key, "kernelrelease"), "w") as f:
            f.write("9.9.9-cxib-debug\n")
        with open(os.path.join(key, "config"), "w") as f:
            f.write("CONFIG_DEBUG_KMEMLEAK=y\n# CONFIG_KASAN is not set\n")
        saved = build.KERNEL_CACHE
        build.KERNEL_CACHE = tmp
        try:
            # still being built (no "done"): Debian's places
            self.assertEqual(build.kernel_files("9.9.9-cxib-debug")["kernel"],
                             "/boot/vmlinuz-9.9.9-cxib-debug")
            with open(os.path.join(key, "done"), "w") as f:
                f.write("key=0123456789abcdef\n")
            kf = build.kernel_files("9.9.9-cxib-debug")
            self.assertEqual(kf["kernel"], os.path.join(key, "bzImage"))
            self.assertEqual(kf["moddir"], os.path.join(key, "modules", "lib", "modules",
                                                        "9.9.9-cxib-debug"))
            self.assertEqual(kf["kdir"], os.path.join(key, "build"))
            self.assertTrue(build.kernel_has("9.9.9-cxib-debug", "CONFIG_DEBUG_KMEMLEAK"))
            self.assertFalse(build.kernel_has("9.9.9-cxib-debug", "CONFIG_KASAN"))
            self.assertFalse(build.kernel_has("9.9.9-cxib-debug", "CONFIG_DEBUG_KMEMLEAK_"))
            self.assertEqual(build.kernel_files("9.9.9-other")["moddir"],
                             "/lib/modules/9.9.9-other")
            # another build of the same release, of another fragment: the one used last wins
            key2 = os.path.join(tmp, "fedcba9876543210")
            os.makedirs(key2)
            for f in ("kernelrelease", "done"):
                shutil.copy2(os.path.join(key, f), os.path.join(key2, f))
            os.utime(os.path.join(key, "done"), (1000, 1000))
            os.utime(os.path.join(key2, "done"), (2000, 2000))
            self.assertEqual(build.kernel_files("9.9.9-cxib-debug")["kdir"],
                             os.path.join(key2, "build"))
            os.utime(os.path.join(key, "done"), (3000, 3000))
            self.assertEqual(build.kernel_files("9.9.9-cxib-debug")["kdir"],
                             os.path.join(key, "build"))
        finally:
            build.KERNEL_CACHE = saved

    def test_missing_kernel_modules_say_what_to_install(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        ko = os.path.join(tmp, "cxib.ko")
        with open(ko, "wb") as f:
            f.write(b"x")
        with self.assertRaises(common.LabError) as e:
            build.module_index("9.9.9-test", {"cxib.ko": ko}, moddir=os.path.join(tmp, "none"),
                            cache=os.path.join(tmp, "cache"))
        self.assertIn("scripts/setup", str(e.exception))



class Capture(unittest.TestCase):
    def setUp(self):
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
        import cxcap
        self.cxcap = cxcap
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.calls = []
        saved = (Lab.load, cxcap.set_capture, cxcap.read_capture, commands.time.sleep)
        self.addCleanup(self.restore, saved)
        st = {"run": self.tmp, "nodes": [{"name": f"node{i}"} for i in (1, 2, 3, 4)]}
        Lab.load = lambda: Lab(st)
        cxcap.set_capture = lambda sock, path: self.calls.append((sock, path))
        cxcap.read_capture = lambda path: []
        commands.time.sleep = lambda t: None

    def restore(self, saved):
        Lab.load, self.cxcap.set_capture, self.cxcap.read_capture, commands.time.sleep = saved

    def args(self, **kw):
        a = dict(file=os.path.join(self.tmp, "c.pcap"), cable=None, node=None, seconds=0.01,
                 json=os.path.join(self.tmp, "c.json"))
        a.update(kw)
        return argparse.Namespace(**a)

    def run_capture(self, **kw):
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return commands.cmd_capture(self.args(**kw))

    def test_starts_and_stops_on_the_cables_lower_node(self):
        self.assertEqual(self.run_capture(cable=2), 0)
        sock = os.path.join(self.tmp, "node3", "qmp.sock")
        self.assertEqual(self.calls, [(sock, os.path.join(self.tmp, "c.pcap")), (sock, "")])
        with open(os.path.join(self.tmp, "c.json")) as f:
            self.assertEqual(json.load(f)["node"], "node3")

    def test_default_is_node1_and_bad_requests_say_why(self):
        self.assertEqual(self.run_capture(), 0)
        self.assertTrue(self.calls[0][0].endswith("node1/qmp.sock"))
        with self.assertRaises(common.LabError):
            self.run_capture(cable=1, node="node2")
        with self.assertRaises(common.LabError):
            self.run_capture(node="node9")
        with self.assertRaises(common.LabError):
            self.run_capture(seconds=0)


class DriverLab(unittest.TestCase):
    """--driver: which nodes load cxib and which the stock mlx5_core + mlx5_ib."""

    def test_each_node_gets_its_driver(self):
        self.assertEqual([qemu.node_driver("cxib", i) for i in (1, 2, 3)], ["cxib"] * 3)
        self.assertEqual([qemu.node_driver("mlx5", i) for i in (1, 2)], ["mlx5"] * 2)
        # mixed: every cable joins a cxib node (odd) and an mlx5 one (even)
        self.assertEqual([qemu.node_driver("mixed", i) for i in (1, 2, 3, 4)],
                         ["cxib", "mlx5", "cxib", "mlx5"])

    def test_the_kernel_command_line_names_the_driver(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        paths = {k: f"/x/{k}" for k in ("qemu", "kernel", "initramfs", "rootfs")}

        def append(idx, **kw):
            cmd = qemu.qemu_cmdline(paths, tmp, f"node{idx}", idx, 2, [1, 2], 3, tmp, 1024,
                                  "6.12", netfd=5, **kw)
            return cmd[cmd.index("-append") + 1].split()
        self.assertIn("cxlab.driver=cxib", append(1))
        self.assertIn("cxlab.driver=mlx5", append(2, driver="mlx5"))
        self.assertIn("cxlab.driver=cxib", append(1, driver="mixed"))
        self.assertIn("cxlab.driver=mlx5", append(2, driver="mixed"))

    def test_a_scenario_asks_for_its_driver(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, "s.sh")
        with open(path, "w") as f:
            f.write("#!/bin/bash\n# cxlab: nodes=2 driver=mixed\n")
        self.assertEqual(scenarios.scenario_meta(path)["driver"], "mixed")
        with open(path, "w") as f:
            f.write("#!/bin/bash\n# cxlab: driver=mlx4\n")
        with self.assertRaises(common.LabError):
            scenarios.scenario_meta(path)
        jobs = [("a", "a.sh", {"nodes": 2}), ("m", "m.sh", {"nodes": 2, "driver": "mixed"})]
        base = {"init": "cxlab", "sm": "opensm", "driver": "cxib"}
        groups = scenarios.lab_groups(jobs, base)
        self.assertEqual([p["driver"] for p, _ in groups], ["cxib", "mixed"])
        msg = scenarios.lab_mismatch(jobs, {"init": "cxlab", "sm": "opensm"})
        self.assertIn("m needs a lab with --driver mixed", msg)

    def test_the_stock_driver_needs_the_labs_own_init(self):
        import argparse
        args = argparse.Namespace(init="systemd", driver="mlx5", kernel="6.12")
        with self.assertRaises(common.LabError) as e:
            Lab.up(args, 2, "up")
        self.assertIn("--init cxlab", str(e.exception))


class SystemdLab(unittest.TestCase):
    """--init systemd: the image, the kernel command line, the package on the share, and
    the scenarios that ask for such a lab in their cxlab: line."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def scenario(self, line, name="s.sh"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0-only\n{line}\n")
        return path

    def test_the_systemd_image_is_the_lab_image_plus_systemd(self):
        self.assertNotIn("--extra-packages", build.mkrootfs_cmd("6.12.1"))
        cmd = build.mkrootfs_cmd("6.12.1", "systemd")
        self.assertEqual(cmd[cmd.index("--extra-packages") + 1], "systemd")
        self.assertEqual(cmd[cmd.index("--kver") + 1], "6.12.1")

    def test_kernel_command_line_names_the_init(self):
        paths = {k: f"/x/{k}" for k in ("qemu", "kernel", "initramfs", "rootfs")}

        def append(**kw):
            cmd = qemu.qemu_cmdline(paths, self.tmp, "node1", 1, 2, [1, 2], 3, self.tmp, 1024,
                                  "6.12", netfd=5, **kw)
            return cmd[cmd.index("-append") + 1].split()
        self.assertIn("cxlab.init=/cxlab/guest/init", append())
        self.assertNotIn("net.ifnames=0", append())
        words = append(init="systemd")
        self.assertIn("cxlab.init=/cxlab/guest/init-systemd", words)
        self.assertIn("net.ifnames=0", words)  # eth0 keeps its name for the init
        for init in qemu.INITS.values():
            self.assertTrue(os.access(os.path.join(TOP, "scripts", "guest",
                                                   os.path.basename(init)), os.X_OK), init)

    def test_the_package_is_the_one_deb_make_deb_left(self):
        saved = build.DEB_DIR
        self.addCleanup(setattr, build, "DEB_DIR", saved)
        build.DEB_DIR = self.tmp
        with self.assertRaises(common.LabError) as e:
            build.package_deb(build=False)
        self.assertIn("make deb", str(e.exception))
        deb = os.path.join(self.tmp, "cxib-dkms_0.1.0_all.deb")
        open(deb, "w").close()
        open(os.path.join(self.tmp, "cxib_0.1.0.dsc"), "w").close()
        self.assertEqual(build.package_deb(build=False), deb)
        open(os.path.join(self.tmp, "cxib-dkms_0.2.0_all.deb"), "w").close()
        with self.assertRaises(common.LabError):
            build.package_deb(build=False)  # which one? the lab does not guess

    def test_scenario_line_asks_for_init_and_sm(self):
        meta = scenarios.scenario_meta(self.scenario("# cxlab: nodes=2 timeout=90 init=systemd sm=none"))
        self.assertEqual(meta, {"nodes": 2, "timeout": 90, "init": "systemd", "sm": "none"})
        self.assertEqual(scenarios.scenario_meta(self.scenario("# cxlab: nodes=2")),
                         {"nodes": 2, "timeout": 600})
        with self.assertRaises(common.LabError) as e:
            scenarios.scenario_meta(self.scenario("# cxlab: init=upstart"))
        self.assertIn("init=upstart", str(e.exception))
        self.assertIn("systemd", str(e.exception))

    def test_package_boot_asks_for_a_systemd_lab_without_an_sm(self):
        meta = scenarios.scenario_meta(scenarios.find_scenario("package_boot"))
        self.assertEqual((meta["init"], meta["sm"], meta["nodes"]), ("systemd", "none", 2))

    def test_groups_keep_the_order_and_take_the_command_line_as_default(self):
        jobs = [("a", "a.sh", {"nodes": 2}), ("p", "p.sh", {"nodes": 2, "init": "systemd",
                                                              "sm": "none"}),
                ("b", "b.sh", {"nodes": 1}), ("m", "m.sh", {"nodes": 1, "sm": "model"})]
        groups = scenarios.lab_groups(jobs, {"init": "cxlab", "sm": "opensm"})
        self.assertEqual([(p, [j[0] for j in js]) for p, js in groups],
                         [({"init": "cxlab", "sm": "opensm"}, ["a", "b"]),
                          ({"init": "systemd", "sm": "none"}, ["p"]),
                          ({"init": "cxlab", "sm": "model"}, ["m"])])
        # a scenario that asks for what the command line says shares its lab
        groups = scenarios.lab_groups(jobs[:2], {"init": "systemd", "sm": "none"})
        self.assertEqual(len(groups), 1)

    def test_a_running_lab_of_another_kind_is_refused_with_what_to_do(self):
        st = {"init": "cxlab", "sm": "opensm"}
        jobs = [("a", "a.sh", {"nodes": 2}), ("p", "p.sh", {"init": "systemd", "sm": "none"})]
        msg = scenarios.lab_mismatch(jobs, st)
        self.assertIn("p needs a lab with --init systemd --sm none", msg)
        self.assertIn("cxlab down", msg)
        self.assertIsNone(scenarios.lab_mismatch(jobs[:1], st))
        self.assertIsNone(scenarios.lab_mismatch(jobs[1:], {"init": "systemd", "sm": "none"}))
        # a lab from before --init was a cxlab lab
        self.assertIsNone(scenarios.lab_mismatch([("x", "x.sh", {"init": "cxlab"})], {"sm": "opensm"}))

    def run_groups(self, boot_fails=False):
        """cmd_run over a cxlab scenario and a systemd one with no lab up; lab_up, run_job
        and lab_down_state are fakes that record what they were asked."""
        import contextlib
        import io
        a = self.scenario("# cxlab: nodes=2", "a.sh")
        p = self.scenario("# cxlab: nodes=2 init=systemd sm=none", "p.sh")
        boots, downs, ran = [], [], []

        def lab_up(args, n, what, results=None):
            boots.append((args.init, args.sm, args.capture_sweep, results))
            if boot_fails and args.init == "systemd":
                raise common.LabError("QEMU exited during boot")
            res = results or os.path.join(self.tmp, "results")
            return Lab({"run": self.tmp, "kver": "6.12", "results": res, "sm": args.sm,
                        "init": args.init,
                        "nodes": [{"name": f"node{i}", "index": i, "addr": f"192.0.2.{i}"}
                                  for i in (1, 2)]})

        def run_job(lab, job, script, nodes, timeout, results_dir):
            ran.append((lab.state["init"], os.path.basename(script), results_dir))
            return {n["name"]: results.JobResult(results.Status.PASS, 0, 0.1) for n in nodes}
        saved = (Lab.load, Lab.up, Lab.run_job, Lab.down, Lab.sm_bringup)
        Lab.load, Lab.up, Lab.run_job = (lambda: None), lab_up, run_job
        Lab.down = lambda lab, quiet=False: downs.append(lab.state["init"])
        Lab.sm_bringup = lambda lab, results_dir, what="sm": None
        args = argparse.Namespace(scenarios=[a, p], script=None, timeout=None, node=None,
                                  nodes=None, verbose=False, json=None, results=None,
                                  init="cxlab", sm="opensm", capture_sweep="/x/sweep.pcap")
        try:
            with contextlib.redirect_stdout(io.StringIO()) as out:
                rc = commands.cmd_run(args)
        finally:
            (Lab.load, Lab.up, Lab.run_job, Lab.down, Lab.sm_bringup) = saved
        return rc, boots, downs, ran, out.getvalue()

    def test_run_boots_one_lab_per_kind_and_powers_each_off(self):
        rc, boots, downs, ran, out = self.run_groups()
        self.assertEqual(rc, 0)
        top = os.path.join(self.tmp, "results")
        self.assertEqual(boots, [("cxlab", "opensm", "/x/sweep.pcap", None),
                                 ("systemd", "none", None,
                                  os.path.join(top, "lab2-systemd-none"))])
        self.assertEqual(downs, ["cxlab", "systemd"])
        self.assertEqual(ran, [("cxlab", "a.sh", top),
                               ("systemd", "p.sh", os.path.join(top, "lab2-systemd-none"))])
        self.assertIn("4 passed, 0 failed, 0 skipped", out)

    def test_job_status_and_summary_count_skips_apart(self):
        self.assertEqual(results.job_status(0), "pass")
        self.assertEqual(results.job_status(results.SKIP_RC), "skip")
        self.assertEqual(results.job_status(124), "timeout")
        self.assertEqual(results.job_status(1), "FAIL")
        rows = [["a", "node1", "pass"], ["a", "node2", "skip"], ["b", "node1", "FAIL"],
                ["b", "node2", "timeout"]]
        self.assertEqual(results.summary_line(rows), "1 passed, 2 failed, 1 skipped")

    def test_a_second_lab_that_does_not_boot_fails_its_scenarios_not_the_first(self):
        rc, boots, downs, ran, out = self.run_groups(boot_fails=True)
        self.assertEqual(rc, 1)
        self.assertEqual([r[1] for r in ran], ["a.sh"])
        self.assertEqual(downs, ["cxlab"])
        self.assertIn("2 passed, 1 failed, 0 skipped", out)
        self.assertIn("lab did not boot", out)


class TraceCompare(unittest.TestCase):
    """cmdtrace=compare: the host's row after a scenario, from the nodes' command traces."""

    LINES = ("0 0 ENABLE_HCA op_mod=0x0 status=0x00 syndrome=0x00000000\n# mark teardown\n"
             "# mark bringup\n1 1 QUERY_ISSI op_mod=0x0 status=0x00 syndrome=0x00000000\n"
             "# mark end\n")

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.run = os.path.join(self.tmp, "run")
        self.results = os.path.join(self.tmp, "results")
        for node, extra in (("node1", ""), ("node2", "2 2 ALLOC_XRCD op_mod=0x0 status=0x00 "
                                                      "syndrome=0x00000000\n")):
            os.makedirs(os.path.join(self.run, node))
            with open(os.path.join(self.run, node, qemu.CMD_TRACE), "w") as f:
                f.write(self.LINES.replace("# mark end", extra + "# mark end"))
        self.doc = os.path.join(self.tmp, "silicon.md")
        saved = trace.SILICON_DOC
        self.addCleanup(setattr, trace, "SILICON_DOC", saved)
        trace.SILICON_DOC = self.doc
        self.say = mock.patch.object(trace, "say")
        self.say.start()
        self.addCleanup(self.say.stop)

    def state(self, driver):
        return {"run": self.run, "driver": driver,
                "nodes": [{"name": "node1", "index": 1}, {"name": "node2", "index": 2}]}

    def write_doc(self, *keys):
        with open(self.doc, "w") as f:
            f.write("## Differences that remain\n| difference | why |\n|---|---|\n")
            for k in keys:
                f.write(f"| `{k}` | because |\n")

    def test_scenario_line_asks_for_it_and_mlx5_does(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write("#!/bin/bash\n# cxlab: nodes=2 cmdtrace=compare\n")
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(scenarios.scenario_meta(f.name)["cmdtrace"], "compare")
        self.assertEqual(scenarios.scenario_meta(scenarios.find_scenario("mlx5"))["cmdtrace"], "compare")

    def test_skip_without_both_drivers(self):
        r = trace.compare_traces(self.state("cxib"), "mlx5", self.results)
        self.assertEqual((r.status.value, r.rc), ("skip", results.SKIP_RC))

    def test_fails_on_an_unexplained_difference_and_passes_once_explained(self):
        self.write_doc()
        r = trace.compare_traces(self.state("mixed"), "mlx5", self.results)
        self.assertEqual(r.status.value, "FAIL")
        out = os.path.join(self.results, "host", "mlx5")
        with open(os.path.join(out, "cmdtrace-compare.txt")) as f:
            self.assertIn("NEW   bringup.only-mlx5: ALLOC_XRCD/0x0", f.read())
        self.assertTrue(os.path.exists(os.path.join(out, f"cxib-node1-{qemu.CMD_TRACE}")))
        self.assertTrue(os.path.exists(os.path.join(out, f"mlx5-node2-{qemu.CMD_TRACE}")))
        self.write_doc("bringup.only-mlx5: ALLOC_XRCD/0x0")
        r = trace.compare_traces(self.state("mixed"), "mlx5", self.results)
        self.assertEqual(r.status.value, "pass", r)
        self.write_doc("bringup.only-mlx5: ALLOC_XRCD/0x0", "stale: X")
        self.assertEqual(trace.compare_traces(self.state("mixed"), "mlx5", self.results).status.value,
                         "FAIL")


    def test_start_marks_name_the_driver_and_cut_the_trace(self):
        """In a cxib lab the scenario moves node2 to mlx5: its "start driver=mlx5" mark
        says so, and only what lies between the start and stop marks is compared (cxib's
        commands before node2 moved and after it moved back are not mlx5's)."""
        cxib_before = "9 9 CREATE_CQ op_mod=0x0 status=0x00 syndrome=0x00000000 cqe_sz=0x1\n"
        for node in ("node1", "node2"):
            path = os.path.join(self.run, node, qemu.CMD_TRACE)
            with open(path) as f:
                body = f.read()
            with open(path, "w") as f:
                f.write(cxib_before + f"# mark start driver={'cxib' if node == 'node1' else 'mlx5'}\n"
                        + body + "# mark stop\n" + cxib_before)
        self.write_doc("bringup.only-mlx5: ALLOC_XRCD/0x0")
        r = trace.compare_traces(self.state("cxib"), "mlx5", self.results)
        self.assertEqual(r.status.value, "pass", r)
        out = os.path.join(self.results, "host", "mlx5")
        with open(os.path.join(out, f"mlx5-node2-{qemu.CMD_TRACE}")) as f:
            part = f.read()
        self.assertNotIn("CREATE_CQ", part)
        self.assertIn("ALLOC_XRCD", part)
        self.assertEqual(trace.trace_section(os.path.join(self.run, "node1", qemu.CMD_TRACE))[0],
                         "cxib")

if __name__ == "__main__":
    unittest.main()
