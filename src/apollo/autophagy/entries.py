"""Entries inside files: Markdown memory entries and timestamped heartbeat-log entries.

Everything works on bytes and returns byte ranges, so cutting an entry out leaves every
other byte of the file exactly as it was. Nothing here guesses: a timestamp must match the
configured expression and name a real date, a marker must be on an entry's first line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone

import orjson

from apollo.autophagy.rules import Heartbeat, Memory

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_DATE = re.compile(r"(?<!\d)(?:\d{4}-)?\d{1,2}-\d{1,2}(?!\d)")
_WORD = re.compile(r"[A-Za-z][\w.+#-]{2,}|[\u4e00-\u9fff]{2,}|\d+(?:\.\d+)+")


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


def _indent(text: str) -> int:
    return len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip())


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
    level: int = 0            # heading level (sections) or indent (items)
    children: list[Entry] = field(default_factory=list)


def markdown_entries(data: bytes) -> list[Entry]:
    """Every entry in document order (items nested in items are separate entries too)."""
    lines = split_lines(data)
    fenced = _fenced_lines(lines)
    entries: list[Entry] = []
    headings: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i in fenced or not line.text.strip():
            i += 1
            continue
        heading = _HEADING.match(line.text)
        if heading:
            level = len(heading.group(1))
            headings = [h for h in headings if h[0] < level]
            section_path = tuple(h[1] for h in headings)
            end = _section_end(lines, fenced, i, level)
            entries.append(_make("section", lines, i, end, section_path, data, level))
            headings.append((level, line.text.strip().lstrip("#").strip()))
            i += 1
            continue
        section_path = tuple(h[1] for h in headings)
        if _ITEM.match(line.text):
            i = _collect_items(lines, fenced, i, section_path, data, entries)
            continue
        end = i + 1
        while end < len(lines) and end not in fenced and lines[end].text.strip() and not _starts_block(lines[end].text):
            end += 1
        entries.append(_make("paragraph", lines, i, end, section_path, data))
        i = end
    return entries


def _fenced_lines(lines: Sequence[Line]) -> set[int]:
    inside: set[int] = set()
    opener: str | None = None
    for index, line in enumerate(lines):
        fence = _FENCE.match(line.text)
        if opener is None:
            if fence:
                opener = fence.group(1)[0] * len(fence.group(1))
                inside.add(index)
            continue
        inside.add(index)
        if fence and fence.group(1).startswith(opener) and not line.text.strip().strip(opener[0]):
            opener = None
    return inside


def _starts_block(text: str) -> bool:
    return bool(_HEADING.match(text) or _ITEM.match(text) or _FENCE.match(text))


def _section_end(lines: Sequence[Line], fenced: set[int], start: int, level: int) -> int:
    for j in range(start + 1, len(lines)):
        if j in fenced:
            continue
        heading = _HEADING.match(lines[j].text)
        if heading and len(heading.group(1)) <= level:
            return j
    return len(lines)


def _item_end(lines: Sequence[Line], fenced: set[int], start: int, indent: int) -> int:
    """Continuation lines, sub-items and indented blocks belong to the item; a blank line ends
    it unless more-indented content follows."""
    j = start + 1
    previous_blank = False
    while j < len(lines):
        text = lines[j].text
        if j in fenced:
            if _indent(text) > indent or not previous_blank:
                j += 1
                continue
            return j
        if not text.strip():
            following = next((k for k in range(j + 1, len(lines)) if lines[k].text.strip()), None)
            if following is None or _indent(lines[following].text) <= indent:
                return j
            previous_blank = True
            j += 1
            continue
        if _indent(text) > indent:
            previous_blank = False
            j += 1
            continue
        if previous_blank or _starts_block(text):
            return j
        j += 1  # a lazy continuation line of the item's paragraph
    return j


def _collect_items(lines: Sequence[Line], fenced: set[int], start: int, section: tuple[str, ...],
                   data: bytes, out: list[Entry]) -> int:
    """Items of one list (and their nested items); returns the index after the last item."""
    i = start
    while i < len(lines):
        match = _ITEM.match(lines[i].text) if i not in fenced else None
        if not match:
            return i
        indent = _indent(match.group(1))
        end = _item_end(lines, fenced, i, indent)
        item = _make("item", lines, i, end, section, data, indent)
        out.append(item)
        j = i + 1
        while j < end:  # nested items
            if j not in fenced and _ITEM.match(lines[j].text):
                j = _collect_items(lines, fenced, j, section, data, out)
            else:
                j += 1
        i = end
        while i < len(lines) and not lines[i].text.strip():
            nxt = next((k for k in range(i, len(lines)) if lines[k].text.strip()), None)
            if nxt is None or nxt in fenced or not _ITEM.match(lines[nxt].text):
                return i
            i = nxt
    return i


def _make(kind: str, lines: Sequence[Line], first: int, end: int, section: tuple[str, ...], data: bytes,
          level: int = 0) -> Entry:
    start_byte = lines[first].start
    end_byte = lines[end - 1].end if end > first else lines[first].end
    text = data[start_byte:end_byte].decode("utf-8", "replace")
    return Entry(kind, start_byte, end_byte, lines[first].number, lines[first].text, text, section, level)


def _marker_matches(first_line: str, markers: Sequence[str]) -> str | None:
    visible = _CODE_SPAN.sub("", first_line)
    folded = visible.casefold()
    for marker in markers:
        if marker.isascii():
            if marker.casefold() in folded:
                return marker
        elif marker in visible:
            return marker
    return None


def marked_entries(entries: Sequence[Entry], rules: Memory) -> list[tuple[Entry, str]]:
    """Entries whose first line carries a marker; an entry inside a marked one is not repeated."""
    found: list[tuple[Entry, str]] = []
    for entry in entries:
        marker = _marker_matches(entry.first, rules.markers)
        if marker and not any(e.start <= entry.start and entry.end <= e.end for e, _ in found):
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


def superseded_entries(entries: Sequence[Entry], rules: Memory,
                       exclude: Sequence[Entry] = ()) -> list[tuple[Entry, Entry, str]]:
    """(earlier entry, later entry that supersedes it, how we know) — suggestions only."""
    candidates = [e for e in entries if e.kind in ("item", "paragraph")
                  and not any(x.start <= e.start and e.end <= x.end for x in exclude)]
    stop = {w.casefold() for w in rules.reference_stopwords}
    phrases = [re.compile(p) for p in rules.supersede_phrases]
    found: dict[int, tuple[Entry, Entry, str]] = {}
    for index, later in enumerate(candidates):
        earlier_pool = [e for e in candidates[:index] if e.section == later.section and e.end <= later.start]
        for phrase in phrases:
            for match in phrase.finditer(later.text):
                tokens = _reference_tokens(match.group("ref") or "", stop)
                if not tokens:
                    continue
                for earlier in reversed(earlier_pool):
                    if all(_contains(earlier, t) for t in tokens):
                        found.setdefault(earlier.start, (earlier, later, "reference"))
                        break
        subject = _subject(later, rules) if later.kind == "item" else None
        for earlier in earlier_pool:
            if earlier.start in found:
                continue
            if subject and earlier.kind == "item" and earlier.level == later.level and _subject(earlier, rules) == subject:
                found[earlier.start] = (earlier, later, "subject")
            elif _normalise(earlier.text) == _normalise(later.text):
                found[earlier.start] = (earlier, later, "repeat")
    return sorted(found.values(), key=lambda t: t[0].start)


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
