# SPDX-License-Identifier: GPL-2.0-only
"""The build steps a lab needs (QEMU, the images, cxib.ko, the cxib-dkms package), each
idempotent and printing its artefact's path, and the guest's module index (depmod)."""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

from .common import CACHE, TOP, LabError, say
from .qemu import FIRMWARE_DIRS, INIT_PACKAGES


# --kernel debug: scripts/build-kernel's kernel with this configuration fragment.
DEBUG_CONFIG = os.path.join(TOP, "scripts", "lib", "debug-kernel.config")
KERNEL_CACHE = os.path.join(CACHE, "kernel")


def build_kernel(config: str, build: bool = True) -> str:
    """scripts/build-kernel's key directory for the fragment @config, built first unless
    @build is false (its progress goes to the terminal; a cold build takes minutes)."""
    # build-kernel prunes all but the newest few builds of any fragment: keep more, so that
    # building this one does not throw the KUnit tier's kernel away.
    env = dict(os.environ, CXIB_KERNEL_CONFIG=config)
    env.setdefault("CXIB_KERNEL_KEEP", "4")
    cmd = [os.path.join(TOP, "scripts", "build-kernel")] + ([] if build else ["--print-dir"])
    if build:
        say(f"kernel: scripts/build-kernel with {os.path.relpath(config, TOP)}")
    p = subprocess.run(cmd, cwd=TOP, env=env, stdout=subprocess.PIPE, text=True)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        raise LabError("scripts/build-kernel failed (see above; its log is build.log in "
                       "the key directory); scripts/setup installs what it needs")
    return lines[-1]


def built_kernel_dir(kver: str) -> str | None:
    """The complete scripts/build-kernel key directory whose release is @kver, if any; of
    several (builds of older fragments), the one built or asked for last: build-kernel
    touches its "done" each time."""
    found: list[tuple[float, str]] = []
    try:
        entries = list(os.scandir(KERNEL_CACHE))
    except OSError:
        return None
    for e in entries:
        try:
            with open(os.path.join(e.path, "kernelrelease")) as f:
                release = f.read().strip()
            done = os.stat(os.path.join(e.path, "done")).st_mtime
        except OSError:
            continue
        if release == kver:
            found.append((done, e.path))
    return max(found)[1] if found else None


def kernel_files(kver: str) -> dict[str, str]:
    """Where the lab finds kernel @kver: "kernel" (the image), "moddir" (its modules),
    "kdir" (what external modules build against) and "config".  Debian's kernels are
    installed on the host; one that scripts/build-kernel built lives in its cache."""
    d = built_kernel_dir(kver)
    if d:
        return {"kernel": os.path.join(d, "bzImage"),
                "moddir": os.path.join(d, "modules", "lib", "modules", kver),
                "kdir": os.path.join(d, "build"), "config": os.path.join(d, "config")}
    return {"kernel": f"/boot/vmlinuz-{kver}", "moddir": f"/lib/modules/{kver}",
            "kdir": f"/lib/modules/{kver}/build", "config": f"/boot/config-{kver}"}


def kernel_has(kver: str, option: str) -> bool:
    """Whether kernel @kver was built with @option=y."""
    try:
        with open(kernel_files(kver)["config"]) as f:
            return f"{option}=y\n" in f.read()
    except OSError:
        return False


def kver_of(kernel: str, build: bool = True) -> str:
    """Map --kernel (6.12, 6.1, debug or a full release) to a kernel release.  "debug"
    builds the debug kernel first unless @build is false."""
    if kernel == "debug":
        d = build_kernel(DEBUG_CONFIG, build)
        try:
            with open(os.path.join(d, "kernelrelease")) as f:
                return f.read().strip()
        except OSError:
            raise LabError(f"the debug kernel is not built ({d}): run without --no-build")
    meta = {"6.12": "linux-headers-6.12-amd64", "6.1": "linux-headers-amd64"}
    if kernel in meta:
        try:
            dep = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", meta[kernel]],
                                 capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            raise LabError(f"{meta[kernel]} is not installed: run scripts/setup")
        m = re.search(r"linux-headers-(\S+?)(?:[ ,]|$)", dep)
        if not m:
            raise LabError(f"cannot read the kernel release from {meta[kernel]}")
        return m.group(1)
    return kernel


def build_step(what: str, cmd: list[str], hint: str) -> str:
    """Run an idempotent build step that prints the artefact path on its last line."""
    t0 = time.time()
    say(f"{what}: {' '.join(os.path.relpath(c, TOP) if c.startswith(TOP) else c for c in cmd)}")
    p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-4000:] + p.stderr[-4000:])
        raise LabError(f"{what} failed; {hint}")
    lines = [ln for ln in p.stdout.strip().splitlines() if ln.strip()]
    path = lines[-1].strip() if lines else ""
    if not os.path.exists(path):
        raise LabError(f"{what} did not produce an artefact ({path!r}); {hint}")
    dt = time.time() - t0
    if dt > 5:
        say(f"{what}: done in {dt:.0f}s")
    return path


def mkrootfs_cmd(kver: str, init: str = "cxlab") -> list[str]:
    """scripts/mkrootfs for @init's image: a systemd image is the lab image plus systemd, a
    cache entry of its own (the package list is part of the key)."""
    cmd = [os.path.join(TOP, "scripts/mkrootfs"), "--kver", kver]
    if INIT_PACKAGES[init]:
        cmd += ["--extra-packages", " ".join(INIT_PACKAGES[init])]
    return cmd


DEB_DIR = os.path.join(TOP, "build", "deb")


def package_deb(build: bool = True) -> str:
    """The cxib-dkms package a systemd lab installs: `make deb` (a few seconds) builds it
    from the tree the lab's cxib.ko comes from; returns build/deb/cxib-dkms_<version>_all.deb."""
    if build:
        t0 = time.time()
        say("package: make deb")
        p = subprocess.run(["make", "-s", "-C", TOP, "deb"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.stderr.write(p.stdout[-4000:] + p.stderr[-4000:])
            raise LabError("make deb failed (see above; build/deb/build.log); scripts/setup "
                           "installs what it needs")
        if time.time() - t0 > 5:
            say(f"package: done in {time.time() - t0:.0f}s")
    try:
        debs = sorted(f for f in os.listdir(DEB_DIR)
                      if f.startswith("cxib-dkms_") and f.endswith("_all.deb"))
    except OSError:
        debs = []
    if len(debs) != 1:
        raise LabError(f"expected one cxib-dkms package in {DEB_DIR}, found "
                       f"{len(debs) or 'none'}: run make deb (or cxlab without --no-build)")
    return os.path.join(DEB_DIR, debs[0])


def printed_path(cmd: list[str]) -> str:
    """The last line @cmd prints (a build script's --print-path), "" if none."""
    lines = subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()
    return lines[-1] if lines else ""


def prerequisites(
args: argparse.Namespace, kver: str) -> dict[str, str]:
    """Make sure QEMU, the images and cxib.ko exist and are current; return their paths."""
    init = getattr(args, "init", None) or "cxlab"
    for tool, pkg in (("debootstrap", "debootstrap"), ("mke2fs", "e2fsprogs"),
                      ("ninja", "ninja-build")):
        if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}"):
            raise LabError(f"{tool} is missing (package {pkg}): run scripts/setup")
    kf = kernel_files(kver)
    kernel = kf["kernel"]
    if not os.path.exists(kernel):
        raise LabError(f"lab kernel {kernel} is missing: run scripts/setup")
    for d in FIRMWARE_DIRS:
        if not os.path.isdir(d):
            raise LabError(f"{d} is missing (packages seabios, qemu-system-data): "
                           "run scripts/setup")
    paths = {"kernel": kernel}
    # A kernel of scripts/build-kernel boots the 6.12 lab's image; its own modules reach
    # the guest on the share (share.prepare_share).
    built = kf["moddir"] != f"/lib/modules/{kver}"
    image_kver = kver_of("6.12") if built else kver
    initramfs_cmd = [os.path.join(TOP, "scripts/mkinitramfs"), "--kver", kver] + \
        (["--moddir", kf["moddir"]] if built else [])
    kmod_cmd = ["make", "-s", "-C", TOP, "kmod-path", f"KVER={kver}"] + \
        ([f"KDIR={kf['kdir']}"] if built else [])
    if built:
        paths["moddir"] = kf["moddir"]
    if args.no_build:
        paths["qemu"] = os.path.join(CACHE, "bin", "qemu-system-x86_64")
        paths["rootfs"] = printed_path(mkrootfs_cmd(image_kver, init) + ["--print-path"])
        paths["initramfs"] = printed_path(initramfs_cmd + ["--print-path"])
        paths["module"] = os.path.join(TOP, "build", "kmod", kver, "cxib.ko")
        for k, v in paths.items():
            if not v or not os.path.exists(v):
                raise LabError(f"{k} is not built ({v or 'no path'}): run without --no-build")
        if init == "systemd":
            paths["deb"] = package_deb(build=False)
        return paths
    paths["qemu"] = build_step("qemu", [os.path.join(TOP, "scripts/build-qemu")],
                               "see the output above; scripts/setup installs what it needs")
    paths["rootfs"] = build_step("rootfs", mkrootfs_cmd(image_kver, init),
                                 "see the output above (debootstrap needs Debian's archive)")
    paths["initramfs"] = build_step("initramfs", initramfs_cmd, "see the output above")
    paths["module"] = build_step("module", kmod_cmd,
                                 f"fix the build, or check the headers for {kver}")
    if init == "systemd":
        paths["deb"] = package_deb()
    return paths


GUEST_MODULE_DIR = "updates/cxlab"  # where the guest init installs the host-built modules


DEPMOD_INPUTS = ("modules.order", "modules.builtin", "modules.builtin.modinfo")


DEPMOD_KEEP = 8


def module_index(kver: str, modules: dict[str, str], moddir: str | None = None,
                 cache: str | None = None) -> str:
    """The module index (modules.dep, .alias, ... and their .bin) of the guest's
    /lib/modules/@kver once @modules ({file name: path}) are installed in GUEST_MODULE_DIR;
    returns the directory that holds it.

    The guest's tree is a copy of the host's @moddir (scripts/mkrootfs), so depmod runs
    here, on a tree of the host's kernel/ (a symlink) and copies of @modules: depmod reads
    every module of the kernel, which takes seconds on the host and minutes under TCG.
    Cached under CACHE/depmod by kernel release and module contents."""
    moddir = moddir or f"/lib/modules/{kver}"
    cache = cache or os.path.join(CACHE, "depmod")
    h = hashlib.sha256(f"{kver}\0{os.path.realpath(moddir)}\0".encode())
    for f in DEPMOD_INPUTS + ("modules.dep",):  # the host's: they change with the kernel
        try:
            with open(os.path.join(moddir, f), "rb") as fh:
                h.update(f.encode() + b"\0" + hashlib.sha256(fh.read()).digest())
        except OSError:
            pass
    for name in sorted(modules):
        with open(modules[name], "rb") as fm:
            h.update(name.encode() + b"\0" + hashlib.sha256(fm.read()).digest())

    out = os.path.join(cache, f"{kver}-{h.hexdigest()[:16]}")
    if os.path.isfile(os.path.join(out, "modules.dep.bin")):
        os.utime(out)  # recently used: kept by the pruning below
        return out
    if not os.path.isdir(os.path.join(moddir, "kernel")):
        raise LabError(f"{moddir}/kernel is missing: the lab needs the modules of {kver} "
                       f"on the host (package linux-image-{kver}-unsigned; run scripts/setup)")
    depmod = shutil.which("depmod") or "/usr/sbin/depmod"
    os.makedirs(cache, exist_ok=True)
    tmp = os.path.join(cache, f".tmp-{os.getpid()}-{os.path.basename(out)}")
    shutil.rmtree(tmp, ignore_errors=True)
    tree = os.path.join(tmp, "lib", "modules", kver)
    try:
        os.makedirs(os.path.join(tree, GUEST_MODULE_DIR))
        os.symlink(os.path.join(os.path.realpath(moddir), "kernel"), os.path.join(tree, "kernel"))
        for f in DEPMOD_INPUTS:
            if os.path.exists(os.path.join(moddir, f)):
                shutil.copy2(os.path.join(moddir, f), os.path.join(tree, f))
        for name, path in modules.items():
            shutil.copy2(path, os.path.join(tree, GUEST_MODULE_DIR, name))
        t0 = time.time()
        say(f"module index: depmod -b {tmp} {kver} (cached in {cache})")
        p = subprocess.run([depmod, "-b", tmp, kver], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.isfile(os.path.join(tree, "modules.dep.bin")):
            sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
            raise LabError(f"depmod of the guest's modules for {kver} failed (see above); "
                           "is kmod installed? run scripts/setup")
        if time.time() - t0 > 5:
            say(f"module index: done in {time.time() - t0:.0f}s")
        keep = os.path.join(tmp, "index")
        os.makedirs(keep)
        for f in os.listdir(tree):
            if f.startswith("modules.") and f not in DEPMOD_INPUTS:
                shutil.copy2(os.path.join(tree, f), os.path.join(keep, f))
        try:
            os.rename(keep, out)
        except OSError:
            if not os.path.isfile(os.path.join(out, "modules.dep.bin")):
                raise  # not another cxlab's identical index: a real error
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # Every module build makes a new index (~2 MB): keep the newest few.
    old = sorted((e for e in os.scandir(cache) if e.is_dir() and not e.name.startswith(".")),
                 key=lambda e: e.stat().st_mtime, reverse=True)[DEPMOD_KEEP:]
    for e in old:
        shutil.rmtree(e.path, ignore_errors=True)
    return out
