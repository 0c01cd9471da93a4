# SPDX-License-Identifier: GPL-2.0-only
"""What the models and the cable say about a failed job: each node's counters before and
after it, the engines' state and the cable's counters, kept with the job's results so that
a lost packet names its counter without a rerun."""

import os
import re
from typing import Any, Sequence

from .common import say
from .qmp import HCA_QOM_PATH, QMP, QMPError, qmp_path

# The HCA's QOM properties kept with a failed job: the model's counters, the cable's, and
# the transport state of every QP (read last: it is the one that takes the model's lock).
SNAPSHOT = ("stats", "cable-stats")
STATE = SNAPSHOT + ("engines",)

# Counters that move when a packet, a completion or an event goes missing, by where.  A
# failed job names every one of them that moved while it ran.
LOSS_COUNTERS = {
    "stats": ("pkts_dropped", "icrc_errors", "vcrc_errors", "pkey_violations",
              "qkey_violations", "port_state_drops", "addressing_drops", "no_qp_drops",
              "transport_drops", "loop_drops", "dead_drops", "out_of_buffer", "out_of_sequence",
              "duplicate_requests", "retransmits", "local_ack_timeouts", "packet_seq_err",
              "implied_nak_seq_err", "retry_exceeded", "rnr_retry_exceeded", "rnr_naks_sent",
              "cq_overruns", "eq_overruns",
              "dma_errors", "local_errors", "remote_access_errors", "traps_dropped",
              "cmd_delivery_errors", "cmd_failures"),
    "cable-stats": ("tx_drop_down", "tx_drop_full", "tx_drop_bad", "tx_lost_bytes",
                    "links_down"),
}


def parse_stats(text: object) -> dict[str, int]:
    """'name=value ...' (the cxib-pci 'stats' property, possibly quoted) -> {name: int}."""
    return {k: int(v) for k, v in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\d+)", str(text or ""))}


def stats_delta(before: dict[str, int] | None,
                after: dict[str, int] | None) -> dict[str, int] | None:
    """{name: after - before} of the counters that changed; None if either is unknown."""
    if before is None or after is None:
        return None
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


def read_props(run: str, node: str, props: Sequence[str]) -> dict[str, str]:
    """@props of @node's HCA as QEMU returns them; a property QEMU could not give is
    "(unavailable: why)", so a dump of a dying lab still says what it could."""
    out: dict[str, str] = {}
    try:
        with QMP(qmp_path(run, node)) as q:
            for prop in props:
                try:
                    out[prop] = str(q.qom_get(HCA_QOM_PATH, prop))
                except QMPError as e:
                    out[prop] = f"(unavailable: {e})"
    except OSError as e:
        for prop in props:
            out.setdefault(prop, f"(unavailable: {e})")
    return out


def snapshot(run: str, nodes: Sequence[str]) -> dict[str, dict[str, dict[str, int]]]:
    """The counters of every node's model and cable: {node: {property: {name: value}}}."""
    return {n: {p: parse_stats(v) for p, v in read_props(run, n, SNAPSHOT).items()}
            for n in nodes}


def moved(before: dict[str, dict[str, int]],
          after: dict[str, dict[str, int]]) -> list[str]:
    """'name +n' for every loss counter (LOSS_COUNTERS) that moved from @before to @after."""
    out = []
    for prop, names in LOSS_COUNTERS.items():
        d = stats_delta(before.get(prop), after.get(prop)) or {}
        out += [f"{'cable ' if prop != 'stats' else ''}{n} +{d[n]}" for n in names if d.get(n)]
    return out


def write_state(path: str, state: dict[str, str],
                before: dict[str, dict[str, int]] | None = None) -> None:
    """@state (read_props(..., STATE)) into @path, after the counters @before if known."""
    with open(path, "w") as f:
        for prop in SNAPSHOT:
            if before is not None:
                was = before.get(prop)
                f.write(f"# {prop} before the job\n")
                f.write((" ".join(f"{k}={v}" for k, v in was.items()) if was else "(not read)")
                        + "\n")
            f.write(f"# {prop}\n{state[prop]}\n")
        f.write(f"# engines\n{state['engines']}\n")


def keep_state(run: str, nodes: Sequence[str], job: str, label: str) -> None:
    """A running job asked (STATE, tests/e2e/check.sh: cxlab_state) to keep every node's
    model state now: into the job's results on the share as model-state-@label.txt, which
    the job's results take along.  The first request of a label is kept."""
    label = re.sub(r"[^A-Za-z0-9._-]", "_", label)[:80] or "state"
    for node in nodes:
        d = os.path.join(run, "share", "results", job, node)
        path = os.path.join(d, f"model-state-{label}.txt")
        if os.path.exists(path):
            continue
        os.makedirs(d, exist_ok=True)
        write_state(path, read_props(run, node, STATE))
    say(f"{job}: kept every node's model state as model-state-{label}.txt")


def dump_failed_job(run: str, nodes: Sequence[str], job: str, results: str,
                    before: dict[str, dict[str, dict[str, int]]]) -> dict[str, Any]:
    """Keep every node's model state in @results/<node>/@job/model-state.txt (the counters
    before the job, the state after it) and say which loss counters moved; returns
    {node: [moved counters]}."""
    verdict: dict[str, Any] = {}
    for node in nodes:
        state = read_props(run, node, STATE)
        now = {p: parse_stats(state[p]) for p in SNAPSHOT}
        d = os.path.join(results, node, job)
        os.makedirs(d, exist_ok=True)
        write_state(os.path.join(d, "model-state.txt"), state, before.get(node, {}))
        verdict[node] = moved(before.get(node, {}), now)
        say(f"{node}: {job} failed; while it ran "
            + (", ".join(verdict[node]) if verdict[node] else "no loss counter moved")
            + f" (model state: {os.path.relpath(d)}/model-state.txt)")
    return verdict
