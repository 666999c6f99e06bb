"""An earlier compaction's summary as the digest carries it: the blocks OpenClaw's compaction
safeguard appends that copy the workspace's own files are left out, its lists of files read and
changed are written as trees (the same paths, each folder once), and everything else stays word for word."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.renal import compaction, concentrate, digest
from apollo.renal.filter import filter_path
from realclient.support import PiSession
from renal.filter_support import worked_session

_RULES = concentrate.load()
_LEFT_OUT = frozenset(_RULES["digest_earlier_left_out"])
_LISTS = frozenset(_RULES["digest_earlier_file_lists"])

_SUMMARY = ("## Goal\nNightly backups of /srv/db, kept for 30 days.\n\n## Constraints/Rules\n"
            "- Never restore over the live database.\n")
_FILES = ("<read-files>\n/srv/app/config/backup.toml\n/srv/app/config/retention.toml\n/srv/app/README.md\n"
          "~/notes/db.md\n</read-files>\n\n<modified-files>\n/srv/app/config/backup.toml\n</modified-files>")
_RULES_BLOCK = ("<workspace-critical-rules>\n## Session Startup\n1. Read `SOUL.md`\n\n## Red Lines\n"
                "- Don't exfiltrate private data. Ever.\n</workspace-critical-rules>")


def _expand(tree: str) -> list[str]:
    """The paths a tree (``_by_folder``: "a/{b, c/{d, e}}, f") names, in order."""
    paths, depth, start = [], 0, 0
    parts = []
    for index, char in enumerate(tree + ","):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(tree[start:index].strip())
            start = index + 1
    for part in filter(None, parts):
        if "{" not in part:
            paths.append(part)
            continue
        stem, inner = part.split("{", 1)
        paths += [stem + below for below in _expand(inner[:-1])]
    return paths


def test_the_workspace_rules_go_and_the_file_lists_are_trees_of_the_same_paths() -> None:
    carried = compaction.carried_summaries([_SUMMARY + "\n" + _FILES + "\n\n" + _RULES_BLOCK], _RULES)
    assert carried == [_SUMMARY.strip() + "\n\n<read-files>\n/srv/app/{config/{backup.toml, retention.toml}, "
                                          "README.md}, ~/notes/db.md\n</read-files>\n\n<modified-files>\n"
                                          "/srv/app/config/backup.toml\n</modified-files>"]
    assert compaction.carried_summaries([_RULES_BLOCK], _RULES) == []  # nothing of the conversation in it


def test_a_block_in_code_never_closed_or_with_commas_in_its_paths_stays_as_written() -> None:
    fenced = "## Notes\n```\n" + _RULES_BLOCK + "\n```"
    unclosed = "## Notes\n<workspace-critical-rules>\n- Don't exfiltrate private data."
    commas = "<read-files>\n/srv/a, b/notes.md\n/srv/{x}/c.md\n</read-files>"
    for text in (fenced, unclosed, commas):
        assert digest.without_appended_blocks(text, _LEFT_OUT, _LISTS) == text


def test_the_new_digest_carries_the_earlier_summary_without_the_workspaces_rules(tmp_path: Path) -> None:
    session = PiSession()
    opening = session.user("Please keep the nightly backup of /srv/db at 02:00.")
    session.say("Noted: the nightly backup of /srv/db runs at 02:00.")
    session.compaction(_SUMMARY + "\n" + _FILES + "\n\n" + _RULES_BLOCK, opening)
    worked_session(session)
    session.user("Also rotate the logs of /srv/app every week.")
    session.say("Done: the logs of /srv/app rotate every Monday.")
    for text in ("Next: the weekly report.", "And then the invoices."):
        session.user(text)
        session.say("On it.")
    result = filter_path(session.write(tmp_path / "s.jsonl"), "openclaw", mode="compact", output=tmp_path / "o.jsonl")
    entries = [json.loads(line) for line in result.output_path.read_text(encoding="utf-8").splitlines()]
    summary = [e for e in entries if e.get("type") == "compaction"][-1]["summary"]
    assert _SUMMARY.strip() in summary and "Never restore over the live database." in summary
    assert "/srv/app/{config/{backup.toml, retention.toml}, README.md}" in summary
    assert "workspace-critical-rules" not in summary and "exfiltrate" not in summary


_SEGMENT = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters="._-中文"), min_size=1,
                   max_size=6).filter(lambda s: s not in (".", ".."))
_PATH = st.builds(lambda root, parts: root + "/".join(parts), st.sampled_from(["/", "~/", "", "./"]),
                  st.lists(_SEGMENT, min_size=1, max_size=4))
_LINE = st.sampled_from(["## Decisions", "- keep **this** rule", "plain words 中文", "", "```", "`code` span"])


@settings(max_examples=200, deadline=None)
@given(before=st.lists(_LINE, max_size=5), paths=st.lists(_PATH, min_size=1, max_size=8),
       after=st.lists(_LINE, max_size=5), rules_last=st.booleans())
def test_a_carried_list_names_the_same_files_and_the_rest_stays_line_for_line(
        before: list[str], paths: list[str], after: list[str], rules_last: bool) -> None:
    """Whatever the summary around them: outside a code block, the list's tree expands to the same
    paths (no file named twice, none lost, no path cut) and the rules' block is gone; every other
    line stays as written, in order; the same input gives the same output."""
    if sum(line == "```" for line in before) % 2:
        before.append("```")  # the blocks come after a closed code block, as OpenClaw appends them
    blocks = ["<read-files>", *paths, "</read-files>"]
    rules = ["<workspace-critical-rules>", "## Red Lines", "- ask first", "</workspace-critical-rules>"]
    text = "\n".join([*before, *(blocks + rules if rules_last else rules + blocks), *after])
    out = digest.without_appended_blocks(text, _LEFT_OUT, _LISTS)
    assert out == digest.without_appended_blocks(text, _LEFT_OUT, _LISTS)
    lines = out.split("\n")
    start = lines.index("<read-files>")
    assert lines[start + 2] == "</read-files>"
    folded = [p for p in paths if not any(other.startswith(p + "/") for other in paths)]  # a folder beside its files
    named = _expand(lines[start + 1])
    assert len(named) == len(set(named)) and set(named) == set(folded)
    assert "ask first" not in out
    rest = [line for index, line in enumerate(lines) if not start <= index <= start + 2]
    expected = "\n".join([*before, *after]).strip().split("\n")
    assert [line for line in rest if line.strip()] == [line for line in expected if line.strip()]
