"""The bench's results: goals judged met or missed, floors reported as floors, every ratio named."""

from __future__ import annotations

from pathlib import Path

from bench.measure import Run, Series
from bench.run import GOALS, HEARTBEAT_UNCHANGED, IMPORT_FLOORS, RUN_CHARS, RUNS, Bench, Comparison, _rows
from rich.console import Console

from bench import generate


def _series(label: str, *seconds: float) -> Series:
    return Series(label, [Run(wall=s, inner=None, max_rss_kb=1000, returncode=0, stdout="", stderr="")
                          for s in seconds])


def _bench(tmp_path: Path) -> Bench:
    bench = Bench(repeat=1, only={"heartbeat"}, console=Console(file=open(tmp_path / "out.txt", "w")))  # noqa: SIM115
    bench.comparisons.append(Comparison(HEARTBEAT_UNCHANGED, "200 kB", _series("python -c pass", 0.010, 0.012),
                                        _series(HEARTBEAT_UNCHANGED, 0.050, 0.046)))
    for label, _ in IMPORT_FLOORS.values():
        bench.comparisons.append(Comparison(label, "—", _series("python -c pass", 0.010), _series(label, 0.035)))
    return bench


def test_floors_are_reported_beside_the_goals_never_judged(tmp_path: Path) -> None:
    results = _bench(tmp_path).results()
    assert results["ratios"]["heartbeat_unchanged_vs_python_start"] == round(0.048 / 0.011, 3)
    assert results["verdicts"]["heartbeat_unchanged_vs_python_start"] == "missed"  # 4.36x > 4x
    for name in IMPORT_FLOORS:
        assert results["ratios"][name] == 3.5
        assert results["verdicts"][name] == "floor"
        assert name not in results["goals"]
    assert set(GOALS) <= set(results["ratios"])  # a goal not measured says so instead of vanishing
    assert results["ratios"]["renal_check_vs_parse"] == "not run"


def test_the_table_shows_floors_without_a_goal(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    rows = _rows(bench, bench.results())
    by_measure = {row[0].split(" ÷ ")[0]: row for row in rows}
    assert by_measure[HEARTBEAT_UNCHANGED][4:7] == ["4.36x", "≤ 4x", "MISSED"]
    for label, _ in IMPORT_FLOORS.values():
        assert by_measure[label][4:7] == ["3.50x", "—", "floor"]


def test_the_run_exponent_is_the_worst_shapes_and_each_run_is_a_figure(tmp_path: Path) -> None:
    bench = Bench(repeat=1, only={"runs"}, console=Console(file=open(tmp_path / "out.txt", "w")))  # noqa: SIM115
    short, long = RUN_CHARS
    for number, kind in enumerate(generate.RUNS):  # 4x the length: 4x the time, but 16x for one shape
        grows = 16 if number == 1 else 4
        for chars, seconds in ((short, 1.0), (long, float(grows))):
            bench.comparisons.append(Comparison(RUNS, f"{kind}, {chars // 1000}k", _series("orjson parse", 0.5),
                                                _series(RUNS, seconds), extra={"kind": kind, "chars": chars}))
    results = bench.results()
    assert results["ratios"]["renal_filter_run_exponent"] == 2.0
    assert results["verdicts"]["renal_filter_run_exponent"] == "missed"
    assert results["verdicts"]["renal_filter_run_vs_parse"] == "figure"
    rows = _rows(bench, results)
    exponent = next(row for row in rows if row[0] == "renal filter cost exponent, one long run")
    assert exponent[1] == "25k / 100k characters" and exponent[4:7] == ["2.00", "≤ 1.2", "MISSED"]
    assert all(row[4:7][1:] == ["—", "figure"] for row in rows if row[0].startswith(RUNS))
