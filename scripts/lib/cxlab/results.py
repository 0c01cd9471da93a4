# SPDX-License-Identifier: GPL-2.0-only
"""A node's verdict on a job: Status and JobResult, and how they appear in cxlab's tables
("pass", "FAIL", "timeout", "skip") and JSON."""

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
    last non-empty line (cut to 60), @detail why it failed when the output does not say."""
    status: Status
    rc: int
    seconds: float = 0.0
    detail: str | None = None
    output: str | None = None
    last_line: str | None = None

    def summary(self) -> str:
        """The table's "last line" column."""
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
        return d


def job_status(rc: int) -> str:
    """A node's verdict on a job from its exit status, as the table shows it."""
    return Status.of_rc(rc).value


def summary_line(rows: Sequence[Sequence[Any]]) -> str:
    """'N passed, N failed, N skipped' over the table's rows (status in column 2)."""
    passed = sum(1 for r in rows if r[2] == Status.PASS.value)
    skipped = sum(1 for r in rows if r[2] == Status.SKIP.value)
    return f"{passed} passed, {len(rows) - passed - skipped} failed, {skipped} skipped"
