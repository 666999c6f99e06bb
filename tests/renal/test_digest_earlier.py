"""An earlier compaction's summary as the digest carries it: the block OpenClaw's compaction
safeguard appends to its end that copies the workspace's own files is left out, its lists of files
read and changed are written as trees (the same paths, each folder once), and everything else stays
as written, line ends too."""

from __future__ import annotations

import json
import re
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
_PATH_LINE = re.compile(_RULES["digest_earlier_file_path"])


def _carried(text: str) -> str:
    return digest.without_appended_blocks(text, _LEFT_OUT, _LISTS, _PATH_LINE)

_SUMMARY = ("## Goal\nNightly backups of /srv/db, kept for 30 days.\n\n## Constraints/Rules\n"
            "- Never restore over the live database.\n")
_FILES = ("<read-files>\n/srv/app/config/backup.toml\n/srv/app/config/retention.toml\n/srv/app/README.md\n"
          "~/notes/db.md\n</read-files>\n\n<modified-files>\n/srv/app/config/backup.toml\n</modified-files>")
_RULES_BLOCK = ("<workspace-critical-rules>\n## Session Startup\n1. Read `SOUL.md`\n\n## Red Lines\n"
                "- Don't exfiltrate private data. Ever.\n</workspace-critical-rules>")


def _expand(tree: str) -> list[str]:
    """The paths a tree (``_by_folder``: "a/{b, c/{d, e}}, f") names, in order (an empty entry
    too: "a/{, b}" names "a/"), read without recursion."""
    paths, folders, entry, closed = [], [""], "", False
    for char in tree + ",":
        if char == "{":
            folders.append(folders[-1] + entry)
            entry = ""
        elif char in ",}":
            if not closed:
                paths.append(folders[-1] + entry)
            entry, closed = "", char == "}"
            if char == "}":
                folders.pop()
        elif char != " " or entry:  # not the space after a comma
            entry += char
            closed = False
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
        assert _carried(text) == text


def test_the_rules_block_goes_only_as_the_summarys_last_block() -> None:
    """OpenClaw's safeguard appends the workspace's rules to the end of its summary: a block with that
    tag in the middle is the summary's own (a rule the user set) and stays."""
    middle = "## Constraints\n<workspace-critical-rules>\n- Never push to main (the user, 10:02)\n" \
             "</workspace-critical-rules>\n## Next steps\n- Ship the invoices."
    assert _carried(middle) == middle
    assert _carried(middle + "\n\n" + _RULES_BLOCK + "\n\n") == middle


def test_a_closing_tag_counts_only_outside_code_and_before_another_block_opens() -> None:
    """A closing tag inside a fence the block opened, a tag inside a ``` block that holds a ~~~
    line, a block opened again before it closes, a tag indented as code: all stay as written."""
    later_fence = "## Decisions\n<workspace-critical-rules>\n- Deploy only on Tuesdays\n```\n" \
                  "</workspace-critical-rules>\n```"
    tilde_in_backticks = "```\n~~~\n<workspace-critical-rules>\n- a\n</workspace-critical-rules>\n```"
    opened_twice = "<workspace-critical-rules>\n<workspace-critical-rules>\n- a\n</workspace-critical-rules>\n" \
                   "- the user's own rule\n</workspace-critical-rules>"
    indented = "Notes:\n\n    <workspace-critical-rules>\n    - a\n    </workspace-critical-rules>"
    for text in (later_fence, tilde_in_backticks, opened_twice, indented):
        assert _carried(text) == text
    assert _carried("```\n~~~\n```\n" + _RULES_BLOCK) == "```\n~~~\n```"  # the fence closed before it


def test_a_list_that_is_not_one_path_a_line_stays_as_written() -> None:
    """A heading, a blank line, prose, an overflow note, bullets, or nothing at all between the tags:
    no list of paths a tree could write."""
    for body in ("## Files\n/srv/a.py", "/srv/a.py\n\n/srv/b.py", "the config and the readme",
                 "/srv/a.py\n/srv/b.py\n...and 12 more", "- /srv/a.py\n- /srv/b.py", "1. /srv/a.py\n2. /srv/b.py",
                 "• /srv/a.py\n• /srv/b.py"):
        text = f"<read-files>\n{body}\n</read-files>"
        assert _carried(text) == text
    assert _carried("<read-files>\n</read-files>") == "<read-files>\n</read-files>"
    assert _carried("<read-files>\n/srv/my app/a b.md\n/srv/my app/c.md\n</read-files>") == \
        "<read-files>\n/srv/my app/{a b.md, c.md}\n</read-files>"  # a space in a folder's name


def test_a_folder_with_a_trailing_slash_beside_its_files_gives_no_empty_entry() -> None:
    assert _carried("<read-files>\n/srv/app/\n/srv/app/x.py\n/srv/app/y.py\n</read-files>") == \
        "<read-files>\n/srv/app/{x.py, y.py}\n</read-files>"
    assert digest._by_folder(["/srv/app/"]) == "/srv/app/"


def test_crlf_line_ends_are_kept() -> None:
    text = "## Goal\r\nBackups\r\n\r\n<read-files>\r\n/srv/a.py\r\n/srv/b.py\r\n</read-files>\r\n\r\n" \
           "<workspace-critical-rules>\r\n- r\r\n</workspace-critical-rules>\r\n"
    assert _carried(text) == "## Goal\r\nBackups\r\n\r\n<read-files>\r\n/srv/{a.py, b.py}\r\n</read-files>\r"


def test_a_list_with_a_secret_in_a_path_stays_as_written_and_is_redacted_whole() -> None:
    """Split at its slashes a key would escape redaction, which marks the line whole (review 24)."""
    text = ("<read-files>\n/srv/vault/wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7vKx2pLmN\n"
            "/srv/vault/wJalrXUtnFEMI/K7MDENG/cQyRgjDZaR8wLy3qMnO\n</read-files>")
    assert _carried(text) == text
    assert "bPxRfiCYzQ7vKx2pLmN" not in digest.redact(_carried(text))


def test_a_very_deep_path_is_given_back_whole() -> None:
    """A path of 50,000 folders, twice: one path, its name joined once (review 24: built a folder at a
    time, it was copied at each)."""
    deep = "/a" * 50000 + "/b"
    assert _expand(digest._by_folder([deep, deep])) == [deep]


def test_a_line_of_slashes_with_spaces_is_a_path_only_whole() -> None:
    for line, is_path in (("a/" * 2000 + " x", True), ("x/y ", False), (" x/y", False), ("see notes/ideas", True),
                          ("a b", False), ("ab", True), ("{a}/b", False)):
        assert (_PATH_LINE.fullmatch(line) is not None) == is_path, line


def test_a_deep_tree_is_written_without_recursion() -> None:
    """1,100 paths each a folder deeper, branching at every level (a recursive writer overflowed)."""
    paths = ["/d" * depth + "/f" for depth in range(1, 1101)]
    tree = _carried("<read-files>\n" + "\n".join(paths) + "\n</read-files>").split("\n")[1]
    assert sorted(_expand(tree)) == sorted(paths)


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
_PATH = st.builds(lambda root, parts, slash: root + "/".join(parts) + slash, st.sampled_from(["/", "~/", "", "./"]),
                  st.lists(_SEGMENT, min_size=1, max_size=4), st.sampled_from(["", "", "", "/"]))
# the text around the blocks: lines and whole blocks that stay as written (code closed within each)
_AROUND = st.one_of(
    st.sampled_from(["## Decisions", "- keep **this** rule", "plain words 中文", "", "`code` span", "a line\r",
                     "```\n~~~\n<workspace-critical-rules>\n- in code\n</workspace-critical-rules>\n```",
                     "~~~\n```\n</read-files>\n~~~", "    <read-files>\n    /indented/code.py\n    </read-files>",
                     "<workspace-critical-rules>\n- a rule the user set\n</workspace-critical-rules>",
                     "<workspace-critical-rules>", "</workspace-critical-rules>", "<read-files>\n## not a path\n</read-files>",
                     "<modified-files>\n</modified-files>"]),
    st.text(st.characters(blacklist_characters="\n`~<", blacklist_categories=("Cs",)), max_size=20))


@settings(max_examples=200, deadline=None)
@given(before=st.lists(_AROUND, max_size=6), paths=st.lists(_PATH, min_size=1, max_size=8),
       between=st.lists(_AROUND, max_size=4), after=st.lists(_AROUND, max_size=4),
       blanks=st.lists(st.sampled_from(["", "\r", "  "]), max_size=2), rules_last=st.booleans())
def test_a_carried_list_names_the_same_files_and_the_rest_stays_as_written(
        before: list[str], paths: list[str], between: list[str], after: list[str], blanks: list[str],
        rules_last: bool) -> None:
    """Whatever the summary around them: the list's tree expands to exactly the same paths (no file
    named twice, none lost, no path cut; a folder beside its files named by them) and every other
    line stays as written; the rules' block goes when it ends the summary, else it stays too."""
    lines = [*"\n".join(before).split("\n")] if before else []
    middle = "\n".join(between).split("\n") if between else []
    rules = _RULES_BLOCK.split("\n")
    tail = [*rules, *blanks] if rules_last else [*rules, *"\n".join(after).split("\n"), "## Next steps"]
    out = _carried("\n".join([*lines, "<read-files>", *paths, "</read-files>", *middle, *tail])).split("\n")
    tree = out[len(lines) + 1]
    folded = {p.rstrip("/") or p for p in paths if not any(other.startswith(p.rstrip("/") + "/") and other != p
                                                          for other in paths)}
    named = _expand(tree)
    assert len(named) == len(set(named)) and {n.rstrip("/") or n for n in named} == {f.rstrip("/") or f for f in folded}
    kept = [*lines, "<read-files>", tree, "</read-files>", *middle]
    if rules_last:  # the rules' block ends the summary: it goes, with the blank lines around it
        while kept and not kept[-1].strip():
            kept.pop()
        assert out == kept
    else:
        assert out == kept + tail
