"""``make bench``: every figure is a ratio against a reference measured in the same run.

Absolute times on a shared 2-core machine mean little; a ratio against something every machine
has (orjson parsing the same file, ``find`` walking the same tree, the interpreter starting)
travels. Each measurement runs in its own process, reference and subject alternate so that a
burst of load hits both, and the median of the repeats is used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench import generate
from bench.engine import COMPACTIONS
from bench.find_patterns import find_argv
from bench.measure import ComponentMissing, Run, RunFailed, Series, run_process

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
RESULTS = ROOT / "bench" / "results.json"
DOCS = ROOT / "docs" / "bench.md"

SESSION_SIZES = [("1 MB", 1_000_000), ("10 MB", 10_000_000), ("50 MB", 50_000_000)]
WORKSPACE_SIZES = [("10k files", 10_000), ("100k files", 100_000)]
#: a day of a busy agent's session: what a heartbeat every 30 minutes really checks
HEARTBEAT_SESSION_BYTES = 200_000
SEED = 20261129
#: once the subject's measured runs took this long, no more repeats of that comparison
SUBJECT_BUDGET_SECONDS = 45.0
NOT_BUILT = "n/a (not built)"
HEARTBEAT_CHANGED = "apollo heartbeat, session grew"
HEARTBEAT_UNCHANGED = "apollo heartbeat, session unchanged"
#: the heartbeat after growth on a long session: it classifies only what was appended, but still reads
#: the whole session (no goal: how the heartbeat scales with the session, next to the 200 kB goal)
HEARTBEAT_LARGE = "apollo heartbeat, long session grew"
HEARTBEAT_LARGE_BYTES = 10_000_000
BUDGET = "renal filter --keep-ratio 0.5"
#: the filter on a session whose one message is a long run (generate.RUNS), at two lengths
RUNS = "renal filter, one long run"
RUN_CHARS = (25_000, 100_000)
#: what the interpreter alone needs to load the standard modules each heartbeat cannot do without:
#: JSON, paths, time, hashing (the memo's fingerprint), file locks; after growth also the resume
#: state's pickle and the classifier's re, bisect, unicodedata and PyStemmer (orjson no longer: it
#: reads the appended lines with apollo.jsonline). No goal: the floor the goals sit on.
IMPORT_FLOORS = {
    "heartbeat_unchanged_import_floor": ("stdlib floor, session unchanged",
                                         "import json, pathlib, datetime, hashlib, fcntl"),
    "heartbeat_import_floor": ("stdlib floor, session grew",
                               "import json, pathlib, datetime, hashlib, fcntl, pickle, re, bisect, unicodedata, Stemmer"),
}

#: ratio name -> (goal, what is measured)
GOALS: dict[str, tuple[float, str]] = {
    "renal_check_vs_parse": (3.0, "renal check time / orjson parse time, worst size"),
    "check_memory_growth": (2.0, "renal check peak RSS at 50 MB / at 1 MB"),
    "renal_filter_vs_parse": (6.0, "renal filter time / orjson parse time, worst size"),
    "renal_filter_exponent": (1.1, "exponent b of filter time ~ size^b, fitted over the three sizes"),
    "renal_filter_run_exponent": (1.2, "exponent b of filter time ~ length^b on a session whose one message is a "
                                       "long run (generate.RUNS), the worst shape, fitted over 25k and 100k characters"),
    "budget_vs_default_filter": (4.0, "renal filter --keep-ratio 0.5 time / default filter time, a session with "
                                      "one 30 MB tool-output line without a space"),
    "autophagy_status_vs_find": (2.0, "autophagy status time / find with the same patterns, worst size"),
    "heartbeat_vs_python_start": (4.0, "`apollo heartbeat` process after the session grew / `python -c pass` process"),
    "heartbeat_unchanged_vs_python_start": (4.0, "`apollo heartbeat` process, session unchanged since the last one "
                                                 "(the check's memo) / `python -c pass` process"),
    # the context engine's goals are absolute (bench/engine.py says why)
    "engine_assemble_p50_ms": (20.0, "assemble on a 5,000-message session in the warm `apollo engine serve`, p50 (ms)"),
    "engine_assemble_p99_ms": (100.0, "the same, p99 (ms)"),
    "engine_commit_per_message_ms": (2.0, "commitTurn, per message of the turn (ms)"),
    "engine_peak_rss_mb": (150.0, "peak memory of the engine process at 5,000 messages (MB)"),
}


@dataclass
class Comparison:
    """A subject measured against its reference on one input."""

    measure: str
    input: str
    reference: Series
    subject: Series
    #: None while it works; "n/a (not built)" or "error: ..." once it cannot be measured
    problem: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.problem or not self.subject.runs or not self.reference.runs:
            return None
        return self.subject.median / self.reference.median

    def to_json(self) -> dict:
        return {"measure": self.measure, "input": self.input, "problem": self.problem,
                "ratio": None if self.ratio is None else round(self.ratio, 3),
                "reference": self.reference.to_json(), "subject": self.subject.to_json(), **self.extra}


class Bench:
    def __init__(self, repeat: int | None, only: set[str], console: Console):
        self.repeat = repeat
        self.only = only
        self.console = console
        self.python = sys.executable
        # the generator's clock, and no user configuration: every machine measures the same work;
        # bytecode as an installed package has it (the warm-up run compiles it once), even where
        # the shell sets PYTHONDONTWRITEBYTECODE
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env = {**inherited, "APOLLO_NOW": generate.BENCH_NOW.isoformat(),
                    "APOLLO_CONFIG": str(OUT / "no-user-config.toml"),
                    # a cache folder of the bench's own: another checkout's processes sharing the user's
                    # would evict the layered rules and make a heartbeat build them again
                    "APOLLO_CACHE_DIR": str(OUT / "cache")}
        self.scratch = OUT / "run"
        self.comparisons: list[Comparison] = []
        self.engine: dict[str, float] = {}

    # -- running -------------------------------------------------------------------------------

    def _child(self, *args: str) -> list[str]:
        return [self.python, "-m", "bench.child", *args]

    def _pair(self, comparison: Comparison, reference: list[str], subject: list[str], times: int,
              progress: Progress, task, env: dict[str, str] | None = None, *, warm_subject: bool = True,
              before_subject: Callable[[], None] | None = None) -> None:
        """Warm up (page cache, bytecode), then alternate reference and subject ``times`` times,
        or fewer once the subject has used its time budget (a 50 MB filter is not run ten times).
        ``before_subject`` prepares each subject run, untimed (the heartbeat's grown session)."""
        env = env or self.env
        prepare = before_subject or (lambda: None)
        run_process(reference, cwd=ROOT, env=env)
        if warm_subject:
            prepare()
            self._subject_run(comparison, subject, env, record=False)
        spent = 0.0
        for _ in range(times):
            if comparison.problem is not None or (comparison.subject.runs and spent > SUBJECT_BUDGET_SECONDS):
                break
            comparison.reference.runs.append(run_process(reference, cwd=ROOT, env=env))
            prepare()
            run = self._subject_run(comparison, subject, env, record=True)
            spent += run.wall if run else 0.0
            progress.advance(task)
        progress.advance(task, times - len(comparison.reference.runs) + 1)

    @staticmethod
    def _subject_run(comparison: Comparison, subject: list[str], env: dict[str, str], *, record: bool) -> Run | None:
        try:
            run = run_process(subject, cwd=ROOT, env=env)
        except ComponentMissing:
            comparison.problem = NOT_BUILT
            return None
        except RunFailed as failure:
            comparison.problem = f"error: {failure}"
            return None
        if record:
            comparison.subject.runs.append(run)
        return run

    def _times(self, default: int) -> int:
        return self.repeat or default

    def _renal_workspace(self) -> Path:
        """The workspace the renal children run in (the check's and the filter's configuration)."""
        workspace = self.scratch / "renal-workspace"
        workspace.mkdir(parents=True, exist_ok=True)
        return workspace

    # -- the measurements ------------------------------------------------------------------------

    def sessions(self, progress: Progress) -> None:
        wanted = [name for name in ("check", "filter") if name in self.only]
        if not wanted:
            return
        task = progress.add_task("renal on sessions", total=sum(
            (self._times(3) + 1) * len(wanted) for _ in SESSION_SIZES))
        workspace = self._renal_workspace()
        state = self.scratch / "renal-state"
        state.mkdir(parents=True, exist_ok=True)
        sessions = []
        for label, size in SESSION_SIZES:
            progress.update(task, description=f"generating a {label} session")
            sessions.append((label, generate.cached(OUT, f"session-{size}", generate.write_session, size, SEED + size,
                                                           suffix=".jsonl")))
        for measure in wanted:
            for index, (label, session) in enumerate(sessions):
                progress.update(task, description=f"renal {measure}, {label} session")
                parse = self._child("parse", str(session))
                if measure == "check":
                    subject = self._child("check", str(session), str(workspace), str(state))
                else:
                    subject = self._child("filter", str(session), str(workspace),
                                          str(self.scratch / f"filtered-{session.name}"))
                comparison = Comparison(f"renal {measure}", label, Series("orjson parse"), Series(f"renal {measure}"),
                                        extra={"bytes": session.stat().st_size})
                self._pair(comparison, parse, subject, self._times(3), progress, task, warm_subject=index == 0)
                self.comparisons.append(comparison)

    def budget(self, progress: Progress) -> None:
        """A budget on a session with a 30 MB unbroken line, against the default filter on it: the
        budget counts with the exact counter when installed, whose BPE is quadratic on such a line."""
        if "budget" not in self.only:
            return
        task = progress.add_task("renal filter under a budget", total=self._times(3) + 1)
        workspace = self._renal_workspace()
        progress.update(task, description="generating a session with a 30 MB line")
        session = generate.cached(OUT, "long-line-30000000", generate.write_long_line_session, 30_000_000, SEED,
                                  suffix=".jsonl")
        progress.update(task, description="renal filter --keep-ratio 0.5, 30 MB line")
        reference = self._child("filter", str(session), str(workspace), str(self.scratch / "long-line-default.jsonl"))
        subject = self._child("filter-budget", str(session), str(workspace),
                              str(self.scratch / "long-line-budget.jsonl"), "0.5")
        comparison = Comparison(BUDGET, "30 MB line", Series("renal filter"), Series(BUDGET),
                                extra={"bytes": session.stat().st_size})
        self._pair(comparison, reference, subject, self._times(3), progress, task)
        self.comparisons.append(comparison)

    def runs(self, progress: Progress) -> None:
        """The filter on a message made of one long run of each shape, at two lengths: a regular
        expression that reads the run again from each of its characters shows as an exponent near 2."""
        if "runs" not in self.only:
            return
        task = progress.add_task("renal filter on long runs", total=len(generate.RUNS) * len(RUN_CHARS) * (self._times(3) + 1))
        workspace = self._renal_workspace()
        for kind, shape in generate.RUNS.items():
            for chars in RUN_CHARS:
                progress.update(task, description=f"renal filter, {kind}, {chars:,} characters")
                # named by the shape itself: an edited shape is a new input, never a stale cached one
                name = f"run-{hashlib.sha256(repr(shape).encode()).hexdigest()[:12]}-{chars}"
                session = generate.cached(OUT, name, generate.write_run_session, kind, chars, SEED, suffix=".jsonl")
                comparison = Comparison(RUNS, f"{kind}, {chars // 1000}k", Series("orjson parse"), Series(RUNS),
                                        extra={"kind": kind, "chars": chars})
                self._pair(comparison, self._child("parse", str(session)),
                           self._child("filter", str(session), str(workspace), str(self.scratch / f"run-{session.name}")),
                           self._times(3), progress, task)
                self.comparisons.append(comparison)

    def workspaces(self, progress: Progress) -> None:
        if "status" not in self.only:
            return
        task = progress.add_task("autophagy status", total=sum(self._times(3) + 1 for _ in WORKSPACE_SIZES))
        state = self.scratch / "autophagy-state"
        state.mkdir(parents=True, exist_ok=True)
        for label, files in WORKSPACE_SIZES:
            progress.update(task, description=f"autophagy status, {label} (generating)")
            workspace = generate.cached(OUT, f"workspace-{files}", generate.write_workspace, files, SEED + files)
            progress.update(task, description=f"autophagy status, {label}")
            comparison = Comparison("autophagy status", label, Series("find, same patterns"),
                                    Series("autophagy status"), extra={"files": files})
            self._pair(comparison, find_argv(workspace), self._child("status", str(workspace), str(state)),
                       self._times(3), progress, task)
            self.comparisons.append(comparison)

    def heartbeat(self, progress: Progress) -> None:
        """Two heartbeats: after the agent wrote to its session (a full check: every run appends
        a message first, untimed), and with the session as the last heartbeat left it (the check's
        memo answers; the first, unrecorded run leaves that state)."""
        if "heartbeat" not in self.only:
            return
        times = self._times(10)
        task = progress.add_task("apollo heartbeat", total=(3 + len(IMPORT_FLOORS)) * (times + 1))
        cached_workspace, cached_state = generate.heartbeat_state(OUT, HEARTBEAT_SESSION_BYTES, SEED)
        # the heartbeat writes its state: give it a fresh copy so every run of the bench starts alike
        home = self.scratch / "heartbeat"
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(cached_workspace.parent, home, symlinks=True)
        env = {**self.env, "OPENCLAW_WORKSPACE_DIR": str(home / "workspace"), "OPENCLAW_STATE_DIR": str(home / "state")}
        apollo = str(Path(self.python).parent / "apollo")
        session = next((home / "state" / "agents" / "main" / "sessions").glob("*.jsonl"))
        for measure, grow in ((HEARTBEAT_CHANGED, lambda: _append_message(session)), (HEARTBEAT_UNCHANGED, None)):
            progress.update(task, description=measure)
            comparison = Comparison(measure, f"{HEARTBEAT_SESSION_BYTES // 1000} kB",
                                    Series("python -c pass"), Series(measure), extra={"bytes": HEARTBEAT_SESSION_BYTES})
            self._pair(comparison, [self.python, "-c", "pass"], [apollo, "heartbeat"], times, progress, task, env,
                       before_subject=grow)
            self.comparisons.append(comparison)
        self._heartbeat_large(progress, task, times)
        for label, imports in IMPORT_FLOORS.values():
            progress.update(task, description=label)
            comparison = Comparison(label, "—", Series("python -c pass"), Series(label))
            self._pair(comparison, [self.python, "-c", "pass"], [self.python, "-c", imports], times, progress, task)
            self.comparisons.append(comparison)

    def _heartbeat_large(self, progress: Progress, task, times: int) -> None:
        progress.update(task, description=HEARTBEAT_LARGE)
        cached_workspace, _ = generate.heartbeat_state(OUT, HEARTBEAT_LARGE_BYTES, SEED)
        home = self.scratch / "heartbeat-large"
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(cached_workspace.parent, home, symlinks=True)
        env = {**self.env, "OPENCLAW_WORKSPACE_DIR": str(home / "workspace"), "OPENCLAW_STATE_DIR": str(home / "state")}
        session = next((home / "state" / "agents" / "main" / "sessions").glob("*.jsonl"))
        comparison = Comparison(HEARTBEAT_LARGE, f"{HEARTBEAT_LARGE_BYTES // 1_000_000} MB", Series("python -c pass"),
                                Series(HEARTBEAT_LARGE), extra={"bytes": HEARTBEAT_LARGE_BYTES})
        self._pair(comparison, [self.python, "-c", "pass"], [str(Path(self.python).parent / "apollo"), "heartbeat"],
                   times, progress, task, env, before_subject=lambda: _append_message(session))
        self.comparisons.append(comparison)

    def context_engine(self, progress: Progress) -> None:
        """The context engine's warm process (bench/engine.py): absolute figures, no reference."""
        if "engine" not in self.only:
            return
        from bench import engine

        task = progress.add_task("apollo engine serve, 5,000 messages", total=1)
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.engine = engine.measure(str(Path(self.python).parent / "apollo"), self.scratch, self.env, SEED)
        progress.update(task, advance=1)

    # -- results ---------------------------------------------------------------------------------

    def _of(self, measure: str) -> list[Comparison]:
        return [c for c in self.comparisons if c.measure == measure]

    def ratios(self) -> dict[str, float | str]:
        """The headline figures; a missing component gives its reason, never a number."""

        def worst(measure: str) -> float | str:
            found = self._of(measure)
            problems = [c.problem for c in found if c.problem]
            if not found:
                return "not run"
            if problems:
                return problems[0]
            return round(max(c.ratio for c in found if c.ratio is not None), 3)

        filters = self._of("renal filter")
        checks = self._of("renal check")
        exponent: float | str = worst("renal filter")
        if isinstance(exponent, float):
            exponent = round(_fitted_exponent([(c.extra["bytes"], c.subject.median) for c in filters]), 3)
        runs: float | str = worst(RUNS)
        if isinstance(runs, float):
            runs = round(max(_fitted_exponent([(c.extra["chars"], c.subject.median) for c in self._of(RUNS)
                                               if c.extra["kind"] == kind]) for kind in generate.RUNS), 3)
        growth: float | str = worst("renal check")
        if isinstance(growth, float):
            growth = round(checks[-1].subject.peak_rss_kb / checks[0].subject.peak_rss_kb, 3)
        floors = {name: worst(label) for name, (label, _) in IMPORT_FLOORS.items() if self._of(label)}
        if self._of(HEARTBEAT_LARGE):
            floors["heartbeat_long_session_vs_python_start"] = worst(HEARTBEAT_LARGE)
        if self._of(RUNS):
            floors["renal_filter_run_vs_parse"] = worst(RUNS)
        engine: dict[str, float | str] = {name: self.engine.get(name, "not run") for name in GOALS
                                          if name.startswith("engine_")}
        figures = {name: value for name, value in self.engine.items() if name not in GOALS}  # no goal: shown as figures
        return {**self._goal_ratios(worst, growth, exponent, runs), **floors, **engine, **figures}

    def _goal_ratios(self, worst: Callable[[str], float | str], growth: float | str,
                     exponent: float | str, runs: float | str) -> dict[str, float | str]:
        return {"renal_check_vs_parse": worst("renal check"), "check_memory_growth": growth,
                "renal_filter_vs_parse": worst("renal filter"), "renal_filter_exponent": exponent,
                "renal_filter_run_exponent": runs,
                "budget_vs_default_filter": worst(BUDGET),
                "autophagy_status_vs_find": worst("autophagy status"),
                "heartbeat_vs_python_start": worst(HEARTBEAT_CHANGED),
                "heartbeat_unchanged_vs_python_start": worst(HEARTBEAT_UNCHANGED)}

    def results(self) -> dict:
        ratios = self.ratios()
        verdicts = {name: _verdict(value, GOALS[name][0]) if name in GOALS else "floor" if name in IMPORT_FLOORS
                    else "figure" for name, value in ratios.items()}
        return {
            "ratios": ratios,
            "goals": {name: {"at_most": goal, "what": what} for name, (goal, what) in GOALS.items()},
            "verdicts": verdicts,
            "measurements": [c.to_json() for c in self.comparisons],
            "environment": {"when": datetime.now(UTC).isoformat(timespec="seconds"), "python": platform.python_version(),
                            "machine": platform.machine(), "cpus": os.cpu_count(), "system": platform.platform(),
                            "generator_version": generate.GENERATOR_VERSION, "seed": SEED},
        }


def _append_message(session: Path) -> None:
    """What an agent does between two heartbeats: one more message on the session's active path."""
    last = json.loads(session.read_bytes().splitlines()[-1])
    entry = {"type": "message", "id": os.urandom(4).hex(), "parentId": last["id"], "timestamp": last["timestamp"],
             "message": {"role": "user", "content": [{"type": "text", "text": "Any news on the deploy?"}]}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _fitted_exponent(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(time) against log(size): 1.0 is linear."""
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(seconds) for _, seconds in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum((x - mean_x) ** 2 for x in xs)


def _verdict(value: float | str, goal: float) -> str:
    if isinstance(value, str):
        return value
    return "met" if value <= goal else "missed"


def _seconds(series: Series) -> str:
    if not series.runs:
        return "—"
    median = series.median
    return f"{median * 1000:.1f} ms" if median < 1 else f"{median:.2f} s"


_REFERENCE_OF = {"renal check": "orjson parse", "renal filter": "orjson parse", "autophagy status": "find",
                 BUDGET: "renal filter", RUNS: "orjson parse",
                 HEARTBEAT_CHANGED: "python -c pass", HEARTBEAT_UNCHANGED: "python -c pass", HEARTBEAT_LARGE: "python -c pass",
                 **{label: "python -c pass" for label, _ in IMPORT_FLOORS.values()}}
_RATIO_OF = {"renal check": "renal_check_vs_parse", "renal filter": "renal_filter_vs_parse",
             "autophagy status": "autophagy_status_vs_find", BUDGET: "budget_vs_default_filter",
             RUNS: "renal_filter_run_vs_parse", HEARTBEAT_CHANGED: "heartbeat_vs_python_start",
             HEARTBEAT_UNCHANGED: "heartbeat_unchanged_vs_python_start", HEARTBEAT_LARGE: "heartbeat_long_session_vs_python_start",
             **{label: name for name, (label, _) in IMPORT_FLOORS.items()}}


def _rows(bench: Bench, results: dict) -> list[list[str]]:
    """One row per input, then the derived figures (exponent, memory growth)."""
    rows = []
    for c in bench.comparisons:
        goal = GOALS[_RATIO_OF[c.measure]][0] if _RATIO_OF[c.measure] in GOALS else None
        if c.ratio is None:
            ratio, verdict = "—", c.problem or ""
        else:
            ratio = f"{c.ratio:.2f}x"
            verdict = results["verdicts"].get(_RATIO_OF[c.measure], "floor") if goal is None else (
                "met" if c.ratio <= goal else "MISSED")
        memory = f"{c.subject.peak_rss_kb / 1024:.0f} MB" if c.subject.runs and c.measure == "renal check" else ""
        rows.append([f"{c.measure} ÷ {_REFERENCE_OF[c.measure]}", c.input, _seconds(c.reference),
                     _seconds(c.subject), ratio, "—" if goal is None else f"≤ {goal:g}x", verdict, memory])
    ratios, verdicts = results["ratios"], results["verdicts"]
    for name, label, measure, sizes in (
            ("renal_filter_exponent", "renal filter cost exponent", "renal filter", "1 / 10 / 50 MB"),
            ("renal_filter_run_exponent", "renal filter cost exponent, one long run", RUNS, "25k / 100k characters"),
            ("check_memory_growth", "renal check peak RSS 50 MB ÷ 1 MB", "renal check", "1 / 10 / 50 MB")):
        if not bench._of(measure):
            continue
        value = ratios[name]
        shown = f"{value:.2f}" if isinstance(value, float) else "—"
        verdict = {"met": "met", "missed": "MISSED"}.get(verdicts[name], verdicts[name])
        unit = "" if name.endswith("exponent") else "x"
        rows.append([label, sizes, "", "", shown + unit if shown != "—" else shown,
                     f"≤ {GOALS[name][0]:g}{unit}", verdict, ""])
    for name, value in bench.engine.items():
        if name in GOALS:
            verdict = {"met": "met", "missed": "MISSED"}.get(verdicts[name], verdicts[name])
            rows.append([GOALS[name][1], "5,000 messages", "", f"{value:g}", "", f"≤ {GOALS[name][0]:g}", verdict, ""])
    for n, share in enumerate(COMPACTIONS if bench.engine else ()):
        figures = {key: bench.engine[f"engine_compaction_{n}_{key}"] for key in ("ms", "next_ms", "cut", "evicted")}
        rows.append([f"a compaction point at {share:g}x the kept tokens: the crossing assemble (ms; "
                     f"{figures['cut']:g} outputs and calls cut, {figures['evicted']:g} messages evicted), then the next",
                     "5,000 messages", "", f"{figures['ms']:g} / {figures['next_ms']:g}", "", "—", "figure", ""])
    return rows


HEADERS = ["measure", "input", "reference", "apollo", "ratio", "goal", "result", "peak RSS"]


def print_table(console: Console, rows: list[list[str]]) -> None:
    table = Table(title="Apollo benchmarks: ratios against references measured in the same run")
    for header in HEADERS:
        table.add_column(header, justify="right" if header in ("reference", "apollo", "ratio", "goal", "peak RSS")
                         else "left", no_wrap=header != "measure")
    styles = {"met": "green", "MISSED": "bold red"}
    for row in rows:
        table.add_row(*row[:6], f"[{styles.get(row[6], 'yellow')}]{row[6]}[/]", row[7])
    console.print(table)


def markdown_table(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


_START, _END = "<!-- bench-table:start -->", "<!-- bench-table:end -->"


def update_docs(markdown: str, results: dict) -> bool:
    """Replace the table between the markers in docs/bench.md with this run's."""
    if not DOCS.exists():
        return False
    text = DOCS.read_text(encoding="utf-8")
    if _START not in text or _END not in text:
        return False
    env = results["environment"]
    stamp = f"Measured {env['when'][:10]} on {env['cpus']} CPUs, Python {env['python']} ({env['system']})."
    head, rest = text.split(_START, 1)
    _, tail = rest.split(_END, 1)
    DOCS.write_text(f"{head}{_START}\n{stamp}\n\n{markdown}\n{_END}{tail}", encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, help="runs per measurement (default: 3; 10 for the heartbeat)")
    parser.add_argument("--only", action="append", choices=["check", "filter", "budget", "runs", "status", "heartbeat", "engine"],
                        help="measure only this (repeatable)")
    parser.add_argument("--update-docs", action="store_true", help="write the table into docs/bench.md")
    args = parser.parse_args(argv)
    # piped (make bench | tee): wide enough for the table; on a terminal, its own width
    console = Console() if sys.stdout.isatty() else Console(width=130)
    bench = Bench(args.repeat, set(args.only or ["check", "filter", "budget", "runs", "status", "heartbeat", "engine"]),
                  console)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        bench.sessions(progress)
        bench.budget(progress)
        bench.runs(progress)
        bench.workspaces(progress)
        bench.heartbeat(progress)
        bench.context_engine(progress)
    results = bench.results()
    rows = _rows(bench, results)
    print_table(console, rows)
    markdown = markdown_table(rows)
    results["table_markdown"] = markdown
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    console.print(f"wrote {RESULTS.relative_to(ROOT)}")
    if args.update_docs:
        console.print("updated docs/bench.md" if update_docs(markdown, results) else
                      "[yellow]docs/bench.md has no bench-table markers; not updated[/]")
    missed = [name for name, verdict in results["verdicts"].items() if verdict == "missed"]
    if missed:
        console.print(f"[bold red]goals missed:[/] {', '.join(missed)}")
    return 0
