"""Running one process and reading what it cost: wall time, its own timing, and peak memory.

Peak memory is the child's maximum resident set size as the kernel accounts it (``wait4``'s
``ru_maxrss``), which counts everything the process touched — unlike tracemalloc, which sees
only Python allocations and misses orjson's and the interpreter's own.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.child import NOT_BUILT


@dataclass
class Run:
    wall: float
    #: the child's own timing of the operation (None for plain commands such as find)
    inner: float | None
    max_rss_kb: int
    returncode: int
    stdout: str
    stderr: str

    @property
    def seconds(self) -> float:
        return self.inner if self.inner is not None else self.wall


class ComponentMissing(Exception):
    """The measured component has not landed: the figure is n/a, never faked."""


class RunFailed(Exception):
    """The measured command failed: the table shows why instead of a number."""


def run_process(argv: list[str], *, cwd: Path, env: dict[str, str]) -> Run:
    """Run ``argv`` to completion; its peak RSS comes from wait4 on exactly this child."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    inner = None
    if stdout.strip().startswith("{"):
        try:
            inner = json.loads(stdout.strip().splitlines()[-1]).get("seconds")
        except (json.JSONDecodeError, AttributeError):
            inner = None
    run = Run(wall, inner, usage.ru_maxrss, proc.returncode, stdout, stderr)
    if proc.returncode == NOT_BUILT or "is not built yet" in stderr:
        raise ComponentMissing(_last_line(stdout if proc.returncode == NOT_BUILT else stderr))
    if proc.returncode != 0:
        raise RunFailed(f"exit {proc.returncode}: {_last_line(stderr) or _last_line(stdout)}")
    return run


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


@dataclass
class Series:
    """Repeated runs of one command; medians resist the odd slow run on a shared machine."""

    label: str
    runs: list[Run] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(run.seconds for run in self.runs)

    @property
    def peak_rss_kb(self) -> int:
        return max(run.max_rss_kb for run in self.runs)

    def to_json(self) -> dict:
        return {"label": self.label, "seconds": [round(run.seconds, 6) for run in self.runs],
                "median_seconds": round(self.median, 6) if self.runs else None,
                "max_rss_kb": [run.max_rss_kb for run in self.runs]}
