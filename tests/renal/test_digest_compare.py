"""tools/compare_compactions.py measures Apollo's digest against OpenClaw's own summary of the same
history fairly: what both keep after ``firstKeptEntryId`` counts on neither side, a message of the
replaced history Apollo keeps counts on Apollo's, and an item is carried only where it is stated."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from realclient.support import PiSession


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "tools" / "compare_compactions.py"
    spec = importlib.util.spec_from_file_location("compare_compactions", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _session(tail_extra: str | None = None) -> tuple[PiSession, str]:
    session = PiSession()
    session.user("[Wed 2026-02-04 10:20 GMT+11] From now on, never book meetings before 10:00 on Mondays.")
    session.say("Understood: no meetings before 10:00 on Mondays.")
    session.user("Which region is the backup bucket in?")
    session.say("The backup bucket lives in eu-central-2. " + "It is replicated nightly to a second region. " * 12)
    first_kept = session.user("Next: the weekly report.")
    session.say("On it: the weekly report goes out on Friday.")
    if tail_extra is not None:
        session.user(tail_extra)
        session.say("Noted.")
    session.compaction("The user set a rule about Monday meetings and asked about the backup bucket.", first_kept)
    return session, first_kept


def test_what_both_keep_after_the_cut_counts_on_neither_side(tool: ModuleType) -> None:
    short, _ = _session()
    long, _ = _session("Please also archive these notes: " + " ".join(f"note {n} about the quarterly budget"
                                                                      for n in range(200)))
    [before], [after] = tool.compare(short.lines()), tool.compare(long.lines())
    assert before["apollo_tokens"] == after["apollo_tokens"] > 0
    assert before["openclaw_tokens"] == after["openclaw_tokens"] > 0


def test_a_message_of_the_replaced_history_apollo_keeps_counts_on_its_side(tool: ModuleType) -> None:
    session, _ = _session()
    [row] = tool.compare(session.lines())
    parts = row["apollo_parts"]
    assert row["kept_messages"] > 0 and parts["kept messages"] > 0
    # the breakdown accounts for every token, give or take the joins between its lines
    assert abs(sum(parts.values()) - row["apollo_tokens"]) <= 0.05 * row["apollo_tokens"]


def test_an_item_is_carried_where_it_is_stated_not_by_words_found_anywhere(tool: ModuleType) -> None:
    item = "never book meetings before 10:00 on Mondays"
    stated = tool._tokens("The rules so far. " + item + ". Then a long list follows: "
                          + " ".join(f"entry {n} of the inventory" for n in range(300)))
    scattered = tool._tokens(" ".join(f"{word} entry {n} of the inventory" for n, word in enumerate(
        item.split() * 3)) + " " + " ".join(f"entry {n}" for n in range(300)))
    assert tool._carried(item, stated)
    assert not tool._carried(item, scattered)
    assert tool._carried("", scattered)


def test_the_breakdown_counts_what_answered_an_item_apart(tool: ModuleType) -> None:
    text = ("[apollo renal digest] head\n\n## Decisions\n- [a1] \"Use Postgres 16.\" → [b2] Done: migrated.\n"
            "- [a3] \"Keep the cache.\"")
    parts = tool.breakdown(text, [])
    assert set(parts) == {"head", "decision", "decision: answers"}
    assert parts["decision: answers"] == len(tool.ENCODE(" → [b2] Done: migrated.\n"))
    assert parts["decision"] == sum(len(tool.ENCODE(line)) for line in (
        "## Decisions\n", '- [a1] "Use Postgres 16."', '- [a3] "Keep the cache."\n'))
