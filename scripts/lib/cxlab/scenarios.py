# SPDX-License-Identifier: GPL-2.0-only
"""The e2e scenarios (tests/e2e/*.sh): finding them, what their "# cxlab:" line asks (nodes,
timeout, the lab's init, SM and driver, host checks), and the labs a list of them needs."""

import argparse
import os
import re
from typing import Any

from .common import TOP, LabError
from .qemu import DRIVERS, INITS, SM_MODES

Meta = dict[str, Any]                # a scenario's "# cxlab:" line: nodes, timeout, ...
Job = tuple[str, str | bytes, Meta]  # (name, path or the script's text, meta)
Profile = dict[str, str]             # the lab a job needs: init, sm, driver


# What a scenario's "# cxlab:" line may ask of its lab, besides nodes= and timeout=: its
# init (INITS) and subnet manager (SM_MODES).  A scenario that names them runs in a lab
# booted that way, whatever the command line says; the others take the command line's.
LAB_KEYS: dict[str, Any] = {"init": INITS, "sm": SM_MODES, "driver": DRIVERS}


# cmdtrace=compare in a scenario's "# cxlab:" line: after it ran, the host compares the
# command trace of its cxib node with that of its mlx5 node (scripts/lib/cmdtrace.py,
# Documentation/silicon.md); an unexplained difference fails the scenario's "cmdtrace" row.
HOST_CHECKS = {"cmdtrace": ("compare",)}


def scenario_meta(path: str) -> Meta:
    """What the "# cxlab:" line in the first 20 lines of @path asks; LabError if it asks
    for a lab of a kind there is not."""
    meta: Meta = {"nodes": 1, "timeout": 600}
    with open(path, errors="replace") as f:
        for ln in f.readlines()[:20]:
            m = re.match(r"#\s*cxlab:\s*(.*)", ln)
            if m:
                for kv in m.group(1).split():
                    k, _, v = kv.partition("=")
                    if k in HOST_CHECKS and v in HOST_CHECKS[k]:
                        meta[k] = v
                    elif k in meta and v.isdigit():
                        meta[k] = int(v)
                    elif k in LAB_KEYS:
                        if v not in LAB_KEYS[k]:
                            raise LabError(f"{path}: {k}={v} in its cxlab: line is not one "
                                           f"of {', '.join(LAB_KEYS[k])}")
                        meta[k] = v
    return meta


def lab_profile(args: argparse.Namespace) -> Profile:
    """The lab the command line asks for: {"init": ..., "sm": ..., "driver": ...}."""
    return {"init": getattr(args, "init", None) or "cxlab",
            "sm": getattr(args, "sm", None) or "opensm",
            "driver": getattr(args, "driver", None) or "cxib"}


def lab_groups(jobs: list[Job], base: Profile) -> list[tuple[Profile, list[Job]]]:
    """@jobs [(name, path, meta)] grouped by the lab they need: [(profile, [job, ...])], in
    the order of each profile's first job.  A job's profile is @base with what its
    scenario's cxlab: line asks (LAB_KEYS) in place."""
    groups: list[tuple[Profile, list[Job]]] = []
    for job in jobs:
        prof = dict(base, **{k: job[2][k] for k in LAB_KEYS if k in job[2]})
        for p, js in groups:
            if p == prof:
                js.append(job)
                break
        else:
            groups.append((prof, [job]))
    return groups


def lab_mismatch(jobs: list[Job], st: dict[str, Any]) -> str | None:
    """The first of @jobs that needs another lab than the running one @st, as an error
    message that says what to do; None if the running lab serves them all."""
    have = {"init": st.get("init", "cxlab"), "sm": st.get("sm", "model"),
            "driver": st.get("driver", "cxib")}
    for name, _, meta in jobs:
        bad = [k for k in LAB_KEYS if k in meta and meta[k] != have[k]]
        if bad:
            want = " ".join(f"--{k} {meta[k]}" for k in LAB_KEYS if k in meta)
            return (f"{name} needs a lab with {want}; the running one has "
                    + ", ".join(f"--{k} {have[k]}" for k in bad)
                    + f": cxlab down, then cxlab run {name} (it boots the lab it needs), "
                    f"or cxlab up {want}")
    return None


E2E_DIR = os.path.join(TOP, "tests", "e2e")


def is_scenario(path: str) -> bool:
    """A scenario is a script: its first line is "#!".  Shell code that scenarios source
    (tests/e2e/lib.sh) has none and is not a scenario."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def scenario_names(d: str | None = None) -> list[str]:
    d = d or E2E_DIR
    return sorted(f[:-3] for f in os.listdir(d)
                  if f.endswith(".sh") and is_scenario(os.path.join(d, f)))


def find_scenario(name: str, d: str | None = None) -> str:

    """@name as a file, or tests/e2e/@name[.sh]; LabError naming the scenarios otherwise."""
    d = d or E2E_DIR
    if os.path.isfile(name):
        return os.path.abspath(name)
    avail = ", ".join(scenario_names(d))
    for c in (os.path.join(d, name), os.path.join(d, name + ".sh")):
        if os.path.isfile(c):
            if not is_scenario(c):
                raise LabError(f"{os.path.relpath(c, TOP)} is shell code that scenarios "
                               f"source, not a scenario; available: {avail}")
            return os.path.abspath(c)
    raise LabError(f"no scenario {name!r}; available: {avail}")
