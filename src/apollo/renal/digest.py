"""The compaction summary: renal's digest of everything before the kept tail.

What the agent's loader shows the model in place of the history: the summary of an earlier
compaction (the agent's loader shows only the newest one, so it must live on in the new one),
the decisions, preferences, active tasks and open questions verbatim, grouped by category,
then the facts the process carried (rescued statements, tools used, files touched), in the
conversation's language.

Under a budget the digest gets leaner in ``LEVELS`` order: first what is process or outdated
(the outdated list, tools and files, the facts), and only then are the must-keep items
themselves quoted shorter.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

import orjson

from apollo.clock import parse_timestamp
from apollo.redact import redact
from apollo.renal.concentrate import SENTENCE_END
from apollo.transcript.fences import code_lines
from apollo.transcript.model import Kind, Role, shown

#: a Markdown heading's line ("## Open TODOs")
_HEADING_LINE = re.compile(r"#{1,6} ")
#: a Markdown table's delimiter row ("|------|:---:|", "--- | ---"): cells of hyphens (two or more: a cell of
#: one "-" is a value, "none") and alignment colons; one only under a table's header row (see _without_delimiter)
_TABLE_DELIMITER_ROW = re.compile(r"[ \t]*(?=[^\n]*\|)\|?(?:[ \t]*:?-{2,}:?[ \t]*\|)*[ \t]*:?-{2,}:?[ \t]*\|?[ \t\r]*")
#: a path or a file name in a tool call (not inside a URL: "https://host/a/b" names no file here, nor
#: does a page's route "https://host/#/docs/a" or "https://skills.sh/…" name a script)
_PATH = re.compile(r"(?<![\w:/.#-])(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)+"
                   r"|(?<!://)\b[\w-]+\.(?:py|js|ts|json|jsonl|toml|ya?ml|md|sh|sql)\b")
#: device and kernel files are no file anyone worked on
_NOT_FILES = ("/dev/", "/proc/", "/sys/")


@dataclass(frozen=True, slots=True)
class Level:
    """How lean one digest is: which optional sections it has, and how much of an item it quotes."""

    outdated: bool = True
    tools_and_files: bool = True
    facts: bool = True
    #: quote each must-keep item up to this share of ``digest_item_chars`` (an earlier summary: 4×)
    item_share: float = 1.0
    #: the last resort: quote only this many of the newest must-keep items, and no earlier summary
    keep_newest: int | None = None

    @property
    def shortens_must_keep(self) -> bool:
        return self.item_share < 1.0


#: from the full digest to the leanest: optional sections go first, then must-keep items get shorter
LEVELS = (Level(), Level(outdated=False), Level(outdated=False, tools_and_files=False),
          Level(outdated=False, tools_and_files=False, facts=False),
          *(Level(False, False, False, share) for share in (0.5, 0.25, 0.125, 0.0625)))
#: the levels that keep every must-keep item verbatim (up to ``digest_item_chars``)
VERBATIM_LEVELS = tuple(level for level in LEVELS if not level.shortens_must_keep)

TITLES = {
    "zh": {"head": "[apollo renal 摘要] 此前对话的要点，原文引用；截断处（…）的全文按其编号保留在原会话中。",
           "earlier": "更早的摘要", "decision": "决策", "preference": "偏好", "task": "进行中任务",
           "question": "未解决问题", "requests": "用户的其他请求（原话）", "facts": "过程要点", "tools": "使用过的工具", "files": "涉及的文件",
           "superseded": "已过时：被取代、已回答或已完成（仅列开头，全文按编号保留在原会话中）",
           "below": "其中 {n} 条要紧的消息（请求、决策及其答复）保留在摘要之后，原样未改。",
           "omitted": "另有 {n} 条寒暄、确认、心跳与中间过程未列出。"},
    "en": {"head": "[apollo renal digest] What the conversation so far established, quoted verbatim; "
                   "where a quote is cut (…), the source session keeps the whole message under the id before it.",
           "earlier": "Earlier summary",
           "decision": "Decisions", "preference": "Preferences", "task": "Active tasks", "question": "Open questions",
           "requests": "The user's other requests (verbatim)",
           "facts": "Facts from the process", "tools": "Tools used", "files": "Files touched",
           "superseded": "Outdated: superseded, answered or done (the start only; the source session has the full text)",
           "below": "{n} messages that matter (requests, decisions and what answered them) stay after this "
                    "digest, as they were said.",
           "omitted": "{n} more pleasantries, confirmations, heartbeats and process steps are not listed."},
}


def _one_line(text: str) -> str:
    """``text`` on one line, its secrets already marked: a cut through a key leaves a piece that
    redaction of the whole digest no longer recognises (24 characters of an Anthropic key at a
    quote's start), so the text is redacted before it is cut. An OpenClaw agent's reply directives go
    (``[[reply_to_current]]``: the gateway strips them before it sends)."""
    return " ".join(redact(_sent(text)).split())


def _sent(text: str) -> str:
    """``text`` as a quote on one line shows it: as the gateway sends it (without the agent's reply
    directives), and without a table's delimiter rows, which divide nothing once the rows run on one
    line (the header and the cells stay)."""
    from apollo.transcript.openclaw_rules import rules

    return _without_delimiter(rules().without_directives(text))


def _is_row(line: str) -> bool:
    return "|" in line


def _without_delimiter(text: str) -> str:
    """``text`` without its tables' delimiter rows: the row of hyphens directly under a header row (a
    row of a table whose line before is none); a row of dashes under another row is data ("| -- | -- |",
    no value). A table without outer pipes ("Plan | Price" over "--- | ---") has nothing between its rows
    on one line, so each of its rows but the last ends with a pipe there ("Plan | Price | Basic | $10")."""
    lines = text.split("\n")
    kept: list[str] = []
    bare = False  # in the rows of a table without outer pipes
    for index, line in enumerate(lines):
        if bare and _is_row(line) and kept:
            kept[-1] += " |"
        bare = bare and _is_row(line)
        if (index and _TABLE_DELIMITER_ROW.fullmatch(line) and _is_row(lines[index - 1])
                and not (index > 1 and _is_row(lines[index - 2]))):
            bare = not lines[index - 1].rstrip().endswith("|")
            continue
        kept.append(line)
    return "\n".join(kept)


def _quote(text: str, limit: int) -> str:
    """``text`` on one line, and when longer than ``limit`` its start and its end (a request often
    comes last, after pasted context or an injected preamble)."""
    text = _one_line(text)
    if len(text) <= limit:
        return text
    head = max(limit // 4, 1)
    return text[:head] + " … " + text[len(text) - max(limit - head - 3, 1):]


#: how many Latin letters a wide (CJK) character says about as much as: a translation into English
#: runs to three or more letters for each Chinese character (this module's own headings: 3.6)
WIDE_CHAR_LETTERS = 3


def _chars_for(text: str, limit: int) -> int:
    """``limit`` letters' worth in characters of ``text``: a wide (CJK) character counts as
    ``WIDE_CHAR_LETTERS`` (it says about as much), so a limit means as much in either script."""
    sample = text[:4 * limit]
    wide = sum(1 for char in sample if unicodedata.east_asian_width(char) in "WF")
    return max(limit * len(sample) // (len(sample) + (WIDE_CHAR_LETTERS - 1) * wide), 1) if sample else limit


def _outcome(text: str, limit: int) -> str:
    """What answered an item, on one line, no longer than ``limit`` letters' worth (plus the cut mark): whole, or
    its opening and its closing sentences (where a reply says whether it was done or what the
    answer is, and where it concludes; the source session keeps the rest under its id), each end cut at a sentence's
    boundary when one is near enough, else where ``_quote`` would cut."""
    from apollo.renal.reading import sentences

    flat = _one_line(text)
    limit = _chars_for(flat, limit)
    if len(flat) <= limit:
        return flat
    budget = max(limit // 4, 1)
    bounds = [0]
    for sentence in sentences(flat):  # where each sentence starts: its end marks belong to the one before
        bounds.append(flat.index(sentence, bounds[-1]))
        if bounds[-1] > budget:
            break
    head = max((b for b in bounds if 0 < b <= budget), default=budget)
    rest = max(limit - head, 1)
    tail = len(flat) - rest
    for end_mark in SENTENCE_END.compiled().finditer(flat, tail):  # the text is on one line
        if end_mark.end() < len(flat):
            tail = end_mark.end()
            break
    return flat[:head].rstrip() + " … " + flat[tail:].lstrip()


def _by_folder(paths: list[str]) -> str:
    """The paths as a tree, each folder written once ("~/app/{src/{a.py, b.py}, README.md}"): the
    same files, without repeating a long folder for each. A folder listed beside its own files is
    named by them (so is one written with a trailing slash: no empty entry); a root ("/", "~", ".")
    is no folder to group under. Written without recursion: a path may be as deep as it likes."""
    tree: dict[str, dict] = {}
    for path in paths:
        parts = path.split("/")
        if len(parts) > 1 and parts[0] in ("", "~", ".", ".."):
            parts = [f"{parts[0]}/{parts[1]}", *parts[2:]]
        node = tree
        for part in parts:
            node = node.setdefault(part, {})

    def entries(node: dict) -> list[tuple[str, dict]]:
        """A folder's entries, less the empty one a trailing slash leaves beside its files."""
        return [(name, below) for name, below in node.items() if name or below or len(node) == 1]

    top: list[str] = []
    stack: list[tuple[str, Any, list[str], list[str]]] = [("", iter(entries(tree)), [], top)]
    while stack:  # each folder: its entries written in turn, then itself as "name/{entries}"
        folder, below, written, into = stack[-1]
        entry = next(below, None)
        if entry is None:
            stack.pop()
            into.append(f"{folder}/{{{', '.join(written)}}}" if stack else ", ".join(written))
            continue
        chain = [entry[0]]
        node = entry[1]
        while len(only := entries(node)) == 1:  # a folder with one entry: one path on (joined once)
            (child, node), = only
            chain.append(child)
        name = "/".join(chain)
        if only:
            stack.append((name, iter(only), [], written))
        else:
            written.append(name)
    return top[0]


def _is_blob(text: str) -> bool:
    """A JSON object or list (a tool's status, an API answer): no statement a reader needs."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return False
    try:
        orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return False
    return True


def replies(fates: list[Any]) -> dict[str, Any]:
    """What answered each message: the other side's last text before the first side speaks again
    (a request's outcome, a question's answer), by element id. A heartbeat poll is the user's side
    speaking: what follows it answers the poll, not a message before it. A text of the agent's the
    filter dropped as noise (a delivery copy, a failed turn's fragment) answers nothing: the model
    no longer sees it (a user's dropped ping still ends the agent's turn). A report the runtime delivered
    from another run (a scheduled job's, ``mirror``) never replaces the agent's own answer: it answers only
    what the agent did not (a job the user asked for reporting back)."""
    found: dict[str, Any] = {}
    asking: list[Any] = []
    run: list[Any] = []
    for fate in fates:
        element = fate.element
        if element.kind is Kind.HEARTBEAT_POLL:
            asking, run = [], []
            continue
        if element.kind is not Kind.TEXT or not shown(element).strip() or _is_blob(element.text) \
                or (fate.action == "drop" and element.role is Role.ASSISTANT):
            continue
        if run and element.role is run[-1].element.role:
            run.append(fate)
        else:
            asking, run = run, [fate]
        delivered = bool(element.extra.get("mirror"))
        for asked in asking:
            previous = found.get(asked.element.id)
            if not delivered or previous is None or previous.element.extra.get("mirror"):
                found[asked.element.id] = fate  # the latest text of the answering side wins
    return found


def _poll_answers(fates: list[Any]) -> frozenset[str]:
    """The agent's texts between a heartbeat poll and the user's next message (element ids): what
    it said to the poll (a check-in, a file read back), no fact of the conversation — unless the
    classifier found a must-keep item in one, which the digest quotes as such."""
    found: set[str] = set()
    polled = False
    for fate in fates:
        element = fate.element
        if element.kind is Kind.HEARTBEAT_POLL or (element.kind is Kind.TEXT and element.role is Role.USER):
            polled = element.kind is Kind.HEARTBEAT_POLL
        elif polled and element.kind is Kind.TEXT:
            found.add(element.id)
    return frozenset(found)


def _worth_quoting(fate: Any, *, reply: bool = False) -> bool:
    """Not a JSON blob, and not a greeting: an item that is nothing but social words ("hi", "thanks!"
    — a classifier may still call one a decision), a reply that is only pleasantries."""
    text = shown(fate.element)
    if not text.strip() or _is_blob(text):
        return False
    condenser = _condenser()
    if not condenser.is_phatic(text):
        return True
    social = condenser.rules.phatic_words
    return not reply and any(unit not in social for unit in condenser.content_units(text))


@functools.cache
def _condenser() -> Any:
    from apollo.renal.condense import Condenser

    return Condenser()


#: kinds whose statements still stand once a question in them is answered (an answered question does not)
_STANDING = ("decision", "preference")


def must_keep_items(fates: list[Any]) -> list[Any]:
    """The fates the digest quotes under a must-keep heading: the must-keep ones, and a decision or
    preference whose question was answered (the answer settles the question, not the statements)."""
    return [f for f in fates if f.category in ("decision", "preference", "task", "question")
            and (f.must_keep or (f.confirm and not f.outdated) or (f.status == "answered" and f.category in _STANDING))
            and _worth_quoting(f)]


def quoted_items(fates: list[Any], level: Level) -> list[Any]:
    items = must_keep_items(fates)
    if level.keep_newest is not None:
        return items[len(items) - level.keep_newest:] if level.keep_newest > 0 else []
    return items


def failed_summary(text: str, patterns: list[re.Pattern[str]]) -> bool:
    """An earlier compaction's summary is the summariser's failure ("Please provide the conversation
    …", "Since there is no conversation provided, …"): its first line says so (``digest_failed_summary``)."""
    first = text.strip().split("\n", 1)[0]
    return any(pattern.search(first) for pattern in patterns)


def without_empty_sections(text: str, patterns: list[re.Pattern[str]]) -> str:
    """An earlier compaction's summary less its Markdown sections whose body says only that there is
    nothing (``digest_empty_section``: "## Open TODOs" then "None."); empty when nothing else is left.
    A "#" line inside a code block is the code's (a comment), no heading."""
    parts: list[str] = []
    lines = text.splitlines(keepends=True)
    for line, code in zip(lines, code_lines(lines), strict=True):
        if _HEADING_LINE.match(line) and not code or not parts:
            parts.append("")
        parts[-1] += line
    kept = [part for part in parts if not (part.startswith("#") and any(
        pattern.search(part.split("\n", 1)[1].strip() if "\n" in part else "") for pattern in patterns))]
    return "".join(kept).strip()


def _tag(line: str) -> str:
    """The name of the tag ``line`` opens ("<read-files>" alone on it, from its start), or ""."""
    bare = line.rstrip()
    return bare[1:-1] if bare.startswith("<") and bare.endswith(">") and not bare.startswith("</") else ""


def _block_end(lines: list[str], code: list[bool], index: int, tags: frozenset[str]) -> int | None:
    """The line closing the block whose tag opens at ``index``: its tag's closing line outside code,
    before any other block opens (blocks do not nest); None when there is none."""
    closing = f"</{_tag(lines[index])}>"
    for at in range(index + 1, len(lines)):
        if not code[at] and lines[at].rstrip() == closing:
            return at
        if not code[at] and _tag(lines[at]) in tags:
            return None
    return None


def without_appended_blocks(text: str, left_out: frozenset[str], file_lists: frozenset[str],
                            path: re.Pattern[str]) -> str:
    """An earlier compaction's summary less the block OpenClaw's compaction safeguard appends to its
    end that copies the workspace's own files (tags in ``left_out``: ``<workspace-critical-rules>``,
    the startup and safety sections of AGENTS.md, which the agent's system prompt holds on every
    run; such a block anywhere else is the summary's and stays), and with its lists of files read or
    changed (tags in ``file_lists``: ``<read-files>``, one path a line) written as a tree
    (:func:`_by_folder`: the same paths, each folder once). A block is its tag's line (at the line's
    start), its body and the closing tag's line outside code, before another block opens; one never
    closed, inside code, or a list with a line that is no path (``path``: a heading, a blank line,
    prose, a brace or a comma, which a tree could not tell apart; a secret) or none, stays as written, and so
    does every line outside the blocks (line ends too). Time linear in the summary."""
    lines = text.split("\n")
    code = code_lines(lines)
    tags = left_out | file_lists
    last = max((at for at, line in enumerate(lines) if line.strip()), default=0)  # where the summary ends
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line, name = lines[index], "" if code[index] else _tag(lines[index])
        end = _block_end(lines, code, index, tags) if name in tags else None
        paths = [entry.removesuffix("\r") for entry in lines[index + 1:end]] if end is not None else []
        if end is not None and name in left_out and end >= last:
            while kept and not kept[-1].strip():
                kept.pop()  # the blank lines before it go with the block
            return "\n".join(kept)
        if end is None or name not in file_lists or not _tree_ready(paths, path):
            kept.append(line)
            index += 1
            continue
        kept += [line, _by_folder(paths) + line[len(line.rstrip("\r")):], lines[end]]
        index = end + 1
    return "\n".join(kept)


def _tree_ready(paths: list[str], path: re.Pattern[str]) -> bool:
    """Whether a list can be written as a tree: every line a path, none holding a secret (redaction
    marks a key inside a path whole; split at its slashes, its parts would escape it)."""
    return bool(paths) and all(path.fullmatch(entry) and redact(entry) == entry for entry in paths)


def earlier_summary(text: str) -> str:
    """An earlier compaction's summary as the digest quotes it: whole, less the gateway's metadata
    blocks it copied from the messages it kept (the stamps before them say when and who)."""
    from apollo.transcript.openclaw_rules import rules

    return rules().without_metadata(text).strip()


def _pointer(text: str, limit: int) -> str:
    """The start of ``text`` on one line: enough to tell what it was; the source session keeps it whole under its id."""
    text = _one_line(text)
    return text if len(text) <= limit else text[:max(limit, 1)].rstrip() + " …"


def _id(fate: Any, quote: str, referred: bool) -> str:
    """The id a line gives a message by (``[id] ``) when ``quote`` (on one line) is cut, where the source
    session keeps the rest under it, or when another line refers to it (``referred``): a message
    quoted whole needs none (a table's delimiter rows aside). A quote whose secret was marked is not
    whole: the id leads to the entry that holds the key the user gave."""
    return f"[{fate.element.id}] " if referred or quote != " ".join(_sent(shown(fate.element)).split()) else ""


def _marks(quote: str, lang: str) -> str:
    """A quote between the language's quotation marks."""
    opening, closing = ("“", "”") if lang == "zh" else ('"', '"')
    return f"{opening}{quote}{closing}"


def _said(text: str, limit: int) -> str:
    """A user's message as the requests section quotes it: the description of an image or a video
    that OpenClaw's media understanding wrote into it (a vision model's words, not the user's) only
    by its first ``limit`` letters' worth, as an outdated item is pointed to, and the caption before
    it without the channel's stamp media understanding copied in front of it."""
    from apollo.transcript.openclaw_rules import rules

    found = rules().media_description(text)
    if found is None:
        return text
    caption, start = found
    return rules().without_stamp_at(text[:start], caption) + _pointer(text[start:], _chars_for(text[start:], limit))


def requests(fates: list[Any], listed: list[Any], answers: dict[str, Any] | None = None) -> list[Any]:
    """The user's messages not listed under a must-keep heading: what the user asked for, in the
    user's words, even when the classifier saw no decision, rule, task or question in it (a terse
    request, one it took for answered or done), unless the filter found it to be noise or a later
    message superseded it. A request sent again word for word whose first copy nothing answered on
    its own (a scheduled job's prompt retried after a failed turn, the same question twice in a row)
    is quoted once, at its later copy; copies answered apart are each quoted with their answer.
    ``answers``: :func:`replies` of ``fates``, when the caller has them."""
    return _latest_copies(_asked(fates, listed), replies(fates) if answers is None else answers)


def _latest_copies(asked: list[Any], answers: dict[str, Any]) -> list[Any]:
    kept: list[Any] = []
    later: dict[str, Any] = {}
    for fate in reversed(asked):
        words = " ".join(fate.element.text.split())
        newer = later.get(words)
        if newer is not None and answers.get(fate.element.id) is answers.get(newer.element.id):
            continue  # what answered the later copy answered this one: the same request, sent again
        later[words] = fate
        kept.append(fate)
    return kept[::-1]


def _asked(fates: list[Any], listed: list[Any]) -> list[Any]:
    shown = {f.element.id for f in listed}
    return [f for f in fates if f.element.role is Role.USER and f.element.kind is Kind.TEXT and f.action != "drop"
            and f.status != "superseded" and f.element.id not in shown and _worth_quoting(f)]


#: what an entry may hold to stay as a message outside the kept tail: a dialogue turn, no tool work
#: (a tool call cannot stay without its result, nor a result without its call)
_DIALOGUE = frozenset({Kind.TEXT, Kind.THINKING})


def kept_as_messages(fates: list[Any], item_chars: int = 1 << 30, pause_hours: float | None = None) -> frozenset[str]:
    """The entries (record ids) that stay as messages instead of digest lines: the exchanges of
    :func:`_exchanges` whose turns are all dialogue (text, and thinking) and whose first turn came with
    a channel's envelope (time, sender, message id: what a quote cannot carry), when they fit
    (:func:`_fits`) and come after the user's last pause of ``pause_hours`` (:func:`settled`: from an
    earlier sitting, the quote and its id are enough), a task's whatever its time (its state, done,
    half done or blocked and why, is in its answer); or an item too long to quote whole that was
    decided on (:func:`_decided_on`)."""
    kinds: dict[str, set[Kind]] = {}
    for fate in fates:
        if fate.element.record_id is not None:
            kinds.setdefault(fate.element.record_id, set()).add(fate.element.kind)
    kept: set[str] = set()
    done = settled(fates, pause_hours)
    for line in _exchanges(fates):
        records = [f.element.record_id for f in line]
        if not all(r is not None and kinds[r] <= _DIALOGUE for r in records):
            continue
        first, reply = line[0], (line[1] if len(line) > 1 else None)
        if (first.element.envelope and (first.element.id not in done or first.category == "task")
                and _fits(line, item_chars)) \
                or _decided_on(first, reply, item_chars):
            kept.update(r for r in records if r is not None)
    return frozenset(kept)


def _exchanges(fates: list[Any]) -> list[list[Any]]:
    """Each must-keep item, and each task the agent only claims done (its claim is not the user's
    check), with what answered it; and each question of the user's (open, or one the classifier found
    answered) that a must-keep item of the agent's answered (a profile it gave when asked, a decision
    it stated), with that answer: the answer is read against the question."""
    items = must_keep_items(fates)
    answers = replies(fates)
    claimed = [f for f in requests(fates, items, answers) if f.category == "task" and f.status == "done"]
    lines = []
    for fate in (*items, *claimed):
        reply = answers.get(fate.element.id)
        lines.append([fate] + ([reply] if reply is not None and reply.action != "drop"
                               and _worth_quoting(reply, reply=True) else []))
    said = {f.element.id for f in items if f.element.role is Role.ASSISTANT}
    for question in fates:
        answer = answers.get(question.element.id)
        if answer is not None and answer.element.id in said and question.element.role is Role.USER \
                and (question.category == "question" or question.status == "answered") and question.action != "drop":
            lines.append([question, answer])
    return lines


def _fits(line: list[Any], item_chars: int) -> bool:
    """Every turn of an exchange no longer than ``item_chars`` letters' worth (a CJK character
    counts as ``WIDE_CHAR_LETTERS``, as in an outcome's limit: the exchange stays whole when it says
    no more than that in either script), but the answer to an open task up to twice that: the
    task's state (done, half done, blocked and why) is in it, where the quote of an outcome (its
    opening and closing sentences) may miss it."""
    first, *rest = line
    limit = 2 * item_chars if first.must_keep and first.category == "task" else item_chars
    return len(first.element.text) <= _chars_for(first.element.text, item_chars) \
        and all(len(f.element.text) <= _chars_for(f.element.text, limit) for f in rest)


def reasoned(fates: list[Any], kept: frozenset[str]) -> frozenset[str]:
    """The records of ``kept`` that hold a must-keep item the agent said: they keep their thinking
    too, where the agent worked out why it decided, or where the facts it states came from (the
    item is the whole turn; the thinking of other messages kept goes)."""
    return frozenset(f.element.record_id for f in must_keep_items(fates)
                     if f.element.role is Role.ASSISTANT and f.element.record_id in kept)


def _decided_on(fate: Any, reply: Any, item_chars: int) -> bool:
    """A must-keep item too long to quote whole that the other side answered with a decision or a
    rule of its own: that decision is read against the whole item, whose middle a quote would lose.
    Not a request the agent reports carried out (a file pasted with "extract the prompts", then
    "Done: the prompts are saved"): its outcome answers it, and the digest pairs the two."""
    return len(fate.element.text) > item_chars and reply is not None and reply.must_keep \
        and reply.category in _STANDING and reply.element.role is not fate.element.role and fate.category != "task"


def _tools_and_files(fates: list[Any], titles: dict[str, str], said: str, written: frozenset[str]) -> list[str]:
    """The sections naming the tools used and the files touched: paths in tool calls, none that
    ``said`` (the digest above) already gives, as an attachment's path in a request or an earlier
    summary's file list do, and none inside the text a call writes (:func:`_named_by`)."""
    sections = []
    tools = Counter(f.element.tool_name for f in fates if f.element.kind is Kind.TOOL_CALL and f.element.tool_name)
    if tools:
        sections.append(f"## {titles['tools']}\n" + ", ".join(f"{name} ×{n}" for name, n in tools.most_common()))
    files = list(dict.fromkeys(m for f in fates if f.element.kind is Kind.TOOL_CALL
                               for m in _PATH.findall(_named_by(f.element.text, written))
                               if not m.startswith(_NOT_FILES) and m not in said))
    if files:
        sections.append(f"## {titles['files']}\n" + _by_folder(files[:40]))
    return sections


def call_arguments(text: str) -> dict[str, Any] | None:
    """A tool call's arguments as the JSON object they are, else None."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _named_by(arguments: str, written: frozenset[str]) -> str:
    """A tool call's arguments less the text it writes (the values of ``written``: a file's content,
    an edit's new text): a path in a script's shebang or a template's placeholder name no file the
    call touched. Arguments that are no JSON object are searched whole."""
    data = call_arguments(arguments)
    if data is None:
        return arguments
    return orjson.dumps({key: value for key, value in data.items() if key not in written}).decode()


def _quoted_requests(fates: list[Any], answers: dict[str, Any], as_messages: frozenset[str],
                     level: Level) -> tuple[list[Any], list[Any], int]:
    """The user's other requests a digest quotes, all of them (the copies quoted at a later copy
    too), and how many such copies are listed there (not those that stay as messages below)."""
    every = _asked(fates, must_keep_items(fates)) if level.keep_newest is None else []
    latest = _latest_copies(every, answers)
    quoted = {id(f) for f in latest}
    copies = sum(1 for f in every if id(f) not in quoted and f.element.record_id not in as_messages)
    return [f for f in latest if f.element.record_id not in as_messages], every, copies


def settled(fates: list[Any], pause_hours: float | None) -> frozenset[str]:
    """The user's messages (element ids) sent before the user's last pause of at least ``pause_hours``
    (a night, a day away; the user's own words count: not a heartbeat's polls, a runtime notice with no
    words of the user's, nor a ping the filter drops as noise ("你好", "在吗": no return to the
    conversation); a request said again or an acknowledgement ("ok do it", "好" after an offer) is the
    user back, though the filter drops it as a copy or a formula; a
    pause runs from the latest time seen, so one stamp out of order makes none): the user has come back since, and what
    answered them is settled, but for the last exchange before the pause: the conversation left off
    there, and the user's return often takes it up ("Good morning! Option 2 please": the options are
    what it is read against, whatever words the user picks). None when no
    pause is that long, or times are missing."""
    said = [f for f in fates if f.element.role is Role.USER and f.element.kind is Kind.TEXT
            and f.element.text.strip() and not (f.action == "drop" and f.bucket == "noise")]
    boundary, previous = 0, None
    for position, fate in enumerate(said):
        at = parse_timestamp(fate.element.timestamp)
        if pause_hours is not None and at is not None and previous is not None \
                and (at - previous).total_seconds() >= pause_hours * 3600:
            boundary = position
        previous = at if previous is None or (at is not None and at > previous) else previous
    if boundary > 0:
        boundary -= 1  # where the conversation left off: the user's return often takes it up
    return frozenset(fate.element.id for fate in said[:boundary])


def _worked(fates: list[Any], position: dict[str, int], asked: Any, answer: Any) -> bool:
    """The agent called a tool between ``asked`` and its ``answer``: the answer reports work done (a
    job's id, a file's path, a run's result), what a settled conversation's answer does not."""
    return any(f.element.kind is Kind.TOOL_CALL for f in fates[position[asked.element.id]:position[answer.element.id]])


class _Lines:
    """How the digest writes one item's line: its quote, its id where needed, what answered it."""

    def __init__(self, fates: list[Any], lang: str, level: Level, answers: dict[str, Any], quoted: set[str],
                 listed: list[Any], done: frozenset[str], widths: tuple[int | None, int | None],
                 longer: tuple[frozenset[str], int]):
        self.fates, self.lang, self.level, self.answers, self.quoted, self.done = fates, lang, level, answers, quoted, done
        self.outdated_chars, self.reply_chars = widths
        self.longer, self.longer_chars = longer
        self.position = {f.element.id: at for at, f in enumerate(fates)}
        # how many lines point to each message as what answered them: an id is written where a line refers to it
        self.pointed = Counter(reply.element.id for f in listed if (reply := self.paired(f)) is not None)

    def paired(self, fate: Any) -> Any:
        """What answered ``fate``, when its line quotes it (a user's message, a question)."""
        reply = self.answers.get(fate.element.id) if fate.element.role is Role.USER or fate.category == "question" else None
        if reply is None or self.level.shortens_must_keep or reply.action == "drop" \
                or not _worth_quoting(reply, reply=True):
            return None
        return reply

    def line(self, fate: Any, width: int, said: str | None = None) -> str:
        """A must-keep item (``said`` None) with its id; a request (``said``: its text as quoted) with
        its id only where its quote is cut or another line points to it; then what answered it."""
        cut = max(width, self.longer_chars) if fate.element.id in self.longer else width
        quote = _quote(shown(fate.element) if said is None else said, cut)
        text = f"- {_id(fate, quote, said is None or self.pointed[fate.element.id] > 0)}{_marks(quote, self.lang)}"
        reply = self.paired(fate)
        if reply is None:
            return text
        if reply.element.id in self.quoted:
            return text + f" → [{reply.element.id}]"
        self.quoted.add(reply.element.id)  # an answer to several messages is quoted under the first
        answered = self.outdated_chars if said is not None and fate.element.id in self.done and fate.category != "task" \
            and not _worked(self.fates, self.position, fate, reply) else self.reply_chars
        outcome = _outcome(shown(reply.element), min(width, answered or width))
        return text + f" → {_id(reply, outcome, self.pointed[reply.element.id] > 1)}{outcome}"


def build(fates: list[Any], lang: str, item_chars: int, *, earlier: list[str] | tuple[str, ...] = (),
          level: Level = LEVELS[0], outdated_chars: int | None = None, reply_chars: int | None = None,
          as_messages: frozenset[str] = frozenset(), written: frozenset[str] = frozenset(),
          longer: frozenset[str] = frozenset(), longer_chars: int = 0, pause_hours: float | None = None) -> str:
    """The digest of ``fates`` (everything before the tail) after the ``earlier`` summaries: the one
    place its text is made.

    Verbatim: the must-keep items and the user's other requests (short, and what a summary most
    often loses), each with what answered it, and with its id where the quote is cut or a line points
    to it (a must-keep item always). Pointers (an id and the start of the text,
    the source session keeps whole): what the classifier found superseded, answered or done. The entries
    in ``as_messages`` (record ids) stay as messages after the digest and are not repeated in it;
    ``written`` names the tool-call arguments that hold text a call writes (no file is named there);
    the entries in ``longer`` (element ids: the requests a capped tail left out) are quoted up to
    ``longer_chars``. A request sent before the user's last pause of ``pause_hours`` (:func:`settled`)
    has its answer quoted in ``outdated_chars``, as what is settled."""
    titles = TITLES["zh" if lang == "zh" else "en"]
    limit = max(int(item_chars * level.item_share), 40)
    answers = replies(fates)
    sections: list[str] = [titles["head"]]
    if earlier and level.keep_newest is None:
        earlier_limit = None if not level.shortens_must_keep else limit * 4
        sections.append(f"## {titles['earlier']}\n" + "\n\n".join(
            earlier_summary(text) if earlier_limit is None else _quote(earlier_summary(text), earlier_limit)
            for text in earlier))
    below = [f for f in fates if f.element.record_id in as_messages and f.element.kind is Kind.TEXT]
    if below:
        sections.append(titles["below"].format(n=len({f.element.record_id for f in below})))
    chosen = [f for f in quoted_items(fates, level) if f.element.record_id not in as_messages]
    asked, every, copies = _quoted_requests(fates, answers, as_messages, level)
    quoted = {f.element.id for f in (*chosen, *every, *below)}  # a copy is quoted at its latest

    line = _Lines(fates, lang, level, answers, quoted, [*chosen, *asked], settled(fates, pause_hours),
                  (outdated_chars, reply_chars), (longer, longer_chars)).line
    listed = copies
    for category in ("decision", "preference", "task", "question"):
        items = [f for f in chosen if f.category == category]
        if items:
            listed += len(items)
            sections.append(f"## {titles[category]}\n" + "\n".join(line(f, limit) for f in items))
    if asked:
        listed += len(asked)
        sections.append(f"## {titles['requests']}\n" + "\n".join(
            line(f, limit, _said(shown(f.element), outdated_chars or limit)) for f in asked))
    polled = _poll_answers(fates)
    facts = [f for f in fates if f.rescued and not f.must_keep and f.element.kind is Kind.TEXT and _worth_quoting(f)
             and f.element.id not in polled
             and f.element.id not in quoted]
    if facts and level.facts:
        listed += len(facts)
        sections.append(f"## {titles['facts']}\n" + "\n".join(
            f"- {_quote(shown(f.element), limit)}" for f in facts))
    if level.tools_and_files:
        sections += _tools_and_files(fates, titles, "\n".join(sections), written)
    answering = {answers[i].element.id for i in quoted if i in answers}
    stale = [f for f in fates if f.outdated and f.element.kind is Kind.TEXT and f.action != "drop"
             and _worth_quoting(f) and f.element.id not in polled
             and f.element.id not in quoted and f.element.id not in answering]
    if stale and level.outdated:
        listed += len(stale)
        width = min(limit, outdated_chars or limit)
        sections.append(f"## {titles['superseded']}\n" + "\n".join(
            f"- [{f.element.id}] {_pointer(shown(f.element), _chars_for(shown(f.element), width))}" for f in stale))
    omitted = sum(1 for f in fates if f.element.kind in (Kind.TEXT, Kind.HEARTBEAT_POLL, Kind.HEARTBEAT_REPLY)) \
        - listed - len(below)
    if omitted > 0:
        sections.append(titles["omitted"].format(n=omitted))
    # the digest is read back into the model's context and kept in files: no pasted secret in clear
    return redact("\n\n".join(sections))
