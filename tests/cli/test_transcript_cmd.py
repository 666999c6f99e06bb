"""``apollo transcript show`` on every format, by path and by discovery."""

from __future__ import annotations

import json
from pathlib import Path

from realclient.support import PiSession, legacy_state_dir, realistic_session


def test_show_json_lists_elements_and_totals(apollo_cli, tmp_path: Path) -> None:
    path = realistic_session().write(tmp_path / "s.jsonl")
    result = apollo_cli("transcript", "show", str(path), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["format"] == "openclaw"
    assert len(data["elements"]) == data["totals"]["elements"] == 22
    assert data["totals"]["tokens"] == sum(e["tokens"] for e in data["elements"])
    assert data["totals"]["by_kind"]["heartbeat_poll"] > 0
    assert data["totals"]["envelope_tokens"] > 0
    first_user = next(e for e in data["elements"] if e["role"] == "user")
    assert first_user["envelope"] == "[Tue 2026-04-07 14:29 GMT+8] "


def test_show_table_and_warnings_on_stderr(apollo_cli, tmp_path: Path) -> None:
    path = realistic_session().write(tmp_path / "s.jsonl")
    with path.open("a") as handle:
        handle.write("{broken\n")
    result = apollo_cli("transcript", "show", str(path), "--lang", "en", env={"COLUMNS": "120"})
    assert result.returncode == 0
    assert "heartbeat_poll" in result.stdout and "22 of 22 elements in context" in result.stdout
    assert f"{path}:21: malformed JSON" in result.stderr
    assert "malformed" not in result.stdout


def test_show_all_includes_out_of_context(apollo_cli, tmp_path: Path) -> None:
    s = PiSession()
    root = s.user("root")
    s.say("abandoned")
    s.user("again", parent=root)
    path = s.write(tmp_path / "b.jsonl")
    shown = json.loads(apollo_cli("transcript", "show", str(path), "--json").stdout)
    everything = json.loads(apollo_cli("transcript", "show", str(path), "--json", "--all").stdout)
    assert len(shown["elements"]) == 2 and len(everything["elements"]) == 3
    assert [e["in_context"] for e in everything["elements"]] == [True, False, True]


def test_show_current_session_of_an_agent(apollo_cli, tmp_path: Path) -> None:
    a, b = PiSession(session_id="aaaa1111-0000-4000-8000-000000000001"), PiSession(
        session_id="bbbb2222-0000-4000-8000-000000000002")
    a.user("from a")
    b.user("from b")
    state = legacy_state_dir(tmp_path, {a.session_id: a.write(tmp_path / "a.jsonl"),
                                        b.session_id: b.write(tmp_path / "b.jsonl")})
    current = json.loads(apollo_cli("transcript", "show", "--state-dir", str(state), "--json").stdout)
    assert current["elements"][0]["text"] == "from b"
    chosen = apollo_cli("transcript", "show", "--session", "aaaa", "--json", env={"OPENCLAW_STATE_DIR": str(state)})
    assert json.loads(chosen.stdout)["elements"][0]["text"] == "from a"


def test_show_errors_are_one_line(apollo_cli, tmp_path: Path) -> None:
    result = apollo_cli("transcript", "show", "--state-dir", str(tmp_path / "nothing"), "--agent", "ghost")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "no session found for agent 'ghost'" in result.stderr
    assert "looked in" in result.stderr
    missing = apollo_cli("transcript", "show", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 1 and "no such file" in missing.stderr


def test_show_every_format(apollo_cli, tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    (tmp_path / "h.jsonl").write_text('{"id": "1", "role": "user", "text": "hi"}\n')
    (tmp_path / "2026-04-07.md").write_text("# day\n\n- hi\n")
    (tmp_path / "cc.jsonl").write_text(json.dumps({"type": "user", "uuid": "u", "parentUuid": None,
                                                   "message": {"role": "user", "content": "hi"}}) + "\n")
    for name, fmt in (("m.json", "openai"), ("h.jsonl", "jsonl"), ("2026-04-07.md", "markdown"),
                      ("cc.jsonl", "claude-code")):
        result = apollo_cli("transcript", "show", str(tmp_path / name), "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["format"] == fmt
