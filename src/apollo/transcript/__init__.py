"""Read and write every format agents keep their context in.

``read(path)`` detects the format (or takes ``fmt``) and returns a :class:`Transcript`;
``iter_elements`` streams for large files; ``write`` copies a source with edits applied.
Format modules register in ``registry.ORDER``; the rest of Apollo knows none of them by name.
A source is a file path or, for OpenClaw's SQLite store, a :class:`SessionRef` (a path to the
``.sqlite`` file alone means its most recent session).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from apollo.errors import InputError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from apollo.transcript.base import Fingerprint, TranscriptFormat
    from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role, Transcript
    from apollo.transcript.openclaw_sqlite import SessionRef

    Source = Path | SessionRef

__all__ = ["Edit", "Element", "Kind", "ReadWarning", "Role", "Transcript", "FORMATS", "detect", "read",
           "iter_elements", "write", "get_format", "SessionRef", "Fingerprint", "Source", "append_compaction"]

#: names this package offers from its modules, imported when first used: finding the current
#: session (the heartbeat's every run) needs neither the data model nor orjson
_LAZY = {"Edit": "model", "Element": "model", "Kind": "model", "ReadWarning": "model", "Role": "model",
         "Transcript": "model", "Fingerprint": "base", "TranscriptFormat": "base", "SessionRef": "openclaw_sqlite"}


def __getattr__(name: str) -> object:
    if name == "FORMATS":  # every format by name (importing all of them)
        from apollo.transcript import registry

        return {fmt.name: fmt for fmt in registry.in_order()}
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    if name == "Source":
        from apollo.transcript.openclaw_sqlite import SessionRef

        return Path | SessionRef
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_format(name: str) -> TranscriptFormat:
    from apollo.transcript import registry

    try:
        return registry.load(name)
    except KeyError:
        raise UsageError(f"unknown format {name!r}", hint=f"use one of: auto, {', '.join(registry.NAMES)}") from None


def detect(path: Path) -> TranscriptFormat:
    """The format of ``path`` from its first bytes (and name); a clear error when none fits."""
    if not path.exists():
        raise InputError("no such file", where=str(path))
    with path.open("rb") as handle:
        head = handle.read(64 * 1024)
    from apollo.transcript import registry

    for fmt in registry.in_order():
        if fmt.sniff(path, head):
            return fmt
    raise InputError(
        "not a transcript Apollo can read",
        where=str(path),
        hint=f"pass --format ({', '.join(registry.NAMES)}) if you know what it is",
    )


def _resolve(path: Source, fmt: str) -> tuple[TranscriptFormat, Source]:
    """The format handler and the source it reads: a bare SQLite store means its latest session."""
    from apollo.transcript.openclaw_sqlite import SessionRef, resolve_ref

    if isinstance(path, SessionRef):
        return get_format("openclaw-sqlite"), path
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, not a transcript file", where=str(path),
                         hint="pass a session file, or use the agent options to find the current session")
    handler = detect(path) if fmt == "auto" else get_format(fmt)
    if handler.name == "openclaw-sqlite":
        return handler, resolve_ref(path)
    return handler, path


def iter_elements(path: Source, fmt: str = "auto", *, counter: str = "estimate",
                  warnings: list[ReadWarning] | None = None) -> Iterator[Element]:
    """Stream the elements of ``path``; warnings are appended to ``warnings`` as they are met."""
    from apollo.tokens import get_counter

    handler, source = _resolve(path, fmt)
    sink = warnings if warnings is not None else []
    yield from handler.iter_elements(source, sink, get_counter(counter)[1])  # type: ignore[arg-type]


def read(path: Source, fmt: str = "auto", *, counter: str = "estimate") -> Transcript:
    """The whole transcript; ``meta["fingerprint"]`` lets a later in-place write check nothing changed."""
    from apollo.tokens import get_counter
    from apollo.transcript.base import Fingerprint
    from apollo.transcript.model import Transcript
    from apollo.transcript.openclaw_sqlite import SessionRef

    handler, source = _resolve(path, fmt)
    fingerprint = Fingerprint.of(source) if isinstance(source, Path) else None
    warnings: list[ReadWarning] = []
    elements = list(handler.iter_elements(source, warnings, get_counter(counter)[1]))  # type: ignore[arg-type]
    meta: dict[str, object] = {"counter": get_counter(counter)[0], "fingerprint": fingerprint}
    if isinstance(source, SessionRef):
        meta["session"] = str(source)
    return Transcript(handler.name, source if isinstance(source, Path) else source.db, elements, warnings, meta)


def write(source: Source, dest: Path, edits: Mapping[str, Edit], fmt: str = "auto") -> None:
    """Copy ``source`` to ``dest`` with ``edits`` applied (by element id); never in place."""
    dest = Path(dest)
    if isinstance(source, Path) and dest.exists() and dest.resolve() == source.resolve():
        raise UsageError("refusing to write a transcript over its own source", where=str(dest))
    handler, resolved = _resolve(source, fmt)
    handler.write(resolved, dest, edits)  # type: ignore[arg-type]


def append_compaction(source: Source, dest: Path | None, summary: str, first_kept_entry_id: str,
                      tokens_before: int, in_place: bool = False, **options: object) -> str:
    """One native pi/OpenClaw ``compaction`` entry after the session (see ``openclaw_compaction.append_compaction``).

    For a SQLite session the result is always a JSONL copy at ``dest`` (the live store is never written).
    """
    from apollo.transcript import openclaw_compaction
    from apollo.transcript.openclaw_sqlite import SessionRef

    handler, resolved = _resolve(source, "auto")
    if isinstance(resolved, SessionRef):
        if in_place or dest is None:
            raise UsageError("an OpenClaw SQLite session cannot be changed in place",
                             hint="write a JSONL copy (dest) and import it with openclaw doctor --session-sqlite import")
        staged = Path(dest)
        handler.write(resolved, staged, {})  # type: ignore[arg-type]
        return openclaw_compaction.append_compaction(staged, None, summary, first_kept_entry_id, tokens_before,
                                          in_place=True, **options)  # type: ignore[arg-type]
    if handler.name != "openclaw":
        raise UsageError(f"native compaction entries exist only in OpenClaw / pi sessions, not {handler.name}",
                         where=str(source), hint="use a filtered rewrite (write) for this format")
    return openclaw_compaction.append_compaction(resolved, dest, summary, first_kept_entry_id, tokens_before,
                                      in_place, **options)  # type: ignore[arg-type]
