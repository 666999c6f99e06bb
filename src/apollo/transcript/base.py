"""The contract every format module fulfils, and the line reading and writing they share."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from apollo.transcript.model import Edit, Element, ReadWarning

Counter = Callable[[str], int]
#: a re-openable stream of (1-based line number, raw bytes including the line ending)
LineSource = Callable[[], Iterator[tuple[int, bytes]]]

#: records larger than this get a warning: OpenClaw's SQLite store caps compressed events at 4 MiB
HUGE_RECORD_BYTES = 4 * 1024 * 1024


class TranscriptFormat:
    """A reader and a writer for one way agents keep their context.

    ``iter_elements`` streams (bounded memory on a 50 MB file); ``write`` copies ``source`` to
    ``dest`` applying ``edits`` keyed by element id, and with no edits is byte-identical.
    """

    name: str = ""
    #: where agents keep files of this format (README's format table)
    where: str = ""

    def sniff(self, path: Path, head: bytes) -> bool:
        raise NotImplementedError

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        raise NotImplementedError

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        raise NotImplementedError


def iter_raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw bytes including the line ending), streaming."""
    with path.open("rb") as handle:
        yield from enumerate(handle, 1)


def file_lines(path: Path) -> LineSource:
    return lambda: iter_raw_lines(path)


def line_ending(raw: bytes) -> bytes:
    if raw.endswith(b"\r\n"):
        return b"\r\n"
    return b"\n" if raw.endswith(b"\n") else b""


def text_field(record: dict[str, Any], key: str) -> str:
    """``record[key]`` when it is a string, else "" (agents' files are not always what they claim)."""
    value = record.get(key)
    return value if isinstance(value, str) else ""


def iter_records(lines: Iterable[tuple[int, bytes]], where: str,
                 warnings: list[ReadWarning] | None) -> Iterator[tuple[int, bytes, dict[str, Any] | None]]:
    """Every line with its parsed object (None when it is not one), warning once per bad line.

    Blank lines are skipped. A bad line is reported with its file and line number and still
    yielded (with None), so writers can carry it through unchanged.
    """
    loads, malformed = orjson.loads, orjson.JSONDecodeError
    for number, raw in lines:
        if not raw or raw.isspace():  # what ``strip()`` would empty, without copying the line
            continue
        try:  # the JSON object on the line, or None (malformed, or not an object)
            record = loads(raw)
        except malformed:
            record = None
        if type(record) is not dict:
            record = None
        if warnings is not None:
            problem = _line_problem(raw, record)
            if problem:
                warnings.append(ReadWarning(where, number, problem))
            if len(raw) > HUGE_RECORD_BYTES:
                warnings.append(ReadWarning(where, number, (
                    f"very large record ({len(raw) / 1048576:.1f} MiB): read in full, but every load of this "
                    "session pays for it; OpenClaw's SQLite store compresses events only up to 4 MiB")))
        yield number, raw, record


def _line_problem(raw: bytes, record: dict[str, Any] | None) -> str | None:
    if record is not None:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start}; line skipped (kept unchanged on write)"
    if not raw.endswith(b"\n"):
        return "truncated last line (no newline, incomplete JSON): the writer was probably cut off; kept unchanged"
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return f"malformed JSON ({str(exc).split(':')[0]}); line skipped (kept unchanged on write)"
    return f"a JSON {type(orjson.loads(text)).__name__}, not an object; line skipped (kept unchanged on write)"


@contextmanager
def atomic_output(dest: Path) -> Iterator[IO[bytes]]:
    """Write ``dest`` through an unnamed temporary file, linked and renamed into place at the end.

    A reader never sees half a transcript, and a failed write leaves nothing behind without
    deleting anything (deleting is autophagy's alone): the unnamed file (Linux ``O_TMPFILE``)
    simply vanishes. Where ``O_TMPFILE`` is missing, a named ``.tmp`` file is used instead.
    """
    dest = Path(dest)
    folder = dest.parent if str(dest.parent) else Path(".")
    staged = folder / f".{dest.name}.{os.getpid()}.tmp"
    flags = getattr(os, "O_TMPFILE", 0)
    try:
        fd = os.open(folder, flags | os.O_WRONLY, 0o644) if flags else -1
    except OSError:
        fd = -1
    if fd < 0:
        with staged.open("wb") as handle:
            yield handle
        os.replace(staged, dest)
        return
    with os.fdopen(fd, "wb") as handle:
        yield handle
        handle.flush()
        _link_unnamed(fd, staged)
    os.replace(staged, dest)


def _link_unnamed(fd: int, path: Path) -> None:
    """Give an ``O_TMPFILE`` file a name: ``linkat(AT_FDCWD, "/proc/self/fd/N", ..., AT_SYMLINK_FOLLOW)``."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_symlink_follow = -100, 0x400
    if libc.linkat(at_fdcwd, f"/proc/self/fd/{fd}".encode(), at_fdcwd, os.fsencode(path), at_symlink_follow):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(path))


def copy_bytes(source: Path, dest: Path) -> None:
    with atomic_output(dest) as out, source.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            out.write(chunk)


def dump_record(record: dict[str, Any], ending: bytes) -> bytes:
    """One JSONL record as the agents write it (``JSON.stringify``: compact, UTF-8, no escapes)."""
    return orjson.dumps(record) + (ending or b"\n")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """Size, modification time and hash of a file: how we know nobody wrote to it since we read it."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: Path) -> Fingerprint:
        stat = path.stat()
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        return cls(stat.st_size, stat.st_mtime_ns, digest.hexdigest())
