# SPDX-License-Identifier: GPL-2.0-only
"""The lab's share (run/share, /cxlab in the guests over 9p): the guest scripts, cxib.ko and
the test modules with their index, the e2e shell code, test programs, the package a
systemd lab installs, lab.env; and jobs/ and results/ for the jobs."""

import os
import shutil

from .build import module_index
from .common import TOP
from .scenarios import E2E_DIR
from .switch import SUBNET


def share_e2e(share: str) -> None:
    """tests/e2e/*.sh on the share as /cxlab/e2e: the shell code the scenarios share
    (lib.sh, check.sh, ...) and the scenarios themselves, which one scenario may run from
    another (mlx5.sh runs pingpong.sh both ways).  Refreshed before every run, so a
    running lab gets the tree's current ones."""
    edir = os.path.join(share, "e2e")
    os.makedirs(edir, exist_ok=True)
    for name in sorted(os.listdir(E2E_DIR)):
        path = os.path.join(E2E_DIR, name)
        if name.endswith(".sh") and os.path.isfile(path):
            shutil.copy2(path, os.path.join(edir, name))


def shell_word(v: object) -> str:
    """A shell word for @v: numbers as they are, text in single quotes."""
    return str(v) if isinstance(v, int) else "'" + str(v).replace("'", "'\\''") + "'"


def job_script(guest: str, what: str, variables: dict[str, object]) -> str:
    """The text of a job script that sets @variables and sources tests/e2e/@guest from the
    share (/cxlab/e2e/, share_e2e): the guest side of a bench row lives in a shell file of
    the tree, checked and read as one, not in a string here.  @what says who wrote it."""
    return ("#!/bin/bash\n"
            f"# {what}\n"
            + " ".join(f"{k}={shell_word(v)}" for k, v in variables.items()) + "\n"
            + f". /cxlab/e2e/{guest}\n")


def share_kernel_modules(moddir: str, mdir: str) -> None:
    """The modules of a kernel that the image does not hold (one scripts/build-kernel
    built): @moddir's kernel/ as @mdir/kernel, which the guest links into its /lib/modules
    (scripts/guest/node.sh).  Hard links where the file system allows, copies otherwise."""
    dst = os.path.join(mdir, "kernel")
    if os.path.isdir(dst):
        shutil.rmtree(dst)

    def link(src: str, to: str) -> None:
        try:
            os.link(src, to)
        except OSError:
            shutil.copy2(src, to)

    shutil.copytree(os.path.join(moddir, "kernel"), dst, copy_function=link)


def write_lab_env(share: str, names: list[str], kver: str) -> None:
    """lab.env: the nodes, their addresses and the kernel, for the guests' init."""
    lines = [f'CXLAB_NODES="{" ".join(names)}"', f"CXLAB_NODE_COUNT={len(names)}",
             "CXLAB_PREFIXLEN=24", f"CXLAB_KVER={kver}"]
    for i, nm in enumerate(names, 1):
        lines.append(f"CXLAB_ADDR_{nm}={SUBNET}{i}")
    with open(os.path.join(share, "lab.env"), "w") as f:
        f.write("\n".join(lines) + "\n")


def prepare_share(run: str, paths: dict[str, str], kver: str, names: list[str]) -> str:

    share = os.path.join(run, "share")
    for sub in ("jobs", "results"):
        os.makedirs(os.path.join(share, sub), exist_ok=True)
    gdst = os.path.join(share, "guest")
    if os.path.isdir(gdst):
        shutil.rmtree(gdst)
    shutil.copytree(os.path.join(TOP, "scripts", "guest"), gdst)
    mdir = os.path.join(share, "modules", kver)
    os.makedirs(mdir, exist_ok=True)
    shutil.copy2(paths["module"], os.path.join(mdir, "cxib.ko"))
    # Test modules built next to it (mk/kverbs.mk: kmod-path builds kverbs.ko too).
    for extra in ("kverbs",):
        ko = os.path.join(TOP, "build", extra, kver, extra + ".ko")
        if os.path.exists(ko):
            shutil.copy2(ko, os.path.join(mdir, extra + ".ko"))
    # The guest init installs these in /lib/modules/<kver>/updates/cxlab with this index.
    mods = {f: os.path.join(mdir, f) for f in sorted(os.listdir(mdir)) if f.endswith(".ko")}
    index = module_index(kver, mods, paths.get("moddir"))
    if paths.get("moddir"):
        share_kernel_modules(paths["moddir"], mdir)
    idst = os.path.join(mdir, "index")
    if os.path.isdir(idst):
        shutil.rmtree(idst)
    shutil.copytree(index, idst)
    share_e2e(share)
    # Test programs (mk/kverbs.mk builds them with kmod-path): /cxlab/bin in the guest.
    bdir = os.path.join(share, "bin")
    os.makedirs(bdir, exist_ok=True)
    for prog in ("uabuse", "ustock"):
        exe = os.path.join(TOP, "build", prog, prog)
        if os.path.exists(exe):
            shutil.copy2(exe, os.path.join(bdir, prog))
    # The package a systemd lab installs (scripts/guest/init-systemd): /cxlab/debs/.
    ddir = os.path.join(share, "debs")
    if os.path.isdir(ddir):
        shutil.rmtree(ddir)
    if paths.get("deb"):
        os.makedirs(ddir)
        shutil.copy2(paths["deb"], os.path.join(ddir, os.path.basename(paths["deb"])))
    write_lab_env(share, names, kver)
    return share
