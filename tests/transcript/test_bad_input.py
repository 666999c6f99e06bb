"""Damaged transcripts: every problem is a warning with file and line, the rest is read, nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apollo import transcript
from apollo.transcript import Edit
from realclient.support import PiSession


def _damaged(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    s = PiSession()
    s.user("first")
    s.say("second")
    s.user("third")
    s.say("fourth")
    lines = [line.encode() for line in s.lines()]
    extra = {
        "malformed": b'{"type":"message","id":"x1",',
        "utf8": b'{"type":"message","id":"bad\xff\xfe","parentId":null}',
        "dangling": json.dumps({"type": "message", "id": "orphan", "parentId": "gone", "timestamp": "2026-04-07T07:00:00Z",
                                "message": {"role": "user", "content": "orphaned", "timestamp": 1}}).encode(),
        "cycle": json.dumps({"type": "message", "id": "c1", "parentId": "c2", "timestamp": "2026-04-07T07:00:00Z",
                             "message": {"role": "user", "content": "loop", "timestamp": 1}}).encode()
                 + b"\n" + json.dumps({"type": "message", "id": "c2", "parentId": "c1", "timestamp": "2026-04-07T07:00:00Z",
                                        "message": {"role": "user", "content": "loop", "timestamp": 1}}).encode(),
        "huge": json.dumps({"type": "custom", "id": "big", "parentId": "00000004", "timestamp": "2026-04-07T07:00:00Z",
                            "customType": "blob", "data": "x" * (10 * 1024 * 1024)}).encode(),
        "array": b"[1, 2, 3]",
    }
    where: dict[str, int] = {}
    body = lines[:3]
    for name, raw in extra.items():
        where[name] = len(body) + 1
        body.extend(raw.split(b"\n"))
    body.extend(lines[3:])
    where["truncated"] = len(body) + 1
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"\n".join(body) + b'\n{"type":"message","id":"cut","parentId":"00000004","mess')
    return path, where


def test_each_problem_is_reported_with_file_and_line(tmp_path: Path) -> None:
    path, where = _damaged(tmp_path)
    t = transcript.read(path)
    by_line = {}
    for warning in t.warnings:
        assert warning.path == str(path)
        by_line.setdefault(warning.line, []).append(warning.message)
    assert "malformed JSON" in by_line[where["malformed"]][0]
    assert "invalid UTF-8" in by_line[where["utf8"]][0]
    assert "not in the file" in by_line[where["dangling"]][0]
    assert any("cycle" in m for m in by_line[where["cycle"]])
    assert "very large record (10.0 MiB)" in by_line[where["huge"]][0]
    assert "not an object" in by_line[where["array"]][0]
    assert "truncated last line" in by_line[where["truncated"]][0]
    texts = [e.text for e in t.elements]
    assert texts[:4] == ["first", "second", "third", "fourth"] or set(texts) >= {"first", "second", "third", "fourth"}
    assert all(e.in_context for e in t.elements if e.text in ("first", "second", "third", "fourth"))
    assert str(t.warnings[0]).startswith(f"{path}:")


def test_rewrite_carries_bad_lines_and_repairs_the_tree(tmp_path: Path) -> None:
    path, _ = _damaged(tmp_path)
    out = tmp_path / "out.jsonl"
    transcript.write(path, out, {"00000002": Edit("drop")})
    raw_in, raw_out = path.read_bytes().split(b"\n"), out.read_bytes().split(b"\n")
    for bad in (b'{"type":"message","id":"x1",', b'{"type":"message","id":"bad\xff\xfe","parentId":null}',
                b"[1, 2, 3]", b'{"type":"message","id":"cut","parentId":"00000004","mess'):
        assert bad in raw_in and bad in raw_out
    records = [json.loads(line) for line in raw_out if line.startswith(b"{") and line.endswith(b"}")
               and b"\xff" not in line]
    by_id = {r["id"]: r for r in records if "id" in r and r.get("type") != "session"}
    assert by_id["00000003"]["parentId"] == "00000001"  # re-parented past the dropped entry
    assert by_id["orphan"]["parentId"] is None  # dangling parent: a root now, as pi read it
    assert None in (by_id["c1"]["parentId"], by_id["c2"]["parentId"])  # cycle cut
    assert transcript.read(out).warnings  # bad lines are still there and still reported
    assert not any("cycle" in w.message or "not in the file" in w.message for w in transcript.read(out).warnings)


def test_unedited_damaged_file_round_trips_byte_for_byte(tmp_path: Path) -> None:
    path, _ = _damaged(tmp_path)
    transcript.write(path, tmp_path / "same.jsonl", {})
    assert (tmp_path / "same.jsonl").read_bytes() == path.read_bytes()


def test_broken_header_gets_a_header_on_rewrite(tmp_path: Path) -> None:
    s = PiSession()
    s.user("a")
    s.say("b")
    lines = s.lines()
    lines[0] = lines[0][:20]
    path = tmp_path / "0d2f7c1e-4b5a-4c3d-9e8f-112233445566.jsonl"
    path.write_text("\n".join(lines) + "\n")
    t = transcript.read(path)
    assert any("TRUNCATE" in w.message for w in t.warnings)
    out = tmp_path / "fixed.jsonl"
    transcript.write(path, out, {"00000002": Edit("replace", text="B")})
    first = json.loads(out.read_text().splitlines()[0])
    assert first["type"] == "session" and first["id"] == "0d2f7c1e-4b5a-4c3d-9e8f-112233445566"
    assert out.read_text().splitlines()[1] == lines[0]


@pytest.mark.parametrize("fmt", ["claude-code", "jsonl"])
def test_other_jsonl_formats_survive_garbage(tmp_path: Path, fmt: str) -> None:
    good = {"claude-code": b'{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}',
            "jsonl": b'{"id":"u1","role":"user","text":"hi"}'}[fmt]
    path = tmp_path / "g.jsonl"
    path.write_bytes(good + b"\n\xff\xfe garbage\n{\"unterminated\": \n" + good.replace(b"u1", b"u2") + b"\n{\"x")
    t = transcript.read(path, fmt)
    assert [e.id for e in t.elements] == ["u1", "u2"]
    assert {w.line for w in t.warnings} >= {2, 3, 5}
    transcript.write(path, tmp_path / "o.jsonl", {"u1": Edit("drop")}, fmt)
    rest = b"\xff\xfe garbage\n{\"unterminated\": \n" + good.replace(b"u1", b"u2") + b"\n{\"x"
    assert (tmp_path / "o.jsonl").read_bytes() == rest  # u1 dropped, everything else byte for byte
