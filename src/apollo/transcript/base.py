"""The contract every format module fulfils, and the line reading and writing they share."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from apollo import jsonline
from apollo.atomic import atomic_output
from apollo.records import slotted
from apollo.transcript.model import Edit, Element, ReadWarning

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    #: an element's ``parent`` is the heading or list item it stands under (a document), not the
    #: message before it (a conversation): a budget keeps it with what it heads
    structured: bool = False

    def sniff(self, path: Path, head: bytes) -> bool:
        raise NotImplementedError

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        raise NotImplementedError

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        raise NotImplementedError


#: read buffer: a tool output's line is often longer than the default 8 KiB, and a line longer
#: than the buffer is read in pieces and joined (several times slower); still small next to the
#: index a streaming read keeps
_READ_BUFFER = 256 * 1024


def iter_raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw bytes including the line ending), streaming."""
    with path.open("rb", buffering=_READ_BUFFER) as handle:
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
    import orjson  # here, not at the top: the heartbeat after growth reads a few lines without it (apollo.jsonline)

    loads, malformed = orjson.loads, orjson.JSONDecodeError
    for number, raw in lines:
        if not raw or raw.isspace():  # what ``strip()`` would empty, without copying the line
            continue
        error = None
        try:  # the JSON object on the line, or None (malformed, or not an object)
            record = loads(raw)
        except malformed as refused:
            try:  # a lone surrogate, which pi and OpenClaw read
                record = jsonline.loads_refused(raw, refused)
            except ValueError:
                record, error = None, refused
        if type(record) is not dict:
            if warnings is not None:
                warnings.append(ReadWarning(where, number, _line_problem(raw, error, record)))
            record = None
        if warnings is not None and len(raw) > HUGE_RECORD_BYTES:
            warnings.append(ReadWarning(where, number, (
                f"very large record ({len(raw) / 1048576:.1f} MiB): read in full, but every load of this "
                "session pays for it; OpenClaw's SQLite store compresses events only up to 4 MiB")))
        yield number, raw, record


def _line_problem(raw: bytes, error: ValueError | None, value: object) -> str:
    """Why a line holds no JSON object: orjson's ``error``, or the ``value`` it read instead."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start}; line skipped (kept unchanged on write)"
    if not raw.endswith(b"\n"):
        return "truncated last line (no newline, incomplete JSON): the writer was probably cut off; kept unchanged"
    if error is not None:
        return f"malformed JSON ({str(error).split(':')[0]}); line skipped (kept unchanged on write)"
    return f"a JSON {type(value).__name__}, not an object; line skipped (kept unchanged on write)"


def copy_bytes(source: Path, dest: Path) -> None:
    with atomic_output(dest) as out, source.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            out.write(chunk)


def dump_record(record: dict[str, Any], ending: bytes) -> bytes:
    """One JSONL record as the agents write it (``JSON.stringify``: compact, UTF-8, no escapes)."""
    import orjson

    return orjson.dumps(record) + (ending or b"\n")


@slotted(frozen=True)
class Fingerprint:
    """Size, modification time and hash of a file: how we know nobody wrote to it since we read it."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: Path) -> Fingerprint:
        stat = path.stat()
        with path.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256")
        return cls(stat.st_size, stat.st_mtime_ns, digest.hexdigest())
