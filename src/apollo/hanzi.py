"""Traditional Chinese read as Simplified: the rules are written in Simplified characters (处理, 检查,
进度) and a user in Taiwan or Hong Kong writes 處理, 檢查, 進度. One character for one, so what a
pattern finds in the converted text stands at the same place in the original. Japanese (any kana)
is left as it is: its kanji (書いて, 見て) are not Chinese to convert."""

from __future__ import annotations

import functools
import re
from pathlib import Path

#: a kana of either syllabary: the text is Japanese
_KANA = re.compile("[\u3040-\u30ff]")


def simplified(text: str) -> str:
    """``text`` with each Traditional character replaced by its Simplified one (same length)."""
    if text.isascii() or _KANA.search(text):
        return text
    return text.translate(_table())


@functools.cache
def _table() -> dict[int, int]:
    rows = (line.split("\t") for line in (Path(__file__).parent / "data" / "zh_traditional.tsv").read_text(
        "utf-8").splitlines() if line and not line.startswith("#"))
    traditional, simple = zip(*rows, strict=True)
    return str.maketrans("".join(traditional), "".join(simple))
