"""A compaction never gives the model more to read: with a budget or without, when the digest (in pi's
wrapper) and what stays after it would not be smaller than the session as it is, compact mode
refuses as it does when every entry is in the recent tail — one line, exit 1, nothing written.

What the model reads is measured on the files, through Apollo's reader (and pi's own, where pi is
installed): the context before, and the context after the compaction entry.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from apollo import transcript
from apollo.errors import InputError
from apollo.renal.filter import filter_path
from apollo.tokens import get_counter
from apollo.transcript.openclaw_compaction import is_compaction_summary
from apollo.transcript.openclaw_rules import COMPACTION_SUMMARY_WRAPPER
from realclient.support import PiSession
from renal.filter_support import context_blocks, counter_of, worked_session

_COUNT = get_counter("estimate")[1]


def _seen(path: Path) -> int:
    """The tokens of the context the agent's loader rebuilds from ``path``, a summary in its wrapper."""
    prefix, suffix = COMPACTION_SUMMARY_WRAPPER
    return sum(_COUNT(prefix + e.text + suffix) if is_compaction_summary(e) else e.tokens
               for e in transcript.read(path, counter="estimate").in_context())


def _with_tail(session: PiSession) -> PiSession:
    for text in ("Next: the weekly report.", "And then the invoices."):
        session.user(text)
        session.say("On it.")
    return session


def _short(tmp_path: Path) -> Path:
    """A few short messages: their digest, with its heading and ids, is longer than they are."""
    session = PiSession()
    session.user("hi")
    session.say("Hi! How can I help?")
    session.user("Never deploy on Fridays; that is a standing rule.")
    session.say("Noted: no deploys on Fridays.")
    return _with_tail(session).write(tmp_path / "s.jsonl")


@pytest.mark.parametrize("in_place", [False, True])
def test_a_session_whose_digest_would_be_larger_is_refused_and_nothing_is_written(tmp_path: Path,
                                                                                  in_place: bool) -> None:
    source = _short(tmp_path)
    before = source.read_bytes()
    output = tmp_path / "c.jsonl"
    with pytest.raises(InputError, match="nothing to compact") as refused:
        filter_path(source, mode="compact", output=None if in_place else output, in_place=in_place,
                    workspace=tmp_path)
    assert refused.value.where == str(source) and "--mode rewrite" in (refused.value.hint or "")
    assert source.read_bytes() == before  # byte for byte
    assert not output.exists() and not (tmp_path / ".renal").exists()  # no copy, no snapshot


def test_the_refusal_on_the_command_line_is_one_line_and_the_default_filter_still_removes_the_noise(
        tmp_path: Path, apollo_cli) -> None:
    source = _short(tmp_path)
    before = source.read_bytes()
    done = apollo_cli("renal", "filter", str(source), "--mode", "compact", "--workspace", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "nothing to compact" in done.stderr and str(source) in done.stderr
    assert source.read_bytes() == before and not (tmp_path / ".renal").exists()
    rewritten = filter_path(source, output=tmp_path / "r.jsonl", workspace=tmp_path)  # what the hint offers
    assert rewritten.report["after"]["tokens"] < rewritten.report["before"]["tokens"]


def test_a_long_session_compacts_into_less_than_it_was(tmp_path: Path) -> None:
    source = _with_tail(worked_session()).write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    assert _seen(result.output_path) < _seen(source)
    assert result.report["saving"] > 0.5


@pytest.mark.realclient
def test_pi_shows_less_after_the_compaction_than_before(tmp_path: Path, pi_replay) -> None:
    source = _with_tail(worked_session()).write(tmp_path / "s.jsonl")
    result = filter_path(source, mode="compact", output=tmp_path / "c.jsonl", workspace=tmp_path)
    count = counter_of(result.report)
    after, before = (sum(count(text) for text in context_blocks(pi_replay(path))) for path in (result.output_path, source))
    assert after < before


_WORDS = ["invoice", "cluster", "backup", "deploy", "report", "gateway", "never", "always", "Friday", "18789",
          "please", "check", "the", "on", "服务器", "以后", "不要", "备份"]
_TEXT = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=40).map(" ".join)
#: a turn: what the user says, the lines of a tool's output (none: no call), the agent's reply, a heartbeat after it
_TURN = st.tuples(_TEXT, st.one_of(st.none(), st.integers(min_value=0, max_value=120)), _TEXT, st.booleans())


def _generated(turns: list, folder: Path) -> Path:
    session = PiSession()
    for number, (said, lines, reply, heartbeat) in enumerate(turns):
        session.user(said)
        if lines is not None:
            session.tool(f"call_{number}", "exec", {"command": f"ls -l /srv/data/{number}"},
                         "\n".join(f"-rw-r--r-- 1 app app {4096 + i} Apr  7 14:{i % 60:02d} part-{i:04d}.csv"
                                   for i in range(lines)))
        session.say(reply)
        if heartbeat:
            session.heartbeat()
    return session.write(folder / "s.jsonl")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TURN, min_size=1, max_size=8), st.booleans())
def test_compact_refuses_or_leaves_the_model_less_to_read(turns: list, in_place: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        source = _generated(turns, tmp)
        before, seen = source.read_bytes(), _seen(source)
        output = tmp / "c.jsonl"
        try:
            result = filter_path(source, mode="compact", output=None if in_place else output, in_place=in_place,
                                 workspace=tmp)
        except InputError as refused:
            assert refused.what.startswith("nothing to compact")
            event("refused: " + refused.what.split(":")[1].split("(")[0].strip())
            assert source.read_bytes() == before and not output.exists()
            return
        event("compacted")
        assert _seen(result.output_path) < seen
        assert result.report["after"]["tokens"] < result.report["before"]["tokens"]
        if not in_place:
            assert source.read_bytes() == before
        else:
            assert json.loads(source.read_text(encoding="utf-8").splitlines()[-1])["type"] == "compaction"


@pytest.mark.parametrize("budget", [{"budget": 100_000}, {"keep_ratio": 0.5}, {"keep_ratio": 1.0}])
def test_a_budget_is_no_reason_to_give_the_model_more_to_read(tmp_path: Path, budget: dict) -> None:
    """A budget the session already meets, or one no plan of a short session meets, is refused like
    a compaction without one: a 37-token session had come out at 77 or 127 tokens, once as "met"."""
    source = _short(tmp_path)
    before = source.read_bytes()
    output = tmp_path / "c.jsonl"
    with pytest.raises(InputError, match="nothing to compact"):
        filter_path(source, mode="compact", output=output, workspace=tmp_path, **budget)
    assert source.read_bytes() == before and not output.exists()
