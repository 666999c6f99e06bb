"""Entries inside files: Markdown memory entries and timestamped heartbeat-log entries.

Everything works on bytes and returns byte ranges, so cutting an entry out leaves every
other byte of the file exactly as it was. Nothing here guesses: a timestamp must match the
configured expression and name a real date, a marker must be on an entry's first line.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

import orjson

from apollo.autophagy.rules import Heartbeat, Memory

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_DATE = re.compile(r"(?<!\d)(?:\d{4}-)?\d{1,2}-\d{1,2}(?!\d)")
# a version starts only where a run of digits does: tried from inside a run it fails as the run did, after
# reading the run again (a reference of 64k digits took 72 s, read from each of them)
_WORD = re.compile(r"[A-Za-z][\w.+#-]{2,}|[\u4e00-\u9fff]{2,}|(?<!\d)\d+(?:\.\d+)+")
# Tokens that carry a document's content: a cut may remove some of them, never change the others.
_CONTENT = ("inline", "fence", "code_block", "html_block")


@dataclass(frozen=True)
class Line:
    number: int      # 1-based
    start: int       # byte offset
    end: int         # byte offset after the line ending
    text: str        # decoded, without the line ending


def split_lines(data: bytes) -> list[Line]:
    lines = []
    offset = 0
    for number, raw in enumerate(data.splitlines(keepends=True), 1):
        content = raw.rstrip(b"\r\n")
        lines.append(Line(number, offset, offset + len(raw), content.decode("utf-8", "replace")))
        offset += len(raw)
    return lines


# -- Markdown memory entries --------------------------------------------------------------------

@dataclass
class Entry:
    """A list item, paragraph or heading section of a Markdown file, as a byte range."""

    kind: str                 # "item" | "paragraph" | "section"
    start: int
    end: int
    line: int
    first: str                # the first line's text
    text: str                 # the whole entry's text
    section: tuple[str, ...]  # the headings above it
    level: int = 0            # heading level (sections) or list nesting (items)
    visible: str = ""         # the first line as a reader sees it: code spans left out
    lines: tuple[int, int] = (0, 0)  # 0-based [first, end) line range


def _parser():  # here: markdown-it loads only when a memory file is read
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _tokens(text: str) -> list:
    return _parser().parse(text)


def _first_line_visible(inline) -> str:
    """The text of an inline token up to its first line break, code spans left out (HTML
    comments kept: ``<!-- outdated -->`` is a marker)."""
    out = []
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            break
        if child.type != "code_inline":
            out.append(child.content)
    return "".join(out)


def markdown_entries(data: bytes) -> list[Entry]:
    """Every entry in document order, as a CommonMark parser sees the file: list items (at any
    depth), top-level paragraphs, and heading sections (never a level-1 heading's: that is the
    document). Code blocks, HTML blocks and quotes are never entries nor parts of a neighbour."""
    lines = split_lines(data)
    if not lines:
        return []
    tokens = _tokens(data.decode("utf-8", "replace"))
    headings = [(int(t.tag[1]), i) for i, t in enumerate(tokens) if t.type == "heading_open" and t.level == 0]
    entries: list[Entry] = []
    trail: list[tuple[int, str]] = []
    quoted = 0  # inside a quote (someone's words, kept whole), nothing is an entry
    for index, token in enumerate(tokens):
        quoted += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        if token.map is None or quoted:
            continue
        first, end = token.map
        if token.type == "heading_open" and token.level == 0:
            level = int(token.tag[1])
            title = tokens[index + 1].content.strip()
            trail = [h for h in trail if h[0] < level]
            section = tuple(h[1] for h in trail)
            trail.append((level, title))
            if level == 1:
                continue
            following = next((tokens[j].map[0] for lv, j in headings if j > index and lv <= level), len(lines))
            entries.append(_make("section", lines, first, following, section, data, level,
                                 _first_line_visible(tokens[index + 1]), trim=False))
        elif token.type == "list_item_open":
            inline = tokens[index + 2] if tokens[index + 1].type == "paragraph_open" and tokens[index + 1].map \
                and tokens[index + 1].map[0] == first else None
            visible = _first_line_visible(inline) if inline is not None else ""
            entries.append(_make("item", lines, first, end, tuple(h[1] for h in trail), data, token.level, visible))
        elif token.type == "paragraph_open" and token.level == 0:
            entries.append(_make("paragraph", lines, first, end, tuple(h[1] for h in trail), data, 0,
                                 _first_line_visible(tokens[index + 1])))
    return entries


def _make(kind: str, lines: Sequence[Line], first: int, end: int, section: tuple[str, ...], data: bytes,
          level: int, visible: str, *, trim: bool = True) -> Entry:
    end = min(end, len(lines))
    while trim and end > first + 1 and not lines[end - 1].text.strip():
        end -= 1  # the blank lines after an entry separate it from the next one: they stay
    start_byte = lines[first].start
    end_byte = lines[end - 1].end
    text = data[start_byte:end_byte].decode("utf-8", "replace")
    return Entry(kind, start_byte, end_byte, lines[first].number, lines[first].text, text, section, level, visible,
                 (first, end))


def _blocks(text: str) -> Iterator[tuple[list[int] | None, tuple[str, str]]]:
    """Each content block's lines and (kind, content); the kind of an inline is its block's (a
    paragraph, a level-2 heading): "para" above a "---" that a cut brought next to it is a heading."""
    tokens = _tokens(text)
    for index, token in enumerate(tokens):
        if token.type in _CONTENT:
            opener = tokens[index - 1] if token.type == "inline" and index else token
            yield token.map, (f"{opener.type}:{opener.tag}", token.content)


def _content(text: str) -> list[tuple[str, str]]:
    return [content for _, content in _blocks(text)]


def keeps_structure(data: bytes, together: Sequence[Entry],
                    before: list[tuple[int, int, tuple[str, str]]] | None = None) -> bool:
    """Whether cutting the entries ``together`` out leaves every other block exactly as it was: no
    fence, HTML comment or quote that the cuts open, close or merge (content outside the entries
    unchanged). Together, because the cuts of one file are applied at once: two quotes each cut alone
    leaves apart merge when both entries between them go. An entry inside another goes with it."""
    text = data.decode("utf-8", "replace")
    if before is None:
        before = _content_at(text)
    spans = [e.lines for e in together]
    kept = [content for start, stop, content in before if all(stop <= first or start >= end for first, end in spans)]
    return kept == _content(cut(data, nested_together((e.start, e.end) for e in together)).decode("utf-8", "replace"))


def _offerable(data: bytes, entry: Entry, accepted: Sequence[Entry],
               before: list[tuple[int, int, tuple[str, str]]] | None) -> bool:
    """Whether ``entry``'s cut keeps every other block intact alone and with the ``accepted`` cuts of
    its file (a user may confirm one, or all, and a file's cuts are applied at once)."""
    return keeps_structure(data, [entry], before) and (not accepted or keeps_structure(data, [*accepted, entry], before))


def _content_at(text: str) -> list[tuple[int, int, tuple[str, str]]]:
    return [(lines[0], lines[1], content) for lines, content in _blocks(text) if lines]


def _marker_matches(visible: str, markers: Sequence[str]) -> str | None:
    folded = visible.casefold()
    for marker in markers:
        if marker.isascii():
            if marker.casefold() in folded:
                return marker
        elif marker in visible:
            return marker
    return None


def marked_entries(entries: Sequence[Entry], rules: Memory, data: bytes | None = None) -> list[tuple[Entry, str]]:
    """Entries whose first line carries a marker (outside code); an entry inside a marked one
    is not repeated. With ``data``, an entry whose cut, alone or with those of the entries found
    before it, would change any other block is left."""
    found: list[tuple[Entry, str]] = []
    before = _content_at(data.decode("utf-8", "replace")) if data is not None else None
    for entry in entries:
        marker = _marker_matches(entry.visible, rules.markers)
        if marker and not any(e.start <= entry.start and entry.end <= e.end for e, _ in found) \
                and (data is None or _offerable(data, entry, [e for e, _ in found], before)):
            found.append((entry, marker))
    return found


def _normalise(text: str) -> str:
    text = re.sub(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+", "", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    return " ".join(text.split()).casefold()


def _subject(entry: Entry, rules: Memory) -> str | None:
    body = _normalise(entry.first)
    cut = min((body.find(sep) for sep in rules.subject_separators if sep in body), default=-1)
    if cut <= 0:
        return None
    subject = body[:cut].strip()
    if not subject or len(subject) > rules.max_subject_chars or _DATE.fullmatch(subject):
        return None
    return subject


def _reference_tokens(ref: str, stopwords: set[str]) -> list[str]:
    dates = _DATE.findall(ref)
    rest = _DATE.sub(" ", ref)
    words = [w for w in _WORD.findall(rest) if w.casefold() not in stopwords]
    return [*dates, *words]


def _contains(entry: Entry, token: str) -> bool:
    if _DATE.fullmatch(token):
        return re.search(rf"(?<!\d){re.escape(token)}(?!\d)", entry.text) is not None
    return token.casefold() in entry.text.casefold()


def superseded_entries(entries: Sequence[Entry], rules: Memory, exclude: Sequence[Entry] = (),
                       data: bytes | None = None) -> list[tuple[Entry, Entry, str]]:
    """(earlier entry, later entry that supersedes it, how we know) — suggestions only. Same
    subject and exact repeats are found through indexes (linear in the number of entries); a
    reference phrase searches back through the earlier entries of its own section."""
    excluded = sorted((x.start, x.end) for x in exclude)
    # an entry that ends in a colon ("Example:") introduces the block after it: not a fact of its own
    candidates = [e for e in entries if e.kind in ("item", "paragraph") and not _inside_any(e, excluded)
                  and not _normalise(e.text).endswith((":", "："))]
    stop = {w.casefold() for w in rules.reference_stopwords}
    phrases = [re.compile(p) for p in rules.supersede_phrases]
    found: dict[int, tuple[Entry, Entry, str]] = {}
    by_section: dict[tuple[str, ...], list[Entry]] = {}
    by_subject: dict[tuple, list[Entry]] = {}
    by_text: dict[tuple, list[Entry]] = {}
    places = _places(entries)
    # a numbered list's items are distinct by their numbers ("5. **即将执行**：backup-to-ima.js",
    # "6. **即将执行**：backup-to-doc-table.js"): the same subject there is no update
    keys = {e.start: (*places[e.start], e.level, subject) for e in entries
            if e.kind == "item" and not _NUMBERED.match(e.first) and (subject := _subject(e, rules)) is not None}
    labels = _labels(candidates, keys)
    for later in candidates:
        pool = by_section.setdefault(later.section, [])
        for phrase in phrases:
            for match in phrase.finditer(later.text):
                tokens = _reference_tokens(match.group("ref") or "", stop)
                if not tokens:
                    continue
                for earlier in reversed(pool):
                    if earlier.end <= later.start and all(_contains(earlier, t) for t in tokens):
                        found.setdefault(earlier.start, (earlier, later, "reference"))
                        break
        found_key = keys.get(later.start)
        subject_key: tuple = found_key if found_key is not None and found_key not in labels else ()
        text_key = (places[later.start], _normalise(later.text))
        for key, index, how in ((subject_key, by_subject, "subject"), (text_key, by_text, "repeat")):
            if not key:
                continue
            waiting = index.get(key, [])
            for earlier in [e for e in waiting if e.end <= later.start]:
                found.setdefault(earlier.start, (earlier, later, how))
            index[key] = [e for e in waiting if e.end > later.start]
        pool.append(later)
        if subject_key:
            by_subject.setdefault(subject_key, []).append(later)
        by_text.setdefault(text_key, []).append(later)
    chosen = sorted(found.values(), key=lambda t: t[0].start)
    if data is None:
        return chosen
    before = _content_at(data.decode("utf-8", "replace"))
    together = list(exclude)  # the marked entries, cut with these when all are confirmed
    kept = []
    for found_entry in chosen:
        if _offerable(data, found_entry[0], together, before):
            together.append(found_entry[0])
            kept.append(found_entry)
    return kept


#: a paragraph that is one bold line ("**2. Sleep**:", "**第450次目标**（长期）："): it heads the items
#: under it like a heading. The spaces after the closing mark are read once (``\s*+``): split between the two
#: ``\s*`` in every way, a line of "**a**", 64k spaces and a word took 22 s
_NUMBERED = re.compile(r"\s*\d{1,9}[.)]\s")
_BOLD_LABEL = re.compile(r"\s*(\*\*|__)[^*_\n]+\1(?:\s*+[:：]?|[^\n]*[:：])\s*")


def _places(entries: Sequence[Entry]) -> dict[int, tuple]:
    """Where each entry stands: its section, the bold line heading it there ("**1. Sleep**" then
    "- Coping: …", "**2. Food**" then "- Coping: …" are two subjects; "**全新安装**：" and "**从备份恢复**："
    each with "2. 安装飞书插件" are two procedures, not a repeat), the item it is nested in
    ("- **关键洞察**：" and "- **可迁移模式**：" each with "2. 就医分级：…" are two lists)."""
    places: dict[int, tuple] = {}
    label_of: dict[tuple[str, ...], str] = {}
    items: list[Entry] = []  # the items open around the current one, outermost first
    for entry in entries:
        if entry.kind == "paragraph" and _BOLD_LABEL.fullmatch(entry.first):
            label_of[entry.section] = entry.first.strip()
        while items and items[-1].end < entry.end:
            items.pop()
        places[entry.start] = (entry.section, label_of.get(entry.section), items[-1].start if items else None)
        if entry.kind == "item":
            items.append(entry)
    return places


def _labels(candidates: Sequence[Entry], keys: dict[int, tuple]) -> set[tuple]:
    """Subjects that label parallel items rather than name one fact that changed: three or more
    items in a row with the same subject ("- 教训：…" lessons, as a real MEMORY.md lists them), or a
    subject heading three or more items beside another that does too ("- 问题：…", "- 解决：…" for each
    problem). A subject that comes back among others said once ("- Model: gpt-4", "- Editor: vim",
    "- Model: gpt-4o") is a fact updated; so are two items in a row ("- Theme: dark", "- Theme:
    light"): the words alone cannot tell two lessons from an update, but the file can: a subject that
    labels a run anywhere in it labels its items everywhere (two "- **教训**：" under one date after
    three under another)."""
    labels: set[tuple] = set()
    counts: dict[tuple, int] = {}
    previous, run = None, 0
    for entry in candidates:
        key = keys.get(entry.start)
        run = run + 1 if key is not None and key == previous else 1
        previous = key
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
            if run >= 3:
                labels.add(key)
    frequent: dict[tuple, list[tuple]] = {}  # keys heading three or more items, by where they stand
    for key, count in counts.items():
        if count >= 3:
            frequent.setdefault(key[:-1], []).append(key)
    labels.update(key for group in frequent.values() if len(group) > 1 for key in group)
    subjects = {key[-1] for key in labels}
    labels.update(key for key in counts if key[-1] in subjects)
    return labels


def _inside_any(entry: Entry, ranges: Sequence[tuple[int, int]]) -> bool:
    """Whether the entry lies inside one of ``ranges`` (sorted, disjoint)."""
    position = bisect.bisect_right(ranges, (entry.start, entry.end)) - 1
    return position >= 0 and ranges[position][0] <= entry.start and entry.end <= ranges[position][1]


# -- timestamps and heartbeat-log entries --------------------------------------------------------

def strict_time(match: re.Match[str]) -> datetime | None:
    """A datetime from a timestamp match, or None if it names no real moment. A date alone
    stands for the moment that day is over."""
    g = match.groupdict()
    try:
        day = date(int(g["year"]), int(g["month"]), int(g["day"]))
        zone = _zone(g.get("zone"))
        if g.get("hour") is None:
            return datetime.combine(day, time(), UTC) + timedelta(days=1)
        fraction = (g.get("fraction") or "").ljust(6, "0")[:6]
        moment = time(int(g["hour"]), int(g["minute"]), int(g.get("second") or 0), int(fraction or 0))
        return datetime.combine(day, moment, zone)
    except (ValueError, TypeError):
        return None


def _zone(text: str | None) -> timezone:
    if not text or text.strip() in ("Z", "UTC"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise ValueError("bad zone")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def parse_moment(value: object, timestamp: re.Pattern[str]) -> datetime | None:
    """A time from a string (the timestamp expression must match it whole) or epoch number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if abs(value) >= 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(), UTC) + timedelta(days=1)
    if isinstance(value, str):
        match = timestamp.fullmatch(value.strip())
        return strict_time(match) if match else None
    return None


@dataclass(frozen=True)
class TimedEntries:
    """Which byte ranges of a heartbeat log hold entries older than the cutoff."""

    cuts: list[tuple[int, int]]
    removed: int
    kept: int


def _merge(ranges: Iterator[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in ranges:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def old_entries(data: bytes, suffix: str, rules: Heartbeat, cutoff: datetime) -> TimedEntries:
    """Entries of a heartbeat log older than ``cutoff``; the preamble and undated lines stay."""
    timestamp = re.compile(rules.timestamp)
    lines = split_lines(data)
    if suffix == ".jsonl":
        spans = []
        for line in lines:
            moment = _jsonl_moment(data[line.start:line.end], rules.jsonl_keys, timestamp)
            spans.append((line.start, line.end, moment))
    else:
        starter = re.compile(rules.entry_prefix + "(?:" + rules.timestamp + ")")
        markdown = suffix == ".md"
        spans = []
        current: list = []
        for line in lines:
            match = starter.match(line.text)
            moment = strict_time(match) if match else None
            if moment is not None or (markdown and _HEADING.match(line.text)):
                if current:
                    spans.append(tuple(current))
                current = [line.start, line.end, moment]
            elif current:
                current[1] = line.end
            else:
                spans.append((line.start, line.end, None))
        if current:
            spans.append(tuple(current))
    old = [(s, e) for s, e, m in spans if m is not None and m < cutoff]
    kept = sum(1 for _, _, m in spans if m is not None and m >= cutoff)
    return TimedEntries(_merge(iter(old)), len(old), kept)


def _jsonl_moment(raw: bytes, keys: Sequence[str], timestamp: re.Pattern[str]) -> datetime | None:
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict):
        return None
    for key in keys:
        if key in record:
            return parse_moment(record[key], timestamp)
    return None


def nested_together(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The byte ranges sorted, an entry inside another (or overlapping it) going with it: the cuts
    of one file as they are applied."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(set(ranges)):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def cut(data: bytes, ranges: Sequence[tuple[int, int]]) -> bytes:
    """``data`` without the given (sorted, non-overlapping) byte ranges."""
    pieces = []
    position = 0
    for start, end in sorted(ranges):
        if start < position:
            raise ValueError("overlapping ranges")
        pieces.append(data[position:start])
        position = end
    pieces.append(data[position:])
    return b"".join(pieces)
