# SPDX-License-Identifier: GPL-2.0-only
"""The management network: a UDP relay on loopback (run by `cxlab _switch`) that floods
frames between the nodes' virtio-net, each node's end a socket with deep buffers."""

import os
import socket
import subprocess
import sys

from .common import TOP
from .procs import adopt

SUBNET = "192.0.2."  # TEST-NET-1: exists only inside the guests' management network
def free_udp_ports(n: int) -> list[int]:
    """@n UDP ports on loopback that are free now."""
    socks: list[socket.socket] = []
    ports: list[int] = []


    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def mgmt_socket(port: int, switch_port: int) -> socket.socket:
    """A node's end of the management network, made here so that its buffers are deep (QEMU
    leaves them at the 208 KiB default, which dropped jumbo frames under load)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
        s.setsockopt(socket.SOL_SOCKET, opt, SWITCH_SOCKBUF)
    s.bind(("127.0.0.1", port))
    s.connect(("127.0.0.1", switch_port))
    return s


SWITCH_SOCKBUF = 4 << 20


def start_switch(run: str, ports: list[int], switch_port: int) -> dict[str, int | None]:
    """The management network: a UDP relay on loopback that floods frames between nodes."""
    with open(os.path.join(run, "switch.log"), "w") as log:
        p = subprocess.Popen([sys.executable, os.path.join(TOP, "scripts", "cxlab"), "_switch",
                              str(switch_port)] + [str(x) for x in ports],
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                             cwd=run)
    return adopt(p)


def switch_main(argv: list[str]) -> int:
    """`cxlab _switch PORT NODE_PORT...`: relay until killed."""
    port, nodes = int(argv[0]), [int(x) for x in argv[1:]]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Deep buffers: with the default 208 KiB the relay dropped ~10 % of jumbo frames while
    # starved of CPU, and rxe stalled on its retransmission timer.  (Capped by rmem_max.)
    for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
        s.setsockopt(socket.SOL_SOCKET, opt, SWITCH_SOCKBUF)
    s.bind(("127.0.0.1", port))
    peers = [("127.0.0.1", p) for p in nodes]
    while True:
        data, src = s.recvfrom(65536)
        for p in peers:
            if p != src:
                try:
                    s.sendto(data, p)
                except OSError:
                    pass
