"""Read and write every format agents keep their context in.

``read(path)`` detects the format (or takes ``fmt``) and returns a :class:`Transcript`;
``iter_elements`` streams for large files; ``write`` copies a source with edits applied.
Format modules register in ``FORMATS``; the rest of Apollo knows none of them by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from apollo.errors import InputError, UsageError
from apollo.tokens import get_counter
from apollo.transcript.base import TranscriptFormat
from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role, Transcript

__all__ = ["Edit", "Element", "Kind", "ReadWarning", "Role", "Transcript", "FORMATS", "detect", "read",
           "iter_elements", "write", "get_format"]


def _formats() -> dict[str, TranscriptFormat]:
    from apollo.transcript.jsonl import ConversationJsonl

    found: list[TranscriptFormat] = []
    try:  # format modules land one by one; each registers itself here
        from apollo.transcript.registry import ALL  # type: ignore[attr-defined]

        found.extend(ALL)
    except ImportError:
        found.append(ConversationJsonl())
    return {fmt.name: fmt for fmt in found}


FORMATS: dict[str, TranscriptFormat] = _formats()


def get_format(name: str) -> TranscriptFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}", hint=f"use one of: auto, {', '.join(FORMATS)}") from None


def detect(path: Path) -> TranscriptFormat:
    """The format of ``path`` from its first bytes (and name); a clear error when none fits."""
    if not path.exists():
        raise InputError("no such file", where=str(path))
    with path.open("rb") as handle:
        head = handle.read(64 * 1024)
    for fmt in FORMATS.values():
        if fmt.sniff(path, head):
            return fmt
    raise InputError(
        "not a transcript Apollo can read",
        where=str(path),
        hint=f"pass --format ({', '.join(FORMATS)}) if you know what it is",
    )


def _resolve(path: Path, fmt: str) -> TranscriptFormat:
    if path.is_dir():
        raise InputError("is a directory, not a transcript file", where=str(path))
    return detect(path) if fmt == "auto" else get_format(fmt)


def iter_elements(path: Path, fmt: str = "auto", *, counter: str = "estimate",
                  warnings: list[ReadWarning] | None = None) -> Iterator[Element]:
    """Stream the elements of ``path``; warnings are appended to ``warnings`` as they are met."""
    handler = _resolve(path, fmt)
    sink = warnings if warnings is not None else []
    yield from handler.iter_elements(path, sink, get_counter(counter)[1])


def read(path: Path, fmt: str = "auto", *, counter: str = "estimate") -> Transcript:
    handler = _resolve(path, fmt)
    warnings: list[ReadWarning] = []
    elements = list(handler.iter_elements(path, warnings, get_counter(counter)[1]))
    return Transcript(handler.name, path, elements, warnings, {"counter": get_counter(counter)[0]})


def write(source: Path, dest: Path, edits: Mapping[str, Edit], fmt: str = "auto") -> None:
    """Copy ``source`` to ``dest`` with ``edits`` applied (by element id); never in place."""
    if dest.exists() and dest.resolve() == source.resolve():
        raise UsageError("refusing to write a transcript over its own source", where=str(dest))
    _resolve(source, fmt).write(source, dest, edits)
