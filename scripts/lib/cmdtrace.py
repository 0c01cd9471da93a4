# SPDX-License-Identifier: GPL-2.0-only
"""Read and compare the model's command traces (cxib-pci's cmd-trace file).

A trace has one line per firmware command the model executed (firmware/core/cmdtrace.c):

    <seq> <usec> <NAME> op_mod=0x<m> status=0x<ss> syndrome=0x<8 hex> [field=value ...]

where a value is 0x.. (a mode, flag or type), ~0x.. (a size or count) or #0x.. (a
reference: object number, key, address), and "# mark <text>" lines that cxlab writes
between phases (tests/e2e/check.sh: cxlab_mark).

compare() sets a trace of cxib against one of the stock mlx5 driver on the same model and
lists their differences, each under a stable key (MAD_IFC, which carries the fabric's
MADs whenever they come, is left out of the phases):

  <phase>.only-<driver>: NAME/op_mod        a command one driver issues in that phase and
                                            the other does not (phases: bringup, teardown)
  <phase>.failed-<driver>: NAME/op_mod status=0x..
                                            a command that failed under one driver only
  <phase>.order: A < B under cxib, B < A under mlx5
                                            two of the PRM's ordered bring-up steps
  <OBJECT>.<field>: cxib {..} mlx5 {..}     the values one creation or transition command
                                            was given differ (plain fields: the values;
                                            references: zero or not; sizes are not
                                            compared); OBJECT is the command, for QPs and
                                            MKeys with the QP type / access mode

Documentation/silicon.md explains every expected difference in a table of its section
"Differences that remain", whose first cell is the key in backticks; check() fails on a difference the document does not list, and on
a listed one that did not occur (a stale explanation).
"""
import re
import sys

# Commands whose inputs are compared, and the field that splits each into kinds.
CREATES = {
    "CREATE_EQ": None, "CREATE_CQ": None, "CREATE_MKEY": ("access_mode_1_0",),
    "CREATE_QP": ("st",), "CREATE_SRQ": None, "CREATE_RMP": None, "CREATE_XRC_SRQ": None,
    "RST2INIT_QP": None, "INIT2RTR_QP": None, "RTR2RTS_QP": None, "RTS2RTS_QP": None,
    "SET_HCA_CAP": ("op_mod",), "SET_ISSI": None, "TEARDOWN_HCA": None,
}

# The bring-up steps whose order the PRM sets (section "HCA Driver Start-up"): a driver
# that issues them out of this order is refused by real firmware.
PRM_ORDER = ("ENABLE_HCA", "QUERY_ISSI", "SET_ISSI", "QUERY_PAGES", "MANAGE_PAGES",
             "QUERY_HCA_CAP", "SET_HCA_CAP", "INIT_HCA")

# Phases cut out of a trace by its marks (the mlx5 scenario writes them).
PHASES = {"bringup": ("bringup", "end"), "teardown": ("teardown", "bringup")}

# Not part of a phase's command set: MAD_IFC carries the subnet manager's and ib_core's
# MADs to the firmware's SMA, whenever the fabric asks (opensm sweeps when the other
# node's port goes down), not a step of the driver's bring-up or teardown.
PHASE_IGNORED = ("MAD_IFC",)

LINE = re.compile(r"(\d+) (\d+) (\S+) op_mod=(0x[0-9a-f]+) status=(0x[0-9a-f]+) "
                  r"syndrome=(0x[0-9a-f]+)(.*)$")


class TraceError(Exception):
    pass


def parse(text):
    """Records of a trace's text: dicts with seq, usec, name, op_mod, status, syndrome,
    fields ({name: (kind, value)}, kind "", "~" or "#"), or {"mark": text} for marks."""
    recs = []
    for n, ln in enumerate(text.splitlines(), 1):
        if not ln.strip():
            continue
        if ln.startswith("# mark "):
            recs.append({"mark": ln[len("# mark "):].strip()})
            continue
        m = LINE.match(ln)
        if not m:
            raise TraceError(f"line {n}: not a command-trace line: {ln[:80]!r}")
        fields = {}
        for kv in m.group(7).split():
            k, _, v = kv.partition("=")
            kind = v[0] if v[:1] in ("~", "#") else ""
            fields[k] = (kind, int(v[len(kind):], 16))
        recs.append({"seq": int(m.group(1)), "usec": int(m.group(2)), "name": m.group(3),
                     "op_mod": int(m.group(4), 16), "status": int(m.group(5), 16),
                     "syndrome": int(m.group(6), 16), "fields": fields})
    return recs


def read(path):
    with open(path, errors="replace") as f:
        return parse(f.read())


def phase(recs, name):
    """The commands between the last mark starting phase @name and the next mark ending
    it; TraceError if the trace has no such marks."""
    start, stop = PHASES[name]
    idx = [i for i, r in enumerate(recs) if r.get("mark") == start]
    if not idx:
        raise TraceError(f"no '# mark {start}' line: the trace has no {name} phase")
    out = []
    for r in recs[idx[-1] + 1:]:
        if r.get("mark") == stop:
            return out
        if "mark" not in r and r["name"] not in PHASE_IGNORED:
            out.append(r)
    raise TraceError(f"no '# mark {stop}' after '# mark {start}': the {name} phase "
                     "did not end")


def commands(recs):
    return [r for r in recs if "mark" not in r]


def cmd_key(r):
    return f"{r['name']}/{r['op_mod']:#x}"


def summary(recs):
    """{NAME/op_mod: [count, failed]} over the commands of @recs."""
    out = {}
    for r in commands(recs):
        c = out.setdefault(cmd_key(r), [0, 0])
        c[0] += 1
        c[1] += r["status"] != 0
    return out


def _fmt(vals):
    return "{" + ", ".join(vals) + "}"


def _values(kind, v):
    return ("set" if v else "0") if kind == "#" else f"{v:#x}"


def object_key(r):
    split = CREATES.get(r["name"])
    if not split:
        return r["name"]
    if split == ("op_mod",):
        return f"{r['name']}[op_mod={r['op_mod']:#x}]"
    parts = [f"{k}={r['fields'][k][1]:#x}" for k in split if k in r["fields"]]
    return f"{r['name']}[{','.join(parts)}]"


def field_sets(recs):
    """{object key: {field: set of rendered values}} for the compared commands (sizes left
    out), from successful commands only."""
    out = {}
    for r in commands(recs):
        if r["name"] not in CREATES or r["status"]:
            continue
        obj = out.setdefault(object_key(r), {})
        for k, (kind, v) in r["fields"].items():
            if kind != "~":
                obj.setdefault(k, set()).add(_values(kind, v))
    return out


def first_order(recs):
    """The PRM-ordered steps in the order of their first occurrence."""
    seen = []
    for r in commands(recs):
        if r["name"] in PRM_ORDER and r["name"] not in seen:
            seen.append(r["name"])
    return seen


def compare(a, b, na="cxib", nb="mlx5"):
    """Differences between traces @a and @b (record lists): sorted list of keys."""
    diffs = []
    for ph in PHASES:
        pa, pb = phase(a, ph), phase(b, ph)
        ka, kb = {cmd_key(r) for r in pa}, {cmd_key(r) for r in pb}
        diffs += [f"{ph}.only-{na}: {k}" for k in sorted(ka - kb)]
        diffs += [f"{ph}.only-{nb}: {k}" for k in sorted(kb - ka)]
        fa = {f"{cmd_key(r)} status={r['status']:#04x}" for r in pa if r["status"]}
        fb = {f"{cmd_key(r)} status={r['status']:#04x}" for r in pb if r["status"]}
        diffs += [f"{ph}.failed-{na}: {k}" for k in sorted(fa - fb)]
        diffs += [f"{ph}.failed-{nb}: {k}" for k in sorted(fb - fa)]
        if ph == "bringup":
            oa, ob = first_order(pa), first_order(pb)
            for i, x in enumerate(oa):
                for y in oa[i + 1:]:
                    if x in ob and y in ob and ob.index(y) < ob.index(x):
                        diffs.append(f"bringup.order: {x} < {y} under {na}, "
                                     f"{y} < {x} under {nb}")
    sa, sb = field_sets(commands(a)), field_sets(commands(b))
    for obj in sorted(set(sa) | set(sb)):
        if obj not in sa or obj not in sb:
            who = na if obj in sa else nb
            diffs.append(f"{obj}: only {who}")
            continue
        for f in sorted(set(sa[obj]) | set(sb[obj])):
            va, vb = sa[obj].get(f, set()), sb[obj].get(f, set())
            if va != vb:
                diffs.append(f"{obj}.{f}: {na} {_fmt(sorted(va))} {nb} {_fmt(sorted(vb))}")
    return diffs


DOC_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|")
DOC_SECTION = "## Differences that remain"
# "6.1: <key>": a difference seen only with that kernel's stock driver
DOC_KERNEL = re.compile(r"^(\d+\.\d+): (.+)$")


def kernel_series(release):
    """'6.1' of a kernel release such as 6.1.0-57-amd64; None if it has no such prefix."""
    m = re.match(r"(\d+\.\d+)", release or "")
    return m.group(1) if m else None


def known(doc_path, kernel=None):
    """The difference keys Documentation/silicon.md explains: the first cells of the table
    rows in its section DOC_SECTION (up to the next "## " heading).  A key written
    "<series>: <key>" counts only for that kernel series (@kernel, e.g. "6.1").
    TraceError if the document has no such section."""
    keys, inside, seen = [], False, False
    with open(doc_path) as f:
        for ln in f:
            if ln.startswith("## "):
                inside = ln.strip() == DOC_SECTION
                seen = seen or inside
                continue
            m = DOC_ROW.match(ln) if inside else None
            if not m:
                continue
            tagged = DOC_KERNEL.match(m.group(1))
            if not tagged:
                keys.append(m.group(1))
            elif tagged.group(1) == kernel:
                keys.append(tagged.group(2))
    if not seen:
        raise TraceError(f"{doc_path}: no '{DOC_SECTION}' section")
    return keys


def check(diffs, explained):
    """(unexplained, stale): differences the document does not list, and listed
    differences that did not occur."""
    d, e = set(diffs), set(explained)
    return sorted(d - e), sorted(e - d)


def main(argv=None):
    import argparse
    import json
    ap = argparse.ArgumentParser(prog="cmdtrace", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("summary", help="commands per opcode/op_mod of a trace")
    p.add_argument("trace")
    p = sub.add_parser("compare", help="cxib's trace against mlx5's")
    p.add_argument("cxib")
    p.add_argument("mlx5")
    p.add_argument("--known", metavar="DOC",
                   help="fail on differences this document (Documentation/silicon.md) "
                        "does not explain, and on explanations of differences that are gone")
    p.add_argument("--kernel", metavar="SERIES",
                   help="the guest kernel series (6.1, 6.12): rows of the document tagged "
                        "with another series do not count")
    p.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "summary":
            s = summary(read(args.trace))
            print(f"{'command':40} {'count':>7} {'failed':>7}")
            for k in sorted(s):
                print(f"{k:40} {s[k][0]:7} {s[k][1]:7}")
            return 0
        diffs = compare(read(args.cxib), read(args.mlx5))
    except (OSError, TraceError) as e:
        print(f"cmdtrace: error: {e}", file=sys.stderr)
        return 2
    rc = 0
    unexplained, stale = [], []
    if args.known:
        try:
            explained = known(args.known, kernel_series(args.kernel))
        except (OSError, TraceError) as e:
            print(f"cmdtrace: error: {e}", file=sys.stderr)
            return 2
        unexplained, stale = check(diffs, explained)
        rc = 1 if unexplained or stale else 0
    for d in diffs:
        print(("NEW   " if d in unexplained else "known ") + d if args.known else d)
    for d in stale:
        print(f"GONE  {d}  (listed in {args.known}, not seen: drop or update its row)")
    print(f"cmdtrace: {len(diffs)} differences, {len(unexplained)} unexplained, "
          f"{len(stale)} stale")
    if unexplained:
        print(f"cmdtrace: explain each NEW difference in {args.known} (why cxib's choice is "
              "valid on silicon) or fix cxib", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"differences": diffs, "unexplained": unexplained, "stale": stale}, f,
                      indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main())
