# SPDX-License-Identifier: GPL-2.0-only
"""The agent channel: a line protocol with scripts/guest/agent over a node's second serial
port (run/<node>/agent.sock).  The host sends PING, RUN <job> <timeout>, MARKED, POWEROFF;
the guest answers PONG, MARK <job> <text> and DONE <job> <rc>."""

import select
import socket
import time
from typing import Iterator

from .common import LabError


class Agent:
    """Line protocol with scripts/guest/agent over the node's second serial port."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sock: socket.socket | None = None
        self.buf = b""

    def connect(self) -> bool:
        if self.sock:
            return True
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(self.path)
        except OSError:
            s.close()
            return False
        s.setblocking(False)
        self.sock = s
        return True

    def _connected(self) -> socket.socket:
        if self.sock is None:
            raise LabError(f"agent {self.path} is not connected")
        return self.sock

    def send(self, line: str) -> None:
        self._connected().sendall(line.encode() + b"\n")

    def lines(self, timeout: float) -> Iterator[str]:
        """Yield complete lines received within @timeout seconds."""
        sock = self._connected()
        end = time.time() + timeout
        while True:
            while b"\n" in self.buf:
                ln, self.buf = self.buf.split(b"\n", 1)
                yield ln.decode(errors="replace").strip()
            left = end - time.time()
            if left <= 0:
                return
            r, _, _ = select.select([sock], [], [], left)
            if r:
                data = sock.recv(65536)
                if not data:
                    raise LabError(f"agent connection {self.path} closed (node died?)")
                self.buf += data

    def close(self) -> None:
        if self.sock:
            self.sock.close()
            self.sock = None
