# SPDX-License-Identifier: GPL-2.0-only
"""A node's verdict on a job: Status and JobResult, and how they appear in cxlab's tables
("pass", "FAIL", "timeout", "skip") and JSON."""

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, Sequence

# A scenario that has nothing to run where it runs (e.g. mlx5 driver data on Soft-RoCE) exits
# with this status (automake's "skipped"): reported and counted as skipped, never as passed.
SKIP_RC = 77


class Status(Enum):
    """A job's outcome on one node; the value is what tables and JSON show."""
    PASS = "pass"
    FAIL = "FAIL"
    TIMEOUT = "timeout"
    SKIP = "skip"

    @classmethod
    def of_rc(cls, rc: int) -> "Status":
        """A node's verdict on a job from its exit status."""
        if rc == 0:
            return cls.PASS
        if rc == SKIP_RC:
            return cls.SKIP
        return cls.TIMEOUT if rc in (124, 137) else cls.FAIL

    @property
    def failed(self) -> bool:
        """Counted as failed: neither passed nor skipped."""
        return self not in (Status.PASS, Status.SKIP)


@dataclass
class JobResult:
    """What one node (or the host's check) made of a job: @rc its exit status (-1 if it has
    none), @output the job's output.log copied into the results directory, @last_line its
    last non-empty line (cut to 60), @first_fail the first failed check it printed
    (first_failure()), @detail why it failed when the output does not say."""
    status: Status
    rc: int
    seconds: float = 0.0
    detail: str | None = None
    output: str | None = None
    last_line: str | None = None
    first_fail: str | None = None

    def summary(self) -> str:
        """The table's last column: why a failed job failed (its first failed check, so that
        the table alone, e.g. the tail of a CI log, names it), else the last line."""
        if self.status.failed and self.first_fail:
            return self.first_fail
        return self.detail or self.last_line or ""

    def to_json(self) -> dict[str, Any]:
        """The JSON record: rc, seconds, status, detail and last_line when known, output."""
        d: dict[str, Any] = {"rc": self.rc, "seconds": self.seconds,
                             "status": self.status.value}
        if self.detail is not None:
            d["detail"] = self.detail
        d["output"] = self.output
        if self.last_line is not None:
            d["last_line"] = self.last_line
        if self.first_fail is not None:
            d["first_fail"] = self.first_fail
        return d


# check()'s line for a failed check (tests/e2e/check.sh); a scenario that runs others
# (mlx5.sh) repeats theirs indented below its own.
FAIL_LINE = re.compile(r"^(\s*)FAIL\s+(.*\S)")


def first_failure(lines: Sequence[str], width: int = 100) -> str | None:
    """The first failed check among a job's output @lines, "FAIL what", followed by the first
    failed check nested under it ("FAIL what > FAIL inner"), cut to @width; None if no
    check failed."""
    top = inner = None
    for ln in lines:
        m = FAIL_LINE.match(ln)
        if not m:
            continue
        if not m.group(1) and top is None:
            top = f"FAIL {m.group(2)}"
        elif m.group(1) and inner is None:
            inner = f"FAIL {m.group(2)}"
    if top is None and inner is None:
        return None
    text = " > ".join(x for x in (top, inner) if x)
    return text if len(text) <= width else text[:width - 3] + "..."


def job_status(rc: int) -> str:
    """A node's verdict on a job from its exit status, as the table shows it."""
    return Status.of_rc(rc).value


def summary_line(rows: Sequence[Sequence[Any]]) -> str:
    """'N passed, N failed, N skipped' over the table's rows (status in column 2)."""
    passed = sum(1 for r in rows if r[2] == Status.PASS.value)
    skipped = sum(1 for r in rows if r[2] == Status.SKIP.value)
    return f"{passed} passed, {len(rows) - passed - skipped} failed, {skipped} skipped"
