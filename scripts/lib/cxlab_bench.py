# SPDX-License-Identifier: GPL-2.0-only
"""cxlab bench: the perftest matrix on cxib and, in the same guests and the same run, on
Soft-RoCE (rdma_rxe over the management network) as the baseline.

The pure parts (perftest output parsing, counters, rows, ratios, the table, the JSON, the
retry policy) are plain functions tested by scripts/tests/test_cxlab_bench.py.  The lab
parts (booting, jobs, the monitor) use scripts/cxlab's own functions, passed in as `lab`.
Documentation/bench.md says how to read the output.
"""

import json
import math
import os
import re
import select
import socket
import time

import cxlab_netbench as nb

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


def parse_stats(text):
    """'name=value ...' (the cxib-pci 'stats' property, possibly quoted) -> {name: int}."""
    return {k: int(v) for k, v in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\d+)", text or "")}


def stats_delta(before, after):
    if before is None or after is None:
        return None
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


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


def save_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2, allow_nan=False)
    os.replace(tmp, path)


def bench_document(rows, config, results, partial=False):
    return {"command": "bench", "results": results, "config": config, "rows": rows,
            "complete": not partial,
            "units": {"bw": "MB/s = 2^20 bytes/s (perftest's BW average)",
                      "lat": "usec (perftest's t_typical: the median)",
                      "speedup": "cxib relative to rxe, > 1 = cxib better",
                      "counters": "deltas of the cxib-pci 'stats' counters per node"}}


# ---------------------------------------------------------------- the guest side

GUEST_SCRIPT = r"""#!/bin/bash
# One perftest run of `cxlab bench` (generated by scripts/lib/cxlab_bench.py).
set -u
DEV='@DEV@' PROG='@PROG@' ARGS='@ARGS@' PORT=@PORT@ MTU=@MTU@ TMO=@TMO@ RXE=@RXE@
SERVER='@SERVER@' CLIENT='@CLIENT@'
ROLE=client; [ "$CXLAB_NODE" = "$SERVER" ] && ROLE=server
SDIR=/cxlab/results/$CXLAB_JOB/$SERVER CDIR=/cxlab/results/$CXLAB_JOB/$CLIENT
state() { echo "$*" >"$ROLE.state.tmp" && mv "$ROLE.state.tmp" "$ROLE.state"; }
fail() { echo "BENCH-ERROR: $*"; state "failed: $*"; exit 3; }
info() { echo "BENCH-INFO: $*"; }

# No udev in the lab: nothing loads ib_uverbs on demand.
modprobe ib_uverbs 2>err.txt || fail "modprobe ib_uverbs: $(head -n1 err.txt)"
netif=$(ip -o -4 addr show | awk -v a="$CXLAB_ADDR/" 'index($4, a) == 1 { print $2; exit }')
[ -n "$netif" ] || fail "no interface carries $CXLAB_ADDR"
if [ "$RXE" = 1 ]; then
	modprobe rdma_rxe 2>err.txt || fail "modprobe rdma_rxe: $(head -n1 err.txt)"
	if [ "$(cat /sys/class/net/$netif/mtu)" != "$MTU" ]; then
		ip link set dev "$netif" mtu "$MTU" 2>err.txt ||
			info "mtu_refused=$MTU ($(head -n1 err.txt | tr ' ' _))"
	fi
	[ -e /sys/class/infiniband/$DEV ] ||
		rdma link add "$DEV" type rxe netdev "$netif" 2>err.txt ||
		fail "rdma link add $DEV type rxe netdev $netif: $(head -n1 err.txt)"
fi
sys=/sys/class/infiniband/$DEV
[ -e "$sys" ] ||
	fail "no RDMA device $DEV on $CXLAB_NODE" \
		"(present: $(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' '))"
st=
for _ in $(seq 40); do
	st=$(cat $sys/ports/1/state 2>/dev/null)
	[ "$st" = "4: ACTIVE" ] && break
	sleep 0.5
done
[ "$st" = "4: ACTIVE" ] || fail "$DEV port 1 is not ACTIVE (${st:-no state})"
uv=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat $u/ibdev 2>/dev/null)" = "$DEV" ] && uv=${u##*/}
done
[ -n "$uv" ] ||
	fail "$DEV has no uverbs device (ib_uverbs is loaded): the driver offers no userspace verbs"
ibv_devices >devs.txt 2>&1
awk '{ print $1 }' devs.txt | grep -qx "$DEV" ||
	fail "libibverbs lists no $DEV (no provider matched it): $(grep -i -m1 'warn\|err' devs.txt)"
ll=$(cat $sys/ports/1/link_layer)
gidopt=
if [ "$ll" = Ethernet ]; then
	# RoCE: perftest needs -x <GID index>: the RoCE v2 GID of our IPv4 address.
	IFS=. read -r a b c d <<<"$CXLAB_ADDR"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for g in $sys/ports/1/gids/*; do
		i=${g##*/}
		if [ "$(cat $g 2>/dev/null)" = "$want" ] &&
			[ "$(cat $sys/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ]; then
			gidopt="-x $i"
			break
		fi
	done
	[ -n "$gidopt" ] || fail "$DEV has no RoCE v2 GID for $CXLAB_ADDR"
fi
# (InfiniBand: perftest addresses the peer by LID; the SM of the lab assigns it.)
amtu=$(ibv_devinfo -d "$DEV" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
info "dev=$DEV link_layer=$ll netif=$netif netdev_mtu=$(cat /sys/class/net/$netif/mtu)" \
	"active_mtu=${amtu:-?} lid=$(cat $sys/ports/1/lid) gid_index=${gidopt#-x } uverbs=$uv" \
	"perftest=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null | tr ' ' _)"
cmd="$PROG -d $DEV -i 1 $gidopt -F -p $PORT $ARGS"
hwc() {
	local f
	for f in $sys/ports/1/hw_counters/*; do
		[ -f "$f" ] && printf '%s=%s ' "${f##*/}" "$(cat "$f" 2>/dev/null)"
	done
}
echo "BENCH-HWC-BEFORE: $(hwc)"
dmesg_at=$(dmesg | wc -l)
newdmesg() { dmesg | tail -n +$((dmesg_at + 1)) | tail -n 20 | sed 's/^/BENCH-DMESG: /'; }

if [ "$ROLE" = server ]; then
	info "server_cmd=$(echo $cmd | tr ' ' '~')"
	$cmd >perftest.txt 2>&1 &
	pid=$!
	state listening
	end=$((SECONDS + TMO))
	while kill -0 $pid 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			kill $pid
			echo "BENCH-ERROR: server: $PROG did not finish within ${TMO}s"
			break
		fi
		if grep -qs '^failed' "$CDIR/client.state"; then
			sleep 2
			kill $pid 2>/dev/null && info "server_stopped=client_failed"
			break
		fi
		sleep 0.5
	done
	wait $pid
	rc=$?
	echo "BENCH-HWC-AFTER: $(hwc)"
	newdmesg
	cat perftest.txt
	exit $rc
fi

end=$((SECONDS + 90))
until [ -s "$SDIR/server.state" ]; do
	[ $SECONDS -ge $end ] && fail "the server on $SERVER did not start"
	sleep 0.5
done
s=$(cat "$SDIR/server.state")
case $s in failed*) fail "server side ($SERVER): ${s#failed: }" ;; esac
info "client_cmd=$(echo $cmd | tr ' ' '~')~$CXLAB_SERVER_ADDR"
sleep 1
for _ in $(seq 15); do
	timeout --kill-after=5 "$TMO" $cmd "$CXLAB_SERVER_ADDR" >perftest.txt 2>&1
	rc=$?
	grep -q "Couldn't connect\|Unable to connect\|Connection refused" perftest.txt || break
	sleep 1
done
echo "BENCH-HWC-AFTER: $(hwc)"
newdmesg
cat perftest.txt
[ $rc = 124 ] && echo "BENCH-ERROR: client: $PROG did not finish within ${TMO}s"
if [ $rc != 0 ]; then
	state "failed: exit $rc"
	exit $rc
fi
state "done"
"""


def guest_script(dev, rxe, test, size, port, mtu):
    prog, args = perftest_args(test, size)
    return nb.fill(GUEST_SCRIPT, {"@DEV@": dev, "@PROG@": prog, "@ARGS@": " ".join(args),
                                  "@PORT@": str(port), "@MTU@": str(mtu),
                                  "@TMO@": str(PERFTEST_TIMEOUT), "@RXE@": "1" if rxe else "0",
                                  "@SERVER@": SERVER_NODE, "@CLIENT@": CLIENT_NODE})


# ---------------------------------------------------------------- the host side


def monitor_command(path, cmd, timeout=10.0):
    """One HMP command on a QEMU monitor socket; returns its output text."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        buf, end = b"", time.time() + timeout

        def until_prompt(n):
            nonlocal buf
            while buf.count(b"(qemu) ") < n:
                left = end - time.time()
                if left <= 0 or not select.select([s], [], [], left)[0]:
                    raise OSError("no monitor prompt")
                data = s.recv(65536)
                if not data:
                    raise OSError("monitor closed")
                buf += data
        until_prompt(1)
        s.sendall(cmd.encode() + b"\n")
        until_prompt(2)
    finally:
        s.close()
    text = buf.decode(errors="replace").split("(qemu) ")[1]
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
    return text.split(cmd, 1)[-1]


def snapshot(lab, st, nodes):
    """The model's counters of each node's HCA ({node: {name: value}}; None if unreadable)."""
    out = {}
    for node in nodes:
        path = os.path.join(st["run"], node["name"], "monitor.sock")
        try:
            text = monitor_command(path, f"qom-get {HCA_QOM_PATH} stats")
            out[node["name"]] = parse_stats(text) or None
            why = None if out[node["name"]] else f"unexpected answer {text.strip()[:80]!r}"
        except OSError as e:
            out[node["name"]], why = None, str(e)
        if why and why not in MONITOR_ERRORS:
            MONITOR_ERRORS.add(why)
            lab.say(f"bench: cannot read the model's counters of {node['name']} ({path}): {why}")
    return out


MONITOR_ERRORS = set()


HCA_QOM_PATH = "/machine/peripheral/hca1"


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

    def __init__(self, lab, args, st, own, results):
        self.lab, self.args, self.st, self.own, self.results = lab, args, st, own, results
        self.seq = 0
        self.broken = None  # why the (not owned) lab cannot run more rows

    def nodes(self):
        by = {n["name"]: n for n in self.st["nodes"]}
        return [by[SERVER_NODE], by[CLIENT_NODE]]

    def reboot(self, why):
        if not self.own:
            self.broken = f"{why}; the lab is not owned by this bench, so it was not rebooted"
            return
        self.lab.say(f"bench: {why}: rebooting the lab")
        self.lab.lab_down_state(self.st, quiet=True)
        self.args.results = self.results
        try:
            self.st = self.lab.lab_up(self.args, 2, "bench")
        except self.lab.LabError as e:
            self.broken = f"{why}; rebooting the lab failed: {e}"

    def attempt(self, test, size, dev, rxe, mtu):
        if self.broken:
            return {"status": "failed", "reason": self.broken}
        self.seq += 1
        port = BASE_PORT + self.seq % 1000
        job = f"bench-{self.seq:03d}-{test}-{size}-{dev}"
        script = os.path.join(self.st["run"], f"{job}.sh")
        with open(script, "w") as f:
            f.write(guest_script(dev, rxe, test, size, port, mtu))
        nodes = self.nodes()
        before = snapshot(self.lab, self.st, nodes)
        logs = self.st["results"]  # where QEMU writes the consoles (the lab's first run)
        cpos = {n["name"]: console_pos(logs, n["name"]) for n in nodes}
        t0 = time.time()
        try:
            res = self.lab.run_job(self.st, job, script, nodes, JOB_TIMEOUT, self.results)
        except self.lab.LabError as e:
            res = {n["name"]: {"status": "FAIL", "rc": -1, "detail": str(e)} for n in nodes}
        secs = round(time.time() - t0, 1)
        after = snapshot(self.lab, self.st, nodes)
        outs = {n["name"]: read_text(res[n["name"]].get("output")) for n in nodes}
        out = {"status": "ok", "seconds": secs, "job": job,
               "counters": {n: stats_delta(before[n], after[n]) for n in before},
               "device_counters": {n: device_counters(outs[n]) for n in outs},
               "host_load": [round(x, 2) for x in os.getloadavg()],
               "dmesg": {n: guest_dmesg(outs[n]) for n in outs if guest_dmesg(outs[n])},
               "info": bench_info(outs[CLIENT_NODE]) or bench_info(outs[SERVER_NODE])}
        crash = None
        for n in nodes:
            line = console_crash(logs, n["name"], cpos[n["name"]])
            if not self.lab.pid_is(n["pid"], n["start"]):
                crash = f"{n['name']} crashed (QEMU exited){': ' + line if line else ''}"
            elif line:
                crash = f"{n['name']} guest kernel: {line[:100]}"
            if crash:
                break
        wedged = [n["name"] for n in nodes if res[n["name"]]["status"] == "timeout"]
        try:
            parsed = parse_perftest(outs[CLIENT_NODE], TESTS[test][1])
        except ParseError as e:
            parsed = None
            why = failure_reason(outs[CLIENT_NODE], outs[SERVER_NODE])
            if why == "no output":
                why = res[CLIENT_NODE].get("detail") or str(e)
        if crash:
            out.update(status="crashed", reason=crash)
        elif parsed is None:
            out.update(status="failed", reason=why)
        elif res[CLIENT_NODE]["status"] != "pass":
            out.update(status="failed", reason=f"perftest exited {res[CLIENT_NODE]['rc']} "
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
        errs = {}
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


def cmd_bench_guests(args, lab, mod, flag, footnote):
    """`cxlab bench --ipoib` / `--nvmeof`: the rows of @mod (cxlab_netbench,
    cxlab_nvmebench) on the running lab or on one booted for the run."""
    st = lab.load_state()
    own = st is None
    if own:
        if (getattr(args, "sm", None) or "opensm") != "opensm":
            raise lab.LabError(f"{flag} needs the lab's opensm (IPoIB joins the broadcast "
                               "group the SM creates): leave --sm at its default")
        lab.say("bench: no lab running: booting 2 nodes for this run")
        st = lab.lab_up(args, 2, "bench")
        results = st["results"]
    else:
        if st.get("sm") != "opensm":
            raise lab.LabError("the running lab has no subnet manager, which IPoIB needs: "
                               f"cxlab down, then cxlab bench {flag}")
        results = lab.new_results_dir(args, "bench")
    try:
        doc = mod.run(args, lab, st, results, save_json)
    finally:
        if own:
            lab.lab_down_state(st, quiet=True)
    path = os.path.join(results, "bench.json")
    save_json(path, doc)
    headers, trows = mod.build_table(doc["rows"])
    print()
    print(lab.table(headers, trows))
    print(footnote(doc))
    print()
    lab.say(f"results in {results}; JSON in {path}")
    lab.write_json(args.json, doc)
    failed = sum(1 for r in doc["rows"] for p, _ in mod.PATHS
                 if r.get(p, {}).get("status") != "ok")
    lab.say(f"{len(doc['rows']) * len(mod.PATHS) - failed} runs gave a number, {failed} failed")
    return 1 if failed else 0


def cmd_bench_ipoib(args, lab):
    """`cxlab bench --ipoib`: IPoIB against virtio-net (scripts/lib/cxlab_netbench.py)."""
    return cmd_bench_guests(
        args, lab, nb, "--ipoib",
        lambda doc: f"tcp_bw: iperf3, one TCP stream node2 -> node1, {nb.IPERF_SECONDS} s; "
                    f"ping_rtt: {nb.PING_COUNT} pings, average.  Soft-RoCE: "
                    f"{doc['baseline_rxe']}")


def cmd_bench_nvmeof(args, lab):
    """`cxlab bench --nvmeof`: nvme-rdma on cxib against nvme-tcp on virtio-net and
    nvme-rdma on Soft-RoCE (scripts/lib/cxlab_nvmebench.py)."""
    import cxlab_nvmebench as nvb
    return cmd_bench_guests(
        args, lab, nvb, "--nvmeof",
        lambda doc: f"fio on node2, {nvb.FIO_SECONDS} s per row, node1's null_blk through "
                    f"each transport; target: {doc['target']}")


def cmd_bench(args, lab):
    """`cxlab bench`: see Documentation/bench.md."""
    if args.ipoib:
        return cmd_bench_ipoib(args, lab)
    if args.nvmeof:
        return cmd_bench_nvmeof(args, lab)
    try:
        tests = select_tests(args.tests)
        sizes = [parse_size(x) for x in args.sizes.split(",")] if args.sizes else None
    except ValueError as e:
        raise lab.LabError(str(e))
    if args.baseline_only and args.no_baseline:
        raise lab.LabError("--baseline-only and --no-baseline exclude each other")
    devices = []
    if not args.baseline_only:
        devices.append(("cxib", args.cxib_dev, "measured"))
    if not args.no_baseline:
        devices.append(("rxe", RXE_DEV, "baseline"))
    rows_todo = matrix(tests, sizes, args.quick)
    if not rows_todo:
        raise lab.LabError("no rows selected (--quick runs write_bw, write_lat, read_bw, "
                           "send_lat; check --tests)")
    st = lab.load_state()
    own = st is None
    if own:
        lab.say("bench: no lab running: booting 2 nodes for this run")
        st = lab.lab_up(args, 2, "bench")
        results = st["results"]
    else:
        names = {n["name"] for n in st["nodes"]}
        if not {SERVER_NODE, CLIENT_NODE} <= names:
            raise lab.LabError(f"the running lab has no {SERVER_NODE} and {CLIENT_NODE}: "
                               "cxlab down, then cxlab bench")
        results = lab.new_results_dir(args, "bench")
    config = {
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
    runner = Runner(lab, args, st, own, results)
    total = len(rows_todo) * len(devices)
    k = [0]

    def progress(msg):
        lab.say(f"bench: [{k[0]}/{total}] {msg}")

    rows = []
    try:
        for test, size in rows_todo:
            got = {}
            for name, dev, role in devices:
                k[0] += 1
                got[name] = run_device(runner, test, size, dev, role, args.mtu, progress)
                if name == "rxe" and got[name].get("info"):
                    config["baseline"].setdefault("measured", got[name]["info"])
            rows.append(make_row(test, size, got.get("cxib"), got.get("rxe")))
            save_json(os.path.join(results, "bench.json"),
                      bench_document(rows, config, results, partial=True))
    finally:
        if own:
            lab.lab_down_state(runner.st, quiet=True)
    doc = bench_document(rows, config, results)
    path = os.path.join(results, "bench.json")
    save_json(path, doc)
    headers, trows, notes = build_table(rows, [d[0] for d in devices])
    print()
    print(lab.table(headers, trows))
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
    lab.say(f"results in {results}; JSON in {path}")
    lab.write_json(args.json, doc)
    failed = sum(1 for r in rows for d in devices if r.get(d[0], {}).get("status") != "ok")
    lab.say(f"{len(rows) * len(devices) - failed} runs gave a number, {failed} failed")
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
