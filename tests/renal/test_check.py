"""The heartbeat check on real workspaces: the example OpenClaw install, a memory file, nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import atomic
from apollo import config as config_mod
from apollo.renal.check import UPSTREAM_FIELDS, check, render_report
from apollo.renal.check_cache import heartbeat_line, write_state
from apollo.workspace import Paths
from constants import DEMO_NOW

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def demo_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APOLLO_NOW", DEMO_NOW)


def _paths(example: Path) -> Paths:
    return Paths.resolve(example / "workspace", example / "openclaw-state")


def _configure(workspace: Path, text: str) -> config_mod.Config:
    (workspace / ".apollo").mkdir(exist_ok=True)
    (workspace / ".apollo" / "config.toml").write_text(text, encoding="utf-8")
    return config_mod.load(workspace)


def test_checks_the_agents_current_session_and_writes_the_state(example: Path, demo_clock: None) -> None:
    paths = _paths(example)
    result = check(paths, config_mod.load(paths.workspace))
    assert result.source.endswith("93781619-6e2f-4b2c-8c02-4f91cb6c9962.jsonl")  # sessions.json's main session
    assert result.format == "openclaw" and result.tokens > 10_000 and result.elements > 100
    assert 0.0 < result.density <= 1.0 and 0.0 <= result.estimated_saving < 1.0
    assert result.confirmations >= 5 and result.active_topics >= 1
    assert result.open_questions == 1  # the Q4 budget cap: nobody knows it yet (the agent said so)
    state_path = write_state(paths, result)
    assert state_path == paths.workspace / ".renal" / "filter-state.json"
    state = json.loads(state_path.read_text(encoding="utf-8"))
    assert list(state)[: len(UPSTREAM_FIELDS)] == list(UPSTREAM_FIELDS)
    for extra in ("estimated_saving", "balance", "source", "counter"):
        assert extra in state
    assert state["checked_at"] == "2026-11-29T12:00:00+08:00"
    assert state["counter"] == "estimate" and state["balance"]["status"] in ("green", "yellow", "red")
    # no temp file left; the folder ignores itself in git
    assert sorted(p.name for p in state_path.parent.iterdir()) == [".gitignore", "filter-state.json"]


def test_thresholds_come_from_the_config_and_two_exceeded_mean_filtering(example: Path, demo_clock: None) -> None:
    paths = _paths(example)
    low = _configure(paths.workspace, "[renal]\ntoken_threshold = 1000\nconfirmation_threshold = 1\n")
    result = check(paths, low)
    assert result.exceeded == ["tokens", "confirmations"] and result.needs_filter and result.status == "needs_filter"
    saving = round(result.estimated_saving * 100)
    assert heartbeat_line(result, "zh") == f"🫘 上下文需过滤（节省{saving}%；超标：Token、重复确认）"
    assert heartbeat_line(result, "en") == f"🫘 context needs filtering (saves {saving}%; exceeded: tokens, confirmations)"
    high = _configure(paths.workspace, "[renal]\ntoken_threshold = 10000000\nconfirmation_threshold = 1000\n")
    calm = check(paths, high)
    assert calm.exceeded == [] and not calm.needs_filter and calm.status == "normal"
    assert heartbeat_line(calm, "zh") == "🫘 上下文正常"
    assert heartbeat_line(calm, "en") == "🫘 context healthy"
    one = _configure(paths.workspace, "[renal]\ntoken_threshold = 1000\nmin_exceeded = 1\n"
                                      "confirmation_threshold = 1000\n")
    single = check(paths, one)
    assert single.exceeded == ["tokens"] and single.needs_filter


def test_one_exceeded_threshold_is_only_a_warning(example: Path, demo_clock: None) -> None:
    paths = _paths(example)
    result = check(paths, _configure(paths.workspace, "[renal]\ntoken_threshold = 1000\n"
                                                        "confirmation_threshold = 1000\n"))
    assert result.status == "watch" and not result.needs_filter
    assert any(w.startswith("tokens ") for w in result.warnings)
    assert heartbeat_line(result) == "🫘 上下文需关注（超标：Token）"  # the verdict, never "normal"


def test_without_a_session_it_reads_todays_memory_file(tmp_path: Path, demo_clock: None) -> None:
    workspace = tmp_path / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "2026-11-29.md").write_text(
        "# 2026-11-29\n\n- 决定：周报改用飞书文档\n- 好的\n- 收到\n\n## TODO\n- [ ] 周一前交报告\n- [x] 清洗数据\n",
        encoding="utf-8")
    paths = Paths.resolve(workspace, tmp_path / "state")
    result = check(paths, config_mod.load(workspace))
    assert result.source == str(workspace / "memory" / "2026-11-29.md") and result.format == "markdown"
    assert result.active_tasks == 1 and result.tokens > 0
    assert any("no current session" in w for w in result.warnings)


def test_with_nothing_to_read_the_context_is_healthy_and_says_why(tmp_path: Path, demo_clock: None) -> None:
    paths = Paths.resolve(tmp_path / "workspace", tmp_path / "state")
    result = check(paths, config_mod.load(paths.workspace))
    assert result.source is None and result.tokens == 0 and result.density == 1.0
    assert heartbeat_line(result) == "🫘 上下文正常"
    assert any("memory file" in w for w in result.warnings)
    assert "未找到当前会话" in render_report(result, "zh")


def test_an_explicit_transcript_is_measured_instead(example: Path, demo_clock: None) -> None:
    paths = _paths(example)
    source = FIXTURES / "zh_heartbeat_noise.jsonl"
    result = check(paths, config_mod.load(paths.workspace), source=source)
    assert result.source == str(source) and result.format == "jsonl"
    assert result.elements == 13 and result.confirmations == 1  # "收到"; heartbeat chatter is not a confirmation
    assert result.density < 1.0


def test_the_check_streams_and_never_loads_the_whole_transcript(example: Path, demo_clock: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import apollo.transcript as transcript

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("check() must stream with iter_elements, not read() the whole file")

    monkeypatch.setattr(transcript, "read", refuse)
    paths = _paths(example)
    assert check(paths, config_mod.load(paths.workspace)).elements > 100


def test_the_report_follows_the_seed(example: Path, demo_clock: None) -> None:
    paths = _paths(example)
    result = check(paths, config_mod.load(paths.workspace))
    zh = render_report(result, "zh").splitlines()
    assert zh[:7] == ["🫘 [apollo-renal] 上下文净化报告", "当前状态：", f"  - Token估算：{result.tokens}",
                      f"  - 有效信息密度：{result.density:.0%}", f"  - 重复确认：{result.confirmations}次",
                      f"  - 进行中任务：{result.active_tasks}个", f"  - 活跃话题：{result.active_topics}个"]
    assert any(line.startswith(("🟢  上下文状态正常", "🟡", "🔴")) for line in zh)
    en = render_report(result, "en")
    assert en.startswith("🫘 [apollo-renal] context check\nCurrent state:\n  - Tokens: ")


def test_the_state_is_replaced_atomically(example: Path, demo_clock: None, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _paths(example)
    result = check(paths, config_mod.load(paths.workspace))
    target = write_state(paths, result)
    before = target.read_text(encoding="utf-8")

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError):
        write_state(paths, result)
    assert target.read_text(encoding="utf-8") == before  # the old state is intact


def test_a_corrupt_session_index_falls_back_to_the_memory_file(example: Path, demo_clock: None) -> None:
    paths = _paths(example)
    paths.sessions_index.write_text("{not json", encoding="utf-8")
    (paths.workspace / "memory" / "2026-11-29.md").write_text("# 今天\n- 收到\n", encoding="utf-8")
    result = check(paths, config_mod.load(paths.workspace))
    assert result.format == "markdown"
    assert any("sessions.json is not valid JSON" in w for w in result.warnings)
