# SPDX-License-Identifier: GPL-2.0-only
"""What a lab node is: the QEMU command line of a node (and its common part, which
scripts/run-kunit and firmware/qemu/smoke-test use too), the inits, drivers and subnet
manager modes a lab can be booted with."""

import os
from typing import Any

GUEST_GUID_BASE = 0x0002c90300a00000  # node GUIDs: base + node index


# The PID 1 of a node (--init): the lab's own small init, or systemd started by a script of
# the lab that first makes the image a node and installs the cxib-dkms package
# (scripts/guest/init-systemd).  A systemd lab boots an image with systemd in it.
INITS = {"cxlab": "/cxlab/guest/init", "systemd": "/cxlab/guest/init-systemd"}
INIT_PACKAGES: dict[str, list[str]] = {"cxlab": [], "systemd": ["systemd"]}


# The driver of each node's HCA (--driver): cxib (the default); mlx5, the stock mlx5_core +
# mlx5_ib of the guest kernel on every node (the model's second, independent host); mixed,
# cxib on the odd nodes and mlx5 on the even ones, so each cable joins the two (interop).
DRIVERS = ("cxib", "mlx5", "mixed")


def node_driver(driver: str, idx: int) -> str:
    """The driver node @idx (1-based) loads in a lab booted with --driver @driver."""
    if driver == "mixed":
        return "cxib" if idx % 2 else "mlx5"
    return driver


# Subnet management (--sm): "opensm" (the default) runs the stock opensm on node1, which
# brings every port from INIT to ACTIVE over QP0 as on a real fabric; "model" lets the
# device model activate its port with a LID of its own (no SM: quick experiments); "none"
# leaves the ports in INIT (bring your own SM).
SM_MODES = ("opensm", "model", "none")


def hca_sm_props(sm: str) -> list[str]:
    """cxib-pci properties for @sm: the model activates the port itself only without an SM."""
    return [] if sm == "model" else ["auto-activate=off"]


# Pages every node's model asks its driver for at run time, at each new peak of live QPs
# (cxib-pci runtime-pages): the drivers' page-request paths run under all the lab's work.
RUNTIME_PAGES = 2


# Every node's model writes its command trace here (run/<node>/), from power-on:
# "cxlab trace NODE FILE" copies it, scripts/lib/cmdtrace.py reads it.
CMD_TRACE = "cmd-trace.txt"


# Every node gets an empty raw disk, /dev/vdb in the guest, sparse in its run directory and
# recreated at every boot (the NVMe-oF scenarios export it as a namespace).
SCRATCH_DISK = "scratch.img"
SCRATCH_DISK_MIB = 256

# The firmware QEMU needs from Debian's packages (seabios, qemu-system-data): the lab's
# QEMU is built without its own copies (scripts/build-qemu).
FIRMWARE_DIRS = ("/usr/share/seabios", "/usr/share/qemu")
ROOT_PORT = "pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1"


# The QEMU command lines of the lab nodes, of scripts/run-kunit and of the model's smoke
# test (firmware/qemu/smoke-test) are put together from these.

def base_args() -> list[str]:
    """Nothing but what is asked for (-nodefaults), headless; firmware from Debian's
    packages."""
    return ["-nodefaults", "-display", "none"] + [a for d in FIRMWARE_DIRS for a in ("-L", d)]


def machine_args(mem: int, smp: int = 1, cpu: str | None = "max") -> list[str]:
    """A headless q35 under TCG with @smp vCPUs and @mem MiB, powered off instead of
    rebooted (base_args())."""
    return (["-M", "q35", "-accel", "tcg"] + (["-cpu", cpu] if cpu else [])
            + ["-smp", str(smp), "-m", str(mem), "-no-reboot"] + base_args())


def root_port_args(addr: str | None = None) -> list[str]:
    """The PCIe root port rp1 the HCA sits behind, at slot @addr of q35's bus if given."""
    return ["-device", ROOT_PORT + (f",addr={addr}" if addr else "")]


def hca_args(dev_id: str, props: list[str]) -> list[str]:
    """A cxib-pci called @dev_id with @props ("name=value") behind a PCIe root port."""
    return root_port_args() + ["-device", ",".join(["cxib-pci", f"id={dev_id}", "bus=rp1"]
                                                   + props)]


def cable_props(run: str, idx: int, n: int) -> list[str]:
    """Back-to-back cables: node1-node2, node3-node4, ...; the lower node listens."""
    pair = idx + 1 if idx % 2 else idx - 1
    if pair > n:
        return []
    lo = min(idx, pair)
    sock = os.path.join(run, f"cable-{lo}-{lo + 1}.sock")
    return [f"cable={sock}", f"cable-listen={'on' if idx == lo else 'off'}"]


def qemu_cmdline(paths: dict[str, Any], run: str, node: str, idx: int, n: int,
                 ports: list[int], switch_port: int, results: str, mem: int, kver: str,
                 netfd: int | None = None, sm: str = "opensm", capture: str | None = None,
                 init: str = "cxlab", driver: str = "cxib", strict: bool = True,
                 runtime_pages: int = 0) -> list[str]:
    """The command line of lab node @node (number @idx of @n) in the run directory @run;
    its console log goes to @results/@node/."""
    rundir = os.path.join(run, node)
    mac = f"52:54:00:c0:00:{idx:02x}"
    guid = GUEST_GUID_BASE + idx
    # log_buf_len: the whole boot's kernel log stays readable (the scenarios check all of
    # it for reports, and a long one such as removal's full matrix outgrows the default)
    append = " ".join(["console=ttyS0", "quiet", "panic=-1", "log_buf_len=8M",
                       f"cxlab.init={INITS[init]}",
                       f"cxlab.node={node}", f"cxlab.index={idx}",
                       f"cxlab.driver={node_driver(driver, idx)}"]
                      # systemd's udev would rename eth0 (the init configures it by name)
                      + (["net.ifnames=0"] if init == "systemd" else []))
    logdir = os.path.join(results, node)
    os.makedirs(logdir, exist_ok=True)
    return [
        paths["qemu"], "-name", f"{node},debug-threads=on", *machine_args(mem),
        "-kernel", paths["kernel"], "-initrd", paths["initramfs"], "-append", append,
        "-drive", f"file={paths['rootfs']},if=virtio,format=raw,snapshot=on,readonly=off",
        # /dev/vdb: an empty disk of the node's own (a real block device for scenarios)
        "-drive", f"file={os.path.join(rundir, SCRATCH_DISK)},if=virtio,format=raw",
        "-fsdev", f"local,id=share,path={os.path.join(run, 'share')},security_model=none",
        "-device", "virtio-9p-pci,fsdev=share,mount_tag=cxlab",
        "-netdev", f"dgram,id=mgmt,local.type=fd,local.str={netfd}" if netfd is not None else
                   f"dgram,id=mgmt,local.type=inet,local.host=127.0.0.1,"
                   f"local.port={ports[idx - 1]},remote.type=inet,remote.host=127.0.0.1,"
                   f"remote.port={switch_port}",
        "-device", f"virtio-net-pci,netdev=mgmt,romfile=,mac={mac}",
        *hca_args("hca1", [f"guid={guid:#x}", f"serial={idx}",
                           f"cmd-trace={os.path.join(rundir, CMD_TRACE)}",
                           f"strict={'on' if strict else 'off'}",
                           f"runtime-pages={runtime_pages}"]
                  + cable_props(run, idx, n) + hca_sm_props(sm)
                  + ([f"capture={capture}"] if capture else [])),
        "-chardev", f"socket,id=con,path={rundir}/console.sock,server=on,wait=off,"
                    f"logfile={logdir}/console.log,logappend=on",
        "-serial", "chardev:con",
        "-chardev", f"socket,id=agent,path={rundir}/agent.sock,server=on,wait=off",
        "-serial", "chardev:agent",
        # the human monitor, for people (Documentation/lab.md); cxlab itself uses QMP
        "-monitor", f"unix:{rundir}/monitor.sock,server=on,wait=off",
        "-qmp", f"unix:{rundir}/qmp.sock,server=on,wait=off",
        "-pidfile", f"{rundir}/qemu.pid",
    ]
