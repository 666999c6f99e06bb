"""`apollo heartbeat`: renal check of the current session, snapshot purge, one line, the state in
.renal/filter-state.json and a `renal` section merged into the heartbeat state file; always exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from apollo.demo import PINNED
from apollo.errors import InputError
from apollo.integration import heartbeat
from constants import DEMO_NOW

APOLLO = str(Path(sys.executable).parent / "apollo")


def _run(example: Path, *args: str, env: dict[str, str] | None = None, program: list[str] | None = None):
    full = {**os.environ, "APOLLO_NOW": DEMO_NOW, **(env or {})}
    return subprocess.run([*(program or [APOLLO]), "heartbeat", "--workspace", str(example / "workspace"),
                           "--state-dir", str(example / "openclaw-state"), *args],
                          capture_output=True, text=True, env=full, timeout=300)


def test_one_line_state_file_and_merged_section(example: Path) -> None:
    state_file = example / "workspace" / ".apollo" / "heartbeat-realtime.json"
    state_file.parent.mkdir(parents=True, exist_ok=True)
    state_file.write_text(json.dumps({"circadian": {"phase": "afternoon"}, "renal": {"old": True}}), encoding="utf-8")
    done = _run(example, "--lang", "zh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("🫘 上下文正常", "🫘 上下文需关注（", "🫘 上下文需过滤（节省"))
    assert done.stdout.count("\n") == 1
    renal_state = json.loads((example / "workspace" / ".renal" / "filter-state.json").read_text(encoding="utf-8"))
    for key in ("tokens", "density", "confirmations", "active_tasks", "active_topics", "warnings", "needs_filter",
                "status", "checked_at"):
        assert key in renal_state
    merged = json.loads(state_file.read_text(encoding="utf-8"))
    assert merged["circadian"] == {"phase": "afternoon"}  # other keys untouched
    assert merged["renal"]["line"] == done.stdout.strip() and "old" not in merged["renal"]
    assert merged["renal"]["tokens"] == renal_state["tokens"] and merged["renal"]["checked_at"] == DEMO_NOW


def test_needs_filter_still_exits_zero_and_says_the_saving(example: Path) -> None:
    config = example / "workspace" / ".apollo" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[renal]\ntoken_threshold = 100\nconfirmation_threshold = 0\n", encoding="utf-8")
    done = _run(example, "--lang", "zh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("🫘 上下文需过滤（节省") and done.stdout.rstrip().endswith("%；超标：Token、重复确认）")
    english = _run(example, "--lang", "en", "--json")
    data = json.loads(english.stdout)
    assert data["needs_filter"] is True and data["line"].startswith("🫘 context needs filtering (saves ")
    assert data["renal"]["needs_filter"] is True and data["session"].endswith(".jsonl")


def test_expired_snapshots_are_purged_on_the_heartbeat(example: Path) -> None:
    from apollo import clock
    from apollo import config as config_mod
    from apollo.autophagy import api
    from apollo.workspace import Paths

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    clock.pin("2026-11-01T12:00:00+08:00")  # a snapshot 28 days before the demo's day
    try:
        made, result = api.run_now(paths, config_mod.load(paths.workspace), "small")
    finally:
        clock.pin(None)
    assert result is not None
    snapshot = paths.workspace / result["snapshot"]
    assert snapshot.is_dir()
    under_override = _run(example, "--json")  # APOLLO_NOW decides no deletion: nothing purged
    assert under_override.returncode == 0 and json.loads(under_override.stdout)["purged_snapshots"] == []
    assert snapshot.is_dir()
    done = _run(example, "--json", program=[sys.executable, "-c", PINNED, DEMO_NOW])
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [Path(p).name for p in data["purged_snapshots"]] == [snapshot.name]
    assert not snapshot.exists()
    merged = json.loads((paths.workspace / ".apollo" / "heartbeat-realtime.json").read_text(encoding="utf-8"))
    assert merged["renal"]["purged_snapshots"] == 1


def test_no_session_is_a_healthy_line_not_an_error(tmp_path: Path) -> None:
    workspace, state = tmp_path / "workspace", tmp_path / "state"
    workspace.mkdir()
    state.mkdir()
    done = subprocess.run([APOLLO, "heartbeat", "-w", str(workspace), "--state-dir", str(state), "--lang", "en"],
                          capture_output=True, text=True, env={**os.environ, "APOLLO_NOW": DEMO_NOW})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "🫘 context healthy\n"
    state_doc = json.loads((workspace / ".renal" / "filter-state.json").read_text(encoding="utf-8"))
    assert state_doc["tokens"] == 0 and any("no current session" in w for w in state_doc["warnings"])


def test_a_heartbeat_file_that_is_not_ours_is_left_alone(example: Path) -> None:
    state_file = example / "workspace" / ".apollo" / "heartbeat-realtime.json"
    state_file.parent.mkdir(parents=True, exist_ok=True)
    state_file.write_text("[1, 2, 3]", encoding="utf-8")
    done = _run(example)
    assert done.returncode == 0
    assert "not a JSON object; left alone" in done.stderr
    assert state_file.read_text(encoding="utf-8") == "[1, 2, 3]"
    assert (example / "workspace" / ".renal" / "filter-state.json").is_file()


def test_the_heartbeat_file_path_comes_from_config(example: Path) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "apollo" / "config.toml"  # the user's own: where Apollo writes
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[heartbeat]\nstate_file = "state/realtime.json"\n', encoding="utf-8")
    assert _run(example).returncode == 0
    assert "renal" in json.loads((example / "workspace" / "state" / "realtime.json").read_text(encoding="utf-8"))


def test_fast_path_and_typer_path_agree(example: Path) -> None:
    fast = _run(example, "--lang", "en")
    full = _run(example, "--lang", "en", program=[sys.executable, "-c",
                                                  "import sys; from apollo.cli.app import app; "
                                                  "sys.argv[0] = 'apollo'; app()"])
    assert fast.returncode == full.returncode == 0
    assert fast.stdout == full.stdout
    helped = subprocess.run([APOLLO, "heartbeat", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "--state-dir" in helped.stdout  # anything unusual goes to typer
    typo = subprocess.run([APOLLO, "heartbeat", "--jsn"], capture_output=True, text=True)
    assert typo.returncode == 2 and "--jsn" in typo.stderr


def test_the_heartbeat_ends_with_its_disk_caches_written_and_its_line_out(example: Path, tmp_path: Path) -> None:
    """It ends without the interpreter's teardown, and still leaves what a normal exit leaves."""
    cache = tmp_path / "cache"
    done = _run(example, "--lang", "en", env={"APOLLO_CACHE_DIR": str(cache)})
    assert done.returncode == 0 and done.stdout.startswith("🫘 ") and done.stdout.endswith("\n"), done.stderr
    assert {path.name.split("-")[0] for path in cache.glob("*.marshal")} >= {"toml", "lexicon", "needles"}


def _after_heartbeat(example: Path, report: str) -> list[str]:
    """The lines ``report`` (Python code) prints at the end of a real ``apollo heartbeat`` process."""
    # the heartbeat's process ends without the interpreter's teardown (os._exit): here it raises
    # SystemExit instead, so that the probe can look at the process it leaves
    probe = ("import os, sys; sys.argv = ['apollo', 'heartbeat', '-w', sys.argv[1], '--state-dir', sys.argv[2]]\n"
             "os._exit = sys.exit\n"
             "from apollo.cli.entry import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n" + report)
    done = subprocess.run([sys.executable, "-c", probe, str(example / "workspace"), str(example / "openclaw-state")],
                          capture_output=True, text=True, env={**os.environ, "APOLLO_NOW": DEMO_NOW})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _modules_after_heartbeat(example: Path) -> set[str]:
    """The modules a real ``apollo heartbeat`` process has loaded by its end."""
    last = _after_heartbeat(example, "print('LOADED', ' '.join(sorted(sys.modules)))")[-1]
    assert last.startswith("LOADED ")
    return set(last.split()[1:])


def test_the_fast_path_does_not_import_typer_or_rich(example: Path) -> None:
    loaded = _modules_after_heartbeat(example)
    assert {m for m in loaded if m.split(".")[0] in ("typer", "rich", "click")} == set()


def test_an_unchanged_session_costs_neither_the_classifier_nor_heavy_imports(example: Path) -> None:
    """Every 30 minutes, an idle agent: the memo answers, and the process loads only what that needs
    (what each of these costs at start-up is in docs/bench.md)."""
    assert "apollo.renal.classify" in _modules_after_heartbeat(example)  # the first one checks
    loaded = _modules_after_heartbeat(example)
    heavy = {"apollo.renal.classify", "apollo.renal.rules", "apollo.transcript.openclaw", "apollo.transcript.base",
             "apollo.autophagy.places", "apollo.autophagy.snapshot", "orjson", "sqlite3", "typing", "tempfile",
             "shutil", "uuid", "tomllib", "Stemmer", "dataclasses", "inspect", "apollo.renal.check", "contextlib"}
    assert heavy & loaded == set()


def test_a_heartbeat_after_growth_loads_neither_the_sessions_first_pass_nor_its_writer(example: Path) -> None:
    """It reads only the appended lines (and the held messages' own lines) and writes no session:
    the OpenClaw reader's first pass (index, tree) and its writer stay out of the process."""
    assert _run(example, "--lang", "en").returncode == 0  # leaves the state the next one resumes from
    session = next((example / "openclaw-state" / "agents" / "main" / "sessions").glob("*.jsonl"))
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "message", "id": "grown1", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": "Any news on the deploy?"}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
    loaded = _modules_after_heartbeat(example)
    assert "apollo.transcript.openclaw_tail" in loaded  # resumed: only what was appended was read
    assert loaded & {"apollo.transcript.openclaw_index", "apollo.transcript.tree", "apollo.transcript.openclaw_write",
                     "apollo.transcript.openclaw_compaction", "contextlib"} == set()


def test_a_checking_heartbeat_creates_no_dataclass(example: Path) -> None:
    """The check's modules declare their records with apollo.records.slotted: generating dataclasses
    cost a heartbeat after growth about a tenth of its time (docs/bench.md)."""
    checked, dataclasses_line = _after_heartbeat(example, (
        "import dataclasses\n"
        "print('CHECKED', 'apollo.renal.classify' in sys.modules)\n"
        "print('DATACLASSES', ' '.join(sorted(f'{name}.{key}' for name, module in list(sys.modules.items())\n"
        "    if name.startswith('apollo') for key, value in vars(module).items()\n"
        "    if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value))))"))[-2:]
    assert checked == "CHECKED True"
    assert dataclasses_line.split()[1:] == []


def test_bad_config_is_a_clear_error(example: Path) -> None:
    config = example / "workspace" / ".apollo" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[renal]\ntoken_treshold = 1\n", encoding="utf-8")
    done = _run(example)
    assert done.returncode == 1 and "unknown key 'renal.token_treshold'" in done.stderr
    assert "Traceback" not in done.stderr


def test_merge_section_keeps_every_other_key_under_concurrency(tmp_path: Path) -> None:
    target = tmp_path / "hb.json"
    target.write_text(json.dumps({"keep": 1}), encoding="utf-8")
    errors: list[BaseException] = []

    def writer(key: str) -> None:
        try:
            for n in range(20):
                heartbeat.merge_section(target, key, {"n": n})
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(f"k{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert json.loads(target.read_text(encoding="utf-8")) == {"keep": 1, **{f"k{i}": {"n": 19} for i in range(4)}}


def test_merge_section_refuses_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}", encoding="utf-8")
    link = tmp_path / "hb.json"
    link.symlink_to(real)
    with pytest.raises(InputError):
        heartbeat.merge_section(link, "renal", {})
    assert real.read_text(encoding="utf-8") == "{}"
