"""Apollo's context engine (the Python half): fates decided once, idempotent turns, whole units,
compaction points, recall, and the JSON-lines process the OpenClaw plugin talks to.

Messages are pi/OpenClaw ``AgentMessage`` objects as OpenClaw hands them to a context engine.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from apollo.integration.engine import (
    CUT_ABOVE,
    ITEM_CHARS,
    MESSAGE_OVERHEAD,
    Engine,
    _standing,
    recall_in_state,
)
from apollo.integration.engine_serve import handle
from apollo.integration.engine_store import Store, default_path
from apollo.redact import redact
from apollo.renal import concentrate
from realclient.support import HEARTBEAT_PROMPT

APOLLO = str(Path(sys.executable).parent / "apollo")


class Conversation:
    """Messages with the keys the plugin would give them (any unique string does)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.clock = 1_775_543_340_000

    def add(self, message: dict[str, Any]) -> dict[str, Any]:
        self.clock += 1000
        message["timestamp"] = self.clock
        self.messages.append(message)
        return message

    def user(self, text: str) -> None:
        self.add({"role": "user", "content": [{"type": "text", "text": text}]})

    def say(self, text: str) -> None:
        self.add({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"})

    def tool(self, call: str, output: str) -> None:
        self.add({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "exec",
                                                    "arguments": {"command": "make check"}}], "stopReason": "toolUse"})
        self.add({"role": "toolResult", "toolCallId": call, "toolName": "exec",
                  "content": [{"type": "text", "text": output}], "isError": False})

    def call(self, call: str, name: str, arguments: dict[str, Any], output: str) -> None:
        """A tool call with these arguments, after a line the agent says, and its output."""
        self.add({"role": "assistant", "content": [{"type": "text", "text": f"Calling {name}."},
                                                   {"type": "toolCall", "id": call, "name": name, "arguments": arguments}],
                  "stopReason": "toolUse"})
        self.add({"role": "toolResult", "toolCallId": call, "toolName": name,
                  "content": [{"type": "text", "text": output}], "isError": False})

    @classmethod
    def of(cls, script: list[tuple[str, str]]) -> Conversation:
        """A conversation from (role, text) pairs; role "tool" is a call with that output, "write" a call
        writing that text."""
        made = cls()
        for n, (role, said) in enumerate(script):
            if role == "user":
                made.user(said)
            elif role == "assistant":
                made.say(said)
            elif role == "write":
                made.call(f"call_{n}", "write", {"path": f"notes/{n}.md", "content": said}, "Successfully wrote the file")
            else:
                made.tool(f"call_{n}", said)
        return made

    @property
    def keys(self) -> list[str]:
        return [f"k{m['timestamp']}" for m in self.messages]

    def assemble(self, engine: Engine, session: str = "s", budget: int | None = 100_000) -> dict[str, Any]:
        return engine.assemble(session, self.keys, dict(enumerate(self.messages)), budget)

    def kept(self, engine: Engine, **options: Any) -> list[dict[str, Any]]:
        return self.given(self.assemble(engine, **options))

    def given(self, result: dict[str, Any]) -> list[dict[str, Any]]:
        """What the plugin hands the model: the kept messages, an old output a compaction point cut as cut."""
        return [{**self.messages[i], "content": result["cut"][str(i)]} if str(i) in result["cut"] else self.messages[i]
                for i in result["keep"]]


def text(message: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    made = Store(default_path(tmp_path / "state"))
    yield made
    made.close()


def _chat() -> Conversation:
    c = Conversation()
    c.user("We deploy with blue-green from now on. please ack")
    c.say("OK")
    c.user("OK")
    c.say("Noted.")
    c.user(HEARTBEAT_PROMPT)
    c.say("HEARTBEAT_OK")
    c.user("I prefer tabs over spaces in Python files.")
    c.say("Understood: tabs in Python files.")
    return c


def test_acknowledgements_and_empty_heartbeats_go_decisions_stay(store: Store) -> None:
    c = _chat()
    kept = [text(m) for m in c.kept(Engine(store))]
    assert kept[0].startswith("We deploy with blue-green")
    assert "OK" not in kept and "HEARTBEAT_OK" not in kept and HEARTBEAT_PROMPT not in kept
    assert "I prefer tabs over spaces in Python files." in kept
    addition = Engine(store).addition("s")
    assert "blue-green" in addition and "tabs over spaces" in addition


def test_a_key_in_a_standing_item_is_redacted_in_the_addition_and_kept_in_the_history(store: Store) -> None:
    # seen on a real session: an agent's report quoting a plugin's token stood, in clear, under Decisions
    key = "sk-FGYOMRU4YYYOWQRSJMJENXZP5U"
    c = Conversation()
    c.user(f"From now on always use this API key for the Kimi plugin: {key}")
    c.say("Understood.")
    kept = [text(m) for m in c.kept(Engine(store))]
    addition = Engine(store).addition("s")
    assert any(key in k for k in kept)  # the history the agent works from is untouched
    assert "Kimi plugin" in addition and "[REDACTED" in addition and key not in addition
    assert "(recall m0)" in addition  # where the whole text is, once the history no longer holds it


def test_a_standing_item_names_the_message_recall_returns_and_never_shows_half_a_key(store: Store) -> None:
    # an agent's report after its thinking: the item is the message's second block, the recall id the message's
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    c = Conversation()
    c.user("Set up the deploy token for the release job.")
    c.tool("call_1", "release job updated")
    c.add({"role": "assistant", "stopReason": "stop", "content": [
        {"type": "thinking", "thinking": "The user wants the token configured."},
        {"type": "text", "text": "Done: configured the release job. " + "It runs on every tag. " * 16
         + f"The token is {key} and it is stored in the job's secrets.\n\nNext run: tonight."}]})
    for n in range(6):
        c.user(f"Question {n}: what does step {n} of the pipeline do?")
        c.say(f"Step {n} builds the package.")
    engine = Engine(store)
    c.assemble(engine)
    line = next(x for x in engine.addition("s").splitlines() if x.startswith("- Done: configured"))
    assert line.endswith(" … (recall m3)") and key[:12] not in line
    assert line.count("[") == line.count("]")  # a mark is shown whole or not at all
    engine.compact("s", 10)  # the report leaves the history: the id it names brings it back whole
    assert key in engine.recall("s", ident="m3")[0]["text"]


def _after_a_long_key(tail: str, at: int) -> str:
    """An agent's report whose ``tail`` starts at character ``at``, after a 440-character key: its mark is short,
    so what the 800 characters read cut through comes into view."""
    first = base64.b64encode(random.Random(5).randbytes(330)).decode()
    opening = f"Done: rotated the keys. Old one {first} "
    return opening + "y" * (at - len(opening) - 1) + f" {tail}"


def _addition_after(store: Store, *exchanges: tuple[str, str]) -> str:
    """The addition once the agent has answered each request with a tool call and then its report."""
    c = Conversation()
    for n, (request, report) in enumerate(exchanges, 1):
        c.user(request)
        c.tool(f"call_{n}", "done")
        c.say(report)
    engine = Engine(store)
    c.assemble(engine)
    return engine.addition("s")


def _shows_a_piece(secret: str, text: str, size: int) -> bool:
    return any(secret[i:i + size] in text for i in range(len(secret) - size + 1))


@settings(max_examples=150, deadline=None)
@given(st.booleans(), st.text(alphabet="ab 试，\n", max_size=1200), st.integers(0, 2**32), st.integers(30, 450),
       st.text(alphabet="cd 试\n", max_size=400))
def test_a_standing_item_never_shows_a_piece_of_a_key_wherever_the_cuts_fall(shrinks: bool, before: str, seed: int,
                                                                            size: int, after: str) -> None:
    # a key of 40 to 600 characters anywhere around the 400-character cut and the 800 characters read, maybe after
    # a long key whose short mark brings later characters into view; keys that redaction of the key alone
    # recognises (a random one of 40 characters is not always random enough)
    rng = random.Random(seed)
    lead = base64.b64encode(rng.randbytes(330)).decode() + " " if shrinks else ""
    key = base64.b64encode(rng.randbytes(size)).decode()
    assume(key not in redact(f"token {key}") and lead.strip() not in redact(lead))
    item = _standing(SimpleNamespace(id="m7:1", text=f"{lead}{before} token {key} {after}"), 7,
                     SimpleNamespace(category="decision", status="current")).text
    assert not _shows_a_piece(key, item, 16)
    shown, _, pointer = item.partition(" (recall ")
    assert "\n" not in item and len(shown.removesuffix(" …")) <= ITEM_CHARS
    assert pointer in ("", "m7)")  # the message's id, which recall takes


@pytest.mark.parametrize("version", [0, 1])  # 0: before 848b742, the text as said; 1: acee20b, lines joined first
def test_a_store_an_earlier_apollo_wrote_has_its_standing_items_made_again_from_their_messages(tmp_path: Path,
                                                                                               version: int) -> None:
    path = default_path(tmp_path / "state")
    key = "sk-FGYOMRU4YYYOWQRSJMJENXZP5U"
    c = Conversation()
    c.user(f"From now on always deploy with\nthe key {key}")
    c.say("Understood.")
    store = Store(path)
    c.assemble(Engine(store))
    fresh = Engine(store).addition("s")
    store.close()
    old = sqlite3.connect(path)  # as an earlier Apollo left it: the key in clear
    old.execute("update standing set text = ?", (f"From now on always deploy with\nthe key {key}",))
    old.execute(f"pragma user_version = {version}")
    old.commit()
    old.close()
    store = Store(path)
    try:
        assert key not in Engine(store).addition("s") and Engine(store).addition("s") == fresh
        assert "(recall m0)" in fresh
    finally:
        store.close()
    assert key.encode() not in path.read_bytes().split(b"From now on always deploy with")[0]  # the item's row


def test_what_lies_before_and_after_an_items_cuts_never_shows_a_key(store: Store) -> None:
    second = "ghp_" + "Zx8CvBn2" * 4 + "Kp5M"
    said = _after_a_long_key(f"{second} is the new one.", 780)
    assert redact(said).count("[REDACTED") == 2
    table = "Done: the accounts are set.\n| Service | DB Password |\n|---|---|\n| prod | Xk9#mP2vLq7 |"
    addition = _addition_after(store, ("Rotate the keys and set up the accounts.", said), ("And the accounts?", table))
    assert "Done: rotated the keys" in addition and "Done: the accounts are set." in addition
    assert not _shows_a_piece(second, addition, 8)
    assert "Xk9#mP2vLq7" not in addition  # a table's secret column, read with its lines


def test_a_passphrase_the_read_cuts_through_is_not_shown_after_a_long_keys_short_mark(store: Store) -> None:
    said = _after_a_long_key('password: "correct horse battery staple" is the new one.', 771)
    assert "correct horse" not in redact(said)
    addition = _addition_after(store, ("Rotate the keys.", said))
    assert "Done: rotated the keys" in addition and "correct horse" not in addition


def test_a_heartbeat_with_something_to_report_keeps_its_content(store: Store) -> None:
    c = Conversation()
    c.user("Check the disk every heartbeat.")
    c.say("Will do.")
    c.user(HEARTBEAT_PROMPT)
    c.say("The disk is 97% full: /var/log holds 40 GB of old logs.")
    kept = [text(m) for m in c.kept(Engine(store))]
    assert "The disk is 97% full: /var/log holds 40 GB of old logs." in kept
    assert HEARTBEAT_PROMPT in kept  # the poll stays with the reply it prompted


def test_fates_are_decided_once_and_the_prefix_stays_byte_identical(store: Store, tmp_path: Path) -> None:
    c = _chat()
    engine = Engine(store)
    first = c.kept(engine)
    c.user("OK thanks")
    c.say("You're welcome.")
    c.user("Which database do we use?")
    second = c.kept(engine)
    assert second[:len(first)] == first
    again = Store(default_path(tmp_path / "state"))  # a restarted process reads the fates back
    try:
        assert c.kept(Engine(again)) == second
    finally:
        again.close()


def test_commit_turn_is_idempotent_by_its_key(store: Store) -> None:
    c = _chat()
    engine = Engine(store)
    pairs = list(zip(c.keys, c.messages, strict=True))
    assert engine.commit("s", "turn-1", pairs[:2]) == "committed"
    assert engine.commit("s", "turn-1", pairs[:2]) == "duplicate"
    assert engine.commit("s", "turn-2", pairs[2:]) == "committed"
    assert len(store.messages("s")) == len(c.messages)
    assert engine.assemble("s", c.keys, {}, None)["keep"]  # no body needed: every message is known


def test_unknown_messages_without_bodies_are_asked_for(store: Store) -> None:
    c = _chat()
    assert Engine(store).assemble("s", c.keys, {0: c.messages[0]}, None) == {"need": list(range(1, len(c.keys)))}


def test_a_tool_call_never_goes_without_its_result(store: Store) -> None:
    c = Conversation()
    for n in range(30):
        c.user(f"Run the checks for module {n} and tell me.")
        c.tool(f"call_{n}", "ok")
        c.say(f"Module {n}: all checks passed.")
    result = c.assemble(Engine(store), budget=400)
    assert result["evicted"] > 0
    kept = [c.messages[i] for i in result["keep"]]
    calls = {b["id"] for m in kept if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"}
    answers = {m["toolCallId"] for m in kept if m["role"] == "toolResult"}
    assert calls == answers and calls


def test_a_compaction_point_evicts_everything_else_before_a_must_keep_item(store: Store) -> None:
    c = Conversation()
    c.user("We decided to use PostgreSQL for the orders service.")
    for n in range(40):
        c.user(f"Here is the log excerpt number {n} from the nightly batch run, nothing unusual in it.")
        c.say(f"Log excerpt {n} looks normal.")
    engine = Engine(store)
    result = c.assemble(engine, budget=600)
    kept = [c.messages[i] for i in result["keep"]]
    assert result["evicted"] > 0 and c.messages[0] in kept
    assert result["tokens"] <= 600
    after = c.assemble(engine, budget=600)
    assert after["evicted"] == 0 and after["keep"] == result["keep"]  # stable again after the point
    assert "PostgreSQL" in engine.addition("s")


def test_one_request_then_a_long_run_is_held_to_the_budget_newest_work_first(store: Store) -> None:
    """A cron job or a build: one request, then hundreds of tool calls in the same turn. The recent
    turns were never evicted, so the run grew past the model's budget (found on real sessions of a
    long agent run: 85,000 tokens kept for a 45,000-token budget); now their oldest units go, calls
    with their results, the request and the newest work stay, and the prefix is stable again after."""
    c = Conversation()
    c.user("From now on, run the nightly scan of the build logs and report every failing job.")
    for n in range(120):
        c.tool(f"call_{n}", "\n".join(f"job-{n}-{line}: build ok in {line * 7 % 300} s" for line in range(40)))
    c.say("Scan finished: job-3-17 failed with 'disk full'; every other job passed.")
    engine = Engine(store)
    budget = 20_000
    result = c.assemble(engine, budget=budget)
    kept = [c.messages[i] for i in result["keep"]]
    assert result["evicted"] > 0 and result["tokens"] <= budget
    assert c.messages[0] in kept and c.messages[-1] in kept and c.messages[-2] in kept  # the request, the newest work
    calls = {b["id"] for m in kept if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"}
    assert calls == {m["toolCallId"] for m in kept if m["role"] == "toolResult"} and "call_119" in calls
    assert "call_0" not in calls  # the oldest work went first
    again = c.assemble(engine, budget=budget)
    assert again["evicted"] == 0 and again["keep"] == result["keep"]
    small = Conversation.of([("user", "Check the build."), ("tool", "ok"), ("assistant", "The build is green.")])
    assert small.assemble(Engine(store), session="t", budget=budget)["evicted"] == 0  # a short turn stays whole


def test_one_huge_output_goes_alone_not_the_small_work_before_it(store: Store) -> None:
    """Evicting oldest first until under the mark took every small unit before one huge output, and
    the user's request with them (a real session: 21 units and the request, where the one 70,000-token
    output was enough); what fits again now stays. The output holds an image, so it cannot be cut
    (the next tests): it goes whole."""
    c = Conversation()
    c.user("Look through the listing exports and tell me which flats are still available.")
    for n in range(10):
        c.tool(f"call_{n}", f"listing {n}: 2 bedrooms, available")
    c.tool("call_big", "\n".join(f"row {n}: flat {n}, sold" for n in range(3000)))
    c.messages[-1]["content"].append({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    for n in range(3):
        c.tool(f"call_after_{n}", f"summary {n}: 3 flats available")
    c.say("Three flats are still available: listings 2, 5 and 7.")
    result = c.assemble(Engine(store), budget=8_000)
    kept = [c.messages[i] for i in result["keep"]]
    calls = {b["id"] for m in kept if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"}
    assert "call_big" not in calls and {f"call_{n}" for n in range(10)} <= calls
    assert c.messages[0] in kept and result["tokens"] <= 8_000
    assert calls == {m["toolCallId"] for m in kept if m["role"] == "toolResult"}


def _log_then_talk(turns: int) -> Conversation:
    """A long build log, the agent naming one line of it, then ``turns`` more exchanges."""
    c = Conversation()
    c.user("Run the nightly build and tell me what failed.")
    c.tool("call_log", "\n".join(f"step {n}: compiled module_{n}.c in {n % 7}.2 s" if n != 173 else
                                 "step 173: FAILED linking libquasar_io.so (undefined symbol qz_flush)"
                                 for n in range(400)))
    c.say("The build failed at libquasar_io.so: the symbol qz_flush is undefined.")
    for n in range(turns):
        c.user(f"Question {n}: which step runs after step {n}?")
        c.say(f"Step {n + 1}.")
    return c


def test_an_old_tool_output_is_cut_at_a_compaction_point_before_anything_goes_whole(store: Store) -> None:
    """The filter's biggest saving, in the loop: a compaction point cuts an old output to its first line
    and the lines later words name, and evicts nothing when that is enough; the cut is stored, so the
    next turns get the same bytes, after a restart too; recall gives the output back whole."""
    c = _log_then_talk(6)
    full = c.assemble(Engine(store), budget=None)
    assert full["cut"] == {} and full["evicted"] == 0
    budget = int(full["tokens"] / 0.95)  # over the compaction mark, and the cut alone brings it under
    engine = Engine(store)
    result = c.assemble(engine, budget=budget)
    assert result["evicted"] == 0 and result["cutNow"] == 1 and result["tokens"] < budget * 0.6
    given = c.given(result)
    assert len(given) == len(c.messages)  # nothing went whole
    index = c.messages.index(next(m for m in c.messages if m["role"] == "toolResult"))
    [cut] = [m for m in given if m["role"] == "toolResult"]
    original = c.messages[index]
    assert {k: v for k, v in cut.items() if k != "content"} == {k: v for k, v in original.items() if k != "content"}
    shown = text(cut)
    assert shown.startswith("step 0: compiled module_0.c") and "step 173: FAILED linking libquasar_io.so" in shown
    assert "step 172:" not in shown and f"(apollo_recall id m{index} returns it whole)" in shown
    assert engine.recall("s", ident=f"m{index}")[0]["message"] == original
    assert engine.recall("s", ident=f"m{index}")[0]["why"].startswith("cut")
    c.user("Thanks, and which step failed?")
    again = c.assemble(engine, budget=budget)
    assert again["cutNow"] == 0 and c.given(again)[:len(given)] == given  # the prefix, byte for byte
    restarted = Engine(store)
    assert c.given(c.assemble(restarted, budget=budget)) == c.given(again)


def test_within_the_budget_old_outputs_are_cut_once_they_hold_a_quarter_of_it(store: Store) -> None:
    """A compaction point of cuts only: one change of the prefix, then the smaller context every turn."""
    c = _log_then_talk(6)
    full = c.assemble(Engine(store), budget=None)
    output = next(i for i, m in enumerate(c.messages) if m["role"] == "toolResult")
    log = Engine(store).store.messages("s")[output].tokens
    assert log < full["tokens"] < log / CUT_ABOVE * 0.9  # within the budget below, the log above a quarter of it
    engine = Engine(store)
    kept = c.assemble(engine, budget=int(log / CUT_ABOVE) + 1)
    assert kept["cut"] == {} and kept["evicted"] == 0  # under a quarter: whole
    result = c.assemble(engine, budget=int(log / CUT_ABOVE) - 1)
    assert result["cutNow"] == 1 and result["evicted"] == 0 and result["tokens"] < full["tokens"] / 4
    c.user("And the step after 173?")
    again = c.assemble(engine, budget=int(log / CUT_ABOVE) - 1)
    assert again["cutNow"] == 0 and c.given(again)[:len(c.given(result))] == c.given(result)


def test_a_cut_that_cannot_be_stored_waits_for_a_later_turn(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    c = _log_then_talk(6)
    c.assemble(Engine(store), budget=None)
    log = store.messages("s")[2].tokens
    engine, save = Engine(store), store.save

    def busy(*args: Any, **kwargs: Any) -> None:
        if kwargs.get("cut"):
            raise sqlite3.OperationalError("database is locked")
        save(*args, **kwargs)

    monkeypatch.setattr(store, "save", busy)
    assert c.assemble(engine, budget=int(log / CUT_ABOVE) - 1)["cutNow"] == 0
    monkeypatch.setattr(store, "save", save)
    assert c.assemble(engine, budget=int(log / CUT_ABOVE) - 1)["cutNow"] == 1  # not taken for one left whole


def test_nothing_is_cut_while_the_context_is_within_its_budget_nor_in_the_recent_turns(store: Store) -> None:
    c = _log_then_talk(6)
    assert c.assemble(Engine(store), budget=1_000_000)["cut"] == {}
    recent = _log_then_talk(1)  # the log is within the latest user turns: the agent may still work from it
    recent.assemble(Engine(store), session="r", budget=None)
    assert Engine(store).compact("r", None)["cut"] == 0  # /compact keeps the recent turns whole


def test_compact_cuts_old_outputs_too(store: Store) -> None:
    c = _log_then_talk(6)
    c.assemble(Engine(store), budget=None)
    result = Engine(store).compact("s", None)
    assert result["compacted"] and result["cut"] == 1 and result["tokensAfter"] < result["tokensBefore"] / 2


def _write_plan(c: Conversation) -> None:
    """The agent writing a 60-step plan to docs/plan.md in one call (one long argument)."""
    plan = "\n".join(f"{n}. Move table t_{n} to the new cluster and check its row count." for n in range(60))
    c.call("call_write", "write", {"path": "docs/plan.md", "content": plan}, "Successfully wrote 4,170 bytes")


def _writes_then_talk(turns: int) -> Conversation:
    """A plan written whole, then edited (a long passage replaced by another), then ``turns`` exchanges."""
    c = Conversation()
    c.user("Write the migration plan to docs/plan.md, then replace its rollback section.")
    _write_plan(c)
    rollback = "\n".join(f"Rollback {n}: restore t_{n} from the nightly snapshot." for n in range(20))
    c.call("call_edit", "edit", {"path": "docs/plan.md", "oldText": rollback, "newText": rollback.replace("nightly", "hourly")},
           "Successfully replaced text in docs/plan.md.")
    c.say("The plan is written and its rollback now uses the hourly snapshots.")
    for n in range(turns):
        c.user(f"Question {n}: how many tables move in step {n}?")
        c.say("One.")
    return c


def test_an_old_tool_calls_long_arguments_keep_their_head_at_a_compaction_point(store: Store) -> None:
    """As the filter cuts an old call: a long argument keeps its head, an edit's replaced text goes, its new
    text stays whole, with the way back after each marker; the call's id, name and short arguments and the
    agent's words beside it as they were; recall gives the message back whole; the next turns, and a
    restarted engine, get the same bytes."""
    c = _writes_then_talk(6)
    full = c.assemble(Engine(store), budget=None)
    engine = Engine(store)
    result = c.assemble(engine, budget=int(full["tokens"] / 0.95))
    assert result["evicted"] == 0 and result["cutNow"] == 2 and result["tokens"] < full["tokens"] * 0.6
    write, edit = (c.messages.index(m) for m in c.messages if m["role"] == "assistant" and len(m["content"]) == 2)
    given = {i: m for i, m in zip(result["keep"], c.given(result), strict=True)}
    for index in (write, edit):
        original, cut = c.messages[index], given[index]
        assert {k: v for k, v in cut.items() if k != "content"} == {k: v for k, v in original.items() if k != "content"}
        assert cut["content"][0] == original["content"][0]
        assert {k: v for k, v in cut["content"][1].items() if k != "arguments"} == \
            {k: v for k, v in original["content"][1].items() if k != "arguments"}
        assert engine.recall("s", ident=f"m{index}")[0]["message"] == original
        assert "argument" in engine.recall("s", ident=f"m{index}")[0]["why"]
    pointer = "(apollo_recall id m{} returns it whole)"
    written = given[write]["content"][1]["arguments"]
    assert written["path"] == "docs/plan.md" and written["content"].startswith("0. Move table t_0 to the new cluster")
    assert written["content"].endswith(pointer.format(write)) and "t_59" not in written["content"]
    edited, before = given[edit]["content"][1]["arguments"], c.messages[edit]["content"][1]["arguments"]
    assert edited["newText"] == before["newText"] and edited["path"] == "docs/plan.md"
    assert "Rollback" not in edited["oldText"] and edited["oldText"].endswith(pointer.format(edit))
    c.user("Is the plan final?")
    again = c.assemble(engine, budget=int(full["tokens"] / 0.95))
    assert again["cutNow"] == 0 and c.given(again)[:len(given)] == list(given.values())  # the prefix, byte for byte
    assert c.given(c.assemble(Engine(store), budget=int(full["tokens"] / 0.95))) == c.given(again)


def test_a_call_within_the_recent_turns_or_with_short_arguments_stays_whole(store: Store) -> None:
    recent = _writes_then_talk(1)  # the agent may still work from what it just wrote
    recent.assemble(Engine(store), session="r", budget=None)
    assert Engine(store).compact("r", None)["cut"] == 0
    c = Conversation()
    c.user("Add the three paragraphs to the notes.")
    paragraph = "The cluster moves table by table, each checked by its row count before the next one starts. " * 3
    for n in range(3):  # long messages (candidates), whose arguments hold no string over the limit
        c.call(f"call_{n}", "append", {"path": "notes.md", "first": paragraph, "second": paragraph}, "appended")
    for n in range(6):
        c.user(f"Anything else {n}?")
        c.say("No.")
    c.assemble(Engine(store), budget=None)
    engine = Engine(store)
    calls = [r.seq for r in store.messages("s") if r.role == "assistant" and r.seq < 6]
    long_enough = MESSAGE_OVERHEAD + concentrate.load()["tool_keep_tokens"]  # to be tried: they are
    assert len(calls) == 3 and all(r.tokens > long_enough for r in store.messages("s") if r.seq in calls)
    assert engine.compact("s", None)["cut"] == 0 and set(calls) <= engine.session("s").whole


def test_within_the_budget_old_calls_are_cut_with_the_old_outputs(store: Store) -> None:
    """A compaction point of cuts only (the old outputs over a quarter of the budget) cuts the old calls' long
    arguments too."""
    c = Conversation()
    c.user("Write the migration plan to docs/plan.md.")
    _write_plan(c)
    rest = _log_then_talk(6)
    for message in rest.messages:
        c.add(message)
    full = c.assemble(Engine(store), budget=None)
    log = next(r for r in store.messages("s") if r.role == "toolResult" and r.tokens > 1000).tokens
    budget = int(log / CUT_ABOVE) - 1
    assert full["tokens"] < budget * 0.9  # within the budget: no eviction
    engine = Engine(store)
    result = c.assemble(engine, budget=budget)
    assert result["cutNow"] == 2 and result["evicted"] == 0
    assert {c.messages[int(i)]["role"] for i in result["cut"]} == {"assistant", "toolResult"}


def test_the_calls_of_the_run_the_model_is_in_are_never_changed(store: Store) -> None:
    """A long run (one request, many writes) over its share of the budget: its older units may go whole, but a
    call of it is never cut (a provider may check the run's messages as it signed them); its outputs may be."""
    c = Conversation()
    c.user("Write the forty chapter files.")
    for n in range(40):
        chapter = "\n".join(f"Chapter {n}, line {k}: the cluster moves table t_{k}." for k in range(40))
        c.call(f"call_{n}", "write", {"path": f"book/ch{n}.md", "content": chapter}, f"Successfully wrote ch{n}.md")
    full = c.assemble(Engine(store), budget=None)
    engine = Engine(store)
    result = c.assemble(engine, budget=int(full["tokens"] / 2))
    assert result["evicted"] > 0 and result["tokens"] <= full["tokens"] / 2
    assert not [i for i in result["cut"] if c.messages[int(i)]["role"] == "assistant"]
    other = Conversation()  # the same calls before a later request: they are cut
    for message in c.messages:
        other.add(dict(message))
    for n in range(5):
        other.user(f"Is chapter {n} final?")
        other.say("Yes.")
    full = other.assemble(Engine(store), session="t", budget=None)
    cut = other.assemble(Engine(store), session="t", budget=int(full["tokens"] / 2))["cut"]
    assert [i for i in cut if other.messages[int(i)]["role"] == "assistant"]


def test_a_cut_another_engine_made_first_is_the_one_the_model_gets(tmp_path: Path) -> None:
    """Two engines on one file (two OpenClaw processes on one state dir): the second, whose state predates
    the first one's cut, gets the stored cut, not one of its own (the first one's model has those bytes)."""
    path = default_path(tmp_path / "state")
    first, second = Store(path), Store(path)
    try:
        c = _log_then_talk(6)
        tokens = c.assemble(Engine(first), budget=None)["tokens"]
        one, other = Engine(first), Engine(second)
        one.session("s"), other.session("s")
        mine = c.given(c.assemble(one, budget=int(tokens / 0.95)))
        c.user("Did module_250.c compile?")  # seen by the second only: its own cut would keep that line
        answer = c.assemble(other, budget=int(tokens / 0.95))
        theirs = c.given(answer)
        assert answer["cutNow"] == 1  # what its model gets changed at this turn, whoever cut it
        assert [m for m in theirs if m["role"] == "toolResult"] == [m for m in mine if m["role"] == "toolResult"]
        assert c.given(c.assemble(Engine(first), budget=int(tokens / 0.95))) == theirs
    finally:
        first.close()
        second.close()


def test_a_plugin_that_does_not_hand_cuts_on_gets_none_and_whole_counts(store: Store) -> None:
    """A gateway still running the plugin of an earlier Apollo spawns this engine after an upgrade: it
    ignores ``result.cut``, so nothing is cut for it, and outputs another plugin's cut count whole."""
    c = _log_then_talk(6)
    tokens = c.assemble(Engine(store), budget=None)["tokens"]
    earlier = Engine(store)
    request = {"op": "assemble", "session": "s", "keys": c.keys, "bodies": {}, "budget": int(tokens / 0.95)}
    answer = handle(earlier, request)
    assert answer["cut"] == {} and answer["cutNow"] == 0 and answer["evicted"] > 0
    fresh = Conversation()
    fresh.messages = [dict(m, timestamp=m["timestamp"] + 10**7) for m in c.messages]  # another session's keys
    full = fresh.assemble(Engine(store), session="t", budget=None)["tokens"]
    assert fresh.assemble(Engine(store), session="t", budget=int(full / 0.95))["cutNow"] == 1
    answer = handle(Engine(store), {**request, "session": "t", "keys": fresh.keys, "budget": None})
    assert answer["cut"] == {} and answer["tokens"] == full
    assert handle(Engine(store), {**request, "session": "t", "keys": fresh.keys, "budget": None, "cut": True})["cut"]
    one = Engine(store)  # a process whose client changes: each request is answered as that client reads it
    assert handle(one, {**request, "session": "t", "keys": fresh.keys, "budget": None})["tokens"] == full
    assert handle(one, {**request, "session": "t", "keys": fresh.keys, "budget": None, "cut": True})["tokens"] < full


@pytest.mark.parametrize("broken", ['[filter.anchors]\ntoken = "([unclosed"\n',
                                    '[filter]\ntool_recall_en = "(recall {idx})"\n', '[filter]\ntool_marker_zh = "{"\n'])
def test_a_broken_filter_rule_file_leaves_the_outputs_whole_and_the_budget_held(tmp_path: Path, broken: str) -> None:
    from apollo import config as config_mod

    workspace = tmp_path / "ws"
    (workspace / ".apollo").mkdir(parents=True)
    (workspace / ".apollo" / "config.toml").write_text('[renal]\nrule_files = ["mine.toml"]\n', encoding="utf-8")
    (workspace / ".apollo" / "mine.toml").write_text(broken, encoding="utf-8")
    store = Store(default_path(tmp_path / "state"))
    try:
        engine = Engine(store, config_mod.load(workspace))
        c = _log_then_talk(6)
        tokens = c.assemble(engine, budget=None)["tokens"]
        result = c.assemble(engine, budget=int(tokens / 0.95))
        assert result["cutNow"] == 0 and result["evicted"] > 0 and result["tokens"] <= tokens / 0.95 * 0.6
    finally:
        store.close()


def test_a_store_an_apollo_before_cuts_wrote_gets_the_column(tmp_path: Path) -> None:
    from apollo.integration.engine_store import SCHEMA

    path = default_path(tmp_path / "state")
    path.parent.mkdir(parents=True)
    old = sqlite3.connect(path)
    old.executescript("\n".join(line for line in SCHEMA.splitlines() if not line.startswith("    cut")))
    assert not {"cut", "cut_tokens"} & {row[1] for row in old.execute("pragma table_info(messages)")}
    old.close()
    store = Store(path)
    try:
        c = _log_then_talk(6)
        tokens = c.assemble(Engine(store), budget=None)["tokens"]
        assert c.assemble(Engine(store), budget=int(tokens / 0.95))["cutNow"] == 1
        assert [r.cut for r in Store(path).messages("s")].count(True) == 1
    finally:
        store.close()


def test_the_recent_share_counts_the_request_and_keeps_the_newest_work_whatever_follows(store: Store) -> None:
    """The user's latest message stays and counts towards the recent share (a 30,000-token pasted log
    plus the newest 40% had stayed over a 45,000-token budget); the newest unit stays even when a
    dropped acknowledgement follows it; /compact keeps the recent turns whole, as it always has."""
    c = Conversation()
    c.user("Here is the log, find the failing job:\n" + "\n".join(
        f"line {n}: job-{n} status ok duration {n * 7 % 300}s" for n in range(2500)))
    for n in range(90):
        c.tool(f"call_{n}", "\n".join(f"job-{n}-{line}: build ok" for line in range(40)))
    c.say("job-17 failed: disk full.")
    engine = Engine(store)
    result = c.assemble(engine, budget=45_000)
    assert result["tokens"] <= 45_000 and 0 in result["keep"] and result["evicted"] > 0
    run = Conversation()
    run.user("Run the scan.")
    for n in range(5):
        run.tool(f"c{n}", "word " * 50)
    run.tool("big", "\n".join(f"row {n}: ok" for n in range(1500)))
    run.say("OK.")  # dropped: it must not stand in for the newest unit
    kept = run.kept(Engine(store), session="run", budget=8_200)
    assert any(m.get("toolCallId") == "big" for m in kept)
    long_run = Conversation()
    long_run.user("Run the nightly scan and report every failing job.")
    for n in range(40):
        long_run.tool(f"call_{n}", "\n".join(f"job-{n}-{line}: build ok" for line in range(40)))
    compacting = Engine(store)
    long_run.assemble(compacting, session="compact", budget=None)
    assert compacting.compact("compact", 20_000)["evicted"] == 0  # all of it is the recent turns


def test_compact_is_deterministic_and_keeps_every_must_keep_item(tmp_path: Path) -> None:
    outcomes = []
    for n in range(2):
        store = Store(default_path(tmp_path / f"state{n}"))
        c = Conversation()
        c.user("We decided to use PostgreSQL for the orders service.")
        for i in range(12):
            c.user(f"Status update {i}: the nightly batch finished without errors.")
            c.say("Noted, thanks.")
        engine = Engine(store)
        c.assemble(engine)
        summary = engine.compact("s", None)
        outcomes.append((summary, c.assemble(engine)["keep"]))
        assert summary["compacted"] and summary["tokensAfter"] < summary["tokensBefore"]
        assert 0 in outcomes[-1][1] and "PostgreSQL" in summary["summary"]
        store.close()
    assert outcomes[0] == outcomes[1]


def test_recall_returns_what_was_dropped_verbatim(store: Store, tmp_path: Path) -> None:
    c = _chat()
    engine = Engine(store)
    c.assemble(engine)
    found = engine.recall("s", query="heartbeat_ok")  # newest first: the reply, then the poll that asked for it
    assert [f["text"] for f in found] == ["HEARTBEAT_OK", HEARTBEAT_PROMPT]
    assert [f["message"] for f in found] == [c.messages[5], c.messages[4]]
    assert engine.recall("s", ident=found[0]["id"]) == found[:1]
    assert engine.recall("s", ident=c.keys[5]) == found[:1]  # the message's own key names it too
    # an id names one removed message: a kept one (m0, the blue-green rule) or none gives nothing,
    # and the query is not read beside it
    assert engine.recall("s", ident="m0") == engine.recall("s", ident="m99", query="ok") == []
    assert engine.recall("s", query="blue-green") == []  # kept, so nothing to recall
    recalled = recall_in_state(tmp_path / "state", query="ok", limit=10)
    assert recalled["session"] == "s" and {f["text"] for f in recalled["found"]} >= {"OK"}


def test_serve_speaks_json_lines_and_ends_with_its_stdin(tmp_path: Path) -> None:
    c = _chat()
    requests = [{"id": 1, "op": "ping"},
                {"id": 2, "op": "assemble", "session": "s", "keys": c.keys,
                 "bodies": {str(i): m for i, m in enumerate(c.messages)}, "budget": 100000},
                {"id": 3, "op": "commit", "session": "s", "turn": "t1", "keys": c.keys[:1], "bodies": {}},
                {"id": 4, "op": "commit", "session": "s", "turn": "t1", "keys": c.keys[:1], "bodies": {}},
                {"id": 5, "op": "recall", "session": "s", "query": "OK"},
                {"id": 6, "op": "frobnicate", "session": "s"}]
    done = subprocess.run([APOLLO, "engine", "serve", "--state-dir", str(tmp_path / "state")],
                          input="\n".join(json.dumps(r) for r in requests) + "\n", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4, 5, 6]
    assert answers[1]["result"]["keep"][0] == 0 and answers[1]["result"]["dropped"] >= 4
    assert [answers[2]["result"]["status"], answers[3]["result"]["status"]] == ["committed", "duplicate"]
    assert answers[4]["result"]["found"]
    assert answers[5]["ok"] is False and "frobnicate" in answers[5]["error"]
    assert (tmp_path / "state" / "apollo" / "engine.sqlite").is_file()


def test_half_an_emoji_in_a_message_does_not_shut_the_engine_out_of_the_session(tmp_path: Path) -> None:
    """JSON.stringify writes a lone surrogate (an emoji a truncation cut in two, seen in a real session) as an
    escape that orjson refuses: the request is read as pi reads the line, with U+FFFD in its place, else
    every later turn of that session, whose history keeps the message, would fail open."""
    c = _chat()
    c.user("Which flags does the dry run take? \ud83d\u2026")  # (the truncation's "…" after the half)
    c.say("Noted \ud83d")
    requests = [{"id": 1, "op": "assemble", "session": "s", "keys": c.keys,
                 "bodies": {str(i): m for i, m in enumerate(c.messages)}, "budget": 100000},
                {"id": 2, "op": "recall", "session": "s", "query": "noted"}]
    line = "\n".join(json.dumps(r) for r in requests) + "\n"  # ASCII: the surrogate escaped, as JSON.stringify does
    assert "\\ud83d\\u2026" in line
    done = subprocess.run([APOLLO, "engine", "serve", "--state-dir", str(tmp_path / "state")], input=line,
                          capture_output=True, text=True, timeout=60)
    answers = [json.loads(answer) for answer in done.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [True, True], answers
    assert len(c.messages) - 2 in answers[0]["result"]["keep"]  # the question reaches the model, as it came
    # the acknowledgement went, and comes back with U+FFFD for its half
    assert "Noted \ufffd" in [found["text"] for found in answers[1]["result"]["found"]]


def test_a_question_answered_in_the_same_batch_no_longer_stands(store: Store) -> None:
    """A session the engine learns at once (its first turn on an existing transcript) settles what
    later messages settle, as it does turn by turn: the answered question leaves the standing context,
    the standing rule stays."""
    c = Conversation()
    c.user("Which port does the staging server listen on?")
    c.say("It listens on 8443.")
    c.user("From now on always restart staging after a deploy.")
    c.say("Understood: I will restart staging after every deploy.")
    c.assemble(Engine(store))
    addition = Engine(store).addition("s")
    assert "restart staging after a deploy" in addition
    assert "Which port" not in addition


def test_a_proposal_the_user_accepts_becomes_a_standing_decision(store: Store) -> None:
    """The agent's proposal is no decision until the user accepts it; then it stands, whether the
    acceptance comes in the same batch or a turn later."""
    c = Conversation()
    c.user("The cache keeps timing out under load.")
    c.say("I suggest we move the cache to Redis with a 5 minute TTL.")
    c.assemble(Engine(store))
    assert "Redis" not in Engine(store).addition("s")
    c.user("ok")
    c.assemble(Engine(store))
    assert "### Decisions\n- I suggest we move the cache to Redis" in Engine(store).addition("s")


_MESSAGE = st.one_of(
    st.tuples(st.just("user"), st.sampled_from(["OK", "thanks!", "We decided to ship on Fridays.",
                                                 "I prefer short answers.", "Can you check the build?",
                                                 HEARTBEAT_PROMPT])),
    st.tuples(st.just("assistant"), st.sampled_from(["OK", "Noted.", "HEARTBEAT_OK", "The build is green.",
                                                      "Disk 97% full on /var."])),
    st.tuples(st.just("tool"), st.sampled_from(["ok", "3 tests failed", "", "\n".join(
        f"job {n}: {'failed on /var/log/app.log' if n == 7 else 'passed'}" for n in range(120))])),
    st.tuples(st.just("write"), st.sampled_from(["short", "\n".join(f"{n}. Move table t_{n}." for n in range(80))])))

_TALK = st.one_of(
    st.tuples(st.just("user"), st.sampled_from(["Which port does staging use?", "yes", "no, keep it", "ok",
                                                 "We decided to ship on Fridays.", "Can you check the build?",
                                                 "From now on always run the linter first.", "thanks!"])),
    st.tuples(st.just("assistant"), st.sampled_from(["Staging uses 8443.", "Shall I restart staging?",
                                                      "Done: the build is green.", "OK", "Which branch?",
                                                      "I suggest we move the cache to Redis."])),
    st.tuples(st.just("tool"), st.sampled_from(["ok", "3 tests failed"])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=st.lists(_TALK, min_size=1, max_size=24))
def test_learning_at_once_or_turn_by_turn_gives_the_same_standing_context(
        tmp_path_factory: pytest.TempPathFactory, script: list[tuple[str, str]]) -> None:
    c = Conversation.of(script)
    folder = tmp_path_factory.mktemp("standing")
    at_once, stepwise = Store(default_path(folder / "a")), Store(default_path(folder / "b"))
    try:
        c.assemble(Engine(at_once))
        engine = Engine(stepwise)
        for end in range(1, len(c.messages) + 1):
            head = Conversation()
            head.messages = c.messages[:end]
            head.assemble(engine)
        assert Engine(at_once).addition("s") == Engine(stepwise).addition("s") == engine.addition("s")
    finally:
        at_once.close()
        stepwise.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=st.lists(_MESSAGE, min_size=1, max_size=40), cut=st.integers(0, 40),
       budget=st.sampled_from([None, 60, 200, 600, 100_000]))
def test_any_conversation_keeps_its_invariants(tmp_path_factory: pytest.TempPathFactory,
                                                script: list[tuple[str, str]], cut: int, budget: int | None) -> None:
    c = Conversation.of(script)
    store = Store(default_path(tmp_path_factory.mktemp("prop")))
    try:
        engine = Engine(store)
        head = Conversation()
        head.messages = c.messages[:cut]
        before = head.kept(engine, budget=budget) if head.messages else []
        points = len([r for r in store.messages("s") if r.evicted or r.cut])
        result = c.assemble(engine, budget=budget)
        kept = c.given(result)
        if len([r for r in store.messages("s") if r.evicted or r.cut]) == points:  # no new compaction point
            assert kept[:len(before)] == before
        calls = {b["id"] for m in kept if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"}
        assert calls == {m["toolCallId"] for m in kept if m["role"] == "toolResult"}
        asked = max((i for i, m in enumerate(c.messages) if m["role"] == "user"), default=-1)
        for index, content in result["cut"].items():  # a cut: the same message, shorter, and whole on recall
            original = c.messages[int(index)]
            assert engine.recall("s", ident=f"m{index}")[0]["message"] == original
            if original["role"] == "assistant":
                assert int(index) < asked and len(content) == len(original["content"])
                for made, was in zip(content, original["content"], strict=True):
                    assert {k: v for k, v in made.items() if k != "arguments"} == \
                        {k: v for k, v in was.items() if k != "arguments"} and made.keys() == was.keys()
            else:
                assert original["role"] == "toolResult"
    finally:
        store.close()


def test_the_engines_store_is_private_to_its_user(tmp_path: Path) -> None:
    """It keeps every message verbatim (recall returns them byte for byte): owner-only, its journal too."""
    import os
    import stat

    store = Store(default_path(tmp_path / "state"))
    store.save("s1", [], [], turn="t1")
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700
    for made in store.path.parent.iterdir():
        assert stat.S_IMODE(os.stat(made).st_mode) == 0o600, made.name
    store.close()


def test_a_custom_message_is_read_as_the_file_reader_reads_its_entry(store: Store) -> None:
    # OpenClaw hands the engine its custom messages as they are (role "custom"): the runtime's copy of the agent's
    # yield message is not the user's order, and a poll in runtime context is a poll
    c = Conversation()
    c.user("Make me a deck on the Q3 results, ten slides")
    c.call("call_1", "sessions_yield", {"message": "Rebuild the deck with the blue theme"}, '{"status":"yielded"}')
    c.add({"role": "custom", "customType": "openclaw.sessions_yield", "display": False,
           "content": "Rebuild the deck with the blue theme\n\n[Context: The previous turn ended intentionally via "
                      "sessions_yield while waiting for a follow-up event.]"})
    c.add({"role": "custom", "customType": "openclaw.runtime-context", "display": False, "content": HEARTBEAT_PROMPT})
    c.say("HEARTBEAT_OK")
    c.user("ok")
    result = c.assemble(Engine(store))
    assert "Rebuild the deck" not in Engine(store).addition("s")
    kept = [m for m in c.given(result) if m["role"] == "custom"]
    assert kept == []  # the runtime's copy and the empty poll are noise, as in a file
