"""iter_elements streams: memory follows the number of entries, not the bytes of the session."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from apollo.transcript.base import file_lines
from apollo.transcript.openclaw_read import iter_session_elements
from apollo.transcript.openclaw_rules import rules
from realclient.support import PiSession


def _peak(consume) -> int:  # noqa: ANN001
    tracemalloc.start()
    try:
        consume()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_streaming_peak_memory_is_a_small_fraction_of_the_file(tmp_path: Path) -> None:
    s = PiSession()
    for n in range(600):
        s.user(f"question {n}")
        s.tool(f"call{n}", "read", {"path": f"f{n}"}, f"log line {n} " * 1200)
    path = s.write(tmp_path / "big.jsonl")
    size = path.stat().st_size
    assert size > 8_000_000

    def stream() -> None:
        for _element in iter_session_elements(file_lines(path), str(path), [], len):
            pass

    def materialise() -> None:
        kept = list(iter_session_elements(file_lines(path), str(path), [], len))
        assert kept

    rules()  # the format's own rules, loaded once per process: not what this measures
    streaming, whole = _peak(stream), _peak(materialise)
    assert streaming < size / 5  # the index of ids and parents, one line at a time
    assert whole > size / 2  # what holding every element would cost: the difference is real
