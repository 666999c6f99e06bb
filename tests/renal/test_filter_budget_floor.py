"""A budget never empties the conversation: a huge tool output in the recent tail is cut before any
message goes, and the user's latest request always stays — on real pi session files."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo.renal.filter import filter_path
from apollo.transcript.openclaw_rules import rules
from realclient.support import PiSession


def _session(tmp_path: Path, blob: str) -> tuple[Path, list[str], str]:
    session = PiSession()
    users = []
    for number in range(5):
        users.append(session.user(f"Fetch report {number} for the board meeting on May {number + 3}."))
        session.say(f"Report {number} fetched; 12 pages, saved to reports/r{number}.pdf.")
    users.append(session.user("Now dump the whole export so we can check the totals."))
    session.tool("call_1", "exec", {"command": "cat export.json"}, blob)
    session.say("The export is loaded; the totals are in its last record.")
    return session.write(tmp_path / "s.jsonl"), users, users[-1]


def _ids(path: Path) -> set[str]:
    return {json.loads(line).get("id") for line in path.read_text(encoding="utf-8").splitlines()}


def _big_json(records: int) -> str:
    return json.dumps([{"id": i, "name": f"item{i}", "price": i * 7 % 1000 / 10} for i in range(records)],
                      separators=(",", ":"))


def test_a_huge_single_line_output_in_the_tail_is_cut_before_any_message_goes(tmp_path: Path) -> None:
    path, users, last = _session(tmp_path, _big_json(8000))
    result = filter_path(path, "openclaw", keep_ratio=0.5, output=tmp_path / "out.jsonl")
    kept = _ids(result.output_path)
    assert set(users) <= kept
    budget = result.report["budget"]
    assert budget["met"] and budget["tokens"] <= budget["target"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=200, max_value=20000), st.sampled_from([0.05, 0.2, 0.5]))
def test_the_latest_request_survives_any_budget(tmp_path_factory, records: int, ratio: float) -> None:
    folder = tmp_path_factory.mktemp("floor")
    path, _, last = _session(folder, _big_json(records))
    result = filter_path(path, "openclaw", keep_ratio=ratio, output=folder / "out.jsonl")
    assert last in _ids(result.output_path)
    budget = result.report["budget"]
    assert budget["met"] == (budget["tokens"] <= budget["target"])


def test_compaction_under_a_budget_keeps_the_latest_request_in_the_context(tmp_path: Path) -> None:
    path, _, last = _session(tmp_path, _big_json(6000))
    result = filter_path(path, "openclaw", mode="compact", keep_ratio=0.05, output=tmp_path / "out.jsonl")
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    compaction = [e for e in entries if e.get("type") == "compaction"][-1]
    order = [e.get("id") for e in entries]
    tail = order[order.index(compaction["firstKeptEntryId"]):]
    assert last in tail or "Now dump the whole export so we can check the totals." in compaction["summary"]


def test_a_budget_below_the_must_keep_names_what_it_dropped_and_why(tmp_path: Path) -> None:
    from apollo.renal.report import render

    session = PiSession()
    rules = [session.user(text) for text in (
        "From now on, always write the weekly reports in French.", "Never deploy anything to production on Fridays.",
        "Always copy Maria on every invoice you send.", "From now on, keep the staging database backups for 30 days.",
        "Never schedule calls before 10am.")]
    session.say("Understood, all five rules noted.")
    result = filter_path(session.write(tmp_path / "r.jsonl"), "openclaw", budget=30, output=tmp_path / "out.jsonl")
    budget = result.report["budget"]
    dropped = budget["must_keep_dropped"]
    assert dropped and rules[-1] not in dropped and budget["met"]  # never the latest request
    text = render(result.report, "en")
    assert "they alone exceed the budget" in text and all(element in text for element in dropped)
    cut = {item["id"]: item for item in budget["must_keep_cut"]}
    assert list(cut) == dropped
    preferences = [item for item in cut.values() if item["category"] == "preference"]
    assert preferences and all(item["why"] == "least_informative" for item in preferences)
    assert all(f"{item['id']} (preference, told the least per token)" in text for item in preferences)
    chinese = render(result.report, "zh")
    assert all(f"{item['id']}（偏好，每token信息量最少，先删）" in chinese for item in preferences)


def test_a_finished_request_outlasts_the_tool_chatter_it_caused(tmp_path: Path) -> None:
    """A task the agent reported done is outdated, but what the user asked still tells the reader what
    the work was for ("not this cron job, the other one"): under a budget the calls that did the work
    go before the words that asked for it."""
    session = PiSession()
    requests = []
    for number in range(4):
        requests.append(session.user(f"run the backup job number {number} manually now, not the nightly one"))
        for step in range(3):
            session.tool(f"c{number}{step}", "exec", {"command": f"ls -la /srv/backup/{number}/{step} && du -sh ."},
                         f"total {step}\n" + "\n".join(f"-rw-r--r-- 1 root root {i * 97} part{i}.tar" for i in range(6)))
        session.say(f"Done ✅ backup job {number} ran manually and finished.")
    session.user("thanks, what is left on the disk now?")
    session.say("About 41 GB are free on /srv.")
    path = session.write(tmp_path / "s.jsonl")
    result = filter_path(path, "openclaw", keep_ratio=0.3, output=tmp_path / "out.jsonl")
    kept = _ids(result.output_path)
    calls_kept = sum(f"c{n}{s}" in json.dumps([json.loads(line) for line in result.output_path.read_text().splitlines()])
                     for n in range(4) for s in range(3))
    assert calls_kept < 12  # the budget had to take some of the work
    assert set(requests) <= kept


def _discord(number: int, words: str) -> str:
    """A user message as OpenClaw's Discord channel writes it: metadata blocks, then the words."""
    info = {"message_id": f"14780{number:05d}", "sender_id": "7297030870", "conversation_label":
            "Guild #projects channel id:1477913956", "sender": "7297030870", "group_subject": "#projects",
            "group_channel": "#projects", "group_space": "1475377083", "is_group_chat": True}
    sender = {"label": "owner", "name": "owner", "username": "owner", "tag": "owner"}
    return (f"Conversation info (untrusted metadata):\n```json\n{json.dumps(info, indent=2)}\n```\n\n"
            f"Sender (untrusted metadata):\n```json\n{json.dumps(sender, indent=2)}\n```\n\n{words}")


def test_under_a_budget_the_metadata_blocks_give_way_before_the_users_words(tmp_path: Path) -> None:
    """Short replies in a Discord channel cost less than the metadata blocks around them: a budget
    had dropped half of them whole ("Leave the clients folder.") and kept the others' blocks."""
    session = PiSession()
    said = ["Leave the clients folder.", "Still working. We ended for the day, back on Thursday morning.",
            "Merge projects.md into the tracker.", "Domain is bought, the password is lost, helping him now."]
    users = []
    for number, words in enumerate(said * 3):
        users.append(session.user(_discord(number, f"{words} (item {number})")))
        session.say(f"Noted ({number}). I updated the project file with it and will keep the tracker current "
                    "so the next session starts from the same place; nothing else changed in the folder.")
    path = session.write(tmp_path / "s.jsonl")
    result = filter_path(path, "openclaw", keep_ratio=0.5, output=tmp_path / "out.jsonl")
    assert result.report["budget"]["met"]
    lines = {json.loads(line)["id"]: line for line in result.output_path.read_text(encoding="utf-8").splitlines()}
    assert set(users) <= set(lines)  # every message of the user's stays
    leaned = [u for u in users[:-3] if "message_id" not in lines[u]]
    assert leaned  # the older ones without their blocks' ids
    assert "message_id" in lines[users[-1]]  # the message the agent answers keeps its ids (react, pin by id)
    for user in users:  # who said it stays: in a group chat the blocks alone name the sender
        envelope, _ = rules().split_envelope(json.loads(lines[user])["message"]["content"][0]["text"])
        assert '"name": "owner"' in envelope

