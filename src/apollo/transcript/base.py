"""The contract every format module fulfils, and the line reader they share."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from apollo.transcript.model import Edit, Element, ReadWarning

Counter = Callable[[str], int]


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
        for number, raw in enumerate(handle, 1):
            yield number, raw
