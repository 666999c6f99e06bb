"""The heartbeat after growth: a check resumes from the state the last check of the same session
left, and classifies only what was appended, with exactly the numbers a full check gives."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import config as config_mod
from apollo.renal import check_resume
from apollo.renal.check import check
from apollo.renal.filter import filter_path
from apollo.transcript import iter_elements, read
from apollo.words import digest64
from apollo.workspace import Paths
from constants import DEMO_NOW

FIXTURES = Path(__file__).parent / "fixtures"
SESSION = "93781619-6e2f-4b2c-8c02-4f91cb6c9962.jsonl"
#: one OpenClaw session (a tree of entries) and the plain JSONL conversations
SOURCES = [f"example:{SESSION}", *sorted(p.name for p in FIXTURES.glob("*.jsonl"))]


@pytest.fixture(autouse=True)
def demo_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APOLLO_NOW", DEMO_NOW)


def _lines(example_tree: Path, source: str) -> list[bytes]:
    if source.startswith("example:"):
        path = example_tree / "openclaw-state" / "agents" / "main" / "sessions" / source.split(":", 1)[1]
    else:
        path = FIXTURES / source
    return path.read_bytes().splitlines(keepends=True)


def _append(session: Path, parent: str, prefix: str, messages: list[dict], start: int = 0) -> str:
    """Appends ``messages`` to ``session`` as entries ``<prefix><n>``, each the child of the one before
    (the first of ``parent``), as an agent's turns grow it; the last entry's id."""
    with session.open("a", encoding="utf-8") as out:
        for n, message in enumerate(messages, start=start):
            out.write(json.dumps({"type": "message", "id": f"{prefix}{n}", "parentId": parent,
                                  "timestamp": f"2026-11-29T04:00:{n:02d}.000Z", "message": message}) + "\n")
            parent = f"{prefix}{n}"
    return parent


def _numbers(result) -> dict:
    return {key: value for key, value in result.to_state().items() if key not in ("checked_at", "fingerprint")}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(SOURCES), cuts=st.lists(st.floats(0, 1), min_size=1, max_size=3))
def test_any_split_into_check_then_append_gives_the_whole_sessions_check(example_tree: Path, source: str,
                                                                        cuts: list[float]) -> None:
    lines = _lines(example_tree, source)
    points = sorted({max(1, round(cut * len(lines))) for cut in cuts} | {len(lines)})
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "workspace").mkdir()
        paths = Paths.resolve(root / "workspace", root / "state")
        config = config_mod.load(paths.workspace)
        name = root / ("session.jsonl" if not source.startswith("example:") else SESSION)
        name.write_bytes(b"")
        written, seen = 0, []
        for point in points:
            with name.open("ab") as out:
                out.write(b"".join(lines[written:point]))
            written = point
            resumed = check(paths, config, name, resume=True)
            whole = check(paths, config, name)
            assert _numbers(resumed) == _numbers(whole)
            now = list(iter_elements(name))
            # only what was appended, unless the append changed what came before (a compaction, a new branch)
            appended = len(now) - len(seen) if now[:len(seen)] == seen else len(now)
            assert resumed.classified == appended
            seen = now

def test_a_session_rewritten_before_its_end_is_checked_whole(example: Path) -> None:
    """Not an append (an earlier message edited, same size or not): nothing of the last check is reused."""
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    config = config_mod.load(paths.workspace)
    session = paths.sessions_dir / SESSION
    first = check(paths, config, session, resume=True)
    data = session.read_bytes()
    opening = data.index(b'"', data.index(b'"text":', len(data) // 2) + len(b'"text":')) + 1
    session.write_bytes(data[:opening] + b"x" + data[opening:])  # one more letter in a message halfway
    again = check(paths, config, session, resume=True)
    assert again.classified == again.elements == first.elements
    assert _numbers(again) == _numbers(check(paths, config, session))


def test_a_resume_state_someone_else_could_write_is_not_read(example: Path) -> None:
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    config = config_mod.load(paths.workspace)
    session = paths.sessions_dir / SESSION
    first = check(paths, config, session, resume=True)
    saved = check_resume.resume_path(paths)
    os.chmod(saved, 0o666)
    assert check(paths, config, session, resume=True).classified == first.elements
    saved.write_bytes(b"not a state")
    os.chmod(saved, 0o600)
    assert check(paths, config, session, resume=True).classified == first.elements


def test_the_heartbeat_after_growth_classifies_only_the_appended_message(example: Path, monkeypatch) -> None:
    from apollo.integration import heartbeat
    from apollo.renal import classify

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    heartbeat.run(paths, config_mod.load(paths.workspace), "en")  # a small session resumes too
    session = paths.sessions_dir / SESSION
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "message", "id": "appended1", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": "We decided to ship 2.0 next Monday."}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
    fed: list[str] = []
    original = classify.Classifier.feed
    monkeypatch.setattr(classify.Classifier, "feed", lambda self, element: fed.append(element.id) or original(self, element))
    from apollo.renal import check as check_module
    from apollo.renal import check_cache

    looked: list[str] = []
    finder = check_cache.default_source
    monkeypatch.setattr(check_cache, "default_source", lambda *args: looked.append("memo") or finder(*args))
    monkeypatch.setattr(check_module, "default_source", lambda *args: looked.append("check") or finder(*args))
    beat = heartbeat.run(paths, config_mod.load(paths.workspace), "en")
    assert fed == ["appended1"]
    assert looked == ["memo"]  # the check reads what the memo found, stamped before either read it
    monkeypatch.setattr(classify.Classifier, "feed", original)
    assert _numbers_of_state(beat.state) == _numbers(check(paths, config_mod.load(paths.workspace)))


def test_a_session_cut_short_since_the_last_heartbeat_is_checked_whole(example: Path, monkeypatch) -> None:
    """Not an append (the session lost its last lines, then grew again): the heartbeat classifies
    every element again, and says what a whole check says."""
    from apollo.integration import heartbeat
    from apollo.renal import classify

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    heartbeat.run(paths, config_mod.load(paths.workspace), "en")
    session = paths.sessions_dir / SESSION
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    last = json.loads(lines[-3])
    entry = {"type": "message", "id": "appended2", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": "Any news?"}}
    session.write_text("".join(lines[:-2]) + json.dumps(entry) + "\n", encoding="utf-8")
    fed: list[str] = []
    original = classify.Classifier.feed
    monkeypatch.setattr(classify.Classifier, "feed", lambda self, element: fed.append(element.id) or original(self, element))
    beat = heartbeat.run(paths, config_mod.load(paths.workspace), "en")
    monkeypatch.setattr(classify.Classifier, "feed", original)
    assert len(fed) == beat.state["elements"] and fed[-1] == "appended2"
    assert _numbers_of_state(beat.state) == _numbers(check(paths, config_mod.load(paths.workspace)))


def _numbers_of_state(state: dict) -> dict:
    return {key: value for key, value in state.items() if key not in ("checked_at", "fingerprint")}


def test_the_saved_state_holds_no_message_whole(example: Path) -> None:
    """The elements the streams still hold are saved by their place in the session, not copied."""
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    sentence = "Please keep the quarterly figures for the Lisbon office in the shared folder until March ends"
    output = "\n".join(f"line {n}: the build step {n} finished without warnings" for n in range(60))
    entries = [
        {"type": "message", "id": "u1", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
         "message": {"role": "user", "content": sentence}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-11-29T04:00:01.000Z",
         "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "exec",
                                                        "arguments": {"command": "make"}}]}},
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-11-29T04:00:02.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "exec",
                     "content": [{"type": "text", "text": output}]}},
    ]
    with session.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(entry) + "\n" for entry in entries)
    check(paths, config_mod.load(paths.workspace), session, resume=True)
    saved = (check_resume.resume_path(paths)).read_bytes()
    assert sentence.encode() not in saved and output.encode()[:200] not in saved


def test_a_cut_outputs_shortened_text_is_counted_not_kept(example: Path, monkeypatch) -> None:
    """The check needs a settled output's cut form only for its tokens: the state after the cut holds
    no cut form (its head, its marker, the lines kept), the secret detectors never read one to save
    it, and a check resumed from that state says what a whole check says."""
    from apollo.renal import fates

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    config = config_mod.load(paths.workspace)
    check(paths, config, session, resume=True)
    head = "Collected 80 quarterly ledgers from the archive shelf"
    output = "\n".join([head, *(f"ledger {n}: balanced, nothing to report" for n in range(80))])
    parent = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
    messages = [{"role": "user", "content": "Please collect the ledgers."},
                {"role": "assistant", "content": [{"type": "toolCall", "id": "g1", "name": "exec",
                                                   "arguments": {"command": "collect ledgers"}}]},
                {"role": "toolResult", "toolCallId": "g1", "toolName": "exec", "content": [{"type": "text", "text": output}]},
                {"role": "assistant", "content": "All 80 ledgers are balanced."},
                {"role": "user", "content": "Good. Is the staging server up?"},
                {"role": "assistant", "content": "Staging is up."},
                {"role": "user", "content": "Any news on the deploy?"}]
    parent = _append(session, parent, "g", messages)
    cut: list[str] = []
    original_cut = fates.FateStream._cut

    def spy(self, fate):
        original_cut(self, fate)
        if fate.action == "shorten" and fate.element.id == "g2":
            cut.append(fate.element.id)

    monkeypatch.setattr(fates.FateStream, "_cut", spy)
    read: list[str] = []
    redact = check_resume.redact
    monkeypatch.setattr(check_resume, "redact", lambda text: read.append(text) or redact(text))
    assert check(paths, config, session, resume=True).classified == len(messages)
    assert cut == ["g2"], "the appended output was not cut: the test shows nothing"
    saved = check_resume.resume_path(paths).read_bytes()
    assert head.encode() not in saved and b"apollo renal cut this old output" not in saved
    assert not any(head in text or "apollo renal cut" in text for text in read)
    # later: a message names a line of the cut output, and one more turn
    _append(session, parent, "g", [{"role": "user", "content": content} for content in ["What did ledger 41 say?", "Thanks."]],
            start=len(messages))
    resumed = check(paths, config, session, resume=True)
    assert resumed.classified == 2
    assert _numbers(resumed) == _numbers(check(paths, config, session))


def test_the_rules_signals_the_classifier_lists_are_saved_by_name_and_resumed_as_this_process_loads_them(
        example: Path, monkeypatch) -> None:
    """A signal is rules, not memory: saved by its name, not with its (compiled) expressions."""
    from apollo.renal import classify, rules

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    config = config_mod.load(paths.workspace)
    session = paths.sessions_dir / SESSION
    check(paths, config, session, resume=True)
    saved = check_resume.resume_path(paths).read_bytes()
    assert b"LazyPattern" not in saved and b"Signal" not in saved
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "message", "id": "appended3", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": "Any news?"}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
    resumed: list[classify.Classifier] = []
    original = classify.Classifier.feed
    monkeypatch.setattr(classify.Classifier, "feed", lambda self, element: resumed.append(self) or original(self, element))
    assert check(paths, config, session, resume=True).classified == 1
    signals = rules.load(config).signals
    listed = resumed[0]._failed_by + resumed[0]._failed_unless
    assert listed and all(signals[signal.name] is signal for signal in listed)


def test_the_saved_state_holds_no_secret_in_clear(example: Path) -> None:
    """Keys users paste, and the agent repeats, never land in clear in the state (docs/privacy.md):
    neither in the agent's latest replies the classifier compares, nor in topic words or quotes."""
    from test_redact import real_keys

    keys = real_keys(11)
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    says = [
        ("user", f"We decided to use this Anthropic key for every agent: {keys['anthropic']}"),
        ("assistant", f"Done. I set the key {keys['anthropic']} for every agent, as you decided."),
        ("user", f"Should the deploy read aws_secret_access_key={secret} from the environment?"),
        ("assistant", f"Yes: export aws_secret_access_key={secret} before the deploy, and keep it there."),
        ("user", f"I prefer the GitHub token {keys['github']} for pushes from now on."),
        ("assistant", f"Noted: pushes will use {keys['github']} from now on."),
        ("user", f"把所有agent的API key都改成：{keys['openai project']}"),
        ("assistant", f"好的，所有agent的API key都改成了 {keys['openai project']}。"),
    ]
    parent = last["id"]
    parent = _append(session, parent, "s", [{"role": role, "content": text} for role, text in says])
    config = config_mod.load(paths.workspace)
    check(paths, config, session, resume=True)
    saved = check_resume.resume_path(paths).read_bytes().lower()  # topic words are kept lowercased
    for value in (keys["anthropic"], secret, keys["github"], keys["openai project"]):
        assert value.lower().encode() not in saved, value
    assert keys["github"][4:].lower().encode() not in saved  # a key that is one word: not even its body
    assert check(paths, config, session, resume=True).classified == 0  # and the state is read back
    # saved again after growth, the strings read back are not redacted twice, the new ones are
    later = real_keys(12)["anthropic"]
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "message", "id": "s99", "parentId": parent, "timestamp": "2026-11-29T04:01:00.000Z",
                              "message": {"role": "assistant", "content": f"Done. The new key {later} is set."}}) + "\n")
    assert check(paths, config, session, resume=True).classified == 1
    saved = check_resume.resume_path(paths).read_bytes().lower()
    for value in (keys["anthropic"], secret, keys["github"], keys["openai project"], later):
        assert value.lower().encode() not in saved, value



def test_a_watched_tool_outputs_tokens_hold_no_secret_in_clear(example: Path) -> None:
    """A long tool output's tokens are saved as their digests: none of them in clear, a key or a
    path, and none read by the secret detectors to be saved; a later message naming one still
    finds its line."""
    from test_redact import real_keys

    keys = real_keys(13)
    output = "\n".join([*(f"src/mod_{n}.py: ok" for n in range(40)), f"GITHUB_TOKEN {keys['github']}",
                        f"using {keys['anthropic']} for src/mod_3.py"])
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    parent = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
    messages = [{"role": "assistant", "content": [{"type": "toolCall", "id": "k1", "name": "exec",
                                                   "arguments": {"command": "make env"}}]},
                {"role": "toolResult", "toolCallId": "k1", "toolName": "exec", "content": [{"type": "text", "text": output}]},
                {"role": "user", "content": "What is wrong with src/mod_3.py?"}]
    parent = _append(session, parent, "k", messages)
    config = config_mod.load(paths.workspace)
    read: list[str] = []
    redact = check_resume.redact
    with patch.object(check_resume, "redact", lambda text: read.append(text) or redact(text)):
        check(paths, config, session, resume=True)
    saved = check_resume.resume_path(paths).read_bytes().lower()
    for value in ("src/mod_17.py", keys["github"], keys["anthropic"]):  # (src/mod_3.py: the user named it)
        assert value.lower().encode() not in saved, value
    assert not any("src/mod_17.py" in text for text in read)
    assert check(paths, config, session, resume=True).classified == 0
    # named after a reload, a line of the output is kept as a whole check keeps it
    _append(session, parent, "k", [{"role": "user", "content": content} for content in ["Thanks.", "And src/mod_17.py?", "ok"]],
            start=len(messages))
    resumed = check(paths, config, session, resume=True)
    assert resumed.classified == 3
    assert _numbers(resumed) == _numbers(check(paths, config, session))


def test_a_string_found_clean_is_not_read_again_when_the_state_is_saved_again(example: Path, monkeypatch) -> None:
    """The secret detectors' first look (may_hold) reads each string of the state once: the strings
    the last state kept as holding no key are carried over, only the appended message's are read."""
    from apollo.redact import may_hold

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    config = config_mod.load(paths.workspace)
    looked: list[str] = []
    monkeypatch.setattr(check_resume, "may_hold", lambda text: looked.append(text) or may_hold(text))
    check(paths, config, session, resume=True)
    first = {text for text in looked if not may_hold(text)}
    assert first and len(looked) > len(first)  # strings met twice in one state are read once
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "message", "id": "clean1", "parentId": last["id"],
                              "timestamp": "2026-11-29T04:00:00.000Z",
                              "message": {"role": "user", "content": "Zanzibar quokkas prefer marmalade."}}) + "\n")
    looked.clear()
    assert check(paths, config, session, resume=True).classified == 1
    assert looked and not first & set(looked)
    assert any("quokka" in text for text in looked)

# -- random sessions: whatever happened to the session since the last check, the resumed check says
# -- what a whole check says, byte for byte

_SAYS = {
    "user": ["We decided to ship on Friday.", "I prefer short answers.", "Could you check the logs?",
             "ok thanks", "Any news on the deploy?", "好的", "我们决定下周发布。", "请把测试跑一遍", "Why did the build fail?",
             "From now on always answer in English.", "Actually, use Postgres instead.", "谢谢！", "hi", "Please fix the login bug.",
             "What broke in src/auth/login.py?"],
    "assistant": ["Done: the tests pass.", "Let me look.", "On it.", "The build failed because a file is missing.",
                  "好的，我来看看。", "Should I also update the docs?", "Fixed. Anything else?", "已完成，测试全部通过。",
                  "The failure is at src/auth/login.py:88."],
}
#: outputs long enough to be watched, with lines a later message names (a path, a line number)
_OUTPUTS = ["tests passed", "error: file not found\nsee the log", "total 0", "\n".join(f"line {n}" for n in range(30)),
            "\n".join([*(f"src/mod_{n}.py: ok" for n in range(40)), "src/auth/login.py:88 AssertionError"])]


@st.composite
def _entries(draw: st.DrawFn, start: int, count: int) -> list[dict]:
    """``count`` entries of an agent's session: messages, tool calls with their results, heartbeats."""
    entries: list[dict] = []
    for n in range(start, start + count):
        turn = draw(st.sampled_from(["user", "assistant", "tool", "heartbeat"]))
        if turn == "tool":  # a provider's call id (call_ and 24 hex digits): it reads as a key to the detectors
            call = "call_" + hashlib.sha256(f"c{n}".encode()).hexdigest()[:24]
            entries.append({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "exec",
                                                              "arguments": {"command": "make test"}}]})
            entries.append({"role": "toolResult", "toolCallId": call, "toolName": "exec",
                            "content": [{"type": "text", "text": draw(st.sampled_from(_OUTPUTS))}]})
        elif turn == "heartbeat":
            entries.append({"role": "user", "content": "Read HEARTBEAT.md if it exists. If nothing needs attention, "
                                                       "reply HEARTBEAT_OK."})
            entries.append({"role": "assistant", "content": "HEARTBEAT_OK"})
        else:
            said = draw(st.lists(st.sampled_from(_SAYS[turn]), min_size=1, max_size=3))
            entries.append({"role": turn, "content": " ".join(said)})
    return entries


def _hold_back(entries: list[dict], data: st.DataObject) -> list[dict]:
    """The check may come right after a tool call, before its output (the agent still runs the
    tool): the drawn entries from one output on are taken off, to open the next append."""
    outputs = [n for n, entry in enumerate(entries) if n and entry["role"] == "toolResult"]
    if not outputs or not data.draw(st.booleans()):
        return []
    at = data.draw(st.sampled_from(outputs))
    held = entries[at:]
    del entries[at:]
    return held


def _write(path: Path, messages: list[dict], *, mode: str = "a", first: int = 0, parent: str | None = None) -> str | None:
    """Append ``messages`` as entries of a linear conversation after ``parent``; the last id."""
    with path.open(mode, encoding="utf-8") as out:
        if mode == "w":
            out.write(json.dumps({"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-29T03:00:00.000Z",
                                  "cwd": "/tmp"}) + "\n")
        for n, message in enumerate(messages, first):
            entry_id = f"e{n}"
            out.write(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                  "timestamp": f"2026-11-29T03:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                                  "message": message}, ensure_ascii=False) + "\n")
            parent = entry_id
    return parent


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), before=st.integers(1, 25), changes=st.lists(
    st.sampled_from(["append", "append", "append", "truncate", "rewrite", "branch", "compaction", "side", "duplicate",
                     "partial"]), min_size=1, max_size=4))
def test_a_random_session_resumed_after_any_change_gives_the_whole_check_byte_for_byte(
        data: st.DataObject, before: int, changes: list[str]) -> None:
    """Random sessions, random appended messages (a tool's output sometimes only after the check),
    and the changes that are not appends (the end
    cut off, an earlier message rewritten in place, a new branch, a compaction, a side entry, an id
    used again, a line cut off mid-write): the resumed check's state file is the whole check's, only
    an append is classified alone, and, in a session no reader warns about, an append is read alone
    (the session is not parsed again from its start)."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "workspace").mkdir()
        paths = Paths.resolve(root / "workspace", root / "state")
        config = config_mod.load(paths.workspace)
        session = root / "session.jsonl"
        entries = data.draw(_entries(0, before))
        held = _hold_back(entries, data)
        leaf = _write(session, entries, mode="w")
        check(paths, config, session, resume=True)
        seen = list(iter_elements(session))
        quiet = True  # a session a reader warns about (a broken line, a parent not in the file…) is read whole
        for number, change in enumerate(changes, 1):
            leaf = _change(session, change, number, leaf, before, data)
            entries = [*held, *data.draw(_entries(1000 * number, data.draw(st.integers(1, 4))))]
            held = _hold_back(entries, data)
            leaf = _write(session, entries, first=1000 * number, parent=leaf)
            rest = None
            if change == "partial":  # a writer caught mid-line: the check sees half an entry, the rest comes later
                line = json.dumps({"type": "message", "id": f"p{number}", "parentId": leaf,
                                   "message": {"role": "user", "content": "Half written."}}) + "\n"
                rest, leaf = line[len(line) // 2:], f"p{number}"
                with session.open("a", encoding="utf-8") as out:
                    out.write(line[:len(line) // 2])
            with _whole_reads() as whole_reads:
                resumed = check(paths, config, session, resume=True)
            whole = check(paths, config, session)
            assert json.dumps(resumed.to_state()) == json.dumps(whole.to_state())
            now = list(iter_elements(session))
            appended = len(now) - len(seen) if now[:len(seen)] == seen else len(now)
            assert resumed.classified == appended
            if change == "append":
                assert resumed.classified < len(now)
                assert whole_reads == ([] if quiet else [session])
            quiet = not read(session).warnings
            if rest is not None:
                with session.open("a", encoding="utf-8") as out:
                    out.write(rest)
            seen = now


def _change(session: Path, change: str, number: int, leaf: str | None, before: int, data: st.DataObject) -> str | None:
    """Make ``change`` to the session before the next messages are appended; the leaf they follow."""
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    extra: dict | None = None
    if change == "truncate":
        session.write_text("".join(lines[:data.draw(st.integers(1, len(lines) - 1))]), encoding="utf-8")
    elif change == "rewrite":  # in place, the same size: only the bytes say it changed
        at = data.draw(st.integers(1, len(lines) - 1))
        session.write_text("".join(lines[:at] + [lines[at].replace("e", "E", 1)] + lines[at + 1:]), encoding="utf-8")
    elif change == "branch":  # the new messages follow an earlier one, not the last
        return f"e{data.draw(st.integers(0, before - 1))}"
    elif change == "compaction":
        extra = {"type": "compaction", "id": f"k{number}", "parentId": leaf, "summary": "Decided: ship on Friday.",
                 "firstKeptEntryId": leaf, "tokensBefore": 1000}
    elif change == "side":  # an entry off the path: the leaf stays where it was
        extra = {"type": "custom", "id": f"side{number}", "parentId": leaf, "customType": "note", "appendMode": "side"}
    elif change == "duplicate":  # an id used again: the earlier entry is no longer the one pi keeps
        extra = {"type": "message", "id": "e0", "parentId": leaf, "message": {"role": "user", "content": "Again."}}
    if extra is not None:
        with session.open("a", encoding="utf-8") as out:
            out.write(json.dumps({**extra, "timestamp": "2026-11-29T05:00:00.000Z"}) + "\n")
        return leaf if change == "side" else extra["id"]
    return leaf


@contextmanager
def _whole_reads() -> Iterator[list[Path]]:
    """The session files read from their first line while in the block."""
    from apollo.transcript import openclaw_index

    reads: list[Path] = []
    original = openclaw_index.build_index

    def spy(lines, where, warnings):
        reads.append(Path(where))
        return original(lines, where, warnings)

    with patch.object(openclaw_index, "build_index", spy):
        yield reads


def test_an_outputs_tokens_are_saved_as_their_digests_and_read_back_whole() -> None:
    """A long output's tokens go in the state as one bytes object, their digests: read back, a
    message naming one finds the lines a fresh index finds, and the digests are saved again as read."""
    import pickle
    import re

    from apollo.renal import concentrate

    anchors = concentrate.load().anchors
    text = "\n".join(f"src/mod_{n}.py: ok build_{n % 3}" for n in range(50))
    index = concentrate.LineIndex.of(text, anchors)
    digests = index.__getstate__()[3]
    tokens = index.asked({word.lower() for word in anchors.token.findall(text)})
    assert len(tokens) > 50 and digests == b"".join(sorted(map(digest64, tokens)))
    assert b"mod_7" not in pickle.dumps(index)
    loaded = pickle.loads(pickle.dumps(index))
    assert loaded.__getstate__() == index.__getstate__()
    assert loaded.asked({"src/mod_7.py", "nowhere.py"}) == {"src/mod_7.py"} and loaded.__getstate__()[3] == digests
    again = pickle.loads(pickle.dumps(index))
    assert again.mention({"src/mod_7.py"}, anchors, text) == index.mention({"src/mod_7.py"}, anchors, text) is True
    assert again.mentioned == index.mentioned and again.anchors == index.anchors
    # a user's token pattern that can span lines: its tokens are digests all the same
    spanning = concentrate.Anchors(re.compile(r"[a-z]+\n[a-z]+|x"), anchors.specific, 1, 2, 0.5)
    index = concentrate.LineIndex.of("ab\ncd x", spanning)
    assert pickle.loads(pickle.dumps(index)).asked({"ab\ncd", "x", "y"}) == {"ab\ncd", "x"}


def _grown_heartbeat(example: Path, text: str) -> tuple[Paths, Path]:
    from apollo.integration import heartbeat

    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    heartbeat.run(paths, config_mod.load(paths.workspace), "en")
    session = paths.sessions_dir / SESSION
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    entry = {"type": "message", "id": "appended3", "parentId": last["id"], "timestamp": "2026-11-29T04:00:00.000Z",
             "message": {"role": "user", "content": text}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
    return paths, session


def test_the_held_elements_are_built_again_only_when_looked_at(example: Path, monkeypatch) -> None:
    """The elements the state holds are read again from their lines only when the classifier or the
    fate stream looks at one: a heartbeat after growth builds few of them, and says what a whole check says."""
    from apollo.integration import heartbeat
    from apollo.transcript import openclaw_tail

    paths, _ = _grown_heartbeat(example, "Any news on the deploy?")
    held: list[int] = []
    deferred = openclaw_tail.deferred
    monkeypatch.setattr(openclaw_tail, "deferred", lambda fill: held.append(1) or deferred(fill))
    built: list[str] = []
    fill_from = openclaw_tail.fill_from
    monkeypatch.setattr(openclaw_tail, "fill_from", lambda element, made: built.append(made.id) or fill_from(element, made))
    beat = heartbeat.run(paths, config_mod.load(paths.workspace), "en")
    assert held and len(built) < len(held)
    assert _numbers_of_state(beat.state) == _numbers(check(paths, config_mod.load(paths.workspace)))


def test_a_held_element_built_unlike_the_saved_one_makes_the_check_a_whole_one(example: Path, monkeypatch) -> None:
    """Never for a session that only grew (its lines are the bytes read before); if it were, the
    state is dropped and the session checked whole, with a whole check's numbers."""
    paths, session = _grown_heartbeat(example, "We decided to ship 2.0 next Monday, did the deploy pass?")
    asked: list[int] = []
    monkeypatch.setattr(check_resume.Saved, "holds", lambda self, position, element: bool(asked.append(position)))
    config = config_mod.load(paths.workspace)
    resumed = check(paths, config, session, resume=True)
    assert asked, "the appended message made no held element be looked at"
    assert resumed.classified == resumed.elements
    assert _numbers(resumed) == _numbers(check(paths, config, session))


def test_a_repeated_call_whose_output_comes_after_the_check_is_revised_as_in_a_whole_check(example: Path) -> None:
    """A check ends right after a tool call made again with the same arguments (``repeat:tool_call``,
    dropped while its output may still say the same): the output arrives only before the next
    check. Providers' call ids (``call_`` and 24 hex digits) read as keys to the secret detectors,
    and the state redacts its strings: the call waiting for its output must still be found, as
    must two such calls waiting at once (an output that changed keeps the repeated call, one
    that did not goes as a copy)."""
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    config = config_mod.load(paths.workspace)

    def call(call_id: str, command: str) -> dict:
        return {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "exec",
                                                  "arguments": {"command": command}}]}

    def output(call_id: str, text: str) -> dict:
        return {"role": "toolResult", "toolCallId": call_id, "toolName": "exec", "content": [{"type": "text", "text": text}]}

    ids = [f"call_{n}e4b07a91c3d58f2a6b0{n}c7e19" for n in range(6)]
    failing = "\n".join(["3 failed, 41 passed", *(f"tests/test_orders.py::test_case_{n} FAILED" for n in range(3))])
    listing = "\n".join(f"drwxr-xr-x  orders_{n}" for n in range(12))
    assert all(check_resume.redact(call_id) != call_id for call_id in ids), "the ids read as no key: the test shows nothing"
    parent = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
    parent = _append(session, parent, "r", [
        {"role": "user", "content": "Please run the order tests and list the order folders."},
        call(ids[0], "pytest tests/test_orders.py"), output(ids[0], failing),
        call(ids[1], "ls orders"), output(ids[1], listing),
        {"role": "assistant", "content": "Three order tests fail; I fixed the rounding, running them again."},
        call(ids[2], "pytest tests/test_orders.py"), call(ids[3], "ls orders")])
    check(paths, config, session, resume=True)
    _append(session, parent, "r", [
        output(ids[2], "44 passed"), output(ids[3], listing),
        {"role": "assistant", "content": "All 44 order tests pass now."},
        {"role": "user", "content": "Great. Now deploy the order service to staging."},
        {"role": "assistant", "content": "Deployed the order service to staging."},
        {"role": "user", "content": "Is the staging health check green?"},
        {"role": "assistant", "content": "Yes, the staging health check is green."}], start=8)
    resumed = check(paths, config, session, resume=True)
    assert resumed.classified == 7
    assert json.dumps(resumed.to_state()) == json.dumps(check(paths, config, session).to_state())


def test_long_hex_topic_words_resume_as_in_a_whole_check(example: Path) -> None:
    """Two commit hashes are topic words, and the secret detectors read 40 hex digits as keys: saved as
    they are, the state would hold one mark for both, and a later message naming them would start a
    topic the whole check does not see. Held as digests, they resume as they were."""
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    config = config_mod.load(paths.workspace)
    first, second = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4"
    assert check_resume.redact(first) != first, "the hash reads as no key: the test shows nothing"
    parent = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
    parent = _append(session, parent, "h", [
        {"role": "user", "content": f"Please fix the crash in builds {first} and {second}."},
        {"role": "assistant", "content": "On it."}])
    check(paths, config, session, resume=True)
    _append(session, parent, "h", [{"role": "user", "content": f"Any news on {first} {second}?"}], start=2)
    resumed = check(paths, config, session, resume=True)
    assert resumed.classified == 1
    assert json.dumps(resumed.to_state()) == json.dumps(check(paths, config, session).to_state())
    saved = b"".join(p.read_bytes() for p in (paths.state_dir / "apollo").glob("check-resume-*"))
    assert first.encode() not in saved and second.encode() not in saved


def test_a_message_saying_a_long_hash_again_is_merged_after_a_resume_as_in_a_whole_check(example: Path) -> None:
    """The filter's repeat history (the content words of the messages past the recent turns) is saved
    too: a commit hash held there as it is would be saved as a mark, and a later message saying the
    same again would not be found to, so the earlier one a whole check merges into it would stay."""
    paths = Paths.resolve(example / "workspace", example / "openclaw-state")
    session = paths.sessions_dir / SESSION
    config = config_mod.load(paths.workspace)
    said = "Deployed build a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 to staging."
    topics = ["invoices", "calendar", "printer", "backups", "newsletter", "garden", "recipes", "taxes",
              "flights", "hotel", "dentist", "piano", "bicycle", "kitchen", "library", "museum"]

    def chat(about: list[str]) -> list[dict]:  # exchanges that push the earlier messages past the recent turns
        return [message for topic in about for message in (
            {"role": "user", "content": f"What about the {topic} plan for {topic} season?"},
            {"role": "assistant", "content": f"The {topic} plan covers {topic} schedules and {topic} budgets."})]

    first = [{"role": "user", "content": "Deploy the latest build to staging."}, {"role": "assistant", "content": said},
             *chat(topics[:8])]
    parent = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
    parent = _append(session, parent, "k", first)
    check(paths, config, session, resume=True)
    _append(session, parent, "k", [{"role": "user", "content": "Which build is on staging now?"},
                                   {"role": "assistant", "content": f"{said} Smoke tests pass."}, *chat(topics[8:])],
            start=len(first))
    resumed = check(paths, config, session, resume=True)
    assert resumed.classified == 18
    assert json.dumps(resumed.to_state()) == json.dumps(check(paths, config, session).to_state())
    # what the states agree on: the earlier report merged into the later one that says it all again
    merged = {fate.element.id: fate.merged_from for fate in filter_path(session, config=config, dry_run=True).fates}
    assert "k1" in merged[f"k{len(first) + 1}"]
