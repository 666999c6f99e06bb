"""Issue 12, finding 7: corrupt means unrecoverable. A torn last line is cut off (the file stays,
its good lines byte for byte, the old file in the snapshot); text in another encoding is text;
heartbeat logs by any spelling are pruned entry by entry, never removed whole."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.autophagy import checks
from apollo.autophagy.entries import cut
from autophagy.support import DAY, tree


def _jsonl(lines: int) -> bytes:
    return b"".join(json.dumps({"ts": f"2026-11-{1 + i % 27:02d}T08:00:00Z", "n": i}).encode() + b"\n"
                    for i in range(lines))


def test_a_torn_last_line_is_cut_and_the_rest_kept(ws) -> None:
    good = _jsonl(198)
    torn = ws.put("heartbeat.jsonl", good + b'{"ts": "2026-11-2')
    big_good = _jsonl(5000)
    big = ws.put("data/events.jsonl", big_good + b'{"n": 5000, "te')
    made = ws.plan("medium")
    assert {(i.rel, i.action) for i in made.items} == {("heartbeat.jsonl", "cut"), ("data/events.jsonl", "cut")}
    result = ws.execute(made.plan_id)
    assert torn.read_bytes() == good and big.read_bytes() == big_good
    snapshot = ws.workspace / result["snapshot"]
    manifest = json.loads((snapshot / "manifest.json").read_text())
    copies = {e["path"]: (snapshot / e["file"]).read_bytes() for e in manifest["entries"]}
    assert copies["heartbeat.jsonl"] == good + b'{"ts": "2026-11-2'


def test_a_line_cut_short_in_the_middle_is_cut_out_and_odd_files_left_alone(ws) -> None:
    data = _jsonl(6) + b'{"ts": "2026-11-22T16:17:12Z", "e\n' + _jsonl(3)
    mixed = ws.put("data/mixed.jsonl", data)
    pretty = b'[\n  {"a": 1},\n  {"b": 2}\n]\n'  # pretty-printed JSON saved as .jsonl: not torn records
    ws.put("data/pretty.jsonl", pretty)
    ws.put("data/rubbish.jsonl", b"\x00\x00\x00 not json\nnor this\n")
    made = ws.plan("medium")
    assert sorted((i.rel, i.action) for i in made.items) == [("data/mixed.jsonl", "cut"), ("data/rubbish.jsonl", "unlink")]
    ws.execute(made.plan_id)
    assert mixed.read_bytes() == _jsonl(6) + _jsonl(3)
    assert (ws.workspace / "data/pretty.jsonl").read_bytes() == pretty


def test_text_in_another_encoding_is_not_corrupt(ws) -> None:
    files = {
        "notes/latin1.md": "Réunion à 14h — café, crème brûlée\n".replace("—", "-").encode("latin-1"),
        "heartbeat-notes.md": "# Notes\n\nÉtat: très bien\n".encode("latin-1"),
        "data/sales.csv": "name;price\nCafé;3,50 €\n“quoted”;1\n".encode("cp1252"),
        "notes/french.txt": "Les élèves ont étudié à l'école.\n".encode("cp1252"),
        "notes/ends-in-latin1.txt": b"just ascii then caf\xe9",
        "notes/utf16-no-bom.txt": "Notes en UTF-16, sans BOM\n".encode("utf-16-le"),
        "data/pretty.jsonl": b'[\n  {"a": 1},\n  {"b": 2},\n]\n',
    }
    for rel, data in files.items():
        ws.put(rel, data)
    before = tree(ws.workspace)
    made = ws.plan("medium")
    assert made.items == []
    assert {k: v for k, v in tree(ws.workspace).items() if not k.startswith(".autophagy")} == before
    assert all((ws.workspace / rel).read_bytes() == data for rel, data in files.items())


def test_a_journal_whose_last_character_was_cut_loses_only_that_character(ws) -> None:
    text = "2026-11-20 今天的日记：一切顺利。\n2026-11-21 明天继续写".encode()
    journal = ws.put("journal.md", text[:-1])
    made = ws.plan("medium")
    assert [(i.rel, i.action) for i in made.items] == [("journal.md", "cut")]
    ws.execute(made.plan_id)
    assert journal.read_bytes() == text[:-3]


def test_heartbeat_logs_by_any_name_are_pruned_never_removed_whole(ws) -> None:
    body = "2026-09-01T08:00:00Z old entry\n2026-11-28T08:00:00Z recent entry\n"
    names = ["Heartbeat.log", "agent-heartbeat.log", "heartbeat/2026-11.log", "logs/HEARTBEAT-main.log"]
    for rel in names:
        ws.put(rel, body, age=5 * DAY)
    ws.put("old-server.log", "x\n", age=5 * DAY)
    result = ws.small()
    assert "old-server.log" in result["deleted"]
    for rel in names:
        assert (ws.workspace / rel).read_text() == "2026-11-28T08:00:00Z recent entry\n", rel


_LINE = st.dictionaries(st.sampled_from(["ts", "n", "msg"]), st.integers() | st.text(max_size=8), min_size=1)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=12), st.lists(st.tuples(st.integers(0, 12), st.binary(max_size=20)), max_size=3))
def test_property_a_repair_keeps_every_good_line_byte_for_byte(records, damage) -> None:
    """Whatever is cut, what is left is exactly the good records, in order, and parses."""
    lines = [json.dumps(r).encode() + b"\n" for r in records]
    for index, junk in damage:
        lines.insert(min(index, len(lines)), b"{" + junk.replace(b"\n", b"").replace(b"\r", b"") + b"\n")
    data = b"".join(lines)
    cuts = checks.torn_parts("jsonl", data)
    if cuts:
        left = cut(data, cuts)
        good = b"".join(json.dumps(r).encode() + b"\n" for r in records)
        assert all(line in data for line in left.splitlines(keepends=True))
        assert checks.torn_parts("jsonl", left) == [] and checks.check_jsonl(left) is None
        assert len(left) >= len(good) or left == good
    assert checks.torn_parts("jsonl", b"".join(json.dumps(r).encode() + b"\n" for r in records)) == []


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=40), st.integers(min_value=1, max_value=3))
def test_property_text_repair_drops_only_a_cut_character(text, drop) -> None:
    data = text.encode()
    short = data[:-drop] if len(data) > drop else data
    cuts = checks.torn_parts("utf8", short)
    if cuts:
        assert cuts == [(cuts[0][0], len(short))] and len(short) - cuts[0][0] <= 3
        assert data.startswith(cut(short, cuts)) and cut(short, cuts).decode("utf-8")
