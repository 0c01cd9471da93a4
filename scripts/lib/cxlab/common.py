# SPDX-License-Identifier: GPL-2.0-only
"""What every part of cxlab uses: the tree's paths, progress lines, the user's error,
tables and JSON."""

import json
import os
from pathlib import Path
from typing import Any, Sequence

TOP = str(Path(__file__).resolve().parents[3])
CACHE = os.environ.get("CXIB_CACHE", os.path.expanduser("~/.cache/cxib"))
LABDIR = os.environ.get("CXLAB_DIR", os.path.join(CACHE, "lab"))
PROG = "cxlab"


def say(msg: str) -> None:
    print(f"{PROG}: {msg}", flush=True)


class LabError(Exception):
    """An error the user can act on: the message says what to do next."""


def table(headers: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """@rows under @headers, columns padded to their widest cell."""
    w = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
         for i, h in enumerate(headers)]
    line = "  ".join(str(h).ljust(w[i]) for i, h in enumerate(headers))
    out = [line, "  ".join("-" * x for x in w)]
    for r in rows:
        out.append("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))
    return "\n".join(out)


def write_json(path: str | None, data: Any) -> None:
    """--json FILE: @data as JSON into @path (nothing without one)."""
    if path:
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
        say(f"JSON written to {path}")


def save_json(path: str, doc: Any) -> None:
    """@doc into @path atomically (a reader never sees half a document); no NaN."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2, allow_nan=False)
    os.replace(tmp, path)
