"""Property tests: round trips are byte-identical, edited pi sessions keep a valid tree, parsers never crash."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from apollo import transcript
from apollo.errors import InputError
from apollo.transcript import Edit
from apollo.transcript.tree import find_cycle_members

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
EXAMPLE_STATE = Path(__file__).resolve().parents[2] / "examples" / "openclaw-state"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
json_values = st.recursive(st.none() | st.booleans() | st.integers() | texts,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
                           max_leaves=6)


@st.composite
def pi_sessions(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """A v3 session with random entries, branches, tool pairs, unknown fields/types and bad lines."""
    ids: list[str] = []
    lines = [json.dumps({"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-04-07T06:29:00.000Z",
                         "cwd": "/w", **draw(st.dictionaries(st.sampled_from(["x", "y"]), json_values, max_size=1))},
                        ensure_ascii=draw(st.booleans()), separators=(",", ":"))]
    calls = 0
    for n in range(draw(st.integers(1, 14))):
        entry_id = f"e{n}"
        parent = draw(st.sampled_from([ids[-1]] if ids else [None])) if draw(st.integers(0, 4)) else \
            draw(st.sampled_from([None, "missing", *ids]))
        kind = draw(st.sampled_from(["user", "assistant", "tool", "meta", "unknown", "compaction", "bad"]))
        base = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-04-07T06:30:00.000Z"}
        if kind == "bad":
            lines.append(draw(st.sampled_from(['{"type":"message"', "not json", "[1]", '{"id": 5}'])))
            continue
        if kind == "user":
            content = draw(texts) if draw(st.booleans()) else [{"type": "text", "text": draw(texts)}]
            base["message"] = {"role": "user", "content": content, "timestamp": 1}
        elif kind in ("assistant", "tool"):
            calls += 1
            blocks = [{"type": "text", "text": draw(texts)}] * draw(st.integers(0, 2))
            blocks = blocks + [{"type": "toolCall", "id": f"call{calls}", "name": "exec", "arguments": {"q": draw(texts)}}]
            base["message"] = {"role": "assistant", "content": blocks, "provider": "p", "model": "m", "timestamp": 1,
                               **draw(st.dictionaries(st.sampled_from(["usage", "extra"]), json_values, max_size=2))}
            lines.append(json.dumps(base, ensure_ascii=False, separators=(",", ":")))
            ids.append(entry_id)
            entry_id = f"r{n}"
            base = {"type": "message", "id": entry_id, "parentId": ids[-1], "timestamp": "2026-04-07T06:30:01.000Z",
                    "message": {"role": "toolResult", "toolCallId": f"call{calls}", "toolName": "exec",
                                "content": [{"type": "text", "text": draw(texts)}], "isError": False, "timestamp": 2}}
        elif kind == "compaction" and ids:
            base = {"type": "compaction", "id": entry_id, "parentId": parent, "timestamp": "2026-04-07T06:31:00.000Z",
                    "summary": draw(texts), "firstKeptEntryId": draw(st.sampled_from(ids)), "tokensBefore": 5}
        elif kind == "unknown":
            base = {"type": "future_" + draw(st.sampled_from(["a", "b"])), "id": entry_id, "parentId": parent,
                    "timestamp": "2026-04-07T06:31:00.000Z", "payload": draw(json_values)}
        else:
            base = {"type": "model_change", "id": entry_id, "parentId": parent, "timestamp": "2026-04-07T06:31:00Z",
                    "provider": "p", "modelId": draw(texts)}
        lines.append(json.dumps(base, ensure_ascii=draw(st.booleans()), separators=(",", ":")))
        ids.append(entry_id)
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    body = ending.join(lines) + draw(st.sampled_from([ending, ""]))
    return body.encode("utf-8", "surrogatepass"), ids


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    """A fresh folder per hypothesis example (pytest's tmp_path is per test, not per example)."""
    with tempfile.TemporaryDirectory(prefix="apollo-prop-") as folder:
        yield Path(folder)


@SETTINGS
@given(pi_sessions())
def test_pi_round_trip_is_byte_identical(session: tuple[bytes, list[str]]) -> None:
    raw, _ = session
    with _scratch() as folder:
        source = folder / "s.jsonl"
        source.write_bytes(raw)
        list(transcript.iter_elements(source))
        transcript.write(source, folder / "o.jsonl", {})
        assert (folder / "o.jsonl").read_bytes() == raw


@SETTINGS
@given(pi_sessions(), st.data())
def test_edited_pi_sessions_keep_a_valid_tree(session: tuple[bytes, list[str]], data: st.DataObject) -> None:
    raw, _ = session
    with _scratch() as folder:
        source = folder / "s.jsonl"
        source.write_bytes(raw)
        elements = transcript.read(source).elements
        if not elements:
            return
        dropped = data.draw(st.sets(st.sampled_from([e.id for e in elements]), min_size=1, max_size=len(elements)))
        out = folder / "o.jsonl"
        transcript.write(source, out, {element_id: Edit("drop") for element_id in dropped})
        out_lines = out.read_bytes().splitlines(keepends=True)
        in_lines = raw.splitlines(keepends=True)
        records = []
        for line in out_lines:
            try:
                value = json.loads(line)
            except ValueError:
                assert line in in_lines  # an unparseable line is carried through unchanged
                continue
            if isinstance(value, dict) and isinstance(value.get("id"), str) and value.get("type") != "session":
                records.append(value)
        assert json.loads(out_lines[0])["type"] == "session"
        by_id = {r["id"]: r for r in records}
        parents = {r["id"]: r.get("parentId") for r in records}
        assert all(p is None or p in by_id for p in parents.values())  # no dangling parent
        assert not find_cycle_members(parents)  # no cycle
        call_ids = {b["id"] for r in records for b in (r.get("message") or {}).get("content") or []
                    if isinstance(b, dict) and b.get("type") == "toolCall" and (r.get("message") or {}).get("role") == "assistant"}
        result_ids = {r["message"]["toolCallId"] for r in records if (r.get("message") or {}).get("role") == "toolResult"}
        assert call_ids == result_ids  # every call kept with its result, and the other way round
        after = transcript.read(out).elements
        assert len(after) <= len(elements) - len(dropped)
        # block ids are positions, so a later block of a partly edited message moves up; entry ids never do
        whole = {e.id for e in elements if e.id == e.record_id and sum(x.record_id == e.id for x in elements) == 1}
        assert not (dropped & whole & {e.record_id for e in after})
        in_ids = {json.loads(line).get("id") for line in in_lines if line.strip().startswith(b"{")
                  and _is_object(line)}
        for line in out_lines:  # a line not copied byte for byte is an input entry we had to change
            if line not in in_lines:
                assert json.loads(line).get("id") in in_ids


def _is_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=60) | st.text(max_size=60).map(str.encode), max_size=8),
       st.sampled_from(["openclaw", "claude-code", "jsonl", "openai", "markdown"]))
def test_parsers_never_crash_on_arbitrary_bytes(chunks: list[bytes], fmt: str) -> None:
    with _scratch() as folder:
        source = folder / ("x.md" if fmt == "markdown" else "x.jsonl")
        source.write_bytes(b"\n".join(chunks))
        try:
            elements = transcript.read(source, fmt).elements
        except InputError:
            assert fmt == "openai"  # one JSON document: a clear error, not a traceback
            return
        transcript.write(source, folder / "o", {}, fmt)
        assert (folder / "o").read_bytes() == source.read_bytes()
        if elements and fmt != "openai":
            transcript.write(source, folder / "o2", {elements[0].id: Edit("drop")}, fmt)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "tool"]),
                                       "content": texts | st.lists(st.fixed_dictionaries({"type": st.just("text"),
                                                                                          "text": texts}), max_size=2)}),
                max_size=6), st.booleans())
def test_openai_round_trip(messages: list[dict], wrapped: bool) -> None:
    with _scratch() as folder:
        source = folder / "m.json"
        source.write_text(json.dumps({"messages": messages} if wrapped else messages, ensure_ascii=False, indent=2))
        elements = transcript.read(source, "openai").elements
        transcript.write(source, folder / "o.json", {})
        assert (folder / "o.json").read_bytes() == source.read_bytes()
        if elements:
            transcript.write(source, folder / "o2.json", {elements[-1].id: Edit("replace", text="X")})
            assert transcript.read(folder / "o2.json", "openai").elements[-1].text == "X"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["# Title", "## 14:30 决定", "- item one", "  - nested", "  continued", "",
                                 "plain paragraph", "```", "code line", "1. numbered", "- [ ] todo", "---",
                                 "<!--", "-->", "Setext title", "=====", "-----"]),
                max_size=14), st.sampled_from(["\n", "\r\n"]), st.data())
def test_markdown_round_trip_and_drops(lines: list[str], ending: str, data: st.DataObject) -> None:
    with _scratch() as folder:
        source = folder / "2026-04-07.md"
        source.write_bytes(ending.join(lines).encode() + ending.encode())
        elements = transcript.read(source).elements
        transcript.write(source, folder / "o.md", {})
        assert (folder / "o.md").read_bytes() == source.read_bytes()
        if elements:
            victim = data.draw(st.sampled_from(elements))
            transcript.write(source, folder / "d.md", {victim.id: Edit("drop")})
            after = [(e.text, e.extra["block"]) for e in transcript.read(folder / "d.md").elements]
            before = [(e.text, e.extra["block"]) for e in elements if e.id != victim.id]
            # the other blocks read as they were: a drop never joins the two it stood between
            assert sorted(after) == sorted(before), (victim.text, (folder / "d.md").read_text())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["# Title", "- item", "plain paragraph", "", "Setext title\n-----"]),
                          st.lists(st.sampled_from(["comment words", "", "- not an item"]), max_size=4)
                          .map(lambda inner: "\n".join(["<!--", *inner, "-->"]))), max_size=10), st.data())
def test_a_comment_or_a_setext_heading_is_dropped_whole(blocks: list[str], data: st.DataObject) -> None:
    """Property (fourth review): an HTML comment over blank lines was split into blocks, and dropping one
    left a "<!--" that hid the rest of the file; a setext heading's underline was a paragraph's text."""
    with _scratch() as folder:
        source = folder / "MEMORY.md"
        source.write_text("\n".join(blocks) + "\n")
        elements = transcript.read(source).elements
        assume(elements)
        assert all(e.extra["block"] == "heading" for e in elements if e.text == "Setext title")
        victim = data.draw(st.sampled_from(elements))
        transcript.write(source, folder / "d.md", {victim.id: Edit("drop")})
        out = (folder / "d.md").read_text()
        assert out.count("<!--") == out.count("-->")
        assert out.count("Setext title") == out.count("-----")


@pytest.mark.parametrize("sample", sorted(SAMPLES.glob("claude-code/*.jsonl")) or [None])
def test_real_claude_code_samples_round_trip(sample: Path | None, tmp_path: Path) -> None:
    if sample is None:
        pytest.skip(f"no samples at {SAMPLES} (shared/ is beside the checkout on dev machines and CI)")
    transcript.write(sample, tmp_path / "o.jsonl", {})
    assert (tmp_path / "o.jsonl").read_bytes() == sample.read_bytes()


def test_example_state_dir_sessions_round_trip(tmp_path: Path, example_tree: Path) -> None:
    sessions = sorted((example_tree / "openclaw-state").glob("agents/*/sessions/*.jsonl*"))
    if not sessions:
        pytest.skip("examples/make_examples.py built no sessions")
    for session in sessions:
        t = transcript.read(session)
        assert t.format == "openclaw" and t.elements
        transcript.write(session, tmp_path / "o.jsonl", {})
        assert (tmp_path / "o.jsonl").read_bytes() == session.read_bytes()


def test_a_drop_that_brings_a_break_to_the_top_does_not_make_it_front_matter(tmp_path: Path) -> None:
    """Found by the property above: dropping the first heading must not turn `---` into front matter."""
    source = tmp_path / "2026-04-07.md"
    source.write_text("# Title\n---\n```\n---\n# Title\n", encoding="utf-8")
    before = [e.text for e in transcript.read(source).elements]
    transcript.write(source, tmp_path / "d.md", {"L1": Edit("drop")})
    assert [e.text for e in transcript.read(tmp_path / "d.md").elements] == before[1:]


@SETTINGS
@given(ids=st.lists(st.sampled_from(["call_1", "call_2"]), min_size=1, max_size=6), data=st.data())
def test_a_call_id_used_again_pairs_each_result_with_its_own_call(tmp_path: Path, ids: list[str],
                                                                 data: st.DataObject) -> None:
    """Some providers reuse tool call ids (an Ollama model's did, in a real session): dropping a
    later call takes only its own result, never the result of an earlier call with the same id,
    which would leave that call unanswered in the file."""
    from realclient.support import PiSession

    s = PiSession()
    s.user("check the files")
    pairs = [s.tool(call_id, "read", {"path": f"f{n}"}, f"output {n}") for n, call_id in enumerate(ids)]
    s.say("done")
    dropped = data.draw(st.sets(st.sampled_from(range(len(pairs)))))
    source = s.write(tmp_path / f"s{len(ids)}-{sorted(dropped)}.jsonl")
    out = tmp_path / f"o{len(ids)}-{sorted(dropped)}.jsonl"
    transcript.write(source, out, {pairs[n][0]: Edit("drop") for n in dropped})
    kept = {json.loads(line)["id"] for line in out.read_text().splitlines()}
    for n, (call, result) in enumerate(pairs):
        assert (call in kept) == (result in kept) == (n not in dropped)


def test_a_drop_never_opens_a_comment_nor_makes_a_heading(tmp_path: Path) -> None:
    """Fourth review: a comment opened after text ("Status: done <!-- notes") was split from its "-->"; a
    dropped item put "Done today:" right above "---", a setext heading; "> quote" over "---" is no heading."""
    source = tmp_path / "MEMORY.md"
    source.write_text("Status: done <!-- reviewer notes\n- check the logs\n-->\n## Next\n- deploy on Friday\n\n"
                      "Done today:\n- shipped the parser\n---\nTomorrow: tests\n\n> a quote\n---\n")
    assert not any(e.text.startswith("> a quote") and e.extra["block"] == "heading"
                   for e in transcript.read(source).elements)
    for victim in transcript.read(source).elements:
        transcript.write(source, tmp_path / "d.md", {victim.id: Edit("drop")})
        out = (tmp_path / "d.md").read_text()
        assert out.count("<!--") == out.count("-->"), (victim.text, out)
        assert "Done today:\n---" not in out, (victim.text, out)


@pytest.mark.parametrize(("text", "victim_text"), [
    ("- item one\n# Title\n  continued\n", "Title"),  # "  continued" would go on the item
    ("Done today:\n- shipped\n=====\n", "shipped"),  # "Done today:" a setext heading
    ("---\n# Title\n---\n---\n---\n", "# Title"),  # the next "---" pair read as front matter
])
def test_a_drop_leaves_the_blocks_around_it_as_they_were(tmp_path: Path, text: str, victim_text: str) -> None:
    source = tmp_path / "MEMORY.md"
    source.write_text(text)
    elements = transcript.read(source).elements
    victim = next(e for e in elements if e.text == victim_text)
    transcript.write(source, tmp_path / "d.md", {victim.id: Edit("drop")})
    after = [(e.text, e.extra["block"]) for e in transcript.read(tmp_path / "d.md").elements]
    assert after == [(e.text, e.extra["block"]) for e in elements if e is not victim]
