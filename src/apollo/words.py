"""English stemming, shared by the classifier's topic words and the request router, and the
pattern of a run of Chinese characters the classifier and the filter share.

PyStemmer is the Snowball project's C stemmer: it imports in about a millisecond and stems
several times faster than the pure-Python port, which imports every language it knows.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

#: the Chinese characters: the unified ideographs and extension A
_CJK_FIRST, _CJK_LAST = "\u3400", "\u9fff"


@functools.cache
def cjk_run() -> re.Pattern[str]:
    """A run of Chinese characters, compiled once for every module that needs it, and only when
    one does: compiling a range this wide costs a heartbeat about a millisecond, and a text of
    ASCII characters never needs it."""
    return re.compile(f"[{_CJK_FIRST}-{_CJK_LAST}]+")


def cjk_runs(text: str) -> Iterator[re.Match[str]]:
    """The runs of Chinese characters in ``text``; a text of ASCII characters has none, and is not
    searched (so the pattern is not compiled for it)."""
    return iter(()) if text.isascii() else cjk_run().finditer(text)


def all_cjk(text: str) -> bool:
    """``text`` is one run of Chinese characters (``cjk_run().fullmatch``, without compiling it)."""
    return bool(text) and all(_CJK_FIRST <= char <= _CJK_LAST for char in text)


@functools.cache
def _english():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word ("deploying" -> "deploy")."""
    return _english().stemWord(word)
