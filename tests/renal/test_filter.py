"""``apollo renal filter``: shortening, budgets, output contracts, modes and the CLI, on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import transcript
from apollo.errors import UsageError
from apollo.renal import budget as budget_mod
from apollo.renal.condense import Condenser
from apollo.renal.filter import filter_path
from apollo.renal.report import render
from apollo.tokens import get_counter
from renal.filter_support import build

CONDENSER = Condenser()
CHAT = [
    ("user", "Caroline", "Hey Mel! Good to see you! How have you been?"),
    ("assistant", "Melanie", "Hey Caroline! I'm swamped with the kids & work. What's up with you? Anything new?"),
    ("user", "Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
    ("assistant", "Melanie", "Wow, that's cool, Caroline! What happened that was so awesome?"),
    ("user", "Caroline", "The transgender stories were so inspiring! [shares a photo of a painting of a woman]"),
    ("assistant", "Melanie", "That's really cool. You've got guts."),
    ("user", "Caroline", "Thanks!"),
    ("assistant", "Melanie", "I ran a charity race for mental health last Saturday, 5 km in 31 minutes."),
    ("user", "Caroline", "Gonna continue my edu and check out counseling certification options next month."),
    ("assistant", "Melanie", "Sounds great! Keep it up!"),
]


def _chat(path: Path, turns=CHAT) -> Path:
    path.write_text("".join(json.dumps({"id": f"D1:{i + 1}", "role": role, "speaker": speaker, "text": text}) + "\n"
                            for i, (role, speaker, text) in enumerate(turns)), encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- shortening -----------------------------------------------------------------------------------------
def test_ladder_removes_chatter_first_and_keeps_facts() -> None:
    text = "Hey Jon! I went to the Louvre with my sister last week and we did not see the Mona Lisa."
    forms = dict(CONDENSER.ladder(text, ["Jon"]))
    assert list(forms) == ["tidy", "terse", "compact", "notes"]
    assert forms["tidy"].startswith("I went to the Louvre")
    assert "Louvre" in forms["notes"] and "not" in forms["notes"] and "last week" in forms["notes"]
    lengths = [len(t) for t in forms.values()]
    assert lengths == sorted(lengths, reverse=True)


def test_a_message_of_pure_chatter_is_phatic_and_a_fact_is_not() -> None:
    assert CONDENSER.is_phatic("Wow, that's awesome! Thanks so much!")
    assert CONDENSER.is_phatic("好的，收到！")
    assert not CONDENSER.is_phatic("Thanks! The meeting moved to 3pm.")
    assert not CONDENSER.is_phatic("我不吃辣。")


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdefghij ABC.,!?'-[]123 好的收到不是会议")), max_size=160),
       st.lists(st.sampled_from(["Jon", "Mel", "abc"]), max_size=2))
def test_every_form_keeps_most_content_negations_and_numbers(text: str, names: list[str]) -> None:
    floor = 1 - CONDENSER.rules.max_content_loss
    for _, shortened in CONDENSER.ladder(text, names):
        assert shortened and len(shortened) < len(text)
        assert CONDENSER.coverage(text, shortened) >= floor - 1e-9
        for number in ("123", "12", "1", "2", "3"):
            assert text.count(number) <= 0 or number in shortened
        assert ("不" in text) <= ("不" in shortened)


# -- budget -----------------------------------------------------------------------------------------------
def _candidate(cid: str, value: float, position: int, *sizes: int, must: bool = False,
               complete: int = 3) -> budget_mod.Candidate:
    """Forms of the given sizes; the first ``complete`` of them keep every content word."""
    names = ["full", "tidy", "terse", "compact", "notes"]
    forms = [budget_mod.Form(names[i], f"{cid}-{i}", size, keeps_content=i < complete) for i, size in enumerate(sizes)]
    return budget_mod.Candidate(cid, value, position, forms, must_keep=must)


def test_a_must_keep_element_gives_its_function_words_before_a_process_element_goes() -> None:
    candidates = [_candidate("keep", 1.0, 0, 50, 45, 40, 35, 30, must=True, complete=5),
                  _candidate("fact", 5.0, 1, 40, 30)]
    fit = budget_mod.fit(candidates, 60)
    assert fit.chosen == {"keep": 4, "fact": 1} and fit.met


def test_a_must_keep_element_never_loses_a_content_word_while_process_stays() -> None:
    candidates = [_candidate("keep", 1.0, 0, 50, 45, 40, 35, 30, must=True, complete=3),
                  _candidate("fact", 5.0, 1, 40, 30)]
    fit = budget_mod.fit(candidates, 60)
    assert fit.chosen == {"keep": 0} and fit.met  # the process element went, and the room gave the full text back


def test_budget_drops_process_before_must_keep_and_fits() -> None:
    candidates = [_candidate("keep", 1.0, 0, 50, 45, must=True), _candidate("rich", 9.0, 1, 40, 30, 20),
                  _candidate("poor", 0.1, 2, 40, 30, 20)]
    fit = budget_mod.fit(candidates, 70)
    assert fit.met and fit.tokens <= 70
    assert "keep" in fit.chosen and "rich" in fit.chosen and "poor" not in fit.chosen
    assert not fit.must_keep_dropped


def test_budget_below_the_must_keep_drops_the_oldest_and_says_so() -> None:
    candidates = [_candidate("old", 1.0, 0, 50, must=True), _candidate("new", 1.0, 1, 50, must=True)]
    fit = budget_mod.fit(candidates, 60)
    assert fit.must_keep_dropped == ["old"] and fit.met


def test_when_must_keep_alone_exceed_the_budget_the_least_informative_goes_first_and_says_why() -> None:
    rich = _candidate("rich", 9.0, 0, 50, must=True)
    poor = _candidate("poor", 0.5, 1, 50, must=True)
    tail = _candidate("tail", 9.0, 2, 20, must=True)
    rich.priority = poor.priority = 1
    fit = budget_mod.fit([rich, poor, tail], 60)
    assert fit.must_keep_dropped == ["tail", "poor"] and fit.met
    assert fit.must_keep_why == {"tail": "tail", "poor": "least_informative"}


def _opening_of(least: int):
    """An opening of any size from ``least`` tokens up to the room given (as a message's is)."""
    return lambda room: budget_mod.Form("opening", "…", room) if room >= least else None


def test_a_must_keep_message_the_room_left_still_holds_the_opening_of_is_cut_not_dropped() -> None:
    request = _candidate("request", 1.0, 0, 150, must=True)
    request.priority = budget_mod.NEVER_DROPPED
    thinking = _candidate("thinking", 9.0, 1, 110, must=True)
    answer = _candidate("answer", 500.0, 2, 600, must=True)
    answer.opening = _opening_of(40)
    fit = budget_mod.fit([request, thinking, answer], 500)
    assert fit.must_keep_dropped == ["thinking"] and fit.must_keep_opened == ["answer"]
    assert answer.forms[fit.chosen["answer"]].name == "opening" and fit.tokens == 500 and fit.met
    assert "answer" not in fit.must_keep_shortened  # it lost words: not among those that lost none
    small = _candidate("answer", 500.0, 2, 600, must=True)
    small.opening = _opening_of(400)  # the room left (350) does not hold enough of it: dropped as before,
    fit = budget_mod.fit([request, _candidate("thinking", 9.0, 1, 110, must=True), small], 500)
    assert fit.must_keep_dropped == ["answer"] and not fit.must_keep_opened and fit.tokens == 260  # the rest back


def test_a_small_dropped_decision_comes_back_whole_before_an_opening_takes_the_room() -> None:
    """Dropping in order took a ten-token task before the answer whose opening then took all that
    was left (found by review); the tail's process comes back only after the openings."""
    request = _candidate("request", 1.0, 0, 150, must=True)
    request.priority = budget_mod.NEVER_DROPPED
    task = _candidate("task", 0.1, 1, 10, must=True)
    thinking = _candidate("thinking", 9.0, 2, 110, must=True)
    task.priority = 1
    answer = _candidate("answer", 900.0, 3, 600, must=True)
    answer.priority = 1
    answer.opening = _opening_of(40)
    fit = budget_mod.fit([request, task, thinking, answer], 500)
    assert "task" in fit.chosen and fit.must_keep_opened == ["answer"] and fit.must_keep_dropped == ["thinking"]
    assert answer.forms[fit.chosen["answer"]].tokens == 340 and fit.tokens == 500


def test_an_opening_takes_only_what_is_left_once_the_kept_ones_read_whole_again() -> None:
    """Sized before the kept must-keep items got their readable form back, an opening took that room
    and left a decision without some of its content words (found by review)."""
    request = _candidate("request", 1.0, 0, 150, must=True)
    request.priority = budget_mod.NEVER_DROPPED
    decision = _candidate("decision", 5.0, 1, 300, 200, 120, must=True, complete=2)
    decision.priority = 1
    answer = _candidate("answer", 1.0, 2, 600, must=True)
    answer.opening = _opening_of(40)
    fit = budget_mod.fit([request, decision, answer], 500)
    assert fit.chosen["decision"] == 0 and fit.chosen["request"] == 0  # whole again first
    assert fit.must_keep_opened == ["answer"] and answer.forms[fit.chosen["answer"]].tokens == 50 and fit.tokens == 500


def test_a_whole_decision_comes_back_before_filler_words_and_a_fitting_item_whole_before_an_opening() -> None:
    """Found by review: readable forms were given back before a dropped decision that fitted whole, and
    an item was opened (cut, with its marker) where it fitted whole."""
    decision = _candidate("decision", 10.0, 0, 100, 60, must=True, complete=2)
    small = _candidate("small", 0.5, 1, 20, must=True)
    other = _candidate("other", 2.0, 2, 70, must=True)
    latest = _candidate("latest", 100.0, 3, 5, must=True)
    for c in (decision, small, other):
        c.priority = 1
    latest.priority = budget_mod.NEVER_DROPPED
    fit = budget_mod.fit([decision, small, other, latest], 105)
    assert {"decision", "small", "latest"} <= fit.chosen.keys() and fit.must_keep_dropped == ["other"]
    tail = _candidate("tail", 5.0, 0, 45, must=True)
    tail.opening = _opening_of(40)
    answer = _candidate("answer", 1.0, 1, 80, must=True)
    answer.priority = 1
    request = _candidate("request", 100.0, 2, 50, must=True)
    request.priority = budget_mod.NEVER_DROPPED
    fit = budget_mod.fit([tail, answer, request], 110)
    assert fit.chosen.get("tail") == 0 and not fit.must_keep_opened and fit.must_keep_dropped == ["answer"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10), st.lists(st.integers(1, 200), min_size=1, max_size=4), st.booleans(),
                          st.none() | st.integers(1, 100)), max_size=25), st.integers(0, 1500))
def test_budget_is_met_whenever_it_can_be(spec, budget: int) -> None:
    candidates = [_candidate(f"c{i}", value, i, *sorted(sizes, reverse=True), must=must)
                  for i, (value, sizes, must, _) in enumerate(spec)]
    for candidate, (_, _, _, least) in zip(candidates, spec, strict=True):
        candidate.opening = _opening_of(least) if least is not None else None
    fit = budget_mod.fit(candidates, budget)
    assert fit.tokens == sum(c.forms[fit.chosen[c.id]].tokens for c in candidates if c.id in fit.chosen)
    assert fit.tokens <= budget
    assert not set(fit.must_keep_opened) & set(fit.must_keep_dropped)
    assert all(next(c for c in candidates if c.id == i).forms[fit.chosen[i]].name == "opening"
               for i in fit.must_keep_opened)
    kept_process = [c for c in candidates if not c.must_keep and c.id in fit.chosen]
    assert not (fit.must_keep_dropped and kept_process), "a must-keep element went while process stayed"
    for c in candidates if kept_process else []:
        if c.must_keep:
            assert c.forms[fit.chosen[c.id]].keeps_content, "a must-keep element lost a content word while process stayed"


# -- the harness contract (conversation JSONL) --------------------------------------------------------------
@pytest.mark.parametrize("ratio", [0.5, 0.25])
def test_keep_ratio_fits_exactly_counted_tokens_with_input_ids(tmp_path: Path, ratio: float) -> None:
    source = _chat(tmp_path / "input.jsonl")
    result = filter_path(source, "jsonl", keep_ratio=ratio, output=tmp_path / "out.jsonl", workspace=tmp_path)
    count = get_counter("exact")[1]
    before = sum(count(m["text"]) for m in _lines(source))
    out = _lines(tmp_path / "out.jsonl")
    assert sum(count(m["text"]) for m in out) <= ratio * before
    ids = {m["id"] for m in _lines(source)}
    assert out and all(m["id"] in ids and set(m.get("merged_from", [])) <= ids for m in out)
    assert result.report["budget"]["met"]
    texts = "\n".join(m["text"] for m in out)
    assert "31" in texts or ratio < 0.5  # a dated, measured event is among the first things kept


def test_malformed_lines_pass_through_and_are_reported(tmp_path: Path) -> None:
    source = _chat(tmp_path / "input.jsonl")
    with source.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    result = filter_path(source, "jsonl", output=tmp_path / "out.jsonl", workspace=tmp_path)
    assert "{not json\n" in (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert any(":11" in w for w in result.report["warnings"])


# -- OpenClaw: rewrite, compact, in place --------------------------------------------------------------------
def test_compact_in_place_appends_one_native_entry(tmp_path: Path) -> None:
    labeled = build("en-tool-heavy", tmp_path)
    before = labeled.path.read_bytes()
    result = filter_path(labeled.path, mode="compact", in_place=True, workspace=tmp_path)
    after = labeled.path.read_bytes()
    assert after.startswith(before) and after[len(before):].count(b"\n") == 1
    entry = json.loads(after[len(before):])
    assert entry["type"] == "compaction" and entry["tokensBefore"] == result.report["before"]["tokens"]
    assert "PostgreSQL 16" in entry["summary"] and "never push directly to main" in entry["summary"]
    assert entry["firstKeptEntryId"] == result.report["compaction"]["first_kept_entry_id"]
    chain = transcript.read(labeled.path).in_context()
    assert [e.kind for e in chain].count(transcript.Kind.COMPACTION) == 1
    assert min(e.line for e in chain if e.kind is not transcript.Kind.COMPACTION) == next(
        e.line for e in chain if e.record_id == entry["firstKeptEntryId"])


def test_compact_digest_is_in_the_conversation_language(tmp_path: Path) -> None:
    labeled = build("zh-tool-heavy", tmp_path)
    result = filter_path(labeled.path, mode="compact", workspace=tmp_path)
    entry = json.loads(result.output_path.read_text(encoding="utf-8").splitlines()[-1])
    assert "以后所有回复都用中文" in entry["summary"] and "## 偏好" in entry["summary"]


def test_options_that_cannot_work_are_usage_errors(tmp_path: Path) -> None:
    source = _chat(tmp_path / "input.jsonl")
    with pytest.raises(UsageError):
        filter_path(source, "jsonl", mode="compact", workspace=tmp_path)
    with pytest.raises(UsageError):
        filter_path(source, "jsonl", in_place=True, workspace=tmp_path)
    with pytest.raises(UsageError):
        filter_path(source, "jsonl", keep_ratio=1.5, workspace=tmp_path)
    with pytest.raises(UsageError):
        filter_path(source, "jsonl", keep_ratio=0.5, budget=100, workspace=tmp_path)


# -- the CLI ------------------------------------------------------------------------------------------------------
def test_cli_writes_next_to_the_input_never_over_it(tmp_path: Path, apollo_cli) -> None:
    source = _chat(tmp_path / "chat.jsonl")
    original = source.read_bytes()
    first = apollo_cli("renal", "filter", str(source), "--workspace", str(tmp_path), "--lang", "en")
    second = apollo_cli("renal", "filter", str(source), "--workspace", str(tmp_path), "--lang", "zh")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert source.read_bytes() == original
    assert (tmp_path / "chat.filtered.jsonl").is_file() and (tmp_path / "chat.filtered-2.jsonl").is_file()
    assert "Context purification report" in first.stdout and str(tmp_path / "chat.filtered.jsonl") in first.stdout
    assert "上下文净化报告" in second.stdout and "节省率" in second.stdout


def test_cli_json_and_dry_run(tmp_path: Path, apollo_cli) -> None:
    source = _chat(tmp_path / "chat.jsonl")
    done = apollo_cli("renal", "filter", str(source), "--dry-run", "--json", "--keep-ratio", "0.5",
                      "--workspace", str(tmp_path))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["dry_run"] and report["output"] is None and report["budget"]["met"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.jsonl"]


def test_cli_reports_unreadable_input_without_a_traceback(tmp_path: Path, apollo_cli) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01 not a transcript")
    done = apollo_cli("renal", "filter", str(junk), "--workspace", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr and "junk.bin" in done.stderr
    bad = apollo_cli("renal", "filter", str(junk), "--in-place", "--workspace", str(tmp_path))
    assert bad.returncode == 2


def test_report_renders_the_seed_lines_in_both_languages(tmp_path: Path) -> None:
    labeled = build("zh-chat", tmp_path)
    report = filter_path(labeled.path, dry_run=True, workspace=tmp_path).report
    zh, en = render(report, "zh"), render(report, "en")
    for line in ("🫘 [apollo-renal] 上下文净化报告", "过滤前状态：", "✅ 保留：决策", "❌ 删除：重复确认", "节省率：",
                 "平衡状态：", "下一步建议："):
        assert line in zh
    assert "Saving:" in en and "Kept:" in en


def test_an_existing_output_is_never_replaced_without_force(tmp_path: Path, apollo_cli) -> None:
    source = _chat(tmp_path / "chat.jsonl")
    mine = tmp_path / "notes.txt"
    mine.write_text("my own notes\n")
    refused = apollo_cli("renal", "filter", str(source), "-o", str(mine), "--workspace", str(tmp_path))
    assert refused.returncode == 4
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert mine.read_text() == "my own notes\n"
    link = tmp_path / "link.jsonl"
    link.symlink_to(mine)
    assert apollo_cli("renal", "filter", str(source), "-o", str(link), "--workspace", str(tmp_path)).returncode == 4
    assert mine.read_text() == "my own notes\n"
    empty = tmp_path / "empty.jsonl"  # what mktemp or an evaluation harness hands over
    empty.touch()
    assert apollo_cli("renal", "filter", str(source), "-o", str(empty), "--workspace", str(tmp_path)).returncode == 0
    assert empty.stat().st_size > 0
    forced = apollo_cli("renal", "filter", str(source), "-o", str(mine), "--force", "--workspace", str(tmp_path))
    assert forced.returncode == 0, forced.stderr
    assert _lines(mine)[0]["id"] == _lines(source)[0]["id"]


_WORDS = ["budget", "garden", "Lisbon", "violin", "invoice", "marathon", "pottery", "server", "Friday", "kitten"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4)),
                min_size=3, max_size=12), st.sampled_from([0.15, 0.25, 0.4, 0.6]))
def test_a_shortened_must_keep_message_keeps_every_content_word_while_process_stays(
        tmp_path_factory, turns: list[tuple[bool, list[str]]], ratio: float) -> None:
    folder = tmp_path_factory.mktemp("keep")
    chat = [("user", "Ana", f"Thanks so much! From now on, always bring the {' and the '.join(words)} to the meeting.")
            if rule else ("assistant", "Bo", f"Wow, I just went over the {' and the '.join(words)} with my sister.")
            for rule, words in turns]
    source = _chat(folder / "input.jsonl", chat)
    result = filter_path(source, "jsonl", keep_ratio=ratio, output=folder / "out.jsonl", workspace=folder)
    out = {line["id"]: line["text"] for line in _lines(folder / "out.jsonl")}
    must = [f for f in result.fates if f.must_keep and f.element.id in out]
    process_kept = [f for f in result.fates if not f.must_keep and not f.in_tail and f.element.id in out]
    for fate in must if process_kept else []:
        tidy = dict(CONDENSER.ladder(fate.element.text, ["ana", "bo"])).get("tidy", fate.element.text)
        assert CONDENSER.content_units(tidy) <= CONDENSER.content_units(out[fate.element.id])
