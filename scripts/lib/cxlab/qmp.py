# SPDX-License-Identifier: GPL-2.0-only
"""QEMU's machine protocol (QMP) on a node's run/<node>/qmp.sock: what the lab asks QEMU
(the HCA's QOM properties, trace marks).  The human monitor (monitor.sock) is for people."""

import json
import os
import socket
import time
from typing import Any

from .common import LabError

HCA_QOM_PATH = "/machine/peripheral/hca1"  # -device cxib-pci,id=hca1


class QMPError(Exception):
    """QEMU answered a QMP command with an error (e.g. no such property)."""


class QMP:
    """QEMU's machine protocol (QMP) on a node's qmp.sock: JSON lines, one command at a time.

        with QMP(path) as q:
            q.qom_get(HCA_QOM_PATH, "stats")

    Asynchronous events QEMU sends in between are skipped.  OSError if QEMU does not answer.
    """

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self.path, self.timeout = path, timeout
        self.sock: socket.socket | None = None
        self.buf, self.next_id = b"", 0

    def __enter__(self) -> "QMP":
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(self.timeout)
            self.sock.connect(self.path)
            greeting = self._message()
            if "QMP" not in greeting:
                raise OSError(f"not a QMP greeting: {str(greeting)[:80]}")
            self.execute("qmp_capabilities")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.sock:
            self.sock.close()
            self.sock = None

    def _connected(self) -> socket.socket:
        if self.sock is None:
            raise OSError(f"QMP: {self.path} is not connected")
        return self.sock

    def _message(self) -> dict[str, Any]:
        sock = self._connected()
        end = time.time() + self.timeout
        while b"\n" not in self.buf:
            if time.time() > end:
                raise OSError("QMP: no answer")
            data = sock.recv(65536)
            if not data:
                raise OSError("QMP: connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
        except ValueError:
            raise OSError(f"QMP: not JSON: {line[:80]!r}")
        if not isinstance(msg, dict):
            raise OSError(f"QMP: not an object: {line[:80]!r}")
        return msg

    def execute(self, cmd: str, **arguments: Any) -> Any:
        self.next_id += 1
        msg: dict[str, Any] = {"execute": cmd, "id": self.next_id}
        if arguments:
            msg["arguments"] = arguments
        self._connected().sendall(json.dumps(msg).encode() + b"\n")
        while True:
            r = self._message()
            if r.get("id") != self.next_id:
                continue  # an event, or an answer to a command that timed out
            if "error" in r:
                raise QMPError(r["error"].get("desc", str(r["error"])))
            return r.get("return")

    def qom_get(self, path: str, prop: str) -> Any:
        return self.execute("qom-get", path=path, property=prop)


def qmp_path(run: str, node: str) -> str:
    """@node's QMP socket in the lab's run directory @run."""
    return os.path.join(run, node, "qmp.sock")


def hca_get(run: str, node: str, prop: str) -> Any:
    """One QOM property of @node's HCA; OSError or QMPError if QEMU cannot say."""
    with QMP(qmp_path(run, node)) as q:
        return q.qom_get(HCA_QOM_PATH, prop)


def trace_mark(run: str, node: str, text: str) -> None:
    """Write "# mark @text" into @node's command trace; LabError if QEMU refuses."""
    try:
        with QMP(qmp_path(run, node)) as q:
            q.execute("qom-set", path=HCA_QOM_PATH, property="cmd-trace-mark", value=text)
    except (OSError, QMPError) as e:
        raise LabError(f"{node}: cannot mark its command trace: {e}")
