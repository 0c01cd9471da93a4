# SPDX-License-Identifier: GPL-2.0-only
"""cxlab bench: the perftest matrix on cxib and, in the same guests and the same run, on
Soft-RoCE (rdma_rxe over the management network) as the baseline.

The pure parts (perftest output parsing, counters, rows, ratios, the table, the JSON, the
retry policy) are plain functions tested by scripts/tests/test_cxlab_bench.py.  The lab
parts run on a cxlab.lab.Lab; the guest side is tests/e2e/bench_perftest.sh.
Documentation/bench.md says how to read the output.
"""

import argparse
import math
import os
import re
import time
from types import ModuleType
from typing import Any, Callable

from . import netbench as nb
from .common import LabError, save_json, say, table, write_json
from .diag import parse_stats, stats_delta
from .lab import Lab, Node, new_results_dir
from .qmp import QMPError, hca_get
from .results import JobResult, Status
from .share import job_script, share_e2e

# ---------------------------------------------------------------- the matrix

# test name -> (perftest program, kind).  kind "bw": MB/s (perftest's MB = 2^20 B), higher
# is better; kind "lat": usec (half a round trip for write/send, a full one for read and
# atomics), lower is better.
TESTS = {
    "write_bw": ("ib_write_bw", "bw"),
    "write_lat": ("ib_write_lat", "lat"),
    "read_bw": ("ib_read_bw", "bw"),
    "read_lat": ("ib_read_lat", "lat"),
    "send_bw": ("ib_send_bw", "bw"),
    "send_lat": ("ib_send_lat", "lat"),
    "atomic_bw": ("ib_atomic_bw", "bw"),
    "atomic_lat": ("ib_atomic_lat", "lat"),
}
FAMILIES = ("write", "read", "send", "atomic")
ATOMIC_SIZE = 8  # perftest's atomics always move one 8-byte operand; -s does not apply

# 2 B .. 1 MiB: powers of 4 from 2 B, and 1 MiB itself.
DEFAULT_SIZES = [2 * 4 ** i for i in range(10)] + [1 << 20]
QUICK_ROWS = [("write_bw", 65536), ("write_lat", 2), ("read_bw", 65536), ("send_lat", 2)]

CXIB_DEV = "cxib_0"
RXE_DEV = "rxe0"
JUMBO_MTU = 9000
SERVER_NODE, CLIENT_NODE = "node1", "node2"
BASE_PORT = 18515  # perftest's default TCP port for the side channel; one port per run
PERFTEST_TIMEOUT = 120  # seconds one perftest may take inside the guest
JOB_TIMEOUT = PERFTEST_TIMEOUT + 60

# The model's counters shown next to each row (sums over both HCAs), in table order.
COUNTER_COLUMNS = [
    ("cmds", ("cmd_doorbells",)),
    ("doorbells", ("sq_doorbells",)),
    ("BF", ("bf_writes",)),
    ("DMA KiB", ("dma_read_bytes", "dma_write_bytes")),
    ("pkts", ("pkts_sent",)),
    ("ACKs", ("acks_sent",)),
    ("retries", ("retransmits",)),
]

# Lines in a guest console that mean the guest kernel crashed or wedged during a run.
CONSOLE_CRASH = re.compile(r"Kernel panic|BUG: |Oops|general protection fault|"
                           r"soft lockup|hard LOCKUP|double fault|Call Trace:")


def size_label(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def parse_size(text):
    """'64K', '64KiB', '1M', '4096' -> bytes; ValueError if it is not a size."""
    m = re.fullmatch(r"\s*(\d+)\s*([kKmM]?)(?:i?B)?\s*", text)
    if not m:
        raise ValueError(f"not a size: {text!r}")
    n = int(m.group(1)) << {"": 0, "k": 10, "K": 10, "m": 20, "M": 20}[m.group(2)]
    if not 1 <= n <= 1 << 23:
        raise ValueError(f"size out of perftest's range (1 B..8 MiB): {text!r}")
    return n


def select_tests(spec):
    """'write,read' or 'write_bw,send_lat' -> test names in matrix order."""
    if not spec:
        return list(TESTS)
    out = []
    for w in (x.strip() for x in spec.split(",") if x.strip()):
        if w in FAMILIES:
            out += [t for t in TESTS if t.startswith(w + "_")]
        elif w in TESTS:
            out.append(w)
        elif w in ("bw", "lat"):
            out += [t for t in TESTS if t.endswith("_" + w)]
        else:
            raise ValueError(f"unknown test {w!r}: use {', '.join(FAMILIES)}, bw, lat or "
                             f"one of {', '.join(TESTS)}")
    return [t for t in TESTS if t in out]


def matrix(tests, sizes, quick=False):
    """The (test, size) rows to run.  Atomics have one row (8 B) whatever the sizes."""
    if quick:
        rows = [r for r in QUICK_ROWS if r[0] in tests]
        if sizes:
            rows = [(t, s) for t, _ in rows for s in sizes]
        return list(dict.fromkeys(rows))
    rows = []
    for t in tests:
        if t.startswith("atomic_"):
            rows.append((t, ATOMIC_SIZE))
        else:
            rows += [(t, s) for s in (sizes or DEFAULT_SIZES)]
    return rows


def iterations(kind, size):
    """Iterations short enough for TCG, long enough to average over a few hundred messages."""
    if kind == "bw":
        return max(100, min(1000, (32 << 20) // size))
    return max(100, min(1000, (16 << 20) // size))


def perftest_args(test, size):
    """The options both sides give perftest for one row (device, port, GID come later)."""
    prog, kind = TESTS[test]
    args = ["-n", str(iterations(kind, size))]
    if not test.startswith("atomic_"):
        args = ["-s", str(size)] + args
    if test == "send_bw":
        args.append("-e")  # completions by event: rxe's send BW triples (Documentation/bench.md)
    return prog, args


# ---------------------------------------------------------------- perftest output


class ParseError(Exception):
    pass


def _num(s):
    try:
        x = float(s)
    except ValueError:
        return None
    return x if math.isfinite(x) else None  # perftest prints -nan for some stdevs


def parse_perftest(text, kind):
    """The result row of a perftest run.

    Returns {"bytes", "iterations", "value", "unit", "fields"}: value is BW average in MB/s
    (2^20 B/s) for kind "bw", t_typical (median) in usec for "lat", else t_avg.  Raises
    ParseError when there is no result table (the run failed)."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        hdr = ln.strip()
        if not hdr.startswith("#bytes"):
            continue
        # Column names: "#bytes", "#iterations", then names ending in "[unit]" that may
        # contain a space ("BW average[MB/sec]", "99% percentile[usec]").
        names = [h.strip() for h in re.findall(r"#\w+|[^\s#][^\[\]#]*?\[[^\]]*\]", hdr)]
        for row in lines[i + 1:]:
            vals = row.split()
            if not vals or not vals[0].isdigit():
                if row.strip().startswith("---") or not row.strip():
                    continue
                break
            fields = {}
            for name, v in zip(names, vals):
                x = _num(v)
                if x is not None:
                    fields[name] = x
            out = {"bytes": int(vals[0]), "iterations": int(fields.get("#iterations", 0)),
                   "fields": fields}
            if kind == "bw":
                key = next((k for k in fields if k.startswith("BW average")), None)
                if key is None:
                    raise ParseError("perftest printed no 'BW average' column")
                out.update(value=fields[key], unit="MB/s")
            else:
                key = next((k for k in fields if k.startswith("t_typical")), None) or \
                    next((k for k in fields if k.startswith("t_avg")), None)
                if key is None:
                    raise ParseError("perftest printed no t_typical/t_avg column")
                out.update(value=fields[key], unit="usec")
            out["column"] = key
            return out
    raise ParseError("no result table in the perftest output")


# perftest and libibverbs lines that explain a failure, most specific first.
_ERROR_LINE = re.compile(r"BENCH-ERROR: (.*)|(.*(?:Couldn't|couldn't|Unable|unable|Failed|"
                         r"failed|[Ee]rror|not found|No IB devices|not supported|"
                         r"Invalid|invalid|Segmentation|Aborted|Killed|timed out).*)")


def failure_reason(*outputs):
    """A one-line reason from the guest outputs (client first): a BENCH-ERROR line if
    there is one, else perftest's first error line, else the last non-empty line."""
    first_err, last = None, None
    for text in outputs:
        for ln in (text or "").splitlines():
            s = ln.strip()
            if not s:
                continue
            m = _ERROR_LINE.fullmatch(s)
            if m and m.group(1):
                return m.group(1).strip()
            if m and first_err is None and not s.startswith("BENCH-"):
                first_err = s
            if not s.startswith(("BENCH-", "---")):
                last = last or s
    return first_err or last or "no output"


def guest_dmesg(text):
    """The kernel messages a guest logged during the run (BENCH-DMESG lines)."""
    return [ln[len("BENCH-DMESG: "):] for ln in (text or "").splitlines()
            if ln.startswith("BENCH-DMESG: ")]


def bench_info(text):
    """key=value pairs from the BENCH-INFO lines of a guest output."""
    info = {}
    for ln in (text or "").splitlines():
        if ln.startswith("BENCH-INFO: "):
            for kv in ln[len("BENCH-INFO: "):].split():
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    info[k] = v
    return info


# ---------------------------------------------------------------- model counters


def device_counters(text):
    """Deltas of the RDMA device's hw_counters (sysfs) around the perftest run, from the
    BENCH-HWC-BEFORE/AFTER lines of a guest output; None if they are missing."""
    got = {}
    for ln in (text or "").splitlines():
        for tag in ("BEFORE", "AFTER"):
            if ln.startswith(f"BENCH-HWC-{tag}:"):
                got[tag] = parse_stats(ln.split(":", 1)[1])
    return stats_delta(got.get("BEFORE"), got.get("AFTER"))


def counter_cells(deltas):
    """Table cells for COUNTER_COLUMNS from {node: delta} (summed over the nodes)."""
    if not deltas or any(d is None for d in deltas.values()):
        return ["?"] * len(COUNTER_COLUMNS)
    cells = []
    for title, names in COUNTER_COLUMNS:
        tot = sum(d.get(n, 0) for d in deltas.values() for n in names)
        cells.append(str(tot // 1024) if title == "DMA KiB" else str(tot))
    return cells


# ---------------------------------------------------------------- retry policy


def should_retry(device_role, attempt, outcome):
    """The baseline is retried once when a run fails or crashes; cxib never is (a cxib
    failure is a finding, not noise).  @attempt counts from 1."""
    return device_role == "baseline" and attempt < 2 and outcome["status"] != "ok"


def summarise_attempts(attempts):
    """The reported outcome of one (row, device) from its attempts.  A number only ever
    comes from a successful attempt; a retried success says so."""
    last = attempts[-1]
    out = dict(last)
    out["attempts"] = attempts
    if last["status"] == "ok":
        if len(attempts) > 1:
            out["note"] = f"retried: attempt 1 {attempts[0]['status']}: {attempts[0]['reason']}"
        return out
    out.pop("value", None)
    if len(attempts) > 1:
        out["reason"] = f"failed after retry: {last['reason']}"
    return out


# ---------------------------------------------------------------- rows, table, JSON


def fmt_value(v, unit):
    if v >= 100:
        s = f"{v:.0f}"
    elif v >= 10:
        s = f"{v:.1f}"
    elif v >= 1:
        s = f"{v:.2f}"
    else:
        s = f"{v:.3g}"  # small-message BW: keep three significant digits
    return f"{s} {unit}"


def speedup(kind, cxib, rxe):
    """cxib relative to rxe, > 1 when cxib is better: BW cxib/rxe, latency rxe/cxib."""
    if cxib is None or rxe is None or cxib <= 0 or rxe <= 0:
        return None
    return cxib / rxe if kind == "bw" else rxe / cxib


def build_table(rows, devices):
    """Headers, table rows and footnotes for the bench table.  @rows are the JSON rows."""
    notes, note_of = [], {}

    def cell(row, dev):
        r = row.get(dev)
        if r is None:
            return "not run"
        if r["status"] == "ok":
            s = fmt_value(r["value"], r["unit"])
            if r.get("note"):
                s += f" [{note(dev, r['note'])}]"
            return s
        return f"failed [{note(dev, r['reason'])}]"

    def note(dev, text):
        key = f"{dev}: {text}" if text.startswith(("failed after", "retried")) else \
            f"{dev}: failed: {text}"
        if key not in note_of:
            notes.append(key)
            note_of[key] = len(notes)
        return note_of[key]

    headers = ["test", "size"] + [d for d in devices]
    if len(devices) == 2:
        headers.append("cxib vs rxe")
    counters = "cxib" in devices
    if counters:
        headers += [t for t, _ in COUNTER_COLUMNS]
    out = []
    for row in rows:
        line = [row["test"], size_label(row["size"])]
        line += [cell(row, d) for d in devices]
        if len(devices) == 2:
            s = row.get("speedup")
            line.append(f"{s:.2f}x" if s is not None else "-")
        cx = row.get("cxib")
        if counters:
            line += counter_cells(cx.get("counters")) if cx else ["-"] * len(COUNTER_COLUMNS)
        out.append(line)
    return headers, out, [f"[{i}] {t}" for i, t in enumerate(notes, 1)]


def make_row(test, size, cxib, rxe):
    prog, kind = TESTS[test]
    row = {"test": test, "program": prog, "kind": kind, "size": size,
           "unit": "MB/s" if kind == "bw" else "usec"}
    if cxib is not None:
        row["cxib"] = cxib
    if rxe is not None:
        row["rxe"] = rxe
    row["speedup"] = speedup(kind, cxib.get("value") if cxib else None,
                             rxe.get("value") if rxe else None)
    return row


def bench_document(rows, config, results, partial=False):
    return {"command": "bench", "results": results, "config": config, "rows": rows,
            "complete": not partial,
            "units": {"bw": "MB/s = 2^20 bytes/s (perftest's BW average)",
                      "lat": "usec (perftest's t_typical: the median)",
                      "speedup": "cxib relative to rxe, > 1 = cxib better",
                      "counters": "deltas of the cxib-pci 'stats' counters per node"}}


# ---------------------------------------------------------------- the guest side

# The guest side, tests/e2e/bench_perftest.sh (on the share as /cxlab/e2e/): a job script
# sets its variables and sources it.
GUEST_SCRIPT = "bench_perftest.sh"


def guest_script(dev: str, rxe: bool, test: str, size: int, port: int, mtu: int) -> str:
    """The job script of one perftest run: GUEST_SCRIPT's variables, then GUEST_SCRIPT."""
    prog, args = perftest_args(test, size)
    what = "One perftest run of `cxlab bench` (scripts/lib/cxlab/bench.py)."
    return job_script(GUEST_SCRIPT, what,
                      {"DEV": dev, "PROG": prog, "ARGS": " ".join(args), "PORT": port,
                       "MTU": mtu, "TMO": PERFTEST_TIMEOUT, "RXE": 1 if rxe else 0,
                       "SERVER": SERVER_NODE, "CLIENT": CLIENT_NODE})



# ---------------------------------------------------------------- the host side


def read_stats(run: str, node: str) -> dict[str, int]:
    """The model's counters of @node's HCA (its QOM property "stats" over QMP); OSError or
    QMPError if QEMU cannot say, ValueError if it answers something else."""
    text = hca_get(run, node, "stats")
    stats = parse_stats(text)
    if not stats:
        raise ValueError(f"unexpected answer {str(text).strip()[:80]!r}")
    return stats


def console_pos(results, node):
    try:
        return os.path.getsize(os.path.join(results, node, "console.log"))
    except OSError:
        return 0


def console_crash(results, node, since):
    try:
        with open(os.path.join(results, node, "console.log"), errors="replace") as f:
            f.seek(since)
            for ln in f:
                if CONSOLE_CRASH.search(ln):
                    return ln.strip()
    except OSError:
        pass
    return None


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except (OSError, TypeError):
        return ""


class Runner:
    """Runs one (row, device) attempt at a time on the lab, rebooting an owned lab whose
    node crashed or wedged."""

    def __init__(self, lab: Lab, args: argparse.Namespace, own: bool, results: str) -> None:
        self.lab, self.args, self.own, self.results = lab, args, own, results
        self.seq = 0
        self.broken: str | None = None  # why the lab cannot run more rows
        self.unreadable: set[str] = set()  # why counters could not be read, said once each

    def nodes(self) -> list[Node]:
        return [self.lab.node(SERVER_NODE), self.lab.node(CLIENT_NODE)]

    def reboot(self, why: str) -> None:
        if not self.own:
            self.broken = f"{why}; the lab is not owned by this bench, so it was not rebooted"
            return
        say(f"bench: {why}: rebooting the lab")
        self.lab.down(quiet=True)
        self.args.results = self.results
        try:
            self.lab = self.lab.up(self.args, 2, "bench")
        except LabError as e:
            self.broken = f"{why}; rebooting the lab failed: {e}"

    def snapshot(self, nodes: list[Node]) -> dict[str, dict[str, int] | None]:
        """The model's counters of each node's HCA ({node: {name: value}}; None if
        unreadable, said once per reason)."""
        out: dict[str, dict[str, int] | None] = {}
        for node in nodes:
            try:
                out[node["name"]] = read_stats(self.lab.run, node["name"])
            except (OSError, QMPError, ValueError) as e:
                out[node["name"]] = None
                if str(e) not in self.unreadable:
                    self.unreadable.add(str(e))
                    say(f"bench: cannot read the model's counters of {node['name']} over "
                        f"QMP: {e}")
        return out

    def attempt(self, test: str, size: int, dev: str, rxe: bool, mtu: int) -> dict[str, Any]:
        if self.broken:
            return {"status": "failed", "reason": self.broken}
        self.seq += 1
        port = BASE_PORT + self.seq % 1000
        job = f"bench-{self.seq:03d}-{test}-{size}-{dev}"
        script = os.path.join(self.lab.run, f"{job}.sh")
        with open(script, "w") as f:
            f.write(guest_script(dev, rxe, test, size, port, mtu))
        nodes = self.nodes()
        before = self.snapshot(nodes)
        logs = self.lab.results  # where QEMU writes the consoles (the lab's first run)
        cpos = {n["name"]: console_pos(logs, n["name"]) for n in nodes}
        t0 = time.time()
        try:
            res = self.lab.run_job(job, script, nodes, JOB_TIMEOUT, self.results)
        except LabError as e:
            res = {n["name"]: JobResult(Status.FAIL, -1, detail=str(e)) for n in nodes}
        secs = round(time.time() - t0, 1)
        after = self.snapshot(nodes)
        outs = {n["name"]: read_text(res[n["name"]].output) for n in nodes}
        out = {"status": "ok", "seconds": secs, "job": job,
               "counters": {n: stats_delta(before[n], after[n]) for n in before},
               "device_counters": {n: device_counters(outs[n]) for n in outs},
               "host_load": [round(x, 2) for x in os.getloadavg()],
               "dmesg": {n: guest_dmesg(outs[n]) for n in outs if guest_dmesg(outs[n])},
               "info": bench_info(outs[CLIENT_NODE]) or bench_info(outs[SERVER_NODE])}
        crash = None
        for n in nodes:
            line = console_crash(logs, n["name"], cpos[n["name"]])
            if not self.lab.alive(n):
                crash = f"{n['name']} crashed (QEMU exited){': ' + line if line else ''}"
            elif line:
                crash = f"{n['name']} guest kernel: {line[:100]}"
            if crash:
                break
        wedged = [n["name"] for n in nodes if res[n["name"]].status is Status.TIMEOUT]
        try:
            parsed = parse_perftest(outs[CLIENT_NODE], TESTS[test][1])
        except ParseError as e:
            parsed = None
            why = failure_reason(outs[CLIENT_NODE], outs[SERVER_NODE])
            if why == "no output":
                why = res[CLIENT_NODE].detail or str(e)
        if crash:
            out.update(status="crashed", reason=crash)
        elif parsed is None:
            out.update(status="failed", reason=why)
        elif res[CLIENT_NODE].status is not Status.PASS:
            out.update(status="failed", reason=f"perftest exited {res[CLIENT_NODE].rc} "

                                               f"after printing a result")
        else:
            out.update(value=parsed["value"], unit=parsed["unit"], column=parsed["column"],
                       iterations=parsed["iterations"], fields=parsed["fields"])
        if wedged and out["status"] == "ok":
            out.update(status="failed", reason=f"{', '.join(wedged)}: job timed out")
        if crash or wedged:
            self.reboot(crash or f"{', '.join(wedged)} did not finish the job")
        return out


def run_device(runner, test, size, dev, role, mtu, progress):
    attempts = []
    while True:
        a = runner.attempt(test, size, dev, role == "baseline", mtu)
        attempts.append(a)
        shown = fmt_value(a["value"], a["unit"]) if a["status"] == "ok" else \
            f"{a['status']}: {a['reason']}"
        errs: dict[str, int] = {}

        for d in (a.get("device_counters") or {}).values():
            for k, v in (d or {}).items():
                if re.search(r"err|retry|seq|dup|drop|timeout", k):
                    errs[k] = errs.get(k, 0) + v
        if errs:
            shown += " [" + " ".join(f"{k}+{v}" for k, v in sorted(errs.items())) + "]"
        progress(f"{test} {size_label(size)} on {dev}: {shown} ({a.get('seconds', 0)}s)")
        if not should_retry(role, len(attempts), a):
            break
        progress(f"{test} {size_label(size)} on {dev}: retrying (baseline run {a['status']})")
    return summarise_attempts(attempts)


def lab_for_bench(args: argparse.Namespace,
                  check: Callable[[Lab], None]) -> tuple[Lab, bool, str]:
    """The running lab (which @check may refuse with a LabError) or one booted for the
    run; returns (lab, whether the bench owns it, the results directory)."""
    running = Lab.load()
    if running is None:
        say("bench: no lab running: booting 2 nodes for this run")
        lab = Lab.up(args, 2, "bench")
        return lab, True, lab.results
    check(running)
    share_e2e(os.path.join(running.run, "share"))  # the guest scripts of this tree
    return running, False, new_results_dir(args, "bench")


def cmd_bench_guests(args: argparse.Namespace, mod: ModuleType, flag: str,
                     footnote: Callable[[dict[str, Any]], str]) -> int:
    """`cxlab bench --ipoib` / `--nvmeof`: the rows of @mod (netbench, nvmebench) on the
    running lab or on one booted for the run."""
    if Lab.load() is None and (getattr(args, "sm", None) or "opensm") != "opensm":
        raise LabError(f"{flag} needs the lab's opensm (IPoIB joins the broadcast "
                       "group the SM creates): leave --sm at its default")

    def check(lab: Lab) -> None:
        if lab.get("sm") != "opensm":
            raise LabError("the running lab has no subnet manager, which IPoIB needs: "
                           f"cxlab down, then cxlab bench {flag}")
    lab, own, results = lab_for_bench(args, check)
    try:
        doc = mod.run(lab, results)
    finally:
        if own:
            lab.down(quiet=True)
    path = os.path.join(results, "bench.json")
    save_json(path, doc)
    headers, trows = mod.build_table(doc["rows"])
    print()
    print(table(headers, trows))
    print(footnote(doc))
    print()
    say(f"results in {results}; JSON in {path}")
    write_json(args.json, doc)
    failed = sum(1 for r in doc["rows"] for p, _ in mod.PATHS
                 if r.get(p, {}).get("status") != "ok")
    say(f"{len(doc['rows']) * len(mod.PATHS) - failed} runs gave a number, {failed} failed")
    return 1 if failed else 0


def cmd_bench_ipoib(args: argparse.Namespace) -> int:
    """`cxlab bench --ipoib`: IPoIB against virtio-net (scripts/lib/cxlab/netbench.py)."""
    return cmd_bench_guests(
        args, nb, "--ipoib",
        lambda doc: f"tcp_bw: iperf3, one TCP stream node2 -> node1, {nb.IPERF_SECONDS} s; "
                    f"ping_rtt: {nb.PING_COUNT} pings, average.  Soft-RoCE: "
                    f"{doc['baseline_rxe']}")


def cmd_bench_nvmeof(args: argparse.Namespace) -> int:
    """`cxlab bench --nvmeof`: nvme-rdma on cxib against nvme-tcp on virtio-net and
    nvme-rdma on Soft-RoCE (scripts/lib/cxlab/nvmebench.py)."""
    from . import nvmebench as nvb
    return cmd_bench_guests(
        args, nvb, "--nvmeof",
        lambda doc: f"fio on node2, {nvb.FIO_SECONDS} s per row, node1's null_blk through "
                    f"each transport; target: {doc['target']}")


def cmd_bench(args: argparse.Namespace) -> int:
    """`cxlab bench`: see Documentation/bench.md."""
    if args.ipoib:
        return cmd_bench_ipoib(args)
    if args.nvmeof:
        return cmd_bench_nvmeof(args)
    try:
        tests = select_tests(args.tests)
        sizes = [parse_size(x) for x in args.sizes.split(",")] if args.sizes else None
    except ValueError as e:
        raise LabError(str(e))
    if args.baseline_only and args.no_baseline:
        raise LabError("--baseline-only and --no-baseline exclude each other")
    devices = []
    if not args.baseline_only:
        devices.append(("cxib", args.cxib_dev, "measured"))
    if not args.no_baseline:
        devices.append(("rxe", RXE_DEV, "baseline"))
    rows_todo = matrix(tests, sizes, args.quick)
    if not rows_todo:
        raise LabError("no rows selected (--quick runs write_bw, write_lat, read_bw, "
                       "send_lat; check --tests)")

    def check(lab: Lab) -> None:
        names = {n["name"] for n in lab.nodes}
        if not {SERVER_NODE, CLIENT_NODE} <= names:
            raise LabError(f"the running lab has no {SERVER_NODE} and {CLIENT_NODE}: "
                           "cxlab down, then cxlab bench")
    lab, own, results = lab_for_bench(args, check)
    config: dict[str, Any] = {
        "server": SERVER_NODE, "client": CLIENT_NODE, "quick": bool(args.quick),
        "devices": {name: dev for name, dev, _ in devices},
        "perftest": "same options on both devices: -F -p <port> -s <size> -n <iters>"
                    " (+ -e for send_bw); RoCE adds -x <RoCE v2 GID index>",
        "baseline": {"driver": "rdma_rxe", "netdev": "management interface (virtio-net, "
                     "QEMU dgram netdev, host UDP relay)", "mtu_requested": args.mtu,
                     "tcp_nodelay": "no TCP on the host side: the relay is UDP, the cable "
                                    "and monitors are Unix sockets"},
        "retry": "a failed or crashed baseline run is retried once; cxib runs are not",
    }
    runner = Runner(lab, args, own, results)
    total = len(rows_todo) * len(devices)
    k = 0  # the attempt under way, read by progress()

    def progress(msg: str) -> None:
        say(f"bench: [{k}/{total}] {msg}")

    rows: list[dict[str, Any]] = []
    try:
        for test, size in rows_todo:
            got: dict[str, Any] = {}
            for name, dev, role in devices:
                k += 1
                got[name] = run_device(runner, test, size, dev, role, args.mtu, progress)
                if name == "rxe" and got[name].get("info"):
                    config["baseline"].setdefault("measured", got[name]["info"])
            rows.append(make_row(test, size, got.get("cxib"), got.get("rxe")))
            save_json(os.path.join(results, "bench.json"),
                      bench_document(rows, config, results, partial=True))
    finally:

        if own:
            runner.lab.down(quiet=True)
    doc = bench_document(rows, config, results)
    path = os.path.join(results, "bench.json")
    save_json(path, doc)
    headers, trows, notes = build_table(rows, [d[0] for d in devices])
    print()
    print(table(headers, trows))
    for n in notes:
        print(n)
    m = config["baseline"].get("measured")
    if m:
        print(f"baseline: rxe0 on {m.get('netif', '?')}, netdev MTU {m.get('netdev_mtu', '?')}"
              f" (requested {args.mtu}), RoCE active MTU {m.get('active_mtu', '?')}, "
              f"GID index {m.get('gid_index', '?')}, perftest {m.get('perftest', '?')}")
    print("units: BW in MB/s (2^20 B/s), latency in usec (median); 'cxib vs rxe' > 1 means"
          " cxib is better; counters are cxib-pci deltas summed over both HCAs")
    print()
    say(f"results in {results}; JSON in {path}")
    write_json(args.json, doc)
    failed = sum(1 for r in rows for d in devices if r.get(d[0], {}).get("status") != "ok")
    say(f"{len(rows) * len(devices) - failed} runs gave a number, {failed} failed")
    return 1 if failed else 0


def add_parser(sub, common):
    p = sub.add_parser("bench", help="perftest matrix on cxib and Soft-RoCE (baseline)")
    p.add_argument("--ipoib", action="store_true",
                   help="IPoIB (datagram, connected) against virtio-net: iperf3 TCP and ping "
                        "instead of the perftest matrix")
    p.add_argument("--nvmeof", action="store_true",
                   help="NVMe-oF: nvme-rdma on cxib against nvme-tcp on virtio-net and "
                        "nvme-rdma on Soft-RoCE (fio 4K random read IOPS and QD1 latency, "
                        "128K sequential read)")
    p.add_argument("--quick", action="store_true",
                   help="a handful of rows for CI (write_bw 64K, write_lat 2, read_bw 64K, "
                        "send_lat 2)")
    p.add_argument("--sizes", metavar="LIST", help="message sizes, e.g. 2,4K,64K,1M "
                   "(default 2 B..1 MiB by powers of 4)")
    p.add_argument("--tests", metavar="LIST", help="write,read,send,atomic, bw, lat or "
                   "test names like write_bw (default all)")
    p.add_argument("--baseline-only", action="store_true", help="only Soft-RoCE")
    p.add_argument("--no-baseline", action="store_true", help="only cxib")
    p.add_argument("--cxib-dev", default=CXIB_DEV, help=f"cxib device name ({CXIB_DEV})")
    p.add_argument("--mtu", type=int, default=JUMBO_MTU,
                   help=f"management interface MTU for rxe ({JUMBO_MTU})")
    common(p)
    return p
