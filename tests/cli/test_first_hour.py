"""Issue 13, correctness: where outputs go, which session is current, a missing workspace, one verdict
— on real temporary OpenClaw installs (sessions, sessions.json, modification times)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from cli.openclaw_home import OpenClawHome, chat

MAIN = "6fffe193-0000-4000-8000-000000000001"
SIDE = "02c8cc36-0000-4000-8000-000000000002"


def _home(tmp_path: Path) -> OpenClawHome:
    home = OpenClawHome(tmp_path / "oc")
    home.add(MAIN, chat(60))
    home.add(SIDE, chat(3, "small side chat"))
    home.index({"agent:main:main": (MAIN, 1_790_000_000_000)})
    return home


def _source(run) -> str:  # noqa: ANN001 - CompletedProcess
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["source"]


def test_the_index_wins_over_modification_times(apollo_cli, tmp_path: Path) -> None:
    home = _home(tmp_path)
    home.same_mtime()  # a restore: every file ties
    assert _source(apollo_cli("renal", "check", "--json", "--no-write", *home.where())) == str(home.sessions / f"{MAIN}.jsonl")
    later = 1_790_000_500
    os.utime(home.sessions / f"{SIDE}.jsonl", (later, later))  # a file the index does not name, newer
    assert _source(apollo_cli("renal", "check", "--json", "--no-write", *home.where())) == str(home.sessions / f"{MAIN}.jsonl")


def test_filter_without_output_never_writes_into_the_agents_store(apollo_cli, tmp_path: Path) -> None:
    home = _home(tmp_path)
    before = sorted(p.name for p in home.sessions.iterdir())
    first = apollo_cli("renal", "filter", "-q", *home.where())
    assert first.returncode == 0, first.stderr
    written = Path(first.stdout.strip())
    assert written.is_absolute() and written.is_file()
    assert written.parent == home.workspace / ".renal" / "filtered"
    assert sorted(p.name for p in home.sessions.iterdir()) == before
    # the next check still measures the agent's session; the next filter filters it again, not the copy
    assert _source(apollo_cli("renal", "check", "--json", "--no-write", *home.where())) == str(home.sessions / f"{MAIN}.jsonl")
    second = apollo_cli("renal", "filter", "-q", *home.where())
    assert second.returncode == 0, second.stderr
    assert ".filtered.filtered" not in second.stdout and Path(second.stdout.strip()).parent == written.parent


def test_filter_of_a_file_outside_any_store_writes_beside_it(apollo_cli, tmp_path: Path) -> None:
    home = _home(tmp_path)
    loose = tmp_path / "exported" / "talk.jsonl"
    loose.parent.mkdir()
    loose.write_bytes((home.sessions / f"{MAIN}.jsonl").read_bytes())
    run = apollo_cli("renal", "filter", str(loose), "-q", *home.where())
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip()) == loose.parent / "talk.filtered.jsonl"


def test_discovery_never_picks_apollos_own_outputs(apollo_cli, tmp_path: Path) -> None:
    home = _home(tmp_path)
    copy = home.sessions / f"{MAIN}.filtered.jsonl"  # left there by an earlier Apollo
    copy.write_bytes((home.sessions / f"{SIDE}.jsonl").read_bytes())
    (home.sessions / f"{MAIN}.filtered-2.jsonl").write_bytes(copy.read_bytes())
    (home.sessions / "sessions.json").unlink()  # no index: modification times decide
    later = 1_890_000_000
    for name in (copy.name, f"{MAIN}.filtered-2.jsonl"):
        os.utime(home.sessions / name, (later, later))
    assert _source(apollo_cli("renal", "check", "--json", "--no-write", *home.where())) != str(copy)
    listed = apollo_cli("renal", "check", "--json", "--no-write", "-s", MAIN[:8], *home.where())
    assert _source(listed) == str(home.sessions / f"{MAIN}.jsonl")  # the prefix is not ambiguous with the copies


def test_heartbeat_takes_session(apollo_cli, tmp_path: Path) -> None:
    home = _home(tmp_path)
    run = apollo_cli("heartbeat", "--json", "--session", SIDE[:8], *home.where())
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["session"] == str(home.sessions / f"{SIDE}.jsonl")
    run = apollo_cli("heartbeat", "--json", *home.where())
    assert json.loads(run.stdout)["session"] == str(home.sessions / f"{MAIN}.jsonl")


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("command", [["heartbeat"], ["renal", "check"], ["renal", "filter"]])
@pytest.mark.parametrize("missing", ["workspace", "state"])
def test_a_missing_workspace_or_state_dir_is_one_line_and_creates_nothing(apollo_cli, tmp_path: Path,
                                                                        command: list[str], missing: str) -> None:
    home = _home(tmp_path)
    gone = tmp_path / "does-not-exist"
    where = (["-w", str(gone), "--state-dir", str(home.state)] if missing == "workspace"
             else ["-w", str(home.workspace), "--state-dir", str(gone)])
    before = _tree(tmp_path)
    run = apollo_cli(*command, *where, cwd=tmp_path)
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert run.stdout == "" and len(run.stderr.strip().splitlines()) == 1
    assert str(gone) in run.stderr and "does not exist" in run.stderr
    assert _tree(tmp_path) == before


def test_heartbeat_without_any_openclaw_is_an_error(apollo_cli, isolated_home: Path) -> None:
    run = apollo_cli("heartbeat")
    assert run.returncode == 1 and "does not exist" in run.stderr and run.stdout == ""
    assert not (isolated_home / ".openclaw").exists()


def test_filter_with_a_missing_workspace_writes_nothing(apollo_cli, tmp_path: Path) -> None:
    home = _home(tmp_path)
    loose = tmp_path / "talk.jsonl"
    loose.write_bytes((home.sessions / f"{MAIN}.jsonl").read_bytes())
    run = apollo_cli("renal", "filter", str(loose), "-w", str(tmp_path / "nope"))
    assert run.returncode == 1 and "does not exist" in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["oc", "talk.jsonl"]


def test_checking_a_file_outside_any_workspace_says_how_to_measure_it(apollo_cli, tmp_path: Path) -> None:
    """A new user runs `renal check` on a session file copied from elsewhere, with no workspace: the one
    line names --no-write, which measures it without writing the state anywhere."""
    home = _home(tmp_path)
    loose = tmp_path / "talk.jsonl"
    loose.write_bytes((home.sessions / f"{MAIN}.jsonl").read_bytes())
    run = apollo_cli("renal", "check", str(loose), "-w", str(tmp_path / "nope"))
    assert run.returncode == 1 and "--no-write" in run.stderr
    measured = apollo_cli("renal", "check", str(loose), "-w", str(tmp_path / "nope"), "--no-write")
    assert measured.returncode == 0 and str(loose) in measured.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["oc", "talk.jsonl"]


def _watch_home(tmp_path: Path) -> OpenClawHome:
    """A session over the token threshold only: one threshold exceeded, so "to watch"."""
    home = _home(tmp_path)
    (home.workspace / ".apollo").mkdir()
    (home.workspace / ".apollo" / "config.toml").write_text(
        "[renal]\ntoken_threshold = 100\ndensity_threshold = 0.0\nconfirmation_threshold = 1000\n", encoding="utf-8")
    return home


def test_one_verdict_in_report_heartbeat_line_and_state(apollo_cli, tmp_path: Path) -> None:
    home = _watch_home(tmp_path)
    check = apollo_cli("renal", "check", "--lang", "en", *home.where())
    assert check.returncode == 0, check.stderr
    state = json.loads((home.workspace / ".renal" / "filter-state.json").read_text())
    assert state["status"] == "watch" and state["exceeded"] == ["tokens"]
    assert "context healthy" not in check.stdout
    last = check.stdout.strip().splitlines()[-1]
    assert last == "🫘 context to watch (exceeded: tokens)"
    beat = apollo_cli("heartbeat", "--lang", "en", *home.where())
    assert beat.stdout.strip() == last
    beat_zh = apollo_cli("heartbeat", "--lang", "zh", *home.where())
    assert beat_zh.stdout.strip() == "🫘 上下文需关注（超标：Token）"


# -- autophagy status says what a run would do; words, not keys; exit 3 says it once -------------------------------
def _pycache_workspace(tmp_path: Path) -> OpenClawHome:
    home = OpenClawHome(tmp_path / "oc")
    cache = home.workspace / "proj" / "__pycache__"
    cache.mkdir(parents=True)
    for number in range(200):  # just written: too recent for the small tier
        (cache / f"m{number}.cpython-311.pyc").write_bytes(b"\0" * 100)
    old = 1_700_000_000
    for name in ("a.tmp", "b.tmp"):
        (home.workspace / name).write_text("scratch", encoding="utf-8")
        os.utime(home.workspace / name, (old, old))
    return home


def test_status_lists_only_what_small_removes(apollo_cli, tmp_path: Path) -> None:
    home = _pycache_workspace(tmp_path)
    status = apollo_cli("autophagy", "status", "--json", *home.where())
    assert status.returncode == 0, status.stderr
    small = json.loads(status.stdout)["tiers"]["small"]
    assert small["count"] == 2 and small["kinds"] == {"temp": 2}
    run = apollo_cli("autophagy", "small", "--yes", "--json", *home.where())
    assert run.returncode == 0, run.stderr
    done = json.loads(run.stdout)
    assert done["skipped"] == [] and len(done["deleted"]) == small["count"]
    assert len(list((home.workspace / "proj" / "__pycache__").iterdir())) == 200


def test_english_output_has_words_not_keys(apollo_cli, tmp_path: Path) -> None:
    home = _pycache_workspace(tmp_path)
    status = apollo_cli("autophagy", "status", "--lang", "en", *home.where())
    assert status.returncode == 0, status.stderr
    assert "[2 temporary files]" in status.stdout and "[temp" not in status.stdout
    zh = apollo_cli("autophagy", "status", "--lang", "zh", *home.where())
    assert "临时文件 2" in zh.stdout


def test_exit_3_says_how_to_confirm_once(apollo_cli, tmp_path: Path) -> None:
    home = _pycache_workspace(tmp_path)
    run = apollo_cli("autophagy", "small", "--lang", "en", *home.where())
    assert run.returncode == 3
    said = run.stdout + run.stderr
    assert said.count("apollo autophagy small --yes") == 1 and said.count("Nothing was changed") == 1


# -- "Needs confirmation" names the items and the command that drops each -------------------------------------------
def test_needs_confirmation_lists_items_and_a_command_that_works_from_anywhere(apollo_cli, example: Path,
                                                                               tmp_path: Path) -> None:
    where = ["-w", str(example / "workspace"), "--state-dir", str(example / "openclaw-state")]
    env = {"APOLLO_NOW": "2026-11-29T12:00:00+08:00"}
    dry = apollo_cli("renal", "filter", "--dry-run", "--json", *where, env=env)
    items = json.loads(dry.stdout)["needs_confirmation"]
    assert items, "the example has an element the classifier is unsure of"
    text = apollo_cli("renal", "filter", "--dry-run", "--lang", "en", *where, env=env).stdout
    for item in items:
        assert item["id"] in text and item["drop_command"] in text
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    words = shlex.split(items[0]["drop_command"])
    assert words[:3] == ["apollo", "renal", "filter"]
    run = apollo_cli(*words[1:], "--json", env=env, cwd=elsewhere)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["removed"]["confirmed"] == 1 and items[0]["id"] not in [i["id"] for i in report["needs_confirmation"]]
    kept_ids = {json.loads(line).get("id") for line in Path(report["output"]).read_text().splitlines()}
    assert items[0]["id"].split(":")[0] not in kept_ids


# -- every path printed pastes back from any folder ------------------------------------------------------------------
def _paths_in(value) -> list[str]:  # noqa: ANN001 - JSON
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in
                ([item] if key in ("path", "snapshot", "log", "output", "source", "state_file", "html")
                 and isinstance(item, str) else _paths_in(item))]
    if isinstance(value, list):
        return [p for item in value for p in _paths_in(item)]
    return []


def test_paths_in_json_and_text_are_absolute(apollo_cli, tmp_path: Path) -> None:
    home = _pycache_workspace(tmp_path)
    home.add(MAIN, chat(20))
    (tmp_path / "exported").mkdir()
    (tmp_path / "exported" / "talk.jsonl").write_bytes((home.sessions / f"{MAIN}.jsonl").read_bytes())
    relative = ["-w", "oc/workspace", "--state-dir", "oc/state"]
    runs = [apollo_cli("renal", "filter", "exported/talk.jsonl", "-o", "out.jsonl", "--json", *relative, cwd=tmp_path),
            apollo_cli("renal", "check", "--json", *relative, cwd=tmp_path),
            apollo_cli("renal", "report", "exported/talk.jsonl", "--html", "page.html", "--json", cwd=tmp_path),
            apollo_cli("autophagy", "small", "--yes", "--json", *relative, cwd=tmp_path),
            apollo_cli("autophagy", "status", "--json", *relative, cwd=tmp_path),
            apollo_cli("transcript", "show", "exported/talk.jsonl", "--json", cwd=tmp_path)]
    found = []
    for run in runs:
        assert run.returncode == 0, run.stderr
        found += _paths_in(json.loads(run.stdout))
    assert len(found) >= 8
    assert all(Path(p).is_absolute() for p in found), [p for p in found if not Path(p).is_absolute()]
    brief = apollo_cli("autophagy", "snapshots", *relative, "--lang", "en", cwd=tmp_path)
    assert brief.returncode == 0
    zh_log = apollo_cli("autophagy", "small", "--yes", "--lang", "zh", "-w", str(tmp_path / "oc2"), cwd=tmp_path)
    assert zh_log.returncode == 1 and "does not exist" in zh_log.stderr
    text = apollo_cli("autophagy", "small", "--yes", *relative, "--lang", "en", cwd=tmp_path)
    assert text.returncode == 0 and "Nothing to clean" in text.stdout


def test_cleanup_log_keeps_the_seed_headings_and_adds_english(apollo_cli, tmp_path: Path) -> None:
    home = _pycache_workspace(tmp_path)
    run = apollo_cli("autophagy", "small", "--yes", "--lang", "en", *home.where())
    assert run.returncode == 0, run.stderr
    log = (home.workspace / ".autophagy" / "cleanup-log.md").read_text(encoding="utf-8")
    assert log.startswith("# apollo-autophagy 清理日志 (cleanup log)")
    entry = log[log.index("## ["):].splitlines()
    assert entry[0].endswith("] 清理记录") and entry[1] == "类型：🗑️小"  # the seed's lines, unchanged
    assert entry[8] == ("English: 类型 = Type · 清理了什么 = Removed · 保留了什么 = Kept · "
                        "触发原因 = Trigger · 快照文件 = Snapshot · 操作者 = Operator · 结果 = Outcome")
    zh = _pycache_workspace(tmp_path / "zh")
    assert apollo_cli("autophagy", "small", "--yes", "--lang", "zh", *zh.where()).returncode == 0
    assert " = Type" not in (zh.workspace / ".autophagy" / "cleanup-log.md").read_text(encoding="utf-8")
    snapshot = next(line for line in run.stdout.splitlines() if line.startswith("Snapshot: "))
    assert Path(snapshot.split()[1]).is_absolute() and Path(snapshot.split()[1]).is_dir()


# -- transcript show at 80 columns: the text column gives way, never the id ------------------------------------------
def _uuid_session(home: OpenClawHome) -> Path:
    path = home.add(MAIN, chat(6, "please look at the quarterly cost report draft and tell me what is missing"))
    lines = path.read_text(encoding="utf-8").splitlines()
    renamed = []
    for line in lines:
        record = json.loads(line)
        for key in ("id", "parentId"):
            if record.get(key) and record["type"] == "message":
                record[key] = f"{record[key]}-bc12-4f00-9a00-0000deadbeef"[:36]
        renamed.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(renamed) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("long_ids", [False, True])
def test_transcript_show_at_80_columns(apollo_cli, tmp_path: Path, long_ids: bool) -> None:
    from rich.cells import cell_len

    home = OpenClawHome(tmp_path / "oc")
    path = _uuid_session(home) if long_ids else home.add(MAIN, chat(6, "please look at the quarterly cost report"))
    run = apollo_cli("transcript", "show", str(path), env={"COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    shown = json.loads(apollo_cli("transcript", "show", str(path), "--json").stdout)["elements"]
    table = [line for line in run.stdout.splitlines() if "elements in context" not in line]  # the totals: prose
    assert [line for line in table if cell_len(line) > 80] == []
    for element in shown:
        assert element["id"] in run.stdout  # whole, never cut
    if not long_ids:
        assert "please look at the quarterly cost" in run.stdout  # more than a stub of the text


def test_nothing_to_clean_says_what_was_left_alone_and_why(apollo_cli, tmp_path: Path) -> None:
    """A memory entry marked outdated in a MEMORY.md edited minutes ago is not offered: the run says
    so, with the reason and the file's absolute path, in text and JSON, in both languages."""
    home = _home(tmp_path)
    memory = home.workspace / "MEMORY.md"
    memory.write_text("# Memory\n\n- [outdated] the old staging host\n- the deploy key lives in the vault\n",
                      encoding="utf-8")
    text = apollo_cli("autophagy", "medium", "--lang", "en", *home.where(), cwd=tmp_path)
    assert text.returncode == 0 and text.stdout.startswith("Nothing to clean.")
    line = next(line for line in text.stdout.splitlines() if "modified in the last 60 minutes" in line)
    assert line.startswith("kept, modified in the last 60 minutes: ") and str(memory) in line
    chinese = apollo_cli("autophagy", "medium", "--lang", "zh", *home.where(), cwd=tmp_path)
    assert chinese.stdout.startswith("没有需要清理的内容。") and "保留，最近 60 分钟内修改过：" in chinese.stdout
    data = json.loads(apollo_cli("autophagy", "medium", "--json", *home.where(), cwd=tmp_path).stdout)
    assert data["deleted"] == [] and {"path": str(memory), "reason": "modified in the last 60 minutes"} in data["kept"]
    quiet = apollo_cli("autophagy", "medium", "-q", "--lang", "en", *home.where(), cwd=tmp_path)
    assert quiet.stdout.strip() == "Nothing to clean."
    os.utime(memory, (memory.stat().st_atime - 7200, memory.stat().st_mtime - 7200))  # two hours old: offered
    offered = apollo_cli("autophagy", "medium", "--lang", "en", *home.where(), cwd=tmp_path)
    assert offered.returncode == 3 and "the old staging host" in offered.stdout
