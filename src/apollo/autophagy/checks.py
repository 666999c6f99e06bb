"""Content checks of the medium tier: is a file corrupted, is a reminder expired.

Each check reads an already opened file descriptor (never a path) and answers with a reason
or ``None``. When in doubt the answer is "not corrupted" / "not expired": a cleaner that
misses some rubbish is annoying, one that deletes a good file is not forgivable.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import tarfile
import tomllib
import zipfile
import zlib
from collections.abc import Callable
from datetime import datetime

import orjson

from apollo.autophagy.entries import parse_moment
from apollo.autophagy.fs import read_fd
from apollo.autophagy.rules import Corrupt, Reminders

Verdict = tuple[str, str] | None  # (reason, reason_zh) when corrupted


def _json_ok(data: bytes) -> bool:
    try:
        orjson.loads(data)
        return True
    except orjson.JSONDecodeError:
        pass
    try:  # what orjson refuses but is still JSON: integers beyond 64 bits, a BOM, UTF-16
        json.loads(data.decode("utf-8-sig") if data[:3] == b"\xef\xbb\xbf" else data)
        return True
    except (ValueError, UnicodeDecodeError):
        return False


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (tsconfig.json, VS Code settings) to plain JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i == -1 else i
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def check_json(data: bytes) -> Verdict:
    if not data.strip():
        return ("zero bytes of data" if not data else "only white space", "0 字节" if not data else "只有空白")
    if _json_ok(data):
        return None
    try:
        json.loads(strip_jsonc(data.decode("utf-8-sig")))
        return None  # JSON with comments: not corrupted
    except (ValueError, UnicodeDecodeError):
        pass
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return (f"does not parse as JSON ({exc.msg} at line {exc.lineno})", f"JSON 解析失败（第 {exc.lineno} 行：{exc.msg}）")
    return ("does not parse as JSON", "JSON 解析失败")  # pragma: no cover - _json_ok would have accepted it


def _jsonl_lines(data: bytes) -> list[tuple[int, int, bool, bool]]:
    """(start, end, parses, starts like a record) of every non-blank line."""
    found = []
    offset = 0
    for raw in data.splitlines(keepends=True):
        if raw.strip():
            found.append((offset, offset + len(raw), _json_ok(raw), raw.lstrip()[:1] in (b"{", b"[")))
        offset += len(raw)
    return found


def check_jsonl(data: bytes) -> Verdict:
    """Corrupt only when nothing in it can be read: empty, or not one line parses. Lines that
    do not parse among good ones are left for a person (a torn last line is repaired instead)."""
    if not data.strip():
        return ("zero bytes of data" if not data else "only white space", "0 字节" if not data else "只有空白")
    lines = _jsonl_lines(data)
    if any(line[2] for line in lines) or check_json(data) is None:  # a pretty-printed JSON document is readable
        return None
    return (f"none of its {len(lines)} lines parses", f"{len(lines)} 行中没有一行能解析")


# Bytes that no text in any encoding holds (C0 controls but tab, line ends, form feed, ^Z, ESC).
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x19\x1c-\x1f]")


def check_utf8(data: bytes) -> Verdict:
    """Not text at all: neither UTF-8 (nor UTF-16 with its BOM) nor any 8-bit encoding, which
    is told by control bytes no text holds. Latin-1, Windows-1252, GB18030... are text."""
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError as exc:
        error = exc
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            data.decode("utf-16")
            return None
        except UnicodeDecodeError:
            pass
    binary = _BINARY.search(data)
    if binary is None or _utf16_text(data) or _opens_as_text(data, error.start):
        return None  # text in another encoding, or text damaged further on: not rubbish
    return (f"not text: not UTF-8 (byte {error.start}) and control byte {binary.group()!r} at {binary.start()}",
            f"不是文本：不是 UTF-8（第 {error.start} 字节），且第 {binary.start()} 字节是控制字节")


def _opens_as_text(data: bytes, error: int) -> bool:
    """Whole lines of UTF-8 text before the first byte that is not: a note with a part saved in
    another encoding, or a UTF-16 tail appended to it, is damaged text a person can still read."""
    head = data[:data.rfind(b"\n", 0, error) + 1]
    return bool(head.strip()) and _BINARY.search(head) is None


def _utf16_text(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: decodes, and holds no control character but white space."""
    if len(data) % 2:
        return False
    for encoding in ("utf-16-le", "utf-16-be"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if not any(ch < " " and ch not in "\t\n\r\f" for ch in text):
            return True
    return False


def torn_parts(validator: str, data: bytes) -> list[tuple[int, int]]:
    """The byte ranges to cut from a file whose only damage is records cut short, or []. JSONL:
    the lines that start like a record but do not parse (a writer killed mid-line), when every
    other line parses. Text: valid UTF-8 with other non-ASCII characters, cut inside its last
    character (an ASCII file ending in one odd byte is more likely Latin-1: left alone)."""
    if validator == "jsonl":
        lines = _jsonl_lines(data)
        broken = [(start, end) for start, end, ok, _ in lines if not ok]
        if broken and len(broken) < len(lines) and all(ok or record for _, _, ok, record in lines):
            return broken
        return []
    if validator == "utf8":
        try:
            data.decode("utf-8")
            return []
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data" or exc.end != len(data) or data[:exc.start].isascii():
                return []
            return [(exc.start, len(data))]
    return []


def _file(fd: int) -> io.BufferedReader:
    """A file object over a duplicate of ``fd`` (they share the offset: rewind first)."""
    duplicate = os.dup(fd)
    os.lseek(duplicate, 0, os.SEEK_SET)
    return os.fdopen(duplicate, "rb")


def check_zip(fd: int) -> Verdict:
    try:
        with _file(fd) as handle, zipfile.ZipFile(handle) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError, ValueError) as exc:
        return (f"zip integrity check failed ({exc})", f"zip 完整性校验失败（{exc}）")
    if bad is not None:
        return (f"zip member {bad!r} fails its CRC check", f"zip 成员 {bad!r} CRC 校验失败")
    return None


def check_gzip(fd: int) -> Verdict:
    try:
        with _file(fd) as handle, gzip.GzipFile(fileobj=handle) as stream:
            while stream.read(1 << 20):
                pass
    except (OSError, EOFError, zlib.error) as exc:
        return (f"gzip integrity check failed ({exc or 'truncated'})", f"gzip 完整性校验失败（{exc or '被截断'}）")
    return None


def check_tar(fd: int) -> Verdict:
    with _file(fd) as handle:
        if handle.read(2) == b"\x1f\x8b":
            verdict = check_gzip(fd)
            if verdict:
                return verdict
    try:
        with _file(fd) as handle, tarfile.open(fileobj=handle, mode="r:*") as archive:
            for member in archive:
                if member.isfile():
                    extracted = archive.extractfile(member)
                    if extracted is not None:
                        while extracted.read(1 << 20):
                            pass
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        return (f"tar integrity check failed ({exc or 'truncated'})", f"tar 完整性校验失败（{exc or '被截断'}）")
    return None


def repairable(validator: str, fd: int, size: int, rules: Corrupt) -> tuple[list[tuple[int, int]], bytes]:
    """(ranges to cut, the whole content): non-empty ranges when the only damage is torn records."""
    if validator not in ("jsonl", "utf8") or size > rules.max_check_mb * 1024 * 1024:
        return [], b""
    data = read_fd(fd)
    return (torn_parts(validator, data) if len(data) == size else []), data


def validate(validator: str, fd: int, size: int, rules: Corrupt) -> Verdict:
    """Run one validator on an open file; files over the size limit are never judged."""
    if size > rules.max_check_mb * 1024 * 1024:
        return None
    streaming: dict[str, Callable[[int], Verdict]] = {"zip": check_zip, "gzip": check_gzip, "tar": check_tar}
    if validator in streaming:
        return streaming[validator](fd)
    data = read_fd(fd)
    if validator == "json":
        return check_json(data)
    if validator == "jsonl":
        return check_jsonl(data)
    return check_utf8(data)


# -- reminders -----------------------------------------------------------------------------------

#: the value is the line up to its last non-space (or nothing): a lazy ``(.*?)\s*$`` read the spaces after each
#: character again ("due: x", 64k spaces, "y": 21 s); the spaces before it are read once
_KEY_VALUE = re.compile(r"\s*([A-Za-z_][\w-]*)\s*[:：=]\s*+(.*\S|)\s*$")


def _text_fields(text: str) -> dict[str, object]:
    """Front matter, or the ``key: value`` lines a text reminder starts with (blank lines
    before them aside); a ``key: value`` line anywhere further down is text, not a field."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        lines = lines[1:end] if end else []
    fields: dict[str, object] = {}
    for line in lines:
        if not line.strip():
            if fields:
                break
            continue
        match = _KEY_VALUE.match(line)
        if not match:
            break
        value = match.group(2).strip().strip("'\"")
        fields[match.group(1)] = {"true": True, "false": False}.get(value.lower(), value)
    return fields


def reminder_fields(data: bytes, suffix: str) -> dict[str, object] | None:
    """The top-level fields of a reminder file, or None if it cannot be read as one."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    try:
        if suffix == ".json":
            value = json.loads(text)
            return value if isinstance(value, dict) else None
        if suffix == ".toml":
            return tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        return None
    return _text_fields(text)


def reminder_verdict(fields: dict[str, object], rules: Reminders, timestamp: re.Pattern[str],
                     now: datetime) -> Verdict:
    """Expired (the first time key is past) or marked done; an unreadable time is not expired."""
    for key in rules.done_keys:
        if fields.get(key) is True:
            return (f"marked done ({key}: true)", f"已标记完成（{key}: true）")
    done = {s.casefold() for s in rules.done_statuses}
    for key in rules.status_keys:
        value = fields.get(key)
        if isinstance(value, str) and value.strip().casefold() in done:
            return (f"marked {value.strip()} ({key})", f"已标记为 {value.strip()}（{key}）")
    for key in rules.time_keys:
        if key in fields:
            moment = parse_moment(fields[key], timestamp)
            if moment is not None and moment <= now:
                return (f"{key} {fields[key]} is past", f"{key} {fields[key]} 已过")
            return None
    return None
